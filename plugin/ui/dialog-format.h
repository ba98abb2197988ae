/* gpu-histogram: the dialog's texts and table cells, without GTK (tests/plugin-core checks them).
 *
 * Every function returns newly allocated strings (g_free); cells are Pango markup.  "—" stands
 * for a value that does not exist (a kernel that did not run).
 */
#ifndef GPUHIST_DIALOG_FORMAT_H
#define GPUHIST_DIALOG_FORMAT_H

#include "channel-stats.h"
#include "core.h"

G_BEGIN_DECLS

/* The timing table's rows. */
typedef enum
{
  GPUHIST_ROW_GLOBAL,
  GPUHIST_ROW_PRIVATIZED,
  GPUHIST_ROW_FASTEST,
  GPUHIST_ROW_READ_ONLY,
  GPUHIST_ROW_UPLOAD,
  GPUHIST_ROW_FETCH,
  GPUHIST_ROW_TOTAL,
  GPUHIST_N_TIMING_ROWS
} GpuhistTimingRow;

#define GPUHIST_TIMING_COLUMNS 6
#define GPUHIST_COMPARE_COLUMNS 7
#define GPUHIST_STATS_COLUMNS 11
#define GPUHIST_RANGE_COLUMNS 6

gchar *gpuhist_format_number_ms (double ms); /* about three significant digits, no unit */
gchar *gpuhist_format_ms (double ms);        /* "1.23 ms"; "—" below 0 */
gchar *gpuhist_format_gbps (double gbps);    /* about three significant digits; "—" for 0 */
gchar *gpuhist_format_percent (double percent);
gchar *gpuhist_format_speedup (double speedup); /* "12.3×"; "—" for 0 */
gchar *gpuhist_format_share (double share);     /* 0..1 as "12.34 %" */

/* A timing's median in ms, or -1 when it did not run. */
double gpuhist_timing_median (const gh_result *result, gh_timing_kind kind);
/* How many times faster than global atomics, or 0 when either did not run. */
double gpuhist_speedup_over_global (const gh_result *result, gh_timing_kind kind);

/* The GPUHIST_TIMING_COLUMNS cells of a row of the timing table. */
void gpuhist_format_timing_cells (const GpuhistReport *report, GpuhistTimingRow row, gchar **cells);
/* The GPUHIST_COMPARE_COLUMNS cells of a row of the contention table; name is plain text.
 * scope (gh_scope_kind; -1: the histogram): the contention of that scope's table instead, the
 * busiest cell's share of the pixels that can reach it (its column's, in a waveform) and the
 * cells used; the timings are the result's (a scope view's: gpuhist_report_scope_view). */
void gpuhist_format_compare_cells (const gh_result *result, int scope, const char *name,
                                   gchar **cells);
/* The statistics of one channel, all the cells of its row but the first (the channel's name):
 * GPUHIST_STATS_COLUMNS - 1 of them, the last two the clipping (gpuhist_channel_clipping,
 * 0..1) at the shadows and the highlights. */
void gpuhist_format_stats_cells (const gh_channel_stats *stats, double shadows, double highlights,
                                 gchar **cells);
/* A channel's statistics over the selected range, all the cells of its row but the first:
 * GPUHIST_RANGE_COLUMNS - 1 of them (weight, share, mean, median, standard deviation). */
void gpuhist_format_range_cells (const GpuhistRangeStats *stats, gchar **cells);
/* The range's title, plain text: "Levels 100–150 (51 levels)", "Level 100", or where a level is
 * not a bin (more than 256 bins) "Bins 4096–8191 of 65536". */
gchar *gpuhist_format_range (int lo, int hi, int bins);

/* The headline (the fastest kernel's speedup), its subline (the privatized kernel's), both markup;
 * the plain line about the layer; the markup line about the backend. */
gchar *gpuhist_format_headline (const GpuhistReport *report);
gchar *gpuhist_format_subline (const GpuhistReport *report);
gchar *gpuhist_format_info (const GpuhistReport *report, int width, int height, gboolean linear);
gchar *gpuhist_format_backend (const GpuhistReport *report);
/* The line under the headline that says what was counted, plain text: "The selection: 7854.7
 * of the 10000 pixels in its bounds, weighted by coverage and alpha", "The whole layer: 10000
 * pixels", "The selection of the visible image: ...", and under weighting pixels "..., each
 * pixel whose selection coverage is at least one half, counted once".  The weight is the
 * selection's coverage total (the last channel's, which alpha does not weigh); "" before a
 * run. */
gchar *gpuhist_format_counted (const GpuhistReport *report);

/* Under the timing table, plain text: the fastest kernel's strategy, its time against the
 * read-only ceiling, and for an 8-bit layer asked for more bins that it has 256 levels. */
gchar *gpuhist_format_strategy (const GpuhistReport *report);

/* The report as the timing and contention tables show it for a chart of the scope `scope`
 * (gh_scope_kind; -1: the histogram's, the report itself): a shallow copy whose layer and
 * comparison results carry that scope's kernel timings (global atomics, privatized, fastest; "not
 * run" where the scope was not counted), the read-only pass and the upload being the run's.
 * Owns nothing: valid while the report is. */
void gpuhist_report_scope_view (const GpuhistReport *report, int scope, GpuhistReport *view);

/* What the contention table's Busiest bin and Bins used mean for the chart shown, by its scope
 * (gh_scope_kind; -1: the histogram), as gpuhist_format_compare_cells computes them: the
 * fullest level's share of a channel's samples, or the fullest cell's share of the pixels that
 * can reach it (a waveform's column, the whole vectorscope).  Translated, not to be freed. */
const char *gpuhist_format_contention_caption (int scope);

/* gpuhist_format_strategy for the tables of a scope's view: what the table is (its cells) and
 * the fastest kernel's time against the read-only ceiling's. */
gchar *gpuhist_format_scope_strategy (const GpuhistReport *view, int scope);

G_END_DECLS

#endif /* GPUHIST_DIALOG_FORMAT_H */
