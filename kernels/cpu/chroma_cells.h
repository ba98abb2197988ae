/* gpu-histogram: the vectorscope's cells (gh_vectorscope_cell) of many 8-bit pixels at once, with
 * AVX2 where the compiler and the processor have it. */
#ifndef GPUHIST_CHROMA_CELLS_H
#define GPUHIST_CHROMA_CELLS_H

#include <stddef.h>
#include <stdint.h>

/* How many pixels cpu_chroma_cells takes at a time. */
#define CPU_CHROMA_GROUP 8

/* Whether cpu_chroma_cells runs here: 0 where the compiler or the processor lacks AVX2. */
int cpu_chroma_cells_available (void);
/* The cells of `groups` groups of CPU_CHROMA_GROUP pixels at `pixels` (`channels` 3 or 4 bytes a
 * pixel, R G B first) into cells[0 .. groups * CPU_CHROMA_GROUP).  Reads up to 4 bytes past the
 * last pixel of 3 channels: the caller leaves them inside its buffer. */
void cpu_chroma_cells (const uint8_t *pixels, int channels, size_t groups, uint32_t *cells);

#endif /* GPUHIST_CHROMA_CELLS_H */
