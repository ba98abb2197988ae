/* gpu-histogram: more than 2^32 samples of one value through the GPU path.  The device's
 * per-strip counters are 32-bit; the totals must stay exact in 64 bits.  Then the same with full
 * 16-bit coverage, the largest weight a lane column can take (65535 a sample), in 2 GiB strips:
 * a column passes 2^32 within a launch unless it is flushed in time.  Exits 77 without a GPU. */
#include "test-util.h"

static void
test_weighted_huge (uint8_t value)
{
  gh_options options;
  gh_options_init (&options);
  options.backend = GH_BACKEND_CUDA;
  options.memory_budget = (size_t) 8 << 30; /* strips of 2^31 sample bytes */
  gh_error error;
  gh_engine *engine = gh_engine_new (&options, &error);
  CHECK (engine != NULL, "%s", error.message);
  const int width = 65536, height = 65539;
  gh_run_spec spec;
  gh_run_spec_init (&spec, width, height, 1, 1);
  spec.coverage_bytes = 2;
  gh_run *run = engine ? gh_run_begin_spec (engine, &spec, &error) : NULL;
  CHECK (run != NULL, "%s", error.message);
  for (int y = 0; run && y < height;)
    {
      int rows;
      uint8_t *strip = gh_run_strip_buffer (run, &rows);
      memset (strip, value, (size_t) rows * width);
      memset (gh_run_coverage_buffer (run), 0xFF, (size_t) rows * width * 2);
      CHECK (gh_run_submit_strip (run, rows, &error) == GH_OK, "%s", error.message);
      y += rows;
    }
  gh_result result;
  CHECK (run && gh_run_finish (run, &result, &error) == GH_OK, "%s", error.message);
  if (run)
    {
      const uint64_t pixels = (uint64_t) width * height;
      CHECK (result.used_gpu && result.denominator == 65535, "on %s, denominator %" PRIu64,
             result.backend, result.denominator);
      CHECK (result.numerators[value].hi == 0 && result.numerators[value].lo == pixels * 65535,
             "weighted bin %d holds %" PRIu64 ", expected %" PRIu64, value,
             result.numerators[value].lo, pixels * 65535);
      printf ("# weighted bin %d: %" PRIu64 " / 65535 on %s (%s)\n", value,
              result.numerators[value].lo, result.backend, result.layout);
      gh_result_clear (&result);
    }
  gh_engine_free (engine);
}

int
main (void)
{
  test_init ();
  gh_options options;
  gh_options_init (&options);
  options.backend = GH_BACKEND_CUDA;
  gh_error error;
  gh_engine *engine = gh_engine_new (&options, &error);
  if (!engine)
    {
      printf ("skipped: %s\n", error.message);
      return TEST_SKIP;
    }

  /* 65536 x 65539 gray pixels: 2^32 + 3 * 2^16 samples.  Row 0 is noise, the rest one value. */
  const int width = 65536, height = 65539;
  const uint8_t value = (uint8_t) (1 + test_random () % 254);
  uint64_t expected[GH_BINS] = { 0 };
  expected[value] = (uint64_t) width * (height - 1);
  gh_run *run = gh_run_begin (engine, width, height, 1, &error);
  CHECK (run != NULL, "%s", error.message);
  for (int y = 0; run && y < height;)
    {
      int rows;
      uint8_t *strip = gh_run_strip_buffer (run, &rows);
      memset (strip, value, (size_t) rows * width);
      if (y == 0)
        for (int x = 0; x < width; x++)
          {
            strip[x] = (uint8_t) test_random ();
            expected[strip[x]]++;
          }
      CHECK (gh_run_submit_strip (run, rows, &error) == GH_OK, "%s", error.message);
      y += rows;
    }
  /* Row 0 was counted above as noise; the other rows hold `value`. */
  gh_result result;
  CHECK (run && gh_run_finish (run, &result, &error) == GH_OK, "%s", error.message);
  CHECK (result.counts[value] > ((uint64_t) 1 << 32), "bin %d holds %" PRIu64, value,
         result.counts[value]);
  test_counts_equal (result.counts, expected, 1, "2^32 samples of one value");
  printf ("# bin %d: %" PRIu64 " on %s\n", value, result.counts[value], result.backend);
  gh_result_clear (&result);
  gh_engine_free (engine);
  test_weighted_huge (value);
  return test_finish ("test-engine-huge");
}
