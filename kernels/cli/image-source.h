/* gpu-histogram: where gpuhist's pixels come from, whatever the file format.
 *
 * An image source opens a file, says what it holds (size, channels, sample width, channel names)
 * and then streams its rows, top to bottom, in the engine's sample format: one byte a sample, or
 * uint16_t in the host's byte order.  It pushes rows to a callback in chunks of its own choosing,
 * so that a decoder that works in strips (libvips) never holds the whole image; the callback
 * copies them into the engine's strip buffers.  A source can stream again from the top (the GPU
 * fall-back restarts a run).
 *
 * Two implementations: pnm-source.c (the strict Netpbm reader, and --raw) and vips-source.c
 * (everything libvips loads; built with the meson option vips).  Like the engine, a source never
 * prints or exits: a failure is a message for "gpuhist: FILE: message".
 */
#ifndef GPUHIST_IMAGE_SOURCE_H
#define GPUHIST_IMAGE_SOURCE_H

#include "pnm.h"

#include <stddef.h>
#include <stdint.h>

#define SOURCE_ERROR_SIZE 512
#define SOURCE_MAX_CHANNELS 4

typedef struct image_source image_source;

typedef struct
{
  int width, height;
  int channels;                                   /* 1 to 4 */
  int bytes_per_sample;                           /* 1, or 2 (uint16_t, host order) */
  int coverage_bytes;                             /* 0, or 1 or 2 with a --weights plane */
  const char *channel_names[SOURCE_MAX_CHANNELS]; /* "gray", "alpha", "red", ... */
  char format[64];                                /* e.g. "PNG, 16-bit" */
  int narrowed;                                   /* float or 32-bit samples, narrowed to 16 */
  int decodes;                                    /* rows are decoded on the CPU as they stream */
} image_info;

/* Rows [first_row, first_row + rows) of the samples, `stride` bytes apart; coverage (NULL without
 * a plane) holds the same rows of the coverage plane, `coverage_stride` bytes apart.  Returns 0
 * to go on, or -1 to stop the stream (the callback filled error). */
typedef int (*source_rows_fn) (void *user, const uint8_t *samples, size_t stride,
                               const uint8_t *coverage, size_t coverage_stride, int first_row,
                               int rows, char *error, size_t error_size);

struct image_source
{
  image_info info;
  /* Streams every row once, in order.  0, or -1 with error filled. */
  int (*stream) (image_source *source, source_rows_fn rows, void *user, char *error,
                 size_t error_size);
  void (*close) (image_source *source);
};

/* What to open: a file (or "-" for standard input, Netpbm or raw only), and an optional coverage
 * plane of the same size (8 or 16-bit gray). */
typedef struct
{
  const char *path;
  const pnm_raw_geometry *raw; /* headerless samples of this geometry, or NULL */
  const char *weights;         /* a coverage plane's file, or NULL */
  const void *buffer;          /* vips_source_open only: the file's bytes in memory instead of */
  size_t buffer_size;          /* path (the fuzz target), kept by the caller until closed */
} source_request;

/* Opens request->path: Netpbm (and raw) through the strict reader, anything else through libvips
 * where the tool has it.  NULL with error filled ("not a Netpbm image ..." plus which formats
 * this build lacks, or the decoder's reason). */
image_source *image_source_open (const source_request *request, char *error, size_t error_size);

/* 1 when the file starts like a binary Netpbm image (P5, P6 or P7), which the strict reader
 * takes whatever its name. */
int image_source_is_netpbm (const char *path);

/* The backends behind image_source_open. */
image_source *pnm_source_open (const source_request *request, char *error, size_t error_size);
/* NULL and a message naming what is missing where the tool was built without libvips. */
image_source *vips_source_open (const source_request *request, char *error, size_t error_size);
/* Called once before any file is opened, and before threads open files (libvips' VIPS_INIT);
 * threads: the decode threads libvips may use for one file (0: its default; VIPS_CONCURRENCY
 * overrides either).  0, or -1 with a message. */
int vips_source_init (const char *program, int threads, char *error, size_t error_size);
/* A whole coverage plane of width x height in memory (packed rows, host order), for a Netpbm
 * image whose --weights file is not a PGM; free it with vips_plane_free.  NULL with a message. */
uint8_t *vips_plane_load (const char *path, int width, int height, int *bytes_per_sample,
                          char *error, size_t error_size);
void vips_plane_free (uint8_t *plane);
/* Which formats this build reads beyond Netpbm, for --help: a line of text. */
const char *vips_source_formats (void);

#endif /* GPUHIST_IMAGE_SOURCE_H */
