/* gpu-histogram: unit tests of the Netpbm reader on in-memory buffers.
 *
 * Good files of every kind are built here with random sizes and samples (a fresh seed each run,
 * printed on failure, or taken from GPUHIST_TEST_SEED to replay one) and read back sample by
 * sample; broken headers must fail with the right status and a message naming the problem; and
 * every truncation of a good file must fail cleanly.
 */
#include "pnm.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int failures;
static uint64_t seed;

static void check (int condition, const char *format, ...) __attribute__ ((format (printf, 2, 3)));

static void
check (int condition, const char *format, ...)
{
  va_list args;

  if (condition)
    return;
  failures++;
  fprintf (stderr, "FAIL (seed %" PRIu64 "): ", seed);
  va_start (args, format);
  vfprintf (stderr, format, args);
  va_end (args);
  fputc ('\n', stderr);
}

/* splitmix64: small, seedable and the same everywhere, so that a printed seed replays. */
static uint64_t random_state;

static uint64_t
random_next (void)
{
  uint64_t z = (random_state += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

static unsigned
random_below (unsigned limit)
{
  return (unsigned) (random_next () % limit);
}

/* A growable byte buffer to build files in. */
typedef struct
{
  uint8_t *data;
  size_t size;
  size_t capacity;
} buffer;

static void
buffer_append (buffer *b, const void *bytes, size_t size)
{
  if (b->size + size > b->capacity)
    {
      b->capacity = (b->size + size) * 2 + 64;
      b->data = realloc (b->data, b->capacity);
      if (!b->data)
        {
          fprintf (stderr, "out of memory\n");
          exit (99);
        }
    }
  memcpy (b->data + b->size, bytes, size);
  b->size += size;
}

static void buffer_printf (buffer *b, const char *format, ...)
    __attribute__ ((format (printf, 2, 3)));

static void
buffer_printf (buffer *b, const char *format, ...)
{
  char text[512];
  va_list args;
  int length;

  va_start (args, format);
  length = vsnprintf (text, sizeof text, format, args);
  va_end (args);
  buffer_append (b, text, (size_t) length);
}

/* Parses text as a file that must be rejected with status, with a message containing needle. */
static void
expect_error (const char *label, const void *data, size_t size, pnm_status status,
              const char *needle)
{
  pnm_image image;
  char error[PNM_ERROR_SIZE];
  pnm_status got;

  memset (&image, 0x5a, sizeof image);
  got = pnm_parse (data, size, &image, error, sizeof error);
  check (got == status, "%s: status %d, expected %d (message: %s)", label, got, status, error);
  check (strstr (error, needle) != NULL, "%s: message '%s' does not mention '%s'", label, error,
         needle);
  check (image.pixels == NULL && image.width == 0, "%s: the image is not cleared after an error",
         label);
}

static void
expect_text_error (const char *text, pnm_status status, const char *needle)
{
  expect_error (text, text, strlen (text), status, needle);
}

static void
test_broken_headers (void)
{
  static const uint8_t gif[] = { 'G', 'I', 'F', '8', '9', 'a', 1, 0, 1, 0 };

  expect_error ("empty", "", 0, PNM_ERROR_FORMAT, "empty");
  expect_error ("NULL", NULL, 0, PNM_ERROR_FORMAT, "empty");
  expect_text_error ("P", PNM_ERROR_FORMAT, "too short");
  expect_error ("gif", gif, sizeof gif, PNM_ERROR_FORMAT, "not a Netpbm image");
  expect_text_error ("p5 1 1 255\n\x01", PNM_ERROR_FORMAT, "not a Netpbm image");
  expect_text_error ("P8 1 1 255\n\x01", PNM_ERROR_FORMAT, "not a Netpbm image");
  expect_text_error ("P3 1 1 255\n1 2 3\n", PNM_ERROR_FORMAT, "P3");
  expect_text_error ("P4 8 1\n\xff", PNM_ERROR_FORMAT, "not supported");
  expect_text_error ("P55 1 1 255\n\x01", PNM_ERROR_FORMAT, "magic");
  expect_text_error ("P5", PNM_ERROR_FORMAT, "ends after its magic");
  expect_text_error ("P5\n", PNM_ERROR_FORMAT, "before the width");
  expect_text_error ("P5 3", PNM_ERROR_FORMAT, "right after the width");
  expect_text_error ("P5 3 2", PNM_ERROR_FORMAT, "right after the height");
  expect_text_error ("P5 3 2 ", PNM_ERROR_FORMAT, "before the maxval");
  expect_text_error ("P5 3 2 255", PNM_ERROR_FORMAT, "right after the maxval");
  expect_text_error ("P5 3 2 255#no newline", PNM_ERROR_FORMAT, "comment after the maxval");
  expect_text_error ("P5 3 # a comment, then nothing", PNM_ERROR_FORMAT, "before the height");
  expect_text_error ("P5 x 2 255\n", PNM_ERROR_FORMAT, "width is not a number");
  expect_text_error ("P5 3x 2 255\n", PNM_ERROR_FORMAT, "width is not a number");
  expect_text_error ("P5 -3 2 255\n", PNM_ERROR_FORMAT, "width is not a number");
  expect_text_error ("P6 3 2 2.5\n", PNM_ERROR_FORMAT, "maxval is not a number");
  expect_text_error ("P5 0 2 255\n", PNM_ERROR_FORMAT, "zero width");
  expect_text_error ("P5 3 0 255\n", PNM_ERROR_FORMAT, "zero height");
  expect_text_error ("P5 1 1 0\n\x00", PNM_ERROR_FORMAT, "maxval 0");
  expect_text_error ("P5 1 1 65536\n\x00\x00", PNM_ERROR_FORMAT, "maxval 65536");
  expect_text_error ("P5 1 1 99999999999999999999999\n\x00", PNM_ERROR_FORMAT, "out of range");
  expect_text_error ("P5 3 2 255\nabcde", PNM_ERROR_FORMAT, "truncated data");
  expect_text_error ("P6 3 2 255\nabcdefghijklmnopq", PNM_ERROR_FORMAT, "needs 18 bytes");
  expect_text_error ("P5 3 2 65535\nabcdefghijk", PNM_ERROR_FORMAT, "needs 12 bytes");
  expect_text_error ("P5 2147483648 1 255\n\x00", PNM_ERROR_TOO_LARGE, "too large");
  expect_text_error ("P5 1 99999999999999999999 255\n\x00", PNM_ERROR_TOO_LARGE, "too large");
  expect_text_error ("P6 2147483647 2147483647 65535\n\x00", PNM_ERROR_TOO_LARGE, "too large");
  /* Within int, but more than 1 TiB: refused before the data are looked at. */
  expect_text_error ("P5 1048576 1048577 255\n\x00", PNM_ERROR_TOO_LARGE, "too large");
  /* Exactly at the cap is only a truncated file. */
  expect_text_error ("P5 1048576 1048576 255\n\x00", PNM_ERROR_FORMAT, "truncated data");
  expect_text_error ("P5 2 1 100\n\x10\x65", PNM_ERROR_FORMAT, "larger than the maxval 100");
  expect_text_error ("P5 1 2 1000\n\x03\xe8\x03\xe9", PNM_ERROR_FORMAT,
                     "sample 1001 at row 1, column 0");

  expect_text_error ("P7", PNM_ERROR_FORMAT, "ends after its magic");
  expect_text_error ("P7 ", PNM_ERROR_FORMAT, "ends after P7");
  expect_text_error ("P7 332\n", PNM_ERROR_FORMAT, "alone");
  expect_text_error ("P7\nWIDTH 1\nHEIGHT 1\nDEPTH 1\nMAXVAL 255\n", PNM_ERROR_FORMAT,
                     "before ENDHDR");
  expect_text_error ("P7\nWIDTH 1\nHEIGHT 1\nDEPTH 1\nMAXVAL 255\nENDHDR", PNM_ERROR_FORMAT,
                     "before ENDHDR");
  expect_text_error ("P7\nWIDTH 1\nHEIGHT 1\nDEPTH 1\nENDHDR\n\x01", PNM_ERROR_FORMAT, "no MAXVAL");
  expect_text_error ("P7\nWIDTH 1\nDEPTH 1\nMAXVAL 255\nENDHDR\n\x01", PNM_ERROR_FORMAT,
                     "no HEIGHT");
  expect_text_error ("P7\nWIDTH 1\nWIDTH 1\nHEIGHT 1\nDEPTH 1\nMAXVAL 255\nENDHDR\n\x01",
                     PNM_ERROR_FORMAT, "WIDTH appears twice");
  expect_text_error ("P7\nWIDTH one\nHEIGHT 1\nDEPTH 1\nMAXVAL 255\nENDHDR\n\x01", PNM_ERROR_FORMAT,
                     "WIDTH 'one' is not a number");
  expect_text_error ("P7\nWIDTH\nHEIGHT 1\nDEPTH 1\nMAXVAL 255\nENDHDR\n\x01", PNM_ERROR_FORMAT,
                     "not a number");
  expect_text_error ("P7\nWIDTH 1 2\nHEIGHT 1\nDEPTH 1\nMAXVAL 255\nENDHDR\n\x01", PNM_ERROR_FORMAT,
                     "not a number");
  expect_text_error ("P7\nWIDTH 1\nHEIGHT 1\nDEPTH 0\nMAXVAL 255\nENDHDR\n", PNM_ERROR_FORMAT,
                     "zero depth");
  expect_text_error ("P7\nWIDTH 1\nHEIGHT 1\nDEPTH 5\nMAXVAL 255\nENDHDR\n\x01\x01\x01\x01\x01",
                     PNM_ERROR_FORMAT, "DEPTH 5");
  expect_text_error ("P7\nWIDTH 0\nHEIGHT 1\nDEPTH 1\nMAXVAL 255\nENDHDR\n", PNM_ERROR_FORMAT,
                     "zero width");
  expect_text_error ("P7\nWIDTH 1\nHEIGHT 1\nDEPTH 1\nMAXVAL 0\nENDHDR\n\x01", PNM_ERROR_FORMAT,
                     "maxval 0");
  expect_text_error ("P7\nWIDTH 1\nHEIGHT 1\nDEPTH 3\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n"
                     "\x01\x02\x03",
                     PNM_ERROR_FORMAT, "does not match TUPLTYPE RGB_ALPHA");
  expect_text_error ("P7\nWIDTH 1\nHEIGHT 1\nDEPTH 1\nMAXVAL 1\nTUPLTYPE BLACKANDWHITE\n"
                     "ENDHDR\n\x01",
                     PNM_ERROR_FORMAT, "unsupported TUPLTYPE 'BLACKANDWHITE'");
  expect_text_error ("P7\nWIDTH 1\nHEIGHT 1\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB\nTUPLTYPE ALPHA\n"
                     "ENDHDR\n\x01\x02\x03\x04",
                     PNM_ERROR_FORMAT, "another TUPLTYPE");
  expect_text_error ("P7\nWIDTH 1\nHEIGHT 1\nDEPTH 1\nMAXVAL 255\nCOLOUR red\nENDHDR\n\x01",
                     PNM_ERROR_FORMAT, "unknown PAM header line 'COLOUR'");
  expect_text_error ("P7\nWIDTH 1\nHEIGHT 1\nDEPTH 1\nMAXVAL 255\nENDHDR now\n\x01",
                     PNM_ERROR_FORMAT, "ENDHDR must be alone");
  expect_text_error ("P7\nWIDTH 3\nHEIGHT 3\nDEPTH 2\nMAXVAL 255\nENDHDR\n0123456789abcdef",
                     PNM_ERROR_FORMAT, "needs 18 bytes");
  expect_text_error ("P7\nWIDTH 1000000\nHEIGHT 1000000\nDEPTH 4\nMAXVAL 65535\nENDHDR\n",
                     PNM_ERROR_TOO_LARGE, "too large");
}

/* Exact fields and the location of the pixels for hand-written files. */
static void
test_known_headers (void)
{
  static const char pgm_header[] = "P5\n# made by hand\n3 # the width\n2\n255\n";
  static const char pgm[] = "P5\n# made by hand\n3 # the width\n2\n255\n\x0a\x20\x09\x0d\x00\xff"
                            "trailing garbage is allowed";
  static const char ppm[] = "P6 1 1 255#comment right after the maxval\n\x01\x02\x03";
  static const char pam[] = "P7\n# comment\n  WIDTH 2 \n\nHEIGHT 1\nDEPTH 2\nMAXVAL 65535\n"
                            "TUPLTYPE GRAYSCALE_ALPHA\r\nENDHDR\n\x12\x34\xff\xff\x00\x01\x80\x00";
  static const char pam_no_type[] = "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 3\nMAXVAL 255\nENDHDR\nabc";
  static const char pgm_small_maxval[] = "P5 4 1 3\n\x00\x01\x02\x03";
  pnm_image image;
  char error[PNM_ERROR_SIZE];

  check (pnm_parse ((const uint8_t *) pgm, sizeof pgm - 1, &image, error, sizeof error) == PNM_OK,
         "hand PGM: %s", error);
  check (image.format == PNM_FORMAT_PGM && image.width == 3 && image.height == 2
             && image.channels == 1 && image.maxval == 255 && image.bytes_per_sample == 1
             && image.stride == 3,
         "hand PGM: wrong fields");
  /* Exactly one whitespace byte ends the header, so the first sample here is 0x0a. */
  check (image.pixels == (const uint8_t *) pgm + strlen (pgm_header),
         "hand PGM: pixels at offset %td", (const char *) image.pixels - pgm);
  check (pnm_image_sample (&image, 0, 0, 0) == 0x0a && pnm_image_sample (&image, 2, 1, 0) == 0xff,
         "hand PGM: wrong samples");
  check (image.channel_names[0] && strcmp (image.channel_names[0], "gray") == 0,
         "hand PGM: channel name");

  check (pnm_parse ((const uint8_t *) ppm, sizeof ppm - 1, &image, error, sizeof error) == PNM_OK,
         "hand PPM: %s", error);
  check (image.format == PNM_FORMAT_PPM && image.channels == 3
             && pnm_image_sample (&image, 0, 0, 2) == 3,
         "hand PPM: wrong fields or samples");

  check (pnm_parse ((const uint8_t *) pam, sizeof pam - 1, &image, error, sizeof error) == PNM_OK,
         "hand PAM: %s", error);
  check (image.format == PNM_FORMAT_PAM && image.width == 2 && image.channels == 2
             && image.maxval == 65535 && image.bytes_per_sample == 2 && image.stride == 8,
         "hand PAM: wrong fields");
  check (pnm_image_sample (&image, 0, 0, 0) == 0x1234 && pnm_image_sample (&image, 0, 0, 1) == 65535
             && pnm_image_sample (&image, 1, 0, 0) == 1
             && pnm_image_sample (&image, 1, 0, 1) == 0x8000,
         "hand PAM: 16-bit samples are not read big-endian");
  check (strcmp (image.channel_names[0], "gray") == 0
             && strcmp (image.channel_names[1], "alpha") == 0,
         "hand PAM: channel names");

  check (
      pnm_parse ((const uint8_t *) pam_no_type, sizeof pam_no_type - 1, &image, error, sizeof error)
          == PNM_OK,
      "PAM without TUPLTYPE: %s", error);
  check (image.channels == 3 && strcmp (image.channel_names[2], "blue") == 0,
         "PAM without TUPLTYPE: channels");

  check (pnm_parse ((const uint8_t *) pgm_small_maxval, sizeof pgm_small_maxval - 1, &image, error,
                    sizeof error)
             == PNM_OK,
         "PGM with maxval 3: %s", error);
  check (image.maxval == 3 && image.bytes_per_sample == 1, "PGM with maxval 3: fields");

  /* A NULL error buffer is allowed. */
  check (pnm_parse ((const uint8_t *) "P9", 2, &image, NULL, 0) == PNM_ERROR_FORMAT,
         "NULL error buffer");
}

typedef struct
{
  pnm_format format;
  int channels;
  const char *tuple_type; /* NULL: no TUPLTYPE line */
  const char *names[4];
} layout;

static const layout layouts[] = {
  { PNM_FORMAT_PGM, 1, NULL, { "gray" } },
  { PNM_FORMAT_PPM, 3, NULL, { "red", "green", "blue" } },
  { PNM_FORMAT_PAM, 1, "GRAYSCALE", { "gray" } },
  { PNM_FORMAT_PAM, 2, "GRAYSCALE_ALPHA", { "gray", "alpha" } },
  { PNM_FORMAT_PAM, 3, "RGB", { "red", "green", "blue" } },
  { PNM_FORMAT_PAM, 4, "RGB_ALPHA", { "red", "green", "blue", "alpha" } },
  { PNM_FORMAT_PAM, 1, NULL, { "gray" } },
  { PNM_FORMAT_PAM, 2, NULL, { "gray", "alpha" } },
  { PNM_FORMAT_PAM, 3, NULL, { "red", "green", "blue" } },
  { PNM_FORMAT_PAM, 4, NULL, { "red", "green", "blue", "alpha" } },
};

/* Random dimensions (1x1, odd widths, single rows and columns), maxvals of both sample widths,
 * comments where the format allows them; every sample must read back. */
static void
test_random_files (int rounds)
{
  int round;

  for (round = 0; round < rounds; round++)
    {
      const layout *l = &layouts[random_below (sizeof layouts / sizeof layouts[0])];
      static const unsigned maxvals[] = { 255, 255, 65535, 1, 7, 1000, 256 };
      unsigned maxval = maxvals[random_below (sizeof maxvals / sizeof maxvals[0])];
      int width = round == 0 ? 1 : 1 + (int) random_below (round % 3 ? 40 : 3);
      int height = round == 0 ? 1 : 1 + (int) random_below (round % 5 ? 30 : 2);
      int bps = maxval > 255 ? 2 : 1;
      size_t samples = (size_t) width * (size_t) height * (size_t) l->channels, i, header;
      unsigned *expected = malloc (samples * sizeof *expected);
      buffer file = { 0 };
      pnm_image image;
      char error[PNM_ERROR_SIZE];
      int x, y, c, bad = 0;

      if (l->format == PNM_FORMAT_PAM)
        {
          buffer_printf (&file, "P7\n");
          if (random_below (2))
            buffer_printf (&file, "# seed %" PRIu64 "\n", seed);
          buffer_printf (&file, "HEIGHT %d\nWIDTH %d\n", height, width);
          if (l->tuple_type)
            buffer_printf (&file, "TUPLTYPE %s\n", l->tuple_type);
          buffer_printf (&file, "MAXVAL %u\nDEPTH %d\nENDHDR\n", maxval, l->channels);
        }
      else
        {
          buffer_printf (&file, "P%c%s%d%s%d\n%u", l->format == PNM_FORMAT_PGM ? '5' : '6',
                         random_below (2) ? "\n# a comment\n" : " ", width,
                         random_below (2) ? " #another\n\t" : " ", height, maxval);
          buffer_printf (&file, "%s", random_below (3) ? "\n" : "#after the maxval\n");
        }
      header = file.size;
      for (i = 0; i < samples; i++)
        {
          /* Whitespace-valued and extreme samples first, so the header's end is tested. */
          unsigned v = i == 0 ? (maxval >= 10 ? 10 : maxval) : random_below (maxval + 1);
          uint8_t bytes[2] = { (uint8_t) (v >> 8), (uint8_t) v };
          expected[i] = v;
          buffer_append (&file, bps == 2 ? bytes : bytes + 1, (size_t) bps);
        }
      if (random_below (2))
        buffer_printf (&file, "P5 1 1 255\n");

      if (pnm_parse (file.data, file.size, &image, error, sizeof error) != PNM_OK)
        {
          check (0, "random %s %dx%dx%d maxval %u: %s", pnm_format_name (l->format), width, height,
                 l->channels, maxval, error);
          goto next;
        }
      check (image.format == l->format && image.width == width && image.height == height
                 && image.channels == l->channels && image.maxval == maxval
                 && image.bytes_per_sample == bps
                 && image.stride == (size_t) width * (size_t) l->channels * (size_t) bps
                 && image.pixels == file.data + header,
             "random %s %dx%dx%d maxval %u: wrong fields", pnm_format_name (l->format), width,
             height, l->channels, maxval);
      for (c = 0; c < l->channels; c++)
        check (image.channel_names[c] && strcmp (image.channel_names[c], l->names[c]) == 0,
               "random %s with %d channels: channel %d is %s, expected %s",
               pnm_format_name (l->format), l->channels, c,
               image.channel_names[c] ? image.channel_names[c] : "NULL", l->names[c]);
      for (y = 0; y < height && !bad; y++)
        for (x = 0; x < width && !bad; x++)
          for (c = 0; c < l->channels && !bad; c++)
            {
              unsigned want
                  = expected[((size_t) y * (size_t) width + (size_t) x) * l->channels + (size_t) c];
              unsigned got = pnm_image_sample (&image, x, y, c);
              if (got != want)
                bad = 1;
              check (got == want, "random %s %dx%dx%d: sample (%d,%d,%d) is %u, expected %u",
                     pnm_format_name (l->format), width, height, l->channels, x, y, c, got, want);
            }

      /* Every cut short of the last sample is an error, never a crash or a partial image. */
      {
        size_t image_end = header + samples * (size_t) bps, cut;
        for (cut = 0; cut < image_end; cut += 1 + random_below (cut < header ? 1 : 7))
          {
            pnm_status status = pnm_parse (file.data, cut, &image, error, sizeof error);
            check (status == PNM_ERROR_FORMAT && error[0] != '\0',
                   "random %s %dx%dx%d cut at %zu of %zu: status %d", pnm_format_name (l->format),
                   width, height, l->channels, cut, image_end, status);
          }
      }
    next:
      free (expected);
      free (file.data);
    }
}

static void
test_raw (void)
{
  uint8_t data[4 * 10 + 6];
  pnm_raw_geometry geometry = { 3, 5, 2, 10 };
  pnm_image image;
  char error[PNM_ERROR_SIZE];
  size_t i;

  for (i = 0; i < sizeof data; i++)
    data[i] = (uint8_t) (i * 7);

  /* Padded rows; the last row needs no padding. */
  check (pnm_parse_raw (data, sizeof data, &geometry, &image, error, sizeof error) == PNM_OK,
         "raw padded: %s", error);
  check (image.format == PNM_FORMAT_RAW && image.stride == 10 && image.maxval == 255
             && pnm_image_sample (&image, 2, 4, 1) == (uint8_t) ((4 * 10 + 5) * 7)
             && strcmp (image.channel_names[1], "alpha") == 0,
         "raw padded: wrong fields or samples");
  check (pnm_parse_raw (data, sizeof data - 1, &geometry, &image, error, sizeof error)
                 == PNM_ERROR_FORMAT
             && strstr (error, "truncated data"),
         "raw one byte short: %s", error);

  geometry.stride = 0;
  check (pnm_parse_raw (data, 30, &geometry, &image, error, sizeof error) == PNM_OK
             && image.stride == 6,
         "raw packed: %s", error);

  geometry.stride = 5;
  check (pnm_parse_raw (data, sizeof data, &geometry, &image, error, sizeof error)
                 == PNM_ERROR_FORMAT
             && strstr (error, "stride 5 is shorter"),
         "raw short stride: %s", error);

  geometry = (pnm_raw_geometry){ 0, 5, 1, 0 };
  check (pnm_parse_raw (data, sizeof data, &geometry, &image, error, sizeof error)
             == PNM_ERROR_FORMAT,
         "raw zero width");
  geometry = (pnm_raw_geometry){ 1, 1, 5, 0 };
  check (pnm_parse_raw (data, sizeof data, &geometry, &image, error, sizeof error)
                 == PNM_ERROR_FORMAT
             && strstr (error, "5 channels"),
         "raw five channels: %s", error);
  geometry = (pnm_raw_geometry){ 1 << 30, 1 << 30, 4, 0 };
  check (pnm_parse_raw (data, sizeof data, &geometry, &image, error, sizeof error)
             == PNM_ERROR_TOO_LARGE,
         "raw huge: %s", error);
  geometry = (pnm_raw_geometry){ 1, 3, 1, SIZE_MAX };
  check (pnm_parse_raw (data, sizeof data, &geometry, &image, error, sizeof error)
             == PNM_ERROR_TOO_LARGE,
         "raw huge stride: %s", error);
}

static void
test_load_file (void)
{
  char path[] = "/tmp/test-pnm-XXXXXX";
  static const char ppm[] = "P6 2 1 255\n\x01\x02\x03\x04\x05\x06";
  pnm_image image;
  char error[PNM_ERROR_SIZE];
  pnm_raw_geometry raw = { 3, 1, 1, 0 };
  int fd = mkstemp (path);

  if (fd < 0 || write (fd, ppm, sizeof ppm - 1) != (ssize_t) (sizeof ppm - 1))
    {
      check (0, "cannot write a temporary file");
      return;
    }
  close (fd);
  check (pnm_load_file (path, NULL, &image, error, sizeof error) == PNM_OK && image.storage
             && image.pixels == image.storage + 11 && pnm_image_sample (&image, 1, 0, 2) == 6,
         "load file: %s", error);
  pnm_image_clear (&image);
  check (image.storage == NULL && image.pixels == NULL, "pnm_image_clear");
  check (pnm_load_file (path, &raw, &image, error, sizeof error) == PNM_OK
             && image.format == PNM_FORMAT_RAW && pnm_image_sample (&image, 0, 0, 0) == 'P',
         "load raw file: %s", error);
  pnm_image_clear (&image);
  unlink (path);
  check (pnm_load_file (path, NULL, &image, error, sizeof error) == PNM_ERROR_IO
             && strstr (error, "cannot open"),
         "load missing file: %s", error);
  check (pnm_load_file ("/", NULL, &image, error, sizeof error) == PNM_ERROR_IO,
         "load a directory: %s", error);
  pnm_image_clear (&image);
}

int
main (void)
{
  const char *forced = getenv ("GPUHIST_TEST_SEED");

  seed = forced ? strtoull (forced, NULL, 0)
                : (uint64_t) time (NULL) * 1000003u ^ (uint64_t) getpid () << 20;
  random_state = seed;
  printf ("seed %" PRIu64 " (set GPUHIST_TEST_SEED to replay)\n", seed);

  test_broken_headers ();
  test_known_headers ();
  test_random_files (400);
  test_raw ();
  test_load_file ();

  if (failures)
    {
      fprintf (stderr, "%d check(s) failed; seed %" PRIu64 "\n", failures, seed);
      return 1;
    }
  printf ("all checks passed\n");
  return 0;
}
