/* gpu-histogram: the image source of a gpuhist built without libvips (meson option vips). */
#include "image-source.h"

#include <stdio.h>

#define MISSING                                                                                    \
  "this gpuhist was built without libvips, so it reads Netpbm (PGM, PPM, PAM) and raw samples "    \
  "only, no PNG, JPEG, TIFF or WebP (install libvips-dev and build again)"

/* The strict reader says what the file is not; the message adds what this build lacks. */
image_source *
vips_source_open (const source_request *request, char *error, size_t error_size)
{
  char reason[SOURCE_ERROR_SIZE];
  image_source *source = pnm_source_open (request, reason, sizeof reason);

  if (!source)
    snprintf (error, error_size, "%s (%s)", reason, MISSING);
  return source;
}

int
vips_source_init (const char *program, int threads, char *error, size_t error_size)
{
  (void) program;
  (void) threads;
  (void) error;
  (void) error_size;
  return 0;
}

const char *
vips_source_formats (void)
{
  return MISSING;
}

uint8_t *
vips_plane_load (const char *path, int width, int height, int *bytes_per_sample, char *error,
                 size_t error_size)
{
  (void) width;
  (void) height;
  (void) bytes_per_sample;
  snprintf (error, error_size, "--weights %s: not a PGM (%s)", path, MISSING);
  return NULL;
}

void
vips_plane_free (uint8_t *plane)
{
  (void) plane;
}
