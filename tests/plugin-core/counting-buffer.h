/* The plug-in core tests' input: a GeglBuffer whose bytes count up, so that no two neighbours,
 * rows or tile rows are alike (the i / 997 term breaks the pattern's short period). */
#ifndef GPUHIST_TEST_COUNTING_BUFFER_H
#define GPUHIST_TEST_COUNTING_BUFFER_H

#include <gegl.h>

static inline GeglBuffer *
counting_buffer (const char *format, int w, int h)
{
  GeglRectangle rect = { 0, 0, w, h };
  const Babl *babl = babl_format (format);
  size_t size = (size_t) w * h * babl_format_get_bytes_per_pixel (babl);
  guint8 *bytes = g_malloc (size);
  GeglBuffer *buffer = gegl_buffer_new (&rect, babl);

  for (size_t i = 0; i < size; i++)
    bytes[i] = (guint8) (i * 7 + i / 3 + i / 997);
  gegl_buffer_set (buffer, &rect, 0, babl, bytes, GEGL_AUTO_ROWSTRIDE);
  g_free (bytes);
  return buffer;
}

#endif /* GPUHIST_TEST_COUNTING_BUFFER_H */
