/* gpu-histogram: plug-in-gpu-histogram in GIMP 2.10: its arguments and return values (each
 * returned array preceded by its length), and the values GIMP_RUN_WITH_LAST_VALS repeats. */
#include <libgimp/gimp.h>

#include <glib/gi18n-lib.h>

#include "glue2.h"
#include "host-common.h"
#include "report.h"
#include "texts.h"

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

/* The longest counts array returned to the PDB: 3 channels of 16384 bins. */
#define MAX_RETURNED_COUNTS 49152

/* The procedure's arguments and return values, the same for the resident procedure. */
const GimpParamDef gpuhist_gimp2_histogram_args[] = {
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
const gint gpuhist_gimp2_n_histogram_args = G_N_ELEMENTS (gpuhist_gimp2_histogram_args);
const GimpParamDef gpuhist_gimp2_histogram_return_vals[] = {
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
const gint gpuhist_gimp2_n_histogram_return_vals
    = G_N_ELEMENTS (gpuhist_gimp2_histogram_return_vals);

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
static gchar *backend_line;
static gchar *names_line;
static gdouble *counts_array;
static gdouble *timings_array;

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

GimpParam *
gpuhist_gimp2_run_histogram (gint n_params, const GimpParam *param, gint *n_return_vals)
{
  SavedValues saved = { GPUHIST_DEFAULT_REPETITIONS, FALSE, "", GH_BINS, 0, 0, TRUE };
  GpuhistRequest request = { 0 };
  GpuhistReport report = { 0 };
  GimpParam *failed;
  const gchar *calling_error;
  gboolean fetch_only;

  gpuhist_gimp2_init_i18n ();
  if (n_params < 3)
    return gpuhist_gimp2_error_values (
        GIMP_PDB_CALLING_ERROR,
        _ ("plug-in-gpu-histogram needs at least run-mode, image and drawable."), n_return_vals);
  calling_error = read_arguments (n_params, param, &saved);
  if (calling_error == NULL)
    calling_error = gpuhist_gimp2_check_drawable (param[2].data.d_drawable);
  if (calling_error != NULL)
    return gpuhist_gimp2_error_values (GIMP_PDB_CALLING_ERROR, calling_error, n_return_vals);

  request.mode = gpuhist_host_run_mode (param[0].data.d_int32);
  request.drawable = GINT_TO_POINTER (param[2].data.d_drawable);
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

  failed = gpuhist_gimp2_flow (&request, &report, &fetch_only, n_return_vals);
  if (failed == NULL)
    return_report (n_return_vals, &report, fetch_only);
  gpuhist_report_clear (&report);
  return failed != NULL ? failed : values;
}
