//! warpsmith: raises the occupancy and speed of NVIDIA GPU kernels after the compiler.
//!
//! For build scripts and other programs, start with [`api`]: parse PTX, report divergence, run
//! shuffle synthesis and spilling, print the result — with one typed error.
//!
//! The library is organised as in `DESIGN.md`:
//! - [`ptx`]: the PTX machine IR — lexer, parser, printer, builder, operand roles.
//! - [`machine`]: analyses on that IR — CFG, dominators, loops, liveness, register pressure, SSA renaming.
//! - [`emu`]: the PTX emulator (SIMT interpreter over a value domain), the correctness oracle.
//! - [`analysis`]: divergence (affine, PTX and LLVM front ends) and occupancy analyses.
//! - `plugin` (feature `llvm`): the LLVM 22 pass plugin, `libwarpsmith.so` (`print<affine-divergence>`).
//! - [`spill`]: shared-memory spilling (demote registers to a `.shared` array for a register cap).
//! - [`sass`]: cubins (ELF reader/writer, `.nv.info`), the SASS decoder/encoder and the editing API.
//! - [`sched`]: the basic-block scheduler of SASS with pluggable dependency rules.
//! - [`tools`]: discovery of the external tools (ptxas, nvdisasm, clang-22, …).
//! - [`fsutil`]: atomic output files.
//! - [`api`]: the front door above, over these modules.

pub mod analysis;
pub mod api;
pub mod emu;
pub mod fsutil;
pub mod machine;
pub mod never_worse;
#[cfg(feature = "llvm")]
pub mod plugin;
pub mod ptx;
pub mod sass;
pub mod sched;
pub mod shuffle;
pub mod spill;
pub mod tools;
pub mod tune;
