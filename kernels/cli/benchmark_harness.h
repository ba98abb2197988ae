/* gpu-histogram: the benchmark's harness (`gpuhist --bench`): its inputs, rows and timings, and
 * the bench class whose 8-bit tables are in benchmark.cu and whose wide (16-bit) tables are in
 * benchmark_wide.cu.  C++, internal to the benchmark. */
#ifndef GPUHIST_BENCHMARK_HARNESS_H
#define GPUHIST_BENCHMARK_HARNESS_H

#include "benchmark.h"

#include <cuda_runtime.h>

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace gh_bench
{

struct timing
{
  double median = 0, min = 0, max = 0;
  bool ran = false;
};

struct input
{
  std::string name;
  int channels;
  size_t bytes;
  bool seed;
  std::vector<unsigned long long> reference; /* channels * bins */
  int bins = GH_BINS;
  int bytes_per_sample = 1;
};

/* One kernel of a table: its name, whether it counts (and so is verified), how to launch it
 * over an input into a table, and its time. */
struct kernel_row
{
  std::string name;
  bool counts;
  std::function<void (const uint8_t *, unsigned int *)> launch;
  timing t = {};
};

/* The whole run as the engine does it for SLICED, beside its parts. */
struct sliced_timings
{
  timing whole, upload_only, deinterleave;
};

class bench
{
public:
  bench (FILE *out, const gh_bench_options &options, gh_error *error)
      : out_ (out), options_ (options), error (error)
  {
  }
  gh_status run ();

private:
  /* The harness (benchmark.cu). */
  gh_status open_device ();
  gh_status make_input (input &in, const std::function<void (uint8_t *)> &fill_host,
                        bool noise_on_device);
  gh_status verify (const input &in, const char *kernel,
                    const std::function<void (const uint8_t *, unsigned int *)> &launch);
  /* Times `repetitions` runs after 2 warm-ups; each run's ms is appended to *samples too. */
  gh_status time (const std::function<void (const uint8_t *)> &launch, int repetitions,
                  timing *result, std::vector<double> *samples = nullptr);
  gh_status measure_uploads ();
  gh_status verify_then_time (const input &in, std::vector<kernel_row> &rows, bool slow_global);
  /* Adds CUB's row, given how to call it; sizes its temporary storage first. */
  using cub_fn = std::function<cudaError_t (void *, size_t &, const uint8_t *, unsigned int *)>;
  gh_status add_cub_row (std::vector<kernel_row> &rows, const cub_fn &call);
  void release ();

  /* The 8-bit tables (benchmark.cu). */
  gh_status run_seed_table ();
  gh_status run_images (int side);
  gh_status run_input (input &in);
  void add_input_rows (const input &in, std::vector<kernel_row> &rows);
  gh_status add_input_cub_row (const input &in, std::vector<kernel_row> &rows);
  void print_input_table (const input &in, const std::vector<kernel_row> &rows, double busiest,
                          int used);
  void print_summary ();

  /* The schedule comparison (benchmark_schedule.cu): run_input's rows when schedules_only_. */
  gh_status run_schedule_input (input &in);
  /* Rows from *fixed_from on time an empty strip (no share of the ceiling). */
  gh_status add_schedule_rows (const input &in, std::vector<kernel_row> &rows, size_t *fixed_from);

  /* The wide tables (benchmark_wide.cu). */
  gh_status run_wide ();
  gh_status run_wide_input (input &in);
  gh_status make_planar_copies (const input &in, std::vector<uint8_t *> &planar_copies);
  gh_status add_strategy_rows (const input &in, int shift,
                               const std::vector<uint8_t *> &planar_copies,
                               std::vector<kernel_row> &rows,
                               std::vector<unsigned int *> &scratches);
  gh_status add_wide_cub_row (const input &in, std::vector<kernel_row> &rows);
  gh_status time_sliced_run (const input &in, int shift, uint8_t *planes, sliced_timings *result);
  void print_wide_table (const input &in, const std::vector<kernel_row> &rows,
                         const sliced_timings &sliced);

  FILE *out_;
  gh_bench_options options_;
  gh_error *error;
  cudaDeviceProp device_{};
  cudaStream_t stream_ = nullptr;
  std::vector<uint8_t *> copies_;
  uint8_t *host_ = nullptr;
  size_t host_bytes_ = 0;
  unsigned int *bins_ = nullptr;
  size_t table_bytes_ = GH_MAX_CHANNELS * GH_BINS * sizeof (unsigned int); /* cleared a run */
  unsigned int *sink_ = nullptr;
  void *cub_temp_ = nullptr;
  size_t cub_temp_bytes_ = 0;
  struct summary_row
  {
    std::string name;
    double busiest;
    int used;
    timing global, privatized, fastest, read16, read1, cub;
  };
  std::vector<summary_row> summary_;
  bool schedules_only_ = false; /* GPUHIST_BENCH_ONLY=schedule */
};

} // namespace gh_bench

#endif /* GPUHIST_BENCHMARK_HARNESS_H */
