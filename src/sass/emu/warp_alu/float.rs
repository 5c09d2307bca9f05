//! Whole-warp f32 arithmetic: `FADD`, `FMUL`, `FFMA` and `FMNMX`; the lane-by-lane semantics are
//! in `exec/alu_float.rs`.

use super::super::alu;
use super::super::decode::{FMods, Kind, Rnd};
use super::super::exec::{Lanes, Machine, Warp};
use super::super::operand::Opnd;
use super::R;

/// Round to nearest, no `.FTZ`, no `.SAT`: the IEEE operation, with the canonical NaN.
fn plain(m: FMods) -> bool {
    m.rnd == Rnd::Rn && !m.ftz && !m.sat
}

/// The bits of an f32 result, NaN canonical (as `alu` gives them).
#[inline]
fn canon(r: f32) -> u32 {
    if r.is_nan() {
        alu::NAN32
    } else {
        r.to_bits()
    }
}

impl Machine<'_> {
    /// f32 forms with a whole-warp path; `None` for the others.
    pub(super) fn warp_float(
        &self,
        kind: &Kind,
        o: &[Opnd],
        w: &mut Warp,
        exec: u32,
    ) -> Option<R<()>> {
        let r = match kind {
            Kind::Fadd(m) | Kind::Fmul(m) if o.len() == 3 => {
                let add = matches!(kind, Kind::Fadd(_));
                self.warp_fadd_fmul(o, w, exec, *m, add)
            }
            Kind::Ffma(m) if o.len() == 4 => self.warp_ffma(o, w, exec, *m),
            Kind::Fmnmx { ftz } if o.len() == 4 => self.warp_fmnmx(o, w, exec, *ftz),
            _ => return None,
        };
        Some(r)
    }

    /// `FADD d, a, b` (`add`) or `FMUL d, a, b`.
    fn warp_fadd_fmul(&self, o: &[Opnd], w: &mut Warp, exec: u32, m: FMods, add: bool) -> R<()> {
        let a = self.vals(w, exec, &o[1], true)?;
        let b = self.vals(w, exec, &o[2], true)?;
        let mut d: Lanes = [0; 32];
        let f = f32::from_bits;
        match (plain(m), add) {
            // Round to nearest without FTZ/SAT: the native operation (what `alu` computes),
            // in loops the compiler can vectorise.
            (true, true) => {
                for l in 0..32 {
                    d[l] = canon(f(a[l]) + f(b[l]));
                }
            }
            (true, false) => {
                for l in 0..32 {
                    d[l] = canon(f(a[l]) * f(b[l]));
                }
            }
            (false, true) => {
                for l in 0..32 {
                    d[l] = alu::fadd(a[l], b[l], m);
                }
            }
            (false, false) => {
                for l in 0..32 {
                    d[l] = alu::fmul(a[l], b[l], m);
                }
            }
        }
        self.wvals(w, exec, &o[0], &d)
    }

    /// `FFMA d, a, b, c`.
    fn warp_ffma(&self, o: &[Opnd], w: &mut Warp, exec: u32, m: FMods) -> R<()> {
        let a = self.vals(w, exec, &o[1], true)?;
        let b = self.vals(w, exec, &o[2], true)?;
        let c = self.vals(w, exec, &o[3], true)?;
        let mut d: Lanes = [0; 32];
        let f = f32::from_bits;
        if plain(m) {
            for l in 0..32 {
                d[l] = canon(f(a[l]).mul_add(f(b[l]), f(c[l])));
            }
        } else {
            for l in 0..32 {
                d[l] = alu::ffma(a[l], b[l], c[l], m);
            }
        }
        self.wvals(w, exec, &o[0], &d)
    }

    /// `FMNMX d, a, b, p`: the minimum where `p`, the maximum otherwise.
    fn warp_fmnmx(&self, o: &[Opnd], w: &mut Warp, exec: u32, ftz: bool) -> R<()> {
        let a = self.vals(w, exec, &o[1], true)?;
        let b = self.vals(w, exec, &o[2], true)?;
        let p = self.pmask(w, exec, &o[3])?;
        let mut d: Lanes = [0; 32];
        for l in 0..32 {
            d[l] = alu::fmnmx(a[l], b[l], p >> l & 1 == 1, ftz);
        }
        self.wvals(w, exec, &o[0], &d)
    }
}
