#!/usr/bin/env python3
"""Renders and checks the plug-in's PNG icons (Python standard library only).

    icons.py render --rsvg-convert PATH --svg SVG --out DIR --sizes 16,22,...
        Render DIR/gpu-histogram-SIZE.png from the SVG for each size.
    icons.py check --out DIR --sizes 16,22,...
        Exit 1 unless each DIR/gpu-histogram-SIZE.png is a valid PNG of SIZE x SIZE pixels with
        an alpha channel (RGBA or gray+alpha, or a palette with tRNS), whose pixel data
        decompresses to exactly the bytes its header implies.
"""

import argparse
import os
import struct
import subprocess
import sys
import zlib

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}  # colour type -> samples per pixel


def name(out, size):
    return os.path.join(out, "gpu-histogram-%s.png" % size)


def read_png(path):
    """Returns (width, height, bit depth, colour type, interlace, chunk types, idat bytes)."""
    data = open(path, "rb").read()
    if data[:8] != PNG_SIGNATURE:
        raise ValueError("not a PNG (bad signature)")
    pos, chunks, idat = 8, [], b""
    ihdr = None
    while pos < len(data):
        if pos + 12 > len(data):
            raise ValueError("truncated chunk at byte %d" % pos)
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        ctype = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        if len(body) != length or zlib.crc32(ctype + body) & 0xFFFFFFFF != crc:
            raise ValueError("bad %s chunk (length or CRC)" % ctype.decode("latin-1"))
        chunks.append(ctype)
        if ctype == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif ctype == b"IDAT":
            idat += body
        pos += 12 + length
        if ctype == b"IEND":
            break
    if not chunks or chunks[0] != b"IHDR" or chunks[-1] != b"IEND":
        raise ValueError("IHDR must come first and IEND last")
    width, height, depth, ctype, _comp, _filt, interlace = ihdr
    return width, height, depth, ctype, interlace, chunks, idat


def check(args):
    failures = 0
    for size in args.sizes.split(","):
        path = name(args.out, size)
        want = int(size)
        try:
            width, height, depth, ctype, interlace, chunks, idat = read_png(path)
            if (width, height) != (want, want):
                raise ValueError("is %d x %d, not %d x %d" % (width, height, want, want))
            if ctype not in CHANNELS:
                raise ValueError("unknown colour type %d" % ctype)
            if ctype in (0, 2) or (ctype == 3 and b"tRNS" not in chunks):
                raise ValueError("has no alpha channel (colour type %d)" % ctype)
            if interlace == 0:
                row = (width * CHANNELS[ctype] * depth + 7) // 8 + 1
                raw = zlib.decompress(idat)
                if len(raw) != row * height:
                    raise ValueError("pixel data is %d bytes, not %d" % (len(raw), row * height))
            print("ok: %s: %d x %d, colour type %d, %d-bit" % (path, width, height, ctype, depth))
        except (OSError, ValueError, zlib.error) as e:
            print("FAIL: %s: %s" % (path, e))
            failures += 1
    return 1 if failures else 0


def render(args):
    for size in args.sizes.split(","):
        subprocess.run([args.rsvg_convert, "--width", size, "--height", size,
                        "--output", name(args.out, size), args.svg], check=True)
        print("rendered", name(args.out, size))
    return check(args)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("mode", choices=["render", "check"])
    p.add_argument("--out", required=True)
    p.add_argument("--sizes", required=True)
    p.add_argument("--svg")
    p.add_argument("--rsvg-convert", default="rsvg-convert")
    args = p.parse_args()
    return render(args) if args.mode == "render" else check(args)


if __name__ == "__main__":
    sys.exit(main())
