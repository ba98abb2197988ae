/* gpu-histogram: launch configuration and template dispatch for hist_kernels.cuh. */
#include "cuda_launch.h"
#include "hist_kernels.cuh"

#include <cstdio>

namespace gh
{

namespace
{

using fastest_fn = void (*) (const uint8_t *, size_t, unsigned int *, int);
using simple_fn = void (*) (const uint8_t *, size_t, unsigned int *);

/* [channels - 1][layout] */
const fastest_fn fastest_kernels[4][3] = {
  { fastest_kernel<1, kSingle, kFastestThreads>, fastest_kernel<1, kPacked, kFastestThreads>,
    fastest_kernel<1, kLaneColumns, kFastestThreads> },
  { fastest_kernel<2, kSingle, kFastestThreads>, fastest_kernel<2, kPacked, kFastestThreads>,
    fastest_kernel<2, kLaneColumns, kFastestThreads> },
  { fastest_kernel<3, kSingle, kFastestThreads>, fastest_kernel<3, kPacked, kFastestThreads>,
    fastest_kernel<3, kLaneColumns, kFastestThreads> },
  { fastest_kernel<4, kSingle, kFastestThreads>, fastest_kernel<4, kPacked, kFastestThreads>,
    fastest_kernel<4, kLaneColumns, kFastestThreads> },
};
const simple_fn global_kernels[4] = { global_atomics_kernel<1>, global_atomics_kernel<2>,
                                      global_atomics_kernel<3>, global_atomics_kernel<4> };
const simple_fn privatized_kernels[4]
    = { privatized_kernel<1>, privatized_kernel<2>, privatized_kernel<3>, privatized_kernel<4> };

const char *
layout_name (int layout)
{
  return layout == kLaneColumns ? "lane columns"
         : layout == kPacked    ? "packed 16-bit"
                                : "single table";
}

} // namespace

int
full_grid (const cudaDeviceProp &device, int threads)
{
  return device.multiProcessorCount * (device.maxThreadsPerMultiProcessor / threads);
}

gh_status
plan_fastest (const cudaDeviceProp &device, int channels, gh_layout requested, launch_plan *plan,
              gh_error *error)
{
  const size_t limit = device.sharedMemPerBlockOptin;
  int layout;
  switch (requested)
    {
    case GH_LAYOUT_LANE_COLUMNS: layout = kLaneColumns; break;
    case GH_LAYOUT_PACKED: layout = kPacked; break;
    case GH_LAYOUT_SINGLE: layout = kSingle; break;
    default:
      /* The first that fits a block, lane columns first: no bank conflicts, no flushes. */
      layout = table_bytes (channels, kLaneColumns, engine_walk (channels)) <= limit ? kLaneColumns
               : table_bytes (channels, kPacked, engine_walk (channels)) <= limit    ? kPacked
                                                                                     : kSingle;
      break;
    }
  const size_t bytes = table_bytes (channels, layout, engine_walk (channels));
  if (bytes > limit)
    {
      gh_error_set (error, GH_ERROR_UNSUPPORTED,
                    "the %s layout needs %zu KiB of shared memory a block for %d channels; %s "
                    "allows %zu KiB",
                    layout_name (layout), bytes / 1024, channels, device.name, limit / 1024);
      return GH_ERROR_UNSUPPORTED;
    }

  fastest_fn kernel = fastest_kernels[channels - 1][layout];
  cudaError_t code = cudaFuncSetAttribute (reinterpret_cast<const void *> (kernel),
                                           cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int> (bytes));
  int per_sm = 0;
  if (code == cudaSuccess)
    code = cudaOccupancyMaxActiveBlocksPerMultiprocessor (
        &per_sm, reinterpret_cast<const void *> (kernel), kFastestThreads, bytes);
  if (code != cudaSuccess || per_sm == 0)
    {
      gh_error_set (error, code != cudaSuccess ? GH_ERROR_GPU_FAILED : GH_ERROR_UNSUPPORTED,
                    "the %s layout cannot run on %s: %s", layout_name (layout), device.name,
                    code != cudaSuccess ? cudaGetErrorString (code) : "no block fits an SM");
      cudaGetLastError ();
      return error->status;
    }

  plan->layout = layout;
  plan->threads = kFastestThreads;
  plan->blocks = per_sm * device.multiProcessorCount;
  plan->shared_bytes = bytes;
  /* A packed column gathers at most (warps * samples a thread counts per step per channel)
   * increments a step; flush one step early, so that the two steps after the loop (the last
   * whole one and the partial one after it, hist_kernels.cuh) and the tail bytes fit too. */
  const int per_thread = (channels == 3 ? 48 : 64) / channels; /* fastest_traits<C, L>::unit / C */
  plan->flush_every = 65535 / ((kFastestThreads / kWarp) * per_thread) - 1;
  return GH_OK;
}

void
describe_plan (const launch_plan &plan, int channels, char *out, size_t size)
{
  snprintf (out, size, "%s, %d ch, %d x %d threads, %zu KiB shared", layout_name (plan.layout),
            channels, plan.blocks, plan.threads, plan.shared_bytes / 1024);
}

void
launch_global_atomics (int channels, const uint8_t *in, size_t n, unsigned int *bins, int blocks,
                       int threads, cudaStream_t stream)
{
  global_kernels[channels - 1]<<<blocks, threads, 0, stream>>> (in, n, bins);
}

void
launch_privatized (int channels, const uint8_t *in, size_t n, unsigned int *bins, int blocks,
                   int threads, cudaStream_t stream)
{
  privatized_kernels[channels - 1]<<<blocks, threads, 0, stream>>> (in, n, bins);
}

void
launch_fastest (int channels, const launch_plan &plan, const uint8_t *in, size_t n,
                unsigned int *bins, cudaStream_t stream)
{
  fastest_kernels[channels - 1]
                 [plan.layout]<<<plan.blocks, plan.threads, plan.shared_bytes, stream>>> (
                     in, n, bins, plan.flush_every);
}

void
launch_read_only (const uint8_t *in, size_t n, unsigned int *sink, int blocks, int threads,
                  cudaStream_t stream)
{
  read_only_kernel<<<blocks, threads, 0, stream>>> (in, n, sink);
}

void
launch_method (gh_method method, int channels, const cudaDeviceProp &device,
               const launch_plan &fastest, const uint8_t *in, size_t n, unsigned int *bins,
               unsigned int *sink, cudaStream_t stream)
{
  constexpr int threads = 256;
  switch (method)
    {
    case GH_METHOD_GLOBAL_ATOMICS:
      launch_global_atomics (channels, in, n, bins, full_grid (device, threads), threads, stream);
      break;
    case GH_METHOD_PRIVATIZED:
      launch_privatized (channels, in, n, bins, full_grid (device, threads), threads, stream);
      break;
    case GH_METHOD_FASTEST: launch_fastest (channels, fastest, in, n, bins, stream); break;
    default: launch_read_only (in, n, sink, full_grid (device, threads), threads, stream); break;
    }
}

void
launch_fold (unsigned int *strip_bins, unsigned long long *totals, int count, cudaStream_t stream)
{
  fold_kernel<<<(count + 255) / 256, 256, 0, stream>>> (strip_bins, totals, count);
}

void
launch_noise (uint8_t *out, size_t n, unsigned long long offset, cudaStream_t stream)
{
  const int threads = 256;
  const size_t wanted = (n + threads - 1) / threads;
  const int blocks = static_cast<int> (wanted < 65536 ? (wanted ? wanted : 1) : 65536);
  noise_kernel<<<blocks, threads, 0, stream>>> (out, n, offset);
}

} // namespace gh
