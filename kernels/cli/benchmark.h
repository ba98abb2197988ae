/* gpu-histogram: `gpuhist --bench`, the kernels' benchmark on the GPU.  Not part of the engine's
 * seam (gpuhist.h): only the command-line tool calls it. */
#ifndef GPUHIST_BENCHMARK_H
#define GPUHIST_BENCHMARK_H

#include "gpuhist.h"

#ifdef __cplusplus
extern "C"
{
#endif

  typedef struct
  {
    const uint8_t *pixels; /* packed rows */
    int width;
    int height;
    int channels;
  } gh_bench_image;

  typedef struct
  {
    int repetitions;             /* timed runs per kernel (default 20) */
    int quick;                   /* only the seed's table and the 8192² images */
    const gh_bench_image *photo; /* tiled into the photo inputs; NULL: those rows are left out */
    int device;
  } gh_bench_options;

  /* Runs the benchmark, writing Markdown tables to out.  Every kernel's counts are checked against
   * the reference count before it is timed.  Returns GH_OK, or an error (no GPU, a mismatch). */
  gh_status gh_benchmark (FILE *out, const gh_bench_options *options, gh_error *error);
  /* GPUHIST_BENCH_ONLY=scopes: the scopes' section alone (benchmark_scopes.c), through the
   * engine's API. */
  gh_status gh_bench_scopes (FILE *out, const gh_bench_options *options, gh_error *error);

#ifdef __cplusplus
}
#endif

#endif /* GPUHIST_BENCHMARK_H */
