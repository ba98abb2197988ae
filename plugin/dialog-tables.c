/* gpu-histogram: filling the dialog from the report.  See dialog-private.h. */
#include <string.h>

#include <glib/gi18n-lib.h>

#include "dialog-private.h"
#include "gtk-compat.h"
#include "report.h"

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
fill_stats (GpuhistDialog *d)
{
  const GpuhistReport *report = d->params.report;
  int c;

  gtk_list_store_clear (d->stats_store);
  for (c = 0; c < report->layer.channels; c++)
    {
      gh_channel_stats stats;
      gchar *cells[GPUHIST_STATS_COLUMNS];

      /* Over all the bins counted: the statistics are in bins, whatever the plot shows. */
      if (!gpuhist_result_channel_stats (&report->layer, c, &stats))
        break;
      cells[0] = channel_markup (report->channel_names[c]);
      gpuhist_format_stats_cells (&stats, cells + 1);
      append_row (d->stats_store, cells, GPUHIST_STATS_COLUMNS);
    }
}

static void
fill_strategy (GpuhistDialog *d)
{
  gchar *text = gpuhist_format_strategy (d->params.report);

  gtk_label_set_text (GTK_LABEL (d->strategy), text);
  g_free (text);
}

static void
fill_timing (GpuhistDialog *d)
{
  int row;

  gtk_list_store_clear (d->timing_store);
  for (row = 0; row < GPUHIST_N_TIMING_ROWS; row++)
    {
      gchar *cells[GPUHIST_TIMING_COLUMNS];

      gpuhist_format_timing_cells (d->params.report, row, cells);
      append_row (d->timing_store, cells, GPUHIST_TIMING_COLUMNS);
    }
}

void
gpuhist_dialog_fill_compare (GpuhistDialog *d)
{
  const GpuhistReport *report = d->params.report;
  gchar *cells[GPUHIST_COMPARE_COLUMNS];
  gchar *name;

  gtk_list_store_clear (d->compare_store);
  /* TRANSLATORS: the row of the user's own layer in the contention table */
  name = g_strdup_printf (_ ("Layer “%s”"),
                          report->drawable_name != NULL ? report->drawable_name : "");
  gpuhist_format_compare_cells (&report->layer, name, cells);
  append_row (d->compare_store, cells, GPUHIST_COMPARE_COLUMNS);
  g_free (name);

  if (report->flat.channels > 0)
    {
      gpuhist_format_compare_cells (&report->flat, _ ("Flat"), cells);
      append_row (d->compare_store, cells, GPUHIST_COMPARE_COLUMNS);
    }
  if (report->noise.channels > 0)
    {
      gpuhist_format_compare_cells (&report->noise, _ ("Uniform noise"), cells);
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

  take_markup (d->headline, gpuhist_format_headline (report));
  take_markup (d->subline, gpuhist_format_subline (report));
  gtk_label_set_text (GTK_LABEL (d->info), info);
  g_free (info);
  take_markup (d->backend, gpuhist_format_backend (report));
  gtk_widget_set_tooltip_text (d->backend, report->layer.backend);
  if (report->layer.used_gpu)
    gtk_widget_hide (d->backend_icon);
  else
    gtk_widget_show (d->backend_icon);
}

static void
fill_channel_toggles (GpuhistDialog *d)
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

void
gpuhist_dialog_update_all (GpuhistDialog *d)
{
  const GpuhistReport *report = d->params.report;
  GpuhistHistogramView *view = GPUHIST_HISTOGRAM_VIEW (d->view);
  int c;

  uint64_t *counts = gpuhist_report_display_counts (&report->layer);

  gpuhist_histogram_view_set_data (view, counts, report->layer.channels, report->layer.bins,
                                   report->channel_names);
  g_free (counts);
  /* Keep the user's choice of channels across re-runs. */
  for (c = 0; c < GH_MAX_CHANNELS; c++)
    gpuhist_histogram_view_set_channel_visible (
        view, c, gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (d->channel_toggles[c])));
  fill_channel_toggles (d);
  fill_headline (d);
  fill_stats (d);
  fill_timing (d);
  fill_strategy (d);
  gpuhist_dialog_fill_compare (d);
}

void
gpuhist_dialog_bin_changed (GpuhistHistogramView *view, gint bin, gpointer data)
{
  GpuhistDialog *d = data;
  gchar *text = gpuhist_histogram_view_describe_bin (view, bin);

  gtk_label_set_text (GTK_LABEL (d->bin_label),
                      text != NULL ? text
                                   : _ ("Point at or click a level to see its counts; Left and "
                                        "Right move the mark."));
  g_free (text);
}

void
gpuhist_dialog_log_toggled (GtkToggleButton *toggle, gpointer data)
{
  GpuhistDialog *d = data;

  gpuhist_histogram_view_set_logarithmic (GPUHIST_HISTOGRAM_VIEW (d->view),
                                          gtk_toggle_button_get_active (toggle));
}

void
gpuhist_dialog_channel_toggled (GtkToggleButton *toggle, gpointer data)
{
  GpuhistDialog *d = data;
  int c;

  for (c = 0; c < GH_MAX_CHANNELS; c++)
    if (GTK_WIDGET (toggle) == d->channel_toggles[c])
      gpuhist_histogram_view_set_channel_visible (GPUHIST_HISTOGRAM_VIEW (d->view), c,
                                                  gtk_toggle_button_get_active (toggle));
}

void
gpuhist_dialog_set_status (GpuhistDialog *d, const char *text)
{
  gtk_label_set_text (GTK_LABEL (d->status), text != NULL ? text : "");
}
