/* gpu-histogram: the benchmark hook, reading without counting.  See fetch-only.h. */

#include <glib/gi18n-lib.h>

#include "fetch-only.h"
#include "report.h"
#include "stream.h"

gboolean
gpuhist_fetch_only_requested (const GpuhistSettings *settings)
{
  const char *value = g_getenv ("GPUHIST_FETCH_ONLY");

  if (g_strcmp0 (value, "paired") == 0)
    return !settings->scopes;
  return g_strcmp0 (value, "1") == 0 || g_strcmp0 (value, "resident") == 0;
}

gboolean
gpuhist_fetch_only_stays (void)
{
  return g_strcmp0 (g_getenv ("GPUHIST_FETCH_ONLY"), "1") == 0;
}

gboolean
gpuhist_fetch_only (const GpuhistSource *source, const GpuhistSettings *settings,
                    GpuhistReport *report, GError **error)
{
  /* A run's stream and bands (stream.h), into one strip and one plane reused, with no engine. */
  const GeglRectangle *area = &source->area;
  GpuhistStream stream;
  guint8 *strip;
  guint8 *plane = NULL;
  int rows;
  gboolean ok = TRUE;

  gpuhist_report_clear (report);
  if (!gpuhist_stream_open (&stream, source, NULL, settings, error))
    return FALSE;
  rows = MIN (stream.strip_rows, area->height);
  strip = g_try_malloc ((size_t) rows * area->width * source->channels * stream.bytes_per_sample);
  if (strip != NULL && stream.plane_bytes > 0)
    plane = g_try_malloc ((size_t) rows * area->width * stream.plane_bytes);
  if (strip == NULL || (stream.plane_bytes > 0 && plane == NULL))
    {
      g_set_error (error, GPUHIST_ERROR, GPUHIST_ERROR_NO_MEMORY,
                   _ ("Not enough memory to read %d rows of %d pixels."), rows, area->width);
      ok = FALSE;
    }
  for (int y = area->y, end = area->y + area->height, n = 1; ok && y < end; y += n)
    {
      n = gpuhist_stream_read_band (&stream, y, end - y, strip, plane, error);
      ok = n > 0;
    }
  g_free (strip);
  g_free (plane);
  gpuhist_stream_clear (&stream);
  if (!ok)
    return FALSE;
  report->fetch_ms = stream.fetch_us / 1000.0;
  report->layer.bytes = stream.fetched_bytes;
  gpuhist_report_set_channels (report, source);
  /* Said in the backend line too, so that a benchmark's records show what the fetch read. */
  g_snprintf (report->layer.backend, sizeof report->layer.backend,
              GPUHIST_FETCH_ONLY_BACKEND ", %" G_GUINT64_FORMAT " bytes read",
              stream.fetched_bytes);
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