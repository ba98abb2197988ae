/* gpu-histogram: the charts the engine's renderer draws.  See chart-scope.h.
 *
 * The chart is drawn by gh_render_chart at the widget's own size, not scaled from its natural
 * size, so that every screen pixel sums whole cells (gpuhist.h) and the read-out can say exactly
 * which.  The drawing is kept until the size, the report or a control changes: the renderer
 * walks every cell, which is too slow to do on every expose. */
#include <math.h>

#include <glib/gi18n-lib.h>

#include "chart-scope.h"
#include "dialog-private.h"
#include "gtk-compat.h"
#include "report.h"

#define PAGE_KEY "gpuhist-scope-page"

typedef struct
{
  const GpuhistChart *chart;
  GpuhistDialog *d;
  GtkWidget *area;
  GtkWidget *log_toggle;
  GtkWidget *gain;
  GtkWidget *readout;
  cairo_surface_t *drawn; /* the chart at the last size; NULL when out of date */
  GtkAllocation place;    /* where the chart lies in the area */
} ScopePage;

static ScopePage *
page_of (GtkWidget *page)
{
  return g_object_get_data (G_OBJECT (page), PAGE_KEY);
}

static void
drop_drawing (ScopePage *sp)
{
  if (sp->drawn != NULL)
    cairo_surface_destroy (sp->drawn);
  sp->drawn = NULL;
}

/* The report or a control changed: draw again. */
static void
forget_drawing (ScopePage *sp)
{
  drop_drawing (sp);
  gtk_widget_queue_draw (sp->area);
}

static void
page_free (gpointer data)
{
  ScopePage *sp = data;

  drop_drawing (sp);
  g_free (sp);
}

/* The result's channels that the chart draws, as gh_render_options.channels has them: the
 * waveform the boxes' choice (none: GH_RENDER_NO_CHANNELS), the parade red, green and blue. */
static unsigned
drawn_channels (const ScopePage *sp)
{
  unsigned chosen;

  if (sp->chart->engine_chart == GH_CHART_PARADE)
    return 0x7u;
  if (sp->chart->engine_chart != GH_CHART_WAVEFORM)
    return 0u;
  chosen = gpuhist_dialog_chosen_channels (sp->d);
  return chosen != 0 ? chosen : GH_RENDER_NO_CHANNELS;
}

gchar *
gpuhist_scope_format_count (double pixels)
{
  if (pixels == floor (pixels) && pixels < 1e15)
    return g_strdup_printf ("%.0f", pixels);
  return g_strdup_printf ("%.2f", pixels);
}

/* Where the chart lies in an area of this size: all of it, but for the vectorscope, whose Cb
 * and Cr are alike, a centred square (so that hues keep their angles). */
static void
chart_place (const ScopePage *sp, const GtkAllocation *area, GtkAllocation *place)
{
  *place = (GtkAllocation){ 0, 0, MAX (area->width, 1), MAX (area->height, 1) };
  if (sp->chart->engine_chart == GH_CHART_VECTORSCOPE)
    {
      int side = MIN (place->width, place->height);

      place->x = (place->width - side) / 2;
      place->y = (place->height - side) / 2;
      place->width = place->height = side;
    }
}

static void
render_options (const ScopePage *sp, gh_render_options *options)
{
  gh_render_options_init (options);
  options->density = gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (sp->log_toggle))
                         ? GH_DENSITY_LOG
                         : GH_DENSITY_LINEAR;
  options->gain = gtk_spin_button_get_value (GTK_SPIN_BUTTON (sp->gain));
  options->channels = drawn_channels (sp);
}

/* The chart drawn width x height as an image surface; NULL with *error set when the report
 * cannot draw it. */
static cairo_surface_t *
render (const ScopePage *sp, int width, int height, GError **error)
{
  gh_render_options options;

  render_options (sp, &options);
  return gpuhist_chart_surface (&sp->d->params.report->layer, (gh_chart) sp->chart->engine_chart,
                                &options, width, height, error);
}

static gboolean
draw (GtkWidget *widget, cairo_t *cr, gpointer data)
{
  ScopePage *sp = data;
  GtkAllocation area, place;

  gtk_widget_get_allocation (widget, &area);
  chart_place (sp, &area, &place);
  if (place.width != sp->place.width || place.height != sp->place.height)
    drop_drawing (sp);
  sp->place = place;
  if (sp->drawn == NULL)
    sp->drawn = render (sp, place.width, place.height, NULL);
  /* Black around the vectorscope's square and where nothing can be drawn, as the chart's own
   * background. */
  cairo_set_source_rgb (cr, 0.0, 0.0, 0.0);
  cairo_paint (cr);
  if (sp->drawn != NULL)
    {
      cairo_set_source_surface (cr, sp->drawn, place.x, place.y);
      cairo_paint (cr);
    }
  return FALSE;
}

static void
say_nothing (ScopePage *sp)
{
  gtk_label_set_text (GTK_LABEL (sp->readout), _ ("Point at the chart to read its counts."));
}

static gboolean
motion (GtkWidget *widget, GdkEventMotion *event, gpointer data)
{
  ScopePage *sp = data;
  GpuhistChartSpot spot
      = { (int) floor (event->x) - sp->place.x, (int) floor (event->y) - sp->place.y,
          sp->place.width, sp->place.height };
  gchar *text = NULL;

  (void) widget;
  if (spot.x >= 0 && spot.y >= 0 && spot.x < spot.width && spot.y < spot.height)
    text = sp->chart->hover_text (sp->d->params.report, drawn_channels (sp), &spot);
  if (text == NULL)
    say_nothing (sp);
  else
    gtk_label_set_text (GTK_LABEL (sp->readout), text);
  g_free (text);
  return FALSE;
}

static gboolean
left (GtkWidget *widget, GdkEventCrossing *event, gpointer data)
{
  (void) widget;
  (void) event;
  say_nothing (data);
  return FALSE;
}

static void
control_changed (GtkWidget *control, gpointer data)
{
  (void) control;
  forget_drawing (data);
}

/* Logarithmic and Brightness: how the counts turn into light.  Brightness has no mnemonic:
 * with the channel boxes beside the charts every letter of it is taken in English (Tab from
 * Logarithmic reaches it). */
static GtkWidget *
build_controls (ScopePage *sp)
{
  GtkWidget *row = gpuhist_compat_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *label = gtk_label_new (_ ("Brightness:"));

  sp->log_toggle = gtk_check_button_new_with_mnemonic (_ ("_Logarithmic"));
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (sp->log_toggle), TRUE);
  gimp_help_set_help_data (sp->log_toggle,
                           _ ("Light a pixel by the logarithm of its count, so that sparse "
                              "levels and colours show next to busy ones"),
                           NULL);
  gtk_box_pack_start (GTK_BOX (row), sp->log_toggle, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (row), label, FALSE, FALSE, 0);
  sp->gain = gtk_spin_button_new_with_range (0.1, 16.0, 0.1);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (sp->gain), 1.0);
  gtk_label_set_mnemonic_widget (GTK_LABEL (label), sp->gain);
  gimp_help_set_help_data (sp->gain,
                           _ ("How bright the counts are drawn: at 1 the busiest point is white; "
                              "more shows sparse ones, clipping the busy ones"),
                           NULL);
  gtk_box_pack_start (GTK_BOX (row), sp->gain, FALSE, FALSE, 0);
  g_signal_connect (sp->log_toggle, "toggled", G_CALLBACK (control_changed), sp);
  g_signal_connect (sp->gain, "value-changed", G_CALLBACK (control_changed), sp);
  return row;
}

GtkWidget *
gpuhist_scope_page_new (const GpuhistChart *chart, GpuhistDialog *d)
{
  GtkWidget *page = gpuhist_compat_box_new (GTK_ORIENTATION_VERTICAL, 4);
  ScopePage *sp = g_new0 (ScopePage, 1);

  sp->chart = chart;
  sp->d = d;
  gtk_container_set_border_width (GTK_CONTAINER (page), 6);
  g_object_set_data_full (G_OBJECT (page), PAGE_KEY, sp, page_free);
  sp->area = gtk_drawing_area_new ();
  gtk_widget_set_size_request (sp->area, 320, 220);
  gtk_widget_add_events (sp->area, GDK_POINTER_MOTION_MASK | GDK_LEAVE_NOTIFY_MASK);
  atk_object_set_name (gtk_widget_get_accessible (sp->area), chart->name);
  atk_object_set_description (gtk_widget_get_accessible (sp->area), _ (chart->description));
  gpuhist_compat_connect_draw (sp->area, draw, sp);
  g_signal_connect (sp->area, "motion-notify-event", G_CALLBACK (motion), sp);
  g_signal_connect (sp->area, "leave-notify-event", G_CALLBACK (left), sp);
  gtk_box_pack_start (GTK_BOX (page), sp->area, TRUE, TRUE, 0);
  sp->readout = gtk_label_new (NULL);
  g_object_set (sp->readout, "xalign", 0.0, NULL);
  gtk_label_set_ellipsize (GTK_LABEL (sp->readout), PANGO_ELLIPSIZE_END);
  say_nothing (sp);
  gtk_box_pack_start (GTK_BOX (page), sp->readout, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (page), build_controls (sp), FALSE, FALSE, 0);
  return page;
}

void
gpuhist_scope_page_update (GtkWidget *page, GpuhistDialog *d)
{
  ScopePage *sp = page_of (page);

  (void) d;
  forget_drawing (sp);
  say_nothing (sp);
}

gboolean
gpuhist_scope_page_export_png (GtkWidget *page, const char *path, GError **error)
{
  ScopePage *sp = page_of (page);
  int width = sp->place.width, height = sp->place.height;
  gh_error gherr = { GH_OK, "" };
  cairo_surface_t *surface;
  gboolean ok;

  /* A chart never shown has no size of its own yet: its natural one. */
  if (sp->drawn == NULL && width <= 1 && height <= 1
      && gh_render_natural_size (&sp->d->params.report->layer, (gh_chart) sp->chart->engine_chart,
                                 &width, &height, &gherr)
             != GH_OK)
    width = height = 256;
  surface = render (sp, width, height, error);
  if (surface == NULL)
    return FALSE;
  ok = gpuhist_surface_write_png (surface, path, error);
  cairo_surface_destroy (surface);
  return ok;
}

void
gpuhist_scope_page_channels_changed (GtkWidget *page, GpuhistDialog *d)
{
  (void) d;
  forget_drawing (page_of (page));
}

gboolean
gpuhist_scope_page_export_csv (GtkWidget *page, const char *path, GError **error)
{
  ScopePage *sp = page_of (page);

  return gpuhist_report_write_scope_csv (
      sp->d->params.report,
      sp->chart->engine_chart == GH_CHART_VECTORSCOPE ? GH_SCOPE_VECTORSCOPE : GH_SCOPE_WAVEFORM,
      drawn_channels (sp), path, error);
}
