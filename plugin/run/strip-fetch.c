/* gpu-histogram: the dialog's strip fetcher.  See strip-fetch.h. */
#include <string.h>

#include <glib/gi18n-lib.h>

#include "strip-fetch.h"

/* Two bands: the worker counts one while the main thread fetches the other. */
#define N_SLOTS 2
/* A piece is one tile row of a band, as many tiles wide as GIMP gives in about PIECE_US (the
 * width follows the last pieces' times: GIMP 2.10 served a 64 x 64 tile of 16-bit RGBA in 1 to
 * 4 ms on the 2-core machine, so a fixed megabyte took up to 190 ms); the first piece of a count
 * is FIRST_PIECE_TILES tiles wide. */
#define PIECE_US 8000
#define FIRST_PIECE_TILES 4
/* The main thread fetches pieces for at most this long a dispatch, then lets GTK run. */
#define DISPATCH_BUDGET_US 10000
/* How often a waiting worker looks at the cancellable: well within the 100 ms a cancel may take. */
#define WAIT_US 20000

typedef enum
{
  SLOT_FREE,
  SLOT_FILLING, /* the main thread fetches its pieces */
  SLOT_FULL     /* the worker's, until it has counted all its rows */
} SlotState;

typedef struct
{
  SlotState state;
  guint8 *raw;   /* rows in the fetch format, packed */
  guint8 *plane; /* the coverage in its own format, packed; NULL without a selection */
  int y, rows;   /* the band, in buffer rows */
  int done_y;    /* rows fetched so far: whole tile rows of the band (SLOT_FILLING) */
  int done_x;    /* columns of the tile row being fetched */
  int read_rows; /* rows the worker has taken (SLOT_FULL) */
  gint64 fetch_us;
} Slot;

/* One piece of a band, fetched without the lock held. */
typedef struct
{
  Slot *slot;
  guint generation;
  GeglRectangle rect;
} Piece;

struct GpuhistStripFetch
{
  GpuhistStream stream; /* the formats and the bands, as the worker's stream has them */
  size_t raw_row, plane_row;
  int tile_width;
  int piece_columns; /* the main thread's: adapts to GIMP's speed */
  double pixel_us;   /* GIMP's time a pixel, as adapt_piece estimates it */
  GCancellable *cancellable;
  GpuhistStillThereFunc still_there;
  gpointer still_there_data;

  GMutex lock; /* guards what follows */
  GCond changed;
  Slot slots[N_SLOTS];
  int next_y;        /* the next band to fetch */
  guint generation;  /* bumped when the worker starts again from another row */
  guint idle_id;     /* 0 while the main thread has nothing to fetch */
  gint64 starved_at; /* when it last found no free band; 0 while it has one */
  GError *error;     /* why the main thread stopped */
  GpuhistFetchTimes times;
};

static gboolean dispatch (gpointer data);

static int
area_end (const GpuhistStripFetch *f)
{
  return f->stream.source->area.y + f->stream.source->area.height;
}

/* With the lock held: the main thread fetches again (the worker freed a slot, or wants another
 * row). */
static void
wake_fetcher (GpuhistStripFetch *f)
{
  if (f->idle_id == 0 && f->error == NULL)
    f->idle_id = g_idle_add_full (G_PRIORITY_DEFAULT_IDLE, dispatch, f, NULL);
  if (f->starved_at != 0)
    f->times.starved_us += g_get_monotonic_time () - f->starved_at;
  f->starved_at = 0;
}

/* The next piece of the slot's band: the rest of its tile row from done_x, piece_columns wide,
 * its right edge on the tile grid so that no tile is asked for twice. */
static GeglRectangle
piece_rect (const GpuhistStripFetch *f, const Slot *slot)
{
  const GeglRectangle *area = &f->stream.source->area;
  int y = slot->y + slot->done_y;
  int rows
      = gpuhist_band_rows (y, slot->rows - slot->done_y, f->stream.tile_height, f->stream.shift_y);
  int x = area->x + slot->done_x;
  int end = x + f->piece_columns;

  rows = MIN (rows, f->stream.tile_height); /* one tile row */
  if (f->tile_width > 1)
    end -= ((end % f->tile_width) + f->tile_width) % f->tile_width;
  end = CLAMP (end, x + 1, area->x + area->width);
  return (GeglRectangle){ x, y, end - x, rows };
}

/* The rows of the next band: a strip's, but the last bands halve down to a tile row, so that
 * what the worker counts after the last piece came in is little. */
static int
band_rows (const GpuhistStripFetch *f)
{
  int left = area_end (f) - f->next_y;

  if (left >= 2 * f->stream.strip_rows)
    return f->stream.strip_rows;
  return MIN (left, MAX (left / 2, f->stream.tile_height));
}

/* With the lock held: the next piece to fetch, starting a band in a free slot when none is being
 * filled; FALSE when there is nothing to fetch now. */
static gboolean
next_piece (GpuhistStripFetch *f, Piece *piece)
{
  Slot *slot = NULL;

  for (int i = 0; i < N_SLOTS && slot == NULL; i++)
    if (f->slots[i].state == SLOT_FILLING)
      slot = &f->slots[i];
  for (int i = 0; i < N_SLOTS && slot == NULL && f->next_y < area_end (f); i++)
    if (f->slots[i].state == SLOT_FREE)
      {
        slot = &f->slots[i];
        slot->state = SLOT_FILLING;
        slot->y = f->next_y;
        slot->rows = gpuhist_band_rows (f->next_y, band_rows (f), f->stream.tile_height,
                                        f->stream.shift_y);
        slot->done_x = slot->done_y = slot->read_rows = 0;
        slot->fetch_us = 0;
        f->next_y += slot->rows;
      }
  if (slot == NULL)
    return FALSE;
  piece->slot = slot;
  piece->generation = f->generation;
  piece->rect = piece_rect (f, slot);
  return TRUE;
}

/* The piece's pixels and coverage, straight into the slot's rows (GIMP's tile requests): at its
 * own row of the band and its own column, since a band is fetched a tile row at a time. */
static void
fetch_piece (GpuhistStripFetch *f, const Piece *piece)
{
  const GpuhistSource *source = f->stream.source;
  size_t column = (size_t) (piece->rect.x - source->area.x);
  size_t row = (size_t) (piece->rect.y - piece->slot->y);

  gegl_buffer_get (source->buffer, &piece->rect, 1.0, f->stream.fetch_format,
                   piece->slot->raw + row * f->raw_row + column * f->stream.fetch_bpp,
                   (gint) f->raw_row, GEGL_ABYSS_NONE);
  if (piece->slot->plane != NULL)
    {
      GeglRectangle mask = piece->rect;

      mask.x += source->coverage_dx;
      mask.y += source->coverage_dy;
      /* ABYSS_NONE: where the layer lies outside the image, the selection is 0 there. */
      gegl_buffer_get (source->coverage_buffer, &mask, 1.0, source->coverage_format,
                       piece->slot->plane + row * f->plane_row + column * source->coverage_bytes,
                       (gint) f->plane_row, GEGL_ABYSS_NONE);
    }
}

/* With the lock held: the piece counts, unless the worker started again meanwhile. */
static void
commit_piece (GpuhistStripFetch *f, const Piece *piece, gint64 us)
{
  Slot *slot = piece->slot;

  if (piece->generation != f->generation || slot->state != SLOT_FILLING)
    return;
  slot->done_x += piece->rect.width;
  slot->fetch_us += us;
  if (slot->done_x >= f->stream.source->area.width)
    {
      slot->done_x = 0;
      slot->done_y += piece->rect.height;
    }
  if (slot->done_y >= slot->rows)
    {
      slot->state = SLOT_FULL;
      g_cond_broadcast (&f->changed);
    }
}

/* The next pieces as wide as GIMP gives in about PIECE_US.  GIMP's time a pixel: a slower piece
 * raises the estimate at once, a faster one lowers it a quarter of the way, so that a piece after
 * fast ones is not many times too long (GIMP 2.10 served some pieces 6 to 10 times faster a pixel
 * than the next: docs/BENCHMARKS.md). */
static void
adapt_piece (GpuhistStripFetch *f, const Piece *piece, gint64 us)
{
  double pixel_us
      = (double) MAX (us, (gint64) 1) / ((double) piece->rect.width * piece->rect.height);
  double wanted;

  if (pixel_us > f->pixel_us)
    f->pixel_us = pixel_us;
  else
    f->pixel_us += (pixel_us - f->pixel_us) / 4.0;
  wanted = PIECE_US / (f->pixel_us * MAX (f->stream.tile_height, 1));
  f->piece_columns = (int) CLAMP (wanted, (double) MAX (f->tile_width, 1),
                                  (double) f->stream.source->area.width);
}

static void
stop_fetching (GpuhistStripFetch *f, GError *error)
{
  g_mutex_lock (&f->lock);
  if (f->error == NULL)
    f->error = error;
  else
    g_error_free (error);
  f->idle_id = 0;
  g_cond_broadcast (&f->changed);
  g_mutex_unlock (&f->lock);
}

/* The main thread's share: pieces for up to DISPATCH_BUDGET_US, then back to GTK. */
static gboolean
dispatch (gpointer data)
{
  GpuhistStripFetch *f = data;
  gint64 start = g_get_monotonic_time ();
  gint64 now = start;
  gboolean more = TRUE;

  if (g_cancellable_is_cancelled (f->cancellable))
    {
      stop_fetching (f, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, _ ("Cancelled.")));
      return G_SOURCE_REMOVE;
    }
  if (f->still_there != NULL && !f->still_there (f->still_there_data))
    {
      stop_fetching (f, g_error_new_literal (GPUHIST_ERROR, GPUHIST_ERROR_GIMP,
                                             _ ("The drawable went away while it was counted.")));
      return G_SOURCE_REMOVE;
    }
  while (more && now - start < DISPATCH_BUDGET_US)
    {
      Piece piece;
      gint64 before = now;

      g_mutex_lock (&f->lock);
      more = next_piece (f, &piece);
      if (!more)
        {
          f->idle_id = 0;
          f->starved_at = f->next_y < area_end (f) ? now : 0;
        }
      g_mutex_unlock (&f->lock);
      if (!more)
        break;
      if (f->times.first_at_us == 0)
        f->times.first_at_us = before;
      fetch_piece (f, &piece);
      now = g_get_monotonic_time ();
      adapt_piece (f, &piece, now - before);
      g_mutex_lock (&f->lock);
      commit_piece (f, &piece, now - before);
      f->times.last_piece_at_us = now;
      g_mutex_unlock (&f->lock);
    }
  now = g_get_monotonic_time ();
  g_mutex_lock (&f->lock);
  f->times.longest_us = MAX (f->times.longest_us, now - start);
  f->times.busy_us += now - start;
  g_mutex_unlock (&f->lock);
  return more ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
}

static int
tile_width (GeglBuffer *buffer)
{
  int width = 64;

  if (g_object_class_find_property (G_OBJECT_GET_CLASS (buffer), "tile-width"))
    g_object_get (buffer, "tile-width", &width, NULL);
  return MAX (width, 1);
}

GpuhistStripFetch *
gpuhist_strip_fetch_new (const GpuhistSource *source, const GpuhistSettings *settings,
                         GCancellable *cancellable, GpuhistStillThereFunc still_there,
                         gpointer still_there_data, GError **error)
{
  GpuhistStripFetch *f = g_new0 (GpuhistStripFetch, 1);

  if (!gpuhist_stream_open (&f->stream, source, NULL, settings, error))
    {
      g_free (f);
      return NULL;
    }
  g_clear_pointer (&f->stream.scratch, g_free); /* the worker narrows, into the engine's strip */
  f->raw_row = gpuhist_stream_raw_row_bytes (&f->stream);
  f->plane_row = source->coverage_buffer != NULL && f->stream.plane_bytes > 0
                     ? (size_t) source->area.width * source->coverage_bytes
                     : 0;
  f->tile_width = tile_width (source->buffer);
  f->piece_columns = FIRST_PIECE_TILES * f->tile_width;
  f->cancellable = g_object_ref (cancellable);
  f->still_there = still_there;
  f->still_there_data = still_there_data;
  g_mutex_init (&f->lock);
  g_cond_init (&f->changed);
  for (int i = 0; i < N_SLOTS; i++)
    {
      f->slots[i].raw = g_malloc ((size_t) f->stream.strip_rows * f->raw_row);
      if (f->plane_row > 0)
        f->slots[i].plane = g_malloc ((size_t) f->stream.strip_rows * f->plane_row);
    }
  f->next_y = source->area.y;
  g_mutex_lock (&f->lock);
  wake_fetcher (f);
  g_mutex_unlock (&f->lock);
  return f;
}

/* With the lock held: the full slot holding row y, or NULL. */
static Slot *
slot_at (GpuhistStripFetch *f, int y)
{
  for (int i = 0; i < N_SLOTS; i++)
    {
      Slot *slot = &f->slots[i];

      if (slot->state == SLOT_FULL && y == slot->y + slot->read_rows)
        return slot;
    }
  return NULL;
}

/* With the lock held: y is none of the bands fetched or being fetched (a count again from the
 * start): everything fetched goes, and the main thread starts at y. */
static void
start_again_at (GpuhistStripFetch *f, int y)
{
  for (int i = 0; i < N_SLOTS; i++)
    {
      Slot *slot = &f->slots[i];

      if (slot->state != SLOT_FREE && y >= slot->y && y < slot->y + slot->rows)
        return; /* on its way */
    }
  for (int i = 0; i < N_SLOTS; i++)
    f->slots[i].state = SLOT_FREE;
  f->next_y = y;
  f->generation++;
  wake_fetcher (f);
}

/* With the lock held: waits until row y's band is full, or the fetch failed or was cancelled. */
static Slot *
wait_for (GpuhistStripFetch *f, int y, GError **error)
{
  Slot *slot;

  start_again_at (f, y);
  while ((slot = slot_at (f, y)) == NULL)
    {
      if (g_cancellable_set_error_if_cancelled (f->cancellable, error))
        return NULL;
      if (f->error != NULL)
        {
          g_propagate_error (error, g_error_copy (f->error));
          return NULL;
        }
      g_cond_wait_until (&f->changed, &f->lock, g_get_monotonic_time () + WAIT_US);
    }
  return slot;
}

int
gpuhist_strip_fetch_read_band (GpuhistStream *stream, int y, int limit, uint8_t *strip,
                               uint8_t *plane, gpointer data, GError **error)
{
  GpuhistStripFetch *f = data;
  Slot *slot;
  int rows;
  gboolean ok;
  gint64 start = g_get_monotonic_time ();

  g_mutex_lock (&f->lock);
  slot = wait_for (f, y, error);
  f->times.waited_us += g_get_monotonic_time () - start;
  g_mutex_unlock (&f->lock);
  if (slot == NULL)
    return 0;
  /* The slot is the worker's until it is freed: no lock while narrowing. */
  rows = MIN (limit, slot->rows - slot->read_rows);
  ok = gpuhist_stream_convert_band (
      stream, slot->raw + (size_t) slot->read_rows * f->raw_row,
      slot->plane ? slot->plane + (size_t) slot->read_rows * f->plane_row : NULL, rows, strip,
      plane, error);
  g_mutex_lock (&f->lock);
  if (slot->read_rows == 0)
    stream->fetch_us += slot->fetch_us;
  slot->read_rows += rows;
  if (slot->read_rows >= slot->rows)
    {
      slot->state = SLOT_FREE;
      wake_fetcher (f);
    }
  g_mutex_unlock (&f->lock);
  return ok ? rows : 0;
}

GpuhistFetchTimes
gpuhist_strip_fetch_times (const GpuhistStripFetch *fetch)
{
  return fetch->times;
}

void
gpuhist_strip_fetch_free (GpuhistStripFetch *fetch)
{
  if (fetch == NULL)
    return;
  if (fetch->idle_id != 0)
    g_source_remove (fetch->idle_id);
  for (int i = 0; i < N_SLOTS; i++)
    {
      g_free (fetch->slots[i].raw);
      g_free (fetch->slots[i].plane);
    }
  g_clear_error (&fetch->error);
  g_clear_object (&fetch->cancellable);
  g_mutex_clear (&fetch->lock);
  g_cond_clear (&fetch->changed);
  gpuhist_stream_clear (&fetch->stream);
  g_free (fetch);
}
