/* gpu-histogram: the CPU backend's scopes beside its histogram (tools/bench-cpu-scopes runs it
 * next to OpenCV).  Not a test: it prints times and asserts nothing.
 *
 *   bench-cpu-scopes WIDTH HEIGHT RGB_FILE THREADS REPETITIONS
 *
 * RGB_FILE holds WIDTH x HEIGHT packed 8-bit RGB pixels.  Three runs, FASTEST timed alone on
 * each table (medians of REPETITIONS): the histogram alone; the histogram with a waveform of
 * 1024 columns (R, G, B) and the vectorscope; and the whole run's wall time of each, counted
 * once as the plug-in counts (no repetitions).  Prints "<what> <median ms>" lines. */
#include "bench-util.h"
#include "gpuhist.h"

static gh_engine *
engine_for (int threads, int repetitions)
{
  gh_options options;
  gh_options_init (&options);
  options.backend = GH_BACKEND_CPU;
  options.cpu_threads = threads;
  options.methods = GH_METHOD_BIT (GH_METHOD_FASTEST);
  options.repetitions = repetitions;
  options.memory_budget = (size_t) 1 << 30; /* one strip: the timing is the counting */
  gh_error error;
  return gh_engine_new (&options, &error);
}

/* The median wall time of the whole run, counted once as the plug-in does. */
static double
whole_run_ms (const gh_run_spec *spec, const uint8_t *pixels, int threads, int repetitions)
{
  gh_engine *engine = engine_for (threads, 0);
  double *times = calloc ((size_t) repetitions, sizeof *times);
  for (int r = 0; r < repetitions; r++)
    {
      gh_result result;
      gh_error error;
      const double start = bench_now_ms ();
      if (gh_histogram_spec (engine, spec, pixels, (size_t) spec->width * 3, NULL, 0, &result,
                             &error)
          != GH_OK)
        {
          fprintf (stderr, "bench-cpu-scopes: %s\n", error.message);
          exit (1);
        }
      times[r] = bench_now_ms () - start;
      gh_result_clear (&result);
    }
  const double median = bench_median (times, repetitions);
  free (times);
  gh_engine_free (engine);
  return median;
}

int
main (int argc, char **argv)
{
  if (argc != 6)
    {
      fprintf (stderr, "usage: bench-cpu-scopes WIDTH HEIGHT RGB_FILE THREADS REPETITIONS\n");
      return 2;
    }
  const int width = atoi (argv[1]), height = atoi (argv[2]), threads = atoi (argv[4]);
  const int repetitions = atoi (argv[5]);
  const size_t size = (size_t) width * height * 3;
  uint8_t *pixels = bench_read_file ("bench-cpu-scopes", argv[3], size);
  gh_run_spec spec;
  gh_run_spec_init (&spec, width, height, 3, 1);
  printf ("histogram-run %.2f\n", whole_run_ms (&spec, pixels, threads, repetitions));
  spec.waveform_columns = 1024 < width ? 1024 : width;
  spec.vectorscope = 1;
  printf ("scopes-run %.2f\n", whole_run_ms (&spec, pixels, threads, repetitions));

  gh_engine *engine = engine_for (threads, repetitions);
  gh_result result;
  gh_error error;
  if (gh_histogram_spec (engine, &spec, pixels, (size_t) width * 3, NULL, 0, &result, &error)
      != GH_OK)
    {
      fprintf (stderr, "bench-cpu-scopes: %s\n", error.message);
      return 1;
    }
  printf ("histogram %.2f\n", result.timing[GH_TIME_FASTEST].median_ms);
  printf ("waveform %.2f\n", result.scopes[GH_SCOPE_WAVEFORM].timing[GH_TIME_FASTEST].median_ms);
  printf ("vectorscope %.2f\n",
          result.scopes[GH_SCOPE_VECTORSCOPE].timing[GH_TIME_FASTEST].median_ms);
  gh_result_clear (&result);
  gh_engine_free (engine);
  free (pixels);
  return 0;
}
