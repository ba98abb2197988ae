/* gpu-histogram: replacing a file in one step.  See file-replace.h. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "errors.h"
#include "file-replace.h"

/* Large writes: the engine hands over its numbers in blocks of this order. */
#define WRITE_BUFFER ((size_t) 1 << 20)

static void
write_error (GError **error, const char *path, int saved)
{
  g_set_error (error, GPUHIST_ERROR, GPUHIST_ERROR_WRITE, _ ("Could not write \"%s\": %s"), path,
               g_strerror (saved));
}

static void
forget (GpuhistFileReplace *file)
{
  g_clear_pointer (&file->path, g_free);
  g_clear_pointer (&file->temporary, g_free);
  file->out = NULL;
}

FILE *
gpuhist_file_replace_open (GpuhistFileReplace *file, const char *path, GError **error)
{
  int fd, saved;

  file->path = g_strdup (path);
  file->temporary = g_strdup_printf ("%s.XXXXXX", path);
  file->out = NULL;
  fd = g_mkstemp_full (file->temporary, O_WRONLY | O_CLOEXEC, 0666);
  if (fd >= 0)
    file->out = fdopen (fd, "w");
  if (file->out != NULL)
    {
      setvbuf (file->out, NULL, _IOFBF, WRITE_BUFFER);
      return file->out;
    }
  saved = errno;
  if (fd >= 0)
    {
      close (fd);
      g_unlink (file->temporary);
    }
  write_error (error, path, saved);
  forget (file);
  return NULL;
}

/* g_file_set_contents's rule: an existing file with contents is worth an fsync. */
static gboolean
replaces_contents (const char *path)
{
  GStatBuf status;

  return g_lstat (path, &status) == 0 && status.st_size > 0;
}

static int
finish_writing (FILE *out, const char *path)
{
  if (fflush (out) != 0 || ferror (out))
    return errno ? errno : EIO;
  if (replaces_contents (path) && fsync (fileno (out)) != 0)
    return errno;
  return 0;
}

gboolean
gpuhist_file_replace_commit (GpuhistFileReplace *file, GError **error)
{
  int saved;

  errno = 0;
  saved = finish_writing (file->out, file->path);
  if (fclose (file->out) != 0 && saved == 0)
    saved = errno ? errno : EIO;
  if (saved == 0 && g_rename (file->temporary, file->path) != 0)
    saved = errno;
  if (saved != 0)
    {
      g_unlink (file->temporary);
      write_error (error, file->path, saved);
    }
  forget (file);
  return saved == 0;
}

void
gpuhist_file_replace_abandon (GpuhistFileReplace *file)
{
  fclose (file->out);
  g_unlink (file->temporary);
  forget (file);
}
