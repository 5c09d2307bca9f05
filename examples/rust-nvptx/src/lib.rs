//! A Rust NVPTX kernel rewritten by warpsmith at build time (README.md).
//!
//! `build.rs` compiles `kernel/stencil.rs` for `nvptx64-nvidia-cuda` and runs warpsmith's shuffle
//! synthesis on the PTX; this crate embeds the result, ready for a CUDA driver binding
//! (`cuModuleLoadData` takes PTX text) — or for warpsmith's emulator, as `tests/` does.

/// The kernel's PTX as rustc emitted it.
pub const ORIGINAL_PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/stencil.ptx"));

/// The kernel's PTX after warpsmith (guarded `shfl.sync` instead of two of its three loads).
pub const PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/stencil.warpsmith.ptx"));

/// warpsmith's divergence report on the original PTX (JSON).
pub const DIVERGENCE_REPORT: &str =
    include_str!(concat!(env!("OUT_DIR"), "/stencil.divergence.json"));

/// warpsmith's shuffle-synthesis report (JSON).
pub const SHUFFLE_REPORT: &str = include_str!(concat!(env!("OUT_DIR"), "/stencil.shuffle.json"));

/// The kernel's name in the PTX.
pub const KERNEL: &str = "stencil3";
