"""Tells warpsmith's ptxas drop-in each Triton kernel's dynamic shared memory.

Triton launches every kernel with dynamic shared memory (its `metadata.shared`), and the drop-in
cannot see that size on ptxas's command line. Without it the spill pass adds no shared memory to
a Triton kernel (only rematerialisation), because a static array could push the launch past its
limit. `WARPSMITH_SPILL_DYNAMIC_SMEM` gives one size to a whole process, which is only right when
the process compiles one kernel. This module gives each kernel its own: it hooks Triton's
compilation pipeline (`triton.knobs.runtime.add_stages_inspection_hook`, Triton 3.4 and later)
and, just before the PTX goes to ptxas, appends the line

    // warpsmith-dynamic-smem: <metadata["shared"]>

to it. The drop-in reads that line (docs/ptxas-wrapper.md); NVIDIA's ptxas reads a comment, and
at the end of the file it moves no line, so ptxas's line information (and so its cubin) is the
same as without it. The PTX Triton caches is the one without the line.

Usage, before the first kernel is compiled (with TRITON_PTXAS_PATH and, for Triton 3.9 on sm_90
and later, TRITON_PTXAS_BLACKWELL_PATH naming links to warpsmith):

    import warpsmith_triton
    warpsmith_triton.install()

With Triton 3.9 and later the hook also enters Triton's cache key, together with the
`WARPSMITH_*` variables, so kernels compiled before warpsmith was switched on (or with other
passes) are not taken from the cache; with earlier versions use a fresh `TRITON_CACHE_DIR`.
"""

import hashlib
import os

MARKER = "// warpsmith-dynamic-smem:"
_installed = None
_previous = None


def _settings_key():
    """What decides the drop-in's output besides the PTX: the `WARPSMITH_*` variables."""
    items = sorted((k, v) for k, v in os.environ.items() if k.startswith("WARPSMITH_"))
    return "warpsmith-triton:" + ";".join(f"{k}={v}" for k, v in items)


def with_dynamic_smem(ptx, shared):
    """`ptx` with the marker line for `shared` bytes after its last line."""
    end = "" if ptx.endswith("\n") or not ptx else "\n"
    return f"{ptx}{end}{MARKER} {int(shared)}\n"


def _wrap_cubin_stage(stages):
    make_cubin = stages.get("cubin")
    if make_cubin is None:
        return

    def cubin(src, metadata):
        shared = metadata.get("shared") if isinstance(metadata, dict) else None
        if isinstance(src, str) and isinstance(shared, int) and shared >= 0:
            src = with_dynamic_smem(src, shared)
        return make_cubin(src, metadata)

    stages["cubin"] = cubin


def install():
    """Installs the hook (once; a hook installed before it keeps running first)."""
    global _installed, _previous
    try:
        from triton import knobs
        knobs.runtime.add_stages_inspection_hook
    except (ImportError, AttributeError) as e:
        raise RuntimeError(
            "warpsmith_triton needs Triton 3.4 or later (triton.knobs.runtime."
            "add_stages_inspection_hook); with an older Triton give one kernel's size in "
            f"WARPSMITH_SPILL_DYNAMIC_SMEM instead ({e})") from e

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
            _wrap_cubin_stage(stages)

    knobs.runtime.add_stages_inspection_hook = hook
    _installed = hook


def uninstall():
    """Puts back the hook that was there before `install` (unless another replaced ours)."""
    global _installed, _previous
    from triton import knobs

    if _installed is not None and knobs.runtime.add_stages_inspection_hook is _installed:
        knobs.runtime.add_stages_inspection_hook = _previous
    _installed = _previous = None
