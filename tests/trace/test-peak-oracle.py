#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The walk's highest moment against the real code: torchvision's Faster
R-CNN, Mask R-CNN and Keypoint R-CNN, mmsegmentation's PSPNet and
torchvision's DeepLabV3 and FCN, one training step profiled on the CPU
by peak_trace.py (every allocation of the CPU allocator, at the ends
of the ATen operators Python and the autograd nodes call), and
headroom-cli's allocated peak for the same model, micro-batch, input size
and boxes, less the weights, gradients, momentum and cuBLAS workspace,
must agree within ±5%.  The cases put the step's peak at each of the
walk's four moments: the RPN's backward pass at its finest level (two
images, 20 boxes each), the RPN's IoU assigner (one image, 100 boxes),
the backward pass through the mask head (two images, 20 boxes) and
through the keypoint head (one image, 100 boxes); a convolution's backward
pass over PSPNet's concatenated pyramid and FCN's head, and the sum of
the gradients of DeepLabV3's ASPP branches.

    test-peak-oracle.py HEADROOM_CLI

Exits 77 (skipped) when PyTorch and torchvision cannot be imported, but
fails when CI=true (CI installs python3-torch and python3-torchvision).
"""

import importlib.util
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_env import reexec_with_torch  # noqa: E402

TOLERANCE = 0.05

# (model, width, height, images, boxes an image (0: a segmenter), the moment expected)
CASES = [
    ("faster-rcnn", 800, 480, 2, 20, "RPN's finest level"),
    ("faster-rcnn", 640, 384, 1, 100, "IoU assigner"),
    ("mask-rcnn", 640, 384, 2, 20, "through the mask head"),
    ("keypoint-rcnn", 640, 384, 1, 100, "through the keypoint head"),
    ("pspnet", 256, 128, 2, 0, "through a convolution"),
    ("deeplabv3", 128, 128, 2, 0, "where branches meet"),
    ("fcn", 128, 128, 2, 0, "through a convolution"),
]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    reexec_with_torch()
    import torch

    spec = importlib.util.spec_from_file_location(
        "peak_trace", os.path.join(os.path.dirname(os.path.abspath(__file__)), "peak_trace.py"))
    peak_trace = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(peak_trace)
    torch.set_num_threads(max(1, min(4, os.cpu_count() or 1)))

    failed = 0
    print(f"1..{len(CASES)}")
    for i, (kind, width, height, images, boxes, moment) in enumerate(CASES, 1):
        name = f"{kind} {width}x{height}, {images} image(s)" + (f", {boxes} boxes" if boxes else "")
        if kind in peak_trace.SEGMENTERS:
            _, boundary, estimate, line = peak_trace.measure_segmenter(sys.argv[1], kind, width,
                                                                       height, images)
            sampled = {}
        else:
            _, boundary, estimate, line, sampled = peak_trace.measure(sys.argv[1], kind, width,
                                                                      height, images, boxes)
        ratio = estimate / boundary
        problems = []
        if abs(ratio - 1) > TOLERANCE:
            problems.append(f"walk {estimate:.0f} bytes, profile {boundary} bytes ({ratio:.3f})")
        if moment not in line:
            problems.append(f"the walk's highest moment is '{line}', expected the {moment}")
        rois = f", RoIs {sampled}" if sampled else ""
        print(("not ok" if problems else "ok") + f" {i} {name}: walk {estimate:.0f} bytes, profile "
              f"{boundary} bytes ({ratio:.3f}){rois}", flush=True)
        for p in problems:
            print("#   " + p, flush=True)
        failed += bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
