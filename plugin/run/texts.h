/* gpu-histogram: the procedure's names and texts, the same in GIMP 2.10 and 3.0.
 *
 * The translatable ones are N_ () here: the glue passes them to GIMP (which translates the menu
 * label and blurb with the plug-in's domain) or through _ () where it shows them itself.
 */
#ifndef GPUHIST_TEXTS_H
#define GPUHIST_TEXTS_H

#include <glib/gi18n-lib.h>

#define PLUG_IN_PROC "plug-in-gpu-histogram"
#define PLUG_IN_BINARY "gpu-histogram"
#define PLUG_IN_ROLE "gimp-gpu-histogram"

/* The resident process: GIMP starts the extension (no arguments) with itself; it installs the
 * temporary procedure, which takes the same arguments and returns the same values as
 * PLUG_IN_PROC, and keeps the GPU ready between runs (engine-keeper.c).  PLUG_IN_PROC hands its
 * runs to it; the temporary procedure answers GIMP_PDB_PASS_THROUGH while it is busy (its dialog
 * is open; GIMP 3.0: the error GPUHIST_RESIDENT_BUSY), and PLUG_IN_PROC then counts in its own
 * process, as it also does when the extension is not there.  GPUHIST_RESIDENT=0 in GIMP's
 * environment turns the hand-over off. */
#define GPUHIST_RESIDENT_EXTENSION "extension-gpu-histogram"
#define GPUHIST_RESIDENT_PROC "plug-in-gpu-histogram-resident"
/* GIMP 3.0: the resident procedure's error when it is busy (its dialog open); the caller, which
 * handles its errors itself, then counts in its own process.  Never shown. */
#define GPUHIST_RESIDENT_BUSY "gpu-histogram: the resident process is busy"
#define GPUHIST_RESIDENT_EXTENSION_BLURB "Keeps the GPU ready between GPU Histogram runs"
#define GPUHIST_RESIDENT_EXTENSION_HELP                                                            \
  "GIMP starts this with itself.  It opens the GPU at the first plug-in-gpu-histogram run, keeps " \
  "it open between runs, and closes it after a minute without one (GPUHIST_KEEP_GPU_SECONDS)."
#define GPUHIST_RESIDENT_PROC_BLURB "GPU Histogram in the resident process"
#define GPUHIST_RESIDENT_PROC_HELP                                                                 \
  "Takes the same arguments and returns the same values as plug-in-gpu-histogram, which hands "    \
  "its runs to it."

#define GPUHIST_AUTHORS "gpu-histogram authors"
#define GPUHIST_MENU_PATH "<Image>/Filters/Analysis"
#define GPUHIST_MENU_LABEL N_ ("GPU Histogram…")
#define GPUHIST_ICON_FILE "gpu-histogram-16.png"

#define GPUHIST_BLURB                                                                              \
  N_ ("Count the levels of each channel on the GPU and compare how fast different methods do "     \
      "it")
#define GPUHIST_HELP                                                                               \
  N_ ("Counts the histogram of each channel of the drawable (the first of the selected "           \
      "drawables) as GIMP's Histogram does: with weighting gimp each pixel weighs its selection "  \
      "coverage (feathered edges in part) and the colour channels also weigh alpha; with "         \
      "weighting pixels every pixel whose coverage is at least one half counts once.  RGB and "    \
      "indexed layers add Value and Luminance.  Source visible counts the image as it is shown.  " \
      "It counts on an NVIDIA GPU when one is usable (else on the CPU, saying why), and "          \
      "times the global-atomics, privatized and fastest methods against a read-only pass.  "       \
      "Perceptual levels by default, linear light on request.  8-bit and indexed layers count "    \
      "into 256 bins; deeper layers into the bins asked for, by GIMP's rule bin = floor (v * "     \
      "(bins - 1) + 0.5) of the value v in 0..1 (half and float narrowed to 16 bits first); "      \
      "below 0 and NaN count in the first bin, above 1 in the last.  Any other bin count is an "   \
      "error.  The image is never changed.")

/* The arguments after run-mode, image and drawable(s), the same for the resident procedure. */
#define GPUHIST_ARG_OUTPUT_FILE_DOC                                                                \
  N_ ("Write the results there, CSV or JSON by the extension (.csv, .json); empty for none")
#define GPUHIST_ARG_REPETITIONS_DOC                                                                \
  N_ ("Timed runs per method; 0 counts once with the fastest method, untimed")
#define GPUHIST_ARG_LINEAR_DOC N_ ("Bin in linear light instead of the perceptual curve")
#define GPUHIST_ARG_BINS_DOC                                                                       \
  N_ ("Bins per channel: 256, 1024, 4096, 16384 or 65536 (every 16-bit level); 8-bit and "         \
      "indexed layers always count into 256")
#define GPUHIST_ARG_WEIGHTING_DOC                                                                  \
  N_ ("How pixels weigh: gimp (as GIMP's histogram: selection coverage and alpha) or pixels "      \
      "(whole pixels where the selection covers at least half, alpha ignored)")
#define GPUHIST_ARG_SOURCE_DOC                                                                     \
  N_ ("What to count: drawable, or visible (the image as shown, every visible layer)")
#define GPUHIST_MAX_REPETITIONS 1000
#define GPUHIST_DEFAULT_REPETITIONS 5

/* plug-in-gpu-scopes: the waveform (and RGB parade) and the vectorscope, for scripts. */
#define GPUHIST_SCOPES_PROC "plug-in-gpu-scopes"
/* Its twin in the resident process, as GPUHIST_RESIDENT_PROC is plug-in-gpu-histogram's: a
 * script's call then counts on the kept engine instead of starting the GPU again. */
#define GPUHIST_SCOPES_RESIDENT_PROC "plug-in-gpu-scopes-resident"
#define GPUHIST_SCOPES_RESIDENT_PROC_BLURB "GPU scopes in the resident process"
#define GPUHIST_SCOPES_RESIDENT_PROC_HELP                                                          \
  "Takes the same arguments and returns the same values as plug-in-gpu-scopes, which hands its "   \
  "runs to it."
#define GPUHIST_SCOPES_BLURB                                                                       \
  N_ ("Count the waveform, RGB parade and vectorscope of a drawable exactly, on the GPU")
#define GPUHIST_SCOPES_HELP                                                                        \
  N_ ("Counts, at full resolution and exactly, the waveform of every channel that "                \
      "plug-in-gpu-histogram counts (for each output column of the area, a histogram of its "      \
      "levels; the RGB parade is its red, green and blue side by side) and, for RGB and indexed "  \
      "layers, the 256 × 256 vectorscope of Rec.709 chroma (Cb across, Cr up), weighted as "      \
      "GIMP's histogram weighs pixels (weighting gimp) or as whole pixels (weighting pixels).  "   \
      "Levels at GIMP's own bin count: 256 for 8-bit and indexed layers, 1024 for deeper ones, "   \
      "perceptual.  The counts go to output-file: .json for the counts (the histogram beside "     \
      "them), .png for the charts NAME-waveform.png, NAME-parade.png and NAME-vectorscope.png.  "  \
      "A gray layer has a waveform and no vectorscope.  The image is never changed.")
#define GPUHIST_SCOPES_ARG_OUTPUT_FILE_DOC                                                         \
  N_ ("Write the scopes there: .json for the counts, .png for the charts (NAME-waveform.png, "     \
      "NAME-parade.png, NAME-vectorscope.png beside it); empty for none")
#define GPUHIST_SCOPES_ARG_COLUMNS_DOC                                                             \
  N_ ("The waveform's output columns: 0 for 1024 (or the width counted when it is narrower), "     \
      "else 1 to the width counted")
#define GPUHIST_SCOPES_RET_COLUMNS_DOC "The waveform's output columns counted"
#define GPUHIST_SCOPES_RET_BINS_DOC "The levels counted per channel: 256, or 1024 above 8 bits"
/* What plug-in-gpu-scopes counts with: GIMP's own bin count (an 8-bit layer counts 256 whatever
 * is asked), fastest method once. */
#define GPUHIST_SCOPES_BINS 1024

/* The return values both versions describe alike (counts differs: each GIMP's Script-Fu has its
 * own limit). */
#define GPUHIST_RET_N_CHANNELS_DOC                                                                 \
  "Channels counted (1 to 6): the drawable's, then value and luminance for RGB layers"
#define GPUHIST_RET_CHANNEL_NAMES_DOC                                                              \
  "The channels' names in the order of counts: red, green, blue, alpha, gray, value, luminance"
#define GPUHIST_RET_BACKEND_DOC "The GPU, driver and runtime that counted, or the CPU and why"
#define GPUHIST_RET_TIMINGS_DOC                                                                    \
  "Milliseconds: global atomics, privatized, fastest, read-only, upload, fetch from GIMP; -1 "     \
  "where not run"

#endif /* GPUHIST_TEXTS_H */
