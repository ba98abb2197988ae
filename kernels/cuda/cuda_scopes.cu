/* gpu-histogram: the CUDA backend's scopes (cuda_scopes.h). */
#include "cuda_check.h"
#include "cuda_launch.h"
#include "cuda_scopes.h"
#include "cuda_weighted.h"
#include "cuda_weighted_waveform.h"
#include "scope_compact_vectorscope.cuh"
#include "scope_fast_kernels.cuh"
#include "scope_lane_waveform.cuh"
#include "scope_kernels.cuh"

#include <cstdlib>
#include <cstring>
#include <vector>

namespace gh
{

namespace
{

constexpr int kStripeThreads = 256;
/* A stripe's slice at most this size, so that several blocks share an SM and their loads hide
 * each other's latency. */
constexpr size_t kStripeSliceBytes = 24 << 10;
constexpr int kVectorscopeThreads = 1024;
/* The fast waveform: tiles of 64 image columns, 16 x 16 threads (four pixels a thread in x), a
 * slice within the default 48 KiB. */
constexpr int kTileWidth = 64;
constexpr size_t kTileSliceBytes = 48 << 10;

bool
wants (const gh_run_plan &plan, int method)
{
  return (plan.methods & GH_METHOD_BIT (method)) != 0;
}

/* Leaves a method out of one scope: its sink tables go, so the result shows it as not run. */
void
drop_scope_method (gh_run_sink *sink, int kind, int m)
{
  free (sink->scope[kind].counts[m]);
  free (sink->scope[kind].weighted[m]);
  free (sink->scope[kind].rep_ms[m]);
  sink->scope[kind].counts[m] = nullptr;
  sink->scope[kind].weighted[m] = nullptr;
  sink->scope[kind].rep_ms[m] = nullptr;
}

/* Stripes of output columns, each slice within kStripeSliceBytes (one column at least), and
 * bands of rows enough to give every SM several blocks. */
scope_launch
plan_stripes (const cudaDeviceProp &device, const gh_table_shape &shape)
{
  scope_launch l = {};
  const size_t column_bytes = static_cast<size_t> (shape.tables) * shape.bins * 4;
  if (column_bytes > device.sharedMemPerBlockOptin)
    return l;
  l.supported = true;
  l.counter_bits = 32;
  l.threads = kStripeThreads;
  size_t per_block = kStripeSliceBytes / column_bytes;
  per_block = per_block < 1                                     ? 1
              : per_block > static_cast<size_t> (shape.columns) ? shape.columns
                                                                : per_block;
  l.columns_per_block = static_cast<int> (per_block);
  l.shared_bytes = per_block * column_bytes;
  l.blocks_x = (shape.columns + l.columns_per_block - 1) / l.columns_per_block;
  const int wanted = 2 * full_grid (device, kStripeThreads);
  l.blocks_y = (wanted + l.blocks_x - 1) / l.blocks_x;
  return l;
}

/* The whole table in 16-bit counters (unweighted), or two slices of Cr in 32-bit ones. */
scope_launch
plan_vectorscope (const cudaDeviceProp &device, const gh_run_plan &plan)
{
  scope_launch l = {};
  const size_t cells = GH_VECTORSCOPE_SIZE * GH_VECTORSCOPE_SIZE;
  l.counter_bits = gh_plan_weighted (&plan) ? 32 : 16;
  l.blocks_y = l.counter_bits == 16 ? 1 : 2;
  l.shared_bytes = cells * l.counter_bits / 8 / l.blocks_y;
  l.supported = l.shared_bytes <= device.sharedMemPerBlockOptin;
  l.threads = kVectorscopeThreads;
  l.blocks_x = device.multiProcessorCount;
  return l;
}

/* The lane-table waveform's shared memory: a slot for each channel with a table
 * (upload_geometry numbers them). */
size_t
lane_bytes (const gh_run_plan &plan)
{
  const gh_table_shape &shape = plan.scope[GH_SCOPE_WAVEFORM];
  int slots = 0;
  for (int c = 0; c < plan.out_channels; c++)
    slots += (shape.channels >> c) & 1u;
  return lane_table_bytes (slots);
}

/* The lane-table waveform's runs: 8-bit RGB and RGBA whose tables fit a block (weighted ones
 * in scope_weighted_waveform.cuh). */
bool
lanes_apply (const cudaDeviceProp &device, const gh_run_plan &plan)
{
  return plan.bytes_per_sample == 1 && (plan.channels == 3 || plan.channels == 4)
         && lane_bytes (plan) <= device.sharedMemPerBlockOptin;
}

/* Whether every output column starts at a multiple of 4 pixels, so that a lane's four pixels
 * lie in one column. */
bool
columns_in_fours (const gh_run_plan &plan)
{
  const int columns = plan.scope[GH_SCOPE_WAVEFORM].columns;
  if (plan.width % 4 != 0)
    return false;
  for (int x = 0; x < plan.width; x += 4)
    if (gh_waveform_column (x, columns, plan.width)
        != gh_waveform_column (x + 3, columns, plan.width))
      return false;
  return true;
}

/* Opts a kernel into the shared memory its launch needs (above the default 48 KiB). */
template <typename KERNEL>
gh_status
allow_shared (KERNEL kernel, size_t bytes, gh_error *error)
{
  GH_CUDA_CHECK (cudaFuncSetAttribute (kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int> (bytes)),
                 "configuring a kernel");
  return GH_OK;
}

/* The lane-table waveform of C channels, l.lanes image columns a lane, under the run's rule. */
template <int C>
auto
lanes_kernel (const scope_launch &l, const gh_run_plan &plan)
{
  const bool gimp2 = plan.luminance == GH_LUMINANCE_GIMP2;
  return l.lanes == 4
             ? (gimp2 ? waveform_lanes_kernel<C, 4, true> : waveform_lanes_kernel<C, 4, false>)
             : (gimp2 ? waveform_lanes_kernel<C, 1, true> : waveform_lanes_kernel<C, 1, false>);
}

/* The lane-table waveform's blocks an SM, by the occupancy calculator (1 where it fails). */
template <int C>
int
lanes_per_sm (const gh_run_plan &plan, const scope_launch &l)
{
  gh_error ignored = {};
  int blocks = 0;
  if (allow_shared (lanes_kernel<C> (l, plan), l.shared_bytes, &ignored) != GH_OK
      || cudaOccupancyMaxActiveBlocksPerMultiprocessor (&blocks, lanes_kernel<C> (l, plan),
                                                        l.threads, l.shared_bytes)
             != cudaSuccess)
    {
      cudaGetLastError ();
      return 1;
    }
  return blocks > 0 ? blocks : 1;
}

/* The lane-table waveform: stripes of 32 lanes of 1 or 4 image columns, and bands of rows as
 * many as fill the GPU's block slots to 90 % in whole waves (or the best of those tried): a
 * band more costs the stripes' columns added into the strip table once more.  Weighted runs
 * take at least the bands that keep their counters' sums below 2^32, and the privatized plan
 * where those are more than a grid can hold. */
scope_launch
plan_lanes (const cudaDeviceProp &device, const gh_run_plan &plan, const scope_launch &privatized)
{
  scope_launch l = privatized;
  l.fast = l.supported = true;
  l.lanes = columns_in_fours (plan) ? 4 : 1;
  l.counter_bits = 32;
  l.threads = kLaneThreads;
  l.shared_bytes = lane_bytes (plan);
  l.blocks_x = (plan.width + 32 * l.lanes - 1) / (32 * l.lanes);
  const size_t rows = gh_plan_strip_pixels (&plan) / plan.width;
  const bool weighted = gh_plan_weighted (&plan);
  const int per_sm = weighted             ? weighted_lanes_per_sm (plan, l)
                     : plan.channels == 3 ? lanes_per_sm<3> (plan, l)
                                          : lanes_per_sm<4> (plan, l);
  const size_t slots = static_cast<size_t> (per_sm) * device.multiProcessorCount;
  const size_t most = 4 * ((slots + l.blocks_x - 1) / l.blocks_x);
  size_t best = 1;
  double best_share = 0;
  for (size_t bands = 1; bands <= most && (bands == 1 || bands <= rows); bands++)
    {
      const size_t blocks = bands * l.blocks_x, waves = (blocks + slots - 1) / slots;
      const double share = static_cast<double> (blocks) / static_cast<double> (waves * slots);
      if (share > best_share)
        {
          best = bands;
          best_share = share;
        }
      if (share >= 0.9)
        break;
    }
  if (weighted)
    {
      const size_t band_rows = weighted_lanes_band_rows (plan, l.lanes);
      const size_t bands = band_rows ? (rows + band_rows - 1) / band_rows : 0;
      if (bands == 0 || bands > 65535)
        return privatized;
      best = bands > best ? bands : best;
    }
  l.blocks_y = static_cast<int> (best);
  return l;
}

/* The other fast kernels' runs: unweighted 8-bit samples in rows of whole fours of pixels (so
 * that four pixels are one aligned load). */
bool
fast_applies (const gh_run_plan &plan, int kind)
{
  return !gh_plan_weighted (&plan) && plan.bytes_per_sample == 1 && plan.width % 4 == 0
         && (kind == GH_SCOPE_WAVEFORM || plan.channels >= 3);
}

/* The most output columns one tile of kTileWidth image columns reaches. */
int
tile_slice_columns (const gh_run_plan &plan)
{
  const gh_table_shape &shape = plan.scope[GH_SCOPE_WAVEFORM];
  int most = 1;
  for (int x0 = 0; x0 < plan.width; x0 += kTileWidth)
    {
      const int x1 = x0 + kTileWidth < plan.width ? x0 + kTileWidth : plan.width;
      const int reach = gh_waveform_column (x1 - 1, shape.columns, plan.width)
                        - gh_waveform_column (x0, shape.columns, plan.width) + 1;
      most = reach > most ? reach : most;
    }
  return most;
}

using scope_kernel = void (*) (scope_job);

/* The compact vectorscope's kernel of the weighted run (8-bit RGB or RGBA). */
scope_kernel
compact_vectorscope_kernel_for (const gh_run_plan &plan)
{
  const bool coverage = plan.coverage_bytes == 1;
  if (plan.channels == 3)
    return compact_vectorscope_kernel<3, false, true>;
  if (!plan.alpha_weighted)
    return compact_vectorscope_kernel<4, false, true>;
  return coverage ? compact_vectorscope_kernel<4, true, true>
                  : compact_vectorscope_kernel<4, true, false>;
}

/* The weighted vectorscope of 8-bit RGB and RGBA (scope_compact_vectorscope.cuh), one block an
 * SM, where a block holds the table (else `fallback`). */
scope_launch
plan_compact_vectorscope (const cudaDeviceProp &device, const gh_run_plan &plan,
                          const scope_launch &fallback)
{
  if (!gh_plan_weighted (&plan) || plan.bytes_per_sample != 1 || plan.coverage_bytes > 1
      || plan.channels < 3 || device.sharedMemPerBlockOptin < kCompactSharedBytes)
    return fallback;
  const scope_kernel kernel = compact_vectorscope_kernel_for (plan);
  int blocks = 0;
  gh_error ignored = {};
  if (allow_shared (kernel, kCompactSharedBytes, &ignored) != GH_OK
      || cudaOccupancyMaxActiveBlocksPerMultiprocessor (&blocks, kernel, kCompactThreads,
                                                        kCompactSharedBytes)
             != cudaSuccess
      || blocks < 1)
    {
      cudaGetLastError ();
      return fallback;
    }
  scope_launch l = {};
  l.supported = l.compact = true;
  l.counter_bits = 32;
  l.blocks_y = 1;
  l.threads = kCompactThreads;
  l.shared_bytes = kCompactSharedBytes;
  l.blocks_x = device.multiProcessorCount * blocks;
  return l;
}

/* FASTEST: the fast kernels where they apply and their slice fits, else the privatized plan. */
scope_launch
plan_fastest_scope (const cudaDeviceProp &device, const gh_run_plan &plan, int kind,
                    const scope_launch &privatized)
{
  scope_launch l = privatized;
  if (kind == GH_SCOPE_WAVEFORM && lanes_apply (device, plan))
    return plan_lanes (device, plan, privatized);
  if (kind == GH_SCOPE_VECTORSCOPE && gh_plan_weighted (&plan))
    return plan_compact_vectorscope (device, plan, privatized);
  if (!fast_applies (plan, kind))
    return l;
  if (kind == GH_SCOPE_VECTORSCOPE)
    {
      l.fast = l.supported = true;
      l.counter_bits = 16;
      l.blocks_y = 1;
      l.shared_bytes = GH_VECTORSCOPE_SIZE * GH_VECTORSCOPE_SIZE * 2;
      return l;
    }
  const gh_table_shape &shape = plan.scope[kind];
  const int slice_columns = tile_slice_columns (plan);
  const size_t bytes = static_cast<size_t> (shape.tables) * slice_columns * 256 * 2;
  if (bytes > kTileSliceBytes)
    return l;
  l.fast = l.supported = true;
  l.counter_bits = 16;
  l.tile_width = kTileWidth;
  l.slice_columns = slice_columns;
  l.shared_bytes = bytes;
  l.threads = 256;
  l.blocks_x = (plan.width + kTileWidth - 1) / kTileWidth;
  const int wanted = full_grid (device, 256);
  l.blocks_y = (wanted + l.blocks_x - 1) / l.blocks_x;
  /* No 16-bit counter may pass 65535: a band's rows times the most image columns of one output
   * column stay below it, for the tallest strip. */
  const size_t rows = gh_plan_strip_pixels (&plan) / plan.width;
  const size_t widest = (static_cast<size_t> (plan.width) + shape.columns - 1) / shape.columns + 1;
  const size_t band_rows = 65535 / widest;
  const size_t bands = (rows + band_rows - 1) / band_rows;
  if (bands > static_cast<size_t> (l.blocks_y))
    l.blocks_y = static_cast<int> (bands);
  return l;
}

/* The waveform's columns of the image, on the device (on the run's stream: cuda_check.h). */
gh_status
upload_geometry (scope_tables *t, cudaStream_t stream, gh_error *error)
{
  const gh_table_shape &shape = t->plan.scope[GH_SCOPE_WAVEFORM];
  const int width = t->plan.width;
  std::vector<int> column_of_x (width), first_x (shape.columns + 1, width);
  for (int x = width - 1; x >= 0; x--)
    {
      column_of_x[x] = gh_waveform_column (x, shape.columns, width);
      first_x[column_of_x[x]] = x;
    }
  for (int c = 0, n = 0; c < GH_MAX_CHANNELS + 2; c++)
    t->table_of_channel[c] = c < t->plan.out_channels && ((shape.channels >> c) & 1u) ? n++ : -1;
  GH_CUDA_CHECK (cudaMalloc (&t->column_of_x, width * sizeof (int)), "allocating device memory");
  GH_CUDA_CHECK (cudaMalloc (&t->first_x, first_x.size () * sizeof (int)),
                 "allocating device memory");
  /* From pageable memory: the vectors are staged before these return, so they may go. */
  GH_CUDA_CHECK (cudaMemcpyAsync (t->column_of_x, column_of_x.data (), width * sizeof (int),
                                  cudaMemcpyHostToDevice, stream),
                 "uploading the waveform's columns");
  GH_CUDA_CHECK (cudaMemcpyAsync (t->first_x, first_x.data (), first_x.size () * sizeof (int),
                                  cudaMemcpyHostToDevice, stream),
                 "uploading the waveform's columns");
  return GH_OK;
}

gh_status
allocate_scope (scope_tables *t, int kind, cudaStream_t stream, gh_error *error)
{
  const size_t cells = t->cells[kind];
  const size_t total_bytes = cells * (gh_plan_weighted (&t->plan) ? 16 : 8);
  gh_status status
      = allocate_cleared (&t->strip[kind], cells * 8, stream, "allocating device memory", error);
  for (int m = 0; status == GH_OK && m < GH_N_METHODS; m++)
    if (m != GH_METHOD_READ_ONLY && wants (t->plan, m)
        && (m != GH_METHOD_PRIVATIZED || t->launch[kind][m].supported))
      status = allocate_cleared (&t->totals[kind][m], total_bytes, stream,
                                 "allocating device memory", error);
  return status;
}

/* The fast vectorscope's partial tables, one a block, and their marks. */
gh_status
allocate_partials (scope_tables *t, gh_error *error)
{
  const scope_launch &l = t->launch[GH_SCOPE_VECTORSCOPE][GH_METHOD_FASTEST];
  if (t->cells[GH_SCOPE_VECTORSCOPE] == 0 || !(l.fast || l.compact))
    return GH_OK;
  const size_t words = l.compact ? kCompactWords : kVectorscopeWords;
  GH_CUDA_CHECK (cudaMalloc (&t->vectorscope_partials,
                             static_cast<size_t> (l.blocks_x) * words * sizeof (unsigned int)),
                 "allocating device memory");
  GH_CUDA_CHECK (
      cudaMalloc (&t->vectorscope_partial_used, static_cast<size_t> (l.blocks_x) * sizeof (int)),
      "allocating device memory");
  return GH_OK;
}

gh_status
allocate_events (scope_tables *t, gh_error *error)
{
  const int count = 2 * GH_N_SCOPES * GH_N_METHODS * t->plan.repetitions;
  if (count == 0)
    return GH_OK;
  t->events = static_cast<cudaEvent_t *> (calloc (count, sizeof (cudaEvent_t)));
  if (!t->events)
    {
      gh_error_set (error, GH_ERROR_OUT_OF_MEMORY, "out of host memory");
      return GH_ERROR_OUT_OF_MEMORY;
    }
  for (int i = 0; i < count; i++)
    GH_CUDA_CHECK (cudaEventCreate (&t->events[i]), "creating a timer");
  return GH_OK;
}

cudaEvent_t &
event (scope_tables *t, int kind, int m, int r, int stop)
{
  const int reps = t->plan.repetitions;
  return t->events[((kind * GH_N_METHODS + m) * reps + r) * 2 + stop];
}

template <int C>
void
launch_fast (const scope_launch &l, const gh_run_plan &plan, int kind, const scope_job &job,
             cudaStream_t stream)
{
  if constexpr (C >= 3)
    if (kind == GH_SCOPE_WAVEFORM && l.lanes)
      {
        lanes_kernel<C> (
            l, plan)<<<dim3 (l.blocks_x, l.blocks_y), l.threads, l.shared_bytes, stream>>> (job,
                                                                                            256u);
        return;
      }
  if (kind == GH_SCOPE_WAVEFORM)
    waveform_tiles_kernel<C>
        <<<dim3 (l.blocks_x, l.blocks_y), dim3 (16, 16), l.shared_bytes, stream>>> (
            job, l.tile_width, l.slice_columns);
  else
    {
      vectorscope_fast_kernel<C><<<l.blocks_x, l.threads, l.shared_bytes, stream>>> (job);
      vectorscope_fold_partials_kernel<<<kVectorscopeWords / 4 / kFoldWidth,
                                         dim3 (kFoldWidth, kFoldSlices), 0, stream>>> (
          job.partials, job.partial_used, l.blocks_x, job.out);
    }
}

gh_status
launch_fast_scope (const scope_tables *t, int kind, const scope_job &job, cudaStream_t stream,
                   gh_error *error)
{
  const scope_launch &l = t->launch[kind][GH_METHOD_FASTEST];
  if (l.lanes && gh_plan_weighted (&t->plan))
    return launch_weighted_lanes (l, t->plan, job, stream, error);
  if (l.lanes)
    {
      const gh_status status
          = t->plan.channels == 3
                ? allow_shared (lanes_kernel<3> (l, t->plan), l.shared_bytes, error)
                : allow_shared (lanes_kernel<4> (l, t->plan), l.shared_bytes, error);
      if (status != GH_OK)
        return status;
    }
  if (kind == GH_SCOPE_VECTORSCOPE)
    {
      gh_status status = t->plan.channels == 3
                             ? allow_shared (vectorscope_fast_kernel<3>, l.shared_bytes, error)
                             : allow_shared (vectorscope_fast_kernel<4>, l.shared_bytes, error);
      if (status != GH_OK)
        return status;
    }
  switch (t->plan.channels)
    {
    case 1: launch_fast<1> (l, t->plan, kind, job, stream); break;
    case 2: launch_fast<2> (l, t->plan, kind, job, stream); break;
    case 3: launch_fast<3> (l, t->plan, kind, job, stream); break;
    default: launch_fast<4> (l, t->plan, kind, job, stream); break;
    }
  return GH_OK;
}

/* The compact vectorscope, then the fold of its dense blocks' tables. */
gh_status
launch_compact_vectorscope (const scope_tables *t, const scope_job &job, cudaStream_t stream,
                            gh_error *error)
{
  const scope_launch &l = t->launch[GH_SCOPE_VECTORSCOPE][GH_METHOD_FASTEST];
  const scope_kernel kernel = compact_vectorscope_kernel_for (t->plan);
  gh_status status = allow_shared (kernel, l.shared_bytes, error);
  if (status != GH_OK)
    return status;
  kernel<<<l.blocks_x, l.threads, l.shared_bytes, stream>>> (job);
  compact_vectorscope_fold_kernel<<<GH_VECTORSCOPE_SIZE, GH_VECTORSCOPE_SIZE, 0, stream>>> (
      job.partials, job.partial_used, l.blocks_x, job.out);
  return GH_OK;
}

gh_status
launch_scope_method (const scope_tables *t, int kind, int m, const scope_job &job,
                     const cudaDeviceProp &device, cudaStream_t stream, gh_error *error)
{
  const scope_launch &l = t->launch[kind][m];
  const int grid = full_grid (device, 256);
  const dim3 blocks (l.blocks_x, l.blocks_y);
  gh_status status = GH_OK;
  if (m == GH_METHOD_GLOBAL_ATOMICS || !l.supported)
    {
      if (kind == GH_SCOPE_WAVEFORM)
        waveform_global_kernel<<<grid, 256, 0, stream>>> (job);
      else
        vectorscope_global_kernel<<<grid, 256, 0, stream>>> (job);
    }
  else if (l.compact)
    status = launch_compact_vectorscope (t, job, stream, error);
  else if (l.fast)
    status = launch_fast_scope (t, kind, job, stream, error);
  else if (kind == GH_SCOPE_WAVEFORM)
    {
      status = allow_shared (waveform_stripes_kernel, l.shared_bytes, error);
      if (status == GH_OK)
        waveform_stripes_kernel<<<blocks, l.threads, l.shared_bytes, stream>>> (
            job, l.columns_per_block);
    }
  else
    {
      const unsigned int slice = GH_VECTORSCOPE_SIZE * GH_VECTORSCOPE_SIZE / l.blocks_y;
      auto kernel
          = l.counter_bits == 16 ? vectorscope_private_kernel<16> : vectorscope_private_kernel<32>;
      status = allow_shared (kernel, l.shared_bytes, error);
      if (status == GH_OK)
        kernel<<<blocks, l.threads, l.shared_bytes, stream>>> (job, slice);
    }
  if (status == GH_OK)
    GH_CUDA_CHECK (cudaGetLastError (), "launching a kernel");
  return status;
}

gh_status
fold_scope (scope_tables *t, int kind, int m, cudaStream_t stream, gh_error *error)
{
  const size_t cells = t->cells[kind];
  if (gh_plan_weighted (&t->plan))
    launch_fold128 (t->strip[kind], t->totals[kind][m], static_cast<int> (cells), stream);
  else
    fold64_kernel<<<static_cast<unsigned int> ((cells + 255) / 256), 256, 0, stream>>> (
        t->strip[kind], t->totals[kind][m], cells);
  GH_CUDA_CHECK (cudaGetLastError (), "launching a kernel");
  return GH_OK;
}

scope_job
make_job (const scope_tables *t, int kind, const uint8_t *samples, const uint8_t *coverage,
          size_t pixels)
{
  scope_job j;
  const gh_table_shape &shape = t->plan.scope[kind];
  j.pix = make_weighted_job (t->plan, samples, coverage, pixels, nullptr);
  j.width = t->plan.width;
  j.columns = shape.columns;
  j.bins = shape.bins;
  j.tables = shape.tables;
  memcpy (j.table_of_channel, t->table_of_channel, sizeof j.table_of_channel);
  j.column_of_x = t->column_of_x;
  j.first_x = t->first_x;
  j.out = t->strip[kind];
  j.partials = t->vectorscope_partials;
  j.partial_used = t->vectorscope_partial_used;
  return j;
}

/* Every method of the plan on one scope, each repetition timed alone from a cleared table. */
gh_status
time_scope (scope_tables *t, int kind, const scope_job &job, int warmups,
            const cudaDeviceProp &device, cudaStream_t stream, gh_error *error)
{
  const int reps = t->plan.repetitions;
  for (int m = 0; m < GH_N_METHODS; m++)
    {
      if (m == GH_METHOD_READ_ONLY || !t->totals[kind][m])
        continue;
      for (int r = -warmups; r < reps; r++)
        {
          GH_CUDA_CHECK (cudaMemsetAsync (t->strip[kind], 0, t->cells[kind] * 8, stream),
                         "clearing device memory");
          if (r >= 0)
            GH_CUDA_CHECK (cudaEventRecord (event (t, kind, m, r, 0), stream),
                           "recording an event");
          gh_status status = launch_scope_method (t, kind, m, job, device, stream, error);
          if (status != GH_OK)
            return status;
          if (r >= 0)
            GH_CUDA_CHECK (cudaEventRecord (event (t, kind, m, r, 1), stream),
                           "recording an event");
        }
      gh_status status = fold_scope (t, kind, m, stream, error);
      if (status != GH_OK)
        return status;
    }
  return GH_OK;
}

gh_status
read_times (scope_tables *t, int kind, gh_run_sink *sink, gh_error *error)
{
  for (int m = 0; m < GH_N_METHODS; m++)
    for (int r = 0; r < t->plan.repetitions && t->totals[kind][m] && sink->scope[kind].rep_ms[m];
         r++)
      {
        float ms = 0;
        GH_CUDA_CHECK (
            cudaEventElapsedTime (&ms, event (t, kind, m, r, 0), event (t, kind, m, r, 1)),
            "reading a timer");
        sink->scope[kind].rep_ms[m][r] += ms;
      }
  return GH_OK;
}

} // namespace

gh_status
scopes_begin (const cudaDeviceProp &device, const gh_run_plan &plan, gh_run_sink *sink,
              cudaStream_t stream, scope_tables *t, gh_error *error)
{
  memset (t, 0, sizeof *t);
  t->plan = plan;
  bool any = false;
  for (int k = 0; k < GH_N_SCOPES; k++)
    {
      t->cells[k] = gh_table_cells (&plan.scope[k]);
      if (t->cells[k] == 0)
        continue;
      any = true;
      const scope_launch l = k == GH_SCOPE_WAVEFORM ? plan_stripes (device, plan.scope[k])
                                                    : plan_vectorscope (device, plan);
      for (int m = 0; m < GH_N_METHODS; m++)
        t->launch[k][m] = l;
      t->launch[k][GH_METHOD_FASTEST] = plan_fastest_scope (device, plan, k, l);
      /* The seed's pattern needs the slice in a block; where it does not fit, the privatized
       * row is left out, and FASTEST counts with global atomics. */
      if (!l.supported && wants (plan, GH_METHOD_PRIVATIZED))
        drop_scope_method (sink, k, GH_METHOD_PRIVATIZED);
      gh_status status = allocate_scope (t, k, stream, error);
      if (status != GH_OK)
        return status;
    }
  if (!any)
    return GH_OK;
  gh_status status
      = plan.scope[GH_SCOPE_WAVEFORM].tables > 0 ? upload_geometry (t, stream, error) : GH_OK;
  if (status == GH_OK)
    status = allocate_partials (t, error);
  return status == GH_OK ? allocate_events (t, error) : status;
}

gh_status
scopes_count_strip (scope_tables *t, const cudaDeviceProp &device, const uint8_t *samples,
                    const uint8_t *coverage, size_t pixels, int warmups, cudaStream_t stream,
                    gh_run_sink *sink, gh_error *error)
{
  for (int k = 0; k < GH_N_SCOPES; k++)
    {
      if (t->cells[k] == 0)
        continue;
      const scope_job job = make_job (t, k, samples, coverage, pixels);
      gh_status status;
      if (t->plan.repetitions == 0)
        {
          status = launch_scope_method (t, k, GH_METHOD_FASTEST, job, device, stream, error);
          if (status == GH_OK)
            status = fold_scope (t, k, GH_METHOD_FASTEST, stream, error);
        }
      else
        status = time_scope (t, k, job, warmups, device, stream, error);
      if (status != GH_OK)
        return status;
    }
  if (t->plan.repetitions == 0)
    return GH_OK;
  GH_CUDA_CHECK (cudaStreamSynchronize (stream), "counting a strip's scopes");
  for (int k = 0; k < GH_N_SCOPES; k++)
    if (t->cells[k] > 0)
      {
        gh_status status = read_times (t, k, sink, error);
        if (status != GH_OK)
          return status;
      }
  return GH_OK;
}

gh_status
scopes_collect (scope_tables *t, gh_run_sink *sink, gh_error *error)
{
  static_assert (sizeof (gh_u128) == 2 * sizeof (unsigned long long), "{hi, lo} pairs");
  for (int k = 0; k < GH_N_SCOPES; k++)
    for (int m = 0; m < GH_N_METHODS; m++)
      {
        void *target = gh_plan_weighted (&t->plan)
                           ? static_cast<void *> (sink->scope[k].weighted[m])
                           : static_cast<void *> (sink->scope[k].counts[m]);
        if (!t->totals[k][m] || !target)
          continue;
        GH_CUDA_CHECK (cudaMemcpy (target, t->totals[k][m],
                                   t->cells[k] * (gh_plan_weighted (&t->plan) ? 16 : 8),
                                   cudaMemcpyDeviceToHost),
                       "reading a scope back");
      }
  return GH_OK;
}

void
scopes_free (scope_tables *t)
{
  for (int k = 0; k < GH_N_SCOPES; k++)
    {
      cudaFree (t->strip[k]);
      for (int m = 0; m < GH_N_METHODS; m++)
        cudaFree (t->totals[k][m]);
    }
  cudaFree (t->column_of_x);
  cudaFree (t->first_x);
  cudaFree (t->vectorscope_partials);
  cudaFree (t->vectorscope_partial_used);
  const int count = 2 * GH_N_SCOPES * GH_N_METHODS * t->plan.repetitions;
  for (int i = 0; t->events && i < count; i++)
    if (t->events[i])
      cudaEventDestroy (t->events[i]);
  free (t->events);
  memset (t, 0, sizeof *t);
}

} // namespace gh
