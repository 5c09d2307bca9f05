//! The registers a `call` costs a kernel, for the register model ([`super::regmodel`],
//! issue 12).
//!
//! ptxas compiles a module's kernels and the functions they call as one program, and calls come
//! in two kinds:
//!
//! - **Direct calls to a function with a body that calls nothing recursively.** ptxas allocates
//!   registers across the call: the callee takes registers the caller keeps nothing in across
//!   it, the return address goes in one low register (`MOV R0, 0x70; CALL.REL.NOINC …;
//!   RET.REL.NODEC R0`), and the kernel's count is the caller's values live across the call plus
//!   what the callee needs. Measured (ptxas 12.9, sm_80, 1 Dec 2026) on a kernel keeping m values
//!   live across a call to a function that loads and sums k values: m = 0, k = 2 / 8 / 16 → 10 /
//!   14 / 22 registers; k = 8, m = 4 / 16 → 18 / 30.
//! - **Calls through a pointer, to a function declared without a body, or inside a recursive
//!   cycle.** These follow the calling convention: the return address in `R20:R21` (every `RET`
//!   of such calls in the bench's SASS reads them), so the count is at least 24 whatever the
//!   kernel keeps live ([`super::regmodel::CALL_RETURN_REG`]).
//!
//! [`Callees`] tells the two apart and gives a direct call's need, with the callee modelled by
//! the same model ([`super::regmodel`]) on its own body.

use crate::analysis::occupancy::ArchLimits;
use crate::machine::cfg::Cfg;
use crate::machine::liveness::Liveness;
use crate::machine::pressure::{reg_class, RegClass};
use crate::ptx::{
    roles, Body, FuncKind, Function, Inst, InstData, Module, Opcode, Operand, Reg, StateSpace,
};
use std::cell::RefCell;
use std::collections::HashMap;

/// Registers a direct call holds beyond the caller's values live across it and the callee's
/// own: the return address (one register, `RET.REL.NODEC R0`).
pub const RETURN_ADDRESS_REGS: u32 = 1;

/// What one `call` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallKind<'m> {
    /// A direct call to a function of the module with a body, not recursive: ptxas allocates
    /// across it.
    Direct(&'m Function),
    /// Through the calling convention: a call through a register, to a function with no body in
    /// the module, or to one already being called (a recursive cycle).
    Convention,
}

/// The callees of the kernel being modelled: the module, and the functions whose model is being
/// computed (to see recursive cycles).
pub struct Callees<'m> {
    module: &'m Module,
    active: RefCell<Vec<Box<str>>>,
    /// [`Callees::direct_need`] of every callee modelled so far, by name.
    needs: RefCell<HashMap<String, Option<u32>>>,
}

impl<'m> Callees<'m> {
    /// The callees of `module`'s functions.
    pub fn of(module: &'m Module) -> Callees<'m> {
        Callees {
            module,
            active: RefCell::new(Vec::new()),
            needs: RefCell::new(HashMap::new()),
        }
    }

    /// What `inst` calls; `None` when it is not a `call`.
    pub fn kind(&self, inst: &InstData) -> Option<CallKind<'m>> {
        if inst.opcode != Opcode::Call {
            return None;
        }
        let Some(Operand::Sym(name)) = inst
            .operands
            .iter()
            .find(|o| !matches!(o, Operand::List(_)))
        else {
            return Some(CallKind::Convention);
        };
        let callee = self
            .module
            .function(name)
            .filter(|g| g.kind == FuncKind::Func && g.body.is_some());
        match callee {
            Some(g) if !self.is_active(&g.name) => Some(CallKind::Direct(g)),
            _ => Some(CallKind::Convention),
        }
    }

    /// Whether `name` is being modelled (a call to it is recursive).
    fn is_active(&self, name: &str) -> bool {
        self.active.borrow().iter().any(|a| **a == *name)
    }

    /// Whether `f` or a function it calls directly makes a call through the convention.
    pub fn uses_convention(&self, f: &Function) -> bool {
        self.while_in(f, || {
            f.body
                .iter()
                .flat_map(|b| b.insts.iter())
                .any(|i| match self.kind(i) {
                    None => false,
                    Some(CallKind::Convention) => true,
                    Some(CallKind::Direct(g)) => self.uses_convention(g),
                })
        })
    }

    /// The registers direct call `g` needs beyond the caller's values live across it: what the
    /// model gives `g`'s own values (`values` on `g`'s body, its own calls included), plus
    /// [`RETURN_ADDRESS_REGS`]. `None` when the model cannot read `g`. Each callee is modelled
    /// once per kernel, however many calls reach it (the first call's view of a recursive cycle
    /// stands for the others).
    pub fn direct_need(
        &self,
        g: &'m Function,
        arch: &'static ArchLimits,
        values: impl Fn(&Function, &'static ArchLimits, &Callees<'m>) -> Result<u32, String>,
    ) -> Option<u32> {
        if let Some(&known) = self.needs.borrow().get(&*g.name) {
            return known;
        }
        let need = self
            .while_in(g, || values(g, arch, self))
            .inspect_err(|why| log::debug!("register model on callee `{}`: {why}", g.name))
            .ok()
            .map(|v| v + RETURN_ADDRESS_REGS);
        self.needs.borrow_mut().insert(g.name.to_string(), need);
        need
    }

    /// Runs `work` with `f` marked as being modelled: calls to it from inside are recursive.
    pub fn while_in<T>(&self, f: &Function, work: impl FnOnce() -> T) -> T {
        self.active.borrow_mut().push(f.name.to_string().into());
        let out = work();
        self.active.borrow_mut().pop();
        out
    }
}

/// The units of the caller's values that call `call` passes as arguments and that stay live
/// after it, weighed by `weight` (register index, 32-bit units) as the caller's pressure is.
/// ptxas passes such a value in the register it already holds, so the callee's parameter and
/// the caller's value live across the call are one register, not two (the 64-bit pointer the
/// measured kernels pass and store through afterwards: 16 → 14 registers with k = 8).
pub fn arguments_kept_across(
    body: &Body,
    cfg: &Cfg,
    liveness: &Liveness,
    call: Inst,
    weight: impl Fn(usize, u32) -> u32,
) -> u32 {
    let Some(after) = liveness.live_after(body, cfg, call) else {
        return 0;
    };
    let (args, mut passed) = arguments(body.inst(call));
    let Some(block) = cfg.block_of(call) else {
        return 0;
    };
    passed.retain(|r| after.contains(r.index()));
    let mut kept: Vec<Reg> = passed;
    for &i in cfg.insts(block).iter().take_while(|&&i| i != call) {
        let inst = body.inst(i);
        if !is_param_store(inst) || !names_any(inst, &args) {
            continue;
        }
        for r in roles::uses(inst) {
            if after.contains(r.index()) && !kept.contains(&r) {
                kept.push(r);
            }
        }
    }
    kept.iter()
        .map(|r| match reg_class(body.regs[r.index()].ty) {
            RegClass::General(u) => weight(r.index(), u),
            RegClass::Pred => 0,
        })
        .sum()
}

/// What `call` passes as arguments (the list after the callee): the `.param` names, and the
/// registers named there directly (a callee with `.reg` parameters).
fn arguments(call: &InstData) -> (Vec<&str>, Vec<Reg>) {
    let mut lists = call
        .operands
        .iter()
        .skip_while(|o| matches!(o, Operand::List(_)));
    let _callee = lists.next();
    let (mut names, mut regs) = (Vec::new(), Vec::new());
    if let Some(args @ Operand::List(_)) = lists.next() {
        args.for_each_sym(&mut |s| names.push(s));
        args.for_each_reg(&mut |r| regs.push(r));
    }
    (names, regs)
}

/// Whether `inst` is an `st.param`.
fn is_param_store(inst: &InstData) -> bool {
    inst.opcode == Opcode::St && inst.space() == Some(StateSpace::Param)
}

/// Whether `inst` names one of `names`.
fn names_any(inst: &InstData, names: &[&str]) -> bool {
    let mut hit = false;
    for o in inst.operands.iter() {
        o.for_each_sym(&mut |s| hit |= names.contains(&s));
    }
    hit
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptx::parse_module;

    const MODULE: &str = ".version 8.0\n.target sm_80\n.address_size 64\n\
        .func (.param .b32 r) leaf(.param .b32 a)\n{\n.reg .b32 %v<2>;\n\
        ld.param.b32 %v0, [a];\nst.param.b32 [r], %v0;\nret;\n}\n\
        .func (.param .b32 r) rec(.param .b32 a)\n{\n.reg .b32 %v<2>;\n\
        ld.param.b32 %v0, [a];\n{\n.param .b32 a0;\n.param .b32 r0;\n\
        st.param.b32 [a0], %v0;\ncall.uni (r0), rec, (a0);\nld.param.b32 %v1, [r0];\n}\n\
        st.param.b32 [r], %v1;\nret;\n}\n\
        .extern .func (.param .b32 r) ext(.param .b32 a);\n\
        .visible .entry k(.param .u64 p)\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<2>;\n\
        mov.u32 %r1, %tid.x;\n\
        {\n.param .b32 a0;\n.param .b32 r0;\nst.param.b32 [a0], %r1;\n\
        call.uni (r0), leaf, (a0);\nld.param.b32 %r2, [r0];\n}\n\
        {\n.param .b32 a0;\n.param .b32 r0;\nst.param.b32 [a0], %r1;\n\
        call.uni (r0), ext, (a0);\nld.param.b32 %r3, [r0];\n}\nret;\n}\n";

    fn calls<'m>(callees: &Callees<'m>, f: &'m Function) -> Vec<Option<&'m str>> {
        f.body
            .iter()
            .flat_map(|b| b.insts.iter())
            .filter_map(|i| callees.kind(i))
            .map(|k| match k {
                CallKind::Direct(g) => Some(&*g.name),
                CallKind::Convention => None,
            })
            .collect()
    }

    #[test]
    fn a_call_to_a_defined_function_is_direct_the_rest_go_through_the_convention() {
        let m = parse_module(MODULE, "calls.ptx").unwrap();
        let callees = Callees::of(&m);
        let k = m.function("k").unwrap();
        assert_eq!(
            calls(&callees, k),
            vec![Some("leaf"), None],
            "ext has no body"
        );
        assert!(callees.uses_convention(k));
        let leaf = m.function("leaf").unwrap();
        assert!(!callees.uses_convention(leaf));
        let rec = m.function("rec").unwrap();
        assert!(callees.uses_convention(rec), "a recursive call");
    }

    #[test]
    fn a_direct_calls_need_is_the_callees_values_and_the_return_address() {
        let m = parse_module(MODULE, "calls.ptx").unwrap();
        let callees = Callees::of(&m);
        let leaf = m.function("leaf").unwrap();
        let arch = crate::analysis::occupancy::arch("sm_80").unwrap();
        let runs = std::cell::Cell::new(0);
        let values = |g: &Function, _: &'static ArchLimits, inner: &Callees| {
            assert!(inner.is_active(&g.name));
            runs.set(runs.get() + 1);
            Ok(5)
        };
        assert_eq!(
            callees.direct_need(leaf, arch, values),
            Some(5 + RETURN_ADDRESS_REGS)
        );
        assert!(callees.active.borrow().is_empty());
        assert_eq!(
            callees.direct_need(leaf, arch, values),
            Some(5 + RETURN_ADDRESS_REGS)
        );
        assert_eq!(runs.get(), 1, "a callee is modelled once");
    }
}
