/* gpu-histogram: the histogram chart: the histogram view, the level under the pointer, and the
 * Logarithmic and channel boxes.  See chart.h.  The selected range's table is the dialog's
 * (dialog-tables.c), since it sits beside the charts. */
#include <glib/gi18n-lib.h>

#include "chart.h"
#include "dialog-private.h"
#include "gtk-compat.h"
#include "report.h"

/* The report's channel that a toggle shows: the layer's own for the first GH_MAX_CHANNELS,
 * then value and luminance; -1 when the report has no such channel. */
static int
toggle_channel (const GpuhistReport *report, int toggle)
{
  const gh_result *layer = &report->layer;

  if (toggle < GH_MAX_CHANNELS)
    return toggle < layer->input_channels ? toggle : -1;
  if (!layer->derived || layer->values == NULL)
    return -1;
  return layer->input_channels + toggle - GH_MAX_CHANNELS;
}

/* A value or luminance toggle's label: the curve's colour, and the translated name with its
 * mnemonic. */
static void
derived_toggle_label (GtkWidget *toggle, const char *channel_name, const char *mnemonic_name)
{
  gchar *markup = gpuhist_dialog_channel_markup (channel_name, mnemonic_name);

  gtk_label_set_markup_with_mnemonic (GTK_LABEL (gtk_bin_get_child (GTK_BIN (toggle))), markup);
  g_free (markup);
}

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

static void
channel_toggled (GtkToggleButton *toggle, gpointer data)
{
  GpuhistDialog *d = data;
  int t, c;

  for (t = 0; t < GPUHIST_MAX_COUNTED_CHANNELS; t++)
    if (GTK_WIDGET (toggle) == d->channel_toggles[t]
        && (c = toggle_channel (d->params.report, t)) >= 0)
      gpuhist_histogram_view_set_channel_visible (GPUHIST_HISTOGRAM_VIEW (d->view), c,
                                                  gtk_toggle_button_get_active (toggle));
  gpuhist_dialog_range_changed (GPUHIST_HISTOGRAM_VIEW (d->view), d);
}

/* The Logarithmic box and a box a channel, whose labels the report sets (fill_channel_toggles). */
static GtkWidget *
build_toggles (GpuhistDialog *d)
{
  d->channel_box = gpuhist_compat_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  d->log_toggle = gtk_check_button_new_with_mnemonic (_ ("_Logarithmic"));
  gimp_help_set_help_data (d->log_toggle,
                           _ ("Scale the counts logarithmically, so that small "
                              "bins stay visible next to a busy one"),
                           NULL);
  gtk_box_pack_start (GTK_BOX (d->channel_box), d->log_toggle, FALSE, FALSE, 0);
  g_signal_connect (d->log_toggle, "toggled", G_CALLBACK (log_toggled), d);
  for (int c = 0; c < GPUHIST_MAX_COUNTED_CHANNELS; c++)
    {
      d->channel_toggles[c] = gtk_check_button_new_with_mnemonic ("");
      gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (d->channel_toggles[c]), TRUE);
      gtk_box_pack_start (GTK_BOX (d->channel_box), d->channel_toggles[c], FALSE, FALSE, 0);
      g_signal_connect (d->channel_toggles[c], "toggled", G_CALLBACK (channel_toggled), d);
    }
  /* Value and luminance follow the layer's channels; their mnemonics are their own, since the
   * first letters are taken (Luminance's L is Logarithmic's). */
  derived_toggle_label (d->channel_toggles[GH_MAX_CHANNELS], "value", _ ("_Value"));
  derived_toggle_label (d->channel_toggles[GH_MAX_CHANNELS + 1], "luminance", _ ("L_uminance"));
  return d->channel_box;
}

static GtkWidget *
create (const GpuhistChart *chart, GpuhistDialog *d)
{
  GtkWidget *box = gpuhist_compat_box_new (GTK_ORIENTATION_VERTICAL, 4);

  gtk_container_set_border_width (GTK_CONTAINER (box), 6);
  d->view = gpuhist_histogram_view_new ();
  gtk_widget_set_size_request (d->view, 320, 220);
  atk_object_set_name (gtk_widget_get_accessible (d->view), chart->name);
  atk_object_set_description (gtk_widget_get_accessible (d->view), _ (chart->description));
  gtk_box_pack_start (GTK_BOX (box), d->view, TRUE, TRUE, 0);
  d->bin_label = gtk_label_new (NULL);
  g_object_set (d->bin_label, "xalign", 0.0, NULL);
  gtk_label_set_ellipsize (GTK_LABEL (d->bin_label), PANGO_ELLIPSIZE_END);
  gtk_box_pack_start (GTK_BOX (box), d->bin_label, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (box), build_toggles (d), FALSE, FALSE, 0);
  g_signal_connect (d->view, "bin-changed", G_CALLBACK (bin_changed), d);
  g_signal_connect (d->view, "range-changed", G_CALLBACK (gpuhist_dialog_range_changed), d);
  bin_changed (GPUHIST_HISTOGRAM_VIEW (d->view), -1, d);
  return box;
}

static void
fill_channel_toggles (GpuhistDialog *d)
{
  const GpuhistReport *report = d->params.report;
  GpuhistHistogramView *view = GPUHIST_HISTOGRAM_VIEW (d->view);

  for (int t = 0; t < GPUHIST_MAX_COUNTED_CHANNELS; t++)
    {
      GtkWidget *toggle = d->channel_toggles[t];
      int c = toggle_channel (report, t);
      const char *name = c >= 0 ? report->channel_names[c] : NULL;

      if (name == NULL)
        {
          gtk_widget_hide (toggle);
          continue;
        }
      if (t < GH_MAX_CHANNELS)
        {
          /* The first letter of the channel's name is its mnemonic: Red, Green, Blue, Alpha,
           * Gray (gray and green never come together).  Value's and luminance's labels are
           * made once, in build_toggles. */
          gchar *text = g_strdup_printf ("_%s", gpuhist_channel_display_name (name));
          gchar *markup = gpuhist_dialog_channel_markup (name, text);

          gtk_label_set_markup_with_mnemonic (GTK_LABEL (gtk_bin_get_child (GTK_BIN (toggle))),
                                              markup);
          g_free (markup);
          g_free (text);
        }
      gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (toggle),
                                    gpuhist_histogram_view_get_channel_visible (view, c));
      gtk_widget_show (toggle);
    }
}

static void
update (GtkWidget *page, GpuhistDialog *d)
{
  const GpuhistReport *report = d->params.report;
  GpuhistHistogramView *view = GPUHIST_HISTOGRAM_VIEW (d->view);
  uint64_t *counts = gpuhist_report_display_counts (&report->layer);
  int t, c;

  (void) page;
  gpuhist_histogram_view_set_data (view, counts, report->layer.channels, report->layer.bins,
                                   report->channel_names);
  g_free (counts);
  /* Keep the user's choice of channels across re-runs. */
  for (t = 0; t < GPUHIST_MAX_COUNTED_CHANNELS; t++)
    if ((c = toggle_channel (report, t)) >= 0)
      gpuhist_histogram_view_set_channel_visible (
          view, c, gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (d->channel_toggles[t])));
  fill_channel_toggles (d);
}

static gboolean
available (const GpuhistReport *report)
{
  (void) report;
  return TRUE; /* an empty histogram says there is nothing yet */
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
  .hover_text = NULL,
  .export_png = export_png,
};
