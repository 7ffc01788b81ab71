#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The README's table of examples, made by the product: each row's verdict,
largest micro-batch and lever come from `headroom-cli fits` on the
example's own card, so the table cannot drift from what Headroom says.

  readme-examples.py HEADROOM_CLI EXAMPLES_DIR README          # fails when it drifted
  readme-examples.py HEADROOM_CLI EXAMPLES_DIR README --write  # rewrites the table

The first column (the example and where its defaults come from) and the
card are written by hand; every example in EXAMPLES_DIR must have a row."""

import json
import os
import re
import subprocess
import sys

CLI, EXAMPLES, README = sys.argv[1:4]
WRITE = "--write" in sys.argv[4:]
HEADER = "| example | card | verdict | largest micro-batch | lever that fixes it |"
# "…: more than one H100 holds" is how a name says the run is not for its card.
SAYS_NOT = re.compile(r"more than one [^:]*holds", re.I)
GiB = 2 ** 30


def fits(path, gpu):
    p = subprocess.run([CLI, "fits", path, "--gpus", gpu, "--json"], capture_output=True,
                       text=True, timeout=300)
    if p.returncode != 0:
        sys.exit(f"{path}: headroom-cli fits failed: {p.stderr.strip()}")
    return json.loads(p.stdout)


def row_for(name, first, card):
    path = os.path.join(EXAMPLES, name + ".json")
    with open(path) as f:
        scenario = json.load(f)
    d = fits(path, scenario["gpu"])
    g = d["gpus"][0]
    asks = scenario.get("micro_batch", 1)
    if g["fit"] == "fits":
        verdict = "fits"
    elif g["fit"] == "tight":
        verdict = f"probably fits, tight ({g['short_at_high_end'] / GiB:.2f} GiB short at the high end)"
    else:
        verdict = "does not fit"
        if SAYS_NOT.search(scenario.get("name", "")):
            verdict += " (as named)"
    largest = f"{'≥' if g['max_is_lower_bound'] else ''}{g['max_micro_batch']}"
    if g["max_micro_batch"] < asks:
        largest += f" (asks {asks})"
    if g["max_micro_batch_at_high_end"] != g["max_micro_batch"]:
        largest += f"; {g['max_micro_batch_at_high_end']} at the high end"
    lever = g["fix"]["change"] if g["fix"] else ""
    if lever:
        lever = f"`{lever}`"
    return f"| {first} | {card} | {verdict} | {largest} | {lever + ' ' if lever else ''}|"


with open(README, encoding="utf-8") as f:
    text = f.read()
start = text.index(HEADER)
lines = text[start:].split("\n")
end = 2
while end < len(lines) and lines[end].startswith("| "):
    end += 1
rows = lines[2:end]

made = []
seen = set()
for row in rows:
    cells = [c.strip() for c in row.strip("|").split("|")]
    m = re.match(r"`([^`]+)`", cells[0])
    if m is None:
        sys.exit(f"{README}: a row of the examples table names no example: {row}")
    seen.add(m.group(1))
    made.append(row_for(m.group(1), cells[0], cells[1]))
missing = sorted(n[:-5] for n in os.listdir(EXAMPLES) if n.endswith(".json"))
missing = [n for n in missing if n not in seen]
if missing:
    sys.exit(f"{README}: the examples table has no row for {', '.join(missing)}")

if WRITE:
    new = text[:start] + "\n".join(lines[:2] + made + lines[end:])
    with open(README, "w", encoding="utf-8") as f:
        f.write(new)
    print(f"{README}: {len(made)} rows written")
    sys.exit(0)

drift = [(a, b) for a, b in zip(rows, made) if a != b]
for a, b in drift:
    print(f"README says: {a}\nHeadroom says: {b}", file=sys.stderr)
if drift:
    print(f"{len(drift)} of {len(made)} rows drifted; regenerate with\n"
          f"  python3 tests/cli/readme-examples.py {CLI} {EXAMPLES} {README} --write", file=sys.stderr)
    sys.exit(1)
print(f"{len(made)} rows as Headroom says")
