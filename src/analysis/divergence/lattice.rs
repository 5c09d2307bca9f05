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
//!   (`%tid`, `%laneid`), from no-wrap flags (LLVM `nsw`/`nuw`), from the alignment and from the
//!   bound below.
//! - **Bound.** An upper bound on the unsigned reading of a lane-dependent or unknown uniform
//!   value, on every lane of every warp (`%tid.x ≤ ntid.x − 1` when the block shape is known,
//!   carried through additions, constant multiplications, shifts, masks and extensions). With it
//!   the bits a value can have set are known, so a mask that keeps them all is the identity
//!   (`%tid.x & 255` in a 256-thread block, `(%tid.x << 3) & 2040`) and an `or` or `xor` of values
//!   with no bit in common is an addition (`((%tid.x << 3) & 2040) | 2048`): the lane and warp
//!   arithmetic Triton emits. The bound lives in a flat lattice (two different bounds meet to
//!   "none"), so the fixed point is reached as quickly as without it.
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
    /// An upper bound on the value's unsigned reading on every lane of every warp, when one is
    /// known (see the module documentation). Kept only for values whose base is unknown: the bound
    /// of a constant or constant-affine value follows from its coefficients ([`Abs::bound`]).
    pub umax: Option<u64>,
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

/// The `w`-bit value with every bit set (`w` taken as at least 1 and at most 64).
fn all_ones(w: u32) -> u64 {
    u64::MAX >> (64 - w.clamp(1, 64))
}

/// True when an unsigned bound `m` on a `w`-bit value leaves its sign bit clear on every lane
/// (then the signed reading equals the unsigned one).
fn below_sign_bit(m: u64, w: u32) -> bool {
    w >= 2 && m < 1u64 << (w.min(64) - 1)
}

/// True when the lane part `c·T` of an affine value (`T` the lane, 0 … 31) lies below `2^k`.
fn lanes_below(c: i64, k: u32) -> bool {
    c > 0 && k < 63 && (c as i128) * 31 < (1i128 << k)
}

/// True when clearing the bits below `2^k` of `B + c·T`, `B` a multiple of `2^align`, clears the
/// lane part whole and keeps `B`'s bits: the lane part lies below `2^k`, and either `B`'s low `k`
/// bits are zero or the lane part fits below `2^align` (it then fills bits `B` leaves zero and
/// carries nothing past them). `>> k` and `& !(2^k - 1)` of such a value depend on `B` only.
fn lanes_drop_below(c: i64, k: u32, align: u8) -> bool {
    lanes_below(c, k) && (u32::from(align) >= k || lanes_below(c, u32::from(align)))
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
        umax: None,
    };
    /// `⊥·T + ⊥`.
    pub const DIVERGENT: Abs = Abs {
        coef: Coef::Bottom,
        base: Coef::Bottom,
        scope: Scope::Warp,
        align: 0,
        exact: 0,
        umax: None,
    };

    /// `0·T + c`, a constant (normalise `c` to the width first, see [`norm`]).
    pub fn constant(c: i64) -> Abs {
        Abs {
            coef: Coef::Int(0),
            base: Coef::Int(c),
            scope: Scope::Block,
            align: tz(c),
            exact: EXACT_BOTH,
            umax: None,
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
            umax: None,
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
            umax: None,
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
            umax: None,
        }
        .canon(64)
    }

    /// The same value with `umax` as its bound ([`Abs::umax`]); canonical for `w` bits.
    pub fn with_umax(self, umax: Option<u64>, w: u32) -> Abs {
        Abs { umax, ..self }.canon(w)
    }

    /// An upper bound on the unsigned reading of this `w`-bit value on every lane, if known: a
    /// constant's own value, `b + 31·c` for an exact constant-affine value, else [`Abs::umax`].
    pub fn bound(&self, w: u32) -> Option<u64> {
        let all = all_ones(w);
        let w = w.clamp(1, 64);
        let b = match (self.coef, self.base) {
            (Coef::Int(0), Coef::Int(c)) => Some(zext_bits(c, w) as u64),
            (Coef::Int(c), Coef::Int(b)) if self.exact & EXACT_UNSIGNED != 0 => {
                let last = zext_bits(b, w) as u64 as i128 + 31 * c as i128;
                u64::try_from(last.max(zext_bits(b, w) as u64 as i128)).ok()
            }
            (Coef::Int(_), Coef::Bottom) => self.umax,
            _ => None,
        };
        b.map(|b| b.min(all))
    }

    /// The bits this `w`-bit value can have set on some lane (`None` for ⊤ and divergent
    /// values): those below its bound's highest bit (all `w` without a bound), less the low bits
    /// known to be zero on every lane (the coefficient's and the base's trailing zeros).
    pub fn possible_bits(&self, w: u32) -> Option<u64> {
        if let Some(c) = self.as_const() {
            return Some(zext_bits(c, w) as u64);
        }
        if !matches!(self.coef, Coef::Int(_)) || self.base == Coef::Top {
            return None;
        }
        let all = all_ones(w);
        let bound = self.bound(w).unwrap_or(all);
        let high = if bound == 0 {
            0
        } else {
            u64::MAX >> bound.leading_zeros()
        };
        let coef_tz = match self.coef {
            Coef::Int(c) => tz(c),
            _ => 0,
        };
        let low_zero = coef_tz.min(self.align).min(64);
        let low = if low_zero >= 64 {
            u64::MAX
        } else {
            (1u64 << low_zero) - 1
        };
        Some(high & !low)
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
        let all = all_ones(w);
        if matches!(self.base, Coef::Int(_)) || self.umax.is_some_and(|m| m >= all) {
            self.umax = None;
        }
        if let (Coef::Int(c), Some(m), true) = (self.coef, self.umax, w < 64) {
            // Every lane's value lies in [0, m]: when m + 31·|c| < 2^w two lanes' values differ by
            // exactly c times their lane distance, so the unsigned reading does not wrap, and
            // below 2^(w-1) neither does the signed one. Not at w = 64: `meet` canonicalises
            // values of every width at 64 bits, where the test would be too weak for a narrower
            // value (its inputs already carry what their own width allowed).
            let span = m as i128 + 31 * (c as i128).abs();
            if c != 0 && span <= all as i128 {
                self.exact |= EXACT_UNSIGNED;
                if below_sign_bit(m, w) {
                    self.exact |= EXACT_SIGNED;
                }
            }
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
        let met = Abs {
            coef,
            base,
            scope: self.scope.min(other.scope),
            align: self.align.min(other.align),
            exact: self.exact & other.exact,
            umax: if self.umax == other.umax {
                self.umax
            } else {
                None
            },
        }
        .canon(64);
        // Both sides are canonical at their own width; canonicalising at 64 bits must not add
        // exactness that only holds for a wider value (lanes crossing 2^31 are not exact as a
        // signed 32-bit value, though they would be as a 64-bit one).
        if met.is_top() || met.is_divergent() {
            met
        } else {
            Abs {
                exact: met.exact & (self.exact & other.exact | exact_if_uniform(met)),
                ..met
            }
        }
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

/// Uniform values are exact in both readings by definition (no lane term can wrap).
fn exact_if_uniform(a: Abs) -> u8 {
    if a.coef == Coef::Int(0) {
        EXACT_BOTH
    } else {
        0
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

    /// `x` when it is below `2^w` (a bound that still holds without wrapping).
    fn within(x: Option<u128>, w: u32) -> Option<u64> {
        x.filter(|&x| x <= all_ones(w) as u128).map(|x| x as u64)
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
        let umax = a
            .bound(w)
            .zip(b.bound(w))
            .map(|(x, y)| x as u128 + y as u128);
        Abs {
            coef: Coef::Int(coef),
            base,
            scope: a.scope.min(b.scope),
            align: a.align.min(b.align),
            exact,
            umax: within(umax, w),
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
            umax: None,
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
            umax: None,
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
        let umax = a.bound(w).filter(|_| k >= 0).map(|m| m as u128 * k as u128);
        Abs {
            coef: Coef::Int(norm(prod as i64, w)),
            base,
            scope: a.scope,
            align: a.align.saturating_add(tz(k)).min(64),
            exact,
            umax: within(umax, w),
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
            let umax = a
                .bound(w)
                .zip(b.bound(w))
                .and_then(|(x, y)| (x as u128).checked_mul(y as u128));
            return Abs {
                coef: Coef::Int(0),
                base: Coef::Bottom,
                scope: a.scope.min(b.scope),
                align: a.align.saturating_add(b.align).min(64),
                exact: EXACT_BOTH,
                umax: within(umax, w),
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
    /// the lane part `c·T` (`0 ≤ c·31`) lies below both `2^k` and the base's alignment `2^align`:
    /// the sum then carries nothing out of the base's zero low bits, and the shift drops it
    /// (`%tid.x >> 5` is the warp index; `%tid.x >> 7`, the warpgroup of CUTLASS's sm_90
    /// kernels, too, with warp bases that are multiples of 32 only).
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
        // Arithmetic shifts keep the bound only of values whose sign bit is clear.
        let umax = a
            .bound(w)
            .filter(|&m| !arith || w < 2 || below_sign_bit(m, w))
            .map(|m| m >> s);
        let c = coef_of(&a);
        if c == 0 {
            if let Coef::Int(x) = a.base {
                let v = if arith { x >> s } else { zext_bits(x, w) >> s };
                return Abs::constant(norm(v, w));
            }
            return Abs {
                align: a.align.saturating_sub(s as u8),
                umax,
                ..a
            }
            .canon(w);
        }
        let need = if arith { EXACT_SIGNED } else { EXACT_UNSIGNED };
        if lanes_drop_below(c, s as u32, a.align) && a.exact & need != 0 {
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
                umax,
            }
            .canon(w);
        }
        Abs::DIVERGENT
    }

    /// `a & m`: a mask that keeps every bit the value can have set is the identity (one that
    /// keeps none gives 0); masks `2^k - 1` and `!(2^k - 1)` split an aligned affine value into
    /// its lane part and its base.
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
        let low = zext_bits(mask, w);
        if let Some(bits) = x.possible_bits(w) {
            if bits & !(low as u64) == 0 {
                return x.canon(w);
            }
            if bits & low as u64 == 0 {
                return Abs::constant(0);
            }
        }
        // At most the smaller of the value's bound and the mask.
        let umax = Some(x.bound(w).map_or(low as u64, |b| b.min(low as u64)));
        let c = coef_of(&x);
        if c == 0 {
            return uniform_only(&[x]).with_umax(umax, w);
        }
        // The lane part c·T lies below 2^k ≤ 2^align, so adding it to the aligned base carries
        // nothing: a mask that keeps the low k bits keeps the lane part whole and masks the base,
        // (B + c·T) & m = (B & m) + c·T (`%tid.x & 31` is the lane, `%tid.x & 127` in a
        // 256-thread block is the lane plus a warp-uniform 0, 32, 64 or 96).
        if let Some(k) = (1..63).find(|&k| lanes_below(c, k)) {
            // The bits c·T can set: from c's lowest set bit up to k.
            let lane_mask = ((1i64 << k) - 1) & !((1i64 << tz(c).min(62)) - 1);
            if u32::from(x.align) >= k && low & lane_mask == lane_mask {
                // B & m keeps only the mask's bits at or above the base's alignment.
                let above = if x.align >= 63 {
                    0
                } else {
                    low & !((1i64 << x.align) - 1)
                };
                let base = match x.base {
                    Coef::Int(b) => Coef::Int(norm(b & mask, w)),
                    _ if above == 0 => Coef::Int(0),
                    b => b,
                };
                return Abs {
                    coef: Coef::Int(c),
                    base,
                    scope: x.scope,
                    align: x.align.max(tz(above)),
                    exact: 0,
                    umax,
                }
                .canon(w);
            }
        }
        // mask = !(2^k - 1) within w bits: the lane part below 2^k and below the base's
        // alignment occupies bits the base leaves zero and the mask clears (`%tid.x & ~127`).
        let inv = zext_bits(!mask, w);
        if inv > 0 && (inv & (inv + 1)) == 0 {
            let k = inv.count_ones();
            if lanes_drop_below(c, k, x.align) {
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
                    umax,
                }
                .canon(w);
            }
        }
        Abs::DIVERGENT
    }

    /// `a | b`: an addition when the bits the two sides can have set ([`Abs::possible_bits`]: from
    /// their bounds and known low zeros) are disjoint — `(warp << 5) | lane`, `(i << 2) | 1`.
    /// Otherwise uniform only when both are.
    pub fn or(a: Abs, b: Abs, w: u32) -> Abs {
        if let Some(r) = pre(&a, &b) {
            return r;
        }
        if let (Some(x), Some(y)) = (a.as_const(), b.as_const()) {
            return Abs::constant(norm(x | y, w));
        }
        disjoint_sum(a, b, w).unwrap_or_else(|| uniform_only(&[a, b]))
    }

    /// `a ^ b`: an addition when the bits the two can have set are disjoint (as for `or`),
    /// otherwise uniform only when both are.
    pub fn xor(a: Abs, b: Abs, w: u32) -> Abs {
        if let Some(r) = pre(&a, &b) {
            return r;
        }
        if let (Some(x), Some(y)) = (a.as_const(), b.as_const()) {
            return Abs::constant(norm(x ^ y, w));
        }
        disjoint_sum(a, b, w).unwrap_or_else(|| uniform_only(&[a, b]))
    }

    /// `a + b` when no bit can be set in both (then `a | b = a ^ b = a + b`, and the sum wraps
    /// in neither reading unless its bound reaches the sign bit).
    fn disjoint_sum(a: Abs, b: Abs, w: u32) -> Option<Abs> {
        let (x, y) = (a.possible_bits(w)?, b.possible_bits(w)?);
        if x & y != 0 {
            return None;
        }
        let signed_ok = below_sign_bit(x | y, w);
        let nw = NoWrap {
            nsw: signed_ok,
            nuw: true,
        };
        Some(add(a, b, w, nw))
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
        // Sign-extension keeps the bound of values whose sign bit is clear.
        let umax = a
            .bound(from)
            .filter(|&m| !signed || from < 2 || below_sign_bit(m, from));
        if c == 0 {
            return match a.base {
                Coef::Int(x) => Abs::constant(norm(ext_int(x), to)),
                _ => a.with_umax(umax, to),
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
            umax,
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
            umax: within(a.bound(64).map(u128::from), to),
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

    /// `%tid.x` in a 256-thread block: `32·warp + lane`, at most 255.
    fn tid_256() -> Abs {
        tid_1d().with_umax(Some(255), 32)
    }

    #[test]
    fn bounds_make_masks_the_identity() {
        let t = tid_256();
        // tid & 255 and (tid << 3) & 2040 keep every bit the value can have: Triton's layer norm.
        assert_eq!(and(t, Abs::constant(255), 32), t);
        let t8 = shl(t, Abs::constant(3), 32, NoWrap::BOTH);
        assert_eq!(t8.bound(32), Some(2040));
        assert_eq!(t8.possible_bits(32), Some(0x7f8));
        assert_eq!(and(t8, Abs::constant(2040), 32), t8);
        // A mask that keeps none of them gives 0; one that cuts the lane part's bits (bit 3 of
        // 8·lane) is not affine; one that cuts only the warp part masks the base.
        assert_eq!(and(t8, Abs::constant(7), 32), Abs::constant(0));
        assert!(and(t8, Abs::constant(0x3f0), 32).is_divergent());
        assert_eq!(and(t8, Abs::constant(1023), 32).class().coef(), Some(8));
        // ... then `| 2048` cannot overlap and is an addition, exact in both readings.
        let hi = or(t8, Abs::constant(2048), 32);
        assert_eq!(
            hi.class(),
            Class::Affine {
                coef: 8,
                scope: Scope::Warp
            }
        );
        assert_eq!(hi.exact, EXACT_BOTH);
        assert_eq!(hi.bound(32), Some(2040 + 2048));
        assert_eq!(xor(t8, Abs::constant(2048), 32), hi);
        // Without the bound the mask keeps the lane part and masks the base (the value is no
        // longer the same) — and bounds it by 2040, so the `or` is still an addition.
        let t8_unbounded = shl(tid_1d(), Abs::constant(3), 32, NoWrap::BOTH);
        let col = and(t8_unbounded, Abs::constant(2040), 32);
        assert_ne!(col, t8_unbounded);
        assert_eq!(col.class().coef(), Some(8));
        assert_eq!(col.bound(32), Some(2040));
        assert_eq!(or(col, Abs::constant(2048), 32).class().coef(), Some(8));
        // Known low zeros alone: 8·tid & 7 is 0 without a bound, 8·tid | 7 an addition.
        assert_eq!(and(t8_unbounded, Abs::constant(7), 32), Abs::constant(0));
        assert_eq!(
            or(t8_unbounded, Abs::constant(7), 32).class().coef(),
            Some(8)
        );
        // An unbounded value may have any high bit: its `or` with 2048 is not an addition.
        assert!(or(t8_unbounded, Abs::constant(2048), 32).is_divergent());
        // The warp index of the masked value is warp-uniform and at most 7.
        let warp = shr(and(t, Abs::constant(255), 32), Abs::constant(5), 32, false);
        assert_eq!(warp.class(), Class::Uniform(Scope::Warp));
        assert_eq!(warp.bound(32), Some(7));
    }

    #[test]
    fn bounds_follow_the_arithmetic() {
        let t = tid_256();
        assert_eq!(
            add(t, Abs::constant(1), 32, NoWrap::NONE).bound(32),
            Some(256)
        );
        assert_eq!(
            mul(t, Abs::constant(4), 32, NoWrap::NONE).bound(32),
            Some(1020)
        );
        // Subtraction may wrap: no bound.
        assert_eq!(sub(t, Abs::constant(1), 32, NoWrap::NONE).bound(32), None);
        // Extensions keep it (sign-extension because bit 31 is clear); truncation to 8 bits
        // cannot hold 255 + 1.
        assert_eq!(ext(t, 32, 64, true).bound(64), Some(255));
        assert_eq!(ext(t, 32, 64, false).bound(64), Some(255));
        let t1 = add(t, Abs::constant(1), 32, NoWrap::NONE);
        assert_eq!(trunc(t1, 8).bound(8), None);
        assert_eq!(
            trunc(t, 8).bound(8),
            None,
            "255 is all of 8 bits: no information"
        );
        assert_eq!(trunc(t, 16).bound(16), Some(255));
        // A bound above the sign bit does not survive a sign-extension or an arithmetic shift.
        let big = Abs::uniform(Scope::Block).with_umax(Some(0xffff_fff0), 32);
        assert_eq!(ext(big, 32, 64, true).bound(64), None);
        assert_eq!(ext(big, 32, 64, false).bound(64), Some(0xffff_fff0));
        assert_eq!(shr(big, Abs::constant(4), 32, true).bound(32), None);
        assert_eq!(
            shr(big, Abs::constant(4), 32, false).bound(32),
            Some(0x0fff_ffff)
        );
        // Two different bounds meet to none (a flat lattice: loops converge as before).
        let a = Abs::uniform(Scope::Block).with_umax(Some(3), 32);
        let b = Abs::uniform(Scope::Block).with_umax(Some(5), 32);
        assert_eq!(a.meet(b).umax, None);
        assert_eq!(a.meet(a).umax, Some(3));
        // A bound makes a lane-dependent value exact: [0, 255] with 31 lanes of stride 1.
        let inexact = Abs::affine(1, Scope::Warp, 0, 0);
        assert_eq!(inexact.with_umax(Some(255), 32).exact, EXACT_BOTH);
        assert_eq!(inexact.with_umax(Some(u32::MAX as u64 - 8), 32).exact, 0);
        // ... at its own width only: a 32-bit value near 2^32 whose lanes may wrap stays inexact
        // when `meet` canonicalises it at 64 bits.
        let near_top = Abs::affine(16, Scope::Warp, 0, 0).with_umax(Some(u32::MAX as u64 - 9), 32);
        assert_eq!(near_top.exact, 0);
        assert_eq!(near_top.meet(near_top).exact, 0);
        // Likewise a known base: 32-bit lanes 2^31 − 10 … 2^31 + 21 cross the signed limit, so
        // only the unsigned reading is exact, also after a meet.
        let lane = Abs::constant_affine(1, 0, EXACT_BOTH);
        let crossing = add(lane, Abs::constant((1i64 << 31) - 10), 32, NoWrap::NONE);
        assert_eq!(crossing.exact, EXACT_UNSIGNED);
        assert_eq!(crossing.meet(crossing).exact, EXACT_UNSIGNED);
    }

    #[test]
    fn masks_keep_the_lane_part_of_an_aligned_value() {
        // tid & 127 in a 256-thread block: the lane plus a warp-uniform 0, 32, 64 or 96.
        let t = tid_256();
        let m = and(t, Abs::constant(127), 32);
        assert_eq!(
            m.class(),
            Class::Affine {
                coef: 1,
                scope: Scope::Warp
            }
        );
        assert_eq!(m.align, 5);
        assert_eq!(m.bound(32), Some(127));
        // The same without a bound: the rule needs only the base's alignment.
        assert_eq!(
            and(tid_1d(), Abs::constant(127), 32).class().coef(),
            Some(1)
        );
        // tid & 31 is the lane itself; tid & 15 is not affine in the lane.
        assert_eq!(
            and(tid_1d(), Abs::constant(31), 32).class(),
            Class::ConstantAffine { coef: 1, base: 0 }
        );
        assert!(and(tid_1d(), Abs::constant(15), 32).is_divergent());
        // 8·tid & 0x7f8: the lane part 8·lane sets only bits 3..7, which the mask keeps (bits
        // 0..2 are zero anyway): affine with coefficient 8, without any bound.
        let t8 = shl(tid_1d(), Abs::constant(3), 32, NoWrap::NONE);
        assert_eq!(and(t8, Abs::constant(0x7f8), 32).class().coef(), Some(8));
        assert!(and(t8, Abs::constant(0x7f0), 32).is_divergent());
    }

    /// A deterministic xorshift generator for the randomised soundness test.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    /// A 32-bit value on two warps of a 1-D block: its abstract value and each lane's.
    #[derive(Clone, Copy)]
    struct Val {
        abs: Abs,
        lanes: [[u32; 32]; 2],
    }

    fn each(f: impl Fn(usize, usize) -> u32) -> [[u32; 32]; 2] {
        let mut v = [[0u32; 32]; 2];
        for (w, warp) in v.iter_mut().enumerate() {
            for (l, x) in warp.iter_mut().enumerate() {
                *x = f(w, l);
            }
        }
        v
    }

    /// A source value: `%tid.x` (bounded by the block size or not), the lane, a constant, a
    /// block-uniform or a warp-uniform unknown (aligned, sometimes bounded).
    fn leaf(rng: &mut Rng, warps: [u32; 2], ntid: u32) -> Val {
        match rng.below(6) {
            0 | 1 => Val {
                abs: if rng.below(2) == 0 {
                    tid_1d().with_umax(Some(u64::from(ntid - 1)), 32)
                } else {
                    tid_1d()
                },
                lanes: each(|w, l| 32 * warps[w] + l as u32),
            },
            2 => Val {
                abs: Abs::constant_affine(1, 0, EXACT_BOTH),
                lanes: each(|_, l| l as u32),
            },
            3 => {
                let k = match rng.below(3) {
                    0 => rng.below(64) as u32,
                    1 => (1u32 << rng.below(32)).wrapping_sub(1),
                    _ => rng.next() as u32,
                };
                Val {
                    abs: Abs::constant(norm(i64::from(k), 32)),
                    lanes: each(|_, _| k),
                }
            }
            _ => {
                let block = rng.below(2) == 0;
                let align = rng.below(8) as u8;
                let bound = (rng.below(2) == 0).then(|| rng.below(1 << 20));
                let pick = |rng: &mut Rng| {
                    let x = (rng.next() as u32) & !((1u32 << align) - 1);
                    match bound {
                        Some(m) => (x % (m as u32 + 1)) & !((1u32 << align) - 1),
                        None => x,
                    }
                };
                let (u0, u1) = (pick(rng), pick(rng));
                let scope = if block { Scope::Block } else { Scope::Warp };
                Val {
                    abs: Abs::uniform_aligned(scope, align).with_umax(bound, 32),
                    lanes: each(|w, _| if block || w == 0 { u0 } else { u1 }),
                }
            }
        }
    }

    /// One operation on `a` (and `b`), concretely on every lane and abstractly.
    fn apply(rng: &mut Rng, a: Val, b: Val) -> Val {
        let k = rng.below(12) as u32;
        let mask = match rng.below(4) {
            0 => (1u32 << rng.below(32)).wrapping_sub(1),
            1 => !((1u32 << rng.below(32)).wrapping_sub(1)),
            2 => ((1u32 << rng.below(16)) - 1) << rng.below(16),
            _ => rng.next() as u32,
        };
        let c = |x: u32| Abs::constant(norm(i64::from(x), 32));
        let lanes2 = |f: &dyn Fn(u32, u32) -> u32| each(|w, l| f(a.lanes[w][l], b.lanes[w][l]));
        let (abs, lanes) = match rng.below(11) {
            0 => (
                add(a.abs, b.abs, 32, NoWrap::NONE),
                lanes2(&|x, y| x.wrapping_add(y)),
            ),
            1 => (
                sub(a.abs, b.abs, 32, NoWrap::NONE),
                lanes2(&|x, y| x.wrapping_sub(y)),
            ),
            2 => (
                mul(a.abs, c(k), 32, NoWrap::NONE),
                lanes2(&|x, _| x.wrapping_mul(k)),
            ),
            3 => (shl(a.abs, c(k), 32, NoWrap::NONE), lanes2(&|x, _| x << k)),
            4 => (shr(a.abs, c(k), 32, false), lanes2(&|x, _| x >> k)),
            5 => (
                shr(a.abs, c(k), 32, true),
                lanes2(&|x, _| ((x as i32) >> k) as u32),
            ),
            6 => (and(a.abs, c(mask), 32), lanes2(&|x, _| x & mask)),
            7 => (or(a.abs, b.abs, 32), lanes2(&|x, y| x | y)),
            8 => (xor(a.abs, b.abs, 32), lanes2(&|x, y| x ^ y)),
            9 => (or(a.abs, c(mask), 32), lanes2(&|x, _| x | mask)),
            _ => {
                let signed = rng.below(2) == 0;
                let narrow = trunc(a.abs, 16);
                let wide = ext(narrow, 16, 32, signed);
                let f = move |x: u32, _| {
                    if signed {
                        (x as u16 as i16) as i32 as u32
                    } else {
                        u32::from(x as u16)
                    }
                };
                (wide, lanes2(&f))
            }
        };
        Val { abs, lanes }
    }

    /// What `v.abs` claims holds on `v.lanes`.
    fn check_claims(v: &Val, what: &str) {
        let a = v.abs;
        assert!(!a.is_top(), "{what}: ⊤ for a computed value");
        if a.is_divergent() {
            return;
        }
        let Coef::Int(c) = a.coef else { unreachable!() };
        for warp in &v.lanes {
            for (l, &x) in warp.iter().enumerate() {
                let lane_term = (c as i128 * l as i128) as u32;
                assert_eq!(
                    x.wrapping_sub(warp[0]),
                    lane_term,
                    "{what}: lane {l}, {a:?}"
                );
                if a.exact & EXACT_UNSIGNED != 0 {
                    let d = i128::from(x) - i128::from(warp[0]);
                    assert_eq!(d, c as i128 * l as i128, "{what}: unsigned wrap, {a:?}");
                }
                if a.exact & EXACT_SIGNED != 0 {
                    let d = i128::from(x as i32) - i128::from(warp[0] as i32);
                    assert_eq!(d, c as i128 * l as i128, "{what}: signed wrap, {a:?}");
                }
                if let Some(m) = a.bound(32) {
                    assert!(u64::from(x) <= m, "{what}: {x} above the bound {m}, {a:?}");
                }
                if let Some(bits) = a.possible_bits(32) {
                    assert_eq!(
                        u64::from(x) & !bits,
                        0,
                        "{what}: bit outside {bits:#x}, {a:?}"
                    );
                }
            }
            if let Coef::Int(b) = a.base {
                assert_eq!(warp[0], b as u32, "{what}: base, {a:?}");
            }
            if a.align < 32 {
                let lane0_base = warp[0];
                assert_eq!(
                    lane0_base & ((1u32 << a.align) - 1),
                    0,
                    "{what}: alignment, {a:?}"
                );
            }
        }
        if a.scope == Scope::Block {
            assert_eq!(v.lanes[0][0], v.lanes[1][0], "{what}: block scope, {a:?}");
        }
    }

    #[test]
    fn random_expressions_keep_their_claims() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for case in 0..20_000 {
            let ntid = 32 * (1 + rng.below(32) as u32);
            let warps_in_block = ntid / 32;
            let warps = [
                rng.below(u64::from(warps_in_block)) as u32,
                rng.below(u64::from(warps_in_block)) as u32,
            ];
            let mut pool: Vec<Val> = (0..3).map(|_| leaf(&mut rng, warps, ntid)).collect();
            for step in 0..6 {
                let a = pool[rng.below(pool.len() as u64) as usize];
                let b = pool[rng.below(pool.len() as u64) as usize];
                let v = apply(&mut rng, a, b);
                check_claims(&v, &format!("case {case} step {step}"));
                // A join point: the meet must describe whichever side arrives.
                let joined = a.abs.meet(b.abs);
                for side in [a, b] {
                    let at_join = Val {
                        abs: joined,
                        lanes: side.lanes,
                    };
                    check_claims(&at_join, &format!("case {case} step {step}, meet"));
                }
                pool.push(v);
            }
        }
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
        // The warpgroup (CUTLASS's sm_90 kernels: `%tid.x >> 7`, `%tid.x & ~127`): the warp's
        // base is a multiple of 32 only, but its lanes never carry past bit 4.
        assert_eq!(
            shr(t, Abs::constant(7), 32, false).class(),
            Class::Uniform(Scope::Warp)
        );
        assert_eq!(
            and(t, Abs::constant(!127), 32).class(),
            Class::Uniform(Scope::Warp)
        );
        // A base aligned to 8 only: lanes 8 and up carry into the shifted bits.
        let b8 = mul(
            Abs::uniform(Scope::Block),
            Abs::constant(8),
            32,
            NoWrap::NONE,
        );
        let i8 = add(b8, t, 32, NoWrap::BOTH);
        assert_eq!(shr(i8, Abs::constant(7), 32, false), Abs::DIVERGENT);
        assert_eq!(and(i8, Abs::constant(!127), 32), Abs::DIVERGENT);
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
