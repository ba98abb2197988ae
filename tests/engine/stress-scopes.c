/* gpu-histogram: not a test: the dialog's run shapes counted over and over for SECONDS, each
 * run in strips of random heights (as the dialog's fetch hands them over), at a random bin
 * count, timed with every method or once with the fastest, one run in four aborted after a few
 * strips; each finished run checked against the reference.  Several at once load one GPU as
 * several GIMP sessions do (tools/device-scopes --stress).  A GPU failure ends the process: the
 * CUDA context may be lost with it.
 *
 *   stress-scopes SECONDS [cpu]      exit 0 clean, 1 a failure or a wrong count, 77 no GPU */
#include "scope-checks.h"

#include <sys/time.h>

static double
now_s (void)
{
  struct timeval tv;
  gettimeofday (&tv, NULL);
  return (double) tv.tv_sec + tv.tv_usec / 1e6;
}

/* The case of the test table named `name` (scope-checks.h). */
static scope_case
case_named (const char *name)
{
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    if (strcmp (cases[i].name, name) == 0)
      return cases[i];
  fprintf (stderr, "stress-scopes: no case named '%s'\n", name);
  exit (2);
}

/* One run of c; *failed set when the engine failed.  Returns 1 for a wrong table. */
static int
stress_run (gh_engine *engine, const scope_case *c, const uint8_t *pixels, const uint8_t *coverage,
            int abort_after, int *failed)
{
  gh_run_spec spec;
  spec_of (c, &spec);
  gh_error error = { 0 };
  gh_result result;
  gh_status status = gh_engine_set_bins (engine, c->bins, GH_STRATEGY_AUTO, &error);
  gh_run *run = status == GH_OK ? gh_run_begin_spec (engine, &spec, &error) : NULL;
  status = run ? GH_OK : error.status;
  for (int y = 0, strips = 0; run && status == GH_OK && y < spec.height; strips++)
    {
      if (abort_after && strips == abort_after)
        {
          gh_run_abort (run);
          return 0;
        }
      int rows = 1 + (int) (test_random () % (uint64_t) spec.height);
      rows = rows < spec.height - y ? rows : spec.height - y;
      status = submit_rows (run, &spec, pixels, coverage, y, &rows, &error);
      y += rows;
    }
  if (run && status == GH_OK)
    status = gh_run_finish (run, &result, &error);
  else if (run)
    gh_run_abort (run);
  if (status != GH_OK)
    {
      printf ("FAILED on the GPU (%s, %d bins): %s\n", c->name, c->bins, error.message);
      *failed = 1;
      return 0;
    }
  const int before = test_failures;
  check_against_reference (c, &spec, &result, GH_SCOPE_WAVEFORM, pixels, coverage);
  check_column_sums (c, &result);
  check_against_reference (c, &spec, &result, GH_SCOPE_VECTORSCOPE, pixels, coverage);
  gh_result_clear (&result);
  return test_failures != before;
}

int
main (int argc, char **argv)
{
  test_init ();
  const double seconds = argc > 1 ? atof (argv[1]) : 60;
  /* The dialog's 248 x 168 selection of 16-bit RGBA, GIMP 3.0's luminance at 16 bits, and 8-bit
   * RGBA weighted. */
  scope_case shapes[3] = { case_named ("rgba16 weighted, derived, 4096 bins, a column a pixel"),
                           case_named ("rgba16 weighted, GIMP 3.0's luminance, 4096 bins"),
                           case_named ("rgba8 weighted, derived") };
  shapes[0].height = 168;
  static const int bins[] = { 256, 1024, 4096 };
  gh_options options;
  gh_options_init (&options);
  options.backend = argc > 2 && strcmp (argv[2], "cpu") == 0 ? GH_BACKEND_CPU : GH_BACKEND_CUDA;
  /* The plug-in's budgets (plugin/run/engine-keeper.c). */
  options.memory_budget = (size_t) 16 << 20;
  options.table_budget = (size_t) 256 << 20;
  gh_error error = { 0 };
  gh_engine *engine = gh_engine_new (&options, &error);
  if (!engine)
    {
      printf ("# no engine: %s\n", error.message);
      return TEST_SKIP;
    }
  uint8_t *pixels[3], *coverage[3];
  for (int s = 0; s < 3; s++)
    {
      const size_t area = (size_t) shapes[s].width * shapes[s].height;
      pixels[s] = malloc (area * shapes[s].channels * shapes[s].bytes);
      coverage[s] = malloc (area * shapes[s].coverage_bytes);
      fill_image (&shapes[s], pixels[s], coverage[s]);
    }
  long runs = 0, wrong = 0;
  int failed = 0;
  for (const double end = now_s () + seconds; !failed && now_s () < end; runs++)
    {
      const int s = (int) (test_random () % 3);
      scope_case c = shapes[s];
      if (c.bytes == 2)
        c.bins = bins[test_random () % 3];
      const int timed = (int) (test_random () % 2);
      gh_engine_set_methods (engine, timed ? GH_ALL_METHODS : GH_METHOD_BIT (GH_METHOD_FASTEST),
                             timed ? 1 + (int) (test_random () % 5) : 0);
      const int abort_after = test_random () % 4 == 0 ? 1 + (int) (test_random () % 3) : 0;
      wrong += stress_run (engine, &c, pixels[s], coverage[s], abort_after, &failed);
    }
  printf ("stress: %ld runs, %d GPU failures, %ld wrong\n", runs, failed, wrong);
  for (int s = 0; s < 3; s++)
    {
      free (pixels[s]);
      free (coverage[s]);
    }
  gh_engine_free (engine);
  return failed || wrong ? 1 : 0;
}
