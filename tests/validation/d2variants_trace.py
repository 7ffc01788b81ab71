#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Evidence for the detectron2 C4 and DC5 Mask R-CNN rows
(rows_d2variants.py), traced on the CPU (PyTorch 1.13).  Run by hand:

    /usr/bin/python3 tests/validation/d2variants_trace.py

1. What the mask heads keep for the backward pass (saved_tensors_hooks,
   each storage counted once, parameters left out), built as
   facebookresearch/detectron2 @02b5c4e2 modeling/roi_heads/mask_head.py
   MaskRCNNConvUpsampleHead builds them: NUM_CONV 0 on the C4 head's res5
   output of the positive RoIs (Res5ROIHeads.forward: box_features
   [fg_selection_masks], 2048 x 7 x 7), NUM_CONV 4 on the DC5 head's 14 x
   14 RoIs of res5's 2048 channels, then mask_rcnn_loss's index of each
   RoI's class and binary_cross_entropy_with_logits.  The walk's figure
   (hr-arch.c mask_head, test-arch.c /arch/mask-rcnn-c4 and -dc5) leaves
   out the index and the loss, a few kB a RoI.
2. The C4 head's backward at res5's output: the box predictor reads its
   mean and the mask head an index of it, so two gradients reach the last
   ReLU's node; the profile of r.mean() + r[idx].sum(), r = relu(x),
   replays the CPU allocator's events and prints the highest moment in
   units of r's size (hr-arch.c res5_output_gradients).

Printed here: the C4 head keeps 603,696 bytes a RoI (the walk 602,112),
the DC5 head 3,217,552 (the walk 3,211,264), the difference the loss's
picked logits and targets; the backward peaks at 3.00 x r's size without
the index and 4.00 x with it: the two gradients and their sum beside r.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.profiler import profile, ProfilerActivity

ROIS, CLASSES = 16, 80


def saved_bytes(fn, *inputs):
    params = {p.storage().data_ptr() for p in inputs if isinstance(p, nn.Parameter)}
    seen = {}

    def pack(t):
        storage = t.storage()
        if storage.data_ptr() not in params and not isinstance(t, nn.Parameter):
            seen[storage.data_ptr()] = max(seen.get(storage.data_ptr(), 0), storage.nbytes())
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        loss = fn(*inputs)
    return loss, sum(seen.values())


def mask_head(in_channels, convs):
    layers = []
    c = in_channels
    for _ in range(convs):
        layers += [nn.Conv2d(c, 256, 3, 1, 1), nn.ReLU()]
        c = 256
    layers += [nn.ConvTranspose2d(c, 256, 2, 2), nn.ReLU(), nn.Conv2d(256, CLASSES, 1)]
    return nn.Sequential(*layers)


def mask_loss(head, x, classes, targets):
    logits = head(x)
    picked = logits[torch.arange(x.shape[0]), classes]
    return F.binary_cross_entropy_with_logits(picked, targets)


def heads():
    torch.manual_seed(0)
    for name, channels, convs, side in [("C4", 2048, 0, 7), ("DC5", 2048, 4, 14)]:
        head = mask_head(channels, convs)
        x = torch.randn(ROIS, channels, side, side, requires_grad=True)
        classes = torch.randint(0, CLASSES, (ROIS,))
        targets = (torch.rand(ROIS, 2 * side, 2 * side) > 0.5).float()
        loss, saved = saved_bytes(lambda: mask_loss(head, x, classes, targets))
        loss.backward()
        walk = 4 * (channels * side * side + convs * 256 * side * side + 256 * 4 * side * side)
        print(f"{name} mask head: {saved / ROIS:,.0f} bytes saved a RoI; the walk's {walk:,}")


def accumulation():
    n = 4_000_000
    w = torch.randn(n, requires_grad=True)
    idx = torch.arange(0, n // 8)

    def step(index):
        r = torch.relu(w * 1.0)
        loss = r.mean()
        if index:
            loss = loss + r[idx].sum()
        loss.backward()

    for index in (False, True):
        step(index)
        w.grad = None
        with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
            step(index)
        w.grad = None
        results = prof.profiler.kineto_results
        memory = sorted((e.start_us(), e.nbytes()) for e in results.events() if e.name() == "[memory]")
        live = top = 0
        for _, nbytes in memory:
            live += nbytes
            top = max(top, live)
        what = "r.mean() + r[idx].sum()" if index else "r.mean()"
        print(f"{what}: peak {top / (n * 4):.2f} x r's size (r itself, saved by the ReLU, included)")


if __name__ == "__main__":
    heads()
    accumulation()
