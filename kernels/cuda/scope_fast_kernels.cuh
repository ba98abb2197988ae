/* gpu-histogram: FASTEST for the scopes of unweighted 8-bit runs whose rows are a multiple of
 * four pixels wide (cuda_scopes.cu picks them; the other runs take scope_kernels.cuh's).
 *
 * A thread reads four pixels at once (C 32-bit words, one 16-byte load for RGBA) and adds runs
 * of equal cells among them once, so that flat areas cost a quarter of the atomics.  Counters
 * are 16-bit, two a word (add16 of scope_kernels.cuh): the waveform's slice of a tile of image
 * columns, or the whole vectorscope, in half the shared memory of 32-bit counters. */
#ifndef GPUHIST_SCOPE_FAST_KERNELS_CUH
#define GPUHIST_SCOPE_FAST_KERNELS_CUH

#include "gimp_bins.cuh"
#include "scope_kernels.cuh"

namespace gh
{

/* Equal neighbours among four cells as runs: run r adds n[r] to at[r]; returns the runs. */
__device__ __forceinline__ int
runs_of (const unsigned int (&cell)[4], unsigned int (&at)[4], unsigned int (&n)[4])
{
  int runs = 0;
#pragma unroll
  for (int k = 0; k < 4; k++)
    if (k > 0 && cell[k] == cell[k - 1])
      n[runs - 1]++;
    else
      {
        at[runs] = cell[k];
        n[runs] = 1;
        runs++;
      }
  return runs;
}

/* Adds n into 16-bit counter `cell` of a packed table and returns the word's old value: the adds
 * of a group are issued together and their wraps settled after (settle16), so that no add waits
 * for the one before it. */
__device__ __forceinline__ unsigned int
issue16 (unsigned int *words, unsigned int cell, unsigned int n)
{
  return atomicAdd (&words[cell >> 1], n << ((cell & 1u) * 16u));
}

/* What an add that found `old` moves into the strip table when it wrapped (spill (cell,
 * amount)), as add16 of scope_kernels.cuh. */
template <typename SPILL>
__device__ __forceinline__ void
settle16 (unsigned int *words, unsigned int cell, unsigned int n, unsigned int old, SPILL spill)
{
  const unsigned int shift = (cell & 1u) * 16u, delta = n << shift;
  if (old + delta < old)
    spill (cell | 1u, 65536ull);
  if (shift == 0 && (old & 0xFFFFu) + n > 0xFFFFu)
    {
      const unsigned int before = atomicSub (&words[cell >> 1], 0x10000u);
      spill (cell, 65536ull);
      if (before < 0x10000u)
        spill (cell | 1u, 0ull - 65536ull);
    }
}

/* Four pixels of C 8-bit samples, as C words. */
template <int C>
__device__ __forceinline__ void
load_four (const uint8_t *samples, size_t first_pixel, unsigned int (&w)[C])
{
  const unsigned int *p = reinterpret_cast<const unsigned int *> (samples + first_pixel * C);
  if (C == 4)
    {
      const uint4 q = __ldcs (reinterpret_cast<const uint4 *> (p));
      w[0] = q.x, w[1 % C] = q.y, w[2 % C] = q.z, w[3 % C] = q.w;
    }
  else
    for (int i = 0; i < C; i++)
      w[i] = __ldcs (p + i);
}

template <int C>
__device__ __forceinline__ unsigned int
sample_of (const unsigned int (&w)[C], int k, int c)
{
  const int byte = k * C + c;
  return (w[byte >> 2] >> ((byte & 3) * 8)) & 0xFFu;
}

/* GIMP's 8-bit luminance bin under the run's rule: for GIMP 2.10's, gimp_bins.cuh's estimate
 * with GIMP's arithmetic near an edge; GIMP 3.0's in its own arithmetic. */
__device__ __forceinline__ unsigned int
luminance_u8 (unsigned int r, unsigned int g, unsigned int b, gh_luminance rule)
{
  if (rule != GH_LUMINANCE_GIMP2)
    return static_cast<unsigned int> (gh_luminance_bin_u8 (r, g, b, rule));
  const unsigned int x = r * kLumR + g * kLumG + b * kLumB + kLumHalf;
  if (x & kLumNearEdge)
    return x >> 16;
  return static_cast<unsigned int> (gh_luminance_bin_u8 (r, g, b, rule));
}

/* Output channel c's bin of pixel k: a sample, value (C) or luminance (C + 1). */
template <int C>
__device__ __forceinline__ unsigned int
bin_of (const unsigned int (&w)[C], int k, int c, gh_luminance rule)
{
  if (c < C)
    return sample_of<C> (w, k, c);
  const unsigned int r = sample_of<C> (w, k, 0), g = sample_of<C> (w, k, 1),
                     b = sample_of<C> (w, k, 2);
  return c == C ? max (r, max (g, b)) : luminance_u8 (r, g, b, rule);
}

/* The waveform: a block owns a tile of image columns (tile_width pixels, a multiple of 4) and a
 * band of rows; its copy is the slice of the output columns the tile reaches (slice_columns at
 * most).  Threads: x over the tile in fours, y over rows.  The bands are short enough that no
 * counter can pass 65535 (a band's rows times the most image columns of one output column), so
 * the adds need no answer and never wait. */
template <int C>
static __global__ void
waveform_tiles_kernel (scope_job j, int tile_width, int slice_columns)
{
  extern __shared__ unsigned int words[];
  const int x0 = blockIdx.x * tile_width, x1 = min (x0 + tile_width, j.width);
  const int c0 = j.column_of_x[x0];
  const unsigned int cells = static_cast<unsigned int> (j.tables * slice_columns * 256);
  const int thread = threadIdx.y * blockDim.x + threadIdx.x, threads = blockDim.x * blockDim.y;
  for (unsigned int i = thread; i < cells / 2; i += threads)
    words[i] = 0;
  __syncthreads ();
  auto spill = [&] (unsigned int cell, unsigned long long amount) {
    const unsigned int t = cell / (slice_columns * 256), rest = cell % (slice_columns * 256);
    atomicAdd (&j.out[waveform_cell (j, t, c0 + rest / 256, rest % 256)], amount);
  };
  const unsigned int rows = static_cast<unsigned int> (j.pix.pixels / j.width);
  const unsigned int r0 = rows * blockIdx.y / gridDim.y, r1 = rows * (blockIdx.y + 1) / gridDim.y;
  for (unsigned int row = r0 + threadIdx.y; row < r1; row += blockDim.y)
    for (int x = x0 + 4 * threadIdx.x; x < x1; x += 4 * blockDim.x)
      {
        unsigned int w[C];
        load_four<C> (j.pix.samples, static_cast<size_t> (row) * j.width + x, w);
        const int4 columns = *reinterpret_cast<const int4 *> (j.column_of_x + x);
        const int local[4] = { columns.x - c0, columns.y - c0, columns.z - c0, columns.w - c0 };
#pragma unroll
        for (int c = 0; c < C + 2; c++)
          {
            const int t = j.table_of_channel[c];
            if (t < 0 || (C < 3 && c >= C))
              continue;
            unsigned int cell[4];
#pragma unroll
            for (int k = 0; k < 4; k++)
              cell[k] = static_cast<unsigned int> ((t * slice_columns + local[k]) * 256)
                        + bin_of<C> (w, k, c, j.pix.luminance);
            unsigned int at[4], n[4];
            const int runs = runs_of (cell, at, n);
#pragma unroll
            for (int r = 0; r < 4; r++)
              if (r < runs)
                atomicAdd (&words[at[r] >> 1], n[r] << ((at[r] & 1u) * 16u));
          }
      }
  __syncthreads ();
  for (unsigned int i = thread; i < cells; i += threads)
    {
      const unsigned int n = counter_at<16> (words, i);
      if (n)
        spill (i, n);
    }
}

/* The waveform of RGB and RGBA runs: a block owns a stripe of 32 x PX image columns, PX a warp
 * lane (4 where every output column starts at a multiple of 4, so that a lane's four pixels
 * are one load and lie in one column; else 1), and a band of rows, which its warps share out a
 * row at a time.  Every lane has its own 32-bit counters (level v of table t at byte
 * t * kLaneTableBytes + v * 128 + lane * 4), so the 32 adds of a warp land in 32 banks whatever
 * the levels, and an address is one shift and one LOP3 of the pixel's word.  A lane's pixels
 * all lie in one output column; at the end the block adds each table's lanes into their
 * columns, so no counter needs more than the band's rows. */
constexpr unsigned int kLaneTableBytes = 256 * 32 * 4;
constexpr int kLaneRows = 4;

template <int C>
__device__ __forceinline__ unsigned int
load_pixel (const uint8_t *samples, size_t p)
{
  if (C == 4)
    return __ldcs (reinterpret_cast<const unsigned int *> (samples) + p);
  const uint8_t *q = samples + p * 3;
  return static_cast<unsigned int> (__ldcs (q)) | static_cast<unsigned int> (__ldcs (q + 1)) << 8
         | static_cast<unsigned int> (__ldcs (q + 2)) << 16;
}

/* Byte k of w as a level's offset in a lane table, level * 128. */
template <int K>
__device__ __forceinline__ unsigned int
level_offset (unsigned int w)
{
  return (K == 0 ? w << 7 : w >> (8 * K - 7)) & 0x7F80u;
}

/* GIMP's 8-bit luminance level of an RGB word, as a lane-table offset (level * 128): GIMP
 * 2.10's rule as two dot products in 8.16 (gimp_bins.cuh), its float arithmetic near an edge;
 * GIMP 3.0's rules in their own arithmetic. */
__device__ __forceinline__ unsigned int
luminance_offset (unsigned int w, gh_luminance rule)
{
  if (rule == GH_LUMINANCE_GIMP2)
    {
      const unsigned int y = luminance_estimate (w, 256u);
      if (y & kLumNearEdge)
        return (y >> 9) & 0x7F80u;
    }
  return static_cast<unsigned int> (
             gh_luminance_bin_u8 (w & 255u, (w >> 8) & 255u, (w >> 16) & 255u, rule))
         << 7;
}

/* Where a lane's adds go: each output channel's table offset with the lane's, or ~0 where the
 * waveform has no table for the channel. */
template <int C> struct lane_targets
{
  unsigned int at[C + 2];
};

template <int C>
__device__ __forceinline__ void
count_lane_pixel (char *counters, const lane_targets<C> &to, unsigned int w, bool derived,
                  gh_luminance rule)
{
  auto add = [&] (int c, unsigned int offset) {
    if (to.at[c] != ~0u)
      atomicAdd (reinterpret_cast<unsigned int *> (counters + (offset | to.at[c])), 1u);
  };
  add (0, level_offset<0> (w));
  add (1, level_offset<1> (w));
  add (2, level_offset<2> (w));
  if (C == 4)
    add (C - 1, level_offset<3> (w));
  if (!derived)
    return;
  /* The largest of three level offsets is that of the largest level: Value. */
  add (C, __vimax3_u32 (level_offset<0> (w), level_offset<1> (w), level_offset<2> (w)));
  if (to.at[C + 1] != ~0u)
    add (C + 1, luminance_offset (w, rule));
}

/* The sum of v over the lanes of `peers` (this lane among them). */
__device__ __forceinline__ unsigned int
sum_over (unsigned int peers, unsigned int v)
{
#if __CUDA_ARCH__ >= 800
  return __reduce_add_sync (peers, v);
#else
  unsigned int sum = 0;
  for (int k = 0; k < 32; k++)
    {
      const unsigned int x = __shfl_sync (~0u, v, k);
      sum += (peers >> k) & 1u ? x : 0u;
    }
  return sum;
#endif
}

/* Adds the lanes' counters into their output columns of the strip table: a warp a counter row
 * (a table's level), each lane its own counter, summed over the lanes of each column. */
__device__ __forceinline__ void
flush_lanes (const scope_job &j, const unsigned int *counters, const int *lane_column, int lanes)
{
  const unsigned int lane = threadIdx.x & 31u;
  const int column = lane < static_cast<unsigned int> (lanes) ? lane_column[lane] : -1;
  const unsigned int peers = __match_any_sync (~0u, column);
  const bool leader = column >= 0 && (peers & ((1u << lane) - 1)) == 0;
  for (int i = threadIdx.x >> 5; i < j.tables * 256; i += blockDim.x >> 5)
    {
      const unsigned int sum = sum_over (peers, counters[i * 32 + lane]);
      if (leader && sum)
        atomicAdd (&j.out[waveform_cell (j, i >> 8, column, i & 255u)],
                   static_cast<unsigned long long> (sum));
    }
}

/* A lane's pixels of one row: PX = 1, the pixel's word; PX = 4, the C words of four. */
template <int C, int PX> struct lane_row
{
  unsigned int w[PX == 1 ? 1 : C];
};

template <int C, int PX>
__device__ __forceinline__ lane_row<C, PX>
load_lane_row (const uint8_t *samples, size_t first_pixel)
{
  lane_row<C, PX> r;
  if constexpr (PX == 1)
    r.w[0] = load_pixel<C> (samples, first_pixel);
  else
    load_four<C> (samples, first_pixel, r.w);
  return r;
}

template <int C, int PX>
__device__ __forceinline__ void
count_lane_row (char *counters, const lane_targets<C> &to, const lane_row<C, PX> &r, bool derived,
                gh_luminance rule)
{
#pragma unroll
  for (int k = 0; k < PX; k++)
    {
      /* Pixel k's R, G, B (and A) in one word: RGB pixels straddle two words. */
      unsigned int word;
      if constexpr (PX == 1 || C == 4)
        word = r.w[k];
      else
        {
          const int i = k * C, o = i % 4, w = i / 4;
          word = __byte_perm (r.w[w], r.w[(w + 1) % C], o | (o + 1) << 4 | (o + 2) << 8);
        }
      count_lane_pixel<C> (counters, to, word, derived, rule);
    }
}

template <int C, int PX>
static __global__ void __launch_bounds__ (1024) waveform_lanes_kernel (scope_job j)
{
  extern __shared__ unsigned int counters[];
  __shared__ int lane_column[32];
  const unsigned int lane = threadIdx.x & 31u, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  const int x0 = blockIdx.x * 32 * PX, x = x0 + static_cast<int> (lane) * PX;
  const int lanes = min (32, (j.width - x0 + PX - 1) / PX);
  for (unsigned int i = threadIdx.x; i < static_cast<unsigned int> (j.tables) * 256 * 32;
       i += blockDim.x)
    counters[i] = 0;
  if (threadIdx.x < static_cast<unsigned int> (lanes))
    lane_column[threadIdx.x] = j.column_of_x[x0 + threadIdx.x * PX];
  __syncthreads ();
  lane_targets<C> to;
#pragma unroll
  for (int c = 0; c < C + 2; c++)
    {
      const int t = j.table_of_channel[c];
      to.at[c] = t < 0 || (c >= C && !j.pix.derived) ? ~0u : t * kLaneTableBytes | lane << 2;
    }
  const unsigned int rows = static_cast<unsigned int> (j.pix.pixels / j.width);
  const unsigned int r0 = rows * blockIdx.y / gridDim.y, r1 = rows * (blockIdx.y + 1) / gridDim.y;
  char *bytes = reinterpret_cast<char *> (counters);
  const bool derived = j.pix.derived != 0;
  const gh_luminance rule = j.pix.luminance;
  const uint8_t *samples = j.pix.samples;
  if (x < j.width)
    {
      unsigned int row = r0 + warp;
      /* kLaneRows rows in flight a lane: their loads first, then their adds. */
      for (; row + (kLaneRows - 1) * warps < r1; row += kLaneRows * warps)
        {
          lane_row<C, PX> r[kLaneRows];
#pragma unroll
          for (int k = 0; k < kLaneRows; k++)
            r[k] = load_lane_row<C, PX> (samples,
                                         static_cast<size_t> (row + k * warps) * j.width + x);
#pragma unroll
          for (int k = 0; k < kLaneRows; k++)
            count_lane_row<C, PX> (bytes, to, r[k], derived, rule);
        }
      for (; row < r1; row += warps)
        count_lane_row<C, PX> (
            bytes, to, load_lane_row<C, PX> (samples, static_cast<size_t> (row) * j.width + x),
            derived, rule);
    }
  __syncthreads ();
  flush_lanes (j, counters, lane_column, lanes);
}

/* The vectorscope: the whole table a block, its pixels four at a time, two groups in flight. */
template <int C>
static __global__ void __launch_bounds__ (1024) vectorscope_fast_kernel (scope_job j)
{
  extern __shared__ unsigned int words[];
  constexpr unsigned int kCells = GH_VECTORSCOPE_SIZE * GH_VECTORSCOPE_SIZE;
  for (unsigned int i = threadIdx.x; i < kCells / 2; i += blockDim.x)
    words[i] = 0;
  __syncthreads ();
  auto spill
      = [&] (unsigned int cell, unsigned long long amount) { atomicAdd (&j.out[cell], amount); };
  auto count = [&] (const unsigned int (&w)[C]) {
    unsigned int cell[4];
#pragma unroll
    for (int k = 0; k < 4; k++)
      cell[k] = static_cast<unsigned int> (gh_vectorscope_cell (
          static_cast<int> (sample_of<C> (w, k, 0)), static_cast<int> (sample_of<C> (w, k, 1)),
          static_cast<int> (sample_of<C> (w, k, 2))));
    unsigned int at[4], n[4], old[4];
    const int runs = runs_of (cell, at, n);
#pragma unroll
    for (int r = 0; r < 4; r++)
      if (r < runs)
        old[r] = issue16 (words, at[r], n[r]);
#pragma unroll
    for (int r = 0; r < 4; r++)
      if (r < runs)
        settle16 (words, at[r], n[r], old[r], spill);
  };
  const size_t groups = j.pix.pixels / 4, step = gridDim.x * static_cast<size_t> (blockDim.x);
  size_t g = blockIdx.x * static_cast<size_t> (blockDim.x) + threadIdx.x;
  for (; g + step < groups; g += 2 * step)
    {
      unsigned int a[C], b[C];
      load_four<C> (j.pix.samples, 4 * g, a);
      load_four<C> (j.pix.samples, 4 * (g + step), b);
      count (a);
      count (b);
    }
  if (g < groups)
    {
      unsigned int a[C];
      load_four<C> (j.pix.samples, 4 * g, a);
      count (a);
    }
  __syncthreads ();
  for (unsigned int i = threadIdx.x; i < kCells; i += blockDim.x)
    {
      const unsigned int n = counter_at<16> (words, i);
      if (n)
        spill (i, n);
    }
}

} // namespace gh

#endif /* GPUHIST_SCOPE_FAST_KERNELS_CUH */
