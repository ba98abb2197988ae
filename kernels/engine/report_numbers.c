/* gpu-histogram: numbers as the reports write them (report_private.h).  A scopes run's JSON holds
 * over a million of them, so each is formatted by hand: digits two at a time, and a weighted
 * count divided by the run's denominator through a multiplication prepared once per document. */
#include "report_private.h"

#include <string.h>

typedef unsigned __int128 u128;

static u128
u128_of (gh_u128 x)
{
  return (u128) x.hi << 64 | x.lo;
}

/* Two digits at a time: half the divisions of one at a time. */
static const char digit_pairs[]
    = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
      "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
      "8081828384858687888990919293949596979899";

/* How many decimal digits x has (1 for 0, as for 1): from its bit length, which leaves two
 * candidates. */
static inline size_t
digit_count (uint64_t x)
{
  static const uint64_t powers[20] = { 1ull,
                                       10ull,
                                       100ull,
                                       1000ull,
                                       10000ull,
                                       100000ull,
                                       1000000ull,
                                       10000000ull,
                                       100000000ull,
                                       1000000000ull,
                                       10000000000ull,
                                       100000000000ull,
                                       1000000000000ull,
                                       10000000000000ull,
                                       100000000000000ull,
                                       1000000000000000ull,
                                       10000000000000000ull,
                                       100000000000000000ull,
                                       1000000000000000000ull,
                                       10000000000000000000ull };
  /* 1233 / 4096 is just above log10 (2): t is the digits of 2^(bits - 1), or one more. */
  const unsigned bits = 64 - (unsigned) __builtin_clzll (x | 1);
  const unsigned t = (bits * 1233) >> 12;
  return t + 1 - ((x | 1) < powers[t]);
}

/* The n digits of x ending at `end`, two at a time from the right. */
static inline void
put_digits (char *end, uint64_t x, size_t n)
{
  for (; n >= 2; n -= 2, x /= 100)
    {
      end -= 2;
      memcpy (end, digit_pairs + 2 * (x % 100), 2);
    }
  if (n)
    end[-1] = (char) ('0' + x);
}

static inline size_t
format_u64 (char *to, uint64_t x)
{
  const size_t n = digit_count (x);
  put_digits (to + n, x, n);
  return n;
}

size_t
gh_format_u64 (char *to, uint64_t x)
{
  return format_u64 (to, x);
}

/* A 128-bit integer in decimal: the high part's digits, then the low 19 with zeros. */
static size_t
format_u128 (char *to, u128 x)
{
  static const uint64_t ten19 = 10000000000000000000ull;
  if (x <= UINT64_MAX)
    return gh_format_u64 (to, (uint64_t) x);
  const size_t n = format_u128 (to, x / ten19);
  put_digits (to + n + 19, (uint64_t) (x % ten19), 19);
  return n + 19;
}

size_t
gh_format_u128 (char *to, gh_u128 x)
{
  return format_u128 (to, u128_of (x));
}

void
gh_divisor_init (gh_divisor *divisor, uint64_t denominator)
{
  divisor->denominator = denominator;
  divisor->inverse = denominator ? UINT64_MAX / denominator : 0;
  /* A remainder's millionths, rest * 10^6 + denominator / 2, must fit 64 bits. */
  divisor->fits = denominator > 0 && denominator <= (UINT64_MAX - denominator / 2) / 1000000;
}

/* x / d for 64-bit x, d: inverse = floor ((2^64 - 1) / d) gives a quotient at most 2 below the
 * true one and never above it (x * inverse / 2^64 lies in (x / d - 2, x / d]), which the
 * remainder then corrects, so every quotient is exact. */
static inline uint64_t
divide (const gh_divisor *divisor, uint64_t x, uint64_t *rest)
{
  const uint64_t d = divisor->denominator;
  uint64_t q = (uint64_t) (((u128) x * divisor->inverse) >> 64), r = x - q * d;
  while (r >= d)
    {
      r -= d;
      q++;
    }
  *rest = r;
  return q;
}

/* whole, a point and the 6 digits of millionths (below 10^6). */
static inline size_t
put_decimals (char *to, size_t length, uint64_t millionths)
{
  to[length] = '.';
  put_digits (to + length + 7, millionths, 6);
  return length + 7;
}

/* The same in 128 bits: for numerators past 2^64 and very large denominators. */
static size_t
format_weighted_u128 (char *to, u128 n, uint64_t denominator)
{
  const u128 whole = n / denominator, rest = n % denominator;
  if (rest == 0)
    return format_u128 (to, whole);
  const u128 millionths = (rest * 1000000 + denominator / 2) / denominator;
  const size_t length = format_u128 (to, whole + millionths / 1000000);
  return put_decimals (to, length, (uint64_t) (millionths % 1000000));
}

size_t
gh_format_weighted_by (char *to, gh_u128 numerator, const gh_divisor *divisor)
{
  if (numerator.hi != 0 || !divisor->fits)
    return format_weighted_u128 (to, u128_of (numerator), divisor->denominator);
  uint64_t rest, unused;
  const uint64_t whole = divide (divisor, numerator.lo, &rest);
  if (rest == 0)
    return format_u64 (to, whole);
  /* Rounded half up; 999999.5 millionths and more round to the next whole. */
  const uint64_t millionths = divide (divisor, rest * 1000000 + divisor->denominator / 2, &unused);
  const size_t length = format_u64 (to, whole + millionths / 1000000);
  return put_decimals (to, length, millionths % 1000000);
}

size_t
gh_format_weighted (char *to, gh_u128 numerator, uint64_t denominator)
{
  gh_divisor divisor;
  gh_divisor_init (&divisor, denominator);
  return gh_format_weighted_by (to, numerator, &divisor);
}
