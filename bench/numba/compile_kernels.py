#!/usr/bin/env python3
"""Numba CUDA kernels, written the way Numba users write them, compiled to PTX without a GPU, each
with a warpsmith launch spec beside it: OUT/<name>.<sm_80|sm_90>.ptx and .spec.json.

Numba's PTX is unlike clang's, NVRTC's or Triton's: every index is a 64-bit Python integer,
negative indices wrap around (`a[i - 1]` reads `a[n - 1]` at `i = 0`), and an array argument
arrives as seven parameters (meminfo, parent, nitems, itemsize, data, shape[d], strides[d]). It
is a corpus the analyses were not written against (docs/benchmarks.md, "Numba's PTX").

Not part of the test command (setup.sh does not install Numba). By hand:

    python3 -m pip install --target .tools/numba numba           # Numba 0.68 + llvmlite, numpy
    PYTHONPATH=.tools/numba python3 bench/numba/compile_kernels.py OUT
    WARPSMITH_SPEC_PTX_DIR=OUT cargo test --test divergence_soundness ptx_with_specs_from_environment
    warpsmith shuffle --all OUT/stencil3.sm_80.ptx -o s.ptx
    warpsmith equiv OUT/stencil3.sm_80.ptx s.ptx --launch OUT/stencil3.sm_80.spec.json

NVVM comes from the ptxas wheel (.tools/nvidia) and the CUDA runtime Numba asks for its supported
architectures from .tools/cuda (scripts/setup.sh); the script re-runs itself with them on
LD_LIBRARY_PATH, which the dynamic loader reads only at start-up.
"""
import json
import math
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIBS = [os.path.join(ROOT, ".tools/nvidia/nvidia/cuda_nvcc/nvvm/lib64"), os.path.join(ROOT, ".tools/cuda/lib64")]
if os.environ.get("WARPSMITH_NUMBA_ENV") != "1":
    env = dict(os.environ, WARPSMITH_NUMBA_ENV="1",
               CUDA_HOME=os.path.join(ROOT, ".tools/nvidia/nvidia/cuda_nvcc"),
               LD_LIBRARY_PATH=":".join(LIBS + [os.environ.get("LD_LIBRARY_PATH", "")]))
    os.execve(sys.executable, [sys.executable] + sys.argv, env)

from numba import cuda, float32  # noqa: E402  (after the re-exec above)


def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = a * x[i] + y[i]

def stencil3(a, out):
    i = cuda.grid(1)
    if i > 0 and i < a.shape[0] - 1:
        out[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0

def shift_wrap(a, out):
    # Python semantics: a[-1] is the last element.
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i] = a[i - 1] - a[i]

def jacobi2d(a, out):
    i, j = cuda.grid(2)
    n, m = a.shape
    if 0 < i < n - 1 and 0 < j < m - 1:
        out[i, j] = 0.25 * (a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1])

def matmul(A, B, C):
    i, j = cuda.grid(2)
    if i < C.shape[0] and j < C.shape[1]:
        acc = 0.0
        for k in range(A.shape[1]):
            acc += A[i, k] * B[k, j]
        C[i, j] = acc

def block_sum(x, out):
    s = cuda.shared.array(128, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else 0.0
    cuda.syncthreads()
    step = 64
    while step > 0:
        if t < step:
            s[t] += s[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        cuda.atomic.add(out, 0, s[0])

def softplus(x, out):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        out[i] = math.log(1.0 + math.exp(v)) if v < 20.0 else v

def conv1d(x, w, out):
    i = cuda.grid(1)
    r = w.size // 2
    if i >= r and i < x.size - r:
        acc = 0.0
        for k in range(w.size):
            acc += w[k] * x[i - r + k]
        out[i] = acc

def tile_transpose(a, out):
    tile = cuda.shared.array((32, 33), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bx = cuda.blockIdx.x * 32
    by = cuda.blockIdx.y * 32
    n, m = a.shape
    if by + ty < n and bx + tx < m:
        tile[ty, tx] = a[by + ty, bx + tx]
    cuda.syncthreads()
    if bx + ty < m and by + tx < n:
        out[bx + ty, by + tx] = tile[tx, ty]

f1 = float32[:]
f2 = float32[:, :]
N = 1024
CASES = [
    # name, fn, signature, arg kinds, grid, block
    ("saxpy", saxpy, (float32, f1, f1, f1), [("f32", 2.5), ("arr", [N]), ("arr", [N]), ("arr", [N])], [4], [256]),
    ("stencil3", stencil3, (f1, f1), [("arr", [N]), ("arr", [N])], [4], [256]),
    ("shift_wrap", shift_wrap, (f1, f1), [("arr", [N]), ("arr", [N])], [4], [256]),
    ("jacobi2d", jacobi2d, (f2, f2), [("arr", [40, 36]), ("arr", [40, 36])], [3, 3], [16, 16]),
    ("matmul", matmul, (f2, f2, f2), [("arr", [40, 24]), ("arr", [24, 36]), ("arr", [40, 36])], [3, 3], [16, 16]),
    ("block_sum", block_sum, (f1, f1), [("arr", [1000]), ("arr", [1])], [8], [128]),
    ("softplus", softplus, (f1, f1), [("arr", [N]), ("arr", [N])], [4], [256]),
    ("conv1d", conv1d, (f1, f1, f1), [("arr", [N]), ("arr", [7]), ("arr", [N])], [4], [256]),
    ("tile_transpose", tile_transpose, (f2, f2), [("arr", [70, 50]), ("arr", [50, 70])], [2, 3], [32, 32]),
]


def args_of(kinds):
    """The launch spec's `args` for a case: a float scalar as itself, an array as Numba passes
    it (meminfo and parent null, nitems, itemsize 4, the data as a random f32 buffer, its shape
    and its row-major strides in bytes)."""
    args = []
    seed = 1
    for kind, v in kinds:
        if kind == "f32":
            args.append({"scalar": {"type": "f32", "value": v}})
            continue
        shape = v
        n = 1
        for d in shape:
            n *= d
        args.append({"scalar": {"type": "u64", "value": 0}})   # meminfo
        args.append({"scalar": {"type": "u64", "value": 0}})   # parent
        args.append({"scalar": {"type": "s64", "value": n}})   # nitems
        args.append({"scalar": {"type": "s64", "value": 4}})   # itemsize
        args.append({"buffer": {"type": "f32", "len": n, "init": "random", "seed": seed}})
        for d in shape:
            args.append({"scalar": {"type": "s64", "value": d}})
        stride = 4
        strides = []
        for d in reversed(shape):
            strides.append(stride)
            stride *= d
        for s in reversed(strides):
            args.append({"scalar": {"type": "s64", "value": s}})
        seed += 1
    return args


def main():
    if len(sys.argv) != 2:
        print("usage: compile_kernels.py OUT", file=sys.stderr)
        return 2
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for cc in [(8, 0), (9, 0)]:
        compile_all(cc, out)
    return 0


def compile_all(cc, out):
    arch = f"sm_{cc[0]}{cc[1]}"
    for name, fn, sig, kinds, grid, block in CASES:
        ptx, _ = cuda.compile_ptx(fn, sig, cc=cc)
        entry = next(line for line in ptx.splitlines() if line.startswith(".visible .entry"))
        kernel = entry.split()[2].rstrip("(")
        base = os.path.join(out, f"{name}.{arch}")
        with open(base + ".ptx", "w") as f:
            f.write(ptx)
        spec = {"kernel": kernel, "grid": grid, "block": block, "dynamic_smem": 0,
                "args": args_of(kinds), "max_instructions": 200000000}
        with open(base + ".spec.json", "w") as f:
            json.dump(spec, f, indent=1)
        print(base + ".ptx")


if __name__ == "__main__":
    sys.exit(main())
