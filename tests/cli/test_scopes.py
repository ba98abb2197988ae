#!/usr/bin/env python3
"""gpu-histogram: gpuhist's scopes (--waveform, --vectorscope, --scope-numerators, --scope-png).

Usage: test_scopes.py GROUP GPUHIST
  scopes    --waveform C and --vectorscope on 8 and 16-bit gray, RGB and RGBA files of odd
            widths (C = 1, C = W and between; flat and neutral images), every table against
            numpy's independent count of the file's pixels, the waveform's columns summed
            against the histogram; weighted runs in pixels, and with --scope-numerators their
            exact sums; the JSON's shape and each table's timings
  scope-refusals  --waveform 0, negative, not a number or wider than the image, --vectorscope on
            gray, scope flags without scopes: exit 1 or 2 with a message, nothing written
  scope-png --scope-png: the three files at their natural sizes, pixels of flat and two-level
            images where the documented drawing fixes them (linear and log density); refused
            with a message where gpuhist was built without libvips
  scope-gpu the scopes group on --backend cuda (exit 77, skipped, without a usable GPU)
  scope-batch  --json-lines with the scope flags: scopes in every line, a gray file's refused
            vectorscope as its own error line, PREFIX-N-*.png for the Nth file

Files are PAM, written here; numpy counts them.  The counts come from the engine's backends:
scope-gpu passes once the CUDA backend counts scopes.  GPUHIST_TEST_SEED replays a run's random
choices.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_formats  # noqa: E402  (numpy and PIL, its runner, PAM writer, GIMP's derived bins)
import test_gpuhist  # noqa: E402
from test_gpuhist import Failure  # noqa: E402

np = test_formats.np
Image = test_formats.Image
NAMES = test_formats.NAMES
TIMING_KEYS = ["global_atomics", "privatized", "fastest", "read_only", "upload"]


def bins_of(array, bins, derived):
    """Each result channel's bin of every pixel (height x width), as the engine bins them:
    8-bit samples as they are, 16-bit by the shift rule; value and luminance by GIMP's."""
    channels = array.shape[2]
    planes = []
    for c in range(channels):
        samples = array[:, :, c].astype(np.int64)
        planes.append(samples if array.dtype == np.uint8 else samples * bins // 65536)
    if derived:
        planes += [column.reshape(array.shape[:2]) for column in
                   test_formats.derived_columns(array)]
    return planes


def weights_of(array, alpha_weighted, derived):
    """Each result channel's weight of every pixel: 1, or with --alpha-weighted alpha for the
    colour channels and alpha's full scale for alpha (the denominator is that full scale)."""
    channels = array.shape[2]
    ones = np.ones(array.shape[:2], np.int64)
    if not alpha_weighted:
        return [ones] * (channels + (2 if derived else 0))
    a = array[:, :, channels - 1].astype(np.int64)
    return [a] * (channels - 1) + [ones * 255] + ([a, a] if derived else [])


def waveform_expected(planes, weights, columns, bins):
    """[channel][column][bin] exact sums: pixel x lands in column x * columns // width."""
    height, width = planes[0].shape
    column = np.broadcast_to(np.arange(width, dtype=np.int64) * columns // width, (height, width))
    tables = []
    for plane, weight in zip(planes, weights):
        table = np.zeros(columns * bins, np.int64)
        np.add.at(table, (column * bins + plane).ravel(), weight.ravel())
        tables.append(table.reshape(columns, bins).tolist())
    return tables


def vectorscope_expected(array, weight):
    """[cr][cb] exact sums of the normative integer formula on 8-bit levels (16-bit: s >> 8)."""
    levels = array[:, :, :3].astype(np.int64)
    if array.dtype != np.uint8:
        levels >>= 8
    r, g, b = levels[:, :, 0], levels[:, :, 1], levels[:, :, 2]
    cb = np.minimum(255, (-7509 * r - 25259 * g + 32768 * b + 8421376) >> 16)
    cr = np.minimum(255, (32768 * r - 29763 * g - 3005 * b + 8421376) >> 16)
    table = np.zeros(256 * 256, np.int64)
    np.add.at(table, (cr * 256 + cb).ravel(), weight.ravel())
    return table.reshape(256, 256).tolist()


def check_shape(document, key, what):
    scope = document.get(key)
    if not isinstance(scope, dict):
        raise Failure("%s: no %r object" % (what, key))
    timings = scope.get("timings_ms")
    if not isinstance(timings, dict) or sorted(timings) != sorted(TIMING_KEYS):
        raise Failure("%s: %s timings %r" % (what, key, timings))
    return scope


def check_timings(document, key, repetitions, what):
    """--method all: each counting method timed `repetitions` times, read-only the run's."""
    timings = document[key]["timings_ms"]
    for method in ("global_atomics", "privatized", "fastest"):
        if not timings[method] or timings[method]["runs"] != repetitions:
            raise Failure("%s: %s %s timed %r" % (what, key, method, timings[method]))
    if timings["read_only"] != document["timings_ms"]["read_only"]:
        raise Failure("%s: %s read_only %r is not the run's" % (what, key, timings["read_only"]))


def close_in_pixels(got, numerators, denominator):
    """A weighted count in pixels: exact when whole, else within half a millionth."""
    for g, n in zip(got, numerators):
        if n % denominator == 0:
            if g != n // denominator:
                return False
        elif abs(g - n / denominator) > 0.5e-6 + 1e-9 * abs(g):
            return False
    return True


def check_waveform(document, planes, weights, columns, bins, names, denominator, what):
    scope = check_shape(document, "waveform", what)
    if scope["columns"] != columns or scope["bins"] != bins or scope["channels"] != names:
        raise Failure("%s: waveform %s columns, %s bins, channels %s" % (
            what, scope["columns"], scope["bins"], scope["channels"]))
    expected = waveform_expected(planes, weights, columns, bins)
    got = scope["numerators"] if denominator else scope["counts"]
    for c, name in enumerate(names):
        for x in range(columns):
            cells = [int(n) for n in got[c][x]] if denominator else got[c][x]
            if cells != expected[c][x]:
                raise Failure("%s: waveform %s column %d differs from numpy's" % (what, name, x))
            if denominator and not close_in_pixels(scope["counts"][c][x], expected[c][x],
                                                   denominator):
                raise Failure("%s: waveform %s column %d in pixels" % (what, name, x))
        if not denominator:
            summed = [sum(column[b] for column in got[c]) for b in range(bins)]
            if summed != document["channels"][c]["counts"]:
                raise Failure("%s: waveform %s summed over columns is not its histogram"
                              % (what, name))


def check_vectorscope(document, expected, denominator, what):
    scope = check_shape(document, "vectorscope", what)
    if scope["size"] != 256 or len(scope["counts"]) != 256 or \
            any(len(row) != 256 for row in scope["counts"]):
        raise Failure("%s: vectorscope of size %s" % (what, scope["size"]))
    got = [[int(n) for n in row] for row in scope["numerators"]] if denominator \
        else scope["counts"]
    if got != expected:
        bad = [(cr, cb) for cr in range(256) for cb in range(256)
               if got[cr][cb] != expected[cr][cb]][:3]
        raise Failure("%s: vectorscope cells %s differ from numpy's" % (what, bad))
    if not denominator and sum(map(sum, got)) != sum(document["channels"][0]["counts"]):
        raise Failure("%s: the vectorscope's total is not red's" % what)


def random_case(rng, channels, dtype, width=None, pattern="noise"):
    height = int(rng.integers(3, 19))
    width = width or int(rng.choice([1, 2, 37, 61, 97, int(rng.integers(3, 140))]))
    array = test_formats.random_array(rng, height, width, channels, dtype)
    if pattern == "flat":
        array[:, :, :] = rng.integers(0, 256 if dtype == np.uint8 else 65536, channels)
    elif pattern == "neutral" and channels >= 3:
        array[:, :, 1] = array[:, :, 0]
        array[:, :, 2] = array[:, :, 0]
    return array


def columns_for(rng, width):
    return int(rng.choice([1, width, int(rng.integers(1, width + 1))]))


def group_json(runner, rng, backend_args=()):
    checked = 0
    cases = [(c, np.uint8, p) for c in (1, 2, 3, 4) for p in ("noise", "flat", "neutral")]
    cases += [(3, np.uint16, "noise"), (4, np.uint16, "neutral"), (1, np.uint16, "noise")]
    for channels, dtype, pattern in cases:
        array = random_case(rng, channels, dtype, pattern=pattern)
        width = array.shape[1]
        columns = columns_for(rng, width)
        bins = 256 if dtype == np.uint8 else 1024
        derived = channels >= 3 and dtype == np.uint8 and rng.random() < 0.5
        args = ["--waveform", str(columns)] + (["--vectorscope"] if channels >= 3 else [])
        args += ["--derived"] if derived else []
        args += ["--bins", "1024"] if dtype != np.uint8 else []
        method = str(rng.choice(["fastest", "global", "private", "all"] if backend_args
                                else ["cpu", "fastest", "global", "private", "all"]))
        args += list(backend_args) + ["--method", method] + (["--repetitions", "2"] if method == "all" else [])
        what = "%s %d ch %s %dx%d, --waveform %d%s, --method %s" % (
            dtype.__name__, channels, pattern, width, array.shape[0], columns,
            " --derived" if derived else "", method)
        document = runner.counted(test_formats.pam_of(runner, array), args)
        names = NAMES[channels] + (["value", "luminance"] if derived else [])
        planes = bins_of(array, bins, derived)
        check_waveform(document, planes, weights_of(array, False, derived), columns, bins, names,
                       None, what)
        if channels >= 3:
            check_vectorscope(document, vectorscope_expected(
                array, np.ones(array.shape[:2], np.int64)), None, what)
            if pattern == "neutral":
                if document["vectorscope"]["counts"][128][128] != array.shape[0] * width:
                    raise Failure("%s: a neutral image outside the centre cell" % what)
        elif "vectorscope" in document:
            raise Failure("%s: a vectorscope nobody asked for" % what)
        if method == "all":
            for key in ("waveform",) + (("vectorscope",) if channels >= 3 else ()):
                check_timings(document, key, 2, what)
        checked += 1
    return checked + group_weighted(runner, rng, backend_args)


def group_gpu(runner, rng):
    usable, why = test_gpuhist.gpu_usable(runner)
    if not usable:
        print("no usable GPU (%s): skipped" % why)
        return None
    return group_json(runner, rng, backend_args=("--backend", "cuda"))


def group_weighted(runner, rng, backend_args=()):
    """--alpha-weighted RGBA: counts in pixels; --scope-numerators adds the exact sums."""
    checked = 0
    for numerators in (False, True):
        array = random_case(rng, 4, np.uint8)
        width = array.shape[1]
        columns = columns_for(rng, width)
        derived = bool(rng.random() < 0.5)
        args = ["--alpha-weighted", "--waveform", str(columns), "--vectorscope"]
        args += list(backend_args)
        args += (["--derived"] if derived else []) + (["--scope-numerators"] if numerators else [])
        what = "RGBA alpha-weighted %dx%d, --waveform %d%s" % (
            width, array.shape[0], columns, " --scope-numerators" if numerators else "")
        document = runner.counted(test_formats.pam_of(runner, array), args)
        denominator = int(document["denominator"])
        if denominator != 255:
            raise Failure("%s: denominator %d" % (what, denominator))
        for key in ("waveform", "vectorscope"):
            scope = document[key]
            if scope.get("weighted") is not True or ("numerators" in scope) != numerators:
                raise Failure("%s: %s has keys %s" % (what, key, sorted(scope)))
            if numerators and int(scope["denominator"]) != denominator:
                raise Failure("%s: %s denominator %s" % (what, key, scope["denominator"]))
        weights = weights_of(array, True, derived)
        names = NAMES[4] + (["value", "luminance"] if derived else [])
        planes = bins_of(array, 256, derived)
        if numerators:
            check_waveform(document, planes, weights, columns, 256, names, denominator, what)
            check_vectorscope(document, vectorscope_expected(array, weights[0]), denominator,
                              what)
        else:
            expected = waveform_expected(planes, weights, columns, 256)
            got = document["waveform"]["counts"]
            for c in range(len(names)):
                for x in range(columns):
                    if not close_in_pixels(got[c][x], expected[c][x], denominator):
                        raise Failure("%s: %s column %d in pixels" % (what, names[c], x))
        checked += 1
    return checked


def expect_nothing_written(runner, args, status, needle, output):
    rc, out, err = runner.run(args)
    if rc != status or out or needle not in err or os.path.exists(output) or \
            any(name.startswith("charts") for name in os.listdir(runner.workdir)):
        raise Failure("gpuhist %s: exit %d (expected %d), stdout %r, stderr %r should name %r, "
                      "and nothing written" % (" ".join(args), rc, status, out[:80], err, needle))


def group_refusals(runner, rng):
    rgb = test_formats.pam_of(runner, random_case(rng, 3, np.uint8, width=9))
    gray = test_formats.pam_of(runner, random_case(rng, 1, np.uint8, width=9))
    output = os.path.join(runner.workdir, "out.json")
    prefix = os.path.join(runner.workdir, "charts")
    cases = [
        (["--waveform", "0", "--json", rgb], 2, "--waveform"),
        (["--waveform", "-4", "--json", rgb], 2, "--waveform"),
        (["--waveform", "many", "--json", rgb], 2, "--waveform"),
        (["--waveform", "2.5", "--json", rgb], 2, "--waveform"),
        (["--waveform", "", "--json", rgb], 2, "--waveform"),
        (["--waveform", "10", "--json", rgb], 1, "wide"),
        (["--waveform", "10", "--json-lines", rgb], 1, "wide"),
        (["--vectorscope", "--json", gray], 1, "RGB"),
        (["--vectorscope", "--waveform", "3", "--json", gray], 1, "RGB"),
        (["--scope-png", prefix, "--json", rgb], 2, "--waveform or --vectorscope"),
        (["--scope-numerators", "--json", rgb], 2, "--waveform or --vectorscope"),
        (["--scope-density", "linear", "--json", rgb], 2, "--waveform or --vectorscope"),
        (["--vectorscope", rgb], 2, "JSON"),
        (["--vectorscope", "--scope-png", prefix, "--scope-density", "gamma", rgb], 2,
         "--scope-density"),
        (["--waveform"], 2, "needs a value"),
    ]
    for args, status, needle in cases:
        if "--json-lines" in args:
            # A batch reports the file in its line and goes on; the line is the refusal.
            rc, out, err = runner.run(args + ["--quiet", "-o", output])
            line = json.loads(open(output).read()) if os.path.exists(output) else {}
            if rc != 1 or "wide" not in line.get("error", "") or "waveform" in line:
                raise Failure("--json-lines %s: exit %d, line %r" % (args, rc, line))
            os.remove(output)
            continue
        where = args.index("--json") if "--json" in args else len(args) - 1
        expect_nothing_written(runner, args[:where] + ["-o", output] + args[where:], status,
                               needle, output)
        if args[-1] in (rgb, gray) and status == 1 and png_available(runner):
            expect_nothing_written(runner, args[:-1] + ["--scope-png", prefix, args[-1]], status,
                                   needle, output)
    return len(cases)


def png_available(runner):
    rc, out, err = runner.run(["--help"])
    return "through libvips" in out


def read_png(path, width, height, what):
    image = Image.open(path)
    if image.size != (width, height) or image.mode != "RGBA":
        raise Failure("%s: %s is %s %s, expected %dx%d RGBA" % (what, path, image.size,
                                                                 image.mode, width, height))
    return np.asarray(image)


def expect_pixels(pixels, expected, what):
    for (x, y), rgb in expected.items():
        got = tuple(int(v) for v in pixels[y, x])
        if got != tuple(rgb) + (255,):
            raise Failure("%s: pixel (%d, %d) is %s, expected %s" % (what, x, y, got,
                                                                     tuple(rgb) + (255,)))


def group_png(runner, rng):
    array = np.zeros((5, 7, 3), np.uint8)
    array[:, :] = (191, 0, 0)  # the 75 % red bar: one vectorscope cell, on its target
    path = test_formats.pam_of(runner, array)
    prefix = os.path.join(runner.workdir, "flat")
    args = ["--waveform", "7", "--vectorscope", "--scope-png", prefix, "--quiet", path]
    if not png_available(runner):
        rc, out, err = runner.run(args)
        if rc != 2 or "libvips" not in err or os.listdir(runner.workdir) != [
                os.path.basename(path)]:
            raise Failure("--scope-png without libvips: exit %d, stderr %r" % (rc, err))
        print("gpuhist was built without libvips: --scope-png refused, as it should be")
        return 1
    rc, out, err = runner.run(args)
    if rc != 0 or not out.startswith("bin,red,green,blue"):
        raise Failure("--scope-png with CSV: exit %d, %s" % (rc, err))
    # Every cell of a flat image is the densest: full intensity under log and linear alike.
    # Row 64 is the 75 % line (255 - floor (0.75 * 255 + 0.5)), row 255 the 0 % line (gray 96
    # where a table does not brighten it), row 100 is empty.
    waveform = read_png(prefix + "-waveform.png", 7, 256, "waveform")
    expect_pixels(waveform, {(0, 64): (255, 96, 96), (6, 64): (255, 96, 96),
                             (3, 255): (96, 255, 255), (3, 100): (0, 0, 0),
                             (3, 127): (96, 96, 96)}, "flat 75 % red waveform")
    parade = read_png(prefix + "-parade.png", 21, 256, "parade")
    expect_pixels(parade, {(0, 64): (255, 96, 96), (7, 64): (96, 96, 96),
                           (7, 255): (96, 255, 96), (20, 255): (96, 96, 255),
                           (3, 255): (96, 96, 96)}, "flat 75 % red parade")
    vectorscope = read_png(prefix + "-vectorscope.png", 256, 256, "vectorscope")
    # Red's cell (106, 224) is dense (white over its target's dot); the target's corner is
    # 4 pixels away; the centre is the gray cross alone.
    expect_pixels(vectorscope, {(106, 31): (255, 255, 255), (102, 27): (191, 0, 0),
                                (128, 127): (96, 96, 96), (60, 200): (0, 0, 0)},
                  "flat 75 % red vectorscope")

    # Two levels in a gray image's second column: 8 pixels and 1, beside a column of 9.  Linear:
    # 255 / 9 for the 1; log: ln 2 / ln 10 of 255.  No parade for gray.
    gray = np.full((9, 2, 1), 50, np.uint8)
    gray[0, 1, 0] = 200
    path = test_formats.pam_of(runner, gray)
    for density, level in (("linear", 28), ("log", 77)):
        prefix = os.path.join(runner.workdir, "gray-" + density)
        rc, out, err = runner.run(["--waveform", "2", "--scope-png", prefix, "--scope-density",
                                   density, "--json", "-o", prefix + ".json", path])
        if rc != 0 or os.path.exists(prefix + "-parade.png") or \
                os.path.exists(prefix + "-vectorscope.png"):
            raise Failure("gray --scope-png: exit %d, %s" % (rc, err))
        pixels = read_png(prefix + "-waveform.png", 2, 256, "gray waveform")
        expect_pixels(pixels, {(0, 205): (255, 255, 255), (1, 55): (level,) * 3},
                      "gray waveform, " + density)
    return 3


def group_batch(runner, rng):
    arrays = [random_case(rng, 3, np.uint8, width=31), random_case(rng, 4, np.uint8, width=17),
              random_case(rng, 1, np.uint8, width=20)]
    paths = [test_formats.pam_of(runner, array) for array in arrays]
    prefix = os.path.join(runner.workdir, "batch")
    args = ["--json-lines", "--quiet", "--waveform", "16", "--vectorscope", "--jobs", "2"]
    if png_available(runner):
        args += ["--scope-png", prefix, "--scope-density", "linear"]
    rc, out, err = runner.run(args + paths)
    lines = test_formats.parse_lines(out, paths)
    if rc != 1 or "RGB" not in lines[2].get("error", ""):
        raise Failure("batch with a gray file: exit %d, its line %r" % (rc, lines[2]))
    for n, (array, line) in enumerate(zip(arrays[:2], lines[:2])):
        what = "batch file %d" % (n + 1)
        channels = array.shape[2]
        check_waveform(line, bins_of(array, 256, False), weights_of(array, False, False), 16,
                       256, NAMES[channels], None, what)
        check_vectorscope(line, vectorscope_expected(array, np.ones(array.shape[:2], np.int64)),
                          None, what)
        if png_available(runner):
            read_png("%s-%d-parade.png" % (prefix, n + 1), 48, 256, what)
            read_png("%s-%d-vectorscope.png" % (prefix, n + 1), 256, 256, what)
    if any(name.startswith("batch-3") for name in os.listdir(runner.workdir)):
        raise Failure("charts written for the refused gray file")

    # Weighted, with the exact sums, two RGBA files.
    array = random_case(rng, 4, np.uint8)
    path = test_formats.pam_of(runner, array)
    rc, out, err = runner.run(["--json-lines", "--quiet", "--alpha-weighted", "--waveform", "1",
                               "--scope-numerators", path, path])
    weights = weights_of(array, True, False)
    for line in test_formats.parse_lines(out, [path, path]):
        if rc != 0:
            raise Failure("weighted batch: exit %d, %s" % (rc, err))
        check_waveform(line, bins_of(array, 256, False), weights, 1, 256, NAMES[4], 255,
                       "weighted batch")
    return 3


GROUPS = {"scopes": group_json, "scope-gpu": group_gpu, "scope-refusals": group_refusals, "scope-png": group_png,
          "scope-batch": group_batch}


def main():
    return test_gpuhist.run_group(GROUPS, __doc__, make_rng=np.random.default_rng,
                                  runner_class=test_formats.Runner, prefix="gpuhist-scopes-")


if __name__ == "__main__":
    sys.exit(main())
