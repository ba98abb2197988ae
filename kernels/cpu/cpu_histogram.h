/* gpu-histogram: the CPU backend's counting of plain runs' histograms (neither weights nor
 * derived channels), 8-bit and 16-bit samples, every method on one thread's share of a strip:
 *   global atomics  an atomic add per sample into the table every thread shares
 *   privatized      the thread's own table
 *   fastest         8-bit samples: CPU_FASTEST_COPIES interleaved copies a thread, so that runs
 *                   of equal samples do not wait on each other's increments; 16-bit samples:
 *                   as privatized, since the copies measured slower there
 * and the read-only pass's reading.  cpu_backend.c runs them on its pool. */
#ifndef GPUHIST_CPU_HISTOGRAM_H
#define GPUHIST_CPU_HISTOGRAM_H

#include "backend.h"

#include <stdatomic.h>

#define CPU_FASTEST_COPIES 4

/* A plain run's rule and shared table. */
typedef struct
{
  size_t words;         /* a table's: channels * bins */
  uint16_t *level_bins; /* unweighted 16-bit runs under GIMP's rule: every level's bin */
  _Atomic uint32_t *shared;
} cpu_histogram_tables;

/* `n` bytes of whole pixels at p into the thread's copies (for 8-bit samples under FASTEST,
 * CPU_FASTEST_COPIES tables, the first the sum after), which the method clears first, or into
 * the shared table; not READ_ONLY. */
void cpu_histogram_count (const gh_run_plan *plan, const cpu_histogram_tables *tables,
                          gh_method method, const uint8_t *p, size_t n, uint32_t *copies);
/* XORs every byte of [p, p + n), 8 at a time, so that the compiler cannot skip the reads. */
uint64_t cpu_read_bytes (const uint8_t *p, size_t n);

#endif /* GPUHIST_CPU_HISTOGRAM_H */
