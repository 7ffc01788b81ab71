#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Snapshots at two micro-batches calibrate headroom-cli as they do the
window: `estimate --measurements b8.pickle --measurements b16.pickle
--calibrate` takes the two runs as one sweep, and its figures are the
analysis' own (analysis-figures, which calls hr_analysis_new directly).
One snapshot alone cannot calibrate, and says how to get the second.

Usage: test-snapshot-sweep.py HEADROOM_CLI ANALYSIS_FIGURES SNAPSHOT_DIR EXAMPLES_DIR"""

import json
import os
import subprocess
import sys

CLI, FIGURES, SNAPSHOTS, EXAMPLES = (os.path.abspath(a) for a in sys.argv[1:5])
ENV = dict(os.environ, LC_ALL="C.UTF-8")
failures = []


def check(cond, what):
    print(("ok - " if cond else "not ok - ") + what)
    if not cond:
        failures.append(what)


def run(*args):
    return subprocess.run(list(args), capture_output=True, text=True, env=ENV)


scenario = os.path.join(EXAMPLES, "smolvla-4090.json")
b8 = os.path.join(SNAPSHOTS, "smolvla-b8.pickle")
b16 = os.path.join(SNAPSHOTS, "smolvla-b16.pickle")

p = run(CLI, "estimate", scenario, "--measurements", b8, "--measurements", b16, "--calibrate",
        "--json")
check(p.returncode == 0, f"estimate with two snapshots exits 0 ({p.stderr.strip()})")
cli = json.loads(p.stdout)
p = run(FIGURES, scenario, b8, b16)
check(p.returncode == 0, f"the analysis used directly ({p.stderr.strip()})")
direct = json.loads(p.stdout)

check(direct["calibrated"] and direct["sweep"] == "snapshots at micro-batch 8, 16",
      "the analysis takes the two snapshots as one sweep and calibrates from it")
check(cli["calibrated"] is True, "headroom-cli calibrates from the two snapshots")
check(len(cli["measurements"]) == 3 and
      cli["measurements"][2]["file"] == "snapshots at micro-batch 8, 16" and
      cli["measurements"][2]["can_calibrate"],
      "the sweep is listed after the two files")
check(cli["per_gpu"]["total"] == direct["per_gpu"]["total"] and
      cli["per_gpu"]["low"] == direct["per_gpu"]["low"] and
      cli["per_gpu"]["high"] == direct["per_gpu"]["high"] and
      all(cli["per_gpu"][k] == v for k, v in direct["per_gpu"].items()),
      "the same calibrated buckets and range as the analysis "
      f"({cli['per_gpu']['total']} vs {direct['per_gpu']['total']})")
check(cli["fit"]["max_micro_batch"] == direct["max_micro_batch"] and
      cli["fit"]["need"] == direct["need"],
      "the same calibrated fit on the scenario's card "
      f"(largest micro-batch {cli['fit']['max_micro_batch']})")

# Calibration changed the figures: they are not the uncalibrated ones.
p = run(CLI, "estimate", scenario, "--json")
plain = json.loads(p.stdout)
check(plain["per_gpu"]["total"] != cli["per_gpu"]["total"],
      "the calibrated total differs from the uncalibrated one")

# The text says what calibrated it, with the analysis' factors.
p = run(CLI, "estimate", scenario, "--measurements", b8, "--measurements", b16, "--calibrate")
check(p.returncode == 0 and "(applied)" in p.stdout and
      f"Activations ×{direct['activation_scale']:.2f}" in p.stdout,
      "the text names the calibration applied, with the analysis' scale")

# One snapshot is one run: no calibration, and the reason.
p = run(CLI, "estimate", scenario, "--measurements", b8, "--calibrate", "--json")
one = json.loads(p.stdout)
check(p.returncode == 0 and one["calibrated"] is False and len(one["measurements"]) == 1,
      "one snapshot alone does not calibrate")
p = run(CLI, "estimate", scenario, "--measurements", b8, "--calibrate")
check("import snapshots of this setup at two or more micro-batches" in p.stdout,
      "and says how to get the second")

# headroom-cli measure reads the analysis' estimate at a snapshot's batch.
p = run(CLI, "measure", b16, "--scenario", scenario, "--json")
check(p.returncode == 0, f"measure a snapshot beside the scenario ({p.stderr.strip()})")
cmp = json.loads(p.stdout)["comparison"]
check(cmp["micro_batch"] == 16, "compared at the snapshot's own micro-batch")
p16 = run(CLI, "estimate", scenario, "--set", "micro_batch=16", "--json")
est16 = json.loads(p16.stdout)["per_gpu"]
check(all(b["predicted"] == est16[b["bucket"]] for b in cmp["buckets"]),
      "its buckets are the estimate at micro-batch 16")

sys.exit(1 if failures else 0)
