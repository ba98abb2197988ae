"""The pieces the GIMP test scripts in this folder share (gimp-tests.py, bins-tests.py,
pyfu-tests.py, resident-tests.py): the common command line, reading the plug-in's output file, running GIMP 3.0 on a Python-Fu script until
it has written its results (and stopping it then), the Python-Fu that reads the double arrays a
procedure returns, and gimp-tests.py loaded as a module.

The scripts put their own folder on sys.path and set sys.dont_write_bytecode before importing
this, so that no __pycache__ is written into the source tree; the same holds inside the Debian 13
root (gimp3-tests.sh), which mounts the source tree at its own path.
"""

import argparse
import atexit
import fcntl
import importlib.util
import json
import os
import re
import shutil
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def load_gimp_tests():
    """gimp-tests.py (a file name, not a module name) as a module: the cases, Script-Fu helpers,
    GIMP 2.10 runner and independent counts the other scripts build on."""
    spec = importlib.util.spec_from_file_location("gimp_tests",
                                                  os.path.join(HERE, "gimp-tests.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def base_profile(gimp):
    """A profile in which GIMP (2 or 3, its console binary as found on PATH) has registered its
    own plug-ins and nothing else, made once per machine (or root) and GIMP binary by starting
    that GIMP once; None where that fails.  Copies of it spare every test's first start the query
    of GIMP's hundred-odd plug-ins, seconds of CPU each time (docs/BENCHMARKS.md, CI); GIMP still
    queries the plug-in a test adds to its copy, and re-queries any of its own whose file changed
    since."""
    binary = shutil.which("gimp-console-2.10" if gimp == "2" else "gimp-console-3.0")
    if not binary:
        return None
    stamp = int(os.stat(binary).st_mtime)
    base = os.path.join(tempfile.gettempdir(), "gpu-histogram-test-profile-%d" % os.getuid(),
                        "gimp%s-%d" % (gimp, stamp))
    parent = os.path.dirname(base)
    os.makedirs(parent, exist_ok=True)
    with open(os.path.join(parent, "lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one maker at a time; the others wait and copy it
        if not os.path.isfile(os.path.join(base, "pluginrc")):
            making = base + ".new"
            shutil.rmtree(making, ignore_errors=True)
            os.makedirs(making)
            argv = [binary, "-i", "-d", "-f"] + (
                ["--batch-interpreter=plug-in-script-fu-eval"] if gimp == "3" else [])
            env = with_huge_pages(dict(os.environ, LC_ALL="C.UTF-8"))
            env.pop("DISPLAY", None)
            env["GIMP2_DIRECTORY" if gimp == "2" else "GIMP3_DIRECTORY"] = making
            with open(os.path.join(parent, "gimp%s.log" % gimp), "w") as log:
                try:
                    subprocess.run(argv + ["-b", "(gimp-quit 0)"], stdout=log,
                                   stderr=subprocess.STDOUT, env=env, timeout=300)
                except subprocess.TimeoutExpired:
                    pass
            if not os.path.isfile(os.path.join(making, "pluginrc")):
                return None
            shutil.rmtree(os.path.join(making, "tmp"), ignore_errors=True)
            os.rename(making, base)
    return base


def with_huge_pages(env):
    """ENV (a dict, changed and returned) with glibc's malloc asking for transparent huge pages
    (the tunable glibc.malloc.hugetlb=1), for GIMP and the plug-ins it starts, which inherit it.
    babl times its lookup tables in every process that converts pixels (GIMP, each plug-in):
    hundreds of MiB of fresh memory written at once, over a second of CPU a process in 4 KiB
    pages on the 2-core test machine, about a third of that in 2 MiB pages (docs/BENCHMARKS.md,
    CI).  Not for the tests that measure the plug-in's memory (follow-busy, repeat-memory):
    huge pages change how its resident size grows."""
    tunables = [t for t in env.get("GLIBC_TUNABLES", "").split(":") if t]
    if not any(t.startswith("glibc.malloc.hugetlb=") for t in tunables):
        env["GLIBC_TUNABLES"] = ":".join(tunables + ["glibc.malloc.hugetlb=1"])
    return env


def start_profile(gimp, profile):
    """PROFILE (which must not exist) as a copy of base_profile(gimp), else an empty folder."""
    base = base_profile(gimp)
    if base:
        shutil.copytree(base, profile, symlinks=True)
    else:
        os.makedirs(profile)


# GPUHIST_TEST_REQUIRE_GPU=1 (tools/device-gimp-check, on the GPU machine): every run that no test
# injects a fault into must have counted on the GPU, its backend line naming the device as the
# CUDA backend does: "NVIDIA H200 (sm_90, 132 SMs, 140 GiB), driver 580.159.04 (CUDA 13.0), CUDA
# runtime 13.0".  Unset (CI, no GPU) nothing is required, and the CPU fallback passes.
GPU_LINE = re.compile(r"^\S.* \(sm_\d+, \d+ SMs, \d+ GiB\), driver .*, CUDA runtime \d+\.\d+$")
GPU_LINES = {"named": 0, "not": 0}


def gpu_required():
    return os.environ.get("GPUHIST_TEST_REQUIRE_GPU") == "1"


def _report_gpu_lines():
    # one line for tools/device-gimp-check to read: a suite that checked no line proves nothing
    print("GPUHIST_TEST_REQUIRE_GPU: %d backend lines named the GPU, %d did not"
          % (GPU_LINES["named"], GPU_LINES["not"]), flush=True)


if gpu_required():
    atexit.register(_report_gpu_lines)


# The line of the simulated GPU (GPUHIST_TEST_SIMULATED_GPU=1, which the tests use for the GPU
# where there is none) and of a run that fell back to the CPU after the GPU failed.
SIMULATED_LINE = (r"^simulated GPU for tests \(GPUHIST_TEST_SIMULATED_GPU=1; counts on the CPU, "
                  r"\d+ threads?\)$")
FAULT_MESSAGES = {
    "oom": "allocating device memory failed on the GPU: out of memory (cudaErrorMemoryAllocation)",
    "kernel": "launching a kernel failed on the GPU: invalid argument (cudaErrorInvalidValue)",
    "copy": "uploading a strip failed on the GPU: invalid argument (cudaErrorInvalidValue)",
}


def test_gpu_env():
    """The environment that gives the tests a GPU that GPUHIST_FAULT can fail mid-run: the real
    one where GPUHIST_TEST_REQUIRE_GPU=1, else the simulated GPU."""
    return {} if gpu_required() else {"GPUHIST_TEST_SIMULATED_GPU": "1"}


def test_gpu_line():
    """The regex of the backend line of a run on test_gpu_env's GPU."""
    return GPU_LINE.pattern if gpu_required() else SIMULATED_LINE


def fell_back_line(fault):
    """The regex of the backend line after the fall-back: the CPU, and the GPU's error in the
    engine's words."""
    return r"^CPU, \d+ threads?: the GPU failed \(" + re.escape(FAULT_MESSAGES[fault]) + r"\)$"


def note_gpu_line(named):
    """Counts a backend line checked for the GPU, for the line printed at exit."""
    GPU_LINES["named" if named else "not"] += 1


def check_gpu_backend(chk, label, backend, faulted=False):
    """With GPUHIST_TEST_REQUIRE_GPU=1, a check that a run with no injected fault (faulted
    False) counted on the GPU: its backend line names the device.  Otherwise nothing."""
    if not gpu_required() or faulted:
        return True
    named = isinstance(backend, str) and GPU_LINE.match(backend) is not None
    note_gpu_line(named)
    return chk.check(named, "%s: the backend line names the GPU (GPUHIST_TEST_REQUIRE_GPU=1): %r"
                     % (label, backend))


# Script-Fu, per GIMP version (resident-tests.py, parallel-tests.py): gh-layer makes a new image
# with a W x H RGB layer of seeded noise (the same layer in every session) and returns (image
# layer); gh-run counts it non-interactively, once with the fastest method, at 256 bins, its
# JSON written to out.
NOISE_LAYER = {
    "2": r"""
(define (gh-layer)
  (let* ((img (car (gimp-image-new %(w)d %(h)d RGB)))
         (d (car (gimp-layer-new img %(w)d %(h)d RGB-IMAGE "noise" 100 LAYER-MODE-NORMAL))))
    (gimp-image-insert-layer img d 0 0)
    (plug-in-randomize-hurl RUN-NONINTERACTIVE img d 100 1 FALSE 7)
    (list img d)))
(define (gh-run img d out)
  (plug-in-gpu-histogram RUN-NONINTERACTIVE img d out 0 FALSE 256 0 0))
""",
    "3": r"""
(define (gh-layer)
  (let* ((img (car (gimp-image-new %(w)d %(h)d RGB)))
         (d (car (gimp-layer-new img "noise" %(w)d %(h)d RGB-IMAGE 100 LAYER-MODE-NORMAL))))
    (gimp-image-insert-layer img d 0 0)
    (gimp-drawable-merge-new-filter d "gegl:noise-hurl" 0 LAYER-MODE-REPLACE 1.0
                                    "pct-random" 100.0 "repeat" 1 "seed" 7)
    (list img d)))
(define (gh-run img d out)
  (plug-in-gpu-histogram #:run-mode RUN-NONINTERACTIVE #:image img #:drawables (vector d)
                         #:output-file out #:repetitions 0 #:bins 256))
""",
}


def noise_layer_script(gimp, width, height):
    return NOISE_LAYER[gimp] % dict(w=width, h=height)


def start(name, add_options=None):
    """The command line of bins-tests.py and resident-tests.py (--gimp 2|3 --plugin --workdir;
    add_options(parser) adds a script's own): returns (args, a fresh WORKDIR/name), or None when
    that GIMP is not installed (skip)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--gimp", choices=["2", "3"], required=True)
    ap.add_argument("--plugin", required=True)
    ap.add_argument("--workdir", required=True)
    if add_options:
        add_options(ap)
    args = ap.parse_args()
    exe = "gimp-console-2.10" if args.gimp == "2" else "gimp-console-3.0"
    if shutil.which(exe) is None:
        print("%s is not installed: skipped" % exe)
        return None
    work = os.path.join(os.path.abspath(args.workdir), name)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    return args, work


def finish(chk, started):
    """Prints the checker's counts; the exit status: 1 when a check failed or none ran."""
    print("%d checks passed, %d failed (%.0f s)" % (chk.passed, chk.failed, time.time() - started))
    return 1 if chk.failed or chk.passed == 0 else 0


def read_counts(path, fmt=None, bins=None):
    """The plug-in's JSON or CSV file: ({channel name: counts}, the JSON or None, the CSV's rows
    or None).  fmt: "json" or "csv" (None: by the file's ending); bins: the rows a CSV must
    have (None: any number)."""
    if fmt is None:
        fmt = "json" if path.endswith(".json") else "csv"
    with open(path) as f:
        text = f.read()
    if fmt == "json":
        data = json.loads(text)
        # weighted runs (a selection, alpha) give values in pixels; unweighted ones counts
        return {ch["name"]: ch["counts"] if "counts" in ch else ch["values"]
                for ch in data["channels"]}, data, None
    lines = text.strip().split("\n")
    header = lines[0].split(",")
    if header[0] != "bin":
        raise ValueError("%s: CSV header %s" % (path, header))
    if bins is not None and len(lines) - 1 != bins:
        raise ValueError("%s: CSV has %d rows, expected %d" % (path, len(lines) - 1, bins))
    counts = {n: [] for n in header[1:]}
    for i, line in enumerate(lines[1:]):
        cells = line.split(",")
        if int(cells[0]) != i:
            raise ValueError("%s: CSV row %d is bin %s" % (path, i, cells[0]))
        for n, v in zip(header[1:], cells[1:]):
            counts[n].append(float(v) if "." in v else int(v))
    return counts, None, len(lines) - 1


def stop_when_done(proc, marker, timeout, grace):
    """Waits until GIMP (proc) ends or writes marker, timeout seconds at the most, then grace
    seconds more for it to end by itself; then terminates it (killed if it lingers 20 s more).
    Returns whether it had to be stopped."""
    deadline = time.time() + timeout
    while time.time() < deadline and proc.poll() is None and not os.path.exists(marker):
        time.sleep(0.1)
    try:
        proc.wait(timeout=grace)
        return False
    except subprocess.TimeoutExpired:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        return True


def run_python_fu(profile, script, marker, log, timeout=400, quit=True):
    """Headless GIMP 3.0 (gimp-console-3.0, profile as GIMP3_DIRECTORY, no fonts) runs the
    Python-Fu script with python-fu-eval, its output in log.  With quit, GIMP is given --quit and
    30 s after marker appears to end by itself; without (python-fu-eval does not quit by itself),
    1 s.  Returns whether marker exists."""
    env = with_huge_pages(dict(os.environ, GIMP3_DIRECTORY=profile, LC_ALL="C.UTF-8"))
    env.pop("DISPLAY", None)
    argv = ["gimp-console-3.0", "-i", "-d", "-f", "--batch-interpreter=python-fu-eval",
            "-b", "exec(open(%r).read())" % script] + (["--quit"] if quit else [])
    with open(log, "w") as f:
        proc = subprocess.Popen(argv, stdout=f, stderr=subprocess.STDOUT, env=env)
        stop_when_done(proc, marker, timeout, 30 if quit else 1)
    return os.path.exists(marker)


# Python-Fu for the scripts run in GIMP 3.0 (after `from gi.repository import Gimp, GObject`):
# doubles(value) is a procedure's returned double array as a list.
PYFU_DOUBLES = r"""
# Named once, so that PyGObject hands the double arrays back as Gimp.DoubleArray, not as an
# opaque boxed pointer.
DOUBLE_ARRAY = Gimp.DoubleArray

def doubles(value):
    try:
        return list(value.get_values())
    except (AttributeError, TypeError):
        gv = GObject.Value(DOUBLE_ARRAY.__gtype__)
        gv.set_boxed(value)
        return list(Gimp.value_get_double_array(gv))
"""


DERIVED = ["value", "luminance"]


def layer_channels(chk, label, got, want):
    """The plug-in's counts without value and luminance, which RGB layers (want has red) get
    after their own channels (issue 15) and others must not: those two are checked against
    GIMP's own histogram in counts-tests.py, the rest against the independent count here."""
    names = list(got)
    rgb = "red" in want
    tail = names[-2:] == DERIVED
    chk.check(tail if rgb else not any(n in names for n in DERIVED),
              "%s: value and luminance %s for %s channels %s"
              % (label, "last" if rgb else "absent", "RGB" if rgb else "these", names))
    return {n: v for n, v in got.items() if n not in DERIVED}


def split_returns(chk, label, ret, gimp, names, bins):
    """The return values without the trailing channel-names (checked: the names as counted, with
    value and luminance for RGB) and with only the layer's own channels' counts: n-channels and
    the counts array cut to len(names) channels.  2.10: (n num-counts counts backend num-timings
    timings channel-names); 3.0: (n counts backend timings channel-names)."""
    if not isinstance(ret, list) or len(ret) != (7 if gimp == "2" else 5):
        return ret
    *rest, channel_names = ret
    if isinstance(channel_names, str):
        channel_names = channel_names.split(",")
    want = list(names) + (DERIVED if "red" in names else [])
    chk.check(list(channel_names) == want, "%s: channel-names %s, expected %s"
              % (label, channel_names, want))
    n = rest[0]
    keep = len(names) * bins
    if n == len(want):
        n = len(names)
    if gimp == "2":
        counts = rest[2]
        if isinstance(counts, list) and len(counts) == rest[1]:
            counts = counts[:keep] if rest[1] else counts
            return [n, len(counts), counts] + rest[3:]
        return [n] + rest[1:]
    counts = rest[1]
    return [n, counts[:keep] if isinstance(counts, list) else counts] + rest[2:]


# GIMP 3.0's Luminance is babl's "Y float" of each pixel, and babl picks the code of that
# conversion by timing the candidates when it first needs it: one sum (the x86-64-v3 build of
# extensions/grey.c, fused multiply-adds) puts 4 of the 2^24 8-bit triples one bin from the other
# (babl/base's), which the plug-in follows (docs/BENCHMARKS.md, "GIMP 3.0's Luminance").  So that
# a comparison with GIMP's histogram does not depend on a timing, GIMP 3.0 runs with a babl cache
# (XDG_CACHE_HOME/babl/babl-fishes, babl's own format, read when babl starts) that names
# babl/base's sum for the four formats a histogram converts from.  (Pinned to the fused sum
# instead, luminance-measure.py finds those 4 triples off: babl takes the file's paths.)
BABL_EXTENSIONS = "/usr/lib/x86_64-linux-gnu/babl-0.1"
# babl loads the build of an extension for the CPU's x86-64 level (babl-extension.c)
BABL_LEVELS = [("x86-64-v3-", {"avx2", "bmi1", "bmi2", "f16c", "fma", "abm", "movbe", "xsave"}),
               ("x86-64-v2-", {"sse4_2", "ssse3", "popcnt", "cx16", "lahf_lm"})]


def _babl_variant(name):
    flags = set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    flags = set(line.split(":", 1)[1].split())
                    break
    except OSError:
        pass
    for prefix, needs in BABL_LEVELS:
        if needs <= flags and os.path.exists(os.path.join(BABL_EXTENSIONS, prefix + name)):
            return os.path.join(BABL_EXTENSIONS, prefix + name)
    return os.path.join(BABL_EXTENSIONS, name)


def babl_pins(fused=False):
    """{(from, to): [steps]}: babl's paths to "Y float" with babl/base's float sum (fused: with
    extensions/grey.c's build for this CPU, for luminance-measure.py's control run)."""
    sse2 = os.path.join(BABL_EXTENSIONS, "sse2-float.so")
    lies = _babl_variant("gggl-lies.so")
    last = ("%s 0: RGBA float to Y float" % _babl_variant("grey.so") if fused
            else "BablBase 0: RGBA float to Y float")
    return {
        ("R'G'B' float", "Y float"): ["%s 0: R'G'B' float to RGB float" % sse2,
                                      "%s 0: RGB float to RGBA float" % lies, last],
        ("R'G'B'A float", "Y float"): ["%s 0: R'G'B'A float to RGBA float" % sse2, last],
        ("RGB float", "Y float"): ["%s 0: RGB float to RGBA float" % lies, last],
        ("RGBA float", "Y float"): [last],
    }


def pin_babl_luminance(cache_home, fused=False):
    """Writes cache_home/babl/babl-fishes with babl_pins (its first line from babl itself, through
    Python's GObject binding of babl, which writes the file when it exits)."""
    folder = os.path.join(cache_home, "babl")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    code = ("import gi; gi.require_version('Babl', '0.1'); from gi.repository import Babl; "
            "Babl.init(); Babl.exit()")
    subprocess.run(["python3", "-c", code], env=dict(os.environ, XDG_CACHE_HOME=cache_home),
                   check=True)
    path = os.path.join(folder, "babl-fishes")
    with open(path) as f:
        header = f.readline()
    with open(path, "w") as f:
        f.write(header)
        for (source, target), steps in babl_pins(fused).items():
            f.write("%s\n%s\n\tpixels=1 cost=1 error=0.0000000600\n" % (source, target))
            f.write("".join("\t%s\n" % step for step in steps) + "----\n")
