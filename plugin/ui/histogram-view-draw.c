/* gpu-histogram: drawing the histogram view.  See histogram-view-private.h. */
#ifndef GETTEXT_PACKAGE
#define GETTEXT_PACKAGE "gpu-histogram"
#endif

#include <math.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "histogram-view-private.h"

/* Which channels are drawn first: alpha and gray, then unknown ones, then red, green, blue,
 * value, and luminance last, on top of the others: it is the channel a photographer reads. */
static int
draw_rank (const char *channel_name)
{
  static const char *const names[] = { "red", "green", "blue", "value", "luminance" };
  int i;

  for (i = 0; i < (int) G_N_ELEMENTS (names); i++)
    if (strcmp (channel_name, names[i]) == 0)
      return 2 + i;
  if (strcmp (channel_name, "alpha") == 0 || strcmp (channel_name, "gray") == 0)
    return 0;
  return 1;
}

#define N_DRAW_RANKS 7

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
  GpuhistPlotArea area;
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

/* One channel's outline as a closed path along the plot's bottom. */
static void
trace_channel (const GpuhistHistogramView *view, cairo_t *cr, const Plot *p, int c, uint64_t max)
{
  const uint64_t *counts = view->counts + (size_t) c * p->bins;
  double bottom = p->area.y + p->area.height;

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
}

/* One channel, shaded (fill) or outlined (line) in its colour. */
static void
draw_channel (const GpuhistHistogramView *view, cairo_t *cr, const Plot *p, int c, uint64_t max,
              gboolean outline)
{
  double rgb[3];

  gpuhist_channel_color (view->channel_names[c], rgb);
  trace_channel (view, cr, p, c, max);
  if (!outline)
    {
      cairo_set_source_rgba (cr, rgb[0], rgb[1], rgb[2], 0.30);
      cairo_fill (cr);
      return;
    }
  cairo_set_source_rgb (cr, rgb[0], rgb[1], rgb[2]);
  cairo_set_line_width (cr, 1.5);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
  cairo_stroke (cr);
}

/* The selected range, shaded under the curves (so that their colours stay their own) and edged
 * on both sides. */
static void
draw_range (const GpuhistHistogramView *view, cairo_t *cr, const Plot *p)
{
  double left = p->area.x + (view->range_lo / p->per_column) * p->bin_width;
  double right = p->area.x + (view->range_hi / p->per_column + 1) * p->bin_width;

  cairo_set_source_rgba (cr, 0.95, 0.85, 0.35, 0.45);
  cairo_rectangle (cr, left, p->area.y, MAX (right - left, 1.0), p->area.height);
  cairo_fill (cr);
  cairo_set_source_rgba (cr, 0.55, 0.45, 0.05, 0.9);
  cairo_set_line_width (cr, 1.0);
  cairo_move_to (cr, floor (left) + 0.5, p->area.y);
  cairo_line_to (cr, floor (left) + 0.5, p->area.y + p->area.height);
  cairo_move_to (cr, floor (right) - 0.5, p->area.y);
  cairo_line_to (cr, floor (right) - 0.5, p->area.y + p->area.height);
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

/* The curves, clipped to the plot, in draw_rank's order: every shade first, then every outline,
 * so that no curve's line disappears under another channel's shade. */
static void
draw_curves (const GpuhistHistogramView *view, cairo_t *cr, const Plot *p)
{
  uint64_t max = scale_max (view, p->bins);

  cairo_save (cr);
  cairo_rectangle (cr, p->area.x, p->area.y - 1, p->area.width, p->area.height + 1);
  cairo_clip (cr);
  for (int outline = 0; outline <= 1; outline++)
    for (int rank = 0; rank < N_DRAW_RANKS; rank++)
      for (int c = 0; c < view->channels; c++)
        if (view->visible[c] && draw_rank (view->channel_names[c]) == rank)
          draw_channel (view, cr, p, c, max, outline);
  cairo_restore (cr);
}

gboolean
gpuhist_view_draw (GtkWidget *widget, cairo_t *cr, gpointer unused)
{
  GpuhistHistogramView *view = GPUHIST_HISTOGRAM_VIEW (widget);
  Plot p;
  int bin;

  (void) unused;
  p.bins = gpuhist_view_bins (view);
  p.per_column = gpuhist_view_bins_per_column (widget);
  p.columns = p.bins / p.per_column;
  gpuhist_view_plot_area (widget, &p.area);
  p.bin_width = p.area.width / p.columns;

  /* The view paints its own light background, so that it reads the same in any theme. */
  cairo_set_source_rgb (cr, 0.93, 0.93, 0.93);
  cairo_paint (cr);
  cairo_set_source_rgb (cr, 1.0, 1.0, 1.0);
  cairo_rectangle (cr, p.area.x, p.area.y, p.area.width, p.area.height);
  cairo_fill (cr);
  draw_ticks (widget, cr, &p);

  if (view->channels == 0)
    {
      cairo_set_source_rgb (cr, 0.4, 0.4, 0.4);
      draw_text (widget, cr, _ ("No histogram"), p.area.x + p.area.width / 2,
                 p.area.y + p.area.height / 2 - 8, 0.5);
    }
  if (view->range_lo >= 0 && view->channels > 0)
    draw_range (view, cr, &p);
  draw_curves (view, cr, &p);

  bin = gpuhist_view_shown_bin (view);
  if (bin >= 0 && view->channels > 0)
    draw_mark (cr, &p, bin);
  draw_frame (widget, cr, &p);
  return FALSE;
}
