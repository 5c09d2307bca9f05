//! Whole-warp selects and comparisons: `SEL`, `ISETP` (with and without `.EX`) and the f32
//! `FSETP`; the lane-by-lane semantics are in `exec/alu_move.rs`.

use super::super::alu;
use super::super::decode::{BoolOp, Cmp, Kind};
use super::super::exec::{Lanes, Machine, Warp};
use super::super::operand::Opnd;
use super::R;

impl Machine<'_> {
    /// Select and compare forms with a whole-warp path; `None` for the others.
    pub(super) fn warp_compare(
        &self,
        kind: &Kind,
        o: &[Opnd],
        w: &mut Warp,
        exec: u32,
    ) -> Option<R<()>> {
        let r = match kind {
            Kind::Sel if o.len() == 4 => self.warp_sel(o, w, exec),
            Kind::Isetp {
                cmp,
                unsigned,
                bop,
                ex: false,
            } if o.len() == 5 => self.warp_isetp(o, w, exec, (*cmp, *unsigned, *bop)),
            Kind::Fsetp {
                cmp,
                bop,
                ftz,
                f64: false,
            } if o.len() == 5 => self.warp_fsetp(o, w, exec, *cmp, *bop, *ftz),
            Kind::Isetp {
                cmp,
                unsigned,
                bop,
                ex: true,
            } if o.len() == 6 => self.warp_isetp_ex(o, w, exec, (*cmp, *unsigned, *bop)),
            _ => return None,
        };
        Some(r)
    }

    /// `SEL d, a, b, p`.
    fn warp_sel(&self, o: &[Opnd], w: &mut Warp, exec: u32) -> R<()> {
        let a = self.vals(w, exec, &o[1], false)?;
        let b = self.vals(w, exec, &o[2], false)?;
        let p = self.pmask(w, exec, &o[3])?;
        let mut d: Lanes = [0; 32];
        for l in 0..32 {
            d[l] = if p >> l & 1 == 1 { a[l] } else { b[l] };
        }
        self.wvals(w, exec, &o[0], &d)
    }

    /// `ISETP P0, P1, a, b, c`: `P0 = (a cmp b) bop c`, `P1 = !(a cmp b) bop c`.
    fn warp_isetp(&self, o: &[Opnd], w: &mut Warp, exec: u32, k: (Cmp, bool, BoolOp)) -> R<()> {
        let (cmp, unsigned, bop) = k;
        let a = self.vals(w, exec, &o[2], false)?;
        let b = self.vals(w, exec, &o[3], false)?;
        let c = self.pmask(w, exec, &o[4])?;
        let (mut p0, mut p1) = (0u32, 0u32);
        for l in 0..32 {
            let r = alu::icmp(cmp, a[l], b[l], unsigned, None);
            let cl = c >> l & 1 == 1;
            p0 |= u32::from(alu::combine(r, bop, cl)) << l;
            p1 |= u32::from(alu::combine(!r, bop, cl)) << l;
        }
        self.wpmask(w, exec, &o[0], p0)?;
        self.wpmask(w, exec, &o[1], p1)
    }

    /// `ISETP.EX P0, P1, a, b, c, Pin`: the high half of a 64-bit comparison (`Pin` is the low
    /// half's result).
    fn warp_isetp_ex(&self, o: &[Opnd], w: &mut Warp, exec: u32, k: (Cmp, bool, BoolOp)) -> R<()> {
        let (cmp, unsigned, bop) = k;
        let a = self.vals(w, exec, &o[2], false)?;
        let b = self.vals(w, exec, &o[3], false)?;
        let c = self.pmask(w, exec, &o[4])?;
        let pin = self.pmask(w, exec, &o[5])?;
        let (mut p0, mut p1) = (0u32, 0u32);
        for l in 0..32 {
            let r = alu::icmp(cmp, a[l], b[l], unsigned, Some(pin >> l & 1 == 1));
            let cl = c >> l & 1 == 1;
            p0 |= u32::from(alu::combine(r, bop, cl)) << l;
            p1 |= u32::from(alu::combine(!r, bop, cl)) << l;
        }
        self.wpmask(w, exec, &o[0], p0)?;
        self.wpmask(w, exec, &o[1], p1)
    }

    /// `FSETP P0, P1, a, b, c` on f32.
    fn warp_fsetp(
        &self,
        o: &[Opnd],
        w: &mut Warp,
        exec: u32,
        cmp: Cmp,
        bop: BoolOp,
        ftz: bool,
    ) -> R<()> {
        let a = self.vals(w, exec, &o[2], true)?;
        let b = self.vals(w, exec, &o[3], true)?;
        let c = self.pmask(w, exec, &o[4])?;
        let (mut p0, mut p1) = (0u32, 0u32);
        for l in 0..32 {
            let r = alu::fcmp(cmp, alu::f32cmp_val(a[l], ftz), alu::f32cmp_val(b[l], ftz));
            let cl = c >> l & 1 == 1;
            p0 |= u32::from(alu::combine(r, bop, cl)) << l;
            p1 |= u32::from(alu::combine(!r, bop, cl)) << l;
        }
        self.wpmask(w, exec, &o[0], p0)?;
        self.wpmask(w, exec, &o[1], p1)
    }
}
