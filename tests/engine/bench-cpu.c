/* gpu-histogram: the CPU backend's speed on a weighted run with derived channels beside a plain
 * run of the same image (tools/bench-cpu runs it next to OpenCV's calcHist).  Not a test: it
 * prints times and asserts nothing.
 *
 *   bench-cpu WIDTH HEIGHT RGBA_FILE COVERAGE_FILE THREADS REPETITIONS
 *
 * RGBA_FILE holds WIDTH x HEIGHT packed 8-bit RGBA pixels, COVERAGE_FILE one byte a pixel.
 * Prints one line a run: "<run> <method> <median ms> <min ms> <bytes>". */
#include "bench-util.h"
#include "gpuhist.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
time_run (const char *name, const gh_run_spec *spec, const uint8_t *pixels, const uint8_t *coverage,
          int threads, int repetitions)
{
  gh_options options;
  gh_options_init (&options);
  options.backend = GH_BACKEND_CPU;
  options.cpu_threads = threads;
  options.methods = GH_ALL_METHODS;
  options.repetitions = repetitions;
  options.memory_budget = (size_t) 1 << 30; /* one strip: the timing is the counting */
  gh_error error;
  gh_engine *engine = gh_engine_new (&options, &error);
  gh_result result;
  if (!engine
      || gh_histogram_spec (engine, spec, pixels, (size_t) spec->width * 4, coverage,
                            coverage ? (size_t) spec->width : 0, &result, &error)
             != GH_OK)
    {
      fprintf (stderr, "bench-cpu: %s\n", error.message);
      exit (1);
    }
  for (int m = 0; m < GH_N_METHODS; m++)
    printf ("%s %s %.3f %.3f %" PRIu64 "\n", name, gh_method_name ((gh_method) m),
            result.timing[m].median_ms, result.timing[m].min_ms, result.bytes);
  gh_result_clear (&result);
  gh_engine_free (engine);
}

int
main (int argc, char **argv)
{
  if (argc != 7)
    {
      fprintf (stderr, "usage: bench-cpu WIDTH HEIGHT RGBA_FILE COVERAGE_FILE THREADS REPS\n");
      return 2;
    }
  const int width = atoi (argv[1]), height = atoi (argv[2]);
  const int threads = atoi (argv[5]), repetitions = atoi (argv[6]);
  const size_t pixels = (size_t) width * (size_t) height;
  uint8_t *rgba = bench_read_file ("bench-cpu", argv[3], pixels * 4);
  uint8_t *coverage = bench_read_file ("bench-cpu", argv[4], pixels);

  gh_run_spec spec;
  gh_run_spec_init (&spec, width, height, 4, 1);
  time_run ("plain", &spec, rgba, NULL, threads, repetitions);
  spec.coverage_bytes = 1;
  spec.alpha_weighted = 1;
  spec.derived = 1;
  time_run ("weighted-derived", &spec, rgba, coverage, threads, repetitions);
  free (rgba);
  free (coverage);
  return 0;
}
