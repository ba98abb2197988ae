/* gpu-histogram: GIMP 2.10's resident process (texts.h, GPUHIST_RESIDENT_EXTENSION), and handing
 * plug-in-gpu-histogram's and plug-in-gpu-scopes's runs over to it. */
#include <libgimp/gimp.h>

#include "engine-keeper.h"
#include "fetch-only.h"
#include "glue2.h"
#include "texts.h"

/* GPUHIST_RESIDENT_EXTENSION: installs the resident procedures and serves them until GIMP quits,
 * letting the GPU go when it has been idle (engine-keeper.c). */
void
gpuhist_gimp2_run_resident (GimpRunProc run)
{
  gimp_install_temp_proc (GPUHIST_RESIDENT_PROC, GPUHIST_RESIDENT_PROC_BLURB,
                          GPUHIST_RESIDENT_PROC_HELP, GPUHIST_AUTHORS, GPUHIST_AUTHORS, "2026",
                          NULL, "*", GIMP_TEMPORARY, gpuhist_gimp2_n_histogram_args,
                          gpuhist_gimp2_n_histogram_return_vals, gpuhist_gimp2_histogram_args,
                          gpuhist_gimp2_histogram_return_vals, run);
  gpuhist_gimp2_install_scopes_resident (run);
  gpuhist_keeper_keep (gpuhist_keeper_idle_seconds ());
  /* Messages are also read while a run's dialog is open, so that another call is answered
   * (PASS_THROUGH) instead of waiting for the dialog to close. */
  gimp_extension_enable ();
  gimp_extension_ack ();
  for (;;)
    gimp_extension_process (gpuhist_keeper_release_idle ());
}

/* Owned copies of the resident procedure's return values, in values[]. */
static GimpParam *
take_return_values (const GimpParam *returned, gint n_returned, gint *n_return_vals)
{
  static GimpParam values[8];
  static gchar *error_message;
  static gchar *backend_line;
  static gchar *names_line;
  static gdouble *counts_array;
  static gdouble *timings_array;
  gint n = MIN (n_returned, (gint) G_N_ELEMENTS (values));
  gint length = 0;

  g_clear_pointer (&error_message, g_free);
  g_clear_pointer (&backend_line, g_free);
  g_clear_pointer (&names_line, g_free);
  g_clear_pointer (&counts_array, g_free);
  g_clear_pointer (&timings_array, g_free);
  /* One string (the backend, or the error's message) and up to two arrays (counts, timings). */
  gchar **string_owner
      = n > 0 && returned[0].data.d_status == GIMP_PDB_SUCCESS ? &backend_line : &error_message;

  for (gint i = 0; i < n; i++)
    {
      values[i] = returned[i];
      switch (returned[i].type)
        {
        case GIMP_PDB_INT32:
          length = returned[i].data.d_int32; /* the next array's length */
          break;
        case GIMP_PDB_STRING: /* the backend or the error, then the channel names */
          values[i].data.d_string = g_strdup (returned[i].data.d_string);
          if (*string_owner == NULL)
            *string_owner = values[i].data.d_string;
          else
            names_line = values[i].data.d_string;
          break;
        case GIMP_PDB_FLOATARRAY:
          values[i].data.d_floatarray
              = g_memdup2 (returned[i].data.d_floatarray, sizeof (gdouble) * MAX (length, 0));
          *(counts_array == NULL ? &counts_array : &timings_array) = values[i].data.d_floatarray;
          break;
        default: break;
        }
    }
  *n_return_vals = n;
  return values;
}

GimpParam *
gpuhist_gimp2_hand_over (const gchar *resident, gint n_params, const GimpParam *param,
                         gint *n_return_vals)
{
  GimpParam *returned, *values;
  gint n_returned = 0;
  GimpPDBStatusType status;

  if (n_params < 3 || !gpuhist_keeper_resident_enabled ()
      || (param[0].data.d_int32 == GIMP_RUN_NONINTERACTIVE && gpuhist_fetch_only_stays ())
      || !gimp_procedural_db_proc_exists (resident))
    return NULL;
  /* Its errors are this procedure's: GIMP shows them once, when they are returned from here. */
  gimp_plugin_set_pdb_error_handler (GIMP_PDB_ERROR_HANDLER_PLUGIN);
  returned = gimp_run_procedure2 (resident, &n_returned, n_params, param);
  gimp_plugin_set_pdb_error_handler (GIMP_PDB_ERROR_HANDLER_INTERNAL);
  status = n_returned > 0 ? returned[0].data.d_status : GIMP_PDB_EXECUTION_ERROR;
  /* Busy, or gone (it crashed: GIMP removed its procedure): count here instead. */
  if (status == GIMP_PDB_PASS_THROUGH
      || (status != GIMP_PDB_SUCCESS && !gimp_procedural_db_proc_exists (resident)))
    {
      gimp_destroy_params (returned, n_returned);
      return NULL;
    }
  values = take_return_values (returned, n_returned, n_return_vals);
  gimp_destroy_params (returned, n_returned);
  return values;
}
