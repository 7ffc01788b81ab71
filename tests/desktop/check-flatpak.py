#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Checks the Flatpak manifests: flatpak-builder parses each one with
# unknown keys fatal, and each keeps the promises docs/DESIGN.md makes (no
# network, no file system: files go through portals), builds Headroom with
# meson and runs its tests, and cleans headers and pkg-config files away.
#
#   check-flatpak.py FLATPAK_BUILDER RELEASE.json DEVEL.json

import json
import os
import subprocess
import sys
import tempfile

builder, release, devel = sys.argv[1:4]
APP_ID = "io.github.vramlab.Headroom"
FINISH_ARGS = ["--share=ipc", "--socket=fallback-x11", "--socket=wayland", "--device=dri"]
failures = []
runtimes = set()


def check(cond, what):
    print(("ok - " if cond else "not ok - ") + what)
    if not cond:
        failures.append(what)


for path, app_id, source_type in ((release, APP_ID, "git"), (devel, APP_ID + ".Devel", "dir")):
    name = os.path.basename(path)
    env = dict(os.environ, G_DEBUG="fatal-warnings")
    # flatpak-builder leaves a .flatpak-builder folder where it runs.
    with tempfile.TemporaryDirectory() as scratch:
        p = subprocess.run([builder, "--show-manifest", os.path.abspath(path)], capture_output=True,
                           text=True, env=env, cwd=scratch)
    check(p.returncode == 0, f"{name}: flatpak-builder --show-manifest parses it ({p.stderr.strip()})")
    if p.returncode != 0:
        continue
    # What flatpak-builder read, not just what the file says.
    m = json.loads(p.stdout)
    check(m.get("id", m.get("app-id")) == app_id, f"{name}: id is {app_id}")
    check(m.get("runtime") == "org.gnome.Platform" and m.get("sdk") == "org.gnome.Sdk",
          f"{name}: GNOME runtime and SDK")
    check(m.get("command") == "headroom", f"{name}: runs headroom")
    runtimes.add(m.get("runtime-version"))
    check(m.get("finish-args") == FINISH_ARGS, f"{name}: finish-args are exactly {FINISH_ARGS}")
    cleanup = m.get("cleanup", [])
    for c in ("/include", "/lib/pkgconfig", "*.a"):
        check(c in cleanup, f"{name}: cleans {c}")
    mod = m["modules"][-1]
    check(mod.get("name") == "headroom" and mod.get("buildsystem") == "meson",
          f"{name}: the last module builds headroom with meson")
    check(mod.get("run-tests") is True, f"{name}: runs the test suite")
    check([s.get("type") for s in mod.get("sources", [])] == [source_type],
          f"{name}: builds from a {source_type} source")
    profile = "development" if app_id.endswith(".Devel") else "default"
    check(f"-Dprofile={profile}" in mod.get("config-opts", []), f"{name}: meson profile {profile}")

check(len(runtimes) == 1, f"both manifests use the same runtime version: {sorted(map(str, runtimes))}")

if failures:
    sys.exit(f"{len(failures)} failed")
