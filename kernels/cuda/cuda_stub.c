/* gpu-histogram: the CUDA backend of a build without nvcc.  It is never usable, and says so. */
#include "backend.h"

static void *
stub_open (const gh_options *options, gh_fault fault, char *description, size_t description_size,
           gh_error *error)
{
  (void) options;
  (void) fault;
  (void) description;
  (void) description_size;
  gh_error_set (error, GH_ERROR_NOT_BUILT,
                "this build of gpu-histogram has no CUDA support (nvcc was not found when it was "
                "built)");
  return NULL;
}

const gh_backend_ops gh_cuda_backend_ops = { .open = stub_open };
