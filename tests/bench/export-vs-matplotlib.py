#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Times `headroom-cli export --chart curve` against matplotlib drawing the
same chart (the same sweep over the same range, the band, a dashed line,
a marker and a label for each GPU, the scenario's micro-batch, the legend,
the titles and the note) to a PNG of the same size, side by side in one
run, and prints the ratio.

    /usr/bin/python3 tests/bench/export-vs-matplotlib.py _build/src/cli/headroom-cli [SCENARIO] [RUNS]

Needs Debian's python3-matplotlib.  Both sides are timed as whole commands
(a fresh process per run, as a script or a Makefile would call them), and
both in-process too, without their start-up: matplotlib by running its
script in this interpreter, Headroom by bench-charts --export (built next
to headroom-cli), which also says where an export's time goes."""

import csv
import io
import json
import math
import os
import resource
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
BENCH = os.path.join(os.path.dirname(CLI), "..", "..", "tests", "bench-charts")

MATPLOTLIB = r'''
import json, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
d = json.load(open(sys.argv[1]))
fig, ax = plt.subplots(figsize=(12.8, 8.0), dpi=100)
b = [p[0] for p in d["points"]]
ax.fill_between(b, [p[2] for p in d["points"]], [p[3] for p in d["points"]], alpha=0.2, label="range")
ax.plot(b, [p[1] for p in d["points"]], lw=2, color="black", label="prediction")
ax.axvline(d["micro_batch"], ls=":", lw=1, label="this micro-batch")
styles = ["--", ":", "-.", (0, (10, 3)), (0, (3, 2))]
markers = ["o", "s", "^", "D", "v"]
for i, g in enumerate(d["gpus"]):
    line = ax.axhline(g["usable"], ls=styles[i % 5], lw=1.5)
    ax.annotate(f'{g["name"]}\n{g["usable"]:.1f} GiB usable · max {g["max"]}', (1.01, g["usable"]),
                xycoords=("axes fraction", "data"), va="center", color=line.get_color())
    if g["max"]:
        y = [p[1] for p in d["points"] if p[0] <= g["max"]]
        if y:
            ax.plot([g["max"]], [y[-1]], markers[i % 5], color=line.get_color())
if d["log2"]:
    ax.set_xscale("log", base=2)
ax.set_xlim(d["x_min"], d["x_max"])
ax.set_ylim(0, d["y_max"])
ax.set_xlabel("Micro-batch")
ax.set_ylabel("Peak memory (GiB)")
ax.set_title(d["title"], loc="left")
ax.grid(alpha=0.3)
ax.legend(loc="upper left")
fig.text(0.01, 0.01, d["note"], fontsize=8)
fig.subplots_adjust(right=0.78)
fig.savefig(sys.argv[2])
'''


def run(cmd):
    subprocess.run(cmd, check=True, capture_output=True)


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(cmd, runs):
    run(cmd)  # warm the disk cache and the font cache
    start = time.perf_counter()
    for _ in range(runs):
        run(cmd)
    return (time.perf_counter() - start) / runs


def sweep_range(fits, micro_batch):
    """The range Headroom's curve spans (hr_analysis_get_sweep_range()): a
    little past where each card stops fitting, log2 when they stop more
    than a decade apart."""
    stops = [(g["max_micro_batch"] + (0 if g["max_is_lower_bound"] else 1)) if g["max_micro_batch"]
             else 1 for g in fits]
    fitting = [s for g, s in zip(fits, stops) if g["max_micro_batch"]]
    highest = max([micro_batch] + stops)
    log2 = bool(fitting) and highest >= 10 * min(fitting)
    if log2:
        upper = 2
        while upper < 1.05 * highest:
            upper *= 2
        return upper, True
    target = 1.15 * highest / 10
    magnitude = 1
    while True:
        step = next((m for m in (magnitude, 2 * magnitude, 5 * magnitude) if m >= target), None)
        if step:
            break
        magnitude *= 10
    return max(4, int(math.ceil(1.15 * highest / step - 1e-9) * step)), False


def main():
    gib = 2 ** 30
    scenario = json.load(open(SCENARIO))
    fits = json.loads(subprocess.run([CLI, "fits", SCENARIO, "--gpus", GPUS, "--json"], check=True,
                                     capture_output=True, text=True).stdout)
    upper, log2 = sweep_range(fits["gpus"], fits["micro_batch"])
    step = max(1, upper // 32)
    batch = f"1:{upper}" if log2 else f"1:{upper}:{step}"
    sweep = subprocess.run([CLI, "sweep", SCENARIO, "--batch", batch, "--csv"] + (["--pow2"] if log2 else []),
                           check=True, capture_output=True, text=True).stdout
    rows = list(csv.DictReader(io.StringIO(sweep)))
    usable = [g["usable"] / gib for g in fits["gpus"]]
    data = {
        "title": scenario.get("name") or os.path.basename(SCENARIO),
        "note": "Estimate at micro-batch %d: derived and assumed amounts; nothing measured." % fits["micro_batch"],
        "micro_batch": fits["micro_batch"],
        "log2": log2,
        "x_min": 1 if log2 else 0,
        "x_max": upper,
        "y_max": max(usable) * 1.2,
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

        # side by side: each run of one followed by a run of the other, so
        # that a busy machine slows both alike
        ours_cmd = [CLI, "export", SCENARIO, "--chart", "curve", "--gpus", GPUS, "-o",
                    os.path.join(tmp, "headroom.png"), "--width", "1280", "--height", "800"]
        theirs_cmd = [sys.executable, script, data_path, os.path.join(tmp, "matplotlib.png")]
        run(ours_cmd)
        run(theirs_cmd)
        # wall time, and the processor time the commands took (which a busy
        # machine stretches less)
        ours = theirs = ours_cpu = theirs_cpu = 0.0
        for _ in range(RUNS):
            start, cpu = time.perf_counter(), children_cpu()
            run(ours_cmd)
            ours += time.perf_counter() - start
            ours_cpu += children_cpu() - cpu
            start, cpu = time.perf_counter(), children_cpu()
            run(theirs_cmd)
            theirs += time.perf_counter() - start
            theirs_cpu += children_cpu() - cpu
        ours /= RUNS
        theirs /= RUNS
        ours_cpu /= RUNS
        theirs_cpu /= RUNS

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

    ours_in_process = None
    if os.path.exists(BENCH):
        out = subprocess.run([BENCH, "--export", SCENARIO, GPUS, str(max(RUNS, 20))], check=True,
                             capture_output=True, text=True).stdout
        ours_in_process = float(out.split()[1]) / 1000

    print(f"headroom-cli export --chart curve: {ours * 1000:7.1f} ms per run (whole command, {RUNS} runs)")
    print(f"python3 + matplotlib, same curve:  {theirs * 1000:7.1f} ms per run (whole command)")
    print(f"matplotlib in-process, no start-up: {in_process * 1000:7.1f} ms per figure")
    if ours_in_process is not None:
        print(f"Headroom in-process, no start-up:   {ours_in_process * 1000:7.1f} ms per figure")
    print(f"processor time per command: headroom-cli {ours_cpu * 1000:.1f} ms, matplotlib {theirs_cpu * 1000:.1f} ms")
    print(f"whole commands: headroom-cli takes {ours / theirs:.3f}× matplotlib's time ({theirs / ours:.1f}× faster)")
    print(f"whole commands, processor time: {ours_cpu / theirs_cpu:.3f}× ({theirs_cpu / ours_cpu:.1f}× less)")
    if ours_in_process is not None:
        print(f"in-process: Headroom takes {ours_in_process / in_process:.3f}× matplotlib's time "
              f"({in_process / ours_in_process:.1f}× faster)")


if __name__ == "__main__":
    main()
