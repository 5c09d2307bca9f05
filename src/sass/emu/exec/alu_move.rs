//! Moves, special registers, constants, selects, predicate transfers and comparisons of the
//! lane-by-lane datapath (RegDem §3: the oracle for binary rewrites).

use super::*;

impl Machine<'_> {
    /// Moves: registers, special registers (`S2R`, `CS2R`), constant banks (`LDC`), `SEL`, and
    /// the predicate file to and from a register (`P2R`, `R2P`).
    pub(super) fn alu_move(&self, i: &DInst, w: &mut Warp, l: usize) -> R<()> {
        let o = &i.ops;
        let op = |k: usize| operand(o, k);
        match &i.kind {
            Kind::Mov => {
                let v = self.rd(w, l, op(1)?)?;
                self.wr(w, l, op(0)?, v)?;
            }
            Kind::S2r { wide } => {
                let s = op(1)?;
                if *wide {
                    let v = match s {
                        Opnd::Srz => 0,
                        Opnd::Sr(Special::Clock(_)) => w.insts,
                        Opnd::Sr(Special::GlobalTimer(_)) => w.insts * 32,
                        other => return Err(format!("CS2R source {other:?}")),
                    };
                    self.wr64(w, l, op(0)?, v)?;
                } else {
                    let v = self.raw(w, l, s)?;
                    self.wr(w, l, op(0)?, v)?;
                }
            }
            Kind::Ldc { w: wd } => {
                let Opnd::C { bank, off, idx, .. } = op(1)? else {
                    return Err("LDC source".into());
                };
                let base = match idx {
                    None => 0,
                    Some((false, r)) => i64::from(reg(w, l, *r) as i32),
                    Some((true, r)) => i64::from(ureg(w, *r) as i32),
                };
                let a = off + base;
                let nb = wd.bytes as usize;
                if a % nb as i64 != 0 {
                    return Err(format!("misaligned constant load at {a:#x}"));
                }
                let v = self.cload(*bank, a, nb.min(8))?;
                match nb {
                    8 => self.wr64(w, l, op(0)?, v)?,
                    4 => self.wr(w, l, op(0)?, v as u32)?,
                    _ => {
                        let v = ext(v, nb as u32, wd.signed);
                        self.wr(w, l, op(0)?, v)?
                    }
                }
            }
            Kind::Sel => {
                let p = self.pred(w, l, op(3)?)?;
                let v = if p {
                    self.rd(w, l, op(1)?)?
                } else {
                    self.rd(w, l, op(2)?)?
                };
                self.wr(w, l, op(0)?, v)?;
            }
            Kind::P2r => {
                let a = self.rd(w, l, op(2)?)?;
                let mask = self.rd(w, l, op(3)?)?;
                let pr = u32::from(w.preds[l] & 0x7f);
                self.wr(w, l, op(0)?, (a & !mask) | (pr & mask))?;
            }
            Kind::R2p => {
                let a = self.rd(w, l, op(1)?)?;
                let mask = self.rd(w, l, op(2)?)?;
                for n in 0..7u8 {
                    if mask >> n & 1 == 1 {
                        set_p(w, l, n, a >> n & 1 == 1);
                    }
                }
            }
            other => return Err(format!("{other:?} is not an ALU instruction")),
        }
        Ok(())
    }

    /// Comparisons and predicate logic: `ISETP`, `FSETP`/`DSETP`, `FSET`, `PLOP3`.
    pub(super) fn alu_compare(&self, i: &DInst, w: &mut Warp, l: usize) -> R<()> {
        let o = &i.ops;
        let op = |k: usize| operand(o, k);
        match &i.kind {
            Kind::Isetp {
                cmp,
                unsigned,
                bop,
                ex,
            } => {
                let a = self.rd(w, l, op(2)?)?;
                let b = self.rd(w, l, op(3)?)?;
                let c = self.pred(w, l, op(4)?)?;
                let pin = if *ex {
                    Some(self.pred(w, l, op(5)?)?)
                } else {
                    None
                };
                let r = alu::icmp(*cmp, a, b, *unsigned, pin);
                let p0 = alu::combine(r, *bop, c);
                let p1 = alu::combine(!r, *bop, c);
                self.wp(w, l, op(0)?, p0)?;
                self.wp(w, l, op(1)?, p1)?;
            }
            Kind::Fsetp { cmp, bop, ftz, f64 } => {
                let (x, y) = if *f64 {
                    (
                        f64::from_bits(self.rd64(w, l, op(2)?, true)?),
                        f64::from_bits(self.rd64(w, l, op(3)?, true)?),
                    )
                } else {
                    (
                        alu::f32cmp_val(self.rf(w, l, op(2)?)?, *ftz),
                        alu::f32cmp_val(self.rf(w, l, op(3)?)?, *ftz),
                    )
                };
                let c = self.pred(w, l, op(4)?)?;
                let r = alu::fcmp(*cmp, x, y);
                self.wp(w, l, op(0)?, alu::combine(r, *bop, c))?;
                self.wp(w, l, op(1)?, alu::combine(!r, *bop, c))?;
            }
            Kind::Fset { cmp, bop, bf, ftz } => {
                let x = alu::f32cmp_val(self.rf(w, l, op(1)?)?, *ftz);
                let y = alu::f32cmp_val(self.rf(w, l, op(2)?)?, *ftz);
                let c = self.pred(w, l, op(3)?)?;
                let r = alu::combine(alu::fcmp(*cmp, x, y), *bop, c);
                let v = match (r, bf) {
                    (true, true) => 1.0f32.to_bits(),
                    (true, false) => u32::MAX,
                    _ => 0,
                };
                self.wr(w, l, op(0)?, v)?;
            }
            Kind::Plop3 => {
                let a = self.pred(w, l, op(2)?)?;
                let b = self.pred(w, l, op(3)?)?;
                let c = self.pred(w, l, op(4)?)?;
                let f = |lut: u32| {
                    let idx = u32::from(a) << 2 | u32::from(b) << 1 | u32::from(c);
                    lut >> idx & 1 == 1
                };
                let l0 = self.rd(w, l, op(5)?)?;
                let l1 = self.rd(w, l, op(6)?)?;
                let (r0, r1) = (f(l0), f(l1));
                self.wp(w, l, op(0)?, r0)?;
                self.wp(w, l, op(1)?, r1)?;
            }
            other => return Err(format!("{other:?} is not an ALU instruction")),
        }
        Ok(())
    }
}
