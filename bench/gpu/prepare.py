#!/usr/bin/env python3
"""Builds, on a machine without a GPU, every case bench/gpu/h100_checks.py runs on one.

    PYTHONPATH=.tools/triton python3 bench/gpu/prepare.py [--cases bench/gpu/cases] [--arch sm_90]
        [--reuse] [--only tune|triton|tune-triton|mma|regdem] [--tune-triton-cases A,B]

Case folders (bench/gpu/cases is git-ignored; the device tool carries it):

- `tune/<kernel>`: `bench/tune/table.sh ARCH` (every `warpsmith tune` variant of every bench
  kernel with a launch spec: ptxas alone and at each cliff, the pragma, spill, shuffle, demote
  of the frame, regdem-N register demotion),
  plus the SASS and PTX emulators' outputs of ptxas alone on the spec and its PTX for the driver's
  JIT (`ptx-jit`). The report's predictions travel in case.json.
- `triton/<case>`: the Triton suite compiled by Triton 3.6 for ARCH (its own ptxas and options,
  as a user gets it), each with a launch spec derived from the emulator specs in tests/data
  (block and dynamic shared memory from Triton's metadata, grid from the problem size); the
  emulators' outputs; where the build uses local memory, `warpsmith demote --local-to-shared`
  with Triton's dynamic size, and for every case `demote --occupancy auto` (register demotion,
  variant `regdem`), each proved on the SASS emulator here; attention and matmul cases also
  get a large launch (numpy inputs) for timing.
- `tune-triton/<case>`: `warpsmith tune` on the same Triton PTX (see triton_tune_cases):
  its variants proved on the small launch, predicted and timed on the large one.
- `regdem/<kernel>`: register demotion's own kernels (see regdem_cases).
- `mma/<kernel>`: bench/gpu/mma/*.ptx, one `mma.sync` per warp on random fragments (f16, bf16,
  tf32, e4m3 into f32): the emulators' tensor-core arithmetic against the hardware's, untimed.

Emulator outputs over 2 MiB in all travel as SHA-256 digests (digests.json), so the cases fit the
device tool's 64 MiB; a difference is then reported without the element. An emulator or a
demote that fails leaves that part out and says so (case.json `notes`); nothing
is invented. Needs target/release/warpsmith (or $WARPSMITH_BIN), ptxas/nvdisasm/cuobjdump
(scripts/setup.sh) and Triton (.tools/triton) for the Triton group.
"""

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("WARPSMITH_BIN", os.path.join(ROOT, "target", "release", "warpsmith"))
CUOBJDUMP = os.path.join(ROOT, ".tools", "bin", "cuobjdump")
DATA = os.path.join(ROOT, "tests", "data")


def run(cmd, timeout=900, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
    return p.returncode, (p.stdout + p.stderr).strip()


def write_json(path, obj):
    with open(path + ".tmp", "w") as fh:
        json.dump(obj, fh, indent=1)
        fh.write("\n")
    os.replace(path + ".tmp", path)


# Emulator outputs larger than this travel as SHA-256 digests (the device tool carries 64 MiB).
DIGEST_ABOVE = 2 << 20


def digest_large(folder):
    """Replaces folder's arg<N>.bin by digests.json when they are large together."""
    files = sorted(f for f in os.listdir(folder) if f.endswith(".bin"))
    if sum(os.path.getsize(os.path.join(folder, f)) for f in files) <= DIGEST_ABOVE:
        return
    digests = {}
    for f in files:
        with open(os.path.join(folder, f), "rb") as fh:
            digests[f] = hashlib.sha256(fh.read()).hexdigest()
        os.remove(os.path.join(folder, f))
    write_json(os.path.join(folder, "digests.json"), digests)


def emulate(d, code, spec, out, notes):
    """`warpsmith emulate` into d/out; the case's emu entry or None (with a note)."""
    shutil.rmtree(os.path.join(d, out), ignore_errors=True)
    rc, text = run([BIN, "emulate", os.path.join(d, code), "--launch", os.path.join(d, spec),
                    "--out", os.path.join(d, out)], timeout=1200)
    if rc != 0:
        notes.append("%s emulator: %s" % (out, text.splitlines()[-1] if text else "failed"))
        shutil.rmtree(os.path.join(d, out), ignore_errors=True)
        return None
    digest_large(os.path.join(d, out))
    return out


# ---- tune ---------------------------------------------------------------------------------------

def tune_cases(cases, arch, reuse):
    out = os.path.join(cases, "tune")
    if not (reuse and os.path.isdir(out)):
        shutil.rmtree(out, ignore_errors=True)
        rc, text = run(["bash", os.path.join(ROOT, "bench", "tune", "table.sh"), arch, out],
                       timeout=7200, env=dict(os.environ, WARPSMITH_BIN=BIN))
        print(text.splitlines()[-1] if text else "table.sh: no output", file=sys.stderr)
        with open(os.path.join(out, "table.md"), "w") as fh:
            fh.write(text + "\n")
    for k in sorted(os.listdir(out)):
        d = os.path.join(out, k)
        rep_path = os.path.join(d, "report.json")
        if not os.path.isfile(rep_path):
            continue
        rep = json.load(open(rep_path))
        notes = []
        variants = report_variants(d, rep)
        emu = {}
        if emulate(d, "ptxas.cubin", "launch.json", "emu-sass", notes):
            emu["sass"] = "emu-sass"
        if os.path.isfile(os.path.join(d, "ptxas.ptx")):
            variants["ptx-jit"] = "ptxas.ptx"
            if emulate(d, "ptxas.ptx", "launch.json", "emu-ptx", notes):
                emu["ptx"] = "emu-ptx"
        write_json(os.path.join(d, "case.json"), dict(predictions(rep), **{
            "name": "tune/" + rep["kernel"], "kernel": rep["kernel"], "group": "tune",
            "variants": variants, "reference": "ptxas", "spec": "launch.json", "emu": emu,
            "timed": True, "arch": rep["arch"], "notes": notes}))
        print("tune/%s: %d variants, emulators %s" % (k, len(variants), sorted(emu)), file=sys.stderr)


def report_variants(d, rep):
    """The variants of a `tune --emit-variants` folder d (report rep) that have a cubin."""
    return {v["name"]: v["name"] + ".cubin" for v in rep["variants"]
            if os.path.isfile(os.path.join(d, v["name"] + ".cubin"))}


def predictions(rep):
    """What case.json carries of a tune report: the model, the choice, every predicted time."""
    return {"model": rep["model"],
            "predicted_choice": next((v["name"] for v in rep["variants"] if v["chosen"]), None),
            "predicted_us": {v["name"]: v.get("predicted_us") for v in rep["variants"]}}


# ---- Triton -------------------------------------------------------------------------------------

def cdiv(a, b):
    return -(-a // b)


def launch_spec(kernel, grid, meta, args, numpy):
    """A launch spec with Triton's block and dynamic size; `numpy`: h100_checks' input
    generator flag (timing launches)."""
    spec = {"kernel": kernel, "grid": grid, "block": [meta["threads"]],
            "dynamic_smem": meta["shared"], "args": args}
    if numpy:
        spec["numpy"] = True
    return spec


def attention_spec(meta, seq, heads, d, numpy=False):
    n = heads * seq * d
    strides = [n, seq * d, d] * 4
    args = [{"buffer": {"type": "f16", "len": n, "init": "random"}} for _ in range(3)]
    args.append({"buffer": {"type": "f16", "len": n, "init": "zero"}})
    args.append({"buffer": {"type": "f32", "len": heads * seq, "init": "zero"}})
    args.append({"scalar": {"type": "f32", "value": 1.0 / d ** 0.5}})
    args += [{"scalar": {"type": "s32", "value": s}} for s in strides]
    args += [{"scalar": {"type": "s32", "value": heads}}, {"scalar": {"type": "s32", "value": seq}}]
    args += [{"buffer": {"type": "u8", "len": 256, "init": "zero"}} for _ in range(2)]
    bm = meta["constexprs"]["BLOCK_M"]
    return launch_spec("attention_forward", [cdiv(seq, bm), heads], meta, args, numpy)


def matmul_spec(meta, m, n, k, in_ty, out_ty, numpy=False):
    c = meta["constexprs"]
    args = [{"buffer": {"type": in_ty, "len": m * k, "init": "random"}},
            {"buffer": {"type": in_ty, "len": k * n, "init": "random"}},
            {"buffer": {"type": out_ty, "len": m * n, "init": "zero"}}]
    if in_ty == "f16":
        for a in args[:2]:
            a["buffer"]["range"] = [-1, 1]
    args += [{"scalar": {"type": "s32", "value": v}} for v in (m, n, k, k, n, n)]
    args += [{"buffer": {"type": "u8", "len": 256, "init": "zero"}} for _ in range(2)]
    return launch_spec("tiled_matmul", [cdiv(m, c["BLOCK_M"]) * cdiv(n, c["BLOCK_N"])], meta,
                       args, numpy)


def tma_matmul_spec(meta, m, n, k, numpy=False):
    """Triton's tensor-descriptor matmul (suite `tma_matmul`): each of A [m, k], B [k, n] and
    C [m, n] (f16, row-major) is a tensor map with the box and swizzle of Triton's metadata
    (`tensordesc_meta`, outermost first), then its shape (2 × s32) and strides (2 × s64)."""
    c = meta["constexprs"]
    args = []
    for i, (rows, cols, init) in enumerate(((m, k, "random"), (k, n, "random"), (m, n, "zero"))):
        d = meta["tensordesc_meta"][i]
        if d["elem_size"] != 2 or d.get("fp4_padded"):
            raise ValueError("tensor descriptor %d: f16 without fp4 padding only" % i)
        tmap = {"type": "f16", "dims": [cols, rows], "box": [d["block_size"][1], d["block_size"][0]],
                "swizzle": ["none", "32B", "64B", "128B"][d["swizzle"]], "init": init}
        if init == "random":
            tmap["range"] = [-1, 1]
        args.append({"tensor_map": tmap})
        args += [{"scalar": {"type": "s32", "value": v}} for v in (rows, cols)]
        args += [{"scalar": {"type": "s64", "value": v}} for v in (cols, 1)]
    args += [{"scalar": {"type": "s32", "value": v}} for v in (m, n, k)]
    args += [{"buffer": {"type": "u8", "len": 256, "init": "zero"}} for _ in range(2)]
    return launch_spec("tma_matmul", [cdiv(m, c["BLOCK_M"]) * cdiv(n, c["BLOCK_N"])], meta,
                       args, numpy)


def fp8_quant_spec(meta, rows, cols, numpy=False):
    """The suite's `fp8_quant_rows`: halves in [-100, 100) to e4m3 bytes and a scale per row,
    one CTA a row."""
    args = [{"buffer": {"type": "f16", "len": rows * cols, "init": "random", "range": [-100, 100]}},
            {"buffer": {"type": "u8", "len": rows * cols, "init": "zero"}},
            {"buffer": {"type": "f32", "len": rows, "init": "zero"}}]
    args += [{"scalar": {"type": "s32", "value": cols}} for _ in range(3)]
    args += [{"buffer": {"type": "u8", "len": 256, "init": "zero"}} for _ in range(2)]
    return launch_spec("fp8_quant_rows", [rows], meta, args, numpy)


def from_data_spec(meta, rel):
    """An emulator spec from tests/data with Triton's block and dynamic size for this build."""
    spec = json.load(open(os.path.join(DATA, rel)))
    spec["block"] = [meta["threads"]]
    spec["dynamic_smem"] = meta["shared"]
    return spec


MATMUL_TYPES = {"fp16": ("f16", "f16"), "fp8": ("u8", "f16"), "int8": ("s8", "s32")}


def triton_specs(case, meta):
    """(emulator spec, timing spec or None) for a suite case."""
    if case.startswith("attn_"):
        d = meta["constexprs"]["HEAD_DIM"]
        return attention_spec(meta, 100, 2, d), attention_spec(meta, 4096, 16, d, numpy=True)
    if case.startswith("matmul_tma"):
        return tma_matmul_spec(meta, 144, 256, 144), tma_matmul_spec(meta, 4096, 4096, 4096, numpy=True)
    if case.startswith("fp8_quant"):
        return fp8_quant_spec(meta, 5, 3000), fp8_quant_spec(meta, 8192, 4096, numpy=True)
    if case.startswith("matmul_"):
        kind = case.split("_")[1]
        i, o = MATMUL_TYPES[kind]
        return matmul_spec(meta, 144, 256, 144, i, o), matmul_spec(meta, 4096, 4096, 4096, i, o, numpy=True)
    if case.startswith("layer_norm"):
        spec = from_data_spec(meta, "sass_triton/sm_80/layer_norm_4096.spec.json")
        return spec, rows_spec(spec, "layer_norm", 8192, meta["constexprs"]["BLOCK"])
    if case.startswith("softmax"):
        spec = from_data_spec(meta, "sass_triton/sm_80/softmax_8192.spec.json")
        return spec, rows_spec(spec, "softmax", 4096, meta["constexprs"]["BLOCK"])
    return None, None


def rows_spec(spec, kind, rows, cols):
    """The row kernels' timing launch: `rows` full rows of `cols` elements, one CTA a row (the
    small spec's three or five partial rows are latency, not throughput; the occupancy a spill
    buys shows only when the rows outnumber the resident CTAs). numpy inputs."""
    big = json.loads(json.dumps(spec))
    a = big["args"]
    for buf in (a[0], a[1]):
        buf["buffer"]["len"] = rows * cols
    if kind == "layer_norm":
        # x, y, weight, bias, mean, rstd, row stride, N, eps
        a[2]["buffer"]["len"] = a[3]["buffer"]["len"] = cols
        a[4]["buffer"]["len"] = a[5]["buffer"]["len"] = rows
        a[6]["scalar"]["value"] = a[7]["scalar"]["value"] = cols
    else:
        # x, y, in stride, out stride, rows, cols (a loop over rows from the program id)
        a[2]["scalar"]["value"] = a[3]["scalar"]["value"] = a[5]["scalar"]["value"] = cols
        a[4]["scalar"]["value"] = rows
    big["grid"] = [rows]
    big["numpy"] = True
    return big


def suite_builds(src):
    """(case, Triton's metadata, emulator spec, timing spec or None) of every case of a
    compile_suite.py build folder that has a spec."""
    for f in sorted(os.listdir(src)):
        if not f.endswith(".json") or f == "suite.json":
            continue
        case = f[:-5]
        meta = json.load(open(os.path.join(src, f)))
        spec, tspec = triton_specs(case, meta)
        if spec is not None:
            yield case, meta, spec, tspec


def stack_bytes(cubin):
    rc, text = run([CUOBJDUMP, "-res-usage", cubin])
    m = re.search(r"STACK:(\d+)", text)
    return int(m.group(1)) if rc == 0 and m else None


def demote_variant(d, name, mode, meta, variants, grown, notes):
    """`warpsmith demote MODE` of d/ptxas.cubin with Triton's dynamic shared memory, proved on
    d/spec.json: d/<name>.cubin as a variant where kept (with `--grow-dynamic`, its grown dynamic
    size in `grown`), else a note saying why not."""
    rc, text = run([BIN, "demote", os.path.join(d, "ptxas.cubin"), "-o", os.path.join(d, name + ".cubin")]
                   + mode + ["--dynamic-smem", str(meta["shared"]),
                             "--verify", os.path.join(d, "spec.json"),
                             "--report", os.path.join(d, name + ".json")], timeout=1800)
    rep = json.load(open(os.path.join(d, name + ".json"))) if rc == 0 else None
    k = rep[0] if isinstance(rep, list) and rep else None
    if k and k.get("demoted"):
        variants[name] = name + ".cubin"
        added = (k.get("after") or {}).get("dynamic_added", 0)
        if added:
            # --grow-dynamic: every launch of this variant gives the grown size.
            grown[name] = meta["shared"] + added
    else:
        notes.append("%s kept ptxas's build: %s" % (name, k["reason"] if k else text[-300:]))


def dropin_variant(d, case, arch, dropin, meta, variants, grown, notes):
    """The drop-in's build of `case` (`bench/triton/never_worse.py --out DROPIN`: its
    ARCH/warpsmith/CASE.cubin, what a user of TRITON_PTXAS_PATH gets) as variant `dropin`, where
    it differs from ptxas alone's and was made from the same Triton build (never_worse's ptxas
    side equal to d/ptxas.cubin); else a note saying why not. Where the drop-in grew the launch
    (its metadata's `shared` is larger: the hook and the grow report), `grown` gets that size."""
    side = lambda which: os.path.join(dropin, arch, which, case + ".cubin")
    if not os.path.isfile(side("warpsmith")):
        notes.append("dropin: no build in %s" % dropin)
        return
    read = lambda path: open(path, "rb").read()
    if not os.path.isfile(side("ptxas")) or read(side("ptxas")) != read(os.path.join(d, "ptxas.cubin")):
        notes.append("dropin: never_worse's ptxas-alone build is not this one; left out")
        return
    if read(side("warpsmith")) == read(side("ptxas")):
        notes.append("dropin: the drop-in kept ptxas's build")
        return
    ws_meta = os.path.join(dropin, arch, "warpsmith", case + ".json")
    shared = json.load(open(ws_meta)).get("shared") if os.path.isfile(ws_meta) else meta["shared"]
    if not isinstance(shared, int) or shared < meta["shared"]:
        notes.append("dropin: its dynamic size (%s) is not ptxas alone's or a grown one; left out"
                     % shared)
        return
    if shared > meta["shared"]:
        grown["dropin"] = shared
    shutil.copy(side("warpsmith"), os.path.join(d, "dropin.cubin"))
    variants["dropin"] = "dropin.cubin"


def triton_cases(cases, arch, reuse, dropin=None):
    out = os.path.join(cases, "triton")
    src = os.path.join(out, "_build")
    if not (reuse and os.path.isfile(os.path.join(src, "suite.json"))):
        shutil.rmtree(src, ignore_errors=True)
        rc, text = run([sys.executable, os.path.join(ROOT, "tests", "triton", "compile_suite.py"),
                        "--arch", arch, "--out", src], timeout=1800)
        if rc != 0:
            print("compile_suite failed:\n" + text, file=sys.stderr)
            return
    for case, meta, spec, tspec in suite_builds(src):
        if not os.path.isfile(os.path.join(src, case + ".cubin")):
            continue
        d = os.path.join(out, case)
        os.makedirs(d, exist_ok=True)
        shutil.copy(os.path.join(src, case + ".cubin"), os.path.join(d, "ptxas.cubin"))
        shutil.copy(os.path.join(src, case + ".ptx"), os.path.join(d, "code.ptx"))
        write_json(os.path.join(d, "spec.json"), spec)
        notes, emu = [], {}
        variants = {"ptxas": "ptxas.cubin", "ptx-jit": "code.ptx"}
        if emulate(d, "ptxas.cubin", "spec.json", "emu-sass", notes):
            emu["sass"] = "emu-sass"
        if emulate(d, "code.ptx", "spec.json", "emu-ptx", notes):
            emu["ptx"] = "emu-ptx"
        stack = stack_bytes(os.path.join(d, "ptxas.cubin"))
        grown = {}
        if stack:
            demote_variant(d, "demote", ["--local-to-shared"], meta, variants, grown, notes)
            demote_variant(d, "demote-grow", ["--local-to-shared", "--grow-dynamic"], meta, variants,
                           grown, notes)
        demote_variant(d, "regdem", ["--occupancy", "auto"], meta, variants, grown, notes)
        if dropin:
            dropin_variant(d, case, arch, dropin, meta, variants, grown, notes)
        if tspec:
            write_json(os.path.join(d, "time.json"), tspec)
        write_json(os.path.join(d, "case.json"), {
            "name": "triton/" + case, "kernel": spec["kernel"], "group": "triton", "arch": arch,
            "variants": variants, "reference": "ptxas", "spec": "spec.json", "emu": emu,
            "time_spec": "time.json" if tspec else None, "timed": True, "stack_bytes": stack,
            "dynamic_smem": grown, "notes": notes})
        print("triton/%s: variants %s, emulators %s, stack %s; %s" % (
            case, sorted(variants), sorted(emu), stack, "; ".join(notes)), file=sys.stderr)


def triton_tune_cases(cases, only_cases=None):
    """`warpsmith tune` on the Triton suite's PTX (the build triton_cases made; the ptxas of
    scripts/setup.sh, not Triton's): every variant proved and compared on the small emulator
    launch, and where the case has a large timing launch, predicted on it (`--predict-launch`:
    the CTAs of its busiest SM on the SASS emulator). Folders `tune-triton/<case>`, group
    "tune", timed on the large launch."""
    src = os.path.join(cases, "triton", "_build")
    if not os.path.isfile(os.path.join(src, "suite.json")):
        print("tune-triton: no Triton build in %s (run --only triton first)" % src, file=sys.stderr)
        return
    for case, meta, spec, tspec in suite_builds(src):
        ptx = os.path.join(src, case + ".ptx")
        if not os.path.isfile(ptx) or (only_cases and case not in only_cases):
            continue
        target = re.search(r"^\.target\s+(\w+)", open(ptx).read(), re.M).group(1)
        d = os.path.join(cases, "tune-triton", case)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        write_json(os.path.join(d, "spec.json"), spec)
        cmd = [BIN, "tune", ptx, "--arch", target, "--launch", os.path.join(d, "spec.json"),
               "-o", os.path.join(d, "tuned.cubin"), "--emit-variants", d]
        if tspec:
            write_json(os.path.join(d, "time.json"), tspec)
            # The emulator's spec format has no `numpy` (h100_checks' input generator flag).
            write_json(os.path.join(d, "predict.json"), {k: v for k, v in tspec.items() if k != "numpy"})
            cmd += ["--predict-launch", os.path.join(d, "predict.json")]
        rc, out = run(cmd, timeout=3600)
        if rc != 0:
            print("tune-triton/%s: tune failed: %s" % (case, out[-500:]), file=sys.stderr)
            continue
        rep = json.load(open(os.path.join(d, "report.json")))
        variants, notes, emu = report_variants(d, rep), [], {}
        if emulate(d, "ptxas.cubin", "launch.json", "emu-sass", notes):
            emu["sass"] = "emu-sass"
        write_json(os.path.join(d, "case.json"), dict(predictions(rep), **{
            "name": "tune-triton/" + case, "kernel": spec["kernel"], "group": "tune",
            "arch": target, "variants": variants, "reference": "ptxas", "spec": "launch.json",
            "emu": emu, "time_spec": "time.json" if tspec else None, "timed": True,
            "notes": notes + rep["notes"]}))
        print("tune-triton/%s: %d variants, choice %s" % (
            case, len(variants), predictions(rep)["predicted_choice"]), file=sys.stderr)


def mma_cases(cases, arch):
    """bench/gpu/mma: one matrix instruction per warp on random fragments (f16, bf16, tf32, e4m3
    into f32), to compare the emulators' tensor-core arithmetic with the hardware's element by element
    (h100_run.sh with SAVE_OUTPUTS=1 keeps the GPU's buffers)."""
    src = os.path.join(ROOT, "bench", "gpu", "mma")
    ptxas = os.path.join(ROOT, ".tools", "bin", "ptxas")
    for spec_file in sorted(f for f in os.listdir(src) if f.endswith(".spec.json")):
        name = spec_file[:-len(".spec.json")]
        d = os.path.join(cases, "mma", name)
        os.makedirs(d, exist_ok=True)
        ptx = next((f for f in sorted(os.listdir(src)) if f.endswith(".ptx")
                    and ".entry %s(" % name in open(os.path.join(src, f)).read()), None)
        if ptx is None:
            print("mma/%s: no .ptx in %s defines it" % (name, src), file=sys.stderr)
            continue
        shutil.copy(os.path.join(src, ptx), os.path.join(d, "code.ptx"))
        shutil.copy(os.path.join(src, spec_file), os.path.join(d, "spec.json"))
        rc, text = run([ptxas, "-arch=" + arch, os.path.join(d, "code.ptx"), "-o", os.path.join(d, "ptxas.cubin")])
        if rc != 0:
            print("mma/%s: ptxas: %s" % (name, text), file=sys.stderr)
            continue
        notes, emu = [], {}
        for kind, code in (("sass", "ptxas.cubin"), ("ptx", "code.ptx")):
            if emulate(d, code, "spec.json", "emu-" + kind, notes):
                emu[kind] = "emu-" + kind
        write_json(os.path.join(d, "case.json"), {
            "name": "mma/" + name, "kernel": name, "group": "mma", "arch": arch,
            "variants": {"ptxas": "ptxas.cubin", "ptx-jit": "code.ptx"}, "reference": "ptxas",
            "spec": "spec.json", "emu": emu, "timed": False, "notes": notes})
        print("mma/%s: emulators %s" % (name, sorted(emu)), file=sys.stderr)


def regdem_cases(cases, arch):
    """Register demotion's own kernels (lit-tests/demote/Inputs: cold40, cold values around a
    latency-bound loop, the case it is for; live40, every value hot): `warpsmith tune` on the
    small proof launch (every variant, regdem-N included, with predictions), and
    `demote --occupancy auto` as a user runs it (proofs on the small launch, the time predicted on
    the large one; kept only where the cycle-level model predicts it at least 5 % faster: variant
    regdem-auto). Timed on the large
    launch."""
    src = os.path.join(ROOT, "lit-tests", "demote", "Inputs")
    for name in ("cold40", "live40"):
        d = os.path.join(cases, "regdem", name)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        text = open(os.path.join(src, name + ".ptx")).read().replace(".target sm_80", ".target " + arch)
        with open(os.path.join(d, "code.ptx"), "w") as fh:
            fh.write(text)
        shutil.copy(os.path.join(src, name + "_big.json"), os.path.join(d, "time.json"))
        rc, out = run([BIN, "tune", os.path.join(d, "code.ptx"), "--arch", arch,
                       "--launch", os.path.join(src, name + ".json"), "-o", os.path.join(d, "tuned.cubin"),
                       "--emit-variants", d], timeout=1800)
        if rc != 0:
            print("regdem/%s: tune failed: %s" % (name, out[-500:]), file=sys.stderr)
            continue
        rep = json.load(open(os.path.join(d, "report.json")))
        variants = report_variants(d, rep)
        notes = []
        rc, out = run([BIN, "demote", os.path.join(d, "ptxas.cubin"), "-o", os.path.join(d, "regdem-auto.cubin"),
                       "--occupancy", "auto", "--dynamic-smem", "0",
                       "--verify", os.path.join(d, "launch.json"), "--launch", os.path.join(d, "time.json"),
                       "--report", os.path.join(d, "regdem-auto.json")], timeout=1800)
        k = json.load(open(os.path.join(d, "regdem-auto.json")))[0] if rc == 0 else None
        if k and k.get("demoted"):
            variants["regdem-auto"] = "regdem-auto.cubin"
        notes.append("demote --occupancy auto: %s" % (k["reason"] if k else out[-300:]))
        emu = {}
        if emulate(d, "ptxas.cubin", "launch.json", "emu-sass", notes):
            emu["sass"] = "emu-sass"
        write_json(os.path.join(d, "case.json"), dict(predictions(rep), **{
            "name": "regdem/" + name, "kernel": name, "group": "regdem", "arch": arch,
            "variants": variants, "reference": "ptxas", "spec": "launch.json", "emu": emu,
            "time_spec": "time.json", "timed": True, "notes": notes}))
        print("regdem/%s: %d variants; %s" % (name, len(variants), "; ".join(notes)), file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", default=os.path.join(ROOT, "bench", "gpu", "cases"))
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--reuse", action="store_true", help="keep tune/ and the Triton build if present")
    ap.add_argument("--only", choices=["tune", "triton", "tune-triton", "mma", "regdem"])
    ap.add_argument("--tune-triton-cases", metavar="A,B",
                    help="tune only these Triton cases (tuning a 4096-cubed matmul's launch takes"
                         " the SASS emulator minutes per case)")
    ap.add_argument("--dropin", metavar="DIR",
                    help="a `bench/triton/never_worse.py --out DIR` folder (same ARCH): each "
                         "Triton case also gets the drop-in's build as variant `dropin`")
    a = ap.parse_args()
    if not os.path.isfile(BIN):
        print("prepare: %s is missing (cargo build --release)" % BIN, file=sys.stderr)
        return 2
    os.makedirs(a.cases, exist_ok=True)
    if a.only in (None, "tune"):
        tune_cases(a.cases, a.arch, a.reuse)
    if a.only in (None, "triton"):
        triton_cases(a.cases, a.arch, a.reuse, a.dropin)
    if a.only in (None, "tune-triton"):
        triton_tune_cases(a.cases, set(a.tune_triton_cases.split(",")) if a.tune_triton_cases else None)
    if a.only in (None, "mma"):
        mma_cases(a.cases, a.arch)
    if a.only in (None, "regdem"):
        regdem_cases(a.cases, a.arch)
    return 0


if __name__ == "__main__":
    sys.exit(main())
