//! Whole-warp logic, shifts and byte permutes: `LOP3` (with and without a predicate output),
//! `SHF` and `PRMT`; the lane-by-lane semantics are in `exec/alu_int.rs`.

use super::super::alu;
use super::super::decode::Kind;
use super::super::exec::{Lanes, Machine, Warp};
use super::super::operand::Opnd;
use super::{is_p, R};

impl Machine<'_> {
    /// Logic, shift and permute forms with a whole-warp path; `None` for the others.
    pub(super) fn warp_logic(
        &self,
        kind: &Kind,
        o: &[Opnd],
        w: &mut Warp,
        exec: u32,
    ) -> Option<R<()>> {
        let r = match kind {
            Kind::Lop3 if o.len() == 6 && !is_p(&o[0]) => self.warp_lop3(o, w, exec),
            Kind::Shf {
                left,
                w64,
                signed,
                hi,
                wrap,
            } if o.len() == 4 => {
                let m = alu::ShfMode {
                    left: *left,
                    w64: *w64,
                    signed: *signed,
                    hi: *hi,
                    wrap: *wrap,
                };
                self.warp_shf(o, w, exec, m)
            }
            Kind::Prmt if o.len() == 4 => self.warp_prmt(o, w, exec),
            Kind::Lop3 if o.len() == 7 && is_p(&o[0]) => self.warp_lop3_p(o, w, exec),
            _ => return None,
        };
        Some(r)
    }

    /// `LOP3 d, a, b, c, lut, !PT`.
    fn warp_lop3(&self, o: &[Opnd], w: &mut Warp, exec: u32) -> R<()> {
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
    }

    /// `LOP3 P, d, a, b, c, lut, Pin`: the predicate is `d != 0` or `Pin`.
    fn warp_lop3_p(&self, o: &[Opnd], w: &mut Warp, exec: u32) -> R<()> {
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
    }

    /// `SHF d, a, shift, c` in mode `m`.
    fn warp_shf(&self, o: &[Opnd], w: &mut Warp, exec: u32, m: alu::ShfMode) -> R<()> {
        let a = self.vals(w, exec, &o[1], false)?;
        let s = self.vals(w, exec, &o[2], false)?;
        let c = self.vals(w, exec, &o[3], false)?;
        let mut d: Lanes = [0; 32];
        for l in 0..32 {
            d[l] = alu::shf(a[l], s[l], c[l], m);
        }
        self.wvals(w, exec, &o[0], &d)
    }

    /// `PRMT d, a, selector, b`.
    fn warp_prmt(&self, o: &[Opnd], w: &mut Warp, exec: u32) -> R<()> {
        let a = self.vals(w, exec, &o[1], false)?;
        let s = self.vals(w, exec, &o[2], false)?;
        let b = self.vals(w, exec, &o[3], false)?;
        let mut d: Lanes = [0; 32];
        for l in 0..32 {
            d[l] = alu::prmt(a[l], s[l], b[l]);
        }
        self.wvals(w, exec, &o[0], &d)
    }
}
