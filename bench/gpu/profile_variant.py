#!/usr/bin/env python3
"""Launches one variant of one prepared case (bench/gpu/prepare.py) a few times, for a profiler.

    profile_variant.py CASE_DIR VARIANT [--launches N]

Nsight Compute attaches to this process (bench/gpu/h100_run.sh's PROFILE list):

    ncu --set full -k KERNEL -s 1 -c 1 python3 bench/gpu/profile_variant.py CASE_DIR spill-80

The variant runs on the case's timing launch (its time spec, else its spec) with the same inputs
h100_checks.py times it on; the first launch warms the caches and the clocks, the profiler is told
to skip it (`-s 1`). Nothing is compared here: h100_checks.py proves every variant equal to ptxas
alone in the same lease. Exit status 2 without a GPU.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import crosscheck  # noqa: E402
import h100_checks  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("case")
    ap.add_argument("variant")
    ap.add_argument("--launches", type=int, default=2)
    a = ap.parse_args()
    c = json.load(open(os.path.join(a.case, "case.json")))
    if a.variant not in c["variants"]:
        print("profile_variant: %s has no variant %s (it has %s)"
              % (a.case, a.variant, ", ".join(sorted(c["variants"]))), file=sys.stderr)
        return 1
    spec = json.load(open(os.path.join(a.case, c.get("time_spec") or c["spec"])))
    inputs = h100_checks.spec_inputs(spec, bool(spec.get("numpy")))
    try:
        gpu = h100_checks.Gpu()
    except RuntimeError as e:
        print("profile_variant: %s" % e, file=sys.stderr)
        return 2
    f = gpu.load(os.path.join(a.case, c["variants"][a.variant]), c["kernel"],
                 crosscheck.globals_bytes(spec))
    params, _bufs = gpu.prepare(f, spec, inputs)
    for _ in range(a.launches):
        gpu.launch(f, spec, params)
    gpu.cuda.check(gpu.lib.cuCtxSynchronize(), "kernel execution")
    print("profile_variant: %s %s launched %d times" % (c["name"], a.variant, a.launches))
    return 0


if __name__ == "__main__":
    sys.exit(main())
