/* gpu-histogram: the scopes' JSON and CSV (gpuhist.h, gh_write_scopes_json, gh_write_scope_csv)
 * on results made by hand, against the same documents written here number by number with
 * printf: every digit of large counts, numerators past 2^64, counts in pixels with decimals, the
 * nesting and the timings. */
#include "gpuhist.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned __int128 u128;

static int failures;

static u128
u128_of (gh_u128 x)
{
  return (u128) x.hi << 64 | x.lo;
}

static void
print_u128 (FILE *out, u128 x)
{
  if (x >= 10)
    print_u128 (out, x / 10);
  fputc ('0' + (int) (x % 10), out);
}

/* numerator / denominator as gh_write_csv writes a weighted count: whole, or 6 decimals. */
static void
print_pixels (FILE *out, gh_u128 numerator, uint64_t denominator)
{
  const u128 n = u128_of (numerator);
  if (n % denominator == 0)
    {
      print_u128 (out, n / denominator);
      return;
    }
  const u128 millionths = (n % denominator * 1000000 + denominator / 2) / denominator;
  print_u128 (out, n / denominator + millionths / 1000000);
  fprintf (out, ".%06u", (unsigned) (millionths % 1000000));
}

/* 0: counts, 1: counts in pixels, 2: numerators as strings. */
static void
print_cell (FILE *out, const gh_result *result, const gh_scope *scope, int form, size_t i)
{
  if (form == 0)
    fprintf (out, "%" PRIu64, scope->counts[i]);
  else if (form == 1)
    print_pixels (out, scope->numerators[i], result->denominator);
  else
    {
      fputc ('"', out);
      print_u128 (out, u128_of (scope->numerators[i]));
      fputc ('"', out);
    }
}

/* [table: [column: [bins]]] (outer) or [column: [bins]]: one column a line. */
static void
print_cells (FILE *out, const gh_result *result, const gh_scope *scope, int form, int outer)
{
  size_t i = 0;
  fputs ("[", out);
  for (int t = 0; t < scope->tables; t++)
    {
      if (outer)
        fputs (t ? ",\n      [" : "\n      [", out);
      for (int c = 0; c < scope->columns; c++)
        {
          fputs (c ? ",\n       [" : outer ? "[" : "\n      [", out);
          for (int k = 0; k < scope->bins; k++)
            {
              if (k)
                fputc (',', out);
              print_cell (out, result, scope, form, i++);
            }
          fputs ("]", out);
        }
      if (outer)
        fputs ("]", out);
    }
  fputs ("]", out);
}

static void
print_timings (FILE *out, const gh_result *result, const gh_scope *scope)
{
  static const char *const keys[]
      = { "global_atomics", "privatized", "fastest", "read_only", "upload" };
  fputs (",\n    \"timings_ms\": {", out);
  for (int k = 0; k < GH_N_TIMINGS; k++)
    {
      const gh_timing *t = &scope->timing[k];
      fprintf (out, "%s\n      \"%s\": ", k ? "," : "", keys[k]);
      if (!t->runs)
        fputs ("null", out);
      else
        fprintf (out,
                 "{\"median\": %.6f, \"min\": %.6f, \"max\": %.6f, \"runs\": %d, \"gbps\": %.3f}",
                 t->median_ms, t->min_ms, t->max_ms, t->runs,
                 (double) result->bytes / (t->median_ms * 1e6));
    }
  fputs ("\n    }\n  }", out);
}

static void
print_scope (FILE *out, const gh_result *result, const gh_scope *scope, int outer, int numerators)
{
  if (result->weighted)
    fputs (",\n    \"weighted\": true", out);
  fputs (",\n    \"counts\": ", out);
  print_cells (out, result, scope, result->weighted ? 1 : 0, outer);
  if (result->weighted && numerators)
    {
      fputs (",\n    \"numerators\": ", out);
      print_cells (out, result, scope, 2, outer);
      fprintf (out, ",\n    \"denominator\": %" PRIu64, result->denominator);
    }
  print_timings (out, result, scope);
}

static void
print_expected (FILE *out, const gh_result *result, const char *const *names, int numerators)
{
  const gh_scope *w = &result->scopes[GH_SCOPE_WAVEFORM];
  fprintf (out, ",\n  \"waveform\": {\"columns\": %d, \"bins\": %d, \"channels\": [", w->columns,
           w->bins);
  for (int t = 0; t < w->tables; t++)
    fprintf (out, "%s\"%s\"", t ? ", " : "", names[w->channel[t]]);
  fputs ("]", out);
  print_scope (out, result, w, 1, numerators);
  fputs (",\n  \"vectorscope\": {\"size\": 256", out);
  print_scope (out, result, &result->scopes[GH_SCOPE_VECTORSCOPE], 0, numerators);
}

/* Cell values that exercise every length of digits, 0 and the extremes. */
static uint64_t
count_at (size_t i)
{
  static const uint64_t special[] = { 0,
                                      9,
                                      10,
                                      99,
                                      100,
                                      101,
                                      999999,
                                      1000000,
                                      UINT64_MAX,
                                      10000000000000000000ull,
                                      9999999999999999999ull };
  const size_t n = sizeof special / sizeof special[0];
  return i < n ? special[i] : (i * 2654435761u) % (UINT64_C (1) << (i % 40));
}

/* The waveform's shape: small, then large enough that several threads write it in chunks that
 * cross tables (gh_write_rows), at 256 and 1024 bins. */
typedef struct
{
  int tables, columns, bins;
} waveform_shape;

static const waveform_shape shapes[] = { { 3, 7, 256 }, { 5, 300, 256 }, { 2, 37, 1024 } };
static waveform_shape shape = { 3, 7, 256 };

static void
make_result (gh_result *result, int weighted)
{
  memset (result, 0, sizeof *result);
  result->channels = 5;
  result->input_channels = 3;
  result->derived = 1;
  result->weighted = weighted;
  result->denominator = weighted ? 65025 : 1;
  result->bytes = 123456789;
  gh_scope *w = &result->scopes[GH_SCOPE_WAVEFORM];
  *w = (gh_scope){ .tables = shape.tables, .columns = shape.columns, .bins = shape.bins };
  for (int t = 0; t < w->tables; t++)
    w->channel[t] = w->tables == 3 ? 2 * t : t;
  gh_scope *v = &result->scopes[GH_SCOPE_VECTORSCOPE];
  *v = (gh_scope){ .tables = 1, .columns = 256, .bins = 256 };
  v->timing[GH_TIME_FASTEST] = (gh_timing){ 1.25, 1.0, 2.5, 3 };
  w->timing[GH_TIME_READ_ONLY] = (gh_timing){ 0.5, 0.25, 0.75, 2 };
  for (int k = 0; k < GH_N_SCOPES; k++)
    {
      gh_scope *s = &result->scopes[k];
      const size_t cells = gh_scope_cells (s);
      if (weighted)
        {
          s->numerators = malloc (cells * sizeof *s->numerators);
          for (size_t i = 0; i < cells; i++)
            s->numerators[i] = (gh_u128){ i % 5 == 0 ? i % 7 : 0, count_at (i) };
        }
      else
        {
          s->counts = malloc (cells * sizeof *s->counts);
          for (size_t i = 0; i < cells; i++)
            s->counts[i] = count_at (i);
        }
    }
}

/* Compares a writer's document with the expected one; on a difference says where, after `what`. */
static void
compare_documents (const char *what, int status, const char *got, size_t got_size,
                   const char *expected, size_t expected_size)
{
  if (status == 0 && got_size == expected_size && memcmp (got, expected, got_size) == 0)
    return;
  size_t at = 0;
  while (at < got_size && at < expected_size && got[at] == expected[at])
    at++;
  printf ("FAIL %s: status %d, %zu bytes for %zu; first difference at %zu: got \"%.60s\", "
          "expected \"%.60s\"\n",
          what, status, got_size, expected_size, at, got + at, expected + at);
  failures++;
}

static void
free_scopes (gh_result *result)
{
  for (int k = 0; k < GH_N_SCOPES; k++)
    {
      free (result->scopes[k].counts);
      free (result->scopes[k].numerators);
    }
}

static const char *const names[] = { "red", "green", "blue", "value", "luminance" };

static void
check (int weighted, int numerators)
{
  gh_result result;
  char *got = NULL, *expected = NULL, what[128];
  size_t got_size = 0, expected_size = 0;
  make_result (&result, weighted);
  FILE *out = open_memstream (&got, &got_size);
  const int status = gh_write_scopes_json (out, &result, names, numerators);
  fclose (out);
  out = open_memstream (&expected, &expected_size);
  print_expected (out, &result, names, numerators);
  fclose (out);
  snprintf (what, sizeof what, "%d x %d x %d, weighted %d numerators %d, threads %s", shape.tables,
            shape.columns, shape.bins, weighted, numerators, getenv ("GPUHIST_WRITE_THREADS"));
  compare_documents (what, status, got, got_size, expected, expected_size);
  free (got);
  free (expected);
  free_scopes (&result);
}

/* gh_write_scope_csv's document, printf by printf (gpuhist.h). */
static void
print_expected_csv (FILE *out, const gh_result *result, gh_scope_kind kind, unsigned channels)
{
  const gh_scope *s = &result->scopes[kind];
  fputs (kind == GH_SCOPE_VECTORSCOPE ? "cr" : "channel,column", out);
  for (int k = 0; k < s->bins; k++)
    fprintf (out, ",%d", k);
  fputc ('\n', out);
  for (int t = 0; t < s->tables; t++)
    {
      if (kind == GH_SCOPE_WAVEFORM && channels && !((channels >> s->channel[t]) & 1u))
        continue;
      for (int c = 0; c < s->columns; c++)
        {
          if (kind == GH_SCOPE_WAVEFORM)
            fprintf (out, "%s,", names[s->channel[t]]);
          fprintf (out, "%d", c);
          for (int k = 0; k < s->bins; k++)
            {
              fputc (',', out);
              print_cell (out, result, s, result->weighted ? 1 : 0,
                          ((size_t) t * s->columns + c) * s->bins + k);
            }
          fputc ('\n', out);
        }
    }
}

static void
check_csv (int weighted, gh_scope_kind kind, unsigned channels)
{
  gh_result result;
  char *got = NULL, *expected = NULL, what[128];
  size_t got_size = 0, expected_size = 0;
  make_result (&result, weighted);
  FILE *out = open_memstream (&got, &got_size);
  const int status = gh_write_scope_csv (out, &result, kind, channels, names);
  fclose (out);
  out = open_memstream (&expected, &expected_size);
  print_expected_csv (out, &result, kind, channels);
  fclose (out);
  snprintf (what, sizeof what,
            "CSV of scope %d (%d x %d x %d), weighted %d, channels 0x%x, threads %s", (int) kind,
            shape.tables, shape.columns, shape.bins, weighted, channels,
            getenv ("GPUHIST_WRITE_THREADS"));
  compare_documents (what, status, got, got_size, expected, expected_size);
  free (got);
  free (expected);
  free_scopes (&result);
}

static void
check_all (void)
{
  for (int weighted = 0; weighted < 2; weighted++)
    {
      check_csv (weighted, GH_SCOPE_WAVEFORM, 0);
      check_csv (weighted, GH_SCOPE_WAVEFORM, 0x11); /* red and luminance */
      check_csv (weighted, GH_SCOPE_VECTORSCOPE, 0);
    }
  check (0, 0);
  check (0, 1); /* unweighted: no numerators whatever is asked */
  check (1, 0);
  check (1, 1);
}

int
main (void)
{
  /* The caller's thread alone, two threads, and more threads than this machine may have. */
  static const char *const threads[] = { "1", "2", "5" };
  for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
    for (size_t n = 0; n < sizeof threads / sizeof threads[0]; n++)
      {
        shape = shapes[k];
        setenv ("GPUHIST_WRITE_THREADS", threads[n], 1);
        check_all ();
      }
  if (!failures)
    printf ("scopes' JSON and CSV: every character as written with printf\n");
  return failures ? 1 : 0;
}
