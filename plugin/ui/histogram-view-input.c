/* gpu-histogram: the histogram view's pointer and keys: the marked bin and the selected range.
 * See histogram-view.h for what the user can do. */
#include <math.h>

#include <gdk/gdkkeysyms.h>

#include "histogram-view-private.h"

/* Bins in a whole number of pixel columns: the first bin of x's column, or -1 outside the plot
 * (outside counts only where `outside` is asked for; else the nearest column). */
static int
bin_at (GtkWidget *widget, double x, double y, gboolean outside)
{
  GpuhistHistogramView *view = GPUHIST_HISTOGRAM_VIEW (widget);
  GpuhistPlotArea area;
  int per_column = gpuhist_view_bins_per_column (widget);
  int columns = gpuhist_view_bins (view) / per_column;
  int column;

  gpuhist_view_plot_area (widget, &area);
  if (outside
      && (x < area.x || x >= area.x + area.width || y < area.y || y >= area.y + area.height))
    return -1;
  column = (int) floor ((x - area.x) * columns / area.width);
  return CLAMP (column, 0, columns - 1) * per_column;
}

static void
set_bins (GpuhistHistogramView *view, int hover_bin, int pinned_bin)
{
  int before = gpuhist_view_shown_bin (view);

  view->hover_bin = hover_bin;
  view->pinned_bin = pinned_bin;
  if (gpuhist_view_shown_bin (view) != before)
    {
      gtk_widget_queue_draw (GTK_WIDGET (view));
      g_signal_emit (view, gpuhist_view_signals[GPUHIST_VIEW_BIN_CHANGED], 0,
                     gpuhist_view_shown_bin (view));
    }
}

/* The range from bin a's column to bin b's, either way round; -1 clears it. */
static void
set_range (GpuhistHistogramView *view, int a, int b)
{
  int per_column = gpuhist_view_bins_per_column (GTK_WIDGET (view));
  int lo = a < 0 || b < 0 ? -1 : MIN (a, b) / per_column * per_column;
  int hi = a < 0 || b < 0 ? -1 : (MAX (a, b) / per_column + 1) * per_column - 1;

  if (lo == view->range_lo && hi == view->range_hi)
    return;
  view->range_lo = lo;
  view->range_hi = hi;
  gtk_widget_queue_draw (GTK_WIDGET (view));
  g_signal_emit (view, gpuhist_view_signals[GPUHIST_VIEW_RANGE_CHANGED], 0);
}

void
gpuhist_view_clear_marks (GpuhistHistogramView *view)
{
  view->anchor_bin = -1;
  view->dragging = FALSE;
  set_range (view, -1, -1);
  set_bins (view, view->hover_bin, -1);
}

static gboolean
motion_notify (GtkWidget *widget, GdkEventMotion *event, gpointer unused)
{
  GpuhistHistogramView *view = GPUHIST_HISTOGRAM_VIEW (widget);
  int bin = bin_at (widget, event->x, event->y, FALSE);

  (void) unused;
  if (view->dragging && bin != view->anchor_bin)
    view->dragged = TRUE;
  if (view->dragging && view->dragged)
    {
      set_range (view, view->anchor_bin, bin);
      set_bins (view, bin, bin);
      return FALSE;
    }
  set_bins (view, bin, view->pinned_bin);
  return FALSE;
}

static gboolean
leave_notify (GtkWidget *widget, GdkEventCrossing *event, gpointer unused)
{
  GpuhistHistogramView *view = GPUHIST_HISTOGRAM_VIEW (widget);

  (void) event;
  (void) unused;
  set_bins (view, -1, view->pinned_bin);
  return FALSE;
}

/* A press in the plot starts a drag or a click; one outside it (the margins, the level ticks)
 * clears the range and the mark. */
static gboolean
button_press (GtkWidget *widget, GdkEventButton *event, gpointer unused)
{
  GpuhistHistogramView *view = GPUHIST_HISTOGRAM_VIEW (widget);
  int bin;

  (void) unused;
  if (event->button != 1 || event->type != GDK_BUTTON_PRESS)
    return FALSE;

  gtk_widget_grab_focus (widget);
  bin = bin_at (widget, event->x, event->y, TRUE);
  if (bin < 0)
    {
      gpuhist_view_clear_marks (view);
      return TRUE;
    }
  view->dragging = TRUE;
  view->dragged = FALSE;
  view->anchor_bin = bin;
  return TRUE;
}

/* The end of a click: that column is the range and the mark; a second click on the marked bin
 * lets go of both.  A drag has set the range already. */
static gboolean
button_release (GtkWidget *widget, GdkEventButton *event, gpointer unused)
{
  GpuhistHistogramView *view = GPUHIST_HISTOGRAM_VIEW (widget);
  int bin = view->anchor_bin;

  (void) unused;
  if (event->button != 1 || !view->dragging)
    return FALSE;
  view->dragging = FALSE;
  if (view->dragged)
    return TRUE;
  if (view->pinned_bin == bin)
    {
      gpuhist_view_clear_marks (view);
      return TRUE;
    }
  set_range (view, bin, bin);
  set_bins (view, view->hover_bin, bin);
  return TRUE;
}

/* Left and Right move the mark a pixel column, Page Up and Page Down 16 columns, Home and End
 * to the ends; the range follows the mark as one column, or with Shift held stretches from
 * where the mark was (the anchor) to where it goes.  Escape clears the range and the mark (and
 * is left to the dialog, which closes, when there is neither). */
static gboolean
key_press (GtkWidget *widget, GdkEventKey *event, gpointer unused)
{
  GpuhistHistogramView *view = GPUHIST_HISTOGRAM_VIEW (widget);
  int bins = gpuhist_view_bins (view);
  int per_column = gpuhist_view_bins_per_column (widget);
  gboolean extend = (event->state & GDK_SHIFT_MASK) != 0;
  int from = view->pinned_bin >= 0 ? view->pinned_bin : (bins / 2 - 1) / per_column * per_column;
  int moved = view->pinned_bin >= 0;
  int bin;

  (void) unused;
  switch (event->keyval)
    {
    case GDK_KEY_Left:
    case GDK_KEY_KP_Left: bin = from - moved * per_column; break;
    case GDK_KEY_Right:
    case GDK_KEY_KP_Right: bin = from + moved * per_column; break;
    case GDK_KEY_Page_Up:
    case GDK_KEY_KP_Page_Up: bin = from - moved * 16 * per_column; break;
    case GDK_KEY_Page_Down:
    case GDK_KEY_KP_Page_Down: bin = from + moved * 16 * per_column; break;
    case GDK_KEY_Home:
    case GDK_KEY_KP_Home: bin = 0; break;
    case GDK_KEY_End:
    case GDK_KEY_KP_End: bin = bins - 1; break;
    case GDK_KEY_Escape:
      if (view->range_lo < 0 && view->pinned_bin < 0)
        return FALSE;
      gpuhist_view_clear_marks (view);
      return TRUE;
    default: return FALSE;
    }

  bin = CLAMP (bin, 0, bins - 1);
  if (!extend || view->anchor_bin < 0)
    view->anchor_bin = from;
  if (!extend)
    view->anchor_bin = bin;
  set_range (view, view->anchor_bin, bin);
  /* The keyboard wins over a pointer left resting on the view. */
  set_bins (view, -1, bin);
  return TRUE;
}

static gboolean
focus_changed (GtkWidget *widget, GdkEventFocus *event, gpointer unused)
{
  (void) event;
  (void) unused;
  gtk_widget_queue_draw (widget);
  return FALSE;
}

static void
size_allocate (GtkWidget *widget, GtkAllocation *allocation, gpointer unused)
{
  (void) allocation;
  (void) unused;
  gtk_widget_queue_draw (widget);
}

static gboolean
query_tooltip (GtkWidget *widget, gint x, gint y, gboolean keyboard_mode, GtkTooltip *tooltip,
               gpointer unused)
{
  GpuhistHistogramView *view = GPUHIST_HISTOGRAM_VIEW (widget);
  gchar *text;

  (void) unused;
  text = gpuhist_histogram_view_describe_bin (view, keyboard_mode ? view->pinned_bin
                                                                  : bin_at (widget, x, y, FALSE));
  if (text == NULL)
    return FALSE;

  gtk_tooltip_set_text (tooltip, text);
  g_free (text);
  return TRUE;
}

void
gpuhist_view_connect_input (GtkWidget *widget)
{
  gtk_widget_set_can_focus (widget, TRUE);
  gtk_widget_set_has_tooltip (widget, TRUE);
  gtk_widget_add_events (widget, GDK_POINTER_MOTION_MASK | GDK_LEAVE_NOTIFY_MASK
                                     | GDK_BUTTON_PRESS_MASK | GDK_BUTTON_RELEASE_MASK
                                     | GDK_KEY_PRESS_MASK | GDK_FOCUS_CHANGE_MASK);
  g_signal_connect (widget, "motion-notify-event", G_CALLBACK (motion_notify), NULL);
  g_signal_connect (widget, "leave-notify-event", G_CALLBACK (leave_notify), NULL);
  g_signal_connect (widget, "button-press-event", G_CALLBACK (button_press), NULL);
  g_signal_connect (widget, "button-release-event", G_CALLBACK (button_release), NULL);
  g_signal_connect (widget, "key-press-event", G_CALLBACK (key_press), NULL);
  g_signal_connect (widget, "focus-in-event", G_CALLBACK (focus_changed), NULL);
  g_signal_connect (widget, "focus-out-event", G_CALLBACK (focus_changed), NULL);
  g_signal_connect (widget, "size-allocate", G_CALLBACK (size_allocate), NULL);
  g_signal_connect (widget, "query-tooltip", G_CALLBACK (query_tooltip), NULL);
}
