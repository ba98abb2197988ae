/* gpu-histogram: what the libFuzzer targets share: a broken promise traps (so that libFuzzer
 * reports it with the input), and one CPU engine for the process. */
#ifndef GPUHIST_FUZZ_H
#define GPUHIST_FUZZ_H

#include "gpuhist.h"

#include <stddef.h>

#define REQUIRE(condition)                                                                         \
  do                                                                                               \
    {                                                                                              \
      if (!(condition))                                                                            \
        __builtin_trap ();                                                                         \
    }                                                                                              \
  while (0)

/* The engine every input of the process counts with, made on the first call. */
static inline gh_engine *
fuzz_cpu_engine (int threads, size_t memory_budget)
{
  static gh_engine *engine;
  if (!engine)
    {
      gh_options options;
      gh_error error;
      gh_options_init (&options);
      options.backend = GH_BACKEND_CPU;
      options.cpu_threads = threads;
      options.memory_budget = memory_budget;
      engine = gh_engine_new (&options, &error);
      REQUIRE (engine != NULL);
    }
  return engine;
}

#endif /* GPUHIST_FUZZ_H */
