/* Unit tests of the plug-in's core without GIMP: the strip geometry (plugin/run/stream.c), and
 * whole runs over small GeglBuffers with the CPU engine (source.c, measure.c, run.c) written as the
 * CSV and JSON reports (report-file.c). */
#include <math.h>
#include <string.h>

#include <gegl.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "engine-keeper.h"
#include "measure.h"
#include "report.h"
#include "run.h"
#include "source.h"
#include "stream.h"

static void
test_band_rows (void)
{
  /* No tiles: whatever was asked. */
  g_assert_cmpint (gpuhist_band_rows (7, 100, 1, 0), ==, 100);
  /* From a tile boundary: whole tiles only, but never nothing. */
  g_assert_cmpint (gpuhist_band_rows (0, 100, 64, 0), ==, 64);
  g_assert_cmpint (gpuhist_band_rows (0, 200, 64, 0), ==, 192);
  g_assert_cmpint (gpuhist_band_rows (0, 20, 64, 0), ==, 20);
  /* From inside a tile: to its end, then whole tiles. */
  g_assert_cmpint (gpuhist_band_rows (10, 200, 64, 0), ==, 182);
  g_assert_cmpint (gpuhist_band_rows (10, 20, 64, 0), ==, 20);
  /* Negative rows and a shifted buffer. */
  g_assert_cmpint (gpuhist_band_rows (-5, 100, 64, 0), ==, 69);
  g_assert_cmpint (gpuhist_band_rows (0, 100, 64, 3), ==, 61);
}

/* A w x h buffer in `format`, filled from `pixels` (packed rows). */
static GeglBuffer *
buffer_new (const char *format, int w, int h, const void *pixels)
{
  GeglRectangle rect = { 0, 0, w, h };
  GeglBuffer *buffer = gegl_buffer_new (&rect, babl_format (format));

  gegl_buffer_set (buffer, &rect, 0, babl_format (format), pixels, GEGL_AUTO_ROWSTRIDE);
  return buffer;
}

/* Measures `buffer` with the CPU engine into report, writing `path` when not NULL. */
static void
measure (GeglBuffer *buffer, const char *name, int bins, const char *path, GpuhistReport *report)
{
  GpuhistSource source;
  GpuhistSettings settings = { .output_file = (gchar *) path,
                               .bins = bins,
                               .weighting = GPUHIST_WEIGHTING_GIMP,
                               .source = GPUHIST_SOURCE_DRAWABLE,
                               .luminance = GH_LUMINANCE_GIMP2 };
  GError *error = NULL;

  g_assert_true (gpuhist_source_init (&source, buffer, gegl_buffer_get_extent (buffer),
                                      GPUHIST_DRAWABLE_LAYER, FALSE, name, &error));
  g_assert_no_error (error);
  g_assert_true (gpuhist_run_batch (&source, &settings, NULL, "a note", report, &error));
  g_assert_no_error (error);
  gpuhist_source_clear (&source);
}

static gchar *
temp_path (const char *name)
{
  return g_build_filename (g_get_tmp_dir (), name, NULL);
}

/* The file's text (in *text) parsed; the parser owns the objects. */
static JsonObject *
load_json (const char *path, JsonParser *parser, gchar **text)
{
  GError *error = NULL;

  g_assert_true (g_file_get_contents (path, text, NULL, NULL));
  g_assert_true (json_parser_load_from_data (parser, *text, -1, &error));
  g_assert_no_error (error);
  return json_node_get_object (json_parser_get_root (parser));
}

/* Channel c's counts in the report's JSON. */
static JsonArray *
channel_counts (JsonObject *top, int c)
{
  JsonArray *channels = json_object_get_array_member (top, "channels");

  return json_object_get_array_member (json_array_get_object_element (channels, c), "counts");
}

/* Removes the test's file and frees what it made. */
static void
finish (gchar *path, GpuhistReport *report, GeglBuffer *buffer)
{
  g_unlink (path);
  g_free (path);
  gpuhist_report_clear (report);
  g_object_unref (buffer);
}

static void
test_csv (void)
{
  const guint8 pixels[] = { 0, 1, 2, 255, 0, 1, 2, 128, 255, 255, 0, 0 };
  GeglBuffer *buffer = buffer_new ("R'G'B'A u8", 3, 1, pixels);
  gchar *path = temp_path ("gpuhist-test-report.csv");
  GpuhistReport report = { 0 };
  gchar *text = NULL;
  gchar **lines;

  measure (buffer, "layer", 256, path, &report);
  g_assert_cmpint (report.layer.bins, ==, 256);
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 1 + 256 + 1); /* header, rows, after the last \n */
  /* GIMP's rule: the colours weigh by alpha (1 + 128/255 = 1.501961 of a pixel, the cleared
   * yellow pixel nothing), the alpha channel counts each pixel once; value = max (R, G, B) and
   * luminance (0.2225 * 0 + 0.7169 * 1 + 0.0606 * 2 = 0.8381 of a level: bin 1) follow. */
  g_assert_cmpstr (lines[0], ==, "bin,red,green,blue,alpha,value,luminance");
  g_assert_cmpstr (lines[1], ==, "0,1.501961,0,0,1,0,0");
  g_assert_cmpstr (lines[2], ==, "1,0,1.501961,0,0,0,1.501961");
  g_assert_cmpstr (lines[3], ==, "2,0,0,1.501961,0,1.501961,0");
  g_assert_cmpstr (lines[129], ==, "128,0,0,0,1,0,0");
  g_assert_cmpstr (lines[256], ==, "255,0,0,0,1,0,0");
  g_strfreev (lines);
  g_free (text);
  finish (path, &report, buffer);
}

/* The members of the top object, in order, joined by commas. */
static gchar *
member_names (JsonObject *object)
{
  GList *members = json_object_get_members (object);
  GString *names = g_string_new (NULL);

  for (GList *m = members; m; m = m->next)
    g_string_append_printf (names, "%s%s", names->len ? "," : "", (const char *) m->data);
  g_list_free (members);
  return g_string_free (names, FALSE);
}

static void
test_json (void)
{
  const float pixels[] = { NAN, 0.5f, 2.0f, -1.0f, INFINITY, 1.0f / 65535.0f };
  GeglBuffer *buffer = buffer_new ("R'G'B' float", 2, 1, pixels);
  gchar *path = temp_path ("gpuhist-test-report.json");
  GpuhistReport report = { 0 };
  JsonParser *parser = json_parser_new ();
  JsonObject *top, *area, *clipping;
  JsonArray *counts;
  gchar *names, *text = NULL;

  measure (buffer, "say \"hi\"\n\ttab", 4096, path, &report);
  top = load_json (path, parser, &text);
  /* The engine's escapes: control characters as \u00XX. */
  g_assert_nonnull (strstr (text, "\"drawable\": \"say \\\"hi\\\"\\u000a\\u0009tab\""));
  names = member_names (top);
  g_assert_cmpstr (names, ==,
                   "backend,used_gpu,layout,bins,pixels,bytes,luminance_rule,channels,"
                   "timings_ms,clipping,drawable,area,"
                   "linear,requested_bins,fetch_format,fetch_ms,total_ms,engine_ms,engine_kept,"
                   "phases_ms,note");
  /* An RGB layer: value and luminance, by the rule the settings name (the 2.10 glue's here). */
  g_assert_cmpstr (json_object_get_string_member (top, "luminance_rule"), ==, "gimp2");
  g_assert_cmpint (json_object_get_int_member (top, "bins"), ==, 4096);
  g_assert_cmpint (json_object_get_int_member (top, "requested_bins"), ==, 4096);
  g_assert_cmpstr (json_object_get_string_member (top, "drawable"), ==, "say \"hi\"\n\ttab");
  g_assert_cmpstr (json_object_get_string_member (top, "note"), ==, "a note");
  g_assert_cmpstr (json_object_get_string_member (top, "fetch_format"), ==, "R'G'B' float");
  g_assert_false (json_object_get_boolean_member (top, "linear"));
  area = json_object_get_object_member (top, "area");
  g_assert_cmpint (json_object_get_int_member (area, "width"), ==, 2);
  g_assert_cmpint (json_object_get_int_member (area, "height"), ==, 1);
  /* red: NaN (0) and -1 (0); green: 0.5 (32768 -> bin 2048) and +inf (65535 -> 4095). */
  g_assert_cmpint (json_array_get_int_element (channel_counts (top, 0), 0), ==, 2);
  counts = channel_counts (top, 1);
  g_assert_cmpint (json_array_get_int_element (counts, 2048), ==, 1);
  g_assert_cmpint (json_array_get_int_element (counts, 4095), ==, 1);
  /* Clipping: red wholly in the lowest bin, half of green in the highest. */
  clipping = json_object_get_object_member (top, "clipping");
  g_assert_cmpfloat (
      json_object_get_double_member (json_object_get_object_member (clipping, "red"), "shadows"),
      ==, 1.0);
  g_assert_cmpfloat (json_object_get_double_member (
                         json_object_get_object_member (clipping, "green"), "highlights"),
                     ==, 0.5);
  g_assert_cmpfloat (
      json_object_get_double_member (json_object_get_object_member (clipping, "green"), "shadows"),
      ==, 0.0);
  g_free (names);
  g_free (text);
  g_object_unref (parser);
  finish (path, &report, buffer);
}

/* After Compare (the dialog's), the flat and noise rows are objects of their own in the JSON. */
static void
test_json_comparison (void)
{
  const guint8 pixels[] = { 1, 2, 3, 4, 5, 6 };
  GeglBuffer *buffer = buffer_new ("R'G'B' u8", 2, 1, pixels);
  gchar *path = temp_path ("gpuhist-test-compare.json");
  GpuhistSettings settings = { .bins = 256,
                               .weighting = GPUHIST_WEIGHTING_GIMP,
                               .source = GPUHIST_SOURCE_DRAWABLE,
                               .luminance = GH_LUMINANCE_GIMP2 };
  GpuhistReport report = { 0 };
  GpuhistKeeperStart start;
  JsonParser *parser = json_parser_new ();
  GError *error = NULL;
  gh_engine *engine;
  JsonObject *top;
  gchar *text = NULL;

  measure (buffer, "layer", 256, NULL, &report);
  engine = gpuhist_keeper_take (&start, &error);
  g_assert_no_error (error);
  g_assert_true (gpuhist_compare_patterns (engine, &settings, &report, &error));
  g_assert_no_error (error);
  gpuhist_keeper_give_back (engine);
  g_assert_true (gpuhist_report_write (&report, path, &error));
  top = load_json (path, parser, &text);
  g_assert_true (g_str_has_suffix (text, "\n  }\n}\n}\n")); /* noise's timings, noise, the top */
  g_assert_cmpint (
      json_object_get_int_member (json_object_get_object_member (top, "flat"), "pixels"), ==, 2);
  g_assert_cmpint (
      json_object_get_int_member (json_object_get_object_member (top, "noise"), "pixels"), ==, 2);
  g_free (text);
  g_object_unref (parser);
  finish (path, &report, buffer);
}

/* "WxH" from a PNG's header (its IHDR chunk), or NULL when the file is not a PNG. */
static gchar *
png_size (const char *path)
{
  static const guint8 signature[] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
  gchar *data = NULL;
  gsize length = 0;
  gchar *size = NULL;

  if (g_file_get_contents (path, &data, &length, NULL) && length >= 24
      && memcmp (data, signature, sizeof signature) == 0 && memcmp (data + 12, "IHDR", 4) == 0)
    {
      const guint8 *d = (const guint8 *) data;

      size = g_strdup_printf ("%ux%u", (guint) d[16] << 24 | d[17] << 16 | d[18] << 8 | d[19],
                              (guint) d[20] << 24 | d[21] << 16 | d[22] << 8 | d[23]);
    }
  g_free (data);
  return size;
}

/* The JSON's counts of one table row: the waveform's [table][column], the vectorscope's [cr]. */
static JsonArray *
json_counts_row (JsonObject *scope, int table, int row)
{
  JsonArray *counts = json_object_get_array_member (scope, "counts");

  if (table >= 0)
    counts = json_array_get_array_element (counts, table);
  return json_array_get_array_element (counts, row);
}

/* The scope's CSV (gpuhist_report_write_scope_csv) against the same report's JSON: a header,
 * then for the waveform one row per (table, column) of the chosen channels, for the vectorscope
 * one per Cr, each row's counts the JSON's.  Returns the rows read. */
static int
check_scope_csv (const GpuhistReport *report, JsonObject *top, gh_scope_kind kind,
                 unsigned channels)
{
  gchar *path = temp_path ("gpuhist-test-scope.csv");
  JsonObject *scope
      = json_object_get_object_member (top, kind == GH_SCOPE_WAVEFORM ? "waveform" : "vectorscope");
  gchar *text = NULL;
  gchar **lines;
  GError *error = NULL;
  int rows = 0;

  g_assert_true (gpuhist_report_write_scope_csv (report, kind, channels, path, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  g_assert_true (g_str_has_prefix (lines[0], kind == GH_SCOPE_WAVEFORM ? "channel,column,0,1,2,"
                                                                       : "cr,0,1,2,"));
  for (int i = 1; lines[i] != NULL && lines[i][0] != '\0'; i++, rows++)
    {
      gchar **cells = g_strsplit (lines[i], ",", -1);
      int first = kind == GH_SCOPE_WAVEFORM ? 2 : 1, table = -1;
      JsonArray *row;

      if (kind == GH_SCOPE_WAVEFORM)
        for (int t = 0; t < report->layer.scopes[kind].tables; t++)
          if (g_strcmp0 (report->channel_names[report->layer.scopes[kind].channel[t]], cells[0])
              == 0)
            table = t;
      g_assert_true (kind != GH_SCOPE_WAVEFORM || table >= 0);
      g_assert_true (table < 0 || (channels >> report->layer.scopes[kind].channel[table]) & 1u);
      row = json_counts_row (scope, table, atoi (cells[first - 1]));
      g_assert_cmpuint (g_strv_length (cells) - first, ==, json_array_get_length (row));
      for (guint k = 0; k < json_array_get_length (row); k++)
        g_assert_cmpfloat (g_ascii_strtod (cells[first + k], NULL), ==,
                           json_array_get_double_element (row, k));
      g_strfreev (cells);
    }
  g_strfreev (lines);
  g_free (text);
  g_unlink (path);
  g_free (path);
  return rows;
}

/* plug-in-gpu-scopes's run: the scopes in the JSON, the three charts as PNGs at their natural
 * sizes, and the contention patterns counted with the same scopes (flat: one cell, one level). */
static void
test_scopes (void)
{
  const guint8 pixels[]
      = { 10, 200, 30, 40, 50, 60, 70, 80, 90, 250, 5, 128, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
  GeglBuffer *buffer = buffer_new ("R'G'B' u8", 4, 2, pixels);
  gchar *json = temp_path ("gpuhist-test-scopes.json");
  gchar *png = temp_path ("gpuhist-test-scopes.png");
  static const char *const charts[][2]
      = { { "waveform", "2x256" }, { "parade", "6x256" }, { "vectorscope", "256x256" } };
  GpuhistSettings settings
      = { .bins = 1024, .luminance = GH_LUMINANCE_GIMP2, .scopes = TRUE, .waveform_columns = 2 };
  GpuhistReport report = { 0 };
  GpuhistSource source;
  GpuhistKeeperStart start;
  JsonParser *parser = json_parser_new ();
  GError *error = NULL;
  gh_engine *engine;
  JsonObject *top;
  gchar *text = NULL;

  g_assert_true (gpuhist_source_init (&source, buffer, gegl_buffer_get_extent (buffer),
                                      GPUHIST_DRAWABLE_LAYER, FALSE, "layer", &error));
  g_assert_true (gpuhist_run_batch (&source, &settings, NULL, NULL, &report, &error));
  g_assert_no_error (error);
  g_assert_true (gpuhist_report_write (&report, json, &error));
  top = load_json (json, parser, &text);
  g_assert_cmpint (
      json_object_get_int_member (json_object_get_object_member (top, "waveform"), "columns"), ==,
      2);
  g_assert_true (json_object_has_member (top, "vectorscope"));
  /* red and blue: two tables of two columns; the vectorscope's 256 rows */
  g_assert_cmpint (check_scope_csv (&report, top, GH_SCOPE_WAVEFORM, 0x5), ==, 4);
  g_assert_cmpint (check_scope_csv (&report, top, GH_SCOPE_VECTORSCOPE, 0), ==, 256);
  g_assert_true (gpuhist_report_write (&report, png, &error));
  for (gsize i = 0; i < G_N_ELEMENTS (charts); i++)
    {
      gchar *name = g_strdup_printf ("gpuhist-test-scopes-%s.png", charts[i][0]);
      gchar *path = temp_path (name);
      gchar *size = png_size (path);

      g_assert_cmpstr (size, ==, charts[i][1]);
      g_unlink (path);
      g_free (size);
      g_free (path);
      g_free (name);
    }

  engine = gpuhist_keeper_take (&start, &error);
  g_assert_true (gpuhist_compare_patterns (engine, &settings, &report, &error));
  g_assert_no_error (error);
  gpuhist_keeper_give_back (engine);
  g_assert_cmpint (report.patterns[GH_PATTERN_FLAT].scopes[GH_SCOPE_WAVEFORM].columns, ==, 2);
  /* flat gray: every pixel in the neutral cell, and in each column at the flat level */
  g_assert_cmpuint (
      report.patterns[GH_PATTERN_FLAT].scopes[GH_SCOPE_VECTORSCOPE].counts[128 * 256 + 128], ==, 8);
  g_assert_cmpuint (report.patterns[GH_PATTERN_FLAT].scopes[GH_SCOPE_WAVEFORM].counts[256 + 128],
                    ==, 4);
  g_assert_cmpint (report.patterns[GH_PATTERN_NOISE].scopes[GH_SCOPE_VECTORSCOPE].tables, ==, 1);

  g_free (text);
  g_object_unref (parser);
  gpuhist_source_clear (&source);
  g_unlink (png);
  g_free (png);
  finish (json, &report, buffer);
}

static void
test_bad_file_names (void)
{
  const guint8 pixels[] = { 1, 2, 3 };
  GeglBuffer *buffer = buffer_new ("R'G'B' u8", 1, 1, pixels);
  GpuhistReport report = { 0 };
  GError *error = NULL;

  measure (buffer, "layer", 256, NULL, &report);
  g_assert_false (gpuhist_report_write (&report, "/tmp/results.txt", &error));
  g_assert_error (error, GPUHIST_ERROR, GPUHIST_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (gpuhist_report_write (&report, "/nonexistent-folder/results.csv", &error));
  g_assert_error (error, GPUHIST_ERROR, GPUHIST_ERROR_WRITE);
  g_clear_error (&error);
  gpuhist_report_clear (&report);
  g_object_unref (buffer);
}

/* Names in `folder` that start with `prefix`, comma-separated. */
static gchar *
names_starting (const char *folder, const char *prefix)
{
  GDir *dir = g_dir_open (folder, 0, NULL);
  GString *names = g_string_new ("");
  const char *name;

  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    if (g_str_has_prefix (name, prefix))
      g_string_append_printf (names, "%s%s", names->len ? "," : "", name);
  g_dir_close (dir);
  return g_string_free (names, FALSE);
}

/* JSON goes through a file beside the destination, renamed over it when whole: an existing file
 * is replaced, nothing is left beside it, and a path that cannot be written is an error that
 * names it, leaving what was there as it was. */
static void
test_json_replaces (void)
{
  const guint8 pixels[] = { 1, 2, 3 };
  GeglBuffer *buffer = buffer_new ("R'G'B' u8", 1, 1, pixels);
  gchar *folder = g_dir_make_tmp ("gpuhist-test-XXXXXX", NULL);
  gchar *path = g_build_filename (folder, "results.json", NULL);
  gchar *taken = g_build_filename (folder, "taken.json", NULL);
  gchar *inside = g_build_filename (folder, "missing", "x.json", NULL);
  GpuhistReport report = { 0 };
  GError *error = NULL;
  gchar *text = NULL, *names;

  g_assert_nonnull (folder);
  g_assert_true (g_file_set_contents (path, "old", -1, NULL));
  measure (buffer, "layer", 256, path, &report);
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_assert_true (g_str_has_prefix (text, "{\n  \"backend\": "));
  g_assert_true (g_str_has_suffix (text, "\n}\n"));
  g_clear_pointer (&text, g_free);
  names = names_starting (folder, "results.json");
  g_assert_cmpstr (names, ==, "results.json");
  g_free (names);

  /* A folder where the file should be: not replaced, and no temporary file left. */
  g_assert_cmpint (g_mkdir (taken, 0700), ==, 0);
  g_assert_false (gpuhist_report_write (&report, taken, &error));
  g_assert_error (error, GPUHIST_ERROR, GPUHIST_ERROR_WRITE);
  g_assert_nonnull (strstr (error->message, taken));
  g_clear_error (&error);
  g_assert_true (g_file_test (taken, G_FILE_TEST_IS_DIR));
  names = names_starting (folder, "taken.json");
  g_assert_cmpstr (names, ==, "taken.json");
  g_free (names);

  /* A folder that does not exist. */
  g_assert_false (gpuhist_report_write (&report, inside, &error));
  g_assert_error (error, GPUHIST_ERROR, GPUHIST_ERROR_WRITE);
  g_assert_nonnull (strstr (error->message, inside));
  g_clear_error (&error);

  g_unlink (path);
  g_rmdir (taken);
  g_rmdir (folder);
  g_free (inside);
  g_free (taken);
  g_free (path);
  g_free (folder);
  gpuhist_report_clear (&report);
  g_object_unref (buffer);
}

int
main (int argc, char **argv)
{
  int status;

  g_test_init (&argc, &argv, NULL);
  gegl_init (&argc, &argv);
  g_test_add_func ("/strips/band-rows", test_band_rows);
  g_test_add_func ("/report/csv", test_csv);
  g_test_add_func ("/report/json", test_json);
  g_test_add_func ("/report/json-comparison", test_json_comparison);
  g_test_add_func ("/report/bad-file-names", test_bad_file_names);
  g_test_add_func ("/report/json-replaces", test_json_replaces);
  g_test_add_func ("/report/scopes", test_scopes);
  status = g_test_run ();
  gegl_exit ();
  return status;
}
