//! The abstract domain of the affine divergence analysis: Sampaio et al., "Spill Code Placement for
//! SIMD Machines", §2 (the lattice `A = C × C` of expressions `a1·T + a2`, where `C` is the
//! constant-propagation lattice ⊤ / integers / ⊥), extended in three ways:
//!
//! - **Scope.** A lane-independent part (`a2` when it is ⊥, "some uniform value") is either
//!   *block-uniform* (the same in every warp of the thread block: parameters, `%ctaid`, `%ntid` and
//!   what is computed from them along block-uniform control flow) or only *warp-uniform* (the same
//!   on the active lanes of one warp). Constants are block-uniform.
//! - **Alignment.** The number of known trailing zero bits of the base `a2` (a small "known bits"
//!   lattice). With it, `%tid.x >> 5` (the warp index) is uniform and `%tid.x & 31` is the lane.
//! - **Exactness.** Machine arithmetic wraps modulo `2^w`; `c·T + b` then holds modulo `2^w` only.
//!   Sign- and zero-extension keep the affine form only when no lane of the warp wraps: the
//!   `signed`/`unsigned` exactness bits say that the signed (unsigned) reading of the value is
//!   `c·lane + B` for a warp-uniform integer `B`, without wrapping. They come from the sources
//!   (`%tid`, `%laneid`), from no-wrap flags (LLVM `nsw`/`nuw`) and from the alignment.
//!
//! `T` is the lane's position in its warp (`%laneid`, 0..31). An [`Abs`] with coefficient `c` and
//! base `b` says: on every execution, the active lanes of a warp hold `c·lane + b` modulo `2^w`
//! (`w` the bit width of the value), with `b` the same on those lanes (and, for block scope, the same
//! in every warp of the block at the same dynamic point). Integers are kept normalised to the value's
//! width: sign-extended from `w` bits (predicates, `w = 1`, hold 0 or 1).

use std::fmt;

use serde::Serialize;

/// An element of the constant lattice `C`: ⊤ (nothing known yet), an integer, or ⊥ (not a
/// compile-time constant).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Coef {
    /// ⊤: no information yet (optimistic start; unreachable definitions).
    Top,
    /// A known integer, normalised to the value's width.
    Int(i64),
    /// ⊥: not a compile-time constant.
    Bottom,
}

impl Coef {
    /// The meet `c1 ∧ c2` of the paper: ⊤ is the identity, equal integers stay, anything else is ⊥.
    pub fn meet(self, other: Coef) -> Coef {
        match (self, other) {
            (Coef::Top, x) | (x, Coef::Top) => x,
            (Coef::Int(a), Coef::Int(b)) if a == b => Coef::Int(a),
            _ => Coef::Bottom,
        }
    }
}

/// How widely a lane-independent value is shared. Ordered: `Warp < Block`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// The same on the active lanes of one warp.
    Warp,
    /// The same in every warp of the thread block.
    Block,
}

impl Scope {
    /// The lowercase name (`warp`, `block`).
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Warp => "warp",
            Scope::Block => "block",
        }
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Exactness bit: the signed reading of the value is `c·lane + B` without wrapping.
pub const EXACT_SIGNED: u8 = 1;
/// Exactness bit: the unsigned reading of the value is `c·lane + B` without wrapping.
pub const EXACT_UNSIGNED: u8 = 2;
/// Both exactness bits.
pub const EXACT_BOTH: u8 = EXACT_SIGNED | EXACT_UNSIGNED;

/// The abstract value of one program value: `coef·T + base`, plus scope, alignment and exactness
/// of the base (see the module documentation). Always kept in canonical form (see
/// [`Abs::canon`]), so `==` is lattice equality.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Abs {
    /// `a1`, the coefficient of the lane position `T`.
    pub coef: Coef,
    /// `a2`, the lane-independent part.
    pub base: Coef,
    /// Scope of the base (block for integer bases).
    pub scope: Scope,
    /// Known trailing zero bits of the base (0..=64).
    pub align: u8,
    /// [`EXACT_SIGNED`] / [`EXACT_UNSIGNED`] bits.
    pub exact: u8,
}

/// What a divergent branch does to the values it reaches (sync dependence), or what a guard does to
/// the value it predicates. Ordered: `None < Warp < Divergent`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Taint {
    /// Nothing: the condition is block-uniform.
    #[default]
    None,
    /// The condition is warp-uniform only: merged values are at most warp-uniform.
    Warp,
    /// The condition differs between lanes of a warp: merged values are divergent.
    Divergent,
}

/// Normalises `x` to a `w`-bit value: sign-extended from `w` bits (`w = 1`: 0 or 1; `w >= 64`:
/// unchanged).
pub fn norm(x: i64, w: u32) -> i64 {
    match w {
        0 | 64.. => x,
        1 => x & 1,
        _ => {
            let sh = 64 - w;
            (x << sh) >> sh
        }
    }
}

/// Zero-extends the `w`-bit pattern of `x`.
fn zext_bits(x: i64, w: u32) -> i64 {
    if w >= 64 || w == 0 {
        x
    } else {
        ((x as u64) & ((1u64 << w) - 1)) as i64
    }
}

fn tz(x: i64) -> u8 {
    if x == 0 {
        64
    } else {
        x.trailing_zeros() as u8
    }
}

/// True when `x` fits in `w` bits as a signed number.
fn fits(x: i128, w: u32) -> bool {
    if w >= 64 {
        return x >= i64::MIN as i128 && x <= i64::MAX as i128;
    }
    if w <= 1 {
        return x == 0 || x == 1;
    }
    let lim = 1i128 << (w - 1);
    (-lim..lim).contains(&x)
}

/// The public classification of an [`Abs`] (the paper's five classes, with scope, plus
/// "undefined" for a value never written on any reachable path).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    /// Never written on a reachable path (⊤).
    Undefined,
    /// `0·T + c`: the same known value everywhere.
    Constant(i64),
    /// `0·T + ⊥`: the same (unknown) value on a warp's active lanes, or in the whole block.
    Uniform(Scope),
    /// `c·T + c'` with `c ≠ 0`: both coefficients known.
    ConstantAffine {
        /// `c`
        coef: i64,
        /// `c'`
        base: i64,
    },
    /// `c·T + ⊥` with `c ≠ 0`: the base is uniform with the given scope.
    Affine {
        /// `c`
        coef: i64,
        /// Scope of the base.
        scope: Scope,
    },
    /// `⊥·T + ⊥`: anything.
    Divergent,
}

impl Class {
    /// The class name used in every output: `undefined`, `constant`, `uniform`,
    /// `constant-affine`, `affine`, `divergent`.
    pub fn name(&self) -> &'static str {
        match self {
            Class::Undefined => "undefined",
            Class::Constant(_) => "constant",
            Class::Uniform(_) => "uniform",
            Class::ConstantAffine { .. } => "constant-affine",
            Class::Affine { .. } => "affine",
            Class::Divergent => "divergent",
        }
    }

    /// True for classes whose value is the same on all active lanes of a warp.
    pub fn is_uniform(&self) -> bool {
        matches!(self, Class::Constant(_) | Class::Uniform(_))
    }

    /// The coefficient of `T` for the affine classes (0 for uniform ones).
    pub fn coef(&self) -> Option<i64> {
        match self {
            Class::Constant(_) | Class::Uniform(_) => Some(0),
            Class::ConstantAffine { coef, .. } | Class::Affine { coef, .. } => Some(*coef),
            Class::Undefined | Class::Divergent => None,
        }
    }

    /// The scope of the lane-independent part (block for constants and constant bases).
    pub fn scope(&self) -> Option<Scope> {
        match self {
            Class::Constant(_) | Class::ConstantAffine { .. } => Some(Scope::Block),
            Class::Uniform(s) | Class::Affine { scope: s, .. } => Some(*s),
            Class::Undefined | Class::Divergent => None,
        }
    }
}

/// The one-line form shared by the CLI table, the LLVM plugin and the lit tests:
/// `constant value=5`, `uniform scope=block`, `constant-affine coef=4 base=8`,
/// `affine coef=1 scope=warp`, `divergent`, `undefined`.
impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Class::Undefined | Class::Divergent => f.write_str(self.name()),
            Class::Constant(v) => write!(f, "constant value={v}"),
            Class::Uniform(s) => write!(f, "uniform scope={s}"),
            Class::ConstantAffine { coef, base } => {
                write!(f, "constant-affine coef={coef} base={base}")
            }
            Class::Affine { coef, scope } => write!(f, "affine coef={coef} scope={scope}"),
        }
    }
}

impl Abs {
    /// ⊤: nothing known yet.
    pub const TOP: Abs = Abs {
        coef: Coef::Top,
        base: Coef::Top,
        scope: Scope::Block,
        align: 64,
        exact: EXACT_BOTH,
    };
    /// `⊥·T + ⊥`.
    pub const DIVERGENT: Abs = Abs {
        coef: Coef::Bottom,
        base: Coef::Bottom,
        scope: Scope::Warp,
        align: 0,
        exact: 0,
    };

    /// `0·T + c`, a constant (normalise `c` to the width first, see [`norm`]).
    pub fn constant(c: i64) -> Abs {
        Abs {
            coef: Coef::Int(0),
            base: Coef::Int(c),
            scope: Scope::Block,
            align: tz(c),
            exact: EXACT_BOTH,
        }
    }

    /// `0·T + ⊥`: an unknown value, uniform with the given scope.
    pub fn uniform(scope: Scope) -> Abs {
        Abs::uniform_aligned(scope, 0)
    }

    /// An unknown uniform value whose low `align` bits are known to be zero.
    pub fn uniform_aligned(scope: Scope, align: u8) -> Abs {
        Abs {
            coef: Coef::Int(0),
            base: Coef::Bottom,
            scope,
            align,
            exact: EXACT_BOTH,
        }
        .canon(64)
    }

    /// `c·T + ⊥` with the base's scope, alignment and exactness bits.
    pub fn affine(coef: i64, scope: Scope, align: u8, exact: u8) -> Abs {
        Abs {
            coef: Coef::Int(coef),
            base: Coef::Bottom,
            scope,
            align,
            exact,
        }
        .canon(64)
    }

    /// `c·T + c'`.
    pub fn constant_affine(coef: i64, base: i64, exact: u8) -> Abs {
        Abs {
            coef: Coef::Int(coef),
            base: Coef::Int(base),
            scope: Scope::Block,
            align: tz(base),
            exact,
        }
        .canon(64)
    }

    /// True for ⊤.
    pub fn is_top(&self) -> bool {
        self.coef == Coef::Top
    }

    /// True for `⊥·T + ⊥`.
    pub fn is_divergent(&self) -> bool {
        self.coef == Coef::Bottom
    }

    /// True when the value is the same on the active lanes of a warp (coefficient 0).
    pub fn is_uniform(&self) -> bool {
        self.coef == Coef::Int(0)
    }

    /// The known constant, if the value is one.
    pub fn as_const(&self) -> Option<i64> {
        match (self.coef, self.base) {
            (Coef::Int(0), Coef::Int(c)) => Some(c),
            _ => None,
        }
    }

    /// The canonical form for a `w`-bit value: ⊤ and ⊥ absorb the other fields; integer bases are
    /// block-scoped with their own alignment; a base whose `w` low bits are all known zero is 0;
    /// uniform values are exact; exactness implied by the alignment is added.
    pub fn canon(mut self, w: u32) -> Abs {
        if self.coef == Coef::Top || self.base == Coef::Top {
            return Abs::TOP;
        }
        if self.coef == Coef::Bottom {
            return Abs::DIVERGENT;
        }
        self.align = self.align.min(64);
        if let Coef::Int(b) = self.base {
            self.scope = Scope::Block;
            self.align = tz(b);
        } else if u32::from(self.align) >= w.max(1) {
            self.base = Coef::Int(0);
            self.scope = Scope::Block;
            self.align = 64;
        }
        if let (Coef::Int(c), Coef::Int(b)) = (self.coef, self.base) {
            if c != 0 {
                // A known base: check the lanes' range directly.
                let w = w.clamp(1, 64);
                let span = c as i128 * 31;
                let (lo_s, hi_s) = if w == 1 {
                    (0, 1)
                } else {
                    (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1)
                };
                let bs = b as i128;
                let bu = zext_bits(b, w) as u64 as i128;
                let umax = if w >= 64 {
                    u64::MAX as i128
                } else {
                    (1i128 << w) - 1
                };
                let in_range = |x: i128, lo: i128, hi: i128| x >= lo && x <= hi;
                let mut e = 0;
                if in_range(bs + span, lo_s, hi_s) && in_range(bs, lo_s, hi_s) {
                    e |= EXACT_SIGNED;
                }
                if in_range(bu + span, 0, umax) {
                    e |= EXACT_UNSIGNED;
                }
                self.exact |= e;
            }
        }
        if let Coef::Int(c) = self.coef {
            if c == 0 {
                self.exact = EXACT_BOTH;
            } else if c > 0
                && u32::from(self.align) < 64
                && u32::from(self.align) < w
                && (c as i128) * 31 < (1i128 << self.align)
            {
                // Lanes stay within [b, b + 2^align) with b ≡ 0 mod 2^align: no lane crosses a
                // multiple of 2^(w-1), so neither reading wraps.
                self.exact = EXACT_BOTH;
            } else if c > 0 && self.align == 64 && (c as i128) * 31 < (1i128 << (w.max(2) - 1)) {
                // Base 0 and small coefficient: 0 ≤ c·lane < 2^(w-1).
                self.exact = EXACT_BOTH;
            }
        }
        self
    }

    /// The lattice meet (paper, Equation 1) with scope = the narrower, alignment = the smaller,
    /// exactness = both.
    pub fn meet(self, other: Abs) -> Abs {
        if self.is_top() {
            return other;
        }
        if other.is_top() {
            return self;
        }
        if self.is_divergent() || other.is_divergent() {
            return Abs::DIVERGENT;
        }
        let coef = self.coef.meet(other.coef);
        if coef == Coef::Bottom {
            return Abs::DIVERGENT;
        }
        let base = self.base.meet(other.base);
        Abs {
            coef,
            base,
            scope: self.scope.min(other.scope),
            align: self.align.min(other.align),
            exact: self.exact & other.exact,
        }
        .canon(64)
    }

    /// Applies a sync-dependence or guard taint: [`Taint::Divergent`] makes the value divergent;
    /// [`Taint::Warp`] narrows an unknown base to warp scope (a constant stays a constant).
    pub fn cap(self, t: Taint) -> Abs {
        match t {
            Taint::None => self,
            Taint::Divergent => {
                if self.is_top() {
                    self
                } else {
                    Abs::DIVERGENT
                }
            }
            Taint::Warp => {
                if self.base == Coef::Bottom && !self.is_divergent() {
                    Abs {
                        scope: Scope::Warp,
                        ..self
                    }
                } else {
                    self
                }
            }
        }
    }

    /// What a branch or guard on this value does: nothing when block-uniform, [`Taint::Warp`]
    /// when warp-uniform, [`Taint::Divergent`] otherwise (⊤: nothing yet).
    pub fn taint(&self) -> Taint {
        match self.coef {
            Coef::Top => Taint::None,
            Coef::Int(0) => {
                if self.scope == Scope::Block {
                    Taint::None
                } else {
                    Taint::Warp
                }
            }
            _ => Taint::Divergent,
        }
    }

    /// The public classification.
    pub fn class(&self) -> Class {
        match (self.coef, self.base) {
            (Coef::Top, _) | (_, Coef::Top) => Class::Undefined,
            (Coef::Bottom, _) => Class::Divergent,
            (Coef::Int(0), Coef::Int(c)) => Class::Constant(c),
            (Coef::Int(0), Coef::Bottom) => Class::Uniform(self.scope),
            (Coef::Int(c), Coef::Int(b)) => Class::ConstantAffine { coef: c, base: b },
            (Coef::Int(c), Coef::Bottom) => Class::Affine {
                coef: c,
                scope: self.scope,
            },
        }
    }
}

/// No-wrap promises of an arithmetic instruction (LLVM `nsw`/`nuw`; PTX has none unless the user
/// assumes no overflow).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NoWrap {
    /// No signed overflow on any lane.
    pub nsw: bool,
    /// No unsigned overflow on any lane.
    pub nuw: bool,
}

impl NoWrap {
    /// Both promises.
    pub const BOTH: NoWrap = NoWrap {
        nsw: true,
        nuw: true,
    };
    /// No promise.
    pub const NONE: NoWrap = NoWrap {
        nsw: false,
        nuw: false,
    };

    fn bits(self) -> u8 {
        (if self.nsw { EXACT_SIGNED } else { 0 }) | (if self.nuw { EXACT_UNSIGNED } else { 0 })
    }
}

/// Transfer functions on `w`-bit values. Every function returns ⊤ when an operand is ⊤
/// (optimistic), and a canonical value.
pub mod ops {
    use super::*;

    fn pre(a: &Abs, b: &Abs) -> Option<Abs> {
        if a.is_top() || b.is_top() {
            Some(Abs::TOP)
        } else if a.is_divergent() || b.is_divergent() {
            Some(Abs::DIVERGENT)
        } else {
            None
        }
    }

    fn coef_of(a: &Abs) -> i64 {
        match a.coef {
            Coef::Int(c) => c,
            _ => 0,
        }
    }

    /// An operation that is not affine in its operands (`and`, `div`, floating point, …): uniform
    /// with the narrowest scope when every operand is uniform, divergent otherwise.
    pub fn uniform_only(args: &[Abs]) -> Abs {
        let mut scope = Scope::Block;
        for a in args {
            if a.is_top() {
                return Abs::TOP;
            }
        }
        for a in args {
            if !a.is_uniform() {
                return Abs::DIVERGENT;
            }
            if a.base == Coef::Bottom {
                scope = scope.min(a.scope);
            }
        }
        Abs::uniform(scope)
    }

    /// `a + b` (`sub`: pass `neg(b)`).
    pub fn add(a: Abs, b: Abs, w: u32, nw: NoWrap) -> Abs {
        if let Some(r) = pre(&a, &b) {
            return r;
        }
        let (ca, cb) = (coef_of(&a), coef_of(&b));
        let sum = ca as i128 + cb as i128;
        let coef = norm(sum as i64, w);
        let base = match (a.base, b.base) {
            (Coef::Int(x), Coef::Int(y)) => Coef::Int(norm(x.wrapping_add(y), w)),
            _ => Coef::Bottom,
        };
        let mut exact = 0;
        if fits(sum, w) {
            exact = nw.bits() & a.exact & b.exact;
        }
        Abs {
            coef: Coef::Int(coef),
            base,
            scope: a.scope.min(b.scope),
            align: a.align.min(b.align),
            exact,
        }
        .canon(w)
    }

    /// `-a`.
    pub fn neg(a: Abs, w: u32) -> Abs {
        if a.is_top() || a.is_divergent() {
            return a;
        }
        let coef = norm(coef_of(&a).wrapping_neg(), w);
        let base = match a.base {
            Coef::Int(x) => Coef::Int(norm(x.wrapping_neg(), w)),
            b => b,
        };
        Abs {
            coef: Coef::Int(coef),
            base,
            scope: a.scope,
            align: a.align,
            exact: 0,
        }
        .canon(w)
    }

    /// `a - b`.
    pub fn sub(a: Abs, b: Abs, w: u32, nw: NoWrap) -> Abs {
        if let Some(r) = pre(&a, &b) {
            return r;
        }
        let (ca, cb) = (coef_of(&a), coef_of(&b));
        let diff = ca as i128 - cb as i128;
        let base = match (a.base, b.base) {
            (Coef::Int(x), Coef::Int(y)) => Coef::Int(norm(x.wrapping_sub(y), w)),
            _ => Coef::Bottom,
        };
        let mut exact = 0;
        if fits(diff, w) {
            exact = nw.bits() & a.exact & b.exact;
        }
        Abs {
            coef: Coef::Int(norm(diff as i64, w)),
            base,
            scope: a.scope.min(b.scope),
            align: a.align.min(b.align),
            exact,
        }
        .canon(w)
    }

    /// `a · k` for a constant `k`.
    fn scale(a: Abs, k: i64, w: u32, nw: NoWrap) -> Abs {
        let c = coef_of(&a);
        let prod = c as i128 * k as i128;
        let base = match a.base {
            Coef::Int(x) => Coef::Int(norm(x.wrapping_mul(k), w)),
            b => b,
        };
        let exact = if fits(prod, w) {
            nw.bits() & a.exact
        } else {
            0
        };
        Abs {
            coef: Coef::Int(norm(prod as i64, w)),
            base,
            scope: a.scope,
            align: a.align.saturating_add(tz(k)).min(64),
            exact,
        }
        .canon(w)
    }

    /// `a · b` (low `w` bits).
    pub fn mul(a: Abs, b: Abs, w: u32, nw: NoWrap) -> Abs {
        if let Some(r) = pre(&a, &b) {
            return r;
        }
        if let Some(k) = b.as_const() {
            return scale(a, k, w, nw);
        }
        if let Some(k) = a.as_const() {
            return scale(b, k, w, nw);
        }
        if a.is_uniform() && b.is_uniform() {
            return Abs {
                coef: Coef::Int(0),
                base: Coef::Bottom,
                scope: a.scope.min(b.scope),
                align: a.align.saturating_add(b.align).min(64),
                exact: EXACT_BOTH,
            }
            .canon(w);
        }
        Abs::DIVERGENT
    }

    /// `a << k` for a constant shift `k` (anything else: uniform only).
    pub fn shl(a: Abs, k: Abs, w: u32, nw: NoWrap) -> Abs {
        if let Some(r) = pre(&a, &k) {
            return r;
        }
        match k.as_const() {
            Some(s) if (0..64).contains(&s) && (s as u32) < w.max(1) => scale(a, 1i64 << s, w, nw),
            Some(_) => Abs::constant(0),
            None => uniform_only(&[a, k]),
        }
    }

    /// `a >> k` (logical when `arith` is false) for a constant `k`: the affine part vanishes when
    /// `0 ≤ c·31 < 2^k` and the base is a multiple of `2^k` (`%tid.x >> 5` is the warp index).
    pub fn shr(a: Abs, k: Abs, w: u32, arith: bool) -> Abs {
        if let Some(r) = pre(&a, &k) {
            return r;
        }
        let Some(s) = k.as_const() else {
            return uniform_only(&[a, k]);
        };
        if !(0..64).contains(&s) || s as u32 >= w.max(1) {
            return if arith {
                uniform_only(&[a])
            } else {
                Abs::constant(0)
            };
        }
        let c = coef_of(&a);
        if c == 0 {
            if let Coef::Int(x) = a.base {
                let v = if arith { x >> s } else { zext_bits(x, w) >> s };
                return Abs::constant(norm(v, w));
            }
            return Abs {
                align: a.align.saturating_sub(s as u8),
                ..a
            }
            .canon(w);
        }
        let need = if arith { EXACT_SIGNED } else { EXACT_UNSIGNED };
        if c > 0 && (c as i128) * 31 < (1i128 << s) && a.align as i64 >= s && a.exact & need != 0 {
            let base = match a.base {
                Coef::Int(x) => {
                    Coef::Int(norm(if arith { x >> s } else { zext_bits(x, w) >> s }, w))
                }
                b => b,
            };
            return Abs {
                coef: Coef::Int(0),
                base,
                scope: a.scope,
                align: a.align.saturating_sub(s as u8),
                exact: EXACT_BOTH,
            }
            .canon(w);
        }
        Abs::DIVERGENT
    }

    /// `a & m`: masks `2^k - 1` and `!(2^k - 1)` split an aligned affine value into its lane part
    /// and its base.
    pub fn and(a: Abs, m: Abs, w: u32) -> Abs {
        if let Some(r) = pre(&a, &m) {
            return r;
        }
        let (x, mask) = match (a.as_const(), m.as_const()) {
            (_, Some(k)) => (a, k),
            (Some(k), _) => (m, k),
            _ => return uniform_only(&[a, m]),
        };
        if mask == 0 {
            return Abs::constant(0);
        }
        if let Some(v) = x.as_const() {
            return Abs::constant(norm(v & mask, w));
        }
        let c = coef_of(&x);
        if c == 0 {
            return uniform_only(&[x]);
        }
        let low = zext_bits(mask, w);
        let fits_lanes = |k: u32| c > 0 && k < 63 && (c as i128) * 31 < (1i128 << k);
        // mask = 2^k - 1
        if low > 0 && (low & (low + 1)) == 0 {
            let k = low.count_ones();
            if fits_lanes(k) && u32::from(x.align) >= k {
                return Abs::constant_affine(c, 0, EXACT_BOTH).canon(w);
            }
        }
        // mask = !(2^k - 1) within w bits
        let inv = zext_bits(!mask, w);
        if inv > 0 && (inv & (inv + 1)) == 0 {
            let k = inv.count_ones();
            if fits_lanes(k) && u32::from(x.align) >= k {
                let base = match x.base {
                    Coef::Int(b) => Coef::Int(norm(b & mask, w)),
                    b => b,
                };
                return Abs {
                    coef: Coef::Int(0),
                    base,
                    scope: x.scope,
                    align: x.align,
                    exact: EXACT_BOTH,
                }
                .canon(w);
            }
        }
        Abs::DIVERGENT
    }

    /// `a | b`: an addition when the two sides cannot have a bit in common — one side's values lie
    /// in `[0, 2^k)` on every lane (a constant, or `c·T + b` with a constant base) and the other's
    /// lowest `k` bits are known zero (its base aligned to `k` bits, its coefficient a multiple of
    /// `2^k`): `(warp << 5) | lane`, `(i << 2) | 1`. Otherwise uniform only when both are.
    pub fn or(a: Abs, b: Abs, w: u32) -> Abs {
        if let Some(r) = pre(&a, &b) {
            return r;
        }
        if let (Some(x), Some(y)) = (a.as_const(), b.as_const()) {
            return Abs::constant(norm(x | y, w));
        }
        for (hi, lo) in [(a, b), (b, a)] {
            let Some(k) = bits_needed(&lo) else {
                continue;
            };
            let hi_coef_clear = match hi.coef {
                Coef::Int(c) => k < 63 && c.rem_euclid(1i64 << k) == 0,
                _ => false,
            };
            if hi_coef_clear && u32::from(hi.align) >= k {
                return add(hi, lo, w, NoWrap::NONE);
            }
        }
        uniform_only(&[a, b])
    }

    /// The fewest low bits that hold every lane's value of `x` (`c·T + b` with constant `c`, `b`
    /// and values in `[0, 2^63)`), if known.
    fn bits_needed(x: &Abs) -> Option<u32> {
        let (Coef::Int(c), Coef::Int(b)) = (x.coef, x.base) else {
            return None;
        };
        let last = (b as i128) + 31 * (c as i128);
        let (lo, hi) = ((b as i128).min(last), (b as i128).max(last));
        if lo < 0 || hi >= 1i128 << 63 {
            return None;
        }
        Some(128 - (hi as u128).leading_zeros())
    }

    /// Sign- (`signed`) or zero-extension from `from` to `to` bits.
    pub fn ext(a: Abs, from: u32, to: u32, signed: bool) -> Abs {
        if a.is_top() || a.is_divergent() {
            return a;
        }
        let a = a.canon(from);
        let c = coef_of(&a);
        let ext_int = |x: i64| {
            if signed {
                norm(x, from)
            } else {
                zext_bits(x, from)
            }
        };
        if c == 0 {
            return match a.base {
                Coef::Int(x) => Abs::constant(norm(ext_int(x), to)),
                _ => a.canon(to),
            };
        }
        let need = if signed { EXACT_SIGNED } else { EXACT_UNSIGNED };
        if a.exact & need == 0 {
            return Abs::DIVERGENT;
        }
        let exact = if signed {
            if a.exact == EXACT_BOTH {
                EXACT_BOTH
            } else {
                EXACT_SIGNED
            }
        } else {
            EXACT_BOTH
        };
        Abs {
            coef: Coef::Int(c),
            base: match a.base {
                Coef::Int(x) => Coef::Int(norm(ext_int(x), to)),
                b => b,
            },
            scope: a.scope,
            align: a.align,
            exact,
        }
        .canon(to)
    }

    /// Truncation to `to` bits (modular arithmetic keeps the affine form).
    pub fn trunc(a: Abs, to: u32) -> Abs {
        if a.is_top() || a.is_divergent() {
            return a;
        }
        let coef = norm(coef_of(&a), to);
        let base = match a.base {
            Coef::Int(x) => Coef::Int(norm(x, to)),
            b => b,
        };
        Abs {
            coef: Coef::Int(coef),
            base,
            scope: a.scope,
            align: a.align,
            exact: 0,
        }
        .canon(to)
    }

    /// Comparison of `a` and `b`. `eq`: equality or inequality (exact in modular arithmetic);
    /// otherwise an ordered comparison, which needs the operands exact in `signed`-ness.
    pub fn cmp(a: Abs, b: Abs, eq: bool, signed: bool) -> Abs {
        if let Some(r) = pre(&a, &b) {
            return r;
        }
        if a.is_uniform() && b.is_uniform() {
            return uniform_only(&[a, b]);
        }
        if a.coef == b.coef {
            let need = if signed { EXACT_SIGNED } else { EXACT_UNSIGNED };
            if eq || (a.exact & b.exact & need) != 0 {
                // The lane terms cancel: the outcome depends on the bases only.
                let scope = if a.base == Coef::Bottom {
                    a.scope
                } else {
                    Scope::Block
                }
                .min(if b.base == Coef::Bottom {
                    b.scope
                } else {
                    Scope::Block
                });
                return Abs::uniform(scope);
            }
        }
        Abs::DIVERGENT
    }

    /// `c ? a : b`: the meet of both sides under a uniform condition (narrowed to its scope).
    pub fn select(c: Abs, a: Abs, b: Abs) -> Abs {
        if c.is_top() {
            return Abs::TOP;
        }
        if let Some(k) = c.as_const() {
            return if k != 0 { a } else { b };
        }
        a.meet(b).cap(c.taint())
    }
}

#[cfg(test)]
mod tests {
    use super::ops::*;
    use super::*;

    fn tid_1d() -> Abs {
        Abs::affine(1, Scope::Warp, 5, EXACT_BOTH)
    }

    #[test]
    fn disjoint_or_is_an_addition() {
        let lane = Abs::constant_affine(1, 0, EXACT_BOTH);
        let warp5 = Abs::uniform_aligned(Scope::Warp, 5);
        // (warp << 5) | lane: the linear thread index.
        assert_eq!(
            or(warp5, lane, 32),
            add(warp5, lane, 32, NoWrap::NONE),
            "{:?}",
            or(warp5, lane, 32)
        );
        assert_eq!(or(lane, warp5, 32).class().coef(), Some(1));
        // (i << 2) | 1 with i affine: coefficient 4, the low two bits free.
        let i4 = shl(tid_1d(), Abs::constant(2), 32, NoWrap::NONE);
        assert_eq!(or(i4, Abs::constant(1), 32).class().coef(), Some(4));
        // Overlapping bits: lane | 1 is not affine; two uniform values stay uniform.
        assert!(or(lane, Abs::constant(1), 32).is_divergent());
        assert!(or(warp5, Abs::uniform(Scope::Block), 32).is_uniform());
        assert_eq!(
            or(Abs::constant(12), Abs::constant(3), 32),
            Abs::constant(15)
        );
        // A base aligned to only 4 bits cannot take a 5-bit lane.
        assert!(or(Abs::uniform_aligned(Scope::Warp, 4), lane, 32).is_divergent());
    }

    #[test]
    fn constant_lattice_meet() {
        assert_eq!(Coef::Top.meet(Coef::Int(3)), Coef::Int(3));
        assert_eq!(Coef::Int(3).meet(Coef::Int(3)), Coef::Int(3));
        assert_eq!(Coef::Int(3).meet(Coef::Int(4)), Coef::Bottom);
        assert_eq!(Coef::Bottom.meet(Coef::Top), Coef::Bottom);
    }

    #[test]
    fn classes_and_display() {
        assert_eq!(Abs::TOP.class(), Class::Undefined);
        assert_eq!(Abs::constant(5).class().to_string(), "constant value=5");
        assert_eq!(
            Abs::uniform(Scope::Block).class().to_string(),
            "uniform scope=block"
        );
        assert_eq!(
            Abs::constant_affine(4, 8, 0).class().to_string(),
            "constant-affine coef=4 base=8"
        );
        assert_eq!(tid_1d().class().to_string(), "affine coef=1 scope=warp");
        assert_eq!(Abs::DIVERGENT.class().to_string(), "divergent");
    }

    #[test]
    fn meet_follows_the_paper() {
        let a = Abs::constant_affine(1, 0, EXACT_BOTH);
        let b = Abs::constant_affine(1, 32, EXACT_BOTH);
        // Same coefficient, different bases: c·T + ⊥.
        assert_eq!(
            a.meet(b).class(),
            Class::Affine {
                coef: 1,
                scope: Scope::Block
            }
        );
        // Different coefficients: divergent.
        assert_eq!(a.meet(Abs::constant_affine(2, 0, 0)), Abs::DIVERGENT);
        // Two constants: uniform.
        assert_eq!(
            Abs::constant(1).meet(Abs::constant(2)).class(),
            Class::Uniform(Scope::Block)
        );
        assert_eq!(Abs::TOP.meet(a), a);
        // Scope: the narrower wins.
        assert_eq!(
            Abs::uniform(Scope::Block)
                .meet(Abs::uniform(Scope::Warp))
                .class(),
            Class::Uniform(Scope::Warp)
        );
    }

    #[test]
    fn affine_arithmetic() {
        let t = tid_1d();
        let n = Abs::uniform(Scope::Block);
        let i = add(mul(n, n, 32, NoWrap::NONE), t, 32, NoWrap::NONE);
        assert_eq!(
            i.class(),
            Class::Affine {
                coef: 1,
                scope: Scope::Warp
            }
        );
        let x4 = mul(i, Abs::constant(4), 32, NoWrap::NONE);
        assert_eq!(
            x4.class(),
            Class::Affine {
                coef: 4,
                scope: Scope::Warp
            }
        );
        assert_eq!(
            sub(i, t, 32, NoWrap::NONE).class(),
            Class::Uniform(Scope::Warp)
        );
        let lane = Abs::constant_affine(1, 0, EXACT_BOTH);
        assert_eq!(
            add(
                shl(lane, Abs::constant(2), 32, NoWrap::NONE),
                Abs::constant(8),
                32,
                NoWrap::NONE
            )
            .class(),
            Class::ConstantAffine { coef: 4, base: 8 }
        );
        assert_eq!(mul(t, t, 32, NoWrap::NONE), Abs::DIVERGENT);
        assert_eq!(mul(t, n, 32, NoWrap::NONE), Abs::DIVERGENT);
        assert_eq!(
            neg(lane, 32).class(),
            Class::ConstantAffine { coef: -1, base: 0 }
        );
    }

    #[test]
    fn wrapping_is_modular() {
        let lane = Abs::constant_affine(1, 0, EXACT_BOTH);
        let big = mul(lane, Abs::constant(1 << 30), 32, NoWrap::NONE);
        assert_eq!(
            big.class(),
            Class::ConstantAffine {
                coef: 1 << 30,
                base: 0
            }
        );
        let wrapped = mul(big, Abs::constant(4), 32, NoWrap::NONE);
        assert_eq!(wrapped.class(), Class::Constant(0));
        assert_eq!(norm(0xffff_ffff, 32), -1);
        assert_eq!(norm(3, 1), 1);
    }

    #[test]
    fn extension_needs_exactness() {
        let t = tid_1d();
        // %tid.x (aligned base, coefficient 1): both readings exact.
        assert_eq!(t.exact, EXACT_BOTH);
        assert_eq!(
            ext(t, 32, 64, true).class(),
            Class::Affine {
                coef: 1,
                scope: Scope::Warp
            }
        );
        // ctaid·ntid + tid: base alignment unknown, the sum may wrap within a warp.
        let i = add(Abs::uniform(Scope::Block), t, 32, NoWrap::NONE);
        assert_eq!(i.exact, 0);
        assert_eq!(ext(i, 32, 64, true), Abs::DIVERGENT);
        // ... unless the instruction promises no wrap.
        let i = add(Abs::uniform(Scope::Block), t, 32, NoWrap::BOTH);
        assert_eq!(
            ext(i, 32, 64, true).class(),
            Class::Affine {
                coef: 1,
                scope: Scope::Warp
            }
        );
        assert_eq!(
            ext(Abs::constant(-1), 32, 64, false).class(),
            Class::Constant(0xffff_ffff)
        );
        assert_eq!(
            ext(Abs::constant(-1), 32, 64, true).class(),
            Class::Constant(-1)
        );
        // Truncation keeps the form.
        assert_eq!(
            trunc(i, 16).class(),
            Class::Affine {
                coef: 1,
                scope: Scope::Warp
            }
        );
    }

    #[test]
    fn lane_and_warp_index() {
        let t = tid_1d();
        assert_eq!(
            shr(t, Abs::constant(5), 32, false).class(),
            Class::Uniform(Scope::Warp)
        );
        assert_eq!(
            and(t, Abs::constant(31), 32).class(),
            Class::ConstantAffine { coef: 1, base: 0 }
        );
        assert_eq!(
            and(t, Abs::constant(!31), 32).class(),
            Class::Uniform(Scope::Warp)
        );
        // Shifting by less than the lane span keeps lanes apart.
        assert_eq!(shr(t, Abs::constant(1), 32, false), Abs::DIVERGENT);
        assert_eq!(and(t, Abs::constant(15), 32), Abs::DIVERGENT);
        // Without known alignment nothing can be said.
        let i = add(Abs::uniform(Scope::Block), t, 32, NoWrap::NONE);
        assert_eq!(shr(i, Abs::constant(5), 32, false), Abs::DIVERGENT);
    }

    #[test]
    fn comparisons() {
        let t = tid_1d();
        let n = Abs::uniform(Scope::Block);
        assert_eq!(cmp(t, n, false, true), Abs::DIVERGENT);
        assert_eq!(cmp(n, n, false, true).class(), Class::Uniform(Scope::Block));
        let u = add(t, n, 32, NoWrap::NONE);
        // Equality of two values with the same coefficient depends on the bases only.
        assert_eq!(cmp(u, t, true, false).class(), Class::Uniform(Scope::Warp));
        // An ordered comparison needs both sides exact.
        assert_eq!(cmp(u, t, false, true), Abs::DIVERGENT);
        let v = add(t, Abs::constant(64), 32, NoWrap::NONE);
        assert_eq!(cmp(v, t, false, true).class(), Class::Uniform(Scope::Warp));
    }

    #[test]
    fn select_and_taints() {
        let t = tid_1d();
        let pw = Abs::uniform(Scope::Warp);
        let r = select(pw, Abs::constant(1), Abs::constant(2));
        assert_eq!(r.class(), Class::Uniform(Scope::Warp));
        assert_eq!(
            select(Abs::DIVERGENT, Abs::constant(1), Abs::constant(2)),
            Abs::DIVERGENT
        );
        assert_eq!(select(Abs::constant(1), t, Abs::constant(2)), t);
        assert_eq!(Abs::constant(3).cap(Taint::Warp), Abs::constant(3));
        assert_eq!(Abs::constant(3).cap(Taint::Divergent), Abs::DIVERGENT);
        assert_eq!(Abs::TOP.cap(Taint::Divergent), Abs::TOP);
        assert_eq!(t.taint(), Taint::Divergent);
        assert_eq!(pw.taint(), Taint::Warp);
        assert_eq!(Abs::constant(0).taint(), Taint::None);
    }

    #[test]
    fn uniform_only_ops() {
        assert_eq!(uniform_only(&[]).class(), Class::Uniform(Scope::Block));
        assert_eq!(
            uniform_only(&[Abs::constant(1), Abs::uniform(Scope::Warp)]).class(),
            Class::Uniform(Scope::Warp)
        );
        assert_eq!(uniform_only(&[tid_1d()]), Abs::DIVERGENT);
        assert_eq!(uniform_only(&[Abs::TOP, Abs::DIVERGENT]), Abs::TOP);
    }
}
