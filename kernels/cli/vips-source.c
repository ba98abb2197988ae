/* gpu-histogram: the image source for everything libvips loads (PNG, JPEG, TIFF, WebP, ...).
 *
 * The file is opened for sequential access and streamed with vips_sink_disc: libvips decodes in
 * strips on its own threads and hands each strip over in order, so memory stays bounded whatever
 * the image size, and the next strip decodes while the engine counts the last.  Truncated or
 * damaged data is an error (fail_on error), not a grey area in the picture.
 *
 * Samples reach the engine as the plug-in gives them: 8-bit as they are, 16-bit as they are,
 * float and double narrowed to 16 bits as plugin/run/convert.c's sample16_of_double does (round
 * half up of v * 65535, clamped to 0 .. 65535, NaN to 0), 32-bit unsigned as its u32 rule does. A
 * coverage plane (--weights) is band-joined to the image, so that both stream in one pass.
 */
#include "image-source.h"
#include "vips-modules.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <vips/vips.h>

typedef struct
{
  image_source base;
  source_request request;
  VipsImage *image;       /* the samples, with the plane as one more band when weighted */
  VipsBandFormat samples; /* the file's sample format, before any band join */
  int streamed;           /* sequential images stream once: a second stream reopens */
  uint8_t *scratch;
  size_t scratch_size;
} vips_source;

/* What one strip's callback needs. */
typedef struct
{
  vips_source *source;
  source_rows_fn rows_fn;
  void *user;
  char *error;
  size_t error_size;
  int failed; /* rows_fn stopped the stream: its message, not libvips' */
} sink_context;

/* libvips keeps one error buffer for the process: readers take it whole under this lock. */
static pthread_mutex_t error_lock = PTHREAD_MUTEX_INITIALIZER;

/* libvips' last warning ("not enough data"): the only reason some loaders give for a failure,
 * and no line for gpuhist's standard error. */
static char last_warning[SOURCE_ERROR_SIZE];

static void
keep_warning (const char *domain, GLogLevelFlags level, const char *message, void *data)
{
  (void) domain;
  (void) level;
  (void) data;
  pthread_mutex_lock (&error_lock);
  snprintf (last_warning, sizeof last_warning, "%s", message);
  pthread_mutex_unlock (&error_lock);
}

/* libvips' message for the last failure (else its last warning), on one line, then cleared. */
static void
take_vips_error (const char *what, char *error, size_t error_size)
{
  pthread_mutex_lock (&error_lock);
  char *text = g_strdup (*vips_error_buffer () ? vips_error_buffer () : last_warning);
  vips_error_clear ();
  last_warning[0] = '\0';
  pthread_mutex_unlock (&error_lock);
  g_strstrip (text);
  for (char *c = text; *c; c++)
    if (*c == '\n')
      *c = ';';
  snprintf (error, error_size, "%s%s%s", what, *text ? ": " : "", *text ? text : "");
  g_free (text);
}

/* plugin/run/convert.c, sample16_of_double: the plug-in's narrowing of float samples. */
static inline uint16_t
sample16_of_double (double v)
{
  if (!(v > 0.0)) /* negative, -inf and NaN */
    return 0;
  if (v >= 1.0)
    return 65535;
  return (uint16_t) (v * 65535.0 + 0.5);
}

/* Sample i of a run in format `format` as the engine counts it (8 or 16 bits): narrowed when the
 * file's samples are 32-bit or float, else the value itself (a band join with the coverage plane
 * may have widened 8 or 16-bit values, and the plane's own values are never narrowed). */
static inline unsigned
engine_sample (const uint8_t *p, size_t i, VipsBandFormat format, int narrow)
{
  switch (format)
    {
    case VIPS_FORMAT_UCHAR: return p[i];
    case VIPS_FORMAT_USHORT: return ((const uint16_t *) p)[i];
    case VIPS_FORMAT_UINT:
      if (!narrow)
        return ((const uint32_t *) p)[i];
      /* plugin/run/convert.c's u32 rule: floor (v * 65535 / (2^32 - 1) + 0.5) */
      return (unsigned) ((2u * (uint64_t) ((const uint32_t *) p)[i] + 65537u) / 131074u);
    case VIPS_FORMAT_FLOAT:
      return narrow ? sample16_of_double (((const float *) p)[i])
                    : (unsigned) ((const float *) p)[i];
    case VIPS_FORMAT_DOUBLE:
      return narrow ? sample16_of_double (((const double *) p)[i])
                    : (unsigned) ((const double *) p)[i];
    default: return 0; /* refused at open */
    }
}

/* The samples' bytes as they come from libvips are the engine's when nothing needs narrowing. */
static int
passes_through (const vips_source *source)
{
  return !source->base.info.coverage_bytes
         && (source->samples == VIPS_FORMAT_UCHAR || source->samples == VIPS_FORMAT_USHORT);
}

/* Converts `rows` rows at region row `top` into scratch: samples packed, then the plane packed. */
static void
convert_rows (vips_source *source, VipsRegion *region, int top, int rows)
{
  const image_info *info = &source->base.info;
  const VipsBandFormat format = source->image->BandFmt;
  const int bands = source->image->Bands;
  const size_t samples_bytes = (size_t) info->width * info->channels * info->bytes_per_sample;
  uint8_t *samples = source->scratch;
  uint8_t *plane = source->scratch + (size_t) rows * samples_bytes;

  for (int r = 0; r < rows; r++)
    {
      const uint8_t *in = VIPS_REGION_ADDR (region, region->valid.left, top + r);
      for (int x = 0; x < info->width; x++)
        {
          size_t at = (size_t) x * bands;
          for (int c = 0; c < info->channels; c++, samples += info->bytes_per_sample)
            {
              unsigned v = engine_sample (in, at + c, format, info->narrowed);
              if (info->bytes_per_sample == 1)
                *samples = (uint8_t) v;
              else
                memcpy (samples, &(uint16_t){ (uint16_t) v }, 2);
            }
          if (!info->coverage_bytes)
            continue;
          unsigned m = engine_sample (in, at + info->channels, format, 0);
          if (info->coverage_bytes == 1)
            *plane++ = (uint8_t) m;
          else
            memcpy (plane, &(uint16_t){ (uint16_t) m }, 2), plane += 2;
        }
    }
}

static int
write_strip (VipsRegion *region, VipsRect *area, void *data)
{
  sink_context *context = data;
  vips_source *source = context->source;
  const image_info *info = &source->base.info;

  if (passes_through (source))
    {
      const uint8_t *rows = VIPS_REGION_ADDR (region, area->left, area->top);
      if (context->rows_fn (context->user, rows, VIPS_REGION_LSKIP (region), NULL, 0, area->top,
                            area->height, context->error, context->error_size))
        return context->failed = 1, -1;
      return 0;
    }
  size_t samples_row = (size_t) info->width * info->channels * info->bytes_per_sample;
  size_t plane_row = (size_t) info->width * info->coverage_bytes;
  size_t needed = (size_t) area->height * (samples_row + plane_row);
  if (needed > source->scratch_size)
    {
      uint8_t *grown = realloc (source->scratch, needed);
      if (!grown)
        {
          snprintf (context->error, context->error_size, "out of memory for a strip");
          return context->failed = 1, -1;
        }
      source->scratch = grown;
      source->scratch_size = needed;
    }
  convert_rows (source, region, area->top, area->height);
  const uint8_t *plane = plane_row ? source->scratch + (size_t) area->height * samples_row : NULL;
  if (context->rows_fn (context->user, source->scratch, samples_row, plane, plane_row, area->top,
                        area->height, context->error, context->error_size))
    return context->failed = 1, -1;
  return 0;
}

static VipsImage *
open_buffer (const void *buffer, size_t size, char *error, size_t error_size)
{
  if (!vips_foreign_find_load_buffer (buffer, size)
      && (!vips_modules_load_deferred () || !vips_foreign_find_load_buffer (buffer, size)))
    {
      vips_error_clear ();
      snprintf (error, error_size, "not an image gpuhist reads: libvips has no loader for it");
      return NULL;
    }
  VipsImage *image = vips_image_new_from_buffer (buffer, size, "", "access", VIPS_ACCESS_SEQUENTIAL,
                                                 "fail_on", VIPS_FAIL_ON_ERROR, NULL);
  if (!image)
    take_vips_error ("cannot decode", error, error_size);
  return image;
}

static VipsImage *
open_sequential (const char *path, char *error, size_t error_size)
{
  if (access (path, R_OK) != 0)
    {
      snprintf (error, error_size, "cannot open: %s", strerror (errno));
      return NULL;
    }
  if (!vips_foreign_find_load (path)
      && (!vips_modules_load_deferred () || !vips_foreign_find_load (path)))
    {
      vips_error_clear ();
      snprintf (error, error_size,
                "not an image gpuhist reads: it is not a Netpbm image, and libvips has no loader "
                "for it");
      return NULL;
    }
  VipsImage *image = vips_image_new_from_file (path, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on",
                                               VIPS_FAIL_ON_ERROR, NULL);
  if (!image)
    take_vips_error ("cannot decode", error, error_size);
  return image;
}

static const char *
format_name (VipsBandFormat format)
{
  switch (format)
    {
    case VIPS_FORMAT_UCHAR: return "8-bit";
    case VIPS_FORMAT_USHORT: return "16-bit";
    case VIPS_FORMAT_UINT: return "32-bit integer, narrowed to 16-bit";
    case VIPS_FORMAT_FLOAT: return "32-bit float, narrowed to 16-bit";
    case VIPS_FORMAT_DOUBLE: return "64-bit float, narrowed to 16-bit";
    default: return NULL;
    }
}

static void
name_channels (image_info *info, VipsInterpretation interpretation)
{
  static const char *const cmyk[] = { "cyan", "magenta", "yellow", "black" };
  if (info->channels == 4 && interpretation == VIPS_INTERPRETATION_CMYK)
    {
      for (int c = 0; c < 4; c++)
        info->channel_names[c] = cmyk[c];
      return;
    }
  pnm_default_channel_names (info->channels, info->channel_names);
}

/* Fills the source's info from the file's image; -1 with a message for what the engine cannot
 * count. */
static int
describe (vips_source *source, VipsImage *image, char *error, size_t error_size)
{
  image_info *info = &source->base.info;
  const char *depth = format_name (image->BandFmt);
  const char *loader = "libvips";

  if (vips_image_get_typeof (image, VIPS_META_LOADER))
    vips_image_get_string (image, VIPS_META_LOADER, &loader);

  if (!depth)
    {
      snprintf (error, error_size,
                "%s samples of type %s are not supported: gpuhist counts "
                "unsigned 8, 16 and 32-bit and float samples",
                loader, vips_enum_nick (VIPS_TYPE_BAND_FORMAT, image->BandFmt));
      return -1;
    }
  if (image->Bands < 1 || image->Bands > SOURCE_MAX_CHANNELS)
    {
      snprintf (error, error_size, "%d channels: gpuhist counts images of 1 to 4 channels",
                image->Bands);
      return -1;
    }
  source->samples = image->BandFmt;
  info->width = image->Xsize;
  info->height = image->Ysize;
  info->channels = image->Bands;
  info->bytes_per_sample = image->BandFmt == VIPS_FORMAT_UCHAR ? 1 : 2;
  info->narrowed = image->BandFmt != VIPS_FORMAT_UCHAR && image->BandFmt != VIPS_FORMAT_USHORT;
  info->decodes = 1;
  name_channels (info, image->Type);
  /* "pngload_source" says more to a user as "png". */
  size_t name_length = strcspn (loader, "_");
  if (name_length > 4 && strncmp (loader + name_length - 4, "load", 4) == 0)
    name_length -= 4;
  snprintf (info->format, sizeof info->format, "%.*s, %s", (int) name_length, loader, depth);
  return 0;
}

/* Opens a coverage plane of width x height: one 8 or 16-bit band.  NULL with a message. */
static VipsImage *
open_plane (const char *path, int width, int height, char *error, size_t error_size)
{
  char reason[SOURCE_ERROR_SIZE];
  VipsImage *plane = open_sequential (path, reason, sizeof reason);

  if (!plane)
    {
      snprintf (error, error_size, "--weights %s: %s", path, reason);
      return NULL;
    }
  if (plane->Bands != 1
      || (plane->BandFmt != VIPS_FORMAT_UCHAR && plane->BandFmt != VIPS_FORMAT_USHORT))
    snprintf (error, error_size,
              "--weights %s: a coverage plane is one 8-bit or 16-bit gray "
              "channel, not %d channel(s) of %s samples",
              path, plane->Bands, vips_enum_nick (VIPS_TYPE_BAND_FORMAT, plane->BandFmt));
  else if (plane->Xsize != width || plane->Ysize != height)
    snprintf (error, error_size, "--weights %s: the coverage plane is %d x %d, the image %d x %d",
              path, plane->Xsize, plane->Ysize, width, height);
  else
    return plane;
  g_object_unref (plane);
  return NULL;
}

/* Opens the coverage plane and band-joins it to the image. */
static int
join_weights (vips_source *source, const char *path, char *error, size_t error_size)
{
  VipsImage *plane
      = open_plane (path, source->image->Xsize, source->image->Ysize, error, error_size);
  VipsImage *joined = NULL;

  if (!plane)
    return -1;
  if (vips_bandjoin2 (source->image, plane, &joined, NULL))
    take_vips_error ("--weights: cannot join the plane", error, error_size);
  else
    {
      source->base.info.coverage_bytes = plane->BandFmt == VIPS_FORMAT_UCHAR ? 1 : 2;
      g_object_unref (source->image);
      source->image = joined;
    }
  g_object_unref (plane);
  return joined ? 0 : -1;
}

uint8_t *
vips_plane_load (const char *path, int width, int height, int *bytes_per_sample, char *error,
                 size_t error_size)
{
  VipsImage *plane = open_plane (path, width, height, error, error_size);
  size_t size;

  if (!plane)
    return NULL;
  *bytes_per_sample = plane->BandFmt == VIPS_FORMAT_UCHAR ? 1 : 2;
  uint8_t *memory = vips_image_write_to_memory (plane, &size);
  if (!memory)
    take_vips_error ("--weights: cannot decode the plane", error, error_size);
  g_object_unref (plane);
  return memory;
}

void
vips_plane_free (uint8_t *plane)
{
  g_free (plane);
}

/* Opens (or, for a second stream, reopens) the request's files. */
static int
open_images (vips_source *source, char *error, size_t error_size)
{
  if (source->image)
    g_object_unref (source->image);
  source->base.info.coverage_bytes = 0;
  source->image
      = source->request.buffer
            ? open_buffer (source->request.buffer, source->request.buffer_size, error, error_size)
            : open_sequential (source->request.path, error, error_size);
  if (!source->image || describe (source, source->image, error, error_size))
    return -1;
  if (source->request.weights && join_weights (source, source->request.weights, error, error_size))
    return -1;
  source->streamed = 0;
  return 0;
}

static int
vips_stream (image_source *base, source_rows_fn rows_fn, void *user, char *error, size_t error_size)
{
  vips_source *source = (vips_source *) base;
  sink_context context = { source, rows_fn, user, error, error_size, 0 };

  if (source->streamed && open_images (source, error, error_size))
    return -1;
  source->streamed = 1;
  if (vips_sink_disc (source->image, write_strip, &context) == 0)
    return 0;
  if (context.failed)
    vips_error_clear ();
  else
    take_vips_error ("cannot decode", error, error_size);
  return -1;
}

static void
vips_close (image_source *base)
{
  vips_source *source = (vips_source *) base;
  if (source->image)
    g_object_unref (source->image);
  free (source->scratch);
  free (source);
}

image_source *
vips_source_open (const source_request *request, char *error, size_t error_size)
{
  vips_source *source = calloc (1, sizeof *source);

  if (!source)
    {
      snprintf (error, error_size, "out of memory");
      return NULL;
    }
  source->base.stream = vips_stream;
  source->base.close = vips_close;
  source->request = *request;
  if (open_images (source, error, error_size))
    {
      vips_close (&source->base);
      return NULL;
    }
  return &source->base;
}

int
vips_source_init (const char *program, int threads, char *error, size_t error_size)
{
  vips_modules_defer ();
  if (VIPS_INIT (program))
    {
      take_vips_error ("libvips failed to start", error, error_size);
      return -1;
    }
  g_log_set_handler ("VIPS", G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE, keep_warning, NULL);
  /* Every file is read once: libvips' operation cache would only hold memory. */
  vips_cache_set_max (0);
  /* VIPS_CONCURRENCY, where a user set it, wins. */
  if (threads > 0 && !getenv ("VIPS_CONCURRENCY"))
    vips_concurrency_set (threads);
  return 0;
}

const char *
vips_source_formats (void)
{
  return "PNG, JPEG, TIFF, WebP and whatever else this libvips loads ('vips -l foreign' lists "
         "its loaders), through libvips " VIPS_VERSION;
}
