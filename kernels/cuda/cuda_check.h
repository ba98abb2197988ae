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

} // namespace gh

#endif /* GPUHIST_CUDA_CHECK_H */
