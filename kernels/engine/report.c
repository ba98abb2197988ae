/* gpu-histogram: names, and results written as CSV and JSON. */
#include "gpuhist.h"

#include <inttypes.h>
#include <string.h>

const char *
gh_method_name (gh_method method)
{
  static const char *const names[GH_N_METHODS]
      = { "global atomics", "privatized", "fastest", "read-only" };
  return method < GH_N_METHODS ? names[method] : "unknown";
}

const char *
gh_timing_name (gh_timing_kind kind)
{
  return kind == GH_TIME_UPLOAD ? "upload" : gh_method_name ((gh_method) kind);
}

const char *
gh_status_name (gh_status status)
{
  static const char *const names[] = {
    "ok",         "invalid argument", "no driver", "driver too old", "no device", "out of memory",
    "GPU failed", "not built",        "mismatch",  "unsupported",    "cancelled",
  };
  return (size_t) status < sizeof names / sizeof names[0] ? names[status] : "unknown";
}

const char *
gh_strategy_name (gh_strategy strategy)
{
  static const char *const names[] = { "auto", "shared", "narrow", "sliced", "global copies" };
  return (size_t) strategy < sizeof names / sizeof names[0] ? names[strategy] : "unknown";
}

const char *
gh_luminance_name (gh_luminance rule)
{
  static const char *const names[] = { "gimp2", "gimp3", "gimp3-linear" };
  return (size_t) rule < sizeof names / sizeof names[0] ? names[rule] : "unknown";
}

double
gh_timing_gbps (const gh_result *result, gh_timing_kind kind)
{
  const gh_timing *t = &result->timing[kind];
  if (t->runs == 0 || t->median_ms <= 0)
    return 0;
  return (double) result->bytes / (t->median_ms * 1e6);
}

typedef unsigned __int128 u128;

static u128
u128_of (gh_u128 x)
{
  return (u128) x.hi << 64 | x.lo;
}

/* A 128-bit integer in decimal. */
static void
write_u128 (FILE *out, u128 x)
{
  char digits[40];
  int n = 0;
  do
    {
      digits[n++] = (char) ('0' + (int) (x % 10));
      x /= 10;
    }
  while (x);
  while (n)
    fputc (digits[--n], out);
}

/* A weighted count in pixels: an integer when it is one, else rounded to 6 decimals exactly
 * (integer arithmetic: no double can hold every numerator). */
static void
write_weighted (FILE *out, gh_u128 numerator, uint64_t denominator)
{
  const u128 n = u128_of (numerator), whole = n / denominator, rest = n % denominator;
  if (rest == 0)
    {
      write_u128 (out, whole);
      return;
    }
  const u128 millionths = (rest * 1000000 + denominator / 2) / denominator;
  write_u128 (out, whole + millionths / 1000000);
  fprintf (out, ".%06u", (unsigned) (millionths % 1000000));
}

int
gh_write_csv (FILE *out, const gh_result *result, const char *const *channel_names)
{
  fputs ("bin", out);
  for (int c = 0; c < result->channels; c++)
    fprintf (out, ",%s", channel_names[c]);
  fputc ('\n', out);
  for (int b = 0; b < result->bins; b++)
    {
      fprintf (out, "%d", b);
      for (int c = 0; c < result->channels; c++)
        if (result->weighted)
          {
            fputc (',', out);
            write_weighted (out, result->numerators[(size_t) c * result->bins + b],
                            result->denominator);
          }
        else
          fprintf (out, ",%" PRIu64, result->counts[(size_t) c * result->bins + b]);
      fputc ('\n', out);
    }
  return ferror (out) ? -1 : 0;
}

void
gh_write_json_string (FILE *out, const char *s)
{
  fputc ('"', out);
  for (; *s; s++)
    {
      unsigned char ch = (unsigned char) *s;
      if (ch == '"' || ch == '\\')
        fprintf (out, "\\%c", ch);
      else if (ch < 0x20)
        fprintf (out, "\\u%04x", ch);
      else
        fputc (ch, out);
    }
  fputc ('"', out);
}

static const char *const json_timing_keys[GH_N_TIMINGS]
    = { "global_atomics", "privatized", "fastest", "read_only", "upload" };

/* An unweighted channel's statistics and counts. */
static void
write_json_channel (FILE *out, const gh_result *result, int c)
{
  const uint64_t *counts = result->counts + (size_t) c * result->bins;
  gh_channel_stats s;
  gh_stats_compute (counts, result->bins, &s);
  fprintf (out,
           ", \"mean\": %.6f, \"stddev\": %.6f, \"median\": %d, \"min\": %d, \"max\": %d,"
           " \"busiest_share\": %.6f, \"bins_used\": %d, \"pixels\": %" PRIu64 ",\n"
           "     \"counts\": [",
           s.mean, s.stddev, s.median, s.min, s.max, s.busiest_share, s.bins_used, s.pixels);
  for (int b = 0; b < result->bins; b++)
    fprintf (out, b ? ",%" PRIu64 : "%" PRIu64, counts[b]);
}

/* A weighted channel: GIMP's statistics of the values, then every numerator (a decimal string:
 * it may pass 2^64) over the run's denominator, and every value in pixels. */
static void
write_json_weighted_channel (FILE *out, const gh_result *result, int c)
{
  const size_t first = (size_t) c * result->bins;
  gh_channel_stats s;
  gh_stats_compute_values (result->values + first, result->bins, &s);
  fprintf (out,
           ", \"mean\": %.6f, \"stddev\": %.6f, \"median\": %d, \"min\": %d, \"max\": %d,"
           " \"busiest_share\": %.6f, \"bins_used\": %d, \"pixels\": %.6f,\n"
           "     \"numerators\": [",
           s.mean, s.stddev, s.median, s.min, s.max, s.busiest_share, s.bins_used, s.weight);
  for (int b = 0; b < result->bins; b++)
    {
      fputs (b ? ",\"" : "\"", out);
      write_u128 (out, u128_of (result->numerators[first + b]));
      fputc ('"', out);
    }
  fputs ("],\n     \"values\": [", out);
  for (int b = 0; b < result->bins; b++)
    {
      if (b)
        fputc (',', out);
      write_weighted (out, result->numerators[first + b], result->denominator);
    }
}

int
gh_write_json_begin (FILE *out, const gh_result *result, const char *const *channel_names)
{
  fputs ("{\n  \"backend\": ", out);
  gh_write_json_string (out, result->backend);
  fprintf (out, ",\n  \"used_gpu\": %s,\n  \"layout\": ", result->used_gpu ? "true" : "false");
  gh_write_json_string (out, result->layout);
  fprintf (out, ",\n  \"bins\": %d,\n  \"pixels\": %" PRIu64 ",\n  \"bytes\": %" PRIu64 ",\n",
           result->bins, result->samples, result->bytes);
  if (result->derived)
    fprintf (out, "  \"luminance_rule\": \"%s\",\n", gh_luminance_name (result->luminance));

  if (result->weighted)
    fprintf (out, "  \"weighted\": true,\n  \"denominator\": %" PRIu64 ",\n", result->denominator);
  fputs ("  \"channels\": [", out);
  for (int c = 0; c < result->channels; c++)
    {
      fputs (c ? ",\n    {\"name\": " : "\n    {\"name\": ", out);
      gh_write_json_string (out, channel_names[c]);
      if (result->weighted)
        write_json_weighted_channel (out, result, c);
      else
        write_json_channel (out, result, c);
      fputs ("]}", out);
    }
  fputs ("\n  ],\n  \"timings_ms\": {", out);
  for (int k = 0; k < GH_N_TIMINGS; k++)
    {
      const gh_timing *t = &result->timing[k];
      fprintf (out, "%s\n    \"%s\": ", k ? "," : "", json_timing_keys[k]);
      if (t->runs == 0)
        fputs ("null", out);
      else
        fprintf (out,
                 "{\"median\": %.6f, \"min\": %.6f, \"max\": %.6f, \"runs\": %d,"
                 " \"gbps\": %.3f}",
                 t->median_ms, t->min_ms, t->max_ms, t->runs,
                 gh_timing_gbps (result, (gh_timing_kind) k));
    }
  fputs ("\n  }", out);
  return ferror (out) ? -1 : 0;
}

int
gh_write_json (FILE *out, const gh_result *result, const char *const *channel_names)
{
  gh_write_json_begin (out, result, channel_names);
  fputs ("\n}\n", out);
  return ferror (out) ? -1 : 0;
}
