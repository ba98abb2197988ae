/* gpu-histogram: --scope-png in a gpuhist built without libvips (meson option vips): refused. */
#include "scope-png.h"

#include <stdio.h>

int
scope_png_available (const char **why)
{
  *why = "this gpuhist was built without libvips, which writes the PNGs (install libvips-dev "
         "and build again)";
  return 0;
}

int
scope_png_write (const char *prefix, const gh_result *result, const gh_render_options *options,
                 char *error, size_t error_size)
{
  const char *why;
  (void) result;
  (void) options;
  scope_png_available (&why);
  snprintf (error, error_size, "%s-*.png: %s", prefix, why);
  return -1;
}
