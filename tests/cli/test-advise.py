#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""headroom-cli advise (SCENARIO.md's `advise --json` shape) and three
example users whose recommendations a person would agree with, plus the
advisor's charts.  Usage: test-advise.py HEADROOM_CLI SCENARIOS_DIR"""

import json
import os
import re
import subprocess
import sys
import tempfile

CLI = sys.argv[1]
HERE = sys.argv[2]
failures = []
checks = 0


def run(*args, env=None):
    e = dict(os.environ)
    if env:
        e.update(env)
    return subprocess.run([CLI, *args], capture_output=True, text=True, env=e, timeout=120)


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        failures.append(what)
        print(f"not ok - {what}", file=sys.stderr)


def advise(name, *flags):
    p = run("advise", os.path.join(HERE, name), "--json", *flags)
    check(p.returncode == 0, f"{name}: advise exits 0 ({p.stderr.strip()})")
    return json.loads(p.stdout) if p.returncode == 0 else None


def is_size(v):
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def money_or_null(v):
    return v is None or (isinstance(v, (int, float)) and v >= 0)


STUDENT = "student-qlora-3060.json"
LAB = "lab-gr00t-finetune.json"
TEAM = "team-llm-pretrain.json"

# ---- the contract: SCENARIO.md's keys, with their types ----
for name, flags in ((STUDENT, ["--hours-per-day", "4", "--months", "6", "--budget", "1000"]),
                    (LAB, ["--hours-per-day", "10", "--months", "12", "--runs", "4", "--budget", "40000"]),
                    (TEAM, ["--hours-per-day", "24", "--months", "6", "--datacenter", "--budget", "500000"])):
    d = advise(name, *flags)
    if d is None:
        continue
    check(d.get("headroom_advice") == 1, f"{name}: headroom_advice is 1")
    check(isinstance(d["path"], list) and len(d["path"]) >= 5, f"{name}: a path of questions")
    check(all(isinstance(s["question"], str) and isinstance(s["answer"], str) for s in d["path"]),
          f"{name}: each step has a question and an answer")
    recs = d["recommendations"]
    check(len(recs) >= 3, f"{name}: three or more recommendations")
    for r in recs:
        check(isinstance(r["gpu"], str) and is_size(r["count"]) and r["count"] >= 1,
              f"{name}: {r.get('gpu')}: gpu and count")
        check(r["fits"] is True and is_size(r["max_micro_batch"]) and r["max_micro_batch"] >= 1,
              f"{name}: {r['gpu']}: fits, with a micro-batch")
        for k in ("price_usd", "cloud_usd_per_hour", "break_even_months", "price_per_gb",
                  "power_usd_per_month"):
            check(money_or_null(r[k]), f"{name}: {r['gpu']}: {k} is a number or null")
        check(r["choice"] in ("buy", "rent"), f"{name}: {r['gpu']}: choice is buy or rent")
        check(r["price_as_of"] is None or re.match(r"^\d{4}-\d{2}", r["price_as_of"]),
              f"{name}: {r['gpu']}: prices are dated")
        check(r["count"] == r["gpus_per_run"] * r["runs"], f"{name}: {r['gpu']}: count = per run × runs")
        if r["choice"] == "buy":
            check(r["price_usd"] is not None, f"{name}: {r['gpu']}: bought cards have a price")
        else:
            check(r["cloud_usd_per_hour"] is not None, f"{name}: {r['gpu']}: rented cards have a rate")
    within = [r["within_budget"] for r in recs]
    check(within == sorted(within, reverse=True), f"{name}: options within budget come first")
    h = d["host"]
    check(is_size(h["cpu_cores"]) and is_size(h["ram"]) and is_size(h["disk"]) and h["reasons"],
          f"{name}: host advice in bytes, with reasons")

# ---- a student with one consumer card ----
d = advise(STUDENT, "--hours-per-day", "4", "--months", "6", "--budget", "1000")
best = d["recommendations"][0]
check(best["within_budget"], "student: the first option fits the $1,000 budget")
check(best["gpu"].startswith("rtx-") and best["memory"] >= 24e9,
      f"student: a 24 GB-class consumer card, got {best['gpu']}")
check(best["choice"] == "rent" and best["cost"] <= 1000,
      f"student: a few hours a day for a semester is cheaper rented (got {best['choice']}, ${best['cost']})")
# the order is the cost per finished run: nothing within the budget that
# runs it as asked is cheaper per run than the first
cheaper = [r["gpu"] for r in d["recommendations"][1:]
           if r["within_budget"] and r["fits"] and r["fits_high"] and
           r["cost_per_run"] is not None and r["cost_per_run"] < 0.98 * best["cost_per_run"]]
check(not cheaper, f"student: the first is the cheapest per run (cheaper: {cheaper})")
check(best["run_hours"] is not None and best["run_hours"] > 0 and d["step_flops"] > 0,
      "student: the first shows how long a run takes")
check(any("gradient accumulation" in n for n in d["notes"]),
      "student: told the RTX 3060 can do it with gradient accumulation")

# ---- a lab fine-tuning a VLA, four seeds ----
d = advise(LAB, "--hours-per-day", "10", "--months", "12", "--runs", "4", "--budget", "40000")
recs = d["recommendations"]
check(all(r["runs"] == 4 and r["count"] % 4 == 0 for r in recs), "lab: one card (or group) per seed")
check(all(r["max_micro_batch"] >= 32 for r in recs), "lab: every option runs batch 32")
check(all(not r["gpu"].startswith("mi") for r in recs), "lab: CUDA-only code gets NVIDIA cards")
check(recs[0]["within_budget"] and recs[0]["gpus_per_run"] == 1,
      f"lab: the first option runs each seed on one card ({recs[0]['gpu']})")
check(d["host"]["cpu_cores"] >= 4 * 8, "lab: image DataLoaders for four cards want 32+ cores")

# ---- a team pretraining an LLM ----
d = advise(TEAM, "--hours-per-day", "24", "--months", "6", "--datacenter", "--budget", "500000")
recs = d["recommendations"]
gpus = json.loads(run("gpus", "--json").stdout)["entries"]
tier = {g["id"]: g.get("tier") for g in gpus}
check(all(tier[r["gpu"]] == "datacenter" for r in recs), "team: data-centre cards only")
check(recs[0]["gpu"] in ("b200", "h200", "h100-sxm", "h100-pcie"),
      f"team: a current training card first, got {recs[0]['gpu']}")
check(recs[0]["choice"] == "rent" and recs[0]["break_even_months"] > 6,
      "team: six months is shorter than the break-even, so rent")
check(all(r["gpus_per_run"] > 1 for r in recs if r["memory"] < 90e9),
      "team: cards under 90 GB shard the run (16 bytes of state per parameter)")
check(any(r["sharding"] == "fsdp" for r in recs), "team: FSDP/ZeRO-3 where one card does not do")

# ---- preferences and the seed ----
dreamer = os.path.join(HERE, "..", "..", "..", "data", "examples", "dreamerv3-5090d.json")
for budget, want in (("2200", "rtx-4090"), ("2800", "rtx-5090d")):
    p = run("advise", dreamer, "--json", "--set", "jax_preallocate=false", "--hours-per-day", "18",
            "--budget", budget)
    d = json.loads(p.stdout)
    check(d["recommendations"][0]["gpu"] == want and d["recommendations"][0]["choice"] == "buy",
          f"DreamerV3, 18 h a day, ${budget}: buy {want} (got {d['recommendations'][0]['gpu']})")
p = run("advise", dreamer, "--json", "--set", "jax_preallocate=false", "--hours-per-day", "1",
        "--months", "2")
d = json.loads(p.stdout)
check(d["recommendations"][0]["choice"] == "rent", "DreamerV3 now and then: rent")
for prefer in ("buy", "rent"):
    d = advise(STUDENT, "--prefer", prefer)
    check(all(r["choice"] == prefer for r in d["recommendations"]), f"--prefer {prefer} is kept")

# ---- answering a question oneself ----
d = advise(TEAM, "--answer", "workload=inference", "--answer", "usage=occasional")
check(d["inputs"]["task"] == "inference" and d["path"][0]["answer"] == "Inference",
      "--answer workload=inference changes the task")
check(d["path"][1]["answer_id"] == "occasional" and d["recommendations"][0]["choice"] == "rent",
      "--answer usage=occasional: rent")
p = run("advise", os.path.join(HERE, TEAM), "--answer", "usage=sometimes")
check(p.returncode == 2 and "\"occasional\"" in p.stderr, f"unknown answer lists the answers: {p.stderr!r}")
p = run("advise", os.path.join(HERE, TEAM), "--answer", "colour=red")
check(p.returncode == 2 and "--answer colour=red" in p.stderr, "unknown question exits 2")

# ---- locale, bad input ----
a = run("advise", os.path.join(HERE, LAB), "--json", env={"LC_ALL": "C"}).stdout
b = run("advise", os.path.join(HERE, LAB), "--json", env={"LC_ALL": "de_DE.UTF-8"}).stdout
check(a == b and a.startswith("{"), "advise --json does not depend on the locale")
p = run("advise", os.path.join(HERE, LAB))
check(p.returncode == 0 and "GiB" in p.stdout and "Host:" in p.stdout, "advise prints a table")
p = run("advise", os.path.join(HERE, LAB), "--prefer", "lease")
check(p.returncode == 2 and "--prefer" in p.stderr, "bad --prefer exits 2 naming it")
p = run("advise", os.path.join(HERE, LAB), "--calibrate")
check(p.returncode == 2 and "--calibrate needs --measurements" in p.stderr and p.stdout == "",
      f"--calibrate without a measurement exits 2 as estimate does: {p.stderr!r}")
p = run("advise", os.path.join(HERE, LAB), "--hours-per-day", "30")
check(p.returncode == 2 and "--hours-per-day" in p.stderr, "31 hours a day exits 2")
with tempfile.TemporaryDirectory() as tmp:
    bad = os.path.join(tmp, "bad.json")
    with open(bad, "w") as f:
        f.write('{\n  "headroom_scenario": 1,\n  "model": "gr00t-n1.7",\n  "micro_batch": "big"\n}\n')
    p = run("advise", bad, "--json")
    check(p.returncode == 2 and re.match(re.escape(bad) + r":4:18: ", p.stderr) and p.stdout == "",
          f"bad scenario exits 2, positioned: {p.stderr!r}")

    # ---- the tree and the table as charts ----
    for chart in ("tree", "advice"):
        for fmt in ("png", "svg", "pdf"):
            out = os.path.join(tmp, f"{chart}.{fmt}")
            p = run("export", os.path.join(HERE, LAB), "--chart", chart, "-o", out, "--runs", "4",
                    "--hours-per-day", "10")
            ok = p.returncode == 0 and os.path.exists(out)
            if ok:
                with open(out, "rb") as f:
                    ok = f.read(8).startswith({"png": b"\x89PNG", "svg": b"<?xml", "pdf": b"%PDF"}[fmt])
            check(ok, f"export --chart {chart} as {fmt} ({p.stderr.strip()})")
    svg = open(os.path.join(tmp, "advice.svg")).read()
    check("<desc" in svg and "RTX" in svg, "the advice table's SVG has a description naming cards")
    svg = open(os.path.join(tmp, "tree.svg")).read()
    check("Decision path" in svg and "Several at once" in svg, "the tree's description tells the path")
    report = os.path.join(tmp, "report.pdf")
    p = run("report", os.path.join(HERE, LAB), "-o", report)
    check(p.returncode == 0 and open(report, "rb").read(5) == b"%PDF-", "report with the advice page")

print(f"{checks - len(failures)}/{checks} checks passed")
sys.exit(1 if failures else 0)
