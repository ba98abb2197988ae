/* gpu-histogram: the GIMP-version-independent core of the plug-in.
 *
 * Reads a GeglBuffer in tile-aligned strips straight into the engine's strip buffer (pinned
 * memory on the GPU path), so that the layer is never copied whole, and the engine counts one
 * strip while the next is read.  When the fetch format is already 8-bit with the right channels
 * (see source.c), gegl_buffer_get writes into the strip buffer itself; for high bit depths it
 * writes into a reusable scratch of a few MiB, and the samples are narrowed to 8 bits from there
 * into the strip buffer (gpuhist_convert_samples documents how).
 *
 * With more than 256 bins (settings->bins) and a layer of more than 8 bits, the engine counts
 * 16-bit samples: a u16 fetch (the layer's stored values when its curve is the one asked for)
 * goes straight into the strip buffer; u32, half, float and double layers are read as float and
 * narrowed to 16 bits (gpuhist_convert_samples16).  8-bit and indexed layers have 256 levels and
 * count into 256 bins whatever was asked; the bins=256 path is the 8-bit one for every layer.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <glib/gi18n-lib.h>
#include <gio/gio.h>
#include <glib/gstdio.h>

#include "core.h"

/* The scratch for high-bit-depth reads. */
#define SCRATCH_TARGET_BYTES ((size_t) 8 << 20)

G_DEFINE_QUARK (gpuhist - error - quark, gpuhist_error)

/* --- narrowing to 8 bits --------------------------------------------------------------------- */

static inline uint8_t
bin_of_double (double v)
{
  if (!(v > 0.0)) /* negative, -inf and NaN */
    return 0;
  if (v >= 1.0) /* +inf too */
    return 255;
  return (uint8_t) (v * 255.0 + 0.5); /* < 255.5: at most 255 */
}

static double
half_to_double (uint16_t h)
{
  int sign = (h >> 15) & 1;
  int exponent = (h >> 10) & 0x1f;
  int mantissa = h & 0x3ff;
  double v;

  if (exponent == 0)
    v = ldexp ((double) mantissa, -24); /* subnormal */
  else if (exponent == 31)
    v = mantissa ? NAN : INFINITY;
  else
    v = ldexp ((double) (mantissa | 0x400), exponent - 25);
  return sign ? -v : v;
}

/* Every half maps to a bin: a table of 65536 bytes, made once. */
static const uint8_t *
half_table (void)
{
  static uint8_t table[65536];
  static gsize made = 0;

  if (g_once_init_enter (&made))
    {
      for (guint i = 0; i < 65536; i++)
        table[i] = bin_of_double (half_to_double ((uint16_t) i));
      g_once_init_leave (&made, 1);
    }
  return table;
}

gboolean
gpuhist_convert_samples (const char *type, const void *src, size_t n, uint8_t *dst)
{
  size_t i;

  if (strcmp (type, "u8") == 0)
    {
      memcpy (dst, src, n);
    }
  else if (strcmp (type, "u16") == 0)
    {
      const uint16_t *s = src;
      /* floor (v * 255 / 65535 + 0.5) = floor ((v + 128.5) / 257): never a tie */
      for (i = 0; i < n; i++)
        dst[i] = (uint8_t) ((2u * s[i] + 257u) / 514u);
    }
  else if (strcmp (type, "u32") == 0)
    {
      const uint32_t *s = src;
      /* floor (v * 255 / (2^32 - 1) + 0.5) = floor ((2 v + 16843009) / 33686018) */
      for (i = 0; i < n; i++)
        dst[i] = (uint8_t) ((2u * (uint64_t) s[i] + 16843009u) / 33686018u);
    }
  else if (strcmp (type, "half") == 0)
    {
      const uint16_t *s = src;
      const uint8_t *table = half_table ();
      for (i = 0; i < n; i++)
        dst[i] = table[s[i]];
    }
  else if (strcmp (type, "float") == 0)
    {
      const float *s = src;
      for (i = 0; i < n; i++)
        dst[i] = bin_of_double (s[i]);
    }
  else if (strcmp (type, "double") == 0)
    {
      const double *s = src;
      for (i = 0; i < n; i++)
        dst[i] = bin_of_double (s[i]);
    }
  else
    {
      return FALSE;
    }
  return TRUE;
}

static inline uint16_t
sample16_of_double (double v)
{
  if (!(v > 0.0)) /* negative, -inf and NaN */
    return 0;
  if (v >= 1.0) /* +inf too */
    return 65535;
  return (uint16_t) (v * 65535.0 + 0.5); /* < 65535.5: at most 65535 */
}

gboolean
gpuhist_convert_samples16 (const char *type, const void *src, size_t n, uint16_t *dst)
{
  size_t i;

  if (strcmp (type, "u16") == 0)
    {
      memcpy (dst, src, n * sizeof *dst);
    }
  else if (strcmp (type, "u32") == 0)
    {
      const uint32_t *s = src;
      /* floor (v * 65535 / (2^32 - 1) + 0.5) = floor ((v + 32768.5) / 65537) */
      for (i = 0; i < n; i++)
        dst[i] = (uint16_t) ((2u * (uint64_t) s[i] + 65537u) / 131074u);
    }
  else if (strcmp (type, "half") == 0)
    {
      const uint16_t *s = src;
      for (i = 0; i < n; i++)
        dst[i] = sample16_of_double (half_to_double (s[i]));
    }
  else if (strcmp (type, "float") == 0)
    {
      const float *s = src;
      for (i = 0; i < n; i++)
        dst[i] = sample16_of_double (s[i]);
    }
  else if (strcmp (type, "double") == 0)
    {
      const double *s = src;
      for (i = 0; i < n; i++)
        dst[i] = sample16_of_double (s[i]);
    }
  else
    {
      return FALSE;
    }
  return TRUE;
}

gboolean
gpuhist_bins_valid (int bins)
{
  return bins == 256 || bins == 1024 || bins == 4096 || bins == 16384 || bins == 65536;
}

/* --- errors ------------------------------------------------------------------------------------
 */

void
gpuhist_set_engine_error (GError **error, const gh_error *gherr)
{
  g_set_error (error, GPUHIST_ERROR, gherr->status, "%s",
               gherr->message[0] ? gherr->message : gh_status_name (gherr->status));
}

/* --- streaming ----------------------------------------------------------------------------- */

static int
buffer_int_property (GeglBuffer *buffer, const char *name, int fallback)
{
  int value = fallback;

  if (g_object_class_find_property (G_OBJECT_GET_CLASS (buffer), name))
    g_object_get (buffer, name, &value, NULL);
  return value;
}

/* Rows of the next band starting at row y (buffer coordinates): at most `limit`, and ending on a
 * tile boundary whenever that is possible, so that every tile is read once, whole. */
static int
band_rows (int y, int limit, int tile_height, int shift_y)
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

typedef struct
{
  const GpuhistSource *source;
  const GpuhistMonitor *monitor;
  int tile_height;
  int shift_y;
  int strip_rows;  /* preferred rows per strip */
  gboolean direct; /* gegl_buffer_get straight into the strip buffer */
  const Babl *fetch_format;
  int bytes_per_sample; /* of the engine's samples: 1, or 2 for more than 256 bins */
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
} Stream;

static gboolean
cancelled (const GpuhistMonitor *monitor)
{
  return monitor && monitor->cancelled && monitor->cancelled (monitor->user_data);
}

static void
progress (const GpuhistMonitor *monitor, double fraction)
{
  if (monitor && monitor->progress)
    monitor->progress (fraction, monitor->user_data);
}

/* Progress between the first and the last: each is a round trip to GIMP, so at most one per
 * PROGRESS_INTERVAL_US, which still moves GIMP's bar smoothly. */
#define PROGRESS_INTERVAL_US 50000

static void
stream_progress (Stream *stream, double fraction)
{
  gint64 now = g_get_monotonic_time ();

  if (fraction < 1.0 && now - stream->last_progress_us < PROGRESS_INTERVAL_US)
    return;
  progress (stream->monitor, fraction);
  stream->last_progress_us = g_get_monotonic_time ();
  stream->progress_us += stream->last_progress_us - now;
}

/* Sets up reading source in strips of `bytes_per_sample`-byte samples fetched as fetch_format:
 * straight into the strip when that is the samples' own layout, else through a scratch buffer
 * and a conversion.  Free with g_free (stream->scratch). */
static gboolean
stream_init (Stream *stream, const GpuhistSource *source, const GpuhistMonitor *monitor,
             const Babl *fetch_format, int bytes_per_sample, GError **error)
{
  size_t row_bytes = (size_t) source->area.width * source->channels * bytes_per_sample;

  memset (stream, 0, sizeof *stream);
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
          g_set_error (error, GPUHIST_ERROR, GH_ERROR_INVALID_ARGUMENT,
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
          g_set_error (error, GPUHIST_ERROR, GH_ERROR_OUT_OF_MEMORY,
                       _ ("Not enough memory to read %d rows of %d pixels."), stream->scratch_rows,
                       source->area.width);
          return FALSE;
        }
    }
  return TRUE;
}

/* Reads `rows` rows from buffer row y into strip (packed rows of 8-bit or 16-bit samples). */
static gboolean
fetch_rows (Stream *stream, int y, int rows, uint8_t *strip, GError **error)
{
  const GpuhistSource *source = stream->source;
  int width = source->area.width;
  size_t row_samples = (size_t) width * source->channels;
  size_t row_bytes = row_samples * stream->bytes_per_sample;
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
          int n = band_rows (y + done, MIN (stream->scratch_rows, rows - done), stream->tile_height,
                             stream->shift_y);
          GeglRectangle rect = { source->area.x, y + done, width, n };
          size_t samples = (size_t) n * row_samples;
          uint8_t *dst = strip + (size_t) done * row_bytes;
          gboolean converted;

          gegl_buffer_get (source->buffer, &rect, 1.0, stream->fetch_format, stream->scratch,
                           (gint) ((size_t) width * stream->fetch_bpp), GEGL_ABYSS_NONE);
          if (stream->bytes_per_sample == 2)
            converted = gpuhist_convert_samples16 (stream->type, stream->scratch, samples,
                                                   (uint16_t *) dst);
          else
            converted = gpuhist_convert_samples (stream->type, stream->scratch, samples, dst);
          if (!converted)
            {
              g_set_error (error, GPUHIST_ERROR, GH_ERROR_INVALID_ARGUMENT,
                           _ ("Pixels of type \"%s\" cannot be counted."), stream->type);
              return FALSE;
            }
          done += n;
        }
    }
  stream->fetch_us += g_get_monotonic_time () - start;
  return TRUE;
}

/* One pass over the layer.  Returns the engine's status; *error is set for anything else
 * (cancelled, unknown type), with GH_ERROR_CANCELLED or GH_ERROR_INVALID_ARGUMENT returned. */
static gh_status
measure_once (gh_engine *engine, Stream *stream, gh_result *result, gh_error *gherr, GError **error)
{
  const GpuhistSource *source = stream->source;
  const GeglRectangle *area = &source->area;
  gh_run *run;
  gh_status status;
  int y = area->y;
  int end = area->y + area->height;
  gint64 begin = g_get_monotonic_time ();

  stream->fetch_us = stream->submit_us = stream->progress_us = stream->last_progress_us = 0;
  if (stream->bytes_per_sample == 2)
    run = gh_run_begin_samples (engine, area->width, area->height, source->channels, 2, gherr);
  else
    run = gh_run_begin (engine, area->width, area->height, source->channels, gherr);
  stream->begin_us = g_get_monotonic_time () - begin;
  if (run == NULL)
    return gherr->status != GH_OK ? gherr->status : GH_ERROR_OUT_OF_MEMORY;

  stream_progress (stream, 0.0);
  while (y < end)
    {
      int max_rows = 0;
      uint8_t *strip;
      int rows;

      if (cancelled (stream->monitor))
        {
          gh_run_abort (run);
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, _ ("Cancelled."));
          return GH_ERROR_CANCELLED;
        }

      begin = g_get_monotonic_time ();
      strip = gh_run_strip_buffer (run, &max_rows);
      stream->submit_us += g_get_monotonic_time () - begin;
      if (strip == NULL || max_rows <= 0)
        {
          gh_run_abort (run);
          gherr->status = GH_ERROR_OUT_OF_MEMORY;
          g_strlcpy (gherr->message, _ ("The engine gave no memory for the pixels."),
                     sizeof gherr->message);
          return gherr->status;
        }
      rows = band_rows (y, MIN (MIN (max_rows, stream->strip_rows), end - y), stream->tile_height,
                        stream->shift_y);
      if (!fetch_rows (stream, y, rows, strip, error))
        {
          gh_run_abort (run);
          return GH_ERROR_INVALID_ARGUMENT;
        }
      begin = g_get_monotonic_time ();
      status = gh_run_submit_strip (run, rows, gherr);
      stream->submit_us += g_get_monotonic_time () - begin;
      if (status != GH_OK)
        {
          gh_run_abort (run);
          return status;
        }
      y += rows;
      stream_progress (stream, (double) (y - area->y) / area->height);
    }

  begin = g_get_monotonic_time ();
  status = gh_run_finish (run, result, gherr);
  stream->finish_us = g_get_monotonic_time () - begin;
  return status;
}

static void
report_set_channels (GpuhistReport *report, const GpuhistSource *source)
{
  report->channels = source->channels;
  for (int i = 0; i < GH_MAX_CHANNELS; i++)
    report->channel_names[i] = i < source->channels ? source->channel_names[i] : NULL;
}

gboolean
gpuhist_core_measure (gh_engine *engine, const GpuhistSource *source,
                      const GpuhistSettings *settings, const GpuhistMonitor *monitor,
                      GpuhistReport *report, GError **error)
{
  Stream stream;
  gint64 start;
  gboolean ok = FALSE;
  int repetitions;
  int bins = settings && settings->bins > 0 ? settings->bins : GH_BINS;

  g_return_val_if_fail (engine != NULL && source != NULL && report != NULL, FALSE);

  gpuhist_report_clear (report);
  if (source->buffer == NULL || source->fetch_format == NULL || source->channels < 1
      || source->channels > GH_MAX_CHANNELS || source->area.width <= 0 || source->area.height <= 0)
    {
      g_set_error (error, GPUHIST_ERROR, GH_ERROR_INVALID_ARGUMENT,
                   _ ("There are no pixels to count."));
      return FALSE;
    }

  if (!gpuhist_bins_valid (bins))
    {
      g_set_error (error, GPUHIST_ERROR, GH_ERROR_INVALID_ARGUMENT,
                   _ ("bins must be 256, 1024, 4096, 16384 or 65536, not %d."), bins);
      return FALSE;
    }

  /* More than 256 bins of a layer of more than 8 bits: 16-bit samples.  Everything else
   * (256 bins, or an 8-bit or indexed layer) takes the 8-bit path. */
  if (bins > GH_BINS && source->fetch_format16 != NULL)
    {
      gh_error gherr = { GH_OK, "" };

      if (gh_engine_set_bins (engine, bins, GH_STRATEGY_AUTO, &gherr) != GH_OK)
        {
          gpuhist_set_engine_error (error, &gherr);
          return FALSE;
        }
      if (!stream_init (&stream, source, monitor, source->fetch_format16, 2, error))
        return FALSE;
    }
  else if (!stream_init (&stream, source, monitor, source->fetch_format, 1, error))
    return FALSE;

  repetitions = settings ? MAX (0, settings->repetitions) : 0;
  gh_engine_set_methods (
      engine, repetitions > 0 ? GH_ALL_METHODS : GH_METHOD_BIT (GH_METHOD_FASTEST), repetitions);

  start = g_get_monotonic_time ();
  for (int attempt = 0;; attempt++)
    {
      gh_error gherr = { GH_OK, "" };
      GError *local = NULL;
      gh_status status = measure_once (engine, &stream, &report->layer, &gherr, &local);

      if (status == GH_OK)
        {
          ok = TRUE;
          break;
        }
      gh_result_clear (&report->layer);
      if (local != NULL)
        {
          g_propagate_error (error, local);
          break;
        }
      if ((status == GH_ERROR_GPU_FAILED || status == GH_ERROR_OUT_OF_MEMORY) && attempt == 0
          && gh_engine_uses_gpu (engine))
        {
          /* The run is lost; count again on the CPU, which says why in the backend line. */
          gh_engine_fall_back_to_cpu (engine, gherr.message);
          continue;
        }
      gpuhist_set_engine_error (error, &gherr);
      break;
    }

  g_free (stream.scratch);
  if (!ok)
    {
      memset (&report->layer, 0, sizeof report->layer);
      return FALSE;
    }

  report->fetch_ms = stream.fetch_us / 1000.0;
  report->total_ms = (g_get_monotonic_time () - start) / 1000.0;
  report->begin_ms = stream.begin_us / 1000.0;
  report->submit_ms = stream.submit_us / 1000.0;
  report->finish_ms = stream.finish_us / 1000.0;
  report->progress_ms = stream.progress_us / 1000.0;
  report_set_channels (report, source);
  report->drawable_name = g_strdup (source->drawable_name ? source->drawable_name : "");
  report->area = source->area;
  report->linear = settings ? settings->linear : FALSE;
  report->fetch_format = g_strdup (babl_get_name (stream.fetch_format));
  report->requested_bins = bins;
  progress (monitor, 1.0);
  return TRUE;
}

/* --- fetch only, for tools/bench-gimp -------------------------------------------------------- */

gboolean
gpuhist_fetch_only_requested (void)
{
  const char *value = g_getenv ("GPUHIST_FETCH_ONLY");

  return value != NULL && strcmp (value, "1") == 0;
}

gboolean
gpuhist_core_fetch_only (const GpuhistSource *source, GpuhistReport *report, GError **error)
{
  /* The 256-bin path's strips and conversions, into one strip reused, with no engine. */
  const GeglRectangle *area = &source->area;
  Stream stream;
  guint8 *strip;
  gboolean ok = TRUE;

  gpuhist_report_clear (report);
  if (!stream_init (&stream, source, NULL, source->fetch_format, 1, error))
    return FALSE;
  stream.strip_rows = MIN (stream.strip_rows, area->height);
  strip = g_try_malloc ((size_t) stream.strip_rows * area->width * source->channels);
  if (strip == NULL)
    {
      g_set_error (error, GPUHIST_ERROR, GH_ERROR_OUT_OF_MEMORY,
                   _ ("Not enough memory to read %d rows of %d pixels."), stream.strip_rows,
                   area->width);
      g_free (stream.scratch);
      return FALSE;
    }
  for (int y = area->y, end = area->y + area->height; y < end && ok;)
    {
      int rows
          = band_rows (y, MIN (stream.strip_rows, end - y), stream.tile_height, stream.shift_y);

      ok = fetch_rows (&stream, y, rows, strip, error);
      y += rows;
    }
  g_free (strip);
  g_free (stream.scratch);
  if (!ok)
    return FALSE;
  report->fetch_ms = stream.fetch_us / 1000.0;
  report_set_channels (report, source);
  g_strlcpy (report->layer.backend, GPUHIST_FETCH_ONLY_BACKEND, sizeof report->layer.backend);
  return TRUE;
}

gdouble *
gpuhist_fetch_only_timings (const GpuhistReport *report, gint *n_timings)
{
  gdouble *timings = g_new (gdouble, GPUHIST_N_RETURN_TIMINGS);

  for (int i = 0; i < GPUHIST_N_RETURN_TIMINGS; i++)
    timings[i] = -1.0;
  timings[GPUHIST_N_RETURN_TIMINGS - 1] = report->fetch_ms;
  *n_timings = GPUHIST_N_RETURN_TIMINGS;
  return timings;
}

static gboolean
run_pattern (gh_engine *engine, gh_pattern pattern, const GpuhistReport *report, gh_result *result,
             GError **error)
{
  for (int attempt = 0;; attempt++)
    {
      gh_error gherr = { GH_OK, "" };
      gh_status status
          = gh_histogram_pattern (engine, pattern, report->area.width, report->area.height,
                                  report->channels, result, &gherr);
      if (status == GH_OK)
        return TRUE;
      gh_result_clear (result);
      memset (result, 0, sizeof *result);
      if ((status == GH_ERROR_GPU_FAILED || status == GH_ERROR_OUT_OF_MEMORY) && attempt == 0
          && gh_engine_uses_gpu (engine))
        {
          gh_engine_fall_back_to_cpu (engine, gherr.message);
          continue;
        }
      gpuhist_set_engine_error (error, &gherr);
      return FALSE;
    }
}

gboolean
gpuhist_core_compare_patterns (gh_engine *engine, const GpuhistSettings *settings,
                               GpuhistReport *report, GError **error)
{
  int repetitions = settings ? MAX (0, settings->repetitions) : 0;

  g_return_val_if_fail (engine != NULL && report != NULL, FALSE);
  if (report->channels < 1 || report->area.width <= 0 || report->area.height <= 0)
    {
      g_set_error (error, GPUHIST_ERROR, GH_ERROR_INVALID_ARGUMENT,
                   _ ("Measure the layer before comparing it with flat and noisy images."));
      return FALSE;
    }

  gh_engine_set_methods (
      engine, repetitions > 0 ? GH_ALL_METHODS : GH_METHOD_BIT (GH_METHOD_FASTEST), repetitions);
  gh_result_clear (&report->flat);
  memset (&report->flat, 0, sizeof report->flat);
  gh_result_clear (&report->noise);
  memset (&report->noise, 0, sizeof report->noise);

  if (!run_pattern (engine, GH_PATTERN_FLAT, report, &report->flat, error))
    return FALSE;
  if (!run_pattern (engine, GH_PATTERN_NOISE, report, &report->noise, error))
    {
      gh_result_clear (&report->flat);
      memset (&report->flat, 0, sizeof report->flat);
      return FALSE;
    }
  return TRUE;
}

/* --- return values ------------------------------------------------------------------------- */

gdouble *
gpuhist_report_counts (const GpuhistReport *report, gint *n_counts)
{
  const gh_result *r = &report->layer;
  gint n = r->counts ? r->channels * r->bins : 0;
  gdouble *counts = g_new0 (gdouble, MAX (n, 1));

  for (gint i = 0; i < n; i++)
    counts[i] = (gdouble) r->counts[i];
  *n_counts = n;
  return counts;
}

gdouble *
gpuhist_report_timings (const GpuhistReport *report, gint *n_timings)
{
  static const gh_timing_kind kinds[] = { GH_TIME_GLOBAL_ATOMICS, GH_TIME_PRIVATIZED,
                                          GH_TIME_FASTEST, GH_TIME_READ_ONLY, GH_TIME_UPLOAD };
  gdouble *timings = g_new (gdouble, GPUHIST_N_RETURN_TIMINGS);

  for (gsize i = 0; i < G_N_ELEMENTS (kinds); i++)
    {
      const gh_timing *t = &report->layer.timing[kinds[i]];
      timings[i] = t->runs > 0 ? t->median_ms : -1.0;
    }
  timings[5] = report->layer.counts ? report->fetch_ms : -1.0;
  *n_timings = GPUHIST_N_RETURN_TIMINGS;
  return timings;
}

/* --- files --------------------------------------------------------------------------------- */

static void
json_string (GString *out, const char *s)
{
  g_string_append_c (out, '"');
  for (const unsigned char *p = (const unsigned char *) (s ? s : ""); *p; p++)
    {
      switch (*p)
        {
        case '"': g_string_append (out, "\\\""); break;
        case '\\': g_string_append (out, "\\\\"); break;
        case '\n': g_string_append (out, "\\n"); break;
        case '\r': g_string_append (out, "\\r"); break;
        case '\t': g_string_append (out, "\\t"); break;
        default:
          if (*p < 0x20)
            g_string_append_printf (out, "\\u%04x", *p);
          else
            g_string_append_c (out, (char) *p);
        }
    }
  g_string_append_c (out, '"');
}

/* The engine's JSON object for one result, without its trailing newline; NULL when it fails. */
static gchar *
result_json (const gh_result *result, const char *const *names)
{
  char *text = NULL;
  size_t size = 0;
  FILE *memory = open_memstream (&text, &size);
  gchar *copy;

  if (memory == NULL)
    return NULL;
  if (gh_write_json (memory, result, names) != 0)
    {
      fclose (memory);
      free (text);
      return NULL;
    }
  if (fclose (memory) != 0 || text == NULL)
    {
      free (text);
      return NULL;
    }
  copy = g_strstrip (g_strdup (text));
  free (text);
  if (copy[0] != '{' || !g_str_has_suffix (copy, "}"))
    {
      g_free (copy);
      return NULL;
    }
  return copy;
}

/* separator, then "name": milliseconds, in the C locale whatever the user's. */
static void
json_ms (GString *out, const char *separator, const char *name, double ms)
{
  char number[G_ASCII_DTOSTR_BUF_SIZE];

  g_string_append_printf (out, "%s\"%s\": %s", separator, name,
                          g_ascii_formatd (number, sizeof number, "%.3f", ms));
}

static const char *
json_bool (gboolean value)
{
  return value ? "true" : "false";
}

/* The layer's result as gpuhist writes it, with the plug-in's fields added to the same object:
 * drawable, area, linear, fetch_format, fetch_ms, total_ms, note, and flat / noise (the engine's
 * object for each) when the comparison ran. */
static gchar *
report_json (const GpuhistReport *report)
{
  gchar *layer = result_json (&report->layer, report->channel_names);
  GString *out;

  if (layer == NULL)
    return NULL;

  out = g_string_new (NULL);
  /* everything up to the closing brace, then our members */
  g_string_append_len (out, layer, (gssize) strlen (layer) - 1);
  g_free (layer);
  while (out->len > 0 && g_ascii_isspace (out->str[out->len - 1]))
    g_string_truncate (out, out->len - 1);
  if (out->len > 1) /* the engine's object is not empty */
    g_string_append_c (out, ',');

  g_string_append (out, "\n  \"drawable\": ");
  json_string (out, report->drawable_name);
  g_string_append_printf (out,
                          ",\n  \"area\": {\"x\": %d, \"y\": %d, \"width\": %d, \"height\": %d}",
                          report->area.x, report->area.y, report->area.width, report->area.height);
  g_string_append_printf (out, ",\n  \"linear\": %s", json_bool (report->linear));
  if (report->requested_bins > 0)
    g_string_append_printf (out, ",\n  \"requested_bins\": %d", report->requested_bins);
  g_string_append (out, ",\n  \"fetch_format\": ");
  json_string (out, report->fetch_format);
  json_ms (out, ",\n  ", "fetch_ms", report->fetch_ms);
  json_ms (out, ",\n  ", "total_ms", report->total_ms);
  json_ms (out, ",\n  ", "engine_ms", report->engine_ms);
  g_string_append_printf (out, ",\n  \"engine_kept\": %s", json_bool (report->engine_kept));
  json_ms (out, ",\n  \"phases_ms\": {", "begin", report->begin_ms);
  json_ms (out, ", ", "submit", report->submit_ms);
  json_ms (out, ", ", "finish", report->finish_ms);
  json_ms (out, ", ", "progress", report->progress_ms);
  g_string_append_c (out, '}');
  if (report->note)
    {
      g_string_append (out, ",\n  \"note\": ");
      json_string (out, report->note);
    }

  for (int i = 0; i < 2; i++)
    {
      const gh_result *row = i == 0 ? &report->flat : &report->noise;
      gchar *text;

      if (row->channels == 0 || row->counts == NULL)
        continue;
      text = result_json (row, report->channel_names);
      if (text == NULL)
        {
          g_string_free (out, TRUE);
          return NULL;
        }
      g_string_append_printf (out, ",\n  \"%s\": %s", i == 0 ? "flat" : "noise", text);
      g_free (text);
    }
  g_string_append (out, "\n}\n");
  return g_string_free (out, FALSE);
}

gboolean
gpuhist_core_write (const GpuhistReport *report, const char *path, GError **error)
{
  gchar *lower;
  gboolean json;
  gboolean ok = TRUE;

  g_return_val_if_fail (report != NULL, FALSE);
  if (path == NULL || path[0] == '\0')
    return TRUE;
  if (report->layer.counts == NULL)
    {
      g_set_error (error, GPUHIST_ERROR, GH_ERROR_INVALID_ARGUMENT,
                   _ ("There are no results to write."));
      return FALSE;
    }

  lower = g_ascii_strdown (path, -1);
  json = g_str_has_suffix (lower, ".json");
  if (!json && !g_str_has_suffix (lower, ".csv"))
    {
      g_free (lower);
      g_set_error (error, GPUHIST_ERROR, GH_ERROR_INVALID_ARGUMENT,
                   _ ("Cannot tell the format of \"%s\": the output file must end in .csv or "
                      ".json."),
                   path);
      return FALSE;
    }
  g_free (lower);

  if (json)
    {
      gchar *text = report_json (report);
      GError *local = NULL;

      if (text == NULL)
        {
          g_set_error (error, GPUHIST_ERROR, GH_ERROR_INVALID_ARGUMENT,
                       _ ("Could not format the results as JSON."));
          return FALSE;
        }
      if (!g_file_set_contents (path, text, -1, &local))
        {
          g_set_error (error, GPUHIST_ERROR, GH_ERROR_INVALID_ARGUMENT,
                       _ ("Could not write \"%s\": %s"), path, local->message);
          g_error_free (local);
          ok = FALSE;
        }
      g_free (text);
    }
  else
    {
      FILE *out = g_fopen (path, "w");

      if (out == NULL)
        {
          int saved = errno;
          g_set_error (error, GPUHIST_ERROR, GH_ERROR_INVALID_ARGUMENT,
                       _ ("Could not write \"%s\": %s"), path, g_strerror (saved));
          return FALSE;
        }
      if (gh_write_csv (out, &report->layer, report->channel_names) != 0)
        ok = FALSE;
      if (fclose (out) != 0)
        ok = FALSE;
      if (!ok)
        g_set_error (error, GPUHIST_ERROR, GH_ERROR_INVALID_ARGUMENT,
                     _ ("Could not write \"%s\": the disk may be full."), path);
    }
  return ok;
}

/* --- the whole non-interactive run --------------------------------------------------------- */

gboolean
gpuhist_core_run (const GpuhistSource *source, const GpuhistSettings *settings,
                  const GpuhistMonitor *monitor, const char *note, GpuhistReport *report,
                  GError **error)
{
  GpuhistEngineStart start;
  gh_engine *engine = gpuhist_core_engine_new (&start, error);
  gboolean ok;

  gpuhist_report_clear (report);
  if (engine == NULL)
    return FALSE;
  ok = gpuhist_core_measure (engine, source, settings, monitor, report, error);
  gpuhist_core_engine_done (engine);
  report->engine_ms = start.waited_ms;
  report->engine_kept = start.kept;
  if (ok && note != NULL)
    report->note = g_strdup (note);
  if (ok && settings && settings->output_file && settings->output_file[0])
    ok = gpuhist_core_write (report, settings->output_file, error);
  return ok;
}

void
gpuhist_report_clear (GpuhistReport *report)
{
  if (report == NULL)
    return;
  gh_result_clear (&report->layer);
  gh_result_clear (&report->flat);
  gh_result_clear (&report->noise);
  g_clear_pointer (&report->drawable_name, g_free);
  g_clear_pointer (&report->fetch_format, g_free);
  g_clear_pointer (&report->note, g_free);
  memset (report, 0, sizeof *report);
}
