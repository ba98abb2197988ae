/* gpu-histogram: the report's scopes as charts, drawn by the engine's renderer into cairo
 * surfaces and saved as PNG: for plug-in-gpu-scopes and for the dialog.  See report.h. */
#include <string.h>

#include <glib/gi18n-lib.h>

#include "report.h"

/* The renderer's R, G, B, A bytes, drawn into the surface's own rows, turned in place into
 * cairo's native-endian xRGB words (the charts are opaque), on a machine where the renderer
 * cannot write them as they are (big-endian). */
static void
rgba_to_xrgb (cairo_surface_t *surface, int width, int height)
{
  guint8 *data = cairo_image_surface_get_data (surface);
  int stride = cairo_image_surface_get_stride (surface);

  for (int y = 0; y < height; y++)
    {
      guint32 *row = (guint32 *) (data + (size_t) y * stride);

      /* R, G, B, A in memory read as one big-endian word. */
      for (int x = 0; x < width; x++)
        row[x] = 0xff000000u | row[x] >> 8;
    }
}

cairo_surface_t *
gpuhist_chart_surface (const gh_result *result, gh_chart chart, const gh_render_options *options,
                       int width, int height, GError **error)
{
  gh_error gherr = { GH_OK, "" };
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, width, height);
  gh_render_options native = *options;

  /* cairo's xRGB words of a little-endian machine are B, G, R, x in memory. */
  native.bgra = G_BYTE_ORDER == G_LITTLE_ENDIAN;

  cairo_surface_flush (surface);
  /* A size that cairo refuses has no rows (NULL), which the renderer refuses with its reason. */
  if (cairo_surface_status (surface) == CAIRO_STATUS_NO_MEMORY)
    g_set_error (error, GPUHIST_ERROR, GPUHIST_ERROR_WRITE, _ ("No memory for a %d × %d chart."),
                 width, height);
  else if (gh_render_chart (result, chart, &native, width, height,
                            cairo_image_surface_get_data (surface),
                            (size_t) cairo_image_surface_get_stride (surface), &gherr)
           != GH_OK)
    gpuhist_set_engine_error (error, &gherr);
  else
    {
      if (!native.bgra)
        rgba_to_xrgb (surface, width, height);
      cairo_surface_mark_dirty (surface);
      return surface;
    }
  cairo_surface_destroy (surface);
  return NULL;
}

gboolean
gpuhist_surface_write_png (cairo_surface_t *surface, const char *path, GError **error)
{
  cairo_status_t status = cairo_surface_write_to_png (surface, path);

  if (status == CAIRO_STATUS_SUCCESS)
    return TRUE;
  g_set_error (error, GPUHIST_ERROR, GPUHIST_ERROR_WRITE, _ ("Could not write \"%s\": %s"), path,
               cairo_status_to_string (status));
  return FALSE;
}

/* "DIR/NAME.png" without its extension, the charts' common prefix. */
static gchar *
chart_prefix (const char *path)
{
  size_t length = strlen (path);

  return g_strndup (path, length >= 4 ? length - 4 : length);
}

/* One chart at its natural size; TRUE without a file when the report cannot draw it (no such
 * scope, or a parade without red, green and blue). */
static gboolean
write_chart (const GpuhistReport *report, gh_chart chart, const char *path, GError **error)
{
  gh_error gherr = { GH_OK, "" };
  gh_render_options options;
  cairo_surface_t *surface;
  int width, height;
  gboolean ok;

  if (gh_render_natural_size (&report->layer, chart, &width, &height, &gherr) != GH_OK)
    return TRUE;
  gh_render_options_init (&options);
  surface = gpuhist_chart_surface (&report->layer, chart, &options, width, height, error);
  if (surface == NULL)
    return FALSE;
  ok = gpuhist_surface_write_png (surface, path, error);
  cairo_surface_destroy (surface);
  return ok;
}

gboolean
gpuhist_report_write_charts (const GpuhistReport *report, const char *path, GError **error)
{
  static const char *const names[GH_N_CHARTS] = { "waveform", "parade", "vectorscope" };
  gchar *prefix = chart_prefix (path);
  gboolean ok = TRUE;

  for (int chart = 0; chart < GH_N_CHARTS && ok; chart++)
    {
      gchar *chart_path = g_strdup_printf ("%s-%s.png", prefix, names[chart]);

      ok = write_chart (report, (gh_chart) chart, chart_path, error);
      g_free (chart_path);
    }
  g_free (prefix);
  return ok;
}
