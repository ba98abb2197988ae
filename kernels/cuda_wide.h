/* gpu-histogram: planning and launching the wide-table kernels (wide_kernels.cuh): 16-bit samples
 * in 256 to 65536 bins.  C++, internal to the CUDA backend and the benchmark. */
#ifndef GPUHIST_CUDA_WIDE_H
#define GPUHIST_CUDA_WIDE_H

#include <cuda_runtime.h>

#include "backend.h"

namespace gh
{

struct wide_plan
{
  gh_strategy strategy; /* never AUTO once planned */
  int threads;
  int blocks;
  size_t shared_bytes;
  int slice;       /* bins a slice (SLICED; bins otherwise) */
  int passes;      /* slices: ceil (bins / slice); a block counts one, in one launch */
  int copies;      /* GLOBAL_COPIES: full tables in global memory */
  int flush_every; /* NARROW: steps between flushes */
};

/* Picks FASTEST's strategy for this device, channel count and bin count, or checks a forced one:
 * GH_ERROR_UNSUPPORTED, with the sizes, when it cannot fit, never a failed launch. */
gh_status plan_wide (const cudaDeviceProp &device, int channels, int bins, gh_strategy requested,
                     wide_plan *plan, gh_error *error);
void describe_wide_plan (const wide_plan &plan, int channels, int bins, char *out, size_t size);

/* Bytes of global scratch the plan needs (the copies), 0 for the others. */
size_t wide_scratch_bytes (const wide_plan &plan, int channels, int bins);

void launch_wide_global_atomics (int channels, const uint16_t *in, size_t samples, int shift,
                                 int bins, unsigned int *out, int blocks, int threads,
                                 cudaStream_t stream);
void launch_wide_fastest (int channels, const wide_plan &plan, const uint16_t *in, size_t samples,
                          int shift, int bins, unsigned int *out, unsigned int *scratch,
                          cudaStream_t stream);

} // namespace gh

#endif /* GPUHIST_CUDA_WIDE_H */
