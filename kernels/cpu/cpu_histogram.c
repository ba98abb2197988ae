/* gpu-histogram: the CPU backend's counting of plain runs' histograms (cpu_histogram.h). */
#include "cpu_histogram.h"

#include <string.h>

/* A 16-bit sample's bin: looked up under GIMP's rule (level_bins), else sample >> shift. */
static inline __attribute__ ((always_inline)) size_t
wide_bin (uint16_t sample, int shift, const uint16_t *level_bins)
{
  return level_bins ? level_bins[sample] : (size_t) (sample >> shift);
}

static inline __attribute__ ((always_inline)) void
count_wide_pixels (const uint16_t *p, size_t pixels, int channels, size_t bins, int shift,
                   const uint16_t *level_bins, uint32_t *table)
{
  for (size_t i = 0; i < pixels; i++, p += channels)
    for (int c = 0; c < channels; c++)
      table[(size_t) c * bins + wide_bin (p[c], shift, level_bins)]++;
}

/* Both rules with a constant channel count: no division a sample for its channel, and no test
 * of the rule a sample. */
static inline __attribute__ ((always_inline)) void
count_wide_channels (const gh_run_plan *plan, const uint16_t *level_bins, const uint16_t *p,
                     size_t n, int channels, uint32_t *table)
{
  const size_t bins = (size_t) plan->bins, pixels = n / (size_t) channels;
  if (level_bins)
    count_wide_pixels (p, pixels, channels, bins, 0, level_bins, table);
  else
    count_wide_pixels (p, pixels, channels, bins, plan->shift, NULL, table);
}

/* 16-bit samples, any bins: the same methods without the unrolled copies, which measured slower
 * on 16-bit samples (docs/BENCHMARKS.md, "gpuhist on photos"). */
static void
count_wide (const gh_run_plan *plan, const cpu_histogram_tables *t, gh_method method,
            const uint16_t *p, size_t n, uint32_t *table)
{
  const size_t channels = (size_t) plan->channels, bins = (size_t) plan->bins;
  switch (method)
    {
    case GH_METHOD_GLOBAL_ATOMICS:
      for (size_t i = 0; i < n; i++)
        atomic_fetch_add_explicit (
            &t->shared[(i % channels) * bins + wide_bin (p[i], plan->shift, t->level_bins)], 1,
            memory_order_relaxed);
      break;
    default:
      memset (table, 0, t->words * sizeof *table);
      switch (channels)
        {
        case 1: count_wide_channels (plan, t->level_bins, p, n, 1, table); break;
        case 2: count_wide_channels (plan, t->level_bins, p, n, 2, table); break;
        case 3: count_wide_channels (plan, t->level_bins, p, n, 3, table); break;
        default: count_wide_channels (plan, t->level_bins, p, n, 4, table); break;
        }
      break;
    }
}

static inline __attribute__ ((always_inline)) void
count_fastest (const uint8_t *p, size_t n, int channels, uint32_t *copies, size_t table_words)
{
  const size_t group = (size_t) CPU_FASTEST_COPIES * channels;
  size_t i = 0;
  for (; i + group <= n; i += group)
    for (int k = 0; k < CPU_FASTEST_COPIES; k++)
      for (int c = 0; c < channels; c++)
        copies[k * table_words + (size_t) c * GH_BINS + p[i + (size_t) k * channels + c]]++;
  for (; i < n; i++)
    copies[(i % (size_t) channels) * GH_BINS + p[i]]++;
}

void
cpu_histogram_count (const gh_run_plan *plan, const cpu_histogram_tables *t, gh_method method,
                     const uint8_t *p, size_t n, uint32_t *copies)
{
  const int channels = plan->channels;
  const size_t words = t->words;
  if (plan->bytes_per_sample == 2)
    {
      /* Strips hold whole pixels of uint16_t, so p is aligned for them. */
      count_wide (plan, t, method, (const uint16_t *) (const void *) p, n / 2, copies);
      return;
    }
  switch (method)
    {
    case GH_METHOD_GLOBAL_ATOMICS:
      for (size_t i = 0; i < n; i++)
        atomic_fetch_add_explicit (&t->shared[(i % (size_t) channels) * GH_BINS + p[i]], 1,
                                   memory_order_relaxed);
      break;
    case GH_METHOD_PRIVATIZED:
      memset (copies, 0, words * sizeof *copies);
      for (size_t i = 0; i < n; i++)
        copies[(i % (size_t) channels) * GH_BINS + p[i]]++;
      break;
    case GH_METHOD_FASTEST:
      memset (copies, 0, CPU_FASTEST_COPIES * words * sizeof *copies);
      /* A constant channel count lets the compiler unroll the inner loops. */
      switch (channels)
        {
        case 1: count_fastest (p, n, 1, copies, words); break;
        case 2: count_fastest (p, n, 2, copies, words); break;
        case 3: count_fastest (p, n, 3, copies, words); break;
        default: count_fastest (p, n, 4, copies, words); break;
        }
      for (int k = 1; k < CPU_FASTEST_COPIES; k++)
        for (size_t w = 0; w < words; w++)
          copies[w] += copies[k * words + w];
      break;
    default: break;
    }
}

uint64_t
cpu_read_bytes (const uint8_t *p, size_t n)
{
  uint64_t acc = 0, word;
  size_t i = 0;
  for (; i + sizeof word <= n; i += sizeof word)
    {
      memcpy (&word, p + i, sizeof word);
      acc ^= word;
    }
  for (; i < n; i++)
    acc ^= p[i];
  return acc;
}
