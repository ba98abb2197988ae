/* gpu-histogram: kernels for tables wider than 256 bins of 8-bit samples: 16-bit samples binned
 * into 256 to 65536 bins a channel.  This is the glossary's third band: once the tables stop
 * fitting a block's shared memory, the moves are narrower counters, a slice of the bins per pass,
 * or a handful of full copies in global memory.  Device code only; cuda_wide.cu launches them.
 *
 * Samples are uint16_t; a strip starts on a pixel, so sample i belongs to channel i % C, and a
 * 16-byte load holds samples 8v .. 8v + 7.  Every kernel adds into a 32-bit table of C * bins. */
#ifndef GPUHIST_WIDE_KERNELS_CUH
#define GPUHIST_WIDE_KERNELS_CUH

#include <cstddef>
#include <cstdint>

namespace gh
{

/* Calls count (channel, bin) for the 8 samples of one 16-byte load. */
template <int C, typename F>
__device__ __forceinline__ void
for_each_sample (const uint4 &q, size_t first_sample, int shift, F count)
{
  const unsigned int words[4] = { q.x, q.y, q.z, q.w };
#pragma unroll
  for (int j = 0; j < 8; j++)
    {
      const unsigned int sample = (words[j >> 1] >> (16 * (j & 1))) & 0xFFFFu;
      count (static_cast<int> ((first_sample + j) % C), sample >> shift);
    }
}

/* Visits every sample of [0, n) once across the grid: 16-byte loads, then the tail. */
template <int C, typename F>
__device__ __forceinline__ void
for_each_sample_in_grid (const uint16_t *__restrict__ in, size_t n, int shift, F count)
{
  const uint4 *vec = reinterpret_cast<const uint4 *> (in);
  const size_t vectors = n / 8;
  const size_t step = gridDim.x * static_cast<size_t> (blockDim.x);
  const size_t first = blockIdx.x * static_cast<size_t> (blockDim.x) + threadIdx.x;
  for (size_t v = first; v < vectors; v += step)
    for_each_sample<C> (__ldcs (&vec[v]), v * 8, shift, count);
  for (size_t i = vectors * 8 + first; i < n; i += step)
    count (static_cast<int> (i % C), static_cast<unsigned int> (in[i]) >> shift);
}

/* Global atomics: one atomicAdd per sample into the device-wide table. */
template <int C>
__global__ void
wide_global_atomics_kernel (const uint16_t *__restrict__ in, size_t n, int shift, int bins,
                            unsigned int *out)
{
  for_each_sample_in_grid<C> (in, n, shift,
                              [&] (int c, unsigned int b) { atomicAdd (&out[c * bins + b], 1u); });
}

/* A private 32-bit copy per block of bins [lo, lo + slice) of every channel: the whole table
 * when slice == bins ("shared"), one slice of a pass otherwise ("sliced"). */
template <int C>
__global__ void
wide_shared_kernel (const uint16_t *__restrict__ in, size_t n, int shift, int bins, int lo,
                    int slice, unsigned int *out)
{
  extern __shared__ unsigned int table[];
  for (int i = threadIdx.x; i < C * slice; i += blockDim.x)
    table[i] = 0;
  __syncthreads ();
  for_each_sample_in_grid<C> (in, n, shift, [&] (int c, unsigned int b) {
    const unsigned int at = b - static_cast<unsigned int> (lo);
    if (at < static_cast<unsigned int> (slice))
      atomicAdd (&table[c * slice + at], 1u);
  });
  __syncthreads ();
  for (int i = threadIdx.x; i < C * slice; i += blockDim.x)
    if (table[i])
      atomicAdd (&out[(i / slice) * bins + lo + i % slice], table[i]);
}

/* Narrow counters: two 16-bit counters a word, C * bins / 2 words.  Every thread of a block
 * takes the same number of steps, and every flush_every steps the block adds its counters into
 * the global table and clears them, before any can reach 2^16. */
template <int C>
__global__ void
wide_narrow_kernel (const uint16_t *__restrict__ in, size_t n, int shift, int bins, int flush_every,
                    unsigned int *out)
{
  extern __shared__ unsigned int pairs[];
  const int words = C * bins / 2;
  for (int i = threadIdx.x; i < words; i += blockDim.x)
    pairs[i] = 0;
  __syncthreads ();

  auto count = [&] (int c, unsigned int b) {
    const unsigned int index = static_cast<unsigned int> (c * bins) + b;
    atomicAdd (&pairs[index >> 1], 1u << (16 * (index & 1u)));
  };
  auto flush = [&] () {
    __syncthreads ();
    for (int i = threadIdx.x; i < words; i += blockDim.x)
      {
        const unsigned int x = pairs[i];
        if (x)
          {
            pairs[i] = 0;
            if (x & 0xFFFFu)
              atomicAdd (&out[2 * i], x & 0xFFFFu);
            if (x >> 16)
              atomicAdd (&out[2 * i + 1], x >> 16);
          }
      }
    __syncthreads ();
  };

  const uint4 *vec = reinterpret_cast<const uint4 *> (in);
  const size_t vectors = n / 8;
  const size_t block_step = gridDim.x * static_cast<size_t> (blockDim.x);
  int steps = 0;
  for (size_t base = blockIdx.x * static_cast<size_t> (blockDim.x); base < vectors;
       base += block_step)
    {
      const size_t v = base + threadIdx.x;
      if (v < vectors)
        for_each_sample<C> (__ldcs (&vec[v]), v * 8, shift, count);
      if (++steps == flush_every)
        {
          flush ();
          steps = 0;
        }
    }
  for (size_t i = vectors * 8 + blockIdx.x * static_cast<size_t> (blockDim.x) + threadIdx.x; i < n;
       i += block_step)
    count (static_cast<int> (i % C), static_cast<unsigned int> (in[i]) >> shift);
  flush ();
}

/* Global copies: block b adds into copy b % copies of the full table, in global memory, so that
 * each address has a few blocks queueing on it instead of the whole grid. */
template <int C>
__global__ void
wide_global_copies_kernel (const uint16_t *__restrict__ in, size_t n, int shift, int bins,
                           int copies, unsigned int *scratch)
{
  unsigned int *copy = scratch + static_cast<size_t> (blockIdx.x % copies) * C * bins;
  for_each_sample_in_grid<C> (in, n, shift,
                              [&] (int c, unsigned int b) { atomicAdd (&copy[c * bins + b], 1u); });
}

/* Adds the copies into the table and clears them for the next strip. */
__global__ void
merge_copies_kernel (unsigned int *scratch, int copies, int count, unsigned int *out)
{
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x)
    {
      unsigned int sum = 0;
      for (int k = 0; k < copies; k++)
        {
          sum += scratch[static_cast<size_t> (k) * count + i];
          scratch[static_cast<size_t> (k) * count + i] = 0;
        }
      out[i] += sum;
    }
}

} // namespace gh

#endif /* GPUHIST_WIDE_KERNELS_CUH */
