/* gpu-histogram: a widget that draws histograms of 256 to 65536 bins, one curve per channel in
 * the channel's colour, with cairo; the same code in GTK 2 and GTK 3 (see gtk-compat.h).
 *
 * When there are more bins than pixel columns, each column draws the LARGEST count of the bins
 * it covers (the maximum, not the sum, so that a lone busy level stays as tall as it is and the
 * curve keeps the height it has at 256 bins); this is for the eye only: the counts themselves are
 * never changed, and the hover text gives the column's bin range and the exact number of samples
 * in it.
 *
 * Hovering or clicking a bin marks it (the keyboard moves the mark with Left, Right, Page Up,
 * Page Down, Home and End once the view has focus, a pixel column at a time or 16); the
 * "bin-changed" signal then says which, and gpuhist_histogram_view_describe_bin gives its level
 * and counts as text.
 *
 * A range of bins is selected by dragging across the plot, or with Shift and those keys from
 * the marked bin; a click without a drag selects its one pixel column, as it marks it.  Escape,
 * a second click on the marked bin or a click outside the plot clears it.  It is shaded under
 * the curves, and "range-changed" says when it changes (gpuhist_histogram_view_get_range).
 * The drawing is in histogram-view-draw.c, the pointer and keys in histogram-view-input.c.
 */
#ifndef GPUHIST_HISTOGRAM_VIEW_H
#define GPUHIST_HISTOGRAM_VIEW_H

#include <stdint.h>
#include <gtk/gtk.h>

#include "gpuhist.h"

G_BEGIN_DECLS

/* A layer's channels, then value and luminance for RGB layers. */
#define GPUHIST_VIEW_MAX_CHANNELS (GH_MAX_CHANNELS + 2)

#define GPUHIST_TYPE_HISTOGRAM_VIEW (gpuhist_histogram_view_get_type ())
#define GPUHIST_HISTOGRAM_VIEW(obj)                                                                \
  (G_TYPE_CHECK_INSTANCE_CAST ((obj), GPUHIST_TYPE_HISTOGRAM_VIEW, GpuhistHistogramView))
#define GPUHIST_IS_HISTOGRAM_VIEW(obj)                                                             \
  (G_TYPE_CHECK_INSTANCE_TYPE ((obj), GPUHIST_TYPE_HISTOGRAM_VIEW))

typedef struct _GpuhistHistogramView GpuhistHistogramView;
typedef struct _GpuhistHistogramViewClass GpuhistHistogramViewClass;

GType gpuhist_histogram_view_get_type (void) G_GNUC_CONST;

GtkWidget *gpuhist_histogram_view_new (void);

/* Copies channels * bins counts, channel by channel, and the channel names ("red", "green",
 * "blue", "alpha", "gray", "value", "luminance").  bins is 256 to GH_MAX_BINS (0 means 256).  Every
 * channel starts visible.  counts NULL or channels 0 clears. */
void gpuhist_histogram_view_set_data (GpuhistHistogramView *view, const uint64_t *counts,
                                      int channels, int bins, const char *const *channel_names);

void gpuhist_histogram_view_set_logarithmic (GpuhistHistogramView *view, gboolean logarithmic);
gboolean gpuhist_histogram_view_get_logarithmic (GpuhistHistogramView *view);

void gpuhist_histogram_view_set_channel_visible (GpuhistHistogramView *view, int channel,
                                                 gboolean visible);
gboolean gpuhist_histogram_view_get_channel_visible (GpuhistHistogramView *view, int channel);

/* The marked bin (hovered, else clicked), or -1. */
int gpuhist_histogram_view_get_bin (GpuhistHistogramView *view);

/* The selected range, bins lo to hi (whole pixel columns of them); FALSE, both -1, when none is
 * selected. */
gboolean gpuhist_histogram_view_get_range (GpuhistHistogramView *view, int *lo, int *hi);

/* "Level 128: red 1204, green 17, blue 0", translated; where a pixel column covers several bins,
 * "Bins 4096–4111 of 65536: ..." with the samples in that range.  NULL for no bin.  Free with
 * g_free. */
gchar *gpuhist_histogram_view_describe_bin (GpuhistHistogramView *view, int bin);

/* Draws the view as it shows now (its size, curves, range and mark) with cr, whose origin is the
 * view's top-left corner: for saving the chart as a picture. */
void gpuhist_histogram_view_draw_on (GpuhistHistogramView *view, cairo_t *cr);

/* The colour a channel is drawn in, by its name; grey for names it does not know. */
void gpuhist_channel_color (const char *channel_name, double rgb[3]);

/* The channel's name for people: "Red", "Green", "Blue", "Alpha", "Gray", "Value",
 * "Luminance", translated. */
const char *gpuhist_channel_display_name (const char *channel_name);

G_END_DECLS

#endif /* GPUHIST_HISTOGRAM_VIEW_H */
