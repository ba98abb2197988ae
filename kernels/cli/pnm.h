/* gpu-histogram: a strict reader for binary Netpbm images (P5, P6, P7) and raw samples.
 *
 * It is the gpuhist tool's file reader, kept apart from the tool so that it can be unit-tested
 * and fuzzed on memory buffers.  Like the engine it has no GLib and never prints, exits or
 * aborts: every failure comes back as a status and a message naming the problem.
 *
 * The reader accepts every maxval from 1 to 65535 and reports it; samples stay as the file stores
 * them (one byte, or two bytes big-endian when maxval > 255), so that 16-bit support in the tool
 * needs no change here.  Whether a maxval is usable is the caller's decision.
 */
#ifndef GPUHIST_PNM_H
#define GPUHIST_PNM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PNM_MAX_CHANNELS 4
/* No image bigger than this (1 TiB of samples) is accepted: past it a size is a corrupt header,
 * not a picture. */
#define PNM_MAX_IMAGE_BYTES ((uint64_t) 1 << 40)
#define PNM_ERROR_SIZE 256

typedef enum
{
  PNM_OK = 0,
  PNM_ERROR_FORMAT,    /* not a valid file: bad magic, bad or truncated header or data */
  PNM_ERROR_TOO_LARGE, /* dimensions past PNM_MAX_IMAGE_BYTES or what size_t can hold */
  PNM_ERROR_IO,        /* the file could not be read */
  PNM_ERROR_NO_MEMORY
} pnm_status;

typedef enum
{
  PNM_FORMAT_PGM, /* P5 */
  PNM_FORMAT_PPM, /* P6 */
  PNM_FORMAT_PAM, /* P7 */
  PNM_FORMAT_RAW  /* headerless samples of a geometry the caller gave */
} pnm_format;

/* Geometry of headerless input.  stride 0 means packed rows (width * channels samples). */
typedef struct
{
  int width;
  int height;
  int channels;
  size_t stride; /* bytes from one row's start to the next */
} pnm_raw_geometry;

typedef struct
{
  pnm_format format;
  int width;
  int height;
  int channels;          /* 1 to 4 */
  unsigned maxval;       /* 1 to 65535; 255 for raw input */
  int bytes_per_sample;  /* 1, or 2 (big-endian) when maxval > 255 */
  size_t stride;         /* bytes between row starts; packed for Netpbm files */
  const uint8_t *pixels; /* the first sample of the first row, interleaved */
  const char *channel_names[PNM_MAX_CHANNELS]; /* in the file's order: "gray", "alpha", "red",
                                                  "green", "blue" */
  uint8_t *storage; /* the file's bytes when a loader read them; freed by pnm_image_clear */
} pnm_image;

/* Parses a P5, P6 or P7 image at the start of data.  On success out->pixels points into data,
 * which must outlive the image; bytes after the image are ignored.  On failure *out is cleared
 * and error (when not NULL) holds a message such as "truncated header: the file ends before
 * the height". */
pnm_status pnm_parse (const uint8_t *data, size_t size, pnm_image *out, char *error,
                      size_t error_size);

/* Describes headerless samples in data with the given geometry, checking that they fit.  The last
 * row may be just width * channels bytes, without its padding. */
pnm_status pnm_parse_raw (const uint8_t *data, size_t size, const pnm_raw_geometry *geometry,
                          pnm_image *out, char *error, size_t error_size);

/* Read all of stream (or the file at path) and parse it, as raw samples when raw is not NULL.
 * The image owns the bytes; release them with pnm_image_clear. */
pnm_status pnm_load_stream (FILE *stream, const pnm_raw_geometry *raw, pnm_image *out, char *error,
                            size_t error_size);
pnm_status pnm_load_file (const char *path, const pnm_raw_geometry *raw, pnm_image *out,
                          char *error, size_t error_size);

void pnm_image_clear (pnm_image *image);

/* The sample at column x, row y, channel c, whatever the sample width. */
unsigned pnm_image_sample (const pnm_image *image, int x, int y, int c);

/* The channel names Netpbm implies for 1 to 4 channels without a tuple type: gray; gray, alpha;
 * red, green, blue; red, green, blue, alpha.  Fills names[0..channels-1]. */
void pnm_default_channel_names (int channels, const char **names);

const char *pnm_format_name (pnm_format format);

#endif /* GPUHIST_PNM_H */
