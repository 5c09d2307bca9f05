#!/usr/bin/env python3
"""`warpsmith tune` without a launch (the drop-in's `tune` pass) against stored GPU ground truth,
without a GPU.

    PYTHONPATH=.tools/triton python3 bench/gpu/no_launch.py bench/results/h200-DATE.json \
        [--triton-dir NW_OUT/sm_90/ptxas] [--out DIR] [--arch sm_90]

Tunes every kernel of the ground truth's `tune` group again the way the drop-in does, with no
launch spec (the static model; block size and dynamic shared memory given as the drop-in gets
them): the bench kernels from bench/tune/specs (compiled by clang 22 as bench/tune/table.sh
compiles them), and, with --triton-dir (a `never_worse.py` output's ptxas-alone folder: each
case's PTX and Triton metadata), the Triton kernels (`tune-triton/<case>`). Then it sets each
variant the static model predicted beside the time the GPU measured for the variant of the same
name — for the bench kernels only where the cubin is the timed one (SHA-256); the Triton cubins
timed came from another compilation of the same PTX, so there the name is the match — and prints:

- per kernel, the choice (after the never-worse guard: a choice with more local memory or lower
  occupancy than ptxas alone is put back) and its measured time against ptxas alone's and the best;
- every variant that raises occupancy without adding local memory (what the guard would let
  through): predicted gain over ptxas alone against the measured gain, how many were slower, and
  the rank correlation of the two.

docs/tune.md, "In the drop-in", shows the 4 Dec 2026 run. Needs target/release/warpsmith (or
$WARPSMITH_BIN), clang 22 and ptxas (scripts/setup.sh).
"""

import argparse
import hashlib
import json
import math
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rescore import spearman  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("WARPSMITH_BIN", os.path.join(ROOT, "target", "release", "warpsmith"))
CLANG = os.environ.get("WARPSMITH_CLANG", "/usr/lib/llvm-22/bin/clang")
SPECS = os.path.join(ROOT, "bench", "tune", "specs")


def sources():
    """Kernel name -> CUDA file (bench/tune/specs/sources.txt, else heavy.cu)."""
    out = {}
    with open(os.path.join(SPECS, "sources.txt")) as fh:
        for line in fh:
            if line.strip() and not line.startswith("#"):
                k, src = line.split()
                out[k] = src
    return out


def compile_cuda(src, arch, out):
    ptx = os.path.join(out, os.path.basename(src)[:-3] + ".ptx")
    if not os.path.isfile(ptx):
        subprocess.run([CLANG, "-x", "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib",
                        f"--cuda-gpu-arch={arch}", "--cuda-feature=+ptx80", "-O3", "-S",
                        "-include", os.path.join(ROOT, "bench", "kernels", "prelude.h"),
                        os.path.join(ROOT, src), "-o", ptx], check=True)
    return ptx


def tune(ptx, kernel, arch, threads, dynamic, out):
    """`tune` without a launch; the report, or None (the reason printed)."""
    d = os.path.join(out, kernel)
    p = subprocess.run([BIN, "tune", ptx, "--kernel", kernel, "--arch", arch,
                        "--block-size", str(threads), "--dynamic-smem", str(dynamic),
                        "--emit-variants", d, "-o", d + ".tuned.ptx"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        print(f"{kernel}: tune failed: {p.stderr.strip()[-300:]}", file=sys.stderr)
        return None
    return json.load(open(os.path.join(d, "report.json")))


def bench_jobs(truth, arch, out):
    srcs = sources()
    for name in sorted(os.listdir(SPECS)):
        if not name.endswith(".spec.json"):
            continue
        kernel = name[:-len(".spec.json")]
        if f"tune__{kernel}" not in truth:
            continue
        spec = json.load(open(os.path.join(SPECS, name)))
        threads = math.prod(spec["block"])
        ptx = compile_cuda(srcs.get(kernel, "bench/kernels/heavy.cu"), arch, out)
        yield f"tune__{kernel}", kernel, ptx, kernel, arch, threads, spec.get("dynamic_smem", 0), True


def triton_jobs(truth, triton_dir):
    for name in sorted(os.listdir(triton_dir)):
        case = name[:-len(".json")]
        meta_path = os.path.join(triton_dir, name)
        ptx = os.path.join(triton_dir, case + ".ptx")
        if not name.endswith(".json") or f"tune-triton__{case}" not in truth or not os.path.isfile(ptx):
            continue
        meta = json.load(open(meta_path))
        target = re.search(r"^\.target\s+(\w+)", open(ptx).read(), re.M).group(1)
        yield (f"tune-triton__{case}", case, ptx, meta["kernel"], target, meta["threads"],
               meta["shared"], False)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results")
    ap.add_argument("--triton-dir", help="never_worse.py OUT/sm_90/ptxas (Triton's PTX and metadata)")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "out", "no-launch"))
    ap.add_argument("--arch", default="sm_90")
    a = ap.parse_args()
    truth = json.load(open(a.results))["kernels"]
    os.makedirs(a.out, exist_ok=True)
    jobs = list(bench_jobs(truth, a.arch, a.out))
    if a.triton_dir:
        jobs += list(triton_jobs(truth, os.path.join(a.triton_dir)))
    within, speedups, raises = 0, [], []
    print("| kernel | static choice | after the guard | measured µs | ptxas alone µs | best µs | within 5 % |")
    print("|---|---|---|---|---|---|---|")
    scored = 0
    for key, folder, ptx, kernel, arch, threads, dynamic, same_cubins in jobs:
        rep = tune(ptx, kernel, arch, threads, dynamic, os.path.join(a.out, folder))
        if rep is None:
            continue
        t = truth[key]
        measured = t["measured_us"]
        d = os.path.join(a.out, folder, kernel)

        def timed(v):
            us = measured.get(v["name"])
            if us is None or not same_cubins:
                return us
            path = os.path.join(d, v["name"] + ".cubin")
            sha = hashlib.sha256(open(path, "rb").read()).hexdigest() if os.path.isfile(path) else None
            return us if t.get("sha256", {}).get(v["name"]) == sha else None

        vs = {v["name"]: v for v in rep["variants"]}
        base = vs["ptxas"]
        chosen = next(v for v in rep["variants"] if v["chosen"])
        kept = chosen
        if chosen is not base and (chosen["local_bytes"] > base["local_bytes"]
                                   or chosen["occupancy"] < base["occupancy"]):
            kept = base
        us, alone = timed(kept), timed(base)
        if us is None or alone is None:
            print(f"| {folder} | {chosen['name']} | {kept['name']} | not timed | | | |")
            continue
        best = min(measured.values())
        ok = us <= best * 1.05
        scored += 1
        within += ok
        speedups.append(alone / us)
        print(f"| {folder} | {chosen['name']} | {kept['name']} | {us:.1f} | {alone:.1f} | {best:.1f} | "
              f"{'yes' if ok else 'no'} |")
        for v in rep["variants"]:
            if v is base or v.get("error") or v.get("predicted_us") is None:
                continue
            if v["local_bytes"] > base["local_bytes"] or v["occupancy"] <= base["occupancy"] + 1e-9:
                continue
            m = timed(v)
            if m is not None:
                raises.append((folder, v["name"], base["predicted_us"] / v["predicted_us"], alone / m))
    geo = math.exp(sum(map(math.log, speedups)) / len(speedups)) if speedups else float("nan")
    print(f"\n{within} of {scored} choices within 5 % of the best measured variant; geomean "
          f"speed-up over ptxas alone {geo:.3f}")
    if raises:
        pred = [r[2] for r in raises]
        meas = [r[3] for r in raises]
        n = len(raises)
        rho = spearman(pred, meas)
        rho = float("nan") if rho is None else rho
        big = [r for r in raises if r[2] >= 1.2]
        print(f"{n} variants raise occupancy without adding local memory: predicted gain "
              f"{min(pred):.2f}-{max(pred):.2f}, measured {min(meas):.2f}-{max(meas):.2f}; "
              f"{sum(m < 1 for m in meas)} slower than ptxas alone ({sum(m < 0.95 for m in meas)} "
              f"by more than 5 %), {sum(m > 1.05 for m in meas)} faster by more than 5 %; "
              f"{sum(r[3] < 1 for r in big)} of the {len(big)} predicted 1.2x or more were slower; "
              f"rank correlation {rho:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
