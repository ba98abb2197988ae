/* gpu-histogram: statistics of part of a channel.  See channel-stats.h. */
#include <string.h>

#include "channel-stats.h"

static double
channel_total (const double *values, int bins)
{
  double total = 0.0;

  for (int b = 0; b < bins; b++)
    total += values[b];
  return total;
}

gboolean
gpuhist_range_stats (const gh_result *result, int channel, int lo, int hi, GpuhistRangeStats *stats)
{
  const double *values;
  double *inside;
  double total;
  gh_channel_stats range;

  memset (stats, 0, sizeof *stats);
  stats->median = -1;
  if (result == NULL || result->values == NULL || channel < 0 || channel >= result->channels
      || lo < 0 || hi >= result->bins || lo > hi)
    return FALSE;

  /* The whole histogram with the bins outside the range emptied: GIMP's own statistics then
   * come out in the histogram's bins, as its dockable shows a range's, with no offset to add
   * and no special case for a range of one bin. */
  values = result->values + (size_t) channel * result->bins;
  inside = g_new0 (double, result->bins);
  memcpy (inside + lo, values + lo, sizeof *inside * (size_t) (hi - lo + 1));
  gh_stats_compute_values (inside, result->bins, &range);
  g_free (inside);

  total = channel_total (values, result->bins);
  stats->weight = range.weight;
  stats->share = total > 0.0 ? range.weight / total : 0.0;
  stats->mean = range.mean;
  stats->stddev = range.stddev;
  stats->median = range.median;
  return TRUE;
}

gboolean
gpuhist_channel_clipping (const gh_result *result, int channel, double *shadows, double *highlights)
{
  const double *values;
  double total;

  *shadows = *highlights = 0.0;
  if (result == NULL || result->values == NULL || channel < 0 || channel >= result->channels
      || result->bins < 1)
    return FALSE;
  values = result->values + (size_t) channel * result->bins;
  total = channel_total (values, result->bins);
  if (total > 0.0)
    {
      *shadows = values[0] / total;
      *highlights = values[result->bins - 1] / total;
    }
  return TRUE;
}
