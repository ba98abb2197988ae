/* gpu-histogram: the whole loop for an image in memory (gh_histogram_spec, gh_histogram_buffer)
 * or made by the backend (gh_histogram_pattern), and the retry on the CPU when the GPU fails. */
#include "engine_private.h"

#include <string.h>

static int
gpu_error_worth_a_retry (gh_status status)
{
  return status == GH_ERROR_GPU_FAILED || status == GH_ERROR_OUT_OF_MEMORY;
}

/* Copies `rows` rows of `row_bytes` from an image `stride` bytes a row apart into a strip. */
static void
copy_rows (uint8_t *strip, const uint8_t *image, size_t stride, size_t row_bytes, int rows)
{
  for (int r = 0; r < rows; r++)
    memcpy (strip + (size_t) r * row_bytes, image + (size_t) r * stride, row_bytes);
}

static gh_status
histogram_spec_once (gh_engine *engine, const gh_run_spec *spec, const uint8_t *pixels,
                     size_t stride, const uint8_t *coverage, size_t coverage_stride,
                     gh_result *result, gh_error *error)
{
  gh_run *run = gh_run_begin_spec (engine, spec, error);
  if (!run)
    return error ? error->status : GH_ERROR_INVALID_ARGUMENT;
  const size_t coverage_row = (size_t) spec->width * (size_t) spec->coverage_bytes;
  for (int y = 0; y < spec->height;)
    {
      int rows;
      uint8_t *strip = gh_run_strip_buffer (run, &rows);
      copy_rows (strip, pixels + (size_t) y * stride, stride, run->row_bytes, rows);
      if (coverage_row)
        copy_rows (gh_run_coverage_buffer (run), coverage + (size_t) y * coverage_stride,
                   coverage_stride, coverage_row, rows);
      gh_status status = gh_run_submit_strip (run, rows, error);
      if (status != GH_OK)
        {
          gh_run_abort (run);
          return status;
        }
      y += rows;
    }
  return gh_run_finish (run, result, error);
}

gh_status
gh_histogram_spec (gh_engine *engine, const gh_run_spec *spec, const void *pixels, size_t stride,
                   const void *coverage, size_t coverage_stride, gh_result *result, gh_error *error)
{
  gh_status status = gh_check_spec (engine, spec, error);
  if (status != GH_OK)
    return status;
  const size_t row_bytes
      = (size_t) spec->width * (size_t) spec->channels * (size_t) spec->bytes_per_sample;
  const size_t coverage_row = (size_t) spec->width * (size_t) spec->coverage_bytes;
  if (!pixels || stride < row_bytes
      || (coverage_row && (!coverage || coverage_stride < coverage_row)))
    {
      gh_error_set (error, GH_ERROR_INVALID_ARGUMENT,
                    "bad image: %d x %d, %d channels, stride %zu, coverage plane %s, stride %zu",
                    spec->width, spec->height, spec->channels, stride,
                    coverage ? "given" : "missing", coverage_stride);
      return GH_ERROR_INVALID_ARGUMENT;
    }
  status = histogram_spec_once (engine, spec, pixels, stride, coverage, coverage_stride, result,
                                error);
  if (gpu_error_worth_a_retry (status) && engine->uses_gpu)
    {
      gh_engine_fall_back_to_cpu (engine, error ? error->message : NULL);
      status = histogram_spec_once (engine, spec, pixels, stride, coverage, coverage_stride, result,
                                    error);
    }
  return status;
}

static gh_status
histogram_buffer (gh_engine *engine, const uint8_t *pixels, int width, int height, int channels,
                  int bytes_per_sample, size_t stride, gh_result *result, gh_error *error)
{
  if (!pixels || width <= 0 || height <= 0 || channels < 1 || channels > GH_MAX_CHANNELS
      || stride < (size_t) width * (size_t) channels * (size_t) bytes_per_sample)
    {
      gh_error_set (error, GH_ERROR_INVALID_ARGUMENT, "bad image: %d x %d, %d channels, stride %zu",
                    width, height, channels, stride);
      return GH_ERROR_INVALID_ARGUMENT;
    }
  gh_run_spec spec;
  gh_run_spec_init (&spec, width, height, channels, bytes_per_sample);
  return gh_histogram_spec (engine, &spec, pixels, stride, NULL, 0, result, error);
}

gh_status
gh_histogram_buffer (gh_engine *engine, const uint8_t *pixels, int width, int height, int channels,
                     size_t stride, gh_result *result, gh_error *error)
{
  return histogram_buffer (engine, pixels, width, height, channels, 1, stride, result, error);
}

gh_status
gh_histogram_buffer16 (gh_engine *engine, const uint16_t *pixels, int width, int height,
                       int channels, size_t stride_bytes, gh_result *result, gh_error *error)
{
  return histogram_buffer (engine, (const uint8_t *) pixels, width, height, channels, 2,
                           stride_bytes, result, error);
}

/* One strip of the pattern, made on the host word by word, exactly as the device makes it. */
static void
fill_pattern (uint8_t *strip, size_t bytes, gh_pattern pattern, uint64_t offset)
{
  for (size_t i = 0; i < bytes; i++)
    strip[i] = pattern == GH_PATTERN_FLAT
                   ? GH_FLAT_VALUE
                   : (uint8_t) (gh_pattern_word ((offset + i) / 4) >> (8 * ((offset + i) % 4)));
}

/* The pattern through a begun run: on the device where the backend makes patterns and the run
 * counts no more than the plain histogram, else made on the host strip by strip. */
static gh_status
count_pattern (gh_engine *engine, gh_run *run, gh_pattern pattern, int device, gh_result *result,
               gh_error *error)
{
  uint64_t offset = 0;
  for (int y = 0; y < run->height;)
    {
      int rows;
      uint8_t *strip = gh_run_strip_buffer (run, &rows);
      size_t bytes = (size_t) rows * run->row_bytes;
      gh_status status;
      if (device && gh_check_strip_rows (run, rows, error) == GH_OK)
        {
          status = engine->ops->pattern_strip (run->backend_run, pattern, bytes, offset, error);
          if (status == GH_OK)
            {
              run->rows_done += rows;
              run->strips_done++;
            }
        }
      else
        {
          fill_pattern (strip, bytes, pattern, offset);
          status = gh_run_submit_strip (run, rows, error);
        }
      if (status != GH_OK)
        {
          gh_run_abort (run);
          return status;
        }
      offset += bytes;
      y += rows;
    }
  return gh_run_finish (run, result, error);
}

static gh_status
histogram_pattern_once (gh_engine *engine, gh_pattern pattern, int width, int height, int channels,
                        gh_result *result, gh_error *error)
{
  gh_run *run = gh_run_begin (engine, width, height, channels, error);
  if (!run)
    return error ? error->status : GH_ERROR_INVALID_ARGUMENT;
  return count_pattern (engine, run, pattern, engine->ops->pattern_strip != NULL, result, error);
}

gh_status
gh_histogram_pattern (gh_engine *engine, gh_pattern pattern, int width, int height, int channels,
                      gh_result *result, gh_error *error)
{
  gh_status status
      = histogram_pattern_once (engine, pattern, width, height, channels, result, error);
  if (gpu_error_worth_a_retry (status) && engine->uses_gpu)
    {
      gh_engine_fall_back_to_cpu (engine, error ? error->message : NULL);
      status = histogram_pattern_once (engine, pattern, width, height, channels, result, error);
    }
  return status;
}

static gh_status
histogram_pattern_spec_once (gh_engine *engine, gh_pattern pattern, const gh_run_spec *spec,
                             gh_result *result, gh_error *error)
{
  gh_run *run = gh_run_begin_spec (engine, spec, error);
  if (!run)
    return error ? error->status : GH_ERROR_INVALID_ARGUMENT;
  return count_pattern (engine, run, pattern, 0, result, error);
}

gh_status
gh_histogram_pattern_spec (gh_engine *engine, gh_pattern pattern, const gh_run_spec *spec,
                           gh_result *result, gh_error *error)
{
  gh_run_spec plain = *spec;
  plain.coverage_bytes = 0;
  plain.alpha_weighted = 0;
  gh_status status = histogram_pattern_spec_once (engine, pattern, &plain, result, error);
  if (gpu_error_worth_a_retry (status) && engine->uses_gpu)
    {
      gh_engine_fall_back_to_cpu (engine, error ? error->message : NULL);
      status = histogram_pattern_spec_once (engine, pattern, &plain, result, error);
    }
  return status;
}
