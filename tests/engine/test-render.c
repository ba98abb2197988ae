/* gpu-histogram: the charts (gpuhist.h, gh_render_chart), pixel by pixel, on results made by
 * hand: every pixel of small waveforms, parades and vectorscopes against what the documented
 * rules give, computed here on their own (sums, density curve, colours, graticule, targets). */
#include "test-util.h"

#include <math.h>

/* A result with a waveform of `tables` tables (result channels 0 ..) of columns x bins, all
 * zero, on a run of input_channels (plus value and luminance when derived). */
static void
make_waveform (gh_result *result, int input_channels, int derived, int tables, int columns,
               int bins)
{
  memset (result, 0, sizeof *result);
  result->input_channels = input_channels;
  result->channels = input_channels + (derived ? 2 : 0);
  result->derived = derived;
  result->bins = bins;
  gh_scope *w = &result->scopes[GH_SCOPE_WAVEFORM];
  w->tables = tables;
  w->columns = columns;
  w->bins = bins;
  for (int t = 0; t < tables; t++)
    w->channel[t] = t;
  w->values = calloc ((size_t) tables * columns * bins, sizeof *w->values);
}

static double *
wave_cell (gh_result *result, int t, int column, int bin)
{
  gh_scope *w = &result->scopes[GH_SCOPE_WAVEFORM];
  return &w->values[((size_t) t * w->columns + column) * w->bins + bin];
}

/* Cells to set: table, column, bin and the count there. */
typedef struct
{
  int table, column, bin;
  double count;
} cell_value;

static void
set_cells (gh_result *result, const cell_value *cells, int n)
{
  for (int i = 0; i < n; i++)
    *wave_cell (result, cells[i].table, cells[i].column, cells[i].bin) = cells[i].count;
}

/* Linear density at gain 1 without the graticule: the density alone, easy to predict. */
static gh_render_options
linear_density_alone (void)
{
  gh_render_options options;
  gh_render_options_init (&options);
  options.density = GH_DENSITY_LINEAR;
  options.graticule = 0;
  return options;
}

static void
add_vectorscope (gh_result *result)
{
  gh_scope *v = &result->scopes[GH_SCOPE_VECTORSCOPE];
  v->tables = 1;
  v->columns = v->bins = 256;
  v->values = calloc (256 * 256, sizeof *v->values);
}

static void
free_result (gh_result *result)
{
  for (int k = 0; k < GH_N_SCOPES; k++)
    free (result->scopes[k].values);
}

/* The chart at width x height into a fresh buffer with padded rows (stride 4 * width + 8). */
static uint8_t *
draw (const gh_result *result, gh_chart chart, const gh_render_options *options, int width,
      int height)
{
  const size_t stride = 4 * (size_t) width + 8;
  uint8_t *pixels = malloc (stride * height);
  memset (pixels, 0xAB, stride * height);
  gh_error error = { GH_OK, "" };
  gh_status status
      = gh_render_chart (result, chart, options, width, height, pixels, stride, &error);
  CHECK (status == GH_OK, "chart %d: %s", (int) chart, error.message);
  for (int y = 0; y < height; y++)
    for (int i = 4 * width; i < (int) stride; i++)
      CHECK (pixels[(size_t) y * stride + i] == 0xAB, "row %d: padding byte %d written", y, i);
  return pixels;
}

static const uint8_t *
pixel (const uint8_t *pixels, int width, int x, int y)
{
  return pixels + (size_t) y * (4 * (size_t) width + 8) + 4 * (size_t) x;
}

static void
expect_pixel (const uint8_t *pixels, int width, int x, int y, int r, int g, int b, const char *what)
{
  const uint8_t *p = pixel (pixels, width, x, y);
  CHECK (p[0] == r && p[1] == g && p[2] == b && p[3] == 255,
         "%s: pixel (%d, %d) is %d %d %d %d, expected %d %d %d 255", what, x, y, p[0], p[1], p[2],
         p[3], r, g, b);
}

/* One table's level at full colour: the density curve of gpuhist.h. */
static int
level_of (double sum, double max, gh_density density, double gain)
{
  if (sum <= 0)
    return 0;
  double v = density == GH_DENSITY_LINEAR ? sum / max : log1p (sum) / log1p (max);
  v *= gain;
  if (v > 1)
    v = 1;
  return (int) floor (255 * v + 0.5);
}

/* The waveform's graticule rows at this height: 0, 25, 50, 75 and 100 % of the levels. */
static int
on_level_line (int y, int height)
{
  static const double quarters[] = { 0, 0.25, 0.5, 0.75, 1 };
  for (int q = 0; q < 5; q++)
    if (y == height - 1 - (int) floor (quarters[q] * (height - 1) + 0.5))
      return 1;
  return 0;
}

/* A gray waveform of 4 columns: every pixel, linear and log, gain 1 and 2, with and without
 * the graticule. */
static void
test_gray_waveform (void)
{
  static const cell_value cells[]
      = { { 0, 0, 0, 8 }, { 0, 1, 10, 4 }, { 0, 2, 255, 2.5 }, { 0, 3, 128, 1 }, { 0, 3, 64, 3 } };
  gh_result result;
  make_waveform (&result, 1, 0, 1, 4, 256);
  set_cells (&result, cells, 5);

  int width, height;
  gh_error error;
  CHECK (gh_render_natural_size (&result, GH_CHART_WAVEFORM, &width, &height, &error) == GH_OK
             && width == 4 && height == 256,
         "natural size %d x %d", width, height);
  for (int variant = 0; variant < 8; variant++)
    {
      gh_render_options options;
      gh_render_options_init (&options);
      options.density = variant & 1 ? GH_DENSITY_LOG : GH_DENSITY_LINEAR;
      options.gain = variant & 2 ? 2 : 1;
      options.graticule = (variant & 4) == 0;
      uint8_t *pixels = draw (&result, GH_CHART_WAVEFORM, &options, 4, 256);
      for (int y = 0; y < 256; y++)
        for (int x = 0; x < 4; x++)
          {
            int v
                = level_of (*wave_cell (&result, 0, x, 255 - y), 8, options.density, options.gain);
            if (options.graticule && on_level_line (y, 256) && v < 96)
              v = 96;
            expect_pixel (pixels, 4, x, y, v, v, v, "gray waveform");
          }
      free (pixels);
    }
  /* The values themselves, once: linear 8, 4, 2.5, 1 of 8 are 255, 128, 80, 32. */
  gh_render_options options = linear_density_alone ();
  uint8_t *pixels = draw (&result, GH_CHART_WAVEFORM, &options, 4, 256);
  expect_pixel (pixels, 4, 0, 255, 255, 255, 255, "8 of 8");
  expect_pixel (pixels, 4, 1, 245, 128, 128, 128, "4 of 8");
  expect_pixel (pixels, 4, 2, 0, 80, 80, 80, "2.5 of 8");
  expect_pixel (pixels, 4, 3, 127, 32, 32, 32, "1 of 8");
  free (pixels);
  free_result (&result);
}

/* RGB with value and luminance: tables added in their colours; the parade in thirds. */
static void
test_rgb_overlay_and_parade (void)
{
  /* Red and green at the same place (yellow), blue alone at half, value (light gray),
   * luminance (white) and red on it (clipped white). */
  static const cell_value cells[] = { { 0, 0, 100, 4 }, { 1, 0, 100, 4 }, { 2, 1, 50, 2 },
                                      { 3, 1, 200, 4 }, { 4, 0, 10, 4 },  { 0, 0, 10, 4 } };
  gh_result result;
  make_waveform (&result, 3, 1, 5, 2, 256);
  set_cells (&result, cells, 6);
  gh_render_options options = linear_density_alone ();

  uint8_t *pixels = draw (&result, GH_CHART_WAVEFORM, &options, 2, 256);
  expect_pixel (pixels, 2, 0, 155, 255, 255, 0, "red and green");
  expect_pixel (pixels, 2, 1, 205, 0, 0, 128, "blue at half");
  expect_pixel (pixels, 2, 1, 55, 191, 191, 191, "value");
  expect_pixel (pixels, 2, 0, 245, 255, 255, 255, "red on luminance");
  expect_pixel (pixels, 2, 1, 155, 0, 0, 0, "empty");
  free (pixels);

  /* Only red and luminance (bits 0 and 4). */
  options.channels = 0x11;
  pixels = draw (&result, GH_CHART_WAVEFORM, &options, 2, 256);
  expect_pixel (pixels, 2, 0, 155, 255, 0, 0, "red alone");
  expect_pixel (pixels, 2, 1, 205, 0, 0, 0, "blue not drawn");
  free (pixels);
  /* Blue alone (bit 2): at its own maximum, the others' cells black. */
  options.channels = 0x4;
  pixels = draw (&result, GH_CHART_WAVEFORM, &options, 2, 256);
  expect_pixel (pixels, 2, 1, 205, 0, 0, 255, "blue alone, its own maximum");
  expect_pixel (pixels, 2, 0, 155, 0, 0, 0, "red not drawn");
  expect_pixel (pixels, 2, 1, 55, 0, 0, 0, "value not drawn");
  free (pixels);
  /* No channel: nothing but black (the graticule is off). */
  options.channels = GH_RENDER_NO_CHANNELS;
  pixels = draw (&result, GH_CHART_WAVEFORM, &options, 2, 256);
  for (int y = 0; y < 256; y++)
    for (int x = 0; x < 2; x++)
      expect_pixel (pixels, 2, x, y, 0, 0, 0, "no channel drawn");
  free (pixels);
  options.channels = 0;

  int width, height;
  gh_error error;
  CHECK (gh_render_natural_size (&result, GH_CHART_PARADE, &width, &height, &error) == GH_OK
             && width == 6 && height == 256,
         "parade natural size %d x %d", width, height);
  pixels = draw (&result, GH_CHART_PARADE, &options, 6, 256);
  for (int y = 0; y < 256; y++)
    for (int x = 0; x < 6; x++)
      {
        const int panel = x / 2, column = x % 2;
        const int v
            = level_of (*wave_cell (&result, panel, column, 255 - y), 4, options.density, 1);
        expect_pixel (pixels, 6, x, y, panel == 0 ? v : 0, panel == 1 ? v : 0, panel == 2 ? v : 0,
                      "parade");
      }
  free (pixels);
  free_result (&result);
}

/* Shrinking sums the cells an output pixel covers; stretching repeats them. */
static void
test_resampling (void)
{
  /* 4 in output pixel (0, 127), 2 in (3, 0), 1 in (2, 77). */
  static const cell_value cells[]
      = { { 0, 0, 0, 1 }, { 0, 1, 1, 3 }, { 0, 6, 254, 1 }, { 0, 7, 255, 1 }, { 0, 5, 100, 1 } };
  gh_result result;
  make_waveform (&result, 1, 0, 1, 8, 256);
  set_cells (&result, cells, 5);
  gh_render_options options = linear_density_alone ();
  uint8_t *pixels = draw (&result, GH_CHART_WAVEFORM, &options, 4, 128);
  for (int y = 0; y < 128; y++)
    for (int x = 0; x < 4; x++)
      {
        double sum = 0;
        for (int c = 2 * x; c < 2 * x + 2; c++)
          for (int b = 2 * (127 - y); b < 2 * (127 - y) + 2; b++)
            sum += *wave_cell (&result, 0, c, b);
        const int v = level_of (sum, 4, GH_DENSITY_LINEAR, 1);
        expect_pixel (pixels, 4, x, y, v, v, v, "shrunk");
      }
  expect_pixel (pixels, 4, 3, 0, 128, 128, 128, "2 of 4");
  free (pixels);
  free_result (&result);

  /* 2 columns over 5 pixels: pixel x shows column floor (x * 2 / 5) (0, 0, 0, 1, 1). */
  make_waveform (&result, 1, 0, 1, 2, 256);
  *wave_cell (&result, 0, 0, 0) = 2;
  *wave_cell (&result, 0, 1, 0) = 1;
  pixels = draw (&result, GH_CHART_WAVEFORM, &options, 5, 256);
  for (int x = 0; x < 5; x++)
    {
      const int v = x < 3 ? 255 : 128;
      expect_pixel (pixels, 5, x, 255, v, v, v, "stretched");
    }
  free (pixels);
  free_result (&result);

  /* 4096 bins: a natural height of 1024, 4 bins a row. */
  make_waveform (&result, 1, 0, 1, 3, 4096);
  int width, height;
  gh_error error;
  CHECK (gh_render_natural_size (&result, GH_CHART_WAVEFORM, &width, &height, &error) == GH_OK
             && width == 3 && height == 1024,
         "4096 bins: natural size %d x %d", width, height);
  free_result (&result);
}

/* The cell of 8-bit r, g, b: the normative formula, written out here again. */
static void
chroma (int r, int g, int b, int *cb, int *cr)
{
  *cb = (-7509 * r - 25259 * g + 32768 * b + 8421376) / 65536;
  *cr = (32768 * r - 29763 * g - 3005 * b + 8421376) / 65536;
  *cb = *cb > 255 ? 255 : *cb;
  *cr = *cr > 255 ? 255 : *cr;
}

static void
test_vectorscope (void)
{
  gh_result result;
  memset (&result, 0, sizeof result);
  result.input_channels = result.channels = 3;
  add_vectorscope (&result);
  gh_scope *v = &result.scopes[GH_SCOPE_VECTORSCOPE];
  v->values[128 * 256 + 128] = 10; /* grays */
  v->values[40 * 256 + 200] = 5;   /* cr 40, cb 200: x 200, y 215 */
  gh_render_options options = linear_density_alone ();
  uint8_t *pixels = draw (&result, GH_CHART_VECTORSCOPE, &options, 256, 256);
  for (int y = 0; y < 256; y++)
    for (int x = 0; x < 256; x++)
      {
        const int level = level_of (v->values[(255 - y) * 256 + x], 10, GH_DENSITY_LINEAR, 1);
        expect_pixel (pixels, 256, x, y, level, level, level, "vectorscope density");
      }
  expect_pixel (pixels, 256, 128, 127, 255, 255, 255, "the centre, Cr up");
  free (pixels);

  /* The targets: 75 % bars (191 and 0), their cells from the formula, hollow squares of half
   * side 4 at 256 x 256 with a dot in the middle; the centre cross; the skin-tone line. */
  static const int bars[6][3] = { { 191, 0, 0 },   { 191, 0, 191 }, { 0, 0, 191 },
                                  { 0, 191, 191 }, { 0, 191, 0 },   { 191, 191, 0 } };
  options.graticule = 1;
  options.skin_tone_line = 1;
  pixels = draw (&result, GH_CHART_VECTORSCOPE, &options, 256, 256);
  for (int t = 0; t < 6; t++)
    {
      int cb, cr;
      chroma (bars[t][0], bars[t][1], bars[t][2], &cb, &cr);
      const int x = cb, y = 255 - cr;
      expect_pixel (pixels, 256, x, y, bars[t][0], bars[t][1], bars[t][2], "target dot");
      expect_pixel (pixels, 256, x - 4, y - 4, bars[t][0], bars[t][1], bars[t][2], "target corner");
      expect_pixel (pixels, 256, x + 4, y + 2, bars[t][0], bars[t][1], bars[t][2], "target side");
      expect_pixel (pixels, 256, x + 2, y + 2, 0, 0, 0, "inside the target");
    }
  int cb, cr;
  chroma (191, 0, 0, &cb, &cr);
  CHECK (cb == 106 && cr == 224, "red's target at cb %d cr %d", cb, cr);
  expect_pixel (pixels, 256, 128, 127, 255, 255, 255, "density over the centre cross");
  expect_pixel (pixels, 256, 132, 127, 96, 96, 96, "centre cross");
  expect_pixel (pixels, 256, 128, 123, 96, 96, 96, "centre cross");
  /* 60 cells out from the centre of cell (128, 128) along 123 degrees, one cell a pixel. */
  const double angle = 123.0 * acos (-1.0) / 180.0;
  const int sx = (int) floor (128.5 + 60 * cos (angle)),
            sy = 255 - (int) floor (128.5 + 60 * sin (angle));
  CHECK (sx < 128 && sy < 127, "the skin-tone line goes up and left (%d, %d)", sx, sy);
  expect_pixel (pixels, 256, sx, sy, 96, 96, 96, "skin-tone line");
  free (pixels);
  options.skin_tone_line = 0;
  pixels = draw (&result, GH_CHART_VECTORSCOPE, &options, 256, 256);
  expect_pixel (pixels, 256, sx, sy, 0, 0, 0, "no skin-tone line");
  free (pixels);

  /* Half size: cells 2 x 2 a pixel, targets at floor ((cb + 0.5) / 2). */
  options.density = GH_DENSITY_LOG;
  pixels = draw (&result, GH_CHART_VECTORSCOPE, &options, 128, 128);
  expect_pixel (pixels, 128, 64, 63, 255, 255, 255, "the centre at half size");
  const int half = level_of (5, 10, GH_DENSITY_LOG, 1);
  expect_pixel (pixels, 128, 100, 107, half, half, half, "cr 40 cb 200 at half size, log");
  expect_pixel (pixels, 128, 53, 15, 191, 0, 0, "red's target at half size");
  free (pixels);
  free_result (&result);
}

static void
test_refusals (void)
{
  gh_result result;
  gh_error error;
  int width, height;
  gh_render_options options;
  gh_render_options_init (&options);
  uint8_t pixels[64];

  make_waveform (&result, 2, 0, 2, 4, 256); /* gray and alpha */
  CHECK (gh_render_natural_size (&result, GH_CHART_PARADE, &width, &height, &error)
             == GH_ERROR_INVALID_ARGUMENT,
         "a parade of gray");
  CHECK (strstr (error.message, "red, green and blue") != NULL, "message %s", error.message);
  CHECK (gh_render_chart (&result, GH_CHART_VECTORSCOPE, &options, 2, 2, pixels, 8, &error)
             == GH_ERROR_INVALID_ARGUMENT,
         "a vectorscope not counted");
  CHECK (gh_render_chart (&result, GH_CHART_WAVEFORM, &options, 4, 2, pixels, 12, &error)
             == GH_ERROR_INVALID_ARGUMENT,
         "a stride too short");
  CHECK (gh_render_chart (&result, GH_CHART_WAVEFORM, &options, 0, 2, pixels, 12, &error)
             == GH_ERROR_INVALID_ARGUMENT,
         "no width");
  options.gain = 0;
  CHECK (gh_render_chart (&result, GH_CHART_WAVEFORM, &options, 2, 2, pixels, 8, &error)
             == GH_ERROR_INVALID_ARGUMENT,
         "gain 0");
  free_result (&result);

  /* RGB whose waveform lacks green: no parade either. */
  make_waveform (&result, 3, 0, 2, 4, 256);
  result.scopes[GH_SCOPE_WAVEFORM].channel[1] = 2;
  CHECK (gh_render_natural_size (&result, GH_CHART_PARADE, &width, &height, &error)
             == GH_ERROR_INVALID_ARGUMENT,
         "a parade without green");
  free_result (&result);
}

/* The straightforward drawing of gpuhist.h's rules, pixel by pixel, for the renderer's faster
 * one to match byte for byte: each pixel's sum of each drawn table (cells added column by
 * column, level by level within a column, as the renderer adds them, so that fractional
 * weighted values round alike), the largest sum, the curve (gain times the ratio) and the
 * colours added in table order. */
typedef struct
{
  const double *cells;
  size_t h_stride, v_stride;
  int h_cells, v_cells, x0, x1;
  double colour[3];
} reference_layer;

static void
span_of (int i, int size, int n, int *lo, int *hi)
{
  *lo = (int) ((int64_t) i * n / size);
  *hi = (int) ((int64_t) (i + 1) * n / size);
  if (*hi <= *lo)
    *hi = *lo + 1;
}

static double
reference_sum (const reference_layer *l, int x, int y, int height)
{
  int h_lo, h_hi, v_lo, v_hi;
  span_of (x - l->x0, l->x1 - l->x0, l->h_cells, &h_lo, &h_hi);
  span_of (height - 1 - y, height, l->v_cells, &v_lo, &v_hi);
  double sum = 0;
  for (int h = h_lo; h < h_hi; h++)
    for (int v = v_lo; v < v_hi; v++)
      sum += l->cells[(size_t) h * l->h_stride + (size_t) v * l->v_stride];
  return sum;
}

static int
reference_layers (const gh_result *result, gh_chart chart, unsigned channels, int width,
                  reference_layer *layers)
{
  static const double colours[][3] = { { 1, 0, 0 },       { 0, 1, 0 },          { 0, 0, 1 },
                                       { 0.5, 0.5, 0.5 }, { 0.75, 0.75, 0.75 }, { 1, 1, 1 } };
  const gh_scope *w = &result->scopes[GH_SCOPE_WAVEFORM];
  int n = 0;
  if (chart == GH_CHART_VECTORSCOPE)
    {
      const gh_scope *v = &result->scopes[GH_SCOPE_VECTORSCOPE];
      layers[n++] = (reference_layer){ v->values, 1, 256, 256, 256, 0, width, { 1, 1, 1 } };
      return n;
    }
  for (int t = 0; t < w->tables; t++) /* RGBA with value and luminance: channels 0 .. 5 */
    {
      const int c = w->channel[t], p = chart == GH_CHART_PARADE ? c : 0;
      if (chart == GH_CHART_PARADE ? c > 2 : channels && !((channels >> c) & 1u))
        continue;
      reference_layer l = { w->values + (size_t) t * w->columns * w->bins,
                            (size_t) w->bins,
                            1,
                            w->columns,
                            w->bins,
                            chart == GH_CHART_PARADE ? p * width / 3 : 0,
                            chart == GH_CHART_PARADE ? (p + 1) * width / 3 : width,
                            { colours[c][0], colours[c][1], colours[c][2] } };
      if (l.x1 > l.x0)
        layers[n++] = l;
    }
  return n;
}

static void
reference_chart (const gh_result *result, gh_chart chart, const gh_render_options *options,
                 int width, int height, uint8_t *out)
{
  reference_layer layers[8];
  const int n = reference_layers (result, chart, options->channels, width, layers);
  double max = 0;
  for (int k = 0; k < n; k++)
    for (int y = 0; y < height; y++)
      for (int x = layers[k].x0; x < layers[k].x1; x++)
        {
          const double sum = reference_sum (&layers[k], x, y, height);
          max = sum > max ? sum : max;
        }
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++)
      {
        double acc[3] = { 0, 0, 0 };
        for (int k = 0; k < n; k++)
          if (x >= layers[k].x0 && x < layers[k].x1)
            {
              const double sum = reference_sum (&layers[k], x, y, height);
              double v = 0;
              if (max > 0 && sum > 0)
                v = options->gain
                    * (options->density == GH_DENSITY_LOG ? log1p (sum) / log1p (max) : sum / max);
              v = v < 1 ? v : 1;
              for (int c = 0; c < 3; c++)
                acc[c] += layers[k].colour[c] * v;
            }
        for (int c = 0; c < 3; c++)
          out[((size_t) y * width + x) * 4 + c]
              = (uint8_t) floor (255 * (acc[c] < 1 ? acc[c] : 1) + 0.5);
        out[((size_t) y * width + x) * 4 + 3] = 255;
      }
}

/* Every chart with its graticule (the vectorscope's coloured targets) in B, G, R, A: the same
 * bytes as R, G, B, A with red and blue swapped. */
static void
test_bgra (void)
{
  gh_result result;
  make_waveform (&result, 4, 1, 6, 30, 256);
  add_vectorscope (&result);
  for (int i = 0; i < 6 * 30 * 256; i++)
    result.scopes[GH_SCOPE_WAVEFORM].values[i] = (double) (test_random () % 4);
  for (int i = 0; i < 256 * 256; i++)
    result.scopes[GH_SCOPE_VECTORSCOPE].values[i] = (double) (test_random () % 3);
  for (int chart = 0; chart < GH_N_CHARTS; chart++)
    {
      gh_render_options options;
      gh_render_options_init (&options);
      uint8_t *rgba = draw (&result, (gh_chart) chart, &options, 301, 203);
      options.bgra = 1;
      uint8_t *bgra = draw (&result, (gh_chart) chart, &options, 301, 203);
      int wrong = 0;
      for (int y = 0; y < 203 && !wrong; y++)
        for (int x = 0; x < 301 && !wrong; x++)
          {
            const uint8_t *p = pixel (rgba, 301, x, y), *q = pixel (bgra, 301, x, y);
            wrong = p[0] != q[2] || p[1] != q[1] || p[2] != q[0] || p[3] != q[3];
            CHECK (!wrong, "chart %d in B, G, R, A: pixel (%d, %d) is %d %d %d %d, not %d %d %d %d",
                   chart, x, y, q[0], q[1], q[2], q[3], p[2], p[1], p[0], p[3]);
          }
      free (rgba);
      free (bgra);
    }
  free_result (&result);
}

/* A random cell: often empty, else a small or large whole count or a weighted fraction. */
static double
random_cell (void)
{
  switch (test_random () % 8)
    {
    case 0: return (double) (test_random () % 40);
    case 1: return (double) (4000 + test_random () % 200000);
    case 2: return (double) (test_random () % 100000) / 7.0;
    case 3: return (double) (test_random () % 3000);
    case 4: return (double) (test_random () % 700) / 7.0;
    default: return 0;
    }
}

/* Random tables at random sizes (shrunk, stretched, each axis on its own), every chart, both
 * curves, against the reference above. */
static void
test_against_reference (void)
{
  static const int bin_choices[] = { 4, 16, 37, 64, 256, 1024 };
  for (int round = 0; round < 120; round++)
    {
      gh_result result;
      const int columns = 1 + (int) (test_random () % 50);
      const int bins = bin_choices[test_random () % 6];
      make_waveform (&result, 4, 1, 6, columns, bins);
      gh_scope *w = &result.scopes[GH_SCOPE_WAVEFORM];
      for (size_t i = 0; i < (size_t) 6 * columns * bins; i++)
        w->values[i] = random_cell ();
      add_vectorscope (&result);
      for (int i = 0; i < 256 * 256; i++)
        result.scopes[GH_SCOPE_VECTORSCOPE].values[i] = random_cell ();
      const gh_chart chart = (gh_chart) (round % GH_N_CHARTS);
      const int width = 1 + (int) (test_random () % (round < 60 ? 40 : 300));
      const int height = 1 + (int) (test_random () % (round < 60 ? 40 : 300));
      gh_render_options options = linear_density_alone ();
      options.density = test_random () % 2 ? GH_DENSITY_LOG : GH_DENSITY_LINEAR;
      options.gain = (double) (1 + test_random () % 40) / 10;
      options.channels = test_random () % 2 ? 0 : (unsigned) (1 + test_random () % 63);
      options.bgra = (int) (test_random () % 2);
      uint8_t *pixels = draw (&result, chart, &options, width, height);
      uint8_t *expected = malloc ((size_t) width * height * 4);
      reference_chart (&result, chart, &options, width, height, expected);
      for (size_t i = 0; options.bgra && i < (size_t) width * height * 4; i += 4)
        {
          const uint8_t red = expected[i];
          expected[i] = expected[i + 2];
          expected[i + 2] = red;
        }
      int wrong = 0;
      for (int y = 0; y < height && !wrong; y++)
        for (int x = 0; x < width && !wrong; x++)
          {
            const uint8_t *p = pixel (pixels, width, x, y),
                          *e = expected + ((size_t) y * width + x) * 4;
            wrong = memcmp (p, e, 4) != 0;
            CHECK (!wrong,
                   "round %d, chart %d, %d columns x %d bins at %d x %d: pixel (%d, %d) is "
                   "%d %d %d %d, the reference %d %d %d %d",
                   round, (int) chart, columns, bins, width, height, x, y, p[0], p[1], p[2], p[3],
                   e[0], e[1], e[2], e[3]);
          }
      free (expected);
      free (pixels);
      free_result (&result);
    }
}

int
main (void)
{
  test_init ();
  test_gray_waveform ();
  test_rgb_overlay_and_parade ();
  test_resampling ();
  test_vectorscope ();
  test_refusals ();
  /* The drawing on one thread, then shared with a helper (render_split.c), whatever the
   * machine's load. */
  setenv ("GPUHIST_RENDER_THREADS", "1", 1);
  test_against_reference ();
  setenv ("GPUHIST_RENDER_THREADS", "2", 1);
  test_against_reference ();
  test_bgra ();
  if (test_failures)
    printf ("%d check(s) failed\n", test_failures);
  else
    printf ("charts: every pixel as documented\n");
  return test_failures ? 1 : 0;
}
