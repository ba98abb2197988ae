/* gpu-histogram: FASTEST for the weighted vectorscope of 8-bit RGB and RGBA (a coverage plane of
 * 8 bits, alpha, or both: every weight is below 2^16), on GPUs with thread block clusters
 * (sm_90 and later; cuda_scopes.cu picks it).  Device code only.
 *
 * A weight does not fit 16-bit counters, and 32-bit counters for all 65536 cells (256 KiB) pass
 * a block's shared memory.  So a cluster of two blocks holds the table between them: block r of
 * the pair the cells of Cr rows 128 r .. 128 r + 127 (128 KiB).  Both blocks of a pair read the
 * pair's pixels, four at a time with their four coverage bytes, and each adds only the cells of
 * its own half.  The cluster runs both blocks at once on one GPC, so each load is read from
 * memory once and the partner's same load mostly from L2; adding into the partner's half through
 * distributed shared memory instead was slower (docs/BENCHMARKS.md).  Equal neighbours' weights
 * are summed first, so a flat area costs a quarter of the adds.  Atomics return the old value,
 * so an add that wraps a 32-bit counter is seen by its thread, which moves 2^32 into the strip
 * table.  At the end, as in scope_fast_kernels.cuh, a block whose half holds few nonzero
 * counters adds them into the strip table, and a denser one writes its half to a partial table
 * of its own, which weighted_vectorscope_fold_kernel adds up, one add a cell. */
#ifndef GPUHIST_SCOPE_WEIGHTED_VECTORSCOPE_CUH
#define GPUHIST_SCOPE_WEIGHTED_VECTORSCOPE_CUH

#include "scope_compact_vectorscope.cuh"

namespace gh
{

constexpr unsigned int kHalfCells = GH_VECTORSCOPE_SIZE * GH_VECTORSCOPE_SIZE / 2;
constexpr unsigned int kHalfSparseCells = 2048;
constexpr int kClusterBlocks = 2;
constexpr int kWeightedVectorscopeThreads = 1024;

/* The cluster's PTX (sm_90): this block's rank in its pair, and a barrier of both blocks. */
__device__ __forceinline__ unsigned int
cluster_rank ()
{
  unsigned int rank = 0;
#if __CUDA_ARCH__ >= 900
  asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
#endif
  return rank;
}

__device__ __forceinline__ void
cluster_sync ()
{
#if __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.arrive.release.aligned;\n\t"
               "barrier.cluster.wait.acquire.aligned;" ::
                   : "memory");
#endif
}

/* This block's half: it adds the cells of Cr rows 128 rank .. 128 rank + 127 and returns the
 * counter's old value; the partner, reading the same pixels, adds the others (0 returned). */
struct own_half
{
  unsigned int *counters;
  unsigned int rank;

  __device__ __forceinline__ unsigned int
  add (unsigned int cell, unsigned int n) const
  {
    if (cell / kHalfCells == rank)
      return atomicAdd (&counters[cell % kHalfCells], n);
    return 0u;
  }
};

/* Counts G fours of pixels: runs of equal cells add their summed weight once; every add is
 * issued before any answer is looked at, and an add that wrapped its counter moves 2^32 into
 * the strip table. */
template <int C, bool ALPHA, bool COVERAGE, int G>
__device__ __forceinline__ void
count_weighted_fours (const own_half &half, unsigned long long *out, const unsigned int (&w)[G][C],
                      const unsigned int (&coverage)[G])
{
  unsigned int cell[G][4], sum[G][4], old[G][4];
  bool starts[G][4];
#pragma unroll
  for (int i = 0; i < G; i++)
    {
      unsigned int weight[4];
#pragma unroll
      for (int k = 0; k < 4; k++)
        {
          cell[i][k] = vectorscope_cell_of_word (rgb_word_of<C> (w[i], k));
          weight[k] = weight_of<C, ALPHA, COVERAGE> (w[i], coverage[i], k);
        }
      const bool e1 = cell[i][1] == cell[i][0], e2 = cell[i][2] == cell[i][1],
                 e3 = cell[i][3] == cell[i][2];
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
          old[i][k] = half.add (cell[i][k], sum[i][k]);
    }
#pragma unroll
  for (int i = 0; i < G; i++)
#pragma unroll
    for (int k = 0; k < 4; k++)
      if (starts[i][k] && old[i][k] + sum[i][k] < old[i][k])
        atomicAdd (&out[cell[i][k]], 1ull << 32);
}

/* The pixels after the strip's last whole four (fewer than four), one thread of each block of
 * the first pair. */
__device__ __forceinline__ void
count_weighted_tail (const scope_job &j, const own_half &half)
{
  for (size_t p = j.pix.pixels / 4 * 4; p < j.pix.pixels; p++)
    {
      unsigned int weight;
      const unsigned int cell = vectorscope_cell (j.pix, p, &weight);
      const unsigned int old = weight ? half.add (cell, weight) : 0u;
      if (old + weight < old)
        atomicAdd (&j.out[cell], 1ull << 32);
    }
}

/* The end of a block: its half into the strip table (few nonzero counters) or into its partial
 * table, marked used.  Each thread holds eight 16-byte pieces of the half. */
__device__ __forceinline__ void
flush_half (const scope_job &j, const uint4 *half, unsigned int rank, unsigned int *nonzero)
{
  constexpr unsigned int kPieces = kHalfCells / 4, kMine = kPieces / kWeightedVectorscopeThreads;
  uint4 q[kMine];
  const bool sparse = load_table_pieces<kMine, kWeightedVectorscopeThreads> (j, half, q, nonzero,
                                                                             kHalfSparseCells);
  uint4 *partial
      = reinterpret_cast<uint4 *> (j.partials) + blockIdx.x * static_cast<size_t> (kPieces);
  unsigned long long *out = j.out + rank * kHalfCells;
#pragma unroll
  for (unsigned int k = 0; k < kMine; k++)
    {
      const unsigned int piece = threadIdx.x + k * kWeightedVectorscopeThreads;
      if (!sparse)
        {
          partial[piece] = q[k];
          continue;
        }
      const unsigned int v[4] = { q[k].x, q[k].y, q[k].z, q[k].w };
#pragma unroll
      for (int m = 0; m < 4; m++)
        if (v[m])
          atomicAdd (&out[piece * 4 + m], static_cast<unsigned long long> (v[m]));
    }
}

/* Clusters of two 1024-thread blocks, one block an SM (128 KiB of shared memory each); pair p
 * (blocks 2p and 2p + 1) reads the fours of pixels g = p * 1024 + thread, g += pairs * 1024. */
template <int C, bool ALPHA, bool COVERAGE>
static __global__ void
__launch_bounds__ (kWeightedVectorscopeThreads) weighted_vectorscope_kernel (scope_job j)
{
#if __CUDA_ARCH__ >= 900
  constexpr int G = 2;
  extern __shared__ uint4 half_table[];
  __shared__ unsigned int nonzero;
  const unsigned int rank = cluster_rank ();
  const own_half half = { reinterpret_cast<unsigned int *> (half_table), rank };
  for (unsigned int i = threadIdx.x; i < kHalfCells / 4; i += blockDim.x)
    half_table[i] = make_uint4 (0, 0, 0, 0);
  if (threadIdx.x == 0)
    nonzero = 0;
  cluster_sync (); /* the pair starts its reads together */
  const unsigned int *coverage = reinterpret_cast<const unsigned int *> (j.pix.coverage);
  const size_t groups = j.pix.pixels / 4,
               step = gridDim.x / kClusterBlocks * static_cast<size_t> (blockDim.x);
  size_t g = blockIdx.x / kClusterBlocks * static_cast<size_t> (blockDim.x) + threadIdx.x;
  if (g == 0)
    count_weighted_tail (j, half);
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
          count_weighted_fours<C, ALPHA, COVERAGE, G> (half, j.out, now, now_coverage);
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
      count_weighted_fours<C, ALPHA, COVERAGE, 1> (half, j.out, one, one_coverage);
    }
  cluster_sync ();
  flush_half (j, half_table, rank, &nonzero);
#else
  (void) j;
#endif
}

/* The dense blocks' halves added into the strip table, a cell a thread: cell c's half is held
 * by the blocks of rank c / kHalfCells, every second block. */
static __global__ void
weighted_vectorscope_fold_kernel (const unsigned int *partials, const int *used, int blocks,
                                  unsigned long long *out)
{
  const unsigned int cell = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned int rank = cell / kHalfCells, local = cell % kHalfCells;
  unsigned long long total = 0;
  for (int b = static_cast<int> (rank); b < blocks; b += kClusterBlocks)
    if (used[b])
      total += partials[static_cast<size_t> (b) * kHalfCells + local];
  if (total)
    out[cell] += total;
}

} // namespace gh

#endif /* GPUHIST_SCOPE_WEIGHTED_VECTORSCOPE_CUH */
