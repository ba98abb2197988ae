/* gpu-histogram: the one run flow.  See flow.h. */
#include <gio/gio.h>
#include <glib/gi18n-lib.h>

#include "engine-keeper.h"
#include "fetch-only.h"
#include "flow.h"
#include "report.h"
#include "run.h"
#include "source.h"

static void
monitor_progress (double fraction, gpointer user_data)
{
  const GpuhistHost *host = user_data;

  host->progress_update (fraction);
}

static gboolean
fail (GError **error, GpuhistErrorCode code, const char *message)
{
  g_set_error_literal (error, GPUHIST_ERROR, code, message);
  return FALSE;
}

/* Which of several selected drawables was counted: for the report, and said at once when the
 * user is there to read it.  NULL for one drawable. */
static gchar *
several_drawables_note (const GpuhistHost *host, const GpuhistRequest *request, const char *name)
{
  gchar *note;

  if (request->n_drawables <= 1)
    return NULL;
  note = g_strdup_printf (_ ("%d drawables are selected; counted the first one, \"%s\"."),
                          request->n_drawables, name);
  if (request->mode == GPUHIST_MODE_INTERACTIVE)
    host->message (note);
  return note;
}

/* What to count of `drawable` (the request's, or the visible image's layer, which GIMP does not
 * let PDB calls such as mask_intersect see, since it is never inserted): its kind and the
 * selection's bounds within it; FALSE when they do not intersect. */
static gboolean
drawable_area (const GpuhistHost *host, const GpuhistRequest *request, gpointer drawable,
               GpuhistDrawableKind *kind, GeglRectangle *area)
{
  if (drawable != request->drawable)
    {
      *kind = GPUHIST_DRAWABLE_LAYER;
      return host->image_mask_bounds (request->drawable, area);
    }
  *kind = host->is_mask_or_channel (drawable) ? GPUHIST_DRAWABLE_MASK_OR_CHANNEL
                                              : GPUHIST_DRAWABLE_LAYER;
  return host->mask_intersect (drawable, area);
}

/* The drawable's pixels as a source, the engine starting up while GIMP gives them.  note NULL:
 * the note about several drawables was made already. */
static gboolean
open_source (const GpuhistHost *host, const GpuhistRequest *request, gpointer drawable,
             gboolean start_engine, GpuhistSource *source, GeglBuffer **buffer, GeglBuffer **mask,
             gchar **note, GError **error)
{
  GpuhistDrawableKind kind;
  GeglRectangle area;
  gchar *name;
  gboolean ok;

  if (drawable == request->drawable && host->is_group (drawable))
    return fail (error, GPUHIST_ERROR_NO_PIXELS, _ (host->group_error));
  if (!drawable_area (host, request, drawable, &kind, &area) || area.width <= 0 || area.height <= 0)
    return fail (error, GPUHIST_ERROR_NO_PIXELS,
                 _ ("The selection does not intersect the drawable: there are no pixels to "
                    "count."));

  name = host->get_name (drawable);
  if (note != NULL)
    *note = several_drawables_note (host, request, name);
  if (start_engine)
    gpuhist_keeper_prepare ();
  *buffer = host->get_buffer (drawable);
  if (*buffer == NULL)
    {
      g_free (name);
      return fail (error, GPUHIST_ERROR_GIMP, _ ("GIMP did not give the drawable's pixels."));
    }
  ok = gpuhist_source_init (source, *buffer, &area, kind, request->settings.linear, name, error);
  g_free (name);
  if (ok)
    {
      int offset_x = 0;
      int offset_y = 0;

      /* The visible image's layer covers the image: no offsets. */
      *mask = host->get_selection (request->drawable, &offset_x, &offset_y);
      if (drawable != request->drawable)
        offset_x = offset_y = 0;
      gpuhist_source_set_coverage (source, *mask, offset_x, offset_y);
    }
  return ok;
}

/* The sources of a run: the one the arguments ask for, and in the dialog the other once the
 * user picks it for Re-run; each opened once, all closed when the run ends. */
typedef struct
{
  const GpuhistHost *host;
  GpuhistRequest *request;
  GpuhistSource source[2]; /* by GpuhistSourceKind */
  GeglBuffer *buffer[2];
  GeglBuffer *mask[2];
  gboolean opened[2];
  gpointer visible; /* the visible image's layer, never inserted; NULL until made */
} FlowSources;

/* What to read for `kind`: the drawable, or for source visible a layer of the image as shown
 * (deleted by close_sources). */
static gboolean
open_kind (FlowSources *s, GpuhistSourceKind kind, gboolean start_engine, gchar **note,
           GError **error)
{
  gpointer drawable = s->request->drawable;

  if (s->opened[kind])
    return TRUE;
  if (kind == GPUHIST_SOURCE_VISIBLE)
    {
      if (s->visible == NULL)
        s->visible = s->host->new_visible (s->request->drawable);
      if (s->visible == NULL)
        return fail (error, GPUHIST_ERROR_NO_PIXELS,
                     _ ("The image has no visible layer: there is no visible image to count."));
      drawable = s->visible;
    }
  s->opened[kind] = open_source (s->host, s->request, drawable, start_engine, &s->source[kind],
                                 &s->buffer[kind], &s->mask[kind], note, error);
  return s->opened[kind];
}

static void
close_sources (FlowSources *s)
{
  for (int kind = 0; kind < 2; kind++)
    {
      gpuhist_source_clear (&s->source[kind]);
      g_clear_object (&s->buffer[kind]);
      g_clear_object (&s->mask[kind]);
    }
  if (s->visible != NULL)
    s->host->delete_visible (s->visible);
  s->visible = NULL;
}

/* The dialog's hook (GpuhistDialogParams.open_source), on GIMP's main thread. */
static const GpuhistSource *
dialog_open_source (GpuhistSourceKind kind, gpointer data, GError **error)
{
  FlowSources *s = data;

  if (kind != GPUHIST_SOURCE_DRAWABLE && kind != GPUHIST_SOURCE_VISIBLE)
    return NULL;
  return open_kind (s, kind, FALSE, NULL, error) ? &s->source[kind] : NULL;
}

/* Interactive: measure first (GIMP's progress bar shows it), then the dialog shows the report,
 * measures again on request and exports. */
static gboolean
count_interactively (FlowSources *sources, const GpuhistSource *source,
                     const GpuhistMonitor *monitor, const char *note, GpuhistReport *report,
                     GError **error)
{
  const GpuhistHost *host = sources->host;
  GpuhistRequest *request = sources->request;
  GpuhistDialogParams hooks = { 0 };

  hooks.save_settings = request->save_settings;
  hooks.save_settings_data = request->save_settings_data;
  hooks.source_exists = host->exists;
  hooks.source_exists_data = request->drawable;
  hooks.open_source = dialog_open_source;
  hooks.open_source_data = sources;
  if (!gpuhist_dialog_measure_and_run (source, &request->settings, monitor, report, note,
                                       host->init_ui, &hooks, error))
    return FALSE;
  if (request->save_settings != NULL)
    request->save_settings (&request->settings, request->save_settings_data);
  return TRUE;
}

static gboolean
count (FlowSources *sources, const GpuhistSource *source, const char *note, gboolean fetch_only,
       GpuhistReport *report, GError **error)
{
  const GpuhistHost *host = sources->host;
  GpuhistRequest *request = sources->request;
  GpuhistMonitor monitor = { monitor_progress, NULL, (gpointer) host };
  gchar *message = g_strdup_printf (_ ("Counting the levels of \"%s\""), source->drawable_name);

  host->progress_init (message);
  g_free (message);
  if (fetch_only)
    return gpuhist_fetch_only (source, &request->settings, report, error);
  if (request->mode == GPUHIST_MODE_INTERACTIVE)
    return count_interactively (sources, source, &monitor, note, report, error);
  return gpuhist_run_batch (source, &request->settings, &monitor, note, report, error);
}

/* The arguments the glue passes on unchecked: 2.10's integers for weighting and source. */
static gboolean
check_settings (const GpuhistSettings *settings, GError **error)
{
  if (settings->weighting != GPUHIST_WEIGHTING_GIMP
      && settings->weighting != GPUHIST_WEIGHTING_PIXELS)
    {
      g_set_error (error, GPUHIST_ERROR, GPUHIST_ERROR_INVALID_ARGUMENT,
                   _ ("weighting must be 0 (gimp) or 1 (pixels), not %d."), settings->weighting);
      return FALSE;
    }
  if (settings->source != GPUHIST_SOURCE_DRAWABLE && settings->source != GPUHIST_SOURCE_VISIBLE)
    {
      g_set_error (error, GPUHIST_ERROR, GPUHIST_ERROR_INVALID_ARGUMENT,
                   _ ("source must be 0 (drawable) or 1 (visible), not %d."), settings->source);
      return FALSE;
    }
  return TRUE;
}

GpuhistFlowStatus
gpuhist_flow_run (const GpuhistHost *host, GpuhistRequest *request, GpuhistReport *report,
                  gboolean *fetch_only, GError **error)
{
  FlowSources sources = { 0 };
  GpuhistSourceKind kind = request->settings.source;
  gchar *note = NULL;
  GError *local = NULL;
  gboolean ok;

  sources.host = host;
  sources.request = request;
  /* GPUHIST_FETCH_ONLY=1 (benchmarks, non-interactive): only read the pixels and the selection's
   * coverage, no engine. */
  *fetch_only = request->mode == GPUHIST_MODE_NONINTERACTIVE && gpuhist_fetch_only_requested ();
  ok = check_settings (&request->settings, &local)
       && open_kind (&sources, kind, !*fetch_only, &note, &local)
       && count (&sources, &sources.source[kind], note, *fetch_only, report, &local);
  gpuhist_keeper_discard ();
  close_sources (&sources);
  g_free (note);
  if (ok)
    return GPUHIST_FLOW_OK;

  gpuhist_report_clear (report);
  if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_error_free (local);
      return GPUHIST_FLOW_CANCELLED;
    }
  if (local == NULL)
    fail (&local, GPUHIST_ERROR_GIMP, _ ("The histogram could not be counted."));
  g_propagate_error (error, local);
  return GPUHIST_FLOW_FAILED;
}

gdouble *
gpuhist_flow_timings (const GpuhistReport *report, gboolean fetch_only, gint *n_timings)
{
  return fetch_only ? gpuhist_fetch_only_timings (report, n_timings)
                    : gpuhist_report_timings (report, n_timings);
}
