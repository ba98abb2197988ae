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
 * are one load and lie in one column; else 1), and a band of rows, which its warps share out
 * kLaneRows rows at a time, the next rows loading while these are counted.  Every lane has its
 * own 32-bit counters, so the 32 adds of a warp land in 32 banks whatever the levels, and a
 * lane's pixels all lie in one output column: at the end the block adds each counter row's
 * lanes into their columns.
 *
 * A table of 256 levels x 32 lanes is a slot, the present channels' tables taking slots 0, 1, ...
 * in order: slot s's level v of lane l is at byte (s >> 1) << 16 | v << 8 | (s & 1) << 7 | l << 2,
 * so the level is byte 1 of the address and a sample's address is one byte permute of the
 * pixel's word with the lane's slot offset (as the histogram's lane columns, ENGINE.md).  Red,
 * green, blue and luminance take 128 KiB, one 1024-thread block an SM. */
constexpr int kLaneRows = 4;
constexpr int kLaneThreads = 1024;

/* The byte offset of slot s's counters of level 0, lane 0. */
__host__ __device__ constexpr unsigned int
lane_slot_offset (int s)
{
  return static_cast<unsigned int> ((s >> 1) << 16 | (s & 1) << 7);
}

/* The bytes that `slots` slots span: slots 0 and 1 share each 256-byte level, slots 2 and 3
 * the next 64 KiB, and so on. */
__host__ __device__ constexpr unsigned int
lane_table_bytes (int slots)
{
  return static_cast<unsigned int> ((slots + 1) / 2) * 65536u;
}

template <int C>
__device__ __forceinline__ unsigned int
load_pixel (const uint8_t *p)
{
  if (C == 4)
    return __ldcs (reinterpret_cast<const unsigned int *> (p));
  return static_cast<unsigned int> (__ldcs (p)) | static_cast<unsigned int> (__ldcs (p + 1)) << 8
         | static_cast<unsigned int> (__ldcs (p + 2)) << 16;
}

/* A lane's pixels of one row: PX = 1, the pixel's word; PX = 4, the C words of four. */
template <int C, int PX> struct lane_row
{
  unsigned int w[PX == 1 ? 1 : C];
};

/* A lane's pixels of the row whose lane's first byte is at p. */
template <int C, int PX>
__device__ __forceinline__ lane_row<C, PX>
load_lane_row (const uint8_t *p)
{
  lane_row<C, PX> r;
  if constexpr (PX == 1)
    r.w[0] = load_pixel<C> (p);
  else
    load_four<C> (p, 0, r.w);
  return r;
}

/* The counter of byte K of w in the slot at `at` (its offset with the lane's): byte K made byte
 * 1 of the offset. */
template <int K>
__device__ __forceinline__ unsigned int
level_at (unsigned int w, unsigned int at)
{
  return __byte_perm (w, at, 0x7604u | K << 4);
}

/* Pixel k's R, G, B (and A) in one word (RGB pixels of a four straddle two words). */
template <int C, int PX>
__device__ __forceinline__ unsigned int
pixel_word (const lane_row<C, PX> &r, int k)
{
  if constexpr (PX == 1 || C == 4)
    return r.w[k];
  else
    {
      const int i = k * C, o = i % 4, w = i / 4;
      return __byte_perm (r.w[w], r.w[(w + 1) % C], o | (o + 1) << 4 | (o + 2) << 8);
    }
}

/* The counter of sample c of pixel k of a lane's row. */
template <int C, int PX>
__device__ __forceinline__ unsigned int
sample_at (const lane_row<C, PX> &r, int k, int c, unsigned int at)
{
  const int byte = PX == 1 ? c : k * C + c;
  const unsigned int w = r.w[byte / 4];
  switch (byte % 4)
    {
    case 0: return level_at<0> (w, at);
    case 1: return level_at<1> (w, at);
    case 2: return level_at<2> (w, at);
    default: return level_at<3> (w, at);
    }
}

/* GIMP's 8-bit luminance level of an RGB word, in byte 2, under GIMP 3.0's rules (whose lane
 * waveform counts every pixel so).  Not inlined, so that its registers are not the hot loop's. */
static __device__ __noinline__ unsigned int
exact_luminance_in_byte2 (unsigned int w, gh_luminance rule)
{
  return static_cast<unsigned int> (
             gh_luminance_bin_u8 (w & 255u, (w >> 8) & 255u, (w >> 16) & 255u, rule))
         << 16;
}

/* GIMP 2.10's 8-bit luminance level of an RGB word in GIMP's float arithmetic, from the block's
 * table of its products (luminance_term_u8: three loads and two double adds, no division). */
__device__ __forceinline__ unsigned int
luminance_from_terms (unsigned int w, const double *terms)
{
  return static_cast<unsigned int> (gh_luminance_bin_from_terms (
      terms[w & 255u], terms[256 + ((w >> 8) & 255u)], terms[512 + ((w >> 16) & 255u)], 256));
}

/* Counts ROWS rows of a lane, a channel at a time (the channel's test is the same in every
 * thread).  at[c]: channel c's slot offset with the lane's, ~0u where it has no table.  Under
 * GIMP 2.10's rule (GIMP2) luminance is counted at gimp_bins.cuh's estimate, and the smallest of
 * the estimates' edge bits is returned: 0 where a pixel lies near an edge (fix_lane_rows). */
template <int C, int PX, bool GIMP2, int ROWS>
__device__ __forceinline__ unsigned int
count_lane_rows (char *counters, const unsigned int (&at)[C + 2], const lane_row<C, PX> (&r)[ROWS],
                 gh_luminance rule, unsigned int k256)
{
  auto add = [&] (unsigned int address) {
    atomicAdd (reinterpret_cast<unsigned int *> (counters + address), 1u);
  };
#pragma unroll
  for (int c = 0; c < C; c++)
    if (at[c] != ~0u)
#pragma unroll
      for (int i = 0; i < ROWS; i++)
#pragma unroll
        for (int k = 0; k < PX; k++)
          add (sample_at<C, PX> (r[i], k, c, at[c]));
  if (at[C] != ~0u)
#pragma unroll
    for (int i = 0; i < ROWS; i++)
#pragma unroll
      for (int k = 0; k < PX; k++)
        {
          /* Value: the largest of R, G and B. */
          const unsigned int w = pixel_word<C, PX> (r[i], k);
          add (level_at<0> (
              __vimax3_u32 (w & 255u, __byte_perm (w, 0, 0x4441u), __byte_perm (w, 0, 0x4442u)),
              at[C]));
        }
  unsigned int nearest = ~0u;
  if (at[C + 1] != ~0u)
#pragma unroll
    for (int i = 0; i < ROWS; i++)
#pragma unroll
      for (int k = 0; k < PX; k++)
        {
          const unsigned int w = pixel_word<C, PX> (r[i], k);
          if (GIMP2)
            {
              const unsigned int y = luminance_estimate (w, k256);
              nearest = min (nearest, y & kLumNearEdge);
              add (level_at<2> (y, at[C + 1]));
            }
          else
            add (level_at<2> (exact_luminance_in_byte2 (w, rule), at[C + 1]));
        }
  return nearest;
}

/* GIMP 2.10's rule near an edge (a pixel in 4000 on noise): the pixels that count_lane_rows
 * counted at an estimate near an edge move to GIMP's level where it differs, with the weight
 * that weight_of_pixel (row, pixel, word) gives them (1 unweighted).  The counter one leaves got
 * it just before, so it cannot wrap. */
template <int C, int PX, int ROWS, typename Weight>
__device__ __forceinline__ void
fix_lane_rows (char *counters, unsigned int at, const lane_row<C, PX> (&r)[ROWS], unsigned int k256,
               const double *terms, Weight weight_of_pixel)
{
#pragma unroll
  for (int i = 0; i < ROWS; i++)
#pragma unroll
    for (int k = 0; k < PX; k++)
      {
        const unsigned int w = pixel_word<C, PX> (r[i], k);
        const unsigned int y = luminance_estimate (w, k256);
        if (y & kLumNearEdge)
          continue;
        const unsigned int exact = luminance_from_terms (w, terms);
        if (exact == y >> 16)
          continue;
        const unsigned int n = weight_of_pixel (i, k, w);
        atomicSub (reinterpret_cast<unsigned int *> (counters + level_at<2> (y, at)), n);
        atomicAdd (reinterpret_cast<unsigned int *> (counters + (at | exact << 8)), n);
      }
}

/* Counts ROWS rows of a lane and, where a pixel of any lane of `counting` (the warp's lanes that
 * count) lies near a luminance edge, fixes them: a branch the whole warp takes or skips. */
template <int C, int PX, bool GIMP2, int ROWS>
__device__ __forceinline__ void
count_and_fix (char *counters, const unsigned int (&at)[C + 2], const lane_row<C, PX> (&r)[ROWS],
               gh_luminance rule, unsigned int k256, const double *terms, unsigned int counting)
{
  const unsigned int nearest = count_lane_rows<C, PX, GIMP2, ROWS> (counters, at, r, rule, k256);
  if (GIMP2 && __any_sync (counting, nearest == 0))
    fix_lane_rows<C, PX, ROWS> (counters, at[C + 1], r, k256, terms,
                                [] (int, int, unsigned int) { return 1u; });
}

/* Adds the lanes' counters into their output columns of the strip table.  A column's lanes are
 * consecutive (column_lane[k]: the first lane of the block's column k, then one past the last):
 * a thread sums one column's lanes of one counter row (a slot's level), a warp as many rows as
 * its 32 threads hold of the block's columns, each thread starting at another of its lanes so
 * that a warp's reads fall in different banks.  slot_table[s]: the table of slot s.  SUM holds
 * a column's sum (weighted lanes' counters can each be near 2^32). */
template <typename SUM = unsigned int>
__device__ __forceinline__ void
flush_lanes (const scope_job &j, const unsigned int *counters, const int *lane_column,
             const int *column_lane, int lanes, const int *slot_table, int slots)
{
  const unsigned int lane = threadIdx.x & 31u;
  const int c0 = lane_column[0], columns = lane_column[lanes - 1] - c0 + 1;
  int spread = 1; /* the columns, rounded up to a power of two */
  while (spread < columns)
    spread <<= 1;
  const int per_warp = 32 / spread, q = static_cast<int> (lane) / spread;
  const int k = static_cast<int> (lane) & (spread - 1);
  if (k >= columns)
    return;
  const int first = column_lane[k], n = column_lane[k + 1] - first;
  for (int i = static_cast<int> (threadIdx.x >> 5) * per_warp + q; i < slots * 256;
       i += static_cast<int> (blockDim.x >> 5) * per_warp)
    {
      const int s = i >> 8;
      const unsigned int v = i & 255u;
      const unsigned int *row = counters + (lane_slot_offset (s) | v << 8) / 4 + first;
      SUM sum = 0;
      for (int m = 0, l = q % n; m < n; m++, l = l + 1 == n ? 0 : l + 1)
        sum += row[l];
      if (sum)
        atomicAdd (&j.out[waveform_cell (j, slot_table[s], c0 + k, v)],
                   static_cast<unsigned long long> (sum));
    }
}

/* A lane-table block's start (waveform_lanes_kernel, waveform_weighted_lanes_kernel): each
 * channel's slot offset with the lane's (at[c], ~0u without a table), the slots' tables, the
 * counters zeroed, each lane's output column and GIMP 2.10's products.  Returns the slots. */
template <int C, int PX, bool GIMP2>
__device__ __forceinline__ int
start_lane_tables (const scope_job &j, unsigned int (&at)[C + 2], int *slot_table,
                   uint4 *lane_counters, int *lane_column, int lanes, double *terms)
{
  const unsigned int lane = threadIdx.x & 31u;
  const int x0 = blockIdx.x * 32 * PX;
  int slots = 0;
#pragma unroll
  for (int c = 0; c < C + 2; c++)
    {
      const int t = j.table_of_channel[c];
      at[c] = ~0u;
      if (t >= 0 && (c < C || j.pix.derived))
        {
          at[c] = lane_slot_offset (slots) | lane << 2;
          if (threadIdx.x == 0)
            slot_table[slots] = t;
          slots++;
        }
    }
  for (unsigned int i = threadIdx.x; i < lane_table_bytes (slots) / 16; i += blockDim.x)
    lane_counters[i] = make_uint4 (0, 0, 0, 0);
  if (threadIdx.x < static_cast<unsigned int> (lanes))
    lane_column[threadIdx.x] = j.column_of_x[x0 + threadIdx.x * PX];
  if (GIMP2)
    for (unsigned int i = threadIdx.x; i < 3 * 256; i += blockDim.x)
      terms[i] = luminance_term_u8 (static_cast<int> (i >> 8), i & 255u);
  return slots;
}

/* Where each column's lanes start (column_lane), after the barrier that follows the start. */
__device__ __forceinline__ void
mark_column_lanes (const int *lane_column, int *column_lane, int lanes)
{
  if (threadIdx.x < static_cast<unsigned int> (lanes))
    {
      const int t = static_cast<int> (threadIdx.x), k = lane_column[t] - lane_column[0];
      if (t == 0 || lane_column[t] != lane_column[t - 1])
        column_lane[k] = t;
      if (t == lanes - 1)
        column_lane[k + 1] = lanes;
    }
}

/* k256 is 256, from a kernel argument so that the luminance estimate's product stays an IMAD
 * (gimp_bins.cuh). */
template <int C, int PX, bool GIMP2>
static __global__ void
__launch_bounds__ (kLaneThreads) waveform_lanes_kernel (scope_job j, unsigned int k256)
{
  constexpr int ROWS = kLaneRows;
  extern __shared__ uint4 lane_counters[];
  __shared__ double terms[GIMP2 ? 3 * 256 : 1];
  __shared__ int lane_column[32], column_lane[33], slot_table[GH_MAX_CHANNELS + 2];
  const unsigned int lane = threadIdx.x & 31u, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  const int x0 = blockIdx.x * 32 * PX, x = x0 + static_cast<int> (lane) * PX;
  const int lanes = min (32, (j.width - x0 + PX - 1) / PX);
  unsigned int at[C + 2];
  const int slots = start_lane_tables<C, PX, GIMP2> (j, at, slot_table, lane_counters, lane_column,
                                                     lanes, terms);
  __syncthreads ();
  mark_column_lanes (lane_column, column_lane, lanes);
  const unsigned int rows = static_cast<unsigned int> (j.pix.pixels / j.width);
  const unsigned int r0 = rows * blockIdx.y / gridDim.y, r1 = rows * (blockIdx.y + 1) / gridDim.y;
  char *bytes = reinterpret_cast<char *> (lane_counters);
  const gh_luminance rule = j.pix.luminance;
  const unsigned int counting = __ballot_sync (~0u, x < j.width);
  if (x < j.width)
    {
      /* The lane's first byte of row r0 + warp, and the bytes between a warp's rows. */
      const size_t row_bytes = static_cast<size_t> (j.width) * C, step = warps * row_bytes;
      const uint8_t *p = j.pix.samples + static_cast<size_t> (x) * C + (r0 + warp) * row_bytes;
      unsigned int row = r0 + warp;
      lane_row<C, PX> r[ROWS];
      if (row + (ROWS - 1) * warps < r1)
#pragma unroll
        for (int i = 0; i < ROWS; i++)
          r[i] = load_lane_row<C, PX> (p + i * step);
      for (; row + (ROWS - 1) * warps < r1; row += ROWS * warps, p += ROWS * step)
        {
          /* The next rows (these again after the last) load while these are counted. */
          const uint8_t *after = row + (2 * ROWS - 1) * warps < r1 ? p + ROWS * step : p;
          lane_row<C, PX> next[ROWS];
#pragma unroll
          for (int i = 0; i < ROWS; i++)
            next[i] = load_lane_row<C, PX> (after + i * step);
          count_and_fix<C, PX, GIMP2, ROWS> (bytes, at, r, rule, k256, terms, counting);
#pragma unroll
          for (int i = 0; i < ROWS; i++)
            r[i] = next[i];
        }
      for (; row < r1; row += warps, p += step)
        {
          const lane_row<C, PX> one[1] = { load_lane_row<C, PX> (p) };
          count_and_fix<C, PX, GIMP2, 1> (bytes, at, one, rule, k256, terms, counting);
        }
    }
  __syncthreads ();
  flush_lanes (j, reinterpret_cast<const unsigned int *> (lane_counters), lane_column, column_lane,
               lanes, slot_table, slots);
}

/* The vectorscope: the whole table a block in 16-bit counters (kVectorscopeWords words), its
 * pixels four at a time, the next two fours of a thread loading while two are counted.  At the
 * end a block whose table holds few nonzero words adds them into the strip table; a denser one
 * (noise: nearly every cell) writes its table to its own partial table instead, and
 * vectorscope_fold_partials_kernel adds the dense blocks' tables up once, a cell a thread, so
 * that the strip table gets one add a cell rather than one a block. */
constexpr unsigned int kVectorscopeWords = GH_VECTORSCOPE_SIZE * GH_VECTORSCOPE_SIZE / 2;
constexpr unsigned int kVectorscopeSparseWords = 2048;
constexpr int kVectorscopeGroups = 2;

/* Where runs of equal cells start among four, and each start's length (no array indexed at run
 * time, so that all of it stays in registers). */
__device__ __forceinline__ void
run_starts (const unsigned int (&cell)[4], bool (&starts)[4], unsigned int (&n)[4])
{
  const bool e1 = cell[1] == cell[0], e2 = cell[2] == cell[1], e3 = cell[3] == cell[2];
  starts[0] = true;
  starts[1] = !e1;
  starts[2] = !e2;
  starts[3] = !e3;
  n[3] = 1;
  n[2] = 1 + e3;
  n[1] = 1 + e2 + (e2 && e3);
  n[0] = 1 + e1 + (e1 && e2) + (e1 && e2 && e3);
}

/* c + a's two signed 16-bit halves times w's bytes 0 and 1 (HI: 2 and 3), the bytes unsigned:
 * PTX's mixed-sign dp2a, which the intrinsics (both operands signed or both unsigned) lack. */
template <bool HI>
__device__ __forceinline__ int
dot_halves_bytes (unsigned int a, unsigned int w, int c)
{
  int d;
  if (HI)
    asm("dp2a.hi.s32.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(w), "r"(c));
  else
    asm("dp2a.lo.s32.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(w), "r"(c));
  return d;
}

__host__ __device__ constexpr unsigned int
halves (int lo, int hi)
{
  return static_cast<unsigned int> (static_cast<uint16_t> (lo))
         | static_cast<unsigned int> (static_cast<uint16_t> (hi)) << 16;
}

/* gh_vectorscope_cell of the pixel word w (R, G, B in bytes 0-2; byte 3 is ignored) in four dot
 * products.  The weight 32768 does not fit a signed half, so its level enters as 255 - level
 * (a byte of ~w) with the weight -32768, and Cr's G likewise with +29763 so that R and G share
 * one product; the constants take back 255 times each.  The sums are the formula's exactly;
 * below 2^24 after min (), byte 2 of each is its level, and one byte permute forms the cell. */
__device__ __forceinline__ unsigned int
vectorscope_cell_of_word (unsigned int w)
{
  const unsigned int inverse = ~w;
  const int cb = dot_halves_bytes<false> (
      halves (GH_CB_R, GH_CB_G), w,
      dot_halves_bytes<true> (halves (-GH_CB_B, 0), inverse, GH_CHROMA_OFFSET + GH_CB_B * 255));
  const int cr = dot_halves_bytes<false> (
      halves (-GH_CR_R, -GH_CR_G), inverse,
      dot_halves_bytes<true> (halves (GH_CR_B, 0), w,
                              GH_CHROMA_OFFSET + (GH_CR_R + GH_CR_G) * 255));
  return __byte_perm (min (static_cast<unsigned int> (cb), 0xFFFFFFu),
                      min (static_cast<unsigned int> (cr), 0xFFFFFFu), 0x7362u);
}

/* Pixel k's word of four pixels of C 8-bit samples (C >= 3). */
template <int C>
__device__ __forceinline__ unsigned int
rgb_word_of (const unsigned int (&w)[C], int k)
{
  if constexpr (C == 4)
    return w[k];
  else
    {
      const int i = k * C, o = i % 4, n = i / 4;
      return __byte_perm (w[n], w[(n + 1) % C], o | (o + 1) << 4 | (o + 2) << 8);
    }
}

/* Counts G fours of pixels: every add is issued before any answer is looked at, and settle16
 * runs only for an add whose counter passed 65535 (a single test on the common path). */
template <int C, int G>
__device__ __forceinline__ void
count_vectorscope_fours (unsigned int *words, unsigned long long *out,
                         const unsigned int (&w)[G][C])
{
  auto spill
      = [&] (unsigned int cell, unsigned long long amount) { atomicAdd (&out[cell], amount); };
  unsigned int cell[G][4], n[G][4], old[G][4];
  bool starts[G][4];
#pragma unroll
  for (int i = 0; i < G; i++)
    {
#pragma unroll
      for (int k = 0; k < 4; k++)
        cell[i][k] = vectorscope_cell_of_word (rgb_word_of<C> (w[i], k));
      run_starts (cell[i], starts[i], n[i]);
#pragma unroll
      for (int k = 0; k < 4; k++)
        if (starts[i][k])
          old[i][k] = issue16 (words, cell[i][k], n[i][k]);
    }
#pragma unroll
  for (int i = 0; i < G; i++)
#pragma unroll
    for (int k = 0; k < 4; k++)
      if (starts[i][k] && ((old[i][k] >> ((cell[i][k] & 1u) * 16u)) & 0xFFFFu) + n[i][k] > 0xFFFFu)
        settle16 (words, cell[i][k], n[i][k], old[i][k], spill);
}

/* The start of a vectorscope block's end: each of the block's THREADS threads loads its N
 * 16-byte pieces of the table (piece threadIdx.x + k * THREADS), and the block counts its nonzero
 * counters into *nonzero (zero before).  A table with at most `sparse` of them is added into the
 * strip table, a denser one goes to the block's partial table (j.partial_used says which);
 * returns whether it is sparse. */
template <unsigned int N, unsigned int THREADS>
__device__ __forceinline__ bool
load_table_pieces (const scope_job &j, const uint4 *table, uint4 (&q)[N], unsigned int *nonzero,
                   unsigned int sparse)
{
  unsigned int mine = 0;
#pragma unroll
  for (unsigned int k = 0; k < N; k++)
    {
      q[k] = table[threadIdx.x + k * THREADS];
      mine += (q[k].x != 0) + (q[k].y != 0) + (q[k].z != 0) + (q[k].w != 0);
    }
#pragma unroll
  for (int d = 16; d > 0; d /= 2)
    mine += __shfl_xor_sync (~0u, mine, d);
  if ((threadIdx.x & 31u) == 0)
    atomicAdd (nonzero, mine);
  __syncthreads ();
  const bool is_sparse = *nonzero <= sparse;
  if (threadIdx.x == 0)
    j.partial_used[blockIdx.x] = !is_sparse;
  return is_sparse;
}

/* The end of a block: its table into the strip table (few nonzero words) or into its partial
 * table, marked used.  Each thread holds eight 16-byte pieces of the table. */
__device__ __forceinline__ void
flush_vectorscope (const scope_job &j, const uint4 *table, unsigned int *nonzero)
{
  constexpr unsigned int kPieces = kVectorscopeWords / 4;
  uint4 q[kPieces / 1024];
  const bool sparse
      = load_table_pieces<kPieces / 1024, 1024> (j, table, q, nonzero, kVectorscopeSparseWords);
  uint4 *partial
      = reinterpret_cast<uint4 *> (j.partials) + blockIdx.x * static_cast<size_t> (kPieces);
#pragma unroll
  for (unsigned int k = 0; k < kPieces / 1024; k++)
    {
      const unsigned int piece = threadIdx.x + k * 1024;
      if (!sparse)
        {
          partial[piece] = q[k];
          continue;
        }
      const unsigned int v[4] = { q[k].x, q[k].y, q[k].z, q[k].w };
#pragma unroll
      for (int m = 0; m < 4; m++)
        {
          const unsigned int cell = (piece * 4 + m) * 2;
          if (v[m] & 0xFFFFu)
            atomicAdd (&j.out[cell], static_cast<unsigned long long> (v[m] & 0xFFFFu));
          if (v[m] >> 16)
            atomicAdd (&j.out[cell + 1], static_cast<unsigned long long> (v[m] >> 16));
        }
    }
}

/* 1024 threads, one block an SM: the 128 KiB table leaves room for no second block. */
template <int C>
static __global__ void __launch_bounds__ (1024) vectorscope_fast_kernel (scope_job j)
{
  constexpr int G = kVectorscopeGroups;
  extern __shared__ uint4 vectorscope_table[];
  __shared__ unsigned int nonzero;
  unsigned int *words = reinterpret_cast<unsigned int *> (vectorscope_table);
  for (unsigned int i = threadIdx.x; i < kVectorscopeWords / 4; i += blockDim.x)
    vectorscope_table[i] = make_uint4 (0, 0, 0, 0);
  if (threadIdx.x == 0)
    nonzero = 0;
  __syncthreads ();
  const size_t groups = j.pix.pixels / 4, step = gridDim.x * static_cast<size_t> (blockDim.x);
  size_t g = blockIdx.x * static_cast<size_t> (blockDim.x) + threadIdx.x;
  if (g + (G - 1) * step < groups)
    {
      unsigned int now[G][C];
#pragma unroll
      for (int i = 0; i < G; i++)
        load_four<C> (j.pix.samples, 4 * (g + i * step), now[i]);
      for (;;)
        {
          /* The next fours (these again after the last) load while these are counted. */
          const bool more = g + (2 * G - 1) * step < groups;
          const size_t after = more ? g + G * step : g;
          unsigned int next[G][C];
#pragma unroll
          for (int i = 0; i < G; i++)
            load_four<C> (j.pix.samples, 4 * (after + i * step), next[i]);
          count_vectorscope_fours<C, G> (words, j.out, now);
          g += G * step;
          if (!more)
            break;
#pragma unroll
          for (int i = 0; i < G; i++)
#pragma unroll
            for (int c = 0; c < C; c++)
              now[i][c] = next[i][c];
        }
    }
  for (; g < groups; g += step)
    {
      unsigned int one[1][C];
      load_four<C> (j.pix.samples, 4 * g, one[0]);
      count_vectorscope_fours<C, 1> (words, j.out, one);
    }
  __syncthreads ();
  flush_vectorscope (j, vectorscope_table, &nonzero);
}

/* The dense blocks' partial tables added into the strip table: a block of 32 x 8 threads owns
 * 128 words (256 cells), each thread four words of every eighth partial table; the eight sums
 * of a cell meet in shared memory and one thread adds them into the strip table (no other
 * thread adds to that cell during this kernel). */
constexpr int kFoldWidth = 32, kFoldSlices = 8;

static __global__ void
vectorscope_fold_partials_kernel (const unsigned int *partials, const int *used, int blocks,
                                  unsigned long long *out)
{
  __shared__ unsigned int sums[kFoldSlices][kFoldWidth * 8];
  const unsigned int piece = blockIdx.x * kFoldWidth + threadIdx.x;
  unsigned int low[4] = {}, high[4] = {};
  for (int b = threadIdx.y; b < blocks; b += kFoldSlices)
    if (used[b])
      {
        const uint4 q = reinterpret_cast<const uint4 *> (
            partials)[static_cast<size_t> (b) * (kVectorscopeWords / 4) + piece];
        const unsigned int v[4] = { q.x, q.y, q.z, q.w };
#pragma unroll
        for (int m = 0; m < 4; m++)
          {
            low[m] += v[m] & 0xFFFFu;
            high[m] += v[m] >> 16;
          }
      }
#pragma unroll
  for (int m = 0; m < 4; m++)
    {
      sums[threadIdx.y][threadIdx.x * 8 + 2 * m] = low[m];
      sums[threadIdx.y][threadIdx.x * 8 + 2 * m + 1] = high[m];
    }
  __syncthreads ();
  const unsigned int v = threadIdx.y * kFoldWidth + threadIdx.x;
  unsigned long long total = 0;
#pragma unroll
  for (int s = 0; s < kFoldSlices; s++)
    total += sums[s][v];
  if (total)
    out[blockIdx.x * (kFoldWidth * 8) + v] += total;
}

} // namespace gh

#endif /* GPUHIST_SCOPE_FAST_KERNELS_CUH */
