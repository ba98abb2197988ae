/* gpu-histogram: what the dialog polls to follow the image (dialog-follow.c).
 *
 * The same four calls in watch2.c (libgimp-2.0) and watch3.c (libgimp-3.0), which differ in
 * every libgimp call they make.  Handles are the version's own, as in flow.h: item IDs in 2.10,
 * objects in 3.0.  All on the main thread.
 *
 * The signature is what a poll compares with the last: the active drawable (which one, its size,
 * offsets, type and precision, a small thumbnail of it), the selection (its
 * bounds and a thumbnail of it) and, when the visible image is counted, the image's thumbnail.
 * A poll of an image that does not change costs GIMP a few PDB calls and a thumbnail's rendering.
 * A change too small to move a pixel of a thumbnail is missed: Re-run counts it.
 */
#ifndef GPUHIST_WATCH_H
#define GPUHIST_WATCH_H

#include <glib.h>

G_BEGIN_DECLS

/* The side of the thumbnails asked for, by the layer's (or image's) size.  GIMP renders a
 * thumbnail from the layer at the thumbnail's scale each time it is asked, and the smaller the
 * thumbnail of a large layer, the longer that takes in both GIMPs: a 32-pixel one of a 100 MP
 * 16-bit layer held the dialog up longer than a count's whole fetch slice.  A twentieth of the
 * layer's longest side was the quickest size of those tried on every layer measured
 * (docs/BENCHMARKS.md, "The dialog keeping up with the image"), and sees smaller changes. */
static inline gint
gpuhist_watch_thumbnail_side (gint width, gint height)
{
  return CLAMP (MAX (width, height) / 20, 64, 512);
}

gpointer gpuhist_watch_image_of (gpointer drawable);
gboolean gpuhist_watch_image_open (gpointer image);
/* The drawable the user works on in the image now (the first selected one); NULL for none. */
gpointer gpuhist_watch_active (gpointer image);
/* NULL once the image is closed. */
GBytes *gpuhist_watch_signature (gpointer image, gboolean visible);

/* For the two files' signatures: an int, in the machine's order (compared, never stored). */
static inline void
gpuhist_watch_append_int (GByteArray *signature, gint value)
{
  g_byte_array_append (signature, (const guint8 *) &value, sizeof value);
}

/* The selection's bounds, when there is a selection; returns non_empty. */
static inline gboolean
gpuhist_watch_append_bounds (GByteArray *signature, gboolean non_empty, gint x1, gint y1, gint x2,
                             gint y2)
{
  const gint bounds[] = { non_empty, x1, y1, x2, y2 };

  g_byte_array_append (signature, (const guint8 *) bounds,
                       non_empty ? sizeof bounds : sizeof bounds[0]);
  return non_empty;
}

G_END_DECLS

#endif /* GPUHIST_WATCH_H */
