//! Whole-warp execution of the common datapath instructions (RegDem §3: the oracle must be fast
//! enough to run every bench kernel in the test suite). Each operand is read for all executing
//! lanes at once (one match on the operand per warp-instruction, not per lane), the operation is
//! a tight loop over all 32 lanes (the `alu` functions are pure, so computing inactive lanes is
//! harmless and lets the loops vectorise), and the destination is written back once for the
//! executing lanes. Forms this module does not take (carry chains, predicate outputs, 64-bit
//! immediates, uniform instructions …) return `None` and go through the lane-by-lane path in
//! `exec` (`exec/alu_*.rs`), which defines the semantics; both paths share the `alu` functions.

use super::alu;
use super::decode::Kind;
use super::exec::{Lanes, Machine, Warp};
use super::operand::Opnd;

type R<T> = Result<T, String>;

/// The operand without its negation (IADD3 adds `-x` as `2^32 - x`).
fn strip_neg(o: &Opnd) -> Opnd {
    let mut o = o.clone();
    match &mut o {
        Opnd::R { neg, .. } | Opnd::Ur { neg, .. } | Opnd::C { neg, .. } => *neg = false,
        _ => {}
    }
    o
}

fn is_p(o: &Opnd) -> bool {
    matches!(o, Opnd::P { .. } | Opnd::Up { .. })
}

impl Machine<'_> {
    /// Executes `kind` for the lanes of `exec` when it has a whole-warp form; `None` otherwise.
    pub(crate) fn alu_warp(
        &self,
        kind: &Kind,
        o: &[Opnd],
        w: &mut Warp,
        exec: u32,
    ) -> Option<R<()>> {
        let r = match kind {
            Kind::Mov if o.len() == 2 || o.len() == 3 => (|| {
                let a = self.vals(w, exec, &o[1], false)?;
                self.wvals(w, exec, &o[0], &a)
            })(),
            Kind::Imad {
                hi: false,
                wide: false,
                x: false,
                ..
            } if o.len() == 4 && !is_p(&o[1]) => (|| {
                let a = self.vals(w, exec, &o[1], false)?;
                let b = self.vals(w, exec, &o[2], false)?;
                let c = self.vals(w, exec, &o[3], false)?;
                let mut d: Lanes = [0; 32];
                for l in 0..32 {
                    d[l] = a[l].wrapping_mul(b[l]).wrapping_add(c[l]);
                }
                self.wvals(w, exec, &o[0], &d)
            })(),
            Kind::Imad {
                hi: false,
                wide: true,
                x: false,
                signed,
            } if o.len() == 4 && !is_p(&o[1]) && matches!(o[0], Opnd::R { .. }) => (|| {
                let a = self.vals(w, exec, &o[1], false)?;
                let b = self.vals(w, exec, &o[2], false)?;
                let (clo, chi) = self.vals64(w, exec, &o[3])?;
                let (mut lo, mut hi): (Lanes, Lanes) = ([0; 32], [0; 32]);
                for l in 0..32 {
                    let p = if *signed {
                        (i64::from(a[l] as i32) * i64::from(b[l] as i32)) as u64
                    } else {
                        u64::from(a[l]) * u64::from(b[l])
                    };
                    let s = p.wrapping_add(u64::from(clo[l]) | u64::from(chi[l]) << 32);
                    lo[l] = s as u32;
                    hi[l] = (s >> 32) as u32;
                }
                self.wpair(w, exec, &o[0], &lo, &hi)
            })(),
            Kind::Iadd3 { x } if o.len() != 4 || is_p(&o[1]) => (|| {
                // IADD3 d, [P0, [P1,]] a, b, c [, Pin0 [, Pin1]]: as in exec/alu_int.rs.
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
                for x in &o[k..k + 3] {
                    let neg = matches!(
                        x,
                        Opnd::R { neg: true, .. }
                            | Opnd::Ur { neg: true, .. }
                            | Opnd::C { neg: true, .. }
                    );
                    if neg {
                        // -v as 2^32 - v (a subtraction's carry means "no borrow").
                        let plain = strip_neg(x);
                        let v = self.vals(w, exec, &plain, false)?;
                        for l in 0..32 {
                            sum[l] += (1u64 << 32) - u64::from(v[l]);
                        }
                    } else {
                        let v = self.vals(w, exec, x, false)?;
                        for l in 0..32 {
                            sum[l] += u64::from(v[l]);
                        }
                    }
                }
                if *x {
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
            })(),
            Kind::Iadd3 { x: false } if o.len() == 4 && !is_p(&o[1]) => (|| {
                let a = self.vals(w, exec, &o[1], false)?;
                let b = self.vals(w, exec, &o[2], false)?;
                let c = self.vals(w, exec, &o[3], false)?;
                let mut d: Lanes = [0; 32];
                for l in 0..32 {
                    d[l] = a[l].wrapping_add(b[l]).wrapping_add(c[l]);
                }
                self.wvals(w, exec, &o[0], &d)
            })(),
            Kind::Viadd if o.len() == 3 => (|| {
                let a = self.vals(w, exec, &o[1], false)?;
                let b = self.vals(w, exec, &o[2], false)?;
                let mut d: Lanes = [0; 32];
                for l in 0..32 {
                    d[l] = a[l].wrapping_add(b[l]);
                }
                self.wvals(w, exec, &o[0], &d)
            })(),
            Kind::Lop3 if o.len() == 6 && !is_p(&o[0]) => (|| {
                let a = self.vals(w, exec, &o[1], false)?;
                let b = self.vals(w, exec, &o[2], false)?;
                let c = self.vals(w, exec, &o[3], false)?;
                let Opnd::Imm(lut) = o[4] else {
                    return Err("LOP3 table".into());
                };
                let mut d: Lanes = [0; 32];
                for l in 0..32 {
                    d[l] = alu::lop3(a[l], b[l], c[l], lut as u8);
                }
                self.wvals(w, exec, &o[0], &d)
            })(),
            Kind::Shf {
                left,
                w64,
                signed,
                hi,
                wrap,
            } if o.len() == 4 => (|| {
                let a = self.vals(w, exec, &o[1], false)?;
                let s = self.vals(w, exec, &o[2], false)?;
                let c = self.vals(w, exec, &o[3], false)?;
                let m = alu::ShfMode {
                    left: *left,
                    w64: *w64,
                    signed: *signed,
                    hi: *hi,
                    wrap: *wrap,
                };
                let mut d: Lanes = [0; 32];
                for l in 0..32 {
                    d[l] = alu::shf(a[l], s[l], c[l], m);
                }
                self.wvals(w, exec, &o[0], &d)
            })(),
            Kind::Sel if o.len() == 4 => (|| {
                let a = self.vals(w, exec, &o[1], false)?;
                let b = self.vals(w, exec, &o[2], false)?;
                let p = self.pmask(w, exec, &o[3])?;
                let mut d: Lanes = [0; 32];
                for l in 0..32 {
                    d[l] = if p >> l & 1 == 1 { a[l] } else { b[l] };
                }
                self.wvals(w, exec, &o[0], &d)
            })(),
            Kind::Isetp {
                cmp,
                unsigned,
                bop,
                ex: false,
            } if o.len() == 5 => (|| {
                let a = self.vals(w, exec, &o[2], false)?;
                let b = self.vals(w, exec, &o[3], false)?;
                let c = self.pmask(w, exec, &o[4])?;
                let (mut p0, mut p1) = (0u32, 0u32);
                for l in 0..32 {
                    let r = alu::icmp(*cmp, a[l], b[l], *unsigned, None);
                    let cl = c >> l & 1 == 1;
                    p0 |= u32::from(alu::combine(r, *bop, cl)) << l;
                    p1 |= u32::from(alu::combine(!r, *bop, cl)) << l;
                }
                self.wpmask(w, exec, &o[0], p0)?;
                self.wpmask(w, exec, &o[1], p1)
            })(),
            Kind::Fsetp {
                cmp,
                bop,
                ftz,
                f64: false,
            } if o.len() == 5 => (|| {
                let a = self.vals(w, exec, &o[2], true)?;
                let b = self.vals(w, exec, &o[3], true)?;
                let c = self.pmask(w, exec, &o[4])?;
                let (mut p0, mut p1) = (0u32, 0u32);
                for l in 0..32 {
                    let r = alu::fcmp(
                        *cmp,
                        alu::f32cmp_val(a[l], *ftz),
                        alu::f32cmp_val(b[l], *ftz),
                    );
                    let cl = c >> l & 1 == 1;
                    p0 |= u32::from(alu::combine(r, *bop, cl)) << l;
                    p1 |= u32::from(alu::combine(!r, *bop, cl)) << l;
                }
                self.wpmask(w, exec, &o[0], p0)?;
                self.wpmask(w, exec, &o[1], p1)
            })(),
            Kind::Fadd(m) | Kind::Fmul(m) if o.len() == 3 => (|| {
                let a = self.vals(w, exec, &o[1], true)?;
                let b = self.vals(w, exec, &o[2], true)?;
                let add = matches!(kind, Kind::Fadd(_));
                let mut d: Lanes = [0; 32];
                for l in 0..32 {
                    d[l] = if add {
                        alu::fadd(a[l], b[l], *m)
                    } else {
                        alu::fmul(a[l], b[l], *m)
                    };
                }
                self.wvals(w, exec, &o[0], &d)
            })(),
            Kind::Ffma(m) if o.len() == 4 => (|| {
                let a = self.vals(w, exec, &o[1], true)?;
                let b = self.vals(w, exec, &o[2], true)?;
                let c = self.vals(w, exec, &o[3], true)?;
                let mut d: Lanes = [0; 32];
                for l in 0..32 {
                    d[l] = alu::ffma(a[l], b[l], c[l], *m);
                }
                self.wvals(w, exec, &o[0], &d)
            })(),
            Kind::Fmnmx { ftz } if o.len() == 4 => (|| {
                let a = self.vals(w, exec, &o[1], true)?;
                let b = self.vals(w, exec, &o[2], true)?;
                let p = self.pmask(w, exec, &o[3])?;
                let mut d: Lanes = [0; 32];
                for l in 0..32 {
                    d[l] = alu::fmnmx(a[l], b[l], p >> l & 1 == 1, *ftz);
                }
                self.wvals(w, exec, &o[0], &d)
            })(),
            Kind::Prmt if o.len() == 4 => (|| {
                let a = self.vals(w, exec, &o[1], false)?;
                let s = self.vals(w, exec, &o[2], false)?;
                let b = self.vals(w, exec, &o[3], false)?;
                let mut d: Lanes = [0; 32];
                for l in 0..32 {
                    d[l] = alu::prmt(a[l], s[l], b[l]);
                }
                self.wvals(w, exec, &o[0], &d)
            })(),
            Kind::Lea {
                hi: false,
                x: false,
                sx32: false,
            } if o.len() == 4 => (|| {
                let a = self.vals(w, exec, &o[1], false)?;
                let b = self.vals(w, exec, &o[2], false)?;
                let s = self.vals(w, exec, &o[3], false)?;
                let mut d: Lanes = [0; 32];
                for l in 0..32 {
                    d[l] = a[l].checked_shl(s[l] & 63).unwrap_or(0).wrapping_add(b[l]);
                }
                self.wvals(w, exec, &o[0], &d)
            })(),
            Kind::Imad {
                hi: false,
                wide,
                signed,
                x,
            } if matches!(o[0], Opnd::R { .. }) => (|| {
                // IMAD[.WIDE][.X] d, [Pout,] a, b, c [, Pin]: as in exec/alu_int.rs.
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
                if *wide {
                    let (clo, chi) = self.vals64(w, exec, &o[k + 2])?;
                    for l in 0..32 {
                        let p = if *signed {
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
                        let s = u64::from(a[l].wrapping_mul(b[l]))
                            + u64::from(c[l])
                            + u64::from(cin >> l & 1);
                        lo[l] = s as u32;
                        carry |= u32::from(s >> 32 != 0) << l;
                    }
                    self.wvals(w, exec, &o[0], &lo)?;
                }
                if let Some(p) = pout {
                    self.wpmask(w, exec, &o[p], carry)?;
                }
                Ok(())
            })(),
            Kind::Lop3 if o.len() == 7 && is_p(&o[0]) => (|| {
                let a = self.vals(w, exec, &o[2], false)?;
                let b = self.vals(w, exec, &o[3], false)?;
                let c = self.vals(w, exec, &o[4], false)?;
                let Opnd::Imm(lut) = o[5] else {
                    return Err("LOP3 table".into());
                };
                let pin = self.pmask(w, exec, &o[6])?;
                let mut d: Lanes = [0; 32];
                let mut m = 0u32;
                for l in 0..32 {
                    d[l] = alu::lop3(a[l], b[l], c[l], lut as u8);
                    m |= u32::from(d[l] != 0) << l;
                }
                self.wvals(w, exec, &o[1], &d)?;
                self.wpmask(w, exec, &o[0], m | pin)
            })(),
            Kind::Isetp {
                cmp,
                unsigned,
                bop,
                ex: true,
            } if o.len() == 6 => (|| {
                let a = self.vals(w, exec, &o[2], false)?;
                let b = self.vals(w, exec, &o[3], false)?;
                let c = self.pmask(w, exec, &o[4])?;
                let pin = self.pmask(w, exec, &o[5])?;
                let (mut p0, mut p1) = (0u32, 0u32);
                for l in 0..32 {
                    let r = alu::icmp(*cmp, a[l], b[l], *unsigned, Some(pin >> l & 1 == 1));
                    let cl = c >> l & 1 == 1;
                    p0 |= u32::from(alu::combine(r, *bop, cl)) << l;
                    p1 |= u32::from(alu::combine(!r, *bop, cl)) << l;
                }
                self.wpmask(w, exec, &o[0], p0)?;
                self.wpmask(w, exec, &o[1], p1)
            })(),
            _ => return None,
        };
        Some(r)
    }
}
