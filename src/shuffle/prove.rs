//! The Z3 queries of shuffle synthesis, kept few and small (the analysis-time target is 1/100 of
//! PTXASW's, CC'23 Table 2).
//!
//! Every query is a conjunction of the launch assumptions and some facts, checked by a fresh
//! non-incremental `QF_BV` solver (Z3 then bit-blasts once instead of running its incremental
//! SMT core). Before that, each product of two non-constant bit-vectors (`ctaid.x·ntid.x`,
//! `y·width`) is replaced by a fresh variable — the same product by the same variable — with the
//! upper bound that the operands' bounds imply when it fits the width. Proving the generalised
//! claim proves the original one (the real product is one of the values the variable may take
//! and satisfies the bound), and no query contains a multiplier circuit. Results are cached by
//! the query's text.
//!
//! Before Z3, a few concrete witnesses ([`super::concrete`]) are tried: one under which the
//! assumptions and the facts all evaluate to true answers "satisfiable" (and serves as the
//! query's model) without a solver call. Only Z3 answers "unsatisfiable", so every proof is
//! still Z3's.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use super::concrete::{self, Witness};
use super::ranged::RangedForms;

use z3::ast::{Ast, Bool, Dynamic, BV};
use z3::{AstKind, Context, DeclKind, SatResult, Solver};

/// A model of a satisfiable query: Z3's, or a concrete witness.
#[derive(Clone)]
enum Model<'ctx> {
    Z3(Rc<z3::Model<'ctx>>),
    Concrete(Rc<RefCell<Witness<'ctx>>>),
}

/// Runs the queries of one kernel.
pub struct Prover<'ctx> {
    ctx: &'ctx Context,
    assumptions: Vec<Bool<'ctx>>,
    /// Upper bounds of symbols (by name).
    bounds: HashMap<String, u64>,
    /// Product term → its variable and bound fact.
    products: HashMap<Dynamic<'ctx>, (BV<'ctx>, Option<Bool<'ctx>>)>,
    /// The two factors of each binary product, with their own products replaced
    /// ([`Prover::congruence`]).
    factors: HashMap<Dynamic<'ctx>, (BV<'ctx>, BV<'ctx>)>,
    cache: HashMap<Vec<Bool<'ctx>>, SatResult>,
    models: HashMap<Vec<Bool<'ctx>>, Option<Model<'ctx>>>,
    /// [`Prover::wrap_sensitive`]'s answers per node.
    wrap_memo: HashMap<Dynamic<'ctx>, bool>,
    /// Whether a node contains a product without a known bound, per node.
    product_memo: HashMap<Dynamic<'ctx>, bool>,
    /// The concrete witnesses that satisfy the assumptions (evaluated lazily).
    witnesses: Option<Vec<Rc<RefCell<Witness<'ctx>>>>>,
    /// Polynomial normal forms (identities and constant differences of addresses).
    pub polys: Polynomials<'ctx>,
    /// Normal forms with ranges: exact proofs of lane claims without Z3.
    pub ranged: RangedForms<'ctx>,
    /// [`Prover::assume_no_wrap`]'s results per node.
    no_wrap_memo: RefCell<HashMap<Dynamic<'ctx>, Dynamic<'ctx>>>,
    /// Z3 time spent on proofs ([`Prover::prove`]) in this kernel.
    proof_time: std::time::Duration,
    /// Most Z3 time for proofs in this kernel (`None`: no limit).
    pub proof_budget: Option<std::time::Duration>,
    /// When the analysis must stop: past it, no witness is repaired (a repair evaluates the
    /// whole path condition again for every change it tries, seconds on long paths).
    pub deadline: Option<std::time::Instant>,
    /// Queries sent to Z3.
    pub queries: usize,
    /// Queries answered "satisfiable" by a concrete witness, without Z3.
    pub witnessed: usize,
}

impl<'ctx> Prover<'ctx> {
    /// A prover under `assumptions`; `bounds` gives inclusive upper bounds of named symbols.
    pub fn new(
        ctx: &'ctx Context,
        assumptions: Vec<Bool<'ctx>>,
        bounds: HashMap<String, u64>,
    ) -> Prover<'ctx> {
        Prover {
            ctx,
            assumptions,
            ranged: RangedForms::new(&bounds, super::symexec::TID[0]),
            bounds,
            products: HashMap::new(),
            factors: HashMap::new(),
            cache: HashMap::new(),
            models: HashMap::new(),
            wrap_memo: HashMap::new(),
            product_memo: HashMap::new(),
            witnesses: None,
            polys: Polynomials::default(),
            no_wrap_memo: RefCell::new(HashMap::new()),
            proof_time: std::time::Duration::ZERO,
            proof_budget: Some(PROOF_BUDGET),
            deadline: None,
            queries: 0,
            witnessed: 0,
        }
    }

    /// A concrete witness under which the assumptions and all `facts` are true, if one of
    /// the candidates is.
    fn witness_for(&mut self, facts: &[Bool<'ctx>]) -> Option<Rc<RefCell<Witness<'ctx>>>> {
        if self.witnesses.is_none() {
            let asm: Vec<Dynamic<'ctx>> = self
                .assumptions
                .iter()
                .map(|a| Dynamic::from_ast(a))
                .collect();
            let ok = concrete::candidates()
                .into_iter()
                .filter_map(|mut w| (w.satisfies(&asm) == Some(true)).then_some(w))
                .map(|w| Rc::new(RefCell::new(w)))
                .collect();
            self.witnesses = Some(ok);
        }
        let fs: Vec<Dynamic<'ctx>> = facts.iter().map(|f| Dynamic::from_ast(f)).collect();
        let ws = self.witnesses.as_ref()?;
        let mut found = ws
            .iter()
            .find(|w| w.borrow_mut().satisfies(&fs) == Some(true))
            .cloned();
        if found.is_none() {
            // Equations on loaded values (`n == 3`): give the loaded value what it must be.
            let all: Vec<Dynamic<'ctx>> = self
                .assumptions
                .iter()
                .map(|a| Dynamic::from_ast(a))
                .chain(fs.iter().cloned())
                .collect();
            let deadline = self.deadline;
            found = ws
                .iter()
                .take_while(|_| !super::past(deadline))
                .find_map(|w| w.borrow_mut().repaired(&all))
                .map(|w| Rc::new(RefCell::new(w)));
        }
        if found.is_some() {
            self.witnessed += 1;
        }
        found
    }

    fn ub(&self, t: &Dynamic<'ctx>) -> Option<u64> {
        let bv = t.as_bv()?;
        let w = bv.get_size();
        let fits = |v: u128| -> Option<u64> {
            if w >= 64 || v < (1u128 << w) {
                u64::try_from(v).ok()
            } else {
                None
            }
        };
        match t.kind() {
            AstKind::Numeral => bv.as_u64(),
            AstKind::App => {
                let d = t.decl();
                match d.kind() {
                    DeclKind::UNINTERPRETED if t.num_children() == 0 => {
                        self.bounds.get(&d.name()).copied()
                    }
                    DeclKind::ZERO_EXT => self.ub(&t.nth_child(0)?),
                    DeclKind::CONCAT => {
                        // zero-extension written as concat(0, x)
                        let hi = t.nth_child(0)?;
                        if hi.kind() == AstKind::Numeral && hi.as_bv()?.as_u64()? == 0 {
                            self.ub(&t.nth_child(1)?)
                        } else {
                            None
                        }
                    }
                    DeclKind::BADD => {
                        let mut s: u128 = 0;
                        for c in t.children() {
                            s += u128::from(self.ub(&c)?);
                        }
                        fits(s)
                    }
                    DeclKind::BMUL => {
                        let mut p: u128 = 1;
                        for c in t.children() {
                            p = p.checked_mul(u128::from(self.ub(&c)?))?;
                        }
                        fits(p)
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// Collects the non-linear products of `t` (bottom-up), registering a variable for each.
    fn collect(
        &mut self,
        t: &Dynamic<'ctx>,
        seen: &mut Vec<Dynamic<'ctx>>,
        out: &mut Vec<Dynamic<'ctx>>,
    ) {
        if seen.contains(t) {
            return;
        }
        seen.push(t.clone());
        if t.kind() != AstKind::App {
            return;
        }
        for c in t.children() {
            self.collect(&c, seen, out);
        }
        if t.decl().kind() == DeclKind::BMUL
            && t.children()
                .iter()
                .filter(|c| c.kind() != AstKind::Numeral)
                .count()
                >= 2
        {
            if !self.products.contains_key(t) {
                let bv = t.as_bv().expect("bvmul is a bit-vector");
                let v = BV::fresh_const(self.ctx, "prod", bv.get_size());
                let fact = self
                    .ub(t)
                    .map(|u| v.bvule(&BV::from_u64(self.ctx, u, bv.get_size())))
                    .or_else(|| signed_product_range(self.ctx, t, &v));
                self.products.insert(t.clone(), (v, fact));
                if let [a, b] = &t.children()[..] {
                    let (a, _) = self.linearize(a);
                    let (b, _) = self.linearize(b);
                    if let (Some(a), Some(b)) = (a.as_bv(), b.as_bv()) {
                        self.factors.insert(t.clone(), (a, b));
                    }
                }
            }
            out.push(t.clone());
        }
    }

    /// Functional consistency of the variables that replace `prods`: two products of equal
    /// factors (in either order) are equal. Without it a claim such as `x·s = y·s` where
    /// `x = y` holds only through a wrap-around `selp` is refuted by giving the two products
    /// different values (Numba's PTX multiplies every index by a stride parameter).
    fn congruence(&self, prods: &[Dynamic<'ctx>]) -> Vec<Bool<'ctx>> {
        let mut facts = Vec::new();
        for (i, p) in prods.iter().enumerate() {
            for q in &prods[i + 1..] {
                let (Some((a, b)), Some((c, d))) = (self.factors.get(p), self.factors.get(q))
                else {
                    continue;
                };
                let (vp, vq) = (&self.products[p].0, &self.products[q].0);
                if vp.get_size() != vq.get_size() || a.get_size() != c.get_size() {
                    continue;
                }
                let same = Bool::or(
                    self.ctx,
                    &[
                        &Bool::and(self.ctx, &[&a._eq(c), &b._eq(d)]),
                        &Bool::and(self.ctx, &[&a._eq(d), &b._eq(c)]),
                    ],
                );
                facts.push(same.implies(&vp._eq(vq)));
            }
        }
        facts
    }

    /// `t` with its products replaced, and the facts about them.
    pub fn linearize(&mut self, t: &Dynamic<'ctx>) -> (Dynamic<'ctx>, Vec<Bool<'ctx>>) {
        let mut prods = Vec::new();
        let mut seen = Vec::new();
        self.collect(t, &mut seen, &mut prods);
        if prods.is_empty() {
            return (t.clone(), Vec::new());
        }
        // Innermost products were collected first; substitute outermost first so that a product
        // containing another is replaced whole.
        let mut g = t.clone();
        for p in prods.iter().rev() {
            let v = Dynamic::from_ast(&self.products[p].0);
            g = g.substitute(&[(p, &v)]);
        }
        let mut facts: Vec<Bool<'ctx>> = prods
            .iter()
            .filter_map(|p| self.products[p].1.clone())
            .collect();
        facts.extend(self.congruence(&prods));
        (g, facts)
    }

    fn lin_bool(&mut self, f: &Bool<'ctx>) -> (Bool<'ctx>, Vec<Bool<'ctx>>) {
        let (g, facts) = self.linearize(&Dynamic::from_ast(&f.simplify()));
        (g.as_bool().expect("a formula stays boolean"), facts)
    }

    /// `t` (a bit-vector) with its products replaced by the same variables as in the queries.
    pub fn linearize_bv(&mut self, t: &BV<'ctx>) -> BV<'ctx> {
        let (g, _) = self.linearize(&Dynamic::from_ast(&t.simplify()));
        g.as_bv().expect("a term stays a bit-vector")
    }

    /// The Z3 context.
    pub fn ctx(&self) -> &'ctx Context {
        self.ctx
    }

    /// `t` rewritten as if 32-bit index arithmetic never overflowed: a sign extension of a
    /// sum, difference or product becomes the sum, difference or product of the sign-extended
    /// operands (C's rule for `int`; LLVM's `nsw`). Used only to decide whether a load is
    /// worth a shuffle guarded by a run-time address comparison, never as a proof.
    pub fn assume_no_wrap(&self, t: &Dynamic<'ctx>) -> Dynamic<'ctx> {
        // Memoised for the whole analysis: address terms share most of their nodes.
        no_wrap(t, &mut self.no_wrap_memo.borrow_mut())
    }

    /// True when `t` sign-extends a sum or product that contains a product of two non-constant
    /// terms with no known bound (`y·width`): whether such an index wraps around in 32 bits
    /// depends on the inputs, so a proof without the run-time address check cannot succeed
    /// and is not attempted.
    pub fn wrap_sensitive(&mut self, t: &Dynamic<'ctx>) -> bool {
        // Both walks are memoised per node: address terms are DAGs with much sharing, and
        // a walk of the tree would be exponential.
        fn unbounded_product<'ctx>(p: &mut Prover<'ctx>, t: &Dynamic<'ctx>) -> bool {
            if t.kind() != AstKind::App {
                return false;
            }
            if let Some(r) = p.product_memo.get(t) {
                return *r;
            }
            let kids = t.children();
            let r = (t.decl().kind() == DeclKind::BMUL
                && kids.iter().filter(|c| c.kind() != AstKind::Numeral).count() >= 2
                && p.ub(t).is_none())
                || kids.iter().any(|c| unbounded_product(p, c));
            p.product_memo.insert(t.clone(), r);
            r
        }
        fn walk<'ctx>(p: &mut Prover<'ctx>, t: &Dynamic<'ctx>) -> bool {
            if t.kind() != AstKind::App {
                return false;
            }
            if let Some(r) = p.wrap_memo.get(t) {
                return *r;
            }
            let kids = t.children();
            let r = if t.decl().kind() == DeclKind::SIGN_EXT {
                kids.iter().any(|c| unbounded_product(p, c))
            } else {
                kids.iter().any(|c| walk(p, c))
            };
            p.wrap_memo.insert(t.clone(), r);
            r
        }
        walk(self, t)
    }

    /// True when `assumptions ∧ facts` is proved unsatisfiable (a claim's negation: the claim
    /// holds). `None` when the proof is not attempted because this kernel's solver budget
    /// ([`Prover::proof_budget`] of Z3 time) is spent: proofs only turn a checked shuffle into a plain one
    /// or a load into a shuffle, so stopping them costs speed of the output, never correctness.
    pub fn prove(&mut self, facts: &[Bool<'ctx>]) -> Option<bool> {
        let left = match self.proof_budget {
            Some(b) if self.cache.contains_key(facts) => Some(b),
            Some(b) if self.proof_time >= b => return None,
            Some(b) => Some(b.saturating_sub(self.proof_time)),
            None => None,
        };
        let timeout = left.map(|l| u32::try_from(l.as_millis().max(10)).unwrap_or(u32::MAX));
        let t0 = std::time::Instant::now();
        let r = self.check_within(facts, timeout);
        self.proof_time += t0.elapsed();
        Some(r == SatResult::Unsat)
    }

    /// Checks `assumptions ∧ facts`.
    pub fn check(&mut self, facts: &[Bool<'ctx>]) -> SatResult {
        self.check_within(facts, None)
    }

    /// [`Prover::check`] with Z3 stopped after `timeout_ms` (then `Unknown`).
    fn check_within(&mut self, facts: &[Bool<'ctx>], timeout_ms: Option<u32>) -> SatResult {
        let key: Vec<Bool<'ctx>> = facts.to_vec();
        if let Some(r) = self.cache.get(&key) {
            return *r;
        }
        if let Some(w) = self.witness_for(facts) {
            self.models
                .entry(key.clone())
                .or_insert(Some(Model::Concrete(w)));
            self.cache.insert(key, SatResult::Sat);
            return SatResult::Sat;
        }
        log::trace!("no witness for {facts:?}");
        let (r, solver) = self.solve(facts, "query", timeout_ms);
        // A model of a satisfiable query serves later model requests for the same facts (the
        // path conditions detection evaluates deltas in) and decides feasibility shortcuts.
        if r == SatResult::Sat && !self.models.contains_key(&key) {
            self.models.insert(
                key.clone(),
                solver.get_model().map(|m| Model::Z3(Rc::new(m))),
            );
        }
        self.cache.insert(key, r);
        r
    }

    /// Whether `f` holds in the cached model of `facts` (none cached: `None`). That model is
    /// then also a model of `facts ∧ f` (or of `facts ∧ ¬f`), and is recorded as such: one side
    /// of a branch needs no query.
    pub fn holds_in_model(&mut self, facts: &[Bool<'ctx>], f: &Bool<'ctx>) -> Option<bool> {
        let m = self.models.get(facts)?.clone()?;
        let holds = match &m {
            Model::Z3(zm) => {
                let (g, extra) = self.lin_bool(f);
                let holds = zm.eval(&g, true)?.as_bool()?;
                if !extra
                    .iter()
                    .all(|e| zm.eval(e, true).and_then(|v| v.as_bool()) == Some(true))
                {
                    return None;
                }
                holds
            }
            Model::Concrete(w) => w.borrow_mut().eval_bool(&Dynamic::from_ast(f))?,
        };
        let mut key = facts.to_vec();
        key.push(if holds { f.clone() } else { f.not() });
        self.cache.insert(key.clone(), SatResult::Sat);
        self.models.entry(key).or_insert(Some(m));
        Some(holds)
    }

    /// A model of the linearised `assumptions ∧ facts`, if satisfiable: evaluate terms passed
    /// through [`Prover::linearize_bv`] in it. It only proposes values (deltas); proofs decide.
    pub fn has_model(&mut self, facts: &[Bool<'ctx>]) -> bool {
        if !self.models.contains_key(facts) {
            let m = match self.witness_for(facts) {
                Some(w) => Some(Model::Concrete(w)),
                None => self.new_model(facts).map(|m| Model::Z3(Rc::new(m))),
            };
            self.models.insert(facts.to_vec(), m);
        }
        self.models[facts].is_some()
    }

    /// The values (signed) of `terms` in the (cached) model of `facts`; products are evaluated
    /// through their variables, as in the queries.
    pub fn eval(&mut self, facts: &[Bool<'ctx>], terms: &[BV<'ctx>]) -> Option<Vec<i64>> {
        if !self.has_model(facts) {
            return None;
        }
        if let Some(Model::Concrete(w)) = &self.models[facts] {
            // Products are computed exactly: the witness is a model of the real terms.
            let mut w = w.borrow_mut();
            return terms
                .iter()
                .map(|t| w.eval_u64(&Dynamic::from_ast(t)).map(|v| v as i64))
                .collect();
        }
        let lin: Vec<BV<'ctx>> = terms.iter().map(|t| self.linearize_bv(t)).collect();
        let Some(Model::Z3(m)) = self.models[facts].as_ref() else {
            return None;
        };
        lin.iter()
            // Two's complement: `as_i64` refuses numerals above i64::MAX (negative values).
            .map(|t| m.eval(t, true).and_then(|v| v.as_u64()).map(|v| v as i64))
            .collect()
    }

    /// One Z3 query: a fresh `QF_BV` solver with the assumptions and the linearised `facts`
    /// (`what` names it in the log); its answer and the solver (for the model).
    fn solve(
        &mut self,
        facts: &[Bool<'ctx>],
        what: &str,
        timeout_ms: Option<u32>,
    ) -> (SatResult, Solver<'ctx>) {
        let solver =
            Solver::new_for_logic(self.ctx, "QF_BV").unwrap_or_else(|| Solver::new(self.ctx));
        if let Some(ms) = timeout_ms {
            let mut p = z3::Params::new(self.ctx);
            p.set_u32("timeout", ms);
            solver.set_params(&p);
        }
        for a in &self.assumptions {
            solver.assert(a);
        }
        for f in facts {
            let (g, extra) = self.lin_bool(f);
            log::trace!("{what} fact {g} with {extra:?}");
            solver.assert(&g);
            for e in extra {
                solver.assert(&e);
            }
        }
        self.queries += 1;
        let t0 = std::time::Instant::now();
        let r = solver.check();
        log::debug!("{what} {:?}: {r:?}", t0.elapsed());
        (r, solver)
    }

    fn new_model(&mut self, facts: &[Bool<'ctx>]) -> Option<z3::Model<'ctx>> {
        let (r, solver) = self.solve(facts, "model query", None);
        if r == SatResult::Sat {
            solver.get_model()
        } else {
            None
        }
    }
}

/// The default Z3 time a kernel may spend on proofs ([`Prover::prove`]). Most claims are decided by the
/// normal forms of [`super::ranged`] without a solver; Z3 proofs are what is left (claims that
/// need the path condition), and each costs 20–600 ms on 64-bit address terms, so a kernel gets 20 ms of them.
pub const PROOF_BUDGET: std::time::Duration = std::time::Duration::from_millis(20);

/// Polynomial normal forms of bit-vector terms (ring identities `+`, `−`, `·`, negation and shifts
/// by constants, modulo `2^width`), memoised per node for one analysis. Anything else (UFs,
/// extracts, extensions, …) is a leaf, compared after Z3's simplification (the same value may be
/// built two ways: `sext(x)` and `sext(extract(zext(x)))`). Equal normal forms prove equality for
/// all values of the leaves: `(k+1)·s = k·s + s` holds even where Z3's simplifier, which does not
/// distribute, leaves the two apart. Different forms prove nothing.
#[derive(Default)]
pub struct Polynomials<'ctx> {
    leaves: HashMap<Dynamic<'ctx>, u32>,
    memo: HashMap<Dynamic<'ctx>, Option<Poly>>,
}

/// A polynomial: monomial (sorted leaf indices) → coefficient (wrapping).
type Poly = std::collections::BTreeMap<Vec<u32>, u64>;

/// Most monomials a polynomial may have before [`Polynomials`] gives up.
const MAX_MONOMIALS: usize = 256;

impl<'ctx> Polynomials<'ctx> {
    /// True when `a` and `b` have the same normal form.
    pub fn same(&mut self, a: &BV<'ctx>, b: &BV<'ctx>) -> bool {
        self.constant_difference(a, b) == Some(0)
    }

    /// `a − b` when it is the same constant for all values of the leaves, as a signed number.
    pub fn constant_difference(&mut self, a: &BV<'ctx>, b: &BV<'ctx>) -> Option<i64> {
        let bits = a.get_size();
        if bits != b.get_size() || bits > 64 {
            return None;
        }
        let pa = self.of(&Dynamic::from_ast(a))?;
        let pb = self.of(&Dynamic::from_ast(b))?;
        let mask = if bits == 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        let mut d: Poly = pa;
        for (m, c) in pb {
            let e = d.entry(m).or_insert(0);
            *e = e.wrapping_sub(c);
        }
        d.retain(|_, c| *c & mask != 0);
        match d.len() {
            0 => Some(0),
            1 => {
                let (m, c) = d.into_iter().next()?;
                if !m.is_empty() {
                    return None;
                }
                let shift = 64 - bits;
                Some((((c & mask) << shift) as i64) >> shift)
            }
            _ => None,
        }
    }

    fn leaf(&mut self, t: &Dynamic<'ctx>) -> Poly {
        let t = t.simplify();
        if let Some(v) = t.as_bv().and_then(|b| b.as_u64()) {
            return Poly::from([(Vec::new(), v)]);
        }
        let n = self.leaves.len() as u32;
        let i = *self.leaves.entry(t).or_insert(n);
        Poly::from([(vec![i], 1u64)])
    }

    fn of(&mut self, t: &Dynamic<'ctx>) -> Option<Poly> {
        if let Some(p) = self.memo.get(t) {
            return p.clone();
        }
        fn add(mut x: Poly, y: Poly, sign: u64) -> Poly {
            for (m, c) in y {
                let e = x.entry(m).or_insert(0);
                *e = e.wrapping_add(c.wrapping_mul(sign));
            }
            x
        }
        fn mul(x: &Poly, y: &Poly) -> Option<Poly> {
            let mut out = Poly::new();
            for (mx, cx) in x {
                for (my, cy) in y {
                    let mut m: Vec<u32> = mx.iter().chain(my).copied().collect();
                    m.sort_unstable();
                    let e = out.entry(m).or_insert(0);
                    *e = e.wrapping_add(cx.wrapping_mul(*cy));
                }
            }
            (out.len() <= MAX_MONOMIALS).then_some(out)
        }
        let r = if let Some(v) = t.as_bv().and_then(|b| b.as_u64()) {
            Some(Poly::from([(Vec::new(), v)]))
        } else if t.kind() != AstKind::App || t.num_children() == 0 {
            Some(self.leaf(t))
        } else {
            let kids = t.children();
            match t.decl().kind() {
                DeclKind::BADD => {
                    let mut acc = Some(Poly::new());
                    for k in &kids {
                        acc = match (acc, self.of(k)) {
                            (Some(a), Some(p)) => Some(add(a, p, 1)),
                            _ => None,
                        };
                    }
                    acc
                }
                DeclKind::BSUB if kids.len() == 2 => match (self.of(&kids[0]), self.of(&kids[1])) {
                    (Some(a), Some(b)) => Some(add(a, b, u64::MAX)),
                    _ => None,
                },
                DeclKind::BNEG if kids.len() == 1 => {
                    self.of(&kids[0]).map(|a| add(Poly::new(), a, u64::MAX))
                }
                DeclKind::BMUL => {
                    let mut acc = Some(Poly::from([(Vec::new(), 1u64)]));
                    for k in &kids {
                        acc = match (acc, self.of(k)) {
                            (Some(a), Some(p)) => mul(&a, &p),
                            _ => None,
                        };
                    }
                    acc
                }
                DeclKind::BSHL if kids.len() == 2 => {
                    match kids[1].as_bv().and_then(|b| b.as_u64()) {
                        Some(c) if c < 64 => self
                            .of(&kids[0])
                            .and_then(|a| mul(&a, &Poly::from([(Vec::new(), 1u64 << c)]))),
                        _ => Some(self.leaf(t)),
                    }
                }
                _ => Some(self.leaf(t)),
            }
        };
        let r = r.filter(|p| p.len() <= MAX_MONOMIALS);
        self.memo.insert(t.clone(), r.clone());
        r
    }
}

/// `(a, c)` when `t` is `a << c` with a constant `c` below 63.
fn shift_by_constant<'ctx>(t: &Dynamic<'ctx>) -> Option<(Dynamic<'ctx>, u32)> {
    if t.kind() != AstKind::App || t.decl().kind() != DeclKind::BSHL || t.num_children() != 2 {
        return None;
    }
    let kids = t.children();
    let c = kids[1].as_bv()?.as_u64()?;
    (c < 63).then(|| (kids[0].clone(), c as u32))
}

fn sext_dyn<'ctx>(t: &Dynamic<'ctx>, k: u32) -> Dynamic<'ctx> {
    match t.as_bv() {
        Some(b) => Dynamic::from_ast(&b.sign_ext(k)),
        None => t.clone(),
    }
}

fn no_wrap<'ctx>(
    t: &Dynamic<'ctx>,
    memo: &mut HashMap<Dynamic<'ctx>, Dynamic<'ctx>>,
) -> Dynamic<'ctx> {
    if let Some(r) = memo.get(t) {
        return r.clone();
    }
    let r = if t.kind() != AstKind::App || t.num_children() == 0 {
        t.clone()
    } else {
        let d = t.decl();
        let kids = t.children();
        let sext_of_arith = d.kind() == DeclKind::SIGN_EXT
            && kids.len() == 1
            && kids[0].kind() == AstKind::App
            && (matches!(
                kids[0].decl().kind(),
                DeclKind::BADD | DeclKind::BSUB | DeclKind::BMUL
            ) || shift_by_constant(&kids[0]).is_some());
        if sext_of_arith {
            let k =
                t.as_bv().map_or(0, |b| b.get_size()) - kids[0].as_bv().map_or(0, |b| b.get_size());
            let inner = &kids[0];
            if let Some((a, c)) = shift_by_constant(inner) {
                // `a << c` is `a · 2^c`.
                let wide = no_wrap(&sext_dyn(&a, k), memo);
                let w = wide.as_bv().expect("a bit-vector");
                let f = BV::from_u64(w.get_ctx(), 1u64 << c, w.get_size());
                let r = Dynamic::from_ast(&w.bvmul(&f));
                memo.insert(t.clone(), r.clone());
                return r;
            }
            let args: Vec<Dynamic<'ctx>> = inner
                .children()
                .iter()
                .map(|c| no_wrap(&sext_dyn(c, k), memo))
                .collect();
            let name = match inner.decl().kind() {
                DeclKind::BADD => "bvadd",
                DeclKind::BSUB => "bvsub",
                _ => "bvmul",
            };
            // Rebuild with the same operation at the wider width.
            let bvs: Vec<BV<'ctx>> = args.iter().filter_map(|a| a.as_bv()).collect();
            let mut acc = bvs[0].clone();
            for b in &bvs[1..] {
                acc = match name {
                    "bvadd" => acc.bvadd(b),
                    "bvsub" => acc.bvsub(b),
                    _ => acc.bvmul(b),
                };
            }
            Dynamic::from_ast(&acc)
        } else {
            let args: Vec<Dynamic<'ctx>> = kids.iter().map(|c| no_wrap(c, memo)).collect();
            if args.iter().zip(&kids).all(|(a, b)| a == b) {
                t.clone()
            } else {
                let refs: Vec<&dyn Ast<'ctx>> = args.iter().map(|a| a as &dyn Ast<'ctx>).collect();
                d.apply(&refs)
            }
        }
    };
    memo.insert(t.clone(), r.clone());
    r
}

/// The width `w` when `t` is a `w`-bit value sign-extended (`sign_extend`, or the `concat` of
/// copies of its top bit and itself that sign extensions simplify to).
fn sign_extended_from(t: &Dynamic<'_>) -> Option<u32> {
    if t.kind() != AstKind::App {
        return None;
    }
    let d = t.decl();
    match d.kind() {
        DeclKind::SIGN_EXT => t.nth_child(0)?.as_bv().map(|x| x.get_size()),
        DeclKind::CONCAT => {
            let parts = t.children();
            let (last, sign) = parts.split_last()?;
            let x = last.as_bv()?;
            let top = x.get_size() - 1;
            let top_bit = x.extract(top, top);
            let copies_top = |p: &Dynamic<'_>| p.as_bv().is_some_and(|b| b == top_bit);
            (!sign.is_empty() && sign.iter().all(copies_top)).then_some(x.get_size())
        }
        _ => None,
    }
}

/// The signed range of product `t` (the variable `v` stands for it) when both its factors are
/// sign-extended from `w1` and `w2` bits: `|t| ≤ 2^(w1+w2−2)`. ptxas's `mul.wide.s32` of
/// `%ntid.x` and `%ctaid.x`, the block base of a 64-bit index, is such a product; without the
/// range the index may be taken near `−2^63`, where `i − 1` wraps.
fn signed_product_range<'ctx>(
    ctx: &'ctx Context,
    t: &Dynamic<'ctx>,
    v: &BV<'ctx>,
) -> Option<Bool<'ctx>> {
    let [a, b] = &t.children()[..] else {
        return None;
    };
    let bits = sign_extended_from(a)? + sign_extended_from(b)? - 2;
    let size = v.get_size();
    if bits + 1 >= size {
        return None;
    }
    let hi = BV::from_u64(ctx, 1u64 << bits, size);
    let lo = hi.bvneg();
    Some(Bool::and(ctx, &[&v.bvsge(&lo), &v.bvsle(&hi)]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sym<'c>(ctx: &'c Context, n: &str) -> BV<'c> {
        BV::new_const(ctx, n, 32).zero_ext(32)
    }

    #[test]
    fn products_are_generalised_with_bounds() {
        let cfg = z3::Config::new();
        let ctx = Context::new(&cfg);
        let (b, n, t) = (sym(&ctx, "b"), sym(&ctx, "n"), sym(&ctx, "t"));
        let mut bounds = HashMap::new();
        bounds.insert("b".to_string(), (1 << 21) - 1);
        bounds.insert("n".to_string(), 1024);
        bounds.insert("t".to_string(), 1023);
        // The source lane exists: t + 1 < n.
        let launch = vec![
            t.bvadd(&BV::from_u64(&ctx, 1, 64)).bvult(&n),
            n.bvule(&BV::from_u64(&ctx, 1024, 64)),
        ];
        let mut p = Prover::new(&ctx, launch.clone(), bounds);
        // i = b*n + t in 32 bits; sext(i + 1) == sext(i) + 1 holds because i + 1 < 2^31.
        fn lo<'c>(v: &BV<'c>) -> BV<'c> {
            v.extract(31, 0)
        }
        let i = lo(&b).bvmul(&lo(&n)).bvadd(&lo(&t));
        let one = BV::from_u64(&ctx, 1, 32);
        let lhs = i.bvadd(&one).sign_ext(32);
        let rhs = i.sign_ext(32).bvadd(&BV::from_u64(&ctx, 1, 64));
        let _ = env_logger::builder().is_test(true).try_init();
        let t0 = std::time::Instant::now();
        assert_eq!(p.check(&[lhs._eq(&rhs).not()]), SatResult::Unsat);
        // Without the bound on b the claim is false (b*n + t may be 2^31 - 1).
        let mut q = Prover::new(&ctx, launch, HashMap::new());
        assert_eq!(q.check(&[lhs._eq(&rhs).not()]), SatResult::Sat);
        eprintln!("two queries: {:?}", t0.elapsed());
        // Cached.
        assert_eq!(p.check(&[lhs._eq(&rhs).not()]), SatResult::Unsat);
        assert_eq!(p.queries, 1);
    }

    /// Products are generalised to variables, but two products of equal factors stay equal
    /// (Numba's `index · stride`, where the two indices agree only through a `selp`), and a
    /// product of two sign-extended 32-bit values keeps its signed range (a 64-bit block base
    /// `mul.wide.s32 %ntid.x, %ctaid.x` is far from −2^63, so `i − 1` does not wrap).
    #[test]
    fn products_keep_congruence_and_signed_ranges() {
        let cfg = z3::Config::new();
        let ctx = Context::new(&cfg);
        let v64 = |n: &str| BV::new_const(&ctx, n, 64);
        let (x, y, s) = (v64("x"), v64("y"), v64("s"));
        let mut p = Prover::new(&ctx, Vec::new(), HashMap::new());
        let differ = x.bvmul(&s)._eq(&y.bvmul(&s)).not();
        assert_eq!(p.check(&[x._eq(&y), differ]), SatResult::Unsat);
        let swapped = x.bvmul(&s)._eq(&s.bvmul(&y)).not();
        assert_eq!(p.check(&[x._eq(&y), swapped]), SatResult::Unsat);
        let v32 = |n: &str| BV::new_const(&ctx, n, 32);
        let (a, b, t) = (v32("a"), v32("b"), v32("t"));
        let i = a.sign_ext(32).bvmul(&b.sign_ext(32)).bvadd(&t.sign_ext(32));
        let wraps = i.bvsub(&BV::from_u64(&ctx, 1, 64)).bvslt(&i).not();
        assert_eq!(p.check(&[wraps]), SatResult::Unsat);
        // 64-bit factors have no such range: i − 1 wraps at i = −2^63.
        let j = x.bvmul(&y);
        let wraps = j.bvsub(&BV::from_u64(&ctx, 1, 64)).bvslt(&j).not();
        assert_eq!(p.check(&[wraps]), SatResult::Sat);
    }

    /// Satisfiable queries are answered by a concrete witness (no Z3 query) whose model then
    /// serves evaluation; unsatisfiable ones still go to Z3.
    #[test]
    fn witnesses_answer_satisfiable_queries_only() {
        let cfg = z3::Config::new();
        let ctx = Context::new(&cfg);
        let (t, n, w) = (
            sym(&ctx, "%tid.x"),
            sym(&ctx, "%ntid.x"),
            sym(&ctx, "width"),
        );
        let one = BV::from_u64(&ctx, 1, 64);
        let launch = vec![
            t.bvult(&n),
            n.bvule(&BV::from_u64(&ctx, 1024, 64)),
            n.bvuge(&one),
        ];
        let mut p = Prover::new(&ctx, launch, HashMap::new());
        // 0 < tid.x + 1 < width: satisfiable.
        let inside = vec![t.bvadd(&one).bvult(&w)];
        assert_eq!(p.check(&inside), SatResult::Sat);
        assert_eq!((p.queries, p.witnessed), (0, 1));
        let v = p.eval(&inside, &[t.clone(), w.clone()]).expect("a model");
        assert!(v[0] + 1 < v[1]);
        // tid.x ≥ ntid.x contradicts the assumptions: Z3 says so.
        assert_eq!(p.check(&[t.bvuge(&n)]), SatResult::Unsat);
        assert_eq!(p.queries, 1);
    }
}
