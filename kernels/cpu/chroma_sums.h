/* gpu-histogram: the vectorscope's cell of an 8-bit pixel (gh_vectorscope_cell) from three table
 * lookups instead of four multiplies.  Each level's share of both chroma sums is packed in one
 * 64-bit word, Cr's in the high half and Cb's in the low: the three words' sum is
 * (Cr sum) * 2^32 + (Cb sum) exactly, because each sum lies within 65536 .. 16777216
 * (scope_rules.h), so the low half never borrows from or carries into the high one. */
#ifndef GPUHIST_CHROMA_SUMS_H
#define GPUHIST_CHROMA_SUMS_H

#include "scope_rules.h"

typedef struct
{
  uint64_t r[256], g[256], b[256];
} cpu_chroma_sums;

static inline uint64_t
cpu_chroma_pack (int64_t cr, int64_t cb)
{
  return ((uint64_t) cr << 32) + (uint64_t) cb;
}

static inline void
cpu_chroma_sums_init (cpu_chroma_sums *t)
{
  for (int v = 0; v < 256; v++)
    {
      t->r[v] = cpu_chroma_pack ((int64_t) GH_CR_R * v + GH_CHROMA_OFFSET,
                                 (int64_t) GH_CB_R * v + GH_CHROMA_OFFSET);
      t->g[v] = cpu_chroma_pack ((int64_t) GH_CR_G * v, (int64_t) GH_CB_G * v);
      t->b[v] = cpu_chroma_pack ((int64_t) GH_CR_B * v, (int64_t) GH_CB_B * v);
    }
}

/* gh_vectorscope_cell (r, g, b), bit for bit. */
static inline __attribute__ ((always_inline)) uint32_t
cpu_chroma_cell (const cpu_chroma_sums *t, uint8_t r, uint8_t g, uint8_t b)
{
  const uint64_t sums = t->r[r] + t->g[g] + t->b[b];
  const uint32_t cb = (uint32_t) sums >> 16, cr = (uint32_t) (sums >> 48);
  return (cr < 255 ? cr : 255) * GH_VECTORSCOPE_SIZE + (cb < 255 ? cb : 255);
}

#endif /* GPUHIST_CHROMA_SUMS_H */
