#!/usr/bin/env python3
"""The plug-in's resident process in real, headless GIMP (issue 7).

    resident-tests.py --gimp 2|3 --plugin BUILT-PLUGIN --workdir DIR

GIMP starts extension-gpu-histogram with itself; plug-in-gpu-histogram hands its runs to the
temporary procedure it installs, which keeps a GPU engine between runs and lets it go when idle
(plugin/run/engine-keeper.c).  The simulated GPU of the tests (GPUHIST_TEST_SIMULATED_GPU=1: the
CPU, which the engine treats as a GPU) stands in for the GPU.  Each session makes one 97 x 61
RGB noise layer and counts it several times with output-file set; this script reads the JSON
files ("engine_kept", "engine_ms", the counts):

  - kept: the resident procedure exists; the first run makes its engine, the second takes the
    kept one (engine_kept, engine_ms 0), and with GPUHIST_KEEP_GPU_SECONDS=2 a run after 3 idle
    seconds makes a new one (the old one and the GPU's context were let go);
  - off: with GPUHIST_RESIDENT=0 no run keeps an engine;
  - scopes: plug-in-gpu-scopes hands its runs to its own resident procedure, which counts on
    the engine the histogram's run left there (engine_kept), with the scopes counted in the
    plug-in's own process ("off");
  - cpu: without a GPU (the CPU fallback) no engine is kept: there is nothing to start;
  - crash: the resident process is killed between two runs; the next run counts in the
    plug-in's own process, with the same counts, and GIMP has dropped the resident procedure
    by then (GIMP 2.10 at once, 3.0 when the hand-over finds the process gone);
  - busy: with GPUHIST_TEST_RESIDENT_BUSY=1 the resident procedure answers every run as while
    its dialog is open (GIMP 2.10: PASS_THROUGH; 3.0, whose libgimp refuses that status from a
    plug-in: an error that says so); each run counts in the plug-in's own process instead;
  - fault: the kept engine's GPU fails in its second run (GPUHIST_FAULT=kernel,
    GPUHIST_FAULT_RUN=2): run 1 on the GPU, run 2 takes the kept engine and ends on the CPU
    with the GPU's error in its backend line, and run 3 is on the GPU again (a new engine: one
    that fell back is not kept).
With GPUHIST_TEST_REQUIRE_GPU=1 (tools/device-gimp-check, on the GPU machine) the real GPU
stands in for the simulated one, every run on it must name the GPU in its backend line, and the
cpu session gets its CPU fallback from GPUHIST_FAULT=no-device.
Every run's counts must equal those of the first run of the "off" session (counted in the
plug-in's own process); gimp-tests.py checks those against an independent count.
Exit status: 0 all passed, 1 a check failed, 77 skipped (no GIMP).
"""

import json
import os
import re
import sys
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree for the imported modules
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gimp_results  # noqa: E402  (the shared pieces of the GIMP test scripts)
gt = gimp_results.load_gimp_tests()

SKIP = 77

# gh-layer and gh-run (gimp_results.NOISE_LAYER) on a 97 x 61 layer, and gh-resident?
HELPERS = {
    "2": gimp_results.noise_layer_script("2", 97, 61) + r"""
(define (gh-resident? name) (= 1 (car (gimp-procedural-db-proc-exists name))))
(define (gh-scopes img d out) (plug-in-gpu-scopes RUN-NONINTERACTIVE img d out 0 0 0))
""",
    "3": gimp_results.noise_layer_script("3", 97, 61) + r"""
(define (gh-resident? name) ; Script-Fu's default dialect gives 0 or 1 (both true in Scheme)
  (let ((exists (car (gimp-pdb-procedure-exists name))))
    (and exists (not (eqv? exists 0)))))
(define (gh-scopes img d out)
  (plug-in-gpu-scopes #:run-mode RUN-NONINTERACTIVE #:image img #:drawables (vector d)
                      #:output-file out #:columns 0))
""",
}

COMMON = r"""
(define (gh-now) (let ((t (gettimeofday))) (+ (car t) (/ (cadr t) 1000000.0))))
(define (gh-wait seconds)
  (let ((start (gh-now))) (let loop () (if (< (- (gh-now) start) seconds) (loop)))))
(define (gh-note path text)
  (let ((p (open-output-file path))) (display text p) (close-output-port p)))
"""


def session_script(work, label, steps):
    """Script-Fu: a layer, then steps: ("run", name), ("scopes", name) (plug-in-gpu-scopes),
    ("wait", s), ("resident", name) and ("scopes-resident", name) (whether each resident
    procedure exists)."""
    lines = ["(let* ((l (gh-layer)) (img (car l)) (d (cadr l)))"]
    for kind, arg in steps:
        path = os.path.join(work, "%s-%s" % (label, arg))
        if kind == "run":
            lines.append("  (gh-run img d %s)" % gt.sf_str(path + ".json"))
        elif kind == "wait":
            lines.append("  (gh-wait %s)" % arg)
        elif kind == "scopes":
            lines.append("  (gh-scopes img d %s)" % gt.sf_str(path + ".json"))
        elif kind in ("resident", "scopes-resident"):
            proc = ("plug-in-gpu-histogram-resident" if kind == "resident"
                    else "plug-in-gpu-scopes-resident")
            lines.append("  (gh-note %s (if (gh-resident? \"%s\") \"yes\" \"no\"))"
                         % (gt.sf_str(path), proc))
    lines.append("  (gimp-image-delete img))")
    return "\n".join(lines)


def plugin_pids(profile):
    """The processes running the plug-in installed in this profile."""
    pids = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if argv and argv[0].decode(errors="replace").startswith(profile):
            pids.append(int(pid))
    return pids


def run_session(args, work, label, steps, env, kill_after=None):
    """One GIMP session; with kill_after, kills the plug-in's processes once that file exists."""
    profile = gt.make_profile(os.path.join(work, label), args.gimp, args.plugin)
    commands = [HELPERS[args.gimp] + COMMON + session_script(work, label, steps)]
    killed = []
    done = threading.Event()

    def killer():
        marker = os.path.join(work, "%s-%s.json" % (label, kill_after))
        while not done.is_set():
            if os.path.exists(marker):
                time.sleep(0.2)  # the file is written before the run returns
                for pid in plugin_pids(profile):
                    try:
                        os.kill(pid, 9)
                        killed.append(pid)
                    except OSError:
                        pass
                return
            time.sleep(0.02)

    watcher = threading.Thread(target=killer) if kill_after else None
    if watcher:
        watcher.start()
    rc = gt.run_gimp(args.gimp, profile, commands, os.path.join(work, label + ".log"), env,
                     timeout=300)
    done.set()
    if watcher:
        watcher.join()
    return rc, killed


def read_run(work, label, name):
    path = os.path.join(work, "%s-%s.json" % (label, name))
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def counts(result):
    return [channel["counts"] for channel in result["channels"]]


def read_note(work, label, name):
    path = os.path.join(work, "%s-%s" % (label, name))
    return open(path).read() if os.path.exists(path) else None


def main():
    begun = gimp_results.start("resident")
    if begun is None:
        return SKIP
    args, work = begun
    chk = gt.Checker()
    started = time.time()
    sim = gimp_results.test_gpu_env()

    run_session(args, work, "off", [("run", "1"), ("run", "2"), ("scopes", "s")],
                dict(sim, GPUHIST_RESIDENT="0"))
    reference = read_run(work, "off", "1")
    chk.check(reference is not None, "off: the first run wrote its JSON")
    if reference is None:
        return 1
    want = counts(reference)

    def check_run(label, name, kept, backend=gimp_results.test_gpu_line()):
        got = read_run(work, label, name)
        chk.check(got is not None, "%s: run %s wrote its JSON" % (label, name))
        if got is None:
            return
        if backend:
            chk.check(re.search(backend, got.get("backend", "")) is not None,
                      "%s: run %s backend %r" % (label, name, got.get("backend")))
            gimp_results.check_gpu_backend(chk, "%s: run %s" % (label, name), got.get("backend"),
                                           backend != gimp_results.test_gpu_line())
        chk.check(got.get("engine_kept") is kept, "%s: run %s engine_kept is %s (got %r)"
                  % (label, name, kept, got.get("engine_kept")))
        if kept:
            chk.check(got.get("engine_ms") == 0, "%s: run %s waited for no engine (%r ms)"
                      % (label, name, got.get("engine_ms")))
        chk.check(counts(got) == want, "%s: run %s counts equal the plug-in's own process's"
                  % (label, name))

    check_run("off", "2", False)

    run_session(args, work, "kept",
                [("resident", "resident"), ("run", "1"), ("run", "2"), ("wait", 3), ("run", "3")],
                dict(sim, GPUHIST_KEEP_GPU_SECONDS="2"))
    chk.check(read_note(work, "kept", "resident") == "yes",
              "kept: GIMP started the resident procedure (%r)" % read_note(work, "kept", "resident"))
    check_run("kept", "1", False)
    check_run("kept", "2", True)
    check_run("kept", "3", False)

    # plug-in-gpu-scopes hands its runs over too, to the engine the histogram's run left
    run_session(args, work, "scopes", [("scopes-resident", "resident"), ("run", "1"),
                                       ("scopes", "2"), ("scopes", "3")], sim)
    chk.check(read_note(work, "scopes", "resident") == "yes",
              "scopes: GIMP started the scopes' resident procedure (%r)"
              % read_note(work, "scopes", "resident"))
    check_run("scopes", "1", False)
    own = read_run(work, "off", "s")
    for name in ("2", "3"):
        check_run("scopes", name, True)
        got = read_run(work, "scopes", name)
        chk.check(own is not None and got is not None
                  and got.get("waveform", {}).get("counts") == own["waveform"]["counts"]
                  and got.get("vectorscope", {}).get("counts") == own["vectorscope"]["counts"],
                  "scopes: run %s's scopes equal those counted in the plug-in's own process" % name)

    no_gpu = {"GPUHIST_FAULT": "no-device"} if gimp_results.gpu_required() else {}
    run_session(args, work, "cpu", [("run", "1"), ("run", "2")], no_gpu)
    check_run("cpu", "1", False, None)
    check_run("cpu", "2", False, None)
    cpu = read_run(work, "cpu", "2")
    if cpu is not None:
        chk.check(cpu.get("used_gpu") is False and cpu.get("backend", "").startswith("CPU"),
                  "cpu: counted on the CPU fallback (%r)" % cpu.get("backend"))

    _, killed = run_session(args, work, "crash",
                            [("run", "1"), ("wait", 4), ("run", "2"), ("resident", "after-kill")],
                            sim, kill_after="1")
    chk.check(len(killed) == 1, "crash: one resident process was killed (%r)" % killed)
    chk.check(read_note(work, "crash", "after-kill") == "no",
              "crash: GIMP dropped the resident procedure by the end of the next run (%r)"
              % read_note(work, "crash", "after-kill"))
    check_run("crash", "1", False)
    check_run("crash", "2", False)

    # busy: the resident procedure answers as while its dialog is open (TEST ONLY hook); each
    # run must come back to its caller and count there, not fail: no engine is ever kept, and
    # the resident procedure is still there afterwards.
    run_session(args, work, "busy", [("run", "1"), ("run", "2"), ("resident", "after")],
                dict(sim, GPUHIST_TEST_RESIDENT_BUSY="1"))
    check_run("busy", "1", False)
    check_run("busy", "2", False)
    chk.check(read_note(work, "busy", "after") == "yes",
              "busy: the resident procedure is still there (%r)" % read_note(work, "busy", "after"))

    run_session(args, work, "fault", [("run", "1"), ("run", "2"), ("run", "3")],
                dict(sim, GPUHIST_FAULT="kernel", GPUHIST_FAULT_RUN="2"))
    check_run("fault", "1", False)
    check_run("fault", "2", True, gimp_results.fell_back_line("kernel"))
    check_run("fault", "3", False)
    return gimp_results.finish(chk, started)


if __name__ == "__main__":
    sys.exit(main())
