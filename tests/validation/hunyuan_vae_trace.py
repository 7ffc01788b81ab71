#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""HunyuanVideo's causal 3D VAE decoder against the walk (hr-arch.c
hy_decoder), profiled on the CPU (PyTorch 1.13): DecoderCausal3D and its
blocks from a HunyuanVideo checkout (Tencent/HunyuanVideo @fa14b00,
hyvideo/vae/vae.py, unet_causal_3d_blocks.py), narrowed to widths 32, 64,
128, 128 and 4 latent channels so that it runs in seconds, fp32, decoding
a 4 x 5 x 8 x 8 latent to 17 frames of 64 x 64 without gradients; and
the full VAE's parameter count from the same classes.  The bytes alive
are counted after every ATen op (a TorchDispatchMode: each op's outputs
by storage, until the last tensor on one is collected), so an op's own
scratch, which the CPU's slow_conv3d has and cuDNN's kernels do not, is
left out; torch.profiler's memory events, replayed against operator end
times as tests/trace/peak_trace.py does, gave 64 to 85 MB from run to run
here (its clocks do not line up at this grain).  The walk's figure is
headroom-cli's VAE line for the same decoder at inference, less the
decoded video twice (the tiles the estimate keeps).

diffusers and einops are not Debian's: the few names the blocks import
are stubbed here; Attention follows diffusers' AttnProcessor (the math
path torch 1.13 has: group_norm, to_q/k/v, baddbmm with the mask, softmax,
bmm, to_out, the residual, the rescale), which the walk's eager attention
counts.  Here (torch 1.13.1 under Debian's /usr/bin/python3): live peak
81,742,848 bytes, in the last UpsampleCausal3D's convolution; the walk
81,742,848 (+0.0%); the full VAE 246,478,803 parameters, the catalog's.
The encoder is not traced.  Run by hand:

    /usr/bin/python3 tests/validation/hunyuan_vae_trace.py HEADROOM_CLI HUNYUANVIDEO_CHECKOUT
"""
import json
import subprocess
import sys
import types
import weakref

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

WIDTHS = [32, 64, 128, 128]
LATENT = 4
FRAMES, SIDE = 17, 64


class Attention(nn.Module):
    """diffusers' Attention as the VAE's middle block builds it (heads 1,
    GroupNorm, residual_connection, rescale_output_factor 1, bias), run
    as AttnProcessor runs it"""

    def __init__(self, dim, heads=1, dim_head=None, rescale_output_factor=1.0, eps=1e-6,
                 norm_num_groups=None, residual_connection=True, bias=True, **_):
        super().__init__()
        self.heads, self.rescale = heads, rescale_output_factor
        self.group_norm = nn.GroupNorm(norm_num_groups, dim, eps=eps, affine=True)
        self.to_q, self.to_k, self.to_v = (nn.Linear(dim, dim, bias=bias) for _ in range(3))
        self.to_out = nn.ModuleList([nn.Linear(dim, dim, bias=True), nn.Dropout(0.0)])
        self.scale = (dim // heads) ** -0.5

    def forward(self, hidden_states, temb=None, attention_mask=None):
        residual = hidden_states
        hidden_states = self.group_norm(hidden_states.transpose(1, 2)).transpose(1, 2)
        query = self.to_q(hidden_states)
        key = self.to_k(hidden_states)
        value = self.to_v(hidden_states)
        scores = torch.baddbmm(attention_mask, query, key.transpose(-1, -2), beta=1, alpha=self.scale)
        del key
        probs = scores.softmax(dim=-1)
        del scores
        hidden_states = torch.bmm(probs, value)
        hidden_states = self.to_out[0](hidden_states)
        hidden_states = self.to_out[1](hidden_states)
        hidden_states = hidden_states + residual
        return hidden_states / self.rescale


def rearrange(x, pattern, **axes):
    if pattern == "b c f h w -> b (f h w) c":
        b, c, f, h, w = x.shape
        return x.permute(0, 2, 3, 4, 1).reshape(b, f * h * w, c)
    if pattern == "b (f h w) c -> b c f h w":
        b, _, c = x.shape
        return x.reshape(b, axes["f"], axes["h"], axes["w"], c).permute(0, 4, 1, 2, 3)
    raise NotImplementedError(pattern)


def stub_imports(checkout):
    def module(name, **names):
        m = types.ModuleType(name)
        m.__dict__.update(names)
        m.__path__ = []
        sys.modules[name] = m
        return m

    class Logger:
        def warn(self, *a):
            pass

    module("diffusers")
    module("diffusers.utils", logging=types.SimpleNamespace(get_logger=lambda n: Logger()),
           BaseOutput=object, is_torch_version=lambda *a: True)
    module("diffusers.utils.torch_utils", randn_tensor=None)
    module("diffusers.models")
    module("diffusers.models.activations", get_activation=lambda n: nn.SiLU())
    module("diffusers.models.attention_processor", SpatialNorm=None, Attention=Attention)
    module("diffusers.models.normalization", AdaGroupNorm=None, RMSNorm=None)
    module("einops", rearrange=rearrange)
    pkg = module("hyvideo")
    pkg.__path__ = [checkout + "/hyvideo"]
    sub = module("hyvideo.vae")
    sub.__path__ = [checkout + "/hyvideo/vae"]


class Live(TorchDispatchMode):
    """The bytes of the storages alive after every ATen op: each op's
    outputs are counted by storage (views share one) until the last
    tensor on it is gone"""

    def __init__(self):
        super().__init__()
        self.refs, self.size, self.live, self.peak, self.at = {}, {}, 0, 0, None

    def _drop(self, key):
        self.refs[key] -= 1
        if self.refs[key] == 0:
            self.live -= self.size.pop(key)
            del self.refs[key]

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for t in tree_flatten(out)[0]:
            if isinstance(t, torch.Tensor):
                storage = t.storage()
                key = storage.data_ptr()
                if key not in self.refs:
                    self.refs[key], self.size[key] = 0, storage.nbytes()
                    self.live += storage.nbytes()
                self.refs[key] += 1
                weakref.finalize(t, self._drop, key)
        if self.live > self.peak:
            self.peak, self.at = self.live, str(func)
        return out


def live_peak(run):
    mode = Live()
    with mode:
        out = run()
    del out
    return mode.peak, mode.at


def walked(cli):
    arch = {"type": "vae", "widths": WIDTHS, "out_channels": LATENT, "latent_scale": 8, "quant_conv": False,
            "temporal_compression": 4, "layers_per_block": 2, "hunyuan_vae": True}
    model = {"id": "hunyuan-vae-narrow", "name": "narrow HunyuanVideo VAE", "family": "video", "params": 1,
             "framework": "pytorch", "source": "hunyuan_vae_trace.py",
             "components": [{"name": "vae", "params": 1, "kind": "cnn", "trainable": False, "arch": arch}]}
    scenario = {"headroom_scenario": 1, "model": model, "task": "inference", "compute": "fp32",
                "weights_dtype": "fp32", "attention": "eager", "image_size": [SIDE, SIDE], "frames": FRAMES}
    est = json.loads(subprocess.run([cli, "estimate", "-", "--json"], input=json.dumps(scenario),
                                    capture_output=True, text=True, check=True).stdout)
    line = [i for i in est["items"] if i["bucket"] == "activations" and i["label"].startswith("vae:")]
    return line[0]["bytes"] - 2 * 3 * FRAMES * SIDE * SIDE * 4


def full_params():
    """AutoencoderKLCausal3D's parameters at the 884-16c-hy config (block_out_channels 128, 256, 512,
    512, layers_per_block 2, latent_channels 16): its encoder, decoder, quant_conv and
    post_quant_conv, built on the CPU"""
    from hyvideo.vae.vae import DecoderCausal3D, EncoderCausal3D
    widths = (128, 256, 512, 512)
    enc = EncoderCausal3D(in_channels=3, out_channels=16, down_block_types=("DownEncoderBlockCausal3D",) * 4,
                          block_out_channels=widths, layers_per_block=2, norm_num_groups=32)
    dec = DecoderCausal3D(in_channels=16, out_channels=3, up_block_types=("UpDecoderBlockCausal3D",) * 4,
                          block_out_channels=widths, layers_per_block=2, norm_num_groups=32)
    quant = nn.Conv3d(32, 32, kernel_size=1)
    post_quant = nn.Conv3d(16, 16, kernel_size=1)
    return sum(p.numel() for m in (enc, dec, quant, post_quant) for p in m.parameters())


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    stub_imports(sys.argv[2])
    from hyvideo.vae.vae import DecoderCausal3D
    torch.manual_seed(0)
    decoder = DecoderCausal3D(in_channels=LATENT, out_channels=3,
                              up_block_types=("UpDecoderBlockCausal3D",) * 4, block_out_channels=WIDTHS,
                              layers_per_block=2, norm_num_groups=32, time_compression_ratio=4,
                              spatial_compression_ratio=8).eval()
    params = sum(p.numel() for p in decoder.parameters())
    z = torch.randn(1, LATENT, 1 + (FRAMES - 1) // 4, SIDE // 8, SIDE // 8)
    with torch.no_grad():
        out = decoder(z)
        assert tuple(out.shape) == (1, 3, FRAMES, SIDE, SIDE), out.shape
        peak, at = live_peak(lambda: decoder(z))
    walk = walked(sys.argv[1])
    print(f"the 884-16c-hy VAE's parameters: {full_params()}")
    print(f"decoder params {params}; live peak {peak} bytes (after {at}); walk {walk:.0f} "
          f"({(walk / peak - 1) * 100:+.1f}%)")


if __name__ == "__main__":
    main()
