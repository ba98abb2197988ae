/* gpu-histogram: gpuhist's options: the --help text, getopt's table, each option's value and
 * what cannot go together.  Messages end with the hint to --help; a usage error exits with 2. */
#include "cli-options.h"
#include "image-source.h"
#include "scope-png.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef GPUHIST_VERSION
#define GPUHIST_VERSION "unknown"
#endif
/* "CUDA 13.0.88" (nvcc's version) in a build with the CUDA backend, "" in a CPU-only build. */
#ifndef GPUHIST_BUILD
#define GPUHIST_BUILD ""
#endif

/* The version and, on a line of its own, which build this is: packagers and users can tell a
 * CUDA build from a CPU-only one without a GPU to try it on. */
static void
print_version (void)
{
  printf ("gpuhist %s\n", GPUHIST_VERSION);
  if (GPUHIST_BUILD[0] != '\0')
    printf ("CUDA build (%s): counts on an NVIDIA GPU (the CUDA runtime is linked in, only the "
            "NVIDIA driver is needed), on the CPU where no GPU can be used\n",
            GPUHIST_BUILD);
  else
    printf ("CPU-only build (without CUDA): counts on the CPU\n");
}

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
         "  --luminance RULE       --derived: whose Luminance: gimp2 (GIMP 2.10's, the default:\n"
         "                         0.22248840 R + 0.71690369 G + 0.06060791 B of the samples),\n"
         "                         gimp3 (GIMP 3.0's: linear-light Y of sRGB-encoded samples,\n"
         "                         as its histogram computes it) or gimp3-linear (GIMP 3.0's\n"
         "                         of samples already in linear light)\n"
         "\n"
         "Scopes, counted beside the histogram from the same pixels, in the JSON (--json,\n"
         "--json-lines) and/or drawn (--scope-png):\n"
         "  --waveform C           a waveform of C columns (1 to the image's width): for each,\n"
         "                         every channel's histogram of the image columns that land in\n"
         "                         it; \"waveform\": {\"columns\", \"bins\", \"channels\",\n"
         "                         \"counts\": [channel][column][bin]}\n"
         "  --vectorscope          RGB and RGBA: the 256 x 256 Rec.709 chroma table;\n"
         "                         \"vectorscope\": {\"size\": 256, \"counts\": [Cr][Cb]}\n"
         "  --scope-numerators     weighted runs: the scopes' exact numerators and denominator\n"
         "                         too (their counts are in pixels)\n"
         "  --scope-png PREFIX     write PREFIX-waveform.png, PREFIX-parade.png (RGB only) and\n"
         "                         PREFIX-vectorscope.png (with --json-lines: PREFIX-N-*.png\n"
         "                         for the Nth file); needs libvips\n"
         "  --scope-density D      the PNGs' density: log (default) or linear\n"
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
  OPTION_LUMINANCE,
  OPTION_WAVEFORM,
  OPTION_VECTORSCOPE,
  OPTION_SCOPE_NUMERATORS,
  OPTION_SCOPE_PNG,
  OPTION_SCOPE_DENSITY,
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
  { "luminance", required_argument, NULL, OPTION_LUMINANCE },
  { "waveform", required_argument, NULL, OPTION_WAVEFORM },
  { "vectorscope", no_argument, NULL, OPTION_VECTORSCOPE },
  { "scope-numerators", no_argument, NULL, OPTION_SCOPE_NUMERATORS },
  { "scope-png", required_argument, NULL, OPTION_SCOPE_PNG },
  { "scope-density", required_argument, NULL, OPTION_SCOPE_DENSITY },
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

#define N_ELEMENTS(array) ((int) (sizeof (array) / sizeof (array)[0]))

/* The index of text among names, or -1. */
static int
find_name (const char *text, const char *const *names, int count)
{
  for (int i = 0; i < count; i++)
    if (strcmp (text, names[i]) == 0)
      return i;
  return -1;
}

/* An option's value into *options.  -1 to go on, or the usage error. */
static int
take_value (int option, const char *value, cli_options *options)
{
  static const char *const method_names[] = { "cpu", "global", "private", "fastest", "all" };
  static const char *const backend_names[] = { "auto", "cpu", "cuda" };
  static const char *const strategy_names[]
      = { "auto", "shared", "narrow", "sliced", "global-copies" };
  long long number;
  int i;

  switch (option)
    {
    case OPTION_RAW:
      if (!parse_raw_geometry (value, &options->raw_geometry))
        return usage_error ("--raw wants WIDTHxHEIGHTxCHANNELS[:STRIDE] with 1 to 4 channels "
                            "and STRIDE at least WIDTH*CHANNELS, not '%s'",
                            value);
      options->raw = 1;
      break;
    case OPTION_METHOD:
      if ((i = find_name (value, method_names, N_ELEMENTS (method_names))) < 0)
        return usage_error ("--method wants cpu, global, private, fastest or all, not '%s'", value);
      options->method = (method_choice) i;
      break;
    case OPTION_BACKEND:
      if ((i = find_name (value, backend_names, N_ELEMENTS (backend_names))) < 0)
        return usage_error ("--backend wants auto, cpu or cuda, not '%s'", value);
      options->backend = (gh_backend) i;
      options->backend_given = 1;
      break;
    case OPTION_REPETITIONS:
      if (!parse_integer (value, 0, 100000, &number))
        return usage_error ("--repetitions wants a number from 0 to 100000, not '%s'", value);
      options->repetitions = (int) number;
      break;
    case OPTION_MEMORY_BUDGET:
      if (!parse_byte_size (value, &options->memory_budget))
        return usage_error ("--memory-budget wants a positive size in bytes (suffix K, M or "
                            "G allowed), not '%s'",
                            value);
      break;
    case OPTION_BINS:
      if (!parse_integer (value, 256, 65536, &number) || (number & (number - 1)) != 0)
        return usage_error ("--bins takes 256, 1024, 4096, 16384 or 65536, not '%s'", value);
      options->bins = (int) number;
      break;
    case OPTION_STRATEGY:
      if ((i = find_name (value, strategy_names, N_ELEMENTS (strategy_names))) < 0)
        return usage_error ("--strategy takes auto, shared, narrow, sliced or global-copies, "
                            "not '%s'",
                            value);
      options->strategy = (gh_strategy) i;
      break;
    case OPTION_JOBS:
      if (!parse_integer (value, 1, 256, &number))
        return usage_error ("--jobs wants a number from 1 to 256, not '%s'", value);
      options->jobs = (int) number;
      break;
    case OPTION_LUMINANCE:
      for (i = GH_LUMINANCE_GIMP3_LINEAR; i >= 0; i--)
        if (strcmp (value, gh_luminance_name ((gh_luminance) i)) == 0)
          break;
      if (i < 0)
        return usage_error ("--luminance takes gimp2, gimp3 or gimp3-linear, not '%s'", value);
      options->count.luminance = (gh_luminance) i;
      options->luminance_given = 1;
      break;
    case OPTION_WAVEFORM:
      if (!parse_integer (value, 1, INT_MAX, &number))
        return usage_error ("--waveform wants a number of columns, from 1 to the image's width, "
                            "not '%s'",
                            value);
      options->count.waveform_columns = (int) number;
      break;
    case OPTION_SCOPE_DENSITY:
      if (strcmp (value, "log") != 0 && strcmp (value, "linear") != 0)
        return usage_error ("--scope-density takes log or linear, not '%s'", value);
      options->scope_density = value[1] == 'o' ? GH_DENSITY_LOG : GH_DENSITY_LINEAR;
      options->scope_density_given = 1;
      break;
    default: /* OPTION_BINNING */
      if (strcmp (value, "gimp") != 0 && strcmp (value, "shift") != 0)
        return usage_error ("--binning takes gimp or shift, not '%s'", value);
      options->count.binning = value[0] == 'g' ? GH_BINNING_GIMP : GH_BINNING_SHIFT;
      options->count.binning_given = 1;
      break;
    }
  return -1;
}

/* One option getopt_long returned.  -1 to go on, or the exit status (help, version, usage). */
static int
apply_option (int option, char **argv, cli_options *options)
{
  switch (option)
    {
    case OPTION_RAW:
    case OPTION_METHOD:
    case OPTION_BACKEND:
    case OPTION_REPETITIONS:
    case OPTION_MEMORY_BUDGET:
    case OPTION_BINS:
    case OPTION_STRATEGY:
    case OPTION_JOBS:
    case OPTION_BINNING:
    case OPTION_LUMINANCE:
    case OPTION_WAVEFORM:
    case OPTION_SCOPE_DENSITY: return take_value (option, optarg, options);
    case OPTION_JSON: options->json = 1; break;
    case 'o': options->output = optarg; break;
    case OPTION_QUIET: options->quiet = 1; break;
    case OPTION_HELP: print_usage (stdout); return EXIT_OK;
    case OPTION_VERSION: print_version (); return EXIT_OK;
    case OPTION_BENCH: options->bench = 1; break;
    case OPTION_PHOTO: options->photo = optarg; break;
    case OPTION_QUICK: options->quick = 1; break;
    case OPTION_JSON_LINES: options->json_lines = 1; break;
    case OPTION_ALPHA_WEIGHTED: options->count.alpha_weighted = 1; break;
    case OPTION_WEIGHTS: options->weights = optarg; break;
    case OPTION_DERIVED: options->count.derived = 1; break;
    case OPTION_VECTORSCOPE: options->count.vectorscope = 1; break;
    case OPTION_SCOPE_NUMERATORS: options->scope_numerators = 1; break;
    case OPTION_SCOPE_PNG: options->scope_png = optarg; break;
    case ':': return usage_error ("%s needs a value", argv[optind - 1]);
    default:
      if (optopt > 0 && optopt < 256)
        return usage_error ("unknown option '-%c'", optopt);
      return usage_error ("unknown option '%s'", argv[optind - 1]);
    }
  return -1;
}

/* The scopes' options: what they need.  -1 to go on, or the usage error. */
static int
check_scope_arguments (const cli_options *options)
{
  const int scopes = options->count.waveform_columns > 0 || options->count.vectorscope;
  const char *why;
  if (!scopes && (options->scope_png || options->scope_numerators || options->scope_density_given))
    return usage_error ("--scope-png, --scope-numerators and --scope-density go with "
                        "--waveform or --vectorscope");
  if (scopes && !options->json && !options->json_lines && !options->scope_png)
    return usage_error ("the scopes are written as JSON (--json or --json-lines) or drawn "
                        "(--scope-png PREFIX), not as CSV");
  if (options->scope_png && !scope_png_available (&why))
    return usage_error ("--scope-png cannot write PNGs: %s", why);
  return -1;
}

/* The arguments after the options, and the options that cannot go together.  -1 to go on, or
 * the usage error. */
static int
check_arguments (int argc, char **argv, cli_options *options)
{
  if (options->bench)
    {
      if (optind < argc)
        return usage_error ("--bench makes its own inputs; use --photo FILE for a photo");
      return -1;
    }
  if (options->photo || options->quick)
    return usage_error ("--photo and --quick go with --bench");
  if (options->luminance_given && !options->count.derived)
    return usage_error ("--luminance says how the luminance column is counted: it goes with "
                        "--derived");
  if (optind >= argc)
    return usage_error ("no input file given (use - for standard input)");
  int status = check_scope_arguments (options);
  if (status >= 0)
    return status;
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

int
cli_parse_arguments (int argc, char **argv, cli_options *options)
{
  int option, status;

  memset (options, 0, sizeof *options);
  options->method = CHOICE_FASTEST;
  options->backend = GH_BACKEND_AUTO;
  options->repetitions = -1;
  options->scope_density = GH_DENSITY_LOG;

  opterr = 0; /* our own messages, with the hint to --help */
  while ((option = getopt_long (argc, argv, ":o:", long_options, NULL)) != -1)
    if ((status = apply_option (option, argv, options)) >= 0)
      return status;
  return check_arguments (argc, argv, options);
}
