/* gpu-histogram: the benchmark's weighted section (benchmark_weighted.cu), called by
 * benchmark.cu, and the check the benchmark's files use.  C++, internal to the benchmark. */
#ifndef GPUHIST_BENCHMARK_WEIGHTED_H
#define GPUHIST_BENCHMARK_WEIGHTED_H

#include <cuda_runtime.h>

#include "benchmark.h"

/* Returns GH_ERROR_GPU_FAILED, with the call's error, from a function that has `error`. */
#define BENCH_CHECK(call, what)                                                                    \
  do                                                                                               \
    {                                                                                              \
      cudaError_t code_ = (call);                                                                  \
      if (code_ != cudaSuccess)                                                                    \
        {                                                                                          \
          gh_error_set (error, GH_ERROR_GPU_FAILED, "%s: %s", what, cudaGetErrorString (code_));   \
          return GH_ERROR_GPU_FAILED;                                                              \
        }                                                                                          \
    }                                                                                              \
  while (0)

namespace gh
{

/* 1 GiB of RGBA (noise, the photo tiled, one flat colour) with a 256 MiB 8-bit coverage plane,
 * alpha-weighted, six histograms (R, G, B, A, Value, Luminance): the read-only pass over both,
 * FASTEST, the privatized kernel and global atomics, each verified against
 * gh_reference_count_spec before it is timed.  Writes Markdown tables. */
gh_status bench_weighted (FILE *out, const cudaDeviceProp &device, cudaStream_t stream,
                          const gh_bench_image *photo, int repetitions, gh_error *error);

} // namespace gh

#endif /* GPUHIST_BENCHMARK_WEIGHTED_H */
