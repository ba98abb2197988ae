/* gpu-histogram tests: random images, the reference count and checks, in plain C (the GPU
 * machine has no GLib).  Every run draws a fresh seed and prints it when a check fails;
 * GPUHIST_TEST_SEED replays one. */
#ifndef GPUHIST_TEST_UTIL_H
#define GPUHIST_TEST_UTIL_H

#include "gpuhist.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TEST_SKIP 77

static uint64_t test_seed;
static uint64_t test_state;
static int test_failures;

static inline uint64_t
test_random (void)
{
  /* xorshift64*: quick and good enough to pick pixels. */
  test_state ^= test_state >> 12;
  test_state ^= test_state << 25;
  test_state ^= test_state >> 27;
  return test_state * 0x2545F4914F6CDD1Dull;
}

static inline void
test_init (void)
{
  const char *fixed = getenv ("GPUHIST_TEST_SEED");
  test_seed = fixed ? strtoull (fixed, NULL, 0)
                    : ((uint64_t) time (NULL) << 20) ^ (uint64_t) getpid () ^ (uint64_t) clock ();
  test_state = test_seed ? test_seed : 1;
  printf ("# seed %" PRIu64 " (GPUHIST_TEST_SEED=%" PRIu64 " replays it)\n", test_seed, test_seed);
}

#define CHECK(cond, ...)                                                                           \
  do                                                                                               \
    {                                                                                              \
      if (!(cond))                                                                                 \
        {                                                                                          \
          test_failures++;                                                                         \
          printf ("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                                  \
          printf (__VA_ARGS__);                                                                    \
          printf (" (seed %" PRIu64 ")\n", test_seed);                                             \
        }                                                                                          \
    }                                                                                              \
  while (0)

typedef enum
{
  IMAGE_FLAT,
  IMAGE_NOISE,
  IMAGE_GRADIENT,
  IMAGE_FEW_LEVELS,
  N_IMAGE_KINDS
} image_kind;

static const char *const image_kind_names[] = { "flat", "noise", "gradient", "few levels" };

/* A width x height image of `channels`, rows `stride` bytes apart; the padding is filled with
 * a value no row uses much, so that a stride bug shows. */
static inline uint8_t *
test_image (image_kind kind, int width, int height, int channels, size_t stride)
{
  uint8_t *pixels = malloc (stride * (size_t) height + 1);
  if (!pixels)
    return NULL;
  memset (pixels, 0xEE, stride * (size_t) height + 1);
  const uint8_t flat = (uint8_t) test_random ();
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++)
      for (int c = 0; c < channels; c++)
        {
          uint8_t v;
          switch (kind)
            {
            case IMAGE_FLAT: v = (uint8_t) (flat + c); break;
            case IMAGE_NOISE: v = (uint8_t) test_random (); break;
            case IMAGE_GRADIENT: v = (uint8_t) ((x * 256 / width + y + c * 40) & 255); break;
            default: v = (uint8_t) ((test_random () % 3) * 100); break;
            }
          pixels[(size_t) y * stride + (size_t) x * channels + c] = v;
        }
  return pixels;
}

/* A 16-bit image; flat, noise, gradient or a few levels, like test_image.  stride in bytes. */
static inline uint16_t *
test_image16 (image_kind kind, int width, int height, int channels, size_t stride)
{
  uint16_t *pixels = malloc (stride * (size_t) height + 2);
  if (!pixels)
    return NULL;
  memset (pixels, 0xEE, stride * (size_t) height + 2);
  const uint16_t flat = (uint16_t) test_random ();
  for (int y = 0; y < height; y++)
    {
      uint16_t *row = (uint16_t *) ((uint8_t *) pixels + (size_t) y * stride);
      for (int x = 0; x < width; x++)
        for (int c = 0; c < channels; c++)
          {
            uint16_t v;
            switch (kind)
              {
              case IMAGE_FLAT: v = (uint16_t) (flat + c); break;
              case IMAGE_NOISE: v = (uint16_t) test_random (); break;
              case IMAGE_GRADIENT:
                v = (uint16_t) ((x * 65536 / width + y * 7 + c * 9000) & 65535);
                break;
              default: v = (uint16_t) ((test_random () % 3) * 30000); break;
              }
            row[(size_t) x * channels + c] = v;
          }
    }
  return pixels;
}

/* Compares counts with the reference count of the same pixels; returns 1 when equal. */
static inline int
test_counts_equal_bins (const uint64_t *counts, const uint64_t *expected, int channels, int bins,
                        const char *what)
{
  for (int i = 0; i < channels * bins; i++)
    if (counts[i] != expected[i])
      {
        CHECK (counts[i] == expected[i],
               "%s: channel %d bin %d: %" PRIu64 " counted, %" PRIu64 " expected", what, i / bins,
               i % bins, counts[i], expected[i]);
        return 0;
      }
  return 1;
}

static inline int
test_counts_equal (const uint64_t *counts, const uint64_t *expected, int channels, const char *what)
{
  return test_counts_equal_bins (counts, expected, channels, GH_BINS, what);
}

/* A CPU engine with these methods, repetitions, memory budget and bins (0: the defaults). */
static inline gh_engine *
test_cpu_engine (unsigned methods, int repetitions, size_t budget, int bins)
{
  gh_options options;
  gh_options_init (&options);
  options.backend = GH_BACKEND_CPU;
  options.methods = methods;
  options.repetitions = repetitions;
  options.memory_budget = budget;
  options.bins = bins;
  gh_error error;
  gh_engine *engine = gh_engine_new (&options, &error);
  CHECK (engine != NULL, "CPU engine: %s", error.message);
  return engine;
}

static const int test_bin_counts[] = { 256, 1024, 4096, 16384, 65536 };

static inline int
test_finish (const char *name)
{
  if (test_failures)
    printf ("%s: %d check(s) failed\n", name, test_failures);
  else
    printf ("%s: all checks passed\n", name);
  return test_failures ? 1 : 0;
}

/* A weighted run's input: samples, and a coverage plane where the spec has one. */
typedef struct
{
  gh_run_spec spec;
  int bins; /* the engine's, for 16-bit samples; 256 for 8-bit ones */
  uint8_t *pixels;
  size_t stride;
  uint8_t *coverage;
  size_t coverage_stride;
} weighted_image;

/* A weight level: often none or full (selection edges are rare), else anything. */
static inline unsigned
random_weight (unsigned full)
{
  const uint64_t x = test_random ();
  return x % 4 == 0 ? 0 : x % 4 == 1 ? full : (unsigned) ((x >> 8) % (full + 1));
}

#endif /* GPUHIST_TEST_UTIL_H */
