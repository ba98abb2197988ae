/* gpu-histogram: counting a source with the engine, and the flat and noise comparison.
 * See measure.h. */
#include <string.h>

#include <glib/gi18n-lib.h>
#include <gio/gio.h>

#include "measure.h"
#include "report.h"
#include "stream.h"

/* One pass over the layer.  Returns the engine's status; *error is set for anything else
 * (cancelled, unknown type), with GH_ERROR_CANCELLED or GH_ERROR_INVALID_ARGUMENT returned. */
int
gpuhist_waveform_columns (const GpuhistSettings *settings, int width)
{
  if (settings == NULL || !settings->scopes)
    return 0;
  if (settings->waveform_columns == GPUHIST_DEFAULT_COLUMNS)
    return MIN (GPUHIST_WIDE_COLUMNS, width);
  return settings->waveform_columns;
}

/* The scopes the settings ask for: the waveform of every channel counted, and the vectorscope
 * of sources with red, green and blue (RGB and indexed layers). */
static void
ask_for_scopes (gh_run_spec *spec, const GpuhistSource *source, const GpuhistSettings *settings)
{
  spec->waveform_columns = gpuhist_waveform_columns (settings, source->area.width);
  spec->vectorscope = spec->waveform_columns > 0 && source->derived;
}

static gh_status
measure_once (gh_engine *engine, GpuhistStream *stream, const GpuhistSettings *settings,
              gh_result *result, gh_error *gherr, GError **error)
{
  const GpuhistSource *source = stream->source;
  const GeglRectangle *area = &source->area;
  gh_run_spec spec;
  gh_run *run;
  gh_status status;
  int y = area->y;
  int end = area->y + area->height;
  gint64 begin = g_get_monotonic_time ();

  stream->fetch_us = stream->submit_us = stream->progress_us = stream->last_progress_us = 0;
  gh_run_spec_init (&spec, area->width, area->height, source->channels, stream->bytes_per_sample);
  spec.binning = GH_BINNING_GIMP;
  spec.derived = source->derived;
  spec.luminance = stream->luminance;
  spec.coverage_bytes = stream->plane_bytes;
  spec.alpha_weighted = source->alpha_weighs && !stream->coverage_threshold;
  ask_for_scopes (&spec, source, settings);
  run = gh_run_begin_spec (engine, &spec, gherr);
  stream->begin_us = g_get_monotonic_time () - begin;
  if (run == NULL)
    return gherr->status != GH_OK ? gherr->status : GH_ERROR_OUT_OF_MEMORY;

  gpuhist_stream_progress (stream, 0.0);
  while (y < end)
    {
      int max_rows = 0;
      uint8_t *strip;
      int rows;

      if (gpuhist_monitor_cancelled (stream->monitor))
        {
          gh_run_abort (run);
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, _ ("Cancelled."));
          return GH_ERROR_CANCELLED;
        }

      begin = g_get_monotonic_time ();
      strip = gh_run_strip_buffer (run, &max_rows);
      stream->submit_us += g_get_monotonic_time () - begin;
      if (strip == NULL || max_rows <= 0)
        {
          gh_run_abort (run);
          gherr->status = GH_ERROR_OUT_OF_MEMORY;
          g_strlcpy (gherr->message, _ ("The engine gave no memory for the pixels."),
                     sizeof gherr->message);
          return gherr->status;
        }
      rows = gpuhist_stream_read_band (stream, y, MIN (max_rows, end - y), strip,
                                       gh_run_coverage_buffer (run), error);
      if (rows == 0)
        {
          gh_run_abort (run);
          return GH_ERROR_INVALID_ARGUMENT;
        }
      begin = g_get_monotonic_time ();
      status = gh_run_submit_strip (run, rows, gherr);
      stream->submit_us += g_get_monotonic_time () - begin;
      if (status != GH_OK)
        {
          gh_run_abort (run);
          return status;
        }
      y += rows;
      gpuhist_stream_progress (stream, (double) (y - area->y) / area->height);
    }

  begin = g_get_monotonic_time ();
  status = gh_run_finish (run, result, gherr);
  stream->finish_us = g_get_monotonic_time () - begin;
  return status;
}

/* The engine's methods for a run: all of them, timed, or FASTEST once, untimed. */
static void
set_methods (gh_engine *engine, const GpuhistSettings *settings)
{
  int repetitions = settings ? MAX (0, settings->repetitions) : 0;

  gh_engine_set_methods (
      engine, repetitions > 0 ? GH_ALL_METHODS : GH_METHOD_BIT (GH_METHOD_FASTEST), repetitions);
}

/* TRUE when a failed GPU run is worth counting again on the CPU: only once, and only for the
 * GPU's own faults. */
static gboolean
should_fall_back (gh_engine *engine, gh_status status, int attempt)
{
  return (status == GH_ERROR_GPU_FAILED || status == GH_ERROR_OUT_OF_MEMORY) && attempt == 0
         && gh_engine_uses_gpu (engine);
}

/* The stream as the settings ask (stream.h), and the engine told the bins when the samples are
 * 16-bit. */
static gboolean
open_stream (gh_engine *engine, const GpuhistSource *source, const GpuhistSettings *settings,
             const GpuhistMonitor *monitor, int bins, GpuhistStream *stream, GError **error)
{
  gh_error gherr = { GH_OK, "" };

  if (!gpuhist_stream_open (stream, source, monitor, settings, error))
    return FALSE;
  if (stream->bytes_per_sample == 2
      && gh_engine_set_bins (engine, bins, GH_STRATEGY_AUTO, &gherr) != GH_OK)
    {
      gpuhist_stream_clear (stream);
      gpuhist_set_engine_error (error, &gherr);
      return FALSE;
    }
  return TRUE;
}

/* Counts the stream into report->layer, once more on the CPU after a GPU fault. */
static gboolean
count_layer (gh_engine *engine, GpuhistStream *stream, const GpuhistSettings *settings,
             GpuhistReport *report, GError **error)
{
  for (int attempt = 0;; attempt++)
    {
      gh_error gherr = { GH_OK, "" };
      GError *local = NULL;
      gh_status status = measure_once (engine, stream, settings, &report->layer, &gherr, &local);

      if (status == GH_OK)
        return TRUE;
      gpuhist_result_reset (&report->layer);
      if (local != NULL)
        {
          g_propagate_error (error, local);
          return FALSE;
        }
      if (!should_fall_back (engine, status, attempt))
        {
          gpuhist_set_engine_error (error, &gherr);
          return FALSE;
        }
      /* The run is lost; count again on the CPU, which says why in the backend line. */
      gh_engine_fall_back_to_cpu (engine, gherr.message);
    }
}

gboolean
gpuhist_measure (gh_engine *engine, const GpuhistSource *source, const GpuhistSettings *settings,
                 const GpuhistMonitor *monitor, GpuhistReport *report, GError **error)
{
  return gpuhist_measure_bands (engine, source, settings, monitor, NULL, NULL, report, error);
}

gboolean
gpuhist_measure_bands (gh_engine *engine, const GpuhistSource *source,
                       const GpuhistSettings *settings, const GpuhistMonitor *monitor,
                       GpuhistBandReader reader, gpointer reader_data, GpuhistReport *report,
                       GError **error)
{
  GpuhistStream stream;
  gint64 start;
  int bins = settings && settings->bins > 0 ? settings->bins : GH_BINS;

  g_return_val_if_fail (engine != NULL && source != NULL && report != NULL, FALSE);

  gpuhist_report_clear (report);
  if (!open_stream (engine, source, settings, monitor, bins, &stream, error))
    return FALSE;
  stream.reader = reader;
  stream.reader_data = reader_data;
  set_methods (engine, settings);

  start = g_get_monotonic_time ();
  if (!count_layer (engine, &stream, settings, report, error))
    {
      gpuhist_stream_clear (&stream);
      return FALSE;
    }
  gpuhist_stream_clear (&stream);

  report->fetch_ms = stream.fetch_us / 1000.0;
  report->total_ms = (g_get_monotonic_time () - start) / 1000.0;
  report->begin_ms = stream.begin_us / 1000.0;
  report->submit_ms = stream.submit_us / 1000.0;
  report->finish_ms = stream.finish_us / 1000.0;
  report->progress_ms = stream.progress_us / 1000.0;
  gpuhist_report_set_channels (report, source);
  report->drawable_name = g_strdup (source->drawable_name ? source->drawable_name : "");
  report->area = source->area;
  report->linear = settings ? settings->linear : FALSE;
  report->fetch_format = g_strdup (babl_get_name (stream.fetch_format));
  report->requested_bins = bins;
  report->weighting = settings ? settings->weighting : GPUHIST_WEIGHTING_GIMP;
  report->source_kind = settings ? settings->source : GPUHIST_SOURCE_DRAWABLE;
  report->drawable_kind = source->kind;
  report->selection = source->coverage_bytes > 0;
  report->layer_alpha = source->alpha_weighs;
  gpuhist_monitor_progress (monitor, 1.0);
  return TRUE;
}

/* A pattern counted as the layer was, scopes included, when the layer has scopes: so that
 * their tables' contention can be compared too.  FALSE: the plain histogram's pattern. */
static gboolean
pattern_spec (const GpuhistReport *report, gh_run_spec *spec)
{
  const gh_result *layer = &report->layer;

  if (layer->scopes[GH_SCOPE_WAVEFORM].tables == 0
      && layer->scopes[GH_SCOPE_VECTORSCOPE].tables == 0)
    return FALSE;
  gh_run_spec_init (spec, report->area.width, report->area.height, layer->input_channels,
                    layer->bins > GH_BINS ? 2 : 1);
  spec->binning = GH_BINNING_GIMP;
  spec->derived = layer->derived;
  spec->luminance = layer->luminance;
  spec->waveform_columns = layer->scopes[GH_SCOPE_WAVEFORM].columns;
  spec->vectorscope = layer->scopes[GH_SCOPE_VECTORSCOPE].tables > 0;
  return TRUE;
}

static gboolean
run_pattern (gh_engine *engine, gh_pattern pattern, const GpuhistReport *report, gh_result *result,
             GError **error)
{
  gh_run_spec spec;
  const gboolean scopes = pattern_spec (report, &spec);

  for (int attempt = 0;; attempt++)
    {
      gh_error gherr = { GH_OK, "" };
      gh_status status
          = scopes ? gh_histogram_pattern_spec (engine, pattern, &spec, result, &gherr)
                   : gh_histogram_pattern (engine, pattern, report->area.width, report->area.height,
                                           report->layer.input_channels, result, &gherr);
      if (status == GH_OK)
        return TRUE;
      gpuhist_result_reset (result);
      if (should_fall_back (engine, status, attempt))
        {
          gh_engine_fall_back_to_cpu (engine, gherr.message);
          continue;
        }
      gpuhist_set_engine_error (error, &gherr);
      return FALSE;
    }
}

gboolean
gpuhist_compare_patterns (gh_engine *engine, const GpuhistSettings *settings, GpuhistReport *report,
                          GError **error)
{
  g_return_val_if_fail (engine != NULL && report != NULL, FALSE);
  if (report->layer.input_channels < 1 || report->area.width <= 0 || report->area.height <= 0)
    {
      g_set_error (error, GPUHIST_ERROR, GPUHIST_ERROR_INVALID_ARGUMENT,
                   _ ("Measure the layer before comparing it with flat and noisy images."));
      return FALSE;
    }

  set_methods (engine, settings);
  gpuhist_report_reset_comparison (report);

  for (int p = 0; p < GH_N_PATTERNS; p++)
    if (!run_pattern (engine, (gh_pattern) p, report, &report->patterns[p], error))
      {
        gpuhist_report_reset_comparison (report);
        return FALSE;
      }
  return TRUE;
}
