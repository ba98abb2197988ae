/* gpu-histogram: plug-in-gpu-histogram in GIMP 3.0: its arguments and return values (the
 * procedure's config in, a GimpValueArray out), also the resident procedure's. */
#include <string.h>

#include <libgimp/gimp.h>

#include <glib/gi18n-lib.h>

#include "glue3.h"
#include "host-common.h"
#include "report.h"
#include "texts.h"

/* The arguments and return values, the same for the resident procedure. */
void
gpuhist_gimp3_add_histogram_arguments (GimpProcedure *procedure)
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
  gpuhist_gimp3_add_weighting_and_source (procedure);
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

GimpValueArray *
gpuhist_gimp3_run_histogram (GimpProcedure *procedure, GimpRunMode run_mode, GimpImage *image,
                             GimpDrawable **drawables, GimpProcedureConfig *config,
                             gpointer run_data)
{
  GpuhistRequest request = { 0 };
  GpuhistReport report = { 0 };
  GimpValueArray *values = NULL;
  gboolean fetch_only;

  (void) run_data;
  if (strcmp (gimp_procedure_get_name (procedure), PLUG_IN_PROC) == 0
      && (values = gpuhist_gimp3_hand_over (procedure, GPUHIST_RESIDENT_PROC, run_mode, image,
                                            drawables, config))
             != NULL)
    return values;
  if ((values = gpuhist_gimp3_check_drawables (procedure, drawables, &request)) != NULL)
    return values;
  request.mode = gpuhist_host_run_mode (run_mode);
  read_arguments (run_mode, config, &request.settings);
  request.save_settings = save_settings;
  request.save_settings_data = config;

  values = gpuhist_gimp3_flow (procedure, &request, &report, &fetch_only);
  if (values == NULL)
    values = report_values (procedure, &report, fetch_only);
  gpuhist_report_clear (&report);
  g_free (request.settings.output_file);
  return values;
}
