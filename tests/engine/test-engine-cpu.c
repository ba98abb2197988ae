/* gpu-histogram: the engine on the CPU backend against the reference count, the streaming API's
 * contract, statistics, CSV and JSON, and how the backend is chosen and explained. */
#include "backend.h"
#include "test-util.h"

#include <math.h>

/* Every method, alone and all together, on random shapes, strides, channels and contents. */
static void
test_methods_against_reference (void)
{
  for (int round = 0; round < 60; round++)
    {
      const int channels = 1 + (int) (test_random () % 4);
      const int width = round == 0 ? 1 : 1 + (int) (test_random () % 301);
      const int height = round == 0 ? 1 : 1 + (int) (test_random () % 40);
      const size_t stride = (size_t) width * channels + (size_t) (test_random () % 3) * 7;
      const image_kind kind = (image_kind) (round % N_IMAGE_KINDS);
      uint8_t *pixels = test_image (kind, width, height, channels, stride);
      uint64_t *expected = calloc ((size_t) channels * GH_BINS, sizeof *expected);
      gh_reference_count (pixels, width, height, channels, stride, expected);

      /* A budget of a few rows forces several strips. */
      const size_t budget = round % 2 ? 0 : 2 * (size_t) width * channels * (1 + round % 5);
      for (int m = -1; m < GH_N_METHODS; m++)
        {
          const unsigned methods = m < 0 ? GH_ALL_METHODS : GH_METHOD_BIT (m);
          gh_engine *engine = test_cpu_engine (methods, 2, budget, 0);
          gh_result result;
          gh_error error;
          gh_status status = gh_histogram_buffer (engine, pixels, width, height, channels, stride,
                                                  &result, &error);
          char what[160];
          snprintf (what, sizeof what, "%s %dx%d, %d ch, stride %zu, budget %zu, %s",
                    image_kind_names[kind], width, height, channels, stride, budget,
                    m < 0 ? "all methods" : gh_method_name ((gh_method) m));
          CHECK (status == GH_OK, "%s: %s", what, error.message);
          if (status == GH_OK && m != GH_METHOD_READ_ONLY)
            {
              test_counts_equal (result.counts, expected, channels, what);
              CHECK (result.samples == (uint64_t) width * height, "%s: samples", what);
              CHECK (result.bytes == (uint64_t) width * height * channels, "%s: bytes", what);
            }
          if (status == GH_OK)
            for (int t = 0; t < GH_N_METHODS; t++)
              CHECK ((result.timing[t].runs == 2) == (m < 0 || m == t)
                         && result.timing[t].min_ms <= result.timing[t].median_ms
                         && result.timing[t].median_ms <= result.timing[t].max_ms,
                     "%s: timing of %s", what, gh_timing_name ((gh_timing_kind) t));
          gh_result_clear (&result);
          gh_engine_free (engine);
        }
      free (expected);
      free (pixels);
    }
}

/* Without repetitions the strips are counted in the background: the caller fills one buffer
 * while the other is counted.  Every strip size must give the same counts. */
static void
test_streaming (void)
{
  const int width = 97, height = 61, channels = 3;
  uint8_t *pixels = test_image (IMAGE_NOISE, width, height, channels, (size_t) width * channels);
  uint64_t expected[3 * GH_BINS] = { 0 };
  gh_reference_count (pixels, width, height, channels, (size_t) width * channels, expected);
  const size_t row = (size_t) width * channels;
  for (int rows_per_strip = 1; rows_per_strip <= height + 5; rows_per_strip += 7)
    {
      gh_engine *engine = test_cpu_engine (0, 0, 2 * row * (size_t) rows_per_strip, 0);
      gh_error error;
      gh_run *run = gh_run_begin (engine, width, height, channels, &error);
      CHECK (run != NULL, "begin: %s", error.message);
      int y = 0, strips = 0, fill = 0;
      while (run && y < height)
        {
          int rows;
          uint8_t *strip = gh_run_strip_buffer (run, &rows);
          CHECK (rows >= 1 && rows <= rows_per_strip, "max_rows %d for strips of %d", rows,
                 rows_per_strip);
          memcpy (strip, pixels + (size_t) y * row, (size_t) rows * row);
          /* The next fill must not land in the buffer still being counted. */
          if (strips > 0)
            CHECK (strip != NULL, "strip buffer");
          CHECK (gh_run_submit_strip (run, rows, &error) == GH_OK, "submit: %s", error.message);
          y += rows;
          strips++;
          fill += rows;
        }
      gh_result result;
      CHECK (gh_run_finish (run, &result, &error) == GH_OK, "finish: %s", error.message);
      test_counts_equal (result.counts, expected, channels, "streamed");
      CHECK (fill == height, "rows %d", fill);
      CHECK (strips == (height + rows_per_strip - 1) / rows_per_strip || rows_per_strip > height,
             "%d strips of %d rows", strips, rows_per_strip);
      CHECK (result.timing[GH_TIME_FASTEST].runs == 0, "an untimed run has no timing");
      gh_result_clear (&result);
      gh_engine_free (engine);
    }
  free (pixels);
}

static void
test_misuse (void)
{
  gh_engine *engine = test_cpu_engine (0, 0, 0, 0);
  gh_error error;
  CHECK (gh_run_begin (engine, 0, 5, 1, &error) == NULL
             && error.status == GH_ERROR_INVALID_ARGUMENT,
         "zero width accepted");
  CHECK (gh_run_begin (engine, 5, 5, 5, &error) == NULL
             && error.status == GH_ERROR_INVALID_ARGUMENT,
         "five channels accepted");

  gh_run *run = gh_run_begin (engine, 10, 4, 2, &error);
  int rows;
  uint8_t *strip = gh_run_strip_buffer (run, &rows);
  memset (strip, 7, (size_t) rows * 20);
  CHECK (rows == 4, "max_rows %d", rows);
  CHECK (gh_run_submit_strip (run, 5, &error) == GH_ERROR_INVALID_ARGUMENT,
         "a strip past the image was accepted");
  CHECK (gh_run_submit_strip (run, 3, &error) == GH_OK, "%s", error.message);
  gh_result result;
  CHECK (gh_run_finish (run, &result, &error) == GH_ERROR_INVALID_ARGUMENT,
         "a run missing a row finished");
  CHECK (strstr (error.message, "3 of 4") != NULL, "message: %s", error.message);
  gh_result_clear (&result);

  uint8_t pixel[4] = { 1, 2, 3, 4 };
  CHECK (gh_histogram_buffer (engine, pixel, 2, 1, 2, 3, &result, &error)
             == GH_ERROR_INVALID_ARGUMENT,
         "a stride shorter than a row was accepted");

  gh_options options;
  gh_options_init (&options);
  options.memory_budget = 64;
  options.backend = GH_BACKEND_CPU;
  gh_engine *tiny = gh_engine_new (&options, &error);
  CHECK (gh_run_begin (tiny, 1000, 1, 4, &error) == NULL && error.status == GH_ERROR_OUT_OF_MEMORY,
         "a row larger than the budget was accepted");
  gh_engine_free (tiny);
  gh_engine_free (engine);
}

static void
test_patterns (void)
{
  const int width = 123, height = 77;
  for (int channels = 1; channels <= 4; channels++)
    {
      gh_engine *engine
          = test_cpu_engine (GH_ALL_METHODS, 1, 2 * (size_t) width * channels * 10, 0);
      gh_result flat, noise;
      gh_error error;
      CHECK (gh_histogram_pattern (engine, GH_PATTERN_FLAT, width, height, channels, &flat, &error)
                 == GH_OK,
             "%s", error.message);
      for (int c = 0; c < channels; c++)
        CHECK (flat.counts[c * GH_BINS + GH_FLAT_VALUE] == (uint64_t) width * height,
               "flat channel %d", c);

      CHECK (
          gh_histogram_pattern (engine, GH_PATTERN_NOISE, width, height, channels, &noise, &error)
              == GH_OK,
          "%s", error.message);
      const size_t bytes = (size_t) width * height * channels;
      uint8_t *made = malloc (bytes);
      for (size_t i = 0; i < bytes; i++)
        made[i] = (uint8_t) (gh_pattern_word (i / 4) >> (8 * (i % 4)));
      uint64_t expected[4 * GH_BINS] = { 0 };
      gh_reference_count (made, width, height, channels, (size_t) width * channels, expected);
      test_counts_equal (noise.counts, expected, channels, "noise pattern");
      gh_channel_stats stats;
      gh_stats_compute (noise.counts, GH_BINS, &stats);
      CHECK (stats.bins_used == 256 && stats.busiest_share < 0.01, "noise is not uniform: %d bins",
             stats.bins_used);
      free (made);
      gh_result_clear (&flat);
      gh_result_clear (&noise);
      gh_engine_free (engine);
    }
}

static void
test_statistics (void)
{
  uint64_t counts[GH_BINS] = { 0 };
  gh_channel_stats s;
  gh_stats_compute (counts, GH_BINS, &s);
  CHECK (s.pixels == 0 && s.min == -1 && s.max == -1 && s.bins_used == 0, "empty histogram");

  /* Statistics of random samples, computed from the samples themselves. */
  const int n = 10000;
  double sum = 0, squares = 0;
  int lo = 255, hi = 0;
  int *samples = malloc (n * sizeof *samples);
  for (int i = 0; i < n; i++)
    {
      samples[i] = (int) (test_random () % 200) + (int) (test_random () % 50);
      counts[samples[i]]++;
      sum += samples[i];
      lo = samples[i] < lo ? samples[i] : lo;
      hi = samples[i] > hi ? samples[i] : hi;
    }
  const double mean = sum / n;
  for (int i = 0; i < n; i++)
    squares += (samples[i] - mean) * (samples[i] - mean);
  uint64_t busiest = 0;
  int used = 0;
  for (int b = 0; b < GH_BINS; b++)
    {
      busiest = counts[b] > busiest ? counts[b] : busiest;
      used += counts[b] > 0;
    }
  /* The median: the smallest value v with at least half the samples <= v. */
  int median = -1;
  for (int v = 0; v < GH_BINS && median < 0; v++)
    {
      int at_most = 0;
      for (int i = 0; i < n; i++)
        at_most += samples[i] <= v;
      if (2 * at_most >= n)
        median = v;
    }
  gh_stats_compute (counts, GH_BINS, &s);
  CHECK (fabs (s.mean - mean) < 1e-9, "mean %f, expected %f", s.mean, mean);
  CHECK (fabs (s.stddev - sqrt (squares / n)) < 1e-9, "stddev %f", s.stddev);
  CHECK (s.min == lo && s.max == hi, "min %d max %d", s.min, s.max);
  CHECK (s.median == median, "median %d, expected %d", s.median, median);
  CHECK (s.bins_used == used && s.pixels == (uint64_t) n, "bins used %d", s.bins_used);
  CHECK (fabs (s.busiest_share - (double) busiest / n) < 1e-12, "busiest share");
  free (samples);
}

static void
test_csv_and_json (void)
{
  const int width = 40, height = 9, channels = 2;
  uint8_t *pixels = test_image (IMAGE_NOISE, width, height, channels, (size_t) width * channels);
  gh_engine *engine = test_cpu_engine (GH_ALL_METHODS, 3, 0, 0);
  gh_result result;
  gh_error error;
  gh_histogram_buffer (engine, pixels, width, height, channels, (size_t) width * channels, &result,
                       &error);
  const char *names[] = { "gray", "alpha" };

  FILE *csv = tmpfile ();
  CHECK (gh_write_csv (csv, &result, names) == 0, "writing CSV");
  rewind (csv);
  char line[256];
  CHECK (fgets (line, sizeof line, csv) && strcmp (line, "bin,gray,alpha\n") == 0, "header: %s",
         line);
  int rows = 0;
  unsigned long long gray, alpha;
  int bin;
  while (fscanf (csv, "%d,%llu,%llu\n", &bin, &gray, &alpha) == 3)
    {
      CHECK (bin == rows && gray == result.counts[bin] && alpha == result.counts[GH_BINS + bin],
             "CSV row %d", rows);
      rows++;
    }
  CHECK (rows == GH_BINS, "%d CSV rows", rows);
  fclose (csv);

  FILE *json = tmpfile ();
  CHECK (gh_write_json (json, &result, names) == 0, "writing JSON");
  long size = ftell (json);
  rewind (json);
  char *text = calloc ((size_t) size + 1, 1);
  CHECK (fread (text, 1, (size_t) size, json) == (size_t) size, "reading JSON back");
  int depth = 0, balanced = 1;
  for (char *p = text; *p; p++)
    {
      depth += (*p == '{' || *p == '[') - (*p == '}' || *p == ']');
      balanced &= depth >= 0;
    }
  CHECK (balanced && depth == 0, "JSON brackets do not balance");
  CHECK (strstr (text, "\"name\": \"alpha\"") && strstr (text, "\"read_only\": {\"median\""),
         "JSON lacks a channel or a timing");
  CHECK (strstr (text, "\"upload\": null") != NULL, "the CPU has no upload");
  fclose (json);
  free (text);
  gh_result_clear (&result);
  gh_engine_free (engine);
  free (pixels);
}

/* The backend line says, in words, why the GPU was not used. */
static void
test_backend_choice (void)
{
  gh_error error;
  gh_engine *engine = test_cpu_engine (0, 0, 0, 0);
  CHECK (!gh_engine_uses_gpu (engine) && strncmp (gh_engine_backend (engine), "CPU, ", 5) == 0,
         "CPU backend line: %s", gh_engine_backend (engine));
  gh_engine_free (engine);

  static const struct
  {
    const char *fault;
    gh_status status;
    const char *words;
  } cases[] = {
    { "no-driver", GH_ERROR_NO_DRIVER, "no NVIDIA driver" },
    { "old-driver", GH_ERROR_DRIVER_TOO_OLD, "older than the CUDA runtime" },
    { "no-device", GH_ERROR_NO_DEVICE, "no CUDA device" },
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      setenv ("GPUHIST_FAULT", cases[i].fault, 1);
      gh_options options;
      gh_options_init (&options);
      engine = gh_engine_new (&options, &error);
      CHECK (engine && !gh_engine_uses_gpu (engine), "%s: AUTO must fall back", cases[i].fault);
#ifdef GH_TEST_HAVE_CUDA
      CHECK (strstr (gh_engine_backend (engine), cases[i].words) != NULL, "%s: backend line '%s'",
             cases[i].fault, gh_engine_backend (engine));
#else
      CHECK (strstr (gh_engine_backend (engine), "no CUDA support") != NULL, "backend line '%s'",
             gh_engine_backend (engine));
#endif
      gh_engine_free (engine);

      options.backend = GH_BACKEND_CUDA;
      CHECK (gh_engine_new (&options, &error) == NULL, "%s: CUDA backend opened", cases[i].fault);
#ifdef GH_TEST_HAVE_CUDA
      CHECK (error.status == cases[i].status, "%s: status %s", cases[i].fault,
             gh_status_name (error.status));
#endif
      unsetenv ("GPUHIST_FAULT");
    }
#ifdef GH_TEST_HAVE_CUDA
  /* The old-driver message carries both versions. */
  setenv ("GPUHIST_FAULT", "old-driver", 1);
  gh_options options;
  gh_options_init (&options);
  options.backend = GH_BACKEND_CUDA;
  gh_engine_new (&options, &error);
  int a, b, c, d;
  CHECK (sscanf (strstr (error.message, "CUDA "), "CUDA %d.%d, older than the CUDA runtime %d.%d",
                 &a, &b, &c, &d)
             == 4,
         "versions missing: %s", error.message);
  unsetenv ("GPUHIST_FAULT");
#endif

  /* The memory budget comes from the environment too. */
  setenv ("GPUHIST_MEMORY_BUDGET", "1K", 1);
  engine = test_cpu_engine (0, 0, 0, 0);
  gh_run *run = gh_run_begin (engine, 100, 100, 4, &error);
  int rows = 0;
  if (run)
    gh_run_strip_buffer (run, &rows);
  CHECK (run && rows == 1, "a 1 KiB budget gives strips of %d rows of 400 bytes", rows);
  gh_run_abort (run);
  gh_engine_free (engine);
  unsetenv ("GPUHIST_MEMORY_BUDGET");
}

/* 16-bit samples at every bin count, every CPU method, against the reference. */
static void
test_wide_bins (void)
{
  for (size_t k = 0; k < sizeof test_bin_counts / sizeof test_bin_counts[0]; k++)
    for (int round = 0; round < 4; round++)
      {
        const int bins = test_bin_counts[k];
        const int channels = 1 + (int) (test_random () % 4);
        const int width = 1 + (int) (test_random () % 300),
                  height = 1 + (int) (test_random () % 30);
        const size_t stride = ((size_t) width * channels + (size_t) (test_random () % 3)) * 2;
        const image_kind kind = (image_kind) (round % N_IMAGE_KINDS);
        uint16_t *pixels = test_image16 (kind, width, height, channels, stride);
        uint64_t *expected = calloc ((size_t) channels * bins, sizeof *expected);
        gh_reference_count16 (pixels, width, height, channels, stride, bins, expected);
        gh_options options;
        gh_options_init (&options);
        options.backend = GH_BACKEND_CPU;
        options.methods = GH_ALL_METHODS;
        options.repetitions = 1;
        options.bins = bins;
        options.memory_budget = round % 2 ? 0 : 2 * stride * 3;
        gh_error error;
        gh_engine *engine = gh_engine_new (&options, &error);
        gh_result result;
        gh_status status = gh_histogram_buffer16 (engine, pixels, width, height, channels, stride,
                                                  &result, &error);
        char what[128];
        snprintf (what, sizeof what, "16-bit %s %dx%d, %d ch, %d bins", image_kind_names[kind],
                  width, height, channels, bins);
        CHECK (status == GH_OK, "%s: %s", what, error.message);
        if (status == GH_OK)
          {
            CHECK (result.bins == bins && result.bytes == (uint64_t) width * height * channels * 2,
                   "%s: %d bins, %" PRIu64 " bytes", what, result.bins, result.bytes);
            test_counts_equal_bins (result.counts, expected, channels, bins, what);
          }
        gh_result_clear (&result);
        gh_engine_free (engine);
        free (expected);
        free (pixels);
      }

  /* Bin counts that are not powers of two from 256 to 65536 are refused; so are 8-bit samples in
   * more than 256 bins, which have only 256 levels to count. */
  gh_options options;
  gh_options_init (&options);
  options.backend = GH_BACKEND_CPU;
  gh_error error;
  static const int bad_bins[] = { 100, 128, 1000, 131072, -1 };
  for (size_t i = 0; i < sizeof bad_bins / sizeof bad_bins[0]; i++)
    {
      options.bins = bad_bins[i];
      CHECK (gh_engine_new (&options, &error) == NULL && error.status == GH_ERROR_INVALID_ARGUMENT,
             "%d bins accepted", bad_bins[i]);
    }
  options.bins = 4096;
  gh_engine *engine = gh_engine_new (&options, &error);
  gh_run *run = gh_run_begin (engine, 4, 4, 1, &error);
  int rows;
  uint8_t *strip = gh_run_strip_buffer (run, &rows);
  memset (strip, 9, 16);
  gh_run_submit_strip (run, 4, &error);
  gh_result result;
  CHECK (gh_run_finish (run, &result, &error) == GH_OK && result.bins == GH_BINS
             && result.counts[9] == 16,
         "8-bit samples must count into 256 bins");
  gh_result_clear (&result);
  CHECK (gh_engine_set_bins (engine, 3000, GH_STRATEGY_AUTO, &error) == GH_ERROR_INVALID_ARGUMENT,
         "3000 bins accepted");
  gh_engine_free (engine);
}

int
main (void)
{
  test_init ();
  test_methods_against_reference ();
  test_streaming ();
  test_misuse ();
  test_patterns ();
  test_statistics ();
  test_csv_and_json ();
  test_backend_choice ();
  test_wide_bins ();
  return test_finish ("test-engine-cpu");
}
