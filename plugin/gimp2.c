/* gpu-histogram: the GIMP 2.10 glue (libgimp-2.0).
 *
 * Everything that differs from GIMP 3.0 lives here and in gimp3.c: registering the procedure,
 * reading its arguments, finding the drawable's buffer and the selection's bounds, progress,
 * and returning the results (in 2.10 each array is preceded by its length).  The counting is
 * core.c's.
 */
#include <string.h>

#include <libgimp/gimp.h>

#include <glib/gi18n-lib.h>

#include "core.h"
#ifdef GPUHIST_HAVE_DIALOG
#include <libgimp/gimpui.h>

#include "dialog.h"
#endif

#ifdef GPUHIST_HAVE_DIALOG
/* Between the measurement and the dialog: GIMP 2.10's progress bar ends and its UI starts. */
static void
init_ui (void)
{
  gimp_progress_end ();
  gimp_ui_init (PLUG_IN_BINARY, FALSE);
}

static gboolean
drawable_exists (gpointer drawable_id)
{
  return gimp_item_is_valid (GPOINTER_TO_INT (drawable_id));
}
#endif

/* What GIMP_RUN_WITH_LAST_VALS repeats (stored with gimp_set_data). */
typedef struct
{
  gint32 repetitions;
  gint32 linear;
  gchar output_file[1024];
  gint32 bins; /* last, so that values saved before it existed still read */
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
  { GIMP_PDB_STRING, "output-file",
    "Write the results there, CSV or JSON by the extension (.csv, .json); empty for none" },
  { GIMP_PDB_INT32, "repetitions",
    "Timed runs per method (0..1000); 0 counts once with the fastest method, untimed" },
  { GIMP_PDB_INT32, "linear",
    "Bin in linear light instead of the perceptual curve { FALSE (0), TRUE (1) }" },
  { GIMP_PDB_INT32, "bins",
    "Bins per channel: 256, 1024, 4096, 16384 or 65536 (every 16-bit level); 8-bit and "
    "indexed layers always count into 256" },
};
static const GimpParamDef proc_return_vals[] = {
  { GIMP_PDB_INT32, "n-channels", "Channels counted (1 to 4)" },
  { GIMP_PDB_INT32, "num-counts",
    "Length of counts: n-channels * the bins counted (256 for 8-bit and indexed layers); 0 "
    "past 49152 values (GIMP 2.10's Script-Fu cannot take more): use output-file then" },
  { GIMP_PDB_FLOATARRAY, "counts",
    "Pixels per bin, the bins counted per channel, channel by channel (exact integers)" },
  { GIMP_PDB_STRING, "backend", "The GPU, driver and runtime that counted, or the CPU and why" },
  { GIMP_PDB_INT32, "num-timings", "Length of timings: 6" },
  { GIMP_PDB_FLOATARRAY, "timings",
    "Milliseconds: global atomics, privatized, fastest, read-only, upload, fetch from GIMP; "
    "-1 where not run" },
};

static void
query (void)
{
  gchar *locale = locale_dir ();
  gchar *icon = data_path ("icons" G_DIR_SEPARATOR_S "gpu-histogram-16.png");

  /* GIMP translates the menu label and blurb itself, with this domain and folder. */
  gimp_plugin_domain_register (GETTEXT_PACKAGE, locale);
  g_free (locale);

  gimp_install_procedure (PLUG_IN_PROC,
                          N_ ("Count the levels of each channel on the GPU and compare how fast "
                              "different methods do it"),
                          "Counts the pixels at each of 256 levels per channel of the drawable, "
                          "within the selection's bounds, on an NVIDIA GPU when one is usable "
                          "(else on the CPU, saying why), and times the global-atomics, "
                          "privatized and fastest methods against a read-only pass.  Perceptual "
                          "levels by default (for 8-bit images, the stored values); linear light "
                          "on request.  High bit depths are rounded to the nearest of 256 levels; "
                          "values below 0 and NaN count as 0, above 1 as 255.  Indexed images "
                          "count their colours.  The image is never changed.  With bins 1024, "
                          "4096, 16384 or 65536, layers of more than 8 bits are counted as 16-bit "
                          "samples v (u16 layers by their own values when the curve matches; "
                          "u32, half and float rounded to v = floor (x * 65535 + 0.5), below 0 "
                          "and NaN as 0, above 1 as 65535) into bin v * bins / 65536; 8-bit and "
                          "indexed layers have 256 levels and always count into 256 bins (the "
                          "result says 256).  Any other bin count is an error.",
                          "gpu-histogram authors", "gpu-histogram authors", "2025",
                          N_ ("GPU Histogram…"), "*", GIMP_PLUGIN, G_N_ELEMENTS (proc_args),
                          G_N_ELEMENTS (proc_return_vals), proc_args, proc_return_vals);

  gimp_plugin_menu_register (PLUG_IN_PROC, "<Image>/Filters/Analysis");
  if (icon != NULL)
    gimp_plugin_icon_register (PLUG_IN_PROC, GIMP_ICON_TYPE_IMAGE_FILE, (const guint8 *) icon);
  g_free (icon);

  /* No arguments: GIMP starts it with itself (core.h, GPUHIST_RESIDENT_EXTENSION). */
  gimp_install_procedure (GPUHIST_RESIDENT_EXTENSION, GPUHIST_RESIDENT_EXTENSION_BLURB,
                          GPUHIST_RESIDENT_EXTENSION_HELP, "gpu-histogram authors",
                          "gpu-histogram authors", "2026", NULL, NULL, GIMP_EXTENSION, 0, 0, NULL,
                          NULL);
}

static void
monitor_progress (double fraction, gpointer user_data)
{
  (void) user_data;
  gimp_progress_update (fraction);
}

/* Keeps what the user chose for GIMP_RUN_WITH_LAST_VALS and the next dialog. */
static void
save_settings (const GpuhistSettings *settings, gpointer user_data)
{
  SavedValues *saved = user_data;

  saved->repetitions = CLAMP (settings->repetitions, 0, 1000);
  saved->linear = settings->linear;
  saved->bins = gpuhist_bins_valid (settings->bins) ? settings->bins : GH_BINS;
  saved->output_file[0] = '\0';
  gimp_set_data (PLUG_IN_PROC, saved, sizeof *saved);
}

/* The return values outlive run(): GIMP sends them after it returns. */
static GimpParam values[7];
static gchar *error_message;
static gchar *backend_line;
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

static void
run_histogram (gint n_params, const GimpParam *param, gint *n_return_vals)
{
  GimpRunMode run_mode;
  gint32 drawable_id;
  SavedValues saved = { 5, FALSE, "", GH_BINS };
  GpuhistSettings settings = { 0 };
  GpuhistSource source = { 0 };
  GpuhistReport report = { 0 };
  GpuhistMonitor monitor = { monitor_progress, NULL, NULL };
  GpuhistDrawableKind kind;
  GeglRectangle area;
  GeglBuffer *buffer = NULL;
  GError *error = NULL;
  gchar *drawable_name;
  gint n;
  gboolean fetch_only = FALSE; /* GPUHIST_FETCH_ONLY=1: benchmarks only (core.h) */

  init_i18n ();

  if (n_params < 3)
    {
      return_error (n_return_vals, GIMP_PDB_CALLING_ERROR,
                    _ ("plug-in-gpu-histogram needs at least run-mode, image and drawable."));
      return;
    }
  run_mode = param[0].data.d_int32;
  drawable_id = param[2].data.d_drawable;

  switch (run_mode)
    {
    case GIMP_RUN_NONINTERACTIVE:
      if (n_params > 3 && param[3].data.d_string)
        g_strlcpy (saved.output_file, param[3].data.d_string, sizeof saved.output_file);
      if (n_params > 4)
        saved.repetitions = param[4].data.d_int32;
      if (n_params > 5)
        saved.linear = param[5].data.d_int32 != 0;
      if (n_params > 6)
        saved.bins = param[6].data.d_int32; /* the core says when it is not a bin count */
      if (saved.repetitions < 0 || saved.repetitions > 1000)
        {
          return_error (n_return_vals, GIMP_PDB_CALLING_ERROR,
                        _ ("repetitions must be between 0 and 1000."));
          return;
        }
      break;
    case GIMP_RUN_INTERACTIVE:
    case GIMP_RUN_WITH_LAST_VALS:
    default:
      gimp_get_data (PLUG_IN_PROC, &saved);
      saved.output_file[sizeof saved.output_file - 1] = '\0';
      saved.repetitions = CLAMP (saved.repetitions, 0, 1000);
      if (!gpuhist_bins_valid (saved.bins))
        saved.bins = GH_BINS;
      if (run_mode == GIMP_RUN_INTERACTIVE)
        saved.output_file[0] = '\0'; /* the dialog exports on request */
      break;
    }

  if (!gimp_item_is_valid (drawable_id) || !gimp_item_is_drawable (drawable_id))
    {
      return_error (n_return_vals, GIMP_PDB_CALLING_ERROR,
                    _ ("The drawable to count does not exist."));
      return;
    }
  if (gimp_item_is_group (drawable_id))
    {
      return_error (n_return_vals, GIMP_PDB_EXECUTION_ERROR,
                    _ ("The active layer is a layer group: select a layer inside it, or merge the "
                       "group, to count its pixels."));
      return;
    }
  kind = gimp_item_is_channel (drawable_id) || gimp_item_is_layer_mask (drawable_id)
             ? GPUHIST_DRAWABLE_MASK_OR_CHANNEL
             : GPUHIST_DRAWABLE_LAYER;

  if (!gimp_drawable_mask_intersect (drawable_id, &area.x, &area.y, &area.width, &area.height)
      || area.width <= 0 || area.height <= 0)
    {
      return_error (n_return_vals, GIMP_PDB_EXECUTION_ERROR,
                    _ ("The selection does not intersect the drawable: there are no pixels to "
                       "count."));
      return;
    }

  /* The GPU starts up while GEGL does and the pixels are being set up. */
  fetch_only = run_mode == GIMP_RUN_NONINTERACTIVE && gpuhist_fetch_only_requested ();
  if (!fetch_only)
    gpuhist_core_engine_prepare ();
  gegl_init (NULL, NULL);
  buffer = gimp_drawable_get_buffer (drawable_id);
  if (buffer == NULL)
    {
      gpuhist_core_engine_discard ();
      return_error (n_return_vals, GIMP_PDB_EXECUTION_ERROR,
                    _ ("GIMP did not give the drawable's pixels."));
      return;
    }

  drawable_name = gimp_item_get_name (drawable_id);
  settings.repetitions = saved.repetitions;
  settings.linear = saved.linear;
  settings.bins = saved.bins;
  settings.output_file = saved.output_file[0] ? saved.output_file : NULL;

  if (!gpuhist_source_init (&source, buffer, &area, kind, settings.linear, drawable_name, &error))
    {
      gpuhist_core_engine_discard ();
      g_free (drawable_name);
      g_object_unref (buffer);
      return_error (n_return_vals, GIMP_PDB_EXECUTION_ERROR, error->message);
      g_error_free (error);
      return;
    }
  g_free (drawable_name);

  gimp_progress_init_printf (_ ("Counting the levels of \"%s\""), source.drawable_name);

  /* GPUHIST_FETCH_ONLY=1 (benchmarks, non-interactive): only read the pixels.  Interactive:
   * measure first (GIMP's progress bar shows it), then the dialog shows the report, measures
   * again on request and exports.  Without the dialog, interactive runs like the other modes. */
  if (fetch_only)
    {
      if (!gpuhist_core_fetch_only (&source, &report, &error))
        goto failed;
    }
#ifdef GPUHIST_HAVE_DIALOG
  else if (run_mode == GIMP_RUN_INTERACTIVE)
    {
      GpuhistDialogParams hooks = { 0 };

      hooks.save_settings = save_settings;
      hooks.save_settings_data = &saved;
      hooks.source_exists = drawable_exists;
      hooks.source_exists_data = GINT_TO_POINTER (drawable_id);
      if (!gpuhist_dialog_measure_and_run (&source, &settings, &monitor, &report, NULL, init_ui,
                                           &hooks, &error))
        goto failed;
      save_settings (&settings, &saved);
    }
#endif
  else if (!gpuhist_core_run (&source, &settings, &monitor, NULL, &report, &error))
    goto failed;

  if (run_mode == GIMP_RUN_INTERACTIVE)
    save_settings (&settings, &saved);

  g_free (counts_array);
  g_free (timings_array);
  g_free (backend_line);
  counts_array = gpuhist_report_counts (&report, &n);
  /* GIMP 2.10's Script-Fu crashes on returned float arrays of more than about 50,000 values
   * (65536 bins of RGB): such counts go to output-file only, and counts comes back empty. */
  if (n > MAX_RETURNED_COUNTS)
    n = 0;
  values[1].type = GIMP_PDB_INT32;
  values[1].data.d_int32 = report.channels;
  values[2].type = GIMP_PDB_INT32;
  values[2].data.d_int32 = n;
  values[3].type = GIMP_PDB_FLOATARRAY;
  values[3].data.d_floatarray = counts_array;
  backend_line = g_strdup (report.layer.backend);
  values[4].type = GIMP_PDB_STRING;
  values[4].data.d_string = backend_line;
  timings_array = fetch_only ? gpuhist_fetch_only_timings (&report, &n)
                             : gpuhist_report_timings (&report, &n);
  values[5].type = GIMP_PDB_INT32;
  values[5].data.d_int32 = n;
  values[6].type = GIMP_PDB_FLOATARRAY;
  values[6].data.d_floatarray = timings_array;
  values[0].type = GIMP_PDB_STATUS;
  values[0].data.d_status = GIMP_PDB_SUCCESS;
  *n_return_vals = 7;

  gpuhist_core_engine_discard ();
  gpuhist_report_clear (&report);
  gpuhist_source_clear (&source);
  g_object_unref (buffer);
  return;

failed:
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      values[0].type = GIMP_PDB_STATUS;
      values[0].data.d_status = GIMP_PDB_CANCEL;
      *n_return_vals = 1;
    }
  else
    {
      return_error (n_return_vals, GIMP_PDB_EXECUTION_ERROR,
                    error ? error->message : _ ("The histogram could not be counted."));
    }
  g_clear_error (&error);
  gpuhist_core_engine_discard ();
  gpuhist_report_clear (&report);
  gpuhist_source_clear (&source);
  g_object_unref (buffer);
}

/* --- the resident process ------------------------------------------------------------------ */

/* GPUHIST_RESIDENT_EXTENSION: installs the resident procedure and serves it until GIMP quits,
 * letting the GPU go when it has been idle (engine-keeper.c). */
static void
run_resident (void)
{
  gimp_install_temp_proc (
      GPUHIST_RESIDENT_PROC, GPUHIST_RESIDENT_PROC_BLURB, GPUHIST_RESIDENT_PROC_HELP,
      "gpu-histogram authors", "gpu-histogram authors", "2026", NULL, "*", GIMP_TEMPORARY,
      G_N_ELEMENTS (proc_args), G_N_ELEMENTS (proc_return_vals), proc_args, proc_return_vals, run);
  gpuhist_core_keep_engines (gpuhist_resident_idle_seconds ());
  /* Messages are also read while a run's dialog is open, so that another call is answered
   * (PASS_THROUGH) instead of waiting for the dialog to close. */
  gimp_extension_enable ();
  gimp_extension_ack ();
  for (;;)
    gimp_extension_process (gpuhist_core_engine_release_idle ());
}

/* Owned copies of the resident procedure's return values, in values[]. */
static void
take_return_values (const GimpParam *returned, gint n_returned, gint *n_return_vals)
{
  gint n = MIN (n_returned, (gint) G_N_ELEMENTS (values));
  gint length = 0;

  g_clear_pointer (&error_message, g_free);
  g_clear_pointer (&backend_line, g_free);
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
        case GIMP_PDB_STRING:
          *string_owner = values[i].data.d_string = g_strdup (returned[i].data.d_string);
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

  if (n_params < 3 || !gpuhist_resident_enabled ()
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
      if (resident_busy)
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
