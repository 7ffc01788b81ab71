#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""What headroom-cli writes, waits for and prints, under hostile
conditions: output that cannot be written exits 1; a writer replaces only
a regular file or what a link points to, and refuses a FIFO, a device, a
dangling link or a loop, leaving it as it is; a held catalog lock is given
up after a deadline with a message naming it; a model folder with a
part that cannot be read is refused whole; no escape sequence from a
file or an option reaches the terminal.

Usage: test-safety.py HEADROOM_CLI EXAMPLES_DIR IMPORT_DIR"""

import fcntl
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time

CLI, EXAMPLES, IMPORT = (os.path.abspath(a) for a in sys.argv[1:4])
BERT = os.path.join(EXAMPLES, "bert-base-finetune.json")
failures = []
checked = 0


def run(args, timeout=30, **kwargs):
    kwargs.setdefault("capture_output", True)
    return subprocess.run([CLI] + args, text=True, timeout=timeout, **kwargs)


def expect(what, ok, detail=""):
    global checked
    checked += 1
    if not ok:
        failures.append(f"{what}: {detail}")


def lost_output():
    """Every command whose output is lost exits 1 and says so."""
    out_dir = tempfile.mkdtemp()
    cases = [
        ["estimate", BERT], ["estimate", BERT, "--json"], ["sweep", BERT, "--batch", "1:8"],
        ["fits", BERT, "--json"], ["knobs", BERT], ["advise", BERT], ["models"],
        ["gpus", "--json"], ["export", BERT, "--chart", "buckets", "--format", "svg", "-o", "-"],
        ["import-model", os.path.join(IMPORT, "gpt2")],
        ["--help"], ["--version"], ["estimate", "--help"], ["measure", "--help"],
    ]
    for args in cases:
        with open("/dev/full", "w") as full:
            r = run(args, stdout=full, capture_output=False, stderr=subprocess.PIPE)
        # the message is in the user's language (the de_DE setup runs this
        # too): that there is one, not its words
        expect(f"{' '.join(args)} > /dev/full", r.returncode == 1 and r.stderr.strip() != "",
               f"exit {r.returncode}, stderr {r.stderr!r}")
        # stdout closed: the next file opened must not take its place
        r = subprocess.run([CLI] + args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True, timeout=30, preexec_fn=lambda: os.close(1))
        expect(f"{' '.join(args)} >&-", r.returncode == 1 and r.stderr,
               f"exit {r.returncode}, stderr {r.stderr!r}")
    # What writes its result to a file (-o) and prints nothing still
    # passes with a closed stdout.
    r = subprocess.run([CLI, "export", BERT, "--chart", "buckets", "-o",
                        os.path.join(out_dir, "b.svg")], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True, timeout=30,
                       preexec_fn=lambda: os.close(1))
    expect("export -o FILE >&-", r.returncode == 0, f"exit {r.returncode}: {r.stderr!r}")


def writers():
    """export -o and report -o replace a regular file, or what a link
    points to; anything else is refused with exit 1 and left as it was."""
    for command in (["export", BERT, "--chart", "buckets", "--format", "svg"],
                    ["report", BERT]):
        with tempfile.TemporaryDirectory() as tmp:
            def path(name):
                return os.path.join(tmp, name)

            with open(path("real"), "w") as f:
                f.write("old")
            os.symlink("real", path("link"))
            os.symlink("nowhere", path("dangling"))
            os.symlink("loop-b", path("loop-a"))
            os.symlink("loop-a", path("loop-b"))
            os.mkfifo(path("fifo"))
            os.symlink("fifo", path("link-to-fifo"))

            r = run(command + ["-o", path("link")])
            expect(f"{command[0]} -o LINK", r.returncode == 0 and os.path.islink(path("link"))
                   and open(path("real"), "rb").read() != b"old", f"exit {r.returncode}: {r.stderr}")
            for name, kind in (("dangling", stat.S_ISLNK), ("loop-a", stat.S_ISLNK),
                               ("fifo", stat.S_ISFIFO), ("link-to-fifo", stat.S_ISLNK)):
                r = run(command + ["-o", path(name)], timeout=10)
                mode = os.lstat(path(name)).st_mode
                expect(f"{command[0]} -o {name}", r.returncode == 1 and kind(mode) and
                       name in r.stderr, f"exit {r.returncode}, mode {oct(mode)}: {r.stderr}")
            expect(f"{command[0]}: the FIFO is still one", stat.S_ISFIFO(
                os.lstat(path("fifo")).st_mode))
            expect(f"{command[0]}: nothing created where a dangling link pointed",
                   not os.path.exists(path("nowhere")))
            leftovers = [n for n in os.listdir(tmp) if n.startswith(".headroom-tmp-")]
            expect(f"{command[0]}: no temporary file left", not leftovers, str(leftovers))


def held_lock():
    """While another process holds the user catalog's lock, import-model
    --add gives up after HEADROOM_LOCK_TIMEOUT seconds with exit 1 and a
    message naming the lock file; once it is free, it adds."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = os.path.join(tmp, "headroom")
        os.makedirs(folder)
        lock = os.path.join(folder, ".headroom-lock")
        env = dict(os.environ, XDG_DATA_HOME=tmp, HEADROOM_LOCK_TIMEOUT="1")
        with open(lock, "w") as holder:
            fcntl.flock(holder, fcntl.LOCK_EX)
            start = time.monotonic()
            try:
                r = run(["import-model", "--add", os.path.join(IMPORT, "gpt2")], env=env,
                        timeout=20)
                seconds = time.monotonic() - start
                expect("a held lock: exit 1", r.returncode == 1, f"exit {r.returncode}")
                expect("a held lock: the message names the lock file",
                       ".headroom-lock" in r.stderr, r.stderr)
                expect("a held lock: gave up after about the deadline", 0.9 < seconds < 10,
                       f"{seconds:.1f} s")
            except subprocess.TimeoutExpired:
                expect("a held lock", False, "import-model --add waited for 20 s")
        r = run(["import-model", "--add", os.path.join(IMPORT, "gpt2")], env=env)
        expect("a free lock: added", r.returncode == 0 and
               os.path.exists(os.path.join(folder, "models.json")), r.stderr)


def folder_parts():
    """A diffusers folder fails whole: a component config that cannot be
    read is exit 2 naming it, never a pipeline imported without its U-Net
    (0.207 B parameters instead of 1.066 B)."""
    source = os.path.join(IMPORT, "stable-diffusion-v1-5")
    with tempfile.TemporaryDirectory() as tmp:
        folder = os.path.join(tmp, "sd")
        shutil.copytree(source, folder)
        config = os.path.join(folder, "unet", "config.json")
        with open(config) as f:
            good = f.read()
        r = run(["import-model", folder, "--json"])
        expect("the intact folder imports", r.returncode == 0 and
               json.loads(r.stdout)["params"] == 1066235307, f"{r.returncode}: {r.stderr}")

        def set_bad(how):
            if os.path.lexists(config):
                os.remove(config)
            loop = os.path.join(folder, "unet", "loop")
            if os.path.lexists(loop):
                os.remove(loop)
            if how == "fifo":
                os.mkfifo(config)
            elif how == "dev-zero":
                os.symlink("/dev/zero", config)
            elif how == "loop":
                os.symlink("loop", config)
                os.symlink("config.json", loop)
            elif how == "missing":
                pass
            elif how == "broken":
                with open(config, "w") as f:
                    f.write(good[:40])
            else:
                with open(config, "w") as f:
                    f.write(good.replace('"layers_per_block": 2', '"layers_per_block": ' + how))

        for how in ("fifo", "dev-zero", "loop", "missing", "broken", "-5", "1e300", "100"):
            set_bad(how)
            r = run(["import-model", folder], timeout=10)
            expect(f"a diffusers folder whose unet/config.json is {how}", r.returncode == 2 and
                   "unet/config.json" in r.stderr and not r.stdout,
                   f"exit {r.returncode}: {r.stderr.strip()!r} {r.stdout[:200]!r}")


def raw_controls(data):
    """The control characters in @data a terminal would act on (tab and
    newline are text)."""
    text = data.decode("utf-8", "replace")
    return [c for c in text if (ord(c) < 0x20 and c not in "\n\t") or 0x7F <= ord(c) < 0xA0
            or c in "\u2028\u2029\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"]


def escapes():
    """No escape sequence reaches stderr, whether it came from a file (a
    shard's name in a safetensors index) or from the command line."""
    evil = "\x1b]0;pwned\x07\x1b[31m\u202e\r"
    with tempfile.TemporaryDirectory() as tmp:
        index = os.path.join(tmp, "model.safetensors.index.json")
        with open(index, "w") as f:
            json.dump({"metadata": {}, "weight_map": {"a": evil + "x.safetensors"}}, f)
        measure = os.path.join(tmp, "sweep.csv")
        with open(measure, "w") as f:
            f.write("batch,peak_gib\n1,2.5\n2,3.0\n")
        cases = [
            ["import-model", index],
            ["fits", BERT, "--gpus", "rtx-4090," + evil],
            ["advise", BERT, "--answer", evil + "=yes"],
            ["advise", BERT, "--answer", "workload=" + evil],
            ["measure", measure, "--delimiter", evil],
            ["measure", measure, "--unit", evil],
            ["estimate", BERT, "--set", evil + "=1"],
            ["estimate", BERT, "--set", "name=" + evil],
            ["export", BERT, "--chart", evil, "-o", os.path.join(tmp, "x.svg")],
            [evil],
        ]
        for args in cases:
            r = subprocess.run([CLI] + args, capture_output=True, timeout=30)
            bad = raw_controls(r.stderr) + raw_controls(r.stdout)
            expect(f"{args[0]} with an escape sequence: none reaches the terminal",
                   not bad and r.returncode in (0, 2),
                   f"exit {r.returncode}, {[hex(ord(c)) for c in bad]}: {r.stderr[:300]!r}")


def bad_log_numbers():
    """DeepSpeed, Trainer and memory_summary logs refuse a figure they
    cannot hold (100 PB, negative, not a number) at FILE:LINE:COL,
    rather than dropping it and with it the training stage."""
    measure = os.path.join(os.path.dirname(IMPORT), "measure")
    cases = [
        ("deepspeed.log", "Max_MA 12.75 GB", "Max_MA 100000000.00 GB", "Max_MA"),
        ("deepspeed.log", "Max_MA 12.75 GB", "Max_MA -12.75 GB", "Max_MA"),
        ("deepspeed.log", "Max_MA 12.75 GB", "Max_MA nan GB", "Max_MA"),
        ("hf-trainer.log", "train_mem_gpu_peaked_delta =    13997MB",
         "train_mem_gpu_peaked_delta =    107374182400MB", "train_mem_gpu_peaked_delta"),
        ("hf-trainer.log", "train_mem_gpu_peaked_delta =    13997MB",
         "train_mem_gpu_peaked_delta =    -13997MB", "train_mem_gpu_peaked_delta"),
        ("hf-trainer.log", "train_mem_gpu_alloc_delta  =      694MB",
         "train_mem_gpu_alloc_delta  =      69x4MB", "train_mem_gpu_alloc_delta"),
        ("hf-train-results.json", '"train_mem_gpu_peaked_delta": ',
         '"train_mem_gpu_peaked_delta": -', "train_mem_gpu_peaked_delta"),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        for name, good, bad, key in cases:
            with open(os.path.join(measure, name)) as f:
                text = f.read()
            if good not in text:
                expect(f"{name}: the fixture has {good!r}", False)
                continue
            broken = os.path.join(tmp, name)
            with open(broken, "w") as f:
                f.write(text.replace(good, bad, 1))
            line = text[:text.index(good)].count("\n") + 1
            r = run(["measure", broken, "--json"])
            expect(f"{name} with {bad!r}: refused at its line and column",
                   r.returncode == 2 and f"{name}:{line}:" in r.stderr and key in r.stderr,
                   f"exit {r.returncode}: {r.stderr.strip()!r} {r.stdout[:120]!r}")
        r = run(["measure", os.path.join(measure, "hf-trainer.log"), "--json"])
        expect("the intact Trainer log reads", r.returncode == 0, r.stderr)


lost_output()
writers()
held_lock()
folder_parts()
escapes()
bad_log_numbers()

for f in failures:
    print("FAIL:", f)
print(f"{checked} checks, {len(failures)} failures")
sys.exit(1 if failures else 0)
