/* gpu-histogram: the benchmark's weighted section (benchmark_weighted.cu), called by
 * benchmark.cu.  C++, internal to the benchmark. */
#ifndef GPUHIST_BENCHMARK_WEIGHTED_H
#define GPUHIST_BENCHMARK_WEIGHTED_H

#include <cuda_runtime.h>

#include "benchmark.h"

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
