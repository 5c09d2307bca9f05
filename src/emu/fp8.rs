//! The 8-bit floating-point formats of `cvt` (PTX ISA §5.2.5.1 "Alternate floating-point data
//! formats", §9.7.9.21 `cvt`): `e4m3` (OCP FP8 E4M3: bias 7, no infinity, NaN only `S.1111.111`,
//! largest finite 448) and `e5m2` (OCP FP8 E5M2: bias 15, IEEE-like with infinities, largest
//! finite 57344).
//!
//! PTX converts to them only with `.rn.satfinite`: round to nearest, ties to even; values beyond
//! the largest finite one (infinities included) become it, with their sign; NaN becomes `0x7f`;
//! `.relu` makes negative results `+0`. From them to `f16x2` the conversion is exact (every e4m3
//! and e5m2 value is an f16 value); NaN becomes f16's canonical `0x7fff`. These are the results of
//! the host path of CUDA's `cuda_fp8.hpp` (`__nv_cvt_float_to_fp8` with `__NV_SATFINITE`,
//! `__nv_cvt_fp8_to_halfraw`), which NVIDIA ships as the reference for the device instructions;
//! tests/emu_fp8.rs compares the two on every f16 value and on f32 values around each boundary.

use super::float::{self, Rnd};

/// An 8-bit float format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fp8 {
    /// 4 exponent bits, 3 mantissa bits.
    E4m3,
    /// 5 exponent bits, 2 mantissa bits.
    E5m2,
}

/// The NaN every conversion to an 8-bit format produces.
pub const NAN: u8 = 0x7f;

impl Fp8 {
    /// The largest finite code (448 or 57344).
    fn max_code(self) -> u8 {
        match self {
            Fp8::E4m3 => 0x7e,
            Fp8::E5m2 => 0x7b,
        }
    }

    /// The value of a code (NaN for NaN codes, ±∞ for e5m2's infinities).
    pub fn value(self, code: u8) -> f64 {
        let sign = if code & 0x80 != 0 { -1.0 } else { 1.0 };
        let (e, m, man_bits, bias) = match self {
            Fp8::E4m3 => (i32::from((code >> 3) & 15), code & 7, 3, 7),
            Fp8::E5m2 => (i32::from((code >> 2) & 31), code & 3, 2, 15),
        };
        let m = f64::from(m);
        let unit = f64::from(1u32 << man_bits);
        match (self, e) {
            (Fp8::E4m3, 15) if m == 7.0 => f64::NAN,
            (Fp8::E5m2, 31) if m == 0.0 => sign * f64::INFINITY,
            (Fp8::E5m2, 31) => f64::NAN,
            (_, 0) => sign * m / unit * 2f64.powi(1 - bias),
            _ => sign * (1.0 + m / unit) * 2f64.powi(e - bias),
        }
    }

    /// `cvt.rn.satfinite{.relu}` of an exact value (an f32 or f16 widened to f64).
    pub fn encode(self, x: f64, relu: bool) -> u8 {
        if x.is_nan() {
            return NAN;
        }
        if relu && x < 0.0 {
            return 0;
        }
        let sign = if x.is_sign_negative() { 0x80 } else { 0 };
        let a = x.abs();
        let max = self.max_code();
        if a >= self.value(max) {
            return sign | max;
        }
        // The codes 0..=max are increasing; find the neighbours of `a`.
        let mut lo = 0u8;
        while lo < max && self.value(lo + 1) <= a {
            lo += 1;
        }
        let below = self.value(lo);
        if below == a {
            return sign | lo;
        }
        let above = self.value(lo + 1);
        let mid = (below + above) / 2.0;
        let code = if a < mid || (a == mid && lo % 2 == 0) {
            lo
        } else {
            lo + 1
        };
        sign | code
    }

    /// `cvt.rn{.relu}.f16x2.<fp8>x2` of one code: its f16 bits.
    pub fn to_f16(self, code: u8, relu: bool) -> u16 {
        let v = self.value(code);
        if v.is_nan() {
            return 0x7fff;
        }
        if relu && v < 0.0 {
            return 0;
        }
        float::from_f64(v, float::F16, Rnd::Rn) as u16
    }
}

/// What a packed 8-bit conversion reads and writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fp8Cvt {
    /// `cvt.rn.satfinite{.relu}.<fp8>x2.f32 d, a, b`: a → the upper byte, b → the lower.
    FromF32Pair,
    /// `cvt.rn.satfinite{.relu}.<fp8>x2.f16x2 d, a`: each half of a to the byte in its place.
    FromF16x2,
    /// `cvt.rn{.relu}.f16x2.<fp8>x2 d, a`: each byte of a (16 bits) to the half in its place.
    ToF16x2,
}

/// Applies a packed conversion to raw register bits (`b` only for [`Fp8Cvt::FromF32Pair`]).
pub fn convert(fmt: Fp8, how: Fp8Cvt, relu: bool, a: u64, b: u64) -> u64 {
    let f16 = |h: u64| float::F16.to_f64(h & 0xffff);
    let f32 = |w: u64| f64::from(f32::from_bits(w as u32));
    match how {
        Fp8Cvt::FromF32Pair => {
            u64::from(fmt.encode(f32(a), relu)) << 8 | u64::from(fmt.encode(f32(b), relu))
        }
        Fp8Cvt::FromF16x2 => {
            u64::from(fmt.encode(f16(a >> 16), relu)) << 8 | u64::from(fmt.encode(f16(a), relu))
        }
        Fp8Cvt::ToF16x2 => {
            u64::from(fmt.to_f16((a >> 8) as u8, relu)) << 16 | u64::from(fmt.to_f16(a as u8, relu))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_finite_code_round_trips() {
        for fmt in [Fp8::E4m3, Fp8::E5m2] {
            for code in 0..=255u8 {
                let v = fmt.value(code);
                if v.is_finite() {
                    let back = fmt.encode(v, false);
                    // -0 and +0 keep their signs; every other code is itself.
                    assert_eq!(back, code, "{fmt:?} {code:#x} = {v}");
                }
            }
        }
    }

    #[test]
    fn boundaries_of_e4m3() {
        let e = Fp8::E4m3;
        assert_eq!(e.encode(448.0, false), 0x7e);
        assert_eq!(e.encode(1e9, false), 0x7e, "saturates");
        assert_eq!(e.encode(f64::NEG_INFINITY, false), 0xfe);
        assert_eq!(e.encode(f64::NAN, false), NAN);
        // 1.0625 lies halfway between 1.0 (0x38, even) and 1.125 (0x39): ties to even.
        assert_eq!(e.encode(1.0625, false), 0x38);
        assert_eq!(
            e.encode(1.1875, false),
            0x3a,
            "1.1875: between 0x39 and 0x3a, to even"
        );
        // The smallest denormal is 2^-9; half of it ties to zero, a little more rounds up.
        assert_eq!(e.encode(2f64.powi(-10), false), 0);
        assert_eq!(e.encode(2f64.powi(-10) * 1.01, false), 1);
        assert_eq!(e.encode(-2.0, true), 0, "relu");
        assert_eq!(e.to_f16(0x7f, false), 0x7fff);
        assert_eq!(e.to_f16(0x38, false), 0x3c00, "1.0");
        assert_eq!(e.to_f16(0x01, false), 0x1800, "2^-9");
    }

    #[test]
    fn boundaries_of_e5m2() {
        let e = Fp8::E5m2;
        assert_eq!(e.encode(57344.0, false), 0x7b);
        assert_eq!(e.encode(f64::INFINITY, false), 0x7b, "satfinite");
        assert_eq!(e.to_f16(0x7c, false), 0x7c00, "infinity");
        assert_eq!(e.to_f16(0xfd, false), 0x7fff, "NaN");
        // e5m2 is the top byte of an f16.
        for code in 0..=0x7bu8 {
            assert_eq!(e.to_f16(code, false), u16::from(code) << 8);
        }
    }

    #[test]
    fn packed_forms_place_the_first_operand_high() {
        let one = u64::from(1.0f32.to_bits());
        let two = u64::from(2.0f32.to_bits());
        assert_eq!(
            convert(Fp8::E4m3, Fp8Cvt::FromF32Pair, false, one, two),
            0x3840
        );
        // f16x2 {hi 1.0, lo 2.0} -> bytes {0x38, 0x40}.
        assert_eq!(
            convert(Fp8::E4m3, Fp8Cvt::FromF16x2, false, 0x3c00_4000, 0),
            0x3840
        );
        assert_eq!(
            convert(Fp8::E4m3, Fp8Cvt::ToF16x2, false, 0x3840, 0),
            0x3c00_4000
        );
    }
}
