#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""`headroom FILE --screenshot=OUT.png`: the window drawn once, then exit.

Also checks that a broken scenario given on the command line fails with the
file's line and column and no PNG, that a PyTorch memory snapshot given
beside the scenario is imported into the screenshot, and that a hostile
pickle is refused without running anything."""

import os
import stat
import struct
import subprocess
import sys
import tempfile

headroom, examples = os.path.abspath(sys.argv[1]), sys.argv[2]
failures = 0
checks = 0


def check(cond, what):
    global failures, checks
    checks += 1
    if not cond:
        failures += 1
        print(f"not ok - {what}")


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    return struct.unpack(">II", head[16:24])


with tempfile.TemporaryDirectory() as tmp:
    env = dict(os.environ)
    for name in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        env[name] = os.path.join(tmp, name.lower())
    out = os.path.join(tmp, "window.png")
    scenario = os.path.join(examples, "smolvla-4090.json")
    r = subprocess.run([headroom, "--screenshot=" + out, "--screenshot-size=1000x700", scenario],
                       env=env, capture_output=True, text=True, timeout=60)
    check(r.returncode == 0, f"screenshot exits 0 (got {r.returncode}: {r.stderr.strip()})")
    size = png_size(out) if os.path.exists(out) else None
    # The window frame (client-side decorations) takes a few pixels of the
    # requested size.
    check(size is not None and 960 <= size[0] <= 1000 and 660 <= size[1] <= 700,
          f"screenshot is a PNG of about 1000x700 (got {size})")

    broken = os.path.join(tmp, "broken.json")
    with open(broken, "w") as f:
        f.write('{\n  "headroom_scenario": 1,\n  "model": "smolvla",\n  "micro_batch": 0\n}\n')
    out2 = os.path.join(tmp, "broken.png")
    r = subprocess.run([headroom, "--screenshot=" + out2, broken],
                       env=env, capture_output=True, text=True, timeout=60)
    check(r.returncode == 2, f"broken scenario exits 2 (got {r.returncode})")
    check(f"{broken}:4:" in r.stderr, f"message names FILE:LINE (got {r.stderr.strip()!r})")
    check(not os.path.exists(out2), "no PNG for a broken scenario")

    # Snapshots written by the tests' generator (its small set, which has
    # the hostile pickles too).
    here = os.path.dirname(os.path.abspath(__file__))
    snaps = os.path.join(tmp, "snapshots")
    os.makedirs(snaps)
    subprocess.run([sys.executable, os.path.join(here, "..", "data", "make-snapshots.py"),
                    "--seeds", snaps], check=True, timeout=60)
    out3 = os.path.join(tmp, "snapshot.png")
    r = subprocess.run([headroom, "--screenshot=" + out3, "--screenshot-size=1000x700",
                        os.path.join(snaps, "snapshot-train.pickle"), scenario],
                       env=env, capture_output=True, text=True, timeout=60)
    check(r.returncode == 0 and png_size(out3) is not None,
          f"a snapshot beside the scenario is drawn (got {r.returncode}: {r.stderr.strip()})")
    out4 = os.path.join(tmp, "reduce.png")
    r = subprocess.run([headroom, "--screenshot=" + out4, scenario,
                        os.path.join(snaps, "reduce.pickle")],
                       env=env, capture_output=True, text=True, timeout=60, cwd=tmp)
    check(r.returncode == 2 and "reduce.pickle: byte 2: opcode GLOBAL" in r.stderr,
          f"a pickle that would call code is refused by name (got {r.stderr.strip()!r})")
    check(not os.path.exists(out4) and not os.path.exists(os.path.join(tmp, "headroom-pickle-ran-me")),
          "nothing of it ran, and no PNG")

    # The PNG goes through the one writer of every file: a link is
    # followed, a FIFO, a dangling link or a link to a FIFO is refused
    # (exit 1) and left as it is.
    real = os.path.join(tmp, "real.png")
    with open(real, "wb") as f:
        f.write(b"old")
    os.symlink("real.png", os.path.join(tmp, "link.png"))
    os.symlink("nowhere.png", os.path.join(tmp, "dangling.png"))
    os.mkfifo(os.path.join(tmp, "fifo.png"))
    os.symlink("fifo.png", os.path.join(tmp, "link-to-fifo.png"))
    r = subprocess.run([headroom, "--screenshot=" + os.path.join(tmp, "link.png"), scenario],
                       env=env, capture_output=True, text=True, timeout=60)
    check(r.returncode == 0 and os.path.islink(os.path.join(tmp, "link.png")) and
          png_size(real) is not None, f"a link is followed (got {r.returncode}: {r.stderr!r})")
    for name, is_kind in (("dangling.png", os.path.islink), ("fifo.png", lambda p: stat.S_ISFIFO(
                          os.lstat(p).st_mode)), ("link-to-fifo.png", os.path.islink)):
        target = os.path.join(tmp, name)
        r = subprocess.run([headroom, "--screenshot=" + target, scenario],
                           env=env, capture_output=True, text=True, timeout=60)
        check(r.returncode == 1 and name in r.stderr and is_kind(target),
              f"--screenshot={name} is refused and left as it is (got {r.returncode}: "
              f"{r.stderr.strip()!r})")
    check(stat.S_ISFIFO(os.stat(os.path.join(tmp, "fifo.png")).st_mode) and
          not os.path.exists(os.path.join(tmp, "nowhere.png")), "the FIFO stays, nothing created")

    r = subprocess.run([headroom, "--screenshot-size=12"], env=env, capture_output=True,
                       text=True, timeout=60)
    check(r.returncode == 2 and "WIDTHxHEIGHT" in r.stderr, "bad --screenshot-size is refused")

print(f"{checks - failures} of {checks} checks passed")
sys.exit(1 if failures else 0)
