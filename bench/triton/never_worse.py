#!/usr/bin/env python3
"""Never-worse check of `warpsmith ptxas` on the Triton suite (issue 12).

For every kernel of tests/triton/suite.py and every architecture, the suite is compiled twice by
Triton without a GPU: once with ptxas alone (Triton's own unless --real-ptxas), once with
TRITON_PTXAS_PATH and TRITON_PTXAS_BLACKWELL_PATH at `ptxas` and `ptxas-blackwell` symbolic links
to warpsmith (WARPSMITH_PTXAS and WARPSMITH_PTXAS_BLACKWELL = the same real assemblers,
WARPSMITH_PASSES as given). Triton 3.9 runs its CUDA 13 `ptxas-blackwell` from sm_90 on, earlier
versions `ptxas`; tests/triton/compile_suite.py stops when a call went elsewhere. Both cubins'
resources are read with `cuobjdump -res-usage` (REG, STACK, SHARED, LOCAL) and the occupancy of each launch is computed by
`warpsmith occupancy` with the cubin's static shared memory and Triton's dynamic shared memory
(metadata `shared`) at Triton's block size (num_warps × 32).

Launch legality follows Triton 3.6's launcher (triton/backends/nvidia/driver.c): it raises a
kernel's dynamic shared-memory limit only when the dynamic size D exceeds 48 KiB, and then to the
opt-in maximum minus the static size S. So a launch is legal when S + D ≤ 48 KiB for D ≤ 48 KiB,
else S + D ≤ the opt-in maximum (sm_80 163 KiB, sm_86/sm_89/sm_120 99 KiB, sm_90/sm_100 227 KiB).

Verdict per kernel, warpsmith against ptxas alone:
  worse   the launch becomes illegal, occupancy drops, or at equal occupancy local memory
          (STACK + LOCAL per thread) grows; also a kernel that compiles alone but not through
          warpsmith
  better  occupancy rises, or at equal occupancy local memory shrinks
  equal   otherwise
Goal (issue 12): wherever ptxas alone uses local memory, warpsmith's has none at equal or higher
occupancy — reported per kernel as `goal` (met/missed/-); --require-goal makes a miss fail too.

`demote` in --passes (issue 16) applies the drop-in's post-ptxas stage to each warpsmith cubin with
the launch's dynamic shared memory (Triton's metadata `shared`): the drop-in reads that size from
WARPSMITH_SPILL_DYNAMIC_SMEM, which one Triton process compiling several kernels cannot set per
kernel, so the script runs `warpsmith demote --local-to-shared --dynamic-smem D` on each cubin,
as a one-kernel build with the variable set would. With --hook each kernel's size reaches the
drop-in, and the drop-in's own stage runs instead (it also keeps `demote` alone on ptxas's build
of the original PTX where that ranks higher than the passes followed by `demote`); each row is then
also checked against `demote` alone on the ptxas-alone cubin (OUT/ARCH/demote-alone), and a build
ranking below it (occupancy, then local memory, then static shared memory) fails.

    PYTHONPATH=.tools/triton python3 bench/triton/never_worse.py [--arch sm_80 sm_90] [--ci]
        [--warpsmith target/debug/warpsmith] [--passes spill,shuffle] [--out bench/out/triton]

Prints a table, writes OUT/never_worse.json, and exits 1 when a kernel is worse, illegal or fails
to compile (2 for a set-up error).
"""

import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COMPILE_SUITE = os.path.join(ROOT, "tests", "triton", "compile_suite.py")

# Launch limits, bytes: what a block may use without opting in, and the opt-in maximum per block.
DEFAULT_LIMIT = 48 * 1024
OPTIN_MAX = {"sm_80": 163 * 1024, "sm_86": 99 * 1024, "sm_89": 99 * 1024, "sm_90": 227 * 1024,
             "sm_100": 227 * 1024, "sm_120": 99 * 1024}


def launch_legal(arch, static, dynamic):
    """Whether Triton's launcher can start a block with `static` + `dynamic` shared memory."""
    limit = DEFAULT_LIMIT if dynamic <= DEFAULT_LIMIT else OPTIN_MAX[arch]
    return static + dynamic <= limit, limit


def verdict(before, after):
    """'worse', 'equal' or 'better' for two measured builds of one kernel (see the module doc)."""
    if before["legal"] and not after["legal"]:
        return "worse"
    if after["occupancy"] != before["occupancy"]:
        return "better" if after["occupancy"] > before["occupancy"] else "worse"
    if after["local"] != before["local"]:
        return "better" if after["local"] < before["local"] else "worse"
    return "equal"


def rank(m):
    """The drop-in's ranking of a build (smaller is better): occupancy, local memory, shared
    (static and dynamic: a build whose launch grows, `demote --grow-dynamic`'s, counts what it
    adds)."""
    return (-m["occupancy"], m["local"], m["static_smem"] + m["dynamic_smem"])


def below(after, alone):
    """Whether the drop-in's build ranks below `demote` alone on ptxas's build (the ranking
    read in order: occupancy, then local memory, then shared memory)."""
    return rank(after) > rank(alone)


def goal(before, after):
    """Issue 12's goal for kernels that spill with ptxas alone: no local memory, occupancy kept."""
    if before["local"] == 0:
        return "-"
    ok = after["local"] == 0 and after["occupancy"] >= before["occupancy"] and after["legal"]
    return "met" if ok else "missed"


def parse_res_usage(text, kernel):
    """REG, STACK, SHARED and LOCAL of `kernel` from the text of `cuobjdump -res-usage`."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.strip() == f"Function {kernel}:" and i + 1 < len(lines):
            fields = dict(re.findall(r"([A-Z]+(?:\[\d+\])?):(\d+)", lines[i + 1]))
            try:
                return {k.lower(): int(fields[k]) for k in ("REG", "STACK", "SHARED", "LOCAL")}
            except KeyError as e:
                raise RuntimeError(f"cuobjdump gave no {e} for {kernel}: {lines[i + 1]}") from None
    raise RuntimeError(f"cuobjdump -res-usage: no function {kernel}")


def res_usage(cuobjdump, cubin, kernel):
    """REG, STACK, SHARED and LOCAL of `kernel` in `cubin`, from `cuobjdump -res-usage`."""
    out = subprocess.run([cuobjdump, "-res-usage", cubin], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"cuobjdump -res-usage {cubin} failed: {out.stderr.strip()}")
    try:
        return parse_res_usage(out.stdout, kernel)
    except RuntimeError as e:
        raise RuntimeError(f"{cubin}: {e}") from None


def occupancy(warpsmith, arch, regs, threads, static, dynamic):
    """`warpsmith occupancy --json` of one launch: (occupancy fraction, warps per SM)."""
    cmd = [warpsmith, "occupancy", "--json", "--arch", arch, "--regs", str(regs), "--threads",
           str(threads), "--smem", str(static), "--dynamic-smem", str(dynamic)]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {out.stderr.strip()}")
    o = json.loads(out.stdout)
    return o["occupancy"], o["warps_per_sm"]


def measure(record, cubin, arch, tools):
    """Resources, occupancy and legality of one compiled kernel."""
    r = res_usage(tools["cuobjdump"], cubin, record["kernel"])
    dyn = record["shared"]
    legal, limit = launch_legal(arch, r["shared"], dyn)
    occ, warps = (0.0, 0)
    if r["shared"] + dyn <= OPTIN_MAX[arch]:
        occ, warps = occupancy(tools["warpsmith"], arch, r["reg"], record["threads"], r["shared"], dyn)
    return {
        "regs": r["reg"], "stack": r["stack"], "local": r["stack"] + r["local"],
        "static_smem": r["shared"], "dynamic_smem": dyn, "smem_limit": limit, "legal": legal,
        "occupancy": occ, "warps_per_sm": warps,
    }


def warnings_of(record):
    """warpsmith's warnings in the ptxas log Triton captured (a pass that fell back, …)."""
    out = []
    for call in record.get("ptxas_calls", []):
        out += [ln.strip() for ln in call["log"].splitlines() if "warpsmith" in ln]
    return out


def outcome(warnings, cubin_before, cubin_after):
    """What the wrapper did to one kernel: `fallback` (it assembled the original PTX), `same`
    (an identical cubin), `rewritten`; `+checks failed` when the spilling pass's own ptxas -v
    checks failed."""
    if any("assembling the original" in w for w in warnings):
        what = "fallback"
    else:
        with open(cubin_before, "rb") as a, open(cubin_after, "rb") as b:
            what = "same" if a.read() == b.read() else "rewritten"
    if any("ptxas check of" in w for w in warnings):
        what += ", ptxas checks failed"
    return what


def compile_suite(arch, out, python, assemblers, env, only, ci, corpus="suite", hook=False):
    """Runs tests/triton/compile_suite.py with `assemblers` (`ptxas`, `ptxas-blackwell`: the paths
    Triton is to run); returns {case: record} (failed cases have `error`)."""
    cmd = [python, COMPILE_SUITE, "--arch", arch, "--out", out, "--ptxas", assemblers["ptxas"],
           "--ptxas-blackwell", assemblers["ptxas-blackwell"], "--corpus", corpus]
    if only:
        cmd += ["--only", *only]
    if ci:
        cmd.append("--ci")
    if hook:
        cmd.append("--hook")
    start = time.monotonic()
    p = subprocess.run(cmd, env=env)  # its progress lines go straight to standard error
    if p.returncode == 2 or not os.path.exists(os.path.join(out, "suite.json")):
        raise SystemExit(f"never_worse: {' '.join(cmd)} failed (exit {p.returncode})")
    with open(os.path.join(out, "suite.json")) as f:
        suite = json.load(f)
    print(f"never_worse: {arch} with {suite['ptxas']}: {time.monotonic() - start:.0f} s",
          file=sys.stderr)
    return {c["case"]: c for c in suite["cases"]}, suite


def demote_cubins(warpsmith, out, arch, records):
    """The post-ptxas demote stage on every warpsmith-side cubin of `arch`: {case: report line}."""
    lines = {}
    for case, rec in records.items():
        if "error" in rec:
            continue
        cubin = os.path.join(out, arch, "warpsmith", f"{case}.cubin")
        cmd = [warpsmith, "demote", cubin, "-o", cubin, "--local-to-shared", "--dynamic-smem",
               str(rec["shared"])]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            raise SystemExit(f"never_worse: {' '.join(cmd)} failed: {p.stderr.strip()}")
        lines[case] = " ".join(p.stdout.split())
    return lines


def demote_alone(warpsmith, out, arch, case, rec):
    """`demote` alone on ptxas's build of `case` (a copy): the cubin's path."""
    src = os.path.join(out, arch, "ptxas", f"{case}.cubin")
    dst_dir = os.path.join(out, arch, "demote-alone")
    os.makedirs(dst_dir, exist_ok=True)
    dst = os.path.join(dst_dir, f"{case}.cubin")
    cmd = [warpsmith, "demote", src, "-o", dst, "--local-to-shared", "--dynamic-smem",
           str(rec["shared"])]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"never_worse: {' '.join(cmd)} failed: {p.stderr.strip()}")
    return dst


def fmt_side(m):
    return f"{m['regs']}/{m['local']}/{m['static_smem']}/{m['occupancy'] * 100:g}%"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--arch", nargs="+", default=["sm_80", "sm_90"],
                    choices=["sm_80", "sm_90", "sm_100", "sm_120"],
                    help="default sm_80 sm_90; sm_100 and sm_120 (Blackwell) compile every sm_90 "
                         "case (the SASS side of warpsmith, `demote`, refuses them)")
    ap.add_argument("--warpsmith", default=os.path.join(ROOT, "target", "debug", "warpsmith"))
    ap.add_argument("--real-ptxas",
                    help="NVIDIA's ptxas for both builds and both assembler names (default: "
                         "Triton's own `ptxas` and `ptxas-blackwell`)")
    ap.add_argument("--cuobjdump", help="default: .tools/bin/cuobjdump, else Triton's own")
    ap.add_argument("--passes", default="spill,shuffle", help="WARPSMITH_PASSES")
    ap.add_argument("--spill-max-regs", metavar="keep|auto|N",
                    help="WARPSMITH_SPILL_MAX_REGS (default: unset, the drop-in's default `keep`)")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "out", "triton"))
    ap.add_argument("--only", nargs="+", metavar="CASE")
    ap.add_argument("--ci", action="store_true", help="only the CI subset of the suite")
    ap.add_argument("--corpus", choices=["suite", "liger", "flaggems"], default="suite",
                    help="tests/triton/suite.py's kernels, Liger-Kernel's "
                         "(tests/triton/liger_suite.py; liger_kernel on PYTHONPATH) or FlagGems' "
                         "(tests/triton/flaggems_suite.py; flag_gems on PYTHONPATH)")
    ap.add_argument("--hook", action="store_true",
                    help="the warpsmith side installs python/warpsmith_triton.py: each kernel's "
                         "dynamic shared memory reaches the drop-in (else it is unknown there)")
    ap.add_argument("--reuse", action="store_true",
                    help="reuse the cubins of an earlier run in OUT instead of compiling")
    ap.add_argument("--jobs", type=int, default=1,
                    help="compile this many (architecture, side) suites at once (default 1)")
    ap.add_argument("--require-goal", action="store_true",
                    help="also fail when a kernel that spills with ptxas alone still spills")
    opts = ap.parse_args()

    try:
        import triton
    except ImportError as e:
        print(f"never_worse: cannot import Triton ({e}): run scripts/setup.sh and put "
              ".tools/triton on PYTHONPATH", file=sys.stderr)
        return 2
    nvidia_bin = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin")
    real = os.path.abspath(opts.real_ptxas or os.path.join(nvidia_bin, "ptxas"))
    # Triton 3.9 runs `ptxas-blackwell` from sm_90 on (older wheels bundle it for sm_100 on).
    real_blackwell = os.path.join(nvidia_bin, "ptxas-blackwell")
    if opts.real_ptxas or not os.path.exists(real_blackwell):
        real_blackwell = real
    real_blackwell = os.path.abspath(real_blackwell)
    cuobjdump = opts.cuobjdump or os.path.join(ROOT, ".tools", "bin", "cuobjdump")
    if not opts.cuobjdump and not os.path.exists(cuobjdump):
        cuobjdump = os.path.join(nvidia_bin, "cuobjdump")
    warpsmith = os.path.abspath(opts.warpsmith)
    for what, path in (("warpsmith", warpsmith), ("ptxas", real), ("ptxas-blackwell", real_blackwell),
                       ("cuobjdump", cuobjdump)):
        if not os.access(path, os.X_OK):
            print(f"never_worse: {what} {path} is not an executable", file=sys.stderr)
            return 2
    tools = {"warpsmith": warpsmith, "cuobjdump": cuobjdump}

    out = os.path.abspath(opts.out)
    link_dir = os.path.join(out, "bin")
    os.makedirs(link_dir, exist_ok=True)
    links = {}
    for name in ("ptxas", "ptxas-blackwell"):
        links[name] = os.path.join(link_dir, name)
        if os.path.lexists(links[name]):
            os.remove(links[name])
        os.symlink(warpsmith, links[name])
    reals = {"ptxas": real, "ptxas-blackwell": real_blackwell}

    base_env = dict(os.environ)
    for var in [v for v in base_env if v.startswith("WARPSMITH_") or v.startswith("TRITON_")]:
        del base_env[var]
    passes = [p.strip() for p in opts.passes.split(",") if p.strip()]
    # With the hook the drop-in knows each kernel's size and runs its own demote stage (and
    # compares "spill, then demote" with demote alone); without it the script stands in for it.
    script_demotes = "demote" in passes and not opts.hook
    ptx_passes = ",".join(p for p in passes if p != "demote" or not script_demotes)
    ws_env = dict(base_env, WARPSMITH_PTXAS=real, WARPSMITH_PTXAS_BLACKWELL=real_blackwell,
                  WARPSMITH_PASSES=ptx_passes)
    if opts.spill_max_regs:
        ws_env["WARPSMITH_SPILL_MAX_REGS"] = opts.spill_max_regs

    # Compile every (architecture, side) suite first, `--jobs` at a time.
    tasks = []
    compiled = {}
    for arch in opts.arch:
        for side, assemblers, env in (("ptxas", reals, base_env), ("warpsmith", links, ws_env)):
            d = os.path.join(out, arch, side)
            if opts.reuse and os.path.exists(os.path.join(d, "suite.json")):
                with open(os.path.join(d, "suite.json")) as f:
                    compiled[arch, side] = {c["case"]: c for c in json.load(f)["cases"]}
            else:
                tasks.append((arch, side, d, assemblers, env))
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, opts.jobs)) as pool:
        futures = {
            pool.submit(compile_suite, arch, d, sys.executable, asm, env, opts.only, opts.ci,
                        opts.corpus, opts.hook and side == "warpsmith"):
            (arch, side) for arch, side, d, asm, env in tasks}
        for fut in concurrent.futures.as_completed(futures):
            compiled[futures[fut]] = fut.result()[0]
    demoted = {}
    if script_demotes:
        for arch in opts.arch:
            demoted[arch] = demote_cubins(warpsmith, out, arch, compiled[arch, "warpsmith"])

    rows = []
    failed = False
    # With the hook the drop-in runs `demote` itself and promises a build no lower in its ranking
    # than `demote` alone on ptxas's cubin: checked on every row.
    pipeline_checked = "demote" in passes and opts.hook
    for arch in opts.arch:
        sides = {side: compiled[arch, side] for side in ("ptxas", "warpsmith")}
        for case, rb in sides["ptxas"].items():
            ra = sides["warpsmith"].get(case)
            row = {"case": case, "arch": arch}
            if ra is None:
                row.update(verdict="error", error="not compiled through warpsmith")
            elif "error" in rb:
                row.update(verdict="error", error=f"ptxas alone: {rb['error']}")
            elif "error" in ra:
                row.update(verdict="worse", error=f"through warpsmith: {ra['error']}")
            else:
                cb = os.path.join(out, arch, "ptxas", f"{case}.cubin")
                ca = os.path.join(out, arch, "warpsmith", f"{case}.cubin")
                before = measure(rb, cb, arch, tools)
                after = measure(ra, ca, arch, tools)
                warns = warnings_of(ra)
                wrapper = outcome(warns, cb, ca)
                if "demoted" in demoted.get(arch, {}).get(case, ""):
                    wrapper += ", demoted"
                if pipeline_checked:
                    alone = measure(rb, demote_alone(warpsmith, out, arch, case, rb), arch, tools)
                    row.update(demote_alone=alone)
                    if below(after, alone):
                        wrapper += f", below demote alone ({fmt_side(alone)})"
                        row.update(below_demote_alone=True)
                        failed = True
                row.update(kernel=rb["kernel"], threads=rb["threads"], before=before, after=after,
                           verdict=verdict(before, after), goal=goal(before, after),
                           wrapper=wrapper, warnings=warns,
                           demote=demoted.get(arch, {}).get(case),
                           ptxas_argv=ra["ptxas_calls"][0]["argv"][1:] if ra.get("ptxas_calls") else [])
            if row["verdict"] in ("worse", "error") or not row.get("after", {}).get("legal", True):
                failed = True
            if opts.require_goal and row.get("goal") == "missed":
                failed = True
            rows.append(row)

    spill_target = f", WARPSMITH_SPILL_MAX_REGS={opts.spill_max_regs}" if opts.spill_max_regs else ""
    print(f"\nwarpsmith ptxas (WARPSMITH_PASSES={opts.passes}{spill_target}) against ptxas alone ({real}, "
          f"{real_blackwell}); "
          "regs/local B/static smem B/occupancy\n")
    print("| kernel | arch | threads | dyn smem | ptxas alone | warpsmith | legal | verdict | goal | wrapper |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        if "before" not in r:
            print(f"| {r['case']} | {r['arch']} | | | | | | {r['verdict']} | | {r['error']} |")
            continue
        b, a = r["before"], r["after"]
        legal = "yes" if a["legal"] else f"NO ({a['static_smem'] + a['dynamic_smem']} > {a['smem_limit']})"
        grown = (f" (dynamic {a['dynamic_smem']})" if a["dynamic_smem"] != b["dynamic_smem"]
                 else "")
        print(f"| {r['case']} | {r['arch']} | {r['threads']} | {b['dynamic_smem']} | {fmt_side(b)} | "
              f"{fmt_side(a)}{grown} | {legal} | {r['verdict']} | {r['goal']} | {r['wrapper']} |")
    counts = {v: sum(r["verdict"] == v for r in rows) for v in ("worse", "equal", "better", "error")}
    print(f"\n{len(rows)} kernel builds: " + ", ".join(f"{n} {v}" for v, n in counts.items()) +
          f"; illegal launches: {sum(1 for r in rows if 'after' in r and not r['after']['legal'])}")
    report = {"passes": opts.passes, "spill_max_regs": opts.spill_max_regs, "real_ptxas": real, "real_ptxas_blackwell": real_blackwell,
              "warpsmith": warpsmith,
              "triton_version": triton.__version__, "rows": rows, "counts": counts,
              "result": "FAIL" if failed else "PASS"}
    with open(os.path.join(out, "never_worse.json.tmp"), "w") as f:
        json.dump(report, f, indent=2)
    os.replace(os.path.join(out, "never_worse.json.tmp"), os.path.join(out, "never_worse.json"))
    print(f"never_worse: {report['result']} (details: {os.path.join(out, 'never_worse.json')})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
