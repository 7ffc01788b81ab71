#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Every reader bounded, every writer safe: cases driven by size, file
kind and concurrency, made here at test time (nothing large is kept in
the repository), each run through headroom-cli under a 512 MiB memory
limit and a 10 s time limit.  Each must end in a clean refusal (exit 2,
or 1 for what cannot be written, with the expected words in the message)
or a correct result, never a signal, a hang or a blow-up.

Under AddressSanitizer the memory limit cannot be set (its shadow memory
reserves terabytes of address space); the time limit still applies.

Each case prints the time it took and the most memory it held (the
largest resident set; Linux counts in it the forked test process before
it runs headroom-cli, so small figures are the test's own), so that a
case that comes near a limit is seen before it passes it.

Usage: test-bounds.py HEADROOM_CLI EXAMPLES_DIR"""

import json
import os
import pty
import resource
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time
import tty

CLI, EXAMPLES = (os.path.abspath(a) for a in sys.argv[1:3])
LIMIT_S = 10
LIMIT_BYTES = 512 * 1024**2
SMOLVLA = os.path.join(EXAMPLES, "smolvla-4090.json")

with open(CLI, "rb") as f:
    SANITIZED = b"__asan_init" in f.read()

failures = []
checked = 0


def limit():
    if not SANITIZED:
        resource.setrlimit(resource.RLIMIT_AS, (LIMIT_BYTES, LIMIT_BYTES))


class Result:
    pass


def run(args, env=None, stdin=None, timeout=LIMIT_S, cwd=None, stdout=subprocess.PIPE):
    """Runs headroom-cli with @args; the result has returncode, stdout,
    stderr, seconds and max_rss (bytes).  Raises subprocess.TimeoutExpired
    when it runs past @timeout (it is killed)."""
    start = time.monotonic()
    p = subprocess.Popen([CLI] + args, stdout=stdout, stderr=subprocess.PIPE,
                         stdin=stdin, env=env, preexec_fn=limit, cwd=cwd)
    streams = {}

    def drain(name, stream):
        streams[name] = stream.read()

    streams["out"] = b""
    readers = [threading.Thread(target=drain, args=(n, s))
               for n, s in (("out", p.stdout), ("err", p.stderr)) if s is not None]
    for r in readers:
        r.start()
    killed = []

    def kill():
        killed.append(True)
        p.kill()

    timer = threading.Timer(timeout, kill)
    timer.start()
    _, status, usage = os.wait4(p.pid, 0)
    timer.cancel()
    for r in readers:
        r.join()
    p.returncode = os.waitstatus_to_exitcode(status)
    if killed:
        raise subprocess.TimeoutExpired([CLI] + args, timeout)
    result = Result()
    result.returncode = p.returncode
    result.stdout = streams["out"]
    result.stderr = streams["err"]
    result.seconds = time.monotonic() - start
    result.max_rss = usage.ru_maxrss * 1024   # Linux gives KiB
    return result


def own_max_rss(args):
    """The largest resident set of headroom-cli @args by itself: started
    by a fresh Python that holds little (a process forked from this one
    starts out holding as much as this one does)."""
    launcher = """if True:
        import os, resource, sys
        pid = os.fork()
        if pid == 0:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
            os.execv(sys.argv[1], sys.argv[1:])
        _, status, usage = os.wait4(pid, 0)
        print(usage.ru_maxrss * 1024)
        """
    out = subprocess.run([sys.executable, "-c", launcher, CLI] + args, capture_output=True,
                         timeout=LIMIT_S, preexec_fn=limit, check=True)
    return int(out.stdout)


def check(name, args, status, words=(), env=None, stdin=None, out_words=(), cwd=None,
          stdout=subprocess.PIPE):
    """Runs one case; `status` is the exit status wanted, `words` what the
    message must say."""
    global checked
    checked += 1
    try:
        p = run(args, env=env, stdin=stdin, cwd=cwd, stdout=stdout)
    except subprocess.TimeoutExpired:
        failures.append(f"{name}: no answer within {LIMIT_S} s")
        return None
    err = p.stderr.decode("utf-8", "replace")
    out = p.stdout.decode("utf-8", "replace")
    print(f"# {name}: exit {p.returncode}, {p.seconds:.2f} s, "
          f"{p.max_rss / 1024**2:.1f} MiB", flush=True)
    if p.returncode < 0:
        failures.append(f"{name}: killed by signal {-p.returncode}: {err[-300:]}")
    elif p.returncode != status:
        failures.append(f"{name}: exit {p.returncode}, wanted {status}: {err[-300:]}")
    for w in words:
        if w not in err:
            failures.append(f"{name}: the message does not say {w!r}: {err[-300:]!r}")
    for w in out_words:
        if w not in out:
            failures.append(f"{name}: the output does not say {w!r}")
    if len(err) > 4096:
        failures.append(f"{name}: a message of {len(err)} bytes")
    return p


def user_env(tmp, name):
    """An environment whose user catalog folder is a fresh one."""
    home = os.path.join(tmp, name)
    os.makedirs(os.path.join(home, "headroom"))
    env = dict(os.environ, XDG_DATA_HOME=home)
    return env, os.path.join(home, "headroom")


def config_json(path):
    with open(path, "w") as f:
        json.dump({"architectures": ["LlamaForCausalLM"], "model_type": "llama",
                   "hidden_size": 512, "intermediate_size": 1376, "num_attention_heads": 8,
                   "num_hidden_layers": 4, "num_key_value_heads": 8, "vocab_size": 32000,
                   "max_position_embeddings": 2048, "tie_word_embeddings": False}, f)


def safetensors_with_header(path, header_bytes):
    """A safetensors file whose JSON header is padded to @header_bytes."""
    header = {"__metadata__": {"pad": ""}, "w": {"dtype": "BF16", "shape": [2, 2],
                                                  "data_offsets": [0, 8]}}
    text = json.dumps(header)
    header["__metadata__"]["pad"] = "x" * max(0, header_bytes - len(text))
    text = json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(len(text).to_bytes(8, "little"))
        f.write(text)
        f.write(b"\0" * 8)


with tempfile.TemporaryDirectory() as tmp:
    fifo = os.path.join(tmp, "pipe")
    os.mkfifo(fifo)

    # ---- file kinds: a pipe wherever a file is read --------------------------
    check("scenario is a pipe", ["estimate", fifo], 2, ["not a regular file"])
    for ext in ("safetensors", "gguf", "json"):
        p = os.path.join(tmp, "pipe." + ext)
        os.mkfifo(p)
        check(f"{ext} model file is a pipe", ["import-model", p], 2, ["not a regular file"])

    folder = os.path.join(tmp, "folder-with-pipe")
    os.mkdir(folder)
    config_json(os.path.join(folder, "config.json"))
    os.mkfifo(os.path.join(folder, "model.safetensors"))
    check("a model folder holding a pipe", ["import-model", folder], 2, ["not a regular file"])

    index_dir = os.path.join(tmp, "index-with-pipe")
    os.mkdir(index_dir)
    with open(os.path.join(index_dir, "model.safetensors.index.json"), "w") as f:
        json.dump({"weight_map": {"w": "model-00001-of-00001.safetensors"}}, f)
    os.mkfifo(os.path.join(index_dir, "model-00001-of-00001.safetensors"))
    check("a shard named by an index is a pipe",
          ["import-model", os.path.join(index_dir, "model.safetensors.index.json")], 2,
          ["not a regular file"])

    check("an empty path", ["estimate", ""], 2, ["no file name given"])
    zero_gguf = os.path.join(tmp, "zeros.gguf")
    with open(zero_gguf, "wb") as f:
        f.write(b"\0" * 4096)
    check("a zero-filled .gguf", ["import-model", zero_gguf], 2, ["not a GGUF file"])

    # ---- the user catalog: a pipe, /dev/zero, a sparse 2 GB file ------------
    env, data = user_env(tmp, "catalog-pipe")
    os.mkfifo(os.path.join(data, "models.json"))
    check("user catalog is a pipe", ["estimate", SMOLVLA], 0, ["not a regular file"], env=env)
    check("user catalog is a pipe (models)", ["models"], 0, ["models.json", "not a regular file"],
          env=env)
    check("user catalog is a pipe (gpus --json)", ["gpus", "--json"], 0,
          ["models.json", "not a regular file"], env=env)

    env, data = user_env(tmp, "catalog-broken")
    with open(os.path.join(data, "gpus.json"), "w") as f:
        f.write("{broken")
    for args in (["gpus"], ["models", "--json"]):
        p = check(f"a broken user catalog ({' '.join(args)})", args, 0,
                  ["gpus.json:1:2", "built-in entries are used"], env=env)
        if p is not None and p.returncode == 0 and not p.stdout:
            failures.append(f"a broken user catalog ({args}): nothing printed")

    env, data = user_env(tmp, "catalog-zero")
    os.symlink("/dev/zero", os.path.join(data, "models.json"))
    check("user catalog links to /dev/zero", ["estimate", SMOLVLA], 0, ["not a regular file"],
          env=env)

    env, data = user_env(tmp, "catalog-sparse")
    with open(os.path.join(data, "gpus.json"), "wb") as f:
        f.truncate(2 * 1024**3)
    check("user catalog is a 2 GB sparse file", ["estimate", SMOLVLA], 0, ["16 MiB"], env=env)

    # ---- size: headers that add up across shards -----------------------------
    shards = os.path.join(tmp, "big-shards")
    os.mkdir(shards)
    names = [f"model-{i:05d}-of-00008.safetensors" for i in range(1, 9)]
    with open(os.path.join(shards, "model.safetensors.index.json"), "w") as f:
        json.dump({"weight_map": {f"t{i}": n for i, n in enumerate(names)}}, f)
    for n in names:
        safetensors_with_header(os.path.join(shards, n), 15 * 1024**2)
    check("shards whose headers add up to 120 MB",
          ["import-model", os.path.join(shards, "model.safetensors.index.json")], 2,
          ["64 MiB"])

    # ---- measurements: file kinds, sizes and numbers ------------------------
    check("measurement is a pipe", ["measure", fifo], 2, ["pipe", fifo])
    check("measurement is /dev/zero", ["measure", "/dev/zero"], 2, ["/dev/zero", "device"])
    check("measurement is a folder", ["measure", tmp], 2, ["folder"])

    many_gpus = os.path.join(tmp, "many-gpus.csv")
    with open(many_gpus, "w") as f:
        f.write("index, memory.used [MiB]\n")
        for start in range(0, 2_000_000, 100_000):
            f.write("".join(f"{i}, 100\n" for i in range(start, start + 100_000)))
    check("an nvidia-smi log with 2,000,000 GPU indices", ["measure", many_gpus], 2,
          ["1024 GPUs", "many-gpus.csv:1026"])

    comments = os.path.join(tmp, "many-comments.csv")
    with open(comments, "w") as f:
        for start in range(0, 1_000_000, 100_000):
            f.write("".join(f"# key{i}: value {i}\n" for i in range(start, start + 100_000)))
        f.write("micro_batch,max_memory_allocated\n1,100\n2,200\n")
    p = check("a million comment lines before the header", ["measure", comments, "--json"], 0)
    if p is not None and p.returncode == 0:
        doc = json.loads(p.stdout)
        if len(doc["config"]) > 256 or not any("256" in n for n in doc["notes"]):
            failures.append("a million comment lines: more than 256 kept, or no note says so")

    # Blank lines count toward the limits: 30 million of them (30 MB) are
    # refused where the 20-million-line budget ends, in about a second,
    # where 1 GiB of them used to take 25 s and no limit applied.
    blank = os.path.join(tmp, "blank-lines.csv")
    with open(blank, "wb") as f:
        f.write(b"micro_batch,max_memory_allocated\n1,100\n")
        for _ in range(30):
            f.write(b"\n" * 1_000_000)
        f.write(b"2,200\n")
    check("30 million blank lines", ["measure", blank], 2,
          ["20000000 lines that are not data rows", ":20000003:"])
    os.remove(blank)

    # A batch sweep keeps every point (HrMeasurePoint, 40 bytes): the
    # reader's peak is a small multiple of that, not of the file (about
    # 95 bytes a point, measured at 500,000 and 2,000,000 rows).
    rows = 400_000
    sweep = os.path.join(tmp, "sweep-400k.csv")
    with open(sweep, "w") as f:
        f.write("micro_batch,max_memory_allocated\n")
        f.write("".join(f"{i},{1_000_000_000 + 3000 * i + i % 997}\n" for i in range(1, rows + 1)))
    p = check("a sweep of 400,000 rows", ["measure", sweep, "--json"], 0)
    if p is not None and not SANITIZED and p.max_rss > 48 * 1024**2 + 160 * rows:
        failures.append(f"a sweep of {rows} rows held {p.max_rss / 1024**2:.0f} MiB, more "
                        f"than 48 MiB + 160 bytes a point")
    os.remove(sweep)

    # A memory snapshot keeps of each trace entry its Event (40 bytes) and
    # its place in the trace (16), not the pickle's object tree: the peak
    # was 9 times the file (146 MiB for these 16 MiB), it is 40 MiB here
    # (about 100 bytes an entry over the program's own 9 MiB) and 199 MiB
    # for 2.4 million entries in 276 MB.  Written by a child process, and
    # measured from a fresh one (own_max_rss), so that the test's own
    # memory is not counted in headroom-cli's.
    allocations = 100_000
    snapshot = os.path.join(tmp, "snapshot-300k.pickle")
    subprocess.run([sys.executable, "-c", """if True:
        import pickle, sys
        # torch.cuda.memory._snapshot()'s structure: frame dicts shared by
        # the stacks, one frames list per allocation shared by its entries
        pool = [{"filename": f"/home/user/project/m{i % 7}.py", "line": i, "name": "forward"}
                for i in range(64)]
        trace = []
        for i in range(int(sys.argv[2])):
            frames = [pool[(i + k) % 64] for k in range(12)]
            for k, action in enumerate(("alloc", "free_requested", "free_completed")):
                trace.append({"action": action, "addr": 0x7F0000000000 + 512 * (i % 1000),
                              "size": 512 + i % 4096, "stream": 0,
                              "time_us": 1_700_000_000_000_000 + 3 * i + k, "frames": frames})
        with open(sys.argv[1], "wb") as f:
            pickle.dump({"segments": [], "device_traces": [trace]}, f)
        """, snapshot, str(allocations)], check=True)
    entries = 3 * allocations
    p = check("a memory snapshot of 300,000 entries", ["measure", snapshot, "--json"], 0)
    if p is not None and p.returncode == 0:
        doc = json.loads(p.stdout)
        if doc["rows"] != entries:
            failures.append(f"a memory snapshot of {entries} entries: {doc['rows']} rows read")
        rss = own_max_rss(["measure", snapshot, "--json"])
        print(f"# a memory snapshot of {entries} entries, by itself: {rss / 1024**2:.1f} MiB",
              flush=True)
        if not SANITIZED and rss > 24 * 1024**2 + 120 * entries:
            failures.append(f"a memory snapshot of {entries} entries "
                            f"({os.path.getsize(snapshot) / 1024**2:.0f} MiB) held "
                            f"{rss / 1024**2:.0f} MiB, more than 24 MiB + 120 bytes an "
                            f"entry")
    os.remove(snapshot)

    long_name = os.path.join(tmp, "long-gpu-name.csv")
    with open(long_name, "w") as f:
        f.write("index, name, memory.used [MiB]\n")
        for i in range(8):
            f.write(f"{i}, " + "N" * 900_000 + ", 100\n")
    p = check("a 900 KB GPU name", ["measure", long_name, "--json"], 0)
    if p is not None and p.returncode == 0:
        names = [x["name"] for x in json.loads(p.stdout)["series"]]
        if len(names) != 8 or max(len(n) for n in names) > 300:
            failures.append(f"a 900 KB GPU name: series names of {max(map(len, names))} "
                            "characters")

    wide = os.path.join(tmp, "wide-header.csv")
    with open(wide, "w") as f:
        f.write(",".join(["c"] * 500_000) + "\n1\n")
    check("a header of 500,000 columns", ["measure", wide], 2, ["and 499980 more"])
    check("a header of 500,000 columns, a column asked for",
          ["measure", wide, "--batch-column", "batch", "--memory-column", "c", "--unit", "MiB"],
          2, ["no column \"batch\"", "and 499980 more"])

    long_column = os.path.join(tmp, "long-column.csv")
    with open(long_column, "w") as f:
        f.write("batch,mem_" + "x" * 900_000 + " [MiB]\n1,100\n2,200\n")
    for args in (["measure", long_column], ["measure", long_column, "--json"]):
        p = check(f"a 900 KB column name ({' '.join(args[2:]) or 'text'})", args, 0)
        if p is not None and max(map(len, p.stdout.splitlines())) > 2048:
            failures.append(f"a 900 KB column name: a line of "
                            f"{max(map(len, p.stdout.splitlines()))} bytes in the output")

    wandb = os.path.join(tmp, "wide-wandb.csv")
    with open(wandb, "w") as f:
        f.write("_runtime," + ",".join(f"gpu.{i % 1000}.memoryAllocatedBytes"
                                       for i in range(30_000)) + "\n")
        f.write("1," + ",".join(["100"] * 30_000) + "\n")
    check("a W&B export of 30,000 GPU columns", ["measure", wandb], 0)

    for name, text, words in [
            ("memory_stats bytes 1e308",
             '{"micro_batch": 8, "memory_stats": {"allocated_bytes.all.peak": 1e308}}',
             ["1:65", "allocated_bytes.all.peak", "10 PB"]),
            ("memory_stats batch 1e30",
             '[{"micro_batch": 1e30, "memory_stats": {"allocated_bytes.all.peak": 1}}]',
             ["1:18", "micro_batch", "whole number"]),
            ("memory_stats batch 1.5",
             '[{"micro_batch": 1.5, "memory_stats": {"allocated_bytes.all.peak": 1}}]',
             ["1:18", "micro_batch", "whole number"]),
            ("memory_stats negative bytes",
             '{"memory_stats": {"reserved_bytes.all.peak": -1, "allocated_bytes.all.peak": 1}}',
             ["reserved_bytes.all.peak", "10 PB"]),
            ("profiler timeline ±1e308 times",
             "[[-1e308, 1e308], [[0, 1, 0, 0, 0, 0, 0, 0, 0], [0, 1, 0, 0, 0, 0, 0, 0, 0]]]",
             ["1:3", "times"]),
            ("probe batch 1.5", "micro_batch,max_memory_allocated\n1.5,100\n2,200\n",
             [":2:1:", "micro_batch", "whole number"]),
            ("probe batch -4", "micro_batch,max_memory_allocated\n-4,100\n2,200\n",
             [":2:1:", "micro_batch", "whole number"]),
            ("probe hex float bytes", "micro_batch,max_memory_allocated\n1,0x1p20\n2,200\n",
             [":2:3:", "max_memory_allocated", "not a number"]),
            ("TensorBoard ±1e308 times", "Wall time,Step,Value\n-1e308,1,100\n1e308,2,200\n",
             [":2:1:", "Wall time", "not a time"]),
            ("TensorBoard inf time", "Wall time,Step,Value\n1,1,100\ninf,2,200\n",
             [":3:1:", "Wall time"]),
            ("TensorBoard nan time", "Wall time,Step,Value\n1,1,100\n1e400,2,200\n",
             [":3:1:", "Wall time"]),
            ("nvidia-smi year that wraps",
             "timestamp, index, memory.used [MiB]\n4294969266/05/14 10:31:02.123, 0, 100 MiB\n",
             [":2:1:", "timestamp"])]:
        path = os.path.join(tmp, "number-" + str(checked) + (".json" if text[0] in "[{" else ".csv"))
        with open(path, "w") as f:
            f.write(text)
        check(name, ["measure", path, "--json"], 2, words)

    folder_in = os.open(tmp, os.O_RDONLY)
    check("a folder on stdin", ["estimate", "-"], 2, ["<stdin>", "directory"], stdin=folder_in)
    os.close(folder_in)

    # ---- --set and long texts -----------------------------------------------
    check("--set with a 60,000-part key",
          ["estimate", SMOLVLA, "--set", "x-a" + ".b" * 60000 + "=1"], 2, ["levels"])
    with open(SMOLVLA) as f:
        doc = json.load(f)
    doc["name"] = "x" * 100_000
    long_name = os.path.join(tmp, "long-name.json")
    with open(long_name, "w") as f:
        json.dump(doc, f)
    check("a 100 KB scenario name", ["report", long_name, "-o", os.path.join(tmp, "r.pdf")], 2,
          ["4096 characters"])

    # ---- writers that destroy nothing ---------------------------------------
    out_fifo = os.path.join(tmp, "out-pipe.png")
    os.mkfifo(out_fifo)
    check("export onto a pipe", ["export", SMOLVLA, "--chart", "curve", "-o", out_fifo], 1,
          ["not a regular file"])
    if not stat.S_ISFIFO(os.lstat(out_fifo).st_mode):
        failures.append("export onto a pipe: the pipe was replaced")
    check("export onto /dev/null", ["export", SMOLVLA, "--chart", "curve", "--format", "png", "-o", "/dev/null"], 1,
          ["not a regular file"])
    if not stat.S_ISCHR(os.stat("/dev/null").st_mode):
        failures.append("export onto /dev/null: /dev/null is no longer a device")
    out_dir = os.path.join(tmp, "out-folder.png")
    os.mkdir(out_dir)
    check("export onto a folder", ["export", SMOLVLA, "--chart", "curve", "-o", out_dir], 1,
          ["folder"])

    # ---- "-o -" is standard output, byte for byte ---------------------------
    out_cwd = os.path.join(tmp, "stdout-cwd")
    os.mkdir(out_cwd)
    for args, magic in [(["export", SMOLVLA, "--chart", "curve", "--format", "png"], b"\x89PNG\r\n"),
                        (["export", SMOLVLA, "--chart", "buckets", "--format", "pdf"], b"%PDF-"),
                        (["export", SMOLVLA, "--chart", "tree", "--format", "svg"], b"<?xml"),
                        (["report", SMOLVLA], b"%PDF-")]:
        p = check(" ".join(args[:1] + args[2:] + ["-o", "-"]), args + ["-o", "-"], 0, cwd=out_cwd)
        if p is not None and not p.stdout.startswith(magic):
            failures.append(f"{args} -o -: stdout starts {p.stdout[:8]!r}, not {magic!r}")
    if os.listdir(out_cwd):
        failures.append(f"-o - left files {os.listdir(out_cwd)}")
    check("export -o - without --format", ["export", SMOLVLA, "--chart", "curve", "-o", "-"], 2,
          ["--format"], cwd=out_cwd)
    with open("/dev/full", "wb") as full:
        check("export -o - onto a full disk",
              ["export", SMOLVLA, "--chart", "curve", "--format", "png", "-o", "-"], 1,
              ["<stdout>"], stdout=full)
        check("report -o - onto a full disk", ["report", SMOLVLA, "-o", "-"], 1, ["<stdout>"],
              stdout=full)

    # ---- options validated like file fields ---------------------------------
    dreamer = os.path.join(EXAMPLES, "dreamerv3-5090d.json")
    for option, value, words in [
            ("--hours-per-day", "-2", "between 0 and 24"),
            ("--hours-per-day", "nan", "not a number"),
            ("--usd-per-kwh", "-1", "between 0 and 10"),
            ("--budget", "-5", "--budget"),
            ("--budget", "NaN", "not a number"),
            ("--budget", "0x10", "not a number"),
            ("--months", "inf", "not a number"),
            ("--months", "0", "above 0"),
            ("--runs", "0", "--runs"),
            ("--runs", "1.5", "whole number")]:
        check(f"advise {option} {value}", ["advise", dreamer, option, value], 2, [words])
    check("fits --gpus ''", ["fits", SMOLVLA, "--gpus", ""], 2, ["empty"])
    check("fits --gpus 'rtx-4090,'", ["fits", SMOLVLA, "--gpus", "rtx-4090,"], 2, ["empty"])

    # ---- output that cannot drive a terminal --------------------------------
    doc = json.load(open(SMOLVLA))
    doc["name"] = "evil \x1b]0;title\x07 \u202e reversed \x1b[31m red \u0085"
    evil = os.path.join(tmp, "evil.json")
    with open(evil, "w") as f:
        json.dump(doc, f)
    for args in (["estimate", evil], ["estimate", evil, "--json"], ["knobs", evil],
                 ["sweep", evil, "--csv", "--batch", "1:2"], ["advise", evil]):
        p = check(" ".join(["escapes:"] + args[:1] + args[2:]), args, 0)
        if p is None:
            continue
        raw = [b for b in p.stdout if (b < 0x20 and b not in (9, 10)) or b == 0x7f]
        if raw or "\u202e".encode() in p.stdout or "\u0085".encode() in p.stdout:
            failures.append(f"escapes {args}: control characters reach stdout")
        if "--json" in args:
            try:
                json.loads(p.stdout)
            except ValueError as e:
                failures.append(f"escapes {args}: not JSON: {e}")

    # "-o -" onto a terminal: a PNG is refused, an SVG escaped like a table
    def on_terminal(name, args, status, words=()):
        master, slave = pty.openpty()
        tty.setraw(slave)
        chunks = []

        def read():
            while True:
                try:
                    chunk = os.read(master, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                chunks.append(chunk)

        reader = threading.Thread(target=read)
        reader.start()
        check(name, args, status, words, stdout=slave)
        os.close(slave)
        reader.join()
        os.close(master)
        return b"".join(chunks)

    on_terminal("export --format png -o - onto a terminal",
                ["export", evil, "--chart", "curve", "--format", "png", "-o", "-"], 2,
                ["terminal"])
    on_terminal("report -o - onto a terminal", ["report", evil, "-o", "-"], 2, ["terminal"])
    shown = on_terminal("export --format svg -o - onto a terminal",
                        ["export", evil, "--chart", "curve", "--format", "svg", "-o", "-"], 0)
    if b"<svg" not in shown or b"\x1b" in shown or "\u202e".encode() in shown:
        failures.append("export --format svg -o - onto a terminal: not shown escaped")

    # ---- exit statuses: 1 when the system fails us --------------------------
    env, data = user_env(tmp, "unwritable")
    shutil.rmtree(data)
    with open(data, "w") as f:
        f.write("a file where the catalog's folder should be")
    config = os.path.join(tmp, "config-unwritable.json")
    config_json(config)
    check("import-model --add where the folder cannot be made",
          ["import-model", config, "--add", "--id", "x"], 1, [], env=env)

    # ---- concurrency: ten import-model --add at once ------------------------
    env, data = user_env(tmp, "concurrent")
    config = os.path.join(tmp, "config.json")
    config_json(config)
    procs = [subprocess.Popen([CLI, "import-model", config, "--add", "--id", f"m{i}"],
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              preexec_fn=limit)
             for i in range(10)]
    codes = [p.wait(timeout=60) for p in procs]
    checked += 1
    if any(codes):
        failures.append(f"ten concurrent adds: exit statuses {codes}")
    with open(os.path.join(data, "models.json")) as f:
        ids = sorted(e["id"] for e in json.load(f)["entries"])
    if ids != sorted(f"m{i}" for i in range(10)):
        failures.append(f"ten concurrent adds kept {len(ids)} entries: {ids}")
    leftovers = [n for n in os.listdir(data) if n.startswith(".headroom-tmp-")]
    if leftovers:
        failures.append(f"ten concurrent adds left temporary files {leftovers}")

for f in failures:
    print(f"not ok - {f}")
print(f"{checked} cases, {len(failures)} failures"
      + (" (AddressSanitizer build: no memory limit)" if SANITIZED else ""))
sys.exit(1 if failures else 0)
