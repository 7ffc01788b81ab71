#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""What every reader holds against the size of what it reads: each format
made at about SIZE MB (or at its reader's limit), read by headroom-cli, its
largest resident set measured (wait4 from this small process, which holds
none of the files).  Prints one Markdown table row per format, for the
README's "Input limits".  Not a test (a minute or two on 2 cores).

Usage: reader-bounds.py HEADROOM_CLI [SIZE_MB] [--keep DIR]
"""

import json
import os
import pickle
import struct
import subprocess
import sys
import tempfile
import time

CLI = os.path.abspath(sys.argv[1])
SIZE = int(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[2].isdigit() else 40
MB = 1_000_000


def measure(args):
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        os.execv(CLI, [CLI] + args)
    _, status, usage = os.wait4(pid, 0)
    return os.waitstatus_to_exitcode(status), usage.ru_maxrss * 1024, time.monotonic() - start


def lines(path, header, row, target=SIZE * MB, footer=""):
    """Writes @header, then row(i) until the file is @target bytes."""
    with open(path, "w") as f:
        f.write(header)
        i, size = 0, len(header)
        while size < target:
            chunk = "".join(row(j) for j in range(i, i + 10000))
            f.write(chunk)
            size += len(chunk)
            i += 10000
        f.write(footer)
    return i


def json_array(path, item, target=SIZE * MB, head="[", tail="]"):
    with open(path, "w") as f:
        f.write(head)
        i, size = 0, 1
        while size < target:
            chunk = ",\n".join(item(j) for j in range(i, i + 10000))
            f.write((",\n" if i else "") + chunk)
            size += len(chunk) + 1
            i += 10000
        f.write(tail)
    return i


def snapshot(path, allocations):
    pool = [{"filename": f"/home/user/project/m{i % 7}.py", "line": i, "name": "forward"}
            for i in range(64)]
    trace = []
    for i in range(allocations):
        frames = [pool[(i + k) % 64] for k in range(12)]
        for k, action in enumerate(("alloc", "free_requested", "free_completed")):
            trace.append({"action": action, "addr": 0x7F0000000000 + 512 * (i % 1000),
                          "size": 512 + i % 4096, "stream": 0,
                          "time_us": 1_700_000_000_000_000 + 3 * i + k, "frames": frames})
    with open(path, "wb") as f:
        pickle.dump({"segments": [], "device_traces": [trace]}, f)
    return 3 * allocations


def safetensors(path, tensors):
    header = {f"model.layers.{i}.weight": {"dtype": "BF16", "shape": [64, 64],
                                            "data_offsets": [i * 8192, (i + 1) * 8192]}
              for i in range(tensors)}
    text = json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        f.truncate(8 + len(text) + tensors * 8192)   # sparse: the tensors are not read
    return tensors


def gguf(path, tokens):
    def string(s):
        b = s.encode()
        return struct.pack("<Q", len(b)) + b

    with open(path, "wb") as f:
        f.write(b"GGUF" + struct.pack("<IQQ", 3, 1, 2))
        f.write(string("general.architecture") + struct.pack("<I", 8) + string("llama"))
        f.write(string("tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, 8, tokens))
        for i in range(tokens):
            f.write(string(f"tok{i:08d}"))
        f.write(string("token_embd.weight") + struct.pack("<I", 2) +
                struct.pack("<QQ", 4096, 32000) + struct.pack("<IQ", 1, 0))
    return tokens


ROWS = []


def row(fmt, kept, path, args, count, unit):
    rc, rss, seconds = measure(args)
    size = os.path.getsize(path) if os.path.isfile(path) else sum(
        os.path.getsize(os.path.join(path, n)) for n in os.listdir(path))
    ROWS.append((fmt, kept, size, rss, seconds, rc, count, unit))
    print(f"| {fmt} | {kept} | {size / MB:.0f} MB, {count:,} {unit} | "
          f"{rss / 2**20:.0f} MiB | {seconds:.1f} s | exit {rc} |", flush=True)


with tempfile.TemporaryDirectory() as tmp:
    print("| format | what is kept | file | peak RSS | time | |")
    print("|---|---|---|---|---|---|")
    p = os.path.join(tmp, "sweep.csv")
    n = lines(p, "micro_batch,max_memory_allocated\n", lambda i: f"{i + 1},{10**9 + 3000 * i}\n")
    row("probe / sweep CSV", "every point", p, ["measure", p, "--json"], n, "rows")
    p = os.path.join(tmp, "smi.csv")
    n = lines(p, "timestamp, index, name, memory.used [MiB], memory.total [MiB]\n",
              lambda i: f"2024/05/14 {10 + i // 3600000 % 10}:{i // 60000 % 60:02d}:"
                        f"{i // 1000 % 60:02d}.{i % 1000:03d}, {i % 8}, NVIDIA A100-SXM4-80GB, "
                        f"{1000 + i % 5000} MiB, 81920 MiB\n")
    row("nvidia-smi CSV", "thinned timeline", p, ["measure", p, "--json"], n, "rows")
    p = os.path.join(tmp, "tb.csv")
    n = lines(p, "Wall time,Step,Value\n", lambda i: f"{1715682660 + i}.5,{i},{2**31 + i}\n")
    row("TensorBoard CSV", "thinned timeline", p, ["measure", p, "--json"], n, "rows")
    p = os.path.join(tmp, "wandb.csv")
    n = lines(p, '"Relative Time (Process)","run - system/gpu.0.memoryAllocatedBytes"\n',
              lambda i: f'"{i}.5","{2**30 + i}"\n')
    row("W&B CSV", "thinned timeline", p, ["measure", p, "--json"], n, "rows")
    p = os.path.join(tmp, "lightning.csv")
    n = lines(p, "DeviceStatsMonitor.on_train_batch_end/allocated_bytes.all.peak,epoch,step\n",
              lambda i: f"{2**30 + i},0,{i}\n")
    row("Lightning CSV", "thinned timeline", p, ["measure", p, "--json"], n, "rows")
    p = os.path.join(tmp, "ds.log")
    n = lines(p, "", lambda i: f"[2024-05-14 10:31:05,513] [INFO] [utils.py:782:see_memory_usage]"
                               f" MA {i % 90}.5 GB         Max_MA 91.51 GB         CA 92.52 GB"
                               f"         Max_CA 93 GB \n")
    row("DeepSpeed log", "one point a report", p, ["measure", p, "--json"], n, "lines")
    p = os.path.join(tmp, "hf.log")
    n = lines(p, "", lambda i: f"step {i} loss 2.5 lr 1e-4 some unrelated progress text\n",
              footer=open(os.path.join(os.path.dirname(__file__), "..", "data", "measure",
                                       "hf-trainer.log")).read())
    row("HF Trainer log", "the metrics", p, ["measure", p, "--json"], n, "lines")
    p = os.path.join(tmp, "summary.txt")
    table = open(os.path.join(os.path.dirname(__file__), "..", "data", "measure",
                              "torch-memory-summary.txt")).read()
    n = lines(p, "", lambda i: table, target=SIZE * MB)
    row("torch.cuda.memory_summary()", "one point a table", p, ["measure", p, "--json"], n,
        "tables")
    p = os.path.join(tmp, "stats.json")
    n = json_array(p, lambda i: '{"micro_batch": %d, "memory_stats": '
                                '{"allocated_bytes.all.peak": %d}}' % (i % 1000 + 1, 2**30 + i),
                   target=15 * MB)
    row("memory_stats() JSON", "every dump", p, ["measure", p, "--json"], n, "dumps")
    p = os.path.join(tmp, "timeline.json")
    with open(p, "w") as f:
        k = 90_000        # 10 values a time: under the million values JSON may hold
        f.write("[[" + ",\n".join(str(1716000000000000 + 10 * i) for i in range(k)) + "],[")
        f.write(",\n".join("[0,%d,0,0,0,0,0,0,0]" % (i % 100000) for i in range(k)) + "]]")
    row("profiler memory timeline JSON", "thinned timeline", p, ["measure", p, "--json"], k,
        "times")
    p = os.path.join(tmp, "snapshot.pickle")
    n = snapshot(p, SIZE * MB // 170)
    row("PyTorch memory snapshot", "56 B an entry", p, ["measure", p, "--json"], n, "entries")
    p = os.path.join(tmp, "config.json")
    with open(p, "w") as f:
        cfg = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 512,
               "intermediate_size": 1376, "num_attention_heads": 8, "num_hidden_layers": 4,
               "num_key_value_heads": 8, "vocab_size": 32000, "max_position_embeddings": 2048}
        cfg["id2label"] = {str(i): f"label{i}" for i in range(15 * MB // 24)}
        json.dump(cfg, f)
    row("HF config.json", "the fields read", p, ["import-model", p, "--json"],
        len(cfg["id2label"]), "labels")
    p = os.path.join(tmp, "model.safetensors")
    n = safetensors(p, 15 * MB // 150)
    row("safetensors header", "dtype counts", p, ["import-model", p, "--json"], n, "tensors")
    p = os.path.join(tmp, "model.gguf")
    n = gguf(p, 60 * MB // 20)
    row("GGUF header", "counts, types", p, ["import-model", p], n, "tokens")
