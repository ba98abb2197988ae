/* gpu-histogram: the CPU backend: a run's staging, strips, jobs and folds, the jobs on a pool of
 * threads (cpu_pool.c).  The same four methods as on the GPU (global atomics, privatized,
 * fastest, read-only): plain runs' histograms count in cpu_histogram.c, weighted runs and
 * derived channels in cpu_weighted.c, the scopes in cpu_scopes.c.  Plain runs never go to
 * cpu_weighted.c, nor do unweighted 16-bit runs under GIMP's rule, which count as plain runs do
 * with every level's bin looked up in a table.  Without repetitions a strip is counted in the
 * background while the caller fills the next. */
#include "backend.h"
#include "cpu_histogram.h"
#include "cpu_pool.h"
#include "cpu_scopes.h"
#include "cpu_weighted.h"
#include "gimp_rules.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct
{
  cpu_pool pool;
} cpu_backend;

typedef struct
{
  cpu_backend *backend;
  gh_run_plan plan;
  gh_run_sink *sink;
  uint8_t *staging[2];
  int current;
  int job_in_flight;
  int strips;
  /* The job's input, and where it counts. */
  const uint8_t *data;
  size_t bytes;
  gh_method method;
  cpu_histogram_tables plain; /* plain runs: the table's size, the rule, the shared table */
  int copies;                 /* tables a thread: CPU_FASTEST_COPIES for 8-bit samples, else 1 */
  uint32_t *thread_tables;    /* threads * copies * plain.words */
  volatile uint64_t read_sink;
  /* Weighted and derived runs (GIMP's binning too, there): the rules and 64-bit
   * tables (out_channels * bins a table). */
  cpu_weighted_rules *weighted;
  uint64_t *sum_tables;          /* threads tables */
  uint32_t *narrow_tables;       /* threads * CPU_NARROW_COPIES tables, 32-bit counters */
  _Atomic uint64_t *shared_sums; /* global atomics */
  /* Scopes: their counting, the per-pixel rules it uses, and the job's table: a scope's kind,
   * or one of the two below. */
  cpu_scopes *scopes;
  cpu_weighted_rules *scope_rules;
  int table;
  int fold_scope[GH_N_SCOPES]; /* the scopes fold_job folds now */
} cpu_run;

#define TABLE_HISTOGRAM (-1)
#define TABLE_EVERY (-2)      /* the histogram, then every scope: a run without repetitions */
#define TABLE_SINK_CLEAR (-3) /* no table: the job clears the sink's scope tables */

/* This thread's part of [0, bytes): whole pixels, so that channel = sample index % channels. */
static void
thread_share (size_t bytes, size_t pixel_bytes, int thread, int threads, size_t *begin, size_t *end)
{
  size_t pixels = bytes / pixel_bytes;
  *begin = pixels * (size_t) thread / (size_t) threads * pixel_bytes;
  *end = pixels * (size_t) (thread + 1) / (size_t) threads * pixel_bytes;
}

/* This thread's share, bytes [begin, end) of the strip, of a weighted or derived run. */
static void
job_count_weighted (cpu_run *run, int thread, size_t begin, size_t end)
{
  const size_t pixel_bytes = (size_t) run->plan.channels * run->plan.bytes_per_sample;
  const size_t words = run->weighted->table_words;
  const cpu_weighted_tables tables = {
    .sums = run->sum_tables + (size_t) thread * words,
    .narrow = run->narrow_tables + (size_t) thread * CPU_NARROW_COPIES * words,
    .shared = run->shared_sums,
  };
  const uint8_t *coverage = run->plan.coverage_bytes ? run->data + run->plan.coverage_offset : NULL;
  cpu_weighted_count (run->weighted, run->method, run->data, coverage, begin / pixel_bytes,
                      end / pixel_bytes, &tables);
}

static void job_count_histogram (cpu_run *run, int thread, int threads);

static void
job_count_scope (cpu_run *run, int kind, int thread, int threads)
{
  const size_t pixels = run->bytes / ((size_t) run->plan.channels * run->plan.bytes_per_sample);
  const uint8_t *coverage = run->plan.coverage_bytes ? run->data + run->plan.coverage_offset : NULL;
  cpu_scopes_count (run->scopes, kind, run->method, run->data, coverage, pixels, thread, threads);
}

/* A run without repetitions whose histogram the scopes' pass counts too: one pass a strip. */
static int
counts_together (const cpu_run *run)
{
  return run->table == TABLE_EVERY && run->method == GH_METHOD_FASTEST && run->scopes
         && cpu_scopes_count_histogram_too (run->scopes);
}

static void
job_count (void *arg, int thread, int threads)
{
  cpu_run *run = arg;
  if (counts_together (run))
    {
      const size_t pixels = run->bytes / (size_t) run->plan.channels;
      const uint8_t *coverage
          = run->plan.coverage_bytes ? run->data + run->plan.coverage_offset : NULL;
      cpu_scopes_count_together (run->scopes, run->data, coverage, pixels, thread, threads);
      return;
    }
  if (run->table == TABLE_HISTOGRAM || run->table == TABLE_EVERY)
    job_count_histogram (run, thread, threads);
  for (int k = 0; k < GH_N_SCOPES; k++)
    if (run->table == k || (run->table == TABLE_EVERY && run->plan.scope[k].tables > 0))
      job_count_scope (run, k, thread, threads);
}

static void
job_count_histogram (cpu_run *run, int thread, int threads)
{
  const int channels = run->plan.channels;
  size_t begin, end;
  thread_share (run->bytes, (size_t) channels * run->plan.bytes_per_sample, thread, threads, &begin,
                &end);
  const uint8_t *p = run->data + begin;
  const size_t n = end - begin;
  if (run->weighted && run->method != GH_METHOD_READ_ONLY)
    {
      job_count_weighted (run, thread, begin, end);
      return;
    }
  if (run->method != GH_METHOD_READ_ONLY)
    {
      cpu_histogram_count (&run->plan, &run->plain, run->method, p, n,
                           run->thread_tables + (size_t) thread * run->copies * run->plain.words);
      return;
    }
  run->read_sink ^= cpu_read_bytes (p, n);
  if (run->plan.coverage_bytes)
    {
      /* The coverage plane too: the ceiling reads what the counting methods read. */
      const size_t pixel_bytes = (size_t) channels * run->plan.bytes_per_sample;
      const size_t cover = (size_t) run->plan.coverage_bytes;
      run->read_sink
          ^= cpu_read_bytes (run->data + run->plan.coverage_offset + begin / pixel_bytes * cover,
                             n / pixel_bytes * cover);
    }
}

/* Adds a 64-bit table into the sink's table for the method: 128-bit sums for weighted runs. */
static void
fold_table (cpu_run *run, const uint64_t *table, size_t words)
{
  gh_u128 *sums = run->sink->weighted[run->method];
  uint64_t *counts = run->sink->counts[run->method];
  for (size_t w = 0; w < words; w++)
    if (sums)
      gh_u128_add64 (&sums[w], table[w]);
    else if (counts)
      counts[w] += table[w];
}

static void
fold_weighted_job (cpu_run *run)
{
  const size_t words = run->weighted->table_words;
  if (run->method == GH_METHOD_GLOBAL_ATOMICS)
    {
      /* A strip's sums stay below 2^63 (gh_run_plan), so the shared table never wraps. */
      fold_table (run, (const uint64_t *) run->shared_sums, words);
      return;
    }
  for (int t = 0; t < run->backend->pool.count; t++)
    fold_table (run, run->sum_tables + (size_t) t * words, words);
}

static void fold_histogram_job (cpu_run *run);

/* The pool's share of folding the scopes that fold_job marked. */
static void
job_fold_scopes (void *arg, int thread, int threads)
{
  cpu_run *run = arg;
  for (int k = 0; k < GH_N_SCOPES; k++)
    if (run->fold_scope[k])
      cpu_scopes_fold (run->scopes, k, run->method, run->sink,
                       k == GH_SCOPE_WAVEFORM && counts_together (run), thread, threads);
}

/* `last`: no strip of the run follows, so the scopes' tables must reach the sink now.  Their
 * tables are millions of cells, so the pool folds them; the one pass's histogram comes with
 * the waveform's. */
static void
fold_job (cpu_run *run, int last)
{
  if ((run->table == TABLE_HISTOGRAM || run->table == TABLE_EVERY) && !counts_together (run))
    fold_histogram_job (run);
  int any = 0;
  for (int k = 0; k < GH_N_SCOPES; k++)
    {
      run->fold_scope[k]
          = (run->table == k || (run->table == TABLE_EVERY && run->plan.scope[k].tables > 0))
            && cpu_scopes_fold_now (run->scopes, k, run->method, last);
      any |= run->fold_scope[k];
    }
  if (!any)
    return;
  cpu_pool_dispatch (&run->backend->pool, job_fold_scopes, run);
  cpu_pool_wait (&run->backend->pool);
}

static void
fold_histogram_job (cpu_run *run)
{
  if (run->method == GH_METHOD_READ_ONLY)
    return;
  if (run->weighted)
    {
      fold_weighted_job (run);
      return;
    }
  uint64_t *counts = run->sink->counts[run->method];
  if (!counts)
    return;
  const size_t words = run->plain.words;
  if (run->method == GH_METHOD_GLOBAL_ATOMICS)
    {
      for (size_t w = 0; w < words; w++)
        counts[w] += atomic_load_explicit (&run->plain.shared[w], memory_order_relaxed);
      return;
    }
  for (int t = 0; t < run->backend->pool.count; t++)
    {
      const uint32_t *table = run->thread_tables + (size_t) t * run->copies * words;
      for (size_t w = 0; w < words; w++)
        counts[w] += table[w];
    }
}

static void
start_job (cpu_run *run, int table, gh_method method, const uint8_t *data, size_t bytes)
{
  run->table = table;
  run->method = method;
  run->data = data;
  run->bytes = bytes;
  const size_t pixels = bytes / ((size_t) run->plan.channels * run->plan.bytes_per_sample);
  for (int k = 0; k < GH_N_SCOPES; k++)
    if (table == k || (table == TABLE_EVERY && run->plan.scope[k].tables > 0))
      cpu_scopes_prepare (run->scopes, k, method, pixels);
  if (method == GH_METHOD_GLOBAL_ATOMICS && run->weighted)
    for (size_t w = 0; w < run->weighted->table_words; w++)
      atomic_store_explicit (&run->shared_sums[w], 0, memory_order_relaxed);
  else if (method == GH_METHOD_GLOBAL_ATOMICS)
    for (size_t w = 0; w < run->plain.words; w++)
      atomic_store_explicit (&run->plain.shared[w], 0, memory_order_relaxed);
  cpu_pool_dispatch (&run->backend->pool, job_count, run);
  run->job_in_flight = 1;
}

static void
finish_job (cpu_run *run)
{
  if (!run->job_in_flight)
    return;
  cpu_pool_wait (&run->backend->pool);
  run->job_in_flight = 0;
}

static void *
cpu_open (const gh_options *options, gh_fault fault, char *description, size_t description_size,
          gh_error *error)
{
  (void) fault;
  cpu_backend *backend = calloc (1, sizeof *backend);
  if (!backend)
    {
      gh_error_set (error, GH_ERROR_OUT_OF_MEMORY, "out of host memory");
      return NULL;
    }
  long cores = sysconf (_SC_NPROCESSORS_ONLN);
  int threads = options->cpu_threads > 0 ? options->cpu_threads : (int) (cores > 0 ? cores : 1);
  if (threads > 256)
    threads = 256;

  const int started = cpu_pool_start (&backend->pool, threads);
  if (started == 0)
    {
      free (backend);
      gh_error_set (error, GH_ERROR_OUT_OF_MEMORY, "could not start a counting thread");
      return NULL;
    }
  snprintf (description, description_size, "CPU, %d thread%s", started, started == 1 ? "" : "s");
  return backend;
}

static void
cpu_close (void *data)
{
  cpu_backend *backend = data;
  cpu_pool_stop (&backend->pool);
  free (backend);
}

static void
cpu_run_free (cpu_run *run)
{
  finish_job (run);
  free (run->staging[0]);
  free (run->staging[1]);
  free (run->thread_tables);
  free (run->plain.level_bins);
  free ((void *) run->plain.shared);
  if (run->weighted)
    cpu_weighted_rules_clear (run->weighted);
  free (run->weighted);
  free (run->sum_tables);
  free (run->narrow_tables);
  free ((void *) run->shared_sums);
  cpu_scopes_free (run->scopes);
  if (run->scope_rules)
    cpu_weighted_rules_clear (run->scope_rules);
  free (run->scope_rules);
  free (run);
}

static int
plan_has_scopes (const gh_run_plan *plan)
{
  for (int k = 0; k < GH_N_SCOPES; k++)
    if (plan->scope[k].tables > 0)
      return 1;
  return 0;
}

/* The scopes' rules and tables; 0, or -1 when memory ran out. */
static int
alloc_scopes (cpu_run *run)
{
  if (!plan_has_scopes (&run->plan))
    return 0;
  run->scope_rules = malloc (sizeof *run->scope_rules);
  if (!run->scope_rules || cpu_weighted_rules_init (run->scope_rules, &run->plan) != 0)
    return -1;
  run->scopes = cpu_scopes_new (&run->plan, run->scope_rules, run->backend->pool.count);
  return run->scopes ? 0 : -1;
}

/* The rules and tables of a weighted or derived run; 0, or -1 when memory ran out. */
static int
alloc_weighted (cpu_run *run)
{
  const size_t threads = (size_t) run->backend->pool.count;
  run->weighted = malloc (sizeof *run->weighted);
  if (!run->weighted)
    return -1;
  if (cpu_weighted_rules_init (run->weighted, &run->plan) != 0)
    return -1;
  const size_t words = run->weighted->table_words;
  run->sum_tables = calloc (threads * words, sizeof (uint64_t));
  run->narrow_tables = calloc (threads * CPU_NARROW_COPIES * words, sizeof (uint32_t));
  run->shared_sums = calloc (words, sizeof (uint64_t));
  return run->sum_tables && run->narrow_tables && run->shared_sums ? 0 : -1;
}

/* Unweighted 16-bit runs under GIMP's rule: plain runs but for the rule (gh_plan_plain). */
static int
gimp_binned_plain (const gh_run_plan *plan)
{
  return !gh_plan_weighted (plan) && !plan->derived && plan->bytes_per_sample == 2
         && plan->binning == GH_BINNING_GIMP;
}

/* Every level's bin under GIMP's rule, so that a sample costs a lookup rather than GIMP's float
 * arithmetic (bins are at most 65536, so a bin fits 16 bits); 0, or -1 without memory. */
static int
alloc_level_bins (cpu_run *run)
{
  run->plain.level_bins = malloc (65536 * sizeof *run->plain.level_bins);
  if (!run->plain.level_bins)
    return -1;
  for (uint32_t s = 0; s < 65536; s++)
    run->plain.level_bins[s] = (uint16_t) gh_gimp_bin_u16 (s, run->plan.bins);
  return 0;
}

/* The pool's share of clearing the sink's scope tables (clears_scope_sinks): megabytes that the
 * engine would otherwise clear before the caller's first strip, while here the caller fills it. */
static void
job_clear_scope_sinks (void *arg, int thread, int threads)
{
  cpu_run *run = arg;
  for (int k = 0; k < GH_N_SCOPES; k++)
    for (int m = 0; m < GH_N_METHODS; m++)
      {
        gh_u128 *sums = run->sink->scope[k].weighted[m];
        uint8_t *table = sums ? (uint8_t *) sums : (uint8_t *) run->sink->scope[k].counts[m];
        if (!table)
          continue;
        const size_t bytes
            = gh_table_cells (&run->plan.scope[k]) * (sums ? sizeof *sums : sizeof (uint64_t));
        const size_t begin = bytes * (size_t) thread / (size_t) threads;
        memset (table + begin, 0, bytes * (size_t) (thread + 1) / (size_t) threads - begin);
      }
}

static void *
cpu_run_begin (void *data, const gh_run_plan *plan, gh_run_sink *sink, gh_error *error)
{
  cpu_backend *backend = data;
  cpu_run *run = calloc (1, sizeof *run);
  if (!run)
    {
      gh_error_set (error, GH_ERROR_OUT_OF_MEMORY, "out of host memory");
      return NULL;
    }
  run->backend = backend;
  run->plan = *plan;
  run->sink = sink;
  run->plain.words = (size_t) plan->channels * plan->bins;
  run->copies = plan->bytes_per_sample == 1 ? CPU_FASTEST_COPIES : 1;
  const size_t staging_bytes = gh_plan_staging_bytes (plan);
  run->staging[0] = gh_large_alloc (staging_bytes);
  /* The second strip buffer only pays when counting overlaps the caller's filling. */
  run->staging[1] = plan->repetitions == 0 ? gh_large_alloc (staging_bytes) : NULL;
  run->thread_tables
      = calloc ((size_t) backend->pool.count * run->copies * run->plain.words, sizeof (uint32_t));
  run->plain.shared = calloc (run->plain.words, sizeof (uint32_t));
  if (gimp_binned_plain (plan) ? alloc_level_bins (run) != 0
                               : !gh_plan_plain (plan) && alloc_weighted (run) != 0)
    run->plain.shared = NULL; /* reported as out of memory below */
  if (alloc_scopes (run) != 0)
    run->plain.shared = NULL;
  if (!run->staging[0] || (plan->repetitions == 0 && !run->staging[1]) || !run->thread_tables
      || !run->plain.shared)
    {
      cpu_run_free (run);
      gh_error_set (error, GH_ERROR_OUT_OF_MEMORY, "out of host memory for two strips of %zu bytes",
                    staging_bytes);
      return NULL;
    }
  snprintf (sink->layout, sizeof sink->layout, "CPU, %d threads, %d cop%s of %d bins each",
            backend->pool.count, run->copies, run->copies == 1 ? "y" : "ies", plan->bins);
  if (plan_has_scopes (plan))
    {
      run->table = TABLE_SINK_CLEAR;
      cpu_pool_dispatch (&backend->pool, job_clear_scope_sinks, run);
      run->job_in_flight = 1;
    }
  return run;
}

static uint8_t *
cpu_staging (void *data)
{
  cpu_run *run = data;
  return run->staging[run->current];
}

/* Every method of the plan on one table, each timed alone; the scopes have no read-only pass of
 * their own (the histogram's is the run's ceiling). */
static void
time_table (cpu_run *run, int table, double **rep_ms, const uint8_t *strip, size_t bytes)
{
  for (int m = 0; m < GH_N_METHODS; m++)
    {
      if (!(run->plan.methods & GH_METHOD_BIT (m))
          || (table != TABLE_HISTOGRAM && m == GH_METHOD_READ_ONLY))
        continue;
      int warmups = run->strips == 1 ? run->plan.warmup : 0;
      for (int r = -warmups; r < run->plan.repetitions; r++)
        {
          double start = gh_now_ms ();
          start_job (run, table, (gh_method) m, strip, bytes);
          finish_job (run);
          if (r >= 0)
            rep_ms[m][r] += gh_now_ms () - start;
        }
      fold_job (run, 1);
    }
}

static gh_status
cpu_strip (void *data, size_t bytes, gh_error *error)
{
  (void) error;
  cpu_run *run = data;
  const uint8_t *strip = run->staging[run->current];
  run->strips++;
  if (run->table == TABLE_SINK_CLEAR)
    finish_job (run); /* nothing to fold: the sink's scope tables are clear now */

  if (run->plan.repetitions == 0)
    {
      /* Count this strip in the background; the caller fills the other buffer meanwhile. */
      if (run->job_in_flight)
        {
          finish_job (run);
          fold_job (run, 0);
        }
      start_job (run, TABLE_EVERY, GH_METHOD_FASTEST, strip, bytes);
      run->current ^= 1;
      return GH_OK;
    }

  time_table (run, TABLE_HISTOGRAM, run->sink->rep_ms, strip, bytes);
  for (int k = 0; k < GH_N_SCOPES; k++)
    if (run->plan.scope[k].tables > 0)
      time_table (run, k, run->sink->scope[k].rep_ms, strip, bytes);
  return GH_OK;
}

static gh_status
cpu_run_end (void *data, gh_error *error)
{
  (void) error;
  cpu_run *run = data;
  if (run->job_in_flight)
    {
      finish_job (run);
      fold_job (run, 1);
    }
  cpu_run_free (run);
  return GH_OK;
}

static void
cpu_run_abort (void *data)
{
  cpu_run_free (data);
}

const gh_backend_ops gh_cpu_backend_ops = {
  .open = cpu_open,
  .close = cpu_close,
  .run_begin = cpu_run_begin,
  .staging = cpu_staging,
  .strip = cpu_strip,
  .pattern_strip = NULL,
  .run_end = cpu_run_end,
  .run_abort = cpu_run_abort,
  .clears_scope_sinks = 1,
};
