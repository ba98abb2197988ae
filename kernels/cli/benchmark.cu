/* gpu-histogram: the kernels' benchmark (`gpuhist --bench`).
 *
 * Inputs: the seed's table (67,109,475 bytes of one channel: uniform bytes, English text, all one
 * byte; its two kernels launched as it launched them, 1024 blocks of 256 threads) and RGBA images
 * of 8192² and 16384² (uniform noise, a photo tiled, one flat colour).  Every kernel's counts are
 * compared with the reference count before it is timed.  Each input is copied as often as it
 * takes to fill four times the L2 cache, and the repetitions rotate through the copies, so that
 * no repetition finds its input in L2.  Here: the harness (inputs, verifying, timing) and the
 * 8-bit tables; the weighted section is in benchmark_weighted.cu, the 16-bit band in
 * benchmark_wide.cu. */
#include "benchmark_harness.h"
#include "benchmark_weighted.h"
#include "cuda_launch.h"

#include <cub/device/device_histogram.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

namespace
{

constexpr size_t kSeedBytes = 67109475;
constexpr int kSeedBlocks = 1024;
constexpr int kSeedThreads = 256;

/* Prose to tile for the seed's "english text" row (written for this benchmark). */
const char kEnglish[]
    = "A histogram counts how often each value turns up. The counting itself is trivial; the "
      "difficulty on a graphics processor is that thousands of threads want to add to the same "
      "few counters at the same moment, and each of those additions has to wait for the one "
      "before it. Giving every block of threads a private copy of the counters moves that queue "
      "out of the device's memory and into the small, fast memory beside each multiprocessor, "
      "where it is much shorter. At the end, each block adds its copy into the shared result "
      "once. Ordinary text puts nearly a fifth of its characters on the space, and a few letters "
      "such as e, t, a and o are common, while most byte values never appear at all. ";

/* The seed's read-only pass: one byte per thread per step, the ceiling of the seed's kernels. */
__global__ void
read_only_bytes_kernel (const uint8_t *__restrict__ in, size_t n, unsigned int *sink)
{
  const size_t step = gridDim.x * static_cast<size_t> (blockDim.x);
  unsigned int acc = 0;
  for (size_t i = blockIdx.x * static_cast<size_t> (blockDim.x) + threadIdx.x; i < n; i += step)
    acc += in[i];
  if (acc == 0x5EEDF00Du)
    atomicAdd (sink, 1u);
}

/* The input's own figures: the busiest bin's share and the bins used, worst channel. */
void
input_figures (const gh_bench::input &in, double *busiest, int *used)
{
  *busiest = 0;
  *used = 0;
  for (int ch = 0; ch < in.channels; ch++)
    {
      unsigned long long total = 0, top = 0;
      int nonzero = 0;
      for (int b = 0; b < GH_BINS; b++)
        {
          const unsigned long long v = in.reference[ch * GH_BINS + b];
          total += v;
          top = std::max (top, v);
          nonzero += v > 0;
        }
      *busiest = std::max (*busiest, total ? static_cast<double> (top) / total : 0.0);
      *used = std::max (*used, nonzero);
    }
}

} // namespace

namespace gh_bench
{

gh_status
bench::open_device ()
{
  BENCH_CHECK (cudaSetDevice (options_.device), "selecting the device");
  BENCH_CHECK (cudaGetDeviceProperties (&device_, options_.device), "reading the device");
  BENCH_CHECK (cudaStreamCreate (&stream_), "creating a stream");
  BENCH_CHECK (cudaMalloc (&bins_, GH_MAX_CHANNELS * GH_MAX_BINS * sizeof (unsigned int)),
               "allocating");
  BENCH_CHECK (cudaMalloc (&sink_, sizeof (unsigned int)), "allocating");
  int driver = 0, runtime = 0;
  cudaDriverGetVersion (&driver);
  cudaRuntimeGetVersion (&runtime);
  char date[32];
  time_t now = ::time (nullptr);
  strftime (date, sizeof date, "%Y-%m-%d", gmtime (&now));
  fprintf (out_,
           "Device: %s (sm_%d%d, %d SMs, %d MiB L2, %.0f GiB); driver for CUDA %d.%d; CUDA "
           "runtime %d.%d; %s; %d repetitions a kernel (median, min-max), inputs rotated over "
           ">= 4x L2.\n\n",
           device_.name, device_.major, device_.minor, device_.multiProcessorCount,
           device_.l2CacheSize >> 20, device_.totalGlobalMem / 1073741824.0, driver / 1000,
           driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10, date, options_.repetitions);
  return GH_OK;
}

/* Makes the input on the host (or noise on the device), counts it there with the reference, and
 * uploads it as many times as rotation needs. */
gh_status
bench::make_input (input &in, const std::function<void (uint8_t *)> &fill_host,
                   bool noise_on_device)
{
  for (uint8_t *copy : copies_)
    cudaFree (copy);
  copies_.clear ();
  if (host_bytes_ < in.bytes)
    {
      if (host_)
        cudaFreeHost (host_);
      host_ = nullptr;
      BENCH_CHECK (cudaMallocHost (&host_, in.bytes), "allocating pinned host memory");
      host_bytes_ = in.bytes;
    }
  const size_t l2 = device_.l2CacheSize > 0 ? static_cast<size_t> (device_.l2CacheSize) : 1u << 26;
  const size_t count = std::max<size_t> (1, (4 * l2 + in.bytes - 1) / in.bytes);
  for (size_t i = 0; i < count; i++)
    {
      uint8_t *copy = nullptr;
      BENCH_CHECK (cudaMalloc (&copy, in.bytes + 16), "allocating an input");
      copies_.push_back (copy);
    }
  if (noise_on_device)
    {
      gh::launch_noise (copies_[0], in.bytes, 0, stream_);
      BENCH_CHECK (cudaMemcpyAsync (host_, copies_[0], in.bytes, cudaMemcpyDeviceToHost, stream_),
                   "reading noise back");
      BENCH_CHECK (cudaStreamSynchronize (stream_), "making noise");
    }
  else
    fill_host (host_);
  for (uint8_t *copy : copies_)
    BENCH_CHECK (cudaMemcpyAsync (copy, host_, in.bytes, cudaMemcpyHostToDevice, stream_),
                 "uploading an input");
  in.reference.assign (static_cast<size_t> (in.channels) * in.bins, 0);
  std::vector<uint64_t> counts (in.reference.size ());
  const int pixels = static_cast<int> (in.bytes / in.channels / in.bytes_per_sample);
  if (in.bytes_per_sample == 2)
    gh_reference_count16 (reinterpret_cast<const uint16_t *> (host_), pixels, 1, in.channels,
                          in.bytes, in.bins, counts.data ());
  else
    gh_reference_count (host_, pixels, 1, in.channels, in.bytes, counts.data ());
  std::copy (counts.begin (), counts.end (), in.reference.begin ());
  BENCH_CHECK (cudaStreamSynchronize (stream_), "uploading");
  return GH_OK;
}

gh_status
bench::verify (const input &in, const char *kernel,
               const std::function<void (const uint8_t *, unsigned int *)> &launch)
{
  const size_t table = static_cast<size_t> (in.channels) * in.bins;
  BENCH_CHECK (cudaMemsetAsync (bins_, 0, table * sizeof (unsigned int), stream_), "clearing");
  launch (copies_[0], bins_);
  BENCH_CHECK (cudaGetLastError (), kernel);
  std::vector<unsigned int> got (table);
  BENCH_CHECK (cudaMemcpyAsync (got.data (), bins_, table * sizeof (unsigned int),
                                cudaMemcpyDeviceToHost, stream_),
               "reading counts");
  BENCH_CHECK (cudaStreamSynchronize (stream_), kernel);
  for (size_t i = 0; i < table; i++)
    if (got[i] != in.reference[i])
      {
        gh_error_set (error, GH_ERROR_MISMATCH,
                      "%s on %s: channel %zu bin %zu counted %u, the reference %llu", kernel,
                      in.name.c_str (), i / in.bins, i % in.bins, got[i], in.reference[i]);
        return GH_ERROR_MISMATCH;
      }
  return GH_OK;
}

gh_status
bench::time (const std::function<void (const uint8_t *)> &launch, int repetitions, timing *result,
             std::vector<double> *samples)
{
  std::vector<cudaEvent_t> start (repetitions), stop (repetitions);
  for (int r = 0; r < repetitions; r++)
    {
      BENCH_CHECK (cudaEventCreate (&start[r]), "creating an event");
      BENCH_CHECK (cudaEventCreate (&stop[r]), "creating an event");
    }
  for (int r = -2; r < repetitions; r++)
    {
      const uint8_t *in = copies_[static_cast<size_t> (r + 2) % copies_.size ()];
      BENCH_CHECK (cudaMemsetAsync (bins_, 0, table_bytes_, stream_), "clearing");
      if (r >= 0)
        BENCH_CHECK (cudaEventRecord (start[r], stream_), "recording");
      launch (in);
      if (r >= 0)
        BENCH_CHECK (cudaEventRecord (stop[r], stream_), "recording");
    }
  BENCH_CHECK (cudaGetLastError (), "launching");
  BENCH_CHECK (cudaStreamSynchronize (stream_), "timing");
  std::vector<double> ms (repetitions);
  for (int r = 0; r < repetitions; r++)
    {
      float elapsed = 0;
      BENCH_CHECK (cudaEventElapsedTime (&elapsed, start[r], stop[r]), "reading a timer");
      ms[r] = elapsed;
      if (samples)
        samples->push_back (elapsed);
      cudaEventDestroy (start[r]);
      cudaEventDestroy (stop[r]);
    }
  std::sort (ms.begin (), ms.end ());
  result->min = ms.front ();
  result->max = ms.back ();
  result->median
      = repetitions % 2 ? ms[repetitions / 2] : (ms[repetitions / 2 - 1] + ms[repetitions / 2]) / 2;
  result->ran = true;
  return GH_OK;
}

gh_status
bench::add_cub_row (std::vector<kernel_row> &rows, const cub_fn &call)
{
  size_t need = 0;
  BENCH_CHECK (call (nullptr, need, copies_[0], bins_), "sizing CUB's temporary storage");
  if (need > cub_temp_bytes_)
    {
      cudaFree (cub_temp_);
      BENCH_CHECK (cudaMalloc (&cub_temp_, need), "allocating CUB's temporary storage");
      cub_temp_bytes_ = need;
    }
  void *temp = cub_temp_;
  size_t temp_bytes = cub_temp_bytes_;
  rows.push_back (
      { "CUB DeviceHistogram::MultiHistogramEven", true, [=] (const uint8_t *p, unsigned int *b) {
         size_t bytes = temp_bytes;
         call (temp, bytes, p, b);
       } });
  return GH_OK;
}

/* Every counting row is checked against the reference before any row is timed. */
gh_status
bench::verify_then_time (const input &in, std::vector<kernel_row> &rows, bool slow_global)
{
  for (kernel_row &row : rows)
    if (row.counts)
      {
        gh_status status = verify (in, row.name.c_str (), row.launch);
        if (status != GH_OK)
          return status;
      }
  for (kernel_row &row : rows)
    {
      const bool slow = slow_global && row.name == "global atomics";
      auto launch = row.launch;
      unsigned int *b = bins_;
      gh_status status
          = time ([&] (const uint8_t *p) { launch (p, b); },
                  slow ? std::min (options_.repetitions, 5) : options_.repetitions, &row.t);
      if (status != GH_OK)
        return status;
    }
  return GH_OK;
}

/* The seed's kernels as it launched them, the read-only ceilings, and FASTEST in each layout
 * the device can plan. */
void
bench::add_input_rows (const input &in, std::vector<kernel_row> &rows)
{
  const int c = in.channels;
  const size_t n = in.bytes;
  const int grid256 = gh::full_grid (device_, 256);
  const int blocks = in.seed ? kSeedBlocks : grid256;
  const int threads = in.seed ? kSeedThreads : 256;
  cudaStream_t s = stream_;
  unsigned int *sink = sink_;
  rows.push_back (
      { "read-only, 16-byte loads (ceiling)", false, [=] (const uint8_t *p, unsigned int *) {
         gh::launch_read_only (p, n, sink, grid256, 256, s);
       } });
  rows.push_back (
      { "read-only, 1 byte a thread (seed's)", false, [=] (const uint8_t *p, unsigned int *) {
         read_only_bytes_kernel<<<blocks, threads, 0, s>>> (p, n, sink);
       } });
  rows.push_back ({ "global atomics", true, [=] (const uint8_t *p, unsigned int *b) {
                     gh::launch_global_atomics (c, p, n, b, blocks, threads, s);
                   } });
  rows.push_back ({ "privatized (seed's kernel)", true, [=] (const uint8_t *p, unsigned int *b) {
                     gh::launch_privatized (c, p, n, b, blocks, threads, s);
                   } });
  const gh_layout layouts[]
      = { GH_LAYOUT_AUTO, GH_LAYOUT_LANE_COLUMNS, GH_LAYOUT_PACKED, GH_LAYOUT_SINGLE };
  for (gh_layout layout : layouts)
    {
      gh::launch_plan plan;
      gh_error ignored;
      if (gh::plan_fastest (device_, c, layout, &plan, &ignored) != GH_OK)
        continue;
      char description[96];
      gh::describe_plan (plan, c, description, sizeof description);
      std::string name
          = std::string (layout == GH_LAYOUT_AUTO ? "fastest: " : "forced: ") + description;
      rows.push_back ({ name, true, [=] (const uint8_t *p, unsigned int *b) {
                         gh::launch_fastest (c, plan, p, n, b, s);
                       } });
    }
}

/* CUB's DeviceHistogram as the peer: the same 256 even bins per channel, counted into the same
 * table layout (channel c at c * 256), for 1, 3 and 4 channels. */
gh_status
bench::add_input_cub_row (const input &in, std::vector<kernel_row> &rows)
{
  const int c = in.channels;
  const size_t n = in.bytes;
  cudaStream_t s = stream_;
  const int pixels = static_cast<int> (n / c);
  auto cub_call = [=] (void *temp, size_t &temp_bytes, const uint8_t *p, unsigned int *b) {
    int *h = reinterpret_cast<int *> (b);
    if (c == 4)
      return cub::DeviceHistogram::MultiHistogramEven<4, 4> (
          temp, temp_bytes, p, ::cuda::std::array<int *, 4>{ h, h + 256, h + 512, h + 768 },
          ::cuda::std::array<int, 4>{ 257, 257, 257, 257 },
          ::cuda::std::array<int, 4>{ 0, 0, 0, 0 },
          ::cuda::std::array<int, 4>{ 256, 256, 256, 256 }, pixels, s);
    if (c == 3)
      return cub::DeviceHistogram::MultiHistogramEven<3, 3> (
          temp, temp_bytes, p, ::cuda::std::array<int *, 3>{ h, h + 256, h + 512 },
          ::cuda::std::array<int, 3>{ 257, 257, 257 }, ::cuda::std::array<int, 3>{ 0, 0, 0 },
          ::cuda::std::array<int, 3>{ 256, 256, 256 }, pixels, s);
    int *hist[1] = { h };
    return cub::DeviceHistogram::HistogramEven (temp, temp_bytes, p, hist[0], 257, 0, 256,
                                                static_cast<int> (n), s);
  };
  if (c == 1 || c == 3 || c == 4)
    return add_cub_row (rows, cub_call);
  return GH_OK;
}

void
bench::print_input_table (const input &in, const std::vector<kernel_row> &rows, double busiest,
                          int used)
{
  const int c = in.channels;
  const size_t n = in.bytes;
  const timing &ceiling = rows[0].t, &global = rows[2].t;
  const timing *cub = rows.back ().name.rfind ("CUB", 0) == 0 ? &rows.back ().t : nullptr;
  fprintf (out_,
           "#### %s: %.1f MiB, %d channel%s; busiest bin %.2f %%, bins used %d (worst channel)\n\n",
           in.name.c_str (), n / 1048576.0, c, c > 1 ? "s" : "", 100 * busiest, used);
  fprintf (out_, "| kernel | ms (median) | min-max | GB/s | %% of read-only | x global atomics | "
                 "x CUB |\n|---|---:|---:|---:|---:|---:|---:|\n");
  for (const kernel_row &row : rows)
    {
      char vs_cub[32] = "";
      if (cub)
        snprintf (vs_cub, sizeof vs_cub, "%.2f", cub->median / row.t.median);
      fprintf (out_, "| %s | %.4f | %.4f-%.4f | %.0f | %.1f | %.1f | %s |\n", row.name.c_str (),
               row.t.median, row.t.min, row.t.max, n / (row.t.median * 1e6),
               100 * ceiling.median / row.t.median, global.median / row.t.median, vs_cub);
    }
  fputc ('\n', out_);
  fflush (out_);
}

gh_status
bench::run_input (input &in)
{
  if (schedules_only_)
    return run_schedule_input (in);
  std::vector<kernel_row> rows;
  add_input_rows (in, rows);
  gh_status status = add_input_cub_row (in, rows);
  if (status != GH_OK)
    return status;

  /* Global atomics on one byte value is slow by design: fewer repetitions keep it short. */
  status = verify_then_time (in, rows, in.bytes > (size_t) 1 << 28);
  if (status != GH_OK)
    return status;

  double busiest;
  int used;
  input_figures (in, &busiest, &used);
  print_input_table (in, rows, busiest, used);
  const timing *cub = rows.back ().name.rfind ("CUB", 0) == 0 ? &rows.back ().t : nullptr;
  summary_row summary{ in.name,   busiest,   used,
                       rows[2].t, rows[3].t, rows[4].t,
                       rows[0].t, rows[1].t, cub ? *cub : timing{} };
  summary_.push_back (summary);
  return GH_OK;
}

gh_status
bench::measure_uploads ()
{
  const size_t bytes = (size_t) 256 << 20;
  std::vector<uint8_t> pageable (bytes, 1);
  uint8_t *pinned = nullptr, *device = nullptr;
  BENCH_CHECK (cudaMallocHost (&pinned, bytes), "allocating pinned memory");
  BENCH_CHECK (cudaMalloc (&device, bytes), "allocating");
  memset (pinned, 1, bytes);
  double ms[2];
  const uint8_t *sources[2] = { pinned, pageable.data () };
  for (int k = 0; k < 2; k++)
    {
      cudaEvent_t a, b;
      cudaEventCreate (&a);
      cudaEventCreate (&b);
      std::vector<float> runs;
      for (int r = 0; r < 6; r++)
        {
          cudaEventRecord (a, stream_);
          cudaMemcpyAsync (device, sources[k], bytes, cudaMemcpyHostToDevice, stream_);
          cudaEventRecord (b, stream_);
          BENCH_CHECK (cudaEventSynchronize (b), "uploading");
          float elapsed;
          cudaEventElapsedTime (&elapsed, a, b);
          if (r > 0)
            runs.push_back (elapsed);
        }
      std::sort (runs.begin (), runs.end ());
      ms[k] = runs[runs.size () / 2];
      cudaEventDestroy (a);
      cudaEventDestroy (b);
    }
  fprintf (out_, "Upload of 256 MiB: pinned %.2f ms (%.1f GB/s), pageable %.2f ms (%.1f GB/s).\n\n",
           ms[0], bytes / (ms[0] * 1e6), ms[1], bytes / (ms[1] * 1e6));
  cudaFreeHost (pinned);
  cudaFree (device);
  return GH_OK;
}

/* The seed's table: its three inputs of one channel, as it counted them. */
gh_status
bench::run_seed_table ()
{
  struct seed_input
  {
    const char *name;
    std::function<void (uint8_t *)> fill;
    bool noise;
  } seed_inputs[] = {
    { "seed table: uniform bytes", [] (uint8_t *) {}, true },
    { "seed table: english text",
      [] (uint8_t *p) {
        const size_t length = sizeof kEnglish - 1;
        for (size_t i = 0; i < kSeedBytes; i += length)
          memcpy (p + i, kEnglish, std::min (length, kSeedBytes - i));
      },
      false },
    { "seed table: all one byte", [] (uint8_t *p) { memset (p, 'A', kSeedBytes); }, false },
  };
  fprintf (out_, "### The seed's table: 67,109,475 bytes, one channel, 1024 blocks of 256 "
                 "threads for its two kernels\n\n");
  for (seed_input &s : seed_inputs)
    {
      input in{ s.name, 1, kSeedBytes, true, {} };
      gh_status status = make_input (in, s.fill, s.noise);
      if (status == GH_OK)
        status = run_input (in);
      if (status != GH_OK)
        return status;
    }
  return GH_OK;
}

/* RGBA side x side: noise, the photo tiled (when there is one), one flat colour. */
gh_status
bench::run_images (int side)
{
  fprintf (out_, "### RGBA %d x %d (%.0f MiB)\n\n", side, side, 4.0 * side * side / 1048576.0);
  const size_t bytes = (size_t) side * side * 4;
  const gh_bench_image *photo = options_.photo;
  struct image_input
  {
    std::string name;
    std::function<void (uint8_t *)> fill;
    bool noise;
  } images[] = {
    { "uniform noise", [] (uint8_t *) {}, true },
    { "photo, tiled",
      [=] (uint8_t *p) {
        /* Tile the photo, as RGBA (opaque where it has no alpha). */
        for (int y = 0; y < side; y++)
          for (int x = 0; x < side; x++)
            {
              const uint8_t *q = photo->pixels
                                 + ((size_t) (y % photo->height) * photo->width + x % photo->width)
                                       * photo->channels;
              uint8_t *o = p + ((size_t) y * side + x) * 4;
              const bool gray = photo->channels < 3;
              o[0] = q[0];
              o[1] = gray ? q[0] : q[1];
              o[2] = gray ? q[0] : q[2];
              o[3] = photo->channels == 4 ? q[3] : photo->channels == 2 ? q[1] : 255;
            }
      },
      false },
    { "flat colour",
      [=] (uint8_t *p) {
        const uint8_t colour[4] = { 200, 120, 40, 255 };
        for (size_t i = 0; i < bytes; i += 4)
          memcpy (p + i, colour, 4);
      },
      false },
  };
  for (image_input &image : images)
    {
      if (!photo && image.name.rfind ("photo", 0) == 0)
        continue;
      input in{ image.name + " " + std::to_string (side) + "²", 4, bytes, false, {} };
      gh_status status = make_input (in, image.fill, image.noise);
      if (status == GH_OK)
        status = run_input (in);
      if (status != GH_OK)
        return status;
    }
  return GH_OK;
}

void
bench::print_summary ()
{
  fprintf (out_, "### Summary, as the seed's table (ms, median)\n\n"
                 "| input | busiest bin | bins used | global atomics | one copy per block "
                 "(seed's) | fastest | CUB | read-only 16 B | read-only 1 B | seed's speedup "
                 "| fastest's speedup | fastest, %% of read-only |\n"
                 "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const summary_row &r : summary_)
    fprintf (out_,
             "| %s | %.2f %% | %d | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.1f | %.1f | "
             "%.1f |\n",
             r.name.c_str (), 100 * r.busiest, r.used, r.global.median, r.privatized.median,
             r.fastest.median, r.cub.median, r.read16.median, r.read1.median,
             r.global.median / r.privatized.median, r.global.median / r.fastest.median,
             100 * r.read16.median / r.fastest.median);
  fputc ('\n', out_);
}

void
bench::release ()
{
  for (uint8_t *copy : copies_)
    cudaFree (copy);
  if (host_)
    cudaFreeHost (host_);
  cudaFree (bins_);
  cudaFree (sink_);
  cudaFree (cub_temp_);
  if (stream_)
    cudaStreamDestroy (stream_);
}

gh_status
bench::run ()
{
  gh_status status = open_device ();
  if (status == GH_OK)
    status = measure_uploads ();

  /* GPUHIST_BENCH_ONLY=weighted: only the weighted section (for profiling it); =schedule: only
   * the 8-bit inputs, FASTEST's schedule against its parts (benchmark_schedule.cu). */
  const char *only = getenv ("GPUHIST_BENCH_ONLY");
  schedules_only_ = only && strcmp (only, "schedule") == 0;
  if (status == GH_OK && only && strcmp (only, "weighted") == 0)
    {
      status = gh::bench_weighted (out_, device_, stream_, options_.photo, options_.repetitions,
                                   error);
      cudaStreamDestroy (stream_);
      return status;
    }
  if (status == GH_OK)
    status = run_seed_table ();
  for (int side : { 8192, 16384 })
    if (status == GH_OK && !(options_.quick && side > 8192))
      status = run_images (side);
  if (schedules_only_)
    {
      release ();
      return status;
    }
  if (status == GH_OK)
    status
        = gh::bench_weighted (out_, device_, stream_, options_.photo, options_.repetitions, error);
  if (status == GH_OK && !options_.quick)
    status = run_wide ();
  if (status == GH_OK)
    print_summary ();
  release ();
  return status;
}

} // namespace gh_bench

extern "C" gh_status
gh_benchmark (FILE *out, const gh_bench_options *options, gh_error *error)
{
  /* The engine's probe says in words why there is no GPU, if there is none. */
  gh_options probe_options;
  gh_options_init (&probe_options);
  probe_options.backend = GH_BACKEND_CUDA;
  probe_options.device = options->device;
  gh_engine *probe = gh_engine_new (&probe_options, error);
  if (!probe)
    return error->status;
  gh_engine_free (probe);

  gh_bench_options defaults = *options;
  if (defaults.repetitions <= 0)
    defaults.repetitions = 20;
  const char *only = getenv ("GPUHIST_BENCH_ONLY");
  if (only && strcmp (only, "scopes") == 0)
    return gh_bench_scopes (out, &defaults, error);
  gh_bench::bench b (out, defaults, error);
  return b.run ();
}
