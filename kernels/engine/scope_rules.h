/* gpu-histogram: where a pixel lands in a scope (gpuhist.h, gh_scope), the one definition that
 * the CPU backend and the CUDA kernels compile (C and CUDA: GH_HOST_DEVICE, from backend.h).
 * The reference count (reference.c) spells the same rules out again on its own. */
#ifndef GPUHIST_SCOPE_RULES_H
#define GPUHIST_SCOPE_RULES_H

#include "backend.h"
#include "gimp_rules.h"

/* The waveform's output column of image column x: floor (x * columns / width), in 64 bits
 * because x * columns passes 2^31 on wide images. */
GH_HOST_DEVICE static inline int
gh_waveform_column (int x, int columns, int width)
{
  return (int) (((uint64_t) x * (uint64_t) columns) / (uint64_t) width);
}

/* The vectorscope's cell, cr * 256 + cb, of 8-bit levels r, g, b: Rec.709's chroma in integers
 * (gpuhist.h).  Each row of weights sums to 0 and its negative part to -32768, so the sums lie
 * within 65536 .. 16777216: 32 bits hold them, the shift is a division by 65536, and min () only
 * ever takes 256 down to 255. */
enum
{
  GH_CB_R = -7509,
  GH_CB_G = -25259,
  GH_CB_B = 32768,
  GH_CR_R = 32768,
  GH_CR_G = -29763,
  GH_CR_B = -3005,
  GH_CHROMA_OFFSET = 8421376 /* 128.5 * 65536: centre and rounding */
};

GH_HOST_DEVICE static inline int
gh_vectorscope_cell (int r, int g, int b)
{
  const int cb = (GH_CB_R * r + GH_CB_G * g + GH_CB_B * b + GH_CHROMA_OFFSET) >> 16;
  const int cr = (GH_CR_R * r + GH_CR_G * g + GH_CR_B * b + GH_CHROMA_OFFSET) >> 16;
  return (cr < 255 ? cr : 255) * GH_VECTORSCOPE_SIZE + (cb < 255 ? cb : 255);
}

/* The 8-bit level of a 16-bit sample for the vectorscope: its bin at 256 bins under the run's
 * rule (SHIFT: s >> 8). */
GH_HOST_DEVICE static inline int
gh_vectorscope_level_u16 (uint32_t s, gh_binning binning)
{
  return binning == GH_BINNING_GIMP ? gh_gimp_bin_u16 (s, GH_BINS) : (int) (s >> 8);
}

#endif /* GPUHIST_SCOPE_RULES_H */
