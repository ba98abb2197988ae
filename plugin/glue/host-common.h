/* gpu-histogram: the entries of the GpuhistHost table (flow.h) that libgimp-2.0 and libgimp-3.0
 * spell alike, so that gimp2.c and gimp3.c share them.  Built against whichever libgimp the
 * plug-in is for, with no version check. */
#ifndef GPUHIST_HOST_COMMON_H
#define GPUHIST_HOST_COMMON_H

#include <libgimp/gimp.h>

#include "flow.h"

G_BEGIN_DECLS

void gpuhist_host_progress_init (const char *message);
void gpuhist_host_progress_update (double fraction);
void gpuhist_host_message (const char *text);

/* GIMP's run mode as the flow's. */
GpuhistRunMode gpuhist_host_run_mode (GimpRunMode run_mode);

/* The settings worth keeping for the next run: repetitions within range, a bin count the
 * procedure accepts (else 256). */
void gpuhist_host_settings_to_keep (const GpuhistSettings *settings, int *repetitions, int *bins);

G_END_DECLS

#endif /* GPUHIST_HOST_COMMON_H */
