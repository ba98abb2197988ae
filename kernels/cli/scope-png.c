/* gpu-histogram: gpuhist --scope-png: each chart the result can draw, at its natural size, as
 * an 8-bit RGBA PNG written by libvips. */
#include "scope-png.h"

#include <stdio.h>
#include <stdlib.h>
#include <vips/vips.h>

int
scope_png_available (const char **why)
{
  *why = NULL;
  return 1;
}

/* Pixels of width x height, packed RGBA, into path. */
static int
save_png (const uint8_t *pixels, int width, int height, const char *path, char *error,
          size_t error_size)
{
  VipsImage *image = vips_image_new_from_memory (pixels, (size_t) width * height * 4, width, height,
                                                 4, VIPS_FORMAT_UCHAR);
  VipsImage *rgba = NULL;
  int failed = !image || vips_copy (image, &rgba, "interpretation", VIPS_INTERPRETATION_sRGB, NULL)
               || vips_pngsave (rgba, path, NULL);
  if (failed)
    {
      snprintf (error, error_size, "%s: cannot write the PNG: %s", path, vips_error_buffer ());
      vips_error_clear ();
    }
  if (rgba)
    g_object_unref (rgba);
  if (image)
    g_object_unref (image);
  return failed ? -1 : 0;
}

static int
write_chart (const char *prefix, const char *name, const gh_result *result, gh_chart chart,
             const gh_render_options *options, char *error, size_t error_size)
{
  gh_error engine_error = { GH_OK, "" };
  char path[4096];
  int width, height;
  snprintf (path, sizeof path, "%s-%s.png", prefix, name);
  if (gh_render_natural_size (result, chart, &width, &height, &engine_error) != GH_OK)
    return 0; /* not counted, or a parade without red, green and blue: nothing to draw */
  uint8_t *pixels = malloc ((size_t) width * height * 4);
  if (!pixels)
    {
      snprintf (error, error_size, "%s: no memory for a %d x %d chart", path, width, height);
      return -1;
    }
  int failed = gh_render_chart (result, chart, options, width, height, pixels, (size_t) width * 4,
                                &engine_error)
               != GH_OK;
  if (failed)
    snprintf (error, error_size, "%s: %s", path, engine_error.message);
  else
    failed = save_png (pixels, width, height, path, error, error_size);
  free (pixels);
  return failed ? -1 : 0;
}

int
scope_png_write (const char *prefix, const gh_result *result, const gh_render_options *options,
                 char *error, size_t error_size)
{
  static const char *const names[GH_N_CHARTS] = { "waveform", "parade", "vectorscope" };
  for (int chart = 0; chart < GH_N_CHARTS; chart++)
    if (write_chart (prefix, names[chart], result, (gh_chart) chart, options, error, error_size))
      return -1;
  return 0;
}
