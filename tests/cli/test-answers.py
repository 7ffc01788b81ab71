#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Issue 13's "Done when", on the shipped examples (data/examples), not on
fixtures: the DreamerV3 guide's budget bands out of `advise`, every example
on its card, `knobs` offering a lever whenever one makes the run fit, and
`export --chart buckets --gpus` drawing every card named.
Usage: test-answers.py HEADROOM_CLI EXAMPLES_DIR"""

import json
import os
import re
import subprocess
import sys
import tempfile

CLI = sys.argv[1]
EXAMPLES = sys.argv[2]
failures = []
checks = 0


def run(*args):
    return subprocess.run([CLI, *args], capture_output=True, text=True, timeout=300)


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        failures.append(what)
        print(f"not ok - {what}", file=sys.stderr)


def cli_json(*args):
    p = run(*args, "--json")
    check(p.returncode == 0, f"{' '.join(args)} exits 0 ({p.stderr.strip()})")
    return json.loads(p.stdout) if p.returncode == 0 else None


examples = sorted(f for f in os.listdir(EXAMPLES) if f.endswith(".json"))
DREAMER = os.path.join(EXAMPLES, "dreamerv3-5090d.json")

# ---- the seed's bands: DreamerV3, 18 h a day for 24 months ----
for budget, want in (("1000", "rtx-3090"), ("2000", "rtx-4090"), ("2800", "rtx-5090d")):
    d = cli_json("advise", DREAMER, "--hours-per-day", "18", "--months", "24", "--budget", budget)
    if d is None:
        continue
    best = d["recommendations"][0]
    # a used RTX 3090 Ti has the 3090's memory and more compute: the
    # guide's rule, memory first and then compute, takes it where it can
    check((best["gpu"] == want or (want == "rtx-3090" and best["gpu"] == "rtx-3090-ti"))
          and best["choice"] == "buy" and best["within_budget"],
          f"DreamerV3, 18 h a day, 24 months, ${budget}: buy {want} (got {best['gpu']}, "
          f"{best['choice']}, within {best['within_budget']})")
    check(best["price_usd"] <= float(budget), f"${budget}: the first card costs no more than the budget")
    if want == "rtx-3090":
        check(best["used"] is True and best["price_as_of"] is not None,
              "$1,000: the RTX 3090 is the used card, at a dated price")
for flags in (["--answer", "usage=occasional"], ["--hours-per-day", "1", "--months", "2"]):
    d = cli_json("advise", DREAMER, *flags)
    if d is not None:
        check(d["recommendations"][0]["choice"] == "rent", f"DreamerV3 {' '.join(flags)}: rent")

# ---- no over-budget card above a card within budget that runs it ----
for name in examples:
    for budget in ("1000", "2800", "40000"):
        d = cli_json("advise", os.path.join(EXAMPLES, name), "--hours-per-day", "18", "--months", "24",
                     "--budget", budget)
        if d is None:
            continue
        recs = d["recommendations"]
        within = [bool(r["within_budget"]) for r in recs if r["fits"]]
        check(within == sorted(within, reverse=True),
              f"{name} at ${budget}: no over-budget card ranks above one within budget")

# ---- every example fits its card, or its name says it does not ----
# "…: more than one H100 holds" is how a name says the run is not for its card.
SAYS_NOT = re.compile(r"more than one [^:]*holds", re.I)
for name in examples:
    path = os.path.join(EXAMPLES, name)
    with open(path) as f:
        scenario = json.load(f)
    check(any(k.startswith("x-") for k in scenario), f"{name}: cites its upstream defaults in an x- key")
    d = cli_json("estimate", path)
    if d is None:
        continue
    fit = d["fit"]
    if fit["fits"]:
        check(not SAYS_NOT.search(scenario["name"]), f"{name}: fits its card, and its name does not say otherwise")
        check(fit["max_micro_batch"] >= scenario.get("micro_batch", 1),
              f"{name}: the card runs the example's own micro-batch")
    else:
        check(SAYS_NOT.search(scenario["name"]) is not None,
              f"{name}: does not fit its card, so its name must say so: {scenario['name']!r}")

# DreamerV3's default computes in bf16 (configs.yaml) and fits 24 GB cards.
with open(DREAMER) as f:
    check(json.load(f)["compute"] == "bf16-mixed", "DreamerV3 computes in bf16 as configs.yaml does")
d = cli_json("fits", DREAMER, "--gpus", "rtx-3090,rtx-4090,rtx-5090d")
if d is not None:
    check(all(g["fits"] for g in d["gpus"]) and len(d["gpus"]) == 3,
          "DreamerV3's default fits the 24 GB cards and the 5090D")

# ---- knobs offers a lever whenever one makes the run fit ----
GPUS = ["rtx-3060-12gb", "rtx-3090", "rtx-4090", "a100-80gb", "h100-sxm"]
COST = {"none": 0, "low": 1, "medium": 2, "high": 4}
for name in examples:
    path = os.path.join(EXAMPLES, name)
    fits = cli_json("fits", path, "--gpus", ",".join(GPUS))
    for gpu in GPUS:
        k = cli_json("knobs", path, "--set", f"gpu={gpu}", "--sort", "cost")
        if k is None or fits is None:
            continue
        row = next(g for g in fits["gpus"] if g["gpu"] == gpu)
        fixing = [x for x in k["knobs"] if x["fits_after"]]
        where = f"{name} on {gpu}"
        check(row["fits"] == k["fits"], f"{where}: fits and knobs agree on the verdict")
        if k["fits"]:
            check(k["fix"] is None, f"{where}: fits, so no lever is needed")
            continue
        if fixing:
            check(k["fix"] is not None and k["fix"]["id"] == fixing[0]["id"],
                  f"{where}: a lever makes it fit, so knobs names the least costly one")
            check(row["fix"] is not None and row["fix"]["id"] == k["fix"]["id"],
                  f"{where}: fits names the lever knobs names")
            check("no single lever" not in row["verdict"], f"{where}: no 'no lever' when one fits")
        else:
            check(k["fix"] is None and "no single lever" in row["verdict"],
                  f"{where}: no lever makes it fit, and the verdict says so")
    # sorted by memory saved, and by cost with the fitting ones first
    k = cli_json("knobs", path, "--sort", "saved")
    if k is not None:
        # what a lever is worth: bytes saved, or usable bytes gained (a pool)
        gained = [x["gained"] for x in k["knobs"]]
        check(gained == sorted(gained, reverse=True), f"{name}: --sort saved orders by memory won")

# The lever named for the examples that do not fit their card.
for name, lever in (("llama-2-70b-fp16-inference.json", "weights-fp8"),
                    ("pi05-fp32.json", "recompute-full")):
    k = cli_json("knobs", os.path.join(EXAMPLES, name))
    if k is not None:
        check(k["fix"] is not None and k["fix"]["id"] == lever,
              f"{name}: the lever that fixes it is {lever} (got {k['fix'] and k['fix']['id']})")

# ---- export --chart buckets --gpus draws every GPU named ----
with tempfile.TemporaryDirectory() as tmp:
    gpus = json.loads(run("gpus", "--json").stdout)["entries"]
    names = {g["id"]: g["name"] for g in gpus}
    for name in examples:
        ids = ["rtx-3090", "a100-80gb", "h100-sxm", "rtx-3060-12gb"]
        out = os.path.join(tmp, name + ".svg")
        p = run("export", os.path.join(EXAMPLES, name), "--chart", "buckets", "--gpus", ",".join(ids),
                "-o", out)
        ok = p.returncode == 0 and os.path.exists(out)
        check(ok, f"{name}: export --chart buckets --gpus ({p.stderr.strip()})")
        if not ok:
            continue
        svg = open(out).read()
        desc = re.search(r"<desc[^>]*>(.*?)</desc>", svg, re.S)
        check(desc is not None and all(names[i] in desc.group(1) for i in ids),
              f"{name}: the bucket chart draws every GPU named")
    # the comparison curve too, as the window draws it
    out = os.path.join(tmp, "curve.svg")
    p = run("export", DREAMER, "--chart", "curve", "--gpus", "rtx-3090,rtx-4090,rtx-5090d", "-o", out)
    desc = re.search(r"<desc[^>]*>(.*?)</desc>", open(out).read(), re.S) if p.returncode == 0 else None
    check(desc is not None and all(names[i] in desc.group(1) for i in ("rtx-3090", "rtx-4090", "rtx-5090d")),
          "export --chart curve --gpus draws every GPU named")

print(f"{checks - len(failures)}/{checks} checks passed")
sys.exit(1 if failures else 0)
