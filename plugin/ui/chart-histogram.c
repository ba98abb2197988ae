/* gpu-histogram: the histogram chart: the histogram view, the level under the pointer, and the
 * Logarithmic box; the channel boxes under the charts choose its curves (dialog-channels.c).  See
 * chart.h.  The selected range's table is the dialog's (dialog-tables.c), since it sits beside the
 * charts. */
#include <glib/gi18n-lib.h>

#include "chart.h"
#include "dialog-private.h"
#include "gtk-compat.h"
#include "report.h"

/* The page's dialog, for exporting its counts. */
#define DIALOG_KEY "gpuhist-histogram-dialog"

static void
bin_changed (GpuhistHistogramView *view, gint bin, gpointer data)
{
  GpuhistDialog *d = data;
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
  GpuhistDialog *d = data;

  gpuhist_histogram_view_set_logarithmic (GPUHIST_HISTOGRAM_VIEW (d->view),
                                          gtk_toggle_button_get_active (toggle));
}

/* The channel boxes changed: the view draws the channels they choose, and the range table
 * lists them. */
static void
channels_changed (GtkWidget *page, GpuhistDialog *d)
{
  GpuhistHistogramView *view = GPUHIST_HISTOGRAM_VIEW (d->view);
  unsigned channels = gpuhist_dialog_chosen_channels (d);

  (void) page;
  for (int c = 0; c < d->params.report->layer.channels; c++)
    gpuhist_histogram_view_set_channel_visible (view, c, (channels >> c) & 1u);
  gpuhist_dialog_range_changed (view, d);
}

/* The Logarithmic box. */
static GtkWidget *
build_log_toggle (GpuhistDialog *d)
{
  GtkWidget *row = gpuhist_compat_box_new (GTK_ORIENTATION_HORIZONTAL, 6);

  d->log_toggle = gtk_check_button_new_with_mnemonic (_ ("_Logarithmic"));
  gimp_help_set_help_data (d->log_toggle,
                           _ ("Scale the counts logarithmically, so that small "
                              "bins stay visible next to a busy one"),
                           NULL);
  gtk_box_pack_start (GTK_BOX (row), d->log_toggle, FALSE, FALSE, 0);
  g_signal_connect (d->log_toggle, "toggled", G_CALLBACK (log_toggled), d);
  return row;
}

static GtkWidget *
create (const GpuhistChart *chart, GpuhistDialog *d)
{
  GtkWidget *box = gpuhist_compat_box_new (GTK_ORIENTATION_VERTICAL, 4);

  gtk_container_set_border_width (GTK_CONTAINER (box), 6);
  g_object_set_data (G_OBJECT (box), DIALOG_KEY, d);
  d->view = gpuhist_histogram_view_new ();
  gtk_widget_set_size_request (d->view, 320, 220);
  atk_object_set_name (gtk_widget_get_accessible (d->view), chart->name);
  atk_object_set_description (gtk_widget_get_accessible (d->view), _ (chart->description));
  gtk_box_pack_start (GTK_BOX (box), d->view, TRUE, TRUE, 0);
  d->bin_label = gtk_label_new (NULL);
  g_object_set (d->bin_label, "xalign", 0.0, NULL);
  gtk_label_set_ellipsize (GTK_LABEL (d->bin_label), PANGO_ELLIPSIZE_END);
  gtk_box_pack_start (GTK_BOX (box), d->bin_label, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (box), build_log_toggle (d), FALSE, FALSE, 0);
  g_signal_connect (d->view, "bin-changed", G_CALLBACK (bin_changed), d);
  g_signal_connect (d->view, "range-changed", G_CALLBACK (gpuhist_dialog_range_changed), d);
  bin_changed (GPUHIST_HISTOGRAM_VIEW (d->view), -1, d);
  return box;
}

static void
update (GtkWidget *page, GpuhistDialog *d)
{
  const GpuhistReport *report = d->params.report;
  GpuhistHistogramView *view = GPUHIST_HISTOGRAM_VIEW (d->view);
  uint64_t *counts = gpuhist_report_display_counts (&report->layer);

  gpuhist_histogram_view_set_data (view, counts, report->layer.channels, report->layer.bins,
                                   report->channel_names);
  g_free (counts);
  /* Keep the user's choice of channels across re-runs. */
  channels_changed (page, d);
}

static gboolean
available (const GpuhistReport *report)
{
  (void) report;
  return TRUE; /* an empty histogram says there is nothing yet */
}

/* The histogram's counts, as the CSV of plug-in-gpu-histogram (gh_write_csv). */
static gboolean
export_csv (GtkWidget *page, const char *path, GError **error)
{
  GpuhistDialog *d = g_object_get_data (G_OBJECT (page), DIALOG_KEY);

  return gpuhist_report_write (d->params.report, path, error);
}

/* The view as it is drawn now, on the window's background, into a PNG of its size. */
static gboolean
export_png (GtkWidget *page, const char *path, GError **error)
{
  GList *children = gtk_container_get_children (GTK_CONTAINER (page));
  GtkWidget *view = children->data; /* the view is the page's first child (create) */
  GtkAllocation allocation;
  cairo_surface_t *surface;
  gboolean ok;
  cairo_t *cr;

  g_list_free (children);
  gtk_widget_get_allocation (view, &allocation);
  surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, MAX (allocation.width, 1),
                                        MAX (allocation.height, 1));
  cr = cairo_create (surface);
  cairo_set_source_rgb (cr, 1.0, 1.0, 1.0);
  cairo_paint (cr);
  gpuhist_histogram_view_draw_on (GPUHIST_HISTOGRAM_VIEW (view), cr);
  cairo_destroy (cr);
  ok = gpuhist_surface_write_png (surface, path, error);
  cairo_surface_destroy (surface);
  return ok;
}

const GpuhistChart gpuhist_chart_histogram = {
  .name = "histogram",
  .label = N_ ("Histogra_m"),
  .description = N_ ("The histogram of each channel of the layer"),
  .needs_scopes = FALSE,
  .engine_chart = -1,
  .create = create,
  .available = available,
  .update = update,
  .channels_changed = channels_changed,
  .hover_text = NULL,
  .export_png = export_png,
  .export_csv = export_csv,
};
