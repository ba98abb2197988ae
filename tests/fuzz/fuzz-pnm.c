/* gpu-histogram: libFuzzer target for the Netpbm reader and the engine's input path.
 *
 * Any input: pnm_parse must either fail with a message, or describe an image that lies wholly
 * inside the input, whose samples respect maxval, and whose histogram the engine counts exactly
 * as the reference does.  The same bytes also go through pnm_parse_raw with a geometry taken
 * from their first bytes.  A broken promise traps, so libFuzzer reports it with the input.
 */
#include "fuzz.h"
#include "gpuhist.h"
#include "pnm.h"

#include <stdlib.h>
#include <string.h>

/* Bigger images add time per input and find nothing new. */
#define MAX_COUNTED_BYTES ((size_t) 1 << 16)
/* Small enough that most counted images take several strips. */
#define FUZZ_MEMORY_BUDGET ((size_t) 1 << 12)

static gh_engine *
cpu_engine (void)
{
  return fuzz_cpu_engine (2, FUZZ_MEMORY_BUDGET);
}

static void
check_image (const uint8_t *data, size_t size, const pnm_image *image)
{
  size_t row_bytes, image_bytes;
  uint64_t *reference, total;
  int x, y, c, b;

  REQUIRE (image->width > 0 && image->height > 0);
  REQUIRE (image->channels >= 1 && image->channels <= PNM_MAX_CHANNELS);
  REQUIRE (image->maxval >= 1 && image->maxval <= 65535);
  REQUIRE (image->bytes_per_sample == (image->maxval > 255 ? 2 : 1));
  for (c = 0; c < image->channels; c++)
    REQUIRE (image->channel_names[c] != NULL);
  row_bytes = (size_t) image->width * (size_t) image->channels * (size_t) image->bytes_per_sample;
  REQUIRE (image->stride >= row_bytes);
  REQUIRE (image->pixels >= data && image->pixels <= data + size);
  /* The last row needs no padding; everything before it does. */
  image_bytes = image->stride * (size_t) (image->height - 1) + row_bytes;
  REQUIRE (image_bytes <= size - (size_t) (image->pixels - data));

  if (image_bytes > MAX_COUNTED_BYTES)
    return;
  for (y = 0; y < image->height; y++)
    for (x = 0; x < image->width; x++)
      for (c = 0; c < image->channels; c++)
        REQUIRE (pnm_image_sample (image, x, y, c) <= image->maxval);
  if (image->bytes_per_sample != 1)
    return;

  reference = calloc ((size_t) image->channels * GH_BINS, sizeof *reference);
  REQUIRE (reference != NULL);
  gh_reference_count (image->pixels, image->width, image->height, image->channels, image->stride,
                      reference);
  for (c = 0; c < image->channels; c++)
    {
      total = 0;
      for (b = 0; b < GH_BINS; b++)
        total += reference[(size_t) c * GH_BINS + b];
      REQUIRE (total == (uint64_t) image->width * (uint64_t) image->height);
    }

  /* The engine's own input path: strips, staging copies and the CPU methods' tables. */
  if (row_bytes <= FUZZ_MEMORY_BUDGET / 2)
    {
      gh_result result;
      gh_error error;
      gh_status status
          = gh_histogram_buffer (cpu_engine (), image->pixels, image->width, image->height,
                                 image->channels, image->stride, &result, &error);
      REQUIRE (status == GH_OK);
      REQUIRE (result.channels == image->channels && result.bins == GH_BINS);
      REQUIRE (
          memcmp (result.counts, reference, (size_t) image->channels * GH_BINS * sizeof *reference)
          == 0);
      gh_result_clear (&result);
    }
  free (reference);
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  pnm_image image;
  char error[PNM_ERROR_SIZE];

  if (pnm_parse (data, size, &image, error, sizeof error) == PNM_OK)
    check_image (data, size, &image);
  else
    REQUIRE (error[0] != '\0' && image.pixels == NULL);

  /* Raw: the first four bytes choose a geometry (often an impossible one), the rest are samples. */
  if (size >= 4)
    {
      pnm_raw_geometry geometry;
      geometry.width = data[0] % 64;
      geometry.height = data[1] % 64;
      geometry.channels = data[2] % 6;
      geometry.stride = data[3] < 128 ? 0 : (size_t) (data[3] - 128);
      if (pnm_parse_raw (data + 4, size - 4, &geometry, &image, error, sizeof error) == PNM_OK)
        check_image (data + 4, size - 4, &image);
      else
        REQUIRE (error[0] != '\0' && image.pixels == NULL);
    }
  return 0;
}
