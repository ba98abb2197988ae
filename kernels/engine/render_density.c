/* gpu-histogram: a chart's tables to pixels: each output pixel's sum of the cells it covers,
 * the density curve, and the tables' colours added (gpuhist.h, "Density").  Two passes over the
 * sums, the first for the largest, so that no plane of the output's size is kept.  A chart
 * larger than its table repeats cells: neighbours that cover the same cells (on every layer)
 * have the same sum and the same pixel, so each such sum is made once, and a row is copied from
 * the one above it (docs/BENCHMARKS.md, "Switching charts"). */
#include "backend.h"
#include "render_private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The cells [lo[i], hi[i]) that output pixel i of `size` covers on an axis of n cells. */
typedef struct
{
  int *lo, *hi;
} axis_spans;

static int
spans_make (axis_spans *spans, int size, int n)
{
  spans->lo = malloc ((size_t) size * sizeof *spans->lo);
  spans->hi = malloc ((size_t) size * sizeof *spans->hi);
  if (!spans->lo || !spans->hi)
    return -1;
  for (int i = 0; i < size; i++)
    {
      const int lo = (int) ((int64_t) i * n / size), hi = (int) ((int64_t) (i + 1) * n / size);
      spans->lo[i] = lo;
      spans->hi[i] = hi > lo ? hi : lo + 1;
    }
  return 0;
}

static void
spans_free (axis_spans *spans)
{
  free (spans->lo);
  free (spans->hi);
}

/* A layer and its spans: across its columns, and up its rows (v from the bottom). */
typedef struct
{
  const render_layer *layer;
  axis_spans across, up;
} layer_spans;

/* The sum of the cells under output pixel (x, y) of the layer, x within its columns. */
static double
pixel_sum (const layer_spans *l, int x, int y, int height)
{
  const render_layer *layer = l->layer;
  const int v_lo = l->up.lo[height - 1 - y], v_hi = l->up.hi[height - 1 - y];
  const int h_lo = l->across.lo[x];
  if (v_hi == v_lo + 1 && l->across.hi[x] == h_lo + 1) /* one cell: a stretched chart's */
    return layer->cells[(size_t) h_lo * layer->h_stride + (size_t) v_lo * layer->v_stride];
  double sum = 0;
  for (int h = l->across.lo[x]; h < l->across.hi[x]; h++)
    for (int v = v_lo; v < v_hi; v++)
      sum += layer->cells[(size_t) h * layer->h_stride + (size_t) v * layer->v_stride];
  return sum;
}

/* Whole sums below this have their logarithms in a table: most cells of a large image's
 * tables hold small counts, and log1p is most of the drawing's time. */
#define LOG_TABLE_SIZE 4096

/* The density curve of a chart: its options and largest sum, and that sum's logarithm, made
 * once (the same division as per pixel, so the same result), and log1p of the small whole
 * sums. */
typedef struct
{
  const gh_render_options *options;
  double max, log_max;
  double log_table[LOG_TABLE_SIZE];
} density_curve;

static void
curve_init (density_curve *curve, const gh_render_options *options, double max)
{
  curve->options = options;
  curve->max = max;
  curve->log_max = log1p (max);
  for (int i = 0; i < LOG_TABLE_SIZE; i++)
    curve->log_table[i] = log1p ((double) i);
}

static double
curve_log1p (const density_curve *curve, double sum)
{
  return sum < LOG_TABLE_SIZE && sum == (double) (int) sum ? curve->log_table[(int) sum]
                                                           : log1p (sum);
}

static double
intensity (double sum, const density_curve *curve)
{
  if (curve->max <= 0 || sum <= 0)
    return 0;
  const double v
      = curve->options->gain
        * (curve->options->density == GH_DENSITY_LOG ? curve_log1p (curve, sum) / curve->log_max
                                                     : sum / curve->max);
  return v < 1 ? v : 1;
}

/* Whether output pixel i covers the same cells as pixel i - 1 on this axis. */
static int
same_span (const axis_spans *spans, int i)
{
  return i > 0 && spans->lo[i] == spans->lo[i - 1] && spans->hi[i] == spans->hi[i - 1];
}

/* Whether row y covers the same cells as row y - 1 on every layer. */
static int
same_row (const layer_spans *spans, int n_layers, int height, int y)
{
  int same = y > 0;
  for (int k = 0; k < n_layers && same; k++)
    same = same_span (&spans[k].up, height - y); /* row y is v = height - 1 - y */
  return same;
}

/* The largest cell of a layer drawn at least a pixel a cell on both axes: then each pixel's sum
 * is one cell, and every cell is some pixel's. */
static double
largest_cell (const render_layer *layer)
{
  double max = 0;
  for (int h = 0; h < layer->h_cells; h++)
    for (int v = 0; v < layer->v_cells; v++)
      {
        const double cell
            = layer->cells[(size_t) h * layer->h_stride + (size_t) v * layer->v_stride];
        max = cell > max ? cell : max;
      }
  return max;
}

/* Column by column, so that a waveform's cells (a column's levels side by side) are read in
 * the order they lie in memory. */
static double
largest_sum (const layer_spans *spans, int n_layers, int height)
{
  double max = 0;
  for (int k = 0; k < n_layers; k++)
    {
      const render_layer *layer = spans[k].layer;
      if (layer->x1 - layer->x0 >= layer->h_cells && height >= layer->v_cells)
        {
          const double cell = largest_cell (layer);
          max = cell > max ? cell : max;
          continue;
        }
      for (int x = 0; x < layer->x1 - layer->x0; x++)
        if (!same_span (&spans[k].across, x))
          for (int y = 0; y < height; y++)
            if (y == 0 || !same_span (&spans[k].up, height - y))
              {
                const double sum = pixel_sum (&spans[k], x, y, height);
                max = sum > max ? sum : max;
              }
    }
  return max;
}

/* Rows drawn together: their intensities are made column by column, as largest_sum reads. */
#define BAND_ROWS 32

/* The intensity of each layer at each pixel of rows[0 .. n), in
 * band[(k * BAND_ROWS + j) * width + x] (layer k, rows[j], x within the layer's columns). */
static void
band_intensities (const layer_spans *spans, int n_layers, const density_curve *curve, int width,
                  int height, const int *rows, int n, double *band)
{
  for (int k = 0; k < n_layers; k++)
    for (int x = 0; x < spans[k].layer->x1 - spans[k].layer->x0; x++)
      for (int j = 0; j < n; j++)
        {
          double *v = band + ((size_t) k * BAND_ROWS + j) * width + x;
          *v = same_span (&spans[k].across, x)
                   ? v[-1]
                   : intensity (pixel_sum (&spans[k], x, rows[j], height), curve);
        }
}

/* Band row j: every layer's colour times its intensity, added in acc (3 a pixel), then to
 * bytes. */
static void
draw_row (const layer_spans *spans, int n_layers, const double *band, int j, int width, double *acc,
          uint8_t *row)
{
  for (int i = 0; i < 3 * width; i++)
    acc[i] = 0;
  for (int k = 0; k < n_layers; k++)
    {
      const render_layer *layer = spans[k].layer;
      const double *v = band + ((size_t) k * BAND_ROWS + j) * width;
      for (int c = 0; c < 3; c++)
        if (layer->colour[c] != 0) /* adding nothing leaves the sum as it is */
          {
            double *a = acc + 3 * layer->x0 + c;
            for (int x = 0; x < layer->x1 - layer->x0; x++)
              a[3 * x] += layer->colour[c] * v[x];
          }
    }
  for (int x = 0; x < width; x++)
    {
      for (int c = 0; c < 3; c++)
        {
          const double level = acc[3 * x + c] < 1 ? acc[3 * x + c] : 1;
          row[4 * x + c] = (uint8_t) floor (255 * level + 0.5);
        }
      row[4 * x + 3] = 255;
    }
}

/* Rows from y on: up to BAND_ROWS that differ from the row above, drawn, and the rows that
 * repeat them copied; returns the row after the last. */
static int
draw_band (const layer_spans *spans, int n_layers, const density_curve *curve, int width,
           int height, int y, double *band, double *acc, uint8_t *pixels, size_t stride)
{
  int rows[BAND_ROWS], n = 0, end = y, j = 0;
  while (end < height && (n < BAND_ROWS || same_row (spans, n_layers, height, end)))
    {
      if (!same_row (spans, n_layers, height, end))
        rows[n++] = end;
      end++;
    }
  band_intensities (spans, n_layers, curve, width, height, rows, n, band);
  for (; y < end; y++)
    if (same_row (spans, n_layers, height, y))
      memcpy (pixels + (size_t) y * stride, pixels + (size_t) (y - 1) * stride, (size_t) width * 4);
    else
      draw_row (spans, n_layers, band, j++, width, acc, pixels + (size_t) y * stride);
  return end;
}

gh_status
gh_render_density (const render_layer *layers, int n_layers, const gh_render_options *options,
                   int width, int height, uint8_t *pixels, size_t stride, gh_error *error)
{
  layer_spans spans[GH_MAX_CHANNELS + 2] = { { 0 } };
  double *acc = malloc ((size_t) width * 3 * sizeof *acc);
  double *band = malloc ((size_t) (n_layers > 0 ? n_layers : 1) * BAND_ROWS * width * sizeof *band);
  int failed = !acc || !band || n_layers > GH_MAX_CHANNELS + 2;
  for (int k = 0; k < n_layers && !failed; k++)
    {
      spans[k].layer = &layers[k];
      failed = spans_make (&spans[k].across, layers[k].x1 - layers[k].x0, layers[k].h_cells)
               || spans_make (&spans[k].up, height, layers[k].v_cells);
    }
  if (!failed)
    {
      const double max = largest_sum (spans, n_layers, height);
      density_curve *curve = malloc (sizeof *curve);
      failed = !curve;
      if (curve)
        curve_init (curve, options, max);
      for (int y = 0; y < height && curve;)
        y = draw_band (spans, n_layers, curve, width, height, y, band, acc, pixels, stride);
      free (curve);
    }
  for (int k = 0; k < n_layers && k < GH_MAX_CHANNELS + 2; k++)
    {
      spans_free (&spans[k].across);
      spans_free (&spans[k].up);
    }
  free (acc);
  free (band);
  if (failed)
    gh_error_set (error, GH_ERROR_OUT_OF_MEMORY, "no memory to draw a %d x %d chart", width,
                  height);
  return failed ? GH_ERROR_OUT_OF_MEMORY : GH_OK;
}
