/* gpu-histogram: plug-in-gpu-scopes in GIMP 3.0: its arguments and return values.  For scripts
 * only (no menu entry, no dialog): every run mode counts with the arguments given. */
#include <string.h>

#include <libgimp/gimp.h>

#include <glib/gi18n-lib.h>

#include "glue3.h"
#include "report.h"
#include "texts.h"

void
gpuhist_gimp3_add_scopes_arguments (GimpProcedure *procedure)
{
  gimp_procedure_add_string_argument (procedure, "output-file", _ ("Output file"),
                                      _ (GPUHIST_SCOPES_ARG_OUTPUT_FILE_DOC), "",
                                      G_PARAM_READWRITE);
  /* Any int, so that a wrong count is the plug-in's clear execution error. */
  gimp_procedure_add_int_argument (procedure, "columns", _ ("Columns"),
                                   _ (GPUHIST_SCOPES_ARG_COLUMNS_DOC), G_MININT, G_MAXINT,
                                   GPUHIST_DEFAULT_COLUMNS, G_PARAM_READWRITE);
  gpuhist_gimp3_add_weighting_and_source (procedure);

  gimp_procedure_add_int_return_value (procedure, "n-channels", "Channels",
                                       GPUHIST_RET_N_CHANNELS_DOC, 0, GPUHIST_MAX_COUNTED_CHANNELS,
                                       0, G_PARAM_READWRITE);
  gimp_procedure_add_int_return_value (procedure, "columns", "Columns",
                                       GPUHIST_SCOPES_RET_COLUMNS_DOC, 0, G_MAXINT, 0,
                                       G_PARAM_READWRITE);
  gimp_procedure_add_int_return_value (procedure, "bins", "Bins", GPUHIST_SCOPES_RET_BINS_DOC, 0,
                                       G_MAXINT, 0, G_PARAM_READWRITE);
}

/* The settings of a scopes run from its config; output_file is the caller's to free. */
static void
read_arguments (GimpProcedureConfig *config, GpuhistSettings *settings)
{
  gchar *output_file = NULL;
  gint columns = GPUHIST_DEFAULT_COLUMNS;

  g_object_get (config, "output-file", &output_file, "columns", &columns, NULL);
  settings->repetitions = 0; /* the fastest method once, untimed */
  settings->bins = GPUHIST_SCOPES_BINS;
  settings->luminance = GH_LUMINANCE_GIMP3;
  settings->scopes = TRUE;
  settings->waveform_columns = columns;
  settings->weighting = gimp_procedure_config_get_choice_id (config, "weighting");
  settings->source = gimp_procedure_config_get_choice_id (config, "source");
  if (output_file != NULL && output_file[0] == '\0')
    g_clear_pointer (&output_file, g_free);
  settings->output_file = output_file;
}

GimpValueArray *
gpuhist_gimp3_run_scopes (GimpProcedure *procedure, GimpRunMode run_mode, GimpImage *image,
                          GimpDrawable **drawables, GimpProcedureConfig *config, gpointer run_data)
{
  GpuhistRequest request = { 0 };
  GpuhistReport report = { 0 };
  GimpValueArray *values;
  gboolean fetch_only;

  (void) run_data;
  if (strcmp (gimp_procedure_get_name (procedure), GPUHIST_SCOPES_PROC) == 0
      && (values = gpuhist_gimp3_hand_over (procedure, GPUHIST_SCOPES_RESIDENT_PROC, run_mode,
                                            image, drawables, config))
             != NULL)
    return values;
  if ((values = gpuhist_gimp3_check_drawables (procedure, drawables, &request)) != NULL)
    return values;
  request.mode = GPUHIST_MODE_NONINTERACTIVE;
  read_arguments (config, &request.settings);
  values = gpuhist_gimp3_flow (procedure, &request, &report, &fetch_only);
  if (values == NULL)
    {
      values = gimp_procedure_new_return_values (procedure, GIMP_PDB_SUCCESS, NULL);
      GIMP_VALUES_SET_INT (values, 1, report.channels);
      GIMP_VALUES_SET_INT (values, 2, report.layer.scopes[GH_SCOPE_WAVEFORM].columns);
      GIMP_VALUES_SET_INT (values, 3, report.layer.bins);
    }
  gpuhist_report_clear (&report);
  g_free (request.settings.output_file);
  return values;
}

GimpProcedure *
gpuhist_gimp3_scopes_procedure (GimpPlugIn *plug_in)
{
  GimpProcedure *procedure
      = gimp_image_procedure_new (plug_in, GPUHIST_SCOPES_PROC, GIMP_PDB_PROC_TYPE_PLUGIN,
                                  gpuhist_gimp3_run_scopes, NULL, NULL);

  gimp_procedure_set_image_types (procedure, "*");
  gimp_procedure_set_sensitivity_mask (procedure, GIMP_PROCEDURE_SENSITIVE_DRAWABLE
                                                      | GIMP_PROCEDURE_SENSITIVE_DRAWABLES);
  gimp_procedure_set_documentation (procedure, _ (GPUHIST_SCOPES_BLURB), _ (GPUHIST_SCOPES_HELP),
                                    GPUHIST_SCOPES_PROC);
  gimp_procedure_set_attribution (procedure, GPUHIST_AUTHORS, GPUHIST_AUTHORS, "2026");
  gpuhist_gimp3_add_scopes_arguments (procedure);
  return procedure;
}
