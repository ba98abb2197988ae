/* gpu-histogram: the report's lifetime and the values returned to the PDB.  See report.h. */
#include <string.h>

#include "report.h"

void
gpuhist_report_clear (GpuhistReport *report)
{
  if (report == NULL)
    return;
  gh_result_clear (&report->layer);
  for (int p = 0; p < GH_N_PATTERNS; p++)
    gh_result_clear (&report->patterns[p]);
  g_clear_pointer (&report->drawable_name, g_free);
  g_clear_pointer (&report->fetch_format, g_free);
  g_clear_pointer (&report->note, g_free);
  memset (report, 0, sizeof *report);
}

void
gpuhist_result_reset (gh_result *result)
{
  gh_result_clear (result);
  memset (result, 0, sizeof *result);
}

void
gpuhist_report_reset_comparison (GpuhistReport *report)
{
  for (int p = 0; p < GH_N_PATTERNS; p++)
    gpuhist_result_reset (&report->patterns[p]);
}

void
gpuhist_report_set_channels (GpuhistReport *report, const GpuhistSource *source)
{
  static const char *const derived_names[] = { "value", "luminance" };
  gboolean derived = report->layer.values != NULL ? report->layer.derived : FALSE;

  report->channels = source->channels + (derived ? 2 : 0);
  for (int i = 0; i < GPUHIST_MAX_COUNTED_CHANNELS; i++)
    report->channel_names[i] = i < source->channels   ? source->channel_names[i]
                               : i < report->channels ? derived_names[i - source->channels]
                                                      : NULL;
}

gdouble *
gpuhist_report_counts (const GpuhistReport *report, gint *n_counts)
{
  const gh_result *r = &report->layer;
  gint n = r->values ? r->channels * r->bins : 0;
  gdouble *counts = g_new0 (gdouble, MAX (n, 1));

  /* The engine's values in pixels: exact integers for unweighted runs (below 2^53), the
   * nearest double to the exact weighted sums otherwise. */
  if (n > 0)
    memcpy (counts, r->values, sizeof *counts * n);
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
  timings[5] = report->layer.values ? report->fetch_ms : -1.0;
  *n_timings = GPUHIST_N_RETURN_TIMINGS;
  return timings;
}

uint64_t *
gpuhist_report_display_counts (const gh_result *result)
{
  size_t n = (size_t) result->channels * result->bins;
  uint64_t *counts;

  if (result->counts != NULL)
    return g_memdup2 (result->counts, n * sizeof *counts);
  if (result->values == NULL || n == 0)
    return NULL;
  counts = g_new (uint64_t, n);
  for (size_t i = 0; i < n; i++)
    counts[i] = (uint64_t) (result->values[i] + 0.5);
  return counts;
}

gboolean
gpuhist_result_channel_stats (const gh_result *result, int channel, gh_channel_stats *stats)
{
  size_t offset = (size_t) channel * result->bins;

  if (channel < 0 || channel >= result->channels)
    return FALSE;
  /* Unweighted runs keep the statistics of whole counts; weighted ones GIMP's, over pixels. */
  if (result->counts != NULL)
    gh_stats_compute (result->counts + offset, result->bins, stats);
  else if (result->values != NULL)
    gh_stats_compute_values (result->values + offset, result->bins, stats);
  else
    return FALSE;
  return TRUE;
}
