//! Whole-warp integer arithmetic: `IMAD` (narrow, wide, with carries), `IADD3` (plain and with
//! carry chains), `VIADD` and the plain `LEA`; the lane-by-lane semantics are in
//! `exec/alu_int.rs`.

use super::super::decode::Kind;
use super::super::exec::{Lanes, Machine, Warp};
use super::super::operand::Opnd;
use super::{is_p, strip_neg, R};

impl Machine<'_> {
    /// Integer add and multiply-add forms with a whole-warp path; `None` for the others.
    pub(super) fn warp_int(
        &self,
        kind: &Kind,
        o: &[Opnd],
        w: &mut Warp,
        exec: u32,
    ) -> Option<R<()>> {
        // Arm order matters: the plain `IMAD` forms come before the general one.
        let r = match kind {
            Kind::Imad {
                hi: false,
                wide: false,
                x: false,
                ..
            } if o.len() == 4 && !is_p(&o[1]) => self.warp_imad(o, w, exec),
            Kind::Imad {
                hi: false,
                wide: true,
                x: false,
                signed,
            } if o.len() == 4 && !is_p(&o[1]) && matches!(o[0], Opnd::R { .. }) => {
                self.warp_imad_wide(o, w, exec, *signed)
            }
            Kind::Iadd3 { x } if o.len() != 4 || is_p(&o[1]) => {
                self.warp_iadd3_carry(o, w, exec, *x)
            }
            Kind::Iadd3 { x: false } if o.len() == 4 && !is_p(&o[1]) => self.warp_iadd3(o, w, exec),
            Kind::Viadd if o.len() == 3 => self.warp_viadd(o, w, exec),
            Kind::Lea {
                hi: false,
                x: false,
                sx32: false,
            } if o.len() == 4 => self.warp_lea(o, w, exec),
            Kind::Imad {
                hi: false,
                wide,
                signed,
                x,
            } if matches!(o[0], Opnd::R { .. }) => {
                self.warp_imad_carry(o, w, exec, *wide, *signed, *x)
            }
            _ => return None,
        };
        Some(r)
    }

    /// `IMAD d, a, b, c`.
    fn warp_imad(&self, o: &[Opnd], w: &mut Warp, exec: u32) -> R<()> {
        let a = self.vals(w, exec, &o[1], false)?;
        let b = self.vals(w, exec, &o[2], false)?;
        let c = self.vals(w, exec, &o[3], false)?;
        let mut d: Lanes = [0; 32];
        for l in 0..32 {
            d[l] = a[l].wrapping_mul(b[l]).wrapping_add(c[l]);
        }
        self.wvals(w, exec, &o[0], &d)
    }

    /// `IMAD.WIDE[.U32] d, a, b, c` into a register pair.
    fn warp_imad_wide(&self, o: &[Opnd], w: &mut Warp, exec: u32, signed: bool) -> R<()> {
        let a = self.vals(w, exec, &o[1], false)?;
        let b = self.vals(w, exec, &o[2], false)?;
        let (clo, chi) = self.vals64(w, exec, &o[3])?;
        let (mut lo, mut hi): (Lanes, Lanes) = ([0; 32], [0; 32]);
        for l in 0..32 {
            let p = if signed {
                (i64::from(a[l] as i32) * i64::from(b[l] as i32)) as u64
            } else {
                u64::from(a[l]) * u64::from(b[l])
            };
            let s = p.wrapping_add(u64::from(clo[l]) | u64::from(chi[l]) << 32);
            lo[l] = s as u32;
            hi[l] = (s >> 32) as u32;
        }
        self.wpair(w, exec, &o[0], &lo, &hi)
    }

    /// `IMAD[.WIDE][.X] d, [Pout,] a, b, c [, Pin]`: as in exec/alu_int.rs.
    fn warp_imad_carry(
        &self,
        o: &[Opnd],
        w: &mut Warp,
        exec: u32,
        wide: bool,
        signed: bool,
        x: bool,
    ) -> R<()> {
        let (pout, k) = if o.len() > 1 && is_p(&o[1]) {
            (Some(1), 2)
        } else {
            (None, 1)
        };
        if o.len() < k + 3 {
            return Err("IMAD operands".into());
        }
        let a = self.vals(w, exec, &o[k], false)?;
        let b = self.vals(w, exec, &o[k + 1], false)?;
        let cin = match (x, o.get(k + 3)) {
            (true, Some(p)) => self.pmask(w, exec, p)?,
            _ => 0,
        };
        let mut lo: Lanes = [0; 32];
        let mut hi: Lanes = [0; 32];
        let mut carry = 0u32;
        if wide {
            let (clo, chi) = self.vals64(w, exec, &o[k + 2])?;
            for l in 0..32 {
                let p = if signed {
                    (i64::from(a[l] as i32) * i64::from(b[l] as i32)) as u64
                } else {
                    u64::from(a[l]) * u64::from(b[l])
                };
                let c = u64::from(clo[l]) | u64::from(chi[l]) << 32;
                let s = u128::from(p) + u128::from(c) + u128::from(cin >> l & 1);
                lo[l] = s as u32;
                hi[l] = (s >> 32) as u32;
                carry |= u32::from(s >> 64 != 0) << l;
            }
            self.wpair(w, exec, &o[0], &lo, &hi)?;
        } else {
            let c = self.vals(w, exec, &o[k + 2], false)?;
            for l in 0..32 {
                let s =
                    u64::from(a[l].wrapping_mul(b[l])) + u64::from(c[l]) + u64::from(cin >> l & 1);
                lo[l] = s as u32;
                carry |= u32::from(s >> 32 != 0) << l;
            }
            self.wvals(w, exec, &o[0], &lo)?;
        }
        if let Some(p) = pout {
            self.wpmask(w, exec, &o[p], carry)?;
        }
        Ok(())
    }

    /// `IADD3 d, [P0, [P1,]] a, b, c [, Pin0 [, Pin1]]`: as in exec/alu_int.rs.
    fn warp_iadd3_carry(&self, o: &[Opnd], w: &mut Warp, exec: u32, x: bool) -> R<()> {
        let mut k = 1;
        let mut pouts = [0usize; 2];
        let mut np = 0;
        while k < o.len() && is_p(&o[k]) && np < 2 && o.len() - k > 3 {
            pouts[np] = k;
            np += 1;
            k += 1;
        }
        if k + 3 > o.len() {
            return Err("IADD3 operands".into());
        }
        let mut sum = [0u64; 32];
        for v in &o[k..k + 3] {
            let neg = matches!(
                v,
                Opnd::R { neg: true, .. } | Opnd::Ur { neg: true, .. } | Opnd::C { neg: true, .. }
            );
            if neg {
                // -v as 2^32 - v (a subtraction's carry means "no borrow").
                let plain = strip_neg(v);
                let v = self.vals(w, exec, &plain, false)?;
                for l in 0..32 {
                    sum[l] += (1u64 << 32) - u64::from(v[l]);
                }
            } else {
                let v = self.vals(w, exec, v, false)?;
                for l in 0..32 {
                    sum[l] += u64::from(v[l]);
                }
            }
        }
        if x {
            for p in &o[k + 3..] {
                let m = self.pmask(w, exec, p)?;
                for (l, s) in sum.iter_mut().enumerate() {
                    *s += u64::from(m >> l & 1);
                }
            }
        }
        let mut d: Lanes = [0; 32];
        for l in 0..32 {
            d[l] = sum[l] as u32;
        }
        self.wvals(w, exec, &o[0], &d)?;
        for (j, &pk) in pouts[..np].iter().enumerate() {
            let mut m = 0u32;
            for (l, s) in sum.iter().enumerate() {
                m |= u32::from(s >> 32 > j as u64) << l;
            }
            self.wpmask(w, exec, &o[pk], m)?;
        }
        Ok(())
    }

    /// `IADD3 d, a, b, c` without carries.
    fn warp_iadd3(&self, o: &[Opnd], w: &mut Warp, exec: u32) -> R<()> {
        let a = self.vals(w, exec, &o[1], false)?;
        let b = self.vals(w, exec, &o[2], false)?;
        let c = self.vals(w, exec, &o[3], false)?;
        let mut d: Lanes = [0; 32];
        for l in 0..32 {
            d[l] = a[l].wrapping_add(b[l]).wrapping_add(c[l]);
        }
        self.wvals(w, exec, &o[0], &d)
    }

    /// `VIADD d, a, b`.
    fn warp_viadd(&self, o: &[Opnd], w: &mut Warp, exec: u32) -> R<()> {
        let a = self.vals(w, exec, &o[1], false)?;
        let b = self.vals(w, exec, &o[2], false)?;
        let mut d: Lanes = [0; 32];
        for l in 0..32 {
            d[l] = a[l].wrapping_add(b[l]);
        }
        self.wvals(w, exec, &o[0], &d)
    }

    /// `LEA d, a, b, shift`: `(a << shift) + b`.
    fn warp_lea(&self, o: &[Opnd], w: &mut Warp, exec: u32) -> R<()> {
        let a = self.vals(w, exec, &o[1], false)?;
        let b = self.vals(w, exec, &o[2], false)?;
        let s = self.vals(w, exec, &o[3], false)?;
        let mut d: Lanes = [0; 32];
        for l in 0..32 {
            d[l] = a[l].checked_shl(s[l] & 63).unwrap_or(0).wrapping_add(b[l]);
        }
        self.wvals(w, exec, &o[0], &d)
    }
}
