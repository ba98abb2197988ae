/* gpu-histogram: the CPU backend's scopes (cpu_scopes.h). */
#include "cpu_scopes.h"
#include "chroma_cells.h"
#include "chroma_sums.h"
#include "gimp_rules.h"
#include "scope_rules.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_OUT_CHANNELS (GH_MAX_CHANNELS + 2)
/* The fastest waveform of an 8-bit run counts into 32-bit tables, a few output columns at a time
 * (a batch) through every row of a strip, so that those columns' tables stay in a core's L1 data
 * cache (32 KiB on the machines measured); the 32-bit tables are added into the 64-bit one only
 * before a counter could pass 2^32 (batch_rows). */
#define BATCH_BYTES ((size_t) 24 << 10)
/* a batch holds one column's tables at least */
_Static_assert(GH_BINS * sizeof (uint32_t) * MAX_OUT_CHANNELS <= BATCH_BYTES, "batch too small");
/* How many rows ahead a batch fetches its columns' pixels: between two rows it reads only the
 * batch's few columns, so the hardware's prefetch of whole rows does not help it. */
#define PREFETCH_ROWS 8
#define CACHE_LINE 64
#define VECTORSCOPE_CELLS (GH_VECTORSCOPE_SIZE * GH_VECTORSCOPE_SIZE)
/* The fastest vectorscope of an unweighted run counts neighbouring pixels into two 32-bit copies
 * a thread, so that a run of equal cells (smooth areas) does not wait on its own increments. */
#define NARROW_COPIES 2

struct cpu_scopes
{
  gh_run_plan plan;
  const cpu_weighted_rules *rules;
  int threads;
  size_t cells[GH_N_SCOPES];
  int table_of_channel[MAX_OUT_CHANNELS]; /* the waveform's table of an output channel, or -1 */
  int *column_of_x;                       /* the waveform's output column of each image column */
  size_t *cell_of_x;                      /* batched waveform: column_of_x's first cell in
                                             narrow_columns, column * tables * GH_BINS */
  int *first_x;                           /* the first image column of each output column, and
                                             width at [columns] */
  uint8_t *level8;                        /* 16-bit samples: the vectorscope's level of each */
  uint64_t *own[GH_N_SCOPES];             /* threads copies: privatized */
  _Atomic uint64_t *shared[GH_N_SCOPES];  /* global atomics */
  uint64_t *stripes;                      /* fastest waveform: one table, a stripe a thread */
  uint32_t *narrow_columns;               /* batched fastest waveform: the 32-bit tables,
                                             [column][table][bin], added into stripes only
                                             every batch_rows rows */
  uint32_t *narrow;       /* fastest vectorscope: threads * NARROW_COPIES 32-bit copies */
  cpu_chroma_sums chroma; /* 8-bit vectorscope cells from three lookups */
  uint32_t *row_cells;    /* one pass with the vectorscope: threads rows of cells */
  int chroma_cells;       /* or 8 at a time: cpu_chroma_cells_available () */
  uint64_t max_weight;    /* the most a pixel adds to a cell */
  size_t batch_rows;      /* the batched waveform: rows counted into the 32-bit tables before
                             they are added up, so that none passes 2^32; 0: no batches */
  size_t held_rows;       /* rows in the 32-bit tables since they were added up */
  size_t job_rows;        /* the rows of the job in flight */
  int stripes_live;       /* the batched waveform's 64-bit table holds sums */
  /* A run without repetitions keeps adding strip after strip into FASTEST's tables and folds
   * them into the sink once, at its end or before they could overflow: folding a waveform after
   * every strip cost more than counting it. */
  int accumulate;
  size_t strip_pixels;         /* the most pixels a strip holds */
  size_t pending[GH_N_SCOPES]; /* pixels in FASTEST's tables since they were last folded */
  int clear[GH_N_SCOPES];      /* the job's FASTEST tables start from zero */
};

static int
wants (const gh_run_plan *plan, gh_method method)
{
  return (plan->methods & GH_METHOD_BIT (method)) != 0;
}

static int
narrow_vectorscope (const gh_run_plan *plan)
{
  return !gh_plan_weighted (plan);
}

/* The fastest waveform of an 8-bit run with at most 8-bit coverage counts in L1-sized batches
 * (count_batch_u8). */
static int
batched_waveform (const cpu_scopes *s)
{
  return s->batch_rows > 0;
}

/* How many rows a batch may count: an output column holds at most ceil (width / columns) pixels
 * of a row, each adding at most max_weight to a 32-bit counter. */
static size_t
rows_a_batch (const gh_run_plan *plan, uint64_t max_weight)
{
  const gh_table_shape *shape = &plan->scope[GH_SCOPE_WAVEFORM];
  if (plan->bytes_per_sample != 1 || plan->coverage_bytes > 1 || shape->columns <= 0)
    return 0;
  const uint64_t column_pixels
      = ((uint64_t) plan->width + (uint64_t) shape->columns - 1) / (uint64_t) shape->columns;
  return (size_t) (UINT32_MAX / max_weight / column_pixels);
}

static int
alloc_waveform_geometry (cpu_scopes *s)
{
  const gh_table_shape *shape = &s->plan.scope[GH_SCOPE_WAVEFORM];
  const int width = s->plan.width;
  s->column_of_x = malloc ((size_t) width * sizeof *s->column_of_x);
  s->first_x = malloc (((size_t) shape->columns + 1) * sizeof *s->first_x);
  if (!s->column_of_x || !s->first_x)
    return -1;
  for (int c = 0, t = 0; c < s->plan.out_channels; c++)
    s->table_of_channel[c] = (shape->channels >> c) & 1u ? t++ : -1;
  for (int column = 0; column <= shape->columns; column++)
    s->first_x[column] = width;
  for (int x = width - 1; x >= 0; x--)
    {
      s->column_of_x[x] = gh_waveform_column (x, shape->columns, width);
      s->first_x[s->column_of_x[x]] = x;
    }
  if (!batched_waveform (s))
    return 0;
  if (s->plan.scope[GH_SCOPE_VECTORSCOPE].tables > 0
      && !(s->row_cells = malloc ((size_t) s->threads * width * sizeof *s->row_cells)))
    return -1;
  if (!(s->cell_of_x = malloc ((size_t) width * sizeof *s->cell_of_x)))
    return -1;
  for (int x = 0; x < width; x++)
    s->cell_of_x[x] = (size_t) s->column_of_x[x] * (size_t) shape->tables * GH_BINS;
  return 0;
}

static int
alloc_tables (cpu_scopes *s, int kind)
{
  const size_t cells = s->cells[kind], threads = (size_t) s->threads;
  const int fastest = wants (&s->plan, GH_METHOD_FASTEST);
  const int vectorscope = kind == GH_SCOPE_VECTORSCOPE;
  if (wants (&s->plan, GH_METHOD_PRIVATIZED)
      || (fastest && vectorscope && !narrow_vectorscope (&s->plan)))
    if (!(s->own[kind] = gh_large_alloc (threads * cells * sizeof (uint64_t))))
      return -1;
  if (wants (&s->plan, GH_METHOD_GLOBAL_ATOMICS)
      && !(s->shared[kind] = gh_large_zeroed (cells, sizeof (uint64_t))))
    return -1;
  /* not calloc: the batched waveform's 64-bit table is cleared only when it is used */
  if (fastest && !vectorscope && !(s->stripes = gh_large_alloc (cells * sizeof (uint64_t))))
    return -1;
  if (fastest && !vectorscope && batched_waveform (s)
      && !(s->narrow_columns = gh_large_alloc (cells * sizeof (uint32_t))))
    return -1;
  if (fastest && vectorscope && narrow_vectorscope (&s->plan)
      && !(s->narrow = gh_large_alloc (threads * NARROW_COPIES * cells * sizeof (uint32_t))))
    return -1;
  return 0;
}

static int
alloc_levels (cpu_scopes *s)
{
  if (s->plan.bytes_per_sample != 2)
    return 0;
  if (!(s->level8 = malloc (65536)))
    return -1;
  for (uint32_t v = 0; v < 65536; v++)
    s->level8[v] = (uint8_t) gh_vectorscope_level_u16 (v, s->plan.binning);
  return 0;
}

cpu_scopes *
cpu_scopes_new (const gh_run_plan *plan, const cpu_weighted_rules *rules, int threads)
{
  cpu_scopes *s = calloc (1, sizeof *s);
  if (!s)
    return NULL;
  s->plan = *plan;
  s->rules = rules;
  s->threads = threads;
  s->max_weight = (uint64_t) gh_full_scale (plan->coverage_bytes)
                  * gh_full_scale (plan->alpha_weighted ? plan->bytes_per_sample : 0);
  s->batch_rows = rows_a_batch (plan, s->max_weight);
  s->accumulate = plan->repetitions == 0;
  s->strip_pixels = plan->strip_capacity / ((size_t) plan->channels * plan->bytes_per_sample);
  int failed = 0;
  for (int k = 0; k < GH_N_SCOPES; k++)
    {
      s->cells[k] = gh_table_cells (&plan->scope[k]);
      if (s->cells[k] > 0)
        failed |= alloc_tables (s, k);
    }
  if (plan->scope[GH_SCOPE_WAVEFORM].tables > 0)
    failed |= alloc_waveform_geometry (s);
  if (plan->scope[GH_SCOPE_VECTORSCOPE].tables > 0)
    failed |= alloc_levels (s);
  cpu_chroma_sums_init (&s->chroma);
  s->chroma_cells = cpu_chroma_cells_available ();
  if (failed)
    {
      cpu_scopes_free (s);
      return NULL;
    }
  return s;
}

void
cpu_scopes_free (cpu_scopes *s)
{
  if (!s)
    return;
  for (int k = 0; k < GH_N_SCOPES; k++)
    {
      free (s->own[k]);
      free ((void *) s->shared[k]);
    }
  free (s->stripes);
  free (s->narrow_columns);
  free (s->narrow);
  free (s->column_of_x);
  free (s->cell_of_x);
  free (s->row_cells);
  free (s->first_x);
  free (s->level8);
  free (s);
}

void
cpu_scopes_prepare (cpu_scopes *s, int kind, gh_method method, size_t pixels)
{
  if (method == GH_METHOD_GLOBAL_ATOMICS)
    for (size_t i = 0; i < s->cells[kind]; i++)
      atomic_store_explicit (&s->shared[kind][i], 0, memory_order_relaxed);
  if (method != GH_METHOD_FASTEST)
    return;
  s->clear[kind] = !s->accumulate || s->pending[kind] == 0;
  s->pending[kind] += pixels;
  if (kind != GH_SCOPE_WAVEFORM)
    return;
  const size_t bytes = s->cells[kind] * sizeof *s->stripes;
  if (!batched_waveform (s))
    {
      if (s->clear[kind])
        memset (s->stripes, 0, bytes);
      return;
    }
  if (s->clear[kind])
    {
      memset (s->narrow_columns, 0, s->cells[kind] * sizeof *s->narrow_columns);
      s->held_rows = 0;
      s->stripes_live = 0;
    }
  s->job_rows = pixels / (size_t) s->plan.width;
  /* the job adds its 32-bit tables up (count_batch_u8): the 64-bit table must be clear */
  if (!s->stripes_live && s->held_rows + s->job_rows >= s->batch_rows)
    {
      memset (s->stripes, 0, bytes);
      s->stripes_live = 1;
    }
}

/* Whether FASTEST's tables of a run without repetitions can take another strip unfolded: every
 * cell stays within its counter (32 bits for the narrow vectorscope, else 64). */
static int
can_defer_fold (const cpu_scopes *s, int kind)
{
  const int narrow = kind == GH_SCOPE_VECTORSCOPE && narrow_vectorscope (&s->plan);
  const uint64_t counter_max = narrow ? UINT32_MAX : UINT64_MAX;
  return s->accumulate
         && (uint64_t) s->pending[kind] + s->strip_pixels <= counter_max / s->max_weight;
}

/* Adds pixel p into the waveform: every table's cell in its column, with its weight. */
static inline __attribute__ ((always_inline)) void
waveform_pixel (const cpu_scopes *s, const uint8_t *samples, const uint8_t *coverage, size_t p,
                size_t x, uint64_t *table, _Atomic uint64_t *shared)
{
  const gh_table_shape *shape = &s->plan.scope[GH_SCOPE_WAVEFORM];
  int bin[MAX_OUT_CHANNELS];
  uint32_t w[MAX_OUT_CHANNELS];
  cpu_weighted_pixel (s->rules, samples, coverage, p, bin, w);
  const size_t column = (size_t) s->column_of_x[x];
  for (int c = 0; c < s->plan.out_channels; c++)
    {
      const int t = s->table_of_channel[c];
      if (t < 0)
        continue;
      const size_t cell = ((size_t) t * shape->columns + column) * shape->bins + (size_t) bin[c];
      if (shared)
        atomic_fetch_add_explicit (&shared[cell], w[c], memory_order_relaxed);
      else
        table[cell] += w[c];
    }
}

/* Pixel p's vectorscope cell and colour weight. */
static inline __attribute__ ((always_inline)) size_t
vectorscope_pixel (const cpu_scopes *s, const uint8_t *samples, const uint8_t *coverage, size_t p,
                   uint32_t *weight)
{
  const gh_run_plan *plan = &s->plan;
  const size_t i = p * (size_t) plan->channels;
  int level[3];
  uint32_t alpha;
  if (plan->bytes_per_sample == 1)
    {
      for (int c = 0; c < 3; c++)
        level[c] = samples[i + c];
      alpha = samples[i + 3 * (plan->channels == 4)];
    }
  else
    {
      const uint16_t *s16 = (const uint16_t *) (const void *) samples;
      for (int c = 0; c < 3; c++)
        level[c] = s->level8[s16[i + c]];
      alpha = s16[i + 3 * (plan->channels == 4)];
    }
  uint32_t m = 1;
  if (plan->coverage_bytes == 1)
    m = coverage[p];
  else if (plan->coverage_bytes == 2)
    m = ((const uint16_t *) (const void *) coverage)[p];
  *weight = gh_weight_product (m, plan->alpha_weighted ? alpha : 1u);
  return (size_t) gh_vectorscope_cell (level[0], level[1], level[2]);
}

/* Pixels [begin, end) one at a time, into a 64-bit table or the shared one. */
static void
count_pixels (const cpu_scopes *s, int kind, const uint8_t *samples, const uint8_t *coverage,
              size_t begin, size_t end, uint64_t *table, _Atomic uint64_t *shared)
{
  const size_t width = (size_t) s->plan.width;
  for (size_t p = begin; p < end; p++)
    {
      if (kind == GH_SCOPE_WAVEFORM)
        {
          waveform_pixel (s, samples, coverage, p, p % width, table, shared);
          continue;
        }
      uint32_t w;
      const size_t cell = vectorscope_pixel (s, samples, coverage, p, &w);
      if (shared)
        atomic_fetch_add_explicit (&shared[cell], w, memory_order_relaxed);
      else
        table[cell] += w;
    }
}

/* Output channel c's bin of an 8-bit pixel: a sample, value or luminance. */
static inline __attribute__ ((always_inline)) int
bin_u8 (const cpu_scopes *s, const uint8_t *p, int c, const int channels)
{
  if (c < channels)
    return p[c];
  if (c == channels)
    return gh_value_bin_u8 (p[0], p[1], p[2]);
  return gh_luminance_bin_u8_fixed (s->rules->luminance_fixed, p[0], p[1], p[2], s->plan.luminance);
}

/* What a batch counts besides the waveform when the scopes are counted in one pass
 * (cpu_scopes_count_together); NULLs: nothing. */
typedef struct
{
  void *vectorscope; /* the vectorscope's table: 32-bit (unweighted; one, since the waveform's
                        adds between two pixels keep equal cells from waiting on each other) or
                        64-bit (weighted) */
  uint32_t *cells;   /* with the vectorscope: a row's cells (row_cells) */
} batch_extras;

/* The vectorscope's cells of row pixels [x0, x1) into cells[0 ..), 8 at a time where
 * cpu_chroma_cells runs; the strip's last row keeps its last group 4 bytes inside the strip. */
static void
row_cells (const cpu_scopes *s, const uint8_t *row, size_t x0, size_t x1, int last_row,
           uint32_t *cells)
{
  const int channels = s->plan.channels;
  size_t x = x0;
  if (s->chroma_cells)
    {
      const size_t room = last_row && x1 + 2 > (size_t) s->plan.width ? 2 : 0;
      const size_t groups = x1 - x0 >= room ? (x1 - x0 - room) / CPU_CHROMA_GROUP : 0;
      cpu_chroma_cells (row + x0 * channels, channels, groups, cells);
      x += groups * CPU_CHROMA_GROUP;
    }
  for (; x < x1; x++)
    {
      const uint8_t *p = row + x * channels;
      cells[x - x0] = cpu_chroma_cell (&s->chroma, p[0], p[1], p[2]);
    }
}

/* A row of a batch: its pixels, its coverage values and the batch's pixels in it, [x0, x1). */
typedef struct
{
  const uint8_t *row;
  const uint8_t *coverage; /* the row's coverage values, or NULL */
  size_t x0, x1;
} batch_row;

/* Row pixels [x0, x1) into the 32-bit tables.  cell_of_x gives each pixel its column's first cell,
 * so that one loop runs over the batch's pixels, without a loop a column whose short and varying
 * count mispredicts its exit.  A pixel adds its weight w = m * a (gh_run_plan) to its colour
 * bins, value and luminance, and m * 255 to its alpha bin.  `channels`, `every_sample` (the
 * waveform's tables are the sample channels, no others), `vectorscope` and `weighted` are
 * constants in each instance, so that the branches on them fold away. */
static inline __attribute__ ((always_inline)) void
count_row_u8 (const cpu_scopes *s, const batch_row *r, const int *offset, uint32_t *tables,
              const batch_extras *extras, const int channels, const int every_sample,
              const int vectorscope, const int weighted)
{
  const size_t *cell_of_x = s->cell_of_x;
  const int alpha_weighted = weighted && s->plan.alpha_weighted;
  for (size_t x = r->x0; x < r->x1; x++)
    {
      const uint8_t *p = r->row + x * channels;
      uint32_t *cells = tables + cell_of_x[x];
      uint32_t w = 1, last_w = 1;
      if (weighted)
        {
          const uint32_t m = r->coverage ? r->coverage[x] : 1u;
          w = alpha_weighted ? m * p[channels - 1] : m;
          last_w = alpha_weighted ? m * 255u : m;
        }
        /* unrolled: -O2 leaves a loop of three and reloads each offset */
#pragma GCC unroll 4
      for (int c = 0; c < channels; c++)
        if (every_sample || offset[c] >= 0)
          cells[offset[c] + p[c]] += c == channels - 1 ? last_w : w;
      if (!every_sample)
        for (int c = channels; c < channels + 2; c++)
          if (offset[c] >= 0)
            cells[offset[c] + bin_u8 (s, p, c, channels)] += w;
      if (vectorscope && weighted)
        ((uint64_t *) extras->vectorscope)[extras->cells[x - r->x0]] += w;
      else if (vectorscope)
        ((uint32_t *) extras->vectorscope)[extras->cells[x - r->x0]]++;
    }
}

/* Adds the 32-bit tables of output columns [c0, c1) into the 64-bit table and clears them. */
static void
add_columns (const cpu_scopes *s, int c0, int c1)
{
  const gh_table_shape *shape = &s->plan.scope[GH_SCOPE_WAVEFORM];
  for (int column = c0; column < c1; column++)
    for (int t = 0; t < shape->tables; t++)
      {
        uint32_t *from
            = s->narrow_columns + ((size_t) column * (size_t) shape->tables + (size_t) t) * GH_BINS;
        uint64_t *to = s->stripes + ((size_t) t * shape->columns + (size_t) column) * GH_BINS;
        for (int bin = 0; bin < GH_BINS; bin++)
          to[bin] += from[bin];
        memset (from, 0, GH_BINS * sizeof *from);
      }
}

/* A row of the batch by the instance of count_row_u8 its run needs. */
static inline __attribute__ ((always_inline)) void
count_row_as_planned (const cpu_scopes *s, const batch_row *r, const int *offset,
                      const batch_extras *extras, const int channels, const int every_sample)
{
  uint32_t *tables = s->narrow_columns;
  const int vectorscope = extras->vectorscope != NULL;
  if (gh_plan_weighted (&s->plan))
    {
      if (vectorscope)
        count_row_u8 (s, r, offset, tables, extras, channels, every_sample, 1, 1);
      else
        count_row_u8 (s, r, offset, tables, extras, channels, every_sample, 0, 1);
    }
  else if (vectorscope)
    count_row_u8 (s, r, offset, tables, extras, channels, every_sample, 1, 0);
  else
    count_row_u8 (s, r, offset, tables, extras, channels, every_sample, 0, 0);
}

/* Output columns [c0, c1) of an 8-bit run through every row of the strip, into their 32-bit
 * tables, added into the 64-bit table whenever they have held batch_rows rows.  `channels` is
 * a constant in each caller so that the loops over channels unroll. */
static inline __attribute__ ((always_inline)) void
count_batch_u8 (const cpu_scopes *s, const uint8_t *samples, const uint8_t *coverage, size_t rows,
                int c0, int c1, const batch_extras *extras, const int channels)
{
  const size_t width = (size_t) s->plan.width;
  /* each channel's table's offset in a column, or -1; the samples' first, so that their loop
   * unrolls, and value and luminance (rarer, dearer) apart */
  int offset[MAX_OUT_CHANNELS];
  int every_sample = 1;
  for (int c = 0; c < channels + 2; c++)
    {
      offset[c] = c < s->plan.out_channels && s->table_of_channel[c] >= 0
                      ? s->table_of_channel[c] * GH_BINS
                      : -1;
      every_sample &= c < channels ? offset[c] >= 0 : offset[c] < 0;
    }
  batch_row r = { .x0 = (size_t) s->first_x[c0], .x1 = (size_t) s->first_x[c1] };
  const size_t row_bytes = width * channels;
  size_t held = s->held_rows;
  for (size_t y0 = 0; y0 < rows;)
    {
      const size_t y1 = rows - y0 < s->batch_rows - held ? rows : y0 + s->batch_rows - held;
      for (size_t y = y0; y < y1; y++)
        {
          r.row = samples + y * row_bytes;
          r.coverage = coverage ? coverage + y * width : NULL;
          /* the rows are far apart (a whole row between two visits): fetch ahead, or every
           * visit waits for memory */
          for (size_t b = r.x0 * channels; b < r.x1 * channels; b += CACHE_LINE)
            __builtin_prefetch (r.row + PREFETCH_ROWS * row_bytes + b);
          if (extras->vectorscope)
            row_cells (s, r.row, r.x0, r.x1, y + 1 == rows, extras->cells);
          if (every_sample)
            count_row_as_planned (s, &r, offset, extras, channels, 1);
          else
            count_row_as_planned (s, &r, offset, extras, channels, 0);
        }
      held += y1 - y0;
      y0 = y1;
      if (held == s->batch_rows)
        {
          add_columns (s, c0, c1);
          held = 0;
        }
    }
}

/* The thread's stripe of an 8-bit run, a batch of columns at a time. */
static void
count_stripe_u8 (const cpu_scopes *s, const uint8_t *samples, const uint8_t *coverage, size_t rows,
                 int first, int last, const batch_extras *extras)
{
  const size_t column_bytes
      = (size_t) s->plan.scope[GH_SCOPE_WAVEFORM].tables * GH_BINS * sizeof *s->narrow_columns;
  const int step = column_bytes < BATCH_BYTES ? (int) (BATCH_BYTES / column_bytes) : 1;
  for (int c0 = first; c0 < last; c0 += step)
    {
      const int c1 = c0 + step < last ? c0 + step : last;
      switch (s->plan.channels)
        {
        case 1: count_batch_u8 (s, samples, coverage, rows, c0, c1, extras, 1); break;
        case 2: count_batch_u8 (s, samples, coverage, rows, c0, c1, extras, 2); break;
        case 3: count_batch_u8 (s, samples, coverage, rows, c0, c1, extras, 3); break;
        default: count_batch_u8 (s, samples, coverage, rows, c0, c1, extras, 4); break;
        }
    }
}

/* Output columns [c0, c1) through every row of the strip. */
static void
count_columns (const cpu_scopes *s, const uint8_t *samples, const uint8_t *coverage, size_t rows,
               int c0, int c1)
{
  const size_t first = (size_t) s->first_x[c0], last = (size_t) s->first_x[c1];
  const size_t width = (size_t) s->plan.width;
  for (size_t row = 0; row < rows; row++)
    for (size_t x = first; x < last; x++)
      waveform_pixel (s, samples, coverage, row * width + x, x, s->stripes, NULL);
}

/* The thread's stripe of output columns, a few columns at a time through every row, so that the
 * columns' tables (CACHED_BYTES) stay in the core's cache while their pixels stream past. */
#define CACHED_BYTES ((size_t) 256 << 10)

static void
count_stripe (const cpu_scopes *s, const uint8_t *samples, const uint8_t *coverage, size_t pixels,
              int thread, int threads, const batch_extras *extras)
{
  const gh_table_shape *shape = &s->plan.scope[GH_SCOPE_WAVEFORM];
  const int first = (int) ((size_t) shape->columns * thread / threads);
  const int last = (int) ((size_t) shape->columns * (thread + 1) / threads);
  if (batched_waveform (s))
    {
      count_stripe_u8 (s, samples, coverage, pixels / (size_t) s->plan.width, first, last, extras);
      return;
    }
  const size_t column_bytes = (size_t) shape->tables * shape->bins * sizeof *s->stripes;
  const int step = column_bytes < CACHED_BYTES ? (int) (CACHED_BYTES / column_bytes) : 1;
  for (int c0 = first; c0 < last; c0 += step)
    count_columns (s, samples, coverage, pixels / (size_t) s->plan.width, c0,
                   c0 + step < last ? c0 + step : last);
}

/* Unweighted 8-bit runs: pixels in pairs, one into each copy; `channels` a constant in each
 * caller. */
static inline __attribute__ ((always_inline)) void
count_vectorscope_u8 (const cpu_chroma_sums *chroma, const uint8_t *samples, size_t begin,
                      size_t end, uint32_t *even, uint32_t *odd, const int channels)
{
  size_t p = begin;
  for (; p + 2 <= end; p += 2)
    {
      const uint8_t *q = samples + p * (size_t) channels;
      even[cpu_chroma_cell (chroma, q[0], q[1], q[2])]++;
      odd[cpu_chroma_cell (chroma, q[channels], q[channels + 1], q[channels + 2])]++;
    }
  if (p < end)
    {
      const uint8_t *q = samples + p * (size_t) channels;
      even[cpu_chroma_cell (chroma, q[0], q[1], q[2])]++;
    }
}

/* The same with the cells worked out CPU_CHROMA_GROUP pixels at a time (chroma_cells.h), a few
 * hundred pixels ahead of their adds; returns the first pixel left to count. */
static size_t
count_vectorscope_groups (const uint8_t *samples, int channels, size_t begin, size_t end,
                          uint32_t *even, uint32_t *odd)
{
  enum
  {
    CHUNK = 32 * CPU_CHROMA_GROUP
  };
  uint32_t cells[CHUNK];
  size_t p = begin;
  /* two pixels short of the end: a group of 3-byte pixels reads 4 bytes past itself */
  while (p + CPU_CHROMA_GROUP + 2 <= end)
    {
      size_t groups = (end - 2 - p) / CPU_CHROMA_GROUP;
      groups = groups < CHUNK / CPU_CHROMA_GROUP ? groups : CHUNK / CPU_CHROMA_GROUP;
      cpu_chroma_cells (samples + p * (size_t) channels, channels, groups, cells);
      for (size_t i = 0; i < groups * CPU_CHROMA_GROUP; i += 2)
        {
          even[cells[i]]++;
          odd[cells[i + 1]]++;
        }
      p += groups * CPU_CHROMA_GROUP;
    }
  return p;
}

/* Unweighted runs: 32-bit counters (can_defer_fold keeps them from overflowing) in the thread's
 * copies, added up when they are folded. */
static void
count_narrow_vectorscope (const cpu_scopes *s, const uint8_t *samples, size_t begin, size_t end,
                          uint32_t *copies)
{
  uint32_t *even = copies, *odd = copies + VECTORSCOPE_CELLS;
  if (s->clear[GH_SCOPE_VECTORSCOPE])
    memset (copies, 0, NARROW_COPIES * VECTORSCOPE_CELLS * sizeof *copies);
  if (s->plan.bytes_per_sample == 1 && s->chroma_cells)
    begin = count_vectorscope_groups (samples, s->plan.channels, begin, end, even, odd);
  if (s->plan.bytes_per_sample == 1 && s->plan.channels == 3)
    count_vectorscope_u8 (&s->chroma, samples, begin, end, even, odd, 3);
  else if (s->plan.bytes_per_sample == 1)
    count_vectorscope_u8 (&s->chroma, samples, begin, end, even, odd, 4);
  else
    for (size_t p = begin; p < end; p++)
      {
        uint32_t w;
        even[vectorscope_pixel (s, samples, NULL, p, &w)]++;
      }
}

void
cpu_scopes_count (cpu_scopes *s, int kind, gh_method method, const uint8_t *samples,
                  const uint8_t *coverage, size_t pixels, int thread, int threads)
{
  const size_t begin = pixels * (size_t) thread / (size_t) threads;
  const size_t end = pixels * (size_t) (thread + 1) / (size_t) threads;
  const size_t cells = s->cells[kind];
  if (method == GH_METHOD_GLOBAL_ATOMICS)
    count_pixels (s, kind, samples, coverage, begin, end, NULL, s->shared[kind]);
  else if (method == GH_METHOD_FASTEST && kind == GH_SCOPE_WAVEFORM)
    count_stripe (s, samples, coverage, pixels, thread, threads, &(batch_extras){ 0 });
  else if (method == GH_METHOD_FASTEST && narrow_vectorscope (&s->plan))
    count_narrow_vectorscope (s, samples, begin, end,
                              s->narrow + (size_t) thread * NARROW_COPIES * cells);
  else if (method == GH_METHOD_FASTEST || method == GH_METHOD_PRIVATIZED)
    {
      uint64_t *own = s->own[kind] + (size_t) thread * cells;
      if (method == GH_METHOD_PRIVATIZED || s->clear[kind])
        memset (own, 0, cells * sizeof *own);
      count_pixels (s, kind, samples, coverage, begin, end, own, NULL);
    }
}

int
cpu_scopes_count_histogram_too (const cpu_scopes *s)
{
  const gh_run_plan *plan = &s->plan;
  if (!wants (plan, GH_METHOD_FASTEST) || plan->scope[GH_SCOPE_WAVEFORM].tables == 0
      || !batched_waveform (s) || plan->bins != GH_BINS)
    return 0;
  for (int c = 0; c < plan->out_channels; c++)
    if (s->table_of_channel[c] < 0)
      return 0;
  return 1;
}

void
cpu_scopes_count_together (cpu_scopes *s, const uint8_t *samples, const uint8_t *coverage,
                           size_t pixels, int thread, int threads)
{
  batch_extras extras = { 0 };
  const size_t cells = s->cells[GH_SCOPE_VECTORSCOPE];
  if (cells > 0)
    {
      const int clear = s->clear[GH_SCOPE_VECTORSCOPE];
      if (narrow_vectorscope (&s->plan))
        {
          uint32_t *narrow = s->narrow + (size_t) thread * NARROW_COPIES * cells;
          if (clear)
            memset (narrow, 0, NARROW_COPIES * cells * sizeof *narrow);
          extras.vectorscope = narrow;
        }
      else
        {
          uint64_t *own = s->own[GH_SCOPE_VECTORSCOPE] + (size_t) thread * cells;
          if (clear)
            memset (own, 0, cells * sizeof *own);
          extras.vectorscope = own;
        }
      extras.cells = s->row_cells + (size_t) thread * (size_t) s->plan.width;
    }
  count_stripe (s, samples, coverage, pixels, thread, threads, &extras);
}

/* Adds cells [begin, end) of a 64-bit table into the method's sink table: 128-bit sums for
 * weighted runs. */
static void
fold_into (gh_run_sink *sink, int kind, gh_method method, const uint64_t *table, size_t begin,
           size_t end)
{
  gh_u128 *sums = sink->scope[kind].weighted[method];
  uint64_t *counts = sink->scope[kind].counts[method];
  for (size_t i = begin; i < end; i++)
    if (sums)
      gh_u128_add64 (&sums[i], table[i]);
    else
      counts[i] += table[i];
}

int
cpu_scopes_fold_now (cpu_scopes *s, int kind, gh_method method, int last)
{
  if (method == GH_METHOD_FASTEST && kind == GH_SCOPE_WAVEFORM && batched_waveform (s))
    s->held_rows = (s->held_rows + s->job_rows) % s->batch_rows;
  if (method == GH_METHOD_READ_ONLY
      || (method == GH_METHOD_FASTEST && !last && can_defer_fold (s, kind)))
    return 0;
  if (method == GH_METHOD_FASTEST)
    s->pending[kind] = 0;
  return 1;
}

/* The batched waveform's bins [b0, b1) of every table and column into the sink: its 32-bit
 * tables and the 64-bit one they were added into, and with `histogram` each table's columns
 * summed into the histogram's sink (cpu_scopes_count_together). */
static void
fold_batched (const cpu_scopes *s, gh_run_sink *sink, int histogram, int b0, int b1)
{
  const gh_table_shape *shape = &s->plan.scope[GH_SCOPE_WAVEFORM];
  const gh_method m = GH_METHOD_FASTEST;
  gh_u128 *sums = sink->scope[GH_SCOPE_WAVEFORM].weighted[m];
  uint64_t *counts = sink->scope[GH_SCOPE_WAVEFORM].counts[m];
  for (int c = 0; c < s->plan.out_channels; c++)
    {
      const int t = s->table_of_channel[c];
      if (t < 0)
        continue;
      gh_u128 *histogram_sums
          = histogram && sink->weighted[m] ? sink->weighted[m] + c * GH_BINS : NULL;
      uint64_t *histogram_counts
          = histogram && !histogram_sums ? sink->counts[m] + c * GH_BINS : NULL;
      for (size_t column = 0; column < (size_t) shape->columns; column++)
        {
          const uint32_t *narrow
              = s->narrow_columns + (column * (size_t) shape->tables + (size_t) t) * GH_BINS;
          const size_t cell = ((size_t) t * shape->columns + column) * GH_BINS;
          for (int bin = b0; bin < b1; bin++)
            {
              const uint64_t v = narrow[bin] + (s->stripes_live ? s->stripes[cell + bin] : 0);
              if (sums)
                gh_u128_add64 (&sums[cell + bin], v);
              else
                counts[cell + bin] += v;
              if (histogram_sums)
                gh_u128_add64 (&histogram_sums[bin], v);
              else if (histogram_counts)
                histogram_counts[bin] += v;
            }
        }
    }
}

void
cpu_scopes_fold (const cpu_scopes *s, int kind, gh_method method, gh_run_sink *sink, int histogram,
                 int thread, int threads)
{
  const size_t cells = s->cells[kind];
  const size_t begin = cells * (size_t) thread / (size_t) threads;
  const size_t end = cells * (size_t) (thread + 1) / (size_t) threads;
  if (method == GH_METHOD_GLOBAL_ATOMICS)
    fold_into (sink, kind, method, (const uint64_t *) s->shared[kind], begin, end);
  else if (method == GH_METHOD_FASTEST && kind == GH_SCOPE_WAVEFORM && batched_waveform (s))
    fold_batched (s, sink, histogram, GH_BINS * thread / threads, GH_BINS * (thread + 1) / threads);
  else if (method == GH_METHOD_FASTEST && kind == GH_SCOPE_WAVEFORM)
    fold_into (sink, kind, method, s->stripes, begin, end);
  else if (method == GH_METHOD_FASTEST && narrow_vectorscope (&s->plan))
    {
      uint64_t *counts = sink->scope[kind].counts[method];
      for (size_t t = 0; t < (size_t) s->threads * NARROW_COPIES; t++)
        for (size_t i = begin; i < end; i++)
          counts[i] += s->narrow[t * cells + i];
    }
  else
    for (int t = 0; t < s->threads; t++)
      fold_into (sink, kind, method, s->own[kind] + (size_t) t * cells, begin, end);
}
