#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Measure the peak GPU memory of a few real JAX training steps at each
micro-batch size (and, optionally, sequence length), and write Headroom's
probe CSV, which `headroom-cli measure` and the Headroom window read.

Your model comes from a Python file that defines:

    def build(seq_len):            # -> (state, train_step)
                                   #    train_step(state, batch) -> state
    def make_batch(batch_size, seq_len):   # -> the step's input (numpy or jax)

Example:

    python3 headroom_probe_jax.py --module my_world_model.py --model dreamerv3-m \\
        --batches 1,2,4,8,16 -o dreamer-5090d.csv

JAX keeps one peak per process and cannot reset it, so each size runs in a
fresh Python process. It records Device.memory_stats(): peak_bytes_in_use
(as max_memory_allocated), the pool's peak (as max_memory_reserved) and,
under XLA's default preallocation, bytes_limit as the device's used memory:
with XLA_PYTHON_CLIENT_PREALLOCATE unset or true, nvidia-smi shows that
pool (75% of the card by default) whatever the model needs. The header
says which setting the run had. --demo probes a small built-in MLP;
--dry-run writes the header only (no GPU or JAX needed).
"""

import argparse
import csv
import datetime
import importlib.util
import json
import os
import platform
import subprocess
import sys

COLUMNS = ["micro_batch", "seq_len", "max_memory_allocated", "max_memory_reserved",
           "device_used", "status"]
RESULT_PREFIX = "HEADROOM_PROBE_RESULT "


def parse_sizes(text):
    try:
        sizes = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected sizes like 1,2,4,8")
    if not sizes or any(s < 1 for s in sizes):
        raise argparse.ArgumentTypeError(f"{text!r}: sizes are whole numbers from 1")
    return sizes


def preallocate_setting():
    value = os.environ.get("XLA_PYTHON_CLIENT_PREALLOCATE", "true").lower()
    fraction = os.environ.get("XLA_PYTHON_CLIENT_MEM_FRACTION", "0.75")
    allocator = os.environ.get("XLA_PYTHON_CLIENT_ALLOCATOR", "default")
    return value not in ("false", "0"), fraction, allocator


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
    """A four-layer MLP trained with plain SGD, to try the probe without a
    model of your own."""

    @staticmethod
    def build(seq_len):
        import jax
        import jax.numpy as jnp
        width, features = 4096, (seq_len or 256)
        keys = jax.random.split(jax.random.PRNGKey(0), 4)
        params = [jax.random.normal(k, (features if i == 0 else width, width)) * 0.01
                  for i, k in enumerate(keys)]

        def loss(p, x):
            for w in p:
                x = jnp.tanh(x @ w)
            return jnp.mean(x ** 2)

        @jax.jit
        def train_step(p, x):
            grads = jax.grad(loss)(p, x)
            return [w - 1e-3 * g for w, g in zip(p, grads)]

        return params, train_step

    @staticmethod
    def make_batch(batch_size, seq_len):
        import numpy as np
        return np.random.default_rng(0).standard_normal((batch_size, seq_len or 256),
                                                        dtype=np.float32)


def run_single(args):
    """In a fresh process: one size, its peaks printed as one JSON line."""
    import jax
    user = DemoModel if args.demo else load_module(args.module)
    seq_len = args.single_seq or None
    device = jax.devices()[0]
    try:
        state, train_step = user.build(seq_len)
        for _ in range(args.steps):
            batch = user.make_batch(args.single, seq_len)
            state = train_step(state, batch)
        jax.block_until_ready(state)
    except Exception as error:  # noqa: BLE001 - XLA reports OOM as several types
        text = str(error)
        if "RESOURCE_EXHAUSTED" in text or "out of memory" in text.lower():
            print(RESULT_PREFIX + json.dumps({"oom": True}), flush=True)
            return 0
        raise
    stats = device.memory_stats() or {}
    print(RESULT_PREFIX + json.dumps({"oom": False, "stats": stats,
                                      "device": getattr(device, "device_kind", str(device))}),
          flush=True)
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--module", help="Python file defining build() and make_batch()")
    source.add_argument("--demo", action="store_true", help="probe a small built-in MLP")
    parser.add_argument("--model", default=None, help="model name for the header")
    parser.add_argument("--batches", type=parse_sizes, default=parse_sizes("1,2,4,8,16,32"),
                        help="micro-batch sizes, smallest first (default 1,2,4,...,32)")
    parser.add_argument("--seq-lens", type=parse_sizes, default=None,
                        help="sequence lengths to sweep (default: the model's own)")
    parser.add_argument("--steps", type=int, default=3, help="training steps per size (default 3)")
    parser.add_argument("--precision", default="unknown", help="precision, for the header")
    parser.add_argument("--optimizer", default=None, help="optimizer name for the header")
    parser.add_argument("-o", "--output", default="-", help="CSV file to write (default stdout)")
    parser.add_argument("--dry-run", action="store_true",
                        help="write the header only; needs neither a GPU nor JAX")
    parser.add_argument("--single", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--single-seq", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.steps < 1:
        parser.error("--steps must be 1 or more")

    if args.single is not None:
        return run_single(args)

    preallocate, fraction, allocator = preallocate_setting()
    config = {
        "framework": "jax",
        "model": args.model or ("demo-mlp" if args.demo else
                                os.path.basename(args.module or "unknown")),
        "precision": args.precision,
        "optimizer": args.optimizer or ("sgd" if args.demo else "unknown"),
        "steps": args.steps,
        "jax_preallocate": "true" if preallocate else "false",
        "xla_mem_fraction": fraction,
        "xla_allocator": allocator,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "python": platform.python_version(),
    }

    try:
        import jax
    except ImportError:
        jax = None

    gpus = []
    if jax is not None and not args.dry_run:
        try:
            gpus = jax.devices("gpu")
        except RuntimeError:
            gpus = []

    if args.dry_run or not gpus:
        if not args.dry_run:
            sys.exit("headroom_probe_jax: needs JAX with a GPU (--dry-run writes the header alone)")
        config["gpu"] = "none (dry run)"
        config["jax"] = jax.__version__ if jax is not None else "not installed"
        out = sys.stdout if args.output == "-" else open(args.output, "w", newline="")
        write_header(out, config)
        if out is not sys.stdout:
            out.close()
        return 0

    if not args.demo and args.module is None:
        parser.error("give --module FILE (or --demo)")

    config["gpu"] = getattr(gpus[0], "device_kind", str(gpus[0]))
    config["jax"] = jax.__version__
    try:
        import jaxlib
        config["jaxlib"] = jaxlib.__version__
    except (ImportError, AttributeError):
        pass

    out = sys.stdout if args.output == "-" else open(args.output, "w", newline="")
    writer = write_header(out, config)
    base = [sys.executable, os.path.abspath(__file__), "--steps", str(args.steps)]
    base += ["--demo"] if args.demo else ["--module", os.path.abspath(args.module)]
    for seq_len in args.seq_lens or [0]:
        for batch_size in sorted(args.batches):
            child = subprocess.run(base + ["--single", str(batch_size), "--single-seq",
                                           str(seq_len)],
                                   capture_output=True, text=True)
            result = None
            for line in child.stdout.splitlines():
                if line.startswith(RESULT_PREFIX):
                    result = json.loads(line[len(RESULT_PREFIX):])
            if result is None:
                # A process that died without a word: XLA aborts on some OOMs.
                died_of_oom = "RESOURCE_EXHAUSTED" in child.stderr or "out of memory" in \
                    child.stderr.lower()
                if not died_of_oom:
                    sys.stderr.write(child.stderr)
                    sys.exit(f"micro-batch {batch_size}: the probe failed (exit {child.returncode})")
                result = {"oom": True}
            if result["oom"]:
                writer.writerow([batch_size, seq_len or "", "", "", "", "oom"])
                out.flush()
                print(f"micro-batch {batch_size}: out of memory; stopping this sweep",
                      file=sys.stderr)
                break
            stats = result["stats"]
            allocated = stats.get("peak_bytes_in_use", "")
            reserved = stats.get("peak_pool_bytes", stats.get("peak_bytes_reserved", ""))
            used = stats.get("bytes_limit", "") if preallocate else reserved
            writer.writerow([batch_size, seq_len or "", allocated, reserved, used, "ok"])
            out.flush()
            if allocated != "":
                print(f"micro-batch {batch_size}: {allocated / 2**30:.2f} GiB peak in use",
                      file=sys.stderr)
    if out is not sys.stdout:
        out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
