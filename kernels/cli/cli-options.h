/* gpu-histogram: gpuhist's command line: its options, their checks and the --help text
 * (cli-options.c), read by gpuhist-cli.c. */
#ifndef GPUHIST_CLI_OPTIONS_H
#define GPUHIST_CLI_OPTIONS_H

#include "count.h"
#include "gpuhist.h"
#include "pnm.h"

#include <stddef.h>

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
  int luminance_given; /* --luminance, which needs --derived */
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
  int bins;                 /* --bins; 0: 256 */
  int scope_numerators;     /* --scope-numerators: weighted scopes' exact sums in the JSON too */
  const char *scope_png;    /* --scope-png PREFIX, or NULL */
  gh_density scope_density; /* --scope-density, for the PNGs */
  int scope_density_given;
  gh_strategy strategy; /* --strategy, for 16-bit samples */
} cli_options;

/* Fills *options from argv (printing --help or --version, or a usage error on standard error).
 * Returns -1 to go on, or the exit status. */
int cli_parse_arguments (int argc, char **argv, cli_options *options);

#endif /* GPUHIST_CLI_OPTIONS_H */
