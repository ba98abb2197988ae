/* gpu-histogram: what the GIMP 2.10 glue's files share.
 *
 *   gimp2.c            registration, the plug-in's data folders, which procedure runs
 *   gimp2-host.c       the GpuhistHost table of what 2.10 does its own way (flow.h)
 *   gimp2-histogram.c  plug-in-gpu-histogram: its arguments, return values and last values
 *   gimp2-resident.c   the resident process, and handing a run over to it
 *   gimp2-scopes.c     plug-in-gpu-scopes: its arguments and return values
 *
 * In 2.10 each procedure returns a static array that outlives run(): GIMP sends it afterwards.
 */
#ifndef GPUHIST_GLUE2_H
#define GPUHIST_GLUE2_H

#include <libgimp/gimp.h>

#include "flow.h"

G_BEGIN_DECLS

extern const GpuhistHost gpuhist_gimp2_host;

/* plug-in-gpu-histogram's arguments and return values, also the resident procedure's. */
extern const GimpParamDef gpuhist_gimp2_histogram_args[];
extern const gint gpuhist_gimp2_n_histogram_args;
extern const GimpParamDef gpuhist_gimp2_histogram_return_vals[];
extern const gint gpuhist_gimp2_n_histogram_return_vals;

/* Binds the plug-in's message catalogue (its own locale/ folder, else LOCALEDIR). */
void gpuhist_gimp2_init_i18n (void);

/* The error values: the status and the message, kept until the next call. */
GimpParam *gpuhist_gimp2_error_values (GimpPDBStatusType status, const gchar *message,
                                       gint *n_return_vals);

/* The calling error's message when drawable_id names no drawable, else NULL. */
const gchar *gpuhist_gimp2_check_drawable (gint32 drawable_id);

/* Runs the flow (flow.h) with the 2.10 host table: NULL when it counted (the caller returns the
 * report), else the values of the cancel or of the execution error. */
GimpParam *gpuhist_gimp2_flow (GpuhistRequest *request, GpuhistReport *report, gboolean *fetch_only,
                               gint *n_return_vals);

GimpParam *gpuhist_gimp2_run_histogram (gint n_params, const GimpParam *param, gint *n_return_vals);

/* GPUHIST_RESIDENT_EXTENSION's run: serves the resident procedures until GIMP quits. */
void gpuhist_gimp2_run_resident (GimpRunProc run);
/* Runs the call in the resident process's procedure `resident` when it is there and free,
 * returning its values; NULL: count in this process. */
GimpParam *gpuhist_gimp2_hand_over (const gchar *resident, gint n_params, const GimpParam *param,
                                    gint *n_return_vals);

void gpuhist_gimp2_register_scopes (void);
/* GPUHIST_SCOPES_RESIDENT_PROC, in the resident process. */
void gpuhist_gimp2_install_scopes_resident (GimpRunProc run);
GimpParam *gpuhist_gimp2_run_scopes (gint n_params, const GimpParam *param, gint *n_return_vals);

G_END_DECLS

#endif /* GPUHIST_GLUE2_H */
