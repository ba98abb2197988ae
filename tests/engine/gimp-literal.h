/* gpu-histogram tests: GIMP's binning, transcribed literally from app/core/gimphistogram.c
 * (gimp_histogram_calculate_area's VALUE macro, SIGNED_ROUND and SAFE_CLAMP from gimpmath.h,
 * GIMP_RGB_LUMINANCE from gimprgb.h) with babl's conversions (babl/base/type-u8.c, type-u16.c:
 * the sample over its full scale in double, then stored in a float); GIMP 3.0's luminance from
 * babl's code below.  Independent of the
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

/* GIMP 3.0's luminance (app/core/gimphistogram.c at GIMP_3_0_4: babl_process of one pixel from
 * the histogram's float format to babl_format ("Y float")), with babl's code for the sRGB space
 * (babl 0.1.114): extensions/sse2-float.c's gamma_2_2_to_linear_sse2 on one lane (sse_pow_24,
 * sse_init_newton; every operation a float one, as SSE2 does it), then
 * babl/base/model-gray.c's rgba_to_gray_float with the space's RGBtoXYZ row as floats. */
#define BABL_SRGB_Y_RED 0.22248794002686589 /* babl_space_get_rgb_luminance ("sRGB") */
#define BABL_SRGB_Y_GREEN 0.71690383887925313
#define BABL_SRGB_Y_BLUE 0.060608257216285655

static inline float
sse_init_newton_lane (float x, double exponent, double c0, double c1, double c2)
{
  double norm = exponent * M_LN2 / (1 << 23);
  union
  {
    float f;
    int i;
  } u = { x };
  float y = (float) (u.i - 0x3f800000);
  return (float) c0 + (float) (c1 * norm) * y + (float) (c2 * norm * norm) * y * y;
}

static inline float
sse_pow_24_lane (float x)
{
  float y, z;
  y = sse_init_newton_lane (x, -1. / 5, 0.9953189663, 0.9594345146, 0.6742970332);
  z = (1.f / 5.f) * x;
  y = (6.f / 5.f) * y - z * ((y * y * y) * (y * y * y));
  y = (6.f / 5.f) * y - z * ((y * y * y) * (y * y * y));
  x *= y;
  return x * x * x;
}

static inline float
babl_gamma_2_2_to_linear_lane (float x)
{
  float curve = sse_pow_24_lane ((x + 0.055f) * (1 / 1.055f));
  float line = x * (1 / 12.92f);
  return x > 0.04045f ? curve : line;
}

static inline float
babl_rgba_to_gray_float (float red, float green, float blue)
{
  float RGB_LUMINANCE_RED = BABL_SRGB_Y_RED;
  float RGB_LUMINANCE_GREEN = BABL_SRGB_Y_GREEN;
  float RGB_LUMINANCE_BLUE = BABL_SRGB_Y_BLUE;
  return red * RGB_LUMINANCE_RED + green * RGB_LUMINANCE_GREEN + blue * RGB_LUMINANCE_BLUE;
}

/* The same sum as babl's x86-64-v3 build of extensions/grey.c compiles it (fused multiply-adds,
 * read from its disassembly): the path babl picks instead when it times faster. */
static inline float
babl_rgba_to_gray_float_v3 (float red, float green, float blue)
{
  return fmaf (blue, (float) BABL_SRGB_Y_BLUE,
               fmaf (red, (float) BABL_SRGB_Y_RED, green * (float) BABL_SRGB_Y_GREEN));
}

/* GIMP 3.0's luminance of perceptual floats (its default histogram) and of linear ones. */
static inline float
gimp3_luminance (float r, float g, float b)
{
  return babl_rgba_to_gray_float (babl_gamma_2_2_to_linear_lane (r),
                                  babl_gamma_2_2_to_linear_lane (g),
                                  babl_gamma_2_2_to_linear_lane (b));
}

static inline float
gimp3_luminance_linear (float r, float g, float b)
{
  return babl_rgba_to_gray_float (r, g, b);
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
