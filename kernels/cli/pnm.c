/* gpu-histogram: a strict reader for binary Netpbm images (P5, P6, P7) and raw samples.
 *
 * Strict means: every header field is checked, every size is computed without overflow before it
 * is trusted, and the data must hold every sample the header promises.  The messages name the
 * problem in words, because the tool shows them to a user as they are.
 */
#include "pnm-private.h"
#include "pnm.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Past this a number in a header is wrong whatever field it is; keeps the arithmetic in range. */
#define NUMBER_SATURATION ((uint64_t) UINT32_MAX + 1)

typedef struct
{
  const uint8_t *data;
  size_t size;
  size_t pos;
  char *error;
  size_t error_size;
} cursor;

pnm_status
pnm_fail (char *error, size_t error_size, pnm_status status, const char *format, ...)
{
  if (error && error_size > 0)
    {
      va_list args;
      va_start (args, format);
      vsnprintf (error, error_size, format, args);
      va_end (args);
    }
  return status;
}

/* Netpbm's whitespace: what isspace gives in the C locale, without depending on the locale. */
static int
is_pnm_space (uint8_t c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

static int
is_digit (uint8_t c)
{
  return c >= '0' && c <= '9';
}

/* A byte as a message can show it: 'x', or byte 0x07 for what would garble a terminal. */
static void
describe_byte (uint8_t c, char *text, size_t text_size)
{
  if (c >= 0x20 && c < 0x7f && c != '\'')
    snprintf (text, text_size, "'%c'", c);
  else
    snprintf (text, text_size, "byte 0x%02x", c);
}

/* Up to 20 characters of a token, with unprintable bytes as '?', for messages. */
static void
describe_token (const uint8_t *token, size_t length, char *text, size_t text_size)
{
  size_t shown = length < 20 ? length : 20;
  size_t i;

  if (text_size < shown + 4)
    shown = text_size > 4 ? text_size - 4 : 0;
  for (i = 0; i < shown; i++)
    text[i] = (token[i] >= 0x20 && token[i] < 0x7f) ? (char) token[i] : '?';
  if (shown < length && text_size >= shown + 4)
    {
      memcpy (text + shown, "...", 3);
      shown += 3;
    }
  text[shown] = '\0';
}

/* Reads a run of digits, saturating so that absurd values stay comparable without overflow. */
static uint64_t
read_digits (const uint8_t *digits, size_t length)
{
  uint64_t value = 0;
  size_t i;

  for (i = 0; i < length; i++)
    {
      value = value * 10 + (uint64_t) (digits[i] - '0');
      if (value >= NUMBER_SATURATION)
        return NUMBER_SATURATION;
    }
  return value;
}

static void
skip_comment (cursor *c)
{
  while (c->pos < c->size && c->data[c->pos] != '\n' && c->data[c->pos] != '\r')
    c->pos++;
}

/* P5/P6: whitespace and # comments may come between any two header fields. */
static void
skip_space_and_comments (cursor *c)
{
  while (c->pos < c->size)
    {
      uint8_t ch = c->data[c->pos];
      if (ch == '#')
        skip_comment (c);
      else if (is_pnm_space (ch))
        c->pos++;
      else
        break;
    }
}

static pnm_status
read_header_number (cursor *c, const char *field, uint64_t *value)
{
  size_t start;
  char found[24];

  skip_space_and_comments (c);
  if (c->pos >= c->size)
    return pnm_fail (c->error, c->error_size, PNM_ERROR_FORMAT,
                     "truncated header: the file ends before the %s", field);
  start = c->pos;
  while (c->pos < c->size && is_digit (c->data[c->pos]))
    c->pos++;
  if (c->pos == start)
    {
      describe_byte (c->data[start], found, sizeof found);
      return pnm_fail (c->error, c->error_size, PNM_ERROR_FORMAT,
                       "the %s is not a number: found %s", field, found);
    }
  if (c->pos >= c->size)
    return pnm_fail (c->error, c->error_size, PNM_ERROR_FORMAT,
                     "truncated header: the file ends right after the %s", field);
  if (!is_pnm_space (c->data[c->pos]) && c->data[c->pos] != '#')
    {
      describe_byte (c->data[c->pos], found, sizeof found);
      return pnm_fail (c->error, c->error_size, PNM_ERROR_FORMAT,
                       "the %s is not a number: found %s after its digits", field, found);
    }
  *value = read_digits (c->data + start, c->pos - start);
  return PNM_OK;
}

void
pnm_clear_image (pnm_image *image)
{
  memset (image, 0, sizeof *image);
}

void
pnm_default_channel_names (int channels, const char **names)
{
  static const char *const gray[] = { "gray", "alpha" };
  static const char *const color[] = { "red", "green", "blue", "alpha" };
  const char *const *source = channels <= 2 ? gray : color;
  int i;

  for (i = 0; i < channels && i < PNM_MAX_CHANNELS; i++)
    names[i] = source[i];
}

/* The checks every format shares: positive dimensions, a maxval in range, a byte size that stays
 * under the cap and within what the data holds, and samples no larger than maxval. */
static pnm_status
finish_image (cursor *c, uint64_t width, uint64_t height, uint64_t channels, uint64_t maxval,
              pnm_image *out)
{
  uint64_t bytes_per_sample, row_bytes, image_bytes, available;

  if (width == 0)
    return pnm_fail (c->error, c->error_size, PNM_ERROR_FORMAT, "zero width");
  if (height == 0)
    return pnm_fail (c->error, c->error_size, PNM_ERROR_FORMAT, "zero height");
  if (maxval == 0 || maxval > 65535)
    return pnm_fail (c->error, c->error_size, PNM_ERROR_FORMAT,
                     "maxval %" PRIu64 "%s is out of range: Netpbm allows 1 to 65535", maxval,
                     maxval >= NUMBER_SATURATION ? " or more" : "");
  if (width > INT32_MAX || height > INT32_MAX)
    return pnm_fail (c->error, c->error_size, PNM_ERROR_TOO_LARGE,
                     "dimensions %" PRIu64 "x%" PRIu64 "%s are too large: at most %d pixels a side",
                     width, height, (width | height) >= NUMBER_SATURATION ? " (or more)" : "",
                     INT32_MAX);

  bytes_per_sample = maxval > 255 ? 2 : 1;
  /* width, channels and sample size are small, so row_bytes cannot overflow; the division keeps
     row_bytes * height from doing so. */
  row_bytes = width * channels * bytes_per_sample;
  if (height > PNM_MAX_IMAGE_BYTES / row_bytes || row_bytes * height > SIZE_MAX)
    return pnm_fail (c->error, c->error_size, PNM_ERROR_TOO_LARGE,
                     "image too large: %" PRIu64 "x%" PRIu64 " pixels of %" PRIu64
                     " bytes each are more than %" PRIu64 " GiB",
                     width, height, channels * bytes_per_sample,
                     (uint64_t) (PNM_MAX_IMAGE_BYTES < SIZE_MAX ? PNM_MAX_IMAGE_BYTES : SIZE_MAX)
                         >> 30);
  image_bytes = row_bytes * height;
  available = c->size - c->pos;
  if (available < image_bytes)
    return pnm_fail (c->error, c->error_size, PNM_ERROR_FORMAT,
                     "truncated data: %" PRIu64 "x%" PRIu64 " with %" PRIu64
                     " channels needs %" PRIu64 " bytes of samples, the file has %" PRIu64,
                     width, height, channels, image_bytes, available);

  /* A maxval below the sample's full range promises that no sample exceeds it; a strict reader
     holds the file to that, so that no caller ever bins a value past maxval. */
  if (maxval != 255 && maxval != 65535)
    {
      const uint8_t *samples = c->data + c->pos;
      uint64_t count = image_bytes / bytes_per_sample, i;
      for (i = 0; i < count; i++)
        {
          unsigned value = bytes_per_sample == 1
                               ? samples[i]
                               : (unsigned) samples[2 * i] << 8 | samples[2 * i + 1];
          if (value > maxval)
            {
              uint64_t pixel = i / channels;
              return pnm_fail (c->error, c->error_size, PNM_ERROR_FORMAT,
                               "sample %u at row %" PRIu64 ", column %" PRIu64
                               " is larger than the maxval %" PRIu64,
                               value, pixel / width, pixel % width, maxval);
            }
        }
    }

  out->width = (int) width;
  out->height = (int) height;
  out->channels = (int) channels;
  out->maxval = (unsigned) maxval;
  out->bytes_per_sample = (int) bytes_per_sample;
  out->stride = (size_t) row_bytes;
  out->pixels = c->data + c->pos;
  return PNM_OK;
}

static pnm_status
parse_pgm_ppm (cursor *c, int channels, pnm_image *out)
{
  uint64_t width, height, maxval;
  pnm_status status;

  if ((status = read_header_number (c, "width", &width)) != PNM_OK
      || (status = read_header_number (c, "height", &height)) != PNM_OK
      || (status = read_header_number (c, "maxval", &maxval)) != PNM_OK)
    return status;

  /* Exactly one whitespace byte ends the header, since the data may begin with a byte that looks
     like whitespace.  A comment there runs to its newline, as in libnetpbm. */
  if (c->data[c->pos] == '#')
    {
      skip_comment (c);
      if (c->pos >= c->size)
        return pnm_fail (c->error, c->error_size, PNM_ERROR_FORMAT,
                         "truncated header: the file ends inside the comment after the maxval");
    }
  c->pos++;

  out->format = channels == 1 ? PNM_FORMAT_PGM : PNM_FORMAT_PPM;
  pnm_default_channel_names (channels, out->channel_names);
  return finish_image (c, width, height, (uint64_t) channels, maxval, out);
}

typedef struct
{
  const char *name;
  int depth;
} tuple_type;

static const tuple_type known_tuple_types[] = {
  { "GRAYSCALE", 1 },
  { "GRAYSCALE_ALPHA", 2 },
  { "RGB", 3 },
  { "RGB_ALPHA", 4 },
};

static int
token_is (const uint8_t *token, size_t length, const char *word)
{
  return strlen (word) == length && memcmp (token, word, length) == 0;
}

enum
{
  PAM_WIDTH,
  PAM_HEIGHT,
  PAM_DEPTH,
  PAM_MAXVAL,
  PAM_N_NUMBERS
};

static const char *const pam_number_names[PAM_N_NUMBERS] = { "WIDTH", "HEIGHT", "DEPTH", "MAXVAL" };

/* What a PAM header has said so far. */
typedef struct
{
  uint64_t numbers[PAM_N_NUMBERS];
  int seen[PAM_N_NUMBERS];
  const tuple_type *type;
  int tuple_lines;
} pam_header;

/* The magic is a line of its own. */
static pnm_status
skip_pam_magic_line (cursor *c)
{
  while (c->pos < c->size && c->data[c->pos] != '\n' && is_pnm_space (c->data[c->pos]))
    c->pos++;
  if (c->pos >= c->size)
    return pnm_fail (c->error, c->error_size, PNM_ERROR_FORMAT,
                     "truncated header: the file ends after P7");
  if (c->data[c->pos] != '\n')
    return pnm_fail (c->error, c->error_size, PNM_ERROR_FORMAT,
                     "P7 must be alone on the first line of a PAM file");
  c->pos++;
  return PNM_OK;
}

/* Splits a header line (without its newline) into its keyword and its value, both trimmed.
 * Returns 0 for a blank line or a comment. */
static int
split_pam_line (const uint8_t *line, const uint8_t *end, const uint8_t **keyword,
                size_t *keyword_length, const uint8_t **value, size_t *value_length)
{
  const uint8_t *k = line, *v;

  while (k < end && is_pnm_space (*k))
    k++;
  if (k == end || *k == '#')
    return 0;
  v = k;
  while (v < end && !is_pnm_space (*v))
    v++;
  *keyword = k;
  *keyword_length = (size_t) (v - k);
  while (v < end && is_pnm_space (*v))
    v++;
  while (end > v && is_pnm_space (end[-1]))
    end--;
  *value = v;
  *value_length = (size_t) (end - v);
  return 1;
}

/* A TUPLTYPE line's value. */
static pnm_status
take_pam_tuple_type (cursor *c, pam_header *header, const uint8_t *value, size_t value_length)
{
  char text[32];

  /* Several TUPLTYPE lines concatenate, per the spec: none of the joined names is one
     this reader knows, so a second line makes the type unknown. */
  header->tuple_lines++;
  header->type = NULL;
  for (int i = 0; i < (int) (sizeof known_tuple_types / sizeof known_tuple_types[0]); i++)
    if (token_is (value, value_length, known_tuple_types[i].name))
      header->type = &known_tuple_types[i];
  if (!header->type || header->tuple_lines > 1)
    {
      describe_token (value, value_length, text, sizeof text);
      return pnm_fail (c->error, c->error_size, PNM_ERROR_FORMAT,
                       "unsupported TUPLTYPE '%s'%s: only GRAYSCALE, GRAYSCALE_ALPHA, RGB "
                       "and RGB_ALPHA are read",
                       text, header->tuple_lines > 1 ? " (after another TUPLTYPE line)" : "");
    }
  return PNM_OK;
}

/* A WIDTH, HEIGHT, DEPTH or MAXVAL line: once each, a whole number. */
static pnm_status
take_pam_number (cursor *c, pam_header *header, const uint8_t *keyword, size_t keyword_length,
                 const uint8_t *value, size_t value_length)
{
  char text[32];
  size_t digits = 0;
  int i;

  for (i = 0; i < PAM_N_NUMBERS; i++)
    if (token_is (keyword, keyword_length, pam_number_names[i]))
      break;
  if (i == PAM_N_NUMBERS)
    {
      describe_token (keyword, keyword_length, text, sizeof text);
      return pnm_fail (c->error, c->error_size, PNM_ERROR_FORMAT,
                       "unknown PAM header line '%s' (is ENDHDR missing?)", text);
    }
  if (header->seen[i])
    return pnm_fail (c->error, c->error_size, PNM_ERROR_FORMAT,
                     "%s appears twice in the PAM header", pam_number_names[i]);
  header->seen[i] = 1;
  while (digits < value_length && is_digit (value[digits]))
    digits++;
  if (value_length == 0 || digits != value_length)
    {
      describe_token (value, value_length, text, sizeof text);
      return pnm_fail (c->error, c->error_size, PNM_ERROR_FORMAT, "%s '%s' is not a number",
                       pam_number_names[i], text);
    }
  header->numbers[i] = read_digits (value, value_length);
  return PNM_OK;
}

/* The header's lines up to ENDHDR. */
static pnm_status
read_pam_header (cursor *c, pam_header *header)
{
  for (;;)
    {
      const uint8_t *line = c->data + c->pos, *keyword, *value;
      size_t line_length, keyword_length, value_length;
      const uint8_t *newline = memchr (line, '\n', c->size - c->pos);
      pnm_status status;

      if (!newline)
        return pnm_fail (c->error, c->error_size, PNM_ERROR_FORMAT,
                         "truncated header: the file ends before ENDHDR");
      line_length = (size_t) (newline - line);
      c->pos += line_length + 1;
      if (!split_pam_line (line, line + line_length, &keyword, &keyword_length, &value,
                           &value_length))
        continue;

      if (token_is (keyword, keyword_length, "ENDHDR"))
        {
          if (value_length > 0)
            return pnm_fail (c->error, c->error_size, PNM_ERROR_FORMAT,
                             "ENDHDR must be alone on its line");
          return PNM_OK;
        }
      if (token_is (keyword, keyword_length, "TUPLTYPE"))
        status = take_pam_tuple_type (c, header, value, value_length);
      else
        status = take_pam_number (c, header, keyword, keyword_length, value, value_length);
      if (status != PNM_OK)
        return status;
    }
}

/* Every number given, and a depth this reader takes that matches the tuple type. */
static pnm_status
check_pam_header (cursor *c, const pam_header *header)
{
  const uint64_t depth = header->numbers[PAM_DEPTH];

  for (int i = 0; i < PAM_N_NUMBERS; i++)
    if (!header->seen[i])
      return pnm_fail (c->error, c->error_size, PNM_ERROR_FORMAT, "the PAM header has no %s line",
                       pam_number_names[i]);
  if (depth == 0)
    return pnm_fail (c->error, c->error_size, PNM_ERROR_FORMAT, "zero depth");
  if (depth > PNM_MAX_CHANNELS)
    return pnm_fail (c->error, c->error_size, PNM_ERROR_FORMAT,
                     "DEPTH %" PRIu64 "%s: only 1 to %d channels are supported", depth,
                     depth >= NUMBER_SATURATION ? " or more" : "", PNM_MAX_CHANNELS);
  if (header->type && (uint64_t) header->type->depth != depth)
    return pnm_fail (c->error, c->error_size, PNM_ERROR_FORMAT,
                     "DEPTH %" PRIu64 " does not match TUPLTYPE %s, which has %d channel%s", depth,
                     header->type->name, header->type->depth, header->type->depth == 1 ? "" : "s");
  return PNM_OK;
}

/* P7: a header of "KEYWORD value" lines ending with ENDHDR. */
static pnm_status
parse_pam (cursor *c, pnm_image *out)
{
  pam_header header = { { 0 }, { 0 }, NULL, 0 };
  pnm_status status = skip_pam_magic_line (c);

  if (status == PNM_OK)
    status = read_pam_header (c, &header);
  if (status == PNM_OK)
    status = check_pam_header (c, &header);
  if (status != PNM_OK)
    return status;

  out->format = PNM_FORMAT_PAM;
  /* The known tuple types name their channels exactly as the defaults for their depth do. */
  pnm_default_channel_names ((int) header.numbers[PAM_DEPTH], out->channel_names);
  return finish_image (c, header.numbers[PAM_WIDTH], header.numbers[PAM_HEIGHT],
                       header.numbers[PAM_DEPTH], header.numbers[PAM_MAXVAL], out);
}

pnm_status
pnm_parse (const uint8_t *data, size_t size, pnm_image *out, char *error, size_t error_size)
{
  cursor c = { data, size, 0, error, error_size };
  pnm_status status;
  char found[24];

  pnm_clear_image (out);
  if (error && error_size > 0)
    error[0] = '\0';
  if (!data || size == 0)
    return pnm_fail (error, error_size, PNM_ERROR_FORMAT, "empty file: no image in it");
  if (size < 2)
    return pnm_fail (error, error_size, PNM_ERROR_FORMAT,
                     "truncated header: the file is too short for a magic number");
  if (data[0] != 'P' || data[1] < '1' || data[1] > '7')
    {
      describe_token (data, 2, found, sizeof found);
      return pnm_fail (error, error_size, PNM_ERROR_FORMAT,
                       "not a Netpbm image: it starts with '%s' instead of P5, P6 or P7", found);
    }
  if (data[1] < '5')
    return pnm_fail (error, error_size, PNM_ERROR_FORMAT,
                     "P%c (%s %s) is not supported: only binary P5, P6 and P7 are read", data[1],
                     data[1] == '1' || data[1] == '4' ? "PBM"
                     : data[1] == '2'                 ? "PGM"
                                                      : "PPM",
                     data[1] <= '3' ? "as text" : "bitmap");
  if (size == 2)
    return pnm_fail (error, error_size, PNM_ERROR_FORMAT,
                     "truncated header: the file ends after its magic number");
  if (!is_pnm_space (data[2]) && !(data[1] != '7' && data[2] == '#'))
    {
      describe_byte (data[2], found, sizeof found);
      return pnm_fail (error, error_size, PNM_ERROR_FORMAT,
                       "not a Netpbm image: its magic number P%c is followed by %s", data[1],
                       found);
    }
  c.pos = 2;

  if (data[1] == '7')
    status = parse_pam (&c, out);
  else
    status = parse_pgm_ppm (&c, data[1] == '5' ? 1 : 3, out);
  if (status != PNM_OK)
    pnm_clear_image (out);
  return status;
}

pnm_status
pnm_parse_raw (const uint8_t *data, size_t size, const pnm_raw_geometry *geometry, pnm_image *out,
               char *error, size_t error_size)
{
  uint64_t row_bytes, stride, needed;

  pnm_clear_image (out);
  if (error && error_size > 0)
    error[0] = '\0';
  if (geometry->width <= 0 || geometry->height <= 0)
    return pnm_fail (error, error_size, PNM_ERROR_FORMAT,
                     "raw geometry %dx%d: width and height must be at least 1", geometry->width,
                     geometry->height);
  if (geometry->channels < 1 || geometry->channels > PNM_MAX_CHANNELS)
    return pnm_fail (error, error_size, PNM_ERROR_FORMAT,
                     "raw input with %d channels: only 1 to %d are supported", geometry->channels,
                     PNM_MAX_CHANNELS);
  row_bytes = (uint64_t) geometry->width * (uint64_t) geometry->channels;
  stride = geometry->stride ? (uint64_t) geometry->stride : row_bytes;
  if (stride < row_bytes)
    return pnm_fail (error, error_size, PNM_ERROR_FORMAT,
                     "raw stride %" PRIu64 " is shorter than a row of %" PRIu64 " bytes", stride,
                     row_bytes);
  /* The last row needs no padding after it. */
  if (stride > PNM_MAX_IMAGE_BYTES
      || (uint64_t) (geometry->height - 1) > (PNM_MAX_IMAGE_BYTES - row_bytes) / stride)
    return pnm_fail (error, error_size, PNM_ERROR_TOO_LARGE,
                     "raw image too large: %d rows %" PRIu64 " bytes apart are more than %" PRIu64
                     " GiB",
                     geometry->height, stride, (uint64_t) (PNM_MAX_IMAGE_BYTES >> 30));
  needed = stride * (uint64_t) (geometry->height - 1) + row_bytes;
  if (needed > SIZE_MAX)
    return pnm_fail (error, error_size, PNM_ERROR_TOO_LARGE,
                     "raw image too large for this machine's address space");
  if ((uint64_t) size < needed)
    return pnm_fail (error, error_size, PNM_ERROR_FORMAT,
                     "truncated data: %dx%d with %d channels and stride %" PRIu64 " needs %" PRIu64
                     " bytes, the input has %zu",
                     geometry->width, geometry->height, geometry->channels, stride, needed, size);

  out->format = PNM_FORMAT_RAW;
  out->width = geometry->width;
  out->height = geometry->height;
  out->channels = geometry->channels;
  out->maxval = 255;
  out->bytes_per_sample = 1;
  out->stride = (size_t) stride;
  out->pixels = data;
  pnm_default_channel_names (geometry->channels, out->channel_names);
  return PNM_OK;
}

void
pnm_image_clear (pnm_image *image)
{
  if (!image)
    return;
  free (image->storage);
  pnm_clear_image (image);
}

unsigned
pnm_image_sample (const pnm_image *image, int x, int y, int c)
{
  const uint8_t *sample
      = image->pixels + (size_t) y * image->stride
        + ((size_t) x * (size_t) image->channels + (size_t) c) * (size_t) image->bytes_per_sample;
  return image->bytes_per_sample == 2 ? (unsigned) sample[0] << 8 | sample[1] : sample[0];
}

const char *
pnm_format_name (pnm_format format)
{
  switch (format)
    {
    case PNM_FORMAT_PGM: return "PGM";
    case PNM_FORMAT_PPM: return "PPM";
    case PNM_FORMAT_PAM: return "PAM";
    case PNM_FORMAT_RAW: return "raw";
    }
  return "unknown";
}
