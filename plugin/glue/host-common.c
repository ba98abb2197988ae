/* gpu-histogram: what the GIMP 2.10 and 3.0 glue share.  See host-common.h. */
#include "host-common.h"
#include "texts.h"

void
gpuhist_host_progress_init (const char *message)
{
  gimp_progress_init (message);
}

void
gpuhist_host_progress_update (double fraction)
{
  gimp_progress_update (fraction);
}

void
gpuhist_host_message (const char *text)
{
  gimp_message (text);
}

GpuhistRunMode
gpuhist_host_run_mode (GimpRunMode run_mode)
{
  switch (run_mode)
    {
    case GIMP_RUN_INTERACTIVE: return GPUHIST_MODE_INTERACTIVE;
    case GIMP_RUN_NONINTERACTIVE: return GPUHIST_MODE_NONINTERACTIVE;
    default: return GPUHIST_MODE_WITH_LAST_VALS;
    }
}

void
gpuhist_host_settings_to_keep (const GpuhistSettings *settings, int *repetitions, int *bins)
{
  *repetitions = CLAMP (settings->repetitions, 0, GPUHIST_MAX_REPETITIONS);
  *bins = gpuhist_bins_valid (settings->bins) ? settings->bins : GH_BINS;
}
