//! Shuffle synthesis (PTXASW, CC'23): find global loads that read what a neighbouring lane of the
//! same warp already loaded, and replace them with guarded `shfl.sync`.
//!
//! PLACEHOLDER during development: the public API below is fixed (the ptxas wrapper and the CLI
//! use it); the implementation is being built.

use serde::Serialize;

use crate::ptx::Module;

/// What code the pass generates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Mode {
    /// Correct code: shuffles with the incomplete-warp and out-of-range guards.
    #[default]
    Full,
    /// Measurement only (not correct): shuffles, the original loads removed.
    NoLoad,
    /// Measurement only (not correct): shuffles without the corner-case checks.
    NoCorner,
}

/// What the pass is asked to do.
#[derive(Clone, Debug)]
pub struct ShuffleOptions {
    /// Largest |N| considered (1..=31).
    pub max_delta: u32,
    /// Code generation mode.
    pub mode: Mode,
    /// Only this kernel (default: every kernel).
    pub kernel: Option<String>,
}

impl Default for ShuffleOptions {
    fn default() -> Self {
        ShuffleOptions {
            max_delta: 31,
            mode: Mode::Full,
            kernel: None,
        }
    }
}

/// A load that was not replaced, and why.
#[derive(Clone, Debug, Serialize)]
pub struct Rejected {
    /// The load (`file:line: ld.global…`).
    pub load: String,
    /// Why it was not replaced.
    pub why: String,
}

/// What the pass did to one kernel.
#[derive(Clone, Debug, Serialize)]
pub struct KernelShuffleReport {
    /// The kernel.
    pub name: String,
    /// Global loads in the kernel.
    pub loads: usize,
    /// Loads replaced by shuffles.
    pub shuffles: usize,
    /// The delta of each replaced load.
    pub deltas: Vec<i32>,
    /// Loads considered and not replaced.
    pub rejected: Vec<Rejected>,
    /// Analysis time in milliseconds.
    pub analysis_ms: f64,
}

/// The whole report (`--report FILE.json`).
#[derive(Clone, Debug, Serialize)]
pub struct ShuffleReport {
    /// Per kernel.
    pub kernels: Vec<KernelShuffleReport>,
}

/// Errors that stop the pass.
#[derive(Debug, thiserror::Error)]
pub enum ShuffleError {
    /// No kernel of that name.
    #[error("no kernel named `{0}` with a body")]
    NoKernel(String),
    /// The analysis failed.
    #[error("{0}")]
    Analysis(String),
}

/// Runs shuffle synthesis on every (or the chosen) kernel of `m`, rewriting it in place.
pub fn shuffle_module(
    m: &mut Module,
    opts: &ShuffleOptions,
) -> Result<ShuffleReport, ShuffleError> {
    let _ = (m, opts);
    Err(ShuffleError::Analysis(
        "shuffle synthesis is not built yet".into(),
    ))
}
