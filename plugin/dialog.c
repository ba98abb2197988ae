/* gpu-histogram: the interactive dialog.  See dialog.h.
 *
 * Everything here is the same for GTK 2 and GTK 3: the calls that differ live behind
 * gtk-compat.h, and tables are GtkTreeViews, whose API both versions share.
 */
#include <string.h>

#include <glib/gi18n-lib.h>
#include <libgimp/gimp.h>
#include <libgimp/gimpui.h>

#include "dialog.h"
#include "engine-keeper.h"
#include "measure.h"
#include "report.h"
#include "run.h"
#include "texts.h"
#include "gtk-compat.h"
#include "histogram-view.h"

#define RESPONSE_CLOSE GTK_RESPONSE_CLOSE
#define PROGRESS_INTERVAL_MS 100

typedef enum
{
  JOB_NONE,
  JOB_MEASURE,
  JOB_COMPARE
} JobKind;

/* The timing table's rows. */
enum
{
  ROW_GLOBAL,
  ROW_PRIVATIZED,
  ROW_FASTEST,
  ROW_READ_ONLY,
  ROW_UPLOAD,
  ROW_FETCH,
  ROW_TOTAL,
  N_TIMING_ROWS
};

#define TIMING_COLUMNS 6
#define COMPARE_COLUMNS 7
#define STATS_COLUMNS 9

/* The Bins combo's entries, in order. */
static const int bin_choices[] = { 256, 1024, 4096, 16384, 65536 };

typedef struct
{
  GpuhistDialogParams params;

  GtkWidget *dialog;
  GtkWidget *headline;
  GtkWidget *subline;
  GtkWidget *info;
  GtkWidget *backend_icon;
  GtkWidget *backend;
  GtkWidget *view;
  GtkWidget *bin_label;
  GtkWidget *log_toggle;
  GtkWidget *channel_box;
  GtkWidget *channel_toggles[GH_MAX_CHANNELS];
  GtkListStore *stats_store;
  GtkListStore *timing_store;
  GtkListStore *compare_store;
  GtkWidget *compare_button;
  GtkWidget *repetitions;
  GtkWidget *bins_combo;
  GtkWidget *strategy;
  GtkWidget *rerun_button;
  GtkWidget *export_button;
  GtkWidget *copy_button;
  GtkWidget *progress_box;
  GtkWidget *progress;
  GtkWidget *cancel_button;
  GtkWidget *status;

  /* The worker.  The main thread starts it and joins it in job_finished; while it runs, the
   * controls that read or change the report are insensitive. */
  GThread *thread;
  JobKind job;
  gint cancel;            /* atomic: TRUE once Cancel or Close was pressed */
  gint progress_permille; /* atomic: -1 while unknown */
  guint progress_source;
  GpuhistSettings job_settings;
  GpuhistReport job_report;
  gboolean job_ok;
  GError *job_error;
  gboolean closing;
} Dialog;

/* ---- Formatting ---------------------------------------------------------------------------- */

/* Milliseconds with three significant digits or so, without the unit. */
static gchar *
format_number_ms (double ms)
{
  if (ms < 1.0)
    return g_strdup_printf ("%.3f", ms);
  if (ms < 100.0)
    return g_strdup_printf ("%.2f", ms);
  return g_strdup_printf ("%.0f", ms);
}

static gchar *
format_ms (double ms)
{
  gchar *number;
  gchar *text;

  if (ms < 0.0)
    return g_strdup (_ ("—"));
  number = format_number_ms (ms);
  /* TRANSLATORS: a time in milliseconds, e.g. "1.23 ms" */
  text = g_strdup_printf (_ ("%s ms"), number);
  g_free (number);
  return text;
}

/* Three significant digits or so: small layers move little data. */
static gchar *
format_gbps (double gbps)
{
  if (gbps <= 0.0)
    return g_strdup (_ ("—"));
  if (gbps < 1.0)
    return g_strdup_printf ("%.3f", gbps);
  if (gbps < 10.0)
    return g_strdup_printf ("%.2f", gbps);
  return g_strdup_printf ("%.1f", gbps);
}

static gchar *
format_percent (double percent)
{
  if (percent < 10.0)
    return g_strdup_printf (_ ("%.1f %%"), percent);
  return g_strdup_printf (_ ("%.0f %%"), percent);
}

static gchar *
format_speedup (double speedup)
{
  if (speedup <= 0.0)
    return g_strdup (_ ("—"));
  /* TRANSLATORS: how many times faster, e.g. "12.3×" */
  return g_strdup_printf (_ ("%.1f×"), speedup);
}

static gchar *
format_count (uint64_t count)
{
  return g_strdup_printf ("%" G_GUINT64_FORMAT, count);
}

static double
timing_median (const gh_result *result, gh_timing_kind kind)
{
  if (result == NULL || result->channels == 0 || result->timing[kind].runs <= 0)
    return -1.0;
  return result->timing[kind].median_ms;
}

/* How many times faster than global atomics, or 0 when either did not run. */
static double
speedup_over_global (const gh_result *result, gh_timing_kind kind)
{
  double global = timing_median (result, GH_TIME_GLOBAL_ATOMICS);
  double other = timing_median (result, kind);

  if (global <= 0.0 || other <= 0.0)
    return 0.0;
  return global / other;
}

/* The busiest-bin share and the bins used of the channel that has the most contention. */
static void
contention_of (const gh_result *result, double *busiest_share, int *bins_used)
{
  int c;

  *busiest_share = 0.0;
  *bins_used = 0;
  for (c = 0; result->counts != NULL && c < result->channels; c++)
    {
      gh_channel_stats stats;

      gh_stats_compute (result->counts + (size_t) c * result->bins, result->bins, &stats);
      *busiest_share = MAX (*busiest_share, stats.busiest_share);
      *bins_used = MAX (*bins_used, stats.bins_used);
    }
}

/* ---- Tables -------------------------------------------------------------------------------- */

static GtkWidget *
table_new (GtkListStore *store, const char *accessible_name, const char *const *titles,
           int n_columns)
{
  GtkWidget *tree = gtk_tree_view_new_with_model (GTK_TREE_MODEL (store));
  int i;

  for (i = 0; i < n_columns; i++)
    {
      GtkCellRenderer *renderer = gtk_cell_renderer_text_new ();
      GtkTreeViewColumn *column;

      /* The first column names the row; the numbers are right-aligned. */
      g_object_set (renderer, "xalign", i == 0 ? 0.0 : 1.0, NULL);
      column = gtk_tree_view_column_new_with_attributes (titles[i], renderer, "markup", i, NULL);
      gtk_tree_view_column_set_alignment (column, i == 0 ? 0.0 : 1.0);
      gtk_tree_view_append_column (GTK_TREE_VIEW (tree), column);
    }

  atk_object_set_name (gtk_widget_get_accessible (tree), accessible_name);
  return tree;
}

static GtkListStore *
store_new (int n_columns)
{
  GType types[STATS_COLUMNS];
  int i;

  g_return_val_if_fail (n_columns <= STATS_COLUMNS, NULL);
  for (i = 0; i < n_columns; i++)
    types[i] = G_TYPE_STRING;
  return gtk_list_store_newv (n_columns, types);
}

/* Appends a row of n strings (markup), taking them over. */
static void
append_row (GtkListStore *store, gchar **cells, int n)
{
  GtkTreeIter iter;
  int i;

  gtk_list_store_append (store, &iter);
  for (i = 0; i < n; i++)
    {
      gtk_list_store_set (store, &iter, i, cells[i], -1);
      g_free (cells[i]);
      cells[i] = NULL;
    }
}

static gchar *
channel_markup (const char *channel_name)
{
  double rgb[3];

  gpuhist_channel_color (channel_name, rgb);
  return g_markup_printf_escaped ("<span foreground=\"#%02x%02x%02x\">■</span> %s",
                                  (int) (rgb[0] * 255), (int) (rgb[1] * 255), (int) (rgb[2] * 255),
                                  gpuhist_channel_display_name (channel_name));
}

static void
fill_stats (Dialog *d)
{
  const GpuhistReport *report = d->params.report;
  int c;

  gtk_list_store_clear (d->stats_store);
  for (c = 0; report->layer.counts != NULL && c < report->layer.channels; c++)
    {
      gh_channel_stats stats;
      gchar *cells[STATS_COLUMNS];

      /* Over all the bins counted: the statistics are in bins, whatever the plot shows. */
      gh_stats_compute (report->layer.counts + (size_t) c * report->layer.bins, report->layer.bins,
                        &stats);
      cells[0] = channel_markup (report->channel_names[c]);
      cells[1] = g_strdup_printf ("%.2f", stats.mean);
      cells[2] = g_strdup_printf ("%.2f", stats.stddev);
      cells[3] = g_strdup_printf ("%d", stats.median);
      cells[4] = stats.min >= 0 ? g_strdup_printf ("%d", stats.min) : g_strdup (_ ("—"));
      cells[5] = stats.max >= 0 ? g_strdup_printf ("%d", stats.max) : g_strdup (_ ("—"));
      cells[6] = format_percent (100.0 * stats.busiest_share);
      cells[7] = g_strdup_printf ("%d", stats.bins_used);
      cells[8] = format_count (stats.pixels);
      append_row (d->stats_store, cells, STATS_COLUMNS);
    }
}

static void
timing_cells (const GpuhistReport *report, int row, gchar **cells)
{
  const gh_result *layer = &report->layer;
  double ceiling = timing_median (layer, GH_TIME_READ_ONLY);
  gh_timing_kind kind = GH_TIME_GLOBAL_ATOMICS;
  gboolean kernel = row <= ROW_READ_ONLY;
  double ms = -1.0;

  switch (row)
    {
    case ROW_GLOBAL:
      cells[0] = g_strdup (_ ("Global atomics"));
      kind = GH_TIME_GLOBAL_ATOMICS;
      break;
    case ROW_PRIVATIZED:
      cells[0] = g_strdup (_ ("Privatized (the seed's kernel)"));
      kind = GH_TIME_PRIVATIZED;
      break;
    case ROW_FASTEST:
      cells[0] = g_strdup (_ ("<b>Fastest</b>"));
      kind = GH_TIME_FASTEST;
      break;
    case ROW_READ_ONLY:
      cells[0] = g_strdup (_ ("Read-only ceiling"));
      kind = GH_TIME_READ_ONLY;
      break;
    case ROW_UPLOAD:
      cells[0] = g_strdup (_ ("Upload to the GPU"));
      kind = GH_TIME_UPLOAD;
      break;
    case ROW_FETCH:
      cells[0] = g_strdup (_ ("Fetch from GIMP"));
      ms = report->fetch_ms;
      break;
    default:
      cells[0] = g_strdup (_ ("Total"));
      ms = report->total_ms;
      break;
    }

  if (row <= ROW_UPLOAD)
    {
      const gh_timing *timing = &layer->timing[kind];

      if (timing->runs <= 0)
        {
          cells[1] = g_strdup (_ ("not run"));
          cells[2] = g_strdup (_ ("—"));
          cells[3] = g_strdup (_ ("—"));
        }
      else
        {
          gchar *min = format_number_ms (timing->min_ms);
          gchar *max = format_number_ms (timing->max_ms);

          cells[1] = format_ms (timing->median_ms);
          /* TRANSLATORS: the range of a timing in ms, e.g. "1.20 – 1.31" */
          cells[2] = g_strdup_printf (_ ("%s – %s"), min, max);
          cells[3] = format_gbps (gh_timing_gbps (layer, kind));
          g_free (min);
          g_free (max);
        }
      ms = timing->runs > 0 ? timing->median_ms : -1.0;
    }
  else
    {
      cells[1] = format_ms (ms > 0.0 ? ms : -1.0);
      cells[2] = g_strdup (_ ("—"));
      cells[3] = format_gbps (ms > 0.0 ? (double) layer->bytes / (ms * 1.0e6) : 0.0);
    }

  if (kernel && ms > 0.0 && ceiling > 0.0)
    cells[4] = format_percent (100.0 * ceiling / ms);
  else
    cells[4] = g_strdup (_ ("—"));

  cells[5] = kernel && row != ROW_READ_ONLY ? format_speedup (speedup_over_global (layer, kind))
                                            : g_strdup (_ ("—"));
  if (row == ROW_FASTEST)
    {
      gchar *bold = g_strdup_printf ("<b>%s</b>", cells[5]);

      g_free (cells[5]);
      cells[5] = bold;
    }
}

/* Under the timing table: which strategy the fastest kernel ran as, and its cost against the
 * read-only ceiling; and, for an 8-bit layer asked for more bins, that it has 256 levels. */
static void
fill_strategy (Dialog *d)
{
  const GpuhistReport *report = d->params.report;
  const gh_result *layer = &report->layer;
  double fastest = timing_median (layer, GH_TIME_FASTEST);
  double ceiling = timing_median (layer, GH_TIME_READ_ONLY);
  GString *text = g_string_new (NULL);

  if (layer->counts != NULL)
    {
      /* TRANSLATORS: e.g. "4096 bins a channel; the fastest kernel ran as: shared, 4 ch x 4096
       * bins, 64 KiB shared" */
      g_string_printf (text, _ ("%d bins a channel; the fastest kernel ran as: %s"), layer->bins,
                       layer->layout[0] != '\0' ? layer->layout : _ ("—"));
      if (fastest > 0.0 && ceiling > 0.0)
        {
          gchar *times = g_strdup_printf ("%.2f", fastest / ceiling);

          g_string_append (text, "\n");
          /* TRANSLATORS: the fastest kernel's time over the read-only pass's, e.g. "1.35" */
          g_string_append_printf (text, _ ("It took %s× the read-only ceiling's time."), times);
          g_free (times);
        }
      if (report->requested_bins > layer->bins)
        {
          g_string_append (text, "\n");
          g_string_append_printf (text,
                                  _ ("This layer has 8 bits a channel: its 256 levels were counted "
                                     "into 256 bins, not the %d asked for."),
                                  report->requested_bins);
        }
    }
  gtk_label_set_text (GTK_LABEL (d->strategy), text->str);
  g_string_free (text, TRUE);
}

static void
fill_timing (Dialog *d)
{
  int row;

  gtk_list_store_clear (d->timing_store);
  for (row = 0; row < N_TIMING_ROWS; row++)
    {
      gchar *cells[TIMING_COLUMNS];

      timing_cells (d->params.report, row, cells);
      append_row (d->timing_store, cells, TIMING_COLUMNS);
    }
}

static void
compare_cells (const gh_result *result, const char *name, gchar **cells)
{
  double busiest_share;
  int bins_used;

  contention_of (result, &busiest_share, &bins_used);
  cells[0] = g_markup_escape_text (name, -1);
  cells[1] = format_percent (100.0 * busiest_share);
  cells[2] = g_strdup_printf ("%d", bins_used);
  cells[3] = format_ms (timing_median (result, GH_TIME_GLOBAL_ATOMICS));
  cells[4] = format_ms (timing_median (result, GH_TIME_PRIVATIZED));
  cells[5] = format_ms (timing_median (result, GH_TIME_FASTEST));
  cells[6] = format_speedup (speedup_over_global (result, GH_TIME_FASTEST));
}

static void
fill_compare (Dialog *d)
{
  const GpuhistReport *report = d->params.report;
  gchar *cells[COMPARE_COLUMNS];
  gchar *name;

  gtk_list_store_clear (d->compare_store);
  /* TRANSLATORS: the row of the user's own layer in the contention table */
  name = g_strdup_printf (_ ("Layer “%s”"),
                          report->drawable_name != NULL ? report->drawable_name : "");
  compare_cells (&report->layer, name, cells);
  append_row (d->compare_store, cells, COMPARE_COLUMNS);
  g_free (name);

  if (report->flat.channels > 0)
    {
      compare_cells (&report->flat, _ ("Flat"), cells);
      append_row (d->compare_store, cells, COMPARE_COLUMNS);
    }
  if (report->noise.channels > 0)
    {
      compare_cells (&report->noise, _ ("Uniform noise"), cells);
      append_row (d->compare_store, cells, COMPARE_COLUMNS);
    }
}

/* ---- Headline, backend and histogram ------------------------------------------------------- */

static void
fill_headline (Dialog *d)
{
  const GpuhistReport *report = d->params.report;
  const GpuhistSource *source = d->params.source;
  double fastest = speedup_over_global (&report->layer, GH_TIME_FASTEST);
  double privatized = speedup_over_global (&report->layer, GH_TIME_PRIVATIZED);
  gchar *markup;
  gchar *speed;

  if (fastest > 0.0)
    {
      speed = format_speedup (fastest);
      /* TRANSLATORS: the headline, e.g. "12.3× faster than global atomics" */
      markup = g_markup_printf_escaped (_ ("<span size=\"xx-large\" weight=\"bold\">%s faster than "
                                           "global atomics</span>"),
                                        speed);
      g_free (speed);
    }
  else
    markup = g_markup_printf_escaped ("<span size=\"xx-large\" weight=\"bold\">%s</span>",
                                      _ ("No timings: the histogram was counted once"));
  gtk_label_set_markup (GTK_LABEL (d->headline), markup);
  g_free (markup);

  speed = format_speedup (privatized);
  if (privatized > 0.0)
    /* TRANSLATORS: under the headline: the speedup of the seed's kernel */
    markup = g_markup_printf_escaped (_ ("<span size=\"large\" weight=\"bold\">Privatized (the "
                                         "seed's kernel): %s faster than global atomics</span>"),
                                      speed);
  else
    markup = g_markup_printf_escaped ("<span size=\"large\" weight=\"bold\">%s</span>",
                                      _ ("Set Repetitions above 0 and press Re-run to time the "
                                         "kernels."));
  gtk_label_set_markup (GTK_LABEL (d->subline), markup);
  g_free (speed);
  g_free (markup);

  markup = g_strdup_printf (_ ("Layer “%s”, %d × %d pixels, %d channels, %s levels, %d timed "
                               "runs per kernel; fastest kernel: %s"),
                            report->drawable_name != NULL ? report->drawable_name : "",
                            source->area.width, source->area.height, report->layer.channels,
                            d->params.settings->linear ? _ ("linear-light") : _ ("perceptual"),
                            report->layer.timing[GH_TIME_FASTEST].runs,
                            report->layer.layout[0] != '\0' ? report->layer.layout : _ ("—"));
  gtk_label_set_text (GTK_LABEL (d->info), markup);
  g_free (markup);

  if (report->layer.used_gpu)
    markup = g_markup_printf_escaped (_ ("<b>GPU:</b> %s"), report->layer.backend);
  else
    markup = g_markup_printf_escaped (_ ("<b>The CPU ran this, not a GPU.</b>  %s"),
                                      report->layer.backend);
  gtk_label_set_markup (GTK_LABEL (d->backend), markup);
  gtk_widget_set_tooltip_text (d->backend, report->layer.backend);
  g_free (markup);
  if (report->layer.used_gpu)
    gtk_widget_hide (d->backend_icon);
  else
    gtk_widget_show (d->backend_icon);
}

static void
fill_channel_toggles (Dialog *d)
{
  const GpuhistReport *report = d->params.report;
  GpuhistHistogramView *view = GPUHIST_HISTOGRAM_VIEW (d->view);
  int c;

  for (c = 0; c < GH_MAX_CHANNELS; c++)
    {
      GtkWidget *toggle = d->channel_toggles[c];
      GtkWidget *label = gtk_bin_get_child (GTK_BIN (toggle));
      const char *name = report->channel_names[c];
      gchar *markup;
      double rgb[3];

      if (c >= report->layer.channels || name == NULL)
        {
          gtk_widget_hide (toggle);
          continue;
        }

      gpuhist_channel_color (name, rgb);
      /* The first letter of the channel's name is its mnemonic: Red, Green, Blue, Alpha, Gray
       * (gray and green never come together). */
      markup = g_markup_printf_escaped ("<span foreground=\"#%02x%02x%02x\">■</span> _%s",
                                        (int) (rgb[0] * 255), (int) (rgb[1] * 255),
                                        (int) (rgb[2] * 255), gpuhist_channel_display_name (name));
      gtk_label_set_markup_with_mnemonic (GTK_LABEL (label), markup);
      g_free (markup);
      gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (toggle),
                                    gpuhist_histogram_view_get_channel_visible (view, c));
      gtk_widget_show (toggle);
    }
}

static void
update_all (Dialog *d)
{
  const GpuhistReport *report = d->params.report;
  GpuhistHistogramView *view = GPUHIST_HISTOGRAM_VIEW (d->view);
  int c;

  gpuhist_histogram_view_set_data (view, report->layer.counts, report->layer.channels,
                                   report->layer.bins, report->channel_names);
  /* Keep the user's choice of channels across re-runs. */
  for (c = 0; c < GH_MAX_CHANNELS; c++)
    gpuhist_histogram_view_set_channel_visible (
        view, c, gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (d->channel_toggles[c])));
  fill_channel_toggles (d);
  fill_headline (d);
  fill_stats (d);
  fill_timing (d);
  fill_strategy (d);
  fill_compare (d);
}

static void
bin_changed (GpuhistHistogramView *view, gint bin, gpointer data)
{
  Dialog *d = data;
  gchar *text = gpuhist_histogram_view_describe_bin (view, bin);

  gtk_label_set_text (GTK_LABEL (d->bin_label),
                      text != NULL ? text
                                   : _ ("Point at or click a level to see its counts; Left and "
                                        "Right move the mark."));
  g_free (text);
}

static void
log_toggled (GtkToggleButton *toggle, gpointer data)
{
  Dialog *d = data;

  gpuhist_histogram_view_set_logarithmic (GPUHIST_HISTOGRAM_VIEW (d->view),
                                          gtk_toggle_button_get_active (toggle));
}

static void
channel_toggled (GtkToggleButton *toggle, gpointer data)
{
  Dialog *d = data;
  int c;

  for (c = 0; c < GH_MAX_CHANNELS; c++)
    if (GTK_WIDGET (toggle) == d->channel_toggles[c])
      gpuhist_histogram_view_set_channel_visible (GPUHIST_HISTOGRAM_VIEW (d->view), c,
                                                  gtk_toggle_button_get_active (toggle));
}

/* ---- Status and settings ------------------------------------------------------------------- */

static void
set_status (Dialog *d, const char *text)
{
  gtk_label_set_text (GTK_LABEL (d->status), text != NULL ? text : "");
}

static void
read_settings (Dialog *d)
{
  int choice = gtk_combo_box_get_active (GTK_COMBO_BOX (d->bins_combo));

  d->params.settings->repetitions
      = gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (d->repetitions));
  if (choice >= 0 && choice < (int) G_N_ELEMENTS (bin_choices))
    d->params.settings->bins = bin_choices[choice];
}

static void
save_settings (Dialog *d)
{
  read_settings (d);
  if (d->params.save_settings != NULL)
    d->params.save_settings (d->params.settings, d->params.save_settings_data);
}

/* ---- The worker ---------------------------------------------------------------------------- */

static void
monitor_progress (double fraction, gpointer data)
{
  Dialog *d = data;

  g_atomic_int_set (&d->progress_permille, (gint) (CLAMP (fraction, 0.0, 1.0) * 1000.0));
}

static gboolean
monitor_cancelled (gpointer data)
{
  Dialog *d = data;

  return g_atomic_int_get (&d->cancel) != 0;
}

static gboolean job_finished (gpointer data);

static gpointer
worker (gpointer data)
{
  Dialog *d = data;

  if (d->job == JOB_MEASURE)
    {
      GpuhistMonitor monitor = { monitor_progress, monitor_cancelled, d };

      d->job_ok = gpuhist_measure (d->params.engine, d->params.source, &d->job_settings, &monitor,
                                   &d->job_report, &d->job_error);
    }
  else
    d->job_ok = gpuhist_compare_patterns (d->params.engine, &d->job_settings, d->params.report,
                                          &d->job_error);

  g_idle_add (job_finished, d);
  return NULL;
}

static gboolean
progress_tick (gpointer data)
{
  Dialog *d = data;
  gint permille = g_atomic_int_get (&d->progress_permille);

  if (permille < 0)
    gtk_progress_bar_pulse (GTK_PROGRESS_BAR (d->progress));
  else
    gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (d->progress), permille / 1000.0);
  return G_SOURCE_CONTINUE;
}

static void
set_busy (Dialog *d, gboolean busy)
{
  gtk_widget_set_sensitive (d->repetitions, !busy);
  gtk_widget_set_sensitive (d->bins_combo, !busy);
  gtk_widget_set_sensitive (d->rerun_button, !busy);
  gtk_widget_set_sensitive (d->compare_button, !busy && d->params.report->layer.channels > 0);
  gtk_widget_set_sensitive (d->export_button, !busy);
  gtk_widget_set_sensitive (d->copy_button, !busy);
  gtk_widget_set_sensitive (d->cancel_button, busy);
  if (busy)
    gtk_widget_show (d->progress_box);
  else
    gtk_widget_hide (d->progress_box);
}

static void
start_job (Dialog *d, JobKind job)
{
  GError *error = NULL;

  if (d->thread != NULL)
    return;

  save_settings (d);
  d->job = job;
  d->job_settings = *d->params.settings;
  d->job_settings.output_file = NULL; /* the glue writes the output file, not a re-run */
  memset (&d->job_report, 0, sizeof d->job_report);
  d->job_ok = FALSE;
  g_clear_error (&d->job_error);
  g_atomic_int_set (&d->cancel, 0);
  g_atomic_int_set (&d->progress_permille, job == JOB_MEASURE ? 0 : -1);

  if (job == JOB_COMPARE)
    {
      /* The patterns replace the rows of an earlier comparison. */
      gh_result_clear (&d->params.report->flat);
      gh_result_clear (&d->params.report->noise);
      memset (&d->params.report->flat, 0, sizeof d->params.report->flat);
      memset (&d->params.report->noise, 0, sizeof d->params.report->noise);
      fill_compare (d);
    }

  gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (d->progress), 0.0);
  gtk_progress_bar_set_text (GTK_PROGRESS_BAR (d->progress),
                             job == JOB_MEASURE
                                 ? _ ("Measuring the layer again…")
                                 : _ ("Counting a flat and a noise image of the layer's size…"));
  set_status (d, NULL);
  set_busy (d, TRUE);

  d->thread = g_thread_try_new ("gpuhist-worker", worker, d, &error);
  if (d->thread == NULL)
    {
      set_busy (d, FALSE);
      set_status (d, error->message);
      g_clear_error (&error);
      return;
    }

  d->progress_source = g_timeout_add (PROGRESS_INTERVAL_MS, progress_tick, d);
  gtk_widget_grab_focus (d->cancel_button);
}

static gboolean
job_finished (gpointer data)
{
  Dialog *d = data;
  gboolean cancelled = g_atomic_int_get (&d->cancel) != 0
                       || g_error_matches (d->job_error, G_IO_ERROR, G_IO_ERROR_CANCELLED);

  g_thread_join (d->thread);
  d->thread = NULL;
  if (d->progress_source != 0)
    {
      g_source_remove (d->progress_source);
      d->progress_source = 0;
    }

  if (d->job == JOB_MEASURE)
    {
      if (d->job_ok && !cancelled)
        {
          gpuhist_report_clear (d->params.report);
          *d->params.report = d->job_report;
          memset (&d->job_report, 0, sizeof d->job_report);
        }
      else
        gpuhist_report_clear (&d->job_report);
    }
  else if (!d->job_ok || cancelled)
    {
      /* Half a comparison is no comparison. */
      gh_result_clear (&d->params.report->flat);
      gh_result_clear (&d->params.report->noise);
      memset (&d->params.report->flat, 0, sizeof d->params.report->flat);
      memset (&d->params.report->noise, 0, sizeof d->params.report->noise);
    }

  d->job = JOB_NONE;
  if (!d->closing)
    {
      gchar *message = NULL;

      update_all (d);
      set_busy (d, FALSE);
      if (cancelled)
        set_status (d, _ ("Cancelled: the tables show the last complete run."));
      else if (!d->job_ok)
        {
          message
              = g_strdup_printf (_ ("That failed: %s"), d->job_error != NULL ? d->job_error->message
                                                                             : _ ("unknown error"));
          set_status (d, message);
        }
      else
        set_status (d, d->params.report->flat.channels > 0
                           ? _ ("Compared: see the contention table.")
                           : _ ("Measured again."));
      g_free (message);
      gtk_widget_grab_focus (d->rerun_button);
    }
  g_clear_error (&d->job_error);

  return G_SOURCE_REMOVE;
}

static void
cancel_clicked (GtkButton *button, gpointer data)
{
  Dialog *d = data;

  (void) button;
  g_atomic_int_set (&d->cancel, 1);
  gtk_widget_set_sensitive (d->cancel_button, FALSE);
  gtk_progress_bar_set_text (GTK_PROGRESS_BAR (d->progress), _ ("Cancelling…"));
}

static void
rerun_clicked (GtkButton *button, gpointer data)
{
  Dialog *d = data;

  (void) button;
  /* GIMP keeps the pixels of a closed image alive for us: measuring them again would look like
   * success.  Say what happened instead. */
  if (d->params.source_exists != NULL && !d->params.source_exists (d->params.source_exists_data))
    {
      set_status (d, _ ("The image was closed: there is nothing to measure again.  The tables show "
                        "the last run; export or copy them, or close the dialog."));
      return;
    }
  start_job (d, JOB_MEASURE);
}

static void
compare_clicked (GtkButton *button, gpointer data)
{
  (void) button;
  start_job (data, JOB_COMPARE);
}

/* ---- Export, copy, help -------------------------------------------------------------------- */

static void
message (GtkWidget *parent, GtkMessageType type, const char *primary, const char *secondary)
{
  GtkWidget *dialog = gtk_message_dialog_new (GTK_WINDOW (parent),
                                              GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT,
                                              type, GTK_BUTTONS_CLOSE, "%s", primary);

  if (secondary != NULL)
    gtk_message_dialog_format_secondary_text (GTK_MESSAGE_DIALOG (dialog), "%s", secondary);
  gtk_window_set_title (GTK_WINDOW (dialog), _ ("GPU Histogram"));
  gtk_dialog_run (GTK_DIALOG (dialog));
  gtk_widget_destroy (dialog);
}

static GtkFileFilter *
file_filter (const char *name, const char *pattern)
{
  GtkFileFilter *filter = gtk_file_filter_new ();

  gtk_file_filter_set_name (filter, name);
  gtk_file_filter_add_pattern (filter, pattern);
  return filter;
}

static void
export_clicked (GtkButton *button, gpointer data)
{
  Dialog *d = data;
  GtkFileFilter *csv = file_filter (_ ("CSV: the counts (*.csv)"), "*.csv");
  GtkFileFilter *json = file_filter (_ ("JSON: counts, statistics, timings (*.json)"), "*.json");
  GtkWidget *chooser;
  gchar *name;

  (void) button;
  chooser = gtk_file_chooser_dialog_new (
      _ ("Export the Histogram"), GTK_WINDOW (d->dialog), GTK_FILE_CHOOSER_ACTION_SAVE,
      _ ("_Cancel"), GTK_RESPONSE_CANCEL, _ ("_Export"), GTK_RESPONSE_ACCEPT, NULL);
  gtk_dialog_set_default_response (GTK_DIALOG (chooser), GTK_RESPONSE_ACCEPT);
  gtk_file_chooser_set_do_overwrite_confirmation (GTK_FILE_CHOOSER (chooser), TRUE);
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), csv);
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), json);
  name = g_strdup_printf ("%s-histogram.csv", d->params.report->drawable_name != NULL
                                                  ? d->params.report->drawable_name
                                                  : "layer");
  g_strdelimit (name, "/\\", '_');
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), name);
  g_free (name);

  if (gtk_dialog_run (GTK_DIALOG (chooser)) == GTK_RESPONSE_ACCEPT)
    {
      gchar *path = gtk_file_chooser_get_filename (GTK_FILE_CHOOSER (chooser));
      GError *error = NULL;

      /* Without a known extension, the chosen filter says which format. */
      if (path != NULL && !g_str_has_suffix (path, ".csv") && !g_str_has_suffix (path, ".json")
          && !g_str_has_suffix (path, ".CSV") && !g_str_has_suffix (path, ".JSON"))
        {
          gboolean is_json = gtk_file_chooser_get_filter (GTK_FILE_CHOOSER (chooser)) == json;
          gchar *with_suffix = g_strconcat (path, is_json ? ".json" : ".csv", NULL);

          g_free (path);
          path = with_suffix;
        }

      if (path == NULL)
        message (chooser, GTK_MESSAGE_ERROR, _ ("Choose a local file to export to."), NULL);
      else if (!gpuhist_report_write (d->params.report, path, &error))
        message (d->dialog, GTK_MESSAGE_ERROR, _ ("The histogram could not be exported."),
                 error != NULL ? error->message : NULL);
      else
        {
          gchar *display = g_filename_display_name (path);
          gchar *text = g_strdup_printf (_ ("Exported to %s"), display);

          set_status (d, text);
          g_free (text);
          g_free (display);
        }
      g_clear_error (&error);
      g_free (path);
    }

  gtk_widget_destroy (chooser);
}

/* Appends a store's rows as tab-separated text, markup removed. */
static void
append_store_text (GString *text, GtkListStore *store, const char *const *titles, int n_columns)
{
  GtkTreeModel *model = GTK_TREE_MODEL (store);
  GtkTreeIter iter;
  gboolean more;
  int i;

  for (i = 0; i < n_columns; i++)
    g_string_append_printf (text, "%s%s", i > 0 ? "\t" : "", titles[i]);
  g_string_append_c (text, '\n');

  for (more = gtk_tree_model_get_iter_first (model, &iter); more;
       more = gtk_tree_model_iter_next (model, &iter))
    {
      for (i = 0; i < n_columns; i++)
        {
          gchar *markup = NULL;
          gchar *plain = NULL;

          gtk_tree_model_get (model, &iter, i, &markup, -1);
          if (markup != NULL && !pango_parse_markup (markup, -1, 0, NULL, &plain, NULL, NULL))
            plain = g_strdup (markup);
          /* The colour swatch is for the eye only. */
          if (plain != NULL && g_str_has_prefix (plain, "■ "))
            memmove (plain, plain + strlen ("■ "), strlen (plain + strlen ("■ ")) + 1);
          g_string_append_printf (text, "%s%s", i > 0 ? "\t" : "", plain != NULL ? plain : "");
          g_free (markup);
          g_free (plain);
        }
      g_string_append_c (text, '\n');
    }
}

static const char *const *
timing_titles (void)
{
  static const char *titles[TIMING_COLUMNS];

  titles[0] = _ ("Kernel or step");
  titles[1] = _ ("Median");
  titles[2] = _ ("Min – max (ms)");
  titles[3] = _ ("GB/s");
  /* xgettext:no-c-format */
  titles[4] = _ ("% of ceiling");
  titles[5] = _ ("Speedup");
  return titles;
}

static const char *const *
compare_titles (void)
{
  static const char *titles[COMPARE_COLUMNS];

  titles[0] = _ ("Input");
  titles[1] = _ ("Busiest bin");
  titles[2] = _ ("Bins used");
  titles[3] = _ ("Global atomics");
  titles[4] = _ ("One copy per block");
  titles[5] = _ ("Fastest");
  titles[6] = _ ("Speedup");
  return titles;
}

static const char *const *
stats_titles (void)
{
  static const char *titles[STATS_COLUMNS];

  titles[0] = _ ("Channel");
  titles[1] = _ ("Mean");
  titles[2] = _ ("Std. dev.");
  titles[3] = _ ("Median");
  titles[4] = _ ("Min");
  titles[5] = _ ("Max");
  titles[6] = _ ("Busiest bin");
  titles[7] = _ ("Bins used");
  titles[8] = _ ("Pixels");
  return titles;
}

static void
copy_clicked (GtkButton *button, gpointer data)
{
  Dialog *d = data;
  GString *text = g_string_new (NULL);
  GtkClipboard *clipboard;

  (void) button;
  g_string_append_printf (text, "%s\n", d->params.report->layer.backend);
  append_store_text (text, d->timing_store, timing_titles (), TIMING_COLUMNS);
  g_string_append_c (text, '\n');
  append_store_text (text, d->compare_store, compare_titles (), COMPARE_COLUMNS);
  g_string_append_c (text, '\n');
  append_store_text (text, d->stats_store, stats_titles (), STATS_COLUMNS);

  clipboard = gtk_widget_get_clipboard (d->dialog, GDK_SELECTION_CLIPBOARD);
  gtk_clipboard_set_text (clipboard, text->str, (gint) text->len);
  g_string_free (text, TRUE);
  set_status (d, _ ("Copied the tables to the clipboard as tab-separated text."));
}

static void
help_func (const gchar *help_id, gpointer help_data)
{
  GtkWidget *parent = GTK_IS_WIDGET (help_data) ? gtk_widget_get_toplevel (help_data) : NULL;
  gchar *text;

  (void) help_id;
  text = g_strconcat (
      _ ("Counts the 256-level histogram of each channel of the layer on the GPU (or on the "
         "CPU when no GPU can be used) and times how.\n\n"
         "Global atomics: every sample adds to one shared table, so threads that meet the "
         "same level wait for each other.  Privatized (the seed's kernel): each block "
         "counts into its own copy and merges once.  Fastest: this plug-in's own privatized "
         "kernel.  Read-only: reads the pixels and counts nothing, the ceiling no "
         "histogram can beat.\n\n"
         "The headline says how many times faster the fastest kernel is than global "
         "atomics on this layer.  Compare with flat and noisy counts an image where every "
         "sample is the same (the worst contention) and one of uniform noise (the least), "
         "so that you can see where your layer sits.\n\n"
         "Repetitions sets how many timed runs each kernel gets; the table shows their "
         "median and range.  Export writes the counts as CSV, or counts, statistics and "
         "timings as JSON.  Copy table puts the tables on the clipboard for a "
         "spreadsheet.  The image is never changed."),
      "\n\n",
      _ ("Bins per channel: 256 by default; 1024 to 65536 count layers of more than 8 bits "
         "as 16-bit samples (16-bit layers by their own values, half and float layers "
         "rounded to 16 bits in the curve chosen), 65536 being every 16-bit level.  8-bit "
         "and indexed layers have 256 levels and always count into 256 bins.  Where there "
         "are more bins than pixels across, each pixel column of the plot draws the largest "
         "of its bins; pointing at it gives its bins and the exact number of samples in them, "
         "and the statistics use every bin.  Under the timing table: the strategy the "
         "fastest kernel ran as, and its time against the read-only ceiling."),
      NULL);
  message (parent, GTK_MESSAGE_INFO, _ ("GPU Histogram"), text);
  g_free (text);
}

/* ---- Building the dialog ------------------------------------------------------------------- */

static GtkWidget *
left_label (const char *text)
{
  GtkWidget *label = gtk_label_new (text);

  g_object_set (label, "xalign", 0.0, NULL);
  return label;
}

/* A frame whose bold title is a mnemonic for the widget inside. */
static GtkWidget *
framed (const char *title, GtkWidget *mnemonic_widget, GtkWidget *content)
{
  GtkWidget *frame = gimp_frame_new (NULL);
  GtkWidget *label = gtk_label_new_with_mnemonic (title);

  gtk_frame_set_label_widget (GTK_FRAME (frame), label);
  gtk_label_set_mnemonic_widget (GTK_LABEL (label), mnemonic_widget);
  gtk_container_add (GTK_CONTAINER (frame), content);
  return frame;
}

static GtkWidget *
table_box (GtkWidget *tree)
{
  GtkWidget *scrolled = gtk_scrolled_window_new (NULL, NULL);

  /* The tables ask for all their width: a scrolled-away column would hide the point. */
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled), GTK_POLICY_NEVER,
                                  GTK_POLICY_NEVER);
  gtk_scrolled_window_set_shadow_type (GTK_SCROLLED_WINDOW (scrolled), GTK_SHADOW_IN);
  gtk_container_add (GTK_CONTAINER (scrolled), tree);
  return scrolled;
}

static void
build (Dialog *d)
{
  GtkWidget *content;
  GtkWidget *main_box;
  GtkWidget *columns;
  GtkWidget *left;
  GtkWidget *right;
  GtkWidget *box;
  GtkWidget *row;
  GtkWidget *label;
  GtkWidget *tree;
  GtkWidget *compare_box;
  int c;

  d->dialog = gimp_dialog_new (_ ("GPU Histogram"), PLUG_IN_ROLE, NULL, 0, help_func, PLUG_IN_PROC,
                               _ ("_Close"), RESPONSE_CLOSE, NULL);
  gimp_window_set_transient (GTK_WINDOW (d->dialog));
  gtk_window_set_default_size (GTK_WINDOW (d->dialog), 1100, 680);
  gtk_dialog_set_default_response (GTK_DIALOG (d->dialog), RESPONSE_CLOSE);

  content = gtk_dialog_get_content_area (GTK_DIALOG (d->dialog));
  main_box = gpuhist_compat_box_new (GTK_ORIENTATION_VERTICAL, 8);
  gtk_container_set_border_width (GTK_CONTAINER (main_box), 12);
  gtk_box_pack_start (GTK_BOX (content), main_box, TRUE, TRUE, 0);

  /* The headline: the speedup, big. */
  d->headline = left_label (NULL);
  gtk_box_pack_start (GTK_BOX (main_box), d->headline, FALSE, FALSE, 0);
  d->subline = left_label (NULL);
  gtk_box_pack_start (GTK_BOX (main_box), d->subline, FALSE, FALSE, 0);
  d->info = left_label (NULL);
  gtk_label_set_ellipsize (GTK_LABEL (d->info), PANGO_ELLIPSIZE_END);
  gtk_box_pack_start (GTK_BOX (main_box), d->info, FALSE, FALSE, 0);

  row = gpuhist_compat_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  d->backend_icon = gtk_image_new_from_icon_name ("dialog-warning", GTK_ICON_SIZE_BUTTON);
  gtk_box_pack_start (GTK_BOX (row), d->backend_icon, FALSE, FALSE, 0);
  d->backend = left_label (NULL);
  gtk_label_set_ellipsize (GTK_LABEL (d->backend), PANGO_ELLIPSIZE_END);
  gtk_label_set_selectable (GTK_LABEL (d->backend), TRUE);
  gtk_box_pack_start (GTK_BOX (row), d->backend, TRUE, TRUE, 0);
  gtk_box_pack_start (GTK_BOX (main_box), row, FALSE, FALSE, 0);

  columns = gpuhist_compat_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  gtk_box_pack_start (GTK_BOX (main_box), columns, TRUE, TRUE, 0);
  left = gpuhist_compat_box_new (GTK_ORIENTATION_VERTICAL, 8);
  gtk_box_pack_start (GTK_BOX (columns), left, TRUE, TRUE, 0);
  right = gpuhist_compat_box_new (GTK_ORIENTATION_VERTICAL, 8);
  gtk_box_pack_start (GTK_BOX (columns), right, TRUE, TRUE, 0);

  /* Left: the histogram, its toggles, the statistics. */
  box = gpuhist_compat_box_new (GTK_ORIENTATION_VERTICAL, 4);
  d->view = gpuhist_histogram_view_new ();
  gtk_widget_set_size_request (d->view, 320, 220);
  atk_object_set_name (gtk_widget_get_accessible (d->view), "histogram");
  atk_object_set_description (gtk_widget_get_accessible (d->view),
                              _ ("The histogram of each channel of the layer"));
  gtk_box_pack_start (GTK_BOX (box), d->view, TRUE, TRUE, 0);
  d->bin_label = left_label (NULL);
  gtk_label_set_ellipsize (GTK_LABEL (d->bin_label), PANGO_ELLIPSIZE_END);
  gtk_box_pack_start (GTK_BOX (box), d->bin_label, FALSE, FALSE, 0);

  d->channel_box = gpuhist_compat_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  d->log_toggle = gtk_check_button_new_with_mnemonic (_ ("_Logarithmic"));
  gimp_help_set_help_data (d->log_toggle,
                           _ ("Scale the counts logarithmically, so that small "
                              "bins stay visible next to a busy one"),
                           NULL);
  gtk_box_pack_start (GTK_BOX (d->channel_box), d->log_toggle, FALSE, FALSE, 0);
  for (c = 0; c < GH_MAX_CHANNELS; c++)
    {
      d->channel_toggles[c] = gtk_check_button_new_with_mnemonic ("");
      gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (d->channel_toggles[c]), TRUE);
      gtk_box_pack_start (GTK_BOX (d->channel_box), d->channel_toggles[c], FALSE, FALSE, 0);
    }
  gtk_box_pack_start (GTK_BOX (box), d->channel_box, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (left), framed (_ ("Histogra_m"), d->view, box), TRUE, TRUE, 0);

  d->stats_store = store_new (STATS_COLUMNS);
  tree = table_new (d->stats_store, "statistics table", stats_titles (), STATS_COLUMNS);
  gtk_box_pack_start (GTK_BOX (left), framed (_ ("_Statistics"), tree, table_box (tree)), FALSE,
                      FALSE, 0);

  /* Right: the timing table, the contention comparison. */
  d->timing_store = store_new (TIMING_COLUMNS);
  tree = table_new (d->timing_store, "timing table", timing_titles (), TIMING_COLUMNS);
  box = gpuhist_compat_box_new (GTK_ORIENTATION_VERTICAL, 4);
  gtk_box_pack_start (GTK_BOX (box), table_box (tree), FALSE, FALSE, 0);
  d->strategy = left_label (NULL);
  gtk_label_set_line_wrap (GTK_LABEL (d->strategy), TRUE);
  gtk_label_set_selectable (GTK_LABEL (d->strategy), TRUE);
  gtk_box_pack_start (GTK_BOX (box), d->strategy, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (right), framed (_ ("_Timing"), tree, box), FALSE, FALSE, 0);

  compare_box = gpuhist_compat_box_new (GTK_ORIENTATION_VERTICAL, 6);
  d->compare_store = store_new (COMPARE_COLUMNS);
  tree = table_new (d->compare_store, "contention table", compare_titles (), COMPARE_COLUMNS);
  gtk_box_pack_start (GTK_BOX (compare_box), table_box (tree), FALSE, FALSE, 0);
  row = gpuhist_compat_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  d->compare_button = gtk_button_new_with_mnemonic (_ ("Compare with _flat and noisy"));
  gimp_help_set_help_data (d->compare_button,
                           _ ("Count a flat image (the most contention) and a uniform-noise "
                              "image (the least) of the layer's size with the same kernels"),
                           NULL);
  gtk_box_pack_start (GTK_BOX (row), d->compare_button, FALSE, FALSE, 0);
  label = left_label (_ ("Busiest bin: the share of the samples in the fullest level, largest "
                         "over the channels."));
  gtk_label_set_line_wrap (GTK_LABEL (label), TRUE);
  gtk_box_pack_start (GTK_BOX (row), label, TRUE, TRUE, 0);
  gtk_box_pack_start (GTK_BOX (compare_box), row, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (right), framed (_ ("Contention by inp_ut"), tree, compare_box),
                      FALSE, FALSE, 0);

  /* Bottom: repetitions, re-run, export, copy; then progress and status. */
  row = gpuhist_compat_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  label = gtk_label_new_with_mnemonic (_ ("Re_petitions:"));
  gtk_box_pack_start (GTK_BOX (row), label, FALSE, FALSE, 0);
  d->repetitions = gtk_spin_button_new_with_range (0, 1000, 1);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (d->repetitions),
                             MAX (d->params.settings->repetitions, 0));
  gtk_label_set_mnemonic_widget (GTK_LABEL (label), d->repetitions);
  gimp_help_set_help_data (d->repetitions,
                           _ ("Timed runs per kernel; 0 counts the histogram "
                              "once with the fastest kernel, untimed"),
                           NULL);
  gtk_box_pack_start (GTK_BOX (row), d->repetitions, FALSE, FALSE, 0);
  label = gtk_label_new_with_mnemonic (_ ("B_ins per channel:"));
  gtk_box_pack_start (GTK_BOX (row), label, FALSE, FALSE, 0);
  d->bins_combo = gtk_combo_box_text_new ();
  for (c = 0; c < (int) G_N_ELEMENTS (bin_choices); c++)
    {
      gchar *text = g_strdup_printf ("%d", bin_choices[c]);

      gtk_combo_box_text_append_text (GTK_COMBO_BOX_TEXT (d->bins_combo), text);
      g_free (text);
      if (bin_choices[c] == d->params.settings->bins)
        gtk_combo_box_set_active (GTK_COMBO_BOX (d->bins_combo), c);
    }
  if (gtk_combo_box_get_active (GTK_COMBO_BOX (d->bins_combo)) < 0)
    gtk_combo_box_set_active (GTK_COMBO_BOX (d->bins_combo), 0);
  gtk_label_set_mnemonic_widget (GTK_LABEL (label), d->bins_combo);
  gimp_help_set_help_data (d->bins_combo,
                           _ ("Bins per channel for Re-run: more than 256 counts layers of more "
                              "than 8 bits as 16-bit samples (65536: every 16-bit level); 8-bit "
                              "layers have 256 levels and always count into 256 bins"),
                           NULL);
  gtk_box_pack_start (GTK_BOX (row), d->bins_combo, FALSE, FALSE, 0);
  d->rerun_button = gtk_button_new_with_mnemonic (_ ("R_e-run"));
  gtk_box_pack_start (GTK_BOX (row), d->rerun_button, FALSE, FALSE, 0);
  d->copy_button = gtk_button_new_with_mnemonic (_ ("C_opy table"));
  gimp_help_set_help_data (d->copy_button, _ ("Copy the tables as tab-separated text"), NULL);
  gtk_box_pack_end (GTK_BOX (row), d->copy_button, FALSE, FALSE, 0);
  d->export_button = gtk_button_new_with_mnemonic (_ ("E_xport CSV/JSON…"));
  gtk_box_pack_end (GTK_BOX (row), d->export_button, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (main_box), row, FALSE, FALSE, 0);

  d->progress_box = gpuhist_compat_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  d->progress = gpuhist_compat_progress_bar_new ();
  gtk_box_pack_start (GTK_BOX (d->progress_box), d->progress, TRUE, TRUE, 0);
  d->cancel_button = gtk_button_new_with_mnemonic (_ ("Ca_ncel"));
  gtk_box_pack_start (GTK_BOX (d->progress_box), d->cancel_button, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (main_box), d->progress_box, FALSE, FALSE, 0);
  d->status = left_label (NULL);
  gtk_label_set_ellipsize (GTK_LABEL (d->status), PANGO_ELLIPSIZE_END);
  gtk_box_pack_start (GTK_BOX (main_box), d->status, FALSE, FALSE, 0);

  g_signal_connect (d->view, "bin-changed", G_CALLBACK (bin_changed), d);
  g_signal_connect (d->log_toggle, "toggled", G_CALLBACK (log_toggled), d);
  for (c = 0; c < GH_MAX_CHANNELS; c++)
    g_signal_connect (d->channel_toggles[c], "toggled", G_CALLBACK (channel_toggled), d);
  g_signal_connect (d->compare_button, "clicked", G_CALLBACK (compare_clicked), d);
  g_signal_connect (d->rerun_button, "clicked", G_CALLBACK (rerun_clicked), d);
  g_signal_connect (d->export_button, "clicked", G_CALLBACK (export_clicked), d);
  g_signal_connect (d->copy_button, "clicked", G_CALLBACK (copy_clicked), d);
  g_signal_connect (d->cancel_button, "clicked", G_CALLBACK (cancel_clicked), d);

  gtk_widget_show_all (d->dialog);
  update_all (d);
  bin_changed (GPUHIST_HISTOGRAM_VIEW (d->view), -1, d);
  set_busy (d, FALSE);
  gtk_widget_grab_focus (d->rerun_button);
}

gboolean
gpuhist_dialog_run (const GpuhistDialogParams *params)
{
  Dialog *d;
  gboolean has_histogram;

  g_return_val_if_fail (params != NULL, FALSE);
  g_return_val_if_fail (params->engine != NULL && params->source != NULL, FALSE);
  g_return_val_if_fail (params->settings != NULL && params->report != NULL, FALSE);

  d = g_new0 (Dialog, 1);
  d->params = *params;
  build (d);

  for (;;)
    {
      gint response = gimp_dialog_run (GIMP_DIALOG (d->dialog));

      if (response == RESPONSE_CLOSE || response == GTK_RESPONSE_DELETE_EVENT
          || response == GTK_RESPONSE_NONE)
        break;
    }

  /* Closing while the worker runs: cancel it and wait, keeping the main loop alive. */
  d->closing = TRUE;
  if (d->thread != NULL)
    {
      g_atomic_int_set (&d->cancel, 1);
      gtk_widget_hide (d->dialog);
      while (d->thread != NULL)
        g_main_context_iteration (NULL, TRUE);
    }

  save_settings (d);
  /* What Copy table put on the clipboard outlives the plug-in where a clipboard manager runs. */
  gtk_clipboard_store (gtk_widget_get_clipboard (d->dialog, GDK_SELECTION_CLIPBOARD));
  gtk_widget_destroy (d->dialog);
  g_object_unref (d->stats_store);
  g_object_unref (d->timing_store);
  g_object_unref (d->compare_store);

  has_histogram = params->report->layer.channels > 0;
  g_free (d);
  return has_histogram;
}

gboolean
gpuhist_dialog_measure_and_run (const GpuhistSource *source, GpuhistSettings *settings,
                                const GpuhistMonitor *monitor, GpuhistReport *report,
                                const char *note, void (*init_ui) (void),
                                const GpuhistDialogParams *hooks, GError **error)
{
  gh_engine *engine = gpuhist_run_measure (source, settings, monitor, note, report, error);
  GpuhistDialogParams params = *hooks;
  gboolean shown;

  if (engine == NULL)
    return FALSE;
  init_ui ();
  params.engine = engine;
  params.source = source;
  params.settings = settings;
  params.report = report;
  shown = gpuhist_dialog_run (&params);
  gpuhist_keeper_give_back (engine);
  if (!shown)
    g_set_error (error, GPUHIST_ERROR, GPUHIST_ERROR_GIMP, _ ("The dialog could not be shown."));
  return shown;
}
