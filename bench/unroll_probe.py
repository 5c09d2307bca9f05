#!/usr/bin/env python3
"""How far ptxas unrolls a counted loop with a constant trip count (issue 12's register model:
src/analysis/loop_unroll.rs models only the unrolling by 4 of small loops whose count is unknown).

    python3 bench/unroll_probe.py [--ptxas .tools/bin/ptxas] [--nvdisasm .tools/bin/nvdisasm]
        [--arch sm_80] [--trips 2,3,4,6,9,12] [--bodies 4:60,8:90,8:140,16:180]

For each trip count T and body L:F (L `ld.global.nc.f32` and F dependent `fma.rn.f32` in one PTX
block that branches back to itself, `setp.ne` against the immediate T), assembles the kernel and
counts the `FFMA`s in the SASS: `full` when there are T·F (unrolled completely), `xK` when K·F
(unrolled K times, a remainder included), `rolled` when F. The size column is the loop's size in
loop_unroll's units (instructions, global loads twice, 4 of loop control). Session 62's figures:
docs/benchmarks.md, "FlagGems: a second foreign Triton library".
"""

import argparse
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def kernel(arch, trip, loads, fmas):
    """A kernel whose one loop runs `trip` times over `loads` loads and `fmas` FMAs."""
    body = [f"ld.global.nc.f32 %f{10 + i}, [%rd2+{4 * i}];" for i in range(loads)]
    body += [f"fma.rn.f32 %f1, %f{10 + j % max(loads, 1)}, %f1, %f2;" for j in range(fmas)]
    body = "\n\t".join(body)
    return f""".version 8.4
.target {arch}
.address_size 64
.visible .entry probe(.param .u64 p, .param .u64 q)
{{
.reg .pred %p<2>; .reg .b32 %r<4>; .reg .f32 %f<{10 + max(loads, 1)}>; .reg .b64 %rd<6>;
ld.param.u64 %rd1, [p]; ld.param.u64 %rd5, [q];
mov.u32 %r1, %tid.x; mul.wide.u32 %rd3, %r1, 4; add.s64 %rd2, %rd1, %rd3;
mov.f32 %f1, 0f00000000; mov.f32 %f2, 0f3F800000;
mov.u32 %r2, 0;
$L_loop:
\t{body}
\tadd.s64 %rd2, %rd2, 1024;
\tadd.s32 %r2, %r2, 1;
\tsetp.ne.s32 %p1, %r2, {trip};
\t@%p1 bra $L_loop;
add.s64 %rd4, %rd5, %rd3;
st.global.f32 [%rd4], %f1;
ret;
}}
"""


def ffma_count(opts, work, trip, loads, fmas):
    ptx, cubin = os.path.join(work, "probe.ptx"), os.path.join(work, "probe.cubin")
    with open(ptx, "w") as f:
        f.write(kernel(opts.arch, trip, loads, fmas))
    subprocess.run([opts.ptxas, f"-arch={opts.arch}", ptx, "-o", cubin], check=True)
    listing = subprocess.run([opts.nvdisasm, "-c", cubin], capture_output=True, text=True,
                             check=True).stdout
    return listing.count("FFMA")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ptxas", default=os.path.join(ROOT, ".tools", "bin", "ptxas"))
    ap.add_argument("--nvdisasm", default=os.path.join(ROOT, ".tools", "bin", "nvdisasm"))
    ap.add_argument("--arch", default="sm_80")
    ap.add_argument("--trips", default="2,3,4,6,9,12")
    ap.add_argument("--bodies", default="4:60,8:90,8:140,16:180")
    opts = ap.parse_args()
    for tool in (opts.ptxas, opts.nvdisasm):
        if not os.access(tool, os.X_OK):
            print(f"unroll_probe: {tool} is not an executable (scripts/setup.sh)", file=sys.stderr)
            return 2
    bodies = [tuple(int(x) for x in b.split(":")) for b in opts.bodies.split(",")]
    print("trip  " + "  ".join(f"{l}:{f} ({2 * l + f + 4} units)" for l, f in bodies))
    with tempfile.TemporaryDirectory() as work:
        for trip in (int(t) for t in opts.trips.split(",")):
            cells = []
            for loads, fmas in bodies:
                n = ffma_count(opts, work, trip, loads, fmas)
                cells.append("full" if n == trip * fmas else
                             "rolled" if n == fmas else f"x{n / fmas:g}")
            print(f"{trip:<5} " + "  ".join(f"{c:>{len(f'{l}:{f} ({2 * l + f + 4} units)')}}"
                                           for c, (l, f) in zip(cells, bodies)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
