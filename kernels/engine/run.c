/* gpu-histogram: runs.  A spec checked and turned into the backend's plan, strips handed on,
 * the methods' tables compared and made into a gh_result. */
#include "engine_private.h"
#include "gimp_rules.h"

#include <stdlib.h>
#include <string.h>

static void
free_sink (gh_run_sink *sink)
{
  for (int m = 0; m < GH_N_METHODS; m++)
    {
      free (sink->counts[m]);
      free (sink->weighted[m]);
      free (sink->rep_ms[m]);
      sink->counts[m] = NULL;
      sink->weighted[m] = NULL;
      sink->rep_ms[m] = NULL;
    }
}

static void
free_run (gh_run *run)
{
  free_sink (&run->sink);
  free (run);
}

void
gh_run_spec_init (gh_run_spec *spec, int width, int height, int channels, int bytes_per_sample)
{
  memset (spec, 0, sizeof *spec);
  spec->width = width;
  spec->height = height;
  spec->channels = channels;
  spec->bytes_per_sample = bytes_per_sample;
  spec->binning = GH_BINNING_SHIFT;
}

gh_run *
gh_run_begin (gh_engine *engine, int width, int height, int channels, gh_error *error)
{
  return gh_run_begin_samples (engine, width, height, channels, 1, error);
}

gh_run *
gh_run_begin_samples (gh_engine *engine, int width, int height, int channels, int bytes_per_sample,
                      gh_error *error)
{
  gh_run_spec spec;
  gh_run_spec_init (&spec, width, height, channels, bytes_per_sample);
  return gh_run_begin_spec (engine, &spec, error);
}

gh_status
gh_check_spec (const gh_engine *engine, const gh_run_spec *spec, gh_error *error)
{
  if (!engine || !spec || spec->width <= 0 || spec->height <= 0 || spec->channels < 1
      || spec->channels > GH_MAX_CHANNELS || spec->bytes_per_sample < 1
      || spec->bytes_per_sample > 2)
    gh_error_set (error, GH_ERROR_INVALID_ARGUMENT,
                  "an image needs a width and height of at least 1, 1 to 4 channels and 1 or 2 "
                  "bytes a sample (got %d x %d, %d channels, %d bytes)",
                  spec ? spec->width : 0, spec ? spec->height : 0, spec ? spec->channels : 0,
                  spec ? spec->bytes_per_sample : 0);
  else if (spec->binning != GH_BINNING_SHIFT && spec->binning != GH_BINNING_GIMP)
    gh_error_set (error, GH_ERROR_INVALID_ARGUMENT, "unknown binning rule %d", (int) spec->binning);
  else if (spec->luminance != GH_LUMINANCE_GIMP2 && spec->luminance != GH_LUMINANCE_GIMP3
           && spec->luminance != GH_LUMINANCE_GIMP3_LINEAR)
    gh_error_set (error, GH_ERROR_INVALID_ARGUMENT, "unknown luminance rule %d",
                  (int) spec->luminance);
  else if (spec->coverage_bytes < 0 || spec->coverage_bytes > 2)
    gh_error_set (error, GH_ERROR_INVALID_ARGUMENT,
                  "a coverage plane has 1 or 2 bytes a pixel (or 0 for none), not %d",
                  spec->coverage_bytes);
  else if (spec->alpha_weighted && spec->channels != 2 && spec->channels != 4)
    gh_error_set (error, GH_ERROR_INVALID_ARGUMENT,
                  "alpha weighting needs an alpha channel: a 2- or 4-channel run, not %d channels",
                  spec->channels);
  else if (spec->derived && spec->channels < 3)
    gh_error_set (error, GH_ERROR_INVALID_ARGUMENT,
                  "value and luminance need red, green and blue: a 3- or 4-channel run, not %d "
                  "channel%s",
                  spec->channels, spec->channels == 1 ? "" : "s");
  else
    return GH_OK;
  return GH_ERROR_INVALID_ARGUMENT;
}

/* Strip rows: two staging strips (samples and coverage plane) fit the budget; below 2^31 sample
 * bytes each, so that no bin of a strip passes 2^32 samples and a strip's weighted sums fit
 * 64 bits.  0 (and *error) when not one row fits. */
static size_t
strip_rows (const gh_engine *engine, const gh_run_spec *spec, size_t row_bytes, gh_error *error)
{
  const size_t row_all = row_bytes + (size_t) spec->width * (size_t) spec->coverage_bytes;
  size_t max_rows = engine->options.memory_budget / 2 / row_all;
  if (max_rows > ((size_t) 1 << 31) / row_bytes)
    max_rows = ((size_t) 1 << 31) / row_bytes;
  if (max_rows == 0)
    gh_error_set (error, GH_ERROR_OUT_OF_MEMORY,
                  "one row of %zu bytes does not fit half the memory budget of %zu bytes", row_all,
                  engine->options.memory_budget);
  return max_rows > (size_t) spec->height ? (size_t) spec->height : max_rows;
}

static void
fill_plan (gh_run_plan *plan, const gh_engine *engine, const gh_run_spec *spec, size_t strip_bytes)
{
  plan->channels = spec->channels;
  plan->bytes_per_sample = spec->bytes_per_sample;
  plan->bins = spec->bytes_per_sample == 1 ? GH_BINS : engine->options.bins;
  plan->shift = 0;
  while ((1 << (8 * spec->bytes_per_sample - plan->shift)) > plan->bins)
    plan->shift++;
  plan->binning = spec->bytes_per_sample == 1 ? GH_BINNING_SHIFT : spec->binning;
  plan->strategy = engine->options.strategy;
  plan->coverage_bytes = spec->coverage_bytes;
  plan->alpha_weighted = spec->alpha_weighted;
  plan->derived = spec->derived;
  plan->luminance = spec->luminance;
  plan->out_channels = spec->channels + (spec->derived ? 2 : 0);
  plan->strip_capacity = strip_bytes;
  /* Aligned, so that the plane's 16-bit (and wider) loads are aligned whatever the rows. */
  plan->coverage_offset = (strip_bytes + 63) & ~(size_t) 63;
  plan->repetitions = engine->options.repetitions;
  plan->methods
      = plan->repetitions > 0 ? engine->options.methods : GH_METHOD_BIT (GH_METHOD_FASTEST);
  plan->warmup = plan->repetitions > 0 ? engine->options.warmup : 0;
  plan->layout = engine->options.layout;
  /* A kept engine's later run can fail while its earlier ones did not (GPUHIST_FAULT_RUN). */
  const int faulty_run = engine->fault_run == 0 || engine->fault_run == engine->runs;
  plan->fault = faulty_run ? engine->fault : GH_FAULT_NONE;
  plan->fault_after = engine->fault_after;
}

/* The sink's tables: 64-bit counts, or 128-bit sums for weighted runs; 0 or -1 (no memory). */
static int
alloc_sink (gh_run_sink *sink, const gh_run_plan *plan)
{
  const size_t n = (size_t) plan->out_channels * (size_t) plan->bins;
  for (int m = 0; m < GH_N_METHODS; m++)
    {
      if (!(plan->methods & GH_METHOD_BIT (m)))
        continue;
      if (m != GH_METHOD_READ_ONLY && gh_plan_weighted (plan))
        {
          if (!(sink->weighted[m] = calloc (n, sizeof (gh_u128))))
            return -1;
        }
      else if (m != GH_METHOD_READ_ONLY && !(sink->counts[m] = calloc (n, sizeof (uint64_t))))
        return -1;
      if (plan->repetitions > 0
          && !(sink->rep_ms[m] = calloc ((size_t) plan->repetitions, sizeof (double))))
        return -1;
    }
  return 0;
}

gh_run *
gh_run_begin_spec (gh_engine *engine, const gh_run_spec *spec, gh_error *error)
{
  if (gh_check_spec (engine, spec, error) != GH_OK)
    return NULL;
  const size_t row_bytes
      = (size_t) spec->width * (size_t) spec->channels * (size_t) spec->bytes_per_sample;
  const size_t max_rows = strip_rows (engine, spec, row_bytes, error);
  if (max_rows == 0)
    return NULL;

  gh_run *run = calloc (1, sizeof *run);
  if (!run)
    {
      gh_error_set (error, GH_ERROR_OUT_OF_MEMORY, "out of host memory");
      return NULL;
    }
  run->engine = engine;
  engine->runs++;
  run->width = spec->width;
  run->height = spec->height;
  run->channels = spec->channels;
  run->row_bytes = row_bytes;
  run->max_rows = (int) max_rows;
  fill_plan (&run->plan, engine, spec, max_rows * row_bytes);
  if (alloc_sink (&run->sink, &run->plan) != 0)
    {
      free_run (run);
      gh_error_set (error, GH_ERROR_OUT_OF_MEMORY, "out of host memory");
      return NULL;
    }
  run->backend_run = engine->ops->run_begin (engine->backend, &run->plan, &run->sink, error);
  if (!run->backend_run)
    {
      free_run (run);
      return NULL;
    }
  return run;
}

uint8_t *
gh_run_strip_buffer (gh_run *run, int *max_rows)
{
  int left = run->height - run->rows_done;
  if (max_rows)
    *max_rows = left < run->max_rows ? left : run->max_rows;
  return run->engine->ops->staging (run->backend_run);
}

uint8_t *
gh_run_coverage_buffer (gh_run *run)
{
  if (run->plan.coverage_bytes == 0)
    return NULL;
  return run->engine->ops->staging (run->backend_run) + run->plan.coverage_offset;
}

gh_status
gh_check_strip_rows (const gh_run *run, int rows, gh_error *error)
{
  if (rows <= 0 || rows > run->max_rows || rows > run->height - run->rows_done)
    {
      gh_error_set (error, GH_ERROR_INVALID_ARGUMENT,
                    "a strip of %d rows does not fit (at most %d, %d rows left)", rows,
                    run->max_rows, run->height - run->rows_done);
      return GH_ERROR_INVALID_ARGUMENT;
    }
  return GH_OK;
}

gh_status
gh_run_submit_strip (gh_run *run, int rows, gh_error *error)
{
  gh_status status = gh_check_strip_rows (run, rows, error);
  if (status != GH_OK)
    return status;
  status = run->engine->ops->strip (run->backend_run, (size_t) rows * run->row_bytes, error);
  if (status == GH_OK)
    {
      run->rows_done += rows;
      run->strips_done++;
    }
  return status;
}

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static gh_timing
summarise (double *times, int count)
{
  gh_timing timing = { 0, 0, 0, 0 };
  if (!times || count <= 0)
    return timing;
  qsort (times, (size_t) count, sizeof *times, compare_doubles);
  timing.min_ms = times[0];
  timing.max_ms = times[count - 1];
  timing.median_ms = count % 2 ? times[count / 2] : (times[count / 2 - 1] + times[count / 2]) / 2;
  timing.runs = count;
  return timing;
}

/* A method's table in the sink, whichever width it has; NULL when the method did not count. */
static const void *
sink_table (const gh_run_sink *sink, int method)
{
  return sink->counts[method] ? (const void *) sink->counts[method]
                              : (const void *) sink->weighted[method];
}

/* Every method that counted must agree; the result is FASTEST's table when it ran, else the first
 * of the others; -1 when only the read-only pass ran.  MISMATCH names the two that disagree. */
static gh_status
choose_method (const gh_run *run, int *chosen, gh_error *error)
{
  const size_t bytes = (size_t) run->plan.out_channels * run->plan.bins
                       * (gh_plan_weighted (&run->plan) ? sizeof (gh_u128) : sizeof (uint64_t));
  static const gh_method preference[]
      = { GH_METHOD_FASTEST, GH_METHOD_PRIVATIZED, GH_METHOD_GLOBAL_ATOMICS };
  *chosen = -1;
  for (size_t i = 0; i < sizeof preference / sizeof preference[0]; i++)
    {
      const gh_method m = preference[i];
      if (!sink_table (&run->sink, m))
        continue;
      if (*chosen < 0)
        *chosen = m;
      else if (memcmp (sink_table (&run->sink, m), sink_table (&run->sink, *chosen), bytes))
        {
          gh_error_set (error, GH_ERROR_MISMATCH, "the %s and %s methods counted differently",
                        gh_method_name (m), gh_method_name ((gh_method) *chosen));
          return GH_ERROR_MISMATCH;
        }
    }
  return GH_OK;
}

/* The nearest double, rounded once (gcc's unsigned __int128). */
static double
u128_to_double (gh_u128 x)
{
  return (double) ((unsigned __int128) x.hi << 64 | x.lo);
}

/* Takes the chosen table (zeros when only the read-only pass ran) and the values in pixels. */
static gh_status
take_counts (gh_run *run, int chosen, gh_result *result, gh_error *error)
{
  const size_t n = (size_t) run->plan.out_channels * run->plan.bins;
  const int weighted = gh_plan_weighted (&run->plan);
  if (weighted)
    {
      result->numerators = chosen >= 0 ? run->sink.weighted[chosen] : calloc (n, sizeof (gh_u128));
      if (chosen >= 0)
        run->sink.weighted[chosen] = NULL;
    }
  else
    {
      result->counts = chosen >= 0 ? run->sink.counts[chosen] : calloc (n, sizeof (uint64_t));
      if (chosen >= 0)
        run->sink.counts[chosen] = NULL;
    }
  result->values = malloc (n * sizeof (double));
  if ((weighted ? (void *) result->numerators : (void *) result->counts) == NULL || !result->values)
    {
      gh_error_set (error, GH_ERROR_OUT_OF_MEMORY, "out of host memory");
      return GH_ERROR_OUT_OF_MEMORY;
    }
  result->denominator = gh_weight_denominator (run->plan.coverage_bytes, run->plan.alpha_weighted,
                                               run->plan.bytes_per_sample);
  for (size_t i = 0; i < n; i++)
    result->values[i] = weighted
                            ? u128_to_double (result->numerators[i]) / (double) result->denominator
                            : (double) result->counts[i];
  return GH_OK;
}

static void
describe_result (const gh_run *run, gh_result *result)
{
  const gh_engine *engine = run->engine;
  result->channels = run->plan.out_channels;
  result->input_channels = run->channels;
  result->derived = run->plan.derived;
  result->luminance = run->plan.luminance;
  result->weighted = gh_plan_weighted (&run->plan);
  result->bins = run->plan.bins;
  result->samples = (uint64_t) run->width * (uint64_t) run->height;
  result->bytes = result->samples
                  * ((uint64_t) run->channels * run->plan.bytes_per_sample
                     + (uint64_t) run->plan.coverage_bytes);
  for (int m = 0; m < GH_N_METHODS; m++)
    result->timing[m] = summarise (run->sink.rep_ms[m], run->plan.repetitions);
  if (engine->uses_gpu && run->plan.repetitions > 0)
    {
      result->timing[GH_TIME_UPLOAD].median_ms = run->sink.upload_ms;
      result->timing[GH_TIME_UPLOAD].min_ms = run->sink.upload_ms;
      result->timing[GH_TIME_UPLOAD].max_ms = run->sink.upload_ms;
      result->timing[GH_TIME_UPLOAD].runs = run->sink.upload_ms > 0 ? 1 : 0;
    }
  result->used_gpu = engine->uses_gpu;
  snprintf (result->backend, sizeof result->backend, "%s", engine->description);
  snprintf (result->layout, sizeof result->layout, "%s", run->sink.layout);
}

gh_status
gh_run_finish (gh_run *run, gh_result *result, gh_error *error)
{
  memset (result, 0, sizeof *result);
  gh_status status = run->engine->ops->run_end (run->backend_run, error);
  run->backend_run = NULL;
  if (status == GH_OK && run->rows_done != run->height)
    {
      gh_error_set (error, GH_ERROR_INVALID_ARGUMENT, "only %d of %d rows were given",
                    run->rows_done, run->height);
      status = GH_ERROR_INVALID_ARGUMENT;
    }
  int chosen = -1;
  if (status == GH_OK)
    status = choose_method (run, &chosen, error);
  if (status == GH_OK)
    status = take_counts (run, chosen, result, error);
  if (status == GH_OK)
    describe_result (run, result);
  else
    gh_result_clear (result);
  free_run (run);
  return status;
}

void
gh_run_abort (gh_run *run)
{
  if (!run)
    return;
  if (run->backend_run)
    run->engine->ops->run_abort (run->backend_run);
  /* Given up before a strip was counted (the plug-in's keeper pins its buffers so): not one of
   * the runs GPUHIST_FAULT_RUN counts. */
  if (run->strips_done == 0)
    run->engine->runs--;
  free_run (run);
}

void
gh_result_clear (gh_result *result)
{
  free (result->counts);
  free (result->numerators);
  free (result->values);
  memset (result, 0, sizeof *result);
}
