/* gpu-histogram: the CUDA backend's device and run, shared by cuda_backend.cu (the backend's
 * operations: devices, strips, timers) and cuda_memory.cu (the spare buffers and what a run
 * allocates).  C++, internal to the CUDA backend. */
#ifndef GPUHIST_CUDA_RUN_H
#define GPUHIST_CUDA_RUN_H

#include "backend.h"
#include "cuda_launch.h"
#include "cuda_scopes.h"
#include "cuda_wide.h"
#include "cuda_weighted.h"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace gh
{

/* A buffer a finished run left for the next: pinning host memory costs about 4 ms per 8 MiB on
 * the H200's machine (tools/cuda-startup.cu), cudaFree synchronises the device, and the
 * plug-in's resident process runs again and again on one engine. */
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
  uint8_t *device_strip;
  unsigned int *strip_bins;                 /* C * 256, 32-bit, one strip */
  unsigned long long *totals[GH_N_METHODS]; /* C * 256, 64-bit, the whole image */
  unsigned int *read_sink;
  cudaEvent_t *rep_start; /* methods * repetitions */
  cudaEvent_t *rep_stop;
  int event_count;
  cudaEvent_t upload_start, upload_stop;
  gh::launch_plan fastest;
  /* 16-bit samples or more than 256 bins: the third band's strategies (cuda_wide.h). */
  bool wide;
  gh::wide_plan wide_fastest;
  gh::wide_plan wide_privatized;
  unsigned int *scratch; /* the global copies, when FASTEST uses them */
  /* Weighted or derived runs (cuda_weighted.h): 64-bit sums a strip, 128-bit totals a run. */
  bool weighted;
  gh::weighted_plan weighted_plans[GH_N_METHODS];
  unsigned long long *strip_sums;              /* out_channels * bins */
  unsigned long long *totals128[GH_N_METHODS]; /* out_channels * bins {hi, lo} pairs */
  uint8_t *device_coverage;
  size_t staging_bytes; /* samples, then the coverage plane at plan.coverage_offset */
  gh::scope_tables scopes;
  int strips;
  gh_status deferred; /* an error met where none could be returned */
  char deferred_message[GH_MESSAGE_SIZE];
};

/* Turns a failed CUDA call into a status and a sentence. */
gh_status fail (gh_error *error, cudaError_t code, const char *what);

#define GH_CUDA_CHECK(call, what)                                                                  \
  do                                                                                               \
    {                                                                                              \
      cudaError_t code_ = (call);                                                                  \
      if (code_ != cudaSuccess)                                                                    \
        return fail (error, code_, what);                                                          \
    }                                                                                              \
  while (0)

/* The device side of a run, and its staging buffers, timers and stream, for its plan (the
 * strategies already planned into run). */
gh_status allocate_run (cuda_run *run, gh_error *error);

/* Frees what the run holds, keeping its buffers for the next run; safe on a half-made run.
 * Errors are ignored: nothing to report to. */
void free_run (cuda_run *run);

/* Frees the spare buffers a backend keeps between runs. */
void free_spares (cuda_backend *backend);

} // namespace gh

#endif /* GPUHIST_CUDA_RUN_H */
