/* gpu-histogram tests: the scopes' cases, their images and specs, and the checks of a result
 * against the reference count (gh_reference_count_scope) and against the run's own histogram: a
 * waveform's columns summed are its channel's histogram, the vectorscope's total is the red
 * channel's.  Shared by test-scopes.c and stress-scopes.c. */
#ifndef GPUHIST_SCOPE_CHECKS_H
#define GPUHIST_SCOPE_CHECKS_H

#include "backend.h"
#include "test-util.h"

typedef unsigned __int128 u128;

typedef struct
{
  const char *name;
  int width, height, channels, bytes, coverage_bytes, alpha_weighted, derived;
  int columns; /* 0: a random count from 1 to width; -1: width; -2: no waveform */
  unsigned waveform_channels;
  int vectorscope;
  int image; /* 0 noise, 1 flat, 2 a neutral band over noise, 3 noise with areas of coverage 0,
              * 4 flat at the largest weight (alpha and coverage 255) */
  gh_binning binning;
  int bins;
  gh_luminance luminance;
} scope_case;

static const scope_case cases[] = {
  { "rgb8 noise, 64 columns", 300, 97, 3, 1, 0, 0, 0, 64, 0, 1, 0, GH_BINNING_SHIFT, 256,
    GH_LUMINANCE_GIMP2 },
  { "rgba8 weighted, derived", 263, 71, 4, 1, 1, 1, 1, 0, 0, 1, 0, GH_BINNING_SHIFT, 256,
    GH_LUMINANCE_GIMP2 },
  { "rgb8 one column", 96, 33, 3, 1, 0, 0, 1, 1, 0, 1, 0, GH_BINNING_SHIFT, 256,
    GH_LUMINANCE_GIMP2 },
  { "rgba8 as many columns as pixels", 129, 40, 4, 1, 0, 0, 1, -1, 0, 1, 0, GH_BINNING_SHIFT, 256,
    GH_LUMINANCE_GIMP2 },
  { "rgb8 flat", 200, 64, 3, 1, 0, 0, 1, 37, 0, 1, 1, GH_BINNING_SHIFT, 256, GH_LUMINANCE_GIMP2 },
  { "rgba8 neutral band", 180, 90, 4, 1, 2, 1, 0, 45, 0, 1, 2, GH_BINNING_SHIFT, 256,
    GH_LUMINANCE_GIMP2 },
  { "rgba16 GIMP's rule, 1024 bins", 157, 53, 4, 2, 2, 1, 1, 0, 0, 1, 0, GH_BINNING_GIMP, 1024,
    GH_LUMINANCE_GIMP2 },
  { "rgb16 shift, 4096 bins", 143, 41, 3, 2, 0, 0, 0, 13, 0, 1, 0, GH_BINNING_SHIFT, 4096,
    GH_LUMINANCE_GIMP2 },
  { "gray8 waveform alone", 332, 50, 1, 1, 1, 0, 0, 0, 0, 0, 0, GH_BINNING_SHIFT, 256,
    GH_LUMINANCE_GIMP2 },
  { "gray+alpha16 weighted", 211, 37, 2, 2, 1, 1, 0, 19, 0, 0, 0, GH_BINNING_GIMP, 1024,
    GH_LUMINANCE_GIMP2 },
  { "rgba8 luminance and red only", 250, 60, 4, 1, 0, 0, 1, 50, 0x21, 0, 0, GH_BINNING_SHIFT, 256,
    GH_LUMINANCE_GIMP2 },
  { "rgba8 GIMP 3.0's luminance", 260, 50, 4, 1, 0, 0, 1, 65, 0, 1, 0, GH_BINNING_SHIFT, 256,
    GH_LUMINANCE_GIMP3 },
  /* Output columns of four pixels: the GPU's waveform reads four RGB pixels a lane, across
   * word boundaries; the second, in stripes the last of which is partly empty. */
  { "rgb8 noise, four pixels a column", 512, 45, 3, 1, 0, 0, 1, 128, 0, 1, 0, GH_BINNING_SHIFT, 256,
    GH_LUMINANCE_GIMP2 },
  { "rgb8 GIMP 3.0's luminance, four pixels a column", 1000, 21, 3, 1, 0, 0, 1, 250, 0, 1, 0,
    GH_BINNING_SHIFT, 256, GH_LUMINANCE_GIMP3 },
  { "rgb16 GIMP 3.0's linear luminance, weighted", 150, 30, 3, 2, 1, 0, 1, 30, 0, 1, 0,
    GH_BINNING_GIMP, 1024, GH_LUMINANCE_GIMP3_LINEAR },
  /* Plain 8-bit runs, whose FASTEST whole run on the CPU counts the histogram, the waveform and
   * the vectorscope in one pass (the histogram as the waveform's columns summed): an odd width
   * and pixel count, a column a pixel without a vectorscope, and a flat image. */
  { "rgba8 plain, odd width", 301, 67, 4, 1, 0, 0, 0, 0, 0, 1, 0, GH_BINNING_SHIFT, 256,
    GH_LUMINANCE_GIMP2 },
  { "gray8 plain, a column a pixel", 257, 45, 1, 1, 0, 0, 0, -1, 0, 0, 0, GH_BINNING_SHIFT, 256,
    GH_LUMINANCE_GIMP2 },
  { "rgb8 plain, flat", 199, 31, 3, 1, 0, 0, 0, 23, 0, 1, 1, GH_BINNING_SHIFT, 256,
    GH_LUMINANCE_GIMP2 },
  /* Batches of eight 3-byte pixels, the last ending at the strip's last byte: the vectorscope's
   * cells eight at a time must not read past it (seen under -Db_sanitize=address). */
  { "rgb8 plain, a column a pixel, 64 wide", 64, 9, 3, 1, 0, 0, 0, -1, 0, 1, 0, GH_BINNING_SHIFT,
    256, GH_LUMINANCE_GIMP2 },
  /* Enough pixels a block that the GPU's 16-bit counters wrap (the spills' path), in one cell:
   * GPU runs only (the CPU's counters are 32 and 64 bits wide). */
  { "rgba8 flat, 9.4 million pixels", 4096, 2304, 4, 1, 0, 0, 1, 64, 0, 1, 1, GH_BINNING_SHIFT, 256,
    GH_LUMINANCE_GIMP2 },
  /* Weighted 8-bit RGB and RGBA, whose FASTEST waveform on the GPU is the weighted lane tables:
   * a pixel a lane (widths that no column count divides, a column a pixel) or four (columns of
   * whole fours, one column), 8-bit, 16-bit or no coverage plane, alpha weighting or not, both
   * luminance rules, a flat image; every plane has a band of zero coverage (fill_image). */
  { "rgb8 weighted, 37 columns", 300, 41, 3, 1, 1, 0, 1, 37, 0, 0, 0, GH_BINNING_SHIFT, 256,
    GH_LUMINANCE_GIMP2 },
  { "rgba8 weighted, four pixels a column", 512, 45, 4, 1, 1, 1, 1, 128, 0, 0, 0, GH_BINNING_SHIFT,
    256, GH_LUMINANCE_GIMP2 },
  { "rgb8 weighted, four pixels a column", 400, 33, 3, 1, 1, 0, 1, 100, 0, 0, 0, GH_BINNING_SHIFT,
    256, GH_LUMINANCE_GIMP2 },
  { "rgba8 weighted, one column", 200, 37, 4, 1, 1, 1, 1, 1, 0, 0, 0, GH_BINNING_SHIFT, 256,
    GH_LUMINANCE_GIMP2 },
  { "rgba8 weighted, a column a pixel", 130, 29, 4, 1, 1, 1, 1, -1, 0, 0, 0, GH_BINNING_SHIFT, 256,
    GH_LUMINANCE_GIMP2 },
  { "rgba8 weighted, flat", 180, 50, 4, 1, 1, 1, 1, 45, 0, 0, 1, GH_BINNING_SHIFT, 256,
    GH_LUMINANCE_GIMP2 },
  { "rgba8 alpha-weighted without a plane, GIMP 3.0's luminance", 256, 30, 4, 1, 0, 1, 1, 64, 0, 0,
    0, GH_BINNING_SHIFT, 256, GH_LUMINANCE_GIMP3 },
  { "rgba8 coverage alone, four pixels a column", 240, 35, 4, 1, 1, 0, 1, 60, 0, 0, 0,
    GH_BINNING_SHIFT, 256, GH_LUMINANCE_GIMP2 },
  { "rgb8 16-bit coverage, GIMP 3.0's luminance", 301, 27, 3, 1, 2, 0, 1, 0, 0, 0, 0,
    GH_BINNING_SHIFT, 256, GH_LUMINANCE_GIMP3 },
  /* The largest 8-bit weights (coverage and alpha 255) into one output column: the CPU's
   * waveform counts 8-bit runs into 32-bit tables, which 66,052 such pixels in one cell would
   * pass 2^32, so it must add them up every few rows. */
  { "rgba8 flat at the largest 8-bit weights, one column", 600, 200, 4, 1, 1, 1, 1, 1, 0, 1, 4,
    GH_BINNING_SHIFT, 256, GH_LUMINANCE_GIMP2 },
  /* The largest weights (16-bit coverage at full scale, opaque) over 2048 rows: a band of that
   * many rows would pass 2^32 in a lane's 32-bit counter.  GPU runs only. */
  { "rgba8 flat weighted at full scale, 2 million pixels", 1024, 2048, 4, 1, 2, 1, 1, 256, 0, 0, 1,
    GH_BINNING_SHIFT, 256, GH_LUMINANCE_GIMP2 },
  /* Enough noise that every block's vectorscope table is dense: all of the GPU's blocks write
   * partial tables that a second kernel adds up (the small noise images fill only the first
   * blocks).  GPU runs only. */
  { "rgba8 noise, a million pixels", 1024, 1024, 4, 1, 0, 0, 0, 64, 0, 1, 0, GH_BINNING_SHIFT, 256,
    GH_LUMINANCE_GIMP2 },
  /* The weighted vectorscope of 8-bit samples (on the GPU, the compact table of reachable cells):
   * each way of weighting, areas of coverage 0, a flat image. */
  { "rgb8 weighted by coverage, areas of 0", 252, 61, 3, 1, 1, 0, 0, 63, 0, 1, 3, GH_BINNING_SHIFT,
    256, GH_LUMINANCE_GIMP2 },
  { "rgba8 alpha-weighted, areas of coverage 0", 264, 45, 4, 1, 1, 1, 0, 33, 0, 1, 3,
    GH_BINNING_SHIFT, 256, GH_LUMINANCE_GIMP2 },
  { "rgba8 alpha-weighted, no coverage", 200, 50, 4, 1, 0, 1, 0, 25, 0, 1, 0, GH_BINNING_SHIFT, 256,
    GH_LUMINANCE_GIMP2 },
  { "rgba8 flat, weighted by coverage", 120, 40, 4, 1, 1, 0, 0, 30, 0, 1, 1, GH_BINNING_SHIFT, 256,
    GH_LUMINANCE_GIMP2 },
  /* GPU runs only.  Every pixel adds 65025 to one cell, whose 32-bit counter passes 2^32 in every
   * block (about 71,000 pixels each on 132 SMs; the adds that wrap it must move 2^32 into the strip
   * table); and weighted noise dense enough that every block writes a partial table. */
  { "rgba8 flat, largest weights, 9.4 million pixels", 4096, 2304, 4, 1, 1, 1, 0, 64, 0, 1, 4,
    GH_BINNING_SHIFT, 256, GH_LUMINANCE_GIMP2 },
  { "rgba8 weighted noise, a million pixels", 1024, 1024, 4, 1, 1, 1, 0, 64, 0, 1, 0,
    GH_BINNING_SHIFT, 256, GH_LUMINANCE_GIMP2 },
  /* The shape of the dialog's Re-run at 4096 bins (tests/dialog/dialog-tests.py), fewer rows than
   * its 248 x 168 selection: 16-bit RGBA weighted by coverage and alpha, six channels, a column a
   * pixel; then GIMP 3.0's luminance over areas of coverage 0. */
  { "rgba16 weighted, derived, 4096 bins, a column a pixel", 248, 42, 4, 2, 2, 1, 1, -1, 0, 1, 0,
    GH_BINNING_GIMP, 4096, GH_LUMINANCE_GIMP2 },
  { "rgba16 weighted, GIMP 3.0's luminance, 4096 bins", 130, 47, 4, 2, 2, 1, 1, 31, 0, 1, 3,
    GH_BINNING_GIMP, 4096, GH_LUMINANCE_GIMP3 },
};

static inline u128
u128_of (gh_u128 x)
{
  return (u128) x.hi << 64 | x.lo;
}

/* A cell of a table as an exact sum, counts or numerators. */
static inline u128
cell (const uint64_t *counts, const gh_u128 *numerators, size_t i)
{
  return counts ? (u128) counts[i] : u128_of (numerators[i]);
}

static inline void
fill_image (const scope_case *c, uint8_t *pixels, uint8_t *coverage)
{
  const size_t samples = (size_t) c->width * c->height * c->channels;
  /* A flat image under alpha weighting is opaque: the largest weights. */
  const uint64_t flat = test_random () | (c->alpha_weighted && c->bytes == 1 ? 0xFF000000u : 0u);
  for (size_t i = 0; i < samples; i++)
    {
      const int flat_image = c->image == 1 || c->image == 4;
      uint64_t v = flat_image ? flat >> (8 * (i % c->channels)) : test_random ();
      if (c->image == 4 && c->alpha_weighted && (int) (i % c->channels) == c->channels - 1)
        v = ~0ull;
      if (c->bytes == 1)
        pixels[i] = (uint8_t) v;
      else
        ((uint16_t *) (void *) pixels)[i] = (uint16_t) v;
    }
  if (c->image == 2)
    for (int y = c->height / 3; y < 2 * c->height / 3; y++)
      for (int x = 0; x < c->width; x++)
        {
          const size_t p = ((size_t) y * c->width + x) * c->channels;
          for (int k = 1; k < 3; k++)
            memcpy (pixels + (p + k) * c->bytes, pixels + p * c->bytes, (size_t) c->bytes);
        }
  /* Coverage: random, none on the left fifth of every row and, on image 3, none on a
   * checkerboard; full scale on flat images (image 4 everywhere: the largest weights). */
  const size_t row = (size_t) c->width * c->coverage_bytes;
  for (size_t i = 0; coverage && i < row * c->height; i++)
    {
      const size_t p = i / (size_t) c->coverage_bytes, x = p % (size_t) c->width,
                   y = p / (size_t) c->width;
      coverage[i] = c->image == 4                                               ? 0xFF
                    : i % row < row / 5 / c->coverage_bytes * c->coverage_bytes ? 0
                    : c->image == 1                                             ? 0xFF
                    : c->image == 3 && (x / 7 + y / 3) % 2                      ? 0
                                                           : (uint8_t) test_random ();
    }
}

static inline void
spec_of (const scope_case *c, gh_run_spec *spec)
{
  gh_run_spec_init (spec, c->width, c->height, c->channels, c->bytes);
  spec->binning = c->binning;
  spec->coverage_bytes = c->coverage_bytes;
  spec->alpha_weighted = c->alpha_weighted;
  spec->derived = c->derived;
  spec->luminance = c->luminance;
  spec->waveform_columns = c->columns > 0     ? c->columns
                           : c->columns == -1 ? c->width
                           : c->columns == -2 ? 0
                                              : 1 + (int) (test_random () % (uint64_t) c->width);
  spec->waveform_channels = c->waveform_channels;
  spec->vectorscope = c->vectorscope;
}

/* The scope against the reference, cell by cell. */
static inline void
check_against_reference (const scope_case *c, const gh_run_spec *spec, const gh_result *result,
                         gh_scope_kind kind, const void *pixels, const void *coverage)
{
  const gh_scope *scope = &result->scopes[kind];
  const size_t cells = gh_scope_cells (scope);
  gh_u128 *expected = calloc (cells ? cells : 1, sizeof *expected);
  gh_reference_count_scope (spec, c->bins, kind, pixels, (size_t) c->width * c->channels * c->bytes,
                            coverage, (size_t) c->width * c->coverage_bytes, expected);
  size_t wrong = 0, first = 0;
  for (size_t i = 0; i < cells; i++)
    if (cell (scope->counts, scope->numerators, i) != u128_of (expected[i]) && wrong++ == 0)
      first = i;
  CHECK (wrong == 0, "%s: %s: %zu of %zu cells differ from the reference, the first %zu", c->name,
         kind == GH_SCOPE_WAVEFORM ? "waveform" : "vectorscope", wrong, cells, first);
  free (expected);
}

/* Each waveform table summed over its columns is its channel's histogram. */
static inline void
check_column_sums (const scope_case *c, const gh_result *result)
{
  const gh_scope *w = &result->scopes[GH_SCOPE_WAVEFORM];
  for (int t = 0; t < w->tables; t++)
    for (int b = 0; b < w->bins; b++)
      {
        u128 sum = 0;
        for (int column = 0; column < w->columns; column++)
          sum += cell (w->counts, w->numerators, ((size_t) t * w->columns + column) * w->bins + b);
        const size_t h = (size_t) w->channel[t] * result->bins + b;
        CHECK (sum == cell (result->counts, result->numerators, h),
               "%s: waveform table %d (channel %d), bin %d: columns sum to the histogram", c->name,
               t, w->channel[t], b);
      }
}

/* The vectorscope's total is the red channel's; a flat image fills one cell, and a neutral band
 * adds to [128][128] alone. */
static inline void
check_vectorscope_shape (const scope_case *c, const gh_result *result)
{
  const gh_scope *v = &result->scopes[GH_SCOPE_VECTORSCOPE];
  u128 total = 0, red = 0;
  size_t used = 0;
  for (size_t i = 0; i < gh_scope_cells (v); i++)
    {
      total += cell (v->counts, v->numerators, i);
      used += cell (v->counts, v->numerators, i) != 0;
    }
  for (int b = 0; b < result->bins; b++)
    red += cell (result->counts, result->numerators, (size_t) b);
  CHECK (total == red, "%s: the vectorscope's total is the red channel's", c->name);
  if (c->image == 1 || c->image == 4)
    CHECK (used == 1, "%s: a flat image fills one vectorscope cell, not %zu", c->name, used);
  if (c->image == 2)
    CHECK (cell (v->counts, v->numerators, 128 * GH_VECTORSCOPE_SIZE + 128) != 0,
           "%s: the neutral band lands in [128][128]", c->name);
}

/* Submits rows [y, y + *rows) of the image and its coverage plane, fewer where the run's strip
 * holds fewer (*rows then says how many), as a caller that fetches strips does. */
static inline gh_status
submit_rows (gh_run *run, const gh_run_spec *spec, const uint8_t *pixels, const uint8_t *coverage,
             int y, int *rows, gh_error *error)
{
  const size_t row = (size_t) spec->width * spec->channels * spec->bytes_per_sample;
  const size_t cover_row = (size_t) spec->width * spec->coverage_bytes;
  int room = 0;
  uint8_t *strip = gh_run_strip_buffer (run, &room);
  if (*rows > room)
    *rows = room;
  memcpy (strip, pixels + (size_t) y * row, (size_t) *rows * row);
  if (coverage)
    memcpy (gh_run_coverage_buffer (run), coverage + (size_t) y * cover_row,
            (size_t) *rows * cover_row);
  return gh_run_submit_strip (run, *rows, error);
}

#endif /* GPUHIST_SCOPE_CHECKS_H */
