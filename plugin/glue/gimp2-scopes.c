/* gpu-histogram: plug-in-gpu-scopes in GIMP 2.10: its arguments and return values.  For scripts
 * only (no menu entry, no dialog): every run mode counts with the arguments given. */
#include <libgimp/gimp.h>

#include <glib/gi18n-lib.h>

#include "glue2.h"
#include "host-common.h"
#include "report.h"
#include "texts.h"

static const GimpParamDef scopes_args[] = {
  { GIMP_PDB_INT32, "run-mode", "The run mode { RUN-INTERACTIVE (0), RUN-NONINTERACTIVE (1) }" },
  { GIMP_PDB_IMAGE, "image", "Input image" },
  { GIMP_PDB_DRAWABLE, "drawable", "The layer, layer mask or channel to count" },
  { GIMP_PDB_STRING, "output-file", GPUHIST_SCOPES_ARG_OUTPUT_FILE_DOC },
  { GIMP_PDB_INT32, "columns", GPUHIST_SCOPES_ARG_COLUMNS_DOC },
  { GIMP_PDB_INT32, "weighting",
    "0 = gimp (as GIMP's histogram: selection coverage and alpha), 1 = pixels (whole pixels where "
    "the selection covers at least half, alpha ignored)" },
  { GIMP_PDB_INT32, "source",
    "0 = drawable, 1 = visible (the image as shown, every visible layer)" },
};
static const GimpParamDef scopes_return_vals[] = {
  { GIMP_PDB_INT32, "n-channels", GPUHIST_RET_N_CHANNELS_DOC },
  { GIMP_PDB_INT32, "columns", GPUHIST_SCOPES_RET_COLUMNS_DOC },
  { GIMP_PDB_INT32, "bins", GPUHIST_SCOPES_RET_BINS_DOC },
};

void
gpuhist_gimp2_register_scopes (void)
{
  gimp_install_procedure (GPUHIST_SCOPES_PROC, GPUHIST_SCOPES_BLURB, GPUHIST_SCOPES_HELP,
                          GPUHIST_AUTHORS, GPUHIST_AUTHORS, "2026", NULL, "*", GIMP_PLUGIN,
                          G_N_ELEMENTS (scopes_args), G_N_ELEMENTS (scopes_return_vals),
                          scopes_args, scopes_return_vals);
}

void
gpuhist_gimp2_install_scopes_resident (GimpRunProc run)
{
  gimp_install_temp_proc (GPUHIST_SCOPES_RESIDENT_PROC, GPUHIST_SCOPES_RESIDENT_PROC_BLURB,
                          GPUHIST_SCOPES_RESIDENT_PROC_HELP, GPUHIST_AUTHORS, GPUHIST_AUTHORS,
                          "2026", NULL, "*", GIMP_TEMPORARY, G_N_ELEMENTS (scopes_args),
                          G_N_ELEMENTS (scopes_return_vals), scopes_args, scopes_return_vals, run);
}

/* The settings of a scopes run from its arguments; the flow checks weighting and source. */
static void
read_arguments (gint n_params, const GimpParam *param, GpuhistSettings *settings)
{
  const gchar *output_file = n_params > 3 ? param[3].data.d_string : NULL;

  settings->repetitions = 0; /* the fastest method once, untimed */
  settings->bins = GPUHIST_SCOPES_BINS;
  settings->luminance = GH_LUMINANCE_GIMP2;
  settings->scopes = TRUE;
  settings->waveform_columns = n_params > 4 ? param[4].data.d_int32 : GPUHIST_DEFAULT_COLUMNS;
  settings->weighting = n_params > 5 ? param[5].data.d_int32 : GPUHIST_WEIGHTING_GIMP;
  settings->source = n_params > 6 ? param[6].data.d_int32 : GPUHIST_SOURCE_DRAWABLE;
  settings->output_file = output_file != NULL && output_file[0] ? (gchar *) output_file : NULL;
}

GimpParam *
gpuhist_gimp2_run_scopes (gint n_params, const GimpParam *param, gint *n_return_vals)
{
  static GimpParam values[4];
  GpuhistRequest request = { 0 };
  GpuhistReport report = { 0 };
  const gchar *calling_error;
  GimpParam *failed;
  gboolean fetch_only;

  gpuhist_gimp2_init_i18n ();
  if (n_params < 3)
    return gpuhist_gimp2_error_values (
        GIMP_PDB_CALLING_ERROR,
        _ ("plug-in-gpu-scopes needs at least run-mode, image and drawable."), n_return_vals);
  calling_error = gpuhist_gimp2_check_drawable (param[2].data.d_drawable);
  if (calling_error != NULL)
    return gpuhist_gimp2_error_values (GIMP_PDB_CALLING_ERROR, calling_error, n_return_vals);

  request.mode = GPUHIST_MODE_NONINTERACTIVE;
  request.drawable = GINT_TO_POINTER (param[2].data.d_drawable);
  request.n_drawables = 1;
  read_arguments (n_params, param, &request.settings);
  failed = gpuhist_gimp2_flow (&request, &report, &fetch_only, n_return_vals);
  if (failed != NULL)
    return failed;

  values[0].type = GIMP_PDB_STATUS;
  values[0].data.d_status = GIMP_PDB_SUCCESS;
  values[1].type = GIMP_PDB_INT32;
  values[1].data.d_int32 = report.channels;
  values[2].type = GIMP_PDB_INT32;
  values[2].data.d_int32 = report.layer.scopes[GH_SCOPE_WAVEFORM].columns;
  values[3].type = GIMP_PDB_INT32;
  values[3].data.d_int32 = report.layer.bins;
  *n_return_vals = 4;
  gpuhist_report_clear (&report);
  return values;
}
