/* gpu-histogram: GIMP 3.0's resident process (texts.h, GPUHIST_RESIDENT_EXTENSION), and handing
 * plug-in-gpu-histogram's and plug-in-gpu-scopes's runs over to it. */
#include <libgimp/gimp.h>

#include "engine-keeper.h"
#include "fetch-only.h"
#include "glue3.h"
#include "texts.h"

/* One run in the resident process at a time (its dialog may be open): GIMP 3.0's libgimp
 * refuses PASS_THROUGH from a plug-in's procedure (an assertion, and the caller got an error
 * without a message instead of counting), so busy is an error that says so
 * (resident_was_busy). */
static gboolean busy;

static GimpValueArray *
busy_values (GimpProcedure *procedure)
{
  return gimp_procedure_new_return_values (
      procedure, GIMP_PDB_EXECUTION_ERROR,
      g_error_new_literal (GIMP_PLUG_IN_ERROR, 0, GPUHIST_RESIDENT_BUSY));
}

/* A resident procedure's run: the procedure it stands in for (its run function in run_data)
 * runs unless another run is under way here. */
typedef struct
{
  GimpRunImageFunc run;
} StandIn;

static GimpValueArray *
run_resident (GimpProcedure *procedure, GimpRunMode run_mode, GimpImage *image,
              GimpDrawable **drawables, GimpProcedureConfig *config, gpointer run_data)
{
  const StandIn *stand_in = run_data;
  GimpValueArray *values;

  if (busy || gpuhist_keeper_resident_busy_for_tests ())
    return busy_values (procedure);
  busy = TRUE;
  values = stand_in->run (procedure, run_mode, image, drawables, config, NULL);
  busy = FALSE;
  return values;
}

/* A temporary procedure of the resident process, with the arguments of the one it stands in for. */
static void
add_resident (GimpPlugIn *plug_in, const gchar *name, const gchar *blurb, const gchar *help,
              const StandIn *stand_in, void (*add_arguments) (GimpProcedure *procedure))
{
  GimpProcedure *resident = gimp_image_procedure_new (plug_in, name, GIMP_PDB_PROC_TYPE_TEMPORARY,
                                                      run_resident, (gpointer) stand_in, NULL);

  gimp_procedure_set_image_types (resident, "*");
  gimp_procedure_set_documentation (resident, blurb, help, name);
  add_arguments (resident);
  gimp_plug_in_add_temp_procedure (plug_in, resident);
  g_object_unref (resident);
}

/* GPUHIST_RESIDENT_EXTENSION: installs the resident procedures and serves them until GIMP quits,
 * letting the GPU go when it has been idle (engine-keeper.c). */
GimpValueArray *
gpuhist_gimp3_run_resident (GimpProcedure *procedure, GimpProcedureConfig *config,
                            gpointer run_data)
{
  static const StandIn histogram = { gpuhist_gimp3_run_histogram };
  static const StandIn scopes = { gpuhist_gimp3_run_scopes };
  GimpPlugIn *plug_in = gimp_procedure_get_plug_in (procedure);

  (void) config;
  (void) run_data;
  add_resident (plug_in, GPUHIST_RESIDENT_PROC, GPUHIST_RESIDENT_PROC_BLURB,
                GPUHIST_RESIDENT_PROC_HELP, &histogram, gpuhist_gimp3_add_histogram_arguments);
  add_resident (plug_in, GPUHIST_SCOPES_RESIDENT_PROC, GPUHIST_SCOPES_RESIDENT_PROC_BLURB,
                GPUHIST_SCOPES_RESIDENT_PROC_HELP, &scopes, gpuhist_gimp3_add_scopes_arguments);

  gpuhist_keeper_keep (gpuhist_keeper_idle_seconds ());
  /* Messages are also read while a run's dialog is open, so that another call is answered
   * (busy) instead of waiting for the dialog to close. */
  gimp_procedure_persistent_ready (procedure);
  gimp_plug_in_persistent_enable (plug_in);
  for (;;)
    gimp_plug_in_persistent_process (plug_in, gpuhist_keeper_release_idle ());
  return gimp_procedure_new_return_values (procedure, GIMP_PDB_SUCCESS, NULL);
}

static gboolean
resident_was_busy (GimpValueArray *values)
{
  return GIMP_VALUES_GET_ENUM (values, 0) == GIMP_PDB_EXECUTION_ERROR
         && gimp_value_array_length (values) > 1
         && G_VALUE_HOLDS_STRING (gimp_value_array_index (values, 1))
         && g_strcmp0 (GIMP_VALUES_GET_STRING (values, 1), GPUHIST_RESIDENT_BUSY) == 0;
}

/* The procedure's own arguments (after run-mode, image and drawables) into the resident
 * procedure's config, which has the same ones. */
static void
copy_arguments (GimpProcedure *procedure, GimpProcedureConfig *from, GimpProcedureConfig *to)
{
  gint n = 0;
  GParamSpec **specs = gimp_procedure_get_arguments (procedure, &n);

  for (gint i = 0; i < n; i++)
    {
      const gchar *name = g_param_spec_get_name (specs[i]);
      GValue value = G_VALUE_INIT;

      if (g_strcmp0 (name, "run-mode") == 0 || g_strcmp0 (name, "image") == 0
          || g_strcmp0 (name, "drawables") == 0)
        continue;
      g_value_init (&value, G_PARAM_SPEC_VALUE_TYPE (specs[i]));
      g_object_get_property (G_OBJECT (from), name, &value);
      g_object_set_property (G_OBJECT (to), name, &value);
      g_value_unset (&value);
    }
}

GimpValueArray *
gpuhist_gimp3_hand_over (GimpProcedure *procedure, const gchar *resident_name, GimpRunMode run_mode,
                         GimpImage *image, GimpDrawable **drawables, GimpProcedureConfig *config)
{
  GimpPlugIn *plug_in = gimp_procedure_get_plug_in (procedure);
  GimpPDB *pdb = gimp_get_pdb ();
  GimpProcedure *resident;
  GimpProcedureConfig *resident_config;
  GimpValueArray *values;
  GimpPDBStatusType status;

  if (!gpuhist_keeper_resident_enabled ()
      || (run_mode == GIMP_RUN_NONINTERACTIVE && gpuhist_fetch_only_stays ())
      || !gimp_pdb_procedure_exists (pdb, resident_name))
    return NULL;
  resident = gimp_pdb_lookup_procedure (pdb, resident_name);
  resident_config = gimp_procedure_create_config (resident);
  copy_arguments (procedure, config, resident_config);
  g_object_set (resident_config, "run-mode", run_mode, "image", image, "drawables", drawables,
                NULL);

  /* Its errors are this procedure's: GIMP shows them once, when they are returned from here. */
  gimp_plug_in_set_pdb_error_handler (plug_in, GIMP_PDB_ERROR_HANDLER_PLUGIN);
  values = gimp_procedure_run_config (resident, resident_config);
  gimp_plug_in_set_pdb_error_handler (plug_in, GIMP_PDB_ERROR_HANDLER_INTERNAL);
  g_object_unref (resident_config);

  status = GIMP_VALUES_GET_ENUM (values, 0);
  /* Busy, or gone (it crashed: GIMP removed its procedure): count here instead. */
  if (resident_was_busy (values)
      || (status != GIMP_PDB_SUCCESS && !gimp_pdb_procedure_exists (pdb, resident_name)))
    g_clear_pointer (&values, gimp_value_array_unref);
  return values;
}
