/* gpu-histogram: narrowing high-bit-depth samples to the engine's 8-bit or 16-bit samples.
 *
 * Pure functions of their input: no GIMP, GEGL or engine, so that tests/plugin-core checks them
 * value by value.  `type` is a babl type name: "u8", "u16", "u32", "half", "float" or "double".
 */
#ifndef GPUHIST_CONVERT_H
#define GPUHIST_CONVERT_H

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

G_BEGIN_DECLS

/* To the 256 bins:
 *   integers: the nearest level, v8 = floor (v * 255 / max + 0.5);
 *   half, float and double: bin = floor (v * 255 + 0.5) for 0 <= v < 1 (computed in double);
 *   v < 0, -inf and NaN go to bin 0, v >= 1 and +inf to bin 255.
 * FALSE for a type it does not know. */
gboolean gpuhist_convert_samples (const char *type, const void *src, size_t n_samples,
                                  uint8_t *dst);

/* To 16-bit samples for more than 256 bins:
 *   u16: copied; u32: the nearest level, floor (v * 65535 / (2^32 - 1) + 0.5);
 *   half, float and double: floor (v * 65535 + 0.5) for 0 <= v <= 1 (computed in double);
 *   v < 0, -inf and NaN go to 0, v > 1 and +inf to 65535.
 * The engine then bins a sample v into v * bins / 65536.  FALSE for a type it does not know
 * (u8 included: 8-bit layers count into 256 bins). */
gboolean gpuhist_convert_samples16 (const char *type, const void *src, size_t n_samples,
                                    uint16_t *dst);

/* TRUE for the types the two functions above take. */
gboolean gpuhist_convert_type_known (const char *type);

G_END_DECLS

#endif /* GPUHIST_CONVERT_H */
