//! Whole-warp execution of the common datapath instructions (RegDem §3: the oracle must be fast
//! enough to run every bench kernel in the test suite). Each operand is read for all executing
//! lanes at once (one match on the operand per warp-instruction, not per lane), the operation is
//! a tight loop over all 32 lanes (the `alu` functions are pure, so computing inactive lanes is
//! harmless and lets the loops vectorise), and the destination is written back once for the
//! executing lanes. Forms this module does not take (carry chains, predicate outputs, 64-bit
//! immediates, uniform instructions …) return `None` and go through the lane-by-lane path in
//! `exec` (`exec/alu_*.rs`), which defines the semantics; both paths share the `alu` functions.
//!
//! This file dispatches by instruction class; the forms live in `int` (`IMAD`, `IADD3`, `VIADD`,
//! `LEA`), `logic` (`LOP3`, `SHF`, `PRMT`), `compare` (`SEL`, `ISETP`, `FSETP`) and `float`
//! (`FADD`, `FMUL`, `FFMA`, `FMNMX`); `MOV` is here.

mod compare;
mod float;
mod int;
mod logic;

use super::decode::Kind;
use super::exec::{Machine, Warp};
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
        match kind {
            Kind::Mov if o.len() == 2 || o.len() == 3 => Some(self.warp_mov(o, w, exec)),
            Kind::Imad { .. } | Kind::Iadd3 { .. } | Kind::Viadd | Kind::Lea { .. } => {
                self.warp_int(kind, o, w, exec)
            }
            Kind::Lop3 | Kind::Shf { .. } | Kind::Prmt => self.warp_logic(kind, o, w, exec),
            Kind::Sel | Kind::Isetp { .. } | Kind::Fsetp { .. } => {
                self.warp_compare(kind, o, w, exec)
            }
            Kind::Fadd(_) | Kind::Fmul(_) | Kind::Ffma(_) | Kind::Fmnmx { .. } => {
                self.warp_float(kind, o, w, exec)
            }
            _ => None,
        }
    }

    /// `MOV d, a [, mask]`.
    fn warp_mov(&self, o: &[Opnd], w: &mut Warp, exec: u32) -> R<()> {
        let a = self.vals(w, exec, &o[1], false)?;
        self.wvals(w, exec, &o[0], &a)
    }
}
