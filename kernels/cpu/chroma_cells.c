/* gpu-histogram: the vectorscope's cells of 8 pixels at a time (chroma_cells.h).  Each chroma sum
 * of scope_rules.h is one pairwise multiply-add of 16-bit levels with 16-bit weights (vpmaddwd:
 * exact in 32 bits) plus the level whose weight is 32768 shifted by 15, plus the offset. */
#include "chroma_cells.h"
#include "scope_rules.h"

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>

int
cpu_chroma_cells_available (void)
{
  return __builtin_cpu_supports ("avx2");
}

/* The byte shuffles, per 128-bit half (4 pixels), for 3 and 4 channels: (r, g) and (g, b) as
 * 16-bit pairs, r and b as 32-bit lanes; -1 zeroes a byte. */
#define PAIRS(s, a, b)                                                                             \
  a, -1, b, -1, (s) + (a), -1, (s) + (b), -1, 2 * (s) + (a), -1, 2 * (s) + (b), -1, 3 * (s) + (a), \
      -1, 3 * (s) + (b), -1
#define LANES(s, a)                                                                                \
  a, -1, -1, -1, (s) + (a), -1, -1, -1, 2 * (s) + (a), -1, -1, -1, 3 * (s) + (a), -1, -1, -1

__attribute__ ((target ("avx2"))) void
cpu_chroma_cells (const uint8_t *pixels, int channels, size_t groups, uint32_t *cells)
{
  const int s = channels;
  const __m256i rg = s == 3 ? _mm256_setr_epi8 (PAIRS (3, 0, 1), PAIRS (3, 0, 1))
                            : _mm256_setr_epi8 (PAIRS (4, 0, 1), PAIRS (4, 0, 1));
  const __m256i gb = s == 3 ? _mm256_setr_epi8 (PAIRS (3, 1, 2), PAIRS (3, 1, 2))
                            : _mm256_setr_epi8 (PAIRS (4, 1, 2), PAIRS (4, 1, 2));
  const __m256i r = s == 3 ? _mm256_setr_epi8 (LANES (3, 0), LANES (3, 0))
                           : _mm256_setr_epi8 (LANES (4, 0), LANES (4, 0));
  const __m256i b = s == 3 ? _mm256_setr_epi8 (LANES (3, 2), LANES (3, 2))
                           : _mm256_setr_epi8 (LANES (4, 2), LANES (4, 2));
  const __m256i cb_rg
      = _mm256_set1_epi32 ((int) ((uint32_t) (uint16_t) GH_CB_G << 16 | (uint16_t) GH_CB_R));
  const __m256i cr_gb
      = _mm256_set1_epi32 ((int) ((uint32_t) (uint16_t) GH_CR_B << 16 | (uint16_t) GH_CR_G));
  const __m256i offset = _mm256_set1_epi32 (GH_CHROMA_OFFSET);
  const __m256i top = _mm256_set1_epi32 (255);
  _Static_assert(GH_CB_B == 32768 && GH_CR_R == 32768, "the shifted weights");
  for (size_t i = 0; i < groups; i++, pixels += CPU_CHROMA_GROUP * s, cells += CPU_CHROMA_GROUP)
    {
      /* pixels 0-3 in the low half, 4-7 in the high one */
      const __m256i v = _mm256_inserti128_si256 (
          _mm256_castsi128_si256 (_mm_loadu_si128 ((const __m128i *) (const void *) pixels)),
          _mm_loadu_si128 ((const __m128i *) (const void *) (pixels + 4 * s)), 1);
      const __m256i cb = _mm256_add_epi32 (
          _mm256_madd_epi16 (_mm256_shuffle_epi8 (v, rg), cb_rg),
          _mm256_add_epi32 (_mm256_slli_epi32 (_mm256_shuffle_epi8 (v, b), 15), offset));
      const __m256i cr = _mm256_add_epi32 (
          _mm256_madd_epi16 (_mm256_shuffle_epi8 (v, gb), cr_gb),
          _mm256_add_epi32 (_mm256_slli_epi32 (_mm256_shuffle_epi8 (v, r), 15), offset));
      const __m256i cell = _mm256_or_si256 (
          _mm256_slli_epi32 (_mm256_min_epi32 (_mm256_srai_epi32 (cr, 16), top), 8),
          _mm256_min_epi32 (_mm256_srai_epi32 (cb, 16), top));
      _mm256_storeu_si256 ((__m256i *) (void *) cells, cell);
    }
}

#else

int
cpu_chroma_cells_available (void)
{
  return 0;
}

void
cpu_chroma_cells (const uint8_t *pixels, int channels, size_t groups, uint32_t *cells)
{
  (void) pixels;
  (void) channels;
  (void) groups;
  (void) cells;
}

#endif
