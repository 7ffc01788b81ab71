#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Times `headroom-cli export --chart curve` against matplotlib drawing the
same curve (the same sweep, band and GPU lines) to a PNG of the same size,
and prints the ratio.

    /usr/bin/python3 tests/bench/export-vs-matplotlib.py _build/src/cli/headroom-cli [SCENARIO] [RUNS]

Needs Debian's python3-matplotlib.  Both sides are timed as whole commands
(a fresh process per run, as a script or a Makefile would call them), and
matplotlib is also timed in-process, without its start-up, for fairness."""

import csv
import io
import json
import os
import subprocess
import sys
import tempfile
import time

CLI = os.path.abspath(sys.argv[1])
HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIO = sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "..", "..", "data", "examples",
                                                               "llama-3.1-8b-lora-4090.json")
RUNS = int(sys.argv[3]) if len(sys.argv) > 3 else 10
GPUS = "rtx-4090,a100-80gb,h100-sxm"

MATPLOTLIB = r'''
import json, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
d = json.load(open(sys.argv[1]))
fig, ax = plt.subplots(figsize=(12.8, 8.0), dpi=100)
b = [p[0] for p in d["points"]]
ax.fill_between(b, [p[2] for p in d["points"]], [p[3] for p in d["points"]], alpha=0.2, label="range")
ax.plot(b, [p[1] for p in d["points"]], lw=2, label="prediction")
for g in d["gpus"]:
    ax.axhline(g["usable"], ls="--", lw=1)
    ax.annotate(f'{g["name"]}: {g["usable"]:.1f} GiB usable', (b[-1], g["usable"]), ha="right", va="bottom")
    if g["max"]:
        y = [p[1] for p in d["points"] if p[0] == g["max"]]
        if y:
            ax.plot([g["max"]], y, "o")
ax.set_xlabel("Micro-batch")
ax.set_ylabel("Peak memory (GiB)")
ax.set_title(d["title"])
ax.grid(alpha=0.3)
ax.legend()
fig.savefig(sys.argv[2])
'''


def run(cmd):
    subprocess.run(cmd, check=True, capture_output=True)


def timed(cmd, runs):
    run(cmd)  # warm the disk cache and the font cache
    start = time.perf_counter()
    for _ in range(runs):
        run(cmd)
    return (time.perf_counter() - start) / runs


def main():
    gib = 2 ** 30
    sweep = subprocess.run([CLI, "sweep", SCENARIO, "--batch", "1:64", "--csv"], check=True,
                           capture_output=True, text=True).stdout
    rows = list(csv.DictReader(io.StringIO(sweep)))
    fits = json.loads(subprocess.run([CLI, "fits", SCENARIO, "--gpus", GPUS, "--json"], check=True,
                                     capture_output=True, text=True).stdout)
    data = {
        "title": os.path.basename(SCENARIO),
        "points": [[int(r["micro_batch"]), int(r["total_bytes"]) / gib, int(r["low_bytes"]) / gib,
                    int(r["high_bytes"]) / gib] for r in rows],
        "gpus": [{"name": g["gpu"], "usable": g["usable"] / gib, "max": g["max_micro_batch"]} for g in fits["gpus"]],
    }

    with tempfile.TemporaryDirectory() as tmp:
        data_path = os.path.join(tmp, "curve.json")
        script = os.path.join(tmp, "curve.py")
        with open(data_path, "w") as f:
            json.dump(data, f)
        with open(script, "w") as f:
            f.write(MATPLOTLIB)

        ours = timed([CLI, "export", SCENARIO, "--chart", "curve", "--gpus", GPUS, "-o",
                      os.path.join(tmp, "headroom.png"), "--width", "1280", "--height", "800"], RUNS)
        theirs = timed([sys.executable, script, data_path, os.path.join(tmp, "matplotlib.png")], RUNS)

        # matplotlib without interpreter and import start-up
        import matplotlib
        matplotlib.use("Agg")
        code = compile(MATPLOTLIB, script, "exec")
        argv = sys.argv
        sys.argv = [script, data_path, os.path.join(tmp, "matplotlib.png")]
        exec(code, {"__name__": "__main__"})
        start = time.perf_counter()
        for _ in range(RUNS):
            exec(code, {"__name__": "__main__"})
        in_process = (time.perf_counter() - start) / RUNS
        sys.argv = argv

    print(f"headroom-cli export --chart curve: {ours * 1000:7.1f} ms per run (whole command, {RUNS} runs)")
    print(f"python3 + matplotlib, same curve:  {theirs * 1000:7.1f} ms per run (whole command)")
    print(f"matplotlib in-process, no start-up: {in_process * 1000:7.1f} ms per figure")
    print(f"ratio (matplotlib command / headroom-cli export): {theirs / ours:.1f}x")
    print(f"ratio (matplotlib in-process / headroom-cli export): {in_process / ours:.1f}x")


if __name__ == "__main__":
    main()
