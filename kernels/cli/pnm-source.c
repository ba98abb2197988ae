/* gpu-histogram: the image source for Netpbm files and raw samples, over the strict reader.
 *
 * The reader holds the whole file (as the tool always did); streaming hands out its rows as they
 * are for 8-bit samples, and through a small scratch strip in the host's byte order for 16-bit
 * ones (Netpbm stores them big-endian).  A coverage plane (--weights) is read by the strict
 * reader too when it is a PGM, else whole by libvips (one byte or two a pixel).
 */
#include "image-source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Rows handed to the callback at a time: a few hundred KiB of scratch for 16-bit rows. */
#define CHUNK_BYTES ((size_t) 1 << 20)

typedef struct
{
  image_source base;
  pnm_image image;
  pnm_image weights;    /* a PGM plane */
  uint8_t *other_plane; /* or any other format's, from libvips: packed, host order */
  int plane_bytes;      /* bytes a coverage value */
  int have_weights;
  uint8_t *scratch; /* 16-bit rows in host order: the samples', then the plane's */
  size_t scratch_size;
} pnm_source;

/* Big-endian 16-bit samples (or bytes) of rows [y, y + rows) into host order at out, packed. */
static const uint8_t *
host_order_rows (const pnm_image *image, int y, int rows, uint8_t *out, size_t *stride)
{
  const size_t samples = (size_t) image->width * image->channels;
  if (image->bytes_per_sample == 1)
    {
      *stride = image->stride;
      return image->pixels + (size_t) y * image->stride;
    }
  uint16_t *to = (uint16_t *) out;
  for (int r = 0; r < rows; r++)
    {
      const uint8_t *from = image->pixels + (size_t) (y + r) * image->stride;
      for (size_t i = 0; i < samples; i++)
        *to++ = (uint16_t) (from[2 * i] << 8 | from[2 * i + 1]);
    }
  *stride = samples * 2;
  return out;
}

static int
pnm_stream (image_source *base, source_rows_fn rows_fn, void *user, char *error, size_t error_size)
{
  pnm_source *source = (pnm_source *) base;
  const pnm_image *image = &source->image;
  const size_t row_bytes = (size_t) image->width * image->channels * image->bytes_per_sample;
  const size_t plane_row = source->have_weights ? (size_t) image->width * 2 : 0;
  int chunk = (int) (CHUNK_BYTES / (row_bytes + plane_row));
  if (chunk < 1)
    chunk = 1;

  for (int y = 0; y < image->height; y += chunk)
    {
      int rows = image->height - y < chunk ? image->height - y : chunk;
      size_t stride, coverage_stride = 0;
      const uint8_t *samples = host_order_rows (image, y, rows, source->scratch, &stride);
      const uint8_t *coverage = NULL;
      if (source->other_plane)
        {
          coverage_stride = (size_t) image->width * source->plane_bytes;
          coverage = source->other_plane + (size_t) y * coverage_stride;
        }
      else if (source->have_weights)
        coverage = host_order_rows (&source->weights, y, rows,
                                    source->scratch + (size_t) chunk * row_bytes, &coverage_stride);
      if (rows_fn (user, samples, stride, coverage, coverage_stride, y, rows, error, error_size))
        return -1;
    }
  return 0;
}

static void
pnm_close (image_source *base)
{
  pnm_source *source = (pnm_source *) base;
  pnm_image_clear (&source->image);
  pnm_image_clear (&source->weights);
  if (source->other_plane)
    vips_plane_free (source->other_plane);
  free (source->scratch);
  free (source);
}

/* 8-bit files (maxval 255) and 16-bit files (maxval 65535): the levels the engine counts. */
static int
check_maxval (const pnm_image *image, char *error, size_t error_size)
{
  if (image->maxval == 255 || image->maxval == 65535)
    return 0;
  snprintf (error, error_size,
            "maxval %u is not supported: gpuhist reads 8-bit images with maxval 255 and 16-bit "
            "images with maxval 65535",
            image->maxval);
  return -1;
}

static int
load_weights (pnm_source *source, const char *path, char *error, size_t error_size)
{
  char reason[PNM_ERROR_SIZE];
  pnm_image *plane = &source->weights;

  if (!image_source_is_netpbm (path))
    {
      source->other_plane = vips_plane_load (path, source->image.width, source->image.height,
                                             &source->plane_bytes, error, error_size);
      source->have_weights = source->other_plane != NULL;
      return source->have_weights ? 0 : -1;
    }
  if (pnm_load_file (path, NULL, plane, reason, sizeof reason) != PNM_OK)
    {
      snprintf (error, error_size, "--weights %s: %s", path, reason);
      return -1;
    }
  source->have_weights = 1;
  source->plane_bytes = plane->bytes_per_sample;
  if (plane->channels != 1 || (plane->maxval != 255 && plane->maxval != 65535))
    {
      snprintf (error, error_size,
                "--weights %s: a coverage plane is one 8-bit or 16-bit gray "
                "channel (maxval 255 or 65535), not %d channel(s) of maxval %u",
                path, plane->channels, plane->maxval);
      return -1;
    }
  if (plane->width != source->image.width || plane->height != source->image.height)
    {
      snprintf (error, error_size, "--weights %s: the coverage plane is %d x %d, the image %d x %d",
                path, plane->width, plane->height, source->image.width, source->image.height);
      return -1;
    }
  return 0;
}

static int
describe (pnm_source *source, const source_request *request, char *error, size_t error_size)
{
  image_info *info = &source->base.info;
  const pnm_image *image = &source->image;

  if (check_maxval (image, error, error_size))
    return -1;
  if (request->weights && load_weights (source, request->weights, error, error_size))
    return -1;
  info->width = image->width;
  info->height = image->height;
  info->channels = image->channels;
  info->bytes_per_sample = image->bytes_per_sample;
  info->coverage_bytes = source->have_weights ? source->plane_bytes : 0;
  for (int c = 0; c < image->channels; c++)
    info->channel_names[c] = image->channel_names[c];
  snprintf (info->format, sizeof info->format, "%s, %d-bit", pnm_format_name (image->format),
            8 * image->bytes_per_sample);

  size_t row_bytes = (size_t) image->width * image->channels * image->bytes_per_sample;
  size_t plane_row = source->have_weights ? (size_t) image->width * 2 : 0;
  size_t chunk = CHUNK_BYTES / (row_bytes + plane_row);
  source->scratch_size = (chunk ? chunk : 1) * (row_bytes + plane_row);
  source->scratch = malloc (source->scratch_size);
  if (!source->scratch)
    {
      snprintf (error, error_size, "out of memory for %zu bytes of rows", source->scratch_size);
      return -1;
    }
  return 0;
}

image_source *
pnm_source_open (const source_request *request, char *error, size_t error_size)
{
  char reason[PNM_ERROR_SIZE];
  pnm_status status;
  pnm_source *source = calloc (1, sizeof *source);

  if (!source)
    {
      snprintf (error, error_size, "out of memory");
      return NULL;
    }
  source->base.stream = pnm_stream;
  source->base.close = pnm_close;
  status = strcmp (request->path, "-") == 0
               ? pnm_load_stream (stdin, request->raw, &source->image, reason, sizeof reason)
               : pnm_load_file (request->path, request->raw, &source->image, reason, sizeof reason);
  if (status != PNM_OK)
    {
      snprintf (error, error_size, "%s", reason);
      pnm_close (&source->base);
      return NULL;
    }
  if (describe (source, request, error, error_size))
    {
      pnm_close (&source->base);
      return NULL;
    }
  return &source->base;
}
