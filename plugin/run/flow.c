/* gpu-histogram: the one run flow.  See flow.h. */
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <gio/gio.h>
#include <glib/gi18n-lib.h>

#include "engine-keeper.h"
#include "fetch-only.h"
#include "flow.h"
#include "report.h"
#include "run.h"
#include "source.h"

static void
monitor_progress (double fraction, gpointer user_data)
{
  const GpuhistHost *host = user_data;

  host->progress_update (fraction);
}

static gboolean
fail (GError **error, GpuhistErrorCode code, const char *message)
{
  g_set_error_literal (error, GPUHIST_ERROR, code, message);
  return FALSE;
}

static const GpuhistSource *
no_source (GError **error, GpuhistErrorCode code, const char *message)
{
  fail (error, code, message);
  return NULL;
}

/* Which of several selected drawables was counted: for the report, and said at once when the
 * user is there to read it.  NULL for one drawable. */
static gchar *
several_drawables_note (const GpuhistHost *host, const GpuhistRequest *request, const char *name)
{
  gchar *note;

  if (request->n_drawables <= 1)
    return NULL;
  note = g_strdup_printf (_ ("%d drawables are selected; counted the first one, \"%s\"."),
                          request->n_drawables, name);
  if (request->mode == GPUHIST_MODE_INTERACTIVE)
    host->message (note);
  return note;
}

/* What one source reads.  GIMP does not let PDB calls such as mask_intersect see a layer or
 * channel that was never inserted, so the kind, the selection's bounds and the name come from
 * the drawable in the image. */
typedef struct
{
  gpointer target;         /* the drawable counted, in the image; NULL: the visible image */
  gpointer pixels;         /* what is read: target, GIMP's copy of it, the visible image's layer */
  gpointer in_image;       /* a drawable of the image, whose selection is read */
  gboolean copy_selection; /* read GIMP's copy of the selection instead of the selection */
} SourceItems;

/* A source and what it holds. */
typedef struct
{
  GpuhistSource source;
  GeglBuffer *buffer;
  GeglBuffer *mask;
  gpointer pixels_copy; /* deleted with the source; NULL when the pixels are not a copy */
  gpointer mask_copy;
  gboolean opened;
} OpenSource;

/* The kind of what is counted and the selection's bounds within it; FALSE when they do not
 * intersect. */
static gboolean
drawable_area (const GpuhistHost *host, const SourceItems *items, GpuhistDrawableKind *kind,
               GeglRectangle *area)
{
  if (items->target == NULL)
    {
      *kind = GPUHIST_DRAWABLE_LAYER;
      return host->image_mask_bounds (items->in_image, area);
    }
  *kind = host->is_mask_or_channel (items->target) ? GPUHIST_DRAWABLE_MASK_OR_CHANNEL
                                                   : GPUHIST_DRAWABLE_LAYER;
  return host->mask_intersect (items->target, area);
}

/* The image's selection (or GIMP's copy of it) beside the source. */
static void
open_selection (const GpuhistHost *host, const SourceItems *items, OpenSource *open)
{
  int offset_x = 0;
  int offset_y = 0;

  open->mask = host->get_selection (items->in_image, &offset_x, &offset_y);
  if (open->mask != NULL && items->copy_selection)
    {
      g_clear_object (&open->mask);
      open->mask_copy = host->copy_selection (items->in_image);
      if (open->mask_copy != NULL)
        open->mask = host->get_buffer (open->mask_copy);
    }
  /* The visible image's layer covers the image: no offsets. */
  if (items->target == NULL)
    offset_x = offset_y = 0;
  gpuhist_source_set_coverage (&open->source, open->mask, offset_x, offset_y);
}

/* The plug-in's GEGL tile cache, which libgimp sizes as GIMP's own (half the memory by
 * default): a run reads each tile once, in order, so a large cache only kept every tile of the
 * area read (the 100 MP layer of docs/BENCHMARKS.md: 800 MiB more after each count, in the
 * resident process that outlives it).  After the buffer is made, since GIMP 2.10's glue starts
 * GEGL there. */
#define TILE_CACHE_BYTES ((guint64) 64 << 20)

static void
bound_tile_cache (void)
{
  guint64 size = 0;

  g_object_get (gegl_config (), "tile-cache-size", &size, NULL);
  if (size != TILE_CACHE_BYTES)
    g_object_set (gegl_config (), "tile-cache-size", TILE_CACHE_BYTES, NULL);
}

/* A run's tables (a scope's are megabytes, and a weighted table twice that) go back to the system
 * when freed.  glibc otherwise raises its mmap threshold past the first such block it frees and
 * serves the next from its heaps, where they fragment: the dialog's counts in a row then made the
 * plug-in's RSS creep by a table's size now and then (follow-busy-tests.py).  A fixed threshold
 * also turns that adjustment off. */
#define LARGE_BLOCK_BYTES (256 << 10)

static void
return_large_blocks (void)
{
#ifdef M_MMAP_THRESHOLD
  mallopt (M_MMAP_THRESHOLD, LARGE_BLOCK_BYTES);
#endif
}

/* The pixels as a source, the engine starting up while GIMP gives them.  note NULL: the note
 * about several drawables was made already, or is not wanted. */
static gboolean
open_source (const GpuhistHost *host, const GpuhistRequest *request, const SourceItems *items,
             gboolean start_engine, OpenSource *open, gchar **note, GError **error)
{
  GpuhistDrawableKind kind;
  GeglRectangle area;
  gchar *name;
  gboolean ok;

  if (items->target != NULL && host->is_group (items->target))
    return fail (error, GPUHIST_ERROR_NO_PIXELS, _ (host->group_error));
  if (!drawable_area (host, items, &kind, &area) || area.width <= 0 || area.height <= 0)
    return fail (error, GPUHIST_ERROR_NO_PIXELS,
                 _ ("The selection does not intersect the drawable: there are no pixels to "
                    "count."));

  name = host->get_name (items->target != NULL ? items->target : items->pixels);
  if (note != NULL)
    *note = several_drawables_note (host, request, name);
  if (start_engine)
    gpuhist_keeper_prepare ();
  open->buffer = host->get_buffer (items->pixels);
  bound_tile_cache ();
  return_large_blocks ();
  if (open->buffer == NULL)
    {
      g_free (name);
      return fail (error, GPUHIST_ERROR_GIMP, _ ("GIMP did not give the drawable's pixels."));
    }
  ok = gpuhist_source_init (&open->source, open->buffer, &area, kind, request->settings.linear,
                            name, error);
  g_free (name);
  if (ok)
    open_selection (host, items, open);
  return ok;
}

static void
close_source (const GpuhistHost *host, OpenSource *open)
{
  gpuhist_source_clear (&open->source);
  g_clear_object (&open->buffer);
  g_clear_object (&open->mask);
  if (open->pixels_copy != NULL)
    host->delete_copy (open->pixels_copy);
  if (open->mask_copy != NULL)
    host->delete_copy (open->mask_copy);
  memset (open, 0, sizeof *open);
}

/* The sources of a run: the one the arguments ask for, opened once; in the dialog, each count's
 * copies, opened before the count and closed after it. */
typedef struct
{
  const GpuhistHost *host;
  GpuhistRequest *request;
  OpenSource first;
  gpointer visible; /* the visible image's layer, never inserted; NULL until made */
  gpointer image;   /* the dialog's, for following */
  OpenSource counted;
} FlowSources;

/* What the run's arguments ask for: the drawable, or for source visible a layer of the image as
 * shown (deleted by close_sources). */
static gboolean
open_first (FlowSources *s, GpuhistSourceKind kind, gboolean start_engine, gchar **note,
            GError **error)
{
  SourceItems items = { s->request->drawable, s->request->drawable, s->request->drawable, FALSE };

  if (kind == GPUHIST_SOURCE_VISIBLE)
    {
      s->visible = s->host->new_visible (s->request->drawable);
      if (s->visible == NULL)
        return fail (error, GPUHIST_ERROR_NO_PIXELS,
                     _ ("The image has no visible layer: there is no visible image to count."));
      items.target = NULL;
      items.pixels = s->visible;
    }
  s->first.opened = open_source (s->host, s->request, &items, start_engine, &s->first, note, error);
  return s->first.opened;
}

static void
close_sources (FlowSources *s)
{
  close_source (s->host, &s->first);
  close_source (s->host, &s->counted);
  if (s->visible != NULL)
    s->host->delete_copy (s->visible);
  s->visible = NULL;
}

/* The dialog's hook (GpuhistDialogParams.open_source), on GIMP's main thread: copies GIMP makes
 * of the drawable active now (the dialog follows it) or of the visible image, and of the
 * selection. */
static const GpuhistSource *
dialog_open_source (GpuhistSourceKind kind, gpointer data, GError **error)
{
  FlowSources *s = data;
  const GpuhistHost *host = s->host;
  gpointer active = host->active_drawable (s->image);
  SourceItems items = { active, NULL, active, TRUE };
  OpenSource *open = &s->counted;

  close_source (host, open);
  if (active == NULL)
    return no_source (error, GPUHIST_ERROR_NO_PIXELS,
                      _ ("No layer, layer mask or channel is selected: there is nothing to "
                         "count."));
  if (kind == GPUHIST_SOURCE_VISIBLE)
    {
      items.target = NULL;
      open->pixels_copy = host->new_visible (active);
      if (open->pixels_copy == NULL)
        return no_source (error, GPUHIST_ERROR_NO_PIXELS,
                          _ ("The image has no visible layer: there is no visible image to "
                             "count."));
    }
  else if (!host->is_group (active))
    open->pixels_copy = host->copy_drawable (active);
  items.pixels = open->pixels_copy;
  if (items.pixels == NULL && !host->is_group (active))
    return no_source (error, GPUHIST_ERROR_GIMP, _ ("GIMP did not copy the drawable."));
  open->opened = open_source (host, s->request, &items, FALSE, open, NULL, error);
  if (!open->opened)
    close_source (host, open);
  return open->opened ? &open->source : NULL;
}

static void
dialog_close_source (gpointer data)
{
  FlowSources *s = data;

  close_source (s->host, &s->counted);
}

static GBytes *
dialog_signature (GpuhistSourceKind kind, gpointer data)
{
  FlowSources *s = data;

  return s->host->signature (s->image, kind == GPUHIST_SOURCE_VISIBLE);
}

static gboolean
dialog_image_open (gpointer data)
{
  FlowSources *s = data;

  return s->host->image_open (s->image);
}

/* Interactive: measure first (GIMP's progress bar shows it), then the dialog shows the report,
 * measures again on request and exports. */
static gboolean
count_interactively (FlowSources *sources, const GpuhistSource *source,
                     const GpuhistMonitor *monitor, const char *note, GpuhistReport *report,
                     GError **error)
{
  const GpuhistHost *host = sources->host;
  GpuhistRequest *request = sources->request;
  GpuhistDialogParams hooks = { 0 };

  hooks.save_settings = request->save_settings;
  hooks.save_settings_data = request->save_settings_data;
  sources->image = host->image_of (request->drawable);
  hooks.source_exists = dialog_image_open;
  hooks.source_exists_data = sources;
  hooks.open_source = dialog_open_source;
  hooks.close_source = dialog_close_source;
  hooks.open_source_data = sources;
  hooks.signature = dialog_signature;
  hooks.signature_data = sources;
  if (!gpuhist_dialog_measure_and_run (source, &request->settings, monitor, report, note,
                                       host->init_ui, &hooks, error))
    return FALSE;
  if (request->save_settings != NULL)
    request->save_settings (&request->settings, request->save_settings_data);
  return TRUE;
}

static gboolean
count (FlowSources *sources, const GpuhistSource *source, const char *note, gboolean fetch_only,
       GpuhistReport *report, GError **error)
{
  const GpuhistHost *host = sources->host;
  GpuhistRequest *request = sources->request;
  GpuhistMonitor monitor = { monitor_progress, NULL, (gpointer) host };
  gchar *message = g_strdup_printf (_ ("Counting the levels of \"%s\""), source->drawable_name);

  host->progress_init (message);
  g_free (message);
  if (fetch_only)
    return gpuhist_fetch_only (source, &request->settings, report, error);
  if (request->mode == GPUHIST_MODE_INTERACTIVE)
    return count_interactively (sources, source, &monitor, note, report, error);
  return gpuhist_run_batch (source, &request->settings, &monitor, note, report, error);
}

/* The arguments the glue passes on unchecked: 2.10's integers for weighting and source. */
static gboolean
check_settings (const GpuhistSettings *settings, GError **error)
{
  if (settings->weighting != GPUHIST_WEIGHTING_GIMP
      && settings->weighting != GPUHIST_WEIGHTING_PIXELS)
    {
      g_set_error (error, GPUHIST_ERROR, GPUHIST_ERROR_INVALID_ARGUMENT,
                   _ ("weighting must be 0 (gimp) or 1 (pixels), not %d."), settings->weighting);
      return FALSE;
    }
  if (settings->source != GPUHIST_SOURCE_DRAWABLE && settings->source != GPUHIST_SOURCE_VISIBLE)
    {
      g_set_error (error, GPUHIST_ERROR, GPUHIST_ERROR_INVALID_ARGUMENT,
                   _ ("source must be 0 (drawable) or 1 (visible), not %d."), settings->source);
      return FALSE;
    }
  if (settings->scopes && settings->output_file != NULL
      && gpuhist_report_file_kind (settings->output_file) != GPUHIST_FILE_JSON
      && gpuhist_report_file_kind (settings->output_file) != GPUHIST_FILE_PNG)
    {
      g_set_error (error, GPUHIST_ERROR, GPUHIST_ERROR_INVALID_ARGUMENT,
                   _ ("Cannot tell the format of \"%s\": the output file must end in .json or "
                      ".png."),
                   settings->output_file);
      return FALSE;
    }
  return TRUE;
}

/* The waveform's columns against the width the source counts, before anything is read. */
static gboolean
check_columns (const GpuhistSettings *settings, const GpuhistSource *source, GError **error)
{
  int columns = settings->waveform_columns;

  if (!settings->scopes || columns == GPUHIST_DEFAULT_COLUMNS
      || (columns >= 1 && columns <= source->area.width))
    return TRUE;
  g_set_error (error, GPUHIST_ERROR, GPUHIST_ERROR_INVALID_ARGUMENT,
               _ ("columns must be 0 (%d, or the width counted when it is narrower) or 1 to "
                  "the width counted (%d pixels), not %d."),
               GPUHIST_WIDE_COLUMNS, source->area.width, columns);
  return FALSE;
}

GpuhistFlowStatus
gpuhist_flow_run (const GpuhistHost *host, GpuhistRequest *request, GpuhistReport *report,
                  gboolean *fetch_only, GError **error)
{
  FlowSources sources = { 0 };
  GpuhistSourceKind kind = request->settings.source;
  gchar *note = NULL;
  GError *local = NULL;
  gboolean ok;

  sources.host = host;
  sources.request = request;
  /* GPUHIST_FETCH_ONLY (benchmarks, non-interactive): only read the pixels and the selection's
   * coverage, no engine. */
  *fetch_only = request->mode == GPUHIST_MODE_NONINTERACTIVE
                && gpuhist_fetch_only_requested (&request->settings);
  ok = check_settings (&request->settings, &local)
       && open_first (&sources, kind, !*fetch_only, &note, &local)
       && check_columns (&request->settings, &sources.first.source, &local)
       && count (&sources, &sources.first.source, note, *fetch_only, report, &local);
  gpuhist_keeper_discard ();
  close_sources (&sources);
  g_free (note);
  if (ok)
    return GPUHIST_FLOW_OK;

  gpuhist_report_clear (report);
  if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_error_free (local);
      return GPUHIST_FLOW_CANCELLED;
    }
  if (local == NULL)
    fail (&local, GPUHIST_ERROR_GIMP, _ ("The histogram could not be counted."));
  g_propagate_error (error, local);
  return GPUHIST_FLOW_FAILED;
}

gdouble *
gpuhist_flow_timings (const GpuhistReport *report, gboolean fetch_only, gint *n_timings)
{
  return fetch_only ? gpuhist_fetch_only_timings (report, n_timings)
                    : gpuhist_report_timings (report, n_timings);
}
