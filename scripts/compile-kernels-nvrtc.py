#!/usr/bin/env python3
"""Compiles the CUDA kernels of bench/kernels (the same files scripts/compile-kernels.sh gives to
clang) with NVIDIA's own front end, NVRTC (NVVM, the compiler inside nvcc), to PTX:

    OUTDIR/<name>.<arch>.nvrtc.ptx      (<name>: the file name without .cu)

The PTX nvcc users hand to ptxas looks different from clang's: typed virtual registers (%f, %rd),
`mul.wide` + `add.s64` addressing on `cvta.to.global` pointers, `ld.global.nc` chosen by NVVM,
its own loop shapes and local-memory use. The tests run the analyses and rewrites on this PTX as
inputs they were not written against (tests/nvrtc_kernels.rs).

No GPU and no CUDA installation are needed: libnvrtc comes from NVIDIA's PyPI wheel
(nvidia-cuda-nvrtc-cu12, put in .tools/nvidia by scripts/setup.sh), the CUDA headers two kernels
include (cuda_fp16.h) from .tools/cuda. bench/kernels/prelude.h is not used: NVRTC declares the
CUDA built-ins itself.

Usage: scripts/compile-kernels-nvrtc.py OUTDIR [--arch sm_80 --arch sm_90 ...]
Environment: WARPSMITH_NVRTC names libnvrtc.so (default: the one in .tools/nvidia).
Exit status: 0 when every file compiled; 1 after printing every error; 2 when libnvrtc is missing.
"""

import argparse
import ctypes
import glob
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def find_nvrtc():
    """The path of libnvrtc.so, or None."""
    env = os.environ.get("WARPSMITH_NVRTC")
    if env:
        return env if os.path.isfile(env) else None
    hits = sorted(glob.glob(os.path.join(ROOT, ".tools/nvidia/nvidia/cuda_nvrtc/lib/libnvrtc.so*")))
    hits = [h for h in hits if "builtins" not in h and ".alt." not in h]
    return hits[0] if hits else None


class Nvrtc:
    """The few NVRTC entry points the compile needs."""

    def __init__(self, path):
        self.lib = ctypes.CDLL(path)

    def _text(self, prog, size_fn, get_fn):
        n = ctypes.c_size_t()
        size_fn(prog, ctypes.byref(n))
        buf = ctypes.create_string_buffer(n.value)
        get_fn(prog, buf)
        return buf.value.decode(errors="replace")

    def compile(self, source, name, options):
        """(ptx, log): ptx is None when NVRTC rejected the source."""
        prog = ctypes.c_void_p()
        rc = self.lib.nvrtcCreateProgram(
            ctypes.byref(prog), source.encode(), name.encode(), 0, None, None
        )
        if rc != 0:
            return None, f"nvrtcCreateProgram failed ({rc})"
        try:
            opts = (ctypes.c_char_p * len(options))(*[o.encode() for o in options])
            rc = self.lib.nvrtcCompileProgram(prog, len(options), opts)
            log = self._text(prog, self.lib.nvrtcGetProgramLogSize, self.lib.nvrtcGetProgramLog)
            if rc != 0:
                return None, log
            return self._text(prog, self.lib.nvrtcGetPTXSize, self.lib.nvrtcGetPTX), log
        finally:
            self.lib.nvrtcDestroyProgram(ctypes.byref(prog))


def sources():
    """The bench kernels, as scripts/compile-kernels.sh finds them."""
    base = os.path.join(ROOT, "bench/kernels")
    return sorted(glob.glob(os.path.join(base, "*.cu")) + glob.glob(os.path.join(base, "*/*.cu")))


def options(source_path, text, arch):
    opts = [
        f"--gpu-architecture=compute_{arch.removeprefix('sm_')}",
        "-default-device",
        "--device-int128",
        "-I" + os.path.dirname(source_path),
        "-I" + os.path.join(ROOT, ".tools/cuda/include"),
    ]
    if "__half" in text:
        opts.append("--pre-include=cuda_fp16.h")
    return opts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--arch", action="append", help="sm_XX (default: sm_80 and sm_90)")
    args = ap.parse_args()
    archs = args.arch or ["sm_80", "sm_90"]
    lib = find_nvrtc()
    if lib is None:
        print("error: libnvrtc not found (run scripts/setup.sh or set WARPSMITH_NVRTC)", file=sys.stderr)
        return 2
    nvrtc = Nvrtc(lib)
    os.makedirs(args.outdir, exist_ok=True)
    failed = 0
    for path in sources():
        text = open(path).read()
        name = os.path.splitext(os.path.basename(path))[0]
        for arch in archs:
            ptx, log = nvrtc.compile(text, os.path.basename(path), options(path, text, arch))
            if ptx is None:
                failed += 1
                print(f"error: {path} ({arch}):\n{log}", file=sys.stderr)
                continue
            with open(os.path.join(args.outdir, f"{name}.{arch}.nvrtc.ptx"), "w") as f:
                f.write(ptx)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
