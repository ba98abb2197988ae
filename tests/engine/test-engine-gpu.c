/* gpu-histogram: every CUDA method and layout, bit for bit against the reference count, on
 * random images; device-made patterns; injected faults mid-run and the fall-back to the CPU.
 * Exits 77 (skipped) where there is no usable GPU. */
#include "backend.h"
#include "test-util.h"

static gh_engine *
gpu_engine (unsigned methods, int repetitions, size_t budget, gh_layout layout, gh_error *error)
{
  gh_options options;
  gh_options_init (&options);
  options.backend = GH_BACKEND_CUDA;
  options.methods = methods;
  options.repetitions = repetitions;
  options.memory_budget = budget;
  options.layout = layout;
  return gh_engine_new (&options, error);
}

static const gh_layout layouts[]
    = { GH_LAYOUT_AUTO, GH_LAYOUT_LANE_COLUMNS, GH_LAYOUT_PACKED, GH_LAYOUT_SINGLE };
static const char *const layout_names[] = { "auto", "lane columns", "packed", "single" };

/* GPUHIST_TEST_ROUNDS shortens the run, for compute-sanitizer's slow replays. */
static int
test_rounds (int normal)
{
  const char *rounds = getenv ("GPUHIST_TEST_ROUNDS");
  return rounds && atoi (rounds) > 0 ? atoi (rounds) : normal;
}

static void
test_methods_and_layouts (void)
{
  const int rounds = test_rounds (40);
  for (int round = 0; round < rounds; round++)
    {
      const int channels = 1 + round % 4;
      /* Sizes around the kernels' units (16, 32 and 48 bytes) and larger ones. */
      const int width = round < 4    ? 1
                        : round < 12 ? 1 + (int) (test_random () % 67)
                                     : 1 + (int) (test_random () % 2500);
      const int height = round < 4 ? 1 : 1 + (int) (test_random () % (rounds < 40 ? 20 : 300));
      const size_t stride = (size_t) width * channels + (size_t) (test_random () % 4) * 5;
      const image_kind kind = (image_kind) (round % N_IMAGE_KINDS);
      uint8_t *pixels = test_image (kind, width, height, channels, stride);
      uint64_t *expected = calloc ((size_t) channels * GH_BINS, sizeof *expected);
      gh_reference_count (pixels, width, height, channels, stride, expected);
      const size_t budget = round % 3 == 0 ? 2 * (size_t) width * channels * 7 : 0;

      for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++)
        for (int m = -1; m < GH_N_METHODS; m++)
          {
            if (m == GH_METHOD_READ_ONLY || (l > 0 && m >= 0 && m != GH_METHOD_FASTEST))
              continue;
            gh_error error;
            const unsigned methods = m < 0 ? GH_ALL_METHODS : GH_METHOD_BIT (m);
            gh_engine *engine = gpu_engine (methods, m < 0 ? 2 : 1, budget, layouts[l], &error);
            CHECK (engine != NULL, "engine: %s", error.message);
            if (!engine)
              continue;
            gh_result result;
            gh_status status = gh_histogram_buffer (engine, pixels, width, height, channels, stride,
                                                    &result, &error);
            char what[200];
            snprintf (what, sizeof what, "%s %dx%d, %d ch, stride %zu, budget %zu, %s, layout %s",
                      image_kind_names[kind], width, height, channels, stride, budget,
                      m < 0 ? "all methods" : gh_method_name ((gh_method) m), layout_names[l]);
            CHECK (status == GH_OK, "%s: %s", what, error.message);
            CHECK (result.used_gpu, "%s: ran on the CPU: %s", what, result.backend);
            if (status == GH_OK)
              test_counts_equal (result.counts, expected, channels, what);
            if (status == GH_OK && m < 0)
              CHECK (result.timing[GH_TIME_UPLOAD].runs == 1
                         && result.timing[GH_TIME_READ_ONLY].runs == 2,
                     "%s: timings missing", what);
            gh_result_clear (&result);
            gh_engine_free (engine);
          }
      free (expected);
      free (pixels);
    }
}

/* FASTEST's blocks walk a strip in rounds of the whole grid (a grid-stride loop of 64 bytes a
 * thread a step, 48 for 3 channels): the loop takes the steps that lie whole in the strip,
 * unchecked, then each block counts its partial step, if any, with checks; then the tail bytes.
 * The other tests' images are smaller than one round.  Here: strips of 1 to 3 whole rounds (no
 * partial step), one unit more, one chunk of 32 units a block more, one unit less than a round, a
 * vector either side of two rounds, half a round alone, and random rests and tails, in every
 * layout.  The round's size comes
 * from the plan FASTEST reports ("lane columns, 4 ch, 132 x 1024 threads, ..."). */
static size_t
fastest_round_bytes (int channels, gh_layout layout)
{
  gh_error error;
  gh_engine *engine = gpu_engine (0, 0, 0, layout, &error);
  uint8_t pixels[4 * 16] = { 0 };
  gh_result result;
  int blocks = 0, threads = 0;
  if (engine
      && gh_histogram_buffer (engine, pixels, 16, 1, channels, 16 * channels, &result, &error)
             == GH_OK)
    {
      const char *grid = strstr (result.layout, "ch, ");
      if (!grid || sscanf (grid, "ch, %d x %d threads", &blocks, &threads) != 2)
        blocks = threads = 0;
      gh_result_clear (&result);
    }
  gh_engine_free (engine);
  CHECK (blocks > 0 && threads > 0, "no grid in FASTEST's plan for %d channels", channels);
  return (size_t) blocks * threads * (channels == 3 ? 48 : 64);
}

/* One FASTEST run over the first `bytes` of a one-row image, against the reference. */
static void
check_fastest_prefix (const uint8_t *pixels, size_t bytes, int channels, size_t l, size_t round,
                      const char *kind)
{
  const int width = (int) (bytes / channels);
  uint64_t *expected = calloc ((size_t) channels * GH_BINS, sizeof *expected);
  gh_reference_count (pixels, width, 1, channels, (size_t) width * channels, expected);
  gh_error error;
  gh_engine *engine = gpu_engine (GH_METHOD_BIT (GH_METHOD_FASTEST), 1, 0, layouts[l], &error);
  gh_result result;
  char what[160];
  snprintf (what, sizeof what, "%s, %zu bytes (%.3f rounds of %zu), %d ch, layout %s", kind,
            (size_t) width * channels, (double) width * channels / round, round, channels,
            layout_names[l]);
  gh_status status = gh_histogram_buffer (engine, pixels, width, 1, channels,
                                          (size_t) width * channels, &result, &error);
  CHECK (status == GH_OK && result.used_gpu, "%s: %s", what,
         status == GH_OK ? result.backend : error.message);
  if (status == GH_OK)
    test_counts_equal (result.counts, expected, channels, what);
  gh_result_clear (&result);
  gh_engine_free (engine);
  free (expected);
}

static void
test_fastest_rounds (void)
{
  /* Under compute-sanitizer: 3 and 4 channels, the automatic layout, the first three sizes. */
  const int quick = getenv ("GPUHIST_TEST_ROUNDS") != NULL;
  const size_t n_layouts = quick ? 1 : sizeof layouts / sizeof layouts[0];
  for (int channels = quick ? 3 : 1; channels <= 4; channels++)
    {
      size_t rounds[sizeof layouts / sizeof layouts[0]], largest = 0;
      for (size_t l = 0; l < n_layouts; l++)
        {
          rounds[l] = fastest_round_bytes (channels, layouts[l]);
          largest = rounds[l] > largest ? rounds[l] : largest;
        }
      const image_kind kind = channels % 2 ? IMAGE_NOISE : IMAGE_FEW_LEVELS;
      const int width = (int) (3 * largest / channels + 1);
      uint8_t *pixels = test_image (kind, width, 1, channels, (size_t) width * channels);
      for (size_t l = 0; largest && l < n_layouts; l++)
        {
          const size_t round = rounds[l];
          const size_t unit = channels == 3 ? 48 : 16;
          /* A round holds 128 chunks a block (32 for 3 channels). */
          const size_t chunk_a_block = round / (channels == 3 ? 32 : 128);
          const size_t sizes[] = { 2 * round + unit,
                                   3 * round - unit,
                                   round + (size_t) (test_random () % round),
                                   round,
                                   3 * round,
                                   2 * round - 16,
                                   2 * round + 16,
                                   2 * round + unit + channels,
                                   round + chunk_a_block,
                                   round + chunk_a_block + unit,
                                   round + chunk_a_block - unit,
                                   round / 2 + unit,
                                   2 * round + (size_t) (test_random () % round) };
          for (size_t t = 0; t < (quick ? 3 : sizeof sizes / sizeof sizes[0]); t++)
            check_fastest_prefix (pixels, sizes[t], channels, l, round, image_kind_names[kind]);
        }
      free (pixels);
    }
}

/* The streaming path with two staging buffers in flight, as the plug-in uses it. */
static void
test_streamed_overlap (void)
{
  const int width = 3001, height = 700, channels = 4;
  const size_t row = (size_t) width * channels;
  uint8_t *pixels = test_image (IMAGE_GRADIENT, width, height, channels, row);
  uint64_t expected[4 * GH_BINS] = { 0 };
  gh_reference_count (pixels, width, height, channels, row, expected);
  gh_error error;
  gh_engine *engine = gpu_engine (0, 0, 2 * row * 33, GH_LAYOUT_AUTO, &error);
  gh_run *run = gh_run_begin (engine, width, height, channels, &error);
  uint8_t *previous = NULL;
  int alternated = 1;
  for (int y = 0; run && y < height;)
    {
      int rows;
      uint8_t *strip = gh_run_strip_buffer (run, &rows);
      alternated &= strip != previous;
      previous = strip;
      memcpy (strip, pixels + (size_t) y * row, (size_t) rows * row);
      CHECK (gh_run_submit_strip (run, rows, &error) == GH_OK, "%s", error.message);
      y += rows;
    }
  CHECK (alternated, "the staging buffers do not alternate");
  gh_result result;
  CHECK (gh_run_finish (run, &result, &error) == GH_OK, "%s", error.message);
  test_counts_equal (result.counts, expected, channels, "streamed on the GPU");
  gh_result_clear (&result);
  gh_engine_free (engine);
  free (pixels);
}

static void
test_device_patterns (void)
{
  const int width = 1999, height = 1003;
  for (int channels = 1; channels <= 4; channels++)
    {
      gh_error error;
      gh_engine *engine = gpu_engine (GH_ALL_METHODS, 1, 2 * (size_t) width * channels * 100,
                                      GH_LAYOUT_AUTO, &error);
      gh_result noise, flat;
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
      test_counts_equal (noise.counts, expected, channels, "device noise");
      CHECK (noise.timing[GH_TIME_UPLOAD].runs == 0 || noise.timing[GH_TIME_UPLOAD].median_ms == 0,
             "a device-made pattern has no upload");
      CHECK (gh_histogram_pattern (engine, GH_PATTERN_FLAT, width, height, channels, &flat, &error)
                 == GH_OK,
             "%s", error.message);
      for (int c = 0; c < channels; c++)
        CHECK (flat.counts[c * GH_BINS + GH_FLAT_VALUE] == (uint64_t) width * height, "flat");
      free (made);
      gh_result_clear (&noise);
      gh_result_clear (&flat);
      gh_engine_free (engine);
    }
}

/* A fault mid-run fails the run with a message; gh_histogram_buffer then finishes on the CPU
 * with exact counts and says why. */
static void
test_faults (void)
{
  static const char *const faults[] = { "kernel", "copy", "oom" };
  const int width = 1000, height = 300, channels = 3;
  const size_t row = (size_t) width * channels;
  uint8_t *pixels = test_image (IMAGE_NOISE, width, height, channels, row);
  uint64_t expected[3 * GH_BINS] = { 0 };
  gh_reference_count (pixels, width, height, channels, row, expected);
  for (size_t f = 0; f < sizeof faults / sizeof faults[0]; f++)
    for (int timed = 0; timed < 2; timed++)
      {
        setenv ("GPUHIST_FAULT", faults[f], 1);
        setenv ("GPUHIST_FAULT_AFTER", "2", 1);
        gh_error error;
        gh_engine *engine
            = gpu_engine (timed ? GH_ALL_METHODS : 0, timed, 2 * row * 50, GH_LAYOUT_AUTO, &error);
        CHECK (engine && gh_engine_uses_gpu (engine), "%s: no GPU engine", faults[f]);
        gh_result result;
        gh_status status
            = gh_histogram_buffer (engine, pixels, width, height, channels, row, &result, &error);
        CHECK (status == GH_OK, "%s: %s", faults[f], error.message);
        CHECK (!gh_engine_uses_gpu (engine) && !result.used_gpu, "%s: still on the GPU", faults[f]);
        CHECK (strstr (result.backend, "the GPU failed") != NULL, "%s: backend line '%s'",
               faults[f], result.backend);
        if (status == GH_OK)
          test_counts_equal (result.counts, expected, channels, faults[f]);
        gh_result_clear (&result);
        gh_engine_free (engine);

        /* A device-made pattern falls back the same way, with the same counts; it uploads
         * nothing and allocates no strip buffer, so neither a failing copy nor the allocation
         * that oom fails on strip 2 (GPUHIST_FAULT_AFTER > 1) touches it: it stays on the GPU. */
        engine
            = gpu_engine (timed ? GH_ALL_METHODS : 0, timed, 2 * row * 50, GH_LAYOUT_AUTO, &error);
        status = gh_histogram_pattern (engine, GH_PATTERN_FLAT, width, height, channels, &result,
                                       &error);
        CHECK (status == GH_OK
                   && result.used_gpu
                          == (strcmp (faults[f], "copy") == 0 || strcmp (faults[f], "oom") == 0),
               "%s, pattern: %s", faults[f], status == GH_OK ? result.backend : error.message);
        if (status == GH_OK)
          CHECK (result.counts[GH_FLAT_VALUE] == (uint64_t) width * height, "%s, pattern counts",
                 faults[f]);
        gh_result_clear (&result);
        gh_engine_free (engine);
        unsetenv ("GPUHIST_FAULT");
        unsetenv ("GPUHIST_FAULT_AFTER");
      }
  free (pixels);
}

static void
test_forced_layout_errors (void)
{
  /* Eight channels' worth of lane columns cannot fit any GPU today; four can on Hopper but not on
   * a T4.  A forced layout that does not fit is a clear error before any launch. */
  gh_error error;
  gh_engine *engine
      = gpu_engine (GH_METHOD_BIT (GH_METHOD_FASTEST), 1, 0, GH_LAYOUT_LANE_COLUMNS, &error);
  gh_run *run = gh_run_begin (engine, 64, 64, 4, &error);
  if (run)
    gh_run_abort (run);
  else
    CHECK (error.status == GH_ERROR_UNSUPPORTED && strstr (error.message, "KiB"),
           "lane-column layout refused unclearly: %s", error.message);
  gh_engine_free (engine);
}

/* Forcing a shared-memory strategy (shared or narrow) on four channels of `bins` 16-bit bins is
 * refused before any launch, with a message that names the strategy and the sizes. */
static void
check_refused (gh_strategy strategy, int bins, const char *says, const char *says_too)
{
  gh_options options;
  gh_options_init (&options);
  options.backend = GH_BACKEND_CUDA;
  options.bins = bins;
  options.strategy = strategy;
  gh_error error;
  gh_engine *engine = gh_engine_new (&options, &error);
  gh_run *run = gh_run_begin_samples (engine, 8, 8, 4, 2, &error);
  CHECK (run == NULL && error.status == GH_ERROR_UNSUPPORTED && strstr (error.message, says)
             && strstr (error.message, says_too),
         "forced %s at %d bins: %s", gh_strategy_name (strategy), bins,
         run ? "accepted" : error.message);
  gh_run_abort (run);
  gh_engine_free (engine);
}

/* The third band: every strategy, forced, at every bin count, on 16-bit samples. */
static void
test_wide_strategies (void)
{
  static const gh_strategy strategies[]
      = { GH_STRATEGY_AUTO, GH_STRATEGY_SHARED, GH_STRATEGY_NARROW, GH_STRATEGY_SLICED,
          GH_STRATEGY_GLOBAL_COPIES };
  /* Under compute-sanitizer (GPUHIST_TEST_ROUNDS set): one smaller image a bin count. */
  const int quick = getenv ("GPUHIST_TEST_ROUNDS") != NULL;
  const int rounds = quick ? 1 : 2;
  for (size_t k = 0; k < sizeof test_bin_counts / sizeof test_bin_counts[0]; k++)
    for (int round = 0; round < rounds; round++)
      {
        const int bins = test_bin_counts[k];
        const int channels = 1 + (int) ((k + round) % 4);
        const int width = 1 + (int) (test_random () % (quick ? 300 : 1500));
        const int height = 1 + (int) (test_random () % (quick ? 20 : 200));
        const size_t stride = ((size_t) width * channels + (size_t) (test_random () % 2)) * 2;
        const image_kind kind = (image_kind) ((k + round) % N_IMAGE_KINDS);
        uint16_t *pixels = test_image16 (kind, width, height, channels, stride);
        uint64_t *expected = calloc ((size_t) channels * bins, sizeof *expected);
        gh_reference_count16 (pixels, width, height, channels, stride, bins, expected);
        for (size_t s = 0; s < sizeof strategies / sizeof strategies[0]; s++)
          {
            gh_options options;
            gh_options_init (&options);
            options.backend = GH_BACKEND_CUDA;
            options.methods = s == 0 ? GH_ALL_METHODS : GH_METHOD_BIT (GH_METHOD_FASTEST);
            options.repetitions = 1;
            options.bins = bins;
            options.strategy = strategies[s];
            options.memory_budget = round ? 2 * stride * 17 : 0;
            gh_error error;
            gh_engine *engine = gh_engine_new (&options, &error);
            gh_result result;
            char what[160];
            snprintf (what, sizeof what, "16-bit %s %dx%d, %d ch, %d bins, strategy %s",
                      image_kind_names[kind], width, height, channels, bins,
                      gh_strategy_name (strategies[s]));
            gh_status status = gh_histogram_buffer16 (engine, pixels, width, height, channels,
                                                      stride, &result, &error);
            if (status == GH_ERROR_UNSUPPORTED)
              {
                /* Only a table that cannot fit may be refused, and the message says so. */
                CHECK ((strategies[s] == GH_STRATEGY_SHARED || strategies[s] == GH_STRATEGY_NARROW)
                           && strstr (error.message, "KiB of shared memory") != NULL,
                       "%s: refused: %s", what, error.message);
              }
            else
              {
                CHECK (status == GH_OK && result.used_gpu, "%s: %s", what,
                       status == GH_OK ? result.backend : error.message);
                if (status == GH_OK)
                  test_counts_equal_bins (result.counts, expected, channels, bins, what);
              }
            gh_result_clear (&result);
            gh_engine_free (engine);
          }
        free (expected);
        free (pixels);
      }

  /* 65536 bins of four channels fit no GPU's shared memory as 32-bit (1 MiB) or 16-bit counters
   * (512 KiB): forcing the shared or the narrow strategy is a clear error before any launch. */
  check_refused (GH_STRATEGY_SHARED, 65536, "the shared strategy needs 1024 KiB of shared memory",
                 "4 channels of 65536 bins");
  check_refused (GH_STRATEGY_NARROW, 65536, "the narrow strategy needs 512 KiB of shared memory",
                 "4 channels of 65536 bins");
}

/* SLICED on GPUs with less shared memory than the H200 (GPUHIST_TEST_SHARED_KIB lowers the limit
 * the engine plans with): more slices a channel, slices that do not divide the bins evenly, and
 * strategies that cannot fit refused clearly. */
static void
test_sliced_on_smaller_gpus (void)
{
  static const struct
  {
    const char *kib;
    int bins, parts; /* the slices a channel the plan must make */
  } cases[] = {
    { "100", 65536, 3 },                     /* 21846 + 21846 + 21844 */
    { "64", 65536, 4 },                      /* a T4 */
    { "48", 65536, 6 },                      /* 10923 x 5 + 10921 */
    { "48", 16384, 2 },  { "5", 65536, 52 }, /* 1261 x 51 + 1225 */
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
    {
      setenv ("GPUHIST_TEST_SHARED_KIB", cases[k].kib, 1);
      const int channels = 1 + (int) (k % 4);
      const int width = 333 + (int) k, height = 41;
      const size_t stride = (size_t) width * channels * 2;
      const image_kind kind = (image_kind) (k % N_IMAGE_KINDS);
      uint16_t *pixels = test_image16 (kind, width, height, channels, stride);
      uint64_t *expected = calloc ((size_t) channels * cases[k].bins, sizeof *expected);
      gh_reference_count16 (pixels, width, height, channels, stride, cases[k].bins, expected);
      gh_options options;
      gh_options_init (&options);
      options.backend = GH_BACKEND_CUDA;
      options.methods = GH_ALL_METHODS;
      options.repetitions = 1;
      options.bins = cases[k].bins;
      /* three strips, so that a slice's counts add across launches */
      options.memory_budget = 2 * stride * 15;
      gh_error error;
      gh_engine *engine = gh_engine_new (&options, &error);
      gh_result result;
      char what[160], parts[32];
      snprintf (what, sizeof what, "sliced under %s KiB, %s, %d ch, %d bins", cases[k].kib,
                image_kind_names[kind], channels, cases[k].bins);
      snprintf (parts, sizeof parts, " %d slices of ", cases[k].parts);
      gh_status status = gh_histogram_buffer16 (engine, pixels, width, height, channels, stride,
                                                &result, &error);
      CHECK (status == GH_OK && result.used_gpu, "%s: %s", what,
             status == GH_OK ? result.backend : error.message);
      if (status == GH_OK)
        {
          /* AUTO picks SLICED here only where one channel's table does not fit a block. */
          CHECK (strstr (result.layout, "sliced") && strstr (result.layout, parts),
                 "%s: planned %s", what, result.layout);
          test_counts_equal_bins (result.counts, expected, channels, cases[k].bins, what);
        }
      gh_result_clear (&result);
      gh_engine_free (engine);
      free (expected);
      free (pixels);
    }

  /* Under a T4's 64 KiB, 4096 bins of four channels still fit as 32-bit counters (64 KiB), but
   * 8192 do not, nor 16384 as 16-bit counters: forcing SHARED or NARROW is refused with the
   * sizes. */
  setenv ("GPUHIST_TEST_SHARED_KIB", "64", 1);
  check_refused (GH_STRATEGY_SHARED, 8192, "the shared strategy needs 128 KiB of shared memory",
                 "allows 64 KiB");
  check_refused (GH_STRATEGY_NARROW, 16384, "the narrow strategy needs 128 KiB of shared memory",
                 "allows 64 KiB");
  unsetenv ("GPUHIST_TEST_SHARED_KIB");
}

/* The plug-in's resident process runs again and again on one engine, and releases the GPU when
 * idle (plugin/run/engine-keeper.c): the pinned buffers a run leaves are the next run's, also after
 * a small run in between, 8-bit and 16-bit planar runs alternate on them exactly, and after
 * gh_release_gpu a new engine counts. */
static void
test_kept_engine_and_release (void)
{
  const int width = 1999, height = 300, channels = 3, bins = 65536;
  const size_t row = (size_t) width * channels;
  uint8_t *pixels = test_image (IMAGE_NOISE, width, height, channels, row);
  uint16_t *pixels16 = test_image16 (IMAGE_NOISE, width, height, channels, row * 2);
  uint64_t expected[3 * GH_BINS] = { 0 };
  uint64_t *expected16 = calloc ((size_t) channels * bins, sizeof *expected16);
  gh_reference_count (pixels, width, height, channels, row, expected);
  gh_reference_count16 (pixels16, width, height, channels, row * 2, bins, expected16);
  gh_error error;
  gh_engine *engine = gpu_engine (0, 0, 2 * row * 2 * 40, GH_LAYOUT_AUTO, &error);
  CHECK (engine != NULL, "engine: %s", error.message);
  uint8_t *first_strip = NULL;
  for (int pass = 0; engine && pass < 3; pass++)
    {
      gh_result result;
      gh_run *run = gh_run_begin (engine, width, height, channels, &error);
      int rows;
      uint8_t *strip = run ? gh_run_strip_buffer (run, &rows) : NULL;
      if (pass == 0)
        first_strip = strip;
      else
        CHECK (strip == first_strip, "pass %d: the kept staging buffer was not reused", pass);
      gh_run_abort (run);
      CHECK (gh_histogram_buffer (engine, pixels, width, height, channels, row, &result, &error)
                 == GH_OK,
             "pass %d, 8-bit: %s", pass, error.message);
      test_counts_equal (result.counts, expected, channels, "kept engine, 8-bit");
      gh_result_clear (&result);
      CHECK (gh_engine_set_bins (engine, bins, GH_STRATEGY_AUTO, &error) == GH_OK, "%s",
             error.message);
      CHECK (gh_histogram_buffer16 (engine, pixels16, width, height, channels, row * 2, &result,
                                    &error)
                 == GH_OK,
             "pass %d, 16-bit: %s", pass, error.message);
      test_counts_equal_bins (result.counts, expected16, channels, bins, "kept engine, 16-bit");
      gh_result_clear (&result);
      CHECK (gh_engine_set_bins (engine, GH_BINS, GH_STRATEGY_AUTO, &error) == GH_OK, "%s",
             error.message);
      /* A small run between large ones must not leave only small spares behind. */
      uint64_t tiny_expected[3 * GH_BINS] = { 0 };
      gh_reference_count (pixels, 7, 5, channels, row, tiny_expected);
      CHECK (gh_histogram_buffer (engine, pixels, 7, 5, channels, row, &result, &error) == GH_OK,
             "pass %d, tiny: %s", pass, error.message);
      test_counts_equal (result.counts, tiny_expected, channels, "kept engine, tiny");
      gh_result_clear (&result);
    }
  gh_engine_free (engine);
  gh_release_gpu ();
  gh_release_gpu (); /* nothing left to release: harmless */
  engine = gpu_engine (0, 0, 0, GH_LAYOUT_AUTO, &error);
  CHECK (engine != NULL, "an engine after gh_release_gpu: %s", error.message);
  if (engine)
    {
      gh_result result;
      CHECK (gh_histogram_buffer (engine, pixels, width, height, channels, row, &result, &error)
                 == GH_OK,
             "after gh_release_gpu: %s", error.message);
      test_counts_equal (result.counts, expected, channels, "after gh_release_gpu");
      gh_result_clear (&result);
      gh_engine_free (engine);
    }
  free (expected16);
  free (pixels16);
  free (pixels);
}

/* Weighted and derived runs (gh_run_spec): every CUDA method against the engine's reference
 * (gh_reference_count_spec), on random coverage and alpha. */

static void
weighted_image_new (weighted_image *im, const gh_run_spec *spec, int bins, image_kind kind)
{
  im->spec = *spec;
  im->bins = spec->bytes_per_sample == 1 ? GH_BINS : bins;
  const int bytes = spec->bytes_per_sample, channels = spec->channels;
  im->stride = ((size_t) spec->width * channels + (size_t) (test_random () % 3)) * bytes;
  im->pixels
      = bytes == 1
            ? (uint8_t *) test_image (kind, spec->width, spec->height, channels, im->stride)
            : (uint8_t *) test_image16 (kind, spec->width, spec->height, channels, im->stride);
  const unsigned full = bytes == 1 ? 255 : 65535;
  const unsigned coverage_full = spec->coverage_bytes == 2 ? 65535 : 255;
  im->coverage_stride = (size_t) spec->width * 2 + 2;
  im->coverage = calloc (im->coverage_stride * (size_t) spec->height, 1);
  for (int y = 0; y < spec->height; y++)
    for (int x = 0; x < spec->width; x++)
      {
        uint8_t *row = (uint8_t *) im->pixels + (size_t) y * im->stride;
        const size_t alpha = (size_t) x * channels + channels - 1;
        if (spec->alpha_weighted && bytes == 1)
          row[alpha] = (uint8_t) random_weight (full);
        else if (spec->alpha_weighted)
          ((uint16_t *) row)[alpha] = (uint16_t) random_weight (full);
        uint8_t *mask = im->coverage + (size_t) y * im->coverage_stride;
        if (spec->coverage_bytes == 1)
          mask[x] = (uint8_t) random_weight (coverage_full);
        else if (spec->coverage_bytes == 2)
          ((uint16_t *) mask)[x] = (uint16_t) random_weight (coverage_full);
      }
}

static void
weighted_image_free (weighted_image *im)
{
  free (im->pixels);
  free (im->coverage);
}

/* Every sum of the result against the reference; 1 when all equal. */
static int
check_weighted (const weighted_image *im, const gh_result *result, const char *what)
{
  const gh_run_spec *s = &im->spec;
  const int out = s->channels + (s->derived ? 2 : 0);
  const int weighted = s->coverage_bytes || s->alpha_weighted;
  const size_t n = (size_t) out * im->bins;
  CHECK (result->channels == out && result->bins == im->bins && result->weighted == weighted,
         "%s: %d channels, %d bins, weighted %d", what, result->channels, result->bins,
         result->weighted);
  if (result->channels != out || result->bins != im->bins
      || !(weighted ? (void *) result->numerators : (void *) result->counts))
    return 0;
  gh_u128 *want = calloc (n, sizeof *want);
  gh_reference_count_spec (s, im->bins, im->pixels, im->stride, im->coverage, im->coverage_stride,
                           want);
  int equal = 1;
  for (size_t i = 0; i < n && equal; i++)
    {
      const gh_u128 got = weighted ? result->numerators[i] : (gh_u128){ 0, result->counts[i] };
      if (got.hi != want[i].hi || got.lo != want[i].lo)
        {
          CHECK (0,
                 "%s: channel %zu bin %zu: %" PRIu64 ":%" PRIu64 " counted, %" PRIu64 ":%" PRIu64
                 " expected",
                 what, i / im->bins, i % im->bins, got.hi, got.lo, want[i].hi, want[i].lo);
          equal = 0;
        }
    }
  free (want);
  return equal;
}

/* Runs the image on a CUDA engine (or AUTO, for the fault tests) and checks it. */
static void
run_weighted (const weighted_image *im, gh_backend backend, unsigned methods, int repetitions,
              size_t budget, gh_strategy strategy, int want_gpu, const char *what)
{
  gh_options options;
  gh_options_init (&options);
  options.backend = backend;
  options.methods = methods;
  options.repetitions = repetitions;
  options.memory_budget = budget;
  options.bins = im->bins;
  options.strategy = strategy;
  gh_error error;
  gh_engine *engine = gh_engine_new (&options, &error);
  CHECK (engine != NULL, "%s: engine: %s", what, error.message);
  if (!engine)
    return;
  gh_result result;
  gh_status status = gh_histogram_spec (engine, &im->spec, im->pixels, im->stride, im->coverage,
                                        im->coverage_stride, &result, &error);
  CHECK (status == GH_OK, "%s: %s", what, error.message);
  if (status == GH_OK)
    {
      CHECK (result.used_gpu == want_gpu, "%s: used_gpu %d (%s)", what, result.used_gpu,
             result.backend);
      check_weighted (im, &result, what);
    }
  gh_result_clear (&result);
  gh_engine_free (engine);
}

/* A random valid spec: 1 to 4 channels of 1 or 2 bytes, coverage 0, 1 or 2 bytes, alpha
 * weighting where there is an alpha, derived channels where there are colours, never plain. */
static gh_run_spec
random_spec (int width, int height)
{
  gh_run_spec spec;
  for (;;)
    {
      const int channels = 1 + (int) (test_random () % 4);
      gh_run_spec_init (&spec, width, height, channels, 1 + (int) (test_random () % 4 == 0));
      spec.coverage_bytes = (int) (test_random () % 3);
      spec.alpha_weighted = channels % 2 == 0 && test_random () % 2;
      spec.derived = channels >= 3 && test_random () % 2;
      spec.binning
          = spec.bytes_per_sample == 2 && test_random () % 2 ? GH_BINNING_GIMP : GH_BINNING_SHIFT;
      spec.luminance = spec.derived ? (gh_luminance) (test_random () % 3) : GH_LUMINANCE_GIMP2;
      if (spec.coverage_bytes || spec.alpha_weighted || spec.derived
          || spec.binning == GH_BINNING_GIMP)
        return spec;
    }
}

static void
test_weighted_methods (void)
{
  static const unsigned method_sets[]
      = { GH_ALL_METHODS, GH_METHOD_BIT (GH_METHOD_GLOBAL_ATOMICS),
          GH_METHOD_BIT (GH_METHOD_PRIVATIZED), GH_METHOD_BIT (GH_METHOD_FASTEST) };
  const int rounds = test_rounds (40);
  for (int round = 0; round < rounds; round++)
    {
      const int width = round < 4 ? 1 + round : 1 + (int) (test_random () % 1500);
      const int height = round < 4 ? 1 : 1 + (int) (test_random () % (rounds < 40 ? 12 : 200));
      const gh_run_spec spec = random_spec (width, height);
      const int bins = test_bin_counts[test_random () % 3]; /* 256, 1024, 4096 */
      weighted_image im;
      weighted_image_new (&im, &spec, bins, (image_kind) (round % N_IMAGE_KINDS));
      const size_t row = (size_t) width * spec.channels * spec.bytes_per_sample;
      const size_t budget = round % 3 == 0 ? 2 * (row + (size_t) width * 2) * 5 : 0;
      for (size_t k = 0; k < sizeof method_sets / sizeof method_sets[0]; k++)
        {
          char what[256];
          snprintf (what, sizeof what,
                    "weighted %dx%d, %d ch x %d bytes, %d bins%s, coverage %d, alpha %d, "
                    "derived %d (luminance %d), methods 0x%x, budget %zu",
                    width, height, spec.channels, spec.bytes_per_sample, im.bins,
                    spec.binning == GH_BINNING_GIMP ? " GIMP" : "", spec.coverage_bytes,
                    spec.alpha_weighted, spec.derived, (int) spec.luminance, method_sets[k],
                    budget);
          run_weighted (&im, GH_BACKEND_CUDA, method_sets[k], 1, budget, GH_STRATEGY_AUTO, 1, what);
        }
      /* FASTEST untimed: two staging buffers in flight. */
      run_weighted (&im, GH_BACKEND_CUDA, 0, 0, budget, GH_STRATEGY_AUTO, 1, "weighted, untimed");
      weighted_image_free (&im);
    }
}

/* The lane columns flushed after every step (GPUHIST_TEST_FLUSH_EVERY=1), for every 8-bit shape
 * with its widest weights, derived ones under each GIMP's luminance (GIMP 3.0's keeps green's
 * entries in a column a lane beside the tables): what a large strip does at each flush (every
 * 257 steps with an 8-bit plane and alpha, weighted_flush_steps), on a small image. */
static void
test_weighted_flushes (void)
{
  static const int shapes[][5]
      = { /* channels, coverage, alpha, derived, luminance */
          { 1, 2, 0, 0, GH_LUMINANCE_GIMP2 }, { 2, 1, 1, 0, GH_LUMINANCE_GIMP2 },
          { 3, 2, 0, 1, GH_LUMINANCE_GIMP2 }, { 4, 1, 1, 1, GH_LUMINANCE_GIMP2 },
          { 4, 2, 0, 1, GH_LUMINANCE_GIMP2 }, { 4, 0, 1, 1, GH_LUMINANCE_GIMP2 },
          { 4, 1, 1, 1, GH_LUMINANCE_GIMP3 }, { 3, 1, 0, 1, GH_LUMINANCE_GIMP3_LINEAR }
        };
  setenv ("GPUHIST_TEST_FLUSH_EVERY", "1", 1);
  const int quick = getenv ("GPUHIST_TEST_ROUNDS") != NULL;
  for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
    {
      gh_run_spec spec;
      gh_run_spec_init (&spec, quick ? 1001 : 4099, quick ? 40 : 700, shapes[k][0], 1);
      spec.coverage_bytes = shapes[k][1];
      spec.alpha_weighted = shapes[k][2];
      spec.derived = shapes[k][3];
      spec.luminance = (gh_luminance) shapes[k][4];
      weighted_image im;
      weighted_image_new (&im, &spec, GH_BINS, (image_kind) (k % N_IMAGE_KINDS));
      run_weighted (&im, GH_BACKEND_CUDA, GH_METHOD_BIT (GH_METHOD_FASTEST), 1, 0, GH_STRATEGY_AUTO,
                    1, "flushed every step");
      weighted_image_free (&im);
    }
  unsetenv ("GPUHIST_TEST_FLUSH_EVERY");
}

/* Value and Luminance on all 2^24 RGB triples at 256 bins (with random coverage, so that a
 * pixel moved to a wrong bin changes a sum), and on random 16-bit RGB at 1024 bins under GIMP's
 * rule, under each GIMP's luminance (the reference's rules are proven against GIMP's arithmetic
 * in test-gimp-rules).  FASTEST's integer luminance estimates (GIMP 2.10's dot products, GIMP
 * 3.0's looked-up entries, gimp_bins.cuh) are proven here against the float rules. */
static void
test_derived_against_gimp (void)
{
  static const char *const rules[] = { "GIMP 2.10", "GIMP 3.0", "GIMP 3.0 linear" };
  for (int rule = GH_LUMINANCE_GIMP2; rule <= GH_LUMINANCE_GIMP3_LINEAR; rule++)
    {
      char what[128];
      gh_run_spec spec;
      gh_run_spec_init (&spec, 4096, 4096, 3, 1);
      spec.derived = 1;
      spec.luminance = (gh_luminance) rule;
      spec.coverage_bytes = 1;
      weighted_image im;
      weighted_image_new (&im, &spec, GH_BINS, IMAGE_FLAT);
      for (uint32_t i = 0; i < (1u << 24); i++)
        {
          uint8_t *p
              = (uint8_t *) im.pixels + (size_t) (i >> 12) * im.stride + (size_t) (i & 4095) * 3;
          p[0] = (uint8_t) i, p[1] = (uint8_t) (i >> 8), p[2] = (uint8_t) (i >> 16);
        }
      snprintf (what, sizeof what, "all 2^24 RGB triples, derived, %s luminance", rules[rule]);
      run_weighted (&im, GH_BACKEND_CUDA, GH_ALL_METHODS, 1, 0, GH_STRATEGY_AUTO, 1, what);
      weighted_image_free (&im);

      gh_run_spec_init (&spec, 1500, 700, 3, 2);
      spec.derived = 1;
      spec.luminance = (gh_luminance) rule;
      spec.binning = GH_BINNING_GIMP;
      spec.coverage_bytes = 2;
      weighted_image_new (&im, &spec, 1024, IMAGE_NOISE);
      snprintf (what, sizeof what, "random 16-bit RGB, 1024 bins, GIMP's rule, derived, %s",
                rules[rule]);
      run_weighted (&im, GH_BACKEND_CUDA, GH_ALL_METHODS, 1, 0, GH_STRATEGY_AUTO, 1, what);
      weighted_image_free (&im);
    }
}

/* A fault mid-run on a weighted run ends on the CPU with the same exact sums. */
static void
test_weighted_faults (void)
{
  static const char *const faults[] = { "kernel", "copy" };
  gh_run_spec spec;
  gh_run_spec_init (&spec, 1000, 300, 4, 1);
  spec.coverage_bytes = 1;
  spec.alpha_weighted = 1;
  spec.derived = 1;
  weighted_image im;
  weighted_image_new (&im, &spec, GH_BINS, IMAGE_NOISE);
  for (size_t f = 0; f < sizeof faults / sizeof faults[0]; f++)
    for (int timed = 0; timed < 2; timed++)
      {
        setenv ("GPUHIST_FAULT", faults[f], 1);
        setenv ("GPUHIST_FAULT_AFTER", "2", 1);
        char what[96];
        snprintf (what, sizeof what, "weighted, %s fault on strip 2, %s", faults[f],
                  timed ? "timed" : "untimed");
        run_weighted (&im, GH_BACKEND_AUTO, timed ? GH_ALL_METHODS : 0, timed, 5 * 1000 * 5 * 2,
                      GH_STRATEGY_AUTO, 0, what);
        unsetenv ("GPUHIST_FAULT");
        unsetenv ("GPUHIST_FAULT_AFTER");
      }
  weighted_image_free (&im);
}

int
main (void)
{
  test_init ();
  gh_error error;
  gh_engine *probe = gpu_engine (0, 0, 0, GH_LAYOUT_AUTO, &error);
  if (!probe)
    {
      printf ("skipped: %s\n", error.message);
      return TEST_SKIP;
    }
  printf ("# %s\n", gh_engine_backend (probe));
  gh_engine_free (probe);

  test_methods_and_layouts ();
  test_fastest_rounds ();
  test_streamed_overlap ();
  test_device_patterns ();
  /* compute-sanitizer counts the injected faults' API errors as errors: it runs without them. */
  if (!getenv ("GPUHIST_TEST_NO_FAULTS"))
    test_faults ();
  test_forced_layout_errors ();
  test_wide_strategies ();
  test_sliced_on_smaller_gpus ();
  test_kept_engine_and_release ();
  test_weighted_methods ();
  test_weighted_flushes ();
  /* 2^24 pixels: too long under compute-sanitizer's replays. */
  if (!getenv ("GPUHIST_TEST_ROUNDS"))
    test_derived_against_gimp ();
  if (!getenv ("GPUHIST_TEST_NO_FAULTS"))
    test_weighted_faults ();
  return test_finish ("test-engine-gpu");
}
