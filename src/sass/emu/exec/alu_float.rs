//! Floating-point operations of the lane-by-lane datapath: f32 and f64 arithmetic, `MUFU`,
//! conversions between integers and floats of every width, and packed half precision (RegDem §3:
//! the oracle for binary rewrites).

use super::*;

impl Machine<'_> {
    /// f32 and f64 arithmetic: add, multiply, fused multiply-add, min/max, `FCHK`, `MUFU`.
    pub(super) fn alu_float(&self, i: &DInst, w: &mut Warp, l: usize) -> R<()> {
        let o = &i.ops;
        let op = |k: usize| operand(o, k);
        match &i.kind {
            Kind::Fadd(m) => {
                let a = self.rf(w, l, op(1)?)?;
                let b = self.rf(w, l, op(2)?)?;
                self.wr(w, l, op(0)?, alu::fadd(a, b, *m))?;
            }
            Kind::Fmul(m) => {
                let a = self.rf(w, l, op(1)?)?;
                let b = self.rf(w, l, op(2)?)?;
                self.wr(w, l, op(0)?, alu::fmul(a, b, *m))?;
            }
            Kind::Ffma(m) => {
                let a = self.rf(w, l, op(1)?)?;
                let b = self.rf(w, l, op(2)?)?;
                let c = self.rf(w, l, op(3)?)?;
                self.wr(w, l, op(0)?, alu::ffma(a, b, c, *m))?;
            }
            Kind::Fmnmx { ftz } => {
                let a = self.rf(w, l, op(1)?)?;
                let b = self.rf(w, l, op(2)?)?;
                let p = self.pred(w, l, op(3)?)?;
                self.wr(w, l, op(0)?, alu::fmnmx(a, b, p, *ftz))?;
            }
            Kind::Dadd(r) | Kind::Dmul(r) => {
                let a = self.rd64(w, l, op(1)?, true)?;
                let b = self.rd64(w, l, op(2)?, true)?;
                let k = u8::from(matches!(i.kind, Kind::Dmul(_)));
                self.wr64(w, l, op(0)?, alu::darith(k, a, b, *r))?;
            }
            Kind::Dfma(r) => {
                let a = self.rd64(w, l, op(1)?, true)?;
                let b = self.rd64(w, l, op(2)?, true)?;
                let c = self.rd64(w, l, op(3)?, true)?;
                self.wr64(w, l, op(0)?, alu::dfma(a, b, c, *r))?;
            }
            Kind::Fchk => {
                let a = self.rf(w, l, op(1)?)?;
                let b = self.rf(w, l, op(2)?)?;
                self.wp(w, l, op(0)?, alu::fchk(a, b))?;
            }
            Kind::Mufu(f) => {
                let a = self.rf(w, l, op(1)?)?;
                self.wr(w, l, op(0)?, alu::mufu(*f, a))?;
            }
            Kind::Frnd {
                f64: false,
                rnd,
                ftz,
            } => {
                let mut a = self.rf(w, l, op(1)?)?;
                if *ftz {
                    a = alu::ftz32(a);
                }
                let r = if F32.is_nan(u64::from(a)) {
                    F32.canonical_nan()
                } else {
                    let x = float::round_integral(f64::from(f32::from_bits(a)), *rnd);
                    float::from_f64(x, F32, Rnd::Rn)
                };
                self.wr(w, l, op(0)?, r as u32)?;
            }
            Kind::Frnd { f64: true, rnd, .. } => {
                let f = crate::emu::float::F64;
                let a = self.rd64(w, l, op(1)?, true)?;
                let r = if f.is_nan(a) {
                    f.canonical_nan()
                } else {
                    float::round_integral(f64::from_bits(a), *rnd).to_bits()
                };
                self.wr64(w, l, op(0)?, r)?;
            }
            other => return Err(format!("{other:?} is not an ALU instruction")),
        }
        Ok(())
    }

    /// Conversions: float to integer, integer to float, float to float, f32 pairs packed to f16/bf16.
    pub(super) fn alu_convert(&self, i: &DInst, w: &mut Warp, l: usize) -> R<()> {
        let o = &i.ops;
        let op = |k: usize| operand(o, k);
        match &i.kind {
            Kind::F2i {
                src64,
                bits,
                signed,
                rnd,
                ftz,
            } => {
                let x = if *src64 {
                    f64::from_bits(self.rd64(w, l, op(1)?, true)?)
                } else {
                    let mut b = self.rf(w, l, op(1)?)?;
                    if *ftz {
                        b = alu::ftz32(b);
                    }
                    f64::from(f32::from_bits(b))
                };
                let v = alu::f2i(x, *bits, *signed, *rnd);
                if *bits == 64 {
                    self.wr64(w, l, op(0)?, v)?;
                } else {
                    self.wr(w, l, op(0)?, v as u32)?;
                }
            }
            Kind::I2f {
                dst64,
                bits,
                signed,
                rnd,
            } => {
                let v = if *bits == 64 {
                    self.rd64(w, l, op(1)?, false)?
                } else {
                    u64::from(self.rd(w, l, op(1)?)?)
                };
                if *dst64 {
                    let r = alu::i2f(v, *bits, *signed, crate::emu::float::F64, *rnd);
                    self.wr64(w, l, op(0)?, r)?;
                } else {
                    let r = alu::i2f(v, *bits, *signed, F32, *rnd);
                    self.wr(w, l, op(0)?, r as u32)?;
                }
            }
            Kind::F2f {
                dst,
                src,
                bf16,
                rnd,
                ftz,
            } => {
                let fmt = |bits: u32| match bits {
                    16 if *bf16 => float::BF16,
                    _ => alu::fmt_of(bits),
                };
                let x = match src {
                    64 => f64::from_bits(self.rd64(w, l, op(1)?, true)?),
                    32 => {
                        let mut b = self.rf(w, l, op(1)?)?;
                        if *ftz {
                            b = alu::ftz32(b);
                        }
                        f64::from(f32::from_bits(b))
                    }
                    _ => fmt(16).to_f64(u64::from(self.rf(w, l, op(1)?)? & 0xffff)),
                };
                let r = if x.is_nan() {
                    fmt(*dst).canonical_nan()
                } else {
                    float::from_f64(x, fmt(*dst), *rnd)
                };
                match dst {
                    64 => self.wr64(w, l, op(0)?, r)?,
                    32 => {
                        let mut r = r as u32;
                        if *ftz {
                            r = alu::ftz32(r);
                        }
                        self.wr(w, l, op(0)?, r)?
                    }
                    _ => self.wr(w, l, op(0)?, r as u32 & 0xffff)?,
                }
            }
            Kind::F2fp { f16, rnd, relu } => {
                // F2FP.PACK_AB d, a, b: d = {hi: cvt(a), lo: cvt(b)}, PTX's cvt.f16x2.f32.
                let fmt = if *f16 { F16 } else { float::BF16 };
                let a = self.rf(w, l, op(1)?)?;
                let b = self.rf(w, l, op(2)?)?;
                let cv = |x: u32| float::half_of_f32(x, fmt, *rnd, *relu) as u32 & 0xffff;
                self.wr(w, l, op(0)?, cv(a) << 16 | cv(b))?;
            }
            Kind::F2fpFp8 {
                fmt,
                how,
                relu,
                merge_high,
            } => {
                // The PTX conversion of the same operands (crate::emu::fp8), into the low 16
                // bits; `MERGE_C Rc.H1` keeps Rc's high 16 bits (read before the write: ptxas
                // merges the destination's own register).
                use crate::emu::fp8::{convert, Fp8Cvt};
                let high = if *merge_high {
                    // `Rc.H1` selects the high half, which stays where it is.
                    self.raw(w, l, o.last().ok_or("F2FP without a merge operand")?)? << 16
                } else {
                    0
                };
                let a = u64::from(self.rf(w, l, op(1)?)?);
                let b = match how {
                    Fp8Cvt::FromF32Pair => u64::from(self.rf(w, l, op(2)?)?),
                    _ => 0,
                };
                let a = if *how == Fp8Cvt::ToF16x2 {
                    a & 0xffff
                } else {
                    a
                };
                let low = convert(*fmt, *how, *relu, a, b) as u32;
                let low = if *merge_high { low & 0xffff } else { low };
                self.wr(w, l, op(0)?, high | low)?;
            }
            other => return Err(format!("{other:?} is not an ALU instruction")),
        }
        Ok(())
    }

    /// Packed half precision: `HADD2`, `HMUL2`, `HFMA2` (and their `.F32` forms), `HMNMX2`,
    /// `HSET2`.
    pub(super) fn alu_half(&self, i: &DInst, w: &mut Warp, l: usize) -> R<()> {
        let o = &i.ops;
        let op = |k: usize| operand(o, k);
        match &i.kind {
            Kind::H2 {
                op: hop,
                f32,
                bf16,
                m,
            } => {
                let fmt = if *bf16 { float::BF16 } else { F16 };
                // An immediate pair is printed as two tokens (`1.875, 0`: high half first), in
                // any source position (`HFMA2.MMA R5, -RZ, RZ, 1.875, 0`, `HFMA2.BF16_V2 R26,
                // R7, 1, 1, R20`); nvdisasm writes each half as a number, `1` being 1.0.
                let half = |x: &Opnd| -> Option<u32> {
                    let v = match x {
                        Opnd::FImm(f) => *f,
                        Opnd::Imm(v) => *v as f64,
                        _ => return None,
                    };
                    Some(float::from_f64(v, fmt, Rnd::Rn) as u32 & 0xffff)
                };
                let sources = if *hop == 2 { 3 } else { 2 };
                let mut src = Vec::with_capacity(sources);
                let mut k = 1;
                while src.len() < sources {
                    if let (Some(hi), Some(lo)) = (half(op(k)?), o.get(k + 1).and_then(half)) {
                        src.push(hi << 16 | lo);
                        k += 2;
                    } else {
                        src.push(self.rh(w, l, op(k)?)?);
                        k += 1;
                    }
                }
                let (a, b) = (src[0], src[1]);
                if *f32 {
                    // HADD2.F32 d, a, b: f32 of the low halves' sum.
                    let x = F16.to_f64(u64::from(a & 0xffff));
                    let y = F16.to_f64(u64::from(b & 0xffff));
                    let r = float::arith(float::FOp::Add, x, y, F32, m.rnd) as u32;
                    self.wr(w, l, op(0)?, r)?;
                } else {
                    let c = src.get(2).copied().unwrap_or(0);
                    self.wr(w, l, op(0)?, alu::h2(*hop, a, b, c, *m, fmt))?;
                }
            }
            Kind::Hmnmx2 { nan, bf16 } => {
                // The PTX emulator's `min`/`max` per half; the predicate selects min (PT) or max.
                let fmt = if *bf16 { float::BF16 } else { F16 };
                let a = self.rh(w, l, op(1)?)?;
                let b = self.rh(w, l, op(2)?)?;
                let is_max = !self.pred(w, l, op(3)?)?;
                let half = |k: u32| {
                    let (x, y) = (u64::from(a >> k & 0xffff), u64::from(b >> k & 0xffff));
                    crate::emu::concrete::min_max(fmt, *nan, is_max, x, y) as u32 & 0xffff
                };
                self.wr(w, l, op(0)?, half(16) << 16 | half(0))?;
            }
            Kind::Hset2 { cmp, bop, bf } => {
                let a = self.rh(w, l, op(1)?)?;
                let b = self.rh(w, l, op(2)?)?;
                let c = self.pred(w, l, op(3)?)?;
                let half = |k: u32| {
                    let x = F16.to_f64(u64::from(a >> k & 0xffff));
                    let y = F16.to_f64(u64::from(b >> k & 0xffff));
                    match (alu::combine(alu::fcmp(*cmp, x, y), *bop, c), bf) {
                        (true, true) => 0x3c00,
                        (true, false) => 0xffff,
                        (false, _) => 0,
                    }
                };
                self.wr(w, l, op(0)?, half(16) << 16 | half(0))?;
            }
            other => return Err(format!("{other:?} is not an ALU instruction")),
        }
        Ok(())
    }
}
