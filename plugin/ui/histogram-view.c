/* gpu-histogram: the histogram view.  See histogram-view.h. */
#ifndef GETTEXT_PACKAGE
#define GETTEXT_PACKAGE "gpu-histogram"
#endif

#include <math.h>
#include <string.h>

#include <glib/gi18n-lib.h>
#include "gtk-compat.h"
#include "histogram-view-private.h"

guint gpuhist_view_signals[GPUHIST_VIEW_N_SIGNALS];

struct _GpuhistHistogramViewClass
{
  GtkDrawingAreaClass parent_class;
};

G_DEFINE_TYPE (GpuhistHistogramView, gpuhist_histogram_view, GTK_TYPE_DRAWING_AREA)

void
gpuhist_view_plot_area (GtkWidget *widget, GpuhistPlotArea *area)
{
  GtkAllocation allocation;

  gtk_widget_get_allocation (widget, &allocation);
  area->x = GPUHIST_VIEW_MARGIN;
  area->y = GPUHIST_VIEW_MARGIN;
  area->width = MAX (allocation.width - 2 * GPUHIST_VIEW_MARGIN, 1);
  area->height = MAX (allocation.height - 2 * GPUHIST_VIEW_MARGIN - GPUHIST_VIEW_AXIS_HEIGHT, 1);
}

int
gpuhist_view_bins (const GpuhistHistogramView *view)
{
  return view->bins > 0 ? view->bins : GH_BINS;
}

/* Bins drawn in one column of the plot: 1 while every bin has at least a pixel of its own, else
 * the smallest power of two that brings the columns down to the plot's width (bins are powers of
 * two, so every column covers the same whole number of bins). */
int
gpuhist_view_bins_per_column (GtkWidget *widget)
{
  GpuhistHistogramView *view = GPUHIST_HISTOGRAM_VIEW (widget);
  GpuhistPlotArea area;
  int bins = gpuhist_view_bins (view);
  int n = 1;

  gpuhist_view_plot_area (widget, &area);
  while (n < bins && bins / n > MAX ((int) area.width, 1))
    n *= 2;
  return n;
}

int
gpuhist_view_shown_bin (const GpuhistHistogramView *view)
{
  return view->hover_bin >= 0 ? view->hover_bin : view->pinned_bin;
}

void
gpuhist_channel_color (const char *channel_name, double rgb[3])
{
  static const struct
  {
    const char *name;
    double rgb[3];
  } colors[] = {
    { "red", { 0.85, 0.10, 0.10 } },
    { "green", { 0.05, 0.65, 0.10 } },
    { "blue", { 0.10, 0.25, 0.90 } },
    { "alpha", { 0.55, 0.55, 0.55 } },
    { "gray", { 0.20, 0.20, 0.20 } },
    { "grey", { 0.20, 0.20, 0.20 } },
    /* Value and luminance come only with red, green and blue: hues of their own, purple and
     * amber, far from those three (and from the range's pale yellow shading) in every
     * component that tells them apart; luminance is drawn last, on top. */
    { "value", { 0.60, 0.20, 0.75 } },
    { "luminance", { 0.95, 0.62, 0.00 } },
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
  if (g_strcmp0 (channel_name, "value") == 0)
    return _ ("Value");
  if (g_strcmp0 (channel_name, "luminance") == 0)
    return _ ("Luminance");
  return channel_name != NULL ? channel_name : "";
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
  gpuhist_view_signals[GPUHIST_VIEW_BIN_CHANGED]
      = g_signal_new ("bin-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                      g_cclosure_marshal_VOID__INT, G_TYPE_NONE, 1, G_TYPE_INT);
  /* void range_changed (GpuhistHistogramView *view, gpointer user_data): the selected range
   * changed or was cleared (gpuhist_histogram_view_get_range). */
  gpuhist_view_signals[GPUHIST_VIEW_RANGE_CHANGED]
      = g_signal_new ("range-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                      g_cclosure_marshal_VOID__VOID, G_TYPE_NONE, 0);
}

static void
gpuhist_histogram_view_init (GpuhistHistogramView *view)
{
  GtkWidget *widget = GTK_WIDGET (view);
  int c;

  view->hover_bin = -1;
  view->pinned_bin = -1;
  view->range_lo = view->range_hi = -1;
  view->anchor_bin = -1;
  for (c = 0; c < GPUHIST_VIEW_MAX_CHANNELS; c++)
    view->visible[c] = TRUE;

  gtk_widget_set_size_request (widget, 256 + 2 * GPUHIST_VIEW_MARGIN, 120);
  gpuhist_compat_connect_draw (widget, gpuhist_view_draw, NULL);
  gpuhist_view_connect_input (widget);
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

  /* A marked bin or range of the old count means nothing now; of the same count it still
   * does (a re-run of the same layer). */
  if (bins != gpuhist_view_bins (view))
    {
      view->hover_bin = -1;
      gpuhist_view_clear_marks (view);
    }
  view->bins = bins;
  g_clear_pointer (&view->counts, g_free);
  view->channels = 0;
  if (counts != NULL && channels > 0)
    {
      view->channels = MIN (channels, GPUHIST_VIEW_MAX_CHANNELS);
      view->counts = g_memdup2 (counts, (gsize) view->channels * bins * sizeof *counts);
    }

  for (c = 0; c < GPUHIST_VIEW_MAX_CHANNELS; c++)
    {
      const char *name = (channel_names != NULL && c < view->channels) ? channel_names[c] : NULL;

      g_strlcpy (view->channel_names[c], name != NULL ? name : "", sizeof view->channel_names[c]);
      view->visible[c] = TRUE;
    }

  gtk_widget_queue_draw (GTK_WIDGET (view));
  g_signal_emit (view, gpuhist_view_signals[GPUHIST_VIEW_BIN_CHANGED], 0,
                 gpuhist_view_shown_bin (view));
  g_signal_emit (view, gpuhist_view_signals[GPUHIST_VIEW_RANGE_CHANGED], 0);
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
  g_return_if_fail (channel >= 0 && channel < GPUHIST_VIEW_MAX_CHANNELS);

  view->visible[channel] = visible != FALSE;
  gtk_widget_queue_draw (GTK_WIDGET (view));
}

gboolean
gpuhist_histogram_view_get_channel_visible (GpuhistHistogramView *view, int channel)
{
  g_return_val_if_fail (GPUHIST_IS_HISTOGRAM_VIEW (view), FALSE);
  g_return_val_if_fail (channel >= 0 && channel < GPUHIST_VIEW_MAX_CHANNELS, FALSE);

  return view->visible[channel];
}

int
gpuhist_histogram_view_get_bin (GpuhistHistogramView *view)
{
  g_return_val_if_fail (GPUHIST_IS_HISTOGRAM_VIEW (view), -1);

  return gpuhist_view_shown_bin (view);
}

void
gpuhist_histogram_view_draw_on (GpuhistHistogramView *view, cairo_t *cr)
{
  g_return_if_fail (GPUHIST_IS_HISTOGRAM_VIEW (view));

  gpuhist_view_draw (GTK_WIDGET (view), cr, NULL);
}

gboolean
gpuhist_histogram_view_get_range (GpuhistHistogramView *view, int *lo, int *hi)
{
  g_return_val_if_fail (GPUHIST_IS_HISTOGRAM_VIEW (view), FALSE);

  *lo = view->range_lo;
  *hi = view->range_hi;
  return view->range_lo >= 0 && view->channels > 0;
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

  bins = gpuhist_view_bins (view);
  if (bin < 0 || bin >= bins || view->channels == 0)
    return NULL;

  per_column = gpuhist_view_bins_per_column (GTK_WIDGET (view));
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
