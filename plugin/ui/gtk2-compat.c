/* gpu-histogram: gtk-compat.h for GTK 2 (GIMP 2.10). */
#include <libgimp/gimp.h>
#include <libgimp/gimpui.h>

#include "gtk-compat.h"

typedef struct
{
  GpuhistDrawFunc draw;
  gpointer user_data;
} DrawClosure;

static gboolean
expose_event (GtkWidget *widget, GdkEventExpose *event, gpointer data)
{
  DrawClosure *closure = data;
  GdkWindow *window = gtk_widget_get_window (widget);
  cairo_t *cr;
  gboolean handled;

  if (window == NULL)
    return FALSE;

  cr = gdk_cairo_create (window);
  gdk_cairo_region (cr, event->region);
  cairo_clip (cr);

  /* A widget without its own window draws in its parent's coordinates. */
  if (!gtk_widget_get_has_window (widget))
    {
      GtkAllocation allocation;

      gtk_widget_get_allocation (widget, &allocation);
      cairo_translate (cr, allocation.x, allocation.y);
    }

  handled = closure->draw (widget, cr, closure->user_data);
  cairo_destroy (cr);

  return handled;
}

static void
free_closure (gpointer data, GClosure *unused)
{
  (void) unused;
  g_free (data);
}

void
gpuhist_compat_connect_draw (GtkWidget *widget, GpuhistDrawFunc draw, gpointer user_data)
{
  DrawClosure *closure = g_new0 (DrawClosure, 1);

  closure->draw = draw;
  closure->user_data = user_data;
  g_signal_connect_data (widget, "expose-event", G_CALLBACK (expose_event), closure, free_closure,
                         0);
}

GtkWidget *
gpuhist_compat_box_new (GtkOrientation orientation, gint spacing)
{
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    return gtk_hbox_new (FALSE, spacing);

  return gtk_vbox_new (FALSE, spacing);
}

GtkWidget *
gpuhist_compat_progress_bar_new (void)
{
  /* GTK 2 shows the text whenever there is some. */
  return gtk_progress_bar_new ();
}

GtkWidget *
gpuhist_compat_scrolled_new (GtkWidget *child, GtkPolicyType sideways)
{
  GtkWidget *scrolled = gtk_scrolled_window_new (NULL, NULL);

  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled), sideways, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_add_with_viewport (GTK_SCROLLED_WINDOW (scrolled), child);
  gtk_viewport_set_shadow_type (GTK_VIEWPORT (gtk_bin_get_child (GTK_BIN (scrolled))),
                                GTK_SHADOW_NONE);
  return scrolled;
}

void
gpuhist_compat_natural_size (GtkWidget *widget, gint *width, gint *height)
{
  GtkRequisition requisition;

  gtk_widget_size_request (widget, &requisition);
  *width = requisition.width;
  *height = requisition.height;
}

void
gpuhist_compat_work_area (GdkRectangle *area)
{
  GdkScreen *screen;
  gint monitor = gimp_get_monitor_at_pointer (&screen);

  gdk_screen_get_monitor_geometry (screen, monitor, area);
}
