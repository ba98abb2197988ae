#!/usr/bin/env python3
"""Runs plug-in-gpu-histogram in real, headless GIMP and checks every count.

    gimp-tests.py --gimp 2|3 --plugin BUILT-PLUGIN --workdir DIR [--suite generated|photo|python]

For each case a Script-Fu batch command makes an image in GIMP (flat, noise, gradient; each layer
type; layer masks and channels; every precision; selections), exports the same pixels (raw bytes,
or pixel by pixel for masks and channels) before any precision change, calls the plug-in with
output-file set, and writes the procedure's return values.  This script then counts the exported
pixels itself (the independent count: plain Python, not the engine) and compares bin by bin with
the JSON or CSV file and the return values.  For opaque 8-bit layers without a selection it also
compares with GIMP's own gimp-drawable-histogram, queried one level at a time.  The photo suite
decodes Debian's astronaut.png (python3-skimage) with its own PNG decoder.

Exit status: 0 all passed, 1 a check failed, 77 skipped (GIMP or the photo cannot be had).
"""

import argparse
import collections
import json
import math
import os
import shutil
import struct
import subprocess
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree for gimp_results
sys.path.insert(0, HERE)
import gimp_results  # noqa: E402  (the shared pieces of the GIMP test scripts)

SKIP = 77

# --- the cases --------------------------------------------------------------------------------

# precision name -> (GIMP 2.10 constant, GIMP 3.0 constant)
PRECISIONS = {
    "u8-linear": ("PRECISION-U8-LINEAR", "PRECISION-U8-LINEAR"),
    "u16": ("PRECISION-U16-GAMMA", "PRECISION-U16-NON-LINEAR"),
    "u16-linear": ("PRECISION-U16-LINEAR", "PRECISION-U16-LINEAR"),
    "u32": ("PRECISION-U32-GAMMA", "PRECISION-U32-NON-LINEAR"),
    "half": ("PRECISION-HALF-GAMMA", "PRECISION-HALF-NON-LINEAR"),
    "half-linear": ("PRECISION-HALF-LINEAR", "PRECISION-HALF-LINEAR"),
    "float": ("PRECISION-FLOAT-GAMMA", "PRECISION-FLOAT-NON-LINEAR"),
    "float-linear": ("PRECISION-FLOAT-LINEAR", "PRECISION-FLOAT-LINEAR"),
    "double": ("PRECISION-DOUBLE-GAMMA", "PRECISION-DOUBLE-NON-LINEAR"),
}


def case(name, **kw):
    c = dict(name=name, base="RGB", ltype="RGB-IMAGE", fill="noise", w=97, h=61, iw=None,
             ih=None, offset=(0, 0), target="layer", precision=None, linear=False, out="json",
             sel=None, indexed=0, special=None, reps=1, expect_error=None, hist=False,
             ref="before")
    c.update(kw)
    return c


def generated_cases_3():
    """GIMP 3.0: Script-Fu with named arguments.  Its get-pixel returns colours, not stored bytes,
    and plug-in-randomize-hurl is gone, so the cases keep to flat and gradient fills."""
    cs = [
        case("rgb-flat", fill="flat", hist=True),
        case("rgb-gradient", fill="gradient", hist=True, out="csv"),
        case("rgba-gradient", ltype="RGBA-IMAGE", fill="gradient", reps=0),
        case("gray-gradient", base="GRAY", ltype="GRAY-IMAGE", fill="gradient", hist=True),
        case("selection", fill="gradient", sel=(10, 7, 40, 30)),
        case("selection-offset-layer", iw=120, ih=90, offset=(30, 20), sel=(0, 0, 60, 50),
             fill="gradient"),
        case("empty-selection", iw=200, ih=100, w=50, h=50, sel=(120, 10, 30, 30),
             fill="flat", expect_error="does not intersect"),
        case("layer-group", target="group", expect_error="layer group"),
        case("big-multi-strip", fill="flat", w=1600, h=1400, reps=0, ref="flat"),
    ]
    for p in ["u16", "u32", "half", "float", "double", "u16-linear", "float-linear"]:
        cs.append(case("rgb-gradient-" + p, fill="gradient", precision=p))
    return cs


def generated_cases():
    cs = [
        case("rgb-flat", fill="flat", hist=True),
        case("rgb-noise", hist=True, reps=3),
        case("rgb-gradient", fill="gradient", hist=True, out="csv"),
        case("rgba-alpha-noise", ltype="RGBA-IMAGE", fill="alpha-noise"),
        case("gray-gradient", base="GRAY", ltype="GRAY-IMAGE", fill="gradient", hist=True),
        case("gray-noise", base="GRAY", ltype="GRAY-IMAGE", hist=True, reps=0),
        case("graya-alpha-noise", base="GRAY", ltype="GRAYA-IMAGE", fill="alpha-noise"),
        case("indexed", indexed=23),
        case("indexed-alpha", ltype="RGBA-IMAGE", fill="alpha-noise", indexed=12),
        case("layer-mask", target="mask", fill="gradient", w=41, h=29),
        case("channel", target="channel", fill="gradient", w=41, h=29),
        case("selection", sel=(10, 7, 40, 30), out="csv"),
        case("selection-offset-layer", iw=120, ih=90, offset=(30, 20), sel=(0, 0, 60, 50),
             ltype="RGBA-IMAGE", fill="alpha-noise"),
        case("linear-from-u8", linear=True, ref="srgb-to-linear"),
        case("u8-linear-precision", precision="u8-linear", linear=True, ref="after"),
        case("big-multi-strip", ltype="RGBA-IMAGE", fill="alpha-noise", w=1600, h=1400, reps=0,
             ref="raw"),
        case("empty-selection", iw=200, ih=100, w=50, h=50, sel=(120, 10, 30, 30),
             expect_error="does not intersect"),
        case("layer-group", target="group", expect_error="layer group"),
        case("float-special", precision="float", special="float", w=8, h=2, fill="flat"),
        case("half-special", precision="half", special="half", w=8, h=2, fill="flat"),
    ]
    for p in ["u16", "u32", "half", "float", "double"]:
        cs.append(case("rgba-" + p, ltype="RGBA-IMAGE", fill="alpha-noise", precision=p))
    for p in ["u16-linear", "half-linear", "float-linear"]:
        cs.append(case("rgb-" + p, precision=p))
    cs.append(case("gray-u16", base="GRAY", ltype="GRAY-IMAGE", precision="u16"))
    cs.append(case("graya-float-linear", base="GRAY", ltype="GRAYA-IMAGE", fill="alpha-noise",
                   precision="float-linear"))
    cs.append(case("mask-u16", target="mask", fill="gradient", w=41, h=29, precision="u16"))
    return cs


# The special values written with gimp-drawable-set-pixel and the bins the plug-in documents:
# < 0, -inf and NaN -> 0; >= 1 and +inf -> 255; else floor (v * 255 + 0.5).
SPECIAL_VALUES = [float("nan"), float("inf"), float("-inf"), -0.5, 1.5, 0.5, 0.25, 1.0,
                  0.0, 1.0 / 255, 0.999, 2.0 / 255, 0.75, 1e-9, -1e-9, 0.5 / 255 + 1e-4]


def documented_bin(v):
    if not (v > 0):
        return 0
    if v >= 1:
        return 255
    return int(math.floor(v * 255 + 0.5))


def half_bits(v):
    return struct.unpack("<H", struct.pack("<e", v))[0]


def half_value(v):
    return struct.unpack("<e", struct.pack("<e", v))[0]


# --- Script-Fu --------------------------------------------------------------------------------

# Writing a value, and a drawable's pixels (gh-pixel comes with each version's helpers), to a
# file; counts-tests.py takes these too.
FILE_HELPERS = r"""
(define (gh-write path obj)
  (let ((p (open-output-file path))) (write obj p) (newline p) (close-output-port p)))
(define (gh-dump-pixels d w h path)
  (let ((p (open-output-file path)) (y 0))
    (while (< y h)
      (let ((x 0))
        (while (< x w)
          (write (gh-pixel d x y) p) (newline p)
          (set! x (+ x 1))))
      (set! y (+ y 1)))
    (close-output-port p)))
"""

HELPERS = FILE_HELPERS + r"""(define (gh-dump-hist d chans path)
  (let ((p (open-output-file path)))
    (for-each
      (lambda (c)
        (let ((k 0))
          (while (< k 256)
            (write (list-ref (gimp-drawable-histogram d c (/ k 255.0) (/ k 255.0)) 4) p)
            (display " " p)
            (set! k (+ k 1))))
        (newline p))
      chans)
    (close-output-port p)))
"""

HELPERS_2 = r"""
(define (gh-pixel d x y) (cadr (gimp-drawable-get-pixel d x y)))
(define (gh-layer-new img w h type name)
  (car (gimp-layer-new img w h type name 100 LAYER-MODE-NORMAL)))
(define (gh-export-raw img d path) (file-raw-save2 RUN-NONINTERACTIVE img d path path 0 0))
(define (gh-run img d out reps linear)
  (plug-in-gpu-histogram RUN-NONINTERACTIVE img d out reps linear 256 1 0))
(define (gh-set-pixel d x y bytes) (gimp-drawable-set-pixel d x y (vector-length bytes) bytes))
(define (gh-noise img d) (plug-in-randomize-hurl RUN-NONINTERACTIVE img d 100 1 FALSE 7))
(define (gh-noise-half img d) (plug-in-randomize-hurl RUN-NONINTERACTIVE img d 50 1 FALSE 11))
(define (gh-colormap img) (cadr (gimp-image-get-colormap img)))
(define (gh-set-gradient name) (gimp-context-set-gradient name))
"""

HELPERS_3 = r"""
(define (gh-set-gradient name)
  (gimp-context-set-gradient (car (gimp-gradient-get-by-name name))))
(define (gh-pixel d x y)
  (let ((c (car (gimp-drawable-get-pixel d x y)))) c))
(define (gh-layer-new img w h type name)
  (car (gimp-layer-new img name w h type 100 LAYER-MODE-NORMAL)))
(define (gh-run img d out reps linear)
  (plug-in-gpu-histogram #:run-mode RUN-NONINTERACTIVE #:image img #:drawables (vector d)
                         #:output-file out #:repetitions reps #:linear linear
                         #:weighting "pixels"))
(define (gh-noise img d) (plug-in-randomize-hurl #:run-mode RUN-NONINTERACTIVE #:image img
  #:drawables (vector d) #:rndm-pct 100 #:rndm-rcount 1 #:randomize FALSE #:seed 7))
(define (gh-noise-half img d) (plug-in-randomize-hurl #:run-mode RUN-NONINTERACTIVE #:image img
  #:drawables (vector d) #:rndm-pct 50 #:rndm-rcount 1 #:randomize FALSE #:seed 11))
"""


def helpers(gimp):
    """Definitions do not outlive a batch command: each command starts with them."""
    return HELPERS + (HELPERS_2 if gimp == "2" else HELPERS_3)


def sf_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def fill_commands(c, d):
    f = c["fill"]
    w, h = c["w"], c["h"]
    if f == "flat":
        return ("(gimp-context-set-foreground (list 200 100 37))"
                "(gimp-drawable-fill %s FILL-FOREGROUND)" % d)
    if f == "gradient":
        return ("(gimp-context-set-foreground (list 250 3 90))"
                "(gimp-context-set-background (list 5 240 128))"
                "(gh-set-gradient \"FG to BG (RGB)\")"
                "(gimp-drawable-edit-gradient-fill %s GRADIENT-LINEAR 0 FALSE 1 0 FALSE 0 0 %d %d)"
                % (d, w, h))
    if f == "noise":
        return ("(gimp-context-set-foreground (list 128 128 128))"
                "(gimp-drawable-fill %s FILL-FOREGROUND)(gh-noise img %s)" % (d, d))
    if f == "alpha-noise":
        return ("(gimp-context-set-foreground (list 30 160 220))"
                "(gh-set-gradient \"FG to Transparent\")"
                "(gimp-drawable-edit-gradient-fill %s GRADIENT-LINEAR 0 FALSE 1 0 FALSE 0 0 %d %d)"
                "(gh-noise-half img %s)" % (d, w, 0, d))
    raise ValueError(f)


def special_pixels(c):
    """(x, y, bytes) for the special values, channel values cycling through SPECIAL_VALUES."""
    out = []
    n = 3
    i = 0
    for y in range(c["h"]):
        for x in range(c["w"]):
            vals = [SPECIAL_VALUES[(i + k) % len(SPECIAL_VALUES)] for k in range(n)]
            i += 1
            if c["special"] == "float":
                data = b"".join(struct.pack("<f", v) for v in vals)
            else:
                data = b"".join(struct.pack("<H", half_bits(v)) for v in vals)
            out.append((x, y, vals, data))
    return out


def case_script(c, gimp, work):
    name = c["name"]
    p = lambda suffix: sf_str(os.path.join(work, name + suffix))
    iw = c["iw"] or c["w"]
    ih = c["ih"] or c["h"]
    s = ["(let* ((img (car (gimp-image-new %d %d %s)))" % (iw, ih, c["base"]),
         "(l (gh-layer-new img %d %d %s %s)) (d l))" % (c["w"], c["h"], c["ltype"], sf_str(name)),
         "(gimp-image-insert-layer img l 0 0)",
         "(gimp-layer-set-offsets l %d %d)" % c["offset"]]
    if c["target"] == "group":
        grp = "(car (gimp-layer-group-new img))" if gimp == "2" else "(car (gimp-group-layer-new img \"group\"))"
        s.append("(set! d %s)(gimp-image-insert-layer img d 0 0)" % grp)
    elif c["target"] == "mask":
        s.append(fill_commands(dict(c, fill="noise"), "l"))
        s.append("(set! d (car (gimp-layer-create-mask l ADD-MASK-WHITE)))(gimp-layer-add-mask l d)")
        s.append(fill_commands(c, "d"))
    elif c["target"] == "channel":
        s.append(fill_commands(dict(c, fill="noise"), "l"))
        if gimp == "2":
            s.append("(set! d (car (gimp-channel-new img %d %d \"chan\" 50 (list 255 0 0))))"
                     % (c["w"], c["h"]))
        else:
            s.append("(set! d (car (gimp-channel-new img \"chan\" %d %d 50 (list 255 0 0))))"
                     % (c["w"], c["h"]))
        s.append("(gimp-image-insert-channel img d 0 0)")
        s.append(fill_commands(c, "d"))
    else:
        s.append(fill_commands(c, "l"))
    if c["indexed"]:
        if gimp == "2":
            s.append("(gimp-image-convert-indexed img CONVERT-DITHER-NONE CONVERT-PALETTE-GENERATE"
                     " %d FALSE FALSE \"\")" % c["indexed"])
        else:
            s.append("(gimp-image-convert-indexed img CONVERT-DITHER-NONE CONVERT-PALETTE-GENERATE"
                     " %d FALSE FALSE \"\")" % c["indexed"])
    if c["ref"] == "flat":
        ref = ""
    elif c["ref"] == "raw":
        ref = "(gh-export-raw img d %s)" % p(".raw")
    else:
        ref = "(gh-dump-pixels d %d %d %s)" % (c["w"], c["h"], p(".pixels"))
    if c["indexed"]:
        ref += "(gh-write %s (gh-colormap img))" % p(".palette")
    if c["target"] != "group" and not c["ref"].startswith("after") and not c["special"]:
        s.append(ref)
    if c["precision"]:
        s.append("(gimp-image-convert-precision img %s)"
                 % PRECISIONS[c["precision"]][0 if gimp == "2" else 1])
    if c["target"] != "group" and c["ref"].startswith("after"):
        s.append(ref)
    if c["special"]:
        for x, y, _, data in special_pixels(c):
            s.append("(gh-set-pixel d %d %d #(%s))" % (x, y, " ".join(str(b) for b in data)))
    if c["sel"]:
        s.append("(gimp-image-select-rectangle img CHANNEL-OP-REPLACE %d %d %d %d)" % c["sel"])
    s.append("(gimp-image-clean-all img)")
    out = p("." + c["out"])
    if c["expect_error"]:
        s.append("(gh-write %s (catch \"failed\" (gh-run img d %s %d %s)))"
                 % (p(".ret"), out, c["reps"], "TRUE" if c["linear"] else "FALSE"))
    else:
        s.append("(gh-write %s (gh-run img d %s %d %s))"
                 % (p(".ret"), out, c["reps"], "TRUE" if c["linear"] else "FALSE"))
    s.append("(gh-write %s (car (gimp-image-is-dirty img)))" % p(".dirty"))
    if c["hist"]:
        chans = "(list HISTOGRAM-VALUE)" if c["base"] == "GRAY" else \
            "(list HISTOGRAM-RED HISTOGRAM-GREEN HISTOGRAM-BLUE)"
        s.append("(gh-dump-hist d %s %s)" % (chans, p(".hist")))
    s.append("(gimp-image-delete img))")
    return " ".join(s)


# --- reading what GIMP wrote --------------------------------------------------------------------

def parse_sexp(text):
    """Enough of Scheme's printed syntax: lists, vectors, strings, numbers, #t/#f, symbols."""
    pos = 0

    def skip():
        nonlocal pos
        while pos < len(text) and text[pos].isspace():
            pos += 1

    def value():
        nonlocal pos
        skip()
        ch = text[pos]
        if ch == "(" or text.startswith("#(", pos):
            pos += 1 if ch == "(" else 2
            items = []
            while True:
                skip()
                if text[pos] == ")":
                    pos += 1
                    return items
                items.append(value())
        if ch == '"':
            pos += 1
            out = []
            while text[pos] != '"':
                if text[pos] == "\\":
                    pos += 1
                    out.append({"n": "\n", "t": "\t"}.get(text[pos], text[pos]))
                else:
                    out.append(text[pos])
                pos += 1
            pos += 1
            return "".join(out)
        start = pos
        while pos < len(text) and not text[pos].isspace() and text[pos] not in "()":
            pos += 1
        tok = text[start:pos]
        if tok in ("#t", "#f"):
            return tok == "#t"
        try:
            return int(tok)
        except ValueError:
            try:
                return float(tok)
            except ValueError:
                return tok

    return value()


def read_sexp(path):
    with open(path) as f:
        return parse_sexp(f.read())


def read_pixels(path):
    rows = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                rows.append(parse_sexp(line))
    return rows


def read_counts(path, fmt):
    """({channel name: [256 counts]}, the JSON or None) from the plug-in's JSON or CSV."""
    counts, data, _ = gimp_results.read_counts(path, fmt, bins=256)
    return counts, data


# --- the independent count ----------------------------------------------------------------------

def srgb_to_linear(v):
    return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4


def expected_counts(c, pixels, area, names):
    """Counts of the exported 8-bit pixels (one list of samples per pixel) within area."""
    w = c["w"]
    ax, ay, aw, ah = area
    counts = {n: [0] * 256 for n in names}
    for y in range(ay, ay + ah):
        for x in range(ax, ax + aw):
            px = pixels[y * w + x]
            for i, n in enumerate(names):
                v = px[i]
                if c["ref"] == "srgb-to-linear" and n != "alpha":
                    v = documented_bin(srgb_to_linear(v / 255.0))
                counts[n][v] += 1
    return counts


def expected_counts_raw(path, w, bpp, area, names):
    """Counts of raw interleaved 8-bit pixels (rows w * bpp bytes) within area."""
    with open(path, "rb") as f:
        raw = f.read()
    ax, ay, aw, ah = area
    counters = [collections.Counter() for _ in names]
    for y in range(ay, ay + ah):
        row = raw[(y * w + ax) * bpp:(y * w + ax + aw) * bpp]
        for i in range(len(names)):
            counters[i].update(row[i::bpp])
    return {n: [counters[i].get(k, 0) for k in range(256)] for i, n in enumerate(names)}


def channel_names(c, n_samples):
    if c["target"] in ("mask", "channel"):
        return ["gray"]
    if c["base"] == "GRAY":
        return ["gray", "alpha"][:n_samples]
    return ["red", "green", "blue", "alpha"][:n_samples]


class Checker:
    def __init__(self):
        self.failed = 0
        self.passed = 0

    def check(self, ok, what):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print("FAIL: " + what, flush=True)
        return ok


def compare(chk, label, got, want):
    got = gimp_results.layer_channels(chk, label, got, want)
    ok = True
    for n in want:
        if n not in got:
            chk.check(False, "%s: channel %s missing (got %s)" % (label, n, list(got)))
            ok = False
            continue
        diff = [(i, got[n][i], want[n][i]) for i in range(256) if got[n][i] != want[n][i]]
        if diff:
            chk.check(False, "%s: channel %s differs in %d bins, first %s"
                      % (label, n, len(diff), diff[:5]))
            ok = False
    if set(got) != set(want):
        chk.check(False, "%s: channels %s, expected %s" % (label, list(got), list(want)))
        ok = False
    if ok:
        chk.check(True, label)
    return ok


def check_returns(chk, c, ret, counts_by_name, names, bins=256):
    """The procedure's return values (GIMP 2.10's six or 3.0's four, as in c["gimp"]): n-channels,
    the counts equal to counts_by_name's (the file's, or an independent count) channel by channel
    in names' order, bins a channel, the backend and the timings (c["reps"] repetitions)."""
    label = c["name"] + " return values"
    ret = gimp_results.split_returns(chk, label, ret, c.get("gimp"), names, bins)
    if c.get("gimp") == "2":
        # (n-channels num-counts counts backend num-timings timings)
        if not chk.check(isinstance(ret, list) and len(ret) == 6, "%s: 6 values, got %r"
                         % (label, str(ret)[:200])):
            return
        n, ncounts, counts, backend, ntimings, timings = ret
        chk.check(ncounts == n * bins == len(counts), "%s: num-counts %s" % (label, ncounts))
        timed = chk.check(ntimings == 6 == len(timings), "%s: num-timings %s" % (label, ntimings))
    else:
        if not chk.check(isinstance(ret, list) and len(ret) == 4, "%s: 4 values, got %r"
                         % (label, str(ret)[:200])):
            return
        n, counts, backend, timings = ret
        chk.check(len(counts) == n * bins, "%s: %d counts" % (label, len(counts)))
        timed = chk.check(len(timings) == 6, "%s: %d timings" % (label, len(timings)))
    chk.check(n == len(names), "%s: n-channels %s, expected %d" % (label, n, len(names)))
    flat = []
    for nm in names:
        flat += counts_by_name[nm]
    chk.check([float(v) for v in counts] == [float(v) for v in flat],
              "%s: counts (%d) differ from the expected ones (%d)" % (label, len(counts),
                                                                     len(flat)))
    chk.check(isinstance(backend, str) and len(backend) > 5, "%s: backend %r" % (label, backend))
    gimp_results.check_gpu_backend(chk, label, backend, c.get("faulted", False))
    if not timed:
        return
    chk.check(all(t == -1 or t >= 0 for t in timings) and timings[2] != 0 and timings[5] >= 0,
              "%s: timings %s" % (label, timings))
    if c["reps"] == 0:
        chk.check(timings[0] == -1 and timings[1] == -1, "%s: reps 0 ran only FASTEST: %s"
                  % (label, timings))
    else:
        chk.check(all(t >= 0 for t in timings[:4]), "%s: all methods timed: %s" % (label, timings))


# --- running GIMP -------------------------------------------------------------------------------

def make_profile(work, gimp, plugin):
    """WORK/profile: a GIMP profile with the plug-in as its only own plug-in, started from a copy
    of gimp_results.base_profile (GIMP's own plug-ins already registered, so that the first start
    queries only this one)."""
    profile = os.path.join(work, "profile")
    shutil.rmtree(profile, ignore_errors=True)
    gimp_results.start_profile(gimp, profile)
    for sub in ["brushes", "dynamics", "fonts", "gradients", "palettes", "patterns",
                "tool-presets", "scripts", "modules", "interpreters", "environ", "templates",
                "themes", "icons", "mypaint-brushes", "tmp"]:
        os.makedirs(os.path.join(profile, sub), exist_ok=True)
    if gimp == "3":
        dest = os.path.join(profile, "plug-ins", "gpu-histogram")
    else:
        dest = os.path.join(profile, "plug-ins")
    os.makedirs(dest, exist_ok=True)
    shutil.copy(plugin, os.path.join(dest, "gpu-histogram"))
    return profile


def run_gimp(gimp, profile, commands, log, extra_env=None, timeout=600, quit_flag=False):
    env = gimp_results.with_huge_pages(dict(os.environ))
    env.update(extra_env or {})
    env["GIMP2_DIRECTORY" if gimp == "2" else "GIMP3_DIRECTORY"] = profile
    env.setdefault("LC_ALL", "C.UTF-8")
    env.pop("DISPLAY", None)
    if gimp == "2":
        argv = ["gimp-console-2.10", "-i", "-d", "-f"]
    else:
        argv = ["gimp-console-3.0", "-i", "-d", "-f", "--batch-interpreter=plug-in-script-fu-eval"]
    for cmd in commands:
        argv += ["-b", cmd]
    argv += ["-b", "(gimp-quit 0)"] + (["--quit"] if quit_flag else [])
    with open(log, "w") as f:
        try:
            proc = subprocess.run(argv, stdout=f, stderr=subprocess.STDOUT, env=env,
                                  timeout=timeout)
            return proc.returncode
        except subprocess.TimeoutExpired:
            f.write("\n*** timed out after %d s\n" % timeout)
            return None


def run_generated(args, chk):
    gimp = args.gimp
    work = os.path.join(args.workdir, "generated")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    profile = make_profile(args.workdir, gimp, args.plugin)
    cases = generated_cases() if gimp == "2" else generated_cases_3()
    for c in cases:
        c["gimp"] = gimp
    commands = []
    for c in cases:
        commands.append("(begin " + helpers(gimp) + case_script(c, gimp, work) + ")")
    log = os.path.join(work, "gimp.log")
    rc = run_gimp(gimp, profile, commands, log)
    chk.check(rc is not None, "GIMP finished (log %s)" % log)

    # the same big case again with a memory budget that cuts it into strips of a few rows,
    # not a multiple of the tile height
    small = [dict(c, name=c["name"] + "-small-budget") for c in cases
             if c["name"] in ("big-multi-strip", "selection-offset-layer", "rgba-float",
                              "rgb-gradient-float")]
    run_gimp(gimp, profile,
             ["(begin " + helpers(gimp) + case_script(c, gimp, work) + ")" for c in small],
             os.path.join(work, "gimp-small-budget.log"), {"GPUHIST_MEMORY_BUDGET": "96K"})
    cases += small

    for c in cases:
        check_case(chk, c, work)


def check_case(chk, c, work):
    name = c["name"]
    base = os.path.join(work, name)
    if not chk.check(os.path.exists(base + ".ret"), "%s: the Script-Fu ran (see gimp.log)" % name):
        return
    ret = read_sexp(base + ".ret")
    if os.path.exists(base + ".dirty"):
        chk.check(read_sexp(base + ".dirty") == 0, "%s: the image is unchanged (not dirty)" % name)
    if c["expect_error"]:
        chk.check(ret == "failed", "%s: the call failed as it should (got %r)" % (name, ret))
        chk.check(not os.path.exists(base + "." + c["out"]), "%s: no output file" % name)
        return
    if not chk.check(os.path.exists(base + "." + c["out"]), "%s: output file written" % name):
        return
    got, data = read_counts(base + "." + c["out"], c["out"])

    # the area: the selection's bounds within the layer, in layer coordinates
    ax, ay, aw, ah = 0, 0, c["w"], c["h"]
    if c["sel"]:
        sx, sy, sw, sh = c["sel"]
        ox, oy = c["offset"]
        x0, y0 = max(sx - ox, 0), max(sy - oy, 0)
        x1, y1 = min(sx + sw - ox, c["w"]), min(sy + sh - oy, c["h"])
        ax, ay, aw, ah = x0, y0, x1 - x0, y1 - y0
    if data is not None:
        a = data["area"]
        chk.check((a["x"], a["y"], a["width"], a["height"]) == (ax, ay, aw, ah),
                  "%s: area %s, expected %s" % (name, a, (ax, ay, aw, ah)))
        chk.check(data["linear"] == c["linear"], "%s: linear flag in JSON" % name)

    if c["special"]:
        names = ["red", "green", "blue"]
        want = {n: [0] * 256 for n in names}
        for _, _, vals, _ in special_pixels(c):
            for i, n in enumerate(names):
                v = vals[i] if c["special"] == "float" else half_value(vals[i])
                want[n][documented_bin(v)] += 1
        # the rest of the layer (none here: every pixel is special)
    else:
        if c["ref"] == "flat":
            names = channel_names(c, 3)
            want = {n: [0] * 256 for n in names}
            for n, v in zip(names, (200, 100, 37)):
                want[n][v] = aw * ah
        elif c["ref"] == "raw":
            names = channel_names(c, 4 if "A-IMAGE" in c["ltype"] else 3)
            want = expected_counts_raw(base + ".raw", c["w"], len(names), (ax, ay, aw, ah), names)
        else:
            pixels = read_pixels(base + ".pixels")
            if c["ref"] == "after-u16":
                # raw little-endian u16 samples, narrowed as the plug-in documents
                pixels = [[(2 * (px[2 * i] | px[2 * i + 1] << 8) + 257) // 514
                           for i in range(len(px) // 2)] for px in pixels]
            if c["indexed"]:
                # get-pixel gives indices (and alpha); map them through the colormap
                cmap = read_sexp(base + ".palette")
                pixels = [list(cmap[3 * px[0]:3 * px[0] + 3]) + list(px[1:]) for px in pixels]
            names = channel_names(c, len(pixels[0]))
            want = expected_counts(c, pixels, (ax, ay, aw, ah), names)
    compare(chk, name + " counts vs the independent count", got, want)

    ret_counts = got
    check_returns(chk, c, ret, ret_counts, names)

    if c["hist"] and os.path.exists(base + ".hist"):
        hist = []
        with open(base + ".hist") as f:
            for line in f:
                if line.strip():
                    hist.append([int(float(v)) for v in line.split()])
        gimp_counts = dict(zip(names, hist))
        compare(chk, name + " counts vs gimp-drawable-histogram", got, gimp_counts)


# --- the photo ----------------------------------------------------------------------------------

def decode_png(path):
    """A small PNG decoder (8-bit RGB/RGBA/gray, not interlaced): the independent count's input."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos = 8
    idat = b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    assert depth == 8 and interlace == 0 and ctype in (0, 2, 4, 6), (depth, ctype, interlace)
    bpp = {0: 1, 2: 3, 4: 2, 6: 4}[ctype]
    raw = zlib.decompress(idat)
    stride = w * bpp
    out = bytearray(h * stride)
    prev = bytearray(stride)
    pos = 0
    for y in range(h):
        ft = raw[pos]
        line = bytearray(raw[pos + 1:pos + 1 + stride])
        pos += 1 + stride
        if ft == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif ft == 2:
            for i in range(stride):
                line[i] = (line[i] + prev[i]) & 255
        elif ft == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif ft == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 255
        out[y * stride:(y + 1) * stride] = line
        prev = line
    return w, h, bpp, bytes(out)


def fetch_photo(cache):
    """astronaut.png from Debian's python3-skimage, downloaded with apt-get and unpacked."""
    png = os.path.join(cache, "usr/lib/python3/dist-packages/skimage/data/astronaut.png")
    if os.path.exists(png):
        return png
    os.makedirs(cache, exist_ok=True)
    try:
        subprocess.run(["apt-get", "download", "python3-skimage"], cwd=cache, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300)
        debs = [f for f in os.listdir(cache) if f.startswith("python3-skimage_")]
        subprocess.run(["dpkg-deb", "-x", os.path.join(cache, debs[0]), cache], check=True,
                       timeout=300)
    except (OSError, subprocess.SubprocessError, IndexError) as e:
        print("cannot get the photo: %s" % e)
        return None
    return png if os.path.exists(png) else None


def run_photo(args, chk):
    png = fetch_photo(args.cache)
    if png is None:
        return SKIP
    gimp = args.gimp
    work = os.path.join(args.workdir, "photo")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    profile = make_profile(args.workdir, gimp, args.plugin)
    out = os.path.join(work, "astronaut.json")
    out_lin = os.path.join(work, "astronaut-linear.json")
    if gimp == "2":
        load = "(car (gimp-file-load RUN-NONINTERACTIVE %s %s))" % (sf_str(png), sf_str(png))
    else:
        load = "(car (gimp-file-load RUN-NONINTERACTIVE %s))" % sf_str(png)
    cmd = ("(let* ((img %s) (d (vector-ref (car (gimp-image-get-selected-drawables img)) 0)))"
           % load
           if gimp == "3" else
           "(let* ((img %s) (d (car (gimp-image-get-active-drawable img))))" % load)
    cmd += ("(gimp-image-clean-all img)"
            "(gh-write %s (gh-run img d %s 3 FALSE))"
            "(gh-write %s (gh-run img d %s 0 TRUE))"
            "(gh-write %s (car (gimp-image-is-dirty img)))"
            "(gh-dump-hist d (list HISTOGRAM-RED HISTOGRAM-GREEN HISTOGRAM-BLUE) %s))"
            % (sf_str(out + ".ret"), sf_str(out), sf_str(out_lin + ".ret"), sf_str(out_lin),
               sf_str(os.path.join(work, "dirty")), sf_str(os.path.join(work, "hist"))))
    rc = run_gimp(gimp, profile, ["(begin " + helpers(gimp) + cmd + ")"], os.path.join(work, "gimp.log"))
    chk.check(rc is not None, "GIMP finished")
    if not chk.check(os.path.exists(out), "astronaut: JSON written (see %s/gimp.log)" % work):
        return 1
    w, h, bpp, pixels = decode_png(png)
    names = ["red", "green", "blue", "alpha"][:bpp] if bpp >= 3 else ["gray", "alpha"][:bpp]
    want = {}
    want_lin = {}
    for i, n in enumerate(names):
        cnt = collections.Counter(pixels[i::bpp])
        want[n] = [cnt.get(k, 0) for k in range(256)]
        lut = [documented_bin(srgb_to_linear(k / 255.0)) if n != "alpha" else k
               for k in range(256)]
        lin = [0] * 256
        for k in range(256):
            lin[lut[k]] += want[n][k]
        want_lin[n] = lin
    got, data = read_counts(out, "json")
    compare(chk, "astronaut %dx%d counts vs own PNG decoding" % (w, h), got, want)
    got_lin, _ = read_counts(out_lin, "json")
    compare(chk, "astronaut linear counts vs own PNG decoding + sRGB formula", got_lin, want_lin)
    c = case("astronaut", reps=3)
    c["gimp"] = gimp
    check_returns(chk, c, read_sexp(out + ".ret"), got, names)
    chk.check(read_sexp(os.path.join(work, "dirty")) == 0, "astronaut: image unchanged")
    with open(os.path.join(work, "hist")) as f:
        hist = [[int(float(v)) for v in line.split()] for line in f if line.strip()]
    compare(chk, "astronaut vs gimp-drawable-histogram", got, dict(zip(names[:3], hist)))
    print("astronaut: backend %s; fetch %.1f ms, total %.1f ms, format %s"
          % (data["backend"], data["fetch_ms"], data["total_ms"], data["fetch_format"]))
    return 0


# --- Python-Fu (GIMP 3.0) ------------------------------------------------------------------------

PYFU = r"""
import json, random, sys
import gi
gi.require_version('Gimp', '3.0')
gi.require_version('Gegl', '0.4')
from gi.repository import Gimp, Gegl
work = WORK
W, H = 211, 97
img = Gimp.Image.new(W, H, Gimp.ImageBaseType.RGB)
layers = []
for name, seed in (('first', 1), ('second', 2)):
    layer = Gimp.Layer.new(img, name, W, H, Gimp.ImageType.RGBA_IMAGE, 100, Gimp.LayerMode.NORMAL)
    img.insert_layer(layer, None, 0)
    rnd = random.Random(seed)
    data = bytes(rnd.getrandbits(8) for _ in range(W * H * 4))
    buf = layer.get_buffer()
    buf.set(Gegl.Rectangle.new(0, 0, W, H), "R'G'B'A u8", data)
    buf.flush()
    layer.update(0, 0, W, H)
    layers.append(layer)
    if name == 'first':
        open(work + '/pyfu.raw', 'wb').write(data)
img.clean_all()
proc = Gimp.get_pdb().lookup_procedure('plug-in-gpu-histogram')
config = proc.create_config()
config.set_property('run-mode', Gimp.RunMode.NONINTERACTIVE)
config.set_property('image', img)
config.set_core_object_array('drawables', layers)
config.set_property('output-file', work + '/pyfu.json')
config.set_property('repetitions', 2)
config.set_property('linear', False)
config.set_property('weighting', 'pixels')
result = proc.run(config)


def doubles(value):
    # PyGObject cannot iterate a boxed GimpDoubleArray (GIMP 3.0.4): then say so
    try:
        return list(value)
    except TypeError:
        return {'unreadable': type(value).__name__}


out = {'status': int(result.index(0)), 'n': result.index(1), 'counts': doubles(result.index(2)),
       'backend': result.index(3), 'timings': doubles(result.index(4)),
       'names': list(result.index(5) or []), 'dirty': img.is_dirty()}
json.dump(out, open(work + '/pyfu.ret.json', 'w'))
"""


def run_python(args, chk):
    work = os.path.join(args.workdir, "python")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    profile = make_profile(args.workdir, "3", args.plugin)
    script = os.path.join(work, "pyfu.py")
    with open(script, "w") as f:
        f.write(PYFU.replace("WORK", repr(work)))
    log = os.path.join(work, "gimp.log")
    # python-fu-eval does not quit by itself: stop GIMP once the results are written
    gimp_results.run_python_fu(profile, script, os.path.join(work, "pyfu.ret.json"), log,
                               timeout=240, quit=False)
    if not chk.check(os.path.exists(os.path.join(work, "pyfu.ret.json")),
                     "Python-Fu ran the procedure (see %s)" % log):
        return
    ret = json.load(open(os.path.join(work, "pyfu.ret.json")))
    names = ["red", "green", "blue", "alpha"]
    want = expected_counts_raw(os.path.join(work, "pyfu.raw"), 211, 4, (0, 0, 211, 97), names)
    got, data = read_counts(os.path.join(work, "pyfu.json"), "json")
    compare(chk, "Python-Fu: counts vs the independent count", got, want)
    chk.check(ret["status"] == 3, "Python-Fu: status GIMP_PDB_SUCCESS (3): %s" % ret["status"])
    # RGBA, then value and luminance (issue 15; checked against GIMP's own in counts-tests.py)
    chk.check(ret["n"] == 6, "Python-Fu: n-channels %s" % ret["n"])
    chk.check(ret.get("names") == names + gimp_results.DERIVED,
              "Python-Fu: channel-names %s" % ret.get("names"))
    flat = []
    for n in names:
        flat += want[n]
    if isinstance(ret["counts"], list):
        chk.check([int(v) for v in ret["counts"][:len(flat)]] == flat
                  and len(ret["counts"]) == 6 * 256, "Python-Fu: returned counts")
        chk.check(len(ret["timings"]) == 6 and all(t >= 0 for t in ret["timings"]),
                  "Python-Fu: timings %s" % ret["timings"])
    else:
        print("note: Python-Fu cannot read the double arrays (%s); checked n-channels, the "
              "backend and the JSON instead" % ret["counts"])
        chk.check(isinstance(ret["backend"], str) and len(ret["backend"]) > 5,
                  "Python-Fu: backend %r" % ret["backend"])
    gimp_results.check_gpu_backend(chk, "Python-Fu", ret["backend"])
    chk.check(not ret["dirty"], "Python-Fu: image unchanged")
    chk.check(data.get("drawable") == "first" and "2 drawables" in data.get("note", ""),
              "Python-Fu: two drawables selected, the first counted and named: %r %r"
              % (data.get("drawable"), data.get("note")))


# --- main ---------------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gimp", choices=["2", "3"], required=True)
    ap.add_argument("--plugin", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--cache", default=None)
    ap.add_argument("--suite", choices=["generated", "photo", "python"], default="generated")
    args = ap.parse_args()
    args.workdir = os.path.abspath(args.workdir)
    args.cache = os.path.abspath(args.cache or os.path.join(args.workdir, "cache"))
    exe = "gimp-console-2.10" if args.gimp == "2" else "gimp-console-3.0"
    if shutil.which(exe) is None:
        print("%s is not installed: skipped" % exe)
        return SKIP
    os.makedirs(args.workdir, exist_ok=True)
    chk = Checker()
    if args.suite == "generated":
        run_generated(args, chk)
    elif args.suite == "python":
        if args.gimp != "3":
            print("Python-Fu is not packaged for GIMP 2.10 in Debian 12: skipped")
            return SKIP
        run_python(args, chk)
    else:
        if run_photo(args, chk) == SKIP:
            return SKIP
    print("%d checks passed, %d failed" % (chk.passed, chk.failed))
    return 1 if chk.failed or chk.passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
