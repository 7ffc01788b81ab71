#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""No command prints a wrapped figure: a scenario whose estimate is
beyond what a byte count holds (2^60 bytes, src/core/io/hr-checked.h) is
refused by every command with exit 2 and a message naming the keys, and
a scenario at extreme settings that can be held prints only non-negative
figures, low <= total <= high.

Usage: test-overflow-cli.py HEADROOM_CLI EXAMPLES_DIR"""

import json
import os
import subprocess
import sys
import tempfile

CLI, EXAMPLES = (os.path.abspath(a) for a in sys.argv[1:3])
BERT = os.path.join(EXAMPLES, "bert-base-finetune.json")
SWM = os.path.join(EXAMPLES, "swm-replay-224.json")
failures = []


def run(args):
    return subprocess.run([CLI] + args, capture_output=True, text=True, timeout=60)


def commands(out_dir):
    return [
        ["estimate"], ["estimate", "--json"], ["sweep", "--json", "--batch", "1:64"],
        ["fits", "--json", "--gpus", "all"], ["knobs", "--json"], ["advise", "--json"],
        ["export", "--chart", "buckets", "-o", os.path.join(out_dir, "b.svg")],
        ["export", "--chart", "curve", "-o", os.path.join(out_dir, "c.svg")],
        ["report", "-o", os.path.join(out_dir, "r.pdf")],
    ]


def walk(node, path, where):
    """Every integer in the output is a size, a count or a saving: only
    a lever's `saved` may be negative (it can add memory to gain usable
    room), and no integer may be beyond 2^62."""
    if isinstance(node, dict):
        if all(k in node for k in ("low", "total", "high")):
            if not node["low"] <= node["total"] <= node["high"]:
                failures.append(f"{where}: {path}: low {node['low']} total {node['total']} "
                                f"high {node['high']} out of order")
        for k, v in node.items():
            walk(v, f"{path}.{k}", where)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            walk(v, f"{path}[{i}]", where)
    elif isinstance(node, bool):
        pass
    elif isinstance(node, int):
        if (node < 0 and not path.endswith(".saved")) or abs(node) > 2**62:
            failures.append(f"{where}: {path} = {node}")


with tempfile.TemporaryDirectory() as tmp:
    refused = [
        (BERT, ["seq_len=16777216", "attention=eager"], ["seq_len", "micro_batch"]),
        (SWM, ['replay={"steps": 1099511627776, "obs_shape": [16777216, 16777216, 3], '
               '"obs_dtype": "float32"}'], ["replay.steps", "replay.obs_shape"]),
    ]
    for scenario, sets, keys in refused:
        set_args = [a for s in sets for a in ("--set", s)]
        for command in commands(tmp):
            args = [command[0], scenario] + command[1:] + set_args
            r = run(args)
            where = " ".join(args)
            if r.returncode != 2:
                failures.append(f"{where}: exit {r.returncode}, not 2; stdout {r.stdout[:200]!r}")
            elif "cannot be held" not in r.stderr or not all(k in r.stderr for k in keys):
                failures.append(f"{where}: the message does not name {keys}: {r.stderr!r}")
            elif r.stdout:
                failures.append(f"{where}: printed a result beside the refusal")

    # Extremes an estimate can hold print ordered, non-negative figures.
    accepted = 0
    for name in sorted(os.listdir(EXAMPLES)):
        if not name.endswith(".json"):
            continue
        for sets in (["micro_batch=65536"], ["seq_len=1048576"], ["gpus=1000000"],
                     ["image_size=16384"]):
            for command in (["estimate", "--json"], ["knobs", "--json"],
                            ["fits", "--json", "--gpus", "all"]):
                args = [command[0], os.path.join(EXAMPLES, name)] + command[1:]
                args += [a for s in sets for a in ("--set", s)]
                r = run(args)
                where = " ".join(args[:2] + args[3:])
                if r.returncode == 2:
                    continue
                if r.returncode != 0:
                    failures.append(f"{where}: exit {r.returncode}: {r.stderr[-300:]}")
                    continue
                accepted += 1
                walk(json.loads(r.stdout), "", where)
    if accepted < 30:
        failures.append(f"only {accepted} extreme cases were accepted: the test checks little")

for f in failures:
    print("FAIL:", f)
print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
