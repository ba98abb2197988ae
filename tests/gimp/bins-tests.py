#!/usr/bin/env python3
"""The procedure's `bins` argument in real, headless GIMP (issue 8).

    bins-tests.py --gimp 2|3 --plugin BUILT-PLUGIN --workdir DIR

One Script-Fu batch makes the layers in GIMP and dumps their stored pixels with
gimp-drawable-get-pixel (for a u16 layer: two little-endian bytes a sample; for a float layer:
four), then calls plug-in-gpu-histogram with `bins`.  This script counts the dumped values itself
(plain Python, not the engine) and compares bin by bin:

  - a 16-bit (u16, perceptual) RGB layer of gradient and noise at 65536 bins (every 16-bit
    level: the count of each stored value) and at 4096 bins (v * 4096 / 65536), as JSON and as
    CSV with one row per bin;
  - a u16 linear-light layer counted with linear=TRUE (its stored values) at 65536 bins;
  - a float layer (gradient) and one of special values (NaN, infinities, out of range) at 65536
    bins: v = floor (x * 65535 + 0.5), below 0 and NaN as 0, above 1 and +inf as 65535;
  - an 8-bit layer asked for 4096 bins: 256 bins, as the procedure documents, "bins": 256 and
    "requested_bins": 4096 in the JSON, n-channels * 256 counts returned;
  - bins=1000: an execution error, no output file.

The helpers (Script-Fu definitions, GIMP runner, parsers) are gimp-tests.py's.
Exit status: 0 all passed, 1 a check failed, 77 skipped (no GIMP).
"""

import argparse
import importlib.util
import json
import math
import os
import shutil
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("gimp_tests", os.path.join(HERE, "gimp-tests.py"))
gt = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gt)

SKIP = 77

RUN_2 = r"""
(define (gh-run-bins img d out reps linear bins)
  (plug-in-gpu-histogram RUN-NONINTERACTIVE img d out reps linear bins))
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
    return gimp == "2" and 3 * run[4] > HUGE_RETURN_2 and not run[5]


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
    if c.get("special"):
        vals = {n: [] for n in NAMES}
        for _, _, v, _ in gt.special_pixels(dict(w=c["w"], h=c["h"], special="float")):
            for i, n in enumerate(NAMES):
                vals[n].append(sample16(struct.unpack("<f", struct.pack("<f", v[i]))[0]))
        return vals
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


def count(vals, bins, levels):
    out = {}
    for n, vs in vals.items():
        cnt = [0] * bins
        for v in vs:
            cnt[v * bins // levels] += 1
        out[n] = cnt
    return out


def read_result(path):
    """({name: counts}, json data or None, csv rows)."""
    with open(path) as f:
        text = f.read()
    if path.endswith(".json"):
        data = json.loads(text)
        return {ch["name"]: ch["counts"] for ch in data["channels"]}, data, None
    lines = text.strip().split("\n")
    header = lines[0].split(",")
    counts = {n: [] for n in header[1:]}
    for i, line in enumerate(lines[1:]):
        cells = line.split(",")
        if int(cells[0]) != i:
            raise ValueError("row %d is bin %s" % (i, cells[0]))
        for n, v in zip(header[1:], cells[1:]):
            counts[n].append(int(v))
    return counts, None, len(lines) - 1


def compare(chk, label, got, want):
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


def check_all(chk, gimp, work):
    for c in cases(work):
        name = c["name"]
        if not chk.check(os.path.exists(os.path.join(work, name + ".dirty")),
                         "%s: the Script-Fu ran (see gimp.log)" % name):
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
            ret_path = os.path.join(work, label + ".ret")
            ret = gt.read_sexp(ret_path) if os.path.exists(ret_path) else None
            if error:
                chk.check(ret == "failed", "%s: an execution error (got %r)" % (label, ret))
                chk.check(not os.path.exists(out), "%s: no output file" % label)
                continue
            if not chk.check(os.path.exists(out), "%s: output written" % label):
                continue
            got, data, rows = read_result(out)
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
                      "counts)" % (label, 3 * bins))
            else:
                check_returns(chk, gimp, label + " return values", ret, got, counted)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gimp", choices=["2", "3"], required=True)
    ap.add_argument("--plugin", required=True)
    ap.add_argument("--workdir", required=True)
    args = ap.parse_args()
    exe = "gimp-console-2.10" if args.gimp == "2" else "gimp-console-3.0"
    if shutil.which(exe) is None:
        print("%s is not installed: skipped" % exe)
        return SKIP
    work = os.path.join(os.path.abspath(args.workdir), "bins")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    profile = gt.make_profile(work, args.gimp, args.plugin)
    commands = []
    for c in cases(work):
        commands += case_script(args.gimp, c, work)
    chk = gt.Checker()
    rc = gt.run_gimp(args.gimp, profile, commands, os.path.join(work, "gimp.log"))
    chk.check(rc is not None, "GIMP finished (log %s)" % os.path.join(work, "gimp.log"))
    check_all(chk, args.gimp, work)
    print("%d checks passed, %d failed" % (chk.passed, chk.failed))
    return 1 if chk.failed or chk.passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
