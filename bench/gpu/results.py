#!/usr/bin/env python3
"""Turns one lease's GPU results (bench/gpu/h100_run.sh: res.tgz, gpu.txt) into the committed
table and the docs' markdown.

    python3 bench/gpu/results.py RESULTS_DIR [--date YYYY-MM-DD] [--out bench/results/h100-DATE.json]

RESULTS_DIR holds res.tgz (or an unpacked res/) and gpu.txt. Writes the issue-17 format

    {"gpu": "...", "kernels": {name: {"measured_us": {variant: us | "why not"},
                                      "predicted_choice": variant | null, ...}},
     "summary": {...}, "emulators": {...}, "rewrites": {...}}

`kernels` has the `warpsmith tune` cases (bench kernels: predicted choice, predictions, measured
times of the report's variants; ptx-jit, the driver's JIT of the same PTX, is listed apart) and
the Triton and shuffle cases (no prediction: ptxas as Triton ran it, demote where it applies, on the large
timing launch). `summary` is time_variants.py's: how often the predicted choice is within 5 % of
the best measured variant, and the geomean speed-up of the choice over ptxas alone. `emulators`:
per case, the SASS and PTX emulators' outputs against the GPU's. `rewrites`: per rewriting
variant (spill, shuffle, demote), whether the GPU computed the same bytes as ptxas alone.
Prints the markdown tables docs/gpu.md shows.
"""

import argparse
import datetime
import json
import os
import sys
import tarfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import time_variants  # noqa: E402  (summarise: the issue's verdicts)

REWRITE_PREFIXES = ("spill", "shuffle", "demote", "regdem", "dropin")


def load(results_dir):
    res = os.path.join(results_dir, "res")
    if not os.path.isdir(res):
        with tarfile.open(os.path.join(results_dir, "res.tgz")) as t:
            t.extractall(results_dir, filter="data")
    return json.load(open(os.path.join(res, "summary.json")))["cases"]


def measured(case):
    out = {}
    for v, e in case.get("variants", {}).items():
        if "us" in e:
            out[v] = round(e["us"], 3)
        elif "error" in e:
            out[v] = "error: " + e["error"][:160]
        elif e.get("equal_to_reference") is False:
            out[v] = "differs from ptxas alone on the GPU: " + e.get("difference", "")[:160]
    return out


def kernel_entry(case):
    m = measured(case)
    jit = m.pop("ptx-jit", None)
    entry = {"group": case.get("group"), "measured_us": m,
             "predicted_choice": case.get("predicted_choice"),
             "ptxas_again_us": round(case["variants"]["ptxas"]["us_again"], 3)
             if "us_again" in case.get("variants", {}).get("ptxas", {}) else None,
             "ptx_jit_us": jit, "launch": case.get("time_launch"),
             "sha256": {v: e["sha256"] for v, e in case.get("variants", {}).items() if "sha256" in e}}
    if case.get("predicted_us"):
        entry["predicted_us"] = case["predicted_us"]
    rounds = {v: e["us_rounds"] for v, e in case.get("variants", {}).items() if "us_rounds" in e}
    if rounds:
        # Interleaved timing (h100_checks.py since 30 Nov 2026): each round's median, so the
        # drift within the case is on record next to the differences.
        entry["rounds_us"] = rounds
    return entry


def emulator_rows(cases):
    rows = {}
    for c in cases:
        if "failed" in c:
            rows[c["name"]] = {"failed": c["failed"]}
            continue
        rows[c["name"]] = dict(c.get("emu", {}))
    return rows


def rewrite_rows(cases):
    rows = {}
    for c in cases:
        for v, e in c.get("variants", {}).items():
            if v.startswith(REWRITE_PREFIXES):
                rows["%s/%s" % (c["name"], v)] = (
                    "equal" if e.get("equal_to_reference") else
                    e.get("error") or e.get("difference") or "differs")
    return rows


def markdown(doc):
    lines = ["| case | SASS emulator vs GPU | PTX emulator vs GPU (ptxas build) | PTX emulator vs GPU (driver JIT) |",
             "|---|---|---|---|"]
    for name, r in sorted(doc["emulators"].items()):
        if "failed" in r:
            lines.append("| %s | failed: %s | | |" % (name, r["failed"][:80]))
            continue
        lines.append("| %s | %s | %s | %s |" % (name, r.get("sass", "-"), r.get("ptx", "-"), r.get("ptx-vs-jit", "-")))
    lines += ["", "| kernel | ptxas µs (again) | best measured | predicted choice | choice µs | within 5 % |",
              "|---|---|---|---|---|---|"]
    for name, k in sorted(doc["kernels"].items()):
        m = {v: t for v, t in k["measured_us"].items() if isinstance(t, (int, float))}
        if "ptxas" not in m:
            lines.append("| %s | not timed | | | | |" % name)
            continue
        best = min(m, key=m.get)
        ch = k.get("predicted_choice")
        lines.append("| %s | %.1f (%s) | %s %.1f | %s | %s | %s |" % (
            name, m["ptxas"], "%.1f" % k["ptxas_again_us"] if k.get("ptxas_again_us") else "-",
            best, m[best], ch or "-", "%.1f" % m[ch] if ch in m else "-",
            {True: "yes", False: "**no**"}.get(k.get("choice_within_5pct"), "-")))
    lines += ["", "| rewrite | on the GPU |", "|---|---|"]
    for name, r in sorted(doc["rewrites"].items()):
        lines.append("| %s | %s |" % (name, r))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results")
    ap.add_argument("--date", default=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"))
    ap.add_argument("--out")
    ap.add_argument("--runs", type=int, help="timed launches per variant, where the results do not record it")
    ap.add_argument("--name", default="h100", help="the card, for the default output name")
    a = ap.parse_args()
    cases = load(a.results)
    gpu = open(os.path.join(a.results, "gpu.txt")).read().strip() if os.path.isfile(
        os.path.join(a.results, "gpu.txt")) else None
    kernels = {}
    for c in cases:
        if "failed" in c or c.get("group") not in ("tune", "triton", "shuffle", "regdem"):
            continue
        kernels[c["name"]] = kernel_entry(c)
    tuned = {k: v for k, v in kernels.items() if v["group"] == "tune"}
    summary = time_variants.summarise(tuned)
    doc = {"gpu": gpu, "date": a.date, "kernels": kernels, "summary": summary,
           "emulators": emulator_rows(cases), "rewrites": rewrite_rows(cases),
           "method": "bench/gpu/h100_checks.py: CUDA driver, each variant launched on the same inputs and "
                     "compared byte for byte with ptxas alone, then %s warm-up launches and the median of "
                     "%s launches each between CUDA events; ptxas alone timed first and last (ptxas_again_us)"
                     % (next((c["warmup"] for c in cases if "warmup" in c), 10),
                        next((c["runs"] for c in cases if "runs" in c), a.runs or 100))}
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = a.out or os.path.join(root, "bench", "results", "%s-%s.json" % (a.name, a.date))
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out + ".tmp", "w") as fh:
        json.dump(doc, fh, indent=1)
        fh.write("\n")
    os.replace(out + ".tmp", out)
    print(markdown(doc))
    print("\nwrote %s: %s" % (out, json.dumps(summary)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
