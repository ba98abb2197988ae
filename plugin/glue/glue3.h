/* gpu-histogram: what the GIMP 3.0 glue's files share.
 *
 *   gimp3.c            the GimpPlugIn subclass: which procedures there are, i18n, the icon
 *   gimp3-host.c       the GpuhistHost table of what 3.0 does its own way (flow.h)
 *   gimp3-histogram.c  plug-in-gpu-histogram: its arguments and return values
 *   gimp3-resident.c   the resident process, and handing a run over to it
 *   gimp3-scopes.c     plug-in-gpu-scopes: its arguments and return values
 */
#ifndef GPUHIST_GLUE3_H
#define GPUHIST_GLUE3_H

#include <libgimp/gimp.h>

#include "flow.h"

G_BEGIN_DECLS

extern const GpuhistHost gpuhist_gimp3_host;

/* The calling error's values when no drawable is given; else NULL, with the request's drawable
 * (the first) and n_drawables set. */
GimpValueArray *gpuhist_gimp3_check_drawables (GimpProcedure *procedure, GimpDrawable **drawables,
                                               GpuhistRequest *request);
/* The weighting and source arguments, the same in every procedure that counts. */
void gpuhist_gimp3_add_weighting_and_source (GimpProcedure *procedure);
/* Runs the flow (flow.h) with the 3.0 host table: NULL when it counted (the caller returns the
 * report), else the values of the cancel or of the execution error. */
GimpValueArray *gpuhist_gimp3_flow (GimpProcedure *procedure, GpuhistRequest *request,
                                    GpuhistReport *report, gboolean *fetch_only);

/* plug-in-gpu-histogram, also as the resident procedure. */
void gpuhist_gimp3_add_histogram_arguments (GimpProcedure *procedure);
GimpValueArray *gpuhist_gimp3_run_histogram (GimpProcedure *procedure, GimpRunMode run_mode,
                                             GimpImage *image, GimpDrawable **drawables,
                                             GimpProcedureConfig *config, gpointer run_data);

/* GPUHIST_RESIDENT_EXTENSION's run: serves the resident procedures until GIMP quits. */
GimpValueArray *gpuhist_gimp3_run_resident (GimpProcedure *procedure, GimpProcedureConfig *config,
                                            gpointer run_data);
/* Runs the call in the resident process's procedure `resident_name` (the same arguments) when it
 * is there and free, returning its values; NULL: count in this process. */
GimpValueArray *gpuhist_gimp3_hand_over (GimpProcedure *procedure, const gchar *resident_name,
                                         GimpRunMode run_mode, GimpImage *image,
                                         GimpDrawable **drawables, GimpProcedureConfig *config);

/* plug-in-gpu-scopes, also as the resident procedure. */
GimpProcedure *gpuhist_gimp3_scopes_procedure (GimpPlugIn *plug_in);
void gpuhist_gimp3_add_scopes_arguments (GimpProcedure *procedure);
GimpValueArray *gpuhist_gimp3_run_scopes (GimpProcedure *procedure, GimpRunMode run_mode,
                                          GimpImage *image, GimpDrawable **drawables,
                                          GimpProcedureConfig *config, gpointer run_data);

G_END_DECLS

#endif /* GPUHIST_GLUE3_H */
