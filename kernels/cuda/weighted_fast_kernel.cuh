/* gpu-histogram: FASTEST for weighted and derived runs of 8-bit samples.  The unweighted fastest
 * kernel's layout (hist_kernels.cuh, kLaneColumns: one 32-bit counter column per warp lane, so that
 * no two lanes of a warp share a bank on any input) with up to six tables: the run's channels, then
 * Value and Luminance.  A 32-bit counter gains at most weighted_per_step (GROUPS) * w_max a step,
 * so the block flushes its columns into the strip's 64-bit table every flush_every steps (at most
 * weighted_flush_steps (w_max, GROUPS)), before any can overflow.  Device code only;
 * cuda_weighted.cu launches it. */
#ifndef GPUHIST_WEIGHTED_FAST_KERNEL_CUH
#define GPUHIST_WEIGHTED_FAST_KERNEL_CUH

#include "weighted_kernels.cuh"

namespace gh
{

/* A thread counts GROUPS groups of 4 pixels a step (kGroups in the engine; the benchmark times
 * others); its loads of a group are one 16-, 8- or 4-byte load a lane apart from the next lane's
 * (3 x 4 bytes for RGB), coalesced.  A thread's groups of one step lie a grid's width of groups
 * apart (as if one group a step, unrolled), not a block's: an image that repeats, such as a
 * tiled photo, would otherwise put the same pixels in one thread's groups, and same-address
 * atomics wait on each other.  The engine runs two groups: four are faster, but two are what
 * its tests prove on small and odd sizes (docs/BENCHMARKS.md, "Weighted and derived runs"). */
constexpr int kGroups = 2;
constexpr int kWeightedThreads = 1024;

/* Increments a lane's counter can get in one step of `groups` groups, at most: every warp's lane,
 * every pixel. */
__host__ __device__ constexpr int
weighted_per_step (int groups)
{
  return kWeightedThreads / 32 * groups * 4;
}

/* The most steps of `groups` groups between two flushes with weights up to w, such that no
 * 32-bit counter can overflow, the tail's 4 pixels after the last step included. */
__host__ __device__ constexpr unsigned long long
weighted_flush_steps (unsigned long long w, int groups)
{
  return (0xFFFFFFFFull - 4 * w) / (weighted_per_step (groups) * w);
}

template <int C, int COV, bool ALPHA, bool DERIVED> struct weighted_traits
{
  static constexpr int tables = C + (DERIVED ? 2 : 0);
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

/* Where a lane's counters lie.  Tables pair up in 64 KiB: bin b of table t at byte
 * (t / 2) * 65536 + b * 256 + (t % 2) * 128 + lane * 4, so that the part that varies,
 * b * 256 + lane * 4, is one PRMT of the sample's byte and the lane's offset; the rest is a
 * constant in the ATOMS.  (Columns 128 bytes apart took an extraction and an IMAD a table.)
 * A derived run keeps luminance terms after the columns: under GIMP 2.10's rule 3 x 256 products
 * in double for the rare path; under GIMP 3.0's (LUM3) the estimate's entries
 * (luminance3_fixed_u8), green's in a column a lane (32 KiB: the look-up of the largest term
 * never waits on a bank), then red's and blue's, shared by all lanes (lum3_green, lum3_red_blue).
 */
struct lanes
{
  char *sh;
  unsigned int lane4; /* the lane's byte offset in a bin's column, < 128 */
  const double *terms;
  /* 256 and 65536 from a kernel argument, so that the products below stay IMADs (FMA pipe)
   * instead of shifts (ALU pipe, which the PRMTs and IMNMXs already fill). */
  unsigned int k256, k65536;
  gh_luminance rule; /* LUM3: GIMP 3.0's, perceptual or linear */
};

/* Green's column a lane under LUM3: 256 levels x 32 lanes, a level's row 128 bytes. */
constexpr size_t kLum3GreenBytes = 256 * 32 * sizeof (unsigned int);

/* The columns of `tables` tables, then the luminance terms of a derived run: `derived` 0 none,
 * 1 GIMP 2.10's rule, 2 GIMP 3.0's (LUM3). */
__host__ __device__ constexpr size_t
weighted_shared_bytes (int tables, int derived)
{
  return static_cast<size_t> ((tables + 1) / 2) * 65536
         + (derived == 2   ? kLum3GreenBytes + 2 * 256 * sizeof (unsigned int)
            : derived == 1 ? 3 * 256 * sizeof (double)
                           : 0);
}

__device__ __forceinline__ constexpr unsigned int
table_offset (int t)
{
  return static_cast<unsigned int> ((t >> 1) * 65536 + (t & 1) * 128);
}

/* Byte j of x as a lane address, x's byte * 256 + lane4: lane4's zero bytes fill the top. */
__device__ __forceinline__ unsigned int
byte_address (unsigned int x, int j, unsigned int lane4)
{
  return __byte_perm (x, lane4, 0x5504u | (static_cast<unsigned int> (j) << 4));
}

/* Adds w to the counter at lane address a (a byte_address, or bin * 256 + lane4) of table t. */
__device__ __forceinline__ void
add_lane (const lanes &l, int t, unsigned int a, unsigned int w)
{
  atomicAdd (reinterpret_cast<unsigned int *> (l.sh + table_offset (t) + a), w);
}

/* Sample c of pixel k of a group: byte (k C + c) % 4 of word (k C + c) / 4. */
template <int C>
__device__ __forceinline__ unsigned int
sample_address (const unsigned int (&s)[C], int k, int c, unsigned int lane4)
{
  const int i = k * C + c;
  return byte_address (s[(i / 4) % C], i % 4, lane4);
}

template <int C>
__device__ __forceinline__ unsigned int
sample_value (const unsigned int (&s)[C], int k, int c)
{
  const int i = k * C + c;
  return (s[(i / 4) % C] >> (8 * (i % 4))) & 0xFFu;
}

/* Pixel k's R, G, B in bytes 0-2 of one word (byte 3 is not read): one PRMT where they
 * straddle two words (3 channels), none for RGBA. */
template <int C>
__device__ __forceinline__ unsigned int
rgb_word (const unsigned int (&s)[C], int k)
{
  const int i = k * C, w = (i / 4) % C, o = i % 4;
  return o == 0 ? s[w] : __byte_perm (s[w], s[(w + 1) % C], o | (o + 1) << 4 | (o + 2) << 8);
}

__device__ __forceinline__ const char *
lum3_green (const lanes &l)
{
  return reinterpret_cast<const char *> (l.terms);
}

__device__ __forceinline__ const unsigned int *
lum3_red_blue (const lanes &l)
{
  return reinterpret_cast<const unsigned int *> (lum3_green (l) + kLum3GreenBytes);
}

/* The estimate under the run's rule: GIMP 2.10's weights in two dot products, or GIMP 3.0's
 * three looked-up entries (green's in the lane's column: its row, green x 128, is the word's
 * byte 1 shifted by one bit); the same 8.16 with kLumHalf either way. */
template <bool LUM3>
__device__ __forceinline__ unsigned int
estimate (unsigned int rgb, const lanes &l)
{
  if (!LUM3)
    return luminance_estimate (rgb, l.k256);
  const unsigned int *red_blue = lum3_red_blue (l);
  const unsigned int green = *reinterpret_cast<const unsigned int *> (
      lum3_green (l) + (((rgb >> 1) & (255u << 7)) | l.lane4));
  return red_blue[rgb & 255u] + green + red_blue[256 + ((rgb >> 16) & 255u)];
}

/* y * 65536 keeps y's fraction on top: y is near an edge when that is below kNearKey. */
constexpr unsigned int kNearKey = (2 * kLumEdge) << 16;

/* Pixel k's weights: colour = coverage x alpha (gh_weight_product), alpha = coverage x 255.
 * With an 8-bit plane, the coverage byte goes where alpha is in its word, and the product is
 * one __dp4a; coverage x 255 is then an IMAD.HI of that word. */
struct pixel_weights
{
  unsigned int colour, alpha;
};

template <int C, int COV, bool ALPHA>
__device__ __forceinline__ pixel_weights
weights_of (const unsigned int (&s)[C], const unsigned int (&m)[COV > 0 ? COV : 1], int k)
{
  if (COV == 1 && ALPHA)
    {
      const int i = k * C + C - 1, j = i % 4;
      const unsigned int select
          = (0x4444u & ~(0xFu << (4 * j))) | static_cast<unsigned int> (k) << (4 * j);
      const unsigned int x = __byte_perm (m[0], 0u, select);
      return { __dp4a (s[(i / 4) % C], x, 0u), __umulhi (x, 255u << (32 - 8 * j)) };
    }
  const unsigned int cover = COV == 1 ? __byte_perm (m[0], 0u, 0x4440u | k)
                             : COV == 2
                                 ? (m[(k / 2) % (COV > 0 ? COV : 1)] >> (16 * (k % 2))) & 0xFFFFu
                                 : 1u;
  return { ALPHA ? gh_weight_product (cover, sample_value<C> (s, k, C - 1)) : cover,
           gh_weight_product (cover, 255u) };
}

/* Counts pixel k of a group.  Returns its luminance fraction key (DERIVED; below kNearKey when
 * near an edge: fix_luminance then moves it if GIMP's rule disagrees), else ~0. */
template <int C, int COV, bool ALPHA, bool DERIVED, bool LUM3>
__device__ __forceinline__ unsigned int
count_pixel (const lanes &l, const unsigned int (&s)[C], const unsigned int (&m)[COV > 0 ? COV : 1],
             int k)
{
  const pixel_weights w = weights_of<C, COV, ALPHA> (s, m, k);
  constexpr int colours = ALPHA ? C - 1 : C;
#pragma unroll
  for (int c = 0; c < colours; c++)
    add_lane (l, c, sample_address<C> (s, k, c, l.lane4), w.colour);
  if (ALPHA)
    add_lane (l, C - 1, sample_address<C> (s, k, C - 1, l.lane4), w.alpha);
  if (!DERIVED)
    return ~0u;
  /* The largest of three lane addresses is that of the largest sample: Value. */
  add_lane (l, C,
            __vimax3_u32 (sample_address<C> (s, k, 0, l.lane4),
                          sample_address<C> (s, k, 1, l.lane4),
                          sample_address<C> (s, k, 2, l.lane4)),
            w.colour);
  const unsigned int y = estimate<LUM3> (rgb_word<C> (s, k), l);
  add_lane (l, C + 1, byte_address (y, 2, l.lane4), w.colour);
  return y * l.k65536;
}

/* Nonzero when a pixel of the group was estimated near a luminance edge: one compare a group. */
template <int C, int COV, bool ALPHA, bool DERIVED, bool LUM3>
__device__ __forceinline__ unsigned int
count_group (const lanes &l, const unsigned int (&s)[C], const unsigned int (&m)[COV > 0 ? COV : 1])
{
  unsigned int e[4];
#pragma unroll
  for (int k = 0; k < 4; k++)
    e[k] = count_pixel<C, COV, ALPHA, DERIVED, LUM3> (l, s, m, k);
  return __vimin3_u32 (e[0], e[1], min (e[2], e[3])) < kNearKey;
}

/* A group's words, by value: what the out-of-line paths take (a reference would put the
 * counting loop's registers on the stack). */
template <int C, int COV> struct group_words
{
  unsigned int s[C], m[COV > 0 ? COV : 1];
};

/* The rare path (a pixel in about 4000 on noise): every pixel of the group whose luminance was
 * estimated near an edge takes GIMP's rule, and moves its weight if the bin differs.  Under
 * GIMP 2.10's rule from GIMP's products in shared memory (a few adds; the division in double a
 * sample was most of this path); under GIMP 3.0's the rule itself, whose terms would not fit
 * beside green's columns.  The counter it leaves got that weight from this thread earlier, so
 * it cannot wrap. */
template <int C, int COV, bool ALPHA, bool LUM3>
__device__ __noinline__ void
fix_luminance (lanes l, group_words<C, COV> g)
{
#pragma unroll
  for (int k = 0; k < 4; k++)
    {
      const unsigned int y = estimate<LUM3> (rgb_word<C> (g.s, k), l);
      if ((y & kLumNearEdge) != 0)
        continue;
      const unsigned int r = sample_value<C> (g.s, k, 0), gr = sample_value<C> (g.s, k, 1),
                         b = sample_value<C> (g.s, k, 2);
      const unsigned int exact = static_cast<unsigned int> (
          LUM3
              ? gh_luminance_bin_u8 (r, gr, b, l.rule)
              : gh_luminance_bin_from_terms (l.terms[r], l.terms[256 + gr], l.terms[512 + b], 256));
      const unsigned int estimate = y >> 16;
      if (exact == estimate)
        continue;
      const unsigned int w = weights_of<C, COV, ALPHA> (g.s, g.m, k).colour;
      add_lane (l, C + 1, estimate * 256 + l.lane4, 0u - w);
      add_lane (l, C + 1, exact * 256 + l.lane4, w);
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
template <int C, int COV, bool ALPHA, bool DERIVED, bool LUM3>
__device__ __noinline__ void
tail_group (lanes l, group_words<C, COV> g, int n)
{
  unsigned int near_edge = 0;
#pragma unroll
  for (int k = 0; k < 4; k++)
    if (k < n)
      near_edge |= count_pixel<C, COV, ALPHA, DERIVED, LUM3> (l, g.s, g.m, k) < kNearKey;
  if (DERIVED && near_edge)
    fix_luminance<C, COV, ALPHA, LUM3> (l, g);
}

/* Adds every column into the strip's 64-bit table and clears it.  The sum of 32 lanes is taken
 * in 64 bits: each lane's counter may be near 2^32.  Lanes are read in a rotated order so that
 * the threads of a warp, on consecutive columns, read 32 banks. */
template <int TABLES>
__device__ __forceinline__ void
flush_columns (unsigned int *sh, unsigned long long *out)
{
  for (int bin = threadIdx.x; bin < TABLES * 256; bin += kWeightedThreads)
    {
      unsigned int *column = sh + table_offset (bin >> 8) / 4 + (bin & 255) * 64;
      unsigned long long sum = 0;
      for (int l = 0; l < 32; l++)
        {
          const int index = (l + bin) & 31;
          sum += column[index];
          column[index] = 0;
        }
      if (sum)
        atomicAdd (&out[bin], sum);
    }
}

/* One function of about 100 lines on purpose: the loads, the weights, Value and Luminance, the
 * fix path, the atomics and the flushes are one pass whose load/atomic order and register use
 * were tuned and checked in SASS as a whole (docs/BENCHMARKS.md, "Weighted and derived runs");
 * splitting it is a change to measure again, not a tidy-up. */
template <int C, int COV, bool ALPHA, bool DERIVED, int GROUPS = kGroups, bool LUM3 = false>
__global__ void
__launch_bounds__ (kWeightedThreads)
    weighted_fast_kernel (const uint8_t *__restrict__ in, const uint8_t *__restrict__ cov,
                          size_t pixels, int flush_every, unsigned long long *out,
                          unsigned int k256, gh_luminance rule)
{
  using traits = weighted_traits<C, COV, ALPHA, DERIVED>;
  extern __shared__ unsigned int sh[];
  constexpr size_t columns = weighted_shared_bytes (traits::tables, 0);
  double *terms = reinterpret_cast<double *> (reinterpret_cast<char *> (sh) + columns);
  const lanes l
      = { reinterpret_cast<char *> (sh), (threadIdx.x & 31u) << 2, terms, k256, k256 * k256, rule };
  for (int i = threadIdx.x; i < static_cast<int> (columns / 4); i += kWeightedThreads)
    sh[i] = 0;
  if (DERIVED)
    for (int i = threadIdx.x; i < 3 * 256; i += kWeightedThreads)
      if (LUM3)
        {
          /* Green's entries into lane 0's column, copied into the other lanes' below. */
          const int c = i >> 8;
          const unsigned int level = i & 255u;
          const unsigned int entry = luminance3_fixed_u8 (c, luminance3_term_u8 (c, level, rule));
          unsigned int *green = reinterpret_cast<unsigned int *> (terms);
          if (c == 1)
            green[level * 32] = entry;
          else
            green[kLum3GreenBytes / 4 + (c == 0 ? 0 : 256) + level] = entry;
        }
      else
        terms[i] = luminance_term_u8 (i >> 8, i & 255u);
  if (LUM3)
    {
      __syncthreads ();
      unsigned int *green = reinterpret_cast<unsigned int *> (terms);
      for (int i = threadIdx.x; i < static_cast<int> (kLum3GreenBytes / 4); i += kWeightedThreads)
        if (i & 31)
          green[i] = green[i & ~31];
    }
  __syncthreads ();

  /* Every thread takes the same number of steps, so the flush barrier is uniform; the next
   * step's loads are issued before this step is counted. */
  constexpr int M = COV > 0 ? COV : 1;
  const size_t groups = pixels / 4;
  const size_t spread = static_cast<size_t> (gridDim.x) * kWeightedThreads;
  const size_t grid_step = spread * GROUPS;
  unsigned int s[GROUPS][C], m[GROUPS][M];
  auto load = [&] (size_t step_base, unsigned int (&ls)[GROUPS][C], unsigned int (&lm)[GROUPS][M]) {
#pragma unroll
    for (int k = 0; k < GROUPS; k++)
      {
        const size_t g = step_base + k * spread + threadIdx.x;
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
  size_t at = blockIdx.x * kWeightedThreads;
  load (at, s, m);
  int since_flush = 0;
  for (; at < groups; at += grid_step)
    {
      unsigned int ns[GROUPS][C], nm[GROUPS][M];
      load (at + grid_step, ns, nm);
      /* With a plane, a group past the end (zero coverage: zero weights, never near an edge)
       * is counted, not branched around: under the branch the SASS redid the lane setup. */
      unsigned int near_edge[GROUPS];
#pragma unroll
      for (int k = 0; k < GROUPS; k++)
        near_edge[k] = COV > 0 || at + k * spread + threadIdx.x < groups
                           ? count_group<C, COV, ALPHA, DERIVED, LUM3> (l, s[k], m[k])
                           : 0u;
      if (DERIVED)
#pragma unroll
        for (int k = 0; k < GROUPS; k++)
          if (near_edge[k])
            fix_luminance<C, COV, ALPHA, LUM3> (l, words_of<C, COV> (s[k], m[k]));
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
      tail_group<C, COV, ALPHA, DERIVED, LUM3> (l, words_of<C, COV> (ts, tm),
                                                static_cast<int> (tail));
    }
  __syncthreads ();
  flush_columns<traits::tables> (sh, out);
}

} // namespace gh

#endif /* GPUHIST_WEIGHTED_FAST_KERNEL_CUH */
