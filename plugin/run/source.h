/* gpu-histogram: choosing what to read from GIMP and in which format (source.c). */
#ifndef GPUHIST_SOURCE_H
#define GPUHIST_SOURCE_H

#include "core.h"

G_BEGIN_DECLS

/* Fills *source for reading `area` of `buffer` (plugin/run/source.c).  Picks the fetch format: the
 * perceptual curve (R'G'B', Y') by default or linear light (RGB, Y) when `linear`, always in the
 * buffer's own colour space; the buffer's own format when it already matches (no conversion in
 * GIMP at all), else 8 bits when the buffer is 8-bit or indexed (indexed layers count their
 * colours), else a wider type that the core narrows to 8 bits (convert.h).
 * Takes a reference on nothing: the caller keeps `buffer` alive until the source is cleared.
 * Fails (GPUHIST_ERROR) for an empty area or an area outside the buffer. */
gboolean gpuhist_source_init (GpuhistSource *source, GeglBuffer *buffer, const GeglRectangle *area,
                              GpuhistDrawableKind kind, gboolean linear, const gchar *name,
                              GError **error);

/* Adds the selection's shape: `mask` is the image's selection channel (image coordinates), the
 * drawable sits at (offset_x, offset_y) in the image.  Read in the mask's own 8 or 16 bits
 * (float masks as 16 bits, GIMP's coverage to 1/65535); pixels outside the mask's extent (a
 * layer partly outside the image) weigh 0.  Takes no reference. */
void gpuhist_source_set_coverage (GpuhistSource *source, GeglBuffer *mask, int offset_x,
                                  int offset_y);

void gpuhist_source_clear (GpuhistSource *source);

G_END_DECLS

#endif /* GPUHIST_SOURCE_H */
