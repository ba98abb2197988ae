/* gpu-histogram: the report as a CSV or JSON file.  See report.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "report.h"

static void
json_string (GString *out, const char *s)
{
  g_string_append_c (out, '"');
  for (const unsigned char *p = (const unsigned char *) (s ? s : ""); *p; p++)
    {
      switch (*p)
        {
        case '"': g_string_append (out, "\\\""); break;
        case '\\': g_string_append (out, "\\\\"); break;
        case '\n': g_string_append (out, "\\n"); break;
        case '\r': g_string_append (out, "\\r"); break;
        case '\t': g_string_append (out, "\\t"); break;
        default:
          if (*p < 0x20)
            g_string_append_printf (out, "\\u%04x", *p);
          else
            g_string_append_c (out, (char) *p);
        }
    }
  g_string_append_c (out, '"');
}

/* The engine's JSON object for one result, without its trailing newline; NULL when it fails. */
static gchar *
result_json (const gh_result *result, const char *const *names)
{
  char *text = NULL;
  size_t size = 0;
  FILE *memory = open_memstream (&text, &size);
  gchar *copy;

  if (memory == NULL)
    return NULL;
  if (gh_write_json (memory, result, names) != 0)
    {
      fclose (memory);
      free (text);
      return NULL;
    }
  if (fclose (memory) != 0 || text == NULL)
    {
      free (text);
      return NULL;
    }
  copy = g_strstrip (g_strdup (text));
  free (text);
  if (copy[0] != '{' || !g_str_has_suffix (copy, "}"))
    {
      g_free (copy);
      return NULL;
    }
  return copy;
}

/* separator, then "name": milliseconds, in the C locale whatever the user's. */
static void
json_ms (GString *out, const char *separator, const char *name, double ms)
{
  char number[G_ASCII_DTOSTR_BUF_SIZE];

  g_string_append_printf (out, "%s\"%s\": %s", separator, name,
                          g_ascii_formatd (number, sizeof number, "%.3f", ms));
}

static const char *
json_bool (gboolean value)
{
  return value ? "true" : "false";
}

/* The layer's result as gpuhist writes it, with the plug-in's fields added to the same object:
 * drawable, area, linear, fetch_format, fetch_ms, total_ms, note, and flat / noise (the engine's
 * object for each) when the comparison ran. */
static gchar *
report_json (const GpuhistReport *report)
{
  gchar *layer = result_json (&report->layer, report->channel_names);
  GString *out;

  if (layer == NULL)
    return NULL;

  out = g_string_new (NULL);
  /* everything up to the closing brace, then our members */
  g_string_append_len (out, layer, (gssize) strlen (layer) - 1);
  g_free (layer);
  while (out->len > 0 && g_ascii_isspace (out->str[out->len - 1]))
    g_string_truncate (out, out->len - 1);
  if (out->len > 1) /* the engine's object is not empty */
    g_string_append_c (out, ',');

  g_string_append (out, "\n  \"drawable\": ");
  json_string (out, report->drawable_name);
  g_string_append_printf (out,
                          ",\n  \"area\": {\"x\": %d, \"y\": %d, \"width\": %d, \"height\": %d}",
                          report->area.x, report->area.y, report->area.width, report->area.height);
  g_string_append_printf (out, ",\n  \"linear\": %s", json_bool (report->linear));
  if (report->requested_bins > 0)
    g_string_append_printf (out, ",\n  \"requested_bins\": %d", report->requested_bins);
  g_string_append (out, ",\n  \"fetch_format\": ");
  json_string (out, report->fetch_format);
  json_ms (out, ",\n  ", "fetch_ms", report->fetch_ms);
  json_ms (out, ",\n  ", "total_ms", report->total_ms);
  json_ms (out, ",\n  ", "engine_ms", report->engine_ms);
  g_string_append_printf (out, ",\n  \"engine_kept\": %s", json_bool (report->engine_kept));
  json_ms (out, ",\n  \"phases_ms\": {", "begin", report->begin_ms);
  json_ms (out, ", ", "submit", report->submit_ms);
  json_ms (out, ", ", "finish", report->finish_ms);
  json_ms (out, ", ", "progress", report->progress_ms);
  g_string_append_c (out, '}');
  if (report->note)
    {
      g_string_append (out, ",\n  \"note\": ");
      json_string (out, report->note);
    }

  for (int i = 0; i < 2; i++)
    {
      const gh_result *row = i == 0 ? &report->flat : &report->noise;
      gchar *text;

      if (row->channels == 0 || row->counts == NULL)
        continue;
      text = result_json (row, report->channel_names);
      if (text == NULL)
        {
          g_string_free (out, TRUE);
          return NULL;
        }
      g_string_append_printf (out, ",\n  \"%s\": %s", i == 0 ? "flat" : "noise", text);
      g_free (text);
    }
  g_string_append (out, "\n}\n");
  return g_string_free (out, FALSE);
}

static gboolean
write_json_file (const GpuhistReport *report, const char *path, GError **error)
{
  gchar *text = report_json (report);
  GError *local = NULL;
  gboolean ok = TRUE;

  if (text == NULL)
    {
      g_set_error (error, GPUHIST_ERROR, GPUHIST_ERROR_WRITE,
                   _ ("Could not format the results as JSON."));
      return FALSE;
    }
  if (!g_file_set_contents (path, text, -1, &local))
    {
      g_set_error (error, GPUHIST_ERROR, GPUHIST_ERROR_WRITE, _ ("Could not write \"%s\": %s"),
                   path, local->message);
      g_error_free (local);
      ok = FALSE;
    }
  g_free (text);
  return ok;
}

static gboolean
write_csv_file (const GpuhistReport *report, const char *path, GError **error)
{
  FILE *out = g_fopen (path, "w");
  gboolean ok = TRUE;

  if (out == NULL)
    {
      int saved = errno;
      g_set_error (error, GPUHIST_ERROR, GPUHIST_ERROR_WRITE, _ ("Could not write \"%s\": %s"),
                   path, g_strerror (saved));
      return FALSE;
    }
  if (gh_write_csv (out, &report->layer, report->channel_names) != 0)
    ok = FALSE;
  if (fclose (out) != 0)
    ok = FALSE;
  if (!ok)
    g_set_error (error, GPUHIST_ERROR, GPUHIST_ERROR_WRITE,
                 _ ("Could not write \"%s\": the disk may be full."), path);
  return ok;
}

gboolean
gpuhist_report_write (const GpuhistReport *report, const char *path, GError **error)
{
  gchar *lower;
  gboolean json;

  g_return_val_if_fail (report != NULL, FALSE);
  if (path == NULL || path[0] == '\0')
    return TRUE;
  if (report->layer.counts == NULL)
    {
      g_set_error (error, GPUHIST_ERROR, GPUHIST_ERROR_INVALID_ARGUMENT,
                   _ ("There are no results to write."));
      return FALSE;
    }

  lower = g_ascii_strdown (path, -1);
  json = g_str_has_suffix (lower, ".json");
  if (!json && !g_str_has_suffix (lower, ".csv"))
    {
      g_free (lower);
      g_set_error (error, GPUHIST_ERROR, GPUHIST_ERROR_INVALID_ARGUMENT,
                   _ ("Cannot tell the format of \"%s\": the output file must end in .csv or "
                      ".json."),
                   path);
      return FALSE;
    }
  g_free (lower);
  return json ? write_json_file (report, path, error) : write_csv_file (report, path, error);
}
