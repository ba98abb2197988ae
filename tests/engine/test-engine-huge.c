/* gpu-histogram: more than 2^32 samples of one value through the GPU path.  The device's
 * per-strip counters are 32-bit; the totals must stay exact in 64 bits.  Exits 77 without a GPU. */
#include "test-util.h"

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
  return test_finish ("test-engine-huge");
}
