/* gpu-histogram: the CPU backend's scopes (cpu_scopes.h). */
#include "cpu_scopes.h"
#include "chroma_cells.h"
#include "cpu_vectorscope_narrow.h"
#include "cpu_waveform_batched.h"
#include "gimp_rules.h"
#include "scope_rules.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
  return cpu_scopes_batched (s) ? cpu_batched_alloc (s) : 0;
}

static int
alloc_tables (cpu_scopes *s, int kind)
{
  const size_t cells = s->cells[kind], threads = (size_t) s->threads;
  const int fastest = cpu_scopes_wants (&s->plan, GH_METHOD_FASTEST);
  const int vectorscope = kind == GH_SCOPE_VECTORSCOPE;
  if (cpu_scopes_wants (&s->plan, GH_METHOD_PRIVATIZED)
      || (fastest && vectorscope && !cpu_narrow_vectorscope (&s->plan)))
    if (!(s->own[kind] = gh_large_alloc (threads * cells * sizeof (uint64_t))))
      return -1;
  if (cpu_scopes_wants (&s->plan, GH_METHOD_GLOBAL_ATOMICS)
      && !(s->shared[kind] = gh_large_zeroed (cells, sizeof (uint64_t))))
    return -1;
  /* not calloc: the batched waveform's 64-bit table is cleared only when it is used */
  if (fastest && !vectorscope && !(s->stripes = gh_large_alloc (cells * sizeof (uint64_t))))
    return -1;
  if (fastest && vectorscope && cpu_narrow_vectorscope (&s->plan)
      && !(s->narrow
           = gh_large_alloc (threads * CPU_VECTORSCOPE_COPIES * cells * sizeof (uint32_t))))
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
  s->batch_rows = cpu_batched_rows (plan, s->max_weight);
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
  cpu_batched_free (s);
  free (s->stripes);
  free (s->narrow);
  free (s->column_of_x);
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
  if (cpu_scopes_batched (s))
    cpu_batched_prepare (s, pixels);
  else if (s->clear[kind])
    memset (s->stripes, 0, s->cells[kind] * sizeof *s->stripes);
}

/* Whether FASTEST's tables of a run without repetitions can take another strip unfolded: every
 * cell stays within its counter (32 bits for the narrow vectorscope, else 64). */
static int
can_defer_fold (const cpu_scopes *s, int kind)
{
  const int narrow = kind == GH_SCOPE_VECTORSCOPE && cpu_narrow_vectorscope (&s->plan);
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
  if (cpu_scopes_batched (s))
    {
      cpu_batched_count_stripe (s, samples, coverage, pixels / (size_t) s->plan.width, first, last,
                                extras);
      return;
    }
  const size_t column_bytes = (size_t) shape->tables * shape->bins * sizeof *s->stripes;
  const int step = column_bytes < CACHED_BYTES ? (int) (CACHED_BYTES / column_bytes) : 1;
  for (int c0 = first; c0 < last; c0 += step)
    count_columns (s, samples, coverage, pixels / (size_t) s->plan.width, c0,
                   c0 + step < last ? c0 + step : last);
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
  else if (method == GH_METHOD_FASTEST && cpu_narrow_vectorscope (&s->plan))
    cpu_narrow_count (s, samples, begin, end, thread);
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
  if (!cpu_scopes_wants (plan, GH_METHOD_FASTEST) || plan->scope[GH_SCOPE_WAVEFORM].tables == 0
      || !cpu_scopes_batched (s) || plan->bins != GH_BINS)
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
      if (cpu_narrow_vectorscope (&s->plan))
        extras.vectorscope = cpu_narrow_copies (s, thread);
      else
        {
          uint64_t *own = s->own[GH_SCOPE_VECTORSCOPE] + (size_t) thread * cells;
          if (s->clear[GH_SCOPE_VECTORSCOPE])
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
  if (method == GH_METHOD_FASTEST && kind == GH_SCOPE_WAVEFORM && cpu_scopes_batched (s))
    cpu_batched_job_done (s);
  if (method == GH_METHOD_READ_ONLY
      || (method == GH_METHOD_FASTEST && !last && can_defer_fold (s, kind)))
    return 0;
  if (method == GH_METHOD_FASTEST)
    s->pending[kind] = 0;
  return 1;
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
  else if (method == GH_METHOD_FASTEST && kind == GH_SCOPE_WAVEFORM && cpu_scopes_batched (s))
    cpu_batched_fold (s, sink, histogram, GH_BINS * thread / threads,
                      GH_BINS * (thread + 1) / threads);
  else if (method == GH_METHOD_FASTEST && kind == GH_SCOPE_WAVEFORM)
    fold_into (sink, kind, method, s->stripes, begin, end);
  else if (method == GH_METHOD_FASTEST && cpu_narrow_vectorscope (&s->plan))
    cpu_narrow_fold (s, sink->scope[kind].counts[method], begin, end);
  else
    for (int t = 0; t < s->threads; t++)
      fold_into (sink, kind, method, s->own[kind] + (size_t) t * cells, begin, end);
}
