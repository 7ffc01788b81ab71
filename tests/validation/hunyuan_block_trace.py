#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""HunyuanVideo's MMSingleStreamBlock forward without gradients, as the
catalog's "single_stream" counts it (hr-estimate-activations.c,
single_stream_values: 13 h + 3 m values a token).  The block is typed
again from Tencent/HunyuanVideo @e965abb (hyvideo/modules/models.py
MMSingleStreamBlock.forward, norm_layers.py RMSNorm, posemb_layers.py
apply_rotary_emb and rotate_half, modulate_layers.py), narrowed to hidden
384 (3 heads of 128) with the MLP at 4 h, in bf16 on the CPU; the flash
attention is an output of the queries' shape (flash_attn_varlen_func keeps
no scores).  The bytes alive are counted after every ATen op by
hunyuan_vae_trace.py's Live mode; the input is made outside it.  Here
(torch 1.13.1 under Debian's /usr/bin/python3): 76,581,120 bytes at the
torch.cat linear2 reads, 23.97 values a token and hidden beyond the input
(12 h + 3 m = 24 h at m = 4 h, less the rotated copies the 64 text tokens
do not get).  Run by hand:

    /usr/bin/python3 tests/validation/hunyuan_block_trace.py
"""
import os
import sys

import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hunyuan_vae_trace import Live  # noqa: E402

H, HEADS, D, MLP = 384, 3, 128, 1536
L_IMG, L_TXT = 4096, 64
DT = torch.bfloat16


class RMSNorm(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim, dtype=DT))
        self.eps = 1e-6

    def _norm(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)

    def forward(self, x):
        output = self._norm(x.float()).type_as(x)
        return output * self.weight


def rotate_half(x):
    x_real, x_imag = x.float().reshape(*x.shape[:-1], -1, 2).unbind(-1)
    return torch.stack([-x_imag, x_real], dim=-1).flatten(3)


def apply_rotary_emb(xq, xk, cos, sin):
    xq_out = (xq.float() * cos + rotate_half(xq.float()) * sin).type_as(xq)
    xk_out = (xk.float() * cos + rotate_half(xk.float()) * sin).type_as(xk)
    return xq_out, xk_out


class SingleStreamBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear1 = nn.Linear(H, 3 * H + MLP, dtype=DT)
        self.linear2 = nn.Linear(H + MLP, H, dtype=DT)
        self.q_norm, self.k_norm = RMSNorm(D), RMSNorm(D)
        self.pre_norm = nn.LayerNorm(H, elementwise_affine=False, eps=1e-6, dtype=DT)
        self.mlp_act = nn.GELU(approximate="tanh")
        self.modulation = nn.Linear(H, 3 * H, dtype=DT)

    def forward(self, x, vec, txt_len, cos, sin):
        mod_shift, mod_scale, mod_gate = self.modulation(nn.functional.silu(vec)).chunk(3, dim=-1)
        x_mod = self.pre_norm(x) * (1 + mod_scale.unsqueeze(1)) + mod_shift.unsqueeze(1)
        qkv, mlp = torch.split(self.linear1(x_mod), [3 * H, MLP], dim=-1)
        b, length, _ = qkv.shape
        q, k, v = qkv.view(b, length, 3, HEADS, D).permute(2, 0, 1, 3, 4)
        q = self.q_norm(q).to(v)
        k = self.k_norm(k).to(v)
        img_q, txt_q = q[:, :-txt_len], q[:, -txt_len:]
        img_k, txt_k = k[:, :-txt_len], k[:, -txt_len:]
        img_qq, img_kk = apply_rotary_emb(img_q, img_k, cos, sin)
        img_q, img_k = img_qq, img_kk
        q = torch.cat((img_q, txt_q), dim=1)
        k = torch.cat((img_k, txt_k), dim=1)
        attn = torch.empty_like(q).view(b, length, H)  # flash_attn_varlen_func's output
        output = self.linear2(torch.cat((attn, self.mlp_act(mlp)), 2))
        return x + output * mod_gate.unsqueeze(1)


def main():
    torch.manual_seed(0)
    block = SingleStreamBlock().eval()
    length = L_IMG + L_TXT
    cos, sin = torch.randn(L_IMG, 1, D), torch.randn(L_IMG, 1, D)
    with torch.no_grad():
        x = torch.randn(1, length, H, dtype=DT)
        vec = torch.randn(1, H, dtype=DT)
        mode = Live()
        with mode:
            out = block(x, vec, L_TXT, cos, sin)
        del out
    print(f"live peak {mode.peak:,} bytes at {mode.at}; "
          f"{mode.peak / length / H / 2:.2f} values a token and hidden beyond the input")


if __name__ == "__main__":
    main()
