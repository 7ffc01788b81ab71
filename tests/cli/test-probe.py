#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The probe scripts compile, write Headroom's probe CSV header without a
GPU (--dry-run), and what they write is read back by `headroom-cli
measure` with its configuration.  Usage: test-probe.py HEADROOM_CLI PROBE_DIR"""

import json
import os
import py_compile
import subprocess
import sys
import tempfile

CLI, PROBE_DIR = sys.argv[1], sys.argv[2]
failures = []


def check(cond, what):
    print(("ok - " if cond else "not ok - ") + what)
    if not cond:
        failures.append(what)


with tempfile.TemporaryDirectory() as tmp:
    for name, framework in (("headroom_probe_torch.py", "torch"), ("headroom_probe_jax.py", "jax")):
        script = os.path.join(PROBE_DIR, name)
        try:
            py_compile.compile(script, cfile=os.path.join(tmp, name + "c"), doraise=True)
            check(True, f"{name} compiles")
        except py_compile.PyCompileError as error:
            check(False, f"{name} compiles: {error}")
            continue

        out = os.path.join(tmp, framework + ".csv")
        p = subprocess.run([sys.executable, script, "--dry-run", "--model", "test-model",
                            "-o", out], capture_output=True, text=True, timeout=120)
        check(p.returncode == 0, f"{name} --dry-run exits 0 ({p.stderr.strip()})")
        if p.returncode:
            continue
        lines = open(out).read().splitlines()
        check(lines[0] == "# headroom-probe: 1", f"{name}: first line is the format marker")
        check(lines[-1] == "micro_batch,seq_len,max_memory_allocated,max_memory_reserved,"
              "device_used,status", f"{name}: the header row names the columns")

        # Rows as a GPU run writes them, then headroom-cli reads the file.
        with open(out, "a") as f:
            f.write("1,,1000000000,1100000000,1500000000,ok\n"
                    "2,,1500000000,1700000000,2100000000,ok\n"
                    "4,,,,,oom\n")
        p = subprocess.run([CLI, "measure", out, "--json"], capture_output=True, text=True)
        check(p.returncode == 0, f"{name}: headroom-cli reads what it writes ({p.stderr.strip()})")
        if p.returncode:
            continue
        d = json.loads(p.stdout)
        check(d["format"] == "headroom-probe", f"{name}: read as a probe file")
        check(d["config"].get("framework") == framework and
              d["config"].get("model") == "test-model",
              f"{name}: the configuration comes through")
        check(d["fit"]["floor"] == 500000000 and d["fit"]["per_sample"] == 500000000,
              f"{name}: fit of the rows")
        check(d["series"][0]["oom_batch"] == 4, f"{name}: the out-of-memory row is recorded")
        if framework == "jax":
            check(d["config"].get("jax_preallocate") in ("true", "false"),
                  f"{name}: the preallocation setting is recorded")



# --snapshot: what write_snapshot writes, with a stand-in for torch that
# returns a snapshot of built-in types, is a snapshot headroom-cli reads,
# with the micro-batch the probe adds.
with tempfile.TemporaryDirectory() as tmp:
    sys.dont_write_bytecode = True    # nothing written into the source tree
    sys.path.insert(0, PROBE_DIR)
    import headroom_probe_torch as probe  # noqa: E402

    class Memory:
        @staticmethod
        def _snapshot():
            frames = [{"filename": "/x/torch/nn/modules/module.py", "line": 1, "name": "to"},
                      {"filename": "/home/me/train.py", "line": 9, "name": "main"}]
            block = {"address": 4096, "size": 2 << 20, "requested_size": 2 << 20,
                     "state": "active_allocated", "frames": frames}
            return {"segments": [{"device": 0, "address": 4096, "total_size": 2 << 20,
                                  "stream": 0, "segment_type": "large", "frames": [],
                                  "blocks": [block]}],
                    "device_traces": [[]], "allocator_settings": {}}

    class Torch:
        class cuda:
            memory = Memory

    path = probe.write_snapshot(Torch, tmp, 8, 512, {"model": "m", "precision": "bf16-mixed"})
    check(os.path.basename(path) == "snapshot-b8-s512.pickle", "--snapshot names the file by size")
    p = subprocess.run([CLI, "measure", path, "--json"], capture_output=True, text=True)
    check(p.returncode == 0, f"headroom-cli reads the probe's snapshot ({p.stderr.strip()})")
    if p.returncode == 0:
        d = json.loads(p.stdout)
        dev = d["snapshot"]["devices"][0]
        check(d["format"] == "torch-memory-snapshot" and d["config"].get("micro_batch") == "8"
              and d["config"].get("seq_len") == "512", "the snapshot says its micro-batch")
        check(dev["allocated_peak"] == 2 << 20 and dev["buckets"]["weights"] == 2 << 20,
              "the weights live before the trace are the snapshot's weights")
    p = subprocess.run([sys.executable, os.path.join(PROBE_DIR, "headroom_probe_torch.py"),
                        "--dry-run", "--snapshot", os.path.join(tmp, "snaps"), "-o",
                        os.path.join(tmp, "x.csv")], capture_output=True, text=True, timeout=120)
    check(p.returncode == 0 and os.path.isdir(os.path.join(tmp, "snaps")),
          f"--snapshot DIR makes the folder ({p.stderr.strip()})")

print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
