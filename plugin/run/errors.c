/* gpu-histogram: the plug-in's error domains.  See errors.h. */
#include "errors.h"

G_DEFINE_QUARK (gpuhist - plugin - error - quark, gpuhist_error)
G_DEFINE_QUARK (gpuhist - engine - error - quark, gpuhist_engine_error)

void
gpuhist_set_engine_error (GError **error, const gh_error *gherr)
{
  g_set_error (error, GPUHIST_ENGINE_ERROR, gherr->status, "%s",
               gherr->message[0] ? gherr->message : gh_status_name (gherr->status));
}
