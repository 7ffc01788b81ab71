#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The trace CSV (data/probe/headroom_trace_torch.py) read by headroom-cli,
without PyTorch: a file written here with known figures is recognised,
compared with the walk (trace_ratio), calibrates the walked activations
by that ratio at another input size, and bad input is refused with the
file, line, column and field named.

    test-trace-import.py HEADROOM_CLI
"""

import json
import os
import subprocess
import sys
import tempfile

FAILURES = []


def check(condition, message):
    if not condition:
        FAILURES.append(message)
        print("not ok - " + message)
    else:
        print("ok - " + message)


def cli(*args):
    return subprocess.run([CLI] + list(args), capture_output=True, text=True)


def scenario(tmp, batch, size, name="scenario.json"):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        json.dump({"headroom_scenario": 1, "model": "resnet-50", "task": "train",
                   "method": "full", "compute": "fp32", "optimizer": "sgd",
                   "micro_batch": batch, "image_size": size}, f)
    return path


def estimate(path, *extra):
    out = cli("estimate", path, "--json", *extra)
    if out.returncode != 0:
        raise SystemExit(f"estimate {path}: {out.stderr}")
    return json.loads(out.stdout)


def write_trace(path, rows, header=True):
    with open(path, "w") as f:
        if header:
            f.write("# headroom-trace: 1\n# framework: torch\n# model: resnet-50\n"
                    "# precision: fp32\n# provenance: traced on CPU\n")
        f.write("micro_batch,size,module,saved_bytes,params_bytes,grads_bytes,"
                "optimizer_bytes\n")
        for row in rows:
            f.write(",".join(str(v) for v in row) + "\n")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        # what the walk saves at the traced points, and a trace 20% above it
        scale = 1.2
        walk = {}
        for b in (1, 2, 4):
            walk[b] = estimate(scenario(tmp, b, 64))["walk_saved"]
        check(all(walk[b] > 0 for b in walk), "estimate --json gives walk_saved for ResNet-50")
        check(walk[2] > walk[1] and walk[4] > walk[2], "walk_saved grows with the micro-batch")
        blocks = estimate(scenario(tmp, 2, 64))["walk_blocks"]
        check(abs(sum(b["saved"] for b in blocks) - walk[2]) <= len(blocks),
              "walk_blocks add up to walk_saved")

        rows = []
        for b in (1, 2, 4):
            traced = round(scale * walk[b])
            rows.append((b, 64, "total", traced, 102441032, 102228128, 0))
            rows.append((b, 64, "layer1", traced // 3, "", "", ""))
            rows.append((b, 64, "(top)", 4012 * b, "", "", ""))
        trace = os.path.join(tmp, "resnet-50.trace.csv")
        write_trace(trace, rows)

        out = cli("measure", trace, "--json")
        check(out.returncode == 0, f"measure reads the trace ({out.stderr.strip()})")
        if out.returncode == 0:
            m = json.loads(out.stdout)
            check(m["format"] == "headroom-trace", "its format is headroom-trace")
            check(len(m["series"]) == 1 and len(m["series"][0]["points"]) == 3,
                  "one series, a point per total row (module rows are not points)")
            check(m["missing"] == 0, "a module row's empty columns are not missing values")

        # compared at the traced size
        est = estimate(scenario(tmp, 2, 64), "--measurements", trace)
        traced = [x for x in est["measurements"] if x.get("traced_on_cpu")]
        check(len(traced) == 1, "estimate --measurements lists the trace as traced on CPU")
        if traced:
            ratio = traced[0]["trace_ratio"]
            check(ratio is not None and abs(ratio - scale) < 1e-4,
                  f"trace_ratio is the traced over the walked bytes ({ratio} vs {scale})")
            check("Traced on CPU" in traced[0]["summary"], "its summary says traced on CPU")
        text = cli("estimate", scenario(tmp, 2, 64), "--measurements", trace).stdout
        check("[traced on CPU]" in text, "the text output shows the traced figure beside the walk")

        # calibrated at another size: the walk's activations times the ratio
        at224 = scenario(tmp, 8, 224, "s224.json")
        plain = estimate(at224)
        calibrated = estimate(at224, "--measurements", trace, "--calibrate")
        check(calibrated["calibrated"], "a trace at three micro-batches calibrates")
        want = plain["per_gpu"]["activations"] + (scale - 1) * plain["walk_saved"]
        got = calibrated["per_gpu"]["activations"]
        check(abs(got / want - 1) < 0.01,
              f"calibrated activations at 224 px are the walk's scaled by the ratio "
              f"({got} vs {want:.0f})")
        check(calibrated["per_gpu"]["overhead"] == plain["per_gpu"]["overhead"],
              "a trace does not move the overhead, which no CPU trace sees")

        # one micro-batch: compared, but no calibration
        single = os.path.join(tmp, "single.trace.csv")
        write_trace(single, [r for r in rows if r[0] == 2])
        one = estimate(at224, "--measurements", single, "--calibrate")
        check(not one["calibrated"], "a trace at one micro-batch does not calibrate")

        # bad input: file, line, column and field named; nothing else lost
        bad = os.path.join(tmp, "bad.trace.csv")
        write_trace(bad, rows[:2] + [(4, 64, "layer2", "lots", "", "", "")])
        out = cli("measure", bad)
        check(out.returncode == 2, "a trace with a bad number is refused (exit 2)")
        check(f"{bad}:9:" in out.stderr and "saved_bytes" in out.stderr,
              f"the message names the file, line and column ({out.stderr.strip()})")
        bad = os.path.join(tmp, "nosaved.trace.csv")
        with open(bad, "w") as f:
            f.write("# headroom-trace: 1\nmicro_batch,size,module\n1,64,total\n")
        out = cli("measure", bad)
        check(out.returncode == 2 and "saved_bytes" in out.stderr,
              f"a trace without saved_bytes is refused by name ({out.stderr.strip()})")
        bad = os.path.join(tmp, "size.trace.csv")
        write_trace(bad, [(1, "0.5", "total", 10, "", "", "")])
        out = cli("measure", bad)
        check(out.returncode == 2 and "size" in out.stderr,
              f"a size that is not a whole number is refused ({out.stderr.strip()})")

    print(f"# {len(FAILURES)} failed")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    CLI = sys.argv[1]
    sys.exit(main())
