#!/usr/bin/env python3
"""One of two GIMP sessions that count on one GPU at the same time (issue 16).

    parallel-tests.py --gimp 2|3 --plugin BUILT-PLUGIN --workdir DIR

tools/device-gimp-check starts this in both GIMPs at once.  One headless GIMP session, with the
plug-in's resident process: a 3000 x 2000 RGB noise layer (seeded, so the same layer in every
session) counted RUNS times, each run writing its JSON, with its start and end (seconds since the
epoch, from Script-Fu) in WORKDIR/parallel/gpu-times.txt, so that the caller can see that the two
sessions' runs overlapped (GPUHIST_TEST_PARALLEL_START, seconds since the epoch: the first run
waits until then, so that both sessions count at once whatever their start-up took).  Then a second session counts the same layer on the CPU
(GPUHIST_FAULT=no-device), the reference.  Checks: every run's counts equal the reference's;
every run after the first took the kept engine; with GPUHIST_TEST_REQUIRE_GPU=1 every run's
backend line names the GPU.  Without a GPU the simulated one (GPUHIST_TEST_SIMULATED_GPU=1)
stands in, as in resident-tests.py.
Exit status: 0 all passed, 1 a check failed, 77 skipped (no GIMP).
"""

import json
import os
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree for the imported modules
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gimp_results  # noqa: E402  (the shared pieces of the GIMP test scripts)
gt = gimp_results.load_gimp_tests()

RUNS = 20
W, H = 3000, 2000

# Times as whole seconds and microseconds: Script-Fu writes a real with 10 digits only.
TIMED_RUNS = r"""
(define gh-times (open-output-file %(times)s))
(define (gh-time t) (display (car t) gh-times) (display " " gh-times) (display (cadr t) gh-times))
(let* ((l (gh-layer)) (img (car l)) (d (cadr l)))
  (let wait () (if (< (car (gettimeofday)) %(start)d) (wait)))
  (let loop ((i 1))
    (if (<= i %(runs)d)
        (let ((t0 (gettimeofday)))
          (gh-run img d (string-append %(prefix)s (number->string i) ".json"))
          (display i gh-times) (display " " gh-times) (gh-time t0) (display " " gh-times)
          (gh-time (gettimeofday)) (newline gh-times)
          (loop (+ i 1)))))
  (close-output-port gh-times)
  (gimp-image-delete img))
"""


def session(args, work, label, runs, env):
    """A GIMP session counting the layer runs times; the runs' JSON, in order (None: missing)."""
    profile = gt.make_profile(os.path.join(work, label), args.gimp, args.plugin)
    prefix = os.path.join(work, label + "-")
    script = (gimp_results.noise_layer_script(args.gimp, W, H)
              + TIMED_RUNS % dict(times=gt.sf_str(os.path.join(work, label + "-times.txt")),
                                  runs=runs, prefix=gt.sf_str(prefix),
                                  start=int(os.environ.get("GPUHIST_TEST_PARALLEL_START", "0"))))
    gt.run_gimp(args.gimp, profile, [script], os.path.join(work, label + ".log"), env,
                timeout=400)
    results = []
    for i in range(1, runs + 1):
        path = "%s%d.json" % (prefix, i)
        results.append(json.load(open(path)) if os.path.exists(path) else None)
    return results


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
    begun = gimp_results.start("parallel")
    if begun is None:
        return 77
    args, work = begun
    chk = gt.Checker()
    started = time.time()
    runs = session(args, work, "gpu", RUNS, gimp_results.test_gpu_env())
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
