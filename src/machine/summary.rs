//! A one-line summary of a function's shape and register needs, from the machine analyses: what
//! `warpsmith stats` prints for every kernel and device function.

use std::fmt;

use super::FunctionAnalyses;
use crate::ptx::ir::{FuncKind, Function};

/// Size, control-flow shape and register pressure of one function.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct FunctionSummary {
    /// The function's name.
    pub name: String,
    /// True for a kernel (`.entry`).
    pub is_entry: bool,
    /// Instructions in the body (0 for a declaration).
    pub instructions: usize,
    /// Basic blocks, unreachable ones included (0 for a declaration).
    pub blocks: usize,
    /// Natural loops.
    pub loops: usize,
    /// The deepest loop nesting (0 without loops).
    pub max_loop_depth: u32,
    /// The most 32-bit register units live at once (64-bit registers count 2).
    pub max_live_units: u32,
    /// The most predicate registers live at once.
    pub max_live_preds: u32,
    /// True when the CFG has irreducible control flow (then `loops` counts only natural loops).
    pub irreducible: bool,
}

impl FunctionSummary {
    /// Summarises `f`.
    pub fn compute(f: &Function) -> FunctionSummary {
        FunctionSummary::compute_with(f, &mut FunctionAnalyses::new())
    }

    /// Summarises `f`, reusing (and filling) the analyses cached in `analyses` for its body.
    pub fn compute_with(f: &Function, analyses: &mut FunctionAnalyses) -> FunctionSummary {
        let mut s = FunctionSummary {
            name: f.name.to_string(),
            is_entry: f.kind == FuncKind::Entry,
            ..FunctionSummary::default()
        };
        let Some(body) = &f.body else { return s };
        let a = analyses.all(body);
        s.instructions = body.inst_order().count();
        s.blocks = a.cfg.num_blocks();
        s.loops = a.loops.num_loops();
        s.max_loop_depth = a.loops.max_depth();
        s.max_live_units = a.pressure.max_units();
        s.max_live_preds = a.pressure.max_preds();
        s.irreducible = !a.loops.is_reducible();
        s
    }
}

impl fmt::Display for FunctionSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {}: {} instructions, {} blocks, {} loops (depth {}{}), {} live units, {} live predicates",
            if self.is_entry { ".entry" } else { ".func" },
            self.name,
            self.instructions,
            self.blocks,
            self.loops,
            self.max_loop_depth,
            if self.irreducible { ", irreducible" } else { "" },
            self.max_live_units,
            self.max_live_preds
        )
    }
}
