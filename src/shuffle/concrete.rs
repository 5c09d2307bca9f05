//! Concrete witnesses for the queries of shuffle synthesis: a few fixed assignments of the
//! kernel's symbols, under which Z3 terms are evaluated in Rust, without a solver call.
//!
//! A witness only ever ANSWERS "satisfiable": when the launch assumptions and the facts all
//! evaluate to true under it, it is a model (every uninterpreted constant and function gets the
//! value the witness chose; products are computed exactly, so the linearised query of
//! [`super::prove`] is satisfiable as well). It never proves anything: when no witness fits,
//! the query goes to Z3. Most queries of the symbolic emulation (paper §4: is this branch side
//! feasible?) are satisfiable, and this is what keeps them out of Z3 (the analysis-time target
//! of PTXASW's Table 2, CC'23). Terms with an operation the evaluator does not know are left
//! to Z3.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use z3::ast::{Ast, Dynamic};
use z3::{AstKind, DeclKind};

/// A value: a Boolean or a bit-vector of at most 128 bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum V {
    B(bool),
    Bv(u128, u32),
}

fn mask(w: u32) -> u128 {
    if w >= 128 {
        u128::MAX
    } else {
        (1u128 << w) - 1
    }
}

fn signed(v: u128, w: u32) -> i128 {
    if w == 0 || w >= 128 {
        return v as i128;
    }
    let v = v & mask(w);
    if v >> (w - 1) & 1 == 1 {
        (v as i128) - (1i128 << w)
    } else {
        v as i128
    }
}

/// How a witness picks the values of symbols it has not seen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// Kernel arguments and unknown values in [512, 4096), global indices below 384: typical
    /// in-range sizes.
    Mid,
    /// In [0, 16): small sizes, threads out of range.
    Small,
    /// Anything (a hash of the name).
    Wide,
    /// Each value from a menu (0, 1, −1, small, typical, anything), by a hash of the name:
    /// different scales for different arguments (`i < nx` with `ny ≤ 0`).
    Mixed,
}

/// A candidate change: the atom it is for, the open term, its new value.
type Fix<'ctx> = (Dynamic<'ctx>, Dynamic<'ctx>, u128);

/// One assignment of every symbol (chosen lazily, then fixed).
pub struct Witness<'ctx> {
    strategy: Strategy,
    seed: u64,
    consts: HashMap<String, u128>,
    ufs: HashMap<(String, Vec<u128>), u128>,
    memo: HashMap<Dynamic<'ctx>, Option<V>>,
    /// The low bit of each `extract` (keyed by the extract applied to a probe constant),
    /// shared by every fork: asking Z3 to simplify each application instead cost most of the
    /// analysis time on long paths.
    extract_lows: Rc<RefCell<HashMap<Dynamic<'ctx>, Option<u32>>>>,
}

fn hash(seed: u64, s: &str, extra: &[u128]) -> u64 {
    // FNV-1a, then a mixer: deterministic across runs.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ seed.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    for e in extra {
        for b in e.to_le_bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x100_0000_01b3);
        }
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^ (h >> 33)
}

impl<'ctx> Witness<'ctx> {
    /// A witness with launch values that satisfy the launch assumptions of
    /// [`super::symexec::launch_assumptions`] (they are still checked by evaluation).
    pub fn new(strategy: Strategy, seed: u64) -> Witness<'ctx> {
        let mut consts = HashMap::new();
        let h = |s: &str| hash(seed, s, &[]);
        // ntid ≥ 1, tid < ntid, ctaid < nctaid, within the CUDA limits.
        let (ntid, nctaid): ([u128; 3], [u128; 3]) = match strategy {
            Strategy::Small => ([32, 2, 1], [2, 2, 1]),
            Strategy::Mixed => ([64, 3, 1], [12, 5, 2]),
            Strategy::Mid => ([128, 4, 2], [3, 3, 2]),
            Strategy::Wide => (
                [
                    u128::from(h("ntx") % 1024 + 1),
                    u128::from(h("nty") % 1024 + 1),
                    u128::from(h("ntz") % 64 + 1),
                ],
                [
                    u128::from(h("nbx") % (1 << 21) + 1),
                    u128::from(h("nby") % 65535 + 1),
                    u128::from(h("nbz") % 65535 + 1),
                ],
            ),
        };
        let dims = ["x", "y", "z"];
        for c in 0..3 {
            let d = dims[c];
            let t = u128::from(h(&format!("t{d}"))) % ntid[c];
            let b = u128::from(h(&format!("b{d}"))) % nctaid[c];
            consts.insert(format!("%tid.{d}"), t);
            consts.insert(format!("%ntid.{d}"), ntid[c]);
            consts.insert(format!("%ctaid.{d}"), b);
            consts.insert(format!("%nctaid.{d}"), nctaid[c]);
        }
        Witness {
            strategy,
            seed,
            consts,
            ufs: HashMap::new(),
            memo: HashMap::new(),
            extract_lows: Rc::default(),
        }
    }

    /// A copy with the same choices and an empty cache.
    fn fork(&self) -> Witness<'ctx> {
        Witness {
            strategy: self.strategy,
            seed: self.seed,
            consts: self.consts.clone(),
            ufs: self.ufs.clone(),
            memo: HashMap::new(),
            extract_lows: Rc::clone(&self.extract_lows),
        }
    }

    /// Sets the value of `t` when it is a constant or an application of an uninterpreted
    /// function (whose arguments are evaluated here); `false` otherwise.
    fn set(&mut self, t: &Dynamic<'ctx>, v: u128) -> bool {
        if t.kind() != AstKind::App || t.decl().kind() != DeclKind::UNINTERPRETED {
            return false;
        }
        let Some(w) = Self::width(t) else {
            return false;
        };
        let name = t.decl().name();
        let n = t.num_children();
        if n == 0 {
            self.consts.insert(name, v & mask(w));
            return true;
        }
        let mut args = Vec::with_capacity(n + 1);
        for c in t.children() {
            match self.eval(&c) {
                Some(V::Bv(x, _)) => args.push(x),
                Some(V::B(b)) => args.push(u128::from(b)),
                None => return false,
            }
        }
        args.push(n as u128);
        self.ufs.insert((name, args), v & mask(w));
        true
    }

    /// The open term (constant or uninterpreted application) and its value that make `t`
    /// equal `v`: `t` is open, or a sum with one solvable operand (the others evaluated), or a
    /// product of a constant and a solvable operand when the constant divides the value (an
    /// induction variable `init + k·step` is solved for `k`).
    fn solve(&mut self, t: &Dynamic<'ctx>, v: u128) -> Option<(Dynamic<'ctx>, u128)> {
        self.solve_depth(t, v, 0)
    }

    fn solve_depth(
        &mut self,
        t: &Dynamic<'ctx>,
        v: u128,
        depth: u32,
    ) -> Option<(Dynamic<'ctx>, u128)> {
        if t.kind() != AstKind::App || depth > 4 {
            return None;
        }
        let w = Self::width(t)?;
        let v = v & mask(w);
        match t.decl().kind() {
            DeclKind::UNINTERPRETED => Some((t.clone(), v)),
            DeclKind::BADD => {
                let kids = t.children();
                for (i, c) in kids.iter().enumerate() {
                    if c.kind() != AstKind::App {
                        continue;
                    }
                    let mut rest: u128 = 0;
                    let mut ok = true;
                    for (j, o) in kids.iter().enumerate() {
                        if j == i {
                            continue;
                        }
                        match self.eval(o) {
                            Some(V::Bv(x, _)) => rest = rest.wrapping_add(x),
                            _ => {
                                ok = false;
                                break;
                            }
                        }
                    }
                    if !ok {
                        return None;
                    }
                    if let Some(r) = self.solve_depth(c, v.wrapping_sub(rest) & mask(w), depth + 1)
                    {
                        return Some(r);
                    }
                }
                None
            }
            DeclKind::BMUL if t.num_children() == 2 => {
                let kids = t.children();
                for (n, c) in [(&kids[0], &kids[1]), (&kids[1], &kids[0])] {
                    let Some(k) = n.as_bv().and_then(|b| b.as_u64()).map(u128::from) else {
                        continue;
                    };
                    if k != 0 && v % k == 0 {
                        return self.solve_depth(c, v / k, depth + 1);
                    }
                }
                None
            }
            _ => None,
        }
    }

    /// Changes to one open term that may make an atomic comparison under `f` (`a = b`,
    /// `a <s b`…, under negations, conjunctions and disjunctions) true or false: the open term
    /// of one side set to the other side's value, plus or minus one. With each, the atom.
    fn fixes(&mut self, f: &Dynamic<'ctx>, depth: u32, out: &mut Vec<Fix<'ctx>>) {
        if depth > 4 || f.kind() != AstKind::App {
            return;
        }
        let k = f.decl().kind();
        if matches!(k, DeclKind::NOT | DeclKind::AND | DeclKind::OR) {
            for c in f.children() {
                self.fixes(&c, depth + 1, out);
            }
            return;
        }
        if f.num_children() != 2 {
            return;
        }
        let (Some(l), Some(r)) = (f.nth_child(0), f.nth_child(1)) else {
            return;
        };
        for (side, other) in [(&l, &r), (&r, &l)] {
            let Some(V::Bv(v, _)) = self.eval(other) else {
                continue;
            };
            for d in [0u128, 1, u128::MAX] {
                if let Some((t, x)) = self.solve(side, v.wrapping_add(d)) {
                    out.push((f.clone(), t, x));
                }
            }
        }
    }

    /// A witness that satisfies all of `fs`, made from this one by changing the values of
    /// constants or uninterpreted applications ([`Witness::fixes`]) for the first false
    /// formula, a few times over: a change that makes it true, else one that flips one of
    /// its atoms. Every formula is re-evaluated after each change, so the result is checked
    /// like any witness.
    pub fn repaired(&mut self, fs: &[Dynamic<'ctx>]) -> Option<Witness<'ctx>> {
        let mut cur: Option<Witness<'ctx>> = None;
        for _ in 0..6 {
            let w = cur.as_mut().unwrap_or(self);
            let mut bad = None;
            for f in fs {
                match w.eval(f)? {
                    V::B(true) => {}
                    V::B(false) => {
                        bad = Some(f.clone());
                        break;
                    }
                    V::Bv(..) => return None,
                }
            }
            let Some(f) = bad else {
                return cur;
            };
            let mut cands = Vec::new();
            w.fixes(&f, 0, &mut cands);
            let mut next = None;
            let mut flip = None;
            for (atom, t, v) in cands {
                let before = w.eval(&atom);
                let mut n = w.fork();
                if !n.set(&t, v) {
                    continue;
                }
                if n.eval(&f) == Some(V::B(true)) {
                    next = Some(n);
                    break;
                }
                if flip.is_none() && n.eval(&atom) != before {
                    flip = Some(n);
                }
            }
            cur = Some(next.or(flip)?);
        }
        let mut w = cur?;
        (w.satisfies(fs) == Some(true)).then_some(w)
    }

    fn fresh(&self, name: &str, args: &[u128], w: u32) -> u128 {
        let h = hash(self.seed, name, args);
        let v = match self.strategy {
            Strategy::Mid => u128::from(h % 3584 + 512),
            Strategy::Small => u128::from(h % 16),
            Strategy::Wide => u128::from(h) | (u128::from(hash(self.seed ^ 1, name, args)) << 64),
            Strategy::Mixed => match h % 6 {
                0 => 0,
                1 => 1,
                2 => u128::MAX,
                3 => u128::from(h >> 8) % 16,
                4 => u128::from(h >> 8) % 3968 + 128,
                _ => u128::from(h >> 8),
            },
        };
        v & mask(w)
    }

    /// Whether every formula is true under this witness (`None`: cannot tell).
    pub fn satisfies(&mut self, fs: &[Dynamic<'ctx>]) -> Option<bool> {
        for f in fs {
            match self.eval(f)? {
                V::B(true) => {}
                V::B(false) => return Some(false),
                V::Bv(..) => return None,
            }
        }
        Some(true)
    }

    /// The value of a formula.
    pub fn eval_bool(&mut self, f: &Dynamic<'ctx>) -> Option<bool> {
        match self.eval(f)? {
            V::B(b) => Some(b),
            V::Bv(..) => None,
        }
    }

    /// The value of a bit-vector term (at most 64 bits), as its low 64 bits.
    pub fn eval_u64(&mut self, t: &Dynamic<'ctx>) -> Option<u64> {
        match self.eval(t)? {
            V::Bv(v, w) if w <= 64 => Some(v as u64),
            _ => None,
        }
    }

    fn eval(&mut self, t: &Dynamic<'ctx>) -> Option<V> {
        if let Some(v) = self.memo.get(t) {
            return *v;
        }
        let v = self.eval_uncached(t);
        self.memo.insert(t.clone(), v);
        v
    }

    /// The low bit `LO` of the `extract` declaration `d` (operand width `wa`, result width `w`).
    /// The z3 crate has no accessor for a declaration's parameters, so it is read from the
    /// SMT-LIB text of `d` applied to a probe constant, `((_ extract HI LO) probe)`, once per
    /// declaration; `None` when that text is not understood.
    fn extract_low(
        &self,
        ctx: &'ctx z3::Context,
        d: &z3::FuncDecl<'ctx>,
        wa: u32,
        w: u32,
    ) -> Option<u32> {
        let probe = z3::ast::BV::new_const(ctx, "ws_extract_probe", wa);
        let key = d.apply(&[&probe as &dyn Ast<'ctx>]);
        if let Some(lo) = self.extract_lows.borrow().get(&key) {
            return *lo;
        }
        let lo = parse_extract(&key.to_string())
            .and_then(|(hi, lo)| (hi >= lo && hi < wa && hi - lo + 1 == w).then_some(lo));
        self.extract_lows.borrow_mut().insert(key, lo);
        lo
    }

    fn width(t: &Dynamic<'ctx>) -> Option<u32> {
        let w = t.as_bv()?.get_size();
        (w <= 128).then_some(w)
    }

    fn eval_uncached(&mut self, t: &Dynamic<'ctx>) -> Option<V> {
        match t.kind() {
            AstKind::Numeral => {
                let bv = t.as_bv()?;
                let w = bv.get_size();
                if w > 64 {
                    return None;
                }
                return Some(V::Bv(u128::from(bv.as_u64()?), w));
            }
            AstKind::App => {}
            _ => return None,
        }
        let d = t.decl();
        let k = d.kind();
        let n = t.num_children();
        if k == DeclKind::UNINTERPRETED {
            let w = Self::width(t)?;
            let name = d.name();
            if n == 0 {
                if let Some(v) = self.consts.get(&name) {
                    return Some(V::Bv(*v & mask(w), w));
                }
                let v = self.fresh(&name, &[], w);
                self.consts.insert(name, v);
                return Some(V::Bv(v, w));
            }
            let mut args = Vec::with_capacity(n);
            for c in t.children() {
                match self.eval(&c)? {
                    V::Bv(v, _) => args.push(v),
                    V::B(b) => args.push(u128::from(b)),
                }
            }
            args.push(n as u128);
            let key = (name, args);
            if let Some(v) = self.ufs.get(&key) {
                return Some(V::Bv(*v, w));
            }
            let v = self.fresh(&key.0, &key.1, w);
            self.ufs.insert(key, v);
            return Some(V::Bv(v, w));
        }
        match k {
            DeclKind::TRUE => return Some(V::B(true)),
            DeclKind::FALSE => return Some(V::B(false)),
            DeclKind::ITE => {
                let c = t.nth_child(0)?;
                let branch = match self.eval(&c)? {
                    V::B(true) => t.nth_child(1)?,
                    V::B(false) => t.nth_child(2)?,
                    V::Bv(..) => return None,
                };
                return self.eval(&branch);
            }
            DeclKind::AND | DeclKind::OR => {
                // Short-circuit; an unknown operand only matters if nothing decides.
                let want = k == DeclKind::OR;
                let mut unknown = false;
                for c in t.children() {
                    match self.eval(&c) {
                        Some(V::B(b)) if b == want => return Some(V::B(want)),
                        Some(V::B(_)) => {}
                        _ => unknown = true,
                    }
                }
                return if unknown { None } else { Some(V::B(!want)) };
            }
            _ => {}
        }
        let mut vals = Vec::with_capacity(n);
        for c in t.children() {
            vals.push(self.eval(&c)?);
        }
        let bv = |i: usize| -> Option<(u128, u32)> {
            match vals.get(i)? {
                V::Bv(v, w) => Some((*v, *w)),
                V::B(_) => None,
            }
        };
        let b = |i: usize| -> Option<bool> {
            match vals.get(i)? {
                V::B(b) => Some(*b),
                V::Bv(..) => None,
            }
        };
        let out_bv = |v: u128, w: u32| Some(V::Bv(v & mask(w), w));
        match k {
            DeclKind::NOT => Some(V::B(!b(0)?)),
            DeclKind::IMPLIES => Some(V::B(!b(0)? || b(1)?)),
            DeclKind::IFF => Some(V::B(b(0)? == b(1)?)),
            DeclKind::XOR => Some(V::B(b(0)? != b(1)?)),
            DeclKind::EQ => Some(V::B(vals.windows(2).all(|p| p[0] == p[1]))),
            DeclKind::DISTINCT => {
                for i in 0..vals.len() {
                    for j in i + 1..vals.len() {
                        if vals[i] == vals[j] {
                            return Some(V::B(false));
                        }
                    }
                }
                Some(V::B(true))
            }
            DeclKind::BADD | DeclKind::BMUL | DeclKind::BAND | DeclKind::BOR | DeclKind::BXOR => {
                let (mut acc, w) = bv(0)?;
                for i in 1..vals.len() {
                    let (x, _) = bv(i)?;
                    acc = match k {
                        DeclKind::BADD => acc.wrapping_add(x),
                        DeclKind::BMUL => acc.wrapping_mul(x),
                        DeclKind::BAND => acc & x,
                        DeclKind::BOR => acc | x,
                        _ => acc ^ x,
                    } & mask(w);
                }
                out_bv(acc, w)
            }
            DeclKind::BSUB => {
                let (mut acc, w) = bv(0)?;
                for i in 1..vals.len() {
                    acc = acc.wrapping_sub(bv(i)?.0) & mask(w);
                }
                out_bv(acc, w)
            }
            DeclKind::BNEG => {
                let (a, w) = bv(0)?;
                out_bv(a.wrapping_neg(), w)
            }
            DeclKind::BNOT => {
                let (a, w) = bv(0)?;
                out_bv(!a, w)
            }
            DeclKind::BUDIV | DeclKind::BUDIV_I | DeclKind::BUREM | DeclKind::BUREM_I => {
                let ((a, w), (y, _)) = (bv(0)?, bv(1)?);
                let div = matches!(k, DeclKind::BUDIV | DeclKind::BUDIV_I);
                match (y, div) {
                    (0, true) => out_bv(u128::MAX, w),
                    (0, false) => out_bv(a, w),
                    (_, true) => out_bv(a / y, w),
                    (_, false) => out_bv(a % y, w),
                }
            }
            DeclKind::BSDIV | DeclKind::BSDIV_I | DeclKind::BSREM | DeclKind::BSREM_I => {
                let ((a, w), (y, _)) = (bv(0)?, bv(1)?);
                if w >= 128 {
                    return None;
                }
                let (sa, sy) = (signed(a, w), signed(y, w));
                let div = matches!(k, DeclKind::BSDIV | DeclKind::BSDIV_I);
                let r = match (sy, div) {
                    (0, true) => {
                        if sa >= 0 {
                            -1
                        } else {
                            1
                        }
                    }
                    (0, false) => sa,
                    (_, true) => sa.wrapping_div(sy),
                    (_, false) => sa.wrapping_rem(sy),
                };
                out_bv(r as u128, w)
            }
            DeclKind::ULEQ | DeclKind::UGEQ | DeclKind::ULT | DeclKind::UGT => {
                let ((a, _), (y, _)) = (bv(0)?, bv(1)?);
                Some(V::B(match k {
                    DeclKind::ULEQ => a <= y,
                    DeclKind::UGEQ => a >= y,
                    DeclKind::ULT => a < y,
                    _ => a > y,
                }))
            }
            DeclKind::SLEQ | DeclKind::SGEQ | DeclKind::SLT | DeclKind::SGT => {
                let ((a, w), (y, _)) = (bv(0)?, bv(1)?);
                let (a, y) = (signed(a, w), signed(y, w));
                Some(V::B(match k {
                    DeclKind::SLEQ => a <= y,
                    DeclKind::SGEQ => a >= y,
                    DeclKind::SLT => a < y,
                    _ => a > y,
                }))
            }
            DeclKind::BCOMP => Some(V::Bv(u128::from(bv(0)? == bv(1)?), 1)),
            DeclKind::CONCAT => {
                let mut acc: u128 = 0;
                let mut w: u32 = 0;
                for i in 0..vals.len() {
                    let (x, wx) = bv(i)?;
                    w += wx;
                    if w > 128 {
                        return None;
                    }
                    acc = if wx >= 128 { x } else { (acc << wx) | x };
                }
                out_bv(acc, w)
            }
            DeclKind::ZERO_EXT => {
                let (a, _) = bv(0)?;
                out_bv(a, Self::width(t)?)
            }
            DeclKind::SIGN_EXT => {
                let (a, wa) = bv(0)?;
                out_bv(signed(a, wa) as u128, Self::width(t)?)
            }
            DeclKind::EXTRACT => {
                let (a, wa) = bv(0)?;
                let w = Self::width(t)?;
                if let Some(lo) = self.extract_low(t.get_ctx(), &d, wa, w) {
                    return out_bv(a >> lo, w);
                }
                // The low bit could not be read: Z3 applies the same `extract` to the
                // operand's value.
                if wa > 64 {
                    return None;
                }
                let ctx = t.get_ctx();
                let num = z3::ast::BV::from_u64(ctx, a as u64, wa);
                let r = d.apply(&[&num as &dyn Ast<'ctx>]).simplify();
                let w = Self::width(&r)?;
                Some(V::Bv(u128::from(r.as_bv()?.as_u64()?), w))
            }
            DeclKind::BSHL | DeclKind::BLSHR | DeclKind::BASHR => {
                let ((a, w), (s, _)) = (bv(0)?, bv(1)?);
                let s = if s >= u128::from(w) { w } else { s as u32 };
                let r = match k {
                    DeclKind::BSHL => a.checked_shl(s).unwrap_or(0),
                    DeclKind::BLSHR => a.checked_shr(s).unwrap_or(0),
                    _ => {
                        if w >= 128 {
                            return None;
                        }
                        let sa = signed(a, w);
                        (sa >> s.min(127)) as u128
                    }
                };
                out_bv(r, w)
            }
            _ => None,
        }
    }
}

/// `(HI, LO)` from SMT-LIB text that starts with `((_ extract HI LO)`.
fn parse_extract(text: &str) -> Option<(u32, u32)> {
    let rest = text.strip_prefix("((_ extract ")?;
    let (params, _) = rest.split_once(')')?;
    let mut it = params.split_whitespace().map(|x| x.parse::<u32>().ok());
    match (it.next()??, it.next()??, it.next()) {
        (hi, lo, None) => Some((hi, lo)),
        _ => None,
    }
}

/// The witnesses tried, in order, before a query goes to Z3.
pub fn candidates<'ctx>() -> Vec<Witness<'ctx>> {
    vec![
        Witness::new(Strategy::Mid, 1),
        Witness::new(Strategy::Small, 2),
        Witness::new(Strategy::Mid, 3),
        Witness::new(Strategy::Wide, 4),
        Witness::new(Strategy::Small, 5),
        Witness::new(Strategy::Wide, 6),
        Witness::new(Strategy::Mixed, 7),
        Witness::new(Strategy::Mixed, 8),
        Witness::new(Strategy::Mixed, 9),
        Witness::new(Strategy::Mixed, 10),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use z3::ast::{Bool, BV};
    use z3::{Config, Context, SatResult, Solver};

    /// `extract` is evaluated from its bit range read once per declaration, not by Z3.
    #[test]
    fn extract_reads_its_bit_range_once() {
        assert_eq!(parse_extract("((_ extract 17 5) x)"), Some((17, 5)));
        assert_eq!(parse_extract("((_ extract 17) x)"), None);
        assert_eq!(parse_extract("((_ zero_extend 4) x)"), None);
        let ctx = Context::new(&Config::new());
        let x = BV::new_const(&ctx, "x", 64);
        let mut w = Witness::new(Strategy::Wide, 3);
        let xv = w.eval_u64(&Dynamic::from_ast(&x)).expect("x");
        for (hi, lo) in [(17, 5), (63, 32), (0, 0), (17, 5)] {
            let e = Dynamic::from_ast(&x.extract(hi, lo));
            let want = (xv >> lo) & (u64::MAX >> (63 - (hi - lo)));
            assert_eq!(w.eval_u64(&e), Some(want), "extract {hi} {lo}");
        }
        let lows: Vec<Option<u32>> = w.extract_lows.borrow().values().copied().collect();
        assert_eq!(lows.len(), 3, "{lows:?}");
        assert!(lows.iter().all(|l| l.is_some()), "{lows:?}");
    }

    /// The evaluator agrees with Z3 on terms with every operation it knows, and a witness
    /// that satisfies a formula is a real model (Z3 agrees when the values are fixed).
    #[test]
    fn agrees_with_z3() {
        let ctx = Context::new(&Config::new());
        let x = BV::new_const(&ctx, "x", 32);
        let y = BV::new_const(&ctx, "y", 32);
        let n = |v: u64| BV::from_u64(&ctx, v, 32);
        let terms: Vec<BV> = vec![
            x.bvadd(&y).bvmul(&n(7)),
            x.bvsub(&y),
            x.bvudiv(&y),
            x.bvurem(&n(0)),
            x.bvsdiv(&y.bvneg()),
            x.bvsrem(&y),
            x.bvshl(&n(3)).bvlshr(&n(1)),
            x.bvashr(&n(40)),
            x.bvand(&y).bvor(&x.bvnot()).bvxor(&y),
            x.sign_ext(32).extract(47, 16),
            x.zero_ext(32).extract(63, 32),
            x.concat(&y).extract(40, 9),
            // 128-bit operands (a 64-bit `mul.hi`): no Z3 fallback there.
            x.zero_ext(96).bvmul(&y.zero_ext(96)).extract(95, 32),
            x.sign_ext(96).bvmul(&y.sign_ext(96)).extract(127, 64),
            x.bvslt(&y).ite(&x, &y),
        ];
        for s in [
            Strategy::Mid,
            Strategy::Small,
            Strategy::Wide,
            Strategy::Mixed,
        ] {
            for seed in 0..3 {
                let mut w = Witness::new(s, seed);
                let xv = w.eval_u64(&Dynamic::from_ast(&x)).unwrap();
                let yv = w.eval_u64(&Dynamic::from_ast(&y)).unwrap();
                for t in &terms {
                    let got = w.eval_u64(&Dynamic::from_ast(t)).unwrap();
                    let fixed = t
                        .substitute(&[(&x, &n(xv)), (&y, &n(yv))])
                        .simplify()
                        .as_u64()
                        .unwrap();
                    assert_eq!(got, fixed, "{t} under x={xv} y={yv} ({s:?})");
                }
                let f = x.bvult(&y).not();
                let holds = w.eval_bool(&Dynamic::from_ast(&f)).unwrap();
                let solver = Solver::new(&ctx);
                solver.assert(&f);
                solver.assert(&x._eq(&n(xv)));
                solver.assert(&y._eq(&n(yv)));
                let expect = if holds {
                    SatResult::Sat
                } else {
                    SatResult::Unsat
                };
                assert_eq!(solver.check(), expect);
            }
        }
        // An unknown operation: no answer.
        let r = Bool::new_const(&ctx, "r");
        let mut w = Witness::new(Strategy::Mid, 0);
        assert_eq!(w.eval_bool(&Dynamic::from_ast(&r)), None);
    }

    /// Repairs solve equations and comparisons on open terms, and the result is checked.
    #[test]
    fn repair_finds_models_of_equations_on_loads() {
        use z3::{FuncDecl, Sort};
        let ctx = Context::new(&Config::new());
        let bv32 = Sort::bitvector(&ctx, 32);
        let load = FuncDecl::new(&ctx, "load", &[&bv32], &bv32);
        let x = BV::new_const(&ctx, "x", 32);
        let n = BV::new_const(&ctx, "n", 32);
        let k = |v: u64| BV::from_u64(&ctx, v, 32);
        let lx = load.apply(&[&x as &dyn Ast]).as_bv().unwrap();
        // load(x) + 2 = 5, x <s n, n ≤s 0 is unsatisfiable without negative x: x = -3.
        let facts: Vec<Dynamic> = vec![
            Dynamic::from_ast(&lx.bvadd(&k(2))._eq(&k(5))),
            Dynamic::from_ast(&x.bvslt(&n)),
            Dynamic::from_ast(&n.bvsle(&k(0))),
        ];
        let mut found = None;
        for mut w in candidates() {
            if w.satisfies(&facts) == Some(true) {
                found = Some(w);
                break;
            }
            if let Some(r) = w.repaired(&facts) {
                found = Some(r);
                break;
            }
        }
        let mut w = found.expect("a repaired witness");
        assert_eq!(w.satisfies(&facts), Some(true));
        assert_eq!(w.eval_u64(&Dynamic::from_ast(&lx)), Some(3));
        // Contradictory facts: no witness, repaired or not.
        let bad = vec![
            Dynamic::from_ast(&x.bvult(&k(3))),
            Dynamic::from_ast(&x.bvugt(&k(5))),
        ];
        for mut w in candidates() {
            assert_ne!(w.satisfies(&bad), Some(true));
            assert!(w.repaired(&bad).is_none());
        }
    }
}
