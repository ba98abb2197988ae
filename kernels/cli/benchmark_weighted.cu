/* gpu-histogram: the benchmark's weighted section: six weighted histograms of 1 GiB of RGBA
 * and its coverage plane against the read-only pass over the same 1.25 GiB. */
#include "benchmark_weighted.h"
#include "cuda_launch.h"
#include "cuda_weighted.h"
#include "weighted_fast_kernel.cuh"

#include <algorithm>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace gh
{

namespace
{

constexpr int kSide = 16384;
constexpr size_t kPixels = static_cast<size_t> (kSide) * kSide;
constexpr int kOut = 6; /* R, G, B, A, Value, Luminance */

struct row
{
  std::string name;
  bool counts;
  std::function<void ()> launch;
  gh_luminance luminance = GH_LUMINANCE_GIMP2; /* the rule its counts are verified under */
  double median = 0, min = 0, max = 0;
};

gh_run_plan
weighted_rgba_plan (gh_luminance luminance = GH_LUMINANCE_GIMP2)
{
  gh_run_plan plan{};
  plan.luminance = luminance;
  plan.channels = 4;
  plan.bytes_per_sample = 1;
  plan.bins = GH_BINS;
  plan.binning = GH_BINNING_SHIFT;
  plan.coverage_bytes = 1;
  plan.alpha_weighted = 1;
  plan.derived = 1;
  plan.out_channels = kOut;
  return plan;
}

/* The reference on every core: rows split among threads, each into its own sums. */
void
reference (const uint8_t *pixels, const uint8_t *coverage, gh_luminance luminance,
           std::vector<gh_u128> &sums)
{
  const int threads = std::max (1u, std::min (32u, std::thread::hardware_concurrency ()));
  std::vector<std::vector<gh_u128>> parts (threads, std::vector<gh_u128> (kOut * GH_BINS));
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; t++)
    pool.emplace_back ([&, t] {
      const int y0 = kSide * t / threads, y1 = kSide * (t + 1) / threads;
      gh_run_spec spec;
      gh_run_spec_init (&spec, kSide, y1 - y0, 4, 1);
      spec.coverage_bytes = 1;
      spec.alpha_weighted = 1;
      spec.derived = 1;
      spec.luminance = luminance;
      gh_reference_count_spec (&spec, GH_BINS, pixels + static_cast<size_t> (y0) * kSide * 4,
                               kSide * 4, coverage + static_cast<size_t> (y0) * kSide, kSide,
                               parts[t].data ());
    });
  for (std::thread &thread : pool)
    thread.join ();
  sums.assign (kOut * GH_BINS, gh_u128{ 0, 0 });
  for (const std::vector<gh_u128> &part : parts)
    for (size_t i = 0; i < sums.size (); i++)
      gh_u128_add64 (&sums[i], part[i].lo); /* each part is one slice's, below 2^64 */
}

/* How often the rare path runs: the pixels whose luminance estimate lies near a bin edge, and
 * the warps' groups (32 lanes x 4 pixels, 128 pixels in a row) holding one, which the whole warp
 * takes through fix_luminance. */
void
edge_rates (const uint8_t *pixels, double *pixel_rate, double *group_rate)
{
  const int threads = std::max (1u, std::min (32u, std::thread::hardware_concurrency ()));
  const size_t chunks = kPixels / 128;
  std::vector<size_t> near (threads), groups (threads);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; t++)
    pool.emplace_back ([&, t] {
      for (size_t c = chunks * t / threads; c < chunks * (t + 1) / threads; c++)
        {
          size_t here = 0;
          for (const uint8_t *p = pixels + c * 512; p < pixels + c * 512 + 512; p += 4)
            here += ((p[0] * kLumR + p[1] * kLumG + p[2] * kLumB + kLumHalf) & kLumNearEdge) == 0;
          near[t] += here;
          groups[t] += here != 0;
        }
    });
  size_t n = 0, g = 0;
  for (int t = 0; t < threads; t++)
    {
      pool[t].join ();
      n += near[t];
      g += groups[t];
    }
  *pixel_rate = static_cast<double> (n) / kPixels;
  *group_rate = static_cast<double> (g) / chunks;
}

gh_status
time_row (row &r, int repetitions, cudaStream_t stream, unsigned long long *table, gh_error *error)
{
  std::vector<cudaEvent_t> start (repetitions), stop (repetitions);
  for (int k = 0; k < repetitions; k++)
    {
      BENCH_CHECK (cudaEventCreate (&start[k]), "creating an event");
      BENCH_CHECK (cudaEventCreate (&stop[k]), "creating an event");
    }
  for (int k = -2; k < repetitions; k++)
    {
      BENCH_CHECK (cudaMemsetAsync (table, 0, kOut * GH_BINS * 8, stream), "clearing");
      if (k >= 0)
        BENCH_CHECK (cudaEventRecord (start[k], stream), "recording");
      r.launch ();
      if (k >= 0)
        BENCH_CHECK (cudaEventRecord (stop[k], stream), "recording");
    }
  BENCH_CHECK (cudaGetLastError (), r.name.c_str ());
  BENCH_CHECK (cudaStreamSynchronize (stream), r.name.c_str ());
  std::vector<double> ms (repetitions);
  for (int k = 0; k < repetitions; k++)
    {
      float elapsed = 0;
      BENCH_CHECK (cudaEventElapsedTime (&elapsed, start[k], stop[k]), "reading a timer");
      ms[k] = elapsed;
      cudaEventDestroy (start[k]);
      cudaEventDestroy (stop[k]);
    }
  std::sort (ms.begin (), ms.end ());
  r.min = ms.front ();
  r.max = ms.back ();
  r.median
      = repetitions % 2 ? ms[repetitions / 2] : (ms[repetitions / 2 - 1] + ms[repetitions / 2]) / 2;
  return GH_OK;
}

gh_status
verify_row (row &r, const std::vector<gh_u128> &expected, const char *input, cudaStream_t stream,
            unsigned long long *table, gh_error *error)
{
  BENCH_CHECK (cudaMemsetAsync (table, 0, kOut * GH_BINS * 8, stream), "clearing");
  r.launch ();
  BENCH_CHECK (cudaGetLastError (), r.name.c_str ());
  std::vector<unsigned long long> got (kOut * GH_BINS);
  BENCH_CHECK (
      cudaMemcpyAsync (got.data (), table, got.size () * 8, cudaMemcpyDeviceToHost, stream),
      "reading sums");
  BENCH_CHECK (cudaStreamSynchronize (stream), r.name.c_str ());
  for (size_t i = 0; i < got.size (); i++)
    if (expected[i].hi != 0 || got[i] != expected[i].lo)
      {
        gh_error_set (error, GH_ERROR_MISMATCH,
                      "%s on weighted %s: table %zu bin %zu summed %llu, the reference %llu",
                      r.name.c_str (), input, i / GH_BINS, i % GH_BINS, got[i],
                      static_cast<unsigned long long> (expected[i].lo));
        return GH_ERROR_MISMATCH;
      }
  return GH_OK;
}

/* A feathered disc a little smaller than the image: 255 inside, a ramp, 0 outside. */
void
fill_disc (uint8_t *coverage)
{
  const double r0 = 0.40 * kSide, r1 = 0.48 * kSide, c = kSide / 2.0;
  for (size_t y = 0; y < static_cast<size_t> (kSide); y++)
    for (size_t x = 0; x < static_cast<size_t> (kSide); x++)
      {
        const double dx = x - c, dy = y - c, d = __builtin_sqrt (dx * dx + dy * dy);
        const double v = d <= r0 ? 255.0 : d >= r1 ? 0.0 : 255.0 * (r1 - d) / (r1 - r0);
        coverage[y * kSide + x] = static_cast<uint8_t> (v + 0.5);
      }
}

/* The section's memory: the input on the host (pinned) and on the device, the sums, the sink of
 * the read-only pass. */
struct weighted_buffers
{
  uint8_t *host = nullptr, *host_cov = nullptr, *samples = nullptr, *coverage = nullptr;
  unsigned long long *table = nullptr;
  unsigned int *sink = nullptr;
};

gh_status
allocate_buffers (weighted_buffers &b, gh_error *error)
{
  const size_t bytes = kPixels * 4, plane = kPixels;
  BENCH_CHECK (cudaMallocHost (&b.host, bytes), "allocating pinned memory");
  BENCH_CHECK (cudaMallocHost (&b.host_cov, plane), "allocating pinned memory");
  BENCH_CHECK (cudaMalloc (&b.samples, bytes + 16), "allocating");
  BENCH_CHECK (cudaMalloc (&b.coverage, plane + 16), "allocating");
  BENCH_CHECK (cudaMalloc (&b.table, kOut * GH_BINS * 8), "allocating");
  BENCH_CHECK (cudaMalloc (&b.sink, 4), "allocating");
  return GH_OK;
}

void
free_buffers (weighted_buffers &b)
{
  cudaFreeHost (b.host);
  cudaFreeHost (b.host_cov);
  cudaFree (b.samples);
  cudaFree (b.coverage);
  cudaFree (b.table);
  cudaFree (b.sink);
}

/* The variants of FASTEST that the section launches itself get the plan's shared memory. */
gh_status
size_fastest_variants (const weighted_plan &fastest, gh_error *error)
{
  const int shared = static_cast<int> (fastest.shared_bytes);
  const cudaFuncAttribute attribute = cudaFuncAttributeMaxDynamicSharedMemorySize;
  BENCH_CHECK (cudaFuncSetAttribute (weighted_fast_kernel<4, 1, true, true, 4>, attribute, shared),
               "sizing shared memory");
  BENCH_CHECK (cudaFuncSetAttribute (weighted_fast_kernel<4, 1, true, true, 1>, attribute, shared),
               "sizing shared memory");
  BENCH_CHECK (cudaFuncSetAttribute (weighted_fast_kernel<4, 1, true, false>, attribute, shared),
               "sizing shared memory");
  BENCH_CHECK (cudaFuncSetAttribute (weighted_fast_kernel<4, 0, false, true>, attribute, shared),
               "sizing shared memory");
  return GH_OK;
}

/* The table's rows: the read-only ceiling, FASTEST and its variants, the probes, the privatized
 * kernel and global atomics. */
std::vector<row>
make_rows (const cudaDeviceProp &device, cudaStream_t stream, const weighted_buffers &b,
           const weighted_plan &fastest, const weighted_plan &fastest3,
           const weighted_plan &privatized, const weighted_plan &global)
{
  const size_t bytes = kPixels * 4, plane = kPixels;
  uint8_t *samples = b.samples, *coverage = b.coverage;
  unsigned long long *table = b.table;
  unsigned int *sink = b.sink;
  const gh_run_plan run = weighted_rgba_plan ();
  char description[160];
  describe_weighted_plan (fastest, run, description, sizeof description);
  const weighted_job job = make_weighted_job (run, samples, coverage, kPixels, table);
  const weighted_job job3 = make_weighted_job (weighted_rgba_plan (GH_LUMINANCE_GIMP3), samples,
                                               coverage, kPixels, table);
  const int grid = full_grid (device, 256);
  /* The variants of other GROUPS flush as often as their steps need (weighted_fast_kernel.cuh). */
  const unsigned int w = weighted_max_weight (run);
  const int flush4 = static_cast<int> (weighted_flush_steps (w, 4));
  const int flush1 = static_cast<int> (weighted_flush_steps (w, 1));
  return {
    { "read-only, samples + coverage (ceiling)", false,
      [=] { launch_read_only2 (samples, bytes, coverage, plane, sink, grid, 256, stream); } },
    { std::string ("fastest: ") + description, true,
      [=] { launch_weighted (fastest, job, 4, kOut, stream); } },
    { "fastest, GIMP 3.0's luminance (looked up)", true,
      [=] { launch_weighted (fastest3, job3, 4, kOut, stream); }, GH_LUMINANCE_GIMP3 },
    { "fastest, 4 groups of 4 pixels a step (more loads in flight)", true,
      [=] {
        weighted_fast_kernel<4, 1, true, true, 4>
            <<<fastest.blocks, fastest.threads, fastest.shared_bytes, stream>>> (
                samples, coverage, kPixels, flush4, table, 256u, GH_LUMINANCE_GIMP2);
      } },
    { "fastest, 1 group of 4 pixels a step (fewer registers)", true,
      [=] {
        weighted_fast_kernel<4, 1, true, true, 1>
            <<<fastest.blocks, fastest.threads, fastest.shared_bytes, stream>>> (
                samples, coverage, kPixels, flush1, table, 256u, GH_LUMINANCE_GIMP2);
      } },
    { "probe, not verified: 4 tables (R, G, B, A weighted, no derived)", false,
      [=] {
        weighted_fast_kernel<4, 1, true, false>
            <<<fastest.blocks, fastest.threads, fastest.shared_bytes, stream>>> (
                samples, coverage, kPixels, fastest.flush_every, table, 256u, GH_LUMINANCE_GIMP2);
      } },
    { "probe, not verified: 6 tables of weight 1 (derived, no weights)", false,
      [=] {
        weighted_fast_kernel<4, 0, false, true>
            <<<fastest.blocks, fastest.threads, fastest.shared_bytes, stream>>> (
                samples, coverage, kPixels, fastest.flush_every, table, 256u, GH_LUMINANCE_GIMP2);
      } },
    { "privatized (seed's pattern, 64-bit table a block)", true,
      [=] { launch_weighted (privatized, job, 4, kOut, stream); } },
    { "global atomics (64-bit)", true, [=] { launch_weighted (global, job, 4, kOut, stream); } },
  };
}

/* One input of the section: how to fill the host's (or, for noise, the device's) buffers. */
struct weighted_input
{
  const char *name;
  std::function<void ()> fill;
};

std::vector<weighted_input>
make_inputs (const weighted_buffers &b, const gh_bench_image *photo, cudaStream_t stream)
{
  const size_t bytes = kPixels * 4, plane = kPixels;
  uint8_t *host = b.host, *host_cov = b.host_cov, *samples = b.samples, *coverage = b.coverage;
  return {
    { "uniform noise, noise coverage",
      [=] {
        launch_noise (samples, bytes, 0, stream);
        launch_noise (coverage, plane, bytes, stream);
        cudaMemcpyAsync (host, samples, bytes, cudaMemcpyDeviceToHost, stream);
        cudaMemcpyAsync (host_cov, coverage, plane, cudaMemcpyDeviceToHost, stream);
      } },
    { "photo tiled, feathered disc",
      [=] {
        for (size_t y = 0; y < static_cast<size_t> (kSide); y++)
          for (size_t x = 0; x < static_cast<size_t> (kSide); x++)
            {
              const uint8_t *q
                  = photo->pixels
                    + ((y % photo->height) * photo->width + x % photo->width) * photo->channels;
              uint8_t *o = host + (y * kSide + x) * 4;
              const bool gray = photo->channels < 3;
              o[0] = q[0];
              o[1] = gray ? q[0] : q[1];
              o[2] = gray ? q[0] : q[2];
              o[3] = photo->channels == 4 ? q[3] : photo->channels == 2 ? q[1] : 255;
            }
        fill_disc (host_cov);
      } },
    { "flat colour, feathered disc",
      [=] {
        const uint8_t colour[4] = { 200, 120, 40, 255 };
        for (size_t i = 0; i < bytes; i += 4)
          memcpy (host + i, colour, 4);
        fill_disc (host_cov);
      } },
  };
}

/* One input: made, every counting row verified against the reference, every row timed, and
 * its table written. */
gh_status
run_input (FILE *out, const weighted_input &in, std::vector<row> &rows, const weighted_buffers &b,
           cudaStream_t stream, int repetitions, gh_error *error)
{
  const size_t bytes = kPixels * 4, plane = kPixels;
  in.fill ();
  if (strncmp (in.name, "uniform", 7) != 0)
    {
      cudaMemcpyAsync (b.samples, b.host, bytes, cudaMemcpyHostToDevice, stream);
      cudaMemcpyAsync (b.coverage, b.host_cov, plane, cudaMemcpyHostToDevice, stream);
    }
  BENCH_CHECK (cudaStreamSynchronize (stream), "making an input");
  std::vector<gh_u128> expected, expected3;
  reference (b.host, b.host_cov, GH_LUMINANCE_GIMP2, expected);
  reference (b.host, b.host_cov, GH_LUMINANCE_GIMP3, expected3);
  gh_status status = GH_OK;
  for (row &r : rows)
    if (status == GH_OK && r.counts)
      status = verify_row (r, r.luminance == GH_LUMINANCE_GIMP3 ? expected3 : expected, in.name,
                           stream, b.table, error);
  for (row &r : rows)
    if (status == GH_OK)
      status
          = time_row (r, r.name.rfind ("global", 0) == 0 ? std::min (repetitions, 5) : repetitions,
                      stream, b.table, error);
  if (status != GH_OK)
    return status;
  fprintf (out,
           "#### %s\n\n| kernel | ms (median) | min-max | GB/s | %% of read-only |\n"
           "|---|---:|---:|---:|---:|\n",
           in.name);
  for (const row &r : rows)
    fprintf (out, "| %s | %.4f | %.4f-%.4f | %.0f | %.1f |\n", r.name.c_str (), r.median, r.min,
             r.max, (bytes + plane) / (r.median * 1e6), 100 * rows[0].median / r.median);
  double pixel_rate, group_rate;
  edge_rates (b.host, &pixel_rate, &group_rate);
  fprintf (out,
           "\nLuminance estimated near an edge: %.4f %% of pixels; %.2f %% of warp groups "
           "(128 pixels) take the fix path.\n",
           100 * pixel_rate, 100 * group_rate);
  fputc ('\n', out);
  fflush (out);
  return GH_OK;
}

} // namespace

gh_status
bench_weighted (FILE *out, const cudaDeviceProp &device, cudaStream_t stream,
                const gh_bench_image *photo, int repetitions, gh_error *error)
{
  weighted_buffers buffers;
  const gh_run_plan run = weighted_rgba_plan ();
  weighted_plan fastest, fastest3, privatized, global;
  gh_status status = allocate_buffers (buffers, error);
  if (status == GH_OK)
    status = plan_weighted_fastest (device, run, &fastest, error);
  if (status == GH_OK)
    status
        = plan_weighted_fastest (device, weighted_rgba_plan (GH_LUMINANCE_GIMP3), &fastest3, error);
  if (status == GH_OK)
    status = plan_weighted_privatized (device, run, &privatized, error);
  if (status == GH_OK)
    {
      plan_weighted_global (device, &global);
      status = size_fastest_variants (fastest, error);
    }
  if (status != GH_OK)
    {
      free_buffers (buffers);
      return status;
    }
  std::vector<row> rows
      = make_rows (device, stream, buffers, fastest, fastest3, privatized, global);

  fprintf (out,
           "### Weighted: RGBA %d x %d (1 GiB) and an 8-bit coverage plane (256 MiB), "
           "alpha-weighted, six histograms (R, G, B, A, Value, Luminance)\n\n",
           kSide, kSide);
  for (const weighted_input &in : make_inputs (buffers, photo, stream))
    {
      if (!photo && strncmp (in.name, "photo", 5) == 0)
        continue;
      status = run_input (out, in, rows, buffers, stream, repetitions, error);
      if (status != GH_OK)
        break;
    }
  free_buffers (buffers);
  return status;
}

} // namespace gh
