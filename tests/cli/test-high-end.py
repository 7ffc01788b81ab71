#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A verdict that does not send people into an OOM: "fits" means the high
end of the estimate's range fits the usable memory; where only the central
estimate does, `fits` says "tight" and by how much the high end is short.
Checked on every shipped example against every catalog card.
Usage: test-high-end.py HEADROOM_CLI EXAMPLES_DIR"""

import json
import os
import subprocess
import sys

CLI = sys.argv[1]
EXAMPLES = sys.argv[2]
failures = []
checks = 0


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        failures.append(what)
        print(f"not ok - {what}", file=sys.stderr)


def fits(path, *args):
    p = subprocess.run([CLI, "fits", path, "--gpus", "all", "--json", *args],
                       capture_output=True, text=True, timeout=300)
    check(p.returncode == 0, f"fits {path} exits 0 ({p.stderr.strip()})")
    return json.loads(p.stdout)["gpus"] if p.returncode == 0 else []


states = {"fits": 0, "tight": 0, "does-not-fit": 0}
for name in sorted(f for f in os.listdir(EXAMPLES) if f.endswith(".json")):
    for g in fits(os.path.join(EXAMPLES, name)):
        where = f"{name} on {g['gpu']}"
        state = g["fit"]
        states[state] = states.get(state, 0) + 1
        check(g["need_high"] >= g["need"], f"{where}: the high end is not below the estimate")
        check(g["max_micro_batch_at_high_end"] <= g["max_micro_batch"],
              f"{where}: no larger micro-batch fits at the high end than at the estimate")
        if state == "fits":
            check(g["fits"] and g["fits_at_high_end"] and g["need_high"] <= g["usable"],
                  f"{where}: 'fits' only when the high end fits")
            check(g["short_at_high_end"] == 0, f"{where}: nothing short when it fits")
            check(g["verdict"].startswith("Fits"), f"{where}: the verdict says it fits")
        elif state == "tight":
            check(g["fits"] and not g["fits_at_high_end"]
                  and g["need"] <= g["usable"] < g["need_high"],
                  f"{where}: 'tight' when only the central estimate fits")
            check(g["short_at_high_end"] == g["need_high"] - g["usable"],
                  f"{where}: short by the high end less the usable memory")
            check(g["verdict"].startswith("Probably fits, tight"),
                  f"{where}: the verdict says it is tight ({g['verdict']})")
        else:
            check(state == "does-not-fit" and not g["fits"] and not g["fits_at_high_end"],
                  f"{where}: 'does-not-fit' when the central estimate does not fit")

# Every state occurs on the examples, so each branch above was checked.
for state, n in states.items():
    check(n > 0, f"some example is '{state}' on some card (counts: {states})")

# GR00T N1.7 at batch 64 on the H100: the estimate fits, its high end does
# not (the launch script's default batch is close to the card's limit).
gr00t = [g for g in fits(os.path.join(EXAMPLES, "gr00t-n1.7-h100.json")) if g["gpu"] == "h100-sxm"]
check(len(gr00t) == 1 and gr00t[0]["fit"] == "tight" and gr00t[0]["short_at_high_end"] > 0,
      f"GR00T N1.7 at batch 64 on the H100 SXM is tight ({gr00t})")

# The table says so too.
p = subprocess.run([CLI, "fits", os.path.join(EXAMPLES, "gr00t-n1.7-h100.json"),
                    "--gpus", "h100-sxm"], capture_output=True, text=True, timeout=300)
check(p.returncode == 0 and " tight " in p.stdout, f"the fits table says 'tight' ({p.stdout})")

print(f"{checks - len(failures)} of {checks} checks passed; states {states}")
sys.exit(1 if failures else 0)
