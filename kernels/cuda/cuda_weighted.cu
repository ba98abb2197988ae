/* gpu-histogram: how the kernels of weighted and derived runs are planned and launched. */
#include "cuda_weighted.h"
#include "cuda_launch.h"
#include "weighted_fast_kernel.cuh"

#include <cstdio>
#include <cstdlib>

namespace gh
{

namespace
{

using fast_fn = void (*) (const uint8_t *, const uint8_t *, size_t, int, unsigned long long *,
                          unsigned int, gh_luminance);

/* Alpha weighting needs 2 or 4 channels, derived channels 3 or 4; with neither and no plane the
 * run is an unweighted one (hist_kernels.cuh).  D: 0 no derived channels, 1 GIMP 2.10's
 * luminance, 2 GIMP 3.0's (looked up: weighted_fast_kernel's LUM3). */
template <int C, int COV, int A, int D>
constexpr fast_fn
pick ()
{
  if constexpr ((A && C % 2) || (D && C < 3) || (!COV && !A && !D))
    return nullptr;
  else
    return weighted_fast_kernel<C, COV, A != 0, D != 0, kGroups, D == 2>;
}

template <int C, int COV, int A>
fast_fn
fast_for_derived (int derived)
{
  return derived == 2 ? pick<C, COV, A, 2> ()
         : derived    ? pick<C, COV, A, 1> ()
                      : pick<C, COV, A, 0> ();
}

template <int C, int COV>
fast_fn
fast_for_alpha (int alpha, int derived)
{
  return alpha ? fast_for_derived<C, COV, 1> (derived) : fast_for_derived<C, COV, 0> (derived);
}

template <int C>
fast_fn
fast_for (int cov, int alpha, int derived)
{
  return cov == 2 ? fast_for_alpha<C, 2> (alpha, derived)
         : cov    ? fast_for_alpha<C, 1> (alpha, derived)
                  : fast_for_alpha<C, 0> (alpha, derived);
}

/* 0: no derived channels, 1: GIMP 2.10's luminance, 2: GIMP 3.0's. */
int
derived_kind (const gh_run_plan &run)
{
  return !run.derived ? 0 : run.luminance == GH_LUMINANCE_GIMP2 ? 1 : 2;
}

fast_fn
fast_kernel_for (const gh_run_plan &run)
{
  const int cov = run.coverage_bytes, a = run.alpha_weighted ? 1 : 0;
  const int d = derived_kind (run);
  switch (run.channels)
    {
    case 1: return fast_for<1> (cov, a, d);
    case 2: return fast_for<2> (cov, a, d);
    case 3: return fast_for<3> (cov, a, d);
    default: return fast_for<4> (cov, a, d);
    }
}

/* Blocks of `threads` that fit an SM with `shared` bytes each, times the SMs; 0 if none. */
int
blocks_for (const cudaDeviceProp &device, const void *kernel, int threads, size_t shared)
{
  int per_sm = 0;
  if (cudaFuncSetAttribute (kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                            static_cast<int> (shared))
          != cudaSuccess
      || cudaOccupancyMaxActiveBlocksPerMultiprocessor (&per_sm, kernel, threads, shared)
             != cudaSuccess)
    {
      cudaGetLastError ();
      return 0;
    }
  return per_sm * device.multiProcessorCount;
}

size_t
shared64_bytes (const gh_run_plan &run)
{
  return static_cast<size_t> (run.out_channels) * run.bins * sizeof (unsigned long long);
}

} // namespace

unsigned int
weighted_max_weight (const gh_run_plan &run)
{
  return static_cast<unsigned int> (
      gh_weight_denominator (run.coverage_bytes, run.alpha_weighted, run.bytes_per_sample));
}

gh_status
plan_weighted_global (const cudaDeviceProp &device, weighted_plan *plan)
{
  *plan = weighted_plan{};
  plan->kind = kGlobal64;
  plan->threads = 256;
  plan->blocks = full_grid (device, 256);
  return GH_OK;
}

gh_status
plan_weighted_privatized (const cudaDeviceProp &device, const gh_run_plan &run, weighted_plan *plan,
                          gh_error *error)
{
  *plan = weighted_plan{};
  plan->kind = kShared64;
  plan->threads = 256;
  plan->shared_bytes = shared64_bytes (run);
  const int fit
      = plan->shared_bytes <= device.sharedMemPerBlockOptin
            ? blocks_for (device, reinterpret_cast<const void *> (weighted_privatized_kernel),
                          plan->threads, plan->shared_bytes)
            : 0;
  if (fit == 0)
    {
      gh_error_set (error, GH_ERROR_UNSUPPORTED,
                    "a 64-bit table of %d channels of %d bins needs %zu KiB of shared memory a "
                    "block; %s allows %zu KiB",
                    run.out_channels, run.bins, plan->shared_bytes / 1024, device.name,
                    device.sharedMemPerBlockOptin / 1024);
      return GH_ERROR_UNSUPPORTED;
    }
  plan->blocks = full_grid (device, plan->threads);
  return GH_OK;
}

gh_status
plan_weighted_fastest (const cudaDeviceProp &device, const gh_run_plan &run, weighted_plan *plan,
                       gh_error *error)
{
  /* Lane columns: flushed before a 32-bit counter can overflow. */
  unsigned long long steps = weighted_flush_steps (weighted_max_weight (run), kGroups);
  /* TEST ONLY: GPUHIST_TEST_FLUSH_EVERY=n flushes sooner, so that small images cross flushes. */
  const char *test_flush = getenv ("GPUHIST_TEST_FLUSH_EVERY");
  if (test_flush && strtoull (test_flush, nullptr, 10) > 0
      && strtoull (test_flush, nullptr, 10) < steps)
    steps = strtoull (test_flush, nullptr, 10);
  const size_t columns = weighted_shared_bytes (run.out_channels, derived_kind (run));
  fast_fn kernel = run.bytes_per_sample == 1 ? fast_kernel_for (run) : nullptr;
  if (kernel && steps >= 1 && columns <= device.sharedMemPerBlockOptin)
    {
      const int blocks
          = blocks_for (device, reinterpret_cast<const void *> (kernel), kWeightedThreads, columns);
      if (blocks > 0)
        {
          *plan = weighted_plan{ kLaneColumns32, blocks, kWeightedThreads, columns,
                                 static_cast<int> (steps < (1u << 30) ? steps : (1u << 30)) };
          return GH_OK;
        }
    }
  gh_error ignored;
  if (plan_weighted_privatized (device, run, plan, &ignored) == GH_OK)
    {
      /* As many blocks as fit at once: each merges its table once. */
      plan->threads = 1024;
      plan->blocks
          = blocks_for (device, reinterpret_cast<const void *> (weighted_privatized_kernel),
                        plan->threads, plan->shared_bytes);
      if (plan->blocks > 0)
        return GH_OK;
    }
  (void) error;
  return plan_weighted_global (device, plan);
}

void
describe_weighted_plan (const weighted_plan &plan, const gh_run_plan &run, char *out, size_t size)
{
  const char *kind = plan.kind == kLaneColumns32 ? "weighted lane columns"
                     : plan.kind == kShared64    ? "weighted 64-bit table a block"
                                                 : "weighted global 64-bit atomics";
  char step[32] = "";
  if (plan.kind == kLaneColumns32)
    snprintf (step, sizeof step, ", %d x 4 pixels a step", kGroups);
  snprintf (out, size, "%s, %d ch -> %d x %d bins, %d x %d threads%s, %zu KiB shared", kind,
            run.channels, run.out_channels, run.bins, plan.blocks, plan.threads, step,
            plan.shared_bytes / 1024);
}

weighted_job
make_weighted_job (const gh_run_plan &run, const uint8_t *samples, const uint8_t *coverage,
                   size_t pixels, unsigned long long *out)
{
  weighted_job job;
  job.samples = samples;
  job.coverage = run.coverage_bytes ? coverage : nullptr;
  job.pixels = pixels;
  job.channels = run.channels;
  job.bytes_per_sample = run.bytes_per_sample;
  job.coverage_bytes = run.coverage_bytes;
  job.alpha_weighted = run.alpha_weighted;
  job.derived = run.derived;
  job.bins = run.bins;
  job.shift = run.shift;
  job.binning = run.binning;
  job.luminance = run.luminance;
  job.out = out;
  return job;
}

void
launch_weighted (const weighted_plan &plan, const weighted_job &job, int channels, int out_channels,
                 cudaStream_t stream)
{
  switch (plan.kind)
    {
    case kLaneColumns32:
      {
        gh_run_plan run{};
        run.channels = channels;
        run.coverage_bytes = job.coverage_bytes;
        run.alpha_weighted = job.alpha_weighted;
        run.derived = job.derived;
        run.luminance = job.luminance;
        fast_kernel_for (run)<<<plan.blocks, plan.threads, plan.shared_bytes, stream>>> (
            job.samples, job.coverage, job.pixels, plan.flush_every, job.out, 256u, job.luminance);
        break;
      }
    case kShared64:
      weighted_privatized_kernel<<<plan.blocks, plan.threads, plan.shared_bytes, stream>>> (
          job, out_channels);
      break;
    default: weighted_global_atomics_kernel<<<plan.blocks, plan.threads, 0, stream>>> (job); break;
    }
}

void
launch_read_only2 (const uint8_t *a, size_t na, const uint8_t *b, size_t nb, unsigned int *sink,
                   int blocks, int threads, cudaStream_t stream)
{
  read_only2_kernel<<<blocks, threads, 0, stream>>> (a, na, b, nb, sink);
}

void
launch_fold128 (unsigned long long *strip, unsigned long long *totals, int count,
                cudaStream_t stream)
{
  fold128_kernel<<<(count + 255) / 256, 256, 0, stream>>> (strip, totals, count);
}

} // namespace gh
