//! Dominator and post-dominator trees of a [`Cfg`], and dominance frontiers.
//!
//! Both trees use the iterative algorithm of Cooper, Harvey and Kennedy, "A Simple, Fast Dominance
//! Algorithm" (2001): immediate dominators are refined over the blocks in reverse post-order until
//! nothing changes, intersecting predecessors' dominator chains by their post-order numbers. The
//! tree is then numbered by a depth-first walk so that `dominates(a, b)` is an O(1) interval test.
//!
//! - [`DomTree`]: on the CFG from the entry block. Blocks the entry cannot reach have no immediate
//!   dominator. Queries follow the textbook definition exactly — *a dominates b iff every path from
//!   the entry to b passes a* — so every block dominates an unreachable block, and an unreachable
//!   block dominates only itself and other unreachable blocks.
//! - [`PostDomTree`]: on the reverse CFG, rooted at a virtual exit node whose predecessors are the
//!   exit blocks ([`Cfg::exits`]). Blocks that cannot reach an exit (infinite loops, or code stuck
//!   before a `trap`-free dead end) would have no post-dominator; as in LLVM, each such region gets
//!   an extra root: the not-yet-covered block latest in reverse post-order (usually a loop's latch)
//!   is joined to the virtual exit, and the search repeats until every block is covered. Those
//!   blocks are listed by [`PostDomTree::extra_roots`]. The immediate post-dominator of a block is
//!   where a divergent branch reconverges (the emulator's reconvergence point).
//! - [`DomFrontiers`]: the dominance frontier of every block, by the same paper's
//!   "runner" algorithm over join points.

use super::cfg::{Block, Cfg};

const NONE: u32 = u32::MAX;

/// A tree over nodes `0..n` given by parent links, numbered for O(1) ancestor tests.
#[derive(Clone, Debug, Default)]
struct Tree {
    /// Parent of each node; the root is its own parent; `NONE` for nodes outside the tree.
    parent: Vec<u32>,
    children: Vec<Vec<Block>>,
    /// Pre-order and post-order numbers of the tree walk (`NONE` outside the tree).
    pre: Vec<u32>,
    post: Vec<u32>,
}

impl Tree {
    /// Computes immediate dominators of the graph `succs`/`preds` over `0..n` from `root` (Cooper,
    /// Harvey, Kennedy), and numbers the resulting tree.
    fn compute<S, SI, P, PI>(n: usize, root: usize, succs: S, preds: P) -> Tree
    where
        S: Fn(usize) -> SI,
        SI: Iterator<Item = usize>,
        P: Fn(usize) -> PI,
        PI: Iterator<Item = usize>,
    {
        // Post-order of the nodes reachable from the root (iterative DFS).
        let mut po_num = vec![NONE; n];
        let mut post_order = Vec::with_capacity(n);
        let mut visited = vec![false; n];
        let mut stack: Vec<(usize, Vec<usize>)> = vec![(root, succs(root).collect())];
        visited[root] = true;
        while let Some((node, pending)) = stack.last_mut() {
            match pending.pop() {
                Some(s) => {
                    if !visited[s] {
                        visited[s] = true;
                        let next: Vec<usize> = succs(s).collect();
                        stack.push((s, next));
                    }
                }
                None => {
                    po_num[*node] = post_order.len() as u32;
                    post_order.push(*node);
                    stack.pop();
                }
            }
        }

        let mut idom = vec![NONE; n];
        idom[root] = root as u32;
        let intersect = |idom: &[u32], mut a: usize, mut b: usize| {
            while a != b {
                while po_num[a] < po_num[b] {
                    a = idom[a] as usize;
                }
                while po_num[b] < po_num[a] {
                    b = idom[b] as usize;
                }
            }
            a
        };
        let mut changed = true;
        while changed {
            changed = false;
            for &node in post_order.iter().rev() {
                if node == root {
                    continue;
                }
                let mut new_idom = NONE as usize;
                for p in preds(node) {
                    if idom[p] == NONE {
                        continue;
                    }
                    new_idom = if new_idom == NONE as usize {
                        p
                    } else {
                        intersect(&idom, p, new_idom)
                    };
                }
                if new_idom != NONE as usize && idom[node] != new_idom as u32 {
                    idom[node] = new_idom as u32;
                    changed = true;
                }
            }
        }

        let mut children = vec![Vec::new(); n];
        // Children in reverse post-order of the graph, so the tree walk is deterministic.
        for &node in post_order.iter().rev() {
            if node != root && idom[node] != NONE {
                children[idom[node] as usize].push(Block::new(node));
            }
        }
        let (mut pre, mut post) = (vec![NONE; n], vec![NONE; n]);
        let (mut pre_n, mut post_n) = (0u32, 0u32);
        let mut walk: Vec<(usize, usize)> = vec![(root, 0)];
        pre[root] = 0;
        pre_n += 1;
        while let Some((node, next)) = walk.last_mut() {
            if let Some(&c) = children[*node].get(*next) {
                *next += 1;
                pre[c.index()] = pre_n;
                pre_n += 1;
                walk.push((c.index(), 0));
            } else {
                post[*node] = post_n;
                post_n += 1;
                walk.pop();
            }
        }
        Tree {
            parent: idom,
            children,
            pre,
            post,
        }
    }

    fn in_tree(&self, a: usize) -> bool {
        self.pre.get(a).is_some_and(|&p| p != NONE)
    }

    /// True when `a` is an ancestor of `b` or equal to it; false when either is outside the tree.
    fn ancestor(&self, a: usize, b: usize) -> bool {
        self.in_tree(a)
            && self.in_tree(b)
            && self.pre[a] <= self.pre[b]
            && self.post[b] <= self.post[a]
    }

    fn parent(&self, a: usize) -> Option<usize> {
        match self.parent.get(a) {
            Some(&p) if p != NONE && p as usize != a => Some(p as usize),
            _ => None,
        }
    }
}

/// The dominator tree of a [`Cfg`].
#[derive(Clone, Debug, Default)]
pub struct DomTree {
    tree: Tree,
}

impl DomTree {
    /// Computes the dominator tree of `cfg`.
    pub fn compute(cfg: &Cfg) -> DomTree {
        let tree = Tree::compute(
            cfg.num_blocks(),
            cfg.entry().index(),
            |b| cfg.succs(Block::new(b)).iter().map(|s| s.index()),
            |b| cfg.preds(Block::new(b)).iter().map(|p| p.index()),
        );
        DomTree { tree }
    }

    /// The immediate dominator of `b`; `None` for the entry and for unreachable blocks.
    pub fn idom(&self, b: Block) -> Option<Block> {
        self.tree.parent(b.index()).map(Block::new)
    }

    /// The blocks `b` immediately dominates, in reverse post-order.
    pub fn children(&self, b: Block) -> &[Block] {
        self.tree.children.get(b.index()).map_or(&[], Vec::as_slice)
    }

    /// True when every path from the entry to `b` passes `a` (so `a` dominates itself, and every
    /// block dominates an unreachable block).
    pub fn dominates(&self, a: Block, b: Block) -> bool {
        a == b || !self.tree.in_tree(b.index()) || self.tree.ancestor(a.index(), b.index())
    }

    /// `dominates(a, b) && a != b`.
    pub fn strictly_dominates(&self, a: Block, b: Block) -> bool {
        a != b && self.dominates(a, b)
    }

    /// True when `b` is in the tree (reachable from the entry).
    pub fn is_reachable(&self, b: Block) -> bool {
        self.tree.in_tree(b.index())
    }

    /// The dominance frontier of every block.
    pub fn frontiers(&self, cfg: &Cfg) -> DomFrontiers {
        let mut df: Vec<Vec<Block>> = vec![Vec::new(); cfg.num_blocks()];
        for b in cfg.blocks().filter(|&b| self.is_reachable(b)) {
            let preds: Vec<Block> = cfg
                .preds(b)
                .iter()
                .copied()
                .filter(|&p| self.is_reachable(p))
                .collect();
            // With one predecessor `p`, `idom(b) == p` and the runner stops at once, except at the
            // entry, whose implicit edge from outside makes it a join point.
            let stop = self.idom(b);
            for p in preds {
                let mut runner = Some(p);
                while let Some(r) = runner {
                    if Some(r) == stop {
                        break;
                    }
                    if !df[r.index()].contains(&b) {
                        df[r.index()].push(b);
                    }
                    runner = self.idom(r);
                }
            }
        }
        df.iter_mut().for_each(|v| v.sort_unstable());
        DomFrontiers { df }
    }
}

/// The dominance frontier of each block: the blocks where its dominance ends (the join points
/// where SSA construction would place φ-nodes).
#[derive(Clone, Debug, Default)]
pub struct DomFrontiers {
    df: Vec<Vec<Block>>,
}

impl DomFrontiers {
    /// The dominance frontier of `b`, in increasing block order.
    pub fn frontier(&self, b: Block) -> &[Block] {
        self.df.get(b.index()).map_or(&[], Vec::as_slice)
    }
}

/// The post-dominator tree of a [`Cfg`], rooted at a virtual exit node.
#[derive(Clone, Debug, Default)]
pub struct PostDomTree {
    tree: Tree,
    /// Index of the virtual exit node (= number of blocks).
    exit: usize,
    extra_roots: Vec<Block>,
    reaches_exit: Vec<bool>,
}

impl PostDomTree {
    /// Computes the post-dominator tree of `cfg`.
    pub fn compute(cfg: &Cfg) -> PostDomTree {
        let n = cfg.num_blocks();
        let mut is_root = vec![false; n];
        let mut roots: Vec<Block> = cfg.exits().to_vec();
        for &b in &roots {
            is_root[b.index()] = true;
        }
        // Which blocks reach the roots (backwards search over predecessors).
        let mut covered = vec![false; n];
        let cover = |from: Block, covered: &mut Vec<bool>| {
            let mut stack = vec![from];
            covered[from.index()] = true;
            while let Some(b) = stack.pop() {
                for &p in cfg.preds(b) {
                    if !covered[p.index()] {
                        covered[p.index()] = true;
                        stack.push(p);
                    }
                }
            }
        };
        for &r in &roots {
            if !covered[r.index()] {
                cover(r, &mut covered);
            }
        }
        let reaches_exit = covered.clone();
        // Extra roots for regions that never reach an exit: reachable blocks latest in reverse
        // post-order first, then unreachable blocks from the end of the layout.
        let candidates: Vec<Block> = cfg
            .rpo()
            .iter()
            .rev()
            .copied()
            .chain(cfg.blocks().rev().filter(|&b| !cfg.is_reachable(b)))
            .collect();
        let mut extra_roots = Vec::new();
        for b in candidates {
            if !covered[b.index()] {
                extra_roots.push(b);
                is_root[b.index()] = true;
                cover(b, &mut covered);
            }
        }
        roots.extend_from_slice(&extra_roots);

        let tree = Tree::compute(
            n + 1,
            n,
            |v| {
                let list = if v == n {
                    roots.as_slice()
                } else {
                    cfg.preds(Block::new(v))
                };
                list.iter().map(|b| b.index())
            },
            |v| {
                let (list, to_exit) = if v == n {
                    (&[][..], false)
                } else {
                    (cfg.succs(Block::new(v)), is_root[v])
                };
                list.iter().map(|b| b.index()).chain(to_exit.then_some(n))
            },
        );
        PostDomTree {
            tree,
            exit: n,
            extra_roots,
            reaches_exit,
        }
    }

    /// The immediate post-dominator of `b`: the first block every path from `b` to an exit passes.
    /// `None` when that is the virtual exit (for exit blocks, and for blocks whose paths reach
    /// different exits without a common block).
    pub fn ipdom(&self, b: Block) -> Option<Block> {
        self.tree
            .parent(b.index())
            .filter(|&p| p != self.exit)
            .map(Block::new)
    }

    /// True when every path from `b` to the (virtual) exit passes `a`; `a` post-dominates itself.
    pub fn post_dominates(&self, a: Block, b: Block) -> bool {
        a == b || self.tree.ancestor(a.index(), b.index())
    }

    /// The blocks whose immediate post-dominator is `b`.
    pub fn children(&self, b: Block) -> &[Block] {
        self.tree.children.get(b.index()).map_or(&[], Vec::as_slice)
    }

    /// The blocks whose immediate post-dominator is the virtual exit.
    pub fn roots(&self) -> &[Block] {
        self.tree.children.get(self.exit).map_or(&[], Vec::as_slice)
    }

    /// Blocks joined to the virtual exit because their region cannot reach a real exit.
    pub fn extra_roots(&self) -> &[Block] {
        &self.extra_roots
    }

    /// True when some path leads from `b` to an exit block (false inside infinite loops).
    pub fn reaches_exit(&self, b: Block) -> bool {
        self.reaches_exit.get(b.index()).copied().unwrap_or(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::testutil::*;

    fn b(i: u32) -> Block {
        Block(i)
    }

    #[test]
    fn diamond() {
        let body = ptx("
            .reg .b32 %r<3>;
            .reg .pred %p1;
            @%p1 bra ELSE;
            add.s32 %r2, %r1, 1;
            bra JOIN;
        ELSE:
            sub.s32 %r2, %r1, 1;
        JOIN:
            ret;
        ");
        let cfg = Cfg::compute(&body);
        let dt = DomTree::compute(&cfg);
        assert_eq!(dt.idom(b(0)), None);
        assert_eq!(dt.idom(b(1)), Some(b(0)));
        assert_eq!(dt.idom(b(2)), Some(b(0)));
        assert_eq!(dt.idom(b(3)), Some(b(0)));
        assert_eq!(dt.children(b(0)).len(), 3);
        assert!(dt.dominates(b(0), b(3)));
        assert!(!dt.dominates(b(1), b(3)));
        assert!(dt.dominates(b(3), b(3)));
        assert!(!dt.strictly_dominates(b(3), b(3)));
        let pdt = PostDomTree::compute(&cfg);
        assert_eq!(
            pdt.ipdom(b(0)),
            Some(b(3)),
            "the branch reconverges at the join"
        );
        assert_eq!(pdt.ipdom(b(1)), Some(b(3)));
        assert_eq!(pdt.ipdom(b(3)), None);
        assert!(pdt.post_dominates(b(3), b(0)));
        assert!(!pdt.post_dominates(b(1), b(0)));
        assert!(pdt.extra_roots().is_empty());
        assert_eq!(pdt.roots(), &[b(3)]);
        let df = dt.frontiers(&cfg);
        assert_eq!(df.frontier(b(1)), &[b(3)]);
        assert_eq!(df.frontier(b(2)), &[b(3)]);
        assert!(df.frontier(b(0)).is_empty());
    }

    #[test]
    fn loop_frontier_and_postdom() {
        // bb0 -> bb1 (header) -> bb2 (latch) -> bb1; bb1 -> bb3 (exit)
        let body = ptx("
            .reg .b32 %r1;
            .reg .pred %p1;
            mov.b32 %r1, 0;
        HEAD:
            @%p1 bra DONE;
            add.s32 %r1, %r1, 1;
            bra HEAD;
        DONE:
            ret;
        ");
        let cfg = Cfg::compute(&body);
        let dt = DomTree::compute(&cfg);
        assert_eq!(dt.idom(b(2)), Some(b(1)));
        assert_eq!(dt.idom(b(3)), Some(b(1)));
        let df = dt.frontiers(&cfg);
        assert_eq!(df.frontier(b(2)), &[b(1)]);
        assert_eq!(df.frontier(b(1)), &[b(1)]);
        let pdt = PostDomTree::compute(&cfg);
        assert_eq!(pdt.ipdom(b(0)), Some(b(1)));
        assert_eq!(pdt.ipdom(b(2)), Some(b(1)));
        assert_eq!(pdt.ipdom(b(1)), Some(b(3)));
    }

    #[test]
    fn guarded_ret_reconverges_at_the_exit() {
        let body = ptx("
            .reg .b32 %r1;
            .reg .pred %p1;
            @%p1 ret;
            add.s32 %r1, %r1, 1;
            ret;
        ");
        let cfg = Cfg::compute(&body);
        let pdt = PostDomTree::compute(&cfg);
        assert_eq!(
            pdt.ipdom(b(0)),
            None,
            "paths from bb0 meet only at the virtual exit"
        );
        assert!(!pdt.post_dominates(b(1), b(0)));
    }

    #[test]
    fn infinite_loop_gets_an_extra_root() {
        let body = ptx("
            .reg .b32 %r1;
            .reg .pred %p1;
            @%p1 bra SPIN;
            ret;
        SPIN:
            add.s32 %r1, %r1, 1;
            bra SPIN;
        ");
        let cfg = Cfg::compute(&body);
        let pdt = PostDomTree::compute(&cfg);
        assert_eq!(pdt.extra_roots(), &[b(2)]);
        assert!(!pdt.reaches_exit(b(2)));
        assert!(pdt.reaches_exit(b(0)));
        assert_eq!(
            pdt.ipdom(b(0)),
            None,
            "paths from bb0 end at the ret or spin forever"
        );
        assert_eq!(pdt.ipdom(b(2)), None);
        let mut roots = pdt.roots().to_vec();
        roots.sort();
        assert_eq!(roots, vec![b(0), b(1), b(2)]);
    }

    #[test]
    fn function_without_exit() {
        let body = ptx("
            .reg .b32 %r1;
            .reg .pred %p1;
            mov.b32 %r1, 0;
        A:
            add.s32 %r1, %r1, 1;
            @%p1 bra B;
            bra A;
        B:
            bra A;
        ");
        let cfg = Cfg::compute(&body);
        assert!(cfg.exits().is_empty());
        let pdt = PostDomTree::compute(&cfg);
        // bb3 (B) is latest in reverse post-order; A and the entry reach it.
        assert_eq!(pdt.extra_roots(), &[b(3)]);
        assert_eq!(pdt.ipdom(b(1)), Some(b(3)));
        assert_eq!(pdt.ipdom(b(0)), Some(b(1)));
        assert_eq!(pdt.ipdom(b(2)), Some(b(1)));
    }

    #[test]
    fn unreachable_blocks() {
        let body = ptx("
            .reg .b32 %r1;
            bra END;
        DEAD:
            add.s32 %r1, %r1, 1;
            bra DEAD;
        END:
            ret;
        ");
        let cfg = Cfg::compute(&body);
        let dt = DomTree::compute(&cfg);
        assert!(!dt.is_reachable(b(1)));
        assert_eq!(dt.idom(b(1)), None);
        assert!(
            dt.dominates(b(2), b(1)),
            "anything dominates unreachable code"
        );
        assert!(!dt.dominates(b(1), b(2)));
        let pdt = PostDomTree::compute(&cfg);
        assert_eq!(pdt.extra_roots(), &[b(1)]);
        assert_eq!(pdt.ipdom(b(0)), Some(b(2)));
    }

    /// Blocks reachable from `from` in `succs`, never entering `removed`.
    fn reach(succs: &[Vec<usize>], from: &[usize], removed: Option<usize>) -> Vec<bool> {
        let mut seen = vec![false; succs.len()];
        let mut stack: Vec<usize> = from
            .iter()
            .copied()
            .filter(|&f| Some(f) != removed)
            .collect();
        for &f in &stack {
            seen[f] = true;
        }
        while let Some(x) = stack.pop() {
            for &s in &succs[x] {
                if Some(s) != removed && !seen[s] {
                    seen[s] = true;
                    stack.push(s);
                }
            }
        }
        seen
    }

    #[test]
    fn random_cfgs_match_naive_definitions() {
        let mut rng = Rng::new(7);
        for _ in 0..500 {
            let (body, succs) = random_body(&mut rng);
            let n = succs.len();
            let cfg = Cfg::compute(&body);
            assert_eq!(cfg.num_blocks(), n);
            for (k, s) in succs.iter().enumerate() {
                let mut got: Vec<usize> =
                    cfg.succs(Block::new(k)).iter().map(|b| b.index()).collect();
                let mut want = s.clone();
                got.sort();
                want.sort();
                assert_eq!(got, want);
            }
            let dt = DomTree::compute(&cfg);
            for a in 0..n {
                let seen = reach(&succs, &[0], Some(a));
                for (bb, &seen) in seen.iter().enumerate() {
                    assert_eq!(
                        dt.dominates(b(a as u32), b(bb as u32)),
                        !seen,
                        "dominates({a},{bb}) in {succs:?}"
                    );
                }
            }
            // Post-dominance: on the reverse graph from the exits and extra roots.
            let pdt = PostDomTree::compute(&cfg);
            let mut rev = vec![Vec::new(); n];
            for (x, s) in succs.iter().enumerate() {
                for &y in s {
                    rev[y].push(x);
                }
            }
            let roots: Vec<usize> = cfg
                .exits()
                .iter()
                .chain(pdt.extra_roots())
                .map(|r| r.index())
                .collect();
            assert!(
                reach(&rev, &roots, None).iter().all(|&r| r),
                "every block is covered"
            );
            for a in 0..n {
                let seen = reach(&rev, &roots, Some(a));
                for (bb, &seen) in seen.iter().enumerate() {
                    let want = a == bb || !seen;
                    assert_eq!(
                        pdt.post_dominates(b(a as u32), b(bb as u32)),
                        want,
                        "post_dominates({a},{bb}) in {succs:?}"
                    );
                }
            }
            // Immediate (post-)dominators are the closest strict (post-)dominators.
            for bb in cfg.blocks() {
                if let Some(i) = dt.idom(bb) {
                    assert!(dt.strictly_dominates(i, bb));
                    for c in cfg.blocks() {
                        if dt.strictly_dominates(c, bb) && cfg.is_reachable(c) {
                            assert!(dt.dominates(c, i));
                        }
                    }
                }
                if let Some(i) = pdt.ipdom(bb) {
                    assert!(pdt.post_dominates(i, bb) && i != bb);
                }
            }
            // Dominance frontier, by definition: b ∈ DF(a) iff a dominates a predecessor of b and
            // does not strictly dominate b.
            let df = dt.frontiers(&cfg);
            for a in cfg.blocks().filter(|&a| cfg.is_reachable(a)) {
                let want: Vec<Block> = cfg
                    .blocks()
                    .filter(|&x| cfg.is_reachable(x))
                    .filter(|&x| {
                        cfg.preds(x)
                            .iter()
                            .any(|&p| cfg.is_reachable(p) && dt.dominates(a, p))
                            && !dt.strictly_dominates(a, x)
                    })
                    .collect();
                assert_eq!(df.frontier(a), want.as_slice(), "DF({a}) in {succs:?}");
            }
        }
    }
}
