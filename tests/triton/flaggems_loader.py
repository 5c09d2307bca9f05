"""Imports FlagGems' op modules (`flag_gems.ops.*`, PyPI `flag-gems`) without torch and without
running FlagGems' package set-up, for tests/triton/flaggems_suite.py.

FlagGems' package `__init__` registers every op with torch and probes the device; its op modules
import torch, the vendor runtime (`flag_gems.runtime`: tuned configurations, heuristics, the
device) and decorators that wrap a kernel for launching (`libentry`, `libtuner`). None of that is
part of a kernel. `install()` puts a finder first on `sys.meta_path` that serves:
- the real files of `flag_gems.ops.*` and `flag_gems.utils.*` (the kernels and their
  `@triton.jit` helpers: `triton_lang_extension`, `random_utils`, `limits`, …);
- stand-ins for the packages themselves, `flag_gems.runtime*`, `libentry`, `libtuner`,
  `pointwise_dynamic` (a code generator: its kernels are made at run time) and `device_info`:
  every attribute is tests/triton/stand_in/torch's inert object, and calling the module itself or
  a decorator factory (`libentry()`, `libtuner(configs=…)`) gives a decorator that returns the
  function unchanged; FlagGems' NVIDIA choice of math library (`tl_extra_shim`: Triton's CUDA
  libdevice) is kept.
torch itself is the inert stand-in (tests/triton/stand_in on sys.path), with real `finfo` and
`iinfo` for the float and integer types (FlagGems' sort and top-k take their limits as
compile-time constants). A kernel that needed any
of this at compile time would fail to compile, visibly; `@triton.autotune` and
`@triton.heuristics` stay, and tests/triton/suite.py's `kernel_function` unwraps them (a case
fixes the configuration).
"""

import ast
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# Modules that are stand-ins, not FlagGems' files.
STAND_INS = {
    "flag_gems", "flag_gems.ops", "flag_gems.utils", "flag_gems.fused", "flag_gems.runtime",
    "flag_gems.utils.libentry", "flag_gems.utils.libtuner", "flag_gems.utils.pointwise_dynamic",
    "flag_gems.utils.device_info",
}


def cuda_libdevice():
    """What FlagGems' runtime picks as `tl_extra_shim` on NVIDIA GPUs
    (`runtime.backend.set_tl_extra_backend_module`): Triton's CUDA libdevice."""
    return importlib.import_module("triton.language.extra.cuda.libdevice")


# Attributes of stand-ins that must be what FlagGems computes on NVIDIA GPUs.
OVERRIDES = {("flag_gems.runtime.backend", "get_tl_extra_backend_module"): cuda_libdevice}


# torch.finfo / torch.iinfo of the types FlagGems' kernels take limits of (`ops/topk.py` makes
# them compile-time constants for sort and top-k): IEEE and two's-complement limits.
FLOAT_LIMITS = {
    "float16": (65504.0, 2.0 ** -10, 2.0 ** -14),
    "bfloat16": (3.3895313892515355e38, 2.0 ** -7, 2.0 ** -126),
    "float32": (3.4028234663852886e38, 2.0 ** -23, 2.0 ** -126),
    "float64": (1.7976931348623157e308, 2.0 ** -52, 2.0 ** -1022),
}
INT_BITS = {"int8": 8, "int16": 16, "int32": 32, "int64": 64}


class Limits:
    """What `torch.finfo(t)` / `torch.iinfo(t)` answer: min, max (and eps, tiny for floats)."""

    def __init__(self, lo, hi, eps=None, tiny=None):
        self.min, self.max, self.eps, self.tiny = lo, hi, eps, tiny


def dtype_name(dtype):
    """`float32` for the stand-in's `torch.float32`."""
    return getattr(dtype, "_name", "").removeprefix("torch.")


def finfo(dtype):
    big, eps, tiny = FLOAT_LIMITS[dtype_name(dtype)]
    return Limits(-big, big, eps, tiny)


def iinfo(dtype):
    bits = INT_BITS[dtype_name(dtype)]
    return Limits(-(1 << (bits - 1)), (1 << (bits - 1)) - 1)


def keep_function(*args, **kwargs):
    """A decorator factory whose decorator returns the function unchanged."""
    return lambda fn: fn


def package_dir():
    """FlagGems' installed folder on sys.path, found without importing it; None if absent."""
    spec = importlib.machinery.PathFinder.find_spec("flag_gems", sys.path)
    if spec is None or not spec.submodule_search_locations:
        return None
    return list(spec.submodule_search_locations)[0]


def install():
    """Installs the finder (once). Raises ImportError when flag_gems is not on sys.path."""
    if any(isinstance(f, Finder) for f in sys.meta_path):
        return
    root = package_dir()
    if root is None:
        raise ImportError("flag_gems is not on sys.path (scripts/setup.sh installs it in "
                          ".tools/flaggems)")
    sys.path.insert(0, os.path.join(HERE, "stand_in"))
    import torch  # the stand-in, tests/triton/stand_in/torch

    torch.finfo, torch.iinfo = finfo, iinfo
    sys.meta_path.insert(0, Finder(root))


def reexported_names(init):
    """{name: (module, name there)} of the `from flag_gems.X import name [as alias]` lines of a
    package's real `__init__.py` (none when it has no such file), read without running it."""
    if not os.path.exists(init):
        return {}
    with open(init) as f:
        tree = ast.parse(f.read(), init)
    names = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("flag_gems."):
            for alias in node.names:
                names[alias.asname or alias.name] = (node.module, alias.name)
    return names


class Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves `flag_gems.*`: FlagGems' own files for modules that have one and are not in
    [`STAND_INS`], a stand-in module otherwise."""

    def __init__(self, root):
        self.root = root

    def find_spec(self, name, path, target=None):
        if name != "flag_gems" and not name.startswith("flag_gems."):
            return None
        parts = name.split(".")[1:]
        if name not in STAND_INS and not name.startswith("flag_gems.runtime."):
            source = os.path.join(self.root, *parts) + ".py"
            if os.path.exists(source):
                return importlib.util.spec_from_file_location(name, source)
        return importlib.machinery.ModuleSpec(name, self, is_package=True)

    def create_module(self, spec):
        from torch import InertModule

        class StandIn(InertModule):
            """A FlagGems module's stand-in: inert attributes, decorators that keep the
            function."""

            def __getattr__(self, key):
                if key in ("libentry", "libtuner", "pointwise_dynamic"):
                    return keep_function
                if (self.__name__, key) in OVERRIDES:
                    return OVERRIDES[(self.__name__, key)]
                # A name the real `__init__` takes from a FlagGems module
                # (`from flag_gems.utils import tl_extra_shim`).
                if key in reexports:
                    module, name = reexports[key]
                    return getattr(importlib.import_module(module), name)
                # `from flag_gems.utils import triton_lang_extension`: the submodule.
                for folder in self.__path__:
                    if (os.path.exists(os.path.join(folder, f"{key}.py"))
                            or os.path.isdir(os.path.join(folder, key))):
                        return importlib.import_module(f"{self.__name__}.{key}")
                return super().__getattr__(key)

            def __call__(self, *args, **kwargs):
                return keep_function()

        folder = os.path.join(self.root, *spec.name.split(".")[1:])
        reexports = reexported_names(os.path.join(folder, "__init__.py"))
        module = StandIn(spec.name)
        module.__path__ = [folder] if os.path.isdir(folder) else []
        return module

    def exec_module(self, module):
        pass
