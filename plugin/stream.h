/* gpu-histogram: reading a GeglBuffer in tile-aligned strips of the engine's samples.
 *
 * Shared by measure.c (strips straight into the engine) and fetch-only.c (the same strips into
 * a buffer of its own).  When the fetch format is already the samples' own layout (see
 * source.c), gegl_buffer_get writes into the strip itself; else it writes into a reusable
 * scratch of a few MiB, and convert.c narrows the samples from there into the strip.
 */
#ifndef GPUHIST_STREAM_H
#define GPUHIST_STREAM_H

#include "core.h"

G_BEGIN_DECLS

/* Strips of about this many bytes of 8-bit samples: small enough that the progress bar moves and
 * that reading the next strip overlaps counting the last one, large enough that a strip costs
 * the engine little.  The engine's staging is two of them (engine-keeper.c). */
#define GPUHIST_STRIP_TARGET_BYTES ((size_t) 8 << 20)

typedef struct
{
  const GpuhistSource *source;
  const GpuhistMonitor *monitor;
  int tile_height;
  int shift_y;
  int strip_rows;  /* preferred rows per strip */
  gboolean direct; /* gegl_buffer_get straight into the strip buffer */
  const Babl *fetch_format;
  int bytes_per_sample;        /* of the engine's samples: 1, or 2 for more than 256 bins */
  gboolean coverage_threshold; /* weighting pixels: the plane is 0 or 255, one byte a pixel */
  const char *type;
  int fetch_bpp;
  guint8 *scratch;
  int scratch_rows;
  gint64 fetch_us;
  gint64 begin_us;         /* the engine setting the run up */
  gint64 submit_us;        /* handing strips to the engine, waiting for a free buffer included */
  gint64 finish_us;        /* the last count, from the last strip handed over */
  gint64 progress_us;      /* telling GIMP how far the run is */
  gint64 last_progress_us; /* when it was last told */
} GpuhistStream;
/* Rows of the next band starting at row y (buffer coordinates): at most `limit`, and ending on a
 * tile boundary (tiles of tile_height rows, the buffer shifted by shift_y) whenever that is
 * possible, so that every tile is read once, whole.  Exposed for tests/plugin-core. */
int gpuhist_band_rows (int y, int limit, int tile_height, int shift_y);

/* Sets up reading source in strips of `bytes_per_sample`-byte samples fetched as fetch_format.
 * Free with gpuhist_stream_clear. */
gboolean gpuhist_stream_init (GpuhistStream *stream, const GpuhistSource *source,
                              const GpuhistMonitor *monitor, const Babl *fetch_format,
                              int bytes_per_sample, GError **error);
void gpuhist_stream_clear (GpuhistStream *stream);

/* Reads `rows` rows from buffer row y into strip (packed rows of 8-bit or 16-bit samples). */
gboolean gpuhist_stream_fetch_rows (GpuhistStream *stream, int y, int rows, uint8_t *strip,
                                    GError **error);

/* Reads the same rows of the selection's coverage into plane (packed rows of
 * source->coverage_bytes a pixel, width pixels each; with coverage_threshold one byte, 255 where
 * the coverage is at least one half, else 0); nothing without a coverage plane. */
void gpuhist_stream_fetch_coverage (GpuhistStream *stream, int y, int rows, uint8_t *plane);

/* Tells the monitor how far the run is, at most once per interval but always at the end. */
void gpuhist_stream_progress (GpuhistStream *stream, double fraction);

/* The monitor's callbacks, either of which (and the monitor) may be NULL. */
gboolean gpuhist_monitor_cancelled (const GpuhistMonitor *monitor);
void gpuhist_monitor_progress (const GpuhistMonitor *monitor, double fraction);

G_END_DECLS

#endif /* GPUHIST_STREAM_H */
