//! warpsmith: raises the occupancy and speed of NVIDIA GPU kernels after the compiler.
//!
//! The library is organised as in `DESIGN.md`:
//! - [`ptx`]: the PTX machine IR — lexer, parser, printer, builder, operand roles.
//! - [`machine`]: analyses on that IR — CFG, dominators, loops, liveness, register pressure, SSA renaming.
//! - [`tools`]: discovery of the external tools (ptxas, nvdisasm, clang-22, …).
//! - [`fsutil`]: atomic output files.

pub mod fsutil;
pub mod machine;
pub mod ptx;
pub mod tools;
