/* gpu-histogram: the engine's own structures, shared by engine.c (engines and backends), run.c
 * (runs, strips, results) and histogram.c (the whole-image loops).  Internal. */
#ifndef GPUHIST_ENGINE_PRIVATE_H
#define GPUHIST_ENGINE_PRIVATE_H

#include "backend.h"

struct gh_engine
{
  gh_options options;
  const gh_backend_ops *ops;
  void *backend;
  int uses_gpu;
  gh_fault fault;
  int fault_after;
  int fault_run; /* the engine's run (1-based) a fault strikes in; 0: every run */
  int runs;      /* runs begun on this engine, less those aborted before their first strip */
  char description[GH_MESSAGE_SIZE];
};

struct gh_run
{
  gh_engine *engine;
  int width;
  int height;
  int channels;
  size_t row_bytes;
  int max_rows;
  int rows_done;
  int strips_done;
  gh_run_plan plan;
  gh_run_sink sink;
  void *backend_run;
};

/* GH_OK, or INVALID_ARGUMENT with a message naming what is wrong with the spec. */
gh_status gh_check_spec (const gh_engine *engine, const gh_run_spec *spec, gh_error *error);
/* GH_OK when a strip of `rows` rows fits the run, else INVALID_ARGUMENT. */
gh_status gh_check_strip_rows (const gh_run *run, int rows, gh_error *error);

#endif /* GPUHIST_ENGINE_PRIVATE_H */
