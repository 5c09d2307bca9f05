//! Instructions guarded by a predicate that is a constant, folded the way ptxas's constant
//! propagation folds them (issue 12's register model, [`super::regmodel`]).
//!
//! Triton writes the masks it can decide at compile time as constant predicates (`mov.pred %p1,
//! -1;` … `@%p1 ld.global.b16 {%rs1}, [%rd1];`, `mov.pred %p3, 0;` … `@%p3 ld.global.b16 …`:
//! Liger-Kernel's SwiGLU over a 3000-wide row, whose last four elements per thread lie past the
//! row). ptxas drops the never-executed instructions — the destination keeps the default the PTX
//! moved into it just before, a constant — and issues the always-executed ones unguarded. The
//! register model counts registers on the folded body: a constant default is free, where the
//! guarded load made it a per-thread register. The body is for counting only.

use crate::ptx::ir::{Body, Opcode, Operand, Stmt};
use crate::ptx::roles;

/// `body` with every instruction guarded by a constant-false predicate removed and every guard
/// that is constant-true dropped; `None` when no guard is constant. A predicate is constant when
/// its only definition is an unguarded `mov.pred` of an immediate.
pub fn fold(body: &Body) -> Option<Body> {
    let constant = constant_predicates(body);
    let mut out = body.clone();
    let mut changed = false;
    out.stmts.retain(|s| {
        let Stmt::Inst(i) = s else { return true };
        let Some(g) = &body.inst(*i).guard else {
            return true;
        };
        match constant[g.reg.index()] {
            Some(value) => {
                changed = true;
                value != g.negated
            }
            None => true,
        }
    });
    for inst in out.insts.iter_mut() {
        if inst
            .guard
            .is_some_and(|g| constant[g.reg.index()].is_some())
        {
            inst.guard = None;
        }
    }
    changed.then_some(out)
}

/// Per register, the value of a predicate whose only definition is an unguarded `mov.pred` of
/// an immediate.
fn constant_predicates(body: &Body) -> Vec<Option<bool>> {
    let definitions = roles::definition_counts(body);
    let mut constant = vec![None; body.regs.len()];
    for i in body.inst_order() {
        let inst = body.inst(i);
        if inst.opcode != Opcode::Mov || inst.guard.is_some() {
            continue;
        }
        if let (Some(Operand::Reg(d)), Some(Operand::Imm(imm))) =
            (inst.operands.first(), inst.operands.get(1))
        {
            let is_pred = body.reg(*d).ty.ty == crate::ptx::ir::Type::Pred;
            if is_pred && definitions[d.index()] == 1 {
                if let Some(v) = imm.as_i64() {
                    constant[d.index()] = Some(v != 0);
                }
            }
        }
    }
    constant
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptx::{parse_module, print_module};

    #[test]
    fn never_executed_instructions_go_and_always_executed_ones_lose_their_guard() {
        let text = "
.version 8.7
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p)
{
    .reg .pred %p<4>;
    .reg .b16 %rs<4>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [p];
    mov.pred %p1, -1;
    mov.pred %p2, 0;
    mov.u16 %rs1, 0;
    @%p1 ld.global.b16 %rs1, [%rd1];
    mov.u16 %rs2, 0;
    @%p2 ld.global.b16 %rs2, [%rd1+2];
    @!%p2 st.global.b16 [%rd1+4], %rs2;
    setp.ne.s16 %p3, %rs1, 0;
    @%p3 st.global.b16 [%rd1+6], %rs1;
    ret;
}
";
        let m = parse_module(text, "t.ptx").unwrap();
        let f = m.functions().next().unwrap();
        let folded = fold(f.body.as_ref().unwrap()).expect("two constant predicates");
        let mut g = f.clone();
        g.body = Some(folded);
        let mut out = m.clone();
        for item in &mut out.items {
            if let crate::ptx::ir::Item::Function(h) = item {
                *h = g.clone();
            }
        }
        let printed = print_module(&out);
        assert!(
            printed.contains("\tld.global.b16 \t%rs1, [%rd1];"),
            "{printed}"
        );
        assert!(
            !printed.contains("[%rd1+2]"),
            "the never-executed load is gone"
        );
        assert!(
            printed.contains("\tst.global.b16 \t[%rd1+4], %rs2;"),
            "{printed}"
        );
        assert!(
            printed.contains("@%p3 st.global.b16"),
            "a computed guard stays"
        );
    }
}
