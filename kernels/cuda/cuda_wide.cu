/* gpu-histogram: how the wide-table kernels are planned and launched. */
#include "cuda_wide.h"
#include "wide_kernels.cuh"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace gh
{

namespace
{

constexpr int kWideThreads = 256;    /* narrow, global copies */
constexpr int kSlicedThreads = 1024; /* shared, sliced */
constexpr int kGlobalCopies = 16;

/* The interleaved strategies; SLICED is launched by launch_wide_fastest itself. */
template <int C>
void
launch_for (const wide_plan &plan, const uint16_t *in, size_t n, int shift, int bins,
            unsigned int *out, unsigned int *scratch, cudaStream_t stream)
{
  switch (plan.strategy)
    {
    case GH_STRATEGY_NARROW:
      wide_narrow_kernel<C><<<plan.blocks, plan.threads, plan.shared_bytes, stream>>> (
          in, n, shift, bins, plan.flush_every, out);
      break;
    case GH_STRATEGY_GLOBAL_COPIES:
      wide_global_copies_kernel<C>
          <<<plan.blocks, plan.threads, 0, stream>>> (in, n, shift, bins, plan.copies, scratch);
      merge_copies_kernel<<<(C * bins + 255) / 256, 256, 0, stream>>> (scratch, plan.copies,
                                                                       C * bins, out);
      break;
    default:
      wide_shared_kernel<C, kSlicedThreads>
          <<<plan.blocks, plan.threads, plan.shared_bytes, stream>>> (in, n, shift, bins, out);
      break;
    }
}

template <int C>
const void *
kernel_for (gh_strategy strategy)
{
  switch (strategy)
    {
    case GH_STRATEGY_NARROW: return reinterpret_cast<const void *> (wide_narrow_kernel<C>);
    case GH_STRATEGY_GLOBAL_COPIES:
      return reinterpret_cast<const void *> (wide_global_copies_kernel<C>);
    default: return reinterpret_cast<const void *> (wide_shared_kernel<C, kSlicedThreads>);
    }
}

const void *
kernel_for (int channels, gh_strategy strategy)
{
  if (strategy == GH_STRATEGY_SLICED)
    return reinterpret_cast<const void *> (wide_planar_sliced_kernel<kSlicedThreads>);
  switch (channels)
    {
    case 1: return kernel_for<1> (strategy);
    case 2: return kernel_for<2> (strategy);
    case 3: return kernel_for<3> (strategy);
    default: return kernel_for<4> (strategy);
    }
}

/* The shared memory a block may ask for.  GPUHIST_TEST_SHARED_KIB (tests only) lowers it, so that
 * the H200 stands in for GPUs with less (a T4 allows 64 KiB a block) and slices come out uneven. */
size_t
shared_limit (const cudaDeviceProp &device)
{
  size_t limit = device.sharedMemPerBlockOptin;
  const char *cap = getenv ("GPUHIST_TEST_SHARED_KIB");
  const long kib = cap ? strtol (cap, nullptr, 10) : 0;
  if (kib > 0 && static_cast<size_t> (kib) * 1024 < limit)
    limit = static_cast<size_t> (kib) * 1024;
  return limit;
}

/* Whether a strategy's table of `bytes` fits a block; where it does not, *error says so with
 * the sizes, so that a forced strategy is refused before any launch. */
bool
table_fits (const cudaDeviceProp &device, size_t limit, gh_strategy strategy, size_t bytes,
            int channels, int bins, gh_error *error)
{
  if (bytes <= limit)
    return true;
  gh_error_set (error, GH_ERROR_UNSUPPORTED,
                "the %s strategy needs %zu KiB of shared memory a block for %d channels of %d "
                "bins; %s allows %zu KiB",
                gh_strategy_name (strategy), bytes / 1024, channels, bins, device.name,
                limit / 1024);
  return false;
}

/* The strategy's table: its shared memory, slices and passes, or why it does not fit. */
gh_status
shape_wide_plan (const cudaDeviceProp &device, size_t limit, int channels, int bins,
                 wide_plan *plan, gh_error *error)
{
  const size_t table32 = static_cast<size_t> (channels) * bins * 4;
  const size_t table16 = table32 / 2;
  /* The widest slice of one channel's 32-bit counters a block can hold. */
  const int max_slice = static_cast<int> (limit / 4);
  const int parts = (bins + max_slice - 1) / max_slice;

  switch (plan->strategy)
    {
    case GH_STRATEGY_SHARED:
      if (!table_fits (device, limit, plan->strategy, table32, channels, bins, error))
        return GH_ERROR_UNSUPPORTED;
      plan->shared_bytes = table32;
      break;
    case GH_STRATEGY_NARROW:
      if (!table_fits (device, limit, plan->strategy, table16, channels, bins, error))
        return GH_ERROR_UNSUPPORTED;
      plan->shared_bytes = table16;
      /* A counter gains at most 8 samples a thread a step; the tail adds fewer than 8. */
      plan->flush_every = (65535 - 8) / (kWideThreads * 8);
      break;
    case GH_STRATEGY_SLICED:
      /* Equal slices of one channel's bins, as few as fit. */
      plan->planar = true;
      plan->parts = parts;
      plan->passes = channels * parts;
      plan->slice = (bins + parts - 1) / parts;
      plan->shared_bytes = static_cast<size_t> (plan->slice) * 4;
      break;
    default:
      plan->strategy = GH_STRATEGY_GLOBAL_COPIES;
      plan->copies = kGlobalCopies;
      break;
    }
  return GH_OK;
}

/* The blocks that fit the device at once (whole groups of slices for SLICED), or why none fits. */
gh_status
fit_wide_blocks (const cudaDeviceProp &device, int channels, wide_plan *plan, gh_error *error)
{
  const void *kernel = kernel_for (channels, plan->strategy);
  cudaError_t code = cudaSuccess;
  if (plan->shared_bytes > 0)
    code = cudaFuncSetAttribute (kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 static_cast<int> (plan->shared_bytes));
  int per_sm = 0;
  if (code == cudaSuccess)
    code = cudaOccupancyMaxActiveBlocksPerMultiprocessor (&per_sm, kernel, plan->threads,
                                                          plan->shared_bytes);
  if (code != cudaSuccess || per_sm == 0)
    {
      gh_error_set (error, code != cudaSuccess ? GH_ERROR_GPU_FAILED : GH_ERROR_UNSUPPORTED,
                    "the %s strategy cannot run on %s: %s", gh_strategy_name (plan->strategy),
                    device.name,
                    code != cudaSuccess ? cudaGetErrorString (code) : "no block fits an SM");
      cudaGetLastError ();
      return error->status;
    }
  plan->blocks = per_sm * device.multiProcessorCount;
  if (plan->strategy == GH_STRATEGY_SLICED)
    {
      /* Whole groups of one block a slice. */
      plan->blocks -= plan->blocks % plan->passes;
      if (plan->blocks < plan->passes)
        plan->blocks = plan->passes;
    }
  return GH_OK;
}

} // namespace

gh_status
plan_wide (const cudaDeviceProp &device, int channels, int bins, gh_strategy requested,
           wide_plan *plan, gh_error *error)
{
  const size_t limit = shared_limit (device);
  const size_t table32 = static_cast<size_t> (channels) * bins * 4;

  /* Measured on an H200 (docs/BENCHMARKS.md): planar slices beat 16-bit counters and the global
   * copies on every input once the 32-bit table stops fitting. */
  gh_strategy strategy = requested;
  if (strategy == GH_STRATEGY_AUTO)
    strategy = table32 <= limit ? GH_STRATEGY_SHARED : GH_STRATEGY_SLICED;

  *plan = wide_plan{};
  plan->strategy = strategy;
  plan->threads = strategy == GH_STRATEGY_SHARED || strategy == GH_STRATEGY_SLICED ? kSlicedThreads
                                                                                   : kWideThreads;
  plan->slice = bins;
  plan->passes = 1;
  gh_status status = shape_wide_plan (device, limit, channels, bins, plan, error);
  return status == GH_OK ? fit_wide_blocks (device, channels, plan, error) : status;
}

void
describe_wide_plan (const wide_plan &plan, int channels, int bins, char *out, size_t size)
{
  switch (plan.strategy)
    {
    case GH_STRATEGY_SLICED:
      snprintf (out, size, "sliced, %d ch x %d bins, planar, %d slice%s of %d a channel", channels,
                bins, plan.parts, plan.parts == 1 ? "" : "s", plan.slice);
      break;
    case GH_STRATEGY_GLOBAL_COPIES:
      snprintf (out, size, "global copies, %d ch x %d bins, %d copies", channels, bins,
                plan.copies);
      break;
    default:
      snprintf (out, size, "%s, %d ch x %d bins, %zu KiB shared", gh_strategy_name (plan.strategy),
                channels, bins, plan.shared_bytes / 1024);
      break;
    }
}

size_t
wide_scratch_bytes (const wide_plan &plan, int channels, int bins)
{
  return plan.strategy == GH_STRATEGY_GLOBAL_COPIES
             ? static_cast<size_t> (plan.copies) * channels * bins * sizeof (unsigned int)
             : 0;
}

void
launch_deinterleave16 (const cudaDeviceProp &device, const uint16_t *in, size_t pixels,
                       int channels, size_t plane_stride, uint16_t *out, cudaStream_t stream)
{
  const int threads = 256, blocks = device.multiProcessorCount * 8;
  switch (channels)
    {
    case 1: cudaMemcpyAsync (out, in, pixels * sizeof *in, cudaMemcpyDeviceToDevice, stream); break;
    case 2:
      deinterleave16_kernel<2><<<blocks, threads, 0, stream>>> (in, pixels, plane_stride, out);
      break;
    case 3:
      deinterleave16_kernel<3><<<blocks, threads, 0, stream>>> (in, pixels, plane_stride, out);
      break;
    default:
      deinterleave16_kernel<4><<<blocks, threads, 0, stream>>> (in, pixels, plane_stride, out);
      break;
    }
}

void
launch_wide_global_atomics (const wide_strip &strip, int shift, int bins, unsigned int *out,
                            int blocks, int threads, cudaStream_t stream)
{
  const uint16_t *in = strip.samples;
  const size_t n = strip.pixels * strip.channels;
  if (strip.plane_stride)
    {
      wide_planar_global_atomics_kernel<<<blocks, threads, 0, stream>>> (
          in, strip.pixels, strip.plane_stride, strip.channels, shift, bins, out);
      return;
    }
  switch (strip.channels)
    {
    case 1:
      wide_global_atomics_kernel<1><<<blocks, threads, 0, stream>>> (in, n, shift, bins, out);
      break;
    case 2:
      wide_global_atomics_kernel<2><<<blocks, threads, 0, stream>>> (in, n, shift, bins, out);
      break;
    case 3:
      wide_global_atomics_kernel<3><<<blocks, threads, 0, stream>>> (in, n, shift, bins, out);
      break;
    default:
      wide_global_atomics_kernel<4><<<blocks, threads, 0, stream>>> (in, n, shift, bins, out);
      break;
    }
}

void
launch_wide_fastest (const wide_plan &plan, const wide_strip &strip, int shift, int bins,
                     unsigned int *out, unsigned int *scratch, cudaStream_t stream)
{
  const uint16_t *in = strip.samples;
  const size_t n = strip.pixels * strip.channels;
  if (plan.planar)
    {
      wide_planar_sliced_kernel<kSlicedThreads>
          <<<plan.blocks, plan.threads, plan.shared_bytes, stream>>> (
              in, strip.pixels, strip.plane_stride, strip.channels, shift, bins, plan.slice,
              plan.parts, out);
      return;
    }
  switch (strip.channels)
    {
    case 1: launch_for<1> (plan, in, n, shift, bins, out, scratch, stream); break;
    case 2: launch_for<2> (plan, in, n, shift, bins, out, scratch, stream); break;
    case 3: launch_for<3> (plan, in, n, shift, bins, out, scratch, stream); break;
    default: launch_for<4> (plan, in, n, shift, bins, out, scratch, stream); break;
    }
}

} // namespace gh
