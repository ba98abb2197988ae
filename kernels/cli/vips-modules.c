/* gpu-histogram: libvips' dynamic modules, loaded on demand (vips-modules.h). */
#include "vips-modules.h"

#include <stdlib.h>
#include <vips/vips.h>

/* Set by meson from libvips' pkg-config file: where libvips was installed. */
#ifndef GPUHIST_VIPS_PREFIX
#error "GPUHIST_VIPS_PREFIX: libvips' install prefix"
#endif
#ifndef GPUHIST_VIPS_LIBDIR
#error "GPUHIST_VIPS_LIBDIR: libvips' library folder"
#endif

static int deferred;

void
vips_modules_defer (void)
{
  if (getenv ("VIPSHOME"))
    return;
  /* libvips takes its configured library folder only when VIPSHOME is its exact prefix; for
   * any other it looks in VIPSHOME joined with the library folder's last part ("/usr/" gives
   * "/usr//x86_64-linux-gnu" on Debian), which holds no modules.  The trailing slash names the
   * same prefix, so libvips still finds its translations under it. */
  if (setenv ("VIPSHOME", GPUHIST_VIPS_PREFIX "/", 1) == 0)
    deferred = 1;
}

/* g_module_open runs each module's own start-up, which registers its loaders with libvips: what
 * libvips' start-up does with them. */
static void *
load_modules (void *loaded)
{
  char *folder = g_strdup_printf ("%s/vips-modules-%d.%d", GPUHIST_VIPS_LIBDIR, vips_version (0),
                                  vips_version (1));
  GDir *dir = g_dir_open (folder, 0, NULL);
  const char *name;

  while (dir && (name = g_dir_read_name (dir)))
    {
      if (!g_str_has_suffix (name, "." G_MODULE_SUFFIX))
        continue;
      char *path = g_build_filename (folder, name, NULL);
      if (g_module_open (path, G_MODULE_BIND_LAZY))
        *(int *) loaded = 1;
      g_free (path);
    }
  if (dir)
    g_dir_close (dir);
  g_free (folder);
  return NULL;
}

int
vips_modules_load_deferred (void)
{
  static GOnce once = G_ONCE_INIT;
  static int loaded;

  if (!deferred)
    return 0;
  g_once (&once, load_modules, &loaded);
  return loaded;
}
