/* gpu-histogram: the vectorscope.  See chart.h.
 *
 * The engine's 256 x 256 table of Rec.709 chroma (gh_scope, GH_SCOPE_VECTORSCOPE), drawn Cb to
 * the right and Cr up.  The read-out gives the Cb and Cr under the pointer, the hue as a Rec.709
 * scope measures it (the angle from +Cb towards +Cr, so that the renderer's skin-tone line is at
 * 123 degrees), the saturation (the distance from neutral, in Cb and Cr steps) and the pixels
 * (chart-readout.h). */
#include <glib/gi18n-lib.h>

#include "chart-readout.h"
#include "chart-scope.h"

static gboolean
available (const GpuhistReport *report)
{
  return report->layer.scopes[GH_SCOPE_VECTORSCOPE].tables > 0;
}

/* "Cb 128" or "Cb 120–121". */
static gchar *
axis_text (const char *name, int lo, int hi)
{
  return hi > lo ? g_strdup_printf ("%s %d–%d", name, lo, hi) : g_strdup_printf ("%s %d", name, lo);
}

static gchar *
hover_text (const GpuhistReport *report, unsigned channels, const GpuhistChartSpot *at)
{
  GpuhistVectorscopeSpot spot;
  gchar *cb_text, *cr_text, *count, *text;

  (void) channels;
  if (!gpuhist_readout_vectorscope (report, at->x, at->y, at->width, at->height, &spot))
    return NULL;
  cb_text = axis_text ("Cb", spot.cb0, spot.cb1);
  cr_text = axis_text ("Cr", spot.cr0, spot.cr1);
  count = gpuhist_scope_format_count (spot.pixels);
  if (spot.saturation == 0.0)
    /* TRANSLATORS: the vectorscope's read-out at the centre: Cb, Cr, pixels */
    text = g_strdup_printf (_ ("%s, %s: neutral; %s pixels"), cb_text, cr_text, count);
  else
    /* TRANSLATORS: the vectorscope's read-out: Cb, Cr, hue angle, saturation, pixels */
    text = g_strdup_printf (_ ("%s, %s: hue %.0f°, saturation %.1f; %s pixels"), cb_text, cr_text,
                            spot.hue, spot.saturation, count);
  g_free (cb_text);
  g_free (cr_text);
  g_free (count);
  return text;
}

const GpuhistChart gpuhist_chart_vectorscope = {
  .name = "vectorscope",
  .label = N_ ("Vectorscope"),
  .description = N_ ("The colours of the layer by their Cb and Cr, neutral in the middle"),
  .needs_scopes = TRUE,
  .engine_chart = GH_CHART_VECTORSCOPE,
  .create = gpuhist_scope_page_new,
  .available = available,
  .update = gpuhist_scope_page_update,
  .hover_text = hover_text,
  .export_png = gpuhist_scope_page_export_png,
  .export_csv = gpuhist_scope_page_export_csv,
};
