/* gpu-histogram: the fastest waveform of an 8-bit run with at most 8-bit coverage (the batched
 * waveform).  Each thread counts its stripe of output columns a few columns at a time (a batch)
 * through every row of a strip into 32-bit tables that stay in L1, and adds them into the 64-bit
 * table only before a counter could pass 2^32.  In the one pass (cpu_scopes_count_together) it
 * adds each pixel's vectorscope cell as it passes, and its fold sums the histogram from the
 * waveform's columns.  Internal to the scopes (cpu_scopes.c calls it). */
#ifndef GPUHIST_CPU_WAVEFORM_BATCHED_H
#define GPUHIST_CPU_WAVEFORM_BATCHED_H

#include "cpu_scopes_state.h"

/* What a batch counts besides the waveform when the scopes are counted in one pass
 * (cpu_scopes_count_together); NULLs: nothing. */
typedef struct
{
  void *vectorscope; /* the vectorscope's table: 32-bit (unweighted; one, since the waveform's
                        adds between two pixels keep equal cells from waiting on each other) or
                        64-bit (weighted) */
  uint32_t *cells;   /* with the vectorscope: a row's cells (row_cells) */
} batch_extras;

/* The rows a batch may count before its 32-bit tables are added up; 0 where the run's waveform
 * does not count in batches. */
size_t cpu_batched_rows (const gh_run_plan *plan, uint64_t max_weight);
/* The batched waveform's tables and lookups, after the waveform's geometry; 0, or -1 when memory
 * ran out (cpu_batched_free frees what was had). */
int cpu_batched_alloc (cpu_scopes *s);
void cpu_batched_free (cpu_scopes *s);
/* Before a FASTEST job over `pixels` pixels (cpu_scopes_prepare), and after it (the rows it
 * counted, cpu_scopes_fold_now). */
void cpu_batched_prepare (cpu_scopes *s, size_t pixels);
void cpu_batched_job_done (cpu_scopes *s);
/* Output columns [first, last) through the strip's `rows` rows. */
void cpu_batched_count_stripe (const cpu_scopes *s, const uint8_t *samples, const uint8_t *coverage,
                               size_t rows, int first, int last, const batch_extras *extras);
/* Bins [b0, b1) of every table and column into the sink, and with `histogram` each table's
 * columns summed into the histogram's sink. */
void cpu_batched_fold (const cpu_scopes *s, gh_run_sink *sink, int histogram, int b0, int b1);

#endif /* GPUHIST_CPU_WAVEFORM_BATCHED_H */
