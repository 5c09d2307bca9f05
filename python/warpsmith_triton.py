"""Tells warpsmith's ptxas drop-in each Triton kernel's dynamic shared memory.

Triton launches every kernel with dynamic shared memory (its `metadata.shared`), and the drop-in
cannot see that size on ptxas's command line. Without it the spill pass adds no shared memory to
a Triton kernel (only rematerialisation), because a static array could push the launch past its
limit. `WARPSMITH_SPILL_DYNAMIC_SMEM` gives one size to a whole process, which is only right when
the process compiles one kernel. This module gives each kernel its own: it hooks Triton's
compilation pipeline (`triton.knobs.runtime.add_stages_inspection_hook`, Triton 3.4 and later)
and, just before the PTX goes to ptxas, appends the line

    // warpsmith-dynamic-smem: <metadata["shared"]>

to it (Triton 3.2 and 3.3, which have no such hook: by wrapping the CUDA backend's `add_stages`,
the method that hook inspects). The drop-in reads that line (docs/ptxas-wrapper.md); NVIDIA's ptxas reads a comment, and
at the end of the file it moves no line, so ptxas's line information (and so its cubin) is the
same as without it. The PTX Triton caches is the one without the line.

Unless installed with `grow_dynamic=False`, it also appends

    // warpsmith-grow-dynamic: <a new temporary file>

which lets the drop-in's `demote` stage put a local-memory frame that does not fit in the static
shared area at the end of a grown dynamic area (`warpsmith demote --grow-dynamic`), where that
ranks higher by the never-worse rule. The drop-in writes the bytes each kernel's launch must add
to that file; the hook adds them to the kernel's `metadata["shared"]`, which is what Triton
checks against the device and launches with (and what it caches).

Usage, before the first kernel is compiled (with TRITON_PTXAS_PATH and, for Triton 3.9 on sm_90
and later, TRITON_PTXAS_BLACKWELL_PATH naming links to warpsmith):

    import warpsmith_triton
    warpsmith_triton.install()

With Triton 3.9 and later the hook also enters Triton's cache key, together with the
`WARPSMITH_*` variables, so kernels compiled before warpsmith was switched on (or with other
passes) are not taken from the cache; so do they with 3.2 and 3.3 (through the backend's `hash`);
with 3.4 to 3.8 use a fresh `TRITON_CACHE_DIR`.
"""

import hashlib
import json
import os
import tempfile

MARKER = "// warpsmith-dynamic-smem:"
GROW_MARKER = "// warpsmith-grow-dynamic:"
_installed = None
_previous = None
# Triton 3.2/3.3: the CUDA backend's own `add_stages` and `hash` while ours stand in for them.
_backend_originals = None


def _settings_key():
    """What decides the drop-in's output besides the PTX: the `WARPSMITH_*` variables."""
    items = sorted((k, v) for k, v in os.environ.items() if k.startswith("WARPSMITH_"))
    return "warpsmith-triton:" + ";".join(f"{k}={v}" for k, v in items)


def with_dynamic_smem(ptx, shared):
    """`ptx` with the marker line for `shared` bytes after its last line."""
    end = "" if ptx.endswith("\n") or not ptx else "\n"
    return f"{ptx}{end}{MARKER} {int(shared)}\n"


def with_grow_report(ptx, path):
    """`ptx` with the marker line that lets the drop-in grow the launch, reporting to `path`."""
    end = "" if ptx.endswith("\n") or not ptx else "\n"
    return f"{ptx}{end}{GROW_MARKER} {path}\n"


def added_dynamic_smem(report_text, kernel):
    """The bytes the drop-in's grow report (`{"kernel": bytes}`, empty when the drop-in did not
    run its demote stage) says `kernel`'s launch must add. A report naming another kernel is an
    error: that cubin would need a launch Triton will not make."""
    if not report_text.strip():
        return 0
    added = json.loads(report_text)
    others = sorted(k for k, v in added.items() if k != kernel and v)
    if others:
        raise RuntimeError(
            f"warpsmith_triton: the drop-in grew the dynamic shared memory of {others}, not of "
            f"the kernel Triton compiled ({kernel!r}); set grow_dynamic=False")
    return int(added.get(kernel, 0))


def _wrap_cubin_stage(stages, grow_dynamic):
    make_cubin = stages.get("cubin")
    if make_cubin is None:
        return

    def cubin(src, metadata):
        shared = metadata.get("shared") if isinstance(metadata, dict) else None
        if not (isinstance(src, str) and isinstance(shared, int) and shared >= 0):
            return make_cubin(src, metadata)
        src = with_dynamic_smem(src, shared)
        if not grow_dynamic:
            return make_cubin(src, metadata)
        fd, report = tempfile.mkstemp(prefix="warpsmith-grow-", suffix=".json")
        os.close(fd)
        try:
            out = make_cubin(with_grow_report(src, report), metadata)
            with open(report) as f:
                added = added_dynamic_smem(f.read(), metadata.get("name"))
        finally:
            os.remove(report)
        if added:
            metadata["shared"] = shared + added
        return out

    stages["cubin"] = cubin


def _cuda_backend_class():
    """The CUDA backend class `triton.compile` instantiates: the one Triton's backend discovery
    loaded (`triton.backends.backends["nvidia"]`, from the file, under another module name than
    `triton.backends.nvidia.compiler`, so that module's class is not it)."""
    from triton.backends import backends

    return backends["nvidia"].compiler


def _install_on_backend(grow_dynamic):
    """Triton 3.2 and 3.3: wraps `CUDABackend.add_stages` (which fills the pipeline's stages, as
    the later stages hook sees them) and `CUDABackend.hash` (a part of Triton's cache key)."""
    global _backend_originals
    try:
        CUDABackend = _cuda_backend_class()
        add_stages, backend_hash = CUDABackend.add_stages, CUDABackend.hash
    except (ImportError, AttributeError, KeyError) as e:
        raise RuntimeError(
            "warpsmith_triton needs Triton 3.2 or later (triton.knobs.runtime."
            "add_stages_inspection_hook, or before 3.4 the CUDA backend's add_stages); with "
            f"another Triton give one kernel's size in WARPSMITH_SPILL_DYNAMIC_SMEM instead ({e})"
        ) from e
    if _backend_originals is not None:
        # Installed before: wrap the backend's own methods again (`grow_dynamic` may differ).
        add_stages, backend_hash = _backend_originals
    else:
        _backend_originals = (add_stages, backend_hash)

    def wrapped_add_stages(self, stages, options, *args, **kwargs):
        add_stages(self, stages, options, *args, **kwargs)
        _wrap_cubin_stage(stages, grow_dynamic)

    def wrapped_hash(self):
        key = _settings_key()
        return f"{backend_hash(self)}-{hashlib.sha256(key.encode('utf-8')).hexdigest()}"

    CUDABackend.add_stages = wrapped_add_stages
    CUDABackend.hash = wrapped_hash


def install(grow_dynamic=True):
    """Installs the hook (once; a hook installed before it keeps running first). With
    `grow_dynamic` the drop-in may grow a kernel's dynamic shared memory (module docstring)."""
    global _installed, _previous
    try:
        from triton import knobs
        knobs.runtime.add_stages_inspection_hook
    except (ImportError, AttributeError):
        _install_on_backend(grow_dynamic)
        return

    if _installed is not None and knobs.runtime.add_stages_inspection_hook is _installed:
        return
    previous = knobs.runtime.add_stages_inspection_hook
    _previous = previous

    def hook(*args, **kwargs):
        if not args and not kwargs:
            # Triton 3.9+: a part of the cache key, then the pipeline.
            key = _settings_key()
            if previous is not None:
                prev_key, _ = previous()
                key = prev_key + key
            return key, hashlib.sha256(key.encode("utf-8")).hexdigest()
        if previous is not None:
            previous(*args, **kwargs)
        stages = kwargs.get("stages", args[1] if len(args) > 1 else None)
        if isinstance(stages, dict):
            _wrap_cubin_stage(stages, grow_dynamic)

    knobs.runtime.add_stages_inspection_hook = hook
    _installed = hook


def uninstall():
    """Puts back the hook that was there before `install` (unless another replaced ours), or
    with Triton 3.2 and 3.3 the backend's own methods."""
    global _installed, _previous, _backend_originals
    if _backend_originals is not None:
        CUDABackend = _cuda_backend_class()
        CUDABackend.add_stages, CUDABackend.hash = _backend_originals
        _backend_originals = None
        return
    from triton import knobs

    if _installed is not None and knobs.runtime.add_stages_inspection_hook is _installed:
        knobs.runtime.add_stages_inspection_hook = _previous
    _installed = _previous = None
