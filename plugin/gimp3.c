/* gpu-histogram: the GIMP 3.0 glue (libgimp-3.0).
 *
 * Registration (the GimpPlugIn subclass), argument marshalling (the procedure's config in, a
 * GimpValueArray out) and the GpuhistHost table of what 3.0 does its own way; the run itself is
 * flow.c's, the texts texts.h's.
 */
#include <string.h>

#include <libgimp/gimp.h>
#include <libgimp/gimpui.h>

#include <glib/gi18n-lib.h>

#include "engine-keeper.h"
#include "fetch-only.h"
#include "flow.h"
#include "host-common.h"
#include "report.h"
#include "texts.h"
#include "watch.h"

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
static GimpValueArray *gpuhist_plug_in_run (GimpProcedure *procedure, GimpRunMode run_mode,
                                            GimpImage *image, GimpDrawable **drawables,
                                            GimpProcedureConfig *config, gpointer run_data);
static GimpValueArray *gpuhist_plug_in_run_resident (GimpProcedure *procedure, GimpRunMode run_mode,
                                                     GimpImage *image, GimpDrawable **drawables,
                                                     GimpProcedureConfig *config,
                                                     gpointer run_data);
static GimpValueArray *hand_over (GimpProcedure *procedure, GimpRunMode run_mode, GimpImage *image,
                                  GimpDrawable **drawables, GimpProcedureConfig *config);
static GimpValueArray *resident_extension_run (GimpProcedure *procedure,
                                               GimpProcedureConfig *config, gpointer run_data);

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
  return g_list_append (g_list_append (NULL, g_strdup (PLUG_IN_PROC)),
                        g_strdup (GPUHIST_RESIDENT_EXTENSION));
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

/* The arguments and return values, the same for the resident procedure. */
static void
add_arguments (GimpProcedure *procedure)
{
  gimp_procedure_add_string_argument (procedure, "output-file", _ ("Output file"),
                                      _ (GPUHIST_ARG_OUTPUT_FILE_DOC), "", G_PARAM_READWRITE);
  gimp_procedure_add_int_argument (procedure, "repetitions", _ ("_Repetitions"),
                                   _ (GPUHIST_ARG_REPETITIONS_DOC), 0, GPUHIST_MAX_REPETITIONS,
                                   GPUHIST_DEFAULT_REPETITIONS, G_PARAM_READWRITE);
  gimp_procedure_add_boolean_argument (procedure, "linear", _ ("_Linear light"),
                                       _ (GPUHIST_ARG_LINEAR_DOC), FALSE, G_PARAM_READWRITE);
  /* bins takes any int, so that a wrong count is the plug-in's clear execution error. */
  gimp_procedure_add_int_argument (procedure, "bins", _ ("_Bins"), _ (GPUHIST_ARG_BINS_DOC),
                                   G_MININT, G_MAXINT, 256, G_PARAM_READWRITE);
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
  /* Not an argument (scripts have nothing to follow): the dialog's check box, kept with the
   * procedure's last values. */
  gimp_procedure_add_boolean_aux_argument (procedure, "follow", _ ("_Keep up with the image"),
                                           _ ("Count again by itself when the image changes"), TRUE,
                                           G_PARAM_READWRITE);

  gimp_procedure_add_int_return_value (procedure, "n-channels", "Channels",
                                       GPUHIST_RET_N_CHANNELS_DOC, 0, GPUHIST_MAX_COUNTED_CHANNELS,
                                       0, G_PARAM_READWRITE);
  gimp_procedure_add_double_array_return_value (
      procedure, "counts", "Counts",
      "Pixels per bin, the bins counted per channel (256 for 8-bit and indexed layers), channel "
      "by channel (weighted: doubles; exact integers when they are); Script-Fu in GIMP 3.0.4 "
      "crashes on 65536 values or more: "
      "use output-file there",
      G_PARAM_READWRITE);
  gimp_procedure_add_string_return_value (procedure, "backend", "Backend", GPUHIST_RET_BACKEND_DOC,
                                          "", G_PARAM_READWRITE);
  gimp_procedure_add_double_array_return_value (procedure, "timings", "Timings",
                                                GPUHIST_RET_TIMINGS_DOC, G_PARAM_READWRITE);
  gimp_procedure_add_string_array_return_value (procedure, "channel-names", "Channel names",
                                                GPUHIST_RET_CHANNEL_NAMES_DOC, G_PARAM_READWRITE);
}

static GimpProcedure *
gpuhist_plug_in_create_procedure (GimpPlugIn *plug_in, const gchar *name)
{
  GimpProcedure *procedure;

  if (strcmp (name, GPUHIST_RESIDENT_EXTENSION) == 0)
    {
      /* No arguments: GIMP starts it with itself (texts.h, GPUHIST_RESIDENT_EXTENSION). */
      procedure = gimp_procedure_new (plug_in, name, GIMP_PDB_PROC_TYPE_PERSISTENT,
                                      resident_extension_run, NULL, NULL);
      gimp_procedure_set_documentation (procedure, GPUHIST_RESIDENT_EXTENSION_BLURB,
                                        GPUHIST_RESIDENT_EXTENSION_HELP, name);
      gimp_procedure_set_attribution (procedure, GPUHIST_AUTHORS, GPUHIST_AUTHORS, "2026");
      return procedure;
    }
  if (strcmp (name, PLUG_IN_PROC) != 0)
    return NULL;

  procedure = gimp_image_procedure_new (plug_in, name, GIMP_PDB_PROC_TYPE_PLUGIN,
                                        gpuhist_plug_in_run, NULL, NULL);
  gimp_procedure_set_image_types (procedure, "*");
  gimp_procedure_set_sensitivity_mask (procedure, GIMP_PROCEDURE_SENSITIVE_DRAWABLE
                                                      | GIMP_PROCEDURE_SENSITIVE_DRAWABLES);
  gimp_procedure_set_menu_label (procedure, _ (GPUHIST_MENU_LABEL));
  gimp_procedure_add_menu_path (procedure, GPUHIST_MENU_PATH);
  set_icon (procedure);
  gimp_procedure_set_documentation (procedure, _ (GPUHIST_BLURB), _ (GPUHIST_HELP), PLUG_IN_PROC);
  gimp_procedure_set_attribution (procedure, GPUHIST_AUTHORS, GPUHIST_AUTHORS, "2025");
  add_arguments (procedure);
  return procedure;
}

/* --- the table of what GIMP 3.0 does its own way (flow.h) ---------------------------------- */

static gboolean
host_is_group (gpointer drawable)
{
  return gimp_item_is_group (GIMP_ITEM (drawable));
}

static gboolean
host_is_mask_or_channel (gpointer drawable)
{
  return gimp_item_is_channel (GIMP_ITEM (drawable))
         || gimp_item_is_layer_mask (GIMP_ITEM (drawable));
}

static gboolean
host_mask_intersect (gpointer drawable, GeglRectangle *area)
{
  return gimp_drawable_mask_intersect (drawable, &area->x, &area->y, &area->width, &area->height);
}

static gboolean
host_image_mask_bounds (gpointer drawable, GeglRectangle *area)
{
  GimpImage *image = gimp_item_get_image (GIMP_ITEM (drawable));
  gboolean non_empty = FALSE;
  gint x1, y1, x2, y2;

  if (!gimp_selection_bounds (image, &non_empty, &x1, &y1, &x2, &y2))
    return FALSE;
  *area = (GeglRectangle){ x1, y1, x2 - x1, y2 - y1 };
  return area->width > 0 && area->height > 0;
}

static GeglBuffer *
host_get_buffer (gpointer drawable)
{
  return gimp_drawable_get_buffer (drawable);
}

static GeglBuffer *
host_get_selection (gpointer drawable, int *offset_x, int *offset_y)
{
  GimpImage *image = gimp_item_get_image (GIMP_ITEM (drawable));

  if (gimp_selection_is_empty (image))
    return NULL;
  gimp_drawable_get_offsets (GIMP_DRAWABLE (drawable), offset_x, offset_y);
  return gimp_drawable_get_buffer (GIMP_DRAWABLE (gimp_image_get_selection (image)));
}

static gpointer
host_new_visible (gpointer drawable)
{
  GimpImage *image = gimp_item_get_image (GIMP_ITEM (drawable));
  GimpLayer **layers = gimp_image_get_layers (image);
  gboolean any = FALSE;

  for (gint i = 0; layers != NULL && layers[i] != NULL && !any; i++)
    any = gimp_item_get_visible (GIMP_ITEM (layers[i]));
  g_free (layers);
  if (!any)
    return NULL;
  /* Made in the image but never inserted: no undo step, nothing the user sees. */
  return gimp_layer_new_from_visible (image, image, "visible");
}

static void
host_delete_copy (gpointer layer)
{
  gimp_item_delete (GIMP_ITEM (layer));
}

static gpointer
host_copy_drawable (gpointer drawable)
{
  if (gimp_item_is_layer (GIMP_ITEM (drawable)))
    return gimp_layer_copy (GIMP_LAYER (drawable));
  return gimp_channel_copy (GIMP_CHANNEL (drawable));
}

static gpointer
host_copy_selection (gpointer drawable)
{
  GimpImage *image = gimp_item_get_image (GIMP_ITEM (drawable));

  if (gimp_selection_is_empty (image))
    return NULL;
  return gimp_channel_copy (GIMP_CHANNEL (gimp_image_get_selection (image)));
}

static gchar *
host_get_name (gpointer drawable)
{
  return gimp_item_get_name (GIMP_ITEM (drawable));
}

/* Between the measurement and the dialog: GIMP 3.0's progress bar ends and its UI starts. */
static void
host_init_ui (void)
{
  gimp_progress_end ();
  gimp_ui_init (PLUG_IN_BINARY);
}

static const GpuhistHost host = {
  host_is_group,
  host_is_mask_or_channel,
  host_mask_intersect,
  host_image_mask_bounds,
  host_get_buffer,
  host_get_selection,
  host_get_name,
  host_new_visible,
  host_delete_copy,
  host_copy_drawable,
  host_copy_selection,
  gpuhist_watch_image_of,
  gpuhist_watch_image_open,
  gpuhist_watch_active,
  gpuhist_watch_signature,
  gpuhist_host_progress_init,
  gpuhist_host_progress_update,
  gpuhist_host_message,
  host_init_ui,
  N_ ("The selected layer is a layer group: select a layer inside it, or merge the group, to "
      "count its pixels."),
};

/* --- running the procedure ----------------------------------------------------------------- */

static GimpValueArray *
error_values (GimpProcedure *procedure, GimpPDBStatusType status, GError *error)
{
  return gimp_procedure_new_return_values (procedure, status, error);
}

/* What the user left in the dialog becomes the procedure's config, which GIMP keeps for the next
 * interactive and last-values runs. */
static void
save_settings (const GpuhistSettings *settings, gpointer user_data)
{
  int repetitions, bins;

  gpuhist_host_settings_to_keep (settings, &repetitions, &bins);
  g_object_set (user_data, "repetitions", repetitions, "linear", settings->linear, "bins", bins,
                "weighting", settings->weighting == GPUHIST_WEIGHTING_PIXELS ? "pixels" : "gimp",
                "source", settings->source == GPUHIST_SOURCE_VISIBLE ? "visible" : "drawable",
                "follow", settings->follow, NULL);
}

static GimpValueArray *
report_values (GimpProcedure *procedure, const GpuhistReport *report, gboolean fetch_only)
{
  GimpValueArray *values = gimp_procedure_new_return_values (procedure, GIMP_PDB_SUCCESS, NULL);
  gint n_counts, n_timings;
  gdouble *counts = gpuhist_report_counts (report, &n_counts);
  gdouble *timings = gpuhist_flow_timings (report, fetch_only, &n_timings);
  const gchar *names[GPUHIST_MAX_COUNTED_CHANNELS + 1] = { NULL };

  for (gint i = 0; i < report->channels && i < GPUHIST_MAX_COUNTED_CHANNELS; i++)
    names[i] = report->channel_names[i];

  if (n_counts == 0) /* no counts (GPUHIST_FETCH_ONLY): GIMP's empty arrays take NULL data */
    g_clear_pointer (&counts, g_free);
  GIMP_VALUES_SET_INT (values, 1, report->channels);
  GIMP_VALUES_TAKE_DOUBLE_ARRAY (values, 2, counts, n_counts);
  GIMP_VALUES_SET_STRING (values, 3, report->layer.backend);
  GIMP_VALUES_TAKE_DOUBLE_ARRAY (values, 4, timings, n_timings);
  GIMP_VALUES_SET_STRV (values, 5, (const gchar **) names);
  return values;
}

/* The config's arguments; output_file is owned by the request's caller (g_free). */
static void
read_arguments (GimpRunMode run_mode, GimpProcedureConfig *config, GpuhistSettings *settings)
{
  gchar *output_file = NULL;
  gint repetitions = GPUHIST_DEFAULT_REPETITIONS;
  gboolean linear = FALSE;
  gint bins = GH_BINS;
  gboolean follow = TRUE;

  g_object_get (config, "output-file", &output_file, "repetitions", &repetitions, "linear", &linear,
                "bins", &bins, "follow", &follow, NULL);
  if (run_mode == GIMP_RUN_INTERACTIVE)
    g_clear_pointer (&output_file, g_free); /* the dialog exports on request */
  if (run_mode != GIMP_RUN_NONINTERACTIVE && !gpuhist_bins_valid (bins))
    bins = GH_BINS; /* a stale saved value: the flow says so for a script's wrong count */
  settings->repetitions = CLAMP (repetitions, 0, GPUHIST_MAX_REPETITIONS);
  settings->linear = linear;
  settings->bins = bins;
  settings->weighting = gimp_procedure_config_get_choice_id (config, "weighting");
  settings->source = gimp_procedure_config_get_choice_id (config, "source");
  /* GIMP 3.0's Histogram dockable and gimp-drawable-histogram sum babl's linear-light Y. */
  settings->luminance = GH_LUMINANCE_GIMP3;
  settings->follow = follow;
  if (output_file != NULL && output_file[0] == '\0')
    g_clear_pointer (&output_file, g_free);
  settings->output_file = output_file;
}

static GimpValueArray *
gpuhist_plug_in_run (GimpProcedure *procedure, GimpRunMode run_mode, GimpImage *image,
                     GimpDrawable **drawables, GimpProcedureConfig *config, gpointer run_data)
{
  GpuhistRequest request = { 0 };
  GpuhistReport report = { 0 };
  GError *error = NULL;
  GimpValueArray *values = NULL;
  gboolean fetch_only;

  (void) run_data;
  if (strcmp (gimp_procedure_get_name (procedure), PLUG_IN_PROC) == 0
      && (values = hand_over (procedure, run_mode, image, drawables, config)) != NULL)
    return values;

  request.n_drawables
      = drawables ? (int) gimp_core_object_array_get_length ((GObject **) drawables) : 0;
  if (request.n_drawables == 0)
    return error_values (procedure, GIMP_PDB_CALLING_ERROR,
                         g_error_new_literal (GPUHIST_ERROR, GPUHIST_ERROR_CALLING,
                                              _ ("Select a layer, layer mask or channel to "
                                                 "count.")));
  request.mode = gpuhist_host_run_mode (run_mode);
  request.drawable = drawables[0];
  read_arguments (run_mode, config, &request.settings);
  request.save_settings = save_settings;
  request.save_settings_data = config;

  switch (gpuhist_flow_run (&host, &request, &report, &fetch_only, &error))
    {
    case GPUHIST_FLOW_OK: values = report_values (procedure, &report, fetch_only); break;
    case GPUHIST_FLOW_CANCELLED:
      values = gimp_procedure_new_return_values (procedure, GIMP_PDB_CANCEL, NULL);
      break;
    case GPUHIST_FLOW_FAILED:
      values = error_values (procedure, GIMP_PDB_EXECUTION_ERROR, error);
      break;
    }
  gpuhist_report_clear (&report);
  g_free (request.settings.output_file);
  return values;
}

/* --- the resident process ------------------------------------------------------------------ */

/* GPUHIST_RESIDENT_EXTENSION: installs the resident procedure and serves it until GIMP quits,
 * letting the GPU go when it has been idle (engine-keeper.c). */
static GimpValueArray *
resident_extension_run (GimpProcedure *procedure, GimpProcedureConfig *config, gpointer run_data)
{
  GimpPlugIn *plug_in = gimp_procedure_get_plug_in (procedure);
  GimpProcedure *resident
      = gimp_image_procedure_new (plug_in, GPUHIST_RESIDENT_PROC, GIMP_PDB_PROC_TYPE_TEMPORARY,
                                  gpuhist_plug_in_run_resident, NULL, NULL);

  (void) config;
  (void) run_data;
  gimp_procedure_set_image_types (resident, "*");
  gimp_procedure_set_documentation (resident, GPUHIST_RESIDENT_PROC_BLURB,
                                    GPUHIST_RESIDENT_PROC_HELP, GPUHIST_RESIDENT_PROC);
  add_arguments (resident);
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
gpuhist_plug_in_run_resident (GimpProcedure *procedure, GimpRunMode run_mode, GimpImage *image,
                              GimpDrawable **drawables, GimpProcedureConfig *config,
                              gpointer run_data)
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
  values = gpuhist_plug_in_run (procedure, run_mode, image, drawables, config, run_data);
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

/* Runs in the resident process when it is there and free; NULL: count in this process. */
static GimpValueArray *
hand_over (GimpProcedure *procedure, GimpRunMode run_mode, GimpImage *image,
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
