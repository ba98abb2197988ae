/* gpu-histogram: for benchmarks only (tools/bench-gimp), reading without counting.
 *
 * With GPUHIST_FETCH_ONLY=1 in the plug-in's environment (gpuhist_fetch_only_requested), a
 * non-interactive run calls gpuhist_fetch_only instead of measuring: it reads the source exactly
 * as a run with the same settings does, through the same code (stream.h: the samples for the
 * bin count, the same strips, format and conversions, and the selection's coverage plane beside
 * them as `weighting` reads it), and counts nothing.  The report gets the channels, fetch_ms,
 * layer.bytes (what was read: samples and coverage, as the engine counts a pass's bytes) and the
 * backend line GPUHIST_FETCH_ONLY_BACKEND followed by ", N bytes read";
 * gpuhist_fetch_only_timings returns timings of -1 but the last, the fetch.
 *
 * GPUHIST_FETCH_ONLY=1 reads in the process GIMP called (gpuhist_fetch_only_stays); =resident
 * hands the call to the resident process as a whole run is handed, so that the fetch alone is
 * timed in the process that counts (tools/bench-gimp --fetch-in-resident); =paired does the
 * same for plug-in-gpu-histogram's calls only, while plug-in-gpu-scopes' calls count as usual,
 * so that one GIMP session times the fetch alone and the whole run in turn on the same layer
 * (tools/bench-gimp --paired).
 */
#ifndef GPUHIST_FETCH_ONLY_H
#define GPUHIST_FETCH_ONLY_H

#include "core.h"

G_BEGIN_DECLS

#define GPUHIST_FETCH_ONLY_BACKEND "fetch only (GPUHIST_FETCH_ONLY)"

gboolean gpuhist_fetch_only_requested (const GpuhistSettings *settings);
gboolean gpuhist_fetch_only_stays (void);
gboolean gpuhist_fetch_only (const GpuhistSource *source, const GpuhistSettings *settings,
                             GpuhistReport *report, GError **error);
gdouble *gpuhist_fetch_only_timings (const GpuhistReport *report, gint *n_timings);

G_END_DECLS

#endif /* GPUHIST_FETCH_ONLY_H */
