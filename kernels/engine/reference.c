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

void
gh_reference_count_spec (const gh_run_spec *spec, int bins, const void *pixels, size_t stride,
                         const void *coverage, size_t coverage_stride, gh_u128 *sums)
{
  const int channels = spec->channels, out_channels = channels + (spec->derived ? 2 : 0);
  const uint32_t alpha_full = gh_full_scale (spec->bytes_per_sample);
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
          for (int c = 0; c < channels; c++)
            s[c] = sample_at (row, spec->bytes_per_sample, (size_t) x * channels + c);
          pixel_bins (spec, bins, s, bin);
          const uint32_t m = spec->coverage_bytes ? sample_at (mask, spec->coverage_bytes, x) : 1;
          const uint32_t a = spec->alpha_weighted ? s[channels - 1] : 1;
          for (int c = 0; c < out_channels; c++)
            {
              const int is_alpha = spec->alpha_weighted && c == channels - 1;
              const uint64_t w = is_alpha ? (uint64_t) m * alpha_full : (uint64_t) m * a;
              gh_u128_add64 (&sums[(size_t) c * bins + bin[c]], w);
            }
        }
    }
}
