/* gpu-histogram: what the histogram view's files share (not for use outside them).
 *
 *   histogram-view.c        the object, its data, the channels' colours and names, the bin text
 *   histogram-view-draw.c   drawing the plot with cairo
 *   histogram-view-input.c  the pointer and the keys: the marked bin and the selected range
 */
#ifndef GPUHIST_HISTOGRAM_VIEW_PRIVATE_H
#define GPUHIST_HISTOGRAM_VIEW_PRIVATE_H

#include "histogram-view.h"

G_BEGIN_DECLS

/* Room around the plot, in pixels: the bottom holds the level ticks. */
#define GPUHIST_VIEW_MARGIN 8
#define GPUHIST_VIEW_AXIS_HEIGHT 18

struct _GpuhistHistogramView
{
  GtkDrawingArea parent_instance;

  int channels;
  int bins;         /* per channel: 256 to GH_MAX_BINS, a power of two */
  uint64_t *counts; /* channels * bins */
  char channel_names[GPUHIST_VIEW_MAX_CHANNELS][16];
  gboolean visible[GPUHIST_VIEW_MAX_CHANNELS];
  gboolean logarithmic;
  int hover_bin;  /* under the pointer, or -1 */
  int pinned_bin; /* clicked or moved to with the keyboard, or -1 */
  /* The selected range, whole pixel columns of bins, or -1 and -1.  anchor_bin is where a drag
   * or a Shift+arrow extension started; dragging while button 1 is down, dragged once the
   * pointer left the column it was pressed in (a click without a drag selects that column). */
  int range_lo, range_hi;
  int anchor_bin;
  gboolean dragging;
  gboolean dragged;
};

typedef struct
{
  double x, y, width, height;
} GpuhistPlotArea;

/* histogram-view.c */
extern guint gpuhist_view_signals[];
enum
{
  GPUHIST_VIEW_BIN_CHANGED,
  GPUHIST_VIEW_RANGE_CHANGED,
  GPUHIST_VIEW_N_SIGNALS
};
void gpuhist_view_plot_area (GtkWidget *widget, GpuhistPlotArea *area);
int gpuhist_view_bins (const GpuhistHistogramView *view);
int gpuhist_view_bins_per_column (GtkWidget *widget);
int gpuhist_view_shown_bin (const GpuhistHistogramView *view);

/* histogram-view-draw.c */
gboolean gpuhist_view_draw (GtkWidget *widget, cairo_t *cr, gpointer unused);

/* histogram-view-input.c: connects the pointer, key and focus handlers. */
void gpuhist_view_connect_input (GtkWidget *widget);
/* Forgets the marked bin and the range, saying so when they change. */
void gpuhist_view_clear_marks (GpuhistHistogramView *view);

G_END_DECLS

#endif /* GPUHIST_HISTOGRAM_VIEW_PRIVATE_H */
