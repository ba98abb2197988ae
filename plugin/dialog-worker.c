/* gpu-histogram: the dialog's worker thread.  See dialog-private.h.
 *
 * The main thread starts the worker and joins it in job_finished; while it runs, the controls
 * that read or change the report are insensitive. */
#include <string.h>

#include <glib/gi18n-lib.h>

#include "dialog-private.h"
#include "measure.h"
#include "report.h"

#define PROGRESS_INTERVAL_MS 100

static gboolean job_finished (gpointer data);

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

/* The source Re-run reads, from the glue when the user picked another than the last run's; FALSE
 * with the reason in the status line when there is none. */
static gboolean
pick_source (GpuhistDialog *d)
{
  GpuhistSourceKind kind = d->params.settings->source;
  const GpuhistSource *source;
  GError *error = NULL;
  gchar *message;

  if (d->params.open_source == NULL)
    return TRUE;
  source = d->params.open_source (kind, d->params.open_source_data, &error);
  if (source != NULL)
    {
      d->params.source = source;
      return TRUE;
    }
  message = g_strdup_printf (_ ("That failed: %s"),
                             error != NULL ? error->message : _ ("unknown error"));
  gpuhist_dialog_set_status (d, message);
  g_free (message);
  g_clear_error (&error);
  return FALSE;
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

  return g_atomic_int_get (&d->cancel) != 0;
}

static gpointer
worker (gpointer data)
{
  GpuhistDialog *d = data;

  if (d->job == GPUHIST_JOB_MEASURE)
    {
      GpuhistMonitor monitor = { monitor_progress, monitor_cancelled, d };

      d->job_ok = gpuhist_measure (d->params.engine, &d->job_source, &d->job_settings, &monitor,
                                   &d->job_report, &d->job_error);
    }
  else
    d->job_ok = gpuhist_compare_patterns (d->params.engine, &d->job_settings, d->params.report,
                                          &d->job_error);

  g_idle_add (job_finished, d);
  return NULL;
}

static gboolean
progress_tick (gpointer data)
{
  GpuhistDialog *d = data;
  gint permille = g_atomic_int_get (&d->progress_permille);

  if (permille < 0)
    gtk_progress_bar_pulse (GTK_PROGRESS_BAR (d->progress));
  else
    gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (d->progress), permille / 1000.0);
  return G_SOURCE_CONTINUE;
}

void
gpuhist_dialog_set_busy (GpuhistDialog *d, gboolean busy)
{
  gtk_widget_set_sensitive (d->repetitions, !busy);
  gtk_widget_set_sensitive (d->bins_combo, !busy);
  gtk_widget_set_sensitive (d->weighting_combo, !busy);
  gtk_widget_set_sensitive (d->source_combo, !busy);
  gtk_widget_set_sensitive (d->rerun_button, !busy);
  gtk_widget_set_sensitive (d->compare_button, !busy && d->params.report->layer.channels > 0);
  gtk_widget_set_sensitive (d->export_button, !busy);
  gtk_widget_set_sensitive (d->copy_button, !busy);
  gtk_widget_set_sensitive (d->cancel_button, busy);
  if (busy)
    gtk_widget_show (d->progress_box);
  else
    gtk_widget_hide (d->progress_box);
}

/* A buffer of `rect` of `buffer`, in its format, in the plug-in's memory (zero outside the
 * buffer's extent, as the selection's abyss reads). */
static GeglBuffer *
local_copy (GeglBuffer *buffer, const GeglRectangle *rect)
{
  GeglBuffer *copy = gegl_buffer_new (rect, gegl_buffer_get_format (buffer));

  gegl_buffer_copy (buffer, rect, GEGL_ABYSS_NONE, copy, rect);
  return copy;
}

/* The source for a Re-run's worker, its pixels and selection read here, on the main thread.
 * GIMP 2.10's resident plug-in is an extension: libgimp reads GIMP's wire in the main loop, so a
 * worker's tile requests had their answers taken from it ("unexpected tile message", then the
 * plug-in died; docs/RELIABILITY.md).  The first run's tiles were cached, which hid it until a
 * Re-run read tiles that were not: the visible image's, a second selection buffer, a large
 * layer's. */
static void
copy_job_source (GpuhistDialog *d)
{
  const GpuhistSource *source = d->params.source;
  GeglRectangle mask_rect = source->area;

  d->job_source = *source; /* the name and formats stay the source's */
  d->job_source.buffer = local_copy (source->buffer, &source->area);
  if (source->coverage_buffer != NULL)
    {
      mask_rect.x += source->coverage_dx;
      mask_rect.y += source->coverage_dy;
      d->job_source.coverage_buffer = local_copy (source->coverage_buffer, &mask_rect);
    }
}

static void
clear_job_source (GpuhistDialog *d)
{
  g_clear_object (&d->job_source.buffer);
  g_clear_object (&d->job_source.coverage_buffer);
  memset (&d->job_source, 0, sizeof d->job_source);
}

static void
start_job (GpuhistDialog *d, GpuhistJobKind job)
{
  GError *error = NULL;

  if (d->thread != NULL)
    return;

  gpuhist_dialog_save_settings (d);
  if (job == GPUHIST_JOB_MEASURE && !pick_source (d))
    return;
  if (job == GPUHIST_JOB_MEASURE)
    copy_job_source (d);
  d->job = job;
  d->job_settings = *d->params.settings;
  d->job_settings.output_file = NULL; /* the glue writes the output file, not a re-run */
  memset (&d->job_report, 0, sizeof d->job_report);
  d->job_ok = FALSE;
  g_clear_error (&d->job_error);
  g_atomic_int_set (&d->cancel, 0);
  g_atomic_int_set (&d->progress_permille, job == GPUHIST_JOB_MEASURE ? 0 : -1);

  if (job == GPUHIST_JOB_COMPARE)
    {
      /* The patterns replace the rows of an earlier comparison. */
      gh_result_clear (&d->params.report->flat);
      gh_result_clear (&d->params.report->noise);
      memset (&d->params.report->flat, 0, sizeof d->params.report->flat);
      memset (&d->params.report->noise, 0, sizeof d->params.report->noise);
      gpuhist_dialog_fill_compare (d);
    }

  gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (d->progress), 0.0);
  gtk_progress_bar_set_text (GTK_PROGRESS_BAR (d->progress),
                             job == GPUHIST_JOB_MEASURE
                                 ? _ ("Measuring the layer again…")
                                 : _ ("Counting a flat and a noise image of the layer's size…"));
  gpuhist_dialog_set_status (d, NULL);
  gpuhist_dialog_set_busy (d, TRUE);

  d->thread = g_thread_try_new ("gpuhist-worker", worker, d, &error);
  if (d->thread == NULL)
    {
      clear_job_source (d);
      gpuhist_dialog_set_busy (d, FALSE);
      gpuhist_dialog_set_status (d, error->message);
      g_clear_error (&error);
      return;
    }

  d->progress_source = g_timeout_add (PROGRESS_INTERVAL_MS, progress_tick, d);
  gtk_widget_grab_focus (d->cancel_button);
}

static gboolean
job_finished (gpointer data)
{
  GpuhistDialog *d = data;
  gboolean cancelled = g_atomic_int_get (&d->cancel) != 0
                       || g_error_matches (d->job_error, G_IO_ERROR, G_IO_ERROR_CANCELLED);

  g_thread_join (d->thread);
  d->thread = NULL;
  clear_job_source (d);
  if (d->progress_source != 0)
    {
      g_source_remove (d->progress_source);
      d->progress_source = 0;
    }

  if (d->job == GPUHIST_JOB_MEASURE)
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
    {
      /* Half a comparison is no comparison. */
      gh_result_clear (&d->params.report->flat);
      gh_result_clear (&d->params.report->noise);
      memset (&d->params.report->flat, 0, sizeof d->params.report->flat);
      memset (&d->params.report->noise, 0, sizeof d->params.report->noise);
    }

  d->job = GPUHIST_JOB_NONE;
  if (!d->closing)
    {
      gchar *message = NULL;

      gpuhist_dialog_update_all (d);
      gpuhist_dialog_set_busy (d, FALSE);
      if (cancelled)
        gpuhist_dialog_set_status (d, _ ("Cancelled: the tables show the last complete run."));
      else if (!d->job_ok)
        {
          message
              = g_strdup_printf (_ ("That failed: %s"), d->job_error != NULL ? d->job_error->message
                                                                             : _ ("unknown error"));
          gpuhist_dialog_set_status (d, message);
        }
      else
        gpuhist_dialog_set_status (d, d->params.report->flat.channels > 0
                                          ? _ ("Compared: see the contention table.")
                                          : _ ("Measured again."));
      g_free (message);
      gtk_widget_grab_focus (d->rerun_button);
    }
  g_clear_error (&d->job_error);

  return G_SOURCE_REMOVE;
}

void
gpuhist_dialog_cancel_clicked (GtkButton *button, gpointer data)
{
  GpuhistDialog *d = data;

  (void) button;
  g_atomic_int_set (&d->cancel, 1);
  gtk_widget_set_sensitive (d->cancel_button, FALSE);
  gtk_progress_bar_set_text (GTK_PROGRESS_BAR (d->progress), _ ("Cancelling…"));
}

void
gpuhist_dialog_rerun_clicked (GtkButton *button, gpointer data)
{
  GpuhistDialog *d = data;

  (void) button;
  /* GIMP keeps the pixels of a closed image alive for us: measuring them again would look like
   * success.  Say what happened instead. */
  if (d->params.source_exists != NULL && !d->params.source_exists (d->params.source_exists_data))
    {
      gpuhist_dialog_set_status (
          d, _ ("The image was closed: there is nothing to measure again.  The tables show "
                "the last run; export or copy them, or close the dialog."));
      return;
    }
  start_job (d, GPUHIST_JOB_MEASURE);
}

void
gpuhist_dialog_compare_clicked (GtkButton *button, gpointer data)
{
  (void) button;
  start_job (data, GPUHIST_JOB_COMPARE);
}
