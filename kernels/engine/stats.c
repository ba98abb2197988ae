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
