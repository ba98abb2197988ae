/* gpu-histogram: the CUDA backend.  Finds a usable device (or says in words why there is none),
 * moves strips from pinned staging buffers to the device on one stream, launches the kernels of
 * hist_kernels.cuh, and times them with CUDA events.  Every CUDA call is checked; a failure
 * comes back as a gh_status and a message, never as an exit. */
#include "cuda_run.h"

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace
{

using gh::cuda_backend;
using gh::cuda_run;
using gh::fail;

/* Set once a backend has opened the device, so that releasing it never starts CUDA. */
bool device_opened;

/* "580.159.03" from the kernel module, when Linux tells; empty otherwise. */
void
read_driver_release (char *out, size_t size)
{
  out[0] = '\0';
  FILE *file = fopen ("/proc/driver/nvidia/version", "r");
  if (!file)
    return;
  char line[256];
  if (fgets (line, sizeof line, file))
    {
      /* "NVRM version: NVIDIA UNIX [Open ]Kernel Module [for x86_64]  580.159.04  ...": the
       * first word after "Kernel Module" that starts with a digit. */
      const char *module = strstr (line, "Kernel Module");
      for (const char *word = module; word && *word; word += strcspn (word, " \t\n"))
        {
          word += strspn (word, " \t\n");
          if (*word >= '0' && *word <= '9')
            {
              snprintf (out, size, "%.*s", (int) strcspn (word, " \t\n"), word);
              break;
            }
        }
    }
  fclose (file);
}

/* Whether options->device can be opened: the driver's and runtime's versions into *driver and
 * *runtime, and false with the reason in words when there is no usable device. */
bool
probe_devices (const gh_options *options, gh_fault fault, int *driver, int *runtime,
               gh_error *error)
{
  cudaDriverGetVersion (driver);
  cudaRuntimeGetVersion (runtime);
  int count = 0;
  cudaError_t code = cudaErrorInsufficientDriver;
  /* An injected fault stands in for the probe, so that its message can be tested anywhere. */
  if (fault == GH_FAULT_NO_DRIVER)
    *driver = 0;
  else if (fault == GH_FAULT_OLD_DRIVER)
    *driver = *runtime - 1000;
  else if (fault == GH_FAULT_NO_DEVICE)
    {
      *driver = *driver ? *driver : *runtime;
      code = cudaErrorNoDevice;
    }
  else if (*driver != 0)
    code = cudaGetDeviceCount (&count);

  if (*driver == 0)
    {
      gh_error_set (error, GH_ERROR_NO_DRIVER,
                    "no NVIDIA driver is installed or loaded, so the GPU cannot be used");
      return false;
    }
  if (code == cudaErrorInsufficientDriver)
    {
      gh_error_set (error, GH_ERROR_DRIVER_TOO_OLD,
                    "the NVIDIA driver supports CUDA %d.%d, older than the CUDA runtime %d.%d this "
                    "plug-in was built with; update the driver to use the GPU",
                    *driver / 1000, *driver % 1000 / 10, *runtime / 1000, *runtime % 1000 / 10);
      cudaGetLastError ();
      return false;
    }
  if (code == cudaErrorNoDevice || (code == cudaSuccess && count == 0))
    {
      gh_error_set (error, GH_ERROR_NO_DEVICE,
                    "the NVIDIA driver is loaded but no CUDA device is available");
      cudaGetLastError ();
      return false;
    }
  if (code != cudaSuccess)
    {
      fail (error, code, "looking for CUDA devices");
      return false;
    }
  if (options->device >= count)
    {
      gh_error_set (error, GH_ERROR_NO_DEVICE, "there is no CUDA device %d (%d found)",
                    options->device, count);
      return false;
    }
  return true;
}

/* The device in one line: its name, compute capability, SMs and memory, the driver, the runtime. */
void
describe_device (const cudaDeviceProp &p, int driver, int runtime, char *description,
                 size_t description_size)
{
  char release[64], driver_text[96];
  read_driver_release (release, sizeof release);
  if (release[0])
    snprintf (driver_text, sizeof driver_text, "driver %s (CUDA %d.%d)", release, driver / 1000,
              driver % 1000 / 10);
  else
    snprintf (driver_text, sizeof driver_text, "driver for CUDA %d.%d", driver / 1000,
              driver % 1000 / 10);
  snprintf (description, description_size, "%s (sm_%d%d, %d SMs, %.0f GiB), %s, CUDA runtime %d.%d",
            p.name, p.major, p.minor, p.multiProcessorCount, p.totalGlobalMem / 1073741824.0,
            driver_text, runtime / 1000, runtime % 1000 / 10);
}

void *
cuda_open (const gh_options *options, gh_fault fault, char *description, size_t description_size,
           gh_error *error)
{
  int driver = 0, runtime = 0;
  if (!probe_devices (options, fault, &driver, &runtime, error))
    return nullptr;

  cuda_backend *backend = static_cast<cuda_backend *> (calloc (1, sizeof (cuda_backend)));
  if (!backend)
    {
      gh_error_set (error, GH_ERROR_OUT_OF_MEMORY, "out of host memory");
      return nullptr;
    }
  backend->device = options->device;
  cudaError_t code;
  if ((code = cudaSetDevice (backend->device)) != cudaSuccess
      || (code = cudaGetDeviceProperties (&backend->properties, backend->device)) != cudaSuccess
      || (code = cudaFree (nullptr)) != cudaSuccess) /* makes the context now, not mid-run */
    {
      free (backend);
      fail (error, code, "opening the CUDA device");
      return nullptr;
    }
  device_opened = true;
  describe_device (backend->properties, driver, runtime, description, description_size);
  return backend;
}

void
cuda_close (void *data)
{
  cuda_backend *backend = static_cast<cuda_backend *> (data);
  gh::free_spares (backend);
  free (backend);
}

void
cuda_release_device (void)
{
  /* Destroys the primary context, and with it every allocation: only with no engine left. */
  if (device_opened)
    cudaDeviceReset ();
  device_opened = false;
}

/* The run's device and stream. */
gh_status
open_stream (cuda_run *run, gh_error *error)
{
  GH_CUDA_CHECK (cudaSetDevice (run->backend->device), "selecting the device");
  GH_CUDA_CHECK (cudaStreamCreateWithFlags (&run->stream, cudaStreamNonBlocking),
                 "creating a stream");
  return GH_OK;
}

void *
cuda_run_begin (void *data, const gh_run_plan *plan, gh_run_sink *sink, gh_error *error)
{
  cuda_backend *backend = static_cast<cuda_backend *> (data);
  cuda_run *run = static_cast<cuda_run *> (calloc (1, sizeof (cuda_run)));
  if (!run)
    {
      gh_error_set (error, GH_ERROR_OUT_OF_MEMORY, "out of host memory");
      return nullptr;
    }
  run->backend = backend;
  run->plan = *plan;
  run->sink = sink;
  run->staging_bytes = plan->coverage_bytes ? gh_plan_staging_bytes (plan) : plan->strip_capacity;

  /* The histogram first: it may leave PRIVATIZED out of run->plan, and the strips are as its
   * kernels read them. */
  gh_status status = open_stream (run, error);
  if (status == GH_OK)
    status = gh::hist_begin (backend->properties, &run->plan, sink, run->stream, &run->histogram,
                             error);
  if (status == GH_OK)
    status = gh::allocate_run (run, error);
  if (status == GH_OK)
    status
        = gh::scopes_begin (backend->properties, run->plan, sink, run->stream, &run->scopes, error);
  if (status != GH_OK)
    {
      gh::free_run (run);
      return nullptr;
    }
  gh::hist_describe (run->histogram, sink->layout, sizeof sink->layout);
  return run;
}

uint8_t *
cuda_staging (void *data)
{
  cuda_run *run = static_cast<cuda_run *> (data);
  /* Wait until the copy out of this buffer is done before the caller overwrites it. */
  cudaError_t code = cudaEventSynchronize (run->staging_free[run->current]);
  if (code != cudaSuccess && run->deferred == GH_OK)
    {
      gh_error error;
      run->deferred = fail (&error, code, "waiting for an upload");
      snprintf (run->deferred_message, sizeof run->deferred_message, "%s", error.message);
    }
  return run->staging[run->current];
}

/* Launches one method over the strip now on the device. */
gh_status
launch_method (cuda_run *run, gh_method method, size_t bytes, gh_error *error)
{
  if (run->plan.fault == GH_FAULT_KERNEL && run->strips == run->plan.fault_after)
    {
      /* An impossible block size: the real failed-launch path. */
      gh::launch_read_only (run->device_strip, bytes, run->histogram.read_sink, 1, 4096,
                            run->stream);
      GH_CUDA_CHECK (cudaGetLastError (), "launching a kernel");
    }
  const gh::hist_strip strip = { run->device_strip, run->device_coverage, bytes };
  return gh::hist_launch (run->histogram, run->backend->properties, method, strip, run->stream,
                          error);
}

/* Runs the plan's methods on the strip now on the device. */
gh_status
count_strip (cuda_run *run, size_t bytes, gh_error *error)
{
  const gh_run_plan &plan = run->plan;
  const int warmups = run->strips == 1 ? plan.warmup : 0;
  /* The scopes read the strip as uploaded: interleaved, with its coverage plane. */
  const uint8_t *interleaved
      = run->histogram.shape.planar ? run->device_interleaved : run->device_strip;
  const size_t pixels = bytes / (plan.channels * plan.bytes_per_sample);
  gh_status scoped = gh::scopes_count_strip (&run->scopes, run->backend->properties, interleaved,
                                             run->device_coverage, pixels, warmups, run->stream,
                                             run->sink, error);
  if (scoped != GH_OK)
    return scoped;
  if (plan.repetitions == 0)
    {
      gh_status status = launch_method (run, GH_METHOD_FASTEST, bytes, error);
      return status == GH_OK ? gh::hist_fold (run->histogram, GH_METHOD_FASTEST, run->stream, error)
                             : status;
    }

  for (int m = 0; m < GH_N_METHODS; m++)
    {
      if (!(plan.methods & GH_METHOD_BIT (m)))
        continue;
      for (int r = -warmups; r < plan.repetitions; r++)
        {
          /* Each repetition starts from zero; only the last one's counts are kept. */
          gh_status status = gh::hist_clear_strip (run->histogram, run->stream, error);
          if (status != GH_OK)
            return status;
          if (r >= 0)
            GH_CUDA_CHECK (cudaEventRecord (run->rep_start[m * plan.repetitions + r], run->stream),
                           "recording an event");
          status = launch_method (run, static_cast<gh_method> (m), bytes, error);
          if (status != GH_OK)
            return status;
          if (r >= 0)
            GH_CUDA_CHECK (cudaEventRecord (run->rep_stop[m * plan.repetitions + r], run->stream),
                           "recording an event");
        }
      gh_status status
          = gh::hist_fold (run->histogram, static_cast<gh_method> (m), run->stream, error);
      if (status != GH_OK)
        return status;
    }

  GH_CUDA_CHECK (cudaStreamSynchronize (run->stream), "counting a strip");
  for (int m = 0; m < GH_N_METHODS; m++)
    for (int r = 0; r < plan.repetitions && (plan.methods & GH_METHOD_BIT (m)); r++)
      {
        float ms = 0;
        GH_CUDA_CHECK (cudaEventElapsedTime (&ms, run->rep_start[m * plan.repetitions + r],
                                             run->rep_stop[m * plan.repetitions + r]),
                       "reading a timer");
        run->sink->rep_ms[m][r] += ms;
      }
  return GH_OK;
}

gh_status
cuda_strip (void *data, size_t bytes, gh_error *error)
{
  cuda_run *run = static_cast<cuda_run *> (data);
  const bool timed = run->plan.repetitions > 0;
  if (run->deferred != GH_OK)
    {
      gh_error_set (error, run->deferred, "%s", run->deferred_message);
      return run->deferred;
    }
  run->strips++;

  const uint8_t *source = run->staging[run->current];
  /* SLICED counts one plane a block: the strip goes up as it is and is de-interleaved there. */
  uint8_t *target = run->histogram.shape.planar ? run->device_interleaved : run->device_strip;
  if (run->plan.fault == GH_FAULT_COPY && run->strips == run->plan.fault_after)
    source = nullptr; /* a copy from nowhere: the real failed-copy path */
  if (run->plan.fault == GH_FAULT_OOM && run->plan.fault_after > 1
      && run->strips == run->plan.fault_after)
    {
      /* A device allocation failing mid-run, more than any GPU has: the real out-of-memory path. */
      void *too_much = nullptr;
      GH_CUDA_CHECK (cudaMalloc (&too_much, static_cast<size_t> (1) << 56),
                     "allocating device memory");
    }
  if (timed)
    GH_CUDA_CHECK (cudaEventRecord (run->upload_start, run->stream), "recording an event");
  GH_CUDA_CHECK (cudaMemcpyAsync (target, source, bytes, cudaMemcpyHostToDevice, run->stream),
                 "uploading a strip");
  if (run->plan.coverage_bytes && source)
    {
      const size_t pixels = bytes / (run->plan.channels * run->plan.bytes_per_sample);
      GH_CUDA_CHECK (cudaMemcpyAsync (run->device_coverage,
                                      run->staging[run->current] + run->plan.coverage_offset,
                                      pixels * run->plan.coverage_bytes, cudaMemcpyHostToDevice,
                                      run->stream),
                     "uploading a strip's coverage");
    }
  if (timed)
    GH_CUDA_CHECK (cudaEventRecord (run->upload_stop, run->stream), "recording an event");
  GH_CUDA_CHECK (cudaEventRecord (run->staging_free[run->current], run->stream),
                 "recording an event");
  if (run->histogram.shape.planar)
    {
      const int channels = run->plan.channels;
      const size_t pixels = bytes / (2 * channels);
      gh::launch_deinterleave16 (run->backend->properties,
                                 reinterpret_cast<const uint16_t *> (target), pixels, channels,
                                 gh::planar_stride (pixels),
                                 reinterpret_cast<uint16_t *> (run->device_strip), run->stream);
      GH_CUDA_CHECK (cudaGetLastError (), "de-interleaving a strip");
    }

  gh_status status = count_strip (run, bytes, error);
  if (status != GH_OK)
    return status;
  if (timed)
    {
      float ms = 0;
      GH_CUDA_CHECK (cudaEventElapsedTime (&ms, run->upload_start, run->upload_stop),
                     "reading a timer");
      run->sink->upload_ms += ms;
    }
  if (run->plan.repetitions == 0)
    run->current ^= 1;
  return GH_OK;
}

gh_status
cuda_pattern_strip (void *data, gh_pattern pattern, size_t bytes, uint64_t offset, gh_error *error)
{
  cuda_run *run = static_cast<cuda_run *> (data);
  run->strips++;
  if (pattern == GH_PATTERN_FLAT)
    GH_CUDA_CHECK (cudaMemsetAsync (run->device_strip, GH_FLAT_VALUE, bytes, run->stream),
                   "making a flat strip");
  else
    {
      gh::launch_noise (run->device_strip, bytes, offset, run->stream);
      GH_CUDA_CHECK (cudaGetLastError (), "making a noise strip");
    }
  if (run->plan.coverage_bytes)
    {
      /* Device-made strips are fully covered. */
      const size_t pixels = bytes / (run->plan.channels * run->plan.bytes_per_sample);
      GH_CUDA_CHECK (cudaMemsetAsync (run->device_coverage, 0xFF, pixels * run->plan.coverage_bytes,
                                      run->stream),
                     "making a strip's coverage");
    }
  return count_strip (run, bytes, error);
}

gh_status
collect (cuda_run *run, gh_error *error)
{
  GH_CUDA_CHECK (cudaStreamSynchronize (run->stream), "finishing the count");
  gh_status status = gh::scopes_collect (&run->scopes, run->sink, error);
  return status == GH_OK ? gh::hist_collect (run->histogram, run->sink, error) : status;
}

gh_status
cuda_run_end (void *data, gh_error *error)
{
  cuda_run *run = static_cast<cuda_run *> (data);
  gh_status status = run->deferred;
  if (status != GH_OK)
    gh_error_set (error, status, "%s", run->deferred_message);
  else
    status = collect (run, error);
  gh::free_run (run);
  return status;
}

void
cuda_run_abort (void *data)
{
  gh::free_run (static_cast<cuda_run *> (data));
}

} // namespace

/* clears_scope_sinks 0: the engine hands the result's scope tables over cleared, and run_end
 * adds the device's tables into them. */
extern "C" const gh_backend_ops gh_cuda_backend_ops = {
  cuda_open,          cuda_close,   cuda_run_begin, cuda_staging,        cuda_strip,
  cuda_pattern_strip, cuda_run_end, cuda_run_abort, cuda_release_device, 0,
};
