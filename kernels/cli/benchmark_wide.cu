/* gpu-histogram: the benchmark's third band (`gpuhist --bench` without --quick): 16-bit RGBA
 * 8192² in 4096 and 65536 bins, each wide strategy, against CUB with the same bins, and the
 * sliced strategy's whole run (upload, de-interleave, kernel) as the engine does it. */
#include "benchmark_harness.h"
#include "benchmark_weighted.h"
#include "cuda_launch.h"
#include "cuda_wide.h"

#include <cub/device/device_histogram.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace gh_bench
{

namespace
{

void
free_copies (std::vector<uint8_t *> &copies)
{
  for (uint8_t *copy : copies)
    cudaFree (copy);
  copies.clear ();
}

} // namespace

/* SLICED counts planar strips, which the engine de-interleaves on the device after uploading
 * each strip: each input copy gets a planar twin, made by the same kernel. */
gh_status
bench::make_planar_copies (const input &in, std::vector<uint8_t *> &planar_copies)
{
  const int c = in.channels;
  const size_t pixels = in.bytes / 2 / c;
  const size_t stride = gh::planar_stride (pixels);
  const size_t planar_bytes = static_cast<size_t> (c) * stride * 2;
  for (size_t k = 0; k < copies_.size (); k++)
    {
      uint8_t *copy = nullptr;
      cudaError_t code = cudaMalloc (&copy, planar_bytes + 16);
      if (code == cudaSuccess)
        {
          planar_copies.push_back (copy);
          gh::launch_deinterleave16 (device_, reinterpret_cast<const uint16_t *> (copies_[k]),
                                     pixels, c, stride, reinterpret_cast<uint16_t *> (copy),
                                     stream_);
          code = cudaStreamSynchronize (stream_);
        }
      if (code != cudaSuccess)
        {
          free_copies (planar_copies);
          BENCH_CHECK (code, "making a planar copy of the input");
        }
    }
  return GH_OK;
}

/* A row for each strategy the device can plan (a line saying why for the others), each with
 * the global copies it needs in scratches. */
gh_status
bench::add_strategy_rows (const input &in, int shift, const std::vector<uint8_t *> &planar_copies,
                          std::vector<kernel_row> &rows, std::vector<unsigned int *> &scratches)
{
  const int c = in.channels, bins = in.bins;
  const size_t pixels = in.bytes / 2 / c;
  const size_t stride = gh::planar_stride (pixels);
  cudaStream_t s = stream_;
  const std::vector<uint8_t *> copies = copies_;
  const gh_strategy strategies[] = { GH_STRATEGY_AUTO, GH_STRATEGY_SHARED, GH_STRATEGY_NARROW,
                                     GH_STRATEGY_SLICED, GH_STRATEGY_GLOBAL_COPIES };
  for (gh_strategy strategy : strategies)
    {
      gh::wide_plan plan;
      gh_error refused;
      if (gh::plan_wide (device_, c, bins, strategy, &plan, &refused) != GH_OK)
        {
          fprintf (out_, "- %s: not run: %s\n", gh_strategy_name (strategy), refused.message);
          continue;
        }
      unsigned int *scratch = nullptr;
      const size_t scratch_bytes = gh::wide_scratch_bytes (plan, c, bins);
      if (scratch_bytes)
        {
          BENCH_CHECK (cudaMalloc (&scratch, scratch_bytes), "allocating copies");
          BENCH_CHECK (cudaMemset (scratch, 0, scratch_bytes), "clearing copies");
          scratches.push_back (scratch);
        }
      char description[128];
      gh::describe_wide_plan (plan, c, bins, description, sizeof description);
      rows.push_back (
          { std::string (strategy == GH_STRATEGY_AUTO ? "chosen: " : "forced: ") + description,
            true, [=] (const uint8_t *p, unsigned int *b) {
              const uint8_t *source = p;
              if (plan.planar)
                source = planar_copies[std::find (copies.begin (), copies.end (), p)
                                       - copies.begin ()];
              const gh::wide_strip strip = { reinterpret_cast<const uint16_t *> (source), pixels, c,
                                             plan.planar ? stride : 0 };
              gh::launch_wide_fastest (plan, strip, shift, bins, b, scratch, s);
            } });
    }
  return GH_OK;
}

/* CUB's DeviceHistogram with the same even bins, for RGBA. */
gh_status
bench::add_wide_cub_row (const input &in, std::vector<kernel_row> &rows)
{
  const int bins = in.bins;
  const size_t pixels = in.bytes / 2 / in.channels;
  cudaStream_t s = stream_;
  auto cub_call = [=] (void *temp, size_t &temp_bytes, const uint8_t *p, unsigned int *b) {
    int *h = reinterpret_cast<int *> (b);
    return cub::DeviceHistogram::MultiHistogramEven<4, 4> (
        temp, temp_bytes, reinterpret_cast<const uint16_t *> (p),
        ::cuda::std::array<int *, 4>{ h, h + bins, h + 2 * bins, h + 3 * bins },
        ::cuda::std::array<int, 4>{ bins + 1, bins + 1, bins + 1, bins + 1 },
        ::cuda::std::array<int, 4>{ 0, 0, 0, 0 },
        ::cuda::std::array<int, 4>{ 65536, 65536, 65536, 65536 }, static_cast<int> (pixels), s);
  };
  return add_cub_row (rows, cub_call);
}

/* The whole run as the engine does it for SLICED: the pinned upload, the de-interleave and the
 * kernel, beside the upload alone. */
gh_status
bench::time_sliced_run (const input &in, int shift, uint8_t *planes, sliced_timings *result)
{
  const int c = in.channels, bins = in.bins;
  const size_t bytes = in.bytes, pixels = in.bytes / 2 / c;
  const size_t stride = gh::planar_stride (pixels);
  cudaStream_t s = stream_;
  gh::wide_plan sliced;
  gh_error refused;
  if (gh::plan_wide (device_, c, bins, GH_STRATEGY_SLICED, &sliced, &refused) != GH_OK || !planes)
    return GH_OK;
  uint8_t *target = copies_[0];
  const uint8_t *host = host_;
  const gh::wide_strip strip = { reinterpret_cast<const uint16_t *> (planes), pixels, c, stride };
  gh_status status = time (
      [&] (const uint8_t *) {
        cudaMemcpyAsync (target, host, bytes, cudaMemcpyHostToDevice, s);
        gh::launch_deinterleave16 (device_, reinterpret_cast<const uint16_t *> (target), pixels, c,
                                   stride, reinterpret_cast<uint16_t *> (planes), s);
        gh::launch_wide_fastest (sliced, strip, shift, bins, bins_, nullptr, s);
      },
      5, &result->whole);
  if (status == GH_OK)
    status = time (
        [&] (const uint8_t *) { cudaMemcpyAsync (target, host, bytes, cudaMemcpyHostToDevice, s); },
        5, &result->upload_only);
  if (status == GH_OK)
    status = time (
        [&] (const uint8_t *) {
          gh::launch_deinterleave16 (device_, reinterpret_cast<const uint16_t *> (target), pixels,
                                     c, stride, reinterpret_cast<uint16_t *> (planes), s);
        },
        options_.repetitions, &result->deinterleave);
  return status;
}

void
bench::print_wide_table (const input &in, const std::vector<kernel_row> &rows,
                         const sliced_timings &sliced)
{
  const timing &ceiling = rows[0].t;
  fprintf (out_, "\n#### %s: %.0f MiB of 16-bit RGBA, %d bins a channel\n\n", in.name.c_str (),
           in.bytes / 1048576.0, in.bins);
  if (sliced.whole.ran)
    fprintf (out_,
             "The sliced strategy counts planar strips: the engine uploads each strip as it is "
             "and de-interleaves it on the device (%.4f ms, %.0f GB/s read and written).  Whole "
             "run, pinned upload + de-interleave + sliced kernel: %.3f ms (%.3f-%.3f); the "
             "pinned upload alone: %.3f ms; whole / upload = %.3f.\n\n",
             sliced.deinterleave.median, 2 * in.bytes / (sliced.deinterleave.median * 1e6),
             sliced.whole.median, sliced.whole.min, sliced.whole.max, sliced.upload_only.median,
             sliced.whole.median / sliced.upload_only.median);
  fprintf (out_, "| kernel | ms (median) | min-max | GB/s | x read-only time |\n"
                 "|---|---:|---:|---:|---:|\n");
  for (const kernel_row &row : rows)
    fprintf (out_, "| %s | %.4f | %.4f-%.4f | %.0f | %.2f |\n", row.name.c_str (), row.t.median,
             row.t.min, row.t.max, in.bytes / (row.t.median * 1e6), row.t.median / ceiling.median);
  fputc ('\n', out_);
  fflush (out_);
}

/* The third band: 16-bit samples in 4096 and 65536 bins, each strategy, against CUB with the
 * same bins. */
gh_status
bench::run_wide_input (input &in)
{
  const int c = in.channels, bins = in.bins;
  int shift = 0;
  while ((65536 >> shift) > bins)
    shift++;
  const int grid256 = gh::full_grid (device_, 256);
  cudaStream_t s = stream_;
  table_bytes_ = static_cast<size_t> (c) * bins * sizeof (unsigned int);

  std::vector<kernel_row> rows;
  unsigned int *sink = sink_;
  const size_t bytes = in.bytes, pixels = in.bytes / 2 / c;
  rows.push_back (
      { "read-only, 16-byte loads (ceiling)", false, [=] (const uint8_t *p, unsigned int *) {
         gh::launch_read_only (p, bytes, sink, grid256, 256, s);
       } });
  rows.push_back (
      { "global atomics", true, [=] (const uint8_t *p, unsigned int *b) {
         const gh::wide_strip strip = { reinterpret_cast<const uint16_t *> (p), pixels, c, 0 };
         gh::launch_wide_global_atomics (strip, shift, bins, b, grid256, 256, s);
       } });

  std::vector<uint8_t *> planar_copies;
  std::vector<unsigned int *> scratches;
  gh_status status = make_planar_copies (in, planar_copies);
  if (status != GH_OK)
    return status;
  status = add_strategy_rows (in, shift, planar_copies, rows, scratches);
  if (status == GH_OK && c == 4)
    status = add_wide_cub_row (in, rows);
  if (status != GH_OK)
    {
      free_copies (planar_copies);
      return status;
    }

  status = verify_then_time (in, rows, true);
  sliced_timings sliced;
  if (status == GH_OK)
    status
        = time_sliced_run (in, shift, planar_copies.empty () ? nullptr : planar_copies[0], &sliced);
  for (unsigned int *scratch : scratches)
    cudaFree (scratch);
  free_copies (planar_copies);
  table_bytes_ = GH_MAX_CHANNELS * GH_BINS * sizeof (unsigned int);
  if (status != GH_OK)
    return status;
  print_wide_table (in, rows, sliced);
  return GH_OK;
}

gh_status
bench::run_wide ()
{
  fprintf (out_, "### 16-bit RGBA 8192 x 8192 (512 MiB): more bins than shared memory holds\n\n");
  const int side = 8192;
  const size_t bytes = (size_t) side * side * 4 * 2;
  const gh_bench_image *photo = options_.photo;
  struct wide_input
  {
    std::string name;
    std::function<void (uint8_t *)> fill;
    bool noise;
  } inputs[] = {
    { "uniform noise", [] (uint8_t *) {}, true },
    { "photo-like",
      [=] (uint8_t *p) {
        /* The photo's 8-bit levels spread over 16 bits, with noise in the low byte, as a
         * 16-bit photo's smooth gradients would have. */
        uint16_t *q = reinterpret_cast<uint16_t *> (p);
        for (size_t y = 0; y < (size_t) side; y++)
          for (size_t x = 0; x < (size_t) side; x++)
            for (int ch = 0; ch < 4; ch++)
              {
                const size_t i = (y * side + x) * 4 + ch;
                unsigned v = 128;
                if (photo)
                  {
                    const uint8_t *pixel = photo->pixels
                                           + ((y % photo->height) * photo->width + x % photo->width)
                                                 * photo->channels;
                    v = ch < photo->channels ? pixel[ch] : 255;
                  }
                q[i] = static_cast<uint16_t> (v * 256 + (gh_pattern_word (i) & 0xFF));
              }
      },
      false },
    { "flat colour",
      [=] (uint8_t *p) {
        const uint16_t colour[4] = { 51234, 30000, 10000, 65535 };
        for (size_t i = 0; i < bytes; i += 8)
          memcpy (p + i, colour, 8);
      },
      false },
  };
  for (int bins : { 4096, 65536 })
    for (wide_input &w : inputs)
      {
        input in{ w.name + " 8192², " + std::to_string (bins) + " bins", 4, bytes, false, {} };
        in.bins = bins;
        in.bytes_per_sample = 2;
        gh_status status = make_input (in, w.fill, w.noise);
        if (status == GH_OK)
          status = run_wide_input (in);
        if (status != GH_OK)
          return status;
      }
  return GH_OK;
}

} // namespace gh_bench
