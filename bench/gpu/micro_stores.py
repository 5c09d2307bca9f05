#!/usr/bin/env python3
"""Store microbenchmarks (bench/gpu/micro/stores.cu) for the cycle model's store figures.

    python3 bench/gpu/micro_stores.py build [--out bench/gpu/cases/micro]   # here: clang + ptxas
    python3 bench/gpu/micro_stores.py run [--cases bench/gpu/cases/micro] [--once]   # on the GPU

`build` compiles the kernels for sm_90 (clang 22 to PTX, the project's ptxas to a cubin) into the
git-ignored cases folder the device tool carries. `run` launches each kernel on 132 and on 264
blocks of 256 threads (one and two blocks per H100 SM), after clearing the output (a sample of
one word per 4 KiB says how much the launch wrote; the values themselves are not the point), and
prints the median of 50 timed launches; with `--once` it launches each kernel once per grid and
times nothing, for Nsight Compute:

    ncu --csv --metrics gpu__time_duration.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,\
lts__t_sectors_srcunit_tex_op_write.sum,sm__cycles_active.max,\
smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,\
smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio \
        -k regex:^st_ python3 bench/gpu/micro_stores.py run --once

(`--only REGEX` runs a subset). docs/tune.md, "Stores and the LSU queue", says what they
measured. Exit status 2 without a GPU.
"""
import argparse
import ctypes
import os
import re
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import h100_checks  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# (kernel, fifth parameter or None): st_rows_chase's chase steps P, st_rows_lds's loads L.
KERNELS = [("st_rows", None), ("st_rows_paced", None), ("st_cols", None), ("st_rows_vec", None),
           ("st_coalesced", None)] + [("st_rows_chase", p) for p in (0, 1, 2, 4, 8)] + \
    [("st_rows_lds", n) for n in (0, 1, 2, 4, 8)] + \
    [(k, None) for k in ("st_rows_fchain2", "st_rows_fchain8", "st_rows_fchain32", "st_rows_dchase1",
                         "st_rows_dchase4", "st_rows_gld", "st_rows_paced_addr", "st_rows_asc",
                         "st_rows_desc", "st_rows_swap", "st_rows_top", "st_rows_halves")]
N = 1536          # row length (floats), as heavy_sgemm_8x8's spec
T = 4             # FMA rounds before the stores
A = 0.5
GRIDS = [(12, 11), (12, 22)]   # 132 and 264 blocks


def build(out):
    os.makedirs(out, exist_ok=True)
    ptx = os.path.join(out, "stores.ptx")
    clang = os.environ.get("WARPSMITH_CLANG", "/usr/lib/llvm-22/bin/clang")
    subprocess.run([clang, "-x", "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib",
                    "--cuda-gpu-arch=sm_90", "--cuda-feature=+ptx80", "-O3", "-S", "-include",
                    os.path.join(ROOT, "bench", "kernels", "prelude.h"),
                    os.path.join(ROOT, "bench", "gpu", "micro", "stores.cu"), "-o", ptx], check=True)
    subprocess.run([os.path.join(ROOT, ".tools", "bin", "ptxas"), "-arch=sm_90", "-v", ptx, "-o",
                    os.path.join(out, "stores.cubin")], check=True)
    print("built %s" % os.path.join(out, "stores.cubin"))
    return 0


def run(cases, once, only):
    try:
        gpu = h100_checks.Gpu()
    except RuntimeError as e:
        print("micro_stores: %s" % e, file=sys.stderr)
        return 2
    cuda, lib = gpu.cuda, gpu.lib
    size = 22 * 128 * N * 4
    # st_rows_gld reads zeros just past the written region
    buf = cuda.alloc(b"\0" * (size + 4096))
    ev = [ctypes.c_void_p(), ctypes.c_void_p()]
    for e in ev:
        cuda.check(lib.cuEventCreate(ctypes.byref(e), 0), "cuEventCreate")
    for kernel, chase in KERNELS:
        if only and not re.search(only, kernel):
            continue
        f = gpu.load(os.path.join(cases, "stores.cubin"), kernel)
        blobs = [struct.pack("<Q", buf.value), struct.pack("<i", N), struct.pack("<f", A),
                 struct.pack("<i", T)]
        name = kernel
        if chase is not None:
            blobs.append(struct.pack("<i", chase))
            name = "%s %s=%d" % (kernel, "P" if kernel == "st_rows_chase" else "L", chase)
        holders = [ctypes.create_string_buffer(b, len(b)) for b in blobs]
        params = (ctypes.c_void_p * len(holders))(*[ctypes.cast(h, ctypes.c_void_p) for h in holders])
        for gx, gy in GRIDS:
            def launch():
                cuda.check(lib.cuLaunchKernel(f, gx, gy, 1, 256, 1, 1, 0, None, params, None),
                           "cuLaunchKernel")
            cuda.check(lib.cuMemsetD8_v2(buf, 0, ctypes.c_size_t(size)), "cuMemsetD8")
            launch()
            cuda.check(lib.cuCtxSynchronize(), "kernel execution")
            written = sum(1 for k in range(0, size, 4096) if cuda.read(ctypes.c_uint64(buf.value + k), 4) != b"\0" * 4)
            if once:
                print("%-18s %3d blocks: launched (%d of %d sampled words written)"
                      % (name, gx * gy, written, size // 4096))
                continue
            ts = []
            for _ in range(5):
                launch()
            for _ in range(50):
                lib.cuEventRecord(ev[0], None)
                launch()
                lib.cuEventRecord(ev[1], None)
                cuda.check(lib.cuEventSynchronize(ev[1]), "kernel execution")
                ms = ctypes.c_float()
                lib.cuEventElapsedTime(ctypes.byref(ms), ev[0], ev[1])
                ts.append(ms.value * 1000.0)
            print("%-18s %3d blocks: %7.2f us" % (name, gx * gy, h100_checks.median(ts)))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cmd", choices=["build", "run"])
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "gpu", "cases", "micro"))
    ap.add_argument("--cases", default=os.path.join(ROOT, "bench", "gpu", "cases", "micro"))
    ap.add_argument("--once", action="store_true")
    ap.add_argument("--only", metavar="REGEX", help="run only the kernels whose name matches")
    a = ap.parse_args()
    return build(a.out) if a.cmd == "build" else run(a.cases, a.once, a.only)


if __name__ == "__main__":
    sys.exit(main())
