// The kernel variants tried on the H200 on 2026-11-29 (second session), kept as they ran: the
// figures in docs/BENCHMARKS.md's "Variants tried" come from this file; run1.txt ... run5.txt
// beside it are the outputs of `./variants all`, `./variants 2`, ... `./variants 5`.
// Not part of the build.  Build: nvcc -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 \
//   -o variants variants.cu
// Issue 7: 8-bit RGBA, 256 bins, 16384^2; issue 8: 16-bit RGBA, 8192^2, 4096 to 65536 bins.
#include <algorithm>
#include <cooperative_groups.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace cg = cooperative_groups;

#define CK(x)                                                                                      \
  do                                                                                               \
    {                                                                                              \
      cudaError_t e_ = (x);                                                                        \
      if (e_ != cudaSuccess)                                                                       \
        {                                                                                          \
          printf ("CUDA error %s at %s:%d\n", cudaGetErrorString (e_), __FILE__, __LINE__);        \
          exit (1);                                                                                \
        }                                                                                          \
    }                                                                                              \
  while (0)

__host__ __device__ inline uint32_t
hash32 (uint64_t i)
{
  uint64_t z = i * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return (uint32_t) (z ^ (z >> 31));
}

// ---- input makers -------------------------------------------------------------------------
// kind 0 noise, 1 photo-like, 2 flat.  8-bit RGBA, side x side pixels.
__global__ void
make8 (uint32_t *px, int side, int kind)
{
  size_t n = (size_t) side * side;
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * (size_t) blockDim.x)
    {
      uint32_t h = hash32 (i);
      uint32_t x = i % side, y = i / side;
      uint32_t v;
      if (kind == 0)
        v = h;
      else if (kind == 1)
        {
          uint32_t r = (x / 16 + y / 32 + (h & 3)) & 255,
                   g = (x / 24 + y / 16 + ((h >> 8) & 3)) & 255,
                   b = ((x + y) / 40 + ((h >> 16) & 7)) & 255;
          v = r | g << 8 | b << 16 | 255u << 24;
        }
      else
        v = 0x80u | 0x40u << 8 | 0xC0u << 16 | 0xFFu << 24;
      px[i] = v;
    }
}
// 16-bit RGBA: 4 uint16 per pixel.
__global__ void
make16 (uint16_t *q, int side, int kind)
{
  size_t n = (size_t) side * side;
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * (size_t) blockDim.x)
    {
      uint32_t x = i % side, y = i / side;
      for (int c = 0; c < 4; c++)
        {
          uint32_t h = hash32 (i * 4 + c);
          uint32_t v;
          if (kind == 0)
            v = h & 0xFFFF;
          else if (kind == 1)
            v = c == 3 ? 255 * 256 + (h & 255)
                       : (((x / (16 + 8 * c) + y / 32) & 255) * 256 + (h & 255));
          else
            v = c == 0 ? 51234 : c == 1 ? 30000 : c == 2 ? 10000 : 65535;
          q[i * 4 + c] = (uint16_t) v;
        }
    }
}

// ---- reference: global atomics --------------------------------------------------------------
__global__ void
ref8 (const uint8_t *in, size_t n, unsigned *bins)
{
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * (size_t) blockDim.x)
    atomicAdd (&bins[(i % 4) * 256 + in[i]], 1u);
}
__global__ void
ref16 (const uint16_t *in, size_t n, int shift, int bins, unsigned *out)
{
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * (size_t) blockDim.x)
    atomicAdd (&out[(i % 4) * bins + (in[i] >> shift)], 1u);
}

// ---- read-only ------------------------------------------------------------------------------
__global__ void
read_only (const uint8_t *__restrict__ in, size_t n, unsigned *sink)
{
  const uint4 *vec = reinterpret_cast<const uint4 *> (in);
  const size_t vectors = n / 16;
  const size_t step = gridDim.x * static_cast<size_t> (blockDim.x);
  unsigned acc = 0;
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
  if (acc == 0x5EEDF00Du)
    atomicAdd (sink, 1u);
}

// ---- 8-bit wide layout with options ------------------------------------------------------------
// RLE: per-channel run in registers.  OFF: every OFF-th step, word 0 of vector 0 goes to a
// per-block global table (0: never).
template <bool RLE, int OFF>
__global__ void __launch_bounds__ (1024)
    wide8 (const uint8_t *__restrict__ in, size_t n, unsigned *bins, unsigned *gtab)
{
  extern __shared__ unsigned sh[];
  constexpr int T = 1024, V = 4;
  const unsigned lane = threadIdx.x & 31u;
  for (int i = threadIdx.x; i < 4 * 256 * 32; i += T)
    sh[i] = 0;
  __syncthreads ();
  const uint4 *vec = reinterpret_cast<const uint4 *> (in);
  const size_t vectors = n / 16;
  const size_t per_step = (size_t) T * V;
  const size_t grid_step = gridDim.x * per_step;
  unsigned last[4] = { 0, 0, 0, 0 }, cnt[4] = { 0, 0, 0, 0 };
  unsigned *g = gtab + (size_t) blockIdx.x * 1024;
  auto count = [&] (int c, unsigned b) {
    if (RLE)
      {
        if (b == last[c])
          cnt[c]++;
        else
          {
            atomicAdd (&sh[((c * 256 + last[c]) << 5) | lane], cnt[c]);
            last[c] = b;
            cnt[c] = 1;
          }
      }
    else
      atomicAdd (&sh[((c * 256 + b) << 5) | lane], 1u);
  };
  auto load = [&] (size_t base, uint4 (&q)[V]) {
#pragma unroll
    for (int k = 0; k < V; k++)
      {
        size_t v = base + k * T + threadIdx.x;
        q[k] = v < vectors ? __ldcs (&vec[v]) : make_uint4 (0, 0, 0, 0);
      }
  };
  uint4 q[V];
  size_t base = blockIdx.x * per_step;
  load (base, q);
  int step = 0;
  for (; base < vectors; base += grid_step)
    {
      uint4 nx[V];
      load (base + grid_step, nx);
#pragma unroll
      for (int k = 0; k < V; k++)
        if (base + k * T + threadIdx.x < vectors)
          {
            const unsigned w[4] = { q[k].x, q[k].y, q[k].z, q[k].w };
#pragma unroll
            for (int j = 0; j < 4; j++)
              {
                if (OFF && k == 0 && j == 0 && step % OFF == 0)
                  {
#pragma unroll
                    for (int c = 0; c < 4; c++)
                      atomicAdd (&g[c * 256 + ((w[j] >> (8 * c)) & 255)], 1u);
                    continue;
                  }
#pragma unroll
                for (int c = 0; c < 4; c++)
                  count (c, (w[j] >> (8 * c)) & 255);
              }
          }
      step++;
#pragma unroll
      for (int k = 0; k < V; k++)
        q[k] = nx[k];
    }
  if (RLE)
    for (int c = 0; c < 4; c++)
      atomicAdd (&sh[((c * 256 + last[c]) << 5) | lane], cnt[c]);
  __syncthreads ();
  for (int bin = threadIdx.x; bin < 1024; bin += T)
    {
      unsigned sum = 0;
      for (int l = 0; l < 32; l++)
        sum += sh[(bin << 5) | ((l + bin) & 31)];
      if (OFF)
        sum += atomicExch (&g[bin], 0u);
      if (sum)
        atomicAdd (&bins[bin], sum);
    }
}

// ---- 16-bit shared table (bins <= 4096 for 4 ch): T threads, 4 vectors a step, prefetch -------
template <int T, bool RLE>
__global__ void
__launch_bounds__ (T)
    shared16 (const uint16_t *__restrict__ in, size_t n, int shift, int bins, unsigned *out)
{
  extern __shared__ unsigned table[];
  constexpr int V = 4;
  for (int i = threadIdx.x; i < 4 * bins; i += T)
    table[i] = 0;
  __syncthreads ();
  const uint4 *vec = reinterpret_cast<const uint4 *> (in);
  const size_t vectors = n / 8;
  const size_t per_step = (size_t) T * V;
  const size_t grid_step = gridDim.x * per_step;
  unsigned last[4] = { 0, 0, 0, 0 }, cnt[4] = { 0, 0, 0, 0 };
  auto count = [&] (int c, unsigned b) {
    if (RLE)
      {
        if (b == last[c])
          cnt[c]++;
        else
          {
            atomicAdd (&table[c * bins + last[c]], cnt[c]);
            last[c] = b;
            cnt[c] = 1;
          }
      }
    else
      atomicAdd (&table[c * bins + b], 1u);
  };
  auto load = [&] (size_t base, uint4 (&q)[V]) {
#pragma unroll
    for (int k = 0; k < V; k++)
      {
        size_t v = base + k * T + threadIdx.x;
        q[k] = v < vectors ? __ldcs (&vec[v]) : make_uint4 (0, 0, 0, 0);
      }
  };
  uint4 q[V];
  size_t base = blockIdx.x * per_step;
  load (base, q);
  for (; base < vectors; base += grid_step)
    {
      uint4 nx[V];
      load (base + grid_step, nx);
#pragma unroll
      for (int k = 0; k < V; k++)
        if (base + k * T + threadIdx.x < vectors)
          {
            const unsigned w[4] = { q[k].x, q[k].y, q[k].z, q[k].w };
#pragma unroll
            for (int j = 0; j < 4; j++)
              {
                count ((2 * j) & 3, (w[j] & 0xFFFFu) >> shift);
                count ((2 * j + 1) & 3, (w[j] >> 16) >> shift);
              }
          }
#pragma unroll
      for (int k = 0; k < V; k++)
        q[k] = nx[k];
    }
  if (RLE)
    for (int c = 0; c < 4; c++)
      atomicAdd (&table[c * bins + last[c]], cnt[c]);
  __syncthreads ();
  for (int i = threadIdx.x; i < 4 * bins; i += T)
    if (table[i])
      atomicAdd (&out[i], table[i]);
}

// ---- 16-bit, 65536 bins: the table spread over a cluster's shared memory -------------------
// R ranks; rank r holds global bins g with g % R == r at local g / R.  32-bit counters.
template <int T, int R, bool RLE>
__global__ void
__launch_bounds__ (T) cluster16 (const uint16_t *__restrict__ in, size_t n, unsigned *out)
{
  extern __shared__ unsigned table[];
  constexpr int V = 4;
  constexpr int local_words = 4 * 65536 / R;
  cg::cluster_group cluster = cg::this_cluster ();
  for (int i = threadIdx.x; i < local_words; i += T)
    table[i] = 0;
  cluster.sync ();
  const unsigned table_base = (unsigned) __cvta_generic_to_shared (table);
  auto add = [&] (unsigned g, unsigned v) {
    unsigned local = table_base + (g / R) * 4, remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(g % R));
    asm volatile("red.shared::cluster.add.u32 [%0], %1;" ::"r"(remote), "r"(v) : "memory");
  };
  unsigned last[4] = { 0, 65536, 2 * 65536, 3 * 65536 }, cnt[4] = { 0, 0, 0, 0 };
  auto count = [&] (int c, unsigned s) {
    unsigned g = c * 65536 + s;
    if (RLE)
      {
        if (g == last[c])
          cnt[c]++;
        else
          {
            if (cnt[c])
              add (last[c], cnt[c]);
            last[c] = g;
            cnt[c] = 1;
          }
      }
    else
      add (g, 1u);
  };
  const uint4 *vec = reinterpret_cast<const uint4 *> (in);
  const size_t vectors = n / 8;
  const size_t per_step = (size_t) T * V;
  const size_t grid_step = gridDim.x * per_step;
  auto load = [&] (size_t base, uint4 (&q)[V]) {
#pragma unroll
    for (int k = 0; k < V; k++)
      {
        size_t v = base + k * T + threadIdx.x;
        q[k] = v < vectors ? __ldcs (&vec[v]) : make_uint4 (0, 0, 0, 0);
      }
  };
  uint4 q[V];
  size_t base = blockIdx.x * per_step;
  load (base, q);
  for (; base < vectors; base += grid_step)
    {
      uint4 nx[V];
      load (base + grid_step, nx);
#pragma unroll
      for (int k = 0; k < V; k++)
        if (base + k * T + threadIdx.x < vectors)
          {
            const unsigned w[4] = { q[k].x, q[k].y, q[k].z, q[k].w };
#pragma unroll
            for (int j = 0; j < 4; j++)
              {
                count ((2 * j) & 3, w[j] & 0xFFFFu);
                count ((2 * j + 1) & 3, w[j] >> 16);
              }
          }
#pragma unroll
      for (int k = 0; k < V; k++)
        q[k] = nx[k];
    }
  if (RLE)
    for (int c = 0; c < 4; c++)
      if (cnt[c])
        add (last[c], cnt[c]);
  cluster.sync ();
  const unsigned rank = cluster.block_rank ();
  for (int i = threadIdx.x; i < local_words; i += T)
    if (table[i])
      atomicAdd (&out[i * R + rank], table[i]);
}

// ---- diagnostics for issue 7: the wide layout with the atomic replaced ------------------------
// MODE 0: atomicAdd, 1: plain store (wrong counts, timing only), 2: red.shared PTX
template <int MODE>
__global__ void __launch_bounds__ (1024)
    wide8d (const uint8_t *__restrict__ in, size_t n, unsigned *bins, unsigned *gtab)
{
  extern __shared__ unsigned sh[];
  constexpr int T = 1024, V = 4;
  const unsigned lane = threadIdx.x & 31u;
  for (int i = threadIdx.x; i < 4 * 256 * 32; i += T)
    sh[i] = 0;
  __syncthreads ();
  const uint4 *vec = reinterpret_cast<const uint4 *> (in);
  const size_t vectors = n / 16;
  const size_t per_step = (size_t) T * V;
  const size_t grid_step = gridDim.x * per_step;
  auto count = [&] (int c, unsigned b) {
    unsigned *p = &sh[((c * 256 + b) << 5) | lane];
    if (MODE == 0)
      atomicAdd (p, 1u);
    else if (MODE == 1)
      *(volatile unsigned *) p = b;
    else
      {
        unsigned a = (unsigned) __cvta_generic_to_shared (p);
        asm volatile("red.shared.add.u32 [%0], 1;" ::"r"(a) : "memory");
      }
  };
  auto load = [&] (size_t base, uint4 (&q)[V]) {
#pragma unroll
    for (int k = 0; k < V; k++)
      {
        size_t v = base + k * T + threadIdx.x;
        q[k] = v < vectors ? __ldcs (&vec[v]) : make_uint4 (0, 0, 0, 0);
      }
  };
  uint4 q[V];
  size_t base = blockIdx.x * per_step;
  load (base, q);
  for (; base < vectors; base += grid_step)
    {
      uint4 nx[V];
      load (base + grid_step, nx);
#pragma unroll
      for (int k = 0; k < V; k++)
        if (base + k * T + threadIdx.x < vectors)
          {
            const unsigned w[4] = { q[k].x, q[k].y, q[k].z, q[k].w };
#pragma unroll
            for (int j = 0; j < 4; j++)
#pragma unroll
              for (int c = 0; c < 4; c++)
                count (c, (w[j] >> (8 * c)) & 255);
          }
#pragma unroll
      for (int k = 0; k < V; k++)
        q[k] = nx[k];
    }
  __syncthreads ();
  for (int bin = threadIdx.x; bin < 1024; bin += T)
    {
      unsigned sum = 0;
      for (int l = 0; l < 32; l++)
        sum += sh[(bin << 5) | ((l + bin) & 31)];
      if (sum)
        atomicAdd (&bins[bin], sum);
    }
}

// ---- 16-bit, sliced passes: 32-bit counters (NARROW false) or 16-bit pairs (NARROW true) whose
// wraps are caught from the atomics' old values and carried into the global table. -------------
template <int T, bool NARROW>
__global__ void
__launch_bounds__ (T) slice16 (const uint16_t *__restrict__ in, size_t n, int shift, int bins,
                               int lo, int slice, unsigned *out)
{
  extern __shared__ unsigned table[];
  constexpr int V = 4;
  const int counters = 4 * slice;
  const int words = NARROW ? (counters + 1) / 2 : counters;
  for (int i = threadIdx.x; i < words; i += T)
    table[i] = 0;
  __syncthreads ();
  auto global_index = [&] (unsigned i) { return (i / slice) * bins + lo + i % slice; };
  auto count = [&] (int c, unsigned b) {
    const unsigned at = b - (unsigned) lo;
    if (at >= (unsigned) slice)
      return;
    const unsigned i = c * slice + at;
    if (!NARROW)
      {
        atomicAdd (&table[i], 1u);
        return;
      }
    const unsigned half = i & 1u;
    const unsigned old = atomicAdd (&table[i >> 1], 1u << (16 * half));
    if (half == 0)
      {
        if ((old & 0xFFFFu) == 0xFFFFu)
          {
            /* This increment wrapped the low counter and carried into the high one. */
            atomicAdd (&out[global_index (i)], 65536u);
            if (old == 0xFFFFFFFFu)
              atomicAdd (&out[global_index (i + 1)], 65536u);
            const unsigned before = atomicSub (&table[i >> 1], 0x10000u);
            if (before < 0x10000u)
              atomicSub (&out[global_index (i + 1)], 65536u);
          }
      }
    else if ((old >> 16) == 0xFFFFu)
      atomicAdd (&out[global_index (i)], 65536u);
  };
  const uint4 *vec = reinterpret_cast<const uint4 *> (in);
  const size_t vectors = n / 8;
  const size_t per_step = (size_t) T * V;
  const size_t grid_step = gridDim.x * per_step;
  auto load = [&] (size_t base, uint4 (&q)[V]) {
#pragma unroll
    for (int k = 0; k < V; k++)
      {
        size_t v = base + k * T + threadIdx.x;
        q[k] = v < vectors ? __ldcs (&vec[v]) : make_uint4 (0, 0, 0, 0);
      }
  };
  uint4 q[V];
  size_t base = blockIdx.x * per_step;
  load (base, q);
  for (; base < vectors; base += grid_step)
    {
      uint4 nx[V];
      load (base + grid_step, nx);
#pragma unroll
      for (int k = 0; k < V; k++)
        if (base + k * T + threadIdx.x < vectors)
          {
            const unsigned w[4] = { q[k].x, q[k].y, q[k].z, q[k].w };
#pragma unroll
            for (int j = 0; j < 4; j++)
              {
                count ((2 * j) & 3, (w[j] & 0xFFFFu) >> shift);
                count ((2 * j + 1) & 3, (w[j] >> 16) >> shift);
              }
          }
#pragma unroll
      for (int k = 0; k < V; k++)
        q[k] = nx[k];
    }
  __syncthreads ();
  for (int i = threadIdx.x; i < words; i += T)
    {
      const unsigned w = table[i];
      if (!NARROW)
        {
          if (w)
            atomicAdd (&out[global_index (i)], w);
          continue;
        }
      if (w & 0xFFFFu)
        atomicAdd (&out[global_index (2 * i)], w & 0xFFFFu);
      if ((w >> 16) && 2 * i + 1 < (unsigned) counters)
        atomicAdd (&out[global_index (2 * i + 1)], w >> 16);
    }
}

// ---- issue 7: the wide layout with two ALU instructions a sample ------------------------------
__global__ void __launch_bounds__ (1024)
    wide8f (const uint8_t *__restrict__ in, size_t n, unsigned *bins, unsigned *gtab)
{
  extern __shared__ unsigned sh[];
  constexpr int T = 1024, V = 4;
  const unsigned lane = threadIdx.x & 31u;
  for (int i = threadIdx.x; i < 4 * 256 * 32; i += T)
    sh[i] = 0;
  __syncthreads ();
  char *const base_ptr = reinterpret_cast<char *> (sh);
  const unsigned lane4 = lane << 2;
  const unsigned lc1 = lane4 | 1u << 15, lc2 = lane4 | 2u << 15, lc3 = lane4 | 3u << 15;
  const uint4 *vec = reinterpret_cast<const uint4 *> (in);
  const size_t vectors = n / 16;
  const size_t per_step = (size_t) T * V;
  const size_t grid_step = gridDim.x * per_step;
  auto count_word = [&] (unsigned w) {
    atomicAdd (reinterpret_cast<unsigned *> (base_ptr + (((w << 7) & 0x7F80u) | lane4)), 1u);
    atomicAdd (reinterpret_cast<unsigned *> (base_ptr + (((w >> 1) & 0x7F80u) | lc1)), 1u);
    atomicAdd (reinterpret_cast<unsigned *> (base_ptr + (((w >> 9) & 0x7F80u) | lc2)), 1u);
    atomicAdd (reinterpret_cast<unsigned *> (base_ptr + (((w >> 17) & 0x7F80u) | lc3)), 1u);
  };
  auto load = [&] (size_t base, uint4 (&q)[V]) {
#pragma unroll
    for (int k = 0; k < V; k++)
      {
        size_t v = base + k * T + threadIdx.x;
        q[k] = v < vectors ? __ldcs (&vec[v]) : make_uint4 (0, 0, 0, 0);
      }
  };
  uint4 q[V];
  size_t base = blockIdx.x * per_step;
  load (base, q);
  for (; base < vectors; base += grid_step)
    {
      uint4 nx[V];
      load (base + grid_step, nx);
#pragma unroll
      for (int k = 0; k < V; k++)
        if (base + k * T + threadIdx.x < vectors)
          {
            count_word (q[k].x);
            count_word (q[k].y);
            count_word (q[k].z);
            count_word (q[k].w);
          }
#pragma unroll
      for (int k = 0; k < V; k++)
        q[k] = nx[k];
    }
  __syncthreads ();
  for (int bin = threadIdx.x; bin < 1024; bin += T)
    {
      unsigned sum = 0;
      for (int l = 0; l < 32; l++)
        sum += sh[(bin << 5) | ((l + bin) & 31)];
      if (sum)
        atomicAdd (&bins[bin], sum);
    }
}

// ---- issue 8: all slices in one launch; the S blocks of a group read the same vectors at about
// the same time, so that HBM is read once and L2 serves the other S - 1 reads. -----------------
template <int T>
__global__ void
__launch_bounds__ (T) cosliced16 (const uint16_t *__restrict__ in, size_t n, int shift, int bins,
                                  int slice, int S, unsigned *out)
{
  extern __shared__ unsigned table[];
  constexpr int V = 4;
  const int s = blockIdx.x % S, g = blockIdx.x / S, G = gridDim.x / S;
  const int lo = s * slice;
  const int my_slice = bins - lo < slice ? bins - lo : slice;
  for (int i = threadIdx.x; i < 4 * my_slice; i += T)
    table[i] = 0;
  __syncthreads ();
  auto count = [&] (int c, unsigned b) {
    const unsigned at = b - (unsigned) lo;
    if (at < (unsigned) my_slice)
      atomicAdd (&table[c * my_slice + at], 1u);
  };
  const uint4 *vec = reinterpret_cast<const uint4 *> (in);
  const size_t vectors = n / 8;
  const size_t per_step = (size_t) T * V;
  const size_t grid_step = G * per_step;
  auto load = [&] (size_t base, uint4 (&q)[V]) {
#pragma unroll
    for (int k = 0; k < V; k++)
      {
        size_t v = base + k * T + threadIdx.x;
        q[k] = v < vectors ? __ldcg (&vec[v]) : make_uint4 (0, 0, 0, 0);
      }
  };
  uint4 q[V];
  size_t base = g * per_step;
  load (base, q);
  for (; base < vectors; base += grid_step)
    {
      uint4 nx[V];
      load (base + grid_step, nx);
#pragma unroll
      for (int k = 0; k < V; k++)
        if (base + k * T + threadIdx.x < vectors)
          {
            const unsigned w[4] = { q[k].x, q[k].y, q[k].z, q[k].w };
#pragma unroll
            for (int j = 0; j < 4; j++)
              {
                count ((2 * j) & 3, (w[j] & 0xFFFFu) >> shift);
                count ((2 * j + 1) & 3, (w[j] >> 16) >> shift);
              }
          }
#pragma unroll
      for (int k = 0; k < V; k++)
        q[k] = nx[k];
    }
  __syncthreads ();
  for (int i = threadIdx.x; i < 4 * my_slice; i += T)
    if (table[i])
      atomicAdd (&out[(i / my_slice) * bins + lo + i % my_slice], table[i]);
}

// ---- issue 8: 16-bit counters in pairs, all slices in one launch.  An increment that wraps a
// counter is seen in the atomic's old value; that thread moves 2^16 to the global table and
// takes the carry back out of the neighbour.  A warp whose 32 words are equal adds 32 at once.
template <int T>
__global__ void
__launch_bounds__ (T) conarrow16 (const uint16_t *__restrict__ in, size_t n, int shift, int bins,
                                  int slice, int S, unsigned *out)
{
  extern __shared__ unsigned table[];
  constexpr int V = 4;
  const int s = blockIdx.x % S, g = blockIdx.x / S, G = gridDim.x / S;
  const int lo = s * slice;
  const int my_slice = bins - lo < slice ? bins - lo : slice;
  const int counters = 4 * my_slice;
  const int words = (counters + 1) / 2;
  for (int i = threadIdx.x; i < words; i += T)
    table[i] = 0;
  __syncthreads ();
  auto global_index = [&] (unsigned i) { return (i / my_slice) * bins + lo + i % my_slice; };
  /* Adds inc (1 or 32) to counter i and repairs a wrap. */
  auto add = [&] (unsigned i, unsigned inc) -> unsigned {
    return atomicAdd (&table[i >> 1], inc << (16 * (i & 1u)));
  };
  auto repair = [&] (unsigned i, unsigned inc, unsigned old) {
    const unsigned half = i & 1u;
    const unsigned before = (old >> (16 * half)) & 0xFFFFu;
    if (before + inc <= 0xFFFFu)
      return;
    atomicAdd (&out[global_index (i)], 65536u);
    if (half == 0)
      {
        /* The low counter carried into the high one: take the carry back. */
        if (old + inc < old)
          atomicAdd (&out[global_index (i + 1)], 65536u);
        const unsigned was = atomicSub (&table[i >> 1], 0x10000u);
        if (was < 0x10000u)
          atomicSub (&out[global_index (i + 1)], 65536u);
      }
  };
  auto count_word = [&] (unsigned w, int c0, bool valid) {
    const unsigned b0 = (w & 0xFFFFu) >> shift, b1 = (w >> 16) >> shift;
    const unsigned a0 = b0 - (unsigned) lo, a1 = b1 - (unsigned) lo;
    const unsigned i0 = c0 * my_slice + a0, i1 = (c0 + 1) * my_slice + a1;
    const bool h0 = valid && a0 < (unsigned) my_slice, h1 = valid && a1 < (unsigned) my_slice;
    if (__all_sync (0xFFFFFFFFu, valid && w == __shfl_sync (0xFFFFFFFFu, w, 0)))
      {
        if ((threadIdx.x & 31) == 0)
          {
            if (h0)
              repair (i0, 32, add (i0, 32));
            if (h1)
              repair (i1, 32, add (i1, 32));
          }
        return;
      }
    unsigned o0 = 0, o1 = 0;
    if (h0)
      o0 = add (i0, 1);
    if (h1)
      o1 = add (i1, 1);
    if (h0)
      repair (i0, 1, o0);
    if (h1)
      repair (i1, 1, o1);
  };
  const uint4 *vec = reinterpret_cast<const uint4 *> (in);
  const size_t vectors = n / 8;
  const size_t per_step = (size_t) T * V;
  const size_t grid_step = G * per_step;
  auto load = [&] (size_t base, uint4 (&q)[V]) {
#pragma unroll
    for (int k = 0; k < V; k++)
      {
        size_t v = base + k * T + threadIdx.x;
        q[k] = v < vectors ? __ldcg (&vec[v]) : make_uint4 (0xFFFFFFFFu, 0, 0, 0);
      }
  };
  uint4 q[V];
  size_t base = g * per_step;
  load (base, q);
  for (; base < vectors; base += grid_step)
    {
      uint4 nx[V];
      load (base + grid_step, nx);
#pragma unroll
      for (int k = 0; k < V; k++)
        {
          /* Whole warps stay together for the shuffle: past the end, lanes count nothing. */
          const bool valid = base + k * T + threadIdx.x < vectors;
          const uint4 v = valid ? q[k] : make_uint4 (0, 0, 0, 0);
          if (__any_sync (0xFFFFFFFFu, valid))
            {
              count_word (v.x, 0, valid);
              count_word (v.y, 2, valid);
              count_word (v.z, 0, valid);
              count_word (v.w, 2, valid);
            }
        }
#pragma unroll
      for (int k = 0; k < V; k++)
        q[k] = nx[k];
    }
  __syncthreads ();
  for (int i = threadIdx.x; i < words; i += T)
    {
      const unsigned w = table[i];
      if (w & 0xFFFFu)
        atomicAdd (&out[global_index (2 * i)], w & 0xFFFFu);
      if ((w >> 16) && 2 * i + 1 < counters)
        atomicAdd (&out[global_index (2 * i + 1)], w >> 16);
    }
}

// ---- issue 8: 16-bit counters in pairs, all slices in one launch, with a scan every K steps that
// moves 2^15 out of every counter that reached it (no counter can gain 2^15 between scans).
template <int T>
__global__ void
__launch_bounds__ (T) coscan16 (const uint16_t *__restrict__ in, size_t n, int shift, int bins,
                                int slice, int S, int scan_every, unsigned *out)
{
  extern __shared__ unsigned table[];
  constexpr int V = 4;
  const int g = blockIdx.x / S, G = gridDim.x / S;
  const int lo = (blockIdx.x % S) * slice;
  const int width = bins - lo < slice ? bins - lo : slice;
  const int counters = 4 * width;
  const int words = (counters + 1) / 2;
  for (int i = threadIdx.x; i < words; i += T)
    table[i] = 0;
  __syncthreads ();
  auto global_index = [&] (unsigned i) { return (i / width) * bins + lo + i % width; };
  auto count = [&] (int c, unsigned b) {
    const unsigned at = b - (unsigned) lo;
    if (at < (unsigned) width)
      {
        const unsigned i = c * width + at;
        atomicAdd (&table[i >> 1], 1u << ((i & 1u) << 4));
      }
  };
  auto scan = [&] () {
    __syncthreads ();
    for (int i = threadIdx.x; i < words; i += T)
      {
        const unsigned w = table[i];
        if (w & 0x80008000u)
          {
            table[i] = w & 0x7FFF7FFFu;
            if (w & 0x8000u)
              atomicAdd (&out[global_index (2 * i)], 0x8000u);
            if (w & 0x80000000u)
              atomicAdd (&out[global_index (2 * i + 1)], 0x8000u);
          }
      }
    __syncthreads ();
  };
  const uint4 *vec = reinterpret_cast<const uint4 *> (in);
  const size_t vectors = n / 8;
  const size_t per_step = (size_t) T * V;
  const size_t grid_step = G * per_step;
  auto load = [&] (size_t base, uint4 (&q)[V]) {
#pragma unroll
    for (int k = 0; k < V; k++)
      {
        size_t v = base + k * T + threadIdx.x;
        q[k] = v >= vectors ? make_uint4 (0, 0, 0, 0)
               : S == 1     ? __ldcs (&vec[v])
                            : __ldcg (&vec[v]);
      }
  };
  uint4 q[V];
  size_t base = g * per_step;
  load (base, q);
  int steps = 0;
  for (; base < vectors; base += grid_step)
    {
      uint4 nx[V];
      load (base + grid_step, nx);
#pragma unroll
      for (int k = 0; k < V; k++)
        if (base + k * T + threadIdx.x < vectors)
          {
            const unsigned w[4] = { q[k].x, q[k].y, q[k].z, q[k].w };
#pragma unroll
            for (int j = 0; j < 4; j++)
              {
                count ((2 * j) & 3, (w[j] & 0xFFFFu) >> shift);
                count ((2 * j + 1) & 3, (w[j] >> 16) >> shift);
              }
          }
      if (++steps == scan_every)
        {
          scan ();
          steps = 0;
        }
#pragma unroll
      for (int k = 0; k < V; k++)
        q[k] = nx[k];
    }
  __syncthreads ();
  for (int i = threadIdx.x; i < words; i += T)
    {
      const unsigned w = table[i];
      if (w & 0xFFFFu)
        atomicAdd (&out[global_index (2 * i)], w & 0xFFFFu);
      if ((w >> 16) && 2 * i + 1 < counters)
        atomicAdd (&out[global_index (2 * i + 1)], w >> 16);
    }
}

// ---- timing --------------------------------------------------------------------------------
template <typename F>
float
time_median (F launch, int reps)
{
  std::vector<float> t;
  cudaEvent_t a, b;
  CK (cudaEventCreate (&a));
  CK (cudaEventCreate (&b));
  launch ();
  launch ();
  CK (cudaDeviceSynchronize ());
  for (int r = 0; r < reps; r++)
    {
      CK (cudaEventRecord (a));
      launch ();
      CK (cudaEventRecord (b));
      CK (cudaEventSynchronize (b));
      CK (cudaGetLastError ());
      float ms;
      CK (cudaEventElapsedTime (&ms, a, b));
      t.push_back (ms);
    }
  std::sort (t.begin (), t.end ());
  return t[t.size () / 2];
}

static bool
same (const unsigned *d_a, const unsigned *d_b, int count)
{
  std::vector<unsigned> a (count), b (count);
  CK (cudaMemcpy (a.data (), d_a, count * 4, cudaMemcpyDeviceToHost));
  CK (cudaMemcpy (b.data (), d_b, count * 4, cudaMemcpyDeviceToHost));
  return a == b;
}

int
main (int argc, char **argv)
{
  const char *only = argc > 1 ? argv[1] : "all";
  cudaDeviceProp prop;
  CK (cudaGetDeviceProperties (&prop, 0));
  const int sms = prop.multiProcessorCount;
  printf ("%s, %d SMs, optin smem %zu\n", prop.name, sms, prop.sharedMemPerBlockOptin);
  const char *kinds[] = { "noise", "photo", "flat" };
  unsigned *sink, *bins, *ref, *gtab;
  CK (cudaMalloc (&sink, 4));
  CK (cudaMalloc (&bins, 4 * 65536 * 4));
  CK (cudaMalloc (&ref, 4 * 65536 * 4));
  CK (cudaMalloc (&gtab, 4096 * 1024 * 4));
  CK (cudaMemset (gtab, 0, 4096 * 1024 * 4));
  const int reps = 15;

  if (!strcmp (only, "all") || !strcmp (only, "8"))
    {
      const int side = 16384;
      const size_t n = (size_t) side * side * 4;
      uint8_t *img;
      CK (cudaMalloc (&img, n));
      const int smem = 4 * 256 * 32 * 4;
      CK (cudaFuncSetAttribute (wide8<false, 0>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                smem));
      CK (cudaFuncSetAttribute (wide8<true, 0>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
      CK (cudaFuncSetAttribute (wide8<false, 1>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                smem));
      CK (cudaFuncSetAttribute (wide8<false, 2>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                smem));
      CK (cudaFuncSetAttribute (wide8<false, 4>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                smem));
      CK (cudaFuncSetAttribute (wide8<true, 2>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
      CK (cudaFuncSetAttribute (wide8<true, 4>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
      for (int kind = 0; kind < 3; kind++)
        {
          make8<<<sms * 8, 256>>> (reinterpret_cast<uint32_t *> (img), side, kind);
          CK (cudaMemset (ref, 0, 4096));
          ref8<<<sms * 8, 256>>> (img, n, ref);
          CK (cudaDeviceSynchronize ());
          float ro = time_median ([&] { read_only<<<sms * 8, 256>>> (img, n, sink); }, reps);
          printf ("8-bit %s: read-only %.4f ms\n", kinds[kind], ro);
          auto run = [&] (const char *name, auto kernel) {
            auto go = [&] {
              cudaMemsetAsync (bins, 0, 4096);
              kernel<<<sms, 1024, smem>>> (img, n, bins, gtab);
            };
            go ();
            CK (cudaDeviceSynchronize ());
            bool ok = same (bins, ref, 1024);
            float t = time_median (go, reps);
            printf ("  %-22s %.4f ms  %5.1f %%  %s\n", name, t, 100 * ro / t, ok ? "ok" : "WRONG");
          };
          run ("wide", wide8<false, 0>);
          run ("wide+rle", wide8<true, 0>);
          run ("wide+l2/16", wide8<false, 1>);
          run ("wide+l2/32", wide8<false, 2>);
          run ("wide+l2/64", wide8<false, 4>);
          run ("wide+rle+l2/32", wide8<true, 2>);
          run ("wide+rle+l2/64", wide8<true, 4>);
        }
      CK (cudaFree (img));
    }

  if (!strcmp (only, "all") || !strcmp (only, "16"))
    {
      const int side = 8192;
      const size_t samples = (size_t) side * side * 4;
      uint16_t *img;
      CK (cudaMalloc (&img, samples * 2));
      for (int kind = 0; kind < 3; kind++)
        {
          make16<<<sms * 8, 256>>> (img, side, kind);
          CK (cudaDeviceSynchronize ());
          float ro = time_median (
              [&] {
                read_only<<<sms * 8, 256>>> (reinterpret_cast<uint8_t *> (img), samples * 2, sink);
              },
              reps);
          printf ("16-bit %s: read-only %.4f ms\n", kinds[kind], ro);
          for (int bins_n : { 4096, 65536 })
            {
              const int shift = bins_n == 4096 ? 4 : 0;
              CK (cudaMemset (ref, 0, 4 * bins_n * 4));
              ref16<<<sms * 8, 256>>> (img, samples, shift, bins_n, ref);
              CK (cudaDeviceSynchronize ());
              auto check_time = [&] (const char *name, auto go) {
                go ();
                CK (cudaDeviceSynchronize ());
                CK (cudaGetLastError ());
                bool ok = same (bins, ref, 4 * bins_n);
                float t = time_median (go, reps);
                printf ("  %5d %-26s %.4f ms  %5.2fx read-only  %s\n", bins_n, name, t, t / ro,
                        ok ? "ok" : "WRONG");
              };
              if (bins_n == 4096)
                {
                  const int smem = 4 * 4096 * 4;
                  auto sh = [&] (const char *name, auto kernel, int T) {
                    CK (cudaFuncSetAttribute (kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                              smem));
                    int per_sm = 0;
                    CK (cudaOccupancyMaxActiveBlocksPerMultiprocessor (&per_sm, kernel, T, smem));
                    check_time (name, [&] {
                      cudaMemsetAsync (bins, 0, 4 * bins_n * 4);
                      kernel<<<sms * per_sm, T, smem>>> (img, samples, shift, bins_n, bins);
                    });
                  };
                  sh ("shared T1024", shared16<1024, false>, 1024);
                  sh ("shared T1024 rle", shared16<1024, true>, 1024);
                  sh ("shared T512 rle", shared16<512, true>, 512);
                  sh ("shared T512", shared16<512, false>, 512);
                }
              else
                {
                  auto cl = [&] (const char *name, auto kernel, int T, int R) {
                    const int smem = 4 * 65536 / R * 4;
                    CK (cudaFuncSetAttribute (kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                              smem));
                    CK (cudaFuncSetAttribute (kernel,
                                              cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
                    cudaLaunchConfig_t cfg = {};
                    cudaLaunchAttribute attr[1];
                    attr[0].id = cudaLaunchAttributeClusterDimension;
                    attr[0].val.clusterDim.x = R;
                    attr[0].val.clusterDim.y = 1;
                    attr[0].val.clusterDim.z = 1;
                    cfg.blockDim = dim3 (T);
                    cfg.dynamicSmemBytes = smem;
                    cfg.attrs = attr;
                    cfg.numAttrs = 1;
                    cfg.gridDim = dim3 (R);
                    int clusters = 0;
                    cudaError_t e = cudaOccupancyMaxActiveClusters (&clusters, kernel, &cfg);
                    if (e != cudaSuccess || clusters == 0)
                      {
                        printf ("  %5d %-26s cannot run: %s, %d clusters\n", bins_n, name,
                                cudaGetErrorString (e), clusters);
                        cudaGetLastError ();
                        return;
                      }
                    cfg.gridDim = dim3 (clusters * R);
                    printf ("  (%s: %d clusters of %d)\n", name, clusters, R);
                    check_time (name, [&] {
                      cudaMemsetAsync (bins, 0, 4 * bins_n * 4);
                      CK (cudaLaunchKernelEx (&cfg, kernel, (const uint16_t *) img, samples, bins));
                    });
                  };
                  cl ("cluster8 T1024 rle", cluster16<1024, 8, true>, 1024, 8);
                  cl ("cluster8 T1024", cluster16<1024, 8, false>, 1024, 8);
                  cl ("cluster8 T512 rle", cluster16<512, 8, true>, 512, 8);
                  cl ("cluster16 T512 rle", cluster16<512, 16, true>, 512, 16);
                  cl ("cluster16 T1024 rle", cluster16<1024, 16, true>, 1024, 16);
                }
            }
        }
      CK (cudaFree (img));
    }

  if (!strcmp (only, "2"))
    {
      {
        const int side = 16384;
        const size_t n = (size_t) side * side * 4;
        uint8_t *img;
        CK (cudaMalloc (&img, n));
        const int smem = 4 * 256 * 32 * 4;
        CK (cudaFuncSetAttribute (wide8d<0>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
        CK (cudaFuncSetAttribute (wide8d<1>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
        CK (cudaFuncSetAttribute (wide8d<2>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
        for (int kind = 0; kind < 3; kind += 2)
          {
            make8<<<sms * 8, 256>>> (reinterpret_cast<uint32_t *> (img), side, kind);
            CK (cudaDeviceSynchronize ());
            float ro = time_median ([&] { read_only<<<sms * 8, 256>>> (img, n, sink); }, reps);
            printf ("8-bit %s: read-only %.4f ms\n", kinds[kind], ro);
            auto run = [&] (const char *name, auto kernel) {
              float t
                  = time_median ([&] { kernel<<<sms, 1024, smem>>> (img, n, bins, gtab); }, reps);
              printf ("  %-22s %.4f ms  %5.1f %%\n", name, t, 100 * ro / t);
            };
            run ("atomicAdd", wide8d<0>);
            run ("store (timing only)", wide8d<1>);
            run ("red.shared", wide8d<2>);
          }
        CK (cudaFree (img));
      }
      const int side = 8192;
      const size_t samples = (size_t) side * side * 4;
      uint16_t *img;
      CK (cudaMalloc (&img, samples * 2));
      const int limit = (int) prop.sharedMemPerBlockOptin;
      for (int kind = 0; kind < 3; kind++)
        {
          make16<<<sms * 8, 256>>> (img, side, kind);
          CK (cudaDeviceSynchronize ());
          float ro = time_median (
              [&] {
                read_only<<<sms * 8, 256>>> (reinterpret_cast<uint8_t *> (img), samples * 2, sink);
              },
              reps);
          printf ("16-bit %s: read-only %.4f ms\n", kinds[kind], ro);
          for (int bins_n : { 16384, 65536 })
            {
              const int shift = bins_n == 16384 ? 2 : 0;
              CK (cudaMemset (ref, 0, 4 * bins_n * 4));
              ref16<<<sms * 8, 256>>> (img, samples, shift, bins_n, ref);
              CK (cudaDeviceSynchronize ());
              auto sl = [&] (const char *name, auto kernel, int T, bool narrow) {
                const int bytes_per = narrow ? 2 : 4;
                const int max_slice = limit / (4 * bytes_per) / 2 * 2;
                const int passes = (bins_n + max_slice - 1) / max_slice;
                const int slice = ((bins_n + passes - 1) / passes + 1) / 2 * 2;
                const int smem = (4 * slice * bytes_per + 3) / 4 * 4;
                CK (cudaFuncSetAttribute (kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          smem));
                int per_sm = 0;
                CK (cudaOccupancyMaxActiveBlocksPerMultiprocessor (&per_sm, kernel, T, smem));
                auto go = [&] {
                  cudaMemsetAsync (bins, 0, 4 * bins_n * 4);
                  for (int p = 0; p < passes; p++)
                    {
                      const int lo = p * slice;
                      const int s = bins_n - lo < slice ? bins_n - lo : slice;
                      kernel<<<sms * per_sm, T, smem>>> (img, samples, shift, bins_n, lo, s, bins);
                    }
                };
                go ();
                CK (cudaDeviceSynchronize ());
                CK (cudaGetLastError ());
                bool ok = same (bins, ref, 4 * bins_n);
                float t = time_median (go, reps);
                printf (
                    "  %5d %-14s %d passes of %5d, %d blocks/SM: %.4f ms  %5.2fx read-only  %s\n",
                    bins_n, name, passes, slice, per_sm, t, t / ro, ok ? "ok" : "WRONG");
              };
              sl ("narrow T1024", slice16<1024, true>, 1024, true);
              sl ("narrow T512", slice16<512, true>, 512, true);
              sl ("sliced32 T1024", slice16<1024, false>, 1024, false);
            }
        }
      CK (cudaFree (img));
    }

  if (!strcmp (only, "3"))
    {
      {
        const int side = 16384;
        const size_t n = (size_t) side * side * 4;
        uint8_t *img;
        CK (cudaMalloc (&img, n));
        const int smem = 4 * 256 * 32 * 4;
        CK (cudaFuncSetAttribute (wide8d<0>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
        CK (cudaFuncSetAttribute (wide8f, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
        for (int kind = 0; kind < 3; kind++)
          {
            make8<<<sms * 8, 256>>> (reinterpret_cast<uint32_t *> (img), side, kind);
            CK (cudaMemset (ref, 0, 4096));
            ref8<<<sms * 8, 256>>> (img, n, ref);
            CK (cudaDeviceSynchronize ());
            float ro = time_median ([&] { read_only<<<sms * 8, 256>>> (img, n, sink); }, reps);
            printf ("8-bit %s: read-only %.4f ms\n", kinds[kind], ro);
            auto run = [&] (const char *name, auto kernel) {
              auto go = [&] {
                cudaMemsetAsync (bins, 0, 4096);
                kernel<<<sms, 1024, smem>>> (img, n, bins, gtab);
              };
              go ();
              CK (cudaDeviceSynchronize ());
              bool ok = same (bins, ref, 1024);
              float t = time_median (go, reps);
              printf ("  %-22s %.4f ms  %5.1f %%  %s\n", name, t, 100 * ro / t,
                      ok ? "ok" : "WRONG");
            };
            run ("wide (current)", wide8d<0>);
            run ("wide, 2 ALU a sample", wide8f);
            run ("wide (current)", wide8d<0>);
            run ("wide, 2 ALU a sample", wide8f);
          }
        CK (cudaFree (img));
      }
      const int side = 8192;
      const size_t samples = (size_t) side * side * 4;
      uint16_t *img;
      CK (cudaMalloc (&img, samples * 2));
      const int limit = (int) prop.sharedMemPerBlockOptin;
      for (int kind = 0; kind < 3; kind++)
        {
          make16<<<sms * 8, 256>>> (img, side, kind);
          CK (cudaDeviceSynchronize ());
          float ro = time_median (
              [&] {
                read_only<<<sms * 8, 256>>> (reinterpret_cast<uint8_t *> (img), samples * 2, sink);
              },
              reps);
          printf ("16-bit %s: read-only %.4f ms\n", kinds[kind], ro);
          for (int bins_n : { 16384, 65536 })
            {
              const int shift = bins_n == 16384 ? 2 : 0;
              CK (cudaMemset (ref, 0, 4 * bins_n * 4));
              ref16<<<sms * 8, 256>>> (img, samples, shift, bins_n, ref);
              CK (cudaDeviceSynchronize ());
              for (int T : { 1024, 512 })
                {
                  const int max_slice = limit / 16;
                  const int S = (bins_n + max_slice - 1) / max_slice;
                  const int slice = (bins_n + S - 1) / S;
                  const int smem = 4 * slice * 4;
                  auto kernel = T == 1024 ? cosliced16<1024> : cosliced16<512>;
                  CK (cudaFuncSetAttribute (kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            smem));
                  int per_sm = 0;
                  CK (cudaOccupancyMaxActiveBlocksPerMultiprocessor (&per_sm, kernel, T, smem));
                  const int grid = sms * per_sm / S * S;
                  auto go = [&] {
                    cudaMemsetAsync (bins, 0, 4 * bins_n * 4);
                    kernel<<<grid, T, smem>>> (img, samples, shift, bins_n, slice, S, bins);
                  };
                  go ();
                  CK (cudaDeviceSynchronize ());
                  CK (cudaGetLastError ());
                  bool ok = same (bins, ref, 4 * bins_n);
                  float t = time_median (go, reps);
                  printf ("  %5d co-sliced T%d: %d slices of %5d, %d blocks: %.4f ms  %5.2fx "
                          "read-only  %s\n",
                          bins_n, T, S, slice, grid, t, t / ro, ok ? "ok" : "WRONG");
                }
            }
        }
      CK (cudaFree (img));
    }

  if (!strcmp (only, "4"))
    {
      const int side = 8192;
      const size_t samples = (size_t) side * side * 4;
      uint16_t *img;
      CK (cudaMalloc (&img, samples * 2));
      const int limit = (int) prop.sharedMemPerBlockOptin;
      for (int kind = 0; kind < 3; kind++)
        {
          make16<<<sms * 8, 256>>> (img, side, kind);
          CK (cudaDeviceSynchronize ());
          float ro = time_median (
              [&] {
                read_only<<<sms * 8, 256>>> (reinterpret_cast<uint8_t *> (img), samples * 2, sink);
              },
              reps);
          printf ("16-bit %s: read-only %.4f ms\n", kinds[kind], ro);
          for (int bins_n : { 4096, 16384, 65536 })
            {
              const int shift = bins_n == 4096 ? 4 : bins_n == 16384 ? 2 : 0;
              CK (cudaMemset (ref, 0, 4 * bins_n * 4));
              ref16<<<sms * 8, 256>>> (img, samples, shift, bins_n, ref);
              CK (cudaDeviceSynchronize ());
              const int T = 1024;
              const int max_slice = limit / 8 / 2 * 2;
              const int S = (bins_n + max_slice - 1) / max_slice;
              const int slice = ((bins_n + S - 1) / S + 1) / 2 * 2;
              const int smem = 4 * slice * 2;
              auto kernel = conarrow16<1024>;
              CK (cudaFuncSetAttribute (kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
              int per_sm = 0;
              CK (cudaOccupancyMaxActiveBlocksPerMultiprocessor (&per_sm, kernel, T, smem));
              const int grid = sms * per_sm / S * S;
              auto go = [&] {
                cudaMemsetAsync (bins, 0, 4 * bins_n * 4);
                kernel<<<grid, T, smem>>> (img, samples, shift, bins_n, slice, S, bins);
              };
              go ();
              CK (cudaDeviceSynchronize ());
              CK (cudaGetLastError ());
              bool ok = same (bins, ref, 4 * bins_n);
              float t = time_median (go, reps);
              printf ("  %5d co-narrow T%d: %d slices of %5d, %d blocks: %.4f ms  %5.2fx read-only "
                      " %s\n",
                      bins_n, T, S, slice, grid, t, t / ro, ok ? "ok" : "WRONG");
            }
        }
      // A wrap stress test: every sample in one bin, 2^29 samples a channel, 65536 bins.
      CK (cudaFree (img));
    }

  if (!strcmp (only, "5"))
    {
      const int side = 8192;
      const size_t samples = (size_t) side * side * 4;
      uint16_t *img;
      CK (cudaMalloc (&img, samples * 2));
      const int limit = (int) prop.sharedMemPerBlockOptin;
      for (int kind = 0; kind < 3; kind++)
        {
          make16<<<sms * 8, 256>>> (img, side, kind);
          CK (cudaDeviceSynchronize ());
          float ro = time_median (
              [&] {
                read_only<<<sms * 8, 256>>> (reinterpret_cast<uint8_t *> (img), samples * 2, sink);
              },
              reps);
          printf ("16-bit %s: read-only %.4f ms\n", kinds[kind], ro);
          for (int bins_n : { 16384, 65536 })
            {
              const int shift = bins_n == 16384 ? 2 : 0;
              CK (cudaMemset (ref, 0, 4 * bins_n * 4));
              ref16<<<sms * 8, 256>>> (img, samples, shift, bins_n, ref);
              CK (cudaDeviceSynchronize ());
              for (int T : { 1024, 512 })
                for (int S_extra : { 0, 1 })
                  {
                    const int max_slice = limit / 8 / 2 * 2;
                    const int S = (bins_n + max_slice - 1) / max_slice + S_extra;
                    const int slice = ((bins_n + S - 1) / S + 1) / 2 * 2;
                    const int smem = 4 * slice * 2;
                    const int scan_every = 32768 / (T * 8);
                    auto kernel = T == 1024 ? coscan16<1024> : coscan16<512>;
                    CK (cudaFuncSetAttribute (kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                              smem));
                    int per_sm = 0;
                    CK (cudaOccupancyMaxActiveBlocksPerMultiprocessor (&per_sm, kernel, T, smem));
                    const int grid = sms * per_sm / S * S;
                    auto go = [&] {
                      cudaMemsetAsync (bins, 0, 4 * bins_n * 4);
                      kernel<<<grid, T, smem>>> (img, samples, shift, bins_n, slice, S, scan_every,
                                                 bins);
                    };
                    go ();
                    CK (cudaDeviceSynchronize ());
                    CK (cudaGetLastError ());
                    bool ok = same (bins, ref, 4 * bins_n);
                    float t = time_median (go, reps);
                    printf ("  %5d co-scan T%d: %d slices of %5d, %d blocks (%d/SM), scan every "
                            "%d: %.4f ms  %5.2fx read-only  %s\n",
                            bins_n, T, S, slice, grid, per_sm, scan_every, t, t / ro,
                            ok ? "ok" : "WRONG");
                  }
            }
        }
      CK (cudaFree (img));
    }
  printf ("done\n");
  return 0;
}
