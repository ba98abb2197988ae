/* gpu-histogram: polling the image in GIMP 3.0 (libgimp-3.0).  See watch.h. */
#include <libgimp/gimp.h>

#include "watch.h"

static void
append_thumbnail (GByteArray *signature, GBytes *data, gint width, gint height, gint bpp)
{
  gpuhist_watch_append_int (signature, width);
  gpuhist_watch_append_int (signature, height);
  gpuhist_watch_append_int (signature, bpp);
  if (data != NULL)
    {
      gsize size = 0;
      gconstpointer bytes = g_bytes_get_data (data, &size);

      g_byte_array_append (signature, bytes, (guint) size);
      g_bytes_unref (data);
    }
}

static void
append_drawable (GByteArray *signature, GimpDrawable *drawable)
{
  const gint layer_width = gimp_drawable_get_width (drawable);
  const gint layer_height = gimp_drawable_get_height (drawable);
  const gint side = gpuhist_watch_thumbnail_side (layer_width, layer_height);
  gint width = 0, height = 0, bpp = 0;
  gint x = 0, y = 0;
  GBytes *data;

  gimp_drawable_get_offsets (drawable, &x, &y);
  gpuhist_watch_append_int (signature, gimp_item_get_id (GIMP_ITEM (drawable)));
  gpuhist_watch_append_int (signature, layer_width);
  gpuhist_watch_append_int (signature, layer_height);
  gpuhist_watch_append_int (signature, x);
  gpuhist_watch_append_int (signature, y);
  gpuhist_watch_append_int (signature, gimp_drawable_type (drawable));
  data = gimp_drawable_get_thumbnail_data (drawable, side, side, &width, &height, &bpp);
  append_thumbnail (signature, data, width, height, bpp);
}

gpointer
gpuhist_watch_image_of (gpointer drawable)
{
  return gimp_item_get_image (GIMP_ITEM (drawable));
}

gboolean
gpuhist_watch_image_open (gpointer image)
{
  return gimp_image_is_valid (image);
}

gpointer
gpuhist_watch_active (gpointer image)
{
  GimpDrawable **drawables = gimp_image_get_selected_drawables (image);
  GimpDrawable *first = drawables != NULL ? drawables[0] : NULL;

  g_free (drawables); /* the objects are libgimp's */
  return first;
}

GBytes *
gpuhist_watch_signature (gpointer image, gboolean visible)
{
  GimpDrawable *drawable;
  gboolean non_empty = FALSE;
  gint x1 = 0, y1 = 0, x2 = 0, y2 = 0;
  GByteArray *signature;

  if (!gimp_image_is_valid (image))
    return NULL;
  signature = g_byte_array_new ();
  drawable = gpuhist_watch_active (image);
  gpuhist_watch_append_int (signature, gimp_image_get_precision (image));
  gpuhist_watch_append_int (signature, drawable != NULL);
  if (drawable != NULL)
    append_drawable (signature, drawable);
  gimp_selection_bounds (image, &non_empty, &x1, &y1, &x2, &y2);
  if (gpuhist_watch_append_bounds (signature, non_empty, x1, y1, x2, y2))
    {
      append_drawable (signature, GIMP_DRAWABLE (gimp_image_get_selection (image)));
    }
  if (visible)
    {
      gint width = gpuhist_watch_thumbnail_side (gimp_image_get_width (image),
                                                 gimp_image_get_height (image));
      gint height = width, bpp = 0;
      GBytes *data = gimp_image_get_thumbnail_data (image, &width, &height, &bpp);

      append_thumbnail (signature, data, width, height, bpp);
    }
  return g_byte_array_free_to_bytes (signature);
}
