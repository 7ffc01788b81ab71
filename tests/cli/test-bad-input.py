#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Every file of the bad-input corpus (tests/data/bad/expected.tsv) through
headroom-cli: the exact message the user sees, the exit status, and no
hang (each run has a time limit).  Files whose name starts with '@' are
made here, at test time: a 2 GB sparse file, a folder, an unreadable file,
symbolic links, a pipe, a file with too many values, a megabyte-long key.

Usage: test-bad-input.py HEADROOM_CLI BAD_DIR SCENARIO"""

import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile

CLI, BAD, SCENARIO = sys.argv[1:4]
LIMIT_S = 60
CATALOG_SUFFIX = " (your catalog was not loaded; the built-in entries are used)"

failures = []
checked = 0
skipped = []


def make(name, tmp):
    """The path of a case made at test time, or None to skip it."""
    path = os.path.join(tmp, name[1:])
    if name == "@sparse-2g.json":
        with open(path, "wb") as f:
            f.truncate(2 * 1024**3)
    elif name == "@folder.json":
        os.mkdir(path)
    elif name == "@unreadable.json":
        if os.geteuid() == 0:
            return None  # root reads any file
        with open(path, "w") as f:
            f.write('{"headroom_scenario": 1, "model": "smolvla"}\n')
        os.chmod(path, 0)
    elif name == "@symlink-loop.json":
        # two links that point at each other
        os.symlink(os.path.basename(path) + ".b", path)
        os.symlink(os.path.basename(path), path + ".b")
    elif name == "@dangling-link.json":
        os.symlink("does-not-exist.json", path)
    elif name == "@missing.json":
        pass
    elif name == "@fifo.json":
        os.mkfifo(path)
    elif name == "@long-key.json":
        with open(path, "w") as f:
            f.write('{"headroom_scenario": 1, "' + "k" * 1000000 + '": 1}')
    elif name == "@many-values.json":
        with open(path, "w") as f:
            f.write('{"headroom_scenario": 1, "x-values": [' + ",".join(["0"] * 1000001) + "]}")
    else:
        raise SystemExit(f"unknown generated case {name}")
    return path


def run(args, env=None, stdin=None):
    e = dict(os.environ)
    e.update(env or {})
    try:
        return subprocess.run([CLI, *args], env=e, input=stdin, capture_output=True,
                              timeout=LIMIT_S)
    except subprocess.TimeoutExpired:
        return None


def check(name, cond, what):
    global checked
    checked += 1
    if not cond:
        failures.append(f"{name}: {what}")
        print(f"not ok - {name}: {what}", file=sys.stderr)


rows = []
with open(os.path.join(BAD, "expected.tsv"), encoding="utf-8") as f:
    for line in f:
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        name, how, status, message = line.split("\t")
        rows.append((name, how, int(status), message))

files = {n for n in os.listdir(BAD) if n.endswith(".json")}
files |= {"catalog/" + n for n in os.listdir(os.path.join(BAD, "catalog"))}
listed = {r[0] for r in rows}
check("expected.tsv", files <= listed, f"files with no row: {sorted(files - listed)}")
check("expected.tsv", len(rows) >= 40, f"at least 40 cases, found {len(rows)}")

with tempfile.TemporaryDirectory() as tmp:
    for name, how, status, message in rows:
        if name.startswith("@"):
            path = make(name, tmp)
            if path is None:
                skipped.append(name)
                print(f"ok - {name} # SKIP running as root, which may read any file")
                continue
        else:
            path = os.path.join(BAD, name)
            check(name, os.path.exists(path), "the file is in the corpus")

        env = {}
        if how == "estimate":
            shown = path
            p = run(["estimate", path])
        elif how == "stdin":
            shown = "<stdin>"
            with open(path, "rb") as f:
                p = run(["estimate", "-"], stdin=f.read())
        elif how in ("user-models", "user-gpus"):
            data = os.path.join(tmp, "data-" + os.path.basename(name))
            os.makedirs(os.path.join(data, "headroom"))
            shown = os.path.join(data, "headroom", how[5:] + ".json")
            shutil.copy(path, shown)
            p = run(["estimate", SCENARIO], env={"XDG_DATA_HOME": data})
        else:
            raise SystemExit(f"{name}: unknown way {how}")

        if p is None:
            check(name, False, f"headroom-cli did not finish within {LIMIT_S} s")
            continue

        want = message.replace("{FILE}", shown)
        if how.startswith("user-"):
            want = f"headroom-cli: warning: {want}{CATALOG_SUFFIX}"
        got = p.stderr.decode("utf-8", "replace").rstrip("\n")
        check(name, p.returncode == status, f"exit {p.returncode}, expected {status}")
        check(name, got == want, f"message\n    got:  {got}\n    want: {want}")
        check(name, "\n" not in got, "the message is one line")
        if re.match(r"\{FILE\}:\d+:\d+: ", message):
            body = got.removeprefix("headroom-cli: warning: ")
            check(name, re.match(re.escape(shown) + r":\d+:\d+: \S", body) is not None,
                  "FILE:LINE:COL: message")
        if how.startswith("user-"):
            check(name, p.returncode == 0 and b"headroom_estimate" not in p.stderr,
                  "the built-in catalog still estimates")
        else:
            check(name, p.stdout == b"", "nothing on standard output")

        # so that the temporary folder can be removed
        if name == "@unreadable.json":
            os.chmod(path, stat.S_IRUSR | stat.S_IWUSR)

print(f"{len(rows) - len(skipped)} bad inputs, {checked} checks, {len(failures)} failed"
      + (f", skipped: {' '.join(skipped)}" if skipped else ""))
sys.exit(1 if failures else 0)
