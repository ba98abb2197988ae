/* gpu-histogram: the scopes' benchmark (`GPUHIST_BENCH_ONLY=scopes gpuhist --bench`).
 *
 * Through the engine's own API, as the plug-in and gpuhist count: 16384 x 16384 RGBA (1 GiB) of
 * uniform noise, the photo tiled and one flat colour, uploaded strip by strip; each scope in a
 * run of its own, every method timed alone on every strip (repetitions, medians of the strips'
 * sums), against the read-only pass over the same bytes in the same run.  The waveform is
 * 1024 columns x 256 bins of red, green, blue and luminance; the vectorscope 256 x 256.  Then the
 * same weighted: a coverage plane (a feathered disc) beside the pixels, alpha-weighted, where the
 * read-only pass reads the plane too.  Every method's tables must agree (the engine checks). */
#include "benchmark.h"

#include <stdlib.h>
#include <string.h>

#define SIDE 16384
#define WAVEFORM_COLUMNS 1024
/* Red, green, blue and luminance of an RGBA run with derived channels (R G B A V L). */
#define WAVEFORM_RGBL 0x27u

typedef struct
{
  const char *name;
  uint8_t *pixels;
} scope_input;

static uint64_t
next_random (uint64_t *state)
{
  *state ^= *state >> 12;
  *state ^= *state << 25;
  *state ^= *state >> 27;
  return *state * 0x2545F4914F6CDD1Dull;
}

static uint8_t *
make_input (int kind, const gh_bench_image *photo)
{
  const size_t pixels = (size_t) SIDE * SIDE;
  uint8_t *p = malloc (pixels * 4);
  uint64_t state = 0x9E3779B97F4A7C15ull;
  for (size_t i = 0; p && i < pixels; i++)
    {
      uint8_t *o = p + i * 4;
      if (kind == 0)
        {
          const uint64_t r = next_random (&state);
          memcpy (o, &r, 4);
        }
      else if (kind == 1)
        {
          const size_t x = i % SIDE % (size_t) photo->width, y = i / SIDE % (size_t) photo->height;
          const uint8_t *q = photo->pixels + (y * (size_t) photo->width + x) * photo->channels;
          for (int c = 0; c < 3; c++)
            o[c] = q[photo->channels < 3 ? 0 : c];
          o[3] = photo->channels == 4 ? q[3] : 255;
        }
      else
        memcpy (o, "\x5a\x96\xc8\xff", 4);
    }
  return p;
}

/* A feathered disc over the whole image: 255 inside, 0 outside, a ramp between. */
static uint8_t *
make_coverage (void)
{
  uint8_t *m = malloc ((size_t) SIDE * SIDE);
  for (size_t y = 0; m && y < SIDE; y++)
    for (size_t x = 0; x < SIDE; x++)
      {
        const double dx = (double) x - SIDE / 2, dy = (double) y - SIDE / 2;
        const double d = (dx * dx + dy * dy) / ((double) SIDE * SIDE / 4);
        m[y * SIDE + x] = d < 0.8 ? 255 : d > 1.0 ? 0 : (uint8_t) (255 * (1.0 - d) / 0.2);
      }
  return m;
}

static gh_status
run_scope (gh_engine *engine, const uint8_t *pixels, const uint8_t *coverage, int kind,
           gh_result *result, gh_error *error)
{
  gh_run_spec spec;
  gh_run_spec_init (&spec, SIDE, SIDE, 4, 1);
  spec.derived = kind == GH_SCOPE_WAVEFORM;
  spec.waveform_columns = kind == GH_SCOPE_WAVEFORM ? WAVEFORM_COLUMNS : 0;
  spec.waveform_channels = kind == GH_SCOPE_WAVEFORM ? WAVEFORM_RGBL : 0;
  spec.vectorscope = kind == GH_SCOPE_VECTORSCOPE;
  spec.coverage_bytes = coverage ? 1 : 0;
  spec.alpha_weighted = coverage != NULL;
  return gh_histogram_spec (engine, &spec, pixels, (size_t) SIDE * 4, coverage, SIDE, result,
                            error);
}

static void
print_row (FILE *out, const char *input, const char *table, const gh_result *r, int kind)
{
  const gh_scope *s = &r->scopes[kind];
  const double ceiling = r->timing[GH_TIME_READ_ONLY].median_ms;
  fprintf (out, "| %s | %s |", input, table);
  for (int m = GH_METHOD_GLOBAL_ATOMICS; m <= GH_METHOD_FASTEST; m++)
    if (s->timing[m].runs > 0)
      fprintf (out, " %.3f (%.1f %%) |", s->timing[m].median_ms,
               100.0 * ceiling / s->timing[m].median_ms);
    else
      fprintf (out, " not run |");
  fprintf (out, " %.3f |\n", ceiling);
}

gh_status
gh_bench_scopes (FILE *out, const gh_bench_options *options, gh_error *error)
{
  gh_options o;
  gh_options_init (&o);
  o.backend = GH_BACKEND_CUDA;
  o.device = options->device;
  o.methods = GH_ALL_METHODS;
  o.repetitions = options->repetitions;
  gh_engine *engine = gh_engine_new (&o, error);
  if (!engine)
    return error->status;
  fprintf (out, "### Scopes, 16384 x 16384 RGBA (1 GiB), %s\n\n", gh_engine_backend (engine));
  fprintf (out,
           "Medians of %d repetitions of each strip, summed over the strips; in brackets the "
           "read-only pass's share of the method's time.\n\n",
           o.repetitions);
  fprintf (out, "| input | table | global atomics ms | privatized ms | fastest ms | read-only "
                "ms |\n|---|---|---|---|---|---|\n");
  static const char *const names[] = { "uniform noise", "photo, tiled", "flat colour" };
  uint8_t *coverage = make_coverage ();
  gh_status status = coverage ? GH_OK : GH_ERROR_OUT_OF_MEMORY;
  for (int input = 0; input < 3 && status == GH_OK; input++)
    {
      if (input == 1 && !options->photo)
        continue;
      uint8_t *pixels = make_input (input, options->photo);
      for (int weighted = 0; weighted < 2 && pixels && status == GH_OK; weighted++)
        for (int kind = 0; kind < GH_N_SCOPES && status == GH_OK; kind++)
          {
            gh_result r;
            status = run_scope (engine, pixels, weighted ? coverage : NULL, kind, &r, error);
            if (status != GH_OK)
              break;
            char table[64];
            snprintf (table, sizeof table, "%s%s",
                      kind == GH_SCOPE_WAVEFORM ? "waveform 1024 x 256 x RGBL" : "vectorscope",
                      weighted ? ", weighted" : "");
            print_row (out, names[input], table, &r, kind);
            fflush (out);
            gh_result_clear (&r);
          }
      if (!pixels)
        status = GH_ERROR_OUT_OF_MEMORY;
      free (pixels);
    }
  free (coverage);
  gh_engine_free (engine);
  return status;
}
