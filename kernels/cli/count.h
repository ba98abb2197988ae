/* gpu-histogram: one image source counted by the engine, strip by strip.
 *
 * The source's rows are copied into the engine's strip buffers (and its coverage rows into the
 * run's coverage buffer) as they come, so that no whole image is ever held; when the GPU fails
 * mid-run the engine falls back to the CPU and the source streams again from the top. */
#ifndef GPUHIST_COUNT_H
#define GPUHIST_COUNT_H

#include "gpuhist.h"
#include "image-source.h"

/* What to count beyond the plain histogram (issue 17's flags). */
typedef struct
{
  gh_binning binning; /* for 16-bit samples */
  int binning_given;  /* else: GIMP's rule for narrowed (float, 32-bit) files, shift otherwise */
  int alpha_weighted;
  int derived;
  gh_luminance luminance; /* with derived: whose Luminance (--luminance; GIMP 2.10's by default) */
  int waveform_columns;   /* --waveform: 0, or the waveform's columns */
  int vectorscope;        /* --vectorscope */
} count_request;

/* The binning a file gets: what was asked for, else the default for its samples. */
gh_binning count_binning (const count_request *request, const image_info *info);

/* Counts every row of source into *result (which the caller clears with gh_result_clear).
 * 0, or -1 with message filled: the source's reason or the engine's. */
int count_source (gh_engine *engine, image_source *source, const count_request *request,
                  gh_result *result, char *message, size_t message_size);

#endif /* GPUHIST_COUNT_H */
