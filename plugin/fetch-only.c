/* gpu-histogram: the benchmark hook, reading without counting.  See fetch-only.h. */
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fetch-only.h"
#include "report.h"
#include "stream.h"

gboolean
gpuhist_fetch_only_requested (void)
{
  const char *value = g_getenv ("GPUHIST_FETCH_ONLY");

  return value != NULL && strcmp (value, "1") == 0;
}

gboolean
gpuhist_fetch_only (const GpuhistSource *source, GpuhistReport *report, GError **error)
{
  /* The 256-bin path's strips and conversions, into one strip reused, with no engine. */
  const GeglRectangle *area = &source->area;
  GpuhistStream stream;
  guint8 *strip;
  gboolean ok = TRUE;

  gpuhist_report_clear (report);
  if (!gpuhist_stream_init (&stream, source, NULL, source->fetch_format, 1, error))
    return FALSE;
  stream.strip_rows = MIN (stream.strip_rows, area->height);
  strip = g_try_malloc ((size_t) stream.strip_rows * area->width * source->channels);
  if (strip == NULL)
    {
      g_set_error (error, GPUHIST_ERROR, GPUHIST_ERROR_NO_MEMORY,
                   _ ("Not enough memory to read %d rows of %d pixels."), stream.strip_rows,
                   area->width);
      gpuhist_stream_clear (&stream);
      return FALSE;
    }
  for (int y = area->y, end = area->y + area->height; y < end && ok;)
    {
      int rows = gpuhist_band_rows (y, MIN (stream.strip_rows, end - y), stream.tile_height,
                                    stream.shift_y);

      ok = gpuhist_stream_fetch_rows (&stream, y, rows, strip, error);
      y += rows;
    }
  g_free (strip);
  gpuhist_stream_clear (&stream);
  if (!ok)
    return FALSE;
  report->fetch_ms = stream.fetch_us / 1000.0;
  gpuhist_report_set_channels (report, source);
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