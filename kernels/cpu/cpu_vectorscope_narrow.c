/* gpu-histogram: the CPU's narrow vectorscope (cpu_vectorscope_narrow.h). */
#include "cpu_vectorscope_narrow.h"
#include "chroma_cells.h"
#include "scope_rules.h"

#include <string.h>

uint32_t *
cpu_narrow_copies (const cpu_scopes *s, int thread)
{
  const size_t cells = s->cells[GH_SCOPE_VECTORSCOPE];
  uint32_t *copies = s->narrow + (size_t) thread * CPU_VECTORSCOPE_COPIES * cells;
  if (s->clear[GH_SCOPE_VECTORSCOPE])
    memset (copies, 0, CPU_VECTORSCOPE_COPIES * cells * sizeof *copies);
  return copies;
}

/* 8-bit samples: pixels in pairs, one into each copy; `channels` a constant in each caller. */
static inline __attribute__ ((always_inline)) void
count_u8 (const cpu_chroma_sums *chroma, const uint8_t *samples, size_t begin, size_t end,
          uint32_t *even, uint32_t *odd, const int channels)
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
count_groups (const uint8_t *samples, int channels, size_t begin, size_t end, uint32_t *even,
              uint32_t *odd)
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

/* 16-bit samples: each its vectorscope level (level8), one pixel at a time into one copy. */
static void
count_u16 (const cpu_scopes *s, const uint8_t *samples, size_t begin, size_t end, uint32_t *even)
{
  const uint16_t *s16 = (const uint16_t *) (const void *) samples;
  const size_t channels = (size_t) s->plan.channels;
  for (size_t p = begin; p < end; p++)
    {
      const uint16_t *q = s16 + p * channels;
      even[gh_vectorscope_cell (s->level8[q[0]], s->level8[q[1]], s->level8[q[2]])]++;
    }
}

void
cpu_narrow_count (const cpu_scopes *s, const uint8_t *samples, size_t begin, size_t end, int thread)
{
  uint32_t *even = cpu_narrow_copies (s, thread);
  uint32_t *odd = even + s->cells[GH_SCOPE_VECTORSCOPE];
  if (s->plan.bytes_per_sample == 1 && s->chroma_cells)
    begin = count_groups (samples, s->plan.channels, begin, end, even, odd);
  if (s->plan.bytes_per_sample == 1 && s->plan.channels == 3)
    count_u8 (&s->chroma, samples, begin, end, even, odd, 3);
  else if (s->plan.bytes_per_sample == 1)
    count_u8 (&s->chroma, samples, begin, end, even, odd, 4);
  else
    count_u16 (s, samples, begin, end, even);
}

void
cpu_narrow_fold (const cpu_scopes *s, uint64_t *counts, size_t begin, size_t end)
{
  const size_t cells = s->cells[GH_SCOPE_VECTORSCOPE];
  for (size_t t = 0; t < (size_t) s->threads * CPU_VECTORSCOPE_COPIES; t++)
    for (size_t i = begin; i < end; i++)
      counts[i] += s->narrow[t * cells + i];
}
