/* gpu-histogram: the GIMP 2.10 glue (libgimp-2.0): registration, the plug-in's data folders and
 * which procedure runs.  The procedures' own files are listed in glue2.h; the run itself is
 * flow.c's, the texts texts.h's.
 */
#include <string.h>

#include <libgimp/gimp.h>

#include <glib/gi18n-lib.h>

#include "engine-keeper.h"
#include "glue2.h"
#include "texts.h"

static void query (void);
static void run (const gchar *name, gint n_params, const GimpParam *param, gint *n_return_vals,
                 GimpParam **return_vals);

const GimpPlugInInfo PLUG_IN_INFO = {
  NULL,  /* init_proc */
  NULL,  /* quit_proc */
  query, /* query_proc */
  run,   /* run_proc */
};

MAIN ()

/* The plug-in's data (locale/, icons/): in its own folder next to the executable, or in
 * plug-ins/gpu-histogram-data/ when the executable sits straight in plug-ins/.  NULL if neither. */
static gchar *
data_path (const gchar *name)
{
  gchar *dir = g_path_get_dirname (gimp_get_progname ());
  gchar *path = g_build_filename (dir, name, NULL);

  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_free (path);
      path = g_build_filename (dir, "gpu-histogram-data", name, NULL);
      if (!g_file_test (path, G_FILE_TEST_EXISTS))
        g_clear_pointer (&path, g_free);
    }
  g_free (dir);
  return path;
}

static gchar *
locale_dir (void)
{
  gchar *dir = data_path ("locale");

  return dir != NULL ? dir : g_strdup (LOCALEDIR);
}

void
gpuhist_gimp2_init_i18n (void)
{
  gchar *dir = locale_dir ();

  bindtextdomain (GETTEXT_PACKAGE, dir);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
  g_free (dir);
}

static void
query (void)
{
  gchar *locale = locale_dir ();
  gchar *icon = data_path ("icons" G_DIR_SEPARATOR_S GPUHIST_ICON_FILE);

  /* GIMP translates the menu label and blurb itself, with this domain and folder. */
  gimp_plugin_domain_register (GETTEXT_PACKAGE, locale);
  g_free (locale);

  gimp_install_procedure (PLUG_IN_PROC, GPUHIST_BLURB, GPUHIST_HELP, GPUHIST_AUTHORS,
                          GPUHIST_AUTHORS, "2025", GPUHIST_MENU_LABEL, "*", GIMP_PLUGIN,
                          gpuhist_gimp2_n_histogram_args, gpuhist_gimp2_n_histogram_return_vals,
                          gpuhist_gimp2_histogram_args, gpuhist_gimp2_histogram_return_vals);

  gimp_plugin_menu_register (PLUG_IN_PROC, GPUHIST_MENU_PATH);
  if (icon != NULL)
    gimp_plugin_icon_register (PLUG_IN_PROC, GIMP_ICON_TYPE_IMAGE_FILE, (const guint8 *) icon);
  g_free (icon);

  /* No arguments: GIMP starts it with itself (texts.h, GPUHIST_RESIDENT_EXTENSION). */
  gimp_install_procedure (GPUHIST_RESIDENT_EXTENSION, GPUHIST_RESIDENT_EXTENSION_BLURB,
                          GPUHIST_RESIDENT_EXTENSION_HELP, GPUHIST_AUTHORS, GPUHIST_AUTHORS, "2026",
                          NULL, NULL, GIMP_EXTENSION, 0, 0, NULL, NULL);
  gpuhist_gimp2_register_scopes ();
}

/* --- what the procedures share --------------------------------------------------------------- */

GimpParam *
gpuhist_gimp2_error_values (GimpPDBStatusType status, const gchar *message, gint *n_return_vals)
{
  static GimpParam values[2];
  static gchar *kept_message;

  g_free (kept_message);
  kept_message = g_strdup (message);
  values[0].type = GIMP_PDB_STATUS;
  values[0].data.d_status = status;
  values[1].type = GIMP_PDB_STRING;
  values[1].data.d_string = kept_message;
  *n_return_vals = 2;
  return values;
}

const gchar *
gpuhist_gimp2_check_drawable (gint32 drawable_id)
{
  if (!gimp_item_is_valid (drawable_id) || !gimp_item_is_drawable (drawable_id))
    return _ ("The drawable to count does not exist.");
  return NULL;
}

GimpParam *
gpuhist_gimp2_flow (GpuhistRequest *request, GpuhistReport *report, gboolean *fetch_only,
                    gint *n_return_vals)
{
  static GimpParam cancelled[1];
  GError *error = NULL;
  GimpParam *values = NULL;

  switch (gpuhist_flow_run (&gpuhist_gimp2_host, request, report, fetch_only, &error))
    {
    case GPUHIST_FLOW_OK: break;
    case GPUHIST_FLOW_CANCELLED:
      cancelled[0].type = GIMP_PDB_STATUS;
      cancelled[0].data.d_status = GIMP_PDB_CANCEL;
      *n_return_vals = 1;
      values = cancelled;
      break;
    case GPUHIST_FLOW_FAILED:
      values = gpuhist_gimp2_error_values (GIMP_PDB_EXECUTION_ERROR, error->message, n_return_vals);
      break;
    }
  g_clear_error (&error);
  return values;
}

/* --- which procedure runs -------------------------------------------------------------------- */

typedef GimpParam *(*ProcedureRun) (gint n_params, const GimpParam *param, gint *n_return_vals);

/* A run in the resident process: answered PASS_THROUGH while another one runs there (its
 * dialog open), so that the caller counts in its own process instead. */
static GimpParam *
run_resident_procedure (ProcedureRun procedure_run, gint n_params, const GimpParam *param,
                        gint *n_return_vals)
{
  static gboolean busy;
  static GimpParam pass_through[1];
  GimpParam *values;

  if (busy || gpuhist_keeper_resident_busy_for_tests ())
    {
      pass_through[0].type = GIMP_PDB_STATUS;
      pass_through[0].data.d_status = GIMP_PDB_PASS_THROUGH;
      *n_return_vals = 1;
      return pass_through;
    }
  busy = TRUE;
  values = procedure_run (n_params, param, n_return_vals);
  busy = FALSE;
  return values;
}

static void
run (const gchar *name, gint n_params, const GimpParam *param, gint *n_return_vals,
     GimpParam **return_vals)
{
  gboolean scopes
      = strcmp (name, GPUHIST_SCOPES_PROC) == 0 || strcmp (name, GPUHIST_SCOPES_RESIDENT_PROC) == 0;
  ProcedureRun procedure_run = scopes ? gpuhist_gimp2_run_scopes : gpuhist_gimp2_run_histogram;

  if (strcmp (name, GPUHIST_RESIDENT_EXTENSION) == 0)
    gpuhist_gimp2_run_resident (run); /* returns only when GIMP quits */
  else if (strcmp (name, GPUHIST_RESIDENT_PROC) == 0
           || strcmp (name, GPUHIST_SCOPES_RESIDENT_PROC) == 0)
    *return_vals = run_resident_procedure (procedure_run, n_params, param, n_return_vals);
  else if ((*return_vals = gpuhist_gimp2_hand_over (scopes ? GPUHIST_SCOPES_RESIDENT_PROC
                                                           : GPUHIST_RESIDENT_PROC,
                                                    n_params, param, n_return_vals))
           == NULL)
    *return_vals = procedure_run (n_params, param, n_return_vals);
}
