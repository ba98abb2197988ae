/* gpu-histogram: the reference counts.  Single-threaded, one sample at a time, with no trick a
 * reader must check: what every backend and method is compared against. */
#include "backend.h"
#include "gimp_rules.h"

void
gh_reference_count (const uint8_t *pixels, int width, int height, int channels, size_t stride,
                    uint64_t *counts)
{
  for (int y = 0; y < height; y++)
    {
      const uint8_t *row = pixels + (size_t) y * stride;
      for (int x = 0; x < width; x++)
        for (int c = 0; c < channels; c++)
          counts[c * GH_BINS + row[(size_t) x * channels + c]]++;
    }
}

static int
shift_for_bins (int bins)
{
  int shift = 0;
  while ((65536 >> shift) > bins)
    shift++;
  return shift;
}

void
gh_reference_count16 (const uint16_t *pixels, int width, int height, int channels,
                      size_t stride_bytes, int bins, uint64_t *counts)
{
  const int shift = shift_for_bins (bins);
  for (int y = 0; y < height; y++)
    {
      const uint16_t *row
          = (const uint16_t *) ((const uint8_t *) pixels + (size_t) y * stride_bytes);
      for (int x = 0; x < width; x++)
        for (int c = 0; c < channels; c++)
          counts[(size_t) c * bins + (row[(size_t) x * channels + c] >> shift)]++;
    }
}

/* Sample c of pixel x in a row of 1- or 2-byte samples. */
static uint32_t
sample_at (const uint8_t *row, int bytes, size_t index)
{
  return bytes == 1 ? row[index] : ((const uint16_t *) (const void *) row)[index];
}

/* One pixel's bins: its channels', then value's and luminance's when derived. */
static void
pixel_bins (const gh_run_spec *spec, int bins, const uint32_t *s, int *bin)
{
  const int shift = shift_for_bins (bins);
  for (int c = 0; c < spec->channels; c++)
    bin[c]
        = spec->bytes_per_sample == 1 ? (int) s[c] : gh_bin_u16 (s[c], spec->binning, bins, shift);
  if (!spec->derived)
    return;
  if (spec->bytes_per_sample == 1)
    {
      bin[spec->channels] = gh_value_bin_u8 (s[0], s[1], s[2]);
      bin[spec->channels + 1] = gh_luminance_bin_u8 (s[0], s[1], s[2], spec->luminance);
    }
  else
    {
      bin[spec->channels] = gh_value_bin_u16 (s[0], s[1], s[2], spec->binning, bins, shift);
      bin[spec->channels + 1]
          = gh_luminance_bin_u16 (s[0], s[1], s[2], spec->luminance, spec->binning, bins, shift);
    }
}

/* Pixel x of a row: its samples, its bins and each output channel's weight. */
static void
reference_pixel (const gh_run_spec *spec, int bins, const uint8_t *row, const uint8_t *mask, int x,
                 uint32_t *s, int *bin, uint64_t *w)
{
  const int channels = spec->channels, out_channels = channels + (spec->derived ? 2 : 0);
  const uint32_t alpha_full = gh_full_scale (spec->bytes_per_sample);
  for (int c = 0; c < channels; c++)
    s[c] = sample_at (row, spec->bytes_per_sample, (size_t) x * channels + c);
  pixel_bins (spec, bins, s, bin);
  const uint32_t m = spec->coverage_bytes ? sample_at (mask, spec->coverage_bytes, x) : 1;
  const uint32_t a = spec->alpha_weighted ? s[channels - 1] : 1;
  for (int c = 0; c < out_channels; c++)
    {
      const int is_alpha = spec->alpha_weighted && c == channels - 1;
      w[c] = is_alpha ? (uint64_t) m * alpha_full : (uint64_t) m * a;
    }
}

/* A table's cell for pixel x of the waveform (channel table t) or the vectorscope. */
static size_t
scope_cell (const gh_run_spec *spec, int bins, gh_scope_kind kind, int x, int t, int bin,
            const uint32_t *s)
{
  if (kind == GH_SCOPE_WAVEFORM)
    {
      const uint64_t column = (uint64_t) x * (uint64_t) spec->waveform_columns / spec->width;
      return ((size_t) t * spec->waveform_columns + column) * bins + bin;
    }
  int level[3];
  for (int c = 0; c < 3; c++)
    level[c]
        = spec->bytes_per_sample == 1 ? (int) s[c] : gh_bin_u16 (s[c], spec->binning, GH_BINS, 8);
  const int64_t cb
      = (-7509LL * level[0] - 25259LL * level[1] + 32768LL * level[2] + 8421376) / 65536;
  const int64_t cr
      = (32768LL * level[0] - 29763LL * level[1] - 3005LL * level[2] + 8421376) / 65536;
  return (size_t) (cr > 255 ? 255 : cr) * GH_VECTORSCOPE_SIZE + (size_t) (cb > 255 ? 255 : cb);
}

/* The histogram's cell of output channel c (table -1), or a scope's cells (table: its kind). */
#define TABLE_HISTOGRAM (-1)

static void
add_pixel (const gh_run_spec *spec, int bins, int table, int x, const uint32_t *s, const int *bin,
           const uint64_t *w, gh_u128 *sums)
{
  const int out_channels = spec->channels + (spec->derived ? 2 : 0);
  const unsigned wanted
      = spec->waveform_channels ? spec->waveform_channels : (1u << out_channels) - 1u;
  if (table == GH_SCOPE_VECTORSCOPE)
    {
      gh_u128_add64 (&sums[scope_cell (spec, bins, GH_SCOPE_VECTORSCOPE, x, 0, 0, s)], w[0]);
      return;
    }
  for (int c = 0, t = 0; c < out_channels; c++)
    if (table == TABLE_HISTOGRAM)
      gh_u128_add64 (&sums[(size_t) c * bins + bin[c]], w[c]);
    else if ((wanted >> c) & 1u)
      gh_u128_add64 (&sums[scope_cell (spec, bins, GH_SCOPE_WAVEFORM, x, t++, bin[c], s)], w[c]);
}

static void
count_reference (const gh_run_spec *spec, int bins, int table, const void *pixels, size_t stride,
                 const void *coverage, size_t coverage_stride, gh_u128 *sums)
{
  if (spec->bytes_per_sample == 1)
    bins = GH_BINS;
  for (int y = 0; y < spec->height; y++)
    {
      const uint8_t *row = (const uint8_t *) pixels + (size_t) y * stride;
      const uint8_t *mask = (const uint8_t *) coverage + (size_t) y * coverage_stride;
      for (int x = 0; x < spec->width; x++)
        {
          uint32_t s[GH_MAX_CHANNELS];
          int bin[GH_MAX_CHANNELS + 2];
          uint64_t w[GH_MAX_CHANNELS + 2];
          reference_pixel (spec, bins, row, mask, x, s, bin, w);
          add_pixel (spec, bins, table, x, s, bin, w, sums);
        }
    }
}

void
gh_reference_count_spec (const gh_run_spec *spec, int bins, const void *pixels, size_t stride,
                         const void *coverage, size_t coverage_stride, gh_u128 *sums)
{
  count_reference (spec, bins, TABLE_HISTOGRAM, pixels, stride, coverage, coverage_stride, sums);
}

void
gh_reference_count_scope (const gh_run_spec *spec, int bins, gh_scope_kind kind, const void *pixels,
                          size_t stride, const void *coverage, size_t coverage_stride,
                          gh_u128 *sums)
{
  count_reference (spec, bins, (int) kind, pixels, stride, coverage, coverage_stride, sums);
}
