/* Unit tests of plugin/run/convert.c: narrowing every sample type to 8 and to 16 bits, rounding to
 * the nearest level, and where NaN, the infinities and values outside 0..1 go. */
#include <math.h>
#include <string.h>

#include <glib.h>

#include "convert.h"

/* Half floats by their bits. */
#define HALF_ZERO 0x0000
#define HALF_NEG_ZERO 0x8000
#define HALF_ONE 0x3c00
#define HALF_HALF 0x3800
#define HALF_TWO 0x4000
#define HALF_MINUS_ONE 0xbc00
#define HALF_INF 0x7c00
#define HALF_NEG_INF 0xfc00
#define HALF_NAN 0x7e00
#define HALF_SMALLEST_SUBNORMAL 0x0001

/* Fails the test for each sample that is not what was expected (printed with its index). */
static void
compare_samples (const char *type, size_t n, const uint16_t *got, const uint16_t *expected)
{
  for (size_t i = 0; i < n; i++)
    {
      if (got[i] != expected[i])
        {
          g_test_message ("%s sample %zu: got %u, expected %u", type, i, got[i], expected[i]);
          g_test_fail ();
        }
    }
}

static void
check8 (const char *type, const void *src, size_t n, const uint8_t *expected)
{
  uint8_t out[16];
  uint16_t got[16], want[16];

  g_assert_cmpuint (n, <=, G_N_ELEMENTS (out));
  memset (out, 0xaa, sizeof out);
  g_assert_true (gpuhist_convert_samples (type, src, n, out));
  for (size_t i = 0; i < n; i++)
    {
      got[i] = out[i];
      want[i] = expected[i];
    }
  compare_samples (type, n, got, want);
}

static void
check16 (const char *type, const void *src, size_t n, const uint16_t *expected)
{
  uint16_t out[16];

  g_assert_cmpuint (n, <=, G_N_ELEMENTS (out));
  memset (out, 0xaa, sizeof out);
  g_assert_true (gpuhist_convert_samples16 (type, src, n, out));
  compare_samples (type, n, out, expected);
}

static void
test_u8_copied (void)
{
  const uint8_t src[] = { 0, 1, 127, 128, 254, 255 };

  check8 ("u8", src, G_N_ELEMENTS (src), src);
}

static void
test_u16_to_8 (void)
{
  /* The nearest of 256 levels: v * 255 / 65535 = v / 257; 128 is just below half a level. */
  const uint16_t src[] = { 0, 128, 129, 257, 385, 386, 32896, 65406, 65535 };
  const uint8_t expected[] = { 0, 0, 1, 1, 1, 2, 128, 254, 255 };

  check8 ("u16", src, G_N_ELEMENTS (src), expected);
}

static void
test_u32_to_8 (void)
{
  const uint32_t src[] = { 0, 8421504, 8421505, 16843009, 2155905152u, 4294967295u };
  const uint8_t expected[] = { 0, 0, 1, 1, 128, 255 };

  check8 ("u32", src, G_N_ELEMENTS (src), expected);
}

static void
test_half_to_8 (void)
{
  const uint16_t src[]
      = { HALF_ZERO, HALF_NEG_ZERO, HALF_HALF, HALF_ONE,       HALF_TWO,
          HALF_INF,  HALF_NEG_INF,  HALF_NAN,  HALF_MINUS_ONE, HALF_SMALLEST_SUBNORMAL };
  const uint8_t expected[] = { 0, 0, 128, 255, 255, 255, 0, 0, 0, 0 };

  check8 ("half", src, G_N_ELEMENTS (src), expected);
}

static void
test_float_to_8 (void)
{
  /* 0.5 / 255 is the first tie: it rounds up to level 1; just below it stays at 0. */
  const float src[] = { 0.0f,   0.5f / 255.0f, 0.4f / 255.0f, 0.5f, 1.0f,           2.0f,
                        -0.25f, INFINITY,      -INFINITY,     NAN,  254.6f / 255.0f };
  const uint8_t expected[] = { 0, 1, 0, 128, 255, 255, 0, 255, 0, 0, 255 };

  check8 ("float", src, G_N_ELEMENTS (src), expected);
}

static void
test_double_to_8 (void)
{
  const double src[] = { 0.0,   0.51 / 255.0, 0.49 / 255.0, 0.5,       0.999, 1.0,
                         1e300, -1e-300,      INFINITY,     -INFINITY, NAN };
  const uint8_t expected[] = { 0, 1, 0, 128, 255, 255, 255, 0, 255, 0, 0 };

  check8 ("double", src, G_N_ELEMENTS (src), expected);
}

static void
test_u16_copied (void)
{
  const uint16_t src[] = { 0, 1, 32767, 65534, 65535 };

  check16 ("u16", src, G_N_ELEMENTS (src), src);
}

static void
test_u32_to_16 (void)
{
  /* v * 65535 / (2^32 - 1) = v / 65537. */
  const uint32_t src[] = { 0, 32768, 32769, 65537, 4294967295u };
  const uint16_t expected[] = { 0, 0, 1, 1, 65535 };

  check16 ("u32", src, G_N_ELEMENTS (src), expected);
}

static void
test_half_to_16 (void)
{
  const uint16_t src[] = { HALF_ZERO, HALF_HALF, HALF_ONE,     HALF_TWO,
                           HALF_INF,  HALF_NAN,  HALF_NEG_INF, HALF_MINUS_ONE };
  const uint16_t expected[] = { 0, 32768, 65535, 65535, 65535, 0, 0, 0 };

  check16 ("half", src, G_N_ELEMENTS (src), expected);
}

static void
test_float_to_16 (void)
{
  const float src[] = { 0.0f, 0.5f, 1.0f, 1.5f, -1.0f, INFINITY, -INFINITY, NAN };
  const uint16_t expected[] = { 0, 32768, 65535, 65535, 0, 65535, 0, 0 };

  check16 ("float", src, G_N_ELEMENTS (src), expected);
}

static void
test_double_to_16 (void)
{
  const double src[]
      = { 0.0, 0.51 / 65535.0, 0.49 / 65535.0, 0.25, 1.0, 7.0, -7.0, INFINITY, -INFINITY, NAN };
  const uint16_t expected[] = { 0, 1, 0, 16384, 65535, 65535, 0, 65535, 0, 0 };

  check16 ("double", src, G_N_ELEMENTS (src), expected);
}

static void
test_unknown_types_refused (void)
{
  const uint8_t src[4] = { 0 };
  uint8_t out8[4];
  uint16_t out16[4];

  g_assert_false (gpuhist_convert_samples ("u64", src, 1, out8));
  g_assert_false (gpuhist_convert_samples16 ("u8", src, 1, out16));
  g_assert_false (gpuhist_convert_type_known ("u64"));
  g_assert_true (gpuhist_convert_type_known ("half"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/convert/8/u8-copied", test_u8_copied);
  g_test_add_func ("/convert/8/u16", test_u16_to_8);
  g_test_add_func ("/convert/8/u32", test_u32_to_8);
  g_test_add_func ("/convert/8/half", test_half_to_8);
  g_test_add_func ("/convert/8/float", test_float_to_8);
  g_test_add_func ("/convert/8/double", test_double_to_8);
  g_test_add_func ("/convert/16/u16-copied", test_u16_copied);
  g_test_add_func ("/convert/16/u32", test_u32_to_16);
  g_test_add_func ("/convert/16/half", test_half_to_16);
  g_test_add_func ("/convert/16/float", test_float_to_16);
  g_test_add_func ("/convert/16/double", test_double_to_16);
  g_test_add_func ("/convert/unknown-types", test_unknown_types_refused);
  return g_test_run ();
}
