/* Not a test: how long writing a scopes run's JSON takes, on a result made here with the shape
 * of plug-in-gpu-scopes (columns 0 = 1024) on
 *   rgba8   an 8-bit RGBA layer under a feathered selection, weighting gimp: six weighted
 *           channels (R, G, B, alpha, value, luminance) of 256 bins, their waveform and the
 *           vectorscope, every cell a weight over 255 * 255 that is rarely whole (the default);
 *   rgba16  the same 16-bit, at 1024 bins, weights over 65535 * 65535;
 *   gray8   a gray layer with alpha: two channels, no vectorscope;
 *   rgb8    an RGB layer, no selection: counts, unweighted.
 *
 *   bench-report-json [SHAPE] ROUNDS PATH
 *
 * prints, round by round, the engine's writers alone into /dev/null (gh_write_json_begin and
 * gh_write_scopes_json) and the plug-in's whole gpuhist_report_write to PATH (a new file each
 * round, as the GIMP benchmark's), then again over the file it left (an existing file).  With 0
 * rounds it writes PATH once: for comparing the documents of two builds. */
#include <stdio.h>
#include <stdlib.h>

#include <glib/gstdio.h>

#include "report.h"

#include <string.h>

#define COLUMNS 1024

typedef struct
{
  const char *name;
  int channels, input_channels, bins, vectorscope;
  uint64_t denominator; /* 1: unweighted */
} Shape;

static const Shape shapes[] = {
  { "rgba8", 6, 4, 256, 1, 255u * 255u },
  { "rgba16", 6, 4, 1024, 1, 65535ull * 65535u },
  { "gray8", 2, 2, 256, 0, 255u * 255u },
  { "rgb8", 5, 3, 256, 1, 1 },
};

static GRand *random_numbers;

static uint64_t
next_random (void)
{
  return (uint64_t) g_rand_int (random_numbers) << 32 | g_rand_int (random_numbers);
}

/* Cells of about `pixels` pixels of random weight, one in 32 empty, one in 8 whole: numerators
 * (weighted) or counts. */
static void
fill (const Shape *shape, uint64_t **counts, gh_u128 **numerators, double **values, size_t n,
      uint64_t pixels)
{
  const uint64_t d = shape->denominator;

  *values = calloc (n, sizeof **values);
  if (d == 1)
    *counts = calloc (n, sizeof **counts);
  else
    *numerators = calloc (n, sizeof **numerators);
  for (size_t i = 0; i < n; i++)
    {
      uint64_t x = next_random () % 32 == 0 ? 0 : next_random () % (pixels * d + 1);

      if (next_random () % 8 == 0)
        x -= x % d;
      if (d == 1)
        (*counts)[i] = x;
      else
        (*numerators)[i] = (gh_u128){ 0, x };
      (*values)[i] = (double) x / d;
    }
}

static void
make_scope (const Shape *shape, gh_scope *scope, int tables, int columns, int bins, uint64_t pixels)
{
  scope->tables = tables;
  for (int t = 0; t < tables; t++)
    scope->channel[t] = t;
  scope->columns = columns;
  scope->bins = bins;
  fill (shape, &scope->counts, &scope->numerators, &scope->values, (size_t) tables * columns * bins,
        pixels);
}

static void
make_report (const Shape *shape, GpuhistReport *report)
{
  static const char *const colour[] = { "red", "green", "blue", "alpha", "value", "luminance" };
  static const char *const rgb[] = { "red", "green", "blue", "value", "luminance" };
  static const char *const gray[] = { "gray", "alpha" };
  const char *const *names = shape->channels == 2 ? gray : shape->channels == 5 ? rgb : colour;
  gh_result *r = &report->layer;
  const int bins = shape->bins;

  r->channels = shape->channels;
  r->input_channels = shape->input_channels;
  r->derived = shape->channels > shape->input_channels;
  r->weighted = shape->denominator > 1;
  r->bins = bins;
  r->denominator = shape->denominator;
  r->samples = 24000000;
  r->bytes = 24000000ull * 5;
  r->used_gpu = 1;
  g_strlcpy (r->backend, "a backend", sizeof r->backend);
  g_strlcpy (r->layout, "a layout", sizeof r->layout);
  fill (shape, &r->counts, &r->numerators, &r->values, (size_t) r->channels * bins,
        2 * 24000000 / bins);
  make_scope (shape, &r->scopes[GH_SCOPE_WAVEFORM], r->channels, COLUMNS, bins,
              2 * 24000000 / COLUMNS / bins + 1);
  if (shape->vectorscope)
    make_scope (shape, &r->scopes[GH_SCOPE_VECTORSCOPE], 1, 256, 256, 1000);
  report->channels = r->channels;
  for (int c = 0; c < r->channels; c++)
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
  const Shape *shape = &shapes[0];
  int rounds;
  const char *path;

  for (size_t k = 0; argc > 1 && k < G_N_ELEMENTS (shapes); k++)
    if (strcmp (argv[1], shapes[k].name) == 0)
      {
        shape = &shapes[k];
        argc--;
        argv++;
      }
  rounds = argc > 1 ? atoi (argv[1]) : 5;
  path = argc > 2 ? argv[2] : "/tmp/bench-report-json.json";
  random_numbers = g_rand_new_with_seed (29);
  make_report (shape, &report);
  g_rand_free (random_numbers);
  if (rounds == 0)
    {
      whole_ms (&report, path, TRUE);
      gpuhist_report_clear (&report);
      return 0;
    }
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
