/* gpu-histogram: the CUDA backend's histogram (cuda_histogram.h). */
#include "cuda_check.h"
#include "cuda_histogram.h"

#include <cstdlib>
#include <cstring>

namespace gh
{

namespace
{

/* The simple kernels' blocks (global atomics, read-only, the wide tables' global atomics). */
constexpr int kSimpleThreads = 256;

hist_shape
shape_of (const gh_run_plan &plan)
{
  if (!gh_plan_plain (&plan))
    return { kWeighted, plan.out_channels, plan.bins, 8, 16, false };
  /* 8-bit samples always have 256 bins (gh_run_plan). */
  return { plan.bytes_per_sample == 1 ? kBytes : kWide, plan.channels, plan.bins, 4, 8, false };
}

size_t
cells (const hist_shape &shape)
{
  return static_cast<size_t> (shape.tables) * shape.bins;
}

/* Leaves a method out of the run (its sink arrays freed), where its table cannot fit. */
void
drop_method (gh_run_plan *plan, gh_run_sink *sink, gh_method m)
{
  plan->methods &= ~GH_METHOD_BIT (m);
  free (sink->counts[m]);
  free (sink->weighted[m]);
  free (sink->rep_ms[m]);
  sink->counts[m] = nullptr;
  sink->weighted[m] = nullptr;
  sink->rep_ms[m] = nullptr;
}

bool
wants (const gh_run_plan &plan, gh_method m)
{
  return (plan.methods & GH_METHOD_BIT (m)) != 0;
}

/* Each family's planning, launching and words; the counters' widths are the shape's. */
struct family_ops
{
  gh_status (*plan) (const cudaDeviceProp &device, gh_run_plan *plan, gh_run_sink *sink,
                     hist_tables *t, gh_error *error);
  void (*launch) (const hist_tables &t, const cudaDeviceProp &device, gh_method method,
                  const hist_strip &strip, cudaStream_t stream);
  void (*describe) (const hist_tables &t, char *out, size_t size);
};

gh_status
plan_bytes (const cudaDeviceProp &device, gh_run_plan *plan, gh_run_sink *, hist_tables *t,
            gh_error *error)
{
  return plan_fastest (device, plan->channels, plan->layout, &t->method[GH_METHOD_FASTEST].bytes,
                       error);
}

void
launch_bytes (const hist_tables &t, const cudaDeviceProp &device, gh_method method,
              const hist_strip &strip, cudaStream_t stream)
{
  launch_method (method, t.plan.channels, device, t.method[GH_METHOD_FASTEST].bytes, strip.samples,
                 strip.bytes, static_cast<unsigned int *> (t.strip), t.read_sink, stream);
}

void
describe_bytes (const hist_tables &t, char *out, size_t size)
{
  describe_plan (t.method[GH_METHOD_FASTEST].bytes, t.plan.channels, out, size);
}

gh_status
plan_wide_tables (const cudaDeviceProp &device, gh_run_plan *plan, gh_run_sink *sink,
                  hist_tables *t, gh_error *error)
{
  wide_plan &fastest = t->method[GH_METHOD_FASTEST].wide;
  gh_status status
      = plan_wide (device, plan->channels, plan->bins, plan->strategy, &fastest, error);
  if (status != GH_OK)
    return status;
  t->shape.planar = fastest.planar;
  /* The seed's pattern needs the whole table in one block, and interleaved strips; where it
   * does not fit, or the strips are planar for SLICED, the privatized row is left out rather
   * than failed. */
  gh_error ignored;
  if (wants (*plan, GH_METHOD_PRIVATIZED)
      && (fastest.planar
          || plan_wide (device, plan->channels, plan->bins, GH_STRATEGY_SHARED,
                        &t->method[GH_METHOD_PRIVATIZED].wide, &ignored)
                 != GH_OK))
    drop_method (plan, sink, GH_METHOD_PRIVATIZED);
  return GH_OK;
}

void
launch_wide_tables (const hist_tables &t, const cudaDeviceProp &device, gh_method method,
                    const hist_strip &strip, cudaStream_t stream)
{
  const int grid = full_grid (device, kSimpleThreads);
  if (method == GH_METHOD_READ_ONLY)
    {
      launch_read_only (strip.samples, strip.bytes, t.read_sink, grid, kSimpleThreads, stream);
      return;
    }
  const int channels = t.plan.channels, shift = t.plan.shift, bins = t.plan.bins;
  const size_t pixels = strip.bytes / (2 * channels);
  const wide_strip samples = { reinterpret_cast<const uint16_t *> (strip.samples), pixels, channels,
                               t.shape.planar ? planar_stride (pixels) : 0 };
  unsigned int *out = static_cast<unsigned int *> (t.strip);
  if (method == GH_METHOD_GLOBAL_ATOMICS)
    launch_wide_global_atomics (samples, shift, bins, out, grid, kSimpleThreads, stream);
  else
    launch_wide_fastest (t.method[method].wide, samples, shift, bins, out, t.scratch, stream);
}

void
describe_wide_tables (const hist_tables &t, char *out, size_t size)
{
  describe_wide_plan (t.method[GH_METHOD_FASTEST].wide, t.plan.channels, t.plan.bins, out, size);
}

/* The privatized row is left out where its 64-bit table does not fit a block, as for the wide
 * tables. */
gh_status
plan_weighted_methods (const cudaDeviceProp &device, gh_run_plan *plan, gh_run_sink *sink,
                       hist_tables *t, gh_error *error)
{
  plan_weighted_global (device, &t->method[GH_METHOD_GLOBAL_ATOMICS].weighted);
  gh_status status
      = plan_weighted_fastest (device, *plan, &t->method[GH_METHOD_FASTEST].weighted, error);
  gh_error ignored;
  if (status == GH_OK && wants (*plan, GH_METHOD_PRIVATIZED)
      && plan_weighted_privatized (device, *plan, &t->method[GH_METHOD_PRIVATIZED].weighted,
                                   &ignored)
             != GH_OK)
    drop_method (plan, sink, GH_METHOD_PRIVATIZED);
  return status;
}

/* The read-only pass reads the coverage plane too. */
void
launch_weighted_method (const hist_tables &t, const cudaDeviceProp &device, gh_method method,
                        const hist_strip &strip, cudaStream_t stream)
{
  const gh_run_plan &plan = t.plan;
  const size_t pixels = strip.bytes / (plan.channels * plan.bytes_per_sample);
  if (method == GH_METHOD_READ_ONLY)
    {
      launch_read_only2 (strip.samples, strip.bytes, strip.coverage,
                         plan.coverage_bytes ? pixels * plan.coverage_bytes : 0, t.read_sink,
                         full_grid (device, kSimpleThreads), kSimpleThreads, stream);
      return;
    }
  const weighted_job job = make_weighted_job (plan, strip.samples, strip.coverage, pixels,
                                              static_cast<unsigned long long *> (t.strip));
  launch_weighted (t.method[method].weighted, job, plan.channels, plan.out_channels, stream);
}

void
describe_weighted (const hist_tables &t, char *out, size_t size)
{
  describe_weighted_plan (t.method[GH_METHOD_FASTEST].weighted, t.plan, out, size);
}

const family_ops kFamilies[] = {
  /* kBytes */ { plan_bytes, launch_bytes, describe_bytes },
  /* kWide */ { plan_wide_tables, launch_wide_tables, describe_wide_tables },
  /* kWeighted */ { plan_weighted_methods, launch_weighted_method, describe_weighted },
};
static_assert (sizeof kFamilies / sizeof kFamilies[0] == kWeighted + 1, "one entry a family");

/* The strip's table, the read-only pass's sink, the wide tables' global copies, and the totals
 * of each method the sink collects. */
gh_status
allocate_tables (hist_tables *t, const gh_run_sink *sink, cudaStream_t stream, gh_error *error)
{
  const hist_shape &shape = t->shape;
  gh_status status = allocate_cleared (&t->strip, cells (shape) * shape.strip_counter, stream,
                                       "allocating device memory", error);
  if (status != GH_OK)
    return status;
  GH_CUDA_CHECK (cudaMalloc (&t->read_sink, sizeof (unsigned int)), "allocating device memory");
  const size_t scratch
      = shape.family == kWide
            ? wide_scratch_bytes (t->method[GH_METHOD_FASTEST].wide, t->plan.channels, t->plan.bins)
            : 0;
  if (scratch)
    status = allocate_cleared (&t->scratch, scratch, stream, "allocating the global copies", error);
  for (int m = 0; m < GH_N_METHODS; m++)
    if (status == GH_OK && (sink->counts[m] || sink->weighted[m]))
      status = allocate_cleared (&t->totals[m], cells (shape) * shape.total_counter, stream,
                                 "allocating device memory", error);
  return status;
}

/* 128-bit sums' low words as counts: a derived run without weights. */
gh_status
collect_low_words (const void *totals, size_t count, uint64_t *counts, gh_error *error)
{
  static_assert (sizeof (gh_u128) == 2 * sizeof (unsigned long long), "{hi, lo} pairs");
  gh_u128 *sums = static_cast<gh_u128 *> (malloc (count * sizeof (gh_u128)));
  if (!sums)
    {
      gh_error_set (error, GH_ERROR_OUT_OF_MEMORY, "out of host memory");
      return GH_ERROR_OUT_OF_MEMORY;
    }
  cudaError_t code = cudaMemcpy (sums, totals, count * sizeof (gh_u128), cudaMemcpyDeviceToHost);
  for (size_t i = 0; code == cudaSuccess && i < count; i++)
    counts[i] = sums[i].lo;
  free (sums);
  GH_CUDA_CHECK (code, "reading the counts back");
  return GH_OK;
}

} // namespace

gh_status
hist_begin (const cudaDeviceProp &device, gh_run_plan *plan, gh_run_sink *sink, cudaStream_t stream,
            hist_tables *t, gh_error *error)
{
  memset (t, 0, sizeof *t);
  t->shape = shape_of (*plan);
  gh_status status = kFamilies[t->shape.family].plan (device, plan, sink, t, error);
  t->plan = *plan;
  return status == GH_OK ? allocate_tables (t, sink, stream, error) : status;
}

gh_status
hist_clear_strip (const hist_tables &t, cudaStream_t stream, gh_error *error)
{
  GH_CUDA_CHECK (cudaMemsetAsync (t.strip, 0, cells (t.shape) * t.shape.strip_counter, stream),
                 "clearing device memory");
  return GH_OK;
}

gh_status
hist_launch (const hist_tables &t, const cudaDeviceProp &device, gh_method method,
             const hist_strip &strip, cudaStream_t stream, gh_error *error)
{
  kFamilies[t.shape.family].launch (t, device, method, strip, stream);
  GH_CUDA_CHECK (cudaGetLastError (), "launching a kernel");
  return GH_OK;
}

gh_status
hist_fold (const hist_tables &t, gh_method method, cudaStream_t stream, gh_error *error)
{
  if (!t.totals[method])
    return GH_OK;
  const int count = static_cast<int> (cells (t.shape));
  unsigned long long *totals = static_cast<unsigned long long *> (t.totals[method]);
  if (t.shape.strip_counter == sizeof (unsigned int))
    launch_fold (static_cast<unsigned int *> (t.strip), totals, count, stream);
  else
    launch_fold128 (static_cast<unsigned long long *> (t.strip), totals, count, stream);
  GH_CUDA_CHECK (cudaGetLastError (), "launching a kernel");
  return GH_OK;
}

gh_status
hist_collect (const hist_tables &t, gh_run_sink *sink, gh_error *error)
{
  const size_t count = cells (t.shape);
  /* 64-bit counts are the sink's uint64_t: copied straight into it, nothing to add. */
  static_assert (sizeof (unsigned long long) == sizeof (uint64_t), "64-bit counts");
  for (int m = 0; m < GH_N_METHODS; m++)
    {
      if (!t.totals[m])
        continue;
      if (t.shape.total_counter == sizeof (gh_u128) && sink->weighted[m])
        GH_CUDA_CHECK (cudaMemcpy (sink->weighted[m], t.totals[m], count * sizeof (gh_u128),
                                   cudaMemcpyDeviceToHost),
                       "reading the sums back");
      else if (t.shape.total_counter == sizeof (gh_u128) && sink->counts[m])
        {
          gh_status status = collect_low_words (t.totals[m], count, sink->counts[m], error);
          if (status != GH_OK)
            return status;
        }
      else if (sink->counts[m])
        GH_CUDA_CHECK (cudaMemcpy (sink->counts[m], t.totals[m], count * sizeof (uint64_t),
                                   cudaMemcpyDeviceToHost),
                       "reading the counts back");
    }
  return GH_OK;
}

void
hist_describe (const hist_tables &t, char *out, size_t size)
{
  kFamilies[t.shape.family].describe (t, out, size);
}

void
hist_free (hist_tables *t)
{
  cudaFree (t->strip);
  cudaFree (t->read_sink);
  cudaFree (t->scratch);
  for (int m = 0; m < GH_N_METHODS; m++)
    cudaFree (t->totals[m]);
  memset (t, 0, sizeof *t);
}

} // namespace gh
