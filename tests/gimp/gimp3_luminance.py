"""GIMP's Luminance of 8- and 16-bit RGB samples in plain Python, each GIMP's arithmetic
transcribed (independent of the engine's kernels/engine/gimp_rules.h, which the tests hold
against it):

  gimp2         GIMP 2.10: GIMP_RGB_LUMINANCE of the samples' floats, in double, stored in a float
  gimp3         GIMP 3.0, perceptual samples: babl's "Y float" (sRGB) of them, the curve undone by
                babl's float approximation (extensions/sse2-float.c, gamma_2_2_to_linear_sse2),
                then babl/base's float sum (model-gray.c, rgba_to_gray_float)
  gimp3-linear  GIMP 3.0, linear-light samples: the same sum of the floats as they are

A float operation is the double one rounded to float (f32): for +, -, * and / of floats that
rounds as the float operation does (53 >= 2 x 24 + 2 bits).  No numpy, so that it runs in the
GPU machine's GIMP bundle root too.  Used by tests/cli/test_formats.py (gpuhist --luminance) and
tests/gimp/luminance-measure.py (GIMP 3.0 itself, and the engine through gpuhist)."""

import math
import struct
from array import array

RULES = ("gimp2", "gimp3", "gimp3-linear")
# babl_space_get_rgb_luminance (babl_space ("sRGB")), as doubles
BABL_SRGB_Y = (0.22248794002686589, 0.71690383887925313, 0.060608257216285655)
GIMP2_WEIGHTS = (0.22248840, 0.71690369, 0.06060791)


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def babl_to_linear(v):
    """babl's float sRGB linearization of one float, one float operation at a time."""
    if not v > f32(0.04045):
        return f32(v * f32(1.0 / f32(12.92)))
    x = f32(f32(v + f32(0.055)) * f32(1.0 / f32(1.055)))
    norm = -0.2 * math.log(2) / 8388608
    c0, c1, c2 = f32(0.9953189663), f32(0.9594345146 * norm), f32(0.6742970332 * norm * norm)
    i = f32(float(struct.unpack("i", struct.pack("f", x))[0] - 0x3f800000))
    y = f32(f32(c0 + f32(c1 * i)) + f32(f32(c2 * i) * i))
    z = f32(f32(1.0 / 5.0) * x)
    for _ in range(2):
        y3 = f32(f32(y * y) * y)
        y = f32(f32(f32(6.0 / 5.0) * y) - f32(z * f32(y3 * y3)))
    w = f32(x * y)
    return f32(f32(w * w) * w)


def level_floats(bits):
    """babl's float of every level: the sample over its full scale in double, stored in a float."""
    top = (1 << bits) - 1
    return array("f", [s / top for s in range(top + 1)])


def terms(rule, bits):
    """The three weighted terms of every level: GIMP 2.10's products in double; GIMP 3.0's
    babl's float products of the (linearized) floats."""
    levels = level_floats(bits)
    if rule == "gimp2":
        return [[w * v for v in levels] for w in GIMP2_WEIGHTS]
    if rule == "gimp3":
        levels = [babl_to_linear(v) for v in levels]
    return [array("f", [w * v for v in levels]) for w in (f32(x) for x in BABL_SRGB_Y)]


def bins_of_sums(partial, last_terms, bins):
    """GIMP's bins of partial + each of last_terms (partial_sum, then blue's term), the sum
    stored in a float: GIMP 2.10's double sum rounded once, GIMP 3.0's last float sum."""
    top = f32(bins - 1)
    lum = array("f", [partial + t for t in last_terms])
    scaled = array("f", [v * top for v in lum])
    return [int(math.floor(min(max(t, 0.0), top) + 0.5)) for t in scaled]


def partial_sum(red_term, green_term, rule):
    return red_term + green_term if rule == "gimp2" else f32(red_term + green_term)


def luminance_bin(table, r, g, b, rule, bins):
    """One pixel's bin, from terms (rule, bits)."""
    return bins_of_sums(partial_sum(table[0][r], table[1][g], rule), [table[2][b]], bins)[0]
