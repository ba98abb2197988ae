/* gpu-histogram: choosing what to read from GIMP and in which format.
 *
 * GIMP version-independent: this file sees only a GeglBuffer.  The rule (a conversion between
 * spaces in babl costs many times the read itself: docs/BENCHMARKS.md):
 *
 *   1. the model: R'G'B'(A) or Y'(A) (perceptual, the default) or RGB(A) / Y(A) (linear light);
 *      indexed layers are read as their colours; masks and channels as one gray channel (Y' or
 *      Y like a gray layer: in GIMP 2.10 the perceptual reading is what gimp-drawable-get-pixel
 *      reports for an 8-bit mask);
 *   2. always in the buffer's own space, so that babl never has to build a conversion between
 *      spaces;
 *   3. the buffer's own format when it is exactly that model (no conversion in GIMP at all; the
 *      core narrows 16/32-bit integers, half, float and double to 8 bits itself);
 *   4. else 8 bits when the buffer is 8-bit or indexed (babl's 8-bit paths are fast), else
 *      float, which the core narrows with documented clamping.
 *
 * For more than 256 bins there is a second format, fetch_format16, in the same model and space:
 * the buffer's own format when it is u16 in the curve asked for (the stored values, untouched),
 * else "u16" from a u16 buffer in the other curve (babl converts), else "float" from u32, half,
 * float and double buffers (the core narrows it to 16 bits).  8-bit and indexed buffers have
 * none: they have 256 levels and count into 256 bins whatever was asked.
 */
#include <string.h>

#include <glib/gi18n-lib.h>

#include "convert.h"
#include "source.h"

static const char *const names_rgb[] = { "red", "green", "blue", "alpha" };
static const char *const names_gray[] = { "gray", "alpha" };

/* Which channels to read: one gray channel for masks and channels, else the buffer's own (an
 * indexed buffer's colours are RGB). */
static void
pick_channels (const Babl *buffer_format, GpuhistDrawableKind kind, gboolean *gray, gboolean *alpha)
{
  if (kind == GPUHIST_DRAWABLE_MASK_OR_CHANNEL)
    {
      *gray = TRUE;
      *alpha = FALSE;
    }
  else if (babl_format_is_palette (buffer_format))
    {
      *gray = FALSE;
      *alpha = babl_format_has_alpha (buffer_format);
    }
  else
    {
      BablModelFlag flags = babl_get_model_flags (babl_format_get_model (buffer_format));

      *gray = (flags & BABL_MODEL_FLAG_GRAY) != 0;
      *alpha = babl_format_has_alpha (buffer_format);
    }
}

/* `model` in `type`, in the buffer's own space. */
static const Babl *
format_in_space (const char *model, const char *type, const Babl *buffer_format)
{
  gchar *encoding = g_strdup_printf ("%s %s", model, type);
  const Babl *format = babl_format_with_space (encoding, buffer_format);

  g_free (encoding);
  return format;
}

/* Rules 3 and 4 of the file's comment: the 8-bit path's fetch format. */
static const Babl *
pick_fetch_format (const char *model, const Babl *buffer_format, const char *buffer_type)
{
  gboolean narrow;

  if (!babl_format_is_palette (buffer_format) && gpuhist_convert_type_known (buffer_type))
    {
      gchar *encoding = g_strdup_printf ("%s %s", model, buffer_type);
      gboolean own = babl_format_exists (encoding)
                     && babl_format_with_space (encoding, buffer_format) == buffer_format;

      g_free (encoding);
      if (own)
        return buffer_format;
    }
  narrow = babl_format_is_palette (buffer_format) || strcmp (buffer_type, "u8") == 0;
  return format_in_space (model, narrow ? "u8" : "float", buffer_format);
}

/* The wide format, for more than 256 bins; NULL for 8-bit and indexed buffers. */
static const Babl *
pick_fetch_format16 (const char *model, const Babl *buffer_format, const char *buffer_type)
{
  if (babl_format_is_palette (buffer_format) || strcmp (buffer_type, "u8") == 0
      || !gpuhist_convert_type_known (buffer_type))
    return NULL;
  return format_in_space (model, strcmp (buffer_type, "u16") == 0 ? "u16" : "float", buffer_format);
}

gboolean
gpuhist_source_init (GpuhistSource *source, GeglBuffer *buffer, const GeglRectangle *area,
                     GpuhistDrawableKind kind, gboolean linear, const gchar *name, GError **error)
{
  const Babl *buffer_format;
  const char *buffer_type;
  GeglRectangle clipped;
  gboolean gray;
  gboolean alpha;
  const char *model;

  memset (source, 0, sizeof *source);
  if (buffer == NULL || area == NULL)
    {
      g_set_error (error, GPUHIST_ERROR, GPUHIST_ERROR_NO_PIXELS,
                   _ ("There are no pixels to read."));
      return FALSE;
    }
  if (!gegl_rectangle_intersect (&clipped, gegl_buffer_get_extent (buffer), area)
      || clipped.width <= 0 || clipped.height <= 0)
    {
      g_set_error (
          error, GPUHIST_ERROR, GPUHIST_ERROR_NO_PIXELS,
          _ ("The selection does not intersect the drawable: there are no pixels to count."));
      return FALSE;
    }

  buffer_format = gegl_buffer_get_format (buffer);
  buffer_type = babl_get_name (babl_format_get_type (buffer_format, 0));
  pick_channels (buffer_format, kind, &gray, &alpha);
  if (gray)
    model = linear ? (alpha ? "YA" : "Y") : (alpha ? "Y'A" : "Y'");
  else
    model = linear ? (alpha ? "RGBA" : "RGB") : (alpha ? "R'G'B'A" : "R'G'B'");

  source->buffer = buffer;
  source->area = clipped;
  source->fetch_format = pick_fetch_format (model, buffer_format, buffer_type);
  source->fetch_format16 = pick_fetch_format16 (model, buffer_format, buffer_type);
  source->channels = (gray ? 1 : 3) + (alpha ? 1 : 0);
  source->alpha_weighs = alpha && kind == GPUHIST_DRAWABLE_LAYER;
  source->derived = !gray && kind == GPUHIST_DRAWABLE_LAYER;
  source->kind = kind;
  for (int i = 0; i < source->channels; i++)
    source->channel_names[i] = gray ? names_gray[i] : names_rgb[i];
  source->drawable_name = g_strdup (name ? name : "");
  return TRUE;
}

void
gpuhist_source_set_coverage (GpuhistSource *source, GeglBuffer *mask, int offset_x, int offset_y)
{
  const Babl *format;
  gboolean u8;

  if (mask == NULL)
    return;
  format = gegl_buffer_get_format (mask);
  u8 = strcmp (babl_get_name (babl_format_get_type (format, 0)), "u8") == 0;
  source->coverage_buffer = mask;
  source->coverage_dx = offset_x;
  source->coverage_dy = offset_y;
  /* A selection is a coverage, not a colour: read linear Y, whatever the mask's curve tag. */
  source->coverage_format = babl_format (u8 ? "Y u8" : "Y u16");
  source->coverage_bytes = u8 ? 1 : 2;
}

void
gpuhist_source_clear (GpuhistSource *source)
{
  if (source == NULL)
    return;
  g_clear_pointer (&source->drawable_name, g_free);
  source->buffer = NULL;
  source->fetch_format = NULL;
  source->fetch_format16 = NULL;
  source->coverage_buffer = NULL;
  source->coverage_format = NULL;
  source->coverage_bytes = 0;
}
