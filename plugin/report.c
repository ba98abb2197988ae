/* gpu-histogram: the report's lifetime and the values returned to the PDB.  See report.h. */
#include <string.h>

#include "report.h"

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

void
gpuhist_result_reset (gh_result *result)
{
  gh_result_clear (result);
  memset (result, 0, sizeof *result);
}

void
gpuhist_report_reset_comparison (GpuhistReport *report)
{
  gpuhist_result_reset (&report->flat);
  gpuhist_result_reset (&report->noise);
}

void
gpuhist_report_set_channels (GpuhistReport *report, const GpuhistSource *source)
{
  report->channels = source->channels;
  for (int i = 0; i < GH_MAX_CHANNELS; i++)
    report->channel_names[i] = i < source->channels ? source->channel_names[i] : NULL;
}

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
