//! Profitability of shuffle replacements (issue 13; PTXASW, CC'23, §6 measures the cost of the
//! corner cases but makes every replacement it can prove).
//!
//! A replaced load still issues — predicated off in the lanes that take the shuffle — so what a
//! replacement saves is the memory access, and what it costs is the instructions code generation
//! adds ([`super::codegen`]): per 32-bit component one `shfl.sync` (a 64-bit one: two and two
//! moves), per straight-line run of replacements one `activemask` and one `setp` per distinct
//! delta, per source of linear checked components one stride vote, per other checked component
//! an address shuffle and comparison, an `or` per extra predicate, and once per kernel the lane
//! rooms. Shared instructions are divided among the replacements that use them.
//!
//! [`LOAD_SAVING`] is what one replaced load component is taken to be worth, in instruction
//! issues. It is an assumption, not a measurement (no GPU has been lent to this project so far):
//! the saved access is an L1 wavefront of 128 bytes — often two, since a load at `x ± N` is
//! misaligned by `N` elements — on the dependent path of a ~30-cycle L1 hit. Replacements
//! costing more are not made (the load stays); the least profitable goes first and the shares
//! are recomputed, so a run of replacements that only pays together is kept together.

use std::collections::{HashMap, HashSet};

use super::codegen::straight_line;
use super::detect::{LoadInfo, Replacement};
use crate::ptx::ir::{Body, Inst};

/// What one replaced load component is worth, in instruction issues (see the module doc).
pub const LOAD_SAVING: f64 = 3.0;

/// Instructions of the lane-room prologue (once per kernel with shuffles).
const PROLOGUE: f64 = 8.0;
/// `activemask` and its `setp` (once per straight-line run).
const MASK: f64 = 2.0;
/// One corner predicate (`setp.lt.or`), per delta and run.
const CORNER: f64 = 1.0;
/// A stride vote: the 64-bit address shuffle (4), `add`, `setp`, `vote` — per source and run.
const VOTE: f64 = 7.0;
/// A per-load address check: `add`, the 64-bit address shuffle (4), `setp`, `or`.
const ADDRESS_CHECK: f64 = 7.0;
/// Reuse across iterations: the kept address (`mov`), its shuffle and comparison, the entry reset.
const CROSS: f64 = 8.0;

/// A shared instruction group: what it is and in which run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Shared {
    Mask(usize),
    Corner(usize, i32),
    Vote(usize, Inst, u32, i64),
}

/// The replacements worth making, and for each dropped one its estimated cost.
///
/// `in_loop` lists the instructions inside loops: there the kernel's one-time prologue is not
/// charged (it runs once, the replacement every iteration).
pub fn profitable(
    body: &Body,
    loads: &[LoadInfo],
    reps: Vec<Replacement>,
    in_loop: &HashSet<Inst>,
) -> (Vec<Replacement>, Vec<(Inst, f64)>) {
    let size: HashMap<Inst, u32> = loads.iter().map(|l| (l.inst, l.size)).collect();
    // Straight-line runs, in program order (replacements are in program order).
    let mut run_of: Vec<usize> = Vec::with_capacity(reps.len());
    for (i, r) in reps.iter().enumerate() {
        let run = match i {
            0 => 0,
            _ if straight_line(body, reps[i - 1].dst, r.dst) => run_of[i - 1],
            _ => run_of[i - 1] + 1,
        };
        run_of.push(run);
    }
    let mut kept: Vec<bool> = vec![true; reps.len()];
    let mut dropped = Vec::new();
    loop {
        let costs = estimate(&reps, &run_of, &kept, &size, in_loop);
        let worst = costs
            .iter()
            .enumerate()
            .filter(|(i, _)| kept[*i])
            .map(|(i, c)| (i, c / components(&reps[i]) as f64))
            .filter(|(_, per)| *per > LOAD_SAVING)
            .max_by(|a, b| a.1.total_cmp(&b.1));
        match worst {
            Some((i, per)) => {
                kept[i] = false;
                dropped.push((reps[i].dst, per));
            }
            None => break,
        }
    }
    let reps = reps
        .into_iter()
        .zip(kept)
        .filter_map(|(r, k)| k.then_some(r))
        .collect();
    (reps, dropped)
}

fn components(r: &Replacement) -> usize {
    r.comps.len().max(1)
}

/// The estimated added instructions of each kept replacement, shared groups divided among
/// their users.
fn estimate(
    reps: &[Replacement],
    run_of: &[usize],
    kept: &[bool],
    size: &HashMap<Inst, u32>,
    in_loop: &HashSet<Inst>,
) -> Vec<f64> {
    let mut users: HashMap<Shared, usize> = HashMap::new();
    let mut groups: Vec<Vec<(Shared, f64)>> = vec![Vec::new(); reps.len()];
    let mut own: Vec<f64> = vec![0.0; reps.len()];
    let mut shufflers = 0usize;
    for (i, r) in reps.iter().enumerate() {
        if !kept[i] {
            continue;
        }
        let run = run_of[i];
        let wide = size.get(&r.dst).copied() == Some(8);
        let mut preds = 0;
        let mut mine: Vec<(Shared, f64)> = Vec::new();
        if r.comps.iter().any(|c| c.delta != 0) {
            shufflers += 1;
            mine.push((Shared::Mask(run), MASK));
        }
        for c in &r.comps {
            if c.cross.is_some() {
                own[i] += CROSS;
                continue;
            }
            if c.delta == 0 {
                own[i] += 1.0;
                continue;
            }
            own[i] += if wide { 4.0 } else { 1.0 };
            let corner = (Shared::Corner(run, c.delta), CORNER);
            if !mine.contains(&corner) {
                mine.push(corner);
                preds += 1;
            }
            if c.checked {
                match c.linear_stride {
                    Some(s) => {
                        let v = (Shared::Vote(run, c.src, c.src_comp, s), VOTE);
                        if !mine.contains(&v) {
                            mine.push(v);
                            preds += 1;
                        }
                    }
                    None => own[i] += ADDRESS_CHECK,
                }
            }
        }
        own[i] += f64::from((preds - 1).max(0));
        for (g, _) in &mine {
            *users.entry(*g).or_insert(0) += 1;
        }
        groups[i] = mine;
    }
    let prologue = if shufflers > 0 {
        PROLOGUE / shufflers as f64
    } else {
        0.0
    };
    (0..reps.len())
        .map(|i| {
            if !kept[i] {
                return 0.0;
            }
            let shared: f64 = groups[i].iter().map(|(g, c)| c / users[g] as f64).sum();
            let pro =
                if reps[i].comps.iter().any(|c| c.delta != 0) && !in_loop.contains(&reps[i].dst) {
                    prologue
                } else {
                    0.0
                };
            own[i] + shared + pro
        })
        .collect()
}
