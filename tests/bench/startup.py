#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Start-up to the first window, Headroom against GNOME Text Editor.

Run under Xvfb (xvfb-run -a -s '-screen 0 1280x1024x24'), with the build
tree's environment:

    python3 tests/bench/startup.py _build/src/app/headroom [RUNS]

Each run starts the program with fresh XDG folders and stops the clock
when its first top-level window is mapped and named (xdotool polled
every 2 ms), then ends it.  Prints each program's median and the ratio,
of the wall-clock time and of the CPU time the process had used by then
(user + system, from /proc; on a machine other work keeps busy the CPU
time is the steadier figure).
gnome-text-editor is Debian's package of the same name (43.2 on
Debian 12); xdotool is Debian's xdotool."""

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def window_shown(title):
    """Whether a mapped (viewable) window's name ends with @title."""
    r = subprocess.run(["xdotool", "search", "--onlyvisible", "--name", title + "$"],
                       capture_output=True, text=True)
    return r.returncode == 0 and r.stdout.strip() != ""


def cpu_seconds(pid):
    """User + system CPU time of process @pid so far (proc(5), fields 14, 15)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def first_window(argv, title, env):
    start = time.monotonic()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    try:
        while time.monotonic() - start < 30:
            if window_shown(title):
                return time.monotonic() - start, cpu_seconds(proc.pid)
            if proc.poll() is not None:
                break
            time.sleep(0.002)
        proc.terminate()
        err = proc.communicate()[1].strip().splitlines()[-3:]
        print(f"{argv[0]}: no window named {title!r} (exit {proc.returncode}: {err})",
              file=sys.stderr)
        return None
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def measure(argv, title, runs):
    """(wall seconds, CPU seconds) of each run that showed a window."""
    times = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as tmp:
            env = dict(os.environ)
            for name in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME"):
                env[name] = os.path.join(tmp, name.lower())
            env.setdefault("GSETTINGS_BACKEND", "memory")
            env.setdefault("GTK_A11Y", "none")
            t = first_window(argv, title, env)
            if t is not None:
                times.append(t)
    if not times:
        raise RuntimeError(f"{argv[0]}: no run showed a window")
    return times


def report(name, times):
    wall = [t[0] for t in times]
    cpu = [t[1] for t in times]
    print(f"{name:18} median {statistics.median(wall) * 1000:7.1f} ms "
          f"({', '.join(f'{t * 1000:.0f}' for t in wall)}), "
          f"CPU {statistics.median(cpu) * 1000:.0f} ms "
          f"({', '.join(f'{t * 1000:.0f}' for t in cpu)})")
    return statistics.median(wall), statistics.median(cpu)


def main():
    headroom = os.path.abspath(sys.argv[1])
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    editor = shutil.which("gnome-text-editor")
    ours = report("headroom", measure([headroom], "Headroom", runs))
    if editor is None:
        print("gnome-text-editor is not installed (apt-get install gnome-text-editor)")
        return 0
    # --standalone: a process of its own, as Headroom's first start is.
    theirs = report("gnome-text-editor", measure([editor, "--standalone"], "Text Editor", runs))
    print(f"ratio {ours[0] / theirs[0]:.2f}, CPU ratio {ours[1] / theirs[1]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
