"""The warpsmith Triton suite: which kernels, in which configurations, and how one is compiled
without a GPU (issue 12).

A `Case` names a kernel of tests/triton/kernels.py, its argument types, its compile-time constants
and Triton's launch options (warps, pipeline stages), and the architectures it is compiled for.
`compile_case` runs `triton.compile(ASTSource(...), target=GPUTarget("cuda", cc, 32))` — no GPU,
no CUDA driver and no torch are needed — and records the exact ptxas command line Triton ran and
ptxas's `-v` log (where warpsmith's warnings also appear when it stands in for ptxas).

Argument attributes mimic a real launch: Triton specialises pointers that are 16-byte aligned and
integers divisible by 16 (`tt.divisibility`), which every argument of these launches is, except
the ones marked False in `Case.args` (sequence lengths, head and row counts, epsilons, scales).
"""

from __future__ import annotations

import dataclasses
import itertools
import os
import subprocess
import threading
import time
import traceback

# CUDA compute capability of each architecture the suite targets.
ARCHS = {"sm_80": 80, "sm_90": 90, "sm_100": 100, "sm_120": 120}

# Blackwell (datacenter sm_100, consumer sm_120): every case written for sm_90 compiles for them
# too, none in the CI subset (measured by hand: docs/benchmarks.md, session 54).
BLACKWELL = ("sm_100", "sm_120")


def compiles_for(archs, arch):
    """Whether a case listed for `archs` is compiled for `arch`."""
    return arch in archs or (arch in BLACKWELL and "sm_90" in archs)


@dataclasses.dataclass(frozen=True)
class Case:
    """One kernel configuration of the suite."""

    name: str
    kernel: str  # attribute of tests/triton/kernels.py
    args: tuple  # (name, Triton type, divisible by 16?) for every runtime argument, in order
    constexprs: dict
    num_warps: int
    num_stages: int
    archs: tuple = ("sm_80", "sm_90")
    # Architectures for which the case is in the subset scripts/test.sh runs (`--ci`).
    ci: tuple = ("sm_80", "sm_90")
    note: str = ""
    # The oldest Triton that compiles the case ((3, 4): tensor-descriptor arguments); older
    # versions leave it out (`supported_by`) and compile_suite.py says so.
    min_triton: tuple = ()


def version_tuple(version: str):
    """`triton.__version__` as a tuple of its leading numbers: "3.3.1" -> (3, 3, 1),
    "3.6.0+git1234" -> (3, 6, 0)."""
    out = []
    for part in version.split("+")[0].split("."):
        digits = "".join(itertools.takewhile(str.isdigit, part))
        if not digits:
            break
        out.append(int(digits))
    return tuple(out)


def supported_by(case, version: str):
    """Whether Triton `version` (`triton.__version__`) compiles `case` (its `min_triton`)."""
    return version_tuple(version) >= tuple(getattr(case, "min_triton", ()))


class _NoGpuDriver:
    """The active driver for Triton 3.2 and 3.3 on a machine without a GPU. Their
    `@triton.autotune` asks the driver for a benchmarker when a module is imported, and their
    default driver then fails to load (no libcuda, no libamdhip64), so Liger-Kernel's and
    FlagGems' modules cannot be imported. Compiling with an explicit target needs no driver; a
    benchmark or a launch says why it cannot run."""

    def get_benchmarker(self):
        def refuse(*_args, **_kwargs):
            raise RuntimeError("no GPU here: the suite compiles without launching")

        return refuse

    def __getattr__(self, name):
        raise RuntimeError(f"no GPU here: Triton's driver.{name} is not available")


def stand_in_driver(version: str):
    """Makes `_NoGpuDriver` Triton's active driver where Triton `version` needs one to import
    autotuned kernels (before 3.4; later versions benchmark lazily). Does nothing otherwise."""
    if version_tuple(version) >= (3, 4):
        return
    from triton.runtime.driver import driver

    driver.set_active(_NoGpuDriver())


def _attention(name, head_dim, causal, block_m, block_n, warps, stages, ci=("sm_80", "sm_90"),
               note=""):
    strides = [f"stride_{t}_{s}" for t in "qkvo" for s in ("batch", "head", "row")]
    args = (
        [("q_ptr", "*fp16", True), ("k_ptr", "*fp16", True), ("v_ptr", "*fp16", True),
         ("out_ptr", "*fp16", True), ("lse_ptr", "*fp32", True), ("scale", "fp32", False)]
        + [(s, "i32", True) for s in strides]
        + [("heads", "i32", False), ("seq_len", "i32", False)]
    )
    return Case(name, "attention_forward", tuple(args),
                {"HEAD_DIM": head_dim, "BLOCK_M": block_m, "BLOCK_N": block_n, "CAUSAL": causal},
                warps, stages, ci=ci, note=note)


def _matmul(name, dtype, out, block_m, block_n, block_k, warps, stages, archs=("sm_80", "sm_90"),
            ci=("sm_80", "sm_90"), note=""):
    args = (
        ("a_ptr", f"*{dtype}", True), ("b_ptr", f"*{dtype}", True), ("c_ptr", f"*{out}", True),
        ("M", "i32", True), ("N", "i32", True), ("K", "i32", True),
        ("stride_a_row", "i32", True), ("stride_b_row", "i32", True), ("stride_c_row", "i32", True),
    )
    return Case(name, "tiled_matmul", args,
                {"BLOCK_M": block_m, "BLOCK_N": block_n, "BLOCK_K": block_k, "SWIZZLE": 8,
                 "ACC_INT": dtype == "i8"},
                warps, stages, archs=archs, ci=ci, note=note)


def _tma_matmul(name, block_m, block_n, block_k, warps, stages, ci=("sm_90",), note=""):
    desc = lambda rows, cols: f"tensordesc<fp16[{rows}, {cols}]>"  # noqa: E731
    args = (
        ("a_desc", desc(block_m, block_k), False), ("b_desc", desc(block_k, block_n), False),
        ("c_desc", desc(block_m, block_n), False),
        ("M", "i32", True), ("N", "i32", True), ("K", "i32", True),
    )
    return Case(name, "tma_matmul", args,
                {"BLOCK_M": block_m, "BLOCK_N": block_n, "BLOCK_K": block_k},
                warps, stages, archs=("sm_90",), ci=ci, note=note, min_triton=(3, 4))


# The runtime arguments of tests/triton/kernels.py's layer norm and softmax.
_LAYER_NORM_ARGS = (
    ("x_ptr", "*fp16", True), ("y_ptr", "*fp16", True), ("weight_ptr", "*fp32", True),
    ("bias_ptr", "*fp32", True), ("mean_ptr", "*fp32", True), ("rstd_ptr", "*fp32", True),
    ("stride_row", "i32", True), ("width", "i32", True), ("eps", "fp32", False),
)
_SOFTMAX_ARGS = (
    ("x_ptr", "*fp16", True), ("y_ptr", "*fp16", True), ("stride_x_row", "i32", True),
    ("stride_y_row", "i32", True), ("rows", "i32", False), ("width", "i32", True),
)

_FP8_QUANT_ARGS = (
    ("x_ptr", "*fp16", True), ("y_ptr", "*fp8e4nv", True), ("scale_ptr", "*fp32", True),
    ("width", "i32", False), ("stride_x", "i32", True), ("stride_y", "i32", True),
)

# The CI subset (`ci`, scripts/test.sh): per architecture one attention without and one with
# spilling, the spilling matmul, the small matmul, int8 and fp8 on sm_90, the spilling TMA matmul
# on sm_90 (tensor descriptors: the PTX emulator runs it, the SASS side has no TMA), layer norm,
# softmax and the fp8 quantisation on sm_90 —
# about 70 s (sm_80) and 105 s (sm_90) through a debug build on the shared 2-core machine; the
# whole suite takes about 8 and 5 minutes (docs/benchmarks.md).
CASES = [
    _attention("attn_d64", 64, False, 128, 64, 4, 3, ci=("sm_80",)),
    _attention("attn_d64_causal", 64, True, 128, 64, 4, 3, ci=()),
    _attention("attn_d128", 128, False, 128, 64, 8, 3, ci=()),
    _attention("attn_d128_causal", 128, True, 128, 64, 4, 2,
               note="d=128 with 4 warps: ptxas spills"),
    _matmul("matmul_fp16_128x256x64", "fp16", "fp16", 128, 256, 64, 4, 3,
            note="128x256 fp32 accumulator over 128 threads: ptxas spills"),
    _matmul("matmul_fp16_128x128x32", "fp16", "fp16", 128, 128, 32, 4, 4, ci=()),
    _matmul("matmul_fp16_64x64x32", "fp16", "fp16", 64, 64, 32, 4, 4),
    _matmul("matmul_int8_128x128x64", "i8", "i32", 128, 128, 64, 4, 3, ci=("sm_90",)),
    _matmul("matmul_fp8_128x256x64", "fp8e4nv", "fp16", 128, 256, 64, 8, 3, archs=("sm_90",)),
    _tma_matmul("matmul_tma_fp16_128x256x64", 128, 256, 64, 4, 3,
                note="TMA descriptors; 128x256 fp32 accumulator over 128 threads: ptxas spills"),
    _tma_matmul("matmul_tma_fp16_128x128x64", 128, 128, 64, 4, 3, ci=()),
    Case("layer_norm_4096", "layer_norm_rows", _LAYER_NORM_ARGS, {"BLOCK": 4096}, 8, 1),
    Case("softmax_8192", "softmax_rows", _SOFTMAX_ARGS, {"BLOCK": 8192, "STAGES": 2}, 8, 2),
    Case("fp8_quant_4096", "fp8_quant_rows", _FP8_QUANT_ARGS, {"BLOCK": 4096}, 8, 1,
         archs=("sm_90",), ci=("sm_90",),
         note="cvt.rn.satfinite.e4m3x2.f32 (sm_89 and up)"),
]

# The register model's Triton holdout (bench/pressure_model.rs, docs/benchmarks.md): other
# tiles, warp counts and sizes of the same kernels, compiled with `compile_suite.py --holdout`.
# The model's rules were chosen on CASES; these rows check them on configurations no rule was
# tuned on. Not part of the CI subset or of the equivalence run.
HOLDOUT_CASES = [
    _attention("attn_d64_w8", 64, False, 128, 64, 8, 3, ci=()),
    _attention("attn_d64_64x64", 64, False, 64, 64, 4, 2, ci=()),
    _attention("attn_d128_w4", 128, False, 128, 64, 4, 3, ci=()),
    _attention("attn_d128_causal_w8", 128, True, 128, 64, 8, 3, ci=()),
    _matmul("matmul_fp16_256x128x32", "fp16", "fp16", 256, 128, 32, 8, 3, ci=()),
    _matmul("matmul_fp16_128x64x64", "fp16", "fp16", 128, 64, 64, 4, 3, ci=()),
    _matmul("matmul_fp16_64x128x64", "fp16", "fp16", 64, 128, 64, 4, 4, ci=()),
    _matmul("matmul_int8_128x256x64", "i8", "i32", 128, 256, 64, 8, 3, ci=()),
    _matmul("matmul_int8_64x64x64", "i8", "i32", 64, 64, 64, 4, 3, ci=()),
    _matmul("matmul_fp8_128x128x64", "fp8e4nv", "fp16", 128, 128, 64, 4, 3, archs=("sm_90",),
            ci=()),
    Case("layer_norm_2048", "layer_norm_rows", _LAYER_NORM_ARGS, {"BLOCK": 2048}, 4, 1, ci=()),
    Case("softmax_4096", "softmax_rows", _SOFTMAX_ARGS, {"BLOCK": 4096, "STAGES": 2}, 4, 2,
         ci=()),
    Case("softmax_16384", "softmax_rows", _SOFTMAX_ARGS, {"BLOCK": 16384, "STAGES": 2}, 8, 2,
         ci=()),
]


def cases_for(arch: str, only=None, ci=False, holdout=False):
    """The cases compiled for `arch`; `only`: names to keep (all when None); `ci`: the CI subset;
    `holdout`: the register model's holdout cases instead of the suite's."""
    cases = HOLDOUT_CASES if holdout else CASES
    out = [c for c in cases if compiles_for(c.archs, arch) and (not ci or arch in c.ci)]
    if only:
        unknown = set(only) - {c.name for c in cases}
        if unknown:
            raise SystemExit(f"unknown case(s): {', '.join(sorted(unknown))}")
        out = [c for c in out if c.name in only]
    return out


class PtxasRecorder:
    """Records each ptxas command Triton runs and the log it writes (ptxas's standard error: the
    `-v` lines, and warpsmith's warnings when warpsmith stands in for ptxas).

    Triton (3.6, triton/backends/nvidia/compiler.py `make_cubin`) runs
    `subprocess.run([ptxas, …, f"--gpu-name={arch}", src, "-o", out], stderr=<log file>)` and
    deletes the log afterwards; the recorder wraps `subprocess.run` to read it first."""

    def __init__(self):
        self.calls = []
        self._orig = None
        self._lock = threading.Lock()

    def __enter__(self):
        self._orig = subprocess.run
        orig = self._orig

        def run(cmd, *a, **kw):
            is_ptxas = isinstance(cmd, (list, tuple)) and any(
                str(x).startswith("--gpu-name=") for x in cmd)
            try:
                result = orig(cmd, *a, **kw)
            except subprocess.CalledProcessError as e:
                if is_ptxas:
                    self._record(cmd, kw, e.returncode)
                raise
            if is_ptxas:
                self._record(cmd, kw, result.returncode)
            return result

        subprocess.run = run
        return self

    def _record(self, cmd, kw, rc):
        log = ""
        f = kw.get("stderr")
        name = getattr(f, "name", None)
        if isinstance(name, str) and os.path.exists(name):
            with open(name, errors="replace") as fh:
                log = fh.read()
        with self._lock:
            self.calls.append({"argv": [str(x) for x in cmd], "exit": rc, "log": log})

    def __exit__(self, *exc):
        subprocess.run = self._orig
        return False


def describe_error(e: BaseException) -> str:
    """One line naming the failure: the exception and, for Triton's CompilationError (whose own
    text is the source excerpt), the innermost cause."""
    first = next((ln for ln in str(e).splitlines() if ln.strip()), "")
    text = f"{type(e).__name__}: {first}"
    cause = e
    while cause.__cause__ is not None:
        cause = cause.__cause__
    if cause is not e:
        why = next((ln for ln in str(cause).splitlines() if ln.strip()), "")
        text += f" — {type(cause).__name__}: {why}"
    return text


def kernel_function(ref: str):
    """The `@triton.jit` function a case names: an attribute of tests/triton/kernels.py, or
    `module:function` of an installed package (tests/triton/liger_suite.py, flaggems_suite.py). A
    function under `@triton.autotune` or `@triton.heuristics` is the JIT function it wraps (the
    case fixes the configuration)."""
    import importlib

    from triton.runtime.autotuner import Autotuner, Heuristics

    if ":" in ref:
        module, name = ref.split(":", 1)
        fn = getattr(importlib.import_module(module), name)
        while isinstance(fn, (Autotuner, Heuristics)):
            fn = fn.fn
        return fn
    import kernels  # tests/triton/kernels.py (this folder is on sys.path: see compile_suite.py)

    return getattr(kernels, ref)


def ast_source(ast_source_class, fn, signature, constexprs, attrs):
    """Triton's `ASTSource` of `fn`: from 3.3 on with `constexprs` and `attrs` keyed by argument
    paths; Triton 3.2 (PyTorch 2.6's) takes `constants` and an `AttrsDescriptor` built from
    (argument index, 16) divisibility hints."""
    import inspect

    if "constexprs" in inspect.signature(ast_source_class.__init__).parameters:
        return ast_source_class(fn=fn, signature=signature, constexprs=constexprs, attrs=attrs)
    from triton.backends.compiler import AttrsDescriptor

    hints = {path[0]: 16 for path in attrs}
    return ast_source_class(fn=fn, signature=signature, constants=dict(constexprs),
                            attrs=AttrsDescriptor.from_hints(hints))


def compile_case(case: Case, arch: str):
    """Compiles one case for `arch` without a GPU. Returns (compiled kernel or None, record):
    the record has the metadata the launch needs, the ptxas calls, and `error` on failure."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    fn = kernel_function(case.kernel)
    given = {arg: (ty, divisible) for arg, ty, divisible in case.args}
    missing = [a for a in fn.arg_names if a not in given and a not in case.constexprs]
    extra = (set(given) | set(case.constexprs)) - set(fn.arg_names)
    if missing or extra or set(given) & set(case.constexprs):
        raise ValueError(f"{case.name}: arguments {[a for a, _, _ in case.args]} and constants "
                         f"{list(case.constexprs)} do not match "
                         f"{case.kernel}{tuple(fn.arg_names)}")
    signature = {}
    attrs = {}
    for i, arg in enumerate(fn.arg_names):
        if arg in case.constexprs:
            signature[arg] = "constexpr"
            continue
        signature[arg], divisible = given[arg]
        if divisible:
            attrs[(i,)] = [["tt.divisibility", 16]]
    src = ast_source(ASTSource, fn, signature, case.constexprs, attrs)
    record = {
        "case": case.name,
        "arch": arch,
        "triton_version": triton.__version__,
        "num_warps": case.num_warps,
        "num_stages": case.num_stages,
        "threads": case.num_warps * 32,
        "constexprs": case.constexprs,
        "note": case.note,
    }
    start = time.monotonic()
    with PtxasRecorder() as rec:
        try:
            compiled = triton.compile(
                src, target=GPUTarget("cuda", ARCHS[arch], 32),
                options={"num_warps": case.num_warps, "num_stages": case.num_stages})
        except Exception as e:  # noqa: BLE001  (every failure is reported, none dropped)
            compiled = None
            record["error"] = describe_error(e)
            record["traceback"] = traceback.format_exc()
    record["compile_seconds"] = round(time.monotonic() - start, 2)
    record["ptxas_calls"] = rec.calls
    if compiled is not None:
        md = compiled.metadata
        record.update({
            "kernel": md.name,
            "shared": md.shared,  # dynamic shared memory the launcher passes, bytes
            "num_warps": md.num_warps,
            "num_ctas": md.num_ctas,
            "threads": md.num_warps * 32,  # per block (num_ctas is the cluster size)
            "ptx_version": md.ptx_version,
            # Per tensor-descriptor argument: the TMA box, swizzle and element (None: none).
            "tensordesc_meta": getattr(md, "tensordesc_meta", None),
            "target": [md.target.backend, md.target.arch, md.target.warp_size],
        })
    return compiled, record
