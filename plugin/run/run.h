/* gpu-histogram: the run sequence, the one home of what a batch run and the dialog both do.
 *
 * Above the keeper (engine-keeper.h) and the measurement (measure.h), below the glue and the
 * dialog: take an engine, measure, give it back, and record in the report how the engine was
 * had and the glue's note.
 */
#ifndef GPUHIST_RUN_H
#define GPUHIST_RUN_H

#include "core.h"

G_BEGIN_DECLS

/* Takes an engine and measures the source into the report, with the engine's wait and kept
 * flags and `note` (when not NULL) in it.  Returns the engine, to be handed back to
 * gpuhist_keeper_give_back when the caller is done with it (the dialog measures again with it);
 * NULL with *error set when there is no engine or the measurement failed (the engine was handed
 * back then). */
gh_engine *gpuhist_run_measure (const GpuhistSource *source, const GpuhistSettings *settings,
                                const GpuhistMonitor *monitor, const char *note,
                                GpuhistReport *report, GError **error);

/* The whole non-interactive run: gpuhist_run_measure, the engine handed back, and
 * settings->output_file written when set.  On success the report is filled (clear it). */
gboolean gpuhist_run_batch (const GpuhistSource *source, const GpuhistSettings *settings,
                            const GpuhistMonitor *monitor, const char *note, GpuhistReport *report,
                            GError **error);

G_END_DECLS

#endif /* GPUHIST_RUN_H */
