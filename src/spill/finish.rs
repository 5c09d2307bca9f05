//! Finishing a demoted kernel (RegDem §3.2–3.3): declare the spill array under its reserved name,
//! clean up the spill code inside each block ([`super::peephole`]), compute the base registers at
//! entry and write `.maxnreg`.

use crate::ptx::{FuncDirective, Function, StateSpace, Type};

use super::layout::Layout;
use super::peephole;
use super::rewrite::{emit_bases, Bases};
use super::Demoted;

/// Declares the spill array, cleans up the spill code ([`peephole`]), computes the base
/// registers at entry, and sets `.maxnreg`.
pub(super) fn finish(
    f: &mut Function,
    layout: &Layout,
    bases: &Bases,
    demoted: &[Demoted],
    max_regs: u32,
) -> peephole::Cleaned {
    f.directives
        .retain(|d| !matches!(d, FuncDirective::MaxNreg(_)));
    f.directives.push(FuncDirective::MaxNreg(max_regs));
    let Some(body) = f.body.as_mut() else {
        return peephole::Cleaned::default();
    };
    if demoted.is_empty() || layout.bytes() == 0 {
        return peephole::Cleaned::default();
    }
    let cleaned = peephole::optimise(body, bases);
    // Declare the array under exactly its reserved name.
    let v = crate::ptx::Variable {
        linkage: None,
        space: StateSpace::Shared,
        align: Some(4),
        vec: None,
        ty: Type::B8,
        ptr: None,
        name: Some(bases.array.as_str().into()),
        dims: vec![Some(bases.area(layout.bytes()))],
        init: None,
        attributes: Vec::new(),
        loc: Default::default(),
    };
    let at = body
        .stmts
        .iter()
        .position(|s| matches!(s, crate::ptx::Stmt::Inst(_) | crate::ptx::Stmt::Label(_)))
        .unwrap_or(0);
    body.stmts.insert(at, crate::ptx::Stmt::Var(Box::new(v)));
    let used_thread = layout.thread_words > 0;
    let used_warp = layout.warp_words > 0;
    emit_bases(body, layout, bases, used_thread, used_warp);
    cleaned
}
