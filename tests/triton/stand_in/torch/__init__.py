"""A stand-in for torch, for importing Liger-Kernel's op modules without torch
(tests/triton/liger_suite.py).

Those modules use torch in their host wrappers and in module-level set-up (dtype tables, version
checks, `torch.Tensor | None` annotations); their `@triton.jit` kernels never touch it. Every
attribute of this module, of any `torch.*` submodule and of what those return is an inert object:
calling it, indexing it or combining it with `|` gives another, and it is false, empty and equal
to nothing. Nothing here computes; a kernel that needed torch at compile time would fail to
compile, visibly.
"""

import importlib.abc
import importlib.machinery
import sys
import types

__version__ = "0.0.0+warpsmith.stand-in"


class Inert:
    """What every attribute of the stand-in is."""

    def __init__(self, name="torch"):
        self._name = name

    def __getattr__(self, key):
        if key.startswith("__"):
            raise AttributeError(key)
        return Inert(f"{self._name}.{key}")

    def __call__(self, *args, **kwargs):
        return Inert(f"{self._name}()")

    def __getitem__(self, key):
        return self

    def __or__(self, other):
        return self

    __ror__ = __or__

    def __bool__(self):
        return False

    def __iter__(self):
        return iter(())

    def __eq__(self, other):
        return False

    def __lt__(self, other):
        return False

    __gt__ = __le__ = __ge__ = __lt__

    def __hash__(self):
        return id(self)

    def __mro_entries__(self, bases):
        return (object,)

    def __repr__(self):
        return f"<stand-in {self._name}>"


class InertModule(types.ModuleType):
    """`torch` and its submodules: unknown attributes are [`Inert`]."""

    def __getattr__(self, key):
        if key.startswith("__"):
            raise AttributeError(key)
        return Inert(f"{self.__name__}.{key}")


class Submodules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Makes every `import torch.X` an [`InertModule`]."""

    def find_spec(self, name, path, target=None):
        if name.startswith("torch."):
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        module = InertModule(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module):
        pass


sys.modules[__name__].__class__ = InertModule
sys.meta_path.insert(0, Submodules())
