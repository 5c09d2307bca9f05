//! Integer arithmetic and bit operations of the lane-by-lane datapath: `IMAD`, `IADD3`, `LEA`,
//! `IMNMX`, `LOP3`, `SHF`, `PRMT`, `FLO`, `SGXT` … on one lane's registers (RegDem §3: the
//! oracle for binary rewrites; `warp_alu` runs the common forms a warp at a time).

use super::*;

impl Machine<'_> {
    /// Integer arithmetic: multiply-add, three-way add with carries, `LEA`, absolute value,
    /// min/max.
    pub(super) fn alu_int(&self, i: &DInst, w: &mut Warp, l: usize) -> R<()> {
        let o = &i.ops;
        let op = |k: usize| operand(o, k);
        match &i.kind {
            Kind::Imad { .. } => self.imad(i, w, l)?,
            Kind::Iadd3 { x } => {
                // IADD3 d, [P0, [P1,]] a, b, c [, Pin0 [, Pin1]]
                let mut k = 1;
                let mut pouts = Vec::new();
                while k < o.len() && is_p(&o[k]) && pouts.len() < 2 && k + 3 <= o.len() {
                    // Leading predicates are carry outputs only when three values follow.
                    if o.len() - k > 3 {
                        pouts.push(k);
                        k += 1;
                    } else {
                        break;
                    }
                }
                let mut sum: u64 = 0;
                for j in 0..3 {
                    let x = op(k + j)?;
                    let (neg, _, _) = decor(x);
                    if neg {
                        // -v as 2^32 - v (carry of a subtraction means "no borrow").
                        let v = self.raw(w, l, x)?;
                        sum += (1u64 << 32) - u64::from(v);
                    } else {
                        sum += u64::from(self.rd(w, l, x)?);
                    }
                }
                if *x {
                    for p in &o[k + 3..] {
                        sum += u64::from(self.pred(w, l, p)?);
                    }
                }
                self.wr(w, l, op(0)?, sum as u32)?;
                // Two carry outputs carry the count (0, 1 or 2) as thermometer code: both are
                // added back by the next word's IADD3.X.
                let carry = sum >> 32;
                for (j, &pk) in pouts.iter().enumerate() {
                    self.wp(w, l, &o[pk], carry > j as u64)?;
                }
            }
            Kind::Iadd64 => {
                // UIADD3.64 d, a, b, c on register pairs, wrapping at 64 bits.
                let mut sum = 0u64;
                for k in 1..4 {
                    let x = op(k)?;
                    let v = self.rd64(w, l, x, false)?;
                    sum = sum.wrapping_add(if decor(x).0 { v.wrapping_neg() } else { v });
                }
                self.wr64(w, l, op(0)?, sum)?;
            }
            Kind::Viadd => {
                let a = self.rd(w, l, op(1)?)?;
                let b = self.rd(w, l, op(2)?)?;
                self.wr(w, l, op(0)?, a.wrapping_add(b))?;
            }
            Kind::Lea { hi, x, sx32 } => {
                let (pout, k) = if is_p(op(1)?) {
                    (Some(1), 2)
                } else {
                    (None, 1)
                };
                let a = self.rd(w, l, op(k)?)?;
                let b = self.rd(w, l, op(k + 1)?)?;
                let (c, s_at) = if *hi && !*sx32 {
                    (self.rd(w, l, op(k + 2)?)?, k + 3)
                } else if *sx32 {
                    (if (a as i32) < 0 { u32::MAX } else { 0 }, k + 2)
                } else {
                    (0, k + 2)
                };
                let s = self.rd(w, l, op(s_at)?)? & 63;
                let cin = if *x {
                    match o.get(s_at + 1) {
                        Some(p) => u64::from(self.pred(w, l, p)?),
                        None => 0,
                    }
                } else {
                    0
                };
                let v = u64::from(c) << 32 | u64::from(a);
                let sh = (u128::from(v) << s) as u64;
                let part = if *hi { (sh >> 32) as u32 } else { sh as u32 };
                let sum = u64::from(part) + u64::from(b) + cin;
                self.wr(w, l, op(0)?, sum as u32)?;
                if let Some(p) = pout {
                    self.wp(w, l, &o[p], sum >> 32 != 0)?;
                }
            }
            Kind::Iabs => {
                let a = self.rd(w, l, op(1)?)?;
                self.wr(w, l, op(0)?, (a as i32).unsigned_abs())?;
            }
            Kind::Imnmx { unsigned } => {
                let a = self.rd(w, l, op(1)?)?;
                let b = self.rd(w, l, op(2)?)?;
                let pmin = self.pred(w, l, op(3)?)?;
                self.wr(w, l, op(0)?, imnmx(a, b, pmin, *unsigned))?;
            }
            Kind::Viaddmnmx { unsigned } => {
                let a = self.rd(w, l, op(1)?)?;
                let b = self.rd(w, l, op(2)?)?;
                let c = self.rd(w, l, op(3)?)?;
                let pmin = self.pred(w, l, op(4)?)?;
                self.wr(w, l, op(0)?, imnmx(a.wrapping_add(b), c, pmin, *unsigned))?;
            }
            Kind::Idp {
                two,
                hi,
                a_signed,
                b_signed,
            } => {
                // The PTX emulator's `dp4a`/`dp2a`.
                use crate::emu::concrete::{dp2a, dp4a};
                let a = self.rd(w, l, op(1)?)?;
                let b = self.rd(w, l, op(2)?)?;
                let c = self.rd(w, l, op(3)?)?;
                let r = if *two {
                    dp2a(a, b, c, *hi, *a_signed, *b_signed)
                } else {
                    dp4a(a, b, c, *a_signed, *b_signed)
                };
                self.wr(w, l, op(0)?, r)?;
            }
            other => return Err(format!("{other:?} is not an ALU instruction")),
        }
        Ok(())
    }

    /// `IMAD` in its forms: low word, `.HI` (high word of a·b plus a 64-bit addend), `.WIDE`
    /// (64-bit result), `.X` (carry in); an optional leading predicate is the carry out.
    fn imad(&self, i: &DInst, w: &mut Warp, l: usize) -> R<()> {
        let Kind::Imad {
            hi,
            wide,
            signed,
            x,
        } = &i.kind
        else {
            return Err(format!("{:?} is not an ALU instruction", i.kind));
        };
        let o = &i.ops;
        let op = |k: usize| operand(o, k);
        let d = op(0)?;
        let (pout, a_at) = if is_p(op(1)?) && !matches!(op(1)?, Opnd::Imm(_)) {
            (Some(op(1)?), 2)
        } else {
            (None, 1)
        };
        let a = self.rd(w, l, op(a_at)?)?;
        let b = self.rd(w, l, op(a_at + 1)?)?;
        let cin = if *x {
            match o.get(a_at + 3) {
                Some(p) => u64::from(self.pred(w, l, p)?),
                None => 0,
            }
        } else {
            0
        };
        if *wide {
            let c = self.rd64(w, l, op(a_at + 2)?, false)?;
            let prod = if *signed {
                (i64::from(a as i32) * i64::from(b as i32)) as u64
            } else {
                u64::from(a) * u64::from(b)
            };
            let (s1, c1) = prod.overflowing_add(c);
            let (s, c2) = s1.overflowing_add(cin);
            self.wr64(w, l, d, s)?;
            if let Some(p) = pout {
                self.wp(w, l, p, c1 || c2)?;
            }
        } else {
            let r = if *hi {
                // IMAD.HI: the high word of a·b + the 64-bit pair {c+1:c}.
                let c = self.rd64(w, l, op(a_at + 2)?, false)?;
                let prod = if *signed {
                    (i64::from(a as i32) * i64::from(b as i32)) as u64
                } else {
                    u64::from(a) * u64::from(b)
                };
                let s = u128::from(prod) + u128::from(c) + u128::from(cin << 32);
                if let Some(p) = pout {
                    self.wp(w, l, p, s >> 64 != 0)?;
                }
                (s >> 32) as u32
            } else {
                let c = self.rd(w, l, op(a_at + 2)?)?;
                let s = u64::from(a.wrapping_mul(b)) + u64::from(c) + cin;
                if let Some(p) = pout {
                    self.wp(w, l, p, s >> 32 != 0)?;
                }
                s as u32
            };
            self.wr(w, l, d, r)?;
        }
        Ok(())
    }

    /// Logic, shifts and bit operations: `LOP3`, funnel shifts, byte permutes, population count,
    /// leading-one search, bit reversal, sign extension.
    pub(super) fn alu_bits(&self, i: &DInst, w: &mut Warp, l: usize) -> R<()> {
        let o = &i.ops;
        let op = |k: usize| operand(o, k);
        match &i.kind {
            Kind::Lop3 => {
                // LOP3.LUT [Pout,] d, a, b, c, lut, Pin: Pout = (result != 0) OR Pin (ptxas
                // chains wide "!= 0" tests through Pin).
                let (pout, d, k) = if is_p(op(0)?) {
                    (Some(0), 1, 2)
                } else {
                    (None, 0, 1)
                };
                let pin = match o.get(k + 4) {
                    Some(p) => self.pred(w, l, p)?,
                    None => false,
                };
                let a = self.rd(w, l, op(k)?)?;
                let b = self.rd(w, l, op(k + 1)?)?;
                let c = self.rd(w, l, op(k + 2)?)?;
                let lut = self.rd(w, l, op(k + 3)?)? as u8;
                let r = alu::lop3(a, b, c, lut);
                self.wr(w, l, op(d)?, r)?;
                if let Some(p) = pout {
                    self.wp(w, l, &o[p], r != 0 || pin)?;
                }
            }
            Kind::Shf {
                left,
                w64,
                signed,
                hi,
                wrap,
            } => {
                let a = self.rd(w, l, op(1)?)?;
                let s = self.rd(w, l, op(2)?)?;
                let c = self.rd(w, l, op(3)?)?;
                let m = alu::ShfMode {
                    left: *left,
                    w64: *w64,
                    signed: *signed,
                    hi: *hi,
                    wrap: *wrap,
                };
                let r = alu::shf(a, s, c, m);
                self.wr(w, l, op(0)?, r)?;
            }
            Kind::Prmt => {
                let a = self.rd(w, l, op(1)?)?;
                let s = self.rd(w, l, op(2)?)?;
                let b = self.rd(w, l, op(3)?)?;
                self.wr(w, l, op(0)?, alu::prmt(a, s, b))?;
            }
            Kind::PrmtMode(mode) => {
                let a = self.rd(w, l, op(1)?)?;
                let s = self.rd(w, l, op(2)?)?;
                let b = self.rd(w, l, op(3)?)?;
                let r = crate::emu::concrete::prmt(*mode, a.into(), b.into(), s.into());
                self.wr(w, l, op(0)?, r as u32)?;
            }
            Kind::Popc => {
                let a = self.rd(w, l, op(1)?)?;
                self.wr(w, l, op(0)?, a.count_ones())?;
            }
            Kind::Flo { signed, sh } => {
                let mut a = self.rd(w, l, op(1)?)?;
                if *signed && (a as i32) < 0 {
                    a = !a;
                }
                let r = if a == 0 {
                    u32::MAX
                } else if *sh {
                    a.leading_zeros()
                } else {
                    31 - a.leading_zeros()
                };
                self.wr(w, l, op(0)?, r)?;
            }
            Kind::Brev => {
                let a = self.rd(w, l, op(1)?)?;
                self.wr(w, l, op(0)?, a.reverse_bits())?;
            }
            Kind::Bmsk { wrap } => {
                let pos = self.rd(w, l, op(1)?)?;
                let width = self.rd(w, l, op(2)?)?;
                let r = crate::emu::concrete::bmsk(pos, width, !*wrap);
                self.wr(w, l, op(0)?, r)?;
            }
            Kind::Sgxt { signed } => {
                let a = self.rd(w, l, op(1)?)?;
                let n = self.rd(w, l, op(2)?)?.min(32);
                let r = if n == 0 {
                    0
                } else if n >= 32 {
                    a
                } else if *signed {
                    (((a << (32 - n)) as i32) >> (32 - n)) as u32
                } else {
                    a & ((1u32 << n) - 1)
                };
                self.wr(w, l, op(0)?, r)?;
            }
            other => return Err(format!("{other:?} is not an ALU instruction")),
        }
        Ok(())
    }
}
