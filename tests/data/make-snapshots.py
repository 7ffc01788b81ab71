#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes PyTorch memory snapshots for Headroom's tests, and what Headroom
must read from each.

A snapshot is the dict torch.cuda.memory._snapshot() returns, pickled as
torch.cuda.memory._dump_snapshot() pickles it (pickle.dump, Python's default
protocol), made here of built-in types only by a small model of PyTorch's
caching allocator (c10/cuda/CUDACachingAllocator.cpp): 512-byte blocks,
2 MiB segments for requests up to 1 MiB, 20 MiB ones up to 10 MiB, larger
ones rounded up to 2 MiB, blocks split and merged, cudaMalloc and cudaFree as
segment_alloc and segment_free.  The keys are those of
torch/csrc/cuda/memory_snapshot.cpp; stacks are shared lists, as PyTorch
shares them, so that the pickle's memo refers back to them.

Each snapshot NAME.pickle comes with NAME.expected.json, kept by the model
as it runs (not computed by a second reading of the trace): the allocated
and reserved peaks, when they happened, and what was live at the allocated
peak by bucket and by group.  Allocated memory counts what tensors asked
for from alloc to free_requested, as torch's allocated_bytes does in time.

The bad snapshots (tests/data/measure/bad/*.pickle, committed) are written
opcode by opcode: each must be refused with the message
tests/data/measure/bad/expected.txt gives it; --bad DIR writes them again.

kinds-pN.pickle hold every built-in type a snapshot may, in protocol N.

Usage: make-snapshots.py OUTDIR          the good snapshots and their .expected.json
       make-snapshots.py --bad DIR       the hostile and broken ones
       make-snapshots.py --seeds DIR     small ones for the fuzz corpus
"""

import json
import os
import pickle
import struct
import sys

KiB = 1024
MiB = 1024 * 1024

# Stacks, innermost frame first, as PyTorch records them; each says the
# group Headroom's rules put it in, and its site (the first frame outside
# torch).  The paths look like an installed torch.
TORCH = "/usr/lib/python3/dist-packages/torch"
TRAIN = "/home/user/project/train.py"
MODEL = "/home/user/project/model.py"


def frame(filename, line, name):
    return {"filename": filename, "line": line, "name": name}


class Stack:
    def __init__(self, group, frames, site=None):
        self.group = group
        self.frames = frames          # one list object, shared by every entry
        self.site = site              # (filename, line, name) or None


def stacks(cpp):
    """The stacks of a training step; @cpp adds C++ frames (stacks="all")."""
    cxx = []
    if cpp:
        cxx = [frame("/pytorch/c10/cuda/CUDACachingAllocator.cpp", 1391,
                     "c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc"),
               frame("/pytorch/aten/src/ATen/native/cuda/EmptyTensor.cpp", 32,
                     "at::detail::empty_cuda")]
    main = frame(TRAIN, 88, "main")
    s = {}
    s["weights"] = Stack("parameters", cxx + [
        frame(TORCH + "/nn/modules/module.py", 1326, "convert"),
        frame(TORCH + "/nn/modules/module.py", 928, "_apply"),
        frame(TORCH + "/nn/modules/module.py", 1340, "to"),
        frame(TRAIN, 41, "build_model"), main], (TRAIN, 41, "build_model"))
    s["loaded"] = Stack("loaded-weights", cxx + [
        frame(TORCH + "/serialization.py", 1497, "load"),
        frame(TRAIN, 45, "build_model"), main], (TRAIN, 45, "build_model"))
    s["input"] = Stack("other", cxx + [frame(TRAIN, 60, "train_step"), main],
                       (TRAIN, 60, "train_step"))
    s["forward"] = Stack("forward", cxx + [
        frame(TORCH + "/nn/modules/linear.py", 125, "forward"),
        frame(TORCH + "/nn/modules/module.py", 1747, "_call_impl"),
        frame(MODEL, 22, "forward"),
        frame(TORCH + "/nn/modules/module.py", 1747, "_call_impl"),
        frame(TRAIN, 62, "train_step"), main], (MODEL, 22, "forward"))
    s["attention"] = Stack("forward", cxx + [
        frame(TORCH + "/nn/functional.py", 5880, "scaled_dot_product_attention"),
        frame(MODEL, 31, "attend"), frame(MODEL, 24, "forward"),
        frame(TORCH + "/nn/modules/module.py", 1747, "_call_impl"),
        frame(TRAIN, 62, "train_step"), main], (MODEL, 31, "attend"))
    s["loss"] = Stack("forward", cxx + [
        frame(TORCH + "/nn/functional.py", 3494, "cross_entropy"),
        frame(TRAIN, 63, "train_step"), main], (TRAIN, 63, "train_step"))
    s["recompute"] = Stack("recomputed", cxx + [
        frame(TORCH + "/nn/modules/linear.py", 125, "forward"),
        frame(TORCH + "/nn/modules/module.py", 1747, "_call_impl"),
        frame(MODEL, 22, "forward"),
        frame(TORCH + "/utils/checkpoint.py", 1129, "recompute_fn"),
        frame(TORCH + "/utils/checkpoint.py", 1177, "unpack_hook")], (MODEL, 22, "forward"))
    if cpp:
        # stacks="all": backward runs on autograd's device thread, with C++ frames only.
        engine = [frame("/pytorch/torch/csrc/autograd/engine.cpp", 1166,
                        "torch::autograd::Engine::evaluate_function"),
                  frame("/pytorch/torch/csrc/autograd/engine.cpp", 601,
                        "torch::autograd::Engine::thread_main")]
        s["grad"] = Stack("parameter-gradients", cxx + [
            frame("/pytorch/torch/csrc/autograd/functions/accumulate_grad.h", 219,
                  "torch::autograd::AccumulateGrad::accumulateGrad")] + engine)
        s["backward"] = Stack("backward", cxx + [
            frame("/pytorch/torch/csrc/autograd/generated/Functions.cpp", 4013,
                  "torch::autograd::generated::MmBackward0::apply")] + engine)
    else:
        # stacks="python": no Python frame on that thread.
        s["grad"] = Stack("backward-thread", [])
        s["backward"] = Stack("backward-thread", [])
    s["state"] = Stack("optimizer-state", cxx + [
        frame(TORCH + "/optim/adamw.py", 113, "_init_group"),
        frame(TORCH + "/optim/adamw.py", 206, "step"),
        frame(TORCH + "/optim/optimizer.py", 493, "wrapper"),
        frame(TRAIN, 70, "train_step"), main], (TRAIN, 70, "train_step"))
    s["momentum"] = Stack("optimizer-state", cxx + [     # SGD makes it inside the step
        frame(TORCH + "/optim/sgd.py", 302, "_single_tensor_sgd"),
        frame(TORCH + "/optim/sgd.py", 126, "step"),
        frame(TRAIN, 71, "train_step"), main], (TRAIN, 71, "train_step"))
    s["step"] = Stack("optimizer-step", cxx + [
        frame(TORCH + "/optim/adamw.py", 540, "_multi_tensor_adamw"),
        frame(TORCH + "/optim/adamw.py", 230, "step"),
        frame(TORCH + "/optim/optimizer.py", 493, "wrapper"),
        frame(TRAIN, 70, "train_step"), main], (TRAIN, 70, "train_step"))
    s["free"] = Stack("other", cxx + [frame(TRAIN, 75, "train_step"), main],
                      (TRAIN, 75, "train_step"))
    s["none"] = Stack("before-recording", [])
    return s


def round_block(size):
    return max(512, (size + 511) // 512 * 512)


def segment_size(size):
    if size <= MiB:
        return 2 * MiB
    if size < 10 * MiB:
        return 20 * MiB
    return (size + 2 * MiB - 1) // (2 * MiB) * (2 * MiB)


class Allocator:
    """One device's caching allocator, and the truth about it."""

    def __init__(self, device, stacks, time0=1_716_000_000_000_000, expandable=False):
        self.device = device
        self.stacks = stacks
        self.expandable = expandable
        self.segments = []          # [address, size, blocks, frames]; block = dict
        self.trace = []
        self.next_address = 0x7F3C00000000 + device * 0x10000000000
        self.time = time0
        self.live = {}              # address -> allocation
        self.allocated = 0
        self.reserved = 0
        self.counter = 0
        self.history = []           # (trace index after which, allocated, reserved)

    def tick(self, us=41):
        self.time += us

    def entry(self, action, addr, size, stack=None, **extra):
        e = {"action": action, "addr": addr, "size": size, "stream": 0,
             "compile_context": "N/A", "user_metadata": "", "time_us": self.time}
        if stack is not None:
            e["frames"] = stack.frames
        e.update(extra)
        self.trace.append(e)
        self.tick()

    def find_block(self, size, small):
        for seg in self.segments:
            if (seg[1] <= 2 * MiB) != small and not self.expandable:
                continue
            for i, b in enumerate(seg[2]):
                if b["state"] == "inactive" and b["size"] >= size:
                    return seg, i
        return None, None

    def alloc(self, size, stack):
        block = round_block(size)
        small = size <= MiB
        seg, i = self.find_block(block, small)
        if seg is None:
            total = segment_size(block)
            address = self.next_address
            self.next_address += total + 64 * MiB
            blocks = [{"address": address, "size": total, "requested_size": 0,
                       "state": "inactive", "frames": []}]
            seg = [address, total, blocks, stack.frames]
            self.segments.append(seg)
            self.segments.sort(key=lambda s: s[0])
            self.entry("segment_map" if self.expandable else "segment_alloc", address, total, stack)
            self.reserved += total
            self.record()
            i = 0
        b = seg[2][i]
        if b["size"] - block >= 512:
            rest = {"address": b["address"] + block, "size": b["size"] - block,
                    "requested_size": 0, "state": "inactive", "frames": []}
            b["size"] = block
            seg[2].insert(i + 1, rest)
        b["state"] = "active_allocated"
        b["requested_size"] = size
        b["frames"] = stack.frames
        self.counter += 1
        a = {"id": self.counter, "address": b["address"], "size": size, "stack": stack,
             "alloc_index": len(self.trace), "free_index": None, "free_stack": None}
        self.live[b["address"]] = a
        self.entry("alloc", b["address"], size, stack)
        self.allocated += size
        self.record()
        return a

    def free(self, a, stack):
        del self.live[a["address"]]
        a["free_index"] = len(self.trace)
        a["free_stack"] = stack
        self.entry("free_requested", a["address"], a["size"], stack)
        self.allocated -= a["size"]
        self.record()
        self.entry("free_completed", a["address"], a["size"], stack)
        for seg in self.segments:
            for i, b in enumerate(seg[2]):
                if b["address"] == a["address"]:
                    b["state"] = "inactive"
                    b["requested_size"] = 0
                    b["frames"] = []
                    # merge with inactive neighbours
                    if i + 1 < len(seg[2]) and seg[2][i + 1]["state"] == "inactive":
                        b["size"] += seg[2].pop(i + 1)["size"]
                    if i > 0 and seg[2][i - 1]["state"] == "inactive":
                        seg[2][i - 1]["size"] += seg[2].pop(i)["size"]
                    return
        raise AssertionError("freed an unknown block")

    def empty_cache(self, stack):
        for seg in list(self.segments):
            if all(b["state"] == "inactive" for b in seg[2]):
                self.segments.remove(seg)
                self.entry("segment_unmap" if self.expandable else "segment_free",
                           seg[0], seg[1], stack)
                self.reserved -= seg[1]
                self.record()

    def oom(self, size, device_free, stack):
        self.trace.append({"action": "oom", "device_free": device_free, "size": size,
                           "stream": 0, "compile_context": "N/A", "user_metadata": "",
                           "frames": stack.frames, "time_us": self.time})
        self.tick()
        self.record()

    def record(self):
        self.history.append((len(self.trace), self.allocated, self.reserved,
                             [a for a in self.live.values()]))

    def segment_dicts(self):
        out = []
        for address, size, blocks, frames in self.segments:
            allocated = sum(b["size"] for b in blocks if b["state"] == "active_allocated")
            requested = sum(b["requested_size"] for b in blocks if b["state"] == "active_allocated")
            out.append({"device": self.device, "address": address, "total_size": size,
                        "allocated_size": allocated, "active_size": allocated,
                        "requested_size": requested, "stream": 0,
                        "segment_type": "small" if size <= 2 * MiB else "large",
                        "segment_pool_id": (0, 0), "is_expandable": self.expandable,
                        "frames": frames,
                        "blocks": [dict(b) for b in blocks]})
        return out


def visible_group(a, start, at_end):
    """The group Headroom can see for allocation @a when the trace kept
    entries from @start on: its own stack when its alloc is in the trace
    or it is still live at the end (the block keeps its frames), else the
    stack of its free (an empty one: allocated before recording)."""
    if a["alloc_index"] >= start or a["address"] in at_end and at_end[a["address"]] is a:
        return a["stack"].group, a["stack"].site
    if a["free_stack"] is None or not a["free_stack"].frames:
        return "before-recording", None
    return a["free_stack"].group, a["free_stack"].site


BUCKETS = {"parameters": "weights", "loaded-weights": "weights",
           "parameter-gradients": "gradients", "backward": "gradients",
           "backward-thread": "gradients", "gradient-buckets": "gradients",
           "optimizer-state": "optimizer", "master-weights": "optimizer",
           "forward": "activations", "recomputed": "activations",
           "optimizer-step": "activations", "workspaces": "overhead",
           "communication": "overhead", "before-recording": "unattributed",
           "other": "unattributed"}


def expected(alloc, start=0):
    """What Headroom must find on @alloc's trace from entry @start on."""
    at_end = dict(alloc.live)
    # Allocated and reserved after each recorded change, from the start on.
    points = [h for h in alloc.history if h[0] > start]
    before = [h for h in alloc.history if h[0] <= start]
    first = before[-1] if before else (start, 0, 0, [])
    t0 = alloc.trace[start]["time_us"]
    peak = (first[1], first[0], first[3])
    for h in points:
        if h[1] > peak[0]:
            peak = (h[1], h[0], h[3])
    reserved_peak = max([first[2]] + [h[2] for h in points])
    reserved_at_peak = [h[2] for h in alloc.history if h[0] <= peak[1]][-1]
    # when: the time of the entry that made the peak
    t = (alloc.trace[peak[1] - 1]["time_us"] - t0) / 1e6 if peak[1] > start else 0.0
    buckets = {b: 0 for b in ("weights", "gradients", "optimizer", "activations",
                              "overhead", "unattributed")}
    groups = {}
    sites = {}
    for a in peak[2]:
        group, site = visible_group(a, start, at_end)
        if group == "optimizer-step" and at_end.get(a["address"]) is a:
            group = "optimizer-state"
        buckets[BUCKETS[group]] += a["size"]
        groups[group] = groups.get(group, 0) + a["size"]
        key = (site, group)
        sites[key] = sites.get(key, 0) + a["size"]
    top = max(sites.items(), key=lambda kv: kv[1])
    return {
        "device": alloc.device,
        "n_events": len(alloc.trace) - start,
        "allocated_peak": peak[0],
        "allocated_peak_t": t,
        "reserved_peak": reserved_peak,
        "reserved_at_allocated_peak": reserved_at_peak,
        "allocated_start": first[1],
        "allocated_end": alloc.allocated,
        "reserved_end": alloc.reserved,
        "buckets": buckets,
        "groups": groups,
        "live_count": len(peak[2]),
        "top_site": {"filename": top[0][0][0] if top[0][0] else None,
                     "line": top[0][0][1] if top[0][0] else 0,
                     "group": top[0][1], "bytes": top[1]},
        "ooms": sum(1 for e in alloc.trace[start:] if e["action"] == "oom"),
    }


def train(alloc, steps, params, sizes, sgd=False, checkpoint=False):
    """Load, then @steps training steps of a small transformer-like model."""
    s = alloc.stacks
    weights = [alloc.alloc(p, s["weights"]) for p in params]
    if sizes.get("loaded"):
        weights.append(alloc.alloc(sizes["loaded"], s["loaded"]))
    state = []
    momentum = []
    for step in range(steps):
        x = alloc.alloc(sizes["input"], s["input"])
        saved = []
        for layer in range(sizes["layers"]):
            saved.append(alloc.alloc(sizes["act"], s["forward"]))
            tmp = alloc.alloc(sizes["attn"], s["attention"])
            saved.append(alloc.alloc(sizes["act"] // 2, s["attention"]))
            alloc.free(tmp, s["free"])
        loss = alloc.alloc(sizes["logits"], s["loss"])
        grads = []
        for layer in reversed(range(sizes["layers"])):
            if checkpoint:
                r = alloc.alloc(sizes["act"], s["recompute"])
            g = alloc.alloc(sizes["act"], s["backward"])
            for p in params[layer::sizes["layers"]]:
                grads.append(alloc.alloc(p, s["grad"]))
            alloc.free(saved.pop(), s["backward"])
            alloc.free(saved.pop(), s["backward"])
            alloc.free(g, s["backward"])
            if checkpoint:
                alloc.free(r, s["backward"])
        alloc.free(loss, s["backward"])
        alloc.free(x, s["free"])
        if step == 0:
            for p in params:
                state.append(alloc.alloc(p, s["state"]))
                state.append(alloc.alloc(p, s["state"]))
            if sgd:
                for p in params[:2]:
                    momentum.append(alloc.alloc(p, s["momentum"]))
        temps = [alloc.alloc(p, s["step"]) for p in params[:3]]
        for t in temps:
            alloc.free(t, s["free"])
        for g in grads:
            alloc.free(g, s["free"])
        alloc.tick(5000)
    return weights, state


def snapshot_dict(allocators, settings=True, probe=None):
    traces = []
    for a in allocators:
        while len(traces) < a.device:
            traces.append([])
        traces.append(a.trace)
    d = {"segments": [seg for a in allocators for seg in a.segment_dicts()],
         "device_traces": traces}
    if settings:
        d["allocator_settings"] = {
            "PYTORCH_CUDA_ALLOC_CONF": "", "max_split_size": -1,
            "garbage_collection_threshold": 0.0, "expandable_segments": False,
            "pinned_num_register_threads": 1, "release_lock_on_cudamalloc": False,
            "pinned_use_cuda_host_register": False,
            "roundup_power2_divisions": {"1": 0, "2": 0, "4": 0}}
        d["external_annotations"] = []
    if probe is not None:
        d["headroom_probe"] = probe
    return d


def write(outdir, name, d, exp, protocol=None):
    with open(os.path.join(outdir, name + ".pickle"), "wb") as f:
        pickle.dump(d, f) if protocol is None else pickle.dump(d, f, protocol=protocol)
    with open(os.path.join(outdir, name + ".expected.json"), "w") as f:
        json.dump(exp, f, indent=1, sort_keys=True)


def good(outdir, small=False):
    params = [4 * MiB + 1000, 4 * MiB + 1000, 2 * MiB, 600 * KiB, 3000]
    sizes = {"input": 300 * KiB, "act": 6 * MiB, "attn": 9 * MiB, "logits": 12 * MiB,
             "layers": 2 if small else 3, "loaded": 5 * MiB}

    # A whole run, recorded from the start, Python stacks only.
    a = Allocator(0, stacks(cpp=False))
    train(a, 2 if small else 3, params, sizes)
    write(outdir, "snapshot-train", snapshot_dict([a], probe={
        "micro_batch": 8, "seq_len": 512, "model": "tiny-test"}),
        {"format": "torch-memory-snapshot", "micro_batch": 8, "devices": [expected(a)]})
    if small:
        return

    # The same at micro-batch 16: activations twice as large; with the one
    # above, a sweep of two snapshots.
    a16 = Allocator(0, stacks(cpp=False))
    train(a16, 3, params, dict(sizes, act=2 * sizes["act"], attn=2 * sizes["attn"],
                                 logits=2 * sizes["logits"], input=2 * sizes["input"]))
    write(outdir, "snapshot-train-b16", snapshot_dict([a16], probe={
        "micro_batch": 16, "seq_len": 512, "model": "tiny-test"}),
        {"format": "torch-memory-snapshot", "micro_batch": 16, "devices": [expected(a16)]})

    # C++ stacks, SGD momentum made in the step, checkpointing, an OOM, and
    # a ring buffer that lost its first entries: the weights and the
    # optimizer state live from before the trace's start.
    b = Allocator(0, stacks(cpp=True))
    train(b, 3, params, sizes, sgd=True, checkpoint=True)
    b.oom(80 * 1024 * MiB, 1500 * MiB, b.stacks["forward"])
    b.empty_cache(b.stacks["free"])
    cut = next(i for i, e in enumerate(b.trace)
               if e["action"] == "alloc" and e["frames"] is b.stacks["input"].frames and i > 60)
    # the second step's input: nothing allocated before it but weights,
    # state and momentum is live across the cut
    steps = [i for i, e in enumerate(b.trace)
             if e["action"] == "alloc" and e["frames"] is b.stacks["input"].frames]
    cut = steps[1]
    kept = b.trace[cut:]
    d = snapshot_dict([b])
    d["device_traces"] = [kept]
    exp = expected(b, cut)
    write(outdir, "snapshot-ring", d, {"format": "torch-memory-snapshot", "devices": [exp]},
          protocol=5)

    # Two devices; the second has expandable segments (segment_map).
    c0 = Allocator(0, stacks(cpp=False))
    train(c0, 1, params, sizes)
    c1 = Allocator(1, stacks(cpp=False), expandable=True)
    train(c1, 2, [p * 2 for p in params], sizes)
    c1.empty_cache(c1.stacks["free"])
    write(outdir, "snapshot-two-devices", snapshot_dict([c0, c1]),
          {"format": "torch-memory-snapshot", "devices": [expected(c0), expected(c1)]})

    # PyTorch 2.0's layout: blocks keep "history", no "frames" or
    # "requested_size" or "address"; no time_us; no allocator_settings;
    # protocol 2.
    e = Allocator(0, stacks(cpp=False))
    train(e, 1, params[:3], dict(sizes, layers=1))
    exp = expected(e)
    d = snapshot_dict([e], settings=False)
    for seg in d["segments"]:
        for blk in seg["blocks"]:
            h = {"addr": blk["address"], "real_size": blk["requested_size"] or blk["size"]}
            if blk["frames"]:
                h["frames"] = blk["frames"]
            blk["history"] = [h]
            del blk["frames"], blk["requested_size"], blk["address"]
        del seg["frames"]
    for ent in d["device_traces"][0]:
        del ent["time_us"], ent["compile_context"], ent["user_metadata"]
    # without times, t counts the trace's entries
    peak_index = next(i for i, h in enumerate(e.history) if h[1] == exp["allocated_peak"])
    exp["allocated_peak_t"] = float(e.history[peak_index][0] - 1)
    write(outdir, "snapshot-legacy", d, {"format": "torch-memory-snapshot", "devices": [exp]},
          protocol=2)


# Hostile and broken pickles, opcode by opcode.
def op_str(s):
    b = s.encode()
    return b"\x8c" + bytes([len(b)]) + b


def framed(body):
    """Protocol 4's PROTO and FRAME before @body."""
    return b"\x80\x04\x95" + struct.pack("<Q", len(body)) + body


def bad(outdir):
    files = {
        # GLOBAL posix.system, its argument, REDUCE: a shell command, which
        # must never run (the test checks that the marker file is not made).
        "reduce.pickle": b"\x80\x02cposix\nsystem\nq\x00X\x1c\x00\x00\x00"
                         b"touch headroom-pickle-ran-me\x85R.",
        # STACK_GLOBAL, protocol 4's way to name builtins.eval
        "stack-global.pickle": framed(op_str("builtins") + b"\x94" + op_str("eval")
                                      + b"\x94\x93\x94" + op_str("1+1")
                                      + b"\x94\x85\x94R\x94."),
        # REDUCE on plain values: refused before anything is looked at
        "reduce-only.pickle": b"\x80\x04" + op_str("segments") + b")R.",
        "build.pickle": b"\x80\x02}q\x00}q\x01b.",
        "persid.pickle": b"\x80\x02X\x01\x00\x00\x000Q.",
        "set.pickle": b"\x80\x04\x8f(K\x01\x90.",
        "protocol-1.pickle": b"\x80\x01}q\x00.",
        "memo-order.pickle": b"\x80\x02}q\x05.",
        "memo-missing.pickle": b"\x80\x02h\x03.",
        "long4-huge.pickle": b"\x80\x02\x8b\xff\xff\xff\x7f\x00.",
        "string-past-end.pickle": b"\x80\x02X\x00\x00\x10\x00abc.",
        "setitems-list.pickle": b"\x80\x02](K\x01K\x02u.",
        "not-a-snapshot.pickle": b"\x80\x02}q\x00X\x01\x00\x00\x00aK\x01s.",
        "bad-size.pickle": b"\x80\x02}q\x00(X\x08\x00\x00\x00segments]q\x01}q\x02(X\n\x00\x00\x00"
                           b"total_sizeX\x03\x00\x00\x00bigX\x06\x00\x00\x00blocks]ua"
                           b"X\r\x00\x00\x00device_traces]u.",
    }
    # A real snapshot cut short in its middle.
    params = [4 * MiB, 2 * MiB]
    a = Allocator(0, stacks(cpp=False))
    train(a, 1, params, {"input": 100 * KiB, "act": MiB, "attn": MiB, "logits": MiB,
                         "layers": 1})
    whole = pickle.dumps(snapshot_dict([a]), protocol=4)
    files["truncated.pickle"] = whole[: len(whole) // 2]
    # ... and in protocol 2, which has no FRAME to say how long it is
    whole = pickle.dumps(snapshot_dict([a]), protocol=2)
    files["truncated-p2.pickle"] = whole[: len(whole) * 2 // 3]
    # MARKs past the limit of open ones
    files["deep-marks.pickle"] = b"\x80\x02" + b"(" * 600 + b"."
    for name, data in files.items():
        with open(os.path.join(outdir, name), "wb") as f:
            f.write(data)


def kinds(outdir):
    """Every built-in type a snapshot may hold, in each protocol from 2 to
    5, with what each must read back as (kinds.expected.json)."""
    shared = [1, 2]
    value = {
        "none": None, "true": True, "false": False,
        "ints": [0, 1, -1, 255, 256, 65535, 65536, -2**31, 2**31 - 1, 2**31, 2**40,
                 2**63 - 1, -2**63],
        "big": [2**63, 2**100, -2**100 - 7],
        "float": [1.5, -0.1, 1e300, 5e-324],
        "text": ["", "ümlaut ☃", "x" * 300],
        "bytes": [b"", b"\x00\xff", bytes(range(256)) * 2],
        "tuples": [(), (1,), (1, 2), (1, 2, 3), (1, 2, 3, 4, 5)],
        "nested": [[[[]]], {"a": {"b": {}}}],
        "shared": [shared, shared],
        "repeat": {"k": 1, "k2": 2},
    }
    for protocol in (2, 3, 4, 5):
        v = dict(value)
        if protocol == 2:
            # protocol 2 rebuilds bytes by calling _codecs.encode: refused
            del v["bytes"]
        if protocol == 5:
            v["bytearray"] = bytearray(b"abc")     # BYTEARRAY8
        with open(os.path.join(outdir, f"kinds-p{protocol}.pickle"), "wb") as f:
            pickle.dump(v, f, protocol=protocol)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--bad":
        bad(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "--seeds":
        good(sys.argv[2], small=True)
        bad(sys.argv[2])
    elif len(sys.argv) == 2:
        os.makedirs(sys.argv[1], exist_ok=True)
        good(sys.argv[1])
        kinds(sys.argv[1])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
