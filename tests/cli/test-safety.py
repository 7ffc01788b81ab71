#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""What headroom-cli writes, waits for and prints, under hostile
conditions: output that cannot be written exits 1; a writer replaces only
a regular file or what a link points to, and refuses a FIFO, a device, a
dangling link or a loop, leaving it as it is; a held catalog lock is given
up after a deadline with a message naming it.

Usage: test-safety.py HEADROOM_CLI EXAMPLES_DIR IMPORT_DIR"""

import fcntl
import os
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
        ["--help"], ["--version"],
    ]
    for args in cases:
        with open("/dev/full", "w") as full:
            r = run(args, stdout=full, capture_output=False, stderr=subprocess.PIPE)
        expect(f"{' '.join(args)} > /dev/full", r.returncode == 1 and
               ("could not be written" in r.stderr or "No space left" in r.stderr),
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


lost_output()
writers()
held_lock()

for f in failures:
    print("FAIL:", f)
print(f"{checked} checks, {len(failures)} failures")
sys.exit(1 if failures else 0)
