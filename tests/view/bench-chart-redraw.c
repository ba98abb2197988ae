/* gpu-histogram: what switching charts after a run costs the dialog's chart area: each chart
 * drawn whole, as the dialog's draw handlers draw it, into a cairo surface of the area's size
 * (1920 x 1200 by default), from tables counted once beforehand (no count while timing).
 *
 *   bench-chart-redraw [WIDTH HEIGHT [IMAGE_WIDTH IMAGE_HEIGHT [ROUNDS [BINS]]]]
 *
 * The tables: an RGBA noise image (6000 x 4000 by default) counted once on the CPU with value
 * and luminance (six channels), the waveform at 1024 columns and the vectorscope; with BINS
 * above 256, 16-bit samples into that many bins, the waveform at the columns the dialog allows
 * them (charts.c: 4 Mi cells, 682 columns at 1024 bins).  Each round
 * draws every chart once: the histogram view at the area's size onto white
 * (gpuhist_histogram_view_draw_on, what its expose handler draws); the waveform (every
 * channel), the parade and the vectorscope as chart-scope.c draws them after a run (its cached
 * drawing forgotten): gh_render_chart at the chart's place into an image surface
 * (gpuhist_chart_surface), then black and that surface painted onto the area.  Prints a line a
 * chart: its median, min and max in ms over the rounds, and the worst chart's; the median of
 * the thread's CPU time, which a machine shared with other work leaves nearly as it is, and of
 * the process' (the renderer's helper thread included).
 *
 * Needs a display for GTK (xvfb-run); 77 without one.  Built by meson, not a test. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gtk/gtk.h>

#include "gpuhist.h"
#include "histogram-view.h"
#include "report.h"

#define MAX_ROUNDS 1000

static int
compare_doubles (const void *a, const void *b)
{
  const double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* An RGBA noise image counted once with six channels, the waveform and the vectorscope. */
static gboolean
count_tables (int width, int height, int bins, gh_result *result)
{
  gh_options options;
  gh_run_spec spec;
  gh_error error = { GH_OK, "" };
  const int bytes = bins > GH_BINS ? 2 : 1;
  size_t size = (size_t) width * height * 4 * bytes;
  guint8 *pixels = g_malloc (size);
  GRand *rand = g_rand_new_with_seed (29);
  gh_engine *engine;
  gh_status status;

  for (size_t i = 0; i < size; i += 4)
    {
      guint32 r = g_rand_int (rand);

      memcpy (pixels + i, &r, 4);
    }
  g_rand_free (rand);
  gh_options_init (&options);
  options.backend = GH_BACKEND_CPU;
  options.methods = GH_METHOD_BIT (GH_METHOD_FASTEST);
  options.bins = bins;
  engine = gh_engine_new (&options, &error);
  gh_run_spec_init (&spec, width, height, 4, bytes);
  spec.derived = 1;
  spec.waveform_columns = MIN (MIN (1024, width), (4 << 20) / (bins * 6));
  spec.vectorscope = 1;
  status = gh_histogram_spec (engine, &spec, pixels, (size_t) width * 4 * bytes, NULL, 0, result,
                              &error);
  gh_engine_free (engine);
  g_free (pixels);
  if (status != GH_OK)
    fprintf (stderr, "bench-chart-redraw: %s\n", error.message);
  return status == GH_OK;
}

/* The histogram as its view draws it at the area's size. */
static void
draw_histogram (GtkWidget *view, cairo_t *cr)
{
  cairo_set_source_rgb (cr, 1.0, 1.0, 1.0);
  cairo_paint (cr);
  gpuhist_histogram_view_draw_on (GPUHIST_HISTOGRAM_VIEW (view), cr);
}

/* A chart of the engine as chart-scope.c's draw handler draws it with no drawing kept. */
static void
draw_scope (const gh_result *result, gh_chart chart, cairo_t *cr, int width, int height)
{
  int side = MIN (width, height);
  int x = 0, y = 0, w = width, h = height;
  gh_render_options options;
  cairo_surface_t *drawn;

  if (chart == GH_CHART_VECTORSCOPE)
    {
      x = (width - side) / 2;
      y = (height - side) / 2;
      w = h = side;
    }
  gh_render_options_init (&options);
  drawn = gpuhist_chart_surface (result, chart, &options, w, h, NULL);
  cairo_set_source_rgb (cr, 0.0, 0.0, 0.0);
  cairo_paint (cr);
  cairo_set_source_surface (cr, drawn, x, y);
  cairo_paint (cr);
  cairo_surface_flush (cairo_get_target (cr));
  cairo_surface_destroy (drawn);
}

static double
cpu_ms (clockid_t clock)
{
  struct timespec t;

  clock_gettime (clock, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* Round r of chart c into times[c][r], its CPU time into cpu[c][r] (the thread's) and
 * process_cpu[c][r]. */
static void
time_charts (const gh_result *result, GtkWidget *view, int width, int height, int rounds,
             double (*times)[MAX_ROUNDS], double (*cpu)[MAX_ROUNDS],
             double (*process_cpu)[MAX_ROUNDS])
{
  cairo_surface_t *area = cairo_image_surface_create (CAIRO_FORMAT_RGB24, width, height);
  cairo_t *cr = cairo_create (area);

  for (int r = 0; r < rounds; r++)
    for (int c = 0; c < 4; c++)
      {
        gint64 start = g_get_monotonic_time ();
        double cpu_start = cpu_ms (CLOCK_THREAD_CPUTIME_ID);
        double process_start = cpu_ms (CLOCK_PROCESS_CPUTIME_ID);

        if (c == 0)
          draw_histogram (view, cr);
        else
          draw_scope (result, (gh_chart) (c - 1), cr, width, height);
        cairo_surface_flush (area);
        times[c][r] = (g_get_monotonic_time () - start) / 1000.0;
        cpu[c][r] = cpu_ms (CLOCK_THREAD_CPUTIME_ID) - cpu_start;
        process_cpu[c][r] = cpu_ms (CLOCK_PROCESS_CPUTIME_ID) - process_start;
      }
  cairo_destroy (cr);
  cairo_surface_destroy (area);
}

int
main (int argc, char **argv)
{
  static const char *const names[] = { "red", "green", "blue", "alpha", "value", "luminance" };
  static const char *const charts[] = { "histogram", "waveform", "parade", "vectorscope" };
  static double times[4][MAX_ROUNDS], cpu[4][MAX_ROUNDS], process_cpu[4][MAX_ROUNDS];
  int width = argc > 2 ? atoi (argv[1]) : 1920, height = argc > 2 ? atoi (argv[2]) : 1200;
  int image_width = argc > 4 ? atoi (argv[3]) : 6000,
      image_height = argc > 4 ? atoi (argv[4]) : 4000;
  int rounds = argc > 5 ? CLAMP (atoi (argv[5]), 1, MAX_ROUNDS) : 21;
  int bins = argc > 6 ? atoi (argv[6]) : GH_BINS;
  double worst_median = 0, worst_max = 0;
  GtkWidget *window, *view;
  gh_result result;

  if (!gtk_init_check (&argc, &argv))
    {
      printf ("bench-chart-redraw: no display\n");
      return 77;
    }
  if (!count_tables (image_width, image_height, bins, &result))
    return 1;
  window = gtk_offscreen_window_new ();
  view = gpuhist_histogram_view_new ();
  gtk_widget_set_size_request (view, width, height);
  gtk_container_add (GTK_CONTAINER (window), view);
  gtk_widget_show_all (window);
  gpuhist_histogram_view_set_data (GPUHIST_HISTOGRAM_VIEW (view), result.counts, result.channels,
                                   result.bins, names);
  while (gtk_events_pending ())
    gtk_main_iteration ();

  time_charts (&result, view, width, height, rounds, times, cpu, process_cpu);
  printf ("chart area %d x %d; tables of a %d x %d RGBA image (waveform %d columns x %d levels x "
          "%d channels); %d rounds\n",
          width, height, image_width, image_height, result.scopes[GH_SCOPE_WAVEFORM].columns,
          result.scopes[GH_SCOPE_WAVEFORM].bins, result.scopes[GH_SCOPE_WAVEFORM].tables, rounds);
  for (int c = 0; c < 4; c++)
    {
      qsort (times[c], rounds, sizeof times[c][0], compare_doubles);
      qsort (cpu[c], rounds, sizeof cpu[c][0], compare_doubles);
      qsort (process_cpu[c], rounds, sizeof process_cpu[c][0], compare_doubles);
      printf ("%-12s median %7.2f ms  min %7.2f  max %7.2f  (CPU: median %7.2f, max %7.2f; "
              "process: median %7.2f)\n",
              charts[c], times[c][rounds / 2], times[c][0], times[c][rounds - 1],
              cpu[c][rounds / 2], cpu[c][rounds - 1], process_cpu[c][rounds / 2]);
      worst_median = MAX (worst_median, times[c][rounds / 2]);
      worst_max = MAX (worst_max, times[c][rounds - 1]);
    }
  printf ("worst chart: median %.2f ms, max %.2f ms\n", worst_median, worst_max);
  gtk_widget_destroy (window);
  gh_result_clear (&result);
  return 0;
}
