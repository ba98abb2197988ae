/* gpu-histogram: the channel check boxes under the charts, which choose the channels that the
 * histogram and the waveform draw.  See dialog-private.h.
 *
 * One set of boxes for every chart, so that the two charts that overlay channels show the same
 * ones; a chart says through its table whether it follows them (chart.h, channels_changed), and
 * while one that does not (the parade, the vectorscope) is shown the boxes are insensitive. */
#include <glib/gi18n-lib.h>

#include "dialog-private.h"
#include "gtk-compat.h"

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

unsigned
gpuhist_dialog_chosen_channels (GpuhistDialog *d)
{
  unsigned channels = 0;
  int c;

  for (int t = 0; t < GPUHIST_MAX_COUNTED_CHANNELS; t++)
    if ((c = toggle_channel (d->params.report, t)) >= 0
        && gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (d->channel_toggles[t])))
      channels |= 1u << c;
  return channels;
}

static void
channel_toggled (GtkToggleButton *toggle, gpointer data)
{
  GpuhistDialog *d = data;

  (void) toggle;
  for (int i = 0; i < GPUHIST_N_CHARTS; i++)
    if (gpuhist_charts[i]->channels_changed != NULL)
      gpuhist_charts[i]->channels_changed (d->chart_pages[i], d);
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

GtkWidget *
gpuhist_dialog_channels_new (GpuhistDialog *d)
{
  d->channel_box = gpuhist_compat_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  gtk_container_set_border_width (GTK_CONTAINER (d->channel_box), 6);
  for (int c = 0; c < GPUHIST_MAX_COUNTED_CHANNELS; c++)
    {
      d->channel_toggles[c] = gtk_check_button_new_with_mnemonic ("");
      gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (d->channel_toggles[c]), TRUE);
      gimp_help_set_help_data (d->channel_toggles[c],
                               _ ("Draw this channel in the histogram and the waveform"), NULL);
      gtk_box_pack_start (GTK_BOX (d->channel_box), d->channel_toggles[c], FALSE, FALSE, 0);
      g_signal_connect (d->channel_toggles[c], "toggled", G_CALLBACK (channel_toggled), d);
    }
  /* Value and luminance follow the layer's channels; their mnemonics are their own, since the
   * first letters are taken (Luminance's L is Logarithmic's). */
  derived_toggle_label (d->channel_toggles[GH_MAX_CHANNELS], "value", _ ("_Value"));
  derived_toggle_label (d->channel_toggles[GH_MAX_CHANNELS + 1], "luminance", _ ("L_uminance"));
  return d->channel_box;
}

/* The first letter of a layer channel's name is its mnemonic: Red, Green, Blue, Alpha, Gray
 * (gray and green never come together).  Value's and luminance's labels are made once. */
static void
label_toggle (GtkWidget *toggle, const char *name)
{
  gchar *text = g_strdup_printf ("_%s", gpuhist_channel_display_name (name));
  gchar *markup = gpuhist_dialog_channel_markup (name, text);

  gtk_label_set_markup_with_mnemonic (GTK_LABEL (gtk_bin_get_child (GTK_BIN (toggle))), markup);
  g_free (markup);
  g_free (text);
}

void
gpuhist_dialog_channels_update (GpuhistDialog *d)
{
  const GpuhistReport *report = d->params.report;

  for (int t = 0; t < GPUHIST_MAX_COUNTED_CHANNELS; t++)
    {
      int c = toggle_channel (report, t);
      const char *name = c >= 0 ? report->channel_names[c] : NULL;

      gtk_widget_set_visible (d->channel_toggles[t], name != NULL);
      if (name != NULL && t < GH_MAX_CHANNELS)
        label_toggle (d->channel_toggles[t], name);
    }
  gpuhist_dialog_channels_follow_chart (d);
}

void
gpuhist_dialog_channels_follow_chart (GpuhistDialog *d)
{
  gtk_widget_set_sensitive (
      d->channel_box, gpuhist_charts[gpuhist_dialog_shown_chart (d)]->channels_changed != NULL);
}
