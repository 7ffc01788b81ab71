#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes a large PyTorch memory snapshot, to measure what reading one
costs (time, and the most memory held against the file's size).

The dict has the structure torch.cuda.memory._snapshot() returns and
torch.cuda.memory._dump_snapshot() pickles (pickle.dump, Python's default
protocol); the keys are those of torch/csrc/cuda/memory_snapshot.cpp and
torch/csrc/cuda/Module.cpp (PyTorch 2.1 and later: trace entries with
time_us, blocks with requested_size and frames).  Stacks are made as
torch/csrc/profiler/combined_traceback.cpp's py_symbolize makes them: one
dict per distinct frame, shared by every stack holding it, each with
strings of its own, and one list per recorded traceback, shared by the
entries of one allocation (its alloc, free_requested and free_completed,
and its block while it is live), so that the pickle's memo refers back to
both.  With --compile-context, every entry also carries the strings
PyTorch 2.4 adds ("compile_context", "user_metadata"), each its own
object, as pybind11 makes one per entry.

Usage: make-large-snapshot.py OUT.pickle [--allocations N] [--depth D]
                                         [--code-paths K] [--compile-context]
"""

import argparse
import pickle
import random

MiB = 1024 * 1024


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--allocations", type=int, default=200_000)
    ap.add_argument("--depth", type=int, default=24, help="Python frames a stack")
    ap.add_argument("--code-paths", type=int, default=400, help="distinct stacks")
    ap.add_argument("--compile-context", action="store_true")
    args = ap.parse_args()
    rnd = random.Random(7)

    # Distinct frames: a few files, many lines; then code paths, each a
    # chain of frames from the innermost.
    files = [f"/usr/lib/python3/dist-packages/torch/nn/modules/m{i}.py" for i in range(20)]
    files += [f"/home/user/project/model_{i}.py" for i in range(20)]
    names = ["forward", "_call_impl", "_wrapped_call_impl", "linear", "conv2d", "attention",
             "backward", "_engine_run_backward", "step", "_init_group", "train_step", "main"]
    distinct = []
    for i in range(args.code_paths * 4):
        # str(...) + "" makes a new str object each time, as py_symbolize does
        distinct.append({"name": "".join([rnd.choice(names)]),
                         "filename": "".join([rnd.choice(files)]),
                         "line": rnd.randrange(1, 3000)})
    paths = [[rnd.choice(distinct) for _ in range(args.depth)] for _ in range(args.code_paths)]

    segments = []
    trace = []
    t = 1_700_000_000_000_000
    addr_next = 0x7F0000000000
    live = []
    reserved = 0
    extra = {}

    def entry(action, addr, size, frames):
        nonlocal t
        t += rnd.randrange(1, 50)
        e = {"action": action, "addr": addr, "size": size, "stream": 0, "time_us": t}
        if args.compile_context:
            e["compile_context"] = "".join(["N/A"])
            e["user_metadata"] = "".join([""])
        e["frames"] = frames
        return e

    for i in range(args.allocations):
        size = rnd.choice([512, 4096, 65536, 1 * MiB, 4 * MiB])
        frames = list(rnd.choice(paths))      # one list per traceback
        if reserved < (len(live) + 1) * 4 * MiB:
            seg = 20 * MiB
            trace.append(entry("segment_alloc", addr_next, seg, frames))
            reserved += seg
        addr = addr_next
        addr_next += size
        trace.append(entry("alloc", addr, size, frames))
        live.append((addr, size, frames))
        # free most allocations soon after, keep some
        if len(live) > 64 or (live and rnd.random() < 0.4):
            a, s, f = live.pop(rnd.randrange(len(live)))
            trace.append(entry("free_requested", a, s, f))
            trace.append(entry("free_completed", a, s, f))

    blocks = [{"address": a, "size": max(512, (s + 511) // 512 * 512), "requested_size": s,
               "state": "active_allocated", "frames": f} for a, s, f in live]
    segments.append({"device": 0, "address": 0x7F0000000000, "total_size": reserved,
                     "allocated_size": sum(b["size"] for b in blocks),
                     "active_size": sum(b["size"] for b in blocks),
                     "requested_size": sum(b["requested_size"] for b in blocks),
                     "stream": 0, "segment_type": "large", "segment_pool_id": (0, 0),
                     "is_expandable": False, "frames": [], "blocks": blocks})
    snapshot = {"segments": segments, "device_traces": [trace],
                "allocator_settings": {"expandable_segments": False}}
    snapshot.update(extra)
    with open(args.out, "wb") as f:
        pickle.dump(snapshot, f)


if __name__ == "__main__":
    main()
