/* gpu-histogram: the fastest vectorscope of an unweighted run (the narrow vectorscope).  Each
 * thread counts into CPU_VECTORSCOPE_COPIES 32-bit copies of the table, neighbouring pixels into
 * different copies, so that a run of equal cells (smooth areas) does not wait on its own
 * increments; the copies are added into the sink when they are folded, which cpu_scopes.c does
 * before a counter could pass 2^32.  Internal to the scopes (cpu_scopes.c calls it). */
#ifndef GPUHIST_CPU_VECTORSCOPE_NARROW_H
#define GPUHIST_CPU_VECTORSCOPE_NARROW_H

#include "cpu_scopes_state.h"

#define CPU_VECTORSCOPE_COPIES 2

/* Whether the run's fastest vectorscope counts narrow: every pixel adds 1, so 32-bit counters
 * hold a strip or more. */
static inline int
cpu_narrow_vectorscope (const gh_run_plan *plan)
{
  return !gh_plan_weighted (plan);
}

/* The thread's copies for the job in flight, cleared when the job's tables start from zero
 * (cpu_scopes_prepare). */
uint32_t *cpu_narrow_copies (const cpu_scopes *s, int thread);
/* Pixels [begin, end) of the strip into thread `thread`'s copies. */
void cpu_narrow_count (const cpu_scopes *s, const uint8_t *samples, size_t begin, size_t end,
                       int thread);
/* Cells [begin, end) of every thread's copies added into `counts`, the sink's table. */
void cpu_narrow_fold (const cpu_scopes *s, uint64_t *counts, size_t begin, size_t end);

#endif /* GPUHIST_CPU_VECTORSCOPE_NARROW_H */
