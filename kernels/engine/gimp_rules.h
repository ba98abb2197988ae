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
 * random 16-bit triples.
 *
 * GIMP 3.0 keeps all of this but Luminance (GH_LUMINANCE_GIMP3, see gh_luminance in gpuhist.h):
 * its gimp_histogram_calculate_area asks babl for "Y float" of each pixel (a fish from the
 * histogram's float format, babl_process one pixel at a time), which is linear-light Y in babl's
 * sRGB space.  From perceptual floats babl linearizes with its SSE2 approximation of the sRGB
 * curve (extensions/sse2-float.c, gamma_2_2_to_linear_sse2: a polynomial start and two Newton
 * steps for x^(-1/5), in float), then sums r Wr + g Wg + b Wb in float with the space's weights
 * as floats (babl/base/model-gray.c, rgba_to_gray_float); from linear floats it only sums.
 * babl picks its conversion path by timing it; the other sum it can pick (the x86-64-v3 build
 * of extensions/grey.c, fused multiply-adds) lands 4 of the 2^24 8-bit triples one bin away
 * (docs/BENCHMARKS.md, "GIMP 3.0's Luminance"). */
#ifndef GPUHIST_GIMP_RULES_H
#define GPUHIST_GIMP_RULES_H

#include "backend.h"

#ifdef __CUDA_ARCH__
#define GH_DMUL(a, b) __dmul_rn ((a), (b))
#define GH_DADD(a, b) __dadd_rn ((a), (b))
#define GH_FMUL(a, b) __fmul_rn ((a), (b))
#define GH_DDIV(a, b) __ddiv_rn ((a), (b))
#define GH_FADD(a, b) __fadd_rn ((a), (b))
#define GH_FSUB(a, b) __fsub_rn ((a), (b))
#else
#define GH_DMUL(a, b) ((a) * (b))
#define GH_DADD(a, b) ((a) + (b))
#define GH_FMUL(a, b) ((a) * (b))
#define GH_DDIV(a, b) ((a) / (b))
#define GH_FADD(a, b) ((a) + (b))
#define GH_FSUB(a, b) ((a) - (b))
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

/* babl's sRGB weights (babl_space_get_rgb_luminance of "sRGB"), as the float sum uses them. */
#define GH_BABL_Y_RED ((float) 0.22248794002686589)
#define GH_BABL_Y_GREEN ((float) 0.71690383887925313)
#define GH_BABL_Y_BLUE ((float) 0.060608257216285655)

/* babl's perceptual-to-linear float for the sRGB curve (gamma_2_2_to_linear_sse2), one lane:
 * every operation rounds to float in babl's order.  The start y0 = c0 + c1 i + c2 i^2 reads the
 * float's bits i as an integer (a log2 in disguise); c1 and c2 fold ln 2 / 2^23 and -1/5 in. */
#define GH_BABL_NORM (-0.2 * 0.69314718055994530942 / 8388608.0)
GH_HOST_DEVICE static inline float
gh_babl_to_linear (float x)
{
  if (!(x > 0.04045f))
    return GH_FMUL (x, 1 / 12.92f);
  const float v = GH_FMUL (GH_FADD (x, 0.055f), 1 / 1.055f);
  const float c1 = (float) (0.9594345146 * GH_BABL_NORM);
  const float c2 = (float) (0.6742970332 * GH_BABL_NORM * GH_BABL_NORM);
  union
  {
    float f;
    int32_t i;
  } bits = { v };
  const float i = (float) (bits.i - 0x3f800000);
  float y = GH_FADD (GH_FADD ((float) 0.9953189663, GH_FMUL (c1, i)), GH_FMUL (GH_FMUL (c2, i), i));
  const float z = GH_FMUL (1.f / 5.f, v);
  for (int k = 0; k < 2; k++)
    {
      const float y3 = GH_FMUL (GH_FMUL (y, y), y);
      y = GH_FSUB (GH_FMUL (6.f / 5.f, y), GH_FMUL (z, GH_FMUL (y3, y3)));
    }
  const float w = GH_FMUL (v, y);
  return GH_FMUL (GH_FMUL (w, w), w);
}

/* babl's "Y float" of three linear floats. */
GH_HOST_DEVICE static inline float
gh_babl_luminance (float r, float g, float b)
{
  return GH_FADD (GH_FADD (GH_FMUL (r, GH_BABL_Y_RED), GH_FMUL (g, GH_BABL_Y_GREEN)),
                  GH_FMUL (b, GH_BABL_Y_BLUE));
}

/* What a component's float enters the rule's luminance as: linearized under GIMP3 only. */
GH_HOST_DEVICE static inline float
gh_luminance_input (float v, gh_luminance rule)
{
  return rule == GH_LUMINANCE_GIMP3 ? gh_babl_to_linear (v) : v;
}

/* The rule's luminance of three inputs (gh_luminance_input), as that GIMP stores it. */
GH_HOST_DEVICE static inline float
gh_luminance_of_inputs (float r, float g, float b, gh_luminance rule)
{
  return rule == GH_LUMINANCE_GIMP2 ? gh_gimp_luminance (r, g, b) : gh_babl_luminance (r, g, b);
}

/* Luminance of 8-bit R, G, B at 256 bins, the rule's GIMP's arithmetic. */
GH_HOST_DEVICE static inline int
gh_luminance_bin_u8 (uint32_t r, uint32_t g, uint32_t b, gh_luminance rule)
{
  return gh_gimp_bin_of_float (
      gh_luminance_of_inputs (gh_luminance_input (gh_gimp_float_u8 (r), rule),
                              gh_luminance_input (gh_gimp_float_u8 (g), rule),
                              gh_luminance_input (gh_gimp_float_u8 (b), rule), rule),
      256);
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
 * (temp = luminance * 255) is the exact sum of the table's terms within 2^-14.  GIMP2: the terms
 * are 0.22248840 R ... (the floats of the three samples, 2^-16 at most together; the float
 * luminance and the float product, 2^-17 each below 256; the three rounded table entries,
 * 3 * 2^-21).  GIMP3: the terms are babl's float products of the linearized levels, times 255
 * (its two float sums, 255 * 2^-24 each; the product, 2^-17; the entries, 3 * 2^-21).  So a sum
 * in units of 2^-20 whose fraction lies more than GH_LUMINANCE_MARGIN from one half rounds as
 * GIMP does; the others (about 1 in 4000) take GIMP's arithmetic.  test-gimp-rules checks every
 * one of the 2^24 triples under both rules. */
#define GH_LUMINANCE_FRACTION_BITS 20
#define GH_LUMINANCE_HALF (1u << (GH_LUMINANCE_FRACTION_BITS - 1))
#define GH_LUMINANCE_MARGIN (1u << (GH_LUMINANCE_FRACTION_BITS - 13))

/* fixed[c][s]: the rule's term of level s of channel c (red, green, blue), in 2^-20 of a bin. */
static inline void
gh_luminance_fixed_u8 (uint32_t fixed[3][256], gh_luminance rule)
{
  static const double weights[3] = { GH_LUMINANCE_RED, GH_LUMINANCE_GREEN, GH_LUMINANCE_BLUE };
  static const float babl_weights[3] = { GH_BABL_Y_RED, GH_BABL_Y_GREEN, GH_BABL_Y_BLUE };
  for (int c = 0; c < 3; c++)
    for (uint32_t s = 0; s < 256; s++)
      {
        const double term
            = rule == GH_LUMINANCE_GIMP2
                  ? s * weights[c]
                  : 255.0 * (gh_luminance_input (gh_gimp_float_u8 (s), rule) * babl_weights[c]);
        fixed[c][s] = (uint32_t) (term * (1u << GH_LUMINANCE_FRACTION_BITS) + 0.5);
      }
}

/* GIMP's arithmetic for the luminances the shortcut below leaves, kept out of line so that the
 * shortcut inlines into the CPU's pixel loops. */
static __attribute__ ((noinline, cold, unused)) int
gh_luminance_bin_u8_near_edge (uint32_t r, uint32_t g, uint32_t b, gh_luminance rule)
{
  return gh_luminance_bin_u8 (r, g, b, rule);
}

static inline __attribute__ ((always_inline)) int
gh_luminance_bin_u8_fixed (const uint32_t fixed[3][256], uint32_t r, uint32_t g, uint32_t b,
                           gh_luminance rule)
{
  const uint32_t sum = fixed[0][r] + fixed[1][g] + fixed[2][b];
  const uint32_t fraction = sum & ((1u << GH_LUMINANCE_FRACTION_BITS) - 1);
  const int bin = (int) (sum >> GH_LUMINANCE_FRACTION_BITS) + (fraction > GH_LUMINANCE_HALF);
  /* Near an edge, or past the top (babl's weights add up to a little over 1): GIMP's arithmetic. */
  if (fraction - (GH_LUMINANCE_HALF - GH_LUMINANCE_MARGIN) < 2 * GH_LUMINANCE_MARGIN || bin > 255)
    return gh_luminance_bin_u8_near_edge (r, g, b, rule);
  return bin;
}

/* Luminance of the inputs (gh_luminance_input) of 16-bit R, G, B.  GIMP: its float rule at
 * `bins`.  SHIFT: the 16-bit level GIMP's float rounds to (its rule at 65536 bins), then
 * >> shift, as a sample of that level. */
GH_HOST_DEVICE static inline int
gh_luminance_bin_of_inputs (float r, float g, float b, gh_luminance rule, gh_binning binning,
                            int bins, int shift)
{
  const float l = gh_luminance_of_inputs (r, g, b, rule);
  return binning == GH_BINNING_GIMP ? gh_gimp_bin_of_float (l, bins)
                                    : gh_gimp_bin_of_float (l, 65536) >> shift;
}

GH_HOST_DEVICE static inline int
gh_luminance_bin_u16 (uint32_t r, uint32_t g, uint32_t b, gh_luminance rule, gh_binning binning,
                      int bins, int shift)
{
  return gh_luminance_bin_of_inputs (gh_luminance_input (gh_gimp_float_u16 (r), rule),
                                     gh_luminance_input (gh_gimp_float_u16 (g), rule),
                                     gh_luminance_input (gh_gimp_float_u16 (b), rule), rule,
                                     binning, bins, shift);
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
