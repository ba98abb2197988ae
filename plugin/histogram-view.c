/* gpu-histogram: the histogram view.  See histogram-view.h. */
#ifndef GETTEXT_PACKAGE
#define GETTEXT_PACKAGE "gpu-histogram"
#endif

#include <math.h>
#include <string.h>

#include <glib/gi18n-lib.h>
#include <gdk/gdkkeysyms.h>

#include "gtk-compat.h"
#include "histogram-view.h"

/* Room around the plot, in pixels: the bottom holds the level ticks. */
#define MARGIN 8
#define AXIS_HEIGHT 18

struct _GpuhistHistogramView
{
  GtkDrawingArea parent_instance;

  int channels;
  int bins;         /* per channel: 256 to GH_MAX_BINS, a power of two */
  uint64_t *counts; /* channels * bins */
  char channel_names[GH_MAX_CHANNELS][16];
  gboolean visible[GH_MAX_CHANNELS];
  gboolean logarithmic;
  int hover_bin;  /* under the pointer, or -1 */
  int pinned_bin; /* clicked or moved to with the keyboard, or -1 */
};

struct _GpuhistHistogramViewClass
{
  GtkDrawingAreaClass parent_class;
};

enum
{
  BIN_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_TYPE (GpuhistHistogramView, gpuhist_histogram_view, GTK_TYPE_DRAWING_AREA)

typedef struct
{
  double x, y, width, height;
} PlotArea;

static void
plot_area (GtkWidget *widget, PlotArea *area)
{
  GtkAllocation allocation;

  gtk_widget_get_allocation (widget, &allocation);
  area->x = MARGIN;
  area->y = MARGIN;
  area->width = MAX (allocation.width - 2 * MARGIN, 1);
  area->height = MAX (allocation.height - 2 * MARGIN - AXIS_HEIGHT, 1);
}

static int
view_bins (const GpuhistHistogramView *view)
{
  return view->bins > 0 ? view->bins : GH_BINS;
}

/* Bins drawn in one column of the plot: 1 while every bin has at least a pixel of its own, else
 * the smallest power of two that brings the columns down to the plot's width (bins are powers of
 * two, so every column covers the same whole number of bins). */
static int
bins_per_column (GtkWidget *widget)
{
  GpuhistHistogramView *view = GPUHIST_HISTOGRAM_VIEW (widget);
  PlotArea area;
  int bins = view_bins (view);
  int n = 1;

  plot_area (widget, &area);
  while (n < bins && bins / n > MAX ((int) area.width, 1))
    n *= 2;
  return n;
}

static int
bin_at (GtkWidget *widget, double x)
{
  GpuhistHistogramView *view = GPUHIST_HISTOGRAM_VIEW (widget);
  PlotArea area;
  int per_column = bins_per_column (widget);
  int columns = view_bins (view) / per_column;
  int column;

  plot_area (widget, &area);
  column = (int) floor ((x - area.x) * columns / area.width);
  return CLAMP (column, 0, columns - 1) * per_column;
}

static int
shown_bin (GpuhistHistogramView *view)
{
  return view->hover_bin >= 0 ? view->hover_bin : view->pinned_bin;
}

static void
set_bins (GpuhistHistogramView *view, int hover_bin, int pinned_bin)
{
  int before = shown_bin (view);

  view->hover_bin = hover_bin;
  view->pinned_bin = pinned_bin;
  if (shown_bin (view) != before)
    {
      gtk_widget_queue_draw (GTK_WIDGET (view));
      g_signal_emit (view, signals[BIN_CHANGED], 0, shown_bin (view));
    }
}

void
gpuhist_channel_color (const char *channel_name, double rgb[3])
{
  static const struct
  {
    const char *name;
    double rgb[3];
  } colors[] = {
    { "red", { 0.85, 0.10, 0.10 } },  { "green", { 0.05, 0.65, 0.10 } },
    { "blue", { 0.10, 0.25, 0.90 } }, { "alpha", { 0.55, 0.55, 0.55 } },
    { "gray", { 0.20, 0.20, 0.20 } }, { "grey", { 0.20, 0.20, 0.20 } },
  };
  size_t i;

  for (i = 0; i < G_N_ELEMENTS (colors); i++)
    if (channel_name != NULL && strcmp (channel_name, colors[i].name) == 0)
      {
        memcpy (rgb, colors[i].rgb, sizeof colors[i].rgb);
        return;
      }

  rgb[0] = rgb[1] = rgb[2] = 0.45;
}

const char *
gpuhist_channel_display_name (const char *channel_name)
{
  if (g_strcmp0 (channel_name, "red") == 0)
    return _ ("Red");
  if (g_strcmp0 (channel_name, "green") == 0)
    return _ ("Green");
  if (g_strcmp0 (channel_name, "blue") == 0)
    return _ ("Blue");
  if (g_strcmp0 (channel_name, "alpha") == 0)
    return _ ("Alpha");
  if (g_strcmp0 (channel_name, "gray") == 0 || g_strcmp0 (channel_name, "grey") == 0)
    return _ ("Gray");
  return channel_name != NULL ? channel_name : "";
}

/* Which channels are drawn first: alpha and gray, then unknown ones, then red, green, blue. */
static int
draw_rank (const char *channel_name)
{
  static const char *const names[] = { "red", "green", "blue" };
  int i;

  for (i = 0; i < 3; i++)
    if (strcmp (channel_name, names[i]) == 0)
      return 2 + i;
  if (strcmp (channel_name, "alpha") == 0 || strcmp (channel_name, "gray") == 0)
    return 0;
  return 1;
}

static double
scaled (const GpuhistHistogramView *view, uint64_t count, uint64_t max)
{
  if (max == 0)
    return 0.0;
  if (view->logarithmic)
    return MIN (log1p ((double) count) / log1p ((double) max), 1.0);
  return MIN ((double) count / (double) max, 1.0);
}

static void
draw_text (GtkWidget *widget, cairo_t *cr, const char *text, double x, double y, double align)
{
  PangoLayout *layout = gtk_widget_create_pango_layout (widget, text);
  int width, height;

  pango_layout_get_pixel_size (layout, &width, &height);
  cairo_move_to (cr, x - align * width, y);
  pango_cairo_show_layout (cr, layout);
  g_object_unref (layout);
}

/* The plot's geometry while drawing: columns of per_column bins, bin_width pixels wide. */
typedef struct
{
  PlotArea area;
  int bins;
  int per_column;
  int columns;
  double bin_width; /* of a column: one bin, or per_column bins drawn as their largest */
} Plot;

/* Quarter lines and level ticks: 0, 64, 128, 192, 255 at 256 bins. */
static void
draw_ticks (GtkWidget *widget, cairo_t *cr, const Plot *p)
{
  const int ticks[] = { 0, p->bins / 4, p->bins / 2, 3 * p->bins / 4, p->bins - 1 };

  cairo_set_line_width (cr, 1.0);
  for (int i = 0; i < (int) G_N_ELEMENTS (ticks); i++)
    {
      char label[16];
      double x = floor (p->area.x + (ticks[i] / p->per_column + 0.5) * p->bin_width) + 0.5;

      cairo_set_source_rgb (cr, 0.85, 0.85, 0.85);
      cairo_move_to (cr, x, p->area.y);
      cairo_line_to (cr, x, p->area.y + p->area.height + 3);
      cairo_stroke (cr);
      g_snprintf (label, sizeof label, "%d", ticks[i]);
      cairo_set_source_rgb (cr, 0.25, 0.25, 0.25);
      draw_text (widget, cr, label, x, p->area.y + p->area.height + 3,
                 i == 0 ? 0.0 : (i == (int) G_N_ELEMENTS (ticks) - 1 ? 1.0 : 0.5));
    }
}

/* The scale follows the visible colour channels: an opaque layer's alpha, all in one level,
 * would flatten them, so alpha only sets the scale when it is drawn alone, and is clipped. */
static uint64_t
scale_max (const GpuhistHistogramView *view, int bins)
{
  uint64_t max = 0;
  int c, i;

  for (c = 0; c < view->channels; c++)
    if (view->visible[c] && strcmp (view->channel_names[c], "alpha") != 0)
      for (i = 0; i < bins; i++)
        max = MAX (max, view->counts[(size_t) c * bins + i]);
  for (c = 0; max == 0 && c < view->channels; c++)
    if (view->visible[c])
      for (i = 0; i < bins; i++)
        max = MAX (max, view->counts[(size_t) c * bins + i]);
  return max;
}

/* One channel's outline, filled. */
static void
draw_channel (const GpuhistHistogramView *view, cairo_t *cr, const Plot *p, int c, uint64_t max)
{
  const uint64_t *counts = view->counts + (size_t) c * p->bins;
  double bottom = p->area.y + p->area.height;
  double rgb[3];

  gpuhist_channel_color (view->channel_names[c], rgb);
  cairo_new_path (cr);
  cairo_move_to (cr, p->area.x, bottom);
  for (int i = 0; i < p->columns; i++)
    {
      uint64_t count = counts[(size_t) i * p->per_column];
      double y;

      /* For display only: the largest bin of the column, so that spikes stay visible. */
      for (int k = 1; k < p->per_column; k++)
        count = MAX (count, counts[(size_t) i * p->per_column + k]);
      y = bottom - scaled (view, count, max) * p->area.height;

      cairo_line_to (cr, p->area.x + i * p->bin_width, y);
      cairo_line_to (cr, p->area.x + (i + 1) * p->bin_width, y);
    }
  cairo_line_to (cr, p->area.x + p->area.width, bottom);
  cairo_close_path (cr);
  cairo_set_source_rgba (cr, rgb[0], rgb[1], rgb[2], 0.30);
  cairo_fill_preserve (cr);
  cairo_set_source_rgb (cr, rgb[0], rgb[1], rgb[2]);
  cairo_set_line_width (cr, 1.5);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
  cairo_stroke (cr);
}

/* The marked (hovered or pinned) bin's column and its centre line. */
static void
draw_mark (cairo_t *cr, const Plot *p, int bin)
{
  double x = p->area.x + (bin / p->per_column) * p->bin_width;

  cairo_set_source_rgba (cr, 0.0, 0.0, 0.0, 0.12);
  cairo_rectangle (cr, x, p->area.y, MAX (p->bin_width, 1.0), p->area.height);
  cairo_fill (cr);
  cairo_set_source_rgba (cr, 0.0, 0.0, 0.0, 0.6);
  cairo_set_line_width (cr, 1.0);
  cairo_move_to (cr, floor (x + p->bin_width / 2) + 0.5, p->area.y);
  cairo_line_to (cr, floor (x + p->bin_width / 2) + 0.5, p->area.y + p->area.height);
  cairo_stroke (cr);
}

/* The frame of the plot, dashed while the view has the keyboard focus. */
static void
draw_frame (GtkWidget *widget, cairo_t *cr, const Plot *p)
{
  GtkAllocation allocation;

  gtk_widget_get_allocation (widget, &allocation);
  cairo_set_source_rgb (cr, 0.35, 0.35, 0.35);
  cairo_set_line_width (cr, 1.0);
  if (gtk_widget_has_focus (widget))
    {
      static const double dash[] = { 3.0, 2.0 };

      cairo_set_dash (cr, dash, G_N_ELEMENTS (dash), 0.0);
      cairo_rectangle (cr, 2.5, 2.5, allocation.width - 5, allocation.height - 5);
      cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0.0);
    }
  cairo_rectangle (cr, p->area.x - 0.5, p->area.y - 0.5, p->area.width + 1, p->area.height + 1);
  cairo_stroke (cr);
}

static gboolean
draw (GtkWidget *widget, cairo_t *cr, gpointer unused)
{
  GpuhistHistogramView *view = GPUHIST_HISTOGRAM_VIEW (widget);
  uint64_t max;
  Plot p;
  int bin;

  (void) unused;
  p.bins = view_bins (view);
  p.per_column = bins_per_column (widget);
  p.columns = p.bins / p.per_column;
  plot_area (widget, &p.area);
  p.bin_width = p.area.width / p.columns;

  /* The view paints its own light background, so that it reads the same in any theme. */
  cairo_set_source_rgb (cr, 0.93, 0.93, 0.93);
  cairo_paint (cr);
  cairo_set_source_rgb (cr, 1.0, 1.0, 1.0);
  cairo_rectangle (cr, p.area.x, p.area.y, p.area.width, p.area.height);
  cairo_fill (cr);
  draw_ticks (widget, cr, &p);

  max = scale_max (view, p.bins);
  if (view->channels == 0)
    {
      cairo_set_source_rgb (cr, 0.4, 0.4, 0.4);
      draw_text (widget, cr, _ ("No histogram"), p.area.x + p.area.width / 2,
                 p.area.y + p.area.height / 2 - 8, 0.5);
    }

  cairo_save (cr);
  cairo_rectangle (cr, p.area.x, p.area.y - 1, p.area.width, p.area.height + 1);
  cairo_clip (cr);
  /* Alpha and gray underneath, the colours on top. */
  for (int rank = 0; rank < 5; rank++)
    for (int c = 0; c < view->channels; c++)
      if (view->visible[c] && draw_rank (view->channel_names[c]) == rank)
        draw_channel (view, cr, &p, c, max);
  cairo_restore (cr);

  bin = shown_bin (view);
  if (bin >= 0 && view->channels > 0)
    draw_mark (cr, &p, bin);
  draw_frame (widget, cr, &p);
  return FALSE;
}

static gboolean
motion_notify (GtkWidget *widget, GdkEventMotion *event, gpointer unused)
{
  GpuhistHistogramView *view = GPUHIST_HISTOGRAM_VIEW (widget);

  (void) unused;
  set_bins (view, bin_at (widget, event->x), view->pinned_bin);
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

static gboolean
button_press (GtkWidget *widget, GdkEventButton *event, gpointer unused)
{
  GpuhistHistogramView *view = GPUHIST_HISTOGRAM_VIEW (widget);
  int bin;

  (void) unused;
  if (event->button != 1)
    return FALSE;

  gtk_widget_grab_focus (widget);
  bin = bin_at (widget, event->x);
  /* A second click on the marked bin lets go of it. */
  set_bins (view, view->hover_bin, view->pinned_bin == bin ? -1 : bin);
  return TRUE;
}

static gboolean
key_press (GtkWidget *widget, GdkEventKey *event, gpointer unused)
{
  GpuhistHistogramView *view = GPUHIST_HISTOGRAM_VIEW (widget);
  int bins = view_bins (view);
  int per_column = bins_per_column (widget);
  int bin = view->pinned_bin >= 0 ? view->pinned_bin : (bins / 2 - 1) / per_column * per_column;
  int step = ((event->state & GDK_SHIFT_MASK) ? 16 : 1) * per_column;

  (void) unused;
  switch (event->keyval)
    {
    case GDK_KEY_Left:
    case GDK_KEY_KP_Left: bin = view->pinned_bin >= 0 ? bin - step : bin; break;
    case GDK_KEY_Right:
    case GDK_KEY_KP_Right: bin = view->pinned_bin >= 0 ? bin + step : bin; break;
    case GDK_KEY_Home:
    case GDK_KEY_KP_Home: bin = 0; break;
    case GDK_KEY_End:
    case GDK_KEY_KP_End: bin = bins - 1; break;
    default: return FALSE;
    }

  /* The keyboard wins over a pointer left resting on the view. */
  set_bins (view, -1, CLAMP (bin, 0, bins - 1));
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

  (void) y;
  (void) unused;
  text = gpuhist_histogram_view_describe_bin (view, keyboard_mode ? view->pinned_bin
                                                                  : bin_at (widget, x));
  if (text == NULL)
    return FALSE;

  gtk_tooltip_set_text (tooltip, text);
  g_free (text);
  return TRUE;
}

static void
gpuhist_histogram_view_finalize (GObject *object)
{
  GpuhistHistogramView *view = GPUHIST_HISTOGRAM_VIEW (object);

  g_free (view->counts);
  G_OBJECT_CLASS (gpuhist_histogram_view_parent_class)->finalize (object);
}

static void
gpuhist_histogram_view_class_init (GpuhistHistogramViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = gpuhist_histogram_view_finalize;

  /* void bin_changed (GpuhistHistogramView *view, gint bin, gpointer user_data): bin is -1
   * when no bin is marked any more. */
  signals[BIN_CHANGED]
      = g_signal_new ("bin-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                      g_cclosure_marshal_VOID__INT, G_TYPE_NONE, 1, G_TYPE_INT);
}

static void
gpuhist_histogram_view_init (GpuhistHistogramView *view)
{
  GtkWidget *widget = GTK_WIDGET (view);
  int c;

  view->hover_bin = -1;
  view->pinned_bin = -1;
  for (c = 0; c < GH_MAX_CHANNELS; c++)
    view->visible[c] = TRUE;

  gtk_widget_set_can_focus (widget, TRUE);
  gtk_widget_set_has_tooltip (widget, TRUE);
  gtk_widget_add_events (widget, GDK_POINTER_MOTION_MASK | GDK_LEAVE_NOTIFY_MASK
                                     | GDK_BUTTON_PRESS_MASK | GDK_KEY_PRESS_MASK
                                     | GDK_FOCUS_CHANGE_MASK);
  gtk_widget_set_size_request (widget, 256 + 2 * MARGIN, 120);

  gpuhist_compat_connect_draw (widget, draw, NULL);
  g_signal_connect (widget, "motion-notify-event", G_CALLBACK (motion_notify), NULL);
  g_signal_connect (widget, "leave-notify-event", G_CALLBACK (leave_notify), NULL);
  g_signal_connect (widget, "button-press-event", G_CALLBACK (button_press), NULL);
  g_signal_connect (widget, "key-press-event", G_CALLBACK (key_press), NULL);
  g_signal_connect (widget, "focus-in-event", G_CALLBACK (focus_changed), NULL);
  g_signal_connect (widget, "focus-out-event", G_CALLBACK (focus_changed), NULL);
  g_signal_connect (widget, "size-allocate", G_CALLBACK (size_allocate), NULL);
  g_signal_connect (widget, "query-tooltip", G_CALLBACK (query_tooltip), NULL);
}

GtkWidget *
gpuhist_histogram_view_new (void)
{
  return g_object_new (GPUHIST_TYPE_HISTOGRAM_VIEW, NULL);
}

void
gpuhist_histogram_view_set_data (GpuhistHistogramView *view, const uint64_t *counts, int channels,
                                 int bins, const char *const *channel_names)
{
  int c;

  g_return_if_fail (GPUHIST_IS_HISTOGRAM_VIEW (view));

  if (bins <= 0)
    bins = GH_BINS;
  g_return_if_fail (bins <= GH_MAX_BINS && (bins & (bins - 1)) == 0);

  if (bins != view_bins (view))
    {
      /* A marked bin of the old count means nothing now. */
      view->hover_bin = -1;
      view->pinned_bin = -1;
    }
  view->bins = bins;
  g_clear_pointer (&view->counts, g_free);
  view->channels = 0;
  if (counts != NULL && channels > 0)
    {
      view->channels = MIN (channels, GH_MAX_CHANNELS);
      view->counts = g_memdup2 (counts, (gsize) view->channels * bins * sizeof *counts);
    }

  for (c = 0; c < GH_MAX_CHANNELS; c++)
    {
      const char *name = (channel_names != NULL && c < view->channels) ? channel_names[c] : NULL;

      g_strlcpy (view->channel_names[c], name != NULL ? name : "", sizeof view->channel_names[c]);
      view->visible[c] = TRUE;
    }

  gtk_widget_queue_draw (GTK_WIDGET (view));
  g_signal_emit (view, signals[BIN_CHANGED], 0, shown_bin (view));
}

void
gpuhist_histogram_view_set_logarithmic (GpuhistHistogramView *view, gboolean logarithmic)
{
  g_return_if_fail (GPUHIST_IS_HISTOGRAM_VIEW (view));

  view->logarithmic = logarithmic != FALSE;
  gtk_widget_queue_draw (GTK_WIDGET (view));
}

gboolean
gpuhist_histogram_view_get_logarithmic (GpuhistHistogramView *view)
{
  g_return_val_if_fail (GPUHIST_IS_HISTOGRAM_VIEW (view), FALSE);

  return view->logarithmic;
}

void
gpuhist_histogram_view_set_channel_visible (GpuhistHistogramView *view, int channel,
                                            gboolean visible)
{
  g_return_if_fail (GPUHIST_IS_HISTOGRAM_VIEW (view));
  g_return_if_fail (channel >= 0 && channel < GH_MAX_CHANNELS);

  view->visible[channel] = visible != FALSE;
  gtk_widget_queue_draw (GTK_WIDGET (view));
}

gboolean
gpuhist_histogram_view_get_channel_visible (GpuhistHistogramView *view, int channel)
{
  g_return_val_if_fail (GPUHIST_IS_HISTOGRAM_VIEW (view), FALSE);
  g_return_val_if_fail (channel >= 0 && channel < GH_MAX_CHANNELS, FALSE);

  return view->visible[channel];
}

int
gpuhist_histogram_view_get_bin (GpuhistHistogramView *view)
{
  g_return_val_if_fail (GPUHIST_IS_HISTOGRAM_VIEW (view), -1);

  return shown_bin (view);
}

gchar *
gpuhist_histogram_view_describe_bin (GpuhistHistogramView *view, int bin)
{
  GString *text;
  int bins;
  int per_column;
  int first;
  int c;

  g_return_val_if_fail (GPUHIST_IS_HISTOGRAM_VIEW (view), NULL);

  bins = view_bins (view);
  if (bin < 0 || bin >= bins || view->channels == 0)
    return NULL;

  per_column = bins_per_column (GTK_WIDGET (view));
  first = bin / per_column * per_column;
  text = g_string_new (NULL);
  if (per_column == 1)
    /* TRANSLATORS: the start of a line such as "Level 128: Red 1204, Green 17" */
    g_string_printf (text, _ ("Level %d:"), bin);
  else
    /* TRANSLATORS: the start of a line such as "Bins 4096–4111 of 65536: Red 1204, Green 17":
     * the bins one pixel column of the plot covers, and the samples in them */
    g_string_printf (text, _ ("Bins %d–%d of %d:"), first, first + per_column - 1, bins);
  for (c = 0; c < view->channels; c++)
    {
      gchar count[32];
      uint64_t sum = 0;

      /* The exact number of samples in the column's bins: the numbers are never aggregated
       * the way the plot is. */
      for (int k = 0; k < per_column; k++)
        sum += view->counts[(size_t) c * bins + first + k];
      g_snprintf (count, sizeof count, "%" G_GUINT64_FORMAT, sum);
      /* TRANSLATORS: a channel and its count in one bin, e.g. "Red 1204"; the first one */
      g_string_append_printf (text,
                              c == 0 ? _ (" %s %s")
                                     /* TRANSLATORS: the channels after the first */
                                     : _ (", %s %s"),
                              gpuhist_channel_display_name (view->channel_names[c]), count);
    }

  return g_string_free (text, FALSE);
}
