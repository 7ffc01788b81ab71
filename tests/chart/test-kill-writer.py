#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""No lost work: kills a writer (kill-writer.c) with SIGKILL at chosen
points of hr_file_write_atomic(), KILLS times in all, spread over every kind
of file Headroom writes (scenario, PNG, SVG and PDF exports, the PDF
report).  The points are stages of the write (temporary file made, after N
bytes of data, flushed, renamed), N drawn from a fixed seed over the whole
file, so every run tries the same points and none depends on timing.

After each kill the file on disk must be a complete version: the old one
when the process died before the rename, the new one after it; never a
mix, a truncation or nothing.  A killed writer's temporary file must carry
Headroom's prefix, and the next write must remove it.

Usage: test-kill-writer.py KILL_WRITER KILLS [SEED]"""

import os
import random
import signal
import subprocess
import sys
import tempfile

WRITER = sys.argv[1]
KILLS = int(sys.argv[2])
SEED = int(sys.argv[3]) if len(sys.argv) > 3 else 20261201
KINDS = ["scenario", "png", "svg", "pdf", "report"]
EXT = {"scenario": "json", "png": "png", "svg": "svg", "pdf": "pdf", "report": "pdf"}
PREFIX = ".headroom-tmp-"

rng = random.Random(SEED)
failures = []
print(f"# seed {SEED}")


def run(kind, path, variant, stage=None, nbytes=0):
    args = [WRITER, kind, path, str(variant)]
    if stage is not None:
        args += [stage, str(nbytes)]
    return subprocess.run(args, capture_output=True, timeout=120)


def version_of(kind, data, refs):
    """0 or 1 for a complete file of either version, None otherwise.
    cairo numbers the objects of its SVG and dates its PDF, so those are
    recognised by their marker and their ends, not byte for byte."""
    if kind in ("scenario", "png"):
        return refs.index(data) if data in refs else None
    if EXT[kind] == "pdf":
        whole = data.startswith(b"%PDF-") and data.rstrip().endswith(b"%%EOF") and len(data) > 1000
    else:
        whole = data.startswith(b"<?xml") and data.rstrip().endswith(b"</svg>") and len(data) > 1000
    if not whole:
        return None
    return 0 if b"version 0" in data else 1


total = 0
orphans_seen = 0
with tempfile.TemporaryDirectory() as tmp:
    for k, kind in enumerate(KINDS):
        kills = KILLS // len(KINDS) + (1 if k < KILLS % len(KINDS) else 0)
        folder = os.path.join(tmp, kind)
        os.mkdir(folder)
        path = os.path.join(folder, "out." + EXT[kind])
        refs = []
        for variant in (0, 1):
            ref = os.path.join(tmp, f"{kind}-{variant}")
            run(kind, ref, variant).check_returncode()
            with open(ref, "rb") as f:
                refs.append(f.read())
        if kind in ("scenario", "png") and refs[0] == refs[1]:
            failures.append(f"{kind}: the two versions are the same")

        # the stages, and data offsets as fractions of the version written
        points = [("created", 0.0), ("synced", 0.0), ("renamed", 0.0), ("data", 0.0),
                  ("data", 1.0)]
        while len(points) < kills:
            points.append(("data", rng.random()))
        points = points[:kills]

        with open(path, "wb") as f:
            f.write(refs[0])
        on_disk = 0
        seen = [0, 0]
        for i, (stage, fraction) in enumerate(points):
            new = 1 - on_disk
            nbytes = max(1, round(fraction * len(refs[new])))
            p = run(kind, path, new, stage, nbytes)
            total += 1
            if p.returncode != -signal.SIGKILL:
                failures.append(f"{kind} #{i} ({stage} {nbytes}): the writer was not killed "
                                f"(exit {p.returncode}: {p.stderr.decode()[-200:]})")
                continue
            with open(path, "rb") as f:
                data = f.read()
            got = version_of(kind, data, refs)
            want = new if stage == "renamed" else on_disk
            if got is None:
                failures.append(f"{kind} #{i} ({stage} {nbytes}): {len(data)} bytes, not a "
                                f"complete {kind} file")
                continue
            if got != want:
                failures.append(f"{kind} #{i} ({stage} {nbytes}): version {got} on disk, "
                                f"version {want} expected")
            seen[got] += 1
            on_disk = got
            left = [n for n in os.listdir(folder) if n != os.path.basename(path)]
            if stage != "renamed":
                if len(left) != 1 or not left[0].startswith(PREFIX):
                    failures.append(f"{kind} #{i} ({stage} {nbytes}): left {left}, expected "
                                    f"one temporary file named {PREFIX}…")
                orphans_seen += len(left)

        # the next write, not killed, removes what the killed ones left
        run(kind, path, 1 - on_disk).check_returncode()
        left = [n for n in os.listdir(folder) if n != os.path.basename(path)]
        if left:
            failures.append(f"{kind}: {len(left)} temporary files left after a clean write: "
                            f"{left[:3]}")
        print(f"{kind}: {len(points)} kills, version 0/1 on disk afterwards {seen[0]}/{seen[1]}")

for f in failures[:20]:
    print(f"not ok - {f}", file=sys.stderr)
print(f"{total} kills, {len(failures)} failures, {orphans_seen} temporary files of killed "
      f"writers, all removed by the next write")
sys.exit(1 if failures else 0)
