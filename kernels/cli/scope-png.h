/* gpu-histogram: gpuhist --scope-png: a result's scopes drawn (gh_render_chart) and written as
 * PNGs through libvips (scope-png.c), or refused in a build without it (scope-png-stub.c). */
#ifndef GPUHIST_SCOPE_PNG_H
#define GPUHIST_SCOPE_PNG_H

#include "gpuhist.h"

#include <stddef.h>

/* 1 when this build writes PNGs; else 0 and *why says what it lacks. */
int scope_png_available (const char **why);

/* PREFIX-waveform.png and PREFIX-parade.png when the result has a waveform (the parade only
 * with red, green and blue), PREFIX-vectorscope.png when it has a vectorscope, each at its
 * natural size.  0, or -1 with a message naming the file. */
int scope_png_write (const char *prefix, const gh_result *result, const gh_render_options *options,
                     char *error, size_t error_size);

#endif /* GPUHIST_SCOPE_PNG_H */
