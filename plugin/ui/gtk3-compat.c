/* gpu-histogram: gtk-compat.h for GTK 3 (GIMP 3.0). */
#include <libgimp/gimp.h>
#include <libgimp/gimpui.h>

#include "gtk-compat.h"

void
gpuhist_compat_connect_draw (GtkWidget *widget, GpuhistDrawFunc draw, gpointer user_data)
{
  /* The "draw" signal already has the GpuhistDrawFunc signature. */
  g_signal_connect (widget, "draw", G_CALLBACK (draw), user_data);
}

GtkWidget *
gpuhist_compat_box_new (GtkOrientation orientation, gint spacing)
{
  return gtk_box_new (orientation, spacing);
}

GtkWidget *
gpuhist_compat_progress_bar_new (void)
{
  GtkWidget *bar = gtk_progress_bar_new ();

  gtk_progress_bar_set_show_text (GTK_PROGRESS_BAR (bar), TRUE);
  return bar;
}

GtkWidget *
gpuhist_compat_scrolled_new (GtkWidget *child, GtkPolicyType sideways)
{
  GtkWidget *scrolled = gtk_scrolled_window_new (NULL, NULL);

  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled), sideways, GTK_POLICY_AUTOMATIC);
  gtk_container_add (GTK_CONTAINER (scrolled), child);
  return scrolled;
}

void
gpuhist_compat_natural_size (GtkWidget *widget, gint *width, gint *height)
{
  GtkRequisition natural;

  gtk_widget_get_preferred_size (widget, NULL, &natural);
  *width = natural.width;
  *height = natural.height;
}

void
gpuhist_compat_work_area (GdkRectangle *area)
{
  gdk_monitor_get_workarea (gimp_get_monitor_at_pointer (), area);
}
