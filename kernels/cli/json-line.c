/* gpu-histogram: results as JSON Lines.  The engine's writer makes the object; it is only put on
 * one line here: its strings escape every control character, so a raw newline is layout. */
#include "json-line.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* s as a JSON string. */
static void
write_string (FILE *out, const char *s)
{
  fputc ('"', out);
  for (; *s; s++)
    {
      unsigned char ch = (unsigned char) *s;
      if (ch == '"' || ch == '\\')
        fprintf (out, "\\%c", ch);
      else if (ch < 0x20)
        fprintf (out, "\\u%04x", ch);
      else
        fputc (ch, out);
    }
  fputc ('"', out);
}

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
      write_string (out, file);
      fprintf (out, ", \"%s\": ", key);
      write_string (out, value);
    }
  return out;
}

char *
json_line_result (const char *file, const char *format, const gh_result *result,
                  const char *const *channel_names)
{
  char *text = NULL;
  size_t size = 0;
  FILE *out = start_line (file, "format", format, &text, &size);

  if (!out)
    return NULL;
  fputs (", ", out);
  size_t object_start = (size_t) ftell (out);
  int failed = gh_write_json (out, result, channel_names);
  if (fclose (out) != 0 || failed || !text || text[object_start] != '{')
    {
      free (text);
      return NULL;
    }
  /* The engine's object without its opening brace follows ours. */
  memmove (text + object_start, text + object_start + 1, size - object_start);
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
