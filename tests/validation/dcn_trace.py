#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Evidence for the deformable convolution rows (rows_dcn.py): what a
deformable 3x3 convolution keeps for its backward pass, traced on the CPU
with saved_tensors_hooks (PyTorch 1.13, torchvision 0.14), each storage
counted once.  Run by hand:

    /usr/bin/python3 tests/validation/dcn_trace.py

The module is built as mmcv's DeformConv2dPack and
ModulatedDeformConv2dPack build theirs (open-mmlab/mmcv @a8073c74
mmcv/ops/deform_conv.py, modulated_deform_conv.py): a zero-initialised
conv_offset nn.Conv2d to 18 x dg channels (27 x dg for DCNv2, chunked in
three, the first two concatenated into the offset, the third through a
sigmoid into the mask), then the deformable convolution, here
torchvision.ops.deform_conv2d.  Printed: every saved storage in bytes, and
what is saved beyond the input and the weights in channels at the output
size.  torchvision's op also keeps a zero bias of out_channels when none
is given (256 bytes here), which mmcv's DeformConv2dFunction does not.
"""

import torch
import torch.nn as nn
from torchvision.ops import deform_conv2d

N, C, H, W = 2, 64, 20, 30


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
    x = torch.randn(N, C, H, W, requires_grad=True)
    weight = nn.Parameter(torch.randn(C, C, 3, 3))
    for dg, modulated in [(1, False), (1, True), (4, True), (4, False)]:
        conv_offset = nn.Conv2d(C, (27 if modulated else 18) * dg, 3, 1, 1)
        nn.init.zeros_(conv_offset.weight)
        nn.init.zeros_(conv_offset.bias)

        def step(x):
            out = conv_offset(x)
            if modulated:
                o1, o2, mask = torch.chunk(out, 3, dim=1)
                offset = torch.cat((o1, o2), dim=1)
                mask = torch.sigmoid(mask)
                return deform_conv2d(x, offset, weight, padding=1, mask=mask)
            return deform_conv2d(x, out, weight, padding=1)

        y, seen = trace(step, x)
        sizes = sorted(seen.values())
        extra = sum(sizes) - 4 * (x.numel() + weight.numel() + conv_offset.weight.numel())
        print(f"deform_groups {dg}, modulated {modulated}: saved {sizes}; beyond the input and weights "
              f"{extra} bytes = {extra / (N * H * W * 4):.1f} channels at the output size")
        y.sum().backward()


if __name__ == "__main__":
    main()
