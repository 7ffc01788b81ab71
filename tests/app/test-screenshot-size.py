#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""`headroom --screenshot=OUT.png --screenshot-size=WxH`: a PNG of exactly
WxH pixels, the window's whole box as the live window draws it (its frame
included, nothing scaled), also where the size is larger than the screen
(the tests' Xvfb is 1280x1024)."""

import os
import struct
import subprocess
import sys
import tempfile

headroom, examples = os.path.abspath(sys.argv[1]), sys.argv[2]
failures = 0


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    return struct.unpack(">II", head[16:24])


with tempfile.TemporaryDirectory() as tmp:
    env = dict(os.environ)
    for name in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME"):
        env[name] = os.path.join(tmp, name.lower())
    scenario = os.path.join(examples, "smolvla-4090.json")
    for width, height in ((800, 900), (1366, 768), (1920, 1080)):
        out = os.path.join(tmp, f"window-{width}x{height}.png")
        r = subprocess.run([headroom, "--screenshot=" + out,
                            f"--screenshot-size={width}x{height}", scenario],
                           env=env, capture_output=True, text=True, timeout=60)
        size = png_size(out) if r.returncode == 0 and os.path.exists(out) else None
        if size != (width, height):
            failures += 1
            print(f"not ok - --screenshot-size={width}x{height} gave {size} "
                  f"(exit {r.returncode}: {r.stderr.strip()})")
        else:
            print(f"ok - --screenshot-size={width}x{height} is a {width}x{height} PNG")

sys.exit(1 if failures else 0)
