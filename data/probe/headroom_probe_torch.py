#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Measure the peak GPU memory of a few real PyTorch training steps at each
micro-batch size (and, optionally, sequence length), and write Headroom's
probe CSV, which `headroom-cli measure` and the Headroom window read.

Your model comes from a Python file that defines:

    def build(device, precision):      # -> (model, optimizer)
    def make_batch(batch_size, seq_len, device):   # -> the model's input
    def loss(model, batch):            # optional; default: model(batch),
                                       # its .loss, [0], or .float().mean()

Example:

    python3 headroom_probe_torch.py --module my_model.py --model smolvla \\
        --batches 1,2,4,8,16,32 --seq-lens 200 -o smolvla-4090.csv

Each size runs after torch.cuda.reset_peak_memory_stats(); it records
torch.cuda.max_memory_allocated, max_memory_reserved and the device's used
memory (total minus free from torch.cuda.mem_get_info, what nvidia-smi
shows for this process and any other), and stops cleanly at the first out
of memory, which it records. --demo probes a small built-in transformer;
--dry-run writes the header only (no GPU or torch needed).

--snapshot DIR also records PyTorch's memory history from before the model
is built (torch.cuda.memory._record_memory_history) and writes, per
micro-batch, the snapshot torch.cuda.memory._dump_snapshot writes, to
DIR/snapshot-bN.pickle (-sM with --seq-lens; -oom when it ran out of
memory), with one key added, "headroom_probe": the micro-batch, sequence
length and the run's configuration.  `headroom-cli measure` and the
Headroom window read each (the buckets at its peak, its top allocation
sites); pytorch.org/memory_viz ignores the added key.
"""

import argparse
import csv
import datetime
import gc
import importlib.util
import os
import pickle
import platform
import sys

COLUMNS = ["micro_batch", "seq_len", "max_memory_allocated", "max_memory_reserved",
           "device_used", "status"]


def parse_sizes(text):
    try:
        sizes = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected sizes like 1,2,4,8")
    if not sizes or any(s < 1 for s in sizes):
        raise argparse.ArgumentTypeError(f"{text!r}: sizes are whole numbers from 1")
    return sizes


def write_header(out, config):
    out.write("# headroom-probe: 1\n")
    for key, value in config.items():
        value = str(value).replace("\n", " ")
        out.write(f"# {key}: {value}\n")
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    out.flush()
    return writer


def load_module(path):
    spec = importlib.util.spec_from_file_location("headroom_probe_user_model", path)
    if spec is None or spec.loader is None:
        sys.exit(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name in ("build", "make_batch"):
        if not hasattr(module, name):
            sys.exit(f"{path}: defines no {name}()")
    return module


class DemoModel:
    """A small transformer encoder with a classification loss, to try the
    probe without a model of your own."""

    @staticmethod
    def build(device, precision):
        import torch
        layer = torch.nn.TransformerEncoderLayer(d_model=512, nhead=8, dim_feedforward=2048,
                                                 batch_first=True)
        model = torch.nn.Sequential(torch.nn.Embedding(32000, 512),
                                    torch.nn.TransformerEncoder(layer, num_layers=6),
                                    torch.nn.Linear(512, 32000)).to(device)
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
        return model, optimizer

    @staticmethod
    def make_batch(batch_size, seq_len, device):
        import torch
        return torch.randint(0, 32000, (batch_size, seq_len or 512), device=device)

    @staticmethod
    def loss(model, batch):
        import torch
        logits = model(batch)
        return torch.nn.functional.cross_entropy(logits.flatten(0, 1).float(), batch.flatten())


def default_loss(model, batch):
    out = model(batch)
    if hasattr(out, "loss") and out.loss is not None:
        return out.loss
    if isinstance(out, (tuple, list)):
        out = out[0]
    return out.float().mean()


def is_oom(error):
    import torch
    oom_type = getattr(torch.cuda, "OutOfMemoryError", None)
    if oom_type is not None and isinstance(error, oom_type):
        return True
    return isinstance(error, RuntimeError) and "out of memory" in str(error).lower()


def probe_one(torch, user, model, optimizer, batch_size, seq_len, steps, precision, device):
    """Runs @steps training steps; returns (allocated, reserved, used) peaks."""
    loss_fn = getattr(user, "loss", default_loss)
    dtype = {"bf16-mixed": torch.bfloat16, "fp16-mixed": torch.float16}.get(precision)
    scaler = None
    if precision == "fp16-mixed":
        amp = getattr(torch, "amp", None)
        scaler = (amp.GradScaler("cuda") if amp is not None and hasattr(amp, "GradScaler")
                  else torch.cuda.amp.GradScaler())
    used = 0

    optimizer.zero_grad(set_to_none=True)
    gc.collect()
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats(device)
    for _ in range(steps):
        batch = user.make_batch(batch_size, seq_len, device)
        with torch.autocast("cuda", dtype=dtype, enabled=dtype is not None):
            loss = loss_fn(model, batch)
        if scaler is not None:
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        else:
            loss.backward()
            optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        torch.cuda.synchronize(device)
        free, total = torch.cuda.mem_get_info(device)
        used = max(used, total - free)
        del batch, loss
    return (torch.cuda.max_memory_allocated(device), torch.cuda.max_memory_reserved(device), used)


def snapshot_path(directory, batch_size, seq_len, oom):
    name = f"snapshot-b{batch_size}"
    if seq_len:
        name += f"-s{seq_len}"
    if oom:
        name += "-oom"
    return os.path.join(directory, name + ".pickle")


def write_snapshot(torch, directory, batch_size, seq_len, config, oom=False):
    """What torch.cuda.memory._dump_snapshot writes (torch/cuda/memory.py:
    pickle.dump of _snapshot()), with the probe's "headroom_probe" key, then
    the history cleared for the next size."""
    snapshot = torch.cuda.memory._snapshot()
    probe = {"micro_batch": batch_size, "status": "oom" if oom else "ok"}
    if seq_len:
        probe["seq_len"] = seq_len
    for key in ("model", "precision", "optimizer", "gpu", "torch"):
        if key in config:
            probe[key] = str(config[key])
    snapshot["headroom_probe"] = probe
    path = snapshot_path(directory, batch_size, seq_len, oom)
    with open(path, "wb") as f:
        pickle.dump(snapshot, f)
    print(f"micro-batch {batch_size}: snapshot written to {path}", file=sys.stderr)
    return path


def record_history(torch, enabled, max_entries):
    """Starts (or, with @enabled False, stops and clears) the allocator's
    history; the blocks live keep the stacks they were allocated with."""
    if enabled:
        torch.cuda.memory._record_memory_history(max_entries=max_entries)
    else:
        torch.cuda.memory._record_memory_history(enabled=None)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--module", help="Python file defining build() and make_batch()")
    source.add_argument("--demo", action="store_true", help="probe a small built-in transformer")
    parser.add_argument("--model", default=None, help="model name for the header")
    parser.add_argument("--batches", type=parse_sizes, default=parse_sizes("1,2,4,8,16,32,64"),
                        help="micro-batch sizes, smallest first (default 1,2,4,...,64)")
    parser.add_argument("--seq-lens", type=parse_sizes, default=None,
                        help="sequence lengths to sweep (default: the model's own)")
    parser.add_argument("--steps", type=int, default=3, help="training steps per size (default 3)")
    parser.add_argument("--precision", choices=["bf16-mixed", "fp16-mixed", "fp32"],
                        default="bf16-mixed")
    parser.add_argument("--optimizer", default=None, help="optimizer name for the header")
    parser.add_argument("--device", default="cuda:0")
    parser.add_argument("-o", "--output", default="-", help="CSV file to write (default stdout)")
    parser.add_argument("--dry-run", action="store_true",
                        help="write the header only; needs neither a GPU nor torch")
    parser.add_argument("--snapshot", metavar="DIR", default=None,
                        help="also write a PyTorch memory snapshot per micro-batch into DIR")
    parser.add_argument("--snapshot-entries", type=int, default=200000,
                        help="trace entries a snapshot keeps at most (default 200000)")
    args = parser.parse_args()
    if args.steps < 1:
        parser.error("--steps must be 1 or more")
    if args.snapshot is not None:
        os.makedirs(args.snapshot, exist_ok=True)

    config = {
        "framework": "torch",
        "model": args.model or ("demo-transformer" if args.demo else
                                os.path.basename(args.module or "unknown")),
        "precision": args.precision,
        "optimizer": args.optimizer or ("adamw" if args.demo else "unknown"),
        "steps": args.steps,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "python": platform.python_version(),
        "alloc_conf": os.environ.get("PYTORCH_ALLOC_CONF",
                                     os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "default")),
    }

    try:
        import torch
    except ImportError:
        torch = None

    if torch is None or args.dry_run or not torch.cuda.is_available():
        if not args.dry_run:
            sys.exit("headroom_probe_torch: needs PyTorch with a CUDA GPU "
                     "(--dry-run writes the header alone)")
        config["gpu"] = "none (dry run)"
        config["torch"] = torch.__version__ if torch is not None else "not installed"
        out = sys.stdout if args.output == "-" else open(args.output, "w", newline="")
        write_header(out, config)
        if out is not sys.stdout:
            out.close()
        return 0

    if not args.demo and args.module is None:
        parser.error("give --module FILE (or --demo)")

    device = torch.device(args.device)
    props = torch.cuda.get_device_properties(device)
    config["gpu"] = props.name
    config["gpu_memory"] = props.total_memory
    config["torch"] = torch.__version__
    config["cuda"] = torch.version.cuda or "unknown"

    user = DemoModel if args.demo else load_module(args.module)
    # from before the model is built, so that the weights have their stacks
    if args.snapshot is not None:
        record_history(torch, True, args.snapshot_entries)
    model, optimizer = user.build(device, args.precision)
    model.train()

    out = sys.stdout if args.output == "-" else open(args.output, "w", newline="")
    writer = write_header(out, config)
    seq_lens = args.seq_lens or [None]
    for seq_len in seq_lens:
        for batch_size in sorted(args.batches):
            try:
                allocated, reserved, used = probe_one(torch, user, model, optimizer, batch_size,
                                                      seq_len, args.steps, args.precision, device)
            except Exception as error:  # noqa: BLE001 - OOM comes in several types
                if not is_oom(error):
                    raise
                writer.writerow([batch_size, seq_len or "", "", "", "", "oom"])
                out.flush()
                print(f"micro-batch {batch_size}: out of memory; stopping this sweep",
                      file=sys.stderr)
                if args.snapshot is not None:
                    # what was live when it ran out, the most useful of all
                    write_snapshot(torch, args.snapshot, batch_size, seq_len, config, oom=True)
                    record_history(torch, False, 0)
                    record_history(torch, True, args.snapshot_entries)
                optimizer.zero_grad(set_to_none=True)
                gc.collect()
                torch.cuda.empty_cache()
                break
            writer.writerow([batch_size, seq_len or "", allocated, reserved, used, "ok"])
            out.flush()
            if args.snapshot is not None:
                write_snapshot(torch, args.snapshot, batch_size, seq_len, config)
                # the next size's trace starts afresh; live blocks keep their stacks
                record_history(torch, False, 0)
                record_history(torch, True, args.snapshot_entries)
            print(f"micro-batch {batch_size}: {allocated / 2**30:.2f} GiB allocated, "
                  f"{reserved / 2**30:.2f} GiB reserved", file=sys.stderr)
    if out is not sys.stdout:
        out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
