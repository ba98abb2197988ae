/* gpu-histogram: the charts' drawing (gpuhist.h, gh_render_chart), shared by render.c (which
 * tables a chart draws, in which colours), render_density.c (tables to pixels) and
 * render_graticule.c (lines and targets over them).  Internal. */
#ifndef GPUHIST_RENDER_PRIVATE_H
#define GPUHIST_RENDER_PRIVATE_H

#include "gpuhist.h"

/* One table drawn into the output columns [x0, x1), over the whole height: its cell (h, v) is
 * cells[h * h_stride + v * v_stride], h to the right, v up. */
typedef struct
{
  const double *cells;
  size_t h_stride, v_stride;
  int h_cells, v_cells;
  double colour[3]; /* red, green, blue at full intensity, 0 .. 1 */
  int x0, x1;
} render_layer;

/* The layers' density into every pixel (gpuhist.h: the sums, the curve, the colours added).
 * Layers that share output columns must share their tables' shape and all their columns (as
 * the waveform's do; the parade's panels share none).  GH_OK, INVALID_ARGUMENT for layers
 * that break that, or OUT_OF_MEMORY. */
gh_status gh_render_density (const render_layer *layers, int n_layers,
                             const gh_render_options *options, int width, int height,
                             uint8_t *pixels, size_t stride, gh_error *error);

/* Work shared between threads: job (arg, chunk, worker) does one chunk, worker 0 on the
 * calling thread, 1 on a helper. */
#define RENDER_MAX_WORKERS 2
typedef void (*render_job) (void *arg, int chunk, int worker);
/* How many workers work of this size (cells and pixels) is worth: 1, or RENDER_MAX_WORKERS
 * where the machine has more than one processor and one of them is idle (by the load
 * average); GPUHIST_RENDER_THREADS (1 or 2) decides instead, for tests and benchmarks. */
int gh_render_workers (size_t work);
/* Runs chunks 0 .. chunks - 1, each once, and returns when all are done. */
void gh_render_split (render_job job, void *arg, int chunks, int workers);

/* The graticule of a waveform or parade: the level lines across the whole width. */
void gh_render_level_lines (uint8_t *pixels, size_t stride, int width, int height);
/* The vectorscope's colour targets, centre and (when asked) skin-tone line; bgra: the pixels'
 * bytes are B, G, R, A. */
void gh_render_vectorscope_marks (uint8_t *pixels, size_t stride, int width, int height,
                                  int skin_tone_line, int bgra);

#endif /* GPUHIST_RENDER_PRIVATE_H */
