/* gpu-histogram: the benchmark's schedule comparison (GPUHIST_BENCH_ONLY=schedule): on the seed's
 * table and the 8192² and 16384² RGBA inputs, FASTEST as the engine runs it beside the same
 * kernel in the engine's earlier walk (kBenchWalks), with the read-only ceiling.  The
 * rows are timed in turn, round after round (GPUHIST_BENCH_ROUNDS, default 5), so that a drift
 * of the clocks spreads over all of them, and each row's share of the ceiling is also given
 * round by round, against the ceiling's time in the same round.  The ceiling is timed twice:
 * its second row's share is what the run cannot tell from 100 %. */
#include "benchmark_harness.h"
#include "benchmark_weighted.h"
#include "cuda_launch.h"
#include "hist_kernels.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

/* The walks the schedule times beside the engine's, built from hist_kernels.cuh's templates. */
namespace gh
{

namespace
{

/* Neither walk bit: a bin's address from a shift and a masked OR, every step checked. */
constexpr int kShiftedBins = 0;

/* The engine's earlier walk, timed beside the engine's so that what byte-aligned bins and whole
 * steps gain stays measurable (docs/BENCHMARKS.md; instantiated for 1 and 4 channels below). */
constexpr int kBenchWalks[] = { kShiftedBins };
constexpr int kBenchWalkCount = sizeof kBenchWalks / sizeof kBenchWalks[0];

/* The walk without kFullSteps: every load and count checked.  The next step's loads are issued
 * before this step is counted: with one 1024-thread block an SM, that is what keeps enough bytes
 * in flight. */
template <int C, int L, int THREADS, int WALK, int OWNED>
__device__ __forceinline__ void
walk_checked (unsigned int *sh, const uint4 *vec, size_t units, size_t vectors,
              unsigned int (&low)[OWNED], unsigned int (&high)[OWNED], int flush_every)
{
  constexpr int V = fastest_traits<C, L, WALK>::vectors;
  constexpr size_t step_units = C == 3 ? THREADS : THREADS * V;
  const size_t grid_step = gridDim.x * step_units;
  const unsigned int lane = threadIdx.x & 31u;
  uint4 q[V];
  bool valid[V];
  size_t base = blockIdx.x * step_units;
  load_step<C, THREADS, V> (vec, base, units, vectors, q, valid);
  zero_tables<C, L, THREADS, WALK> (sh, low, high);

  int steps_since_flush = 0;
  for (; base < units; base += grid_step)
    {
      uint4 next[V];
      bool next_valid[V];
      load_step<C, THREADS, V> (vec, base + grid_step, units, vectors, next, next_valid);
      count_step<C, L, WALK, V> (sh, lane, q, valid);
      flush_if_due<C, L, THREADS> (sh, low, high, flush_every, steps_since_flush);
#pragma unroll
      for (int k = 0; k < V; k++)
        {
          q[k] = next[k];
          valid[k] = next_valid[k];
        }
    }
}

/* FASTEST's pass (hist_kernels.cuh) in a walk without kFullSteps. */
template <int C, int L, int WALK>
__global__ void
__launch_bounds__ (kFastestThreads)
    checked_fastest_kernel (const uint8_t *__restrict__ in, size_t n, unsigned int *bins,
                            int flush_every)
{
  static_assert (!(WALK & kFullSteps), "the engine's kernel walks whole steps");
  fastest_pass<C, L, kFastestThreads, WALK> (
      in, n, bins,
      [flush_every] (unsigned int *sh, const uint4 *vec, size_t units, size_t vectors, auto &low,
                     auto &high) {
        walk_checked<C, L, kFastestThreads, WALK> (sh, vec, units, vectors, low, high, flush_every);
      });
}

using fastest_fn = void (*) (const uint8_t *, size_t, unsigned int *, int);

/* The lane-column layout in the walks of kBenchWalks, [channels 1, 4][i]. */
const fastest_fn walk_kernels[2][kBenchWalkCount] = {
  { checked_fastest_kernel<1, kLaneColumns, kBenchWalks[0]> },
  { checked_fastest_kernel<4, kLaneColumns, kBenchWalks[0]> },
};

/* The walk in words (its bits, comma-separated), into out. */
void
walk_name (int walk, char *out, size_t size)
{
  snprintf (out, size, "%s, %s", walk & kBytePerm ? "byte-aligned bins" : "shifted bins",
            walk & kFullSteps ? "whole steps unchecked" : "every step checked");
}

/* The lane-column layout for 1 or 4 channels in walk kBenchWalks[i]: the engine's plan, with that
 * walk's tables and the blocks of them that fit an SM. */
gh_status
plan_bench_walk (const cudaDeviceProp &device, int channels, int i, launch_plan *plan,
                 gh_error *error)
{
  gh_status status = plan_fastest (device, channels, GH_LAYOUT_LANE_COLUMNS, plan, error);
  if (status != GH_OK)
    return status;
  plan->shared_bytes = table_bytes (channels, kLaneColumns, kBenchWalks[i]);
  const void *kernel = reinterpret_cast<const void *> (walk_kernels[channels == 1 ? 0 : 1][i]);
  cudaError_t code = cudaFuncSetAttribute (kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int> (plan->shared_bytes));
  int per_sm = 0;
  if (code == cudaSuccess)
    code = cudaOccupancyMaxActiveBlocksPerMultiprocessor (&per_sm, kernel, plan->threads,
                                                          plan->shared_bytes);
  if (code == cudaSuccess && per_sm > 0)
    plan->blocks = per_sm * device.multiProcessorCount;
  if (code != cudaSuccess)
    {
      cudaGetLastError ();
      gh_error_set (error, GH_ERROR_GPU_FAILED, "walk %d: %s", kBenchWalks[i],
                    cudaGetErrorString (code));
      return GH_ERROR_GPU_FAILED;
    }
  return GH_OK;
}

} // namespace

} // namespace gh

namespace gh_bench
{

namespace
{

constexpr int kDefaultRounds = 5;
constexpr int kMaxRounds = 100;

int
rounds_wanted ()
{
  const char *text = getenv ("GPUHIST_BENCH_ROUNDS");
  const int rounds = text ? atoi (text) : kDefaultRounds;
  return rounds >= 1 && rounds <= kMaxRounds ? rounds : kDefaultRounds;
}

double
median_of (std::vector<double> ms)
{
  std::sort (ms.begin (), ms.end ());
  const size_t k = ms.size ();
  return k % 2 ? ms[k / 2] : (ms[k / 2 - 1] + ms[k / 2]) / 2;
}

/* "min-median-max" of the row's per-round shares of the ceiling (row 0), in %. */
std::string
round_shares (const std::vector<double> &ceiling, const std::vector<double> &row)
{
  std::vector<double> shares;
  for (size_t k = 0; k < row.size (); k++)
    shares.push_back (100 * ceiling[k] / row[k]);
  const auto [low, high] = std::minmax_element (shares.begin (), shares.end ());
  char text[48];
  snprintf (text, sizeof text, "%.1f-%.1f-%.1f", *low, median_of (shares), *high);
  return text;
}

} // namespace

gh_status
bench::add_schedule_rows (const input &in, std::vector<kernel_row> &rows, size_t *fixed_from)
{
  const int c = in.channels;
  const size_t n = in.bytes;
  const int grid256 = gh::full_grid (device_, 256);
  cudaStream_t s = stream_;
  unsigned int *sink = sink_;
  for (const char *name :
       { "read-only, 16-byte loads (ceiling)", "read-only again (the run's own spread)" })
    rows.push_back ({ name, false, [=] (const uint8_t *p, unsigned int *) {
                       gh::launch_read_only (p, n, sink, grid256, 256, s);
                     } });
  gh::launch_plan plan;
  gh_status status = gh::plan_fastest (device_, c, GH_LAYOUT_AUTO, &plan, error);
  if (status != GH_OK)
    return status;
  char engine[160];
  gh::walk_name (gh::engine_walk (c), engine, sizeof engine);
  rows.push_back (
      { std::string ("fastest, the engine's: ") + engine, true,
        [=] (const uint8_t *p, unsigned int *b) { gh::launch_fastest (c, plan, p, n, b, s); } });
  /* Walks of the lane-column layout, for 1 and 4 channels. */
  for (int i = 0; (c == 1 || c == 4) && i < gh::kBenchWalkCount; i++)
    {
      gh::launch_plan part;
      status = gh::plan_bench_walk (device_, c, i, &part, error);
      if (status != GH_OK)
        return status;
      char description[240], walk[96];
      gh::describe_plan (part, c, description, sizeof description);
      gh::walk_name (gh::kBenchWalks[i], walk, sizeof walk);
      const gh::fastest_fn kernel = gh::walk_kernels[c == 1 ? 0 : 1][i];
      rows.push_back ({ std::string ("walk: ") + description + "; " + walk, true,
                        [=] (const uint8_t *p, unsigned int *b) {
                          kernel<<<part.blocks, part.threads, part.shared_bytes, s>>> (
                              p, n, b, part.flush_every);
                        } });
    }
  /* The fixed cost of a launch: both kernels on an empty strip (FASTEST still zeroes its tables
   * and reads them back in the merge). */
  *fixed_from = rows.size ();
  rows.push_back (
      { "read-only, empty strip: the launch", false, [=] (const uint8_t *p, unsigned int *) {
         gh::launch_read_only (p, 0, sink, grid256, 256, s);
       } });
  rows.push_back (
      { "fastest, the engine's, empty strip: launch, zeroing, merge", false,
        [=] (const uint8_t *p, unsigned int *b) { gh::launch_fastest (c, plan, p, 0, b, s); } });
  return GH_OK;
}

/* Every row verified, then timed kRounds times in turn; the medians are of all runs. */
gh_status
bench::run_schedule_input (input &in)
{
  std::vector<kernel_row> rows;
  size_t fixed_from = 0;
  gh_status status = add_schedule_rows (in, rows, &fixed_from);
  for (size_t r = 0; status == GH_OK && r < rows.size (); r++)
    if (rows[r].counts)
      status = verify (in, rows[r].name.c_str (), rows[r].launch);
  const int rounds = rounds_wanted ();
  std::vector<std::vector<double>> samples (rows.size ()), medians (rows.size ());
  for (int round = 0; status == GH_OK && round < rounds; round++)
    for (size_t r = 0; status == GH_OK && r < rows.size (); r++)
      {
        auto launch = rows[r].launch;
        unsigned int *b = bins_;
        timing t;
        status = time ([&] (const uint8_t *p) { launch (p, b); }, options_.repetitions, &t,
                       &samples[r]);
        medians[r].push_back (t.median);
      }
  if (status != GH_OK)
    return status;

  fprintf (out_,
           "#### %s: %.1f MiB, %d channel%s\n\n| kernel | ms (median of %d) | min-max | "
           "%% of read-only | %% by round (min-median-max) | round medians |\n"
           "|---|---:|---:|---:|---:|---|\n",
           in.name.c_str (), in.bytes / 1048576.0, in.channels, in.channels > 1 ? "s" : "",
           rounds * options_.repetitions);
  double ceiling = 0;
  for (size_t r = 0; r < rows.size (); r++)
    {
      const double median = median_of (samples[r]);
      ceiling = r == 0 ? median : ceiling;
      std::string round_list;
      for (double m : medians[r])
        round_list += (round_list.empty () ? "" : " ") + std::to_string (m).substr (0, 6);
      char percent[16] = "-";
      std::string by_round = "-";
      if (r < fixed_from)
        {
          snprintf (percent, sizeof percent, "%.1f", 100 * ceiling / median);
          by_round = round_shares (medians[0], medians[r]);
        }
      const auto [fastest, slowest] = std::minmax_element (samples[r].begin (), samples[r].end ());
      fprintf (out_, "| %s | %.4f | %.4f-%.4f | %s | %s | %s |\n", rows[r].name.c_str (), median,
               *fastest, *slowest, percent, by_round.c_str (), round_list.c_str ());
    }
  fputc ('\n', out_);
  fflush (out_);
  return GH_OK;
}

} // namespace gh_bench
