/* gpu-histogram: the dialog's strip fetcher: GIMP's pixels read on the main thread, a slice at a
 * time between GTK events, for a worker thread that counts them.
 *
 * Why the main thread: libgimp reads GIMP's replies on one wire.  In GIMP 2.10's resident process
 * (an extension) the main loop reads that wire too, and a worker's tile request had its answer
 * taken from it ("unexpected tile message", then the plug-in died: docs/RELIABILITY.md); GIMP 3.0's
 * libgimp is no more thread-safe (its tile backend and PDB calls share the wire without a lock
 * that the main loop's own calls take, and GIMP's developers say that PDB calls from two threads
 * break a plug-in), and the dialog itself talks to GIMP on the main thread while it follows the
 * image.  So every gegl_buffer_get of a libgimp buffer happens here, on the main thread, in
 * pieces of about a megabyte, as many as fit in a few milliseconds per main-loop dispatch, into
 * one of two band buffers; the worker narrows a full band into the engine's strip and counts it
 * while the next band is fetched.  Nothing of the area is ever copied whole.
 *
 * GIMP-free: the glue's buffers come in a GpuhistSource.
 */
#ifndef GPUHIST_STRIP_FETCH_H
#define GPUHIST_STRIP_FETCH_H

#include <gio/gio.h>

#include "core.h"
#include "stream.h"

G_BEGIN_DECLS

typedef struct GpuhistStripFetch GpuhistStripFetch;

/* Says whether the source's drawable is still there; asked on the main thread before each
 * dispatch's pieces (a fetch from a drawable GIMP no longer has ends the plug-in). */
typedef gboolean (*GpuhistStillThereFunc) (gpointer data);

/* On the main thread: starts fetching source's bands as a run with `settings` reads them, from
 * an idle source of the default main context.  The source's buffers must outlive the fetcher.
 * Cancelling `cancellable` stops both sides.  NULL with *error as gpuhist_stream_open fails. */
GpuhistStripFetch *gpuhist_strip_fetch_new (const GpuhistSource *source,
                                            const GpuhistSettings *settings,
                                            GCancellable *cancellable,
                                            GpuhistStillThereFunc still_there,
                                            gpointer still_there_data, GError **error);

/* The worker's GpuhistBandReader (data: the fetcher): waits for the band at y, converts it into
 * strip and plane.  A y behind the fetch (the count again on the CPU after a GPU fault) starts
 * the fetch again from there.  0 with *error when cancelled or when the drawable went away. */
int gpuhist_strip_fetch_read_band (GpuhistStream *stream, int y, int limit, uint8_t *strip,
                                   uint8_t *plane, gpointer data, GError **error);

/* Where the main thread's fetching went, for the dialog's own measurements (dialog-bench.c). */
typedef struct
{
  gint64 longest_us;       /* the longest dispatch */
  gint64 busy_us;          /* all dispatches together */
  gint64 last_piece_at_us; /* g_get_monotonic_time () when the last piece came in; 0 for none */
  gint64 waited_us;        /* the worker waiting for bands: the rest of its time is its own */
  gint64 starved_us;       /* the main thread with no free band to fetch into */
  gint64 first_at_us;      /* when the first piece was asked for */
} GpuhistFetchTimes;

GpuhistFetchTimes gpuhist_strip_fetch_times (const GpuhistStripFetch *fetch);

/* On the main thread, once the worker no longer reads. */
void gpuhist_strip_fetch_free (GpuhistStripFetch *fetch);

G_END_DECLS

#endif /* GPUHIST_STRIP_FETCH_H */
