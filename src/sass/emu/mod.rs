//! The SASS emulator: runs sm_80/sm_86/sm_89/sm_90 cubins on the CPU, a warp at a time — the
//! oracle for every binary rewrite, as the PTX emulator (`crate::emu`) is for PTX rewrites
//! (RegDem §3: a demoted kernel must compute the same bytes as the original).
//!
//! Modules:
//! - [`operand`]: the typed form of one instruction from nvdisasm's text (guard, mnemonic,
//!   modifiers, registers, immediates, constant banks, addresses, targets).
//! - [`program`]: a cubin's kernels — instructions, EIATTR parameter layout, constant banks,
//!   shared and local sizes.
//! - [`decode`]: mnemonic + modifiers → [`decode::Kind`] (once per instruction); the statistics
//!   classes.
//! - [`alu`]: the integer/float datapath on concrete bits, `MUFU` approximations.
//! - [`exec`]: the interpreter (per-lane PCs, BSSY/BSYNC/WARPSYNC/BAR convergence, memory,
//!   atomics, shuffles, votes).
//! - `warp_alu`: whole-warp execution of the common datapath instructions (speed), by class
//!   (`int`, `logic`, `compare`, `float`).
//! - [`stats`]: instructions by class, accesses, sector transactions, bank conflicts.
//! - [`launch`]: the PTX emulator's JSON launch spec applied to a cubin.
//! - [`module_globals`]: the module's `__device__` variables placed in global memory and the
//!   relocations that give code and data their addresses (as the driver's loader does).
//! - [`equiv`]: comparing any mix of `.ptx` and `.cubin` runs byte for byte.
//! - [`timing`]: the cycle-level timing mode (one SM's CTAs on a model of its warp schedulers,
//!   pipes and memory system), the performance predictor's strongest source.
//!
//! The emulator reads instructions through nvdisasm (the decoder in `sass::isa` gives register
//! def/use but not operand semantics yet): without nvdisasm it reports
//! [`SassEmuError::Nvdisasm`]. See docs/emulator.md, "The SASS emulator".

pub mod alu;
pub mod decode;
pub mod equiv;
pub mod exec;
pub mod launch;
pub mod module_globals;
pub mod operand;
pub mod program;
pub mod stats;
pub mod timing;
mod warp_alu;

pub use launch::{run, SassRunOutput};
pub use program::SassProgram;
pub use stats::SassStats;

/// Errors preparing a cubin for emulation.
#[derive(Debug, thiserror::Error)]
pub enum SassEmuError {
    /// The cubin cannot be read or is for an unsupported architecture.
    #[error("cubin: {0}")]
    Cubin(String),
    /// nvdisasm is missing or failed (the SASS emulator needs it to read operands).
    #[error("the SASS emulator needs nvdisasm to read instructions: {0}")]
    Nvdisasm(#[source] crate::tools::ToolError),
}
