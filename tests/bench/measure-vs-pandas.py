#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Times Headroom's import and fit of a generated 1,000,000-row nvidia-smi
log against the same work in pandas (Debian's python3-pandas), and prints
the ratio. A local benchmark, not a test: it never fails on speed.

Usage: /usr/bin/python3 measure-vs-pandas.py [BUILD_DIR]   (default _build;
Debian's python3, where python3-pandas installs)"""

import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np
import pandas as pd

build = sys.argv[1] if len(sys.argv) > 1 else "_build"
bench = os.path.join(build, "tests", "bench-measure")

with tempfile.TemporaryDirectory() as tmp:
    log = os.path.join(tmp, "nvidia-smi.csv")
    subprocess.run([bench, "--write", log], check=True)
    size = os.path.getsize(log)

    # Headroom: streamed from the file, parsed, series per GPU, peak, fit.
    out = subprocess.run([bench, "--file", log], check=True, capture_output=True, text=True).stdout
    print(out.strip())
    headroom = float(re.search(r": ([0-9.]+) s,", out).group(1))

    # pandas: the same steps, by header name: read, strip the units, a
    # clock from the timestamps, a series per GPU, its peak, a line fit.
    start = time.perf_counter()
    df = pd.read_csv(log, skipinitialspace=True)
    used = df["memory.used [MiB]"].str.removesuffix(" MiB")
    used = pd.to_numeric(used, errors="coerce") * 1024 * 1024
    t = pd.to_datetime(df["timestamp"], format="%Y/%m/%d %H:%M:%S.%f")
    t = (t - t.iloc[0]).dt.total_seconds()
    frame = pd.DataFrame({"gpu": df["index"], "t": t, "bytes": used}).dropna()
    peaks = frame.groupby("gpu")["bytes"].max()
    gpu0 = frame[frame["gpu"] == 0]
    slope, intercept = np.polyfit(gpu0["t"].to_numpy(), gpu0["bytes"].to_numpy(), 1)
    pandas_seconds = time.perf_counter() - start

    print(f"pandas {pd.__version__}: {len(df)} rows, {len(peaks)} GPUs, peak of GPU 0 "
          f"{peaks.iloc[0] / 2**20:.0f} MiB, slope {slope:.3g} B/s: {pandas_seconds:.3f} s, "
          f"{size / pandas_seconds / 1e6:.1f} MB/s")
    print(f"pandas / Headroom time: {pandas_seconds / headroom:.2f}x "
          f"({'Headroom faster' if headroom < pandas_seconds else 'pandas faster'})")
