#!/usr/bin/env python3
"""Feature probes: the drop-in and both emulators on kernels that use what CUDA programs use and
our corpora rarely have (a development check, not in the test command; docs/benchmarks.md,
"Feature probes").

Each probe is one register-heavy body — N f32 values loaded, mixed in a loop bounded by a
parameter, stored — plus one feature: half-precision atomics ptxas emulates with a CAS loop,
16-bit compare-and-swap (also emulated), per-lane half-precision atomics, `st.async` into the neighbour CTA of a cluster (sm_90), `printf`, system-scope atomics with a volatile load and `membar.sys`, 64-bit CAS, a conditional
`trap`, programmatic dependent launch (`griddepcontrol`, sm_90), a two-CTA cluster reading its
neighbour's shared memory (sm_90), a spin wait with `nanosleep`, `alloca`, `redux.sync` with
`match.any.sync`, warp specialisation through named barriers with thread counts (`bar.arrive`,
`bar.sync 1, 128`), block ids split with `/` and `%` into 64-bit offsets, packed-half and f32
reductions (`red.global.add.noftz.f16x2`, `red.global.add.f32`), `setmaxnreg` (sm_90a), `prmt`
modes, 64-bit division and remainder, correctly rounded `div.rn`/`sqrt.rn` (f32, f64), and
`__device__` variables (a counter, a table, a pointer to it: relocated addresses). Every feature's memory
traffic goes to words no thread's output overlaps, so the outputs do not depend on the order the
CTAs run in.

For each probe: ptxas alone (`-v`), then `warpsmith ptxas` with WARPSMITH_PASSES=spill,shuffle,demote
and WARPSMITH_SPILL_MAX_REGS=auto (rewritten PTX kept), then `warpsmith equiv` of the original
and the rewritten PTX (PTX emulator, 2 seeds) and of the two cubins (SASS emulator), and
`warpsmith sass check` on both cubins. Prints one Markdown table row per probe.

    python3 bench/features/probe.py [--warpsmith target/release/warpsmith]
        [--ptxas .tools/bin/ptxas] [--out bench/out/features] [--n 56]
"""
import argparse
import json
import os
import re
import subprocess
import sys

# name → (arch, module-scope lines, declarations, feature body, entry directives)
PROBES = {
    "atom_f16": ("sm_80", "", "", """
  cvt.rn.f16.f32 %h1, %f0;
  atom.global.add.noftz.f16 %h2, [%rd2+FLAG], %h1;
  mov.b16 %h4, 0x3c00;
  atom.global.add.noftz.f16 %h5, [%rd2+FLAG2], %h4;
  cvt.f32.f16 %f1, %h2;
  st.global.b16 [%rd2+FLAG2+2], %h5;""", ""),
    "atom_f16_lanes": ("sm_80", "", "", """
  mul.wide.u32 %rd30, %r2, 2;
  add.s64 %rd31, %rd2, %rd30;
  mov.b16 %h4, 0x3c00;
  atom.global.add.noftz.f16 %h5, [%rd31+FLAG3], %h4;""", ""),
    "st_async": ("sm_90", "", """
  .shared .align 4 .b32 buf[128];
  .shared .align 8 .b64 bar;""", """
  mov.u32 %r30, buf;
  mov.u32 %r38, bar;
  setp.eq.u32 %p5, %r2, 0;
  @%p5 mbarrier.init.shared.b64 [bar], 1;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  mov.u32 %r31, %cluster_ctarank;
  xor.b32 %r32, %r31, 1;
  shl.b32 %r33, %r2, 2;
  add.u32 %r34, %r30, %r33;
  mapa.shared::cluster.u32 %r36, %r34, %r32;
  mapa.shared::cluster.u32 %r39, %r38, %r32;
  mov.b32 %r35, %f0;
  st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%r36], %r35, [%r39];
  barrier.cluster.arrive;
  barrier.cluster.wait;""", " .explicitcluster .reqnctapercluster 2, 1, 1"),
    "cas_b16": ("sm_80", "", "", """
  cvt.rn.f16.f32 %h1, %f0;
  atom.global.cas.b16 %h3, [%rd2+FLAG], %h1, %h1;
  mul.wide.u32 %rd30, %r2, 2;
  add.s64 %rd31, %rd2, %rd30;
  mov.b16 %h4, 0x3c00;
  atom.global.cas.b16 %h5, [%rd31+FLAG3], %h4, %h1;""", ""),
    "printf": ("sm_80", """
.extern .func (.param .b32 func_retval0) vprintf (.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
.global .align 1 .b8 $str[4] = {37, 102, 10, 0};""", """
  .local .align 8 .b8 __local_depot0[8];
  .reg .f64 %fd<4>;""", """
  setp.eq.s32 %p2, %r5, 0;
  @!%p2 bra NOPRINT;
  mov.u64 %rd10, __local_depot0;
  cvta.local.u64 %rd11, %rd10;
  cvt.f64.f32 %fd1, %f0;
  st.local.f64 [%rd10], %fd1;
  mov.u64 %rd12, $str;
  cvta.global.u64 %rd13, %rd12;
  { .param .b64 param0; st.param.b64 [param0], %rd13;
    .param .b64 param1; st.param.b64 [param1], %rd11;
    .param .b32 retval0;
    call.uni (retval0), vprintf, (param0, param1);
    ld.param.b32 %r20, [retval0]; }
NOPRINT:""", ""),
    "sys_atomics": ("sm_80", "", "", """
  atom.global.sys.add.u32 %r20, [%rd2+FLAG], 1;
  ld.volatile.global.u32 %r21, [%rd2+FLAG2];
  membar.sys;
  cvt.rn.f32.u32 %f40, %r21;
  add.f32 %f0, %f0, %f40;""", ""),
    "cas64": ("sm_80", "", "", """
  mov.b64 %rd20, 0;
  mov.b64 %rd21, 1;
  atom.global.cas.b64 %rd22, [%rd2+FLAG], %rd20, %rd21;
  setp.eq.u64 %p3, %rd22, 7;
  @%p3 add.f32 %f3, %f3, %f2;""", ""),
    "trap": ("sm_80", "", "", """
  setp.gt.s32 %p3, %r1, 1000000;
  @%p3 trap;""", ""),
    "pdl": ("sm_90", "", "", """
  griddepcontrol.wait;
  griddepcontrol.launch_dependents;""", ""),
    "cluster_dsmem": ("sm_90", "", """
  .shared .align 4 .b32 buf[128];""", """
  mov.u32 %r30, buf;
  mov.u32 %r31, %cluster_ctarank;
  xor.b32 %r32, %r31, 1;
  shl.b32 %r33, %r2, 2;
  add.u32 %r34, %r30, %r33;
  mov.b32 %r35, %f0;
  st.shared.u32 [%r34], %r35;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  mapa.shared::cluster.u32 %r36, %r34, %r32;
  ld.shared::cluster.u32 %r37, [%r36];
  mov.b32 %f40, %r37;
  add.f32 %f4, %f4, %f40;
  barrier.cluster.arrive;
  barrier.cluster.wait;""", " .explicitcluster .reqnctapercluster 2, 1, 1"),
    "spin_wait": ("sm_80", "", "", """
SPIN:
  ld.acquire.gpu.global.u32 %r40, [%rd2+FLAG];
  setp.eq.u32 %p4, %r40, 0;
  @%p4 bra SPINDONE;
  nanosleep.u32 20;
  bra SPIN;
SPINDONE:""", ""),
    "alloca": ("sm_80", "", "", """
  mul.lo.u32 %r41, %r1, 4;
  and.b32 %r41, %r41, 60;
  add.u32 %r41, %r41, 4;
  cvt.u64.u32 %rd40, %r41;
  alloca.u64 %rd41, %rd40, 16;
  mov.b32 %r42, %f6;
  st.local.u32 [%rd41], %r42;
  ld.local.u32 %r43, [%rd41];
  mov.b32 %f40, %r43;
  add.f32 %f8, %f8, %f40;""", ""),
    "redux_match": ("sm_80", "", "", """
  mov.b32 %r44, %f9;
  redux.sync.max.u32 %r45, %r44, 0xffffffff;
  match.any.sync.b32 %r46, %r45, 0xffffffff;
  add.u32 %r45, %r45, %r46;
  cvt.rn.f32.u32 %f40, %r45;
  add.f32 %f11, %f11, %f40;""", ""),
    "named_barriers": ("sm_80", "", """
  .shared .align 4 .b32 xbuf[64];""", """
  mov.u32 %r60, xbuf;
  and.b32 %r61, %r2, 63;
  shl.b32 %r61, %r61, 2;
  add.u32 %r62, %r60, %r61;
  setp.lt.u32 %p6, %r2, 64;
  @!%p6 bra NBCONS;
  mov.b32 %r63, %f0;
  st.shared.u32 [%r62], %r63;
  bar.arrive 1, 128;
  bra NBDONE;
NBCONS:
  bar.sync 1, 128;
  ld.shared.u32 %r63, [%r62];
  mov.b32 %f40, %r63;
  add.f32 %f3, %f3, %f40;
NBDONE:""", ""),
    "red_f16x2": ("sm_80", "", "", """
  cvt.rn.f16.f32 %h1, %f0;
  cvt.rn.f16.f32 %h2, %f1;
  mov.b32 %r40, {%h1, %h2};
  mul.wide.u32 %rd30, %r2, 4;
  add.s64 %rd31, %rd2, %rd30;
  red.global.add.noftz.f16x2 [%rd31+FLAG3], %r40;
  red.global.add.f32 [%rd2+FLAG], 0f3F800000;""", ""),
    "setmaxnreg": ("sm_90a", "", "", """
  setmaxnreg.inc.sync.aligned.u32 160;
  mov.b32 %r40, %f13;
  add.u32 %r40, %r40, %r2;
  mov.b32 %f13, %r40;""", " .maxnreg 128"),
    "prmt_modes": ("sm_80", "", "", """
  mov.b32 %r40, %f0;
  mov.b32 %r41, %f1;
  prmt.b32.f4e %r42, %r40, %r41, %r2;
  prmt.b32.rc16 %r43, %r40, %r41, %r2;
  prmt.b32.ecl %r44, %r40, %r41, %r2;
  xor.b32 %r42, %r42, %r43;
  xor.b32 %r42, %r42, %r44;
  and.b32 %r42, %r42, 0x3fffffff;
  mov.b32 %f40, %r42;
  add.f32 %f5, %f5, %f40;""", ""),
    "div64": ("sm_80", "", "", """
  cvt.u64.u32 %rd40, %r5;
  mul.lo.u64 %rd40, %rd40, 2654435761;
  cvt.u64.u32 %rd41, %r1;
  add.u64 %rd41, %rd41, 7;
  div.u64 %rd42, %rd40, %rd41;
  rem.s64 %rd43, %rd40, %rd41;
  add.u64 %rd42, %rd42, %rd43;
  cvt.rn.f32.u64 %f40, %rd42;
  add.f32 %f6, %f6, %f40;""", ""),
    "fdiv_sqrt_rn": ("sm_80", "", """
  .reg .f64 %fd<4>;""", """
  abs.f32 %f41, %f9;
  sqrt.rn.f32 %f41, %f41;
  div.rn.f32 %f40, %f7, %f8;
  add.f32 %f40, %f40, %f41;
  cvt.f64.f32 %fd1, %f10;
  cvt.f64.f32 %fd2, %f11;
  div.rn.f64 %fd3, %fd1, %fd2;
  cvt.rn.f32.f64 %f42, %fd3;
  add.f32 %f40, %f40, %f42;
  add.f32 %f7, %f7, %f40;""", ""),
    "device_vars": ("sm_80", """
.global .align 4 .u32 hits;
.global .align 4 .f32 coef[4] = {0f3F800000, 0f40000000, 0f40400000, 0f40800000};
.global .align 8 .u64 coef_at = coef;""", "", """
  atom.global.add.u32 %r40, [hits], 1;
  and.b32 %r41, %r2, 3;
  ld.global.u64 %rd40, [coef_at];
  mul.wide.u32 %rd41, %r41, 4;
  add.s64 %rd42, %rd40, %rd41;
  ld.f32 %f40, [%rd42];
  add.f32 %f13, %f13, %f40;""", ""),
    "div_mod_ids": ("sm_80", "", "", """
  mov.u32 %r50, %ctaid.y;
  div.u32 %r51, %r50, 3;
  rem.u32 %r52, %r50, 3;
  mul.wide.u32 %rd50, %r51, 1024;
  mul.wide.u32 %rd51, %r52, 256;
  add.s64 %rd52, %rd50, %rd51;
  add.s64 %rd53, %rd1, %rd52;
  ld.global.f32 %f40, [%rd53];
  add.f32 %f12, %f12, %f40;""", ""),
}


def kernel_ptx(name, n):
    """The probe's PTX: loads, a mixing loop, the feature, stores (element stride 256 words)."""
    arch, module, decls, feature, directives = PROBES[name]
    flag = 4 * (256 * n + 8)  # past every thread's outputs
    feature = (feature.replace("FLAG3", str(flag + 64)).replace("FLAG2", str(flag + 8))
               .replace("FLAG", str(flag)))
    lines = [".version 8.1", f".target {arch}", ".address_size 64", module,
             f".visible .entry k(.param .u64 pa, .param .u64 pout, .param .u32 n) .reqntid 128{directives}",
             "{",
             f"  .reg .b32 %r<64>; .reg .b64 %rd<64>; .reg .f32 %f<{n + 48}>; .reg .pred %p<8>;"
             " .reg .b16 %h<8>;",
             decls,
             "  ld.param.u64 %rd1, [pa]; ld.param.u64 %rd2, [pout]; ld.param.u32 %r1, [n];",
             "  cvta.to.global.u64 %rd1, %rd1; cvta.to.global.u64 %rd2, %rd2;",
             "  mov.u32 %r2, %tid.x; mov.u32 %r3, %ctaid.x; mov.u32 %r4, %ntid.x;",
             "  mad.lo.s32 %r5, %r3, %r4, %r2;",
             "  mul.wide.s32 %rd3, %r5, 4; add.s64 %rd4, %rd1, %rd3; add.s64 %rd5, %rd2, %rd3;"]
    lines += [f"  ld.global.f32 %f{i}, [%rd4+{1024 * i}];" for i in range(n)]
    lines += ["  mov.u32 %r6, 0;", "LOOP:"]
    lines += [f"  fma.rn.f32 %f{i}, %f{i}, %f{(i + 1) % n}, %f{(i + 7) % n};" for i in range(n)]
    lines += ["  add.s32 %r6, %r6, 1;", "  setp.lt.s32 %p1, %r6, %r1;", "  @%p1 bra LOOP;",
              feature]
    lines += [f"  st.global.f32 [%rd5+{1024 * i}], %f{i};" for i in range(n)]
    lines += ["  ret;", "}", ""]
    return "\n".join(line for line in lines if line)


def spec(name, n):
    grid = [2, 4] if name == "div_mod_ids" else [2, 1]
    words = 256 * n + 256  # every output, then the features' words (up to 4 per thread)
    return {"kernel": "k", "grid": grid, "block": [128], "args": [
        {"buffer": {"type": "f32", "len": words, "init": "random"}},
        {"buffer": {"type": "f32", "len": words, "init": "zero"}},
        {"scalar": {"type": "u32", "value": 3}}]}


def ptxas_v(text):
    """(registers, stack frame bytes, shared bytes) from `ptxas -v` output."""
    g = lambda pat: int(m.group(1)) if (m := re.search(pat, text)) else 0
    return g(r"Used (\d+) registers"), g(r"(\d+) bytes stack frame"), g(r"(\d+) bytes smem")


def run(cmd, env=None):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    return p.returncode, p.stdout + p.stderr


def last_line(text):
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else ""


def equiv(ws, spec_path, a, b):
    rc, out = run([ws, "equiv", "--launch", spec_path, "--seeds", "2", a, b])
    line = last_line(out)
    if rc == 0:
        return "equal"
    m = re.search(r"unsupported instruction `([^`]*)`", line)
    return f"unsupported `{m.group(1).split()[0]}`" if m else line[:80]


def sass_check(ws, cubin):
    rc, out = run([ws, "sass", "check", cubin])
    if rc == 0:
        return "ok"
    names = sorted(set(re.findall(r"nvdisasm says (\S+)", out)))
    return "unknown " + ", ".join(names) if names else last_line(out)[:60]


def probe(name, args):
    arch = PROBES[name][0]
    base = os.path.join(args.out, name)
    ptx, spec_path = base + ".ptx", base + ".spec.json"
    with open(ptx, "w") as f:
        f.write(kernel_ptx(name, args.n))
    with open(spec_path, "w") as f:
        json.dump(spec(name, args.n), f)
    rc, out = run([args.ptxas, "-arch", arch, "-v", ptx, "-o", base + ".alone.cubin"])
    if rc != 0:
        return [name, arch, "ptxas refused: " + last_line(out)] + [""] * 5
    alone = ptxas_v(out)
    env = dict(os.environ, WARPSMITH_PTXAS=args.ptxas, WARPSMITH_KEEP_TEMPS="1",
               WARPSMITH_PASSES="spill,shuffle,demote", WARPSMITH_SPILL_MAX_REGS="auto",
               WARPSMITH_SPILL_DYNAMIC_SMEM="0")
    rc, out = run([args.warpsmith, "ptxas", "-arch", arch, "-v", ptx, "-o", base + ".ws.cubin"],
                  env)
    if rc != 0:
        return [name, arch, f"{alone}", "drop-in failed: " + last_line(out)] + [""] * 4
    ws = ptxas_v(out)
    kept = re.findall(r"rewritten PTX of \S+ kept at (\S+)", out)
    fmt = lambda t: f"{t[0]} / {t[1]} / {t[2]}"
    ptx_eq = equiv(args.warpsmith, spec_path, ptx, kept[-1]) if kept else "no rewrite"
    cubin_eq = equiv(args.warpsmith, spec_path, base + ".alone.cubin", base + ".ws.cubin")
    checks = {sass_check(args.warpsmith, base + c) for c in (".alone.cubin", ".ws.cubin")}
    return [name, arch, fmt(alone), fmt(ws), ptx_eq, cubin_eq, "; ".join(sorted(checks))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--warpsmith", default="target/release/warpsmith")
    ap.add_argument("--ptxas", default=".tools/bin/ptxas")
    ap.add_argument("--out", default="bench/out/features")
    ap.add_argument("--n", type=int, default=56, help="live f32 values of the body")
    ap.add_argument("probes", nargs="*", default=list(PROBES))
    args = ap.parse_args()
    args.warpsmith = os.path.abspath(args.warpsmith)
    args.ptxas = os.path.abspath(args.ptxas)
    os.makedirs(args.out, exist_ok=True)
    print("| probe | arch | ptxas alone: regs / stack / smem | drop-in (`auto`) | PTX `equiv` "
          "| cubin `equiv` | `sass check` |")
    print("|---|---|---|---|---|---|---|")
    for name in args.probes:
        if name not in PROBES:
            sys.exit(f"unknown probe {name} (probes: {', '.join(PROBES)})")
        print("| " + " | ".join(probe(name, args)) + " |", flush=True)


if __name__ == "__main__":
    main()
