/* gpu-histogram: what the dialog's files share (not for use outside dialog*.c).
 *
 *   dialog.c         building the window, pane by pane, and running it
 *   dialog-tables.c  filling the tables, the headline and every chart from the report
 *   dialog-worker.c  Re-run and Compare on a worker thread (GTask), progress and Cancel
 *   dialog-follow.c  following the image: polling, the debounce, out of date, image closed
 *   dialog-bench.c   the dialog's own measurements for tools/bench-follow (off by default)
 *   dialog-export.c  Export, Copy table and Help
 *   dialog-channels.c the channel boxes under the charts
 *   chart*.c         the charts, a notebook page each (chart.h)
 *   dialog-format.c  the texts and cells, without GTK
 */
#ifndef GPUHIST_DIALOG_PRIVATE_H
#define GPUHIST_DIALOG_PRIVATE_H

#include <libgimp/gimp.h>
#include <libgimp/gimpui.h>

#include "chart.h"
#include "dialog-format.h"
#include "dialog.h"
#include "histogram-view.h"
#include "strip-fetch.h"

G_BEGIN_DECLS

typedef enum
{
  GPUHIST_JOB_NONE,
  GPUHIST_JOB_MEASURE,
  GPUHIST_JOB_COMPARE
} GpuhistJobKind;

/* The Bins combo's entries, in order. */
#define GPUHIST_N_BIN_CHOICES 5
extern const int gpuhist_bin_choices[GPUHIST_N_BIN_CHOICES];

/* Declared in chart.h too, for the charts' functions. */
typedef struct GpuhistDialog GpuhistDialog;
struct GpuhistDialog
{
  GpuhistDialogParams params;

  GtkWidget *dialog;
  GtkWidget *headline;
  GtkWidget *subline;
  GtkWidget *counted; /* what was counted (gpuhist_format_counted) */
  GtkWidget *info;
  GtkWidget *backend_icon;
  GtkWidget *backend;
  GtkWidget *notebook;
  GtkWidget *chart_pages[GPUHIST_N_CHARTS]; /* gpuhist_charts' pages, in their order */
  GtkWidget *view;                          /* the histogram chart's (chart-histogram.c) */
  GtkWidget *bin_label;
  GtkWidget *log_toggle;
  GtkWidget *channel_box; /* the channel boxes, under the charts (dialog-channels.c) */
  /* The layer's channels, then value and luminance, whose toggles (labels of their own) show
   * only for RGB layers. */
  GtkWidget *channel_toggles[GPUHIST_MAX_COUNTED_CHANNELS];
  GtkListStore *stats_store;
  GtkWidget *range_label;
  GtkListStore *range_store;
  GtkListStore *timing_store;
  GtkListStore *compare_store;
  GtkWidget *compare_caption;
  GtkWidget *compare_tree;
  GtkWidget *compare_button;
  GtkWidget *repetitions;
  GtkWidget *bins_combo;
  GtkWidget *weighting_combo; /* GpuhistWeighting, in order */
  GtkWidget *source_combo;    /* GpuhistSourceKind, in order */
  GtkWidget *strategy;
  GtkWidget *rerun_button;
  GtkWidget *export_button;
  GtkWidget *copy_button;
  GtkWidget *progress_box;
  GtkWidget *progress;
  GtkWidget *cancel_button;
  GtkWidget *status;

  GtkWidget *follow_toggle;
  GtkWidget *stale; /* says that the tables are out of date while a change is counted */

  /* The worker (a GTask in GLib's pool).  The main thread starts it and finishes it in
   * job_finished; while it runs, the controls that read or change the report are insensitive,
   * except those whose change cancels the count and counts again. */
  GpuhistJobKind job;
  gboolean job_automatic; /* started by following: the focus stays where it is */
  GCancellable *cancellable;
  gint progress_permille; /* atomic: -1 while unknown */
  guint progress_source;
  gint64 job_started_us;
  GpuhistSettings job_settings;
  /* What a count's worker reads: the glue's copy of the drawable (open_source), fetched strip by
   * strip on the main thread (strip-fetch.h). */
  const GpuhistSource *job_source;
  GpuhistStripFetch *fetch;
  GpuhistReport job_report;
  gboolean job_ok;
  GError *job_error;
  gboolean closing;

  /* Following (dialog-follow.c). */
  guint poll_source;
  guint debounce_source;
  GBytes *seen;         /* the signature last polled */
  gboolean count_again; /* a change came while a count ran: count once it has stopped */
  gboolean held;        /* job_report is a whole count of following's, waiting for the debounce */
  gboolean image_gone;  /* the image was closed: nothing is followed any more */
  GpuhistFetchTimes fetch_times; /* the last count's fetch on the main thread */
  gint64 worker_at_us;           /* when the last count's worker started (monotonic) */
  gint64 counted_at_us;          /* when the last count's worker ended (monotonic) */

  /* dialog-bench.c, with GPUHIST_DIALOG_BENCH only. */
  guint bench_tick;
  gint64 open_us;     /* the last count's open_source: GIMP copying the drawable */
  gint64 poll_max_us; /* the longest poll since the last count's start */
  gint64 bench_last_tick_us, bench_longest_gap_us;
  int bench_counts, bench_repeats_left;
};

/* dialog-tables.c */
GtkWidget *gpuhist_dialog_table_new (GtkListStore *store, const char *accessible_name,
                                     const char *const *titles, int n_columns);
GtkListStore *gpuhist_dialog_store_new (int n_columns);
void gpuhist_dialog_update_all (GpuhistDialog *d);
/* The timing table, the line under it and the contention table, for the chart shown: its
 * scope's table for a scope chart, the histogram's otherwise. */
void gpuhist_dialog_fill_tables (GpuhistDialog *d);
void gpuhist_dialog_fill_compare (GpuhistDialog *d);
/* The contention table as large as Compare will make it (the layer's row standing in for the
 * flat and the noise rows), for measuring the dialog. */
void gpuhist_dialog_fill_compare_as_compared (GpuhistDialog *d);
void gpuhist_dialog_set_status (GpuhistDialog *d, const char *text);
/* dialog-channels.c: the channel boxes under the charts.  _new builds them (d->channel_box),
 * _update labels and shows those of the report's channels, _follow_chart makes them sensitive
 * while the chart shown follows them (chart.h, channels_changed). */
GtkWidget *gpuhist_dialog_channels_new (GpuhistDialog *d);
void gpuhist_dialog_channels_update (GpuhistDialog *d);
void gpuhist_dialog_channels_follow_chart (GpuhistDialog *d);
/* The report's channels whose boxes are checked (bit c: channel c); 0 for none. */
unsigned gpuhist_dialog_chosen_channels (GpuhistDialog *d);
/* dialog.c: the chart of the page shown (its index in gpuhist_charts). */
int gpuhist_dialog_shown_chart (GpuhistDialog *d);
/* The scope of the chart shown (gh_scope_kind), or -1 for the histogram. */
int gpuhist_dialog_shown_scope (GpuhistDialog *d);
/* A swatch of the channel's colour, then text (plain, or with a mnemonic). */
gchar *gpuhist_dialog_channel_markup (const char *channel_name, const char *text);
void gpuhist_dialog_range_changed (GpuhistHistogramView *view, gpointer data);

/* dialog-worker.c */
/* Asks the count of this source for the scopes that the charts draw, the waveform no larger
 * than it may be (gpuhist_charts_waveform_columns). */
void gpuhist_dialog_ask_for_scopes (GpuhistSettings *settings, const GpuhistSource *source);
void gpuhist_dialog_save_settings (GpuhistDialog *d);
void gpuhist_dialog_set_busy (GpuhistDialog *d, gboolean busy);
void gpuhist_dialog_cancel_clicked (GtkButton *button, gpointer data);
void gpuhist_dialog_rerun_clicked (GtkButton *button, gpointer data);
void gpuhist_dialog_compare_clicked (GtkButton *button, gpointer data);
/* Starts a count of the source now picked; cancels the running one first, counting once it has
 * stopped.  automatic: started by following, not by Re-run. */
void gpuhist_dialog_count (GpuhistDialog *d, gboolean automatic);
/* Cancels the running job, if any, and waits for it, keeping the main loop alive. */
void gpuhist_dialog_stop_job (GpuhistDialog *d);
/* A count of following's that ended while its change waited for the debounce is held until the
 * debounce ends: _show_held shows it (FALSE when none is held), _drop_held forgets it. */
gboolean gpuhist_dialog_show_held (GpuhistDialog *d);
void gpuhist_dialog_drop_held (GpuhistDialog *d);
gboolean gpuhist_dialog_image_open (GpuhistDialog *d);

/* dialog-bench.c: nothing unless GPUHIST_DIALOG_BENCH names a file.  job_finished returns
 * TRUE when GPUHIST_DIALOG_REPEAT asks for another count. */
void gpuhist_dialog_bench_job_started (GpuhistDialog *d);
gboolean gpuhist_dialog_bench_job_finished (GpuhistDialog *d, gboolean ok);
void gpuhist_dialog_bench_change_seen (void);

/* dialog-follow.c */
void gpuhist_dialog_follow_start (GpuhistDialog *d);
void gpuhist_dialog_follow_stop (GpuhistDialog *d);
/* When a count has ended: TRUE when the image changed since the last poll (then count_again is
 * set: the caller counts again) or a change is waiting for its debounce, so that the new tables
 * are out of date already. */
gboolean gpuhist_dialog_follow_outdated (GpuhistDialog *d);
/* Whether a change seen is still waiting for the debounce's quiet; _forget_change stops waiting
 * (Cancel: the change stays uncounted, the tables out of date, until the next change). */
gboolean gpuhist_dialog_follow_settling (GpuhistDialog *d);
void gpuhist_dialog_follow_forget_change (GpuhistDialog *d);
void gpuhist_dialog_follow_toggled (GtkToggleButton *toggle, gpointer data);
/* A choice that changes what is counted (bins, weighting, source): counts again when following
 * or when a count runs. */
void gpuhist_dialog_choice_changed (GtkComboBox *combo, gpointer data);
/* Shows or hides the line that says the tables are out of date. */
void gpuhist_dialog_set_stale (GpuhistDialog *d, gboolean stale);

/* dialog-export.c */
void gpuhist_dialog_export_clicked (GtkButton *button, gpointer data);
void gpuhist_dialog_copy_clicked (GtkButton *button, gpointer data);
void gpuhist_dialog_help (const gchar *help_id, gpointer help_data);
const char *const *gpuhist_dialog_timing_titles (void);
/* The contention table's column titles for the chart of scope `scope` (-1: the histogram's). */
const char *const *gpuhist_dialog_compare_titles (int scope);
const char *const *gpuhist_dialog_stats_titles (void);
const char *const *gpuhist_dialog_range_titles (void);

G_END_DECLS

#endif /* GPUHIST_DIALOG_PRIVATE_H */
