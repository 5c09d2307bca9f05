#!/usr/bin/env python3
"""Compiles the warpsmith Triton suite (tests/triton/suite.py) for one architecture without a GPU.

    PYTHONPATH=.tools/triton python3 tests/triton/compile_suite.py --arch sm_80 --out DIR [--ptxas PATH]

For every case it writes DIR/NAME.ptx, DIR/NAME.cubin and DIR/NAME.json (Triton's metadata: kernel
name, `shared` = dynamic shared memory of the launch, warps, threads per block, and the ptxas
command line Triton ran with ptxas's log), and DIR/suite.json with every case, including the ones
that failed to compile (with the error). Exit status: 0 when every case compiled, 1 otherwise,
2 for a usage or set-up error.

--holdout compiles the register model's holdout configurations (suite.HOLDOUT_CASES) instead
of the suite; bench/pressure_model.rs reads their PTX (docs/benchmarks.md, "Register model").

--ptxas sets TRITON_PTXAS_PATH, --ptxas-blackwell TRITON_PTXAS_BLACKWELL_PATH: Triton 3.6-3.8 run
`ptxas` below sm_100, Triton 3.9 runs its CUDA 13 `ptxas-blackwell` from sm_90 on. Triton silently
falls back to its bundled assembler when the named one does not answer `--version` with a CUDA
release; the script checks that every ptxas call went to the path given for the architecture's
assembler and stops otherwise (exit 2, before writing that case). Triton's cache is a fresh
folder under DIR (its key ignores which ptxas assembled a kernel, so a shared cache would return
cubins made by another ptxas).
"""

import argparse
import importlib
import json
import os
import shutil
import sys
import tempfile
import types

HERE = os.path.dirname(os.path.abspath(__file__))

# The foreign corpora (tests/triton/foreign.py): name -> the module listing its cases.
FOREIGN = {"liger": "liger_suite", "flaggems": "flaggems_suite"}


def write_atomic(path, data):
    """Writes `data` (bytes or str) to `path` through a temporary file and a rename."""
    mode = "wb" if isinstance(data, bytes) else "w"
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-")
    with os.fdopen(fd, mode) as f:
        f.write(data)
    os.replace(tmp, path)


def assembler_for(opts):
    """The assembler Triton runs for `opts.arch` (its `NvidiaTool`: path and CUDA version), the
    option that names it here and that option's value (`backends.nvidia.compiler.get_ptxas`):
    `ptxas` for every architecture in Triton 3.4 and 3.5, below sm_100 in 3.6-3.8, below sm_90 in
    3.9; `ptxas-blackwell` otherwise. Triton 3.2 and 3.3 (PyTorch 2.6 and 2.7's) have no `knobs`:
    3.3's `get_ptxas(arch)` gives a (path, version) pair, `ptxas` below sm_100; 3.2 has
    `_path_to_binary("ptxas")` alone."""
    try:
        from triton import knobs
    except ImportError:
        from triton.backends.nvidia import compiler
        if hasattr(compiler, "get_ptxas"):
            path, version = compiler.get_ptxas(int(opts.arch.removeprefix("sm_")))
        else:
            path, version = compiler._path_to_binary("ptxas")
        tool = types.SimpleNamespace(path=path, version=version)
        if os.path.basename(path).startswith("ptxas-blackwell"):
            return tool, "--ptxas-blackwell", opts.ptxas_blackwell
        return tool, "--ptxas", opts.ptxas
    try:
        from triton.backends.nvidia.compiler import get_ptxas
    except ImportError:
        return knobs.nvidia.ptxas, "--ptxas", opts.ptxas
    try:
        tool = get_ptxas(int(opts.arch.removeprefix("sm_")))
    except TypeError:  # Triton 3.4 and 3.5: one assembler for every architecture
        tool = get_ptxas()
    if tool.path == knobs.nvidia.ptxas.path:
        return tool, "--ptxas", opts.ptxas
    return tool, "--ptxas-blackwell", opts.ptxas_blackwell


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--arch", required=True, choices=["sm_80", "sm_90", "sm_100", "sm_120"],
                    help="sm_100 and sm_120 (Blackwell) compile every sm_90 case")
    ap.add_argument("--out", required=True, help="output folder (created)")
    ap.add_argument("--ptxas", help="the ptxas Triton runs (TRITON_PTXAS_PATH); default Triton's own")
    ap.add_argument("--ptxas-blackwell",
                    help="the ptxas-blackwell Triton runs (TRITON_PTXAS_BLACKWELL_PATH; Triton 3.9 "
                         "from sm_90 on); default Triton's own")
    ap.add_argument("--only", nargs="+", metavar="CASE", help="compile only these cases")
    ap.add_argument("--ci", action="store_true", help="only the cases of the CI subset")
    ap.add_argument("--holdout", action="store_true",
                    help="the register model's holdout cases (suite.HOLDOUT_CASES) instead")
    ap.add_argument("--corpus", choices=["suite", *FOREIGN], default="suite",
                    help="suite: tests/triton/suite.py's kernels; liger: Liger-Kernel's "
                         "(tests/triton/liger_suite.py; liger_kernel on PYTHONPATH, from "
                         "setup.sh's .tools/liger); flaggems: FlagGems' "
                         "(tests/triton/flaggems_suite.py; flag_gems on PYTHONPATH, from "
                         "setup.sh's .tools/flaggems). A foreign corpus's case also gets "
                         "NAME.spec.json, its launch")
    ap.add_argument("--llir", action="store_true",
                    help="also write Triton's LLVM IR, NAME.ll (tests/plugin_soundness.rs reads it)")
    ap.add_argument("--hook", action="store_true",
                    help="install python/warpsmith_triton.py first: each kernel's dynamic shared "
                         "memory reaches a warpsmith drop-in")
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    opts = ap.parse_args()

    sys.path.insert(0, HERE)
    import suite

    foreign = None
    if opts.corpus in FOREIGN:
        sys.path.insert(0, os.path.join(HERE, "stand_in"))
        try:
            foreign = importlib.import_module(FOREIGN[opts.corpus])
            from foreign import entry_param_count
        except ImportError as e:
            print(f"compile_suite: cannot load the {opts.corpus} corpus: {e}", file=sys.stderr)
            return 2
        cases = [c.case() for c in foreign.CASES if suite.compiles_for(c.archs, opts.arch)
                 and (not opts.only or c.name in opts.only)]
    else:
        cases = suite.cases_for(opts.arch, opts.only, opts.ci, opts.holdout)
    if opts.list:
        for c in cases:
            print(f"{c.name:28} {c.kernel:18} warps={c.num_warps} stages={c.num_stages} "
                  f"{'ci ' if opts.arch in c.ci else ''}{c.note}")
        return 0

    out = os.path.abspath(opts.out)
    os.makedirs(out, exist_ok=True)
    cache = os.path.join(out, "triton-cache")
    shutil.rmtree(cache, ignore_errors=True)
    # Both must be set before Triton reads them (it caches the ptxas it finds).
    os.environ["TRITON_CACHE_DIR"] = cache
    for var, path in (("TRITON_PTXAS_PATH", opts.ptxas),
                      ("TRITON_PTXAS_BLACKWELL_PATH", opts.ptxas_blackwell)):
        if path:
            os.environ[var] = os.path.abspath(path)
        else:
            os.environ.pop(var, None)

    try:
        import triton
    except ImportError as e:
        print(f"compile_suite: cannot import Triton ({e}): run scripts/setup.sh and put "
              f".tools/triton on PYTHONPATH", file=sys.stderr)
        return 2
    try:
        ptxas, option, given = assembler_for(opts)
    except RuntimeError as e:
        print(f"compile_suite: Triton finds no ptxas: {e}", file=sys.stderr)
        return 2
    if given and os.path.abspath(ptxas.path) != os.path.abspath(given):
        print(f"compile_suite: Triton did not take {option} {given}: its `--version` gave no "
              f"CUDA release, so Triton fell back to {ptxas.path}", file=sys.stderr)
        return 2
    suite.stand_in_driver(triton.__version__)
    too_new = [c for c in cases if not suite.supported_by(c, triton.__version__)]
    for c in too_new:
        print(f"  {opts.arch} {c.name:28} left out: needs Triton "
              f"{'.'.join(map(str, c.min_triton))} or later (this is {triton.__version__})",
              file=sys.stderr)
    cases = [c for c in cases if c not in too_new]
    if opts.hook:
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "python"))
        import warpsmith_triton
        warpsmith_triton.install()
    print(f"compile_suite: Triton {triton.__version__}, {opts.arch}, ptxas {ptxas.path} "
          f"(CUDA {ptxas.version}), {len(cases)} case(s) -> {out}", file=sys.stderr)

    summary = {"arch": opts.arch, "triton_version": triton.__version__, "ptxas": ptxas.path,
               "ptxas_cuda_version": ptxas.version, "cases": []}
    failed = 0
    for case in cases:
        compiled, record = suite.compile_case(case, opts.arch)
        ran = {call["argv"][0] for call in record.get("ptxas_calls", [])}
        if ran - {ptxas.path}:
            print(f"compile_suite: Triton ran {', '.join(sorted(ran))} for {case.name}, not "
                  f"{ptxas.path}", file=sys.stderr)
            return 2
        record["ptxas"] = ptxas.path
        base = os.path.join(out, case.name)
        for ext in ("ptx", "cubin", "json", "ll", "spec.json"):
            if os.path.exists(f"{base}.{ext}"):
                os.remove(f"{base}.{ext}")
        if compiled is not None:
            write_atomic(f"{base}.ptx", compiled.asm["ptx"])
            write_atomic(f"{base}.cubin", compiled.asm["cubin"])
            if opts.llir:
                write_atomic(f"{base}.ll", compiled.asm["llir"])
            if foreign is not None:
                spec = foreign.BY_NAME[case.name].launch_spec(
                    record["kernel"], record["threads"], record["shared"],
                    record.get("tensordesc_meta"),
                    entry_param_count(compiled.asm["ptx"], record["kernel"]))
                write_atomic(f"{base}.spec.json", json.dumps(spec, indent=1) + "\n")
            status = (f"ok   {record['kernel']}: {record['threads']} threads, "
                      f"{record['shared']} B dynamic shared ({record['compile_seconds']} s)")
        else:
            failed += 1
            status = f"FAIL {record['error']}"
        write_atomic(f"{base}.json", json.dumps(record, indent=2, default=str) + "\n")
        summary["cases"].append(record)
        print(f"  {opts.arch} {case.name:28} {status}", file=sys.stderr)
        sys.stderr.flush()
    write_atomic(os.path.join(out, "suite.json"), json.dumps(summary, indent=2, default=str) + "\n")
    shutil.rmtree(cache, ignore_errors=True)
    if failed:
        print(f"compile_suite: {failed} of {len(cases)} case(s) failed to compile", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
