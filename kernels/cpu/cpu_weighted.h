/* gpu-histogram: the CPU backend's counting of weighted runs (a coverage plane, alpha weighting)
 * and of derived channels (value, luminance): every method but read-only, on one thread's
 * share of a strip.  cpu_backend.c runs it on its pool and folds the tables into the sink. */
#ifndef GPUHIST_CPU_WEIGHTED_H
#define GPUHIST_CPU_WEIGHTED_H

#include "backend.h"

#include <stdatomic.h>

typedef struct
{
  gh_run_plan plan;
  size_t table_words; /* out_channels * bins */
  uint32_t alpha_full;
  uint32_t luminance_fixed[3][256]; /* 8-bit luminance in fixed point (gimp_rules.h) */
  /* 16-bit samples: every level's bin under the run's rule, and the float its luminance is
   * formed from (gh_luminance_input), looked up rather than computed for every sample. */
  uint32_t *level_bins;
  float *level_floats;
} cpu_weighted_rules;

#define CPU_NARROW_COPIES 2

/* 0, or -1 when the tables could not be had; cpu_weighted_rules_clear frees them either way. */
int cpu_weighted_rules_init (cpu_weighted_rules *rules, const gh_run_plan *plan);
void cpu_weighted_rules_clear (cpu_weighted_rules *rules);

/* Where a thread counts: its own 64-bit sums (privatized, fastest), CPU_NARROW_COPIES 32-bit
 * tables for fastest's narrow counters, or the sums all threads share (global atomics). */
typedef struct
{
  uint64_t *sums;
  uint32_t *narrow;
  _Atomic uint64_t *shared;
} cpu_weighted_tables;

/* Pixels [begin, end) of a strip whose coverage plane is at coverage (NULL without one); adds
 * into tables (sums is zeroed first: it holds this share's sums, below 2^63). */
void cpu_weighted_count (const cpu_weighted_rules *rules, gh_method method, const uint8_t *samples,
                         const uint8_t *coverage, size_t begin, size_t end,
                         const cpu_weighted_tables *tables);

/* Pixel p's bins and weights, output channel by output channel (the scopes' per-pixel rule). */
void cpu_weighted_pixel (const cpu_weighted_rules *rules, const uint8_t *samples,
                         const uint8_t *coverage, size_t p, int *bin, uint32_t *weight);

#endif /* GPUHIST_CPU_WEIGHTED_H */
