//! Natural loops of a [`Cfg`] (the analogue of Cranelift's `loop_analysis.rs`).
//!
//! A *back edge* is an edge `b → h` whose target dominates its source; `h` is a loop header. The
//! natural loop of `h` is `h` plus every block that reaches one of its back-edge sources (*latches*)
//! without passing `h`; back edges to the same header form one loop (a loop with two `continue`s
//! has two latches). Natural loops with different headers are disjoint or nested, which gives the
//! loop forest: the parent of a loop is the innermost other loop holding its header, and the depth
//! of a block is the number of loops holding it (0 outside loops). Only reachable blocks take part.
//!
//! Irreducible control flow — a cycle entered at more than one block — has a *retreating* edge (an
//! edge to an earlier block in reverse post-order) whose target does not dominate its source. Such
//! a cycle is not a natural loop, so its blocks do not count towards any loop or depth; instead
//! [`LoopInfo::is_reducible`] is false and [`LoopInfo::irreducible_edges`] lists those edges, so
//! that clients (spill cost weights, the emulator) can tell "no loop" from "not understood".

use super::cfg::{Block, Cfg};
use super::dominators::DomTree;

crate::ptx::ir::entity!(
    /// A natural loop of a [`LoopInfo`]; prints as `loop2`. Loops are numbered by their header's
    /// position in reverse post-order, so an outer loop has a smaller number than the loops inside it.
    Loop,
    "loop"
);

#[derive(Clone, Debug)]
struct LoopData {
    header: Block,
    latches: Vec<Block>,
    /// The blocks of the loop, nested loops included, in increasing order.
    blocks: Vec<Block>,
    parent: Option<Loop>,
    depth: u32,
}

/// The loop forest of a function body.
#[derive(Clone, Debug, Default)]
pub struct LoopInfo {
    loops: Vec<LoopData>,
    /// Innermost loop holding each block.
    innermost: Vec<Option<Loop>>,
    irreducible: Vec<(Block, Block)>,
}

impl LoopInfo {
    /// Finds the natural loops of `cfg`, whose dominator tree is `domtree`.
    pub fn compute(cfg: &Cfg, domtree: &DomTree) -> LoopInfo {
        let mut info = LoopInfo {
            innermost: vec![None; cfg.num_blocks()],
            ..LoopInfo::default()
        };
        let mut in_loop = vec![false; cfg.num_blocks()];
        for &h in cfg.rpo() {
            let rh = cfg.rpo_index(h);
            let mut latches = Vec::new();
            for &p in cfg.preds(h) {
                let rp = cfg.rpo_index(p);
                if rp.is_none() || rp < rh {
                    continue; // unreachable, or a forward edge
                }
                if domtree.dominates(h, p) {
                    latches.push(p);
                } else {
                    info.irreducible.push((p, h));
                }
            }
            if latches.is_empty() {
                continue;
            }
            // Walk backwards from the latches, stopping at the header.
            let mut blocks = vec![h];
            in_loop[h.index()] = true;
            let mut stack: Vec<Block> = Vec::new();
            for &l in &latches {
                if !in_loop[l.index()] {
                    in_loop[l.index()] = true;
                    blocks.push(l);
                    stack.push(l);
                }
            }
            while let Some(b) = stack.pop() {
                for &p in cfg.preds(b) {
                    if cfg.is_reachable(p) && !in_loop[p.index()] {
                        in_loop[p.index()] = true;
                        blocks.push(p);
                        stack.push(p);
                    }
                }
            }
            for &b in &blocks {
                in_loop[b.index()] = false;
            }
            blocks.sort_unstable();
            let id = Loop::new(info.loops.len());
            // Headers come in reverse post-order, so every enclosing loop is already recorded and
            // the innermost one holding `h` so far is the parent.
            let parent = info.innermost[h.index()];
            let depth = parent.map_or(1, |p| info.loops[p.index()].depth + 1);
            for &b in &blocks {
                info.innermost[b.index()] = Some(id);
            }
            info.loops.push(LoopData {
                header: h,
                latches,
                blocks,
                parent,
                depth,
            });
        }
        info.irreducible.sort_unstable();
        info
    }

    /// The number of loops.
    pub fn num_loops(&self) -> usize {
        self.loops.len()
    }

    /// All loops, outer loops before the loops they contain.
    pub fn loops(&self) -> impl DoubleEndedIterator<Item = Loop> + ExactSizeIterator {
        (0..self.loops.len()).map(Loop::new)
    }

    /// The header of `l`.
    pub fn header(&self, l: Loop) -> Block {
        self.loops[l.index()].header
    }

    /// The sources of the back edges of `l`.
    pub fn latches(&self, l: Loop) -> &[Block] {
        &self.loops[l.index()].latches
    }

    /// The blocks of `l` (nested loops included), in increasing order.
    pub fn blocks(&self, l: Loop) -> &[Block] {
        &self.loops[l.index()].blocks
    }

    /// True when `b` is in `l` (or in a loop nested in it).
    pub fn contains(&self, l: Loop, b: Block) -> bool {
        self.loops[l.index()].blocks.binary_search(&b).is_ok()
    }

    /// The innermost loop strictly containing `l`.
    pub fn parent(&self, l: Loop) -> Option<Loop> {
        self.loops[l.index()].parent
    }

    /// The nesting depth of `l`: 1 for an outermost loop.
    pub fn depth(&self, l: Loop) -> u32 {
        self.loops[l.index()].depth
    }

    /// The innermost loop holding `b`.
    pub fn innermost(&self, b: Block) -> Option<Loop> {
        self.innermost.get(b.index()).copied().flatten()
    }

    /// The loop depth of `b`: 0 outside every loop.
    pub fn block_depth(&self, b: Block) -> u32 {
        self.innermost(b).map_or(0, |l| self.depth(l))
    }

    /// True when `b` is the header of a loop.
    pub fn is_header(&self, b: Block) -> bool {
        self.innermost(b).is_some_and(|l| self.header(l) == b)
    }

    /// The deepest loop nesting (0 without loops).
    pub fn max_depth(&self) -> u32 {
        self.loops.iter().map(|l| l.depth).max().unwrap_or(0)
    }

    /// False when the CFG has irreducible control flow (cycles with several entries).
    pub fn is_reducible(&self) -> bool {
        self.irreducible.is_empty()
    }

    /// The retreating edges `(from, to)` whose target does not dominate their source.
    pub fn irreducible_edges(&self) -> &[(Block, Block)] {
        &self.irreducible
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::testutil::*;

    fn analyse(text: &str) -> (Cfg, LoopInfo) {
        let cfg = Cfg::compute(&ptx(text));
        let dt = DomTree::compute(&cfg);
        let li = LoopInfo::compute(&cfg, &dt);
        (cfg, li)
    }

    fn b(i: u32) -> Block {
        Block(i)
    }

    #[test]
    fn diamond_has_no_loops() {
        let (_, li) = analyse(
            "
            .reg .b32 %r1;
            .reg .pred %p1;
            @%p1 bra B;
            add.s32 %r1, %r1, 1;
        B:
            ret;
        ",
        );
        assert_eq!(li.num_loops(), 0);
        assert_eq!(li.max_depth(), 0);
        assert!(li.is_reducible());
        assert_eq!(li.block_depth(b(0)), 0);
    }

    #[test]
    fn nested_loops() {
        // bb0 entry; bb1 outer header; bb2 inner header and latch; bb3 outer latch; bb4 exit.
        let (cfg, li) = analyse(
            "
            .reg .b32 %r<3>;
            .reg .pred %p<3>;
            mov.b32 %r1, 0;
        OUTER:
            mov.b32 %r2, 0;
        INNER:
            add.s32 %r2, %r2, 1;
            setp.lt.s32 %p1, %r2, 10;
            @%p1 bra INNER;
            add.s32 %r1, %r1, 1;
            setp.lt.s32 %p2, %r1, 10;
            @%p2 bra OUTER;
            ret;
        ",
        );
        assert_eq!(cfg.num_blocks(), 5);
        assert_eq!(li.num_loops(), 2);
        let (outer, inner) = (Loop(0), Loop(1));
        assert_eq!(li.header(outer), b(1));
        assert_eq!(li.header(inner), b(2));
        assert_eq!(li.blocks(outer), &[b(1), b(2), b(3)]);
        assert_eq!(li.blocks(inner), &[b(2)]);
        assert_eq!(li.latches(inner), &[b(2)]);
        assert_eq!(li.latches(outer), &[b(3)]);
        assert_eq!(li.parent(inner), Some(outer));
        assert_eq!(li.parent(outer), None);
        assert_eq!(li.depth(inner), 2);
        let depths: Vec<u32> = cfg.blocks().map(|x| li.block_depth(x)).collect();
        assert_eq!(depths, [0, 1, 2, 1, 0]);
        assert_eq!(li.innermost(b(3)), Some(outer));
        assert!(li.contains(outer, b(2)));
        assert!(!li.contains(inner, b(3)));
        assert!(li.is_header(b(2)));
        assert!(!li.is_header(b(3)));
        assert_eq!(li.max_depth(), 2);
        assert_eq!(Loop(1).to_string(), "loop1");
    }

    #[test]
    fn loop_with_two_back_edges() {
        // Two `continue`s: bb0 and bb1 both branch back to HEAD.
        let (_, li) = analyse(
            "
            .reg .b32 %r<3>;
            .reg .pred %p<3>;
        HEAD:
            add.s32 %r1, %r1, 1;
            @%p1 bra HEAD;
            add.s32 %r2, %r2, 1;
            @%p2 bra HEAD;
            ret;
        ",
        );
        assert_eq!(li.num_loops(), 1);
        let l = Loop(0);
        assert_eq!(li.header(l), b(0));
        assert_eq!(li.latches(l), &[b(0), b(1)]);
        assert_eq!(li.blocks(l), &[b(0), b(1)]);
        assert_eq!(li.block_depth(b(2)), 0);
    }

    #[test]
    fn infinite_loop() {
        let (_, li) = analyse(
            "
            .reg .b32 %r1;
            mov.b32 %r1, 0;
        SPIN:
            add.s32 %r1, %r1, 1;
            bra SPIN;
        ",
        );
        assert_eq!(li.num_loops(), 1);
        assert_eq!(li.header(Loop(0)), b(1));
        assert_eq!(li.block_depth(b(1)), 1);
    }

    #[test]
    fn irreducible_cfg_is_flagged() {
        // The cycle A <-> B has two entries: the fall-through into A and the branch to B.
        let (cfg, li) = analyse(
            "
            .reg .b32 %r<3>;
            .reg .pred %p<3>;
            @%p1 bra B;
        A:
            add.s32 %r1, %r1, 1;
            @%p2 bra B;
            ret;
        B:
            add.s32 %r2, %r2, 1;
            bra A;
        ",
        );
        assert_eq!(cfg.num_blocks(), 4);
        assert!(!li.is_reducible());
        assert_eq!(li.irreducible_edges().len(), 1);
        assert_eq!(li.num_loops(), 0, "the cycle is not a natural loop");
        assert_eq!(li.block_depth(b(1)), 0);
    }

    #[test]
    fn loop_inside_irreducible_region_is_still_found() {
        let (_, li) = analyse(
            "
            .reg .pred %p<4>;
            @%p1 bra B;
        A:
            @%p2 bra A;
            @%p3 bra B;
            ret;
        B:
            bra A;
        ",
        );
        assert!(!li.is_reducible());
        assert_eq!(li.num_loops(), 1, "the self-loop on A is natural");
    }

    #[test]
    fn unreachable_cycle_is_no_loop() {
        let (_, li) = analyse(
            "
            ret;
        DEAD:
            bra DEAD;
        ",
        );
        assert_eq!(li.num_loops(), 0);
        assert!(li.is_reducible());
    }

    #[test]
    fn random_cfgs_nest_properly() {
        let mut rng = Rng::new(11);
        for _ in 0..500 {
            let (body, _) = random_body(&mut rng);
            let cfg = Cfg::compute(&body);
            let dt = DomTree::compute(&cfg);
            let li = LoopInfo::compute(&cfg, &dt);
            for l in li.loops() {
                let h = li.header(l);
                for &x in li.blocks(l) {
                    assert!(dt.dominates(h, x), "a header dominates its loop");
                }
                if let Some(p) = li.parent(l) {
                    assert!(li.blocks(l).iter().all(|&x| li.contains(p, x)));
                    assert!(p < l);
                }
                for m in li.loops().filter(|&m| m != l) {
                    let overlap = li.blocks(l).iter().any(|&x| li.contains(m, x));
                    let nested = li.blocks(l).iter().all(|&x| li.contains(m, x))
                        || li.blocks(m).iter().all(|&x| li.contains(l, x));
                    assert!(!overlap || nested, "loops are disjoint or nested");
                }
            }
            for blk in cfg.blocks() {
                let count = li.loops().filter(|&l| li.contains(l, blk)).count() as u32;
                assert_eq!(li.block_depth(blk), count);
            }
        }
    }
}
