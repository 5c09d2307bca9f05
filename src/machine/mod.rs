//! Machine-level analyses on the PTX IR (`DESIGN.md`, "machine/"): the control-flow graph,
//! dominator and post-dominator trees, natural loops, register liveness and pressure, and
//! reaching definitions with web splitting (SSA renaming).
//!
//! Each analysis lives in its own file as a plain struct with a `compute` constructor over a
//! [`Body`] and the analyses it depends on, holding its results in side tables indexed by
//! entity ids ([`Block`], [`Loop`], [`crate::ptx::Inst`], [`crate::ptx::Reg`]) — the
//! Cranelift/regalloc2 style. [`FunctionAnalyses`] is the per-function context that computes them
//! on demand, caches them, and forgets them when a transform calls
//! [`FunctionAnalyses::invalidate`] ("Analyses are computed on demand and invalidated
//! explicitly by the transform that changes the code").
//!
//! ```
//! use warpsmith::machine::FunctionAnalyses;
//! # let body = warpsmith::ptx::Body::default();
//! let mut a = FunctionAnalyses::new();
//! let entry = a.cfg(&body).entry();
//! let live = a.liveness(&body).live_in(entry).len();
//! let max = a.pressure(&body).max_units();
//! # let _ = (live, max);
//! ```

pub mod bitset;
pub mod cfg;
pub mod dominators;
pub mod liveness;
pub mod loops;
pub mod pressure;
pub mod slots;
pub mod ssa;
pub mod summary;
#[cfg(test)]
pub(crate) mod testutil;

pub use bitset::BitSet;
pub use cfg::{Block, Cfg};
pub use dominators::{DomFrontiers, DomTree, PostDomTree};
pub use liveness::Liveness;
pub use loops::{Loop, LoopInfo};
pub use pressure::{reg_class, Pressure, RegClass, Units};
pub use ssa::{split_webs, DefId, DefSite, ReachingDefs, UseId, UseSite, Web, Webs};
pub use summary::FunctionSummary;

use crate::ptx::Body;

/// Cheap shape of a body, to notice a forgotten invalidation (see [`FunctionAnalyses`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Shape {
    stmts: usize,
    insts: usize,
    regs: usize,
    labels: usize,
}

impl Shape {
    fn of(body: &Body) -> Shape {
        Shape {
            stmts: body.stmts.len(),
            insts: body.insts.len(),
            regs: body.regs.len(),
            labels: body.labels.len(),
        }
    }
}

/// The analyses of one function body, computed on demand and cached until [`invalidate`]d.
///
/// Every accessor takes the body the analyses describe; pass the same body each time. A transform
/// that changes the body must call [`invalidate`] (or [`invalidate_dataflow`] when it changed
/// only instructions' operands, not the control flow). As a safety net, a body whose number of
/// statements, instructions, registers or labels differs from the one the cache was built for is
/// treated as invalidated — a net, not a substitute: a rewrite that keeps those counts is not
/// noticed.
///
/// [`invalidate`]: FunctionAnalyses::invalidate
/// [`invalidate_dataflow`]: FunctionAnalyses::invalidate_dataflow
#[derive(Clone, Debug, Default)]
pub struct FunctionAnalyses {
    shape: Option<Shape>,
    cfg: Option<Cfg>,
    domtree: Option<DomTree>,
    postdom: Option<PostDomTree>,
    frontiers: Option<DomFrontiers>,
    loops: Option<LoopInfo>,
    liveness: Option<Liveness>,
    pressure: Option<Pressure>,
    reaching: Option<ReachingDefs>,
    webs: Option<Webs>,
}

/// All analyses of a body at once, borrowed from a [`FunctionAnalyses`].
#[derive(Clone, Copy, Debug)]
pub struct Analyses<'a> {
    /// The control-flow graph.
    pub cfg: &'a Cfg,
    /// The dominator tree.
    pub domtree: &'a DomTree,
    /// The post-dominator tree.
    pub postdom: &'a PostDomTree,
    /// The dominance frontiers.
    pub frontiers: &'a DomFrontiers,
    /// The loop forest.
    pub loops: &'a LoopInfo,
    /// Register liveness.
    pub liveness: &'a Liveness,
    /// Register pressure.
    pub pressure: &'a Pressure,
}

impl FunctionAnalyses {
    /// An empty cache.
    pub fn new() -> FunctionAnalyses {
        FunctionAnalyses::default()
    }

    /// Forgets every analysis: the transform changed the body.
    pub fn invalidate(&mut self) {
        *self = FunctionAnalyses::default();
    }

    /// Forgets the analyses that depend on registers and operands (liveness, pressure, reaching
    /// definitions, webs), keeping the
    /// CFG, dominators and loops: the transform rewrote instructions without changing the control
    /// flow or the statement layout.
    pub fn invalidate_dataflow(&mut self) {
        self.liveness = None;
        self.pressure = None;
        self.reaching = None;
        self.webs = None;
    }

    fn check(&mut self, body: &Body) {
        let shape = Shape::of(body);
        if self.shape != Some(shape) {
            if self.shape.is_some() {
                log::debug!(
                    "machine analyses: body changed shape without invalidation; recomputing"
                );
            }
            self.invalidate();
            self.shape = Some(shape);
        }
    }

    /// The control-flow graph.
    pub fn cfg(&mut self, body: &Body) -> &Cfg {
        self.check(body);
        self.cfg.get_or_insert_with(|| Cfg::compute(body))
    }

    /// The dominator tree.
    pub fn domtree(&mut self, body: &Body) -> &DomTree {
        self.check(body);
        let cfg = self.cfg.get_or_insert_with(|| Cfg::compute(body));
        self.domtree.get_or_insert_with(|| DomTree::compute(cfg))
    }

    /// The post-dominator tree.
    pub fn postdom(&mut self, body: &Body) -> &PostDomTree {
        self.check(body);
        let cfg = self.cfg.get_or_insert_with(|| Cfg::compute(body));
        self.postdom
            .get_or_insert_with(|| PostDomTree::compute(cfg))
    }

    /// The dominance frontiers.
    pub fn frontiers(&mut self, body: &Body) -> &DomFrontiers {
        self.check(body);
        let cfg = self.cfg.get_or_insert_with(|| Cfg::compute(body));
        let dt = self.domtree.get_or_insert_with(|| DomTree::compute(cfg));
        self.frontiers.get_or_insert_with(|| dt.frontiers(cfg))
    }

    /// The loop forest.
    pub fn loops(&mut self, body: &Body) -> &LoopInfo {
        self.check(body);
        let cfg = self.cfg.get_or_insert_with(|| Cfg::compute(body));
        let dt = self.domtree.get_or_insert_with(|| DomTree::compute(cfg));
        self.loops.get_or_insert_with(|| LoopInfo::compute(cfg, dt))
    }

    /// Register liveness.
    pub fn liveness(&mut self, body: &Body) -> &Liveness {
        self.check(body);
        let cfg = self.cfg.get_or_insert_with(|| Cfg::compute(body));
        self.liveness
            .get_or_insert_with(|| Liveness::compute(body, cfg))
    }

    /// Register pressure.
    pub fn pressure(&mut self, body: &Body) -> &Pressure {
        self.check(body);
        let cfg = self.cfg.get_or_insert_with(|| Cfg::compute(body));
        let lv = self
            .liveness
            .get_or_insert_with(|| Liveness::compute(body, cfg));
        self.pressure
            .get_or_insert_with(|| Pressure::compute(body, cfg, lv))
    }

    /// Reaching definitions and def-use chains.
    pub fn reaching(&mut self, body: &Body) -> &ReachingDefs {
        self.check(body);
        let cfg = self.cfg.get_or_insert_with(|| Cfg::compute(body));
        self.reaching
            .get_or_insert_with(|| ReachingDefs::compute(body, cfg))
    }

    /// The webs of every register.
    pub fn webs(&mut self, body: &Body) -> &Webs {
        self.check(body);
        let cfg = self.cfg.get_or_insert_with(|| Cfg::compute(body));
        let rd = self
            .reaching
            .get_or_insert_with(|| ReachingDefs::compute(body, cfg));
        self.webs.get_or_insert_with(|| Webs::compute(body, rd))
    }

    /// Every analysis except reaching definitions and webs, computing what is missing.
    pub fn all(&mut self, body: &Body) -> Analyses<'_> {
        self.check(body);
        let cfg = &*self.cfg.get_or_insert_with(|| Cfg::compute(body));
        let domtree = &*self.domtree.get_or_insert_with(|| DomTree::compute(cfg));
        let postdom = &*self
            .postdom
            .get_or_insert_with(|| PostDomTree::compute(cfg));
        let frontiers = &*self.frontiers.get_or_insert_with(|| domtree.frontiers(cfg));
        let loops = &*self
            .loops
            .get_or_insert_with(|| LoopInfo::compute(cfg, domtree));
        let liveness = &*self
            .liveness
            .get_or_insert_with(|| Liveness::compute(body, cfg));
        let pressure = &*self
            .pressure
            .get_or_insert_with(|| Pressure::compute(body, cfg, liveness));
        Analyses {
            cfg,
            domtree,
            postdom,
            frontiers,
            loops,
            liveness,
            pressure,
        }
    }

    /// Every analysis except reaching definitions and webs, if all are cached.
    pub fn view(&self) -> Option<Analyses<'_>> {
        Some(Analyses {
            cfg: self.cfg.as_ref()?,
            domtree: self.domtree.as_ref()?,
            postdom: self.postdom.as_ref()?,
            frontiers: self.frontiers.as_ref()?,
            loops: self.loops.as_ref()?,
            liveness: self.liveness.as_ref()?,
            pressure: self.pressure.as_ref()?,
        })
    }
}

#[cfg(test)]
mod corpus_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::testutil::*;

    const LOOP: &str = "
        .reg .b32 %r<3>;
        .reg .b64 %rd1;
        .reg .pred %p1;
        mov.b32 %r1, 0;
    HEAD:
        add.s32 %r1, %r1, 1;
        setp.lt.s32 %p1, %r1, 10;
        @%p1 bra HEAD;
        mov.b32 %r1, 7;
        st.global.u32 [%rd1], %r1;
        ret;
    ";

    #[test]
    fn analyses_are_cached_and_invalidated() {
        let mut body = ptx(LOOP);
        let mut a = FunctionAnalyses::new();
        assert!(a.view().is_none());
        assert_eq!(a.cfg(&body).num_blocks(), 3);
        assert_eq!(a.loops(&body).num_loops(), 1);
        assert_eq!(a.domtree(&body).idom(Block(2)), Some(Block(1)));
        assert_eq!(a.postdom(&body).ipdom(Block(1)), Some(Block(2)));
        assert_eq!(a.frontiers(&body).frontier(Block(1)), &[Block(1)]);
        assert_eq!(a.pressure(&body).max_units(), 3);
        assert!(a.view().is_some(), "everything is cached now");
        assert_eq!(a.liveness(&body).live_in(Block(1)).len(), 2);
        assert_eq!(a.reaching(&body).defs().len(), 4);
        let r1 = reg_named(&body, "%r1");
        assert_eq!(a.webs(&body).webs_of(r1).len(), 2);

        // A transform that splits %r1 adds a register: the dataflow analyses must go.
        assert_eq!(split_webs(&mut body), 1);
        a.invalidate_dataflow();
        assert!(a.view().is_none());
        assert_eq!(a.pressure(&body).max_units(), 3);
        a.invalidate();
        assert!(a.view().is_none());
        let all = a.all(&body);
        assert_eq!(all.cfg.num_blocks(), 3);
        assert_eq!(all.loops.max_depth(), 1);
    }

    #[test]
    fn changed_shape_is_noticed() {
        let mut body = ptx(LOOP);
        let mut a = FunctionAnalyses::new();
        assert_eq!(a.liveness(&body).num_regs(), 5);
        split_webs(&mut body); // no invalidate: the register count changed
        assert_eq!(a.liveness(&body).num_regs(), 6);
    }

    #[test]
    fn summary() {
        let text = format!(
            ".version 8.0\n.target sm_90\n.address_size 64\n\
             .func f();\n\
             .visible .entry k()\n{{\n{LOOP}\n}}\n"
        );
        let m = crate::ptx::parse_module(&text, "t.ptx").unwrap();
        let mut fs = m.functions();
        let decl = FunctionSummary::compute(fs.next().unwrap());
        assert_eq!(
            decl,
            FunctionSummary {
                name: "f".into(),
                ..FunctionSummary::default()
            }
        );
        let k = FunctionSummary::compute(fs.next().unwrap());
        assert_eq!(
            k,
            FunctionSummary {
                name: "k".into(),
                is_entry: true,
                instructions: 7,
                blocks: 3,
                loops: 1,
                max_loop_depth: 1,
                max_live_units: 3,
                max_live_preds: 1,
                irreducible: false,
            }
        );
        assert_eq!(
            k.to_string(),
            ".entry k: 7 instructions, 3 blocks, 1 loops (depth 1), 3 live units, 1 live predicates"
        );
        let json = serde_json::to_string(&k).unwrap();
        assert!(json.contains("\"max_live_units\":3"));
    }
}
