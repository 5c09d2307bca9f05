//! Exact address arithmetic without a solver: integer polynomial normal forms of bit-vector terms
//! with value ranges, so that the claim of a shuffle (PTXASW, CC'23, §5.1: the destination lane's
//! address equals the source lane's) is decided by comparing two normal forms.
//!
//! Every term `t` of width `w ≤ 64` gets a polynomial `P` with integer coefficients over *atoms*
//! such that `t ≡ P (mod 2^w)` for all values of the atoms, and an interval that contains the
//! integer value of `P`. Ring operations (`+`, `−`, `·`, negation, shifts by constants, low
//! extracts) keep the congruence. The range is what makes extensions exact: `zext(t)` *is* `P`
//! when `P`'s range lies in `[0, 2^w)`, `sext(t)` when it lies in `[−2^(w−1), 2^(w−1))`. That is
//! the step that 64-bit indexing needs — `zext(tid.x + 1)`, `sext(bx·ntid.x + tid.x + 1)` —
//! and that a polynomial form without ranges (or Z3's simplifier) cannot take. Anything else (an
//! extension that may wrap, a division, a load, a loop value) is an atom, identified by its
//! operation and the normal forms of its operands, with a range of its own (`udiv`, `urem`,
//! masks, shifts right, the launch symbols' CUDA limits). `a − (a ÷ b)·b` is recognised as
//! `a mod b` when ranges are computed (block ids split with `/` and `%`).
//!
//! A claim about the source lane `tid.x + N` carries the premise `0 ≤ tid.x + N < ntid.x`
//! (checked at run time by the generated code); its forms are computed with `tid.x`'s range
//! narrowed by that premise, one set of forms per `N` (ranges decide which extensions are exact,
//! so forms under different premises are kept apart).
//!
//! Equal normal forms (modulo `2^w`) prove the terms equal for every value of the atoms within
//! their ranges, hence under the launch assumptions: the claim is then proved without Z3.
//! Different forms prove nothing (the caller falls back to the solver).

use std::collections::{BTreeMap, HashMap};

use z3::ast::{Ast, Dynamic, BV};
use z3::{AstKind, DeclKind};

/// A monomial: sorted atom ids.
type Mono = Vec<u32>;

/// An inclusive integer interval.
type Range = (i128, i128);

/// Most monomials a normal form may have before the term is treated as an atom.
const MAX_MONOMIALS: usize = 128;

/// A normal form: `poly` (coefficients reduced to signed representatives modulo `2^width`), and
/// an interval containing the integer value of `poly` (`None`: not known).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Form {
    poly: BTreeMap<Mono, i128>,
    width: u32,
    range: Option<Range>,
}

/// What the forms know about an atom.
#[derive(Clone, Debug)]
struct Atom {
    range: Range,
    /// `(a, b)` when the atom is `udiv(a, b)` of two single atoms.
    udiv_of: Option<(u32, u32)>,
}

/// Normal forms of the terms of one analysis: one [`Forms`] per lane premise.
pub struct RangedForms<'ctx> {
    bounds: HashMap<String, Range>,
    tid_x: String,
    /// Forms per (lane premise, no-wrap assumption).
    per_delta: HashMap<(i32, bool), Forms<'ctx>>,
}

/// Normal forms under one set of symbol ranges, memoised per node.
struct Forms<'ctx> {
    atoms: HashMap<String, u32>,
    info: Vec<Atom>,
    memo: HashMap<Dynamic<'ctx>, Option<Form>>,
    /// Inclusive ranges of named symbols.
    bounds: HashMap<String, Range>,
    /// Every extension is taken as exact (C's rule that `int` arithmetic does not overflow):
    /// forms that select loads for the run-time address check, never a proof.
    no_wrap: bool,
}

/// `2^w` as an integer.
fn pow2(w: u32) -> i128 {
    1i128 << w
}

/// `c` reduced to its signed representative modulo `2^w` (`w ≤ 64`).
fn signed_rep(c: i128, w: u32) -> i128 {
    let m = pow2(w);
    let r = c.rem_euclid(m);
    if r >= m / 2 {
        r - m
    } else {
        r
    }
}

fn full_unsigned(w: u32) -> Range {
    (0, pow2(w) - 1)
}

fn mul_range(a: Range, b: Range) -> Option<Range> {
    let c = [
        a.0.checked_mul(b.0)?,
        a.0.checked_mul(b.1)?,
        a.1.checked_mul(b.0)?,
        a.1.checked_mul(b.1)?,
    ];
    Some((*c.iter().min()?, *c.iter().max()?))
}

fn add_range(a: Range, b: Range) -> Option<Range> {
    Some((a.0.checked_add(b.0)?, a.1.checked_add(b.1)?))
}

impl<'ctx> RangedForms<'ctx> {
    /// Forms under `bounds` (inclusive upper bounds of named symbols, lower bound 0: the launch
    /// limits of `symexec::launch_bounds`); `tid_x` names the `tid.x` symbol.
    pub fn new(bounds: &HashMap<String, u64>, tid_x: &str) -> RangedForms<'ctx> {
        RangedForms {
            bounds: bounds
                .iter()
                .map(|(k, v)| (k.clone(), (0, i128::from(*v))))
                .collect(),
            tid_x: tid_x.to_string(),
            per_delta: HashMap::new(),
        }
    }

    /// The forms under the premise `0 ≤ tid.x + lane < ntid.x` (`lane = 0`: no premise).
    fn under(&mut self, lane: i32, no_wrap: bool) -> &mut Forms<'ctx> {
        let (bounds, tid_x) = (&self.bounds, &self.tid_x);
        self.per_delta.entry((lane, no_wrap)).or_insert_with(|| {
            let mut b = bounds.clone();
            let (lo, hi) = b.get(tid_x).copied().unwrap_or((0, 1023));
            let n = i128::from(lane);
            b.insert(tid_x.clone(), (lo.max(-n), hi.min(hi - n)));
            Forms {
                atoms: HashMap::new(),
                info: Vec::new(),
                memo: HashMap::new(),
                bounds: b,
                no_wrap,
            }
        })
    }

    /// `a − b` when it is the same constant (signed, modulo the width) for every value of the
    /// atoms within their ranges, under the premise that lane `tid.x + lane` exists in the block
    /// along x.
    pub fn difference(&mut self, a: &BV<'ctx>, b: &BV<'ctx>, lane: i32) -> Option<i64> {
        if a.get_size() != b.get_size() {
            return None;
        }
        self.under(lane, false).difference(a, b)
    }

    /// True when `a = b` for every value of the atoms within their ranges, under the premise
    /// that lane `tid.x + lane` exists in the block along x.
    pub fn equal(&mut self, a: &BV<'ctx>, b: &BV<'ctx>, lane: i32) -> bool {
        a == b || self.difference(a, b, lane) == Some(0)
    }

    /// [`RangedForms::equal`] with every zero or sign extension taken as exact: true when the
    /// terms are equal unless some index arithmetic wraps around. Not a proof: it selects the
    /// loads worth a shuffle guarded by the run-time address comparison.
    pub fn equal_without_wrap(&mut self, a: &BV<'ctx>, b: &BV<'ctx>, lane: i32) -> bool {
        a == b
            || (a.get_size() == b.get_size() && self.under(lane, true).difference(a, b) == Some(0))
    }
}

impl<'ctx> Forms<'ctx> {
    fn difference(&mut self, a: &BV<'ctx>, b: &BV<'ctx>) -> Option<i64> {
        let fa = self.form(&Dynamic::from_ast(a))?;
        let fb = self.form(&Dynamic::from_ast(b))?;
        let w = fa.width;
        let mut d = fa.poly;
        for (m, c) in fb.poly {
            *d.entry(m).or_insert(0) -= c;
        }
        d.retain(|_, c| signed_rep(*c, w) != 0);
        match d.len() {
            0 => Some(0),
            1 => {
                let (m, c) = d.into_iter().next()?;
                if m.is_empty() {
                    i64::try_from(signed_rep(c, w)).ok()
                } else {
                    None
                }
            }
            _ => None,
        }
    }

    fn constant(v: i128, w: u32) -> Form {
        let c = signed_rep(v, w);
        let mut poly = BTreeMap::new();
        if c != 0 {
            poly.insert(Vec::new(), c);
        }
        Form {
            poly,
            width: w,
            range: Some((c, c)),
        }
    }

    /// The id of the atom with `key`, registered with `range` the first time.
    fn atom_id(&mut self, key: String, range: Range, udiv_of: Option<(u32, u32)>) -> u32 {
        if let Some(i) = self.atoms.get(&key) {
            return *i;
        }
        let i = self.info.len() as u32;
        self.info.push(Atom { range, udiv_of });
        self.atoms.insert(key, i);
        i
    }

    fn atom_form(
        &mut self,
        key: String,
        range: Range,
        w: u32,
        udiv_of: Option<(u32, u32)>,
    ) -> Form {
        let i = self.atom_id(key, range, udiv_of);
        Form {
            poly: BTreeMap::from([(vec![i], 1)]),
            width: w,
            range: Some(range),
        }
    }

    /// `poly` at width `w`: coefficients reduced, range computed.
    fn make(&self, poly: BTreeMap<Mono, i128>, w: u32) -> Option<Form> {
        let poly: BTreeMap<Mono, i128> = poly
            .into_iter()
            .map(|(m, c)| (m, signed_rep(c, w)))
            .filter(|(_, c)| *c != 0)
            .collect();
        if poly.len() > MAX_MONOMIALS {
            return None;
        }
        let range = self.range_of(&poly);
        Some(Form {
            poly,
            width: w,
            range,
        })
    }

    /// An interval containing the value of `poly`. A monomial pair `c·r·a − c·r·(a ÷ b)·b` (for
    /// any product `r` of further atoms) counts as `c·r·(a mod b)`, with `a mod b` in `[0, a]` and
    /// below `b`.
    fn range_of(&self, poly: &BTreeMap<Mono, i128>) -> Option<Range> {
        let mut used: Vec<Mono> = Vec::new();
        let mut acc: Range = (0, 0);
        for (m, c) in poly {
            if m.len() < 2 || *c >= 0 || used.contains(m) {
                continue;
            }
            for &q in m {
                let Some((a, b)) = self.info[q as usize].udiv_of else {
                    continue;
                };
                let Some(rest) = without(m, &[q, b]) else {
                    continue;
                };
                let mut partner = rest.clone();
                partner.push(a);
                partner.sort_unstable();
                if poly.get(&partner) != Some(&-c) || used.contains(&partner) {
                    continue;
                }
                let ra = self.info[a as usize].range;
                let rb = self.info[b as usize].range;
                let hi = if rb.0 >= 1 { ra.1.min(rb.1 - 1) } else { ra.1 };
                let mut r = mul_range((-c, -c), (0, hi))?;
                for x in &rest {
                    r = mul_range(r, self.info[*x as usize].range)?;
                }
                acc = add_range(acc, r)?;
                used.push(m.clone());
                used.push(partner);
                break;
            }
        }
        for (m, c) in poly {
            if used.contains(m) {
                continue;
            }
            let mut r: Range = (*c, *c);
            for a in m {
                r = mul_range(r, self.info[*a as usize].range)?;
            }
            acc = add_range(acc, r)?;
        }
        Some(acc)
    }

    /// The key of an operand inside an atom: its normal form, written out.
    fn operand_key(&mut self, t: &Dynamic<'ctx>) -> String {
        match self.form(t) {
            Some(f) => format!("{}:{:?}", f.width, f.poly),
            None => format!("ast{}", t),
        }
    }

    fn form(&mut self, t: &Dynamic<'ctx>) -> Option<Form> {
        if let Some(f) = self.memo.get(t) {
            return f.clone();
        }
        let f = self.form_uncached(t);
        self.memo.insert(t.clone(), f.clone());
        f
    }

    fn form_uncached(&mut self, t: &Dynamic<'ctx>) -> Option<Form> {
        let bv = t.as_bv()?;
        let w = bv.get_size();
        if w > 64 {
            return None;
        }
        if let Some(v) = bv.as_u64() {
            return Some(Self::constant(i128::from(v), w));
        }
        if t.kind() != AstKind::App {
            return Some(self.atom_form(format!("ast{t}"), full_unsigned(w), w, None));
        }
        let d = t.decl();
        let kids = t.children();
        let kind = d.kind();
        if kind == DeclKind::UNINTERPRETED && kids.is_empty() {
            return Some(self.symbol(&d.name(), w));
        }
        let ring = match kind {
            DeclKind::BADD | DeclKind::BSUB | DeclKind::BNEG | DeclKind::BMUL => {
                let forms: Option<Vec<Form>> = kids.iter().map(|k| self.form(k)).collect();
                forms.and_then(|fs| self.ring(kind, fs, w))
            }
            DeclKind::BSHL => match kids.get(1).and_then(|k| k.as_bv()?.as_u64()) {
                Some(c) if c < u64::from(w) => self.form(&kids[0]).and_then(|a| {
                    self.ring(DeclKind::BMUL, vec![a, Self::constant(1i128 << c, w)], w)
                }),
                _ => None,
            },
            DeclKind::ZERO_EXT | DeclKind::SIGN_EXT => self.extension(kind, &kids[0], w),
            DeclKind::CONCAT
                if kids.len() == 2 && kids[0].as_bv().and_then(|b| b.as_u64()) == Some(0) =>
            {
                self.extension(DeclKind::ZERO_EXT, &kids[1], w)
            }
            DeclKind::EXTRACT if extracts_low_bits(t) => {
                let inner = self.form(&kids[0])?;
                self.make(inner.poly, w)
            }
            _ => None,
        };
        if ring.is_some() {
            return ring;
        }
        Some(self.operation_atom(t, kind, &kids, w))
    }

    fn symbol(&mut self, name: &str, w: u32) -> Form {
        let range = self.bounds.get(name).copied().unwrap_or(full_unsigned(w));
        self.atom_form(format!("sym:{name}"), range, w, None)
    }

    fn ring(&mut self, kind: DeclKind, fs: Vec<Form>, w: u32) -> Option<Form> {
        if fs.iter().any(|f| f.width != w) {
            return None;
        }
        let mut it = fs.into_iter();
        let first = it.next()?.poly;
        let poly = match kind {
            DeclKind::BNEG => first.into_iter().map(|(m, c)| (m, -c)).collect(),
            DeclKind::BADD | DeclKind::BSUB => {
                let sign = if kind == DeclKind::BSUB { -1 } else { 1 };
                let mut acc = first;
                for f in it {
                    for (m, c) in f.poly {
                        *acc.entry(m).or_insert(0) += sign * c;
                    }
                }
                acc
            }
            _ => {
                let mut acc = first;
                for f in it {
                    let mut out: BTreeMap<Mono, i128> = BTreeMap::new();
                    for (mx, cx) in &acc {
                        for (my, cy) in &f.poly {
                            let mut m: Mono = mx.iter().chain(my).copied().collect();
                            m.sort_unstable();
                            let c = signed_rep(signed_rep(*cx, w) * signed_rep(*cy, w), w);
                            *out.entry(m).or_insert(0) += c;
                        }
                    }
                    if out.len() > MAX_MONOMIALS {
                        return None;
                    }
                    acc = out;
                }
                acc
            }
        };
        self.make(poly, w)
    }

    /// `zext`/`sext` of `inner` to width `w`: the same polynomial when its range shows that the
    /// extension adds nothing, else an atom.
    fn extension(&mut self, kind: DeclKind, inner: &Dynamic<'ctx>, w: u32) -> Option<Form> {
        let f = self.form(inner)?;
        let wi = f.width;
        let fits = self.no_wrap
            || match (kind, f.range) {
                (DeclKind::ZERO_EXT, Some((lo, hi))) => lo >= 0 && hi < pow2(wi),
                (DeclKind::SIGN_EXT, Some((lo, hi))) => lo >= -pow2(wi - 1) && hi < pow2(wi - 1),
                _ => false,
            };
        if fits {
            return self.make(f.poly, w);
        }
        let (tag, range) = if kind == DeclKind::ZERO_EXT {
            ("zext", full_unsigned(wi))
        } else {
            ("sext", (-pow2(wi - 1), pow2(wi - 1) - 1))
        };
        let key = format!("{tag}{w}({}:{:?})", wi, f.poly);
        Some(self.atom_form(key, range, w, None))
    }

    /// An operation that is not a ring operation: an atom keyed by the operation and its
    /// operands' normal forms, with the range the operation implies.
    fn operation_atom(
        &mut self,
        t: &Dynamic<'ctx>,
        kind: DeclKind,
        kids: &[Dynamic<'ctx>],
        w: u32,
    ) -> Form {
        let keys: Vec<String> = kids.iter().map(|k| self.operand_key(k)).collect();
        // The declaration as Z3 prints it names its parameters (`(_ extract 31 16)`).
        let key = format!("{kind:?}:{}:{w}({})", t.decl(), keys.join(","));
        let full = full_unsigned(w);
        let unsigned_of = |s: &mut Self, k: &Dynamic<'ctx>| -> Option<Range> {
            let f = s.form(k)?;
            f.range.filter(|r| r.0 >= 0 && r.1 < pow2(f.width))
        };
        let single_atom = |s: &mut Self, k: &Dynamic<'ctx>| -> Option<u32> {
            let f = s.form(k)?;
            let (m, c) = f.poly.iter().next()?;
            (f.poly.len() == 1 && *c == 1 && m.len() == 1).then(|| m[0])
        };
        let mut udiv_of = None;
        let range = match kind {
            DeclKind::BUDIV | DeclKind::BUDIV_I if kids.len() == 2 => {
                if let (Some(a), Some(b)) =
                    (single_atom(self, &kids[0]), single_atom(self, &kids[1]))
                {
                    udiv_of = Some((a, b));
                }
                unsigned_of(self, &kids[0]).map_or(full, |r| (0, r.1))
            }
            DeclKind::BUREM | DeclKind::BUREM_I if kids.len() == 2 => {
                let a = unsigned_of(self, &kids[0]).map_or(full.1, |r| r.1);
                let b = unsigned_of(self, &kids[1])
                    .filter(|r| r.0 >= 1)
                    .map_or(full.1, |r| r.1 - 1);
                (0, a.min(b))
            }
            DeclKind::BAND => kids
                .iter()
                .filter_map(|k| k.as_bv()?.as_u64())
                .map(|c| (0, i128::from(c)))
                .min_by_key(|r| r.1)
                .unwrap_or(full),
            DeclKind::BLSHR if kids.len() == 2 => match kids[1].as_bv().and_then(|b| b.as_u64()) {
                Some(s) if s < u64::from(w) => {
                    let hi = unsigned_of(self, &kids[0]).map_or(full.1, |r| r.1);
                    (0, hi >> s)
                }
                _ => full,
            },
            _ => full,
        };
        self.atom_form(key, range, w, udiv_of)
    }
}

/// `m` without one occurrence of each of `xs` (`None` when one is missing).
fn without(m: &Mono, xs: &[u32]) -> Option<Mono> {
    let mut rest = m.clone();
    for x in xs {
        let i = rest.iter().position(|y| y == x)?;
        rest.remove(i);
    }
    Some(rest)
}

/// True when `t` (an `extract`) keeps the lowest bits: the z3 crate has no accessor for the
/// declaration's parameters, so the extract is applied to the constant 1.
fn extracts_low_bits(t: &Dynamic<'_>) -> bool {
    let Some(inner) = t.nth_child(0).and_then(|c| c.as_bv()) else {
        return false;
    };
    let one = BV::from_u64(t.get_ctx(), 1, inner.get_size());
    let r = t.decl().apply(&[&one as &dyn Ast<'_>]).simplify();
    r.as_bv().and_then(|b| b.as_u64()) == Some(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use z3::{Config, Context};

    /// One context for the whole test process (leaked): the closures below build terms of it.
    fn context() -> &'static Context {
        Box::leak(Box::new(Context::new(&Config::new())))
    }

    fn bounds() -> HashMap<String, u64> {
        HashMap::from([
            ("tid".to_string(), 1023),
            ("ntid".to_string(), 1024),
            ("ctaid".to_string(), (1 << 21) - 1),
        ])
    }

    #[test]
    fn zero_extension_of_a_lane_index_is_exact() {
        let ctx = context();
        let mut f = RangedForms::new(&bounds(), "tid");
        let tid = BV::new_const(ctx, "tid", 32);
        let b = BV::new_const(ctx, "ctaid", 32);
        let n = BV::new_const(ctx, "ntid", 32);
        let base = BV::new_const(ctx, "base", 64);
        let nx = BV::new_const(ctx, "nx", 64);
        let j = BV::new_const(ctx, "j", 64);
        // base + 4·(j·nx + b·n + zext(tid) + 1), as clang writes 64-bit indexing.
        let addr = |t: BV<'static>| {
            let i = b.zero_ext(32).bvmul(&n.zero_ext(32)).bvadd(&t.zero_ext(32));
            base.bvadd(
                &j.bvmul(&nx)
                    .bvadd(&i)
                    .bvadd(&BV::from_u64(ctx, 1, 64))
                    .bvshl(&BV::from_u64(ctx, 2, 64)),
            )
        };
        let lane = tid.bvadd(&BV::from_i64(ctx, 1, 32));
        // Lane tid+1's address is ours plus 4.
        let d = addr(tid.clone()).bvadd(&BV::from_u64(ctx, 4, 64));
        assert!(f.equal(&d, &addr(lane.clone()), 1));
        assert_eq!(
            f.difference(&addr(lane.clone()), &addr(tid.clone()), 1),
            Some(4)
        );
        // Shuffling up: tid−1 ≥ 0 by the premise, so zext(tid − 1) is exact too.
        let up = tid.bvadd(&BV::from_i64(ctx, -1, 32));
        assert_eq!(
            f.difference(&addr(up.clone()), &addr(tid.clone()), -1),
            Some(-4)
        );
    }

    #[test]
    fn wrapping_32_bit_indices_are_not_equal() {
        let ctx = context();
        let mut f = RangedForms::new(&bounds(), "tid");
        let tid = BV::new_const(ctx, "tid", 32);
        let nx = BV::new_const(ctx, "nx", 32);
        let y = BV::new_const(ctx, "y", 32);
        // sext(y·nx + tid) + 1 vs sext(y·nx + tid + 1): equal unless y·nx + tid = 2^31 − 1.
        let idx = |t: BV<'static>| y.bvmul(&nx).bvadd(&t);
        let a = idx(tid.clone())
            .sign_ext(32)
            .bvadd(&BV::from_u64(ctx, 1, 64));
        let lane = tid.bvadd(&BV::from_i64(ctx, 1, 32));
        let b = idx(lane.clone()).sign_ext(32);
        assert!(!f.equal(&a, &b, 1));
        // The same 32-bit index on both sides is equal whatever it is.
        let c = idx(tid.clone())
            .bvadd(&BV::from_u64(ctx, 1, 32))
            .sign_ext(32);
        assert!(f.equal(&b, &c, 1));
    }

    #[test]
    fn block_ids_split_with_div_and_rem_are_bounded() {
        let ctx = context();
        let mut f = RangedForms::new(&bounds(), "tid");
        let tid = BV::new_const(ctx, "tid", 32);
        let b = BV::new_const(ctx, "ctaid", 32);
        let n = BV::new_const(ctx, "ntid", 32);
        let nb = BV::new_const(ctx, "nbx", 32);
        // bx = b − (b ÷ nbx)·nbx, x = bx·ntid + tid; sext(x) + 2 = sext(x at lane + 2). (With
        // `+ 1` in x this would be false: bx = 2^21 − 1, ntid = 1024, tid + 2 = 1023 wraps.)
        let bx = b.bvsub(&b.bvudiv(&nb).bvmul(&nb));
        let x = |t: BV<'static>| bx.bvmul(&n).bvadd(&t);
        let lane = tid.bvadd(&BV::from_i64(ctx, 2, 32));
        let a = x(tid.clone()).sign_ext(32).bvadd(&BV::from_u64(ctx, 2, 64));
        assert!(f.equal(&a, &x(lane.clone()).sign_ext(32), 2));
        // Without the bound (b unbounded), the same shape stays apart.
        let mut g = RangedForms::new(&HashMap::new(), "tid");
        assert!(!g.equal(&a, &x(lane.clone()).sign_ext(32), 2));
        // With `+ 1` it wraps at the largest launch: not equal, but equal if nothing wraps.
        let x1 = |t: BV<'static>| x(t).bvadd(&BV::from_u64(ctx, 1, 32));
        let a1 = x1(tid.clone())
            .sign_ext(32)
            .bvadd(&BV::from_u64(ctx, 2, 64));
        assert!(!f.equal(&a1, &x1(lane.clone()).sign_ext(32), 2));
        assert!(f.equal_without_wrap(&a1, &x1(lane.clone()).sign_ext(32), 2));
    }

    #[test]
    fn agrees_with_evaluation_on_samples() {
        // The normal form's constant differences are checked against Z3's own evaluation of the
        // two terms at sample points within the ranges.
        let ctx = context();
        let mut f = RangedForms::new(&bounds(), "tid");
        let tid = BV::new_const(ctx, "tid", 32);
        let b = BV::new_const(ctx, "ctaid", 32);
        let n = BV::new_const(ctx, "ntid", 32);
        let p = BV::new_const(ctx, "p", 64);
        let term = |t: BV<'static>| {
            let i = b.bvmul(&n).bvadd(&t).sign_ext(32);
            p.bvadd(&i.bvmul(&BV::from_u64(ctx, 8, 64)))
                .bvadd(&t.bvurem(&BV::from_u64(ctx, 32, 32)).zero_ext(32))
        };
        let lane = tid.bvadd(&BV::from_i64(ctx, 3, 32));
        // urem(tid+3, 32) is not tid's urem + 3: no constant difference may be claimed.
        assert_eq!(
            f.difference(&term(lane.clone()), &term(tid.clone()), 3),
            None
        );
        let lin = |t: BV<'static>| {
            p.bvadd(
                &b.bvmul(&n)
                    .bvadd(&t)
                    .sign_ext(32)
                    .bvmul(&BV::from_u64(ctx, 8, 64)),
            )
        };
        let d = f
            .difference(&lin(lane.clone()), &lin(tid.clone()), 3)
            .expect("linear");
        assert_eq!(d, 24);
        for (tv, bv, nv) in [
            (0u64, 0u64, 32u64),
            (5, 77, 1024),
            (1020, (1 << 21) - 1, 1024),
        ] {
            let tl = tv + 3;
            let subst = |x: BV<'static>, t: u64| {
                x.substitute(&[
                    (&tid, &BV::from_u64(ctx, t, 32)),
                    (&b, &BV::from_u64(ctx, bv, 32)),
                    (&n, &BV::from_u64(ctx, nv, 32)),
                    (&p, &BV::from_u64(ctx, 1 << 40, 64)),
                ])
                .simplify()
                .as_u64()
                .expect("numeral")
            };
            let here = subst(lin(tid.clone()), tv);
            let there = subst(lin(tid.clone()), tl);
            assert_eq!(there.wrapping_sub(here) as i64, d);
        }
    }
}
