#!/usr/bin/env python3
"""Both emulators on code nobody wrote for them: every kernel of the ZLUDA corpus
(`../shared/corpus/zluda-ptx/ptx/src/test/spirv_run/*.ptx`, other compilers' PTX) assembled by
ptxas for sm_80 and run with `warpsmith equiv` on its PTX (PTX emulator) and its cubin (SASS
emulator). A development check (docs/emulator.md, "The ZLUDA corpus on both emulators"), not in
the test command: the run takes a few minutes and needs the corpus beside the checkout.

Each kernel gets one CTA (64 threads where it uses warp-wide operations, 32 for tensor-core
operations, else 1), 1024 bytes of dynamic shared memory, and a 1024-byte random buffer per
pointer parameter; kernels with scalar parameters are skipped. Prints the counts by outcome and
each failure's message with the kernels that gave it.

    python3 bench/features/zluda_sass.py [--warpsmith target/release/warpsmith]
        [--ptxas .tools/bin/ptxas] [--corpus DIR] [--seeds 4] [--out /tmp/zluda-sass]
"""
import argparse
import collections
import glob
import json
import os
import re
import subprocess


def spec_for(text):
    """The launch spec of the first kernel of `text`, or why there is none."""
    m = re.search(r"\.entry\s+(\w+)\s*\(([^)]*)\)", text, re.S)
    if not m:
        return None, "no kernel"
    types = re.findall(r"\.param\s+\.(\w+)", m.group(2))
    if not types:
        return None, "no parameters"
    if any(t not in ("u64", "b64", "s64") for t in types):
        return None, "scalar parameters"
    if re.search(r"\b(mma|ldmatrix|wmma)\b", text):
        block = 32
    elif re.search(r"shfl|vote|activemask|warp|bar\.|barrier|redux|match", text):
        block = 64
    else:
        block = 1
    args = [{"buffer": {"type": "u8", "len": 1024, "init": "random"}} for _ in types]
    return {"kernel": m.group(1), "grid": [1], "block": [block], "dynamic_smem": 1024,
            "args": args}, None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--warpsmith", default="target/release/warpsmith")
    ap.add_argument("--ptxas", default=".tools/bin/ptxas")
    ap.add_argument("--corpus", default="../shared/corpus/zluda-ptx/ptx/src/test/spirv_run")
    ap.add_argument("--seeds", type=int, default=4)
    ap.add_argument("--out", default="/tmp/zluda-sass")
    args = ap.parse_args()
    files = sorted(glob.glob(os.path.join(args.corpus, "*.ptx")))
    if not files:
        raise SystemExit(f"no PTX files in {args.corpus}")
    counts = collections.Counter()
    failures = collections.defaultdict(list)
    for path in files:
        name = os.path.basename(path)[:-4]
        spec, why = spec_for(open(path).read())
        if spec is None:
            counts["skipped: " + why] += 1
            continue
        work = os.path.join(args.out, name)
        os.makedirs(work, exist_ok=True)
        spec_path = os.path.join(work, "spec.json")
        with open(spec_path, "w") as f:
            json.dump(spec, f)
        cubin = os.path.join(work, name + ".cubin")
        r = subprocess.run([args.ptxas, "-arch=sm_80", "-o", cubin, path],
                           capture_output=True, text=True)
        if r.returncode != 0:
            counts["ptxas refuses the PTX"] += 1
            continue
        r = subprocess.run([args.warpsmith, "equiv", "--seeds", str(args.seeds),
                            "--launch", spec_path, path, cubin],
                           capture_output=True, text=True, timeout=300)
        lines = (r.stdout + r.stderr).strip().splitlines()
        if r.returncode == 0:
            counts["equivalent"] += 1
            continue
        counts["different" if r.returncode == 1 else "stopped"] += 1
        key = re.sub(r"0x[0-9a-f]+|\d+", "N", lines[-1] if lines else "")[:160]
        failures[key].append(name)
    for what, n in counts.most_common():
        print(f"{n:4d}  {what}")
    for key, names in sorted(failures.items(), key=lambda kv: -len(kv[1])):
        print(f"{len(names):4d}  {key}\n      {', '.join(names)}")


if __name__ == "__main__":
    main()
