/* gpu-histogram: reading a GeglBuffer in tile-aligned strips of the engine's samples, with the
 * selection's coverage beside them.
 *
 * Shared by measure.c (strips straight into the engine) and fetch-only.c (the same strips and
 * coverage planes into buffers of its own), so that the benchmark's "fetch alone" reads what a
 * run reads: gpuhist_stream_open picks the samples and the plane from the settings, and
 * gpuhist_stream_read_band reads one band of both.  When the fetch format is already the
 * samples' own layout (see source.c), gegl_buffer_get writes into the strip itself; else it
 * writes into a reusable scratch of a few MiB, and convert.c narrows the samples from there into
 * the strip.
 */
#ifndef GPUHIST_STREAM_H
#define GPUHIST_STREAM_H

#include "core.h"

G_BEGIN_DECLS

/* Strips of about this many bytes of 8-bit samples: small enough that the progress bar moves and
 * that reading the next strip overlaps counting the last one, large enough that a strip costs
 * the engine little.  The engine's staging is two of them (engine-keeper.c). */
#define GPUHIST_STRIP_TARGET_BYTES ((size_t) 8 << 20)

typedef struct GpuhistStream GpuhistStream;

/* Where a run's bands come from when not from the buffer on the counting thread: the dialog's
 * strip fetcher (strip-fetch.h).  Same contract as gpuhist_stream_read_band. */
typedef int (*GpuhistBandReader) (GpuhistStream *stream, int y, int limit, uint8_t *strip,
                                  uint8_t *plane, gpointer data, GError **error);

struct GpuhistStream
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
  int plane_bytes;             /* of the coverage plane a pixel: 0 (no selection), 1 or 2 */
  gh_luminance luminance;      /* of derived runs: the settings', GIMP3 as GIMP3_LINEAR when
                                  the samples are read in linear light */
  const char *type;
  int fetch_bpp;
  guint8 *scratch;
  int scratch_rows;
  gint64 fetch_us;
  guint64 fetched_bytes;    /* samples and coverage written into strips and planes */
  gint64 begin_us;          /* the engine setting the run up */
  gint64 submit_us;         /* handing strips to the engine, waiting for a free buffer included */
  gint64 finish_us;         /* the last count, from the last strip handed over */
  gint64 progress_us;       /* telling GIMP how far the run is */
  gint64 last_progress_us;  /* when it was last told */
  GpuhistBandReader reader; /* NULL: gegl_buffer_get here */
  gpointer reader_data;
};
/* Rows of the next band starting at row y (buffer coordinates): at most `limit`, and ending on a
 * tile boundary (tiles of tile_height rows, the buffer shifted by shift_y) whenever that is
 * possible, so that every tile is read once, whole.  Exposed for tests/plugin-core. */
int gpuhist_band_rows (int y, int limit, int tile_height, int shift_y);

/* Sets up reading source as a run with `settings` counts it (NULL: 256 bins, weighting gimp):
 * 16-bit samples (fetch_format16) for more than 256 bins of a layer of more than 8 bits, else
 * 8-bit ones; the coverage plane as weighting asks (plane_bytes).  Fails (GPUHIST_ERROR) for a
 * source without pixels or a bin count gpuhist_bins_valid refuses.  Free with
 * gpuhist_stream_clear. */
gboolean gpuhist_stream_open (GpuhistStream *stream, const GpuhistSource *source,
                              const GpuhistMonitor *monitor, const GpuhistSettings *settings,
                              GError **error);

/* Reads the band from buffer row y: gpuhist_band_rows of at most `limit` rows and strip_rows,
 * the samples into strip (packed rows) and, when the stream has a plane and `plane` is not
 * NULL, the same rows' coverage into plane (packed rows of plane_bytes a pixel; with
 * coverage_threshold 255 where the coverage is at least one half, else 0).  Returns the rows
 * read, or 0 with *error set. */
int gpuhist_stream_read_band (GpuhistStream *stream, int y, int limit, uint8_t *strip,
                              uint8_t *plane, GError **error);

void gpuhist_stream_clear (GpuhistStream *stream);

/* The band's two halves apart, for a reader that fetches GIMP's pixels on another thread than
 * the one that counts (strip-fetch.h): the bytes of a row as gegl_buffer_get gives it in the
 * fetch format, and of the coverage in its own format (0 without a plane). */
size_t gpuhist_stream_raw_row_bytes (const GpuhistStream *stream);
size_t gpuhist_stream_raw_plane_row_bytes (const GpuhistStream *stream);

/* Narrows `rows` rows read raw (packed, those row sizes) into strip, and the coverage into
 * plane (thresholded for weighting pixels), as gpuhist_stream_read_band would have. */
gboolean gpuhist_stream_convert_band (GpuhistStream *stream, const uint8_t *raw,
                                      const uint8_t *raw_plane, int rows, uint8_t *strip,
                                      uint8_t *plane, GError **error);

/* Tells the monitor how far the run is, at most once per interval but always at the end. */
void gpuhist_stream_progress (GpuhistStream *stream, double fraction);

/* The monitor's callbacks, either of which (and the monitor) may be NULL. */
gboolean gpuhist_monitor_cancelled (const GpuhistMonitor *monitor);
void gpuhist_monitor_progress (const GpuhistMonitor *monitor, double fraction);

G_END_DECLS

#endif /* GPUHIST_STREAM_H */
