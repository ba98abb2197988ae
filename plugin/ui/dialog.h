/* gpu-histogram: the interactive dialog, the same code in GIMP 2.10 (GTK 2) and GIMP 3.0 (GTK 3).
 *
 * It shows a report that the glue has already measured: the histogram of each channel and, from
 * the same count, the waveform, RGB parade and vectorscope (tabs of charts, chart.h), their
 * statistics, the timing table with the speedup of privatization over global atomics as the
 * headline, and the backend.  The user can select a range of levels and read its statistics,
 * change the repetitions, bins, weighting and source and run again, compare with flat and noisy
 * inputs of the layer's size, export CSV or JSON and copy the tables.  Long work
 * runs in a worker thread while the dialog shows progress and offers Cancel.
 *
 * The glue calls gimp_ui_init first, since that call differs between the versions.
 */
#ifndef GPUHIST_DIALOG_H
#define GPUHIST_DIALOG_H

#include "core.h"

G_BEGIN_DECLS

/* Saves the settings the way this GIMP version does (gimp_set_data in 2.10, the procedure
 * config in 3.0).  Called from the main thread after each re-run and when the dialog closes. */
typedef void (*GpuhistSaveSettingsFunc) (const GpuhistSettings *settings, gpointer user_data);

typedef struct
{
  gh_engine *engine;           /* runs Re-run and Compare; not owned, outlives the dialog */
  const GpuhistSource *source; /* the layer measured again by Re-run; not owned */
  GpuhistSettings *settings;   /* in: what the report was measured with; out: the repetitions
                                  the user left in the dialog.  output_file is not used here */
  GpuhistReport *report;       /* in: the first measurement; out: the latest one, flat and
                                  noise rows included when the user compared */
  GpuhistSaveSettingsFunc save_settings; /* may be NULL */
  gpointer save_settings_data;
  /* Says whether the image is still open (the user may close it while the dialog is open);
   * Re-run refuses, saying why, and following stops when it is not.  May be NULL. */
  gboolean (*source_exists) (gpointer user_data);
  gpointer source_exists_data;
  /* What a count reads, opened on the main thread before each count: a copy that GIMP makes of
   * the drawable active now (the dialog follows it) or of the visible image, never inserted, so
   * that an edit, a deletion or a resize while the worker counts cannot reach what it reads;
   * close_source deletes it once the count is over.  NULL with *error set when there is none
   * (no visible layer, a layer group, a selection beside the drawable).  May be NULL: the
   * counts then read params->source. */
  const GpuhistSource *(*open_source) (GpuhistSourceKind kind, gpointer user_data, GError **error);
  void (*close_source) (gpointer user_data);
  gpointer open_source_data;
  /* What following compares every half second (watch.h): a few bytes that change when the
   * counted pixels, the active drawable or the selection change; NULL once the image is gone.
   * May be NULL: the dialog then does not offer to follow. */
  GBytes *(*signature) (GpuhistSourceKind kind, gpointer user_data);
  gpointer signature_data;
} GpuhistDialogParams;

/* Runs the dialog until the user closes it; work in progress is cancelled and waited for.
 * Returns TRUE when params->report holds a histogram (the glue returns its values), FALSE when
 * the dialog could not be shown (bad parameters). */
gboolean gpuhist_dialog_run (const GpuhistDialogParams *params);

/* An interactive run, for the glue: measures the source once (GIMP's progress bar showing it),
 * then calls init_ui (the version's gimp_progress_end and gimp_ui_init) and runs the dialog.
 * note, when not NULL, goes into the report (which drawable of several was counted).  hooks gives
 * the save_settings and source_exists callbacks (its other fields are not used).  FALSE with
 * *error set when the measurement failed or the dialog could not be shown. */
gboolean gpuhist_dialog_measure_and_run (const GpuhistSource *source, GpuhistSettings *settings,
                                         const GpuhistMonitor *monitor, GpuhistReport *report,
                                         const char *note, void (*init_ui) (void),
                                         const GpuhistDialogParams *hooks, GError **error);

G_END_DECLS

#endif /* GPUHIST_DIALOG_H */
