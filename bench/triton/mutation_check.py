#!/usr/bin/env python3
"""Differential check of the drop-in on kernels nobody wrote: Triton PTX with small mutations.

The suite's kernels are the ones the passes were developed on. This makes new kernels from them
that still assemble — an immediate changed (+1, -1, x2, /2, 0, 1 or a small random value), a
source operand replaced by another register of the same kind that an earlier line names — and
for each one compares

    ptxas -lineinfo -v --gpu-name=ARCH M.ptx                      (NVIDIA's build)
    warpsmith ptxas ... (WARPSMITH_PASSES=spill,shuffle,demote,    (the drop-in, with Triton's
                         WARPSMITH_SPILL_MAX_REGS=auto,             dynamic shared memory and
                         WARPSMITH_SPILL_DYNAMIC_SMEM=<shared>)     the occupancy-raising spill)

The drop-in must exit as ptxas does, never panic and never build worse than ptxas alone (the
verdict of never_worse.py: launch legality, occupancy with Triton's dynamic shared memory, then
local memory, from `cuobjdump -res-usage`); where both build and the cubins differ,
`warpsmith equiv` runs both cubins on the SASS emulator with the case's launch spec and every
output byte must match.

Mutations whose result is not defined are counted, not compared (two correct builds may differ):
- the PTX emulator refuses the kernel: an access out of bounds or misaligned, a wgmma
  descriptor that differs between lanes;
- the result changes when the kernel's shared memory starts 1 KiB later (the mutation turned a
  shared address into data, or a constant into a shared address): adding shared memory is what
  the spill pass and `demote` do, and where each array lies is ptxas's to choose.
Destinations are never renamed, and only registers an earlier line names are substituted, so
that no mutation reads a register nothing wrote (what such a read gives depends on the register
allocator).

    PYTHONPATH=.tools/triton python3 tests/triton/compile_suite.py --arch sm_80 --out /tmp/s80
    python3 bench/triton/mutation_check.py --dir /tmp/s80 --arch sm_80 [--iters 30] [--seed 1]
        [--cases softmax_8192,layer_norm_4096] [--keep DIR] [--warpsmith BIN]

Launch specs come from tests/data/triton/ARCH and tests/data/sass_triton/ARCH; `--specs` adds a
folder (`WARPSMITH_WRITE_TRITON_SPECS=1 WARPSMITH_TRITON_DIR=D cargo test --test emu_triton
triton_suite_from_environment` writes one for every case of D/sm_80 and D/sm_90); cases without
one are left out. Needs target/release/warpsmith (or $WARPSMITH_BIN) and
ptxas (scripts/setup.sh). Prints a line per mutation and a summary; exits 1 on a failure (the
mutated PTX is kept in --keep, default /tmp/warpsmith-mutations), 2 on a set-up error.
"""

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import never_worse  # noqa: E402  (the same resource verdict as the suite's never-worse check)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("WARPSMITH_BIN", os.path.join(ROOT, "target", "release", "warpsmith"))  # --warpsmith
PTXAS = os.environ.get("WARPSMITH_PTXAS", os.path.join(ROOT, ".tools", "bin", "ptxas"))
CUOBJDUMP = os.path.join(ROOT, ".tools", "bin", "cuobjdump")
SKIP = (".reg", ".param", ".loc", ".file", ".shared", ".maxnreg", ".reqntid", ".maxntid")
REG = re.compile(r"%(r|rd|f|fd|p|rs|h|hh)(\d+)\b")
IMM = re.compile(r"(?<![%\w.])(-?\d+)(?=[,;\]\s])")


def first_operand_end(line):
    """Index of the first comma outside braces: the destination ends there."""
    depth = 0
    for k, ch in enumerate(line):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == "," and depth == 0:
            return k
    return len(line)


def mutate_line(lines, i, rng):
    """One mutation of instruction line i, or None when it offers none."""
    line = lines[i]
    regs = [m for m in REG.finditer(line) if m.start() > first_operand_end(line)]
    nums = list(IMM.finditer(line))
    if nums and (not regs or rng.random() < 0.5):
        m = rng.choice(nums)
        v = int(m.group(1))
        nv = rng.choice([v + 1, v - 1, v * 2, v // 2, 0, 1, rng.randrange(-40, 300)])
        return line[: m.start(1)] + str(nv) + line[m.end(1) :]
    if regs:
        m = rng.choice(regs)
        earlier = "\n".join(lines[:i])
        kinds = sorted(set(re.findall("%" + m.group(1) + r"(\d+)\b", earlier)), key=int)
        if kinds:
            return line[: m.start(2)] + rng.choice(kinds) + line[m.end(2) :]
    return None


def mutate(text, rng):
    lines = text.split("\n")
    body = [
        i
        for i, l in enumerate(lines)
        if re.match(r"\s+(@!?%p\d+\s+)?[a-z]", l) and ";" in l and not l.strip().startswith(SKIP)
    ]
    done, want = [], rng.choice([1, 1, 2, 3])
    for _ in range(50 * want):
        if len(done) == want:
            break
        i = rng.choice(body)
        new = mutate_line(lines, i, rng)
        if new is not None and new != lines[i]:
            lines[i] = new
            done.append(i + 1)
    return "\n".join(lines), done


def run(argv, env=None, timeout=900):
    try:
        return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None


def cases(args):
    spec_dirs = [os.path.join(ROOT, "tests", "data", d, args.arch.rstrip("a")) for d in ("triton", "sass_triton")]
    spec_dirs += args.specs
    wanted = set(args.cases.split(",")) if args.cases else None
    out = []
    for name in sorted(os.listdir(args.dir)):
        if not name.endswith(".ptx"):
            continue
        case = name[:-4]
        if wanted is not None and case not in wanted:
            continue
        spec = next((os.path.join(d, case + ".spec.json") for d in spec_dirs
                     if os.path.exists(os.path.join(d, case + ".spec.json"))), None)
        meta = os.path.join(args.dir, case + ".json")
        if spec is None or not os.path.exists(meta):
            print(f"{case}: no launch spec or metadata, left out", file=sys.stderr)
            continue
        with open(meta) as f:
            out.append((case, os.path.join(args.dir, name), spec, json.load(f)))
    return out


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def outputs(folder):
    return {n: read_bytes(os.path.join(folder, n)) for n in sorted(os.listdir(folder))}


def depends_on_shared_layout(text, spec, tmp):
    """Whether the kernel computes something else when its shared memory starts 1 KiB later.

    A mutation can turn an address into data or a small constant into a shared address; the
    result then depends on where ptxas puts each shared array, which adding one (the spill
    pass's slots, `demote`'s frame) changes, as it changes the place of Triton's dynamic array.
    Such a kernel's builds may rightly differ. The PTX emulator lays out every declared array,
    so a 1 KiB one declared first shifts all the others."""
    probe = re.sub(r"^(\.address_size\s+\d+)", r"\1\n.shared .align 16 .b8 __warpsmith_layout_probe[1024];",
                   text, count=1, flags=re.M)
    src = os.path.join(tmp, "shifted.ptx")
    with open(src, "w") as f:
        f.write(probe)
    out = os.path.join(tmp, "emu-shifted")
    p = run([BIN, "emulate", "--launch", spec, "--out", out, src], timeout=600)
    return p is None or p.returncode != 0 or outputs(out) != outputs(os.path.join(tmp, "emu"))


def check_one(case, ptx, spec, meta, args, rng, tmp):
    """(outcome, detail) for one mutation of `case`."""
    with open(ptx) as f:
        text, lines = mutate(f.read(), rng)
    src = os.path.join(tmp, case + ".ptx")
    with open(src, "w") as f:
        f.write(text)
    ref, new = os.path.join(tmp, "ptxas.cubin"), os.path.join(tmp, "warpsmith.cubin")
    opts = ["-lineinfo", "-v", f"--gpu-name={args.arch}", src, "-o"]
    a = run([PTXAS] + opts + [ref])
    # `auto`: the spill pass also raises occupancy, so that its rewrite runs on these kernels
    # (none uses local memory, where the default `keep` leaves them alone).
    env = dict(os.environ, WARPSMITH_PASSES="spill,shuffle,demote", WARPSMITH_SPILL_MAX_REGS="auto",
               WARPSMITH_SPILL_DYNAMIC_SMEM=str(meta["shared"]), WARPSMITH_PTXAS=PTXAS)
    b = run([BIN, "ptxas"] + opts + [new], env=env)
    where = f"lines {lines}"
    if a is None or b is None:
        return "FAIL", f"{where}: {'ptxas' if a is None else 'the drop-in'} ran past 900 s", text
    if "panicked" in b.stderr:
        return "FAIL", f"{where}: the drop-in panicked: {b.stderr.strip()[-400:]}", text
    if a.returncode != b.returncode:
        return "FAIL", f"{where}: ptxas exits {a.returncode}, the drop-in {b.returncode}", text
    if a.returncode != 0:
        return "rejected by ptxas", where, None
    if read_bytes(ref) == read_bytes(new):
        return "unchanged", where, None
    record = {"kernel": meta["kernel"], "shared": meta["shared"], "threads": meta["threads"]}
    tools = {"cuobjdump": CUOBJDUMP, "warpsmith": BIN}
    arch = args.arch.rstrip("a")
    before, after = (never_worse.measure(record, c, arch, tools) for c in (ref, new))
    if never_worse.verdict(before, after) == "worse":
        return "FAIL", f"{where}: worse than ptxas alone: {before} -> {after}", text
    # A kernel the PTX emulator refuses has no defined result to compare (an access out of
    # bounds, a wgmma descriptor that differs between lanes): two correct builds may differ.
    p = run([BIN, "emulate", "--launch", spec, "--out", os.path.join(tmp, "emu"), src], timeout=600)
    if p is None:
        return "FAIL", f"{where}: the PTX emulator ran past 600 s", text
    if "panicked" in p.stderr:
        return "FAIL", f"{where}: the PTX emulator panicked: {p.stderr.strip()[-400:]}", text
    if p.returncode != 0:
        last = (p.stderr.strip().splitlines() or ["?"])[-1]
        return "changed, the PTX emulator refused the kernel", f"{where}: {last[:160]}", None
    if depends_on_shared_layout(text, spec, tmp):
        return "changed, the result depends on where shared memory lies", where, None
    e = run([BIN, "equiv", "--launch", spec, ref, new], timeout=600)
    if e is None:
        return "FAIL", f"{where}: equiv ran past 600 s", text
    if e.returncode == 0:
        return "changed, equivalent", where, None
    if e.returncode == 1:
        return "FAIL", f"{where}: {e.stdout.strip().splitlines()[-1]}", text
    if "panicked" in e.stderr:
        return "FAIL", f"{where}: equiv panicked: {e.stderr.strip()[-400:]}", text
    last = (e.stderr.strip().splitlines() or ["?"])[-1]
    return "changed, the SASS emulator refused a build", f"{where}: {last[:160]}", None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", required=True, help="compile_suite.py --out folder (PTX + metadata)")
    ap.add_argument("--arch", required=True, help="sm_80, sm_90a, ...")
    ap.add_argument("--iters", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", help="comma-separated case names (default: every case with a spec)")
    ap.add_argument("--specs", action="append", default=[], help="another folder of <case>.spec.json")
    ap.add_argument("--warpsmith", help="the warpsmith binary (default $WARPSMITH_BIN or target/release)")
    ap.add_argument("--keep", default=os.path.join(tempfile.gettempdir(), "warpsmith-mutations"))
    args = ap.parse_args()
    global BIN
    BIN = args.warpsmith or BIN
    for tool in (BIN, PTXAS):
        if not os.access(tool, os.X_OK):
            print(f"mutation_check: {tool} is not an executable (build it, or run scripts/setup.sh)",
                  file=sys.stderr)
            return 2
    todo = cases(args)
    if not todo:
        print("mutation_check: no case has a launch spec", file=sys.stderr)
        return 2
    rng = random.Random(args.seed)
    counts, failures = {}, 0
    with tempfile.TemporaryDirectory(prefix="warpsmith-mutation-") as tmp:
        for it in range(args.iters):
            case, ptx, spec, meta = rng.choice(todo)
            outcome, detail, text = check_one(case, ptx, spec, meta, args, rng, tmp)
            counts[outcome] = counts.get(outcome, 0) + 1
            print(f"{it:3} {case}: {outcome} ({detail})", flush=True)
            if text is not None:
                failures += 1
                os.makedirs(args.keep, exist_ok=True)
                kept = os.path.join(args.keep, f"{case}.{args.seed}.{it}.ptx")
                with open(kept, "w") as f:
                    f.write(text)
                print(f"    kept at {kept}")
    print("summary: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
