/* gpu-histogram: the bins of weighted and derived runs, as the CUDA kernels use them.
 *
 * The rules are the engine's (engine/gimp_rules.h: GIMP's 16-bit bin, Value and Luminance in
 * GIMP's float arithmetic); this file adds one thing of the GPU's own: an integer estimate of
 * the 8-bit luminance bin that is exact except within a stated distance of a bin edge, where
 * the kernels call GIMP's rule instead.  The estimate is what keeps six tables a pixel near the
 * memory ceiling: the float rule in double a pixel cost the first probe half its speed.
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
               int shift, gh_binning binning)
{
  return static_cast<unsigned int> (bytes_per_sample == 1
                                        ? gh_luminance_bin_u8 (r, g, b)
                                        : gh_luminance_bin_u16 (r, g, b, binning, bins, shift));
}

/* The 8-bit luminance bin in 8.24 fixed point: x = r KR + g KG + b KB + 1/2, bin = x >> 24.  The
 * weights' rounding (3 x 255 x 2^-25 of a bin, 2.3e-5) plus GIMP's float rounding (255 x 2^-23
 * + 2^-17, 3.8e-5) stay inside kLumEdge = 2^-13 of a bin (1.2e-4); a pixel whose estimate is
 * nearer an edge than that takes GIMP's rule (about 1 pixel in 4000 on noise).  x < 2^32: the
 * weights sum to 1.  The exhaustive test over all 2^24 triples is the proof. */
constexpr unsigned int kLumR = static_cast<unsigned int> (GH_LUMINANCE_RED * 16777216.0 + 0.5);
constexpr unsigned int kLumG = static_cast<unsigned int> (GH_LUMINANCE_GREEN * 16777216.0 + 0.5);
constexpr unsigned int kLumB = static_cast<unsigned int> (GH_LUMINANCE_BLUE * 16777216.0 + 0.5);
constexpr unsigned int kLumEdge = 1u << 11;

/* Out of line: the rare exact path must not take the counting loop's registers. */
static __device__ __noinline__ unsigned int
luminance_bin8_exact (unsigned int r, unsigned int g, unsigned int b)
{
  return static_cast<unsigned int> (gh_luminance_bin_u8 (r, g, b));
}

} // namespace gh

#endif /* GPUHIST_GIMP_BINS_CUH */
