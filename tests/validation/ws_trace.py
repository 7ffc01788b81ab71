#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Evidence for the GN+WS rows (rows_mmdetx.py, hr-arch.c
weight_standardize): what a weight-standardized convolution keeps for its
backward pass, traced on the CPU with saved_tensors_hooks (PyTorch 1.13),
each storage counted once.  Run by hand:

    /usr/bin/python3 tests/validation/ws_trace.py

conv_ws_2d below is mmcv's (open-mmlab/mmcv @a8073c74
mmcv/cnn/bricks/conv_ws.py) line for line.  Printed: every saved storage
in bytes and what is saved beyond the input and the parameter, for a
trained weight, for a frozen weight whose input wants a gradient, and for
a frozen weight on an input that wants none.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

N, C, O, H, W = 2, 64, 128, 20, 30


def conv_ws_2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, eps=1e-5):
    c_in = weight.size(0)
    weight_flat = weight.view(c_in, -1)
    mean = weight_flat.mean(dim=1, keepdim=True).view(c_in, 1, 1, 1)
    std = weight_flat.std(dim=1, keepdim=True).view(c_in, 1, 1, 1)
    weight = (weight - mean) / (std + eps)
    return F.conv2d(input, weight, bias, stride, padding, dilation, groups)


def trace(fn, *inputs):
    seen = {}

    def pack(t):
        storage = t.storage()
        seen[storage.data_ptr()] = max(seen.get(storage.data_ptr(), 0), storage.nbytes())
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = fn(*inputs)
    return out, seen


def main():
    torch.manual_seed(0)
    weight = nn.Parameter(torch.randn(O, C, 3, 3))
    for what, weight_grad, input_grad in [("trained", True, True), ("frozen, input grad", False, True),
                                          ("frozen, no input grad", False, False)]:
        weight.requires_grad_(weight_grad)
        x = torch.randn(N, C, H, W, requires_grad=input_grad)
        y, seen = trace(lambda x: conv_ws_2d(x, weight, padding=1), x)
        sizes = sorted(seen.values())
        known = (x.storage().data_ptr(), weight.storage().data_ptr())
        extra = sum(n for ptr, n in seen.items() if ptr not in known)
        print(f"{what}: saved {sizes}; beyond the input and the parameter {extra} bytes = "
              f"{extra / (4 * weight.numel()):.3f} weights (+ {(extra % (4 * weight.numel())) // 4} values)")
        if y.requires_grad:
            y.sum().backward()


if __name__ == "__main__":
    main()
