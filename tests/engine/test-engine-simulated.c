/* gpu-histogram: the TEST-ONLY simulated GPU (GPUHIST_TEST_SIMULATED_GPU=1, backend.h) on a
 * machine without one: GPUHIST_FAULT=oom|kernel|copy strike on the strip GPUHIST_FAULT_AFTER
 * names, with the CUDA backend's status and message; the run is lost; the fall-back to the CPU
 * (by hand, as the plug-in does, and inside gh_histogram_buffer and gh_histogram_pattern) then
 * counts every pixel exactly once, with a backend line that says the GPU failed and why. */
#include "backend.h"
#include "test-util.h"

static const struct
{
  const char *name;
  gh_status status;
  const char *message; /* what the CUDA backend says for the same fault (cuda_backend.cu) */
} faults[] = {
  { "oom", GH_ERROR_OUT_OF_MEMORY,
    "allocating device memory failed on the GPU: out of memory (cudaErrorMemoryAllocation)" },
  { "kernel", GH_ERROR_GPU_FAILED,
    "launching a kernel failed on the GPU: invalid argument (cudaErrorInvalidValue)" },
  { "copy", GH_ERROR_GPU_FAILED,
    "uploading a strip failed on the GPU: invalid argument (cudaErrorInvalidValue)" },
};
#define N_FAULTS (sizeof faults / sizeof faults[0])

static char cpu_line[64]; /* "CPU, 2 threads" */

static void
set_fault (const char *fault, const char *after)
{
  if (fault)
    setenv ("GPUHIST_FAULT", fault, 1);
  else
    unsetenv ("GPUHIST_FAULT");
  if (after)
    setenv ("GPUHIST_FAULT_AFTER", after, 1);
  else
    unsetenv ("GPUHIST_FAULT_AFTER");
}

static gh_engine *
engine_new (gh_backend backend, int timed, size_t budget, int bins)
{
  gh_options options;
  gh_options_init (&options);
  options.backend = backend;
  options.methods = timed ? GH_ALL_METHODS : 0;
  options.repetitions = timed ? 2 : 0;
  options.memory_budget = budget;
  options.bins = bins;
  gh_error error = { GH_OK, "" };
  gh_engine *engine = gh_engine_new (&options, &error);
  CHECK (engine != NULL, "engine: %s", error.message);
  return engine;
}

static int
is_simulated (const gh_engine *engine)
{
  char want[GH_MESSAGE_SIZE];
  snprintf (want, sizeof want,
            "simulated GPU for tests (GPUHIST_TEST_SIMULATED_GPU=1; counts on the %s)", cpu_line);
  return gh_engine_uses_gpu (engine) && strcmp (gh_engine_backend (engine), want) == 0;
}

static void
fell_back_line (char *out, size_t size, const char *message)
{
  snprintf (out, size, "%s: the GPU failed (%.400s)", cpu_line, message);
}

/* The simulated device itself: a GPU to the engine, counting exactly; only AUTO and CUDA get it. */
static void
test_device (void)
{
  const int width = 211, height = 67, channels = 4;
  const size_t row = (size_t) width * channels;
  uint8_t *pixels = test_image (IMAGE_NOISE, width, height, channels, row);
  uint64_t expected[4 * GH_BINS] = { 0 };
  gh_reference_count (pixels, width, height, channels, row, expected);
  set_fault (NULL, NULL);

  for (int timed = 0; timed < 2; timed++)
    {
      gh_engine *engine = engine_new (GH_BACKEND_AUTO, timed, 2 * row * 5, 0);
      CHECK (is_simulated (engine), "AUTO: backend line '%s'", gh_engine_backend (engine));
      gh_result result;
      gh_error error;
      gh_status status
          = gh_histogram_buffer (engine, pixels, width, height, channels, row, &result, &error);
      CHECK (status == GH_OK, "simulated GPU: %s", error.message);
      if (status == GH_OK)
        {
          CHECK (result.used_gpu && strcmp (result.backend, gh_engine_backend (engine)) == 0,
                 "result: used_gpu %d, backend '%s'", result.used_gpu, result.backend);
          test_counts_equal (result.counts, expected, channels, "simulated GPU, no fault");
        }
      gh_result_clear (&result);
      gh_engine_free (engine);
    }

  gh_engine *engine = engine_new (GH_BACKEND_CUDA, 0, 0, 0);
  CHECK (engine && is_simulated (engine), "CUDA: the simulated GPU opens");
  gh_engine_free (engine);
  engine = engine_new (GH_BACKEND_CPU, 0, 0, 0);
  CHECK (!gh_engine_uses_gpu (engine) && strcmp (gh_engine_backend (engine), cpu_line) == 0,
         "CPU: backend line '%s'", gh_engine_backend (engine));
  gh_engine_free (engine);
  /* Only "1" turns it on. */
  setenv ("GPUHIST_TEST_SIMULATED_GPU", "0", 1);
  engine = engine_new (GH_BACKEND_AUTO, 0, 0, 0);
  CHECK (strstr (gh_engine_backend (engine), "simulated") == NULL, "=0: backend line '%s'",
         gh_engine_backend (engine));
  gh_engine_free (engine);
  setenv ("GPUHIST_TEST_SIMULATED_GPU", "1", 1);
  free (pixels);
}

/* The streaming API as the plug-in drives it: strip 1 is counted, strip 2 fails with the fault's
 * status and message, the run is aborted; the engine falls back and the whole image is counted
 * again on the CPU, whose strip 2 does not fail. */
static void
test_mid_run_by_hand (void)
{
  const int width = 100, height = 40, channels = 3;
  for (size_t f = 0; f < N_FAULTS; f++)
    for (int timed = 0; timed < 2; timed++)
      for (int bytes = 1; bytes <= 2; bytes++)
        {
          char what[128];
          snprintf (what, sizeof what, "%s on strip 2, %s, %d-bit", faults[f].name,
                    timed ? "timed" : "untimed", 8 * bytes);
          const int bins = bytes == 1 ? GH_BINS : 4096;
          const size_t row = (size_t) width * channels * bytes;
          void *pixels = bytes == 1
                             ? (void *) test_image (IMAGE_NOISE, width, height, channels, row)
                             : (void *) test_image16 (IMAGE_NOISE, width, height, channels, row);
          uint64_t *expected = calloc ((size_t) channels * bins, sizeof *expected);
          if (bytes == 1)
            gh_reference_count (pixels, width, height, channels, row, expected);
          else
            gh_reference_count16 (pixels, width, height, channels, row, bins, expected);

          set_fault (faults[f].name, "2");
          gh_engine *engine = engine_new (GH_BACKEND_AUTO, timed, 2 * 300 * 7, bins);
          CHECK (is_simulated (engine), "%s: backend line '%s'", what, gh_engine_backend (engine));
          gh_error error = { GH_OK, "" };
          gh_status status = GH_OK;
          int strips = 0;
          for (int attempt = 0; attempt < 2; attempt++)
            {
              gh_run *run = gh_run_begin_samples (engine, width, height, channels, bytes, &error);
              CHECK (run != NULL, "%s, attempt %d: begin: %s", what, attempt, error.message);
              if (!run)
                break;
              strips = 0;
              for (int y = 0; y < height;)
                {
                  int rows;
                  uint8_t *strip = gh_run_strip_buffer (run, &rows);
                  memcpy (strip, (uint8_t *) pixels + (size_t) y * row, (size_t) rows * row);
                  status = gh_run_submit_strip (run, rows, &error);
                  strips++;
                  if (status != GH_OK)
                    break;
                  y += rows;
                }
              if (attempt == 0)
                {
                  /* On the simulated GPU: strip 1 counted, strip 2 lost. */
                  CHECK (strips == 2 && status == faults[f].status
                             && strcmp (error.message, faults[f].message) == 0,
                         "%s: strip %d gave %s '%s'", what, strips, gh_status_name (status),
                         error.message);
                  gh_run_abort (run);
                  CHECK (gh_engine_uses_gpu (engine), "%s: the engine falls back only when told",
                         what);
                  gh_engine_fall_back_to_cpu (engine, error.message);
                  char want[GH_MESSAGE_SIZE];
                  fell_back_line (want, sizeof want, faults[f].message);
                  CHECK (!gh_engine_uses_gpu (engine)
                             && strcmp (gh_engine_backend (engine), want) == 0,
                         "%s: after the fall-back: '%s'", what, gh_engine_backend (engine));
                  continue;
                }
              /* On the CPU the same strips go through, strip 2 included. */
              CHECK (status == GH_OK && strips >= 4, "%s, on the CPU: strip %d: %s", what, strips,
                     error.message);
              if (status != GH_OK)
                {
                  gh_run_abort (run);
                  break;
                }
              gh_result result;
              status = gh_run_finish (run, &result, &error);
              CHECK (status == GH_OK, "%s, on the CPU: finish: %s", what, error.message);
              if (status == GH_OK)
                {
                  char want[GH_MESSAGE_SIZE];
                  fell_back_line (want, sizeof want, faults[f].message);
                  CHECK (!result.used_gpu && strcmp (result.backend, want) == 0
                             && result.bins == bins && result.samples == (uint64_t) width * height,
                         "%s: result used_gpu %d, backend '%s'", what, result.used_gpu,
                         result.backend);
                  test_counts_equal_bins (result.counts, expected, channels, bins, what);
                  gh_result_clear (&result);
                }
            }
          gh_engine_free (engine);
          free (expected);
          free (pixels);
        }
  set_fault (NULL, NULL);
}

/* gh_histogram_buffer falls back by itself.  The fault strikes on the strip named and no other:
 * on the last strip it still loses the run; one past the last it never strikes. */
/* GPUHIST_FAULT_RUN=2: a kept engine's first run (after one given up before its first strip,
 * as the plug-in's keeper does) counts on the GPU, its second fails on strip 2 and falls back. */
static void
test_fault_in_a_later_run (const uint8_t *pixels, int width, int height, int channels,
                           const uint64_t *expected)
{
  const size_t row = (size_t) width * channels;
  for (size_t f = 0; f < N_FAULTS; f++)
    {
      set_fault (faults[f].name, "2");
      setenv ("GPUHIST_FAULT_RUN", "2", 1);
      gh_engine *engine = engine_new (GH_BACKEND_AUTO, 0, 2 * row * 8, 0);
      gh_error error;
      gh_run *pinning = gh_run_begin (engine, width, height, channels, &error);
      CHECK (pinning != NULL, "%s: a run begun and given up: %s", faults[f].name, error.message);
      gh_run_abort (pinning);
      for (int run = 1; run <= 2; run++)
        {
          gh_result result;
          gh_status status
              = gh_histogram_buffer (engine, pixels, width, height, channels, row, &result, &error);
          char want[GH_MESSAGE_SIZE];
          if (run == 2)
            fell_back_line (want, sizeof want, faults[f].message);
          CHECK (status == GH_OK && result.used_gpu == (run == 1)
                     && (run == 1 || strcmp (result.backend, want) == 0),
                 "%s, GPUHIST_FAULT_RUN=2, run %d: used_gpu %d, backend '%s'", faults[f].name, run,
                 status == GH_OK ? result.used_gpu : -1,
                 status == GH_OK ? result.backend : error.message);
          if (status == GH_OK)
            test_counts_equal (result.counts, expected, channels, "a fault in a later run");
          gh_result_clear (&result);
        }
      gh_engine_free (engine);
    }
  unsetenv ("GPUHIST_FAULT_RUN");
  set_fault (NULL, NULL);
}

static void
test_buffer_and_strip_numbers (void)
{
  const int width = 150, height = 50, channels = 2;
  const size_t row = (size_t) width * channels;
  const size_t budget = 2 * row * 8; /* 8 rows a strip: 7 strips */
  const int strips = (height + 7) / 8;
  uint8_t *pixels = test_image (IMAGE_GRADIENT, width, height, channels, row);
  uint64_t expected[2 * GH_BINS] = { 0 };
  gh_reference_count (pixels, width, height, channels, row, expected);

  const int afters[] = { 2, strips, strips + 1 };
  for (size_t f = 0; f < N_FAULTS; f++)
    for (size_t a = 0; a < sizeof afters / sizeof afters[0]; a++)
      {
        const int after = afters[a];
        char number[16], what[128];
        snprintf (number, sizeof number, "%d", after);
        snprintf (what, sizeof what, "%s on strip %d of %d", faults[f].name, after, strips);
        set_fault (faults[f].name, number);
        gh_engine *engine = engine_new (GH_BACKEND_AUTO, after % 2, budget, 0);
        gh_result result;
        gh_error error;
        gh_status status
            = gh_histogram_buffer (engine, pixels, width, height, channels, row, &result, &error);
        CHECK (status == GH_OK, "%s: %s", what, error.message);
        char want[GH_MESSAGE_SIZE];
        if (after <= strips)
          fell_back_line (want, sizeof want, faults[f].message);
        else
          snprintf (want, sizeof want, "%s", gh_engine_backend (engine));
        if (status == GH_OK)
          {
            CHECK (result.used_gpu == (after > strips) && strcmp (result.backend, want) == 0,
                   "%s: used_gpu %d, backend '%s'", what, result.used_gpu, result.backend);
            CHECK (after <= strips || is_simulated (engine), "%s: no fault, still the GPU", what);
            test_counts_equal (result.counts, expected, channels, what);
          }
        gh_result_clear (&result);
        gh_engine_free (engine);
      }
  set_fault (NULL, NULL);
  test_fault_in_a_later_run (pixels, width, height, channels, expected);
  free (pixels);
}

/* oom without GPUHIST_FAULT_AFTER strikes when the run begins, as on CUDA; every run on the
 * simulated GPU strikes again until the engine falls back. */
static void
test_oom_at_begin (void)
{
  const int width = 64, height = 30, channels = 1;
  uint8_t *pixels = test_image (IMAGE_FEW_LEVELS, width, height, channels, width);
  uint64_t expected[GH_BINS] = { 0 };
  gh_reference_count (pixels, width, height, channels, width, expected);
  set_fault ("oom", NULL);
  gh_engine *engine = engine_new (GH_BACKEND_AUTO, 0, 0, 0);
  for (int i = 0; i < 2; i++)
    {
      gh_error error = { GH_OK, "" };
      gh_run *run = gh_run_begin (engine, width, height, channels, &error);
      CHECK (run == NULL && error.status == GH_ERROR_OUT_OF_MEMORY
                 && strcmp (error.message, faults[0].message) == 0,
             "oom at begin, run %d: '%s'", i + 1, error.message);
      gh_run_abort (run);
    }
  gh_result result;
  gh_error error;
  gh_status status
      = gh_histogram_buffer (engine, pixels, width, height, channels, width, &result, &error);
  char want[GH_MESSAGE_SIZE];
  fell_back_line (want, sizeof want, faults[0].message);
  CHECK (status == GH_OK && !result.used_gpu && strcmp (result.backend, want) == 0,
         "oom at begin, buffer: %s", status == GH_OK ? result.backend : error.message);
  if (status == GH_OK)
    test_counts_equal (result.counts, expected, channels, "oom at begin");
  gh_result_clear (&result);
  gh_engine_free (engine);
  set_fault (NULL, NULL);
  free (pixels);
}

/* A synthetic pattern is made on the host and goes through the same strips: it falls back too,
 * with the counts the CPU gives. */
static void
test_pattern (void)
{
  const int width = 300, height = 90, channels = 3;
  const size_t budget = 2 * (size_t) width * channels * 10;
  gh_engine *cpu = engine_new (GH_BACKEND_CPU, 0, budget, 0);
  gh_result want_noise;
  gh_error error;
  CHECK (gh_histogram_pattern (cpu, GH_PATTERN_NOISE, width, height, channels, &want_noise, &error)
             == GH_OK,
         "CPU noise: %s", error.message);
  gh_engine_free (cpu);
  for (size_t f = 0; f < N_FAULTS; f++)
    {
      set_fault (faults[f].name, "3");
      gh_engine *engine = engine_new (GH_BACKEND_AUTO, 1, budget, 0);
      gh_result noise;
      gh_status status = gh_histogram_pattern (engine, GH_PATTERN_NOISE, width, height, channels,
                                               &noise, &error);
      char want[GH_MESSAGE_SIZE];
      fell_back_line (want, sizeof want, faults[f].message);
      CHECK (status == GH_OK && !noise.used_gpu && strcmp (noise.backend, want) == 0,
             "%s, pattern: %s", faults[f].name, status == GH_OK ? noise.backend : error.message);
      if (status == GH_OK)
        test_counts_equal (noise.counts, want_noise.counts, channels, "pattern after a fault");
      gh_result_clear (&noise);
      gh_engine_free (engine);
    }
  set_fault (NULL, NULL);
  gh_result_clear (&want_noise);
}

/* A weighted run with derived channels through gh_histogram_spec: the fault strikes on strip 2,
 * the engine falls back, and the CPU's exact sums equal the reference's. */
static void
test_weighted_retry (void)
{
  const int width = 90, height = 30;
  for (size_t f = 0; f < N_FAULTS; f++)
    for (int bytes = 1; bytes <= 2; bytes++)
      {
        gh_run_spec spec;
        gh_run_spec_init (&spec, width, height, 4, bytes);
        spec.coverage_bytes = bytes;
        spec.alpha_weighted = 1;
        spec.derived = 1;
        spec.binning = GH_BINNING_GIMP;
        const int bins = bytes == 1 ? GH_BINS : 1024;
        const size_t row = (size_t) width * 4 * bytes, coverage_row = (size_t) width * bytes;
        void *pixels = bytes == 1 ? (void *) test_image (IMAGE_NOISE, width, height, 4, row)
                                  : (void *) test_image16 (IMAGE_NOISE, width, height, 4, row);
        uint8_t *coverage = test_image (IMAGE_NOISE, (int) coverage_row, height, 1, coverage_row);
        gh_u128 *expected = calloc ((size_t) 6 * bins, sizeof *expected);
        gh_reference_count_spec (&spec, bins, pixels, row, coverage, coverage_row, expected);

        set_fault (faults[f].name, "2");
        gh_engine *engine = engine_new (GH_BACKEND_AUTO, f % 2, 2 * (row + coverage_row) * 4, bins);
        gh_result result;
        gh_error error = { GH_OK, "" };
        gh_status status = gh_histogram_spec (engine, &spec, pixels, row, coverage, coverage_row,
                                              &result, &error);
        char want[GH_MESSAGE_SIZE];
        fell_back_line (want, sizeof want, faults[f].message);
        CHECK (status == GH_OK && !result.used_gpu && strcmp (result.backend, want) == 0
                   && result.weighted && result.channels == 6,
               "weighted, %s, %d-bit: %s; backend '%s'", faults[f].name, 8 * bytes, error.message,
               status == GH_OK ? result.backend : "");
        if (status == GH_OK)
          CHECK (memcmp (result.numerators, expected, (size_t) 6 * bins * sizeof *expected) == 0,
                 "weighted, %s, %d-bit: the sums differ from the reference", faults[f].name,
                 8 * bytes);
        gh_result_clear (&result);
        gh_engine_free (engine);
        free (expected);
        free (coverage);
        free (pixels);
      }
  set_fault (NULL, NULL);
}

int
main (void)
{
  test_init ();
  unsetenv ("GPUHIST_MEMORY_BUDGET");
  gh_engine *cpu = engine_new (GH_BACKEND_CPU, 0, 0, 0);
  snprintf (cpu_line, sizeof cpu_line, "%s", gh_engine_backend (cpu));
  gh_engine_free (cpu);
  setenv ("GPUHIST_TEST_SIMULATED_GPU", "1", 1);
  test_device ();
  test_mid_run_by_hand ();
  test_buffer_and_strip_numbers ();
  test_oom_at_begin ();
  test_pattern ();
  test_weighted_retry ();
  return test_finish ("test-engine-simulated");
}
