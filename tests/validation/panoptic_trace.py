#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Evidence for the Panoptic FPN head (hr-arch.c panoptic_head, rows_panoptic.py):
what detectron2's SemSegFPNHead keeps for its backward pass, traced on the
CPU with saved_tensors_hooks (PyTorch 1.13), each storage counted once.
Run by hand:

    /usr/bin/python3 tests/validation/panoptic_trace.py

detectron2 is not installed here; the head is rebuilt from
facebookresearch/detectron2 @02b5c4e2 detectron2/modeling/meta_arch/
semantic_seg.py (SemSegFPNHead: per input feature max(1, log2(stride) -
log2(COMMON_STRIDE)) Conv2d 3x3 of CONVS_DIM, bias=not norm, norm, F.relu,
each followed by nn.Upsample(scale_factor=2, bilinear, align_corners=False)
while the stride is not COMMON_STRIDE; the levels summed, a 1x1 predictor;
losses(): predictions.float(), F.interpolate(scale_factor=COMMON_STRIDE,
bilinear, align_corners=False), F.cross_entropy(ignore_index=255)) with
the defaults of detectron2/config/defaults.py @02b5c4e2 (SEM_SEG_HEAD
IN_FEATURES p2-p5, CONVS_DIM 128, COMMON_STRIDE 4, NORM "GN", NUM_CLASSES
54, IGNORE_VALUE 255) and configs/COCO-PanopticSegmentation/
Base-Panoptic-FPN.yaml (LOSS_WEIGHT 0.5); detectron2/layers/batch_norm.py
get_norm "GN" is nn.GroupNorm(32, channels), detectron2/layers/wrappers.py
Conv2d runs conv, norm, activation.  The FPN levels are leaves of 256
channels at strides 4-32 of a 1344 x 800 padded batch of one image, and the
int64 target is a full-size label map, as detectron2's
ImageList.from_tensors pads gt_sem_seg.

Printed: the parameters, and the bytes saved, split into the FPN features
(which the RPN head's convolutions save as well in a Panoptic FPN), the
target and the rest, and the order in which a stand-in detector made after
the head and the head's loss are differentiated (backward_order).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

W, H = 1344, 800
STRIDES = [4, 8, 16, 32]
CONV_DIMS = 128
CLASSES = 54
COMMON_STRIDE = 4


class ConvNormReLU(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, 1, 1, bias=False)
        self.norm = nn.GroupNorm(32, cout)

    def forward(self, x):
        return F.relu(self.norm(self.conv(x)))


class SemSegFPNHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale_heads = nn.ModuleList()
        for stride in STRIDES:
            ops = []
            length = max(1, (stride // COMMON_STRIDE).bit_length() - 1)
            for k in range(length):
                ops.append(ConvNormReLU(256 if k == 0 else CONV_DIMS, CONV_DIMS))
                if stride != COMMON_STRIDE:
                    ops.append(nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False))
            self.scale_heads.append(nn.Sequential(*ops))
        self.predictor = nn.Conv2d(CONV_DIMS, CLASSES, 1, 1, 0)

    def forward(self, features, targets):
        for i, f in enumerate(features):
            x = self.scale_heads[i](f) if i == 0 else x + self.scale_heads[i](f)
        x = self.predictor(x).float()
        x = F.interpolate(x, scale_factor=COMMON_STRIDE, mode="bilinear", align_corners=False)
        return F.cross_entropy(x, targets, reduction="mean", ignore_index=255) * 0.5


def backward_order():
    """PanopticFPN.forward runs the semantic head, then the detector; with
    a stand-in detector (a 3x3 convolution and a loss on every level, as
    the RPN head) made after the head, which of the two is differentiated
    first: the autograd engine runs the ready function created last
    first, so the detector's, whose saved tensors are freed before the
    head's loss is differentiated."""
    head = SemSegFPNHead()
    rpn = nn.Conv2d(256, 256, 3, 1, 1)
    features = [torch.randn(1, 256, 64 // s, 96 // s, requires_grad=True) for s in STRIDES]
    target = torch.randint(0, CLASSES, (1, 64, 96))
    order = []
    head.predictor.register_full_backward_hook(lambda m, gi, go: order.append("head predictor"))
    rpn.register_full_backward_hook(lambda m, gi, go: order.append("detector conv"))
    sem = head(features, target)
    det = sum(rpn(f).square().mean() for f in features)
    (sem + det).backward()
    return order


def main():
    torch.manual_seed(0)
    head = SemSegFPNHead()
    params = {p.data_ptr() for p in head.parameters()}
    features = [torch.randn(1, 256, H // s, W // s, requires_grad=True) for s in STRIDES]
    target = torch.randint(0, CLASSES, (1, H, W))
    inputs = {f.data_ptr() for f in features}
    seen = {}

    def pack(t):
        ptr = t.storage().data_ptr()
        if ptr not in params:
            seen[ptr] = max(seen.get(ptr, 0), t.storage().nbytes())
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        loss = head(features, target)
    loss.backward()

    total = sum(seen.values())
    feats = sum(n for p, n in seen.items() if p in inputs)
    tgt = seen.get(target.data_ptr(), 0)
    print(f"parameters: {sum(p.numel() for p in head.parameters()):,}")
    print(f"saved storages: {len(seen)}, {total:,} bytes")
    print(f"  the FPN features p2-p5: {feats:,}")
    print(f"  the int64 target: {tgt:,}")
    print(f"  beyond the features: {total - feats:,}")
    print(f"  beyond the features and the target: {total - feats - tgt:,}")
    for n in sorted(seen.values(), reverse=True):
        print(f"    {n:,}")
    print("backward order:", ", ".join(backward_order()))


if __name__ == "__main__":
    main()
