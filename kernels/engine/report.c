/* gpu-histogram: names, and results written as CSV and JSON. */
#include "report_private.h"

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

static void
write_u128 (FILE *out, gh_u128 x)
{
  char text[GH_NUMBER_SIZE];
  fwrite (text, 1, gh_format_u128 (text, x), out);
}

/* A weighted count in pixels: an integer when it is one, else rounded to 6 decimals exactly
 * (integer arithmetic: no double can hold every numerator). */
static void
write_weighted (FILE *out, gh_u128 numerator, const gh_divisor *divisor)
{
  char text[GH_NUMBER_SIZE];
  fwrite (text, 1, gh_format_weighted_by (text, numerator, divisor), out);
}

int
gh_write_csv (FILE *out, const gh_result *result, const char *const *channel_names)
{
  gh_divisor divisor;
  gh_divisor_init (&divisor, result->denominator);
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
            write_weighted (out, result->numerators[(size_t) c * result->bins + b], &divisor);
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
  char text[GH_NUMBER_SIZE + 1] = ",";
  for (int b = 0; b < result->bins; b++)
    {
      const size_t n = gh_format_u64 (text + 1, counts[b]);
      fwrite (b ? text : text + 1, 1, b ? n + 1 : n, out);
    }
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
      write_u128 (out, result->numerators[first + b]);
      fputc ('"', out);
    }
  fputs ("],\n     \"values\": [", out);
  gh_divisor divisor;
  gh_divisor_init (&divisor, result->denominator);
  for (int b = 0; b < result->bins; b++)
    {
      if (b)
        fputc (',', out);
      write_weighted (out, result->numerators[first + b], &divisor);
    }
}

void
gh_write_json_timings (FILE *out, const gh_result *result, const gh_timing *timing,
                       const char *indent)
{
  fputc ('{', out);
  for (int k = 0; k < GH_N_TIMINGS; k++)
    {
      const gh_timing *t = &timing[k];
      fprintf (out, "%s\n%s  \"%s\": ", k ? "," : "", indent, json_timing_keys[k]);
      if (t->runs == 0)
        fputs ("null", out);
      else
        fprintf (out,
                 "{\"median\": %.6f, \"min\": %.6f, \"max\": %.6f, \"runs\": %d,"
                 " \"gbps\": %.3f}",
                 t->median_ms, t->min_ms, t->max_ms, t->runs,
                 t->median_ms > 0 ? (double) result->bytes / (t->median_ms * 1e6) : 0.0);
    }
  fprintf (out, "\n%s}", indent);
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
  fputs ("\n  ],\n  \"timings_ms\": ", out);
  gh_write_json_timings (out, result, result->timing, "  ");
  return ferror (out) ? -1 : 0;
}

int
gh_write_json (FILE *out, const gh_result *result, const char *const *channel_names)
{
  gh_write_json_begin (out, result, channel_names);
  gh_write_scopes_json (out, result, channel_names, 0);
  fputs ("\n}\n", out);
  return ferror (out) ? -1 : 0;
}
