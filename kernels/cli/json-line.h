/* gpu-histogram: one file's result, or its failure, as one line of JSON (gpuhist --json-lines). */
#ifndef GPUHIST_JSON_LINE_H
#define GPUHIST_JSON_LINE_H

#include "gpuhist.h"

/* The engine's JSON (gh_write_json_begin, then gh_write_scopes_json with scope_numerators) on
 * one line, with "file" and "format" last.  A string to free(), or NULL when memory ran out. */
char *json_line_result (const char *file, const char *format, const gh_result *result,
                        const char *const *channel_names, int scope_numerators);
/* {"file": ..., "error": ...}.  A string to free(), or NULL. */
char *json_line_error (const char *file, const char *error);

#endif /* GPUHIST_JSON_LINE_H */
