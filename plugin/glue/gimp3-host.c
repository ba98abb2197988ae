/* gpu-histogram: the GpuhistHost table of what GIMP 3.0 does its own way (flow.h): items are
 * GimpDrawable, GimpImage and GimpChannel objects, passed through the table's gpointers. */
#include <libgimp/gimp.h>
#include <libgimp/gimpui.h>

#include <glib/gi18n-lib.h>

#include "glue3.h"
#include "host-common.h"
#include "texts.h"
#include "watch.h"

static gboolean
host_is_group (gpointer drawable)
{
  return gimp_item_is_group (GIMP_ITEM (drawable));
}

static gboolean
host_is_mask_or_channel (gpointer drawable)
{
  return gimp_item_is_channel (GIMP_ITEM (drawable))
         || gimp_item_is_layer_mask (GIMP_ITEM (drawable));
}

static gboolean
host_mask_intersect (gpointer drawable, GeglRectangle *area)
{
  return gimp_drawable_mask_intersect (drawable, &area->x, &area->y, &area->width, &area->height);
}

static gboolean
host_image_mask_bounds (gpointer drawable, GeglRectangle *area)
{
  GimpImage *image = gimp_item_get_image (GIMP_ITEM (drawable));
  gboolean non_empty = FALSE;
  gint x1, y1, x2, y2;

  if (!gimp_selection_bounds (image, &non_empty, &x1, &y1, &x2, &y2))
    return FALSE;
  *area = (GeglRectangle){ x1, y1, x2 - x1, y2 - y1 };
  return area->width > 0 && area->height > 0;
}

static GeglBuffer *
host_get_buffer (gpointer drawable)
{
  return gimp_drawable_get_buffer (drawable);
}

static GeglBuffer *
host_get_selection (gpointer drawable, int *offset_x, int *offset_y)
{
  GimpImage *image = gimp_item_get_image (GIMP_ITEM (drawable));

  if (gimp_selection_is_empty (image))
    return NULL;
  gimp_drawable_get_offsets (GIMP_DRAWABLE (drawable), offset_x, offset_y);
  return gimp_drawable_get_buffer (GIMP_DRAWABLE (gimp_image_get_selection (image)));
}

static gpointer
host_new_visible (gpointer drawable)
{
  GimpImage *image = gimp_item_get_image (GIMP_ITEM (drawable));
  GimpLayer **layers = gimp_image_get_layers (image);
  gboolean any = FALSE;

  for (gint i = 0; layers != NULL && layers[i] != NULL && !any; i++)
    any = gimp_item_get_visible (GIMP_ITEM (layers[i]));
  g_free (layers);
  if (!any)
    return NULL;
  /* Made in the image but never inserted: no undo step, nothing the user sees. */
  return gimp_layer_new_from_visible (image, image, "visible");
}

static void
host_delete_copy (gpointer layer)
{
  gimp_item_delete (GIMP_ITEM (layer));
}

static gpointer
host_copy_drawable (gpointer drawable)
{
  if (gimp_item_is_layer (GIMP_ITEM (drawable)))
    return gimp_layer_copy (GIMP_LAYER (drawable));
  return gimp_channel_copy (GIMP_CHANNEL (drawable));
}

static gpointer
host_copy_selection (gpointer drawable)
{
  GimpImage *image = gimp_item_get_image (GIMP_ITEM (drawable));

  if (gimp_selection_is_empty (image))
    return NULL;
  return gimp_channel_copy (GIMP_CHANNEL (gimp_image_get_selection (image)));
}

static gchar *
host_get_name (gpointer drawable)
{
  return gimp_item_get_name (GIMP_ITEM (drawable));
}

/* Between the measurement and the dialog: GIMP 3.0's progress bar ends and its UI starts. */
static void
host_init_ui (void)
{
  gimp_progress_end ();
  gimp_ui_init (PLUG_IN_BINARY);
}

const GpuhistHost gpuhist_gimp3_host = {
  host_is_group,
  host_is_mask_or_channel,
  host_mask_intersect,
  host_image_mask_bounds,
  host_get_buffer,
  host_get_selection,
  host_get_name,
  host_new_visible,
  host_delete_copy,
  host_copy_drawable,
  host_copy_selection,
  gpuhist_watch_image_of,
  gpuhist_watch_image_open,
  gpuhist_watch_active,
  gpuhist_watch_signature,
  gpuhist_host_progress_init,
  gpuhist_host_progress_update,
  gpuhist_host_message,
  host_init_ui,
  N_ ("The selected layer is a layer group: select a layer inside it, or merge the group, to "
      "count its pixels."),
};
