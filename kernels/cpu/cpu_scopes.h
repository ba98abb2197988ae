/* gpu-histogram: the CPU backend's scopes (gpuhist.h, gh_scope): the waveform and the
 * vectorscope of one strip, with each method, on one thread's share.  cpu_backend.c runs them on
 * its pool, each scope as a job of its own, and folds the tables into the sink.
 *
 *   global atomics  every thread adds into one shared 64-bit table with an atomic add
 *   privatized      every thread counts its pixels into its own 64-bit copy of the table
 *   fastest         waveform: each thread owns a stripe of output columns and reads only the
 *                   pixels that land there, so it counts straight into its slice of one table:
 *                   no copies, no merge.  Vectorscope: two 32-bit copies a thread for
 *                   unweighted runs, else as privatized.  In a run without repetitions
 *                   these tables add strip after strip and are folded into the sink once.
 * The fastest waveform of 8-bit runs counts in batches of columns (cpu_waveform_batched.c). */
#ifndef GPUHIST_CPU_SCOPES_H
#define GPUHIST_CPU_SCOPES_H

#include "cpu_weighted.h"

typedef struct cpu_scopes cpu_scopes;

/* NULL when memory ran out; `rules` (initialised on the same plan) must outlive it. */
cpu_scopes *cpu_scopes_new (const gh_run_plan *plan, const cpu_weighted_rules *rules, int threads);
void cpu_scopes_free (cpu_scopes *scopes);

/* Before a job of `method` on scope `kind` over a strip of `pixels` pixels: clears what the
 * threads count into, unless FASTEST's tables still hold earlier strips of a run without
 * repetitions. */
void cpu_scopes_prepare (cpu_scopes *scopes, int kind, gh_method method, size_t pixels);
/* Thread `thread` of `threads` counts its share of a strip of `pixels` pixels (whole rows) whose
 * coverage plane is at coverage (NULL without one). */
void cpu_scopes_count (cpu_scopes *scopes, int kind, gh_method method, const uint8_t *samples,
                       const uint8_t *coverage, size_t pixels, int thread, int threads);
/* Whether FASTEST can count the histogram with the scopes in one pass over a strip: an 8-bit run
 * (at most 8-bit coverage) whose waveform has every output channel, so that the histogram is
 * the waveform's columns summed.  The vectorscope, if any, counts in the same pass. */
int cpu_scopes_count_histogram_too (const cpu_scopes *scopes);
/* That pass, FASTEST, on thread `thread`'s stripe of columns: the scopes as cpu_scopes_count
 * does (cpu_scopes_prepare first for each, cpu_scopes_fold after, with `histogram` for the
 * waveform, which then folds the histogram too). */
void cpu_scopes_count_together (cpu_scopes *scopes, const uint8_t *samples, const uint8_t *coverage,
                                size_t pixels, int thread, int threads);
/* After the job: whether what it counted must be folded into the sink now.  FASTEST's tables of
 * a run without repetitions are folded only when `last` (the run's last strip) or before
 * another strip could overflow them. */
int cpu_scopes_fold_now (cpu_scopes *scopes, int kind, gh_method method, int last);
/* Then thread `thread` of `threads` adds its share of the tables' cells into the sink's table of
 * the method; with `histogram` (the waveform of cpu_scopes_count_together's pass) also its share
 * of the histogram, the waveform's columns summed, into the sink's histogram. */
void cpu_scopes_fold (const cpu_scopes *scopes, int kind, gh_method method, gh_run_sink *sink,
                      int histogram, int thread, int threads);

#endif /* GPUHIST_CPU_SCOPES_H */
