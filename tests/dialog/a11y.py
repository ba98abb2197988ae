"""Reading the dialog through the accessibility bus (at-spi), for dialog-tests.py.

Each probe runs in a Python that has pyatspi (a11y_python: the distribution's, where a venv's
has not), as a child process on the test's private session bus, and prints what it found, one
thing a line; the functions here parse that.  With pid, a probe walks only the application of
that process (two plug-in processes show two dialogs of the same names: follow-busy-tests.py).
GIMP 2.10 (GTK 2) reaches at-spi through GTK's atk-bridge module (Debian: libatk-adaptor), GIMP
3.0 (GTK 3) has it built in.
"""

import json
import os
import subprocess
import sys

# The widgets every probe walks: the whole desktop, 40 levels deep at most.
WALK = r"""
import os, sys, time
import pyatspi

def walk(node, visit, depth=0):
    if node is None or depth > 40:
        return
    try:
        name = node.name or ""
        role = node.getRoleName()
    except Exception:
        return
    visit(node, name, role)
    try:
        for i in range(node.childCount):
            walk(node.getChildAtIndex(i), visit, depth + 1)
    except Exception:
        pass

def walk_desktop(visit):
    desktop = pyatspi.Registry.getDesktop(0)
    pid = int(os.environ.get("A11Y_APP_PID", "0"))
    for i in range(desktop.childCount):
        app = desktop.getChildAtIndex(i)
        try:
            if pid and app.get_process_id() != pid:
                continue
        except Exception:
            continue
        walk(app, visit)
"""

# The labels that hold one of argv[3:], once one holds argv[2] (or argv[1] seconds are up).
LABELS = WALK + r"""
deadline = time.time() + float(sys.argv[1])
found = []
while time.time() < deadline:
    found = []
    walk_desktop(lambda node, name, role: found.append(name)
                 if role == "label" and any(part in name for part in sys.argv[3:]) else None)
    if any(sys.argv[2] in f for f in found):
        break
    time.sleep(0.5)
for f in found:
    print("label " + f.replace("\n", " "))
"""

# The cells of the table named argv[2], a row a line ("|" between cells).
TABLE = WALK + r"""
found = {}
def visit(node, name, role):
    if name == sys.argv[2] and "table" not in found:
        found["table"] = node
deadline = time.time() + float(sys.argv[1])
while time.time() < deadline and not found:
    walk_desktop(visit)
    time.sleep(0.3)
if found:
    table = found["table"].queryTable()
    for row in range(table.nRows):
        cells = []
        for col in range(table.nColumns):
            cell = table.getAccessibleAt(row, col)
            cells.append(cell.name if cell is not None else "")
        print("row " + "|".join(cells))
    heads = []
    for col in range(table.nColumns):
        try:
            head = table.getColumnHeader(col)
        except Exception:  # a toolkit without column headers
            head = None
        heads.append(head.name if head is not None else "")
    print("header " + "|".join(heads))
"""

# Each widget named one of argv[2:]: its screen rectangle and whether it is checked.
WIDGETS = WALK + r"""
found = {}
def visit(node, name, role):
    if name in sys.argv[2:] and name not in found:
        found[name] = node
deadline = time.time() + float(sys.argv[1])
while time.time() < deadline and len(found) < len(sys.argv) - 2:
    found = {}
    walk_desktop(visit)
    time.sleep(0.3)
for name, node in found.items():
    e = node.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
    checked = node.getState().contains(pyatspi.STATE_CHECKED)
    print("widget %d %d %d %d %d %s" % (e.x, e.y, e.width, e.height, checked, name))
"""

# What the dialog shows as it changes, for argv[1] seconds (follow-busy-tests.py): every 50 ms
# the showing labels that start with one of argv[3:] and the first row of the table named
# argv[2], a line "sample TIME JSON" each time they change.  The nodes are found once: a walk
# of the whole tree takes longer than the moments it must not miss.
WATCH = WALK + r"""
import json
labels, tables = [], []
walk_desktop(lambda node, name, role: labels.append(node) if role == "label"
             else tables.append(node) if name == sys.argv[2] else None)
def showing(node):
    try:
        name = node.name or ""
        if any(name.startswith(p) for p in sys.argv[3:]) and \
                node.getState().contains(pyatspi.STATE_SHOWING):
            return name.replace("\n", " ")
    except Exception:
        pass
    return None
def first_row():
    try:
        table = tables[0].queryTable()
        return [table.getAccessibleAt(0, c).name for c in range(table.nColumns)]
    except Exception:
        return []
deadline = time.time() + float(sys.argv[1])
last = None
while time.time() < deadline:
    now = [[t for t in map(showing, labels) if t is not None], first_row()]
    if now != last:
        print("sample %.3f %s" % (time.time(), json.dumps(now)), flush=True)
        last = now
    time.sleep(0.05)
"""

# The rows of GIMP's Undo History dockable: the tree table of GIMP's own windows (its page tab
# is named in GIMP 2.10 only; the test's session docks nothing else that holds one).
UNDO = WALK + r"""
tables = []
deadline = time.time() + float(sys.argv[1])
while time.time() < deadline and not tables:
    desktop = pyatspi.Registry.getDesktop(0)
    for i in range(desktop.childCount):
        try:
            app = desktop.getChildAtIndex(i)
            gimp = (app.name or "").startswith("gimp")
        except Exception:
            continue
        if gimp:
            walk(app, lambda node, name, role: tables.append(node)
                 if role in ("tree table", "table") and "gpu" not in name else None)
    time.sleep(0.3)
def ancestors(node):
    names = []
    for _ in range(8):
        try:
            node = node.parent
            names.append("%s:%s" % (node.getRoleName(), node.name or ""))
        except Exception:
            break
    return "/".join(names)

if len(tables) == 1:
    print("undo-rows %d" % tables[0].queryTable().nRows)
else:
    print("no-undo: %d tree tables in GIMP's windows" % len(tables))
    for table in tables:
        print("no-undo: rows %d in %s" % (table.queryTable().nRows, ancestors(table)))
"""


def python_with_pyatspi():
    """A Python that has pyatspi, or None."""
    for python in (sys.executable, "/usr/bin/python3"):
        if python and os.path.exists(python) and subprocess.run(
                [python, "-c", "import pyatspi"], stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL).returncode == 0:
            return python
    return None


def _probe_env(env, pid):
    if not pid:
        return env
    return dict(env, A11Y_APP_PID=str(pid))


def _probe(python, env, code, seconds, *args, pid=None):
    result = subprocess.run([python, "-c", code, str(seconds)] + [str(a) for a in args],
                            env=_probe_env(env, pid), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, timeout=seconds + 90)
    if result.returncode != 0:
        for line in result.stderr.decode().splitlines()[-3:]:
            print("# a11y probe: " + line, flush=True)
    return result.stdout.decode().splitlines()


def labels(python, env, until, holding, seconds=30, pid=None):
    """The labels that hold one of `holding`, once one holds `until`, one line each."""
    return [line[len("label "):] for line in _probe(python, env, LABELS, seconds, until,
                                                    *holding, pid=pid)
            if line.startswith("label ")]


def label_starting(python, env, start, seconds=30, pid=None):
    """The first label whose text starts with `start`, or None."""
    found = [l for l in labels(python, env, start, [start], seconds, pid)
             if l.startswith(start)]
    return found[0] if found else None


def table_rows(python, env, name, seconds=20, pid=None):
    """The rows of the accessible table `name`, each a list of its cells' texts."""
    return [line[len("row "):].split("|")
            for line in _probe(python, env, TABLE, seconds, name, pid=pid)
            if line.startswith("row ")]


def table_headers(python, env, name, seconds=20, pid=None):
    """The column titles of the accessible table `name` (empty where the toolkit has none)."""
    return next((line[len("header "):].split("|")
                 for line in _probe(python, env, TABLE, seconds, name, pid=pid)
                 if line.startswith("header ")), [])


def start_watch(python, env, table, prefixes, seconds, pid=None):
    """Watches the dialog in the background (WATCH); watch_samples reads what it saw."""
    return subprocess.Popen([python, "-c", WATCH, str(seconds), table] + list(prefixes),
                            env=_probe_env(env, pid), stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)


def watch_samples(proc):
    """[(time, showing labels, the table's first row)] once the watch has ended."""
    out, _ = proc.communicate(timeout=120)
    samples = []
    for line in out.decode().splitlines():
        if line.startswith("sample "):
            _, when, data = line.split(" ", 2)
            shown, row = json.loads(data)
            samples.append((float(when), shown, row))
    return samples


def widgets(python, env, names, seconds=20):
    """{name: (x, y, width, height, checked)} of the widgets with these accessible names."""
    found = {}
    for line in _probe(python, env, WIDGETS, seconds, *names):
        if line.startswith("widget "):
            fields = line.split(" ", 6)
            found[fields[6]] = tuple(int(v) for v in fields[1:5]) + (fields[5] == "1",)
    return found


def undo_rows(python, env, seconds=20):
    """How many rows GIMP's Undo History dockable shows (the steps and the base image), or
    None where it is not found."""
    lines = _probe(python, env, UNDO, seconds)
    rows = [int(line.split()[1]) for line in lines if line.startswith("undo-rows ")]
    for line in lines:
        if line.startswith("no-undo"):
            print("# " + line, flush=True)
    return rows[0] if rows else None
