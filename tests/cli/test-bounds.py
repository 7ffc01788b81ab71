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

Usage: test-bounds.py HEADROOM_CLI EXAMPLES_DIR"""

import json
import os
import resource
import shutil
import stat
import subprocess
import sys
import tempfile
import threading

CLI, EXAMPLES = sys.argv[1:3]
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


def run(args, env=None, stdin=None, timeout=LIMIT_S):
    return subprocess.run([CLI] + args, capture_output=True, timeout=timeout, env=env,
                          stdin=stdin, preexec_fn=limit)


def check(name, args, status, words=(), env=None, stdin=None, out_words=()):
    """Runs one case; `status` is the exit status wanted, `words` what the
    message must say."""
    global checked
    checked += 1
    try:
        p = run(args, env=env, stdin=stdin)
    except subprocess.TimeoutExpired:
        failures.append(f"{name}: no answer within {LIMIT_S} s")
        return None
    err = p.stderr.decode("utf-8", "replace")
    out = p.stdout.decode("utf-8", "replace")
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
    check("user catalog is a pipe (models)", ["models"], 0, [], env=env)

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
