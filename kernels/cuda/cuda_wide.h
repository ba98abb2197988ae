/* gpu-histogram: planning and launching the wide-table kernels (wide_kernels.cuh): 16-bit samples
 * in 256 to 65536 bins.  C++, internal to the CUDA backend and the benchmark. */
#ifndef GPUHIST_CUDA_WIDE_H
#define GPUHIST_CUDA_WIDE_H

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "backend.h"

namespace gh
{

struct wide_plan
{
  gh_strategy strategy; /* never AUTO once planned */
  int threads;
  int blocks;
  size_t shared_bytes;
  bool planar;     /* counts planar strips (SLICED) */
  int slice;       /* bins a slice (SLICED; bins otherwise) */
  int parts;       /* SLICED: slices a channel, ceil (bins / slice) */
  int passes;      /* SLICED: slices in all, channels * parts; a block counts one, in one launch */
  int copies;      /* GLOBAL_COPIES: full tables in global memory */
  int flush_every; /* NARROW: steps between flushes */
};

/* A strip of 16-bit samples on the device: interleaved (plane_stride 0: sample i is channel
 * i % channels), or planar (channel c's `pixels` samples start at samples + c * plane_stride). */
struct wide_strip
{
  const uint16_t *samples;
  size_t pixels;
  int channels;
  size_t plane_stride;
};

/* Planar strips: each plane starts on a 16-byte boundary. */
inline size_t
planar_stride (size_t pixels)
{
  return (pixels + 7) / 8 * 8;
}

/* Copies `pixels` interleaved pixels of `channels` 16-bit samples, on the device, into planes of
 * plane_stride samples: what the CUDA backend does to each strip it uploads for SLICED. */
void launch_deinterleave16 (const cudaDeviceProp &device, const uint16_t *in, size_t pixels,
                            int channels, size_t plane_stride, uint16_t *out, cudaStream_t stream);

/* Picks FASTEST's strategy for this device, channel count and bin count, or checks a forced one:
 * GH_ERROR_UNSUPPORTED, with the sizes, when it cannot fit, never a failed launch. */
gh_status plan_wide (const cudaDeviceProp &device, int channels, int bins, gh_strategy requested,
                     wide_plan *plan, gh_error *error);
void describe_wide_plan (const wide_plan &plan, int channels, int bins, char *out, size_t size);

/* Bytes of global scratch the plan needs (the copies), 0 for the others. */
size_t wide_scratch_bytes (const wide_plan &plan, int channels, int bins);

void launch_wide_global_atomics (const wide_strip &strip, int shift, int bins, unsigned int *out,
                                 int blocks, int threads, cudaStream_t stream);
/* The strip must be planar for a planar plan and interleaved otherwise. */
void launch_wide_fastest (const wide_plan &plan, const wide_strip &strip, int shift, int bins,
                          unsigned int *out, unsigned int *scratch, cudaStream_t stream);

} // namespace gh

#endif /* GPUHIST_CUDA_WIDE_H */
