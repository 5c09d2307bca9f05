#!/usr/bin/env python3
"""Precision of warpsmith's affine divergence analysis against LLVM's own UniformityAnalysis.

Compiles every bench/kernels/*.cu to NVPTX LLVM IR with clang-22 (the command line of
scripts/compile-kernels.sh plus -emit-llvm), runs `opt -passes='print<uniformity>'` and
`opt -load-pass-plugin=target/debug/libwarpsmith.so -passes='print<affine-divergence>'` on the
same IR, and compares every argument and value-producing instruction:

  - values LLVM calls divergent that warpsmith proves uniform / affine (the gain);
  - values LLVM calls uniform that warpsmith calls divergent (each listed: the target is none).

Usage: bench/divergence/precision.py [--levels O3,O0] [--assume-1d] [--markdown]
Needs: cargo build (the plugin), clang-22 and opt-22 (from /usr/lib/llvm-22/bin or PATH).
"""

import argparse
import collections
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LLVM_BIN = "/usr/lib/llvm-22/bin"


def tool(name, alt):
    p = os.path.join(LLVM_BIN, name)
    if os.access(p, os.X_OK):
        return p
    return shutil.which(alt) or shutil.which(name)


CLANG = tool("clang", "clang-22")
OPT = tool("opt", "opt-22")
PLUGIN = os.environ.get("WARPSMITH_PLUGIN", os.path.join(ROOT, "target", "debug", "libwarpsmith.so"))


def compile_ir(src, level, out):
    cmd = [CLANG, "-x", "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib",
           "--cuda-gpu-arch=sm_80", "--cuda-feature=+ptx80", "-" + level, "-emit-llvm", "-S",
           "-include", os.path.join(ROOT, "bench", "kernels", "prelude.h"), src, "-o", out]
    subprocess.run(cmd, check=True)


def run_opt(ll, passes, extra=()):
    cmd = [OPT, "-disable-output", ll, "-passes=" + passes] + list(extra)
    r = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return r.stderr


def parse_uniformity(text):
    """{function: {value text: divergent?}} for arguments and value-producing instructions."""
    res = {}
    fn = None
    section = None
    div_args = set()
    for line in text.splitlines():
        m = re.match(r"UniformityInfo for function '(.*)':", line)
        if m:
            fn = m.group(1)
            res[fn] = {}
            section = None
            continue
        if fn is None:
            continue
        if line.startswith("DIVERGENT ARGUMENTS:"):
            section = "args"
            continue
        if line.startswith("BLOCK ") or line.startswith("DEFINITIONS"):
            section = "defs"
            continue
        if line.startswith("TERMINATORS") or line.startswith("END BLOCK"):
            section = None
            continue
        if section == "args":
            m = re.match(r"\s+DIVERGENT: (.*)", line)
            if m:
                res[fn]["arg " + m.group(1).strip()] = True
            continue
        if section == "defs":
            div = line.lstrip().startswith("DIVERGENT:")
            inst = line.split("DIVERGENT:", 1)[1] if div else line
            inst = inst.strip()
            if inst.startswith("%"):
                res[fn][inst] = div
    return res


CLASS_RE = re.compile(r"^(undefined|divergent|constant value=-?\d+|uniform scope=\w+|"
                      r"constant-affine coef=-?\d+ base=-?\d+|affine coef=-?\d+ scope=\w+): (.*)$")


def parse_affine(text):
    """{function: {value text: class}} and {function: [argument texts]}."""
    res = {}
    args = {}
    fn = None
    in_body = False
    for line in text.splitlines():
        m = re.match(r"Affine divergence for function '(.*?)'", line)
        if m:
            fn = m.group(1)
            res[fn] = {}
            args[fn] = []
            in_body = False
            continue
        if fn is None:
            continue
        if line.startswith("block "):
            in_body = True
            continue
        m = CLASS_RE.match(line)
        if not m:
            continue
        cls, what = m.group(1), m.group(2).strip()
        if not in_body:
            args[fn].append(what)
            res[fn]["arg " + what] = cls
        elif what.startswith("%"):
            res[fn][what] = cls
    return res, args


def kind(cls):
    if cls.startswith("constant value") or cls.startswith("uniform"):
        return "uniform"
    if "affine" in cls:
        return "affine"
    return cls  # divergent / undefined


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--levels", default="O3,O0")
    ap.add_argument("--assume-1d", action="store_true")
    ap.add_argument("--markdown", action="store_true")
    a = ap.parse_args()
    if not (CLANG and OPT and os.path.exists(PLUGIN)):
        sys.exit("needs clang-22, opt-22 and %s (cargo build)" % PLUGIN)
    extra = ["-affine-divergence-assume-1d"] if a.assume_1d else []
    rows = []
    mismatches = []
    totals = collections.Counter()
    with tempfile.TemporaryDirectory() as tmp:
        for level in a.levels.split(","):
            for src in sorted(glob.glob(os.path.join(ROOT, "bench", "kernels", "*.cu"))):
                name = os.path.basename(src)[:-3]
                ll = os.path.join(tmp, "%s.%s.ll" % (name, level))
                compile_ir(src, level, ll)
                uni = parse_uniformity(run_opt(ll, "print<uniformity>"))
                aff, _ = parse_affine(run_opt(ll, "print<affine-divergence>",
                                              ["-load-pass-plugin=" + PLUGIN] + extra))
                c = collections.Counter()
                for fn, vals in uni.items():
                    mine = aff.get(fn, {})
                    # Arguments LLVM does not list are uniform.
                    for what, cls in mine.items():
                        if what.startswith("arg ") and what not in vals:
                            vals[what] = False
                    for what, div in vals.items():
                        cls = mine.get(what)
                        if cls is None:
                            c["unmatched"] += 1
                            continue
                        k = kind(cls)
                        c["values"] += 1
                        if div:
                            c["llvm_div"] += 1
                            c["llvm_div_" + k] += 1
                        else:
                            c["llvm_uni"] += 1
                            if k == "divergent":
                                c["llvm_uni_ours_div"] += 1
                                mismatches.append((name, level, fn, what))
                rows.append((name, level, c))
                totals.update(c)
    hdr = ("| kernels | level | values | LLVM divergent | → we: uniform | → we: affine | "
           "→ we: divergent | LLVM uniform | → we: divergent |")
    print(hdr)
    print("|" + "---|" * 9)
    for name, level, c in rows + [("**total**", "", totals)]:
        print("| %s | %s | %d | %d | %d | %d | %d | %d | %d |" % (
            name, level, c["values"], c["llvm_div"], c["llvm_div_uniform"],
            c["llvm_div_affine"], c["llvm_div_divergent"], c["llvm_uni"],
            c["llvm_uni_ours_div"]))
    if totals["unmatched"]:
        print("\n(%d values could not be matched between the two printers)" % totals["unmatched"])
    print("\nValues LLVM calls uniform that warpsmith calls divergent: %d" % len(mismatches))
    for name, level, fn, what in mismatches:
        print("- %s.%s `%s`: `%s`" % (name, level, fn, what))


if __name__ == "__main__":
    main()
