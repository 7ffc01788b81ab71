#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Charts you can put in a paper, checked from outside.

Every shipped example's bucket chart and curve, five GPUs compared (three
sets of five), and its advice table and decision tree, exported by
`headroom-cli export` as PDF at the default size and a column wide, read
back with `pdftotext -bbox-layout` (every word's box in points, words in
lines): no two words overlap, none leaves the page, none is cut short with
an ellipsis, a column-wide figure's text is at least 6 pt, and no line of
a bucket chart or curve that names something (a card, a bucket, "max 20")
is printed twice.  Its SVG carries the text as <text> (or as outlines,
when asked), its page states its size in inches, and its PNG its
resolution.

    test-export-pdf.py HEADROOM-CLI EXAMPLES-DIR
"""

import html
import os
import re
import struct
import subprocess
import sys
import tempfile
import zlib

CLI = sys.argv[1]
EXAMPLES = sys.argv[2]

GPU_SETS = [
    "rtx-3090,rtx-4090,a100-80gb,h100-sxm,h200",
    "rtx-3060-12gb,rtx-4070-ti,rtx-5090,l40s,mi300x",
    # 24, 24, 45, 80 and 80 GB: two pairs that share a line
    "rtx-3090,rtx-4090,l40s,a100-80gb,h100-sxm",
]

# Words a repeated line may hold and still name nothing: units and
# verdicts ("24.9 GiB" inside two bars, "spare" wrapped under two cards).
UNNAMING = {"KiB", "MiB", "GiB", "TiB", "spare", "over"}

# DejaVu Sans's ascent plus descent, in ems: what pdftotext's word boxes
# are tall, so a box's height over it is the font's size.
EM_HEIGHT = 1.164

WORD = re.compile(r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">(.*?)</word>')
LINE = re.compile(r'<line [^>]*>(.*?)</line>', re.S)
PAGE = re.compile(r'<page width="([\d.]+)" height="([\d.]+)">')

failures = []


def fail(message):
    failures.append(message)
    print("not ok:", message)


def run(*args):
    return subprocess.run([CLI, *args], capture_output=True, text=True)


def words_of(pdf):
    out = subprocess.run(["pdftotext", "-bbox-layout", pdf, "-"], capture_output=True,
                         text=True, check=True).stdout
    page = PAGE.search(out)
    words = [(float(a), float(b), float(c), float(d), html.unescape(t))
             for a, b, c, d, t in WORD.findall(out)]
    lines = [html.unescape(" ".join(t for *_, t in WORD.findall(line)))
             for line in LINE.findall(out)]
    return float(page.group(1)), float(page.group(2)), words, lines


def check_pdf(pdf, where, column, once=False):
    width, height, words, lines = words_of(pdf)
    if once:
        seen = set()
        for line in lines:
            names = [w for w in line.split() if re.search(r"[^\W\d_]", w) and w not in UNNAMING]
            if names and line in seen:
                fail(f"{where}: \"{line}\" is printed twice")
            seen.add(line)
    if column and (abs(width - 252) > 0.01 or abs(height - 180) > 0.01):
        fail(f"{where}: the page is {width}×{height} pt, not 3.5 × 2.5 in")
    if len(words) < 10:
        fail(f"{where}: only {len(words)} words")
    for i, (x0, y0, x1, y1, text) in enumerate(words):
        if x0 < -0.5 or y0 < -0.5 or x1 > width + 0.5 or y1 > height + 0.5:
            fail(f"{where}: \"{text}\" leaves the page ({x0:.1f},{y0:.1f}–{x1:.1f},{y1:.1f})")
        if "…" in text:
            fail(f"{where}: \"{text}\" is cut short")
        size = (y1 - y0) / EM_HEIGHT
        if column and size < 6.0 - 0.05:
            fail(f"{where}: \"{text}\" is {size:.2f} pt")
        for (u0, v0, u1, v1, other) in words[i + 1:]:
            slack = 0.25
            if x0 + slack < u1 and u0 + slack < x1 and y0 + slack < v1 and v0 + slack < y1:
                fail(f"{where}: \"{text}\" overlaps \"{other}\"")
    return len(words)


def png_dpi(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    at = 8
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        crc = struct.unpack(">I", data[at + 8 + length:at + 12 + length])[0]
        if zlib.crc32(kind + body) != crc:
            fail(f"{path}: chunk {kind} has a bad CRC")
        if kind == b"pHYs":
            ppm = struct.unpack(">I", body[:4])[0]
            return ppm * 0.0254
        at += 12 + length
    return None


def main():
    examples = sorted(f for f in os.listdir(EXAMPLES) if f.endswith(".json"))
    if len(examples) < 14:
        fail(f"only {len(examples)} examples")
    pdfs = words = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in examples:
            path = os.path.join(EXAMPLES, name)
            for gpus in GPU_SETS:
                for chart in ("buckets", "curve"):
                    for size in (None, "column"):
                        out = os.path.join(tmp, f"{chart}.pdf")
                        args = ["export", path, "--chart", chart, "--gpus", gpus, "-o", out]
                        if size:
                            args += ["--size", size]
                        p = run(*args)
                        where = f"{name} {chart} --gpus {gpus} {size or 'default size'}"
                        if p.returncode != 0:
                            fail(f"{where}: exit {p.returncode}: {p.stderr.strip()}")
                            continue
                        words += check_pdf(out, where, size == "column", once=True)
                        pdfs += 1
            # the advice table and the decision tree (the path alone at a
            # column's width)
            for chart in ("advice", "tree"):
                for size in (None, "column"):
                    out = os.path.join(tmp, f"{chart}.pdf")
                    args = ["export", path, "--chart", chart, "--gpus", GPU_SETS[-1], "-o", out]
                    if size:
                        args += ["--size", size]
                    p = run(*args)
                    where = f"{name} {chart} {size or 'default size'}"
                    if p.returncode != 0:
                        fail(f"{where}: exit {p.returncode}: {p.stderr.strip()}")
                        continue
                    words += check_pdf(out, where, size == "column")
                    pdfs += 1

        # SVG: text as <text>, the font named, the page in inches; outlines
        # when asked
        smol = os.path.join(EXAMPLES, "smolvla-4090.json")
        svg = os.path.join(tmp, "c.svg")
        p = run("export", smol, "--chart", "curve", "--size", "column", "-o", svg)
        text = open(svg).read() if p.returncode == 0 else ""
        if "<text " not in text or 'font-family="DejaVu Sans' not in text or "glyph" in text:
            fail("SVG: the labels are not <text> in a named font")
        if 'width="3.5in" height="2.5in"' not in text:
            fail("SVG: the page does not say 3.5 × 2.5 in")
        if ">RTX 4090<" not in text and ">GeForce RTX 4090<" not in text:
            fail("SVG: the card's name is not text a reader can find")
        for chart in ("buckets", "tree", "advice"):
            p = run("export", smol, "--chart", chart, "--size", "column", "-o", svg)
            text = open(svg).read() if p.returncode == 0 else ""
            if text.count("<text ") < 5 or "glyph" in text:
                fail(f"SVG {chart}: the labels are not <text>")
        p = run("export", smol, "--chart", "curve", "--svg-text", "outlines", "-o", svg)
        text = open(svg).read() if p.returncode == 0 else ""
        if "<text " in text or "glyph" not in text:
            fail("SVG --svg-text outlines: the text is not outlines")
        p = run("export", smol, "--chart", "curve", "--svg-text", "paths", "-o", svg)
        if p.returncode != 2 or "--svg-text" not in p.stderr:
            fail("--svg-text paths is not refused with a message")

        # PNG: the resolution a paper figure needs, and the size asked
        png = os.path.join(tmp, "c.png")
        p = run("export", smol, "--chart", "buckets", "--size", "column", "-o", png)
        dpi = png_dpi(png) if p.returncode == 0 else None
        if dpi is None or abs(dpi - 300) > 0.5:
            fail(f"PNG --size column: {dpi} dpi, not 300")
        p = run("export", smol, "--chart", "buckets", "--width", "8.9cm", "--height", "6cm",
                "--dpi", "600", "-o", png)
        data = open(png, "rb").read() if p.returncode == 0 else b""
        if len(data) < 24 or struct.unpack(">II", data[16:24]) != (2102, 1417):
            fail(f"PNG --width 8.9cm --height 6cm --dpi 600: not 2102 × 1417 pixels")
        # bare numbers stay pixels
        p = run("export", smol, "--chart", "buckets", "--width", "640", "--height", "400", "-o", png)
        data = open(png, "rb").read() if p.returncode == 0 else b""
        if len(data) < 24 or struct.unpack(">II", data[16:24]) != (640, 400):
            fail("PNG --width 640 --height 400: not 640 × 400 pixels")
        for bad in (["--width", "3.5furlongs"], ["--width", "-2in"], ["--size", "stamp"],
                    ["--width", "nan"]):
            p = run("export", smol, "--chart", "buckets", "-o", png, *bad)
            if p.returncode != 2 or bad[0] not in p.stderr:
                fail(f"{' '.join(bad)}: exit {p.returncode}, {p.stderr.strip()!r}")

    print(f"{pdfs} PDFs, {words} words checked")
    if failures:
        print(f"{len(failures)} failures")
        sys.exit(1)


if __name__ == "__main__":
    main()
