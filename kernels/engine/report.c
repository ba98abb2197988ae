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

double
gh_timing_gbps (const gh_result *result, gh_timing_kind kind)
{
  const gh_timing *t = &result->timing[kind];
  if (t->runs == 0 || t->median_ms <= 0)
    return 0;
  return (double) result->bytes / (t->median_ms * 1e6);
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

int
gh_write_json_begin (FILE *out, const gh_result *result, const char *const *channel_names)
{
  fputs ("{\n  \"backend\": ", out);
  gh_write_json_string (out, result->backend);
  fprintf (out, ",\n  \"used_gpu\": %s,\n  \"layout\": ", result->used_gpu ? "true" : "false");
  gh_write_json_string (out, result->layout);
  fprintf (out, ",\n  \"bins\": %d,\n  \"pixels\": %" PRIu64 ",\n  \"bytes\": %" PRIu64 ",\n",
           result->bins, result->samples, result->bytes);

  fputs ("  \"channels\": [", out);
  for (int c = 0; c < result->channels; c++)
    {
      const uint64_t *counts = result->counts + (size_t) c * result->bins;
      gh_channel_stats s;
      gh_stats_compute (counts, result->bins, &s);
      fputs (c ? ",\n    {\"name\": " : "\n    {\"name\": ", out);
      gh_write_json_string (out, channel_names[c]);
      fprintf (out,
               ", \"mean\": %.6f, \"stddev\": %.6f, \"median\": %d, \"min\": %d, \"max\": %d,"
               " \"busiest_share\": %.6f, \"bins_used\": %d, \"pixels\": %" PRIu64 ",\n"
               "     \"counts\": [",
               s.mean, s.stddev, s.median, s.min, s.max, s.busiest_share, s.bins_used, s.pixels);
      for (int b = 0; b < result->bins; b++)
        fprintf (out, b ? ",%" PRIu64 : "%" PRIu64, counts[b]);
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
