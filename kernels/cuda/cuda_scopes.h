/* gpu-histogram: the CUDA backend's scopes (gpuhist.h, gh_scope): planning, device tables,
 * launching each method on a strip, and reading the totals back.  The kernels are in
 * scope_kernels.cuh, scope_fast_kernels.cuh, scope_lane_waveform.cuh, scope_weighted_waveform.cuh
 * and scope_compact_vectorscope.cuh.  C++, internal to the CUDA backend and the benchmark.
 *
 *   global atomics  one 64-bit atomicAdd a table a pixel adds to, into the strip's table
 *   privatized      waveform: a block owns a stripe of output columns, so its private copy is
 *                   the slice of the table its pixels can reach; it reads those pixels of a
 *                   band of rows and merges its slice once.  Vectorscope: every cell is within
 *                   any pixel's reach, so a block's copy is the whole table in narrow counters
 *                   (16-bit when unweighted, 32-bit for weights below 2^20, else 64-bit in
 *                   slices of Cr that each read the strip), a counter spilling into the strip's
 *                   table whenever it crosses half its range
 *   fastest         8-bit runs: the waveform of RGB and RGBA in stripes of 32 image columns, a
 *                   pixel a lane, every lane with its own 32-bit counters (no bank conflicts);
 *                   weighted, the same with each pixel's weight (scope_weighted_waveform.cuh,
 *                   bands short enough that no counter's sum passes 2^32).  Unweighted runs
 *                   only: for rows of whole fours of pixels, the other waveforms (tiles of
 *                   image columns, the slice a tile reaches) and the vectorscope: four pixels a
 *                   load, equal neighbours added at once, 16-bit counters (the vectorscope's
 *                   dense blocks' tables added up by a second kernel).  The weighted
 *                   vectorscope of 8-bit RGB and RGBA, where a block can hold 220 KiB: a
 *                   32-bit counter for each of the 48179 cells a colour can reach (188 KiB) and
 *                   the rows' starts, one block an SM (scope_compact_vectorscope.cuh).  Else as
 *                   privatized */
#ifndef GPUHIST_CUDA_SCOPES_H
#define GPUHIST_CUDA_SCOPES_H

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "backend.h"

namespace gh
{

/* How a privatized or fastest scope kernel runs. */
struct scope_launch
{
  bool supported; /* false: the method's slice does not fit a block (left out) */
  int blocks_x;   /* waveform: stripes; vectorscope: blocks over the pixels */
  int blocks_y;   /* waveform: bands of rows; vectorscope: slices of Cr */
  int threads;
  size_t shared_bytes;
  int columns_per_block; /* waveform stripes */
  int counter_bits;      /* 16 or 32 */
  bool fast;             /* scope_fast_kernels.cuh: unweighted 8-bit rows of whole fours */
  bool compact;          /* scope_compact_vectorscope.cuh: weighted, the reachable cells */
  int lanes;             /* fast waveform of RGB and RGBA, a counter table a lane: image
                          * columns a lane (1 or 4), 0 when not */
  int tile_width;        /* fast waveform: image columns a block */
  int slice_columns;     /* fast waveform: the most output columns a tile reaches */
};

/* A run's scopes on the device: the strip's 64-bit tables and each method's totals (64-bit
 * counts, or 128-bit {hi, lo} sums for weighted runs). */
struct scope_tables
{
  gh_run_plan plan;
  size_t cells[GH_N_SCOPES];
  unsigned long long *strip[GH_N_SCOPES];
  unsigned long long *totals[GH_N_SCOPES][GH_N_METHODS];
  int *column_of_x; /* the waveform's output column of each image column */
  int *first_x;     /* the first image column of each output column, width at [columns] */
  int table_of_channel[GH_MAX_CHANNELS + 2];
  scope_launch launch[GH_N_SCOPES][GH_N_METHODS];
  cudaEvent_t *events; /* scopes * methods * repetitions * 2 */
  /* The fast vectorscope's partial table a block (scope_fast_kernels.cuh), NULL without it */
  unsigned int *vectorscope_partials;
  int *vectorscope_partial_used;
};

/* Plans and allocates what the plan's scopes need; a method whose kernel cannot fit is dropped
 * from those scopes' sink (its tables freed).  GH_OK or an allocation failure. */
gh_status scopes_begin (const cudaDeviceProp &device, const gh_run_plan &plan, gh_run_sink *sink,
                        cudaStream_t stream, scope_tables *tables, gh_error *error);
/* Counts the strip now on the device (`samples` interleaved, `coverage` its plane) with every
 * method of the plan, each scope timed alone into the sink's rep_ms; untimed runs count with
 * FASTEST once, asynchronously. */
gh_status scopes_count_strip (scope_tables *tables, const cudaDeviceProp &device,
                              const uint8_t *samples, const uint8_t *coverage, size_t pixels,
                              int warmups, cudaStream_t stream, gh_run_sink *sink, gh_error *error);
/* Reads the totals into the sink (after the stream is done). */
gh_status scopes_collect (scope_tables *tables, gh_run_sink *sink, gh_error *error);
void scopes_free (scope_tables *tables);

} // namespace gh

#endif /* GPUHIST_CUDA_SCOPES_H */
