//! Control flow and convergence for the interpreter: branches (`BRA`, `BRA.DIV`, `BRX`), calls
//! and returns, `EXIT`, convergence barriers (`BSSY`/`BSYNC`/`BREAK`/`BMOV`), `WARPSYNC` and the
//! reading of CTA barrier results (`B2R`; the barriers themselves are `cta_barrier.rs`) — per-lane
//! PCs and waiting states (RegDem §3: the oracle for binary rewrites).

use super::*;

impl Machine<'_> {
    /// Branches, calls, returns and `EXIT`: the next PC (or exit) of each lane at this instruction.
    pub(super) fn exec_branch(
        &self,
        i: &DInst,
        w: &mut Warp,
        act: u32,
        exec: u32,
        pc: u32,
    ) -> Result<(), Stop> {
        match &i.kind {
            Kind::Bra => {
                // `BRA P0, target`: taken where the guard and the predicate operand hold.
                let t = branch_target(i.ops.last())?;
                let cond = i
                    .ops
                    .iter()
                    .find(|o| matches!(o, Opnd::P { .. } | Opnd::Up { .. }));
                for l in lanes(act) {
                    let mut take = exec >> l & 1 == 1;
                    if let (true, Some(c)) = (take, cond) {
                        take = self.pred(w, l, c).map_err(|m| Stop::Msg(m, Some(l)))?;
                    }
                    w.pc[l] = if take { t } else { pc + 1 };
                }
            }
            Kind::BraDiv => {
                // Taken when the executing lanes are not all of the warp's live lanes (the
                // warp is diverged): ptxas's slow path then handles partial warps.
                let t = branch_target(i.ops.last())?;
                let div = exec != live_lanes(w);
                for l in lanes(act) {
                    w.pc[l] = if exec >> l & 1 == 1 && div { t } else { pc + 1 };
                }
            }
            Kind::BraConv => {
                // The direct form is only right when exactly the mask's lanes run it: both
                // paths compute the same values then (the software path starts with `WARPSYNC
                // mask`), so taking it only then never changes a result.
                let t = branch_target(i.ops.last())?;
                let mask = match (i.ops.first(), lanes(exec).next()) {
                    (Some(m @ Opnd::Ur { .. }), Some(l)) => {
                        self.rd(w, l, m).map_err(|e| Stop::Msg(e, Some(l)))?
                    }
                    (Some(Opnd::Ur { .. }), None) => 0,
                    _ => return Err(Stop::Msg("BRA.CONV without a uniform mask".into(), None)),
                };
                let direct = exec != 0 && exec == mask;
                for l in lanes(act) {
                    w.pc[l] = if exec >> l & 1 == 1 && direct {
                        t
                    } else {
                        pc + 1
                    };
                }
            }
            Kind::Exit => {
                for l in lanes(act) {
                    if exec >> l & 1 == 1 {
                        w.st[l] = St::Exited;
                    } else {
                        w.pc[l] += 1;
                    }
                }
            }
            Kind::Call | Kind::Brx => {
                // CALL `(f)`: direct. BRX Ra imm / CALL.REL Ra: the target is the 64-bit pair
                // Ra + imm relative to the next instruction.
                let direct = match i.ops.first() {
                    Some(Opnd::Target(t)) => Some((*t / 16) as u32),
                    _ => None,
                };
                let off = match i.ops.get(1) {
                    Some(Opnd::Imm(v)) => *v,
                    _ => 0,
                };
                for l in lanes(act) {
                    w.pc[l] = if exec >> l & 1 == 1 {
                        match (direct, i.ops.first()) {
                            (Some(t), _) => t,
                            (None, Some(r @ Opnd::R { .. })) => {
                                let v = self
                                    .rd64(w, l, r, false)
                                    .map_err(|m| Stop::Msg(m, Some(l)))?;
                                let t = (u64::from(pc) * 16 + 16)
                                    .wrapping_add(v)
                                    .wrapping_add(off as u64);
                                if t % 16 != 0 || t / 16 >= self.k.code.len() as u64 {
                                    return Err(Stop::Msg(
                                        format!(
                                            "indirect branch or call to {t:#x}, outside the \
                                             kernel's code section (calls into other sections \
                                             are not supported)"
                                        ),
                                        Some(l),
                                    ));
                                }
                                (t / 16) as u32
                            }
                            _ => return Err(Stop::Msg("branch target".into(), None)),
                        }
                    } else {
                        pc + 1
                    };
                }
            }
            Kind::Ret => {
                let Some(Opnd::R { n, .. }) = i.ops.first() else {
                    return Err(Stop::Msg("RET without a register".into(), None));
                };
                for l in lanes(act) {
                    if exec >> l & 1 == 1 {
                        let a = reg(w, l, *n);
                        w.pc[l] = a / 16;
                    } else {
                        w.pc[l] += 1;
                    }
                }
            }
            other => {
                return Err(Stop::Msg(
                    format!("{other:?} is not a control instruction"),
                    None,
                ))
            }
        }
        Ok(())
    }

    /// Convergence and CTA barriers: `BSSY`/`BSYNC`/`BREAK`/`BMOV`, `WARPSYNC`, `BAR`, `B2R`.
    pub(super) fn exec_convergence(
        &mut self,
        i: &DInst,
        w: &mut Warp,
        act: u32,
        exec: u32,
    ) -> Result<(), Stop> {
        match &i.kind {
            Kind::Bssy => {
                let Some(Opnd::B(b)) = i.ops.first() else {
                    return Err(Stop::Msg("BSSY operand".into(), None));
                };
                w.bars[*b as usize] = exec;
                advance(w, act);
            }
            Kind::Bsync => {
                let Some(Opnd::B(b)) = i.ops.first() else {
                    return Err(Stop::Msg("BSYNC operand".into(), None));
                };
                for l in lanes(act) {
                    if exec >> l & 1 == 1 {
                        w.st[l] = St::Bsync(*b);
                    } else {
                        w.pc[l] += 1;
                    }
                }
                Self::release_warp(w);
            }
            Kind::Break => {
                let Some(Opnd::B(b)) = i.ops.first() else {
                    return Err(Stop::Msg("BREAK operand".into(), None));
                };
                w.bars[*b as usize] &= !exec;
                advance(w, act);
            }
            Kind::Bmov { clear } => {
                match (i.ops.first(), i.ops.get(1)) {
                    (Some(Opnd::R { n, .. }), Some(Opnd::B(b))) => {
                        for l in lanes(exec) {
                            set(w, l, *n, w.bars[*b as usize]);
                        }
                        if *clear && exec != 0 {
                            w.bars[*b as usize] = 0;
                        }
                    }
                    (Some(Opnd::B(b)), Some(src)) => {
                        if let Some(l) = lanes(exec).next() {
                            w.bars[*b as usize] =
                                self.rd(w, l, src).map_err(|m| Stop::Msg(m, None))?;
                        }
                    }
                    _ => return Err(Stop::Msg("BMOV operands".into(), None)),
                }
                advance(w, act);
            }
            Kind::Warpsync => {
                let mask = match i.ops.first() {
                    None => u32::MAX,
                    Some(o) => match lanes(exec).next() {
                        Some(l) => self.rd(w, l, o).map_err(|m| Stop::Msg(m, None))?,
                        None => 0,
                    },
                };
                for l in lanes(act) {
                    if exec >> l & 1 == 1 {
                        w.st[l] = St::Warpsync(mask);
                    } else {
                        w.pc[l] += 1;
                    }
                }
                Self::release_warp(w);
            }
            Kind::Bar { red } => self.exec_bar(i, w, act, exec, *red)?,
            Kind::B2r => {
                for l in lanes(exec) {
                    let v = w.b2r[l];
                    if let Some(Opnd::R { n, .. }) = i.ops.first() {
                        set(w, l, *n, v);
                    }
                    if let Some(Opnd::P { n, .. }) = i.ops.get(1) {
                        set_p(w, l, *n, v != 0);
                    }
                }
                advance(w, act);
            }
            other => {
                return Err(Stop::Msg(
                    format!("{other:?} is not a control instruction"),
                    None,
                ))
            }
        }
        Ok(())
    }
}
