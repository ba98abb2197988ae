/* gpu-histogram: the engine.  Chooses a backend (falling back to the CPU with the reason), and
 * holds the options runs are made with; runs are in run.c, the whole-image loops in
 * histogram.c.  Knows nothing of CUDA or threads: backend.h is the seam. */
#include "engine_private.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
  const char *in_run = getenv ("GPUHIST_FAULT_RUN");
  engine->fault_run = in_run && atoi (in_run) > 0 ? atoi (in_run) : 0;

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
