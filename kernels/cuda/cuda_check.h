/* gpu-histogram: a failed CUDA call as a status and a sentence, for every file of the CUDA
 * backend.  C++, internal to the CUDA backend. */
#ifndef GPUHIST_CUDA_CHECK_H
#define GPUHIST_CUDA_CHECK_H

#include "backend.h"

#include <cuda_runtime.h>

namespace gh
{

/* Turns a failed CUDA call into a status and a sentence. */
gh_status fail (gh_error *error, cudaError_t code, const char *what);

#define GH_CUDA_CHECK(call, what)                                                                  \
  do                                                                                               \
    {                                                                                              \
      cudaError_t code_ = (call);                                                                  \
      if (code_ != cudaSuccess)                                                                    \
        return fail (error, code_, what);                                                          \
    }                                                                                              \
  while (0)

/* A device buffer of `bytes`, cleared on the run's stream.  Every upload and clear of a run goes
 * on its stream (the read-backs come after a cudaStreamSynchronize): the stream does not wait
 * for the legacy default stream (cudaStreamNonBlocking), so a cudaMemset or a pageable cudaMemcpy
 * there could land after the kernels that read the buffer. */
template <typename T>
gh_status
allocate_cleared (T **buffer, size_t bytes, cudaStream_t stream, const char *what, gh_error *error)
{
  GH_CUDA_CHECK (cudaMalloc (buffer, bytes), what);
  GH_CUDA_CHECK (cudaMemsetAsync (*buffer, 0, bytes, stream), "clearing device memory");
  return GH_OK;
}

} // namespace gh

#endif /* GPUHIST_CUDA_CHECK_H */
