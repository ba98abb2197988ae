/* gpu-histogram: the interface between the engine (engine.c) and its two backends, the CPU
 * (cpu/cpu_backend.c) and CUDA (cuda/cuda_backend.cu).  Internal: not installed, not for the
 * plug-in. */
#ifndef GPUHIST_BACKEND_H
#define GPUHIST_BACKEND_H

#include "gpuhist.h"

#ifdef __cplusplus
extern "C"
{
#endif

  /* Faults a test can inject through GPUHIST_FAULT; each takes a real error path. */
  typedef enum
  {
    GH_FAULT_NONE = 0,
    GH_FAULT_NO_DRIVER,
    GH_FAULT_OLD_DRIVER,
    GH_FAULT_NO_DEVICE,
    GH_FAULT_OOM,
    GH_FAULT_KERNEL,
    GH_FAULT_COPY
  } gh_fault;

  /* A scope's table (gh_scope): `tables` tables of columns x bins cells; tables == 0: not
   * counted.  The waveform's tables are the output channels in `channels` (bit c: channel c). */
  typedef struct
  {
    int tables;
    unsigned channels;
    int columns;
    int bins;
  } gh_table_shape;

  static inline size_t
  gh_table_cells (const gh_table_shape *shape)
  {
    return (size_t) shape->tables * (size_t) shape->columns * (size_t) shape->bins;
  }

  /* What a run asks of a backend. */
  typedef struct
  {
    int width; /* pixels a row: a strip holds whole rows, so pixel i lies in column i % width */
    int channels;
    int bytes_per_sample; /* 1, or 2 for uint16_t samples */
    int bins;             /* per channel: 256 for 8-bit samples, else a power of two to 65536 */
    int shift;            /* a sample's bin is sample >> shift */
    gh_binning binning;   /* 16-bit samples: SHIFT (sample >> shift) or GIMP's rule */
    gh_strategy strategy; /* for 16-bit samples: FASTEST's strategy, AUTO to let the device pick */
    /* Weighted and derived runs (gh_run_spec).  Output channels: channels, then value and
     * luminance when derived.  A sample's weight is w = m * a (m the coverage, 1 without a plane;
     * a the alpha sample when alpha_weighted, else 1) in integer scales; the alpha channel adds
     * m * alpha_full instead, so that every channel shares one denominator.  w < 2^32, and a
     * strip holds fewer than 2^32 pixels, so one strip's sums fit 64 bits: backends add each
     * strip's sums into sink.weighted (128-bit) before the next strip. */
    int coverage_bytes; /* 0, 1 or 2 */
    int alpha_weighted;
    int derived;
    gh_luminance luminance; /* derived runs: whose Luminance (gh_luminance) */
    int out_channels;       /* channels + 2 when derived */
    size_t coverage_offset; /* the coverage plane's offset in the staging buffer (after
                               strip_capacity sample bytes, 64-byte aligned); a strip of n pixels
                               has n * coverage_bytes bytes there, row by row.  A staging buffer
                               holds gh_plan_staging_bytes (plan) bytes */
    size_t strip_capacity;  /* sample bytes; whole rows, below 2^31 bytes (so below 2^31
                               pixels, and a strip's weighted sums below 2^63) */
    unsigned methods;       /* never 0: the engine turns 0 into FASTEST */
    int repetitions;        /* 0: FASTEST once, untimed and asynchronous */
    int warmup;
    gh_layout layout;
    gh_fault fault;
    int fault_after; /* the strip (1-based) on which a kernel or copy fault strikes */
    /* Scopes, counted by every method of `methods`, each timed alone (its own pass over the
     * strip), so that their contention shows as the histogram's does. */
    gh_table_shape scope[GH_N_SCOPES];
  } gh_run_plan;

  /* Where a backend puts what it measured.  The engine owns the arrays; the backend adds to them.
   * counts[m] is NULL for methods that were not asked for, and for READ_ONLY. */
  typedef struct
  {
    uint64_t *counts[GH_N_METHODS];  /* unweighted runs: out_channels * bins each */
    gh_u128 *weighted[GH_N_METHODS]; /* weighted runs (coverage or alpha): out_channels * bins
                                        each, in place of counts */
    double *rep_ms[GH_N_METHODS];    /* repetitions each: the strips' times added per repetition */
    double upload_ms;
    char layout[64];
    /* The scopes' tables, as counts, weighted and rep_ms above, gh_table_cells each; NULL
     * where the plan has no such scope. */
    struct
    {
      uint64_t *counts[GH_N_METHODS];
      gh_u128 *weighted[GH_N_METHODS];
      double *rep_ms[GH_N_METHODS];
    } scope[GH_N_SCOPES];
  } gh_run_sink;

  typedef struct
  {
    /* Opens the backend on the engine's options; fills description with a line for the user. */
    void *(*open) (const gh_options *options, gh_fault fault, char *description,
                   size_t description_size, gh_error *error);
    void (*close) (void *backend);
    void *(*run_begin) (void *backend, const gh_run_plan *plan, gh_run_sink *sink, gh_error *error);
    /* The host buffer to fill with the next strip (waits until it is free again). */
    uint8_t *(*staging) (void *run);
    /* Counts the first `bytes` of the staging buffer; may return before the counting is done. */
    gh_status (*strip) (void *run, size_t bytes, gh_error *error);
    /* Counts a synthetic strip made where the backend counts; NULL: the engine fills staging. */
    gh_status (*pattern_strip) (void *run, gh_pattern pattern, size_t bytes, uint64_t offset,
                                gh_error *error);
    /* Finishes all work, adds the device's counts into the sink, frees the run. */
    gh_status (*run_end) (void *run, gh_error *error);
    void (*run_abort) (void *run);
    /* Frees the process's device context once no backend is open (gh_release_gpu); NULL where
     * there is none. */
    void (*release_device) (void);
    /* Non-zero: run_begin is handed the sink's scope tables unwritten and clears them itself
     * before it adds to them (the CPU's pool clears them while the caller fills the first
     * strip); else the engine hands them over zeroed. */
    int clears_scope_sinks;
  } gh_backend_ops;

  extern const gh_backend_ops gh_cpu_backend_ops;
  extern const gh_backend_ops gh_cuda_backend_ops;

  /* TEST ONLY.  GPUHIST_TEST_SIMULATED_GPU=1 makes gh_engine_new (AUTO or CUDA) open this in place
   * of the CUDA backend: the CPU backend, described as "simulated GPU for tests (...)", which the
   * engine treats as a GPU, so that GPUHIST_FAULT=oom|kernel|copy strike with the CUDA backend's
   * status and message and the engine's and the plug-in's fall-back to the CPU can be tested on
   * a machine without a GPU.  kernel and copy strike on strip GPUHIST_FAULT_AFTER (default 1);
   * oom when the run begins, as on CUDA, or on strip N when GPUHIST_FAULT_AFTER=N > 1.  The
   * CPU backend it falls back to never faults; the other faults (no-driver ...) do nothing here.
   * cpu/simulated_gpu.c. */
  extern const gh_backend_ops gh_simulated_gpu_ops;

  /* Shared helpers. */
  /* Host memory for tables and buffers of megabytes, freed with free (): on huge pages where the
   * system lends them (transparent huge pages in "madvise" mode), so that a run's first touch of
   * its tables costs a fault every 2 MiB rather than every 4 KiB (the plug-in maps every large
   * block afresh for each run: docs/BENCHMARKS.md), and a table walked a row apart misses the
   * TLB less.  gh_large_zeroed: n zeroed cells of `size` bytes, written rather than left to
   * calloc, whose zero page costs a fault and a flush of every thread's TLB a page at the first
   * read-modify-write; NULL when the size overflows or memory ran out. */
  void *gh_large_alloc (size_t bytes);
  void *gh_large_zeroed (size_t n, size_t size);
  /* n cells of `size` bytes, not cleared; NULL when the size overflows or memory ran out. */
  void *gh_large_unwritten (size_t n, size_t size);
  void gh_error_set (gh_error *error, gh_status status, const char *format, ...)
#ifdef __GNUC__
      __attribute__ ((format (printf, 3, 4)))
#endif
      ;
  double gh_now_ms (void);
#define GH_FLAT_VALUE 0x80u

#ifdef __CUDACC__
#define GH_HOST_DEVICE __host__ __device__
#else
#define GH_HOST_DEVICE
#endif

  /* Four bytes of the noise pattern: a hash of their position (splitmix64's finaliser), so that any
   * strip can be made alone, on the host or on the device, and every byte value is equally likely.
   */
  static inline GH_HOST_DEVICE uint32_t
  gh_pattern_word (uint64_t word_index)
  {
    uint64_t z = word_index * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (uint32_t) (z ^ (z >> 31));
  }

  /* Adds a strip's 64-bit sum into a 128-bit total (the fold of gh_run_plan's comment). */
  static inline GH_HOST_DEVICE void
  gh_u128_add64 (gh_u128 *total, uint64_t add)
  {
    const uint64_t lo = total->lo + add;
    total->hi += lo < add;
    total->lo = lo;
  }

  /* Pixels a full strip holds, and the staging buffer's size: the samples, then the coverage
   * plane at coverage_offset. */
  static inline GH_HOST_DEVICE size_t
  gh_plan_strip_pixels (const gh_run_plan *plan)
  {
    return plan->strip_capacity / ((size_t) plan->channels * (size_t) plan->bytes_per_sample);
  }

  static inline GH_HOST_DEVICE size_t
  gh_plan_staging_bytes (const gh_run_plan *plan)
  {
    return plan->coverage_offset + gh_plan_strip_pixels (plan) * (size_t) plan->coverage_bytes;
  }

  /* A weighted run: its sums go to sink.weighted, not sink.counts. */
  static inline GH_HOST_DEVICE int
  gh_plan_weighted (const gh_run_plan *plan)
  {
    return plan->coverage_bytes > 0 || plan->alpha_weighted;
  }

  /* Today's run: no weights, no derived channels, 16-bit samples binned by SHIFT.  Backends keep
   * their original code path (and speed) for these. */
  static inline GH_HOST_DEVICE int
  gh_plan_plain (const gh_run_plan *plan)
  {
    return !gh_plan_weighted (plan) && !plan->derived
           && (plan->bytes_per_sample == 1 || plan->binning == GH_BINNING_SHIFT);
  }

#ifdef __cplusplus
}
#endif

#endif /* GPUHIST_BACKEND_H */
