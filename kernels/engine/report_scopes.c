/* gpu-histogram: the scopes as JSON and CSV (gpuhist.h, gh_write_scopes_json and
 * gh_write_scope_csv).  A waveform of 1024 columns holds a million numbers: they are formatted by
 * hand into a buffer of their own and written in large blocks, where a printf a number would cost
 * more than counting them. */
#include "report_private.h"

#include <stdlib.h>
#include <string.h>

#define BUFFER_SIZE ((size_t) 1 << 16)

typedef struct
{
  FILE *out;
  gh_divisor divisor; /* the result's denominator, for weighted cells */
  size_t used;
  char data[BUFFER_SIZE];
} number_buffer;

static void
flush (number_buffer *b)
{
  fwrite (b->data, 1, b->used, b->out);
  b->used = 0;
}

/* Makes room for n more characters (n at most GH_NUMBER_SIZE + 2). */
static char *
room (number_buffer *b, size_t n)
{
  if (b->used + n > BUFFER_SIZE)
    flush (b);
  return b->data + b->used;
}

static void
put (number_buffer *b, const char *text)
{
  const size_t n = strlen (text);
  memcpy (room (b, n), text, n);
  b->used += n;
}

/* What a table's cells are written as. */
typedef enum
{
  CELLS_COUNTS,    /* unweighted: integers */
  CELLS_VALUES,    /* weighted: pixels, as the CSV writes them */
  CELLS_NUMERATORS /* weighted: decimal strings over the denominator */
} cells_form;

/* Cell i, after a comma unless it is the first of its row. */
static void
put_cell (number_buffer *b, const gh_scope *scope, cells_form form, size_t i, int first)
{
  char *to = room (b, GH_NUMBER_SIZE + 3);
  if (!first)
    *to++ = ',';
  b->used += !first;
  if (form == CELLS_COUNTS)
    b->used += gh_format_u64 (to, scope->counts[i]);
  else if (form == CELLS_VALUES)
    b->used += gh_format_weighted_by (to, scope->numerators[i], &b->divisor);
  else
    {
      to[0] = '"';
      const size_t n = gh_format_u128 (to + 1, scope->numerators[i]);
      to[n + 1] = '"';
      b->used += n + 2;
    }
}

/* [per table: [per column: [bins cells]]], or for a single table without its brackets
 * (the vectorscope: [per Cr: [256 cells]]). */
static void
put_cells (number_buffer *b, const gh_scope *scope, cells_form form, int outer)
{
  size_t i = 0;
  put (b, "[");
  for (int t = 0; t < scope->tables; t++)
    {
      if (outer)
        put (b, t ? ",\n      [" : "\n      [");
      for (int c = 0; c < scope->columns; c++)
        {
          put (b, c ? ",\n       [" : (outer ? "[" : "\n      ["));
          for (int k = 0; k < scope->bins; k++, i++)
            put_cell (b, scope, form, i, k == 0);
          put (b, "]");
        }
      if (outer)
        put (b, "]");
    }
  put (b, "]");
}

/* One scope's members after its shape: counts, numerators, timings; then the closing brace. */
static void
put_tables (number_buffer *b, const gh_result *result, const gh_scope *scope, int outer,
            int numerators)
{
  if (result->weighted)
    put (b, ",\n    \"weighted\": true");
  put (b, ",\n    \"counts\": ");
  put_cells (b, scope, result->weighted ? CELLS_VALUES : CELLS_COUNTS, outer);
  if (result->weighted && numerators)
    {
      put (b, ",\n    \"numerators\": ");
      put_cells (b, scope, CELLS_NUMERATORS, outer);
      put (b, ",\n    \"denominator\": ");
      b->used += gh_format_u64 (room (b, GH_NUMBER_SIZE), result->denominator);
    }
  put (b, ",\n    \"timings_ms\": ");
  flush (b);
  gh_write_json_timings (b->out, result, scope->timing, "    ");
  put (b, "\n  }");
}

static void
put_waveform (number_buffer *b, const gh_result *result, const char *const *channel_names,
              int numerators)
{
  const gh_scope *scope = &result->scopes[GH_SCOPE_WAVEFORM];
  char number[GH_NUMBER_SIZE + 1];
  put (b, ",\n  \"waveform\": {\"columns\": ");
  number[gh_format_u64 (number, (uint64_t) scope->columns)] = '\0';
  put (b, number);
  put (b, ", \"bins\": ");
  number[gh_format_u64 (number, (uint64_t) scope->bins)] = '\0';
  put (b, number);
  put (b, ", \"channels\": [");
  flush (b);
  for (int t = 0; t < scope->tables; t++)
    {
      if (t)
        fputs (", ", b->out);
      gh_write_json_string (b->out, channel_names[scope->channel[t]]);
    }
  put (b, "]");
  put_tables (b, result, scope, 1, numerators);
}

int
gh_write_scopes_json (FILE *out, const gh_result *result, const char *const *channel_names,
                      int numerators)
{
  number_buffer *b = malloc (sizeof *b);
  if (!b)
    return -1;
  b->out = out;
  gh_divisor_init (&b->divisor, result->denominator);
  b->used = 0;
  if (result->scopes[GH_SCOPE_WAVEFORM].tables > 0)
    put_waveform (b, result, channel_names, numerators);
  if (result->scopes[GH_SCOPE_VECTORSCOPE].tables > 0)
    {
      put (b, ",\n  \"vectorscope\": {\"size\": 256");
      put_tables (b, result, &result->scopes[GH_SCOPE_VECTORSCOPE], 0, numerators);
    }
  flush (b);
  free (b);
  return ferror (out) ? -1 : 0;
}

/* A CSV header: `first`, then the numbers 0 .. n - 1 after commas. */
static void
put_csv_header (number_buffer *b, const char *first, int n)
{
  put (b, first);
  for (int k = 0; k < n; k++)
    {
      char *to = room (b, GH_NUMBER_SIZE + 1);
      *to = ',';
      b->used += 1 + gh_format_u64 (to + 1, (uint64_t) k);
    }
  put (b, "\n");
}

/* Row `row` of table t (a waveform column, or a vectorscope Cr): its label, then its bins. */
static void
put_csv_row (number_buffer *b, const gh_result *result, const gh_scope *scope, const char *label,
             int t, int row)
{
  const size_t first = ((size_t) t * scope->columns + row) * scope->bins;
  if (label)
    {
      put (b, label);
      put (b, ",");
    }
  b->used += gh_format_u64 (room (b, GH_NUMBER_SIZE), (uint64_t) row);
  for (int k = 0; k < scope->bins; k++)
    put_cell (b, scope, result->weighted ? CELLS_VALUES : CELLS_COUNTS, first + k, 0);
  put (b, "\n");
}

static void
put_csv (number_buffer *b, const gh_result *result, gh_scope_kind kind, unsigned channels,
         const char *const *channel_names)
{
  const gh_scope *scope = &result->scopes[kind];
  if (kind == GH_SCOPE_VECTORSCOPE)
    {
      put_csv_header (b, "cr", scope->bins);
      for (int cr = 0; cr < scope->columns; cr++)
        put_csv_row (b, result, scope, NULL, 0, cr);
      return;
    }
  put_csv_header (b, "channel,column", scope->bins);
  for (int t = 0; t < scope->tables; t++)
    if (!channels || ((channels >> scope->channel[t]) & 1u))
      for (int c = 0; c < scope->columns; c++)
        put_csv_row (b, result, scope, channel_names[scope->channel[t]], t, c);
}

int
gh_write_scope_csv (FILE *out, const gh_result *result, gh_scope_kind kind, unsigned channels,
                    const char *const *channel_names)
{
  if (kind < 0 || kind >= GH_N_SCOPES || result->scopes[kind].tables == 0
      || (result->weighted ? !result->scopes[kind].numerators : !result->scopes[kind].counts))
    return -1;
  number_buffer *b = malloc (sizeof *b);
  if (!b)
    return -1;
  b->out = out;
  gh_divisor_init (&b->divisor, result->denominator);
  b->used = 0;
  put_csv (b, result, kind, channels, channel_names);
  flush (b);
  free (b);
  return ferror (out) ? -1 : 0;
}
