/* gpu-histogram: statistics of part of a channel, without GTK (tests/plugin-core checks them):
 * a range of bins, as the dialog's range read-out shows it, and the clipping at both ends, as
 * the dialog's statistics table and the JSON report's "clipping" show it. */
#ifndef GPUHIST_CHANNEL_STATS_H
#define GPUHIST_CHANNEL_STATS_H

#include "core.h"

G_BEGIN_DECLS

/* One channel over bins [lo, hi]. */
typedef struct
{
  double weight; /* the counted weight in the range, in pixels */
  double share;  /* of the channel's whole weight, 0..1; 0 for an empty channel */
  double mean;   /* in bins of the whole histogram, as GIMP's dockable gives them */
  double stddev;
  int median; /* -1 for an empty range */
} GpuhistRangeStats;

/* GIMP's statistics (gh_stats_compute_values) of the result's values in bins lo to hi of a
 * channel, everything outside the range left out.  FALSE, *stats zeroed, when the result has no
 * such channel or the range is not within 0 .. bins - 1 with lo <= hi. */
gboolean gpuhist_range_stats (const gh_result *result, int channel, int lo, int hi,
                              GpuhistRangeStats *stats);

/* The share of a channel's counted weight in its lowest bin (shadows) and its highest
 * (highlights), 0..1; both 0 for an empty channel.  FALSE, both 0, when there is no such
 * channel. */
gboolean gpuhist_channel_clipping (const gh_result *result, int channel, double *shadows,
                                   double *highlights);

G_END_DECLS

#endif /* GPUHIST_CHANNEL_STATS_H */
