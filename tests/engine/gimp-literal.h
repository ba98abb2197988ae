/* gpu-histogram tests: GIMP's binning, transcribed literally from app/core/gimphistogram.c
 * (gimp_histogram_calculate_area's VALUE macro, SIGNED_ROUND and SAFE_CLAMP from gimpmath.h,
 * GIMP_RGB_LUMINANCE from gimprgb.h) with babl's conversions (babl/base/type-u8.c, type-u16.c:
 * the sample over its full scale in double, then stored in a float).  Independent of the
 * engine's gimp_rules.h on purpose: the tests hold one against the other. */
#ifndef GPUHIST_GIMP_LITERAL_H
#define GPUHIST_GIMP_LITERAL_H

#include <math.h>

#define SAFE_CLAMP(x, low, high) ((x) > (low) ? (x) < (high) ? (x) : (high) : (low))
#define SIGNED_ROUND(x) ((int) floor ((x) + 0.5))
#define GIMP_RGB_LUMINANCE(r, g, b) ((r) *0.22248840 + (g) *0.71690369 + (b) *0.06060791)

/* babl: u8 and u16 to double, then double to float. */
static inline float
babl_float (unsigned s, unsigned max)
{
  double d = (s - 0) / (double) (max - 0) * (1.0 - 0.0) + 0.0;
  return (float) d;
}

/* GIMP's VALUE (c, i): the bin a float component lands in. */
static inline int
gimp_bin (float i, int n_bins)
{
  float n_bins_1f = n_bins - 1;
  float temp = i * n_bins_1f;
  return SIGNED_ROUND (SAFE_CLAMP (temp, 0.0f, n_bins_1f));
}

static inline float
gimp_luminance (float r, float g, float b)
{
  float luminance = GIMP_RGB_LUMINANCE (r, g, b);
  return luminance;
}

static inline float
gimp_max (float r, float g, float b)
{
  float max = r > g ? r : g;
  return b > max ? b : max;
}

static inline int
shift_for (int bins)
{
  int shift = 0;
  while ((65536 >> shift) > bins)
    shift++;
  return shift;
}

#endif /* GPUHIST_GIMP_LITERAL_H */
