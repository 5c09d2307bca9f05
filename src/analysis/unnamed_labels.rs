//! Labels no instruction names, removed for counting (issue 12's register model,
//! [`super::regmodel`]).
//!
//! Triton's PTX marks the source lines of inlined calls with labels (`$L__tmp1:` … `$L__tmp4:`)
//! that only the `.debug_info` section refers to. A label starts a basic block in the control
//! flow graph, and the model's issue orders move instructions only within a block, so each such
//! label walled off a stretch of code: Liger-Kernel's SwiGLU forward (sm_80) loads sixteen
//! elements of each operand, and the labels between its loads, its `ex2`/`div` chain and its
//! stores kept all of them live at once — 55 units on every order the model tried, where ptxas
//! schedules across the labels and keeps 29 live (32 registers; the model gives 32 without the
//! labels). The body without them is for counting only. The spilling pass's clean-up
//! ([`crate::spill::peephole`]) reads [`named`] too: control cannot enter at an unnamed label, so
//! what a register holds survives it.

use crate::ptx::ir::{Body, Label, Stmt};

/// `body` without the label definitions that no instruction operand, `.branchtargets` table or
/// other directive of the body names; `None` when every label is named.
pub fn remove(body: &Body) -> Option<Body> {
    let named = named(body);
    let unnamed = |s: &Stmt| matches!(s, Stmt::Label(l) if !named[l.index()]);
    if !body.stmts.iter().any(unnamed) {
        return None;
    }
    let mut out = body.clone();
    out.stmts.retain(|s| !unnamed(s));
    Some(out)
}

/// Per label of `body`, whether anything but its own definition names it (a branch can reach
/// only such a label).
pub fn named(body: &Body) -> Vec<bool> {
    references(body).into_iter().map(|n| n > 0).collect()
}

/// Per label of `body`, how many instruction operands and directives name it besides its own
/// definition (a label one guarded branch names is entered only from there and by falling
/// through: [`super::if_conversion`]).
pub fn references(body: &Body) -> Vec<u32> {
    let mut count = vec![0u32; body.labels.len()];
    let mut mark = |l: Label| {
        if let Some(n) = count.get_mut(l.index()) {
            *n += 1;
        }
    };
    for i in body.inst_order() {
        for op in &body.inst(i).operands {
            op.for_each_label(&mut mark);
            // A symbol spelled like a label of the body names it too (the CFG reads it so).
            if let crate::ptx::ir::Operand::Sym(name) = op {
                if let Some(k) = body.labels.iter().position(|n| n == name) {
                    mark(Label::new(k));
                }
            }
        }
    }
    for s in &body.stmts {
        match s {
            Stmt::BranchTargets { label, targets } => {
                mark(*label);
                targets.iter().for_each(|&t| mark(t));
            }
            Stmt::CallTargets { label, .. } | Stmt::CallPrototype { label, .. } => mark(*label),
            _ => {}
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::cfg::Cfg;
    use crate::ptx::parse_module;

    fn body_of(text: &str) -> Body {
        let m = parse_module(text, "t.ptx").unwrap();
        let body = m.function("k").unwrap().body.clone().unwrap();
        body
    }

    /// A debug label splits a block; without it the block is one, and the branch target stays.
    #[test]
    fn labels_only_the_debug_info_names_are_removed() {
        let body = body_of(
            ".version 8.0\n.target sm_80\n.address_size 64\n\
             .visible .entry k(.param .u64 p)\n{\n.reg .pred %p<2>;\n.reg .b32 %r<4>;\n\
             .reg .b64 %rd<2>;\nld.param.u64 %rd1, [p];\nmov.u32 %r1, %tid.x;\n\
             $L__tmp0:\nadd.s32 %r2, %r1, 1;\nsetp.lt.u32 %p1, %r1, 4;\n@%p1 bra $L__BB0_2;\n\
             $L__tmp1:\nst.global.u32 [%rd1], %r2;\n$L__BB0_2:\nret;\n}\n",
        );
        let blocks = |b: &Body| Cfg::compute(b).blocks().count();
        assert_eq!(blocks(&body), 4);
        let without = remove(&body).expect("two debug labels");
        assert_eq!(blocks(&without), 3);
        let labels: Vec<&str> = without
            .stmts
            .iter()
            .filter_map(|s| match s {
                Stmt::Label(l) => Some(body.label_name(*l)),
                _ => None,
            })
            .collect();
        assert_eq!(labels, ["$L__BB0_2"]);
        assert!(remove(&without).is_none());
    }
}
