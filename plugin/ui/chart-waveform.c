/* gpu-histogram: the waveform and the RGB parade.  See chart.h.
 *
 * Both draw the waveform's tables (gh_scope, GH_SCOPE_WAVEFORM): the waveform overlays them,
 * the parade sets red, green and blue side by side.  The read-out names the image columns and
 * the levels under the pointer and each drawn channel's pixels there. */
#include <glib/gi18n-lib.h>

#include "chart-scope.h"
#include "histogram-view.h"

/* The image columns that output column c of `columns` holds, for a run `width` pixels wide:
 * the pixels x with floor (x * columns / width) == c (gpuhist.h). */
static void
image_columns (int c0, int c1, int columns, int width, int *x0, int *x1)
{
  *x0 = (int) (((gint64) c0 * width + columns - 1) / columns);
  *x1 = (int) (((gint64) (c1 + 1) * width + columns - 1) / columns) - 1;
}

/* Table t's pixels over output columns c0..c1 and bins b0..b1. */
static double
table_sum (const gh_scope *w, int t, int c0, int c1, int b0, int b1)
{
  double sum = 0.0;

  for (int c = c0; c <= c1; c++)
    for (int b = b0; b <= b1; b++)
      sum += w->values[((size_t) t * w->columns + c) * w->bins + b];
  return sum;
}

/* "Columns 10–19, level 255: Red 2000, Green 2000, Blue 2000" for the tables whose channels are
 * in `channels` (bit c: the result's channel c; 0: every one), over output columns c0..c1 of the
 * pixel column at x of `width`, and the bins the spot's row draws. */
static gchar *
describe (const GpuhistReport *report, unsigned channels, int c0, int c1,
          const GpuhistChartSpot *spot)
{
  const gh_scope *w = &report->layer.scopes[GH_SCOPE_WAVEFORM];
  GString *text = g_string_new (NULL);
  int x0, x1, b0, b1, shown = 0;

  image_columns (c0, c1, w->columns, MAX (report->area.width, 1), &x0, &x1);
  x0 += report->area.x;
  x1 += report->area.x;
  gpuhist_scope_span (spot->height - 1 - spot->y, spot->height, w->bins, &b0, &b1);
  if (x1 > x0)
    g_string_printf (text, _ ("Columns %d–%d"), x0, x1);
  else
    g_string_printf (text, _ ("Column %d"), x0);
  if (w->bins != GH_BINS)
    g_string_append_printf (text, _ (", bins %d–%d of %d:"), b0, b1, w->bins);
  else if (b1 > b0)
    g_string_append_printf (text, _ (", levels %d–%d:"), b0, b1);
  else
    g_string_append_printf (text, _ (", level %d:"), b0);
  for (int t = 0; t < w->tables; t++)
    if (!channels || ((channels >> w->channel[t]) & 1u))
      {
        gchar *count = gpuhist_scope_format_count (table_sum (w, t, c0, c1, b0, b1));

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

static gchar *
waveform_hover (const GpuhistReport *report, const GpuhistChartSpot *spot)
{
  const gh_scope *w = &report->layer.scopes[GH_SCOPE_WAVEFORM];
  int c0, c1;

  if (w->tables == 0 || w->values == NULL)
    return NULL;
  gpuhist_scope_span (spot->x, spot->width, w->columns, &c0, &c1);
  return describe (report, gpuhist_scope_waveform_channels (&report->layer), c0, c1, spot);
}

/* The parade needs the waveform of red, green and blue: RGB layers. */
static gboolean
parade_available (const GpuhistReport *report)
{
  gh_error gherr = { GH_OK, "" };
  int width, height;

  return gh_render_natural_size (&report->layer, GH_CHART_PARADE, &width, &height, &gherr) == GH_OK;
}

/* Panel p (red, green, blue) spans output pixels p * width / 3 up to (p + 1) * width / 3, as
 * the renderer draws it. */
static gchar *
parade_hover (const GpuhistReport *report, const GpuhistChartSpot *spot)
{
  const gh_scope *w = &report->layer.scopes[GH_SCOPE_WAVEFORM];
  GpuhistChartSpot in_panel = *spot;
  int p, x0 = 0, x1 = 0, c0, c1;

  if (w->tables == 0 || w->values == NULL)
    return NULL;
  for (p = 0; p < 3; p++)
    {
      x0 = (int) ((gint64) p * spot->width / 3);
      x1 = (int) ((gint64) (p + 1) * spot->width / 3);
      if (spot->x >= x0 && spot->x < x1)
        break;
    }
  if (p == 3)
    return NULL;
  in_panel.x = spot->x - x0;
  in_panel.width = x1 - x0;
  gpuhist_scope_span (in_panel.x, in_panel.width, w->columns, &c0, &c1);
  return describe (report, 1u << p, c0, c1, &in_panel);
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
  .hover_text = waveform_hover,
  .export_png = gpuhist_scope_page_export_png,
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
};
