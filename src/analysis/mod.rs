//! Analyses on PTX and LLVM IR that transforms consult (`DESIGN.md`, "analysis/").
//!
//! - [`divergence`]: affine divergence analysis (Sampaio et al., "Spill Code Placement for SIMD
//!   Machines" §2, with LLVM UniformityAnalysis-style sync dependence), one engine with a PTX and
//!   an LLVM IR front end.
//! - [`occupancy`]: resident blocks and warps per SM, the limiting resource, register cliffs.
//! - [`address_regs`]: the parameter and uniform pointers ptxas copies into per-thread
//!   registers for global accesses (the register model counts them).
//! - [`call_regs`]: what a `call` costs a kernel in registers (direct calls allocated across,
//!   the calling convention's floor), for the register model.
//! - [`regmodel`]: a model of the registers ptxas gives a kernel (issue 12).
//! - [`issue_order`]: the latency-first order ptxas's scheduler is expected to issue a block in,
//!   on which the register model counts pressure.
//! - [`reg_assign`]: an aligned greedy register assignment, for counting the register numbers
//!   ptxas's count reflects (pairs, vector groups, held immediates).
//! - [`if_conversion`]: short guarded blocks predicated as ptxas if-converts them, so that the
//!   register model schedules across them.
//! - [`unnamed_labels`]: labels no instruction names (Triton's debug anchors), dropped so that
//!   they do not split the blocks the register model schedules.

pub mod address_regs;
pub mod call_regs;
pub mod constant_guards;
pub mod divergence;
pub mod if_conversion;
pub mod issue_order;
pub mod loop_unroll;
pub mod occupancy;
pub mod reg_assign;
pub mod regmodel;
pub mod unnamed_labels;
