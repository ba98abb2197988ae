#!/usr/bin/env python3
"""plug-in-gpu-scopes in real headless GIMP 2.10 or 3.0 (issue 29, for scripts).

  scopes-tests.py --gimp 2|3 --plugin PATH --workdir DIR

The cases are counts-tests.py's (the same layers and selections, built by its script), each run
through plug-in-gpu-histogram and then plug-in-gpu-scopes, and checked:
  - the waveform has the histogram's channels, and each channel summed over its columns equals
    GIMP's own histogram level by level where counts-tests.py compares with GIMP (within 1e-6 of
    the pixel total), and the plug-in's histogram of the same file everywhere;
  - the vectorscope's total equals the red channel's total; a gray layer has no vectorscope;
  - weighting pixels: every waveform column and every vectorscope cell equal an independent
    count of the pixels and the selection mask read back from GIMP (exact integers), with the
    output columns floor (x * C / W) of the selection's bounds and the normative integer chroma
    of the issue;
  - the return values (channels, columns, bins) are the file's; columns 0 means the width
    counted when it is narrower than 1024;
  - .png writes NAME-waveform.png, NAME-parade.png and NAME-vectorscope.png at their natural
    sizes;
  - bad input (negative columns, columns past the width, a selection that misses the layer, an
    output file that is neither .json nor .png) is an error with a clear message, nothing
    written;
  - the image, its layers and its undo state are untouched.
One GIMP start per run.
"""

import importlib.util
import json
import os
import struct
import sys
import time
import zlib

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gimp_results  # noqa: E402

gt = gimp_results.load_gimp_tests()
_spec = importlib.util.spec_from_file_location("counts_tests", os.path.join(HERE, "counts-tests.py"))
counts = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(counts)
case = counts.case
W, H = counts.W, counts.H


def cases():
    """counts-tests.py's cases with the scopes' own arguments: columns (0: the default) and the
    error the scopes call must give (scope_error)."""
    return [
        case("rgba-ellipse", columns=7),
        case("rgba-feather", sel="feather", columns=0),
        case("rgb-inverted", ltype="RGB-IMAGE", clear=False, sel="inverted", columns=64),
        case("graya-ellipse", base="GRAY", ltype="GRAYA-IMAGE", columns=5),
        case("indexed-alpha-rect", sel="rect", indexed=24, columns=3),
        case("rgba-offset-outside", offset=(-16, 12), columns=1),
        case("rgba16-ellipse", precision="u16", bins=1024, columns=9),
        case("graya16-feather", base="GRAY", ltype="GRAYA-IMAGE", precision="u16", bins=1024,
             sel="feather", columns=0),
        case("pixels-rgba-feather", sel="feather", weighting="pixels", columns=11),
        case("pixels-rgb-none", ltype="RGB-IMAGE", clear=False, sel="none", weighting="pixels",
             columns=13),
        case("pixels-graya-ellipse", base="GRAY", ltype="GRAYA-IMAGE", weighting="pixels",
             columns=4),
        case("visible-two-layers", source="visible", sel="none", columns=6),
        # wider than 1024: the default columns, and six weighted tables past the engine's
        # staging budget (48 MiB of 16-byte sums)
        case("wide-rgba-none", sel="none", layer_size=(1100, 8), columns=0),
        case("png-rgba-rect", sel="rect", columns=16, output=".png"),
        case("error-columns-negative", sel="rect", columns=-1, scope_error="columns must be"),
        case("error-columns-wide", sel="rect", columns=38, scope_error="columns must be"),
        case("error-output-csv", sel="rect", columns=4, output=".csv",
             scope_error="must end in .json or .png"),
        case("error-selection-outside", sel="outside", layer_size=(40, 30), columns=0,
             expect_error="does not intersect", scope_error="does not intersect"),
    ]


def scopes_call(c, gimp, out):
    weighting = counts.arg(gimp, counts.WEIGHTING, c["weighting"])
    source = counts.arg(gimp, counts.SOURCE, c["source"])
    if gimp == "2":
        return "(plug-in-gpu-scopes RUN-NONINTERACTIVE img l %s %d %s %s)" % (
            out, c["columns"], weighting, source)
    return ("(plug-in-gpu-scopes #:run-mode RUN-NONINTERACTIVE #:image img #:drawables (vector l)"
            " #:output-file %s #:columns %d #:weighting %s #:source %s)"
            % (out, c["columns"], weighting, source))


def scopes_runs(c, gimp, work):
    base = os.path.join(work, c["name"])
    out = gt.sf_str(base + ".scopes" + c.get("output", ".json"))
    call = scopes_call(c, gimp, out)
    if c.get("scope_error"):
        call = '(catch "failed" %s)' % call
    return ["(gh-write %s %s)" % (gt.sf_str(base + ".scopes-ret"), call)]


def summed_columns(table):
    """A waveform table [column][bin] summed over its columns."""
    return [sum(col[k] for col in table) for k in range(len(table[0]))]


def check_waveform_sums(chk, c, data, hist):
    wf = data.get("waveform")
    if not chk.check(wf is not None, "%s: no waveform in the file" % c["name"]):
        return None
    names = list(wf["channels"])
    chk.check(names == counts.expected_names(c), "%s: waveform channels %s" % (c["name"], names))
    tolerance = 1e-6 * W * H
    sums = {}
    for name, table in zip(names, wf["counts"]):
        chk.check(len(table) == wf["columns"] and all(len(col) == wf["bins"] for col in table),
                  "%s: %s's table is not columns x bins" % (c["name"], name))
        sums[name] = summed_columns(table)
        have = hist.get(name, [])
        bad = [k for k in range(len(have)) if abs(sums[name][k] - have[k]) > tolerance]
        chk.check(len(have) == wf["bins"] and not bad,
                  "%s: %s's columns summed differ from its histogram at %d levels, first %s"
                  % (c["name"], name, len(bad), bad[:4]))
    return sums


def check_against_gimp(chk, c, sums, base):
    """Where counts-tests.py compares the histogram with GIMP's, the columns' sums too."""
    if c["weighting"] == "pixels":
        return
    names = counts.expected_names(c, gimp_levels=True)
    rows = counts.read_levels(base + ".hist", c["bins"])
    counts.check_levels(chk, dict(c, name=c["name"] + " waveform"),
                        {n: sums.get(n, []) for n in names}, names, rows)


def check_vectorscope(chk, c, data, hist):
    vs = data.get("vectorscope")
    if c["base"] == "GRAY":
        chk.check(vs is None, "%s: a gray layer has a vectorscope" % c["name"])
        return
    if not chk.check(vs is not None and vs["size"] == 256 and len(vs["counts"]) == 256,
                     "%s: no 256 x 256 vectorscope" % c["name"]):
        return
    total = sum(sum(row) for row in vs["counts"])
    chk.check(abs(total - sum(hist["red"])) <= 1e-6 * W * H,
              "%s: vectorscope total %s, red total %s" % (c["name"], total, sum(hist["red"])))


def chroma(r, g, b):
    """The issue's normative Rec.709 chroma of 8-bit levels: (cr, cb)."""
    cb = min(255, (-7509 * r - 25259 * g + 32768 * b + 8421376) >> 16)
    cr = min(255, (32768 * r - 29763 * g - 3005 * b + 8421376) >> 16)
    return cr, cb


def selection_bounds(mask):
    """GIMP's selection bounds within the layer: the rows and columns with coverage."""
    xs = [x for y in range(H) for x in range(W) if mask[y * W + x] > 0]
    ys = [y for y in range(H) for x in range(W) if mask[y * W + x] > 0]
    if not xs:
        return 0, 0, W, H  # no selection: the whole layer
    return min(xs), min(ys), max(xs) + 1 - min(xs), max(ys) + 1 - min(ys)


def check_pixels_exactly(chk, c, data, work):
    """weighting pixels: each column and cell against an independent count."""
    base = os.path.join(work, c["name"])
    pixels = [gt.parse_sexp(line) for line in open(base + ".pixels") if line.strip()]
    mask = [int(v) for line in open(base + ".mask") for v in line.split()]
    if c["sel"] == "none":
        mask = [255] * (W * H)
    ax, ay, aw, ah = selection_bounds(mask)
    wf = data["waveform"]
    columns = wf["columns"]
    names = wf["channels"]
    want = {n: [[0] * 256 for _ in range(columns)] for n in names if n != "luminance"}
    cells = [[0] * 256 for _ in range(256)]
    for i, (px, m) in enumerate(zip(pixels, mask)):
        x, y = i % W, i // W
        if m < 128 or not (ax <= x < ax + aw and ay <= y < ay + ah):
            continue
        col = (x - ax) * columns // aw
        vals = list(px)
        for k, n in enumerate(names[:len(vals)]):
            want[n][col][vals[k]] += 1
        if "value" in want:
            want["value"][col][max(vals[:3])] += 1
        if len(vals) >= 3:
            cr, cb = chroma(*vals[:3])
            cells[cr][cb] += 1
    for n, table in zip(names, wf["counts"]):
        if n == "luminance":  # its own rule: its column totals are red's
            chk.check([sum(col) for col in table] == [sum(col) for col in want["red"]],
                      "%s: luminance's column totals are not red's" % c["name"])
            continue
        chk.check(table == want[n], "%s: %s's waveform is not the independent count"
                  % (c["name"], n))
    if "vectorscope" in data:
        chk.check(data["vectorscope"]["counts"] == cells,
                  "%s: the vectorscope is not the independent count" % c["name"])


def check_returns(chk, c, data, base):
    ret = gt.parse_sexp(open(base + ".scopes-ret").read())
    want_columns = c["columns"] or min(1024, data["area"]["width"])
    if c["columns"] == 0:
        chk.check(want_columns == min(1024, c["layer_size"][0]) or c["sel"] != "none",
                  "%s: the area is %s wide" % (c["name"], data["area"]["width"]))
    ok = (isinstance(ret, list) and len(ret) >= 3
          and list(ret[:3]) == [len(data["channels"]), want_columns, data["bins"]]
          and data["waveform"]["columns"] == want_columns and data["bins"] == c["bins"])
    chk.check(ok, "%s: returned %s, the file %d channels, %d columns, %d bins (asked %d columns)"
              % (c["name"], ret, len(data["channels"]), data["waveform"]["columns"],
                 data["bins"], c["columns"]))


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(33)
    if head[:8] != b"\x89PNG\r\n\x1a\n" or zlib.crc32(head[12:29]) != struct.unpack(">I", head[29:33])[0]:
        return None
    return struct.unpack(">II", head[16:24])


def check_pngs(chk, c, base):
    """The three charts at their natural sizes (gpuhist.h): columns x bins, 3 columns x bins,
    256 x 256."""
    hist = json.load(open(base + ".json"))
    area_w = hist["area"]["width"]
    columns = c["columns"] or min(1024, area_w)
    want = {"waveform": (columns, c["bins"]), "parade": (3 * columns, c["bins"]),
            "vectorscope": (256, 256)}
    for chart, size in want.items():
        path = "%s.scopes-%s.png" % (base, chart)
        chk.check(os.path.exists(path) and png_size(path) == size,
                  "%s: %s is %s, expected a PNG of %s" % (c["name"], path,
                                                          os.path.exists(path) and png_size(path),
                                                          size))


def check_error(chk, c, base, log):
    ret = open(base + ".scopes-ret").read().strip()
    chk.check(ret == '"failed"' and c["scope_error"] in log,
              "%s: an error saying %r (returned %r)" % (c["name"], c["scope_error"], ret[:200]))
    written = [f for f in os.listdir(os.path.dirname(base))
               if f.startswith(os.path.basename(base) + ".scopes") and not f.endswith("-ret")]
    chk.check(not written, "%s: files written: %s" % (c["name"], written))


def check_case(chk, c, work, log):
    base = os.path.join(work, c["name"])
    if not chk.check(os.path.exists(base + ".after") and os.path.exists(base + ".scopes-ret"),
                     "%s: the case did not finish" % c["name"]):
        return
    before, after = gt.read_sexp(base + ".before"), gt.read_sexp(base + ".after")
    chk.check(before == after and isinstance(after, list) and after[1] in (0, False),
              "%s: layers / dirty / undo enabled %s became %s" % (c["name"], before, after))
    if c.get("scope_error"):
        check_error(chk, c, base, log)
        return
    if c.get("output") == ".png":
        check_pngs(chk, c, base)
        return
    data = json.load(open(base + ".scopes.json"))
    gimp_results.check_gpu_backend(chk, c["name"] + " scopes", data.get("backend"))
    hist = {ch["name"]: ch.get("values", ch.get("counts")) for ch in data["channels"]}
    sums = check_waveform_sums(chk, c, data, hist)
    if sums is None:
        return
    check_vectorscope(chk, c, data, hist)
    check_returns(chk, c, data, base)
    if c["weighting"] == "pixels":
        check_pixels_exactly(chk, c, data, work)
    elif c["source"] != "visible" and not counts.known_difference(c, "red"):
        check_against_gimp(chk, c, sums, base)


def main():
    started = time.time()
    got = gimp_results.start("scopes")
    if got is None:
        return 77
    args, work = got
    chk = gt.Checker()
    profile = gt.make_profile(work, args.gimp, args.plugin)
    all_cases = [dict(c, gimp=args.gimp) for c in cases() if args.gimp in c["gimps"]]
    if args.gimp == "3":
        cache = os.path.join(work, "cache")
        os.environ["XDG_CACHE_HOME"] = cache
        gimp_results.pin_babl_luminance(cache)
    helpers = counts.HELPERS + (counts.HELPERS_2 if args.gimp == "2" else counts.HELPERS_3)
    commands = [helpers + counts.case_script(c, args.gimp, work, scopes_runs(c, args.gimp, work))
                for c in all_cases]
    log_path = os.path.join(work, "gimp.log")
    rc = gt.run_gimp(args.gimp, profile, commands, log_path, timeout=500,
                     quit_flag=args.gimp == "3")
    chk.check(rc is not None, "GIMP finished")
    log = open(log_path, errors="replace").read()
    for c in all_cases:
        check_case(chk, c, work, log)
    if chk.failed:
        print("GIMP's log: %s" % log_path)
    return gimp_results.finish(chk, started)


if __name__ == "__main__":
    sys.exit(main())
