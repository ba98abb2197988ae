/* gpu-histogram: the bins of weighted and derived runs, as the CUDA kernels use them.
 *
 * The rules are the engine's (engine/gimp_rules.h: GIMP's 16-bit bin, Value and Luminance in
 * GIMP's float arithmetic); this file adds one thing of the GPU's own: an integer estimate of
 * the 8-bit luminance bin that is exact except within a stated distance of a bin edge, where
 * the kernels call GIMP's rule instead.  The estimate is what keeps six tables a pixel near the
 * memory ceiling: GIMP's float rule for every pixel costs far more (docs/BENCHMARKS.md).
 * test-engine-gpu checks it against the rule on all 2^24 RGB combinations. */
#ifndef GPUHIST_GIMP_BINS_CUH
#define GPUHIST_GIMP_BINS_CUH

#include <cstdint>

#include "gimp_rules.h"

namespace gh
{

/* One sample's bin: 8-bit samples are their bin; 16-bit ones by the run's rule. */
__device__ __forceinline__ unsigned int
sample_bin (unsigned int s, int bytes_per_sample, int bins, int shift, gh_binning binning)
{
  return bytes_per_sample == 1 ? s
                               : static_cast<unsigned int> (gh_bin_u16 (s, binning, bins, shift));
}

__device__ __forceinline__ unsigned int
luminance_bin (unsigned int r, unsigned int g, unsigned int b, int bytes_per_sample, int bins,
               int shift, gh_binning binning, gh_luminance rule)
{
  return static_cast<unsigned int> (
      bytes_per_sample == 1 ? gh_luminance_bin_u8 (r, g, b, rule)
                            : gh_luminance_bin_u16 (r, g, b, rule, binning, bins, shift));
}

/* The 8-bit luminance bin in 8.16 fixed point (GIMP 2.10's rule, GH_LUMINANCE_GIMP2: linear in
 * the samples, which 3.0's is not): x = r KR + g KG + b KB + 1/2, bin = x >> 16.
 * GIMP's weights are 16-bit fractions to their 8 digits (0.22248840 = 14581 / 65536 within
 * 5e-9), so KR, KG, KB are those numerators: the weights' rounding (3 x 255 x 5e-9 of a bin,
 * 3.8e-6) plus GIMP's float rounding (255 x 2^-23 + 2^-17, 3.8e-5) stay inside kLumEdge =
 * 2^-13 of a bin (1.2e-4); a pixel whose estimate is nearer an edge than that takes GIMP's rule
 * (about 1 pixel in 4000 on noise).  The weights sum to 65536, so x < 2^24.  Two bytes a weight
 * make x two __dp4a (weighted_fast_kernel.cuh).  The exhaustive test over all 2^24 triples is
 * the proof. */
constexpr unsigned int kLumR = static_cast<unsigned int> (GH_LUMINANCE_RED * 65536.0 + 0.5);
constexpr unsigned int kLumG = static_cast<unsigned int> (GH_LUMINANCE_GREEN * 65536.0 + 0.5);
constexpr unsigned int kLumB = static_cast<unsigned int> (GH_LUMINANCE_BLUE * 65536.0 + 0.5);
static_assert (kLumR + kLumG + kLumB == 65536, "x < 2^24: bin 255 at most");
constexpr unsigned int kLumEdge = 1u << 3;
constexpr unsigned int kLumHalf = (1u << 15) + kLumEdge; /* 1/2, shifted by kLumEdge */

/* The estimate above of an RGB word (R in byte 0; byte 3 is not read) in 8.16, shifted by
 * kLumEdge: bin = byte 2, near an edge when its bits kLumNearEdge are all zero.  A weight's two
 * bytes go into two dot products; k256 is 256 (weighted_fast_kernel.cuh passes it as an argument
 * to keep the product an IMAD). */
constexpr unsigned int kLumNearEdge = 0xFFFFu & ~(2 * kLumEdge - 1);
constexpr unsigned int kLumHigh = (kLumR >> 8) | (kLumG >> 8) << 8 | (kLumB >> 8) << 16;
constexpr unsigned int kLumLow = (kLumR & 255) | (kLumG & 255) << 8 | (kLumB & 255) << 16;

__device__ __forceinline__ unsigned int
luminance_estimate (unsigned int rgb, unsigned int k256)
{
  return __dp4a (rgb, kLumLow, __dp4a (rgb, kLumHigh, kLumHalf >> 8) * k256 + (kLumHalf & 255));
}

/* The products GIMP forms for 8-bit level s of channel c (0 red, 1 green, 2 blue), as
 * gh_luminance_terms_u8 makes them: gh_luminance_bin_from_terms of three is GIMP's bin. */
__device__ __forceinline__ double
luminance_term_u8 (int c, unsigned int s)
{
  const double weight = c == 0 ? GH_LUMINANCE_RED : c == 1 ? GH_LUMINANCE_GREEN : GH_LUMINANCE_BLUE;
  return GH_DMUL ((double) gh_gimp_float_u8 (s), weight);
}

/* GIMP 3.0's rule (GH_LUMINANCE_GIMP3, GIMP3_LINEAR) is not linear in the samples, so its
 * estimate is looked up: three entries a pixel, each a level's term (babl's float product,
 * luminance3_term_u8) times 255 in 8.16 (luminance3_fixed_u8), red's with kLumHalf in it.  The
 * entries' rounding (3 x 2^-17 of a bin, 2.3e-5) plus GIMP's float roundings (two float sums
 * below 1 and the product by 255: 2 x 255 x 2^-24 + 2^-17, 3.8e-5) stay inside kLumEdge
 * (1.2e-4), so the same edge test sends the same kind of pixel to GIMP's rule.  babl's weights
 * add up to a little over 1, and the largest sum is 255.00001 bins: x < 2^24 still. */
__device__ __forceinline__ float
luminance3_term_u8 (int c, unsigned int s, gh_luminance rule)
{
  const float weight = c == 0 ? GH_BABL_Y_RED : c == 1 ? GH_BABL_Y_GREEN : GH_BABL_Y_BLUE;
  return GH_FMUL (gh_luminance_input (gh_gimp_float_u8 (s), rule), weight);
}

__device__ __forceinline__ unsigned int
luminance3_fixed_u8 (int c, float term)
{
  return static_cast<unsigned int> (GH_DADD (GH_DMUL ((double) term, 255.0 * 65536.0), 0.5))
         + (c == 0 ? kLumHalf : 0u);
}

} // namespace gh

#endif /* GPUHIST_GIMP_BINS_CUH */
