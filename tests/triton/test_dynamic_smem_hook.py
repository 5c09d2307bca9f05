"""Checks python/warpsmith_triton.py with the Triton on PYTHONPATH, without a GPU.

One suite kernel that uses dynamic shared memory is compiled three ways through `ptxas` links to
warpsmith (WARPSMITH_PASSES=spill, WARPSMITH_SPILL_MAX_REGS=auto), each in a fresh process and Triton cache:
  hook  - warpsmith_triton.install(), no WARPSMITH_SPILL_DYNAMIC_SMEM;
  env   - WARPSMITH_SPILL_DYNAMIC_SMEM = the kernel's metadata.shared, no hook;
  plain - neither (the drop-in must treat the size as unknown and add no shared memory).
The hook's cubin must be byte-identical to the env one (where the drop-in changes nothing, that
also shows the marker line leaves ptxas's own output as it was), and with --expect-change differ
from the plain one (a case where knowing the size lets the spill pass add shared memory). Also
checks that the PTX Triton keeps is the one without the marker line.

With --grow, the case (one whose frame does not fit in the static area) is compiled twice with
WARPSMITH_PASSES=demote instead: `grow` (install()) and `static` (install(grow_dynamic=False)).
The grow build's metadata.shared must exceed the static one's (the drop-in's grow report reached
Triton) and its cubin differ.

    PYTHONPATH=.tools/triton python3 tests/triton/test_dynamic_smem_hook.py \
        --warpsmith target/debug/warpsmith --out target/hook-check [--arch sm_80] [--case NAME] \
        [--expect-change | --grow]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def child(mode, arch, case_name, out):
    """Compiles the case in this process as `mode` says and writes its cubin, PTX and metadata."""
    sys.path.insert(0, HERE)
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import suite
    if mode in ("hook", "grow", "static"):
        import warpsmith_triton
        warpsmith_triton.install(grow_dynamic=mode != "static")
    case = next(c for c in suite.CASES + suite.HOLDOUT_CASES if c.name == case_name)
    compiled, record = suite.compile_case(case, arch)
    if compiled is None:
        print(f"{mode}: {case_name} did not compile: {record.get('error')}", file=sys.stderr)
        return 1
    with open(os.path.join(out, f"{mode}.cubin"), "wb") as f:
        f.write(compiled.asm["cubin"])
    with open(os.path.join(out, f"{mode}.ptx"), "w") as f:
        f.write(compiled.asm["ptx"])
    with open(os.path.join(out, f"{mode}.json"), "w") as f:
        json.dump({"shared": compiled.metadata.shared}, f)
    return 0


def build(mode, opts, out, links, reals, shared=None):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("WARPSMITH_") and not k.startswith("TRITON_")}
    env.update(TRITON_PTXAS_PATH=links["ptxas"], TRITON_PTXAS_BLACKWELL_PATH=links["ptxas-blackwell"],
               WARPSMITH_PTXAS=reals["ptxas"], WARPSMITH_PTXAS_BLACKWELL=reals["ptxas-blackwell"],
               WARPSMITH_PASSES="demote" if mode in ("grow", "static") else "spill",
               TRITON_CACHE_DIR=tempfile.mkdtemp(prefix="ws-hook-"))
    if mode not in ("grow", "static"):
        # `auto`: the occupancy-raising mode, where knowing the size lets the pass add shared
        # memory (the default, `keep`, leaves a kernel without local memory alone).
        env["WARPSMITH_SPILL_MAX_REGS"] = "auto"
    if shared is not None:
        env["WARPSMITH_SPILL_DYNAMIC_SMEM"] = str(shared)
    r = subprocess.run([sys.executable, __file__, "--child", mode, "--arch", opts.arch,
                        "--case", opts.case, "--out", out], env=env)
    if r.returncode != 0:
        raise SystemExit(f"test_dynamic_smem_hook: the {mode} build failed")
    with open(os.path.join(out, f"{mode}.cubin"), "rb") as f:
        return f.read()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--warpsmith")
    ap.add_argument("--out")
    ap.add_argument("--arch", default="sm_80")
    ap.add_argument("--case", default="softmax_8192")
    ap.add_argument("--expect-change", action="store_true")
    ap.add_argument("--grow", action="store_true")
    ap.add_argument("--child")
    opts = ap.parse_args()
    if opts.child:
        return child(opts.child, opts.arch, opts.case, opts.out)
    import triton
    out = os.path.abspath(opts.out)
    os.makedirs(os.path.join(out, "bin"), exist_ok=True)
    bundled = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin")
    links, reals = {}, {}
    for name in ("ptxas", "ptxas-blackwell"):
        links[name] = os.path.join(out, "bin", name)
        if os.path.lexists(links[name]):
            os.remove(links[name])
        os.symlink(os.path.abspath(opts.warpsmith), links[name])
        reals[name] = os.path.join(bundled, name)
    if opts.grow:
        return check_grow(opts, out, links, reals)
    hook = build("hook", opts, out, links, reals)
    with open(os.path.join(out, "hook.json")) as f:
        shared = json.load(f)["shared"]
    env = build("env", opts, out, links, reals, shared=shared)
    plain = build("plain", opts, out, links, reals)
    with open(os.path.join(out, "hook.ptx")) as f:
        kept_ptx = f.read()
    failures = []
    if hook != env:
        failures.append("the hook's cubin differs from the one built with "
                        f"WARPSMITH_SPILL_DYNAMIC_SMEM={shared}")
    if opts.expect_change and hook == plain:
        failures.append("the hook's cubin is the one built without the size: the drop-in did not "
                        "use it (or the case gains nothing from it)")
    if "warpsmith-dynamic-smem" in kept_ptx:
        failures.append("the PTX Triton keeps carries the marker line")
    return report(f"Triton {triton.__version__}, {opts.case} {opts.arch}, dynamic size {shared} B: "
                  f"hook == env: {hook == env}, hook != plain: {hook != plain}", failures)


def report(summary, failures):
    """Prints the summary and each failure; the exit status."""
    print(f"test_dynamic_smem_hook: {summary}")
    for f in failures:
        print(f"test_dynamic_smem_hook: FAILED: {f}", file=sys.stderr)
    return 1 if failures else 0


def check_grow(opts, out, links, reals):
    """--grow: the drop-in's grow report reaches Triton's metadata."""
    import triton
    grow = build("grow", opts, out, links, reals)
    static = build("static", opts, out, links, reals)
    shared = {}
    for mode in ("grow", "static"):
        with open(os.path.join(out, f"{mode}.json")) as f:
            shared[mode] = json.load(f)["shared"]
    with open(os.path.join(out, "grow.ptx")) as f:
        kept_ptx = f.read()
    failures = []
    if shared["grow"] <= shared["static"]:
        failures.append(f"metadata.shared did not grow ({shared['grow']} B against "
                        f"{shared['static']} B without growing)")
    if grow == static:
        failures.append("the grow build's cubin is the static one's")
    if "warpsmith-" in kept_ptx:
        failures.append("the PTX Triton keeps carries a marker line")
    return report(f"Triton {triton.__version__}, {opts.case} {opts.arch}: dynamic size "
                  f"{shared['static']} B -> {shared['grow']} B with the grow report", failures)


if __name__ == "__main__":
    sys.exit(main())
