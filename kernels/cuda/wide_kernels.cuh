/* gpu-histogram: kernels for tables wider than 256 bins of 8-bit samples: 16-bit samples binned
 * into 256 to 65536 bins a channel.  This is the glossary's third band: once the tables stop
 * fitting a block's shared memory, the moves are narrower counters, a slice of the bins per pass,
 * or a handful of full copies in global memory.  Device code only; cuda_wide.cu launches them.
 *
 * Samples are uint16_t.  A strip is interleaved (it starts on a pixel, so sample i belongs to
 * channel i % C, and a 16-byte load holds samples 8v .. 8v + 7) except for the sliced strategy,
 * which counts planar strips (one plane a channel).  Every kernel adds into a 32-bit table of
 * C * bins. */
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

/* Walks the 16-byte vectors [0, vectors) from `first` in steps of `step`, four loads a thread a
 * step, the next step's loads issued before this step's are counted: enough bytes in flight to
 * keep up with memory.  Calls visit (v, vector) for each.  keep_in_l2: loads that L2 keeps for
 * other blocks to read again (__ldcg), else loads that stream past (__ldcs). */
template <int THREADS, typename F>
__device__ __forceinline__ void
for_each_vector_prefetched (const uint4 *vec, size_t vectors, size_t first, size_t step,
                            bool keep_in_l2, F visit)
{
  constexpr int V = 4;
  auto load = [&] (size_t base, uint4 (&q)[V]) {
#pragma unroll
    for (int k = 0; k < V; k++)
      {
        const size_t v = base + k * THREADS + threadIdx.x;
        q[k] = v >= vectors ? make_uint4 (0, 0, 0, 0)
               : keep_in_l2 ? __ldcg (&vec[v])
                            : __ldcs (&vec[v]);
      }
  };
  uint4 q[V];
  size_t base = first;
  load (base, q);
  for (; base < vectors; base += step)
    {
      uint4 next[V];
      load (base + step, next);
#pragma unroll
      for (int k = 0; k < V; k++)
        {
          const size_t v = base + k * THREADS + threadIdx.x;
          if (v < vectors)
            visit (v, q[k]);
        }
#pragma unroll
      for (int k = 0; k < V; k++)
        q[k] = next[k];
    }
}

/* Shared: one 32-bit copy of every channel's table per block, in shared memory. */
template <int C, int THREADS>
__global__ void
__launch_bounds__ (THREADS) wide_shared_kernel (const uint16_t *__restrict__ in, size_t n,
                                                int shift, int bins, unsigned int *out)
{
  extern __shared__ unsigned int table[];
  for (int i = threadIdx.x; i < C * bins; i += THREADS)
    table[i] = 0;
  __syncthreads ();

  const size_t vectors = n / 8;
  const size_t per_step = static_cast<size_t> (THREADS) * 4;
  for_each_vector_prefetched<THREADS> (
      reinterpret_cast<const uint4 *> (in), vectors, blockIdx.x * per_step, gridDim.x * per_step,
      false, [&] (size_t v, const uint4 &q) {
        /* Sample 8v's channel: 0 unless C == 3, since 8v is a multiple of 1, 2 and 4. */
        const int first = C == 3 ? static_cast<int> (v % 3) * 2 % 3 : 0;
        const unsigned int words[4] = { q.x, q.y, q.z, q.w };
#pragma unroll
        for (int j = 0; j < 8; j++)
          {
            const unsigned int sample = (words[j >> 1] >> (16 * (j & 1))) & 0xFFFFu;
            int c = first + j % C;
            if (C == 3 && c >= 3)
              c -= 3;
            atomicAdd (&table[c * bins + (sample >> shift)], 1u);
          }
      });
  for (size_t i = vectors * 8 + blockIdx.x * static_cast<size_t> (THREADS) + threadIdx.x; i < n;
       i += gridDim.x * static_cast<size_t> (THREADS))
    atomicAdd (&table[(i % C) * bins + (in[i] >> shift)], 1u);
  __syncthreads ();

  for (int i = threadIdx.x; i < C * bins; i += THREADS)
    if (table[i])
      atomicAdd (&out[i], table[i]);
}

/* Sliced, on a planar strip: channel c's `pixels` samples start at c * plane_stride (a multiple
 * of 8).  A block counts one slice: a run of `slice` bins of one channel, so it reads only its
 * channel's plane, and every sample it reads is one of its channel's.  The grid is split into
 * groups of channels * parts blocks, one a slice; a group's blocks walk the same pixels at the
 * same pace, so each plane is read from memory once and from L2 `parts` times.  (On interleaved
 * pixels each block would have to read every channel's bytes: five 32-bit slices of 65536 bins
 * read the whole image five times.) */
template <int THREADS>
__global__ void
__launch_bounds__ (THREADS)
    wide_planar_sliced_kernel (const uint16_t *__restrict__ planes, size_t pixels,
                               size_t plane_stride, int channels, int shift, int bins, int slice,
                               int parts, unsigned int *out)
{
  extern __shared__ unsigned int table[];
  const int slices = channels * parts;
  const int group = blockIdx.x / slices, groups = gridDim.x / slices;
  const int channel = (blockIdx.x % slices) / parts;
  const int lo = (blockIdx.x % slices) % parts * slice;
  const int width = bins - lo < slice ? bins - lo : slice;
  for (int i = threadIdx.x; i < width; i += THREADS)
    table[i] = 0;
  __syncthreads ();

  const uint16_t *plane = planes + channel * plane_stride;
  auto count = [&] (unsigned int sample) {
    const unsigned int at = (sample >> shift) - static_cast<unsigned int> (lo);
    if (at < static_cast<unsigned int> (width))
      atomicAdd (&table[at], 1u);
  };
  const size_t vectors = pixels / 8;
  const size_t per_step = static_cast<size_t> (THREADS) * 4;
  /* One part streams past; several keep the plane in L2 for the group's other blocks. */
  for_each_vector_prefetched<THREADS> (reinterpret_cast<const uint4 *> (plane), vectors,
                                       group * per_step, groups * per_step, parts > 1,
                                       [&] (size_t, const uint4 &q) {
                                         const unsigned int words[4] = { q.x, q.y, q.z, q.w };
#pragma unroll
                                         for (int j = 0; j < 8; j++)
                                           count ((words[j >> 1] >> (16 * (j & 1))) & 0xFFFFu);
                                       });
  for (size_t i = vectors * 8 + group * static_cast<size_t> (THREADS) + threadIdx.x; i < pixels;
       i += groups * static_cast<size_t> (THREADS))
    count (plane[i]);
  __syncthreads ();

  for (int i = threadIdx.x; i < width; i += THREADS)
    if (table[i])
      atomicAdd (&out[channel * bins + lo + i], table[i]);
}

/* De-interleaves a strip for SLICED on the device: 4 pixels a thread, C 8-byte loads in, one
 * 8-byte store to each plane, both coalesced; the last pixels (fewer than 4) one at a time.  On
 * the host, one thread took 450 times the sliced kernel's time for the same strip. */
template <int C>
__global__ void
deinterleave16_kernel (const uint16_t *__restrict__ in, size_t pixels, size_t plane_stride,
                       uint16_t *__restrict__ out)
{
  const size_t groups = pixels / 4;
  const size_t step = gridDim.x * static_cast<size_t> (blockDim.x);
  const size_t first = blockIdx.x * static_cast<size_t> (blockDim.x) + threadIdx.x;
  for (size_t g = first; g < groups; g += step)
    {
      unsigned int w[2 * C];
#pragma unroll
      for (int k = 0; k < C; k++)
        {
          const uint2 q = __ldcs (reinterpret_cast<const uint2 *> (in) + g * C + k);
          w[2 * k] = q.x, w[2 * k + 1] = q.y;
        }
#pragma unroll
      for (int c = 0; c < C; c++)
        {
          unsigned int s[4];
#pragma unroll
          for (int p = 0; p < 4; p++)
            {
              const int i = p * C + c; /* sample i of the group: half i % 2 of word i / 2 */
              s[p] = (w[i / 2] >> (16 * (i % 2))) & 0xFFFFu;
            }
          reinterpret_cast<uint2 *> (out + c * plane_stride)[g]
              = make_uint2 (s[0] | s[1] << 16, s[2] | s[3] << 16);
        }
    }
  for (size_t p = groups * 4 + first; p < pixels; p += step)
#pragma unroll
    for (int c = 0; c < C; c++)
      out[c * plane_stride + p] = in[p * C + c];
}

/* Global atomics on a planar strip. */
__global__ void
wide_planar_global_atomics_kernel (const uint16_t *__restrict__ planes, size_t pixels,
                                   size_t plane_stride, int channels, int shift, int bins,
                                   unsigned int *out)
{
  const size_t step = gridDim.x * static_cast<size_t> (blockDim.x);
  for (int c = 0; c < channels; c++)
    for (size_t i = blockIdx.x * static_cast<size_t> (blockDim.x) + threadIdx.x; i < pixels;
         i += step)
      atomicAdd (&out[c * bins + (planes[c * plane_stride + i] >> shift)], 1u);
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
