/* gpu-histogram: gpuhist, the engine on the command line.
 *
 *   gpuhist [options] FILE       FILE is a binary PGM, PPM or PAM, raw samples with --raw, or
 *                                anything libvips loads; "-" reads standard input (Netpbm, raw)
 *   gpuhist --json-lines FILE... one JSON object a file (batch.c)
 *
 * It prints the histogram as CSV (or JSON with --json) and the backend it ran on.  Exit status:
 * 0 done, 1 the input or the engine failed (with "gpuhist: FILE: reason"), 2 a usage error.
 */
#include "batch.h"
#include "benchmark.h"
#include "count.h"
#include "gpuhist.h"
#include "image-source.h"
#include "pnm.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef GPUHIST_VERSION
#define GPUHIST_VERSION "unknown"
#endif

enum
{
  EXIT_OK = 0,
  EXIT_BAD_INPUT = 1,
  EXIT_USAGE = 2
};

/* The --method choices; all but CPU run on the backend --backend picks. */
typedef enum
{
  CHOICE_CPU,
  CHOICE_GLOBAL,
  CHOICE_PRIVATE,
  CHOICE_FASTEST,
  CHOICE_ALL
} method_choice;

typedef struct
{
  const char *input;
  char **inputs; /* --json-lines: every FILE argument */
  int n_inputs;
  int json_lines;
  int jobs; /* --jobs; 0: one a core */
  const char *weights;
  count_request count;
  int raw;
  pnm_raw_geometry raw_geometry;
  method_choice method;
  gh_backend backend;
  int backend_given;
  int repetitions; /* -1: the method's default */
  int json;
  const char *output;
  size_t memory_budget;
  int quiet;
  int bench;         /* --bench: the kernels' benchmark, no input file */
  const char *photo; /* --photo: the image tiled into the benchmark's photo inputs */
  int quick;
  int bins;             /* --bins; 0: 256 */
  gh_strategy strategy; /* --strategy, for wide tables */
} cli_options;

#define DEFAULT_TIMED_REPETITIONS 5

static void
print_usage (FILE *out)
{
  fputs ("Usage: gpuhist [OPTION]... FILE\n"
         "       gpuhist --json-lines [OPTION]... FILE|DIRECTORY...\n"
         "Count the histogram of each channel of an image, on an NVIDIA GPU when one is usable,\n"
         "else on the CPU.  FILE is a binary PGM (P5), PPM (P6) or PAM (P7) with maxval 255 or\n"
         "65535 and 1 to 4 channels (read by gpuhist's own strict reader), raw samples with\n"
         "--raw, or an image libvips loads; - reads Netpbm or raw samples from standard input.\n"
         "8-bit samples count into 256 bins; 16-bit ones into --bins; 32-bit and float samples\n"
         "are narrowed to 16 bits as the GIMP plug-in does (round (v * 65535), clamped, NaN 0).\n"
         "\n"
         "  --json-lines           one JSON object a line for each FILE (a DIRECTORY: its\n"
         "                         files, sorted); a file that fails gives {\"file\", \"error\"}\n"
         "                         and the rest go on; exit 1 when any failed\n"
         "  --jobs N               --json-lines: files counted at once (default: one a core)\n"
         "  --binning RULE         how 16-bit samples land in --bins bins: shift (bin =\n"
         "                         s * bins / 65536, the same number of levels in every bin;\n"
         "                         the default for 16-bit integer files, as before) or gimp\n"
         "                         (GIMP's floor (s / 65535 * (bins - 1) + 0.5), the plug-in's;\n"
         "                         the default for float and 32-bit files, whose values are\n"
         "                         GIMP's 0..1 and come narrowed as the plug-in narrows them)\n"
         "  --alpha-weighted       gray+alpha and RGBA: colour bins add alpha, as GIMP counts\n"
         "  --weights FILE         a coverage plane (8 or 16-bit gray, the image's size; any\n"
         "                         format gpuhist reads): each pixel adds its coverage (a\n"
         "                         selection mask, as GIMP counts)\n"
         "  --derived              RGB and RGBA: value and luminance columns too\n"
         "\n"
         "  --raw WxHxC[:STRIDE]   FILE holds raw 8-bit samples: W x H pixels of C channels\n"
         "                         (1-4), rows STRIDE bytes apart (default W*C)\n"
         "  --method METHOD        cpu: the CPU backend; global, private or fastest: that one\n"
         "                         method (global atomics, privatized, the fastest kernel);\n"
         "                         all: all four, timed, and checked to agree (default fastest)\n"
         "  --backend BACKEND      auto (default: the GPU if usable, else the CPU), cpu or cuda\n"
         "  --repetitions N        timed runs per method (default 5 with --method all; else 0:\n"
         "                         count once; global and private always run at least once)\n"
         "  --json                 write counts, statistics, timings and the device as JSON\n"
         "                         instead of CSV\n"
         "  -o, --output FILE      write to FILE instead of standard output\n"
         "  --memory-budget BYTES  cap pinned and device memory (suffix K, M or G allowed)\n"
         "  --quiet                do not print the backend line on standard error\n"
         "  --bins N               bins a channel for 16-bit images (maxval 65535): 256\n"
         "                         (default), 1024, 4096, 16384 or 65536\n"
         "  --strategy S           how the GPU counts more bins than fit a block: auto\n"
         "                         (default), shared, narrow, sliced or global-copies\n"
         "  --bench                the kernels' benchmark on the GPU (Markdown tables); with\n"
         "                         --repetitions N (default 20), --photo FILE (a PPM/PAM tiled\n"
         "                         into the photo rows) and --quick (the smaller inputs only)\n"
         "  --help                 show this help and exit\n"
         "  --version              show the version and exit\n"
         "\n"
         "Weighted counts (--alpha-weighted, --weights) print as integers when they are\n"
         "whole, else with 6 decimals; JSON gives each bin's numerator, denominator and value.\n"
         "\n"
         "Exit status: 0 done, 1 bad input or the engine failed, 2 usage error.\n",
         out);
  fprintf (out, "\nFormats beyond Netpbm: %s.\n", vips_source_formats ());
}

static int usage_error (const char *format, ...) __attribute__ ((format (printf, 1, 2)));

static int
usage_error (const char *format, ...)
{
  va_list args;

  fputs ("gpuhist: ", stderr);
  va_start (args, format);
  vfprintf (stderr, format, args);
  va_end (args);
  fputs ("\nTry 'gpuhist --help' for more information.\n", stderr);
  return EXIT_USAGE;
}

/* A whole decimal number in [minimum, maximum], nothing after it. */
static int
parse_integer (const char *text, long long minimum, long long maximum, long long *value)
{
  char *end;
  long long parsed;

  if (!text || text[0] < '0' || text[0] > '9')
    return 0;
  errno = 0;
  parsed = strtoll (text, &end, 10);
  if (errno || *end || parsed < minimum || parsed > maximum)
    return 0;
  *value = parsed;
  return 1;
}

/* "4096", "64K", "256M", "1G". */
static int
parse_byte_size (const char *text, size_t *bytes)
{
  char *end;
  unsigned long long value;
  int shift = 0;

  if (!text || text[0] < '0' || text[0] > '9')
    return 0;
  errno = 0;
  value = strtoull (text, &end, 10);
  if (errno)
    return 0;
  if (*end == 'K' || *end == 'k')
    shift = 10;
  else if (*end == 'M' || *end == 'm')
    shift = 20;
  else if (*end == 'G' || *end == 'g')
    shift = 30;
  if (shift)
    end++;
  if (*end || value == 0 || value > (SIZE_MAX >> shift))
    return 0;
  *bytes = (size_t) value << shift;
  return 1;
}

/* Reads digits at *text into *value (saturating past a size no geometry can have), advancing
 * *text; returns 0 when there are none. */
static int
take_number (const char **text, unsigned long long *value)
{
  const char *start = *text;

  *value = 0;
  while (**text >= '0' && **text <= '9')
    {
      if (*value < ((unsigned long long) 1 << 60))
        *value = *value * 10 + (unsigned long long) (**text - '0');
      (*text)++;
    }
  return *text != start;
}

/* "WxHxC" or "WxHxC:STRIDE". */
static int
parse_raw_geometry (const char *text, pnm_raw_geometry *geometry)
{
  unsigned long long width, height, channels, stride = 0;

  if (!take_number (&text, &width) || *text++ != 'x' || !take_number (&text, &height)
      || *text++ != 'x' || !take_number (&text, &channels))
    return 0;
  if (*text == ':' && (text++, !take_number (&text, &stride) || stride == 0))
    return 0;
  if (*text)
    return 0;
  if (width == 0 || height == 0 || width > INT_MAX || height > INT_MAX || channels < 1
      || channels > GH_MAX_CHANNELS || stride > SIZE_MAX || (stride && stride < width * channels))
    return 0;
  geometry->width = (int) width;
  geometry->height = (int) height;
  geometry->channels = (int) channels;
  geometry->stride = (size_t) stride;
  return 1;
}

enum
{
  OPTION_RAW = 256,
  OPTION_METHOD,
  OPTION_BACKEND,
  OPTION_REPETITIONS,
  OPTION_JSON,
  OPTION_MEMORY_BUDGET,
  OPTION_QUIET,
  OPTION_HELP,
  OPTION_VERSION,
  OPTION_BENCH,
  OPTION_PHOTO,
  OPTION_QUICK,
  OPTION_BINS,
  OPTION_STRATEGY,
  OPTION_JSON_LINES,
  OPTION_JOBS,
  OPTION_BINNING,
  OPTION_ALPHA_WEIGHTED,
  OPTION_WEIGHTS,
  OPTION_DERIVED,
};

static const struct option long_options[] = {
  { "raw", required_argument, NULL, OPTION_RAW },
  { "method", required_argument, NULL, OPTION_METHOD },
  { "backend", required_argument, NULL, OPTION_BACKEND },
  { "repetitions", required_argument, NULL, OPTION_REPETITIONS },
  { "json", no_argument, NULL, OPTION_JSON },
  { "output", required_argument, NULL, 'o' },
  { "memory-budget", required_argument, NULL, OPTION_MEMORY_BUDGET },
  { "quiet", no_argument, NULL, OPTION_QUIET },
  { "help", no_argument, NULL, OPTION_HELP },
  { "version", no_argument, NULL, OPTION_VERSION },
  { "bench", no_argument, NULL, OPTION_BENCH },
  { "photo", required_argument, NULL, OPTION_PHOTO },
  { "quick", no_argument, NULL, OPTION_QUICK },
  { "bins", required_argument, NULL, OPTION_BINS },
  { "strategy", required_argument, NULL, OPTION_STRATEGY },
  { "json-lines", no_argument, NULL, OPTION_JSON_LINES },
  { "jobs", required_argument, NULL, OPTION_JOBS },
  { "binning", required_argument, NULL, OPTION_BINNING },
  { "alpha-weighted", no_argument, NULL, OPTION_ALPHA_WEIGHTED },
  { "weights", required_argument, NULL, OPTION_WEIGHTS },
  { "derived", no_argument, NULL, OPTION_DERIVED },
  { NULL, 0, NULL, 0 },
};

/* --method cpu is the CPU backend.  -1 to go on, or the usage error. */
static int
choose_backend (cli_options *options)
{
  if (options->method != CHOICE_CPU)
    return -1;
  if (options->backend == GH_BACKEND_CUDA)
    return usage_error ("--method cpu runs on the CPU backend: it cannot go with --backend cuda");
  options->backend = GH_BACKEND_CPU;
  return -1;
}

/* --json-lines FILE...: what cannot go with many files. */
static int
check_batch_arguments (int argc, char **argv, cli_options *options)
{
  if (options->json)
    return usage_error ("--json and --json-lines are two forms of output: choose one");
  if (options->raw)
    return usage_error ("--raw describes one file: it cannot go with --json-lines");
  if (options->weights)
    return usage_error ("--weights is one image's coverage plane: it cannot go with "
                        "--json-lines");
  if (options->method == CHOICE_ALL || options->repetitions > 0)
    return usage_error ("--json-lines counts; time the methods on one file at a time");
  for (int i = optind; i < argc; i++)
    if (strcmp (argv[i], "-") == 0)
      return usage_error ("--json-lines reads files, not standard input");
  options->inputs = argv + optind;
  options->n_inputs = argc - optind;
  return choose_backend (options);
}

/* Fills *options from argv.  Returns -1 to go on, or the exit status (help, version, usage). */
static int
parse_arguments (int argc, char **argv, cli_options *options)
{
  static const char *const method_names[] = { "cpu", "global", "private", "fastest", "all" };
  static const char *const backend_names[] = { "auto", "cpu", "cuda" };
  long long number;
  int option, i;

  memset (options, 0, sizeof *options);
  options->method = CHOICE_FASTEST;
  options->backend = GH_BACKEND_AUTO;
  options->repetitions = -1;

  opterr = 0; /* our own messages, with the hint to --help */
  while ((option = getopt_long (argc, argv, ":o:", long_options, NULL)) != -1)
    switch (option)
      {
      case OPTION_RAW:
        if (!parse_raw_geometry (optarg, &options->raw_geometry))
          return usage_error ("--raw wants WIDTHxHEIGHTxCHANNELS[:STRIDE] with 1 to 4 channels "
                              "and STRIDE at least WIDTH*CHANNELS, not '%s'",
                              optarg);
        options->raw = 1;
        break;
      case OPTION_METHOD:
        for (i = 0; i < (int) (sizeof method_names / sizeof method_names[0]); i++)
          if (strcmp (optarg, method_names[i]) == 0)
            break;
        if (i == (int) (sizeof method_names / sizeof method_names[0]))
          return usage_error ("--method wants cpu, global, private, fastest or all, not '%s'",
                              optarg);
        options->method = (method_choice) i;
        break;
      case OPTION_BACKEND:
        for (i = 0; i < (int) (sizeof backend_names / sizeof backend_names[0]); i++)
          if (strcmp (optarg, backend_names[i]) == 0)
            break;
        if (i == (int) (sizeof backend_names / sizeof backend_names[0]))
          return usage_error ("--backend wants auto, cpu or cuda, not '%s'", optarg);
        options->backend = (gh_backend) i;
        options->backend_given = 1;
        break;
      case OPTION_REPETITIONS:
        if (!parse_integer (optarg, 0, 100000, &number))
          return usage_error ("--repetitions wants a number from 0 to 100000, not '%s'", optarg);
        options->repetitions = (int) number;
        break;
      case OPTION_JSON: options->json = 1; break;
      case 'o': options->output = optarg; break;
      case OPTION_MEMORY_BUDGET:
        if (!parse_byte_size (optarg, &options->memory_budget))
          return usage_error ("--memory-budget wants a positive size in bytes (suffix K, M or "
                              "G allowed), not '%s'",
                              optarg);
        break;
      case OPTION_QUIET: options->quiet = 1; break;
      case OPTION_HELP: print_usage (stdout); return EXIT_OK;
      case OPTION_VERSION: printf ("gpuhist %s\n", GPUHIST_VERSION); return EXIT_OK;
      case OPTION_BENCH: options->bench = 1; break;
      case OPTION_PHOTO: options->photo = optarg; break;
      case OPTION_QUICK: options->quick = 1; break;
      case OPTION_BINS:
        if (!parse_integer (optarg, 256, 65536, &number) || (number & (number - 1)) != 0)
          return usage_error ("--bins takes 256, 1024, 4096, 16384 or 65536, not '%s'", optarg);
        options->bins = (int) number;
        break;
      case OPTION_STRATEGY:
        {
          static const char *const strategy_names[]
              = { "auto", "shared", "narrow", "sliced", "global-copies" };
          for (i = 0; i < 5 && strcmp (optarg, strategy_names[i]) != 0; i++)
            ;
          if (i == 5)
            return usage_error ("--strategy takes auto, shared, narrow, sliced or global-copies, "
                                "not '%s'",
                                optarg);
          options->strategy = (gh_strategy) i;
        }
        break;
      case OPTION_JSON_LINES: options->json_lines = 1; break;
      case OPTION_JOBS:
        if (!parse_integer (optarg, 1, 256, &number))
          return usage_error ("--jobs wants a number from 1 to 256, not '%s'", optarg);
        options->jobs = (int) number;
        break;
      case OPTION_BINNING:
        if (strcmp (optarg, "gimp") != 0 && strcmp (optarg, "shift") != 0)
          return usage_error ("--binning takes gimp or shift, not '%s'", optarg);
        options->count.binning = optarg[0] == 'g' ? GH_BINNING_GIMP : GH_BINNING_SHIFT;
        options->count.binning_given = 1;
        break;
      case OPTION_ALPHA_WEIGHTED: options->count.alpha_weighted = 1; break;
      case OPTION_WEIGHTS: options->weights = optarg; break;
      case OPTION_DERIVED: options->count.derived = 1; break;
      case ':': return usage_error ("%s needs a value", argv[optind - 1]);
      default:
        if (optopt > 0 && optopt < 256)
          return usage_error ("unknown option '-%c'", optopt);
        return usage_error ("unknown option '%s'", argv[optind - 1]);
      }

  if (options->bench)
    {
      if (optind < argc)
        return usage_error ("--bench makes its own inputs; use --photo FILE for a photo");
      return -1;
    }
  if (options->photo || options->quick)
    return usage_error ("--photo and --quick go with --bench");
  if (optind >= argc)
    return usage_error ("no input file given (use - for standard input)");
  if (options->json_lines)
    return check_batch_arguments (argc, argv, options);
  if (options->jobs)
    return usage_error ("--jobs goes with --json-lines");
  if (optind + 1 < argc)
    return usage_error ("one input file at a time, but '%s' follows '%s'", argv[optind + 1],
                        argv[optind]);
  options->input = argv[optind];

  return choose_backend (options);
}

/* gpuhist --bench: the kernels on the GPU, as Markdown tables on standard output. */
static int
run_benchmark (const cli_options *options)
{
  gh_bench_options bench = { options->repetitions, options->quick, NULL, 0 };
  gh_bench_image photo_image;
  pnm_image photo;
  char read_error[PNM_ERROR_SIZE];
  gh_error error = { GH_OK, "" };
  int have_photo = 0;

  if (options->photo)
    {
      if (pnm_load_file (options->photo, NULL, &photo, read_error, sizeof read_error) != PNM_OK)
        {
          fprintf (stderr, "gpuhist: %s: %s\n", options->photo, read_error);
          return EXIT_BAD_INPUT;
        }
      if (photo.maxval != 255 || photo.stride != (size_t) photo.width * photo.channels)
        {
          fprintf (stderr, "gpuhist: %s: the photo must be 8-bit\n", options->photo);
          pnm_image_clear (&photo);
          return EXIT_BAD_INPUT;
        }
      photo_image = (gh_bench_image){ photo.pixels, photo.width, photo.height, photo.channels };
      bench.photo = &photo_image;
      have_photo = 1;
    }
  gh_status status = gh_benchmark (stdout, &bench, &error);
  if (have_photo)
    pnm_image_clear (&photo);
  if (status != GH_OK)
    {
      fprintf (stderr, "gpuhist: benchmark: %s\n", error.message);
      return EXIT_BAD_INPUT;
    }
  return EXIT_OK;
}

/* The engine's methods and repetitions for the --method choice.  The engine runs methods other
 * than FASTEST only in timed runs, so global and private get at least one repetition. */
static void
plan_methods (const cli_options *options, unsigned *methods, int *repetitions)
{
  int requested = options->repetitions;

  switch (options->method)
    {
    case CHOICE_GLOBAL:
      *methods = GH_METHOD_BIT (GH_METHOD_GLOBAL_ATOMICS);
      *repetitions = requested > 0 ? requested : 1;
      break;
    case CHOICE_PRIVATE:
      *methods = GH_METHOD_BIT (GH_METHOD_PRIVATIZED);
      *repetitions = requested > 0 ? requested : 1;
      break;
    case CHOICE_ALL:
      *methods = GH_ALL_METHODS;
      *repetitions = requested < 0 ? DEFAULT_TIMED_REPETITIONS : requested > 0 ? requested : 1;
      break;
    case CHOICE_CPU:
    case CHOICE_FASTEST:
    default:
      *methods = GH_METHOD_BIT (GH_METHOD_FASTEST);
      *repetitions = requested > 0 ? requested : 0;
      break;
    }
}

/* Prints the timings of a timed run on stderr, for people reading CSV on a terminal. */
static void
print_timings (const gh_result *result)
{
  int kind;

  for (kind = 0; kind < GH_N_TIMINGS; kind++)
    {
      const gh_timing *timing = &result->timing[kind];
      if (timing->runs == 0)
        continue;
      fprintf (stderr,
               "gpuhist: %-14s median %10.3f ms  min %10.3f  max %10.3f  %8.2f GB/s  (%d runs)\n",
               gh_timing_name ((gh_timing_kind) kind), timing->median_ms, timing->min_ms,
               timing->max_ms, gh_timing_gbps (result, (gh_timing_kind) kind), timing->runs);
    }
}

static int
write_result (const cli_options *options, const gh_result *result, const char *const *channel_names)
{
  FILE *out = stdout;
  const char *name = options->output ? options->output : "standard output";
  int failed;

  if (options->output && strcmp (options->output, "-") != 0)
    {
      out = fopen (options->output, "w");
      if (!out)
        {
          fprintf (stderr, "gpuhist: %s: cannot open for writing: %s\n", options->output,
                   strerror (errno));
          return EXIT_BAD_INPUT;
        }
    }
  failed = options->json ? gh_write_json (out, result, channel_names)
                         : gh_write_csv (out, result, channel_names);
  if (fflush (out) != 0)
    failed = -1;
  if (out != stdout && fclose (out) != 0)
    failed = -1;
  if (failed)
    {
      fprintf (stderr, "gpuhist: %s: writing failed: %s\n", name,
               errno ? strerror (errno) : "I/O error");
      return EXIT_BAD_INPUT;
    }
  return EXIT_OK;
}

/* The engine's options for the command line's choices. */
static void
engine_options_for (const cli_options *options, gh_options *engine_options)
{
  gh_options_init (engine_options);
  engine_options->backend = options->backend;
  engine_options->memory_budget = options->memory_budget;
  engine_options->bins = options->bins;
  engine_options->strategy = options->strategy;
  plan_methods (options, &engine_options->methods, &engine_options->repetitions);
  /* Global and private asked for once are counts, not a benchmark: no warm-up run. */
  if (options->repetitions <= 0
      && (options->method == CHOICE_GLOBAL || options->method == CHOICE_PRIVATE))
    engine_options->warmup = 0;
}

/* What one file's options ask of it that it cannot give: 1 (bad input) with a message, else 0. */
static int
check_file_options (const cli_options *options, const image_info *info, const char *name)
{
  if (info->bytes_per_sample == 1 && options->bins > GH_BINS)
    {
      fprintf (stderr,
               "gpuhist: %s: an 8-bit image has 256 levels; --bins %d applies to 16-bit images "
               "(maxval 65535)\n",
               name, options->bins);
      return EXIT_BAD_INPUT;
    }
  if (options->count.alpha_weighted && info->channels != 2 && info->channels != 4)
    {
      fprintf (stderr,
               "gpuhist: %s: --alpha-weighted needs an alpha channel (gray+alpha or RGBA), but "
               "the image has %d channel(s)\n",
               name, info->channels);
      return EXIT_BAD_INPUT;
    }
  if (options->count.derived && info->channels < 3)
    {
      fprintf (stderr,
               "gpuhist: %s: --derived needs RGB or RGBA, but the image has %d channel(s)\n", name,
               info->channels);
      return EXIT_BAD_INPUT;
    }
  return EXIT_OK;
}

/* Strips of a few MiB when libvips decodes as the engine counts: the engine counts one while
 * the next decodes, where the default budget's two 128 MiB strips would hold a whole photo and
 * count it only once it is decoded.  On the CPU backend the counting threads leave the decoders
 * their cores.  (docs/BENCHMARKS.md, "gpuhist on photos", has the numbers.)  row_bytes: the
 * widest row the engine may be given (a strip holds at least a few). */
#define DECODING_MEMORY_BUDGET ((size_t) 8 << 20)
#define DECODING_MIN_STRIP_ROWS 8

static void
share_with_decoder (const cli_options *options, gh_options *engine_options, int decoders,
                    size_t row_bytes)
{
  long cores = sysconf (_SC_NPROCESSORS_ONLN);

  if (!options->memory_budget && !getenv ("GPUHIST_MEMORY_BUDGET"))
    {
      size_t budget = DECODING_MEMORY_BUDGET;
      if (budget < 2 * DECODING_MIN_STRIP_ROWS * row_bytes)
        budget = 2 * DECODING_MIN_STRIP_ROWS * row_bytes;
      engine_options->memory_budget = budget;
    }
  engine_options->cpu_threads = cores > decoders ? (int) (cores - decoders) : 1;
}

/* gpuhist --json-lines FILE... */
static int
run_batch (const cli_options *options)
{
  batch_request request = { 0 };
  char error[SOURCE_ERROR_SIZE];
  FILE *out = stdout;
  long cores = sysconf (_SC_NPROCESSORS_ONLN);

  if (batch_expand_paths (options->inputs, options->n_inputs, &request.paths, &request.n_paths,
                          error, sizeof error))
    {
      fprintf (stderr, "gpuhist: %s\n", error);
      return EXIT_BAD_INPUT;
    }
  request.jobs = options->jobs ? options->jobs : cores > 0 ? (int) cores : 1;
  if (request.jobs > request.n_paths && request.n_paths > 0)
    request.jobs = request.n_paths;
  engine_options_for (options, &request.engine_options);
  /* Each worker decodes and counts: its engine counts on one thread, in strips that hold rows of
   * up to 1 MiB pixels of 4 16-bit channels. */
  share_with_decoder (options, &request.engine_options, (int) cores, (size_t) 1 << 23);
  request.shared_budget = options->memory_budget;
  request.count = options->count;
  request.quiet = options->quiet;
  request.progress = !options->quiet && isatty (STDERR_FILENO) && request.n_paths > 10;
  if (options->output && strcmp (options->output, "-") != 0
      && !(out = fopen (options->output, "w")))
    {
      fprintf (stderr, "gpuhist: %s: cannot open for writing: %s\n", options->output,
               strerror (errno));
      batch_free_paths (request.paths, request.n_paths);
      return EXIT_BAD_INPUT;
    }
  request.out = out;
  int failed = request.n_paths ? batch_run (&request, error, sizeof error) : 0;
  if (out != stdout && fclose (out) != 0 && failed >= 0)
    failed = -1, snprintf (error, sizeof error, "writing failed: %s", strerror (errno));
  if (failed < 0)
    fprintf (stderr, "gpuhist: %s\n", error);
  batch_free_paths (request.paths, request.n_paths);
  return failed ? EXIT_BAD_INPUT : EXIT_OK;
}

/* gpuhist FILE: one image, CSV or JSON. */
static int
run_single (const cli_options *options)
{
  const char *name = strcmp (options->input, "-") == 0 ? "standard input" : options->input;
  source_request open_request = { .path = options->input,
                                  .raw = options->raw ? &options->raw_geometry : NULL,
                                  .weights = options->weights };
  char message[SOURCE_ERROR_SIZE] = "";
  gh_options engine_options;
  gh_error error = { GH_OK, "" };
  gh_result result;

  image_source *source = image_source_open (&open_request, message, sizeof message);
  if (!source)
    {
      fprintf (stderr, "gpuhist: %s: %s\n", name, message);
      return EXIT_BAD_INPUT;
    }
  int exit_code = check_file_options (options, &source->info, name);
  engine_options_for (options, &engine_options);
  if (source->info.decodes)
    share_with_decoder (options, &engine_options, 1,
                        (size_t) source->info.width * source->info.channels
                            * source->info.bytes_per_sample);
  gh_engine *engine = exit_code ? NULL : gh_engine_new (&engine_options, &error);
  if (!exit_code && !engine)
    {
      fprintf (stderr, "gpuhist: %s\n", error.message);
      exit_code = EXIT_BAD_INPUT;
    }
  if (!exit_code
      && count_source (engine, source, &options->count, &result, message, sizeof message))
    {
      fprintf (stderr, "gpuhist: %s: %s\n", name, message);
      exit_code = EXIT_BAD_INPUT;
    }
  if (!exit_code)
    {
      const char *names[GH_MAX_CHANNELS + 2];
      for (int c = 0; c < source->info.channels; c++)
        names[c] = source->info.channel_names[c];
      names[source->info.channels] = "value";
      names[source->info.channels + 1] = "luminance";
      if (!options->quiet)
        {
          fprintf (stderr, "gpuhist: backend: %s\n", result.backend);
          if (engine_options.repetitions > 0)
            print_timings (&result);
        }
      exit_code = write_result (options, &result, names);
      gh_result_clear (&result);
    }
  if (engine)
    gh_engine_free (engine);
  source->close (source);
  return exit_code;
}

int
main (int argc, char **argv)
{
  cli_options options;
  char error[SOURCE_ERROR_SIZE];
  int exit_code;

  exit_code = parse_arguments (argc, argv, &options);
  if (exit_code >= 0)
    return exit_code;
  if (options.bench)
    return run_benchmark (&options);
  /* One libvips thread a file: its loaders decode sequentially anyway, and a second thread only
   * takes a core from the engine (docs/BENCHMARKS.md, "gpuhist on photos"). */
  if (vips_source_init (argv[0], 1, error, sizeof error))
    {
      fprintf (stderr, "gpuhist: %s\n", error);
      return EXIT_BAD_INPUT;
    }
  return options.json_lines ? run_batch (&options) : run_single (&options);
}
