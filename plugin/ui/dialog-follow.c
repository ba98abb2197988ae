/* gpu-histogram: the dialog follows the image.  See dialog-private.h.
 *
 * A plug-in gets no signals from GIMP, so the dialog polls: every POLL_MS (or longer, when a poll
 * is costly: schedule_poll) it asks the glue for
 * the image's signature (watch.h: the active drawable, its size, offsets and type, small
 * thumbnails of it and of the selection, or of the image for the visible image) and compares it
 * with the last.  As GIMP's own Histogram dockable does (app/widgets/gimphistogrameditor.c), a
 * change restarts a DEBOUNCE_MS timer and the count starts when it fires, so that a stroke or a
 * drag counts once at its end; a change while a count runs cancels it and counts again.  The
 * dialog never changes the image: it reads copies that GIMP makes (dialog.h, open_source). */
#include <glib/gi18n-lib.h>

#include "dialog-private.h"

#define POLL_MS 500
#define DEBOUNCE_MS 200
/* A poll costs GIMP about as much CPU as it takes (it renders the thumbnails while the plug-in
 * waits): after a poll that saw nothing new, the next one comes at least COST_FACTOR times that
 * later, up to LONGEST_POLL_MS, so that polling stays near 1/COST_FACTOR of one core on a layer
 * whose thumbnail is slow to render (a 100 MP layer's took 52 ms in GIMP 2.10:
 * docs/BENCHMARKS.md).  A poll that saw a change is dearer (GIMP renders the new thumbnail) and
 * says nothing of the idle cost: the next one comes after POLL_MS. */
#define COST_FACTOR 150
#define LONGEST_POLL_MS 3000

static gboolean poll (gpointer data);

static void
schedule_poll (GpuhistDialog *d, gint64 cost_us)
{
  guint interval = (guint) CLAMP (cost_us * COST_FACTOR / 1000, POLL_MS, LONGEST_POLL_MS);

  d->poll_source = g_timeout_add (interval, poll, d);
}

void
gpuhist_dialog_set_stale (GpuhistDialog *d, gboolean stale)
{
  if (stale)
    gtk_widget_show (d->stale);
  else
    gtk_widget_hide (d->stale);
}

static gboolean
debounced (gpointer data)
{
  GpuhistDialog *d = data;

  d->debounce_source = 0;
  gpuhist_dialog_count (d, TRUE);
  return G_SOURCE_REMOVE;
}

/* A change: the tables are out of date from now on, and counted again DEBOUNCE_MS after the last
 * change. */
static void
changed (GpuhistDialog *d)
{
  gpuhist_dialog_set_stale (d, TRUE);
  if (d->debounce_source != 0)
    g_source_remove (d->debounce_source);
  d->debounce_source = g_timeout_add (DEBOUNCE_MS, debounced, d);
}

static GBytes *
signature (GpuhistDialog *d)
{
  return d->params.signature (d->params.settings->source, d->params.signature_data);
}

/* Compares a poll's signature (taken) with the last one; a change is kept and acted on.
 * Returns whether the image changed. */
static gboolean
note_signature (GpuhistDialog *d, GBytes *now)
{
  if (d->seen != NULL && g_bytes_equal (now, d->seen))
    {
      g_bytes_unref (now);
      return FALSE;
    }
  g_clear_pointer (&d->seen, g_bytes_unref);
  d->seen = now;
  gpuhist_dialog_bench_change_seen ();
  changed (d);
  return TRUE;
}

static gboolean
poll (gpointer data)
{
  GpuhistDialog *d = data;
  gint64 start = g_get_monotonic_time ();
  GBytes *now = signature (d);
  gint64 cost = g_get_monotonic_time () - start;

  d->poll_max_us = MAX (d->poll_max_us, cost);
  d->poll_source = 0;
  if (now == NULL)
    {
      gpuhist_dialog_follow_stop (d);
      return G_SOURCE_REMOVE;
    }
  if (note_signature (d, now))
    cost = 0;
  schedule_poll (d, cost);
  return G_SOURCE_REMOVE;
}

/* An edit made after a count's copy and before the count ended would show the count of before
 * it as current until the next poll, up to POLL_MS later: look once more now. */
gboolean
gpuhist_dialog_follow_outdated (GpuhistDialog *d)
{
  GBytes *now;

  if (d->debounce_source != 0)
    return TRUE;
  if (d->poll_source == 0 || d->seen == NULL || (now = signature (d)) == NULL)
    return FALSE; /* not following, or the image is gone: the next poll says so */
  return note_signature (d, now);
}

void
gpuhist_dialog_follow_start (GpuhistDialog *d)
{
  if (d->params.signature == NULL || d->poll_source != 0 || d->image_gone
      || !gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (d->follow_toggle)))
    return;
  g_clear_pointer (&d->seen, g_bytes_unref);
  d->seen = signature (d); /* what the shown counts were taken from */
  schedule_poll (d, 0);
}

/* Stops polling; when the image is gone, says so once and for all. */
void
gpuhist_dialog_follow_stop (GpuhistDialog *d)
{
  if (d->poll_source != 0)
    g_source_remove (d->poll_source);
  if (d->debounce_source != 0)
    g_source_remove (d->debounce_source);
  d->poll_source = d->debounce_source = 0;
  g_clear_pointer (&d->seen, g_bytes_unref);
  if (d->closing || d->image_gone || gpuhist_dialog_image_open (d))
    return;
  d->image_gone = TRUE;
  gtk_widget_set_sensitive (d->follow_toggle, FALSE);
  gpuhist_dialog_set_status (
      d, _ ("The image was closed: the dialog no longer follows it.  The tables show the last "
            "run; export or copy them, or close the dialog."));
}

void
gpuhist_dialog_follow_toggled (GtkToggleButton *toggle, gpointer data)
{
  GpuhistDialog *d = data;

  d->params.settings->follow = gtk_toggle_button_get_active (toggle);
  if (!d->params.settings->follow)
    {
      gpuhist_dialog_follow_stop (d);
      return;
    }
  gpuhist_dialog_follow_start (d);
  changed (d); /* what changed while it was off is counted now */
}

void
gpuhist_dialog_choice_changed (GtkComboBox *combo, gpointer data)
{
  GpuhistDialog *d = data;

  (void) combo;
  if (d->job == GPUHIST_JOB_MEASURE)
    gpuhist_dialog_count (d, TRUE);
  else if (d->poll_source != 0)
    {
      /* Another source has another signature: compare from the next poll on. */
      g_clear_pointer (&d->seen, g_bytes_unref);
      d->seen = signature (d);
      changed (d);
    }
}
