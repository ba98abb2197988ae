/* gpu-histogram: which reader opens a file.  Netpbm (anything that starts with P and a digit),
 * raw samples and standard input go to the strict reader; the rest to libvips. */
#include "image-source.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int
image_source_is_netpbm (const char *path)
{
  unsigned char magic[2];
  FILE *file = fopen (path, "rb");
  size_t got;

  if (!file)
    return 0;
  got = fread (magic, 1, sizeof magic, file);
  fclose (file);
  /* An empty or one-byte file too: the strict reader says what is wrong with it. */
  return got < 2 || (magic[0] == 'P' && magic[1] >= '0' && magic[1] <= '9');
}

image_source *
image_source_open (const source_request *request, char *error, size_t error_size)
{
  struct stat about;

  if (request->raw || strcmp (request->path, "-") == 0)
    return pnm_source_open (request, error, error_size);
  if (stat (request->path, &about) != 0)
    {
      snprintf (error, error_size, "cannot open: %s", strerror (errno));
      return NULL;
    }
  if (S_ISDIR (about.st_mode))
    {
      snprintf (error, error_size,
                "is a directory (read failed; --json-lines counts the files "
                "in a directory)");
      return NULL;
    }
  if (image_source_is_netpbm (request->path))
    return pnm_source_open (request, error, error_size);
  return vips_source_open (request, error, error_size);
}
