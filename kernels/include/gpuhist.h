/* gpu-histogram: the histogram engine's public API.
 *
 * This header is the whole seam between the engine (kernels/) and its users: the GIMP plug-in and
 * the gpuhist command-line tool.  It is plain C with no GLib, so that the engine builds on a
 * machine that has a CUDA toolkit and nothing else.  It is the only header on the users' include
 * path (kernels/include/); behind it, in layers:
 *
 *   kernels/engine/  runs, strips, the fall-back to the CPU, statistics, CSV/JSON; backend.h,
 *                    the interface both backends implement (gh_backend_ops)
 *   kernels/cpu/     the CPU backend, and the simulated GPU for tests
 *   kernels/cuda/    the CUDA backend (devices, memory, streams), the planning and launch layer,
 *                    the kernels
 *   kernels/cli/     the gpuhist tool, its Netpbm reader and the benchmark
 *
 * What the engine does: it turns interleaved 8-bit or 16-bit samples (1 to 4 channels) into exact
 * 64-bit per-channel histograms (256 bins, or up to 65536 for 16-bit samples), on an NVIDIA GPU
 * or on the CPU, and times how it did it.
 *
 * How a caller uses it:
 *
 *   gh_engine *engine = gh_engine_new (&options, &error);    // never NULL for GH_BACKEND_AUTO
 *   gh_run *run = gh_run_begin (engine, width, height, channels, &error);
 *   while (rows remain)
 *     {
 *       int max_rows;
 *       uint8_t *strip = gh_run_strip_buffer (run, &max_rows);  // pinned memory on the GPU path
 *       ... write up to max_rows packed rows (width * channels bytes each) into strip ...
 *       gh_run_submit_strip (run, rows, &error);                // returns before the GPU is done
 *     }
 *   gh_run_finish (run, &result, &error);
 *   ... use result.counts, result.timing, result.backend ...
 *   gh_result_clear (&result);
 *   gh_engine_free (engine);
 *
 * GIMP's own histogram weighs pixels (selection coverage, alpha) and adds Value and Luminance: a
 * run asks for that through gh_run_spec and gh_run_begin_spec (filling gh_run_coverage_buffer
 * beside each strip), and its result holds exact numerators over one denominator, and values in
 * pixels; gh_histogram_spec is the whole loop.
 *
 * Strips bound the memory: the engine never holds more than the memory budget (256 MiB unless
 * the options or GPUHIST_MEMORY_BUDGET say otherwise) of pinned host memory, nor of device memory,
 * whatever the image size.  The caller fills the strip buffer directly, so that pixels go from
 * GIMP to the GPU with no whole-image copy, and the next strip is filled while the GPU counts
 * the last one.
 *
 * When the GPU fails in the middle of a run (GH_ERROR_GPU_FAILED or GH_ERROR_OUT_OF_MEMORY from
 * gh_run_submit_strip or gh_run_finish), the run is lost; the caller calls
 * gh_engine_fall_back_to_cpu and starts the run again.  gh_histogram_buffer does this itself.
 *
 * Nothing in the engine prints, exits or aborts: every failure comes back as a gh_status and a
 * message a user can understand.
 *
 * Environment variables, read by gh_engine_new (for tests and for users who must cap memory):
 *   GPUHIST_MEMORY_BUDGET  bytes (suffix K, M or G allowed) of pinned and of device memory
 *   GPUHIST_FAULT          inject a fault: no-driver, old-driver, no-device, oom, kernel, copy
 *   GPUHIST_FAULT_AFTER    with kernel or copy: fail on the Nth strip (default 1); with oom:
 *                          N > 1 fails a device allocation on the Nth strip, else at the start
 *   GPUHIST_FAULT_RUN      the fault strikes only in the engine's Nth run (default: every run;
 *                          a run aborted before its first strip is not counted), so that a
 *                          kept engine can fail after runs that did not
 *   GPUHIST_TEST_SIMULATED_GPU  TEST ONLY: 1 puts a simulated GPU (the CPU, which the faults
 *                          above can fail mid-run) in place of CUDA; see backend.h
 */
#ifndef GPUHIST_H
#define GPUHIST_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C"
{
#endif

#define GH_MAX_CHANNELS 4
#define GH_BINS 256       /* the default, and the only count for 8-bit samples */
#define GH_MAX_BINS 65536 /* every level of a 16-bit sample */
#define GH_MESSAGE_SIZE 512
#define GH_DEFAULT_MEMORY_BUDGET ((size_t) 256 << 20)

  typedef enum
  {
    GH_OK = 0,
    GH_ERROR_INVALID_ARGUMENT, /* the caller passed something impossible */
    GH_ERROR_NO_DRIVER,        /* no NVIDIA driver is installed or loaded */
    GH_ERROR_DRIVER_TOO_OLD,   /* the driver is older than the CUDA runtime built in */
    GH_ERROR_NO_DEVICE,        /* a driver, but no usable CUDA device */
    GH_ERROR_OUT_OF_MEMORY,    /* device or pinned host memory could not be had */
    GH_ERROR_GPU_FAILED,       /* a CUDA call or kernel failed */
    GH_ERROR_NOT_BUILT,        /* this build has no CUDA backend */
    GH_ERROR_MISMATCH,         /* two methods disagreed on the counts: a bug, never hidden */
    GH_ERROR_UNSUPPORTED,      /* a forced choice this device cannot do */
    GH_ERROR_CANCELLED
  } gh_status;

  typedef struct
  {
    gh_status status;
    char message[GH_MESSAGE_SIZE];
  } gh_error;

  /* Which machine counts. */
  typedef enum
  {
    GH_BACKEND_AUTO = 0, /* the GPU when one is usable, else the CPU with the reason recorded */
    GH_BACKEND_CPU,
    GH_BACKEND_CUDA /* the GPU or an error */
  } gh_backend;

  /* The methods compared.  Each backend implements all four, so the same table fills either way:
   *
   *                      CUDA backend                           CPU backend
   *   GLOBAL_ATOMICS     one atomicAdd per sample, device-wide   one atomic add per sample, shared
   *   PRIVATIZED         the seed's kernel: a shared-memory       per-thread tables, merged once
   *                      copy per block, merged with atomicAdd
   *   FASTEST            the project's own privatized kernel      the fastest CPU method
   *   READ_ONLY          reads every byte, counts nothing:        reads every byte, counts nothing
   *                      the ceiling
   */
  typedef enum
  {
    GH_METHOD_GLOBAL_ATOMICS = 0,
    GH_METHOD_PRIVATIZED,
    GH_METHOD_FASTEST,
    GH_METHOD_READ_ONLY,
    GH_N_METHODS
  } gh_method;

#define GH_METHOD_BIT(m) (1u << (m))
#define GH_ALL_METHODS ((1u << GH_N_METHODS) - 1u)

  /* Shared-memory layouts of the FASTEST kernel; AUTO picks from the device's properties. */
  typedef enum
  {
    GH_LAYOUT_AUTO = 0,
    GH_LAYOUT_LANE_COLUMNS, /* one 32-bit counter column per warp lane: no bank conflicts */
    GH_LAYOUT_PACKED,       /* the same with 16-bit counters, flushed before they overflow: half the
                               shared memory, for GPUs such as the T4 */
    GH_LAYOUT_SINGLE        /* one table per block, as the seed does */
  } gh_layout;

  /* How FASTEST counts 16-bit samples (256 to 65536 bins a channel: the wide tables); AUTO
   * picks from the device's shared memory and the bin count: SHARED when one 32-bit table fits
   * a block, else SLICED (the fastest of the rest on an H200). */
  typedef enum
  {
    GH_STRATEGY_AUTO = 0,
    GH_STRATEGY_SHARED,       /* one 32-bit copy of the tables per block in shared memory */
    GH_STRATEGY_NARROW,       /* 16-bit counters in shared memory, flushed before they overflow */
    GH_STRATEGY_SLICED,       /* a slice of one channel's bins a block, every slice in one launch,
                                 on planar strips (de-interleaved while staging): each block reads
                                 its channel's plane, memory once, L2 for the other slices */
    GH_STRATEGY_GLOBAL_COPIES /* a handful of full copies in global memory, merged at the end */
  } gh_strategy;

  /* Synthetic inputs, made where the counting happens (on the device for the GPU backend). */
  typedef enum
  {
    GH_PATTERN_FLAT = 0, /* every sample the same value */
    GH_PATTERN_NOISE,    /* uniform random bytes */
    GH_N_PATTERNS
  } gh_pattern;

  typedef struct
  {
    gh_backend backend;
    unsigned methods;     /* GH_METHOD_BIT mask; 0 means FASTEST alone */
    int repetitions;      /* timed runs per method per strip; 0: count once with FASTEST, untimed */
    int warmup;           /* untimed runs before the timed ones; < 0 means the default, 1 */
    size_t memory_budget; /* 0: GH_DEFAULT_MEMORY_BUDGET (or GPUHIST_MEMORY_BUDGET) */
    gh_layout layout;     /* FASTEST's layout; AUTO unless a comparison forces one */
    int cpu_threads;      /* 0: one per core */
    int device;           /* CUDA device ordinal */
    int bins;             /* per channel: 256 (0 means 256), 1024, 4096, 16384 or 65536 */
    gh_strategy strategy; /* 16-bit samples only: AUTO unless a comparison forces one */
    /* Bytes a result table (a scope's: cells x 8, or 16 weighted) may take; 0 means
     * memory_budget.  A caller whose memory_budget sizes only its staging (the plug-in) sets
     * this apart, since a table does not grow with the image. */
    size_t table_budget;
  } gh_options;

  /* Fills *options with the defaults: AUTO backend, FASTEST only, no repetitions. */
  void gh_options_init (gh_options *options);

  typedef enum
  {
    GH_TIME_GLOBAL_ATOMICS = GH_METHOD_GLOBAL_ATOMICS,
    GH_TIME_PRIVATIZED = GH_METHOD_PRIVATIZED,
    GH_TIME_FASTEST = GH_METHOD_FASTEST,
    GH_TIME_READ_ONLY = GH_METHOD_READ_ONLY,
    GH_TIME_UPLOAD, /* host to device, all strips; 0 on the CPU and for device-made inputs */
    GH_N_TIMINGS
  } gh_timing_kind;

  /* One method's time for the whole image: the strips' times added up per repetition, then the
   * median, min and max over repetitions.  runs == 0 means not run. */
  typedef struct
  {
    double median_ms;
    double min_ms;
    double max_ms;
    int runs;
  } gh_timing;

  /* Which GIMP's Luminance a derived run counts (gh_run_spec.luminance).  The two differ in what
   * they sum, not only in rounding (engine/gimp_rules.h has both, bit for bit):
   *   GIMP2  GIMP 2.10: 0.22248840 r + 0.71690369 g + 0.06060791 b of the samples' floats as
   *          they are (perceptual or linear), in double, stored in a float.  The default.
   *   GIMP3  GIMP 3.0, samples on the sRGB curve (its perceptual histogram): babl's linear-light
   *          Y of them, 0.22248794 R + 0.71690384 G + 0.06060826 B in float of the samples'
   *          floats linearized by babl's float approximation of the sRGB curve.
   *   GIMP3_LINEAR  GIMP 3.0, linear-light samples (its linear histogram): the same sum of the
   *          samples' floats as they are.
   * GIMP 3.0 asks babl for that sum, and babl picks the code by timing it: where it picks its
   * fused multiply-add build, 4 of the 2^24 8-bit triples land one bin from GIMP3's (about 3 in
   * a million random 16-bit triples at 1024 bins); docs/BENCHMARKS.md, "GIMP 3.0's Luminance". */
  typedef enum
  {
    GH_LUMINANCE_GIMP2 = 0,
    GH_LUMINANCE_GIMP3,
    GH_LUMINANCE_GIMP3_LINEAR
  } gh_luminance;

  /* An unsigned 128-bit integer: a weighted run's exact sums can pass 2^64. */
  typedef struct
  {
    uint64_t hi, lo;
  } gh_u128;

  /* Scopes: tables of more than one dimension, counted from the same pixels as the histogram.
   *
   * WAVEFORM, for C columns of a run W pixels wide: the pixel in column x (0-based) lands in
   * output column floor (x * C / W), where it adds to each of the waveform's channels exactly the
   * bin and the weight that it adds to that channel's histogram (same binning rule, coverage and
   * alpha weights).  So a channel's waveform summed over its columns is its histogram, bin for
   * bin.  Cells: [table][column][bin], tables in the order of the result's channels.  The RGB
   * parade is the waveform's red, green and blue side by side: no table of its own.
   *
   * VECTORSCOPE, 256 x 256, Rec.709 chroma (sRGB's primaries), from the pixel's 8-bit levels
   * r, g, b (deeper samples: their bin under the run's rule at 256 bins; a linear run's levels
   * are linear):
   *   cb = min (255, (-7509 r - 25259 g + 32768 b + 8421376) >> 16)
   *   cr = min (255, (32768 r - 29763 g - 3005 b + 8421376) >> 16)
   * The pixel adds its colour weight (coverage times alpha, as the colour channels) to cell
   * [cr][cb]: one table, 256 rows of Cr, each of 256 Cb.  Every gray lands in [128][128]; the
   * integer formula is normative (it differs from rounded real Rec.709 on a few thousand triples,
   * on purpose, so that every backend agrees bit for bit).  Its total is the red channel's. */
  typedef enum
  {
    GH_SCOPE_WAVEFORM = 0,
    GH_SCOPE_VECTORSCOPE,
    GH_N_SCOPES
  } gh_scope_kind;

#define GH_VECTORSCOPE_SIZE 256

  typedef struct
  {
    int tables;                       /* 0: not counted; waveform: its channels; vectorscope: 1 */
    int channel[GH_MAX_CHANNELS + 2]; /* waveform: the result channel of each table */
    int columns;                      /* waveform: output columns; vectorscope: 256 rows (Cr) */
    int bins;                         /* waveform: the run's bins; vectorscope: 256 (Cb) */
    uint64_t *counts;    /* unweighted runs: tables * columns * bins, NULL for weighted ones */
    gh_u128 *numerators; /* weighted runs: the same cells over the result's denominator */
    double *values;      /* every run: the cells in pixels */
    gh_timing timing[GH_N_TIMINGS]; /* this table's methods; READ_ONLY is the run's one pass */
  } gh_scope;

  /* The scope's cell count (tables * columns * bins), 0 when not counted. */
  size_t gh_scope_cells (const gh_scope *scope);

  typedef struct
  {
    int channels;         /* counted channels: the run's, then value and luminance when derived */
    int input_channels;   /* the run's own channels */
    int derived;          /* the last two channels are value and luminance */
    int weighted;         /* a coverage plane or alpha weighting: the counts are weights */
    int bins;             /* per channel */
    uint64_t *counts;     /* unweighted runs: channels * bins exact counts, channel by channel;
                             NULL for weighted runs.  Owned, see gh_result_clear */
    gh_u128 *numerators;  /* weighted runs: channels * bins exact sums in units of 1/denominator
                             of a pixel; NULL for unweighted runs */
    uint64_t denominator; /* the weight of one fully covered, opaque pixel: 1 unweighted, else
                             coverage full scale times alpha full scale (255, 65535, 65025 ...) */
    double *values;       /* every run: channels * bins counts in pixels (numerator / denominator,
                             the nearest double) */
    uint64_t samples;     /* samples counted per channel (the pixel count) */
    uint64_t bytes;       /* bytes read per pass: samples, and the coverage plane */
    gh_timing timing[GH_N_TIMINGS];
    int used_gpu;
    char backend[GH_MESSAGE_SIZE]; /* "NVIDIA H200 (sm_90), driver 13.0, CUDA runtime 13.0" or
                                      "CPU, 2 threads: no NVIDIA driver is installed" */
    char layout[64];               /* what FASTEST ran as, e.g. "lane columns, 4 ch, ..." */
    /* Derived runs: whose Luminance was counted. */
    gh_luminance luminance;
    gh_scope scopes[GH_N_SCOPES]; /* what the spec asked for; tables == 0 otherwise */
  } gh_result;

  void gh_result_clear (gh_result *result);

  typedef struct gh_engine gh_engine;
  typedef struct gh_run gh_run;

  /* With GH_BACKEND_AUTO this never fails for want of a GPU: it falls back to the CPU and says why
   * in gh_engine_backend.  It returns NULL (and fills *error) only for bad options or no memory,
   * or with GH_BACKEND_CUDA when the GPU cannot be used. */
  gh_engine *gh_engine_new (const gh_options *options, gh_error *error);
  void gh_engine_free (gh_engine *engine);
  /* Frees this process's GPU context, and the device memory it holds, once no engine is left: for
   * a long-lived caller (the plug-in's resident process) that should not hold the GPU while it
   * is idle.  The next gh_engine_new opens the GPU again.  Does nothing when no engine has
   * opened a GPU. */
  void gh_release_gpu (void);

  /* A line naming the device, driver and runtime, or "CPU, N threads: <why no GPU>". */
  const char *gh_engine_backend (const gh_engine *engine);
  int gh_engine_uses_gpu (const gh_engine *engine);

  /* Switches the engine to the CPU for good, recording why (typically the message of the error
   * that ended the GPU run). */
  void gh_engine_fall_back_to_cpu (gh_engine *engine, const char *reason);

  /* Changes the methods and repetitions of later runs. */
  void gh_engine_set_methods (gh_engine *engine, unsigned methods, int repetitions);
  /* Changes the bins of later runs: a power of two from 256 to 65536; GH_OK or INVALID_ARGUMENT. */
  gh_status gh_engine_set_bins (gh_engine *engine, int bins, gh_strategy strategy, gh_error *error);

  /* How a sample of more than 8 bits lands in a bin (8-bit samples: bin = sample, always). */
  typedef enum
  {
    GH_BINNING_SHIFT = 0, /* bin = s * bins / 65536: every bin holds the same number of levels
                             (gh_run_begin_samples, and gpuhist unless told otherwise) */
    GH_BINNING_GIMP /* GIMP's rule: bin = floor (float (float (s / 65535) * (bins - 1)) + 0.5),
                       in GIMP's float arithmetic (the plug-in; 1024 bins equal GIMP's histogram
                       of a 16-bit layer) */
  } gh_binning;
  /* Who gets which rule: gh_run_begin_samples, gh_histogram_buffer16 and gh_run_spec_init's
   * default: SHIFT, as before this rule existed; the plug-in asks for GIMP in its spec.
   *
   * GIMP's arithmetic (app/core/gimphistogram.c, engine/gimp_rules.h) is followed bit for bit,
   * not the exact real numbers: a sample becomes the float nearest s / 255 or s / 65535 (babl),
   * the product with (float) (bins - 1) is rounded to float, and that float is rounded half up
   * (SIGNED_ROUND is floor (x + 0.5)).  Where the exact s * (bins - 1) / 65535 lies just below
   * k + 0.5 but its float product is k + 0.5 (or above it), the sample goes to bin k + 1, as in
   * GIMP (1 level of 65536 at 1024 bins, 7 at 4096, none at 256 or 65536).  Value takes the largest
   * of the three floats; Luminance is 0.22248840 r + 0.71690369 g + 0.06060791 b summed in double
   * from the left and stored in a float before it is binned, as GIMP_RGB_LUMINANCE is: a luminance
   * within a float's rounding of a bin boundary lands where GIMP's float lands, not where the exact
   * sum would (68 of the 2^24 8-bit triples).  Under SHIFT a 16-bit luminance is first GIMP's float
   * rounded to a 16-bit level (GIMP's rule at 65536 bins), then binned as a sample of that level.
   * 8-bit samples: bin = s under both. */

  /* A run in full: what the samples are and what is counted.  gh_run_spec_init fills the
   * defaults (an unweighted run, today's counts); gh_run_begin_spec checks the combination. */
  typedef struct
  {
    int width, height;
    int channels;         /* 1 to 4 interleaved samples a pixel */
    int bytes_per_sample; /* 1, or 2 for uint16_t samples in the host's byte order */
    gh_binning binning;   /* for 2-byte samples */
    /* Weights, as GIMP's histogram counts them (app/core/gimphistogram.c): a pixel adds its
     * coverage m to every channel; with alpha_weighted, the colour (gray) channels add a * m and
     * the alpha channel m. */
    int coverage_bytes; /* 0: no coverage plane (m = 1); 1 or 2: a plane of one 8- or 16-bit
                           coverage value a pixel (0 .. 255 or 65535 = full), filled strip by
                           strip beside the samples (gh_run_coverage_buffer) */
    int alpha_weighted; /* 2- or 4-channel runs: the last channel weights the others */
    int derived;        /* 3- or 4-channel runs: two more channels, value = max (R, G, B) and
                           luminance (by `luminance`), binned by the run's rule and weighted
                           like the colour channels; the result's last two channels, which
                           gh_write_csv and gh_write_json name by the caller's names array like
                           the others ("value", "luminance") */
    /* Derived runs: whose Luminance (gh_luminance); GIMP2, 2.10's, by default. */
    gh_luminance luminance;
    /* Scopes, counted beside the histogram from the same strips (gh_scope). */
    int waveform_columns;       /* 0: no waveform; else 1 .. width output columns */
    unsigned waveform_channels; /* bit c: the result's channel c has a waveform; 0: every one */
    int vectorscope;            /* 3- or 4-channel runs: the 256 x 256 chroma table */
  } gh_run_spec;

  void gh_run_spec_init (gh_run_spec *spec, int width, int height, int channels,
                         int bytes_per_sample);
  /* INVALID_ARGUMENT, nothing counted, for a coverage plane of another size than 0, 1 or 2 bytes,
   * alpha weighting on a 1- or 3-channel run, derived channels on a 1- or 2-channel run.
   * Both backends count every valid spec with every method. */
  gh_run *gh_run_begin_spec (gh_engine *engine, const gh_run_spec *spec, gh_error *error);
  /* The strip's coverage plane: max_rows * width * coverage_bytes bytes, row by row, filled with
   * the same rows as the strip buffer before gh_run_submit_strip; NULL without a plane. */
  uint8_t *gh_run_coverage_buffer (gh_run *run);

  /* A run over 8-bit samples: 256 bins, whatever the engine's bins. */
  gh_run *gh_run_begin (gh_engine *engine, int width, int height, int channels, gh_error *error);
  /* A run over samples of 1 or 2 bytes (uint16_t in the host's byte order), binned into the
   * engine's bins: a 16-bit sample v lands in bin v * bins / 65536 (GH_BINNING_SHIFT).  8-bit
   * samples take 256 bins only.  The same as gh_run_begin_spec on gh_run_spec_init's spec. */
  gh_run *gh_run_begin_samples (gh_engine *engine, int width, int height, int channels,
                                int bytes_per_sample, gh_error *error);
  uint8_t *gh_run_strip_buffer (gh_run *run, int *max_rows);
  gh_status gh_run_submit_strip (gh_run *run, int rows, gh_error *error);
  /* Rows are width * channels * bytes_per_sample bytes, packed.
   * Fills *result (which the caller clears) and frees the run, successful or not. */
  gh_status gh_run_finish (gh_run *run, gh_result *result, gh_error *error);
  /* Frees a run that will not be finished (cancelled, or the caller hit an error). */
  void gh_run_abort (gh_run *run);

  /* The whole loop for an image already in memory, rows `stride` bytes apart; on a GPU failure it
   * falls back to the CPU and runs again. */
  gh_status gh_histogram_buffer (gh_engine *engine, const uint8_t *pixels, int width, int height,
                                 int channels, size_t stride, gh_result *result, gh_error *error);
  /* The same for 16-bit samples (uint16_t, host byte order), in the engine's bins. */
  gh_status gh_histogram_buffer16 (gh_engine *engine, const uint16_t *pixels, int width, int height,
                                   int channels, size_t stride_bytes, gh_result *result,
                                   gh_error *error);

  /* The whole loop for any spec: samples `stride` bytes a row apart (uint16_t for 2-byte
   * samples), the coverage plane (spec->coverage_bytes a pixel; NULL when the spec has none)
   * `coverage_stride` bytes a row apart; falls back to the CPU on a GPU failure and runs again. */
  gh_status gh_histogram_spec (gh_engine *engine, const gh_run_spec *spec, const void *pixels,
                               size_t stride, const void *coverage, size_t coverage_stride,
                               gh_result *result, gh_error *error);

  /* Runs the configured methods on a synthetic image of this size, made on the device for the GPU
   * backend (no upload), so that contention can be compared with the user's own image. */
  gh_status gh_histogram_pattern (gh_engine *engine, gh_pattern pattern, int width, int height,
                                  int channels, gh_result *result, gh_error *error);
  /* The same for a spec's samples, derived channels and scopes (its weights left out: a pattern
   * has no coverage and counts unweighted), made on the host strip by strip, so that the
   * contention of the scopes' tables can be compared with the user's own image too. */
  gh_status gh_histogram_pattern_spec (gh_engine *engine, gh_pattern pattern,
                                       const gh_run_spec *spec, gh_result *result, gh_error *error);

  /* The single-threaded reference count: obviously correct, used to verify everything else.
   * Adds into counts (channels * GH_BINS). */
  void gh_reference_count (const uint8_t *pixels, int width, int height, int channels,
                           size_t stride, uint64_t *counts);
  /* The same for 16-bit samples into `bins` bins a channel (channels * bins counts). */
  void gh_reference_count16 (const uint16_t *pixels, int width, int height, int channels,
                             size_t stride_bytes, int bins, uint64_t *counts);

  /* The reference for any spec, as gh_histogram_spec's arguments: single-threaded, one pixel at
   * a time, into out_channels * bins exact sums (counts for unweighted runs; numerators over
   * the result's denominator for weighted ones), added to what `sums` holds.  bins: 256 for
   * 8-bit samples, else the engine's. */
  void gh_reference_count_spec (const gh_run_spec *spec, int bins, const void *pixels,
                                size_t stride, const void *coverage, size_t coverage_stride,
                                gh_u128 *sums);

  /* The reference for a scope (spec->waveform_columns, spec->vectorscope), as
   * gh_reference_count_spec: into the scope's cells (gh_scope: tables * columns * bins) as exact
   * sums, added to what `sums` holds.  bins: 256 for 8-bit samples, else the engine's. */
  void gh_reference_count_scope (const gh_run_spec *spec, int bins, gh_scope_kind kind,
                                 const void *pixels, size_t stride, const void *coverage,
                                 size_t coverage_stride, gh_u128 *sums);

  /* Statistics of one channel's histogram. */
  typedef struct
  {
    double mean;
    double stddev;
    int median; /* the lowest bin at which half the samples are reached */
    int min;    /* lowest and highest bin used; -1 when empty */
    int max;
    double busiest_share; /* the largest bin over all samples, 0..1 */
    int bins_used;
    uint64_t pixels;
    double weight; /* the counted weight in pixels: pixels for unweighted counts */
  } gh_channel_stats;

  void gh_stats_compute (const uint64_t *counts, int bins, gh_channel_stats *stats);
  /* The same over any run's values (gh_result.values, in pixels), as GIMP's
   * gimp_histogram_get_mean, get_std_dev and get_median compute them, in bins (GIMP's results
   * times bins - 1): the median is the lowest bin where twice the running sum passes the total
   * (GIMP's "sum * 2 > count"), so at an exact half it may lie one bin above gh_stats_compute's.
   * pixels is the total weight rounded down, weight the total. */
  void gh_stats_compute_values (const double *values, int bins, gh_channel_stats *stats);

  /* Names of the methods and timings for tables: "global atomics", "privatized", ... */
  const char *gh_method_name (gh_method method);
  const char *gh_timing_name (gh_timing_kind kind);
  const char *gh_status_name (gh_status status);
  const char *gh_strategy_name (gh_strategy strategy);
  /* "gimp2", "gimp3", "gimp3-linear": the JSON's luminance_rule and gpuhist's --luminance. */
  const char *gh_luminance_name (gh_luminance rule);

  /* Results as text.  channel_names holds result->channels names ("red", "green", "blue",
   * "alpha", "gray"; for derived runs the caller's last two, "value" and "luminance").
   * CSV: a header "bin,<names>" then one row per bin.  JSON: counts, statistics, timings and the
   * backend.  Unweighted runs write exactly what they always have.  Weighted runs: a CSV count
   * in pixels is an integer when it is one, else rounded to 6 decimals; JSON adds "weighted" and
   * "denominator", and each channel has GIMP's statistics (gh_stats_compute_values), "pixels"
   * as a weight, "numerators" (decimal strings: they may pass 2^64) and "values" (pixels, as in
   * the CSV) in place of "counts".  Return 0, or -1 when writing failed. */
  int gh_write_csv (FILE *out, const gh_result *result, const char *const *channel_names);
  int gh_write_json (FILE *out, const gh_result *result, const char *const *channel_names);
  /* For callers that add members of their own to the same object (the plug-in): the object of
   * gh_write_json without its closing "\n}\n", so that the caller goes on with ",\n  \"name\": "
   * and closes it; and the strings escaped as gh_write_json escapes them (quotes, backslashes,
   * control characters as \u00XX), quotes included. */
  int gh_write_json_begin (FILE *out, const gh_result *result, const char *const *channel_names);
  void gh_write_json_string (FILE *out, const char *s);
  /* The result's scopes as members of gh_write_json_begin's object, each after ",\n  ", for
   * callers that close the object themselves (gh_write_json writes them without numerators):
   *   "waveform": {"columns": C, "bins": B, "channels": [names],
   *                "counts": [per channel: [per column: [B counts]]], "timings_ms": {...}}
   *   "vectorscope": {"size": 256, "counts": [per Cr: [256 counts, by Cb]], "timings_ms": {...}}
   * Weighted runs: "weighted": true and "counts" in pixels, written as gh_write_csv writes them;
   * with `numerators`, also "numerators" (decimal strings, in the same nesting) and
   * "denominator", as in the histogram's weighted JSON.  "timings_ms" has the form of the
   * histogram's, the table's own times ("read_only" is the run's one pass).  The cells are
   * formatted by up to one thread a processor (at most 16; GPUHIST_WRITE_THREADS sets how many)
   * and written in large blocks, in order.  0, or -1 when writing failed or there was no
   * memory. */
  int gh_write_scopes_json (FILE *out, const gh_result *result, const char *const *channel_names,
                            int numerators);
  /* One scope's counts as CSV, each count as gh_write_scopes_json's "counts" has it (pixels in
   * weighted runs, as gh_write_csv writes them):
   *   waveform     a header "channel,column,0,1,...,B-1" (B the bins), then a row for each table
   *                whose result channel c has bit c set in `channels` (0: every table), column
   *                by column: the channel's name, the output column, its B counts from level 0;
   *   vectorscope  a header "cr,0,1,...,255" (the Cb), then a row for each Cr from 0: the Cr,
   *                then its 256 counts by Cb (the JSON's "counts" row by row).
   * 0, or -1 when writing failed or the scope was not counted. */
  int gh_write_scope_csv (FILE *out, const gh_result *result, gh_scope_kind kind, unsigned channels,
                          const char *const *channel_names);

  /* Charts: a result's scopes drawn as RGBA pixels (render.c), for gpuhist's PNGs and the
   * dialog.
   *
   *   WAVEFORM     image columns left to right, levels bottom (0) to top (the last bin); the
   *                waveform's tables overlaid, added colour by colour: red, green and blue in
   *                their colours, gray and luminance white, value light gray (0.75), alpha mid
   *                gray (0.5); a sum past full brightness is clipped.
   *                Natural size: columns x min (bins, 1024).
   *   PARADE       the red, green and blue waveforms side by side, each in its colour, in
   *                thirds of the width (panel p: output columns p * width / 3 up to
   *                (p + 1) * width / 3).  Natural size: 3 * columns x min (bins, 1024).
   *   VECTORSCOPE  Cb to the right, Cr up, the neutral cell (128, 128) in the middle; density in
   *                white (neutral: the colour targets say which way each hue lies).
   *                Natural size: 256 x 256, one cell a pixel.
   *
   * Any size, each axis on its own: output pixel x of `size` sums the cells of that axis from
   * floor (x * n / size) up to, not including, floor ((x + 1) * n / size), at least one (n the
   * axis' cells): shrinking adds every cell once, stretching repeats cells.  Sums are of
   * gh_scope.values (pixels), so that a weighted run draws as its unweighted twin would.
   *
   * Density: s, the output pixel's sum of one table; M, the largest such sum in the chart (over
   * every table drawn); then the table's intensity is
   *   LINEAR  v = gain * s / M
   *   LOG     v = gain * ln (1 + s) / ln (1 + M)
   * clipped to 0 .. 1 (0 everywhere when M is 0), and a pixel's component is
   * floor (255 * min (1, sum over tables of colour * v) + 0.5).  So at gain 1 the densest pixel
   * is at full brightness whatever the size, and LOG shows sparse cells that LINEAR leaves
   * black.
   *
   * Graticule, drawn over the density, each component the larger of the two: gray (96) lines at
   * 0, 25, 50, 75 and 100 % of the levels (row height - 1 - floor (f * (height - 1) + 0.5));
   * on the vectorscope the six 75 % colour targets (hollow squares in their colour with a dot
   * in the middle, half a side max (2, min (width, height) / 64)), a gray cross on the centre,
   * and the skin-tone line (gray, from the centre to the edge at 123 degrees from +Cb towards +Cr,
   * in the chroma plane).
   * The cell (cb, cr) is drawn at x = floor ((cb + 0.5) * width / 256),
   * y = height - 1 - floor ((cr + 0.5) * height / 256).
   *
   * Pixels: `height` rows `stride` bytes apart (stride >= 4 * width), each pixel R, G, B, A
   * bytes (B, G, R, A with gh_render_options.bgra), straight (not premultiplied) alpha; every
   * pixel opaque (A = 255): the chart is drawn on black. */
  typedef enum
  {
    GH_CHART_WAVEFORM = 0,
    GH_CHART_PARADE,
    GH_CHART_VECTORSCOPE,
    GH_N_CHARTS
  } gh_chart;

  typedef enum
  {
    GH_DENSITY_LINEAR = 0,
    GH_DENSITY_LOG
  } gh_density;

  typedef struct
  {
    gh_density density; /* LOG unless changed */
    double gain;        /* brightness, > 0: 1 unless changed */
    unsigned channels;  /* waveform: bit c draws the result's channel c; 0: every table; bits
                           of channels without a table draw nothing (GH_RENDER_NO_CHANNELS) */
    int graticule;      /* 1 (default): lines, targets and centre; 0: density alone */
    int skin_tone_line; /* vectorscope, with the graticule: 1 (default) draws the 123 degree line */
    int bgra;           /* 0 (default): a pixel's bytes R, G, B, A; 1: B, G, R, A, as cairo's
                           image surfaces hold them on a little-endian machine */
  } gh_render_options;

  /* gh_render_options.channels for a waveform of no table: the graticule alone, on black (a
   * bit that no result channel has). */
#define GH_RENDER_NO_CHANNELS (1u << 31)

  void gh_render_options_init (gh_render_options *options);
  /* The chart's natural size (above).  INVALID_ARGUMENT with a message when the result cannot
   * draw it: no such scope counted, or a parade without red, green and blue. */
  gh_status gh_render_natural_size (const gh_result *result, gh_chart chart, int *width,
                                    int *height, gh_error *error);
  /* Draws the chart into pixels (width x height, any size from 1 x 1).  GH_OK, or
   * INVALID_ARGUMENT (nothing drawn) as gh_render_natural_size, for a size below 1 or a
   * stride below 4 * width, or OUT_OF_MEMORY. */
  gh_status gh_render_chart (const gh_result *result, gh_chart chart,
                             const gh_render_options *options, int width, int height,
                             uint8_t *pixels, size_t stride, gh_error *error);

  /* Effective bandwidth of a timing over the result's bytes, in GB/s (10^9); 0 when not run. */
  double gh_timing_gbps (const gh_result *result, gh_timing_kind kind);

#ifdef __cplusplus
}
#endif

#endif /* GPUHIST_H */
