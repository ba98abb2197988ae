/* gpu-histogram: the reports' numbers (engine/report_numbers.c) against printf and 128-bit
 * division done here the plain way: integers of every length, and weighted counts
 * (numerator / denominator, whole or rounded half up to 6 decimals) over every denominator the
 * engine makes, every numerator below 2^22, numerators on each side of every rounding edge,
 * random ones of every size, past 2^64 and over denominators too large for 64-bit arithmetic. */
#include "report_private.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

typedef unsigned __int128 u128;

static int failures;
static uint64_t state = 0x2545f4914f6cdd1dull;

static uint64_t
next_random (void)
{
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

/* x in decimal, into text (NUL-terminated). */
static void
print_u128 (char *text, u128 x)
{
  char digits[48];
  int n = 0;
  do
    {
      digits[n++] = (char) ('0' + (int) (x % 10));
      x /= 10;
    }
  while (x);
  for (int k = 0; k < n; k++)
    text[k] = digits[n - 1 - k];
  text[n] = '\0';
}

/* The weighted count as the reports promise it (report_private.h). */
static void
print_weighted (char *text, u128 n, uint64_t d)
{
  if (n % d == 0)
    {
      print_u128 (text, n / d);
      return;
    }
  const u128 millionths = (n % d * 1000000 + d / 2) / d;
  print_u128 (text, n / d + millionths / 1000000);
  sprintf (text + strlen (text), ".%06u", (unsigned) (millionths % 1000000));
}

static void
report (const char *what, const char *got, size_t length, const char *expected)
{
  if (length == strlen (expected) && memcmp (got, expected, length) == 0)
    return;
  if (failures++ < 20)
    printf ("FAIL %s: got \"%.*s\", expected \"%s\"\n", what, (int) length, got, expected);
}

static void
check_u64 (uint64_t x)
{
  char got[GH_NUMBER_SIZE], expected[32];
  snprintf (expected, sizeof expected, "%" PRIu64, x);
  report ("gh_format_u64", got, gh_format_u64 (got, x), expected);
}

static void
check_u128 (u128 x)
{
  char got[GH_NUMBER_SIZE], expected[GH_NUMBER_SIZE];
  print_u128 (expected, x);
  report ("gh_format_u128", got,
          gh_format_u128 (got, (gh_u128){ (uint64_t) (x >> 64), (uint64_t) x }), expected);
}

static void
check_weighted (u128 n, const gh_divisor *divisor)
{
  char got[GH_NUMBER_SIZE], expected[GH_NUMBER_SIZE], what[96];
  const gh_u128 numerator = { (uint64_t) (n >> 64), (uint64_t) n };
  print_weighted (expected, n, divisor->denominator);
  snprintf (what, sizeof what, "weighted over %" PRIu64, divisor->denominator);
  report (what, got, gh_format_weighted_by (got, numerator, divisor), expected);
  report ("gh_format_weighted", got, gh_format_weighted (got, numerator, divisor->denominator),
          expected);
}

static void
integers (void)
{
  for (uint64_t x = 0; x < 100000; x++)
    check_u64 (x);
  for (uint64_t p = 1; p <= UINT64_MAX / 10; p *= 10)
    for (int k = -3; k <= 3; k++)
      check_u64 (p * 10 + (uint64_t) k);
  check_u64 (UINT64_MAX);
  for (int i = 0; i < 1000000; i++)
    check_u64 (next_random () >> (next_random () % 64));
  for (int i = 0; i < 100000; i++)
    check_u128 ((u128) next_random () << (next_random () % 65) | next_random ());
  check_u128 (~(u128) 0);
  check_u128 ((u128) 10000000000000000000ull * 10000000000000000000ull);
}

/* Numerators q * d + r where r lands next to where the millionths round up, or to a whole. */
static void
rounding_edges (const gh_divisor *divisor, uint64_t q)
{
  const uint64_t d = divisor->denominator;
  for (uint64_t m = 0; m <= 1000000; m += m < 20 || m > 999980 ? 1 : 99991)
    {
      /* the smallest r with r * 10^6 + d / 2 >= m * d */
      const u128 edge = m * (u128) d > d / 2 ? (m * (u128) d - d / 2 + 999999) / 1000000 : 0;
      for (int k = -2; k <= 2; k++)
        {
          const u128 r = edge + (u128) (k + 2) - 2;
          if (r < d && (u128) q * d + r >= r)
            check_weighted ((u128) q * d + r, divisor);
        }
    }
}

static void
weighted (uint64_t d, uint64_t every_below)
{
  gh_divisor divisor;
  gh_divisor_init (&divisor, d);
  for (uint64_t n = 0; n < every_below; n++)
    check_weighted (n, &divisor);
  rounding_edges (&divisor, 0);
  rounding_edges (&divisor, 12345);
  rounding_edges (&divisor, UINT64_MAX / d - 1);
  for (int i = 0; i < 200000; i++)
    {
      check_weighted (next_random () >> (next_random () % 64), &divisor);
      check_weighted ((u128) (next_random () % d) << 64 | next_random (), &divisor);
    }
  for (int k = 0; k < 4; k++)
    {
      check_weighted ((u128) UINT64_MAX - (uint64_t) k, &divisor);
      check_weighted ((u128) UINT64_MAX + 1 + (uint64_t) k, &divisor);
    }
}

int
main (void)
{
  /* The engine's: no weights, 8- or 16-bit coverage or alpha, and both; then odd ones, 2^32,
   * the largest that 64-bit arithmetic takes, those past it, and 2^64 - 1. */
  const uint64_t fits = (UINT64_MAX - (UINT64_MAX / 1000000) / 2) / 1000000;
  const uint64_t denominators[]
      = { 1,        255,  65535,    255u * 255u, 255u * 65535u, 65535ull * 65535u,
          2,        3,    7,        1000000,     999999,        4294967296ull,
          fits - 1, fits, fits + 1, fits * 2,    UINT64_MAX };
  integers ();
  for (size_t i = 0; i < sizeof denominators / sizeof denominators[0]; i++)
    weighted (denominators[i], i < 6 ? (uint64_t) 1 << 22 : (uint64_t) 1 << 16);
  if (failures)
    printf ("%d numbers differ\n", failures);
  else
    printf ("every number as printf and plain division write it\n");
  return failures ? 1 : 0;
}
