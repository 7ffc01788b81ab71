#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# msgfmt --check on a translation, and no fuzzy or untranslated message:
# the translations this project ships are complete.
#
#   check-po.py MSGFMT FILE.po

import subprocess
import sys

msgfmt, po = sys.argv[1:3]
p = subprocess.run([msgfmt, "--check", "--statistics", "--output-file=/dev/null", po],
                   capture_output=True, text=True, env={"LC_ALL": "C"})
print(p.stdout + p.stderr, end="")
if p.returncode != 0:
    sys.exit(f"FAIL: msgfmt --check exited {p.returncode}")
if "fuzzy" in p.stderr or "untranslated" in p.stderr:
    sys.exit("FAIL: fuzzy or untranslated messages")
if " translated message" not in p.stderr:
    sys.exit("FAIL: no translated messages")
