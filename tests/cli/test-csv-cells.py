#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""`headroom-cli fits --csv` with GPU names a spreadsheet would run as
formulas (from a user catalog, which anyone can hand over): every text cell
comes out neutralised, numbers stay numbers, and Python's csv module reads
the same rows back.  Usage: test-csv-cells.py HEADROOM_CLI SCENARIO"""

import csv
import io
import json
import os
import subprocess
import sys
import tempfile

CLI, SCENARIO = sys.argv[1:3]
NAMES = {
    "f-eq": ("=HYPERLINK(\"http://example.com\",\"click\")",
             "'=HYPERLINK(\"http://example.com\",\"click\")"),
    "f-plus": ("+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"),
    "f-minus": ("-2+3", "'-2+3"),
    "f-at": ("@SUM(1,2)", "'@SUM(1,2)"),
    "f-number": ("-3.5", "-3.5"),
    "f-plain": ("Card, \"quoted\"", "Card, \"quoted\""),
}
failures = []

with tempfile.TemporaryDirectory() as data:
    os.makedirs(os.path.join(data, "headroom"))
    entries = [{"id": gid, "name": name, "memory": 24 * 10**9, "source": "test"}
               for gid, (name, _) in NAMES.items()]
    with open(os.path.join(data, "headroom", "gpus.json"), "w") as f:
        json.dump({"version": 1, "entries": entries}, f)
    env = dict(os.environ, XDG_DATA_HOME=data, LC_ALL="de_DE.UTF-8")
    p = subprocess.run([CLI, "fits", SCENARIO, "--csv", "--gpus", ",".join(NAMES)],
                       capture_output=True, text=True, env=env, timeout=120)
    if p.returncode != 0 or p.stderr:
        failures.append(f"exit {p.returncode}: {p.stderr.strip()}")

rows = list(csv.DictReader(io.StringIO(p.stdout)))
if len(rows) != len(NAMES):
    failures.append(f"{len(rows)} rows, expected {len(NAMES)}")
for row in rows:
    name, want = NAMES[row["gpu"]]
    if row["name"] != want:
        failures.append(f"{row['gpu']}: name cell {row['name']!r}, expected {want!r}")
    for key in ("capacity_bytes", "usable_bytes", "need_bytes", "max_micro_batch"):
        if not row[key].isdigit():
            failures.append(f"{row['gpu']}: {key} is {row[key]!r}, not a number")
    if row["capacity_bytes"] != str(24 * 10**9):
        failures.append(f"{row['gpu']}: capacity {row['capacity_bytes']}")
for line in p.stdout.splitlines()[1:]:
    for cell in next(csv.reader([line])):
        if cell[:1] in ("=", "+", "@") or (cell[:1] == "-" and cell != "-3.5"):
            failures.append(f"a cell a spreadsheet would run: {cell!r}")

for f in failures:
    print(f"not ok - {f}", file=sys.stderr)
print(f"{len(rows)} rows, {len(failures)} failures")
sys.exit(1 if failures else 0)
