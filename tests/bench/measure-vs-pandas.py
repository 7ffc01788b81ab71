#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Times Headroom's import of a generated 1,000,000-row nvidia-smi log
against pandas (Debian's python3-pandas) computing the same per-GPU peaks
and when they happened, and prints MB/s, the ratio and each one's peak
memory.  Both are timed in processes of their own, wall clock and CPU time
(the CPU time is what to compare on a busy machine).  A local benchmark,
not a test: it never fails on speed, and the test suite does not run it.

Usage: /usr/bin/python3 measure-vs-pandas.py [BUILD_DIR] [--points] [--runs N]
(default _build; Debian's python3, where python3-pandas installs).
--points also times Headroom keeping every point and fitting a line
through GPU 0's, as pandas' DataFrame holds every row anyway.  Each is run
N times (default 5) and its fastest run kept, wall and CPU apart: a
shared machine only ever slows a run down."""

import os
import re
import resource
import subprocess
import sys
import tempfile
import time

PANDAS = r"""
import resource, sys, time
import pandas as pd
path = sys.argv[1]
wall, cpu = time.perf_counter(), time.process_time()
df = pd.read_csv(path, skipinitialspace=True)
used = pd.to_numeric(df["memory.used [MiB]"].str.removesuffix(" MiB"), errors="coerce") * 2**20
t = pd.to_datetime(df["timestamp"], format="%Y/%m/%d %H:%M:%S.%f")
t = (t - t.iloc[0]).dt.total_seconds()
frame = pd.DataFrame({"gpu": df["index"], "t": t, "bytes": used}).dropna()
at = frame.groupby("gpu")["bytes"].idxmax()
peaks = frame.loc[at]
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
g0 = peaks.iloc[0]
print(f"pandas {pd.__version__}: {len(df)} rows, {len(peaks)} GPUs, peak of GPU 0 "
      f"{g0['bytes'] / 2**20:.0f} MiB at t = {g0['t']:.3f} s: {wall:.3f} s ({cpu:.3f} s CPU), "
      f"peak RSS {rss:.1f} MiB")
"""


def seconds(text):
    m = re.search(r": ([0-9.]+) s \(([0-9.]+) s CPU\)", text)
    return float(m.group(1)), float(m.group(2))


def main():
    argv = sys.argv[1:]
    n_runs = 5
    if "--runs" in argv:
        at = argv.index("--runs")
        n_runs = max(1, int(argv[at + 1]))
        del argv[at:at + 2]
    args = [a for a in argv if not a.startswith("--")]
    build = args[0] if args else "_build"
    bench = os.path.join(build, "tests", "bench-measure")
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "nvidia-smi.csv")
        subprocess.run([bench, "--write", log], check=True)
        size = os.path.getsize(log)
        # warm the page cache for both
        with open(log, "rb") as f:
            while f.read(1 << 24):
                pass

        runs = [("Headroom", [bench, "--file", log])]
        if "--points" in sys.argv:
            runs.append(("Headroom, every point", [bench, "--file", log, "--points"]))
        runs.append(("pandas", [sys.executable, "-c", PANDAS, log]))
        results = {}
        for name, command in runs:
            best = None
            for _ in range(n_runs):
                out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
                wall, cpu = seconds(out)
                if best is None or wall < best[0]:
                    shown = out.strip()
                best = (wall, cpu) if best is None else (min(best[0], wall), min(best[1], cpu))
            print(shown)
            results[name] = best

        h_wall, h_cpu = results["Headroom"]
        p_wall, p_cpu = results["pandas"]
        print(f"file: {size / 1e6:.0f} MB; Headroom {size / h_wall / 1e6:.0f} MB/s wall, "
              f"{size / h_cpu / 1e6:.0f} MB/s CPU; pandas {size / p_wall / 1e6:.0f} MB/s wall, "
              f"{size / p_cpu / 1e6:.0f} MB/s CPU")
        print(f"fastest of {n_runs} runs each")
        print(f"Headroom / pandas time: {h_wall / p_wall:.3f} wall, {h_cpu / p_cpu:.3f} CPU")


if __name__ == "__main__":
    main()
