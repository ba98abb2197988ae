"""What the dialog shows of what it counted (issue 15), for dialog-tests.py.

The layer is RGBA with its left half cleared to transparent, under a feathered ellipse (the
batch in dialog-tests.py).  Through at-spi and the screen, as a user reads it:

  - the line under the headline says what was counted, and its numbers are the selection's:
    its coverage total (checked at the end against gimp-selection-value over the bounds) and
    the pixels in its bounds; after Re-run with "Read from: The visible image", the same numbers
    for the visible image;
  - the value and luminance curves are drawn, and go and come back with their check boxes;
  - a drag across the plot selects a range: its title names the bins, and its table has a row
    for each channel; Escape clears it;
  - the statistics table's Shadows and Highlights columns.

The range's and the clipping's numbers are checked, once the dialog has returned its counts,
against a computation here from those counts (check_against_counts).
"""

import os
import re
import time

import a11y

# The value and luminance curves' stroke colours (histogram-view.c, gpuhist_channel_color).
DERIVED_CURVES = {"value": (153, 51, 191), "luminance": (242, 158, 0)}
CHECK_BOXES = {"value": "\u25a0 Value", "luminance": "\u25a0 Luminance"}
MIN_CURVE_COLUMNS = 150
CHANNELS = ["Red", "Green", "Blue", "Alpha", "Value", "Luminance"]

COUNTED = re.compile(r"^The selection(?P<visible> of the visible image)?: (?P<weight>\d+(?:\.\d)?) "
                     r"of the (?P<pixels>\d+) pixels in its bounds, weighted by coverage and "
                     r"alpha$")
RANGE_TITLE = re.compile(r"^Bins (\d+)\u2013(\d+) of (\d+)$")


def number(cell):
    """A table cell's number ("28.41 %", "1700.48"); NaN when there is none ("\u2014")."""
    text = re.sub(r"[^0-9.\-]", "", cell)
    return float(text) if text not in ("", "-", ".") else float("nan")


def range_expected(counts, lo, hi):
    """A channel's range by the definitions (GIMP's dockable): (pixels, share in %, mean,
    median, standard deviation); None for the last three when the range is empty."""
    weight = sum(counts[lo:hi + 1])
    total = sum(counts)
    if weight <= 0:
        return (0.0, 0.0, None, None, None)
    mean = sum(b * counts[b] for b in range(lo, hi + 1)) / weight
    dev = (sum(counts[b] * (b - mean) ** 2 for b in range(lo, hi + 1)) / weight) ** 0.5
    running, median = 0.0, None
    for b in range(lo, hi + 1):
        running += counts[b]
        if median is None and 2 * running > weight:
            median = b
    return (weight, 100.0 * weight / total, mean, median, dev)


class Counting:
    def __init__(self, checks, window, python, env, work, timeline):
        self.checks = checks
        self.timeline = timeline  # when each Re-run was pressed and read (timeline.py)
        self.window = window
        self.python = python
        self.env = env
        self.work = work
        self.counted = []  # the counted lines read: (visible, weight, pixels)
        self.range = None  # (lo, hi, bins, rows) of the range read
        self.stats = []    # the statistics table's rows after the last Re-run

    def keyboard_ready(self, seconds=60):
        """Waits until GIMP takes keys: Alt+L (Logarithmic) until its box changes, then back.
        Right after the dialog appears, GTK 2's at-spi bridge drops the first keys."""
        name = "Logarithmic"
        deadline = time.time() + seconds
        before = a11y.widgets(self.python, self.env, [name]).get(name)
        while before is not None and time.time() < deadline:
            self.window.keys("alt+l")
            time.sleep(0.5)
            now = a11y.widgets(self.python, self.env, [name], 5).get(name)
            if now is not None and now[4] != before[4]:
                self.window.keys("alt+l")
                return True
        return False

    def read_counted(self, visible=False):
        start = "The selection of the visible image:" if visible else "The selection:"
        line = a11y.label_starting(self.python, self.env, start, 60)
        match = COUNTED.match(line or "")
        good = match is not None and bool(match.group("visible")) == visible
        self.checks.ok(good, "the line under the headline says what was counted: %s"
                       % ("the selection of the visible image" if visible else "the selection"),
                       line or "not found")
        if good:
            self.counted.append((visible, float(match.group("weight")),
                                 int(match.group("pixels"))))

    def toggle_derived(self):
        """Each of value and luminance: drawn; its box clicked, gone; clicked again, back."""
        boxes = a11y.widgets(self.python, self.env, list(CHECK_BOXES.values()))
        for name, colour in DERIVED_CURVES.items():
            box = boxes.get(CHECK_BOXES[name])
            shots = []
            if box is not None:
                x, y, w, h = box[:4]
                shots.append(self.window.columns(os.path.join(self.work, name + "-1.png"), colour))
                for i in (2, 3):
                    self.window.click(x + min(8, w // 2), y + h // 2)
                    time.sleep(1.0)
                    shots.append(self.window.columns(
                        os.path.join(self.work, "%s-%d.png" % (name, i)), colour))
            self.checks.ok(len(shots) == 3 and shots[0] >= MIN_CURVE_COLUMNS and shots[1] < 30
                           and shots[2] >= MIN_CURVE_COLUMNS,
                           "the %s curve is drawn, goes when its check box is unticked and "
                           "comes back when it is ticked" % name,
                           "columns of its colour: %s" % shots if shots else "no check box")

    def choose(self, mnemonic, keys, entry, tries=5):
        """Picks a combo box's entry from the keyboard (its label's mnemonic, then keys),
        until at-spi shows a combo box of that name: GTK 2's at-spi bridge drops a key now and
        then.  Escape first on a retry closes a popup that a dropped Alt may have opened."""
        for attempt in range(tries):
            if attempt:
                self.window.keys("Escape")
            self.window.keys(mnemonic, *keys)
            if entry in a11y.widgets(self.python, self.env, [entry], 3):
                return True
        return False

    def click_button(self, name):
        button = a11y.widgets(self.python, self.env, [name]).get(name)
        if button is not None:
            self.window.click(button[0] + button[2] // 2, button[1] + button[3] // 2)
        return button is not None

    def rerun_visible(self):
        """Read from: The visible image (Alt+D, Down), Re-run; then the drawable again."""
        picked = self.choose("alt+d", ["Down"], "The visible image")
        pressed = time.time()
        self.checks.ok(picked and self.click_button("Re-run"),
                       "Read from: The visible image picked (Alt+D, Down), Re-run pressed")
        self.read_counted(visible=True)
        self.timeline.add("rerun-visible", pressed)
        self.checks.ok(self.choose("alt+d", ["Up"], "The drawable"),
                       "Read from: The drawable picked again (Alt+D, Up)")

    def compare(self):
        """Compare with flat and noisy on the weighted run (issue 15: it keeps working there):
        the contention table gets the flat and the noise rows, each with its times."""
        rows = []
        pressed = time.time()
        # From the keyboard (its mnemonic): on a laptop's screen the button lies below the
        # tables' column's fold, and focusing it scrolls it into view.
        name = "Compare with flat and noisy"
        if name in a11y.widgets(self.python, self.env, [name]):
            self.window.keys("alt+f")
            deadline = time.time() + 60
            while time.time() < deadline and len(rows) < 3:
                time.sleep(1.0)
                rows = a11y.table_rows(self.python, self.env, "contention table", 5)
        self.timeline.add("compare", pressed)
        names = [r[0] for r in rows]
        timed = all(re.search(r"\d ms$", r[3]) and re.search(r"\d ms$", r[5]) for r in rows)
        self.checks.ok(len(rows) == 3 and names[1:] == ["Flat", "Uniform noise"] and timed,
                       "Compare with flat and noisy on the selection's weighted run: the flat "
                       "and the noise rows, timed", "%s" % rows)

    def select_range(self, screenshot):
        """Drags across the plot from a third to about a half of its width; reads the range's
        title and table, and the statistics table, and saves `screenshot`; then Escape must
        clear the range."""
        view = a11y.widgets(self.python, self.env, ["histogram"]).get("histogram")
        rows, title = [], None
        if view is not None:
            x, y, w, h = view[:4]
            self.window.drag(x + w // 3, x + w // 2, y + h // 2)
            time.sleep(1.0)
            rows = a11y.table_rows(self.python, self.env, "range table")
            title = next((l for l in a11y.labels(self.python, self.env, "Bins ", ["Bins "], 10)
                          if RANGE_TITLE.match(l)), None)
        self.stats = a11y.table_rows(self.python, self.env, "statistics table")
        if view is not None:
            # the pointer onto the headline, which has no tooltip, before the screenshot
            self.window.move(view[0] + 5, max(view[1] - 100, 0))
            time.sleep(1.0)
        self.window.grab(screenshot)
        names = [r[0].split()[-1] for r in rows]
        good = title is not None and names == CHANNELS
        self.checks.ok(good, "a drag across the plot selects a range: its title, and a row for "
                       "each of the six channels", "%s %s" % (title, rows))
        if good:
            lo, hi, bins = (int(v) for v in RANGE_TITLE.match(title).groups())
            self.range = (lo, hi, bins, rows)
        self.window.keys("Escape")
        time.sleep(1.0)
        left = a11y.table_rows(self.python, self.env, "range table", 5)
        self.checks.ok(not left and a11y.widgets(self.python, self.env, ["histogram"], 5),
                       "Escape on the plot clears the range and leaves the dialog open",
                       "rows left: %d" % len(left))

    def check_against_counts(self, vector, bins, coverage, bounds):
        """The numbers read against the counts the call returned (6 x bins, the last Re-run's),
        the selection's coverage and its bounds (x1, y1, x2, y2)."""
        channels = [vector[c * bins:(c + 1) * bins] for c in range(6)] if len(vector) == 6 * bins \
            else []
        pixels = (bounds[2] - bounds[0]) * (bounds[3] - bounds[1]) if len(bounds) == 4 else -1
        self.checks.ok(bool(channels) and abs(sum(channels[3]) - coverage) <= 1.0,
                       "alpha counts the selection's coverage, %.1f (gimp-selection-value)"
                       % coverage, "alpha %.2f" % sum(channels[3]) if channels else "no counts")
        for visible, weight, in_bounds in self.counted:
            self.checks.ok(abs(weight - coverage) <= 1.0 and in_bounds == pixels,
                           "the counted line's %s: %.1f of %d pixels, the coverage and the bounds'"
                           " pixels" % ("visible image" if visible else "layer", weight, in_bounds),
                           "coverage %.2f, %d pixels in the bounds" % (coverage, pixels))
        self.check_range(channels, bins)
        self.check_clipping(channels)

    def check_range(self, channels, bins):
        if self.range is None or not channels or self.range[2] != bins:
            self.checks.ok(False, "the range's statistics against the counts",
                           "no range read, or not at %d bins" % bins)
            return
        lo, hi, _, rows = self.range
        good, detail = True, []
        for c, row in enumerate(rows):
            want = range_expected(channels[c], lo, hi)
            got = [number(cell) for cell in row[1:6]]
            detail.append("%s %s / %s" % (CHANNELS[c], row[1:6], ["%.3f" % v for v in want
                                                                  if v is not None]))
            good = good and abs(got[0] - want[0]) <= 0.051 and abs(got[1] - want[1]) <= 0.0051
            if want[2] is None:  # nothing in the range: no mean, median or deviation
                good = good and all(v != v for v in got[2:])
            else:
                good = good and abs(got[2] - want[2]) <= 0.0051 and got[3] == want[3] \
                    and abs(got[4] - want[4]) <= 0.0051
        good = good and any(range_expected(ch, lo, hi)[2] is not None for ch in channels)
        self.checks.ok(good, "the range's pixels, share, mean, median and standard deviation, "
                       "bins %d-%d, equal those computed from the counts returned" % (lo, hi),
                       "; ".join(detail))

    def check_clipping(self, channels):
        good, detail = len(self.stats) == 6 and len(channels) == 6, []
        for c, row in enumerate(self.stats if good else []):
            total = sum(channels[c])
            want = (100.0 * channels[c][0] / total, 100.0 * channels[c][-1] / total)
            got = (number(row[9]), number(row[10]))
            detail.append("%s %s %s / %.3f %.3f" % (CHANNELS[c], row[9], row[10], *want))
            good = good and abs(got[0] - want[0]) <= 0.0051 and abs(got[1] - want[1]) <= 0.0051
        self.checks.ok(good, "the statistics table's Shadows and Highlights are each channel's "
                       "share in its lowest and highest bin", "; ".join(detail))
