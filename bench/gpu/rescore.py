#!/usr/bin/env python3
"""Scores `warpsmith tune`'s predictions against stored GPU ground truth, without a GPU.

    python3 bench/gpu/rescore.py bench/results/h100-DATE.json TUNE_DIR [--json OUT]

TUNE_DIR is a `bench/tune/table.sh ARCH DIR` folder (one `--emit-variants` folder per kernel,
made by the warpsmith under test). For every kernel in both, each variant's cubin is matched to
the one timed on the GPU by SHA-256 (a variant whose cubin differs is left out and named: ptxas
or warpsmith changed it since the measurement); the predicted choice is the report's; the
verdicts are time_variants.py's (choice within 5 % of the best measured variant, geomean speed-up
of the choice over ptxas alone). Also prints, per kernel, Spearman's rank correlation between
predicted and measured times over the matched variants, and the ratio predicted / measured for
ptxas alone. This is how a model change is judged against the hardware between leases.
"""

import argparse
import hashlib
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import time_variants  # noqa: E402


def ranks(xs):
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    r = [0.0] * len(xs)
    for pos, i in enumerate(order):
        r[i] = float(pos)
    return r


def spearman(a, b):
    if len(a) < 3:
        return None
    ra, rb = ranks(a), ranks(b)
    n = len(a)
    d2 = sum((x - y) ** 2 for x, y in zip(ra, rb))
    return 1 - 6 * d2 / (n * (n * n - 1))


def fastest(rep, field):
    """tune's choice rule on one predictor's times: the fastest usable variant, a variant within
    1 % of it and listed earlier (less invasive: ptxas, .maxnreg, pragma, rewrites) winning."""
    usable = [v for v in rep["variants"] if not v.get("error") and v.get(field) is not None]
    if not usable:
        return None
    best = min(v[field] for v in usable)
    return next(v["name"] for v in usable if v[field] <= best * 1.01)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results")
    ap.add_argument("tune_dir")
    ap.add_argument("--json")
    ap.add_argument("--report", default="report.json",
                    help="the report file name in each kernel folder (bench/cycle_model.rs "
                         "writes report.cycle-model.json)")
    ap.add_argument("--field", default="predicted_us",
                    help="the prediction to score: predicted_us (the report's predictor and its "
                         "choice, default), analytic_us or cycle_us (that predictor's times; the "
                         "choice is then the fastest usable variant, ties within 1 %% going to "
                         "the first listed, as tune breaks them)")
    a = ap.parse_args()
    truth = json.load(open(a.results))
    kernels, lines = {}, []
    for name, t in sorted(truth["kernels"].items()):
        if t.get("group") != "tune":
            continue
        kernel = name.split("__", 1)[1]
        d = os.path.join(a.tune_dir, kernel)
        rep_path = os.path.join(d, a.report)
        if not os.path.isfile(rep_path):
            lines.append("%s: no report in %s" % (kernel, d))
            continue
        rep = json.load(open(rep_path))
        measured, predicted, changed = {}, {}, []
        for v in rep["variants"]:
            us = t["measured_us"].get(v["name"])
            path = os.path.join(d, v["name"] + ".cubin")
            if not isinstance(us, (int, float)) or not os.path.isfile(path):
                continue
            sha = hashlib.sha256(open(path, "rb").read()).hexdigest()
            if t.get("sha256", {}).get(v["name"]) not in (None, sha):
                changed.append(v["name"])
                continue
            measured[v["name"]] = us
            if v.get(a.field) is not None:
                predicted[v["name"]] = v[a.field]
        if a.field == "predicted_us":
            choice = next((v["name"] for v in rep["variants"] if v["chosen"]), None)
        else:
            choice = fastest(rep, a.field)
        kernels[kernel] = {"measured_us": measured, "predicted_choice": choice}
        if t.get("rounds_us"):
            kernels[kernel]["rounds_us"] = {v: r for v, r in t["rounds_us"].items() if v in measured}
        both = [v for v in measured if v in predicted]
        rho = spearman([predicted[v] for v in both], [measured[v] for v in both])
        ratio = predicted.get("ptxas", 0) / measured["ptxas"] if "ptxas" in measured else None
        lines.append("%-26s choice %-18s best %-18s rho %s  ptxas predicted/measured %s%s" % (
            kernel, choice, min(measured, key=measured.get) if measured else "-",
            "%.2f" % rho if rho is not None else "-", "%.2f" % ratio if ratio else "-",
            "  (cubins changed since measured: %s)" % ", ".join(changed) if changed else ""))
    summary = time_variants.summarise(kernels)
    for k, v in kernels.items():
        lines.append("  %-24s within 5%%: %s%s" % (
            k, v.get("choice_within_5pct"),
            "  (paired by round: %s, best %s)" % (v["choice_within_5pct_paired"], v["best_paired"])
            if "choice_within_5pct_paired" in v else ""))
    print("\n".join(lines))
    print(json.dumps(summary))
    if a.json:
        with open(a.json, "w") as fh:
            json.dump({"kernels": kernels, "summary": summary}, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
