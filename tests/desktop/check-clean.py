#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Runs a validator and fails on any error or warning it reports, whatever
# its exit status: desktop-file-validate, for one, prints warnings and
# exits 0.  Hints, infos and pedantic notes pass.
#
#   check-clean.py COMMAND [ARG…]

import re
import subprocess
import sys

if len(sys.argv) < 2:
    sys.exit("usage: check-clean.py COMMAND [ARG…]")

p = subprocess.run(sys.argv[1:], capture_output=True, text=True)
output = p.stdout + p.stderr
sys.stdout.write(output)

# desktop-file-validate: "FILE: warning: …"; appstreamcli: "W: id:line: tag";
# GLib: "** (prog): WARNING **" or "… warning: …".
bad = re.compile(r"(^|:\s*)(error|warning|critical)\b|^[EW]: |\*\* \(.*\): (WARNING|CRITICAL|ERROR)",
                 re.IGNORECASE | re.MULTILINE)
if p.returncode != 0:
    print(f"FAIL: {sys.argv[1]} exited {p.returncode}")
    sys.exit(1)
m = bad.search(output)
if m:
    print(f"FAIL: {sys.argv[1]} reported a problem: {output[m.start():].splitlines()[0]!r}")
    sys.exit(1)
print(f"ok: {sys.argv[1]}")
