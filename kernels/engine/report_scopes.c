/* gpu-histogram: the scopes as JSON and CSV (gpuhist.h, gh_write_scopes_json and
 * gh_write_scope_csv).  A waveform of 1024 columns holds a million numbers, where a printf a
 * number would cost more than counting them: the shapes and headers go through a buffer of their
 * own, the cells row by row through gh_write_rows (report_rows.c), which formats them by hand on
 * several threads and writes them in order. */
#include "report_private.h"

#include <stdlib.h>
#include <string.h>

#define BUFFER_SIZE ((size_t) 1 << 16)

typedef struct
{
  FILE *out;
  int failed; /* a writer found no memory */
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

/* Room for a cell and its comma. */
#define CELL_SIZE (GH_NUMBER_SIZE + 3)

/* A scope's rows (a waveform column of one table, a vectorscope Cr) as gh_write_rows formats
 * them: for JSON or for CSV, where `tables` lists the tables written. */
typedef struct
{
  const gh_scope *scope;
  cells_form form;
  gh_divisor divisor;
  int outer;                 /* JSON: the rows nested in a table's brackets */
  const char *const *labels; /* CSV: each table's channel name; NULL: none */
  int tables[GH_MAX_CHANNELS + 2];
} scope_rows;

static void
rows_init (scope_rows *rows, const gh_result *result, const gh_scope *scope, cells_form form)
{
  *rows = (scope_rows){ .scope = scope, .form = form };
  gh_divisor_init (&rows->divisor, result->denominator);
  for (int t = 0; t < scope->tables; t++)
    rows->tables[t] = t;
}

static char *
put_text (char *to, const char *text)
{
  const size_t n = strlen (text);
  memcpy (to, text, n);
  return to + n;
}

static char *
put_cell (char *to, const scope_rows *rows, size_t i)
{
  const gh_scope *scope = rows->scope;
  if (rows->form == CELLS_COUNTS)
    return to + gh_format_u64 (to, scope->counts[i]);
  if (rows->form == CELLS_VALUES)
    return to + gh_format_weighted_by (to, scope->numerators[i], &rows->divisor);
  to[0] = '"';
  to += 1 + gh_format_u128 (to + 1, scope->numerators[i]);
  *to = '"';
  return to + 1;
}

/* The bins of the cells from `first`, each after a comma unless `comma_first` is 0. */
static char *
put_bins (char *to, const scope_rows *rows, size_t first, int comma_first)
{
  for (int k = 0; k < rows->scope->bins; k++)
    {
      if (k || comma_first)
        *to++ = ',';
      to = put_cell (to, rows, first + k);
    }
  return to;
}

/* JSON row `row` (table row / columns, column row % columns), in the nesting of
 * [per table: [per column: [bins cells]]], or for a single table without its brackets
 * (the vectorscope: [per Cr: [256 cells]]); the caller writes the outermost brackets. */
static size_t
format_json_row (char *to, const void *arg, size_t row)
{
  const scope_rows *rows = arg;
  const gh_scope *scope = rows->scope;
  const int t = (int) (row / (size_t) scope->columns), c = (int) (row % (size_t) scope->columns);
  char *at = to;
  if (rows->outer && c == 0)
    at = put_text (at, t ? ",\n      [[" : "\n      [[");
  else
    at = put_text (at, c ? ",\n       [" : "\n      [");
  at = put_bins (at, rows, row * (size_t) scope->bins, 0);
  *at++ = ']';
  if (rows->outer && c == scope->columns - 1)
    *at++ = ']';
  return (size_t) (at - to);
}

static size_t
json_row_size (const gh_scope *scope)
{
  return (size_t) scope->bins * CELL_SIZE + 32;
}

static void
put_cells (number_buffer *b, const scope_rows *rows)
{
  const gh_scope *scope = rows->scope;
  put (b, "[");
  flush (b);
  if (gh_write_rows (b->out, format_json_row, rows, (size_t) scope->tables * scope->columns,
                     (size_t) scope->bins, json_row_size (scope))
      != 0)
    b->failed = 1;
  put (b, "]");
}

/* One scope's members after its shape: counts, numerators, timings; then the closing brace. */
static void
put_tables (number_buffer *b, const gh_result *result, const gh_scope *scope, int outer,
            int numerators)
{
  scope_rows rows;
  rows_init (&rows, result, scope, result->weighted ? CELLS_VALUES : CELLS_COUNTS);
  rows.outer = outer;
  if (result->weighted)
    put (b, ",\n    \"weighted\": true");
  put (b, ",\n    \"counts\": ");
  put_cells (b, &rows);
  if (result->weighted && numerators)
    {
      rows.form = CELLS_NUMERATORS;
      put (b, ",\n    \"numerators\": ");
      put_cells (b, &rows);
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

static number_buffer *
buffer_new (FILE *out)
{
  number_buffer *b = malloc (sizeof *b);
  if (b)
    *b = (number_buffer){ .out = out };
  return b;
}

/* Flushes and frees b: 0, or -1 when anything failed. */
static int
buffer_finish (number_buffer *b)
{
  flush (b);
  const int failed = b->failed || ferror (b->out);
  free (b);
  return failed ? -1 : 0;
}

int
gh_write_scopes_json (FILE *out, const gh_result *result, const char *const *channel_names,
                      int numerators)
{
  number_buffer *b = buffer_new (out);
  if (!b)
    return -1;
  if (result->scopes[GH_SCOPE_WAVEFORM].tables > 0)
    put_waveform (b, result, channel_names, numerators);
  if (result->scopes[GH_SCOPE_VECTORSCOPE].tables > 0)
    {
      put (b, ",\n  \"vectorscope\": {\"size\": 256");
      put_tables (b, result, &result->scopes[GH_SCOPE_VECTORSCOPE], 0, numerators);
    }
  return buffer_finish (b);
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

/* CSV row `row` of the tables written (a waveform column, or a vectorscope Cr): its table's
 * label, the column, then its bins. */
static size_t
format_csv_row (char *to, const void *arg, size_t row)
{
  const scope_rows *rows = arg;
  const gh_scope *scope = rows->scope;
  const int t = rows->tables[row / (size_t) scope->columns];
  const int c = (int) (row % (size_t) scope->columns);
  char *at = to;
  if (rows->labels)
    {
      at = put_text (at, rows->labels[t]);
      *at++ = ',';
    }
  at += gh_format_u64 (at, (uint64_t) c);
  at = put_bins (at, rows, ((size_t) t * scope->columns + c) * scope->bins, 1);
  *at++ = '\n';
  return (size_t) (at - to);
}

/* The waveform's tables whose channel is in `channels` (0: every one), labelled by their
 * channel's name; the longest name's length. */
static size_t
choose_tables (scope_rows *rows, unsigned channels, const char *const *channel_names,
               const char **labels, int *n)
{
  const gh_scope *scope = rows->scope;
  size_t longest = 0;
  *n = 0;
  for (int t = 0; t < scope->tables; t++)
    {
      labels[t] = channel_names[scope->channel[t]];
      if (channels && !((channels >> scope->channel[t]) & 1u))
        continue;
      rows->tables[(*n)++] = t;
      if (strlen (labels[t]) > longest)
        longest = strlen (labels[t]);
    }
  rows->labels = labels;
  return longest;
}

static void
put_csv (number_buffer *b, const gh_result *result, gh_scope_kind kind, unsigned channels,
         const char *const *channel_names)
{
  const gh_scope *scope = &result->scopes[kind];
  const char *labels[GH_MAX_CHANNELS + 2];
  scope_rows rows;
  int tables = scope->tables;
  size_t label = 0;
  rows_init (&rows, result, scope, result->weighted ? CELLS_VALUES : CELLS_COUNTS);
  if (kind == GH_SCOPE_VECTORSCOPE)
    put_csv_header (b, "cr", scope->bins);
  else
    {
      put_csv_header (b, "channel,column", scope->bins);
      label = choose_tables (&rows, channels, channel_names, labels, &tables);
    }
  flush (b);
  if (gh_write_rows (b->out, format_csv_row, &rows, (size_t) tables * scope->columns,
                     (size_t) scope->bins, label + (size_t) scope->bins * CELL_SIZE + 32)
      != 0)
    b->failed = 1;
}

int
gh_write_scope_csv (FILE *out, const gh_result *result, gh_scope_kind kind, unsigned channels,
                    const char *const *channel_names)
{
  if (kind < 0 || kind >= GH_N_SCOPES || result->scopes[kind].tables == 0
      || (result->weighted ? !result->scopes[kind].numerators : !result->scopes[kind].counts))
    return -1;
  number_buffer *b = buffer_new (out);
  if (!b)
    return -1;
  put_csv (b, result, kind, channels, channel_names);
  return buffer_finish (b);
}
