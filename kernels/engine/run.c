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
      for (int k = 0; k < GH_N_SCOPES; k++)
        {
          free (sink->scope[k].counts[m]);
          free (sink->scope[k].weighted[m]);
          free (sink->scope[k].rep_ms[m]);
          sink->scope[k].counts[m] = NULL;
          sink->scope[k].weighted[m] = NULL;
          sink->scope[k].rep_ms[m] = NULL;
        }
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

static int
spec_out_channels (const gh_run_spec *spec)
{
  return spec->channels + (spec->derived ? 2 : 0);
}

static gh_status
check_scopes (const gh_run_spec *spec, gh_error *error)
{
  const unsigned all = (1u << spec_out_channels (spec)) - 1u;
  if (spec->waveform_columns < 0 || spec->waveform_columns > spec->width)
    gh_error_set (error, GH_ERROR_INVALID_ARGUMENT,
                  "a waveform has 1 to %d columns on an image %d pixels wide, not %d", spec->width,
                  spec->width, spec->waveform_columns);
  else if (spec->waveform_channels & ~all)
    gh_error_set (error, GH_ERROR_INVALID_ARGUMENT,
                  "the waveform asks for channels the run does not count (mask 0x%x of 0x%x)",
                  spec->waveform_channels, all);
  else if (spec->vectorscope && spec->channels < 3)
    gh_error_set (error, GH_ERROR_INVALID_ARGUMENT,
                  "a vectorscope needs red, green and blue: an RGB or RGBA image, not %d channel%s",
                  spec->channels, spec->channels == 1 ? "" : "s");
  else
    return GH_OK;
  return GH_ERROR_INVALID_ARGUMENT;
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
    return check_scopes (spec, error);
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
fill_scope_shapes (gh_run_plan *plan, const gh_run_spec *spec)
{
  memset (plan->scope, 0, sizeof plan->scope);
  if (spec->waveform_columns > 0)
    {
      gh_table_shape *w = &plan->scope[GH_SCOPE_WAVEFORM];
      w->channels
          = spec->waveform_channels ? spec->waveform_channels : (1u << plan->out_channels) - 1u;
      for (int c = 0; c < plan->out_channels; c++)
        w->tables += (w->channels >> c) & 1u;
      w->columns = spec->waveform_columns;
      w->bins = plan->bins;
    }
  if (spec->vectorscope)
    {
      gh_table_shape *v = &plan->scope[GH_SCOPE_VECTORSCOPE];
      v->tables = 1;
      v->columns = GH_VECTORSCOPE_SIZE;
      v->bins = GH_VECTORSCOPE_SIZE;
    }
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
  plan->width = spec->width;
  fill_scope_shapes (plan, spec);
}

/* The largest host table a scope may have: one method's table must fit the memory budget. */
static gh_status
check_scope_sizes (const gh_run_plan *plan, size_t budget, gh_error *error)
{
  static const char *const names[GH_N_SCOPES] = { "waveform", "vectorscope" };
  const size_t cell_bytes = gh_plan_weighted (plan) ? sizeof (gh_u128) : sizeof (uint64_t);
  for (int k = 0; k < GH_N_SCOPES; k++)
    if (gh_table_cells (&plan->scope[k]) > budget / cell_bytes)
      {
        gh_error_set (error, GH_ERROR_OUT_OF_MEMORY,
                      "the %s's table (%zu cells of %zu bytes) does not fit the memory budget of "
                      "%zu bytes for tables",
                      names[k], gh_table_cells (&plan->scope[k]), cell_bytes, budget);
        return GH_ERROR_OUT_OF_MEMORY;
      }
  return GH_OK;
}

/* One table of n cells for each method of the plan: 64-bit counts, or 128-bit sums for weighted
 * runs, and the repetitions' times; 0 or -1 (no memory). */
static int
alloc_tables (const gh_run_plan *plan, size_t n, int zeroed, uint64_t **counts, gh_u128 **weighted,
              double **rep_ms)
{
  void *(*alloc) (size_t, size_t) = zeroed ? gh_large_zeroed : gh_large_unwritten;
  for (int m = 0; m < GH_N_METHODS; m++)
    {
      if (!(plan->methods & GH_METHOD_BIT (m)))
        continue;
      if (m != GH_METHOD_READ_ONLY && gh_plan_weighted (plan))
        {
          if (!(weighted[m] = alloc (n, sizeof (gh_u128))))
            return -1;
        }
      else if (m != GH_METHOD_READ_ONLY && !(counts[m] = alloc (n, sizeof (uint64_t))))
        return -1;
      if (plan->repetitions > 0
          && !(rep_ms[m] = calloc ((size_t) plan->repetitions, sizeof (double))))
        return -1;
    }
  return 0;
}

/* The sink's tables, zeroed but for the scopes' where the backend clears those itself. */
static int
alloc_sink (gh_run_sink *sink, const gh_run_plan *plan, const gh_backend_ops *ops)
{
  if (alloc_tables (plan, (size_t) plan->out_channels * (size_t) plan->bins, 1, sink->counts,
                    sink->weighted, sink->rep_ms))
    return -1;
  for (int k = 0; k < GH_N_SCOPES; k++)
    if (plan->scope[k].tables > 0
        && alloc_tables (plan, gh_table_cells (&plan->scope[k]), !ops->clears_scope_sinks,
                         sink->scope[k].counts, sink->scope[k].weighted, sink->scope[k].rep_ms))
      return -1;
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
  if (check_scope_sizes (&run->plan,
                         engine->options.table_budget ? engine->options.table_budget
                                                      : engine->options.memory_budget,
                         error)
      != GH_OK)
    {
      engine->runs--;
      free_run (run);
      return NULL;
    }
  if (alloc_sink (&run->sink, &run->plan, engine->ops) != 0)
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

/* One table of every method: the histogram's or a scope's, in the sink. */
typedef struct
{
  uint64_t **counts;
  gh_u128 **weighted;
  size_t cells;
  const char *name; /* for a mismatch's message: "" for the histogram, else "the waveform's " */
} method_tables;

static method_tables
histogram_tables (gh_run *run)
{
  method_tables t = { run->sink.counts, run->sink.weighted,
                      (size_t) run->plan.out_channels * (size_t) run->plan.bins, "" };
  return t;
}

static method_tables
scope_tables (gh_run *run, int kind)
{
  static const char *const names[GH_N_SCOPES] = { "waveform ", "vectorscope " };
  method_tables t = { run->sink.scope[kind].counts, run->sink.scope[kind].weighted,
                      gh_table_cells (&run->plan.scope[kind]), names[kind] };
  return t;
}

/* A method's table, whichever width it has; NULL when the method did not count. */
static const void *
method_table (const method_tables *t, int method)
{
  return t->counts[method] ? (const void *) t->counts[method] : (const void *) t->weighted[method];
}

/* Every method that counted must agree; the result is FASTEST's table when it ran, else the first
 * of the others; -1 when only the read-only pass ran.  MISMATCH names the two that disagree. */
static gh_status
choose_method (const gh_run *run, const method_tables *t, int *chosen, gh_error *error)
{
  const size_t bytes
      = t->cells * (gh_plan_weighted (&run->plan) ? sizeof (gh_u128) : sizeof (uint64_t));
  static const gh_method preference[]
      = { GH_METHOD_FASTEST, GH_METHOD_PRIVATIZED, GH_METHOD_GLOBAL_ATOMICS };
  *chosen = -1;
  for (size_t i = 0; i < sizeof preference / sizeof preference[0]; i++)
    {
      const gh_method m = preference[i];
      if (!method_table (t, m))
        continue;
      if (*chosen < 0)
        *chosen = m;
      else if (memcmp (method_table (t, m), method_table (t, *chosen), bytes))
        {
          gh_error_set (error, GH_ERROR_MISMATCH, "the %s and %s methods counted %sdifferently",
                        gh_method_name (m), gh_method_name ((gh_method) *chosen), t->name);
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

/* Takes the chosen table (zeros when only the read-only pass ran) out of the sink, with its
 * values in pixels. */
static gh_status
take_table (const gh_run *run, const method_tables *t, int chosen, uint64_t **counts,
            gh_u128 **numerators, double **values, gh_error *error)
{
  const size_t n = t->cells;
  const int weighted = gh_plan_weighted (&run->plan);
  if (weighted)
    {
      *numerators = chosen >= 0 ? t->weighted[chosen] : calloc (n, sizeof (gh_u128));
      if (chosen >= 0)
        t->weighted[chosen] = NULL;
    }
  else
    {
      *counts = chosen >= 0 ? t->counts[chosen] : calloc (n, sizeof (uint64_t));
      if (chosen >= 0)
        t->counts[chosen] = NULL;
    }
  *values = gh_large_alloc ((n ? n : 1) * sizeof (double));
  if ((weighted ? (void *) *numerators : (void *) *counts) == NULL || !*values)
    {
      gh_error_set (error, GH_ERROR_OUT_OF_MEMORY, "out of host memory");
      return GH_ERROR_OUT_OF_MEMORY;
    }
  const uint64_t denominator = gh_weight_denominator (
      run->plan.coverage_bytes, run->plan.alpha_weighted, run->plan.bytes_per_sample);
  for (size_t i = 0; i < n; i++)
    (*values)[i] = weighted ? u128_to_double ((*numerators)[i]) / (double) denominator
                            : (double) (*counts)[i];
  return GH_OK;
}

/* The histogram's table and every scope's: each checked across methods, then taken. */
static gh_status
take_counts (gh_run *run, gh_result *result, gh_error *error)
{
  int chosen;
  method_tables t = histogram_tables (run);
  gh_status status = choose_method (run, &t, &chosen, error);
  if (status == GH_OK)
    status = take_table (run, &t, chosen, &result->counts, &result->numerators, &result->values,
                         error);
  for (int k = 0; k < GH_N_SCOPES && status == GH_OK; k++)
    {
      if (run->plan.scope[k].tables == 0)
        continue;
      gh_scope *scope = &result->scopes[k];
      t = scope_tables (run, k);
      status = choose_method (run, &t, &chosen, error);
      if (status == GH_OK)
        status = take_table (run, &t, chosen, &scope->counts, &scope->numerators, &scope->values,
                             error);
    }
  result->denominator = gh_weight_denominator (run->plan.coverage_bytes, run->plan.alpha_weighted,
                                               run->plan.bytes_per_sample);
  return status;
}

/* A scope's shape and times in the result. */
static void
describe_scope (const gh_run *run, int kind, const gh_timing *read_only, gh_scope *scope)
{
  const gh_table_shape *shape = &run->plan.scope[kind];
  scope->tables = shape->tables;
  scope->columns = shape->columns;
  scope->bins = shape->bins;
  for (int c = 0, t = 0; c < run->plan.out_channels && kind == GH_SCOPE_WAVEFORM; c++)
    if ((shape->channels >> c) & 1u)
      scope->channel[t++] = c;
  for (int m = 0; m < GH_N_METHODS; m++)
    scope->timing[m] = m == GH_METHOD_READ_ONLY
                           ? *read_only
                           : summarise (run->sink.scope[kind].rep_ms[m], run->plan.repetitions);
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
  for (int k = 0; k < GH_N_SCOPES; k++)
    if (run->plan.scope[k].tables > 0)
      describe_scope (run, k, &result->timing[GH_TIME_READ_ONLY], &result->scopes[k]);
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
  if (status == GH_OK)
    status = take_counts (run, result, error);
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
  for (int k = 0; k < GH_N_SCOPES; k++)
    {
      free (result->scopes[k].counts);
      free (result->scopes[k].numerators);
      free (result->scopes[k].values);
    }
  memset (result, 0, sizeof *result);
}

size_t
gh_scope_cells (const gh_scope *scope)
{
  return (size_t) scope->tables * (size_t) scope->columns * (size_t) scope->bins;
}
