/* gpu-histogram: what the charts the engine draws share (chart-scope.c), for their own files
 * (chart-waveform.c, chart-vectorscope.c).  See chart.h. */
#ifndef GPUHIST_CHART_SCOPE_H
#define GPUHIST_CHART_SCOPE_H

#include "chart.h"

G_BEGIN_DECLS

/* The page of a chart drawn by gh_render_chart (chart->engine_chart): the chart at the widget's
 * size, Logarithmic and Brightness, and the read-out under it (chart->hover_text). */
GtkWidget *gpuhist_scope_page_new (const GpuhistChart *chart, GpuhistDialog *d);
void gpuhist_scope_page_update (GtkWidget *page, GpuhistDialog *d);
gboolean gpuhist_scope_page_export_png (GtkWidget *page, const char *path, GError **error);
/* The counts of the chart shown as CSV (gh_write_scope_csv): the waveform's tables of the
 * channels it draws, the parade's red, green and blue, the vectorscope's 256 rows by Cr. */
gboolean gpuhist_scope_page_export_csv (GtkWidget *page, const char *path, GError **error);
/* The channel boxes changed: the waveform draws again. */
void gpuhist_scope_page_channels_changed (GtkWidget *page, GpuhistDialog *d);

/* A count in pixels as the read-outs write it: whole pixels without decimals (weighted runs
 * have fractions).  Newly allocated. */
gchar *gpuhist_scope_format_count (double pixels);

G_END_DECLS

#endif /* GPUHIST_CHART_SCOPE_H */
