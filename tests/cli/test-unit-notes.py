#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""headroom-cli's --unit reaches every size it prints: the buckets, the
fit, the levers and the estimator's notes and labels.

    python3 tests/cli/test-unit-notes.py HEADROOM_CLI EXAMPLES_DIR

For every example scenario, `estimate`, `knobs` and `fits` under
--unit gb print no size in GiB, MiB or KiB.  Under --unit gib the notes
may quote a source's GB ("peak < ~35 GB per GPU"), so there only the
figures the estimator words per sample are checked."""

import os
import re
import subprocess
import sys

# a size as hr_size_format_full() prints it: the number, a space, the unit
# (a card's name, "H100 SXM5 80GB", has no space)
WRONG = {
    "gb": re.compile(r"[0-9] (GiB|MiB|KiB)\b"),
    "gib": re.compile(r"[0-9] (GB|MB|kB) (of activations )?per sample"),
}


def main():
    cli, examples = sys.argv[1], sys.argv[2]
    names = sorted(n for n in os.listdir(examples) if n.endswith(".json"))
    assert names, f"no examples in {examples}"
    failures = 0
    checked = 0
    for name in names:
        path = os.path.join(examples, name)
        for unit, wrong in WRONG.items():
            for command in ("estimate", "knobs", "fits"):
                r = subprocess.run([cli, command, path, "--unit", unit],
                                   capture_output=True, text=True)
                if r.returncode != 0:
                    print(f"{name}: {command} --unit {unit} exited {r.returncode}: {r.stderr}")
                    failures += 1
                    continue
                for line in r.stdout.splitlines():
                    checked += 1
                    if wrong.search(line):
                        print(f"{name}: {command} --unit {unit}: {line.strip()}")
                        failures += 1
    print(f"{checked} lines of {len(names)} examples, {failures} in the wrong unit")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
