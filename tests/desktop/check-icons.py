#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Renders every icon at 16 and 128 pixels with rsvg-convert and fails when
# one does not render, renders blank or fills the square, or (for a symbolic icon) uses any
# colour but the one GTK recolours.
#
#   check-icons.py RSVG_CONVERT ICON.svg…

import re
import struct
import subprocess
import sys
import zlib

rsvg, icons = sys.argv[1], sys.argv[2:]
failures = 0


def png_alpha_coverage(data):
    """Share of pixels that are not fully transparent, in an 8-bit RGBA PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width, height = 8, b"", 0, 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour == 6, "rsvg-convert writes 8-bit RGBA"
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride, bpp = width * 4, 4
    prev = bytearray(stride)
    drawn = 0
    for y in range(height):
        ftype = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 0xff
            elif ftype == 2:
                line[i] = (line[i] + b) & 0xff
            elif ftype == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xff
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pred) & 0xff
        drawn += sum(1 for x in range(width) if line[x * 4 + 3])
        prev = line
    return drawn / (width * height)


for icon in icons:
    svg = open(icon, encoding="utf-8").read()
    if icon.endswith("-symbolic.svg"):
        colours = set(c.lower() for c in re.findall(r"#[0-9a-fA-F]{3,6}\b", svg))
        if colours - {"#2e3436"}:
            print(f"not ok - {icon}: a symbolic icon uses {sorted(colours)}, not only #2e3436")
            failures += 1
    for size in (16, 128):
        p = subprocess.run([rsvg, "-w", str(size), "-h", str(size), "-f", "png", icon],
                           capture_output=True)
        if p.returncode != 0 or p.stderr:
            print(f"not ok - {icon} at {size} px: {p.stderr.decode(errors='replace').strip()}")
            failures += 1
            continue
        coverage = png_alpha_coverage(p.stdout)
        # A blank render, or one that fills the whole square, is broken.
        if not 0.15 <= coverage < 1.0:
            print(f"not ok - {icon} at {size} px: {coverage:.0%} of the pixels drawn")
            failures += 1
        else:
            print(f"ok - {icon} at {size} px ({coverage:.0%} of the pixels drawn)")

sys.exit(1 if failures else 0)
