//! The unrolling ptxas does itself, for counting (issue 12's register model,
//! [`super::regmodel`]). ptxas unrolls a small loop that PTX left rolled — one block branching
//! back to itself — by 4 and issues the copies' loads together (bench/kernels/half.cu's
//! `hgemv_half2`: an 8-instruction loop of two loads becomes 8 loads in flight, 28 registers
//! where the rolled loop's pressure is 14). The register model counts such a loop on a body in
//! which it is unrolled: [`UNROLL_FACTOR`] − 1 copies of the loop's instructions, without their
//! exit branch and with fresh registers for what they define, go before the loop's own
//! instructions, which then read the last copy's values.
//!
//! The result is for counting only (liveness, pressure, the issue order): the copies run
//! without the exit tests a real unrolling needs.

use crate::machine::cfg::{Block, Cfg};
use crate::machine::slots::{for_each_slot_mut, slots};
use crate::ptx::ir::{Body, Inst, Modifier, Opcode, Operand, Reg, StateSpace, Stmt};
use crate::ptx::roles;
use std::collections::HashMap;

/// How many iterations ptxas's unrolled loop does per trip.
pub const UNROLL_FACTOR: usize = 4;

/// The largest loop ptxas unrolls, in [`loop_size`] units (PTX instructions, global, local and
/// generic loads counting twice). Measured with ptxas 12.9, sm_80 and sm_90 alike, on counted
/// loops of L `ld.global.nc` and F `fma` plus 5 loop-control instructions: unrolled at
/// (L, F) = (2, 40), (4, 36), (8, 28), (12, 20), (14, 18), (15, 15) — sizes 49 to 51 — and not
/// at (2, 44), (4, 40), (8, 32), (16, 16), (16, 20), (20, 20) — sizes 53 to 65; and on loops of
/// k load-and-`fma` pairs plus 4: unrolled up to k = 14 (size 46), not at k = 16 (size 52).
pub const UNROLL_BUDGET: usize = 51;

/// A body with its small self-loops unrolled, and where each register comes from.
pub struct Unrolled {
    /// The body: the original's registers and instructions first, the copies' after them.
    pub body: Body,
    /// Per register of `body`, the register of the original body it is (itself or a copy of).
    pub origin: Vec<usize>,
}

/// `body` with every reachable counted self-loop of at most [`UNROLL_BUDGET`] units unrolled
/// (see the module doc), or `None` when there is none. A loop is left alone when the PTX asks for no
/// unrolling (`.pragma "nounroll"`), when an instruction's registers cannot be located
/// ([`slots`]' inexact case), or when an instruction both reads and writes a register that an
/// earlier copy redefined (the two roles would need two registers).
pub fn unroll_small_self_loops(body: &Body, cfg: &Cfg) -> Option<Unrolled> {
    let position = body.stmt_positions();
    let mut out = body.clone();
    let mut origin: Vec<usize> = (0..body.regs.len()).collect();
    // Per statement position, the copies to insert before it.
    let mut inserts: HashMap<usize, Vec<Inst>> = HashMap::new();
    for b in cfg.blocks().filter(|&b| cfg.is_reachable(b)) {
        if !is_small_self_loop(body, cfg, b, &position) || !is_renamable(body, cfg.insts(b)) {
            continue;
        }
        let copies = unroll(&mut out, &mut origin, cfg, b);
        inserts.insert(position[&cfg.insts(b)[0]], copies);
    }
    if inserts.is_empty() {
        return None;
    }
    out.insert_before_positions(&inserts);
    Some(Unrolled { body: out, origin })
}

/// The size ptxas's unrolling limit is measured in: the instructions of `insts`, global, local
/// and generic loads counting twice ([`UNROLL_BUDGET`]).
pub fn loop_size(body: &Body, insts: &[Inst]) -> usize {
    insts
        .iter()
        .map(|&i| {
            let d = body.inst(i);
            let space = d.mods.iter().find_map(|m| match m {
                Modifier::Space(s) => Some(*s),
                _ => None,
            });
            let long_load = matches!(d.opcode, Opcode::Ld | Opcode::Ldu)
                && !matches!(
                    space,
                    Some(StateSpace::Shared | StateSpace::Param | StateSpace::Const)
                );
            if long_load {
                2
            } else {
                1
            }
        })
        .sum()
}

/// True when `b` is a counted loop branching back to itself ([`is_counted`]) of at most
/// [`UNROLL_BUDGET`] units, and no `.pragma "nounroll"` stands before its first instruction or
/// in it.
fn is_small_self_loop(body: &Body, cfg: &Cfg, b: Block, position: &HashMap<Inst, usize>) -> bool {
    let insts = cfg.insts(b);
    if insts.is_empty() || loop_size(body, insts) > UNROLL_BUDGET || !cfg.succs(b).contains(&b) {
        return false;
    }
    if !is_counted(body, insts) || insts.iter().any(|&i| !slots(body.inst(i)).exact) {
        return false;
    }
    // A loop of several blocks in the PTX that the model predicated into one
    // (`if_conversion`): ptxas unrolls loops PTX left as one block, not these.
    let predicated = |i: &Inst| body.inst(*i).has_word(super::if_conversion::PREDICATED);
    if insts.iter().any(predicated) {
        return false;
    }
    let Some(&first) = position.get(&insts[0]) else {
        return false;
    };
    let last = insts
        .last()
        .and_then(|i| position.get(i))
        .copied()
        .unwrap_or(first);
    // The pragma stands among the labels before the block, or inside it.
    let before = body.stmts[..first]
        .iter()
        .rev()
        .take_while(|s| !matches!(s, Stmt::Inst(_)));
    !before
        .chain(&body.stmts[first..=last])
        .any(|s| matches!(s, Stmt::Pragma(p) if p.iter().any(|w| w.contains("nounroll"))))
}

/// True when the loop made of `insts` is counted with a constant step: its last instruction
/// is a guarded branch whose predicate a `setp` of the loop computes from a register the loop
/// steps by an immediate (`add`/`sub %i, %i, 32`) and a value the loop does not change. ptxas
/// unrolls such loops (`hgemv_half2`); it leaves a loop alone whose step is a register
/// (a grid-stride loop, `reduce_sum_shfl_down`) or whose exit depends on data (a
/// compare-and-swap retry loop, `cas_add_double`).
fn is_counted(body: &Body, insts: &[Inst]) -> bool {
    let Some(branch) = insts.last().map(|&i| body.inst(i)) else {
        return false;
    };
    let Some(guard) = branch
        .guard
        .as_ref()
        .filter(|_| branch.opcode == Opcode::Bra)
    else {
        return false;
    };
    let defined_here = |r: Reg| {
        insts
            .iter()
            .any(|&i| roles::defs(body.inst(i)).contains(&r))
    };
    let stepped = |r: Reg| {
        insts.iter().any(|&i| {
            let d = body.inst(i);
            matches!(d.opcode, Opcode::Add | Opcode::Sub)
                && d.operands.first() == Some(&Operand::Reg(r))
                && d.operands.iter().skip(1).any(|o| *o == Operand::Reg(r))
                && d.operands
                    .iter()
                    .skip(1)
                    .any(|o| matches!(o, Operand::Imm(_)))
        })
    };
    let invariant = |o: &Operand| match o {
        Operand::Reg(r) => !defined_here(*r),
        Operand::Imm(_) => true,
        _ => false,
    };
    insts.iter().any(|&i| {
        let d = body.inst(i);
        if d.opcode != Opcode::Setp || roles::defs(d).first() != Some(&guard.reg) {
            return false;
        }
        let sources: Vec<&Operand> = d.operands.iter().skip(1).collect();
        sources.len() == 2
            && sources.iter().enumerate().any(|(k, o)| {
                matches!(o, Operand::Reg(r) if stepped(*r)) && invariant(sources[1 - k])
            })
    })
}

/// True when the loop's own instructions can be made to read the last copy's values: no
/// instruction both reads and writes (in one operand) a register the copies redefine before the
/// loop's own instructions write it again (the two roles would need two registers).
fn is_renamable(body: &Body, loop_insts: &[Inst]) -> bool {
    // What the copies redefine: every register a slot of the loop writes without reading.
    let copied: Vec<Reg> = loop_insts
        .iter()
        .flat_map(|&i| slots(body.inst(i)).slots)
        .filter(|s| s.writes() && !s.reads())
        .map(|s| s.reg)
        .collect();
    let mut redefined: Vec<Reg> = Vec::new();
    for &i in loop_insts {
        let sl = slots(body.inst(i)).slots;
        if sl.iter().any(|s| {
            s.reads() && s.writes() && copied.contains(&s.reg) && !redefined.contains(&s.reg)
        }) {
            return false;
        }
        redefined.extend(sl.iter().filter(|s| s.writes()).map(|s| s.reg));
    }
    true
}

/// Adds to `body` the [`UNROLL_FACTOR`] − 1 copies of loop `b` (instructions and fresh
/// registers) and makes the loop's own instructions read the last copy's values (which
/// [`is_renamable`] has checked they can); returns the copies in order.
fn unroll(body: &mut Body, origin: &mut Vec<usize>, cfg: &Cfg, b: Block) -> Vec<Inst> {
    let terminator = cfg.terminator(body, b);
    let loop_insts: Vec<Inst> = cfg.insts(b).to_vec();
    // The register each original register's latest value is in.
    let mut current: HashMap<Reg, Reg> = HashMap::new();
    let mut copies = Vec::new();
    for copy in 1..UNROLL_FACTOR {
        for &i in loop_insts.iter().filter(|&&i| Some(i) != terminator) {
            let mut data = body.inst(i).clone();
            let sl = slots(&data).slots;
            let mut replace: Vec<Reg> = Vec::with_capacity(sl.len());
            let mut defined: Vec<(Reg, Reg)> = Vec::new();
            for s in &sl {
                let read_as = current.get(&s.reg).copied().unwrap_or(s.reg);
                if s.writes() && !s.reads() {
                    let fresh = match defined.iter().find(|(o, _)| *o == s.reg) {
                        Some(&(_, f)) => f,
                        None => {
                            let name = format!("{}$u{copy}", body.reg_name(s.reg));
                            let f = body.add_reg(&name, body.reg(s.reg).ty);
                            origin.push(origin[s.reg.index()]);
                            defined.push((s.reg, f));
                            f
                        }
                    };
                    replace.push(fresh);
                } else {
                    replace.push(read_as);
                }
            }
            for_each_slot_mut(&mut data, |k, r| *r = replace[k]);
            current.extend(defined);
            let id = Inst::new(body.insts.len());
            body.insts.push(data);
            copies.push(id);
        }
    }
    // The loop's own instructions read the last copy's values until they redefine them.
    let mut redefined: Vec<Reg> = Vec::new();
    for &i in &loop_insts {
        let sl = slots(body.inst(i)).slots;
        let replace: Vec<Reg> = sl
            .iter()
            .map(|s| match current.get(&s.reg) {
                Some(&r) if s.reads() && !s.writes() && !redefined.contains(&s.reg) => r,
                _ => s.reg,
            })
            .collect();
        for_each_slot_mut(&mut body.insts[i.index()], |k, r| *r = replace[k]);
        redefined.extend(sl.iter().filter(|s| s.writes()).map(|s| s.reg));
    }
    copies
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::testutil::ptx;
    use crate::ptx::printer::print_inst;

    /// A counted loop of `loads` loads summed into `%f1`, stepping `%r3` by `step`.
    fn kernel(loads: usize, step: &str, pragma: &str) -> String {
        let mut body = String::from(
            ".reg .pred %p<2>;\n.reg .b32 %r<5>;\n.reg .f32 %f<40>;\n.reg .b64 %rd<6>;\n\
             ld.param.u32 %r1, [n];\nmov.u32 %r2, %tid.x;\nmul.wide.u32 %rd1, %r2, 4;\n\
             mov.f32 %f1, 0f00000000;\nmov.u32 %r3, 0;\nL1:\n",
        );
        body.push_str(pragma);
        for j in 0..loads {
            body.push_str(&format!(
                "ld.global.nc.f32 %f{}, [%rd1+{}];\nadd.f32 %f1, %f1, %f{};\n",
                10 + j,
                4 * j,
                10 + j
            ));
        }
        body.push_str(&format!(
            "add.s64 %rd1, %rd1, 128;\nadd.s32 %r3, %r3, {step};\n\
             setp.lt.s32 %p1, %r3, %r1;\n@%p1 bra L1;\nst.global.f32 [%rd1], %f1;\nret;"
        ));
        body
    }

    fn unrolled(text: &str) -> Option<(Body, Unrolled)> {
        let body = ptx(text);
        let cfg = Cfg::compute(&body);
        unroll_small_self_loops(&body, &cfg).map(|u| (body, u))
    }

    fn printed(body: &Body) -> Vec<String> {
        body.stmts
            .iter()
            .filter_map(|s| match s {
                Stmt::Inst(i) => Some(
                    print_inst(body, *i)
                        .split_whitespace()
                        .collect::<Vec<_>>()
                        .join(" "),
                ),
                _ => None,
            })
            .collect()
    }

    /// Three copies without the exit branch go before the loop's own instructions; each copy
    /// reads the one before, and the loop's own instructions read the third.
    #[test]
    fn a_counted_loop_is_unrolled_by_four() {
        let (orig, u) = unrolled(&kernel(2, "1", "")).expect("the loop is unrolled");
        let loop_len = 8;
        assert_eq!(u.body.insts.len(), orig.insts.len() + 3 * (loop_len - 1));
        let text = printed(&u.body);
        let loads = text.iter().filter(|l| l.starts_with("ld.global")).count();
        assert_eq!(loads, 8, "{text:#?}");
        assert_eq!(
            text.iter().filter(|l| l.contains("bra")).count(),
            1,
            "{text:#?}"
        );
        // The step chains through the copies into the loop's own add.
        let steps: Vec<&String> = text.iter().filter(|l| l.starts_with("add.s32")).collect();
        assert_eq!(steps.len(), 4, "{text:#?}");
        assert!(steps[0].contains("%r3, 1;"), "{}", steps[0]);
        assert!(
            steps[3].starts_with("add.s32 %r3, %r3$u3, 1"),
            "{}",
            steps[3]
        );
        // Every new register is a copy of one of the loop's.
        assert_eq!(u.origin.len(), u.body.regs.len());
        for r in orig.regs.len()..u.body.regs.len() {
            let o = u.origin[r];
            assert!(o < orig.regs.len());
            assert!(u
                .body
                .reg_name(Reg::new(r))
                .starts_with(orig.reg_name(Reg::new(o))));
        }
    }

    #[test]
    fn grid_stride_loops_and_nounroll_are_left_alone() {
        assert!(unrolled(&kernel(2, "%r1", "")).is_none(), "a register step");
        assert!(unrolled(&kernel(2, "1", ".pragma \"nounroll\";\n")).is_none());
    }

    /// Size: 2 per load, 1 per add, 4 of control. 12 loads: 40 units, unrolled; 17: 55, not.
    #[test]
    fn loops_above_the_budget_are_left_alone() {
        assert!(unrolled(&kernel(12, "1", "")).is_some());
        assert!(unrolled(&kernel(17, "1", "")).is_none());
    }
}
