/* gpu-histogram: what the pointer is over in a chart the engine draws, without GTK
 * (tests/plugin-core checks it): the cells a screen pixel sums, as the renderer sums them, and
 * what they hold.  The charts' files (chart-waveform.c, chart-vectorscope.c) word it. */
#ifndef GPUHIST_CHART_READOUT_H
#define GPUHIST_CHART_READOUT_H

#include "core.h"

G_BEGIN_DECLS

/* The cells [*lo, *hi] (both included) that output pixel i of `size` draws of an axis of n
 * cells (gpuhist.h: floor (i * n / size) up to floor ((i + 1) * n / size), at least one). */
void gpuhist_readout_span (int i, int size, int n, int *lo, int *hi);

/* A pixel (x, y) of a waveform drawn width x height: its output columns c0..c1, the image
 * columns x0..x1 they hold (in the drawable's coordinates: the pixels whose floor (x * columns
 * / counted width) is among them) and the bins b0..b1 of its row (bins count up from the
 * bottom). */
typedef struct
{
  int c0, c1;
  int x0, x1;
  int b0, b1;
} GpuhistWaveformSpot;

/* FALSE when the report has no waveform or the pixel is off the chart. */
gboolean gpuhist_readout_waveform (const GpuhistReport *report, int x, int y, int width, int height,
                                   GpuhistWaveformSpot *spot);
/* Table t's pixels over the spot's columns and bins. */
double gpuhist_readout_waveform_pixels (const gh_scope *waveform, int t,
                                        const GpuhistWaveformSpot *spot);

/* The RGB parade's panel (0 red, 1 green, 2 blue) under output pixel x of `width`, and where
 * the panel starts and how wide it is (gpuhist.h: p * width / 3 up to (p + 1) * width / 3); -1
 * when none. */
int gpuhist_readout_parade_panel (int x, int width, int *panel_x, int *panel_width);

/* A pixel (x, y) of a vectorscope drawn width x height: its Cb and Cr cells, their pixels,
 * and the hue (degrees from +Cb towards +Cr, 0 to 360) and saturation (the distance from the
 * neutral cell (128, 128)) of the cells' middle; saturation 0 is neutral, without a hue. */
typedef struct
{
  int cb0, cb1;
  int cr0, cr1;
  double pixels;
  double hue;
  double saturation;
} GpuhistVectorscopeSpot;

gboolean gpuhist_readout_vectorscope (const GpuhistReport *report, int x, int y, int width,
                                      int height, GpuhistVectorscopeSpot *spot);

G_END_DECLS

#endif /* GPUHIST_CHART_READOUT_H */
