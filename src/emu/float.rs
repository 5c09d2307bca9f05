//! Exact floating-point helpers of the concrete domain: IEEE 754 rounding of an exact value to
//! any binary format (f16, bf16, tf32, f32, f64) in the four PTX rounding modes, error-free
//! transformations that give the exact result of an f32/f64 operation as "rounded value + sign of
//! the error", flush-to-zero, saturation and NaN canonicalisation.
//!
//! Implements the rounding rules of PTX ISA §9.7.3 "Floating-Point Instructions" (`.rn .rz .rm
//! .rp`, `.ftz`, `.sat`) and §9.7.9.21 `cvt` (`.rni .rzi .rmi .rpi`, `.rna` for tf32) on top of
//! IEEE 754-2019 §4.3. The approach:
//!
//! - [`round_parts`] rounds an exact magnitude `mant × 2^exp` (plus a *sticky* flag saying "and a
//!   bit more, less than one unit of `mant`'s last place") to a target format. Every conversion
//!   uses it, so subnormals, overflow to infinity or to the largest finite value, and ties are
//!   handled once.
//! - An f32 (or f16/bf16) operation in a directed mode is computed in f64 where it is exact
//!   (products) or where an error-free transformation gives the exact error (TwoSum for sums, the
//!   FMA remainder for quotients and square roots); the f64 value and the *sign* of its error are
//!   enough to round correctly to the narrower format ([`round_f64_err`]).
//! - An f64 operation in a directed mode uses the same transformations in f64 and steps one ulp
//!   when the error points away from the rounded value. This is exact except when the exact
//!   result lies in the f64 subnormal range (the error terms are then not exactly representable):
//!   there the result may be off by one ulp. This is the only approximate case of the basic
//!   arithmetic and it is documented in `docs/emulator.md`.

/// A PTX rounding mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rnd {
    /// Round to nearest, ties to even (`.rn`, `.rni`; the default).
    Rn,
    /// Round toward zero (`.rz`, `.rzi`).
    Rz,
    /// Round toward minus infinity (`.rm`, `.rmi`).
    Rm,
    /// Round toward plus infinity (`.rp`, `.rpi`).
    Rp,
    /// Round to nearest, ties away from zero (`.rna`, tf32 conversion only).
    Rna,
}

/// A binary floating-point format: exponent and stored-fraction widths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fmt {
    /// Exponent field width.
    pub exp_bits: u32,
    /// Stored fraction width (the significand has one more bit).
    pub man_bits: u32,
}

/// IEEE binary16.
pub const F16: Fmt = Fmt {
    exp_bits: 5,
    man_bits: 10,
};
/// bfloat16.
pub const BF16: Fmt = Fmt {
    exp_bits: 8,
    man_bits: 7,
};
/// TensorFloat-32 (stored in 32 bits: the low 13 fraction bits are zero).
pub const TF32: Fmt = Fmt {
    exp_bits: 8,
    man_bits: 10,
};
/// IEEE binary32.
pub const F32: Fmt = Fmt {
    exp_bits: 8,
    man_bits: 23,
};
/// IEEE binary64.
pub const F64: Fmt = Fmt {
    exp_bits: 11,
    man_bits: 52,
};

impl Fmt {
    fn bias(self) -> i32 {
        (1 << (self.exp_bits - 1)) - 1
    }
    fn max_biased(self) -> u64 {
        (1u64 << self.exp_bits) - 1
    }
    /// Total width in bits (1 + exponent + fraction).
    pub fn width(self) -> u32 {
        1 + self.exp_bits + self.man_bits
    }
    /// The bits of infinity with the given sign.
    pub fn inf(self, neg: bool) -> u64 {
        (u64::from(neg) << (self.width() - 1)) | (self.max_biased() << self.man_bits)
    }
    /// The bits of the largest finite value with the given sign.
    pub fn max_finite(self, neg: bool) -> u64 {
        (u64::from(neg) << (self.width() - 1))
            | ((self.max_biased() - 1) << self.man_bits)
            | ((1u64 << self.man_bits) - 1)
    }
    /// The canonical NaN of the format as NVIDIA GPUs produce it (all ones but the sign:
    /// `0x7fffffff` for f32, `0x7fff` for f16/bf16).
    pub fn canonical_nan(self) -> u64 {
        (1u64 << (self.width() - 1)) - 1
    }
    /// Splits bits into (sign, biased exponent, fraction).
    pub fn split(self, bits: u64) -> (bool, u64, u64) {
        let neg = (bits >> (self.width() - 1)) & 1 == 1;
        let e = (bits >> self.man_bits) & self.max_biased();
        let f = bits & ((1u64 << self.man_bits) - 1);
        (neg, e, f)
    }
    /// True for a NaN encoding.
    pub fn is_nan(self, bits: u64) -> bool {
        let (_, e, f) = self.split(bits);
        e == self.max_biased() && f != 0
    }
    /// True for an infinity.
    pub fn is_inf(self, bits: u64) -> bool {
        let (_, e, f) = self.split(bits);
        e == self.max_biased() && f == 0
    }
    /// True for a (nonzero) subnormal.
    pub fn is_subnormal(self, bits: u64) -> bool {
        let (_, e, f) = self.split(bits);
        e == 0 && f != 0
    }
    /// True for zero of either sign.
    pub fn is_zero(self, bits: u64) -> bool {
        let (_, e, f) = self.split(bits);
        e == 0 && f == 0
    }
    /// The exact value of finite `bits` as an f64 (every f16/bf16/tf32/f32 value is an f64 value).
    pub fn to_f64(self, bits: u64) -> f64 {
        if self == F64 {
            return f64::from_bits(bits);
        }
        if self == F32 {
            return f64::from(f32::from_bits(bits as u32));
        }
        let (neg, e, f) = self.split(bits);
        let v = if e == self.max_biased() {
            if f == 0 {
                f64::INFINITY
            } else {
                f64::NAN
            }
        } else if e == 0 {
            f as f64 * pow2(1 - self.bias() - self.man_bits as i32)
        } else {
            ((1u64 << self.man_bits) | f) as f64
                * pow2(e as i32 - self.bias() - self.man_bits as i32)
        };
        if neg {
            -v
        } else {
            v
        }
    }
    /// Flushes a subnormal to a zero of the same sign (`.ftz`).
    pub fn ftz(self, bits: u64) -> u64 {
        if self.is_subnormal(bits) {
            bits & (1u64 << (self.width() - 1))
        } else {
            bits
        }
    }
}

/// `2^e` as an f64 for exponents in the normal or subnormal range (exact).
pub fn pow2(e: i32) -> f64 {
    if e >= -1022 {
        f64::from_bits(((e + 1023).clamp(0, 2046) as u64) << 52)
    } else {
        // Subnormal powers: 2^e = 2^(e+64) * 2^-64, both exact.
        f64::from_bits(((e + 64 + 1023).max(1) as u64) << 52) * f64::from_bits((1023 - 64) << 52)
    }
}

/// Rounds the exact magnitude `mant × 2^exp` — plus, when `sticky`, a positive amount smaller
/// than `2^exp` — with sign `neg` to format `fmt` in mode `rnd`. Returns the bits.
pub fn round_parts(neg: bool, mant: u128, exp: i32, sticky: bool, fmt: Fmt, rnd: Rnd) -> u64 {
    let sign = u64::from(neg) << (fmt.width() - 1);
    if mant == 0 {
        if !sticky {
            return sign;
        }
        // A positive amount below 2^exp: only reachable with exp far below the format's range.
        return round_tiny(neg, fmt, rnd);
    }
    let mb = fmt.man_bits as i32;
    let msb = 127 - mant.leading_zeros() as i32;
    let e_val = msb + exp; // value in [2^e_val, 2^(e_val+1))
    let emin = 1 - fmt.bias();
    let emax = fmt.bias();
    if e_val > emax {
        return overflow(neg, fmt, rnd);
    }
    let q = if e_val < emin { emin - mb } else { e_val - mb };
    let (mut kept, rem_half, rem_nonzero) = if exp >= q {
        // Exact: shifting left cannot overflow because the value fits the significand.
        (mant << (exp - q) as u32, std::cmp::Ordering::Less, false)
    } else {
        let sh = (q - exp) as u32;
        if sh >= 128 {
            (0u128, std::cmp::Ordering::Less, true)
        } else {
            let kept = mant >> sh;
            let rem = mant & ((1u128 << sh) - 1);
            let half = 1u128 << (sh - 1);
            (kept, rem.cmp(&half), rem != 0)
        }
    };
    // `rem_half` compares the discarded part (without sticky) with half a unit; with sticky the
    // discarded part is slightly larger.
    let inexact = rem_nonzero || sticky;
    let above_half = rem_half == std::cmp::Ordering::Greater
        || (rem_half == std::cmp::Ordering::Equal && sticky);
    let at_half = rem_half == std::cmp::Ordering::Equal && !sticky;
    let inc = match rnd {
        Rnd::Rn => above_half || (at_half && kept & 1 == 1),
        Rnd::Rna => above_half || at_half,
        Rnd::Rz => false,
        Rnd::Rp => !neg && inexact,
        Rnd::Rm => neg && inexact,
    };
    if inc {
        kept += 1;
    }
    let mut q = q;
    if kept >> (mb + 1) != 0 {
        kept >>= 1;
        q += 1;
    }
    if kept == 0 {
        return sign;
    }
    if kept >> mb == 0 {
        // Subnormal (q == emin - mb).
        return sign | kept as u64;
    }
    let biased = q + mb + fmt.bias();
    if biased as i64 >= fmt.max_biased() as i64 {
        return overflow(neg, fmt, rnd);
    }
    sign | ((biased as u64) << fmt.man_bits) | (kept as u64 & ((1u64 << fmt.man_bits) - 1))
}

/// A nonzero magnitude below every representable value.
fn round_tiny(neg: bool, fmt: Fmt, rnd: Rnd) -> u64 {
    let sign = u64::from(neg) << (fmt.width() - 1);
    match rnd {
        Rnd::Rp if !neg => 1,
        Rnd::Rm if neg => sign | 1,
        _ => sign,
    }
}

/// The result of an overflow in mode `rnd` (IEEE 754 §7.4).
fn overflow(neg: bool, fmt: Fmt, rnd: Rnd) -> u64 {
    let to_inf = match rnd {
        Rnd::Rn | Rnd::Rna => true,
        Rnd::Rz => false,
        Rnd::Rp => !neg,
        Rnd::Rm => neg,
    };
    if to_inf {
        fmt.inf(neg)
    } else {
        fmt.max_finite(neg)
    }
}

/// Splits a finite nonzero f64 into (sign, integer significand, exponent): `x = ±m × 2^e`.
pub fn f64_parts(x: f64) -> (bool, u64, i32) {
    let bits = x.to_bits();
    let neg = bits >> 63 == 1;
    let e = ((bits >> 52) & 0x7ff) as i32;
    let f = bits & ((1u64 << 52) - 1);
    if e == 0 {
        (neg, f, -1074)
    } else {
        (neg, f | (1u64 << 52), e - 1075)
    }
}

/// Rounds `x + err` to `fmt`, where `x` is finite, `err` is the exact error of `x` (only its sign
/// matters) and `|err|` is at most half an ulp of `x` in f64 (so `x` is the f64 round-to-nearest
/// of the exact value). Infinite or NaN `x` is returned converted as is.
pub fn round_f64_err(x: f64, err: f64, fmt: Fmt, rnd: Rnd) -> u64 {
    if x.is_nan() {
        return fmt.canonical_nan();
    }
    if x.is_infinite() {
        return fmt.inf(x < 0.0);
    }
    if fmt == F64 && (rnd == Rnd::Rn || err == 0.0 || err.is_nan()) {
        return x.to_bits();
    }
    if x == 0.0 {
        // Exact zero (an error-free sum that cancels has no error).
        return round_parts(x.is_sign_negative(), 0, 0, false, fmt, rnd);
    }
    let (neg, m, e) = f64_parts(x);
    if err == 0.0 || err.is_nan() {
        round_parts(neg, u128::from(m), e, false, fmt, rnd)
    } else if (err > 0.0) != neg {
        // The exact magnitude is slightly above |x|.
        round_parts(neg, u128::from(m), e, true, fmt, rnd)
    } else {
        // Slightly below |x|: (2m-1)·2^(e-1) plus a little.
        round_parts(neg, u128::from(m) * 2 - 1, e - 1, true, fmt, rnd)
    }
}

/// Error-free sum: `a + b = s + err` exactly (Knuth's TwoSum; no overflow assumed).
pub fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    let err = (a - (s - bb)) + (b - bb);
    (s, err)
}

/// The exact value of `a*b + c` as `r1 + r2 + r3` (ErrFma, Boldo & Muller 2011), `r1` being the
/// correctly rounded fma. Returns `(r1, sign of (r2 + r3))` as an f64 whose sign is meaningful.
fn fma_err(a: f64, b: f64, c: f64) -> (f64, f64) {
    let r1 = a.mul_add(b, c);
    let u1 = a * b;
    let u2 = a.mul_add(b, -u1);
    let (a1, a2) = two_sum(c, u2);
    let (b1, b2) = two_sum(u1, a1);
    let g = (b1 - r1) + b2;
    let (r2, r3) = two_sum(g, a2);
    let e = if r2 != 0.0 { r2 } else { r3 };
    (r1, e)
}

/// A binary floating-point operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FOp {
    /// `a + b`
    Add,
    /// `a - b`
    Sub,
    /// `a * b`
    Mul,
    /// `a / b` (IEEE division)
    Div,
}

/// Computes `a op b` for values that are exact f64s, returning the f64 round-to-nearest result and
/// its exact error (only the sign is meaningful for Div).
fn f64_op_err(op: FOp, a: f64, b: f64) -> (f64, f64) {
    match op {
        FOp::Add => two_sum(a, b),
        FOp::Sub => two_sum(a, -b),
        FOp::Mul => {
            let p = a * b;
            (p, a.mul_add(b, -p))
        }
        FOp::Div => {
            let q = a / b;
            if !q.is_finite() || q == 0.0 && a != 0.0 {
                return (q, 0.0);
            }
            let r = (-q).mul_add(b, a); // a - q*b exactly
            (q, if b < 0.0 { -r } else { r })
        }
    }
}

/// True when an f64 result overflowed although its inputs were finite.
fn overflowed(r: f64, inputs: &[f64]) -> bool {
    r.is_infinite() && inputs.iter().all(|x| x.is_finite())
}

/// `a op b` on values of format `fmt` (given as exact f64s, NaN/inf included), rounded to `fmt`
/// in mode `rnd`. NaN results are the canonical NaN. No flushing (the caller applies `.ftz`).
pub fn arith(op: FOp, a: f64, b: f64, fmt: Fmt, rnd: Rnd) -> u64 {
    let (r, err) = f64_op_err(op, a, b);
    if r.is_nan() {
        return fmt.canonical_nan();
    }
    if fmt == F64 {
        return directed_f64(r, err, rnd, overflowed(r, &[a, b]));
    }
    if r.is_infinite() {
        // f32 and narrower inputs never overflow f64 except through division by zero (exact).
        return fmt.inf(r < 0.0);
    }
    round_f64_err(r, err, fmt, rnd)
}

/// `a*b + c` rounded once to `fmt` in mode `rnd`.
pub fn fma(a: f64, b: f64, c: f64, fmt: Fmt, rnd: Rnd) -> u64 {
    if fmt == F64 {
        let (r, e) = fma_err(a, b, c);
        if r.is_nan() {
            return fmt.canonical_nan();
        }
        return directed_f64(r, e, rnd, overflowed(r, &[a, b, c]));
    }
    // a*b is exact in f64 for every format up to f32 (48-bit significands); the sum is TwoSum'd.
    let p = a * b;
    let (s, err) = two_sum(p, c);
    if s.is_nan() || (p.is_infinite() && c.is_infinite() && p != c) {
        return fmt.canonical_nan();
    }
    if s.is_infinite() {
        return fmt.inf(s < 0.0);
    }
    round_f64_err(s, err, fmt, rnd)
}

/// `sqrt(a)` rounded to `fmt`.
pub fn sqrt(a: f64, fmt: Fmt, rnd: Rnd) -> u64 {
    let s = a.sqrt();
    if s.is_nan() {
        return fmt.canonical_nan();
    }
    if s.is_infinite() || s == 0.0 {
        return round_f64_err(s, 0.0, fmt, rnd);
    }
    // a - s² exactly (sign of the error of s is the sign of that remainder).
    let r = (-s).mul_add(s, a);
    if fmt == F64 {
        return directed_f64(s, r, rnd, false);
    }
    round_f64_err(s, r, fmt, rnd)
}

/// Directed rounding of an f64 result `r` whose exact error is `err`.
fn directed_f64(r: f64, err: f64, rnd: Rnd, overflow_flag: bool) -> u64 {
    if overflow_flag {
        return overflow(r < 0.0, F64, rnd);
    }
    if r.is_nan() {
        return F64.canonical_nan();
    }
    if err == 0.0 || err.is_nan() || r.is_infinite() || matches!(rnd, Rnd::Rn | Rnd::Rna) {
        return r.to_bits();
    }
    let up = err > 0.0; // exact value above r
    let toward = match rnd {
        Rnd::Rp => {
            if up {
                1
            } else {
                0
            }
        }
        Rnd::Rm => {
            if up {
                0
            } else {
                -1
            }
        }
        // Toward zero: step down when the exact value lies below a positive r (or above a
        // negative r), i.e. when the error points toward zero.
        Rnd::Rz => {
            if r > 0.0 && !up {
                -1
            } else if r < 0.0 && up {
                1
            } else {
                0
            }
        }
        Rnd::Rn | Rnd::Rna => 0,
    };
    match toward {
        1 => next_up(r).to_bits(),
        -1 => next_down(r).to_bits(),
        _ => r.to_bits(),
    }
}

/// The next f64 above `x` (finite `x`).
pub fn next_up(x: f64) -> f64 {
    if x == 0.0 {
        return f64::from_bits(1);
    }
    let b = x.to_bits();
    if x > 0.0 {
        f64::from_bits(b + 1)
    } else {
        f64::from_bits(b - 1)
    }
}

/// The next f64 below `x` (finite `x`).
pub fn next_down(x: f64) -> f64 {
    -next_up(-x)
}

/// Converts f64 bits' value `x` (any value) to `fmt` with rounding `rnd`.
pub fn from_f64(x: f64, fmt: Fmt, rnd: Rnd) -> u64 {
    if x.is_nan() {
        return fmt.canonical_nan();
    }
    round_f64_err(x, 0.0, fmt, rnd)
}

/// One half of `cvt.<rnd>{.relu}.f16x2/bf16x2.f32` (and of SASS's `F2FP.PACK_AB`, which
/// implements it): the f32 `bits` rounded to `fmt`; with `relu` a negative result (−0 included)
/// becomes +0, NaN stays the canonical NaN.
pub fn half_of_f32(bits: u32, fmt: Fmt, rnd: Rnd, relu: bool) -> u64 {
    let r = from_f64(f64::from(f32::from_bits(bits)), fmt, rnd);
    if relu && !fmt.is_nan(r) && (r >> (fmt.width() - 1)) & 1 == 1 {
        0
    } else {
        r
    }
}

/// Converts an integer (`neg` and magnitude) to `fmt` with rounding `rnd`.
pub fn from_int(neg: bool, mag: u64, fmt: Fmt, rnd: Rnd) -> u64 {
    round_parts(neg, u128::from(mag), 0, false, fmt, rnd)
}

/// Rounds a finite f64 to an integral f64 value in mode `rnd` (for `.rni`-style modes).
pub fn round_integral(x: f64, rnd: Rnd) -> f64 {
    if !x.is_finite() {
        return x;
    }
    let r = match rnd {
        Rnd::Rn => x.round_ties_even(),
        Rnd::Rna => x.round(),
        Rnd::Rz => x.trunc(),
        Rnd::Rm => x.floor(),
        Rnd::Rp => x.ceil(),
    };
    // Keep the sign of zero results (-0.3 → -0).
    if r == 0.0 {
        0.0f64.copysign(x)
    } else {
        r
    }
}

/// Converts a finite or special float value to an integer of `bits` width (`signed` or not):
/// rounds with `rnd`, clamps to the range (PTX float→int conversions saturate), NaN → 0.
pub fn to_int(x: f64, rnd: Rnd, bits: u32, signed: bool) -> u64 {
    if x.is_nan() {
        return 0;
    }
    let r = round_integral(x, rnd);
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    if signed {
        let min = -(2f64.powi(bits as i32 - 1));
        let max_i: i64 = if bits == 64 {
            i64::MAX
        } else {
            (1i64 << (bits - 1)) - 1
        };
        let v: i64 = if r < min {
            if bits == 64 {
                i64::MIN
            } else {
                -(1i64 << (bits - 1))
            }
        } else if r >= -min {
            max_i
        } else {
            r as i64
        };
        (v as u64) & mask
    } else {
        if r <= 0.0 {
            return 0;
        }
        let limit = 2f64.powi(bits as i32);
        if r >= limit {
            mask
        } else {
            r as u64
        }
    }
}

/// `.sat` on a float result: clamps to [0.0, 1.0], NaN → +0.0.
pub fn saturate(bits: u64, fmt: Fmt) -> u64 {
    if fmt.is_nan(bits) {
        return 0;
    }
    let x = fmt.to_f64(bits);
    if x <= 0.0 {
        0 // +0.0, also for -0.0 and negative values
    } else if x >= 1.0 {
        from_f64(1.0, fmt, Rnd::Rn)
    } else {
        bits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32r(x: f64, rnd: Rnd) -> f32 {
        f32::from_bits(from_f64(x, F32, rnd) as u32)
    }

    #[test]
    fn rn_matches_native_casts() {
        let samples = [
            0.1f64,
            -0.1,
            1.0 / 3.0,
            1e-40,
            -1e-45,
            3.4028235677973366e38,
            1e39,
            -1e39,
            1.0000000596046448,
            1.0000001788139343,
        ];
        for &x in &samples {
            assert_eq!(f32r(x, Rnd::Rn).to_bits(), (x as f32).to_bits(), "{x}");
        }
    }

    #[test]
    fn directed_conversions() {
        let x = 1.0 / 3.0;
        let lo = f32r(x, Rnd::Rz);
        let hi = f32r(x, Rnd::Rp);
        assert!(f64::from(lo) < x && f64::from(hi) > x);
        assert_eq!(hi.to_bits(), lo.to_bits() + 1);
        assert_eq!(f32r(-x, Rnd::Rm).to_bits(), (-hi).to_bits());
        assert_eq!(f32r(-x, Rnd::Rz).to_bits(), (-lo).to_bits());
        // Overflow: rz gives the largest finite value, rp +inf.
        assert_eq!(f32r(1e39, Rnd::Rz), f32::MAX);
        assert_eq!(f32r(1e39, Rnd::Rp), f32::INFINITY);
        assert_eq!(f32r(-1e39, Rnd::Rp), f32::MIN);
        // Tiny values: rp gives the smallest subnormal.
        assert_eq!(f32r(1e-50, Rnd::Rp).to_bits(), 1);
        assert_eq!(f32r(1e-50, Rnd::Rn).to_bits(), 0);
    }

    #[test]
    fn f16_conversions() {
        assert_eq!(from_f64(1.0, F16, Rnd::Rn), 0x3c00);
        assert_eq!(from_f64(65504.0, F16, Rnd::Rn), 0x7bff);
        assert_eq!(from_f64(65520.0, F16, Rnd::Rn), 0x7c00);
        assert_eq!(from_f64(65520.0, F16, Rnd::Rz), 0x7bff);
        assert_eq!(from_f64(5.960464477539063e-8, F16, Rnd::Rn), 1);
        assert_eq!(F16.to_f64(0x3555), 0.333251953125);
        assert_eq!(F16.to_f64(1), 5.960464477539063e-8);
        assert_eq!(from_f64(1.0, BF16, Rnd::Rn), 0x3f80);
    }

    #[test]
    fn directed_f32_arith_brackets_exact() {
        let a = 1.0f64;
        let b = f64::from(f32::from_bits(0x3380_0000)); // 2^-24: a+b is a tie in f32
        let rn = arith(FOp::Add, a, b, F32, Rnd::Rn);
        let rp = arith(FOp::Add, a, b, F32, Rnd::Rp);
        let rz = arith(FOp::Add, a, b, F32, Rnd::Rz);
        assert_eq!(rn, 1.0f32.to_bits() as u64);
        assert_eq!(rz, 1.0f32.to_bits() as u64);
        assert_eq!(rp, 1.0f32.to_bits() as u64 + 1);
        // Division: 1/3 brackets.
        let q_rz = arith(FOp::Div, 1.0, 3.0, F32, Rnd::Rz);
        let q_rp = arith(FOp::Div, 1.0, 3.0, F32, Rnd::Rp);
        assert_eq!(q_rp, q_rz + 1);
        assert_eq!(
            arith(FOp::Div, 1.0, 3.0, F32, Rnd::Rn),
            (1.0f32 / 3.0).to_bits() as u64
        );
    }

    #[test]
    fn directed_f64_arith() {
        let third_rz = arith(FOp::Div, 1.0, 3.0, F64, Rnd::Rz);
        let third_rp = arith(FOp::Div, 1.0, 3.0, F64, Rnd::Rp);
        assert_eq!(third_rp, third_rz + 1);
        assert_eq!(arith(FOp::Add, 1.0, 1.0, F64, Rnd::Rp), 2.0f64.to_bits());
        assert_eq!(
            arith(FOp::Mul, f64::MAX, 2.0, F64, Rnd::Rz),
            f64::MAX.to_bits()
        );
        let s_rm = sqrt(2.0, F64, Rnd::Rm);
        let s_rp = sqrt(2.0, F64, Rnd::Rp);
        assert_eq!(s_rp, s_rm + 1);
        let f_rz = fma(0.1, 0.1, 0.1, F64, Rnd::Rz);
        let f_rp = fma(0.1, 0.1, 0.1, F64, Rnd::Rp);
        assert_eq!(f_rp, f_rz + 1);
    }

    #[test]
    fn integer_conversions() {
        assert_eq!(to_int(2.5, Rnd::Rn, 32, true), 2);
        assert_eq!(to_int(3.5, Rnd::Rn, 32, true), 4);
        assert_eq!(to_int(-2.5, Rnd::Rn, 32, true) as u32, (-2i32) as u32);
        assert_eq!(to_int(1e20, Rnd::Rz, 32, true), 0x7fff_ffff);
        assert_eq!(to_int(-1e20, Rnd::Rz, 32, true), 0x8000_0000);
        assert_eq!(to_int(-1.0, Rnd::Rz, 32, false), 0);
        assert_eq!(to_int(f64::NAN, Rnd::Rz, 32, false), 0);
        assert_eq!(to_int(1e30, Rnd::Rz, 64, false), u64::MAX);
        assert_eq!(from_int(false, u64::MAX, F32, Rnd::Rz), 0x5f7f_ffff);
        assert_eq!(from_int(false, u64::MAX, F32, Rnd::Rn), 0x5f80_0000);
        assert_eq!(
            from_int(false, (1 << 53) + 1, F64, Rnd::Rp),
            0x4340_0000_0000_0001
        );
    }
}
