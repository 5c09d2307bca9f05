//! Global-memory addresses that ptxas has to hold in per-thread registers although the value is
//! a kernel parameter or warp-uniform (issue 12's register model, [`super::regmodel`]).
//!
//! `LDG`, `STG`, `ATOMG` and `RED` read their address from a pair of per-thread registers
//! (`[R4.64]`); the uniform register in the instruction is the memory descriptor, not an
//! address. A pointer that is a kernel parameter (`c[0x0][0x168]`) or a uniform value is
//! therefore copied into a register pair before the first access that uses it directly, and
//! the pair stays live to the last one: `cas_max_float` (bench/kernels/atomics_cas.cu) loads
//! from its parameter pointer and then retries `atom.cas` on it in a loop, and ptxas holds the
//! pointer in `R4:R5` across the loop (10 registers, where the model counted the pointer as
//! free and gave 7).
//!
//! [`materialise`] makes that copy explicit for the model: per such register, one `mov` into a
//! new per-thread register at the nearest block that dominates every access using it, placed
//! before the first of them there; those accesses read the copy. [`fold_offsets`] goes the
//! other way for registers that are another plus a constant and only ever an address: SASS
//! encodes the constant in the address (`[R2.64+0x2010]`), so they need no register of their
//! own. The bodies are for counting only.

use crate::machine::cfg::{Block, Cfg};
use crate::machine::dominators::DomTree;
use crate::ptx::ir::{
    AddrBase, Body, Inst, InstData, Loc, Modifier, Opcode, Operand, Reg, StateSpace, Stmt,
};
use std::collections::{BTreeMap, HashMap};

/// A body in which the directly used global addresses are copied into per-thread registers.
pub struct Materialised {
    /// The body: the original's registers and statements, the copies' registers after them.
    pub body: Body,
    /// Per register of `body`, the original register it is (itself or a copy of).
    pub origin: Vec<usize>,
}

/// Whether `inst` reads memory ptxas addresses through a per-thread register pair: a load,
/// store or atomic on the global (or generic) space.
fn addresses_per_thread(inst: &InstData) -> bool {
    matches!(
        inst.opcode,
        Opcode::Ld | Opcode::St | Opcode::Atom | Opcode::Red
    ) && !matches!(
        inst.space(),
        Some(StateSpace::Shared | StateSpace::Local | StateSpace::Param | StateSpace::Const)
    )
}

/// The register the address of `inst` is based on, if any.
fn address_base(inst: &InstData) -> Option<Reg> {
    inst.operands.iter().find_map(|o| match o {
        Operand::Addr(a) => match a.base {
            AddrBase::Reg(r) => Some(r),
            _ => None,
        },
        _ => None,
    })
}

/// The nearest block dominating both `a` and `b`.
fn common_dominator(dom: &DomTree, a: Block, b: Block) -> Block {
    let mut x = a;
    while !dom.dominates(x, b) {
        match dom.idom(x) {
            Some(p) => x = p,
            None => return x,
        }
    }
    x
}

/// Copies every register that `off_file` says is not in the per-thread file (a parameter or a
/// uniform value) and that is the address of a global access into a new register, as ptxas
/// does; `None` when the kernel has no such access.
pub fn materialise(body: &Body, cfg: &Cfg, off_file: impl Fn(Reg) -> bool) -> Option<Materialised> {
    // Per address register, the reachable accesses that use it directly.
    let mut users: BTreeMap<Reg, Vec<Inst>> = BTreeMap::new();
    for b in cfg.blocks().filter(|&b| cfg.is_reachable(b)) {
        for &i in cfg.insts(b) {
            let inst = body.inst(i);
            if !addresses_per_thread(inst) {
                continue;
            }
            if let Some(r) = address_base(inst).filter(|&r| off_file(r)) {
                users.entry(r).or_default().push(i);
            }
        }
    }
    if users.is_empty() {
        return None;
    }
    let dom = DomTree::compute(cfg);
    let position = body.stmt_positions();
    let mut out = body.clone();
    let mut origin: Vec<usize> = (0..body.regs.len()).collect();
    // Per statement position, the copies to insert before it.
    let mut inserts: HashMap<usize, Vec<Inst>> = HashMap::new();
    for (r, accesses) in users {
        let home = accesses
            .iter()
            .filter_map(|&i| cfg.block_of(i))
            .reduce(|a, b| common_dominator(&dom, a, b))?;
        let before = cfg
            .insts(home)
            .iter()
            .copied()
            .find(|i| accesses.contains(i))
            .or_else(|| cfg.terminator(body, home))
            .or_else(|| cfg.insts(home).last().copied())?;
        let name = format!("{}$addr", body.reg_name(r));
        let copy = out.add_reg(&name, body.reg(r).ty);
        origin.push(r.index());
        let mov = Inst::new(out.insts.len());
        out.insts.push(InstData {
            guard: None,
            opcode: Opcode::Mov,
            mods: vec![Modifier::Type(body.reg(r).ty.ty)].into(),
            operands: vec![Operand::Reg(copy), Operand::Reg(r)].into(),
            loc: Loc::default(),
        });
        inserts.entry(position[&before]).or_default().push(mov);
        for &i in &accesses {
            for o in out.insts[i.index()].operands.iter_mut() {
                if let Operand::Addr(a) = o {
                    if a.base == AddrBase::Reg(r) {
                        a.base = AddrBase::Reg(copy);
                    }
                }
            }
        }
    }
    out.insert_before_positions(&inserts);
    Some(Materialised { body: out, origin })
}

/// The largest offset folded into an address (SASS memory instructions take a signed 24-bit
/// immediate offset).
const MAX_FOLDED_OFFSET: i64 = (1 << 23) - 1;

/// `body` with every 64-bit register that is another register plus a constant, and is only ever
/// an address, folded into the addresses that use it (`add.s64 %rd4, %rd3, 16; ld [%rd4]`
/// becomes `ld [%rd3+16]`), as ptxas does: SASS addresses carry an immediate offset, so
/// Triton's layer norm reads its eight `ld.global.v4`s of weights and biases through two
/// register pairs where the PTX computes eight. `None` when nothing folds. Both registers must
/// have one definition, so the base holds the same value at every use.
pub fn fold_offsets(body: &Body) -> Option<Body> {
    use crate::ptx::ir::{Imm, Type};
    use crate::ptx::roles;
    let n = body.regs.len();
    let definitions = roles::definition_counts(body);
    // Per register, whether a use is anything but the base of an address.
    let mut other_use = vec![false; n];
    for i in body.inst_order() {
        let inst = body.inst(i);
        let defs = roles::defs(inst);
        for (k, o) in inst.operands.iter().enumerate() {
            match o {
                Operand::Addr(_) => {}
                Operand::Reg(r) if k == 0 && defs.contains(r) => {}
                o => o.for_each_reg(&mut |r| other_use[r.index()] = true),
            }
        }
    }
    // Per folded register: its base and offset, and the instruction that computed it.
    let mut folded: BTreeMap<Reg, (Reg, i64, Inst)> = BTreeMap::new();
    for i in body.inst_order() {
        let inst = body.inst(i);
        let sign = match inst.opcode {
            Opcode::Add => 1,
            Opcode::Sub => -1,
            _ => continue,
        };
        if inst.guard.is_some() || !matches!(inst.ty(), Some(Type::S64 | Type::U64 | Type::B64)) {
            continue;
        }
        let (Some(Operand::Reg(d)), Some(Operand::Reg(base)), Some(Operand::Imm(imm))) = (
            inst.operands.first(),
            inst.operands.get(1),
            inst.operands.get(2),
        ) else {
            continue;
        };
        let offset = match imm {
            Imm::Int { value, .. } => *value,
            _ => continue,
        };
        if definitions[d.index()] == 1
            && definitions[base.index()] == 1
            && !other_use[d.index()]
            && d != base
            && (sign * offset).abs() <= MAX_FOLDED_OFFSET
        {
            folded.insert(*d, (*base, sign * offset, i));
        }
    }
    // A base that is itself a sum of a register and a constant is not folded: the `add` that
    // reads it is a use other than an address.
    if folded.is_empty() {
        return None;
    }
    let mut out = body.clone();
    for inst in out.insts.iter_mut() {
        for o in inst.operands.iter_mut() {
            if let Operand::Addr(a) = o {
                if let AddrBase::Reg(r) = a.base {
                    if let Some(&(base, offset, _)) = folded.get(&r) {
                        a.base = AddrBase::Reg(base);
                        a.offset += offset;
                    }
                }
            }
        }
    }
    let gone: Vec<Inst> = folded.values().map(|&(_, _, i)| i).collect();
    out.stmts
        .retain(|s| !matches!(s, Stmt::Inst(i) if gone.contains(i)));
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptx::parse_module;
    use crate::ptx::printer::print_inst;

    fn body_of(text: &str) -> Body {
        let ptx = format!(
            ".version 8.0\n.target sm_80\n.address_size 64\n\
             .visible .entry k(.param .u64 p)\n{{\n{text}\n}}\n"
        );
        let m = parse_module(&ptx, "t.ptx").expect("test PTX parses");
        let f = m.functions().next().expect("one kernel");
        f.body.clone().expect("a body")
    }

    /// The registers named `names`, in `body`.
    fn regs(body: &Body, names: &[&str]) -> Vec<Reg> {
        names
            .iter()
            .map(|n| {
                let k = (0..body.regs.len())
                    .find(|&k| body.reg_name(Reg::new(k)) == *n)
                    .expect("the register exists");
                Reg::new(k)
            })
            .collect()
    }

    /// Offsets from one register fold into the addresses; a sum another sum reads, a sum of two
    /// registers and a register with two definitions stay.
    #[test]
    fn constant_offsets_fold_into_the_addresses() {
        let body = body_of(
            ".reg .b32 %r<4>;\n.reg .b64 %rd<10>;\n\
             ld.param.u64 %rd0, [p];\ncvta.to.global.u64 %rd1, %rd0;\n\
             mov.u32 %r0, %tid.x;\nmul.wide.u32 %rd2, %r0, 4;\nadd.s64 %rd3, %rd1, %rd2;\n\
             add.s64 %rd4, %rd3, 16;\nld.global.u32 %r1, [%rd4];\nst.global.u32 [%rd4+4], %r1;\n\
             sub.s64 %rd5, %rd3, 8;\nld.global.u32 %r2, [%rd5];\n\
             add.s64 %rd6, %rd3, 32;\nadd.s64 %rd7, %rd6, %rd2;\nld.global.u32 %r3, [%rd7];\n\
             add.s64 %rd8, %rd3, 64;\nadd.s64 %rd8, %rd8, 4;\nst.global.u32 [%rd8], %r3;\n\
             st.global.u32 [%rd6], %r2;\nret;",
        );
        let out = fold_offsets(&body).expect("two sums fold");
        let text: Vec<String> = out
            .inst_order()
            .map(|i| {
                print_inst(&out, i)
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        for line in [
            "ld.global.u32 %r1, [%rd3+16];",
            "st.global.u32 [%rd3+20], %r1;",
            "ld.global.u32 %r2, [%rd3+-8];",
            "add.s64 %rd6, %rd3, 32;",
            "st.global.u32 [%rd6], %r2;",
            "ld.global.u32 %r3, [%rd7];",
            "st.global.u32 [%rd8], %r3;",
        ] {
            assert!(text.iter().any(|t| t == line), "{line} in {text:?}");
        }
        assert!(
            !text.iter().any(|t| t.starts_with("add.s64 %rd4")),
            "{text:?}"
        );
        assert!(
            !text.iter().any(|t| t.starts_with("sub.s64 %rd5")),
            "{text:?}"
        );
    }

    /// The CAS loop of bench/kernels/atomics_cas.cu: the parameter pointer is read before the
    /// loop and by the atomic in it, so one copy goes before the first read and both read it;
    /// the shared access and the per-thread address are left alone.
    #[test]
    fn a_parameter_pointer_is_copied_once_before_its_first_global_access() {
        let body = body_of(
            ".reg .pred %p;\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n.shared .b32 s[32];\n\
             ld.param.u64 %rd0, [p];\ncvta.to.global.u64 %rd1, %rd0;\n\
             mov.u32 %r0, %tid.x;\nmul.wide.u32 %rd2, %r0, 4;\nadd.s64 %rd3, %rd1, %rd2;\n\
             ld.global.u32 %r1, [%rd3];\nld.global.u32 %r2, [%rd1];\n\
             L: atom.global.cas.b32 %r3, [%rd1], %r2, %r1;\n\
             st.shared.u32 [s], %r3;\nsetp.ne.u32 %p, %r3, %r2;\nmov.u32 %r2, %r3;\n\
             @%p bra L;\nret;",
        );
        let cfg = Cfg::compute(&body);
        let [rd1, rd3] = regs(&body, &["%rd1", "%rd3"])[..] else {
            unreachable!()
        };
        let m = materialise(&body, &cfg, |r| r == rd1).expect("one pointer is copied");
        assert_eq!(m.body.regs.len(), body.regs.len() + 1);
        let copy = Reg::new(body.regs.len());
        assert_eq!(m.origin[copy.index()], rd1.index());
        let text: Vec<String> = m
            .body
            .inst_order()
            .map(|i| {
                print_inst(&m.body, i)
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        let at = |line: &str| {
            text.iter()
                .position(|t| t == line)
                .unwrap_or_else(|| panic!("{line} in {text:?}"))
        };
        let mov = at("mov.b64 %rd1$addr, %rd1;");
        assert_eq!(mov + 1, at("ld.global.u32 %r2, [%rd1$addr];"), "{text:?}");
        at("atom.global.cas.b32 %r3, [%rd1$addr], %r2, %r1;");
        at("ld.global.u32 %r1, [%rd3];");
        at("st.shared.u32 [s], %r3;");
        // Nothing to copy when every pointer global accesses read is per-thread.
        assert!(materialise(&body, &cfg, |r| r != rd1 && r != rd3).is_none());
    }
}
