#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""headroom-cli --unit gb|gib: every size printed as text, and every size a
chart draws, follows it; --json keeps bytes; a bad unit is refused (exit 2).

    test-unit.py HEADROOM_CLI EXAMPLES_DIR
"""
import json, os, re, subprocess, sys, tempfile

cli, examples = sys.argv[1], sys.argv[2]
failures = []


def run(*args):
    return subprocess.run([cli, *args], capture_output=True, text=True, timeout=120)


def fail(message):
    failures.append(message)
    print("not ok:", message)


GIB = re.compile(r"\bGiB\b|\bMiB\b|\bKiB\b")
GB = re.compile(r"\bGB\b|\bMB\b")

for name in sorted(os.listdir(examples)):
    if not name.endswith(".json"):
        continue
    path = os.path.join(examples, name)
    for command in (["estimate"], ["fits", "--gpus", "rtx-4090,a100-80gb"], ["sweep"]):
        gib = run(*command, path)
        gb = run(*command, path, "--unit", "gb")
        if gib.returncode or gb.returncode:
            fail(f"{name} {command[0]}: exit {gib.returncode}, {gb.returncode}: {gb.stderr.strip()}")
            continue
        # what the scenario and the model card name in their own words
        # ("24GB VRAM") may stay; figures Headroom prints may not
        text = "\n".join(l for l in gb.stdout.splitlines() if not l.startswith("  - "))
        if GIB.search(text):
            line = next(l for l in text.splitlines() if GIB.search(l))
            fail(f"{name} {command[0]} --unit gb still says GiB: {line.strip()[:120]}")
        if not GB.search(gb.stdout):
            fail(f"{name} {command[0]} --unit gb says no GB")
        if gib.stdout == gb.stdout:
            fail(f"{name} {command[0]}: --unit gb changes nothing")
    # --json keeps bytes
    a = json.loads(run("estimate", path, "--json").stdout)
    b = json.loads(run("estimate", path, "--json", "--unit", "gb").stdout)
    if a["per_gpu"] != b["per_gpu"]:
        fail(f"{name}: --unit changes --json's bytes")

# the charts: the axis, the labels and the note in GB
with tempfile.TemporaryDirectory() as tmp:
    for chart in ("buckets", "curve"):
        out = os.path.join(tmp, chart + ".svg")
        p = run("export", os.path.join(examples, "gr00t-n1.7-h100.json"), "--chart", chart,
                "--gpus", "rtx-4090,a100-80gb", "--unit", "gb", "-o", out)
        if p.returncode:
            fail(f"export {chart}: exit {p.returncode}: {p.stderr.strip()}")
            continue
        svg = open(out, encoding="utf-8").read()
        texts = " ".join(re.findall(r"<text[^>]*>(.*?)</text>", svg, re.S))
        words = re.sub(r"<[^>]+>", " ", texts)
        if GIB.search(words):
            fail(f"export {chart} --unit gb draws GiB: {GIB.search(words).group(0)}")
        if not GB.search(words):
            fail(f"export {chart} --unit gb draws no GB")

for bad in ("tb", "GiBs", ""):
    p = run("estimate", os.path.join(examples, "act-2080ti.json"), "--unit", bad)
    if p.returncode != 2 or "--unit" not in p.stderr:
        fail(f"--unit {bad!r}: exit {p.returncode}, {p.stderr.strip()[:120]}")

print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
