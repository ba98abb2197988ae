/* gpu-histogram: FASTEST for the weighted vectorscope of 8-bit RGB and RGBA (coverage, alpha or
 * both), on GPUs whose block can hold 220 KiB of shared memory (sm_90: cuda_scopes.cu picks it).
 * Device code only.
 *
 * A colour reaches 48179 of the 65536 cells, one run of Cb in each row of Cr
 * (vectorscope_rows.h).  So one 1024-thread block an SM holds a 32-bit counter for each of those
 * cells, row after row (188 KiB): the counter of cell (cr, cb) is at row_base[cr] + cb.  Every
 * pixel is read and placed once, and no counter is narrower than a weight.  The row bases are
 * looked up once a pixel, in a copy a lane (32 copies of 256 words), so that the lanes of a warp
 * never meet in a bank there.  A thread reads four pixels at once (and their four coverage
 * bytes), the next two fours loading while two are counted; equal neighbours add their summed
 * weight once, so a flat area costs a quarter of the adds.
 *
 * Each add returns the old value: an add that wraps its 32-bit counter is seen by its thread,
 * which moves 2^32 into the strip table.  At the end a block whose table holds few nonzero
 * counters adds them into the strip table; a denser one writes its table to a partial table of
 * its own, in the same order, and compact_vectorscope_fold_kernel adds the dense blocks' tables
 * up, one add a cell. */
#ifndef GPUHIST_SCOPE_COMPACT_VECTORSCOPE_CUH
#define GPUHIST_SCOPE_COMPACT_VECTORSCOPE_CUH

#include "scope_fast_kernels.cuh"
#include "vectorscope_rows.h"

namespace gh
{

constexpr unsigned int kCompactCells = GH_VECTORSCOPE_REACHABLE;
/* The table in 16-byte pieces. */
constexpr unsigned int kCompactWords = (kCompactCells + 3) / 4 * 4;
constexpr unsigned int kRowCopies = 32;
constexpr int kCompactThreads = 1024;
constexpr unsigned int kCompactSparseCells = 2048;
constexpr size_t kCompactSharedBytes
    = (kCompactWords + GH_VECTORSCOPE_SIZE * kRowCopies) * sizeof (unsigned int);

/* Where each row's run starts in the compact table, less its first Cb, and the run's bounds. */
struct compact_rows
{
  int base[GH_VECTORSCOPE_SIZE];
  unsigned char first[GH_VECTORSCOPE_SIZE];
  unsigned char last[GH_VECTORSCOPE_SIZE];
};

constexpr compact_rows
make_compact_rows ()
{
  constexpr unsigned char first[GH_VECTORSCOPE_SIZE] = GH_VECTORSCOPE_ROW_FIRST;
  constexpr unsigned char last[GH_VECTORSCOPE_SIZE] = GH_VECTORSCOPE_ROW_LAST;
  compact_rows rows = {};
  int start = 0;
  for (int cr = 0; cr < GH_VECTORSCOPE_SIZE; cr++)
    {
      rows.base[cr] = start - first[cr];
      rows.first[cr] = first[cr];
      rows.last[cr] = last[cr];
      start += last[cr] >= first[cr] ? last[cr] - first[cr] + 1 : 0;
    }
  return rows;
}

static_assert (make_compact_rows ().base[GH_VECTORSCOPE_SIZE - 1]
                       + make_compact_rows ().last[GH_VECTORSCOPE_SIZE - 1] + 1
                   == static_cast<int> (kCompactCells),
               "the rows' runs fill the compact table");

__constant__ compact_rows compact_vectorscope_rows = make_compact_rows ();

/* The compact table's index of a pixel word's cell; row_base holds lane `lane`'s copy at
 * row_base[cr * kRowCopies + lane]. */
__device__ __forceinline__ unsigned int
compact_index_of_word (const int *row_base, unsigned int w, unsigned int lane)
{
  unsigned int cb, cr;
  chroma_sums_of_word (w, &cb, &cr);
  return static_cast<unsigned int> (row_base[(cr >> 16) * kRowCopies + lane]) + (cb >> 16);
}

/* Pixel k's weight of four: its coverage byte, its alpha, or their product. */
template <int C, bool ALPHA, bool COVERAGE>
__device__ __forceinline__ unsigned int
weight_of (const unsigned int (&w)[C], unsigned int coverage, int k)
{
  const unsigned int m = COVERAGE ? (coverage >> (8 * k)) & 0xFFu : 1u;
  if constexpr (ALPHA)
    return m * (w[C == 4 ? k : 0] >> 24);
  else
    return m;
}

/* Counts G fours of pixels: runs of equal cells add their summed weight once, every add issued
 * before any answer is looked at. */
template <int C, bool ALPHA, bool COVERAGE, int G>
__device__ __forceinline__ void
count_compact_fours (unsigned int *table, const int *row_base, unsigned int lane,
                     unsigned long long *out, const unsigned int (&w)[G][C],
                     const unsigned int (&coverage)[G])
{
  static_assert (ALPHA || COVERAGE, "the unweighted vectorscope has its own kernel");
  unsigned int at[G][4], sum[G][4], old[G][4];
  bool starts[G][4];
#pragma unroll
  for (int i = 0; i < G; i++)
    {
      unsigned int weight[4];
#pragma unroll
      for (int k = 0; k < 4; k++)
        {
          at[i][k] = compact_index_of_word (row_base, rgb_word_of<C> (w[i], k), lane);
          weight[k] = weight_of<C, ALPHA, COVERAGE> (w[i], coverage[i], k);
        }
      const bool e1 = at[i][1] == at[i][0], e2 = at[i][2] == at[i][1], e3 = at[i][3] == at[i][2];
      sum[i][3] = weight[3];
      sum[i][2] = weight[2] + (e3 ? sum[i][3] : 0u);
      sum[i][1] = weight[1] + (e2 ? sum[i][2] : 0u);
      sum[i][0] = weight[0] + (e1 ? sum[i][1] : 0u);
      starts[i][0] = sum[i][0] != 0;
      starts[i][1] = !e1 && sum[i][1] != 0;
      starts[i][2] = !e2 && sum[i][2] != 0;
      starts[i][3] = !e3 && sum[i][3] != 0;
#pragma unroll
      for (int k = 0; k < 4; k++)
        if (starts[i][k])
          old[i][k] = atomicAdd (&table[at[i][k]], sum[i][k]);
    }
#pragma unroll
  for (int i = 0; i < G; i++)
#pragma unroll
    for (int k = 0; k < 4; k++)
      if (starts[i][k] && old[i][k] + sum[i][k] < old[i][k])
        atomicAdd (&out[vectorscope_cell_of_word (rgb_word_of<C> (w[i], k))], 1ull << 32);
}

/* The pixels after the strip's last whole four (fewer than four), one thread of the grid. */
__device__ __forceinline__ void
count_compact_tail (const scope_job &j, unsigned int *table, const int *row_base, unsigned int lane)
{
  for (size_t p = j.pix.pixels / 4 * 4; p < j.pix.pixels; p++)
    {
      unsigned int weight;
      const unsigned int cell = vectorscope_cell (j.pix, p, &weight);
      const unsigned int at
          = static_cast<unsigned int> (row_base[(cell >> 8) * kRowCopies + lane]) + (cell & 255u);
      const unsigned int old = weight ? atomicAdd (&table[at], weight) : 0u;
      if (old + weight < old)
        atomicAdd (&j.out[cell], 1ull << 32);
    }
}

/* The block's table zeroed, and the row bases copied a lane each from constant memory. */
__device__ __forceinline__ void
start_compact_table (uint4 *table, int *row_base)
{
  for (unsigned int i = threadIdx.x; i < kCompactWords / 4; i += blockDim.x)
    table[i] = make_uint4 (0, 0, 0, 0);
  for (unsigned int i = threadIdx.x; i < GH_VECTORSCOPE_SIZE * kRowCopies; i += blockDim.x)
    row_base[i] = compact_vectorscope_rows.base[i / kRowCopies];
}

/* The end of a block: its nonzero counters into the strip table (few of them) or its table
 * into its partial table, marked used. */
__device__ __forceinline__ void
flush_compact_table (const scope_job &j, const uint4 *table, unsigned int *nonzero)
{
  constexpr unsigned int kPieces = kCompactWords / 4;
  unsigned int mine = 0;
  for (unsigned int i = threadIdx.x; i < kPieces; i += blockDim.x)
    {
      const uint4 q = table[i];
      mine += (q.x != 0) + (q.y != 0) + (q.z != 0) + (q.w != 0);
    }
  if (!block_is_sparse (j, mine, nonzero, kCompactSparseCells))
    {
      uint4 *partial = reinterpret_cast<uint4 *> (j.partials) + blockIdx.x * size_t{ kPieces };
      for (unsigned int i = threadIdx.x; i < kPieces; i += blockDim.x)
        partial[i] = table[i];
      return;
    }
  const unsigned int *counters = reinterpret_cast<const unsigned int *> (table);
  for (unsigned int cell = threadIdx.x; cell < GH_VECTORSCOPE_SIZE * GH_VECTORSCOPE_SIZE;
       cell += blockDim.x)
    {
      const unsigned int cr = cell >> 8, cb = cell & 255u;
      if (cb < compact_vectorscope_rows.first[cr] || cb > compact_vectorscope_rows.last[cr])
        continue;
      const unsigned int n = counters[compact_vectorscope_rows.base[cr] + cb];
      if (n)
        atomicAdd (&j.out[cell], static_cast<unsigned long long> (n));
    }
}

/* One 1024-thread block an SM; a thread reads the fours of pixels g = block * 1024 + thread,
 * g += grid * 1024. */
template <int C, bool ALPHA, bool COVERAGE, int G = 2>
static __global__ void
__launch_bounds__ (kCompactThreads) compact_vectorscope_kernel (scope_job j)
{
  extern __shared__ uint4 compact_table[];
  __shared__ unsigned int nonzero;
  unsigned int *table = reinterpret_cast<unsigned int *> (compact_table);
  int *row_base = reinterpret_cast<int *> (compact_table + kCompactWords / 4);
  const unsigned int lane = threadIdx.x & 31u;
  start_compact_table (compact_table, row_base);
  if (threadIdx.x == 0)
    nonzero = 0;
  __syncthreads ();
  const unsigned int *coverage = reinterpret_cast<const unsigned int *> (j.pix.coverage);
  const size_t groups = j.pix.pixels / 4, step = gridDim.x * static_cast<size_t> (blockDim.x);
  size_t g = blockIdx.x * static_cast<size_t> (blockDim.x) + threadIdx.x;
  if (g == 0)
    count_compact_tail (j, table, row_base, lane);
  if (g + (G - 1) * step < groups)
    {
      unsigned int now[G][C], now_coverage[G];
#pragma unroll
      for (int i = 0; i < G; i++)
        {
          load_four<C> (j.pix.samples, 4 * (g + i * step), now[i]);
          now_coverage[i] = COVERAGE ? __ldcs (coverage + g + i * step) : 0u;
        }
      for (;;)
        {
          /* The next fours (these again after the last) load while these are counted. */
          const bool more = g + (2 * G - 1) * step < groups;
          const size_t after = more ? g + G * step : g;
          unsigned int next[G][C], next_coverage[G];
#pragma unroll
          for (int i = 0; i < G; i++)
            {
              load_four<C> (j.pix.samples, 4 * (after + i * step), next[i]);
              next_coverage[i] = COVERAGE ? __ldcs (coverage + after + i * step) : 0u;
            }
          count_compact_fours<C, ALPHA, COVERAGE, G> (table, row_base, lane, j.out, now,
                                                      now_coverage);
          g += G * step;
          if (!more)
            break;
#pragma unroll
          for (int i = 0; i < G; i++)
            {
              now_coverage[i] = next_coverage[i];
#pragma unroll
              for (int c = 0; c < C; c++)
                now[i][c] = next[i][c];
            }
        }
    }
  for (; g < groups; g += step)
    {
      unsigned int one[1][C], one_coverage[1];
      load_four<C> (j.pix.samples, 4 * g, one[0]);
      one_coverage[0] = COVERAGE ? __ldcs (coverage + g) : 0u;
      count_compact_fours<C, ALPHA, COVERAGE, 1> (table, row_base, lane, j.out, one, one_coverage);
    }
  __syncthreads ();
  flush_compact_table (j, compact_table, &nonzero);
}

/* The dense blocks' tables added into the strip table, a cell a thread (a row of Cr a block of
 * 256 threads). */
static __global__ void
compact_vectorscope_fold_kernel (const unsigned int *partials, const int *used, int blocks,
                                 unsigned long long *out)
{
  const unsigned int cr = blockIdx.x, cb = threadIdx.x;
  if (cb < compact_vectorscope_rows.first[cr] || cb > compact_vectorscope_rows.last[cr])
    return;
  const size_t at = static_cast<size_t> (compact_vectorscope_rows.base[cr] + static_cast<int> (cb));
  unsigned long long total = 0;
  for (int b = 0; b < blocks; b++)
    if (used[b])
      total += partials[static_cast<size_t> (b) * kCompactWords + at];
  if (total)
    out[cr * GH_VECTORSCOPE_SIZE + cb] += total;
}

} // namespace gh

#endif /* GPUHIST_SCOPE_COMPACT_VECTORSCOPE_CUH */
