/* gpu-histogram: the batched fastest waveform of 8-bit runs (cpu_waveform_batched.h). */
#include "cpu_waveform_batched.h"
#include "chroma_cells.h"
#include "gimp_rules.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

/* How many rows a batch may count: an output column holds at most ceil (width / columns) pixels
 * of a row, each adding at most max_weight to a 32-bit counter. */
size_t
cpu_batched_rows (const gh_run_plan *plan, uint64_t max_weight)
{
  const gh_table_shape *shape = &plan->scope[GH_SCOPE_WAVEFORM];
  if (plan->bytes_per_sample != 1 || plan->coverage_bytes > 1 || shape->columns <= 0)
    return 0;
  const uint64_t column_pixels
      = ((uint64_t) plan->width + (uint64_t) shape->columns - 1) / (uint64_t) shape->columns;
  return (size_t) (UINT32_MAX / max_weight / column_pixels);
}

int
cpu_batched_alloc (cpu_scopes *s)
{
  const gh_table_shape *shape = &s->plan.scope[GH_SCOPE_WAVEFORM];
  const int width = s->plan.width;
  if (cpu_scopes_wants (&s->plan, GH_METHOD_FASTEST)
      && !(s->narrow_columns = gh_large_alloc (s->cells[GH_SCOPE_WAVEFORM] * sizeof (uint32_t))))
    return -1;
  if (s->plan.scope[GH_SCOPE_VECTORSCOPE].tables > 0
      && !(s->row_cells = malloc ((size_t) s->threads * width * sizeof *s->row_cells)))
    return -1;
  if (!(s->cell_of_x = malloc ((size_t) width * sizeof *s->cell_of_x)))
    return -1;
  for (int x = 0; x < width; x++)
    s->cell_of_x[x] = (size_t) s->column_of_x[x] * (size_t) shape->tables * GH_BINS;
  return 0;
}

void
cpu_batched_free (cpu_scopes *s)
{
  free (s->narrow_columns);
  free (s->cell_of_x);
  free (s->row_cells);
}

void
cpu_batched_prepare (cpu_scopes *s, size_t pixels)
{
  if (s->clear[GH_SCOPE_WAVEFORM])
    {
      memset (s->narrow_columns, 0, s->cells[GH_SCOPE_WAVEFORM] * sizeof *s->narrow_columns);
      s->held_rows = 0;
      s->stripes_live = 0;
    }
  s->job_rows = pixels / (size_t) s->plan.width;
  /* the job adds its 32-bit tables up (count_batch_u8): the 64-bit table must be clear */
  if (!s->stripes_live && s->held_rows + s->job_rows >= s->batch_rows)
    {
      memset (s->stripes, 0, s->cells[GH_SCOPE_WAVEFORM] * sizeof *s->stripes);
      s->stripes_live = 1;
    }
}

void
cpu_batched_job_done (cpu_scopes *s)
{
  s->held_rows = (s->held_rows + s->job_rows) % s->batch_rows;
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

/* A batch of columns at a time. */
void
cpu_batched_count_stripe (const cpu_scopes *s, const uint8_t *samples, const uint8_t *coverage,
                          size_t rows, int first, int last, const batch_extras *extras)
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

/* Both tables: the 32-bit ones and the 64-bit one they were added into. */
void
cpu_batched_fold (const cpu_scopes *s, gh_run_sink *sink, int histogram, int b0, int b1)
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
