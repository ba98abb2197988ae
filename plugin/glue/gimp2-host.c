/* gpu-histogram: the GpuhistHost table of what GIMP 2.10 does its own way (flow.h): items are
 * gint32 IDs, passed through the table's gpointers. */
#include <libgimp/gimp.h>
#include <libgimp/gimpui.h>

#include <glib/gi18n-lib.h>

#include "glue2.h"
#include "host-common.h"
#include "texts.h"
#include "watch.h"

static gboolean
host_is_group (gpointer drawable)
{
  return gimp_item_is_group (GPOINTER_TO_INT (drawable));
}

static gboolean
host_is_mask_or_channel (gpointer drawable)
{
  gint32 id = GPOINTER_TO_INT (drawable);

  return gimp_item_is_channel (id) || gimp_item_is_layer_mask (id);
}

static gboolean
host_mask_intersect (gpointer drawable, GeglRectangle *area)
{
  return gimp_drawable_mask_intersect (GPOINTER_TO_INT (drawable), &area->x, &area->y, &area->width,
                                       &area->height);
}

static gboolean
host_image_mask_bounds (gpointer drawable, GeglRectangle *area)
{
  gint32 image = gimp_item_get_image (GPOINTER_TO_INT (drawable));
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
  gegl_init (NULL, NULL); /* 2.10's libgimp leaves GEGL to the plug-in */
  return gimp_drawable_get_buffer (GPOINTER_TO_INT (drawable));
}

static GeglBuffer *
host_get_selection (gpointer drawable, int *offset_x, int *offset_y)
{
  gint32 image = gimp_item_get_image (GPOINTER_TO_INT (drawable));

  if (gimp_selection_is_empty (image))
    return NULL;
  gimp_drawable_offsets (GPOINTER_TO_INT (drawable), offset_x, offset_y);
  return gimp_drawable_get_buffer (gimp_image_get_selection (image));
}

static gpointer
host_new_visible (gpointer drawable)
{
  gint32 image = gimp_item_get_image (GPOINTER_TO_INT (drawable));
  gint n_layers = 0;
  gint *layers = gimp_image_get_layers (image, &n_layers);
  gboolean any = FALSE;
  gint32 visible;

  for (gint i = 0; i < n_layers && !any; i++)
    any = gimp_item_get_visible (layers[i]);
  g_free (layers);
  if (!any)
    return NULL;
  /* Made in the image but never inserted: no undo step, nothing the user sees. */
  visible = gimp_layer_new_from_visible (image, image, "visible");
  return visible > 0 ? GINT_TO_POINTER (visible) : NULL;
}

static void
host_delete_copy (gpointer layer)
{
  gimp_item_delete (GPOINTER_TO_INT (layer));
}

static gpointer
host_copy_drawable (gpointer drawable)
{
  gint32 id = GPOINTER_TO_INT (drawable);
  gint32 copy = gimp_item_is_layer (id) ? gimp_layer_copy (id) : gimp_channel_copy (id);

  return copy > 0 ? GINT_TO_POINTER (copy) : NULL;
}

static gpointer
host_copy_selection (gpointer drawable)
{
  gint32 image = gimp_item_get_image (GPOINTER_TO_INT (drawable));
  gint32 copy;

  if (gimp_selection_is_empty (image))
    return NULL;
  copy = gimp_channel_copy (gimp_image_get_selection (image));
  return copy > 0 ? GINT_TO_POINTER (copy) : NULL;
}

static gchar *
host_get_name (gpointer drawable)
{
  return gimp_item_get_name (GPOINTER_TO_INT (drawable));
}

/* Between the measurement and the dialog: GIMP 2.10's progress bar ends and its UI starts. */
static void
host_init_ui (void)
{
  gimp_progress_end ();
  gimp_ui_init (PLUG_IN_BINARY, FALSE);
}

const GpuhistHost gpuhist_gimp2_host = {
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
  N_ ("The active layer is a layer group: select a layer inside it, or merge the group, to "
      "count its pixels."),
};
