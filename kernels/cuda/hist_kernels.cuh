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
 *   kWide    32-bit counters: C * 256 * 32 * 4 bytes (32 KiB a channel)
 *   kPacked  two 16-bit counters a word: half that, flushed into registers before a counter
 *            can reach 2^16; for GPUs with 64 KiB of shared memory a block (the T4)
 *   kSingle  one 32-bit table per block, for GPUs with even less
 */
enum layout
{
  kSingle = 0,
  kPacked = 1,
  kWide = 2
};

template <int C, int L> struct fastest_traits
{
  /* 32-bit words of shared memory the block needs. */
  static constexpr int words = L == kWide     ? C * kBins * kWarp
                               : L == kPacked ? C * kBins / 2 * kWarp
                                              : C * kBins;
  /* Bytes a thread reads per step: whole 16-byte loads that also hold whole pixels. */
  static constexpr int vectors = C == 3 ? 3 : 4;
  static constexpr int unit = 16 * vectors;
};

template <int C, int L>
__device__ __forceinline__ void
count_sample (unsigned int *sh, unsigned int lane, int c, unsigned int b)
{
  if (L == kWide)
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
 * the wide and single layouts the counter's byte address is built from the sample with one shift
 * and one masked OR (channel and lane are constants here): at 17 bytes a clock an SM, the
 * instructions a sample costs decide whether the kernel keeps up with memory. */
template <int C, int L>
__device__ __forceinline__ void
count_word (unsigned int *sh, unsigned int lane, unsigned int w, int first)
{
  char *const base = reinterpret_cast<char *> (sh);
#pragma unroll
  for (int j = 0; j < 4; j++)
    {
      const unsigned int c = static_cast<unsigned int> ((first + j) % C);
      if (L == kWide) /* ((c * 256 + b) * 32 + lane) * 4 */
        atomicAdd (
            reinterpret_cast<unsigned int *> (base + (byte_scaled (w, j, 7) | c << 15 | lane << 2)),
            1u);
      else if (L == kSingle) /* (c * 256 + b) * 4 */
        atomicAdd (reinterpret_cast<unsigned int *> (base + (byte_scaled (w, j, 2) | c << 10)), 1u);
      else
        count_sample<C, L> (sh, lane, static_cast<int> (c), (w >> (8 * j)) & 0xFFu);
    }
}

template <int C, int L>
__device__ __forceinline__ void
count_vector (unsigned int *sh, unsigned int lane, const uint4 &q, int first)
{
  count_word<C, L> (sh, lane, q.x, first);
  count_word<C, L> (sh, lane, q.y, first + 4);
  count_word<C, L> (sh, lane, q.z, first + 8);
  count_word<C, L> (sh, lane, q.w, first + 12);
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

/* Loads one step's vectors for this thread; valid[k] says which exist. */
template <int C, int THREADS, int V>
__device__ __forceinline__ void
load_step (const uint4 *vec, size_t base, size_t units, size_t vectors, uint4 (&q)[V],
           bool (&valid)[V])
{
#pragma unroll
  for (int k = 0; k < V; k++)
    {
      const size_t v = C == 3 ? (base + threadIdx.x) * V + k : base + k * THREADS + threadIdx.x;
      valid[k] = C == 3 ? base + threadIdx.x < units : v < vectors;
      q[k] = valid[k] ? __ldcs (&vec[v]) : make_uint4 (0, 0, 0, 0);
    }
}

/* Where the whole rounds of the grid end, in units: up to there every block takes the same
 * number of steps.  The steps (64 KiB or 48 KiB each) of a strip in device memory fit 32 bits
 * on any GPU, and a 32-bit division costs every thread far fewer instructions than a 64-bit
 * one (a 64-bit fallback beside it also cost the 3-channel kernels half their occupancy:
 * docs/BENCHMARKS.md, run 23). */
template <size_t PER_STEP>
__device__ __forceinline__ size_t
whole_rounds_end (size_t units)
{
  const unsigned int rounds = static_cast<unsigned int> (units / PER_STEP) / gridDim.x;
  return static_cast<size_t> (rounds) * gridDim.x * PER_STEP;
}

/* Loads this thread's share of the rest after the whole rounds, [begin, units), fewer units
 * than a round.  As one more grid-stride step it would fall to the first blocks alone, and the
 * kernel would last a whole step longer than the mean block's work.  Instead it is dealt
 * in chunks of 32 units, one warp's load: chunk c to block c % gridDim.x, so that every block's
 * share is the same within one chunk; in a block, chunk j to warp j % 32 as its load j / 32.
 * For 3 channels a unit is a thread's 48 bytes, and a round holds fewer than 32 chunks a block:
 * one unit a thread at most, its three vectors. */
template <int C, int THREADS, int V>
__device__ __forceinline__ void
load_rest (const uint4 *vec, size_t begin, size_t units, uint4 (&q)[V], bool (&valid)[V])
{
  const unsigned int warp = threadIdx.x / kWarp, lane = threadIdx.x % kWarp;
#pragma unroll
  for (int k = 0; k < V; k++)
    {
      const unsigned int j = C == 3 ? warp : warp + k * (THREADS / kWarp);
      const size_t u = begin + (static_cast<size_t> (j) * gridDim.x + blockIdx.x) * kWarp + lane;
      valid[k] = u < units;
      q[k] = valid[k] ? __ldcs (&vec[C == 3 ? u * V + k : u]) : make_uint4 (0, 0, 0, 0);
    }
}

/* Counts one step's loaded vectors. */
template <int C, int L, int V>
__device__ __forceinline__ void
count_step (unsigned int *sh, unsigned int lane, const uint4 (&q)[V], const bool (&valid)[V])
{
#pragma unroll
  for (int k = 0; k < V; k++)
    if (valid[k])
      count_vector<C, L> (sh, lane, q[k], C == 3 ? 16 * k : 0);
}

/* Adds the block's shared tables into the strip's table in global memory (after the last
 * barrier). */
template <int C, int L, int THREADS>
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
  else if (L == kWide)
    {
      for (int bin = threadIdx.x; bin < C * kBins; bin += THREADS)
        {
          unsigned int sum = 0;
          for (int l = 0; l < kWarp; l++)
            sum += sh[(bin << 5) | ((l + bin) & 31)];
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

/* The zeroing, the software-pipelined loads, the counting and the flushes are one pass whose
 * load/atomic order and register use were tuned and checked in SASS as a whole
 * (docs/BENCHMARKS.md, "The fastest kernel's layouts", "What moved, and why" and run 23): the
 * grid-stride loop below is the same instructions in every walk (gh::walk), which differ only in
 * what comes before and after it. */
template <int C, int L, int THREADS, int WALK = engine_walk (C)>
__global__ void
__launch_bounds__ (THREADS)
    fastest_kernel (const uint8_t *__restrict__ in, size_t n, unsigned int *bins, int flush_every)
{
  extern __shared__ unsigned int sh[];
  using traits = fastest_traits<C, L>;
  constexpr int V = traits::vectors;
  constexpr int owned = (C * kBins / 2 + THREADS - 1) / THREADS;
  const unsigned int lane = threadIdx.x & 31u;

  /* For 1, 2 and 4 channels every 16-byte load starts on a pixel, and load k of a step covers
   * one contiguous run of THREADS vectors (coalesced).  For 3 channels a thread reads 48
   * contiguous bytes, so that each load's first channel is known at compile time.  The next
   * step's loads are issued before this step is counted: with one 1024-thread block an SM (the
   * wide layout at 4 channels), that is what keeps enough bytes in flight.  With kWholeRounds
   * the loop covers the whole rounds only (its loads' limit is their end) and the last whole
   * step is counted after it, with the rest's loads in flight; with kLoadsFirst the first
   * step's loads are in flight while the tables are zeroed. */
  const uint4 *vec = reinterpret_cast<const uint4 *> (in);
  const size_t vectors = n / 16;
  const size_t units = C == 3 ? n / traits::unit : vectors;
  const size_t per_step = C == 3 ? THREADS : static_cast<size_t> (THREADS) * V;
  const size_t grid_step = gridDim.x * per_step;
  constexpr size_t step_units = C == 3 ? THREADS : THREADS * V;
  const size_t loop_units = WALK & kWholeRounds ? whole_rounds_end<step_units> (units) : units;
  const size_t loop_vectors = WALK & kWholeRounds ? loop_units : vectors;
  uint4 q[V];
  bool valid[V];
  size_t base = blockIdx.x * per_step;
  if (WALK & kLoadsFirst)
    load_step<C, THREADS, V> (vec, base, loop_units, loop_vectors, q, valid);

  for (int i = threadIdx.x; i < traits::words; i += THREADS)
    sh[i] = 0;
  unsigned int low[owned], high[owned];
#pragma unroll
  for (int k = 0; k < owned; k++)
    low[k] = high[k] = 0;
  __syncthreads ();

  if (!(WALK & kLoadsFirst))
    load_step<C, THREADS, V> (vec, base, loop_units, loop_vectors, q, valid);
  /* Every thread of a block takes the same number of steps, so the flush barrier is uniform. */
  const size_t loop_end = WALK & kWholeRounds && loop_units ? loop_units - grid_step : loop_units;
  int steps_since_flush = 0;
  for (; base < loop_end; base += grid_step)
    {
      uint4 next[V];
      bool next_valid[V];
      load_step<C, THREADS, V> (vec, base + grid_step, loop_units, loop_vectors, next, next_valid);
      count_step<C, L, V> (sh, lane, q, valid);
      if (L == kPacked && ++steps_since_flush == flush_every)
        {
          __syncthreads ();
          flush_packed<C, THREADS> (sh, low, high);
          __syncthreads ();
          steps_since_flush = 0;
        }
#pragma unroll
      for (int k = 0; k < V; k++)
        {
          q[k] = next[k];
          valid[k] = next_valid[k];
        }
    }
  /* The last whole step (all its loads exist where there is one: valid[] stays out of it, so
   * that the loop need not keep it) and the rest: at most two steps since the last flush,
   * which plan_fastest's flush_every leaves room for. */
  if (WALK & kWholeRounds)
    {
      uint4 rest[V];
      bool rest_valid[V];
      load_rest<C, THREADS, V> (vec, loop_units, units, rest, rest_valid);
      if (loop_units)
        {
#pragma unroll
          for (int k = 0; k < V; k++)
            count_vector<C, L> (sh, lane, q[k], C == 3 ? 16 * k : 0);
        }
      count_step<C, L, V> (sh, lane, rest, rest_valid);
    }
  const size_t tail_start = C == 3 ? units * traits::unit : vectors * 16;

  /* The bytes after the last whole unit: fewer than one unit in all. */
  for (size_t i = tail_start + blockIdx.x * static_cast<size_t> (THREADS) + threadIdx.x; i < n;
       i += gridDim.x * static_cast<size_t> (THREADS))
    count_sample<C, L> (sh, lane, static_cast<int> (i % C), in[i]);
  __syncthreads ();
  merge_tables<C, L, THREADS> (sh, low, high, bins);
}

/* 4. Read-only: reads every byte with 16-byte loads, four in flight per thread, and counts
 * nothing: the ceiling.  The sentinel test keeps the loads alive and is almost never true. */
__global__ void
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

/* The seed's read-only pass: one byte per thread per step (for the benchmark's comparison). */
__global__ void
read_only_bytes_kernel (const uint8_t *__restrict__ in, size_t n, unsigned int *sink)
{
  const size_t step = gridDim.x * static_cast<size_t> (blockDim.x);
  unsigned int acc = 0;
  for (size_t i = blockIdx.x * static_cast<size_t> (blockDim.x) + threadIdx.x; i < n; i += step)
    acc += in[i];
  if (acc == 0x5EEDF00Du)
    atomicAdd (sink, 1u);
}

/* Adds a strip's 32-bit counts into the 64-bit totals and clears them for the next strip. */
__global__ void
fold_kernel (unsigned int *strip_bins, unsigned long long *totals, int count)
{
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x)
    {
      totals[i] += strip_bins[i];
      strip_bins[i] = 0;
    }
}

/* The noise pattern, byte for byte what the host makes (gh_pattern_word). */
__global__ void
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
