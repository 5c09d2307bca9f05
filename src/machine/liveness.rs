//! Register liveness: the classic backward dataflow problem over the blocks of a [`Cfg`], solved
//! with a worklist over dense [`BitSet`]s indexed by [`Reg`](crate::ptx::Reg) (Aho, Lam, Sethi, Ullman, *Compilers*,
//! §9.2.5; regalloc2 computes its live-in sets the same way).
//!
//! `live_out(b) = ∪ live_in(s)` over the successors `s` of `b`, and
//! `live_in(b) = use(b) ∪ (live_out(b) − kill(b))`, where `use(b)` are the registers read before
//! any killing write in `b` and `kill(b)` those written by a killing def.
//!
//! Which operands an instruction reads and writes comes from [`roles`](crate::ptx::roles), through
//! [`super::slots`]. A write *kills* (ends the live range above it) only when it is a plain
//! [`Role::Def`](crate::ptx::roles::Role::Def) of the whole register in an instruction for which [`def_kills`](crate::ptx::roles::def_kills) holds: a
//! guarded def (`@%p mov %r1, 0`) keeps the old value when the guard is false, a [`Role::UseDef`](crate::ptx::roles::Role::UseDef)
//! operand reads the old value, and a write to one component of a vector register keeps the others,
//! so none of them kills. Within one instruction sources are read before destinations are written
//! (`add %r1, %r1, 1` keeps `%r1` live above it).
//!
//! Only block boundaries are stored; the live sets between instructions are recomputed on demand by
//! one backward walk over the block ([`Liveness::for_each_point`]).

use super::bitset::BitSet;
use super::cfg::{Block, Cfg};
use super::slots::slots;
use crate::ptx::ir::{Body, Inst, InstData};

/// Live-in and live-out register sets of every block.
#[derive(Clone, Debug, Default)]
pub struct Liveness {
    live_in: Vec<BitSet>,
    live_out: Vec<BitSet>,
    num_regs: usize,
}

/// Solves the backward union problem `in(n) = gen(n) ∪ (out(n) − kill(n))`, `out(n) = ∪ in(s)`
/// over the successors `s` of `n`, on any graph of nodes `0..gen.len()` given by successor and
/// predecessor lists: round-robin passes over `order` (every node once; post-order converges
/// fastest), each revisiting only nodes whose successors changed. Returns `(in, out)`. Liveness of
/// PTX blocks ([`Liveness::compute`]) and of SASS instructions (`crate::sass::liveness`) both use
/// it, and, on the reversed graph, what is written on some path from the entry.
pub fn solve_backward(
    order: &[usize],
    succs: &[Vec<usize>],
    preds: &[Vec<usize>],
    gen: Vec<BitSet>,
    kill: &[BitSet],
) -> (Vec<BitSet>, Vec<BitSet>) {
    let n = gen.len();
    let width = gen.first().map_or(0, BitSet::capacity);
    let mut live_in = gen;
    let mut live_out = vec![BitSet::new(width); n];
    let mut dirty = vec![true; n];
    let mut scratch = BitSet::new(width);
    let mut changed = true;
    while changed {
        changed = false;
        for &b in order {
            if !std::mem::replace(&mut dirty[b], false) {
                continue;
            }
            let out = &mut live_out[b];
            for &s in &succs[b] {
                out.union_with(&live_in[s]);
            }
            scratch.copy_from(out);
            scratch.subtract(&kill[b]);
            if live_in[b].union_with(&scratch) {
                for &p in &preds[b] {
                    dirty[p] = true;
                    changed = true;
                }
            }
        }
    }
    (live_in, live_out)
}

/// Applies `inst` backwards: turns the set live after it into the set live before it.
pub fn step_backward(inst: &InstData, live: &mut BitSet) {
    let s = slots(inst).slots;
    for slot in s.iter().filter(|s| s.kills) {
        live.remove(slot.reg.index());
    }
    for slot in s.iter().filter(|s| s.reads()) {
        live.insert(slot.reg.index());
    }
}

impl Liveness {
    /// Computes liveness for `body`, whose CFG is `cfg`. Unreachable blocks are solved too.
    pub fn compute(body: &Body, cfg: &Cfg) -> Liveness {
        let n = cfg.num_blocks();
        let num_regs = body.regs.len();
        let mut gen = vec![BitSet::new(num_regs); n];
        let mut kill = vec![BitSet::new(num_regs); n];
        for b in cfg.blocks() {
            let (g, k) = (&mut gen[b.index()], &mut kill[b.index()]);
            for &i in cfg.insts(b).iter().rev() {
                let s = slots(body.inst(i)).slots;
                for slot in s.iter().filter(|s| s.kills) {
                    g.remove(slot.reg.index());
                    k.insert(slot.reg.index());
                }
                for slot in s.iter().filter(|s| s.reads()) {
                    g.insert(slot.reg.index());
                }
            }
        }

        // Round-robin passes in post-order (unreachable blocks first), visiting only blocks whose
        // successors changed: about loop-connectedness + 2 passes.
        let order: Vec<usize> = cfg
            .blocks()
            .filter(|&b| !cfg.is_reachable(b))
            .chain(cfg.rpo().iter().rev().copied())
            .map(Block::index)
            .collect();
        let edges = |f: fn(&Cfg, Block) -> &[Block]| -> Vec<Vec<usize>> {
            cfg.blocks()
                .map(|b| f(cfg, b).iter().map(|s| s.index()).collect())
                .collect()
        };
        let (live_in, live_out) =
            solve_backward(&order, &edges(Cfg::succs), &edges(Cfg::preds), gen, &kill);
        Liveness {
            live_in,
            live_out,
            num_regs,
        }
    }

    /// The registers live on entry to `b`.
    pub fn live_in(&self, b: Block) -> &BitSet {
        &self.live_in[b.index()]
    }

    /// The registers live on exit from `b`.
    pub fn live_out(&self, b: Block) -> &BitSet {
        &self.live_out[b.index()]
    }

    /// The capacity of the sets (the number of registers of the body).
    pub fn num_regs(&self) -> usize {
        self.num_regs
    }

    /// Walks `b` backwards, calling `f(inst, live_before, live_after)` for each instruction, last
    /// instruction first.
    pub fn for_each_point(
        &self,
        body: &Body,
        cfg: &Cfg,
        b: Block,
        mut f: impl FnMut(Inst, &BitSet, &BitSet),
    ) {
        let mut after = self.live_out(b).clone();
        let mut before = BitSet::new(self.num_regs);
        for &i in cfg.insts(b).iter().rev() {
            before.copy_from(&after);
            step_backward(body.inst(i), &mut before);
            f(i, &before, &after);
            std::mem::swap(&mut before, &mut after);
        }
    }

    /// The live sets at every point of `b`: element `k` is the set live before the `k`-th
    /// instruction, and the last element (index `insts(b).len()`) is the live-out set.
    pub fn block_points(&self, body: &Body, cfg: &Cfg, b: Block) -> Vec<BitSet> {
        let mut points = vec![self.live_out(b).clone()];
        self.for_each_point(body, cfg, b, |_, before, _| points.push(before.clone()));
        points.reverse();
        points
    }

    /// The registers live just before `inst`; `None` when `inst` is not in the layout.
    pub fn live_before(&self, body: &Body, cfg: &Cfg, inst: Inst) -> Option<BitSet> {
        let b = cfg.block_of(inst)?;
        let k = cfg.insts(b).iter().position(|&i| i == inst)?;
        self.block_points(body, cfg, b).into_iter().nth(k)
    }

    /// The registers live just after `inst`; `None` when `inst` is not in the layout.
    pub fn live_after(&self, body: &Body, cfg: &Cfg, inst: Inst) -> Option<BitSet> {
        let b = cfg.block_of(inst)?;
        let k = cfg.insts(b).iter().position(|&i| i == inst)?;
        self.block_points(body, cfg, b).into_iter().nth(k + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::testutil::*;
    use crate::ptx::ir::Reg;

    fn names(body: &Body, s: &BitSet) -> Vec<String> {
        s.iter()
            .map(|r| body.reg_name(Reg::new(r)).to_string())
            .collect()
    }

    #[test]
    fn straight_line() {
        let body = ptx("
            .reg .b32 %r<4>;
            .reg .b64 %rd1;
            mov.b32 %r1, 1;
            add.s32 %r2, %r1, %r3;
            st.global.u32 [%rd1], %r2;
            ret;
        ");
        let cfg = Cfg::compute(&body);
        let lv = Liveness::compute(&body, &cfg);
        let entry = cfg.entry();
        assert_eq!(
            names(&body, lv.live_in(entry)),
            ["%r3", "%rd1"],
            "read before any write"
        );
        let pts = lv.block_points(&body, &cfg, entry);
        assert_eq!(pts.len(), 5);
        assert_eq!(names(&body, &pts[1]), ["%r1", "%r3", "%rd1"]);
        assert_eq!(names(&body, &pts[2]), ["%r2", "%rd1"]);
        assert!(pts[3].is_empty());
        assert_eq!(lv.live_after(&body, &cfg, Inst(1)), Some(pts[2].clone()));
        assert_eq!(lv.live_before(&body, &cfg, Inst(1)), Some(pts[1].clone()));
        assert_eq!(lv.num_regs(), body.regs.len());
    }

    #[test]
    fn loop_carried_value() {
        // %r1 is carried around the loop; %r2 lives within one iteration.
        let body = ptx("
            .reg .b32 %r<3>;
            .reg .b64 %rd1;
            .reg .pred %p1;
            mov.b32 %r1, 0;
        HEAD:
            add.s32 %r2, %r1, 1;
            mov.b32 %r1, %r2;
            setp.lt.s32 %p1, %r1, 10;
            @%p1 bra HEAD;
            st.global.u32 [%rd1], %r1;
            ret;
        ");
        let cfg = Cfg::compute(&body);
        let lv = Liveness::compute(&body, &cfg);
        let head = Block(1);
        assert_eq!(names(&body, lv.live_in(head)), ["%r1", "%rd1"]);
        assert_eq!(names(&body, lv.live_out(head)), ["%r1", "%rd1"]);
        assert_eq!(names(&body, lv.live_out(Block(0))), ["%r1", "%rd1"]);
        assert_eq!(names(&body, lv.live_in(Block(0))), ["%rd1"]);
        let before_bra = lv.live_before(&body, &cfg, Inst(4)).unwrap();
        assert_eq!(names(&body, &before_bra), ["%r1", "%rd1", "%p1"]);
        let inside = lv.live_after(&body, &cfg, Inst(1)).unwrap();
        assert_eq!(
            names(&body, &inside),
            ["%r2", "%rd1"],
            "%r1 is dead until redefined"
        );
    }

    #[test]
    fn guarded_def_does_not_kill() {
        let body = ptx("
            .reg .b32 %r1;
            .reg .b64 %rd1;
            .reg .pred %p1;
            mov.b32 %r1, 1;
            @%p1 mov.b32 %r1, 2;
            st.global.u32 [%rd1], %r1;
            ret;
        ");
        let cfg = Cfg::compute(&body);
        let lv = Liveness::compute(&body, &cfg);
        let pts = lv.block_points(&body, &cfg, cfg.entry());
        assert_eq!(
            names(&body, &pts[1]),
            ["%r1", "%rd1", "%p1"],
            "the first value survives a false guard"
        );
        assert_eq!(names(&body, lv.live_in(cfg.entry())), ["%rd1", "%p1"]);
    }

    #[test]
    fn accumulator_reads_its_destination() {
        // `wmma`-style accumulators are UseDef; an unknown opcode is UseDef on every operand.
        let body = ptx("
            .reg .b32 %r<3>;
            frobnicate.b32 %r1, %r2;
            ret;
        ");
        let cfg = Cfg::compute(&body);
        let lv = Liveness::compute(&body, &cfg);
        assert_eq!(names(&body, lv.live_in(cfg.entry())), ["%r1", "%r2"]);
    }

    #[test]
    fn diamond_merges_both_arms() {
        let body = ptx("
            .reg .b32 %r<3>;
            .reg .b64 %rd1;
            .reg .pred %p1;
            @%p1 bra ELSE;
            mov.b32 %r1, 1;
            bra JOIN;
        ELSE:
            mov.b32 %r2, 2;
        JOIN:
            st.global.v2.u32 [%rd1], {%r1, %r2};
            ret;
        ");
        let cfg = Cfg::compute(&body);
        let lv = Liveness::compute(&body, &cfg);
        assert_eq!(names(&body, lv.live_in(Block(3))), ["%r1", "%r2", "%rd1"]);
        assert_eq!(names(&body, lv.live_in(Block(1))), ["%r2", "%rd1"]);
        assert_eq!(names(&body, lv.live_in(Block(2))), ["%r1", "%rd1"]);
        assert_eq!(
            names(&body, lv.live_in(Block(0))),
            ["%r1", "%r2", "%rd1", "%p1"]
        );
    }

    #[test]
    fn unreachable_block_is_solved() {
        let body = ptx("
            .reg .b32 %r9;
            .reg .b64 %rd1;
            ret;
            st.global.u32 [%rd1], %r9;
        ");
        let cfg = Cfg::compute(&body);
        let lv = Liveness::compute(&body, &cfg);
        assert_eq!(names(&body, lv.live_in(Block(1))), ["%r9", "%rd1"]);
        assert!(lv.live_in(Block(0)).is_empty());
    }

    #[test]
    fn random_programs_match_path_search() {
        let mut rng = Rng::new(3);
        for _ in 0..300 {
            let (body, _) = random_program(&mut rng, true);
            let cfg = Cfg::compute(&body);
            let lv = Liveness::compute(&body, &cfg);
            for b in cfg.blocks() {
                let pts = lv.block_points(&body, &cfg, b);
                for (k, &q) in cfg.insts(b).iter().enumerate() {
                    for r in 0..body.regs.len() {
                        let want = naive::live_before(&body, &cfg, q, Reg::new(r));
                        assert_eq!(
                            pts[k].contains(r),
                            want,
                            "{} before {q} in {b}",
                            body.reg_name(Reg::new(r))
                        );
                    }
                }
            }
        }
    }
}
