/* Unit tests of plugin/run/strip-fetch.c, the dialog's fetcher: over GeglBuffers taller and wider
 * than one tile, the counts of a worker thread that reads its bands through the fetcher (the main
 * loop fetching a tile row at a time) must equal those of a direct read, for 8- and 16-bit
 * samples, with and without a selection plane, and a layer offset in the image. */
#include <string.h>

#include <gegl.h>

#include "counting-buffer.h"

#include "measure.h"
#include "report.h"
#include "source.h"
#include "strip-fetch.h"

#define LAYER_W 333 /* not a multiple of any tile width */
#define LAYER_H 301 /* several tile rows: a band of the fetch spans them */
#define OFFSET_X 10 /* the layer's offsets in the image, for the selection */
#define OFFSET_Y 20

static gh_engine *
cpu_engine (void)
{
  gh_options options;
  gh_error error;
  gh_engine *engine;

  gh_options_init (&options);
  options.backend = GH_BACKEND_CPU;
  engine = gh_engine_new (&options, &error);
  g_assert_nonnull (engine);
  return engine;
}

typedef struct
{
  gh_engine *engine;
  const GpuhistSource *source;
  const GpuhistSettings *settings;
  GpuhistStripFetch *fetch;
  GpuhistReport report;
  gboolean ok;
  GError *error;
  GMainLoop *loop;
} Fetched;

static gboolean
quit_loop (gpointer data)
{
  g_main_loop_quit (data);
  return G_SOURCE_REMOVE;
}

/* The worker, as plugin/ui/dialog-worker.c runs it: counts bands the main loop fetches. */
static gpointer
count_fetched (gpointer data)
{
  Fetched *f = data;

  f->ok = gpuhist_measure_bands (f->engine, f->source, f->settings, NULL,
                                 gpuhist_strip_fetch_read_band, f->fetch, &f->report, &f->error);
  g_idle_add (quit_loop, f->loop);
  return NULL;
}

/* The counts of every channel, as the PDB returns them. */
static gdouble *
counts_of (const GpuhistReport *report, gint *n)
{
  gdouble *counts = gpuhist_report_counts (report, n);

  g_assert_nonnull (counts);
  g_assert_cmpint (*n, >, 0);
  return counts;
}

static void
assert_fetch_counts_as_direct (GeglBuffer *layer, GeglBuffer *selection, int bins)
{
  const GeglRectangle area = { 3, 5, LAYER_W - 3, LAYER_H - 5 };
  GpuhistSettings settings = { .bins = bins,
                               .weighting = GPUHIST_WEIGHTING_GIMP,
                               .source = GPUHIST_SOURCE_DRAWABLE,
                               .luminance = GH_LUMINANCE_GIMP2 };
  GpuhistReport direct = { 0 };
  GpuhistSource source;
  Fetched f = { 0 };
  GError *error = NULL;
  gdouble *want, *got;
  gint n_want, n_got;
  GThread *worker;
  GCancellable *cancellable;

  g_assert_true (
      gpuhist_source_init (&source, layer, &area, GPUHIST_DRAWABLE_LAYER, FALSE, "l", &error));
  g_assert_no_error (error);
  gpuhist_source_set_coverage (&source, selection, OFFSET_X, OFFSET_Y);

  f.engine = cpu_engine ();
  g_assert_true (gpuhist_measure (f.engine, &source, &settings, NULL, &direct, &error));
  g_assert_no_error (error);

  f.source = &source;
  f.settings = &settings;
  f.loop = g_main_loop_new (NULL, FALSE);
  cancellable = g_cancellable_new ();
  f.fetch = gpuhist_strip_fetch_new (&source, &settings, cancellable, NULL, NULL, &error);
  g_assert_no_error (error);
  worker = g_thread_new ("count", count_fetched, &f);
  g_main_loop_run (f.loop);
  g_thread_join (worker);
  g_assert_no_error (f.error);
  g_assert_true (f.ok);

  want = counts_of (&direct, &n_want);
  got = counts_of (&f.report, &n_got);
  g_assert_cmpint (n_got, ==, n_want);
  g_assert_cmpmem (got, (gsize) n_got * sizeof *got, want, (gsize) n_want * sizeof *want);

  g_free (want);
  g_free (got);
  gpuhist_strip_fetch_free (f.fetch);
  g_object_unref (cancellable);
  g_main_loop_unref (f.loop);
  gpuhist_report_clear (&direct);
  gpuhist_report_clear (&f.report);
  gh_engine_free (f.engine);
  gpuhist_source_clear (&source);
}

/* One layer format, without and with a selection plane of its depth, at two bin counts. */
typedef struct
{
  const char *layer_format, *mask_format;
  int bins, bins_selected;
} Case;

static void
test_case (gconstpointer data)
{
  const Case *c = data;
  GeglBuffer *layer = counting_buffer (c->layer_format, LAYER_W, LAYER_H);
  GeglBuffer *mask = counting_buffer (c->mask_format, LAYER_W + OFFSET_X, LAYER_H + OFFSET_Y);

  assert_fetch_counts_as_direct (layer, NULL, c->bins);
  assert_fetch_counts_as_direct (layer, mask, c->bins_selected);
  g_object_unref (layer);
  g_object_unref (mask);
}

int
main (int argc, char **argv)
{
  static const Case rgba8 = { "R'G'B'A u8", "Y u8", 256, 256 };
  static const Case rgb16 = { "R'G'B' u16", "Y u16", 4096, 1024 };
  int status;

  gegl_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);
  g_test_add_data_func ("/strip-fetch/8-bit", &rgba8, test_case);
  g_test_add_data_func ("/strip-fetch/16-bit", &rgb16, test_case);
  status = g_test_run ();
  gegl_exit ();
  return status;
}
