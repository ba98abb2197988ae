/* gpu-histogram: GIMP 3.0's resident process (texts.h, GPUHIST_RESIDENT_EXTENSION), and handing
 * plug-in-gpu-histogram's runs over to it. */
#include <libgimp/gimp.h>

#include "engine-keeper.h"
#include "fetch-only.h"
#include "glue3.h"
#include "texts.h"

static GimpValueArray *run_resident_procedure (GimpProcedure *procedure, GimpRunMode run_mode,
                                               GimpImage *image, GimpDrawable **drawables,
                                               GimpProcedureConfig *config, gpointer run_data);

/* GPUHIST_RESIDENT_EXTENSION: installs the resident procedure and serves it until GIMP quits,
 * letting the GPU go when it has been idle (engine-keeper.c). */
GimpValueArray *
gpuhist_gimp3_run_resident (GimpProcedure *procedure, GimpProcedureConfig *config,
                            gpointer run_data)
{
  GimpPlugIn *plug_in = gimp_procedure_get_plug_in (procedure);
  GimpProcedure *resident
      = gimp_image_procedure_new (plug_in, GPUHIST_RESIDENT_PROC, GIMP_PDB_PROC_TYPE_TEMPORARY,
                                  run_resident_procedure, NULL, NULL);

  (void) config;
  (void) run_data;
  gimp_procedure_set_image_types (resident, "*");
  gimp_procedure_set_documentation (resident, GPUHIST_RESIDENT_PROC_BLURB,
                                    GPUHIST_RESIDENT_PROC_HELP, GPUHIST_RESIDENT_PROC);
  gpuhist_gimp3_add_histogram_arguments (resident);
  gimp_plug_in_add_temp_procedure (plug_in, resident);
  g_object_unref (resident);

  gpuhist_keeper_keep (gpuhist_keeper_idle_seconds ());
  /* Messages are also read while a run's dialog is open, so that another call is answered
   * (PASS_THROUGH) instead of waiting for the dialog to close. */
  gimp_procedure_persistent_ready (procedure);
  gimp_plug_in_persistent_enable (plug_in);
  for (;;)
    gimp_plug_in_persistent_process (plug_in, gpuhist_keeper_release_idle ());
  return gimp_procedure_new_return_values (procedure, GIMP_PDB_SUCCESS, NULL);
}

static GimpValueArray *
run_resident_procedure (GimpProcedure *procedure, GimpRunMode run_mode, GimpImage *image,
                        GimpDrawable **drawables, GimpProcedureConfig *config, gpointer run_data)
{
  static gboolean busy;
  GimpValueArray *values;

  /* GIMP 3.0's libgimp refuses PASS_THROUGH from a plug-in's procedure (an assertion, and the
   * caller got an error without a message instead of counting), so busy is an error that says
   * so (resident_was_busy). */
  if (busy || gpuhist_keeper_resident_busy_for_tests ())
    return gimp_procedure_new_return_values (
        procedure, GIMP_PDB_EXECUTION_ERROR,
        g_error_new_literal (GIMP_PLUG_IN_ERROR, 0, GPUHIST_RESIDENT_BUSY));
  busy = TRUE;
  values = gpuhist_gimp3_run_histogram (procedure, run_mode, image, drawables, config, run_data);
  busy = FALSE;
  return values;
}

static gboolean
resident_was_busy (GimpValueArray *values)
{
  return GIMP_VALUES_GET_ENUM (values, 0) == GIMP_PDB_EXECUTION_ERROR
         && gimp_value_array_length (values) > 1
         && G_VALUE_HOLDS_STRING (gimp_value_array_index (values, 1))
         && g_strcmp0 (GIMP_VALUES_GET_STRING (values, 1), GPUHIST_RESIDENT_BUSY) == 0;
}

GimpValueArray *
gpuhist_gimp3_hand_over (GimpProcedure *procedure, GimpRunMode run_mode, GimpImage *image,
                         GimpDrawable **drawables, GimpProcedureConfig *config)
{
  GimpPlugIn *plug_in = gimp_procedure_get_plug_in (procedure);
  GimpPDB *pdb = gimp_get_pdb ();
  GimpProcedure *resident;
  GimpProcedureConfig *resident_config;
  GimpValueArray *values;
  GimpPDBStatusType status;
  gchar *output_file = NULL;
  gchar *weighting = NULL;
  gchar *source = NULL;
  gint repetitions = GPUHIST_DEFAULT_REPETITIONS, bins = GH_BINS;
  gboolean linear = FALSE;

  if (!gpuhist_keeper_resident_enabled ()
      || (run_mode == GIMP_RUN_NONINTERACTIVE && gpuhist_fetch_only_requested ())
      || !gimp_pdb_procedure_exists (pdb, GPUHIST_RESIDENT_PROC))
    return NULL;
  resident = gimp_pdb_lookup_procedure (pdb, GPUHIST_RESIDENT_PROC);
  resident_config = gimp_procedure_create_config (resident);
  g_object_get (config, "output-file", &output_file, "repetitions", &repetitions, "linear", &linear,
                "bins", &bins, "weighting", &weighting, "source", &source, NULL);
  g_object_set (resident_config, "run-mode", run_mode, "image", image, "drawables", drawables,
                "output-file", output_file, "repetitions", repetitions, "linear", linear, "bins",
                bins, "weighting", weighting, "source", source, NULL);
  g_free (output_file);
  g_free (weighting);
  g_free (source);

  /* Its errors are this procedure's: GIMP shows them once, when they are returned from here. */
  gimp_plug_in_set_pdb_error_handler (plug_in, GIMP_PDB_ERROR_HANDLER_PLUGIN);
  values = gimp_procedure_run_config (resident, resident_config);
  gimp_plug_in_set_pdb_error_handler (plug_in, GIMP_PDB_ERROR_HANDLER_INTERNAL);
  g_object_unref (resident_config);

  status = GIMP_VALUES_GET_ENUM (values, 0);
  /* Busy, or gone (it crashed: GIMP removed its procedure): count here instead. */
  if (resident_was_busy (values)
      || (status != GIMP_PDB_SUCCESS && !gimp_pdb_procedure_exists (pdb, GPUHIST_RESIDENT_PROC)))
    g_clear_pointer (&values, gimp_value_array_unref);
  return values;
}
