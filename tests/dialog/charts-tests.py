#!/usr/bin/env python3
"""The dialog's charts (issue 29), seen in GIMP's full UI under Xvfb.

GIMP (2.10 or 3.0) makes a 320 x 200 RGB image, gray (128, 128, 128) but for its left 64
columns, which are white, displays it and runs plug-in-gpu-histogram interactively.  Then, from
outside GIMP as a user would:

  1. each chart's tab (Histogram, Waveform, RGB Parade, Vectorscope) clicked: the chart's widget,
     by its accessible name, is there and showing, and the others' are not;
  2. the waveform's read-out under the pointer, at its top left (the white columns' level 255)
     and half-way up its right part (the gray columns' level 128): the image columns and levels
     it names, and its red, green and blue counts, against the counts the image must give (200
     pixels a column at its level);
  3. the parade's read-out in its left third: red only, the same counts;
  4. the vectorscope's read-out at its centre: Cb 128, Cr 128, neutral, and every pixel of the
     image (gray and white are both neutral); with the vectorscope shown, the tables are its
     table's: the line under the timing table names it, and the contention table's layer row
     says 100 % in the busiest cell, one cell used (the histogram's: two levels);
  5. Export (Alt+X) with the vectorscope shown: a PNG of the chart as drawn (a square, the size
     of the widget's shorter side), white at the neutral cell, black nearly everywhere else;
  6. the channel boxes under the charts choose the waveform's channels: with every box checked
     the waveform's PNG is a bright gray where the image's columns have their levels and black
     at a level no pixel has; with Red, Value and Luminance unchecked (clicked) the
     read-out names green and blue alone, with the image's counts, and the PNG is cyan where it
     was gray (no red above the graticule's gray), black where it was black;
  7. CSV export of the chart shown: the waveform's CSV has a row for each column of green and
     blue alone, the vectorscope's a row for each Cr, and every count equals the JSON export's
     count of the same cell (both files parsed), and the image's own counts where they are known
     (200 pixels at a column's level, every pixel in the neutral cell);
  8. the caption under the contention table speaks of the fullest level with the histogram
     shown, of the busiest cell of all the pixels with the vectorscope shown;
  9. Close: the dialog goes, GIMP still runs, no plug-in crashed.

A screenshot of each chart goes to --outdir: charts-gimp<N>-<chart>.png.

Exit status: 0 passed, 1 failed, 77 skipped (no Xvfb, xdotool, ImageMagick, pyatspi or GIMP).
"""

import csv
import importlib.util
import json
import os
import re
import sys
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import a11y  # noqa: E402
from screen import Window, place_window, read_ppm  # noqa: E402


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, path))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


dialog_tests = load("dialog_tests", "dialog-tests.py")
follow_tests = load("follow_tests", "follow-tests.py")

SKIP = 77
TITLE = "GPU Histogram"
WIDTH, HEIGHT, WHITE_COLUMNS = 320, 200, 64
# The tabs, and the accessible names of their charts' widgets (plugin/ui/chart*.c).
CHARTS = [("Histogram", "histogram"), ("Waveform", "waveform"), ("RGB Parade", "parade"),
          ("Vectorscope", "vectorscope")]

# Each node named one of argv[2:]: its role, screen rectangle and whether it is showing.
NODES = a11y.WALK + r"""
found = []
def visit(node, name, role):
    if name in sys.argv[2:]:
        e = node.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
        showing = node.getState().contains(pyatspi.STATE_SHOWING)
        found.append("node %d %d %d %d %d %s|%s" % (e.x, e.y, e.width, e.height, showing,
                                                    role, name))
deadline = time.time() + float(sys.argv[1])
while time.time() < deadline and not found:
    walk_desktop(visit)
    time.sleep(0.3)
for line in found:
    print(line)
"""


def nodes(python, env, names, seconds=20):
    """[(name, role, (x, y, width, height), showing)] of the nodes with these names."""
    found = []
    for line in a11y._probe(python, env, NODES, seconds, *names):
        if line.startswith("node "):
            fields = line[len("node "):].split(" ", 5)
            role, name = fields[5].split("|", 1)
            found.append((name, role, tuple(int(v) for v in fields[:4]), fields[4] == "1"))
    return found


def batch_script(version, work):
    if version == "3":
        layer = '(gimp-layer-new img "Gray" %d %d RGB-IMAGE 100 LAYER-MODE-NORMAL)'
        run = '(plug-in-gpu-histogram RUN-INTERACTIVE img (vector layer) "" 0 FALSE)'
    else:
        layer = '(gimp-layer-new img %d %d RGB-IMAGE "Gray" 100 LAYER-MODE-NORMAL)'
        run = '(plug-in-gpu-histogram RUN-INTERACTIVE img layer "" 0 FALSE 256 0 0)'
    return """
(let* ((img (car (gimp-image-new %(w)d %(h)d RGB)))
       (layer (car %(layer)s)))
  (gimp-image-insert-layer img layer 0 0)
  (gimp-context-set-foreground '(128 128 128))
  (gimp-drawable-edit-fill layer FILL-FOREGROUND)
  (gimp-image-select-rectangle img CHANNEL-OP-REPLACE 0 0 %(white)d %(h)d)
  (gimp-context-set-foreground '(255 255 255))
  (gimp-drawable-edit-fill layer FILL-FOREGROUND)
  (gimp-selection-none img)
  (gimp-display-new img)
  (gimp-displays-flush)
  (gimp-image-clean-all img)
  %(run)s
  (let ((port (open-output-file "%(done)s"))) (display "done" port) (close-output-port port)))
""" % dict(w=WIDTH, h=HEIGHT, white=WHITE_COLUMNS, layer=layer % (WIDTH, HEIGHT), run=run,
           done=os.path.join(work, "done"))


class Charts:
    def __init__(self, checks, env, python, dialog, work, shots):
        self.checks, self.env, self.python, self.work = checks, env, python, work
        self.shots = shots  # "DIR/charts-gimpN": a screenshot a chart, DIR/charts-gimpN-NAME.png
        self.dialog = Window(env, dialog)

    def show(self, tab, widget):
        """Clicks the tab; the chart's widget shows, the other charts' do not.  Returns the
        widget's rectangle, or None."""
        tabs = [n for n in nodes(self.python, self.env, [tab]) if n[1] == "page tab"]
        if not tabs:
            self.checks.ok(False, "the tab '%s' is there" % tab)
            return None
        x, y, w, h = tabs[0][2]
        self.dialog.click(x + w // 2, y + h // 2)
        time.sleep(1.0)
        self.dialog.grab("%s-%s.png" % (self.shots, widget.replace(" ", "-")))
        found = nodes(self.python, self.env, [name for _, name in CHARTS])
        shown = [n for n in found if n[3] and n[2][2] > 0 and n[2][3] > 0]
        self.checks.ok([n[0] for n in shown] == [widget],
                       "%s: its chart '%s' shows, alone" % (tab, widget),
                       str([(n[0], n[2], n[3]) for n in found]))
        return shown[0][2] if shown and shown[0][0] == widget else None

    def read_out(self, area, dx, dy, start):
        """Moves the pointer across the chart (area: its rectangle) to (dx, dy) in it and
        returns the read-out starting `start`."""
        x, y, w, h = area
        for step in range(4):
            self.dialog.move(x + w // 2 + (dx - w // 2) * step // 3,
                             y + h // 2 + (dy - h // 2) * step // 3)
        time.sleep(0.5)
        return a11y.label_starting(self.python, self.env, start, 10)


# "Columns 0–1, level 255: Red 400, Green 400, Blue 400" (levels a–b where a pixel holds more)
WAVEFORM_TEXT = re.compile(r"^Columns? (\d+)(?:–(\d+))?, levels? (\d+)(?:–(\d+))?:(.*)$")


def expected_waveform(c0, c1, b0, b1):
    """The pixels of image columns c0..c1 at levels b0..b1, a channel: 200 a column whose level
    (255 white, 128 gray) is among them."""
    total = 0
    for column in range(c0, c1 + 1):
        level = 255 if column < WHITE_COLUMNS else 128
        total += HEIGHT if b0 <= level <= b1 else 0
    return total


def row_of(level, height):
    """The first row from the top of a chart `height` pixels tall that draws `level` of 256
    (gpuhist.h: row height - 1 - y draws bins floor (y * 256 / height) on)."""
    return height - 1 - (level * height + 255) // 256


def check_waveform_text(checks, what, text, channels, level, counted=None):
    """The read-out at a spot of level `level`: it names `channels`, and those of `counted`
    (every one by default) have the image's pixels there."""
    counted = channels if counted is None else counted
    m = WAVEFORM_TEXT.match(text or "")
    if not checks.ok(m is not None, "%s: the read-out names columns, levels and counts" % what,
                     str(text)):
        return
    c0, b0 = int(m.group(1)), int(m.group(3))
    c1 = int(m.group(2)) if m.group(2) else c0
    b1 = int(m.group(4)) if m.group(4) else b0
    counts = dict((name, float(value)) for name, value in
                  re.findall(r"(\w+) (\d+(?:\.\d+)?)", m.group(5)))
    want = expected_waveform(c0, c1, b0, b1)
    checks.ok(want > 0 and b0 <= level <= b1 and sorted(counts) == sorted(channels)
              and all(counts[c] == want for c in counted),
              "%s: %s named, %s each %d pixels, as the image has in columns %d–%d at levels "
              "%d–%d" % (what, "/".join(channels), "/".join(counted), want, c0, c1, b0, b1),
              text)


def check_waveforms(checks, charts):
    rgb = ["Red", "Green", "Blue", "Value", "Luminance"]  # every channel box checked
    area = charts.show("Waveform", "waveform")
    if area is not None:
        check_waveform_text(checks, "waveform, top left",
                            charts.read_out(area, 2, row_of(255, area[3]), "Column"), rgb, 255)
        # gray 128's luminance is 128 by GIMP 2.10's rule, not by GIMP 3.0's (linear light)
        check_waveform_text(checks, "waveform, level 128 on the right",
                            charts.read_out(area, area[2] * 3 // 4, row_of(128, area[3]),
                                            "Column"), rgb, 128, rgb[:4])
    area = charts.show("RGB Parade", "parade")
    if area is not None:
        check_waveform_text(checks, "parade, red's panel, top left",
                            charts.read_out(area, 1, row_of(255, area[3]), "Column"), ["Red"],
                            255)


def check_vectorscope(checks, charts):
    """The read-out at the centre; returns the widget's rectangle, or None."""
    area = charts.show("Vectorscope", "vectorscope")
    if area is None:
        return None
    w, h = area[2], area[3]
    text = None
    # the neutral cell is one pixel of an odd-sided square or a few of a larger one: look round
    for dx, dy in [(0, 0), (0, -1), (-1, 0), (-1, -1), (1, 0), (0, 1), (1, 1), (1, -1),
                   (-1, 1)]:
        text = charts.read_out(area, w // 2 + dx, h // 2 + dy, "Cb ")
        if text is not None and text.startswith("Cb 128, Cr 128:"):
            break
    m = re.match(r"^Cb 128, Cr 128: neutral; (\d+) pixels$", text or "")
    checks.ok(m is not None and int(m.group(1)) == WIDTH * HEIGHT,
              "vectorscope, centre: Cb 128, Cr 128, neutral, every one of the %d pixels"
              % (WIDTH * HEIGHT), str(text))
    check_shown_tables(checks, charts)
    return area


def check_shown_tables(checks, charts):
    """With the vectorscope shown, the tables are its table's: the line under the timing table
    says what the table is, and the contention table's layer row has the vectorscope's
    contention (every pixel of the image, white or gray, in the one neutral cell: 100 %, one
    cell used), where the histogram's has two levels."""
    line = a11y.label_starting(charts.python, charts.env, "The vectorscope's table", 10)
    checks.ok(line is not None and line.startswith("The vectorscope's table: 256 × 256 cells."),
              "vectorscope shown: the line under the timing table names its table", str(line))
    rows = a11y.table_rows(charts.python, charts.env, "contention table", 10)
    layer = rows[0] if rows else []
    checks.ok(len(layer) > 2 and layer[1] == "100 %" and layer[2] == "1",
              "vectorscope shown: the contention table's layer row is its table's (100 %, "
              "1 cell used)", str(layer))


def export(checks, charts, name):
    """Export (Alt+X) into WORK/name, the format by its extension; returns the path, or None."""
    path = os.path.join(charts.work, name)
    charts.dialog.keys("alt+x")
    chooser = follow_tests.find_window(charts.env, "^Export the Histogram$", 20, visible=True)
    if not checks.ok(chooser is not None, "Export opened its file chooser (%s)" % name):
        return None
    time.sleep(1.0)
    Window(charts.env, chooser).keys("ctrl+a")
    Window(charts.env, chooser).type(path)
    Window(charts.env, chooser).keys("Return")
    deadline = time.time() + 20
    while time.time() < deadline and not os.path.exists(path):
        time.sleep(0.5)
    time.sleep(0.5)
    return path if checks.ok(os.path.exists(path), "Export wrote %s" % path) else None


def check_export(checks, charts, area):
    """Export with the vectorscope shown, into a PNG of the chart."""
    path = export(checks, charts, "chart.png")
    if path is None:
        return
    with open(path, "rb") as f:
        checks.ok(f.read(8) == b"\x89PNG\r\n\x1a\n", "the file is a PNG")
    width, height, pixels = read_ppm(path, charts.env)
    side = min(area[2], area[3])
    checks.ok((width, height) == (side, side),
              "the PNG is the vectorscope as drawn: %d x %d" % (side, side),
              "%d x %d" % (width, height))
    if width != height or width < 16:
        return
    centre = (128 * width + width // 2) // 256  # cell 128's pixel (gpuhist.h)
    at = ((height - 1 - centre) * width + centre) * 3
    dark = sum(1 for i in range(0, len(pixels), 3) if max(pixels[i:i + 3]) < 100)
    checks.ok(tuple(pixels[at:at + 3]) == (255, 255, 255) and dark > 0.8 * width * height,
              "the PNG shows the image's one colour, neutral, white at the centre on black",
              "centre %s, dark pixels %d of %d" % (tuple(pixels[at:at + 3]), dark,
                                                   width * height))


def waveform_spots(width, height):
    """{what: (x, y)} in a waveform PNG width x height: the white columns' level 255 (the top
    row), the gray columns' level 128, and level 200 of the gray columns, which no pixel has."""
    left = WHITE_COLUMNS * width // WIDTH // 2
    right = (WHITE_COLUMNS + WIDTH) * width // WIDTH // 2
    return {"white columns, level 255": (left, row_of(255, height)),
            "gray columns, level 128": (right, row_of(128, height)),
            "gray columns, level 200 (empty)": (right, row_of(200, height))}


def waveform_png(checks, charts, name, lit):
    """Exports the waveform as a PNG and checks its pixels at waveform_spots: lit(pixel) where
    the image has pixels, black at the empty level."""
    path = export(checks, charts, name)
    if path is None:
        return
    width, height, pixels = read_ppm(path, charts.env)
    for what, (x, y) in waveform_spots(width, height).items():
        at = (y * width + x) * 3
        pixel = tuple(pixels[at:at + 3])
        want = (0, 0, 0) if "empty" in what else lit
        checks.ok(pixel == want if isinstance(want, tuple) else want(pixel),
                  "%s: the waveform's pixel at %s (%d, %d) is %s"
                  % (name, what, x, y, want if isinstance(want, tuple) else want.__doc__),
                  str(pixel))


def white(pixel):
    """gray, bright: the five channels' equal counts added"""
    return pixel[0] == pixel[1] == pixel[2] >= 200


def cyan(pixel):
    """green and blue alike (their counts are), bright; red no more than the graticule's gray"""
    return pixel[1] == pixel[2] >= 128 and pixel[0] <= 96


def check_channel_boxes(checks, charts):
    """The channel boxes choose the waveform's channels: its PNG and its read-out."""
    area = charts.show("Waveform", "waveform")
    if area is None:
        return
    waveform_png(checks, charts, "waveform-all.png", white)
    names = ["\u25a0 " + c for c in ("Red", "Value", "Luminance")]  # the boxes' names
    boxes = a11y.widgets(charts.python, charts.env, names)
    for name in names:
        if checks.ok(name in boxes, "the channel box '%s' is there" % name, str(boxes)):
            x, y, w, h = boxes[name][:4]
            charts.dialog.click(x + min(8, w // 2), y + h // 2)
            time.sleep(0.5)
    boxes = a11y.widgets(charts.python, charts.env, names)
    checks.ok(all(name in boxes and not boxes[name][4] for name in names),
              "Red, Value and Luminance unchecked", str(boxes))
    check_waveform_text(checks, "waveform with Red, Value and Luminance unchecked",
                        charts.read_out(area, 2, row_of(255, area[3]), "Column"),
                        ["Green", "Blue"], 255)
    waveform_png(checks, charts, "waveform-green-blue.png", cyan)


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.reader(f))


def check_csv_rows(checks, what, rows, header, cells_of):
    """Each row's counts against cells_of(row): the JSON's list for that row, or None."""
    if not checks.ok(rows and rows[0][:len(header)] == header,
                     "%s CSV: its header starts %s" % (what, ",".join(header)),
                     str(rows[0][:6] if rows else None)):
        return
    differ = [r[:len(header)] for r in rows[1:]
              if cells_of(r) is None or [float(v) for v in r[len(header):]] != cells_of(r)]
    checks.ok(len(rows) > 1 and not differ,
              "%s CSV: %d rows, each row's counts the JSON's" % (what, len(rows) - 1),
              "rows that differ: %s" % differ[:5])


def check_csv_export(checks, charts):
    """With the waveform shown (green and blue checked): its CSV against the JSON export."""
    json_path = export(checks, charts, "counts.json")
    csv_path = export(checks, charts, "waveform.csv")
    if json_path is None or csv_path is None:
        return None
    with open(json_path) as f:
        report = json.load(f)
    waveform = report.get("waveform", {})
    names = waveform.get("channels", [])
    counts = waveform.get("counts", [])
    rows = read_csv(csv_path)

    def cells_of(row):
        if row[0] not in names or int(row[1]) >= len(counts[names.index(row[0])]):
            return None
        return [float(v) for v in counts[names.index(row[0])][int(row[1])]]

    check_csv_rows(checks, "waveform", rows, ["channel", "column"], cells_of)
    channels = sorted(set(r[0] for r in rows[1:]))
    checks.ok(channels == ["blue", "green"] and len(rows) - 1 == 2 * WIDTH,
              "waveform CSV: the channels drawn (green, blue), a row for each of the %d columns"
              % WIDTH, "%s, %d rows" % (channels, len(rows) - 1))
    first = rows[1] if len(rows) > 1 else []
    checks.ok(len(first) == 2 + 256 and float(first[2 + 255]) == HEIGHT
              and sum(float(v) for v in first[2:]) == HEIGHT,
              "waveform CSV: column 0 has its %d pixels at level 255" % HEIGHT, str(first[:3]))
    return report


def check_vectorscope_csv(checks, charts, report):
    """With the vectorscope shown: its CSV, a row a Cr, against the JSON export."""
    csv_path = export(checks, charts, "vectorscope.csv")
    if csv_path is None or report is None:
        return
    counts = report.get("vectorscope", {}).get("counts", [])
    rows = read_csv(csv_path)
    check_csv_rows(checks, "vectorscope", rows, ["cr"],
                   lambda r: [float(v) for v in counts[int(r[0])]]
                   if int(r[0]) < len(counts) else None)
    checks.ok(len(rows) == 257 and all(len(r) == 257 for r in rows)
              and float(rows[1 + 128][1 + 128]) == WIDTH * HEIGHT,
              "vectorscope CSV: 256 rows of 256 counts, every pixel in the neutral cell",
              "%d rows" % len(rows))


def check_caption(checks, charts, start, words):
    text = a11y.label_starting(charts.python, charts.env, start, 10)
    checks.ok(text is not None and all(w in text for w in words),
              "the contention table's caption: '%s…' with %s" % (start, words), str(text))


def check_titles(checks, charts, chart, wanted):
    """The contention table's column titles name what the chart shown counts in: bins or
    cells."""
    titles = a11y.table_headers(charts.python, charts.env, "contention table")
    checks.ok(all(w in titles for w in wanted),
              "the contention table's titles with %s shown: %s" % (chart, wanted), str(titles))


def main():
    args = follow_tests.arguments()
    checks = dialog_tests.Checks()
    if dialog_tests.which_all(["convert"]):
        print("1..0 # SKIP missing: convert (ImageMagick)")
        return SKIP
    prepared = follow_tests.prepare(args, follow_tests.SESSIONRC,
                                    follow_tests.gimp_results.with_huge_pages({}))
    if prepared is None:
        return SKIP
    gimp, python, work, env = prepared
    if args.gimp_version == "2":
        follow_tests.bridge_for_plugins_only(env)
    started = follow_tests.start_gimp(gimp, env, work, batch_script(args.gimp_version, work))
    if started is None:
        return SKIP
    gimp_proc, log, helpers = started
    try:
        dialog = follow_tests.find_window(env, "^%s$" % TITLE, 240, gimp_proc)
        if not checks.ok(dialog is not None, "the dialog window appeared"):
            return 1
        checks.ok(place_window(env, dialog, 0, 0), "the dialog is moved to the screen's corner")
        time.sleep(3.0)
        charts = Charts(checks, env, python, dialog, work,
                        os.path.join(args.outdir, "charts-gimp%s" % args.gimp_version))
        # on the GPU machine (GPUHIST_TEST_REQUIRE_GPU=1): the count named the GPU
        dialog_tests.check_backend_line(checks, python, env, "the count")
        charts.show("Histogram", "histogram")
        check_caption(checks, charts, "Busiest bin: ", ["fullest level"])
        check_titles(checks, charts, "the histogram", ["Busiest bin", "Bins used"])
        check_waveforms(checks, charts)
        check_channel_boxes(checks, charts)
        report = check_csv_export(checks, charts)
        area = check_vectorscope(checks, charts)
        if area is not None:
            check_caption(checks, charts, "Busiest cell: ", ["all the pixels", "Cb and Cr"])
            check_titles(checks, charts, "the vectorscope", ["Busiest cell", "Cells used"])
            check_export(checks, charts, area)
            check_vectorscope_csv(checks, charts, report)
        follow = follow_tests.Follow.__new__(follow_tests.Follow)
        follow.dialog = charts.dialog
        follow_tests.close_dialog(checks, env, follow, gimp_proc)
        follow_tests.no_crash(checks, log)
    finally:
        dialog_tests.tear_down(checks, gimp_proc, log, helpers, work, args.keep)
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
