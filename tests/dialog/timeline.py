"""When the dialog suite's Re-runs happened, for tools/device-gimp-check's parallel-dialog step
(issue 16), which runs this suite beside two headless sessions of tests/gimp/parallel-tests.py on
one GPU and requires the Re-runs to fall between those sessions' runs.

With --timeline FILE, dialog-tests.py makes FILE with the line "ready T" just before its first
Re-run (parallel-tests.py --start-when FILE: the sessions' runs begin then), and appends a line
"NAME START END" for each Re-run, from the moment it is pressed to the moment its result was
read through at-spi (seconds since the epoch, as parallel-tests.py's times).  Without the option
nothing is written.
"""

import os
import time


class Timeline:
    def __init__(self, path=None):
        self.path = path
        self.started = False

    def _write(self, line, mode):
        if self.path:
            with open(self.path, mode) as f:
                f.write(line + "\n")

    def ready(self):
        """Before each Re-run; the first call makes the file."""
        if not self.started:
            self._write("ready %.6f" % time.time(), "w")
        self.started = True

    def add(self, name, pressed):
        self._write("%s %.6f %.6f" % (name, pressed, time.time()), "a")


def read(path):
    """{"ready": T or None, "reruns": [(name, pressed, read)]} from a timeline file."""
    ready, reruns = None, []
    for line in open(path) if path and os.path.exists(path) else []:
        f = line.split()
        if len(f) == 2 and f[0] == "ready":
            ready = float(f[1])
        elif len(f) == 3:
            reruns.append((f[0], float(f[1]), float(f[2])))
    return {"ready": ready, "reruns": reruns}
