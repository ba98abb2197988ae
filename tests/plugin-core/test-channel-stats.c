/* Unit tests of plugin/run/channel-stats.c: a range's statistics and the clipping, each against a
 * computation written here from the definitions (weighted mean, population standard deviation,
 * the lowest bin where twice the running weight passes the range's weight), not the engine's. */
#include <math.h>
#include <string.h>

#include <glib.h>

#include "channel-stats.h"

#define BINS 1024
#define CHANNELS 2

/* Two channels of weighted, fractional values, as a selection with soft edges gives them; the
 * first clipped in its highest bin, not the one below it; the second in its lowest only. */
static void
result_init (gh_result *result, double *values)
{
  GRand *rand = g_rand_new_with_seed (15);

  memset (result, 0, sizeof *result);
  for (int i = 0; i < CHANNELS * BINS; i++)
    values[i] = g_rand_int_range (rand, 0, 4) == 0 ? 0.0 : g_rand_double_range (rand, 0.0, 40.0);
  values[BINS - 2] = 0.0;
  values[BINS - 1] = 7.75;
  values[BINS + 0] = 12.5;
  values[BINS + BINS - 2] = 5.0;
  values[BINS + BINS - 1] = 0.0;
  g_rand_free (rand);
  result->channels = CHANNELS;
  result->bins = BINS;
  result->weighted = 1;
  result->values = values;
}

typedef struct
{
  double weight, mean, stddev;
  int median;
} Expected;

static Expected
by_definition (const double *v, int lo, int hi)
{
  Expected e = { 0.0, 0.0, 0.0, -1 };
  double sum = 0.0;

  for (int b = lo; b <= hi; b++)
    {
      e.weight += v[b];
      e.mean += b * v[b];
    }
  if (e.weight <= 0.0)
    return e;
  e.mean /= e.weight;
  for (int b = lo; b <= hi; b++)
    {
      e.stddev += v[b] * (b - e.mean) * (b - e.mean);
      sum += v[b];
      if (e.median < 0 && 2.0 * sum > e.weight)
        e.median = b;
    }
  e.stddev = sqrt (e.stddev / e.weight);
  return e;
}

static void
check_range (const gh_result *result, int channel, int lo, int hi)
{
  const double *v = result->values + (size_t) channel * BINS;
  Expected e = by_definition (v, lo, hi);
  Expected all = by_definition (v, 0, BINS - 1);
  GpuhistRangeStats s;

  g_assert_true (gpuhist_range_stats (result, channel, lo, hi, &s));
  g_assert_cmpfloat_with_epsilon (s.weight, e.weight, 1e-9 * MAX (e.weight, 1.0));
  g_assert_cmpfloat_with_epsilon (s.share, e.weight / all.weight, 1e-12);
  g_assert_cmpfloat_with_epsilon (s.mean, e.mean, 1e-9);
  g_assert_cmpfloat_with_epsilon (s.stddev, e.stddev, 1e-9);
  g_assert_cmpint (s.median, ==, e.median);
}

static void
test_ranges (void)
{
  double values[CHANNELS * BINS];
  gh_result result;

  result_init (&result, values);
  for (int channel = 0; channel < CHANNELS; channel++)
    {
      check_range (&result, channel, 0, BINS - 1);
      check_range (&result, channel, 100, 300);
      check_range (&result, channel, 0, 0);
      check_range (&result, channel, BINS - 1, BINS - 1);
      check_range (&result, channel, 511, 512);
    }
}

/* A range of one bin: that bin, no spread; an empty range: nothing, no median. */
static void
test_small_ranges (void)
{
  double values[CHANNELS * BINS];
  gh_result result;
  GpuhistRangeStats s;

  result_init (&result, values);
  values[700] = 3.25;
  g_assert_true (gpuhist_range_stats (&result, 0, 700, 700, &s));
  g_assert_cmpfloat (s.weight, ==, 3.25);
  g_assert_cmpfloat (s.mean, ==, 700.0);
  g_assert_cmpfloat (s.stddev, ==, 0.0);
  g_assert_cmpint (s.median, ==, 700);

  memset (values + 200, 0, sizeof values[0] * 10);
  g_assert_true (gpuhist_range_stats (&result, 0, 200, 209, &s));
  g_assert_cmpfloat (s.weight, ==, 0.0);
  g_assert_cmpfloat (s.share, ==, 0.0);
  g_assert_cmpint (s.median, ==, -1);
}

static void
test_bad_ranges (void)
{
  double values[CHANNELS * BINS];
  gh_result result;
  GpuhistRangeStats s;

  result_init (&result, values);
  g_assert_false (gpuhist_range_stats (&result, 0, 10, 9, &s));
  g_assert_false (gpuhist_range_stats (&result, 0, -1, 9, &s));
  g_assert_false (gpuhist_range_stats (&result, 0, 0, BINS, &s));
  g_assert_false (gpuhist_range_stats (&result, CHANNELS, 0, 9, &s));
  g_assert_cmpint (s.median, ==, -1);
  g_assert_cmpfloat (s.weight, ==, 0.0);
}

static void
test_clipping (void)
{
  double values[CHANNELS * BINS];
  gh_result result;
  double shadows, highlights;

  result_init (&result, values);
  for (int channel = 0; channel < CHANNELS; channel++)
    {
      const double *v = values + (size_t) channel * BINS;
      Expected all = by_definition (v, 0, BINS - 1);

      g_assert_true (gpuhist_channel_clipping (&result, channel, &shadows, &highlights));
      g_assert_cmpfloat_with_epsilon (shadows, v[0] / all.weight, 1e-12);
      g_assert_cmpfloat_with_epsilon (highlights, v[BINS - 1] / all.weight, 1e-12);
    }
  g_assert_cmpfloat (highlights, ==, 0.0);
  g_assert_cmpfloat (shadows, >, 0.0);

  memset (values, 0, sizeof values[0] * BINS);
  g_assert_true (gpuhist_channel_clipping (&result, 0, &shadows, &highlights));
  g_assert_cmpfloat (shadows, ==, 0.0);
  g_assert_cmpfloat (highlights, ==, 0.0);
  g_assert_false (gpuhist_channel_clipping (&result, CHANNELS, &shadows, &highlights));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/range/against-definition", test_ranges);
  g_test_add_func ("/range/one-bin-and-empty", test_small_ranges);
  g_test_add_func ("/range/bad", test_bad_ranges);
  g_test_add_func ("/clipping/against-definition", test_clipping);
  return g_test_run ();
}
