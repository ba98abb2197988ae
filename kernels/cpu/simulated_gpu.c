/* gpu-histogram: TEST ONLY, the simulated GPU.
 *
 * With GPUHIST_TEST_SIMULATED_GPU=1 the engine opens this in place of the CUDA backend (see
 * backend.h).  It counts on the CPU backend, but the engine takes it for a GPU
 * (gh_engine_uses_gpu), so that GPUHIST_FAULT=oom|kernel|copy strike as they do in the CUDA
 * backend, with its status and its wording, and the fall-back to the CPU runs on a machine that
 * has no GPU: in the GIMP tests, where no NVIDIA driver is.  The CPU backend the engine falls
 * back to is gh_cpu_backend_ops, which never faults.  Nothing here runs without that variable. */
#include "backend.h"

#include <stdlib.h>

#define SIMULATED_FAILED(what, text, name) what " failed on the GPU: " text " (" name ")"

/* A CPU run, and the strips it has taken, so that a fault can strike on the strip asked for. */
typedef struct
{
  void *cpu_run;
  gh_fault fault;
  int fault_after;
  int strips;
} simulated_run;

/* What the CUDA backend says for each fault (cuda/cuda_backend.cu, `fail`), word for word. */
static gh_status
simulated_fault (gh_fault fault, gh_error *error)
{
  switch (fault)
    {
    case GH_FAULT_OOM:
      gh_error_set (error, GH_ERROR_OUT_OF_MEMORY, "%s",
                    SIMULATED_FAILED ("allocating device memory", "out of memory",
                                      "cudaErrorMemoryAllocation"));
      return GH_ERROR_OUT_OF_MEMORY;
    case GH_FAULT_KERNEL:
      gh_error_set (
          error, GH_ERROR_GPU_FAILED, "%s",
          SIMULATED_FAILED ("launching a kernel", "invalid argument", "cudaErrorInvalidValue"));
      return GH_ERROR_GPU_FAILED;
    case GH_FAULT_COPY:
      gh_error_set (
          error, GH_ERROR_GPU_FAILED, "%s",
          SIMULATED_FAILED ("uploading a strip", "invalid argument", "cudaErrorInvalidValue"));
      return GH_ERROR_GPU_FAILED;
    default: return GH_OK;
    }
}

static void *
simulated_open (const gh_options *options, gh_fault fault, char *description,
                size_t description_size, gh_error *error)
{
  char cpu_line[64];
  void *backend = gh_cpu_backend_ops.open (options, fault, cpu_line, sizeof cpu_line, error);
  if (backend)
    snprintf (description, description_size,
              "simulated GPU for tests (GPUHIST_TEST_SIMULATED_GPU=1; counts on the %s)", cpu_line);
  return backend;
}

static void
simulated_close (void *backend)
{
  gh_cpu_backend_ops.close (backend);
}

/* Out of memory strikes when the run begins, as in the CUDA backend, unless GPUHIST_FAULT_AFTER
 * asks for a later strip: then it strikes there, as a device allocation failing mid-run. */
static void *
simulated_run_begin (void *backend, const gh_run_plan *plan, gh_run_sink *sink, gh_error *error)
{
  if (plan->fault == GH_FAULT_OOM && plan->fault_after <= 1)
    {
      simulated_fault (GH_FAULT_OOM, error);
      return NULL;
    }
  simulated_run *run = calloc (1, sizeof *run);
  if (!run)
    {
      gh_error_set (error, GH_ERROR_OUT_OF_MEMORY, "out of host memory");
      return NULL;
    }
  run->fault = plan->fault;
  run->fault_after = plan->fault_after;
  run->cpu_run = gh_cpu_backend_ops.run_begin (backend, plan, sink, error);
  if (!run->cpu_run)
    {
      free (run);
      return NULL;
    }
  return run;
}

static uint8_t *
simulated_staging (void *data)
{
  simulated_run *run = data;
  return gh_cpu_backend_ops.staging (run->cpu_run);
}

static gh_status
simulated_strip (void *data, size_t bytes, gh_error *error)
{
  simulated_run *run = data;
  const gh_fault fault = run->fault;
  if ((fault == GH_FAULT_OOM || fault == GH_FAULT_KERNEL || fault == GH_FAULT_COPY)
      && run->strips + 1 == run->fault_after)
    return simulated_fault (fault, error); /* the run is lost: the caller aborts it */
  run->strips++;
  return gh_cpu_backend_ops.strip (run->cpu_run, bytes, error);
}

static gh_status
simulated_run_end (void *data, gh_error *error)
{
  simulated_run *run = data;
  gh_status status = gh_cpu_backend_ops.run_end (run->cpu_run, error);
  free (run);
  return status;
}

static void
simulated_run_abort (void *data)
{
  simulated_run *run = data;
  gh_cpu_backend_ops.run_abort (run->cpu_run);
  free (run);
}

const gh_backend_ops gh_simulated_gpu_ops = {
  .open = simulated_open,
  .close = simulated_close,
  .run_begin = simulated_run_begin,
  .staging = simulated_staging,
  .strip = simulated_strip,
  .pattern_strip = NULL,
  .run_end = simulated_run_end,
  .run_abort = simulated_run_abort,
  .clears_scope_sinks = 1, /* its runs are the CPU backend's */
};
