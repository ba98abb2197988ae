/* gpu-histogram: the dialog's charts, each a page of its notebook, all views of one run.
 *
 * A chart is a small table of what it needs and does (GpuhistChart); charts.c lists them in the
 * order of their tabs, and the dialog knows them only through that list: it builds a page for
 * each, feeds every page the report after each count and shows the pages the report can draw.
 * Adding a chart touches its own file and that list.
 *
 *   chart-histogram.c   the histogram view, its Logarithmic box and the level read-out
 *   chart-scope.c       what the engine's charts share: drawing with gh_render_chart at the
 *                       widget's size, density and brightness, the read-out, PNG export
 *   chart-waveform.c    the waveform and the RGB parade (the parade is the waveform's red,
 *                       green and blue side by side)
 *   chart-vectorscope.c the vectorscope
 *   chart-readout.c     what the pointer is over in those, without GTK (tests/plugin-core)
 */
#ifndef GPUHIST_CHART_H
#define GPUHIST_CHART_H

#include <gtk/gtk.h>

#include "core.h"

G_BEGIN_DECLS

typedef struct GpuhistDialog GpuhistDialog;

/* A pixel of a chart drawn width x height pixels (x across, y down, both from 0). */
typedef struct
{
  int x, y;
  int width, height;
} GpuhistChartSpot;

typedef struct GpuhistChart GpuhistChart;
struct GpuhistChart
{
  const char *name;        /* the chart widget's accessible name and export files' suffix */
  const char *label;       /* the tab's text, marked N_(): translated when the tab is made */
  const char *description; /* the chart widget's accessible description, N_() */
  gboolean needs_scopes;   /* drawn from the run's scopes: the dialog's counts ask for them */
  int engine_chart;        /* the gh_chart the engine's renderer draws; -1 for none */
  /* The page: the chart's widget, its controls and its read-out. */
  GtkWidget *(*create) (const GpuhistChart *chart, GpuhistDialog *d);
  /* Whether the report can draw the chart (the parade needs red, green and blue). */
  gboolean (*available) (const GpuhistReport *report);
  /* Takes the dialog's report in, after every count. */
  void (*update) (GtkWidget *page, GpuhistDialog *d);
  /* The channel boxes changed (gpuhist_dialog_chosen_channels): draw the channels they
   * choose.  NULL for a chart that draws channels of its own (the boxes are insensitive while it
   * is shown). */
  void (*channels_changed) (GtkWidget *page, GpuhistDialog *d);
  /* The read-out for the pointer at a spot of the drawn chart; NULL where it says nothing.
   * channels: the boxes' choice, for a chart that follows them.  NULL for a chart whose widget
   * reads itself out (the histogram marks bins from the keyboard too). */
  gchar *(*hover_text) (const GpuhistReport *report, unsigned channels,
                        const GpuhistChartSpot *spot);
  /* Writes the chart as shown to a PNG file. */
  gboolean (*export_png) (GtkWidget *page, const char *path, GError **error);
  /* Writes the counts the chart shows to a CSV file. */
  gboolean (*export_csv) (GtkWidget *page, const char *path, GError **error);
};

/* The charts, in the order of their tabs (charts.c). */
#define GPUHIST_N_CHARTS 4
extern const GpuhistChart *const gpuhist_charts[GPUHIST_N_CHARTS];

/* Each chart's table, in its own file. */
extern const GpuhistChart gpuhist_chart_histogram;
extern const GpuhistChart gpuhist_chart_waveform;
extern const GpuhistChart gpuhist_chart_parade;
extern const GpuhistChart gpuhist_chart_vectorscope;

/* TRUE when one of the charts needs the scopes: the dialog's counts then ask for them. */
gboolean gpuhist_charts_need_scopes (void);

/* The waveform's columns the dialog asks for on this source: the default (gpuhist_waveform_columns)
 * where the table stays small, fewer where many bins or channels would make it larger than a
 * quarter of the engine's table budget (charts.c). */
int gpuhist_charts_waveform_columns (const GpuhistSource *source, const GpuhistSettings *settings);

G_END_DECLS

#endif /* GPUHIST_CHART_H */
