/* gpu-histogram: the GIMP 2.10 glue (libgimp-2.0).
 *
 * Registration, argument marshalling (in 2.10 each returned array is preceded by its length)
 * and the GpuhistHost table of what 2.10 does its own way; the run itself is flow.c's, the texts
 * texts.h's.
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

/* What GIMP_RUN_WITH_LAST_VALS repeats (stored with gimp_set_data). */
typedef struct
{
  gint32 repetitions;
  gint32 linear;
  gchar output_file[1024];
  gint32 bins; /* after the older fields, so that values saved before it existed still read */
  gint32 weighting;
  gint32 source;
  gint32 follow; /* the dialog's Follow the image */
} SavedValues;

static void query (void);
static void run (const gchar *name, gint n_params, const GimpParam *param, gint *n_return_vals,
                 GimpParam **return_vals);
static void run_histogram (gint n_params, const GimpParam *param, gint *n_return_vals);

const GimpPlugInInfo PLUG_IN_INFO = {
  NULL,  /* init_proc */
  NULL,  /* quit_proc */
  query, /* query_proc */
  run,   /* run_proc */
};

/* The longest counts array returned to the PDB: 3 channels of 16384 bins. */
#define MAX_RETURNED_COUNTS 49152

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

static void
init_i18n (void)
{
  gchar *dir = locale_dir ();

  bindtextdomain (GETTEXT_PACKAGE, dir);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
  g_free (dir);
}

/* The procedure's arguments and return values, the same for the resident procedure. */
static const GimpParamDef proc_args[] = {
  { GIMP_PDB_INT32, "run-mode", "The run mode { RUN-INTERACTIVE (0), RUN-NONINTERACTIVE (1) }" },
  { GIMP_PDB_IMAGE, "image", "Input image" },
  { GIMP_PDB_DRAWABLE, "drawable", "The layer, layer mask or channel to count" },
  { GIMP_PDB_STRING, "output-file", GPUHIST_ARG_OUTPUT_FILE_DOC },
  { GIMP_PDB_INT32, "repetitions", GPUHIST_ARG_REPETITIONS_DOC },
  { GIMP_PDB_INT32, "linear", GPUHIST_ARG_LINEAR_DOC },
  { GIMP_PDB_INT32, "bins", GPUHIST_ARG_BINS_DOC },
  { GIMP_PDB_INT32, "weighting",
    "0 = gimp (as GIMP's histogram: selection coverage and alpha), 1 = pixels (whole pixels where "
    "the selection covers at least half, alpha ignored)" },
  { GIMP_PDB_INT32, "source",
    "0 = drawable, 1 = visible (the image as shown, every visible layer)" },
};
static const GimpParamDef proc_return_vals[] = {
  { GIMP_PDB_INT32, "n-channels", GPUHIST_RET_N_CHANNELS_DOC },
  { GIMP_PDB_INT32, "num-counts",
    "Length of counts: n-channels * the bins counted (256 for 8-bit and indexed layers); 0 "
    "past 49152 values (GIMP 2.10's Script-Fu cannot take more): use output-file then" },
  { GIMP_PDB_FLOATARRAY, "counts",
    "Pixels per bin, the bins counted per channel, channel by channel (weighted: doubles; exact "
    "integers when they are)" },
  { GIMP_PDB_STRING, "backend", GPUHIST_RET_BACKEND_DOC },
  { GIMP_PDB_INT32, "num-timings", "Length of timings: 6" },
  { GIMP_PDB_FLOATARRAY, "timings", GPUHIST_RET_TIMINGS_DOC },
  { GIMP_PDB_STRING, "channel-names", GPUHIST_RET_CHANNEL_NAMES_DOC " (comma-separated)" },
};

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
                          G_N_ELEMENTS (proc_args), G_N_ELEMENTS (proc_return_vals), proc_args,
                          proc_return_vals);

  gimp_plugin_menu_register (PLUG_IN_PROC, GPUHIST_MENU_PATH);
  if (icon != NULL)
    gimp_plugin_icon_register (PLUG_IN_PROC, GIMP_ICON_TYPE_IMAGE_FILE, (const guint8 *) icon);
  g_free (icon);

  /* No arguments: GIMP starts it with itself (texts.h, GPUHIST_RESIDENT_EXTENSION). */
  gimp_install_procedure (GPUHIST_RESIDENT_EXTENSION, GPUHIST_RESIDENT_EXTENSION_BLURB,
                          GPUHIST_RESIDENT_EXTENSION_HELP, GPUHIST_AUTHORS, GPUHIST_AUTHORS, "2026",
                          NULL, NULL, GIMP_EXTENSION, 0, 0, NULL, NULL);
}

/* --- the table of what GIMP 2.10 does its own way (flow.h) --------------------------------- */

static gboolean
host_is_group (gpointer drawable)
{
  return gimp_item_is_group (GPOINTER_TO_INT (drawable));
}

static gboolean
host_is_mask_or_channel (gpointer drawable)
{
  gint32 id = GPOINTER_TO_INT (drawable);

  return gimp_item_is_channel (id) || gimp_item_is_layer_mask (id);
}

static gboolean
host_mask_intersect (gpointer drawable, GeglRectangle *area)
{
  return gimp_drawable_mask_intersect (GPOINTER_TO_INT (drawable), &area->x, &area->y, &area->width,
                                       &area->height);
}

static gboolean
host_image_mask_bounds (gpointer drawable, GeglRectangle *area)
{
  gint32 image = gimp_item_get_image (GPOINTER_TO_INT (drawable));
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
  gegl_init (NULL, NULL); /* 2.10's libgimp leaves GEGL to the plug-in */
  return gimp_drawable_get_buffer (GPOINTER_TO_INT (drawable));
}

static GeglBuffer *
host_get_selection (gpointer drawable, int *offset_x, int *offset_y)
{
  gint32 image = gimp_item_get_image (GPOINTER_TO_INT (drawable));

  if (gimp_selection_is_empty (image))
    return NULL;
  gimp_drawable_offsets (GPOINTER_TO_INT (drawable), offset_x, offset_y);
  return gimp_drawable_get_buffer (gimp_image_get_selection (image));
}

static gpointer
host_new_visible (gpointer drawable)
{
  gint32 image = gimp_item_get_image (GPOINTER_TO_INT (drawable));
  gint n_layers = 0;
  gint *layers = gimp_image_get_layers (image, &n_layers);
  gboolean any = FALSE;
  gint32 visible;

  for (gint i = 0; i < n_layers && !any; i++)
    any = gimp_item_get_visible (layers[i]);
  g_free (layers);
  if (!any)
    return NULL;
  /* Made in the image but never inserted: no undo step, nothing the user sees. */
  visible = gimp_layer_new_from_visible (image, image, "visible");
  return visible > 0 ? GINT_TO_POINTER (visible) : NULL;
}

static void
host_delete_copy (gpointer layer)
{
  gimp_item_delete (GPOINTER_TO_INT (layer));
}

static gpointer
host_copy_drawable (gpointer drawable)
{
  gint32 id = GPOINTER_TO_INT (drawable);
  gint32 copy = gimp_item_is_layer (id) ? gimp_layer_copy (id) : gimp_channel_copy (id);

  return copy > 0 ? GINT_TO_POINTER (copy) : NULL;
}

static gpointer
host_copy_selection (gpointer drawable)
{
  gint32 image = gimp_item_get_image (GPOINTER_TO_INT (drawable));
  gint32 copy;

  if (gimp_selection_is_empty (image))
    return NULL;
  copy = gimp_channel_copy (gimp_image_get_selection (image));
  return copy > 0 ? GINT_TO_POINTER (copy) : NULL;
}

static gchar *
host_get_name (gpointer drawable)
{
  return gimp_item_get_name (GPOINTER_TO_INT (drawable));
}

/* Between the measurement and the dialog: GIMP 2.10's progress bar ends and its UI starts. */
static void
host_init_ui (void)
{
  gimp_progress_end ();
  gimp_ui_init (PLUG_IN_BINARY, FALSE);
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
  N_ ("The active layer is a layer group: select a layer inside it, or merge the group, to "
      "count its pixels."),
};

/* --- running the procedure ----------------------------------------------------------------- */

/* Keeps what the user chose for GIMP_RUN_WITH_LAST_VALS and the next dialog. */
static void
save_settings (const GpuhistSettings *settings, gpointer user_data)
{
  SavedValues *saved = user_data;

  gpuhist_host_settings_to_keep (settings, &saved->repetitions, &saved->bins);
  saved->linear = settings->linear;
  saved->weighting = settings->weighting;
  saved->source = settings->source;
  saved->follow = settings->follow;
  saved->output_file[0] = '\0';
  gimp_set_data (PLUG_IN_PROC, saved, sizeof *saved);
}

/* The return values outlive run(): GIMP sends them after it returns. */
static GimpParam values[8];
static gchar *error_message;
static gchar *backend_line;
static gchar *names_line;
static gdouble *counts_array;
static gdouble *timings_array;

static void
return_error (gint *n_return_vals, GimpPDBStatusType status, const gchar *message)
{
  g_free (error_message);
  error_message = g_strdup (message);
  values[0].type = GIMP_PDB_STATUS;
  values[0].data.d_status = status;
  values[1].type = GIMP_PDB_STRING;
  values[1].data.d_string = error_message;
  *n_return_vals = 2;
}

/* The report's channel names, NULL-terminated (its array has room for one more). */
static const gchar *const *
report_names (const GpuhistReport *report)
{
  static const gchar *names[GPUHIST_MAX_COUNTED_CHANNELS + 1];

  for (gint i = 0; i <= GPUHIST_MAX_COUNTED_CHANNELS; i++)
    names[i] = i < report->channels ? report->channel_names[i] : NULL;
  return names;
}

static void
return_report (gint *n_return_vals, const GpuhistReport *report, gboolean fetch_only)
{
  gint n;

  g_free (counts_array);
  g_free (timings_array);
  g_free (backend_line);
  counts_array = gpuhist_report_counts (report, &n);
  /* GIMP 2.10's Script-Fu crashes on returned float arrays of more than about 50,000 values
   * (65536 bins of RGB): such counts go to output-file only, and counts comes back empty. */
  if (n > MAX_RETURNED_COUNTS)
    n = 0;
  values[1].type = GIMP_PDB_INT32;
  values[1].data.d_int32 = report->channels;
  values[2].type = GIMP_PDB_INT32;
  values[2].data.d_int32 = n;
  values[3].type = GIMP_PDB_FLOATARRAY;
  values[3].data.d_floatarray = counts_array;
  backend_line = g_strdup (report->layer.backend);
  values[4].type = GIMP_PDB_STRING;
  values[4].data.d_string = backend_line;
  timings_array = gpuhist_flow_timings (report, fetch_only, &n);
  values[5].type = GIMP_PDB_INT32;
  values[5].data.d_int32 = n;
  values[6].type = GIMP_PDB_FLOATARRAY;
  values[6].data.d_floatarray = timings_array;
  g_free (names_line);
  names_line = g_strjoinv (",", (gchar **) report_names (report));
  values[7].type = GIMP_PDB_STRING;
  values[7].data.d_string = names_line;
  values[0].type = GIMP_PDB_STATUS;
  values[0].data.d_status = GIMP_PDB_SUCCESS;
  *n_return_vals = 8;
}

/* The arguments, or for interactive and last-values runs what was saved; NULL when they are
 * fine, else the calling error's message. */
static const gchar *
read_arguments (gint n_params, const GimpParam *param, SavedValues *saved)
{
  GimpRunMode run_mode = param[0].data.d_int32;

  if (run_mode == GIMP_RUN_NONINTERACTIVE)
    {
      if (n_params > 3 && param[3].data.d_string)
        g_strlcpy (saved->output_file, param[3].data.d_string, sizeof saved->output_file);
      if (n_params > 4)
        saved->repetitions = param[4].data.d_int32;
      if (n_params > 5)
        saved->linear = param[5].data.d_int32 != 0;
      if (n_params > 6)
        saved->bins = param[6].data.d_int32; /* the flow says when it is not a bin count */
      if (n_params > 7)
        saved->weighting = param[7].data.d_int32; /* and when these are not 0 or 1 */
      if (n_params > 8)
        saved->source = param[8].data.d_int32;
      if (saved->repetitions < 0 || saved->repetitions > GPUHIST_MAX_REPETITIONS)
        return _ ("repetitions must be between 0 and 1000.");
      return NULL;
    }
  gimp_get_data (PLUG_IN_PROC, saved);
  saved->output_file[sizeof saved->output_file - 1] = '\0';
  saved->repetitions = CLAMP (saved->repetitions, 0, GPUHIST_MAX_REPETITIONS);
  if (!gpuhist_bins_valid (saved->bins))
    saved->bins = GH_BINS;
  saved->weighting = CLAMP (saved->weighting, GPUHIST_WEIGHTING_GIMP, GPUHIST_WEIGHTING_PIXELS);
  saved->source = CLAMP (saved->source, GPUHIST_SOURCE_DRAWABLE, GPUHIST_SOURCE_VISIBLE);
  if (run_mode == GIMP_RUN_INTERACTIVE)
    saved->output_file[0] = '\0'; /* the dialog exports on request */
  return NULL;
}

static void
run_histogram (gint n_params, const GimpParam *param, gint *n_return_vals)
{
  SavedValues saved = { GPUHIST_DEFAULT_REPETITIONS, FALSE, "", GH_BINS, 0, 0, TRUE };
  GpuhistRequest request = { 0 };
  GpuhistReport report = { 0 };
  GError *error = NULL;
  const gchar *calling_error;
  gint32 drawable_id;
  gboolean fetch_only;

  init_i18n ();
  if (n_params < 3)
    {
      return_error (n_return_vals, GIMP_PDB_CALLING_ERROR,
                    _ ("plug-in-gpu-histogram needs at least run-mode, image and drawable."));
      return;
    }
  calling_error = read_arguments (n_params, param, &saved);
  drawable_id = param[2].data.d_drawable;
  if (calling_error == NULL
      && (!gimp_item_is_valid (drawable_id) || !gimp_item_is_drawable (drawable_id)))
    calling_error = _ ("The drawable to count does not exist.");
  if (calling_error != NULL)
    {
      return_error (n_return_vals, GIMP_PDB_CALLING_ERROR, calling_error);
      return;
    }

  request.mode = gpuhist_host_run_mode (param[0].data.d_int32);
  request.drawable = GINT_TO_POINTER (drawable_id);
  request.n_drawables = 1;
  request.settings.repetitions = saved.repetitions;
  request.settings.linear = saved.linear;
  request.settings.bins = saved.bins;
  request.settings.weighting = (GpuhistWeighting) saved.weighting;
  request.settings.source = (GpuhistSourceKind) saved.source;
  request.settings.luminance = GH_LUMINANCE_GIMP2; /* GIMP_RGB_LUMINANCE of the floats */
  request.settings.follow = saved.follow != 0;
  request.settings.output_file = saved.output_file[0] ? saved.output_file : NULL;
  request.save_settings = save_settings;
  request.save_settings_data = &saved;

  switch (gpuhist_flow_run (&host, &request, &report, &fetch_only, &error))
    {
    case GPUHIST_FLOW_OK: return_report (n_return_vals, &report, fetch_only); break;
    case GPUHIST_FLOW_CANCELLED:
      values[0].type = GIMP_PDB_STATUS;
      values[0].data.d_status = GIMP_PDB_CANCEL;
      *n_return_vals = 1;
      break;
    case GPUHIST_FLOW_FAILED:
      return_error (n_return_vals, GIMP_PDB_EXECUTION_ERROR, error->message);
      break;
    }
  g_clear_error (&error);
  gpuhist_report_clear (&report);
}

/* --- the resident process ------------------------------------------------------------------ */

/* GPUHIST_RESIDENT_EXTENSION: installs the resident procedure and serves it until GIMP quits,
 * letting the GPU go when it has been idle (engine-keeper.c). */
static void
run_resident (void)
{
  gimp_install_temp_proc (GPUHIST_RESIDENT_PROC, GPUHIST_RESIDENT_PROC_BLURB,
                          GPUHIST_RESIDENT_PROC_HELP, GPUHIST_AUTHORS, GPUHIST_AUTHORS, "2026",
                          NULL, "*", GIMP_TEMPORARY, G_N_ELEMENTS (proc_args),
                          G_N_ELEMENTS (proc_return_vals), proc_args, proc_return_vals, run);
  gpuhist_keeper_keep (gpuhist_keeper_idle_seconds ());
  /* Messages are also read while a run's dialog is open, so that another call is answered
   * (PASS_THROUGH) instead of waiting for the dialog to close. */
  gimp_extension_enable ();
  gimp_extension_ack ();
  for (;;)
    gimp_extension_process (gpuhist_keeper_release_idle ());
}

/* Owned copies of the resident procedure's return values, in values[]. */
static void
take_return_values (const GimpParam *returned, gint n_returned, gint *n_return_vals)
{
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
}

/* Runs in the resident process when it is there and free; FALSE: count in this process. */
static gboolean
hand_over (gint n_params, const GimpParam *param, gint *n_return_vals)
{
  GimpParam *returned;
  gint n_returned = 0;
  GimpPDBStatusType status;

  if (n_params < 3 || !gpuhist_keeper_resident_enabled ()
      || (param[0].data.d_int32 == GIMP_RUN_NONINTERACTIVE && gpuhist_fetch_only_requested ())
      || !gimp_procedural_db_proc_exists (GPUHIST_RESIDENT_PROC))
    return FALSE;
  /* Its errors are this procedure's: GIMP shows them once, when they are returned from here. */
  gimp_plugin_set_pdb_error_handler (GIMP_PDB_ERROR_HANDLER_PLUGIN);
  returned = gimp_run_procedure2 (GPUHIST_RESIDENT_PROC, &n_returned, n_params, param);
  gimp_plugin_set_pdb_error_handler (GIMP_PDB_ERROR_HANDLER_INTERNAL);
  status = n_returned > 0 ? returned[0].data.d_status : GIMP_PDB_EXECUTION_ERROR;
  /* Busy, or gone (it crashed: GIMP removed its procedure): count here instead. */
  if (status == GIMP_PDB_PASS_THROUGH
      || (status != GIMP_PDB_SUCCESS && !gimp_procedural_db_proc_exists (GPUHIST_RESIDENT_PROC)))
    {
      gimp_destroy_params (returned, n_returned);
      return FALSE;
    }
  take_return_values (returned, n_returned, n_return_vals);
  gimp_destroy_params (returned, n_returned);
  return TRUE;
}

static void
run (const gchar *name, gint n_params, const GimpParam *param, gint *n_return_vals,
     GimpParam **return_vals)
{
  static gboolean resident_busy;

  *return_vals = values;
  if (strcmp (name, GPUHIST_RESIDENT_EXTENSION) == 0)
    run_resident (); /* returns only when GIMP quits */
  else if (strcmp (name, GPUHIST_RESIDENT_PROC) == 0)
    {
      if (resident_busy || gpuhist_keeper_resident_busy_for_tests ())
        {
          /* Apart from values[], which the run in progress will fill. */
          static GimpParam busy[1];

          busy[0].type = GIMP_PDB_STATUS;
          busy[0].data.d_status = GIMP_PDB_PASS_THROUGH;
          *return_vals = busy;
          *n_return_vals = 1;
          return;
        }
      resident_busy = TRUE;
      run_histogram (n_params, param, n_return_vals);
      resident_busy = FALSE;
    }
  else if (!hand_over (n_params, param, n_return_vals))
    run_histogram (n_params, param, n_return_vals);
}
