/* gpu-histogram: results as JSON Lines.  The engine's writer makes the object; it is only put on
 * one line here: its strings escape every control character, so a raw newline is layout. */
#include "json-line.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Removes each newline and the indentation after it, in place. */
static void
join_lines (char *text)
{
  char *to = text;
  for (const char *from = text; *from;)
    if (*from == '\n')
      {
        from++;
        while (*from == ' ')
          from++;
      }
    else
      *to++ = *from++;
  *to = '\0';
}

/* A line in memory that starts {"file": FILE, "KEY": VALUE */
static FILE *
start_line (const char *file, const char *key, const char *value, char **text, size_t *size)
{
  FILE *out = open_memstream (text, size);
  if (out)
    {
      fputs ("{\"file\": ", out);
      gh_write_json_string (out, file);
      fprintf (out, ", \"%s\": ", key);
      gh_write_json_string (out, value);
    }
  return out;
}

char *
json_line_result (const char *file, const char *format, const gh_result *result,
                  const char *const *channel_names, int scope_numerators)
{
  char *text = NULL;
  size_t size = 0;
  FILE *out = open_memstream (&text, &size);

  if (!out)
    return NULL;
  /* The engine's object, with the file and its format as its last members. */
  int failed = gh_write_json_begin (out, result, channel_names);
  failed |= gh_write_scopes_json (out, result, channel_names, scope_numerators);
  fputs (",\n  \"file\": ", out);
  gh_write_json_string (out, file);
  fputs (", \"format\": ", out);
  gh_write_json_string (out, format);
  fputs ("}", out);
  if (fclose (out) != 0 || failed || !text)
    {
      free (text);
      return NULL;
    }
  join_lines (text);
  return text;
}

char *
json_line_error (const char *file, const char *error)
{
  char *text = NULL;
  size_t size = 0;
  FILE *out = start_line (file, "error", error, &text, &size);

  if (!out)
    return NULL;
  fputs ("}", out);
  if (fclose (out) == 0)
    return text;
  free (text);
  return NULL;
}
