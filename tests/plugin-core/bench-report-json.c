/* Not a test: how long writing a scopes run's JSON takes (tools/bench-report-json), on a
 * result made here with the shape of plug-in-gpu-scopes on an 8-bit RGBA layer under a feathered
 * selection with weighting gimp: six weighted channels (R, G, B, alpha, value, luminance) of 256
 * bins, their waveform of 1024 columns and the vectorscope, every cell a weight over 255 * 255
 * that is rarely whole.
 *
 *   bench-report-json ROUNDS PATH
 *
 * prints, round by round, the engine's writers alone into /dev/null (gh_write_json_begin and
 * gh_write_scopes_json) and the plug-in's whole gpuhist_report_write to PATH (a new file each
 * round, as the GIMP benchmark's), then again over the file it left (an existing file). */
#include <stdio.h>
#include <stdlib.h>

#include <glib/gstdio.h>

#include "report.h"

#define CHANNELS 6
#define COLUMNS 1024
#define BINS 256
#define DENOMINATOR (255u * 255u)

static uint64_t state = 0x9e3779b97f4a7c15ull;

static uint64_t
next_random (void)
{
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

/* A cell of about `pixels` pixels of random weight: one in 32 empty. */
static void
fill (gh_u128 *numerators, double *values, size_t n, uint64_t pixels)
{
  for (size_t i = 0; i < n; i++)
    {
      const uint64_t x = next_random () % 32 == 0 ? 0 : next_random () % (pixels * DENOMINATOR);
      numerators[i] = (gh_u128){ 0, x };
      values[i] = (double) x / DENOMINATOR;
    }
}

static void
make_scope (gh_scope *scope, int tables, int columns, int bins, uint64_t pixels)
{
  const size_t n = (size_t) tables * columns * bins;

  scope->tables = tables;
  for (int t = 0; t < tables; t++)
    scope->channel[t] = t;
  scope->columns = columns;
  scope->bins = bins;
  scope->numerators = calloc (n, sizeof *scope->numerators);
  scope->values = calloc (n, sizeof *scope->values);
  fill (scope->numerators, scope->values, n, pixels);
}

static void
make_report (GpuhistReport *report)
{
  static const char *const names[CHANNELS]
      = { "red", "green", "blue", "alpha", "value", "luminance" };
  gh_result *r = &report->layer;
  const size_t cells = (size_t) CHANNELS * BINS;

  r->channels = CHANNELS;
  r->input_channels = 4;
  r->derived = 1;
  r->weighted = 1;
  r->bins = BINS;
  r->denominator = DENOMINATOR;
  r->samples = 24000000;
  r->bytes = 24000000ull * 5;
  r->used_gpu = 1;
  g_strlcpy (r->backend, "a backend", sizeof r->backend);
  g_strlcpy (r->layout, "a layout", sizeof r->layout);
  r->numerators = calloc (cells, sizeof *r->numerators);
  r->values = calloc (cells, sizeof *r->values);
  fill (r->numerators, r->values, cells, 2 * 24000000 / BINS);
  make_scope (&r->scopes[GH_SCOPE_WAVEFORM], CHANNELS, COLUMNS, BINS,
              2 * 24000000 / COLUMNS / BINS);
  make_scope (&r->scopes[GH_SCOPE_VECTORSCOPE], 1, BINS, BINS, 1000);
  report->channels = CHANNELS;
  for (int c = 0; c < CHANNELS; c++)
    report->channel_names[c] = names[c];
  report->drawable_name = g_strdup ("layer");
  report->fetch_format = g_strdup ("R'G'B'A u8");
  report->requested_bins = 1024;
}

static double
engine_ms (const GpuhistReport *report)
{
  FILE *out = fopen ("/dev/null", "w");
  gint64 start = g_get_monotonic_time ();

  gh_write_json_begin (out, &report->layer, report->channel_names);
  gh_write_scopes_json (out, &report->layer, report->channel_names, 0);
  fclose (out);
  return (g_get_monotonic_time () - start) / 1000.0;
}

static double
whole_ms (const GpuhistReport *report, const char *path, gboolean fresh)
{
  GError *error = NULL;
  gint64 start;

  if (fresh)
    g_unlink (path);
  start = g_get_monotonic_time ();
  if (!gpuhist_report_write (report, path, &error))
    {
      g_printerr ("%s\n", error->message);
      exit (1);
    }
  return (g_get_monotonic_time () - start) / 1000.0;
}

int
main (int argc, char **argv)
{
  GpuhistReport report = { 0 };
  int rounds = argc > 1 ? atoi (argv[1]) : 5;
  const char *path = argc > 2 ? argv[2] : "/tmp/bench-report-json.json";

  make_report (&report);
  printf ("round engine_ms whole_new_file_ms whole_existing_file_ms\n");
  for (int i = 0; i < rounds; i++)
    {
      const double engine = engine_ms (&report);
      const double fresh = whole_ms (&report, path, TRUE);
      const double existing = whole_ms (&report, path, FALSE);

      printf ("%d %.1f %.1f %.1f\n", i, engine, fresh, existing);
    }
  gpuhist_report_clear (&report);
  return 0;
}
