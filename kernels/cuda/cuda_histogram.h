/* gpu-histogram: the CUDA backend's histogram: its tables on the device, each method planned
 * from the tables' shape, launched on a strip, folded into its totals and read back.  The
 * backend calls these without knowing which kernels count; the shape says, once, in hist_begin:
 *
 *   bytes     8-bit samples, 256 bins: hist_kernels.cuh, planned in cuda_launch.h; a 32-bit
 *             strip table, 64-bit totals
 *   wide      16-bit samples, 256 to 65536 bins: wide_kernels.cuh, cuda_wide.h; the same
 *   weighted  coverage, alpha weights, Value and Luminance, or GIMP's 16-bit rule:
 *             weighted_kernels.cuh and weighted_fast_kernel.cuh, cuda_weighted.h; 64-bit strip
 *             sums, 128-bit totals
 *
 * C++, internal to the CUDA backend. */
#ifndef GPUHIST_CUDA_HISTOGRAM_H
#define GPUHIST_CUDA_HISTOGRAM_H

#include "backend.h"
#include "cuda_launch.h"
#include "cuda_weighted.h"
#include "cuda_wide.h"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace gh
{

enum hist_family
{
  kBytes,
  kWide,
  kWeighted
};

/* The histogram's tables: `tables` of `bins` counters, a strip's and each method's totals. */
struct hist_shape
{
  hist_family family;
  int tables;        /* the samples' channels, then Value and Luminance when derived */
  int bins;          /* a table */
  int strip_counter; /* bytes of a counter of the strip's table: 4, or 8 for weighted sums */
  int total_counter; /* bytes of a counter of the totals: 8, or 16 ({hi, lo}) for weighted sums */
  bool planar;       /* the kernels read planar strips (wide SLICED), else interleaved */
};

/* How one method counts, in its family's plan (the others unset).  READ_ONLY needs none. */
struct hist_method
{
  launch_plan bytes;      /* FASTEST */
  wide_plan wide;         /* FASTEST, PRIVATIZED */
  weighted_plan weighted; /* every counting method */
};

struct hist_tables
{
  gh_run_plan plan;
  hist_shape shape;
  hist_method method[GH_N_METHODS];
  void *strip;                /* shape.tables * shape.bins counters of shape.strip_counter bytes */
  void *totals[GH_N_METHODS]; /* the same of shape.total_counter bytes; NULL: not collected */
  unsigned int *scratch;      /* the wide tables' global copies, where FASTEST uses them */
  unsigned int *read_sink;    /* what the read-only pass writes (and the backend's kernel fault) */
};

/* A strip on the device: its samples as the kernels read them (planar where shape.planar says),
 * and its coverage plane (NULL without one). */
struct hist_strip
{
  const uint8_t *samples;
  const uint8_t *coverage;
  size_t bytes; /* of samples */
};

/* Plans each method of plan->methods from the tables' shape, and allocates (cleared, on
 * `stream`) the strip's table and the totals of each method the sink collects.  PRIVATIZED
 * (one copy of the whole table a block) is left out where its table does not fit a block, or
 * where the strips are planar: dropped from plan->methods and its sink arrays freed.
 * GH_ERROR_UNSUPPORTED for a forced layout or strategy that cannot fit, never a failed launch. */
gh_status hist_begin (const cudaDeviceProp &device, gh_run_plan *plan, gh_run_sink *sink,
                      cudaStream_t stream, hist_tables *tables, gh_error *error);
/* Zeroes the strip's table, so that a method counts from nothing. */
gh_status hist_clear_strip (const hist_tables &tables, cudaStream_t stream, gh_error *error);
/* Launches one method over the strip (READ_ONLY: reads it, coverage included, and counts
 * nothing). */
gh_status hist_launch (const hist_tables &tables, const cudaDeviceProp &device, gh_method method,
                       const hist_strip &strip, cudaStream_t stream, gh_error *error);
/* Adds the strip's table into the method's totals; nothing where the sink collects none. */
gh_status hist_fold (const hist_tables &tables, gh_method method, cudaStream_t stream,
                     gh_error *error);
/* Reads the totals into the sink (after the stream is done): 64-bit counts, 128-bit sums, or
 * for a derived run without weights the sums' low words as counts. */
gh_status hist_collect (const hist_tables &tables, gh_run_sink *sink, gh_error *error);
/* FASTEST's plan in words (the result's layout line). */
void hist_describe (const hist_tables &tables, char *out, size_t size);
/* Frees what hist_begin allocated; safe on a half-made or zeroed one. */
void hist_free (hist_tables *tables);

} // namespace gh

#endif /* GPUHIST_CUDA_HISTOGRAM_H */
