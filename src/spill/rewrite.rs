//! Rewriting one demoted register by its rule (Sampaio et al. §3, "rewriting rules"; RegDem §3.2):
//! every read gets a reload (or a rematerialisation) into a short-lived temporary just before the
//! instruction, every write goes to a temporary that is stored just after it.
//!
//! - constant → `mov` of the constant before each use; writes go to a dead temporary;
//! - constant-affine `c·lane + b` → `mov %laneid` + `mad` before each use;
//! - a value with a slot → `ld.shared` before each use, `st.shared` after each def, 64-bit values
//!   as two 32-bit words, predicates as a 0/1 word;
//! - a packed predicate (bit `k` of a per-thread word shared by up to 32 predicates) →
//!   `ld.shared.u32 w; and.b32 w, w, 1<<k; setp.ne.u32 p, w, 0` before each use and
//!   `ld.shared.u32 w; selp.u32 b, 1<<k, 0, p; and.b32 w, w, ~(1<<k); or.b32 w, w, b;
//!   st.shared.u32` after each definition (a read-modify-write of the thread's own word, so no
//!   other thread's bits are touched).
//!
//! A write that may keep the old value (a guarded def, a read-modify-write operand, a write to one
//! component) first reloads the old value, so the store after it always stores the right bits.
//! Temporaries are pooled per register type and per position within one instruction: their live
//! ranges never cross an instruction, so one pool serves every demoted register.

use std::collections::HashMap;

use super::layout::{Layout, Slot};
use crate::machine::bitset::BitSet;
use crate::ptx::builder::Builder;
use crate::ptx::roles::{for_each_reg_role, Role};
use crate::ptx::{
    AddrBase, Address, Body, Imm, Inst, InstData, Loc, Modifier, Mods, Opcode, Operand, Operands,
    Reg, RegType, SpecialOperand, SpecialReg, StateSpace, Stmt, Type,
};

/// How one demoted register is rewritten.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// Rematerialise a constant before each use.
    Constant(i64),
    /// Rematerialise `coef·%laneid + base` before each use.
    LaneAffine { coef: i64, base: i64 },
    /// Keep the value in shared memory.
    Slot(Slot),
    /// Affine `coef·%laneid + b` with `b` warp- (or block-) uniform: store `b = v - coef·lane`
    /// in a per-warp (per-block) slot, rebuild `v = coef·lane + b` with one `mad` on reload.
    Affine { slot: Slot, coef: i64 },
    /// A predicate kept as bit `bit` of a per-thread word of packed predicates: a use reloads the
    /// word and tests the bit, a definition reloads the word, replaces the bit and stores it back.
    PackedPred { slot: Slot, bit: u32 },
}

impl Rule {
    /// The rule's name in reports.
    pub fn name(&self) -> &'static str {
        match self {
            Rule::Constant(_) => "rematerialise-constant",
            Rule::LaneAffine { .. } => "rematerialise-lane-affine",
            Rule::Slot(Slot::Thread(_)) => "thread-slot",
            Rule::Slot(Slot::Warp(_)) => "warp-slot",
            Rule::Slot(Slot::Block(_)) => "block-slot",
            Rule::Affine {
                slot: Slot::Block(_),
                ..
            } => "affine-block-base",
            Rule::Affine { .. } => "affine-warp-base",
            Rule::PackedPred { .. } => "packed-predicate",
        }
    }
}

/// The registers and symbols the rewritten code addresses the spill area with, and where its
/// reloads must stay put.
#[derive(Clone, Debug)]
pub struct Bases {
    /// The spill array's name.
    pub array: String,
    /// `array + linear_tid·4` (32-bit shared address), when per-thread slots exist.
    pub thread: Option<Reg>,
    /// `array + per-warp region + warp·4`, when per-warp slots exist.
    pub warp: Option<Reg>,
    /// The array's size is rounded up to a multiple of this many bytes: 1024 in kernels that
    /// read dynamic shared memory, so that the dynamic area keeps the 1024-byte alignment that
    /// sm_90's swizzled wgmma/TMA layouts (Triton's) are anchored to; 1 otherwise.
    pub granule: u64,
    /// The original instructions inside a loop (by index): reloads before them are volatile
    /// (see `reload_mods`).
    pub in_loop: BitSet,
}

impl Bases {
    /// The declared size of a spill area of `bytes` bytes.
    pub fn area(&self, bytes: u64) -> u64 {
        bytes.next_multiple_of(self.granule.max(1))
    }
}

/// Pools of temporaries, by register type and position within an instruction.
#[derive(Default)]
pub struct Temps {
    pool: HashMap<(RegType, usize), Reg>,
}

impl Temps {
    /// The pool temporary of type `ty` at position `k`, declared on first use.
    fn get(&mut self, body: &mut Body, ty: RegType, k: usize) -> Reg {
        *self
            .pool
            .entry((ty, k))
            .or_insert_with(|| Builder::new(body).new_reg(ty.ty))
    }
}

/// What one instruction does with the demoted register.
#[derive(Default, Clone, Copy)]
struct Access {
    reads: bool,
    writes: bool,
}

fn access(inst: &InstData, r: Reg) -> Access {
    let mut a = Access::default();
    // Most instructions do not name `r` at all: say so without working out operand roles.
    if !mentions(inst, r) {
        return a;
    }
    let mut partial = inst.guard.is_some();
    for_each_reg_role(inst, |x, role| {
        if x == r {
            match role {
                Role::Use => a.reads = true,
                Role::Def => a.writes = true,
                Role::UseDef => {
                    a.reads = true;
                    a.writes = true;
                    partial = true;
                }
                Role::None => {}
            }
        }
    });
    let mut component = false;
    for op in &inst.operands {
        visit_components(op, r, &mut component);
    }
    if a.writes && (partial || component) {
        a.reads = true;
    }
    a
}

/// Whether `r` appears anywhere in `inst`: its guard or any operand.
fn mentions(inst: &InstData, r: Reg) -> bool {
    let mut found = inst.guard.is_some_and(|g| g.reg == r);
    for op in &inst.operands {
        op.for_each_reg(&mut |x| found |= x == r);
    }
    found
}

fn visit_components(op: &Operand, r: Reg, found: &mut bool) {
    match op {
        Operand::RegComponent(x, _) if *x == r => *found = true,
        Operand::Vector(v) | Operand::List(v) | Operand::Bracket(v) => {
            v.iter().for_each(|o| visit_components(o, r, found))
        }
        Operand::Pair(a, b) => {
            visit_components(a, r, found);
            visit_components(b, r, found);
        }
        _ => {}
    }
}

fn rename(inst: &mut InstData, from: Reg, to: Reg) {
    if let Some(g) = &mut inst.guard {
        if g.reg == from {
            g.reg = to;
        }
    }
    for op in &mut inst.operands {
        op.for_each_reg_mut(&mut |x| {
            if *x == from {
                *x = to
            }
        });
    }
}

fn mk(opcode: Opcode, mods: impl Into<Mods>, operands: impl Into<Operands>) -> InstData {
    InstData {
        guard: None,
        opcode,
        mods: mods.into(),
        operands: operands.into(),
        loc: Loc::default(),
    }
}

fn int(v: i64) -> Operand {
    Operand::Imm(Imm::Int {
        value: v,
        unsigned: false,
    })
}

/// `ld<mods> dst, [addr]`: a spill word reloaded from shared memory.
fn load_slot(mods: Vec<Modifier>, dst: Reg, addr: Address) -> InstData {
    mk(
        Opcode::Ld,
        mods,
        vec![Operand::Reg(dst), Operand::Addr(addr)],
    )
}

/// `st<mods> [addr], src`: a spill word stored to shared memory.
fn store_slot(mods: Vec<Modifier>, addr: Address, src: Reg) -> InstData {
    mk(
        Opcode::St,
        mods,
        vec![Operand::Addr(addr), Operand::Reg(src)],
    )
}

/// `setp.ne.u32 p, w, 0`: a predicate from a 32-bit word.
fn word_is_nonzero(p: Reg, w: Reg) -> InstData {
    mk(
        Opcode::Setp,
        vec![Modifier::Word("ne".into()), Modifier::Type(Type::U32)],
        vec![Operand::Reg(p), Operand::Reg(w), int(0)],
    )
}

/// The modifiers of a slot reload: `ld.volatile.shared` inside loops. ptxas hoists a plain
/// `ld.shared` of a loop-invariant slot out of the loop (nothing in the loop stores to it) and
/// keeps the value in a register across the loop again — the pressure the demotion was meant to
/// remove. Measured with `cargo bench --bench spill_baseline` (sm_80): as many configurations
/// cleared as with plain reloads, a smaller spill area in five (e.g. `heavy_stencil25` at 48
/// registers: 6160 B → 16 B), a larger one in one; docs/spill.md.
fn reload_mods(ty: Type, in_loop: bool) -> Vec<Modifier> {
    if in_loop {
        shared_volatile(ty)
    } else {
        shared(ty)
    }
}

fn shared(ty: Type) -> Vec<Modifier> {
    vec![Modifier::Space(StateSpace::Shared), Modifier::Type(ty)]
}

/// `ld.volatile.shared`: a packed-predicate word is reloaded at each use. Without `volatile`
/// ptxas hoists the loop-invariant reloads and their bit tests out of loops and keeps one
/// register per predicate live across them (measured on the `--no-ptxas` output of
/// lit-tests/spill/packed-predicates.ptx at `.maxnreg 28`: 8 B of local memory with plain loads,
/// none with volatile ones).
fn shared_volatile(ty: Type) -> Vec<Modifier> {
    vec![
        Modifier::Word("volatile".into()),
        Modifier::Space(StateSpace::Shared),
        Modifier::Type(ty),
    ]
}

/// Rewrites every occurrence of `r` in `body` by `rule`. Returns the number of reloads and stores
/// (or rematerialisations) inserted.
pub fn rewrite_register(
    body: &mut Body,
    r: Reg,
    rule: Rule,
    layout: &Layout,
    bases: &Bases,
    temps: &mut Temps,
) -> (usize, usize) {
    let ty = body.reg(r).ty;
    let stmts = std::mem::take(&mut body.stmts);
    let mut out = Vec::with_capacity(stmts.len() + 16);
    let (mut loads, mut stores) = (0, 0);
    // New temporaries are declared (through the builder) into the statements already rebuilt,
    // which start with the declarations.
    for s in stmts {
        let Stmt::Inst(i) = s else {
            out.push(s);
            continue;
        };
        let a = access(body.inst(i), r);
        if !a.reads && !a.writes {
            out.push(s);
            continue;
        }
        // This instruction's temporaries: positions after those it already holds.
        let k = temps_in(body.inst(i), temps);
        body.stmts = std::mem::take(&mut out);
        let t = temps.get(body, ty, 3 * k);
        let (w0, w1) = match (rule, ty.ty, ty.bits()) {
            (Rule::Slot(_), Type::Pred, _) => (
                Some(temps.get(body, RegType::scalar(Type::B32), 3 * k + 1)),
                None,
            ),
            (Rule::Slot(_), _, 64) => (
                Some(temps.get(body, RegType::scalar(Type::B32), 3 * k + 1)),
                Some(temps.get(body, RegType::scalar(Type::B32), 3 * k + 2)),
            ),
            (Rule::LaneAffine { .. }, _, 64) => (
                Some(temps.get(body, RegType::scalar(Type::B32), 3 * k + 1)),
                None,
            ),
            (Rule::Affine { .. }, _, 64) => (
                Some(temps.get(body, RegType::scalar(Type::B32), 3 * k + 1)),
                Some(temps.get(body, RegType::scalar(Type::B32), 3 * k + 2)),
            ),
            (Rule::Affine { .. }, _, _) => (
                Some(temps.get(body, RegType::scalar(Type::B32), 3 * k + 1)),
                None,
            ),
            (Rule::PackedPred { .. }, _, _) => (
                Some(temps.get(body, RegType::scalar(Type::B32), 3 * k + 1)),
                Some(temps.get(body, RegType::scalar(Type::B32), 3 * k + 2)),
            ),
            _ => (None, None),
        };
        out = std::mem::take(&mut body.stmts);
        if a.reads {
            let in_loop = bases.in_loop.contains(i.index());
            for inst in reload(rule, ty, t, (w0, w1), layout, bases, in_loop) {
                let id = push(body, inst);
                out.push(Stmt::Inst(id));
                loads += 1;
            }
        }
        rename(body.inst_mut(i), r, t);
        out.push(Stmt::Inst(i));
        if a.writes {
            let seq = match rule {
                Rule::Slot(slot) => store(slot, ty, t, w0, w1, layout, bases),
                Rule::Affine { slot, coef } => {
                    let mut seq = affine_base(ty, t, w0, coef);
                    seq.extend(store(slot, ty, t, w0, w1, layout, bases));
                    seq
                }
                Rule::PackedPred { slot, bit } => store_bit(slot, bit, t, w0, w1, layout, bases),
                _ => Vec::new(),
            };
            for inst in seq {
                let id = push(body, inst);
                out.push(Stmt::Inst(id));
                stores += 1;
            }
        }
    }
    body.stmts = out;
    (loads, stores)
}

/// The first free temporary position for an instruction: one past the positions of the pool
/// temporaries it already uses.
fn temps_in(inst: &InstData, temps: &Temps) -> usize {
    let mut used = 0;
    let mut regs = Vec::new();
    for_each_reg_role(inst, |x, _| regs.push(x));
    for ((_, k), reg) in &temps.pool {
        if regs.contains(reg) {
            used = used.max(k / 3 + 1);
        }
    }
    used
}

fn push(body: &mut Body, inst: InstData) -> Inst {
    let id = Inst::new(body.insts.len());
    body.insts.push(inst);
    id
}

fn slot_addr(slot: Slot, k: u32, layout: &Layout, bases: &Bases) -> Address {
    let off = layout.offset(slot, k);
    match slot {
        Slot::Thread(_) => Address {
            base: AddrBase::Reg(
                bases
                    .thread
                    .expect("thread base exists when thread slots do"),
            ),
            offset: off,
        },
        Slot::Warp(_) => Address {
            base: AddrBase::Reg(bases.warp.expect("warp base exists when warp slots do")),
            offset: off,
        },
        Slot::Block(_) => Address {
            base: AddrBase::Sym(bases.array.as_str().into()),
            offset: off,
        },
    }
}

fn laneid() -> Operand {
    Operand::Special(SpecialOperand::Named(SpecialReg::Laneid, None))
}

/// `t = t + k·%laneid` in `t`'s width (`k = -coef` turns a value into its uniform base,
/// `k = coef` rebuilds it): `mov w, %laneid` then one `mad` (`mad.wide.s32` for 64-bit values).
fn add_lane_multiple(ty: RegType, t: Reg, w: Option<Reg>, k: i64) -> Vec<InstData> {
    let w = w.expect("affine rules get a 32-bit temporary");
    let mad = if ty.bits() == 64 {
        mk(
            Opcode::Mad,
            vec![Modifier::Word("wide".into()), Modifier::Type(Type::S32)],
            vec![Operand::Reg(t), Operand::Reg(w), int(k), Operand::Reg(t)],
        )
    } else {
        mk(
            Opcode::Mad,
            vec![Modifier::Word("lo".into()), Modifier::Type(Type::S32)],
            vec![Operand::Reg(t), Operand::Reg(w), int(k), Operand::Reg(t)],
        )
    };
    vec![
        mk(
            Opcode::Mov,
            vec![Modifier::Type(Type::U32)],
            vec![Operand::Reg(w), laneid()],
        ),
        mad,
    ]
}

/// After a definition under the affine rule: `t -= coef·%laneid` (the uniform base, stored next).
fn affine_base(ty: RegType, t: Reg, w: Option<Reg>, coef: i64) -> Vec<InstData> {
    add_lane_multiple(ty, t, w, -coef)
}

/// The instructions that bring `rule`'s value into `t` (`words`: the 32-bit temporaries the rule
/// needs) before an instruction, inside a loop or not.
fn reload(
    rule: Rule,
    ty: RegType,
    t: Reg,
    words: (Option<Reg>, Option<Reg>),
    layout: &Layout,
    bases: &Bases,
    in_loop: bool,
) -> Vec<InstData> {
    let (w0, w1) = words;
    let bits = ty.bits();
    match rule {
        Rule::Constant(c) => {
            let bt = if bits == 64 {
                Type::B64
            } else if bits == 16 {
                Type::B16
            } else {
                Type::B32
            };
            vec![mk(
                Opcode::Mov,
                vec![Modifier::Type(bt)],
                vec![Operand::Reg(t), int(c)],
            )]
        }
        Rule::LaneAffine { coef, base } => {
            let lane = Operand::Special(SpecialOperand::Named(SpecialReg::Laneid, None));
            if bits == 64 {
                let w = w0.unwrap_or(t);
                vec![
                    mk(
                        Opcode::Mov,
                        vec![Modifier::Type(Type::U32)],
                        vec![Operand::Reg(w), lane],
                    ),
                    mk(
                        Opcode::Cvt,
                        vec![Modifier::Type(Type::U64), Modifier::Type(Type::U32)],
                        vec![Operand::Reg(t), Operand::Reg(w)],
                    ),
                    mk(
                        Opcode::Mad,
                        vec![Modifier::Word("lo".into()), Modifier::Type(Type::S64)],
                        vec![Operand::Reg(t), Operand::Reg(t), int(coef), int(base)],
                    ),
                ]
            } else {
                vec![
                    mk(
                        Opcode::Mov,
                        vec![Modifier::Type(Type::U32)],
                        vec![Operand::Reg(t), lane],
                    ),
                    mk(
                        Opcode::Mad,
                        vec![Modifier::Word("lo".into()), Modifier::Type(Type::S32)],
                        vec![Operand::Reg(t), Operand::Reg(t), int(coef), int(base)],
                    ),
                ]
            }
        }
        Rule::PackedPred { slot, bit } => {
            let w = w0.expect("packed predicates get a 32-bit temporary");
            vec![
                load_slot(
                    shared_volatile(Type::U32),
                    w,
                    slot_addr(slot, 0, layout, bases),
                ),
                mk(
                    Opcode::And,
                    vec![Modifier::Type(Type::B32)],
                    vec![Operand::Reg(w), Operand::Reg(w), int(bit_mask(bit))],
                ),
                word_is_nonzero(t, w),
            ]
        }
        Rule::Affine { slot, coef } => {
            let mut seq = reload(Rule::Slot(slot), ty, t, words, layout, bases, in_loop);
            seq.extend(add_lane_multiple(ty, t, w0, coef));
            seq
        }
        Rule::Slot(slot) => {
            if ty.ty == Type::Pred {
                let w = w0.unwrap_or(t);
                vec![
                    load_slot(
                        reload_mods(Type::U32, in_loop),
                        w,
                        slot_addr(slot, 0, layout, bases),
                    ),
                    word_is_nonzero(t, w),
                ]
            } else if bits == 64 {
                let (lo, hi) = (w0.unwrap_or(t), w1.unwrap_or(t));
                vec![
                    load_slot(
                        reload_mods(Type::B32, in_loop),
                        lo,
                        slot_addr(slot, 0, layout, bases),
                    ),
                    load_slot(
                        reload_mods(Type::B32, in_loop),
                        hi,
                        slot_addr(slot, 1, layout, bases),
                    ),
                    mk(
                        Opcode::Mov,
                        vec![Modifier::Type(Type::B64)],
                        vec![
                            Operand::Reg(t),
                            Operand::Vector(vec![Operand::Reg(lo), Operand::Reg(hi)]),
                        ],
                    ),
                ]
            } else {
                let lt = if bits == 16 { Type::B16 } else { Type::B32 };
                vec![load_slot(
                    reload_mods(lt, in_loop),
                    t,
                    slot_addr(slot, 0, layout, bases),
                )]
            }
        }
    }
}

fn store(
    slot: Slot,
    ty: RegType,
    t: Reg,
    w0: Option<Reg>,
    w1: Option<Reg>,
    layout: &Layout,
    bases: &Bases,
) -> Vec<InstData> {
    let bits = ty.bits();
    if ty.ty == Type::Pred {
        let w = w0.unwrap_or(t);
        vec![
            mk(
                Opcode::Selp,
                vec![Modifier::Type(Type::U32)],
                vec![Operand::Reg(w), int(1), int(0), Operand::Reg(t)],
            ),
            store_slot(shared(Type::U32), slot_addr(slot, 0, layout, bases), w),
        ]
    } else if bits == 64 {
        let (lo, hi) = (w0.unwrap_or(t), w1.unwrap_or(t));
        vec![
            mk(
                Opcode::Mov,
                vec![Modifier::Type(Type::B64)],
                vec![
                    Operand::Vector(vec![Operand::Reg(lo), Operand::Reg(hi)]),
                    Operand::Reg(t),
                ],
            ),
            store_slot(shared(Type::B32), slot_addr(slot, 0, layout, bases), lo),
            store_slot(shared(Type::B32), slot_addr(slot, 1, layout, bases), hi),
        ]
    } else {
        let st = if bits == 16 { Type::B16 } else { Type::B32 };
        vec![store_slot(shared(st), slot_addr(slot, 0, layout, bases), t)]
    }
}

/// Bit `bit` of a 32-bit word as a signed 32-bit immediate (bit 31 is `i32::MIN`).
fn bit_mask(bit: u32) -> i64 {
    i64::from((1u32 << bit) as i32)
}

/// After a definition of a packed predicate held in `t`: reload its word, replace bit `bit` by
/// `t`, store the word back.
fn store_bit(
    slot: Slot,
    bit: u32,
    t: Reg,
    w0: Option<Reg>,
    w1: Option<Reg>,
    layout: &Layout,
    bases: &Bases,
) -> Vec<InstData> {
    let w = w0.expect("packed predicates get two 32-bit temporaries");
    let b = w1.expect("packed predicates get two 32-bit temporaries");
    let addr = || slot_addr(slot, 0, layout, bases);
    vec![
        load_slot(shared_volatile(Type::U32), w, addr()),
        mk(
            Opcode::Selp,
            vec![Modifier::Type(Type::U32)],
            vec![Operand::Reg(b), int(bit_mask(bit)), int(0), Operand::Reg(t)],
        ),
        mk(
            Opcode::And,
            vec![Modifier::Type(Type::B32)],
            vec![Operand::Reg(w), Operand::Reg(w), int(!bit_mask(bit))],
        ),
        mk(
            Opcode::Or,
            vec![Modifier::Type(Type::B32)],
            vec![Operand::Reg(w), Operand::Reg(w), Operand::Reg(b)],
        ),
        store_slot(shared(Type::U32), addr(), w),
    ]
}

/// Inserts, before the first instruction of the body, the code that computes the base registers
/// `bases.thread` and `bases.warp` (declared by the caller): the linear thread id
/// `tid.x + ntid.x·(tid.y + ntid.y·tid.z)`, then `array + thread_region + 4·tid` and
/// `array + warp_region + 4·(tid / 32)`.
pub fn emit_bases(
    body: &mut Body,
    layout: &Layout,
    bases: &Bases,
    want_thread: bool,
    want_warp: bool,
) {
    if !want_thread && !want_warp {
        return;
    }
    let mut b = Builder::new(body);
    let tid = b.new_reg(Type::B32);
    let tmp = b.new_reg(Type::B32);
    let first = b
        .body()
        .stmts
        .iter()
        .position(|s| matches!(s, Stmt::Inst(_) | Stmt::Label(_)))
        .unwrap_or(b.body().stmts.len());
    b.at(crate::ptx::builder::InsertPoint::Stmt(first));
    let sreg = |r: SpecialReg, c: crate::ptx::Component| {
        Operand::Special(SpecialOperand::Named(r, Some(c)))
    };
    use crate::ptx::Component::{X, Y, Z};
    // ptxas takes special registers only in `mov`/`cvt`: read each into a register first.
    let comp = b.new_reg(Type::B32);
    b.mov(Type::U32, tid, sreg(SpecialReg::Tid, Z));
    b.mov(Type::U32, tmp, sreg(SpecialReg::Ntid, Y));
    b.mov(Type::U32, comp, sreg(SpecialReg::Tid, Y));
    b.mad_lo(
        Type::U32,
        tid,
        Operand::Reg(tid),
        Operand::Reg(tmp),
        Operand::Reg(comp),
    );
    b.mov(Type::U32, tmp, sreg(SpecialReg::Ntid, X));
    b.mov(Type::U32, comp, sreg(SpecialReg::Tid, X));
    b.mad_lo(
        Type::U32,
        tid,
        Operand::Reg(tid),
        Operand::Reg(tmp),
        Operand::Reg(comp),
    );
    b.mov(Type::U32, tmp, Operand::Sym(bases.array.as_str().into()));
    if let (true, Some(t)) = (want_thread, bases.thread) {
        let base = b.new_reg(Type::B32);
        b.binary(
            Opcode::Add,
            &[],
            Type::U32,
            base,
            Operand::Reg(tmp),
            int(layout.thread_base_offset()),
        );
        b.mad_lo(Type::U32, t, Operand::Reg(tid), int(4), Operand::Reg(base));
    }
    if let (true, Some(w)) = (want_warp, bases.warp) {
        let base = b.new_reg(Type::B32);
        b.binary(
            Opcode::Add,
            &[],
            Type::U32,
            base,
            Operand::Reg(tmp),
            int(layout.warp_base_offset()),
        );
        b.binary(Opcode::Shr, &[], Type::U32, w, Operand::Reg(tid), int(5));
        b.mad_lo(Type::U32, w, Operand::Reg(w), int(4), Operand::Reg(base));
    }
}
