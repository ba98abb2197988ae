/* gpu-histogram: how each kernel is launched on a given device: grid sizes, the fastest
 * kernel's layout, and the template dispatch over channel counts.  C++, internal to the CUDA
 * backend and the benchmark. */
#ifndef GPUHIST_CUDA_LAUNCH_H
#define GPUHIST_CUDA_LAUNCH_H

#include <cuda_runtime.h>

#include "backend.h"

namespace gh
{

/* How FASTEST walks a strip (bits; hist_kernels.cuh).  Every walk issues its first step's loads
 * before the tables are zeroed, so that the zeroing waits out their latency, and zeroes and
 * merges with 16-byte accesses, a quarter of the instructions of 4-byte ones.  The engine runs
 * engine_walk (channels); the benchmark times others (kernels/cli/benchmark_schedule.cu). */
enum walk
{
  kBytePerm = 8,   /* lane columns with byte-aligned bins: one byte permute an address */
  kFullSteps = 16, /* the loop takes whole steps only, unchecked */
};

/* The walk the engine runs, for every channel count: byte-aligned bins (a sample's counter
 * address is one byte permute) and an unchecked loop over the whole steps.  A step is bound by
 * the instructions it issues, and these two halve them (docs/BENCHMARKS.md, "What moved, and
 * why"). */
constexpr int
engine_walk (int /* channels */)
{
  return kBytePerm | kFullSteps;
}

/* Threads in a block of FASTEST. */
constexpr int kFastestThreads = 1024;

/* How FASTEST runs on this device for this channel count. */
struct launch_plan
{
  int layout; /* gh::layout */
  int threads;
  int blocks;
  size_t shared_bytes; /* dynamic shared memory a block */
  int flush_every;     /* packed layout: steps between flushes of the 16-bit counters */
};

/* Chooses the layout from the device's shared memory (or checks a forced one) and sizes the
 * grid from the occupancy calculator.  GH_ERROR_UNSUPPORTED for a forced layout that does not
 * fit, never a failed launch. */
gh_status plan_fastest (const cudaDeviceProp &device, int channels, gh_layout requested,
                        launch_plan *plan, gh_error *error);
/* The plan in words. */
void describe_plan (const launch_plan &plan, int channels, char *out, size_t size);

/* Grid of the simple kernels: every thread slot of every SM, in blocks of 256. */
int full_grid (const cudaDeviceProp &device, int threads);

void launch_global_atomics (int channels, const uint8_t *in, size_t n, unsigned int *bins,
                            int blocks, int threads, cudaStream_t stream);
void launch_privatized (int channels, const uint8_t *in, size_t n, unsigned int *bins, int blocks,
                        int threads, cudaStream_t stream);
void launch_fastest (int channels, const launch_plan &plan, const uint8_t *in, size_t n,
                     unsigned int *bins, cudaStream_t stream);
void launch_read_only (const uint8_t *in, size_t n, unsigned int *sink, int blocks, int threads,
                       cudaStream_t stream);
/* One method as the engine runs it, on full grids. */
void launch_method (gh_method method, int channels, const cudaDeviceProp &device,
                    const launch_plan &fastest, const uint8_t *in, size_t n, unsigned int *bins,
                    unsigned int *sink, cudaStream_t stream);
void launch_fold (unsigned int *strip_bins, unsigned long long *totals, int count,
                  cudaStream_t stream);
void launch_noise (uint8_t *out, size_t n, unsigned long long offset, cudaStream_t stream);

} // namespace gh

#endif /* GPUHIST_CUDA_LAUNCH_H */
