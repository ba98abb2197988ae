/* gpu-histogram: scopes (gpuhist.h, gh_scope), every method, against the reference count
 * (gh_reference_count_scope) and against the run's own histogram: a waveform's columns summed
 * are its channel's histogram, the vectorscope's total is the red channel's.
 *
 *   test-scopes cpu   the CPU backend, and the simulated GPU failing mid-run
 *   test-scopes gpu   the CUDA backend (exit 77 without a usable GPU), and a real fault mid-run */
#include "scope-checks.h"

static int on_gpu;

/* One run in strips of `strip_rows` rows (0: as many as fit), as a caller that fetches strips
 * does; on a GPU failure the engine falls back to the CPU and the run starts again. */
static gh_status
count_in_strips (gh_engine *engine, const gh_run_spec *spec, const uint8_t *pixels,
                 const uint8_t *coverage, int strip_rows, gh_result *result, gh_error *error)
{
  for (int attempt = 0; attempt < 2; attempt++)
    {
      gh_run *run = gh_run_begin_spec (engine, spec, error);
      gh_status status = run ? GH_OK : error->status;
      for (int y = 0; run && status == GH_OK && y < spec->height;)
        {
          int rows = spec->height - y;
          if (strip_rows > 0 && rows > strip_rows)
            rows = strip_rows;
          status = submit_rows (run, spec, pixels, coverage, y, &rows, error);
          y += rows;
        }
      if (run && status == GH_OK)
        status = gh_run_finish (run, result, error);
      else if (run)
        gh_run_abort (run);
      if ((status != GH_ERROR_GPU_FAILED && status != GH_ERROR_OUT_OF_MEMORY)
          || !gh_engine_uses_gpu (engine))
        return status;
      gh_engine_fall_back_to_cpu (engine, error->message);
    }
  return error->status;
}

static void
run_case (gh_engine *engine, const scope_case *c, int strip_rows)
{
  const size_t bytes = (size_t) c->width * c->height * c->channels * c->bytes;
  uint8_t *pixels = malloc (bytes);
  uint8_t *coverage
      = c->coverage_bytes ? malloc ((size_t) c->width * c->height * c->coverage_bytes) : NULL;
  fill_image (c, pixels, coverage);
  gh_run_spec spec;
  spec_of (c, &spec);
  gh_error error = { 0 };
  gh_result result;
  gh_status status = gh_engine_set_bins (engine, c->bins, GH_STRATEGY_AUTO, &error);
  if (status == GH_OK)
    status = count_in_strips (engine, &spec, pixels, coverage, strip_rows, &result, &error);
  CHECK (status == GH_OK, "%s: %s", c->name, error.message);
  if (status == GH_OK)
    {
      printf ("# %s: %d columns on %s\n", c->name, spec.waveform_columns, result.backend);
      CHECK ((result.scopes[GH_SCOPE_WAVEFORM].tables > 0) == (spec.waveform_columns > 0),
             "%s: a waveform only where one was asked for", c->name);
      if (spec.waveform_columns > 0)
        {
          check_against_reference (c, &spec, &result, GH_SCOPE_WAVEFORM, pixels, coverage);
          check_column_sums (c, &result);
        }
      if (c->vectorscope)
        {
          check_against_reference (c, &spec, &result, GH_SCOPE_VECTORSCOPE, pixels, coverage);
          check_vectorscope_shape (c, &result);
        }
      gh_result_clear (&result);
    }
  free (pixels);
  free (coverage);
}

/* Bad scopes are refused before anything is counted. */
static void
check_refusals (gh_engine *engine)
{
  static const struct
  {
    int channels, columns, vectorscope;
    unsigned mask;
  } bad[]
      = { { 3, -1, 0, 0 }, { 3, 101, 0, 0 }, { 1, 10, 1, 0 }, { 2, 10, 1, 0 }, { 3, 10, 0, 0x8 } };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    {
      gh_run_spec spec;
      gh_run_spec_init (&spec, 100, 10, bad[i].channels, 1);
      spec.waveform_columns = bad[i].columns;
      spec.vectorscope = bad[i].vectorscope;
      spec.waveform_channels = bad[i].mask;
      gh_error error = { 0 };
      gh_run *run = gh_run_begin_spec (engine, &spec, &error);
      CHECK (run == NULL && error.status == GH_ERROR_INVALID_ARGUMENT, "bad scope %zu refused (%s)",
             i, error.message);
      if (run)
        gh_run_abort (run);
    }
  gh_run_spec spec;
  gh_run_spec_init (&spec, 4096, 10, 4, 2);
  spec.derived = 1;
  spec.waveform_columns = 4096;
  gh_options options;
  gh_options_init (&options);
  options.backend = GH_BACKEND_CPU;
  options.memory_budget = (size_t) 64 << 20;
  options.bins = 65536;
  gh_error error = { 0 };
  gh_engine *small = gh_engine_new (&options, &error);
  gh_run *run = small ? gh_run_begin_spec (small, &spec, &error) : NULL;
  CHECK (run == NULL && error.status == GH_ERROR_OUT_OF_MEMORY
             && strstr (error.message, "memory budget"),
         "a waveform past the memory budget is refused, naming it (%s)", error.message);
  gh_engine_free (small);

  /* A table budget apart from the staging's (the plug-in's 16 MiB): a waveform of six tables of
   * 1024 columns of 1024 levels (48 MiB) fits a table budget of its size, and is refused one
   * byte short of it, whatever the staging's budget. */
  gh_run_spec_init (&spec, 1024, 10, 4, 2);
  spec.derived = 1;
  spec.waveform_columns = 1024;
  options.memory_budget = (size_t) 16 << 20;
  options.bins = 1024;
  const size_t cells = (size_t) 6 * 1024 * 1024;
  for (int shy = 0; shy <= 1; shy++)
    {
      options.table_budget = cells * sizeof (uint64_t) - (size_t) shy;
      gh_error apart = { 0 };
      gh_engine *engine = gh_engine_new (&options, &apart);
      gh_run *fits = engine ? gh_run_begin_spec (engine, &spec, &apart) : NULL;
      CHECK (shy ? fits == NULL && apart.status == GH_ERROR_OUT_OF_MEMORY : fits != NULL,
             "a waveform of %zu cells with a table budget of %zu bytes: %s (%s)", cells,
             options.table_budget, shy ? "refused" : "counted", apart.message);
      if (fits)
        gh_run_abort (fits);
      gh_engine_free (engine);
    }
}

static gh_engine *
engine_for (gh_backend backend, size_t budget)
{
  gh_options options;
  gh_options_init (&options);
  options.backend = backend;
  options.methods = GH_ALL_METHODS;
  options.repetitions = 1;
  options.memory_budget = budget;
  gh_error error = { 0 };
  return gh_engine_new (&options, &error);
}

static void
run_all (gh_backend backend, int strip_rows)
{
  gh_engine *engine = engine_for (backend, 0);
  CHECK (engine != NULL, "an engine");
  if (!engine)
    return;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    if (cases[i].width * cases[i].height < 1000000 || (on_gpu && !getenv ("GPUHIST_TEST_QUICK")))
      run_case (engine, &cases[i], strip_rows);
  /* Counted once by FASTEST, in the background: the plug-in's and gpuhist's usual run. */
  if (getenv ("GPUHIST_TEST_QUICK"))
    {
      gh_engine_free (engine);
      return;
    }
  gh_engine_set_methods (engine, GH_METHOD_BIT (GH_METHOD_FASTEST), 0);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    run_case (engine, &cases[i], strip_rows);
  gh_engine_free (engine);
}

/* The contention patterns with the scopes (gh_histogram_pattern_spec): flat and noise, the
 * spec's weights left out, against the reference of the same pixels made here. */
static void
run_patterns (gh_backend backend)
{
  static const scope_case shapes[] = {
    { "rgba8 pattern", 301, 37, 4, 1, 1, 1, 1, 41, 0, 1, 0, GH_BINNING_SHIFT, 256,
      GH_LUMINANCE_GIMP3 },
    { "rgb16 pattern", 97, 29, 3, 2, 0, 0, 1, 5, 0, 1, 0, GH_BINNING_GIMP, 1024,
      GH_LUMINANCE_GIMP2 },
  };
  gh_engine *engine = engine_for (backend, 0);
  for (size_t i = 0; engine && i < sizeof shapes / sizeof shapes[0]; i++)
    for (int p = 0; p < 2; p++)
      {
        const scope_case *c = &shapes[i];
        const size_t bytes = (size_t) c->width * c->height * c->channels * c->bytes;
        uint8_t *pixels = malloc (bytes);
        for (size_t b = 0; b < bytes; b++)
          pixels[b] = p == 0 ? GH_FLAT_VALUE : (uint8_t) (gh_pattern_word (b / 4) >> (8 * (b % 4)));
        gh_run_spec spec, unweighted;
        spec_of (c, &spec);
        unweighted = spec;
        unweighted.coverage_bytes = 0;
        unweighted.alpha_weighted = 0;
        gh_error error = { 0 };
        gh_result result;
        gh_status status = gh_engine_set_bins (engine, c->bins, GH_STRATEGY_AUTO, &error);
        if (status == GH_OK)
          status = gh_histogram_pattern_spec (engine, p == 0 ? GH_PATTERN_FLAT : GH_PATTERN_NOISE,
                                              &spec, &result, &error);
        CHECK (status == GH_OK && !result.weighted, "%s, %s: counted unweighted (%s)", c->name,
               p == 0 ? "flat" : "noise", error.message);
        if (status == GH_OK)
          {
            scope_case plain = *c;
            plain.coverage_bytes = 0;
            check_against_reference (&plain, &unweighted, &result, GH_SCOPE_WAVEFORM, pixels, NULL);
            check_against_reference (&plain, &unweighted, &result, GH_SCOPE_VECTORSCOPE, pixels,
                                     NULL);
            check_column_sums (&plain, &result);
            gh_result_clear (&result);
          }
        free (pixels);
      }
  gh_engine_free (engine);
}

/* A fault on the second strip: the run ends on the CPU with the same tables. */
static void
run_with_fault (gh_backend backend)
{
  static const char *const faults[] = { "kernel", "copy", "oom" };
  for (size_t f = 0; f < sizeof faults / sizeof faults[0]; f++)
    {
      setenv ("GPUHIST_FAULT", faults[f], 1);
      setenv ("GPUHIST_FAULT_AFTER", "2", 1);
      gh_engine *engine = engine_for (backend, 0);
      unsetenv ("GPUHIST_FAULT");
      unsetenv ("GPUHIST_FAULT_AFTER");
      CHECK (engine != NULL, "an engine for the %s fault", faults[f]);
      if (!engine)
        continue;
      run_case (engine, &cases[1], 9);
      run_case (engine, &cases[6], 9);
      CHECK (!gh_engine_uses_gpu (engine), "the %s fault moved the engine to the CPU", faults[f]);
      gh_engine_free (engine);
    }
}

#ifdef GH_TEST_HAVE_CUDA
int test_busy_default_stream (int ms);
int test_default_stream_done (void);

/* GPU runs while the CUDA runtime's default stream is busy (busy-default-stream.cu): a run whose
 * tables were cleared or whose columns were uploaded there would count before they landed.  A
 * vectorscope alone, weighted and not, and the dialog's shape. */
static void
run_with_busy_default_stream (void)
{
  static const scope_case shapes[] = {
    { "rgba8 vectorscope alone, default stream busy", 263, 71, 4, 1, 0, 0, 0, -2, 0, 1, 0,
      GH_BINNING_SHIFT, 256, GH_LUMINANCE_GIMP2 },
    { "rgba8 weighted vectorscope alone, default stream busy", 180, 90, 4, 1, 1, 1, 0, -2, 0, 1, 0,
      GH_BINNING_SHIFT, 256, GH_LUMINANCE_GIMP2 },
    { "rgba16 weighted, derived, 4096 bins, default stream busy", 248, 42, 4, 2, 2, 1, 1, -1, 0, 1,
      0, GH_BINNING_GIMP, 4096, GH_LUMINANCE_GIMP2 },
  };
  gh_engine *engine = engine_for (GH_BACKEND_CUDA, 0);
  for (size_t i = 0; engine && i < sizeof shapes / sizeof shapes[0]; i++)
    {
      CHECK (test_busy_default_stream (500), "%s: the default stream made busy", shapes[i].name);
      run_case (engine, &shapes[i], 0);
      CHECK (gh_engine_uses_gpu (engine), "%s: counted on the GPU", shapes[i].name);
      CHECK (test_default_stream_done (), "%s: the default stream's work done", shapes[i].name);
    }
  gh_engine_free (engine);
}
#endif

int
main (int argc, char **argv)
{
  test_init ();
  const int gpu = argc > 1 && strcmp (argv[1], "gpu") == 0;
  on_gpu = gpu;
  if (gpu)
    {
      gh_engine *probe = engine_for (GH_BACKEND_CUDA, 0);
      if (!probe)
        {
          printf ("# no usable GPU: skipped\n");
          return TEST_SKIP;
        }
      gh_engine_free (probe);
    }
  else
    setenv ("GPUHIST_TEST_SIMULATED_GPU", "1", 1);
  const gh_backend backend = gpu ? GH_BACKEND_CUDA : GH_BACKEND_CPU;
  run_all (backend, 0);
  /* Many strips, each starting on a new row (not in the quick run racecheck makes). */
  if (!getenv ("GPUHIST_TEST_QUICK"))
    run_all (backend, 7);
  run_patterns (backend);
#ifdef GH_TEST_HAVE_CUDA
  if (gpu)
    run_with_busy_default_stream ();
#endif
  gh_engine *engine = engine_for (backend, 0);
  check_refusals (engine);
  gh_engine_free (engine);
  /* AUTO: the real GPU, or the simulated one, each falling back to the CPU.  Not under
   * compute-sanitizer, which reports the injected faults as the errors they are. */
  if (!getenv ("GPUHIST_TEST_NO_FAULTS"))
    run_with_fault (GH_BACKEND_AUTO);
  printf ("%s\n", test_failures ? "FAILED" : "ok");
  return test_failures ? 1 : 0;
}
