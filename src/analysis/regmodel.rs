//! A model of the registers ptxas gives a kernel (issue 12: the spilling pass proposes from it,
//! `ptxas -v` decides). The PTX register pressure ([`crate::machine::pressure`]) counts every live
//! virtual register; ptxas keeps several kinds of value out of the per-thread register file:
//!
//! - constants (Sampaio et al. §2's constant class): immediates folded into the instructions that
//!   use them, or rematerialised next to them;
//! - kernel parameters and what is only copied or converted from them (`ld.param`, `mov`,
//!   `cvta.to.global`): operands in constant bank 0 (`c[0x0][…]`) until combined with a
//!   per-thread value;
//! - warp-uniform values (the affine divergence analysis' uniform class): on sm_75 and later
//!   ptxas's uniform datapath keeps them in the 63 uniform registers (`UR`), which are shared by
//!   the warp and are not part of the per-thread count, as long as they fit.
//!
//! The model is the peak pressure with those weighed 0, plus the uniform values' peak beyond the
//! uniform register file. `bench/pressure_model.rs` tabulates it against `ptxas -v`
//! (docs/benchmarks.md).

use crate::analysis::divergence::{self, Class};
use crate::machine::cfg::Cfg;
use crate::machine::liveness::Liveness;
use crate::machine::pressure::Pressure;
use crate::ptx::{roles, Function, Modifier, Opcode, Operand, StateSpace};

/// Uniform registers a kernel's warp-uniform values may occupy before the rest go to the
/// per-thread file (63 `UR`s, less what ptxas keeps for itself).
pub const UNIFORM_REGS: u32 = 56;

/// The model's figures for one kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct RegModel {
    /// Peak PTX register pressure, 32-bit units (every live register counted).
    pub pressure: u32,
    /// Peak of the values kept in per-thread registers (constants, parameters and warp-uniform
    /// values left out).
    pub per_thread: u32,
    /// Peak of the warp-uniform values alone.
    pub uniform: u32,
    /// The estimate of ptxas's register count: `per_thread + max(0, uniform - UNIFORM_REGS)`.
    pub estimate: u32,
}

/// How the model counts one register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Kept in the per-thread file.
    PerThread,
    /// An immediate or a constant-bank operand.
    Free,
    /// Warp-uniform: the uniform register file.
    Uniform,
}

/// Runs the model on kernel `f`.
pub fn model(f: &Function) -> Result<RegModel, String> {
    let body = f.body.as_ref().ok_or("a declaration has no body")?;
    let div = divergence::analyze_function(
        f,
        &divergence::Options {
            block_dim: None,
            assume_1d: false,
            assume_no_wrap: false,
        },
    )
    .map_err(|e| e.to_string())?;
    let kinds = classify(f, &div);
    let cfg = Cfg::compute(body);
    let lv = Liveness::compute(body, &cfg);
    let all = Pressure::compute(body, &cfg, &lv).max_units();
    let kinds = &kinds;
    let weigh = |want: Kind| {
        move |r: usize, u: u32| {
            if kinds.get(r).copied().unwrap_or(Kind::PerThread) == want {
                u
            } else {
                0
            }
        }
    };
    let per_thread =
        Pressure::compute_weighted(body, &cfg, &lv, weigh(Kind::PerThread)).max_units();
    let uniform = Pressure::compute_weighted(body, &cfg, &lv, weigh(Kind::Uniform)).max_units();
    Ok(RegModel {
        pressure: all,
        per_thread,
        uniform,
        estimate: per_thread + uniform.saturating_sub(UNIFORM_REGS),
    })
}

/// The kind of every register of `f`.
fn classify(f: &Function, div: &divergence::FunctionDivergence) -> Vec<Kind> {
    let body = f.body.as_ref().expect("checked by the caller");
    let n = body.regs.len();
    // Parameter-derived: every definition an `ld.param`, or a copy/conversion of such a value.
    let mut param = vec![true; n];
    let mut defined = vec![false; n];
    let mut changed = true;
    while changed {
        changed = false;
        for i in body.inst_order() {
            let inst = body.inst(i);
            let defs = roles::defs(inst);
            if defs.is_empty() {
                continue;
            }
            let from_param = match inst.opcode {
                Opcode::Ld => inst
                    .mods
                    .iter()
                    .any(|m| matches!(m, Modifier::Space(StateSpace::Param))),
                Opcode::Mov | Opcode::Cvta | Opcode::Cvt => {
                    inst.guard.is_none()
                        && inst.operands.iter().skip(defs.len()).all(|o| match o {
                            Operand::Reg(r) => param[r.index()],
                            Operand::Sym(_) | Operand::Imm(_) => true,
                            _ => false,
                        })
                }
                _ => false,
            };
            for d in defs {
                defined[d.index()] = true;
                if param[d.index()] && !from_param {
                    param[d.index()] = false;
                    changed = true;
                }
            }
        }
    }
    (0..n)
        .map(|r| {
            let reg = crate::ptx::Reg::new(r);
            match div.class(reg) {
                Class::Constant(_) | Class::Undefined => Kind::Free,
                _ if defined[r] && param[r] => Kind::Free,
                c if c.is_uniform() => Kind::Uniform,
                _ => Kind::PerThread,
            }
        })
        .collect()
}
