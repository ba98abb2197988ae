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

/* A thread counts GROUPS groups of 4 pixels a step (kGroups unless the benchmark asks for more,
 * up to kMaxGroups); its loads of a group are one 16-, 8- or 4-byte load a lane apart from the
 * next lane's (3 x 4 bytes for RGB), coalesced.  Two groups measured faster than four on every
 * input (docs/BENCHMARKS.md): fewer registers, no spills. */
constexpr int kGroups = 2;
constexpr int kMaxGroups = 4;
constexpr int kWeightedThreads = 1024;
/* Increments a lane's counter can get in one step, at most: every warp's lane, every pixel. */
constexpr int kPerStep = kWeightedThreads / 32 * kMaxGroups * 4;

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

/* What a thread needs to add into its lane's columns.  k128 = 128 and k256 = 256 arrive as
 * kernel arguments, so that the compiler cannot turn the products below into shifts: an IMAD
 * runs on the FMA pipe, a shift on the ALU pipe, and the ALU pipe is what six tables a pixel
 * saturate (Nsight Compute: 78 % of it, 85 % of the issue slots, before this). */
struct lanes
{
  char *sh;
  unsigned int lane4; /* the lane's byte offset in a bin's column */
  unsigned int k128, k256;
};

/* Adds w to table t's bin b in this lane's column: byte address ((t * 256 + b) * 32 + lane) * 4;
 * the table's part is a constant, and goes into the instruction's offset. */
__device__ __forceinline__ void
add_lane (const lanes &l, int t, unsigned int b, unsigned int w)
{
  atomicAdd (reinterpret_cast<unsigned int *> (l.sh + (t << 15) + (b * l.k128 + l.lane4)), w);
}

/* The luminance estimate of gimp_bins.cuh, shifted by kLumEdge: bin = y >> 24 unless y is near
 * an edge, which (y & kLumNearEdge) == 0 tells in one instruction. */
constexpr unsigned int kLumNearEdge = 0xFFFFFFu & ~(2 * kLumEdge - 1);

__device__ __forceinline__ unsigned int
luminance_estimate (unsigned int r, unsigned int g, unsigned int b)
{
  return r * kLumR + g * kLumG + b * kLumB + ((1u << 23) + kLumEdge);
}

/* Counts one pixel of 8-bit samples s and coverage m.  Returns nonzero when its luminance bin
 * was only estimated near an edge: fix_luminance then moves it if GIMP's rule disagrees. */
template <int C, int COV, bool ALPHA, bool DERIVED>
__device__ __forceinline__ unsigned int
count_pixel (const lanes &l, const unsigned int (&s)[4], unsigned int m)
{
  const unsigned int cover = COV == 0 ? 1u : m;
  const unsigned int w = ALPHA ? gh_weight_product (cover, s[C - 1]) : cover;
  constexpr int colours = ALPHA ? C - 1 : C;
#pragma unroll
  for (int c = 0; c < colours; c++)
    add_lane (l, c, s[c], w);
  if (ALPHA)
    add_lane (l, C - 1, s[C - 1], gh_weight_product (cover, 255u));
  if (!DERIVED)
    return 0;
  add_lane (l, C, static_cast<unsigned int> (gh_value_bin_u8 (s[0], s[1], s[2])), w);
  const unsigned int y = luminance_estimate (s[0], s[1], s[2]);
  add_lane (l, C + 1, __umulhi (y, l.k256), w); /* y >> 24 */
  return (y & kLumNearEdge) == 0;
}

/* Pixel k of a group: its samples and coverage. */
template <int C, int COV>
__device__ __forceinline__ void
group_pixel (const unsigned int (&s)[C], const unsigned int (&m)[COV > 0 ? COV : 1], int k,
             unsigned int (&px)[4], unsigned int &cover)
{
#pragma unroll
  for (int c = 0; c < 4; c++)
    px[c] = c < C ? (s[(k * C + c) / 4 % C] >> (8 * ((k * C + c) % 4))) & 0xFFu : 0u;
  cover = COV == 1   ? (m[0] >> (8 * k)) & 0xFFu
          : COV == 2 ? (m[(k / 2) % (COV > 0 ? COV : 1)] >> (16 * (k % 2))) & 0xFFFFu
                     : 1u;
}

template <int C, int COV, bool ALPHA, bool DERIVED>
__device__ __forceinline__ unsigned int
count_group (const lanes &l, const unsigned int (&s)[C], const unsigned int (&m)[COV > 0 ? COV : 1])
{
  unsigned int near_edge = 0;
#pragma unroll
  for (int k = 0; k < 4; k++)
    {
      unsigned int px[4], cover;
      group_pixel<C, COV> (s, m, k, px, cover);
      near_edge |= count_pixel<C, COV, ALPHA, DERIVED> (l, px, cover);
    }
  return near_edge;
}

/* A group's words, by value: what the out-of-line paths take (a reference would put the
 * counting loop's registers on the stack). */
template <int C, int COV> struct group_words
{
  unsigned int s[C], m[COV > 0 ? COV : 1];
};

/* The rare path (a pixel in about 4000 on noise): every pixel of the group whose luminance was
 * estimated near an edge takes GIMP's rule, and moves its weight if the bin differs.  The
 * counter it leaves got that weight from this thread earlier, so it cannot wrap. */
template <int C, int COV, bool ALPHA>
__device__ __noinline__ void
fix_luminance (lanes l, group_words<C, COV> g)
{
#pragma unroll
  for (int k = 0; k < 4; k++)
    {
      unsigned int px[4], cover;
      group_pixel<C, COV> (g.s, g.m, k, px, cover);
      const unsigned int y = luminance_estimate (px[0], px[1], px[2]);
      if ((y & kLumNearEdge) != 0)
        continue;
      const unsigned int exact = luminance_bin8_exact (px[0], px[1], px[2]);
      if (exact == y >> 24)
        continue;
      const unsigned int c = COV == 0 ? 1u : cover;
      const unsigned int w = ALPHA ? gh_weight_product (c, px[C - 1]) : c;
      add_lane (l, C + 1, y >> 24, 0u - w);
      add_lane (l, C + 1, exact, w);
    }
}

template <int C, int COV>
__device__ __forceinline__ group_words<C, COV>
words_of (const unsigned int (&s)[C], const unsigned int (&m)[COV > 0 ? COV : 1])
{
  group_words<C, COV> g;
#pragma unroll
  for (int c = 0; c < C; c++)
    g.s[c] = s[c];
#pragma unroll
  for (int c = 0; c < (COV > 0 ? COV : 1); c++)
    g.m[c] = m[c];
  return g;
}

/* The last pixels of a strip, n < 4 of them, as a group whose missing pixels are not counted
 * (their zero samples are never near a luminance edge, so fix_luminance leaves them). */
template <int C, int COV, bool ALPHA, bool DERIVED>
__device__ __noinline__ void
tail_group (lanes l, group_words<C, COV> g, int n)
{
  const auto &s = g.s;
  const auto &m = g.m;
  unsigned int near_edge = 0;
#pragma unroll
  for (int k = 0; k < 4; k++)
    if (k < n)
      {
        unsigned int px[4], cover;
        group_pixel<C, COV> (s, m, k, px, cover);
        near_edge |= count_pixel<C, COV, ALPHA, DERIVED> (l, px, cover);
      }
  if (DERIVED && near_edge)
    fix_luminance<C, COV, ALPHA> (l, g);
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
                          size_t pixels, int flush_every, unsigned long long *out,
                          unsigned int k128, unsigned int k256)
{
  static_assert (GROUPS <= kMaxGroups, "kPerStep bounds the flushes");
  using traits = weighted_traits<C, COV, ALPHA, DERIVED>;
  extern __shared__ unsigned int sh[];
  const lanes l = { reinterpret_cast<char *> (sh), (threadIdx.x & 31u) << 2, k128, k256 };
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
      unsigned int near_edge[GROUPS];
#pragma unroll
      for (int k = 0; k < GROUPS; k++)
        near_edge[k] = at + k * kWeightedThreads + threadIdx.x < groups
                           ? count_group<C, COV, ALPHA, DERIVED> (l, s[k], m[k])
                           : 0u;
      if (DERIVED)
#pragma unroll
        for (int k = 0; k < GROUPS; k++)
          if (near_edge[k])
            fix_luminance<C, COV, ALPHA> (l, words_of<C, COV> (s[k], m[k]));
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

  /* The last pixels, fewer than 4: one group of them, the missing pixels of weight 0. */
  const size_t tail = pixels - groups * 4;
  if (tail && blockIdx.x == 0 && threadIdx.x == 0)
    {
      unsigned int ts[C] = {}, tm[M] = {};
      for (size_t p = 0; p < tail; p++)
        {
          const size_t at_pixel = groups * 4 + p;
          for (int c = 0; c < C; c++)
            ts[(p * C + c) / 4] |= static_cast<unsigned int> (in[at_pixel * C + c])
                                   << (8 * ((p * C + c) % 4));
          if (COV == 1)
            tm[0] |= static_cast<unsigned int> (cov[at_pixel]) << (8 * p);
          else if (COV == 2)
            tm[(p / 2) % M]
                |= static_cast<unsigned int> (reinterpret_cast<const uint16_t *> (cov)[at_pixel])
                   << (16 * (p % 2));
        }
      tail_group<C, COV, ALPHA, DERIVED> (l, words_of<C, COV> (ts, tm), static_cast<int> (tail));
    }
  __syncthreads ();
  flush_columns<traits::tables> (sh, out);
}

} // namespace gh

#endif /* GPUHIST_WEIGHTED_FAST_KERNEL_CUH */
