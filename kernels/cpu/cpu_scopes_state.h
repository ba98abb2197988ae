/* gpu-histogram: what a run's scopes keep on the CPU (cpu_scopes.h): their tables, the waveform's
 * geometry and the state of deferred folds.  Internal to the scopes: cpu_scopes.c counts every
 * method, cpu_waveform_batched.c the fastest waveform of 8-bit runs and cpu_vectorscope_narrow.c
 * the fastest vectorscope of unweighted runs, on the same state. */
#ifndef GPUHIST_CPU_SCOPES_STATE_H
#define GPUHIST_CPU_SCOPES_STATE_H

#include "chroma_sums.h"
#include "cpu_scopes.h"

#include <stdatomic.h>
#include <stdint.h>

#define MAX_OUT_CHANNELS (GH_MAX_CHANNELS + 2)

struct cpu_scopes
{
  gh_run_plan plan;
  const cpu_weighted_rules *rules;
  int threads;
  size_t cells[GH_N_SCOPES];
  int table_of_channel[MAX_OUT_CHANNELS]; /* the waveform's table of an output channel, or -1 */
  int *column_of_x;                       /* the waveform's output column of each image column */
  size_t *cell_of_x;                      /* batched waveform: column_of_x's first cell in
                                             narrow_columns, column * tables * GH_BINS */
  int *first_x;                           /* the first image column of each output column, and
                                             width at [columns] */
  uint8_t *level8;                        /* 16-bit samples: the vectorscope's level of each */
  uint64_t *own[GH_N_SCOPES];             /* threads copies: privatized */
  _Atomic uint64_t *shared[GH_N_SCOPES];  /* global atomics */
  uint64_t *stripes;                      /* fastest waveform: one table, a stripe a thread */
  uint32_t *narrow_columns;               /* batched fastest waveform: the 32-bit tables,
                                             [column][table][bin], added into stripes only
                                             every batch_rows rows */
  uint32_t *narrow;       /* fastest vectorscope: threads * CPU_VECTORSCOPE_COPIES 32-bit copies */
  cpu_chroma_sums chroma; /* 8-bit vectorscope cells from three lookups */
  uint32_t *row_cells;    /* one pass with the vectorscope: threads rows of cells */
  int chroma_cells;       /* or 8 at a time: cpu_chroma_cells_available () */
  uint64_t max_weight;    /* the most a pixel adds to a cell */
  size_t batch_rows;      /* the batched waveform: rows counted into the 32-bit tables before
                             they are added up, so that none passes 2^32; 0: no batches */
  size_t held_rows;       /* rows in the 32-bit tables since they were added up */
  size_t job_rows;        /* the rows of the job in flight */
  int stripes_live;       /* the batched waveform's 64-bit table holds sums */
  /* A run without repetitions keeps adding strip after strip into FASTEST's tables and folds
   * them into the sink once, at its end or before they could overflow: folding a waveform after
   * every strip cost more than counting it. */
  int accumulate;
  size_t strip_pixels;         /* the most pixels a strip holds */
  size_t pending[GH_N_SCOPES]; /* pixels in FASTEST's tables since they were last folded */
  int clear[GH_N_SCOPES];      /* the job's FASTEST tables start from zero */
};

static inline int
cpu_scopes_wants (const gh_run_plan *plan, gh_method method)
{
  return (plan->methods & GH_METHOD_BIT (method)) != 0;
}

/* The fastest waveform of an 8-bit run with at most 8-bit coverage counts in L1-sized batches
 * (cpu_waveform_batched.h). */
static inline int
cpu_scopes_batched (const cpu_scopes *s)
{
  return s->batch_rows > 0;
}

#endif /* GPUHIST_CPU_SCOPES_STATE_H */
