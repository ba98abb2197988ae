/* gpu-histogram: BENCHMARK ONLY, for one device run: the fastest kernel as it was before the
 * schedule of hist_kernels.cuh (zeroed first, a grid-stride loop to the end), verbatim but for
 * its names, so that the benchmark times the old and the new kernel in the same run
 * (cuda_launch.cu, schedule kBefore).  To be removed once the run is recorded in
 * docs/BENCHMARKS.md. */
#ifndef GPUHIST_FASTEST_BEFORE_CUH
#define GPUHIST_FASTEST_BEFORE_CUH

#include "hist_kernels.cuh"

namespace gh_before
{

using namespace gh;

/* Loads one step's vectors for this thread; valid[k] says which exist. */
template <int C, int THREADS, int V>
__device__ __forceinline__ void
load_step_before (const uint4 *vec, size_t base, size_t units, size_t vectors, uint4 (&q)[V],
                  bool (&valid)[V])
{
#pragma unroll
  for (int k = 0; k < V; k++)
    {
      const size_t v = C == 3 ? (base + threadIdx.x) * V + k : base + k * THREADS + threadIdx.x;
      valid[k] = C == 3 ? base + threadIdx.x < units : v < vectors;
      q[k] = valid[k] ? __ldcs (&vec[v]) : make_uint4 (0, 0, 0, 0);
    }
}

/* One function of about 100 lines on purpose: the zeroing, the software-pipelined loads, the
 * counting, the flushes and the merge are one pass whose load/atomic order and register use were
 * tuned and checked in SASS as a whole (docs/BENCHMARKS.md, "The fastest kernel's layouts" and
 * "What moved, and why"); splitting it is a change to measure again, not a tidy-up. */
template <int C, int L, int THREADS>
__global__ void
__launch_bounds__ (THREADS) fastest_kernel_before (const uint8_t *__restrict__ in, size_t n,
                                                   unsigned int *bins, int flush_every)
{
  extern __shared__ unsigned int sh[];
  using traits = fastest_traits<C, L>;
  constexpr int pairs = C * kBins / 2;
  constexpr int owned = (pairs + THREADS - 1) / THREADS;
  const unsigned int lane = threadIdx.x & 31u;

  for (int i = threadIdx.x; i < traits::words; i += THREADS)
    sh[i] = 0;
  unsigned int low[owned], high[owned];
#pragma unroll
  for (int k = 0; k < owned; k++)
    low[k] = high[k] = 0;
  __syncthreads ();

  /* Every thread of a block takes the same number of steps, so the flush barrier is uniform.
   * For 1, 2 and 4 channels every 16-byte load starts on a pixel, and load k of a step covers
   * one contiguous run of THREADS vectors (coalesced).  For 3 channels a thread reads 48
   * contiguous bytes, so that each load's first channel is known at compile time.  The next
   * step's loads are issued before this step is counted: with one 1024-thread block an SM (the
   * wide layout at 4 channels), that is what keeps enough bytes in flight. */
  const uint4 *vec = reinterpret_cast<const uint4 *> (in);
  const size_t vectors = n / 16;
  const size_t units = C == 3 ? n / traits::unit : vectors;
  const size_t per_step = C == 3 ? THREADS : static_cast<size_t> (THREADS) * traits::vectors;
  const size_t grid_step = gridDim.x * per_step;
  uint4 q[traits::vectors];
  bool valid[traits::vectors];
  size_t base = blockIdx.x * per_step;
  load_step_before<C, THREADS, traits::vectors> (vec, base, units, vectors, q, valid);
  int steps_since_flush = 0;
  for (; base < units; base += grid_step)
    {
      uint4 next[traits::vectors];
      bool next_valid[traits::vectors];
      load_step_before<C, THREADS, traits::vectors> (vec, base + grid_step, units, vectors, next,
                                                     next_valid);
#pragma unroll
      for (int k = 0; k < traits::vectors; k++)
        if (valid[k])
          count_vector<C, L> (sh, lane, q[k], C == 3 ? 16 * k : 0);
      if (L == kPacked && ++steps_since_flush == flush_every)
        {
          __syncthreads ();
          flush_packed<C, THREADS> (sh, low, high);
          __syncthreads ();
          steps_since_flush = 0;
        }
#pragma unroll
      for (int k = 0; k < traits::vectors; k++)
        {
          q[k] = next[k];
          valid[k] = next_valid[k];
        }
    }
  const size_t tail_start = C == 3 ? units * traits::unit : vectors * 16;

  /* The bytes after the last whole unit: fewer than one unit in all. */
  for (size_t i = tail_start + blockIdx.x * static_cast<size_t> (THREADS) + threadIdx.x; i < n;
       i += gridDim.x * static_cast<size_t> (THREADS))
    count_sample<C, L> (sh, lane, static_cast<int> (i % C), in[i]);
  __syncthreads ();

  if (L == kPacked)
    {
      flush_packed<C, THREADS> (sh, low, high);
#pragma unroll
      for (int k = 0; k < owned; k++)
        {
          const int w = threadIdx.x + k * THREADS;
          if (w < pairs)
            {
              if (low[k])
                atomicAdd (&bins[2 * w], low[k]);
              if (high[k])
                atomicAdd (&bins[2 * w + 1], high[k]);
            }
        }
    }
  else if (L == kWide)
    {
      for (int bin = threadIdx.x; bin < C * kBins; bin += THREADS)
        {
          unsigned int sum = 0;
          for (int l = 0; l < kWarp; l++)
            sum += sh[(bin << 5) | ((l + bin) & 31)];
          if (sum)
            atomicAdd (&bins[bin], sum);
        }
    }
  else
    {
      for (int bin = threadIdx.x; bin < C * kBins; bin += THREADS)
        if (sh[bin])
          atomicAdd (&bins[bin], sh[bin]);
    }
}

} // namespace gh_before

#endif /* GPUHIST_FASTEST_BEFORE_CUH */
