/* gpu-histogram: the GIMP-version-independent core of the plug-in.
 *
 * The per-version glue (gimp3.c, gimp2.c) turns GIMP's arguments into a GpuhistSource and
 * GpuhistSettings, calls gpuhist_core_measure, and returns or shows the GpuhistReport.  Nothing
 * here includes libgimp, so no file below the glue needs a version check.
 */
#ifndef GPUHIST_CORE_H
#define GPUHIST_CORE_H

#include <gegl.h>
#include "gpuhist.h"

G_BEGIN_DECLS

#define PLUG_IN_PROC "plug-in-gpu-histogram"
#define PLUG_IN_BINARY "gpu-histogram"
#define PLUG_IN_ROLE "gimp-gpu-histogram"

/* The resident process: GIMP starts the extension (no arguments) with itself; it installs the
 * temporary procedure, which takes the same arguments and returns the same values as
 * PLUG_IN_PROC, and keeps the GPU ready between runs (engine-keeper.c).  PLUG_IN_PROC hands its
 * runs to it; the temporary procedure answers GIMP_PDB_PASS_THROUGH while it is busy (its dialog
 * is open), and PLUG_IN_PROC then counts in its own process, as it also does when the extension
 * is not there.  GPUHIST_RESIDENT=0 in GIMP's environment turns the hand-over off. */
#define GPUHIST_RESIDENT_EXTENSION "extension-gpu-histogram"
#define GPUHIST_RESIDENT_PROC "plug-in-gpu-histogram-resident"
#define GPUHIST_RESIDENT_EXTENSION_BLURB "Keeps the GPU ready between GPU Histogram runs"
#define GPUHIST_RESIDENT_EXTENSION_HELP                                                            \
  "GIMP starts this with itself.  It opens the GPU at the first plug-in-gpu-histogram run, keeps " \
  "it open between runs, and closes it after a minute without one (GPUHIST_KEEP_GPU_SECONDS)."
#define GPUHIST_RESIDENT_PROC_BLURB "GPU Histogram in the resident process"
#define GPUHIST_RESIDENT_PROC_HELP                                                                 \
  "Takes the same arguments and returns the same values as plug-in-gpu-histogram, which hands "    \
  "its runs to it."
gboolean gpuhist_resident_enabled (void);

/* What to read: a drawable's buffer, the rectangle within it (the selection's bounds), and the
 * format to read it in.  The glue fills it; the core never asks GIMP anything. */
typedef struct
{
  GeglBuffer *buffer;         /* a reference the core does not own */
  GeglRectangle area;         /* within the buffer's extent, never empty */
  const Babl *fetch_format;   /* what gegl_buffer_get produces: the fastest GIMP can give */
  const Babl *fetch_format16; /* for more than 256 bins: the same model in "u16" (stored
                                 values when the buffer is u16 in that curve) or "float"
                                 (narrowed to 16 bits by the core); NULL for 8-bit and indexed
                                 buffers, which have 256 levels and count into 256 bins */
  int channels;               /* 1 to 4 */
  const char *channel_names[GH_MAX_CHANNELS]; /* "red", "green", "blue", "alpha", "gray" */
  gchar *drawable_name;                       /* for the dialog and JSON; owned */
} GpuhistSource;

typedef struct
{
  int repetitions;    /* timed runs per method; 0: the histogram once with FASTEST */
  gboolean linear;    /* bin in linear light instead of the perceptual curve */
  gchar *output_file; /* CSV or JSON by extension; NULL or "" for none */
  int bins;           /* per channel: 256 (0 means 256), 1024, 4096, 16384 or 65536; 8-bit and
                         indexed layers always count into 256 */
} GpuhistSettings;

/* TRUE for the bin counts the procedure accepts: 256, 1024, 4096, 16384, 65536. */
gboolean gpuhist_bins_valid (int bins);

/* Results of one measurement of a layer, and optionally of synthetic flat and noise images of
 * the same size for the contention comparison. */
typedef struct
{
  gh_result layer;
  gh_result flat; /* flat.channels == 0 when not run */
  gh_result noise;
  double fetch_ms;      /* reading the pixels from GIMP, converting included */
  double total_ms;      /* from the first fetch to the last count */
  double engine_ms;     /* waiting for the engine before the first fetch (GpuhistEngineStart) */
  gboolean engine_kept; /* the resident process's engine from an earlier run */
  /* Where total_ms went besides fetch_ms (the JSON's phases_ms): the engine setting the run up,
   * handing it the strips (waiting for a free staging buffer included), the last count, and
   * telling GIMP the progress. */
  double begin_ms;
  double submit_ms;
  double finish_ms;
  double progress_ms;
  int channels;
  const char *channel_names[GH_MAX_CHANNELS];
  gchar *drawable_name;
  /* Added by the core (plugin/core.c); zero or NULL when unknown. */
  GeglRectangle area;  /* the rectangle that was counted, in the drawable's coordinates */
  gboolean linear;     /* binned in linear light */
  gchar *fetch_format; /* babl name of the format read from GIMP; owned */
  gchar *note;         /* a remark for the user (e.g. which of several selected drawables
                          was used), set by the glue; owned; NULL for none */
  int requested_bins;  /* what the settings asked for; layer.bins says what was counted (256
                          for 8-bit and indexed layers whatever was asked) */
} GpuhistReport;

/* Progress and cancellation for long runs; either may be NULL.  progress gets 0..1; cancelled
 * returning TRUE stops the run with G_IO_ERROR_CANCELLED. */
typedef struct
{
  void (*progress) (double fraction, gpointer user_data);
  gboolean (*cancelled) (gpointer user_data);
  gpointer user_data;
} GpuhistMonitor;

#define GPUHIST_ERROR (gpuhist_error_quark ())
GQuark gpuhist_error_quark (void);

/* Reads the source in tile-aligned strips straight into the engine and counts.  On a GPU failure
 * it falls back to the CPU and says so in report->layer.backend.  Never changes the image.
 * `report` must be zero-filled or cleared with gpuhist_report_clear: what it held is cleared
 * first, so the same report can be measured again (the dialog's Re-run).  The engine's methods
 * and repetitions are set from settings (repetitions 0: FASTEST once, untimed). */
gboolean gpuhist_core_measure (gh_engine *engine, const GpuhistSource *source,
                               const GpuhistSettings *settings, const GpuhistMonitor *monitor,
                               GpuhistReport *report, GError **error);

/* Adds the flat and noise rows to the report (same size and channels as the layer). */
gboolean gpuhist_core_compare_patterns (gh_engine *engine, const GpuhistSettings *settings,
                                        GpuhistReport *report, GError **error);

/* Writes the report as CSV or JSON, chosen by the file's extension. */
gboolean gpuhist_core_write (const GpuhistReport *report, const char *path, GError **error);

void gpuhist_report_clear (GpuhistReport *report);
void gpuhist_source_clear (GpuhistSource *source);

/* Everything below was added to the contract by the plug-in issue; all of it is
 * GIMP-version-independent. */

/* --- the engine: where it comes from and how long it lives (engine-keeper.c) --- */

/* Strips of about this many bytes of 8-bit samples: small enough that the progress bar moves and
 * that reading the next strip overlaps counting the last one, large enough that a strip costs
 * the engine little.  The engine's staging is two of them. */
#define GPUHIST_STRIP_TARGET_BYTES ((size_t) 8 << 20)

/* How a run got its engine. */
typedef struct
{
  double waited_ms; /* blocked waiting for it (the GPU's start-up left after GIMP's set-up) */
  gboolean kept;    /* the resident process kept it from an earlier run: no start-up at all */
} GpuhistEngineStart;

/* Starts making the engine on a thread, so that the GPU's start-up (about 0.2 s on the GPU
 * machine) overlaps GIMP's own set-up of the run; nothing when an engine is kept.  The next
 * gpuhist_core_engine_new takes it.  A run that ends before that calls
 * gpuhist_core_engine_discard, which waits for it and is done with it. */
void gpuhist_core_engine_prepare (void);
void gpuhist_core_engine_discard (void);

/* The kept engine, or the one gpuhist_core_engine_prepare started, or a new one with the
 * defaults (the GPU when usable, else the CPU with the reason recorded); NULL only when no engine
 * at all can be had.  start (may be NULL) says how.  Hand it back to gpuhist_core_engine_done. */
gh_engine *gpuhist_core_engine_new (GpuhistEngineStart *start, GError **error);
/* Keeps a GPU engine for the next run when gpuhist_core_keep_engines said so, else frees it. */
void gpuhist_core_engine_done (gh_engine *engine);

/* For the resident process: keep GPU engines between runs, and let them go (with the GPU's
 * context: gh_release_gpu) after idle_seconds without a run; 0 keeps none. */
void gpuhist_core_keep_engines (guint idle_seconds);
/* Frees a kept engine that has been idle long enough.  Returns the milliseconds until it will
 * have been (call again then), or 0 when no engine is kept. */
guint gpuhist_core_engine_release_idle (void);
/* GPUHIST_KEEP_GPU_SECONDS (0 to 86400), else the default. */
#define GPUHIST_DEFAULT_KEEP_GPU_SECONDS 60
guint gpuhist_resident_idle_seconds (void);

/* A GError from the engine's error (GPUHIST_ERROR, the engine's status as the code). */
void gpuhist_set_engine_error (GError **error, const gh_error *gherr);

/* What kind of drawable the source is: a layer (RGB, gray or indexed, with or without alpha), or
 * a layer mask or channel (always one channel, "gray", in the curve asked for, like a gray
 * layer). */
typedef enum
{
  GPUHIST_DRAWABLE_LAYER,
  GPUHIST_DRAWABLE_MASK_OR_CHANNEL
} GpuhistDrawableKind;

/* Fills *source for reading `area` of `buffer` (plugin/source.c).  Picks the fetch format: the
 * perceptual curve (R'G'B', Y') by default or linear light (RGB, Y) when `linear`, always in the
 * buffer's own colour space; the buffer's own format when it already matches (no conversion in
 * GIMP at all), else 8 bits when the buffer is 8-bit or indexed (indexed layers count their
 * colours), else a wider type that the core narrows to 8 bits (see gpuhist_core_measure).
 * Takes a reference on nothing: the caller keeps `buffer` alive until the source is cleared.
 * Fails (GPUHIST_ERROR) for an empty area or an area outside the buffer. */
gboolean gpuhist_source_init (GpuhistSource *source, GeglBuffer *buffer, const GeglRectangle *area,
                              GpuhistDrawableKind kind, gboolean linear, const gchar *name,
                              GError **error);

/* For benchmarks only (tools/bench-gimp): with GPUHIST_FETCH_ONLY=1 in the plug-in's environment
 * (gpuhist_fetch_only_requested), a non-interactive run calls gpuhist_core_fetch_only instead of
 * measuring: it reads the source exactly as a 256-bin run does (same strips, format and
 * conversions) and counts nothing.  The report gets the channels, fetch_ms and the backend
 * GPUHIST_FETCH_ONLY_BACKEND; gpuhist_fetch_only_timings returns timings of -1 but the last,
 * the fetch. */
gboolean gpuhist_fetch_only_requested (void);
gboolean gpuhist_core_fetch_only (const GpuhistSource *source, GpuhistReport *report,
                                  GError **error);
gdouble *gpuhist_fetch_only_timings (const GpuhistReport *report, gint *n_timings);
#define GPUHIST_FETCH_ONLY_BACKEND "fetch only (GPUHIST_FETCH_ONLY=1)"

/* The values returned to the PDB: counts as doubles (n_channels * bins, channel by channel, exact
 * up to 2^53), and timings in ms: global atomics, privatized, fastest, read-only, upload, fetch
 * from GIMP; -1 where not run.  Return newly allocated arrays (g_free). */
#define GPUHIST_N_RETURN_TIMINGS 6
gdouble *gpuhist_report_counts (const GpuhistReport *report, gint *n_counts);
gdouble *gpuhist_report_timings (const GpuhistReport *report, gint *n_timings);

/* Narrowing of high-bit-depth samples to the 256 bins (exposed for the tests):
 *   integers: the nearest level, v8 = floor (v * 255 / max + 0.5);
 *   half, float and double: bin = floor (v * 255 + 0.5) for 0 <= v < 1 (computed in double);
 *   v < 0, -inf and NaN go to bin 0, v >= 1 and +inf to bin 255.
 * `type` is a babl type name: "u8", "u16", "u32", "half", "float" or "double". */
gboolean gpuhist_convert_samples (const char *type, const void *src, size_t n_samples,
                                  uint8_t *dst);

/* Widening or narrowing to 16-bit samples for more than 256 bins (exposed for the tests):
 *   u16: copied; u32: the nearest level, floor (v * 65535 / (2^32 - 1) + 0.5);
 *   half, float and double: floor (v * 65535 + 0.5) for 0 <= v <= 1 (computed in double);
 *   v < 0, -inf and NaN go to 0, v > 1 and +inf to 65535.
 * The engine then bins a sample v into v * bins / 65536. */
gboolean gpuhist_convert_samples16 (const char *type, const void *src, size_t n_samples,
                                    uint16_t *dst);

/* The 2.10 and 3.0 glue share the whole non-interactive run: creates the engine, measures, puts
 * note (when not NULL) into the report, and writes settings->output_file when set.  On success
 * the report is filled (clear it). */
gboolean gpuhist_core_run (const GpuhistSource *source, const GpuhistSettings *settings,
                           const GpuhistMonitor *monitor, const char *note, GpuhistReport *report,
                           GError **error);

G_END_DECLS

#endif /* GPUHIST_CORE_H */
