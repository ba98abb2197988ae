#!/usr/bin/env python3
"""GIMP 3.0's Luminance, measured pixel by pixel (issue 26): not a CI test, a tool run once a
GIMP, babl or machine changes (docs/BENCHMARKS.md, "GIMP 3.0's Luminance", has its results).

  luminance-measure.py [--workdir DIR] [--triples16 N] [--babl pinned|fused|fresh]
      in GIMP 3.0 (gimp-console-3.0 on PATH: run it in the Debian 13 root, or in the GPU
      machine's GIMP bundle root with tools/debian13-root run-in)
  luminance-measure.py --gpuhist PATH [--workdir DIR] [--triples16 N]
      the same predictions against the engine, through gpuhist (on the build machine)

Every 8-bit RGB triple (2^24) and N random 16-bit triples (default 2^22) are binned by each rule
of gimp3_luminance.py (GIMP 3.0's, perceptual and linear: 256 bins for 8-bit, 1024 for 16-bit;
plain Python, so that it runs in the GPU machine's GIMP bundle root, which has no numpy)
and sorted into one layer a predicted bin.  A layer agrees when GIMP's histogram of it
(gimp-drawable-histogram, LUMINANCE, that one level) holds all its pixels: a pixel in another
bin shows as missing from its layer's level, so wrong bins cannot cancel out in a total.  The
perceptual cases are R'G'B' layers of a non-linear image, the linear ones RGB layers of a linear
image (GIMP's histogram follows the drawable's curve).  GIMP 2.10's rule is counted beside, for
the record.  With --gpuhist the layers are PAM files, each counted by
`gpuhist --derived --luminance RULE`: the engine's bins against the same predictions.

--babl pinned (the default) runs GIMP with babl's paths to "Y float" pinned to babl/base's float
sum, as the counts tests do (gimp_results.pin_babl_luminance); fused pins them to the x86-64-v3
build of extensions/grey.c instead (fused multiply-adds: the control, which must find the
triples where the two sums bin apart); fresh lets babl time and choose (GIMP 3.0.4 does not
write babl's cache, so what it chose is not known).  Prints one line a case and exits 1 when a
pixel disagreed.
"""

import argparse
import json
import os
import random
import subprocess
import sys
import time
from array import array

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gimp3_luminance  # noqa: E402
import gimp_results  # noqa: E402

WIDTH = 4096
CASES = [("8-bit perceptual", 8, 256, "gimp3", False),
         ("8-bit linear", 8, 256, "gimp3-linear", True),
         ("16-bit perceptual, 1024 bins", 16, 1024, "gimp3", False),
         ("16-bit linear, 1024 bins", 16, 1024, "gimp3-linear", True)]


def groups(bits, bins, rule, triples16, seed=26):
    """{bin: (samples, their count)}: every 8-bit triple, or triples16 random 16-bit ones (the
    same for both rules), under the bin the rule predicts; the samples (array of u8 or u16,
    R G B a pixel) padded with the first pixel to whole rows of WIDTH."""
    table = gimp3_luminance.terms(rule, bits)
    code = "B" if bits == 8 else "H"
    out = {}
    if bits == 8:
        for r in range(256):
            for g in range(256):
                partial = gimp3_luminance.partial_sum(table[0][r], table[1][g], rule)
                for b, k in enumerate(gimp3_luminance.bins_of_sums(partial, table[2], bins)):
                    out.setdefault(k, array(code)).extend((r, g, b))
    else:
        rng = random.Random(seed)
        for _ in range(0, triples16, WIDTH):
            batch = [(rng.getrandbits(16), rng.getrandbits(16), rng.getrandbits(16))
                     for _ in range(min(WIDTH, triples16))]
            for r, g, b in batch:
                k = gimp3_luminance.luminance_bin(table, r, g, b, rule, bins)
                out.setdefault(k, array(code)).extend((r, g, b))
    result = {}
    for k in sorted(out):
        part = out[k]
        n = len(part) // 3
        width = min(n, WIDTH)
        part.extend(part[:3] * (-n % width))
        result[k] = (part, width, n)
    return result


PYFU = r"""
import json, sys
import gi
gi.require_version('Gimp', '3.0')
gi.require_version('Gegl', '0.4')
from gi.repository import Gimp, Gegl
work = %(work)r
report = []
for case in json.load(open(work + "/cases.json")):
    precision = getattr(Gimp.Precision, case["precision"])
    img = Gimp.Image.new_with_precision(16, 16, Gimp.ImageBaseType.RGB, precision)
    wrong = {"LUMINANCE": 0}
    pixels = 0
    for k, width, count, path in case["layers"]:
        data = open(path, "rb").read()
        height = len(data) // (width * 3 * case["bytes"])
        layer = Gimp.Layer.new(img, "bin", width, height, Gimp.ImageType.RGB_IMAGE, 100,
                               Gimp.LayerMode.NORMAL)
        img.insert_layer(layer, None, 0)
        buf = layer.get_buffer()
        buf.set(Gegl.Rectangle.new(0, 0, width, height), case["format"], data)
        buf.flush()
        level = k / (case["bins"] - 1.0)
        got = layer.histogram(Gimp.HistogramChannel.LUMINANCE, level, level)
        # pixels: the layer's whole weight; count: the level's
        wrong["LUMINANCE"] += round(got.pixels - got.count)
        pixels += count
        img.remove_layer(layer)
    img.delete()
    report.append({"name": case["name"], "pixels": pixels, "wrong": wrong["LUMINANCE"]})
    print("measured", case["name"], flush=True)
json.dump(report, open(work + "/gimp-result.json", "w"))
open(work + "/done", "w").write("done")
"""


def write_layers(work, triples16):
    """The layers' raw samples and cases.json for the Python-Fu script."""
    listing = []
    for n, (name, bits, bins, rule, linear) in enumerate(CASES):
        layers = []
        for k, (part, width, count) in groups(bits, bins, rule, triples16).items():
            path = os.path.join(work, "case%d-bin%d.raw" % (n, k))
            with open(path, "wb") as f:
                part.tofile(f)  # host byte order: GEGL's u16
            layers.append([k, width, count, path])
        listing.append({
            "name": name, "bins": bins, "rule": rule, "bytes": bits // 8, "layers": layers,
            "precision": "U%d_%s" % (bits, "LINEAR" if linear else "NON_LINEAR"),
            "format": ("RGB " if linear else "R'G'B' ") + "u%d" % bits})
    with open(os.path.join(work, "cases.json"), "w") as f:
        json.dump(listing, f)
    return listing


def in_gimp(args, work):
    listing = write_layers(work, args.triples16)
    cache = os.path.join(work, "cache")
    os.environ["XDG_CACHE_HOME"] = cache
    if args.babl != "fresh":
        gimp_results.pin_babl_luminance(cache, fused=args.babl == "fused")
    script = os.path.join(work, "measure.py")
    with open(script, "w") as f:
        f.write("import time\n" + PYFU % {"work": work})
    profile = os.path.join(work, "profile")
    os.makedirs(profile, exist_ok=True)
    started = time.time()
    ok = gimp_results.run_python_fu(profile, script, os.path.join(work, "done"),
                                    os.path.join(work, "gimp.log"), timeout=3000)
    if not ok:
        print("GIMP did not finish: %s" % os.path.join(work, "gimp.log"))
        return 1
    with open(os.path.join(work, "gimp-result.json")) as f:
        report = json.load(f)
    failed = 0
    for case, got in zip(listing, report):
        print("GIMP 3.0 %s (rule %s): %d pixels in %d layers, %d in another bin than predicted"
              % (got["name"], case["rule"], got["pixels"], len(case["layers"]), got["wrong"]))
        failed += got["wrong"] != 0
    print("%.0f s" % (time.time() - started))
    return 1 if failed else 0


def with_gpuhist(args, work):
    """Each layer as a PAM file, counted by gpuhist: every pixel in its predicted bin."""
    failed = 0
    for name, bits, bins, rule, linear in CASES:
        wrong = pixels = 0
        for k, (part, width, count) in groups(bits, bins, rule, args.triples16).items():
            path = os.path.join(work, "layer.pam")
            if bits == 16 and sys.byteorder == "little":
                part = array("H", part)
                part.byteswap()  # PAM's 16-bit samples are big-endian
            with open(path, "wb") as f:
                f.write(b"P7\nWIDTH %d\nHEIGHT %d\nDEPTH 3\nMAXVAL %d\nTUPLTYPE RGB\nENDHDR\n"
                        % (width, len(part) // 3 // width, (1 << bits) - 1))
                part.tofile(f)
            extra = ["--bins", str(bins), "--binning", "gimp"] if bins != 256 else []
            out = subprocess.run([args.gpuhist, "--json", "--quiet", "--derived", "--luminance",
                                  rule] + extra + [path], check=True, stdout=subprocess.PIPE)
            counts = json.loads(out.stdout)["channels"][-1]["counts"]
            wrong += sum(counts) - counts[k]
            pixels += count
        print("engine (gpuhist) %s (rule %s): %d pixels, %d in another bin than predicted"
              % (name, rule, pixels, wrong))
        failed += wrong != 0
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workdir", default="/tmp/gpuhist-luminance-measure")
    parser.add_argument("--triples16", type=int, default=1 << 22)
    parser.add_argument("--babl", choices=["pinned", "fused", "fresh"], default="pinned")
    parser.add_argument("--gpuhist")
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    work = os.path.abspath(args.workdir)
    return with_gpuhist(args, work) if args.gpuhist else in_gimp(args, work)


if __name__ == "__main__":
    sys.exit(main())
