/* gpu-histogram: what the engine's benchmarks (bench-*.c, not tests) share: clocks, medians and
 * reading their input files. */
#ifndef GPUHIST_BENCH_UTIL_H
#define GPUHIST_BENCH_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline double
bench_clock_ms (clockid_t clock)
{
  struct timespec t;
  clock_gettime (clock, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static inline double
bench_now_ms (void)
{
  return bench_clock_ms (CLOCK_MONOTONIC);
}

static inline int
bench_compare (const void *a, const void *b)
{
  const double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* The median of n times (sorts them). */
static inline double
bench_median (double *times, int n)
{
  qsort (times, (size_t) n, sizeof *times, bench_compare);
  return times[n / 2];
}

/* `size` bytes of the file at `path`, or the program exits saying so. */
static inline uint8_t *
bench_read_file (const char *who, const char *path, size_t size)
{
  uint8_t *bytes = malloc (size);
  FILE *in = fopen (path, "rb");
  if (!bytes || !in || fread (bytes, 1, size, in) != size)
    {
      fprintf (stderr, "%s: cannot read %zu bytes from %s\n", who, size, path);
      exit (1);
    }
  fclose (in);
  return bytes;
}

#endif /* GPUHIST_BENCH_UTIL_H */
