/* gpu-histogram: the benchmark's schedule comparison (GPUHIST_BENCH_ONLY=schedule): on the seed's
 * table and the 8192² and 16384² RGBA inputs, FASTEST as the engine runs it beside the same
 * kernel in the walk it had before run 28 (gh::kBenchWalks), with the read-only ceiling.  The
 * rows are timed in turn, round after round (GPUHIST_BENCH_ROUNDS, default 5), so that a drift
 * of the clocks spreads over all of them, and each row's share of the ceiling is also given
 * round by round, against the ceiling's time in the same round.  The ceiling is timed twice:
 * its second row's share is what the run cannot tell from 100 %. */
#include "benchmark_harness.h"
#include "benchmark_weighted.h"
#include "cuda_launch.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

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
  for (int walk : gh::kBenchWalks)
    {
      if (walk == gh::engine_walk (c))
        continue;
      gh::launch_plan part;
      status = gh::plan_fastest_walk (device_, c, walk, &part, error);
      if (status != GH_OK)
        return status;
      char description[240];
      gh::describe_plan (part, c, description, sizeof description);
      rows.push_back (
          { std::string ("walk: ") + description, true, [=] (const uint8_t *p, unsigned int *b) {
             gh::launch_fastest (c, part, p, n, b, s);
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
