/* gpu-histogram: libFuzzer target for gpuhist's libvips path (vips-source.c and count.c).
 *
 * Any input: libvips opens it from memory (any loader it has), and the source either fails with
 * a message or streams an image that the engine counts: every pixel once in every channel, no
 * more.  Memory errors, leaks of our own and undefined behaviour are the sanitizers' to report.
 * Seeds: tools/fuzz makes small PNG, JPEG, TIFF and WebP files (none committed).
 */
#include "count.h"
#include "fuzz.h"
#include "gpuhist.h"
#include "image-source.h"

#include <stdlib.h>

/* Bigger images add time per input and find nothing new. */
#define MAX_PIXELS (1 << 20)
#define FUZZ_MEMORY_BUDGET ((size_t) 1 << 14)

static gh_engine *
cpu_engine (void)
{
  static int started;
  if (!started)
    {
      char message[SOURCE_ERROR_SIZE];
      REQUIRE (vips_source_init ("fuzz-vips", 1, message, sizeof message) == 0);
      started = 1;
    }
  return fuzz_cpu_engine (1, FUZZ_MEMORY_BUDGET);
}

/* Every channel's counts add up to the pixels. */
static void
check_result (const gh_result *result, const image_info *info)
{
  const uint64_t pixels = (uint64_t) info->width * (uint64_t) info->height;
  REQUIRE (result->samples == pixels);
  REQUIRE (result->channels == info->channels);
  for (int c = 0; c < result->channels; c++)
    {
      uint64_t total = 0;
      for (int b = 0; b < result->bins; b++)
        total += result->counts[(size_t) c * result->bins + b];
      REQUIRE (total == pixels);
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  gh_engine *engine = cpu_engine ();
  source_request request = { .path = "fuzz input", .buffer = data, .buffer_size = size };
  count_request count = { 0 };
  char message[SOURCE_ERROR_SIZE] = "";
  gh_result result;

  image_source *source = vips_source_open (&request, message, sizeof message);
  if (!source)
    {
      REQUIRE (message[0] != '\0');
      return 0;
    }
  const image_info *info = &source->info;
  REQUIRE (info->width > 0 && info->height > 0 && info->channels >= 1 && info->channels <= 4);
  if ((uint64_t) info->width * (uint64_t) info->height <= MAX_PIXELS)
    {
      if (count_source (engine, source, &count, &result, message, sizeof message) == 0)
        {
          check_result (&result, info);
          gh_result_clear (&result);
        }
      else
        REQUIRE (message[0] != '\0');
    }
  source->close (source);
  return 0;
}
