#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""`headroom-cli export`'s size and resolution options, validated like a
file's fields: --width, --height, --dpi and --scale given negative, zero,
NaN, infinite, huge, hexadecimal, empty or unit-garbled values, and sizes
whose PNG would be too many pixels, each refused with exit 2 and a message
naming the option, under a 512 MiB memory limit and a 10 s time limit (so
that no surface of a billion pixels is ever allocated), and nothing
written.  Sizes at the edges of what is allowed are exported, at the
pixels asked for.

Under AddressSanitizer the memory limit cannot be set (its shadow memory
reserves terabytes of address space); the time limit still applies.

Usage: test-export-options.py HEADROOM_CLI EXAMPLES_DIR"""

import os
import resource
import struct
import subprocess
import sys
import tempfile

CLI, EXAMPLES = sys.argv[1:3]
LIMIT_S = 10
LIMIT_BYTES = 512 * 1024**2
SMOLVLA = os.path.join(EXAMPLES, "smolvla-4090.json")

with open(CLI, "rb") as f:
    SANITIZED = b"__asan_init" in f.read()

failures = []
checked = 0


def limit():
    if not SANITIZED:
        resource.setrlimit(resource.RLIMIT_AS, (LIMIT_BYTES, LIMIT_BYTES))


def export(out, *options):
    return subprocess.run([CLI, "export", SMOLVLA, "--chart", "curve", "-o", out, *options],
                          capture_output=True, timeout=LIMIT_S, preexec_fn=limit)


def refused(out, options, words):
    """The options are refused: exit 2, a short message with @words in it,
    no file written."""
    global checked
    checked += 1
    name = " ".join(options)
    if os.path.exists(out):
        os.unlink(out)
    try:
        p = export(out, *options)
    except subprocess.TimeoutExpired:
        failures.append(f"{name}: no answer within {LIMIT_S} s")
        return
    err = p.stderr.decode("utf-8", "replace")
    if p.returncode < 0:
        failures.append(f"{name}: killed by signal {-p.returncode}: {err[-300:]}")
    elif p.returncode != 2:
        failures.append(f"{name}: exit {p.returncode}, wanted 2: {err[-300:]!r}")
    for w in words:
        # a bound may be written in the locale's decimals: 0,25 in German
        if w not in err and w.replace(".", ",") not in err:
            failures.append(f"{name}: the message does not say {w!r}: {err[-300:]!r}")
    if err.count("\n") != 1 or len(err) > 400:
        failures.append(f"{name}: not a one-line message: {err[-300:]!r}")
    if os.path.exists(out):
        failures.append(f"{name}: a file was written")


def exported(out, options, pixels):
    """The options are taken: exit 0, a PNG of @pixels (width, height)."""
    global checked
    checked += 1
    name = " ".join(options)
    try:
        p = export(out, *options)
    except subprocess.TimeoutExpired:
        failures.append(f"{name}: no answer within {LIMIT_S} s")
        return
    if p.returncode != 0:
        failures.append(f"{name}: exit {p.returncode}: {p.stderr.decode()[-300:]!r}")
        return
    with open(out, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n" or struct.unpack(">II", head[16:24]) != pixels:
        failures.append(f"{name}: not a PNG of {pixels[0]} × {pixels[1]} pixels")


with tempfile.TemporaryDirectory() as tmp:
    png = os.path.join(tmp, "c.png")
    pdf = os.path.join(tmp, "c.pdf")

    for option in ("--width", "--height"):
        for value in ("-5", "0", "-0", "-2in", "nan", "NaN", "inf", "-inf", "infinity", "1e400",
                      "0x10", "0x1p4", "", " ", "3.5furlongs", "3.5 inches wide", "in", "12,5cm",
                      "1e9", "1e9in", "1e-9", "15", "171in", "16385", "3.5in;rm"):
            refused(png, [option, value], [option])
        # a long value, shown short
        refused(png, [option, "9" * 100_000], [option])

    for option, low, high in (("--dpi", "24", "2400"), ("--scale", "0.25", "25")):
        for value in ("-300", "0", "-0", "nan", "inf", "1e9", "1e400", "1e-300", "0x10", "",
                      "300dpi", "2x", "300,5", "3e", "--"):
            refused(png, [option, value], [option[2:]])
        for value in ("0", "1e9"):
            refused(png, [option, value], [low, high])
        refused(pdf, [option, "nan"], [option[2:]])

    refused(png, ["--dpi", "300", "--scale", "2"], ["--dpi", "--scale"])

    # in range one by one, too many pixels together: refused before any
    # surface is made
    for options in (["--width", "16384", "--dpi", "2400"],
                    ["--width", "16384", "--height", "16384", "--scale", "25"],
                    ["--width", "170in", "--height", "100in", "--dpi", "300"],
                    ["--size", "poster", "--dpi", "2400"],
                    ["--width", "16384", "--height", "8192"]):
        refused(png, options, ["--dpi", "pixels"])

    # at the edges of what is allowed
    exported(png, ["--width", "16", "--height", "16"], (16, 16))
    exported(png, ["--width", "16", "--height", "16", "--scale", "0.25"], (4, 4))
    exported(png, ["--width", "1in", "--height", "0.5in", "--dpi", "2400"], (2400, 1200))
    exported(png, ["--width", "3.5in", "--height", "2.5in", "--dpi", "24"], (84, 60))
    exported(png, ["--width", "+640", "--height", "4e2", "--scale", "1.5"], (960, 600))

for f in failures:
    print(f"not ok - {f}")
print(f"{checked} cases, {len(failures)} failures"
      + (" (AddressSanitizer build: no memory limit)" if SANITIZED else ""))
sys.exit(1 if failures else 0)
