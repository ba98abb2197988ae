/* gpu-histogram: `gpuhist --bench` in a build without CUDA. */
#include "backend.h"
#include "benchmark.h"

gh_status
gh_benchmark (FILE *out, const gh_bench_options *options, gh_error *error)
{
  (void) out;
  (void) options;
  gh_error_set (error, GH_ERROR_NOT_BUILT,
                "the benchmark needs the CUDA backend, and this build has none");
  return GH_ERROR_NOT_BUILT;
}
