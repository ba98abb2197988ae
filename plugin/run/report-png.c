/* gpu-histogram: the report's scopes as PNG charts, drawn by the engine's renderer and saved
 * through cairo.  See report.h. */
#include <string.h>

#include <cairo.h>
#include <glib/gi18n-lib.h>

#include "report.h"

/* "DIR/NAME.png" without its extension, the charts' common prefix. */
static gchar *
chart_prefix (const char *path)
{
  size_t length = strlen (path);

  return g_strndup (path, length >= 4 ? length - 4 : length);
}

/* Saves opaque RGBA pixels as a PNG through cairo, whose own writer needs no loadable module
 * (GIMP 3.0's plug-ins cannot load GEGL's PNG saver).  Cairo takes native-endian ARGB32. */
static gboolean
save_png (const guint8 *pixels, int width, int height, const char *path, GError **error)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, width, height);
  cairo_status_t status = cairo_surface_status (surface);

  if (status == CAIRO_STATUS_SUCCESS)
    {
      guint8 *data = cairo_image_surface_get_data (surface);
      int stride = cairo_image_surface_get_stride (surface);

      cairo_surface_flush (surface);
      for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++)
          {
            const guint8 *p = pixels + ((size_t) y * width + x) * 4;

            ((guint32 *) (data + (size_t) y * stride))[x]
                = 0xff000000u | (guint32) p[0] << 16 | (guint32) p[1] << 8 | p[2];
          }
      cairo_surface_mark_dirty (surface);
      status = cairo_surface_write_to_png (surface, path);
    }
  cairo_surface_destroy (surface);
  if (status != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, GPUHIST_ERROR, GPUHIST_ERROR_WRITE, _ ("Could not write \"%s\": %s"),
                   path, cairo_status_to_string (status));
      return FALSE;
    }
  return TRUE;
}

/* One chart at its natural size; TRUE without a file when the report cannot draw it (no such
 * scope, or a parade without red, green and blue). */
static gboolean
write_chart (const GpuhistReport *report, gh_chart chart, const char *path, GError **error)
{
  gh_error gherr = { GH_OK, "" };
  gh_render_options options;
  int width, height;
  guint8 *pixels;
  gboolean ok;

  if (gh_render_natural_size (&report->layer, chart, &width, &height, &gherr) != GH_OK)
    return TRUE;
  gh_render_options_init (&options);
  pixels = g_try_malloc ((gsize) width * height * 4);
  if (pixels == NULL)
    {
      g_set_error (error, GPUHIST_ERROR, GPUHIST_ERROR_WRITE, _ ("No memory for a %d × %d chart."),
                   width, height);
      return FALSE;
    }
  ok = gh_render_chart (&report->layer, chart, &options, width, height, pixels, (size_t) width * 4,
                        &gherr)
       == GH_OK;
  if (!ok)
    gpuhist_set_engine_error (error, &gherr);
  else
    ok = save_png (pixels, width, height, path, error);
  g_free (pixels);
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
