/* gpu-histogram: the dialog's texts and table cells, without GTK (tests/plugin-core checks them).
 *
 * Every function returns newly allocated strings (g_free); cells are Pango markup.  "—" stands
 * for a value that does not exist (a kernel that did not run).
 */
#ifndef GPUHIST_DIALOG_FORMAT_H
#define GPUHIST_DIALOG_FORMAT_H

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
#define GPUHIST_STATS_COLUMNS 9

gchar *gpuhist_format_number_ms (double ms); /* about three significant digits, no unit */
gchar *gpuhist_format_ms (double ms);        /* "1.23 ms"; "—" below 0 */
gchar *gpuhist_format_gbps (double gbps);    /* about three significant digits; "—" for 0 */
gchar *gpuhist_format_percent (double percent);
gchar *gpuhist_format_speedup (double speedup); /* "12.3×"; "—" for 0 */

/* A timing's median in ms, or -1 when it did not run. */
double gpuhist_timing_median (const gh_result *result, gh_timing_kind kind);
/* How many times faster than global atomics, or 0 when either did not run. */
double gpuhist_speedup_over_global (const gh_result *result, gh_timing_kind kind);

/* The GPUHIST_TIMING_COLUMNS cells of a row of the timing table. */
void gpuhist_format_timing_cells (const GpuhistReport *report, GpuhistTimingRow row, gchar **cells);
/* The GPUHIST_COMPARE_COLUMNS cells of a row of the contention table; name is plain text. */
void gpuhist_format_compare_cells (const gh_result *result, const char *name, gchar **cells);
/* The statistics of one channel, all the cells of its row but the first (the channel's name):
 * GPUHIST_STATS_COLUMNS - 1 of them. */
void gpuhist_format_stats_cells (const gh_channel_stats *stats, gchar **cells);

/* The headline (the fastest kernel's speedup), its subline (the seed's kernel's), both markup;
 * the plain line about the layer; the markup line about the backend. */
gchar *gpuhist_format_headline (const GpuhistReport *report);
gchar *gpuhist_format_subline (const GpuhistReport *report);
gchar *gpuhist_format_info (const GpuhistReport *report, int width, int height, gboolean linear);
gchar *gpuhist_format_backend (const GpuhistReport *report);
/* Under the timing table, plain text: the fastest kernel's strategy, its time against the
 * read-only ceiling, and for an 8-bit layer asked for more bins that it has 256 levels. */
gchar *gpuhist_format_strategy (const GpuhistReport *report);

G_END_DECLS

#endif /* GPUHIST_DIALOG_FORMAT_H */
