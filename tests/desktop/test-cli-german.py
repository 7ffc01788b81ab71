#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# headroom-cli speaks German under a German locale, from the build tree's
# translations (HEADROOM_LOCALEDIR=<build>/po, set by meson), shows numbers
# with the locale's decimal comma in its tables, and keeps --json output
# identical to the C locale's, text included.
#
#   test-cli-german.py HEADROOM_CLI EXAMPLES_DIR

import json
import os
import re
import subprocess
import sys
import tempfile

cli, examples = sys.argv[1:3]

# A fresh Debian 12 has no de_DE.UTF-8 (.ci/run generates it): without it
# there is nothing to test here; say so and skip (meson's exit code 77).
import locale
_current = locale.setlocale(locale.LC_ALL)
try:
    locale.setlocale(locale.LC_ALL, "de_DE.UTF-8")
    locale.setlocale(locale.LC_ALL, _current)
except locale.Error:
    print("SKIP: the de_DE.UTF-8 locale is not installed (locale-gen de_DE.UTF-8 adds it)")
    sys.exit(77)
scenario = os.path.join(examples, "smolvla-4090.json")
probe = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "measure",
                     "probe-torch.csv")
GERMAN = {"LANGUAGE": "de", "LC_ALL": "de_DE.UTF-8"}
ENGLISH = {"LANGUAGE": "", "LC_ALL": "C.UTF-8"}
failures = []


def run(env, *args):
    e = dict(os.environ)
    e.update(env)
    return subprocess.run([cli, *args], capture_output=True, text=True, env=e, timeout=60)


def check(cond, what):
    print(("ok - " if cond else "not ok - ") + what)
    if not cond:
        failures.append(what)


locales = subprocess.run(["locale", "-a"], capture_output=True, text=True).stdout.lower()
if "de_de.utf8" not in locales.replace("-", ""):
    # .ci/run generates it; a machine without it cannot run this test.
    print("SKIP: no de_DE.UTF-8 locale (locale-gen de_DE.UTF-8)")
    sys.exit(77)

if not os.path.isfile(os.path.join(os.environ.get("HEADROOM_LOCALEDIR", ""), "de", "LC_MESSAGES",
                                   "headroom.mo")):
    sys.exit("FAIL: no de/LC_MESSAGES/headroom.mo under HEADROOM_LOCALEDIR")

p = run(GERMAN, "--help")
check(p.returncode == 0 and "Befehle:" in p.stdout and "Plant GPU-Speicher" in p.stdout,
      f"--help is German: {p.stdout[:200]!r}")
check("Commands:" not in p.stdout, "--help has no English heading left")

p = run(ENGLISH, "--help")
check(p.returncode == 0 and "Commands:" in p.stdout, "--help stays English in the C locale")

p = run(GERMAN, "no-such-command")
check(p.returncode == 2 and "unbekannter Befehl" in p.stderr, f"errors are German: {p.stderr[:120]!r}")

# The core's messages come from the same domain, positions unchanged.
with tempfile.TemporaryDirectory() as tmp:
    bad = os.path.join(tmp, "bad.json")
    with open(bad, "w") as f:
        f.write('{"headroom_scenario": 1, "model": "smolvla", "micro_btch": 2}')
    p = run(GERMAN, "estimate", bad)
    check(p.returncode == 2 and p.stderr.startswith(bad + ":1:") and
          "unbekannter Schlüssel „micro_btch“" in p.stderr and "micro_batch" in p.stderr,
          f"core errors are German and positioned: {p.stderr.strip()!r}")
    p = run(ENGLISH, "estimate", bad)
    check(p.returncode == 2 and 'unknown key "micro_btch"' in p.stderr,
          f"core errors stay English in the C locale: {p.stderr.strip()!r}")

# Charts: the exported SVG's accessible summary follows the language.
with tempfile.TemporaryDirectory() as tmp:
    svg = os.path.join(tmp, "curve.svg")
    p = run(GERMAN, "export", scenario, "--chart", "curve", "-o", svg)
    text = open(svg, encoding="utf-8").read() if p.returncode == 0 else ""
    check("<desc id=\"hr-desc\">Der Spitzenspeicher wächst von" in text,
          f"curve summary is German ({p.stderr.strip()})")
    p = run(ENGLISH, "export", scenario, "--chart", "curve", "-o", svg)
    text = open(svg, encoding="utf-8").read() if p.returncode == 0 else ""
    check("<desc id=\"hr-desc\">Peak memory grows from" in text, "curve summary stays English in C")

# measure: a bad measurement file is reported in German, positioned; the
# comparison table and the advisor (its tree's questions come from
# data/advisor.json through data/advisor-strings.h) speak German too.
with tempfile.TemporaryDirectory() as tmp:
    bad = os.path.join(tmp, "bad.csv")
    with open(bad, "w") as f:
        f.write("micro_batch,max_memory_allocated\n1,1000\n2,abc\n")
    p = run(GERMAN, "measure", bad)
    check(p.returncode == 2 and p.stderr.startswith(bad + ":3:3: ") and
          "Spalte „max_memory_allocated“: „abc“ ist keine Zahl" in p.stderr,
          f"measure errors are German and positioned: {p.stderr.strip()!r}")
    p = run(ENGLISH, "measure", bad)
    check(p.returncode == 2 and 'column "max_memory_allocated": "abc" is not a number' in p.stderr,
          f"measure errors stay English in the C locale: {p.stderr.strip()!r}")

p = run(GERMAN, "measure", probe, "--scenario", scenario)
check(p.returncode == 0 and "Anpassung (" in p.stdout and "Verglichen mit" in p.stdout and
      "Unkalibrierte Schätzung" in p.stdout, f"measure output is German: {p.stdout[:300]!r}")

p = run(GERMAN, "advise", scenario)
check(p.returncode == 0 and "Was möchten Sie ausführen?" in p.stdout and
      "Rechner:" in p.stdout and "What will you run?" not in p.stdout,
      f"advise output, the tree's questions included, is German: {p.stdout[:300]!r}")

# GOption reads option descriptions and the summary from our domain.
p = run(GERMAN, "estimate", "--help")
check(p.returncode == 0 and "JSON ausgeben" in p.stdout and "SZENARIO" in p.stdout,
      f"estimate --help is German: {p.stdout[:300]!r}")

# Tables: German headings, decimal comma, the unit always printed.
p = run(GERMAN, "estimate", scenario)
check(p.returncode == 0 and "Gesamt" in p.stdout, "estimate table is German")
check(re.search(r"\b\d+,\d\d GiB\b", p.stdout) is not None and
      re.search(r"\b\d+\.\d\d GiB\b", p.stdout) is None,
      "estimate table uses the decimal comma")

# Machine-readable output never follows the language or the number format.
for args in (("estimate", scenario, "--json"), ("knobs", scenario, "--json"),
             ("sweep", scenario, "--batch", "1:4", "--json"), ("advise", scenario, "--json"),
             ("measure", probe, "--scenario", scenario, "--json")):
    de = run(GERMAN, *args)
    c = run(ENGLISH, *args)
    check(de.returncode == 0 and de.stdout == c.stdout and json.loads(de.stdout),
          f"{' '.join(args[:1] + args[2:])}: JSON byte-identical in German and C")
de = run(GERMAN, "sweep", scenario, "--batch", "1:4", "--csv")
c = run(ENGLISH, "sweep", scenario, "--batch", "1:4", "--csv")
check(de.returncode == 0 and de.stdout == c.stdout, "sweep --csv identical in German and C")

if failures:
    sys.exit(f"{len(failures)} failed")
