#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""No lost work: kills a writer (kill-writer.c) with SIGKILL at random
points, KILLS times in all, spread over every kind of file Headroom writes
(scenario, PNG, SVG and PDF exports, the PDF report), and checks after
each kill that the file on disk is a complete version, the old one or the
new one, never a mix, a truncation or nothing.

Usage: test-kill-writer.py KILL_WRITER KILLS [SEED]"""

import os
import random
import subprocess
import sys
import tempfile
import time

WRITER = sys.argv[1]
KILLS = int(sys.argv[2])
SEED = int(sys.argv[3]) if len(sys.argv) > 3 else int(time.time())
KINDS = ["scenario", "png", "svg", "pdf", "report"]
EXT = {"scenario": "json", "png": "png", "svg": "svg", "pdf": "pdf", "report": "pdf"}

rng = random.Random(SEED)
failures = []
print(f"# seed {SEED}")


def complete(kind, data):
    """Whether @data is a whole file of its kind; cairo numbers the objects
    of its SVG and dates its PDF, so those are not compared byte for byte."""
    if EXT[kind] == "pdf":
        return data.startswith(b"%PDF-") and data.rstrip().endswith(b"%%EOF") and len(data) > 1000
    return data.startswith(b"<?xml") and data.rstrip().endswith(b"</svg>") and len(data) > 1000


total = 0
leftovers = 0
with tempfile.TemporaryDirectory() as tmp:
    for k, kind in enumerate(KINDS):
        kills = KILLS // len(KINDS) + (1 if k < KILLS % len(KINDS) else 0)
        folder = os.path.join(tmp, kind)
        os.mkdir(folder)
        path = os.path.join(folder, "out." + EXT[kind])
        refs = []
        took = 0
        for variant in (0, 1):
            ref = os.path.join(tmp, f"{kind}-{variant}")
            p = subprocess.run([WRITER, kind, ref, str(variant)], check=True, timeout=300,
                               capture_output=True)
            took += float(p.stdout)
            with open(ref, "rb") as f:
                refs.append(f.read())
        # the window of three writes: kills land before the first is done,
        # inside one, and between two
        window = took * 1.5
        deterministic = kind in ("scenario", "png")
        if deterministic and refs[0] == refs[1]:
            failures.append(f"{kind}: the two versions are the same")

        with open(path, "wb") as f:
            f.write(refs[0])
        seen = [0, 0]
        for i in range(kills):
            p = subprocess.Popen([WRITER, kind, path], stdout=subprocess.PIPE)
            ready = p.stdout.readline()
            time.sleep(rng.uniform(0, window))
            p.kill()
            p.wait()
            p.stdout.close()
            total += 1
            if ready != b"ready\n":
                failures.append(f"{kind} #{i}: the writer did not start ({ready!r})")
                continue
            with open(path, "rb") as f:
                data = f.read()
            if deterministic:
                if data in refs:
                    seen[refs.index(data)] += 1
                else:
                    failures.append(f"{kind} #{i}: {len(data)} bytes, neither version "
                                    f"({len(refs[0])} or {len(refs[1])} bytes)")
            elif complete(kind, data):
                seen[0 if b"version 0" in data else 1] += 1
            else:
                failures.append(f"{kind} #{i}: {len(data)} bytes, not a complete {kind} file")
            # GLib's temporary files of killed writers stay behind
            for name in os.listdir(folder):
                if name != os.path.basename(path):
                    leftovers += 1
                    os.remove(os.path.join(folder, name))
        print(f"{kind}: {kills} kills, old/new version on disk {seen[0]}/{seen[1]}")
        if deterministic and kills >= 20 and 0 in seen:
            failures.append(f"{kind}: every kill found the same version; the window missed "
                            "the writes")

for f in failures[:20]:
    print(f"not ok - {f}", file=sys.stderr)
print(f"{total} kills, {len(failures)} failures, {leftovers} temporary files left behind")
sys.exit(1 if failures else 0)
