#!/usr/bin/env python3
"""gpu-histogram: tests of the gpuhist tool on files it has never seen.

Usage: test_gpuhist.py GROUP GPUHIST
  good    random PGM/PPM/PAM files counted by every method, compared bin by bin with a count
          made here; CSV, JSON, stdin and -o
  raw     raw samples with packed and padded strides, and a small memory budget (many strips)
  broken  broken and unsupported files: exit status exactly 1 and a message naming the problem;
          randomly damaged files: exit 0 or 1, never a signal
  usage   bad command lines: exit status 2
  gpu     the good files on --backend cuda (exit 77, skipped, without a usable GPU)

Every run draws a fresh seed, printed first and again on failure; GPUHIST_TEST_SEED replays one.
Standard library only, so that Debian's /usr/bin/python3 runs it.
"""

import json
import os
import random
import subprocess
import sys
import tempfile

SKIP = 77


class Failure(Exception):
    pass


class Image:
    """Interleaved 8-bit samples with their geometry: what a file holds and what gpuhist counts."""

    def __init__(self, width, height, channels, samples, label):
        self.width = width
        self.height = height
        self.channels = channels
        self.samples = samples  # bytes, width * height * channels, row by row
        self.label = label

    def expected_counts(self):
        """The independent count: one list of 256 counts per channel."""
        counts = [[0] * 256 for _ in range(self.channels)]
        for index, value in enumerate(self.samples):
            counts[index % self.channels][value] += 1
        return counts


CHANNEL_NAMES = {
    1: ["gray"],
    2: ["gray", "alpha"],
    3: ["red", "green", "blue"],
    4: ["red", "green", "blue", "alpha"],
}
TUPLE_TYPES = {1: "GRAYSCALE", 2: "GRAYSCALE_ALPHA", 3: "RGB", 4: "RGB_ALPHA"}


def make_image(rng, width, height, channels, pattern):
    count = width * height * channels
    if pattern == "flat":
        samples = bytes([rng.randrange(256)]) * count
    elif pattern == "noise":
        samples = bytes(rng.getrandbits(8) for _ in range(count))
    elif pattern == "gradient":
        # A different slope per channel, so that a channel mix-up changes the counts.
        slopes = [(rng.randrange(1, 9), rng.randrange(0, 5)) for _ in range(channels)]
        offset = rng.randrange(256)
        samples = bytes(
            (offset + x * slopes[c][0] + y * slopes[c][1]) % 256
            for y in range(height)
            for x in range(width)
            for c in range(channels)
        )
    elif pattern == "extremes":
        samples = bytes(rng.choice((0, 255)) for _ in range(count))
    else:
        raise ValueError(pattern)
    return Image(width, height, channels, samples,
                 "%dx%d, %d channel(s), %s" % (width, height, channels, pattern))


def comment(rng):
    return rng.choice(["# a comment\n", "#\n", "# gpuhist test, seed-made\n", ""])


def netpbm_header(rng, image, kind, tuple_type=True):
    """The header of a P5/P6 (kind 'pnm') or P7 (kind 'pam') file of the image, with comments."""
    if kind == "pnm":
        magic = {1: "P5", 3: "P6"}[image.channels]
        separators = [rng.choice([" ", "\n", "\t", "  \n"]) for _ in range(3)]
        header = "%s\n%s%d%s%s%d%s%s255%s" % (
            magic, comment(rng), image.width, separators[0], comment(rng), image.height,
            separators[1], comment(rng), rng.choice(["\n", " ", "\t", "# after maxval\n"]))
    else:
        lines = ["WIDTH %d" % image.width, "HEIGHT %d" % image.height,
                 "DEPTH %d" % image.channels, "MAXVAL 255"]
        if tuple_type:
            lines.append("TUPLTYPE %s" % TUPLE_TYPES[image.channels])
        rng.shuffle(lines)
        header = "P7\n" + comment(rng) + "".join(line + "\n" for line in lines) + "ENDHDR\n"
    return header.encode("ascii")


def netpbm_bytes(rng, image, kind, tuple_type=True):
    """A whole file of the image, sometimes with bytes after it (which readers ignore)."""
    trailing = rng.choice([b"", b"", b"trailing garbage\n"])
    return netpbm_header(rng, image, kind, tuple_type) + image.samples + trailing


class Runner:
    def __init__(self, gpuhist, seed, workdir):
        self.gpuhist = gpuhist
        self.seed = seed
        self.workdir = workdir
        self.runs = 0
        self.serial = 0

    def path(self, suffix):
        self.serial += 1
        return os.path.join(self.workdir, "input-%d%s" % (self.serial, suffix))

    def write(self, data, suffix):
        path = self.path(suffix)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def run(self, args, stdin=None):
        self.runs += 1
        result = subprocess.run([self.gpuhist] + args, input=stdin, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, timeout=120)
        return result.returncode, result.stdout.decode("utf-8", "replace"), \
            result.stderr.decode("utf-8", "replace")

    def fail(self, message):
        raise Failure(message)


def parse_csv(text, channels):
    lines = text.splitlines()
    if len(lines) != 257:
        raise Failure("CSV has %d lines, expected 257" % len(lines))
    header = lines[0].split(",")
    if header[0] != "bin" or len(header) != channels + 1:
        raise Failure("CSV header %r" % lines[0])
    counts = [[0] * 256 for _ in range(channels)]
    for row_number, line in enumerate(lines[1:]):
        fields = line.split(",")
        if len(fields) != channels + 1 or int(fields[0]) != row_number:
            raise Failure("CSV row %d is %r" % (row_number, line))
        for c in range(channels):
            counts[c][row_number] = int(fields[c + 1])
    return header[1:], counts


def compare(image, names, counts, what):
    expected_names = CHANNEL_NAMES[image.channels]
    if names != expected_names:
        raise Failure("%s, %s: channel names %s, expected %s"
                      % (image.label, what, names, expected_names))
    expected = image.expected_counts()
    for c in range(image.channels):
        for b in range(256):
            if counts[c][b] != expected[c][b]:
                raise Failure("%s, %s: %s bin %d is %d, expected %d"
                              % (image.label, what, names[c], b, counts[c][b], expected[c][b]))


def check_counted(runner, image, args, what, stdin=None, json_output=False, quiet=False):
    rc, out, err = runner.run(args, stdin=stdin)
    if rc != 0:
        raise Failure("%s, %s: exit %d: %s" % (image.label, what, rc, err.strip()))
    if quiet == ("backend:" in err):
        raise Failure("%s, %s: backend line %s on stderr: %r"
                      % (image.label, what, "present" if quiet else "missing", err))
    if json_output:
        document = json.loads(out)
        names = [channel["name"] for channel in document["channels"]]
        counts = [channel["counts"] for channel in document["channels"]]
        if document["pixels"] != image.width * image.height:
            raise Failure("%s, %s: JSON pixels %s" % (image.label, what, document["pixels"]))
        compare(image, names, counts, what)
        return document
    names, counts = parse_csv(out, image.channels)
    compare(image, names, counts, what)
    return None


def random_images(rng):
    """Sizes that catch edge cases (1x1, one row, one column, odd widths) in every layout."""
    images = [make_image(rng, 1, 1, c, "noise") for c in (1, 2, 3, 4)]
    for channels in (1, 2, 3, 4):
        for pattern in ("flat", "noise", "gradient", "extremes"):
            width = rng.choice([1, 3, 7, 17, 31, 64, 101, 255])
            height = rng.choice([1, 2, 5, 13, 40])
            images.append(make_image(rng, width, height, channels, pattern))
    # Samples that look like header whitespace right after the header: exactly one byte of
    # whitespace ends a P5/P6 header, the rest are pixels.
    for channels in (1, 3):
        image = make_image(rng, rng.randrange(2, 9), 2, channels, "noise")
        lead = bytes(rng.choice(b" \t\n\r#") for _ in range(channels + 1))
        image.samples = lead + image.samples[len(lead):]
        image.label += ", whitespace-valued samples first"
        images.append(image)
    images.append(make_image(rng, 513, 1, 3, "gradient"))
    images.append(make_image(rng, 1, 301, 1, "noise"))
    return images


def file_for(rng, runner, image):
    """Writes the image in a format that holds its channel count, chosen at random."""
    if image.channels in (1, 3) and rng.random() < 0.6:
        return runner.write(netpbm_bytes(rng, image, "pnm"), ".pnm")
    return runner.write(netpbm_bytes(rng, image, "pam", tuple_type=rng.random() < 0.7), ".pam")


def group_good(runner, rng, backend_args=(), methods=("cpu", "global", "private", "fastest",
                                                       "all")):
    images = random_images(rng)
    for image in images:
        path = file_for(rng, runner, image)
        for method in methods:
            if method == "cpu" and backend_args:
                continue
            args = ["--method", method] + list(backend_args)
            if method == "all":
                args += ["--repetitions", "2"]
            check_counted(runner, image, args + [path], "--method " + method)

    # Each single method must be the one that ran: the JSON times only it.
    timing_keys = {"global": "global_atomics", "private": "privatized", "fastest": None}
    for method, key in timing_keys.items():
        image = rng.choice(images)
        path = file_for(rng, runner, image)
        document = check_counted(runner, image, ["--json", "--method", method]
                                 + list(backend_args) + [path], "--json --method " + method,
                                 json_output=True)
        ran = sorted(k for k, timing in document["timings_ms"].items()
                     if timing and k != "upload")
        if ran != ([key] if key else []):
            raise Failure("--method %s timed %s" % (method, ran))

    # Output forms, on a few images: JSON, standard input, -o, --quiet.
    for image in rng.sample(images, 6):
        data = netpbm_bytes(rng, image, "pam")
        path = runner.write(data, ".pam")
        document = check_counted(runner, image, ["--json"] + list(backend_args) + [path],
                                 "--json", json_output=True)
        if not document["backend"]:
            raise Failure("%s: JSON without a backend" % image.label)
        document = check_counted(runner, image, ["--json", "--method", "all", "--repetitions",
                                                 "3"] + list(backend_args) + [path],
                                 "--json --method all", json_output=True)
        for key in ("global_atomics", "privatized", "fastest", "read_only"):
            timing = document["timings_ms"].get(key)
            if not timing or timing["runs"] != 3:
                raise Failure("%s: --method all --repetitions 3 timed %s as %r"
                              % (image.label, key, timing))
        check_counted(runner, image, list(backend_args) + ["-"], "stdin", stdin=data)
        output = runner.path(".csv")
        rc, out, err = runner.run(["--quiet", "-o", output] + list(backend_args) + [path])
        if rc != 0 or out or "backend:" in err:
            raise Failure("%s, -o: exit %d, stdout %r, stderr %r" % (image.label, rc, out[:80], err))
        with open(output) as f:
            names, counts = parse_csv(f.read(), image.channels)
        compare(image, names, counts, "-o")
        check_counted(runner, image, ["--quiet"] + list(backend_args) + [path], "--quiet",
                      quiet=True)
    return len(images)


def group_raw(runner, rng):
    checked = 0
    for channels in (1, 2, 3, 4):
        for pattern in ("noise", "gradient"):
            image = make_image(rng, rng.randrange(1, 90), rng.randrange(1, 30), channels, pattern)
            row = image.width * image.channels
            for padding in (0, rng.randrange(1, 9), 64):
                stride = row + padding
                data = bytearray()
                for y in range(image.height):
                    data += image.samples[y * row:(y + 1) * row]
                    # Padding bytes must not be counted: make them values the rows lack.
                    if y < image.height - 1 or rng.random() < 0.5:
                        data += bytes(rng.getrandbits(8) for _ in range(padding))
                path = runner.write(bytes(data), ".raw")
                geometry = "%dx%dx%d" % (image.width, image.height, channels)
                if padding or rng.random() < 0.5:
                    geometry += ":%d" % stride
                what = "--raw " + geometry
                check_counted(runner, image, ["--raw", geometry, path], what)
                check_counted(runner, image, ["--raw", geometry, "--method", "all",
                                              "--repetitions", "1", path], what + " all")
                # A budget of a few rows: the engine must stitch many strips together.
                budget = str(max(2 * row, 64) * 2)
                check_counted(runner, image, ["--raw", geometry, "--memory-budget", budget, path],
                              what + " --memory-budget " + budget)
                checked += 1

    # Raw samples from standard input.
    image = make_image(rng, 33, 7, 2, "noise")
    check_counted(runner, image, ["--raw", "33x7x2", "-"], "--raw from stdin", stdin=image.samples)

    # A larger image through a tiny budget via the environment variable, as the plug-in would.
    image = make_image(rng, 257, 211, 3, "noise")
    path = runner.write(image.samples, ".raw")
    env_before = os.environ.get("GPUHIST_MEMORY_BUDGET")
    os.environ["GPUHIST_MEMORY_BUDGET"] = "4K"
    try:
        check_counted(runner, image, ["--raw", "257x211x3", "--method", "all", "--repetitions",
                                      "1", path], "GPUHIST_MEMORY_BUDGET=4K")
    finally:
        if env_before is None:
            del os.environ["GPUHIST_MEMORY_BUDGET"]
        else:
            os.environ["GPUHIST_MEMORY_BUDGET"] = env_before

    # Too little data for the geometry is bad input, not a usage error.
    path = runner.write(bytes(10 * 10 * 3 - 1), ".raw")
    expect_bad_input(runner, ["--raw", "10x10x3", path], path, "truncated data")
    path = runner.write(bytes(5 * 3 + 3 - 1), ".raw")  # 3 padded rows and a short last one
    expect_bad_input(runner, ["--raw", "3x4x1:5", path], path, "truncated data")
    return checked


def expect_bad_input(runner, args, path, needle, stdin=None):
    rc, out, err = runner.run(args, stdin=stdin)
    shown = "standard input" if path == "-" else path
    if rc != 1:
        raise Failure("%s: exit status %d (expected exactly 1; negative is a signal); stderr %r"
                      % (" ".join(args), rc, err))
    if out:
        raise Failure("%s: wrote %r to stdout on failure" % (" ".join(args), out[:80]))
    needles = needle if isinstance(needle, tuple) else (needle,)
    if not err.startswith("gpuhist: %s: " % shown) or not any(n.lower() in err.lower()
                                                             for n in needles):
        raise Failure("%s: stderr %r should be 'gpuhist: %s: ...' naming %r"
                      % (" ".join(args), err, shown, needle))


NOT_NETPBM = None  # the needle for files that do not start like Netpbm: see needle_for


def needle_for(runner, needle):
    """Without libvips the strict reader answers "not a Netpbm image"; with it, libvips tries the
    file and names why it cannot decode it."""
    if needle is not NOT_NETPBM:
        return needle
    rc, out, err = runner.run(["--help"])
    if "through libvips" in out:
        return ("cannot decode", "not an image gpuhist reads")
    return "not a Netpbm image"


BROKEN = [
    # (label, file contents, what the message must mention)
    ("zero-size file", b"", "empty"),
    # Not Netpbm: libvips' reason where the tool has it (NOT_NETPBM), else the strict reader's.
    ("wrong magic", b"GIF89a\x01\x00\x01\x00", NOT_NETPBM),
    ("PNG", b"\x89PNG\r\n\x1a\n", NOT_NETPBM),
    ("lower-case magic", b"p6 1 1 255\n\x00\x00\x00", NOT_NETPBM),
    ("text PPM", b"P3 1 1 255\n0 0 0\n", "not supported"),
    ("PBM", b"P4 8 1\n\xff", "not supported"),
    ("magic alone", b"P6", "truncated header"),
    ("truncated header", b"P6 10", "truncated header"),
    ("truncated header, no maxval", b"P5 10 10\n", "truncated header"),
    ("truncated data", b"P6 10 10 255\n" + bytes(299), "truncated data"),
    ("truncated data, 1 byte", b"P5 2 1 255\n\x00", "truncated data"),
    ("zero width", b"P5 0 10 255\n", "zero width"),
    ("zero height", b"P6 10 0 255\n", "zero height"),
    ("maxval 0", b"P5 1 1 0\n\x00", "maxval 0"),
    ("maxval 65536", b"P5 1 1 65536\n\x00\x00", "maxval 65536"),
    ("maxval 256", b"P5 2 1 256\n\x00\x01\x01\x00", "maxval 256 is not supported"),
    ("maxval 1000", b"P6 1 1 1000\n\x00\x01\x01\x00\x03\xe8", "maxval 1000 is not supported"),
    ("maxval 100", b"P5 1 1 100\n\x10", "maxval 100 is not supported"),
    ("sample above maxval", b"P5 1 1 100\n\xc8", "larger than the maxval"),
    ("oversized dimensions", b"P6 2000000 2000000 255\n\x00", "too large"),
    ("dimensions past int", b"P5 99999999999 1 255\n\x00", "too large"),
    ("dimensions past everything", b"P5 1 99999999999999999999999999 255\n\x00", "too large"),
    ("non-numeric width", b"P6 wide 10 255\n", "width is not a number"),
    ("non-numeric maxval", b"P6 1 1 2x5\n\x00\x00\x00", "maxval is not a number"),
    ("negative height", b"P5 1 -1 255\n\x00", "height is not a number"),
    ("PAM without ENDHDR", b"P7\nWIDTH 1\nHEIGHT 1\nDEPTH 1\nMAXVAL 255\n", "ENDHDR"),
    ("PAM zero depth", b"P7\nWIDTH 1\nHEIGHT 1\nDEPTH 0\nMAXVAL 255\nENDHDR\n", "zero depth"),
    ("PAM depth 5", b"P7\nWIDTH 1\nHEIGHT 1\nDEPTH 5\nMAXVAL 255\nENDHDR\n" + bytes(5),
     "DEPTH 5"),
    ("PAM depth and tuple type", b"P7\nWIDTH 1\nHEIGHT 1\nDEPTH 2\nMAXVAL 255\nTUPLTYPE RGB\n"
     b"ENDHDR\n\x00\x00", "does not match TUPLTYPE"),
    ("PAM unknown tuple type", b"P7\nWIDTH 1\nHEIGHT 1\nDEPTH 1\nMAXVAL 255\nTUPLTYPE CMYK\n"
     b"ENDHDR\n\x00", "TUPLTYPE"),
    ("PAM missing width", b"P7\nHEIGHT 1\nDEPTH 1\nMAXVAL 255\nENDHDR\n\x00", "no WIDTH"),
    ("PAM truncated data", b"P7\nWIDTH 4\nHEIGHT 4\nDEPTH 4\nMAXVAL 255\nENDHDR\n" + bytes(63),
     "truncated data"),
]


def group_broken(runner, rng):
    for label, data, needle in BROKEN:
        needle = needle_for(runner, needle)
        path = runner.write(data, ".broken")
        try:
            expect_bad_input(runner, [path], path, needle)
            # The method must not change how input is judged.
            expect_bad_input(runner, ["--method", "all", path], path, needle)
        except Failure as failure:
            raise Failure("%s: %s" % (label, failure))
    label, data, needle = rng.choice([case for case in BROKEN if case[2] is not NOT_NETPBM])
    expect_bad_input(runner, ["-"], "-", needle, stdin=data)

    missing = os.path.join(runner.workdir, "does-not-exist.pgm")
    expect_bad_input(runner, [missing], missing, "cannot open")
    expect_bad_input(runner, [runner.workdir], runner.workdir, "read failed")

    # Garbage: random bytes, with and without a plausible magic number.
    for i in range(20):
        prefix = rng.choice([b"", b"P5", b"P6 ", b"P7\n", b"P5 3 3 255\n"])
        data = prefix + bytes(rng.getrandbits(8) for _ in range(rng.randrange(0, 40)))
        if prefix == b"P5 3 3 255\n" and len(data) >= len(prefix) + 9:
            data = data[:len(prefix) + 8]  # keep it broken: one sample short
        path = runner.write(data, ".garbage")
        rc, out, err = runner.run([path])
        if rc != 1 or not err.startswith("gpuhist: %s: " % path):
            raise Failure("garbage %r: exit %d, stderr %r" % (data, rc, err))

    # Damaged good files.  Cut inside the samples: exactly "truncated data".  Bytes changed in
    # the header: exit 0 or 1, never a signal.  Bytes changed in the samples: the new samples'
    # counts, exactly.
    damaged = 0
    for i in range(60):
        image = make_image(rng, rng.randrange(1, 20), rng.randrange(1, 20),
                           rng.choice([1, 2, 3, 4]), "noise")
        kind = "pam" if image.channels in (2, 4) or rng.random() < 0.5 else "pnm"
        header = netpbm_header(rng, image, kind)
        data = bytearray(header + image.samples)
        header_length = len(header)
        image_end = header_length + len(image.samples)
        damage = rng.choice(["cut", "header", "samples"])
        if damage == "cut":
            data = data[:rng.randrange(header_length, image_end)]
        elif damage == "header":
            for _ in range(rng.randrange(1, 4)):
                data[rng.randrange(0, header_length)] = rng.getrandbits(8)
        else:
            for _ in range(rng.randrange(1, 6)):
                data[rng.randrange(header_length, image_end)] = rng.getrandbits(8)
        path = runner.write(bytes(data), ".damaged")
        if damage == "cut":
            expect_bad_input(runner, [path], path, "truncated data")
        elif damage == "samples":
            changed = Image(image.width, image.height, image.channels,
                            bytes(data[header_length:image_end]), image.label + ", damaged")
            check_counted(runner, changed, [path], "changed samples")
        else:
            rc, out, err = runner.run([path])
            if rc not in (0, 1):
                raise Failure("damaged header %r: exit %d (a signal if negative), stderr %r"
                              % (bytes(data[:header_length]), rc, err))
            if rc == 1 and not err.startswith("gpuhist: %s: " % path):
                raise Failure("damaged header: stderr %r" % err)
        damaged += 1
    return len(BROKEN) + damaged


USAGE = [
    ([], "no input file"),
    (["a.pgm", "b.pgm"], "one input file"),
    (["--method", "fast", "x"], "--method"),
    (["--method"], "needs a value"),
    (["--backend", "opencl", "x"], "--backend"),
    (["--method", "cpu", "--backend", "cuda", "x"], "--backend cuda"),
    (["--repetitions", "-1", "x"], "--repetitions"),
    (["--repetitions", "many", "x"], "--repetitions"),
    (["--memory-budget", "lots", "x"], "--memory-budget"),
    (["--memory-budget", "0", "x"], "--memory-budget"),
    (["--raw", "10x10", "x"], "--raw"),
    (["--raw", "10x10x5", "x"], "--raw"),
    (["--raw", "10x0x1", "x"], "--raw"),
    (["--raw", "10x10x3:29", "x"], "--raw"),
    (["--raw", "10x10x3:", "x"], "--raw"),
    (["--raw", "-10x10x3", "x"], "--raw"),
    (["--json-lines", "--json", "x"], "--json-lines"),
    (["--json-lines", "--raw", "2x2x1", "x"], "--raw"),
    (["--json-lines", "--weights", "m.pgm", "x"], "--weights"),
    (["--json-lines", "--method", "all", "x"], "--json-lines"),
    (["--json-lines", "x", "-"], "standard input"),
    (["--jobs", "2", "x"], "--jobs goes with --json-lines"),
    (["--json-lines", "--jobs", "0", "x"], "--jobs"),
    (["--binning", "round", "x"], "--binning"),
    (["--weights"], "needs a value"),
    (["--frobnicate", "x"], "unknown option"),
    (["-z", "x"], "unknown option"),
]


def group_usage(runner, rng):
    for args, needle in USAGE:
        rc, out, err = runner.run(args)
        if rc != 2 or needle not in err or "--help" not in err:
            raise Failure("gpuhist %s: exit %d (expected 2), stderr %r should mention %r"
                          % (" ".join(args), rc, err, needle))
    rc, out, err = runner.run(["--help"])
    if rc != 0 or "Usage: gpuhist" not in out or "--method" not in out:
        raise Failure("--help: exit %d, %r" % (rc, out[:200]))
    rc, out, err = runner.run(["--version"])
    if rc != 0 or not out.startswith("gpuhist "):
        raise Failure("--version: exit %d, %r" % (rc, out))
    # The second line says which build this is; meson says which it made (GPUHIST_TEST_BUILD).
    lines = out.splitlines()
    build = os.environ.get("GPUHIST_TEST_BUILD")
    said = "cuda" if len(lines) == 2 and lines[1].startswith("CUDA build (CUDA ") else \
        "cpu-only" if len(lines) == 2 and lines[1].startswith("CPU-only build") else None
    if said is None or (build and said != build):
        raise Failure("--version: %r should say a %s build" % (out, build or "CUDA or CPU-only"))
    # Options after the file work too, as getopt_long allows.
    image = make_image(rng, 5, 3, 1, "noise")
    path = runner.write(netpbm_bytes(rng, image, "pnm"), ".pgm")
    check_counted(runner, image, [path, "--method", "cpu", "--quiet"], "options after FILE",
                  quiet=True)
    return len(USAGE)


def gpu_usable(runner):
    path = runner.write(b"P5 1 1 255\n\x07", ".pgm")
    rc, out, err = runner.run(["--backend", "cuda", "--quiet", path])
    return rc == 0, err.strip()


def group_gpu(runner, rng):
    usable, why = gpu_usable(runner)
    if not usable:
        # Without a GPU the refusal must still be an exit 1 with a reason.
        if not why.startswith("gpuhist: ") or len(why) < 20:
            raise Failure("--backend cuda without a GPU said %r" % why)
        print("no usable GPU (%s): skipped" % why)
        return None
    return group_good(runner, rng, backend_args=("--backend", "cuda"),
                      methods=("global", "private", "fastest", "all"))


def group_sixteen(runner, rng):
    """16-bit files (maxval 65535) at every --bins, on the default backend, against a count made
    here: sample v lands in bin v * bins // 65536."""
    import struct
    checked = 0
    for bins in (256, 1024, 4096, 16384, 65536):
        for channels in (1, 2, 3, 4):
            width, height = rng.choice([1, 5, 33, 120]), rng.choice([1, 3, 17])
            pattern = rng.choice(["noise", "flat", "gradient"])
            count = width * height * channels
            if pattern == "noise":
                samples = [rng.randrange(65536) for _ in range(count)]
            elif pattern == "flat":
                samples = [rng.randrange(65536)] * count
            else:
                samples = [(i * 65536 // count) for i in range(count)]
            header = (b"P7\nWIDTH %d\nHEIGHT %d\nDEPTH %d\nMAXVAL 65535\nENDHDR\n"
                      % (width, height, channels))
            if channels in (1, 3) and rng.random() < 0.5:
                header = b"P%d %d %d 65535\n" % (5 if channels == 1 else 6, width, height)
            path = runner.write(header + b"".join(struct.pack(">H", v) for v in samples), ".pam")
            expected = [[0] * bins for _ in range(channels)]
            for i, v in enumerate(samples):
                expected[i % channels][v * bins // 65536] += 1
            method = rng.choice(["fastest", "all", "cpu"])
            args = ["--bins", str(bins), "--method", method, "--json", "--quiet", path]
            if method == "all":
                args[4:4] = ["--repetitions", "1"]
            rc, out, err = runner.run(args)
            what = "16-bit %s %dx%dx%d, %d bins, --method %s" % (pattern, width, height, channels,
                                                                bins, method)
            if rc != 0:
                raise Failure("%s: exit %d: %s" % (what, rc, err.strip()))
            document = json.loads(out)
            if document["bins"] != bins:
                raise Failure("%s: JSON says %s bins" % (what, document["bins"]))
            counts = [channel["counts"] for channel in document["channels"]]
            if counts != expected:
                raise Failure("%s: counts differ from the independent count" % what)
            checked += 1
    # CSV has one row per bin.
    path = runner.write(b"P5 2 1 65535\n\x00\x01\xff\xff", ".pgm")
    rc, out, err = runner.run(["--bins", "1024", "--quiet", path])
    lines = out.splitlines()
    if rc != 0 or len(lines) != 1025 or lines[1] != "0,1" or lines[1024] != "1023,1":
        raise Failure("16-bit CSV at 1024 bins: exit %d, %d lines" % (rc, len(lines)))
    # An 8-bit file has 256 levels: more bins are refused with a reason.
    path = runner.write(b"P5 1 1 255\n\x07", ".pgm")
    expect_bad_input(runner, ["--bins", "1024", path], path, "256 levels")
    return checked + 2


GROUPS = {"good": group_good, "16bit": group_sixteen, "raw": group_raw, "broken": group_broken, "usage": group_usage,
          "gpu": group_gpu}


def run_group(groups, doc, make_rng=random.Random, runner_class=Runner, prefix="gpuhist-cli-",
              precheck=None):
    """Runs the group argv names with a fresh (or GPUHIST_TEST_SEED's) seed; the exit status.
    precheck (gpuhist's path) may return why the group cannot run here: skipped."""
    if len(sys.argv) != 3 or sys.argv[1] not in groups:
        print(doc, file=sys.stderr)
        return 2
    group, gpuhist = sys.argv[1], os.path.abspath(sys.argv[2])
    why = precheck(gpuhist) if precheck else None
    if why:
        print("%s: skipped" % why)
        return SKIP
    forced = os.environ.get("GPUHIST_TEST_SEED")
    seed = int(forced, 0) if forced else random.SystemRandom().getrandbits(63)
    print("seed %d (set GPUHIST_TEST_SEED to replay)" % seed)
    sys.stdout.flush()
    rng = make_rng(seed)
    with tempfile.TemporaryDirectory(prefix=prefix) as workdir:
        runner = runner_class(gpuhist, seed, workdir)
        try:
            checked = groups[group](runner, rng)
        except Failure as failure:
            print("FAIL (seed %d): %s" % (seed, failure), file=sys.stderr)
            return 1
        except Exception:
            print("ERROR (seed %d)" % seed, file=sys.stderr)
            raise
    if checked is None:
        return SKIP
    print("%s: %d cases, %d gpuhist runs, all as expected" % (group, checked, runner.runs))
    return 0


def main():
    return run_group(GROUPS, __doc__)


if __name__ == "__main__":
    sys.exit(main())
