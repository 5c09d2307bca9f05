//! The value domain the interpreter is generic over (DESIGN.md: "The emulator is written once,
//! generic over a value domain: concrete values … and Z3 bit-vectors").
//!
//! The interpreter ([`super::exec`]) owns control flow, the SIMT stack, memory layout, barriers and
//! warp-level communication; everything that computes a *value* goes through a [`Domain`]:
//!
//! - a value ([`Domain::Val`]) is the content of one register of one lane: a bit vector of at most
//!   64 bits, kept zero-extended (predicates are one bit, `0` or `1`);
//! - every arithmetic, logic, comparison and conversion instruction of PTX ISA §9.7.1–§9.7.9 is one
//!   [`Op`] (the instruction's type and modifiers are part of the op), applied per lane by
//!   [`Domain::apply`];
//! - where control or addressing needs a number — a branch predicate, a memory address, a shuffle
//!   lane, a barrier id — the interpreter asks [`Domain::concrete`]. A concrete domain always
//!   answers; a symbolic domain answers for values that are constants and otherwise the run stops
//!   with [`DomainError::Symbolic`] (or the domain handles the case through the hooks
//!   [`Domain::load_symbolic`] for loads from symbolic addresses);
//! - memory holds concrete bytes; [`Domain::load`] and [`Domain::store`] convert between values
//!   and bytes and receive the exact location ([`MemAt`]), so a symbolic domain can keep an
//!   overlay of symbolic memory contents keyed by location.
//!
//! A Z3 bit-vector domain implements the same trait with `Val = z3::ast::BV` (64-bit, zero-extended
//! like the concrete domain) and reuses the whole interpreter.

use std::fmt;

use super::float::Rnd;

/// Why a domain could not compute a value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DomainError {
    /// A value that must be concrete (branch condition, address, lane index) is symbolic.
    #[error("value is symbolic where a concrete value is needed ({0})")]
    Symbolic(&'static str),
    /// The domain does not implement this operation.
    #[error("operation not supported by the {domain} domain: {op}")]
    Unsupported { domain: &'static str, op: String },
}

/// A floating-point format of an operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FTy {
    /// `.f16`
    F16,
    /// `.bf16`
    Bf16,
    /// `.f32`
    F32,
    /// `.f64`
    F64,
    /// `.f16x2`: two f16 in the halves of 32 bits, operated on independently.
    F16x2,
    /// `.bf16x2`
    Bf16x2,
}

impl FTy {
    /// Width in bits of a value of this type.
    pub fn bits(self) -> u32 {
        match self {
            FTy::F16 | FTy::Bf16 => 16,
            FTy::F32 | FTy::F16x2 | FTy::Bf16x2 => 32,
            FTy::F64 => 64,
        }
    }
}

/// Floating-point modifiers of one instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FMods {
    /// `.rn .rz .rm .rp` (`.rn` when absent, as PTX defines for `add`/`mul`/`fma`).
    pub rnd: Rnd,
    /// `.ftz`: flush subnormal inputs and results to sign-preserving zero.
    pub ftz: bool,
    /// `.sat`: clamp the result to [0.0, 1.0] (NaN → 0).
    pub sat: bool,
}

/// A comparison operator of `setp`/`set`/`slct` (PTX ISA §9.7.7.1–2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cmp {
    /// `.eq`
    Eq,
    /// `.ne`
    Ne,
    /// `.lt` (signed or float)
    Lt,
    /// `.le`
    Le,
    /// `.gt`
    Gt,
    /// `.ge`
    Ge,
    /// `.lo` (unsigned <)
    Lo,
    /// `.ls` (unsigned <=)
    Ls,
    /// `.hi` (unsigned >)
    Hi,
    /// `.hs` (unsigned >=)
    Hs,
    /// `.equ` (unordered or equal)
    Equ,
    /// `.neu`
    Neu,
    /// `.ltu`
    Ltu,
    /// `.leu`
    Leu,
    /// `.gtu`
    Gtu,
    /// `.geu`
    Geu,
    /// `.num` (both numbers)
    Num,
    /// `.nan` (either NaN)
    Nan,
}

impl Cmp {
    /// Parses a comparison word.
    pub fn parse(s: &str) -> Option<Cmp> {
        Some(match s {
            "eq" => Cmp::Eq,
            "ne" => Cmp::Ne,
            "lt" => Cmp::Lt,
            "le" => Cmp::Le,
            "gt" => Cmp::Gt,
            "ge" => Cmp::Ge,
            "lo" => Cmp::Lo,
            "ls" => Cmp::Ls,
            "hi" => Cmp::Hi,
            "hs" => Cmp::Hs,
            "equ" => Cmp::Equ,
            "neu" => Cmp::Neu,
            "ltu" => Cmp::Ltu,
            "leu" => Cmp::Leu,
            "gtu" => Cmp::Gtu,
            "geu" => Cmp::Geu,
            "num" => Cmp::Num,
            "nan" => Cmp::Nan,
            _ => return None,
        })
    }
}

/// `testp` properties.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TestP {
    /// `.finite`
    Finite,
    /// `.infinite`
    Infinite,
    /// `.number`
    Number,
    /// `.notanumber`
    NotANumber,
    /// `.normal`
    Normal,
    /// `.subnormal`
    Subnormal,
}

/// The approximate special functions (PTX ISA §9.7.3.13–22). Their concrete results are
/// correctly rounded (or nearly so) where hardware gives an approximation: see docs/emulator.md.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Approx {
    /// `sin.approx`
    Sin,
    /// `cos.approx`
    Cos,
    /// `lg2.approx`
    Lg2,
    /// `ex2.approx`
    Ex2,
    /// `rsqrt.approx`
    Rsqrt,
    /// `rcp.approx`
    Rcp,
    /// `sqrt.approx`
    Sqrt,
    /// `tanh.approx`
    Tanh,
}

/// `prmt` modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PrmtMode {
    /// Default: a nibble selector per result byte.
    Default,
    /// `.f4e`
    F4e,
    /// `.b4e`
    B4e,
    /// `.rc8`
    Rc8,
    /// `.ecl`
    Ecl,
    /// `.ecr`
    Ecr,
    /// `.rc16`
    Rc16,
}

/// What a conversion reads and writes (`cvt`, and the implicit extensions of `ld`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NumTy {
    /// An integer of `bits` width, signed or not (`.b` types count as unsigned).
    Int { bits: u32, signed: bool },
    /// A float.
    Float(FTy),
}

/// A `cvt` (PTX ISA §9.7.9.21).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CvtSpec {
    /// Destination type.
    pub dst: NumTy,
    /// Width of the destination register: integer results are sign- (signed destination types)
    /// or zero-extended to it, as PTX defines for registers wider than the instruction type.
    pub reg_bits: u32,
    /// Source type.
    pub src: NumTy,
    /// Rounding: `.rn…` for float results, `.rni…` for integer rounding (float→int and
    /// float→float-integral); `None` when absent.
    pub rnd: Option<Rnd>,
    /// True for the integer rounding modes `.rni .rzi .rmi .rpi`.
    pub int_rnd: bool,
    /// `.ftz`
    pub ftz: bool,
    /// `.sat`
    pub sat: bool,
    /// `.relu` (f16/bf16 results: negative → 0)
    pub relu: bool,
}

/// One value operation. Widths are in bits; integer ops read the low `bits` of their arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// The first argument unchanged.
    Mov,
    /// `a + b` (wrapping; `sat`: clamp to the signed range, s32 only).
    Add { bits: u32, sat: bool },
    /// `a - b`
    Sub { bits: u32, sat: bool },
    /// `a + b + c` (c is the carry-in bit).
    AddC { bits: u32 },
    /// `a + !b + c` = `a - b - (1 - c)`: subtraction as the hardware computes it, with the carry
    /// flag meaning *no borrow* (`sub.cc` is `SubC` with `c = 1`).
    SubC { bits: u32 },
    /// The carry out of `a + b + c` (one bit).
    CarryOut { bits: u32 },
    /// The carry out of `a + !b + c` (one bit: 1 when the subtraction did not borrow).
    SubCarryOut { bits: u32 },
    /// Low half of `a * b`.
    MulLo { bits: u32 },
    /// High half of `a * b`.
    MulHi { bits: u32, signed: bool },
    /// The full `2*bits` product.
    MulWide { bits: u32, signed: bool },
    /// `mul24.lo/.hi`: product of the low 24 bits.
    Mul24 { hi: bool, signed: bool },
    /// `mad.hi` with `.sat` (s32): `sat(hi(a*b) + c)`; without sat use MulHi + Add.
    MadHiSat,
    /// `|a - b| + c`
    Sad { bits: u32, signed: bool },
    /// Integer division (truncating). Division by zero: all ones (unsigned), -1 (signed).
    Div { bits: u32, signed: bool },
    /// Integer remainder (sign of the dividend). By zero: the dividend.
    Rem { bits: u32, signed: bool },
    /// `|a|` (wrapping)
    AbsI { bits: u32 },
    /// `-a` (wrapping)
    NegI { bits: u32 },
    /// `min`
    MinI { bits: u32, signed: bool },
    /// `max`
    MaxI { bits: u32, signed: bool },
    /// Population count (32-bit result).
    Popc { bits: u32 },
    /// Leading zeros (32-bit result).
    Clz { bits: u32 },
    /// `bfind`: position of the most significant non-sign bit, 0xffffffff if none.
    Bfind {
        bits: u32,
        signed: bool,
        shiftamt: bool,
    },
    /// Bit reversal.
    Brev { bits: u32 },
    /// `bfe a, pos, len`
    Bfe { bits: u32, signed: bool },
    /// `bfi a(field), b(base), pos, len`
    Bfi { bits: u32 },
    /// `szext.mode.type a, b`
    Szext { signed: bool, clamp: bool },
    /// `bmsk.mode a, b`
    Bmsk { clamp: bool },
    /// `dp4a`
    Dp4a { a_signed: bool, b_signed: bool },
    /// `dp2a.lo/.hi`
    Dp2a {
        hi: bool,
        a_signed: bool,
        b_signed: bool,
    },
    /// `a & b`
    And { bits: u32 },
    /// `a | b`
    Or { bits: u32 },
    /// `a ^ b`
    Xor { bits: u32 },
    /// `!a`
    Not { bits: u32 },
    /// `a == 0 ? 1 : 0`
    Cnot { bits: u32 },
    /// `lop3` with the given truth table.
    Lop3 { lut: u8 },
    /// `a << b` (b unsigned; ≥ bits gives 0)
    Shl { bits: u32 },
    /// `a >> b` (arithmetic when signed)
    Shr { bits: u32, signed: bool },
    /// `shf.l/.r` funnel shift of `{b, a}` by `c`.
    Shf { left: bool, wrap: bool },
    /// `prmt a, b, c`
    Prmt { mode: PrmtMode },
    /// Truncation or zero/sign extension from `from` to `to` bits.
    Ext { from: u32, to: u32, signed: bool },
    /// `c ? a : b` (c is a predicate).
    Select,
    /// Integer comparison → predicate.
    CmpI { cmp: Cmp, bits: u32, signed: bool },
    /// Float comparison → predicate (packed types: use [`Op::CmpHalf`]).
    CmpF { cmp: Cmp, ty: FTy, ftz: bool },
    /// Comparison of one half (`hi`) of packed f16x2/bf16x2 values → predicate.
    CmpHalf {
        cmp: Cmp,
        ty: FTy,
        hi: bool,
        ftz: bool,
    },
    /// Float add.
    FAdd { ty: FTy, m: FMods },
    /// Float subtract.
    FSub { ty: FTy, m: FMods },
    /// Float multiply.
    FMul { ty: FTy, m: FMods },
    /// IEEE division (`div.rn/.rz/.rm/.rp`, and `div.f64`).
    FDiv { ty: FTy, m: FMods },
    /// `div.approx.f32`
    FDivApprox { ftz: bool },
    /// `div.full.f32`: ptxas's range-scaled `a * rcp(b)`, not IEEE division.
    FDivFull { ftz: bool },
    /// Fused multiply-add.
    FFma { ty: FTy, m: FMods },
    /// `min` (`nan`: NaN-propagating form `.NaN`).
    FMin { ty: FTy, ftz: bool, nan: bool },
    /// `max`
    FMax { ty: FTy, ftz: bool, nan: bool },
    /// `neg`
    FNeg { ty: FTy, ftz: bool },
    /// `abs`
    FAbs { ty: FTy, ftz: bool },
    /// IEEE square root.
    FSqrt { ty: FTy, m: FMods },
    /// IEEE reciprocal (`rcp.rn` …).
    FRcp { ty: FTy, m: FMods },
    /// An approximate function.
    FApprox { f: Approx, ty: FTy, ftz: bool },
    /// `copysign a, b`: b with the sign of a.
    Copysign { ty: FTy },
    /// `testp` → predicate.
    Testp { ty: FTy, test: TestP },
    /// Conversion.
    Cvt(CvtSpec),
    /// `cvt.rn{.relu}{.satfinite}.f16x2.f32 d, a, b` (a → upper half) and the bf16x2 form.
    CvtPack { ty: FTy, rnd: Rnd, relu: bool },
    /// The packed 8-bit float conversions ([`crate::emu::fp8`]).
    CvtFp8 {
        fmt: crate::emu::fp8::Fp8,
        how: crate::emu::fp8::Fp8Cvt,
        relu: bool,
    },
    /// `atom.inc`: `a >= b ? 0 : a + 1`
    AtomInc,
    /// `atom.dec`: `a == 0 || a > b ? b : a - 1`
    AtomDec,
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
}

/// Where a memory access lands, for domains that keep symbolic memory contents.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MemAt {
    /// The region: see [`super::memory::Region`].
    pub region: super::memory::Region,
    /// Byte offset in the region.
    pub offset: u64,
    /// Access size in bytes (1, 2, 4 or 8).
    pub size: u32,
}

/// The state space of a memory access.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    /// Generic addressing.
    Generic,
    /// `.global`
    Global,
    /// `.shared` (`::cta`)
    Shared,
    /// `.local`
    Local,
    /// `.const`
    Const,
    /// `.param` (kernel parameters, addressed)
    Param,
}

/// A value domain.
pub trait Domain {
    /// The content of one register of one lane.
    type Val: Clone + fmt::Debug;

    /// The domain's name for messages (`concrete`, `z3`).
    fn name(&self) -> &'static str;

    /// A constant (the low bits are meaningful; the rest are zero).
    fn lit(&mut self, bits: u64) -> Self::Val;

    /// The value of a register before anything wrote it.
    fn undef(&mut self) -> Self::Val {
        self.lit(0)
    }

    /// The concrete bits of `v`, if the domain knows them.
    fn concrete(&self, v: &Self::Val) -> Option<u64>;

    /// Applies `op` to `args` (as many as the op takes).
    fn apply(&mut self, op: Op, args: &[Self::Val]) -> Result<Self::Val, DomainError>;

    /// Applies `op` for every lane of `active` at once: `dst[lane] = op(args[0][lane], …)`; each
    /// argument and `dst` hold 32 lanes. The interpreter executes ALU instructions through this,
    /// so a domain can run a whole warp in one tight loop (the concrete domain does for its
    /// common operations). On error, the failing lane is returned with the error.
    fn apply_lanes(
        &mut self,
        op: Op,
        active: u32,
        args: &[&[Self::Val]],
        dst: &mut [Self::Val],
    ) -> Result<(), (DomainError, usize)> {
        let mut m = active;
        while m != 0 {
            let lane = m.trailing_zeros() as usize;
            m &= m - 1;
            let v = match args.len() {
                1 => self.apply(op, &[args[0][lane].clone()]),
                2 => self.apply(op, &[args[0][lane].clone(), args[1][lane].clone()]),
                3 => self.apply(
                    op,
                    &[
                        args[0][lane].clone(),
                        args[1][lane].clone(),
                        args[2][lane].clone(),
                    ],
                ),
                _ => {
                    let v: Vec<Self::Val> = args.iter().map(|a| a[lane].clone()).collect();
                    self.apply(op, &v)
                }
            };
            dst[lane] = v.map_err(|e| (e, lane))?;
        }
        Ok(())
    }

    /// A special register's value for one lane (`%tid.x` …); `value` is the concrete value.
    /// A symbolic domain may return a symbol instead.
    fn special(&mut self, name: &'static str, lane: u32, value: u64) -> Self::Val {
        let _ = (name, lane);
        self.lit(value)
    }

    /// Reads a value from little-endian memory bytes at `at` (`bytes.len() == at.size`).
    fn load(&mut self, at: MemAt, bytes: &[u8]) -> Self::Val;

    /// Writes `v`'s low `at.size` bytes, little-endian, to `out`.
    fn store(&mut self, at: MemAt, v: &Self::Val, out: &mut [u8]) -> Result<(), DomainError>;

    /// A load from an address the domain cannot make concrete. The default refuses.
    fn load_symbolic(
        &mut self,
        space: Space,
        addr: &Self::Val,
        size: u32,
    ) -> Result<Self::Val, DomainError> {
        let _ = (space, addr, size);
        Err(DomainError::Symbolic("memory address"))
    }
}
