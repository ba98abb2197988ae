/* gpu-histogram: the types of the plug-in's GIMP-version-independent core.
 *
 * The layers of plugin/, leaf-ward (no file includes one above it), in three rooms: run/ (the
 * run), ui/ (the interface) and glue/ (each GIMP's own):
 *   errors.h, convert.h          the error domains; narrowing samples (pure)
 *   file-replace.h               a file written beside its destination, renamed over it whole
 *   core.h                       these types
 *   source.h, stream.h           what to read and in which format; reading it in strips
 *   measure.h, fetch-only.h      counting it with the engine; the benchmark's read-only hook
 *   report.h                     the report's lifetime, PDB arrays, CSV, JSON and scope PNGs
 *   engine-keeper.h              where the engine comes from and how long it lives
 *   run.h                        the run sequence: take an engine, measure, give it back
 *   dialog*.h, histogram-view.h  the interactive dialog (GTK), and its charts (chart*.h)
 *   flow.h, texts.h              the one run flow of both GIMPs, behind a table of what differs
 *   host-common.h, watch.h       the entries of that table both libgimps spell alike; polling
 *   glue2.h, glue3.h             each GIMP's registration, arguments and that table (gimp2*.c,
 *                                gimp3*.c, one file a procedure)
 * Nothing below flow.h includes libgimp, so no file below the glue needs a version check.
 */
#ifndef GPUHIST_CORE_H
#define GPUHIST_CORE_H

#include <gegl.h>

#include "errors.h"
#include "gpuhist.h"

G_BEGIN_DECLS

/* The channels a report can hold: the drawable's, then value and luminance for RGB layers. */
#define GPUHIST_MAX_COUNTED_CHANNELS (GH_MAX_CHANNELS + 2)

/* What kind of drawable the source is: a layer (RGB, gray or indexed, with or without alpha), or
 * a layer mask or channel (always one channel, "gray", in the curve asked for, like a gray
 * layer). */
typedef enum
{
  GPUHIST_DRAWABLE_LAYER,
  GPUHIST_DRAWABLE_MASK_OR_CHANNEL
} GpuhistDrawableKind;

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
  /* The selection's shape, read beside the pixels as the engine's coverage plane; NULL when
   * nothing is selected, so that no plane is fetched at all (gpuhist_source_set_coverage). */
  GeglBuffer *coverage_buffer;  /* the selection channel's buffer, image coordinates; not owned */
  int coverage_dx, coverage_dy; /* the drawable's offsets: area + offset is the mask's rect */
  const Babl *coverage_format;  /* "Y u8" or "Y u16": the mask's own width, never float */
  int coverage_bytes;           /* 0 (no plane), 1 or 2 */
  /* GIMP's rules for this drawable: its last channel is a layer's alpha, which weighs the colour
   * (gray) channels; it is RGB (or indexed, read as RGB), so value and luminance are added. */
  gboolean alpha_weighs;
  gboolean derived;
  GpuhistDrawableKind kind;
} GpuhistSource;

/* How pixels weigh (the procedure's `weighting`): as GIMP's histogram counts them (selection
 * coverage, alpha), or whole pixels where the selection covers at least one half, alpha ignored
 * (exact integer counts). */
typedef enum
{
  GPUHIST_WEIGHTING_GIMP,
  GPUHIST_WEIGHTING_PIXELS
} GpuhistWeighting;

/* What is counted (the procedure's `source`): the drawable, or the image as shown (every
 * visible layer composited), made without touching the image. */
typedef enum
{
  GPUHIST_SOURCE_DRAWABLE,
  GPUHIST_SOURCE_VISIBLE
} GpuhistSourceKind;

typedef struct
{
  int repetitions;    /* timed runs per method; 0: the histogram once with FASTEST */
  gboolean linear;    /* bin in linear light instead of the perceptual curve */
  gchar *output_file; /* CSV or JSON by extension; NULL or "" for none */
  int bins;           /* per channel: 256 (0 means 256), 1024, 4096, 16384 or 65536; 8-bit and
                         indexed layers always count into 256 */
  GpuhistWeighting weighting;
  GpuhistSourceKind source;
  /* Whose Luminance: the GIMP the plug-in was built for, set by its glue (gimp2.c: GIMP2,
   * gimp3.c: GIMP3); the stream counts GIMP3's in linear light when `linear` (stream.h). */
  gh_luminance luminance;
  gboolean follow; /* the dialog counts again by itself when the image changes */
  /* Scopes beside the histogram (plug-in-gpu-scopes): the waveform of every channel counted,
   * and the vectorscope of RGB sources. */
  gboolean scopes;
  int waveform_columns; /* GPUHIST_DEFAULT_COLUMNS, or 1 to the width counted */
} GpuhistSettings;

/* waveform_columns 0: GPUHIST_WIDE_COLUMNS, or the width counted when it is narrower. */
#define GPUHIST_DEFAULT_COLUMNS 0
#define GPUHIST_WIDE_COLUMNS 1024

/* The waveform's columns for a run `width` pixels wide: the settings' or the default. */
int gpuhist_waveform_columns (const GpuhistSettings *settings, int width);

/* Results of one measurement of a layer, and optionally of synthetic images of the same size for
 * the contention comparison (gh_pattern: flat and noise). */
typedef struct
{
  gh_result layer;
  gh_result patterns[GH_N_PATTERNS]; /* by gh_pattern; channels == 0 when not run */
  double fetch_ms;                   /* reading the pixels from GIMP, converting included */
  double total_ms;                   /* from the first fetch to the last count */
  double engine_ms;     /* waiting for the engine before the first fetch (GpuhistKeeperStart) */
  gboolean engine_kept; /* the resident process's engine from an earlier run */
  /* Where total_ms went besides fetch_ms (the JSON's phases_ms): the engine setting the run up,
   * handing it the strips (waiting for a free staging buffer included), the last count, and
   * telling GIMP the progress. */
  double begin_ms;
  double submit_ms;
  double finish_ms;
  double progress_ms;
  int channels; /* counted: the drawable's, then value and luminance (layer.derived) */
  const char *channel_names[GPUHIST_MAX_COUNTED_CHANNELS];
  gchar *drawable_name;
  /* Added by the measurement (measure.c); zero or NULL when unknown. */
  GeglRectangle area;  /* the rectangle that was counted, in the drawable's coordinates */
  gboolean linear;     /* binned in linear light */
  gchar *fetch_format; /* babl name of the format read from GIMP; owned */
  gchar *note;         /* a remark for the user (e.g. which of several selected drawables
                          was used), set by the glue; owned; NULL for none */
  int requested_bins;  /* what the settings asked for; layer.bins says what was counted (256
                          for 8-bit and indexed layers whatever was asked) */
  /* What was counted, for the dialog's line that says so (gpuhist_format_counted). */
  GpuhistWeighting weighting;
  GpuhistSourceKind source_kind;
  GpuhistDrawableKind drawable_kind;
  gboolean selection;   /* a selection's coverage plane was read (a selection was there) */
  gboolean layer_alpha; /* a layer with alpha: it weighs the colours under weighting gimp */
} GpuhistReport;

/* Progress and cancellation for long runs; either may be NULL.  progress gets 0..1; cancelled
 * returning TRUE stops the run with G_IO_ERROR_CANCELLED. */
typedef struct
{
  void (*progress) (double fraction, gpointer user_data);
  gboolean (*cancelled) (gpointer user_data);
  gpointer user_data;
} GpuhistMonitor;

/* TRUE for the bin counts the procedure accepts: 256, 1024, 4096, 16384, 65536. */
gboolean gpuhist_bins_valid (int bins);

G_END_DECLS

#endif /* GPUHIST_CORE_H */
