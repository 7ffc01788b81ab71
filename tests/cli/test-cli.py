#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""headroom-cli's contract (SCENARIO.md): every key other tools rely on,
exit statuses, positioned errors, and output that does not depend on the
locale.  Usage: test-cli.py HEADROOM_CLI EXAMPLES_DIR"""

import json
import os
import re
import subprocess
import sys
import tempfile

CLI = sys.argv[1]
EXAMPLES = sys.argv[2]
failures = []
checks = 0


def run(*args, stdin=None, env=None):
    e = dict(os.environ)
    if env:
        e.update(env)
    return subprocess.run([CLI, *args], input=stdin, capture_output=True, text=True, env=e, timeout=120)


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        failures.append(what)
        print(f"not ok - {what}", file=sys.stderr)


def is_size(v):
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


examples = sorted(os.path.join(EXAMPLES, f) for f in os.listdir(EXAMPLES) if f.endswith(".json"))
check(len(examples) >= 10, f"at least 10 examples, found {len(examples)}")

# The text header's sizes read in the unit their magnitude asks for: a
# 51.6M vision model is not 0.05B, a 3B full fine-tune is not 3000.0M trainable.
for ex, want in (("act-2080ti.json", r"\(51\.6M parameters, 51\.6M trainable\)"),
                 ("gr00t-n1.7-tune-llm.json", r"\(3\.00B parameters, 3\.00B trainable\)"),
                 ("gr00t-n1.7-h100.json", r"\(3\.00B parameters, 40\.0M trainable\)")):
    p = run("estimate", os.path.join(EXAMPLES, ex), env={"LC_ALL": "C.UTF-8", "LANGUAGE": ""})
    check(p.returncode == 0 and re.search(want, p.stdout) is not None,
          f"{ex}: the header reads {want} (got {p.stdout.splitlines()[1:2]})")

BUCKETS = ["weights", "gradients", "optimizer", "activations", "overhead"]
VIEWS = ["total", "low", "high", "allocated_peak", "reserved_peak", "device_used"]

for path in examples:
    name = os.path.basename(path)
    p = run("estimate", path, "--json")
    check(p.returncode == 0, f"{name}: estimate exits 0 (got {p.returncode}: {p.stderr.strip()})")
    if p.returncode:
        continue
    d = json.loads(p.stdout)
    check(d.get("headroom_estimate") == 1, f"{name}: headroom_estimate is 1")
    g = d["per_gpu"]
    for k in BUCKETS + VIEWS:
        check(is_size(g.get(k)), f"{name}: per_gpu.{k} is a size in bytes")
    check(sum(g[k] for k in BUCKETS) == g["total"], f"{name}: buckets add up to total")
    check(g["low"] <= g["total"] <= g["high"], f"{name}: low <= total <= high")
    check(g["allocated_peak"] <= g["reserved_peak"] <= g["device_used"], f"{name}: allocated <= reserved <= device_used")
    check(g["total"] == g["device_used"], f"{name}: total is the device_used estimate")
    check(is_size(d["host"]["ram"]), f"{name}: host.ram is a size")
    fit = d["fit"]
    check(fit is not None and isinstance(fit["gpu"], str), f"{name}: fit names the GPU")
    check(is_size(fit["capacity"]) and isinstance(fit["fits"], bool) and is_size(fit["max_micro_batch"]),
          f"{name}: fit has capacity, fits, max_micro_batch")
    check(isinstance(d["notes"], list) and all(isinstance(n, str) for n in d["notes"]) and d["notes"],
          f"{name}: notes are strings")

    t = run("estimate", path)
    check(t.returncode == 0 and "GiB" in t.stdout, f"{name}: the table prints its unit")

# GR00T N1.7: the seed's table within one sample on nominal cards
want = {24: 16, 40: 32, 48: 40, 80: 72, 96: 88}
gr00t = os.path.join(EXAMPLES, "gr00t-n1.7-h100.json")
for gb, expect in want.items():
    gpu = json.dumps({"id": f"n{gb}", "name": f"{gb} GB", "memory": gb * 10**9})
    p = run("estimate", gr00t, "--json", "--set", f"gpu={gpu}")
    got = json.loads(p.stdout)["fit"]["max_micro_batch"]
    check(abs(got - expect) <= 1, f"GR00T N1.7 on {gb} GB: max micro-batch {got}, seed {expect}")

# bad input: exit 2, FILE:LINE:COL: on stderr
with tempfile.TemporaryDirectory() as tmp:
    bad = os.path.join(tmp, "bad.json")
    with open(bad, "w") as f:
        f.write('{\n  "headroom_scenario": 1,\n  "model": "llama-2-7b",\n  "micro_batch": -3\n}\n')
    p = run("estimate", bad, "--json")
    check(p.returncode == 2, f"bad value exits 2 (got {p.returncode})")
    check(re.match(re.escape(bad) + r":4:18: ", p.stderr) is not None, f"bad value is positioned: {p.stderr!r}")
    check(p.stdout == "", "nothing on stdout for bad input")

    with open(bad, "w") as f:
        f.write('{"headroom_scenario": 1, "model": "llama-2-7b",, }')
    p = run("estimate", bad)
    check(p.returncode == 2 and re.match(re.escape(bad) + r":1:48: ", p.stderr), f"syntax error positioned: {p.stderr!r}")

    with open(bad, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n\x00\x00")
    p = run("estimate", bad)
    check(p.returncode == 2 and "binary" in p.stderr, f"binary file refused: {p.stderr!r}")

    p = run("estimate", os.path.join(tmp, "missing.json"))
    check(p.returncode == 2 and "missing.json" in p.stderr, "missing file exits 2 naming it")

    p = run("sweep", examples[0], "--batch", "8:2")
    check(p.returncode == 2 and "--batch" in p.stderr, "bad --batch exits 2")

    p = run("estimate", examples[0], "--set", "micro_batch=lots")
    check(p.returncode == 2 and p.stderr.startswith("--set micro_batch=lots: "), f"bad --set named: {p.stderr!r}")

# standard input and --set
scn = '{"headroom_scenario": 1, "model": "llama-3.1-8b", "method": "lora", "gpu": "rtx-4090"}'
p = run("estimate", "-", "--json", stdin=scn)
check(p.returncode == 0, f"scenario from stdin ({p.stderr.strip()})")
a = json.loads(p.stdout)
p = run("estimate", "-", "--json", "--set", "micro_batch=4", "--set", "gpu=h100-sxm", stdin=scn)
b = json.loads(p.stdout)
ratio = b["per_gpu"]["activations"] / a["per_gpu"]["activations"]
check(3.5 < ratio < 4.5, f"--set micro_batch=4 quadruples the activations (x{ratio:.2f})")
check(b["fit"]["gpu"] == "h100-sxm", "--set gpu=ID takes a bare catalog id")

# numbers in JSON do not depend on the locale
for loc in ("de_DE.UTF-8", "fr_FR.UTF-8"):
    p = run("estimate", examples[0], "--json", env={"LC_ALL": loc})
    check(p.returncode == 0 and json.loads(p.stdout) == json.loads(run("estimate", examples[0], "--json",
                                                                       env={"LC_ALL": "C"}).stdout),
          f"JSON output identical under {loc}")

# sweep
p = run("sweep", gr00t, "--batch", "1:16", "--json")
d = json.loads(p.stdout)
pts = d["points"]
check(d["headroom_sweep"] == 1 and len(pts) == 16, "sweep 1:16 has 16 points")
check(all(pts[i]["total"] <= pts[i + 1]["total"] for i in range(len(pts) - 1)), "sweep totals grow")
check(all(is_size(x[k]) for x in pts for k in VIEWS), "sweep sizes are bytes")
check(all(isinstance(x["fits"], bool) for x in pts), "sweep says whether each point fits")
p = run("sweep", gr00t, "--batch", "1:64", "--pow2", "--csv")
lines = p.stdout.strip().splitlines()
check(lines[0].startswith("micro_batch,total_bytes,"), "sweep CSV header")
check([int(l.split(",")[0]) for l in lines[1:]] == [1, 2, 4, 8, 16, 32, 64], "sweep --pow2 points")
p = run("sweep", gr00t, "--batch", "4:12:4")
check(p.returncode == 0 and "GiB" in p.stdout, "sweep table prints its unit")

# fits
p = run("fits", gr00t, "--gpus", "rtx-4090,h100-sxm", "--json")
d = json.loads(p.stdout)
check([g["gpu"] for g in d["gpus"]] == ["rtx-4090", "h100-sxm"], "fits lists the GPUs asked for, in order")
check(all(isinstance(g["fits"], bool) and is_size(g["max_micro_batch"]) for g in d["gpus"]), "fits has fits and max")
h100 = d["gpus"][1]
check(h100["fits"] and h100["max_micro_batch"] >= 32, "GR00T at batch 32 fits an H100")
p = run("fits", gr00t, "--gpus", "rtx-9999")
check(p.returncode == 2 and "rtx-9999" in p.stderr, "unknown GPU in --gpus exits 2")
p = run("fits", gr00t, "--json")
check(len(json.loads(p.stdout)["gpus"]) >= 25, "fits checks every catalog GPU by default")

# knobs
p = run("knobs", os.path.join(EXAMPLES, "llama-3.1-8b-lora-4090.json"), "--json")
d = json.loads(p.stdout)
saved = [k["saved"] for k in d["knobs"]]
check(len(saved) >= 4 and saved == sorted(saved, reverse=True), "knobs are sorted, best first")
check(all(k["total_after"] + k["saved"] == d["total"] for k in d["knobs"]), "each knob's saving adds up")
check(all(k["cost"] and k["source"] and k["speed"] > 0 for k in d["knobs"]), "each knob has a cost and a source")

# catalogs
p = run("models", "--json")
d = json.loads(p.stdout)
check(len(d["entries"]) >= 30 and all(e.get("source") for e in d["entries"]), "models --json: 30+ entries with sources")
p = run("gpus", "--json")
d = json.loads(p.stdout)
check(len(d["entries"]) >= 25 and all(e.get("source") for e in d["entries"]), "gpus --json: 25+ entries with sources")
check(all(e.get("price_as_of") for e in d["entries"] if e.get("price_usd") is not None), "GPU prices are dated")
check("GiB" in run("gpus").stdout, "gpus table prints its unit")

# export: every example, bucket chart and curve, in PNG, SVG and PDF
with tempfile.TemporaryDirectory() as tmp:
    for path in examples:
        stem = os.path.splitext(os.path.basename(path))[0]
        for chart in ("buckets", "curve"):
            for fmt in ("png", "svg", "pdf"):
                out = os.path.join(tmp, f"{stem}-{chart}.{fmt}")
                p = run("export", path, "--chart", chart, "-o", out, "--width", "640", "--height", "400")
                ok = p.returncode == 0 and os.path.exists(out)
                if ok:
                    with open(out, "rb") as f:
                        head = f.read(8)
                    ok = head.startswith({"png": b"\x89PNG", "svg": b"<?xml", "pdf": b"%PDF"}[fmt])
                check(ok, f"{stem}: export --chart {chart} as {fmt} ({p.stderr.strip()})")
    out = os.path.join(tmp, "tree.svg")
    p = run("export", gr00t, "--chart", "tree", "-o", out, "--theme", "dark")
    check(p.returncode == 0 and "<desc" in open(out).read(), "export --chart tree as SVG with a description")
    out = os.path.join(tmp, "hidpi.png")
    p = run("export", gr00t, "--chart", "buckets", "-o", out, "--width", "400", "--height", "300", "--scale", "2")
    with open(out, "rb") as f:
        ihdr = f.read(24)
    check(int.from_bytes(ihdr[16:20], "big") == 800 and int.from_bytes(ihdr[20:24], "big") == 600,
          "--scale 2 doubles the PNG's pixels")
    out = os.path.join(tmp, "chart.out")
    p = run("export", gr00t, "--chart", "buckets", "-o", out, "--format", "svg", "--theme", "print")
    check(p.returncode == 0 and open(out).read().startswith("<?xml"), "--format overrides the file name")
    p = run("export", gr00t, "--chart", "pie", "-o", os.path.join(tmp, "x.png"))
    check(p.returncode == 2 and "--chart" in p.stderr, "unknown chart exits 2")
    p = run("export", gr00t, "--chart", "buckets", "-o", os.path.join(tmp, "x.bmp"))
    check(p.returncode == 2, "unknown format exits 2")
    p = run("export", gr00t, "--chart", "buckets", "-o", os.path.join(tmp, "no", "such", "dir.png"))
    check(p.returncode == 1 and "dir.png" in p.stderr, "unwritable output exits 1 naming it")
    report = os.path.join(tmp, "report.pdf")
    p = run("report", gr00t, "-o", report)
    check(p.returncode == 0 and open(report, "rb").read(5) == b"%PDF-", f"report writes a PDF ({p.stderr.strip()})")

# measure: SCENARIO.md's `measure --json` shape for every fixture, the
# seed's two-point fit, the scenario comparison, bad files exit 2 naming
# file:line:col, and measured points on the exported curve.
MEASURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "measure")
for name in sorted(os.listdir(MEASURE)):
    path = os.path.join(MEASURE, name)
    if not os.path.isfile(path):
        continue
    p = run("measure", path, "--json")
    check(p.returncode == 0, f"measure {name} exits 0 ({p.stderr.strip()})")
    if p.returncode:
        continue
    d = json.loads(p.stdout)
    check(d.get("headroom_measurement") == 1 and isinstance(d.get("format"), str), f"measure {name}: header")
    check(len(d["series"]) >= 1, f"measure {name}: at least one series")
    for s in d["series"]:
        check(s["metric"] in ("allocated", "reserved", "device_used"), f"measure {name}: metric")
        check(is_size(s["peak"]) and s["peak"] == max(q["bytes"] for q in s["points"]), f"measure {name}: peak is the largest point")
        for q in s["points"]:
            check(is_size(q["bytes"]) and "batch" in q and "t" in q, f"measure {name}: point shape")
            check((q["batch"] is None) != (q["t"] is None) or (q["batch"] is None and q["t"] is None),
                  f"measure {name}: a point has a batch or a time, not both")
    f = d["fit"]
    check(f is None or (isinstance(f["floor"], int) and isinstance(f["per_sample"], int) and 0 <= f["r2"] <= 1),
          f"measure {name}: fit shape")
p = run("measure", os.path.join(MEASURE, "seed-two-point.csv"), "--json", env={"LC_ALL": "de_DE.UTF-8"})
d = json.loads(p.stdout)
check(d["fit"]["floor"] == 7600000000 and d["fit"]["per_sample"] == 900000000 and d["fit"]["r2"] == 1.0,
      "measure: the seed's (2, 9.4 GB), (8, 14.8 GB) give 7.6 GB + 0.90 GB·b, under de_DE too")
p = run("measure", os.path.join(MEASURE, "nvidia-smi.csv"), "--json")
d = json.loads(p.stdout)
check(d["format"] == "nvidia-smi" and d["fit"] is None and len(d["series"]) == 2
      and d["series"][0]["name"] == "GPU 0 (NVIDIA A100-SXM4-80GB)" and d["series"][0]["peak"] == 61234 * 1024 * 1024,
      "measure: nvidia-smi gives a series per GPU, MiB binary, no fit")
p = run("measure", os.path.join(MEASURE, "semicolon-decimal-comma.csv"), "--json",
        "--batch-column", "Batch", "--memory-column", "Step time (s)", "--unit", "GB", "--delimiter", ";")
d = json.loads(p.stdout) if p.returncode == 0 else {}
check(p.returncode == 0 and d["series"][0]["points"][0]["bytes"] == 410000000,
      f"measure: the mapping options pick columns and units ({p.stderr.strip()})")
p = run("measure", os.path.join(MEASURE, "probe-torch.csv"), "--json", "--scenario",
        os.path.join(EXAMPLES, "smolvla-4090.json"), "--gpus", "rtx-4090,a100-80gb")
d = json.loads(p.stdout) if p.returncode == 0 else {}
c = d.get("comparison", {})
check(p.returncode == 0 and len(c.get("points", [])) == 6 and len(c.get("gpus", [])) == 2
      and c["uncalibrated"]["mean_relative_error"] > 0 and c["calibration"]["activation_scale"] > 0,
      f"measure --scenario compares ({p.stderr.strip()})")
# The probe ran bf16-mixed; the example is fp32: said, and not calibrated.
check(p.returncode == 0 and c["match"]["matches"] is False and c["match"]["precision"]["state"] == "different"
      and "another setup" in c["match"]["summary"] and c["calibration"]["applied"] is False
      and all(g["calibrated_max_micro_batch"] is None for g in c["gpus"]),
      "measure --scenario: a measurement of another precision is said and does not calibrate")
p = run("measure", os.path.join(MEASURE, "probe-torch.csv"), "--scenario",
        os.path.join(EXAMPLES, "smolvla-4090.json"))
check(p.returncode == 0 and "✗ Measured on another setup: precision bf16-mixed" in p.stdout,
      "measure --scenario prints the mismatch")
p = run("measure", os.path.join(MEASURE, "probe-torch.csv"), "--json", "--scenario",
        os.path.join(EXAMPLES, "smolvla-4090.json"), "--set", "compute=bf16-mixed", "--gpus", "rtx-4090,a100-80gb")
d = json.loads(p.stdout) if p.returncode == 0 else {}
c = d.get("comparison", {})
check(p.returncode == 0 and c["match"]["matches"] is True and c["calibration"]["applied"] is True
      and all(is_size(g["calibrated_max_micro_batch"]) for g in c["gpus"]),
      f"measure --scenario: the same setup calibrates ({p.stderr.strip()})")
p = run("measure", os.path.join(MEASURE, "probe-seq.csv"), "--scenario",
        os.path.join(EXAMPLES, "dreamerv3-5090d.json"))
check(p.returncode == 2 and "another setup: framework torch" in p.stderr,
      f"measure --scenario: nothing to compare still says the setup differs ({p.stderr.strip()})")
check(d.get("fragmentation", {}).get("bytes") == 13025411072 - 11388502016, "measure: fragmentation is the largest reserved-allocated gap")
BAD = os.path.join(MEASURE, "bad")
for name in ("not-a-number.csv", "binary.csv", "stats-string.json", "unknown-columns.csv"):
    p = run("measure", os.path.join(BAD, name))
    check(p.returncode == 2 and re.search(re.escape(name) + r":\d+", p.stderr), f"measure bad/{name} exits 2 naming file:line")
check(run("measure", os.path.join(MEASURE, "no-such-file.csv")).returncode == 2, "measure: a missing file exits 2")
check(run("measure", os.path.join(MEASURE, "tab.tsv"), "--unit", "parsecs").returncode == 2, "measure: unknown --unit exits 2")
with tempfile.TemporaryDirectory() as tmp:
    smol = os.path.join(EXAMPLES, "smolvla-4090.json")
    for name in ("probe-torch.csv", "nvidia-smi.csv"):
        for fmt in ("png", "svg"):
            out = os.path.join(tmp, f"m.{fmt}")
            p = run("export", smol, "--chart", "curve", "-o", out, "--measurements", os.path.join(MEASURE, name))
            check(p.returncode == 0 and os.path.getsize(out) > 0, f"export --measurements {name} as {fmt} ({p.stderr.strip()})")
    svg = open(os.path.join(tmp, "m.svg")).read()
    check("measured" in svg, "export --measurements: the legend names the measurement")
    p = run("export", smol, "--chart", "curve", "-o", os.path.join(tmp, "x.png"), "--measurements", os.path.join(BAD, "binary.csv"))
    check(p.returncode == 2 and "binary.csv:" in p.stderr, "export --measurements with a bad file exits 2")

# usage
check(run("frobnicate").returncode == 2, "unknown command exits 2")
check(run("--help").returncode == 0, "--help exits 0")
check(run("estimate", "--no-such-option", examples[0]).returncode == 2, "unknown option exits 2")
check(run("estimate").returncode == 2, "missing scenario exits 2")

print(f"{checks - len(failures)}/{checks} checks passed")
sys.exit(1 if failures else 0)
