/* gpu-histogram: FASTEST for the scopes of unweighted 8-bit runs whose rows are a multiple of
 * four pixels wide (cuda_scopes.cu picks them; the other runs take scope_kernels.cuh's, and the
 * waveform of RGB and RGBA scope_lane_waveform.cuh's).
 *
 * A thread reads four pixels at once (C 32-bit words, one 16-byte load for RGBA) and adds runs
 * of equal cells among them once, so that flat areas cost a quarter of the atomics.  Counters
 * are 16-bit, two a word (add16 of scope_kernels.cuh): the waveform's slice of a tile of image
 * columns, or the whole vectorscope, in half the shared memory of 32-bit counters. */
#ifndef GPUHIST_SCOPE_FAST_KERNELS_CUH
#define GPUHIST_SCOPE_FAST_KERNELS_CUH

#include "gimp_bins.cuh"
#include "scope_kernels.cuh"

namespace gh
{

/* Equal neighbours among four cells as runs: run r adds n[r] to at[r]; returns the runs. */
__device__ __forceinline__ int
runs_of (const unsigned int (&cell)[4], unsigned int (&at)[4], unsigned int (&n)[4])
{
  int runs = 0;
#pragma unroll
  for (int k = 0; k < 4; k++)
    if (k > 0 && cell[k] == cell[k - 1])
      n[runs - 1]++;
    else
      {
        at[runs] = cell[k];
        n[runs] = 1;
        runs++;
      }
  return runs;
}

/* Adds n into 16-bit counter `cell` of a packed table and returns the word's old value: the adds
 * of a group are issued together and their wraps settled after (settle16), so that no add waits
 * for the one before it. */
__device__ __forceinline__ unsigned int
issue16 (unsigned int *words, unsigned int cell, unsigned int n)
{
  return atomicAdd (&words[cell >> 1], n << ((cell & 1u) * 16u));
}

/* What an add that found `old` moves into the strip table when it wrapped (spill (cell,
 * amount)), as add16 of scope_kernels.cuh. */
template <typename SPILL>
__device__ __forceinline__ void
settle16 (unsigned int *words, unsigned int cell, unsigned int n, unsigned int old, SPILL spill)
{
  const unsigned int shift = (cell & 1u) * 16u, delta = n << shift;
  if (old + delta < old)
    spill (cell | 1u, 65536ull);
  if (shift == 0 && (old & 0xFFFFu) + n > 0xFFFFu)
    {
      const unsigned int before = atomicSub (&words[cell >> 1], 0x10000u);
      spill (cell, 65536ull);
      if (before < 0x10000u)
        spill (cell | 1u, 0ull - 65536ull);
    }
}

/* Four pixels of C 8-bit samples, as C words. */
template <int C>
__device__ __forceinline__ void
load_four (const uint8_t *samples, size_t first_pixel, unsigned int (&w)[C])
{
  const unsigned int *p = reinterpret_cast<const unsigned int *> (samples + first_pixel * C);
  if (C == 4)
    {
      const uint4 q = __ldcs (reinterpret_cast<const uint4 *> (p));
      w[0] = q.x, w[1 % C] = q.y, w[2 % C] = q.z, w[3 % C] = q.w;
    }
  else
    for (int i = 0; i < C; i++)
      w[i] = __ldcs (p + i);
}

template <int C>
__device__ __forceinline__ unsigned int
sample_of (const unsigned int (&w)[C], int k, int c)
{
  const int byte = k * C + c;
  return (w[byte >> 2] >> ((byte & 3) * 8)) & 0xFFu;
}

/* GIMP's 8-bit luminance bin under the run's rule: for GIMP 2.10's, gimp_bins.cuh's estimate
 * with GIMP's arithmetic near an edge; GIMP 3.0's in its own arithmetic. */
__device__ __forceinline__ unsigned int
luminance_u8 (unsigned int r, unsigned int g, unsigned int b, gh_luminance rule)
{
  if (rule != GH_LUMINANCE_GIMP2)
    return static_cast<unsigned int> (gh_luminance_bin_u8 (r, g, b, rule));
  const unsigned int x = r * kLumR + g * kLumG + b * kLumB + kLumHalf;
  if (x & kLumNearEdge)
    return x >> 16;
  return static_cast<unsigned int> (gh_luminance_bin_u8 (r, g, b, rule));
}

/* Output channel c's bin of pixel k: a sample, value (C) or luminance (C + 1). */
template <int C>
__device__ __forceinline__ unsigned int
bin_of (const unsigned int (&w)[C], int k, int c, gh_luminance rule)
{
  if (c < C)
    return sample_of<C> (w, k, c);
  const unsigned int r = sample_of<C> (w, k, 0), g = sample_of<C> (w, k, 1),
                     b = sample_of<C> (w, k, 2);
  return c == C ? max (r, max (g, b)) : luminance_u8 (r, g, b, rule);
}

/* The waveform: a block owns a tile of image columns (tile_width pixels, a multiple of 4) and a
 * band of rows; its copy is the slice of the output columns the tile reaches (slice_columns at
 * most).  Threads: x over the tile in fours, y over rows.  The bands are short enough that no
 * counter can pass 65535 (a band's rows times the most image columns of one output column), so
 * the adds need no answer and never wait. */
template <int C>
static __global__ void
waveform_tiles_kernel (scope_job j, int tile_width, int slice_columns)
{
  extern __shared__ unsigned int words[];
  const int x0 = blockIdx.x * tile_width, x1 = min (x0 + tile_width, j.width);
  const int c0 = j.column_of_x[x0];
  const unsigned int cells = static_cast<unsigned int> (j.tables * slice_columns * 256);
  const int thread = threadIdx.y * blockDim.x + threadIdx.x, threads = blockDim.x * blockDim.y;
  for (unsigned int i = thread; i < cells / 2; i += threads)
    words[i] = 0;
  __syncthreads ();
  auto spill = [&] (unsigned int cell, unsigned long long amount) {
    const unsigned int t = cell / (slice_columns * 256), rest = cell % (slice_columns * 256);
    atomicAdd (&j.out[waveform_cell (j, t, c0 + rest / 256, rest % 256)], amount);
  };
  const unsigned int rows = static_cast<unsigned int> (j.pix.pixels / j.width);
  const unsigned int r0 = rows * blockIdx.y / gridDim.y, r1 = rows * (blockIdx.y + 1) / gridDim.y;
  for (unsigned int row = r0 + threadIdx.y; row < r1; row += blockDim.y)
    for (int x = x0 + 4 * threadIdx.x; x < x1; x += 4 * blockDim.x)
      {
        unsigned int w[C];
        load_four<C> (j.pix.samples, static_cast<size_t> (row) * j.width + x, w);
        const int4 columns = *reinterpret_cast<const int4 *> (j.column_of_x + x);
        const int local[4] = { columns.x - c0, columns.y - c0, columns.z - c0, columns.w - c0 };
#pragma unroll
        for (int c = 0; c < C + 2; c++)
          {
            const int t = j.table_of_channel[c];
            if (t < 0 || (C < 3 && c >= C))
              continue;
            unsigned int cell[4];
#pragma unroll
            for (int k = 0; k < 4; k++)
              cell[k] = static_cast<unsigned int> ((t * slice_columns + local[k]) * 256)
                        + bin_of<C> (w, k, c, j.pix.luminance);
            unsigned int at[4], n[4];
            const int runs = runs_of (cell, at, n);
#pragma unroll
            for (int r = 0; r < 4; r++)
              if (r < runs)
                atomicAdd (&words[at[r] >> 1], n[r] << ((at[r] & 1u) * 16u));
          }
      }
  __syncthreads ();
  for (unsigned int i = thread; i < cells; i += threads)
    {
      const unsigned int n = counter_at<16> (words, i);
      if (n)
        spill (i, n);
    }
}

/* The vectorscope: the whole table a block in 16-bit counters (kVectorscopeWords words), its
 * pixels four at a time, the next two fours of a thread loading while two are counted.  At the
 * end a block whose table holds few nonzero words adds them into the strip table; a denser one
 * (noise: nearly every cell) writes its table to its own partial table instead, and
 * vectorscope_fold_partials_kernel adds the dense blocks' tables up once, a cell a thread, so
 * that the strip table gets one add a cell rather than one a block. */
constexpr unsigned int kVectorscopeWords = GH_VECTORSCOPE_SIZE * GH_VECTORSCOPE_SIZE / 2;
constexpr unsigned int kVectorscopeSparseWords = 2048;
constexpr int kVectorscopeGroups = 2;

/* Where runs of equal cells start among four, and each start's length (no array indexed at run
 * time, so that all of it stays in registers). */
__device__ __forceinline__ void
run_starts (const unsigned int (&cell)[4], bool (&starts)[4], unsigned int (&n)[4])
{
  const bool e1 = cell[1] == cell[0], e2 = cell[2] == cell[1], e3 = cell[3] == cell[2];
  starts[0] = true;
  starts[1] = !e1;
  starts[2] = !e2;
  starts[3] = !e3;
  n[3] = 1;
  n[2] = 1 + e3;
  n[1] = 1 + e2 + (e2 && e3);
  n[0] = 1 + e1 + (e1 && e2) + (e1 && e2 && e3);
}

/* c + a's two signed 16-bit halves times w's bytes 0 and 1 (HI: 2 and 3), the bytes unsigned:
 * PTX's mixed-sign dp2a, which the intrinsics (both operands signed or both unsigned) lack. */
template <bool HI>
__device__ __forceinline__ int
dot_halves_bytes (unsigned int a, unsigned int w, int c)
{
  int d;
  if (HI)
    asm("dp2a.hi.s32.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(w), "r"(c));
  else
    asm("dp2a.lo.s32.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(w), "r"(c));
  return d;
}

__host__ __device__ constexpr unsigned int
halves (int lo, int hi)
{
  return static_cast<unsigned int> (static_cast<uint16_t> (lo))
         | static_cast<unsigned int> (static_cast<uint16_t> (hi)) << 16;
}

/* The two chroma sums of gh_vectorscope_cell of the pixel word w (R, G, B in bytes 0-2; byte 3
 * is ignored) in four dot products.  The weight 32768 does not fit a signed half, so its level
 * enters as 255 - level (a byte of ~w) with the weight -32768, and Cr's G likewise with +29763
 * so that R and G share one product; the constants take back 255 times each.  The sums are the
 * formula's exactly; below 2^24 after min (), byte 2 of each is its level, and one byte permute
 * forms the cell. */
__device__ __forceinline__ void
chroma_sums_of_word (unsigned int w, unsigned int *cb, unsigned int *cr)
{
  const unsigned int inverse = ~w;
  const int b = dot_halves_bytes<false> (
      halves (GH_CB_R, GH_CB_G), w,
      dot_halves_bytes<true> (halves (-GH_CB_B, 0), inverse, GH_CHROMA_OFFSET + GH_CB_B * 255));
  const int r = dot_halves_bytes<false> (
      halves (-GH_CR_R, -GH_CR_G), inverse,
      dot_halves_bytes<true> (halves (GH_CR_B, 0), w,
                              GH_CHROMA_OFFSET + (GH_CR_R + GH_CR_G) * 255));
  *cb = min (static_cast<unsigned int> (b), 0xFFFFFFu);
  *cr = min (static_cast<unsigned int> (r), 0xFFFFFFu);
}

__device__ __forceinline__ unsigned int
vectorscope_cell_of_word (unsigned int w)
{
  unsigned int cb, cr;
  chroma_sums_of_word (w, &cb, &cr);
  return __byte_perm (cb, cr, 0x7362u);
}

/* Pixel k's word of four pixels of C 8-bit samples (C >= 3). */
template <int C>
__device__ __forceinline__ unsigned int
rgb_word_of (const unsigned int (&w)[C], int k)
{
  if constexpr (C == 4)
    return w[k];
  else
    {
      const int i = k * C, o = i % 4, n = i / 4;
      return __byte_perm (w[n], w[(n + 1) % C], o | (o + 1) << 4 | (o + 2) << 8);
    }
}

/* Counts G fours of pixels: every add is issued before any answer is looked at, and settle16
 * runs only for an add whose counter passed 65535 (a single test on the common path). */
template <int C, int G>
__device__ __forceinline__ void
count_vectorscope_fours (unsigned int *words, unsigned long long *out,
                         const unsigned int (&w)[G][C])
{
  auto spill
      = [&] (unsigned int cell, unsigned long long amount) { atomicAdd (&out[cell], amount); };
  unsigned int cell[G][4], n[G][4], old[G][4];
  bool starts[G][4];
#pragma unroll
  for (int i = 0; i < G; i++)
    {
#pragma unroll
      for (int k = 0; k < 4; k++)
        cell[i][k] = vectorscope_cell_of_word (rgb_word_of<C> (w[i], k));
      run_starts (cell[i], starts[i], n[i]);
#pragma unroll
      for (int k = 0; k < 4; k++)
        if (starts[i][k])
          old[i][k] = issue16 (words, cell[i][k], n[i][k]);
    }
#pragma unroll
  for (int i = 0; i < G; i++)
#pragma unroll
    for (int k = 0; k < 4; k++)
      if (starts[i][k] && ((old[i][k] >> ((cell[i][k] & 1u) * 16u)) & 0xFFFFu) + n[i][k] > 0xFFFFu)
        settle16 (words, cell[i][k], n[i][k], old[i][k], spill);
}

/* Whether the block's table is sparse (at most `sparse` nonzero counters, `mine` of them this
 * thread's; *nonzero starts at 0), with its partial table marked used when it is not. */
__device__ __forceinline__ bool
block_is_sparse (const scope_job &j, unsigned int mine, unsigned int *nonzero, unsigned int sparse)
{
#pragma unroll
  for (int d = 16; d > 0; d /= 2)
    mine += __shfl_xor_sync (~0u, mine, d);
  if ((threadIdx.x & 31u) == 0)
    atomicAdd (nonzero, mine);
  __syncthreads ();
  const bool is_sparse = *nonzero <= sparse;
  if (threadIdx.x == 0)
    j.partial_used[blockIdx.x] = !is_sparse;
  return is_sparse;
}

/* The start of a vectorscope block's end: each of the block's THREADS threads loads its N
 * 16-byte pieces of the table (piece threadIdx.x + k * THREADS), and the block counts its nonzero
 * counters into *nonzero (zero before).  A table with at most `sparse` of them is added into the
 * strip table, a denser one goes to the block's partial table (j.partial_used says which);
 * returns whether it is sparse. */
template <unsigned int N, unsigned int THREADS>
__device__ __forceinline__ bool
load_table_pieces (const scope_job &j, const uint4 *table, uint4 (&q)[N], unsigned int *nonzero,
                   unsigned int sparse)
{
  unsigned int mine = 0;
#pragma unroll
  for (unsigned int k = 0; k < N; k++)
    {
      q[k] = table[threadIdx.x + k * THREADS];
      mine += (q[k].x != 0) + (q[k].y != 0) + (q[k].z != 0) + (q[k].w != 0);
    }
  return block_is_sparse (j, mine, nonzero, sparse);
}

/* The end of a block: its table into the strip table (few nonzero words) or into its partial
 * table, marked used.  Each thread holds eight 16-byte pieces of the table. */
__device__ __forceinline__ void
flush_vectorscope (const scope_job &j, const uint4 *table, unsigned int *nonzero)
{
  constexpr unsigned int kPieces = kVectorscopeWords / 4;
  uint4 q[kPieces / 1024];
  const bool sparse
      = load_table_pieces<kPieces / 1024, 1024> (j, table, q, nonzero, kVectorscopeSparseWords);
  uint4 *partial
      = reinterpret_cast<uint4 *> (j.partials) + blockIdx.x * static_cast<size_t> (kPieces);
#pragma unroll
  for (unsigned int k = 0; k < kPieces / 1024; k++)
    {
      const unsigned int piece = threadIdx.x + k * 1024;
      if (!sparse)
        {
          partial[piece] = q[k];
          continue;
        }
      const unsigned int v[4] = { q[k].x, q[k].y, q[k].z, q[k].w };
#pragma unroll
      for (int m = 0; m < 4; m++)
        {
          const unsigned int cell = (piece * 4 + m) * 2;
          if (v[m] & 0xFFFFu)
            atomicAdd (&j.out[cell], static_cast<unsigned long long> (v[m] & 0xFFFFu));
          if (v[m] >> 16)
            atomicAdd (&j.out[cell + 1], static_cast<unsigned long long> (v[m] >> 16));
        }
    }
}

/* Odd lanes count their G fours in the reverse order: one add of a warp then reaches G places
 * of the image a grid's width apart instead of one, so that the lanes of a smooth area meet less
 * often on one word (docs/BENCHMARKS.md, "The vectorscope's lanes in two places"). */
template <int C, int G>
__device__ __forceinline__ void
alternate_lanes (unsigned int (&w)[G][C])
{
  if (threadIdx.x & 1u)
#pragma unroll
    for (int i = 0; i < G / 2; i++)
#pragma unroll
      for (int c = 0; c < C; c++)
        {
          const unsigned int t = w[i][c];
          w[i][c] = w[G - 1 - i][c];
          w[G - 1 - i][c] = t;
        }
}

/* 1024 threads, one block an SM: the 128 KiB table leaves room for no second block. */
template <int C>
static __global__ void __launch_bounds__ (1024) vectorscope_fast_kernel (scope_job j)
{
  constexpr int G = kVectorscopeGroups;
  extern __shared__ uint4 vectorscope_table[];
  __shared__ unsigned int nonzero;
  unsigned int *words = reinterpret_cast<unsigned int *> (vectorscope_table);
  for (unsigned int i = threadIdx.x; i < kVectorscopeWords / 4; i += blockDim.x)
    vectorscope_table[i] = make_uint4 (0, 0, 0, 0);
  if (threadIdx.x == 0)
    nonzero = 0;
  __syncthreads ();
  const size_t groups = j.pix.pixels / 4, step = gridDim.x * static_cast<size_t> (blockDim.x);
  size_t g = blockIdx.x * static_cast<size_t> (blockDim.x) + threadIdx.x;
  if (g + (G - 1) * step < groups)
    {
      unsigned int now[G][C];
#pragma unroll
      for (int i = 0; i < G; i++)
        load_four<C> (j.pix.samples, 4 * (g + i * step), now[i]);
      for (;;)
        {
          /* The next fours (these again after the last) load while these are counted. */
          const bool more = g + (2 * G - 1) * step < groups;
          const size_t after = more ? g + G * step : g;
          unsigned int next[G][C];
#pragma unroll
          for (int i = 0; i < G; i++)
            load_four<C> (j.pix.samples, 4 * (after + i * step), next[i]);
          alternate_lanes<C, G> (now);
          count_vectorscope_fours<C, G> (words, j.out, now);
          g += G * step;
          if (!more)
            break;
#pragma unroll
          for (int i = 0; i < G; i++)
#pragma unroll
            for (int c = 0; c < C; c++)
              now[i][c] = next[i][c];
        }
    }
  for (; g < groups; g += step)
    {
      unsigned int one[1][C];
      load_four<C> (j.pix.samples, 4 * g, one[0]);
      count_vectorscope_fours<C, 1> (words, j.out, one);
    }
  __syncthreads ();
  flush_vectorscope (j, vectorscope_table, &nonzero);
}

/* The dense blocks' partial tables added into the strip table: a block of 32 x 8 threads owns
 * 128 words (256 cells), each thread four words of every eighth partial table; the eight sums
 * of a cell meet in shared memory and one thread adds them into the strip table (no other
 * thread adds to that cell during this kernel). */
constexpr int kFoldWidth = 32, kFoldSlices = 8;

static __global__ void
vectorscope_fold_partials_kernel (const unsigned int *partials, const int *used, int blocks,
                                  unsigned long long *out)
{
  __shared__ unsigned int sums[kFoldSlices][kFoldWidth * 8];
  const unsigned int piece = blockIdx.x * kFoldWidth + threadIdx.x;
  unsigned int low[4] = {}, high[4] = {};
  for (int b = threadIdx.y; b < blocks; b += kFoldSlices)
    if (used[b])
      {
        const uint4 q = reinterpret_cast<const uint4 *> (
            partials)[static_cast<size_t> (b) * (kVectorscopeWords / 4) + piece];
        const unsigned int v[4] = { q.x, q.y, q.z, q.w };
#pragma unroll
        for (int m = 0; m < 4; m++)
          {
            low[m] += v[m] & 0xFFFFu;
            high[m] += v[m] >> 16;
          }
      }
#pragma unroll
  for (int m = 0; m < 4; m++)
    {
      sums[threadIdx.y][threadIdx.x * 8 + 2 * m] = low[m];
      sums[threadIdx.y][threadIdx.x * 8 + 2 * m + 1] = high[m];
    }
  __syncthreads ();
  const unsigned int v = threadIdx.y * kFoldWidth + threadIdx.x;
  unsigned long long total = 0;
#pragma unroll
  for (int s = 0; s < kFoldSlices; s++)
    total += sums[s][v];
  if (total)
    out[blockIdx.x * (kFoldWidth * 8) + v] += total;
}

} // namespace gh

#endif /* GPUHIST_SCOPE_FAST_KERNELS_CUH */
