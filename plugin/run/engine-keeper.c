/* gpu-histogram: the plug-in's engine between runs.  See engine-keeper.h. */
#include "engine-keeper.h"
#include "errors.h"
#include "stream.h"

/* An engine being made on a thread (gpuhist_keeper_prepare). */
typedef struct
{
  gh_engine *engine;
  gh_error error;
} EngineMade;

static GThread *engine_thread;

/* The resident process's engine between runs, and since when it has been idle. */
static gboolean keep_engines;
static guint keep_seconds;
static gh_engine *kept_engine;
static gint64 kept_since;

static gpointer
make_engine (gpointer data)
{
  EngineMade *made = g_new0 (EngineMade, 1);
  gh_options options;

  (void) data;
  gh_options_init (&options);
  /* Staging for the plug-in's strips only: pinning the default budget costs as long as fetching
   * a large layer (docs/BENCHMARKS.md). */
  options.memory_budget = 2 * GPUHIST_STRIP_TARGET_BYTES;
  options.table_budget = GPUHIST_TABLE_BUDGET;
  /* GIMP serves each tile of the next strip while this one is counted: a counting thread on
   * every core made GIMP's side of the fetch wait for a CPU, and the whole run slower than one
   * thread fewer (docs/BENCHMARKS.md, "one CPU left to GIMP"). */
  options.cpu_threads = MAX (1, (int) g_get_num_processors () - 1);
  made->error.status = GH_OK;
  made->engine = gh_engine_new (&options, &made->error);
  if (made->engine != NULL && gh_engine_uses_gpu (made->engine))
    {
      /* Pin the staging here, off the run's path: a run of rows 16 KiB long takes two strips
       * of GPUHIST_STRIP_TARGET_BYTES each, as large as any run's, and the backend keeps them
       * for the runs that follow, else the first large layer pays for it. */
      gh_error ignored;
      gh_run *run = gh_run_begin (made->engine, 4096, 4096, 4, &ignored);

      if (run != NULL)
        gh_run_abort (run);
    }
  return made;
}

void
gpuhist_keeper_prepare (void)
{
  if (kept_engine == NULL && engine_thread == NULL)
    engine_thread = g_thread_new ("gpuhist-engine", make_engine, NULL);
}

/* The engine the thread made, once it has; NULL where none was started. */
static EngineMade *
join_engine_thread (void)
{
  EngineMade *made = engine_thread != NULL ? g_thread_join (engine_thread) : NULL;

  engine_thread = NULL;
  return made;
}

gh_engine *
gpuhist_keeper_take (GpuhistKeeperStart *start, GError **error)
{
  gint64 begin = g_get_monotonic_time ();
  EngineMade *made;
  gh_engine *engine;

  if (kept_engine != NULL)
    {
      engine = kept_engine;
      kept_engine = NULL;
      if (start != NULL)
        {
          start->waited_ms = 0.0;
          start->kept = TRUE;
        }
      return engine;
    }
  made = join_engine_thread ();
  if (made == NULL)
    made = make_engine (NULL);
  engine = made->engine;
  if (engine == NULL)
    gpuhist_set_engine_error (error, &made->error);
  g_free (made);
  if (start != NULL)
    {
      start->waited_ms = (g_get_monotonic_time () - begin) / 1000.0;
      start->kept = FALSE;
    }
  return engine;
}

void
gpuhist_keeper_give_back (gh_engine *engine)
{
  if (engine == NULL)
    return;
  /* Only a GPU is worth keeping: a CPU engine costs nothing to make, and one that fell back to
   * the CPU after a GPU fault should try the GPU again next time. */
  if (keep_engines && kept_engine == NULL && gh_engine_uses_gpu (engine))
    {
      kept_engine = engine;
      kept_since = g_get_monotonic_time ();
      return;
    }
  gh_engine_free (engine);
}

void
gpuhist_keeper_discard (void)
{
  EngineMade *made = join_engine_thread ();

  if (made != NULL)
    gpuhist_keeper_give_back (made->engine);
  g_free (made);
}

void
gpuhist_keeper_keep (guint idle_seconds)
{
  keep_engines = idle_seconds > 0;
  keep_seconds = idle_seconds;
}

guint
gpuhist_keeper_release_idle (void)
{
  gint64 idle_us, limit_us = (gint64) keep_seconds * G_USEC_PER_SEC;

  if (kept_engine == NULL)
    return 0;
  idle_us = g_get_monotonic_time () - kept_since;
  if (idle_us < limit_us)
    return (guint) MAX ((limit_us - idle_us) / 1000, 1);
  gh_engine_free (kept_engine);
  kept_engine = NULL;
  gh_release_gpu ();
  return 0;
}

guint
gpuhist_keeper_idle_seconds (void)
{
  const char *value = g_getenv ("GPUHIST_KEEP_GPU_SECONDS");
  gchar *end = NULL;
  guint64 seconds;

  if (value == NULL || value[0] == '\0')
    return GPUHIST_KEEPER_DEFAULT_SECONDS;
  seconds = g_ascii_strtoull (value, &end, 10);
  if (end == value || *end != '\0')
    return GPUHIST_KEEPER_DEFAULT_SECONDS;
  return (guint) MIN (seconds, 24 * 3600);
}

gboolean
gpuhist_keeper_resident_enabled (void)
{
  return g_strcmp0 (g_getenv ("GPUHIST_RESIDENT"), "0") != 0;
}

gboolean
gpuhist_keeper_resident_busy_for_tests (void)
{
  return g_strcmp0 (g_getenv ("GPUHIST_TEST_RESIDENT_BUSY"), "1") == 0;
}
