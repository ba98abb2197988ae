"""The X side of dialog-tests.py: keys, the pointer and screenshots, through xdotool and
ImageMagick, as a user's hands and eyes."""

import subprocess
import time


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


def place_window(env, window, x, y, seconds=60.0):
    """Moves a window to (x, y) once it is shown, and waits until X reports it there.  A window
    found before GTK maps it is moved again by GTK on mapping (to the screen's centre), so the
    move waits for the window to be viewable and is made again until it holds.  True when it
    does."""
    deadline = time.time() + seconds
    while window not in xdotool(env, "search", "--onlyvisible", "--name", ".")[1]:
        if time.time() > deadline:
            return False
        time.sleep(0.2)
    while True:
        xdotool(env, "windowmove", window, str(x), str(y))
        time.sleep(0.5)
        rc, out = xdotool(env, "getwindowgeometry", "--shell", window)
        geometry = dict(line.split("=", 1) for line in out if "=" in line)
        if rc == 0 and (geometry.get("X"), geometry.get("Y")) == (str(x), str(y)):
            return True
        if time.time() > deadline:
            return False


class Window:
    """One window of the test's X display: keys go to it, screenshots are of it."""

    def __init__(self, env, window):
        self.env = env
        self.window = window

    def keys(self, *keys, pause=0.2):
        xdotool(self.env, "windowfocus", "--sync", self.window)
        for key in keys:
            xdotool(self.env, "key", "--clearmodifiers", key)
            time.sleep(pause)

    def type(self, text):
        xdotool(self.env, "windowfocus", "--sync", self.window)
        xdotool(self.env, "type", "--delay", "30", text)

    def move(self, x, y):
        # not --sync: xdotool then waits for a motion that never comes when the pointer is
        # there already
        xdotool(self.env, "mousemove", str(x), str(y))
        time.sleep(0.2)

    def click(self, x, y):
        self.move(x, y)
        xdotool(self.env, "click", "1")

    def drag(self, x0, x1, y, steps=6):
        """Button 1 pressed at (x0, y), moved in steps to (x1, y), released."""
        self.move(x0, y)
        xdotool(self.env, "mousedown", "1")
        for step in range(1, steps + 1):
            self.move(x0 + (x1 - x0) * step // steps, y)
        xdotool(self.env, "mouseup", "1")

    def grab(self, path):
        """Saves the window as `path` and returns (width, height, RGB bytes)."""
        subprocess.run(["import", "-window", self.window, path], env=self.env, timeout=60)
        return read_ppm(path, self.env)

    def columns(self, path, colour):
        """How many pixel columns of a fresh screenshot hold this colour."""
        width, _, pixels = self.grab(path)
        return curve_columns(width, pixels, colour)
