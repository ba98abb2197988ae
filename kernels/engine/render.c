/* gpu-histogram: charts from a result's scopes (gpuhist.h, gh_render_chart): which tables a
 * chart draws, in which colours and where; render_density.c draws them, render_graticule.c
 * marks them. */
#include "backend.h"
#include "render_private.h"

#include <limits.h>

/* What a result channel holds, for its colour. */
typedef enum
{
  ROLE_RED,
  ROLE_GREEN,
  ROLE_BLUE,
  ROLE_GRAY,
  ROLE_ALPHA,
  ROLE_VALUE,
  ROLE_LUMINANCE
} channel_role;

static const double role_colours[][3] = {
  { 1, 0, 0 },       { 0, 1, 0 },          { 0, 0, 1 }, { 1, 1, 1 },
  { 0.5, 0.5, 0.5 }, { 0.75, 0.75, 0.75 }, { 1, 1, 1 },
};

static channel_role
role_of (const gh_result *result, int c)
{
  if (c >= result->input_channels)
    return c == result->input_channels ? ROLE_VALUE : ROLE_LUMINANCE;
  if (result->input_channels <= 2)
    return c == 0 ? ROLE_GRAY : ROLE_ALPHA;
  return c < 3 ? (channel_role) c : ROLE_ALPHA;
}

void
gh_render_options_init (gh_render_options *options)
{
  options->density = GH_DENSITY_LOG;
  options->gain = 1;
  options->channels = 0;
  options->graticule = 1;
  options->skin_tone_line = 1;
  options->bgra = 0;
}

/* The waveform's table of result channel c, or -1. */
static int
table_of_channel (const gh_scope *waveform, int c)
{
  for (int t = 0; t < waveform->tables; t++)
    if (waveform->channel[t] == c)
      return t;
  return -1;
}

static gh_status
check_drawable (const gh_result *result, gh_chart chart, gh_error *error)
{
  const gh_scope *scope
      = &result->scopes[chart == GH_CHART_VECTORSCOPE ? GH_SCOPE_VECTORSCOPE : GH_SCOPE_WAVEFORM];
  if (chart < 0 || chart >= GH_N_CHARTS)
    gh_error_set (error, GH_ERROR_INVALID_ARGUMENT, "unknown chart %d", (int) chart);
  else if (scope->tables == 0 || !scope->values)
    gh_error_set (error, GH_ERROR_INVALID_ARGUMENT, "the %s was not counted",
                  chart == GH_CHART_VECTORSCOPE ? "vectorscope" : "waveform");
  else if (chart == GH_CHART_PARADE
           && (result->input_channels < 3 || table_of_channel (scope, 0) < 0
               || table_of_channel (scope, 1) < 0 || table_of_channel (scope, 2) < 0))
    gh_error_set (error, GH_ERROR_INVALID_ARGUMENT,
                  "a parade needs the waveforms of red, green and blue");
  else
    return GH_OK;
  return GH_ERROR_INVALID_ARGUMENT;
}

gh_status
gh_render_natural_size (const gh_result *result, gh_chart chart, int *width, int *height,
                        gh_error *error)
{
  gh_status status = check_drawable (result, chart, error);
  if (status != GH_OK)
    return status;
  const gh_scope *waveform = &result->scopes[GH_SCOPE_WAVEFORM];
  if (chart == GH_CHART_VECTORSCOPE)
    *width = *height = GH_VECTORSCOPE_SIZE;
  else
    {
      if (chart == GH_CHART_PARADE && waveform->columns > INT_MAX / 3)
        {
          gh_error_set (error, GH_ERROR_INVALID_ARGUMENT,
                        "a parade of %d columns is wider than a chart can be", waveform->columns);
          return GH_ERROR_INVALID_ARGUMENT;
        }
      *width = (chart == GH_CHART_PARADE ? 3 : 1) * waveform->columns;
      *height = waveform->bins < 1024 ? waveform->bins : 1024;
    }
  return GH_OK;
}

/* Table t of a waveform across output columns [x0, x1), in its channel's colour. */
static render_layer
waveform_layer (const gh_result *result, int t, int x0, int x1)
{
  const gh_scope *w = &result->scopes[GH_SCOPE_WAVEFORM];
  /* Columns run across, bins up: cell (h, v) is column h's bin v. */
  render_layer layer = { .cells = w->values + (size_t) t * w->columns * w->bins,
                         .h_stride = (size_t) w->bins,
                         .v_stride = 1,
                         .h_cells = w->columns,
                         .v_cells = w->bins,
                         .x0 = x0,
                         .x1 = x1 };
  const channel_role role = role_of (result, w->channel[t]);
  for (int c = 0; c < 3; c++)
    layer.colour[c] = role_colours[role][c];
  return layer;
}

/* The chart's layers; returns how many. */
static int
chart_layers (const gh_result *result, gh_chart chart, const gh_render_options *options, int width,
              render_layer *layers)
{
  const gh_scope *w = &result->scopes[GH_SCOPE_WAVEFORM];
  int n = 0;
  if (chart == GH_CHART_VECTORSCOPE)
    {
      const gh_scope *v = &result->scopes[GH_SCOPE_VECTORSCOPE];
      /* Cb runs across, Cr up: cell (cb, cr) is row cr's cell cb. */
      layers[n++] = (render_layer){ .cells = v->values,
                                    .h_stride = 1,
                                    .v_stride = (size_t) v->bins,
                                    .h_cells = v->bins,
                                    .v_cells = v->columns,
                                    .colour = { 1, 1, 1 },
                                    .x0 = 0,
                                    .x1 = width };
    }
  else if (chart == GH_CHART_PARADE)
    for (int p = 0; p < 3; p++)
      {
        const int x0 = (int) ((int64_t) p * width / 3), x1 = (int) ((int64_t) (p + 1) * width / 3);
        if (x1 > x0)
          layers[n++] = waveform_layer (result, table_of_channel (w, p), x0, x1);
      }
  else
    for (int t = 0; t < w->tables; t++)
      if (!options->channels || ((options->channels >> w->channel[t]) & 1u))
        layers[n++] = waveform_layer (result, t, 0, width);
  return n;
}

gh_status
gh_render_chart (const gh_result *result, gh_chart chart, const gh_render_options *options,
                 int width, int height, uint8_t *pixels, size_t stride, gh_error *error)
{
  render_layer layers[GH_MAX_CHANNELS + 2];
  gh_status status = check_drawable (result, chart, error);
  if (status != GH_OK)
    return status;
  if (width < 1 || height < 1 || !pixels || stride / 4 < (size_t) width || !(options->gain > 0))
    {
      gh_error_set (error, GH_ERROR_INVALID_ARGUMENT,
                    "a chart needs a size of at least 1 x 1, rows of at least 4 bytes a pixel "
                    "and a gain above 0 (got %d x %d, %zu bytes a row, gain %g)",
                    width, height, stride, options->gain);
      return GH_ERROR_INVALID_ARGUMENT;
    }
  const int n = chart_layers (result, chart, options, width, layers);
  status = gh_render_density (layers, n, options, width, height, pixels, stride, error);
  if (status != GH_OK || !options->graticule)
    return status;
  if (chart == GH_CHART_VECTORSCOPE)
    gh_render_vectorscope_marks (pixels, stride, width, height, options->skin_tone_line,
                                 options->bgra);
  else
    gh_render_level_lines (pixels, stride, width, height);
  return GH_OK;
}
