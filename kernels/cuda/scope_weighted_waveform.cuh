/* gpu-histogram: FASTEST for the waveform of weighted 8-bit RGB and RGBA runs (a coverage plane
 * of 8 or 16 bits, alpha weighting, or both): scope_lane_waveform.cuh's lane tables, each add of
 * a pixel's weight instead of one.  cuda_weighted_waveform.cu plans and launches it.
 *
 * A pixel adds to each table exactly what visit_pixel adds: its weight w (coverage m times
 * alpha a, or m alone) to its colour levels, Value and Luminance, and m times 255 to its alpha
 * level under alpha weighting.  The adds are plain 32-bit atomics with no wrap test: the plan
 * gives every block a band short enough that no counter's sum can pass 2^32 - 1 (a lane's
 * pixels of the band times the largest weight), and unsigned sums are exact modulo 2^32, so a
 * counter ends exact even where a luminance fix-up's subtraction briefly wraps it.  A column's
 * lanes are summed in 64 bits when the block flushes. */
#ifndef GPUHIST_SCOPE_WEIGHTED_WAVEFORM_CUH
#define GPUHIST_SCOPE_WEIGHTED_WAVEFORM_CUH

#include "scope_lane_waveform.cuh"

namespace gh
{

/* A lane's coverage of one row: CB bytes a value (0: no plane, every m is 1), PX values. */
template <int CB, int PX> struct lane_cover
{
  unsigned int m[CB == 2 && PX == 4 ? 2 : 1];
};

template <int CB, int PX>
__device__ __forceinline__ lane_cover<CB, PX>
load_lane_cover (const uint8_t *q)
{
  lane_cover<CB, PX> v;
  if constexpr (CB == 0)
    v.m[0] = 1u;
  else if constexpr (PX == 1)
    v.m[0] = CB == 1 ? __ldcs (q) : __ldcs (reinterpret_cast<const uint16_t *> (q));
  else if constexpr (CB == 1)
    v.m[0] = __ldcs (reinterpret_cast<const unsigned int *> (q));
  else
    {
      const uint2 u = __ldcs (reinterpret_cast<const uint2 *> (q));
      v.m[0] = u.x;
      v.m[1] = u.y;
    }
  return v;
}

/* Pixel k's coverage m. */
template <int CB, int PX>
__device__ __forceinline__ unsigned int
coverage_of (const lane_cover<CB, PX> &v, int k)
{
  if constexpr (CB == 0)
    return 1u;
  else if constexpr (PX == 1)
    return v.m[0];
  else if constexpr (CB == 1)
    return __byte_perm (v.m[0], 0, 0x4440u | k);
  else
    return (v.m[k >> 1] >> ((k & 1) * 16)) & 0xFFFFu;
}

/* The weight w of pixel k, whose R, G, B (and A in byte 3) are `word`: gh_weight_product (m, a)
 * under alpha weighting (AW), else m.  With an 8-bit plane, one dot product of the pixel's word
 * and its coverage byte moved under alpha. */
template <int CB, int PX, bool AW>
__device__ __forceinline__ unsigned int
weight_of (unsigned int word, const lane_cover<CB, PX> &v, int k)
{
  if constexpr (!AW)
    return coverage_of<CB, PX> (v, k);
  else if constexpr (CB == 1 && PX == 4)
    return __dp4a (word, __byte_perm (v.m[0], 0, 0x0444u | k << 12), 0u);
  else
    return coverage_of<CB, PX> (v, k) * (word >> 24);
}

/* What pixel k of row i adds to output channel c (count_lane_rows): its weight, but to alpha
 * (the last input channel, alpha-weighted) its coverage times 255. */
template <int C, int PX, int CB, bool AW, int ROWS> struct lane_weight
{
  const lane_cover<CB, PX> (&v)[ROWS];

  __device__ unsigned int
  operator() (int i, int k, int c, unsigned int word) const
  {
    return AW && c == C - 1 ? coverage_of<CB, PX> (v[i], k) * 255u
                            : weight_of<CB, PX, AW> (word, v[i], k);
  }
};

/* A block owns a stripe of 32 x PX image columns and a band of rows (blockIdx.y of gridDim.y,
 * bands short enough for the counters, cuda_weighted_waveform.cu), its warps sharing the rows
 * kLaneRows at a time while the next kLaneRows load, pixels and coverage. */
template <int C, int PX, bool GIMP2, int CB, bool AW>
static __global__ void
__launch_bounds__ (kLaneThreads) waveform_weighted_lanes_kernel (scope_job j, unsigned int k256)
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
  const size_t rows = j.pix.pixels / static_cast<size_t> (j.width);
  const size_t r0 = rows * blockIdx.y / gridDim.y, r1 = rows * (blockIdx.y + 1) / gridDim.y;
  char *bytes = reinterpret_cast<char *> (lane_counters);
  const gh_luminance rule = j.pix.luminance;
  const unsigned int counting = __ballot_sync (~0u, x < j.width);
  if (x < j.width)
    {
      /* One pixel index for both planes, the lane's first pixel of a row, and the pixels
       * between a warp's rows. */
      const uint8_t *samples = j.pix.samples, *coverage = j.pix.coverage;
      const size_t step = static_cast<size_t> (warps) * j.width;
      size_t pixel = (r0 + warp) * j.width + x;
      auto load = [&] (size_t at_pixel, lane_row<C, PX> &pixels, lane_cover<CB, PX> &cover) {
        pixels = load_lane_row<C, PX> (samples + at_pixel * C);
        cover = load_lane_cover<CB, PX> (CB ? coverage + at_pixel * CB : nullptr);
      };
      size_t row = r0 + warp;
      lane_row<C, PX> r[ROWS];
      lane_cover<CB, PX> v[ROWS];
      if (row + (ROWS - 1) * warps < r1)
#pragma unroll
        for (int i = 0; i < ROWS; i++)
          load (pixel + i * step, r[i], v[i]);
      for (; row + (ROWS - 1) * warps < r1; row += ROWS * warps, pixel += ROWS * step)
        {
          /* The next rows (these again after the last) load while these are counted. */
          const size_t after = row + (2 * ROWS - 1) * warps < r1 ? pixel + ROWS * step : pixel;
          lane_row<C, PX> next[ROWS];
          lane_cover<CB, PX> next_cover[ROWS];
#pragma unroll
          for (int i = 0; i < ROWS; i++)
            load (after + i * step, next[i], next_cover[i]);
          count_and_fix<C, PX, GIMP2, ROWS> (bytes, at, r, rule, k256, terms, counting,
                                             lane_weight<C, PX, CB, AW, ROWS>{ v });
#pragma unroll
          for (int i = 0; i < ROWS; i++)
            {
              r[i] = next[i];
              v[i] = next_cover[i];
            }
        }
      for (; row < r1; row += warps, pixel += step)
        {
          lane_row<C, PX> one[1];
          lane_cover<CB, PX> cover[1];
          load (pixel, one[0], cover[0]);
          count_and_fix<C, PX, GIMP2, 1> (bytes, at, one, rule, k256, terms, counting,
                                          lane_weight<C, PX, CB, AW, 1>{ cover });
        }
    }
  __syncthreads ();
  flush_lanes<unsigned long long> (j, reinterpret_cast<const unsigned int *> (lane_counters),
                                   lane_column, column_lane, lanes, slot_table, slots);
}

} // namespace gh

#endif /* GPUHIST_SCOPE_WEIGHTED_WAVEFORM_CUH */
