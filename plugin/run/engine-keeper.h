/* gpu-histogram: where the plug-in's engine comes from, and how long it lives.
 *
 * Opening the GPU costs a new process a noticeable start-up (docs/BENCHMARKS.md), longer than
 * GIMP takes to give a large layer.  So:
 *   - a run starts making its engine on a thread as it begins (gpuhist_keeper_prepare), while
 *     GIMP sets the pixels up, and takes it when it needs it (gpuhist_keeper_take);
 *   - the plug-in's resident process (the GIMP extension in gimp2.c and gimp3.c) keeps a GPU
 *     engine between runs (gpuhist_keeper_keep), and lets it and the GPU's context go once it
 *     has been idle that long (gpuhist_keeper_release_idle), so that GIMP does not hold the
 *     GPU's memory, or keep a laptop's GPU awake, while nobody counts.
 * State is this file's own (one plug-in process, one keeper), used from the main thread only.
 */
#ifndef GPUHIST_ENGINE_KEEPER_H
#define GPUHIST_ENGINE_KEEPER_H

#include <glib.h>

#include "gpuhist.h"

G_BEGIN_DECLS

/* Bytes the engine's result tables may take (gh_options.table_budget), apart from its staging
 * of two strips: the largest plug-in-gpu-scopes asks for, six weighted waveforms of 1024 columns
 * of 1024 levels, takes 96 MiB. */
#define GPUHIST_TABLE_BUDGET ((size_t) 256 << 20)

/* How a run got its engine. */
typedef struct
{
  double waited_ms; /* blocked waiting for it (the GPU's start-up left after GIMP's set-up) */
  gboolean kept;    /* the resident process kept it from an earlier run: no start-up at all */
} GpuhistKeeperStart;

/* Starts making the engine on a thread; nothing when an engine is kept.  The next
 * gpuhist_keeper_take takes it.  A run that ends before that calls gpuhist_keeper_discard,
 * which waits for it and is done with it. */
void gpuhist_keeper_prepare (void);
void gpuhist_keeper_discard (void);

/* The kept engine, or the one gpuhist_keeper_prepare started, or a new one with the defaults
 * (the GPU when usable, else the CPU with the reason recorded); NULL only when no engine at all
 * can be had.  start (may be NULL) says how.  Hand it back to gpuhist_keeper_give_back. */
gh_engine *gpuhist_keeper_take (GpuhistKeeperStart *start, GError **error);
/* Keeps a GPU engine for the next run when gpuhist_keeper_keep said so, else frees it. */
void gpuhist_keeper_give_back (gh_engine *engine);

/* For the resident process: keep GPU engines between runs, and let them go (with the GPU's
 * context: gh_release_gpu) after idle_seconds without a run; 0 keeps none. */
void gpuhist_keeper_keep (guint idle_seconds);
/* Frees a kept engine that has been idle long enough.  Returns the milliseconds until it will
 * have been (call again then), or 0 when no engine is kept. */
guint gpuhist_keeper_release_idle (void);

/* GPUHIST_KEEP_GPU_SECONDS (0 to 86400), else the default. */
#define GPUHIST_KEEPER_DEFAULT_SECONDS 60
guint gpuhist_keeper_idle_seconds (void);
/* FALSE when GPUHIST_RESIDENT=0 in GIMP's environment turns the hand-over off. */
gboolean gpuhist_keeper_resident_enabled (void);
/* TEST ONLY (GPUHIST_TEST_RESIDENT_BUSY=1): the resident procedure answers every run as it does
 * while its dialog is open, so that a headless test sees a run handed back to its caller. */
gboolean gpuhist_keeper_resident_busy_for_tests (void);

G_END_DECLS

#endif /* GPUHIST_ENGINE_KEEPER_H */
