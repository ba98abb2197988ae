/* gpu-histogram: the scopes' kernels (cuda_scopes.h says which method runs which).  Device code
 * only; cuda_scopes.cu launches them.
 *
 * Every kernel adds one strip into the scope's 64-bit strip table (a strip has fewer than 2^31
 * pixels and a weight is below 2^32, so a strip's sums fit), which a fold adds into the run's
 * totals.  Shared-memory counters are narrower and never lose a count: an add that wraps a
 * counter is seen by the thread that made it (atomicAdd returns the old value), which moves the
 * wrapped range into the strip table.  For two 16-bit counters in one word, a wrap of the low one
 * carries into the high one; that thread takes the carry back, and every wrap or borrow of the
 * whole word is accounted to the high counter, so the arithmetic stays exact whatever the order
 * in which the threads' adds land. */
#ifndef GPUHIST_SCOPE_KERNELS_CUH
#define GPUHIST_SCOPE_KERNELS_CUH

#include <cstddef>
#include <cstdint>

#include "scope_rules.h"
#include "weighted_kernels.cuh"

namespace gh
{

/* One scope of one strip on the device. */
struct scope_job
{
  weighted_job pix; /* the samples, coverage and rules (pix.out unused) */
  int width;        /* pixels a row */
  int columns, bins, tables;
  int table_of_channel[GH_MAX_CHANNELS + 2]; /* waveform: -1 where a channel has no table */
  const int *column_of_x;
  const int *first_x;
  unsigned long long *out; /* the scope's strip table */
  /* The fast vectorscope: a partial table a block (16-bit counters, two a word) and whether
   * each block wrote its own */
  unsigned int *partials;
  int *partial_used;
};

/* Adds n into 16-bit counter `cell` of a packed table (two a word, the even one low); `spill` is
 * where this cell pair's wrapped ranges go: the strip table's cells of the pair. */
__device__ __forceinline__ void
add16 (unsigned int *words, unsigned int cell, unsigned int n, unsigned long long *spill_low,
       unsigned long long *spill_high)
{
  const unsigned int shift = (cell & 1u) * 16u;
  const unsigned int delta = n << shift;
  const unsigned int old = atomicAdd (&words[cell >> 1], delta);
  if (old + delta < old) /* the word wrapped: 2^32 is 65536 of the high counter */
    atomicAdd (spill_high, 65536ull);
  if (shift == 0 && (old & 0xFFFFu) + n > 0xFFFFu)
    {
      /* The low counter wrapped and carried one into the high counter: take it back. */
      const unsigned int before = atomicSub (&words[cell >> 1], 0x10000u);
      atomicAdd (spill_low, 65536ull);
      if (before < 0x10000u) /* the word borrowed: 2^32 less of the high counter */
        atomicAdd (spill_high, 0ull - 65536ull);
    }
}

/* Adds w into 32-bit counter `cell`; true when it wrapped, and the caller moves 2^32 into the
 * strip table. */
__device__ __forceinline__ bool
add32 (unsigned int *counters, unsigned int cell, unsigned int w)
{
  const unsigned int old = atomicAdd (&counters[cell], w);
  return old + w < old;
}

/* The counter of a cell in a packed 16-bit or a 32-bit table. */
template <int kBits>
__device__ __forceinline__ unsigned int
counter_at (const unsigned int *words, unsigned int cell)
{
  return kBits == 16 ? (words[cell >> 1] >> ((cell & 1u) * 16u)) & 0xFFFFu : words[cell];
}

/* Pixel p's vectorscope cell and colour weight (gpuhist.h's rule). */
__device__ __forceinline__ unsigned int
vectorscope_cell (const weighted_job &j, size_t p, unsigned int *weight)
{
  const int c_in = j.channels;
  unsigned int s[4];
  for (int c = 0; c < 3; c++)
    s[c] = j.bytes_per_sample == 1 ? j.samples[p * c_in + c]
                                   : reinterpret_cast<const uint16_t *> (j.samples)[p * c_in + c];
  unsigned int level[3];
  for (int c = 0; c < 3; c++)
    level[c] = j.bytes_per_sample == 1
                   ? s[c]
                   : static_cast<unsigned int> (gh_vectorscope_level_u16 (s[c], j.binning));
  unsigned int m = 1;
  if (j.coverage_bytes == 1)
    m = j.coverage[p];
  else if (j.coverage_bytes == 2)
    m = reinterpret_cast<const uint16_t *> (j.coverage)[p];
  if (j.alpha_weighted)
    m = gh_weight_product (m, j.bytes_per_sample == 1
                                  ? j.samples[p * c_in + 3]
                                  : reinterpret_cast<const uint16_t *> (j.samples)[p * c_in + 3]);
  *weight = m;
  return static_cast<unsigned int> (gh_vectorscope_cell (
      static_cast<int> (level[0]), static_cast<int> (level[1]), static_cast<int> (level[2])));
}

/* The waveform's strip-table cell of table t, output column `column`, bin b. */
__device__ __forceinline__ size_t
waveform_cell (const scope_job &j, int t, int column, unsigned int b)
{
  return (static_cast<size_t> (t) * j.columns + column) * j.bins + b;
}

/* 1. Global atomics: one 64-bit atomicAdd a table a pixel adds to, device-wide. */
static __global__ void
waveform_global_kernel (scope_job j)
{
  const unsigned int pixels = static_cast<unsigned int> (j.pix.pixels);
  for (unsigned int p = blockIdx.x * blockDim.x + threadIdx.x; p < pixels;
       p += gridDim.x * blockDim.x)
    {
      const int column = j.column_of_x[p % static_cast<unsigned int> (j.width)];
      visit_pixel (j.pix, p, [&] (int c, unsigned int b, unsigned int w) {
        const int t = j.table_of_channel[c];
        if (t >= 0 && w)
          atomicAdd (&j.out[waveform_cell (j, t, column, b)], static_cast<unsigned long long> (w));
      });
    }
}

static __global__ void
vectorscope_global_kernel (scope_job j)
{
  for (size_t p = blockIdx.x * static_cast<size_t> (blockDim.x) + threadIdx.x; p < j.pix.pixels;
       p += gridDim.x * static_cast<size_t> (blockDim.x))
    {
      unsigned int w;
      const unsigned int cell = vectorscope_cell (j.pix, p, &w);
      if (w)
        atomicAdd (&j.out[cell], static_cast<unsigned long long> (w));
    }
}

/* 2, and 3 where scope_fast_kernels.cuh's does not apply.  A block owns a stripe of output
 * columns and a band of rows: its private copy is the stripe's slice (tables x its columns x
 * bins, 32-bit counters). */
static __global__ void
waveform_stripes_kernel (scope_job j, int columns_per_block)
{
  extern __shared__ unsigned int slice[];
  const int c0 = blockIdx.x * columns_per_block;
  const int c1 = min (c0 + columns_per_block, j.columns), local_columns = c1 - c0;
  const int x0 = j.first_x[c0], span = j.first_x[c1] - x0;
  const int cells = j.tables * local_columns * j.bins;
  for (int i = threadIdx.x; i < cells; i += blockDim.x)
    slice[i] = 0;
  __syncthreads ();
  const unsigned int rows = static_cast<unsigned int> (j.pix.pixels / j.width);
  const unsigned int r0 = rows * blockIdx.y / gridDim.y, r1 = rows * (blockIdx.y + 1) / gridDim.y;
  const unsigned int work = (r1 - r0) * static_cast<unsigned int> (span);
  auto spill_of = [&] (unsigned int cell) {
    const int t = cell / (local_columns * j.bins), rest = cell % (local_columns * j.bins);
    return &j.out[waveform_cell (j, t, c0 + rest / j.bins, rest % j.bins)];
  };
  for (unsigned int base = 0; base < work; base += blockDim.x)
    {
      const unsigned int i = base + threadIdx.x;
      const bool live = i < work;
      const unsigned int k = live ? i : 0;
      const int x = x0 + static_cast<int> (k % static_cast<unsigned int> (span));
      const size_t p
          = static_cast<size_t> (r0 + k / static_cast<unsigned int> (span)) * j.width + x;
      const int column = j.column_of_x[x] - c0;
      if (!live)
        continue;
      visit_pixel (j.pix, p, [&] (int c, unsigned int b, unsigned int w) {
        const int t = j.table_of_channel[c];
        if (t < 0 || !w)
          return;
        const unsigned int cell
            = static_cast<unsigned int> ((t * local_columns + column) * j.bins) + b;
        if (add32 (slice, cell, w))
          atomicAdd (spill_of (cell), 1ull << 32);
      });
    }
  __syncthreads ();
  for (int i = threadIdx.x; i < cells; i += blockDim.x)
    if (slice[i])
      atomicAdd (spill_of (i), static_cast<unsigned long long> (slice[i]));
}

/* 2, and 3 where scope_fast_kernels.cuh's does not apply.  The whole table, or one slice of Cr
 * rows (blockIdx.y), in a block's narrow counters: 16-bit (kBits 16, unweighted runs) or 32-bit. */
template <int kBits>
static __global__ void
vectorscope_private_kernel (scope_job j, unsigned int slice_cells)
{
  extern __shared__ unsigned int words[];
  const unsigned int first = blockIdx.y * slice_cells;
  const unsigned int word_count = kBits == 16 ? slice_cells / 2 : slice_cells;
  for (unsigned int i = threadIdx.x; i < word_count; i += blockDim.x)
    words[i] = 0;
  __syncthreads ();
  auto add = [&] (unsigned int local, unsigned int n) {
    if (kBits == 16)
      add16 (words, local, n, &j.out[first + (local & ~1u)], &j.out[first + (local | 1u)]);
    else if (add32 (words, local, n))
      atomicAdd (&j.out[first + local], 1ull << 32);
  };
  const size_t step = gridDim.x * static_cast<size_t> (blockDim.x);
  for (size_t base = blockIdx.x * static_cast<size_t> (blockDim.x); base < j.pix.pixels;
       base += step)
    {
      const size_t p = base + threadIdx.x;
      const bool live = p < j.pix.pixels;
      unsigned int w = 0;
      const unsigned int local = (live ? vectorscope_cell (j.pix, p, &w) : 0u) - first;
      if (live && w && local < slice_cells)
        add (local, w);
    }
  __syncthreads ();
  for (unsigned int i = threadIdx.x; i < slice_cells; i += blockDim.x)
    {
      const unsigned int n = counter_at<kBits> (words, i);
      if (n)
        atomicAdd (&j.out[first + i], static_cast<unsigned long long> (n));
    }
}

/* Adds a strip's 64-bit table into 64-bit totals and clears it. */
static __global__ void
fold64_kernel (unsigned long long *strip, unsigned long long *totals, size_t count)
{
  for (size_t i = blockIdx.x * static_cast<size_t> (blockDim.x) + threadIdx.x; i < count;
       i += gridDim.x * static_cast<size_t> (blockDim.x))
    {
      totals[i] += strip[i];
      strip[i] = 0;
    }
}

} // namespace gh

#endif /* GPUHIST_SCOPE_KERNELS_CUH */
