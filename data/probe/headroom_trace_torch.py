#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Trace a few training steps of your own PyTorch module on the CPU, without
a GPU, and write Headroom's trace CSV: what autograd saves for the backward
pass (in all and per top-level child module), the parameters, gradients and
optimizer state, at each micro-batch and input size.  `headroom-cli
estimate SCENARIO --measurements TRACE` and the Headroom window read it,
labelled "traced on CPU", beside the estimate's activations, and can
calibrate the model's activations from it.

Your model comes from the same Python file headroom_probe_torch.py reads:

    def build(device, precision):      # -> (model, optimizer)
    def make_batch(batch_size, seq_len, device):   # -> the model's input
    def loss(model, batch):            # optional; default: model(batch),
                                       # its .loss, [0], or .float().mean()

Here `seq_len` is each of --sizes in turn: a sequence length, an image's
side for a vision model, or the samples of an audio clip for a speech model
(make_batch decides what it means; Headroom reads a speech model's size as
samples at the scenario's sample_rate).  A speech batch is the waveforms,
`torch.randn(batch_size, seq_len)` for 16 kHz wav2vec 2.0 or HuBERT, or the
log-mel frames a Conformer is fed, `torch.randn(batch_size, seq_len // 160 + 1,
80)`; its loss() computes the CTC loss, e.g. on `torch.randint` labels.

Example:

    python3 headroom_trace_torch.py --module my_model.py --model resnet-50 \\
        --batches 1,2,4 --sizes 96,128 -o resnet-50.trace.csv

How it counts (torch.autograd.graph.saved_tensors_hooks, PyTorch 1.13 and
later): every tensor autograd saves during the forward pass is seen by the
pack hook; its storage is counted once (by data_ptr, as a storage saved by
several ops is held once), parameters and buffers apart from activations.
Saved tensors stay alive until the backward pass frees them, so no storage
counted can be freed and reused under another counted tensor.  A forward
pre-hook on each top-level child names the module a save happens in; saves
outside them (the loss) go to "(top)".

What a CPU trace cannot see: the GPU's kernels may save a little more or
less (cuDNN BatchNorm's reserve space, flash attention's log-sum-exp
instead of the score matrix), cuBLAS/cuDNN workspaces and the caching
allocator's rounding; Headroom's estimate keeps those as their own lines.
"""

import argparse
import datetime
import gc
import importlib.util
import os
import platform
import sys

COLUMNS = ["micro_batch", "size", "module", "saved_bytes", "params_bytes", "grads_bytes",
           "optimizer_bytes"]
TOTAL = "total"
TOP = "(top)"


def parse_sizes(text):
    try:
        sizes = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected sizes like 1,2,4")
    if not sizes or any(s < 1 for s in sizes):
        raise argparse.ArgumentTypeError(f"{text!r}: sizes are whole numbers from 1")
    return sizes


def load_module(path):
    spec = importlib.util.spec_from_file_location("headroom_trace_user_model", path)
    if spec is None or spec.loader is None:
        sys.exit(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name in ("build", "make_batch"):
        if not hasattr(module, name):
            sys.exit(f"{path}: defines no {name}()")
    return module


def default_loss(model, batch):
    out = model(batch)
    if hasattr(out, "loss") and out.loss is not None:
        return out.loss
    if isinstance(out, dict):
        return sum(v.float().sum() for v in out.values())
    if isinstance(out, (tuple, list)):
        out = out[0]
    return out.float().mean()


def _storage(tensor):
    """The storage under @tensor: (data_ptr, bytes); (0, 0) for none."""
    if tensor.layout != __import__("torch").strided:
        return 0, 0
    get = getattr(tensor, "untyped_storage", None)
    storage = get() if get is not None else tensor.storage()
    return storage.data_ptr(), storage.nbytes()


def _tensor_bytes(tensors):
    seen = {}
    for t in tensors:
        if t is None:
            continue
        ptr, n = _storage(t)
        if ptr:
            seen[ptr] = n
    return sum(seen.values())


def _optimizer_tensors(optimizer):
    for state in optimizer.state.values():
        for value in state.values():
            if hasattr(value, "storage") and hasattr(value, "dim") and value.dim() > 0:
                yield value


class CudaDropout:
    """On a CUDA tensor nn.Dropout runs the fused native_dropout, which
    saves a bool mask (one byte an element); on the CPU, PyTorch 1.13's
    dropout multiplies by an fp32 noise tensor and saves it (four bytes:
    aten/src/ATen/native/Dropout.cpp, dropout(): is_fused_kernel_acceptable
    needs input.is_cuda()).  While the trace runs, F.dropout (and so
    nn.Dropout) takes the fused kernel, as on the GPU; in-place dropout is
    left alone (dropout_ never takes it)."""

    def __init__(self, torch):
        self.torch = torch
        self.functional = torch.nn.functional
        self.original = None

    def __enter__(self):
        torch, original = self.torch, self.functional.dropout
        if not hasattr(torch, "native_dropout"):
            return self
        self.original = original

        def dropout(input, p=0.5, training=True, inplace=False):
            if training and not inplace and 0 < p < 1 and input.numel() > 0:
                return torch.native_dropout(input, p, True)[0]
            return original(input, p, training, inplace)
        self.functional.dropout = dropout
        return self

    def __exit__(self, *exc):
        if self.original is not None:
            self.functional.dropout = self.original
        return False


def trace_step(torch, model, optimizer, batch, loss_fn, precision="fp32", backward=True):
    """Runs one training step of @model on @batch; returns a dict:
    saved (bytes of the activations autograd saved, each storage once),
    saved_params (bytes of parameters and buffers it saved, not counted in
    saved), modules ({top-level child: saved bytes}, in the order they
    first saved), params, grads and optimizer bytes after the step.  With
    @backward False the step stops after the forward pass (what is saved
    is known by then): grads and optimizer are None."""
    weights = {}
    for t in list(model.parameters()) + list(model.buffers()):
        ptr, n = _storage(t)
        if ptr:
            weights[ptr] = n
    saved = {}
    saved_weights = set()
    modules = {}
    stack = []

    def pack(t):
        ptr, n = _storage(t)
        if not ptr or n == 0:
            return t
        if ptr in weights:
            saved_weights.add(ptr)
        elif ptr not in saved:
            owner = stack[-1] if stack else TOP
            saved[ptr] = n
            modules[owner] = modules.get(owner, 0) + n
        return t

    handles = []
    for name, child in model.named_children():
        def enter(module, args, name=name):
            stack.append(name)

        def leave(module, args, output):
            stack.pop()
        handles.append(child.register_forward_pre_hook(enter))
        handles.append(child.register_forward_hook(leave))

    dtype = {"bf16-mixed": torch.bfloat16}.get(precision)
    try:
        optimizer.zero_grad(set_to_none=True)
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t), CudaDropout(torch):
            with torch.autocast("cpu", dtype=dtype or torch.bfloat16, enabled=dtype is not None):
                loss = loss_fn(model, batch)
        result = {"saved": sum(saved.values()),
                  "saved_params": sum(weights[p] for p in saved_weights),
                  "modules": dict(modules)}
        saved.clear()
        result["params"] = sum(weights.values())
        if not backward:
            del loss
            result["grads"] = result["optimizer"] = None
            return result
        loss.backward()
        del loss
        result["grads"] = _tensor_bytes(p.grad for p in model.parameters())
        optimizer.step()
        result["optimizer"] = _tensor_bytes(_optimizer_tensors(optimizer))
        optimizer.zero_grad(set_to_none=True)
    finally:
        for h in handles:
            h.remove()
        stack.clear()
    return result


def write_header(out, config):
    out.write("# headroom-trace: 1\n")
    for key, value in config.items():
        value = str(value).replace("\n", " ")
        out.write(f"# {key}: {value}\n")
    out.write(",".join(COLUMNS) + "\n")
    out.flush()


def write_rows(out, batch_size, size, result):
    def row(module, saved, params="", grads="", optimizer=""):
        module = module.replace(",", ";").replace("\n", " ")
        params, grads, optimizer = ("" if v is None else v for v in (params, grads, optimizer))
        out.write(f"{batch_size},{size or ''},{module},{saved},{params},{grads},{optimizer}\n")
    row(TOTAL, result["saved"], result["params"], result["grads"], result["optimizer"])
    for name, saved in result["modules"].items():
        row(name, saved)
    out.flush()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--module", required=True,
                        help="Python file defining build() and make_batch()")
    parser.add_argument("--model", default=None, help="model name for the header")
    parser.add_argument("--batches", type=parse_sizes, default=parse_sizes("1,2,4"),
                        help="micro-batch sizes (default 1,2,4: small, the CPU is slow)")
    parser.add_argument("--sizes", type=parse_sizes, default=None,
                        help="input sizes handed to make_batch as seq_len (default: its own)")
    parser.add_argument("--precision", choices=["fp32", "bf16-mixed"], default="fp32",
                        help="fp32 (default) or bf16-mixed (CPU autocast, whose op lists "
                             "differ a little from CUDA's)")
    parser.add_argument("--optimizer", default=None, help="optimizer name for the header")
    parser.add_argument("--threads", type=int, default=None, help="CPU threads to use")
    parser.add_argument("-o", "--output", default="-", help="CSV file to write (default stdout)")
    args = parser.parse_args()

    try:
        import torch
    except ImportError:
        sys.exit("headroom_trace_torch: needs PyTorch (CPU is enough)")
    if not hasattr(torch.autograd.graph, "saved_tensors_hooks"):
        sys.exit("headroom_trace_torch: needs PyTorch 1.10 or later (saved_tensors_hooks)")
    if args.threads:
        torch.set_num_threads(args.threads)

    config = {
        "framework": "torch",
        "model": args.model or os.path.basename(args.module),
        "precision": args.precision,
        "optimizer": args.optimizer or "unknown",
        "provenance": "traced on CPU",
        "device": "cpu",
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "python": platform.python_version(),
        "torch": torch.__version__,
    }
    user = load_module(args.module)
    device = torch.device("cpu")
    torch.manual_seed(0)
    model, optimizer = user.build(device, args.precision)
    model.train()
    loss_fn = getattr(user, "loss", default_loss)

    out = sys.stdout if args.output == "-" else open(args.output, "w", newline="")
    write_header(out, config)
    for size in args.sizes or [None]:
        for batch_size in sorted(args.batches):
            batch = user.make_batch(batch_size, size, device)
            result = trace_step(torch, model, optimizer, batch, loss_fn, args.precision)
            del batch
            gc.collect()
            write_rows(out, batch_size, size, result)
            print(f"micro-batch {batch_size}" + (f", size {size}" if size else "") +
                  f": {result['saved'] / 2**20:.1f} MiB saved for backward", file=sys.stderr)
    if out is not sys.stdout:
        out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
