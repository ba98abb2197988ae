/* gpu-histogram: the CUDA backend's device and run, shared by cuda_backend.cu (the backend's
 * operations: devices, strips, timers) and cuda_memory.cu (the spare buffers and what a run
 * allocates).  A run's tables are the histogram's (cuda_histogram.h) and the scopes'
 * (cuda_scopes.h).  C++, internal to the CUDA backend. */
#ifndef GPUHIST_CUDA_RUN_H
#define GPUHIST_CUDA_RUN_H

#include "backend.h"
#include "cuda_check.h"
#include "cuda_histogram.h"
#include "cuda_scopes.h"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace gh
{

/* A buffer a finished run left for the next: pinning host memory is slow (docs/BENCHMARKS.md),
 * cudaFree synchronises the device, and the plug-in's resident process runs again and again on
 * one engine. */
struct spare_buffer
{
  void *data;
  size_t bytes;
};

struct cuda_backend
{
  int device;
  cudaDeviceProp properties;
  gh_layout default_layout;
  spare_buffer spare[4];     /* staging buffers (two a run when untimed) */
  spare_buffer spare_device; /* the device's strip buffer (cudaMalloc, cudaFree synchronise) */
};

struct cuda_run
{
  cuda_backend *backend;
  gh_run_plan plan;
  gh_run_sink *sink;
  cudaStream_t stream;
  uint8_t *staging[2];
  /* SLICED: the strip as uploaded, interleaved; de-interleaved on the device into device_strip. */
  uint8_t *device_interleaved;
  /* What the pointers above and device_strip came from, with the buffers' real sizes. */
  spare_buffer staging_held[2], device_strip_held;
  cudaEvent_t staging_free[2];
  int current;
  uint8_t *device_strip;    /* as the histogram's kernels read it (hist_shape.planar) */
  uint8_t *device_coverage; /* the strip's coverage plane, in runs with one */
  cudaEvent_t *rep_start;   /* methods * repetitions */
  cudaEvent_t *rep_stop;
  int event_count;
  cudaEvent_t upload_start, upload_stop;
  size_t staging_bytes; /* samples, then the coverage plane at plan.coverage_offset */
  gh::hist_tables histogram;
  gh::scope_tables scopes;
  int strips;
  gh_status deferred; /* an error met where none could be returned */
  char deferred_message[GH_MESSAGE_SIZE];
};

/* A run's staging buffers, strip buffers and timers, for its plan (the histogram already begun
 * on the run's stream, so that the strips are as its kernels read them). */
gh_status allocate_run (cuda_run *run, gh_error *error);

/* Frees what the run holds, keeping its buffers for the next run; safe on a half-made run.
 * Errors are ignored: nothing to report to. */
void free_run (cuda_run *run);

/* Frees the spare buffers a backend keeps between runs. */
void free_spares (cuda_backend *backend);

} // namespace gh

#endif /* GPUHIST_CUDA_RUN_H */
