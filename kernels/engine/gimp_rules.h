/* gpu-histogram: GIMP's binning rules, the one definition that the CPU backend, the reference
 * count and the CUDA kernels all compile (C and CUDA: GH_HOST_DEVICE, from backend.h).
 *
 * GIMP (app/core/gimphistogram.c, gimp_histogram_calculate_area) converts the buffer to float
 * with babl, then bins every component v as
 *
 *   temp = v * (float) (bins - 1);                          a float product
 *   bin  = (int) floor ((double) SAFE_CLAMP (temp, 0, bins - 1) + 0.5);   NaN goes to 0
 *
 * (SIGNED_ROUND is floor (x + 0.5) in gimpmath.h, not rint: ties go up).  babl makes the float
 * of a stored sample in double and rounds once: u8 s becomes (float) (s / 255.0), u16 s
 * (float) (s / 65535.0) (babl/base/type-u8.c, type-u16.c, then type-float.c).  Value is
 * max (r, g, b) of those floats; Luminance is GIMP_RGB_LUMINANCE in double, stored in a float:
 * (float) (0.22248840 * r + 0.71690369 * g + 0.06060791 * b), evaluated left to right.
 *
 * nvcc contracts a * b + c into one fused multiply-add, which rounds once where GIMP (gcc on
 * x86-64, which has no FMA without -mfma) rounds twice; so on the device every product and sum
 * here is spelled with an explicit round-to-nearest intrinsic, and both sides compute GIMP's
 * value bit for bit.  tests/engine/test-gimp-rules.c proves every shortcut below against a
 * literal transcription of GIMP's code: all 2^24 8-bit RGB triples, all 65536 16-bit levels,
 * random 16-bit triples. */
#ifndef GPUHIST_GIMP_RULES_H
#define GPUHIST_GIMP_RULES_H

#include "backend.h"

#ifdef __CUDA_ARCH__
#define GH_DMUL(a, b) __dmul_rn ((a), (b))
#define GH_DADD(a, b) __dadd_rn ((a), (b))
#define GH_FMUL(a, b) __fmul_rn ((a), (b))
#define GH_DDIV(a, b) __ddiv_rn ((a), (b))
#else
#define GH_DMUL(a, b) ((a) * (b))
#define GH_DADD(a, b) ((a) + (b))
#define GH_FMUL(a, b) ((a) * (b))
#define GH_DDIV(a, b) ((a) / (b))
#endif

#define GH_LUMINANCE_RED 0.22248840
#define GH_LUMINANCE_GREEN 0.71690369
#define GH_LUMINANCE_BLUE 0.06060791

/* The float babl makes of an 8-bit or 16-bit stored sample. */
GH_HOST_DEVICE static inline float
gh_gimp_float_u8 (uint32_t s)
{
  return (float) GH_DDIV ((double) s, 255.0);
}

GH_HOST_DEVICE static inline float
gh_gimp_float_u16 (uint32_t s)
{
  return (float) GH_DDIV ((double) s, 65535.0);
}

/* GIMP's bin of a component v in `bins` bins.  floor (c + 0.5) without the double: c - (int) c
 * is exact in float, so comparing it with 0.5 rounds exactly as GIMP's double sum does. */
GH_HOST_DEVICE static inline int
gh_gimp_bin_of_float (float v, int bins)
{
  const float top = (float) (bins - 1);
  const float temp = GH_FMUL (v, top);
  const float c = temp > 0.0f ? (temp < top ? temp : top) : 0.0f;
  const int whole = (int) c;
  return whole + (c - (float) whole >= 0.5f);
}

/* GH_BINNING_GIMP for a 16-bit sample. */
GH_HOST_DEVICE static inline int
gh_gimp_bin_u16 (uint32_t s, int bins)
{
  return gh_gimp_bin_of_float (gh_gimp_float_u16 (s), bins);
}

/* A 16-bit sample's bin under the run's rule: SHIFT (s >> shift) or GIMP's. */
GH_HOST_DEVICE static inline int
gh_bin_u16 (uint32_t s, gh_binning binning, int bins, int shift)
{
  return binning == GH_BINNING_GIMP ? gh_gimp_bin_u16 (s, bins) : (int) (s >> shift);
}

/* GIMP_RGB_LUMINANCE of three components, as GIMP stores it (in a float). */
GH_HOST_DEVICE static inline float
gh_gimp_luminance (float r, float g, float b)
{
  const double sum = GH_DADD (
      GH_DADD (GH_DMUL ((double) r, GH_LUMINANCE_RED), GH_DMUL ((double) g, GH_LUMINANCE_GREEN)),
      GH_DMUL ((double) b, GH_LUMINANCE_BLUE));
  return (float) sum;
}

/* Value of 8-bit R, G, B at 256 bins: the float conversion, the product and the rounding are
 * all monotonic and every u8 level s lands in bin s (proven for all 256), so the bin of the
 * largest float is the largest sample. */
GH_HOST_DEVICE static inline int
gh_value_bin_u8 (uint32_t r, uint32_t g, uint32_t b)
{
  const uint32_t rg = r > g ? r : g;
  return (int) (rg > b ? rg : b);
}

/* Value of 16-bit R, G, B: monotonic as above, so the bin of the largest sample. */
GH_HOST_DEVICE static inline int
gh_value_bin_u16 (uint32_t r, uint32_t g, uint32_t b, gh_binning binning, int bins, int shift)
{
  const uint32_t rg = r > g ? r : g;
  return gh_bin_u16 (rg > b ? rg : b, binning, bins, shift);
}

/* Luminance of 8-bit R, G, B at 256 bins, GIMP's arithmetic. */
GH_HOST_DEVICE static inline int
gh_luminance_bin_u8 (uint32_t r, uint32_t g, uint32_t b)
{
  return gh_gimp_bin_of_float (
      gh_gimp_luminance (gh_gimp_float_u8 (r), gh_gimp_float_u8 (g), gh_gimp_float_u8 (b)), 256);
}

/* The same from the three products GIMP sums, looked up (gh_luminance_terms_u8): the same
 * operations on the same values, so the same bin, for a few adds a pixel. */
GH_HOST_DEVICE static inline int
gh_luminance_bin_from_terms (double red_term, double green_term, double blue_term, int bins)
{
  return gh_gimp_bin_of_float ((float) GH_DADD (GH_DADD (red_term, green_term), blue_term), bins);
}

/* The products GIMP forms for an 8-bit level s: terms[0][s] red, [1][s] green, [2][s] blue. */
static inline void
gh_luminance_terms_u8 (double terms[3][256])
{
  for (uint32_t s = 0; s < 256; s++)
    {
      const double v = (double) gh_gimp_float_u8 (s);
      terms[0][s] = v * GH_LUMINANCE_RED;
      terms[1][s] = v * GH_LUMINANCE_GREEN;
      terms[2][s] = v * GH_LUMINANCE_BLUE;
    }
}

/* The fixed-point shortcut for 8-bit luminance at 256 bins: GIMP's float bin position
 * (temp = luminance * 255) is the exact sum 0.22248840 R + ... within 2^-14 (the floats of the
 * three samples, 2^-16 at most together; the float luminance and the float product, 2^-17 each
 * below 256; the three rounded table entries, 3 * 2^-21), so a sum in units of 2^-20 whose fraction
 * lies more than GH_LUMINANCE_MARGIN from one half rounds as GIMP does; the others (about 1 in
 * 4000) take GIMP's arithmetic.  test-gimp-rules checks every one of the 2^24 triples. */
#define GH_LUMINANCE_FRACTION_BITS 20
#define GH_LUMINANCE_HALF (1u << (GH_LUMINANCE_FRACTION_BITS - 1))
#define GH_LUMINANCE_MARGIN (1u << (GH_LUMINANCE_FRACTION_BITS - 13))

/* fixed[c][s]: the term of level s of channel c (red, green, blue), in 2^-20 of a bin. */
static inline void
gh_luminance_fixed_u8 (uint32_t fixed[3][256])
{
  static const double weights[3] = { GH_LUMINANCE_RED, GH_LUMINANCE_GREEN, GH_LUMINANCE_BLUE };
  for (int c = 0; c < 3; c++)
    for (uint32_t s = 0; s < 256; s++)
      fixed[c][s] = (uint32_t) (s * weights[c] * (1u << GH_LUMINANCE_FRACTION_BITS) + 0.5);
}

GH_HOST_DEVICE static inline int
gh_luminance_bin_u8_fixed (const uint32_t fixed[3][256], uint32_t r, uint32_t g, uint32_t b)
{
  const uint32_t sum = fixed[0][r] + fixed[1][g] + fixed[2][b];
  const uint32_t fraction = sum & ((1u << GH_LUMINANCE_FRACTION_BITS) - 1);
  if (fraction - (GH_LUMINANCE_HALF - GH_LUMINANCE_MARGIN) < 2 * GH_LUMINANCE_MARGIN)
    return gh_luminance_bin_u8 (r, g, b);
  return (int) (sum >> GH_LUMINANCE_FRACTION_BITS) + (fraction > GH_LUMINANCE_HALF);
}

/* Luminance of the floats of 16-bit R, G, B (gh_gimp_float_u16).  GIMP: its float rule at
 * `bins`.  SHIFT: the 16-bit level GIMP's float rounds to (its rule at 65536 bins), then
 * >> shift, as a sample of that level. */
GH_HOST_DEVICE static inline int
gh_luminance_bin_of_floats (float r, float g, float b, gh_binning binning, int bins, int shift)
{
  const float l = gh_gimp_luminance (r, g, b);
  return binning == GH_BINNING_GIMP ? gh_gimp_bin_of_float (l, bins)
                                    : gh_gimp_bin_of_float (l, 65536) >> shift;
}

GH_HOST_DEVICE static inline int
gh_luminance_bin_u16 (uint32_t r, uint32_t g, uint32_t b, gh_binning binning, int bins, int shift)
{
  return gh_luminance_bin_of_floats (gh_gimp_float_u16 (r), gh_gimp_float_u16 (g),
                                     gh_gimp_float_u16 (b), binning, bins, shift);
}

/* Weights (gh_run_plan): a colour sample adds m * a, the alpha sample m * alpha_full; one pixel
 * at full coverage and opacity adds the denominator, coverage_full * alpha_full. */
GH_HOST_DEVICE static inline uint32_t
gh_full_scale (int bytes)
{
  return bytes == 0 ? 1u : bytes == 1 ? 255u : 65535u;
}

GH_HOST_DEVICE static inline uint64_t
gh_weight_denominator (int coverage_bytes, int alpha_weighted, int bytes_per_sample)
{
  return (uint64_t) gh_full_scale (coverage_bytes)
         * gh_full_scale (alpha_weighted ? bytes_per_sample : 0);
}

/* Below 2^32 for any scales: 65535 * 65535. */
GH_HOST_DEVICE static inline uint32_t
gh_weight_product (uint32_t coverage, uint32_t alpha)
{
  return coverage * alpha;
}

#endif /* GPUHIST_GIMP_RULES_H */
