/* gpu-histogram: FASTEST's waveform of weighted 8-bit RGB and RGBA runs
 * (cuda_weighted_waveform.h). */
#include "cuda_check.h"
#include "cuda_weighted.h"
#include "cuda_weighted_waveform.h"
#include "scope_weighted_waveform.cuh"

namespace gh
{

namespace
{

using lanes_fn = void (*) (scope_job, unsigned int);

template <int C, int CB, bool AW>
lanes_fn
kernel_of (const scope_launch &l, const gh_run_plan &plan)
{
  const bool gimp2 = plan.luminance == GH_LUMINANCE_GIMP2;
  return l.lanes == 4 ? (gimp2 ? waveform_weighted_lanes_kernel<C, 4, true, CB, AW>
                               : waveform_weighted_lanes_kernel<C, 4, false, CB, AW>)
                      : (gimp2 ? waveform_weighted_lanes_kernel<C, 1, true, CB, AW>
                               : waveform_weighted_lanes_kernel<C, 1, false, CB, AW>);
}

/* The kernel of the run's samples, plane and weighting.  RGB is never alpha-weighted (the
 * engine refuses it), and a weighted run without a plane is alpha-weighted. */
lanes_fn
weighted_lanes_kernel_for (const scope_launch &l, const gh_run_plan &plan)
{
  if (plan.channels == 3)
    return plan.coverage_bytes == 2 ? kernel_of<3, 2, false> (l, plan)
                                    : kernel_of<3, 1, false> (l, plan);
  switch (plan.coverage_bytes)
    {
    case 0: return kernel_of<4, 0, true> (l, plan);
    case 1:
      return plan.alpha_weighted ? kernel_of<4, 1, true> (l, plan)
                                 : kernel_of<4, 1, false> (l, plan);
    default:
      return plan.alpha_weighted ? kernel_of<4, 2, true> (l, plan)
                                 : kernel_of<4, 2, false> (l, plan);
    }
}

} // namespace

size_t
weighted_lanes_band_rows (const gh_run_plan &plan, int lanes)
{
  const unsigned long long most = 0xFFFFFFFFull / weighted_max_weight (plan);
  return static_cast<size_t> (most / static_cast<unsigned long long> (lanes));
}

int
weighted_lanes_per_sm (const gh_run_plan &plan, const scope_launch &l)
{
  const lanes_fn kernel = weighted_lanes_kernel_for (l, plan);
  int blocks = 0;
  if (cudaFuncSetAttribute (kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                            static_cast<int> (l.shared_bytes))
          != cudaSuccess
      || cudaOccupancyMaxActiveBlocksPerMultiprocessor (&blocks, kernel, l.threads, l.shared_bytes)
             != cudaSuccess)
    {
      cudaGetLastError ();
      return 1;
    }
  return blocks > 0 ? blocks : 1;
}

gh_status
launch_weighted_lanes (const scope_launch &l, const gh_run_plan &plan, const scope_job &job,
                       cudaStream_t stream, gh_error *error)
{
  const lanes_fn kernel = weighted_lanes_kernel_for (l, plan);
  GH_CUDA_CHECK (cudaFuncSetAttribute (kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int> (l.shared_bytes)),
                 "configuring a kernel");
  kernel<<<dim3 (l.blocks_x, l.blocks_y), l.threads, l.shared_bytes, stream>>> (job, 256u);
  return GH_OK;
}

} // namespace gh
