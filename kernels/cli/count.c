/* gpu-histogram: one image source counted by the engine, strip by strip. */
#include "count.h"

#include <stdio.h>
#include <string.h>

/* Where the rows go: the run's current strip, filled up to max_rows, then submitted. */
typedef struct
{
  gh_run *run;
  uint8_t *strip;
  uint8_t *coverage;
  int max_rows;
  int filled;
  size_t row_bytes;
  size_t plane_row;
  gh_error engine_error; /* the engine's status when it stopped the stream */
} feeder;

gh_binning
count_binning (const count_request *request, const image_info *info)
{
  if (request->binning_given)
    return request->binning;
  /* Float values are GIMP's own domain: bin them as GIMP does.  Integer levels keep the rule
   * that gives every bin the same number of levels (and today's counts). */
  return info->narrowed ? GH_BINNING_GIMP : GH_BINNING_SHIFT;
}

static void
copy_rows (uint8_t *to, size_t row_bytes, const uint8_t *from, size_t stride, int rows)
{
  if (stride == row_bytes)
    {
      memcpy (to, from, row_bytes * (size_t) rows);
      return;
    }
  for (int r = 0; r < rows; r++)
    memcpy (to + (size_t) r * row_bytes, from + (size_t) r * stride, row_bytes);
}

static int
submit (feeder *feed)
{
  if (gh_run_submit_strip (feed->run, feed->filled, &feed->engine_error) != GH_OK)
    return -1;
  feed->filled = 0;
  feed->strip = gh_run_strip_buffer (feed->run, &feed->max_rows);
  feed->coverage = gh_run_coverage_buffer (feed->run);
  return 0;
}

static gh_status
engine_failed (const gh_error *error, char *message, size_t message_size)
{
  snprintf (message, message_size, "%s (%s)", error->message, gh_status_name (error->status));
  return error->status;
}

/* source_rows_fn: the source's rows into the strip buffers. */
static int
take_rows (void *user, const uint8_t *samples, size_t stride, const uint8_t *coverage,
           size_t coverage_stride, int first_row, int rows, char *error, size_t error_size)
{
  feeder *feed = user;
  (void) first_row; /* sources stream in order */

  while (rows > 0)
    {
      int n = feed->max_rows - feed->filled < rows ? feed->max_rows - feed->filled : rows;
      copy_rows (feed->strip + (size_t) feed->filled * feed->row_bytes, feed->row_bytes, samples,
                 stride, n);
      if (coverage && feed->coverage)
        copy_rows (feed->coverage + (size_t) feed->filled * feed->plane_row, feed->plane_row,
                   coverage, coverage_stride, n);
      feed->filled += n;
      samples += (size_t) n * stride;
      coverage = coverage ? coverage + (size_t) n * coverage_stride : NULL;
      rows -= n;
      if (feed->filled == feed->max_rows && submit (feed))
        {
          engine_failed (&feed->engine_error, error, error_size);
          return -1;
        }
    }
  return 0;
}

static gh_run *
begin_run (gh_engine *engine, const image_info *info, const count_request *request, gh_error *error)
{
  gh_run_spec spec;

  gh_run_spec_init (&spec, info->width, info->height, info->channels, info->bytes_per_sample);
  spec.binning = count_binning (request, info);
  spec.coverage_bytes = info->coverage_bytes;
  spec.alpha_weighted = request->alpha_weighted;
  spec.derived = request->derived;
  spec.luminance = request->luminance;
  spec.waveform_columns = request->waveform_columns;
  spec.vectorscope = request->vectorscope;
  return gh_run_begin_spec (engine, &spec, error);
}

/* One pass over the source.  Returns the engine's status (GH_OK also when the source failed:
 * *source_failed says so). */
static gh_status
count_once (gh_engine *engine, image_source *source, const count_request *request,
            gh_result *result, int *source_failed, char *message, size_t message_size)
{
  const image_info *info = &source->info;
  feeder feed = { 0 };

  *source_failed = 0;
  feed.run = begin_run (engine, info, request, &feed.engine_error);
  if (!feed.run)
    return engine_failed (&feed.engine_error, message, message_size);
  feed.row_bytes = (size_t) info->width * info->channels * info->bytes_per_sample;
  feed.plane_row = (size_t) info->width * info->coverage_bytes;
  feed.strip = gh_run_strip_buffer (feed.run, &feed.max_rows);
  feed.coverage = gh_run_coverage_buffer (feed.run);

  if (source->stream (source, take_rows, &feed, message, message_size)
      || (feed.filled && submit (&feed)))
    {
      gh_run_abort (feed.run);
      if (feed.engine_error.status != GH_OK)
        return engine_failed (&feed.engine_error, message, message_size);
      *source_failed = 1;
      return GH_OK;
    }
  if (gh_run_finish (feed.run, result, &feed.engine_error) != GH_OK)
    return engine_failed (&feed.engine_error, message, message_size);
  return GH_OK;
}

int
count_source (gh_engine *engine, image_source *source, const count_request *request,
              gh_result *result, char *message, size_t message_size)
{
  int source_failed;
  gh_status status
      = count_once (engine, source, request, result, &source_failed, message, message_size);

  if ((status == GH_ERROR_GPU_FAILED || status == GH_ERROR_OUT_OF_MEMORY)
      && gh_engine_uses_gpu (engine))
    {
      gh_engine_fall_back_to_cpu (engine, message);
      status = count_once (engine, source, request, result, &source_failed, message, message_size);
    }
  if (source_failed)
    return -1;
  return status == GH_OK ? 0 : -1;
}
