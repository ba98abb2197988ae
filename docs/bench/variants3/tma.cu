// Issue 8, third session (kept as it ran last: tma-run4.txt; tma-run1..3 are earlier states of
// the producer loop, tma-run5 the same with test_wait instead of try_wait): slices in a
// cluster, the input multicast by the bulk-copy engine to
// every block of the cluster (read from L2 once a cluster instead of once a slice).
// nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -o tma tma.cu
#include "common.inc"
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void
refc (const uint16_t *in, size_t n, int C, int shift, int bins, unsigned *out)
{
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * (size_t) blockDim.x)
    atomicAdd (&out[(i % C) * bins + (in[i] >> shift)], 1u);
}

__device__ __forceinline__ unsigned
smem (const void *p)
{
  return (unsigned) __cvta_generic_to_shared (p);
}
__device__ __forceinline__ void
mbar_init (uint64_t *b, unsigned count)
{
  asm volatile ("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem (b)), "r"(count) : "memory");
}
__device__ __forceinline__ void
mbar_expect (uint64_t *b, unsigned bytes)
{
  asm volatile ("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem (b)),
                "r"(bytes)
                : "memory");
}
__device__ __forceinline__ void
mbar_wait (uint64_t *b, unsigned parity)
{
  asm volatile ("{\n\t.reg .pred p;\n\t"
                "W%=:\n\t"
                "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%0], %1;\n\t"
                "@!p bra W%=;\n\t}" ::"r"(smem (b)),
                "r"(parity)
                : "memory");
}
__device__ __forceinline__ void
mbar_wait_cta (uint64_t *b, unsigned parity)
{
  asm volatile ("{\n\t.reg .pred p;\n\t"
                "W%=:\n\t"
                "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n\t"
                "@!p bra W%=;\n\t}" ::"r"(smem (b)),
                "r"(parity)
                : "memory");
}
__device__ __forceinline__ void
mbar_arrive_remote_relaxed (uint64_t *b, unsigned rank)
{
  asm volatile ("{\n\t.reg .b32 r;\n\t"
                "mapa.shared::cluster.u32 r, %0, %1;\n\t"
                "mbarrier.arrive.relaxed.cluster.shared::cluster.b64 _, [r];\n\t}" ::"r"(smem (b)),
                "r"(rank)
                : "memory");
}
/* Arrives on the barrier at the same offset in block `rank` of the cluster. */
__device__ __forceinline__ void
mbar_arrive_remote (uint64_t *b, unsigned rank)
{
  asm volatile ("{\n\t.reg .b32 r;\n\t"
                "mapa.shared::cluster.u32 r, %0, %1;\n\t"
                "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [r];\n\t}" ::"r"(smem (b)),
                "r"(rank)
                : "memory");
}
__device__ __forceinline__ void
bulk_multicast (void *dst, const void *src, unsigned bytes, uint64_t *bar, uint16_t mask)
{
  asm volatile ("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::"
                "cluster [%0], [%1], %2, [%3], %4;" ::"r"(smem (dst)),
                "l"(src), "r"(bytes), "r"(smem (bar)), "h"(mask)
                : "memory");
}


// The table: C rows of `bins` 32-bit words, cut into S runs of `width` words, one a block of the
// cluster.  Tiles of TV vectors; K stages.
__device__ __forceinline__ void
bulk_copy (void *dst, const void *src, unsigned bytes, uint64_t *bar)
{
  asm volatile ("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, "
                "[%3];" ::"r"(smem (dst)),
                "l"(src), "r"(bytes), "r"(smem (bar))
                : "memory");
}

template <int C, int T, int MODE>
__global__ void __launch_bounds__ (T)
    tma_sliced (const uint16_t *__restrict__ in, size_t n, int shift, int bins, int width, int TV,
                int K, unsigned *out)
{
  extern __shared__ __align__ (128) unsigned char raw[];
  cg::cluster_group cluster = cg::this_cluster ();
  const int S = cluster.num_blocks ();
  const int rank = cluster.block_rank ();
  const int g = blockIdx.x / S, G = gridDim.x / S;
  uint64_t *full = reinterpret_cast<uint64_t *> (raw);
  uint64_t *empty = full + K;
  uint64_t *consumed = empty + K;
  uint4 *stage = reinterpret_cast<uint4 *> (raw + 256);
  unsigned *table = reinterpret_cast<unsigned *> (stage + (size_t) K * TV);

  const int lo = rank * width;
  const int words = min (width, C * bins - lo);
  bool touches[C];
#pragma unroll
  for (int r = 0; r < C; r++)
    touches[r] = r * bins < lo + words && (r + 1) * bins > lo;
  for (int i = threadIdx.x; i < words; i += T)
    table[i] = 0;
  if (threadIdx.x == 0)
    {
      for (int k = 0; k < K; k++)
        {
          mbar_init (&full[k], 1);
          mbar_init (&empty[k], S);
          mbar_init (&consumed[k], T / 32 - 1);
        }
      asm volatile ("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
  __syncthreads ();
  cluster.sync ();

  const uint4 *vec = reinterpret_cast<const uint4 *> (in);
  const size_t vectors = n / 8;
  const size_t tiles = (vectors + TV - 1) / TV;
  const size_t mine = g < tiles ? (tiles - g + G - 1) / G : 0; // tiles of this cluster
  const uint16_t mask = (uint16_t) ((1u << S) - 1);
  auto produce = [&] (size_t j) {
    const size_t t = g + j * G;
    const int k = (int) (j % K);
    const size_t first = t * TV;
    const int tv = (int) min ((size_t) TV, vectors - first);
    const int per = (tv + S - 1) / S;
    const int a = min (tv, rank * per), b = min (tv, a + per);
    mbar_expect (&full[k], (unsigned) tv * 16);
    if (MODE == 3)
      {
        bulk_copy (stage + (size_t) k * TV, vec + first, (unsigned) tv * 16, &full[k]);
        return;
      }
    if (b > a)
      bulk_multicast (stage + (size_t) k * TV + a, vec + first + a, (unsigned) (b - a) * 16,
                      &full[k], mask);
  };
  auto count = [&] (int c, unsigned b) {
    if (!touches[c])
      return;
    const unsigned at = (unsigned) (c * bins - lo) + b;
    if (at < (unsigned) words)
      atomicAdd (&table[at], 1u);
  };
  constexpr int CONSUMERS = T - 32;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (warp == T / 32 - 1)
    {
      /* The producer warp: before refilling a stage, waits until this block's consumers are
       * done with it, tells every block of the cluster, and waits until all of them are. */
      for (size_t j = 0; j < mine; j++)
        {
          const int k = (int) (j % K);
          if (j >= (size_t) K)
            {
              const unsigned parity = (unsigned) (j / K - 1) & 1u;
              if (MODE == 3)
                {
                  if (lane == 0)
                    mbar_wait_cta (&consumed[k], parity);
                }
              else if (lane < S)
                {
                  mbar_wait_cta (&consumed[k], parity);
                  if (MODE == 2)
                    mbar_arrive_remote_relaxed (&empty[k], lane);
                  else
                    mbar_arrive_remote (&empty[k], lane);
                }
              if (lane == 0 && MODE != 3)
                mbar_wait (&empty[k], parity);
              __syncwarp ();
            }
          if (lane == 0)
            produce (j);
          __syncwarp ();
        }
    }
  else
    for (size_t j = 0; j < mine; j++)
      {
        const int k = (int) (j % K);
        const size_t first = (g + j * G) * TV;
        const int tv = (int) min ((size_t) TV, vectors - first);
        mbar_wait_cta (&full[k], (unsigned) (j / K) & 1u);
        const uint4 *buf = stage + (size_t) k * TV;
        for (int i = threadIdx.x; i < tv; i += CONSUMERS)
          {
            const uint4 q = buf[i];
            const int first_c = C == 3 ? (int) ((first + i) % 3) * 2 % 3 : 0;
            const unsigned w4[4] = { q.x, q.y, q.z, q.w };
#pragma unroll
            for (int s = 0; s < 8; s++)
              {
                const unsigned sample = (w4[s >> 1] >> (16 * (s & 1))) & 0xFFFFu;
                int c = first_c + s % C;
                if (C == 3 && c >= 3)
                  c -= 3;
                count (c, sample >> shift);
              }
          }
        __syncwarp ();
        if (lane == 0)
          asm volatile ("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem (&consumed[k]))
                        : "memory");
      }
  if (g == 0)
    for (size_t i = vectors * 8 + threadIdx.x; i < n; i += T)
      count ((int) (i % C), (unsigned) in[i] >> shift);
  __syncthreads ();
  for (int i = threadIdx.x; i < words; i += T)
    if (table[i])
      {
        const int w = lo + i;
        atomicAdd (&out[w], table[i]); // row-major c * bins + b is the linear index itself
      }
  cluster.sync ();
}

template <int C, int T = 1024, int MODE = 1>
float
run_tma (const uint16_t *img, size_t samples, int shift, int bins_n, int S, int TV, int K,
         unsigned *bins, int reps, bool *ok, const unsigned *ref, int *clusters_out)
{
  const int width = (C * bins_n + S - 1) / S;
  const size_t smem_bytes = 256 + (size_t) K * TV * 16 + (size_t) width * 4;
  auto kernel = tma_sliced<C, T, MODE>;
  CK (cudaFuncSetAttribute (kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int) smem_bytes));
  if (S > 8)
    CK (cudaFuncSetAttribute (kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  cudaLaunchConfig_t cfg = {};
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = S;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  cfg.blockDim = dim3 (T);
  cfg.dynamicSmemBytes = smem_bytes;
  cfg.gridDim = dim3 (S);
  int clusters = 0;
  cudaError_t e = cudaOccupancyMaxActiveClusters (&clusters, (void *) kernel, &cfg);
  if (e != cudaSuccess || clusters == 0)
    {
      printf ("    (S=%d TV=%d K=%d smem %zu: no cluster fits: %s)\n", S, TV, K, smem_bytes,
              cudaGetErrorString (e));
      cudaGetLastError ();
      *ok = false;
      return -1;
    }
  *clusters_out = clusters;
  cfg.gridDim = dim3 (clusters * S);
  auto go = [&] {
    cudaMemsetAsync (bins, 0, C * bins_n * 4);
    CK (cudaLaunchKernelEx (&cfg, kernel, img, samples, shift, bins_n, width, TV, K, bins));
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
  int reps = argc > 1 ? atoi (argv[1]) : 20;
  cudaDeviceProp p;
  CK (cudaGetDeviceProperties (&p, 0));
  const int sms = p.multiProcessorCount;
  printf ("%s, %d SMs, optin smem %zu\n", p.name, sms, p.sharedMemPerBlockOptin);
  const int side = 8192;
  const size_t samples = (size_t) side * side * 4;
  uint16_t *img;
  unsigned *bins, *ref, *sink;
  CK (cudaMalloc (&img, samples * 2));
  CK (cudaMalloc (&bins, 4 * 65536 * 4));
  CK (cudaMalloc (&ref, 4 * 65536 * 4));
  CK (cudaMalloc (&sink, 4));
  const char *kinds[] = { "noise", "photo", "flat" };
  struct cfg_t
  {
    int S, TV, K;
  } cfgs[] = { { 6, 1024, 3 }, { 8, 1024, 5 }, { 8, 2048, 3 }, { 8, 512, 10 } };
  for (int kind = 0; kind < 3; kind += 2)
    {
      make16<<<sms * 8, 256>>> (img, side, kind);
      CK (cudaDeviceSynchronize ());
      float ro = time_median (
          [&] { read_only<<<sms * 8, 256>>> ((const uint8_t *) img, samples * 2, sink); }, reps);
      printf ("16-bit %s: read-only %.4f ms\n", kinds[kind], ro);
      for (int bins_n : { 16384, 65536 })
        {
          const int shift = bins_n == 16384 ? 2 : 0;
          CK (cudaMemset (ref, 0, 4 * bins_n * 4));
          refc<<<sms * 8, 256>>> (img, samples, 4, shift, bins_n, ref);
          CK (cudaDeviceSynchronize ());
          for (auto c : cfgs)
            {
              const int S = bins_n == 16384 ? c.S - 4 : c.S;
              if (S < 2)
                continue;
              bool ok;
              int clusters = 0;
              for (int T : { 2, 3 })
                {
                  float t = T == 0 ? run_tma<4, 1024, 0> (img, samples, shift, bins_n, S, c.TV, c.K,
                                                          bins, reps, &ok, ref, &clusters)
                          : T == 3 ? run_tma<4, 1024, 3> (img, samples, shift, bins_n, S, c.TV, c.K,
                                                          bins, reps, &ok, ref, &clusters)
                                   : run_tma<4, 1024, 2> (img, samples, shift, bins_n, S, c.TV, c.K,
                                                         bins, reps, &ok, ref, &clusters);
                  if (t >= 0)
                    printf ("  %5d tma mode=%d S=%d TV=%d K=%d (%d clusters): %.4f ms %5.2fx %s\n",
                            bins_n, T, S, c.TV, c.K, clusters, t, t / ro, ok ? "ok" : "WRONG");
                }
            }
        }
      if (kind == 0)
        for (int C : { 1, 2, 3 })
          {
            const size_t n = samples - 5;
            CK (cudaMemset (ref, 0, C * 65536 * 4));
            refc<<<sms * 8, 256>>> (img, n, C, 0, 65536, ref);
            CK (cudaDeviceSynchronize ());
            bool ok;
            int clusters;
            float t = -1;
            const int S = (C * 65536 * 4 + 150000 - 1) / 150000;
            if (C == 1)
              t = run_tma<1> (img, n, 0, 65536, S, 1024, 4, bins, reps, &ok, ref, &clusters);
            if (C == 2)
              t = run_tma<2> (img, n, 0, 65536, S, 1024, 4, bins, reps, &ok, ref, &clusters);
            if (C == 3)
              t = run_tma<3> (img, n, 0, 65536, S, 1024, 4, bins, reps, &ok, ref, &clusters);
            printf ("  C=%d 65536 tma S=%d: %.4f ms %5.2fx %s\n", C, S, t, t / ro,
                    ok ? "ok" : "WRONG");
          }
    }
  printf ("done\n");
  return 0;
}
