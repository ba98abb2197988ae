/* gpu-histogram: the report as a CSV or JSON file.  See report.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "channel-stats.h"
#include "file-replace.h"
#include "report.h"

/* The JSON's members of the comparison's runs, by gh_pattern. */
static const char *const pattern_keys[GH_N_PATTERNS] = { "flat", "noise" };

/* Strings as the engine escapes them; NULL as "". */
static void
json_string (FILE *out, const char *s)
{
  gh_write_json_string (out, s ? s : "");
}

/* separator, then "name": milliseconds, in the C locale whatever the user's. */
static void
json_ms (FILE *out, const char *separator, const char *name, double ms)
{
  char number[G_ASCII_DTOSTR_BUF_SIZE];

  fprintf (out, "%s\"%s\": %s", separator, name,
           g_ascii_formatd (number, sizeof number, "%.3f", ms));
}

static const char *
json_bool (gboolean value)
{
  return value ? "true" : "false";
}

/* Each channel's clipping: the share of its counted weight in the lowest bin (shadows) and in
 * the highest (highlights), 0 for an empty channel.  An object by channel name, since the
 * channels' own objects are the engine's. */
static void
write_clipping (FILE *out, const GpuhistReport *report)
{
  const gh_result *r = &report->layer;
  char low[G_ASCII_DTOSTR_BUF_SIZE];
  char high[G_ASCII_DTOSTR_BUF_SIZE];

  fputs (",\n  \"clipping\": {", out);
  for (int c = 0; r->values != NULL && c < report->channels && c < r->channels; c++)
    {
      double shadows, highlights;

      gpuhist_channel_clipping (r, c, &shadows, &highlights);
      g_ascii_formatd (low, sizeof low, "%.9g", shadows);
      g_ascii_formatd (high, sizeof high, "%.9g", highlights);
      fputs (c > 0 ? ", " : "", out);
      json_string (out, report->channel_names[c]);
      fprintf (out, ": {\"shadows\": %s, \"highlights\": %s}", low, high);
    }
  fputc ('}', out);
}

/* The plug-in's members after the engine's: clipping, drawable, area, linear, the bins asked for,
 * the fetch format, the times, and the note. */
static void
write_plugin_members (FILE *out, const GpuhistReport *report)
{
  write_clipping (out, report);
  fputs (",\n  \"drawable\": ", out);
  json_string (out, report->drawable_name);
  fprintf (out, ",\n  \"area\": {\"x\": %d, \"y\": %d, \"width\": %d, \"height\": %d}",
           report->area.x, report->area.y, report->area.width, report->area.height);
  fprintf (out, ",\n  \"linear\": %s", json_bool (report->linear));
  if (report->requested_bins > 0)
    fprintf (out, ",\n  \"requested_bins\": %d", report->requested_bins);
  fputs (",\n  \"fetch_format\": ", out);
  json_string (out, report->fetch_format);
  json_ms (out, ",\n  ", "fetch_ms", report->fetch_ms);
  json_ms (out, ",\n  ", "total_ms", report->total_ms);
  json_ms (out, ",\n  ", "engine_ms", report->engine_ms);
  fprintf (out, ",\n  \"engine_kept\": %s", json_bool (report->engine_kept));
  json_ms (out, ",\n  \"phases_ms\": {", "begin", report->begin_ms);
  json_ms (out, ", ", "submit", report->submit_ms);
  json_ms (out, ", ", "finish", report->finish_ms);
  json_ms (out, ", ", "progress", report->progress_ms);
  fputc ('}', out);
  if (report->note)
    {
      fputs (",\n  \"note\": ", out);
      json_string (out, report->note);
    }
}

/* One object, the engine's writer's: the layer's result with the plug-in's members added, and
 * flat / noise (the engine's object for each) when the comparison ran.  -1 when a writer fails. */
static int
report_json (FILE *out, const GpuhistReport *report)
{
  int failed = gh_write_json_begin (out, &report->layer, report->channel_names);

  write_plugin_members (out, report);
  failed |= gh_write_scopes_json (out, &report->layer, report->channel_names, 0);
  for (int p = 0; p < GH_N_PATTERNS; p++)
    {
      const gh_result *row = &report->patterns[p];

      if (row->channels == 0 || row->counts == NULL)
        continue;
      fprintf (out, ",\n  \"%s\": ", pattern_keys[p]);
      failed |= gh_write_json_begin (out, row, report->channel_names);
      fputs ("\n}", out);
    }
  fputs ("\n}\n", out);
  return failed;
}

/* Streamed into the file as it is formatted (file-replace.h): the old file stays whole until
 * the new one is. */
static gboolean
write_json_file (const GpuhistReport *report, const char *path, GError **error)
{
  GpuhistFileReplace file;
  FILE *out = gpuhist_file_replace_open (&file, path, error);

  if (out == NULL)
    return FALSE;
  /* The engine's writers fail by themselves only for want of memory; failed writes the
   * commit reports. */
  if (report_json (out, report) != 0 && !ferror (out))
    {
      gpuhist_file_replace_abandon (&file);
      g_set_error (error, GPUHIST_ERROR, GPUHIST_ERROR_WRITE,
                   _ ("Could not format the results as JSON."));
      return FALSE;
    }
  return gpuhist_file_replace_commit (&file, error);
}

/* What goes into a CSV file: the histogram (scope -1) or one scope's tables. */
typedef struct
{
  int scope;
  unsigned channels;
} CsvContent;

static int
write_csv_content (FILE *out, const GpuhistReport *report, const CsvContent *content)
{
  if (content->scope < 0)
    return gh_write_csv (out, &report->layer, report->channel_names);
  return gh_write_scope_csv (out, &report->layer, (gh_scope_kind) content->scope, content->channels,
                             report->channel_names);
}

static gboolean
write_csv_file (const GpuhistReport *report, const CsvContent *content, const char *path,
                GError **error)
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
  if (write_csv_content (out, report, content) != 0)
    ok = FALSE;
  if (fclose (out) != 0)
    ok = FALSE;
  if (!ok)
    g_set_error (error, GPUHIST_ERROR, GPUHIST_ERROR_WRITE,
                 _ ("Could not write \"%s\": the disk may be full."), path);
  return ok;
}

gboolean
gpuhist_report_write_scope_csv (const GpuhistReport *report, gh_scope_kind kind, unsigned channels,
                                const char *path, GError **error)
{
  const CsvContent content = { kind, channels };

  g_return_val_if_fail (report != NULL && path != NULL, FALSE);
  if (kind < 0 || kind >= GH_N_SCOPES || report->layer.scopes[kind].tables == 0)
    {
      g_set_error (error, GPUHIST_ERROR, GPUHIST_ERROR_INVALID_ARGUMENT,
                   _ ("There are no results to write."));
      return FALSE;
    }
  return write_csv_file (report, &content, path, error);
}

GpuhistFileKind
gpuhist_report_file_kind (const char *path)
{
  gchar *lower = g_ascii_strdown (path, -1);
  GpuhistFileKind kind = GPUHIST_FILE_UNKNOWN;

  if (g_str_has_suffix (lower, ".json"))
    kind = GPUHIST_FILE_JSON;
  else if (g_str_has_suffix (lower, ".csv"))
    kind = GPUHIST_FILE_CSV;
  else if (g_str_has_suffix (lower, ".png"))
    kind = GPUHIST_FILE_PNG;
  g_free (lower);
  return kind;
}

static gboolean
has_scopes (const GpuhistReport *report)
{
  for (int k = 0; k < GH_N_SCOPES; k++)
    if (report->layer.scopes[k].tables > 0)
      return TRUE;
  return FALSE;
}

gboolean
gpuhist_report_write (const GpuhistReport *report, const char *path, GError **error)
{
  GpuhistFileKind kind;

  g_return_val_if_fail (report != NULL, FALSE);
  if (path == NULL || path[0] == '\0')
    return TRUE;
  if (report->layer.values == NULL)
    {
      g_set_error (error, GPUHIST_ERROR, GPUHIST_ERROR_INVALID_ARGUMENT,
                   _ ("There are no results to write."));
      return FALSE;
    }
  kind = gpuhist_report_file_kind (path);
  if (kind == GPUHIST_FILE_JSON)
    return write_json_file (report, path, error);
  if (kind == GPUHIST_FILE_CSV)
    {
      const CsvContent histogram = { -1, 0 };

      return write_csv_file (report, &histogram, path, error);
    }
  if (kind == GPUHIST_FILE_PNG && has_scopes (report))
    return gpuhist_report_write_charts (report, path, error);
  g_set_error (error, GPUHIST_ERROR, GPUHIST_ERROR_INVALID_ARGUMENT,
               _ ("Cannot tell the format of \"%s\": the output file must end in .csv or "
                  ".json."),
               path);
  return FALSE;
}
