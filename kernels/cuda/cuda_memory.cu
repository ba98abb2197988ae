/* gpu-histogram: the CUDA backend's memory: the pinned and device buffers kept between runs,
 * and what a run allocates (staging, strips, timers) and frees. */
#include "cuda_run.h"

#include <cstdlib>
#include <utility>

namespace gh
{

gh_status
fail (gh_error *error, cudaError_t code, const char *what)
{
  gh_status status
      = code == cudaErrorMemoryAllocation ? GH_ERROR_OUT_OF_MEMORY : GH_ERROR_GPU_FAILED;
  gh_error_set (error, status, "%s failed on the GPU: %s (%s)", what, cudaGetErrorString (code),
                cudaGetErrorName (code));
  cudaGetLastError (); /* clear a non-sticky error so that later calls report their own */
  return status;
}

namespace
{

/* A pinned buffer of at least `bytes` into *held (with its real size): a spare one when there
 * is one, else a new one. */
cudaError_t
take_pinned (cuda_backend *backend, size_t bytes, spare_buffer *held)
{
  for (spare_buffer &spare : backend->spare)
    if (spare.data && spare.bytes >= bytes)
      {
        *held = spare;
        spare.data = nullptr;
        return cudaSuccess;
      }
  held->bytes = bytes;
  return cudaHostAlloc (&held->data, bytes, cudaHostAllocDefault);
}

/* Keeps a run's pinned buffer for the next run; when every slot is taken, in place of a smaller
 * spare, else frees it. */
void
give_back_pinned (cuda_backend *backend, spare_buffer held)
{
  spare_buffer *smallest = nullptr;
  for (spare_buffer &spare : backend->spare)
    {
      if (!spare.data)
        {
          spare = held;
          return;
        }
      if (!smallest || spare.bytes < smallest->bytes)
        smallest = &spare;
    }
  if (smallest->bytes < held.bytes)
    std::swap (*smallest, held);
  cudaFreeHost (held.data);
}

/* The device's strip buffer of at least `bytes`: the spare one when it is large enough. */
cudaError_t
take_device_strip (cuda_backend *backend, size_t bytes, spare_buffer *held)
{
  spare_buffer &spare = backend->spare_device;
  if (spare.data && spare.bytes >= bytes)
    {
      *held = spare;
      spare.data = nullptr;
      return cudaSuccess;
    }
  held->bytes = bytes;
  return cudaMalloc (&held->data, bytes);
}

/* Keeps the larger of a run's strip buffer and the spare one. */
void
give_back_device_strip (cuda_backend *backend, spare_buffer held)
{
  spare_buffer &spare = backend->spare_device;
  if (spare.data && spare.bytes >= held.bytes)
    {
      cudaFree (held.data);
      return;
    }
  cudaFree (spare.data);
  spare = held;
}
void
destroy_events (cuda_run *run)
{
  for (int i = 0; i < run->event_count; i++)
    {
      cudaEventDestroy (run->rep_start[i]);
      cudaEventDestroy (run->rep_stop[i]);
    }
  free (run->rep_start);
  free (run->rep_stop);
  run->event_count = 0;
}

/* The pinned staging buffers, the device's strip buffer (with its interleaved twin where the
 * histogram reads planar strips) and its coverage plane. */
gh_status
allocate_strips (cuda_run *run, gh_error *error)
{
  const gh_run_plan &plan = run->plan;
  /* A planar strip pads each plane to 16 bytes. */
  const size_t planar_bytes
      = run->histogram.shape.planar
            ? plan.channels * gh::planar_stride (plan.strip_capacity / (2 * plan.channels)) * 2
            : 0;
  /* The second staging buffer only pays when the caller fills it while the GPU counts. */
  for (int i = 0; i < (plan.repetitions == 0 ? 2 : 1); i++)
    {
      GH_CUDA_CHECK (take_pinned (run->backend, run->staging_bytes, &run->staging_held[i]),
                     "allocating pinned host memory");
      run->staging[i] = static_cast<uint8_t *> (run->staging_held[i].data);
      GH_CUDA_CHECK (cudaEventCreateWithFlags (&run->staging_free[i], cudaEventDisableTiming),
                     "creating an event");
    }
  GH_CUDA_CHECK (take_device_strip (
                     run->backend,
                     (planar_bytes > plan.strip_capacity ? planar_bytes : plan.strip_capacity) + 16,
                     &run->device_strip_held),
                 "allocating device memory for a strip");
  run->device_strip = static_cast<uint8_t *> (run->device_strip_held.data);
  if (planar_bytes)
    GH_CUDA_CHECK (cudaMalloc (&run->device_interleaved, plan.strip_capacity + 16),
                   "allocating device memory for a strip");
  if (plan.coverage_bytes)
    GH_CUDA_CHECK (
        cudaMalloc (&run->device_coverage, gh_plan_strip_pixels (&plan) * plan.coverage_bytes + 16),
        "allocating device memory for the coverage");
  return GH_OK;
}

/* A timed run's events: one pair a repetition of each method, and the upload's pair. */
gh_status
allocate_timers (cuda_run *run, gh_error *error)
{
  const int events = GH_N_METHODS * run->plan.repetitions;
  run->rep_start = static_cast<cudaEvent_t *> (calloc (events, sizeof (cudaEvent_t)));
  run->rep_stop = static_cast<cudaEvent_t *> (calloc (events, sizeof (cudaEvent_t)));
  if (!run->rep_start || !run->rep_stop)
    {
      gh_error_set (error, GH_ERROR_OUT_OF_MEMORY, "out of host memory");
      return GH_ERROR_OUT_OF_MEMORY;
    }
  for (; run->event_count < events; run->event_count++)
    {
      GH_CUDA_CHECK (cudaEventCreate (&run->rep_start[run->event_count]), "creating an event");
      GH_CUDA_CHECK (cudaEventCreate (&run->rep_stop[run->event_count]), "creating an event");
    }
  GH_CUDA_CHECK (cudaEventCreate (&run->upload_start), "creating an event");
  GH_CUDA_CHECK (cudaEventCreate (&run->upload_stop), "creating an event");
  return GH_OK;
}

} // namespace

gh_status
allocate_run (cuda_run *run, gh_error *error)
{
  if (run->plan.fault == GH_FAULT_OOM && run->plan.fault_after <= 1)
    {
      /* More than any GPU has: the real out-of-memory path. */
      void *too_much = nullptr;
      GH_CUDA_CHECK (cudaMalloc (&too_much, static_cast<size_t> (1) << 56),
                     "allocating device memory");
    }
  gh_status status = allocate_strips (run, error);
  if (status == GH_OK && run->plan.repetitions > 0)
    status = allocate_timers (run, error);
  return status;
}

void
free_run (cuda_run *run)
{
  if (run->stream)
    cudaStreamSynchronize (run->stream);
  scopes_free (&run->scopes);
  for (int i = 0; i < 2; i++)
    {
      if (run->staging[i])
        give_back_pinned (run->backend, run->staging_held[i]);
      if (run->staging_free[i])
        cudaEventDestroy (run->staging_free[i]);
    }
  if (run->device_strip)
    give_back_device_strip (run->backend, run->device_strip_held);
  gh::hist_free (&run->histogram);
  cudaFree (run->device_interleaved);
  cudaFree (run->device_coverage);
  destroy_events (run);
  if (run->upload_start)
    cudaEventDestroy (run->upload_start);
  if (run->upload_stop)
    cudaEventDestroy (run->upload_stop);
  if (run->stream)
    cudaStreamDestroy (run->stream);
  cudaGetLastError ();
  free (run);
}

void
free_spares (cuda_backend *backend)
{
  for (spare_buffer &spare : backend->spare)
    if (spare.data)
      cudaFreeHost (spare.data);
  cudaFree (backend->spare_device.data);
  cudaGetLastError ();
}

} // namespace gh
