/* Unit tests of plugin/ui/chart-readout.c: what the pointer is over in the charts the engine
 * draws, against the mapping gpuhist.h states (a pixel of column x lands in output column
 * floor (x * C / W); screen pixel i of `size` sums cells floor (i * n / size) up to floor
 * ((i + 1) * n / size); bins and Cr count up from the bottom), checked here pixel by pixel. */
#include <math.h>
#include <string.h>

#include <glib.h>

#include "chart-readout.h"

#define WIDTH 10  /* image columns counted */
#define COLUMNS 4 /* waveform columns */
#define BINS 256

/* A report of a WIDTH-pixel-wide area at x = 3, whose waveform (one table) holds in cell
 * (column c, bin b) the value 1000 c + b, and whose vectorscope holds 1 in every cell but the
 * neutral one, which holds 64000. */
typedef struct
{
  GpuhistReport report;
  double waveform[COLUMNS * BINS];
  double vectorscope[256 * 256];
} Fixture;

static void
fixture_init (Fixture *f)
{
  gh_scope *w = &f->report.layer.scopes[GH_SCOPE_WAVEFORM];
  gh_scope *v = &f->report.layer.scopes[GH_SCOPE_VECTORSCOPE];

  memset (f, 0, sizeof *f);
  f->report.area = (GeglRectangle){ 3, 0, WIDTH, 5 };
  for (int c = 0; c < COLUMNS; c++)
    for (int b = 0; b < BINS; b++)
      f->waveform[c * BINS + b] = 1000.0 * c + b;
  *w = (gh_scope){ .tables = 1, .columns = COLUMNS, .bins = BINS, .values = f->waveform };
  for (int i = 0; i < 256 * 256; i++)
    f->vectorscope[i] = 1.0;
  f->vectorscope[128 * 256 + 128] = 64000.0;
  *v = (gh_scope){ .tables = 1, .columns = 256, .bins = 256, .values = f->vectorscope };
}

static void
test_span (void)
{
  int lo, hi;

  /* shrinking: each pixel sums its cells; stretching: cells repeat */
  gpuhist_readout_span (0, 128, 256, &lo, &hi);
  g_assert_cmpint (lo, ==, 0);
  g_assert_cmpint (hi, ==, 1);
  gpuhist_readout_span (127, 128, 256, &lo, &hi);
  g_assert_cmpint (lo, ==, 254);
  g_assert_cmpint (hi, ==, 255);
  gpuhist_readout_span (3, 512, 256, &lo, &hi);
  g_assert_cmpint (lo, ==, 1);
  g_assert_cmpint (hi, ==, 1);
}

/* Every output column's image columns are exactly the pixels that land in it. */
static void
test_waveform_columns (void)
{
  Fixture f;

  fixture_init (&f);
  for (int x = 0; x < COLUMNS; x++)
    {
      GpuhistWaveformSpot spot;

      g_assert_true (gpuhist_readout_waveform (&f.report, x, 0, COLUMNS, BINS, &spot));
      g_assert_cmpint (spot.c0, ==, x);
      g_assert_cmpint (spot.c1, ==, x);
      for (int px = 0; px < WIDTH; px++)
        {
          gboolean lands = px * COLUMNS / WIDTH == x;
          gboolean said = px + 3 >= spot.x0 && px + 3 <= spot.x1;

          g_assert_cmpint (lands, ==, said);
        }
    }
}

/* Rows count bins up from the bottom; the pixels are the cells' sum. */
static void
test_waveform_levels (void)
{
  Fixture f;
  GpuhistWaveformSpot spot;

  fixture_init (&f);
  g_assert_true (gpuhist_readout_waveform (&f.report, 2, 0, COLUMNS, 128, &spot));
  g_assert_cmpint (spot.b0, ==, 254);
  g_assert_cmpint (spot.b1, ==, 255);
  g_assert_cmpfloat (gpuhist_readout_waveform_pixels (&f.report.layer.scopes[0], 0, &spot), ==,
                     2000.0 + 254 + 2000.0 + 255);
  g_assert_true (gpuhist_readout_waveform (&f.report, 0, 127, COLUMNS, 128, &spot));
  g_assert_cmpint (spot.b0, ==, 0);
  g_assert_cmpint (spot.b1, ==, 1);
  g_assert_false (gpuhist_readout_waveform (&f.report, COLUMNS, 0, COLUMNS, 128, &spot));
  g_assert_false (gpuhist_readout_waveform (&f.report, 0, -1, COLUMNS, 128, &spot));
}

static void
test_parade_panels (void)
{
  int x0, w;

  g_assert_cmpint (gpuhist_readout_parade_panel (0, 10, &x0, &w), ==, 0);
  g_assert_cmpint (w, ==, 3);
  g_assert_cmpint (gpuhist_readout_parade_panel (3, 10, &x0, &w), ==, 1);
  g_assert_cmpint (x0, ==, 3);
  g_assert_cmpint (gpuhist_readout_parade_panel (9, 10, &x0, &w), ==, 2);
  g_assert_cmpint (x0, ==, 6);
  g_assert_cmpint (w, ==, 4);
  g_assert_cmpint (gpuhist_readout_parade_panel (10, 10, &x0, &w), ==, -1);
}

/* Drawn 512 x 512: the neutral cell (128, 128) at x 256..257, y 254..255 (Cr up). */
static void
test_vectorscope (void)
{
  Fixture f;
  GpuhistVectorscopeSpot spot;

  fixture_init (&f);
  g_assert_true (gpuhist_readout_vectorscope (&f.report, 256, 255, 512, 512, &spot));
  g_assert_cmpint (spot.cb0, ==, 128);
  g_assert_cmpint (spot.cb1, ==, 128);
  g_assert_cmpint (spot.cr0, ==, 128);
  g_assert_cmpint (spot.cr1, ==, 128);
  g_assert_cmpfloat (spot.pixels, ==, 64000.0);
  g_assert_cmpfloat (spot.saturation, ==, 0.0);
  /* +Cb is 0 degrees, +Cr 90 (up), -Cb 180 */
  g_assert_true (gpuhist_readout_vectorscope (&f.report, 2 * 200, 255, 512, 512, &spot));
  g_assert_cmpfloat_with_epsilon (spot.hue, 0.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (spot.saturation, 72.0, 1e-9);
  g_assert_true (gpuhist_readout_vectorscope (&f.report, 256, 511 - 2 * 200, 512, 512, &spot));
  g_assert_cmpint (spot.cr0, ==, 200);
  g_assert_cmpfloat_with_epsilon (spot.hue, 90.0, 1e-9);
  g_assert_true (gpuhist_readout_vectorscope (&f.report, 2 * 28, 511 - 2 * 28, 512, 512, &spot));
  g_assert_cmpfloat_with_epsilon (spot.hue, 225.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (spot.saturation, 100.0 * sqrt (2.0), 1e-9);
  /* shrunk to 128 x 128: four cells a pixel */
  g_assert_true (gpuhist_readout_vectorscope (&f.report, 64, 63, 128, 128, &spot));
  g_assert_cmpint (spot.cb0, ==, 128);
  g_assert_cmpint (spot.cb1, ==, 129);
  g_assert_cmpint (spot.cr0, ==, 128);
  g_assert_cmpint (spot.cr1, ==, 129);
  g_assert_cmpfloat (spot.pixels, ==, 64003.0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/chart-readout/span", test_span);
  g_test_add_func ("/chart-readout/waveform-columns", test_waveform_columns);
  g_test_add_func ("/chart-readout/waveform-levels", test_waveform_levels);
  g_test_add_func ("/chart-readout/parade-panels", test_parade_panels);
  g_test_add_func ("/chart-readout/vectorscope", test_vectorscope);
  return g_test_run ();
}
