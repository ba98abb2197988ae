#!/usr/bin/python3
"""Writes small PNG, JPEG, TIFF and WebP files into the folder argv[1]: the seeds of tools/fuzz's
fuzz-vips target, made afresh each run so that no binary is committed.  Debian's python3-pil."""
import os
import random
import sys

from PIL import Image


def main():
    folder = sys.argv[1]
    os.makedirs(folder, exist_ok=True)
    rng = random.Random(18)
    for mode in ("L", "LA", "RGB", "RGBA", "P", "I;16"):
        size = (rng.randrange(1, 24), rng.randrange(1, 24))
        image = Image.new(mode if mode != "P" else "RGB", size)
        image.putdata([tuple(rng.randrange(256) for _ in image.getbands()) if len(
            image.getbands()) > 1 else rng.randrange(256 if mode != "I;16" else 65536)
            for _ in range(size[0] * size[1])])
        if mode == "P":
            image = image.convert("P")
        name = mode.replace(";", "")
        image.save(os.path.join(folder, "seed-%s.png" % name))
        if mode in ("L", "RGB", "RGBA"):
            image.save(os.path.join(folder, "seed-%s.tif" % name))
            image.save(os.path.join(folder, "seed-%s-deflate.tif" % name),
                       compression="tiff_adobe_deflate")
            image.save(os.path.join(folder, "seed-%s.webp" % name), lossless=True)
        if mode in ("L", "RGB"):
            image.save(os.path.join(folder, "seed-%s.jpg" % name), quality=80)
            image.save(os.path.join(folder, "seed-%s-progressive.jpg" % name), progressive=True)
    Image.new("F", (5, 3), 0.5).save(os.path.join(folder, "seed-float.tif"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
