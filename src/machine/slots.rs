//! Register *slots*: the register occurrences of one instruction, in [`roles::for_each_reg_role`]
//! order (the guard first, then the operands left to right), each with its role and whether a write
//! there kills the register's old value. Liveness, pressure and reaching definitions read slots;
//! renaming ([`super::ssa`]) rewrites them in place by index.
//!
//! A write *kills* only when it is a plain [`Role::Def`], [`roles::def_kills`] holds (no guard), and
//! the operand names the whole register: a write to one component of a vector register
//! (`mov.f32 %v.x, 1.0`, [`Operand::RegComponent`]) keeps the other components.
//!
//! The roles come from [`roles`]; this module walks the operands once more, mutably, mirroring
//! `roles`' traversal, to know each slot's operand form and to rewrite it. If the two walks ever
//! disagree (should `roles` learn rules the mirror does not follow), the instruction is reported as
//! *inexact*: its slots are taken from `roles` as they are, and renaming leaves its registers alone.

use crate::ptx::ir::{AddrBase, InstData, Operand, Reg};
use crate::ptx::roles::{self, Role};

/// One register occurrence of an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    /// The register.
    pub reg: Reg,
    /// What the instruction does with it.
    pub role: Role,
    /// True when the write replaces the whole old value (see the module doc).
    pub kills: bool,
}

impl Slot {
    /// True when the slot reads the register.
    pub fn reads(&self) -> bool {
        matches!(self.role, Role::Use | Role::UseDef)
    }
    /// True when the slot writes the register.
    pub fn writes(&self) -> bool {
        matches!(self.role, Role::Def | Role::UseDef)
    }
}

/// The slots of an instruction, and whether they could be matched to operand positions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Slots {
    /// The slots in order.
    pub slots: Vec<Slot>,
    /// False when the mirror walk disagreed with [`roles`] (see the module doc).
    pub exact: bool,
    /// Registers named in positions [`roles`] does not report (renaming must leave them alone).
    pub hidden: Vec<Reg>,
}

/// The slots of `inst`.
pub fn slots(inst: &InstData) -> Slots {
    let mut expected: Vec<(Reg, Role)> = Vec::new();
    roles::for_each_reg_role(inst, |r, role| expected.push((r, role)));
    let kills = roles::def_kills(inst);
    let mut mirrored = Vec::with_capacity(expected.len());
    let mut hidden = Vec::new();
    walk(
        inst,
        &mut |r: Reg, role: Option<Role>, component: bool| match role {
            Some(role) => mirrored.push(Slot {
                reg: r,
                role,
                kills: kills && role == Role::Def && !component,
            }),
            None => hidden.push(r),
        },
    );
    let exact = mirrored.len() == expected.len()
        && mirrored
            .iter()
            .zip(&expected)
            .all(|(s, &(r, role))| s.reg == r && s.role == role);
    if exact {
        Slots {
            slots: mirrored,
            exact,
            hidden,
        }
    } else {
        let slots = expected
            .into_iter()
            .map(|(reg, role)| Slot {
                reg,
                role,
                kills: kills && role == Role::Def,
            })
            .collect();
        Slots {
            slots,
            exact,
            hidden,
        }
    }
}

/// Calls `f(slot_index, &mut reg)` for every slot of `inst`. Does nothing for an inexact
/// instruction (whose slots cannot be located); returns whether it walked.
pub fn for_each_slot_mut(inst: &mut InstData, mut f: impl FnMut(usize, &mut Reg)) -> bool {
    if !slots(inst).exact {
        return false;
    }
    let op_roles = roles::operand_roles(inst);
    let mut k = 0;
    let mut g = |r: &mut Reg, role: Option<Role>| {
        if role.is_some() {
            f(k, r);
            k += 1;
        }
    };
    if let Some(guard) = &mut inst.guard {
        g(&mut guard.reg, Some(Role::Use));
    }
    for (op, role) in inst.operands.iter_mut().zip(op_roles) {
        visit_mut(op, role, &mut g);
    }
    true
}

/// The mirror of `roles`' traversal, read-only: `f(reg, role or None when skipped, is_component)`.
fn walk(inst: &InstData, f: &mut impl FnMut(Reg, Option<Role>, bool)) {
    let op_roles = roles::operand_roles(inst);
    if let Some(g) = &inst.guard {
        f(g.reg, Some(Role::Use), false);
    }
    for (op, role) in inst.operands.iter().zip(op_roles) {
        visit(op, role, f);
    }
}

fn visit(op: &Operand, role: Role, f: &mut impl FnMut(Reg, Option<Role>, bool)) {
    match op {
        Operand::Addr(_) | Operand::Bracket(_) => {
            op.for_each_reg(&mut |r| f(r, Some(Role::Use), false))
        }
        Operand::Vector(v) | Operand::List(v) => v.iter().for_each(|o| visit(o, role, f)),
        Operand::Pair(a, b) => {
            visit(a, role, f);
            visit(b, role, f);
        }
        Operand::Reg(r) | Operand::RegOffset(r, _) | Operand::NotReg(r) => {
            f(*r, (role != Role::None).then_some(role), false)
        }
        Operand::RegComponent(r, _) => f(*r, (role != Role::None).then_some(role), true),
        Operand::Special(_)
        | Operand::Imm(_)
        | Operand::Sym(_)
        | Operand::SymOffset(..)
        | Operand::Label(_)
        | Operand::Sink => {}
    }
}

fn visit_mut(op: &mut Operand, role: Role, f: &mut impl FnMut(&mut Reg, Option<Role>)) {
    match op {
        Operand::Addr(a) => {
            if let AddrBase::Reg(r) = &mut a.base {
                f(r, Some(Role::Use))
            }
        }
        Operand::Bracket(_) => op.for_each_reg_mut(&mut |r| f(r, Some(Role::Use))),
        Operand::Vector(v) | Operand::List(v) => v.iter_mut().for_each(|o| visit_mut(o, role, f)),
        Operand::Pair(a, b) => {
            visit_mut(a, role, f);
            visit_mut(b, role, f);
        }
        Operand::Reg(r)
        | Operand::RegOffset(r, _)
        | Operand::NotReg(r)
        | Operand::RegComponent(r, _) => f(r, (role != Role::None).then_some(role)),
        Operand::Special(_)
        | Operand::Imm(_)
        | Operand::Sym(_)
        | Operand::SymOffset(..)
        | Operand::Label(_)
        | Operand::Sink => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptx::ir::{Component, Guard, Loc, Opcode};

    fn inst(guard: Option<Guard>, opcode: &str, operands: Vec<Operand>) -> InstData {
        InstData {
            guard,
            opcode: Opcode::from_name(opcode),
            mods: Default::default(),
            operands: operands.into(),
            loc: Loc::default(),
        }
    }

    #[test]
    fn slots_follow_roles() {
        let (r1, r2, p) = (Reg(1), Reg(2), Reg(3));
        let i = inst(
            Some(Guard {
                reg: p,
                negated: false,
            }),
            "add",
            vec![Operand::Reg(r1), Operand::Reg(r1), Operand::Reg(r2)],
        );
        let s = slots(&i);
        assert!(s.exact);
        assert_eq!(s.slots.len(), 4);
        assert_eq!(
            s.slots[0],
            Slot {
                reg: p,
                role: Role::Use,
                kills: false
            }
        );
        assert_eq!(
            s.slots[1],
            Slot {
                reg: r1,
                role: Role::Def,
                kills: false
            },
            "guarded: no kill"
        );
        let mut i2 = inst(
            None,
            "add",
            vec![Operand::Reg(r1), Operand::Reg(r1), Operand::Reg(r2)],
        );
        assert!(slots(&i2).slots[0].kills);
        assert!(for_each_slot_mut(&mut i2, |k, r| if k == 0 {
            *r = Reg(9)
        }));
        assert_eq!(i2.operands[0], Operand::Reg(Reg(9)));
        assert_eq!(i2.operands[1], Operand::Reg(r1));
    }

    #[test]
    fn component_write_does_not_kill() {
        let i = inst(
            None,
            "mov",
            vec![
                Operand::RegComponent(Reg(0), Component::X),
                Operand::Reg(Reg(1)),
            ],
        );
        let s = slots(&i);
        assert_eq!(s.slots[0].role, Role::Def);
        assert!(!s.slots[0].kills);
    }
}
