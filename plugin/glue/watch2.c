/* gpu-histogram: polling the image in GIMP 2.10 (libgimp-2.0).  See watch.h. */
#include <libgimp/gimp.h>

#include "watch.h"

static void
append_thumbnail (GByteArray *signature, guint8 *data, gint width, gint height, gint bpp)
{
  gpuhist_watch_append_int (signature, width);
  gpuhist_watch_append_int (signature, height);
  gpuhist_watch_append_int (signature, bpp);
  if (data != NULL && width > 0 && height > 0 && bpp > 0)
    g_byte_array_append (signature, data, (guint) (width * height * bpp));
  g_free (data);
}

static void
append_drawable (GByteArray *signature, gint32 drawable)
{
  const gint layer_width = gimp_drawable_width (drawable);
  const gint layer_height = gimp_drawable_height (drawable);
  gint width = gpuhist_watch_thumbnail_side (layer_width, layer_height), height = width, bpp = 0;
  gint x = 0, y = 0;
  guint8 *data;

  gimp_drawable_offsets (drawable, &x, &y);
  gpuhist_watch_append_int (signature, layer_width);
  gpuhist_watch_append_int (signature, layer_height);
  gpuhist_watch_append_int (signature, x);
  gpuhist_watch_append_int (signature, y);
  gpuhist_watch_append_int (signature, gimp_drawable_type (drawable));
  data = gimp_drawable_get_thumbnail_data (drawable, &width, &height, &bpp);
  append_thumbnail (signature, data, width, height, bpp);
}

gpointer
gpuhist_watch_image_of (gpointer drawable)
{
  return GINT_TO_POINTER (gimp_item_get_image (GPOINTER_TO_INT (drawable)));
}

gboolean
gpuhist_watch_image_open (gpointer image)
{
  return gimp_image_is_valid (GPOINTER_TO_INT (image));
}

gpointer
gpuhist_watch_active (gpointer image)
{
  gint32 drawable = gimp_image_get_active_drawable (GPOINTER_TO_INT (image));

  return drawable > 0 ? GINT_TO_POINTER (drawable) : NULL;
}

GBytes *
gpuhist_watch_signature (gpointer image_handle, gboolean visible)
{
  gint32 image = GPOINTER_TO_INT (image_handle);
  gint32 drawable;
  gboolean non_empty = FALSE;
  gint x1 = 0, y1 = 0, x2 = 0, y2 = 0;
  GByteArray *signature;

  if (!gimp_image_is_valid (image))
    return NULL;
  signature = g_byte_array_new ();
  drawable = gimp_image_get_active_drawable (image);
  gpuhist_watch_append_int (signature, drawable);
  gpuhist_watch_append_int (signature, gimp_image_get_precision (image));
  if (drawable > 0)
    append_drawable (signature, drawable);
  gimp_selection_bounds (image, &non_empty, &x1, &y1, &x2, &y2);
  if (gpuhist_watch_append_bounds (signature, non_empty, x1, y1, x2, y2))
    {
      append_drawable (signature, gimp_image_get_selection (image));
    }
  if (visible)
    {
      gint width
          = gpuhist_watch_thumbnail_side (gimp_image_width (image), gimp_image_height (image));
      gint height = width, bpp = 0;
      guint8 *data = gimp_image_get_thumbnail_data (image, &width, &height, &bpp);

      append_thumbnail (signature, data, width, height, bpp);
    }
  return g_byte_array_free_to_bytes (signature);
}
