/* gpu-histogram: counting a source with the engine.
 *
 * The source is read in tile-aligned strips straight into the engine's strip buffer (pinned
 * memory on the GPU path), so that the layer is never copied whole, and the engine counts one
 * strip while the next is read (stream.h).  With more than 256 bins (settings->bins) and a
 * layer of more than 8 bits, the engine counts 16-bit samples: a u16 fetch (the layer's stored
 * values when its curve is the one asked for) goes straight into the strip buffer; u32, half,
 * float and double layers are read as float and narrowed to 16 bits (convert.h).  8-bit and
 * indexed layers have 256 levels and count into 256 bins whatever was asked; the bins=256 path
 * is the 8-bit one for every layer.
 */
#ifndef GPUHIST_MEASURE_H
#define GPUHIST_MEASURE_H

#include "core.h"
#include "stream.h"

G_BEGIN_DECLS

/* Reads the source and counts.  On a GPU failure it falls back to the CPU and says so in
 * report->layer.backend.  Never changes the image.  `report` must be zero-filled or cleared with
 * gpuhist_report_clear: what it held is cleared first, so the same report can be measured again
 * (the dialog's Re-run).  The engine's methods and repetitions are set from settings
 * (repetitions 0: FASTEST once, untimed). */
gboolean gpuhist_measure (gh_engine *engine, const GpuhistSource *source,
                          const GpuhistSettings *settings, const GpuhistMonitor *monitor,
                          GpuhistReport *report, GError **error);

/* The same, the bands read by `reader` (on the counting thread, from pixels fetched elsewhere:
 * strip-fetch.h) instead of from source->buffer here.  A GPU fault's count again on the CPU
 * reads the bands again from the start. */
gboolean gpuhist_measure_bands (gh_engine *engine, const GpuhistSource *source,
                                const GpuhistSettings *settings, const GpuhistMonitor *monitor,
                                GpuhistBandReader reader, gpointer reader_data,
                                GpuhistReport *report, GError **error);

/* Adds the flat and noise rows to the report (same size and channels as the layer). */
gboolean gpuhist_compare_patterns (gh_engine *engine, const GpuhistSettings *settings,
                                   GpuhistReport *report, GError **error);

G_END_DECLS

#endif /* GPUHIST_MEASURE_H */
