//! Analyses on PTX and LLVM IR that transforms consult (`DESIGN.md`, "analysis/").
//!
//! - [`divergence`]: affine divergence analysis (Sampaio et al., "Spill Code Placement for SIMD
//!   Machines" §2, with LLVM UniformityAnalysis-style sync dependence), one engine with a PTX and
//!   an LLVM IR front end.
//! - [`occupancy`]: resident blocks and warps per SM, the limiting resource, register cliffs.

pub mod divergence;
pub mod occupancy;
pub mod regmodel;
