/* gpu-histogram: kernels for weighted and derived runs (gh_run_spec): a pixel adds its weight w
 * (coverage m times alpha a, in integer scales) to each colour channel's bin, m times the alpha
 * scale to the alpha bin, and w to the Value and Luminance bins, computed here in the same pass.
 * Device code only; cuda_weighted.cu launches them.
 *
 * Every kernel adds one strip into a 64-bit table of out_channels * bins (a strip has fewer than
 * 2^32 pixels and w < 2^32, so a strip's sums fit); fold128_kernel adds that into the run's
 * 128-bit totals.  Shared-memory counters of 32 bits are flushed into the 64-bit table before
 * they can overflow: at 65025 a sample a 32-bit counter holds only 66051 samples. */
#ifndef GPUHIST_WEIGHTED_KERNELS_CUH
#define GPUHIST_WEIGHTED_KERNELS_CUH

#include <cstddef>
#include <cstdint>

#include "cuda_weighted.h"
#include "gimp_bins.cuh"

namespace gh
{

/* Calls add (table, bin, weight) for every table pixel p adds to, with the run's rules. */
template <typename ADD>
__device__ __forceinline__ void
visit_pixel (const weighted_job &j, size_t p, ADD add)
{
  const int c_in = j.channels;
  unsigned int s[GH_MAX_CHANNELS] = { 0, 0, 0, 0 };
  for (int c = 0; c < c_in; c++)
    s[c] = j.bytes_per_sample == 1 ? j.samples[p * c_in + c]
                                   : reinterpret_cast<const uint16_t *> (j.samples)[p * c_in + c];
  const unsigned int m = j.coverage_bytes == 0 ? 1u
                         : j.coverage_bytes == 1
                             ? j.coverage[p]
                             : reinterpret_cast<const uint16_t *> (j.coverage)[p];
  const unsigned int full = j.bytes_per_sample == 1 ? 255u : 65535u;
  const int colours = j.alpha_weighted ? c_in - 1 : c_in;
  const unsigned int w = j.alpha_weighted ? gh_weight_product (m, s[c_in - 1]) : m;
  unsigned int value = 0;
  for (int c = 0; c < colours; c++)
    {
      const unsigned int b = sample_bin (s[c], j.bytes_per_sample, j.bins, j.shift, j.binning);
      /* Value is of R, G and B only (never a 4th channel that is not alpha-weighted); the bin
       * rule is monotonic, so the max's bin is the bins' max. */
      if (c < 3)
        value = b > value ? b : value;
      add (c, b, w);
    }
  if (j.alpha_weighted)
    add (c_in - 1, sample_bin (s[c_in - 1], j.bytes_per_sample, j.bins, j.shift, j.binning),
         gh_weight_product (m, full));
  if (j.derived)
    {
      add (c_in, value, w);
      add (c_in + 1,
           luminance_bin (s[0], s[1], s[2], j.bytes_per_sample, j.bins, j.shift, j.binning,
                          j.luminance),
           w);
    }
}

/* The kernels without templates are static: the benchmark includes this file too. */

/* 1. Global atomics: one 64-bit atomicAdd per table a pixel adds to, device-wide. */
static __global__ void
weighted_global_atomics_kernel (weighted_job j)
{
  const size_t step = gridDim.x * static_cast<size_t> (blockDim.x);
  for (size_t p = blockIdx.x * static_cast<size_t> (blockDim.x) + threadIdx.x; p < j.pixels;
       p += step)
    visit_pixel (j, p, [&] (int t, unsigned int b, unsigned int w) {
      if (w)
        atomicAdd (&j.out[t * j.bins + b], static_cast<unsigned long long> (w));
    });
}

/* 2. Privatized, the seed's pattern: one copy of the tables per block in shared memory, here of
 * 64-bit counters (no flush needed), merged with atomicAdd; both bin loops stride by blockDim.x.
 * Also FASTEST for 16-bit samples where out_channels * bins * 8 bytes fit a block. */
static __global__ void
weighted_privatized_kernel (weighted_job j, int out_channels)
{
  extern __shared__ unsigned long long table64[];
  const int entries = out_channels * j.bins;
  for (int i = threadIdx.x; i < entries; i += blockDim.x)
    table64[i] = 0;
  __syncthreads ();
  const size_t step = gridDim.x * static_cast<size_t> (blockDim.x);
  for (size_t p = blockIdx.x * static_cast<size_t> (blockDim.x) + threadIdx.x; p < j.pixels;
       p += step)
    visit_pixel (j, p, [&] (int t, unsigned int b, unsigned int w) {
      if (w)
        atomicAdd (&table64[t * j.bins + b], static_cast<unsigned long long> (w));
    });
  __syncthreads ();
  for (int i = threadIdx.x; i < entries; i += blockDim.x)
    if (table64[i])
      atomicAdd (&j.out[i], table64[i]);
}

/* 4. Read-only over the samples and the coverage plane in one launch: the ceiling, like for
 * like.  The sentinel test keeps the loads alive and is almost never true. */
static __global__ void
read_only2_kernel (const uint8_t *__restrict__ a, size_t na, const uint8_t *__restrict__ b,
                   size_t nb, unsigned int *sink)
{
  const size_t va = na / 16, vb = nb / 16, vectors = va + vb;
  const uint4 *qa = reinterpret_cast<const uint4 *> (a);
  const uint4 *qb = reinterpret_cast<const uint4 *> (b);
  const size_t step = gridDim.x * static_cast<size_t> (blockDim.x);
  unsigned int acc = 0;
  size_t i = blockIdx.x * static_cast<size_t> (blockDim.x) + threadIdx.x;
  for (; i + 3 * step < vectors; i += 4 * step)
    {
      uint4 q[4];
#pragma unroll
      for (int k = 0; k < 4; k++)
        {
          const size_t v = i + k * step;
          q[k] = v < va ? __ldcs (&qa[v]) : __ldcs (&qb[v - va]);
        }
#pragma unroll
      for (int k = 0; k < 4; k++)
        acc ^= q[k].x ^ q[k].y ^ q[k].z ^ q[k].w;
    }
  for (; i < vectors; i += step)
    {
      const uint4 q = i < va ? __ldcs (&qa[i]) : __ldcs (&qb[i - va]);
      acc ^= q.x ^ q.y ^ q.z ^ q.w;
    }
  const size_t first = blockIdx.x * static_cast<size_t> (blockDim.x) + threadIdx.x;
  for (size_t k = va * 16 + first; k < na; k += step)
    acc ^= a[k];
  for (size_t k = vb * 16 + first; k < nb; k += step)
    acc ^= b[k];
  if (acc == 0x5EEDF00Du)
    atomicAdd (sink, 1u);
}

/* Adds a strip's 64-bit sums into the 128-bit totals ({hi, lo}, as gh_u128) and clears them. */
static __global__ void
fold128_kernel (unsigned long long *strip, unsigned long long *totals, int count)
{
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x)
    {
      const unsigned long long s = strip[i], lo = totals[2 * i + 1] + s;
      totals[2 * i] += lo < s;
      totals[2 * i + 1] = lo;
      strip[i] = 0;
    }
}

} // namespace gh

#endif /* GPUHIST_WEIGHTED_KERNELS_CUH */
