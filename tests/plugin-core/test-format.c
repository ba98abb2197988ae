/* Unit tests of plugin/ui/dialog-format.c, the dialog's texts and cells without GTK, in the C
 * locale (untranslated). */
#include <string.h>

#include <glib.h>

#include "dialog-format.h"

#define DASH "—"

static void
assert_text (gchar *text, const char *expected)
{
  g_assert_cmpstr (text, ==, expected);
  g_free (text);
}

static void
test_numbers (void)
{
  assert_text (gpuhist_format_number_ms (0.12345), "0.123");
  assert_text (gpuhist_format_number_ms (12.345), "12.35");
  assert_text (gpuhist_format_number_ms (123.4), "123");
  assert_text (gpuhist_format_ms (1.5), "1.50 ms");
  assert_text (gpuhist_format_ms (-1.0), DASH);
  assert_text (gpuhist_format_gbps (0.0), DASH);
  assert_text (gpuhist_format_gbps (0.5), "0.500");
  assert_text (gpuhist_format_gbps (5.0), "5.00");
  assert_text (gpuhist_format_gbps (50.0), "50.0");
  assert_text (gpuhist_format_percent (5.0), "5.0 %");
  assert_text (gpuhist_format_percent (50.0), "50 %");
  assert_text (gpuhist_format_speedup (0.0), DASH);
  assert_text (gpuhist_format_speedup (12.34), "12.3×");
}

/* A layer of 10^9 bytes timed for global atomics (4 ms), privatized (2 ms), fastest (1 ms) and
 * read-only (0.5 ms). */
static void
report_init (GpuhistReport *report, uint64_t *counts)
{
  static const double medians[] = { 4.0, 2.0, 1.0, 0.5 };

  memset (report, 0, sizeof *report);
  report->layer.channels = 1;
  report->layer.bins = 256;
  report->layer.counts = counts;
  report->layer.bytes = 1000000000;
  report->layer.used_gpu = TRUE;
  g_strlcpy (report->layer.backend, "Test GPU", sizeof report->layer.backend);
  g_strlcpy (report->layer.layout, "shared", sizeof report->layer.layout);
  for (int k = 0; k < 4; k++)
    {
      report->layer.timing[k].runs = 5;
      report->layer.timing[k].median_ms = medians[k];
      report->layer.timing[k].min_ms = medians[k] * 0.9;
      report->layer.timing[k].max_ms = medians[k] * 1.1;
    }
  report->fetch_ms = 2.0;
  report->total_ms = 20.0;
  report->drawable_name = (gchar *) "Background";
}

static void
free_cells (gchar **cells, int n)
{
  for (int i = 0; i < n; i++)
    g_free (cells[i]);
}

static void
test_timing_cells (void)
{
  uint64_t counts[256] = { 0 };
  GpuhistReport report;
  gchar *cells[GPUHIST_TIMING_COLUMNS];

  report_init (&report, counts);
  g_assert_cmpfloat (gpuhist_speedup_over_global (&report.layer, GH_TIME_FASTEST), ==, 4.0);

  gpuhist_format_timing_cells (&report, GPUHIST_ROW_FASTEST, cells);
  g_assert_cmpstr (cells[0], ==, "<b>Fastest</b>");
  g_assert_cmpstr (cells[1], ==, "1.00 ms");
  g_assert_cmpstr (cells[2], ==, "0.900 – 1.10");
  g_assert_cmpstr (cells[4], ==, "50 %"); /* the ceiling's 0.5 ms over 1 ms */
  g_assert_cmpstr (cells[5], ==, "<b>4.0×</b>");
  free_cells (cells, GPUHIST_TIMING_COLUMNS);

  gpuhist_format_timing_cells (&report, GPUHIST_ROW_UPLOAD, cells);
  g_assert_cmpstr (cells[1], ==, "not run");
  g_assert_cmpstr (cells[5], ==, DASH);
  free_cells (cells, GPUHIST_TIMING_COLUMNS);

  gpuhist_format_timing_cells (&report, GPUHIST_ROW_FETCH, cells);
  g_assert_cmpstr (cells[0], ==, "Fetch from GIMP");
  g_assert_cmpstr (cells[1], ==, "2.00 ms");
  g_assert_cmpstr (cells[3], ==, "500.0"); /* 10^9 bytes in 2 ms */
  g_assert_cmpstr (cells[4], ==, DASH);
  free_cells (cells, GPUHIST_TIMING_COLUMNS);
}

static void
test_compare_and_stats_cells (void)
{
  uint64_t counts[256] = { 0 };
  GpuhistReport report;
  gchar *cells[GPUHIST_COMPARE_COLUMNS];
  gchar *stats_cells[GPUHIST_STATS_COLUMNS - 1];
  gh_channel_stats stats;

  counts[10] = 3;
  counts[20] = 1;
  report_init (&report, counts);
  gpuhist_format_compare_cells (&report.layer, -1, "a <b>", cells);
  g_assert_cmpstr (cells[0], ==, "a &lt;b&gt;");
  g_assert_cmpstr (cells[1], ==, "75 %");
  g_assert_cmpstr (cells[2], ==, "2");
  g_assert_cmpstr (cells[5], ==, "1.00 ms");
  g_assert_cmpstr (cells[6], ==, "4.0×");
  free_cells (cells, GPUHIST_COMPARE_COLUMNS);

  gh_stats_compute (counts, 256, &stats);
  gpuhist_format_stats_cells (&stats, 0.0004, 0.25, stats_cells);
  g_assert_cmpstr (stats_cells[0], ==, "12.50");   /* mean */
  g_assert_cmpstr (stats_cells[3], ==, "10");      /* min */
  g_assert_cmpstr (stats_cells[4], ==, "20");      /* max */
  g_assert_cmpstr (stats_cells[7], ==, "4");       /* pixels */
  g_assert_cmpstr (stats_cells[8], ==, "0.04 %");  /* shadows clipped */
  g_assert_cmpstr (stats_cells[9], ==, "25.00 %"); /* highlights */
  free_cells (stats_cells, GPUHIST_STATS_COLUMNS - 1);
}

/* A scope chart's view: its table's kernel timings and contention, the run's read-only pass. */
static void
test_scope_view (void)
{
  uint64_t counts[256] = { 0 };
  /* a waveform of one table, two columns of 256 levels: column 0 all at level 5 (4 pixels),
   * column 1 split over levels 1 and 2 (1 and 3 pixels) */
  double values[2 * 256] = { 0 };
  GpuhistReport report, view;
  gchar *cells[GPUHIST_COMPARE_COLUMNS];
  gchar *line;

  counts[5] = 4;
  report_init (&report, counts);
  values[5] = 4;
  values[256 + 1] = 1;
  values[256 + 2] = 3;
  report.layer.scopes[GH_SCOPE_WAVEFORM]
      = (gh_scope){ .tables = 1, .columns = 2, .bins = 256, .values = values };
  report.layer.scopes[GH_SCOPE_WAVEFORM].timing[GH_TIME_FASTEST]
      = (gh_timing){ .runs = 5, .median_ms = 3.0, .min_ms = 3.0, .max_ms = 3.0 };

  gpuhist_report_scope_view (&report, GH_SCOPE_WAVEFORM, &view);
  g_assert_cmpfloat (view.layer.timing[GH_TIME_FASTEST].median_ms, ==, 3.0);
  g_assert_cmpint (view.layer.timing[GH_TIME_GLOBAL_ATOMICS].runs, ==, 0);     /* not timed */
  g_assert_cmpfloat (view.layer.timing[GH_TIME_READ_ONLY].median_ms, ==, 0.5); /* the run's */
  gpuhist_format_compare_cells (&view.layer, GH_SCOPE_WAVEFORM, "w", cells);
  g_assert_cmpstr (cells[1], ==, "100 %"); /* column 0: one level holds all its pixels */
  g_assert_cmpstr (cells[2], ==, "3");     /* cells used */
  g_assert_cmpstr (cells[5], ==, "3.00 ms");
  free_cells (cells, GPUHIST_COMPARE_COLUMNS);
  line = gpuhist_format_scope_strategy (&view, GH_SCOPE_WAVEFORM);
  g_assert_nonnull (strstr (line, "2 columns × 256 levels × 1 channels"));
  g_assert_nonnull (strstr (line, "6.00×")); /* 3 ms over the read-only pass's 0.5 */
  g_free (line);

  /* the caption under the table says what its numbers are for the chart shown: a level's share
   * of a channel for the histogram, a cell's of its column or of the whole image for the
   * scopes */
  g_assert_nonnull (strstr (gpuhist_format_contention_caption (-1), "fullest level"));
  g_assert_nonnull (strstr (gpuhist_format_contention_caption (GH_SCOPE_WAVEFORM),
                            "Busiest cell: the share of its column's pixels in the fullest cell"));
  g_assert_nonnull (strstr (gpuhist_format_contention_caption (GH_SCOPE_VECTORSCOPE),
                            "Busiest cell: the share of all the pixels in the fullest cell"));

  /* the histogram's view is the report itself; a scope not counted shows nothing timed */
  gpuhist_report_scope_view (&report, -1, &view);
  g_assert_cmpfloat (view.layer.timing[GH_TIME_FASTEST].median_ms, ==, 1.0);
  gpuhist_report_scope_view (&report, GH_SCOPE_VECTORSCOPE, &view);
  g_assert_cmpint (view.layer.timing[GH_TIME_FASTEST].runs, ==, 0);
}

static void
test_lines (void)
{
  uint64_t counts[256] = { 0 };
  GpuhistReport report;

  report_init (&report, counts);
  report.requested_bins = 4096;
  assert_text (gpuhist_format_headline (&report),
               "<span size=\"xx-large\" weight=\"bold\">4.0× faster than global atomics</span>");
  assert_text (gpuhist_format_subline (&report),
               "<span size=\"large\" weight=\"bold\">Privatized (one copy per block): 2.0× "
               "faster than global atomics</span>");
  /* Kernels that lost to global atomics are said to be slower, not "0.4× faster". */
  report.layer.timing[GH_TIME_GLOBAL_ATOMICS].median_ms = 0.4;
  assert_text (gpuhist_format_headline (&report),
               "<span size=\"xx-large\" weight=\"bold\">2.5× slower than global atomics</span>");
  assert_text (gpuhist_format_subline (&report),
               "<span size=\"large\" weight=\"bold\">Privatized (one copy per block): 5.0× "
               "slower than global atomics</span>");
  report.layer.timing[GH_TIME_GLOBAL_ATOMICS].median_ms = 4.0;
  assert_text (gpuhist_format_info (&report, 640, 480, FALSE),
               "Layer “Background”, 640 × 480 pixels, 1 channels, perceptual levels, 5 timed "
               "runs per kernel; fastest kernel: shared");
  assert_text (gpuhist_format_backend (&report), "<b>GPU:</b> Test GPU");
  assert_text (gpuhist_format_strategy (&report),
               "256 bins a channel; the fastest kernel ran as: shared\n"
               "It took 2.00× the read-only ceiling's time.\n"
               "This layer has 8 bits a channel: its 256 levels were counted into 256 bins, not "
               "the 4096 asked for.");

  for (int k = 0; k < GH_N_TIMINGS; k++)
    report.layer.timing[k].runs = 0;
  report.layer.used_gpu = FALSE;
  assert_text (gpuhist_format_headline (&report),
               "<span size=\"xx-large\" weight=\"bold\">No timings: the histogram was counted "
               "once</span>");
  assert_text (gpuhist_format_backend (&report), "<b>The CPU ran this, not a GPU.</b>  Test GPU");
}

/* A range's cells, and its title at 256 bins and above. */
static void
test_range_cells (void)
{
  GpuhistRangeStats stats = { 3927.34, 0.5, 101.256, 3.5, 100 };
  GpuhistRangeStats empty = { 0.0, 0.0, 0.0, 0.0, -1 };
  gchar *cells[GPUHIST_RANGE_COLUMNS - 1];

  gpuhist_format_range_cells (&stats, cells);
  g_assert_cmpstr (cells[0], ==, "3927.3");
  g_assert_cmpstr (cells[1], ==, "50.00 %");
  g_assert_cmpstr (cells[2], ==, "101.26");
  g_assert_cmpstr (cells[3], ==, "100");
  g_assert_cmpstr (cells[4], ==, "3.50");
  free_cells (cells, GPUHIST_RANGE_COLUMNS - 1);
  stats.weight = 7.0;
  gpuhist_format_range_cells (&stats, cells);
  g_assert_cmpstr (cells[0], ==, "7");
  free_cells (cells, GPUHIST_RANGE_COLUMNS - 1);
  gpuhist_format_range_cells (&empty, cells);
  g_assert_cmpstr (cells[0], ==, "0");
  g_assert_cmpstr (cells[2], ==, DASH);
  g_assert_cmpstr (cells[3], ==, DASH);
  g_assert_cmpstr (cells[4], ==, DASH);
  free_cells (cells, GPUHIST_RANGE_COLUMNS - 1);

  assert_text (gpuhist_format_range (100, 150, 256), "Levels 100–150 (51 levels)");
  assert_text (gpuhist_format_range (100, 100, 256), "Level 100");
  assert_text (gpuhist_format_range (4096, 8191, 65536), "Bins 4096–8191 of 65536");
}

/* The counted line: a weighted report of 100 x 100 pixels, RGBA, whose alpha channel (the last
 * of the layer's own) adds up to the selection's coverage, 7854.68. */
static void
counted_report_init (GpuhistReport *report, double *values)
{
  memset (report, 0, sizeof *report);
  memset (values, 0, sizeof *values * 4 * 256);
  values[0 * 256 + 10] = 3927.34; /* red: weighted by alpha too */
  values[3 * 256 + 0] = 3927.34;  /* alpha: half transparent, half opaque */
  values[3 * 256 + 255] = 3927.34;
  report->layer.channels = report->layer.input_channels = 4;
  report->layer.bins = 256;
  report->layer.values = values;
  report->layer.samples = 10000;
  report->weighting = GPUHIST_WEIGHTING_GIMP;
  report->source_kind = GPUHIST_SOURCE_DRAWABLE;
  report->drawable_kind = GPUHIST_DRAWABLE_LAYER;
  report->selection = TRUE;
  report->layer_alpha = TRUE;
}

static void
test_counted_line (void)
{
  double values[4 * 256];
  GpuhistReport report;

  counted_report_init (&report, values);
  assert_text (gpuhist_format_counted (&report),
               "The selection: 7854.7 of the 10000 pixels in its bounds, weighted by coverage "
               "and alpha");
  report.layer_alpha = FALSE;
  assert_text (gpuhist_format_counted (&report),
               "The selection: 7854.7 of the 10000 pixels in its bounds, weighted by coverage");
  report.source_kind = GPUHIST_SOURCE_VISIBLE;
  report.weighting = GPUHIST_WEIGHTING_PIXELS;
  values[3 * 256 + 0] = 3900.0;
  values[3 * 256 + 255] = 3960.0;
  assert_text (gpuhist_format_counted (&report),
               "The selection of the visible image: 7860 of the 10000 pixels in its bounds, each "
               "pixel whose selection coverage is at least one half counted once");

  report.selection = FALSE;
  report.source_kind = GPUHIST_SOURCE_DRAWABLE;
  report.weighting = GPUHIST_WEIGHTING_GIMP;
  assert_text (gpuhist_format_counted (&report), "The whole layer: 10000 pixels");
  report.layer_alpha = TRUE;
  assert_text (gpuhist_format_counted (&report),
               "The whole layer: 10000 pixels, weighted by alpha");
  report.weighting = GPUHIST_WEIGHTING_PIXELS;
  assert_text (gpuhist_format_counted (&report),
               "The whole layer: 10000 pixels, each pixel counted once, alpha ignored");
  report.source_kind = GPUHIST_SOURCE_VISIBLE;
  assert_text (gpuhist_format_counted (&report),
               "The whole visible image: 10000 pixels, each pixel counted once, alpha ignored");
  report.source_kind = GPUHIST_SOURCE_DRAWABLE;
  report.drawable_kind = GPUHIST_DRAWABLE_MASK_OR_CHANNEL;
  report.layer_alpha = FALSE;
  assert_text (gpuhist_format_counted (&report), "The whole channel: 10000 pixels");

  report.layer.values = NULL;
  assert_text (gpuhist_format_counted (&report), "");
}

int
main (int argc, char **argv)
{
  g_setenv ("LANGUAGE", "C", TRUE);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/format/numbers", test_numbers);
  g_test_add_func ("/format/timing-cells", test_timing_cells);
  g_test_add_func ("/format/compare-and-stats-cells", test_compare_and_stats_cells);
  g_test_add_func ("/format/lines", test_lines);
  g_test_add_func ("/format/scope-view", test_scope_view);
  g_test_add_func ("/format/range-cells", test_range_cells);
  g_test_add_func ("/format/counted-line", test_counted_line);
  return g_test_run ();
}
