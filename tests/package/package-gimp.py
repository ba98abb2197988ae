#!/usr/bin/env python3
"""The packaged plug-in in headless GIMP (tests/package/in-root.sh runs this in the test root).

    package-gimp.py --gimp 2|3 --plugin SYSTEM-PLUGIN --workdir DIR

1. A profile with no plug-ins of its own: GIMP finds plug-in-gpu-histogram in its system folder
   (the profile's pluginrc records SYSTEM-PLUGIN), and a few of gimp-tests.py's cases (each
   layer type's counts against gimp-tests.py's independent count, the return values) pass.
2. A profile holding its own copy, where tools/install puts it: GIMP registers one
   gpu-histogram only, the profile's (GIMP skips a plug-in whose name it has seen, and reads the
   profile's folder first), and the procedure still counts right.

Exit status: 0 all passed, 1 a check failed.
"""

import argparse
import os
import re
import shutil
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gimp"))
import gimp_results  # noqa: E402

# gimp-tests.py's cases that cover RGB, alpha, a selection and a mask or a 16-bit layer.
CASES = {"2": ["rgb-gradient", "rgba-alpha-noise", "selection", "layer-mask"],
         "3": ["rgb-gradient", "rgba-gradient", "selection", "rgb-gradient-u16"]}


def empty_profile(path):
    """A profile with GIMP's folders and no plug-ins (make_profile's, without the copy)."""
    shutil.rmtree(path, ignore_errors=True)
    for sub in ["brushes", "dynamics", "fonts", "gradients", "palettes", "patterns",
                "tool-presets", "scripts", "modules", "interpreters", "environ", "templates",
                "themes", "icons", "mypaint-brushes", "tmp", "plug-ins"]:
        os.makedirs(os.path.join(path, sub), exist_ok=True)
    return path


def registered(profile, gimplibdir):
    """The paths of the gpu-histogram plug-ins GIMP recorded in the profile's pluginrc, with
    GIMP's ${gimp_dir} and ${gimp_plug_in_dir} expanded."""
    try:
        with open(os.path.join(profile, "pluginrc"), encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return []
    paths = []
    for path in re.findall(r'\(plug-in-def "([^"]*)"', text):
        path = path.replace("${gimp_dir}", profile).replace("${gimp_plug_in_dir}", gimplibdir)
        if os.path.basename(path) == "gpu-histogram":
            paths.append(os.path.normpath(path))
    return paths


def run_cases(gt, chk, gimp, profile, work, names):
    os.makedirs(work, exist_ok=True)
    cases = [c for c in (gt.generated_cases() if gimp == "2" else gt.generated_cases_3())
             if c["name"] in names]
    chk.check(len(cases) == len(names), "cases %s found in gimp-tests.py" % names)
    for c in cases:
        c["gimp"] = gimp
    commands = ["(begin " + gt.helpers(gimp) + gt.case_script(c, gimp, work) + ")" for c in cases]
    log = os.path.join(work, "gimp.log")
    rc = gt.run_gimp(gimp, profile, commands, log)
    chk.check(rc is not None, "GIMP finished (log %s)" % log)
    for c in cases:
        gt.check_case(chk, c, work)
    return log


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gimp", choices=["2", "3"], required=True)
    ap.add_argument("--plugin", required=True)
    ap.add_argument("--workdir", required=True)
    args = ap.parse_args()
    gimp, system = args.gimp, os.path.normpath(args.plugin)
    work = os.path.abspath(args.workdir)
    shutil.rmtree(work, ignore_errors=True)
    # GIMP's plug-in folder: .../plug-ins/gpu-histogram (2.10), .../plug-ins/gpu-histogram/
    # gpu-histogram (3.0, a folder of its own)
    plugins_dir = os.path.dirname(system) if gimp == "2" else os.path.dirname(os.path.dirname(system))
    gimplibdir = os.path.dirname(plugins_dir)
    gt = gimp_results.load_gimp_tests()
    chk = gt.Checker()

    # 1
    profile = empty_profile(os.path.join(work, "profile"))
    run_cases(gt, chk, gimp, profile, os.path.join(work, "system"), CASES[gimp])
    found = registered(profile, gimplibdir)
    chk.check(found == [system], "a profile without plug-ins: GIMP registered %s (pluginrc: %s)"
              % (system, found))

    # 2: where tools/install puts it (README's table), a copy of the same plug-in
    profile = empty_profile(os.path.join(work, "profile-own"))
    own = os.path.join(profile, "plug-ins", *(["gpu-histogram"] * (1 if gimp == "2" else 2)))
    os.makedirs(os.path.dirname(own), exist_ok=True)
    shutil.copy2(system, own)
    log = run_cases(gt, chk, gimp, profile, os.path.join(work, "own"), CASES[gimp][:1])
    found = registered(profile, gimplibdir)
    chk.check(found == [own], "a profile with its own copy: only that one registered (pluginrc: "
              "%s)" % found)
    with open(log, errors="replace") as f:
        said = [line.strip() for line in f if "uplicate" in line]
    print("GIMP on the duplicate: %s" % (said or "(nothing in the log)"))

    print("%d checks passed, %d failed" % (chk.passed, chk.failed))
    return 1 if chk.failed or chk.passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
