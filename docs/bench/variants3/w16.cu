// Issue 8 variants, third session: 16384 and 65536 bins of 16-bit RGBA, 8192^2, kept as they
// ran: w16-run1.txt (the first version: 32-bit linear slices and 16-bit channel pairs), w16-run2.txt
// (the flags below), w16-run3.txt (planar slices added; the flags loop then ran "plain" alone).
// Not part of the build; common.inc holds the helpers of ../variants/variants.cu.
// nvcc -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -o w16 w16.cu
#include "common.inc"
#include "wide_kernels_session2.cuh" // the kernels as session 2 left them ("today")

__global__ void
refc (const uint16_t *in, size_t n, int C, int shift, int bins, unsigned *out)
{
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * (size_t) blockDim.x)
    atomicAdd (&out[(i % C) * bins + (in[i] >> shift)], 1u);
}

// Linear slices: the table is P rows of `bins` words (NARROW: row r holds channels 2r and 2r+1
// in its low and high halves, so that the increment is a constant at each call site; else row
// r = channel r), cut into `slices` runs of `width` words.  A block skips rows its run misses.
// FLAGS: 1 = warp-uniform fast path for the high halves; 2 = no scan (timing only, wrong on
// hot bins); 4 = every increment a 1 (timing only, wrong)
template <int C, int T, bool NARROW, int FLAGS = 0>
__global__ void __launch_bounds__ (T)
    lin_sliced (const uint16_t *__restrict__ in, size_t n, int shift, int bins, int width,
                int slices, int scan_every, unsigned *out)
{
  extern __shared__ unsigned table[];
  constexpr int P = NARROW ? (C + 1) / 2 : C;
  constexpr int V = 4;
  const int group = blockIdx.x / slices, groups = gridDim.x / slices;
  const int lo = (blockIdx.x % slices) * width;
  const int words = min (width, P * bins - lo);
  bool touches[P];
#pragma unroll
  for (int r = 0; r < P; r++)
    touches[r] = r * bins < lo + words && (r + 1) * bins > lo;
  for (int i = threadIdx.x; i < words; i += T)
    table[i] = 0;
  __syncthreads ();

  auto count = [&] (int c, unsigned b) {
    const int r = NARROW ? c >> 1 : c;
    if (!touches[r])
      return;
    const unsigned at = (unsigned) (r * bins - lo) + b;
    if (NARROW && (c & 1) && (FLAGS & 1))
      {
        /* A flat colour: every lane on one counter.  One add for the warp instead of 32
         * increments that queue on one address. */
        const unsigned lead = __shfl_sync (0xFFFFFFFFu, at, 0);
        if (__all_sync (0xFFFFFFFFu, at == lead))
          {
            if ((threadIdx.x & 31) == 0 && at < (unsigned) words)
              atomicAdd (&table[at], 32u << 16);
            return;
          }
      }
    if (at < (unsigned) words)
      {
        if (NARROW && (c & 1) && !(FLAGS & 4))
          atomicAdd (&table[at], 0x10000u);
        else
          atomicAdd (&table[at], 1u);
      }
  };
  auto target = [&] (int i, int half) {
    const int w = lo + i, r = w / bins;
    return (NARROW ? 2 * r + half : r) * bins + w % bins;
  };
  auto scan = [&] () {
    __syncthreads ();
    for (int i = threadIdx.x; i < words; i += T)
      {
        const unsigned w = table[i];
        if (w & 0xF000F000u)
          {
            unsigned keep = w;
            if (w & 0xF000u)
              {
                atomicAdd (&out[target (i, 0)], w & 0xFFFFu);
                keep &= 0xFFFF0000u;
              }
            if (w & 0xF0000000u)
              {
                atomicAdd (&out[target (i, 1)], w >> 16);
                keep &= 0xFFFFu;
              }
            table[i] = keep;
          }
      }
    __syncthreads ();
  };

  const uint4 *vec = reinterpret_cast<const uint4 *> (in);
  const size_t vectors = n / 8;
  const size_t per_step = (size_t) T * V;
  const size_t grid_step = groups * per_step;
  auto load = [&] (size_t base, uint4 (&q)[V]) {
#pragma unroll
    for (int k = 0; k < V; k++)
      {
        const size_t v = base + k * T + threadIdx.x;
        q[k] = v >= vectors ? make_uint4 (0, 0, 0, 0)
               : slices == 1 ? __ldcs (&vec[v])
                             : __ldcg (&vec[v]);
      }
  };
  uint4 q[V];
  size_t base = group * per_step;
  load (base, q);
  int steps = 0;
  for (; base < vectors; base += grid_step)
    {
      uint4 next[V];
      load (base + grid_step, next);
#pragma unroll
      for (int k = 0; k < V; k++)
        {
          const size_t v = base + k * T + threadIdx.x;
          if (!(FLAGS & 1) && v >= vectors)
            continue;
          if ((FLAGS & 1) && __any_sync (0xFFFFFFFFu, v >= vectors))
            {
              if (v >= vectors)
                continue;
              /* the last step: the slow way, without warp votes */
              const int first = C == 3 ? (int) (v % 3) * 2 % 3 : 0;
              const unsigned w4[4] = { q[k].x, q[k].y, q[k].z, q[k].w };
              for (int j = 0; j < 8; j++)
                {
                  const unsigned sample = (w4[j >> 1] >> (16 * (j & 1))) & 0xFFFFu;
                  int c = first + j % C;
                  if (C == 3 && c >= 3)
                    c -= 3;
                  const int r = NARROW ? c >> 1 : c;
                  const unsigned at = (unsigned) (r * bins - lo) + (sample >> shift);
                  if (at < (unsigned) words)
                    atomicAdd (&table[at], NARROW && (c & 1) ? 0x10000u : 1u);
                }
              continue;
            }
          const int first = C == 3 ? (int) (v % 3) * 2 % 3 : 0;
          const unsigned w4[4] = { q[k].x, q[k].y, q[k].z, q[k].w };
#pragma unroll
          for (int j = 0; j < 8; j++)
            {
              const unsigned sample = (w4[j >> 1] >> (16 * (j & 1))) & 0xFFFFu;
              int c = first + j % C;
              if (C == 3 && c >= 3)
                c -= 3;
              count (c, sample >> shift);
            }
        }
      if (NARROW && !(FLAGS & 2) && ++steps == scan_every)
        {
          scan ();
          steps = 0;
        }
#pragma unroll
      for (int k = 0; k < V; k++)
        q[k] = next[k];
    }
  for (size_t i = vectors * 8 + group * (size_t) T + threadIdx.x; i < n; i += groups * (size_t) T)
    {
      const int c = (int) (i % C), r = NARROW ? c >> 1 : c;
      const unsigned at = (unsigned) (r * bins - lo) + ((unsigned) in[i] >> shift);
      if (at < (unsigned) words)
        atomicAdd (&table[at], NARROW && (c & 1) ? 0x10000u : 1u);
    }
  __syncthreads ();
  for (int i = threadIdx.x; i < words; i += T)
    {
      const unsigned w = table[i];
      if (!NARROW)
        {
          if (w)
            atomicAdd (&out[target (i, 0)], w);
        }
      else
        {
          if (w & 0xFFFFu)
            atomicAdd (&out[target (i, 0)], w & 0xFFFFu);
          if (w >> 16)
            atomicAdd (&out[target (i, 1)], w >> 16);
        }
    }
}


// Planar input: C planes of `pixels` samples.  Slice s = (channel s / H, part s % H of its bins);
// groups of C * H blocks walk the same pixels, so each plane is read from memory once and from L2
// H times.
template <int T>
__global__ void __launch_bounds__ (T)
    planar_sliced (const uint16_t *__restrict__ planes, size_t pixels, int C, int shift, int bins,
                   int H, unsigned *out)
{
  extern __shared__ unsigned table[];
  constexpr int V = 4;
  const int S = C * H;
  const int group = blockIdx.x / S, groups = gridDim.x / S;
  const int c = (blockIdx.x % S) / H, h = (blockIdx.x % S) % H;
  const int width = (bins + H - 1) / H;
  const int lo = h * width;
  const int words = min (width, bins - lo);
  for (int i = threadIdx.x; i < words; i += T)
    table[i] = 0;
  __syncthreads ();
  const uint16_t *plane = planes + (size_t) c * pixels;
  const uint4 *vec = reinterpret_cast<const uint4 *> (plane);
  const size_t vectors = pixels / 8;
  const size_t per_step = (size_t) T * V;
  const size_t grid_step = groups * per_step;
  auto load = [&] (size_t base, uint4 (&q)[V]) {
#pragma unroll
    for (int k = 0; k < V; k++)
      {
        const size_t v = base + k * T + threadIdx.x;
        q[k] = v >= vectors ? make_uint4 (0, 0, 0, 0) : H == 1 ? __ldcs (&vec[v]) : __ldcg (&vec[v]);
      }
  };
  uint4 q[V];
  size_t base = group * per_step;
  load (base, q);
  for (; base < vectors; base += grid_step)
    {
      uint4 next[V];
      load (base + grid_step, next);
#pragma unroll
      for (int k = 0; k < V; k++)
        {
          if (base + k * T + threadIdx.x >= vectors)
            continue;
          const unsigned w4[4] = { q[k].x, q[k].y, q[k].z, q[k].w };
#pragma unroll
          for (int j = 0; j < 8; j++)
            {
              const unsigned at = (((w4[j >> 1] >> (16 * (j & 1))) & 0xFFFFu) >> shift) - lo;
              if (at < (unsigned) words)
                atomicAdd (&table[at], 1u);
            }
        }
#pragma unroll
      for (int k = 0; k < V; k++)
        q[k] = next[k];
    }
  for (size_t i = vectors * 8 + group * (size_t) T + threadIdx.x; i < pixels; i += groups * (size_t) T)
    {
      const unsigned at = ((unsigned) plane[i] >> shift) - lo;
      if (at < (unsigned) words)
        atomicAdd (&table[at], 1u);
    }
  __syncthreads ();
  for (int i = threadIdx.x; i < words; i += T)
    if (table[i])
      atomicAdd (&out[c * bins + lo + i], table[i]);
}

__global__ void
to_planar (const uint16_t *in, size_t pixels, uint16_t *planes)
{
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < pixels;
       i += gridDim.x * (size_t) blockDim.x)
    for (int c = 0; c < 4; c++)
      planes[c * pixels + i] = in[4 * i + c];
}

template <int C, bool NARROW, int FLAGS = 0>
float
run_lin (const uint16_t *img, size_t samples, int shift, int bins_n, int S, unsigned *bins,
         int sms, int reps, bool *ok, const unsigned *ref)
{
  constexpr int T = 1024;
  const int P = NARROW ? (C + 1) / 2 : C;
  const int width = (P * bins_n + S - 1) / S;
  const int smem = width * 4;
  auto kernel = lin_sliced<C, T, NARROW, FLAGS>;
  CK (cudaFuncSetAttribute (kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  int per_sm = 0;
  CK (cudaOccupancyMaxActiveBlocksPerMultiprocessor (&per_sm, kernel, T, smem));
  if (per_sm == 0)
    {
      *ok = false;
      return -1;
    }
  const int grid = sms * per_sm / S * S;
  const int per_step = (T * 4 * 8 + C - 1) / C;
  const int scan_every = (61440 - 8) / per_step;
  auto go = [&] {
    cudaMemsetAsync (bins, 0, C * bins_n * 4);
    kernel<<<grid, T, smem>>> (img, samples, shift, bins_n, width, S, scan_every, bins);
  };
  go ();
  CK (cudaDeviceSynchronize ());
  CK (cudaGetLastError ());
  *ok = same (bins, ref, C * bins_n);
  return reps ? time_median (go, reps) : 0;
}

int
main (int argc, char **argv)
{
  setvbuf (stdout, NULL, _IOLBF, 0);
  int reps = argc > 1 ? atoi (argv[1]) : 20;
  cudaDeviceProp p;
  CK (cudaGetDeviceProperties (&p, 0));
  const int sms = p.multiProcessorCount;
  const int limit = (int) p.sharedMemPerBlockOptin;
  printf ("%s, %d SMs, optin smem %d\n", p.name, sms, limit);
  const int side = 8192;
  const size_t samples = (size_t) side * side * 4;
  uint16_t *img;
  unsigned *bins, *ref, *sink;
  CK (cudaMalloc (&img, samples * 2));
  CK (cudaMalloc (&bins, 4 * 65536 * 4));
  CK (cudaMalloc (&ref, 4 * 65536 * 4));
  CK (cudaMalloc (&sink, 4));
  uint16_t *planes;
  CK (cudaMalloc (&planes, samples * 2));
  const char *kinds[] = { "noise", "photo", "flat" };
  for (int kind = 0; kind < 3; kind++)
    {
      make16<<<sms * 8, 256>>> (img, side, kind);
      CK (cudaDeviceSynchronize ());
      float ro = time_median (
          [&] { read_only<<<sms * 8, 256>>> ((const uint8_t *) img, samples * 2, sink); }, reps);
      printf ("16-bit %s: read-only %.4f ms\n", kinds[kind], ro);
      for (int bins_n : { 16384, 65536 })
        {
          const int shift = bins_n == 4096 ? 4 : bins_n == 16384 ? 2 : 0;
          CK (cudaMemset (ref, 0, 4 * bins_n * 4));
          refc<<<sms * 8, 256>>> (img, samples, 4, shift, bins_n, ref);
          CK (cudaDeviceSynchronize ());
          // today's kernel: 32-bit, per-channel bin slices
          {
            const int max_slice = limit / 16;
            const int S = (bins_n + max_slice - 1) / max_slice;
            const int slice = (bins_n + S - 1) / S;
            const int smem = 4 * slice * 4;
            auto kernel = gh::wide_sliced_kernel<4, 1024>;
            CK (cudaFuncSetAttribute (kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
            const int grid = sms / S * S;
            auto go = [&] {
              cudaMemsetAsync (bins, 0, 4 * bins_n * 4);
              kernel<<<grid, 1024, smem>>> (img, samples, shift, bins_n, slice, S, bins);
            };
            go ();
            CK (cudaDeviceSynchronize ());
            bool ok = same (bins, ref, 4 * bins_n);
            float t = time_median (go, reps);
            printf ("  %5d today 32-bit %d slices: %.4f ms %5.2fx %s\n", bins_n, S, t, t / ro,
                    ok ? "ok" : "WRONG");
          }
          const int max32 = limit / 4, max16 = limit / 4;
          const int S32 = (4 * bins_n + max32 - 1) / max32;
          const int S16 = (2 * bins_n + max16 - 1) / max16;
          bool ok;
          float t = run_lin<4, false> (img, samples, shift, bins_n, S32, bins, sms, reps, &ok, ref);
          printf ("  %5d linear 32-bit %d slices: %.4f ms %5.2fx %s\n", bins_n, S32, t, t / ro,
                  ok ? "ok" : "WRONG");
          to_planar<<<sms * 8, 256>>> (img, samples / 4, planes);
          CK (cudaDeviceSynchronize ());
          for (int H : { 1, 2, 3, 4 })
            {
              const int width = (bins_n + H - 1) / H;
              if (width * 4 > limit)
                continue;
              auto kernel = planar_sliced<1024>;
              CK (cudaFuncSetAttribute (kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, width * 4));
              int per_sm = 0;
              CK (cudaOccupancyMaxActiveBlocksPerMultiprocessor (&per_sm, kernel, 1024, width * 4));
              const int S = 4 * H;
              const int grid = sms * per_sm / S * S;
              auto go = [&] {
                cudaMemsetAsync (bins, 0, 4 * bins_n * 4);
                kernel<<<grid, 1024, width * 4>>> (planes, samples / 4, 4, shift, bins_n, H, bins);
              };
              go ();
              CK (cudaDeviceSynchronize ());
              CK (cudaGetLastError ());
              bool okp = same (bins, ref, 4 * bins_n);
              float tp = time_median (go, reps);
              printf ("  %5d planar 32-bit %d slices (%d a channel, %d/SM): %.4f ms %5.2fx %s\n", bins_n, S, H,
                      per_sm, tp, tp / ro, okp ? "ok" : "WRONG");
            }
          const char *names[] = { "plain", "flat fix", "no scan", "flat fix, no scan", "all +1",
                                  "", "all +1, no scan" };
          for (int f : { 0, 1, 2, 3, 4, 6 })
            {
              const int S = S16;
              switch (f)
                {
                case 0: t = run_lin<4, true, 0> (img, samples, shift, bins_n, S, bins, sms, reps, &ok, ref); break;
                case 1: t = run_lin<4, true, 1> (img, samples, shift, bins_n, S, bins, sms, reps, &ok, ref); break;
                case 2: t = run_lin<4, true, 2> (img, samples, shift, bins_n, S, bins, sms, reps, &ok, ref); break;
                case 3: t = run_lin<4, true, 3> (img, samples, shift, bins_n, S, bins, sms, reps, &ok, ref); break;
                case 4: t = run_lin<4, true, 4> (img, samples, shift, bins_n, S, bins, sms, reps, &ok, ref); break;
                default: t = run_lin<4, true, 6> (img, samples, shift, bins_n, S, bins, sms, reps, &ok, ref); break;
                }
              printf ("  %5d linear 16-bit pairs %d slices (%s): %.4f ms %5.2fx %s\n", bins_n, S,
                      names[f], t, t / ro, ok ? "ok" : "WRONG");
            }
        }
      // other channel counts: correctness only, at 65536 bins
      for (int C : { 1, 2, 3 })
        {
          const size_t n = samples - 5; // a tail
          CK (cudaMemset (ref, 0, C * 65536 * 4));
          refc<<<sms * 8, 256>>> (img, n, C, 0, 65536, ref);
          CK (cudaDeviceSynchronize ());
          bool ok16, ok32;
          float t16 = 0, t32 = 0;
          const int S16 = ((C + 1) / 2 * 65536 * 4 + limit - 1) / limit;
          const int S32 = (C * 65536 * 4 + limit - 1) / limit;
          switch (C)
            {
            case 1:
              t16 = run_lin<1, true> (img, n, 0, 65536, S16, bins, sms, reps, &ok16, ref);
              t32 = run_lin<1, false> (img, n, 0, 65536, S32, bins, sms, reps, &ok32, ref);
              break;
            case 2:
              t16 = run_lin<2, true> (img, n, 0, 65536, S16, bins, sms, reps, &ok16, ref);
              t32 = run_lin<2, false> (img, n, 0, 65536, S32, bins, sms, reps, &ok32, ref);
              break;
            default:
              t16 = run_lin<3, true> (img, n, 0, 65536, S16, bins, sms, reps, &ok16, ref);
              t32 = run_lin<3, false> (img, n, 0, 65536, S32, bins, sms, reps, &ok32, ref);
              break;
            }
          printf ("  C=%d 65536: 16-bit pairs %d slices %.4f ms %5.2fx %s; 32-bit %d slices %.4f "
                  "ms %5.2fx %s\n",
                  C, S16, t16, t16 / ro, ok16 ? "ok" : "WRONG", S32, t32, t32 / ro,
                  ok32 ? "ok" : "WRONG");
        }
    }
  printf ("done\n");
  return 0;
}
