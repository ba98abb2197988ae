#!/usr/bin/env python3
"""The procedure's `bins` argument in real, headless GIMP (issue 8).

    bins-tests.py --gimp 2|3 --plugin BUILT-PLUGIN --workdir DIR

In GIMP 2.10 one Script-Fu batch makes the layers and dumps their stored pixels with
gimp-drawable-get-pixel (for a u16 layer: two little-endian bytes a sample; for a float layer:
four), then calls plug-in-gpu-histogram with `bins`.  GIMP 3.0's get-pixel gives colours, not
stored values, and its Script-Fu takes minutes to print 196608 counts, so there one Python-Fu
batch makes the same layers (gradient, then gegl:noise-hurl over half the pixels; the special
values written with a Gegl buffer), reads them back in their own format with a Gegl buffer, and
calls the procedure with named arguments.  This script counts the stored values itself (plain
Python, not the engine) and compares bin by bin:

  - a 16-bit (u16, perceptual) RGB layer of gradient and noise at 65536 bins (every 16-bit
    level: the count of each stored value) and at 4096 bins (GIMP's rule, floor (v / 65535 *
    4095 + 0.5) in floats, as the plug-in bins since issue 15), as JSON and as
    CSV with one row per bin;
  - a u16 linear-light layer counted with linear=TRUE (its stored values) at 65536 bins;
  - a float layer (gradient) and one of special values (NaN, infinities, out of range) at 65536
    bins: v = floor (x * 65535 + 0.5), below 0 and NaN as 0, above 1 and +inf as 65535;
  - an 8-bit layer asked for 4096 bins: 256 bins, as the procedure documents, "bins": 256 and
    "requested_bins": 4096 in the JSON, n-channels * 256 counts returned;
  - bins=1000: an execution error, no output file.

The helpers (Script-Fu definitions, GIMP runner, parsers) are gimp-tests.py's, the output
file's reader and the Python-Fu runner gimp_results.py's.  For GIMP 3.0 on Debian 12,
gimp3-tests.sh runs this script inside the Debian 13 root (meson test gimp3-bins).
Exit status: 0 all passed, 1 a check failed, 77 skipped (no GIMP).
"""

import json
import math
import os
import struct
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree for the imported modules
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gimp_results  # noqa: E402  (the shared pieces of the GIMP test scripts)
gt = gimp_results.load_gimp_tests()

SKIP = 77

RUN_2 = r"""
(define (gh-run-bins img d out reps linear bins)
  (plug-in-gpu-histogram RUN-NONINTERACTIVE img d out reps linear bins 1 0))
(define (gh-find-image name)
  (let loop ((imgs (vector->list (cadr (gimp-image-list)))))
    (if (string=? (car (gimp-item-get-name (car (gimp-image-get-active-layer (car imgs))))) name)
        (car imgs)
        (loop (cdr imgs)))))
"""

# Script-Fu in GIMP 2.10 (TinyScheme) dies with a segmentation fault when a procedure returns a
# float array of more than about 50000 values, as counts does at 65536 bins: its output file is
# written before, and the images outlive the Script-Fu process.  So in 2.10 each such call is a
# batch command of its own on an image made by an earlier one, and only its file is checked.
HUGE_RETURN_2 = 50000

RUN_3 = r"""
(define (gh-run-bins img d out reps linear bins)
  (plug-in-gpu-histogram #:run-mode RUN-NONINTERACTIVE #:image img #:drawables (vector d)
                         #:output-file out #:repetitions reps #:linear linear #:bins bins))
"""


# GIMP 3.0: the same layers and calls from Python-Fu, named arguments; the stored pixels are read
# back in the layer's own format (<name>.raw), the return values written as JSON (<label>.ret).
PYFU_3 = r"""
import json, struct, traceback
import gi
gi.require_version('Gimp', '3.0')
gi.require_version('Gegl', '0.4')
from gi.repository import Gimp, Gegl, GObject
work = WORK
cases = json.load(open(work + '/cases.json'))
proc = Gimp.get_pdb().lookup_procedure('plug-in-gpu-histogram')
PRECISION = {None: 'U8_NON_LINEAR', 'u16': 'U16_NON_LINEAR', 'u16-linear': 'U16_LINEAR',
             'float': 'FLOAT_NON_LINEAR'}
""" + gimp_results.PYFU_DOUBLES + r"""
def make(c):
    w, h = c['w'], c['h']
    img = Gimp.Image.new_with_precision(w, h, Gimp.ImageBaseType.RGB,
                                        getattr(Gimp.Precision, PRECISION[c['precision']]))
    layer = Gimp.Layer.new(img, c['name'], w, h, Gimp.ImageType.RGB_IMAGE, 100,
                           Gimp.LayerMode.NORMAL)
    img.insert_layer(layer, None, 0)
    rect = Gegl.Rectangle.new(0, 0, w, h)
    if c.get('special'):
        data = struct.pack('<%df' % len(c['special']), *c['special'])
        buf = layer.get_buffer()
        buf.set(rect, "R'G'B' float", data)
        buf.flush()
        layer.update(0, 0, w, h)
    else:
        # filled in the layer's precision, so that a u16 or float layer holds values no 8-bit
        # layer can
        Gimp.context_set_foreground(Gegl.Color.new('#fa035a'))
        Gimp.context_set_background(Gegl.Color.new('#05f080'))
        Gimp.context_set_gradient(Gimp.Gradient.get_by_name('FG to BG (RGB)'))
        layer.edit_gradient_fill(Gimp.GradientType.LINEAR, 0, False, 1, 0, False, 0, 0, w, h)
        f = Gimp.DrawableFilter.new(layer, 'gegl:noise-hurl', 'hurl')
        f.get_config().set_property('pct-random', 50.0)
        f.get_config().set_property('seed', 11)
        layer.merge_filter(f)
    raw = bytes(layer.get_buffer().get(rect, 1.0, None, Gegl.AbyssPolicy.CLAMP))
    with open(work + '/%s.raw' % c['name'], 'wb') as f:
        f.write(raw)
    return img, layer

def run(img, layer, label, out, reps, linear, bins, error):
    config = proc.create_config()
    config.set_property('run-mode', Gimp.RunMode.NONINTERACTIVE)
    config.set_property('image', img)
    config.set_core_object_array('drawables', [layer])
    config.set_property('output-file', out)
    config.set_property('repetitions', reps)
    config.set_property('linear', linear)
    config.set_property('bins', bins)
    config.set_property('weighting', 'pixels')
    r = proc.run(config)
    if r.index(0) != Gimp.PDBStatusType.SUCCESS:
        ret = 'failed'
    else:
        ret = [r.index(1), doubles(r.index(2)), r.index(3), doubles(r.index(4)),
               list(r.index(5) or [])]
    with open(work + '/%s.ret' % label, 'w') as f:
        json.dump(ret, f)

for c in cases:
    try:
        img, layer = make(c)
        img.clean_all()
        for run_args in c['runs']:
            run(img, layer, *run_args)
        with open(work + '/%s.dirty' % c['name'], 'w') as f:
            f.write('1' if img.is_dirty() else '0')
        img.delete()
    except Exception:
        with open(work + '/%s.exception' % c['name'], 'w') as f:
            f.write(traceback.format_exc())
open(work + '/done', 'w').close()
"""


def run_gimp3(work, profile, timeout=400):
    """The Python-Fu batch in GIMP 3.0 (python-fu-eval, --quit); stopped if it lingers."""
    special = [v for _, _, vals, _ in gt.special_pixels(dict(w=8, h=2, special="float"))
               for v in vals]
    cs = []
    for c in cases(work):
        c = dict(c)
        if c.get("special"):
            # NaN and the infinities: strict JSON has none, but Python's json writes and reads
            # them (NaN, Infinity) at both ends
            c["special"] = special
        cs.append(c)
    with open(os.path.join(work, "cases.json"), "w") as f:
        json.dump(cs, f)
    script = os.path.join(work, "bins.py")
    with open(script, "w") as f:
        f.write(PYFU_3.replace("WORK", repr(work)))
    return gimp_results.run_python_fu(profile, script, os.path.join(work, "done"),
                                      os.path.join(work, "gimp.log"), timeout)


def sample16(v):
    """The documented narrowing of a float sample to 16 bits."""
    if not (v > 0):
        return 0
    if v >= 1:
        return 65535
    return int(math.floor(v * 65535.0 + 0.5))


# --- the Script-Fu ------------------------------------------------------------------------------

def layer_script(gimp, name, w, h, ltype, precision, fill):
    s = ["(let* ((img (car (gimp-image-new %d %d RGB)))" % (w, h),
         "(l (gh-layer-new img %d %d %s %s)) (d l))" % (w, h, ltype, gt.sf_str(name)),
         "(gimp-image-insert-layer img l 0 0)"]
    if precision:
        s.append("(gimp-image-convert-precision img %s)"
                 % gt.PRECISIONS[precision][0 if gimp == "2" else 1])
    # filled after the precision change, so that a u16 or float layer holds values no 8-bit
    # layer can
    s.append(gt.fill_commands(dict(fill=fill, w=w, h=h), "l"))
    if fill == "gradient" and gimp == "2":
        s.append("(gh-noise-half img l)")
    return s


def run_call(path, out, reps, linear, bins, expect_error=False):
    call = "(gh-run-bins img d %s %d %s %d)" % (gt.sf_str(out), reps, "TRUE" if linear else "FALSE",
                                                bins)
    if expect_error:
        call = '(catch "failed" %s)' % call
    return "(gh-write %s %s)" % (gt.sf_str(path), call)


def cases(work):
    """name -> dict(script parts, runs); each run: (label, out-file, reps, linear, bins, error)."""
    p = lambda n: os.path.join(work, n)
    return [
        dict(name="u16", w=160, h=48, ltype="RGB-IMAGE", precision="u16", fill="gradient",
             runs=[("u16-65536", p("u16-65536.json"), 1, False, 65536, False),
                   ("u16-4096", p("u16-4096.csv"), 0, False, 4096, False),
                   ("u16-1000", p("u16-1000.json"), 0, False, 1000, True)]),
        dict(name="u16lin", w=64, h=32, ltype="RGB-IMAGE", precision="u16-linear",
             fill="gradient",
             runs=[("u16lin-65536", p("u16lin-65536.json"), 0, True, 65536, False)]),
        dict(name="float", w=80, h=24, ltype="RGB-IMAGE", precision="float", fill="gradient",
             runs=[("float-65536", p("float-65536.json"), 0, False, 65536, False),
                   ("float-16384", p("float-16384.csv"), 0, False, 16384, False)]),
        dict(name="special", w=8, h=2, ltype="RGB-IMAGE", precision="float", fill="flat",
             special=True,
             runs=[("special-65536", p("special-65536.json"), 0, False, 65536, False)]),
        dict(name="u8", w=97, h=61, ltype="RGB-IMAGE", precision=None, fill="gradient",
             runs=[("u8-4096", p("u8-4096.json"), 0, False, 4096, False)]),
    ]


def huge(gimp, c, run):
    """Whether this call's return value is too big for GIMP 2.10's Script-Fu."""
    # an RGB layer returns five channels: red, green, blue, value, luminance
    return gimp == "2" and 5 * run[4] > HUGE_RETURN_2 and not run[5]


def case_script(gimp, c, work):
    s = layer_script(gimp, c["name"], c["w"], c["h"], c["ltype"], c["precision"], c["fill"])
    if c.get("special"):
        for x, y, _, data in gt.special_pixels(dict(w=c["w"], h=c["h"], special="float")):
            s.append("(gh-set-pixel d %d %d #(%s))" % (x, y, " ".join(str(b) for b in data)))
    else:
        s.append("(gh-dump-pixels d %d %d %s)"
                 % (c["w"], c["h"], gt.sf_str(os.path.join(work, c["name"] + ".pixels"))))
    s.append("(gimp-image-clean-all img)")
    for run in c["runs"]:
        label, out, reps, linear, bins, error = run
        if not huge(gimp, c, run):
            s.append(run_call(os.path.join(work, label + ".ret"), out, reps, linear, bins, error))
    prelude = "(begin " + gt.helpers(gimp) + (RUN_2 if gimp == "2" else RUN_3)
    dirty = "(gh-write %s (car (gimp-image-is-dirty img)))" % gt.sf_str(
        os.path.join(work, c["name"] + ".dirty"))
    if gimp != "2":
        return [prelude + " ".join(s) + dirty + "(gimp-image-delete img)))"]
    commands = [prelude + " ".join(s) + "))"]
    find = "(let* ((img (gh-find-image %s)) (d (car (gimp-image-get-active-layer img))))" \
        % gt.sf_str(c["name"])
    for run in c["runs"]:
        label, out, reps, linear, bins, error = run
        if huge(gimp, c, run):
            commands.append(prelude + find
                            + run_call(os.path.join(work, label + ".ret"), out, reps, linear, bins)
                            + "))")
    commands.append(prelude + find + dirty + "(gimp-image-delete img)))")
    return commands


# --- the independent count ----------------------------------------------------------------------

NAMES = ["red", "green", "blue"]


def stored_values(c, work):
    """Per channel, the list of stored values: 16-bit levels (u16, float narrowed) or 8-bit."""
    raw = os.path.join(work, c["name"] + ".raw")
    if os.path.exists(raw):
        # GIMP 3.0: the layer's own format, read back with a Gegl buffer
        with open(raw, "rb") as f:
            data = f.read()
        bpp = len(data) // (c["w"] * c["h"])
        pixels = [data[i:i + bpp] for i in range(0, len(data), bpp)]
    elif c.get("special"):
        vals = {n: [] for n in NAMES}
        for _, _, v, _ in gt.special_pixels(dict(w=c["w"], h=c["h"], special="float")):
            for i, n in enumerate(NAMES):
                vals[n].append(sample16(struct.unpack("<f", struct.pack("<f", v[i]))[0]))
        return vals
    else:
        pixels = gt.read_pixels(os.path.join(work, c["name"] + ".pixels"))
    vals = {n: [] for n in NAMES}
    for px in pixels:
        px = bytes(px)
        if c["precision"] in ("u16", "u16-linear"):
            samples = struct.unpack("<%dH" % (len(px) // 2), px)
        elif c["precision"] == "float":
            samples = [sample16(v) for v in struct.unpack("<%df" % (len(px) // 4), px)]
        else:
            samples = px
        for i, n in enumerate(NAMES):
            vals[n].append(samples[i])
    return vals


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def gimp_bin(v, bins, levels):
    """GIMP's rule (issue 15; app/core/gimphistogram.c), which the plug-in follows: the float
    nearest v / (levels - 1), times (float) (bins - 1) rounded to a float, then floor (x + 0.5);
    8-bit samples at 256 bins are their own bin."""
    if bins == levels:
        return v
    return int(math.floor(f32(f32(v / (levels - 1)) * f32(bins - 1)) + 0.5))


def count(vals, bins, levels):
    out = {}
    for n, vs in vals.items():
        cnt = [0] * bins
        for v in vs:
            cnt[gimp_bin(v, bins, levels)] += 1
        out[n] = cnt
    return out


def compare(chk, label, got, want):
    got = gimp_results.layer_channels(chk, label, got, want)
    ok = set(got) == set(want)
    chk.check(ok, "%s: channels %s, expected %s" % (label, sorted(got), sorted(want)))
    for n in want:
        if n not in got:
            continue
        if len(got[n]) != len(want[n]):
            chk.check(False, "%s: %s has %d bins, expected %d" % (label, n, len(got[n]),
                                                                 len(want[n])))
            continue
        diff = [(i, got[n][i], want[n][i]) for i in range(len(want[n])) if got[n][i] != want[n][i]]
        chk.check(not diff, "%s: %s differs in %d bins, first %s" % (label, n, len(diff), diff[:5]))


def check_returns(chk, gimp, label, ret, got, bins):
    names = [n for n in NAMES if n in got]
    ret = gimp_results.split_returns(chk, label, ret, gimp, names, bins)
    if gimp == "2":
        if not chk.check(isinstance(ret, list) and len(ret) == 6,
                         "%s: 6 return values, got %r" % (label, str(ret)[:200])):
            return
        n, ncounts, counts, backend, _, _ = ret
        chk.check(ncounts == n * bins == len(counts),
                  "%s: num-counts %s = n-channels %s * %d bins" % (label, ncounts, n, bins))
    else:
        if not chk.check(isinstance(ret, list) and len(ret) == 4,
                         "%s: 4 return values, got %r" % (label, str(ret)[:200])):
            return
        n, counts, backend, _ = ret
        chk.check(len(counts) == n * bins, "%s: %d counts, n-channels %s * %d bins"
                  % (label, len(counts), n, bins))
    flat = []
    for nm in NAMES:
        flat += got.get(nm, [])
    chk.check([float(v) for v in counts] == [float(v) for v in flat],
              "%s: returned counts equal the file's" % label)
    gimp_results.check_gpu_backend(chk, label, backend)


def read_ret(gimp, path):
    """The return values as written by Script-Fu (2.10) or Python-Fu as JSON (3.0); None if
    missing."""
    if not os.path.exists(path):
        return None
    if gimp == "2":
        return gt.read_sexp(path)
    with open(path) as f:
        return json.load(f)


def check_all(chk, gimp, work):
    for c in cases(work):
        name = c["name"]
        exc = os.path.join(work, name + ".exception")
        if os.path.exists(exc):
            chk.check(False, "%s: the Python-Fu raised:\n%s" % (name, open(exc).read()))
            continue
        if not chk.check(os.path.exists(os.path.join(work, name + ".dirty")),
                         "%s: the batch ran (see gimp.log)" % name):
            continue
        chk.check(gt.read_sexp(os.path.join(work, name + ".dirty")) == 0,
                  "%s: the image is unchanged" % name)
        vals = stored_values(c, work)
        wide = c["precision"] is not None
        if c["precision"] in ("u16", "u16-linear"):
            # the point of the test: values an 8-bit layer cannot hold
            odd = sum(1 for v in vals["red"] if v % 257 != 0)
            chk.check(odd > len(vals["red"]) // 2,
                      "%s: the layer holds 16-bit values (%d of %d not 8-bit levels)"
                      % (name, odd, len(vals["red"])))
        for run in c["runs"]:
            label, out, reps, linear, bins, error = run
            ret = read_ret(gimp, os.path.join(work, label + ".ret"))
            if error:
                chk.check(ret == "failed", "%s: an execution error (got %r)" % (label, ret))
                chk.check(not os.path.exists(out), "%s: no output file" % label)
                continue
            if not chk.check(os.path.exists(out), "%s: output written" % label):
                continue
            got, data, rows = gimp_results.read_counts(out)
            counted = bins if wide else 256
            want = count(vals, counted, 65536 if wide else 256)
            compare(chk, label + " vs the independent count", got, want)
            if rows is not None:
                chk.check(rows == counted, "%s: CSV has %d rows, expected %d" % (label, rows,
                                                                                 counted))
            if data is not None:
                chk.check(data.get("bins") == counted, "%s: JSON bins %s, expected %d"
                          % (label, data.get("bins"), counted))
                chk.check(data.get("requested_bins") == bins, "%s: JSON requested_bins %s"
                          % (label, data.get("requested_bins")))
                if wide:
                    chk.check("u16" in data.get("fetch_format", "") or
                              "float" in data.get("fetch_format", ""),
                              "%s: fetched as %s" % (label, data.get("fetch_format")))
                print("%s: layout %r, fetch %s" % (label, data.get("layout"),
                                                   data.get("fetch_format")))
            if huge(gimp, c, run):
                print("%s: return values not checked (GIMP 2.10's Script-Fu cannot take %d "
                      "counts)" % (label, 5 * bins))
            else:
                check_returns(chk, gimp, label + " return values", ret, got, counted)


def main():
    begun = gimp_results.start("bins")
    if begun is None:
        return SKIP
    args, work = begun
    profile = gt.make_profile(work, args.gimp, args.plugin)
    chk = gt.Checker()
    started = time.time()
    if args.gimp == "2":
        commands = []
        for c in cases(work):
            commands += case_script(args.gimp, c, work)
        rc = gt.run_gimp(args.gimp, profile, commands, os.path.join(work, "gimp.log"))
        chk.check(rc is not None, "GIMP finished (log %s)" % os.path.join(work, "gimp.log"))
    else:
        chk.check(run_gimp3(work, profile),
                  "GIMP ran the Python-Fu batch (log %s)" % os.path.join(work, "gimp.log"))
    check_all(chk, args.gimp, work)
    return gimp_results.finish(chk, started)


if __name__ == "__main__":
    sys.exit(main())
