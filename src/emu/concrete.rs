//! The concrete value domain: every value is a `u64` holding the register's bits, zero-extended.
//!
//! Implements the semantics of PTX ISA §9.7.1 (integer), §9.7.2 (extended precision), §9.7.3–4
//! (single/double and half precision floating point), §9.7.5 (mixed precision), §9.7.7
//! (comparison and selection), §9.7.8 (logic and shift) and the value part of §9.7.9 (`cvt`,
//! `prmt`, `mov`), with the choices documented in docs/emulator.md:
//! - IEEE arithmetic is exact in every rounding mode ([`super::float`]); NaN results are the
//!   canonical NaN (`0x7fffffff` for f32, all-ones-but-sign for the other formats).
//! - `min`/`max` follow IEEE 754-2019 minimumNumber/maximumNumber (a NaN operand is ignored;
//!   `-0 < +0`); the `.NaN` forms propagate a canonical NaN.
//! - Integer division by zero is deterministic: all ones (unsigned), -1 (signed); the remainder
//!   by zero is the dividend.
//! - The `.approx` functions are computed with the host's f64 library and rounded to the format:
//!   usually *more* accurate than hardware, so they may differ from a GPU in the last bits.

use super::domain::{
    Approx, Cmp, CvtSpec, Domain, DomainError, FMods, FTy, MemAt, NumTy, Op, PrmtMode, TestP,
};
use super::float::{self, FOp, Fmt, Rnd};

/// The concrete domain (no state).
#[derive(Clone, Copy, Debug, Default)]
pub struct Concrete;

#[inline(always)]
fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

#[inline(always)]
fn sext(v: u64, bits: u32) -> i64 {
    if bits >= 64 {
        v as i64
    } else {
        let sh = 64 - bits;
        ((v << sh) as i64) >> sh
    }
}

/// Runs `f` for every active lane (all 32 in a branch-free loop when the warp is converged).
#[inline(always)]
fn each(active: u32, dst: &mut [u64], f: impl Fn(usize) -> u64) {
    let dst = &mut dst[..32];
    if active == u32::MAX {
        for (l, d) in dst.iter_mut().enumerate() {
            *d = f(l);
        }
    } else {
        let mut m = active;
        while m != 0 {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            dst[l] = f(l);
        }
    }
}

/// An f32 result's bits, NaN canonicalised.
#[inline(always)]
fn f32_result(r: f32) -> u64 {
    if r.is_nan() {
        0x7fff_ffff
    } else {
        u64::from(r.to_bits())
    }
}

/// Clamps `v` to the signed range of `bits` and returns its bits.
fn sat_signed(v: i128, bits: u32) -> u64 {
    let lo = -(1i128 << (bits - 1));
    let hi = (1i128 << (bits - 1)) - 1;
    (v.clamp(lo, hi) as u64) & mask(bits)
}

/// The format of a scalar float type (packed types: the format of one half).
pub(crate) fn fmt_of(ty: FTy) -> Fmt {
    match ty {
        FTy::F16 | FTy::F16x2 => float::F16,
        FTy::Bf16 | FTy::Bf16x2 => float::BF16,
        FTy::F32 => float::F32,
        FTy::F64 => float::F64,
    }
}

fn is_packed(ty: FTy) -> bool {
    matches!(ty, FTy::F16x2 | FTy::Bf16x2)
}

/// Applies `f` to each half of packed operands, or once to scalar ones.
#[inline]
fn per_half(ty: FTy, args: &[u64], f: impl Fn(Fmt, &[u64]) -> u64) -> u64 {
    let fmt = fmt_of(ty);
    if is_packed(ty) {
        let mut lo = [0u64; 3];
        let mut hi = [0u64; 3];
        for (i, a) in args.iter().enumerate().take(3) {
            lo[i] = a & 0xffff;
            hi[i] = (a >> 16) & 0xffff;
        }
        let n = args.len().min(3);
        let l = f(fmt, &lo[..n]) & 0xffff;
        let h = f(fmt, &hi[..n]) & 0xffff;
        (h << 16) | l
    } else {
        f(fmt, args) & mask(fmt.width())
    }
}

#[inline]
fn flush(fmt: Fmt, bits: u64, ftz: bool) -> u64 {
    if ftz {
        fmt.ftz(bits)
    } else {
        bits
    }
}

/// Finishes a float result: `.ftz` on the result, `.sat`.
#[inline]
fn finish(fmt: Fmt, bits: u64, m: FMods) -> u64 {
    let b = flush(fmt, bits, m.ftz);
    if m.sat {
        float::saturate(b, fmt)
    } else {
        b
    }
}

/// `add`/`sub`/`mul` of floats of type `ty` (packed halves lane by lane). Also the SASS
/// emulator's packed-half atomics.
pub fn farith(op: FOp, ty: FTy, m: FMods, a: u64, b: u64) -> u64 {
    per_half(ty, &[a, b], |fmt, v| {
        let x = flush(fmt, v[0], m.ftz);
        let y = flush(fmt, v[1], m.ftz);
        // Fast path: f32 round-to-nearest with native arithmetic (IEEE-exact).
        let r = if fmt == float::F32 && m.rnd == Rnd::Rn {
            let (fx, fy) = (f32::from_bits(x as u32), f32::from_bits(y as u32));
            let r = match op {
                FOp::Add => fx + fy,
                FOp::Sub => fx - fy,
                FOp::Mul => fx * fy,
                FOp::Div => fx / fy,
            };
            if r.is_nan() {
                fmt.canonical_nan()
            } else {
                u64::from(r.to_bits())
            }
        } else if fmt == float::F64 && m.rnd == Rnd::Rn {
            let (fx, fy) = (f64::from_bits(x), f64::from_bits(y));
            let r = match op {
                FOp::Add => fx + fy,
                FOp::Sub => fx - fy,
                FOp::Mul => fx * fy,
                FOp::Div => fx / fy,
            };
            if r.is_nan() {
                fmt.canonical_nan()
            } else {
                r.to_bits()
            }
        } else {
            float::arith(op, fmt.to_f64(x), fmt.to_f64(y), fmt, m.rnd)
        };
        finish(fmt, r, m)
    })
}

fn ffma(ty: FTy, m: FMods, a: u64, b: u64, c: u64) -> u64 {
    per_half(ty, &[a, b, c], |fmt, v| {
        let x = flush(fmt, v[0], m.ftz);
        let y = flush(fmt, v[1], m.ftz);
        let z = flush(fmt, v[2], m.ftz);
        let r = if fmt == float::F32 && m.rnd == Rnd::Rn {
            let r = f32::from_bits(x as u32)
                .mul_add(f32::from_bits(y as u32), f32::from_bits(z as u32));
            if r.is_nan() {
                fmt.canonical_nan()
            } else {
                u64::from(r.to_bits())
            }
        } else if fmt == float::F64 && m.rnd == Rnd::Rn {
            let r = f64::from_bits(x).mul_add(f64::from_bits(y), f64::from_bits(z));
            if r.is_nan() {
                fmt.canonical_nan()
            } else {
                r.to_bits()
            }
        } else {
            float::fma(fmt.to_f64(x), fmt.to_f64(y), fmt.to_f64(z), fmt, m.rnd)
        };
        finish(fmt, r, m)
    })
}

fn fminmax(ty: FTy, ftz: bool, nan: bool, is_max: bool, a: u64, b: u64) -> u64 {
    per_half(ty, &[a, b], |fmt, v| {
        min_max(
            fmt,
            nan,
            is_max,
            flush(fmt, v[0], ftz),
            flush(fmt, v[1], ftz),
        )
    })
}

/// `min`/`max` of two `fmt` values (already flushed where `.ftz` asks): a NaN operand gives the
/// other (`nan`, the `.NaN` forms: a canonical NaN), `-0 < +0`. Also the SASS emulator's
/// `HMNMX2`.
pub fn min_max(fmt: Fmt, nan: bool, is_max: bool, x: u64, y: u64) -> u64 {
    let (xn, yn) = (fmt.is_nan(x), fmt.is_nan(y));
    if xn || yn {
        if nan || (xn && yn) {
            return fmt.canonical_nan();
        }
        return if xn { y } else { x };
    }
    let (fx, fy) = (fmt.to_f64(x), fmt.to_f64(y));
    if fx == fy {
        // Equal values: only signed zeros differ; -0 < +0.
        let sign = 1u64 << (fmt.width() - 1);
        let x_neg = x & sign != 0;
        let pick_x = if is_max { !x_neg } else { x_neg };
        return if pick_x { x } else { y };
    }
    let x_wins = if is_max { fx > fy } else { fx < fy };
    if x_wins {
        x
    } else {
        y
    }
}

/// `bmsk`: `width` ones from bit `pos` (`clamp`: both saturate at 32; else both wrap mod 32).
/// Also the SASS emulator's `BMSK`.
pub fn bmsk(pos: u32, width: u32, clamp: bool) -> u32 {
    let (pos, w) = if clamp {
        (pos.min(32), width.min(32))
    } else {
        (pos & 31, width & 31)
    };
    ((mask(w) << pos) & 0xffff_ffff) as u32
}

/// `dp4a`: `c` plus the four byte products of `a` and `b` (each signed or not), wrapping.
/// Also the SASS emulator's `IDP.4A`.
pub fn dp4a(a: u32, b: u32, c: u32, a_signed: bool, b_signed: bool) -> u32 {
    let mut acc = c;
    for i in 0..4 {
        let x = u64::from(a >> (8 * i) & 0xff);
        let y = u64::from(b >> (8 * i) & 0xff);
        let x = if a_signed { sext(x, 8) } else { x as i64 };
        let y = if b_signed { sext(y, 8) } else { y as i64 };
        acc = acc.wrapping_add(x.wrapping_mul(y) as u32);
    }
    acc
}

/// `dp2a.lo`/`.hi`: `c` plus the products of `a`'s two 16-bit halves with bytes 0–1 (`hi`: 2–3)
/// of `b`, wrapping. Also the SASS emulator's `IDP.2A`.
pub fn dp2a(a: u32, b: u32, c: u32, hi: bool, a_signed: bool, b_signed: bool) -> u32 {
    let mut acc = c;
    let base = if hi { 2 } else { 0 };
    for i in 0..2 {
        let x = u64::from(a >> (16 * i) & 0xffff);
        let y = u64::from(b >> (8 * (base + i)) & 0xff);
        let x = if a_signed { sext(x, 16) } else { x as i64 };
        let y = if b_signed { sext(y, 8) } else { y as i64 };
        acc = acc.wrapping_add(x.wrapping_mul(y) as u32);
    }
    acc
}

fn fcmp(cmp: Cmp, fmt: Fmt, ftz: bool, a: u64, b: u64) -> bool {
    let x = flush(fmt, a, ftz);
    let y = flush(fmt, b, ftz);
    let (fx, fy) = (fmt.to_f64(x), fmt.to_f64(y));
    let unord = fx.is_nan() || fy.is_nan();
    match cmp {
        Cmp::Eq => !unord && fx == fy,
        Cmp::Ne => !unord && fx != fy,
        Cmp::Lt | Cmp::Lo => !unord && fx < fy,
        Cmp::Le | Cmp::Ls => !unord && fx <= fy,
        Cmp::Gt | Cmp::Hi => !unord && fx > fy,
        Cmp::Ge | Cmp::Hs => !unord && fx >= fy,
        Cmp::Equ => unord || fx == fy,
        Cmp::Neu => unord || fx != fy,
        Cmp::Ltu => unord || fx < fy,
        Cmp::Leu => unord || fx <= fy,
        Cmp::Gtu => unord || fx > fy,
        Cmp::Geu => unord || fx >= fy,
        Cmp::Num => !unord,
        Cmp::Nan => unord,
    }
}

fn icmp(cmp: Cmp, bits: u32, signed: bool, a: u64, b: u64) -> bool {
    let (ua, ub) = (a & mask(bits), b & mask(bits));
    let (sa, sb) = (sext(a, bits), sext(b, bits));
    match cmp {
        Cmp::Eq | Cmp::Equ => ua == ub,
        Cmp::Ne | Cmp::Neu => ua != ub,
        Cmp::Lo => ua < ub,
        Cmp::Ls => ua <= ub,
        Cmp::Hi => ua > ub,
        Cmp::Hs => ua >= ub,
        Cmp::Lt | Cmp::Ltu => {
            if signed {
                sa < sb
            } else {
                ua < ub
            }
        }
        Cmp::Le | Cmp::Leu => {
            if signed {
                sa <= sb
            } else {
                ua <= ub
            }
        }
        Cmp::Gt | Cmp::Gtu => {
            if signed {
                sa > sb
            } else {
                ua > ub
            }
        }
        Cmp::Ge | Cmp::Geu => {
            if signed {
                sa >= sb
            } else {
                ua >= ub
            }
        }
        Cmp::Num => true,
        Cmp::Nan => false,
    }
}

fn approx(f: Approx, ty: FTy, ftz: bool, a: u64) -> u64 {
    per_half(ty, &[a], |fmt, v| {
        let x = fmt.to_f64(flush(fmt, v[0], ftz));
        let r = match f {
            Approx::Sin => x.sin(),
            Approx::Cos => x.cos(),
            Approx::Lg2 => x.log2(),
            Approx::Ex2 => x.exp2(),
            Approx::Rsqrt => 1.0 / x.sqrt(),
            Approx::Rcp => 1.0 / x,
            Approx::Sqrt => x.sqrt(),
            Approx::Tanh => x.tanh(),
        };
        flush(fmt, float::from_f64(r, fmt, Rnd::Rn), ftz)
    })
}

/// `div.full.f32` (PTX ISA §9.7.3.8: "a relatively fast, full-range approximation", at most 2 ulp
/// off) as ptxas 12.x and 13.x compile it for sm_80–sm_90, read off their SASS: a divisor above
/// 2^126 and the dividend are both scaled by 1/4, one below 2^-126 (without `.ftz`) and the
/// dividend by 2^24, so that the reciprocal is normal; then `MUFU.RCP` of the divisor, and the
/// product with the dividend rounded to nearest (flushed with `.ftz`). The reciprocal is the
/// correctly rounded one, as the SASS emulator's `MUFU.RCP`. ptxas folds a division by a
/// constant into a product with its rounded reciprocal, which this also gives (Triton's fp8
/// quantisation, `amax / 448`: IEEE division is one ulp off the GPU there).
fn div_full(ftz: bool, a: u64, b: u64) -> u64 {
    let fmt = float::F32;
    let m = FMods {
        rnd: Rnd::Rn,
        ftz,
        sat: false,
    };
    let mul = |x: u64, k: f32| farith(FOp::Mul, FTy::F32, m, x, u64::from(k.to_bits()));
    let (x, y) = (a & 0xffff_ffff, b & 0xffff_ffff);
    let magnitude = fmt.to_f64(flush(fmt, y, ftz)).abs();
    if magnitude > 2f64.powi(126) {
        div_approx(ftz, mul(x, 0.25), mul(y, 0.25))
    } else if !ftz && magnitude < 2f64.powi(-126) {
        div_approx(ftz, mul(x, 16_777_216.0), mul(y, 16_777_216.0))
    } else {
        div_approx(ftz, x, y)
    }
}

/// `div.approx.f32`: d = a * (1/b), both steps rounded to f32 (PTX ISA: "computed as
/// d = a * (1/b)"); also the last step of [`div_full`].
fn div_approx(ftz: bool, a: u64, b: u64) -> u64 {
    let fmt = float::F32;
    let x = flush(fmt, a & 0xffff_ffff, ftz);
    let y = flush(fmt, b & 0xffff_ffff, ftz);
    let r = flush(fmt, float::from_f64(1.0 / fmt.to_f64(y), fmt, Rnd::Rn), ftz);
    let m = FMods {
        rnd: Rnd::Rn,
        ftz,
        sat: false,
    };
    farith(FOp::Mul, FTy::F32, m, x, r)
}

fn testp(test: TestP, fmt: Fmt, a: u64) -> bool {
    let (_, e, _) = fmt.split(a);
    let max_e = (1u64 << fmt.exp_bits) - 1;
    match test {
        TestP::Finite => e != max_e,
        TestP::Infinite => fmt.is_inf(a),
        TestP::Number => !fmt.is_nan(a),
        TestP::NotANumber => fmt.is_nan(a),
        TestP::Normal => e != 0 && e != max_e,
        TestP::Subnormal => fmt.is_subnormal(a),
    }
}

/// `bfe` (PTX ISA §9.7.1.18).
fn bfe(bits: u32, signed: bool, a: u64, pos: u64, len: u64) -> u64 {
    let msb = bits - 1;
    let pos = (pos & 0xff) as u32;
    let len = (len & 0xff) as u32;
    let bit = |i: u32| (a >> i) & 1;
    let sbit = if signed && len != 0 {
        bit((pos + len - 1).min(msb))
    } else {
        0
    };
    let mut d = 0u64;
    for i in 0..=msb {
        let b = if i < len && pos + i <= msb {
            bit(pos + i)
        } else {
            sbit
        };
        d |= b << i;
    }
    d
}

/// `bfi` (PTX ISA §9.7.1.19): inserts `len` bits of `a` into `b` at `pos`.
fn bfi(bits: u32, a: u64, b: u64, pos: u64, len: u64) -> u64 {
    let msb = bits - 1;
    let pos = (pos & 0xff) as u32;
    let len = (len & 0xff) as u32;
    let mut f = b & mask(bits);
    let mut i = 0;
    while i < len && pos + i <= msb {
        let bit = (a >> i) & 1;
        f = (f & !(1u64 << (pos + i))) | (bit << (pos + i));
        i += 1;
    }
    f
}

/// `prmt` (PTX ISA §9.7.9.7).
/// `prmt` in every mode (`c` the selector). Also the SASS emulator's `PRMT` modes.
pub fn prmt(mode: PrmtMode, a: u64, b: u64, c: u64) -> u64 {
    let src = ((b & 0xffff_ffff) << 32) | (a & 0xffff_ffff);
    let byte = |i: u64| (src >> ((i & 7) * 8)) & 0xff;
    let sel = c & 3;
    let idx: [u64; 4] = match mode {
        PrmtMode::Default => {
            let mut d = 0u64;
            for i in 0..4 {
                let s = (c >> (4 * i)) & 0xf;
                let mut v = byte(s & 7);
                if s & 8 != 0 {
                    v = if v & 0x80 != 0 { 0xff } else { 0 };
                }
                d |= v << (8 * i);
            }
            return d;
        }
        PrmtMode::F4e => [sel, sel + 1, sel + 2, sel + 3],
        PrmtMode::B4e => [sel, (sel + 7) & 7, (sel + 6) & 7, (sel + 5) & 7],
        PrmtMode::Rc8 => [sel; 4],
        PrmtMode::Ecl => [sel, sel.max(1), sel.max(2), 3],
        PrmtMode::Ecr => [0, sel.min(1), sel.min(2), sel],
        PrmtMode::Rc16 => {
            let lo = (sel & 1) * 2;
            [lo, lo + 1, lo, lo + 1]
        }
    };
    idx.iter()
        .enumerate()
        .fold(0, |d, (i, &s)| d | (byte(s) << (8 * i)))
}

fn cvt(s: CvtSpec, a: u64) -> u64 {
    let r = cvt_value(s, a);
    match s.dst {
        NumTy::Int { bits, signed } if s.reg_bits > bits => {
            if signed {
                (sext(r, bits) as u64) & mask(s.reg_bits)
            } else {
                r
            }
        }
        _ => r,
    }
}

fn cvt_value(s: CvtSpec, a: u64) -> u64 {
    match (s.src, s.dst) {
        (
            NumTy::Int {
                bits: sb,
                signed: ss,
            },
            NumTy::Int {
                bits: db,
                signed: ds,
            },
        ) => {
            let wide: i128 = if ss {
                i128::from(sext(a, sb))
            } else {
                i128::from(a & mask(sb))
            };
            if s.sat {
                let (lo, hi): (i128, i128) = if ds {
                    (-(1i128 << (db - 1)), (1i128 << (db - 1)) - 1)
                } else {
                    (0, (1i128 << db) - 1)
                };
                (wide.clamp(lo, hi) as u64) & mask(db)
            } else {
                (wide as u64) & mask(db)
            }
        }
        (
            NumTy::Int {
                bits: sb,
                signed: ss,
            },
            NumTy::Float(ft),
        ) => {
            let fmt = fmt_of(ft);
            let (neg, mag) = if ss {
                let v = sext(a, sb);
                (v < 0, v.unsigned_abs())
            } else {
                (false, a & mask(sb))
            };
            let r = float::from_int(neg, mag, fmt, s.rnd.unwrap_or(Rnd::Rn));
            let r = flush(fmt, r, s.ftz);
            if s.sat {
                float::saturate(r, fmt)
            } else {
                r
            }
        }
        (
            NumTy::Float(ft),
            NumTy::Int {
                bits: db,
                signed: ds,
            },
        ) => {
            let fmt = fmt_of(ft);
            let x = fmt.to_f64(flush(fmt, a & mask(fmt.width()), s.ftz));
            float::to_int(x, s.rnd.unwrap_or(Rnd::Rz), db, ds)
        }
        (NumTy::Float(st), NumTy::Float(dt)) => {
            let (sf, df) = (fmt_of(st), fmt_of(dt));
            let a = flush(sf, a & mask(sf.width()), s.ftz);
            if sf.is_nan(a) {
                return df.canonical_nan();
            }
            let mut x = sf.to_f64(a);
            if s.int_rnd {
                x = float::round_integral(x, s.rnd.unwrap_or(Rnd::Rn));
            }
            let mut r = float::from_f64(
                x,
                df,
                if s.int_rnd {
                    Rnd::Rn
                } else {
                    s.rnd.unwrap_or(Rnd::Rn)
                },
            );
            r = flush(df, r, s.ftz);
            if s.relu && (r >> (df.width() - 1)) & 1 == 1 {
                r = 0;
            }
            if s.sat {
                r = float::saturate(r, df);
            }
            r
        }
    }
}

impl Concrete {
    /// Integer and bit operations (split out to keep `apply` readable).
    #[inline]
    fn int_op(op: Op, a: u64, b: u64, c: u64, d: u64) -> Result<u64, DomainError> {
        Ok(match op {
            Op::Mov => a,
            Op::Add { bits, sat } => {
                if sat {
                    sat_signed(i128::from(sext(a, bits)) + i128::from(sext(b, bits)), bits)
                } else {
                    a.wrapping_add(b) & mask(bits)
                }
            }
            Op::Sub { bits, sat } => {
                if sat {
                    sat_signed(i128::from(sext(a, bits)) - i128::from(sext(b, bits)), bits)
                } else {
                    a.wrapping_sub(b) & mask(bits)
                }
            }
            Op::AddC { bits } => a.wrapping_add(b).wrapping_add(c & 1) & mask(bits),
            Op::SubC { bits } => a.wrapping_add(!b & mask(bits)).wrapping_add(c & 1) & mask(bits),
            Op::CarryOut { bits } => {
                let s = u128::from(a & mask(bits)) + u128::from(b & mask(bits)) + u128::from(c & 1);
                ((s >> bits) & 1) as u64
            }
            Op::SubCarryOut { bits } => {
                let s =
                    u128::from(a & mask(bits)) + u128::from(!b & mask(bits)) + u128::from(c & 1);
                ((s >> bits) & 1) as u64
            }
            Op::MulLo { bits } => a.wrapping_mul(b) & mask(bits),
            Op::MulHi { bits, signed } => {
                if signed {
                    let p = i128::from(sext(a, bits)) * i128::from(sext(b, bits));
                    ((p >> bits) as u64) & mask(bits)
                } else {
                    let p = u128::from(a & mask(bits)) * u128::from(b & mask(bits));
                    ((p >> bits) as u64) & mask(bits)
                }
            }
            Op::MulWide { bits, signed } => {
                if signed {
                    (sext(a, bits).wrapping_mul(sext(b, bits)) as u64) & mask(2 * bits)
                } else {
                    (a & mask(bits)).wrapping_mul(b & mask(bits)) & mask(2 * bits)
                }
            }
            Op::Mul24 { hi, signed } => {
                let (x, y) = if signed {
                    (sext(a, 24), sext(b, 24))
                } else {
                    ((a & 0xff_ffff) as i64, (b & 0xff_ffff) as i64)
                };
                let p = x.wrapping_mul(y) as u64;
                if hi {
                    (p >> 16) & 0xffff_ffff
                } else {
                    p & 0xffff_ffff
                }
            }
            Op::MadHiSat => {
                let p = (i64::from(a as u32 as i32) * i64::from(b as u32 as i32)) >> 32;
                let s = p + i64::from(c as u32 as i32);
                (s.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as u64) & 0xffff_ffff
            }
            Op::Sad { bits, signed } => {
                let diff = if signed {
                    (i128::from(sext(a, bits)) - i128::from(sext(b, bits))).unsigned_abs() as u64
                } else {
                    (a & mask(bits)).abs_diff(b & mask(bits))
                };
                diff.wrapping_add(c) & mask(bits)
            }
            Op::Div { bits, signed } => {
                if signed {
                    let (x, y) = (sext(a, bits), sext(b, bits));
                    if y == 0 {
                        mask(bits)
                    } else {
                        (x.wrapping_div(y) as u64) & mask(bits)
                    }
                } else {
                    let (x, y) = (a & mask(bits), b & mask(bits));
                    x.checked_div(y).unwrap_or(mask(bits))
                }
            }
            Op::Rem { bits, signed } => {
                if signed {
                    let (x, y) = (sext(a, bits), sext(b, bits));
                    if y == 0 {
                        a & mask(bits)
                    } else {
                        (x.wrapping_rem(y) as u64) & mask(bits)
                    }
                } else {
                    let (x, y) = (a & mask(bits), b & mask(bits));
                    if y == 0 {
                        x
                    } else {
                        x % y
                    }
                }
            }
            Op::AbsI { bits } => (sext(a, bits).wrapping_abs() as u64) & mask(bits),
            Op::NegI { bits } => a.wrapping_neg() & mask(bits),
            Op::MinI { bits, signed } => {
                if signed {
                    (sext(a, bits).min(sext(b, bits)) as u64) & mask(bits)
                } else {
                    (a & mask(bits)).min(b & mask(bits))
                }
            }
            Op::MaxI { bits, signed } => {
                if signed {
                    (sext(a, bits).max(sext(b, bits)) as u64) & mask(bits)
                } else {
                    (a & mask(bits)).max(b & mask(bits))
                }
            }
            Op::Popc { bits } => u64::from((a & mask(bits)).count_ones()),
            Op::Clz { bits } => u64::from((a & mask(bits)).leading_zeros() - (64 - bits)),
            Op::Bfind {
                bits,
                signed,
                shiftamt,
            } => {
                let mut v = a & mask(bits);
                if signed && sext(a, bits) < 0 {
                    v = !v & mask(bits);
                }
                if v == 0 {
                    0xffff_ffff
                } else {
                    let pos = 63 - u64::from(v.leading_zeros());
                    if shiftamt {
                        u64::from(bits - 1) - pos
                    } else {
                        pos
                    }
                }
            }
            Op::Brev { bits } => (a & mask(bits)).reverse_bits() >> (64 - bits),
            Op::Bfe { bits, signed } => bfe(bits, signed, a, b, c),
            Op::Bfi { bits } => bfi(bits, a, b, c, d),
            Op::Szext { signed, clamp } => {
                let n = if clamp {
                    (b as u32).min(32)
                } else {
                    (b as u32) & 31
                };
                if n == 0 {
                    0
                } else if signed {
                    (sext(a, n) as u64) & 0xffff_ffff
                } else {
                    a & mask(n)
                }
            }
            Op::Bmsk { clamp } => u64::from(bmsk(a as u32, b as u32, clamp)),
            Op::Dp4a { a_signed, b_signed } => {
                u64::from(dp4a(a as u32, b as u32, c as u32, a_signed, b_signed))
            }
            Op::Dp2a {
                hi,
                a_signed,
                b_signed,
            } => u64::from(dp2a(a as u32, b as u32, c as u32, hi, a_signed, b_signed)),
            Op::And { bits } => a & b & mask(bits),
            Op::Or { bits } => (a | b) & mask(bits),
            Op::Xor { bits } => (a ^ b) & mask(bits),
            Op::Not { bits } => !a & mask(bits),
            Op::Cnot { bits } => u64::from(a & mask(bits) == 0),
            Op::Lop3 { lut } => {
                let mut d = 0u64;
                for i in 0..32 {
                    let idx = (((a >> i) & 1) << 2) | (((b >> i) & 1) << 1) | ((c >> i) & 1);
                    d |= u64::from((lut >> idx) & 1) << i;
                }
                d
            }
            Op::Shl { bits } => {
                let n = b & 0xffff_ffff;
                if n >= u64::from(bits) {
                    0
                } else {
                    (a << n) & mask(bits)
                }
            }
            Op::Shr { bits, signed } => {
                let n = (b & 0xffff_ffff).min(u64::from(bits));
                if signed {
                    let v = sext(a, bits);
                    ((if n >= 64 { v >> 63 } else { v >> n }) as u64) & mask(bits)
                } else if n >= u64::from(bits) {
                    0
                } else {
                    (a & mask(bits)) >> n
                }
            }
            Op::Shf { left, wrap } => {
                let n = if wrap {
                    (c & 31) as u32
                } else {
                    (c as u32).min(32)
                };
                let wide = ((b & 0xffff_ffff) << 32) | (a & 0xffff_ffff);
                if left {
                    ((wide << n) >> 32) & 0xffff_ffff
                } else {
                    (wide >> n) & 0xffff_ffff
                }
            }
            Op::Prmt { mode } => prmt(mode, a, b, c),
            Op::Ext { from, to, signed } => {
                if signed {
                    (sext(a, from) as u64) & mask(to)
                } else {
                    a & mask(from) & mask(to)
                }
            }
            Op::Select => {
                if c & 1 != 0 {
                    a
                } else {
                    b
                }
            }
            Op::CmpI { cmp, bits, signed } => u64::from(icmp(cmp, bits, signed, a, b)),
            Op::AtomInc => {
                let (x, y) = (a & 0xffff_ffff, b & 0xffff_ffff);
                if x >= y {
                    0
                } else {
                    x + 1
                }
            }
            Op::AtomDec => {
                let (x, y) = (a & 0xffff_ffff, b & 0xffff_ffff);
                if x == 0 || x > y {
                    y
                } else {
                    x - 1
                }
            }
            _ => return Concrete::float_op(op, a, b, c),
        })
    }

    fn float_op(op: Op, a: u64, b: u64, c: u64) -> Result<u64, DomainError> {
        Ok(match op {
            Op::FAdd { ty, m } => farith(FOp::Add, ty, m, a, b),
            Op::FSub { ty, m } => farith(FOp::Sub, ty, m, a, b),
            Op::FMul { ty, m } => farith(FOp::Mul, ty, m, a, b),
            Op::FDiv { ty, m } => farith(FOp::Div, ty, m, a, b),
            Op::FDivApprox { ftz } => div_approx(ftz, a, b),
            Op::FDivFull { ftz } => div_full(ftz, a, b),
            Op::FFma { ty, m } => ffma(ty, m, a, b, c),
            Op::FMin { ty, ftz, nan } => fminmax(ty, ftz, nan, false, a, b),
            Op::FMax { ty, ftz, nan } => fminmax(ty, ftz, nan, true, a, b),
            Op::FNeg { ty, ftz } => per_half(ty, &[a], |fmt, v| {
                flush(fmt, v[0], ftz) ^ (1u64 << (fmt.width() - 1))
            }),
            Op::FAbs { ty, ftz } => per_half(ty, &[a], |fmt, v| {
                flush(fmt, v[0], ftz) & !(1u64 << (fmt.width() - 1))
            }),
            Op::FSqrt { ty, m } => per_half(ty, &[a], |fmt, v| {
                let x = flush(fmt, v[0], m.ftz);
                finish(fmt, float::sqrt(fmt.to_f64(x), fmt, m.rnd), m)
            }),
            Op::FRcp { ty, m } => per_half(ty, &[a], |fmt, v| {
                let x = flush(fmt, v[0], m.ftz);
                finish(
                    fmt,
                    float::arith(FOp::Div, 1.0, fmt.to_f64(x), fmt, m.rnd),
                    m,
                )
            }),
            Op::FApprox { f, ty, ftz } => approx(f, ty, ftz, a),
            Op::Copysign { ty } => per_half(ty, &[a, b], |fmt, v| {
                let sign = 1u64 << (fmt.width() - 1);
                (v[1] & !sign) | (v[0] & sign)
            }),
            Op::Testp { ty, test } => u64::from(testp(test, fmt_of(ty), a & mask(ty.bits()))),
            Op::CmpF { cmp, ty, ftz } => {
                let fmt = fmt_of(ty);
                let w = mask(fmt.width());
                u64::from(fcmp(cmp, fmt, ftz, a & w, b & w))
            }
            Op::CmpHalf { cmp, ty, hi, ftz } => {
                let sh = if hi { 16 } else { 0 };
                u64::from(fcmp(
                    cmp,
                    fmt_of(ty),
                    ftz,
                    (a >> sh) & 0xffff,
                    (b >> sh) & 0xffff,
                ))
            }
            Op::Cvt(s) => cvt(s, a),
            Op::CvtPack { ty, rnd, relu } => {
                let fmt = fmt_of(ty);
                let one = |x: u64| float::half_of_f32(x as u32, fmt, rnd, relu);
                (one(a) << 16) | one(b)
            }
            Op::CvtFp8 { fmt, how, relu } => crate::emu::fp8::convert(fmt, how, relu, a, b),
            other => {
                return Err(DomainError::Unsupported {
                    domain: "concrete",
                    op: other.to_string(),
                })
            }
        })
    }
}

impl Domain for Concrete {
    type Val = u64;

    fn name(&self) -> &'static str {
        "concrete"
    }

    #[inline(always)]
    fn lit(&mut self, bits: u64) -> u64 {
        bits
    }

    #[inline(always)]
    fn concrete(&self, v: &u64) -> Option<u64> {
        Some(*v)
    }

    #[inline]
    fn apply(&mut self, op: Op, args: &[u64]) -> Result<u64, DomainError> {
        let a = args.first().copied().unwrap_or(0);
        let b = args.get(1).copied().unwrap_or(0);
        let c = args.get(2).copied().unwrap_or(0);
        let d = args.get(3).copied().unwrap_or(0);
        Concrete::int_op(op, a, b, c, d)
    }

    fn apply_lanes(
        &mut self,
        op: Op,
        active: u32,
        args: &[&[u64]],
        dst: &mut [u64],
    ) -> Result<(), (DomainError, usize)> {
        // The common operations as whole-warp loops; everything else lane by lane.
        macro_rules! map1 {
            ($f:expr) => {{
                let a = &args[0][..32];
                each(active, dst, |l| $f(a[l]))
            }};
        }
        macro_rules! map2 {
            ($f:expr) => {{
                let (a, b) = (&args[0][..32], &args[1][..32]);
                each(active, dst, |l| $f(a[l], b[l]))
            }};
        }
        macro_rules! map3 {
            ($f:expr) => {{
                let (a, b, c) = (&args[0][..32], &args[1][..32], &args[2][..32]);
                each(active, dst, |l| $f(a[l], b[l], c[l]))
            }};
        }
        let rn = |m: FMods| m.rnd == Rnd::Rn && !m.ftz && !m.sat;
        match (op, args.len()) {
            (Op::Mov, 1) => map1!(|a| a),
            (Op::Add { bits, sat: false }, 2) => {
                let m = mask(bits);
                map2!(|a: u64, b: u64| a.wrapping_add(b) & m)
            }
            (Op::Sub { bits, sat: false }, 2) => {
                let m = mask(bits);
                map2!(|a: u64, b: u64| a.wrapping_sub(b) & m)
            }
            (Op::MulLo { bits }, 2) => {
                let m = mask(bits);
                map2!(|a: u64, b: u64| a.wrapping_mul(b) & m)
            }
            (Op::MulWide { bits: 32, signed }, 2) => {
                if signed {
                    map2!(
                        |a: u64, b: u64| (i64::from(a as u32 as i32) * i64::from(b as u32 as i32))
                            as u64
                    )
                } else {
                    map2!(|a: u64, b: u64| (a & 0xffff_ffff) * (b & 0xffff_ffff))
                }
            }
            (Op::And { bits }, 2) => {
                let m = mask(bits);
                map2!(|a: u64, b: u64| a & b & m)
            }
            (Op::Or { bits }, 2) => {
                let m = mask(bits);
                map2!(|a: u64, b: u64| (a | b) & m)
            }
            (Op::Xor { bits }, 2) => {
                let m = mask(bits);
                map2!(|a: u64, b: u64| (a ^ b) & m)
            }
            (Op::Select, 3) => map3!(|a, b, c: u64| if c & 1 != 0 { a } else { b }),
            (Op::Not { bits }, 1) => {
                let m = mask(bits);
                map1!(|a: u64| !a & m)
            }
            (Op::AddC { bits }, 3) => {
                let m = mask(bits);
                map3!(|a: u64, b: u64, c: u64| a.wrapping_add(b).wrapping_add(c & 1) & m)
            }
            (Op::CarryOut { bits }, 3) => {
                let m = mask(bits);
                map3!(|a: u64, b: u64, c: u64| {
                    let s = u128::from(a & m) + u128::from(b & m) + u128::from(c & 1);
                    ((s >> bits) & 1) as u64
                })
            }
            (Op::SubC { bits }, 3) => {
                let m = mask(bits);
                map3!(|a: u64, b: u64, c: u64| a.wrapping_add(!b & m).wrapping_add(c & 1) & m)
            }
            (Op::SubCarryOut { bits }, 3) => {
                let m = mask(bits);
                map3!(|a: u64, b: u64, c: u64| {
                    let s = u128::from(a & m) + u128::from(!b & m) + u128::from(c & 1);
                    ((s >> bits) & 1) as u64
                })
            }
            (
                Op::MulHi {
                    bits: 64,
                    signed: false,
                },
                2,
            ) => {
                map2!(|a: u64, b: u64| ((u128::from(a) * u128::from(b)) >> 64) as u64)
            }
            (Op::CmpI { cmp, bits, signed }, 2) => {
                map2!(|a, b| u64::from(icmp(cmp, bits, signed, a, b)))
            }
            (Op::Shl { bits }, 2) => {
                let m = mask(bits);
                map2!(|a: u64, b: u64| {
                    let n = b & 0xffff_ffff;
                    if n >= u64::from(bits) {
                        0
                    } else {
                        (a << n) & m
                    }
                })
            }
            (Op::FAdd { ty: FTy::F32, m }, 2) if rn(m) => {
                map2!(|a: u64, b: u64| f32_result(
                    f32::from_bits(a as u32) + f32::from_bits(b as u32)
                ))
            }
            (Op::FSub { ty: FTy::F32, m }, 2) if rn(m) => {
                map2!(|a: u64, b: u64| f32_result(
                    f32::from_bits(a as u32) - f32::from_bits(b as u32)
                ))
            }
            (Op::FMul { ty: FTy::F32, m }, 2) if rn(m) => {
                map2!(|a: u64, b: u64| f32_result(
                    f32::from_bits(a as u32) * f32::from_bits(b as u32)
                ))
            }
            (Op::FFma { ty: FTy::F32, m }, 3) if rn(m) => map3!(|a: u64, b: u64, c: u64| {
                f32_result(
                    f32::from_bits(a as u32)
                        .mul_add(f32::from_bits(b as u32), f32::from_bits(c as u32)),
                )
            }),
            _ => {
                let mut m = active;
                while m != 0 {
                    let lane = m.trailing_zeros() as usize;
                    m &= m - 1;
                    let a = args.first().map_or(0, |x| x[lane]);
                    let b = args.get(1).map_or(0, |x| x[lane]);
                    let c = args.get(2).map_or(0, |x| x[lane]);
                    let d = args.get(3).map_or(0, |x| x[lane]);
                    dst[lane] = Concrete::int_op(op, a, b, c, d).map_err(|e| (e, lane))?;
                }
            }
        }
        Ok(())
    }

    #[inline(always)]
    fn load(&mut self, _at: MemAt, bytes: &[u8]) -> u64 {
        match bytes.len() {
            4 => u64::from(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])),
            8 => u64::from_le_bytes([
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
            ]),
            2 => u64::from(u16::from_le_bytes([bytes[0], bytes[1]])),
            1 => u64::from(bytes[0]),
            n => {
                let mut buf = [0u8; 8];
                let n = n.min(8);
                buf[..n].copy_from_slice(&bytes[..n]);
                u64::from_le_bytes(buf)
            }
        }
    }

    #[inline(always)]
    fn store(&mut self, _at: MemAt, v: &u64, out: &mut [u8]) -> Result<(), DomainError> {
        match out.len() {
            4 => out.copy_from_slice(&(*v as u32).to_le_bytes()),
            8 => out.copy_from_slice(&v.to_le_bytes()),
            2 => out.copy_from_slice(&(*v as u16).to_le_bytes()),
            1 => out[0] = *v as u8,
            n => {
                let b = v.to_le_bytes();
                let n = n.min(8);
                out[..n].copy_from_slice(&b[..n]);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ap(op: Op, args: &[u64]) -> u64 {
        Concrete.apply(op, args).unwrap()
    }

    #[test]
    fn integer_basics() {
        assert_eq!(
            ap(
                Op::Add {
                    bits: 32,
                    sat: false
                },
                &[0xffff_ffff, 1]
            ),
            0
        );
        assert_eq!(
            ap(
                Op::Add {
                    bits: 32,
                    sat: true
                },
                &[0x7fff_ffff, 1]
            ),
            0x7fff_ffff
        );
        assert_eq!(
            ap(
                Op::Sub {
                    bits: 32,
                    sat: true
                },
                &[0x8000_0000, 1]
            ),
            0x8000_0000
        );
        assert_eq!(
            ap(
                Op::MulHi {
                    bits: 32,
                    signed: true
                },
                &[0xffff_ffff, 0xffff_ffff]
            ),
            0
        );
        assert_eq!(
            ap(
                Op::MulHi {
                    bits: 64,
                    signed: false
                },
                &[u64::MAX, u64::MAX]
            ),
            u64::MAX - 1
        );
        assert_eq!(
            ap(
                Op::MulWide {
                    bits: 32,
                    signed: true
                },
                &[0xffff_fffe, 3]
            ),
            (-6i64) as u64
        );
        assert_eq!(
            ap(
                Op::Div {
                    bits: 32,
                    signed: false
                },
                &[7, 0]
            ),
            0xffff_ffff
        );
        assert_eq!(
            ap(
                Op::Rem {
                    bits: 32,
                    signed: true
                },
                &[0xffff_fff9, 2]
            ),
            0xffff_ffff
        );
        assert_eq!(
            ap(
                Op::Div {
                    bits: 32,
                    signed: true
                },
                &[0x8000_0000, 0xffff_ffff]
            ),
            0x8000_0000
        );
        assert_eq!(
            ap(
                Op::Shr {
                    bits: 32,
                    signed: true
                },
                &[0x8000_0000, 40]
            ),
            0xffff_ffff
        );
        assert_eq!(ap(Op::Shl { bits: 32 }, &[1, 32]), 0);
        assert_eq!(ap(Op::Clz { bits: 32 }, &[1]), 31);
        assert_eq!(ap(Op::Clz { bits: 64 }, &[0]), 64);
        assert_eq!(
            ap(
                Op::Bfind {
                    bits: 32,
                    signed: true,
                    shiftamt: false
                },
                &[0xffff_ffff]
            ),
            0xffff_ffff
        );
        assert_eq!(
            ap(
                Op::Bfind {
                    bits: 32,
                    signed: false,
                    shiftamt: true
                },
                &[1]
            ),
            31
        );
        assert_eq!(ap(Op::Brev { bits: 32 }, &[1]), 0x8000_0000);
    }

    #[test]
    fn bit_field_ops() {
        assert_eq!(
            ap(
                Op::Bfe {
                    bits: 32,
                    signed: false
                },
                &[0xabcd_1234, 8, 8]
            ),
            0x12
        );
        assert_eq!(
            ap(
                Op::Bfe {
                    bits: 32,
                    signed: true
                },
                &[0x0000_8000, 8, 8]
            ),
            0xffff_ff80
        );
        assert_eq!(
            ap(
                Op::Bfe {
                    bits: 32,
                    signed: true
                },
                &[0xffff_ffff, 0, 0]
            ),
            0
        );
        assert_eq!(ap(Op::Bfi { bits: 32 }, &[0xff, 0, 4, 4]), 0xf0);
        assert_eq!(ap(Op::Lop3 { lut: 0xc0 }, &[0xf0, 0xcc, 0xaa]), 0xc0);
        assert_eq!(
            ap(Op::Lop3 { lut: 0x96 }, &[0xf0, 0xcc, 0xaa]),
            0xf0 ^ 0xcc ^ 0xaa
        );
        assert_eq!(
            ap(
                Op::Shf {
                    left: true,
                    wrap: true
                },
                &[0x8000_0000, 0x1, 1]
            ),
            0x3
        );
        assert_eq!(
            ap(
                Op::Shf {
                    left: false,
                    wrap: false
                },
                &[0x0, 0x1, 40]
            ),
            0x1
        );
        assert_eq!(
            ap(
                Op::Dp4a {
                    a_signed: true,
                    b_signed: false
                },
                &[0xff01_0203, 0x0101_0101, 10]
            ),
            10 + 3 + 2 + 1 - 1
        );
    }

    #[test]
    fn prmt_modes() {
        let (a, b) = (0x3322_1100u64, 0x7766_5544u64);
        assert_eq!(prmt(PrmtMode::Default, a, b, 0x3210), a);
        assert_eq!(prmt(PrmtMode::Default, a, b, 0x7654), b);
        assert_eq!(prmt(PrmtMode::Default, a, b, 0x0008), 0);
        assert_eq!(prmt(PrmtMode::F4e, a, b, 1), 0x4433_2211);
        assert_eq!(prmt(PrmtMode::B4e, a, b, 0), 0x5566_7700);
        assert_eq!(prmt(PrmtMode::Rc8, a, b, 2), 0x2222_2222);
        assert_eq!(prmt(PrmtMode::Ecl, a, b, 1), 0x3322_1111);
        assert_eq!(prmt(PrmtMode::Ecr, a, b, 2), 0x2222_1100);
        assert_eq!(prmt(PrmtMode::Rc16, a, b, 1), 0x3322_3322);
    }

    #[test]
    fn float_semantics() {
        let m = FMods {
            rnd: Rnd::Rn,
            ftz: false,
            sat: false,
        };
        let f = |x: f32| u64::from(x.to_bits());
        assert_eq!(ap(Op::FAdd { ty: FTy::F32, m }, &[f(1.0), f(2.0)]), f(3.0));
        // inf - inf is the canonical NaN.
        assert_eq!(
            ap(
                Op::FSub { ty: FTy::F32, m },
                &[f(f32::INFINITY), f(f32::INFINITY)]
            ),
            0x7fff_ffff
        );
        // ftz flushes a subnormal input.
        let ftz = FMods { ftz: true, ..m };
        assert_eq!(
            ap(
                Op::FMul {
                    ty: FTy::F32,
                    m: ftz
                },
                &[1, f(1.0)]
            ),
            0
        );
        assert_eq!(ap(Op::FMul { ty: FTy::F32, m }, &[1, f(1.0)]), 1);
        let sat = FMods { sat: true, ..m };
        assert_eq!(
            ap(
                Op::FAdd {
                    ty: FTy::F32,
                    m: sat
                },
                &[f(0.75), f(0.75)]
            ),
            f(1.0)
        );
        assert_eq!(
            ap(
                Op::FAdd {
                    ty: FTy::F32,
                    m: sat
                },
                &[f(-0.75), f(0.0)]
            ),
            0
        );
        // min/max NaN rules and signed zeros.
        let mn = Op::FMin {
            ty: FTy::F32,
            ftz: false,
            nan: false,
        };
        assert_eq!(ap(mn, &[0x7fc0_0000, f(2.0)]), f(2.0));
        assert_eq!(ap(mn, &[f(0.0), f(-0.0)]), f(-0.0));
        let mx = Op::FMax {
            ty: FTy::F32,
            ftz: false,
            nan: true,
        };
        assert_eq!(ap(mx, &[0x7fc0_0000, f(2.0)]), 0x7fff_ffff);
        // Packed f16x2 add.
        let h = Op::FAdd { ty: FTy::F16x2, m };
        assert_eq!(ap(h, &[0x3c00_4000, 0x3c00_3c00]), 0x4000_4200);
        // copysign: b with a's sign.
        assert_eq!(
            ap(Op::Copysign { ty: FTy::F32 }, &[f(-1.0), f(2.0)]),
            f(-2.0)
        );
    }

    #[test]
    fn conversions() {
        let c = |src, dst, rnd, int_rnd, sat| {
            Op::Cvt(CvtSpec {
                dst,
                reg_bits: 0,
                src,
                rnd,
                int_rnd,
                ftz: false,
                sat,
                relu: false,
            })
        };
        let s32 = NumTy::Int {
            bits: 32,
            signed: true,
        };
        let u8t = NumTy::Int {
            bits: 8,
            signed: false,
        };
        let s16 = NumTy::Int {
            bits: 16,
            signed: true,
        };
        let f32t = NumTy::Float(FTy::F32);
        let f16t = NumTy::Float(FTy::F16);
        assert_eq!(ap(c(s16, s32, None, false, false), &[0x8000]), 0xffff_8000);
        assert_eq!(ap(c(s32, u8t, None, false, true), &[0xffff_ffff]), 0);
        assert_eq!(ap(c(s32, u8t, None, false, true), &[300]), 255);
        assert_eq!(ap(c(s32, u8t, None, false, false), &[300]), 44);
        assert_eq!(
            ap(
                c(f32t, s32, Some(Rnd::Rn), true, false),
                &[u64::from(2.5f32.to_bits())]
            ),
            2
        );
        assert_eq!(
            ap(c(s32, f32t, Some(Rnd::Rn), false, false), &[0xffff_ffff]),
            u64::from((-1.0f32).to_bits())
        );
        assert_eq!(
            ap(
                c(f32t, f16t, Some(Rnd::Rn), false, false),
                &[u64::from(1.0f32.to_bits())]
            ),
            0x3c00
        );
        assert_eq!(
            ap(c(f16t, f32t, None, false, false), &[0x3c00]),
            u64::from(1.0f32.to_bits())
        );
        assert_eq!(
            ap(
                c(f32t, f32t, Some(Rnd::Rm), true, false),
                &[u64::from((-1.5f32).to_bits())]
            ),
            u64::from((-2.0f32).to_bits())
        );
    }
}
