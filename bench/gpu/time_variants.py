#!/usr/bin/env python3
"""Times every variant `warpsmith tune` built, on a GPU, and writes the ground-truth table.

    time_variants.py DIR [DIR ...] [--out bench/results/h100-<date>.json] [--warmup 10] [--runs 100]
    time_variants.py selftest

Each DIR is a `warpsmith tune ... --launch SPEC --emit-variants DIR` folder (bench/tune/table.sh
makes one per bench kernel): NAME.cubin per variant, report.json (the predictions and the
choice) and launch.json (the spec; with predict_launch.json, from `tune --predict-launch`,
outputs are compared on launch.json and times taken on predict_launch.json). For every variant with a cubin the script loads it with the
CUDA driver (libcuda through ctypes, as bench/gpu/crosscheck.py does: no toolkit needed), builds
the arguments from the spec with crosscheck.py's generator (the emulator's bytes), runs it once on
fresh inputs and compares every buffer with ptxas alone's bytes (a variant that differs is
recorded as `differs` and gets no time), then times it: `--warmup` launches, then `--runs`
launches each bracketed by CUDA events; the median is the variant's time in µs.

The output has the issue's format,
    {"kernels": {name: {"measured_us": {variant: us}, "predicted_choice": variant}}}
plus, per kernel, `predicted_us`, `best_measured`, `choice_within_5pct` and `speedup_over_ptxas`
(measured), and a summary: how often the predicted choice is within 5 % of the best measured
variant, and the geomean speed-up of the choice over ptxas alone.

Exit status: 0 done, 2 usage error or no GPU (the message says which). Nothing is faked: without
a CUDA driver and a GPU the script stops before writing anything.
"""

import argparse
import datetime
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import h100_checks  # noqa: E402  (same folder: the driver wrapper, launches and timing)


def median(xs):
    s = sorted(xs)
    n = len(s)
    if n == 0:
        raise ValueError("median of no values")
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2.0


def geomean(xs):
    xs = [x for x in xs if x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def paired(measured, rounds, ref="ptxas"):
    """Each variant's time paired with the reference's round by round (interleaved timing keeps
    every variant's per-round medians): the median over the rounds of variant / reference, times
    the reference's own median. A drift of the clock that every variant of a round shares
    cancels; `None` without rounds for the reference."""
    base = measured.get(ref)
    r0 = rounds.get(ref) if rounds else None
    if not isinstance(base, (int, float)) or not r0:
        return None
    out = {}
    for v, rv in rounds.items():
        if v in measured and isinstance(measured[v], (int, float)) and len(rv) == len(r0):
            out[v] = median([a / b for a, b in zip(rv, r0)]) * base
    return out


def summarise(kernels):
    """Adds the per-kernel verdicts and returns the summary (pure: unit-tested by `selftest`).
    Where the kernel has per-round medians (`rounds_us`), the same verdict on the paired times
    ([`paired`]) is added next to it (`choice_within_5pct_paired`): the issue's verdict stays the
    plain medians'; the paired one shows which verdicts a drift within the run can flip."""
    within, speedups, within_paired = [], [], []
    for k in kernels.values():
        m = {v: t for v, t in k["measured_us"].items() if isinstance(t, (int, float))}
        if not m:
            continue
        best = min(m, key=m.get)
        k["best_measured"] = best
        choice = k["predicted_choice"]
        if choice in m:
            ok = m[choice] <= 1.05 * m[best]
            k["choice_within_5pct"] = ok
            within.append(ok)
            if "ptxas" in m:
                k["speedup_over_ptxas"] = m["ptxas"] / m[choice]
                speedups.append(k["speedup_over_ptxas"])
        p = paired(m, k.get("rounds_us"))
        if p and choice in p:
            best_p = min(p, key=p.get)
            k["paired_us"] = {v: round(t, 3) for v, t in p.items()}
            k["best_paired"] = best_p
            k["choice_within_5pct_paired"] = p[choice] <= 1.05 * p[best_p]
            within_paired.append(k["choice_within_5pct_paired"])
    summary = {
        "kernels_timed": len(within),
        "choice_within_5pct": sum(within),
        "fraction_within_5pct": (sum(within) / len(within)) if within else None,
        "geomean_speedup_over_ptxas": geomean(speedups),
    }
    if within_paired:
        summary["kernels_paired"] = len(within_paired)
        summary["choice_within_5pct_paired"] = sum(within_paired)
    return summary


def time_dir(timer, d, warmup, runs):
    report = json.load(open(os.path.join(d, "report.json")))
    spec = json.load(open(os.path.join(d, "launch.json")))
    measured, predicted, reference = {}, {}, None
    inputs = h100_checks.spec_inputs(spec, False)
    # `tune --predict-launch`: outputs compared on launch.json, times taken on the launch the
    # predictions were made for.
    big = os.path.join(d, "predict_launch.json")
    tspec = json.load(open(big)) if os.path.isfile(big) else spec
    tinputs = h100_checks.spec_inputs(tspec, False) if tspec is not spec else inputs
    for v in report["variants"]:
        predicted[v["name"]] = v.get("predicted_us")
        path = os.path.join(d, v["name"] + ".cubin")
        if not os.path.isfile(path):
            measured[v["name"]] = "not built: " + (v.get("error") or "no cubin")
            continue
        f = timer.load(path, report["kernel"])
        outs = timer.run(f, spec, inputs)
        if reference is None:
            reference = outs
        elif outs != reference:
            measured[v["name"]] = "differs from ptxas alone on the GPU"
            continue
        measured[v["name"]] = timer.time(f, tspec, tinputs, warmup, runs)
    choice = next((v["name"] for v in report["variants"] if v["chosen"]), None)
    return report["kernel"], {"measured_us": measured, "predicted_choice": choice,
                              "predicted_us": predicted, "model": report["model"], "arch": report["arch"]}


def cmd_selftest():
    assert median([3, 1, 2]) == 2 and median([4, 1, 2, 3]) == 2.5
    ks = {"a": {"measured_us": {"ptxas": 10.0, "v": 8.0, "w": 8.3}, "predicted_choice": "w"},
          "b": {"measured_us": {"ptxas": 5.0, "v": "differs from ptxas alone on the GPU"}, "predicted_choice": "ptxas"},
          "c": {"measured_us": {"ptxas": 4.0, "v": 2.0}, "predicted_choice": "ptxas"}}
    s = summarise(ks)
    assert ks["a"]["best_measured"] == "v" and ks["a"]["choice_within_5pct"] is True
    assert ks["c"]["choice_within_5pct"] is False and ks["b"]["speedup_over_ptxas"] == 1.0
    assert s["kernels_timed"] == 3 and s["choice_within_5pct"] == 2
    assert abs(s["geomean_speedup_over_ptxas"] - (10.0 / 8.3) ** (1 / 3)) < 1e-12
    assert "kernels_paired" not in s
    # A clock drifting down through the run: ptxas, timed first in each round, reads slow in
    # the medians; round by round the choice (ptxas) is as fast as the rest.
    d = {"measured_us": {"ptxas": 12.0, "v": 11.3}, "predicted_choice": "ptxas",
         "rounds_us": {"ptxas": [12.1, 12.5, 12.4, 11.7, 9.7], "v": [12.8, 12.1, 11.2, 10.5, 10.5]}}
    s = summarise({"d": d})
    assert d["choice_within_5pct"] is False and d["choice_within_5pct_paired"] is True
    assert s["kernels_paired"] == 1 and s["choice_within_5pct_paired"] == 1
    assert paired({"ptxas": 2.0}, {"ptxas": [1.0, 2.0]}) == {"ptxas": 2.0}
    print("selftest: ok")
    return 0


def main():
    if sys.argv[1:] == ["selftest"]:
        return cmd_selftest()
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dirs", nargs="+", help="folders written by `warpsmith tune --emit-variants`")
    ap.add_argument("--out", help="default: bench/results/h100-<UTC date>.json")
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--runs", type=int, default=100)
    a = ap.parse_args()
    try:
        timer = h100_checks.Gpu()
    except RuntimeError as e:
        print("time_variants: %s; nothing was timed or written" % e, file=sys.stderr)
        return 2
    kernels = {}
    for d in a.dirs:
        name, entry = time_dir(timer, d, a.warmup, a.runs)
        kernels[name] = entry
    summary = summarise(kernels)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = a.out or os.path.join(root, "bench", "results",
                                "h100-%s.json" % datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"))
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out + ".tmp", "w") as fh:
        json.dump({"kernels": kernels, "summary": summary}, fh, indent=2)
        fh.write("\n")
    os.replace(out + ".tmp", out)
    print("wrote %s: %s" % (out, json.dumps(summary)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
