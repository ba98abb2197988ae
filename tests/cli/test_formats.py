#!/usr/bin/env python3
"""gpu-histogram: gpuhist on the files people have (PNG, JPEG, TIFF, WebP through libvips).

Usage: test_formats.py GROUP GPUHIST
  formats   every format and depth, counted bin by bin against numpy's count of the pixels the
            file was made from (JPEG: of the pixels PIL decodes); float TIFFs narrowed as the
            plug-in narrows them and binned by GIMP's rule
  same      one image as PNG, TIFF and PAM (8 and 16-bit): the same counts
  batch     --json-lines over files and a directory: one parsable object a file, a missing file
            in the middle gives its own error object and the rest go on, exit 1; the progress
            line on a terminal
  corrupt   a corpus of 40+ truncated and damaged PNG/JPEG/TIFF files: exit 1 and
            "gpuhist: FILE: reason" for each, in bounded time, never a signal
  fallback  a GPU that fails mid-run (the simulated GPU): libvips decodes again, exact counts
  combinations  flags a file cannot take (--alpha-weighted without alpha, --derived on gray,
            a plane of the wrong size or kind): exit 1 and the reason
  weighted  --alpha-weighted, --weights, --derived against numpy's exact sums (exit 77 while the
            engine refuses weighted runs)
  luminance  --derived --luminance gimp2, gimp3 and gimp3-linear against numpy's transcription
            of each GIMP's Luminance (8-bit, and 16-bit at 1024 GIMP bins), the JSON's
            luminance_rule; --luminance without --derived and an unknown rule refused
  modules   libvips' dynamic modules: not loaded for a JPEG (the dynamic linker's LD_DEBUG log
            names none), loaded when a file needs one (AVIF, JPEG XL: the counts of the vips
            tool's PNG of the same file), loaded as libvips does when the user set VIPSHOME

Files are made here with PIL, numpy and the vips tool (tiled and 16-bit RGB files); nothing is
committed.  Exit 77 (skipped) when gpuhist was built without libvips.  GPUHIST_TEST_SEED replays
a run's random choices.
"""

import glob
import json
import os
import pty
import struct
import subprocess
import sys
import zlib

SKIP = 77
# Debian's python3-pil and python3-numpy live under /usr/bin/python3; another python3 on PATH
# (pyenv) may lack them.
try:
    import numpy as np
    from PIL import Image
except ImportError:
    if os.path.exists("/usr/bin/python3") and os.path.realpath(sys.executable) != \
            os.path.realpath("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    print("PIL and numpy are needed: apt-get install python3-pil python3-numpy")
    sys.exit(SKIP)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_gpuhist  # noqa: E402  (its runner; standard library only)
sys.dont_write_bytecode = True  # nothing written into tests/gimp
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gimp"))
import gimp3_luminance  # noqa: E402  (each GIMP's Luminance in numpy)
from test_gpuhist import Failure  # noqa: E402

# A broken file must fail well within this (the decoders never wait for more data).
PER_FILE_TIMEOUT_S = 20


class Runner(test_gpuhist.Runner):
    """test_gpuhist's runner, with a time limit per run and --json documents."""

    def run(self, args, stdin=None, timeout=120):
        self.runs += 1
        result = subprocess.run([self.gpuhist] + args, input=stdin, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, timeout=timeout)
        return result.returncode, result.stdout.decode("utf-8", "replace"), \
            result.stderr.decode("utf-8", "replace")

    def counted(self, path, args=()):
        """gpuhist --json on path: the document."""
        rc, out, err = self.run(["--json", "--quiet"] + list(args) + [path])
        if rc != 0:
            raise Failure("%s %s: exit %d: %s" % (" ".join(args), path, rc, err.strip()))
        return json.loads(out)


def vips(*args):
    subprocess.run(["vips"] + list(args), check=True, stdout=subprocess.DEVNULL)


def write_pam(path, array):
    """array: height x width x channels, uint8 or uint16 (written big-endian, maxval 65535)."""
    height, width, channels = array.shape
    maxval = 255 if array.dtype == np.uint8 else 65535
    header = "P7\nWIDTH %d\nHEIGHT %d\nDEPTH %d\nMAXVAL %d\nENDHDR\n" % (width, height, channels,
                                                                          maxval)
    with open(path, "wb") as f:
        f.write(header.encode("ascii"))
        f.write(array.astype(">u2" if maxval == 65535 else np.uint8).tobytes())


def write_png(path, array):
    """A PNG of 8 or 16-bit samples with 1 to 4 channels, written here: PIL writes no 16-bit
    colour PNG, and the vips tool reads no PAM."""
    height, width, channels = array.shape
    depth = 8 if array.dtype == np.uint8 else 16
    colour_type = {1: 0, 2: 4, 3: 2, 4: 6}[channels]
    samples = array.astype(np.uint8 if depth == 8 else ">u2").reshape(height, -1)
    raw = b"".join(b"\x00" + row.tobytes() for row in samples)

    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n"
                + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, depth, colour_type, 0,
                                             0, 0))
                + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def write_pfm(path, array):
    """A float image (height x width x 1 or 3) as PFM, which the vips tool turns into TIFF."""
    height, width, channels = array.shape
    magic = b"PF" if channels == 3 else b"Pf"
    with open(path, "wb") as f:
        f.write(magic + b"\n%d %d\n-1.0\n" % (width, height))
        # PFM stores the bottom row first.
        f.write(array[::-1].astype("<f4").tobytes())


def narrowed(values):
    """plugin/run/convert.c's sample16_of_double: round half up of v * 65535, clamped, NaN to 0."""
    v = values.astype(np.float64)
    with np.errstate(invalid="ignore"):
        s = np.floor(v * 65535.0 + 0.5)
        s = np.where(np.isnan(v) | (v <= 0), 0, np.where(v >= 1, 65535, s))
    return s.astype(np.int64)


def gimp_bins(samples16, bins):
    """GIMP's rule in its float arithmetic: float (s / 65535) * float (bins - 1), then
    floor (x + 0.5) of the clamped product."""
    v = (samples16.astype(np.float64) / 65535.0).astype(np.float32)
    temp = v * np.float32(bins - 1)
    temp = np.clip(temp, np.float32(0), np.float32(bins - 1))
    return np.floor(temp.astype(np.float64) + 0.5).astype(np.int64)


def expected_counts(array, bins, binning="shift"):
    """Per-channel counts of an integer array (height x width x channels) into bins."""
    channels = array.shape[2]
    counts = []
    for c in range(channels):
        samples = array[:, :, c].astype(np.int64).ravel()
        if array.dtype == np.uint8:
            index = samples
        elif binning == "gimp":
            index = gimp_bins(samples, bins)
        else:
            index = samples * bins // 65536
        counts.append(np.bincount(index, minlength=bins).tolist())
    return counts


def compare(document, expected, names, what):
    got = [channel["counts"] for channel in document["channels"]]
    got_names = [channel["name"] for channel in document["channels"]]
    if got_names != names:
        raise Failure("%s: channels %s, expected %s" % (what, got_names, names))
    for c, name in enumerate(names):
        if got[c] != expected[c]:
            bad = [b for b in range(len(expected[c])) if got[c][b] != expected[c][b]][:3]
            raise Failure("%s: %s differs at bins %s: %s, expected %s"
                          % (what, name, bad, [got[c][b] for b in bad],
                             [expected[c][b] for b in bad]))


NAMES = {1: ["gray"], 2: ["gray", "alpha"], 3: ["red", "green", "blue"],
         4: ["red", "green", "blue", "alpha"]}


def random_array(rng, height, width, channels, dtype):
    top = 256 if dtype == np.uint8 else 65536
    array = rng.integers(0, top, (height, width, channels), dtype=np.int64).astype(dtype)
    # Flat runs and the extremes, so that no bin is left to chance.
    array[0, :, :] = top - 1
    array[-1, : width // 2, :] = 0
    return array


def pil_image(array):
    channels = array.shape[2]
    mode = {1: "L", 2: "LA", 3: "RGB", 4: "RGBA"}[channels]
    return Image.fromarray(array[:, :, 0] if channels == 1 else array, mode)


def made_files(runner, rng):
    """(label, path, array the file holds, gpuhist args, binning) for every format and depth."""
    cases = []
    height, width = int(rng.integers(17, 60)), int(rng.integers(17, 90))
    for channels in (1, 2, 3, 4):
        array = random_array(rng, height, width, channels, np.uint8)
        path = runner.path(".png")
        pil_image(array).save(path)
        cases.append(("PNG 8-bit, %d ch" % channels, path, array, [], "shift"))
        # 16-bit PNG written here; TIFFs converted from it by the vips tool.
        array16 = random_array(rng, height, width, channels, np.uint16)
        png16 = runner.path(".png")
        write_png(png16, array16)
        for suffix in (".png", ".tif"):
            path = png16 if suffix == ".png" else runner.path(suffix)
            if suffix == ".tif":
                vips("copy", png16, path)
            for bins, binning in ((1024, "shift"), (4096, "gimp")):
                args = ["--bins", str(bins)] + (["--binning", binning] if binning == "gimp" else [])
                cases.append(("%s 16-bit, %d ch, %d bins, %s" % (suffix, channels, bins, binning),
                              path, array16, args, binning))
        tiled = runner.path(".tif")
        vips("copy", png16, tiled + "[tile,tile-width=16,tile-height=16,compression=deflate]")
        cases.append(("TIFF 16-bit tiled, %d ch" % channels, tiled, array16, ["--bins", "65536"],
                      "shift"))
        path = runner.path(".tif")
        pil_image(array).save(path, compression="tiff_lzw")
        cases.append(("TIFF 8-bit strips, %d ch" % channels, path, array, [], "shift"))
        path = runner.path(".tif")
        vips("copy", png_of(runner, array), path + "[tile,tile-width=32,tile-height=16]")
        cases.append(("TIFF 8-bit tiled, %d ch" % channels, path, array, [], "shift"))
        if channels in (3, 4):
            path = runner.path(".webp")
            pil_image(array).save(path, lossless=True, exact=True)
            cases.append(("WebP lossless, %d ch" % channels, path, array, [], "shift"))
    # Palette PNG: PIL writes the indices, libvips gives the palette's colours.
    palette = rng.integers(0, 256, (256, 3), dtype=np.int64).astype(np.uint8)
    indices = rng.integers(0, 256, (height, width), dtype=np.int64).astype(np.uint8)
    image = Image.fromarray(indices, "P")
    image.putpalette(palette.ravel().tolist())
    path = runner.path(".png")
    image.save(path)
    cases.append(("PNG palette", path, palette[indices], [], "shift"))
    # JPEG: lossy, so the expected pixels are PIL's decode of the same file (the same libjpeg).
    for channels in (1, 3):
        array = random_array(rng, height, width, channels, np.uint8)
        path = runner.path(".jpg")
        pil_image(array).save(path, quality=int(rng.integers(60, 98)))
        decoded = np.asarray(Image.open(path))
        decoded = decoded.reshape(height, width, channels)
        cases.append(("JPEG, %d ch" % channels, path, decoded, [], "shift"))
    # 32-bit float TIFF, gray and RGB, with NaN, negatives, values past 1 and exact ties.
    for channels in (1, 3):
        values = rng.random((height, width, channels)).astype(np.float32)
        values[0, 0, 0] = np.nan
        values[0, 1, 0] = -0.25
        values[0, 2, 0] = 1.5
        values[1, :4, 0] = np.float32(np.array([0.5, 1.0, 0.0, 1 / 65535]))
        pfm = runner.path(".pfm")
        write_pfm(pfm, values)
        path = runner.path(".tif")
        vips("copy", pfm, path)
        samples = np.stack([narrowed(values[:, :, c]) for c in range(channels)], axis=2)
        for bins in (256, 1024):
            cases.append(("TIFF float, %d ch, %d bins (default gimp)" % (channels, bins), path,
                          samples.astype(np.uint16), ["--bins", str(bins)], "gimp"))
    return cases


def png_of(runner, array):
    path = runner.path(".png")
    write_png(path, array)
    return path


def pam_of(runner, array):
    path = runner.path(".pam")
    write_pam(path, array)
    return path


def group_formats(runner, rng):
    cases = made_files(runner, rng)
    for label, path, array, args, binning in cases:
        bins = 256 if array.dtype == np.uint8 else int(args[args.index("--bins") + 1])
        document = runner.counted(path, args)
        if document["pixels"] != array.shape[0] * array.shape[1]:
            raise Failure("%s: %s pixels" % (label, document["pixels"]))
        compare(document, expected_counts(array, bins, binning), NAMES[array.shape[2]], label)
    return len(cases)


def group_same(runner, rng):
    checked = 0
    for dtype in (np.uint8, np.uint16):
        for channels in (1, 3, 4):
            array = random_array(rng, 41, 57, channels, dtype)
            png = png_of(runner, array)
            tiff = runner.path(".tif")
            vips("copy", png, tiff)
            args = [] if dtype == np.uint8 else ["--bins", "1024"]
            documents = [runner.counted(path, args) for path in (png, tiff, pam_of(runner, array))]
            counts = [[c["counts"] for c in d["channels"]] for d in documents]
            if not counts[0] == counts[1] == counts[2]:
                raise Failure("%s %d ch: PNG, TIFF and PAM counts differ" % (dtype.__name__,
                                                                           channels))
            checked += 1
    return checked


def parse_lines(out, expected_files):
    lines = out.splitlines()
    if len(lines) != len(expected_files):
        raise Failure("%d JSON lines for %d files" % (len(lines), len(expected_files)))
    objects = [json.loads(line) for line in lines]
    files = [o["file"] for o in objects]
    if files != expected_files:
        raise Failure("lines for %s, expected %s (in order)" % (files, expected_files))
    return objects


def group_batch(runner, rng):
    directory = os.path.join(runner.workdir, "batch")
    os.mkdir(directory)
    arrays = {}
    for i in range(12):
        array = random_array(rng, int(rng.integers(5, 40)), int(rng.integers(5, 40)),
                             int(rng.choice([1, 3, 4])), np.uint8)
        path = os.path.join(directory, "img%02d%s" % (i, [".png", ".tif", ".pam"][i % 3]))
        if path.endswith(".pam"):
            write_pam(path, array)
        else:
            pil_image(array).save(path)
        arrays[path] = array
    files = sorted(arrays)
    missing = os.path.join(runner.workdir, "missing.png")
    broken = os.path.join(runner.workdir, "broken.png")
    with open(files[0], "rb") as f:
        data = f.read()
    with open(broken, "wb") as f:
        f.write(data[: len(data) // 2])
    args = files[:5] + [missing] + files[5:8] + [broken] + files[8:]
    for jobs in ("1", "3"):
        rc, out, err = runner.run(["--json-lines", "--quiet", "--jobs", jobs] + args)
        if rc != 1:
            raise Failure("a batch with a missing file: exit %d (expected 1): %s" % (rc, err))
        objects = parse_lines(out, args)
        for o in objects:
            if o["file"] in (missing, broken):
                if "error" not in o or "counts" in json.dumps(o):
                    raise Failure("%s: %r should be an error object" % (o["file"], o))
                continue
            array = arrays[o["file"]]
            compare(o, expected_counts(array, 256), NAMES[array.shape[2]], o["file"])
        reason = [o["error"] for o in objects if o["file"] == missing][0]
        if "No such file" not in reason:
            raise Failure("the missing file's reason: %r" % reason)
    # A directory: its files in order, exit 0.
    rc, out, err = runner.run(["--json-lines", directory])
    if rc != 0 or "backend:" not in err:
        raise Failure("--json-lines DIRECTORY: exit %d, stderr %r" % (rc, err))
    parse_lines(out, files)
    # On a terminal, a progress line.
    master, slave = pty.openpty()
    result = subprocess.run([runner.gpuhist, "--json-lines"] + files, stdout=subprocess.PIPE,
                            stderr=slave, timeout=120)
    os.close(slave)
    shown = os.read(master, 65536).decode("utf-8", "replace")
    os.close(master)
    runner.runs += 1
    if result.returncode != 0 or "of %d files" % len(files) not in shown:
        raise Failure("no progress line on a terminal: %r" % shown)
    return len(args) * 2 + 2


def corpus(runner, rng):
    """Broken files: (label, path).  Truncated inside the pixel data, or with a damaged header
    that no decoder can get past."""
    files = []
    array = random_array(rng, 120, 160, 3, np.uint8)
    array16 = random_array(rng, 120, 160, 4, np.uint16)
    png16 = png_of(runner, array16)
    sources = {}
    path = runner.path(".png")
    pil_image(array).save(path)
    sources["PNG 8-bit"] = path
    sources["PNG 16-bit"] = png16
    path = runner.path(".jpg")
    pil_image(array).save(path, quality=90)
    sources["JPEG"] = path
    path = runner.path(".jpg")
    pil_image(array).save(path, quality=90, progressive=True)
    sources["JPEG progressive"] = path
    path = runner.path(".tif")
    pil_image(array).save(path)
    sources["TIFF strips"] = path
    path = runner.path(".tif")
    vips("copy", png16, path + "[tile,tile-width=32,tile-height=32,compression=deflate]")
    sources["TIFF 16-bit tiled"] = path
    for label, source in sources.items():
        with open(source, "rb") as f:
            data = f.read()
        for fraction in (0.02, 0.2, 0.5, 0.8, 0.95):
            files.append(("%s cut at %d%%" % (label, fraction * 100), data[: int(len(data) *
                                                                               fraction)]))
        files.append(("%s, magic only" % label, data[:8]))
    png = open(sources["PNG 8-bit"], "rb").read()
    damaged = bytearray(png)
    damaged[29] ^= 0xFF  # IHDR's CRC
    files.append(("PNG, IHDR CRC", bytes(damaged)))
    damaged = bytearray(png)
    damaged[16:20] = b"\x7f\xff\xff\xff"  # width 2^31 - 1
    files.append(("PNG, absurd width", bytes(damaged)))
    jpeg = open(sources["JPEG"], "rb").read()
    sof = jpeg.find(b"\xff\xc0")
    damaged = bytearray(jpeg)
    damaged[sof + 5: sof + 9] = b"\x00\x00\x00\x00"  # zero height and width
    files.append(("JPEG, zero size in SOF", bytes(damaged)))
    tiff = open(sources["TIFF strips"], "rb").read()
    damaged = bytearray(tiff)
    damaged[4:8] = b"\xff\xff\xff\x7f"  # the first IFD past the end
    files.append(("TIFF, IFD offset past the end", bytes(damaged)))
    paths = []
    for label, data in files:
        path = runner.path(".bad")
        with open(path, "wb") as f:
            f.write(data)
        paths.append((label, path))
    return paths


def group_corrupt(runner, rng):
    files = corpus(runner, rng)
    if len(files) < 30:
        raise Failure("the corpus has only %d files" % len(files))
    for label, path in files:
        try:
            rc, out, err = runner.run([path], timeout=PER_FILE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise Failure("%s: no answer in %d s" % (label, PER_FILE_TIMEOUT_S))
        prefix = "gpuhist: %s: " % path
        if rc != 1 or out or not err.startswith(prefix) or len(err.strip()) <= len(prefix) + 3:
            raise Failure("%s: exit %d (expected 1; negative is a signal), stderr %r"
                          % (label, rc, err))
        if "\n" in err.strip():
            raise Failure("%s: more than one line on stderr: %r" % (label, err))
    # The same corpus as one batch: an error object each, exit 1.
    paths = [path for _, path in files]
    rc, out, err = runner.run(["--json-lines", "--quiet"] + paths, timeout=300)
    objects = parse_lines(out, paths)
    if rc != 1 or any("error" not in o for o in objects):
        raise Failure("the corpus as a batch: exit %d, %d error objects"
                      % (rc, sum("error" in o for o in objects)))
    return len(files) + 1


def weights_unsupported(runner):
    """Why the engine cannot give weighted counts yet, or None."""
    path = runner.path(".png")
    pil_image(np.zeros((2, 2, 4), np.uint8)).save(path)
    rc, out, err = runner.run(["--alpha-weighted", "--json", "--quiet", path])
    if rc != 0 and "not counted yet" in err:
        return err.strip()
    if rc < 0:
        # Engine 38608c1 counts weights but its writers still read result->counts, NULL for a
        # weighted run.  Anything else that dies fails the test.
        signal = -rc
        rc, out, err = runner.run(["--json", "--quiet", path])
        if rc == 0:
            return "gpuhist --alpha-weighted dies by signal %d: the engine's gh_write_json " \
                   "does not write weighted results yet" % signal
    return None


def derived_columns(array):
    """GIMP's value and luminance bins of 8-bit RGB at 256 bins, in its float arithmetic: the
    samples as float (s / 255.0), luminance summed in double left to right, stored in a float."""
    rgb = (array[:, :, :3].astype(np.float64) / 255.0).astype(np.float32).astype(np.float64)
    value = rgb.max(axis=2).astype(np.float32)
    luminance = (0.22248840 * rgb[:, :, 0] + 0.71690369 * rgb[:, :, 1]
                 + 0.06060791 * rgb[:, :, 2]).astype(np.float32)
    columns = []
    for v in (value, luminance):
        t = np.clip(v * np.float32(255), np.float32(0), np.float32(255))
        columns.append(np.floor(t.astype(np.float64) + 0.5).astype(np.int64).ravel())
    return columns


def weighted_expected(array, coverage, coverage_scale, derived, bins=256):
    """Exact numerators of GIMP's weights with --alpha-weighted: colour (and derived) bins add
    a * m, the alpha bin m times alpha's full scale; the denominator is both full scales.  16-bit
    samples are binned by GIMP's rule (--binning gimp)."""
    channels = array.shape[2]
    alpha_scale = 255 if array.dtype == np.uint8 else 65535
    m = coverage.astype(np.int64).ravel() if coverage is not None else np.ones(
        array.shape[0] * array.shape[1], np.int64)
    a = array[:, :, channels - 1].astype(np.int64).ravel()
    columns = [array[:, :, c].astype(np.int64).ravel() for c in range(channels)]
    if alpha_scale == 65535:
        columns = [gimp_bins(column, bins) for column in columns]
    weights = [m * a] * (channels - 1) + [m * alpha_scale]
    if derived:
        columns += derived_columns(array)
        weights += [m * a, m * a]
    numerators = []
    for column, weight in zip(columns, weights):
        sums = [0] * bins
        for b, w in zip(column.tolist(), weight.tolist()):
            sums[b] += w
        numerators.append(sums)
    return numerators, coverage_scale * alpha_scale


def check_weighted_csv(runner, path, args, names, numerators, denominator, what):
    """CSV: a whole count as an integer, any other with at least 6 decimals, within half a unit
    of its last digit of numerator / denominator."""
    rc, out, err = runner.run(["--quiet"] + args + [path])
    lines = out.splitlines()
    if rc != 0 or lines[0] != "bin," + ",".join(names) or len(lines) != len(numerators[0]) + 1:
        raise Failure("%s, CSV: exit %d, header %r" % (what, rc, lines[:1]))
    for b, line in enumerate(lines[1:]):
        for c, field in enumerate(line.split(",")[1:]):
            n = numerators[c][b]
            if n % denominator == 0:
                ok = field == str(n // denominator)
            else:
                decimals = len(field.partition(".")[2])
                ok = decimals >= 6 and abs(float(field) - n / denominator) <= 0.5 * 10 ** -decimals
            if not ok:
                raise Failure("%s, CSV bin %d %s: %r for %d/%d" % (what, b, names[c], field, n,
                                                                  denominator))


def group_weighted(runner, rng):
    why = weights_unsupported(runner)
    if why:
        print("the engine cannot give weighted counts yet (%s): skipped" % why)
        return None
    checked = 0
    for channels in (2, 4):
        for coverage_bits in (None, 8, 16):
            array = random_array(rng, 23, 31, channels, np.uint8)
            array[:, :, -1] = rng.integers(0, 256, array.shape[:2])
            path = runner.path(".png")
            pil_image(array).save(path)
            args = ["--alpha-weighted"]
            coverage, scale = None, 1
            if coverage_bits:
                top = 256 if coverage_bits == 8 else 65536
                coverage = rng.integers(0, top, array.shape[:2]).astype(
                    np.uint8 if coverage_bits == 8 else np.uint16)
                plane = runner.path(".png")
                if coverage_bits == 8:
                    Image.fromarray(coverage, "L").save(plane)
                else:
                    write_png(plane, coverage[:, :, None])
                args += ["--weights", plane]
                scale = top - 1
            derived = channels == 4
            if derived:
                args.append("--derived")
            what = "%d ch, coverage %s" % (channels, coverage_bits)
            document = runner.counted(path, args)
            numerators, denominator = weighted_expected(array, coverage, scale, derived)
            if int(document["denominator"]) != denominator:
                raise Failure("%s: denominator %s, expected %d" % (what, document["denominator"],
                                                                  denominator))
            names = [channel["name"] for channel in document["channels"]]
            for c, channel in enumerate(document["channels"]):
                got = [int(n) for n in channel["numerators"]]
                if got != numerators[c]:
                    raise Failure("%s, %s: numerators differ from numpy's" % (what, names[c]))
            check_weighted_csv(runner, path, args, names, numerators, denominator, what)
            checked += 1
    # A Netpbm image with a PNG plane, and a PNG image with a PGM plane: the same sums.
    array = random_array(rng, 21, 13, 4, np.uint8)
    coverage = rng.integers(0, 256, array.shape[:2]).astype(np.uint8)
    numerators, denominator = weighted_expected(array, coverage, 255, False)
    plane_png, plane_pgm = runner.path(".png"), runner.path(".pgm")
    Image.fromarray(coverage, "L").save(plane_png)
    with open(plane_pgm, "wb") as f:
        f.write(b"P5 %d %d 255\n" % (13, 21) + coverage.tobytes())
    for image, plane in ((pam_of(runner, array), plane_png), (png_of(runner, array), plane_pgm)):
        document = runner.counted(image, ["--alpha-weighted", "--weights", plane])
        got = [[int(n) for n in channel["numerators"]] for channel in document["channels"]]
        if got != numerators or int(document["denominator"]) != denominator:
            raise Failure("%s with the plane %s: the sums differ from numpy's" % (image, plane))
        checked += 1
    # 16-bit RGBA, alpha-weighted, GIMP's 1024 bins, and the same file in a batch.
    array = random_array(rng, 19, 27, 4, np.uint16)
    path = png_of(runner, array)
    args = ["--alpha-weighted", "--bins", "1024", "--binning", "gimp"]
    numerators, denominator = weighted_expected(array, None, 1, False, bins=1024)
    rc, out, err = runner.run(["--json-lines", "--quiet"] + args + [path, path])
    for document in parse_lines(out, [path, path]):
        got = [[int(n) for n in channel["numerators"]] for channel in document["channels"]]
        if rc != 0 or got != numerators or int(document["denominator"]) != denominator:
            raise Failure("16-bit RGBA alpha-weighted at 1024 GIMP bins: exit %d, %s"
                          % (rc, "numerators differ" if got != numerators else err))
    return checked + 1


def luminance_column(array, rule, bins):
    """The luminance bins of RGB(A) samples under gpuhist's --luminance rule, as counts."""
    table = gimp3_luminance.terms(rule, 8 if array.dtype == np.uint8 else 16)
    counts = [0] * bins
    for r, g, b in array[:, :, :3].reshape(-1, 3).tolist():
        counts[gimp3_luminance.luminance_bin(table, r, g, b, rule, bins)] += 1
    return counts


def group_luminance(runner, rng):
    """Each rule's luminance column against numpy's, on noise with every 8-bit level in it."""
    checked = 0
    array8 = random_array(rng, 64, 64, 3, np.uint8)
    array8.reshape(-1, 3)[:256] = np.arange(256)[:, None]
    array16 = random_array(rng, 40, 50, 4, np.uint16)
    for array, args, bins in ((array8, [], 256),
                              (array16, ["--bins", "1024", "--binning", "gimp"], 1024)):
        path = png_of(runner, array)
        for rule in ("gimp2", "gimp3", "gimp3-linear", None):
            document = runner.counted(path, args + ["--derived"]
                                      + (["--luminance", rule] if rule else []))
            want_rule = rule or "gimp2"
            if document.get("luminance_rule") != want_rule:
                raise Failure("%s --luminance %s: luminance_rule %r" % (path, rule,
                                                                      document.get("luminance_rule")))
            channel = document["channels"][-1]
            got = [int(n) for n in channel.get("counts", channel.get("numerators", []))]
            if channel["name"] != "luminance" or got != luminance_column(array, want_rule, bins):
                raise Failure("%s --luminance %s: the luminance column differs from numpy's"
                              % (path, rule))
            checked += 1
    plain = runner.counted(png_of(runner, array8), [])
    if "luminance_rule" in plain:
        raise Failure("luminance_rule without --derived")
    for args, needle in ((["--luminance", "gimp3"], "goes with --derived"),
                         (["--derived", "--luminance", "gimp4"], "gimp2, gimp3 or gimp3-linear")):
        rc, out, err = runner.run(args + [png_of(runner, array8)])
        if rc != 2 or out or needle not in err:
            raise Failure("gpuhist %s: exit %d (expected 2), stderr %r" % (" ".join(args), rc, err))
        checked += 1
    return checked


def expect_refused(runner, args, path, needle):
    rc, out, err = runner.run(args + [path])
    if rc != 1 or out or not err.startswith("gpuhist: %s: " % path) or needle not in err:
        raise Failure("gpuhist %s: exit %d (expected 1), stderr %r should name %r"
                      % (" ".join(args + [path]), rc, err, needle))


def group_combinations(runner, rng):
    """Flags a file cannot take: exit 1 and the reason, nothing on standard output."""
    rgb = png_of(runner, random_array(rng, 6, 9, 3, np.uint8))
    gray = png_of(runner, random_array(rng, 6, 9, 1, np.uint8))
    small = png_of(runner, random_array(rng, 5, 9, 1, np.uint8))
    colour_plane = png_of(runner, random_array(rng, 6, 9, 3, np.uint8))
    float_plane = runner.path(".tif")
    vips("copy", write_pfm_path(runner, rng.random((6, 9, 1)).astype(np.float32)), float_plane)
    pgm = runner.path(".pgm")
    with open(pgm, "wb") as f:
        f.write(b"P5 9 6 255\n" + bytes(54))
    cases = [
        (["--alpha-weighted"], rgb, "alpha channel"),
        (["--derived"], gray, "RGB or RGBA"),
        (["--bins", "1024"], rgb, "256 levels"),
        (["--weights", small], rgb, "is 9 x 5, the image 9 x 6"),
        (["--weights", colour_plane], rgb, "one 8-bit or 16-bit gray channel"),
        (["--weights", float_plane], rgb, "one 8-bit or 16-bit gray channel"),
        (["--weights", os.path.join(runner.workdir, "none.png")], rgb, "cannot open"),
        (["--weights", os.path.join(runner.workdir, "none.png")],
         pam_of(runner, random_array(rng, 6, 9, 1, np.uint8)), "cannot open"),
        (["--weights", pgm], pam_of(runner, random_array(rng, 5, 9, 1, np.uint8)), "9 x 6"),
    ]
    for args, path, needle in cases:
        expect_refused(runner, args, path, needle)
    return len(cases)


def write_pfm_path(runner, array):
    path = runner.path(".pfm")
    write_pfm(path, array)
    return path


def group_fallback(runner, rng):
    """A GPU that fails mid-run (the simulated GPU, GPUHIST_FAULT): the engine falls back to the
    CPU and libvips decodes the file again from the top; the counts are still exact."""
    environment = {"GPUHIST_TEST_SIMULATED_GPU": "1", "GPUHIST_FAULT": "kernel",
                   "GPUHIST_FAULT_AFTER": "3"}
    saved = {key: os.environ.get(key) for key in environment}
    os.environ.update(environment)
    checked = 0
    try:
        for suffix, channels in ((".png", 3), (".tif", 4), (".jpg", 1)):
            array = random_array(rng, 150, 120, channels, np.uint8)
            path = runner.path(suffix)
            pil_image(array).save(path)
            if suffix == ".jpg":
                array = np.asarray(Image.open(path)).reshape(150, 120, 1)
            # Strips of a few rows: the fault comes on the third.
            for form in ("--json", "--json-lines"):
                rc, out, err = runner.run([form, "--quiet", "--memory-budget", "16K", path])
                document = json.loads(out) if rc == 0 else None
                if rc != 0 or "GPU failed" not in document["backend"]:
                    raise Failure("%s %s with a GPU fault: exit %d, %s" % (
                        suffix, form, rc, document["backend"] if document else err))
                compare(document, expected_counts(array, 256), NAMES[channels],
                        "%s after the fall-back" % suffix)
                checked += 1
    finally:
        for key, value in saved.items():
            if value is None:
                del os.environ[key]
            else:
                os.environ[key] = value
    return checked


def modules_loaded(runner, path, env=None):
    """(gpuhist's document of path, whether it opened any of libvips' modules)."""
    result = subprocess.run([runner.gpuhist, "--json", "--quiet", path], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, timeout=120,
                            env=dict(os.environ, LD_DEBUG="files", **(env or {})))
    runner.runs += 1
    if result.returncode != 0:
        own = [line for line in result.stderr.decode().splitlines()
               if line.startswith("gpuhist:")]
        raise Failure("%s: exit %d: %s" % (path, result.returncode, " ".join(own)))
    return json.loads(result.stdout), b"/vips-modules-" in result.stderr


def group_modules(runner, rng):
    array = random_array(rng, 33, 47, 3, np.uint8)
    jpeg = runner.path(".jpg")
    pil_image(array).save(jpeg, quality=90)
    if modules_loaded(runner, jpeg)[1]:
        raise Failure("a JPEG: gpuhist opened libvips' modules")
    checked = 1
    prefix, libdir = (subprocess.run(["pkg-config", "--variable=" + name, "vips"],
                                     stdout=subprocess.PIPE).stdout.decode().strip()
                      for name in ("prefix", "libdir"))
    if glob.glob(os.path.join(libdir, "vips-modules-*", "*.so")):
        if not modules_loaded(runner, jpeg, {"VIPSHOME": prefix})[1]:
            raise Failure("VIPSHOME=%s: libvips' modules were not loaded at start" % prefix)
        checked += 1
    for suffix in (".avif", ".jxl"):
        path = runner.path(suffix)
        made = subprocess.run(["vips", "copy", png_of(runner, array), path + "[lossless]"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if made.returncode != 0:
            print("the vips tool writes no %s here: not checked" % suffix)
            continue
        document, loaded = modules_loaded(runner, path)
        if not loaded:
            raise Failure("%s: read without opening a module" % suffix)
        decoded = runner.path(".png")
        vips("copy", path, decoded)
        compare(document, [c["counts"] for c in runner.counted(decoded)["channels"]],
                NAMES[3], "%s against the vips tool's PNG of it" % suffix)
        checked += 1
    return checked


GROUPS = {"formats": group_formats, "fallback": group_fallback, "combinations": group_combinations, "same": group_same, "batch": group_batch,
          "corrupt": group_corrupt, "weighted": group_weighted, "modules": group_modules,
          "luminance": group_luminance}


def without_libvips(gpuhist):
    help_text = subprocess.run([gpuhist, "--help"], stdout=subprocess.PIPE).stdout.decode()
    return None if "through libvips" in help_text else "gpuhist was built without libvips"


def main():
    return test_gpuhist.run_group(GROUPS, __doc__, make_rng=np.random.default_rng,
                                  runner_class=Runner, prefix="gpuhist-formats-",
                                  precheck=without_libvips)


if __name__ == "__main__":
    sys.exit(main())
