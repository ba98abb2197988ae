/* gpu-histogram: planning and launching the kernels of weighted and derived runs
 * (weighted_kernels.cuh, weighted_fast_kernel.cuh).  C++, internal to the CUDA backend and the
 * benchmark. */
#ifndef GPUHIST_CUDA_WEIGHTED_H
#define GPUHIST_CUDA_WEIGHTED_H

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "backend.h"

namespace gh
{

/* One strip of a weighted or derived run, on the device. */
struct weighted_job
{
  const uint8_t *samples;  /* interleaved, 1 or 2 bytes a sample */
  const uint8_t *coverage; /* one 8- or 16-bit value a pixel; NULL without a plane */
  size_t pixels;
  int channels, bytes_per_sample, coverage_bytes, alpha_weighted, derived;
  int bins, shift;
  gh_binning binning;
  gh_luminance luminance;
  unsigned long long *out; /* out_channels * bins, 64-bit, this strip */
};

/* How one method of a weighted run counts. */
enum weighted_kind
{
  kLaneColumns32, /* 8-bit samples: 32-bit per-lane columns, flushed (weighted_fast_kernel) */
  kShared64,      /* one table of 64-bit counters a block (weighted_privatized_kernel) */
  kGlobal64       /* 64-bit atomics into the strip's table (weighted_global_atomics_kernel) */
};

struct weighted_plan
{
  weighted_kind kind;
  int blocks, threads;
  size_t shared_bytes;
  int flush_every; /* kLaneColumns32: steps between flushes of the 32-bit columns */
};

/* The largest weight one sample adds: coverage full scale times alpha full scale. */
unsigned int weighted_max_weight (const gh_run_plan &run);

/* FASTEST: lane columns where they fit and cannot overflow between flushes, else one 64-bit
 * table a block, else global 64-bit atomics.  Never fails for want of room. */
gh_status plan_weighted_fastest (const cudaDeviceProp &device, const gh_run_plan &run,
                                 weighted_plan *plan, gh_error *error);
/* PRIVATIZED (the seed's pattern with 64-bit counters): UNSUPPORTED where the table does not
 * fit a block. */
gh_status plan_weighted_privatized (const cudaDeviceProp &device, const gh_run_plan &run,
                                    weighted_plan *plan, gh_error *error);
gh_status plan_weighted_global (const cudaDeviceProp &device, weighted_plan *plan);
void describe_weighted_plan (const weighted_plan &plan, const gh_run_plan &run, char *out,
                             size_t size);

/* A strip's job: samples and coverage on the device, `pixels` pixels, into the 64-bit table. */
weighted_job make_weighted_job (const gh_run_plan &run, const uint8_t *samples,
                                const uint8_t *coverage, size_t pixels, unsigned long long *out);
void launch_weighted (const weighted_plan &plan, const weighted_job &job, int channels,
                      int out_channels, cudaStream_t stream);
void launch_read_only2 (const uint8_t *a, size_t na, const uint8_t *b, size_t nb,
                        unsigned int *sink, int blocks, int threads, cudaStream_t stream);
void launch_fold128 (unsigned long long *strip, unsigned long long *totals, int count,
                     cudaStream_t stream);

} // namespace gh

#endif /* GPUHIST_CUDA_WEIGHTED_H */
