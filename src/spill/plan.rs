//! Planning a demotion (Sampaio et al. §3, the rewriting rules by divergence class; RegDem §3.1):
//! which rule a register gets, where each register is live (for slot sharing), which predicates to
//! pack, and the register-pressure figure the greedy order aims at.

use crate::analysis::divergence::{Class, Scope};
use crate::machine::bitset::BitSet;
use crate::machine::cfg::Cfg;
use crate::machine::liveness::Liveness;
use crate::machine::loops::LoopInfo;
use crate::machine::pressure::Pressure;
use crate::ptx::{Reg, Type};

use super::layout::{Layout, Slot};
use super::rewrite::Rule;

/// Usable predicate registers per thread (P0–P6; PT is the constant true).
pub(super) const PRED_REGS: usize = 7;

/// The most original predicates live at one program point.
pub(super) fn max_live_preds(
    body: &crate::ptx::Body,
    live: &[BitSet],
    original_regs: usize,
) -> usize {
    let n_points = live.first().map_or(0, BitSet::capacity);
    let mut count = vec![0usize; n_points];
    for (r, set) in live.iter().enumerate().take(original_regs) {
        if body.reg(Reg::new(r)).ty.ty == Type::Pred {
            for p in set.iter() {
                count[p] += 1;
            }
        }
    }
    count.into_iter().max().unwrap_or(0)
}

/// The predicates to pack so that at most [`PRED_REGS`] stay live at every program point: while
/// some point has more, the predicate live there with the longest live range (then the fewest
/// accesses) goes.
pub(super) fn pack_candidates(
    body: &crate::ptx::Body,
    live: &[BitSet],
    original_regs: usize,
) -> Vec<Reg> {
    let n_points = live.first().map_or(0, BitSet::capacity);
    let preds: Vec<Reg> = (0..original_regs)
        .map(Reg::new)
        .filter(|&r| body.reg(r).ty.ty == Type::Pred)
        .collect();
    let mut uses = vec![0usize; body.regs.len()];
    for i in body.inst_order() {
        crate::ptx::roles::for_each_reg_role(body.inst(i), |r, _| {
            if r.index() < uses.len() {
                uses[r.index()] += 1;
            }
        });
    }
    let mut count = vec![0usize; n_points];
    for &r in &preds {
        for p in live[r.index()].iter() {
            count[p] += 1;
        }
    }
    let mut chosen = Vec::new();
    loop {
        let over = |r: Reg| live[r.index()].iter().any(|p| count[p] > PRED_REGS);
        let Some(best) = preds
            .iter()
            .copied()
            .filter(|&r| !chosen.contains(&r) && over(r))
            .max_by(|&a, &b| {
                live[a.index()]
                    .len()
                    .cmp(&live[b.index()].len())
                    .then(uses[b.index()].cmp(&uses[a.index()]))
                    .then(b.index().cmp(&a.index()))
            })
        else {
            break;
        };
        for p in live[best.index()].iter() {
            count[p] -= 1;
        }
        chosen.push(best);
    }
    chosen
}

/// The instructions of `body` inside a loop, by index — every instruction when the CFG has
/// irreducible cycles, which [`LoopInfo`] does not describe.
pub(super) fn loop_instructions(body: &crate::ptx::Body) -> BitSet {
    let (cfg, loops) = cfg_and_loops(body);
    let mut set = BitSet::new(body.insts.len());
    for b in cfg.blocks() {
        if loops.is_reducible() && loops.block_depth(b) == 0 {
            continue;
        }
        for i in cfg.insts(b) {
            set.insert(i.index());
        }
    }
    set
}

/// The control-flow graph of `body` and its loops.
pub(super) fn cfg_and_loops(body: &crate::ptx::Body) -> (Cfg, LoopInfo) {
    let cfg = Cfg::compute(body);
    let dt = crate::machine::dominators::DomTree::compute(&cfg);
    let loops = LoopInfo::compute(&cfg, &dt);
    (cfg, loops)
}

/// Peak pressure of a body in 32-bit units.
pub fn pressure_of(body: &crate::ptx::Body) -> u32 {
    let cfg = Cfg::compute(body);
    let lv = Liveness::compute(body, &cfg);
    Pressure::compute(body, &cfg, &lv).max_units()
}

/// The rule for a register of class `class`: rematerialise constants and lane-affine values of
/// integer types; one word per warp or block for uniform values with a single definition (one
/// per block only when that definition runs once per thread, outside every loop); one word per
/// thread otherwise.
///
/// `sole_def_depth` is the loop depth of `r`'s only definition ([`sole_definition_depths`]).
pub(super) fn rule_for(
    body: &crate::ptx::Body,
    r: Reg,
    class: Class,
    sole_def_depth: Option<u32>,
    layout: &mut Layout,
    live: &BitSet,
) -> Rule {
    let ty = body.reg(r).ty;
    if ty.ty == Type::Pred {
        let (slot, bit) = layout.alloc_pred_bit(&BitSet::full(live.capacity()));
        return Rule::PackedPred { slot, bit };
    }
    let int_like = ty.vec.is_none()
        && ty.ty != Type::Pred
        && !ty.ty.is_float()
        && matches!(ty.bits(), 16 | 32 | 64);
    let words = if ty.bits() == 64 { 2 } else { 1 };
    if let (Class::Constant(c), true) = (class, int_like) {
        return Rule::Constant(c);
    }
    match class {
        Class::ConstantAffine { coef, base } if int_like && ty.bits() >= 32 => {
            return Rule::LaneAffine { coef, base }
        }
        // Sampaio's affine rule: the uniform base once per warp (per block when defined once
        // outside loops and block-uniform), rebuilt with one `mad` on reload. The `mad` takes the
        // coefficient as a 32-bit immediate.
        Class::Affine { coef, scope }
            if int_like
                && ty.bits() >= 32
                && sole_def_depth.is_some()
                && i32::try_from(coef).is_ok()
                && i32::try_from(-coef).is_ok() =>
        {
            let kind = if scope == Scope::Block && sole_def_depth == Some(0) {
                Slot::Block(0)
            } else {
                Slot::Warp(0)
            };
            return Rule::Affine {
                slot: layout.alloc_shared(kind, words, live),
                coef,
            };
        }
        Class::Constant(_) | Class::Uniform(_) if sole_def_depth.is_some() => {
            let scope = match class {
                Class::Uniform(s) => s,
                _ => Scope::Block,
            };
            if scope == Scope::Block && sole_def_depth == Some(0) {
                return Rule::Slot(layout.alloc_shared(Slot::Block(0), words, live));
            }
            return Rule::Slot(layout.alloc_shared(Slot::Warp(0), words, live));
        }
        _ => {}
    }
    Rule::Slot(layout.alloc_shared(Slot::Thread(0), words, live))
}

/// For every register of `body`, the loop depth of its only defining instruction, or `None` when
/// no instruction or several write it: all [`rule_for`] asks of where a register is defined. An
/// instruction in no block (unreachable) counts as inside a loop. One pass over `body`.
pub(super) fn sole_definition_depths(
    body: &crate::ptx::Body,
    cfg: &Cfg,
    loops: &LoopInfo,
) -> Vec<Option<u32>> {
    let mut defined_by: Vec<(u32, Option<crate::ptx::Inst>)> = vec![(0, None); body.regs.len()];
    for i in body.inst_order() {
        let mut regs = crate::ptx::roles::defs(body.inst(i));
        regs.sort_unstable_by_key(|r| r.index());
        regs.dedup();
        for r in regs {
            let entry = &mut defined_by[r.index()];
            *entry = (entry.0 + 1, Some(i));
        }
    }
    defined_by
        .into_iter()
        .map(|(count, at)| match (count, at) {
            (1, Some(i)) => Some(cfg.block_of(i).map_or(1, |b| loops.block_depth(b))),
            _ => None,
        })
        .collect()
}

/// For every register, the program points (numbered over the whole body) where it is live.
pub(super) fn live_points(body: &crate::ptx::Body) -> Vec<BitSet> {
    let cfg = Cfg::compute(body);
    let lv = Liveness::compute(body, &cfg);
    let n_points: usize = cfg.blocks().map(|b| cfg.insts(b).len() + 1).sum();
    let mut out = vec![BitSet::new(n_points); body.regs.len()];
    let mut p = 0;
    for b in cfg.blocks() {
        let mut mark = |set: &BitSet, p: usize| {
            for r in set.iter() {
                out[r].insert(p);
            }
        };
        let mut block_points = Vec::new();
        lv.for_each_point(body, &cfg, b, |_, before, _| {
            block_points.push(before.clone())
        });
        for set in block_points.iter().rev() {
            mark(set, p);
            p += 1;
        }
        mark(lv.live_out(b), p);
        p += 1;
    }
    out
}
