#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""headroom-cli import-model: configs, safetensors and GGUF headers, folders,
--json output, positioned errors, and --add into the user catalog.
Usage: test-import-cli.py HEADROOM_CLI FIXTURES_DIR"""

import json
import os
import re
import struct
import subprocess
import sys
import tempfile

CLI = sys.argv[1]
FIXTURES = sys.argv[2]
failures = []
checks = 0


def run(*args, env=None):
    e = dict(os.environ)
    if env:
        e.update(env)
    return subprocess.run([CLI, *args], capture_output=True, text=True, env=e, timeout=120)


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        failures.append(what)
        print(f"not ok - {what}", file=sys.stderr)


def safetensors(path, tensors):
    """Writes a real safetensors file: [(name, dtype, shape, bytes per element)]."""
    header, offset = {"__metadata__": {"format": "pt"}}, 0
    for name, dtype, shape, size in tensors:
        n = size
        for d in shape:
            n *= d
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + n]}
        offset += n
    raw = json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(raw)) + raw + bytes(offset))


def gguf_str(s):
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


p = run("--help")
check(p.returncode == 0 and "import-model" in p.stdout, "the command list names import-model")
p = run("import-model", "--help")
check(p.returncode == 0 and "--add" in p.stdout and "--json" in p.stdout, "import-model --help documents --add and --json")

# A config.json: the model object, with what was read under "x-import".
p = run("import-model", os.path.join(FIXTURES, "llama-2-7b-hf", "config.json"), "--json")
check(p.returncode == 0, f"config import exits 0: {p.stderr}")
d = json.loads(p.stdout)
x = d["x-import"]
check(x["format"] == "config.json" and x["model_type"] == "llama", "x-import says what was read")
check(d["params"] == 6738415616 and x["params_exact"] is False, "Llama 2 7B: 6,738,415,616 from the architecture")
check(d["id"] == "llama-2-7b-hf" and d["layers"] == 32 and d["heads"] == 32, "the model object carries the shape")
check(isinstance(x["notes"], list) and isinstance(x["read"], list) and x["read"], "read and notes are lists")

# The object is a model a scenario can hold inline.
with tempfile.TemporaryDirectory() as tmp:
    scen = os.path.join(tmp, "inline.json")
    with open(scen, "w") as f:
        json.dump({"headroom_scenario": 1, "model": d, "task": "inference", "seq_len": 512,
                   "gpu": "rtx-4090"}, f)
    p = run("estimate", scen, "--json")
    check(p.returncode == 0, f"the printed object works inline in a scenario: {p.stderr!r}")

# A folder: LLaVA's nested configs; the human output says what was assumed.
p = run("import-model", os.path.join(FIXTURES, "llava-1.5-7b-hf"))
check(p.returncode == 0 and "Assumed:" in p.stdout and "hidden_size" in p.stdout, "assumptions are printed")
check("7063427072" in p.stdout.replace(",", "").replace("\u202f", "").replace(".", ""), "LLaVA count printed")

# Bad input exits 2 with FILE:LINE:COL.
with tempfile.TemporaryDirectory() as tmp:
    bad = os.path.join(tmp, "config.json")
    with open(bad, "w") as f:
        f.write('{\n  "model_type": "gpt2",\n  "vocab_size": 50257,\n  "n_embd": "wide"\n}\n')
    p = run("import-model", bad)
    check(p.returncode == 2 and re.match(re.escape(bad) + r":4:13: ", p.stderr), f"bad field positioned: {p.stderr!r}")
    check(p.stdout == "", "nothing on stdout for bad input")
    p = run("import-model", os.path.join(tmp, "missing.json"))
    check(p.returncode == 2 and "missing.json" in p.stderr, "missing file exits 2 naming it")
    p = run("import-model", tmp + "/nothing-here")
    check(p.returncode == 2, "missing folder exits 2")
    empty = os.path.join(tmp, "empty")
    os.mkdir(empty)
    p = run("import-model", empty)
    check(p.returncode == 2 and "no config.json" in p.stderr, f"empty folder explained: {p.stderr!r}")

    # safetensors: exact counts per dtype, with and without a config beside.
    st = os.path.join(tmp, "w", "model.safetensors")
    os.mkdir(os.path.dirname(st))
    safetensors(st, [("embed.weight", "BF16", [16, 8], 2), ("norm.weight", "F32", [8], 4)])
    # Names no architecture is read from: a weights-only model of the exact
    # count, which an estimate counts frozen with an assumed working set.
    p = run("import-model", st, "--json")
    check(p.returncode == 0, f"--json without an architecture gives a weights-only model: {p.stderr!r}")
    wo = json.loads(p.stdout) if p.returncode == 0 else {}
    check(wo.get("kind") == "weights-only" and wo.get("params") == 136 and "layers" not in wo,
          f"weights-only model object: {wo!r}")
    check(any("weights only" in r for r in wo.get("x-import", {}).get("read", [])),
          "the weights' bytes as stored are read out")
    p = run("import-model", st)
    check(p.returncode == 0 and "136" in p.stdout and "BF16" in p.stdout, "the counts are still shown")
    sc = os.path.join(tmp, "wo-scenario.json")
    with open(sc, "w") as f:
        json.dump({"headroom_scenario": 1, "model": wo, "task": "inference", "compute": "fp32"}, f)
    p = run("estimate", sc, "--json")
    check(p.returncode == 0, f"a weights-only model estimates: {p.stderr!r}")
    if p.returncode == 0:
        e = json.loads(p.stdout)
        check(e["per_gpu"]["weights"] == 136 * 4, f"its weights bucket: {e['per_gpu']['weights']}")
        check(any(i.get("basis") == "assumed" and "parameter count alone" in i["label"]
                  for i in e["items"]), "its working set is an assumed line")
    # Llama-style names: the architecture is told from the tensors.
    st2 = os.path.join(tmp, "named", "model.safetensors")
    os.mkdir(os.path.dirname(st2))
    safetensors(st2, [("model.embed_tokens.weight", "BF16", [32, 16], 2),
                      ("model.layers.0.self_attn.q_proj.weight", "BF16", [16, 16], 2),
                      ("model.layers.0.self_attn.k_proj.weight", "BF16", [16, 16], 2),
                      ("model.layers.0.mlp.gate_proj.weight", "BF16", [48, 16], 2),
                      ("model.layers.1.mlp.gate_proj.weight", "BF16", [48, 16], 2),
                      ("model.norm.weight", "F32", [16], 4)])
    p = run("import-model", st2, "--json")
    check(p.returncode == 0, f"safetensors with Llama names imports: {p.stderr}")
    d = json.loads(p.stdout)
    x = d["x-import"]
    check(d["params"] == 32 * 16 + 16 * 16 * 2 + 48 * 16 * 2 + 16 and x["params_exact"] is True, "safetensors: exact count")
    check({e["dtype"]: e["params"] for e in x["dtypes"]} == {"BF16": 32 * 16 + 16 * 16 * 2 + 48 * 16 * 2, "F32": 16},
          "counts per dtype")
    check(d["id"] == "named" and d["layers"] == 2 and d["intermediate"] == 48 and d["glu"] is True,
          "the architecture comes from the tensor names")
    p = run("import-model", st, "--add", env={"XDG_DATA_HOME": tmp})
    check(p.returncode == 0 and "Added" in p.stderr, f"--add adds a weights-only model: {p.stderr!r}")
    with open(st, "r+b") as f:
        f.write(struct.pack("<Q", 1 << 62))
    p = run("import-model", st)
    check(p.returncode == 2 and "MiB" in p.stderr, f"hostile header length refused: {p.stderr!r}")

    # GGUF v3, Q8_0 weights: 8.5 bits per weight.
    gg = os.path.join(tmp, "tiny.gguf")
    kv = [("general.architecture", 8, gguf_str("llama")), ("llama.block_count", 4, struct.pack("<I", 1)),
          ("llama.embedding_length", 4, struct.pack("<I", 64)), ("llama.attention.head_count", 4, struct.pack("<I", 4)),
          ("llama.context_length", 4, struct.pack("<I", 2048))]
    with open(gg, "wb") as f:
        f.write(b"GGUF" + struct.pack("<IQQ", 3, 1, len(kv)))
        for k, t, v in kv:
            f.write(gguf_str(k) + struct.pack("<I", t) + v)
        f.write(gguf_str("token_embd.weight") + struct.pack("<I", 2) + struct.pack("<QQ", 64, 10)
                + struct.pack("<I", 8) + struct.pack("<Q", 0))
        f.write(bytes(64 * 10))
    p = run("import-model", gg, "--json")
    check(p.returncode == 0, f"gguf import exits 0: {p.stderr}")
    d = json.loads(p.stdout)
    x = d["x-import"]
    check(x["format"] == "gguf" and d["params"] == 640, "gguf: 640 parameters")
    check(x["dtypes"][0]["dtype"] == "Q8_0" and x["dtypes"][0]["bits_per_weight"] == 8.5, "Q8_0 is 8.5 bits per weight")
    check(x["quantization"] is not None and x["quantization"].startswith("8-bit"), "gguf says it is 8-bit")
    check(d["layers"] == 1 and d["hidden"] == 64 and d["max_seq_len"] == 2048, "gguf metadata gives the shape")

    # --add keeps the model in the user catalog; the catalog and estimate see it.
    env = {"XDG_DATA_HOME": tmp}
    cfg = os.path.join(FIXTURES, "qwen2.5-0.5b", "config.json")
    p = run("import-model", cfg, "--add", "--id", "my-qwen", "--name", "My Qwen", env=env)
    check(p.returncode == 0 and p.stderr.startswith("Added \"my-qwen\""), f"--add adds: {p.stderr!r}")
    check(os.path.exists(os.path.join(tmp, "headroom", "models.json")), "the user catalog file is written")
    p = run("import-model", cfg, "--add", "--id", "my-qwen", env=env)
    check(p.returncode == 0 and p.stderr.startswith("Replaced"), "--add again replaces")
    p = run("import-model", cfg, "--add", "--id", "llama-2-7b", "--json", env=env)
    check(p.returncode == 0 and "overrides the built-in" in p.stderr, "a built-in id is overridden, visibly")
    check(json.loads(p.stdout)["id"] == "llama-2-7b", "--json output stays one document with --add")
    p = run("models", "--json", env=env)
    ids = {e["id"]: e for e in json.loads(p.stdout)["entries"]}
    check("my-qwen" in ids and ids["my-qwen"]["params"] == 494032768, "models lists the imported model")
    check(ids["llama-2-7b"]["params"] == 494032768, "the user's entry overrides the built-in one")
    t = run("models", env=env).stdout
    check("Custom, from " in t and "my-qwen" in t and "llama-2-7b (overrides the built-in entry)" in t,
          "the models table marks custom entries")
    scen = os.path.join(tmp, "s.json")
    with open(scen, "w") as f:
        json.dump({"headroom_scenario": 1, "model": "my-qwen", "task": "finetune", "method": "lora",
                   "seq_len": 1024, "gpu": "rtx-4090"}, f)
    p = run("estimate", scen, "--json", env=env)
    check(p.returncode == 0 and json.loads(p.stdout)["per_gpu"]["weights"] > 0, f"estimate plans the imported model: {p.stderr!r}")

if failures:
    print(f"{len(failures)} of {checks} checks failed", file=sys.stderr)
    sys.exit(1)
print(f"{checks} checks passed")
