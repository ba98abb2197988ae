/* gpu-histogram: gtk-compat.h for GTK 3 (GIMP 3.0). */
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
