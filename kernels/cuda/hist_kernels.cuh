/* gpu-histogram: the CUDA kernels.  Device code only; cuda_backend.cu launches them.
 *
 * Every kernel counts one strip of interleaved samples (channel = byte offset % C, the strip
 * starting on a pixel) into a 32-bit table of C * 256 bins in global memory.  The host folds
 * that table into 64-bit totals after each strip, so no bin can overflow whatever the image.
 */
#ifndef GPUHIST_HIST_KERNELS_CUH
#define GPUHIST_HIST_KERNELS_CUH

#include <cstddef>
#include <cstdint>

#include "backend.h"
#include "cuda_launch.h" /* gh::walk */

namespace gh
{

constexpr int kBins = GH_BINS;
constexpr int kWarp = 32;

/* 1. Global atomics: one atomicAdd per sample into the one device-wide table.  The baseline:
 * every sample of a bin queues behind every other thread of the grid that wants that bin. */
template <int C>
__global__ void
global_atomics_kernel (const uint8_t *__restrict__ in, size_t n, unsigned int *bins)
{
  const size_t step = gridDim.x * static_cast<size_t> (blockDim.x);
  for (size_t i = blockIdx.x * static_cast<size_t> (blockDim.x) + threadIdx.x; i < n; i += step)
    atomicAdd (&bins[(i % C) * kBins + in[i]], 1u);
}

/* 2. Privatized, as the seed wrote it: one copy of the tables per block in shared memory, one
 * byte per thread per step.  Both loops over the bins stride by blockDim.x, so they are right at
 * any block size, and the merge adds rather than stores, so it is right with many blocks.  The
 * two barriers order the zeroing before the counting and the counting before the merge. */
template <int C>
__global__ void
privatized_kernel (const uint8_t *__restrict__ in, size_t n, unsigned int *bins)
{
  __shared__ unsigned int privateBins[C * kBins];
  const int binStep = blockDim.x;
  for (int binIdx = threadIdx.x; binIdx < C * kBins; binIdx += binStep)
    privateBins[binIdx] = 0;
  __syncthreads ();

  const size_t step = gridDim.x * static_cast<size_t> (blockDim.x);
  for (size_t i = blockIdx.x * static_cast<size_t> (blockDim.x) + threadIdx.x; i < n; i += step)
    atomicAdd (&privateBins[(i % C) * kBins + in[i]], 1u);
  __syncthreads ();

  for (int binIdx = threadIdx.x; binIdx < C * kBins; binIdx += binStep)
    atomicAdd (&bins[binIdx], privateBins[binIdx]);
}

/* 3. Fastest: privatized, with the bins laid out so that no two lanes of a warp ever touch the
 * same shared-memory bank.  Each bin has one counter per lane (a column of 32), so lane l always
 * lands in bank l: uniform noise and a flat colour cost the same.  Loads are 16 bytes wide.
 *
 * Layouts (enum layout):
 *   kLaneColumns  32-bit counters, a column of 32 a bin: 64 KiB for 1 and 2 channels, 96 KiB
 *                 for 3, 128 KiB for 4 (byte-aligned bins below; 1 channel uses half of its
 *                 64 KiB)
 *   kPacked       two 16-bit counters a word: half that, flushed into registers before a
 *                 counter can reach 2^16; for GPUs with 64 KiB of shared memory a block (the T4)
 *   kSingle       one 32-bit table per block, for GPUs with even less
 */
enum layout
{
  kSingle = 0,
  kPacked = 1,
  kLaneColumns = 2
};

/* With kBytePerm (gh::walk), the lane-column layout for 1, 2 and 4 channels puts a counter at the
 * byte offset (c >> 1) << 16 | b << 8 | s << 7 | lane << 2: the sample b is a whole byte of the
 * address, so one byte permute (PRMT) of the loaded word with the lane's offset builds it, and
 * the channel's high bit is the atomic's constant offset.  s is the channel's low bit (0 for one
 * channel, whose tables then fill every other 128 bytes: zeroing and merging only those keeps
 * its fixed cost at 32 KiB of shared-memory traffic); 3 channels keep the shifted addresses. */
__host__ __device__ constexpr bool
byte_bins (int channels, int layout, int walk)
{
  return layout == kLaneColumns && walk & kBytePerm && channels != 3;
}

/* Bytes of shared memory the block's tables take. */
__host__ __device__ constexpr size_t
table_bytes (int channels, int layout, int walk)
{
  return byte_bins (channels, layout, walk) ? (channels == 4 ? 2 : 1) * static_cast<size_t> (65536)
                                            : static_cast<size_t> (channels) * kBins * 4
                                                  * (layout == kLaneColumns ? kWarp
                                                     : layout == kPacked    ? kWarp / 2
                                                                            : 1);
}

template <int C, int L, int WALK = engine_walk (C)> struct fastest_traits
{
  /* 32-bit words of shared memory the block needs. */
  static constexpr int words = static_cast<int> (table_bytes (C, L, WALK) / 4);
  /* Bytes a thread reads per step: whole 16-byte loads that also hold whole pixels. */
  static constexpr int vectors = C == 3 ? 3 : 4;
  static constexpr int unit = 16 * vectors;
};

template <int C, int L, int WALK>
__device__ __forceinline__ void
count_sample (unsigned int *sh, unsigned int lane, int c, unsigned int b)
{
  if (byte_bins (C, L, WALK))
    atomicAdd (&sh[(c >> 1) << 14 | b << 6 | (c & 1) << 5 | lane], 1u);
  else if (L == kLaneColumns)
    atomicAdd (&sh[((c * kBins + b) << 5) | lane], 1u);
  else if (L == kPacked)
    atomicAdd (&sh[((c * (kBins / 2) + (b >> 1)) << 5) | lane], 1u << ((b & 1u) << 4));
  else
    atomicAdd (&sh[c * kBins + b], 1u);
}

/* ((w >> 8j) & 0xFF) << shift, in two instructions once j and shift are constants. */
__device__ __forceinline__ unsigned int
byte_scaled (unsigned int w, int j, int shift)
{
  const unsigned int moved = 8 * j >= shift ? w >> (8 * j - shift) : w << (shift - 8 * j);
  return moved & (0xFFu << shift);
}

/* Counts the four bytes of word w, whose first byte is at byte offset `first` of the unit.  For
 * the lane-column and single layouts the counter's byte address is built from the sample with one
 * shift and one masked OR (channel and lane are constants here): at 17 bytes a clock an SM, the
 * instructions a sample costs decide whether the kernel keeps up with memory. */
template <int C, int L, int WALK>
__device__ __forceinline__ void
count_word (unsigned int *sh, unsigned int lane, unsigned int w, int first)
{
  char *const base = reinterpret_cast<char *> (sh);
#pragma unroll
  for (int j = 0; j < 4; j++)
    {
      const unsigned int c = static_cast<unsigned int> ((first + j) % C);
      if (byte_bins (C, L, WALK))
        {
          /* Byte 0 of the permute: the lane's offset and s; byte 1: sample j; bytes 2-3: 0. */
          const unsigned int s = c & 1;
          const unsigned int offset = __byte_perm (w, lane << 2 | s << 7, 0x5504 | j << 4);
          atomicAdd (reinterpret_cast<unsigned int *> (base + ((c >> 1) << 16) + offset), 1u);
        }
      else if (L == kLaneColumns) /* ((c * 256 + b) * 32 + lane) * 4 */
        atomicAdd (
            reinterpret_cast<unsigned int *> (base + (byte_scaled (w, j, 7) | c << 15 | lane << 2)),
            1u);
      else if (L == kSingle) /* (c * 256 + b) * 4 */
        atomicAdd (reinterpret_cast<unsigned int *> (base + (byte_scaled (w, j, 2) | c << 10)), 1u);
      else
        count_sample<C, L, WALK> (sh, lane, static_cast<int> (c), (w >> (8 * j)) & 0xFFu);
    }
}

template <int C, int L, int WALK>
__device__ __forceinline__ void
count_vector (unsigned int *sh, unsigned int lane, const uint4 &q, int first)
{
  count_word<C, L, WALK> (sh, lane, q.x, first);
  count_word<C, L, WALK> (sh, lane, q.y, first + 4);
  count_word<C, L, WALK> (sh, lane, q.z, first + 8);
  count_word<C, L, WALK> (sh, lane, q.w, first + 12);
}

/* Empties the packed 16-bit columns into this thread's register totals.  Thread t owns the
 * packed words t, t + THREADS, ...; reading lane (l + w) % 32 keeps a warp on 32 banks. */
template <int C, int THREADS>
__device__ __forceinline__ void
flush_packed (unsigned int *sh, unsigned int (&low)[(C * kBins / 2 + THREADS - 1) / THREADS],
              unsigned int (&high)[(C * kBins / 2 + THREADS - 1) / THREADS])
{
  constexpr int pairs = C * kBins / 2;
#pragma unroll
  for (int k = 0; k < (pairs + THREADS - 1) / THREADS; k++)
    {
      const int w = threadIdx.x + k * THREADS;
      if (w < pairs)
        for (int l = 0; l < kWarp; l++)
          {
            const int index = (w << 5) | ((l + w) & 31);
            const unsigned int x = sh[index];
            sh[index] = 0;
            low[k] += x & 0xFFFFu;
            high[k] += x >> 16;
          }
    }
}

/* The index of this thread's vector k of the step at base (in units). */
template <int C, int THREADS, int V>
__device__ __forceinline__ size_t
step_vector (size_t base, int k)
{
  return C == 3 ? (base + threadIdx.x) * V + k : base + k * THREADS + threadIdx.x;
}

/* Loads one step's vectors for this thread; valid[k] says which exist. */
template <int C, int THREADS, int V>
__device__ __forceinline__ void
load_step (const uint4 *vec, size_t base, size_t units, size_t vectors, uint4 (&q)[V],
           bool (&valid)[V])
{
#pragma unroll
  for (int k = 0; k < V; k++)
    {
      const size_t v = step_vector<C, THREADS, V> (base, k);
      valid[k] = C == 3 ? base + threadIdx.x < units : v < vectors;
      q[k] = valid[k] ? __ldcs (&vec[v]) : make_uint4 (0, 0, 0, 0);
    }
}

/* Loads a step that lies whole inside the strip: no checks. */
template <int C, int THREADS, int V>
__device__ __forceinline__ void
load_full_step (const uint4 *vec, size_t base, uint4 (&q)[V])
{
#pragma unroll
  for (int k = 0; k < V; k++)
    q[k] = __ldcs (&vec[step_vector<C, THREADS, V> (base, k)]);
}

/* Counts one step's loaded vectors. */
template <int C, int L, int WALK, int V>
__device__ __forceinline__ void
count_step (unsigned int *sh, unsigned int lane, const uint4 (&q)[V], const bool (&valid)[V])
{
#pragma unroll
  for (int k = 0; k < V; k++)
    if (valid[k])
      count_vector<C, L, WALK> (sh, lane, q[k], C == 3 ? 16 * k : 0);
}

/* Counts a whole step. */
template <int C, int L, int WALK, int V>
__device__ __forceinline__ void
count_full_step (unsigned int *sh, unsigned int lane, const uint4 (&q)[V])
{
#pragma unroll
  for (int k = 0; k < V; k++)
    count_vector<C, L, WALK> (sh, lane, q[k], C == 3 ? 16 * k : 0);
}

/* The first 16-byte chunk of bin's 32 lane counters in the lane-column layout. */
template <int C, int L, int WALK>
__device__ __forceinline__ int
first_chunk (int bin)
{
  if (!byte_bins (C, L, WALK))
    return bin << 3;
  const int c = bin / kBins, b = bin % kBins;
  return ((c >> 1) << 16 | b << 8 | (c & 1) << 7) / 16;
}

/* Adds the block's shared tables into the strip's table in global memory (after the last
 * barrier). */
template <int C, int L, int THREADS, int WALK>
__device__ __forceinline__ void
merge_tables (unsigned int *sh, unsigned int (&low)[(C * kBins / 2 + THREADS - 1) / THREADS],
              unsigned int (&high)[(C * kBins / 2 + THREADS - 1) / THREADS], unsigned int *bins)
{
  constexpr int pairs = C * kBins / 2;
  if (L == kPacked)
    {
      flush_packed<C, THREADS> (sh, low, high);
#pragma unroll
      for (int k = 0; k < (pairs + THREADS - 1) / THREADS; k++)
        {
          const int w = threadIdx.x + k * THREADS;
          if (w < pairs)
            {
              if (low[k])
                atomicAdd (&bins[2 * w], low[k]);
              if (high[k])
                atomicAdd (&bins[2 * w + 1], high[k]);
            }
        }
    }
  else if (L == kLaneColumns)
    {
      /* A bin's 32 lanes as eight 16-byte reads, the k-th at (k + bin) % 8: the eight threads
       * of a quarter warp (one shared-memory wavefront) cover all 32 banks. */
      const uint4 *columns = reinterpret_cast<const uint4 *> (sh);
      for (int bin = threadIdx.x; bin < C * kBins; bin += THREADS)
        {
          const int first = first_chunk<C, L, WALK> (bin);
          unsigned int sum = 0;
#pragma unroll
          for (int k = 0; k < kWarp / 4; k++)
            {
              const uint4 v = columns[first + ((k + bin) & 7)];
              sum += v.x + v.y + v.z + v.w;
            }
          if (sum)
            atomicAdd (&bins[bin], sum);
        }
    }
  else
    {
      for (int bin = threadIdx.x; bin < C * kBins; bin += THREADS)
        if (sh[bin])
          atomicAdd (&bins[bin], sh[bin]);
    }
}

/* Zeroes the block's tables and the packed layout's register totals, then the barrier. */
template <int C, int L, int THREADS, int WALK, int OWNED>
__device__ __forceinline__ void
zero_tables (unsigned int *sh, unsigned int (&low)[OWNED], unsigned int (&high)[OWNED])
{
  constexpr int words = fastest_traits<C, L, WALK>::words;
  /* The table sizes are multiples of 4 words in every layout.  One channel's byte-aligned bins
   * use the first 128 bytes of every 256, the columns of s = 0. */
  if (C == 1 && byte_bins (C, L, WALK))
    for (int i = threadIdx.x; i < words / 8; i += THREADS)
      reinterpret_cast<uint4 *> (sh)[(i >> 3) << 4 | (i & 7)] = make_uint4 (0, 0, 0, 0);
  else
    for (int i = threadIdx.x; i < words / 4; i += THREADS)
      reinterpret_cast<uint4 *> (sh)[i] = make_uint4 (0, 0, 0, 0);
#pragma unroll
  for (int k = 0; k < OWNED; k++)
    low[k] = high[k] = 0;
  __syncthreads ();
}

/* The packed layout's flush, every flush_every steps (the same count in every thread of a
 * block, so the barriers are uniform). */
template <int C, int L, int THREADS, int OWNED>
__device__ __forceinline__ void
flush_if_due (unsigned int *sh, unsigned int (&low)[OWNED], unsigned int (&high)[OWNED],
              int flush_every, int &steps_since_flush)
{
  if (L == kPacked && ++steps_since_flush == flush_every)
    {
      __syncthreads ();
      flush_packed<C, THREADS> (sh, low, high);
      __syncthreads ();
      steps_since_flush = 0;
    }
}

/* The walk with kFullSteps: a grid-stride loop over the steps that lie whole inside the strip,
 * which checks neither a load nor a count; the step after them, if part of it is in the strip,
 * is loaded with checks while the last whole step is counted.  The next step's loads are issued
 * before this step is counted: with one 1024-thread block an SM, that is what keeps enough
 * bytes in flight.  At most two steps follow the last flush. */
template <int C, int L, int THREADS, int WALK, int OWNED>
__device__ __forceinline__ void
walk_full_steps (unsigned int *sh, const uint4 *vec, size_t units, unsigned int (&low)[OWNED],
                 unsigned int (&high)[OWNED], int flush_every)
{
  constexpr int V = fastest_traits<C, L, WALK>::vectors;
  constexpr size_t per_step = C == 3 ? THREADS : static_cast<size_t> (THREADS) * V;
  const size_t grid_step = gridDim.x * per_step;
  const unsigned int lane = threadIdx.x & 31u;
  size_t base = blockIdx.x * per_step;
  const bool full = base + per_step <= units;
  uint4 q[V], r[V];
  bool valid[V], r_valid[V];
  /* For 1, 2 and 4 channels units are vectors, so units bounds both. */
  if (full)
    load_full_step<C, THREADS, V> (vec, base, q);
  else
    load_step<C, THREADS, V> (vec, base, units, units, q, valid);
  zero_tables<C, L, THREADS, WALK> (sh, low, high);

  if (full)
    {
      int steps_since_flush = 0;
      uint4 next[V];
      for (; base + grid_step + per_step <= units; base += grid_step)
        {
          load_full_step<C, THREADS, V> (vec, base + grid_step, next);
          count_full_step<C, L, WALK, V> (sh, lane, q);
          flush_if_due<C, L, THREADS> (sh, low, high, flush_every, steps_since_flush);
#pragma unroll
          for (int k = 0; k < V; k++)
            q[k] = next[k];
        }
      load_step<C, THREADS, V> (vec, base + grid_step, units, units, r, r_valid);
      count_full_step<C, L, WALK, V> (sh, lane, q);
    }
  else
    {
#pragma unroll
      for (int k = 0; k < V; k++)
        {
          r[k] = q[k];
          r_valid[k] = valid[k];
        }
    }
  count_step<C, L, WALK, V> (sh, lane, r, r_valid);
}

/* FASTEST around a walk.  The walk zeroes the tables and counts the strip's whole units; then the
 * bytes after them are counted and the tables merged.  The engine's walk is walk_full_steps
 * (fastest_kernel); the benchmark times others through this same pass (kernels/cli). */
template <int C, int L, int THREADS, int WALK, typename W>
__device__ __forceinline__ void
fastest_pass (const uint8_t *__restrict__ in, size_t n, unsigned int *bins, W walk)
{
  extern __shared__ unsigned int sh[];
  using traits = fastest_traits<C, L, WALK>;
  constexpr int owned = (C * kBins / 2 + THREADS - 1) / THREADS;
  const uint4 *vec = reinterpret_cast<const uint4 *> (in);
  const size_t vectors = n / 16;
  const size_t units = C == 3 ? n / traits::unit : vectors;
  unsigned int low[owned], high[owned];
  walk (sh, vec, units, vectors, low, high);

  /* The bytes after the last whole unit: fewer than one unit in all. */
  const unsigned int lane = threadIdx.x & 31u;
  const size_t tail_start = C == 3 ? units * traits::unit : vectors * 16;
  for (size_t i = tail_start + blockIdx.x * static_cast<size_t> (THREADS) + threadIdx.x; i < n;
       i += gridDim.x * static_cast<size_t> (THREADS))
    count_sample<C, L, WALK> (sh, lane, static_cast<int> (i % C), in[i]);
  __syncthreads ();
  merge_tables<C, L, THREADS, WALK> (sh, low, high, bins);
}

/* The zeroing, the software-pipelined loads, the counting and the flushes are one pass whose
 * load/atomic order and register use were tuned and checked in SASS as a whole
 * (docs/BENCHMARKS.md, "What moved, and why"): reordering it is a change to measure again.
 * For 1, 2 and 4 channels every 16-byte load starts on a pixel, and load k of a step covers one
 * contiguous run of THREADS vectors (coalesced).  For 3 channels a thread reads 48 contiguous
 * bytes, so that each load's first channel is known at compile time. */
template <int C, int L, int THREADS, int WALK = engine_walk (C)>
__global__ void
__launch_bounds__ (THREADS)
    fastest_kernel (const uint8_t *__restrict__ in, size_t n, unsigned int *bins, int flush_every)
{
  static_assert (WALK & kFullSteps, "a walk of checked steps is the benchmark's (kernels/cli)");
  fastest_pass<C, L, THREADS, WALK> (
      in, n, bins,
      [flush_every] (unsigned int *sh, const uint4 *vec, size_t units, size_t /* vectors */,
                     auto &low, auto &high) {
        walk_full_steps<C, L, THREADS, WALK> (sh, vec, units, low, high, flush_every);
      });
}

/* The kernels without templates are static: the benchmark includes this file too. */

/* 4. Read-only: reads every byte with 16-byte loads, four in flight per thread, and counts
 * nothing: the ceiling.  The sentinel test keeps the loads alive and is almost never true. */
static __global__ void
read_only_kernel (const uint8_t *__restrict__ in, size_t n, unsigned int *sink)
{
  const uint4 *vec = reinterpret_cast<const uint4 *> (in);
  const size_t vectors = n / 16;
  const size_t step = gridDim.x * static_cast<size_t> (blockDim.x);
  unsigned int acc = 0;
  size_t i = blockIdx.x * static_cast<size_t> (blockDim.x) + threadIdx.x;
  for (; i + 3 * step < vectors; i += 4 * step)
    {
      uint4 q0 = __ldcs (&vec[i]), q1 = __ldcs (&vec[i + step]), q2 = __ldcs (&vec[i + 2 * step]),
            q3 = __ldcs (&vec[i + 3 * step]);
      acc ^= q0.x ^ q0.y ^ q0.z ^ q0.w ^ q1.x ^ q1.y ^ q1.z ^ q1.w;
      acc ^= q2.x ^ q2.y ^ q2.z ^ q2.w ^ q3.x ^ q3.y ^ q3.z ^ q3.w;
    }
  for (; i < vectors; i += step)
    {
      uint4 q = __ldcs (&vec[i]);
      acc ^= q.x ^ q.y ^ q.z ^ q.w;
    }
  for (size_t j = vectors * 16 + blockIdx.x * static_cast<size_t> (blockDim.x) + threadIdx.x; j < n;
       j += step)
    acc ^= in[j];
  if (acc == 0x5EEDF00Du)
    atomicAdd (sink, 1u);
}

/* Adds a strip's 32-bit counts into the 64-bit totals and clears them for the next strip. */
static __global__ void
fold_kernel (unsigned int *strip_bins, unsigned long long *totals, int count)
{
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x)
    {
      totals[i] += strip_bins[i];
      strip_bins[i] = 0;
    }
}

/* The noise pattern, byte for byte what the host makes (gh_pattern_word). */
static __global__ void
noise_kernel (uint8_t *out, size_t n, unsigned long long offset)
{
  const size_t step = gridDim.x * static_cast<size_t> (blockDim.x);
  for (size_t i = blockIdx.x * static_cast<size_t> (blockDim.x) + threadIdx.x; i < n; i += step)
    {
      const unsigned long long at = offset + i;
      out[i] = static_cast<uint8_t> (gh_pattern_word (at / 4) >> (8 * (at % 4)));
    }
}

} // namespace gh

#endif /* GPUHIST_HIST_KERNELS_CUH */
