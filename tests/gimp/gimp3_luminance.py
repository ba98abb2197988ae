"""GIMP's Luminance of 8- and 16-bit RGB samples in numpy, each GIMP's arithmetic transcribed
(independent of the engine's kernels/engine/gimp_rules.h, which the tests hold against it):

  gimp2         GIMP 2.10: GIMP_RGB_LUMINANCE of the samples' floats, in double, stored in a float
  gimp3         GIMP 3.0, perceptual samples: babl's "Y float" (sRGB) of them, the curve undone by
                babl's float approximation (extensions/sse2-float.c, gamma_2_2_to_linear_sse2),
                then babl/base's float sum (model-gray.c, rgba_to_gray_float)
  gimp3-linear  GIMP 3.0, linear-light samples: the same sum of the floats as they are

Used by tests/cli/test_formats.py (gpuhist --luminance) and tests/gimp/luminance-measure.py (GIMP
3.0 itself, and the engine through gpuhist).  Needs numpy only."""

import math

import numpy as np

RULES = ("gimp2", "gimp3", "gimp3-linear")
# babl_space_get_rgb_luminance (babl_space ("sRGB")), as doubles
BABL_SRGB_Y = (0.22248794002686589, 0.71690383887925313, 0.060608257216285655)


def babl_to_linear(v):
    """babl's float sRGB linearization, one float32 operation at a time."""
    f = np.float32
    v = np.asarray(v, np.float32)
    line = v * (f(1) / f(12.92))
    x = (v + f(0.055)) * (f(1) / f(1.055))
    norm = -0.2 * math.log(2) / 8388608
    c0, c1, c2 = f(0.9953189663), f(0.9594345146 * norm), f(0.6742970332 * norm * norm)
    i = (x.view(np.int32) - np.int32(0x3f800000)).astype(np.float32)
    y = (c0 + c1 * i) + (c2 * i) * i
    z = (f(1) / f(5)) * x
    for _ in range(2):
        y3 = (y * y) * y
        y = (f(6) / f(5)) * y - z * (y3 * y3)
    w = x * y
    return np.where(v > f(0.04045), (w * w) * w, line)


def luminance(rgb, rule):
    """rgb: (..., 3) float32, the samples over their full scale (babl's floats)."""
    rgb = np.asarray(rgb, np.float32)
    if rule == "gimp2":
        d = rgb.astype(np.float64)
        return (0.22248840 * d[..., 0] + 0.71690369 * d[..., 1]
                + 0.06060791 * d[..., 2]).astype(np.float32)
    if rule == "gimp3":
        rgb = babl_to_linear(rgb)
    w = [np.float32(x) for x in BABL_SRGB_Y]
    return (rgb[..., 0] * w[0] + rgb[..., 1] * w[1]) + rgb[..., 2] * w[2]


def gimp_bins(v, bins):
    """GIMP's bin of floats: floor (clamp (float (v * (bins - 1))) + 0.5)."""
    top = np.float32(bins - 1)
    t = np.clip(np.asarray(v, np.float32) * top, np.float32(0), top)
    return np.floor(t.astype(np.float64) + 0.5).astype(np.int64)


def luminance_bins(samples, rule, bins):
    """The luminance bins of (..., 3) uint8 or uint16 samples under rule."""
    scale = 255.0 if samples.dtype == np.uint8 else 65535.0
    rgb = (samples[..., :3].astype(np.float64) / scale).astype(np.float32)
    return gimp_bins(luminance(rgb, rule), bins)
