/* gpu-histogram: gpuhist --json-lines: many files in one call, one JSON object a line.
 *
 * Worker threads, each with its own engine, take the files in turn: while one counts, the others
 * decode (libvips decodes on the CPU whatever the backend).  Lines come out in the order of the
 * files given.  A file that cannot be read or counted gives {"file": ..., "error": ...} and the
 * batch goes on. */
#ifndef GPUHIST_BATCH_H
#define GPUHIST_BATCH_H

#include "count.h"
#include "gpuhist.h"

#include <stdio.h>

typedef struct
{
  char **paths; /* the files, directories already expanded */
  int n_paths;
  int jobs; /* worker threads; each has an engine */
  gh_options engine_options;
  size_t shared_budget; /* --memory-budget, shared by the workers; 0: engine_options' each */
  count_request count;
  int scope_numerators;     /* --scope-numerators */
  const char *scope_png;    /* --scope-png PREFIX: PREFIX-N-*.png for the Nth file, or NULL */
  gh_render_options render; /* the PNGs' */
  FILE *out;
  int quiet;    /* no backend line, no progress */
  int progress; /* a progress line on standard error (a terminal) */
} batch_request;

/* Files and directories (their files, sorted, not recursing) into a list to free with
 * batch_free_paths.  -1 with a message when a directory cannot be listed or memory runs out. */
int batch_expand_paths (char **arguments, int n_arguments, char ***paths, int *n_paths, char *error,
                        size_t error_size);
void batch_free_paths (char **paths, int n_paths);

/* Runs the batch.  Returns how many files failed, or -1 when the batch could not start (the
 * message in error) or writing failed. */
int batch_run (const batch_request *request, char *error, size_t error_size);

#endif /* GPUHIST_BATCH_H */
