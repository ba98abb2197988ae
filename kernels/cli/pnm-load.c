/* gpu-histogram: reading a Netpbm image or raw samples from a stream or a file, whole, then
 * parsing it with pnm.c's strict reader. */
#include "pnm-private.h"
#include "pnm.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Reads the whole stream: the formats have no length field to read ahead by, and a raw image's
 * size is only checked once it is all here. */
static pnm_status
read_all (FILE *stream, uint8_t **data, size_t *size, char *error, size_t error_size)
{
  /* A header and padding beyond the largest image accepted is still a corrupt file. */
  const uint64_t limit = PNM_MAX_IMAGE_BYTES + ((uint64_t) 1 << 20);
  size_t capacity = (size_t) 1 << 16, length = 0;
  uint8_t *buffer;
  struct stat info;

  if (fstat (fileno (stream), &info) == 0 && S_ISREG (info.st_mode) && info.st_size > 0
      && (uint64_t) info.st_size < limit && (uint64_t) info.st_size < SIZE_MAX)
    capacity = (size_t) info.st_size + 1; /* + 1: end of file is seen without a regrow */

  buffer = malloc (capacity);
  if (!buffer)
    return pnm_fail (error, error_size, PNM_ERROR_NO_MEMORY,
                     "out of memory reading the file (%zu bytes)", capacity);
  for (;;)
    {
      size_t got;
      if (length == capacity)
        {
          uint8_t *grown;
          size_t new_capacity = capacity <= SIZE_MAX / 2 ? capacity * 2 : SIZE_MAX;
          if ((uint64_t) capacity >= limit || new_capacity == capacity)
            {
              free (buffer);
              return pnm_fail (error, error_size, PNM_ERROR_TOO_LARGE,
                               "the input is larger than any image gpuhist reads (%" PRIu64 " GiB)",
                               (uint64_t) (PNM_MAX_IMAGE_BYTES >> 30));
            }
          grown = realloc (buffer, new_capacity);
          if (!grown)
            {
              free (buffer);
              return pnm_fail (error, error_size, PNM_ERROR_NO_MEMORY,
                               "out of memory reading the file (%zu bytes)", new_capacity);
            }
          buffer = grown;
          capacity = new_capacity;
        }
      got = fread (buffer + length, 1, capacity - length, stream);
      length += got;
      if (got == 0)
        break;
    }
  if (ferror (stream))
    {
      int saved = errno;
      free (buffer);
      return pnm_fail (error, error_size, PNM_ERROR_IO, "read failed: %s",
                       saved ? strerror (saved) : "I/O error");
    }
  *data = buffer;
  *size = length;
  return PNM_OK;
}

pnm_status
pnm_load_stream (FILE *stream, const pnm_raw_geometry *raw, pnm_image *out, char *error,
                 size_t error_size)
{
  uint8_t *data = NULL;
  size_t size = 0;
  pnm_status status;

  pnm_clear_image (out);
  errno = 0;
  status = read_all (stream, &data, &size, error, error_size);
  if (status != PNM_OK)
    return status;
  status = raw ? pnm_parse_raw (data, size, raw, out, error, error_size)
               : pnm_parse (data, size, out, error, error_size);
  if (status != PNM_OK)
    {
      free (data);
      return status;
    }
  out->storage = data;
  return PNM_OK;
}

pnm_status
pnm_load_file (const char *path, const pnm_raw_geometry *raw, pnm_image *out, char *error,
               size_t error_size)
{
  FILE *stream;
  pnm_status status;

  pnm_clear_image (out);
  stream = fopen (path, "rb");
  if (!stream)
    return pnm_fail (error, error_size, PNM_ERROR_IO, "cannot open: %s", strerror (errno));
  status = pnm_load_stream (stream, raw, out, error, error_size);
  fclose (stream);
  return status;
}
