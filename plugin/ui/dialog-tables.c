/* gpu-histogram: filling the dialog from the report.  See dialog-private.h. */
#include <string.h>

#include <glib/gi18n-lib.h>

#include "dialog-private.h"
#include "gtk-compat.h"
#include "report.h"

/* The contention table's rows of the comparison, by gh_pattern. */
static const char *const pattern_rows[GH_N_PATTERNS] = { N_ ("Flat"), N_ ("Uniform noise") };

GtkWidget *
gpuhist_dialog_table_new (GtkListStore *store, const char *accessible_name,
                          const char *const *titles, int n_columns)
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

GtkListStore *
gpuhist_dialog_store_new (int n_columns)
{
  GType types[GPUHIST_STATS_COLUMNS];
  int i;

  g_return_val_if_fail (n_columns <= GPUHIST_STATS_COLUMNS, NULL);
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

gchar *
gpuhist_dialog_channel_markup (const char *channel_name, const char *text)
{
  double rgb[3];

  gpuhist_channel_color (channel_name, rgb);
  return g_markup_printf_escaped ("<span foreground=\"#%02x%02x%02x\">■</span> %s",
                                  (int) (rgb[0] * 255), (int) (rgb[1] * 255), (int) (rgb[2] * 255),
                                  text);
}

static gchar *
channel_markup (const char *channel_name)
{
  return gpuhist_dialog_channel_markup (channel_name, gpuhist_channel_display_name (channel_name));
}

static void
fill_stats (GpuhistDialog *d)
{
  const GpuhistReport *report = d->params.report;
  int c;

  gtk_list_store_clear (d->stats_store);
  for (c = 0; c < report->layer.channels; c++)
    {
      gh_channel_stats stats;
      gchar *cells[GPUHIST_STATS_COLUMNS];

      double shadows, highlights;

      /* Over all the bins counted: the statistics are in bins, whatever the plot shows. */
      if (!gpuhist_result_channel_stats (&report->layer, c, &stats))
        break;
      gpuhist_channel_clipping (&report->layer, c, &shadows, &highlights);
      cells[0] = channel_markup (report->channel_names[c]);
      gpuhist_format_stats_cells (&stats, shadows, highlights, cells + 1);
      append_row (d->stats_store, cells, GPUHIST_STATS_COLUMNS);
    }
}

int
gpuhist_dialog_shown_scope (GpuhistDialog *d)
{
  switch (gpuhist_charts[gpuhist_dialog_shown_chart (d)]->engine_chart)
    {
    case GH_CHART_WAVEFORM:
    case GH_CHART_PARADE: return GH_SCOPE_WAVEFORM;
    case GH_CHART_VECTORSCOPE: return GH_SCOPE_VECTORSCOPE;
    default: return -1;
    }
}

static void
fill_strategy (GpuhistDialog *d, const GpuhistReport *view, int scope)
{
  gchar *text
      = scope < 0 ? gpuhist_format_strategy (view) : gpuhist_format_scope_strategy (view, scope);

  gtk_label_set_text (GTK_LABEL (d->strategy), text);
  g_free (text);
}

static void
fill_timing (GpuhistDialog *d, const GpuhistReport *view)
{
  int row;

  gtk_list_store_clear (d->timing_store);
  for (row = 0; row < GPUHIST_N_TIMING_ROWS; row++)
    {
      gchar *cells[GPUHIST_TIMING_COLUMNS];

      gpuhist_format_timing_cells (view, row, cells);
      append_row (d->timing_store, cells, GPUHIST_TIMING_COLUMNS);
    }
}

void
gpuhist_dialog_fill_tables (GpuhistDialog *d)
{
  const int scope = gpuhist_dialog_shown_scope (d);
  GpuhistReport view;

  gpuhist_report_scope_view (d->params.report, scope, &view);
  fill_timing (d, &view);
  fill_strategy (d, &view, scope);
  gpuhist_dialog_fill_compare (d);
}

/* The table's column titles, which name bins or cells as the chart shown counts them. */
static void
retitle (GtkWidget *tree, const char *const *titles, int n)
{
  for (int i = 0; i < n; i++)
    gtk_tree_view_column_set_title (gtk_tree_view_get_column (GTK_TREE_VIEW (tree), i), titles[i]);
}

void
gpuhist_dialog_fill_compare (GpuhistDialog *d)
{
  const int scope = gpuhist_dialog_shown_scope (d);
  GpuhistReport shown;
  const GpuhistReport *report = &shown;
  gchar *cells[GPUHIST_COMPARE_COLUMNS];
  gchar *name;

  gpuhist_report_scope_view (d->params.report, scope, &shown);
  gtk_label_set_text (GTK_LABEL (d->compare_caption), gpuhist_format_contention_caption (scope));
  retitle (d->compare_tree, gpuhist_dialog_compare_titles (scope), GPUHIST_COMPARE_COLUMNS);
  gtk_list_store_clear (d->compare_store);
  /* TRANSLATORS: the row of the user's own layer in the contention table */
  name = g_strdup_printf (_ ("Layer “%s”"),
                          report->drawable_name != NULL ? report->drawable_name : "");
  gpuhist_format_compare_cells (&report->layer, scope, name, cells);
  append_row (d->compare_store, cells, GPUHIST_COMPARE_COLUMNS);
  g_free (name);

  for (int p = 0; p < GH_N_PATTERNS; p++)
    if (report->patterns[p].channels > 0)
      {
        gpuhist_format_compare_cells (&report->patterns[p], scope, _ (pattern_rows[p]), cells);
        append_row (d->compare_store, cells, GPUHIST_COMPARE_COLUMNS);
      }
}

void
gpuhist_dialog_fill_compare_as_compared (GpuhistDialog *d)
{
  const char *names[] = { _ ("Flat"), _ ("Uniform noise") };
  gchar *cells[GPUHIST_COMPARE_COLUMNS];
  guint i;

  gpuhist_dialog_fill_compare (d);
  for (i = 0; i < G_N_ELEMENTS (names); i++)
    {
      gpuhist_format_compare_cells (&d->params.report->layer, -1, names[i], cells);
      append_row (d->compare_store, cells, GPUHIST_COMPARE_COLUMNS);
    }
}

/* Sets a label's markup, taking the markup over. */
static void
take_markup (GtkWidget *label, gchar *markup)
{
  gtk_label_set_markup (GTK_LABEL (label), markup);
  g_free (markup);
}

static void
fill_headline (GpuhistDialog *d)
{
  const GpuhistReport *report = d->params.report;
  const GpuhistSource *source = d->params.source;
  gchar *info = gpuhist_format_info (report, source->area.width, source->area.height,
                                     d->params.settings->linear);
  gchar *info_counted;

  take_markup (d->headline, gpuhist_format_headline (report));
  take_markup (d->subline, gpuhist_format_subline (report));
  info_counted = gpuhist_format_counted (report);
  gtk_label_set_text (GTK_LABEL (d->counted), info_counted);
  g_free (info_counted);
  gtk_label_set_text (GTK_LABEL (d->info), info);
  g_free (info);
  take_markup (d->backend, gpuhist_format_backend (report));
  gtk_widget_set_tooltip_text (d->backend, report->layer.backend);
  if (report->layer.used_gpu)
    gtk_widget_hide (d->backend_icon);
  else
    gtk_widget_show (d->backend_icon);
}

/* Every chart takes the report in; those it cannot draw hide their tabs. */
static void
update_charts (GpuhistDialog *d)
{
  for (int i = 0; i < GPUHIST_N_CHARTS; i++)
    {
      const GpuhistChart *chart = gpuhist_charts[i];

      chart->update (d->chart_pages[i], d);
      gtk_widget_set_visible (d->chart_pages[i], chart->available (d->params.report));
    }
}

void
gpuhist_dialog_update_all (GpuhistDialog *d)
{
  update_charts (d);
  gpuhist_dialog_channels_update (d);
  fill_headline (d);
  fill_stats (d);
  gpuhist_dialog_fill_tables (d);
  gpuhist_dialog_range_changed (GPUHIST_HISTOGRAM_VIEW (d->view), d);
}

/* The range's title, and a row of its statistics for each channel drawn. */
void
gpuhist_dialog_range_changed (GpuhistHistogramView *view, gpointer data)
{
  GpuhistDialog *d = data;
  const gh_result *layer = &d->params.report->layer;
  int lo, hi;
  gchar *title;

  gtk_list_store_clear (d->range_store);
  if (!gpuhist_histogram_view_get_range (view, &lo, &hi) || hi >= layer->bins)
    {
      gtk_label_set_text (GTK_LABEL (d->range_label),
                          _ ("Drag across the histogram to select a range of levels; Shift "
                             "with the arrow keys extends it, Escape clears it."));
      return;
    }
  title = gpuhist_format_range (lo, hi, layer->bins);
  gtk_label_set_text (GTK_LABEL (d->range_label), title);
  g_free (title);
  for (int c = 0; c < layer->channels; c++)
    {
      GpuhistRangeStats stats;
      gchar *cells[GPUHIST_RANGE_COLUMNS];

      if (!gpuhist_histogram_view_get_channel_visible (view, c)
          || !gpuhist_range_stats (layer, c, lo, hi, &stats))
        continue;
      cells[0] = channel_markup (d->params.report->channel_names[c]);
      gpuhist_format_range_cells (&stats, cells + 1);
      append_row (d->range_store, cells, GPUHIST_RANGE_COLUMNS);
    }
}

void
gpuhist_dialog_set_status (GpuhistDialog *d, const char *text)
{
  gtk_label_set_text (GTK_LABEL (d->status), text != NULL ? text : "");
}
