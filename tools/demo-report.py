#!/usr/bin/env python3
"""Prints what tools/demo found for one image, from the JSON the plug-in wrote (output-file=*.json).

    demo-report.py LABEL RESULT.json

Per channel: mean, standard deviation, median, min, max, the busiest bin's share of the pixels and
the number of bins used.  Then the timing table: global atomics, privatized, fastest and the
read-only ceiling (median ms over the runs, min-max, GB/s, speedup over global atomics), the
upload to the GPU, the fetch from GIMP and the plug-in's whole run; then the backend.

Exit status 0, or 1 when the file is missing or is not the plug-in's JSON.  Standard library only.
"""

import json
import sys

METHODS = [
    ("global_atomics", "global atomics"),
    ("privatized", "privatized"),
    ("fastest", "fastest"),
    ("read_only", "read-only ceiling"),
]


def ms(v):
    return "%.2f" % v if v < 100 else "%.1f" % v


def report(label, data):
    out = []
    area = data.get("area") or {}
    w, h = area.get("width"), area.get("height")
    names = [c["name"] for c in data["channels"]]
    size = "%d x %d, %.1f MP" % (w, h, w * h / 1e6) if w and h else "%d pixels" % data["pixels"]
    out.append("== %s: %s, %s%s" % (label, size, "/".join(names),
                                    ", linear" if data.get("linear") else ""))

    out.append("  %-8s %8s %8s %7s %4s %4s %9s %5s" % (
        "channel", "mean", "std dev", "median", "min", "max", "busiest", "bins"))
    for c in data["channels"]:
        out.append("  %-8s %8.2f %8.2f %7d %4d %4d %8.1f%% %5d" % (
            c["name"], c["mean"], c["stddev"], c["median"], c["min"], c["max"],
            100.0 * c["busiest_share"], c["bins_used"]))

    timings = data.get("timings_ms") or {}
    base = (timings.get("global_atomics") or {}).get("median")
    out.append("  %-18s %10s %17s %8s %9s" % ("method", "ms", "min-max ms", "GB/s",
                                               "speedup"))
    for key, name in METHODS:
        t = timings.get(key)
        if not t:
            out.append("  %-18s %10s" % (name, "not run"))
            continue
        speed = "%.2fx" % (base / t["median"]) if base and t["median"] > 0 else "-"
        out.append("  %-18s %10s %17s %8.2f %9s" % (
            name, ms(t["median"]), "%s-%s" % (ms(t["min"]), ms(t["max"])), t["gbps"], speed))
    up = timings.get("upload")
    out.append("  %-18s %10s" % ("upload", ms(up["median"]) if up else "none (no GPU)"))
    if "fetch_ms" in data:
        fmt = data.get("fetch_format", "?")
        if "-space-" in fmt:  # babl names a format in the image's own colour space by its profile
            fmt = fmt.split("-space-")[0] + ", in the image's colour space"
        out.append("  %-18s %10s   (%s)" % ("fetch from GIMP", ms(data["fetch_ms"]), fmt))
    if "total_ms" in data:
        out.append("  %-18s %10s" % ("whole plug-in run", ms(data["total_ms"])))
    runs = max((t or {}).get("runs", 0) for t in timings.values()) if timings else 0
    out.append("  (ms: median of %d runs per method; speedup: over global atomics)" % runs)
    out.append("  backend: %s" % data["backend"])
    if data.get("layout"):
        out.append("  layout:  %s" % data["layout"])
    if data.get("note"):
        out.append("  note:    %s" % data["note"])
    return "\n".join(out)


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    label, path = argv[1], argv[2]
    try:
        with open(path) as f:
            data = json.load(f)
        text = report(label, data)
    except (OSError, ValueError, KeyError, TypeError) as e:
        print("== %s: FAILED: no usable result in %s (%s)" % (label, path, e))
        return 1
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
