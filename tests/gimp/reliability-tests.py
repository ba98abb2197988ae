#!/usr/bin/env python3
"""Reliability of plug-in-gpu-histogram in real GIMP (issue 6): odd inputs, injected GPU faults,
a layer larger than the memory budget, and an image closed while the dialog is open.

    reliability-tests.py --gimp 2|3 --plugin BUILT-PLUGIN --workdir DIR --suite SUITE
                         [--cuda enabled|disabled] [--src SRCDIR [--root-build DIR]]

Suites:
  batch   Script-Fu in headless GIMP: 1x1, 1xN and Nx1 layers, a selection partly outside the
          layer, a text layer; GPUHIST_FAULT=no-driver / old-driver / no-device in GIMP's
          environment (GIMP hands its environment to plug-ins); GPUHIST_MEMORY_BUDGET=64K on a
          1500x1000 RGBA layer; the TEST-ONLY simulated GPU (GPUHIST_TEST_SIMULATED_GPU=1)
          failing midway (GPUHIST_FAULT=oom / kernel / copy on the first, the middle and the
          last strip, oom at the start, kernel past the last strip) on a 32x160 layer read in 5
          strips.  Every count is
          compared bin by bin with this script's own count of the exported pixels (helpers
          imported from gimp-tests.py); the image stays clean.
  python  GIMP 3 only, Python-Fu: float and half layers holding NaN, +-inf and out-of-range
          values written through a Gegl buffer; a text layer; the memory budget; two selected
          drawables (the first is counted and named in the JSON note); the simulated GPU failing
          on strip 2 (oom, kernel, copy) of a layer of random bytes.
  dialog  GIMP 2.10 or 3.0 under Xvfb: runs the plug-in interactively, closes the image's window
          (which deletes the image) while the dialog is open, presses Re-run, then Close; checks
          GIMP is still running and its batch carries on.  Then, with the simulated GPU failing
          on strip 2, reads the dialog's backend line through at-spi (the CPU ran it because the
          GPU failed, and why), before and after Re-run.

With --gimp 3 on a machine without gimp-console-3.0 and --src given, the script builds the
plug-in inside the Debian 13 root (tools/debian13-root) in --root-build's folder (gimp3-build.sh,
the build the GIMP 3.0 tests share; WORKDIR/gimp3-build unless given) and runs itself there, as
gimp3-tests.sh does for gimp-tests.py.

With GPUHIST_TEST_REQUIRE_GPU=1 (tools/device-gimp-check, on the GPU machine) the faults strike
the real CUDA backend instead of the simulated GPU, and every run without a fault must name the
GPU in its backend line (gimp_results.check_gpu_backend).

Exit status: 0 all passed, 1 a check failed, 77 skipped.
"""

import argparse
import concurrent.futures
import glob
import importlib.util
import json
import os
import queue
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree for the imported drivers
sys.path.insert(0, HERE)
import gimp_results  # noqa: E402

gt = gimp_results.load_gimp_tests()

SKIP = 77
sf_str = gt.sf_str


# --- batch: odd shapes, text, faults, memory budget ----------------------------------------------

def shape_cases(gimp):
    """Cases in gimp-tests.py's form.  GIMP 3's Script-Fu has no raw export, so its references
    are pixel dumps (gradients) there."""
    raw = "raw" if gimp == "2" else "before"
    return [
        gt.case("one-by-one", ltype="RGBA-IMAGE", fill="gradient", w=1, h=1),
        gt.case("one-by-n", ltype="RGBA-IMAGE", fill="gradient", w=1, h=3000, ref=raw),
        gt.case("n-by-one", fill="gradient", w=3000, h=1, ref=raw, out="csv"),
        gt.case("one-by-one-gray", base="GRAY", ltype="GRAY-IMAGE", fill="flat", w=1, h=1,
                ref="before"),
        # the layer at (20, 10) in a 150x100 image; the selection runs past the layer's right
        # and bottom edges (and the image's): counted = selection bounds within the layer
        gt.case("selection-partly-outside", iw=150, ih=100, offset=(20, 10),
                sel=(60, 30, 200, 200), fill="gradient", ref="before"),
        # the selection runs past the layer's left and top edges
        gt.case("selection-past-top-left", iw=150, ih=100, offset=(40, 30),
                sel=(10, 5, 60, 50), ltype="RGBA-IMAGE", fill="gradient", ref="before"),
    ]


def fault_case(gimp, fault):
    raw = "raw" if gimp == "2" else "before"
    fill = "alpha-noise" if gimp == "2" else "gradient"
    return gt.case("fault-" + fault, ltype="RGBA-IMAGE", fill=fill, w=97, h=61, ref=raw, reps=2)


def budget_case(gimp):
    if gimp == "2":
        return gt.case("budget-64k-1500x1000", ltype="RGBA-IMAGE", fill="alpha-noise", w=1500,
                       h=1000, ref="raw", reps=1)
    return gt.case("budget-64k-1500x1000", fill="flat", w=1500, h=1000, ref="flat", reps=1)


TEXT = "GPU Histogram 1x1 ÄÖÜ"


def text_script(gimp, work):
    """A text layer (antialiased, so many alpha levels) in a 400x120 RGB image; exports its raw
    bytes and size, runs the plug-in on it, and records dirtiness."""
    p = lambda s: sf_str(os.path.join(work, "text" + s))
    colour = "(gimp-context-set-foreground (list 200 100 37))"
    if gimp == "2":
        make = ('(gimp-text-fontname img -1 5 5 %s 4 TRUE 36 PIXELS "Sans")' % sf_str(TEXT))
    else:
        make = ('(gimp-text-font img -1 5 5 %s 4 TRUE 36 (car (gimp-font-get-by-name "Sans-serif")))'
                % sf_str(TEXT))
    s = ["(let* ((img (car (gimp-image-new 400 120 RGB)))",
         "(bg (gh-layer-new img 400 120 RGB-IMAGE \"bg\"))",
         "(dummy (gimp-image-insert-layer img bg 0 0))",
         "(d (begin %s (car %s))))" % (colour, make),
         "(gh-write %s (list (car (gimp-drawable-width d)) (car (gimp-drawable-height d))"
         " (car (gimp-item-is-text-layer d)) (car (gimp-drawable-bpp d))))" % p(".size")
         if gimp == "2" else
         "(gh-write %s (list (car (gimp-drawable-get-width d)) (car (gimp-drawable-get-height d))"
         " (car (gimp-item-id-is-text-layer d)) (car (gimp-drawable-get-bpp d))))" % p(".size")]
    # pixel by pixel: file-raw-save2 gives a text layer's alpha as 255 throughout
    s.append("(gh-dump-pixels d (car (gimp-drawable-width d)) (car (gimp-drawable-height d)) %s)"
             % p(".pixels") if gimp == "2" else
             "(gh-dump-pixels d (car (gimp-drawable-get-width d)) "
             "(car (gimp-drawable-get-height d)) %s)" % p(".pixels"))
    s.append("(gimp-image-clean-all img)")
    s.append("(gh-write %s (gh-run img d %s 1 FALSE))" % (p(".ret"), p(".json")))
    s.append("(gh-write %s (car (gimp-image-is-dirty img)))" % p(".dirty"))
    s.append("(gimp-image-delete img))")
    return " ".join(s)


def run_gimp_with_fonts(gimp, profile, commands, log, timeout=600):
    env = gimp_results.with_huge_pages(dict(os.environ, LC_ALL="C.UTF-8"))
    env["GIMP2_DIRECTORY" if gimp == "2" else "GIMP3_DIRECTORY"] = profile
    env.pop("DISPLAY", None)
    argv = ["gimp-console-2.10" if gimp == "2" else "gimp-console-3.0", "-i", "-d"]
    if gimp == "3":
        argv.append("--batch-interpreter=plug-in-script-fu-eval")
    for c in commands + ["(gimp-quit 0)"]:
        argv += ["-b", c]
    with open(log, "w") as f:
        try:
            return subprocess.run(argv, stdout=f, stderr=subprocess.STDOUT, env=env,
                                  timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            f.write("\n*** timed out after %d s\n" % timeout)
            return None


def check_text(chk, gimp, work):
    base = os.path.join(work, "text")
    if not chk.check(os.path.exists(base + ".json"), "text layer: JSON written (see gimp-text.log)"):
        return
    w, h, is_text, bpp = gt.read_sexp(base + ".size")
    chk.check(is_text in (1, True) and bpp == 4 and w > 100 and h > 20,
              "text layer: a %dx%d text layer (is-text %s, bpp %s)" % (w, h, is_text, bpp))
    names = ["red", "green", "blue", "alpha"]
    c = gt.case("text", w=w, h=h)
    want = gt.expected_counts(c, gt.read_pixels(base + ".pixels"), (0, 0, w, h), names)
    got, data = gt.read_counts(base + ".json", "json")
    gt.compare(chk, "text layer %dx%d counts vs its export" % (w, h), got, want)
    levels = sum(1 for v in want["alpha"] if v)
    chk.check(levels > 10, "text layer: antialiased (%d alpha levels)" % levels)
    c = gt.case("text", reps=1)
    c["gimp"] = gimp
    gt.check_returns(chk, c, gt.read_sexp(base + ".ret"), got, names)
    chk.check(gt.read_sexp(base + ".dirty") in (0, False), "text layer: image not dirty")


def backend_of(gimp, ret):
    if isinstance(ret, list) and len(ret) >= 4:
        return ret[3] if gimp == "2" else ret[2]
    return None


def expect_backend(fault, cuda, has_driver):
    """(regex the backend must match, what it says) for a run with this fault injected."""
    if cuda != "enabled":
        return r"^CPU, \d+ threads?", "a CPU build says CPU"
    if fault == "no-driver" or (fault is None and not has_driver):
        return (r"^CPU, \d+ threads?: no NVIDIA driver is installed or loaded, so the GPU cannot "
                r"be used$", "no driver")
    if fault == "old-driver":
        return (r"^CPU, \d+ threads?: the NVIDIA driver supports CUDA (\d+)\.(\d+), older than the "
                r"CUDA runtime (\d+)\.(\d+) this plug-in was built with; update the driver",
                "the driver's and the runtime's versions")
    if fault == "no-device":
        return (r"^CPU, \d+ threads?: the NVIDIA driver is loaded but no CUDA device is "
                r"available$", "no device")
    return r".", "any backend"


# --- the GPU failing mid-run ----------------------------------------------------------------------
#
# Without a GPU (CI) the engine puts the CPU, described as a simulated GPU (TEST ONLY:
# GPUHIST_TEST_SIMULATED_GPU=1), in place of CUDA, and GPUHIST_FAULT strikes on it as on a real GPU
# (kernels/engine/backend.h): the plug-in's mid-run fall-back (plugin/run/measure.c) runs inside GIMP
# on a machine without a GPU.  With GPUHIST_TEST_REQUIRE_GPU=1 (tools/device-gimp-check, on the
# GPU machine) the same faults strike the real CUDA backend instead (gimp_results.test_gpu_env).
# A 32x160 RGBA layer under an 8 KiB budget is read in strips of 32 rows (half the budget; GIMP's
# tiles are 64 rows high), 5 strips in all.

SIM_W, SIM_H, SIM_BUDGET, SIM_ROWS = 32, 160, "8K", 32
SIM_STRIPS = (SIM_H + SIM_ROWS - 1) // SIM_ROWS
SIM_DEVICE = gimp_results.test_gpu_line()
# What the CUDA backend says for each fault (kernels/cuda/cuda_backend.cu); the simulated GPU says
# the same.
sim_fell_back = gimp_results.fell_back_line


def sim_sessions():
    """(label, GPUHIST_FAULT, GPUHIST_FAULT_AFTER, regex of the backend line, what it says):
    each fault on the first, a middle and the last strip (oom on the first: when the run
    begins), then past the last."""
    last, middle = SIM_STRIPS, (SIM_STRIPS + 1) // 2
    sessions = [("none", None, None, SIM_DEVICE, "the GPU counted")]
    for fault, what in (("oom", "the GPU ran out of memory"), ("kernel", "a kernel failed"),
                        ("copy", "a copy failed")):
        for strip in (1, middle, last):
            sessions.append(("%s-strip%d" % (fault, strip), fault, str(strip),
                             sim_fell_back(fault), "%s on strip %d of %d, the CPU counted"
                             % (what, strip, last)))
    sessions += [
        ("oom-begin", "oom", None, sim_fell_back("oom"),
         "out of memory when the run began, the CPU counted"),
        ("kernel-past-last", "kernel", str(SIM_STRIPS + 1), SIM_DEVICE,
         "no strip %d, so no fault: the GPU counted" % (SIM_STRIPS + 1)),
    ]
    return sessions


def sim_env(fault, after):
    env = dict(gimp_results.test_gpu_env(), GPUHIST_MEMORY_BUDGET=SIM_BUDGET)
    if fault:
        env["GPUHIST_FAULT"] = fault
    if after:
        env["GPUHIST_FAULT_AFTER"] = after
    return env


def log_crashes(path):
    """Lines of GIMP's log that say a plug-in crashed or was killed."""
    if not os.path.exists(path):
        return ["no log"]
    with open(path, errors="replace") as f:
        return [l for l in f.read().splitlines()
                if re.search(r"crashed|killing|terminated|segmentation|AddressSanitizer|"
                             r"runtime error", l, re.I)]


# GIMP sessions of the simulated GPU at once: each its own profile, so that two GIMPs never
# write one; two keep a 2-core machine busy while each GIMP waits on its plug-in.
SIM_WORKERS = 2


def run_simulated_session(args, work, profiles, cmd, session):
    """One setting's GIMP session, in a profile taken from `profiles` (a queue) for its time."""
    gimp = args.gimp
    label, fault, after, pattern, _ = session
    raw = "raw" if gimp == "2" else "before"
    fill = "alpha-noise" if gimp == "2" else "gradient"
    # untimed (strips counted in the background while the next is read) and timed
    cases = [gt.case("sim-%s-reps%d" % (label, reps), ltype="RGBA-IMAGE", fill=fill, w=SIM_W,
                     h=SIM_H, ref=raw, reps=reps) for reps in (0, 2)]
    for c in cases:
        c["gimp"] = gimp
        c["faulted"] = pattern != SIM_DEVICE
    alive = os.path.join(work, "alive-sim-" + label)
    log = os.path.join(work, "gimp-sim-%s.log" % label)
    env = sim_env(fault, after)
    profile = profiles.get()
    try:
        rc = gt.run_gimp(gimp, profile, [cmd(gt.case_script(c, gimp, work)) for c in cases]
                         + [cmd("(gh-write %s \"alive\")" % sf_str(alive))], log, env)
    finally:
        profiles.put(profile)
    return cases, env, rc is not None and os.path.exists(alive), log


def run_simulated_batch(args, chk, work, cmd):
    gimp = args.gimp
    profiles = queue.Queue()
    for worker in range(SIM_WORKERS):
        profiles.put(gt.make_profile(os.path.join(work, "worker-%d" % worker), gimp, args.plugin))
    with concurrent.futures.ThreadPoolExecutor(SIM_WORKERS) as pool:
        runs = list(pool.map(lambda session: run_simulated_session(args, work, profiles, cmd,
                                                                   session), sim_sessions()))
    for (label, _, _, pattern, what), (cases, env, finished, log) in zip(sim_sessions(), runs):
        setting = " ".join("%s=%s" % kv for kv in sorted(env.items()))
        chk.check(finished, "simulated GPU, %s: GIMP finished and ran the next command" % label)
        crashes = log_crashes(log)
        chk.check(not crashes,
                  "simulated GPU, %s: no crash in GIMP's log: %s" % (label, crashes[:3]))
        for c in cases:
            gt.check_case(chk, c, work)  # counts vs the independent count, return values, clean
            retp = os.path.join(work, c["name"] + ".ret")
            ret = gt.read_sexp(retp) if os.path.exists(retp) else None
            backend = backend_of(gimp, ret)
            chk.check(re.search(pattern, backend or "") is not None,
                      "%s (%s): the backend return value says %s: %r"
                      % (c["name"], setting, what, backend))
            jp = os.path.join(work, c["name"] + ".json")
            if os.path.exists(jp):
                data = json.load(open(jp))
                chk.check(data.get("backend") == backend,
                          "%s: the JSON's backend is the same line: %r"
                          % (c["name"], data.get("backend")))
            print("%s (%s): backend %r" % (c["name"], setting, backend))


# 2.10 is positional: all nine arguments (weighting 1 = pixels: the independent counts are of
# whole pixels, alpha ignored); 256 bins here.
GH_RUN_2 = r"""
(define (gh-run img d out reps linear)
  (plug-in-gpu-histogram RUN-NONINTERACTIVE img d out reps linear 256 1 0))
"""


def run_batch(args, chk):
    gimp = args.gimp
    work = os.path.join(args.workdir, "batch")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    profile = gt.make_profile(args.workdir, gimp, args.plugin)

    def cmd(body):
        return "(begin " + gt.helpers(gimp) + (GH_RUN_2 if gimp == "2" else "") + body + ")"

    # 1. shapes, selections, the text layer
    cases = shape_cases(gimp)
    for c in cases:
        c["gimp"] = gimp
    commands = [cmd(gt.case_script(c, gimp, work)) for c in cases]
    commands.append(cmd("(gh-write %s \"alive\")" % sf_str(os.path.join(work, "alive-1"))))
    rc = gt.run_gimp(gimp, profile, commands, os.path.join(work, "gimp.log"))
    chk.check(rc is not None, "GIMP finished (shapes)")
    # text needs fonts: gimp-tests.py's run_gimp starts GIMP with -f (no fonts)
    rc = run_gimp_with_fonts(gimp, profile, [cmd(text_script(gimp, work))],
                             os.path.join(work, "gimp-text.log"), timeout=240)
    chk.check(rc is not None, "GIMP finished (text)")
    chk.check(os.path.exists(os.path.join(work, "alive-1")),
              "GIMP ran a batch command after the plug-in's runs")
    for c in cases:
        gt.check_case(chk, c, work)
        ret = gt.read_sexp(os.path.join(work, c["name"] + ".ret")) if os.path.exists(
            os.path.join(work, c["name"] + ".ret")) else None
        print("%s: backend %r" % (c["name"], backend_of(gimp, ret)))
    check_text(chk, gimp, work)

    # 2. injected faults, each in its own GIMP session with GPUHIST_FAULT in GIMP's environment
    has_driver = os.path.exists("/dev/nvidiactl") or os.path.exists("/proc/driver/nvidia/version")
    for fault in [None, "no-driver", "old-driver", "no-device"]:
        label = fault or "none"
        c = fault_case(gimp, label)
        c["gimp"] = gimp
        c["faulted"] = fault is not None
        env = {"GPUHIST_FAULT": fault} if fault else {}
        alive = os.path.join(work, "alive-" + label)
        rc = gt.run_gimp(gimp, profile,
                         [cmd(gt.case_script(c, gimp, work)),
                          cmd("(gh-write %s \"alive\")" % sf_str(alive))],
                         os.path.join(work, "gimp-fault-%s.log" % label), env)
        chk.check(rc is not None and os.path.exists(alive),
                  "GPUHIST_FAULT=%s: GIMP finished and ran the next command" % label)
        gt.check_case(chk, c, work)
        retp = os.path.join(work, c["name"] + ".ret")
        ret = gt.read_sexp(retp) if os.path.exists(retp) else None
        backend = backend_of(gimp, ret)
        pattern, what = expect_backend(fault, args.cuda, has_driver)
        m = re.search(pattern, backend or "")
        chk.check(m is not None, "GPUHIST_FAULT=%s: the backend return value says %s: %r"
                  % (label, what, backend))
        if m and fault == "old-driver" and args.cuda == "enabled":
            drv, rt = (int(m.group(1)), int(m.group(2))), (int(m.group(3)), int(m.group(4)))
            chk.check(drv < rt and rt[0] >= 11, "old-driver: driver CUDA %d.%d < runtime %d.%d"
                      % (drv + rt))
        jp = os.path.join(work, c["name"] + ".json")
        if os.path.exists(jp):
            data = json.load(open(jp))
            chk.check(data.get("backend") == backend,
                      "GPUHIST_FAULT=%s: the JSON's backend is the same line: %r"
                      % (label, data.get("backend")))
        print("GPUHIST_FAULT=%s: backend %r" % (label, backend))

    # 3. a layer larger than the memory budget
    c = budget_case(gimp)
    c["gimp"] = gimp
    rc = gt.run_gimp(gimp, profile, [cmd(gt.case_script(c, gimp, work))],
                     os.path.join(work, "gimp-budget.log"), {"GPUHIST_MEMORY_BUDGET": "64K"})
    chk.check(rc is not None, "GPUHIST_MEMORY_BUDGET=64K: GIMP finished")
    gt.check_case(chk, c, work)

    # 4. the simulated GPU failing midway (TEST ONLY), each setting in its own GIMP session
    run_simulated_batch(args, chk, work, cmd)


# --- python: GIMP 3 Python-Fu ---------------------------------------------------------------------

PYFU = r"""
import json, math, random, struct, sys, traceback
import gi
gi.require_version('Gimp', '3.0')
gi.require_version('Gegl', '0.4')
from gi.repository import Gimp, Gegl
work = WORK
results = {}
pdb = Gimp.get_pdb()
proc = pdb.lookup_procedure('plug-in-gpu-histogram')

def run(img, drawables, out, reps=1, linear=False):
    config = proc.create_config()
    config.set_property('run-mode', Gimp.RunMode.NONINTERACTIVE)
    config.set_property('image', img)
    config.set_core_object_array('drawables', drawables)
    config.set_property('output-file', out)
    config.set_property('repetitions', reps)
    config.set_property('linear', linear)
    config.set_property('weighting', 'pixels')
    r = proc.run(config)
    status = int(r.index(0))
    if status != 3:
        return {'status': status, 'error': str(r.index(1)) if r.length() > 1 else ''}
    return {'status': status, 'n': r.index(1), 'backend': r.index(3)}

def layer_with(img, name, w, h, itype, fmt, data):
    layer = Gimp.Layer.new(img, name, w, h, itype, 100, Gimp.LayerMode.NORMAL)
    img.insert_layer(layer, None, 0)
    buf = layer.get_buffer()
    buf.set(Gegl.Rectangle.new(0, 0, w, h), fmt, data)
    buf.flush()
    layer.update(0, 0, w, h)
    return layer

def case(name, fn):
    try:
        results[name] = fn()
    except Exception:
        results[name] = {'exception': traceback.format_exc()}

SPECIAL = SPECIAL_VALUES

def special(kind):
    prec = {'float': Gimp.Precision.FLOAT_NON_LINEAR, 'half': Gimp.Precision.HALF_NON_LINEAR}[kind]
    w, h = 8, 2
    img = Gimp.Image.new_with_precision(w, h, Gimp.ImageBaseType.RGB, prec)
    vals = [SPECIAL[(i + k) % len(SPECIAL)] for i in range(w * h) for k in range(3)]
    ch = 'f' if kind == 'float' else 'e'
    data = struct.pack('<%d%s' % (len(vals), ch), *vals)
    layer = layer_with(img, kind, w, h, Gimp.ImageType.RGB_IMAGE, "R'G'B' " + kind, data)
    back = layer.get_buffer().get(Gegl.Rectangle.new(0, 0, w, h), 1.0, "R'G'B' " + kind,
                                  Gegl.AbyssPolicy.CLAMP)
    img.clean_all()
    r = run(img, [layer], work + '/special-%s.json' % kind)
    r['stored'] = list(struct.unpack('<%d%s' % (len(vals), ch), bytes(back)))
    r['stored'] = [repr(v) for v in r['stored']]
    r['dirty'] = img.is_dirty()
    img.delete()
    return r

def rgba_random(name, w, h, seed, reps=1):
    img = Gimp.Image.new(w, h, Gimp.ImageBaseType.RGB)
    rnd = random.Random(seed)
    data = rnd.randbytes(w * h * 4)
    layer = layer_with(img, name, w, h, Gimp.ImageType.RGBA_IMAGE, "R'G'B'A u8", data)
    open(work + '/%s.raw' % name, 'wb').write(data)
    img.clean_all()
    r = run(img, [layer], work + '/%s.json' % name, reps)
    r['dirty'] = img.is_dirty()
    img.delete()
    return r

def two_drawables():
    w, h = 64, 40
    img = Gimp.Image.new(w, h, Gimp.ImageBaseType.RGB)
    a = layer_with(img, 'first', w, h, Gimp.ImageType.RGBA_IMAGE, "R'G'B'A u8",
                   random.Random(5).randbytes(w * h * 4))
    b = layer_with(img, 'second', w, h, Gimp.ImageType.RGBA_IMAGE, "R'G'B'A u8",
                   random.Random(6).randbytes(w * h * 4))
    open(work + '/two.raw', 'wb').write(random.Random(5).randbytes(w * h * 4))
    img.clean_all()
    r = run(img, [a, b], work + '/two.json')
    r['dirty'] = img.is_dirty()
    img.delete()
    return r

def text():
    img = Gimp.Image.new(400, 120, Gimp.ImageBaseType.RGB)
    bg = Gimp.Layer.new(img, 'bg', 400, 120, Gimp.ImageType.RGB_IMAGE, 100, Gimp.LayerMode.NORMAL)
    img.insert_layer(bg, None, 0)
    font = Gimp.Font.get_by_name('Sans-serif')
    layer = Gimp.text_font(img, None, 5, 5, TEXT, 4, True, 36, font)
    w, h = layer.get_width(), layer.get_height()
    data = layer.get_buffer().get(Gegl.Rectangle.new(0, 0, w, h), 1.0, "R'G'B'A u8",
                                  Gegl.AbyssPolicy.CLAMP)
    open(work + '/text.raw', 'wb').write(bytes(data))
    img.clean_all()
    r = run(img, [layer], work + '/text.json')
    r.update(w=w, h=h, is_text=layer.is_text_layer(), dirty=img.is_dirty())
    img.delete()
    return r

MODE = sys_mode = MODE_VALUE
if MODE == 'budget':
    case('budget', lambda: rgba_random('budget', 1500, 1000, 9))
elif MODE.startswith('sim-'):
    # the simulated GPU failing midway (GPUHIST_* set by the caller), untimed and timed
    case(MODE + '-reps0', lambda: rgba_random(MODE + '-reps0', 300, 200, 21, 0))
    case(MODE + '-reps2', lambda: rgba_random(MODE + '-reps2', 300, 200, 22, 2))
else:
    case('special-float', lambda: special('float'))
    case('special-half', lambda: special('half'))
    case('one-by-n', lambda: rgba_random('one-by-n', 1, 3000, 3))
    case('n-by-one', lambda: rgba_random('n-by-one', 3000, 1, 4))
    case('one-by-one', lambda: rgba_random('one-by-one', 1, 1, 2))
    case('two', two_drawables)
    case('text', text)
json.dump(results, open(work + '/pyfu-%s.ret.json' % MODE, 'w'))
"""


def run_pyfu(args, work, profile, mode, extra_env):
    script = os.path.join(work, "pyfu-%s.py" % mode)
    with open(script, "w") as f:
        f.write(PYFU.replace("WORK", repr(work)).replace("MODE_VALUE", repr(mode))
                .replace("SPECIAL_VALUES", "[" + ", ".join(
                    "float(%r)" % repr(v) for v in gt.SPECIAL_VALUES) + "]")
                .replace("TEXT", repr(TEXT)))
    env = gimp_results.with_huge_pages(dict(os.environ, GIMP3_DIRECTORY=profile, LC_ALL="C.UTF-8"))
    env.update(extra_env)
    env.pop("DISPLAY", None)
    ret_path = os.path.join(work, "pyfu-%s.ret.json" % mode)
    with open(os.path.join(work, "gimp-%s.log" % mode), "w") as f:
        # with fonts (no -f): the text case needs them
        proc = subprocess.Popen(["gimp-console-3.0", "-i", "-d",
                                 "--batch-interpreter=python-fu-eval",
                                 "-b", "exec(open(%r).read())" % script],
                                stdout=f, stderr=subprocess.STDOUT, env=env)
        alive = gimp_results.stop_when_done(proc, ret_path, 300, 1)
    if not os.path.exists(ret_path):
        return None, alive
    return json.load(open(ret_path)), alive


def check_raw_case(chk, work, name, r, w, h, faulted=False):
    label = "Python-Fu %s (%dx%d)" % (name, w, h)
    if not chk.check(r is not None and r.get("status") == 3,
                     "%s: the call succeeded: %s" % (label, str(r)[:300])):
        return None
    gimp_results.check_gpu_backend(chk, label, r.get("backend"), faulted)
    names = ["red", "green", "blue", "alpha"]
    want = gt.expected_counts_raw(os.path.join(work, name + ".raw"), w, 4, (0, 0, w, h), names)
    got, data = gt.read_counts(os.path.join(work, name + ".json"), "json")
    gt.compare(chk, label + " counts vs the independent count", got, want)
    chk.check(not r.get("dirty"), "%s: image not dirty" % label)
    return data


def run_python(args, chk):
    if args.gimp != "3":
        print("Python-Fu is not packaged for GIMP 2.10 in Debian 12: skipped")
        return SKIP
    work = os.path.join(args.workdir, "python")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    profile = gt.make_profile(args.workdir, "3", args.plugin)
    res, _ = run_pyfu(args, work, profile, "cases", {})
    if not chk.check(res is not None, "Python-Fu script ran (see %s/gimp-cases.log)" % work):
        return 1
    for name, r in res.items():
        if "exception" in r:
            chk.check(False, "Python-Fu %s raised:\n%s" % (name, r["exception"]))
    for kind in ("float", "half"):
        r = res.get("special-" + kind, {})
        if not chk.check(r.get("status") == 3, "%s specials: the call succeeded: %s"
                         % (kind, str(r)[:300])):
            continue
        names = ["red", "green", "blue"]
        want = {n: [0] * 256 for n in names}
        for i, v in enumerate(gt.SPECIAL_VALUES[(p + k) % len(gt.SPECIAL_VALUES)]
                              for p in range(16) for k in range(3)):
            v = v if kind == "float" else gt.half_value(v)
            want[names[i % 3]][gt.documented_bin(v)] += 1
        got, data = gt.read_counts(os.path.join(work, "special-%s.json" % kind), "json")
        gt.compare(chk, "GIMP 3 %s layer with NaN, +-inf, <0, >1: the documented bins" % kind,
                   got, want)
        print("%s: stored values read back: %s" % (kind, " ".join(r["stored"][:16])))
        chk.check(not r.get("dirty"), "%s specials: image not dirty" % kind)
        gimp_results.check_gpu_backend(chk, "%s specials" % kind, r.get("backend"))
    for name, w, h in (("one-by-n", 1, 3000), ("n-by-one", 3000, 1), ("one-by-one", 1, 1)):
        check_raw_case(chk, work, name, res.get(name), w, h)
    data = check_raw_case(chk, work, "two", res.get("two"), 64, 40)
    if data:
        chk.check(data.get("drawable") == "first" and "2 drawables" in data.get("note", ""),
                  "two drawables: the first counted and named in the note: %r" % data.get("note"))
    r = res.get("text")
    if r and r.get("status") == 3:
        chk.check(r["is_text"] and r["w"] > 100, "text layer %sx%s" % (r["w"], r["h"]))
        check_raw_case(chk, work, "text", r, r["w"], r["h"])
    else:
        chk.check(False, "text layer: %s" % str(r)[:300])
    res, _ = run_pyfu(args, work, profile, "budget", {"GPUHIST_MEMORY_BUDGET": "64K"})
    if chk.check(res is not None, "Python-Fu budget script ran"):
        check_raw_case(chk, work, "budget", res.get("budget"), 1500, 1000)
    # the simulated GPU failing on strip 2 of a 300x200 RGBA layer read in strips of 27 rows
    # (half of 64 KiB) cut at GIMP's 64-row tiles: 27, 27, 10, 27, ...
    for fault in ("oom", "kernel", "copy"):
        env = dict(sim_env(fault, "2"), GPUHIST_MEMORY_BUDGET="64K")
        mode = "sim-" + fault
        res, alive = run_pyfu(args, work, profile, mode, env)
        if not chk.check(res is not None, "Python-Fu %s script ran" % mode):
            continue
        chk.check(alive, "Python-Fu %s: GIMP still ran after the plug-in's calls" % mode)
        for reps in (0, 2):
            name = "%s-reps%d" % (mode, reps)
            r = res.get(name)
            if check_raw_case(chk, work, name, r, 300, 200, faulted=True) is None:
                continue
            chk.check(re.search(sim_fell_back(fault), r.get("backend") or "") is not None,
                      "Python-Fu %s: the backend return value says the GPU failed (%s) and the "
                      "CPU counted: %r" % (name, fault, r.get("backend")))
            print("Python-Fu %s: backend %r" % (name, r.get("backend")))
    return 0


# --- dialog: the image closed while the dialog is open ---------------------------------------------

def run_dialog(args, chk):
    spec = importlib.util.spec_from_file_location(
        "dialog_tests", os.path.join(HERE, "..", "dialog", "dialog-tests.py"))
    td = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(td)
    gimp = "gimp-2.10" if args.gimp == "2" else "gimp-3.0"
    missing = td.which_all(["Xvfb", "xdotool", gimp])
    if missing:
        print("missing %s: skipped" % ", ".join(missing))
        return SKIP
    closed = run_dialog_closed_image(args, chk, td, gimp)
    fallback = run_dialog_fallback(args, chk, td, gimp)
    if closed == SKIP and fallback == SKIP:
        return SKIP
    return 1 if 1 in (closed, fallback) else 0


def dialog_environment(work):
    """A fresh work folder and an environment whose home, config, cache, data and runtime folders
    are inside it, in the C.UTF-8 locale, for one GIMP session with the dialog."""
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    env = gimp_results.with_huge_pages(dict(os.environ))
    for name in ("HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR"):
        env[name] = os.path.join(work, name.lower())
        os.makedirs(env[name], mode=0o700, exist_ok=True)
    env["LANG"] = "C.UTF-8"
    env.pop("LC_ALL", None)
    env.pop("LANGUAGE", None)
    return env


def plasma_dialog_script(gimp):
    """Script-Fu for the dialog cases: a 320 x 200 plasma layer (layer, fill) and the plug-in run
    interactively on it (run), for GIMP 2.10 or 3.0."""
    if gimp == "2":
        layer = '(car (gimp-layer-new img 320 200 RGB-IMAGE "Plasma" 100 LAYER-MODE-NORMAL))'
        fill = "(plug-in-plasma RUN-NONINTERACTIVE img layer 7 2.5)"
        # positional: six arguments, or seven once `bins` (issue 8) is there
        run = '(plug-in-gpu-histogram RUN-INTERACTIVE img layer "" 1 FALSE 256 0 0)'
    else:
        layer = '(car (gimp-layer-new img "Plasma" 320 200 RGB-IMAGE 100 LAYER-MODE-NORMAL))'
        # gegl:plasma renders 1024x768 unless told, and the layer grows to that
        fill = ('(gimp-drawable-merge-new-filter layer "gegl:plasma" 0 LAYER-MODE-REPLACE 1.0 '
                '"seed" 7 "turbulence" 2.5 "width" 320 "height" 200)')
        run = '(plug-in-gpu-histogram RUN-INTERACTIVE img (vector layer) "" 1 FALSE)'
    return layer, fill, run


def run_dialog_closed_image(args, chk, td, gimp):
    work = os.path.join(args.workdir, "dialog")
    env = dialog_environment(work)
    profile = gt.make_profile(work, args.gimp, args.plugin)
    env["GIMP2_DIRECTORY" if args.gimp == "2" else "GIMP3_DIRECTORY"] = profile

    p = lambda n: sf_str(os.path.join(work, n))
    layer, fill, run = plasma_dialog_script(args.gimp)
    script = """
(define (gh-note file obj)
  (let ((port (open-output-file file))) (write obj port) (newline port) (close-output-port port)))
(let* ((img (car (gimp-image-new 320 200 RGB))) (layer %(layer)s))
  (gimp-image-insert-layer img layer 0 0)
  %(fill)s
  (gimp-display-new img)
  (gimp-displays-flush)
  (gimp-image-clean-all img)
  (gh-note %(started)s img)
  (gh-note %(ret)s (catch "failed" %(run)s))
  (gh-note %(valid)s (car (%(is_valid)s img)))
  (let* ((img2 (car (gimp-image-new 10 10 RGB))))
    (gh-note %(after)s (list "alive" (car (%(is_valid)s img2))))
    (gimp-image-delete img2)))
""" % dict(layer=layer, fill=fill, run=run, started=p("started"), ret=p("ret"),
           valid=p("valid"), after=p("after"),
           is_valid="gimp-image-is-valid" if args.gimp == "2" else "gimp-image-id-is-valid")
    with open(os.path.join(work, "batch.scm"), "w") as f:
        f.write(script)

    xvfb, display = td.start_xvfb(env)
    if xvfb is None:
        print("Xvfb did not start: skipped")
        return SKIP
    env["DISPLAY"] = display
    log = open(os.path.join(work, "gimp.log"), "w")
    proc = subprocess.Popen([gimp, "-n", "-d", "-f", "-s", "--console-messages",
                             "--batch-interpreter", "plug-in-script-fu-eval", "-b", script],
                            env=env, stdout=log, stderr=subprocess.STDOUT, cwd=work,
                            start_new_session=True)

    def find(pattern):
        rc, ids = td.xdotool(env, "search", "--name", pattern)
        return ids if rc == 0 else []

    def shot(name):
        subprocess.run(["import", "-window", "root", os.path.join(work, name)], env=env,
                       timeout=60, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    try:
        dialog = None
        deadline = time.time() + 240
        while time.time() < deadline and proc.poll() is None:
            ids = find("^%s$" % td.TITLE)
            if ids:
                dialog = ids[-1]
                break
            time.sleep(1.0)
        if not chk.check(dialog is not None, "the dialog appeared (log %s)" % log.name):
            return 1
        time.sleep(2.0)
        # the image window: its title ends in "– GIMP" and names the image's size
        image_windows = [w for w in find("320x200") if w != dialog]
        chk.check(bool(image_windows), "found the image window (titles with 320x200)")
        for w in image_windows:
            td.xdotool(env, "windowfocus", "--sync", w)
            td.xdotool(env, "key", "--clearmodifiers", "ctrl+w")
            time.sleep(2.0)
        # a "Close without saving?" question (the image is clean, so there should be none)
        for q in find("Close") + find("Quit"):
            if q != dialog:
                td.xdotool(env, "windowfocus", "--sync", q)
                td.xdotool(env, "key", "--clearmodifiers", "ctrl+d")
        time.sleep(2.0)
        shot("after-close.png")
        gone = not [w for w in find("320x200") if w != dialog]
        chk.check(gone, "the image window is gone (the image deleted)")
        chk.check(proc.poll() is None and bool(find("^%s$" % td.TITLE)),
                  "GIMP and the dialog are still there")
        # Re-run in the dialog, on the deleted image
        td.xdotool(env, "windowfocus", "--sync", dialog)
        td.xdotool(env, "key", "--clearmodifiers", "alt+e")
        time.sleep(5.0)
        shot("after-rerun.png")
        still = bool(find("^%s$" % td.TITLE))
        chk.check(proc.poll() is None, "GIMP still runs after Re-run on the deleted image")
        print("# after Re-run the dialog is %s" % ("still open" if still else "gone"))
        messages = subprocess.run(["xdotool", "search", "--name", "."], env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
        titles = set()
        for wid in messages.decode().split():
            r = subprocess.run(["xdotool", "getwindowname", wid], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            titles.add(r.stdout.decode().strip())
        print("# windows: %s" % sorted(t for t in titles if t))
        if still:
            td.xdotool(env, "windowfocus", "--sync", dialog)
            td.xdotool(env, "key", "--clearmodifiers", "alt+c")
        deadline = time.time() + 60
        after = os.path.join(work, "after")
        while time.time() < deadline and not os.path.exists(after) and proc.poll() is None:
            time.sleep(0.5)
        chk.check(os.path.exists(after), "the batch went on after the plug-in returned: "
                  "GIMP made, checked and deleted a new image")
        ret = open(os.path.join(work, "ret")).read().strip() if os.path.exists(
            os.path.join(work, "ret")) else "?"
        valid = open(os.path.join(work, "valid")).read().strip() if os.path.exists(
            os.path.join(work, "valid")) else "?"
        print("# the plug-in call returned %s; the image is-valid afterwards: %s"
              % (ret[:60] + ("..." if len(ret) > 60 else ""), valid))
        chk.check(ret.startswith("(") or ret.startswith('"failed"'),
                  "the interactive call returned (values or a caught error), not hung")
        chk.check(valid in ("0", "#f"), "the image was really deleted (is-valid %s)" % valid)
        chk.check(proc.poll() is None, "GIMP is still running at the end")
        with open(log.name, errors="replace") as f:
            text = f.read()
        crashed = [l for l in text.splitlines()
                   if "crashed" in l.lower() or "killing" in l.lower() or "terminated" in l.lower()]
        for l in crashed[:5]:
            print("# log: " + l)
        chk.check(not crashed, "no plug-in crash or kill in GIMP's log")
    finally:
        td.stop(proc)
        td.stop(xvfb)
        log.close()
    return 0


# --- dialog: the simulated GPU failing midway; what the dialog says -------------------------------

def run_dialog_fallback(args, chk, td, gimp):
    """The dialog after a GPU failure midway: GPUHIST_TEST_SIMULATED_GPU=1, GPUHIST_FAULT=kernel
    on strip 2 of a 320x200 RGB plasma layer read in strips of 8 rows (GPUHIST_MEMORY_BUDGET=16K:
    25 strips).  The dialog's backend line (read through at-spi, as tests/dialog does) must say that
    the CPU ran it because the GPU failed, with the GPU's error; Re-run (on the engine that fell
    back) must say the same; the interactive call's backend return value too; the image stays
    clean and GIMP runs on."""
    work = os.path.join(args.workdir, "dialog-fallback")
    env = dialog_environment(work)
    env["NO_AT_BRIDGE"] = "0"
    env["GTK_MODULES"] = "gail:atk-bridge"  # GTK 2 loads these; GTK 3 has them built in
    env.pop("DBUS_SESSION_BUS_ADDRESS", None)
    env.update(sim_env("kernel", "2"))
    env["GPUHIST_MEMORY_BUDGET"] = "16K"
    profile = gt.make_profile(work, args.gimp, args.plugin)
    env["GIMP2_DIRECTORY" if args.gimp == "2" else "GIMP3_DIRECTORY"] = profile
    # "<b>The CPU ran this, not a GPU.</b>  <backend>" (plugin/ui/dialog.c), as plain text
    want_label = r"^The CPU ran this, not a GPU\.\s+" + sim_fell_back("kernel")[1:]

    p = lambda n: sf_str(os.path.join(work, n))
    layer, fill, run = plasma_dialog_script(args.gimp)
    size = ("(list (car (gimp-drawable-width layer)) (car (gimp-drawable-height layer)))"
            if args.gimp == "2" else
            "(list (car (gimp-drawable-get-width layer)) (car (gimp-drawable-get-height layer)))")
    script = """
(define (gh-note file obj)
  (let ((port (open-output-file file))) (write obj port) (newline port) (close-output-port port)))
(let* ((img (car (gimp-image-new 320 200 RGB))) (layer %(layer)s))
  (gimp-image-insert-layer img layer 0 0)
  %(fill)s
  (gimp-display-new img)
  (gimp-displays-flush)
  (gimp-image-clean-all img)
  (gh-note %(size)s %(size_of)s)
  (gh-note %(ret)s (catch "failed" %(run)s))
  (gh-note %(dirty)s (car (gimp-image-is-dirty img)))
  (gh-note %(after)s "alive"))
""" % dict(layer=layer, fill=fill, run=run, ret=p("ret"), dirty=p("dirty"), after=p("after"),
           size=p("size"), size_of=size)
    with open(os.path.join(work, "batch.scm"), "w") as f:
        f.write(script)

    xvfb, display = td.start_xvfb(env)
    if xvfb is None:
        print("Xvfb did not start: skipped")
        return SKIP
    env["DISPLAY"] = display
    helpers = td.start_accessibility(env)
    python = td.a11y.python_with_pyatspi() if helpers else None
    gtk2_bridge = glob.glob("/usr/lib/*/gtk-2.0/modules/libatk-bridge.so")
    if args.gimp == "2" and not gtk2_bridge:
        python = None
    log = open(os.path.join(work, "gimp.log"), "w")
    proc = subprocess.Popen([gimp, "-n", "-d", "-f", "-s", "--console-messages",
                             "--batch-interpreter", "plug-in-script-fu-eval", "-b", script],
                            env=env, stdout=log, stderr=subprocess.STDOUT, cwd=work,
                            start_new_session=True)

    def find(pattern):
        rc, ids = td.xdotool(env, "search", "--name", pattern)
        return ids if rc == 0 else []

    def labels(what, until):
        found = td.a11y.labels(python, env, until, ["GPU", "Measured"])
        print("# %s, labels: %s" % (what, found))
        return found

    try:
        dialog = None
        deadline = time.time() + 240
        while time.time() < deadline and proc.poll() is None:
            ids = find("^%s$" % td.TITLE)
            if ids:
                dialog = ids[-1]
                break
            time.sleep(1.0)
        if not chk.check(dialog is not None, "simulated GPU: the dialog appeared (log %s)"
                         % log.name):
            return 1
        time.sleep(2.0)
        subprocess.run(["import", "-window", dialog, os.path.join(work, "dialog-fallback.png")],
                       env=env, timeout=60, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if python is None:
            print("# SKIP the dialog's text: no at-spi bus, pyatspi or GTK's atk-bridge here")
        else:
            found = labels("first run", "the GPU failed")
            chk.check(any(re.search(want_label, l) for l in found),
                      "the dialog's backend line says the CPU ran it because the GPU failed, with "
                      "the GPU's error: %r" % found)
            # Re-run, on the engine that fell back: the CPU again, for the same reason
            td.xdotool(env, "windowfocus", "--sync", dialog)
            td.xdotool(env, "key", "--clearmodifiers", "alt+e")
            found = labels("after Re-run", "Measured again.")
            chk.check("Measured again." in found and any(re.search(want_label, l) for l in found),
                      "Re-run (on the CPU now) measured again, and the backend line still says "
                      "why: %r" % found)
        chk.check(proc.poll() is None and bool(find("^%s$" % td.TITLE)),
                  "simulated GPU: GIMP and the dialog are still there")
        td.xdotool(env, "windowfocus", "--sync", dialog)
        td.xdotool(env, "key", "--clearmodifiers", "alt+c")
        after = os.path.join(work, "after")
        deadline = time.time() + 60
        while time.time() < deadline and not os.path.exists(after) and proc.poll() is None:
            time.sleep(0.5)
        chk.check(os.path.exists(after), "simulated GPU: the batch went on after the dialog")
        retp = os.path.join(work, "ret")
        ret = gt.read_sexp(retp) if os.path.exists(retp) else None
        backend = backend_of(args.gimp, ret)
        chk.check(re.search(sim_fell_back("kernel"), backend or "") is not None,
                  "simulated GPU: the interactive call's backend return value says the GPU "
                  "failed and the CPU counted: %r" % backend)
        counts = ret[2] if args.gimp == "2" and isinstance(ret, list) and len(ret) > 2 else (
            ret[1] if isinstance(ret, list) and len(ret) > 1 else [])
        sizep = os.path.join(work, "size")
        size = gt.read_sexp(sizep) if os.path.exists(sizep) else None
        # red, green, blue, then value and luminance (issue 15)
        sums = [sum(counts[c * 256:(c + 1) * 256]) for c in range(5)] if len(counts) == 1280 else []
        chk.check(size == [320, 200] and sums == [320 * 200] * 5,
                  "simulated GPU: a %r layer; every channel's counts add up to its pixels once: %r"
                  % (size, sums))
        dirty = gt.read_sexp(os.path.join(work, "dirty")) if os.path.exists(
            os.path.join(work, "dirty")) else "?"
        chk.check(dirty in (0, False), "simulated GPU: the image is not dirty (%r)" % dirty)
        chk.check(proc.poll() is None, "simulated GPU: GIMP is still running at the end")
        log.flush()
        crashes = log_crashes(log.name)
        chk.check(not crashes, "simulated GPU: no crash in GIMP's log: %s" % crashes[:3])
    finally:
        td.stop(proc)
        for h in helpers:
            td.stop(h)
        td.stop(xvfb)
        log.close()
    return 0


# --- GIMP 3 in the Debian 13 root -------------------------------------------------------------------

def run_in_root(args):
    tool = os.path.join(args.src, "tools", "debian13-root")
    if not os.access(tool, os.X_OK):
        print("tools/debian13-root is missing: GIMP 3 tests skipped")
        return SKIP
    if subprocess.run([tool, "status"], stdout=subprocess.DEVNULL,
                      stderr=subprocess.DEVNULL).returncode != 0:
        if subprocess.run([tool, "ensure"]).returncode != 0:
            print("the Debian 13 root cannot be made: GIMP 3 tests skipped")
            return SKIP
    builddir = os.path.abspath(args.root_build or os.path.join(args.workdir, "gimp3-build"))
    os.makedirs(args.workdir, exist_ok=True)
    os.makedirs(builddir, exist_ok=True)
    env = dict(os.environ, GPUHIST_ROOT_BIND=args.workdir + " " + builddir)
    inner = r'''
set -e
src=$1 builddir=$2 cuda=$3 suite=$4 work=$5
bash "$src/tests/gimp/gimp3-build.sh" "$src" "$builddir" "$cuda" plugin/gpu-histogram
exec python3 "$src/tests/gimp/reliability-tests.py" --gimp 3 \
    --plugin "$builddir/build/plugin/gpu-histogram" --workdir "$work" --suite "$suite" --cuda "$cuda"
'''
    return subprocess.run([tool, "run", "--cwd", args.src, "--", "bash", "-c", inner,
                           "reliability", args.src, builddir, args.cuda, args.suite,
                           args.workdir], env=env).returncode


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gimp", choices=["2", "3"], required=True)
    ap.add_argument("--plugin", default="")
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--suite", choices=["batch", "python", "dialog"], default="batch")
    ap.add_argument("--cuda", choices=["enabled", "disabled"], default="enabled")
    ap.add_argument("--src", default="", help="source tree; for GIMP 3 through the root")
    ap.add_argument("--root-build", default="",
                    help="with --src: the folder of the build in the root (gimp3-build.sh)")
    args = ap.parse_args()
    args.workdir = os.path.abspath(args.workdir)
    if args.suite == "dialog":
        exe = "gimp-2.10" if args.gimp == "2" else "gimp-3.0"
    else:
        exe = "gimp-console-2.10" if args.gimp == "2" else "gimp-console-3.0"
    if shutil.which(exe) is None:
        if args.gimp == "3" and args.src:
            return run_in_root(args)
        print("%s is not installed: skipped" % exe)
        return SKIP
    os.makedirs(args.workdir, exist_ok=True)
    chk = gt.Checker()
    started = time.time()
    rc = {"batch": run_batch, "python": run_python, "dialog": run_dialog}[args.suite](args, chk)
    if rc == SKIP:
        return SKIP
    print("%s/%s: %d checks passed, %d failed (%.0f s)"
          % (args.gimp, args.suite, chk.passed, chk.failed, time.time() - started))
    return 1 if chk.failed or chk.passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
