#!/usr/bin/env python3
"""The dialog, seen in GIMP's full UI under Xvfb.

Starts GIMP (2.10 or 3.0) with a throwaway profile that holds the plug-in, and a Script-Fu batch
that makes a plasma image, displays it, marks it clean and runs plug-in-gpu-histogram
interactively.  Then, from outside GIMP as a user would:

  1. finds the dialog window by its title, "GPU Histogram";
  2. saves a screenshot of it (dialog-gimp<N>.png in --outdir);
  3. checks that the histogram was drawn: red, green and blue curve pixels in the window;
  4. checks, through the accessibility bus where it works, the histogram area and a timing
     table with its rows (where at-spi is missing, says so and relies on 3);
  5. (issue 8) picks more bins from the keyboard, as a user would (Alt+I focuses "Bins per
     channel", then the arrow keys), and presses Re-run (Alt+E): 4096 bins in both (five
     channels of an RGB layer since issue 15), the most whose counts each Script-Fu takes back
     (tests/view draws 65536).  The image is 16-bit, so that the bins are its own.  It checks that the histogram is drawn again and,
     through at-spi, the line under the timing table: the bins, what the fastest kernel ran as
     and its time against the read-only ceiling;
  6. presses Close (Alt+C, the button's mnemonic);
  7. checks that GIMP still runs, and that the batch, continuing after the plug-in, found the
     image clean and its pixels unchanged, and that the interactive call returned the Re-run's
     counts: 5 x (red, green, blue, value, luminance) the bins picked, each channel adding up
     to the pixels, equal to a non-interactive call with those bins.

With GPUHIST_TEST_REQUIRE_GPU=1 (tools/device-gimp-check, on the GPU machine), step 4 also
requires the dialog's backend line to name the GPU.

Exit status: 0 passed, 1 failed, 77 skipped (no Xvfb, xdotool, ImageMagick or GIMP).
Output: TAP-like lines for people; the exit status is what meson reads.
"""

import argparse
import glob
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gimp"))
import gimp_results  # noqa: E402  (GPUHIST_TEST_REQUIRE_GPU)

SKIP = 77
TITLE = "GPU Histogram"

# The curves' stroke colours in histogram-view.c (gpuhist_channel_color), as 8-bit RGB.
CURVES = {
    "red": (217, 26, 26),
    "green": (13, 166, 26),
    "blue": (26, 64, 230),
}
# The bins picked in step 5, and the keys that pick them in the combo of 256, 1024, 4096, 16384
# and 65536 (plugin/dialog.c).  The call's counts come back to Script-Fu, which takes no more
# than 49152 values: 2.10's plug-in returns none past that, 3.0's Script-Fu crashes on 65536.
# 4096 in both since issue 15: an RGB layer returns five channels, and five of 16384 bins (81920
# values) crash GIMP 3.0.4's Script-Fu, which takes arrays of fewer than 65536 values only.
MORE_BINS = {"2": (4096, ["Home", "Down", "Down"]), "3": (4096, ["Home", "Down", "Down"])}
PIXELS = 320 * 200

# A curve runs across the whole plot (at least 256 pixels wide, one step per level), so its
# colour shows in that many columns of the window; the channel swatches next to the toggles and
# in the statistics table cover a dozen columns each.
MIN_CURVE_COLUMNS = 150


class Checks:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def ok(self, good, what, detail=""):
        self.n += 1
        if not good:
            self.failed += 1
        print("%s %d - %s%s" % ("ok" if good else "not ok", self.n, what,
                                (": " + detail) if detail else ""), flush=True)
        return good

    def note(self, text):
        print("# " + text, flush=True)


def which_all(names):
    return [n for n in names if shutil.which(n) is None]


def start_xvfb(env):
    """Starts Xvfb on a free display; returns (process, ':N')."""
    read_fd, write_fd = os.pipe()
    proc = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write_fd), "-screen", "0", "1600x1000x24", "-nolisten", "tcp",
         "-noreset"],
        pass_fds=(write_fd,), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write_fd)
    number = b""
    deadline = time.time() + 30
    while time.time() < deadline and not number.endswith(b"\n"):
        chunk = os.read(read_fd, 16)
        if not chunk:
            break
        number += chunk
    os.close(read_fd)
    if not number.strip():
        proc.kill()
        return None, None
    return proc, ":" + number.decode().strip()


def start_accessibility(env):
    """A private session bus and the at-spi bus on it; returns processes, or [] without at-spi."""
    launcher = None
    for path in ("/usr/libexec/at-spi-bus-launcher", "/usr/lib/at-spi2-core/at-spi-bus-launcher"):
        if os.path.exists(path):
            launcher = path
    if launcher is None or shutil.which("dbus-daemon") is None:
        return []
    bus = subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--print-address=1"],
                           env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    address = bus.stdout.readline().decode().strip()
    if not address:
        bus.kill()
        return []
    env["DBUS_SESSION_BUS_ADDRESS"] = address
    spi = subprocess.Popen([launcher, "--launch-immediately"], env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.0)
    return [spi, bus]


def stop(proc, grace=10):
    if proc is None or proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def batch_script(version, work):
    """Script-Fu: a plasma image, displayed, clean; the plug-in interactively; then the checks."""
    def path(name):
        return '"%s"' % os.path.join(work, name).replace("\\", "\\\\").replace('"', '\\"')

    if version == "3":
        new_layer = '(gimp-layer-new img "Plasma" 320 200 RGB-IMAGE 100 LAYER-MODE-NORMAL)'
        # gegl:plasma renders 1024x768 unless told, and the layer grows to that
        plasma = '(gimp-drawable-merge-new-filter layer "gegl:plasma" 0 LAYER-MODE-REPLACE 1.0 ' \
                 '"seed" 7 "turbulence" 2.5 "width" 320 "height" 200)'
        precision = "(gimp-image-convert-precision img PRECISION-U16-NON-LINEAR)"
        export = '(gimp-file-save RUN-NONINTERACTIVE img %s -1)'
        run = '(plug-in-gpu-histogram RUN-INTERACTIVE img (vector layer) "" 5 FALSE)'
        again = '(plug-in-gpu-histogram RUN-NONINTERACTIVE img (vector layer) "" 0 FALSE bins)'
        counts_of = "cadr"  # (n-channels counts backend timings)
    else:
        new_layer = '(gimp-layer-new img 320 200 RGB-IMAGE "Plasma" 100 LAYER-MODE-NORMAL)'
        plasma = '(plug-in-plasma RUN-NONINTERACTIVE img layer 7 2.5)'
        precision = "(gimp-image-convert-precision img PRECISION-U16-GAMMA)"
        export = '(file-png-save-defaults RUN-NONINTERACTIVE img layer %s %s)'
        run = '(plug-in-gpu-histogram RUN-INTERACTIVE img layer "" 5 FALSE 256 0 0)'
        again = '(plug-in-gpu-histogram RUN-NONINTERACTIVE img layer "" 0 FALSE bins 0 0)'
        counts_of = "caddr"  # (n-channels num-counts counts backend num-timings timings)
    dirty = '(car (gimp-image-is-dirty img))'

    def export_to(name):
        return export % ((path(name),) if version == "3" else (path(name), path(name)))

    # The interactive call returns what the dialog last counted: its length, every channel's
    # sum, and whether it equals a non-interactive call with the same bins, go to "counts".
    return """
(define (gh-note file text)
  (let ((port (open-output-file file)))
    (display text port) (newline port) (close-output-port port)))
(define (gh-sums v channels)
  (let ((per (/ (vector-length v) channels)))
    (let outer ((c 0) (sums '()))
      (if (= c channels)
          (reverse sums)
          (let inner ((i 0) (s 0))
            (if (= i per)
                (outer (+ c 1) (cons s sums))
                (inner (+ i 1) (+ s (vector-ref v (+ (* c per) i))))))))))
(define (gh-same? a b)
  (and (= (vector-length a) (vector-length b))
       (let loop ((i 0))
         (cond ((= i (vector-length a)) 1)
               ((= (vector-ref a i) (vector-ref b i)) (loop (+ i 1)))
               (else 0)))))
(let* ((img (car (gimp-image-new 320 200 RGB)))
       (layer (car %(new_layer)s)))
  (gimp-image-insert-layer img layer 0 0)
  %(plasma)s
  %(precision)s
  (gimp-display-new img)
  (gimp-displays-flush)
  %(before)s
  (gimp-image-clean-all img)
  (gh-note %(started)s "started")
  (let* ((shown (%(counts_of)s %(run)s))
         (bins (/ (vector-length shown) 5))
         (counted (%(counts_of)s %(again)s)))
    (gh-note %(dirty_file)s %(dirty)s)
    (gh-note %(counts_file)s
             (list (vector-length shown) (gh-sums shown 5) (gh-same? shown counted))))
  %(after)s
  (gh-note %(done)s "done"))
""" % dict(new_layer=new_layer, plasma=plasma, precision=precision,
           before=export_to("before.png"), started=path("started"), run=run, again=again,
           counts_of=counts_of, dirty_file=path("dirty"), counts_file=path("counts"),
           dirty=dirty, after=export_to("after.png"), done=path("done"))


def xdotool(env, *args):
    result = subprocess.run(["xdotool"] + list(args), env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, timeout=30)
    return result.returncode, result.stdout.decode().split()


def read_ppm(path, env):
    """Reads an image through ImageMagick as binary PPM: (width, height, bytes)."""
    data = subprocess.run(["convert", path, "-depth", "8", "ppm:-"], env=env,
                          stdout=subprocess.PIPE, check=True, timeout=60).stdout
    fields = []
    pos = 0
    while len(fields) < 4:
        while data[pos:pos + 1].isspace():
            pos += 1
        if data[pos:pos + 1] == b"#":
            pos = data.index(b"\n", pos) + 1
            continue
        end = pos
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[pos:end])
        pos = end
    pos += 1
    width, height = int(fields[1]), int(fields[2])
    return width, height, data[pos:pos + width * height * 3]


def curve_columns(width, pixels, colour, tolerance=45):
    """How many columns of the image hold a pixel near this colour."""
    r0, g0, b0 = colour
    columns = set()
    for i in range(0, len(pixels), 3):
        if (abs(pixels[i] - r0) <= tolerance and abs(pixels[i + 1] - g0) <= tolerance
                and abs(pixels[i + 2] - b0) <= tolerance):
            columns.add((i // 3) % width)
    return len(columns)


A11Y_PROBE = r"""
import sys, time
import pyatspi

def walk(node, found, depth=0):
    if node is None or depth > 40:
        return
    try:
        name = node.name
        role = node.getRoleName()
    except Exception:
        return
    if name in ("histogram", "timing table") and name not in found:
        found[name] = node
    if role == "push button" and name.replace("_", "") == "Close" and "close" not in found:
        found["close"] = node
    try:
        for i in range(node.childCount):
            walk(node.getChildAtIndex(i), found, depth + 1)
    except Exception:
        pass

found = {}
deadline = time.time() + float(sys.argv[1])
while time.time() < deadline:
    found = {}
    desktop = pyatspi.Registry.getDesktop(0)
    for i in range(desktop.childCount):
        walk(desktop.getChildAtIndex(i), found)
    if "histogram" in found and "timing table" in found:
        break
    time.sleep(0.5)

print("histogram" if "histogram" in found else "no-histogram")
if "timing table" in found:
    table = found["timing table"]
    rows = table.queryTable().nRows
    cells = []
    for row in range(rows):
        cell = table.queryTable().getAccessibleAt(row, 0)
        cells.append(cell.name if cell is not None else "")
    print("timing-rows %d" % rows)
    print("timing-first-column " + "|".join(cells))
else:
    print("no-timing-table")
"""


# Run in the accessibility bus's Python (pyatspi): prints the text of every label that holds
# one of argv[3:], once one holds argv[2] (or argv[1] seconds are up).
A11Y_LABELS = r"""
import sys, time
import pyatspi

def walk(node, found, depth=0):
    if node is None or depth > 40:
        return
    try:
        name = node.name or ""
        role = node.getRoleName()
    except Exception:
        return
    if role == "label" and any(part in name for part in sys.argv[3:]):
        found.append(name)
    try:
        for i in range(node.childCount):
            walk(node.getChildAtIndex(i), found, depth + 1)
    except Exception:
        pass

deadline = time.time() + float(sys.argv[1])
found = []
while time.time() < deadline:
    found = []
    desktop = pyatspi.Registry.getDesktop(0)
    for i in range(desktop.childCount):
        walk(desktop.getChildAtIndex(i), found)
    if any(sys.argv[2] in f for f in found):
        break
    time.sleep(0.5)
for f in found:
    print("label " + f.replace("\n", " "))
"""


def a11y_labels(python, env, until, holding, seconds=30):
    """The dialog's labels that hold one of `holding`, once one holds `until`, as one line each
    (at-spi, through `python`)."""
    probe = subprocess.run([python, "-c", A11Y_LABELS, str(seconds), until] + list(holding),
                           env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=seconds + 90)
    return [line[len("label "):] for line in probe.stdout.decode().splitlines()
            if line.startswith("label ")]


def a11y_python():
    """A Python that has pyatspi (the distribution's, where a venv's has not)."""
    for python in (sys.executable, "/usr/bin/python3"):
        if python and os.path.exists(python) and subprocess.run(
                [python, "-c", "import pyatspi"], stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL).returncode == 0:
            return python
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--gimp", default="", help="the GIMP binary (gimp-2.10, gimp-3.0)")
    parser.add_argument("--gimp-version", choices=["2", "3"], required=True)
    parser.add_argument("--plugin", required=True, help="the built gpu-histogram executable")
    parser.add_argument("--outdir", required=True, help="where the screenshot goes")
    parser.add_argument("--timeout", type=float, default=240)
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder")
    args = parser.parse_args()

    checks = Checks()
    gimp = args.gimp or ("gimp-2.10" if args.gimp_version == "2" else "gimp-3.0")
    missing = which_all(["Xvfb", "xdotool", "import", "convert", gimp])
    if missing:
        print("1..0 # SKIP missing: " + ", ".join(missing))
        return SKIP
    if not os.access(args.plugin, os.X_OK):
        print("1..0 # SKIP the plug-in was not built: " + args.plugin)
        return SKIP

    os.makedirs(args.outdir, exist_ok=True)
    work = tempfile.mkdtemp(prefix="dialog-gimp%s-" % args.gimp_version, dir=args.outdir)
    env = dict(os.environ)
    for name in ("HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR"):
        env[name] = os.path.join(work, name.lower())
        os.makedirs(env[name], mode=0o700, exist_ok=True)
    env["LANG"] = env.get("GPUHIST_TEST_LANG", "C.UTF-8")
    env.pop("LANGUAGE", None)
    env.pop("LC_ALL", None)
    env["NO_AT_BRIDGE"] = "0"
    env["GTK_MODULES"] = "gail:atk-bridge"  # GTK 2 loads these; GTK 3 has them built in
    env.pop("DBUS_SESSION_BUS_ADDRESS", None)

    profile = os.path.join(work, "profile")
    if args.gimp_version == "3":
        env["GIMP3_DIRECTORY"] = profile
        plugin_dir = os.path.join(profile, "plug-ins", "gpu-histogram")
    else:
        env["GIMP2_DIRECTORY"] = profile
        plugin_dir = os.path.join(profile, "plug-ins")
    os.makedirs(plugin_dir)
    shutil.copy2(args.plugin, os.path.join(plugin_dir, "gpu-histogram"))

    xvfb, display = start_xvfb(env)
    if xvfb is None:
        print("1..0 # SKIP Xvfb did not start")
        return SKIP
    env["DISPLAY"] = display
    helpers = start_accessibility(env)
    python = a11y_python() if helpers else None
    # GTK 2 reaches at-spi only through a module (Debian: libatk-adaptor); GTK 3 has it built in.
    gtk2_bridge = glob.glob("/usr/lib/*/gtk-2.0/modules/libatk-bridge.so") + glob.glob(
        "/usr/lib/gtk-2.0/modules/libatk-bridge.so")
    if args.gimp_version == "2" and not gtk2_bridge:
        python = None

    script = batch_script(args.gimp_version, work)
    with open(os.path.join(work, "batch.scm"), "w") as f:
        f.write(script)
    log = open(os.path.join(work, "gimp.log"), "w")
    command = [gimp, "-n", "-d", "-f", "-s", "--console-messages",
               "--batch-interpreter", "plug-in-script-fu-eval", "-b", script]
    print("# " + " ".join(command[:-1]) + " <batch.scm>", flush=True)
    gimp_proc = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT,
                                 cwd=work, start_new_session=True)
    screenshot = os.path.join(args.outdir, "dialog-gimp%s.png" % args.gimp_version)

    try:
        # 1. The dialog window, by its title.
        window = None
        deadline = time.time() + args.timeout
        why = "timed out"
        while time.time() < deadline and gimp_proc.poll() is None:
            rc, ids = xdotool(env, "search", "--name", "^%s$" % TITLE)
            if rc == 0 and ids:
                window = ids[-1]
                break
            log.flush()
            with open(log.name, errors="replace") as f:
                if "batch command experienced an execution error" in f.read():
                    why = "the Script-Fu batch failed"
                    break
            time.sleep(1.0)
        if gimp_proc.poll() is not None:
            why = "GIMP exited"
        if not checks.ok(window is not None, "the dialog window titled '%s' appeared" % TITLE,
                         "" if window else why):
            return 1
        time.sleep(2.0)  # let it draw
        xdotool(env, "windowfocus", "--sync", window)
        time.sleep(0.5)

        # 2. The screenshot.
        subprocess.run(["import", "-window", window, screenshot], env=env, timeout=60)
        subprocess.run(["import", "-window", "root", os.path.join(work, "screen.png")], env=env,
                       timeout=60)
        checks.ok(os.path.exists(screenshot), "screenshot saved", screenshot)

        # 3. The curves, in the channels' colours.
        width, height, pixels = read_ppm(screenshot, env)
        counts = {name: curve_columns(width, pixels, colour) for name, colour in CURVES.items()}
        checks.note("window %dx%d, columns holding each curve's colour: %s"
                    % (width, height, counts))
        checks.ok(all(n >= MIN_CURVE_COLUMNS for n in counts.values()),
                  "the histogram is drawn in red, green and blue", str(counts))

        # 4. The widgets, by their accessible names.
        if python is None:
            checks.note("SKIP accessible names: no at-spi bus, pyatspi or GTK's atk-bridge "
                        "here; the pixel check above stands for the histogram")
        else:
            probe = subprocess.run([python, "-c", A11Y_PROBE, "20"], env=env,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
            lines = probe.stdout.decode().splitlines()
            checks.note("accessibility: " + " / ".join(lines))
            checks.ok("histogram" in lines, "an accessible widget named 'histogram'")
            rows = [int(l.split()[1]) for l in lines if l.startswith("timing-rows ")]
            first = [l for l in lines if l.startswith("timing-first-column ")]
            checks.ok(bool(rows) and rows[0] >= 7 and bool(first)
                      and "Global atomics" in first[0] and "Total" in first[0],
                      "an accessible 'timing table' with its rows, global atomics to total",
                      first[0] if first else "not found")
            if gimp_results.gpu_required():
                found = a11y_labels(python, env, " SMs, ", ["GPU", " SMs, "])
                device = gimp_results.GPU_LINE.pattern.strip("^$")
                named = any(re.search(device, l) for l in found) and not any(
                    "CPU ran this" in l for l in found)
                gimp_results.note_gpu_line(named)
                checks.ok(named, "the backend line names the GPU (GPUHIST_TEST_REQUIRE_GPU=1)",
                          str(found))

        # 5. More bins (issue 8): the combo from the keyboard, then Re-run.
        bins, keys = MORE_BINS[args.gimp_version]
        xdotool(env, "windowfocus", "--sync", window)
        xdotool(env, "key", "--clearmodifiers", "alt+i")
        time.sleep(0.3)
        for key in keys:
            xdotool(env, "key", "--clearmodifiers", key)
            time.sleep(0.2)
        xdotool(env, "key", "--clearmodifiers", "alt+e")
        strategy = "%d bins a channel; the fastest kernel ran as: " % bins
        if python is None:
            time.sleep(8.0)  # a 320 x 200 layer: the Re-run is long done by then
            checks.note("SKIP the strategy line: no at-spi here; the counts the call returns "
                        "stand for the Re-run")
        else:
            found = [l for l in a11y_labels(python, env, strategy, ["bins a channel"], 60)
                     if strategy in l]
            checks.ok(bool(found) and re.search(
                r"ran as: \S.* It took \d+\.\d\d× the read-only ceiling's time\.",
                found[0]) is not None,
                "after picking %d bins and Re-run: the line under the timing table gives the "
                "bins, the strategy and its time against the read-only ceiling" % bins,
                found[0] if found else "not found")
        time.sleep(1.0)
        again = os.path.join(args.outdir, "dialog-gimp%s-%d.png" % (args.gimp_version, bins))
        subprocess.run(["import", "-window", window, again], env=env, timeout=60)
        width, height, pixels = read_ppm(again, env)
        counts = {name: curve_columns(width, pixels, colour) for name, colour in CURVES.items()}
        checks.ok(all(n >= MIN_CURVE_COLUMNS for n in counts.values()),
                  "at %d bins the histogram is drawn in red, green and blue" % bins, str(counts))

        # 6. Close, from the keyboard.
        xdotool(env, "windowfocus", "--sync", window)
        xdotool(env, "key", "--clearmodifiers", "alt+c")
        closed = False
        deadline = time.time() + 30
        while time.time() < deadline:
            rc, ids = xdotool(env, "search", "--name", "^%s$" % TITLE)
            if not ids:
                closed = True
                break
            if time.time() > deadline - 20:
                xdotool(env, "windowfocus", "--sync", window)
                xdotool(env, "key", "Escape")
            time.sleep(1.0)
        checks.ok(closed, "Close (Alt+C) closed the dialog")

        # 7. GIMP carries on; the image is unchanged; the call returned the Re-run's counts.
        done = os.path.join(work, "done")
        deadline = time.time() + 60
        while time.time() < deadline and not os.path.exists(done) and gimp_proc.poll() is None:
            time.sleep(0.5)
        checks.ok(os.path.exists(done), "the batch went on after the plug-in returned")
        checks.ok(gimp_proc.poll() is None, "GIMP is still running")
        dirty = open(os.path.join(work, "dirty")).read().strip() if os.path.exists(
            os.path.join(work, "dirty")) else "?"
        checks.ok(dirty == "0", "the image is not dirty", "dirty=" + dirty)
        before, after = os.path.join(work, "before.png"), os.path.join(work, "after.png")
        same = False
        if os.path.exists(before) and os.path.exists(after):
            result = subprocess.run(["compare", "-metric", "AE", before, after, "null:"],
                                    env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    timeout=60)
            same = result.stderr.decode().strip().split(" ")[0] == "0"
        checks.ok(same, "the image's pixels are unchanged")
        returned = os.path.join(work, "counts")
        returned = open(returned).read().strip() if os.path.exists(returned) else ""
        numbers = [float(n) for n in re.findall(r"-?\d+(?:\.\d*)?", returned)]
        # red, green, blue, then value and luminance (issue 15)
        checks.ok(numbers == [5 * bins] + [PIXELS] * 5 + [1],
                  "the interactive call returned the Re-run's %d bins a channel, each channel "
                  "adding up to %d pixels, equal to a non-interactive call at %d bins"
                  % (bins, PIXELS, bins), "(length (sums) same): " + returned)
    finally:
        print("1..%d" % checks.n, flush=True)
        stop(gimp_proc, 15)
        log.close()
        for proc in helpers:
            stop(proc)
        stop(xvfb)
        if checks.failed:
            print("# GIMP's log, %s:" % os.path.join(work, "gimp.log"))
            with open(os.path.join(work, "gimp.log"), errors="replace") as f:
                for line in f.read().splitlines()[-40:]:
                    print("#   " + line)
        elif not args.keep:
            shutil.rmtree(work, ignore_errors=True)

    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
