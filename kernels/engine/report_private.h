/* gpu-histogram: numbers and timings as report.c writes them, shared with report_scopes.c, the
 * scopes' writer.  Internal. */
#ifndef GPUHIST_REPORT_PRIVATE_H
#define GPUHIST_REPORT_PRIVATE_H

#include "gpuhist.h"

/* Room for any number below: 39 digits of a 128-bit integer, a point and 6 decimals. */
#define GH_NUMBER_SIZE 48

/* Decimal digits into `to` (no terminating NUL); each returns how many characters it wrote. */
size_t gh_format_u64 (char *to, uint64_t x);
size_t gh_format_u128 (char *to, gh_u128 x);
/* numerator / denominator in pixels: an integer when it is one, else rounded half up to 6
 * decimals exactly (integer arithmetic: no double holds every numerator). */
size_t gh_format_weighted (char *to, gh_u128 numerator, uint64_t denominator);

/* The same for many numerators over one denominator: its division prepared once. */
typedef struct
{
  uint64_t denominator;
  uint64_t inverse; /* floor ((2^64 - 1) / denominator) */
  int fits;         /* 64-bit arithmetic holds a remainder's millionths */
} gh_divisor;

void gh_divisor_init (gh_divisor *divisor, uint64_t denominator);
size_t gh_format_weighted_by (char *to, gh_u128 numerator, const gh_divisor *divisor);

/* Rows of text, each formatted by format (arg, row) into `to`, which has room for row_size
 * characters; returns how many it wrote. */
typedef size_t (*gh_row_formatter) (char *to, const void *arg, size_t row);
/* Rows 0 .. rows - 1 written to out in order, formatted by several threads when there are many
 * (one a processor, at most 16; GPUHIST_WRITE_THREADS sets how many, 1 for the caller's alone).
 * cells_per_row sizes the work a thread takes at a time.  0, or -1 when writing failed or
 * there was no memory. */
int gh_write_rows (FILE *out, gh_row_formatter format, const void *arg, size_t rows,
                   size_t cells_per_row, size_t row_size);

/* {"global_atomics": ..., ...}: each timing of `timing` (GH_N_TIMINGS of them) over the
 * result's bytes, its members on lines indented by indent and two spaces. */
void gh_write_json_timings (FILE *out, const gh_result *result, const gh_timing *timing,
                            const char *indent);

#endif /* GPUHIST_REPORT_PRIVATE_H */
