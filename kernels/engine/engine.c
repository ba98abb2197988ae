/* gpu-histogram: the engine.  Chooses a backend, cuts images into strips, and turns what the
 * backend measured into a gh_result.  Knows nothing of CUDA or threads: backend.h is the seam. */
#include "backend.h"
#include "gimp_rules.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct gh_engine
{
  gh_options options;
  const gh_backend_ops *ops;
  void *backend;
  int uses_gpu;
  gh_fault fault;
  int fault_after;
  char description[GH_MESSAGE_SIZE];
};

struct gh_run
{
  gh_engine *engine;
  int width;
  int height;
  int channels;
  size_t row_bytes;
  int max_rows;
  int rows_done;
  int strips_done;
  gh_run_plan plan;
  gh_run_sink sink;
  void *backend_run;
};

void
gh_error_set (gh_error *error, gh_status status, const char *format, ...)
{
  if (!error)
    return;
  error->status = status;
  va_list args;
  va_start (args, format);
  vsnprintf (error->message, sizeof error->message, format, args);
  va_end (args);
}

double
gh_now_ms (void)
{
  struct timespec now;
  clock_gettime (CLOCK_MONOTONIC, &now);
  return now.tv_sec * 1e3 + now.tv_nsec / 1e6;
}

void
gh_options_init (gh_options *options)
{
  memset (options, 0, sizeof *options);
  options->backend = GH_BACKEND_AUTO;
  options->methods = GH_METHOD_BIT (GH_METHOD_FASTEST);
  options->warmup = -1;
}

/* "256M", "1G", "4096": bytes, or 0 when the text is not a size. */
static size_t
parse_size (const char *text)
{
  char *end;
  errno = 0;
  unsigned long long value = strtoull (text, &end, 10);
  if (errno || end == text)
    return 0;
  switch (toupper ((unsigned char) *end))
    {
    case 'K':
      value <<= 10;
      end++;
      break;
    case 'M':
      value <<= 20;
      end++;
      break;
    case 'G':
      value <<= 30;
      end++;
      break;
    default: break;
    }
  return *end ? 0 : (size_t) value;
}

static int
valid_bins (int bins)
{
  return bins >= GH_BINS && bins <= GH_MAX_BINS && (bins & (bins - 1)) == 0;
}

static gh_fault
parse_fault (const char *text)
{
  static const struct
  {
    const char *name;
    gh_fault fault;
  } faults[] = {
    { "no-driver", GH_FAULT_NO_DRIVER }, { "old-driver", GH_FAULT_OLD_DRIVER },
    { "no-device", GH_FAULT_NO_DEVICE }, { "oom", GH_FAULT_OOM },
    { "kernel", GH_FAULT_KERNEL },       { "copy", GH_FAULT_COPY },
  };
  for (size_t i = 0; text && i < sizeof faults / sizeof faults[0]; i++)
    if (strcmp (text, faults[i].name) == 0)
      return faults[i].fault;
  return GH_FAULT_NONE;
}

static void
open_cpu (gh_engine *engine, const char *why)
{
  char cpu_line[64];
  gh_error ignored;
  engine->ops = &gh_cpu_backend_ops;
  engine->backend
      = engine->ops->open (&engine->options, GH_FAULT_NONE, cpu_line, sizeof cpu_line, &ignored);
  engine->uses_gpu = 0;
  if (why && *why)
    snprintf (engine->description, sizeof engine->description, "%s: %.400s", cpu_line, why);
  else
    snprintf (engine->description, sizeof engine->description, "%s", cpu_line);
}

gh_engine *
gh_engine_new (const gh_options *options, gh_error *error)
{
  gh_options defaults;
  if (!options)
    {
      gh_options_init (&defaults);
      options = &defaults;
    }
  if (options->repetitions < 0 || options->repetitions > 100000 || options->cpu_threads < 0
      || options->device < 0)
    {
      gh_error_set (error, GH_ERROR_INVALID_ARGUMENT,
                    "repetitions, threads and device must not be negative");
      return NULL;
    }
  if (!valid_bins (options->bins ? options->bins : GH_BINS))
    {
      gh_error_set (error, GH_ERROR_INVALID_ARGUMENT,
                    "%d bins: a channel takes 256, 1024, 4096, 16384 or 65536 bins (a power of two "
                    "from 256 to 65536)",
                    options->bins);
      return NULL;
    }

  gh_engine *engine = calloc (1, sizeof *engine);
  if (!engine)
    {
      gh_error_set (error, GH_ERROR_OUT_OF_MEMORY, "out of host memory");
      return NULL;
    }
  engine->options = *options;
  if (engine->options.bins == 0)
    engine->options.bins = GH_BINS;
  if (engine->options.warmup < 0)
    engine->options.warmup = 1;
  if (engine->options.methods == 0)
    engine->options.methods = GH_METHOD_BIT (GH_METHOD_FASTEST);

  const char *budget = getenv ("GPUHIST_MEMORY_BUDGET");
  if (budget && parse_size (budget))
    engine->options.memory_budget = parse_size (budget);
  if (engine->options.memory_budget == 0)
    engine->options.memory_budget = GH_DEFAULT_MEMORY_BUDGET;
  engine->fault = parse_fault (getenv ("GPUHIST_FAULT"));
  const char *after = getenv ("GPUHIST_FAULT_AFTER");
  engine->fault_after = after && atoi (after) > 0 ? atoi (after) : 1;

  if (options->backend == GH_BACKEND_CPU)
    {
      open_cpu (engine, NULL);
      return engine;
    }

  gh_error gpu_error = { GH_OK, "" };
  engine->ops = &gh_cuda_backend_ops;
  /* TEST ONLY: the CPU dressed as a GPU that GPUHIST_FAULT can fail mid-run (backend.h). */
  const char *simulated = getenv ("GPUHIST_TEST_SIMULATED_GPU");
  if (simulated && strcmp (simulated, "1") == 0)
    engine->ops = &gh_simulated_gpu_ops;
  engine->backend = engine->ops->open (&engine->options, engine->fault, engine->description,
                                       sizeof engine->description, &gpu_error);
  if (engine->backend)
    {
      engine->uses_gpu = 1;
      return engine;
    }
  if (options->backend == GH_BACKEND_CUDA)
    {
      if (error)
        *error = gpu_error;
      free (engine);
      return NULL;
    }
  open_cpu (engine, gpu_error.message);
  return engine;
}

void
gh_engine_free (gh_engine *engine)
{
  if (!engine)
    return;
  if (engine->backend)
    engine->ops->close (engine->backend);
  free (engine);
}

void
gh_release_gpu (void)
{
  if (gh_cuda_backend_ops.release_device)
    gh_cuda_backend_ops.release_device ();
}

const char *
gh_engine_backend (const gh_engine *engine)
{
  return engine->description;
}

int
gh_engine_uses_gpu (const gh_engine *engine)
{
  return engine->uses_gpu;
}

void
gh_engine_fall_back_to_cpu (gh_engine *engine, const char *reason)
{
  if (!engine->uses_gpu)
    return;
  engine->ops->close (engine->backend);
  engine->backend = NULL;
  char why[GH_MESSAGE_SIZE];
  snprintf (why, sizeof why, "the GPU failed (%.400s)", reason ? reason : "unknown error");
  open_cpu (engine, why);
}

void
gh_engine_set_methods (gh_engine *engine, unsigned methods, int repetitions)
{
  engine->options.methods = methods ? methods & GH_ALL_METHODS : GH_METHOD_BIT (GH_METHOD_FASTEST);
  engine->options.repetitions = repetitions < 0 ? 0 : repetitions;
}

gh_status
gh_engine_set_bins (gh_engine *engine, int bins, gh_strategy strategy, gh_error *error)
{
  if (!valid_bins (bins) || strategy < GH_STRATEGY_AUTO || strategy > GH_STRATEGY_GLOBAL_COPIES)
    {
      gh_error_set (error, GH_ERROR_INVALID_ARGUMENT,
                    "%d bins: a channel takes 256, 1024, 4096, 16384 or 65536 bins", bins);
      return GH_ERROR_INVALID_ARGUMENT;
    }
  engine->options.bins = bins;
  engine->options.strategy = strategy;
  return GH_OK;
}

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

/* GH_OK, or INVALID_ARGUMENT with a message naming what is wrong with the spec. */
static gh_status
check_spec (const gh_engine *engine, const gh_run_spec *spec, gh_error *error)
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
  plan->out_channels = spec->channels + (spec->derived ? 2 : 0);
  plan->strip_capacity = strip_bytes;
  plan->coverage_offset = strip_bytes;
  plan->repetitions = engine->options.repetitions;
  plan->methods
      = plan->repetitions > 0 ? engine->options.methods : GH_METHOD_BIT (GH_METHOD_FASTEST);
  plan->warmup = plan->repetitions > 0 ? engine->options.warmup : 0;
  plan->layout = engine->options.layout;
  plan->fault = engine->fault;
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
  if (check_spec (engine, spec, error) != GH_OK)
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

static gh_status
check_strip_rows (gh_run *run, int rows, gh_error *error)
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
  gh_status status = check_strip_rows (run, rows, error);
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

static double
u128_to_double (gh_u128 x)
{
  return (double) x.hi * 18446744073709551616.0 + (double) x.lo;
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

static int
gpu_error_worth_a_retry (gh_status status)
{
  return status == GH_ERROR_GPU_FAILED || status == GH_ERROR_OUT_OF_MEMORY;
}

/* Copies `rows` rows of `row_bytes` from an image `stride` bytes a row apart into a strip. */
static void
copy_rows (uint8_t *strip, const uint8_t *image, size_t stride, size_t row_bytes, int rows)
{
  for (int r = 0; r < rows; r++)
    memcpy (strip + (size_t) r * row_bytes, image + (size_t) r * stride, row_bytes);
}

static gh_status
histogram_spec_once (gh_engine *engine, const gh_run_spec *spec, const uint8_t *pixels,
                     size_t stride, const uint8_t *coverage, size_t coverage_stride,
                     gh_result *result, gh_error *error)
{
  gh_run *run = gh_run_begin_spec (engine, spec, error);
  if (!run)
    return error ? error->status : GH_ERROR_INVALID_ARGUMENT;
  const size_t coverage_row = (size_t) spec->width * (size_t) spec->coverage_bytes;
  for (int y = 0; y < spec->height;)
    {
      int rows;
      uint8_t *strip = gh_run_strip_buffer (run, &rows);
      copy_rows (strip, pixels + (size_t) y * stride, stride, run->row_bytes, rows);
      if (coverage_row)
        copy_rows (gh_run_coverage_buffer (run), coverage + (size_t) y * coverage_stride,
                   coverage_stride, coverage_row, rows);
      gh_status status = gh_run_submit_strip (run, rows, error);
      if (status != GH_OK)
        {
          gh_run_abort (run);
          return status;
        }
      y += rows;
    }
  return gh_run_finish (run, result, error);
}

gh_status
gh_histogram_spec (gh_engine *engine, const gh_run_spec *spec, const void *pixels, size_t stride,
                   const void *coverage, size_t coverage_stride, gh_result *result, gh_error *error)
{
  gh_status status = check_spec (engine, spec, error);
  if (status != GH_OK)
    return status;
  const size_t row_bytes
      = (size_t) spec->width * (size_t) spec->channels * (size_t) spec->bytes_per_sample;
  const size_t coverage_row = (size_t) spec->width * (size_t) spec->coverage_bytes;
  if (!pixels || stride < row_bytes
      || (coverage_row && (!coverage || coverage_stride < coverage_row)))
    {
      gh_error_set (error, GH_ERROR_INVALID_ARGUMENT,
                    "bad image: %d x %d, %d channels, stride %zu, coverage plane %s, stride %zu",
                    spec->width, spec->height, spec->channels, stride,
                    coverage ? "given" : "missing", coverage_stride);
      return GH_ERROR_INVALID_ARGUMENT;
    }
  status = histogram_spec_once (engine, spec, pixels, stride, coverage, coverage_stride, result,
                                error);
  if (gpu_error_worth_a_retry (status) && engine->uses_gpu)
    {
      gh_engine_fall_back_to_cpu (engine, error ? error->message : NULL);
      status = histogram_spec_once (engine, spec, pixels, stride, coverage, coverage_stride, result,
                                    error);
    }
  return status;
}

static gh_status
histogram_buffer (gh_engine *engine, const uint8_t *pixels, int width, int height, int channels,
                  int bytes_per_sample, size_t stride, gh_result *result, gh_error *error)
{
  if (!pixels || width <= 0 || height <= 0 || channels < 1 || channels > GH_MAX_CHANNELS
      || stride < (size_t) width * (size_t) channels * (size_t) bytes_per_sample)
    {
      gh_error_set (error, GH_ERROR_INVALID_ARGUMENT, "bad image: %d x %d, %d channels, stride %zu",
                    width, height, channels, stride);
      return GH_ERROR_INVALID_ARGUMENT;
    }
  gh_run_spec spec;
  gh_run_spec_init (&spec, width, height, channels, bytes_per_sample);
  return gh_histogram_spec (engine, &spec, pixels, stride, NULL, 0, result, error);
}

gh_status
gh_histogram_buffer (gh_engine *engine, const uint8_t *pixels, int width, int height, int channels,
                     size_t stride, gh_result *result, gh_error *error)
{
  return histogram_buffer (engine, pixels, width, height, channels, 1, stride, result, error);
}

gh_status
gh_histogram_buffer16 (gh_engine *engine, const uint16_t *pixels, int width, int height,
                       int channels, size_t stride_bytes, gh_result *result, gh_error *error)
{
  return histogram_buffer (engine, (const uint8_t *) pixels, width, height, channels, 2,
                           stride_bytes, result, error);
}

static gh_status
histogram_pattern_once (gh_engine *engine, gh_pattern pattern, int width, int height, int channels,
                        gh_result *result, gh_error *error)
{
  gh_run *run = gh_run_begin (engine, width, height, channels, error);
  if (!run)
    return error ? error->status : GH_ERROR_INVALID_ARGUMENT;
  uint64_t offset = 0;
  for (int y = 0; y < height;)
    {
      int rows;
      uint8_t *strip = gh_run_strip_buffer (run, &rows);
      size_t bytes = (size_t) rows * run->row_bytes;
      gh_status status;
      if (engine->ops->pattern_strip && check_strip_rows (run, rows, error) == GH_OK)
        {
          status = engine->ops->pattern_strip (run->backend_run, pattern, bytes, offset, error);
          if (status == GH_OK)
            {
              run->rows_done += rows;
              run->strips_done++;
            }
        }
      else
        {
          /* Made on the host, word by word, exactly as the device makes it. */
          for (size_t i = 0; i < bytes; i++)
            strip[i]
                = pattern == GH_PATTERN_FLAT
                      ? GH_FLAT_VALUE
                      : (uint8_t) (gh_pattern_word ((offset + i) / 4) >> (8 * ((offset + i) % 4)));
          status = gh_run_submit_strip (run, rows, error);
        }
      if (status != GH_OK)
        {
          gh_run_abort (run);
          return status;
        }
      offset += bytes;
      y += rows;
    }
  return gh_run_finish (run, result, error);
}

gh_status
gh_histogram_pattern (gh_engine *engine, gh_pattern pattern, int width, int height, int channels,
                      gh_result *result, gh_error *error)
{
  gh_status status
      = histogram_pattern_once (engine, pattern, width, height, channels, result, error);
  if (gpu_error_worth_a_retry (status) && engine->uses_gpu)
    {
      gh_engine_fall_back_to_cpu (engine, error ? error->message : NULL);
      status = histogram_pattern_once (engine, pattern, width, height, channels, result, error);
    }
  return status;
}
