"""What the foreign Triton corpora (tests/triton/liger_suite.py, tests/triton/flaggems_suite.py)
share: a case names a `@triton.jit` function of an installed package, its runtime arguments in
order — with the value a launch gives each: a buffer (element type, length, initial contents), a
tensor descriptor or a scalar — its compile-time constants, Triton's launch options and the grid.
`ForeignCase.case()` is the case as tests/triton/suite.py compiles it, `launch_spec()` the
`warpsmith emulate/equiv --launch` spec of its launch (docs/emulator.md).
"""

from __future__ import annotations

import dataclasses
import re

from suite import Case


@dataclasses.dataclass(frozen=True)
class Arg:
    """One runtime argument: its Triton type, whether Triton may assume it divisible by 16, and
    the launch's value (`buf`: element type, length and contents — "random", "zero", "ones",
    ("range", lo, hi) for random integers in [lo, hi), or ("list", values); or `value`)."""

    name: str
    ty: str
    divisible: bool = False
    buf: tuple | None = None
    value: float | int | None = None
    # A host-side tensor descriptor (TMA): (element type, tensor shape outermost first, init).
    desc: tuple | None = None

    def specialised(self) -> bool:
        """An integer equal to 1, which Triton's launcher turns into a compile-time constant."""
        return self.ty == "i32" and self.value == 1


def ptr(name, ty, length, init="random"):
    return Arg(name, f"*{ty}", True, buf=(ty, length, init))


def desc(name, ty, shape, block, init="random"):
    """A host-side tensor descriptor (`triton.tools.tensor_descriptor.TensorDescriptor`) over a
    row-major tensor of `shape` loading `block` (both outermost first). Triton passes it as a
    CUtensorMap, then the shape (i32s) and the strides (i64s)."""
    ty_block = f"tensordesc<{ty}[{', '.join(map(str, block))}]>"
    return Arg(name, ty_block, False, desc=(ty, tuple(shape), init))


def i32(name, value):
    return Arg(name, "i32", value % 16 == 0, value=value)


def i64(name, value):
    return Arg(name, "i64", value % 16 == 0, value=value)


def f32(name, value):
    return Arg(name, "fp32", False, value=value)


@dataclasses.dataclass(frozen=True)
class ForeignCase:
    """A kernel of an installed package, its launch and its constants."""

    name: str
    ref: str  # "module:function" under `package`
    args: tuple
    constexprs: dict
    num_warps: int
    grid: tuple
    num_stages: int = 3
    archs: tuple = ("sm_80", "sm_90")
    package: str = "liger_kernel.ops"

    def runtime_args(self):
        """The arguments that stay kernel parameters: Triton's launcher makes an integer equal to
        1 a compile-time constant (its `specialize_impl`), as a real launch of these would."""
        return [a for a in self.args if not a.specialised()]

    def case(self) -> Case:
        """The case as tests/triton/suite.py's compiler takes it: arguments in the kernel's
        order, the ones equal to 1 as constants."""
        ones = {a.name: 1 for a in self.args if a.specialised()}
        args = tuple((a.name, a.ty, a.divisible) for a in self.runtime_args())
        descriptors = any(ty.startswith("tensordesc") for _, ty, _ in args)
        return Case(self.name, f"{self.package}.{self.ref}", args,
                    {**self.constexprs, **ones}, self.num_warps, self.num_stages,
                    archs=self.archs, ci=self.archs, min_triton=(3, 4) if descriptors else ())

    def launch_spec(self, kernel: str, threads: int, dynamic_smem: int,
                    tensordesc_meta=None, params=None) -> dict:
        """A `warpsmith emulate/equiv --launch` spec of this launch (docs/emulator.md): the
        runtime arguments, then Triton's scratch pointers: as many as the kernel's `params` (its
        PTX parameter count) leave, 0 (Triton 3.2), 1 (3.3 and 3.4: global scratch) or 2 (3.5
        on: and profile scratch); 2 when `params` is not given. A descriptor becomes a `tensor_map` with
        the box and swizzle Triton chose (its metadata's `tensordesc_meta`, one per descriptor),
        then its shape and strides."""
        args = []
        metas = iter(tensordesc_meta or [])
        for a in self.runtime_args():
            if a.desc is not None:
                args.extend(_descriptor_args(a, next(metas)))
                continue
            if a.buf is None:
                args.append({"scalar": {"type": SPEC_TYPES[a.ty], "value": a.value}})
                continue
            ty, length, init = a.buf
            buf = {"type": SPEC_TYPES[ty], "len": length}
            if init == "random":
                buf["init"] = "random"
            elif init == "zero":
                buf["init"] = "zero"
            elif init == "ones":
                buf["init"] = [1] * length
            elif init[0] == "list":
                buf["init"] = list(init[1])
            else:  # ("range", lo, hi): random integers in [lo, hi)
                buf["init"], buf["range"] = "random", [init[1], init[2]]
            args.append({"buffer": buf})
        scratch = {"buffer": {"type": "u8", "len": 256, "init": "zero"}}
        extra = 2 if params is None else params - len(args)
        if extra not in (0, 1, 2):
            raise ValueError(f"{self.name}: `{kernel}` has {params} parameters; the spec gives "
                             f"{len(args)} runtime arguments and Triton adds at most 2 scratch "
                             f"pointers")
        return {"kernel": kernel, "grid": list(self.grid), "block": [threads],
                "dynamic_smem": dynamic_smem, "args": args + [scratch] * extra}


def entry_param_count(ptx: str, kernel: str):
    """The number of parameters PTX `ptx` declares for `.entry kernel`, or None when it declares
    no such kernel."""
    m = re.search(r"\.entry\s+" + re.escape(kernel) + r"\s*\((.*?)\)", ptx, re.S)
    return None if m is None else len(re.findall(r"\.param\b", m.group(1)))


def _descriptor_args(a: Arg, meta: dict) -> list:
    """The spec arguments of a tensor descriptor: the map (dimensions and box innermost first, as
    `cuTensorMapEncodeTiled` takes them), then the shape and the strides Triton passes after it."""
    ty, shape, init = a.desc
    if meta.get("fp4_padded"):
        raise ValueError(f"{a.name}: fp4-padded descriptors are not supported")
    strides = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        strides[i] = strides[i + 1] * shape[i + 1]
    swizzle = ["none", "32B", "64B", "128B"][meta["swizzle"]]
    tmap = {"type": SPEC_TYPES[ty], "dims": list(shape)[::-1],
            "box": list(meta["block_size"])[::-1], "swizzle": swizzle, "init": init}
    return ([{"tensor_map": tmap}] + [{"scalar": {"type": "s32", "value": v}} for v in shape]
            + [{"scalar": {"type": "s64", "value": v}} for v in strides])


# Triton's element types in the emulator's spelling (a Boolean is a byte; an fp8 buffer is raw
# bytes).
SPEC_TYPES = {"fp16": "f16", "bf16": "bf16", "fp32": "f32", "fp64": "f64", "i64": "s64",
              "i32": "s32", "i16": "s16", "i8": "s8", "u8": "u8", "i1": "u8", "fp8e4nv": "u8",
              "fp8e5": "u8"}
