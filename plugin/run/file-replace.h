/* gpu-histogram: a file written beside its destination and renamed over it when complete, as
 * g_file_set_contents writes one, but streamed: a scopes report is tens of megabytes, and
 * building it in memory first, then copying it, took longer than formatting it. */
#ifndef GPUHIST_FILE_REPLACE_H
#define GPUHIST_FILE_REPLACE_H

#include <stdio.h>

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  gchar *path;
  gchar *temporary; /* path.XXXXXX, in the same folder, so that renaming it is atomic */
  FILE *out;
} GpuhistFileReplace;

/* Opens the temporary file for writing; NULL with *error set (GPUHIST_ERROR_WRITE, saying
 * why) when it cannot be made. */
FILE *gpuhist_file_replace_open (GpuhistFileReplace *file, const char *path, GError **error);

/* Closes the temporary file and, when every write to it succeeded, renames it over the
 * destination: other programs see the old file or the whole new one, never a part, and a file
 * that existed with contents is flushed to the disk first (as g_file_set_contents does), so that
 * a crash cannot lose both.  Otherwise removes it, leaves the destination as it was and sets
 * *error (GPUHIST_ERROR_WRITE, saying why). */
gboolean gpuhist_file_replace_commit (GpuhistFileReplace *file, GError **error);
/* Closes and removes the temporary file, the destination left as it was. */
void gpuhist_file_replace_abandon (GpuhistFileReplace *file);

G_END_DECLS

#endif /* GPUHIST_FILE_REPLACE_H */
