/* gpu-histogram: engine/gimp_rules.h against GIMP's own arithmetic, transcribed literally in
 * gimp-literal.h.  Exhaustive
 * where it can be: every 8-bit level, every 8-bit RGB triple (2^24) under GIMP 2.10's and GIMP
 * 3.0's luminance (perceptual and linear), every 16-bit level at every bin count; random 16-bit
 * triples for value and luminance. */
#include "gimp-literal.h"
#include "gimp_rules.h"
#include "test-util.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

/* 8-bit levels land in their own bin: what gh_value_bin_u8 and the engine's 8-bit bins rest on. */
static void
test_u8_levels (void)
{
  for (unsigned s = 0; s < 256; s++)
    {
      CHECK (gh_gimp_float_u8 (s) == babl_float (s, 255), "u8 %u: float", s);
      CHECK (gimp_bin (babl_float (s, 255), 256) == (int) s, "u8 %u: GIMP bins it elsewhere", s);
    }
}

static void
test_u8_triples (void)
{
  double terms[3][256];
  gh_luminance_terms_u8 (terms);
  uint32_t fixed[3][256];
  gh_luminance_fixed_u8 (fixed, GH_LUMINANCE_GIMP2);
  unsigned long value_wrong = 0, luminance_wrong = 0, terms_wrong = 0, exact_differs = 0;
  unsigned long fixed_wrong = 0, fixed_slow = 0;
  for (unsigned rgb = 0; rgb < (1u << 24); rgb++)
    {
      const unsigned r = rgb >> 16, g = (rgb >> 8) & 255, b = rgb & 255;
      const float fr = babl_float (r, 255), fg = babl_float (g, 255), fb = babl_float (b, 255);
      const int value = gimp_bin (gimp_max (fr, fg, fb), 256);
      const int luminance = gimp_bin (gimp_luminance (fr, fg, fb), 256);
      value_wrong += gh_value_bin_u8 (r, g, b) != value;
      luminance_wrong += gh_luminance_bin_u8 (r, g, b, GH_LUMINANCE_GIMP2) != luminance;
      terms_wrong
          += gh_luminance_bin_from_terms (terms[0][r], terms[1][g], terms[2][b], 256) != luminance;
      fixed_wrong += gh_luminance_bin_u8_fixed (fixed, r, g, b, GH_LUMINANCE_GIMP2) != luminance;
      const uint32_t fraction
          = (fixed[0][r] + fixed[1][g] + fixed[2][b]) & ((1u << GH_LUMINANCE_FRACTION_BITS) - 1);
      fixed_slow += fraction - (GH_LUMINANCE_HALF - GH_LUMINANCE_MARGIN) < 2 * GH_LUMINANCE_MARGIN;
      /* Where exact arithmetic would bin otherwise: the cases "follow GIMP" is about. */
      exact_differs
          += (int) floor ((0.22248840 * r + 0.71690369 * g + 0.06060791 * b) + 0.5) != luminance;
    }
  CHECK (value_wrong == 0, "value: %lu of 2^24 triples off GIMP's bin", value_wrong);
  CHECK (luminance_wrong == 0, "luminance: %lu of 2^24 triples off GIMP's bin", luminance_wrong);
  CHECK (terms_wrong == 0, "luminance from terms: %lu of 2^24 triples off", terms_wrong);
  CHECK (fixed_wrong == 0, "luminance in fixed point: %lu of 2^24 triples off", fixed_wrong);
  printf ("# 8-bit luminance: %lu of 2^24 triples bin otherwise in double arithmetic without "
          "GIMP's float roundings; the fixed-point shortcut takes GIMP's path for %lu\n",
          exact_differs, fixed_slow);
}

/* FNV-1a of the floats' bits, level by level. */
static uint64_t
hash_floats (const float *v, size_t n)
{
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++)
    {
      uint32_t u;
      memcpy (&u, &v[i], sizeof u);
      for (int k = 0; k < 4; k++)
        h = (h ^ ((u >> (8 * k)) & 255u)) * 1099511628211ull;
    }
  return h;
}

/* babl's linear float of every 16-bit and 8-bit level: the engine's and the literal transcription
 * against babl's own, pinned by a hash of what babl 0.1.114 (Debian 13, GIMP 3.0.4's) returned
 * from babl_process ("R'G'B'A float" to "RGBA float") for s / 65535 and s / 255. */
static void
test_babl_levels (void)
{
  static float engine[65536], literal[65536];
  unsigned long differ = 0;
  for (unsigned s = 0; s < 65536; s++)
    {
      engine[s] = gh_luminance_input (gh_gimp_float_u16 (s), GH_LUMINANCE_GIMP3);
      literal[s] = babl_gamma_2_2_to_linear_lane (babl_float (s, 65535));
      differ += memcmp (&engine[s], &literal[s], sizeof (float)) != 0;
    }
  CHECK (differ == 0, "linear floats of 16-bit levels: %lu differ from the literal babl", differ);
  CHECK (hash_floats (literal, 65536) == 0xc18b99251d00125aull,
         "16-bit levels: not babl 0.1.114's linear floats (hash %016" PRIx64 ")",
         hash_floats (literal, 65536));
  for (unsigned s = 0; s < 256; s++)
    literal[s] = babl_gamma_2_2_to_linear_lane (babl_float (s, 255));
  CHECK (hash_floats (literal, 256) == 0x1aa159d4b5d69dbfull,
         "8-bit levels: not babl 0.1.114's linear floats (hash %016" PRIx64 ")",
         hash_floats (literal, 256));
}

/* GIMP 3.0's luminance (perceptual: GIMP3; linear: GIMP3_LINEAR) on every 8-bit triple: the
 * rule, and its fixed-point shortcut, against the literal transcription. */
static void
test_u8_triples_gimp3 (gh_luminance rule)
{
  const char *name = rule == GH_LUMINANCE_GIMP3 ? "GIMP3" : "GIMP3_LINEAR";
  float levels[256];
  for (unsigned s = 0; s < 256; s++)
    levels[s] = babl_float (s, 255);
  uint32_t fixed[3][256];
  gh_luminance_fixed_u8 (fixed, rule);
  unsigned long wrong = 0, fixed_wrong = 0, fixed_slow = 0, fused_differs = 0, gimp2_differs = 0;
  for (unsigned rgb = 0; rgb < (1u << 24); rgb++)
    {
      const unsigned r = rgb >> 16, g = (rgb >> 8) & 255, b = rgb & 255;
      const float fr = levels[r], fg = levels[g], fb = levels[b];
      const float l = rule == GH_LUMINANCE_GIMP3 ? gimp3_luminance (fr, fg, fb)
                                                 : gimp3_luminance_linear (fr, fg, fb);
      const int want = gimp_bin (l, 256);
      wrong += gh_luminance_bin_u8 (r, g, b, rule) != want;
      fixed_wrong += gh_luminance_bin_u8_fixed (fixed, r, g, b, rule) != want;
      const uint32_t fraction
          = (fixed[0][r] + fixed[1][g] + fixed[2][b]) & ((1u << GH_LUMINANCE_FRACTION_BITS) - 1);
      fixed_slow += fraction - (GH_LUMINANCE_HALF - GH_LUMINANCE_MARGIN) < 2 * GH_LUMINANCE_MARGIN;
      const float fused = rule == GH_LUMINANCE_GIMP3
                              ? babl_rgba_to_gray_float_v3 (babl_gamma_2_2_to_linear_lane (fr),
                                                            babl_gamma_2_2_to_linear_lane (fg),
                                                            babl_gamma_2_2_to_linear_lane (fb))
                              : babl_rgba_to_gray_float_v3 (fr, fg, fb);
      fused_differs += gimp_bin (fused, 256) != want;
      gimp2_differs += gimp_bin (gimp_luminance (fr, fg, fb), 256) != want;
    }
  CHECK (wrong == 0, "%s luminance: %lu of 2^24 triples off GIMP 3.0's bin", name, wrong);
  CHECK (fixed_wrong == 0, "%s luminance in fixed point: %lu of 2^24 triples off", name,
         fixed_wrong);
  printf ("# %s: the fixed-point shortcut takes GIMP's path for %lu triples; babl's fused sum "
          "would bin %lu otherwise, GIMP 2.10's rule %lu\n",
          name, fixed_slow, fused_differs, gimp2_differs);
}

static void
test_u16_levels (void)
{
  for (size_t k = 0; k < sizeof test_bin_counts / sizeof test_bin_counts[0]; k++)
    {
      const int bins = test_bin_counts[k];
      unsigned long wrong = 0, shift_differs = 0;
      for (unsigned s = 0; s < 65536; s++)
        {
          const int want = gimp_bin (babl_float (s, 65535), bins);
          wrong += gh_gimp_bin_u16 (s, bins) != want;
          wrong += gh_bin_u16 (s, GH_BINNING_GIMP, bins, shift_for (bins)) != want;
          wrong += gh_bin_u16 (s, GH_BINNING_SHIFT, bins, shift_for (bins))
                   != (int) (s >> shift_for (bins));
          shift_differs += (int) (s >> shift_for (bins)) != want;
        }
      CHECK (wrong == 0, "16-bit levels at %d bins: %lu off GIMP's rule", bins, wrong);
      CHECK (bins == 65536 || shift_differs > 0, "%d bins: the two rules never differ", bins);
    }
}

static void
test_u16_triples (void)
{
  static const int bins_list[] = { 256, 1024, 65536 };
  for (size_t k = 0; k < sizeof bins_list / sizeof bins_list[0]; k++)
    {
      const int bins = bins_list[k], shift = shift_for (bins);
      unsigned long wrong = 0;
      for (int i = 0; i < 2000000; i++)
        {
          const uint64_t x = test_random ();
          const unsigned r = x & 0xFFFF, g = (x >> 16) & 0xFFFF, b = (x >> 32) & 0xFFFF;
          const float fr = babl_float (r, 65535), fg = babl_float (g, 65535),
                      fb = babl_float (b, 65535);
          const float l = gimp_luminance (fr, fg, fb);
          wrong += gh_value_bin_u16 (r, g, b, GH_BINNING_GIMP, bins, shift)
                   != gimp_bin (gimp_max (fr, fg, fb), bins);
          wrong += gh_luminance_bin_u16 (r, g, b, GH_LUMINANCE_GIMP2, GH_BINNING_GIMP, bins, shift)
                   != gimp_bin (l, bins);
          const float l3 = gimp3_luminance (fr, fg, fb), l3l = gimp3_luminance_linear (fr, fg, fb);
          wrong += gh_luminance_bin_u16 (r, g, b, GH_LUMINANCE_GIMP3, GH_BINNING_GIMP, bins, shift)
                   != gimp_bin (l3, bins);
          wrong += gh_luminance_bin_u16 (r, g, b, GH_LUMINANCE_GIMP3_LINEAR, GH_BINNING_GIMP, bins,
                                         shift)
                   != gimp_bin (l3l, bins);
          wrong += gh_luminance_bin_u16 (r, g, b, GH_LUMINANCE_GIMP3, GH_BINNING_SHIFT, bins, shift)
                   != gimp_bin (l3, 65536) >> shift;
          const unsigned top = r > g ? (r > b ? r : b) : (g > b ? g : b);
          wrong
              += gh_value_bin_u16 (r, g, b, GH_BINNING_SHIFT, bins, shift) != (int) (top >> shift);
          wrong += gh_luminance_bin_u16 (r, g, b, GH_LUMINANCE_GIMP2, GH_BINNING_SHIFT, bins, shift)
                   != gimp_bin (l, 65536) >> shift;
        }
      CHECK (wrong == 0, "16-bit triples at %d bins: %lu bins off", bins, wrong);
    }
}

/* NaN, negative and above-one floats: GIMP's SAFE_CLAMP sends NaN to bin 0. */
static void
test_out_of_range (void)
{
  CHECK (gh_gimp_bin_of_float (NAN, 1024) == 0, "NaN");
  CHECK (gh_gimp_bin_of_float (-1.0f, 1024) == 0, "negative");
  CHECK (gh_gimp_bin_of_float (2.0f, 1024) == 1023, "above one");
  CHECK (gh_gimp_bin_of_float (INFINITY, 256) == 255, "infinity");
}

/* A carry out of the low word, and sums that pass 2^64. */
static void
test_u128_fold (void)
{
  gh_u128 total = { 0, UINT64_MAX - 4 };
  gh_u128_add64 (&total, 10);
  CHECK (total.hi == 1 && total.lo == 5, "carry: %" PRIu64 ":%" PRIu64, total.hi, total.lo);
  gh_u128 many = { 0, 0 };
  const uint64_t w = (uint64_t) 65535 * 65535;
  for (int i = 0; i < 3 * 1000000; i++)
    gh_u128_add64 (&many, w << 20);
  /* 3e6 * (w << 20) = 3e6 * w * 2^20, exactly, as hi:lo. */
  const unsigned __int128 want = (unsigned __int128) 3000000 * (w << 20);
  CHECK (many.hi == (uint64_t) (want >> 64) && many.lo == (uint64_t) want, "sum past 2^64");
}

int
main (void)
{
  test_init ();
  test_u8_levels ();
  test_u8_triples ();
  test_babl_levels ();
  test_u8_triples_gimp3 (GH_LUMINANCE_GIMP3);
  test_u8_triples_gimp3 (GH_LUMINANCE_GIMP3_LINEAR);
  test_u16_levels ();
  test_u16_triples ();
  test_out_of_range ();
  test_u128_fold ();
  return test_finish ("gimp-rules");
}
