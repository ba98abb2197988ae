/* gpu-histogram: FASTEST's waveform of weighted 8-bit RGB and RGBA runs
 * (scope_weighted_waveform.cuh): how tall a block's band may be, and the launch.  C++, internal
 * to the CUDA backend's scopes (cuda_scopes.cu plans the stripes as for unweighted lane tables). */
#ifndef GPUHIST_CUDA_WEIGHTED_WAVEFORM_H
#define GPUHIST_CUDA_WEIGHTED_WAVEFORM_H

#include <cstddef>

#include <cuda_runtime.h>

#include "backend.h"
#include "cuda_scopes.h"
#include "scope_kernels.cuh"

namespace gh
{

/* The most rows a block's band may hold so that no 32-bit counter's sum passes 2^32 - 1: a lane
 * adds `lanes` pixels a row (1 or 4) to a counter at most, each at most the run's largest
 * weight. */
size_t weighted_lanes_band_rows (const gh_run_plan &plan, int lanes);
/* Blocks an SM for launch l, by the occupancy calculator (1 where it fails). */
int weighted_lanes_per_sm (const gh_run_plan &plan, const scope_launch &l);
gh_status launch_weighted_lanes (const scope_launch &l, const gh_run_plan &plan,
                                 const scope_job &job, cudaStream_t stream, gh_error *error);

} // namespace gh

#endif /* GPUHIST_CUDA_WEIGHTED_WAVEFORM_H */
