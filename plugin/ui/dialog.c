/* gpu-histogram: the interactive dialog.  See dialog.h.
 *
 * Everything here is the same for GTK 2 and GTK 3: the calls that differ live behind
 * gtk-compat.h, and tables are GtkTreeViews, whose API both versions share.
 */
#include <glib/gi18n-lib.h>

#include "dialog-private.h"
#include "engine-keeper.h"
#include "gtk-compat.h"
#include "run.h"
#include "texts.h"

#define RESPONSE_CLOSE GTK_RESPONSE_CLOSE

const int gpuhist_bin_choices[GPUHIST_N_BIN_CHOICES] = { 256, 1024, 4096, 16384, 65536 };

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

/* The headline (the speedup, big), the line about the layer, and the backend. */
static void
build_header (GpuhistDialog *d, GtkWidget *main_box)
{
  GtkWidget *row;

  d->headline = left_label (NULL);
  gtk_box_pack_start (GTK_BOX (main_box), d->headline, FALSE, FALSE, 0);
  d->subline = left_label (NULL);
  gtk_box_pack_start (GTK_BOX (main_box), d->subline, FALSE, FALSE, 0);
  d->counted = left_label (NULL);
  gtk_label_set_selectable (GTK_LABEL (d->counted), TRUE);
  gtk_box_pack_start (GTK_BOX (main_box), d->counted, FALSE, FALSE, 0);
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
}

int
gpuhist_dialog_shown_chart (GpuhistDialog *d)
{
  GtkNotebook *notebook = GTK_NOTEBOOK (d->notebook);
  GtkWidget *page = gtk_notebook_get_nth_page (notebook, gtk_notebook_get_current_page (notebook));

  for (int i = 0; i < GPUHIST_N_CHARTS; i++)
    if (d->chart_pages[i] == page)
      return i;
  return 0;
}

/* Another chart shown: the tables show its table's timings (no count). */
static void
chart_switched (GtkNotebook *notebook, GtkWidget *page, guint number, gpointer data)
{
  (void) notebook;
  (void) page;
  (void) number;
  gpuhist_dialog_channels_follow_chart (data);
  gpuhist_dialog_fill_tables (data);
}

/* A notebook of the charts (chart.h), a page each, in the order of their list; the pages that
 * the report cannot draw are hidden by gpuhist_dialog_update_all. */
static GtkWidget *
build_charts (GpuhistDialog *d)
{
  d->notebook = gtk_notebook_new ();
  for (int i = 0; i < GPUHIST_N_CHARTS; i++)
    {
      const GpuhistChart *chart = gpuhist_charts[i];

      d->chart_pages[i] = chart->create (chart, d);
      gtk_notebook_append_page (GTK_NOTEBOOK (d->notebook), d->chart_pages[i],
                                gtk_label_new_with_mnemonic (_ (chart->label)));
    }
  g_signal_connect_after (d->notebook, "switch-page", G_CALLBACK (chart_switched), d);
  return d->notebook;
}

/* The statistics table, whose last two columns are the clipping, and what those mean. */
static GtkWidget *
build_stats_pane (GpuhistDialog *d)
{
  GtkWidget *tree;
  GtkWidget *box;
  GtkWidget *note;

  d->stats_store = gpuhist_dialog_store_new (GPUHIST_STATS_COLUMNS);
  tree = gpuhist_dialog_table_new (d->stats_store, "statistics table",
                                   gpuhist_dialog_stats_titles (), GPUHIST_STATS_COLUMNS);
  box = gpuhist_compat_box_new (GTK_ORIENTATION_VERTICAL, 4);
  gtk_box_pack_start (GTK_BOX (box), table_box (tree), FALSE, FALSE, 0);
  note = left_label (_ ("Shadows and Highlights: the share of the counted pixels in the lowest "
                        "and in the highest level, clipped."));
  gtk_label_set_line_wrap (GTK_LABEL (note), TRUE);
  gtk_box_pack_start (GTK_BOX (box), note, FALSE, FALSE, 0);
  return framed (_ ("_Statistics"), tree, box);
}

/* The selected range's title and its statistics, per visible channel. */
static GtkWidget *
build_range_pane (GpuhistDialog *d)
{
  GtkWidget *tree;
  GtkWidget *box;
  GtkWidget *frame;

  box = gpuhist_compat_box_new (GTK_ORIENTATION_VERTICAL, 4);
  d->range_label = left_label (NULL);
  gtk_label_set_line_wrap (GTK_LABEL (d->range_label), TRUE);
  gtk_box_pack_start (GTK_BOX (box), d->range_label, FALSE, FALSE, 0);
  d->range_store = gpuhist_dialog_store_new (GPUHIST_RANGE_COLUMNS);
  tree = gpuhist_dialog_table_new (d->range_store, "range table", gpuhist_dialog_range_titles (),
                                   GPUHIST_RANGE_COLUMNS);
  gtk_box_pack_start (GTK_BOX (box), table_box (tree), FALSE, FALSE, 0);
  frame = gimp_frame_new (_ ("Range"));
  gtk_container_add (GTK_CONTAINER (frame), box);
  return frame;
}

/* The timing table and the fastest kernel's strategy under it. */
static GtkWidget *
build_timing_pane (GpuhistDialog *d)
{
  GtkWidget *tree;
  GtkWidget *box;

  d->timing_store = gpuhist_dialog_store_new (GPUHIST_TIMING_COLUMNS);
  tree = gpuhist_dialog_table_new (d->timing_store, "timing table", gpuhist_dialog_timing_titles (),
                                   GPUHIST_TIMING_COLUMNS);
  box = gpuhist_compat_box_new (GTK_ORIENTATION_VERTICAL, 4);
  gtk_box_pack_start (GTK_BOX (box), table_box (tree), FALSE, FALSE, 0);
  d->strategy = left_label (NULL);
  gtk_label_set_line_wrap (GTK_LABEL (d->strategy), TRUE);
  gtk_label_set_selectable (GTK_LABEL (d->strategy), TRUE);
  gtk_box_pack_start (GTK_BOX (box), d->strategy, FALSE, FALSE, 0);
  return framed (_ ("_Timing"), tree, box);
}

/* The contention table and its Compare button. */
static GtkWidget *
build_compare_pane (GpuhistDialog *d)
{
  GtkWidget *compare_box;
  GtkWidget *tree;
  GtkWidget *row;

  compare_box = gpuhist_compat_box_new (GTK_ORIENTATION_VERTICAL, 6);
  d->compare_store = gpuhist_dialog_store_new (GPUHIST_COMPARE_COLUMNS);
  tree = gpuhist_dialog_table_new (d->compare_store, "contention table",
                                   gpuhist_dialog_compare_titles (-1), GPUHIST_COMPARE_COLUMNS);
  d->compare_tree = tree;
  gtk_box_pack_start (GTK_BOX (compare_box), table_box (tree), FALSE, FALSE, 0);
  row = gpuhist_compat_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  d->compare_button = gtk_button_new_with_mnemonic (_ ("Compare with _flat and noisy"));
  gimp_help_set_help_data (d->compare_button,
                           _ ("Count a flat image (the most contention) and a uniform-noise "
                              "image (the least) of the layer's size with the same kernels"),
                           NULL);
  gtk_box_pack_start (GTK_BOX (row), d->compare_button, FALSE, FALSE, 0);
  /* What the table's numbers mean for the chart shown (gpuhist_dialog_fill_compare). */
  d->compare_caption = left_label (gpuhist_format_contention_caption (-1));
  gtk_label_set_line_wrap (GTK_LABEL (d->compare_caption), TRUE);
  gtk_box_pack_start (GTK_BOX (row), d->compare_caption, TRUE, TRUE, 0);
  gtk_box_pack_start (GTK_BOX (compare_box), row, FALSE, FALSE, 0);
  return framed (_ ("Contention b_y input"), tree, compare_box);
}

/* The Bins combo, showing `bins` (else the first choice). */
static GtkWidget *
build_bins_combo (int bins)
{
  GtkWidget *combo = gtk_combo_box_text_new ();
  int c;

  for (c = 0; c < (int) G_N_ELEMENTS (gpuhist_bin_choices); c++)
    {
      gchar *text = g_strdup_printf ("%d", gpuhist_bin_choices[c]);

      gtk_combo_box_text_append_text (GTK_COMBO_BOX_TEXT (combo), text);
      g_free (text);
      if (gpuhist_bin_choices[c] == bins)
        gtk_combo_box_set_active (GTK_COMBO_BOX (combo), c);
    }
  if (gtk_combo_box_get_active (GTK_COMBO_BOX (combo)) < 0)
    gtk_combo_box_set_active (GTK_COMBO_BOX (combo), 0);
  return combo;
}

/* A combo of these entries, showing entry `active`. */
static GtkWidget *
build_choice_combo (const char *const *entries, int n_entries, int active)
{
  GtkWidget *combo = gtk_combo_box_text_new ();

  for (int i = 0; i < n_entries; i++)
    gtk_combo_box_text_append_text (GTK_COMBO_BOX_TEXT (combo), entries[i]);
  gtk_combo_box_set_active (GTK_COMBO_BOX (combo), CLAMP (active, 0, n_entries - 1));
  return combo;
}

/* A mnemonic label and a combo of these entries showing entry `active`, packed into row. */
static GtkWidget *
labelled_combo (GtkWidget *row, const char *label_text, const char *const *entries, int n_entries,
                int active, const char *tooltip)
{
  GtkWidget *label = gtk_label_new_with_mnemonic (label_text);
  GtkWidget *combo = build_choice_combo (entries, n_entries, active);

  gtk_label_set_mnemonic_widget (GTK_LABEL (label), combo);
  gimp_help_set_help_data (combo, tooltip, NULL);
  gtk_box_pack_start (GTK_BOX (row), label, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (row), combo, FALSE, FALSE, 0);
  return combo;
}

/* Weighting and the source: what Re-run counts.  The entries are GpuhistWeighting's and
 * GpuhistSourceKind's, in order, named as the procedure's choices are in GIMP 3.0. */
static void
build_counting_controls (GpuhistDialog *d, GtkWidget *main_box)
{
  const char *weightings[] = { _ ("As GIMP counts"), _ ("Whole pixels") };
  const char *sources[] = { _ ("The drawable"), _ ("The visible image") };
  GtkWidget *row = gpuhist_compat_box_new (GTK_ORIENTATION_HORIZONTAL, 6);

  d->weighting_combo = labelled_combo (
      row, _ ("_Weighting:"), weightings, G_N_ELEMENTS (weightings), d->params.settings->weighting,
      _ ("For Re-run: as GIMP's histogram counts (each pixel by its selection coverage, colours "
         "by alpha), or whole pixels (each pixel at least half selected once, alpha ignored)"));
  d->source_combo = labelled_combo (
      row, _ ("Rea_d from:"), sources, G_N_ELEMENTS (sources), d->params.settings->source,
      _ ("For Re-run: the drawable, or the image as it is shown, every visible layer composited "
         "(the image is not changed)"));
  d->follow_toggle = gtk_check_button_new_with_mnemonic (_ ("_Keep up with the image"));
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (d->follow_toggle),
                                d->params.settings->follow && d->params.signature != NULL);
  gtk_widget_set_sensitive (d->follow_toggle, d->params.signature != NULL);
  gimp_help_set_help_data (d->follow_toggle,
                           _ ("Count again by itself half a second after the image changes: its "
                              "pixels, the active layer or channel, or the selection"),
                           NULL);
  gtk_box_pack_start (GTK_BOX (row), d->follow_toggle, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (main_box), row, FALSE, FALSE, 0);
}

/* Repetitions, Bins, Re-run, Export and Copy. */
static void
build_controls (GpuhistDialog *d, GtkWidget *main_box)
{
  GtkWidget *row;
  GtkWidget *label;

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
  d->bins_combo = build_bins_combo (d->params.settings->bins);
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
  d->export_button = gtk_button_new_with_mnemonic (_ ("E_xport CSV/JSON/PNG…"));
  gtk_box_pack_end (GTK_BOX (row), d->export_button, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (main_box), row, FALSE, FALSE, 0);
}

/* The progress bar with Cancel, shown while the worker runs, and the status line. */
static void
build_progress (GpuhistDialog *d, GtkWidget *main_box)
{
  d->progress_box = gpuhist_compat_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  d->progress = gpuhist_compat_progress_bar_new ();
  gtk_box_pack_start (GTK_BOX (d->progress_box), d->progress, TRUE, TRUE, 0);
  d->cancel_button = gtk_button_new_with_mnemonic (_ ("Ca_ncel"));
  gtk_box_pack_start (GTK_BOX (d->progress_box), d->cancel_button, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (main_box), d->progress_box, FALSE, FALSE, 0);
  d->stale = left_label (_ ("Out of date: the tables show the last complete count until the "
                            "new one is done."));
  gtk_label_set_line_wrap (GTK_LABEL (d->stale), TRUE);
  gtk_box_pack_start (GTK_BOX (main_box), d->stale, FALSE, FALSE, 0);
  d->status = left_label (NULL);
  gtk_label_set_ellipsize (GTK_LABEL (d->status), PANGO_ELLIPSIZE_END);
  gtk_box_pack_start (GTK_BOX (main_box), d->status, FALSE, FALSE, 0);
}

static void
connect_signals (GpuhistDialog *d)
{
  g_signal_connect (d->compare_button, "clicked", G_CALLBACK (gpuhist_dialog_compare_clicked), d);
  g_signal_connect (d->rerun_button, "clicked", G_CALLBACK (gpuhist_dialog_rerun_clicked), d);
  g_signal_connect (d->export_button, "clicked", G_CALLBACK (gpuhist_dialog_export_clicked), d);
  g_signal_connect (d->copy_button, "clicked", G_CALLBACK (gpuhist_dialog_copy_clicked), d);
  g_signal_connect (d->cancel_button, "clicked", G_CALLBACK (gpuhist_dialog_cancel_clicked), d);
  g_signal_connect (d->follow_toggle, "toggled", G_CALLBACK (gpuhist_dialog_follow_toggled), d);
  g_signal_connect (d->bins_combo, "changed", G_CALLBACK (gpuhist_dialog_choice_changed), d);
  g_signal_connect (d->weighting_combo, "changed", G_CALLBACK (gpuhist_dialog_choice_changed), d);
  g_signal_connect (d->source_combo, "changed", G_CALLBACK (gpuhist_dialog_choice_changed), d);
}

/* A column of panes and the scrolled window it sits in. */
typedef struct
{
  GtkWidget *box;
  GtkWidget *scroller;
} PaneColumn;

static PaneColumn
pane_column_new (GtkWidget *columns, GtkPolicyType sideways, gboolean expand)
{
  PaneColumn column;

  column.box = gpuhist_compat_box_new (GTK_ORIENTATION_VERTICAL, 8);
  column.scroller = gpuhist_compat_scrolled_new (column.box, sideways);
  /* A widget reached from the keyboard scrolls into view. */
  gtk_container_set_focus_vadjustment (
      GTK_CONTAINER (column.box),
      gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (column.scroller)));
  gtk_container_set_focus_hadjustment (
      GTK_CONTAINER (column.box),
      gtk_scrolled_window_get_hadjustment (GTK_SCROLLED_WINDOW (column.scroller)));
  gtk_box_pack_start (GTK_BOX (columns), column.scroller, expand, expand, 0);
  return column;
}

/* The panes whole where the screen has room, else each column scrolled on its own: the tables
 * stacked on the right are taller than a laptop's 768-pixel screen, and a dialog taller than the
 * screen hides its own buttons.  The histogram's column never scrolls sideways, so that the
 * plot stays whole, and takes the width the window gains; on a narrow screen the tables
 * scroll sideways. */
static void
fit_to_screen (GtkWidget *dialog, GtkWidget *main_box, const PaneColumn *left,
               const PaneColumn *right)
{
  /* Room for a scroll bar beside a column that no longer fits, and for what GTK 2's tables add
   * to their measure once shown. */
  const gint bar = 48;
  const gint narrow = 420;
  gint left_width, left_height, right_width, right_height, right_request;
  gint dialog_width, dialog_height, box_width, box_height, columns_width, columns_height;
  gint most_width, most_height;
  GdkRectangle area;

  gpuhist_compat_natural_size (left->box, &left_width, &left_height);
  gpuhist_compat_natural_size (right->box, &right_width, &right_height);
  gtk_widget_set_size_request (left->scroller, -1, MIN (left_height, 320));
  gtk_widget_set_size_request (right->scroller, MIN (right_width, narrow), MIN (right_height, 320));

  gpuhist_compat_natural_size (dialog, &dialog_width, &dialog_height);
  gpuhist_compat_natural_size (main_box, &box_width, &box_height);
  gpuhist_compat_natural_size (gtk_widget_get_parent (left->scroller), &columns_width,
                               &columns_height);
  gpuhist_compat_work_area (&area);
  most_width = area.width * 9 / 10;
  most_height = area.height * 9 / 10;

  /* The tables' column as wide as they are, where the screen leaves it the room. */
  columns_width -= MIN (right_width, narrow);
  right_request = CLAMP (most_width - (dialog_width - box_width) - columns_width,
                         MIN (right_width, narrow), right_width + bar);
  gtk_widget_set_size_request (right->scroller, right_request, MIN (right_height, 320));
  /* The columns sit in a stack of rows: as wide as the widest row, as tall as all of them. */
  gtk_window_set_default_size (
      GTK_WINDOW (dialog),
      MIN (dialog_width - box_width + MAX (box_width, columns_width + right_request), most_width),
      MIN (dialog_height - columns_height + MAX (left_height, right_height) + bar, most_height));
}

static void
build (GpuhistDialog *d)
{
  GtkWidget *content;
  GtkWidget *main_box;
  GtkWidget *columns;
  PaneColumn left, right;

  d->dialog = gimp_dialog_new (_ ("GPU Histogram"), PLUG_IN_ROLE, NULL, 0, gpuhist_dialog_help,
                               PLUG_IN_PROC, _ ("_Close"), RESPONSE_CLOSE, NULL);
  gimp_window_set_transient (GTK_WINDOW (d->dialog));
  gtk_dialog_set_default_response (GTK_DIALOG (d->dialog), RESPONSE_CLOSE);

  content = gtk_dialog_get_content_area (GTK_DIALOG (d->dialog));
  main_box = gpuhist_compat_box_new (GTK_ORIENTATION_VERTICAL, 8);
  gtk_container_set_border_width (GTK_CONTAINER (main_box), 12);
  gtk_box_pack_start (GTK_BOX (content), main_box, TRUE, TRUE, 0);

  build_header (d, main_box);
  columns = gpuhist_compat_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  gtk_box_pack_start (GTK_BOX (main_box), columns, TRUE, TRUE, 0);
  /* Left: the charts and the histogram's selected range; right: the statistics, the timing and the
   * contention tables (side by side the tables would be wider than many screens). */
  left = pane_column_new (columns, GTK_POLICY_NEVER, TRUE);
  right = pane_column_new (columns, GTK_POLICY_AUTOMATIC, FALSE);
  gtk_box_pack_start (GTK_BOX (left.box), build_charts (d), TRUE, TRUE, 0);
  gtk_box_pack_start (GTK_BOX (left.box), gpuhist_dialog_channels_new (d), FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (left.box), build_range_pane (d), FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (right.box), build_stats_pane (d), FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (right.box), build_timing_pane (d), FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (right.box), build_compare_pane (d), FALSE, FALSE, 0);
  build_counting_controls (d, main_box);
  build_controls (d, main_box);
  build_progress (d, main_box);
  connect_signals (d);

  /* Filled before it is measured: the channels' names and the tables' rows set its size. */
  gtk_widget_show_all (main_box);
  gpuhist_dialog_update_all (d);
  gpuhist_dialog_range_changed (GPUHIST_HISTOGRAM_VIEW (d->view), d);
  gpuhist_dialog_set_busy (d, FALSE);
  gpuhist_dialog_set_stale (d, FALSE);
  /* Realized, so that the tables measure all their rows, and with the rows Compare adds. */
  gpuhist_dialog_fill_compare_as_compared (d);
  gtk_widget_realize (d->dialog);
  fit_to_screen (d->dialog, main_box, &left, &right);
  gpuhist_dialog_fill_compare (d);
  gtk_widget_show (d->dialog);
  gtk_widget_grab_focus (d->rerun_button);
  gpuhist_dialog_follow_start (d);
}

gboolean
gpuhist_dialog_run (const GpuhistDialogParams *params)
{
  GpuhistDialog *d;
  gboolean has_histogram;

  g_return_val_if_fail (params != NULL, FALSE);
  g_return_val_if_fail (params->engine != NULL && params->source != NULL, FALSE);
  g_return_val_if_fail (params->settings != NULL && params->report != NULL, FALSE);

  d = g_new0 (GpuhistDialog, 1);
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
  gpuhist_dialog_follow_stop (d);
  gtk_widget_hide (d->dialog);
  gpuhist_dialog_stop_job (d);

  gpuhist_dialog_save_settings (d);
  /* What Copy table put on the clipboard outlives the plug-in where a clipboard manager runs. */
  gtk_clipboard_store (gtk_widget_get_clipboard (d->dialog, GDK_SELECTION_CLIPBOARD));
  gtk_widget_destroy (d->dialog);
  g_object_unref (d->stats_store);
  g_object_unref (d->range_store);
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
  GpuhistDialogParams params = *hooks;
  gh_engine *engine;
  gboolean shown;

  gpuhist_dialog_ask_for_scopes (settings, source);
  engine = gpuhist_run_measure (source, settings, monitor, note, report, error);
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
