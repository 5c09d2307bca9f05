//! SASS and cubins: everything the SASS register demoter needs below the algorithm.
//!
//! - [`elf`]: reading and writing NVIDIA cubins (ELF64) byte-exactly, typed `.nv.info` records,
//!   symbols, relocations and `.debug_frame` code offsets (`sass-and-cubin-format.md` §8).
//! - [`isa`]: SASS words, control bits, the table-driven decoder/encoder, def/use and the
//!   encoders for inserted instructions (§6, §9).
//! - [`nvdisasm`]: nvdisasm as an oracle (listing, raw words, life ranges, labels; §7).
//! - [`check`]: our decode compared with nvdisasm's (`warpsmith sass check`).
//! - [`edit`]: the editing API — insert/remove instructions and fix every code offset.
//! - [`demote`]: `warpsmith demote` — moving ptxas's local-memory frame to shared memory.
//! - [`emu`]: the SASS emulator (cubins on the CPU; the oracle for binary rewrites).
//! - [`lmem`]: the local-memory report (`warpsmith lmem-report`).
//! - [`liveness`]: live registers before each instruction (`warpsmith sass dis --liveness`).
//! - [`nop_test`]: NOPs at every basic-block start, and the nvdisasm listing comparison.

pub mod check;
pub mod demote;
pub mod edit;
pub mod elf;
pub mod emu;
pub mod hazard;
pub mod isa;
pub mod liveness;
pub mod lmem;
pub mod nop_test;
pub mod nvdisasm;

/// Any error of the SASS layer, for callers that do not need to tell them apart.
#[derive(Debug, thiserror::Error)]
pub enum SassError {
    /// Reading or editing the cubin failed.
    #[error(transparent)]
    Elf(#[from] elf::ElfError),
    /// An external tool failed.
    #[error(transparent)]
    Tool(#[from] crate::tools::ToolError),
    /// The nvdisasm comparison could not run.
    #[error(transparent)]
    Check(#[from] check::CheckError),
    /// An instruction could not be changed as asked.
    #[error(transparent)]
    Isa(#[from] isa::IsaError),
    /// An edit could not be made.
    #[error(transparent)]
    Edit(#[from] edit::EditError),
    /// The local-memory report failed.
    #[error(transparent)]
    Lmem(#[from] lmem::LmemError),
    /// The cubin is for an architecture we do not decode.
    #[error("unsupported architecture sm_{0} (supported: sm_80, sm_86, sm_89, sm_90)")]
    Arch(u32),
}
