#!/usr/bin/env python3
"""One of two GIMP sessions that count on one GPU at the same time (issue 16).

    parallel-tests.py --gimp 2|3 --plugin BUILT-PLUGIN --workdir DIR
                      [--start-when FILE] [--spread SECONDS]

tools/device-gimp-check starts this in both GIMPs at once.  One headless GIMP session, with the
plug-in's resident process: a 3000 x 2000 RGB noise layer (seeded, so the same layer in every
session) counted RUNS times, each run writing its JSON, with its start and end (seconds since the
epoch, from Script-Fu) in WORKDIR/parallel/gpu-times.txt, so that the caller can see that the
sessions' runs overlapped.  Each run waits for its turn from this script (a byte through a FIFO
that Script-Fu reads: GIMP waits without spinning): the first run when GPUHIST_TEST_PARALLEL_START
(seconds since the epoch) has come, or once FILE exists (--start-when: the dialog suite makes its
timeline file before its first Re-run, tools/device-gimp-check's parallel-dialog step), else at
once; the runs after it spread evenly over --spread SECONDS (default 0: one after the other), so
that they fall between another session's runs and Re-runs.  Then a second session counts the
same layer on the CPU (GPUHIST_FAULT=no-device), the reference.  Checks: every run's counts equal
the reference's; every run after the first took the kept engine; with GPUHIST_TEST_REQUIRE_GPU=1
every run's backend line names the GPU.  Without a GPU the simulated one
(GPUHIST_TEST_SIMULATED_GPU=1) stands in, as in resident-tests.py.
Exit status: 0 all passed, 1 a check failed, 77 skipped (no GIMP).
"""

import json
import os
import sys
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree for the imported modules
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gimp_results  # noqa: E402  (the shared pieces of the GIMP test scripts)
gt = gimp_results.load_gimp_tests()

RUNS = 20
W, H = 3000, 2000

# Times as whole seconds and microseconds: Script-Fu writes a real with 10 digits only.  Each run
# first reads one character from the pacing FIFO: it blocks until the Pacer hands out the turn.
TIMED_RUNS = r"""
(define gh-times (open-output-file %(times)s))
(define gh-turns (open-input-file %(turns)s))
(define (gh-time t) (display (car t) gh-times) (display " " gh-times) (display (cadr t) gh-times))
(let* ((l (gh-layer)) (img (car l)) (d (cadr l)))
  (let loop ((i 1))
    (if (<= i %(runs)d)
        (let ((turn (read-char gh-turns)) (t0 (gettimeofday)))
          (gh-run img d (string-append %(prefix)s (number->string i) ".json"))
          (display i gh-times) (display " " gh-times) (gh-time t0) (display " " gh-times)
          (gh-time (gettimeofday)) (newline gh-times)
          (loop (+ i 1)))))
  (close-input-port gh-turns)
  (close-output-port gh-times)
  (gimp-image-delete img))
"""
# How long a session waits for --start-when's file before it counts anyway (and the caller's
# timing checks then fail): the dialog's GIMP takes about a minute to its first Re-run.
START_WAIT = 400


class Pacer:
    """Gives a session's runs their turns: one byte a run through the FIFO at path, the first
    when start (seconds since the epoch) has come or start_file exists, then every
    spread / (runs - 1) seconds.  A thread, so that GIMP runs meanwhile."""

    def __init__(self, path, runs, start=0.0, start_file=None, spread=0.0):
        self.path, self.runs, self.start, self.start_file = path, runs, start, start_file
        self.spread = spread
        os.mkfifo(path)
        threading.Thread(target=self.hand_out, daemon=True).start()

    def wait_for_start(self):
        deadline = time.time() + START_WAIT
        while self.start_file and not os.path.exists(self.start_file) and time.time() < deadline:
            time.sleep(0.05)
        while time.time() < self.start:
            time.sleep(0.05)
        return time.time()

    def hand_out(self):
        with open(self.path, "wb", buffering=0) as turns:  # waits for Script-Fu to open it
            first = self.wait_for_start()
            for i in range(self.runs):
                due = first + (self.spread * i / (self.runs - 1) if self.runs > 1 else 0)
                time.sleep(max(0.0, due - time.time()))
                turns.write(b"r")


def session(args, work, label, runs, env, pacer_options=None):
    """A GIMP session counting the layer runs times, paced (Pacer(**pacer_options)); the runs'
    JSON, in order (None: missing)."""
    profile = gt.make_profile(os.path.join(work, label), args.gimp, args.plugin)
    prefix = os.path.join(work, label + "-")
    turns = os.path.join(work, label + "-turns")
    Pacer(turns, runs, **(pacer_options or {}))
    script = (gimp_results.noise_layer_script(args.gimp, W, H)
              + TIMED_RUNS % dict(times=gt.sf_str(os.path.join(work, label + "-times.txt")),
                                  turns=gt.sf_str(turns), runs=runs, prefix=gt.sf_str(prefix)))
    gt.run_gimp(args.gimp, profile, [script], os.path.join(work, label + ".log"), env,
                timeout=400 + START_WAIT)
    results = []
    for i in range(1, runs + 1):
        path = "%s%d.json" % (prefix, i)
        results.append(json.load(open(path)) if os.path.exists(path) else None)
    return results


def pacing_options(parser):
    parser.add_argument("--start-when", default=None, metavar="FILE",
                        help="the first run waits until FILE exists")
    parser.add_argument("--spread", type=float, default=0.0, metavar="SECONDS",
                        help="the runs start evenly spread over SECONDS after the first")


def run_times(path):
    """[(start, end)] of each run, in seconds since the epoch, from a times file."""
    spans = []
    for line in open(path) if os.path.exists(path) else []:
        f = line.split()
        if len(f) == 5:
            spans.append((int(f[1]) + int(f[2]) / 1e6, int(f[3]) + int(f[4]) / 1e6))
    return spans


def counts(result):
    return [channel["counts"] for channel in result["channels"]]


def main():
    begun = gimp_results.start("parallel", pacing_options)
    if begun is None:
        return 77
    args, work = begun
    chk = gt.Checker()
    started = time.time()
    pacing = dict(start=float(os.environ.get("GPUHIST_TEST_PARALLEL_START", "0")),
                  start_file=args.start_when, spread=args.spread)
    runs = session(args, work, "gpu", RUNS, gimp_results.test_gpu_env(), pacing)
    reference = session(args, work, "cpu", 1, {"GPUHIST_FAULT": "no-device"})[0]
    if not chk.check(reference is not None and reference.get("used_gpu") is False,
                     "cpu: the reference run counted on the CPU (%r)"
                     % (reference or {}).get("backend")):
        return gimp_results.finish(chk, started)
    want = counts(reference)
    for i, got in enumerate(runs, 1):
        if not chk.check(got is not None, "gpu: run %d wrote its JSON" % i):
            continue
        chk.check(counts(got) == want, "gpu: run %d counts equal the CPU's" % i)
        chk.check(got.get("engine_kept") is (i > 1), "gpu: run %d engine_kept %r"
                  % (i, got.get("engine_kept")))
        chk.check(got.get("used_gpu") is True, "gpu: run %d used the GPU (%r)"
                  % (i, got.get("backend")))
        gimp_results.check_gpu_backend(chk, "gpu: run %d" % i, got.get("backend"))
    times = os.path.join(work, "gpu-times.txt")
    chk.check(len(run_times(times)) == RUNS, "gpu: the runs' times were written (%s)" % times)
    return gimp_results.finish(chk, started)


if __name__ == "__main__":
    sys.exit(main())
