/* gpu-histogram: the run sequence.  See run.h. */
#include "engine-keeper.h"
#include "measure.h"
#include "report.h"
#include "run.h"

gh_engine *
gpuhist_run_measure (const GpuhistSource *source, const GpuhistSettings *settings,
                     const GpuhistMonitor *monitor, const char *note, GpuhistReport *report,
                     GError **error)
{
  GpuhistKeeperStart start;
  gh_engine *engine = gpuhist_keeper_take (&start, error);

  gpuhist_report_clear (report);
  if (engine == NULL)
    return NULL;
  if (!gpuhist_measure (engine, source, settings, monitor, report, error))
    {
      gpuhist_keeper_give_back (engine);
      return NULL;
    }
  report->engine_ms = start.waited_ms;
  report->engine_kept = start.kept;
  if (note != NULL)
    report->note = g_strdup (note);
  return engine;
}

gboolean
gpuhist_run_batch (const GpuhistSource *source, const GpuhistSettings *settings,
                   const GpuhistMonitor *monitor, const char *note, GpuhistReport *report,
                   GError **error)
{
  gh_engine *engine = gpuhist_run_measure (source, settings, monitor, note, report, error);

  if (engine == NULL)
    return FALSE;
  gpuhist_keeper_give_back (engine);
  if (settings && settings->output_file && settings->output_file[0])
    return gpuhist_report_write (report, settings->output_file, error);
  return TRUE;
}
