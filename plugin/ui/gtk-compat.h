/* gpu-histogram: the few GTK calls that differ between GTK 2 (GIMP 2.10) and GTK 3 (GIMP 3.0).
 *
 * Declared once here; gtk2-compat.c and gtk3-compat.c implement them, and meson compiles the one
 * that matches the GIMP it builds for.  No other file tests GTK's version.
 */
#ifndef GPUHIST_GTK_COMPAT_H
#define GPUHIST_GTK_COMPAT_H

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Draws a widget with cairo.  cr is set up in widget coordinates (origin at the widget's
 * top-left corner, clipped to what needs redrawing); return FALSE to let others draw too. */
typedef gboolean (*GpuhistDrawFunc) (GtkWidget *widget, cairo_t *cr, gpointer user_data);

/* Calls draw whenever the widget must be painted: the "draw" signal in GTK 3, "expose-event"
 * with gdk_cairo_create in GTK 2. */
void gpuhist_compat_connect_draw (GtkWidget *widget, GpuhistDrawFunc draw, gpointer user_data);

/* A horizontal or vertical box: gtk_box_new in GTK 3, gtk_hbox_new / gtk_vbox_new in GTK 2. */
GtkWidget *gpuhist_compat_box_new (GtkOrientation orientation, gint spacing);

/* A progress bar that shows its text. */
GtkWidget *gpuhist_compat_progress_bar_new (void);

/* A scrolled window around child (a widget that cannot scroll itself), scrolling up and down
 * when the child does not fit, and sideways by the policy given. */
GtkWidget *gpuhist_compat_scrolled_new (GtkWidget *child, GtkPolicyType sideways);

/* The size a shown widget asks for to show all of itself: its natural size in GTK 3, its
 * requisition in GTK 2. */
void gpuhist_compat_natural_size (GtkWidget *widget, gint *width, gint *height);

/* The part that windows may use of the monitor under the pointer, where GIMP opens its own
 * dialogs (GTK 2: the whole monitor). */
void gpuhist_compat_work_area (GdkRectangle *area);

G_END_DECLS

#endif /* GPUHIST_GTK_COMPAT_H */
