/* gpu-histogram: libvips' dynamic modules, loaded only for the files that need them.
 *
 * libvips loads every module it has when it starts (HEIF and AVIF, JPEG XL, PDF, OpenSlide and
 * ImageMagick on Debian), and their shared libraries are a good part of a photo's whole run
 * (docs/BENCHMARKS.md, "gpuhist on photos"), though PNG, JPEG, TIFF and WebP need none of them.
 * libvips has no switch for this; it looks for its modules in the library folder under the prefix
 * VIPSHOME names, so gpuhist names a spelling of libvips' own prefix whose library folder has none
 * (on Debian's multiarch layout; where it has them, libvips loads them at start as before), and
 * loads the modules itself the first time a file is one that no built-in loader takes.
 *
 * What changes: a whole-slide image that is also a TIFF (Aperio SVS, ...) is read by the TIFF
 * loader (its first, full-resolution page) rather than by OpenSlide. */
#ifndef GPUHIST_VIPS_MODULES_H
#define GPUHIST_VIPS_MODULES_H

/* Before VIPS_INIT: keeps libvips from loading its modules, unless the user set VIPSHOME. */
void vips_modules_defer (void);

/* Loads the modules that vips_modules_defer kept back, once for the process (any thread).
 * 1 when they are loaded, now or before (a file no loader took is worth another look), else 0. */
int vips_modules_load_deferred (void);

#endif /* GPUHIST_VIPS_MODULES_H */
