/* gpu-histogram: FASTEST's waveform of 8-bit RGB and RGBA runs in lane tables (cuda_scopes.cu
 * picks it; scope_weighted_waveform.cuh carries it to weighted runs).  Device code only. */
#ifndef GPUHIST_SCOPE_LANE_WAVEFORM_CUH
#define GPUHIST_SCOPE_LANE_WAVEFORM_CUH

#include "scope_fast_kernels.cuh"

namespace gh
{

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

/* What a pixel adds: weight (i, k, c, w) for pixel k of row i, output channel c (value C,
 * luminance C + 1), the pixel's word w.  Unweighted runs add 1. */
struct unit_weight
{
  __device__ unsigned int
  operator() (int, int, int, unsigned int) const
  {
    return 1u;
  }
};

/* Counts ROWS rows of a lane, a channel at a time (the channel's test is the same in every
 * thread).  at[c]: channel c's slot offset with the lane's, ~0u where it has no table.  Under
 * GIMP 2.10's rule (GIMP2) luminance is counted at gimp_bins.cuh's estimate, and the smallest of
 * the estimates' edge bits is returned: 0 where a pixel lies near an edge (fix_lane_rows). */
template <int C, int PX, bool GIMP2, int ROWS, typename Weight>
__device__ __forceinline__ unsigned int
count_lane_rows (char *counters, const unsigned int (&at)[C + 2], const lane_row<C, PX> (&r)[ROWS],
                 gh_luminance rule, unsigned int k256, Weight weight)
{
  auto add = [&] (unsigned int address, unsigned int n) {
    atomicAdd (reinterpret_cast<unsigned int *> (counters + address), n);
  };
#pragma unroll
  for (int c = 0; c < C; c++)
    if (at[c] != ~0u)
#pragma unroll
      for (int i = 0; i < ROWS; i++)
#pragma unroll
        for (int k = 0; k < PX; k++)
          add (sample_at<C, PX> (r[i], k, c, at[c]), weight (i, k, c, pixel_word<C, PX> (r[i], k)));
  if (at[C] != ~0u)
#pragma unroll
    for (int i = 0; i < ROWS; i++)
#pragma unroll
      for (int k = 0; k < PX; k++)
        {
          /* Value: the largest of R, G and B. */
          const unsigned int w = pixel_word<C, PX> (r[i], k);
          add (level_at<0> (__vimax3_u32 (w & 255u, __byte_perm (w, 0, 0x4441u),
                                          __byte_perm (w, 0, 0x4442u)),
                            at[C]),
               weight (i, k, C, w));
        }
  unsigned int nearest = ~0u;
  if (at[C + 1] != ~0u)
#pragma unroll
    for (int i = 0; i < ROWS; i++)
#pragma unroll
      for (int k = 0; k < PX; k++)
        {
          const unsigned int w = pixel_word<C, PX> (r[i], k);
          const unsigned int n = weight (i, k, C + 1, w);
          if (GIMP2)
            {
              const unsigned int y = luminance_estimate (w, k256);
              nearest = min (nearest, y & kLumNearEdge);
              add (level_at<2> (y, at[C + 1]), n);
            }
          else
            add (level_at<2> (exact_luminance_in_byte2 (w, rule), at[C + 1]), n);
        }
  return nearest;
}

/* GIMP 2.10's rule near an edge (a pixel in 4000 on noise): the pixels that count_lane_rows
 * counted at an estimate near an edge move to GIMP's level where it differs, with their weight.
 * The counter one leaves got it just before, so it cannot wrap. */
template <int C, int PX, int ROWS, typename Weight>
__device__ __forceinline__ void
fix_lane_rows (char *counters, unsigned int at, const lane_row<C, PX> (&r)[ROWS], unsigned int k256,
               const double *terms, Weight weight)
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
        const unsigned int n = weight (i, k, C + 1, w);
        atomicSub (reinterpret_cast<unsigned int *> (counters + level_at<2> (y, at)), n);
        atomicAdd (reinterpret_cast<unsigned int *> (counters + (at | exact << 8)), n);
      }
}

/* Counts ROWS rows of a lane and, where a pixel of any lane of `counting` (the warp's lanes that
 * count) lies near a luminance edge, fixes them: a branch the whole warp takes or skips. */
template <int C, int PX, bool GIMP2, int ROWS, typename Weight = unit_weight>
__device__ __forceinline__ void
count_and_fix (char *counters, const unsigned int (&at)[C + 2], const lane_row<C, PX> (&r)[ROWS],
               gh_luminance rule, unsigned int k256, const double *terms, unsigned int counting,
               Weight weight = Weight ())
{
  const unsigned int nearest
      = count_lane_rows<C, PX, GIMP2, ROWS> (counters, at, r, rule, k256, weight);
  if (GIMP2 && __any_sync (counting, nearest == 0))
    fix_lane_rows<C, PX, ROWS> (counters, at[C + 1], r, k256, terms, weight);
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
  const unsigned int rows = static_cast<unsigned int> (j.pix.pixels / j.width);
  const unsigned int r0 = rows * blockIdx.y / gridDim.y, r1 = rows * (blockIdx.y + 1) / gridDim.y;
  /* The lane's first byte of row r0 + warp, and the bytes between a warp's rows. */
  const size_t row_bytes = static_cast<size_t> (j.width) * C, step = warps * row_bytes;
  const uint8_t *p = j.pix.samples + static_cast<size_t> (x) * C + (r0 + warp) * row_bytes;
  unsigned int row = r0 + warp;
  /* The first rows load while the tables are set up. */
  lane_row<C, PX> r[ROWS];
  if (x < j.width && row + (ROWS - 1) * warps < r1)
#pragma unroll
    for (int i = 0; i < ROWS; i++)
      r[i] = load_lane_row<C, PX> (p + i * step);
  unsigned int at[C + 2];
  const int slots = start_lane_tables<C, PX, GIMP2> (j, at, slot_table, lane_counters, lane_column,
                                                     lanes, terms);
  __syncthreads ();
  mark_column_lanes (lane_column, column_lane, lanes);
  char *bytes = reinterpret_cast<char *> (lane_counters);
  const gh_luminance rule = j.pix.luminance;
  const unsigned int counting = __ballot_sync (~0u, x < j.width);
  if (x < j.width)
    {
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

} // namespace gh

#endif /* GPUHIST_SCOPE_LANE_WAVEFORM_CUH */
