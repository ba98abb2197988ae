#!/usr/bin/env python3
"""GIMP 3.0 through Python-Fu: every image type, precision, masks, channels and selections
(issue 3), each count checked against an independent count.

    pyfu-tests.py --gimp 3 --plugin BUILT-PLUGIN --workdir DIR

One headless GIMP 3.0 (gimp-console-3.0, python-fu-eval) runs the cases below.  For each it
makes an image of the precision asked for, fills the drawable with noise (random values written
in the drawable's own format with a Gegl buffer, or gegl:noise-hurl as a GIMP filter), converts
to indexed where asked, adds a layer mask or channel as the drawable, selects a rectangle, and
reads the drawable's pixels back with a Gegl buffer: in its own format (the stored values,
indices for indexed layers, with the palette), or, where the plug-in is asked for the other curve,
in that curve as float or 8-bit.  Then it calls plug-in-gpu-histogram with named arguments
(run-mode, image, drawables, output-file, repetitions, linear, bins) and keeps the return values
(n-channels, counts, backend, timings).  For opaque 8-bit layers, a layer mask counted in linear
light and a channel it also asks GIMP's own gimp-drawable-histogram, one level at a time.

This script (plain Python, not the engine) counts the read-back pixels itself, with the narrowing
the procedure documents, and compares bin by bin with the JSON or CSV file and the returned
counts; also n-channels, the backend, the timings, the area, the format read, that the image was
not dirtied, and that a selection that misses the drawable is an execution error.

Exit status: 0 all passed, 1 a check failed, 77 skipped (no GIMP 3.0).
"""

import argparse
import json
import math
import os
import shutil
import struct
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree for the imported modules
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gimp_results  # noqa: E402  (the shared pieces of the GIMP test scripts)
gt = gimp_results.load_gimp_tests()

SKIP = 77
STATUS_EXECUTION_ERROR = 0  # GimpPDBStatusType
STATUS_SUCCESS = 3

# --- the cases --------------------------------------------------------------------------------


def case(name, **kw):
    """base: RGB or GRAY (image); itype: the layer's GimpImageType; precision: GimpPrecision;
    fill: random (values in the drawable's own format) or hurl (gegl:noise-hurl on gray);
    indexed: colours of the generated palette; target: layer, mask or channel; ref: own (the
    stored values), float or u8 (read back in the curve asked for), srgb (the stored 8-bit values
    through the sRGB formula, here); hist: compare with gimp-drawable-histogram."""
    c = dict(name=name, base="RGB", itype="RGB_IMAGE", precision="U8_NON_LINEAR", fill="random",
             lo=0.0, hi=1.0, w=150, h=90, iw=None, ih=None, offset=(0, 0), indexed=0,
             target="layer", sel=None, linear=False, reps=1, bins=256, out="json", ref="own",
             hist=False, expect_error=None)
    c.update(kw)
    return c


def cases():
    cs = [
        # 8-bit, perceptual images: the stored values
        case("rgb-u8", hist=True, reps=2),
        case("rgba-u8", itype="RGBA_IMAGE", out="csv"),
        case("gray-u8-hurl", base="GRAY", itype="GRAY_IMAGE", fill="hurl", hist=True),
        case("graya-u8", base="GRAY", itype="GRAYA_IMAGE", reps=0),
        # linear light from 8-bit perceptual layers: the sRGB formula on the stored values
        case("rgb-u8-linear", linear=True, ref="srgb", reps=0, out="csv"),
        case("graya-u8-linear", base="GRAY", itype="GRAYA_IMAGE", linear=True, ref="srgb"),
        # indexed: the palette's colours; GIMP generates the palette from hurl noise
        case("indexed", fill="hurl", indexed=23, hist=True),
        case("indexed-alpha", itype="RGBA_IMAGE", indexed=12),
        case("indexed-linear", indexed=40, linear=True, ref="srgb"),
        # 8-bit linear images
        case("rgb-u8-linear-image", precision="U8_LINEAR", ref="u8"),
        case("rgb-u8-linear-image-linear", precision="U8_LINEAR", linear=True, hist=True),
        # 16-bit integer
        case("rgb-u16", precision="U16_NON_LINEAR"),
        case("rgba-u16-linear", itype="RGBA_IMAGE", precision="U16_LINEAR", linear=True),
        case("rgb-u16-as-linear", precision="U16_NON_LINEAR", linear=True, ref="float"),
        case("rgb-u16-4096-bins", precision="U16_NON_LINEAR", bins=4096, reps=0),
        case("gray-u16", base="GRAY", itype="GRAY_IMAGE", precision="U16_NON_LINEAR"),
        # 32-bit integer
        case("rgb-u32", precision="U32_NON_LINEAR"),
        case("rgba-u32-linear", itype="RGBA_IMAGE", precision="U32_LINEAR", linear=True),
        # half: values a little outside 0..1 too (clamped to bins 0 and 255)
        case("rgb-half", precision="HALF_NON_LINEAR", lo=-0.05, hi=1.05),
        case("rgb-half-linear", precision="HALF_LINEAR", linear=True, lo=-0.05, hi=1.05),
        case("rgba-half-linear-as-perceptual", itype="RGBA_IMAGE", precision="HALF_LINEAR",
             ref="float"),
        case("rgb-half-linear-1024-bins", precision="HALF_LINEAR", linear=True, bins=1024),
        # float
        case("rgb-float", precision="FLOAT_NON_LINEAR", lo=-0.05, hi=1.05),
        case("rgba-float-linear", itype="RGBA_IMAGE", precision="FLOAT_LINEAR", linear=True,
             lo=-0.05, hi=1.05),
        case("rgb-float-linear-as-perceptual", precision="FLOAT_LINEAR", ref="float"),
        case("graya-float-linear", base="GRAY", itype="GRAYA_IMAGE", precision="FLOAT_LINEAR",
             linear=True),
        case("rgb-double", precision="DOUBLE_NON_LINEAR", lo=-0.05, hi=1.05),
        # a layer mask (GIMP 3 stores masks linear: "Y u8" even in 8-bit perceptual images, so
        # the perceptual count is the mask read as Y', the linear one the stored values, which
        # is also what gimp-drawable-histogram counts), and channels
        case("layer-mask", target="mask", ref="u8", w=120, h=80),
        case("layer-mask-linear", target="mask", linear=True, hist=True, w=120, h=80),
        case("layer-mask-float", target="mask", precision="FLOAT_NON_LINEAR", ref="float",
             w=120, h=80),
        case("channel", target="channel", hist=True, w=120, h=80),
        case("channel-u16-linear", target="channel", precision="U16_NON_LINEAR", linear=True,
             w=120, h=80),
        # selections: the selection's bounds within the drawable
        case("selection", sel=(10, 7, 60, 40), hist=True),
        case("selection-offset-layer", itype="RGBA_IMAGE", precision="U16_NON_LINEAR",
             iw=200, ih=150, w=120, h=90, offset=(30, 20), sel=(10, 5, 80, 60)),
        case("empty-selection", iw=200, ih=100, w=50, h=50, sel=(120, 10, 30, 30),
             expect_error="does not intersect"),
    ]
    for c in cs:
        if c["indexed"]:
            assert c["precision"] == "U8_NON_LINEAR"
    return cs


# --- the Python-Fu script, run inside GIMP 3.0 ----------------------------------------------------

PYFU = r"""
import json, os, random, struct, traceback, zlib
import gi
gi.require_version('Gimp', '3.0')
gi.require_version('Gegl', '0.4')
gi.require_version('Babl', '0.1')
from gi.repository import Gimp, Gegl, Babl, GObject
work = WORK
cases = json.load(open(work + '/cases.json'))
proc = Gimp.get_pdb().lookup_procedure('plug-in-gpu-histogram')
SIZES = {'u8': 1, 'u16': 2, 'u32': 4, 'half': 2, 'float': 4, 'double': 8}
PACK = {'half': 'e', 'float': 'f', 'double': 'd'}
""" + gimp_results.PYFU_DOUBLES + r"""
def encoding(d):
    return Babl.format_get_encoding(d.get_format())

def whole(d):
    return Gegl.Rectangle.new(0, 0, d.get_width(), d.get_height())

def read(d, fmt):
    # fmt None: the drawable's own format (a palette format gives indices)
    return bytes(d.get_buffer().get(whole(d), 1.0, fmt, Gegl.AbyssPolicy.CLAMP))

def fill_random(d, c):
    # random values in the drawable's own format, written as they are stored
    fmt = d.get_format()
    enc = encoding(d)
    kind = enc.split()[-1]
    n = d.get_width() * d.get_height() * Babl.format_get_n_components(fmt)
    rnd = random.Random(zlib.crc32(c['name'].encode()))
    if kind in PACK:
        vals = [rnd.uniform(c['lo'], c['hi']) for _ in range(n)]
        data = struct.pack('<%d%s' % (n, PACK[kind]), *vals)
    else:
        data = rnd.randbytes(n * SIZES[kind])
    buf = d.get_buffer()
    buf.set(whole(d), enc, data)
    buf.flush()
    d.update(0, 0, d.get_width(), d.get_height())
    return data

def fill_hurl(d, c):
    Gimp.context_set_foreground(Gegl.Color.new('#808080'))
    d.fill(Gimp.FillType.FOREGROUND)
    f = Gimp.DrawableFilter.new(d, 'gegl:noise-hurl', 'hurl')
    config = f.get_config()
    config.set_property('pct-random', 60.0)
    config.set_property('seed', zlib.crc32(c['name'].encode()) & 0xffff)
    d.merge_filter(f)

def histogram(d, names):
    chans = {'red': Gimp.HistogramChannel.RED, 'green': Gimp.HistogramChannel.GREEN,
             'blue': Gimp.HistogramChannel.BLUE, 'gray': Gimp.HistogramChannel.VALUE}
    return {n: [d.histogram(chans[n], k / 255.0, k / 255.0).count for k in range(256)]
            for n in names}

def run(img, d, c, out):
    config = proc.create_config()
    config.set_property('run-mode', Gimp.RunMode.NONINTERACTIVE)
    config.set_property('image', img)
    config.set_core_object_array('drawables', [d])
    config.set_property('output-file', out)
    config.set_property('repetitions', c['reps'])
    config.set_property('linear', c['linear'])
    config.set_property('bins', c['bins'])
    config.set_property('weighting', 'pixels')
    r = proc.run(config)
    status = int(r.index(0))
    if r.index(0) != Gimp.PDBStatusType.SUCCESS:
        return {'status': status, 'error': str(r.index(1)) if r.length() > 1 else ''}
    return {'status': status, 'n': r.index(1), 'counts': doubles(r.index(2)),
            'backend': r.index(3), 'timings': doubles(r.index(4)),
            'names': list(r.index(5) or [])}

def one(c):
    res = {}
    prec = getattr(Gimp.Precision, c['precision'])
    iw, ih = c['iw'] or c['w'], c['ih'] or c['h']
    img = Gimp.Image.new_with_precision(iw, ih, getattr(Gimp.ImageBaseType, c['base']), prec)
    try:
        layer = Gimp.Layer.new(img, c['name'], c['w'], c['h'],
                               getattr(Gimp.ImageType, c['itype']), 100, Gimp.LayerMode.NORMAL)
        img.insert_layer(layer, None, 0)
        layer.set_offsets(*c['offset'])
        d = layer
        if c['target'] == 'layer':
            written = fill_hurl(d, c) if c['fill'] == 'hurl' else fill_random(d, c)
        else:
            fill_hurl(layer, c)
            if c['target'] == 'mask':
                d = layer.create_mask(Gimp.AddMaskType.WHITE)
                layer.add_mask(d)
            else:
                d = Gimp.Channel.new(img, 'chan', iw, ih, 50, Gegl.Color.new('red'))
                img.insert_channel(d, None, 0)
            written = fill_random(d, c)
        if c['indexed']:
            img.convert_indexed(Gimp.ConvertDitherType.NONE, Gimp.ConvertPaletteType.GENERATE,
                                c['indexed'], False, False, '')
            written = None
            cmap = img.get_palette().get_colormap(Babl.format("R'G'B' u8"))
            cmap = cmap[0] if isinstance(cmap, tuple) else cmap
            res['palette'] = list(bytes(cmap))
        res['encoding'] = encoding(d)
        res['palette_format'] = bool(Babl.format_is_palette(d.get_format()))
        res['components'] = Babl.format_get_n_components(d.get_format())
        res['size'] = [d.get_width(), d.get_height()]
        res['drawable'] = d.get_name()
        own = read(d, None)
        if written is not None:
            res['stored_as_written'] = own == written
        with open(work + '/%s.own' % c['name'], 'wb') as f:
            f.write(own)
        if c['ref'] in ('float', 'u8'):
            # the model the plug-in is asked for, as float or 8-bit, converted by babl
            gray = c['target'] != 'layer' or c['base'] == 'GRAY'
            want = ('Y' if gray else 'RGB') if c['linear'] else ("Y'" if gray else "R'G'B'")
            if c['target'] == 'layer' and Babl.format_has_alpha(d.get_format()):
                want += 'A'
            res['ref_encoding'] = want + ' ' + c['ref']
            with open(work + '/%s.ref' % c['name'], 'wb') as f:
                f.write(read(d, res['ref_encoding']))
        if c['sel']:
            img.select_rectangle(Gimp.ChannelOps.REPLACE, *c['sel'])
        img.clean_all()
        out = work + '/%s.%s' % (c['name'], c['out'])
        res.update(run(img, d, c, out))
        res['dirty'] = img.is_dirty()
        if c['hist']:
            names = ['gray'] if c['target'] != 'layer' or c['base'] == 'GRAY' else \
                ['red', 'green', 'blue']
            res['hist'] = histogram(d, names)
    finally:
        img.delete()
    return res

results = {}
for c in cases:
    try:
        results[c['name']] = one(c)
    except Exception:
        results[c['name']] = {'exception': traceback.format_exc()}
with open(work + '/results.tmp', 'w') as f:
    json.dump(results, f)
os.rename(work + '/results.tmp', work + '/results.json')
"""


# --- the independent count ----------------------------------------------------------------------

UNPACK = {"u8": "B", "u16": "H", "u32": "I", "half": "e", "float": "f", "double": "d"}
INT_MAX = {"u8": 255, "u16": 65535, "u32": 4294967295}


def decode(raw, kind):
    n = len(raw) // struct.calcsize(UNPACK[kind])
    return struct.unpack("<%d%s" % (n, UNPACK[kind]), raw)


def level(v, kind, bins):
    """The documented bin of one stored sample, in exact arithmetic where it is an integer."""
    if bins == 256:
        if kind in INT_MAX:
            m = INT_MAX[kind]
            return (2 * v * 255 + m) // (2 * m)  # floor (v * 255 / max + 1/2)
        return gt.documented_bin(v)
    # more than 256 bins: 16-bit samples, then GIMP's bin rule (issue 15) in floats
    if kind == "u16":
        s = v
    elif kind in INT_MAX:
        m = INT_MAX[kind]
        s = (2 * v * 65535 + m) // (2 * m)
    else:
        s = 0 if not (v > 0) else 65535 if v >= 1 else int(math.floor(v * 65535.0 + 0.5))
    if bins == 65536:
        return s
    f32 = lambda x: struct.unpack("<f", struct.pack("<f", x))[0]
    return int(math.floor(f32(f32(s / 65535) * f32(bins - 1)) + 0.5))


def channel_names(c, n):
    if c["target"] != "layer":
        return ["gray"]
    if c["base"] == "GRAY":
        return ["gray", "alpha"][:n]
    return ["red", "green", "blue", "alpha"][:n]


def area_of(c):
    """The selection's bounds within the drawable, in its coordinates."""
    ax, ay, aw, ah = 0, 0, c["w"], c["h"]
    if c["sel"]:
        sx, sy, sw, sh = c["sel"]
        ox, oy = c["offset"] if c["target"] == "layer" else (0, 0)
        x0, y0 = max(sx - ox, 0), max(sy - oy, 0)
        x1, y1 = min(sx + sw - ox, c["w"]), min(sy + sh - oy, c["h"])
        ax, ay, aw, ah = x0, y0, x1 - x0, y1 - y0
    return ax, ay, aw, ah


def independent_count(c, r, work):
    """{channel: counts} from the pixels GIMP read back, and the bins counted."""
    w, _ = r["size"]
    ax, ay, aw, ah = area_of(c)
    wide = c["bins"] > 256 and not r["encoding"].endswith(" u8") and not r["palette_format"]
    bins = c["bins"] if wide else 256
    if c["ref"] in ("float", "u8"):
        raw = open(os.path.join(work, c["name"] + ".ref"), "rb").read()
        kind = r["ref_encoding"].split()[-1]
        n = len(r["ref_encoding"].split()[0].replace("'", ""))  # Y'A: 2, R'G'B': 3
    else:
        raw = open(os.path.join(work, c["name"] + ".own"), "rb").read()
        kind = "u8" if r["palette_format"] else r["encoding"].split()[-1]
        n = r["components"]
    samples = decode(raw, kind)
    if r["palette_format"] and c["ref"] in ("own", "srgb"):
        # indices (and alpha) through the palette
        pal = r["palette"]
        pixels = []
        for i in range(0, len(samples), n):
            k = samples[i]
            pixels.append(tuple(pal[3 * k:3 * k + 3]) + tuple(samples[i + 1:i + n]))
        n = n + 2
    else:
        pixels = [samples[i:i + n] for i in range(0, len(samples), n)]
    names = channel_names(c, n)
    counts = {nm: [0] * bins for nm in names}
    lut = [gt.documented_bin(gt.srgb_to_linear(k / 255.0)) for k in range(256)]
    for y in range(ay, ay + ah):
        for x in range(ax, ax + aw):
            px = pixels[y * w + x]
            for i, nm in enumerate(names):
                v = level(px[i], kind, bins)
                if c["ref"] == "srgb" and nm != "alpha":
                    v = lut[v]
                counts[nm][v] += 1
    return counts, bins


def expected_encoding(c):
    """The format GIMP 3.0 stores the drawable in (checked: the test makes what it means to)."""
    kind = {"U8": "u8", "U16": "u16", "U32": "u32", "HALF": "half", "FLOAT": "float",
            "DOUBLE": "double"}[c["precision"].split("_")[0]]
    linear = c["precision"].endswith("_LINEAR") and "NON" not in c["precision"]
    if c["target"] == "mask" or (c["target"] == "channel" and c["precision"] != "U8_NON_LINEAR"):
        return "Y " + kind
    if c["target"] == "channel":
        return "Y' u8"
    model = ("Y" if c["base"] == "GRAY" else "RGB") + ("" if linear else "'")
    if model == "RGB'":
        model = "R'G'B'"
    return model + ("A" if c["itype"].endswith("A_IMAGE") else "") + " " + kind


def expected_fetch(c, r):
    """What plugin/run/source.c reads: the buffer's own format when it is the model asked for, else
    8 bits from 8-bit and indexed buffers and float from the rest; u16 or float for more than
    256 bins."""
    gray = c["target"] != "layer" or c["base"] == "GRAY"
    alpha = c["target"] == "layer" and c["itype"].endswith("A_IMAGE")
    if gray:
        model = ("Y" if c["linear"] else "Y'") + ("A" if alpha else "")
    else:
        model = ("RGB" if c["linear"] else "R'G'B'") + ("A" if alpha else "")
    kind = "u8" if r["palette_format"] else r["encoding"].split()[-1]
    if c["bins"] > 256 and kind != "u8":
        return model + (" u16" if kind == "u16" else " float")
    if not r["palette_format"] and r["encoding"] == model + " " + kind:
        return r["encoding"]
    return model + (" u8" if kind == "u8" else " float")


def compare(chk, label, got, want):
    got = gimp_results.layer_channels(chk, label, got, want)
    ok = chk.check(list(got) == list(want), "%s: channels %s, expected %s"
                   % (label, list(got), list(want)))
    for nm in want:
        g = got.get(nm, [])
        diff = [(i, g[i] if i < len(g) else None, want[nm][i]) for i in range(len(want[nm]))
                if i >= len(g) or g[i] != want[nm][i]]
        ok &= chk.check(not diff and len(g) == len(want[nm]),
                        "%s: %s differs in %d bins (%d bins, expected %d), first %s"
                        % (label, nm, len(diff), len(g), len(want[nm]), diff[:5]))
    return ok


def check_case(chk, c, r, work):
    name = c["name"]
    if not chk.check(r is not None and "exception" not in r,
                     "%s: the Python-Fu case ran: %s" % (name, (r or {}).get("exception"))):
        return
    chk.check(r["encoding"] == expected_encoding(c) or (c["indexed"] and r["palette_format"]),
              "%s: stored as %r, expected %r" % (name, r["encoding"], expected_encoding(c)))
    chk.check(bool(c["indexed"]) == r["palette_format"],
              "%s: indexed %s, palette format %s" % (name, bool(c["indexed"]), r["palette_format"]))
    if "stored_as_written" in r:
        chk.check(r["stored_as_written"], "%s: read back exactly the values written" % name)
    chk.check(not r["dirty"], "%s: the image is unchanged (not dirty)" % name)
    out = os.path.join(work, "%s.%s" % (name, c["out"]))
    if c["expect_error"]:
        chk.check(r.get("status") == STATUS_EXECUTION_ERROR and c["expect_error"] in r["error"],
                  "%s: an execution error saying %r: %s %r" % (name, c["expect_error"],
                                                             r.get("status"), r.get("error")))
        chk.check(not os.path.exists(out), "%s: no output file" % name)
        return
    if not chk.check(r.get("status") == STATUS_SUCCESS, "%s: status %s %r"
                     % (name, r.get("status"), r.get("error"))):
        return
    if not chk.check(os.path.exists(out), "%s: output file written" % name):
        return
    want, bins = independent_count(c, r, work)
    names = list(want)
    pixels = area_of(c)[2] * area_of(c)[3]
    # noise, not a flat fill: many levels in the counted area
    used = max(sum(1 for v in want[nm] if v) for nm in names if nm != "alpha")
    expect_used = c["indexed"] // 2 if c["indexed"] else min(pixels // 4, 40)
    chk.check(used >= expect_used, "%s: the independent count has noise (%d bins used)"
              % (name, used))
    got, data, _ = gimp_results.read_counts(out, c["out"])
    compare(chk, "%s: file vs the independent count" % name, got, want)

    # the return values, against the independent count
    gt.check_returns(chk, c, [r["n"], r["counts"], r["backend"], r["timings"], r["names"]], want,
                     names, bins)

    # the JSON
    if data is not None:
        a = data["area"]
        chk.check((a["x"], a["y"], a["width"], a["height"]) == area_of(c),
                  "%s: area %s, expected %s" % (name, a, area_of(c)))
        chk.check(data["linear"] == c["linear"] and data["bins"] == bins
                  and data["requested_bins"] == c["bins"],
                  "%s: JSON linear %s bins %s requested %s" % (name, data["linear"],
                                                               data["bins"],
                                                               data["requested_bins"]))
        chk.check(data["backend"] == r["backend"], "%s: JSON backend %r, returned %r"
                  % (name, data["backend"], r["backend"]))
        chk.check(data["drawable"] == r["drawable"], "%s: drawable %r, expected %r"
                  % (name, data["drawable"], r["drawable"]))
        fetch = expected_fetch(c, r)
        chk.check(data["fetch_format"] == fetch, "%s: read from GIMP as %r, expected %r"
                  % (name, data["fetch_format"], fetch))

    print("%s: stored %s, read as %s, %d of %d bins used, %d pixels"
          % (name, "indexed" if r["palette_format"] else r["encoding"],
             data["fetch_format"] if data else "(CSV)", used, bins, pixels))

    # GIMP's own histogram, one level at a time
    if c["hist"]:
        hist = {nm: [int(round(v)) for v in counts] for nm, counts in r["hist"].items()}
        compare(chk, "%s: file vs gimp-drawable-histogram" % name, got,
                {nm: hist[nm] for nm in names if nm in hist})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gimp", choices=["3"], default="3")
    ap.add_argument("--plugin", required=True)
    ap.add_argument("--workdir", required=True)
    args = ap.parse_args()
    if shutil.which("gimp-console-3.0") is None:
        print("gimp-console-3.0 is not installed: skipped")
        return SKIP
    started = time.time()
    work = os.path.join(os.path.abspath(args.workdir), "pyfu")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    profile = gt.make_profile(work, "3", args.plugin)
    cs = cases()
    with open(os.path.join(work, "cases.json"), "w") as f:
        json.dump(cs, f)
    script = os.path.join(work, "cases.py")
    with open(script, "w") as f:
        f.write(PYFU.replace("WORK", repr(work)))
    results = os.path.join(work, "results.json")
    log = os.path.join(work, "gimp.log")
    chk = gt.Checker()
    if not chk.check(gimp_results.run_python_fu(profile, script, results, log),
                     "GIMP ran the Python-Fu cases (log %s)" % log):
        print("0 checks passed, 1 failed")
        return 1
    gimp_s = time.time() - started
    res = json.load(open(results))
    for c in cs:
        check_case(chk, c, res.get(c["name"]), work)
    backends = sorted({r.get("backend") for r in res.values() if r.get("backend")})
    print("backend: %s" % "; ".join(backends))
    print("%d cases: %d checks passed, %d failed (GIMP %.0f s, total %.0f s)"
          % (len(cs), chk.passed, chk.failed, gimp_s, time.time() - started))
    return 1 if chk.failed or chk.passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
