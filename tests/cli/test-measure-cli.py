#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""headroom-cli measure on memory snapshots and long logs: the snapshot's
analysis in --json, --scenario beside a snapshot, refused pickles (and the
command one of them holds never runs), and --points, which streams every
point of a log that the default prints thinned, its peaks kept.

Usage: test-measure-cli.py HEADROOM_CLI SNAPSHOT_DIR MEASURE_DIR EXAMPLES_DIR"""

import json
import os
import subprocess
import sys
import tempfile

CLI, SNAPSHOTS, MEASURE, EXAMPLES = (os.path.abspath(a) for a in sys.argv[1:5])
failures = []


def check(cond, what):
    print(("ok - " if cond else "not ok - ") + what)
    if not cond:
        failures.append(what)


def run(*args, cwd=None):
    return subprocess.run([CLI, "measure", *args], capture_output=True, text=True, cwd=cwd,
                          env=dict(os.environ, LC_ALL="C.UTF-8"))


# A snapshot: its peaks, buckets at the peak and sites, as the model that
# wrote it kept them.
path = os.path.join(SNAPSHOTS, "snapshot-train.pickle")
want = json.load(open(os.path.join(SNAPSHOTS, "snapshot-train.expected.json")))["devices"][0]
p = run(path, "--json")
check(p.returncode == 0, f"measure snapshot --json exits 0 ({p.stderr.strip()})")
d = json.loads(p.stdout)
dev = d["snapshot"]["devices"][0]
check(d["format"] == "torch-memory-snapshot" and d["headroom_measurement"] == 1,
      "the snapshot's format")
check(dev["allocated_peak"] == want["allocated_peak"] and
      dev["reserved_peak"] == want["reserved_peak"],
      "exact allocated and reserved peaks")
check(abs(dev["allocated_peak_t"] - want["allocated_peak_t"]) < 1e-9, "when the peak happened")
check(dev["buckets"] == want["buckets"] and sum(dev["buckets"].values()) == dev["allocated_peak"],
      "the buckets at the peak add up to it")
check(dev["fragmentation"] == dev["reserved_at_allocated_peak"] - dev["allocated_peak"],
      "fragmentation is the reserve holding no tensor at the peak")
check(dev["sites"][0]["bytes"] == want["top_site"]["bytes"] and
      dev["sites"][0]["filename"] == want["top_site"]["filename"], "the top allocation site")
check(all(a["bytes"] >= b["bytes"] for a, b in zip(dev["sites"], dev["sites"][1:])),
      "sites come most bytes first")
allocated = next(s for s in d["series"] if s["metric"] == "allocated")
check(allocated["peak"] == want["allocated_peak"] and
      allocated["peak"] == max(q["bytes"] for q in allocated["points"]),
      "the allocated timeline's peak is its largest point")
check(d["config"].get("micro_batch") == "8", "the probe's micro-batch comes through")

# Beside a scenario: the buckets against the estimate at the snapshot's
# micro-batch.
p = run(path, "--json", "--scenario", os.path.join(EXAMPLES, "smolvla-4090.json"))
check(p.returncode == 0, f"measure snapshot --scenario exits 0 ({p.stderr.strip()})")
c = json.loads(p.stdout).get("comparison", {})
check(c.get("micro_batch") == 8 and len(c.get("buckets", [])) == 5 and
      c["allocated_peak"]["measured"] == want["allocated_peak"] and
      c["allocated_peak"]["predicted"] > 0, "the snapshot beside the estimate")
p = run(path, "--scenario", os.path.join(EXAMPLES, "smolvla-4090.json"))
check(p.returncode == 0 and "Against" in p.stdout and "Top allocation sites" in p.stdout,
      "the text report shows the comparison and the sites")

# Refused pickles: exit 2, the byte named, and nothing run.
with tempfile.TemporaryDirectory() as tmp:
    p = run(os.path.join(MEASURE, "bad", "reduce.pickle"), cwd=tmp)
    check(p.returncode == 2 and "byte 2: opcode GLOBAL" in p.stderr,
          f"a pickle that would run a command is refused ({p.stderr.strip()})")
    check(not os.path.exists(os.path.join(tmp, "headroom-pickle-ran-me")),
          "and its command did not run")
p = run(os.path.join(MEASURE, "bad", "reduce-only.pickle"))
check(p.returncode == 2 and "byte 13: opcode REDUCE (0x52)" in p.stderr, "REDUCE named at its byte")

# A log longer than the summary: the default prints it thinned, --points
# every point, streamed; both with the same exact peaks.
with tempfile.TemporaryDirectory() as tmp:
    log = os.path.join(tmp, "smi.csv")
    with open(log, "w") as f:
        f.write("timestamp, index, name, memory.used [MiB]\n")
        for i in range(6000):
            used = 1000 + (i * 7919) % 5000 + (90000 if i == 4321 else 0)
            f.write(f"2024/05/14 10:{i // 1200 % 60:02d}:{i // 20 % 60:02d}.{i % 1000:03d}, "
                    f"{i % 2}, NVIDIA H100, {used} MiB\n")
    summary = json.loads(run(log, "--json").stdout)
    every = run(log, "--json", "--points")
    check(every.returncode == 0, f"--points exits 0 ({every.stderr.strip()})")
    every = json.loads(every.stdout)
    for s, e in zip(summary["series"], every["series"]):
        check(s["n_points"] == 3000 and s["thinned"] and len(s["points"]) <= 1000,
              f"{s['name']}: thinned to at most 1000 points by default")
        check(len(e["points"]) == 3000 and not e["thinned"],
              f"{e['name']}: every point with --points")
        check(all(q["t"] == round(q["t"], 3) for q in e["points"]),
              f"{e['name']}: times exact to the millisecond the log wrote")
        check(s["peak"] == e["peak"] == max(q["bytes"] for q in e["points"]) ==
              max(q["bytes"] for q in s["points"]) and s["peak_t"] == e["peak_t"],
              f"{s['name']}: the same exact peak, at the same time")
    check(summary["series"][1]["peak"] == (1000 + (4321 * 7919) % 5000 + 90000) * 2**20,
          "the spike is the peak")

# The bucket chart sets a snapshot's measured bar beside the estimate's;
# other measurements are only drawn on the curve.
with tempfile.TemporaryDirectory() as tmp:
    scenario = os.path.join(EXAMPLES, "smolvla-4090.json")
    env = dict(os.environ, LC_ALL="C.UTF-8")
    out = os.path.join(tmp, "bars.svg")
    p = subprocess.run([CLI, "export", scenario, "--chart", "buckets", "--measurements",
                        path, "-o", out], capture_output=True, text=True, env=env)
    check(p.returncode == 0 and os.path.getsize(out) > 1000,
          f"export --chart buckets --measurements snapshot ({p.stderr.strip()})")
    svg = open(out, encoding="utf-8").read()
    check("measured (snapshot-train.pickle)" in svg and "unattributed" in svg,
          "the measured bar is drawn, with its unattributed part")
    p = subprocess.run([CLI, "export", scenario, "--chart", "buckets", "--measurements",
                        os.path.join(MEASURE, "nvidia-smi.csv"), "-o", out],
                       capture_output=True, text=True, env=env)
    check(p.returncode == 0 and "measured (" not in open(out, encoding="utf-8").read(),
          "a log gives the bucket chart no measured bar")

print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
