/* gpu-histogram: the CPU backend's weighted and derived counting (cpu_weighted.h).
 *
 * A pixel adds w = m * a to its colour bins and to value and luminance, and m * alpha_full to
 * its alpha bin (gh_run_plan).  Global atomics add into one shared 64-bit table; privatized adds
 * into the thread's 64-bit table; fastest, for 8-bit samples and at most 8-bit coverage, adds
 * into 32-bit counters and flushes them into the 64-bit table every FLUSH_PIXELS pixels, before
 * any can overflow: a weight is at most 255 * 255, and 65536 * 65025 < 2^32. */
#include "cpu_weighted.h"
#include "gimp_rules.h"

#include <stdlib.h>
#include <string.h>

#define MAX_OUT_CHANNELS (GH_MAX_CHANNELS + 2)
#define FLUSH_PIXELS ((size_t) 65536)
#define NARROW_COPIES CPU_NARROW_COPIES

#define ALWAYS_INLINE inline __attribute__ ((always_inline))

int
cpu_weighted_rules_init (cpu_weighted_rules *rules, const gh_run_plan *plan)
{
  rules->plan = *plan;
  rules->table_words = (size_t) plan->out_channels * (size_t) plan->bins;
  rules->alpha_full = gh_full_scale (plan->bytes_per_sample);
  gh_luminance_fixed_u8 (rules->luminance_fixed, plan->luminance);
  rules->level_bins = NULL;
  rules->level_floats = NULL;
  if (plan->bytes_per_sample != 2)
    return 0;
  rules->level_bins = malloc (65536 * sizeof *rules->level_bins);
  rules->level_floats = malloc (65536 * sizeof *rules->level_floats);
  if (!rules->level_bins || !rules->level_floats)
    return -1;
  for (uint32_t s = 0; s < 65536; s++)
    {
      rules->level_bins[s] = (uint32_t) gh_bin_u16 (s, plan->binning, plan->bins, plan->shift);
      rules->level_floats[s] = gh_luminance_input (gh_gimp_float_u16 (s), plan->luminance);
    }
  return 0;
}

void
cpu_weighted_rules_clear (cpu_weighted_rules *rules)
{
  free (rules->level_bins);
  free (rules->level_floats);
  rules->level_bins = NULL;
  rules->level_floats = NULL;
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
      bin[c] = plan->bytes_per_sample == 1 ? (int) s[c] : (int) r->level_bins[s[c]];
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
          = gh_luminance_bin_u8_fixed (r->luminance_fixed, s[0], s[1], s[2], plan->luminance);
    }
  else
    {
      /* The bin of the largest level: the rules are monotonic (gh_value_bin_u16). */
      const uint32_t rg = s[0] > s[1] ? s[0] : s[1];
      bin[channels] = (int) r->level_bins[rg > s[2] ? rg : s[2]];
      bin[channels + 1] = gh_luminance_bin_of_inputs (r->level_floats[s[0]], r->level_floats[s[1]],
                                                      r->level_floats[s[2]], plan->luminance,
                                                      plan->binning, plan->bins, plan->shift);
    }
}

/* One pixel at a time into the thread's table, or with an atomic add into the shared one. */
static void
count_pixels (const cpu_weighted_rules *r, const uint8_t *samples, const uint8_t *coverage,
              size_t begin, size_t end, uint64_t *table, _Atomic uint64_t *shared)
{
  const size_t bins = (size_t) r->plan.bins;
  for (size_t p = begin; p < end; p++)
    {
      int bin[MAX_OUT_CHANNELS];
      uint32_t w[MAX_OUT_CHANNELS];
      pixel_bins (r, samples, coverage, p, bin, w);
      for (int c = 0; c < r->plan.out_channels; c++)
        if (shared)
          atomic_fetch_add_explicit (&shared[(size_t) c * bins + bin[c]], w[c],
                                     memory_order_relaxed);
        else
          table[(size_t) c * bins + bin[c]] += w[c];
    }
}

/* Adds the narrow counters (NARROW_COPIES tables) into the 64-bit sums and clears them. */
static void
flush_narrow (uint32_t *narrow, uint64_t *sums, size_t words)
{
  for (int k = 0; k < NARROW_COPIES; k++)
    for (size_t i = 0; i < words; i++)
      sums[i] += narrow[(size_t) k * words + i];
  memset (narrow, 0, NARROW_COPIES * words * sizeof *narrow);
}

/* One 8-bit pixel into one narrow table. */
static ALWAYS_INLINE void
add_narrow (const cpu_weighted_rules *r, uint32_t *narrow, const uint8_t *s, uint32_t m,
            const int channels)
{
  const int alpha = r->plan.alpha_weighted;
  const int colour_channels = alpha ? channels - 1 : channels;
  const uint32_t w = m * (alpha ? s[channels - 1] : 1u);
  for (int c = 0; c < colour_channels; c++)
    narrow[c * GH_BINS + s[c]] += w;
  if (alpha)
    narrow[(channels - 1) * GH_BINS + s[channels - 1]] += m * r->alpha_full;
  if (r->plan.derived)
    {
      narrow[channels * GH_BINS + gh_value_bin_u8 (s[0], s[1], s[2])] += w;
      narrow[(channels + 1) * GH_BINS
             + gh_luminance_bin_u8_fixed (r->luminance_fixed, s[0], s[1], s[2], r->plan.luminance)]
          += w;
    }
}

/* Fastest for 8-bit samples and coverage; `channels` a constant in each caller, so that the
 * compiler drops the loops over channels.  Neighbouring pixels go to different copies of the
 * table, so that runs of equal pixels (flat areas, gradients) do not wait on each other's
 * additions. */
static ALWAYS_INLINE void
count_narrow (const cpu_weighted_rules *r, const uint8_t *samples, const uint8_t *coverage,
              size_t begin, size_t end, const cpu_weighted_tables *t, const int channels)
{
  uint32_t *narrow = t->narrow;
  const size_t words = r->table_words;
  memset (narrow, 0, NARROW_COPIES * words * sizeof *narrow);
  for (size_t start = begin; start < end; start += FLUSH_PIXELS)
    {
      const size_t stop = end - start < FLUSH_PIXELS ? end : start + FLUSH_PIXELS;
      size_t p = start;
      for (; p + NARROW_COPIES <= stop; p += NARROW_COPIES)
        for (int k = 0; k < NARROW_COPIES; k++)
          add_narrow (r, narrow + (size_t) k * words, samples + (p + k) * (size_t) channels,
                      coverage ? coverage[p + k] : 1, channels);
      for (; p < stop; p++)
        add_narrow (r, narrow, samples + p * (size_t) channels, coverage ? coverage[p] : 1,
                    channels);
      flush_narrow (narrow, t->sums, words);
    }
}

static void
count_fastest (const cpu_weighted_rules *r, const uint8_t *samples, const uint8_t *coverage,
               size_t begin, size_t end, const cpu_weighted_tables *t)
{
  if (r->plan.bytes_per_sample != 1 || r->plan.coverage_bytes > 1)
    {
      count_pixels (r, samples, coverage, begin, end, t->sums, NULL);
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
      count_pixels (rules, samples, coverage, begin, end, NULL, tables->shared);
      return;
    }
  memset (tables->sums, 0, rules->table_words * sizeof *tables->sums);
  if (method == GH_METHOD_FASTEST)
    count_fastest (rules, samples, coverage, begin, end, tables);
  else
    count_pixels (rules, samples, coverage, begin, end, tables->sums, NULL);
}

void
cpu_weighted_pixel (const cpu_weighted_rules *rules, const uint8_t *samples,
                    const uint8_t *coverage, size_t p, int *bin, uint32_t *weight)
{
  pixel_bins (rules, samples, coverage, p, bin, weight);
}
