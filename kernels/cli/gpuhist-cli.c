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
#include "cli-options.h"
#include "count.h"
#include "gpuhist.h"
#include "image-source.h"
#include "pnm.h"
#include "scope-png.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_TIMED_REPETITIONS 5

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

/* The whole JSON document: the histogram's object, then the scopes'. */
static int
write_json (FILE *out, const cli_options *options, const gh_result *result,
            const char *const *channel_names)
{
  int failed = gh_write_json_begin (out, result, channel_names);
  failed |= gh_write_scopes_json (out, result, channel_names, options->scope_numerators);
  fputs ("\n}\n", out);
  return failed;
}

/* Output in blocks of this size: the scopes write a million numbers. */
#define OUTPUT_BUFFER_SIZE ((size_t) 1 << 20)

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
  setvbuf (out, NULL, _IOFBF, OUTPUT_BUFFER_SIZE);
  failed = options->json ? write_json (out, options, result, channel_names)
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
  if (options->count.waveform_columns > info->width)
    {
      fprintf (stderr,
               "gpuhist: %s: --waveform %d asks for more columns than the image is wide (%d "
               "pixels)\n",
               name, options->count.waveform_columns, info->width);
      return EXIT_BAD_INPUT;
    }
  if (options->count.vectorscope && info->channels < 3)
    {
      fprintf (stderr,
               "gpuhist: %s: --vectorscope needs RGB or RGBA, but the image has %d channel(s)\n",
               name, info->channels);
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
  request.scope_numerators = options->scope_numerators;
  request.scope_png = options->scope_png;
  gh_render_options_init (&request.render);
  request.render.density = options->scope_density;
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

/* --scope-png: the charts of one image's result. */
static int
write_charts (const cli_options *options, const gh_result *result, const char *name)
{
  gh_render_options render;
  char message[SOURCE_ERROR_SIZE];
  gh_render_options_init (&render);
  render.density = options->scope_density;
  if (scope_png_write (options->scope_png, result, &render, message, sizeof message))
    {
      fprintf (stderr, "gpuhist: %s: %s\n", name, message);
      return EXIT_BAD_INPUT;
    }
  return EXIT_OK;
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
      if (!exit_code && options->scope_png)
        exit_code = write_charts (options, &result, name);
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

  exit_code = cli_parse_arguments (argc, argv, &options);
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
