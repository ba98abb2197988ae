/* gpu-histogram: the CPU backend's weighted and derived counting (cpu_weighted.h).
 *
 * A pixel adds w = m * a to its colour bins and to value and luminance, and m * alpha_full to
 * its alpha bin (gh_run_plan).  Global atomics add into one shared 64-bit table; privatized adds
 * into the thread's 64-bit table; fastest, for 8-bit samples and at most 8-bit coverage, adds
 * into 32-bit counters and flushes them into the 64-bit table every FLUSH_PIXELS pixels, before
 * any can overflow: a weight is at most 255 * 255, and 65536 * 65025 < 2^32. */
#include "cpu_weighted.h"
#include "gimp_rules.h"

#include <string.h>

#define MAX_OUT_CHANNELS (GH_MAX_CHANNELS + 2)
#define FLUSH_PIXELS ((size_t) 65536)

#define ALWAYS_INLINE inline __attribute__ ((always_inline))

void
cpu_weighted_rules_init (cpu_weighted_rules *rules, const gh_run_plan *plan)
{
  rules->plan = *plan;
  rules->table_words = (size_t) plan->out_channels * (size_t) plan->bins;
  rules->alpha_full = gh_full_scale (plan->bytes_per_sample);
  gh_luminance_terms_u8 (rules->luminance_terms);
}

static ALWAYS_INLINE uint32_t
coverage_at (const uint8_t *coverage, int coverage_bytes, size_t p)
{
  if (coverage_bytes == 0)
    return 1;
  return coverage_bytes == 1 ? coverage[p] : ((const uint16_t *) (const void *) coverage)[p];
}

/* Pixel p's bins and weights, channel by output channel. */
static ALWAYS_INLINE void
pixel_bins (const cpu_weighted_rules *r, const uint8_t *samples, const uint8_t *coverage, size_t p,
            int *bin, uint32_t *w)
{
  const gh_run_plan *plan = &r->plan;
  const int channels = plan->channels;
  uint32_t s[GH_MAX_CHANNELS];
  for (int c = 0; c < channels; c++)
    {
      const size_t i = p * (size_t) channels + (size_t) c;
      s[c] = plan->bytes_per_sample == 1 ? samples[i]
                                         : ((const uint16_t *) (const void *) samples)[i];
      bin[c] = plan->bytes_per_sample == 1
                   ? (int) s[c]
                   : gh_bin_u16 (s[c], plan->binning, plan->bins, plan->shift);
    }
  const uint32_t m = coverage_at (coverage, plan->coverage_bytes, p);
  const uint32_t colour = gh_weight_product (m, plan->alpha_weighted ? s[channels - 1] : 1);
  for (int c = 0; c < plan->out_channels; c++)
    w[c] = colour;
  if (plan->alpha_weighted)
    w[channels - 1] = gh_weight_product (m, r->alpha_full);
  if (!plan->derived)
    return;
  if (plan->bytes_per_sample == 1)
    {
      bin[channels] = gh_value_bin_u8 (s[0], s[1], s[2]);
      bin[channels + 1]
          = gh_luminance_bin_from_terms (r->luminance_terms[0][s[0]], r->luminance_terms[1][s[1]],
                                         r->luminance_terms[2][s[2]], GH_BINS);
    }
  else
    {
      bin[channels] = gh_value_bin_u16 (s[0], s[1], s[2], plan->binning, plan->bins, plan->shift);
      bin[channels + 1]
          = gh_luminance_bin_u16 (s[0], s[1], s[2], plan->binning, plan->bins, plan->shift);
    }
}

static void
count_shared (const cpu_weighted_rules *r, const uint8_t *samples, const uint8_t *coverage,
              size_t begin, size_t end, _Atomic uint64_t *shared)
{
  const size_t bins = (size_t) r->plan.bins;
  for (size_t p = begin; p < end; p++)
    {
      int bin[MAX_OUT_CHANNELS];
      uint32_t w[MAX_OUT_CHANNELS];
      pixel_bins (r, samples, coverage, p, bin, w);
      for (int c = 0; c < r->plan.out_channels; c++)
        atomic_fetch_add_explicit (&shared[(size_t) c * bins + bin[c]], w[c], memory_order_relaxed);
    }
}

static void
count_private (const cpu_weighted_rules *r, const uint8_t *samples, const uint8_t *coverage,
               size_t begin, size_t end, uint64_t *table)
{
  const size_t bins = (size_t) r->plan.bins;
  for (size_t p = begin; p < end; p++)
    {
      int bin[MAX_OUT_CHANNELS];
      uint32_t w[MAX_OUT_CHANNELS];
      pixel_bins (r, samples, coverage, p, bin, w);
      for (int c = 0; c < r->plan.out_channels; c++)
        table[(size_t) c * bins + bin[c]] += w[c];
    }
}

/* Adds the narrow counters into the wide table and clears them. */
static void
flush_narrow (uint32_t *narrow, uint64_t *wide, size_t words)
{
  for (size_t i = 0; i < words; i++)
    wide[i] += narrow[i];
  memset (narrow, 0, words * sizeof *narrow);
}

/* Fastest for 8-bit samples and coverage; `channels` a constant in each caller, so that the
 * compiler drops the loops over channels and the tests on the plan. */
static ALWAYS_INLINE void
count_narrow (const cpu_weighted_rules *r, const uint8_t *samples, const uint8_t *coverage,
              size_t begin, size_t end, const cpu_weighted_tables *t, const int channels)
{
  uint32_t *narrow = t->narrow;
  memset (narrow, 0, r->table_words * sizeof *narrow);
  const int alpha = r->plan.alpha_weighted, derived = r->plan.derived;
  const int colour_channels = alpha ? channels - 1 : channels;
  const uint32_t alpha_full = r->alpha_full;
  for (size_t start = begin; start < end; start += FLUSH_PIXELS)
    {
      const size_t stop = end - start < FLUSH_PIXELS ? end : start + FLUSH_PIXELS;
      for (size_t p = start; p < stop; p++)
        {
          const uint8_t *s = samples + p * (size_t) channels;
          const uint32_t m = coverage ? coverage[p] : 1;
          const uint32_t w = m * (alpha ? s[channels - 1] : 1u);
          for (int c = 0; c < colour_channels; c++)
            narrow[c * GH_BINS + s[c]] += w;
          if (alpha)
            narrow[(channels - 1) * GH_BINS + s[channels - 1]] += m * alpha_full;
          if (derived)
            {
              narrow[channels * GH_BINS + gh_value_bin_u8 (s[0], s[1], s[2])] += w;
              narrow[(channels + 1) * GH_BINS
                     + gh_luminance_bin_from_terms (r->luminance_terms[0][s[0]],
                                                    r->luminance_terms[1][s[1]],
                                                    r->luminance_terms[2][s[2]], GH_BINS)]
                  += w;
            }
        }
      flush_narrow (narrow, t->wide, r->table_words);
    }
}

static void
count_fastest (const cpu_weighted_rules *r, const uint8_t *samples, const uint8_t *coverage,
               size_t begin, size_t end, const cpu_weighted_tables *t)
{
  if (r->plan.bytes_per_sample != 1 || r->plan.coverage_bytes > 1)
    {
      count_private (r, samples, coverage, begin, end, t->wide);
      return;
    }
  switch (r->plan.channels)
    {
    case 1: count_narrow (r, samples, coverage, begin, end, t, 1); break;
    case 2: count_narrow (r, samples, coverage, begin, end, t, 2); break;
    case 3: count_narrow (r, samples, coverage, begin, end, t, 3); break;
    default: count_narrow (r, samples, coverage, begin, end, t, 4); break;
    }
}

void
cpu_weighted_count (const cpu_weighted_rules *rules, gh_method method, const uint8_t *samples,
                    const uint8_t *coverage, size_t begin, size_t end,
                    const cpu_weighted_tables *tables)
{
  if (method == GH_METHOD_GLOBAL_ATOMICS)
    {
      count_shared (rules, samples, coverage, begin, end, tables->shared);
      return;
    }
  memset (tables->wide, 0, rules->table_words * sizeof *tables->wide);
  if (method == GH_METHOD_FASTEST)
    count_fastest (rules, samples, coverage, begin, end, tables);
  else
    count_private (rules, samples, coverage, begin, end, tables->wide);
}
