/* gpu-histogram: what the pointer is over in a chart the engine draws.  See chart-readout.h. */
#include <math.h>

#include "chart-readout.h"

void
gpuhist_readout_span (int i, int size, int n, int *lo, int *hi)
{
  *lo = (int) ((gint64) i * n / size);
  *hi = MAX (*lo + 1, (int) ((gint64) (i + 1) * n / size)) - 1;
}

static gboolean
on_chart (int x, int y, int width, int height)
{
  return x >= 0 && y >= 0 && x < width && y < height;
}

/* The smallest image column whose output column is at least c: ceil (c * width / columns). */
static int
first_image_column (int c, int columns, int width)
{
  return (int) (((gint64) c * width + columns - 1) / columns);
}

gboolean
gpuhist_readout_waveform (const GpuhistReport *report, int x, int y, int width, int height,
                          GpuhistWaveformSpot *spot)
{
  const gh_scope *w = &report->layer.scopes[GH_SCOPE_WAVEFORM];
  int counted = MAX (report->area.width, 1);

  if (w->tables == 0 || w->values == NULL || !on_chart (x, y, width, height))
    return FALSE;
  gpuhist_readout_span (x, width, w->columns, &spot->c0, &spot->c1);
  spot->x0 = report->area.x + first_image_column (spot->c0, w->columns, counted);
  spot->x1 = report->area.x + first_image_column (spot->c1 + 1, w->columns, counted) - 1;
  gpuhist_readout_span (height - 1 - y, height, w->bins, &spot->b0, &spot->b1);
  return TRUE;
}

double
gpuhist_readout_waveform_pixels (const gh_scope *waveform, int t, const GpuhistWaveformSpot *spot)
{
  double sum = 0.0;

  for (int c = spot->c0; c <= spot->c1; c++)
    for (int b = spot->b0; b <= spot->b1; b++)
      sum += waveform->values[((size_t) t * waveform->columns + c) * waveform->bins + b];
  return sum;
}

int
gpuhist_readout_parade_panel (int x, int width, int *panel_x, int *panel_width)
{
  for (int p = 0; p < 3; p++)
    {
      int x0 = (int) ((gint64) p * width / 3), x1 = (int) ((gint64) (p + 1) * width / 3);

      if (x >= x0 && x < x1)
        {
          *panel_x = x0;
          *panel_width = x1 - x0;
          return p;
        }
    }
  return -1;
}

gboolean
gpuhist_readout_vectorscope (const GpuhistReport *report, int x, int y, int width, int height,
                             GpuhistVectorscopeSpot *spot)
{
  const gh_scope *v = &report->layer.scopes[GH_SCOPE_VECTORSCOPE];
  double cb, cr;

  if (v->tables == 0 || v->values == NULL || !on_chart (x, y, width, height))
    return FALSE;
  /* Rows of Cr (v->columns of them) counting up from the bottom, each of Cb (v->bins). */
  gpuhist_readout_span (x, width, v->bins, &spot->cb0, &spot->cb1);
  gpuhist_readout_span (height - 1 - y, height, v->columns, &spot->cr0, &spot->cr1);
  spot->pixels = 0.0;
  for (int r = spot->cr0; r <= spot->cr1; r++)
    for (int b = spot->cb0; b <= spot->cb1; b++)
      spot->pixels += v->values[(size_t) r * v->bins + b];
  cb = (spot->cb0 + spot->cb1) / 2.0 - 128.0;
  cr = (spot->cr0 + spot->cr1) / 2.0 - 128.0;
  spot->saturation = hypot (cb, cr);
  spot->hue = atan2 (cr, cb) * 180.0 / G_PI;
  if (spot->hue < 0.0)
    spot->hue += 360.0;
  return TRUE;
}
