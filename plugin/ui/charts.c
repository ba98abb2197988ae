/* gpu-histogram: the list of the dialog's charts.  See chart.h. */
#include "chart.h"
#include "engine-keeper.h"
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

/* The most cells the dialog lets a waveform have: a quarter of the engine's table budget at 16
 * bytes a cell (weighted runs' sums), since the report keeps every cell again as a double and a
 * sum, and the dialog counts again and again: 4 Mi cells, 1024 columns of six tables up to 512
 * levels, 682 at 1024. */
#define MOST_WAVEFORM_CELLS ((gint64) (GPUHIST_TABLE_BUDGET / 4 / sizeof (gh_u128)))

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
