#!/usr/bin/env python3
"""Cross-checks the warpsmith PTX emulator against a real NVIDIA GPU.

    crosscheck.py run KERNEL.ptx SPEC.json --emu-out DIR [--seed-offset S] [--ulp N] [--gpu-out DIR]
    crosscheck.py gen-inputs SPEC.json OUTDIR [--seed-offset S]
    crosscheck.py selftest

`run` loads KERNEL.ptx with the CUDA driver API (libcuda through ctypes: no CuPy or CUDA toolkit
needed, only the driver), builds every argument from the launch spec exactly as the emulator does
(same splitmix64 generator, same float conversions, bit for bit), launches the kernel, copies every
buffer argument back and compares it with DIR/arg<N>.bin written by

    warpsmith emulate KERNEL.ptx --launch SPEC.json --out DIR

Integer buffers must match exactly. Float buffers must match exactly unless --ulp N allows N units
in the last place (the emulator computes `.approx` instructions more accurately than the hardware
does; see docs/emulator.md). Exit status: 0 match, 1 mismatch, 2 usage or setup error (no GPU).

`gen-inputs` writes the initial contents of every buffer/byval argument (arg<N>.bin) and module
variable (var_<name>.bin) without touching a GPU: the test suite compares them with the emulator's
own generator (tests/emu_crosscheck_py.rs).

The generator (docs/emulator.md, src/emu/launch.rs): splitmix64 seeded with the buffer's `seed`
(default: argument index + 1; module variables, in name order: 1001, 1002, ...), one draw z per element. Floats:
u = (z >> 11) * 2**-53, x = lo + (hi - lo) * u in double precision (default range [-1, 1)),
rounded to nearest-even into the element type. Integers: the low bits of z, or with a range
[lo, hi): lo + z mod (hi - lo).
"""

import argparse
import ctypes
import json
import math
import os
import struct
import sys

MASK64 = (1 << 64) - 1

SIZES = {
    "u8": 1, "s8": 1, "b8": 1,
    "u16": 2, "s16": 2, "b16": 2, "f16": 2, "bf16": 2,
    "u32": 4, "s32": 4, "b32": 4, "f32": 4,
    "u64": 8, "s64": 8, "b64": 8, "f64": 8,
}
FLOATS = {"f16": (5, 10), "bf16": (8, 7), "f32": (8, 23), "f64": (11, 52)}
SIGNED = {"s8", "s16", "s32", "s64"}


def splitmix64(seed):
    """The generator: yields 64-bit values (Steele, Lea & Flood 2014)."""
    state = seed & MASK64
    while True:
        state = (state + 0x9E3779B97F4A7C15) & MASK64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        yield z ^ (z >> 31)


def round_to_format(x, exp_bits, man_bits):
    """Bits of the double x rounded to nearest-even into a binary format (exact integer math)."""
    width = 1 + exp_bits + man_bits
    sign = 1 if math.copysign(1.0, x) < 0 else 0
    if math.isnan(x):
        return (1 << (width - 1)) - 1  # canonical NaN, as the emulator's conversions give
    inf = (sign << (width - 1)) | (((1 << exp_bits) - 1) << man_bits)
    if math.isinf(x):
        return inf
    if x == 0.0:
        return sign << (width - 1)
    # x = mant * 2**exp exactly.
    bits = struct.unpack("<Q", struct.pack("<d", abs(x)))[0]
    e = (bits >> 52) & 0x7FF
    f = bits & ((1 << 52) - 1)
    mant, exp = (f, -1074) if e == 0 else (f | (1 << 52), e - 1075)
    bias = (1 << (exp_bits - 1)) - 1
    e_val = mant.bit_length() - 1 + exp
    emin = 1 - bias
    if e_val > bias:
        return inf
    q = emin - man_bits if e_val < emin else e_val - man_bits
    if exp >= q:
        kept, rem, half = mant << (exp - q), 0, 1
    else:
        sh = q - exp
        kept, rem, half = mant >> sh, mant & ((1 << sh) - 1), 1 << (sh - 1)
    if rem > half or (rem == half and kept & 1):
        kept += 1
    if kept >> (man_bits + 1):
        kept >>= 1
        q += 1
    if kept == 0:
        return sign << (width - 1)
    if kept >> man_bits == 0:
        return (sign << (width - 1)) | kept
    biased = q + man_bits + bias
    if biased >= (1 << exp_bits) - 1:
        return inf
    return (sign << (width - 1)) | (biased << man_bits) | (kept & ((1 << man_bits) - 1))


def float_bits(ty, x):
    if ty == "f64":
        # Doubles are stored as they are (a NaN keeps the quiet-NaN bits 0x7ff8000000000000).
        return struct.unpack("<Q", struct.pack("<d", x))[0]
    return round_to_format(x, *FLOATS[ty])


def mask_to(ty, v):
    return v & ((1 << (8 * SIZES[ty])) - 1)


def elem_bits(ty, v):
    """One element from a JSON value (number, "nan"/"inf"/"-inf", "0x…" raw bits)."""
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, str):
        s = v.strip()
        if s.lower().startswith("0x"):
            return mask_to(ty, int(s, 16))
        if ty not in FLOATS:
            raise ValueError("%r is not a valid %s value" % (v, ty))
        lower = s.lower()
        x = {"nan": math.nan, "inf": math.inf, "+inf": math.inf, "-inf": -math.inf}.get(lower)
        return float_bits(ty, float(s) if x is None else x)
    if ty in FLOATS:
        return float_bits(ty, float(v))
    if isinstance(v, float):
        if v != int(v):
            raise ValueError("%r is not a valid %s value" % (v, ty))
        v = int(v)
    return mask_to(ty, v)


def random_elem(ty, z, rng):
    if ty in FLOATS:
        lo, hi = rng if rng is not None else (-1.0, 1.0)
        u = (z >> 11) * (1.0 / 9007199254740992.0)
        return float_bits(ty, float(lo) + (float(hi) - float(lo)) * u)
    if rng is None:
        return mask_to(ty, z)
    lo, hi = int(rng[0]), int(rng[1])  # truncation toward zero, as Rust's `as`
    span = max(hi - lo, 1)
    return mask_to(ty, (lo + z % span) & MASK64)


# Random buffers of at least this many elements are generated with numpy when it is installed
# (the same bits, vectorised: the pure-Python loop takes about 40 s for 8 M floats, device time).
NUMPY_ABOVE = 4096


def random_numpy(ty, n, seed, rng):
    """The generator's bytes for n elements of ty, vectorised; None without numpy or for bf16.

    splitmix64's state after i + 1 steps is seed + (i + 1)·γ mod 2^64, so every draw is computed
    at once. Floats: the same f64 expression, then numpy's casts, which round to nearest-even as
    `round_to_format` does (f32, f16; f64 as it is). Integers: the low bits, or lo + z mod span
    in wrapping 64-bit arithmetic. `cmd_selftest` checks it against the loop for every type."""
    try:
        import numpy as np
    except ImportError:
        return None
    if ty == "bf16":
        return None
    with np.errstate(over="ignore"):
        state = (np.arange(1, n + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
                 + np.uint64(seed & MASK64))
        z = (state ^ (state >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
        if ty in FLOATS:
            lo, hi = rng if rng is not None else (-1.0, 1.0)
            u = (z >> np.uint64(11)).astype(np.float64) * (1.0 / 9007199254740992.0)
            x = float(lo) + (float(hi) - float(lo)) * u
            return x.astype({"f16": np.float16, "f32": np.float32, "f64": np.float64}[ty]).tobytes()
        if rng is not None:
            lo, hi = int(rng[0]), int(rng[1])
            span = max(hi - lo, 1)
            if span >= 1 << 63:
                return None
            z = (z % np.uint64(span)) + np.uint64(lo & MASK64)
        dt = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[SIZES[ty]]
        return z.astype(dt).tobytes()


def buffer_bytes(b, index):
    """The bytes of a buffer spec (index: the argument index, for the default seed)."""
    ty = b["type"]
    es = SIZES[ty]
    init = b.get("init", "zero")
    n = b.get("len")
    if n is None:
        if not isinstance(init, list):
            raise ValueError("`len` is missing")
        n = len(init)
    out = bytearray(n * es)

    def put(i, v):
        out[i * es:(i + 1) * es] = (v & MASK64).to_bytes(8, "little")[:es]

    if isinstance(init, list):
        if len(init) > n:
            raise ValueError("%d initial values for a buffer of %d elements" % (len(init), n))
        for i, v in enumerate(init):
            put(i, elem_bits(ty, v))
    elif init == "zero":
        pass
    elif init == "iota":
        for i in range(n):
            put(i, float_bits(ty, float(i)) if ty in FLOATS else mask_to(ty, i))
    elif init == "random":
        seed = b.get("seed")
        seed = index + 1 if seed is None else seed
        rng = b.get("range")
        fast = random_numpy(ty, n, seed, rng) if n >= NUMPY_ABOVE else None
        if fast is not None:
            return fast
        gen = splitmix64(seed)
        for i in range(n):
            put(i, random_elem(ty, next(gen), rng))
    else:
        raise ValueError("unknown init %r" % (init,))
    return bytes(out)


def globals_bytes(spec):
    """[(name, bytes)] of the spec's module variables, in name order (their default seeds are
    1001, 1002, …, as the emulators', whose argument-index rule this passes 1000 + j to)."""
    g = spec.get("globals", {})
    return [(name, buffer_bytes(g[name], 1000 + j)) for j, name in enumerate(sorted(g))]


def with_seed_offset(spec, offset):
    """The spec with every `random` seed s replaced by s + offset (as `warpsmith equiv --seeds`)."""
    spec = json.loads(json.dumps(spec))
    for i, a in enumerate(spec.get("args", [])):
        for kind in ("buffer", "byval"):
            b = a.get(kind)
            if b is not None and b.get("init") == "random":
                b["seed"] = ((b.get("seed", i + 1)) + offset) & MASK64
    for j, name in enumerate(sorted(spec.get("globals", {}))):
        b = spec["globals"][name]
        if b.get("init") == "random":
            b["seed"] = ((b.get("seed", 1001 + j)) + offset) & MASK64
    return spec


def scalar_bytes(s):
    ty = s["type"]
    return (elem_bits(ty, s["value"]) & MASK64).to_bytes(8, "little")[:SIZES[ty]]


# ---- GPU side (CUDA driver API through ctypes) --------------------------------------------------

class Cuda:
    """The few driver entry points a launch needs."""

    def __init__(self):
        for name in ("libcuda.so.1", "libcuda.so", "nvcuda.dll"):
            try:
                self.lib = ctypes.CDLL(name)
                break
            except OSError:
                continue
        else:
            raise RuntimeError("no CUDA driver (libcuda) found: this machine has no usable NVIDIA GPU")
        self.check(self.lib.cuInit(0), "cuInit")
        dev = ctypes.c_int()
        self.check(self.lib.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
        # The device's primary context (what the runtime API uses): its entry points have kept
        # their signatures across driver releases, unlike cuCtxCreate (v4 in CUDA 13).
        self.ctx = ctypes.c_void_p()
        self.check(self.lib.cuDevicePrimaryCtxRetain(ctypes.byref(self.ctx), dev), "cuDevicePrimaryCtxRetain")
        self.check(self.lib.cuCtxSetCurrent(self.ctx), "cuCtxSetCurrent")

    def check(self, rc, what):
        if rc != 0:
            msg = ctypes.c_char_p()
            self.lib.cuGetErrorString(rc, ctypes.byref(msg))
            raise RuntimeError("%s failed: %s (%d)" % (what, (msg.value or b"?").decode(), rc))

    def load(self, ptx_text):
        mod = ctypes.c_void_p()
        self.check(self.lib.cuModuleLoadData(ctypes.byref(mod), ctypes.c_char_p(ptx_text.encode() + b"\0")),
                   "cuModuleLoadData")
        return mod

    def function(self, mod, name):
        f = ctypes.c_void_p()
        self.check(self.lib.cuModuleGetFunction(ctypes.byref(f), mod, name.encode()), "cuModuleGetFunction")
        return f

    def alloc(self, data):
        ptr = ctypes.c_uint64()
        self.check(self.lib.cuMemAlloc_v2(ctypes.byref(ptr), ctypes.c_size_t(max(len(data), 1))), "cuMemAlloc")
        self.check(self.lib.cuMemcpyHtoD_v2(ptr, data, ctypes.c_size_t(len(data))), "cuMemcpyHtoD")
        return ptr

    # CUtensorMapDataType and CUtensorMapSwizzle values (cuda.h).
    TMAP_TYPES = {"u8": 0, "s8": 0, "u16": 1, "s16": 1, "u32": 2, "s32": 3, "u64": 4, "s64": 5,
                  "f16": 6, "f32": 7, "f64": 8, "bf16": 9}
    TMAP_SWIZZLES = {"none": 0, "32B": 1, "64B": 2, "128B": 3}

    def encode_tensor_map(self, address, tmap):
        """The 128 bytes of a tiled tensor map (cuTensorMapEncodeTiled) over the dense tensor at
        `address` described by a spec's `tensor_map` (dims and box innermost first, element
        strides 1, no interleave, L2 promotion 128 B; `oob_fill` nan asks for NaN)."""
        rank, es = len(tmap["dims"]), SIZES[tmap["type"]]
        strides, acc = [], es
        for d in tmap["dims"][:-1]:
            acc *= int(d)
            strides.append(acc)
        if tmap.get("strides") is not None:
            strides = [int(x) for x in tmap["strides"]]
        u64s = lambda xs: (ctypes.c_uint64 * max(len(xs), 1))(*xs)
        u32s = lambda xs: (ctypes.c_uint32 * len(xs))(*xs)
        raw = ctypes.create_string_buffer(128 + 64)
        aligned = (ctypes.addressof(raw) + 63) & ~63  # CUtensorMap is 64-byte aligned
        self.check(self.lib.cuTensorMapEncodeTiled(
            ctypes.c_void_p(aligned), ctypes.c_uint(self.TMAP_TYPES[tmap["type"]]), ctypes.c_uint(rank),
            ctypes.c_void_p(address), u64s([int(d) for d in tmap["dims"]]), u64s(strides),
            u32s([int(b) for b in tmap["box"]]), u32s([1] * rank), ctypes.c_uint(0),
            ctypes.c_uint(self.TMAP_SWIZZLES[tmap.get("swizzle") or "none"]), ctypes.c_uint(2),
            ctypes.c_uint(1 if tmap.get("oob_fill") == "nan" else 0)), "cuTensorMapEncodeTiled")
        return ctypes.string_at(aligned, 128)

    def read(self, ptr, n):
        buf = ctypes.create_string_buffer(n)
        self.check(self.lib.cuMemcpyDtoH_v2(buf, ptr, ctypes.c_size_t(n)), "cuMemcpyDtoH")
        return buf.raw

    def set_global(self, mod, name, data):
        ptr = ctypes.c_uint64()
        size = ctypes.c_size_t()
        self.check(self.lib.cuModuleGetGlobal_v2(ctypes.byref(ptr), ctypes.byref(size), mod, name.encode()),
                   "cuModuleGetGlobal(%s)" % name)
        if len(data) > size.value:
            raise ValueError("global %s: %d bytes given, the variable has %d" % (name, len(data), size.value))
        self.check(self.lib.cuMemcpyHtoD_v2(ptr, data, ctypes.c_size_t(len(data))), "cuMemcpyHtoD")

    def launch(self, f, grid, block, smem, arg_blobs):
        holders = [ctypes.create_string_buffer(b, len(b)) for b in arg_blobs]
        params = (ctypes.c_void_p * len(holders))(*[ctypes.cast(h, ctypes.c_void_p) for h in holders])
        if smem:
            # Opt in to more than 48 KiB of dynamic shared memory when asked for.
            self.lib.cuFuncSetAttribute(f, 8, ctypes.c_int(smem))
        self.check(self.lib.cuLaunchKernel(f, *grid, *block, ctypes.c_uint(smem), None, params, None),
                   "cuLaunchKernel")
        self.check(self.lib.cuCtxSynchronize(), "kernel execution")


def dims(v):
    v = list(v) + [1] * (3 - len(v))
    return [ctypes.c_uint(x) for x in v[:3]]


def run_gpu(ptx_path, spec):
    cuda = Cuda()
    with open(ptx_path) as fh:
        mod = cuda.load(fh.read())
    f = cuda.function(mod, spec["kernel"])
    for name, data in globals_bytes(spec):
        cuda.set_global(mod, name, data)
    if "cluster" in spec:
        # A kernel's own .reqnctapercluster reaches cuLaunchKernel through the cubin; a shape
        # given at launch needs cuLaunchKernelEx, which this script does not call: refuse rather
        # than launch without it.
        raise ValueError("the spec's `cluster` (a cluster shape given at launch) is not "
                         "supported here yet (the GPU side needs cuLaunchKernelEx)")
    blobs, buffers = [], []
    for i, a in enumerate(spec["args"]):
        if "buffer" in a:
            data = buffer_bytes(a["buffer"], i)
            ptr = cuda.alloc(data)
            buffers.append((i, a["buffer"]["type"], ptr, len(data)))
            blobs.append(struct.pack("<Q", ptr.value))
        elif "scalar" in a:
            blobs.append(scalar_bytes(a["scalar"]))
        elif "byval" in a:
            blobs.append(buffer_bytes(a["byval"], i))
        elif "tensor_map" in a:
            raise ValueError("argument %d: tensor_map arguments are not supported here yet (the "
                             "GPU side needs cuTensorMapEncodeTiled)" % i)
        else:
            raise ValueError("argument %d: unknown kind %r" % (i, list(a)))
    cuda.launch(f, dims(spec["grid"]), dims(spec["block"]), int(spec.get("dynamic_smem", 0)), blobs)
    return [(i, ty, cuda.read(ptr, n)) for i, ty, ptr, n in buffers]


def ulp_distance(ty, a, b):
    """Distance in units in the last place between two floats' bits (same-sign ordering)."""
    w = 8 * SIZES[ty]
    def key(x):
        return (1 << w) - 1 - x if x >> (w - 1) else x + (1 << w)
    return abs(key(a) - key(b))


def compare(i, ty, gpu, emu, ulp):
    es = SIZES[ty]
    if len(gpu) != len(emu):
        return ["arg%d: %d bytes on the GPU, %d from the emulator" % (i, len(gpu), len(emu))]
    problems, worst = [], 0
    for k in range(len(gpu) // es):
        g = int.from_bytes(gpu[k * es:(k + 1) * es], "little")
        e = int.from_bytes(emu[k * es:(k + 1) * es], "little")
        if g == e:
            continue
        d = ulp_distance(ty, g, e) if ty in FLOATS else None
        if d is not None and d <= ulp:
            worst = max(worst, d)
            continue
        if len(problems) < 10:
            problems.append("arg%d[%d]: GPU %#x, emulator %#x%s" % (i, k, g, e, "" if d is None else " (%d ulp)" % d))
    if worst:
        print("arg%d: float differences within %d ulp (max %d)" % (i, ulp, worst))
    return problems


def cmd_run(args):
    spec = with_seed_offset(json.load(open(args.spec)), args.seed_offset)
    try:
        results = run_gpu(args.ptx, spec)
    except RuntimeError as e:
        print("crosscheck: %s" % e, file=sys.stderr)
        return 2
    problems = []
    for i, ty, data in results:
        if args.gpu_out:
            os.makedirs(args.gpu_out, exist_ok=True)
            with open(os.path.join(args.gpu_out, "arg%d.bin" % i), "wb") as fh:
                fh.write(data)
        with open(os.path.join(args.emu_out, "arg%d.bin" % i), "rb") as fh:
            problems += compare(i, ty, data, fh.read(), args.ulp)
    if problems:
        print("MISMATCH: %s" % spec["kernel"])
        for p in problems:
            print("  " + p)
        return 1
    print("match: %s, %d buffer(s)" % (spec["kernel"], len(results)))
    return 0


def cmd_gen_inputs(args):
    spec = with_seed_offset(json.load(open(args.spec)), args.seed_offset)
    os.makedirs(args.outdir, exist_ok=True)
    for i, a in enumerate(spec["args"]):
        b = a.get("buffer") or a.get("byval")
        if "tensor_map" in a:
            raise SystemExit("argument %d: tensor_map arguments are not supported by gen-inputs"
                             % i)
        if b is not None:
            data = buffer_bytes(b, i)
        else:
            data = scalar_bytes(a["scalar"])
        with open(os.path.join(args.outdir, "arg%d.bin" % i), "wb") as fh:
            fh.write(data)
    for name, data in globals_bytes(spec):
        with open(os.path.join(args.outdir, "var_%s.bin" % name), "wb") as fh:
            fh.write(data)
    return 0


def check_numpy_generator():
    """random_numpy against the loop, every type and a few ranges; False without numpy."""
    cases = [(ty, None) for ty in SIZES if ty != "bf16"]
    cases += [("f32", [-1e-38, 1e-38]), ("f16", [-70000, 70000]), ("f16", [-1e-6, 1e-6]),
              ("f64", [0.5, 1.5]), ("s32", [-7, 1000]), ("u8", [3, 250]), ("s64", [-(1 << 40), 5])]
    for ty, rng in cases:
        n = 3000
        got = random_numpy(ty, n, 77, rng)
        if got is None:
            return False
        gen = splitmix64(77)
        es = SIZES[ty]
        want = b"".join((random_elem(ty, next(gen), rng) & MASK64).to_bytes(8, "little")[:es]
                        for _ in range(n))
        assert got == want, "numpy generator differs for %s %r" % (ty, rng)
    return True


def cmd_selftest(_args):
    g = splitmix64(0)
    want = [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]
    got = [next(g) for _ in want]
    assert got == want, [hex(x) for x in got]
    assert float_bits("f32", 0.1) == 0x3DCCCCCD
    assert float_bits("f16", 65520.0) == 0x7C00
    assert float_bits("f16", 5.960464477539063e-8) == 1
    assert float_bits("bf16", 1.00390625) == 0x3F80
    checked = check_numpy_generator()
    print("selftest: ok" + ("" if checked else " (numpy absent: its generator not checked)"))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="run on the GPU and compare with emulator outputs")
    r.add_argument("ptx")
    r.add_argument("spec")
    r.add_argument("--emu-out", required=True, help="the --out folder of `warpsmith emulate`")
    r.add_argument("--gpu-out", help="also write the GPU's buffers here")
    r.add_argument("--seed-offset", type=int, default=0)
    r.add_argument("--ulp", type=int, default=0, help="float tolerance in units in the last place")
    g = sub.add_parser("gen-inputs", help="write the initial argument bytes (no GPU needed)")
    g.add_argument("spec")
    g.add_argument("outdir")
    g.add_argument("--seed-offset", type=int, default=0)
    sub.add_parser("selftest", help="check the generator against reference values")
    args = ap.parse_args()
    try:
        return {"run": cmd_run, "gen-inputs": cmd_gen_inputs, "selftest": cmd_selftest}[args.cmd](args)
    except (ValueError, KeyError, OSError) as e:
        print("crosscheck: %s" % e, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
