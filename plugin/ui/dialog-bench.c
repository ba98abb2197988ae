/* gpu-histogram: the dialog's own measurements, for tools/bench-follow (docs/BENCHMARKS.md).
 *
 * Off unless GPUHIST_DIALOG_BENCH names a file.  Then, while a count runs, a timer of high
 * priority ticks every TICK_MS on the main loop: the longest gap between two ticks, less TICK_MS,
 * is the longest the main loop was blocked (by the strip fetcher's slices or anything else).
 * Each finished count appends a line to the file:
 *
 *   count N ok|failed ms=<count> gap_ms=<longest gap> slice_ms=<longest fetch slice>
 *         copy_ms=<GIMP copying what is counted> fetching_ms=<all fetch slices together>
 *         fetched_ms=<the count's start to its last piece fetched>
 *         counted_ms=<the count's start to the worker's end>
 *         own_ms=<the worker's own time: its start to its end less its waits for bands>
 *         first_ms=<the count's start to its first piece asked for>
 *         starved_ms=<the main thread waiting for the worker to free a band>
 *         finish_ms=<the engine's finish after the last band>
 *         poll_ms=<longest poll during it>
 *         rss_kb=<now> hwm_kb=<peak> shown_us=<wall clock when the tables were filled>
 *         gpu=<1 when the table shown was counted on the GPU, else 0>
 *
 * and each change that following sees, "change seen_us=<wall clock>".  GPUHIST_DIALOG_REPEAT=N
 * counts N times in a row after the first Re-run or change (the re-counts in a row of the
 * benchmarks), without polling in between.
 */
#include <stdio.h>
#include <stdlib.h>

#include "dialog-private.h"

#define TICK_MS 5

static const char *
bench_file (void)
{
  const char *file = g_getenv ("GPUHIST_DIALOG_BENCH");

  return file != NULL && file[0] != '\0' ? file : NULL;
}

static void
append (const char *line)
{
  FILE *out = fopen (bench_file (), "a");

  if (out == NULL)
    return;
  fputs (line, out);
  fclose (out);
}

/* VmRSS and VmHWM of this process, in kB (0 where /proc has none). */
static void
memory_kb (long *rss, long *hwm)
{
  gchar *status = NULL;
  gchar **lines;

  *rss = *hwm = 0;
  if (!g_file_get_contents ("/proc/self/status", &status, NULL, NULL))
    return;
  lines = g_strsplit (status, "\n", -1);
  for (gchar **l = lines; *l != NULL; l++)
    {
      if (g_str_has_prefix (*l, "VmRSS:"))
        *rss = strtol (*l + 6, NULL, 10);
      else if (g_str_has_prefix (*l, "VmHWM:"))
        *hwm = strtol (*l + 6, NULL, 10);
    }
  g_strfreev (lines);
  g_free (status);
}

static gboolean
tick (gpointer data)
{
  GpuhistDialog *d = data;
  gint64 now = g_get_monotonic_time ();

  d->bench_longest_gap_us = MAX (d->bench_longest_gap_us, now - d->bench_last_tick_us);
  d->bench_last_tick_us = now;
  return G_SOURCE_CONTINUE;
}

void
gpuhist_dialog_bench_job_started (GpuhistDialog *d)
{
  if (bench_file () == NULL || d->bench_tick != 0)
    return;
  d->bench_longest_gap_us = 0;
  d->poll_max_us = 0;
  d->bench_last_tick_us = g_get_monotonic_time ();
  d->bench_tick = g_timeout_add_full (G_PRIORITY_HIGH, TICK_MS, tick, d, NULL);
  if (d->bench_repeats_left == 0 && g_getenv ("GPUHIST_DIALOG_REPEAT") != NULL)
    d->bench_repeats_left = (int) g_ascii_strtoll (g_getenv ("GPUHIST_DIALOG_REPEAT"), NULL, 10);
}

/* Milliseconds from the count's start to `at` (monotonic), 0 where `at` never came. */
static double
since_start_ms (const GpuhistDialog *d, gint64 at)
{
  return at > d->job_started_us ? (at - d->job_started_us) / 1000.0 : 0.0;
}

gboolean
gpuhist_dialog_bench_job_finished (GpuhistDialog *d, gboolean ok)
{
  long rss, hwm;
  gchar *line;

  if (d->bench_tick == 0)
    return FALSE;
  g_source_remove (d->bench_tick);
  d->bench_tick = 0;
  memory_kb (&rss, &hwm);
  line = g_strdup_printf (
      "count %d %s ms=%.1f gap_ms=%.1f slice_ms=%.1f copy_ms=%.1f fetching_ms=%.1f "
      "fetched_ms=%.1f counted_ms=%.1f own_ms=%.1f first_ms=%.1f starved_ms=%.1f finish_ms=%.1f "
      "poll_ms=%.1f "
      "rss_kb=%ld hwm_kb=%ld "
      "shown_us=%" G_GINT64_FORMAT " gpu=%d\n",
      ++d->bench_counts, ok ? "ok" : "failed", since_start_ms (d, g_get_monotonic_time ()),
      MAX (0, d->bench_longest_gap_us - TICK_MS * 1000) / 1000.0,
      d->fetch_times.longest_us / 1000.0, d->open_us / 1000.0, d->fetch_times.busy_us / 1000.0,
      since_start_ms (d, d->fetch_times.last_piece_at_us), since_start_ms (d, d->counted_at_us),
      (d->counted_at_us - d->worker_at_us - d->fetch_times.waited_us) / 1000.0,
      since_start_ms (d, d->fetch_times.first_at_us), d->fetch_times.starved_us / 1000.0,
      d->params.report->finish_ms, d->poll_max_us / 1000.0, rss, hwm, g_get_real_time (),
      d->params.report->layer.used_gpu != 0);
  append (line);
  g_free (line);
  return d->bench_repeats_left > 0 && --d->bench_repeats_left > 0;
}

void
gpuhist_dialog_bench_change_seen (void)
{
  gchar *line;

  if (bench_file () == NULL)
    return;
  line = g_strdup_printf ("change seen_us=%" G_GINT64_FORMAT "\n", g_get_real_time ());
  append (line);
  g_free (line);
}
