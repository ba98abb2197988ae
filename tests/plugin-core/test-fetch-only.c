/* Unit tests of plugin/run/fetch-only.c, the benchmark's "fetch alone": over small GeglBuffers it
 * must read what a whole run with the same settings reads (the engine's bytes a pass: samples
 * and the selection's coverage plane), for 8- and 16-bit samples, 8- and 16-bit selections and
 * both weightings; and where GPUHIST_FETCH_ONLY has the call read. */
#include <string.h>

#include <gegl.h>

#include "counting-buffer.h"

#include "fetch-only.h"
#include "report.h"
#include "run.h"
#include "source.h"

#define LAYER_W 257
#define LAYER_H 131
#define IMAGE_W 300
#define IMAGE_H 200
#define OFFSET_X 10 /* the layer's offsets in the image */
#define OFFSET_Y 20

/* Reads `layer` (its area {3, 5, 250, 120}) under `selection` (NULL: none) once as a whole run
 * with the CPU engine and once as the fetch alone; both must have read `expected` bytes. */
static void
assert_fetch_reads_as_run (GeglBuffer *layer, GeglBuffer *selection, int bins,
                           GpuhistWeighting weighting, guint64 expected)
{
  const GeglRectangle area = { 3, 5, 250, 120 };
  GpuhistSettings settings = { .bins = bins,
                               .weighting = weighting,
                               .source = GPUHIST_SOURCE_DRAWABLE,
                               .luminance = GH_LUMINANCE_GIMP2 };
  GpuhistReport run = { 0 };
  GpuhistReport fetch = { 0 };
  GpuhistSource source;
  GError *error = NULL;
  gchar *backend;

  g_assert_true (
      gpuhist_source_init (&source, layer, &area, GPUHIST_DRAWABLE_LAYER, FALSE, "l", &error));
  g_assert_no_error (error);
  gpuhist_source_set_coverage (&source, selection, OFFSET_X, OFFSET_Y);

  g_assert_true (gpuhist_run_batch (&source, &settings, NULL, NULL, &run, &error));
  g_assert_no_error (error);
  g_assert_true (gpuhist_fetch_only (&source, &settings, &fetch, &error));
  g_assert_no_error (error);

  g_assert_cmpuint (run.layer.bytes, ==, expected);
  g_assert_cmpuint (fetch.layer.bytes, ==, run.layer.bytes);
  g_assert_cmpint (fetch.channels, ==, source.channels);
  g_assert_cmpfloat (fetch.fetch_ms, >=, 0.0);
  backend = g_strdup_printf ("%s, %" G_GUINT64_FORMAT " bytes read", GPUHIST_FETCH_ONLY_BACKEND,
                             expected);
  g_assert_cmpstr (fetch.layer.backend, ==, backend);
  g_free (backend);
  gpuhist_report_clear (&run);
  gpuhist_report_clear (&fetch);
  gpuhist_source_clear (&source);
}

static void
test_selection_plane (void)
{
  GeglBuffer *layer = counting_buffer ("R'G'B'A u8", LAYER_W, LAYER_H);
  GeglBuffer *mask8 = counting_buffer ("Y u8", IMAGE_W, IMAGE_H);
  GeglBuffer *mask16 = counting_buffer ("Y u16", IMAGE_W, IMAGE_H);
  guint64 pixels = 250 * 120;

  /* No selection: the samples alone, no plane. */
  assert_fetch_reads_as_run (layer, NULL, 256, GPUHIST_WEIGHTING_GIMP, pixels * 4);
  /* weighting gimp: the selection's own 8 or 16 bits a pixel beside the samples. */
  assert_fetch_reads_as_run (layer, mask8, 256, GPUHIST_WEIGHTING_GIMP, pixels * 5);
  assert_fetch_reads_as_run (layer, mask16, 256, GPUHIST_WEIGHTING_GIMP, pixels * 6);
  /* weighting pixels: the thresholded plane, one byte a pixel. */
  assert_fetch_reads_as_run (layer, mask16, 256, GPUHIST_WEIGHTING_PIXELS, pixels * 5);
  g_object_unref (layer);
  g_object_unref (mask8);
  g_object_unref (mask16);
}

static void
test_wide_samples (void)
{
  GeglBuffer *layer = counting_buffer ("R'G'B'A u16", LAYER_W, LAYER_H);
  GeglBuffer *mask8 = counting_buffer ("Y u8", IMAGE_W, IMAGE_H);
  guint64 pixels = 250 * 120;

  /* 256 bins of a 16-bit layer: the 8-bit path; 1024 bins: 16-bit samples. */
  assert_fetch_reads_as_run (layer, mask8, 256, GPUHIST_WEIGHTING_GIMP, pixels * 5);
  assert_fetch_reads_as_run (layer, mask8, 1024, GPUHIST_WEIGHTING_GIMP, pixels * 9);
  g_object_unref (layer);
  g_object_unref (mask8);
}

/* "1" reads in the process GIMP called; "resident" in the resident process, as a whole run;
 * "paired" there too, but only plug-in-gpu-histogram's calls (plug-in-gpu-scopes' count);
 * anything else counts. */
static void
test_where_it_reads (void)
{
  const struct
  {
    const char *value;
    gboolean histogram, scopes, stays;
  } cases[] = { { "1", TRUE, TRUE, TRUE },        { "resident", TRUE, TRUE, FALSE },
                { "paired", TRUE, FALSE, FALSE }, { "0", FALSE, FALSE, FALSE },
                { "", FALSE, FALSE, FALSE },      { NULL, FALSE, FALSE, FALSE } };
  GpuhistSettings histogram = { 0 };
  GpuhistSettings scopes = { 0 };

  scopes.scopes = TRUE;
  for (size_t i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      if (cases[i].value != NULL)
        g_setenv ("GPUHIST_FETCH_ONLY", cases[i].value, TRUE);
      else
        g_unsetenv ("GPUHIST_FETCH_ONLY");
      g_assert_cmpint (gpuhist_fetch_only_requested (&histogram), ==, cases[i].histogram);
      g_assert_cmpint (gpuhist_fetch_only_requested (&scopes), ==, cases[i].scopes);
      g_assert_cmpint (gpuhist_fetch_only_stays (), ==, cases[i].stays);
    }
  g_unsetenv ("GPUHIST_FETCH_ONLY");
}

int
main (int argc, char **argv)
{
  int status;

  g_test_init (&argc, &argv, NULL);
  gegl_init (&argc, &argv);
  g_test_add_func ("/fetch-only/selection-plane", test_selection_plane);
  g_test_add_func ("/fetch-only/wide-samples", test_wide_samples);
  g_test_add_func ("/fetch-only/where-it-reads", test_where_it_reads);
  status = g_test_run ();
  gegl_exit ();
  return status;
}
