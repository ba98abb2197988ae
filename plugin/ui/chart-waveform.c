/* gpu-histogram: the waveform and the RGB parade.  See chart.h.
 *
 * Both draw the waveform's tables (gh_scope, GH_SCOPE_WAVEFORM): the waveform overlays those of
 * the channels checked under the charts (dialog-channels.c), the parade sets red, green and blue
 * side by side.  The read-out names the image columns and the levels under the pointer and each
 * drawn channel's pixels there (chart-readout.h). */
#include <glib/gi18n-lib.h>

#include "chart-readout.h"
#include "chart-scope.h"
#include "histogram-view.h"

/* "Columns 10–19, level 255: Red 2000, Green 2000, Blue 2000" for the tables whose channels are
 * in `channels` (bit c: the result's channel c; 0: every one). */
static gchar *
describe (const GpuhistReport *report, unsigned channels, const GpuhistWaveformSpot *spot)
{
  const gh_scope *w = &report->layer.scopes[GH_SCOPE_WAVEFORM];
  GString *text = g_string_new (NULL);
  gchar *columns, *levels;
  int shown = 0;

  if (spot->x1 > spot->x0)
    columns = g_strdup_printf (_ ("Columns %d–%d"), spot->x0, spot->x1);
  else
    columns = g_strdup_printf (_ ("Column %d"), spot->x0);
  if (w->bins != GH_BINS)
    levels = g_strdup_printf (_ ("bins %d–%d of %d"), spot->b0, spot->b1, w->bins);
  else if (spot->b1 > spot->b0)
    levels = g_strdup_printf (_ ("levels %d–%d"), spot->b0, spot->b1);
  else
    levels = g_strdup_printf (_ ("level %d"), spot->b0);
  /* TRANSLATORS: a waveform's read-out: the image columns and the levels under the pointer,
   * then each channel's pixels there */
  g_string_printf (text, _ ("%s, %s:"), columns, levels);
  g_free (columns);
  g_free (levels);
  for (int t = 0; t < w->tables; t++)
    if (!channels || ((channels >> w->channel[t]) & 1u))
      {
        gchar *count = gpuhist_scope_format_count (gpuhist_readout_waveform_pixels (w, t, spot));

        g_string_append_printf (text, "%s %s %s", shown++ ? "," : "",
                                gpuhist_channel_display_name (report->channel_names[w->channel[t]]),
                                count);
        g_free (count);
      }
  return g_string_free (text, FALSE);
}

static gboolean
waveform_available (const GpuhistReport *report)
{
  return report->layer.scopes[GH_SCOPE_WAVEFORM].tables > 0;
}

/* The channels drawn, as the boxes choose them; nothing where none is drawn. */
static gchar *
waveform_hover (const GpuhistReport *report, unsigned channels, const GpuhistChartSpot *at)
{
  GpuhistWaveformSpot spot;

  if (channels == GH_RENDER_NO_CHANNELS
      || !gpuhist_readout_waveform (report, at->x, at->y, at->width, at->height, &spot))
    return NULL;
  return describe (report, channels, &spot);
}

/* The parade needs the waveform of red, green and blue: RGB layers. */
static gboolean
parade_available (const GpuhistReport *report)
{
  gh_error gherr = { GH_OK, "" };
  int width, height;

  return gh_render_natural_size (&report->layer, GH_CHART_PARADE, &width, &height, &gherr) == GH_OK;
}

/* Within the panel under the pointer, as a waveform of its channel alone. */
static gchar *
parade_hover (const GpuhistReport *report, unsigned channels, const GpuhistChartSpot *at)
{
  GpuhistWaveformSpot spot;
  int panel_x, panel_width;
  int panel = gpuhist_readout_parade_panel (at->x, at->width, &panel_x, &panel_width);

  (void) channels;
  if (panel < 0
      || !gpuhist_readout_waveform (report, at->x - panel_x, at->y, panel_width, at->height, &spot))
    return NULL;
  return describe (report, 1u << panel, &spot);
}

const GpuhistChart gpuhist_chart_waveform = {
  .name = "waveform",
  .label = N_ ("Waveform"),
  .description = N_ ("The levels of each column of the layer, left to right"),
  .needs_scopes = TRUE,
  .engine_chart = GH_CHART_WAVEFORM,
  .create = gpuhist_scope_page_new,
  .available = waveform_available,
  .update = gpuhist_scope_page_update,
  .channels_changed = gpuhist_scope_page_channels_changed,
  .hover_text = waveform_hover,
  .export_png = gpuhist_scope_page_export_png,
  .export_csv = gpuhist_scope_page_export_csv,
};

const GpuhistChart gpuhist_chart_parade = {
  .name = "parade",
  .label = N_ ("RGB Parade"),
  .description = N_ ("The waveforms of red, green and blue side by side"),
  .needs_scopes = TRUE,
  .engine_chart = GH_CHART_PARADE,
  .create = gpuhist_scope_page_new,
  .available = parade_available,
  .update = gpuhist_scope_page_update,
  .hover_text = parade_hover,
  .export_png = gpuhist_scope_page_export_png,
  .export_csv = gpuhist_scope_page_export_csv,
};
