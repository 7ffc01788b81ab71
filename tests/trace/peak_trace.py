#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The highest moment of a training step, profiled on the CPU (PyTorch
1.13, torchvision 0.14), beside the walk's estimate of the same step: the
evidence for the walk's moments above the saved tensors (hr-arch.c:
rpn_backward_peak, assign_peak, mask_logits_peak, keypoint_head,
conv_backward_peak, branch_grad_peak), and the module
test-peak-oracle.py checks them with.  Run by hand:

    /usr/bin/python3 tests/trace/peak_trace.py HEADROOM_CLI \\
        [faster-rcnn|mask-rcnn|keypoint-rcnn] [WIDTH HEIGHT IMAGES BOXES]
    /usr/bin/python3 tests/trace/peak_trace.py HEADROOM_CLI \\
        [pspnet|deeplabv3|fcn|mmseg-fcn|mmseg-aspp] [WIDTH HEIGHT IMAGES]
    /usr/bin/python3 tests/trace/peak_trace.py HEADROOM_CLI --alive \\
        [faster-rcnn|mask-rcnn|keypoint-rcnn] [WIDTH HEIGHT IMAGES BOXES]

--alive profiles a third step with Python stacks and prints what is
alive at the peak at operator ends, grouped by the ATen operator (or
autograd node) and the Python lines that allocated it (alive_at_peak).

A detector is built as the trace oracle builds it (tests/trace/
test-trace-oracle.py, detector): ResNet-50 FPN with FrozenBatchNorm2d and
the stem and layer1 frozen, random weights, BOXES random boxes an image.
A segmenter is the trace oracle's own case: mmsegmentation's PSPNet,
FCN (mmseg-fcn) and DeepLabV3 (mmseg-aspp) R50-D8 written out in plain
PyTorch (mmseg_segmenter), torchvision's DeepLabV3 and FCN ResNet-50
with their auxiliary heads (segmenter), all with BatchNorm training.
One SGD-momentum step runs first, so that the gradients and the momentum
exist; the second runs under torch.profiler with profile_memory, and every
allocation and free of the CPU allocator is replayed in time order.  Two
peaks are printed, above the weights, gradients and momentum: at any
instant, and at the ends of the ATen operators that Python and the
autograd nodes call (an operator's own scratch, which the CPU's
convolutions have and cuDNN's do not in the same way, left out).  The
walk's estimate is headroom-cli's allocated_peak for the same model (the
RoIs the profile sampled, frozen BatchNorm for a detector), less the
weights, gradients, momentum and cuBLAS workspace.

At 1344 x 800, 2 images and 100 boxes each, Mask R-CNN's profile peaked in
the second image's RPN assigner (torchvision/ops/boxes.py _box_inter_union)
at 2,930,847,090 bytes, with the first image's IoU matrix and the
transform's uint8 masks alive.
At 1344 x 800, one image and 20 boxes, Faster R-CNN's profile peaked
inside the RPN's P2 convolution's backward: 1,047,528,456 bytes at any
instant, 1,045,174,304 at operator ends; with 2 images, 2,090,235,912 at
any instant.  PSPNet R50-D8 at 512 x 256, two crops, peaked in the
backward of its bottleneck convolution over the concatenated pyramid
(4096 channels): 1,259,749,384 bytes at operator ends.  mmseg's FCN and
DeepLabV3 R50-D8 at 128 x 128, two crops, peaked in a convolution's
backward too: 193,159,176 and 197,390,344 bytes at operator ends, the
walk 0.9% under each.
"""

import copy
import importlib.util
import json
import os
import subprocess
import sys

import torch
import torchvision
from torch.profiler import profile, ProfilerActivity
from torchvision.models.detection import FasterRCNN, KeypointRCNN, MaskRCNN
from torchvision.models.detection.backbone_utils import _resnet_fpn_extractor
from torchvision.ops.misc import FrozenBatchNorm2d

CATALOG = {"faster-rcnn": "faster-rcnn-r50-fpn", "mask-rcnn": "mask-rcnn-r50-fpn",
           "keypoint-rcnn": "keypoint-rcnn-r50-fpn"}
SEGMENTERS = ("pspnet", "deeplabv3", "fcn", "mmseg-fcn", "mmseg-aspp")


def build(kind, width, height, sampled):
    body = torchvision.models.resnet50(weights=None, norm_layer=FrozenBatchNorm2d)
    backbone = _resnet_fpn_extractor(body, 3)
    kw = dict(min_size=min(width, height), max_size=max(width, height))
    if kind == "keypoint-rcnn":
        model = KeypointRCNN(backbone, 2, **kw)
    else:
        model = (MaskRCNN if kind == "mask-rcnn" else FasterRCNN)(backbone, 91, **kw)
    heads = model.roi_heads
    heads.box_roi_pool.register_forward_hook(lambda m, a, o: sampled.__setitem__("rois", o.shape[0]))
    extra = heads.mask_roi_pool if kind == "mask-rcnn" else \
        heads.keypoint_roi_pool if kind == "keypoint-rcnn" else None
    if extra is not None:
        extra.register_forward_hook(lambda m, a, o: sampled.__setitem__("mask_rois", o.shape[0]))
    return model


def batch(kind, width, height, images, boxes):
    g = torch.Generator().manual_seed(1)
    data, targets = [], []
    for _ in range(images):
        x0 = torch.rand(boxes, generator=g) * width * 0.7
        y0 = torch.rand(boxes, generator=g) * height * 0.7
        w = 20 + torch.rand(boxes, generator=g) * width * 0.3
        h = 20 + torch.rand(boxes, generator=g) * height * 0.3
        box = torch.stack([x0, y0, x0 + w, y0 + h], 1)
        t = {"boxes": box, "labels": torch.randint(1, 91, (boxes,), generator=g)}
        if kind == "mask-rcnn":
            t["masks"] = torch.zeros(boxes, height, width, dtype=torch.uint8)
        if kind == "keypoint-rcnn":
            t["labels"] = torch.ones(boxes, dtype=torch.int64)
            kx = box[:, None, 0] + (box[:, None, 2] - box[:, None, 0]) * torch.linspace(0.1, 0.9, 17)
            ky = box[:, None, 1] + (box[:, None, 3] - box[:, None, 1]) * torch.linspace(0.9, 0.1, 17)
            t["keypoints"] = torch.stack([kx, ky, torch.ones_like(kx)], 2)
        data.append(torch.rand(3, height, width, generator=g))
        targets.append(t)
    return data, targets


def top_level(event):
    """An ATen operator called by Python or by an autograd node, not by
    another operator: at its end its outputs exist, its inputs are still
    held by the caller, and its own scratch is freed."""
    if not event.name.startswith("aten::"):
        return False
    parent = event.cpu_parent
    while parent is not None:
        if parent.name.startswith("aten::"):
            return False
        parent = parent.cpu_parent
    return True


def profiled_peaks(step):
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        step()
    results = prof.profiler.kineto_results
    # the function events' times count from the trace's start, as
    # torch/autograd/profiler.py's _parse_kineto_results makes them; the
    # memory events come in the order they happened
    start = results.trace_start_us()
    memory = [(e.start_us() - start, e.nbytes()) for e in results.events() if e.name() == "[memory]"]
    memory.sort(key=lambda m: m[0])
    live = anytime = 0
    for _, nbytes in memory:
        live += nbytes
        anytime = max(anytime, live)
    ends = sorted(e.time_range.end for e in prof.profiler.function_events if top_level(e))
    live = boundary = 0
    j = 0
    for end in ends:
        while j < len(memory) and memory[j][0] <= end:
            live += memory[j][1]
            j += 1
        boundary = max(boundary, live)
    return anytime, boundary


def _site(event):
    """The two innermost Python frames of torchvision or torch that led
    to @event"""
    chain = []
    parent = event.parent
    while parent is not None and len(chain) < 2:
        if any(k in parent.name for k in ("torchvision", "torch/nn/functional", "torch/autograd")):
            chain.append(parent.name)
        parent = parent.parent
    return " < ".join(chain)


def _caller(event):
    """The outermost ATen operator or autograd node around @event"""
    name = None
    parent = event.parent
    while parent is not None:
        if parent.name.startswith(("aten::", "autograd::")):
            name = parent.name
        parent = parent.parent
    return name


def alive_at_peak(step, top=30):
    """Profile @step with Python stacks and print, at the peak at operator
    ends (as profiled_peaks counts it), the allocations made in the step
    and not yet freed, grouped by what allocated them."""
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True, with_stack=True) as prof:
        step()
    allocs, ends = [], []

    def visit(event, inside_aten):
        if event.name == "[memory]":
            f = event.extra_fields
            allocs.append((event.start_time_ns, f.ptr, f.alloc_size, (_caller(event), _site(event))))
            return
        aten = event.name.startswith("aten::")
        if aten and not inside_aten:
            ends.append((event.end_time_ns, event.name, _site(event)))
        for child in event.children:
            visit(child, inside_aten or aten)

    for root in prof.profiler.kineto_results.experimental_event_tree():
        visit(root, False)
    allocs.sort(key=lambda a: a[0])
    ends.sort(key=lambda e: e[0])
    live, total, best, at, j = {}, 0, 0, None, 0
    for end, name, site in ends:
        while j < len(allocs) and allocs[j][0] <= end:
            _, ptr, size, what = allocs[j]
            if size > 0:
                live[ptr] = (size, what)
            else:
                live.pop(ptr, None)
            total += size
            j += 1
        if total > best:
            best, at = total, (name, site, dict(live))
    print(f"peak at operator ends: {best} bytes, at the end of {at[0]} ({at[1]})")
    groups, counts = {}, {}
    for size, what in at[2].values():
        groups[what] = groups.get(what, 0) + size
        counts[what] = counts.get(what, 0) + 1
    for what, size in sorted(groups.items(), key=lambda g: -g[1])[:top]:
        print(f"{size:>15,d} {counts[what]:5d}  {what[0]} | {what[1]}")


def walked(cli, kind, width, height, images, boxes, sampled):
    out = subprocess.run([cli, "models", "--json"], capture_output=True, text=True, check=True).stdout
    entries = json.loads(out)
    entries = entries.get("entries", entries) if isinstance(entries, dict) else entries
    entry = copy.deepcopy(next(e for e in entries if e["id"] == CATALOG[kind]))
    entry["id"] = "torchvision-" + entry["id"]
    arch = entry["components"][0]["arch"]
    arch["bn"] = "frozen"
    arch["classes"] = 1 if kind == "keypoint-rcnn" else 90
    for key, value in sampled.items():
        arch[key] = max(1, round(value / images))
    scenario = {"headroom_scenario": 1, "model": entry, "task": "train", "method": "full",
                "compute": "fp32", "optimizer": "sgd-momentum", "micro_batch": images,
                "image_size": [width, height], "max_objects": boxes, "detection_framework": "torchvision",
                "zero_grad_set_to_none": False, "gpus": 1}
    return above_states(cli, scenario)


def above_states(cli, scenario):
    """headroom-cli's allocated peak less the weights, gradients, momentum
    and cuBLAS workspace, and the line of the walk's highest moment"""
    est = json.loads(subprocess.run([cli, "estimate", "-", "--json"], input=json.dumps(scenario),
                                    capture_output=True, text=True, check=True).stdout)
    beside = sum(i["bytes"] for i in est["items"] if i["metric"] == "allocated" and
                 (i["bucket"] in ("weights", "gradients", "optimizer") or "cuBLAS" in i["label"]))
    moments = [i for i in est["items"] if i["bucket"] == "activations" and "beside" in i["label"]]
    line = max(moments, key=lambda i: i["bytes"])["label"] if moments else "the saved tensors"
    return est["per_gpu"]["allocated_peak"] - beside, line


def segmenter_case(kind):
    """The trace oracle's case for @kind (its builders, batches and
    losses), loaded from test-trace-oracle.py beside this file."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "test-trace-oracle.py")
    spec = importlib.util.spec_from_file_location("trace_oracle", path)
    oracle = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(oracle)
    if kind == "pspnet":
        return oracle, oracle.mmseg_segmenter("psp", 50, "pspnet-r50-d8", 19)
    if kind == "mmseg-fcn":
        return oracle, oracle.mmseg_segmenter("mmseg-fcn", 50, "fcn-r50-d8", 19)
    if kind == "mmseg-aspp":
        return oracle, oracle.mmseg_segmenter("mmseg-aspp", 50, "deeplabv3-r50-d8", 19)
    if kind == "deeplabv3":
        return oracle, oracle.segmenter("deeplabv3_resnet50", "deeplabv3-resnet50")
    return oracle, oracle.segmenter("fcn_resnet50", "fcn-resnet50")


def measure_segmenter(cli, kind, width, height, images):
    """(peak at any instant, peak at operator ends, the walk's estimate,
    the walk's highest moment's line)"""
    oracle, case = segmenter_case(kind)
    torch.manual_seed(0)
    model = case["build"]()
    model.train()
    optimizer = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=1e-9, momentum=0.9)
    size = width if width == height else (width, height)
    data = case["batch"](images, size)

    def step():
        optimizer.zero_grad(set_to_none=False)
        case["loss"](model, data).backward()
        optimizer.step()

    step()
    anytime, boundary = profiled_peaks(step)
    scenario = oracle.scenario_for(case, case["id"], images, size)
    scenario.update({"optimizer": "sgd-momentum", "zero_grad_set_to_none": False, "gpus": 1})
    estimate, line = above_states(cli, scenario)
    return anytime, boundary, estimate, line


def measure(cli, kind, width, height, images, boxes, alive=False):
    """(peak at any instant, peak at operator ends, the walk's estimate,
    the walk's highest moment's line, the RoIs sampled); @alive: print
    what is alive at the peak too (alive_at_peak)"""
    torch.manual_seed(0)
    sampled = {}
    model = build(kind, width, height, sampled)
    model.train()
    optimizer = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=1e-9, momentum=0.9)
    data = batch(kind, width, height, images, boxes)

    def step():
        optimizer.zero_grad(set_to_none=False)
        sum(model(*data).values()).backward()
        optimizer.step()

    step()
    anytime, boundary = profiled_peaks(step)
    if alive:
        alive_at_peak(step)
    estimate, line = walked(cli, kind, width, height, images, boxes, sampled)
    return anytime, boundary, estimate, line, sampled


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    alive = "--alive" in sys.argv
    if alive:
        sys.argv.remove("--alive")
    cli = sys.argv[1]
    kind = sys.argv[2] if len(sys.argv) > 2 else "faster-rcnn"
    if kind in SEGMENTERS:
        width, height, images = (int(v) for v in (sys.argv[3:6] or (512, 256, 2)))
        anytime, boundary, estimate, line = measure_segmenter(cli, kind, width, height, images)
        print(f"{kind} {width}x{height} images {images}")
    else:
        width, height, images, boxes = (int(v) for v in (sys.argv[3:7] or (1344, 800, 1, 20)))
        anytime, boundary, estimate, line, sampled = measure(cli, kind, width, height, images,
                                                             boxes, alive)
        print(f"{kind} {width}x{height} images {images} boxes {boxes} sampled {sampled}")
    print(f"profiled peak above weights, gradients and momentum: {anytime} bytes at any instant, "
          f"{boundary} at operator ends")
    print(f"walk: {estimate:.0f} bytes ({(estimate / boundary - 1) * 100:+.1f}% against operator ends); "
          f"its highest moment: {line}")


if __name__ == "__main__":
    main()
