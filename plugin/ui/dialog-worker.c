/* gpu-histogram: the dialog's worker.  See dialog-private.h.
 *
 * A count runs as a GTask in GLib's thread pool, cancelled through its GCancellable: the worker
 * only counts, while the main thread fetches the pixels from GIMP between GTK events
 * (strip-fetch.h says why) and keeps the dialog drawn.  The last result stays on screen until a
 * count has finished whole: a cancelled or failed count never replaces it, so the dialog never
 * shows a mix of an old and a new count. */
#include <string.h>

#include <glib/gi18n-lib.h>

#include "dialog-private.h"
#include "measure.h"
#include "strip-fetch.h"
#include "report.h"

#define PROGRESS_INTERVAL_MS 100
/* A count shows its progress bar once it has taken this long. */
#define PROGRESS_AFTER_US 500000

static void job_finished (GObject *source_object, GAsyncResult *result, gpointer data);

static void
read_settings (GpuhistDialog *d)
{
  int choice = gtk_combo_box_get_active (GTK_COMBO_BOX (d->bins_combo));

  d->params.settings->repetitions
      = gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (d->repetitions));
  if (choice >= 0 && choice < (int) G_N_ELEMENTS (gpuhist_bin_choices))
    d->params.settings->bins = gpuhist_bin_choices[choice];
  choice = gtk_combo_box_get_active (GTK_COMBO_BOX (d->weighting_combo));
  if (choice == GPUHIST_WEIGHTING_GIMP || choice == GPUHIST_WEIGHTING_PIXELS)
    d->params.settings->weighting = choice;
  choice = gtk_combo_box_get_active (GTK_COMBO_BOX (d->source_combo));
  if (choice == GPUHIST_SOURCE_DRAWABLE || choice == GPUHIST_SOURCE_VISIBLE)
    d->params.settings->source = choice;
}

void
gpuhist_dialog_ask_for_scopes (GpuhistSettings *settings, const GpuhistSource *source)
{
  settings->scopes = gpuhist_charts_need_scopes ();
  settings->waveform_columns
      = settings->scopes ? gpuhist_charts_waveform_columns (source, settings) : 0;
}

void
gpuhist_dialog_save_settings (GpuhistDialog *d)
{
  read_settings (d);
  if (d->params.save_settings != NULL)
    d->params.save_settings (d->params.settings, d->params.save_settings_data);
}

static void
monitor_progress (double fraction, gpointer data)
{
  GpuhistDialog *d = data;

  g_atomic_int_set (&d->progress_permille, (gint) (CLAMP (fraction, 0.0, 1.0) * 1000.0));
}

static gboolean
monitor_cancelled (gpointer data)
{
  GpuhistDialog *d = data;

  return g_cancellable_is_cancelled (d->cancellable);
}

/* The worker: counts, never talking to GIMP. */
static void
worker (GTask *task, gpointer source_object, gpointer task_data, GCancellable *cancellable)
{
  GpuhistDialog *d = task_data;

  (void) source_object;
  (void) cancellable;
  d->worker_at_us = g_get_monotonic_time ();
  if (d->job == GPUHIST_JOB_MEASURE)
    {
      GpuhistMonitor monitor = { monitor_progress, monitor_cancelled, d };

      d->job_ok = gpuhist_measure_bands (d->params.engine, d->job_source, &d->job_settings,
                                         &monitor, gpuhist_strip_fetch_read_band, d->fetch,
                                         &d->job_report, &d->job_error);
    }
  else
    d->job_ok = gpuhist_compare_patterns (d->params.engine, &d->job_settings, d->params.report,
                                          &d->job_error);
  d->counted_at_us = g_get_monotonic_time ();
  g_task_return_boolean (task, d->job_ok);
}

static gboolean
progress_tick (gpointer data)
{
  GpuhistDialog *d = data;
  gint permille = g_atomic_int_get (&d->progress_permille);

  if (!gtk_widget_get_visible (d->progress_box)
      && g_get_monotonic_time () - d->job_started_us >= PROGRESS_AFTER_US)
    {
      gtk_widget_show (d->progress_box);
      if (!d->job_automatic)
        gtk_widget_grab_focus (d->cancel_button);
    }
  if (permille < 0)
    gtk_progress_bar_pulse (GTK_PROGRESS_BAR (d->progress));
  else
    gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (d->progress), permille / 1000.0);
  return G_SOURCE_CONTINUE;
}

/* While a job runs: what would change the report waits; bins, weighting and source stay, since
 * changing them cancels the count and counts again (gpuhist_dialog_choice_changed). */
void
gpuhist_dialog_set_busy (GpuhistDialog *d, gboolean busy)
{
  gboolean measuring = busy && d->job == GPUHIST_JOB_MEASURE;

  gtk_widget_set_sensitive (d->repetitions, !busy);
  gtk_widget_set_sensitive (d->bins_combo, !busy || measuring);
  gtk_widget_set_sensitive (d->weighting_combo, !busy || measuring);
  gtk_widget_set_sensitive (d->source_combo, !busy || measuring);
  gtk_widget_set_sensitive (d->rerun_button, !busy);
  gtk_widget_set_sensitive (d->compare_button, !busy && d->params.report->layer.channels > 0);
  gtk_widget_set_sensitive (d->export_button, !busy);
  gtk_widget_set_sensitive (d->copy_button, !busy);
  gtk_widget_set_sensitive (d->cancel_button, busy);
  if (!busy)
    gtk_widget_hide (d->progress_box);
}

gboolean
gpuhist_dialog_image_open (GpuhistDialog *d)
{
  return d->params.source_exists == NULL || d->params.source_exists (d->params.source_exists_data);
}

/* The fetcher's question between slices: a closed image's drawables are gone. */
static gboolean
still_there (gpointer data)
{
  return gpuhist_dialog_image_open (data);
}

/* The source a count reads, from the glue (a copy GIMP makes), and its fetcher; FALSE with the
 * reason in the status line when there is none. */
static gboolean
open_job_source (GpuhistDialog *d)
{
  GError *error = NULL;
  gchar *message;

  d->job_source = d->params.source;
  if (d->params.open_source != NULL)
    d->job_source
        = d->params.open_source (d->params.settings->source, d->params.open_source_data, &error);
  if (d->job_source != NULL)
    d->fetch = gpuhist_strip_fetch_new (d->job_source, d->params.settings, d->cancellable,
                                        still_there, d, &error);
  if (d->fetch != NULL)
    return TRUE;
  if (d->job_source != NULL && d->params.close_source != NULL)
    d->params.close_source (d->params.open_source_data);
  d->job_source = NULL;
  message = g_strdup_printf (_ ("That failed: %s"),
                             error != NULL ? error->message : _ ("unknown error"));
  gpuhist_dialog_set_status (d, message);
  g_free (message);
  g_clear_error (&error);
  return FALSE;
}

static void
close_job_source (GpuhistDialog *d)
{
  if (d->fetch != NULL)
    d->fetch_times = gpuhist_strip_fetch_times (d->fetch);
  g_clear_pointer (&d->fetch, gpuhist_strip_fetch_free);
  if (d->job_source != NULL && d->params.close_source != NULL)
    d->params.close_source (d->params.open_source_data);
  d->job_source = NULL;
}

static void
start_job (GpuhistDialog *d, GpuhistJobKind job)
{
  GTask *task;

  if (d->job != GPUHIST_JOB_NONE)
    return;
  gpuhist_dialog_save_settings (d);
  d->cancellable = g_cancellable_new ();
  d->open_us = g_get_monotonic_time ();
  if (job == GPUHIST_JOB_MEASURE && !open_job_source (d))
    {
      g_clear_object (&d->cancellable);
      return;
    }
  d->open_us = g_get_monotonic_time () - d->open_us;
  d->job = job;
  d->job_settings = *d->params.settings;
  d->job_settings.output_file = NULL; /* the glue writes the output file, not a re-run */
  /* Following wants the histogram soon: once with the fastest kernel, untimed (the timing table
   * says so); Re-run times the kernels as the repetitions ask. */
  if (d->job_automatic)
    d->job_settings.repetitions = 0;
  if (job == GPUHIST_JOB_MEASURE)
    gpuhist_dialog_ask_for_scopes (&d->job_settings, d->job_source);
  gpuhist_dialog_drop_held (d);
  memset (&d->job_report, 0, sizeof d->job_report);
  d->job_ok = FALSE;
  g_clear_error (&d->job_error);
  g_atomic_int_set (&d->progress_permille, job == GPUHIST_JOB_MEASURE ? 0 : -1);

  if (job == GPUHIST_JOB_COMPARE)
    {
      /* The patterns replace the rows of an earlier comparison. */
      gpuhist_report_reset_comparison (d->params.report);
      gpuhist_dialog_fill_compare (d);
    }

  gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (d->progress), 0.0);
  gtk_progress_bar_set_text (GTK_PROGRESS_BAR (d->progress),
                             job == GPUHIST_JOB_MEASURE
                                 ? _ ("Measuring the layer again…")
                                 : _ ("Counting a flat and a noise image of the layer's size…"));
  gpuhist_dialog_set_status (d, NULL);
  gpuhist_dialog_set_busy (d, TRUE);

  d->job_started_us = g_get_monotonic_time ();
  gpuhist_dialog_bench_job_started (d);
  task = g_task_new (NULL, d->cancellable, job_finished, d);
  g_task_set_task_data (task, d, NULL);
  g_task_run_in_thread (task, worker);
  g_object_unref (task);
  d->progress_source = g_timeout_add (PROGRESS_INTERVAL_MS, progress_tick, d);
}

/* The job's report replaces the dialog's only when it is whole. */
static void
take_job_report (GpuhistDialog *d, GpuhistJobKind job, gboolean cancelled)
{
  if (job == GPUHIST_JOB_MEASURE)
    {
      if (d->job_ok && !cancelled)
        {
          gpuhist_report_clear (d->params.report);
          *d->params.report = d->job_report;
          memset (&d->job_report, 0, sizeof d->job_report);
        }
      else
        gpuhist_report_clear (&d->job_report);
    }
  else if (!d->job_ok || cancelled)
    gpuhist_report_reset_comparison (d->params.report); /* half a comparison is none */
}

static void
say_how_it_went (GpuhistDialog *d, GpuhistJobKind job, gboolean cancelled)
{
  gchar *message = NULL;

  if (cancelled)
    gpuhist_dialog_set_status (d, _ ("Cancelled: the tables show the last complete run."));
  else if (!d->job_ok)
    {
      message = g_strdup_printf (_ ("That failed: %s"), d->job_error != NULL ? d->job_error->message
                                                                             : _ ("unknown error"));
      gpuhist_dialog_set_status (d, message);
    }
  else if (job == GPUHIST_JOB_COMPARE)
    gpuhist_dialog_set_status (d, _ ("Compared: see the contention table."));
  else
    gpuhist_dialog_set_status (d, _ ("Measured again."));
  g_free (message);
}

/* The job's end on screen: its report when whole, the status line, and what comes next. */
static void
show_job (GpuhistDialog *d, GpuhistJobKind job, gboolean cancelled)
{
  take_job_report (d, job, cancelled);
  if (d->closing)
    return;
  gpuhist_dialog_update_all (d);
  gpuhist_dialog_set_busy (d, FALSE);
  if (gpuhist_dialog_bench_job_finished (d, d->job_ok && !cancelled))
    d->count_again = TRUE;
  if (!d->count_again)
    {
      gboolean stale = cancelled || !d->job_ok || gpuhist_dialog_follow_outdated (d);

      if (!d->count_again)
        {
          gpuhist_dialog_set_stale (d, stale);
          say_how_it_went (d, job, cancelled);
          if (!d->job_automatic)
            gtk_widget_grab_focus (d->rerun_button);
          return;
        }
    }
  d->count_again = FALSE;
  gpuhist_dialog_count (d, TRUE);
}

/* A count of following's that ended before its change's debounce: a whole one waits for the
 * debounce to show it (dialog-follow.c, settled), any other goes, and a change seen meanwhile
 * counts again at once. */
static void
defer_job (GpuhistDialog *d, gboolean cancelled)
{
  gpuhist_dialog_set_busy (d, FALSE);
  if (d->job_ok && !cancelled && !d->count_again)
    d->held = TRUE;
  else
    take_job_report (d, GPUHIST_JOB_MEASURE, TRUE);
  if (d->count_again)
    {
      d->count_again = FALSE;
      gpuhist_dialog_count (d, TRUE);
    }
}

static void
job_finished (GObject *source_object, GAsyncResult *result, gpointer data)
{
  GpuhistDialog *d = data;
  GpuhistJobKind job = d->job;
  gboolean cancelled = g_cancellable_is_cancelled (d->cancellable)
                       || g_error_matches (d->job_error, G_IO_ERROR, G_IO_ERROR_CANCELLED);

  (void) source_object;
  (void) result;
  close_job_source (d);
  g_clear_object (&d->cancellable);
  if (d->progress_source != 0)
    {
      g_source_remove (d->progress_source);
      d->progress_source = 0;
    }
  d->job = GPUHIST_JOB_NONE;
  if (!d->closing && job == GPUHIST_JOB_MEASURE && d->job_automatic
      && gpuhist_dialog_follow_settling (d))
    defer_job (d, cancelled);
  else
    show_job (d, job, cancelled);
  g_clear_error (&d->job_error);
}

gboolean
gpuhist_dialog_show_held (GpuhistDialog *d)
{
  if (!d->held)
    return FALSE;
  d->held = FALSE;
  show_job (d, GPUHIST_JOB_MEASURE, FALSE);
  return TRUE;
}

void
gpuhist_dialog_drop_held (GpuhistDialog *d)
{
  if (d->held)
    gpuhist_report_clear (&d->job_report);
  d->held = FALSE;
}

void
gpuhist_dialog_stop_job (GpuhistDialog *d)
{
  d->count_again = FALSE;
  if (d->job == GPUHIST_JOB_NONE)
    return;
  g_cancellable_cancel (d->cancellable);
  while (d->job != GPUHIST_JOB_NONE)
    g_main_context_iteration (NULL, TRUE);
}

void
gpuhist_dialog_cancel_clicked (GtkButton *button, gpointer data)
{
  GpuhistDialog *d = data;

  (void) button;
  d->count_again = FALSE;
  gpuhist_dialog_follow_forget_change (d);
  if (d->cancellable != NULL)
    g_cancellable_cancel (d->cancellable);
  gtk_widget_set_sensitive (d->cancel_button, FALSE);
  gtk_progress_bar_set_text (GTK_PROGRESS_BAR (d->progress), _ ("Cancelling…"));
}

void
gpuhist_dialog_count (GpuhistDialog *d, gboolean automatic)
{
  if (d->job != GPUHIST_JOB_NONE)
    {
      /* Stale already: count once this one has stopped (job_finished). */
      d->count_again = TRUE;
      g_cancellable_cancel (d->cancellable);
      return;
    }
  /* GIMP keeps the pixels of a closed image alive for us: measuring them again would look like
   * success.  Say what happened instead. */
  if (!gpuhist_dialog_image_open (d))
    {
      gpuhist_dialog_follow_stop (d);
      return;
    }
  gpuhist_dialog_set_stale (d, TRUE);
  d->job_automatic = automatic;
  start_job (d, GPUHIST_JOB_MEASURE);
}

void
gpuhist_dialog_rerun_clicked (GtkButton *button, gpointer data)
{
  (void) button;
  gpuhist_dialog_count (data, FALSE);
}

void
gpuhist_dialog_compare_clicked (GtkButton *button, gpointer data)
{
  GpuhistDialog *d = data;

  (void) button;
  d->job_automatic = FALSE;
  start_job (d, GPUHIST_JOB_COMPARE);
}
