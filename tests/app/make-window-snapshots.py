#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes the PyTorch memory snapshots the window's snapshot test imports
beside data/examples/smolvla-4090.json: two runs of SmolVLA's setup as the
probe's --snapshot would record them (its "headroom_probe" key naming the
model, the precision, the micro-batch and the sequence length), at
micro-batch 8 and 16, made by tests/data/make-snapshots.py's model of the
caching allocator.

The sizes are of the order SmolVLA's fp32 estimate gives (about 1.7 GiB of
weights, 0.4 GiB of trained parameters), activations growing with the
micro-batch, so that a calibration from the two has sensible factors.

Usage: make-window-snapshots.py MAKE_SNAPSHOTS_PY OUTDIR
"""

import importlib.util
import os
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    spec = importlib.util.spec_from_file_location("make_snapshots", sys.argv[1])
    ms = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ms)
    outdir = sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    MiB = ms.MiB

    # 100 M trained fp32 parameters in four tensors, the frozen rest loaded
    params = [100 * MiB, 100 * MiB, 100 * MiB, 80 * MiB]
    for batch in (8, 16):
        sizes = {"input": 300 * 1024 * batch, "act": 30 * MiB * batch, "attn": 15 * MiB * batch,
                 "logits": 3 * MiB * batch, "layers": 4, "loaded": 1300 * MiB}
        a = ms.Allocator(0, ms.stacks(cpp=False))
        ms.train(a, 2, params, sizes)
        d = ms.snapshot_dict([a], probe={"micro_batch": batch, "seq_len": 200,
                                          "model": "smolvla", "precision": "fp32",
                                          "status": "ok"})
        ms.write(outdir, "smolvla-b%d" % batch, d,
                 {"format": "torch-memory-snapshot", "micro_batch": batch,
                  "devices": [ms.expected(a)]})


if __name__ == "__main__":
    main()
