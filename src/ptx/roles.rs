//! Which operands an instruction reads and writes, and which other effects it has (memory, barriers,
//! control flow, the carry flag).
//!
//! Every analysis asks this module — never the opcode directly — so that an instruction the IR does
//! not model ([`Opcode::Other`]), or a form of a modelled opcode this module does not recognise (an
//! unknown `mbarrier.*` sub-operation, say), is treated conservatively in one place: all its register
//! operands are read *and* may be written ([`Role::UseDef`]), and it may touch any memory,
//! synchronise and have side effects ([`Effects::conservative`]).
//!
//! The tables follow the PTX ISA (8.7 and 9.0), chapter 9.7 "Instructions", section by section:
//! integer, extended-precision, floating-point, half-precision and mixed-precision arithmetic;
//! comparison and selection; logic and shift; data movement and conversion (`mov`, `shfl`, `prmt`,
//! `ld`, `ldu`, `st`, `st.async`, `st.bulk`, `multimem`, `prefetch`, `applypriority`, `discard`,
//! `createpolicy`, `isspacep`, `cvta`, `cvt`, `cvt.pack`, `mapa`, `getctarank`, `cp.async*`,
//! `cp.reduce.async.bulk*`, `tensormap.*`); texture (`tex`, `tld4`, `txq`, `istypep`) and surface
//! (`suld`, `sust`, `sured`, `suq`) instructions; control flow (`bra`, `brx.idx`, `call`, `ret`,
//! `exit`); parallel synchronisation and communication (`bar`, `barrier`, `bar.warp.sync`,
//! `barrier.cluster`, `membar`, `fence`, `atom`, `red`, `red.async`, `vote`, `match`, `activemask`,
//! `redux`, `griddepcontrol`, `elect`, `mbarrier.*`, `clusterlaunchcontrol.*`); warp-level matrix
//! instructions (`wmma.*`, `mma`, `mma.sp`, `ldmatrix`, `stmatrix`, `movmatrix`); warpgroup-level
//! `wgmma.*`; the `tcgen05.*` family; stack manipulation (`stacksave`, `stackrestore`, `alloca`);
//! video instructions (`vadd`…`vset4`); miscellaneous (`trap`, `brkpt`, `pmevent`, `nanosleep`,
//! `setmaxnreg`). Strong and volatile memory operations follow chapter 8 "Memory Consistency Model".
//!
//! Conventions:
//! - Roles are per operand position, as written ([`operand_roles`]). Elements of a vector `{…}`,
//!   a `call` list `(…)` and a pair `a|b` inherit the role of their position; registers inside an
//!   address `[…]` (or the bracketed texture/surface forms) are always read, whatever the position's
//!   role ([`for_each_reg_role`]). Labels and the sink `_` have [`Role::None`].
//! - Results written asynchronously (`wgmma.mma_async`, `tcgen05.ld`) are still reported as
//!   written at the instruction; [`Effects::async_defs`] tells transforms that the registers may not
//!   be touched until the matching wait.

use super::ir::{
    Body, Guard, InstData, Label, Modifier, Opcode, Operand, Reg, SpecialOperand, SpecialReg,
    StateSpace,
};

/// What an instruction does with one operand position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// Written (registers inside an address operand are still read).
    Def,
    /// Read.
    Use,
    /// Read and written (accumulators, conservative opaque operands).
    UseDef,
    /// Neither (labels, symbols, sinks, call prototypes).
    None,
}

/// How the operand positions of one instruction form are used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    /// The first `n` operands are written, the others read.
    Defs(usize),
    /// Every operand is read.
    AllUse,
    /// The first operand is read and written (an accumulator), the others read.
    AccFirst,
    /// `call`: `[(rets),] target [, (params)] [, prototype]`.
    Call,
    /// Not understood: every operand may be read and written.
    Opaque,
}

/// The first word modifier: the sub-operation of `mbarrier.arrive`, `wmma.load`, `cp.async`, …
fn first_word(inst: &InstData) -> Option<&str> {
    inst.mods.iter().find_map(|m| match m {
        Modifier::Word(w) => Some(&**w),
        _ => None,
    })
}

/// The operand shape of `inst`, or `None` when the opcode/sub-operation is not recognised.
fn shape(inst: &InstData) -> Option<Shape> {
    use Opcode::*;
    let sub = first_word(inst);
    let s = match &inst.opcode {
        // Arithmetic, comparison, logic, conversion, special-function and video instructions all
        // write their first operand (`setp p|q`, `shfl d|p`, `lop3 d|p`, `mov {a,b}, d` unpack:
        // the whole first operand) and read the rest.
        Add | Sub | Mul | Mad | Mul24 | Mad24 | Sad | Div | Rem | Abs | Neg | Min | Max | Popc
        | Clz | Bfind | Fns | Brev | Bfe | Bfi | Szext | Bmsk | Dp4a | Dp2a | Addc | Subc
        | Madc | Testp | Copysign | Fma | Rcp | Sqrt | Rsqrt | Sin | Cos | Lg2 | Ex2 | Tanh
        | Set | Setp | Selp | Slct | And | Or | Xor | Not | Cnot | Lop3 | Shf | Shl | Shr | Mov
        | Shfl | Prmt | Cvt | Cvta | Isspacep | Mapa | Getctarank | Createpolicy | Movmatrix
        | Stacksave | Alloca | Vadd | Vsub | Vabsdiff | Vmin | Vmax | Vshl | Vshr | Vmad | Vset
        | Vadd2 | Vsub2 | Vavrg2 | Vabsdiff2 | Vmin2 | Vmax2 | Vset2 | Vadd4 | Vsub4 | Vavrg4
        | Vabsdiff4 | Vmin4 | Vmax4 | Vset4 => Shape::Defs(1),
        // Loads and the other instructions whose first operand is the result.
        Ld | Ldu | Ldmatrix | Atom | Tex | Tld4 | Txq | Istypep | Suld | Suq | Vote | Match
        | Activemask | Redux | Elect | Mma => Shape::Defs(1),
        // Stores, reductions without a result, prefetches, fences, control and misc.
        St | Red | Stmatrix | Sust | Sured | Prefetch | Prefetchu | Applypriority | Discard
        | Membar | Fence | Griddepcontrol | Nanosleep | Setmaxnreg | Stackrestore | Bra | Brx
        | Ret | Exit | Trap | Brkpt | Pmevent => Shape::AllUse,
        Call => Shape::Call,
        // `bar.red` / `barrier.red` write d (or p); `bar.sync`, `bar.arrive`, `bar.warp.sync`,
        // `barrier.cluster.*` only read.
        Bar | Barrier => {
            if inst.has_word("red") {
                Shape::Defs(1)
            } else {
                Shape::AllUse
            }
        }
        Mbarrier => match sub? {
            "init" | "inval" | "expect_tx" | "complete_tx" => Shape::AllUse,
            // `arrive*` write the state (or `_`), the waits write waitComplete, pending_count count.
            "arrive" | "arrive_drop" | "test_wait" | "try_wait" | "pending_count" => Shape::Defs(1),
            _ => return None,
        },
        Multimem => match sub? {
            "ld_reduce" => Shape::Defs(1),
            "st" | "red" | "cp" => Shape::AllUse,
            _ => return None,
        },
        Cp => match sub? {
            // cp.async, cp.async.bulk{,.tensor,.prefetch}, commit/wait groups, cp.async.mbarrier,
            // cp.reduce.async.bulk{,.tensor}: no register results.
            "async" | "reduce" => Shape::AllUse,
            _ => return None,
        },
        Tensormap => match sub? {
            "replace" | "cp_fenceproxy" => Shape::AllUse,
            _ => return None,
        },
        Clusterlaunchcontrol => match sub? {
            "try_cancel" => Shape::AllUse,
            "query_cancel" => Shape::Defs(1),
            _ => return None,
        },
        Wmma => match sub? {
            "load" | "mma" => Shape::Defs(1),
            "store" => Shape::AllUse,
            _ => return None,
        },
        Wgmma => match sub? {
            // d = A·B + (scale-d ? d : 0): d is read unless scale-d is false, and written
            // asynchronously; UseDef is the only safe answer.
            "mma_async" => Shape::AccFirst,
            "fence" | "commit_group" | "wait_group" => Shape::AllUse,
            _ => return None,
        },
        Tcgen05 => match sub? {
            // `tcgen05.ld.red … r, redval, [taddr]` writes both r and redval.
            "ld" if inst.has_word("red") => Shape::Defs(2),
            "ld" => Shape::Defs(1),
            "alloc"
            | "dealloc"
            | "relinquish_alloc_permit"
            | "st"
            | "mma"
            | "commit"
            | "cp"
            | "shift"
            | "wait::ld"
            | "wait::st"
            | "fence::before_thread_sync"
            | "fence::after_thread_sync" => Shape::AllUse,
            _ => return None,
        },
        Other(_) => return None,
        #[allow(unreachable_patterns)]
        _ => return None,
    };
    Some(s)
}

/// Roles of the operands of `call{.uni} [(rets),] target [, (params)] [, prototype-or-targets]`.
fn call_roles(ops: &[Operand]) -> Vec<Role> {
    let mut roles = Vec::with_capacity(ops.len());
    let mut i = 0;
    if matches!(ops.first(), Some(Operand::List(_))) {
        roles.push(Role::Def);
        i = 1;
    }
    if i < ops.len() {
        // The callee: a function symbol or, for an indirect call, a register that is read.
        roles.push(Role::Use);
        i += 1;
    }
    if matches!(ops.get(i), Some(Operand::List(_))) {
        roles.push(Role::Use);
    }
    // `.callprototype` / `.calltargets` labels.
    roles.resize(ops.len(), Role::None);
    roles
}

/// The role of every operand of `inst`, one per operand, in order.
pub fn operand_roles(inst: &InstData) -> Vec<Role> {
    let n = inst.operands.len();
    let mut roles: Vec<Role> = match shape(inst).unwrap_or(Shape::Opaque) {
        Shape::Defs(k) => (0..n)
            .map(|i| if i < k { Role::Def } else { Role::Use })
            .collect(),
        Shape::AllUse => vec![Role::Use; n],
        Shape::AccFirst => (0..n)
            .map(|i| if i == 0 { Role::UseDef } else { Role::Use })
            .collect(),
        Shape::Call => call_roles(&inst.operands),
        Shape::Opaque => vec![Role::UseDef; n],
    };
    for (role, op) in roles.iter_mut().zip(&inst.operands) {
        if matches!(op, Operand::Label(_) | Operand::Sink) {
            *role = Role::None;
        }
    }
    roles
}

/// How many of `inst`'s leading operands are its results: written, or a sink `_` in a
/// result position. A vector `{%r1, %r2}` is one operand, so `mov.b32 {%rs1, %rs2}, %r3;` has
/// one result operand defining two registers.
pub fn result_operand_count(inst: &InstData) -> usize {
    operand_roles(inst)
        .iter()
        .take_while(|r| matches!(r, Role::Def | Role::None))
        .count()
}

/// The operands after `inst`'s results ([`result_operand_count`]): what it reads by value.
pub fn source_operands(inst: &InstData) -> &[Operand] {
    inst.operands
        .get(result_operand_count(inst)..)
        .unwrap_or_default()
}

/// Calls `f(reg, role)` for every register the instruction touches: the guard and registers inside
/// addresses as [`Role::Use`], the others with their operand's role.
pub fn for_each_reg_role(inst: &InstData, mut f: impl FnMut(Reg, Role)) {
    if let Some(Guard { reg, .. }) = inst.guard {
        f(reg, Role::Use);
    }
    for (op, role) in inst.operands.iter().zip(operand_roles(inst)) {
        visit(op, role, &mut f);
    }
}

fn visit(op: &Operand, role: Role, f: &mut impl FnMut(Reg, Role)) {
    match op {
        Operand::Addr(_) | Operand::Bracket(_) => op.for_each_reg(&mut |r| f(r, Role::Use)),
        Operand::Vector(v) | Operand::List(v) => v.iter().for_each(|o| visit(o, role, f)),
        Operand::Pair(a, b) => {
            visit(a, role, f);
            visit(b, role, f);
        }
        Operand::Reg(r)
        | Operand::RegOffset(r, _)
        | Operand::NotReg(r)
        | Operand::RegComponent(r, _) => {
            if role != Role::None {
                f(*r, role)
            }
        }
        Operand::Special(_)
        | Operand::Imm(_)
        | Operand::Sym(_)
        | Operand::SymOffset(..)
        | Operand::Label(_)
        | Operand::Sink => {}
    }
}

/// The registers `inst` writes (with [`Role::Def`] or [`Role::UseDef`]).
pub fn defs(inst: &InstData) -> Vec<Reg> {
    let mut v = Vec::new();
    for_each_reg_role(inst, |r, role| {
        if matches!(role, Role::Def | Role::UseDef) {
            v.push(r)
        }
    });
    v
}

/// Per register of `body`, how many of its instructions write it ([`defs`]).
pub fn definition_counts(body: &Body) -> Vec<u32> {
    let mut counts = vec![0u32; body.regs.len()];
    for i in body.inst_order() {
        for d in defs(body.inst(i)) {
            counts[d.index()] += 1;
        }
    }
    counts
}

/// The registers `inst` reads (with [`Role::Use`] or [`Role::UseDef`]), the guard included.
pub fn uses(inst: &InstData) -> Vec<Reg> {
    let mut v = Vec::new();
    for_each_reg_role(inst, |r, role| {
        if matches!(role, Role::Use | Role::UseDef) {
            v.push(r)
        }
    });
    v
}

/// True when a write by `inst` replaces the register's whole old value on every execution: the
/// instruction has no guard and the operand is a plain [`Role::Def`]. Liveness kills only such defs
/// (a [`Role::UseDef`] operand never kills: callers check the role as well).
///
/// Every plain `Def` in the tables writes its whole register: partial-looking forms (`mov.b64
/// {%r1,%r2}, %rd` unpack, video `d.dsel`/`d.mask` merges, which take the other bits from `c`,
/// `cvt.pack`, `bfi`) all define every bit.
pub fn def_kills(inst: &InstData) -> bool {
    inst.guard.is_none() || inst.has_word(SPECULATED)
}

/// The modifier word the register model's if-conversion puts on a guarded instruction whose
/// destination is not needed where its guard is false
/// ([`crate::analysis::if_conversion`]): its definition ends the live range above it, as an
/// unguarded one does. Never printed; PTX has no such modifier.
pub const SPECULATED: &str = "ws_speculated";

/// The level at which an instruction synchronises or communicates with other threads. Ordered:
/// a higher level includes the lower ones.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Sync {
    /// No communication with other threads (apart from through memory).
    #[default]
    None,
    /// Within a warp: `shfl.sync`, `vote`, `match`, `redux.sync`, `elect.sync`, `activemask`,
    /// `bar.warp.sync`, the warp-collective `.sync.aligned` matrix instructions.
    Warp,
    /// Within a CTA (or a warpgroup, which has no level of its own): `bar`, `barrier`,
    /// `mbarrier.*`, `wgmma.*`, `setmaxnreg`.
    Block,
    /// Within a cluster: `barrier.cluster.*`, `.cluster`-scoped `mbarrier` operations,
    /// `tcgen05` with `.cta_group::2`.
    Cluster,
    /// Across grids: `griddepcontrol.*`; also what a call or an unknown instruction may do.
    Grid,
}

/// How an instruction changes the flow of control.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Control {
    /// Falls through to the next instruction.
    #[default]
    None,
    /// `bra`: a direct branch to a label ([`branch_targets`]).
    Branch,
    /// `brx.idx`: an indirect branch through a `.branchtargets` table.
    IndirectBranch,
    /// `call`: returns to the next instruction.
    Call,
    /// `ret`.
    Return,
    /// `exit`.
    Exit,
    /// `trap`: aborts the kernel.
    Trap,
}

/// What an instruction does besides reading and writing its register operands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Effects {
    /// Reads memory (any state space, including `.param`, texture and tensor memory).
    pub mem_read: bool,
    /// Writes memory.
    pub mem_write: bool,
    /// The state space touched when it is known and single (`ld.global`: `Global`; `tex`, `suld`:
    /// `Global`); `None` when generic, unknown or several (`cp.async.shared.global`).
    pub space: Option<StateSpace>,
    /// Synchronisation with other threads.
    pub sync: Sync,
    /// Control flow.
    pub control: Control,
    /// Reads the carry flag (`addc`, `subc`, `madc`).
    pub reads_cc: bool,
    /// Writes the carry flag (`.cc` forms; a call clobbers it).
    pub writes_cc: bool,
    /// Must never be removed, duplicated or moved across other side-effecting instructions: stores,
    /// atomics, strong or volatile loads, fences, barriers, asynchronous copies and their waits,
    /// prefetch hints, `nanosleep`, `pmevent`, `trap`, control flow, reads of `%clock`-like
    /// registers, the stack instructions.
    pub side_effects: bool,
    /// Register results are written asynchronously (`wgmma.mma_async` until `wgmma.wait_group`,
    /// `tcgen05.ld` until `tcgen05.wait::ld`): they, and the sources of `wgmma`, must not be read,
    /// written, moved or spilled between the instruction and its wait.
    pub async_defs: bool,
    /// Not understood: assume anything ([`Effects::conservative`]).
    pub opaque: bool,
}

impl Effects {
    /// The answer for an instruction nothing is known about: reads and writes any memory,
    /// synchronises at every level, reads and writes the carry flag, has side effects.
    pub fn conservative() -> Effects {
        Effects {
            mem_read: true,
            mem_write: true,
            space: None,
            sync: Sync::Grid,
            control: Control::None,
            reads_cc: true,
            writes_cc: true,
            side_effects: true,
            async_defs: true,
            opaque: true,
        }
    }
    /// True when the instruction touches memory at all.
    pub fn touches_memory(&self) -> bool {
        self.mem_read || self.mem_write
    }
}

/// The one state space named by the modifiers, if exactly one is named (possibly several times).
fn single_space(inst: &InstData) -> Option<StateSpace> {
    let mut it = inst.mods.iter().filter_map(|m| match m {
        Modifier::Space(s) => Some(*s),
        _ => None,
    });
    let first = it.next()?;
    it.all(|s| s == first).then_some(first)
}

/// Strong (`.relaxed`, `.acquire`, `.release`, `.acq_rel`), volatile or MMIO memory operations
/// (and `ld.cv`, which re-fetches on every execution), which may not be removed or duplicated.
fn is_strong(inst: &InstData) -> bool {
    [
        "volatile", "relaxed", "acquire", "release", "acq_rel", "mmio", "cv",
    ]
    .iter()
    .any(|w| inst.has_word(w))
}

/// True when an operand reads a special register whose value changes between two reads
/// (`%clock*`, `%globaltimer*`, `%pm*`, and `%warpid`/`%smid`, which may change on preemption).
fn reads_volatile_special(inst: &InstData) -> bool {
    fn volatile(op: &Operand) -> bool {
        match op {
            Operand::Special(SpecialOperand::Pm { .. }) => true,
            Operand::Special(SpecialOperand::Named(r, _)) => matches!(
                r,
                SpecialReg::Clock
                    | SpecialReg::ClockHi
                    | SpecialReg::Clock64
                    | SpecialReg::Globaltimer
                    | SpecialReg::GlobaltimerLo
                    | SpecialReg::GlobaltimerHi
                    | SpecialReg::Warpid
                    | SpecialReg::Smid
            ),
            Operand::Vector(v) | Operand::List(v) | Operand::Bracket(v) => v.iter().any(volatile),
            Operand::Pair(a, b) => volatile(a) || volatile(b),
            _ => false,
        }
    }
    inst.operands.iter().any(volatile)
}

/// Memory effects with the space taken from the modifiers.
fn mem(inst: &InstData, read: bool, write: bool) -> Effects {
    Effects {
        mem_read: read,
        mem_write: write,
        space: single_space(inst),
        ..Effects::default()
    }
}

/// A memory access with side effects (stores, atomics, asynchronous copies, fences).
fn mem_side(inst: &InstData, read: bool, write: bool) -> Effects {
    Effects {
        side_effects: true,
        ..mem(inst, read, write)
    }
}

/// Effects of a barrier-like operation: orders all memory, synchronises at `sync`.
fn barrier(sync: Sync) -> Effects {
    Effects {
        mem_read: true,
        mem_write: true,
        sync,
        side_effects: true,
        ..Effects::default()
    }
}

/// The effects of `inst` other than its register operands (see [`Effects`]).
pub fn effects(inst: &InstData) -> Effects {
    use Opcode::*;
    if shape(inst).is_none() {
        // `Opcode::Other`, or a sub-operation not recognised.
        let mut e = Effects::conservative();
        if let Call = inst.opcode {
            e.control = Control::Call;
        }
        return e;
    }
    let sub = first_word(inst).unwrap_or("");
    let mut e = match &inst.opcode {
        Add | Sub | Mad => Effects {
            writes_cc: inst.has_word("cc"),
            ..Effects::default()
        },
        Addc | Subc | Madc => Effects {
            reads_cc: true,
            writes_cc: inst.has_word("cc"),
            ..Effects::default()
        },
        Mul | Mul24 | Mad24 | Sad | Div | Rem | Abs | Neg | Min | Max | Popc | Clz | Bfind
        | Fns | Brev | Bfe | Bfi | Szext | Bmsk | Dp4a | Dp2a | Testp | Copysign | Fma | Rcp
        | Sqrt | Rsqrt | Sin | Cos | Lg2 | Ex2 | Tanh | Set | Setp | Selp | Slct | And | Or
        | Xor | Not | Cnot | Lop3 | Shf | Shl | Shr | Mov | Prmt | Cvt | Cvta | Isspacep | Mapa
        | Getctarank | Createpolicy | Txq | Istypep | Suq | Vadd | Vsub | Vabsdiff | Vmin
        | Vmax | Vshl | Vshr | Vmad | Vset | Vadd2 | Vsub2 | Vavrg2 | Vabsdiff2 | Vmin2 | Vmax2
        | Vset2 | Vadd4 | Vsub4 | Vavrg4 | Vabsdiff4 | Vmin4 | Vmax4 | Vset4 => Effects::default(),
        // Warp-level communication without memory.
        Shfl | Vote | Match | Redux | Elect | Activemask | Movmatrix => Effects {
            sync: Sync::Warp,
            ..Effects::default()
        },
        Ld | Ldu => Effects {
            side_effects: is_strong(inst),
            ..mem(inst, true, false)
        },
        St => {
            // `st.async` also signals an mbarrier (a read-modify-write of it).
            let is_async = inst.has_word("async");
            Effects {
                sync: if is_async { Sync::Cluster } else { Sync::None },
                ..mem_side(inst, is_async, true)
            }
        }
        Atom | Red => {
            let sync = if inst.has_word("async") {
                Sync::Cluster
            } else {
                Sync::None
            };
            Effects {
                sync,
                ..mem_side(inst, true, true)
            }
        }
        Multimem => match sub {
            "ld_reduce" => Effects {
                side_effects: true,
                space: Some(StateSpace::Global),
                ..mem(inst, true, false)
            },
            "st" => Effects {
                space: Some(StateSpace::Global),
                ..mem_side(inst, false, true)
            },
            _ => mem_side(inst, true, true),
        },
        // Hints: no semantic memory access, but never removed.
        Prefetch | Prefetchu | Applypriority => Effects {
            side_effects: true,
            space: single_space(inst),
            ..Effects::default()
        },
        // The contents become undefined: a write.
        Discard => mem_side(inst, false, true),
        Cp | Tensormap => mem_side(inst, true, true),
        Ldmatrix => Effects {
            sync: Sync::Warp,
            ..mem(inst, true, false)
        },
        Stmatrix => Effects {
            sync: Sync::Warp,
            ..mem_side(inst, false, true)
        },
        Wmma => match sub {
            "load" => Effects {
                sync: Sync::Warp,
                ..mem(inst, true, false)
            },
            "store" => Effects {
                sync: Sync::Warp,
                ..mem_side(inst, false, true)
            },
            _ => Effects {
                sync: Sync::Warp,
                ..Effects::default()
            },
        },
        Mma => Effects {
            sync: Sync::Warp,
            ..Effects::default()
        },
        Wgmma => match sub {
            // Reads A/B from shared memory through the descriptors; writes d asynchronously.
            "mma_async" => Effects {
                mem_read: true,
                space: None,
                sync: Sync::Block,
                side_effects: true,
                async_defs: true,
                ..Effects::default()
            },
            _ => Effects {
                async_defs: sub == "wait_group",
                ..barrier(Sync::Block)
            },
        },
        Tcgen05 => {
            let sync = if inst
                .mods
                .iter()
                .any(|m| matches!(m, Modifier::Word(w) if &**w == "cta_group::2"))
            {
                Sync::Cluster
            } else if inst.has_word("sync") {
                Sync::Warp
            } else {
                Sync::None
            };
            Effects {
                sync,
                async_defs: sub == "ld",
                ..mem_side(inst, true, true)
            }
        }
        Tex | Tld4 | Suld => Effects {
            space: Some(StateSpace::Global),
            ..mem(inst, true, false)
        },
        Sust => Effects {
            space: Some(StateSpace::Global),
            ..mem_side(inst, false, true)
        },
        Sured => Effects {
            space: Some(StateSpace::Global),
            ..mem_side(inst, true, true)
        },
        Bra => Effects {
            control: Control::Branch,
            side_effects: true,
            ..Effects::default()
        },
        Brx => Effects {
            control: Control::IndirectBranch,
            side_effects: true,
            ..Effects::default()
        },
        Call => Effects {
            control: Control::Call,
            writes_cc: true,
            ..barrier(Sync::Grid)
        },
        Ret => Effects {
            control: Control::Return,
            side_effects: true,
            ..Effects::default()
        },
        Exit => Effects {
            control: Control::Exit,
            side_effects: true,
            ..Effects::default()
        },
        Trap => Effects {
            control: Control::Trap,
            side_effects: true,
            ..Effects::default()
        },
        Brkpt | Pmevent | Nanosleep | Stacksave | Stackrestore | Alloca => Effects {
            side_effects: true,
            ..Effects::default()
        },
        Bar | Barrier => {
            if inst.has_word("warp") {
                barrier(Sync::Warp)
            } else if inst.has_word("cluster") {
                barrier(Sync::Cluster)
            } else {
                barrier(Sync::Block)
            }
        }
        Membar | Fence => barrier(Sync::None),
        Mbarrier => {
            if sub == "pending_count" {
                // Decodes a state value held in a register.
                Effects::default()
            } else {
                let cluster = inst.has_word("cluster")
                    || single_space(inst) == Some(StateSpace::SharedCluster);
                Effects {
                    space: single_space(inst),
                    ..barrier(if cluster { Sync::Cluster } else { Sync::Block })
                }
            }
        }
        Griddepcontrol => barrier(Sync::Grid),
        // Warpgroup-wide register reconfiguration.
        Setmaxnreg => Effects {
            sync: Sync::Block,
            side_effects: true,
            ..Effects::default()
        },
        Clusterlaunchcontrol => match sub {
            "query_cancel" => Effects::default(),
            _ => Effects {
                space: single_space(inst),
                ..mem_side(inst, true, true)
            },
        },
        Other(_) => Effects::conservative(),
        #[allow(unreachable_patterns)]
        _ => Effects::conservative(),
    };
    if reads_volatile_special(inst) {
        e.side_effects = true;
    }
    e
}

/// True when `op` may transfer control elsewhere: a branch, `brx.idx`, `ret`, `exit`, `trap` or
/// `call` (guarded or not).
pub fn transfers_control(op: &Opcode) -> bool {
    matches!(
        op,
        Opcode::Bra | Opcode::Brx | Opcode::Ret | Opcode::Exit | Opcode::Trap | Opcode::Call
    )
}

/// True when control never falls through to the next instruction: an unguarded `bra`, `brx.idx`,
/// `ret`, `exit` or `trap`. (A guarded one may fall through; `call` returns.)
pub fn is_terminator(inst: &InstData) -> bool {
    inst.guard.is_none()
        && matches!(
            inst.opcode,
            Opcode::Bra | Opcode::Brx | Opcode::Ret | Opcode::Exit | Opcode::Trap
        )
}

/// The labels a `bra` may jump to. Empty for every other instruction, including `brx.idx`, whose
/// targets are the labels of the `.branchtargets` table its last operand names
/// ([`super::ir::Stmt::BranchTargets`]); the CFG builder resolves that table.
pub fn branch_targets(inst: &InstData) -> Vec<Label> {
    if inst.opcode != Opcode::Bra {
        return Vec::new();
    }
    inst.operands
        .iter()
        .filter_map(|op| match op {
            Operand::Label(l) => Some(*l),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptx::ir::{AddrBase, Address, Imm, Loc};

    // ---- hand-built instructions -------------------------------------------------------------

    /// `mk("setp.lt.s32", ops)`: opcode and dot-separated modifiers as written in PTX.
    fn mk(text: &str, operands: Vec<Operand>) -> InstData {
        let mut parts = text.split('.');
        let opcode = Opcode::from_name(parts.next().unwrap_or(""));
        let mods = parts.map(Modifier::parse).collect();
        InstData {
            guard: None,
            opcode,
            mods,
            operands: operands.into(),
            loc: Loc::default(),
        }
    }
    fn r(n: u32) -> Operand {
        Operand::Reg(Reg(n))
    }
    fn not(n: u32) -> Operand {
        Operand::NotReg(Reg(n))
    }
    fn imm(v: i64) -> Operand {
        Operand::Imm(Imm::Int {
            value: v,
            unsigned: false,
        })
    }
    fn sym(s: &str) -> Operand {
        Operand::Sym(s.into())
    }
    fn addr(n: u32) -> Operand {
        Operand::Addr(Address {
            base: AddrBase::Reg(Reg(n)),
            offset: 0,
        })
    }
    fn vec(v: Vec<Operand>) -> Operand {
        Operand::Vector(v)
    }
    fn list(v: Vec<Operand>) -> Operand {
        Operand::List(v)
    }
    fn pair(a: Operand, b: Operand) -> Operand {
        Operand::Pair(Box::new(a), Box::new(b))
    }
    fn regs(v: &[u32]) -> Vec<Reg> {
        v.iter().map(|&n| Reg(n)).collect()
    }
    /// Sorted defs and uses.
    fn du(i: &InstData) -> (Vec<Reg>, Vec<Reg>) {
        let (mut d, mut u) = (defs(i), uses(i));
        d.sort();
        u.sort();
        (d, u)
    }
    fn check(i: &InstData, d: &[u32], u: &[u32]) {
        assert_eq!(du(i), (regs(d), regs(u)), "{i:?}");
    }

    use Role::{Def as D, None as N, Use as U, UseDef as UD};

    #[test]
    fn arithmetic_writes_first_operand() {
        let i = mk("add.s32", vec![r(1), r(2), imm(3)]);
        assert_eq!(operand_roles(&i), [D, U, U]);
        check(&i, &[1], &[2]);
        assert_eq!(effects(&i), Effects::default());
        check(
            &mk("mad.lo.s32", vec![r(1), r(2), r(3), r(1)]),
            &[1],
            &[1, 2, 3],
        );
        check(
            &mk("lop3.b32", vec![r(1), r(2), r(3), r(4), imm(0x96)]),
            &[1],
            &[2, 3, 4],
        );
        check(
            &mk(
                "lop3.or.b32",
                vec![pair(r(1), r(9)), r(2), r(3), r(4), imm(0x96), not(8)],
            ),
            &[1, 9],
            &[2, 3, 4, 8],
        );
        check(
            &mk("bfi.b32", vec![r(1), r(2), r(3), r(4), imm(8)]),
            &[1],
            &[2, 3, 4],
        );
        check(
            &mk("fma.rn.f32", vec![r(1), r(2), r(3), r(4)]),
            &[1],
            &[2, 3, 4],
        );
        check(&mk("testp.finite.f32", vec![r(1), r(2)]), &[1], &[2]);
        check(
            &mk("cvt.pack.sat.u8.s32.b32", vec![r(1), r(2), r(3), r(4)]),
            &[1],
            &[2, 3, 4],
        );
        check(
            &mk(
                "cvt.rs.satfinite.e4m3x4.f32",
                vec![r(1), vec(vec![r(2), r(3), r(4), r(5)]), r(6)],
            ),
            &[1],
            &[2, 3, 4, 5, 6],
        );
    }

    #[test]
    fn carry_flag() {
        let e = effects(&mk("add.cc.u32", vec![r(1), r(2), r(3)]));
        assert!(e.writes_cc && !e.reads_cc);
        let e = effects(&mk("addc.cc.u32", vec![r(1), r(2), r(3)]));
        assert!(e.writes_cc && e.reads_cc);
        let e = effects(&mk("madc.hi.u32", vec![r(1), r(2), r(3), r(4)]));
        assert!(!e.writes_cc && e.reads_cc);
        let e = effects(&mk("mad.lo.cc.u32", vec![r(1), r(2), r(3), r(4)]));
        assert!(e.writes_cc && !e.reads_cc);
        assert!(!effects(&mk("add.u32", vec![r(1), r(2), r(3)])).writes_cc);
    }

    #[test]
    fn setp_pair_and_negated_sources() {
        let i = mk(
            "setp.lt.and.s32",
            vec![pair(r(1), r(2)), r(3), r(4), not(5)],
        );
        assert_eq!(operand_roles(&i), [D, U, U, U]);
        check(&i, &[1, 2], &[3, 4, 5]);
        check(
            &mk("setp.ne.s32", vec![pair(r(1), Operand::Sink), r(3), imm(0)]),
            &[1],
            &[3],
        );
    }

    #[test]
    fn mov_pack_and_unpack() {
        check(
            &mk("mov.b64", vec![r(1), vec(vec![r(2), r(3)])]),
            &[1],
            &[2, 3],
        );
        check(
            &mk("mov.b64", vec![vec(vec![r(2), r(3)]), r(1)]),
            &[2, 3],
            &[1],
        );
        check(
            &mk("mov.b32", vec![vec(vec![r(2), Operand::Sink]), r(1)]),
            &[2],
            &[1],
        );
        check(&mk("mov.u64", vec![r(1), sym("arr")]), &[1], &[]);
    }

    #[test]
    fn a_vector_result_is_one_operand() {
        let unpack = mk("mov.b32", vec![vec(vec![r(2), r(3)]), r(1)]);
        assert_eq!(result_operand_count(&unpack), 1);
        assert_eq!(source_operands(&unpack), [r(1)]);
        let setp = mk("setp.lt.s32", vec![pair(r(1), r(2)), r(3), imm(4)]);
        assert_eq!(source_operands(&setp), [r(3), imm(4)]);
        let atom = mk("atom.global.add.u32", vec![Operand::Sink, addr(5), r(6)]);
        assert_eq!(source_operands(&atom), [addr(5), r(6)]);
        let store = mk("st.global.u32", vec![addr(1), r(2)]);
        assert_eq!(result_operand_count(&store), 0);
        assert_eq!(source_operands(&store), [addr(1), r(2)]);
    }

    #[test]
    fn volatile_special_registers() {
        let clock = Operand::Special(SpecialOperand::Named(SpecialReg::Clock64, None));
        assert!(effects(&mk("mov.u64", vec![r(1), clock])).side_effects);
        let tid = Operand::Special(SpecialOperand::Named(SpecialReg::Tid, None));
        assert!(!effects(&mk("mov.u32", vec![r(1), tid])).side_effects);
        let pm = Operand::Special(SpecialOperand::Pm {
            index: 1,
            wide: false,
        });
        assert!(effects(&mk("mov.u32", vec![r(1), pm])).side_effects);
    }

    #[test]
    fn loads_and_stores() {
        let ld = mk(
            "ld.global.v4.f32",
            vec![vec(vec![r(1), r(2), r(3), r(4)]), addr(9)],
        );
        check(&ld, &[1, 2, 3, 4], &[9]);
        let e = effects(&ld);
        assert!(e.mem_read && !e.mem_write && !e.side_effects);
        assert_eq!(e.space, Some(StateSpace::Global));
        let ld = mk("ld.volatile.shared.u32", vec![r(1), addr(9)]);
        assert!(effects(&ld).side_effects);
        assert_eq!(effects(&ld).space, Some(StateSpace::Shared));
        assert!(effects(&mk("ld.acquire.gpu.global.u32", vec![r(1), addr(9)])).side_effects);
        let ld = mk("ld.global.L2::cache_hint.u32", vec![r(1), addr(9), r(7)]);
        check(&ld, &[1], &[7, 9]);
        let ld = mk("ld.u32", vec![r(1), addr(9)]);
        assert_eq!(effects(&ld).space, None);
        check(
            &mk(
                "ld.param.u64",
                vec![
                    r(1),
                    Operand::Addr(Address {
                        base: AddrBase::Sym("p".into()),
                        offset: 0,
                    }),
                ],
            ),
            &[1],
            &[],
        );
        check(&mk("ldu.global.f32", vec![r(1), addr(2)]), &[1], &[2]);

        let st = mk(
            "st.global.v4.f32",
            vec![addr(9), vec(vec![r(1), r(2), r(3), r(4)])],
        );
        assert_eq!(operand_roles(&st), [U, U]);
        check(&st, &[], &[1, 2, 3, 4, 9]);
        let e = effects(&st);
        assert!(!e.mem_read && e.mem_write && e.side_effects);
        let sta = mk(
            "st.async.shared::cluster.mbarrier::complete_tx::bytes.u32",
            vec![addr(1), r(2), addr(3)],
        );
        check(&sta, &[], &[1, 2, 3]);
        assert_eq!(effects(&sta).space, Some(StateSpace::SharedCluster));
        check(
            &mk("st.bulk.weak.shared::cta", vec![addr(1), r(2), imm(0)]),
            &[],
            &[1, 2],
        );
    }

    #[test]
    fn atomics_and_reductions() {
        let a = mk("atom.global.add.u32", vec![r(1), addr(2), r(3)]);
        assert_eq!(operand_roles(&a), [D, U, U]);
        check(&a, &[1], &[2, 3]);
        let e = effects(&a);
        assert!(e.mem_read && e.mem_write && e.side_effects);
        check(
            &mk("atom.global.cas.b32", vec![r(1), addr(2), r(3), r(4)]),
            &[1],
            &[2, 3, 4],
        );
        let red = mk("red.global.add.u32", vec![addr(2), r(3)]);
        check(&red, &[], &[2, 3]);
        assert!(effects(&red).mem_write && effects(&red).side_effects);
        check(
            &mk(
                "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32",
                vec![addr(1), r(2), addr(3)],
            ),
            &[],
            &[1, 2, 3],
        );
        let mm = mk(
            "multimem.ld_reduce.relaxed.sys.global.add.u32",
            vec![r(1), addr(2)],
        );
        check(&mm, &[1], &[2]);
        assert!(effects(&mm).mem_read);
        check(
            &mk("multimem.st.relaxed.sys.global.u32", vec![addr(2), r(1)]),
            &[],
            &[1, 2],
        );
        check(
            &mk(
                "multimem.red.relaxed.sys.global.add.u32",
                vec![addr(2), r(1)],
            ),
            &[],
            &[1, 2],
        );
    }

    #[test]
    fn calls() {
        let c = mk(
            "call.uni",
            vec![
                list(vec![sym("retval0")]),
                sym("foo"),
                list(vec![sym("param0"), r(5)]),
            ],
        );
        assert_eq!(operand_roles(&c), [D, U, U]);
        check(&c, &[], &[5]);
        let e = effects(&c);
        assert_eq!(e.control, Control::Call);
        assert!(e.mem_read && e.mem_write && e.side_effects && !e.opaque);
        // Indirect: the target register is read, the prototype is neither.
        let c = mk(
            "call",
            vec![list(vec![r(1)]), r(2), list(vec![r(3)]), sym("proto")],
        );
        assert_eq!(operand_roles(&c), [D, U, U, N]);
        check(&c, &[1], &[2, 3]);
        assert_eq!(operand_roles(&mk("call", vec![sym("foo")])), [U]);
        assert_eq!(
            operand_roles(&mk("call", vec![sym("foo"), list(vec![r(1)])])),
            [U, U]
        );
        assert_eq!(operand_roles(&mk("call", vec![])), []);
        assert!(!is_terminator(&c));
    }

    #[test]
    fn branches_and_terminators() {
        let bra = mk("bra.uni", vec![Operand::Label(Label(3))]);
        assert_eq!(operand_roles(&bra), [N]);
        assert_eq!(branch_targets(&bra), [Label(3)]);
        assert!(is_terminator(&bra));
        assert_eq!(effects(&bra).control, Control::Branch);
        let mut guarded = bra.clone();
        guarded.guard = Some(Guard {
            reg: Reg(7),
            negated: true,
        });
        assert!(!is_terminator(&guarded));
        assert_eq!(uses(&guarded), [Reg(7)]);
        let brx = mk("brx.idx", vec![r(1), Operand::Label(Label(0))]);
        assert_eq!(operand_roles(&brx), [U, N]);
        assert!(branch_targets(&brx).is_empty());
        assert!(is_terminator(&brx));
        assert_eq!(effects(&brx).control, Control::IndirectBranch);
        for (t, c) in [
            ("ret", Control::Return),
            ("exit", Control::Exit),
            ("trap", Control::Trap),
        ] {
            let i = mk(t, vec![]);
            assert!(is_terminator(&i), "{t}");
            assert_eq!(effects(&i).control, c);
            assert!(effects(&i).side_effects);
        }
        assert!(!is_terminator(&mk("brkpt", vec![])));
        assert!(!is_terminator(&mk("add.s32", vec![r(1), r(2), r(3)])));
    }

    #[test]
    fn guards_and_kills() {
        let mut i = mk("add.s32", vec![r(1), r(2), r(3)]);
        assert!(def_kills(&i));
        i.guard = Some(Guard {
            reg: Reg(9),
            negated: false,
        });
        assert!(!def_kills(&i));
        check(&i, &[1], &[2, 3, 9]);
    }

    #[test]
    fn warp_communication() {
        let s = mk(
            "shfl.sync.down.b32",
            vec![pair(r(1), r(2)), r(3), imm(1), imm(31), imm(-1)],
        );
        assert_eq!(operand_roles(&s), [D, U, U, U, U]);
        check(&s, &[1, 2], &[3]);
        assert_eq!(effects(&s).sync, Sync::Warp);
        assert!(!effects(&s).side_effects);
        check(
            &mk("vote.sync.ballot.b32", vec![r(1), not(2), imm(-1)]),
            &[1],
            &[2],
        );
        check(
            &mk("match.all.sync.b32", vec![pair(r(1), r(2)), r(3), imm(-1)]),
            &[1, 2],
            &[3],
        );
        check(
            &mk("match.any.sync.b32", vec![r(1), r(3), r(4)]),
            &[1],
            &[3, 4],
        );
        check(
            &mk("redux.sync.add.u32", vec![r(1), r(3), imm(-1)]),
            &[1],
            &[3],
        );
        check(
            &mk("elect.sync", vec![pair(Operand::Sink, r(2)), imm(-1)]),
            &[2],
            &[],
        );
        check(&mk("activemask.b32", vec![r(1)]), &[1], &[]);
        assert_eq!(effects(&mk("activemask.b32", vec![r(1)])).sync, Sync::Warp);
    }

    #[test]
    fn barriers_and_fences() {
        let b = mk("bar.sync", vec![imm(0)]);
        assert_eq!(operand_roles(&b), [U]);
        let e = effects(&b);
        assert_eq!(e.sync, Sync::Block);
        assert!(e.side_effects && e.mem_read && e.mem_write);
        check(&mk("bar.arrive", vec![r(1), r(2)]), &[], &[1, 2]);
        check(
            &mk("bar.red.popc.u32", vec![r(1), imm(0), not(2)]),
            &[1],
            &[2],
        );
        check(
            &mk("barrier.cta.red.or.pred", vec![r(1), imm(0), r(3), r(2)]),
            &[1],
            &[2, 3],
        );
        check(&mk("barrier.sync.aligned", vec![r(1)]), &[], &[1]);
        let w = mk("bar.warp.sync", vec![r(1)]);
        check(&w, &[], &[1]);
        assert_eq!(effects(&w).sync, Sync::Warp);
        assert_eq!(
            effects(&mk("barrier.cluster.arrive.release", vec![])).sync,
            Sync::Cluster
        );
        let f = effects(&mk("fence.acq_rel.gpu", vec![]));
        assert!(f.side_effects && f.mem_read && f.mem_write && f.sync == Sync::None);
        check(
            &mk(
                "fence.proxy.tensormap::generic.acquire.gpu",
                vec![addr(1), imm(128)],
            ),
            &[],
            &[1],
        );
        assert!(effects(&mk("membar.gl", vec![])).side_effects);
        let g = effects(&mk("griddepcontrol.wait", vec![]));
        assert_eq!(g.sync, Sync::Grid);
        assert!(effects(&mk("nanosleep.u32", vec![r(1)])).side_effects);
        check(&mk("nanosleep.u32", vec![r(1)]), &[], &[1]);
        assert!(effects(&mk("pmevent", vec![imm(1)])).side_effects);
        assert_eq!(
            effects(&mk("setmaxnreg.inc.sync.aligned.u32", vec![imm(240)])).sync,
            Sync::Block
        );
    }

    #[test]
    fn mbarrier_forms() {
        let init = mk("mbarrier.init.shared.b64", vec![addr(1), r(2)]);
        check(&init, &[], &[1, 2]);
        assert_eq!(effects(&init).space, Some(StateSpace::Shared));
        check(
            &mk("mbarrier.arrive.shared.b64", vec![r(3), addr(1)]),
            &[3],
            &[1],
        );
        check(
            &mk(
                "mbarrier.arrive.shared::cluster.b64",
                vec![Operand::Sink, addr(1), r(2)],
            ),
            &[],
            &[1, 2],
        );
        check(
            &mk(
                "mbarrier.arrive.expect_tx.shared::cta.b64",
                vec![r(3), addr(1), r(2)],
            ),
            &[3],
            &[1, 2],
        );
        check(
            &mk(
                "mbarrier.expect_tx.relaxed.cta.shared::cta.b64",
                vec![addr(1), r(2)],
            ),
            &[],
            &[1, 2],
        );
        check(
            &mk(
                "mbarrier.complete_tx.relaxed.cta.shared::cta.b64",
                vec![addr(1), r(2)],
            ),
            &[],
            &[1, 2],
        );
        check(&mk("mbarrier.inval.shared.b64", vec![addr(1)]), &[], &[1]);
        let w = mk(
            "mbarrier.try_wait.parity.shared::cta.b64",
            vec![r(4), addr(1), r(2), r(5)],
        );
        check(&w, &[4], &[1, 2, 5]);
        assert_eq!(effects(&w).sync, Sync::Block);
        assert!(effects(&w).side_effects);
        check(
            &mk("mbarrier.test_wait.shared.b64", vec![r(4), addr(1), r(2)]),
            &[4],
            &[1, 2],
        );
        let cl = mk(
            "mbarrier.try_wait.acquire.cluster.shared::cta.b64",
            vec![r(4), addr(1), r(2)],
        );
        assert_eq!(effects(&cl).sync, Sync::Cluster);
        let pc = mk("mbarrier.pending_count.b64", vec![r(1), r(2)]);
        check(&pc, &[1], &[2]);
        assert_eq!(effects(&pc), Effects::default());
        // An unknown sub-operation is opaque.
        let unk = mk("mbarrier.frobnicate.b64", vec![r(1), addr(2)]);
        assert_eq!(operand_roles(&unk), [UD, UD]);
        assert!(effects(&unk).opaque);
        assert!(effects(&mk("mbarrier", vec![])).opaque);
    }

    #[test]
    fn async_copies_and_tensormaps() {
        let c = mk("cp.async.ca.shared.global", vec![addr(1), addr(2), imm(16)]);
        check(&c, &[], &[1, 2]);
        let e = effects(&c);
        assert!(e.mem_read && e.mem_write && e.side_effects);
        assert_eq!(e.space, None, "two spaces");
        assert!(effects(&mk("cp.async.commit_group", vec![])).side_effects);
        assert!(effects(&mk("cp.async.wait_group", vec![imm(0)])).side_effects);
        let tensor = mk(
            "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes",
            vec![
                addr(1),
                Operand::Bracket(vec![sym("tmap"), vec(vec![r(2), r(3)])]),
                addr(4),
            ],
        );
        check(&tensor, &[], &[1, 2, 3, 4]);
        check(
            &mk(
                "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32",
                vec![addr(1), addr(2), r(3)],
            ),
            &[],
            &[1, 2, 3],
        );
        check(
            &mk("cp.async.mbarrier.arrive.b64", vec![addr(1)]),
            &[],
            &[1],
        );
        check(
            &mk(
                "tensormap.replace.tile.global_address.global.b1024.b64",
                vec![addr(1), r(2)],
            ),
            &[],
            &[1, 2],
        );
        assert!(
            effects(&mk(
                "tensormap.replace.tile.rank.global.b1024.b32",
                vec![addr(1), r(2)]
            ))
            .mem_write
        );
        check(&mk("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned", vec![addr(1), addr(2), imm(128)]), &[], &[1, 2]);
        check(&mk("prefetch.global.L2", vec![addr(1)]), &[], &[1]);
        assert!(effects(&mk("prefetch.global.L2", vec![addr(1)])).side_effects);
        check(&mk("prefetchu.L1", vec![addr(1)]), &[], &[1]);
        check(
            &mk(
                "applypriority.global.L2::evict_normal",
                vec![addr(1), imm(128)],
            ),
            &[],
            &[1],
        );
        let d = mk("discard.global.L2", vec![addr(1), imm(128)]);
        check(&d, &[], &[1]);
        assert!(effects(&d).mem_write);
        check(
            &mk(
                "createpolicy.fractional.L2::evict_last.b64",
                vec![r(1), imm(1)],
            ),
            &[1],
            &[],
        );
        check(
            &mk(
                "createpolicy.range.global.L2::evict_last.b64",
                vec![r(1), addr(2), r(3), r(4)],
            ),
            &[1],
            &[2, 3, 4],
        );
    }

    #[test]
    fn address_conversions_and_cluster() {
        check(&mk("cvta.to.global.u64", vec![r(1), r(2)]), &[1], &[2]);
        check(&mk("isspacep.shared", vec![r(1), r(2)]), &[1], &[2]);
        check(
            &mk("mapa.shared::cluster.u32", vec![r(1), r(2), r(3)]),
            &[1],
            &[2, 3],
        );
        check(
            &mk("getctarank.shared::cluster.u32", vec![r(1), r(2)]),
            &[1],
            &[2],
        );
        let t = mk(
            "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128",
            vec![addr(1), addr(2)],
        );
        check(&t, &[], &[1, 2]);
        assert!(effects(&t).mem_write && effects(&t).side_effects);
        let q = mk(
            "clusterlaunchcontrol.query_cancel.is_canceled.pred.b128",
            vec![r(1), r(2)],
        );
        check(&q, &[1], &[2]);
        assert_eq!(effects(&q), Effects::default());
        check(
            &mk(
                "clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128",
                vec![vec(vec![r(1), r(2), r(3), Operand::Sink]), r(4)],
            ),
            &[1, 2, 3],
            &[4],
        );
    }

    #[test]
    fn texture_and_surface() {
        let t = mk(
            "tex.2d.v4.f32.f32",
            vec![
                vec(vec![r(1), r(2), r(3), r(4)]),
                Operand::Bracket(vec![sym("tex0"), vec(vec![r(5), r(6)])]),
            ],
        );
        assert_eq!(operand_roles(&t), [D, U]);
        check(&t, &[1, 2, 3, 4], &[5, 6]);
        assert!(effects(&t).mem_read && !effects(&t).side_effects);
        let t = mk(
            "tex.grad.2d.v4.f32.f32",
            vec![
                pair(vec(vec![r(1), r(2), r(3), r(4)]), r(9)),
                Operand::Bracket(vec![sym("tex0"), vec(vec![r(5), r(6)])]),
                vec(vec![r(7)]),
                vec(vec![r(8)]),
            ],
        );
        check(&t, &[1, 2, 3, 4, 9], &[5, 6, 7, 8]);
        check(
            &mk(
                "tld4.r.2d.v4.s32.f32",
                vec![
                    vec(vec![r(1), r(2), r(3), r(4)]),
                    Operand::Bracket(vec![sym("t"), vec(vec![r(5), r(6)])]),
                ],
            ),
            &[1, 2, 3, 4],
            &[5, 6],
        );
        check(
            &mk(
                "txq.width.b32",
                vec![r(1), Operand::Bracket(vec![sym("t")])],
            ),
            &[1],
            &[],
        );
        check(&mk("istypep.texref", vec![r(1), r(2)]), &[1], &[2]);
        check(
            &mk("suq.width.b32", vec![r(1), Operand::Bracket(vec![r(2)])]),
            &[1],
            &[2],
        );
        let s = mk(
            "suld.b.2d.b32.trap",
            vec![
                vec(vec![r(1)]),
                Operand::Bracket(vec![sym("surf"), vec(vec![r(2), r(3)])]),
            ],
        );
        check(&s, &[1], &[2, 3]);
        assert!(effects(&s).mem_read);
        let s = mk(
            "sust.b.2d.b32.trap",
            vec![
                Operand::Bracket(vec![sym("surf"), vec(vec![r(1), r(2)])]),
                vec(vec![r(3)]),
            ],
        );
        check(&s, &[], &[1, 2, 3]);
        assert!(effects(&s).mem_write && effects(&s).side_effects);
        check(
            &mk(
                "sured.b.add.2d.u32.trap",
                vec![
                    Operand::Bracket(vec![sym("surf"), vec(vec![r(1), r(2)])]),
                    r(3),
                ],
            ),
            &[],
            &[1, 2, 3],
        );
    }

    #[test]
    fn matrix_instructions() {
        let v = |a: u32| vec((a..a + 4).map(r).collect());
        let m = mk(
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
            vec![v(0), v(10), v(20), v(30)],
        );
        assert_eq!(operand_roles(&m), [D, U, U, U]);
        check(
            &m,
            &[0, 1, 2, 3],
            &[10, 11, 12, 13, 20, 21, 22, 23, 30, 31, 32, 33],
        );
        assert_eq!(effects(&m).sync, Sync::Warp);
        assert!(!effects(&m).touches_memory());
        let sp = mk(
            "mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32",
            vec![v(0), v(10), v(20), v(30), r(40), imm(0)],
        );
        check(
            &sp,
            &[0, 1, 2, 3],
            &[10, 11, 12, 13, 20, 21, 22, 23, 30, 31, 32, 33, 40],
        );
        let w = mk(
            "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16",
            vec![v(0), r(10), r(11), r(12), imm(1), imm(1), imm(0), imm(0)],
        );
        assert_eq!(operand_roles(&w)[0], UD);
        check(&w, &[0, 1, 2, 3], &[0, 1, 2, 3, 10, 11, 12]);
        let e = effects(&w);
        assert!(e.async_defs && e.side_effects && e.mem_read);
        assert!(effects(&mk("wgmma.wait_group.sync.aligned", vec![imm(0)])).side_effects);
        assert!(effects(&mk("wgmma.fence.sync.aligned", vec![])).side_effects);
        assert!(effects(&mk("wgmma.commit_group.sync.aligned", vec![])).side_effects);
        let ld = mk(
            "wmma.load.a.sync.aligned.row.m16n16k16.global.f16",
            vec![v(0), addr(9), r(8)],
        );
        check(&ld, &[0, 1, 2, 3], &[8, 9]);
        assert_eq!(effects(&ld).space, Some(StateSpace::Global));
        let stw = mk(
            "wmma.store.d.sync.aligned.row.m16n16k16.shared.f32",
            vec![addr(9), v(0), r(8)],
        );
        check(&stw, &[], &[0, 1, 2, 3, 8, 9]);
        assert!(effects(&stw).mem_write);
        check(
            &mk(
                "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32",
                vec![v(0), v(10), v(20), v(30)],
            ),
            &[0, 1, 2, 3],
            &[10, 11, 12, 13, 20, 21, 22, 23, 30, 31, 32, 33],
        );
        let l = mk(
            "ldmatrix.sync.aligned.m8n8.x4.shared.b16",
            vec![v(0), addr(9)],
        );
        check(&l, &[0, 1, 2, 3], &[9]);
        assert!(effects(&l).mem_read && effects(&l).sync == Sync::Warp);
        let s = mk(
            "stmatrix.sync.aligned.m8n8.x4.shared.b16",
            vec![addr(9), v(0)],
        );
        check(&s, &[], &[0, 1, 2, 3, 9]);
        assert!(effects(&s).mem_write);
        check(
            &mk("movmatrix.sync.aligned.m8n8.trans.b16", vec![r(1), r(2)]),
            &[1],
            &[2],
        );
    }

    #[test]
    fn tcgen05_forms() {
        let v = |a: u32| vec((a..a + 4).map(r).collect());
        let ld = mk("tcgen05.ld.sync.aligned.32x32b.x4.b32", vec![v(0), addr(9)]);
        check(&ld, &[0, 1, 2, 3], &[9]);
        assert!(effects(&ld).async_defs);
        assert_eq!(effects(&ld).sync, Sync::Warp);
        check(
            &mk(
                "tcgen05.ld.red.sync.aligned.32x32b.x4.min.u32",
                vec![v(0), r(5), addr(9)],
            ),
            &[0, 1, 2, 3, 5],
            &[9],
        );
        check(
            &mk("tcgen05.st.sync.aligned.32x32b.x4.b32", vec![addr(9), v(0)]),
            &[],
            &[0, 1, 2, 3, 9],
        );
        let m = mk(
            "tcgen05.mma.cta_group::1.kind::f16",
            vec![addr(1), r(2), r(3), r(4), r(5)],
        );
        check(&m, &[], &[1, 2, 3, 4, 5]);
        assert!(effects(&m).mem_write && effects(&m).side_effects);
        let a = mk(
            "tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32",
            vec![addr(1), imm(32)],
        );
        check(&a, &[], &[1]);
        assert_eq!(effects(&a).sync, Sync::Cluster);
        check(
            &mk(
                "tcgen05.dealloc.cta_group::1.sync.aligned.b32",
                vec![r(1), imm(32)],
            ),
            &[],
            &[1],
        );
        check(
            &mk(
                "tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64",
                vec![addr(1)],
            ),
            &[],
            &[1],
        );
        check(
            &mk("tcgen05.cp.cta_group::1.128x256b", vec![addr(1), r(2)]),
            &[],
            &[1, 2],
        );
        check(
            &mk("tcgen05.shift.cta_group::1.down", vec![addr(1)]),
            &[],
            &[1],
        );
        assert!(effects(&mk("tcgen05.wait::ld.sync.aligned", vec![])).side_effects);
        assert!(effects(&mk("tcgen05.fence::before_thread_sync", vec![])).side_effects);
        assert!(
            effects(&mk(
                "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned",
                vec![]
            ))
            .side_effects
        );
        assert_eq!(operand_roles(&mk("tcgen05.future.b32", vec![r(1)])), [UD]);
    }

    #[test]
    fn stack_video_misc() {
        check(&mk("stacksave.u64", vec![r(1)]), &[1], &[]);
        check(&mk("stackrestore.u64", vec![r(1)]), &[], &[1]);
        check(&mk("alloca.u64", vec![r(1), r(2), imm(8)]), &[1], &[2]);
        for op in ["stacksave.u64", "stackrestore.u64", "alloca.u64"] {
            assert!(effects(&mk(op, vec![r(1)])).side_effects, "{op}");
        }
        check(
            &mk("vadd.s32.s32.s32.sat", vec![r(1), r(2), r(3)]),
            &[1],
            &[2, 3],
        );
        check(
            &mk("vadd.s32.s32.s32.add", vec![r(1), r(2), r(3), r(4)]),
            &[1],
            &[2, 3, 4],
        );
        check(
            &mk("vadd2.s32.s32.u32.sat", vec![r(1), r(2), r(3), r(1)]),
            &[1],
            &[1, 2, 3],
        );
        check(
            &mk("vset4.u32.u32.ne", vec![r(1), r(2), r(3), r(4)]),
            &[1],
            &[2, 3, 4],
        );
        check(
            &mk("dp4a.u32.u32", vec![r(1), r(2), r(3), r(4)]),
            &[1],
            &[2, 3, 4],
        );
        check(
            &mk("prmt.b32", vec![r(1), r(2), r(3), r(4)]),
            &[1],
            &[2, 3, 4],
        );
        check(&mk("trap", vec![]), &[], &[]);
        assert!(effects(&mk("brkpt", vec![])).side_effects);
    }

    #[test]
    fn other_is_conservative() {
        let o = mk(
            "frob.b32",
            vec![
                r(1),
                addr(2),
                Operand::Label(Label(0)),
                Operand::Sink,
                vec(vec![r(3)]),
            ],
        );
        assert!(matches!(o.opcode, Opcode::Other(_)));
        assert_eq!(operand_roles(&o), [UD, UD, N, N, UD]);
        check(&o, &[1, 3], &[1, 2, 3]);
        let e = effects(&o);
        assert_eq!(e, Effects::conservative());
        assert!(e.opaque && e.side_effects && e.mem_read && e.mem_write && e.sync >= Sync::Block);
        assert!(!is_terminator(&o));
    }

    // ---- real PTX lines through the parser ---------------------------------------------------

    /// Parses `line` inside a minimal kernel and returns its last instruction and the body.
    fn parse_line(line: &str) -> (InstData, crate::ptx::ir::Body) {
        let src = format!(
            ".version 8.7\n.target sm_90a\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n\
             .reg .pred %p<8>;\n.reg .b16 %h<8>;\n.reg .b32 %r<64>;\n.reg .b64 %rd<16>;\n\
             .reg .f32 %f<64>;\n.reg .b128 %q<4>;\n.shared .align 8 .b64 bar0;\n\
             $L1:\n{line}\n}}\n"
        );
        let m = crate::ptx::parse::parse_module(&src, "roles.ptx")
            .unwrap_or_else(|e| panic!("{line}: {e:?}"));
        let f = m.function("k").expect("kernel");
        let body = f.body.clone().expect("body");
        let inst = body.insts.last().expect("an instruction").clone();
        (inst, body)
    }

    /// Parses `line` and checks the sorted names of the registers it defines and uses.
    fn check_ptx(line: &str, want_defs: &[&str], want_uses: &[&str]) {
        let (i, body) = parse_line(line);
        let names = |v: Vec<Reg>| {
            let mut n: Vec<String> = v
                .into_iter()
                .map(|r| body.reg_name(r).to_string())
                .collect();
            n.sort();
            n
        };
        let sorted = |v: &[&str]| {
            let mut n: Vec<String> = v.iter().map(|s| s.to_string()).collect();
            n.sort();
            n
        };
        assert_eq!(names(defs(&i)), sorted(want_defs), "defs of `{line}`");
        assert_eq!(names(uses(&i)), sorted(want_uses), "uses of `{line}`");
    }

    #[test]
    fn parsed_lines() {
        let cases: &[(&str, &[&str], &[&str])] = &[
            // Integer, floating point, comparison, logic.
            ("add.s32 %r1, %r2, %r3;", &["%r1"], &["%r2", "%r3"]),
            ("mad.wide.u32 %rd1, %r2, 4, %rd2;", &["%rd1"], &["%r2", "%rd2"]),
            ("add.cc.u32 %r1, %r2, %r3;", &["%r1"], &["%r2", "%r3"]),
            ("addc.cc.u32 %r4, %r5, %r6;", &["%r4"], &["%r5", "%r6"]),
            ("madc.hi.cc.u32 %r4, %r5, %r6, %r7;", &["%r4"], &["%r5", "%r6", "%r7"]),
            ("setp.lt.s32 %p1|%p2, %r1, %r2;", &["%p1", "%p2"], &["%r1", "%r2"]),
            ("setp.ne.and.s32 %p1, %r1, 0, !%p3;", &["%p1"], &["%p3", "%r1"]),
            ("selp.b32 %r1, %r2, 7, %p1;", &["%r1"], &["%p1", "%r2"]),
            ("lop3.b32 %r1, %r2, %r3, %r4, 0x96;", &["%r1"], &["%r2", "%r3", "%r4"]),
            ("testp.finite.f32 %p1, %f1;", &["%p1"], &["%f1"]),
            ("copysign.f32 %f1, %f2, %f3;", &["%f1"], &["%f2", "%f3"]),
            ("prmt.b32 %r1, %r2, %r3, 0x3210;", &["%r1"], &["%r2", "%r3"]),
            ("dp4a.u32.u32 %r1, %r2, %r3, %r4;", &["%r1"], &["%r2", "%r3", "%r4"]),
            ("bmsk.clamp.b32 %r1, %r2, %r3;", &["%r1"], &["%r2", "%r3"]),
            ("szext.wrap.s32 %r1, %r2, %r3;", &["%r1"], &["%r2", "%r3"]),
            ("fns.b32 %r1, %r2, %r3, 1;", &["%r1"], &["%r2", "%r3"]),
            ("bfind.u32 %r1, %r2;", &["%r1"], &["%r2"]),
            ("ex2.approx.ftz.f32 %f1, %f2;", &["%f1"], &["%f2"]),
            // Moves and conversions.
            ("mov.u32 %r1, %tid.x;", &["%r1"], &[]),
            ("mov.b64 %rd1, {%r1, %r2};", &["%rd1"], &["%r1", "%r2"]),
            ("mov.b64 {%r1, %r2}, %rd1;", &["%r1", "%r2"], &["%rd1"]),
            ("mov.b32 {%h1, _}, %r1;", &["%h1"], &["%r1"]),
            ("mov.u64 %rd1, bar0;", &["%rd1"], &[]),
            ("cvt.rn.f16x2.f32 %r1, %f1, %f2;", &["%r1"], &["%f1", "%f2"]),
            ("cvt.pack.sat.u8.s32.b32 %r1, %r2, %r3, %r4;", &["%r1"], &["%r2", "%r3", "%r4"]),
            ("cvta.to.global.u64 %rd1, %rd2;", &["%rd1"], &["%rd2"]),
            ("isspacep.shared %p1, %rd1;", &["%p1"], &["%rd1"]),
            ("mapa.shared::cluster.u32 %r1, %r2, %r3;", &["%r1"], &["%r2", "%r3"]),
            ("getctarank.shared::cluster.u32 %r1, %r2;", &["%r1"], &["%r2"]),
            ("createpolicy.fractional.L2::evict_last.b64 %rd1, 1.0;", &["%rd1"], &[]),
            // Memory.
            ("ld.param.u64 %rd1, [p];", &["%rd1"], &[]),
            ("ld.global.nc.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1+16];", &["%f1", "%f2", "%f3", "%f4"], &["%rd1"]),
            ("ld.global.L2::cache_hint.b32 %r1, [%rd1], %rd2;", &["%r1"], &["%rd1", "%rd2"]),
            ("st.global.v4.f32 [%rd1+16], {%f1, %f2, %f3, %f4};", &[], &["%f1", "%f2", "%f3", "%f4", "%rd1"]),
            ("st.shared.u32 [bar0], %r1;", &[], &["%r1"]),
            ("atom.global.add.u32 %r1, [%rd1], %r2;", &["%r1"], &["%r2", "%rd1"]),
            ("atom.shared.cas.b32 %r1, [%r5], %r2, %r3;", &["%r1"], &["%r2", "%r3", "%r5"]),
            ("red.global.add.u32 [%rd1], %r2;", &[], &["%r2", "%rd1"]),
            ("multimem.ld_reduce.relaxed.sys.global.add.u32 %r1, [%rd1];", &["%r1"], &["%rd1"]),
            ("multimem.st.relaxed.sys.global.u32 [%rd1], %r1;", &[], &["%r1", "%rd1"]),
            ("prefetch.global.L2 [%rd1];", &[], &["%rd1"]),
            ("discard.global.L2 [%rd1], 128;", &[], &["%rd1"]),
            ("applypriority.global.L2::evict_normal [%rd1], 128;", &[], &["%rd1"]),
            ("cp.async.ca.shared.global [%r1], [%rd1], 16;", &[], &["%r1", "%rd1"]),
            ("cp.async.commit_group;", &[], &[]),
            ("cp.async.wait_group 0;", &[], &[]),
            (
                "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2, %r3}], [%r4];",
                &[],
                &["%r1", "%r2", "%r3", "%r4", "%rd1"],
            ),
            ("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd1], [%r1], %r2;", &[], &["%r1", "%r2", "%rd1"]),
            ("tensormap.replace.tile.global_address.global.b1024.b64 [%rd1], %rd2;", &[], &["%rd1", "%rd2"]),
            ("st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%r1], %r2, [%r3];", &[], &["%r1", "%r2", "%r3"]),
            ("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%r1], %r2, [%r3];", &[], &["%r1", "%r2", "%r3"]),
            // Barriers and synchronisation.
            ("bar.sync 0;", &[], &[]),
            ("bar.red.popc.u32 %r1, 0, %p1;", &["%r1"], &["%p1"]),
            ("barrier.cluster.arrive.release.aligned;", &[], &[]),
            ("bar.warp.sync -1;", &[], &[]),
            ("membar.gl;", &[], &[]),
            ("fence.acq_rel.gpu;", &[], &[]),
            ("mbarrier.init.shared.b64 [bar0], %r1;", &[], &["%r1"]),
            ("mbarrier.arrive.shared.b64 %rd1, [%r1];", &["%rd1"], &["%r1"]),
            ("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r1], %r2;", &[], &["%r1", "%r2"]),
            ("mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r1], %r2;", &["%p1"], &["%r1", "%r2"]),
            ("mbarrier.test_wait.shared.b64 %p1, [%r1], %rd2;", &["%p1"], &["%r1", "%rd2"]),
            ("mbarrier.pending_count.b64 %r1, %rd1;", &["%r1"], &["%rd1"]),
            ("shfl.sync.down.b32 %r1|%p1, %r2, 1, 31, -1;", &["%p1", "%r1"], &["%r2"]),
            ("vote.sync.ballot.b32 %r1, %p1, -1;", &["%r1"], &["%p1"]),
            ("match.any.sync.b32 %r1, %r2, -1;", &["%r1"], &["%r2"]),
            ("match.all.sync.b32 %r1|%p1, %r2, -1;", &["%p1", "%r1"], &["%r2"]),
            ("redux.sync.add.u32 %r1, %r2, -1;", &["%r1"], &["%r2"]),
            ("elect.sync %r1|%p1, -1;", &["%p1", "%r1"], &[]),
            ("activemask.b32 %r1;", &["%r1"], &[]),
            ("griddepcontrol.wait;", &[], &[]),
            ("setmaxnreg.inc.sync.aligned.u32 240;", &[], &[]),
            ("nanosleep.u32 %r1;", &[], &["%r1"]),
            ("clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [%r1], [%r2];", &[], &["%r1", "%r2"]),
            ("clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 %p1, %q1;", &["%p1"], &["%q1"]),
            // Texture and surface.
            ("tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tex0, {%f5, %f6}];", &["%f1", "%f2", "%f3", "%f4"], &["%f5", "%f6"]),
            ("tld4.r.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tex0, {%f5, %f6}];", &["%f1", "%f2", "%f3", "%f4"], &["%f5", "%f6"]),
            ("txq.width.b32 %r1, [tex0];", &["%r1"], &[]),
            ("suld.b.2d.b32.trap {%r1}, [surf, {%r2, %r3}];", &["%r1"], &["%r2", "%r3"]),
            ("sust.b.2d.b32.trap [surf, {%r1, %r2}], {%r3};", &[], &["%r1", "%r2", "%r3"]),
            ("suq.width.b32 %r1, [surf];", &["%r1"], &[]),
            // Matrix.
            (
                "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8};",
                &["%f1", "%f2", "%f3", "%f4"],
                &["%f5", "%f6", "%f7", "%f8", "%r1", "%r2", "%r3", "%r4", "%r5", "%r6"],
            ),
            (
                "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, %p1, 1, 1, 0, 0;",
                &["%f1", "%f2", "%f3", "%f4"],
                &["%f1", "%f2", "%f3", "%f4", "%p1", "%rd1", "%rd2"],
            ),
            ("wgmma.fence.sync.aligned;", &[], &[]),
            ("wgmma.wait_group.sync.aligned 0;", &[], &[]),
            ("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r1, %r2, %r3, %r4}, [%r5];", &["%r1", "%r2", "%r3", "%r4"], &["%r5"]),
            ("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%r5], {%r1, %r2};", &[], &["%r1", "%r2", "%r5"]),
            ("movmatrix.sync.aligned.m8n8.trans.b16 %r1, %r2;", &["%r1"], &["%r2"]),
            ("wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r1, %r2}, [%rd1], %r3;", &["%r1", "%r2"], &["%r3", "%rd1"]),
            ("wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd1], {%f1, %f2}, %r3;", &[], &["%f1", "%f2", "%r3", "%rd1"]),
            ("tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r1, %r2}, [%r3];", &["%r1", "%r2"], &["%r3"]),
            ("tcgen05.st.sync.aligned.32x32b.x2.b32 [%r3], {%r1, %r2};", &[], &["%r1", "%r2", "%r3"]),
            ("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], 32;", &[], &["%r1"]),
            ("tcgen05.wait::ld.sync.aligned;", &[], &[]),
            // Stack, video, misc.
            ("stacksave.u64 %rd1;", &["%rd1"], &[]),
            ("stackrestore.u64 %rd1;", &[], &["%rd1"]),
            ("alloca.u64 %rd1, %rd2, 8;", &["%rd1"], &["%rd2"]),
            ("vadd.s32.s32.s32.sat %r1, %r2, %r3;", &["%r1"], &["%r2", "%r3"]),
            ("vadd2.s32.s32.u32.sat %r1, %r2, %r3, %r1;", &["%r1"], &["%r1", "%r2", "%r3"]),
            ("pmevent 1;", &[], &[]),
            ("trap;", &[], &[]),
            ("brkpt;", &[], &[]),
            ("exit;", &[], &[]),
            ("ret;", &[], &[]),
            ("@%p1 bra $L1;", &[], &["%p1"]),
            ("@!%p2 add.s32 %r1, %r1, 1;", &["%r1"], &["%p2", "%r1"]),
            // Not modelled: every register operand read and written.
            ("frobnicate.b32 %r1, %r2;", &["%r1", "%r2"], &["%r1", "%r2"]),
        ];
        for (line, d, u) in cases {
            check_ptx(line, d, u);
        }
    }

    #[test]
    fn parsed_control_flow() {
        let (bra, body) = parse_line("bra.uni $L1;");
        assert!(is_terminator(&bra));
        let targets = branch_targets(&bra);
        assert_eq!(targets.len(), 1);
        assert_eq!(body.label_name(targets[0]), "$L1");
        let (brx, _) = parse_line("$tbl: .branchtargets $L1, $L1;\nbrx.idx %r1, $tbl;");
        assert_eq!(operand_roles(&brx), [U, N]);
        assert!(is_terminator(&brx));
        assert!(branch_targets(&brx).is_empty());
        let (c, _) = parse_line(
            ".param .b32 retval0;\n.param .b32 param0;\ncall.uni (retval0), foo, (param0);",
        );
        assert_eq!(operand_roles(&c), [D, U, U]);
        assert_eq!(effects(&c).control, Control::Call);
        let (c, _) = parse_line(
            "proto: .callprototype (.param .b32 _) _ (.param .b32 _);\ncall (%r1), %rd5, (%r2), proto;",
        );
        assert_eq!(operand_roles(&c), [D, U, U, N]);
        check_ptx(
            "proto: .callprototype (.param .b32 _) _ (.param .b32 _);\ncall (%r1), %rd5, (%r2), proto;",
            &["%r1"],
            &["%r2", "%rd5"],
        );
    }

    #[test]
    fn parsed_effects() {
        let e = |line: &str| effects(&parse_line(line).0);
        assert!(e("mov.u32 %r1, %clock;").side_effects);
        assert!(!e("mov.u32 %r1, %laneid;").side_effects);
        assert!(e("ld.volatile.global.u32 %r1, [%rd1];").side_effects);
        assert_eq!(
            e("ld.shared::cta.u32 %r1, [%r2];").space,
            Some(StateSpace::SharedCta)
        );
        assert!(e("addc.u32 %r1, %r2, %r3;").reads_cc);
        assert!(e("sub.cc.u32 %r1, %r2, %r3;").writes_cc);
        assert_eq!(e("bar.sync 0;").sync, Sync::Block);
        assert_eq!(e("shfl.sync.idx.b32 %r1, %r2, 0, 31, -1;").sync, Sync::Warp);
        assert!(e("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, 1, 1, 1, 0, 0;").async_defs);
        assert!(e("frobnicate.b32 %r1, %r2;").opaque);
    }

    /// A modifier set that selects a recognised form of every opcode with sub-operations.
    fn typical_mods(op: &Opcode) -> &'static str {
        match op {
            Opcode::Mbarrier => ".arrive",
            Opcode::Multimem => ".st",
            Opcode::Cp => ".async",
            Opcode::Tensormap => ".replace",
            Opcode::Clusterlaunchcontrol => ".try_cancel",
            Opcode::Wmma => ".load",
            Opcode::Wgmma => ".mma_async",
            Opcode::Tcgen05 => ".ld",
            _ => "",
        }
    }

    #[test]
    fn every_known_opcode_is_modelled() {
        for op in Opcode::KNOWN {
            let i = mk(
                &format!("{}{}", op.as_str(), typical_mods(op)),
                vec![r(1), r(2)],
            );
            assert_eq!(&i.opcode, op);
            assert!(shape(&i).is_some(), "{} has no roles", op.as_str());
            assert!(!effects(&i).opaque, "{} is opaque", op.as_str());
            assert!(
                operand_roles(&i).iter().all(|r| *r != UD) || *op == Opcode::Wgmma,
                "{}",
                op.as_str()
            );
        }
    }

    /// Every operand kind, nested ones included.
    fn operand_zoo() -> Vec<Operand> {
        vec![
            r(1),
            Operand::RegOffset(Reg(2), 4),
            not(3),
            Operand::Special(SpecialOperand::Named(SpecialReg::Clock, None)),
            imm(-1),
            sym("s"),
            Operand::SymOffset("s".into(), 8),
            Operand::Label(Label(0)),
            addr(4),
            Operand::Addr(Address {
                base: AddrBase::None,
                offset: 16,
            }),
            Operand::Bracket(vec![sym("t"), vec(vec![r(5), r(6)])]),
            vec(vec![r(7), Operand::Sink, pair(r(8), r(9))]),
            list(vec![r(10), sym("p")]),
            list(vec![]),
            pair(r(11), Operand::Sink),
            Operand::Sink,
        ]
    }

    #[test]
    fn no_panic_on_any_operands() {
        let zoo = operand_zoo();
        let words = [
            "",
            ".sync",
            ".red",
            ".cc",
            ".async",
            ".arrive",
            ".init",
            ".pending_count",
            ".ld",
            ".ld.red",
            ".st",
            ".mma",
            ".load",
            ".store",
            ".mma_async",
            ".wait_group",
            ".query_cancel",
            ".reduce",
            ".ld_reduce",
            ".cp",
            ".warp",
            ".cluster",
            ".uni",
            ".global.shared",
            ".volatile",
            ".cta_group::2",
            ".bogus",
        ];
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let mut opcodes: Vec<Opcode> = Opcode::KNOWN.to_vec();
        opcodes.push(Opcode::Other("weird".into()));
        for op in &opcodes {
            for w in words {
                let text = format!("{}{}", op.as_str(), w);
                let mut cases: Vec<Vec<Operand>> = Vec::new();
                for len in 0..=6 {
                    // All positions of one kind, and random mixes.
                    for z in &zoo {
                        cases.push(vec![z.clone(); len]);
                    }
                    for _ in 0..8 {
                        cases.push((0..len).map(|_| zoo[next(zoo.len())].clone()).collect());
                    }
                }
                for ops in cases {
                    for guarded in [false, true] {
                        let mut i = mk(&text, ops.clone());
                        if guarded {
                            i.guard = Some(Guard {
                                reg: Reg(99),
                                negated: false,
                            });
                        }
                        let roles = operand_roles(&i);
                        assert_eq!(roles.len(), i.operands.len());
                        let _ = (
                            defs(&i),
                            uses(&i),
                            def_kills(&i),
                            effects(&i),
                            is_terminator(&i),
                        );
                        let _ = branch_targets(&i);
                        for (op, role) in i.operands.iter().zip(&roles) {
                            if matches!(op, Operand::Label(_) | Operand::Sink) {
                                assert_eq!(*role, Role::None);
                            }
                        }
                        if guarded {
                            assert!(uses(&i).contains(&Reg(99)));
                        }
                    }
                }
            }
        }
    }
}
