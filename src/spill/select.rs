//! Choosing what to demote (RegDem §3.1 "candidate selection"; Sampaio et al. §3.2 cost model).
//!
//! A register's *relief* is how much it is live where the pressure exceeds the target: the sum of
//! its 32-bit units over every program point whose pressure is above the target. Its *cost* is how
//! often it is read or written, each access weighted by `10^loop depth` (capped at depth 3): every
//! access becomes a shared-memory load or store (or a rematerialisation). The pass demotes the
//! register with the best relief per cost, recomputes liveness, and repeats.

use crate::machine::cfg::Cfg;
use crate::machine::liveness::Liveness;
use crate::machine::loops::LoopInfo;
use crate::machine::pressure::{reg_class, RegClass};
use crate::ptx::roles::for_each_reg_role;
use crate::ptx::{Body, Reg, Type};

/// Registers the greedy general-register loop can demote: scalar general registers of 16, 32 or
/// 64 bits. Predicates do not count towards the general-register pressure and are packed apart,
/// before this loop (`packed-predicate` in [`super`]); vector registers are left alone.
pub fn eligible(body: &Body, r: Reg) -> bool {
    let ty = body.reg(r).ty;
    ty.vec.is_none() && ty.ty != Type::Pred && matches!(ty.bits(), 16 | 32 | 64)
}

/// Registers that must stay in registers whatever the pressure: those named by an instruction
/// whose results are written asynchronously (`wgmma.mma_async` accumulators and fragments,
/// `tcgen05.ld`, and every instruction the operand tables do not understand). A reload before
/// such an instruction or a store after it would read or write the register while the hardware
/// still owns it (PTX ISA, wgmma: the registers may not be accessed until `wgmma.wait_group`).
/// Indexed by register.
pub fn async_pinned(body: &Body) -> Vec<bool> {
    let mut pinned = vec![false; body.regs.len()];
    for i in body.inst_order() {
        let inst = body.inst(i);
        if crate::ptx::roles::effects(inst).async_defs {
            for_each_reg_role(inst, |r, _| {
                if let Some(p) = pinned.get_mut(r.index()) {
                    *p = true;
                }
            });
        }
    }
    pinned
}

fn units(body: &Body, r: Reg) -> u32 {
    match reg_class(body.reg(r).ty) {
        RegClass::General(u) => u,
        RegClass::Pred => 0,
    }
}

/// The eligible register with the most relief per cost at pressure `target`, or `None` when no
/// eligible register is live where the pressure exceeds it.
pub fn best_candidate(
    body: &Body,
    cfg: &Cfg,
    loops: &LoopInfo,
    lv: &Liveness,
    target: u32,
    eligible: impl Fn(&Body, Reg) -> bool,
) -> Option<Reg> {
    let n = body.regs.len();
    let mut relief = vec![0u64; n];
    let mut cost = vec![0f64; n];
    for b in cfg.blocks() {
        if !cfg.is_reachable(b) {
            continue;
        }
        let w = 10f64.powi(loops.block_depth(b).min(3) as i32);
        for &i in cfg.insts(b) {
            for_each_reg_role(body.inst(i), |r, _| {
                if r.index() < n {
                    cost[r.index()] += w;
                }
            });
        }
        lv.for_each_point(body, cfg, b, |_, before, _| {
            let p: u32 = before.iter().map(|r| units(body, Reg::new(r))).sum();
            if p > target {
                for r in before.iter() {
                    relief[r] += u64::from(units(body, Reg::new(r)));
                }
            }
        });
        let out = lv.live_out(b);
        let p: u32 = out.iter().map(|r| units(body, Reg::new(r))).sum();
        if p > target {
            for r in out.iter() {
                relief[r] += u64::from(units(body, Reg::new(r)));
            }
        }
    }
    (0..n)
        .map(Reg::new)
        .filter(|&r| relief[r.index()] > 0 && eligible(body, r))
        .max_by(|&a, &b| {
            let sa = relief[a.index()] as f64 / (1.0 + cost[a.index()]);
            let sb = relief[b.index()] as f64 / (1.0 + cost[b.index()]);
            sa.total_cmp(&sb).then(b.index().cmp(&a.index()))
        })
}
