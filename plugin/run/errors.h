/* gpu-histogram: the plug-in's errors (a leaf: every other file of plugin/ may include it).
 *
 * Two GError domains: GPUHIST_ERROR for what the plug-in itself refuses or fails at, with the
 * codes below, and GPUHIST_ENGINE_ERROR for what the engine reports, its gh_status as the code.
 * Cancelling is G_IO_ERROR_CANCELLED, as GIO does it.
 */
#ifndef GPUHIST_ERRORS_H
#define GPUHIST_ERRORS_H

#include <glib.h>

#include "gpuhist.h"

G_BEGIN_DECLS

#define GPUHIST_ERROR (gpuhist_error_quark ())
#define GPUHIST_ENGINE_ERROR (gpuhist_engine_error_quark ())

typedef enum
{
  GPUHIST_ERROR_NO_PIXELS,        /* an empty area, a selection outside the drawable, a group */
  GPUHIST_ERROR_INVALID_ARGUMENT, /* a bin count, repetitions or file name the plug-in refuses */
  GPUHIST_ERROR_UNSUPPORTED,      /* pixels of a type the plug-in cannot narrow */
  GPUHIST_ERROR_NO_MEMORY,        /* the plug-in's own buffers */
  GPUHIST_ERROR_WRITE,            /* the output file could not be written */
  GPUHIST_ERROR_GIMP,             /* GIMP did not give what was asked (pixels, a dialog) */
  GPUHIST_ERROR_CALLING           /* the procedure was called without what it needs */
} GpuhistErrorCode;

GQuark gpuhist_error_quark (void);
GQuark gpuhist_engine_error_quark (void);

/* A GPUHIST_ENGINE_ERROR from the engine's error: its message, else its status's name. */
void gpuhist_set_engine_error (GError **error, const gh_error *gherr);

G_END_DECLS

#endif /* GPUHIST_ERRORS_H */
