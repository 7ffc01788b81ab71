#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""One provenance per figure: a line of the breakdown is "calibrated" only
when a measurement of this scenario set it, and then the chart's note, the
table and --json say so alike; with nothing measured nothing is calibrated.

    test-provenance.py HEADROOM_CLI EXAMPLES_DIR MEASURE_DIR
"""
import json, os, re, subprocess, sys, tempfile

cli, examples, measure = sys.argv[1:4]
failures = []


def run(*args):
    return subprocess.run([cli, *args], capture_output=True, text=True, timeout=120)


def fail(message):
    failures.append(message)
    print("not ok:", message)


def svg_words(path):
    svg = open(path, encoding="utf-8").read()
    return re.sub(r"<[^>]+>", " ", " ".join(re.findall(r"<text[^>]*>(.*?)</text>", svg, re.S)))


with tempfile.TemporaryDirectory() as tmp:
    for name in sorted(os.listdir(examples)):
        if not name.endswith(".json"):
            continue
        path = os.path.join(examples, name)
        p = run("estimate", path, "--json")
        d = json.loads(p.stdout)
        for item in d.get("items", []):
            if item["basis"] == "calibrated":
                fail(f"{name}: nothing measured, yet \"{item['label']}\" is calibrated")
        text = run("estimate", path).stdout
        for line in text.splitlines():
            if "[calibrated]" in line or "(calibrated)" in line:
                fail(f"{name}: nothing measured, yet the table says: {line.strip()[:100]}")
        out = os.path.join(tmp, name + ".svg")
        run("export", path, "--chart", "buckets", "-o", out)
        words = svg_words(out)
        if re.search(r"\bcalibrated\b", words) and "nothing measured" in words:
            fail(f"{name}: the chart's note says calibrated with nothing measured")

    # a measurement of the same setup calibrates: the activations and the
    # overhead it set are calibrated, the weights are not, and the note says so
    scenario = os.path.join(examples, "smolvla-4090.json")
    args = ["--set", "compute=bf16-mixed", "--measurements",
            os.path.join(measure, "probe-torch.csv"), "--calibrate"]
    d = json.loads(run("estimate", scenario, "--json", *args).stdout)
    bases = {(i["bucket"], i["basis"]) for i in d["items"]}
    if not d.get("calibrated"):
        fail("the probe of the same setup does not calibrate")
    if ("activations", "calibrated") not in bases or any(
            b == "calibrated" for (k, b) in bases if k in ("weights", "gradients", "optimizer")):
        fail(f"calibrated lines are not the ones the measurement set: {sorted(bases)}")
    out = os.path.join(tmp, "calibrated.svg")
    run("export", scenario, "--chart", "buckets", "-o", out, *args)
    if not re.search(r"\bcalibrated\b", svg_words(out)):
        fail("the calibrated chart's note does not say calibrated")

print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
