//! The fixed-point engine, written once for both front ends (PTX registers and LLVM IR values).
//!
//! Data dependence is the forward propagation of Sampaio et al. §2: every value starts at ⊤ and is
//! lowered to the meet of what its definitions compute from their operands, until nothing changes.
//!
//! Control (sync) dependence follows LLVM's `UniformityAnalysis` (`GenericUniformityImpl.h`, after
//! Rosemann, Moll and Hack, POPL'21): when the condition of a branch is not uniform, labels are
//! propagated from the branch's successors in reverse post-order; a block reached with two
//! different labels is a *join* (disjoint paths from the branch meet there), and a cycle exit
//! reached from inside the cycle after the branch is a *divergent exit* (lanes leave the cycle at
//! different iterations). Each front end says which of its values such a join or exit affects
//! ([`DivergenceIr::join_values`], [`DivergenceIr::cycle_exit_values`]): LLVM phi nodes and uses
//! outside the cycle; for PTX, registers defined on the diverged paths that are live at the join
//! or at the exit. Those values are *tainted*: made divergent when the branch is divergent, or
//! narrowed to warp scope when the branch is warp-uniform but not block-uniform (different warps
//! take different paths, so merged values differ between warps).
//!
//! Irreducible control flow is handled conservatively: if a function has an irreducible cycle and
//! any branch is not block-uniform, every value is tainted at that branch's level.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::lattice::{Abs, Taint};

/// A cycle (natural loop or LLVM cycle) of a front end's CFG.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CycleData {
    /// The header (the only entry of a reducible cycle).
    pub header: u32,
    /// The enclosing cycle.
    pub parent: Option<u32>,
    /// Nesting depth, 1 for outermost cycles.
    pub depth: u32,
    /// False for an irreducible cycle (more than one entry).
    pub reducible: bool,
    /// Blocks outside the cycle with a predecessor inside it.
    pub exits: Vec<u32>,
}

/// The cycle forest of a CFG: what a front end tells the engine about loops.
#[derive(Clone, Debug, Default)]
pub struct Cycles {
    /// The cycles; parents need not come first.
    pub cycles: Vec<CycleData>,
    /// The innermost cycle of each block.
    pub innermost: Vec<Option<u32>>,
}

impl Cycles {
    /// True when cycle `c` contains block `b`.
    pub fn contains(&self, c: u32, b: u32) -> bool {
        let Some(target) = self.cycles.get(c as usize) else {
            return false;
        };
        let mut cur = self.innermost.get(b as usize).copied().flatten();
        while let Some(x) = cur {
            if x == c {
                return true;
            }
            let Some(d) = self.cycles.get(x as usize) else {
                return false;
            };
            if d.depth <= target.depth {
                return false;
            }
            cur = d.parent;
        }
        false
    }

    /// The cycle whose header `b` is, if any.
    pub fn headed_by(&self, b: u32) -> Option<u32> {
        let c = self.innermost.get(b as usize).copied().flatten()?;
        (self.cycles.get(c as usize)?.header == b).then_some(c)
    }

    /// The depth of the innermost cycle holding `b` (0 outside cycles).
    pub fn depth_of(&self, b: u32) -> u32 {
        self.innermost
            .get(b as usize)
            .copied()
            .flatten()
            .and_then(|c| self.cycles.get(c as usize))
            .map_or(0, |d| d.depth)
    }

    /// True when some cycle is irreducible.
    pub fn has_irreducible(&self) -> bool {
        self.cycles.iter().any(|c| !c.reducible)
    }
}

/// How a block's terminator chooses its successor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Branch {
    /// Unconditional, or no successor: nothing to propagate.
    None,
    /// Chosen by the value (a predicate, a switch operand, a jump-table index).
    On(u32),
    /// Divergent whatever the values (an indirect branch the front end does not understand).
    Divergent,
}

/// What the engine needs from a front end: values, the definitions that write them and their
/// transfer functions, the CFG with its cycles and branch conditions, and which values a join or
/// a divergent cycle exit affects.
///
/// A *definition* is one transfer function: an LLVM instruction, or a PTX instruction (which may
/// write several registers, and a register may have several definitions: its abstract value is
/// the meet of what they compute). Values, definitions and blocks are dense `u32` indices. Every
/// method must accept any index below its count without panicking.
pub trait DivergenceIr {
    /// Number of values.
    fn num_values(&self) -> usize;
    /// The value of `v` before any definition is evaluated: ⊤ (optimistic) unless the front end
    /// knows better (a PTX register never written holds whatever each lane had: divergent).
    fn initial(&self, v: u32) -> Abs {
        let _ = v;
        Abs::TOP
    }
    /// Number of definitions.
    fn num_defs(&self) -> usize;
    /// Evaluates definition `d` on the current `state` of every value, calling `out(value, abs)`
    /// for each value it writes (already capped by its guard, if any).
    fn eval_def(&self, d: u32, state: &[Abs], out: &mut dyn FnMut(u32, Abs));
    /// The definitions that read value `v`.
    fn users(&self, v: u32) -> &[u32];
    /// Number of blocks.
    fn num_blocks(&self) -> usize;
    /// Successors of block `b`.
    fn succs(&self, b: u32) -> &[u32];
    /// The reachable blocks in reverse post-order (entry first).
    fn rpo(&self) -> &[u32];
    /// The cycle forest.
    fn cycles(&self) -> &Cycles;
    /// How block `b` chooses its successor.
    fn branch(&self, b: u32) -> Branch;
    /// The values made non-uniform when disjoint paths from a branch meet at `join`; `region`
    /// lists the blocks the engine reached from the branch (the diverged paths), `join` excluded.
    fn join_values(&self, join: u32, region: &[u32], out: &mut Vec<u32>);
    /// The values made non-uniform when lanes leave `cycle` at different iterations.
    fn cycle_exit_values(&self, cycle: u32, out: &mut Vec<u32>);
}

/// The result of [`solve`]: the abstract value of every value, and the taint of every branch.
#[derive(Clone, Debug, Default)]
pub struct Solution {
    /// Indexed by value.
    pub values: Vec<Abs>,
    /// Indexed by block: how far the block's branch diverges.
    pub branches: Vec<Taint>,
    /// True when the conservative irreducible-CFG fallback was used.
    pub irreducible_fallback: bool,
}

const NONE: u32 = u32::MAX;

/// Scratch state of one label propagation (sync dependence of one branch).
struct Labels {
    label: Vec<u32>,
    touched: Vec<u32>,
    fresh: BinaryHeap<Reverse<(u32, u32)>>,
    in_fresh: Vec<bool>,
    fresh_count: usize,
    rpo_index: Vec<u32>,
    joins: Vec<u32>,
    is_join: Vec<bool>,
}

impl Labels {
    fn new(n: usize, rpo: &[u32]) -> Labels {
        let mut rpo_index = vec![NONE; n];
        for (i, &b) in rpo.iter().enumerate() {
            if let Some(slot) = rpo_index.get_mut(b as usize) {
                *slot = i as u32;
            }
        }
        Labels {
            label: vec![NONE; n],
            touched: Vec::new(),
            fresh: BinaryHeap::new(),
            in_fresh: vec![false; n],
            fresh_count: 0,
            rpo_index,
            joins: Vec::new(),
            is_join: vec![false; n],
        }
    }

    fn reset(&mut self) {
        for &b in &self.touched {
            self.label[b as usize] = NONE;
            self.in_fresh[b as usize] = false;
            self.is_join[b as usize] = false;
        }
        self.touched.clear();
        self.fresh.clear();
        self.fresh_count = 0;
        self.joins.clear();
    }

    fn push_fresh(&mut self, b: u32) {
        if !self.in_fresh[b as usize] {
            self.in_fresh[b as usize] = true;
            self.fresh_count += 1;
            self.fresh.push(Reverse((self.rpo_index[b as usize], b)));
        }
    }

    /// LLVM's `visitEdge`/`computeJoin`: pushes `label` to `succ`; true when `succ` is a join.
    fn visit(&mut self, succ: u32, label: u32) -> bool {
        let s = succ as usize;
        if s >= self.label.len() || self.rpo_index[s] == NONE {
            return false;
        }
        let old = self.label[s];
        if old == NONE {
            self.label[s] = label;
            self.touched.push(succ);
            self.push_fresh(succ);
            return false;
        }
        if old == label {
            return false;
        }
        if old != succ {
            self.label[s] = succ;
            self.push_fresh(succ);
        }
        if !self.is_join[s] {
            self.is_join[s] = true;
            self.joins.push(succ);
        }
        true
    }
}

/// Runs the analysis to its fixed point.
///
/// The worklist holds definitions. A definition is re-evaluated when a value it reads changes,
/// and its result is met into the values it writes (transfer functions are monotone and values
/// only go down the lattice, so the incremental meet equals the meet over all definitions).
pub fn solve<F: DivergenceIr + ?Sized>(f: &F) -> Solution {
    let n = f.num_values();
    let nd = f.num_defs();
    let nb = f.num_blocks();
    let mut state: Vec<Abs> = (0..n as u32).map(|v| f.initial(v)).collect();
    let mut taint = vec![Taint::None; n];
    let mut done = vec![Taint::None; nb];

    // Which blocks branch on each value.
    let mut cond_blocks: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut block_work: Vec<u32> = Vec::new();
    for &b in f.rpo() {
        match f.branch(b) {
            Branch::On(v) => {
                if let Some(list) = cond_blocks.get_mut(v as usize) {
                    list.push(b);
                }
                if state.get(v as usize).is_some_and(|a| !a.is_top()) {
                    block_work.push(b);
                }
            }
            Branch::Divergent => block_work.push(b),
            Branch::None => {}
        }
    }

    let mut work: Vec<u32> = (0..nd as u32).rev().collect();
    let mut in_work = vec![true; nd];
    let mut labels = Labels::new(nb, f.rpo());
    let mut affected: Vec<u32> = Vec::new();
    let mut outputs: Vec<(u32, Abs)> = Vec::new();
    let mut changed: Vec<u32> = Vec::new();
    let irreducible = f.cycles().has_irreducible();
    let mut fallback = false;

    loop {
        while let Some(d) = work.pop() {
            if let Some(flag) = in_work.get_mut(d as usize) {
                *flag = false;
            }
            outputs.clear();
            f.eval_def(d, &state, &mut |v, a| outputs.push((v, a)));
            changed.clear();
            for &(v, a) in &outputs {
                let vi = v as usize;
                if vi >= n {
                    continue;
                }
                let new = state[vi].meet(a.cap(taint[vi]));
                if new != state[vi] {
                    state[vi] = new;
                    changed.push(v);
                }
            }
            for &v in &changed {
                for &u in f.users(v) {
                    if let Some(flag) = in_work.get_mut(u as usize) {
                        if !*flag {
                            *flag = true;
                            work.push(u);
                        }
                    }
                }
                block_work.extend_from_slice(&cond_blocks[v as usize]);
            }
        }
        if block_work.is_empty() {
            break;
        }
        while let Some(b) = block_work.pop() {
            let level = match f.branch(b) {
                Branch::None => Taint::None,
                Branch::Divergent => Taint::Divergent,
                Branch::On(v) => state.get(v as usize).map_or(Taint::Divergent, Abs::taint),
            };
            let Some(slot) = done.get_mut(b as usize) else {
                continue;
            };
            if level <= *slot {
                continue;
            }
            *slot = level;
            affected.clear();
            if irreducible {
                fallback = true;
                affected.extend(0..n as u32);
            } else {
                sync_dependence(f, b, &mut labels, &mut affected);
            }
            for &v in &affected {
                let vi = v as usize;
                if vi < n && taint[vi] < level {
                    taint[vi] = level;
                    let new = state[vi].cap(level);
                    if new != state[vi] {
                        state[vi] = new;
                        for &u in f.users(v) {
                            if let Some(flag) = in_work.get_mut(u as usize) {
                                if !*flag {
                                    *flag = true;
                                    work.push(u);
                                }
                            }
                        }
                        block_work.extend_from_slice(&cond_blocks[vi]);
                    }
                }
            }
        }
    }
    log::debug!(
        "divergence: {} values, {} definitions, {} blocks, {} divergent branches",
        n,
        nd,
        nb,
        done.iter().filter(|t| **t == Taint::Divergent).count()
    );
    Solution {
        values: state,
        branches: done,
        irreducible_fallback: fallback,
    }
}

/// The joins and divergent cycle exits of the branch ending block `b` (LLVM's
/// `DivergencePropagator::computeJoinPoints` for reducible CFGs), reported to the front end.
fn sync_dependence<F: DivergenceIr + ?Sized>(
    f: &F,
    b: u32,
    labels: &mut Labels,
    affected: &mut Vec<u32>,
) {
    let cycles = f.cycles();
    labels.reset();
    let term_cycle = cycles.innermost.get(b as usize).copied().flatten();
    let mut div_exits: Vec<u32> = Vec::new();
    for &s in f.succs(b) {
        if let Some(c) = term_cycle {
            if !cycles.contains(c, s) {
                div_exits.push(s);
            }
        }
        labels.visit(s, s);
    }
    while let Some(&Reverse((_, blk))) = labels.fresh.peek() {
        if labels.fresh_count == 1 {
            break;
        }
        labels.fresh.pop();
        labels.in_fresh[blk as usize] = false;
        labels.fresh_count -= 1;
        if blk == b {
            continue;
        }
        let label = labels.label[blk as usize];
        if let Some(c) = cycles.headed_by(blk) {
            let inside = cycles.contains(c, b);
            let exits = cycles
                .cycles
                .get(c as usize)
                .map_or(&[][..], |d| &d.exits[..]);
            for &e in exits {
                if labels.visit(e, label) && inside {
                    div_exits.push(e);
                }
            }
        } else {
            for &s in f.succs(blk) {
                labels.visit(s, label);
            }
        }
    }

    if !labels.joins.is_empty() {
        let region: Vec<u32> = labels.touched.clone();
        for &j in &labels.joins {
            let reg: Vec<u32> = region.iter().copied().filter(|&x| x != j).collect();
            f.join_values(j, &reg, affected);
        }
    }

    // Temporal divergence: for each divergent exit, the outermost cycle holding the branch but
    // not the exit.
    let mut seen: Vec<u32> = Vec::new();
    if let Some(inner) = term_cycle {
        for &e in &div_exits {
            let exit_depth = cycles.depth_of(e);
            let mut cur = Some(inner);
            let mut outer = inner;
            while let Some(c) = cur {
                let Some(d) = cycles.cycles.get(c as usize) else {
                    break;
                };
                if d.depth <= exit_depth {
                    break;
                }
                outer = c;
                cur = d.parent;
            }
            if !seen.contains(&outer) {
                seen.push(outer);
                f.cycle_exit_values(outer, affected);
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    //! A toy front end: each value is a block-local "phi-like" register defined from sources.
    use super::*;
    use crate::analysis::divergence::lattice::{Class, Scope};

    /// A tiny SSA-like IR for engine tests: values are either sources or meets of operands; joins
    /// taint the values listed per block (like phis).
    pub(crate) struct Toy {
        pub defs: Vec<(u32, ToyDef)>, // (block, def)
        pub users: Vec<Vec<u32>>,
        pub succs: Vec<Vec<u32>>,
        pub rpo: Vec<u32>,
        pub cycles: Cycles,
        pub branch: Vec<Branch>,
    }

    #[derive(Clone)]
    pub(crate) enum ToyDef {
        Src(Abs),
        Meet(Vec<u32>),
    }

    impl Toy {
        pub(crate) fn new(defs: Vec<(u32, ToyDef)>, succs: Vec<Vec<u32>>) -> Toy {
            let mut users = vec![Vec::new(); defs.len()];
            for (i, (_, d)) in defs.iter().enumerate() {
                if let ToyDef::Meet(ops) = d {
                    for &o in ops {
                        users[o as usize].push(i as u32);
                    }
                }
            }
            // RPO by DFS.
            let n = succs.len();
            let mut seen = vec![false; n];
            let mut post = Vec::new();
            fn dfs(b: usize, s: &[Vec<u32>], seen: &mut [bool], post: &mut Vec<u32>) {
                seen[b] = true;
                for &x in &s[b] {
                    if !seen[x as usize] {
                        dfs(x as usize, s, seen, post);
                    }
                }
                post.push(b as u32);
            }
            dfs(0, &succs, &mut seen, &mut post);
            post.reverse();
            Toy {
                defs,
                users,
                branch: vec![Branch::None; n],
                succs,
                rpo: post,
                cycles: Cycles {
                    cycles: vec![],
                    innermost: vec![None; n],
                },
            }
        }
    }

    impl DivergenceIr for Toy {
        fn num_values(&self) -> usize {
            self.defs.len()
        }
        fn num_defs(&self) -> usize {
            self.defs.len()
        }
        fn eval_def(&self, v: u32, state: &[Abs], out: &mut dyn FnMut(u32, Abs)) {
            out(
                v,
                match &self.defs[v as usize].1 {
                    ToyDef::Src(a) => *a,
                    ToyDef::Meet(ops) => ops
                        .iter()
                        .fold(Abs::TOP, |acc, &o| acc.meet(state[o as usize])),
                },
            )
        }
        fn users(&self, v: u32) -> &[u32] {
            &self.users[v as usize]
        }
        fn num_blocks(&self) -> usize {
            self.succs.len()
        }
        fn succs(&self, b: u32) -> &[u32] {
            &self.succs[b as usize]
        }
        fn rpo(&self) -> &[u32] {
            &self.rpo
        }
        fn cycles(&self) -> &Cycles {
            &self.cycles
        }
        fn branch(&self, b: u32) -> Branch {
            self.branch[b as usize]
        }
        fn join_values(&self, join: u32, _region: &[u32], out: &mut Vec<u32>) {
            for (i, (blk, d)) in self.defs.iter().enumerate() {
                if *blk == join && matches!(d, ToyDef::Meet(_)) {
                    out.push(i as u32);
                }
            }
        }
        fn cycle_exit_values(&self, cycle: u32, out: &mut Vec<u32>) {
            // Values defined in the cycle.
            for (i, (blk, _)) in self.defs.iter().enumerate() {
                if self.cycles.contains(cycle, *blk) {
                    out.push(i as u32);
                }
            }
        }
    }

    #[test]
    fn diamond_join() {
        // bb0 -> bb1, bb2 -> bb3; value 3 in bb3 merges 1 and 2.
        let defs = vec![
            (0, ToyDef::Src(Abs::DIVERGENT)),             // 0: condition
            (1, ToyDef::Src(Abs::constant(1))),           // 1
            (2, ToyDef::Src(Abs::constant(1))),           // 2
            (3, ToyDef::Meet(vec![1, 2])),                // 3: phi
            (3, ToyDef::Src(Abs::uniform(Scope::Block))), // 4: not a phi
        ];
        let mut t = Toy::new(defs, vec![vec![1, 2], vec![3], vec![3], vec![]]);
        t.branch[0] = Branch::On(0);
        let s = solve(&t);
        assert_eq!(s.values[3].class(), Class::Divergent);
        assert_eq!(s.values[4].class(), Class::Uniform(Scope::Block));
        assert_eq!(s.branches[0], Taint::Divergent);

        // A warp-uniform condition narrows the merged value to warp scope.
        let mut t2 = t;
        t2.defs[0].1 = ToyDef::Src(Abs::uniform(Scope::Warp));
        t2.defs[2].1 = ToyDef::Src(Abs::constant(2));
        let s = solve(&t2);
        assert_eq!(s.values[3].class(), Class::Uniform(Scope::Warp));
    }

    #[test]
    fn if_then_join_and_no_join_beyond_exit() {
        // bb0 -> bb1 | bb2(exit); bb1 -> bb3; bb3 exit. No join at all.
        let defs = vec![
            (0, ToyDef::Src(Abs::DIVERGENT)),
            (1, ToyDef::Src(Abs::constant(1))),
            (3, ToyDef::Meet(vec![1])),
        ];
        let mut t = Toy::new(defs, vec![vec![1, 2], vec![3], vec![], vec![]]);
        t.branch[0] = Branch::On(0);
        let s = solve(&t);
        assert_eq!(s.values[2].class(), Class::Constant(1));
    }

    #[test]
    fn loop_with_divergent_exit() {
        // bb0 -> bb1 (header) -> bb2 (latch, divergent exit) -> bb1 | bb3 (exit).
        let defs = vec![
            (2, ToyDef::Src(Abs::DIVERGENT)),             // 0: exit condition
            (1, ToyDef::Src(Abs::uniform(Scope::Block))), // 1: counter in the loop
            (3, ToyDef::Meet(vec![1])),                   // 2: used after the loop
        ];
        let mut t = Toy::new(defs, vec![vec![1], vec![2], vec![1, 3], vec![]]);
        t.branch[2] = Branch::On(0);
        t.cycles = Cycles {
            cycles: vec![CycleData {
                header: 1,
                parent: None,
                depth: 1,
                reducible: true,
                exits: vec![3],
            }],
            innermost: vec![None, Some(0), Some(0), None],
        };
        let s = solve(&t);
        // The value defined in the loop is tainted (temporal divergence), in this toy front end.
        assert_eq!(s.values[1].class(), Class::Divergent);
        assert_eq!(s.values[2].class(), Class::Divergent);
    }

    #[test]
    fn irreducible_fallback_taints_everything() {
        let defs = vec![
            (0, ToyDef::Src(Abs::DIVERGENT)),
            (1, ToyDef::Src(Abs::constant(1))),
        ];
        let mut t = Toy::new(defs, vec![vec![1, 2], vec![2], vec![1]]);
        t.branch[0] = Branch::On(0);
        t.cycles = Cycles {
            cycles: vec![CycleData {
                header: 1,
                parent: None,
                depth: 1,
                reducible: false,
                exits: vec![],
            }],
            innermost: vec![None, Some(0), Some(0)],
        };
        let s = solve(&t);
        assert!(s.irreducible_fallback);
        assert_eq!(s.values[1].class(), Class::Divergent);
    }
}
