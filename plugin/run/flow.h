/* gpu-histogram: the one run flow of plug-in-gpu-histogram, for GIMP 2.10 and 3.0 alike.
 *
 * The glue (gimp2.c, gimp3.c) reads the procedure's arguments into a GpuhistRequest and fills a
 * GpuhistHost, the table of what its GIMP does differently; gpuhist_flow_run then takes the
 * same steps in the same order for both: refuse a layer group, tell a mask or channel from a
 * layer, intersect with the selection, start the engine while GIMP gives the pixels, pick the
 * fetch format, show progress, and measure (batch), or measure and show the dialog
 * (interactive), or only read (the benchmark hook).  The glue turns the outcome into its
 * version's return values.
 */
#ifndef GPUHIST_FLOW_H
#define GPUHIST_FLOW_H

#include "core.h"
#include "dialog.h"

G_BEGIN_DECLS

typedef enum
{
  GPUHIST_MODE_INTERACTIVE,
  GPUHIST_MODE_NONINTERACTIVE,
  GPUHIST_MODE_WITH_LAST_VALS
} GpuhistRunMode;

/* What differs between the GIMP versions.  `drawable` is the version's own handle (an item ID
 * in 2.10, a GimpDrawable in 3.0). */
typedef struct
{
  gboolean (*is_group) (gpointer drawable);
  gboolean (*is_mask_or_channel) (gpointer drawable);
  /* The selection's bounds within the drawable; FALSE when they do not intersect. */
  gboolean (*mask_intersect) (gpointer drawable, GeglRectangle *area);
  /* The selection's bounds in the drawable's image (the whole image when nothing is selected);
   * FALSE when empty. */
  gboolean (*image_mask_bounds) (gpointer drawable, GeglRectangle *area);
  GeglBuffer *(*get_buffer) (gpointer drawable); /* a new reference, or NULL */
  /* The image's selection channel (a new reference) and the drawable's offsets in the image;
   * NULL when nothing is selected: the run then fetches no coverage plane at all. */
  GeglBuffer *(*get_selection) (gpointer drawable, int *offset_x, int *offset_y);
  gchar *(*get_name) (gpointer drawable); /* newly allocated */
  /* source visible: a new layer of the drawable's image as shown, never inserted into it (no
   * undo step), and its deletion; NULL when no layer of the image is visible. */
  gpointer (*new_visible) (gpointer drawable);
  void (*delete_copy) (gpointer item); /* a layer or channel made here, never inserted */
  /* For the dialog's counts: a copy GIMP makes of the drawable, or of the image's selection
   * (NULL when nothing is selected), never inserted into the image (no undo step), so that the
   * user's edits, a deletion or a resize while the worker counts cannot reach what it reads;
   * delete_copy deletes it.  NULL when GIMP made none. */
  gpointer (*copy_drawable) (gpointer drawable);
  gpointer (*copy_selection) (gpointer drawable);
  /* Following the image (watch.h). */
  gpointer (*image_of) (gpointer drawable);
  gboolean (*image_open) (gpointer image);
  gpointer (*active_drawable) (gpointer image);
  GBytes *(*signature) (gpointer image, gboolean visible);
  void (*progress_init) (const char *message);
  void (*progress_update) (double fraction);
  void (*message) (const char *text); /* shown to the user at once */
  void (*init_ui) (void);             /* ends the progress bar and starts GIMP's UI */
  const char *group_error;            /* how this GIMP names the layer that is a group */
} GpuhistHost;

typedef struct
{
  GpuhistRunMode mode;
  gpointer drawable;        /* the first of the selected drawables */
  int n_drawables;          /* how many were selected (2.10: always 1) */
  GpuhistSettings settings; /* in: the arguments; out: what the user left in the dialog */
  GpuhistSaveSettingsFunc save_settings; /* after an interactive run; may be NULL */
  gpointer save_settings_data;
} GpuhistRequest;

typedef enum
{
  GPUHIST_FLOW_OK,
  GPUHIST_FLOW_CANCELLED,
  GPUHIST_FLOW_FAILED /* *error says why */
} GpuhistFlowStatus;

/* Runs the procedure.  On GPUHIST_FLOW_OK the report holds what to return (clear it);
 * *fetch_only says whether it was the benchmark hook's read (gpuhist_flow_timings). */
GpuhistFlowStatus gpuhist_flow_run (const GpuhistHost *host, GpuhistRequest *request,
                                    GpuhistReport *report, gboolean *fetch_only, GError **error);

/* The timings to return: the measurement's, or the benchmark hook's (fetch-only.h). */
gdouble *gpuhist_flow_timings (const GpuhistReport *report, gboolean fetch_only, gint *n_timings);

G_END_DECLS

#endif /* GPUHIST_FLOW_H */
