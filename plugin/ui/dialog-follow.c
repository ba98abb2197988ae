/* gpu-histogram: the dialog follows the image.  See dialog-private.h.
 *
 * A plug-in gets no signals from GIMP, so the dialog polls: every POLL_MS (or longer, when a poll
 * is costly: schedule_poll) it asks the glue for
 * the image's signature (watch.h: the active drawable, its size, offsets and type, small
 * thumbnails of it and of the selection, or of the image for the visible image) and compares it
 * with the last.  As GIMP's own Histogram dockable does (app/widgets/gimphistogrameditor.c), a
 * change is shown only once DEBOUNCE_MS have passed without another, so that a stroke or a drag
 * shows once at its end.  A plug-in sees a change only at a poll, when it may be up to POLL_MS
 * old, so the count starts at once, while the debounce runs (from the poll's start), and a
 * count that ends first is held until then (dialog-worker.c); the debounce ends with one more
 * look at the image: a change then cancels the count, and counting again waits for a quiet
 * DEBOUNCE_MS.  A change while a count runs cancels it and counts again.  The dialog never
 * changes the image: it reads copies that GIMP makes (dialog.h, open_source). */
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

static GBytes *
signature (GpuhistDialog *d)
{
  return d->params.signature (d->params.settings->source, d->params.signature_data);
}

/* Compares a poll's signature (taken) with the last one and keeps it.  Returns whether the
 * image changed. */
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
  return TRUE;
}

static gboolean settled (gpointer data);

/* The debounce: DEBOUNCE_MS from `since` (monotonic), when the image was last seen changed. */
static void
settle_from (GpuhistDialog *d, gint64 since)
{
  gint64 gone_ms = (g_get_monotonic_time () - since) / 1000;

  if (d->debounce_source != 0)
    g_source_remove (d->debounce_source);
  d->debounce_source
      = g_timeout_add ((guint) CLAMP (DEBOUNCE_MS - gone_ms, 0, DEBOUNCE_MS), settled, d);
}

/* The debounce's end: the image still as the count read it shows the count; a change since
 * drops it and waits for quiet again. */
static gboolean
settled (gpointer data)
{
  GpuhistDialog *d = data;
  gint64 start = g_get_monotonic_time ();
  GBytes *now = signature (d);

  d->debounce_source = 0;
  if (now == NULL)
    {
      gpuhist_dialog_follow_stop (d);
      return G_SOURCE_REMOVE;
    }
  if (note_signature (d, now))
    {
      gpuhist_dialog_drop_held (d);
      if (d->job == GPUHIST_JOB_MEASURE && d->job_automatic)
        {
          d->count_again = FALSE;
          g_cancellable_cancel (d->cancellable);
        }
      settle_from (d, start);
    }
  else if (!gpuhist_dialog_show_held (d) && d->job == GPUHIST_JOB_NONE)
    gpuhist_dialog_count (d, TRUE); /* after a change that cancelled the count */
  return G_SOURCE_REMOVE;
}

gboolean
gpuhist_dialog_follow_settling (GpuhistDialog *d)
{
  return d->debounce_source != 0;
}

void
gpuhist_dialog_follow_forget_change (GpuhistDialog *d)
{
  if (d->debounce_source != 0)
    g_source_remove (d->debounce_source);
  d->debounce_source = 0;
}

/* A change seen at `since`: the tables are out of date from now on, and what follows shows only
 * after the debounce. */
static void
noticed (GpuhistDialog *d, gint64 since)
{
  gpuhist_dialog_set_stale (d, TRUE);
  gpuhist_dialog_drop_held (d);
  settle_from (d, since);
}

/* ... and counted at once. */
static void
changed (GpuhistDialog *d, gint64 since)
{
  noticed (d, since);
  gpuhist_dialog_count (d, TRUE);
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
    {
      changed (d, start);
      cost = 0;
    }
  schedule_poll (d, cost);
  return G_SOURCE_REMOVE;
}

/* An edit made after a count's copy and before the count ended would show the count of before
 * it as current until the next poll, up to POLL_MS later: look once more now. */
gboolean
gpuhist_dialog_follow_outdated (GpuhistDialog *d)
{
  gint64 start = g_get_monotonic_time ();
  GBytes *now;

  if (d->debounce_source != 0)
    return TRUE;
  if (d->poll_source == 0 || d->seen == NULL || (now = signature (d)) == NULL)
    return FALSE; /* not following, or the image is gone: the next poll says so */
  if (!note_signature (d, now))
    return FALSE;
  noticed (d, start);
  d->count_again = TRUE;
  return TRUE;
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
  if (d->closing)
    gpuhist_dialog_drop_held (d);
  else
    gpuhist_dialog_show_held (d); /* a whole count, of the image as last seen */
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
  changed (d, g_get_monotonic_time ()); /* what changed while it was off is counted now */
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
      changed (d, g_get_monotonic_time ());
    }
}
