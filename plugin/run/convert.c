/* gpu-histogram: narrowing high-bit-depth samples.  See convert.h. */
#include <math.h>
#include <string.h>

#include "convert.h"

static inline uint8_t
bin_of_double (double v)
{
  if (!(v > 0.0)) /* negative, -inf and NaN */
    return 0;
  if (v >= 1.0) /* +inf too */
    return 255;
  return (uint8_t) (v * 255.0 + 0.5); /* < 255.5: at most 255 */
}

static double
half_to_double (uint16_t h)
{
  int sign = (h >> 15) & 1;
  int exponent = (h >> 10) & 0x1f;
  int mantissa = h & 0x3ff;
  double v;

  if (exponent == 0)
    v = ldexp ((double) mantissa, -24); /* subnormal */
  else if (exponent == 31)
    v = mantissa ? NAN : INFINITY;
  else
    v = ldexp ((double) (mantissa | 0x400), exponent - 25);
  return sign ? -v : v;
}

/* Every half maps to a bin: a table of 65536 bytes, made once. */
static const uint8_t *
half_table (void)
{
  static uint8_t table[65536];
  static gsize made = 0;

  if (g_once_init_enter (&made))
    {
      for (guint i = 0; i < 65536; i++)
        table[i] = bin_of_double (half_to_double ((uint16_t) i));
      g_once_init_leave (&made, 1);
    }
  return table;
}

gboolean
gpuhist_convert_samples (const char *type, const void *src, size_t n, uint8_t *dst)
{
  size_t i;

  if (strcmp (type, "u8") == 0)
    {
      memcpy (dst, src, n);
    }
  else if (strcmp (type, "u16") == 0)
    {
      const uint16_t *s = src;
      /* floor (v * 255 / 65535 + 0.5) = floor ((v + 128.5) / 257): never a tie */
      for (i = 0; i < n; i++)
        dst[i] = (uint8_t) ((2u * s[i] + 257u) / 514u);
    }
  else if (strcmp (type, "u32") == 0)
    {
      const uint32_t *s = src;
      /* floor (v * 255 / (2^32 - 1) + 0.5) = floor ((2 v + 16843009) / 33686018) */
      for (i = 0; i < n; i++)
        dst[i] = (uint8_t) ((2u * (uint64_t) s[i] + 16843009u) / 33686018u);
    }
  else if (strcmp (type, "half") == 0)
    {
      const uint16_t *s = src;
      const uint8_t *table = half_table ();
      for (i = 0; i < n; i++)
        dst[i] = table[s[i]];
    }
  else if (strcmp (type, "float") == 0)
    {
      const float *s = src;
      for (i = 0; i < n; i++)
        dst[i] = bin_of_double (s[i]);
    }
  else if (strcmp (type, "double") == 0)
    {
      const double *s = src;
      for (i = 0; i < n; i++)
        dst[i] = bin_of_double (s[i]);
    }
  else
    {
      return FALSE;
    }
  return TRUE;
}

static inline uint16_t
sample16_of_double (double v)
{
  if (!(v > 0.0)) /* negative, -inf and NaN */
    return 0;
  if (v >= 1.0) /* +inf too */
    return 65535;
  return (uint16_t) (v * 65535.0 + 0.5); /* < 65535.5: at most 65535 */
}

gboolean
gpuhist_convert_samples16 (const char *type, const void *src, size_t n, uint16_t *dst)
{
  size_t i;

  if (strcmp (type, "u16") == 0)
    {
      memcpy (dst, src, n * sizeof *dst);
    }
  else if (strcmp (type, "u32") == 0)
    {
      const uint32_t *s = src;
      /* floor (v * 65535 / (2^32 - 1) + 0.5) = floor ((v + 32768.5) / 65537) */
      for (i = 0; i < n; i++)
        dst[i] = (uint16_t) ((2u * (uint64_t) s[i] + 65537u) / 131074u);
    }
  else if (strcmp (type, "half") == 0)
    {
      const uint16_t *s = src;
      for (i = 0; i < n; i++)
        dst[i] = sample16_of_double (half_to_double (s[i]));
    }
  else if (strcmp (type, "float") == 0)
    {
      const float *s = src;
      for (i = 0; i < n; i++)
        dst[i] = sample16_of_double (s[i]);
    }
  else if (strcmp (type, "double") == 0)
    {
      const double *s = src;
      for (i = 0; i < n; i++)
        dst[i] = sample16_of_double (s[i]);
    }
  else
    {
      return FALSE;
    }
  return TRUE;
}

gboolean
gpuhist_convert_type_known (const char *type)
{
  return strcmp (type, "u8") == 0 || strcmp (type, "u16") == 0 || strcmp (type, "u32") == 0
         || strcmp (type, "half") == 0 || strcmp (type, "float") == 0
         || strcmp (type, "double") == 0;
}
