/* gpu-histogram: the GIMP 3.0 glue (libgimp-3.0): registration (the GimpPlugIn subclass), the
 * plug-in's data folders, and what the procedures share.  The procedures' own files are listed in
 * glue3.h; the run itself is flow.c's, the texts texts.h's.
 */
#include <string.h>

#include <libgimp/gimp.h>
#include <libgimp/gimpui.h>

#include <glib/gi18n-lib.h>

#include "glue3.h"
#include "texts.h"

typedef struct _GpuhistPlugIn GpuhistPlugIn;
typedef struct _GpuhistPlugInClass GpuhistPlugInClass;

struct _GpuhistPlugIn
{
  GimpPlugIn parent_instance;
};

struct _GpuhistPlugInClass
{
  GimpPlugInClass parent_class;
};

#define GPUHIST_TYPE_PLUG_IN (gpuhist_plug_in_get_type ())

GType gpuhist_plug_in_get_type (void) G_GNUC_CONST;

static GList *gpuhist_plug_in_query_procedures (GimpPlugIn *plug_in);
static GimpProcedure *gpuhist_plug_in_create_procedure (GimpPlugIn *plug_in, const gchar *name);
static gboolean gpuhist_plug_in_set_i18n (GimpPlugIn *plug_in, const gchar *procedure_name,
                                          gchar **gettext_domain, gchar **catalog_dir);
G_DEFINE_TYPE (GpuhistPlugIn, gpuhist_plug_in, GIMP_TYPE_PLUG_IN)

GIMP_MAIN (GPUHIST_TYPE_PLUG_IN)

static void
gpuhist_plug_in_class_init (GpuhistPlugInClass *klass)
{
  GimpPlugInClass *plug_in_class = GIMP_PLUG_IN_CLASS (klass);

  plug_in_class->query_procedures = gpuhist_plug_in_query_procedures;
  plug_in_class->create_procedure = gpuhist_plug_in_create_procedure;
  plug_in_class->set_i18n = gpuhist_plug_in_set_i18n;
}

static void
gpuhist_plug_in_init (GpuhistPlugIn *plug_in)
{
  (void) plug_in;
}

static GList *
gpuhist_plug_in_query_procedures (GimpPlugIn *plug_in)
{
  (void) plug_in;
  return g_list_append (g_list_append (g_list_append (NULL, g_strdup (PLUG_IN_PROC)),
                                       g_strdup (GPUHIST_RESIDENT_EXTENSION)),
                        g_strdup (GPUHIST_SCOPES_PROC));
}

/* The message catalogs: the gpu-histogram domain, in the plug-in folder's locale/.  Until
 * translations are installed there, localization is off (quietly: GIMP would otherwise warn on
 * every start). */
static gboolean
gpuhist_plug_in_set_i18n (GimpPlugIn *plug_in, const gchar *procedure_name, gchar **gettext_domain,
                          gchar **catalog_dir)
{
  gchar *folder = g_path_get_dirname (gimp_get_progname ());
  gchar *locale = g_build_filename (folder, "locale", NULL);
  gboolean found = g_file_test (locale, G_FILE_TEST_IS_DIR);

  (void) plug_in;
  (void) procedure_name;
  g_free (locale);
  g_free (folder);
  if (!found)
    return FALSE;
  *gettext_domain = g_strdup (GETTEXT_PACKAGE);
  *catalog_dir = NULL; /* GIMP's default: the plug-in folder's locale/, as an absolute path */
  return TRUE;
}

/* The icon installed beside the plug-in (icons/meson.build), when it is there. */
static void
set_icon (GimpProcedure *procedure)
{
  gchar *folder = g_path_get_dirname (gimp_get_progname ());
  gchar *icon = g_build_filename (folder, "icons", GPUHIST_ICON_FILE, NULL);

  if (g_file_test (icon, G_FILE_TEST_IS_REGULAR))
    {
      GFile *file = g_file_new_for_path (icon);

      gimp_procedure_set_icon_file (procedure, file);
      g_object_unref (file);
    }
  g_free (icon);
  g_free (folder);
}

static GimpProcedure *
gpuhist_plug_in_create_procedure (GimpPlugIn *plug_in, const gchar *name)
{
  GimpProcedure *procedure;

  if (strcmp (name, GPUHIST_RESIDENT_EXTENSION) == 0)
    {
      /* No arguments: GIMP starts it with itself (texts.h, GPUHIST_RESIDENT_EXTENSION). */
      procedure = gimp_procedure_new (plug_in, name, GIMP_PDB_PROC_TYPE_PERSISTENT,
                                      gpuhist_gimp3_run_resident, NULL, NULL);
      gimp_procedure_set_documentation (procedure, GPUHIST_RESIDENT_EXTENSION_BLURB,
                                        GPUHIST_RESIDENT_EXTENSION_HELP, name);
      gimp_procedure_set_attribution (procedure, GPUHIST_AUTHORS, GPUHIST_AUTHORS, "2026");
      return procedure;
    }
  if (strcmp (name, GPUHIST_SCOPES_PROC) == 0)
    return gpuhist_gimp3_scopes_procedure (plug_in);
  if (strcmp (name, PLUG_IN_PROC) != 0)
    return NULL;

  procedure = gimp_image_procedure_new (plug_in, name, GIMP_PDB_PROC_TYPE_PLUGIN,
                                        gpuhist_gimp3_run_histogram, NULL, NULL);
  gimp_procedure_set_image_types (procedure, "*");
  gimp_procedure_set_sensitivity_mask (procedure, GIMP_PROCEDURE_SENSITIVE_DRAWABLE
                                                      | GIMP_PROCEDURE_SENSITIVE_DRAWABLES);
  gimp_procedure_set_menu_label (procedure, _ (GPUHIST_MENU_LABEL));
  gimp_procedure_add_menu_path (procedure, GPUHIST_MENU_PATH);
  set_icon (procedure);
  gimp_procedure_set_documentation (procedure, _ (GPUHIST_BLURB), _ (GPUHIST_HELP), PLUG_IN_PROC);
  gimp_procedure_set_attribution (procedure, GPUHIST_AUTHORS, GPUHIST_AUTHORS, "2025");
  gpuhist_gimp3_add_histogram_arguments (procedure);
  return procedure;
}

/* --- what the procedures share --------------------------------------------------------------- */

void
gpuhist_gimp3_add_weighting_and_source (GimpProcedure *procedure)
{
  gimp_procedure_add_choice_argument (
      procedure, "weighting", _ ("Weighting"), _ (GPUHIST_ARG_WEIGHTING_DOC),
      gimp_choice_new_with_values ("gimp", GPUHIST_WEIGHTING_GIMP, _ ("As GIMP counts"), NULL,
                                   "pixels", GPUHIST_WEIGHTING_PIXELS, _ ("Whole pixels"), NULL,
                                   NULL),
      "gimp", G_PARAM_READWRITE);
  gimp_procedure_add_choice_argument (
      procedure, "source", _ ("Source"), _ (GPUHIST_ARG_SOURCE_DOC),
      gimp_choice_new_with_values ("drawable", GPUHIST_SOURCE_DRAWABLE, _ ("The drawable"), NULL,
                                   "visible", GPUHIST_SOURCE_VISIBLE, _ ("The visible image"), NULL,
                                   NULL),
      "drawable", G_PARAM_READWRITE);
}

GimpValueArray *
gpuhist_gimp3_check_drawables (GimpProcedure *procedure, GimpDrawable **drawables,
                               GpuhistRequest *request)
{
  request->n_drawables
      = drawables ? (int) gimp_core_object_array_get_length ((GObject **) drawables) : 0;
  if (request->n_drawables == 0)
    return gimp_procedure_new_return_values (
        procedure, GIMP_PDB_CALLING_ERROR,
        g_error_new_literal (GPUHIST_ERROR, GPUHIST_ERROR_CALLING,
                             _ ("Select a layer, layer mask or channel to count.")));
  request->drawable = drawables[0];
  return NULL;
}

GimpValueArray *
gpuhist_gimp3_flow (GimpProcedure *procedure, GpuhistRequest *request, GpuhistReport *report,
                    gboolean *fetch_only)
{
  GError *error = NULL;

  switch (gpuhist_flow_run (&gpuhist_gimp3_host, request, report, fetch_only, &error))
    {
    case GPUHIST_FLOW_OK: return NULL;
    case GPUHIST_FLOW_CANCELLED:
      return gimp_procedure_new_return_values (procedure, GIMP_PDB_CANCEL, NULL);
    case GPUHIST_FLOW_FAILED: break;
    }
  return gimp_procedure_new_return_values (procedure, GIMP_PDB_EXECUTION_ERROR, error);
}
