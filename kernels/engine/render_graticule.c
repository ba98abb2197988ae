/* gpu-histogram: the charts' graticule (gpuhist.h): level lines on the waveform and parade;
 * colour targets, centre and skin-tone line on the vectorscope.  Each mark keeps the larger of
 * its colour and the density under it, component by component, so that a bright trace stays
 * visible on a line. */
#include "render_private.h"

#include <math.h>

static const uint8_t graticule_gray[3] = { 96, 96, 96 };

static void
plot (uint8_t *pixels, size_t stride, int width, int height, int x, int y, const uint8_t *colour)
{
  if (x < 0 || y < 0 || x >= width || y >= height)
    return;
  uint8_t *p = pixels + (size_t) y * stride + 4 * (size_t) x;
  for (int c = 0; c < 3; c++)
    p[c] = p[c] > colour[c] ? p[c] : colour[c];
}

void
gh_render_level_lines (uint8_t *pixels, size_t stride, int width, int height)
{
  for (int quarter = 0; quarter <= 4; quarter++)
    {
      const int y = height - 1 - (int) floor (quarter / 4.0 * (height - 1) + 0.5);
      for (int x = 0; x < width; x++)
        plot (pixels, stride, width, height, x, y, graticule_gray);
    }
}

/* The 75 % colour bars: levels 191 and 0 through the normative formula (gpuhist.h, scope_rules.h),
 *   cb = (-7509 r - 25259 g + 32768 b + 8421376) >> 16
 *   cr = (32768 r - 29763 g - 3005 b + 8421376) >> 16
 *   R  (191, 0, 0):    cb = 6987157 >> 16 = 106    cr = 14680064 >> 16 = 224
 *   Mg (191, 0, 191):  cb = 13245845 >> 16 = 202   cr = 14106109 >> 16 = 215
 *   B  (0, 0, 191):    cb = 14680064 >> 16 = 224   cr = 7847421 >> 16 = 119
 *   Cy (0, 191, 191):  cb = 9855595 >> 16 = 150    cr = 2162688 >> 16 = 33
 *   G  (0, 191, 0):    cb = 3596907 >> 16 = 54     cr = 2736643 >> 16 = 41
 *   Yl (191, 191, 0):  cb = 2162688 >> 16 = 33     cr = 8995331 >> 16 = 137
 * (no clamp needed: every sum lies below 256 * 65536). */
static const struct
{
  int cb, cr;
  uint8_t colour[3];
} targets[6] = {
  { 106, 224, { 191, 0, 0 } },  { 202, 215, { 191, 0, 191 } }, { 224, 119, { 0, 0, 191 } },
  { 150, 33, { 0, 191, 191 } }, { 54, 41, { 0, 191, 0 } },     { 33, 137, { 191, 191, 0 } },
};

/* Where cell (cb, cr) is drawn: the pixel under its centre, Cr up. */
static void
cell_position (int cb, int cr, int width, int height, int *x, int *y)
{
  *x = (int) floor ((cb + 0.5) * width / 256);
  *y = height - 1 - (int) floor ((cr + 0.5) * height / 256);
}

/* A hollow square of half side `half` around (x, y), and (x, y) itself. */
static void
target_box (uint8_t *pixels, size_t stride, int width, int height, int x, int y, int half,
            const uint8_t *colour)
{
  for (int i = -half; i <= half; i++)
    {
      plot (pixels, stride, width, height, x + i, y - half, colour);
      plot (pixels, stride, width, height, x + i, y + half, colour);
      plot (pixels, stride, width, height, x - half, y + i, colour);
      plot (pixels, stride, width, height, x + half, y + i, colour);
    }
  plot (pixels, stride, width, height, x, y, colour);
}

/* The skin-tone line, conventionally at 123 degrees from +Cb towards +Cr (between red and
 * yellow), from the centre of cell (128, 128) to the chart's edge, in chroma units so that it
 * keeps its angle on a chart that is not square; steps of a quarter of a cell or a pixel,
 * whichever is smaller, leave no gap. */
static void
skin_tone_line (uint8_t *pixels, size_t stride, int width, int height)
{
  const double angle = 123.0 * acos (-1.0) / 180.0, radius = 127.5;
  const int steps = 4 * (width > height ? width : height) + 4 * GH_VECTORSCOPE_SIZE;
  for (int i = 0; i <= steps; i++)
    {
      const double cb = 128.5 + radius * i / steps * cos (angle);
      const double cr = 128.5 + radius * i / steps * sin (angle);
      plot (pixels, stride, width, height, (int) floor (cb * width / GH_VECTORSCOPE_SIZE),
            height - 1 - (int) floor (cr * height / GH_VECTORSCOPE_SIZE), graticule_gray);
    }
}

void
gh_render_vectorscope_marks (uint8_t *pixels, size_t stride, int width, int height, int skin_tone,
                             int bgra)
{
  const int small = width < height ? width : height;
  const int half = small / 64 > 2 ? small / 64 : 2;
  int x, y;
  for (int t = 0; t < 6; t++)
    {
      cell_position (targets[t].cb, targets[t].cr, width, height, &x, &y);
      const uint8_t *rgb = targets[t].colour;
      const uint8_t colour[3] = { bgra ? rgb[2] : rgb[0], rgb[1], bgra ? rgb[0] : rgb[2] };
      target_box (pixels, stride, width, height, x, y, half, colour);
    }
  if (skin_tone)
    skin_tone_line (pixels, stride, width, height);
  cell_position (128, 128, width, height, &x, &y);
  for (int i = -half; i <= half; i++)
    {
      plot (pixels, stride, width, height, x + i, y, graticule_gray);
      plot (pixels, stride, width, height, x, y + i, graticule_gray);
    }
}
