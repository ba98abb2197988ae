/* gpu-histogram: FASTEST for weighted and derived runs of 8-bit samples.  The unweighted fastest
 * kernel's layout (hist_kernels.cuh, kWide: one 32-bit counter column per warp lane, so that no
 * two lanes of a warp share a bank on any input) with up to six tables: the run's channels, then
 * Value and Luminance.  A 32-bit counter gains at most kPerStep * w_max a step, so the block
 * flushes its columns into the strip's 64-bit table every flush_every steps, before any can
 * overflow.  Device code only; cuda_weighted.cu launches it. */
#ifndef GPUHIST_WEIGHTED_FAST_KERNEL_CUH
#define GPUHIST_WEIGHTED_FAST_KERNEL_CUH

#include "weighted_kernels.cuh"

namespace gh
{

/* A thread counts kGroups groups of 4 pixels a step (GROUPS, at most kGroups: the benchmark
 * times fewer); its loads of a group are one 16-, 8- or 4-byte load a lane apart from the next
 * lane's (3 x 4 bytes for RGB), coalesced. */
constexpr int kGroups = 4;
constexpr int kWeightedThreads = 1024;
/* Increments a lane's counter can get in one step: every warp's lane, every pixel it counts. */
constexpr int kPerStep = kWeightedThreads / 32 * kGroups * 4;

template <int C, int COV, bool ALPHA, bool DERIVED> struct weighted_traits
{
  static constexpr int tables = C + (DERIVED ? 2 : 0);
  static constexpr int words = tables * 256 * 32;
};

/* The 4C sample bytes and 4 COV coverage bytes of group g. */
template <int C, int COV>
__device__ __forceinline__ void
load_group (const uint8_t *in, const uint8_t *cov, size_t g, unsigned int (&s)[C],
            unsigned int (&m)[COV > 0 ? COV : 1])
{
  if (C == 4)
    {
      const uint4 q = __ldcs (reinterpret_cast<const uint4 *> (in) + g);
      s[0] = q.x, s[C > 1 ? 1 : 0] = q.y, s[C > 2 ? 2 : 0] = q.z, s[C - 1] = q.w;
    }
  else if (C == 2)
    {
      const uint2 q = __ldcs (reinterpret_cast<const uint2 *> (in) + g);
      s[0] = q.x, s[C - 1] = q.y;
    }
  else
#pragma unroll
    for (int k = 0; k < C; k++)
      s[k] = __ldcs (reinterpret_cast<const unsigned int *> (in) + g * C + k);
  if (COV == 1)
    m[0] = __ldcs (reinterpret_cast<const unsigned int *> (cov) + g);
  else if (COV == 2)
    {
      const uint2 q = __ldcs (reinterpret_cast<const uint2 *> (cov) + g);
      m[0] = q.x, m[COV - 1] = q.y;
    }
}

/* Adds w to table t's bin b in this lane's column: byte address ((t * 256 + b) * 32 + lane) * 4.
 * Added, not OR'ed: the table's part, a constant, then goes into the instruction's offset. */
__device__ __forceinline__ void
add_lane (char *sh, unsigned int lane4, int t, unsigned int b, unsigned int w)
{
  atomicAdd (reinterpret_cast<unsigned int *> (sh + (t << 15) + (b * 128u + lane4)), w);
}

/* Counts one pixel of samples s0..s3 (8-bit) and coverage m. */
template <int C, int COV, bool ALPHA, bool DERIVED>
__device__ __forceinline__ void
count_pixel (char *sh, unsigned int lane4, const unsigned int (&s)[4], unsigned int m)
{
  const unsigned int cover = COV == 0 ? 1u : m;
  const unsigned int w = ALPHA ? gh_weight_product (cover, s[C - 1]) : cover;
  constexpr int colours = ALPHA ? C - 1 : C;
#pragma unroll
  for (int c = 0; c < colours; c++)
    add_lane (sh, lane4, c, s[c], w);
  if (ALPHA)
    add_lane (sh, lane4, C - 1, s[C - 1], gh_weight_product (cover, 255u));
  if (DERIVED)
    {
      add_lane (sh, lane4, C, static_cast<unsigned int> (gh_value_bin_u8 (s[0], s[1], s[2])), w);
      add_lane (sh, lane4, C + 1, luminance_bin8 (s[0], s[1], s[2]), w);
    }
}

template <int C, int COV, bool ALPHA, bool DERIVED>
__device__ __forceinline__ void
count_group (char *sh, unsigned int lane4, const unsigned int (&s)[C],
             const unsigned int (&m)[COV > 0 ? COV : 1])
{
#pragma unroll
  for (int k = 0; k < 4; k++)
    {
      unsigned int px[4] = { 0, 0, 0, 0 };
#pragma unroll
      for (int c = 0; c < C; c++)
        px[c] = (s[(k * C + c) / 4] >> (8 * ((k * C + c) % 4))) & 0xFFu;
      const unsigned int cover
          = COV == 1   ? (m[0] >> (8 * k)) & 0xFFu
            : COV == 2 ? (m[(k / 2) % (COV > 0 ? COV : 1)] >> (16 * (k % 2))) & 0xFFFFu
                       : 1u;
      count_pixel<C, COV, ALPHA, DERIVED> (sh, lane4, px, cover);
    }
}

/* Adds every column into the strip's 64-bit table and clears it.  The sum of 32 lanes is taken
 * in 64 bits: each lane's counter may be near 2^32. */
template <int TABLES>
__device__ __forceinline__ void
flush_columns (unsigned int *sh, unsigned long long *out)
{
  for (int bin = threadIdx.x; bin < TABLES * 256; bin += kWeightedThreads)
    {
      unsigned long long sum = 0;
      for (int l = 0; l < 32; l++)
        {
          const int index = (bin << 5) | ((l + bin) & 31);
          sum += sh[index];
          sh[index] = 0;
        }
      if (sum)
        atomicAdd (&out[bin], sum);
    }
}

template <int C, int COV, bool ALPHA, bool DERIVED, int GROUPS = kGroups>
__global__ void
__launch_bounds__ (kWeightedThreads)
    weighted_fast_kernel (const uint8_t *__restrict__ in, const uint8_t *__restrict__ cov,
                          size_t pixels, int flush_every, unsigned long long *out)
{
  using traits = weighted_traits<C, COV, ALPHA, DERIVED>;
  extern __shared__ unsigned int sh[];
  char *const base = reinterpret_cast<char *> (sh);
  const unsigned int lane4 = (threadIdx.x & 31u) << 2;
  for (int i = threadIdx.x; i < traits::words; i += kWeightedThreads)
    sh[i] = 0;
  __syncthreads ();

  /* Every thread takes the same number of steps, so the flush barrier is uniform; the next
   * step's loads are issued before this step is counted. */
  constexpr int M = COV > 0 ? COV : 1;
  const size_t groups = pixels / 4;
  const size_t per_step = static_cast<size_t> (kWeightedThreads) * GROUPS;
  const size_t grid_step = gridDim.x * per_step;
  unsigned int s[GROUPS][C], m[GROUPS][M];
  auto load = [&] (size_t step_base, unsigned int (&ls)[GROUPS][C], unsigned int (&lm)[GROUPS][M]) {
#pragma unroll
    for (int k = 0; k < GROUPS; k++)
      {
        const size_t g = step_base + k * kWeightedThreads + threadIdx.x;
        if (g < groups)
          load_group<C, COV> (in, cov, g, ls[k], lm[k]);
        else
          {
#pragma unroll
            for (int c = 0; c < C; c++)
              ls[k][c] = 0;
#pragma unroll
            for (int c = 0; c < M; c++)
              lm[k][c] = 0;
          }
      }
  };
  size_t at = blockIdx.x * per_step;
  load (at, s, m);
  int since_flush = 0;
  for (; at < groups; at += grid_step)
    {
      unsigned int ns[GROUPS][C], nm[GROUPS][M];
      load (at + grid_step, ns, nm);
#pragma unroll
      for (int k = 0; k < GROUPS; k++)
        if (at + k * kWeightedThreads + threadIdx.x < groups)
          count_group<C, COV, ALPHA, DERIVED> (base, lane4, s[k], m[k]);
      if (++since_flush == flush_every)
        {
          __syncthreads ();
          flush_columns<traits::tables> (sh, out);
          __syncthreads ();
          since_flush = 0;
        }
#pragma unroll
      for (int k = 0; k < GROUPS; k++)
        {
#pragma unroll
          for (int c = 0; c < C; c++)
            s[k][c] = ns[k][c];
#pragma unroll
          for (int c = 0; c < M; c++)
            m[k][c] = nm[k][c];
        }
    }

  /* The last pixels, fewer than 4. */
  for (size_t p = groups * 4 + blockIdx.x * static_cast<size_t> (kWeightedThreads) + threadIdx.x;
       p < pixels; p += gridDim.x * static_cast<size_t> (kWeightedThreads))
    {
      unsigned int px[4] = { 0, 0, 0, 0 };
#pragma unroll
      for (int c = 0; c < C; c++)
        px[c] = in[p * C + c];
      const unsigned int cover = COV == 1   ? cov[p]
                                 : COV == 2 ? reinterpret_cast<const uint16_t *> (cov)[p]
                                            : 1u;
      count_pixel<C, COV, ALPHA, DERIVED> (base, lane4, px, cover);
    }
  __syncthreads ();
  flush_columns<traits::tables> (sh, out);
}

} // namespace gh

#endif /* GPUHIST_WEIGHTED_FAST_KERNEL_CUH */
