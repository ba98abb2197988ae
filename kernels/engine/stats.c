/* gpu-histogram: statistics of one channel's histogram, from the counts alone. */
#include "gpuhist.h"

#include <math.h>
#include <string.h>

void
gh_stats_compute (const uint64_t *counts, int bins, gh_channel_stats *stats)
{
  memset (stats, 0, sizeof *stats);
  stats->min = stats->max = stats->median = -1;

  uint64_t total = 0, busiest = 0;
  double sum = 0;
  for (int b = 0; b < bins; b++)
    {
      if (!counts[b])
        continue;
      total += counts[b];
      sum += (double) counts[b] * b;
      if (counts[b] > busiest)
        busiest = counts[b];
      if (stats->min < 0)
        stats->min = b;
      stats->max = b;
      stats->bins_used++;
    }
  stats->pixels = total;
  stats->weight = (double) total;
  if (total == 0)
    return;

  stats->mean = sum / (double) total;
  /* Two passes: the variance around the mean, not E[x²] - mean², which cancels badly. */
  double squares = 0;
  for (int b = 0; b < bins; b++)
    if (counts[b])
      squares += (double) counts[b] * (b - stats->mean) * (b - stats->mean);
  stats->stddev = sqrt (squares / (double) total);
  stats->busiest_share = (double) busiest / (double) total;

  uint64_t seen = 0;
  for (int b = 0; b < bins; b++)
    {
      seen += counts[b];
      if (2 * seen >= total)
        {
          stats->median = b;
          break;
        }
    }
}

/* GIMP's gimp_histogram_get_mean, get_std_dev and get_median over the whole range, in GIMP's
 * order of operations (bin positions i / (bins - 1), then scaled back to bins). */
void
gh_stats_compute_values (const double *values, int bins, gh_channel_stats *stats)
{
  memset (stats, 0, sizeof *stats);
  stats->min = stats->max = stats->median = -1;
  double count = 0, mean = 0, busiest = 0;
  for (int i = 0; i < bins; i++)
    {
      const double factor = (double) i / (double) (bins - 1);
      count += values[i];
      mean += factor * values[i];
      if (values[i] <= 0)
        continue;
      busiest = values[i] > busiest ? values[i] : busiest;
      if (stats->min < 0)
        stats->min = i;
      stats->max = i;
      stats->bins_used++;
    }
  stats->weight = count;
  stats->pixels = (uint64_t) count;
  if (count <= 0)
    return;
  mean /= count;
  double dev = 0, sum = 0;
  for (int i = 0; i < bins; i++)
    {
      const double d = (double) i / (double) (bins - 1) - mean;
      dev += values[i] * d * d;
      sum += values[i];
      if (stats->median < 0 && sum * 2 > count)
        stats->median = i;
    }
  stats->mean = mean * (bins - 1);
  stats->stddev = sqrt (dev / count) * (bins - 1);
  stats->busiest_share = busiest / count;
}
