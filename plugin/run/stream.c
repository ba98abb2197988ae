/* gpu-histogram: reading a GeglBuffer in strips.  See stream.h. */
#include <string.h>

#include <glib/gi18n-lib.h>

#include "convert.h"
#include "stream.h"

/* The scratch for high-bit-depth reads. */
#define SCRATCH_TARGET_BYTES ((size_t) 8 << 20)

static int
buffer_int_property (GeglBuffer *buffer, const char *name, int fallback)
{
  int value = fallback;

  if (g_object_class_find_property (G_OBJECT_GET_CLASS (buffer), name))
    g_object_get (buffer, name, &value, NULL);
  return value;
}

int
gpuhist_band_rows (int y, int limit, int tile_height, int shift_y)
{
  int offset;
  int first;

  if (tile_height <= 1)
    return limit;
  offset = (y + shift_y) % tile_height;
  if (offset < 0)
    offset += tile_height;
  first = tile_height - offset; /* rows to the next tile boundary */
  if (first >= limit)
    return limit;
  return first + (limit - first) / tile_height * tile_height;
}

gboolean
gpuhist_monitor_cancelled (const GpuhistMonitor *monitor)
{
  return monitor && monitor->cancelled && monitor->cancelled (monitor->user_data);
}

void
gpuhist_monitor_progress (const GpuhistMonitor *monitor, double fraction)
{
  if (monitor && monitor->progress)
    monitor->progress (fraction, monitor->user_data);
}

/* Progress between the first and the last: each is a round trip to GIMP, so at most one per
 * PROGRESS_INTERVAL_US, which still moves GIMP's bar smoothly. */
#define PROGRESS_INTERVAL_US 50000

void
gpuhist_stream_progress (GpuhistStream *stream, double fraction)
{
  gint64 now = g_get_monotonic_time ();

  if (fraction < 1.0 && now - stream->last_progress_us < PROGRESS_INTERVAL_US)
    return;
  gpuhist_monitor_progress (stream->monitor, fraction);
  stream->last_progress_us = g_get_monotonic_time ();
  stream->progress_us += stream->last_progress_us - now;
}

static gboolean
stream_init (GpuhistStream *stream, const GpuhistSource *source, const GpuhistMonitor *monitor,
             const Babl *fetch_format, int bytes_per_sample, GError **error)
{
  size_t row_bytes = (size_t) source->area.width * source->channels * bytes_per_sample;

  stream->source = source;
  stream->monitor = monitor;
  stream->tile_height = MAX (1, buffer_int_property (source->buffer, "tile-height", 64));
  stream->shift_y = buffer_int_property (source->buffer, "shift-y", 0);
  stream->fetch_format = fetch_format;
  stream->bytes_per_sample = bytes_per_sample;
  stream->type = babl_get_name (babl_format_get_type (fetch_format, 0));
  stream->fetch_bpp = babl_format_get_bytes_per_pixel (fetch_format);
  stream->direct = babl_format_get_n_components (fetch_format) == source->channels
                   && strcmp (stream->type, bytes_per_sample == 2 ? "u16" : "u8") == 0
                   && stream->fetch_bpp == source->channels * bytes_per_sample;
  stream->strip_rows = (int) MAX ((size_t) 1, GPUHIST_STRIP_TARGET_BYTES / row_bytes);
  if (stream->strip_rows > stream->tile_height)
    stream->strip_rows -= stream->strip_rows % stream->tile_height;

  if (!stream->direct)
    {
      size_t fetch_row = (size_t) source->area.width * stream->fetch_bpp;

      if (babl_format_get_n_components (fetch_format) != source->channels || stream->fetch_bpp <= 0)
        {
          g_set_error (error, GPUHIST_ERROR, GPUHIST_ERROR_UNSUPPORTED,
                       _ ("Internal error: the fetch format does not have %d channels."),
                       source->channels);
          return FALSE;
        }
      stream->scratch_rows = (int) MIN ((size_t) source->area.height,
                                        MAX ((size_t) 1, SCRATCH_TARGET_BYTES / fetch_row));
      if (stream->scratch_rows > stream->tile_height)
        stream->scratch_rows -= stream->scratch_rows % stream->tile_height;
      stream->scratch = g_try_malloc ((size_t) stream->scratch_rows * fetch_row);
      if (stream->scratch == NULL)
        {
          g_set_error (error, GPUHIST_ERROR, GPUHIST_ERROR_NO_MEMORY,
                       _ ("Not enough memory to read %d rows of %d pixels."), stream->scratch_rows,
                       source->area.width);
          return FALSE;
        }
    }
  return TRUE;
}

/* Narrows `rows` rows read in the fetch format (packed) into strip, in the engine's samples. */
static gboolean
convert_rows (GpuhistStream *stream, const uint8_t *raw, int rows, uint8_t *strip, GError **error)
{
  size_t samples = (size_t) rows * stream->source->area.width * stream->source->channels;
  gboolean converted;

  if (stream->direct)
    {
      memcpy (strip, raw, samples * stream->bytes_per_sample);
      return TRUE;
    }
  if (stream->bytes_per_sample == 2)
    converted = gpuhist_convert_samples16 (stream->type, raw, samples, (uint16_t *) strip);
  else
    converted = gpuhist_convert_samples (stream->type, raw, samples, strip);
  if (!converted)
    g_set_error (error, GPUHIST_ERROR, GPUHIST_ERROR_UNSUPPORTED,
                 _ ("Pixels of type \"%s\" cannot be counted."), stream->type);
  return converted;
}

/* Reads `rows` rows from buffer row y into strip (packed rows of 8-bit or 16-bit samples). */
static gboolean
fetch_rows (GpuhistStream *stream, int y, int rows, uint8_t *strip, GError **error)
{
  const GpuhistSource *source = stream->source;
  int width = source->area.width;
  size_t row_bytes = (size_t) width * source->channels * stream->bytes_per_sample;
  gint64 start = g_get_monotonic_time ();

  if (stream->direct)
    {
      GeglRectangle rect = { source->area.x, y, width, rows };
      gegl_buffer_get (source->buffer, &rect, 1.0, stream->fetch_format, strip, (gint) row_bytes,
                       GEGL_ABYSS_NONE);
    }
  else
    {
      int done = 0;
      while (done < rows)
        {
          int n = gpuhist_band_rows (y + done, MIN (stream->scratch_rows, rows - done),
                                     stream->tile_height, stream->shift_y);
          GeglRectangle rect = { source->area.x, y + done, width, n };

          gegl_buffer_get (source->buffer, &rect, 1.0, stream->fetch_format, stream->scratch,
                           (gint) gpuhist_stream_raw_row_bytes (stream), GEGL_ABYSS_NONE);
          if (!convert_rows (stream, stream->scratch, n, strip + (size_t) done * row_bytes, error))
            return FALSE;
          done += n;
        }
    }
  stream->fetch_us += g_get_monotonic_time () - start;
  stream->fetched_bytes += (guint64) rows * row_bytes;
  return TRUE;
}

/* weighting pixels: 255 where the coverage read (8 or 16 bits) is at least one half (127.5 of
 * 255, so 128; 32767.5 of 65535, so 32768), else 0. */
static void
threshold_plane (const GpuhistSource *source, const guint8 *own, size_t n, uint8_t *plane)
{
  if (source->coverage_bytes == 2)
    for (size_t i = 0; i < n; i++)
      plane[i] = ((const uint16_t *) own)[i] >= 32768 ? 255 : 0;
  else
    for (size_t i = 0; i < n; i++)
      plane[i] = own[i] >= 128 ? 255 : 0;
}

/* weighting pixels: the coverage as the weighted path reads it, then threshold_plane. */
static void
fetch_coverage_threshold (const GpuhistSource *source, const GeglRectangle *rect, uint8_t *plane)
{
  size_t n = (size_t) rect->width * rect->height;
  guint8 *own = g_malloc (n * source->coverage_bytes);

  gegl_buffer_get (source->coverage_buffer, rect, 1.0, source->coverage_format, own,
                   rect->width * source->coverage_bytes, GEGL_ABYSS_NONE);
  threshold_plane (source, own, n, plane);
  g_free (own);
}

/* The same rows of the selection's coverage into plane; nothing without a plane. */
static void
fetch_coverage (GpuhistStream *stream, int y, int rows, uint8_t *plane)
{
  const GpuhistSource *source = stream->source;
  GeglRectangle rect
      = { source->area.x + source->coverage_dx, y + source->coverage_dy, source->area.width, rows };
  gint64 start = g_get_monotonic_time ();

  if (stream->plane_bytes == 0 || plane == NULL)
    return;
  if (stream->coverage_threshold)
    fetch_coverage_threshold (source, &rect, plane);
  else /* ABYSS_NONE: where the layer lies outside the image, the selection is 0 there. */
    gegl_buffer_get (source->coverage_buffer, &rect, 1.0, source->coverage_format, plane,
                     source->area.width * source->coverage_bytes, GEGL_ABYSS_NONE);
  stream->fetch_us += g_get_monotonic_time () - start;
  stream->fetched_bytes += (guint64) rows * source->area.width * stream->plane_bytes;
}

size_t
gpuhist_stream_raw_row_bytes (const GpuhistStream *stream)
{
  return (size_t) stream->source->area.width * stream->fetch_bpp;
}

size_t
gpuhist_stream_raw_plane_row_bytes (const GpuhistStream *stream)
{
  return stream->plane_bytes > 0
             ? (size_t) stream->source->area.width * stream->source->coverage_bytes
             : 0;
}

gboolean
gpuhist_stream_convert_band (GpuhistStream *stream, const uint8_t *raw, const uint8_t *raw_plane,
                             int rows, uint8_t *strip, uint8_t *plane, GError **error)
{
  const GpuhistSource *source = stream->source;
  size_t pixels = (size_t) rows * source->area.width;

  if (!convert_rows (stream, raw, rows, strip, error))
    return FALSE;
  if (stream->plane_bytes > 0 && plane != NULL && raw_plane != NULL)
    {
      if (stream->coverage_threshold)
        threshold_plane (source, raw_plane, pixels, plane);
      else
        memcpy (plane, raw_plane, pixels * source->coverage_bytes);
    }
  stream->fetched_bytes
      += (guint64) pixels * (source->channels * stream->bytes_per_sample + stream->plane_bytes);
  return TRUE;
}

gboolean
gpuhist_bins_valid (int bins)
{
  return bins == 256 || bins == 1024 || bins == 4096 || bins == 16384 || bins == 65536;
}

gboolean
gpuhist_stream_open (GpuhistStream *stream, const GpuhistSource *source,
                     const GpuhistMonitor *monitor, const GpuhistSettings *settings, GError **error)
{
  int bins = settings && settings->bins > 0 ? settings->bins : GH_BINS;
  gboolean wide;

  memset (stream, 0, sizeof *stream);
  if (source->buffer == NULL || source->fetch_format == NULL || source->channels < 1
      || source->channels > GH_MAX_CHANNELS || source->area.width <= 0 || source->area.height <= 0)
    {
      g_set_error (error, GPUHIST_ERROR, GPUHIST_ERROR_NO_PIXELS,
                   _ ("There are no pixels to count."));
      return FALSE;
    }
  if (!gpuhist_bins_valid (bins))
    {
      g_set_error (error, GPUHIST_ERROR, GPUHIST_ERROR_INVALID_ARGUMENT,
                   _ ("bins must be 256, 1024, 4096, 16384 or 65536, not %d."), bins);
      return FALSE;
    }
  /* 8-bit and indexed layers (no fetch_format16) have 256 levels: the 8-bit path whatever. */
  wide = bins > GH_BINS && source->fetch_format16 != NULL;
  if (!stream_init (stream, source, monitor, wide ? source->fetch_format16 : source->fetch_format,
                    wide ? 2 : 1, error))
    return FALSE;
  stream->coverage_threshold = settings && settings->weighting == GPUHIST_WEIGHTING_PIXELS;
  /* GIMP 3.0 linearizes perceptual samples before it sums; linear-light ones it sums as read. */
  stream->luminance = settings == NULL ? GH_LUMINANCE_GIMP2
                      : settings->luminance == GH_LUMINANCE_GIMP3 && settings->linear
                          ? GH_LUMINANCE_GIMP3_LINEAR
                          : settings->luminance;
  if (source->coverage_buffer != NULL)
    stream->plane_bytes = stream->coverage_threshold ? 1 : source->coverage_bytes;
  return TRUE;
}

int
gpuhist_stream_read_band (GpuhistStream *stream, int y, int limit, uint8_t *strip, uint8_t *plane,
                          GError **error)
{
  int rows;

  if (stream->reader != NULL)
    return stream->reader (stream, y, limit, strip, plane, stream->reader_data, error);
  rows = gpuhist_band_rows (y, MIN (limit, stream->strip_rows), stream->tile_height,
                            stream->shift_y);
  if (!fetch_rows (stream, y, rows, strip, error))
    return 0;
  fetch_coverage (stream, y, rows, plane);
  return rows;
}

void
gpuhist_stream_clear (GpuhistStream *stream)
{
  g_clear_pointer (&stream->scratch, g_free);
}
