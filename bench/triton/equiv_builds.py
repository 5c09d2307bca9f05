#!/usr/bin/env python3
"""Runs every kernel the drop-in changed against ptxas's own build on the SASS emulator (issue 12:
"every rewrite is proved on the emulator").

bench/triton/never_worse.py leaves, for each architecture, ptxas's cubins in OUT/ARCH/ptxas and the
drop-in's in OUT/ARCH/warpsmith (spill, shuffle, then `demote`, or `demote` alone on the original
where that ranked higher). For each row of OUT/never_worse.json whose two cubins differ this runs

    warpsmith equiv --launch SPECS/ARCH/CASE.spec.json OUT/ARCH/ptxas/CASE.cubin OUT/ARCH/warpsmith/CASE.cubin

(both on the SASS emulator, the same inputs, every output byte compared; where the drop-in grew
the build's launch, its record's larger dynamic size, `--b-dynamic-smem`). The launch specs carry
the kernel's own grid, block and dynamic shared memory: tests/emu_triton.rs writes them for the
suite (WARPSMITH_WRITE_TRITON_SPECS=1), tests/triton/compile_suite.py for Liger-Kernel; SPECS
defaults to OUT (each case's spec beside ptxas's build).

    python3 bench/triton/equiv_builds.py --out OUT [--specs DIR] [--warpsmith target/debug/warpsmith]

Prints one line per kernel and exits 1 when a pair differs, a spec is missing or `equiv` fails
(2 for a set-up error).
"""

import argparse
import filecmp
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def pairs(out):
    """(arch, case, ptxas cubin, warpsmith cubin, dynamic bytes the warpsmith build's launch
    adds) of every row whose two builds differ."""
    with open(os.path.join(out, "never_worse.json")) as f:
        report = json.load(f)
    for row in report["rows"]:
        if "after" not in row:
            continue
        arch, case = row["arch"], row["case"]
        before = os.path.join(out, arch, "ptxas", f"{case}.cubin")
        after = os.path.join(out, arch, "warpsmith", f"{case}.cubin")
        if not filecmp.cmp(before, after, shallow=False):
            added = row["after"].get("dynamic_smem", 0) - row["before"].get("dynamic_smem", 0)
            yield arch, case, before, after, added


def spec_path(specs, out, arch, case):
    if specs:
        return os.path.join(specs, arch, f"{case}.spec.json")
    return os.path.join(out, arch, "ptxas", f"{case}.spec.json")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="never_worse.py's --out folder")
    ap.add_argument("--specs", help="folder with ARCH/CASE.spec.json (default: OUT/ARCH/ptxas)")
    ap.add_argument("--warpsmith", default=os.path.join(ROOT, "target", "debug", "warpsmith"))
    opts = ap.parse_args()
    if not os.path.exists(os.path.join(opts.out, "never_worse.json")):
        print(f"equiv_builds: no never_worse.json in {opts.out}", file=sys.stderr)
        return 2
    failed = 0
    checked = 0
    for arch, case, before, after, added in pairs(opts.out):
        spec = spec_path(opts.specs, opts.out, arch, case)
        if not os.path.exists(spec):
            print(f"  {arch} {case:34} FAIL: no launch spec {spec}")
            failed += 1
            continue
        start = time.monotonic()
        cmd = [opts.warpsmith, "equiv", "--launch", spec, before, after]
        if added:
            # The drop-in grew this build's launch (`demote --grow-dynamic`): run it so.
            with open(spec) as f:
                grown = json.load(f).get("dynamic_smem", 0) + added
            cmd += ["--b-dynamic-smem", str(grown)]
        p = subprocess.run(cmd, capture_output=True, text=True)
        last = (p.stdout.strip().splitlines() or p.stderr.strip().splitlines() or ["no output"])[-1]
        took = time.monotonic() - start
        if p.returncode == 0:
            print(f"  {arch} {case:34} {last} ({took:.1f} s)")
            checked += 1
        else:
            detail = (p.stdout + p.stderr).strip().replace("\n", " | ")
            print(f"  {arch} {case:34} FAIL (exit {p.returncode}): {detail}")
            failed += 1
    verdict = "FAIL" if failed else "PASS"
    print(f"equiv_builds: {verdict}: {checked} changed builds equivalent to ptxas's, "
          f"{failed} failed ({opts.out})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
