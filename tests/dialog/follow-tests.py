#!/usr/bin/env python3
"""The dialog follows the image (issue 28), seen in GIMP's full UI under Xvfb.

GIMP (2.10 or 3.0) makes a 320 x 200 image of two layers, "Plasma" under "Top" (plasma of
another seed), displays it with "Plasma" active and runs plug-in-gpu-histogram interactively
("Follow the image" is on by default).  Then, from outside GIMP as a user would, with keys in
the image window, each edit must show in the dialog by itself, its statistics table equal to
the one a fresh Re-run (Alt+E) gives:

  1. Select All, then Edit > Clear (Delete): the layer turns white;
  2. Edit > Fill with FG Color (Ctrl+comma): black; that count is the engine's fourth run, where
     a kernel fault strikes (GPUHIST_FAULT=kernel, GPUHIST_FAULT_RUN=4), on the simulated GPU
     (GPUHIST_TEST_SIMULATED_GPU=1) or, with GPUHIST_TEST_REQUIRE_GPU=1
     (tools/device-gimp-check), on the real one: the backend line says the CPU counted, and
     following goes on;
  3. the active layer switched (Page Up): "Top" is counted;
  4. the selection changed (the rectangle select tool dragged across the canvas);
  5. the selection removed (Select > None, Shift+Ctrl+A): the whole layer is counted;
  6. the layer resized (Layer > Layer to Image Size: "Top" is smaller than the image);
  7. the image converted to grayscale (Image > Mode > Grayscale): gray has no red, green or
     blue;
  8. the image converted to 16 bits (Image > Precision > 16 bit integer) with the dialog at 4096
     bins, where 16 bits count into bins of their own and 8 bits into 256;
  9. the active layer deleted (Layer > Delete Layer, from the keyboard: Alt+L, D):
     the dialog follows the layer that becomes active;
  10. the image closed (Ctrl+W, Discard Changes): in GIMP 2.10 the dialog says so and stops;
     GIMP 3.0 keeps the image of a running call alive (the call's arguments hold it), so there the
     dialog survives and a Re-run counts what GIMP keeps;
  11. Close: the dialog goes, GIMP still runs, and no plug-in crashed.

Menu commands without a key of their own (6 to 8) go through GIMP's action search ("/", the
command's name, Return), as a user may; a command that asks (the precision's dithering) is
confirmed with Return.  Edits while a count runs, and two dialogs at once: follow-busy-tests.py.

--no-follow runs the same with following switched off by the dialog's own check box (Alt+K,
"Keep up with the image") first: step 1 must then fail, which shows that the test sees
following (docs/RELIABILITY.md).

Exit status: 0 passed, 1 failed, 77 skipped (no Xvfb, xdotool or GIMP).
"""

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "gimp"))
import a11y  # noqa: E402
import gimp_results  # noqa: E402  (GPUHIST_TEST_REQUIRE_GPU)
from screen import Window, place_window, xdotool  # noqa: E402

_spec = importlib.util.spec_from_file_location("dialog_tests",
                                               os.path.join(HERE, "dialog-tests.py"))
dialog_tests = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(dialog_tests)

SKIP = 77
TITLE = "GPU Histogram"
SESSIONRC = """(session-info "toplevel"
    (factory-entry "gimp-single-image-window")
    (position 0 0)
    (size 1024 768)
    (open-on-exit)
    (aux-info (left-docks-width "250") (right-docks-width "205") (maximized "no")))
(hide-docks yes)
(single-window-mode yes)
"""


# "Top" is smaller than the image and off its corner, so that Layer to Image Size resizes it.
TOP = (240, 150, 40, 25)


def batch_script(version, work):
    done = '"%s"' % os.path.join(work, "done")
    if version == "3":
        layer = '(gimp-layer-new img "{name}" {width} {height} RGB-IMAGE 100 LAYER-MODE-NORMAL)'
        plasma = ('(gimp-drawable-merge-new-filter %s "gegl:plasma" 0 LAYER-MODE-REPLACE 1.0 '
                  '"seed" %d "turbulence" 2.5 "width" 320 "height" 200)')
        run = '(plug-in-gpu-histogram RUN-INTERACTIVE img (vector bottom) "" 0 FALSE)'
        activate = "(gimp-image-set-selected-layers img (vector bottom))"
    else:
        layer = '(gimp-layer-new img {width} {height} RGB-IMAGE "{name}" 100 LAYER-MODE-NORMAL)'
        plasma = "(plug-in-plasma RUN-NONINTERACTIVE img %s %d 2.5)"
        run = '(plug-in-gpu-histogram RUN-INTERACTIVE img bottom "" 0 FALSE 256 0 0)'
        activate = "(gimp-image-set-active-layer img bottom)"
    return """
(let* ((img (car (gimp-image-new 320 200 RGB)))
       (bottom (car %(bottom)s))
       (top (car %(top)s)))
  (gimp-image-insert-layer img bottom 0 0)
  (gimp-image-insert-layer img top 0 0)
  (gimp-layer-set-offsets top %(top_x)d %(top_y)d)
  %(plasma_bottom)s
  %(plasma_top)s
  %(activate)s
  (gimp-display-new img)
  (gimp-displays-flush)
  (gimp-image-clean-all img)
  %(run)s
  (let ((port (open-output-file %(done)s))) (display "done" port) (close-output-port port)))
""" % dict(bottom=layer.format(name="Plasma", width=320, height=200),
           top=layer.format(name="Top", width=TOP[0], height=TOP[1]),
           top_x=TOP[2], top_y=TOP[3], plasma_bottom=plasma % ("bottom", 7),
           plasma_top=plasma % ("top", 3), activate=activate, run=run, done=done)


SEARCH_TITLE = "^Search Actions$"


def search_actions(env, image, name, tries=3):
    """GIMP's action search in that image window: "/", the name, Return.  GIMP opens the search
    without giving it the keyboard focus (there is no window manager), so the keys go to it by
    its window.  Tried again while the search stays open after Return, which then ran nothing:
    on a loaded machine its results may not be listed yet when Return comes (CI, 2026-12-06).
    Returns how each try went ("no search": it never showed; "not run"; "run") and the windows
    shown before the Return that ran it."""
    went, before = [], set()
    for attempt in range(tries):
        Window(env, image).keys("slash")
        popup = find_window(env, SEARCH_TITLE, 10, visible=True)
        if popup is None:
            went.append("no search")
            continue
        Window(env, popup).type(name)
        time.sleep(0.5 + attempt)  # the search lists its results
        before = set(xdotool(env, "search", "--onlyvisible", "--name", ".")[1])
        Window(env, popup).keys("Return")
        deadline = time.time() + 2.0
        while time.time() < deadline and popup in xdotool(env, "search", "--onlyvisible",
                                                          "--name", SEARCH_TITLE)[1]:
            time.sleep(0.1)
        if popup not in xdotool(env, "search", "--onlyvisible", "--name", SEARCH_TITLE)[1]:
            went.append("run")
            break
        Window(env, popup).keys("Escape")
        went.append("not run")
    return went, before


class Follow:
    """One dialog and its image's window; pid: the dialog's process, where two dialogs show
    tables of the same name (follow-busy-tests.py)."""

    def __init__(self, checks, env, python, dialog, image, work, pid=None):
        self.checks = checks
        self.work = work
        self.env = env
        self.python = python
        self.pid = pid
        self.dialog = Window(env, dialog)
        self.image = Window(env, image)
        self.shown = self.stats()

    def stats(self):
        return a11y.table_rows(self.python, self.env, "statistics table", 10, self.pid)

    def settled(self, before, seconds):
        """The statistics table once it differs from `before` and holds still for a second;
        None when it does not change within `seconds`."""
        deadline = time.time() + seconds
        last = None
        while time.time() < deadline:
            now = self.stats()
            if now and now != before and now == last:
                return now
            last = now
            time.sleep(1.0)
        return None

    def rerun(self, seconds=3.0):
        """Re-run (Alt+E) and the table it leaves."""
        self.dialog.keys("alt+e")
        time.sleep(seconds)
        return self.stats()

    def menu_command(self, name, confirm=False):
        """A menu command by its name through GIMP's action search in the image window, as a
        user may; confirm: Return again in the window the command opens (the precision's
        dithering)."""
        tries, before = search_actions(self.env, self.image.window, name)
        if tries[-1] != "run":
            return False
        deadline = time.time() + 10
        while confirm and time.time() < deadline:
            asking = set(xdotool(self.env, "search", "--onlyvisible", "--name", ".")[1]) - before
            for window in asking:
                time.sleep(0.5)  # its widgets take the keys once it is drawn
                Window(self.env, window).keys("Return")
            confirm = not asking
            time.sleep(0.1)
        return True

    def edit(self, what, action, seconds=20):
        """An edit in the image window (action: a function of no arguments); the dialog must
        count it by itself, equal to a fresh Re-run's."""
        action()
        followed = self.settled(self.shown, seconds)
        again = self.rerun() if followed else None
        if followed is None or followed != again:
            self.shot(what)
        self.checks.ok(followed is not None and followed == again,
                       "%s: the dialog counted it by itself, equal to a fresh Re-run" % what,
                       "followed %s, re-run %s" % (followed and followed[0], again and again[0]))
        self.shown = again or self.stats()
        return followed is not None

    def shot(self, what):
        """The screen, for a step that failed (in the kept scratch folder)."""
        name = "".join(c if c.isalnum() else "-" for c in what)[:40] + ".png"
        subprocess.run(["import", "-window", "root", os.path.join(self.work, name)], env=self.env,
                       timeout=60)

    def drag_selection(self):
        """The rectangle select tool (R) dragged across the middle of the canvas."""
        rc, out = xdotool(self.env, "getwindowgeometry", "--shell", self.image.window)
        geometry = dict(line.split("=", 1) for line in out if "=" in line)
        cx = int(geometry.get("X", 0)) + int(geometry.get("WIDTH", 1024)) // 2
        cy = int(geometry.get("Y", 0)) + int(geometry.get("HEIGHT", 768)) // 2
        self.image.keys("r")
        self.image.move(cx - 90, cy - 50)
        xdotool(self.env, "mousedown", "1")
        for step in range(1, 7):
            self.image.move(cx - 90 + 25 * step, cy - 50 + 12 * step)
        xdotool(self.env, "mouseup", "1")


def find_window(env, name, seconds=120, proc=None, visible=False):
    """The newest window whose title matches `name` (visible: of those shown only)."""
    deadline = time.time() + seconds
    while time.time() < deadline and (proc is None or proc.poll() is None):
        rc, ids = xdotool(env, "search", *(["--onlyvisible"] if visible else []), "--name", name)
        if rc == 0 and ids:
            return ids[-1]
        time.sleep(1.0)
    return None


CHANNELS_RGB = ("Red", "Green", "Blue")
# 4096 bins (Alt+I, then Home, Down, Down in 256, 1024, 4096, 16384, 65536): an 8-bit layer
# counts into 256 of them, a 16-bit one into its own; the call's counts still fit in Script-Fu.
MORE_BINS = ["alt+i", "Home", "Down", "Down"]


def channel_names(table):
    return [row[0].split()[-1] for row in table]


def convert_image(checks, follow):
    """Grayscale, then 16 bits at more bins: the channels shown change with the image."""
    follow.edit("Image > Mode > Grayscale", lambda: follow.menu_command("Grayscale"))
    names = channel_names(follow.shown)
    checks.ok("Gray" in names and not set(CHANNELS_RGB) & set(names),
              "grayscale: the tables show gray, no red, green or blue", str(names))
    follow.dialog.keys(*MORE_BINS)
    follow.shown = follow.rerun(5.0)
    follow.edit("Image > Precision > 16 bit integer (4096 bins)",
                lambda: follow.menu_command("16 bit integer", confirm=True))


def run_steps(checks, env, python, follow, gimp_proc, no_follow, version):
    if no_follow:
        follow.dialog.keys("alt+k")
        time.sleep(1.0)
    follow.image.keys("ctrl+a")
    if not follow.edit("Select All, Edit > Clear", lambda: follow.image.keys("Delete")):
        return
    follow.edit("Edit > Fill with FG Color", lambda: follow.image.keys("ctrl+comma"))
    backend = a11y.labels(python, env, "CPU", ["CPU", "GPU"], 10)
    checks.ok(any("CPU" in line for line in backend),
              "a GPU fault in the count that followed the fill: the backend line says the CPU "
              "counted", str(backend))
    follow.edit("Page Up: the layer above becomes active", lambda: follow.image.keys("Page_Up"))
    follow.edit("the selection changed (rectangle select dragged)", follow.drag_selection)
    follow.edit("Select > None (Shift+Ctrl+A): the whole layer",
                lambda: follow.image.keys("shift+ctrl+a"))
    follow.edit("Layer > Layer to Image Size", lambda: follow.menu_command("Layer to Image Size"))
    convert_image(checks, follow)
    follow.edit("Layer > Delete Layer", lambda: follow.image.keys("alt+l", "d"))
    # Ctrl+W, then Discard Changes (Ctrl+D) in the window that asks, the one that came
    before = set(xdotool(env, "search", "--onlyvisible", "--name", ".")[1])
    follow.image.keys("ctrl+w")
    time.sleep(3.0)
    for window in set(xdotool(env, "search", "--onlyvisible", "--name", ".")[1]) - before:
        xdotool(env, "windowfocus", "--sync", window)
        xdotool(env, "key", "--clearmodifiers", "ctrl+d")
    if version == "3":
        # GIMP 3.0 holds the image of a running call alive, closed or not (the call's arguments
        # keep it): to the plug-in it stays valid, unchanged, until the dialog returns.
        follow.dialog.keys("alt+e")
        survived = a11y.label_starting(python, env, "Measured again.", 20)
        checks.ok(survived is not None and find_window(env, "^%s$" % TITLE, 1) is not None,
                  "the image closed: the dialog survives it, and a Re-run of what GIMP keeps",
                  survived or "no answer")
        return
    closed = a11y.label_starting(python, env, "The image was closed", 20)
    if closed is None:
        follow.shot("image closed")
    checks.ok(closed is not None, "the image closed: the dialog says it no longer follows it",
              closed or "not said")


def close_dialog(checks, env, follow, gimp_proc):
    follow.dialog.keys("alt+c")
    gone = find_window(env, "^%s$" % TITLE, 1) is None
    for _ in range(20):
        if gone:
            break
        time.sleep(1.0)
        gone = find_window(env, "^%s$" % TITLE, 1) is None
    checks.ok(gone, "Close closed the dialog")
    checks.ok(gimp_proc.poll() is None, "GIMP is still running")


def arguments(extra=None):
    """The command line of the follow scripts; extra(parser) adds a script's own options."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--gimp", default="")
    parser.add_argument("--gimp-version", choices=["2", "3"], required=True)
    parser.add_argument("--plugin", required=True)
    parser.add_argument("--outdir", required=True)
    parser.add_argument("--keep", action="store_true")
    if extra is not None:
        extra(parser)
    return parser.parse_args()


def prepare(args, sessionrc, extra_env):
    """A scratch folder with GIMP's profile (the plug-in, `sessionrc`) and the environment;
    (gimp, python, work, env), or None after saying why the test is skipped."""
    gimp = args.gimp or ("gimp-2.10" if args.gimp_version == "2" else "gimp-3.0")
    missing = dialog_tests.which_all(["Xvfb", "xdotool", gimp])
    if missing:
        print("1..0 # SKIP missing: " + ", ".join(missing))
        return None
    python = a11y.python_with_pyatspi()
    if python is None:
        print("1..0 # SKIP no pyatspi: the statistics table is read through at-spi")
        return None
    os.makedirs(args.outdir, exist_ok=True)
    script = os.path.basename(sys.argv[0]).split("-tests")[0]
    work = tempfile.mkdtemp(prefix="%s-gimp%s-" % (script, args.gimp_version), dir=args.outdir)
    env = dict(os.environ)
    for name in ("HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR"):
        env[name] = os.path.join(work, name.lower())
        os.makedirs(env[name], mode=0o700, exist_ok=True)
    env.update(LANG="C.UTF-8", NO_AT_BRIDGE="0", GTK_MODULES="gail:atk-bridge", **extra_env)
    for name in ("LANGUAGE", "LC_ALL", "DBUS_SESSION_BUS_ADDRESS"):
        env.pop(name, None)
    profile = os.path.join(work, "profile")
    gimp_results.start_profile(args.gimp_version, profile)
    env["GIMP%s_DIRECTORY" % args.gimp_version] = profile
    plugin_dir = os.path.join(profile, "plug-ins",
                              "gpu-histogram" if args.gimp_version == "3" else "")
    os.makedirs(plugin_dir, exist_ok=True)
    shutil.copy2(args.plugin, os.path.join(plugin_dir, "gpu-histogram"))
    with open(os.path.join(profile, "sessionrc"), "w") as f:
        f.write(sessionrc)
    return gimp, python, work, env


def bridge_for_plugins_only(env):
    """GIMP 2.10 without GTK 2's atk-bridge, its plug-ins with it: GIMP hands the variables of
    its profile's environ/*.env files to the plug-ins it starts.  GIMP 2.10's own atk-bridge
    has crashed GIMP when the probes asked it (follow-busy-tests.py, docs/RELIABILITY.md); the
    probes read the plug-ins' windows only."""
    environ = os.path.join(env["GIMP2_DIRECTORY"], "environ")
    os.makedirs(environ, exist_ok=True)
    with open(os.path.join(environ, "a11y.env"), "w") as f:
        f.write("GTK_MODULES=%s\nNO_AT_BRIDGE=0\n" % env.pop("GTK_MODULES", "gail:atk-bridge"))
    env["NO_AT_BRIDGE"] = "1"


def start_gimp(gimp, env, work, batch):
    """Xvfb, at-spi and GIMP running `batch`: (GIMP's process, its log, the helpers), or None
    after saying that the test is skipped."""
    xvfb, display = dialog_tests.start_xvfb(env)
    if xvfb is None:
        print("1..0 # SKIP Xvfb did not start")
        return None
    env["DISPLAY"] = display
    helpers = dialog_tests.start_accessibility(env)
    log = open(os.path.join(work, "gimp.log"), "w")
    gimp_proc = subprocess.Popen(
        [gimp, "-n", "-d", "-f", "-s", "--console-messages", "--batch-interpreter",
         "plug-in-script-fu-eval", "-b", batch],
        env=env, stdout=log, stderr=subprocess.STDOUT, cwd=work, start_new_session=True)
    return gimp_proc, log, helpers + [xvfb]


def no_crash(checks, log):
    log.flush()
    text = open(log.name, errors="replace").read()
    checks.ok("crashed" not in text and "terminated" not in text,
              "no plug-in crashed or was terminated (GIMP's log)")


def main():
    args = arguments(lambda parser: parser.add_argument(
        "--no-follow", action="store_true", help="switch following off first: step 1 must fail"))
    checks = dialog_tests.Checks()
    fault = dict(GPUHIST_FAULT="kernel", GPUHIST_FAULT_RUN="4")
    if not gimp_results.gpu_required():  # on the GPU machine the fault strikes the real one
        fault["GPUHIST_TEST_SIMULATED_GPU"] = "1"
    prepared = prepare(args, SESSIONRC, gimp_results.with_huge_pages(fault))
    if prepared is None:
        return SKIP
    gimp, python, work, env = prepared
    if args.gimp_version == "2":
        bridge_for_plugins_only(env)
    started = start_gimp(gimp, env, work, batch_script(args.gimp_version, work))
    if started is None:
        return SKIP
    gimp_proc, log, helpers = started
    try:
        dialog = find_window(env, "^%s$" % TITLE, 240, gimp_proc)
        if not checks.ok(dialog is not None, "the dialog window appeared"):
            return 1
        image = find_window(env, "Untitled", 30, gimp_proc)
        if not checks.ok(image is not None, "the image window is there"):
            return 1
        # beside the image window (1024 x 768 at 0,0), so that the canvas takes the pointer
        checks.ok(place_window(env, dialog, 1030, 0), "the dialog is moved beside the image window")
        time.sleep(3.0)
        follow = Follow(checks, env, python, dialog, image, work)
        checks.ok(bool(follow.shown), "the statistics table is read", str(follow.shown[:1]))
        # on the GPU machine (GPUHIST_TEST_REQUIRE_GPU=1): the count named the GPU
        dialog_tests.check_backend_line(checks, python, env, "the first count")
        run_steps(checks, env, python, follow, gimp_proc, args.no_follow, args.gimp_version)
        close_dialog(checks, env, follow, gimp_proc)
        no_crash(checks, log)
    finally:
        dialog_tests.tear_down(checks, gimp_proc, log, helpers, work, args.keep)
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
