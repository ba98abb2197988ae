/* gpu-histogram: the list of the dialog's charts.  See chart.h. */
#include "chart.h"
#include "stream.h"

const GpuhistChart *const gpuhist_charts[GPUHIST_N_CHARTS] = {
  &gpuhist_chart_histogram,
  &gpuhist_chart_waveform,
  &gpuhist_chart_parade,
  &gpuhist_chart_vectorscope,
};

gboolean
gpuhist_charts_need_scopes (void)
{
  for (int i = 0; i < GPUHIST_N_CHARTS; i++)
    if (gpuhist_charts[i]->needs_scopes)
      return TRUE;
  return FALSE;
}

/* The most cells the dialog lets a waveform have: the engine refuses a scope table larger than its
 * memory budget, which the plug-in's engine keeps to its two strips (engine-keeper.c), at 16
 * bytes a cell (weighted runs' sums). */
#define MOST_WAVEFORM_CELLS ((gint64) (2 * GPUHIST_STRIP_TARGET_BYTES / sizeof (gh_u128)))

int
gpuhist_charts_waveform_columns (const GpuhistSource *source, const GpuhistSettings *settings)
{
  GpuhistSettings wanted = *settings;
  /* 8-bit and indexed sources count into 256 bins whatever was asked (measure.h). */
  int bins = source->fetch_format16 != NULL && settings->bins > 0 ? settings->bins : GH_BINS;
  int tables = source->channels + (source->derived ? 2 : 0);
  int columns;

  wanted.scopes = TRUE;
  wanted.waveform_columns = GPUHIST_DEFAULT_COLUMNS;
  columns = gpuhist_waveform_columns (&wanted, source->area.width);
  return CLAMP (MOST_WAVEFORM_CELLS / ((gint64) bins * tables), 1, columns);
}
