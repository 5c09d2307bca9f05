//! The SASS datapath on concrete bits: float arithmetic with rounding modes, flushing and
//! saturation (exact, through `emu::float`), comparisons, `MUFU` approximations, conversions,
//! `LOP3`/`PRMT`/`SHF` bit manipulation.
//!
//! RegDem §3 (the oracle): each function is pure so it can be unit-tested against the PTX
//! emulator's semantics, which the SASS of a PTX instruction must reproduce.
//!
//! `MUFU` (the special-function unit): the hardware computes approximations whose error bounds
//! NVIDIA documents for the PTX instructions built on them (`ex2.approx.f32`: 2 ulp, `lg2`:
//! 2^-22.6 absolute, `sin/cos`: 2^-20.9 absolute in [-π, π], `rcp/rsqrt.approx`: 1 ulp). The
//! emulator returns the correctly rounded value of the exact function instead (deterministic, at
//! least as accurate as the hardware). For `RCP`/`RSQ` used inside ptxas's IEEE division and
//! square-root sequences the Newton steps that follow make the final result correctly rounded
//! either way, so those stay bit-exact; kernels whose results are the approximations themselves
//! are compared with the stated tolerance (docs/emulator.md, "SASS emulator").

use crate::emu::float::{self, Fmt, Rnd, F16, F32, F64};

use super::decode::{BoolOp, Cmp, FMods, Mufu};

/// Canonical f32 NaN.
pub const NAN32: u32 = 0x7fff_ffff;

fn is_sub32(b: u32) -> bool {
    b & 0x7f80_0000 == 0 && b & 0x007f_ffff != 0
}

/// Flushes an f32 subnormal to a signed zero.
#[inline]
pub fn ftz32(b: u32) -> u32 {
    if is_sub32(b) {
        b & 0x8000_0000
    } else {
        b
    }
}

fn f32of(b: u32) -> f64 {
    f64::from(f32::from_bits(b))
}

#[inline]
fn fin32(r: u64, m: FMods) -> u32 {
    let mut r = r as u32;
    if m.ftz {
        r = ftz32(r);
    }
    if m.sat {
        r = float::saturate(u64::from(r), F32) as u32;
    }
    r
}

/// `FADD`.
#[inline]
pub fn fadd(a: u32, b: u32, m: FMods) -> u32 {
    let (a, b) = if m.ftz { (ftz32(a), ftz32(b)) } else { (a, b) };
    if m.rnd == Rnd::Rn {
        let r = f32::from_bits(a) + f32::from_bits(b);
        return fin32(u64::from(canon32(r)), m);
    }
    fin32(
        float::arith(float::FOp::Add, f32of(a), f32of(b), F32, m.rnd),
        m,
    )
}

/// `FMUL`.
#[inline]
pub fn fmul(a: u32, b: u32, m: FMods) -> u32 {
    let (a, b) = if m.ftz { (ftz32(a), ftz32(b)) } else { (a, b) };
    if m.rnd == Rnd::Rn {
        let r = f32::from_bits(a) * f32::from_bits(b);
        return fin32(u64::from(canon32(r)), m);
    }
    fin32(
        float::arith(float::FOp::Mul, f32of(a), f32of(b), F32, m.rnd),
        m,
    )
}

/// `FFMA`.
#[inline]
pub fn ffma(a: u32, b: u32, c: u32, m: FMods) -> u32 {
    let (a, b, c) = if m.ftz {
        (ftz32(a), ftz32(b), ftz32(c))
    } else {
        (a, b, c)
    };
    if m.rnd == Rnd::Rn {
        let r = f32::from_bits(a).mul_add(f32::from_bits(b), f32::from_bits(c));
        return fin32(u64::from(canon32(r)), m);
    }
    fin32(float::fma(f32of(a), f32of(b), f32of(c), F32, m.rnd), m)
}

#[inline]
fn canon32(r: f32) -> u32 {
    if r.is_nan() {
        NAN32
    } else {
        r.to_bits()
    }
}

/// `FMNMX`: `min` when `pmin`, else `max`; a NaN operand is ignored; −0 < +0.
#[inline]
pub fn fmnmx(a: u32, b: u32, pmin: bool, ftz: bool) -> u32 {
    let (a, b) = if ftz { (ftz32(a), ftz32(b)) } else { (a, b) };
    let (x, y) = (f32::from_bits(a), f32::from_bits(b));
    if x.is_nan() && y.is_nan() {
        return NAN32;
    }
    if x.is_nan() {
        return b;
    }
    if y.is_nan() {
        return a;
    }
    let key = |v: u32| -> i64 {
        // Total order on non-NaN values with -0 < +0.
        if v & 0x8000_0000 != 0 {
            -i64::from(v & 0x7fff_ffff) - 1
        } else {
            i64::from(v)
        }
    };
    let a_less = key(a) < key(b);
    if pmin == a_less {
        a
    } else {
        b
    }
}

/// A float comparison (`unordered` = either operand NaN).
pub fn fcmp(cmp: Cmp, x: f64, y: f64) -> bool {
    let un = x.is_nan() || y.is_nan();
    match cmp {
        Cmp::F => false,
        Cmp::T => true,
        Cmp::Lt => !un && x < y,
        Cmp::Eq => !un && x == y,
        Cmp::Le => !un && x <= y,
        Cmp::Gt => !un && x > y,
        Cmp::Ne => !un && x != y,
        Cmp::Ge => !un && x >= y,
        Cmp::Num => !un,
        Cmp::Nan => un,
        Cmp::Ltu => un || x < y,
        Cmp::Equ => un || x == y,
        Cmp::Leu => un || x <= y,
        Cmp::Gtu => un || x > y,
        Cmp::Neu => un || x != y,
        Cmp::Geu => un || x >= y,
    }
}

/// f32 bits to f64 for comparisons (with `.FTZ`).
pub fn f32cmp_val(b: u32, ftz: bool) -> f64 {
    f32of(if ftz { ftz32(b) } else { b })
}

/// An integer comparison; `.EX` chains with `pin` (the low part's result).
pub fn icmp(cmp: Cmp, a: u32, b: u32, unsigned: bool, ex: Option<bool>) -> bool {
    let ord = if unsigned {
        a.cmp(&b)
    } else {
        (a as i32).cmp(&(b as i32))
    };
    use std::cmp::Ordering::*;
    match ex {
        None => match cmp {
            Cmp::Lt => ord == Less,
            Cmp::Le => ord != Greater,
            Cmp::Gt => ord == Greater,
            Cmp::Ge => ord != Less,
            Cmp::Eq => ord == Equal,
            Cmp::Ne => ord != Equal,
            Cmp::T => true,
            _ => false,
        },
        Some(p) => match cmp {
            Cmp::Lt | Cmp::Le => ord == Less || ord == Equal && p,
            Cmp::Gt | Cmp::Ge => ord == Greater || ord == Equal && p,
            Cmp::Eq => ord == Equal && p,
            Cmp::Ne => ord != Equal || p,
            Cmp::T => true,
            _ => false,
        },
    }
}

/// Combines a comparison with the extra predicate.
pub fn combine(r: bool, bop: BoolOp, c: bool) -> bool {
    match bop {
        BoolOp::And => r && c,
        BoolOp::Or => r || c,
        BoolOp::Xor => r ^ c,
    }
}

/// `LOP3.LUT`.
#[inline]
pub fn lop3(a: u32, b: u32, c: u32, lut: u8) -> u32 {
    let mut r = 0u32;
    for i in 0..8 {
        if lut >> i & 1 == 1 {
            let ma = if i & 4 != 0 { a } else { !a };
            let mb = if i & 2 != 0 { b } else { !b };
            let mc = if i & 1 != 0 { c } else { !c };
            r |= ma & mb & mc;
        }
    }
    r
}

/// `PRMT` (default mode): bytes of `{b, a}` chosen by the selector's nibbles; bit 3 of a nibble
/// replicates the chosen byte's sign.
#[inline]
pub fn prmt(a: u32, sel: u32, b: u32) -> u32 {
    let bytes = (u64::from(b) << 32 | u64::from(a)).to_le_bytes();
    let mut r = 0u32;
    for i in 0..4 {
        let s = (sel >> (4 * i)) & 0xf;
        let byte = bytes[(s & 7) as usize];
        let v = if s & 8 != 0 {
            if byte & 0x80 != 0 {
                0xff
            } else {
                0
            }
        } else {
            byte
        };
        r |= u32::from(v) << (8 * i);
    }
    r
}

/// The form of an `SHF`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShfMode {
    /// Left shift (`.L`), else right.
    pub left: bool,
    /// 64-bit type (`.U64`/`.S64`): amounts clamp at 64.
    pub w64: bool,
    /// Signed (arithmetic right shift).
    pub signed: bool,
    /// Result is the high word (`.HI`).
    pub hi: bool,
    /// `.W`: the amount wraps instead of clamping.
    pub wrap: bool,
}

/// `SHF`: funnel shift of `{hi: c, lo: a}`.
#[inline]
pub fn shf(a: u32, s: u32, c: u32, m: ShfMode) -> u32 {
    let ShfMode {
        left,
        w64,
        signed,
        hi,
        wrap,
    } = m;
    let lim = if w64 { 64 } else { 32 };
    let s = if wrap { s & (lim - 1) } else { s.min(lim) };
    let v = u64::from(c) << 32 | u64::from(a);
    if left {
        let r = (u128::from(v)) << s;
        if hi {
            (r >> 32) as u32
        } else {
            r as u32
        }
    } else {
        let r = if signed {
            let sv = if w64 {
                v as i64
            } else {
                // 32-bit signed types: the value's sign is the high word's.
                v as i64
            };
            (i128::from(sv) >> s) as u64
        } else {
            ((u128::from(v)) >> s) as u64
        };
        if hi {
            (r >> 32) as u32
        } else {
            r as u32
        }
    }
}

/// `FCHK`: true when `a / b` must take the slow path of ptxas's division sequence (operands that
/// are zero, infinite, NaN or subnormal, or quotient exponents near the ends of the range). The
/// test is conservative: the slow path computes the IEEE quotient for every input.
pub fn fchk(a: u32, b: u32) -> bool {
    let ea = ((a >> 23) & 0xff) as i32;
    let eb = ((b >> 23) & 0xff) as i32;
    if ea == 0 || ea == 0xff || eb == 0 || eb == 0xff {
        return true;
    }
    let d = ea - eb;
    !(-125..=125).contains(&d) || ea >= 253 || ea <= 2 || eb >= 253 || eb <= 2
}

/// `MUFU`: `x` is f32 bits (for `RCP64H`/`RSQ64H`: the high word of an f64).
pub fn mufu(f: Mufu, x: u32) -> u32 {
    let v = f32of(x);
    let r = match f {
        Mufu::Rcp => 1.0 / v,
        Mufu::Rsq => 1.0 / v.sqrt(),
        Mufu::Sqrt => v.sqrt(),
        // The hardware flushes subnormal inputs and results of EX2/LG2/SIN/COS.
        Mufu::Ex2 => f32of(ftz32(x)).exp2(),
        Mufu::Lg2 => f32of(ftz32(x)).log2(),
        // SIN/COS take their argument in revolutions: ptxas multiplies by 1/(2π) first.
        Mufu::Sin => (f32of(ftz32(x)) * std::f64::consts::TAU).sin(),
        Mufu::Cos => (f32of(ftz32(x)) * std::f64::consts::TAU).cos(),
        Mufu::Tanh => v.tanh(),
        Mufu::Rcp64h | Mufu::Rsq64h => {
            let d = f64::from_bits(u64::from(x) << 32);
            let r = if f == Mufu::Rcp64h {
                1.0 / d
            } else {
                1.0 / d.sqrt()
            };
            return if r.is_nan() {
                0x7fff_ffff
            } else {
                (r.to_bits() >> 32) as u32
            };
        }
    };
    let bits = float::from_f64(r, F32, Rnd::Rn) as u32;
    match f {
        Mufu::Ex2 | Mufu::Lg2 | Mufu::Sin | Mufu::Cos => ftz32(bits),
        _ => bits,
    }
}

/// f64 arithmetic: `op` 0 add, 1 mul.
pub fn darith(op: u8, a: u64, b: u64, rnd: Rnd) -> u64 {
    let (x, y) = (f64::from_bits(a), f64::from_bits(b));
    if rnd == Rnd::Rn {
        let r = if op == 0 { x + y } else { x * y };
        return if r.is_nan() {
            F64.canonical_nan()
        } else {
            r.to_bits()
        };
    }
    let fop = if op == 0 {
        float::FOp::Add
    } else {
        float::FOp::Mul
    };
    float::arith(fop, x, y, F64, rnd)
}

/// `DFMA`.
pub fn dfma(a: u64, b: u64, c: u64, rnd: Rnd) -> u64 {
    let (x, y, z) = (f64::from_bits(a), f64::from_bits(b), f64::from_bits(c));
    if rnd == Rnd::Rn {
        let r = x.mul_add(y, z);
        return if r.is_nan() {
            F64.canonical_nan()
        } else {
            r.to_bits()
        };
    }
    float::fma(x, y, z, F64, rnd)
}

/// The value of `bits` in format `fmt` (16, 32 or 64 bits).
pub fn to_f64(bits: u64, w: u32) -> f64 {
    match w {
        16 => F16.to_f64(bits & 0xffff),
        32 => f32of(bits as u32),
        _ => f64::from_bits(bits),
    }
}

/// The format of a width.
pub fn fmt_of(w: u32) -> Fmt {
    match w {
        16 => F16,
        32 => F32,
        _ => F64,
    }
}

/// Integer → float.
pub fn i2f(v: u64, bits: u32, signed: bool, fmt: Fmt, rnd: Rnd) -> u64 {
    let v = if bits < 64 {
        v & ((1u64 << bits) - 1)
    } else {
        v
    };
    if signed {
        let sv = if bits < 64 {
            ((v << (64 - bits)) as i64) >> (64 - bits)
        } else {
            v as i64
        };
        float::from_int(sv < 0, sv.unsigned_abs(), fmt, rnd)
    } else {
        float::from_int(false, v, fmt, rnd)
    }
}

/// Float → integer (saturating, NaN → 0).
pub fn f2i(x: f64, bits: u32, signed: bool, rnd: Rnd) -> u64 {
    float::to_int(x, rnd, bits, signed)
}

/// One f16x2 or bf16x2 (`fmt`) operation on packed halves (`op` 0 add, 1 mul, 2 fma).
pub fn h2(op: u8, a: u32, b: u32, c: u32, m: FMods, fmt: Fmt) -> u32 {
    let mut r = 0u32;
    for h in 0..2 {
        let g = |v: u32| fmt.to_f64(u64::from(v >> (16 * h) & 0xffff));
        let (x, y, z) = (g(a), g(b), g(c));
        let v = match op {
            0 => float::arith(float::FOp::Add, x, y, fmt, m.rnd),
            1 => float::arith(float::FOp::Mul, x, y, fmt, m.rnd),
            _ => float::fma(x, y, z, fmt, m.rnd),
        };
        let v = if m.sat { float::saturate(v, fmt) } else { v };
        r |= (v as u32 & 0xffff) << (16 * h);
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bit_ops() {
        assert_eq!(lop3(0xf0, 0xcc, 0xaa, 0x80), 0x80);
        assert_eq!(lop3(0xf0, 0xcc, 0xaa, 0xfe), 0xfe);
        assert_eq!(prmt(0x4433_2211, 0x7610, 0x8877_6655), 0x8877_2211);
        assert_eq!(prmt(0x0000_0080, 0x8880, 0), 0xffff_ff80);
        let m = |left, w64, signed, hi| ShfMode {
            left,
            w64,
            signed,
            hi,
            wrap: false,
        };
        assert_eq!(shf(0x8000_0000, 1, 0x1, m(true, false, false, true)), 0x3);
        assert_eq!(
            shf(0, 0x1f, 0x8000_0000, m(false, false, true, true)),
            u32::MAX
        );
        assert_eq!(shf(0x10, 4, 0x1, m(false, true, false, false)), 0x1000_0001);
    }

    #[test]
    fn compares() {
        assert!(icmp(Cmp::Lt, 1, 2, false, None));
        assert!(!icmp(Cmp::Lt, u32::MAX, 2, true, None));
        assert!(icmp(Cmp::Lt, u32::MAX, 2, false, None));
        // 64-bit 0x1_00000000 > 0x0_ffffffff through .EX.
        let lo = icmp(Cmp::Gt, 0, 0xffff_ffff, true, None);
        assert!(icmp(Cmp::Gt, 1, 0, false, Some(lo)));
        assert!(fcmp(Cmp::Neu, f64::NAN, 1.0));
        assert!(!fcmp(Cmp::Ne, f64::NAN, 1.0));
    }

    #[test]
    fn floats() {
        let m = FMods {
            rnd: Rnd::Rn,
            ftz: false,
            sat: false,
        };
        assert_eq!(
            fadd(1.0f32.to_bits(), 2.0f32.to_bits(), m),
            3.0f32.to_bits()
        );
        assert_eq!(
            fmnmx((-0.0f32).to_bits(), 0.0f32.to_bits(), true, false),
            (-0.0f32).to_bits()
        );
        assert_eq!(
            fmnmx(NAN32, 2.0f32.to_bits(), true, false),
            2.0f32.to_bits()
        );
        assert!(fchk(0, 1.0f32.to_bits()));
        assert!(!fchk(3.0f32.to_bits(), 7.0f32.to_bits()));
    }
}
