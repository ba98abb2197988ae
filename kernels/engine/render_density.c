/* gpu-histogram: a chart's tables to pixels: each output pixel's sum of the cells it covers,
 * the density curve, and the tables' colours added (gpuhist.h, "Density").
 *
 * Layers drawn over the same columns share their spans, so the pixels that cover the same
 * cells on both axes are the same pixel: each such pixel is made once, into a plane of one pixel
 * per distinct span pair (a chart larger than its table: one a cell), and the output is filled
 * from that plane.  The first pass over the tables finds the largest sum (the curve needs it)
 * and keeps each small whole sum as a 16-bit code, so that the second reads a quarter of the
 * bytes; each walks the tables in the order they lie in memory (docs/BENCHMARKS.md, "Switching
 * charts"). */
#include "backend.h"
#include "render_private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Whole sums below this have their intensities in a table: most cells of a large image's
 * tables hold small counts, and log1p is most of the drawing's time. */
#define SMALL_SUMS 4096

/* The density curve of a chart: its options and largest sum, and that sum's logarithm, made
 * once (the same division as per pixel, so the same result), and the intensity of each small
 * whole sum. */
typedef struct
{
  const gh_render_options *options;
  double max, log_max;
  double small[SMALL_SUMS];
} density_curve;

static double
curve_formula (const density_curve *curve, double sum)
{
  if (curve->max <= 0 || sum <= 0)
    return 0;
  const double v = curve->options->gain
                   * (curve->options->density == GH_DENSITY_LOG ? log1p (sum) / curve->log_max
                                                                : sum / curve->max);
  return v < 1 ? v : 1;
}

static void
curve_init (density_curve *curve, const gh_render_options *options, double max)
{
  curve->options = options;
  curve->max = max;
  curve->log_max = log1p (max);
  for (int i = 0; i < SMALL_SUMS; i++)
    curve->small[i] = curve_formula (curve, (double) i);
}

/* The curve at a sum: from the table for a small whole one (0 included), else computed. */
static inline double
intensity (double sum, const density_curve *curve)
{
  return sum >= 0 && sum < SMALL_SUMS && sum == (double) (int) sum ? curve->small[(int) sum]
                                                                   : curve_formula (curve, sum);
}

/* The distinct spans of an axis of `size` pixels over n cells: a pixel that covers the same
 * cells as the one before it shares its span.  Span s covers cells [lo[s], hi[s]); pixel i has
 * span of[i]. */
typedef struct
{
  int n;
  int *lo, *hi, *of;
} axis_runs;

static int
runs_make (axis_runs *runs, int size, int cells)
{
  runs->n = 0;
  runs->lo = malloc ((size_t) size * sizeof *runs->lo);
  runs->hi = malloc ((size_t) size * sizeof *runs->hi);
  runs->of = malloc ((size_t) size * sizeof *runs->of);
  if (!runs->lo || !runs->hi || !runs->of)
    return -1;
  for (int i = 0; i < size; i++)
    {
      const int lo = (int) ((int64_t) i * cells / size);
      int hi = (int) ((int64_t) (i + 1) * cells / size);
      hi = hi > lo ? hi : lo + 1;
      if (runs->n == 0 || lo != runs->lo[runs->n - 1] || hi != runs->hi[runs->n - 1])
        {
          runs->lo[runs->n] = lo;
          runs->hi[runs->n] = hi;
          runs->n++;
        }
      runs->of[i] = runs->n - 1;
    }
  return 0;
}

static void
runs_free (axis_runs *runs)
{
  free (runs->lo);
  free (runs->hi);
  free (runs->of);
}

/* Layers over the same output columns from tables of the same shape, in drawing order: they
 * share their spans, across (columns) and up (v from the bottom), and their pixel plane:
 * pixel (across span a, up span b) at plane + 4 * (b * across.n + a), a row of the chart's
 * pixels side by side as the output's rows are filled. */
typedef struct
{
  const render_layer *layers[GH_MAX_CHANNELS + 2];
  int n;
  axis_runs across, up;
  uint8_t *plane;
  /* Each layer's sums at (a, b), at codes[(k * across.n + a) * up.n + b], as small whole sums
   * (below SMALL_SUMS), made while looking for the largest so that the drawing reads them
   * instead of the tables; coded[k * across.n + a]: 1 when every sum of that column span is
   * one, else the drawing makes its sums again. */
  uint16_t *codes;
  uint8_t *coded;
} layer_group;

static int
same_shape (const render_layer *a, const render_layer *b)
{
  return a->x0 == b->x0 && a->x1 == b->x1 && a->h_cells == b->h_cells && a->v_cells == b->v_cells;
}

/* The layers into groups; -1 when two groups' columns overlap (the callers never do that: the
 * waveform's tables share every column, the parade's panels share none). */
static int
group_layers (const render_layer *layers, int n_layers, layer_group *groups)
{
  int n = 0;
  for (int k = 0; k < n_layers; k++)
    {
      if (layers[k].x1 <= layers[k].x0) /* draws nothing */
        continue;
      int g = 0;
      while (g < n && !same_shape (groups[g].layers[0], &layers[k]))
        g++;
      if (g == n)
        memset (&groups[n++], 0, sizeof *groups);
      groups[g].layers[groups[g].n++] = &layers[k];
    }
  for (int g = 0; g < n; g++)
    for (int o = g + 1; o < n; o++)
      if (groups[g].layers[0]->x0 < groups[o].layers[0]->x1
          && groups[o].layers[0]->x0 < groups[g].layers[0]->x1)
        return -1;
  return n;
}

/* A layer's sums at column span a over every up span: its own cells when each pixel covers one
 * cell of a column and the column's cells lie side by side, else made in sums.  A sum adds its
 * cells column by column, level by level within a column. */
static const double *
column_sums (const render_layer *layer, const axis_runs *across, const axis_runs *up, int a,
             double *sums)
{
  const int h_lo = across->lo[a], h_hi = across->hi[a];
  const double *cells = layer->cells;
  const size_t hs = layer->h_stride, vs = layer->v_stride;
  if (up->n == layer->v_cells && h_hi == h_lo + 1 && vs == 1)
    return cells + (size_t) h_lo * hs;
  if (up->n == layer->v_cells) /* a cell a row: the columns added level by level */
    {
      for (int b = 0; b < up->n; b++)
        sums[b] = cells[(size_t) h_lo * hs + (size_t) b * vs];
      for (int h = h_lo + 1; h < h_hi; h++)
        for (int b = 0; b < up->n; b++)
          sums[b] += cells[(size_t) h * hs + (size_t) b * vs];
      return sums;
    }
  for (int b = 0; b < up->n; b++)
    {
      double sum = 0;
      for (int h = h_lo; h < h_hi; h++)
        for (int v = up->lo[b]; v < up->hi[b]; v++)
          sum += cells[(size_t) h * hs + (size_t) v * vs];
      sums[b] = sum;
    }
  return sums;
}

/* The largest of n sums: in lanes that do not wait on each other, so that the comparisons
 * overlap (the order does not change a largest value). */
#define MAX_LANES 8

static void
lanes_max (const double *s, int n, double *lanes)
{
  int b = 0;
  for (; b + MAX_LANES <= n; b += MAX_LANES)
    for (int j = 0; j < MAX_LANES; j++)
      lanes[j] = s[b + j] > lanes[j] ? s[b + j] : lanes[j];
  for (; b < n; b++)
    lanes[0] = s[b] > lanes[0] ? s[b] : lanes[0];
}

/* Sums as codes (layer_group.codes); 1 when every one is a small whole sum. */
static int
encode_sums (const double *s, int n, uint16_t *codes)
{
  int small = 1;
  for (int b = 0; b < n; b++)
    {
      const int whole = s[b] >= 0 && s[b] < SMALL_SUMS && s[b] == (double) (int) s[b];
      codes[b] = whole ? (uint16_t) (int) s[b] : 0;
      small &= whole;
    }
  return small;
}

/* One layer's colour times its intensities (of codes when `coded`, else of sums), added to acc
 * (3 a span); a component of the colour that is 0 adds nothing, and neither does an empty cell
 * (its intensity is 0).  Inlined with the colours its callers know, so that the components
 * left out cost nothing. */
static inline void
add_layer (const double *s, const uint16_t *codes, int coded, int n, const density_curve *curve,
           const double *colour, int red, int green, int blue, double *acc)
{
  for (int b = 0; b < n; b++)
    {
      const double v = coded ? curve->small[codes[b]] : intensity (s[b], curve);
      if (red)
        acc[3 * b] += colour[0] * v;
      if (green)
        acc[3 * b + 1] += colour[1] * v;
      if (blue)
        acc[3 * b + 2] += colour[2] * v;
    }
}

static inline void
add_layer_colours (const double *s, const uint16_t *codes, int coded, int n,
                   const density_curve *curve, const double *colour, double *acc)
{
  const int red = colour[0] != 0, green = colour[1] != 0, blue = colour[2] != 0;
  if (red && green && blue)
    add_layer (s, codes, coded, n, curve, colour, 1, 1, 1, acc);
  else if (red && !green && !blue)
    add_layer (s, codes, coded, n, curve, colour, 1, 0, 0, acc);
  else if (!red && green && !blue)
    add_layer (s, codes, coded, n, curve, colour, 0, 1, 0, acc);
  else if (!red && !green && blue)
    add_layer (s, codes, coded, n, curve, colour, 0, 0, 1, acc);
  else
    add_layer (s, codes, coded, n, curve, colour, red, green, blue, acc);
}

/* Column span a of a group: each layer's colour times its intensity, added in acc, then to
 * pixels, one an up span, in column. */
static void
draw_column_span (const layer_group *group, int a, const density_curve *curve, double *sums,
                  double *acc, uint8_t *column)
{
  const int n_up = group->up.n;
  memset (acc, 0, (size_t) n_up * 3 * sizeof *acc);
  for (int k = 0; k < group->n; k++)
    {
      const size_t column_span = (size_t) k * group->across.n + a;
      if (group->coded[column_span])
        add_layer_colours (NULL, group->codes + column_span * n_up, 1, n_up, curve,
                           group->layers[k]->colour, acc);
      else
        add_layer_colours (column_sums (group->layers[k], &group->across, &group->up, a, sums),
                           NULL, 0, n_up, curve, group->layers[k]->colour, acc);
    }
  const int red = curve->options->bgra ? 2 : 0; /* where red and blue lie in a pixel */
  for (int b = 0; b < n_up; b++)
    {
      for (int c = 0; c < 3; c++)
        {
          const double level = acc[3 * b + c] < 1 ? acc[3 * b + c] : 1;
          /* level >= 0: truncation is floor. */
          column[4 * b
                 + (c == 1   ? 1
                    : c == 0 ? red
                             : 2 - red)]
              = (uint8_t) (int) (255 * level + 0.5);
        }
      column[4 * b + 3] = 255;
    }
}

/* Columns [lo, hi) of a group, drawn in tile (a column's pixels side by side), into the
 * group's plane a row at a time, so that the plane is written in whole cache lines. */
static void
tile_to_plane (const layer_group *group, const uint8_t *tile, int lo, int hi)
{
  const int n_up = group->up.n;
  for (int b = 0; b < n_up; b++)
    {
      uint8_t *row = group->plane + 4 * ((size_t) b * group->across.n + lo);
      for (int j = 0; j < hi - lo; j++)
        memcpy (row + 4 * j, tile + 4 * ((size_t) j * n_up + b), 4);
    }
}

/* Output row y from the groups' planes; black where no layer is drawn. */
static void
fill_row (const layer_group *groups, int n_groups, const uint8_t *covered, int width, int height,
          int y, uint8_t *row)
{
  static const uint8_t black[4] = { 0, 0, 0, 255 };
  if (covered)
    for (int x = 0; x < width; x++)
      if (!covered[x])
        memcpy (row + 4 * (size_t) x, black, 4);
  for (int g = 0; g < n_groups; g++)
    {
      const layer_group *group = &groups[g];
      const int x0 = group->layers[0]->x0, x1 = group->layers[0]->x1;
      const uint8_t *plane_row
          = group->plane + 4 * (size_t) group->up.of[height - 1 - y] * group->across.n;
      const int *span = group->across.of;
      for (int x = x0; x < x1; x++)
        memcpy (row + 4 * (size_t) x, plane_row + 4 * (size_t) span[x - x0], 4);
    }
}

/* Whether row y shows the same up spans as the row above it in every group. */
static int
same_row (const layer_group *groups, int n_groups, int height, int y)
{
  int same = y > 0;
  for (int g = 0; g < n_groups && same; g++)
    same = groups[g].up.of[height - 1 - y] == groups[g].up.of[height - y];
  return same;
}

/* Which output columns some layer draws; NULL (with *failed unchanged) when all are. */
static uint8_t *
covered_columns (const layer_group *groups, int n_groups, int width, int *failed)
{
  int drawn = 0;
  for (int g = 0; g < n_groups; g++)
    drawn += groups[g].layers[0]->x1 - groups[g].layers[0]->x0;
  if (drawn == width)
    return NULL;
  uint8_t *covered = calloc ((size_t) width, 1);
  if (!covered)
    *failed = 1;
  for (int g = 0; g < n_groups && covered; g++)
    memset (covered + groups[g].layers[0]->x0, 1,
            (size_t) (groups[g].layers[0]->x1 - groups[g].layers[0]->x0));
  return covered;
}

/* What each worker of the drawing works with: its own sums and colours of a span, the pixels
 * of a chunk of spans, and the lanes of its largest sum. */
typedef struct
{
  double *sums, *acc;
  uint8_t *tile; /* SPAN_CHUNK columns of pixels */
  double lanes[MAX_LANES];
} worker_scratch;

/* Column spans and rows are drawn in chunks of these, taken by whichever worker is free. */
#define SPAN_CHUNK 16
#define ROW_CHUNK 32

typedef struct
{
  layer_group *groups;
  int n_groups, width, height;
  int first_chunk[GH_MAX_CHANNELS + 3]; /* group g's span chunks from first_chunk[g] on */
  const density_curve *curve;
  const uint8_t *covered;
  uint8_t *pixels;
  size_t stride;
  worker_scratch scratch[RENDER_MAX_WORKERS];
} density_job;

/* The group and column spans [*lo, *hi) of a span chunk. */
static const layer_group *
chunk_spans (const density_job *job, int chunk, int *lo, int *hi)
{
  int g = 0;
  while (chunk >= job->first_chunk[g + 1])
    g++;
  *lo = (chunk - job->first_chunk[g]) * SPAN_CHUNK;
  *hi = *lo + SPAN_CHUNK < job->groups[g].across.n ? *lo + SPAN_CHUNK : job->groups[g].across.n;
  return &job->groups[g];
}

static void
job_largest (void *arg, int chunk, int worker)
{
  density_job *job = arg;
  worker_scratch *scratch = &job->scratch[worker];
  int lo, hi;
  const layer_group *group = chunk_spans (job, chunk, &lo, &hi);
  for (int k = 0; k < group->n; k++)
    for (int a = lo; a < hi; a++)
      {
        const double *s
            = column_sums (group->layers[k], &group->across, &group->up, a, scratch->sums);
        const size_t column_span = (size_t) k * group->across.n + a;
        lanes_max (s, group->up.n, scratch->lanes);
        group->coded[column_span]
            = (uint8_t) encode_sums (s, group->up.n, group->codes + column_span * group->up.n);
      }
}

static void
job_planes (void *arg, int chunk, int worker)
{
  density_job *job = arg;
  worker_scratch *scratch = &job->scratch[worker];
  int lo, hi;
  const layer_group *group = chunk_spans (job, chunk, &lo, &hi);
  for (int a = lo; a < hi; a++)
    draw_column_span (group, a, job->curve, scratch->sums, scratch->acc,
                      scratch->tile + 4 * (size_t) (a - lo) * group->up.n);
  tile_to_plane (group, scratch->tile, lo, hi);
}

/* A chunk of rows; its first is filled even when it repeats the row above, which another
 * worker may be drawing. */
static void
job_fill (void *arg, int chunk, int worker)
{
  const density_job *job = arg;
  const int lo = chunk * ROW_CHUNK,
            hi = lo + ROW_CHUNK < job->height ? lo + ROW_CHUNK : job->height;
  (void) worker;
  for (int y = lo; y < hi; y++)
    if (y > lo && same_row (job->groups, job->n_groups, job->height, y))
      memcpy (job->pixels + (size_t) y * job->stride, job->pixels + (size_t) (y - 1) * job->stride,
              (size_t) job->width * 4);
    else
      fill_row (job->groups, job->n_groups, job->covered, job->width, job->height, y,
                job->pixels + (size_t) y * job->stride);
}

/* The largest sum, the curve from it, the planes, the pixels: each step shared. */
static void
draw_groups (density_job *job, const gh_render_options *options, density_curve *curve)
{
  size_t work = (size_t) job->width * job->height;
  for (int g = 0; g < job->n_groups; g++)
    {
      const render_layer *layer = job->groups[g].layers[0];
      work += (size_t) job->groups[g].n * layer->h_cells * layer->v_cells;
      job->first_chunk[g + 1]
          = job->first_chunk[g] + (job->groups[g].across.n + SPAN_CHUNK - 1) / SPAN_CHUNK;
    }
  const int workers = gh_render_workers (work), span_chunks = job->first_chunk[job->n_groups];
  gh_render_split (job_largest, job, span_chunks, workers);
  double max = 0;
  for (int w = 0; w < RENDER_MAX_WORKERS; w++)
    for (int j = 0; j < MAX_LANES; j++)
      max = job->scratch[w].lanes[j] > max ? job->scratch[w].lanes[j] : max;
  curve_init (curve, options, max);
  job->curve = curve;
  gh_render_split (job_planes, job, span_chunks, workers);
  gh_render_split (job_fill, job, (job->height + ROW_CHUNK - 1) / ROW_CHUNK, workers);
}

/* The groups' spans and planes; the most up spans of any group in *most_up.  -1 without
 * memory. */
static int
groups_make (layer_group *groups, int n_groups, int height, int *most_up)
{
  *most_up = 1;
  for (int g = 0; g < n_groups; g++)
    {
      const render_layer *layer = groups[g].layers[0];
      if (runs_make (&groups[g].across, layer->x1 - layer->x0, layer->h_cells)
          || runs_make (&groups[g].up, height, layer->v_cells))
        return -1;
      const size_t spans = (size_t) groups[g].across.n * groups[g].up.n;
      groups[g].plane = malloc (spans * 4);
      groups[g].codes = malloc (spans * groups[g].n * sizeof *groups[g].codes);
      groups[g].coded = malloc ((size_t) groups[g].across.n * groups[g].n);
      if (!groups[g].plane || !groups[g].codes || !groups[g].coded)
        return -1;
      *most_up = groups[g].up.n > *most_up ? groups[g].up.n : *most_up;
    }
  return 0;
}

static void
groups_free (layer_group *groups, int n_groups)
{
  for (int g = 0; g < n_groups; g++)
    {
      runs_free (&groups[g].across);
      runs_free (&groups[g].up);
      free (groups[g].plane);
      free (groups[g].codes);
      free (groups[g].coded);
    }
}

/* A worker's buffers for spans of up to most_up up spans; -1 without memory. */
static int
scratch_make (worker_scratch *scratch, int most_up)
{
  scratch->sums = malloc ((size_t) most_up * sizeof *scratch->sums);
  scratch->acc = malloc ((size_t) most_up * 3 * sizeof *scratch->acc);
  scratch->tile = malloc ((size_t) most_up * 4 * SPAN_CHUNK);
  return scratch->sums && scratch->acc && scratch->tile ? 0 : -1;
}

static void
scratch_free (worker_scratch *scratch)
{
  free (scratch->sums);
  free (scratch->acc);
  free (scratch->tile);
}

gh_status
gh_render_density (const render_layer *layers, int n_layers, const gh_render_options *options,
                   int width, int height, uint8_t *pixels, size_t stride, gh_error *error)
{
  layer_group groups[GH_MAX_CHANNELS + 2];
  const int n_groups
      = n_layers <= GH_MAX_CHANNELS + 2 ? group_layers (layers, n_layers, groups) : -1;
  if (n_groups < 0)
    {
      gh_error_set (error, GH_ERROR_INVALID_ARGUMENT,
                    "layers of different shapes overlap, or more than %d layers",
                    GH_MAX_CHANNELS + 2);
      return GH_ERROR_INVALID_ARGUMENT;
    }
  int most_up, failed = groups_make (groups, n_groups, height, &most_up);
  density_job job = { .groups = groups,
                      .n_groups = n_groups,
                      .width = width,
                      .height = height,
                      .pixels = pixels,
                      .stride = stride };
  for (int w = 0; w < RENDER_MAX_WORKERS && !failed; w++)
    failed = scratch_make (&job.scratch[w], most_up);
  density_curve *curve = malloc (sizeof *curve);
  job.covered = covered_columns (groups, n_groups, width, &failed);
  failed = failed || !curve;
  if (!failed)
    draw_groups (&job, options, curve);
  groups_free (groups, n_groups);
  for (int w = 0; w < RENDER_MAX_WORKERS; w++)
    scratch_free (&job.scratch[w]);
  free ((void *) job.covered);
  free (curve);
  if (failed)
    gh_error_set (error, GH_ERROR_OUT_OF_MEMORY, "no memory to draw a %d x %d chart", width,
                  height);
  return failed ? GH_ERROR_OUT_OF_MEMORY : GH_OK;
}
