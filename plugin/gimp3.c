/* gpu-histogram: the GIMP 3.0 glue (libgimp-3.0).
 *
 * Everything that differs from GIMP 2.10 lives here and in gimp2.c: the GimpPlugIn subclass that
 * registers the procedure, reading its config, picking the drawable (the first of the selected
 * ones), the selection's bounds, progress, and the return values.  The counting is core.c's.
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
/* Between the measurement and the dialog: GIMP 3.0's progress bar ends and its UI starts. */
static void
init_ui (void)
{
  gimp_progress_end ();
  gimp_ui_init (PLUG_IN_BINARY);
}

static gboolean
drawable_exists (gpointer drawable)
{
  return gimp_item_is_valid (GIMP_ITEM (drawable));
}
#endif

typedef struct _GpuHistogram GpuHistogram;
typedef struct _GpuHistogramClass GpuHistogramClass;

struct _GpuHistogram
{
  GimpPlugIn parent_instance;
};

struct _GpuHistogramClass
{
  GimpPlugInClass parent_class;
};

#define GPU_HISTOGRAM_TYPE (gpu_histogram_get_type ())
#define GPU_HISTOGRAM(obj) (G_TYPE_CHECK_INSTANCE_CAST ((obj), GPU_HISTOGRAM_TYPE, GpuHistogram))

GType gpu_histogram_get_type (void) G_GNUC_CONST;

static GList *gpu_histogram_query_procedures (GimpPlugIn *plug_in);
static GimpProcedure *gpu_histogram_create_procedure (GimpPlugIn *plug_in, const gchar *name);
static gboolean gpu_histogram_set_i18n (GimpPlugIn *plug_in, const gchar *procedure_name,
                                        gchar **gettext_domain, gchar **catalog_dir);
static GimpValueArray *gpu_histogram_run (GimpProcedure *procedure, GimpRunMode run_mode,
                                          GimpImage *image, GimpDrawable **drawables,
                                          GimpProcedureConfig *config, gpointer run_data);
static GimpValueArray *gpu_histogram_run_resident (GimpProcedure *procedure, GimpRunMode run_mode,
                                                   GimpImage *image, GimpDrawable **drawables,
                                                   GimpProcedureConfig *config, gpointer run_data);
static GimpValueArray *hand_over (GimpProcedure *procedure, GimpRunMode run_mode, GimpImage *image,
                                  GimpDrawable **drawables, GimpProcedureConfig *config);
static GimpValueArray *resident_extension_run (GimpProcedure *procedure,
                                               GimpProcedureConfig *config, gpointer run_data);

G_DEFINE_TYPE (GpuHistogram, gpu_histogram, GIMP_TYPE_PLUG_IN)

GIMP_MAIN (GPU_HISTOGRAM_TYPE)

static void
gpu_histogram_class_init (GpuHistogramClass *klass)
{
  GimpPlugInClass *plug_in_class = GIMP_PLUG_IN_CLASS (klass);

  plug_in_class->query_procedures = gpu_histogram_query_procedures;
  plug_in_class->create_procedure = gpu_histogram_create_procedure;
  plug_in_class->set_i18n = gpu_histogram_set_i18n;
}

static void
gpu_histogram_init (GpuHistogram *histogram)
{
  (void) histogram;
}

static GList *
gpu_histogram_query_procedures (GimpPlugIn *plug_in)
{
  (void) plug_in;
  return g_list_append (g_list_append (NULL, g_strdup (PLUG_IN_PROC)),
                        g_strdup (GPUHIST_RESIDENT_EXTENSION));
}

/* The message catalogs: the gpu-histogram domain, in the plug-in folder's locale/.  Until
 * translations are installed there, localization is off (quietly: GIMP would otherwise warn on
 * every start). */
static gboolean
gpu_histogram_set_i18n (GimpPlugIn *plug_in, const gchar *procedure_name, gchar **gettext_domain,
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

/* The arguments and return values, the same for the resident procedure. */
static void add_arguments (GimpProcedure *procedure);

static GimpProcedure *
gpu_histogram_create_procedure (GimpPlugIn *plug_in, const gchar *name)
{
  GimpProcedure *procedure;

  if (strcmp (name, GPUHIST_RESIDENT_EXTENSION) == 0)
    {
      /* No arguments: GIMP starts it with itself (core.h, GPUHIST_RESIDENT_EXTENSION). */
      procedure = gimp_procedure_new (plug_in, name, GIMP_PDB_PROC_TYPE_PERSISTENT,
                                      resident_extension_run, NULL, NULL);
      gimp_procedure_set_documentation (procedure, GPUHIST_RESIDENT_EXTENSION_BLURB,
                                        GPUHIST_RESIDENT_EXTENSION_HELP, name);
      gimp_procedure_set_attribution (procedure, "gpu-histogram authors", "gpu-histogram authors",
                                      "2026");
      return procedure;
    }
  if (strcmp (name, PLUG_IN_PROC) != 0)
    return NULL;

  procedure = gimp_image_procedure_new (plug_in, name, GIMP_PDB_PROC_TYPE_PLUGIN, gpu_histogram_run,
                                        NULL, NULL);

  gimp_procedure_set_image_types (procedure, "*");
  gimp_procedure_set_sensitivity_mask (procedure, GIMP_PROCEDURE_SENSITIVE_DRAWABLE
                                                      | GIMP_PROCEDURE_SENSITIVE_DRAWABLES);
  gimp_procedure_set_menu_label (procedure, _ ("GPU Histogram…"));
  gimp_procedure_add_menu_path (procedure, "<Image>/Filters/Analysis");
  {
    /* The icon installed beside the plug-in (icons/meson.build). */
    gchar *folder = g_path_get_dirname (gimp_get_progname ());
    gchar *icon = g_build_filename (folder, "icons", "gpu-histogram-16.png", NULL);

    if (g_file_test (icon, G_FILE_TEST_IS_REGULAR))
      {
        GFile *file = g_file_new_for_path (icon);

        gimp_procedure_set_icon_file (procedure, file);
        g_object_unref (file);
      }
    g_free (icon);
    g_free (folder);
  }
  gimp_procedure_set_documentation (
      procedure,
      _ ("Count the levels of each channel on the GPU and compare how fast different methods do "
         "it"),
      _ ("Counts the pixels at each of 256 levels per channel of the drawable (the first of the "
         "selected drawables), within the selection's bounds, on an NVIDIA GPU when one is usable "
         "(else on the CPU, saying why), and times the global-atomics, privatized and fastest "
         "methods against a read-only pass.  Perceptual levels by default (for 8-bit images, the "
         "stored values); linear light on request.  High bit depths are rounded to the nearest of "
         "256 levels; values below 0 and NaN count as 0, above 1 as 255.  Indexed images count "
         "their colours.  The image is never changed.  With bins 1024, 4096, 16384 or 65536, "
         "layers of more than 8 bits are counted as 16-bit samples v (u16 layers by their own "
         "values when the curve matches; u32, half and float rounded to v = floor (x * 65535 + "
         "0.5), below 0 and NaN as 0, above 1 as 65535) into bin v * bins / 65536; 8-bit and "
         "indexed layers have 256 levels and always count into 256 bins (the result says 256).  "
         "Any other bin count is an error."),
      PLUG_IN_PROC);
  gimp_procedure_set_attribution (procedure, "gpu-histogram authors", "gpu-histogram authors",
                                  "2025");
  add_arguments (procedure);
  return procedure;
}

static void
add_arguments (GimpProcedure *procedure)
{
  gimp_procedure_add_string_argument (procedure, "output-file", _ ("Output file"),
                                      _ ("Write the results there, CSV or JSON by the extension "
                                         "(.csv, .json); empty for none"),
                                      "", G_PARAM_READWRITE);
  gimp_procedure_add_int_argument (procedure, "repetitions", _ ("_Repetitions"),
                                   _ ("Timed runs per method; 0 counts once with the fastest "
                                      "method, untimed"),
                                   0, 1000, 5, G_PARAM_READWRITE);
  gimp_procedure_add_boolean_argument (procedure, "linear", _ ("_Linear light"),
                                       _ ("Bin in linear light instead of the perceptual curve"),
                                       FALSE, G_PARAM_READWRITE);
  gimp_procedure_add_int_argument (procedure, "bins", _ ("_Bins"),
                                   _ ("Bins per channel: 256, 1024, 4096, 16384 or 65536 (every "
                                      "16-bit level); 8-bit and indexed layers always count into "
                                      "256"),
                                   G_MININT, G_MAXINT, 256, G_PARAM_READWRITE);
  /* bins takes any int above, so that a wrong count is the plug-in's clear execution error. */

  gimp_procedure_add_int_return_value (procedure, "n-channels", "Channels",
                                       "Channels counted (1 to 4)", 0, GH_MAX_CHANNELS, 0,
                                       G_PARAM_READWRITE);
  gimp_procedure_add_double_array_return_value (
      procedure, "counts", "Counts",
      "Pixels per bin, the bins counted per channel (256 for 8-bit and indexed layers), channel "
      "by channel (exact integers); Script-Fu in GIMP 3.0.4 crashes on 65536 values or more: "
      "use output-file there",
      G_PARAM_READWRITE);
  gimp_procedure_add_string_return_value (
      procedure, "backend", "Backend",
      "The GPU, driver and runtime that counted, or the CPU and why", "", G_PARAM_READWRITE);
  gimp_procedure_add_double_array_return_value (
      procedure, "timings", "Timings",
      "Milliseconds: global atomics, privatized, fastest, read-only, upload, fetch from GIMP; "
      "-1 where not run",
      G_PARAM_READWRITE);
}

static void
monitor_progress (double fraction, gpointer user_data)
{
  (void) user_data;
  gimp_progress_update (fraction);
}

static GimpValueArray *
error_values (GimpProcedure *procedure, GimpPDBStatusType status, const gchar *message)
{
  return gimp_procedure_new_return_values (procedure, status,
                                           g_error_new_literal (GPUHIST_ERROR, 0, message));
}

#ifdef GPUHIST_HAVE_DIALOG
/* What the user left in the dialog becomes the procedure's config, which GIMP keeps for the next
 * interactive and last-values runs. */
static void
save_settings (const GpuhistSettings *settings, gpointer user_data)
{
  GimpProcedureConfig *config = user_data;

  g_object_set (config, "repetitions", CLAMP (settings->repetitions, 0, 1000), "linear",
                settings->linear, "bins",
                gpuhist_bins_valid (settings->bins) ? settings->bins : GH_BINS, NULL);
}
#endif

static GimpValueArray *
gpu_histogram_run (GimpProcedure *procedure, GimpRunMode run_mode, GimpImage *image,
                   GimpDrawable **drawables, GimpProcedureConfig *config, gpointer run_data)
{
  GpuhistSettings settings = { 0 };
  GpuhistSource source = { 0 };
  GpuhistReport report = { 0 };
  GpuhistMonitor monitor = { monitor_progress, NULL, NULL };
  GpuhistDrawableKind kind;
  GimpDrawable *drawable;
  GeglRectangle area;
  GeglBuffer *buffer;
  GError *error = NULL;
  GimpValueArray *values;
  gchar *output_file = NULL;
  gchar *name;
  gchar *note = NULL;
  gsize n_drawables;
  gint repetitions = 5;
  gboolean linear = FALSE;
  gint bins = GH_BINS;
  gdouble *counts;
  gdouble *timings;
  gint n;
  gboolean fetch_only = FALSE; /* GPUHIST_FETCH_ONLY=1: benchmarks only (core.h) */

  (void) run_data;

  if (strcmp (gimp_procedure_get_name (procedure), PLUG_IN_PROC) == 0
      && (values = hand_over (procedure, run_mode, image, drawables, config)) != NULL)
    return values;

  n_drawables = drawables ? gimp_core_object_array_get_length ((GObject **) drawables) : 0;
  if (n_drawables == 0)
    return error_values (procedure, GIMP_PDB_CALLING_ERROR,
                         _ ("Select a layer, layer mask or channel to count."));
  drawable = drawables[0];

  g_object_get (config, "output-file", &output_file, "repetitions", &repetitions, "linear", &linear,
                "bins", &bins, NULL);
  if (run_mode == GIMP_RUN_INTERACTIVE)
    g_clear_pointer (&output_file, g_free); /* the dialog exports on request */
  if (run_mode != GIMP_RUN_NONINTERACTIVE && !gpuhist_bins_valid (bins))
    bins = GH_BINS; /* a stale saved value: the core says so for a script's wrong count */

  if (gimp_item_is_group (GIMP_ITEM (drawable)))
    {
      g_free (output_file);
      return error_values (procedure, GIMP_PDB_EXECUTION_ERROR,
                           _ ("The selected layer is a layer group: select a layer inside it, or "
                              "merge the group, to count its pixels."));
    }
  kind = gimp_item_is_channel (GIMP_ITEM (drawable))
                 || gimp_item_is_layer_mask (GIMP_ITEM (drawable))
             ? GPUHIST_DRAWABLE_MASK_OR_CHANNEL
             : GPUHIST_DRAWABLE_LAYER;

  if (!gimp_drawable_mask_intersect (drawable, &area.x, &area.y, &area.width, &area.height)
      || area.width <= 0 || area.height <= 0)
    {
      g_free (output_file);
      return error_values (procedure, GIMP_PDB_EXECUTION_ERROR,
                           _ ("The selection does not intersect the drawable: there are no pixels "
                              "to count."));
    }

  name = gimp_item_get_name (GIMP_ITEM (drawable));
  if (n_drawables > 1)
    {
      note = g_strdup_printf (_ ("%d drawables are selected; counted the first one, \"%s\"."),
                              (int) n_drawables, name);
      if (run_mode == GIMP_RUN_INTERACTIVE)
        gimp_message (note);
    }

  /* The GPU starts up while the pixels are being set up. */
  fetch_only = run_mode == GIMP_RUN_NONINTERACTIVE && gpuhist_fetch_only_requested ();
  if (!fetch_only)
    gpuhist_core_engine_prepare ();
  buffer = gimp_drawable_get_buffer (drawable);
  if (buffer == NULL)
    {
      gpuhist_core_engine_discard ();
      g_free (name);
      g_free (note);
      g_free (output_file);
      return error_values (procedure, GIMP_PDB_EXECUTION_ERROR,
                           _ ("GIMP did not give the drawable's pixels."));
    }

  settings.repetitions = CLAMP (repetitions, 0, 1000);
  settings.linear = linear;
  settings.bins = bins;
  settings.output_file = output_file && output_file[0] ? output_file : NULL;

  if (!gpuhist_source_init (&source, buffer, &area, kind, linear, name, &error))
    goto failed;

  gimp_progress_init_printf (_ ("Counting the levels of \"%s\""), source.drawable_name);

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
      hooks.save_settings_data = config;
      hooks.source_exists = drawable_exists;
      hooks.source_exists_data = drawable;
      if (!gpuhist_dialog_measure_and_run (&source, &settings, &monitor, &report, note, init_ui,
                                           &hooks, &error))
        goto failed;
      save_settings (&settings, config);
    }
#endif
  else
    {
      if (!gpuhist_core_run (&source, &settings, &monitor, note, &report, &error))
        goto failed;
      gimp_progress_update (1.0);
    }

  values = gimp_procedure_new_return_values (procedure, GIMP_PDB_SUCCESS, NULL);
  counts = gpuhist_report_counts (&report, &n);
  if (n == 0) /* no counts (GPUHIST_FETCH_ONLY): GIMP's empty arrays take NULL data */
    g_clear_pointer (&counts, g_free);
  GIMP_VALUES_SET_INT (values, 1, report.channels);
  GIMP_VALUES_TAKE_DOUBLE_ARRAY (values, 2, counts, n);
  GIMP_VALUES_SET_STRING (values, 3, report.layer.backend);
  timings = fetch_only ? gpuhist_fetch_only_timings (&report, &n)
                       : gpuhist_report_timings (&report, &n);
  GIMP_VALUES_TAKE_DOUBLE_ARRAY (values, 4, timings, n);
  goto done;

failed:
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    values = gimp_procedure_new_return_values (procedure, GIMP_PDB_CANCEL, NULL);
  else
    values = error_values (procedure, GIMP_PDB_EXECUTION_ERROR,
                           error ? error->message : _ ("The histogram could not be counted."));
  g_clear_error (&error);

done:
  gpuhist_core_engine_discard ();
  gpuhist_report_clear (&report);
  gpuhist_source_clear (&source);
  g_object_unref (buffer);
  g_free (name);
  g_free (note);
  g_free (output_file);
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
                                  gpu_histogram_run_resident, NULL, NULL);

  (void) config;
  (void) run_data;
  gimp_procedure_set_image_types (resident, "*");
  gimp_procedure_set_documentation (resident, GPUHIST_RESIDENT_PROC_BLURB,
                                    GPUHIST_RESIDENT_PROC_HELP, GPUHIST_RESIDENT_PROC);
  add_arguments (resident);
  gimp_plug_in_add_temp_procedure (plug_in, resident);
  g_object_unref (resident);

  gpuhist_core_keep_engines (gpuhist_resident_idle_seconds ());
  /* Messages are also read while a run's dialog is open, so that another call is answered
   * (PASS_THROUGH) instead of waiting for the dialog to close. */
  gimp_procedure_persistent_ready (procedure);
  gimp_plug_in_persistent_enable (plug_in);
  for (;;)
    gimp_plug_in_persistent_process (plug_in, gpuhist_core_engine_release_idle ());
  return gimp_procedure_new_return_values (procedure, GIMP_PDB_SUCCESS, NULL);
}

static GimpValueArray *
gpu_histogram_run_resident (GimpProcedure *procedure, GimpRunMode run_mode, GimpImage *image,
                            GimpDrawable **drawables, GimpProcedureConfig *config,
                            gpointer run_data)
{
  static gboolean busy;
  GimpValueArray *values;

  if (busy)
    return gimp_procedure_new_return_values (procedure, GIMP_PDB_PASS_THROUGH, NULL);
  busy = TRUE;
  values = gpu_histogram_run (procedure, run_mode, image, drawables, config, run_data);
  busy = FALSE;
  return values;
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
  gint repetitions = 5, bins = GH_BINS;
  gboolean linear = FALSE;

  if (!gpuhist_resident_enabled ()
      || (run_mode == GIMP_RUN_NONINTERACTIVE && gpuhist_fetch_only_requested ())
      || !gimp_pdb_procedure_exists (pdb, GPUHIST_RESIDENT_PROC))
    return NULL;
  resident = gimp_pdb_lookup_procedure (pdb, GPUHIST_RESIDENT_PROC);
  resident_config = gimp_procedure_create_config (resident);
  g_object_get (config, "output-file", &output_file, "repetitions", &repetitions, "linear", &linear,
                "bins", &bins, NULL);
  g_object_set (resident_config, "run-mode", run_mode, "image", image, "drawables", drawables,
                "output-file", output_file, "repetitions", repetitions, "linear", linear, "bins",
                bins, NULL);
  g_free (output_file);

  /* Its errors are this procedure's: GIMP shows them once, when they are returned from here. */
  gimp_plug_in_set_pdb_error_handler (plug_in, GIMP_PDB_ERROR_HANDLER_PLUGIN);
  values = gimp_procedure_run_config (resident, resident_config);
  gimp_plug_in_set_pdb_error_handler (plug_in, GIMP_PDB_ERROR_HANDLER_INTERNAL);
  g_object_unref (resident_config);

  status = GIMP_VALUES_GET_ENUM (values, 0);
  /* Busy, or gone (it crashed: GIMP removed its procedure): count here instead. */
  if (status == GIMP_PDB_PASS_THROUGH
      || (status != GIMP_PDB_SUCCESS && !gimp_pdb_procedure_exists (pdb, GPUHIST_RESIDENT_PROC)))
    g_clear_pointer (&values, gimp_value_array_unref);
  return values;
}
