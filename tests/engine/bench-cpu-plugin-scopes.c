/* gpu-histogram: the CPU backend's count of what plug-in-gpu-scopes asks for, fed as the plug-in
 * feeds it.  Not a test: it prints times and asserts nothing.
 *
 *   bench-cpu-plugin-scopes WIDTH HEIGHT RGBA_FILE MASK_FILE THREADS REPETITIONS
 *
 * RGBA_FILE holds WIDTH x HEIGHT packed 8-bit RGBA pixels, MASK_FILE as many 8-bit coverage
 * values.  The run is the plug-in's for `weighting gimp` under a selection: alpha-weighted, the
 * derived Value and Luminance, in strips of the plug-in's size (two staging buffers of 8 MiB),
 * FASTEST counted once.  Prints the median wall time of the histogram alone, of the histogram
 * with a waveform of 1024 columns of every channel and the vectorscope, and of each scope alone,
 * each with the median time gh_run_finish took (the count's tail after the last strip) and the
 * median CPU time of the process's threads (the copies and the count; steadier than the wall
 * clock on a shared machine): "<what> <median ms> tail <median ms> cpu <median ms>" lines. */
#include "bench-util.h"
#include "gpuhist.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The plug-in's staging (plugin/run/stream.h, engine-keeper.c): two strips of 8 MiB. */
#define PLUGIN_MEMORY_BUDGET ((size_t) 16 << 20)
#define PLUGIN_TABLE_BUDGET ((size_t) 256 << 20)
#define PLUGIN_LARGE_BLOCK_BYTES (256 << 10)

/* One run strip by strip, as plugin/run/stream.c submits them; returns gh_run_finish's time. */
static double
run_once (gh_engine *engine, const gh_run_spec *spec, const uint8_t *pixels, const uint8_t *mask)
{
  gh_error error;
  gh_result result;
  gh_run *run = gh_run_begin_spec (engine, spec, &error);
  if (!run)
    {
      fprintf (stderr, "bench-cpu-plugin-scopes: %s\n", error.message);
      exit (1);
    }
  const size_t row_bytes = (size_t) spec->width * 4;
  for (int y = 0; y < spec->height;)
    {
      int max_rows;
      uint8_t *strip = gh_run_strip_buffer (run, &max_rows);
      const int rows = spec->height - y < max_rows ? spec->height - y : max_rows;
      memcpy (strip, pixels + (size_t) y * row_bytes, (size_t) rows * row_bytes);
      memcpy (gh_run_coverage_buffer (run), mask + (size_t) y * spec->width,
              (size_t) rows * spec->width);
      if (gh_run_submit_strip (run, rows, &error) != GH_OK)
        {
          fprintf (stderr, "bench-cpu-plugin-scopes: %s\n", error.message);
          exit (1);
        }
      y += rows;
    }
  memset (&result, 0, sizeof result);
  const double start = bench_now_ms ();
  if (gh_run_finish (run, &result, &error) != GH_OK)
    {
      fprintf (stderr, "bench-cpu-plugin-scopes: %s\n", error.message);
      exit (1);
    }
  const double tail = bench_now_ms () - start;
  gh_result_clear (&result);
  return tail;
}

static void
print_runs (const char *what, gh_engine *engine, const gh_run_spec *spec, const uint8_t *pixels,
            const uint8_t *mask, int repetitions)
{
  double *times = calloc ((size_t) repetitions, sizeof *times);
  double *tails = calloc ((size_t) repetitions, sizeof *tails);
  double *cpu = calloc ((size_t) repetitions, sizeof *cpu);
  for (int r = 0; r < repetitions; r++)
    {
      const double start = bench_now_ms (), cpu_start = bench_clock_ms (CLOCK_PROCESS_CPUTIME_ID);
      tails[r] = run_once (engine, spec, pixels, mask);
      times[r] = bench_now_ms () - start;
      cpu[r] = bench_clock_ms (CLOCK_PROCESS_CPUTIME_ID) - cpu_start;
    }
  printf ("%s %.2f tail %.2f cpu %.2f\n", what, bench_median (times, repetitions),
          bench_median (tails, repetitions), bench_median (cpu, repetitions));
  free (times);
  free (tails);
  free (cpu);
}

int
main (int argc, char **argv)
{
  if (argc != 7)
    {
      fprintf (stderr, "usage: bench-cpu-plugin-scopes WIDTH HEIGHT RGBA_FILE MASK_FILE THREADS "
                       "REPETITIONS\n");
      return 2;
    }
  /* as the plug-in (plugin/run/flow.c): every large table a fresh mapping, so that each run pays
   * for the pages it touches as the plug-in's runs do */
  mallopt (M_MMAP_THRESHOLD, PLUGIN_LARGE_BLOCK_BYTES);
  const int width = atoi (argv[1]), height = atoi (argv[2]), threads = atoi (argv[5]);
  const int repetitions = atoi (argv[6]);
  const uint8_t *pixels
      = bench_read_file ("bench-cpu-plugin-scopes", argv[3], (size_t) width * height * 4);
  const uint8_t *mask
      = bench_read_file ("bench-cpu-plugin-scopes", argv[4], (size_t) width * height);

  gh_options options;
  gh_options_init (&options);
  options.backend = GH_BACKEND_CPU;
  options.cpu_threads = threads;
  options.methods = GH_METHOD_BIT (GH_METHOD_FASTEST);
  options.repetitions = 0;
  options.memory_budget = PLUGIN_MEMORY_BUDGET;
  options.table_budget = PLUGIN_TABLE_BUDGET;
  gh_error error;
  gh_engine *engine = gh_engine_new (&options, &error);
  if (!engine)
    {
      fprintf (stderr, "bench-cpu-plugin-scopes: %s\n", error.message);
      return 1;
    }
  gh_run_spec spec;
  gh_run_spec_init (&spec, width, height, 4, 1);
  spec.coverage_bytes = 1;
  spec.alpha_weighted = 1;
  spec.derived = 1;
  const char *only = getenv ("BENCH_ONLY"); /* one of the runs below, for a profiler */
  const struct
  {
    const char *what;
    int waveform, vectorscope;
  } runs[] = { { "histogram-run", 0, 0 },
               { "scopes-run", 1, 1 },
               { "waveform-run", 1, 0 },
               { "vectorscope-run", 0, 1 } };
  for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++)
    {
      if (only && strcmp (only, runs[i].what) != 0)
        continue;
      spec.waveform_columns = runs[i].waveform ? (1024 < width ? 1024 : width) : 0;
      spec.vectorscope = runs[i].vectorscope;
      print_runs (runs[i].what, engine, &spec, pixels, mask, repetitions);
    }
  gh_engine_free (engine);
  return 0;
}
