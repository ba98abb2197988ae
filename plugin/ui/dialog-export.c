/* gpu-histogram: the dialog's Export, Copy table and Help.  See dialog-private.h. */
#include <string.h>

#include <glib/gi18n-lib.h>

#include "dialog-private.h"
#include "report.h"

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

/* The file the user chose; without a known extension, the chosen filter's.  NULL for none. */
static gchar *
chosen_path (GtkWidget *chooser, GtkFileFilter *json, GtkFileFilter *png)
{
  gchar *path = gtk_file_chooser_get_filename (GTK_FILE_CHOOSER (chooser));
  GtkFileFilter *filter = gtk_file_chooser_get_filter (GTK_FILE_CHOOSER (chooser));
  gchar *with_suffix;

  if (path == NULL || gpuhist_report_file_kind (path) != GPUHIST_FILE_UNKNOWN)
    return path;
  with_suffix = g_strconcat (path,
                             filter == json  ? ".json"
                             : filter == png ? ".png"
                                             : ".csv",
                             NULL);
  g_free (path);
  return with_suffix;
}

/* PNG and CSV are the chart shown, its picture or its counts; JSON is the report (with the
 * scopes' counts). */
static gboolean
write_export (GpuhistDialog *d, int chart, const char *path, GError **error)
{
  switch (gpuhist_report_file_kind (path))
    {
    case GPUHIST_FILE_PNG:
      return gpuhist_charts[chart]->export_png (d->chart_pages[chart], path, error);
    case GPUHIST_FILE_CSV:
      return gpuhist_charts[chart]->export_csv (d->chart_pages[chart], path, error);
    default: return gpuhist_report_write (d->params.report, path, error);
    }
}

static GtkWidget *
export_chooser (GpuhistDialog *d, int chart, GtkFileFilter **json, GtkFileFilter **png)
{
  GtkFileFilter *csv = file_filter (_ ("CSV: the counts of the chart shown (*.csv)"), "*.csv");
  GtkWidget *chooser;
  gchar *name;

  *json = file_filter (_ ("JSON: counts, statistics, timings (*.json)"), "*.json");
  *png = file_filter (_ ("PNG: the chart shown (*.png)"), "*.png");
  chooser = gtk_file_chooser_dialog_new (
      _ ("Export the Histogram"), GTK_WINDOW (d->dialog), GTK_FILE_CHOOSER_ACTION_SAVE,
      _ ("_Cancel"), GTK_RESPONSE_CANCEL, _ ("_Export"), GTK_RESPONSE_ACCEPT, NULL);
  gtk_dialog_set_default_response (GTK_DIALOG (chooser), GTK_RESPONSE_ACCEPT);
  gtk_file_chooser_set_do_overwrite_confirmation (GTK_FILE_CHOOSER (chooser), TRUE);
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), csv);
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), *json);
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), *png);
  /* The histogram's counts by default; from another chart, its picture. */
  if (chart > 0)
    gtk_file_chooser_set_filter (GTK_FILE_CHOOSER (chooser), *png);
  name = g_strdup_printf (chart > 0 ? "%s-%s.png" : "%s-%s.csv",
                          d->params.report->drawable_name != NULL ? d->params.report->drawable_name
                                                                  : "layer",
                          gpuhist_charts[chart]->name);
  g_strdelimit (name, "/\\", '_');
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), name);
  g_free (name);
  return chooser;
}

void
gpuhist_dialog_export_clicked (GtkButton *button, gpointer data)
{
  GpuhistDialog *d = data;
  int chart = gpuhist_dialog_shown_chart (d);
  GtkFileFilter *json, *png;
  GtkWidget *chooser = export_chooser (d, chart, &json, &png);

  (void) button;
  if (gtk_dialog_run (GTK_DIALOG (chooser)) == GTK_RESPONSE_ACCEPT)
    {
      gchar *path = chosen_path (chooser, json, png);
      GError *error = NULL;

      if (path == NULL)
        message (chooser, GTK_MESSAGE_ERROR, _ ("Choose a local file to export to."), NULL);
      else if (!write_export (d, chart, path, &error))
        message (d->dialog, GTK_MESSAGE_ERROR, _ ("The histogram could not be exported."),
                 error != NULL ? error->message : NULL);
      else
        {
          gchar *display = g_filename_display_name (path);
          gchar *text = g_strdup_printf (_ ("Exported to %s"), display);

          gpuhist_dialog_set_status (d, text);
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

const char *const *
gpuhist_dialog_timing_titles (void)
{
  static const char *titles[GPUHIST_TIMING_COLUMNS];

  titles[0] = _ ("Kernel or step");
  titles[1] = _ ("Median");
  titles[2] = _ ("Min – max (ms)");
  titles[3] = _ ("GB/s");
  /* xgettext:no-c-format */
  titles[4] = _ ("% of ceiling");
  titles[5] = _ ("Speedup");
  return titles;
}

const char *const *
gpuhist_dialog_compare_titles (int scope)
{
  static const char *titles[GPUHIST_COMPARE_COLUMNS];
  const gboolean cells = scope >= 0 && scope < GH_N_SCOPES;

  titles[0] = _ ("Input");
  /* TRANSLATORS: a scope's table holds cells (a column's level, or a Cb and Cr), not bins */
  titles[1] = cells ? _ ("Busiest cell") : _ ("Busiest bin");
  titles[2] = cells ? _ ("Cells used") : _ ("Bins used");
  titles[3] = _ ("Global atomics");
  titles[4] = _ ("One copy per block");
  titles[5] = _ ("Fastest");
  titles[6] = _ ("Speedup");
  return titles;
}

const char *const *
gpuhist_dialog_stats_titles (void)
{
  static const char *titles[GPUHIST_STATS_COLUMNS];

  titles[0] = _ ("Channel");
  titles[1] = _ ("Mean");
  titles[2] = _ ("Std. dev.");
  titles[3] = _ ("Median");
  titles[4] = _ ("Min");
  titles[5] = _ ("Max");
  titles[6] = _ ("Busiest bin");
  titles[7] = _ ("Bins used");
  titles[8] = _ ("Pixels");
  titles[9] = _ ("Shadows");
  titles[10] = _ ("Highlights");
  return titles;
}

const char *const *
gpuhist_dialog_range_titles (void)
{
  static const char *titles[GPUHIST_RANGE_COLUMNS];

  titles[0] = _ ("Channel");
  titles[1] = _ ("Pixels");
  titles[2] = _ ("Share");
  titles[3] = _ ("Mean");
  titles[4] = _ ("Median");
  titles[5] = _ ("Std. dev.");
  return titles;
}

void
gpuhist_dialog_copy_clicked (GtkButton *button, gpointer data)
{
  GpuhistDialog *d = data;
  GString *text = g_string_new (NULL);
  GtkClipboard *clipboard;

  (void) button;
  g_string_append_printf (text, "%s\n", d->params.report->layer.backend);
  append_store_text (text, d->timing_store, gpuhist_dialog_timing_titles (),
                     GPUHIST_TIMING_COLUMNS);
  g_string_append_c (text, '\n');
  append_store_text (text, d->compare_store,
                     gpuhist_dialog_compare_titles (gpuhist_dialog_shown_scope (d)),
                     GPUHIST_COMPARE_COLUMNS);
  g_string_append_c (text, '\n');
  append_store_text (text, d->stats_store, gpuhist_dialog_stats_titles (), GPUHIST_STATS_COLUMNS);

  clipboard = gtk_widget_get_clipboard (d->dialog, GDK_SELECTION_CLIPBOARD);
  gtk_clipboard_set_text (clipboard, text->str, (gint) text->len);
  g_string_free (text, TRUE);
  gpuhist_dialog_set_status (d, _ ("Copied the tables to the clipboard as tab-separated text."));
}

void
gpuhist_dialog_help (const gchar *help_id, gpointer help_data)
{
  GtkWidget *parent = GTK_IS_WIDGET (help_data) ? gtk_widget_get_toplevel (help_data) : NULL;
  gchar *text;

  (void) help_id;
  text = g_strconcat (
      _ ("Counts the 256-level histogram of each channel of the layer on the GPU (or on the "
         "CPU when no GPU can be used) and times how.\n\n"
         "Global atomics: every sample adds to one shared table, so threads that meet the "
         "same level wait for each other.  Privatized (one copy per block): each block "
         "counts into its own copy and merges once.  Fastest: this plug-in's own privatized "
         "kernel.  Read-only: reads the pixels and counts nothing, the ceiling no "
         "histogram can beat.\n\n"
         "The headline says how many times faster the fastest kernel is than global "
         "atomics on this layer.  Compare with flat and noisy counts an image where every "
         "sample is the same (the worst contention) and one of uniform noise (the least), "
         "so that you can see where your layer sits.\n\n"
         "Repetitions sets how many timed runs each kernel gets; the table shows their "
         "median and range.  Export writes the counts of the chart shown as CSV, or counts, "
         "statistics and timings as JSON.  Copy table puts the tables on the clipboard for a "
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
      "\n\n",
      _ ("The tabs above the histogram show the same count as other charts.  Waveform: each "
         "column of the layer, left to right, its levels from the bottom up.  RGB Parade: the "
         "waveforms of red, green and blue side by side.  Vectorscope: the colours by their "
         "Rec. 709 chroma, neutral in the middle, with the skin-tone line.  The channel boxes "
         "under the charts choose the channels of the histogram and the waveform.  Pointing at "
         "a chart gives the columns, levels or colours under the pointer and their pixels; "
         "Export saves the chart shown as PNG, or its counts as CSV: the waveform a row for "
         "each channel drawn and column (the channel, the column, then a count a level), the "
         "parade the same for red, green and blue, the vectorscope a row for each Cr (the Cr, "
         "then a count for each Cb from 0 to 255)."),
      NULL);
  message (parent, GTK_MESSAGE_INFO, _ ("GPU Histogram"), text);
  g_free (text);
}
