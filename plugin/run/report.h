/* gpu-histogram: the report of a run: its lifetime (report.c), the values returned to the PDB
 * (report.c), the CSV and JSON files (report-file.c) and the scopes' PNGs (report-png.c). */
#ifndef GPUHIST_REPORT_H
#define GPUHIST_REPORT_H

#include <cairo.h>

#include "core.h"

G_BEGIN_DECLS

void gpuhist_report_clear (GpuhistReport *report);
/* Frees a result's counts and zero-fills it (channels 0: not run). */
void gpuhist_result_reset (gh_result *result);
/* Drops the comparison's runs (patterns). */
void gpuhist_report_reset_comparison (GpuhistReport *report);
/* The source's channels and their names, then value and luminance when the layer's result has
 * them (set the result first). */
void gpuhist_report_set_channels (GpuhistReport *report, const GpuhistSource *source);

/* The values returned to the PDB: counts as doubles (n_channels * bins, channel by channel, exact
 * up to 2^53), and timings in ms: global atomics, privatized, fastest, read-only, upload, fetch
 * from GIMP; -1 where not run.  Return newly allocated arrays (g_free). */
#define GPUHIST_N_RETURN_TIMINGS 6
gdouble *gpuhist_report_counts (const GpuhistReport *report, gint *n_counts);
gdouble *gpuhist_report_timings (const GpuhistReport *report, gint *n_timings);

/* The result's counts for drawing: its own for unweighted runs, else its values (pixels)
 * rounded to whole pixels; NULL when it has none.  Newly allocated (g_free). */
uint64_t *gpuhist_report_display_counts (const gh_result *result);

/* One channel's statistics, from the counts of unweighted runs or the values (pixels) of
 * weighted ones; FALSE when the result has no such channel. */
gboolean gpuhist_result_channel_stats (const gh_result *result, int channel,
                                       gh_channel_stats *stats);

/* What an output file's name asks for, by its extension (any case). */
typedef enum
{
  GPUHIST_FILE_UNKNOWN,
  GPUHIST_FILE_CSV,
  GPUHIST_FILE_JSON,
  GPUHIST_FILE_PNG /* the scopes' charts, NAME-waveform.png and so on for NAME.png */
} GpuhistFileKind;

GpuhistFileKind gpuhist_report_file_kind (const char *path);

/* Writes the report as the file's extension asks; nothing for a NULL or empty path.  JSON: the
 * engine's object for the layer (gh_write_json) with the plug-in's fields added to it, its
 * scopes as gh_write_scopes_json writes them (without numerators) when counted, and the
 * engine's object for each pattern ("flat", "noise") when the comparison ran.  CSV: the histogram.
 * PNG: gpuhist_report_write_charts, for a report with scopes. */
gboolean gpuhist_report_write (const GpuhistReport *report, const char *path, GError **error);

/* One scope's counts as CSV (gh_write_scope_csv): for the waveform the tables of the result
 * channels whose bits are set in `channels` (0: every one), for the vectorscope its 256 rows by
 * Cr.  An error for a scope the report has not counted. */
gboolean gpuhist_report_write_scope_csv (const GpuhistReport *report, gh_scope_kind kind,
                                         unsigned channels, const char *path, GError **error);

/* The charts of the report's scopes, each at its natural size (gh_render_natural_size) with
 * the renderer's default options, beside path: for "DIR/NAME.png", DIR/NAME-waveform.png,
 * DIR/NAME-parade.png (when red, green and blue were counted) and DIR/NAME-vectorscope.png
 * (when counted).  Through cairo's PNG writer. */
gboolean gpuhist_report_write_charts (const GpuhistReport *report, const char *path,
                                      GError **error);

/* A chart of the result drawn by the engine's renderer (gh_render_chart) at width x height, as
 * an opaque RGB24 cairo surface; NULL with *error set when it cannot be drawn. */
cairo_surface_t *gpuhist_chart_surface (const gh_result *result, gh_chart chart,
                                        const gh_render_options *options, int width, int height,
                                        GError **error);
/* Saves a surface as a PNG; FALSE with *error saying why. */
gboolean gpuhist_surface_write_png (cairo_surface_t *surface, const char *path, GError **error);

G_END_DECLS

#endif /* GPUHIST_REPORT_H */
