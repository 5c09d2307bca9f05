//! The PTX front end of the divergence analysis: values are the registers of a function body.
//!
//! - A register written by several instructions takes the meet of what each definition computes
//!   (Sampaio et al. §2 on SSA elimination: "the compiler must propagate the divergent status of
//!   variables when merging variable names"). A guarded definition (`@%p mov …`) under a divergent
//!   guard is divergent (some lanes keep the old value); under a warp-uniform guard it is at most
//!   warp-uniform.
//! - Sources of divergence: `%tid` (affine with coefficient 1 only when the block shape allows it,
//!   see [`super::BlockShape::tid`]), `%laneid` (`1·T + 0`), `%lanemask_*`, clocks and performance
//!   counters, atomics, loads other than the uniform ones below, calls, and every instruction the
//!   operand-role tables do not understand.
//! - Uniform loads: `ld.param` of a kernel parameter (block scope); `ld.const`, `ld.global.nc` and
//!   `ldu` at a uniform address (the scope of the address: the data cannot change); weak
//!   `ld.global`/`ld.shared` at a uniform address (warp scope: one warp-wide instruction reads one
//!   location once). Strong (`.volatile`, `.relaxed`, `.acquire`) loads, local and generic loads are
//!   divergent.
//! - Warp collectives: `vote`, `activemask`, `redux.sync`, `match.all`, the lane `elect.sync`
//!   returns, and `shfl.sync.idx` from a uniform source lane are warp-uniform; `bar.red` results are
//!   block-uniform.
//! - Sync dependence (see [`super::engine`]): a register defined on paths from a non-uniform branch
//!   that meet at a join block, and live into that block, is tainted; so is a register defined in a
//!   cycle with a divergent exit and live into one of the cycle's exits.

use std::collections::HashSet;

use crate::machine::slots::slots;
use crate::machine::{Block, Cfg, DomTree, LoopInfo};
use crate::ptx::roles::{self, Role};
use crate::ptx::{
    AddrBase, Body, FuncDirective, FuncKind, Function, Imm, Inst, InstData, Modifier, Module,
    Opcode, Operand, Reg, SpecialOperand, SpecialReg, StateSpace, Type,
};

use super::engine::{self, Branch, CycleData, Cycles, DivergenceIr};
use super::lattice::{ops, Abs, Class, NoWrap, Scope, Taint};
use super::{BlockShape, ClassCounts, DivergenceError, Options};

/// The class of one register.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegisterClass {
    /// The register.
    pub reg: Reg,
    /// Its PTX name.
    pub name: String,
    /// The abstract value (with scope, alignment and exactness).
    pub abs: Abs,
    /// Its classification.
    pub class: Class,
}

/// The result of the analysis for one function.
#[derive(Clone, Debug)]
pub struct FunctionDivergence {
    /// The function's name.
    pub name: String,
    /// True for `.entry` kernels.
    pub is_kernel: bool,
    /// What was known about the block shape.
    pub shape: BlockShape,
    /// Every register the body reads or writes, in declaration order.
    pub registers: Vec<RegisterClass>,
    /// Why some sources had to be treated conservatively.
    pub notes: Vec<String>,
    /// Branches whose condition differs between the lanes of a warp.
    pub divergent_branches: usize,
    /// Branches whose condition is warp-uniform but may differ between warps.
    pub warp_uniform_branches: usize,
    /// True when irreducible control flow forced the conservative fallback.
    pub irreducible_fallback: bool,
    by_reg: Vec<Abs>,
}

impl FunctionDivergence {
    /// The abstract value of register `r` (⊤ for registers the body never mentions).
    pub fn abs(&self, r: Reg) -> Abs {
        self.by_reg.get(r.index()).copied().unwrap_or(Abs::TOP)
    }

    /// The class of register `r`.
    pub fn class(&self, r: Reg) -> Class {
        self.abs(r).class()
    }

    /// How many registers fall in each class.
    pub fn counts(&self) -> ClassCounts {
        let mut c = ClassCounts::default();
        for r in &self.registers {
            c.add(&r.class);
        }
        c
    }
}

/// Analyses every function with a body.
pub fn analyze_module(m: &Module, opts: &Options) -> Vec<FunctionDivergence> {
    m.functions()
        .filter(|f| f.body.is_some())
        .filter_map(|f| analyze_function(f, opts).ok())
        .collect()
}

/// Analyses one function.
pub fn analyze_function(
    f: &Function,
    opts: &Options,
) -> Result<FunctionDivergence, DivergenceError> {
    let body = f
        .body
        .as_ref()
        .ok_or_else(|| DivergenceError::NoBody(f.name.to_string()))?;
    let ir = PtxIr::new(f, body, opts);
    let sol = engine::solve(&ir);
    let mut mentioned = vec![false; body.regs.len()];
    for &i in &ir.reachable_insts {
        roles::for_each_reg_role(body.inst(i), |r, _| {
            if let Some(m) = mentioned.get_mut(r.index()) {
                *m = true;
            }
        });
    }
    let registers = (0..body.regs.len())
        .filter(|&i| mentioned[i])
        .map(|i| {
            let reg = Reg::new(i);
            let abs = sol.values[i];
            RegisterClass {
                reg,
                name: body.reg_name(reg).to_string(),
                abs,
                class: abs.class(),
            }
        })
        .collect();
    let mut notes = ir.notes();
    if sol.irreducible_fallback {
        notes.push(
            "irreducible control flow with a non-uniform branch: every register is treated as \
             non-uniform at that branch's level"
                .into(),
        );
    }
    Ok(FunctionDivergence {
        name: f.name.to_string(),
        is_kernel: f.kind == FuncKind::Entry,
        shape: ir.shape,
        registers,
        notes,
        divergent_branches: sol
            .branches
            .iter()
            .filter(|t| **t == Taint::Divergent)
            .count(),
        warp_uniform_branches: sol.branches.iter().filter(|t| **t == Taint::Warp).count(),
        irreducible_fallback: sol.irreducible_fallback,
        by_reg: sol.values,
    })
}

/// The engine's view of one PTX function body.
struct PtxIr<'a> {
    body: &'a Body,
    opts: &'a Options,
    shape: BlockShape,
    kernel_params: HashSet<&'a str>,
    cfg: Cfg,
    loops: LoopInfo,
    liveness: SparseLiveness,
    /// The definitions: reachable instructions that write at least one register.
    defs: Vec<Inst>,
    /// Whether each register has a reachable definition.
    has_def: Vec<bool>,
    /// The definitions reading each register.
    users: Vec<Vec<u32>>,
    succs: Vec<Vec<u32>>,
    rpo: Vec<u32>,
    cycles: Cycles,
    branch: Vec<Branch>,
    reachable_insts: Vec<Inst>,
}

impl<'a> PtxIr<'a> {
    fn new(f: &'a Function, body: &'a Body, opts: &'a Options) -> PtxIr<'a> {
        let cfg = Cfg::compute(body);
        let dt = DomTree::compute(&cfg);
        let loops = LoopInfo::compute(&cfg, &dt);
        let liveness = SparseLiveness::compute(body, &cfg);
        let reqntid = f.directives.iter().find_map(|d| match d {
            FuncDirective::ReqNtid(v) => Some(v.as_slice()),
            _ => None,
        });
        let shape = BlockShape::new(reqntid, opts);
        let kernel_params = if f.kind == FuncKind::Entry {
            f.param_list()
                .iter()
                .filter_map(|p| p.name.as_deref())
                .collect()
        } else {
            HashSet::new()
        };

        let nregs = body.regs.len();
        let mut defs: Vec<Inst> = Vec::new();
        let mut has_def = vec![false; nregs];
        let mut users: Vec<Vec<u32>> = vec![Vec::new(); nregs];
        let mut reachable_insts = Vec::new();
        let mut uses_buf: Vec<Reg> = Vec::new();
        let mut defs_buf: Vec<Reg> = Vec::new();
        for &b in cfg.rpo() {
            for &i in cfg.insts(b) {
                reachable_insts.push(i);
                uses_buf.clear();
                defs_buf.clear();
                roles::for_each_reg_role(body.inst(i), |r, role| {
                    if matches!(role, Role::Use | Role::UseDef) {
                        uses_buf.push(r);
                    }
                    if matches!(role, Role::Def | Role::UseDef) {
                        defs_buf.push(r);
                    }
                });
                if defs_buf.is_empty() {
                    continue;
                }
                let d = defs.len() as u32;
                defs.push(i);
                for &r in &defs_buf {
                    if let Some(h) = has_def.get_mut(r.index()) {
                        *h = true;
                    }
                }
                uses_buf.sort_unstable();
                uses_buf.dedup();
                for &u in &uses_buf {
                    if let Some(list) = users.get_mut(u.index()) {
                        list.push(d);
                    }
                }
            }
        }
        for u in &mut users {
            u.sort_unstable();
            u.dedup();
        }

        let nb = cfg.num_blocks();
        let succs: Vec<Vec<u32>> = (0..nb)
            .map(|b| cfg.succs(Block::new(b)).iter().map(|s| s.0).collect())
            .collect();
        let rpo: Vec<u32> = cfg.rpo().iter().map(|b| b.0).collect();

        let mut cycles = Cycles {
            cycles: Vec::with_capacity(loops.num_loops()),
            innermost: (0..nb)
                .map(|b| loops.innermost(Block::new(b)).map(|l| l.0))
                .collect(),
        };
        for l in loops.loops() {
            let blocks = loops.blocks(l);
            let mut exits: Vec<u32> = Vec::new();
            for &b in blocks {
                for &s in cfg.succs(b) {
                    if !loops.contains(l, s) {
                        exits.push(s.0);
                    }
                }
            }
            exits.sort_unstable();
            exits.dedup();
            cycles.cycles.push(CycleData {
                header: loops.header(l).0,
                parent: loops.parent(l).map(|p| p.0),
                depth: loops.depth(l),
                reducible: true,
                exits,
            });
        }
        if !loops.is_reducible() {
            // Irreducible regions are not natural loops: tell the engine to be conservative.
            cycles.cycles.push(CycleData {
                header: u32::MAX,
                parent: None,
                depth: u32::MAX,
                reducible: false,
                exits: Vec::new(),
            });
        }

        let branch = (0..nb)
            .map(|b| {
                let b = Block::new(b);
                if cfg.succs(b).len() < 2 {
                    return Branch::None;
                }
                let Some(t) = cfg.terminator(body, b) else {
                    return Branch::None;
                };
                let inst = body.inst(t);
                match inst.opcode {
                    Opcode::Bra => match inst.guard {
                        Some(g) => Branch::On(g.reg.0),
                        None => Branch::None,
                    },
                    Opcode::Brx => {
                        if inst.guard.is_some() {
                            return Branch::Divergent;
                        }
                        match inst.operands.first() {
                            Some(Operand::Reg(r)) => Branch::On(r.0),
                            _ => Branch::Divergent,
                        }
                    }
                    // A guarded `ret`/`exit`/`trap`: the lanes that leave never come back, so
                    // nothing merges.
                    Opcode::Ret | Opcode::Exit | Opcode::Trap => Branch::None,
                    _ => Branch::Divergent,
                }
            })
            .collect();

        PtxIr {
            body,
            opts,
            shape,
            kernel_params,
            cfg,
            loops,
            liveness,
            defs,
            has_def,
            users,
            succs,
            rpo,
            cycles,
            branch,
            reachable_insts,
        }
    }

    /// Notes on sources treated conservatively because of the block shape.
    fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        let mut seen = [false; 3];
        for &i in &self.reachable_insts {
            for op in &self.body.inst(i).operands {
                visit_specials(op, &mut |s| {
                    if let SpecialOperand::Named(SpecialReg::Tid, c) = s {
                        let k = component_index(*c);
                        seen[k.min(2)] = true;
                    }
                });
            }
        }
        for (k, s) in seen.iter().enumerate() {
            if *s {
                if let (_, Some(n)) = self.shape.tid(k) {
                    if !notes.contains(&n) {
                        notes.push(n);
                    }
                }
            }
        }
        notes
    }

    fn nowrap(&self) -> NoWrap {
        if self.opts.assume_no_wrap {
            NoWrap::BOTH
        } else {
            NoWrap::NONE
        }
    }

    fn reg_width(&self, r: Reg) -> u32 {
        self.body
            .regs
            .get(r.index())
            .map_or(64, |d| d.ty.bits().clamp(1, 64))
    }

    fn reg_abs(&self, r: Reg, w: u32, state: &[Abs]) -> Abs {
        let a = state.get(r.index()).copied().unwrap_or(Abs::DIVERGENT);
        let rw = self.reg_width(r);
        if self
            .body
            .regs
            .get(r.index())
            .is_some_and(|d| d.ty.vec.is_some())
        {
            return ops::uniform_only(&[a]);
        }
        if rw == w || a.is_uniform() || a.is_top() || a.is_divergent() {
            if a.is_uniform() && rw != w {
                return ops::uniform_only(&[a]);
            }
            a
        } else if rw > w {
            ops::trunc(a, w)
        } else {
            ops::uniform_only(&[a])
        }
    }

    fn special(&self, s: &SpecialOperand) -> Abs {
        use SpecialReg::*;
        match s {
            SpecialOperand::EnvReg(_) => Abs::uniform(Scope::Block),
            SpecialOperand::Pm { .. } => Abs::DIVERGENT,
            SpecialOperand::Named(r, c) => {
                let k = component_index(*c);
                match r {
                    Tid => {
                        if c.is_none() {
                            Abs::DIVERGENT
                        } else {
                            self.shape.tid(k).0
                        }
                    }
                    Ntid => {
                        if c.is_none() {
                            Abs::uniform(Scope::Block)
                        } else {
                            self.shape.ntid(k)
                        }
                    }
                    Laneid => Abs::constant_affine(1, 0, super::lattice::EXACT_BOTH),
                    WarpSz => Abs::constant(32),
                    Warpid | Smid => Abs::uniform(Scope::Warp),
                    Nwarpid
                    | Ctaid
                    | Nctaid
                    | Nsmid
                    | Gridid
                    | IsExplicitCluster
                    | Clusterid
                    | Nclusterid
                    | ClusterCtaid
                    | ClusterNctaid
                    | ClusterCtarank
                    | ClusterNctarank
                    | TotalSmemSize
                    | AggrSmemSize
                    | DynamicSmemSize
                    | ReservedSmemOffsetBegin
                    | ReservedSmemOffsetEnd
                    | ReservedSmemOffsetCap
                    | CurrentGraphExec => Abs::uniform(Scope::Block),
                    LanemaskEq | LanemaskLe | LanemaskLt | LanemaskGe | LanemaskGt | Clock
                    | ClockHi | Clock64 | Globaltimer | GlobaltimerLo | GlobaltimerHi => {
                        Abs::DIVERGENT
                    }
                }
            }
        }
    }

    /// The abstract value of a source operand read at width `w`.
    fn operand(&self, op: &Operand, w: u32, state: &[Abs]) -> Abs {
        match op {
            Operand::Reg(r) => self.reg_abs(*r, w, state),
            Operand::RegOffset(r, k) => ops::add(
                self.reg_abs(*r, w, state),
                Abs::constant(super::lattice::norm(*k, w)),
                w,
                self.nowrap(),
            ),
            Operand::NotReg(r) => ops::uniform_only(&[self.reg_abs(*r, 1, state)]),
            Operand::RegComponent(r, _) => {
                ops::uniform_only(&[state.get(r.index()).copied().unwrap_or(Abs::DIVERGENT)])
            }
            Operand::Special(s) => {
                let a = self.special(s);
                if w < 32 {
                    ops::trunc(a, w)
                } else {
                    a
                }
            }
            Operand::Imm(imm) => Abs::constant(super::lattice::norm(imm_value(imm), w)),
            Operand::Sym(_) | Operand::SymOffset(..) => Abs::uniform(Scope::Block),
            Operand::Addr(a) => self.address(a, state),
            Operand::Vector(v) | Operand::List(v) | Operand::Bracket(v) => {
                let parts: Vec<Abs> = v.iter().map(|o| self.operand(o, 64, state)).collect();
                ops::uniform_only(&parts)
            }
            Operand::Pair(a, b) => {
                ops::uniform_only(&[self.operand(a, w, state), self.operand(b, w, state)])
            }
            Operand::Label(_) | Operand::Sink => Abs::constant(0),
        }
    }

    fn address(&self, a: &crate::ptx::Address, state: &[Abs]) -> Abs {
        match &a.base {
            AddrBase::Reg(r) => {
                let w = self.reg_width(*r);
                ops::add(
                    self.reg_abs(*r, w, state),
                    Abs::constant(super::lattice::norm(a.offset, w)),
                    w,
                    self.nowrap(),
                )
            }
            AddrBase::Sym(_) => Abs::uniform(Scope::Block),
            AddrBase::None => Abs::constant(a.offset),
        }
    }

    /// Every source operand of `inst` (positions after the `ndefs` results), read at width `w`.
    fn sources(&self, inst: &InstData, ndefs: usize, w: u32, state: &[Abs]) -> Vec<Abs> {
        inst.operands
            .iter()
            .skip(ndefs)
            .map(|o| self.operand(o, w, state))
            .collect()
    }

    /// Computes what `inst` writes, calling `out(reg, value)` for each register it defines.
    fn eval_inst(&self, inst: &InstData, state: &[Abs], out: &mut dyn FnMut(Reg, Abs)) {
        let e = roles::effects(inst);
        let guard_taint = inst
            .guard
            .map(|g| self.reg_abs(g.reg, 1, state).taint())
            .unwrap_or(Taint::None);
        let roles_v = roles::operand_roles(inst);
        let emit_all = |v: Abs, out: &mut dyn FnMut(Reg, Abs)| {
            roles::for_each_reg_role(inst, |r, role| {
                if matches!(role, Role::Def | Role::UseDef) {
                    let w = self.reg_width(r);
                    out(r, fit(v, w).cap(guard_taint));
                }
            });
        };
        if e.opaque || matches!(e.control, roles::Control::Call) {
            emit_all(Abs::DIVERGENT, out);
            return;
        }
        // Results from the first operand; the rest are sources.
        let ndefs = roles::result_operand_count(inst).max(1);
        let v = self.compute(inst, ndefs, state, &e);
        match v {
            Computed::One(v) => emit_all(v, out),
            Computed::PerDest(vals) => {
                // Destination registers in operand order (vector elements, pair members).
                let mut k = 0;
                if let Some(op0) = inst.operands.first() {
                    let mut regs = Vec::new();
                    op0.for_each_reg(&mut |r| regs.push(r));
                    for r in regs {
                        let val = vals.get(k).copied().unwrap_or(Abs::DIVERGENT);
                        k += 1;
                        let w = self.reg_width(r);
                        out(r, fit(val, w).cap(guard_taint));
                    }
                }
                // Anything else written (UseDef positions): divergent.
                for (i, (op, role)) in inst.operands.iter().zip(&roles_v).enumerate() {
                    if i > 0 && matches!(role, Role::Def | Role::UseDef) {
                        op.for_each_reg(&mut |r| out(r, Abs::DIVERGENT));
                    }
                }
            }
        }
    }

    fn compute(
        &self,
        inst: &InstData,
        ndefs: usize,
        state: &[Abs],
        e: &roles::Effects,
    ) -> Computed {
        use Opcode::{
            Activemask, Add, Addc, Alloca, And, Atom, Bar, Barrier, Bfe, Cvt, Cvta, Elect, Ld, Ldu,
            Mad, Madc, Match, Mov, Mul, Neg, Not, Or, Redux, Selp, Set, Setp, Shfl, Shl, Shr,
            Stacksave, Sub, Subc, Vote, Xor,
        };
        let ty = inst.ty();
        let w = ty.map_or(32, |t| t.bits().clamp(1, 64));
        let int = ty.is_some_and(is_int_type);
        let nw = self.nowrap();
        let src = |i: usize, w: u32| -> Abs {
            inst.operands
                .get(ndefs + i)
                .map_or(Abs::DIVERGENT, |o| self.operand(o, w, state))
        };
        let one = Computed::One;
        match &inst.opcode {
            Mov => {
                let (Some(d), Some(s)) = (inst.operands.first(), inst.operands.get(1)) else {
                    return one(Abs::DIVERGENT);
                };
                match (d, s) {
                    // Unpack: the pieces of a uniform value are uniform.
                    (Operand::Vector(parts), _) => {
                        let x = self.operand(s, 64, state);
                        let piece = ops::uniform_only(&[x]);
                        Computed::PerDest(vec![piece; parts.len()])
                    }
                    _ => {
                        let dw = first_reg_width(self, d).unwrap_or(w);
                        one(self.operand(s, dw, state))
                    }
                }
            }
            Add | Sub if int && !inst.has_word("sat") => {
                let (a, b) = (src(0, w), src(1, w));
                one(if inst.opcode == Add {
                    ops::add(a, b, w, nw)
                } else {
                    ops::sub(a, b, w, nw)
                })
            }
            Mul | Mad if int => {
                let signed = ty.is_some_and(Type::is_signed);
                let (a, b) = (src(0, w), src(1, w));
                let (prod, pw) = if inst.has_word("wide") {
                    let w2 = (2 * w).min(64);
                    (
                        ops::mul(
                            ops::ext(a, w, w2, signed),
                            ops::ext(b, w, w2, signed),
                            w2,
                            nw,
                        ),
                        w2,
                    )
                } else if inst.has_word("hi") {
                    (ops::uniform_only(&[a, b]), w)
                } else {
                    (ops::mul(a, b, w, nw), w)
                };
                if inst.opcode == Mad {
                    let c = src(2, pw);
                    if inst.has_word("hi") || inst.has_word("sat") || inst.has_word("cc") {
                        one(ops::uniform_only(&[prod, c]))
                    } else {
                        one(ops::add(prod, c, pw, nw))
                    }
                } else {
                    one(prod)
                }
            }
            Neg if int => one(ops::neg(src(0, w), w)),
            Not if int || ty.is_some_and(|t| matches!(t, Type::B32 | Type::B64 | Type::B16)) => {
                if ty == Some(Type::Pred) {
                    one(ops::uniform_only(&[src(0, 1)]))
                } else {
                    one(ops::sub(Abs::constant(-1), src(0, w), w, NoWrap::NONE))
                }
            }
            Shl if ty != Some(Type::Pred) => one(ops::shl(src(0, w), src(1, 32), w, nw)),
            Shr if ty != Some(Type::Pred) => {
                let arith = ty.is_some_and(Type::is_signed);
                one(ops::shr(src(0, w), src(1, 32), w, arith))
            }
            And if ty != Some(Type::Pred) => one(ops::and(src(0, w), src(1, w), w)),
            Or if ty != Some(Type::Pred) => one(ops::or(src(0, w), src(1, w), w)),
            Xor if ty != Some(Type::Pred) => one(ops::xor(src(0, w), src(1, w), w)),
            Bfe if int => one(self.bit_field(src(0, w), src(1, 32), src(2, 32), w, ty)),
            Cvt => {
                let tys: Vec<Type> = inst.types().collect();
                if let [d, a] = tys[..] {
                    if is_int_type(d) && is_int_type(a) && !inst.has_word("sat") {
                        let (dw, aw) = (d.bits(), a.bits());
                        let x = src(0, aw);
                        return one(if dw < aw {
                            ops::trunc(x, dw)
                        } else if dw > aw {
                            ops::ext(x, aw, dw, a.is_signed())
                        } else {
                            x
                        });
                    }
                }
                one(ops::uniform_only(&self.sources(inst, ndefs, 64, state)))
            }
            Cvta => {
                let x = src(0, w);
                if inst
                    .mods
                    .iter()
                    .any(|m| matches!(m, Modifier::Space(StateSpace::Global)))
                {
                    one(x)
                } else {
                    one(ops::add(x, Abs::uniform(Scope::Block), w, NoWrap::NONE))
                }
            }
            Setp | Set => {
                let cmp_ty = inst.types().last();
                let sources = self.sources(inst, ndefs, w, state);
                let (a, b) = (
                    sources.first().copied().unwrap_or(Abs::DIVERGENT),
                    sources.get(1).copied().unwrap_or(Abs::DIVERGENT),
                );
                let word = inst.mods.iter().find_map(|m| match m {
                    Modifier::Word(w) => Some(&**w),
                    _ => None,
                });
                let r = if cmp_ty.is_some_and(is_int_type) {
                    let eq = matches!(word, Some("eq" | "ne"));
                    let signed = cmp_ty.is_some_and(Type::is_signed)
                        && !matches!(word, Some("lo" | "ls" | "hi" | "hs"));
                    ops::cmp(a, b, eq, signed)
                } else {
                    ops::uniform_only(&[a, b])
                };
                let extra: Vec<Abs> = sources.iter().skip(2).copied().collect();
                if extra.is_empty() {
                    one(r)
                } else {
                    let mut all = extra;
                    all.push(r);
                    one(ops::uniform_only(&all))
                }
            }
            Selp => one(ops::select(src(2, 1), src(0, w), src(1, w))),
            Ld | Ldu => one(self.load(inst, ndefs, state)),
            Atom => one(Abs::DIVERGENT),
            Shfl => one(self.shuffle(inst, ndefs, state)),
            Vote | Activemask | Redux => one(if e.opaque {
                Abs::DIVERGENT
            } else {
                Abs::uniform(Scope::Warp)
            }),
            Match => one(if inst.has_word("all") {
                Abs::uniform(Scope::Warp)
            } else {
                Abs::DIVERGENT
            }),
            Elect => match inst.operands.first() {
                Some(Operand::Pair(..)) => {
                    Computed::PerDest(vec![Abs::uniform(Scope::Warp), Abs::DIVERGENT])
                }
                _ => one(Abs::DIVERGENT),
            },
            Bar | Barrier if inst.has_word("red") => one(Abs::uniform(Scope::Block)),
            Addc | Subc | Madc | Stacksave | Alloca => one(Abs::DIVERGENT),
            _ => {
                if e.mem_read || e.sync != roles::Sync::None || e.async_defs || e.side_effects {
                    one(Abs::DIVERGENT)
                } else {
                    one(ops::uniform_only(&self.sources(inst, ndefs, w, state)))
                }
            }
        }
    }

    /// `bfe.u`/`bfe.s` with constant position and length inside the value: a shift right then a
    /// mask (unsigned), or a shift left then an arithmetic shift right (signed). Otherwise uniform
    /// only when every operand is.
    fn bit_field(&self, a: Abs, pos: Abs, len: Abs, w: u32, ty: Option<Type>) -> Abs {
        let (Some(p), Some(l)) = (pos.as_const(), len.as_const()) else {
            return ops::uniform_only(&[a, pos, len]);
        };
        let w64 = i64::from(w);
        if !(0..w64).contains(&p) || !(1..=w64).contains(&l) || p + l > w64 {
            return ops::uniform_only(&[a, pos, len]);
        }
        if ty.is_some_and(Type::is_signed) {
            let up = ops::shl(a, Abs::constant(w64 - p - l), w, NoWrap::NONE);
            ops::shr(up, Abs::constant(w64 - l), w, true)
        } else {
            let down = ops::shr(a, Abs::constant(p), w, false);
            if l == w64 {
                down
            } else {
                ops::and(down, Abs::constant((1i64 << l) - 1), w)
            }
        }
    }

    fn load(&self, inst: &InstData, ndefs: usize, state: &[Abs]) -> Abs {
        let Some(Operand::Addr(addr)) = inst.operands.get(ndefs) else {
            return Abs::DIVERGENT;
        };
        let strong = ["volatile", "relaxed", "acquire", "mmio", "cv"]
            .iter()
            .any(|w| inst.has_word(w));
        if strong {
            return Abs::DIVERGENT;
        }
        let space = inst.space();
        let a = self.address(addr, state);
        if a.is_top() {
            return Abs::TOP;
        }
        match space {
            Some(StateSpace::Param | StateSpace::ParamEntry) => match &addr.base {
                AddrBase::Sym(name) if self.kernel_params.contains(&**name) => {
                    Abs::uniform(Scope::Block)
                }
                _ => Abs::DIVERGENT,
            },
            Some(StateSpace::Const) => ops::uniform_only(&[a]),
            Some(StateSpace::Global) if inst.has_word("nc") || inst.opcode == Opcode::Ldu => {
                ops::uniform_only(&[a])
            }
            Some(
                StateSpace::Global
                | StateSpace::Shared
                | StateSpace::SharedCta
                | StateSpace::SharedCluster,
            ) => ops::uniform_only(&[a]).cap(Taint::Warp),
            _ => Abs::DIVERGENT,
        }
    }

    fn shuffle(&self, inst: &InstData, ndefs: usize, state: &[Abs]) -> Abs {
        // shfl.sync.idx.b32 d[|p], a, b, c, membermask: every lane reads lane b of its segment;
        // with c = 0x1f (one 32-lane segment, no clamp below 31) and b uniform, one lane for all.
        if !inst.has_word("idx") {
            return Abs::DIVERGENT;
        }
        if matches!(inst.operands.first(), Some(Operand::Pair(..))) {
            // The predicate says whether the source lane was in range: same for all, but keep it
            // simple and treat both results the same way.
        }
        let b = inst
            .operands
            .get(ndefs + 1)
            .map_or(Abs::DIVERGENT, |o| self.operand(o, 32, state));
        let c = inst
            .operands
            .get(ndefs + 2)
            .map_or(Abs::DIVERGENT, |o| self.operand(o, 32, state));
        if b.is_top() || c.is_top() {
            return Abs::TOP;
        }
        match c.as_const() {
            Some(k) if (k & 0x1f) == 0x1f && (k >> 8) & 0x1f == 0 && b.is_uniform() => {
                ops::uniform_only(&[b]).cap(Taint::Warp)
            }
            _ => Abs::DIVERGENT,
        }
    }
}

/// A computed result: one value for every destination, or one per destination register.
enum Computed {
    One(Abs),
    PerDest(Vec<Abs>),
}

/// Re-normalises a value for a destination register of width `w`.
fn fit(v: Abs, w: u32) -> Abs {
    if v.is_top() || v.is_divergent() {
        v
    } else {
        v.canon(w)
    }
}

fn first_reg_width(ir: &PtxIr<'_>, op: &Operand) -> Option<u32> {
    let mut w = None;
    op.for_each_reg(&mut |r| {
        if w.is_none() {
            w = Some(ir.reg_width(r));
        }
    });
    w
}

fn is_int_type(t: Type) -> bool {
    use Type::*;
    matches!(
        t,
        B8 | B16 | B32 | B64 | U8 | U16 | U32 | U64 | S8 | S16 | S32 | S64
    )
}

fn imm_value(imm: &Imm) -> i64 {
    match imm {
        Imm::Int { value, .. } => *value,
        _ => imm.bits() as i64,
    }
}

fn component_index(c: Option<crate::ptx::Component>) -> usize {
    match c {
        Some(crate::ptx::Component::Y) => 1,
        Some(crate::ptx::Component::Z) => 2,
        _ => 0,
    }
}

fn visit_specials(op: &Operand, f: &mut impl FnMut(&SpecialOperand)) {
    match op {
        Operand::Special(s) => f(s),
        Operand::Vector(v) | Operand::List(v) | Operand::Bracket(v) => {
            v.iter().for_each(|o| visit_specials(o, f))
        }
        Operand::Pair(a, b) => {
            visit_specials(a, f);
            visit_specials(b, f);
        }
        _ => {}
    }
}

/// Register liveness at block entries, stored sparsely: for each register, the sorted blocks it
/// is live into. Computed per register by a backward walk from its upward-exposed uses, stopping
/// at blocks that kill it (same kill rules as [`crate::machine::Liveness`], through
/// [`crate::machine::slots`]). Its size is the sum of the live ranges, not blocks × registers,
/// which keeps 100,000-instruction kernels fast.
struct SparseLiveness {
    live_in: Vec<Vec<u32>>,
}

impl SparseLiveness {
    fn compute(body: &Body, cfg: &Cfg) -> SparseLiveness {
        let nregs = body.regs.len();
        let nb = cfg.num_blocks();
        let mut ue: Vec<Vec<u32>> = vec![Vec::new(); nregs];
        let mut kills: Vec<Vec<u32>> = vec![Vec::new(); nregs];
        // Stamps (block + 1) avoid clearing per-block sets.
        let mut killed_in = vec![0u32; nregs];
        let mut used_in = vec![0u32; nregs];
        for b in 0..nb {
            let stamp = b as u32 + 1;
            for &i in cfg.insts(Block::new(b)) {
                let sl = slots(body.inst(i)).slots;
                for s in sl.iter().filter(|s| s.reads()) {
                    let r = s.reg.index();
                    if r < nregs && killed_in[r] != stamp && used_in[r] != stamp {
                        used_in[r] = stamp;
                        ue[r].push(b as u32);
                    }
                }
                for s in sl.iter().filter(|s| s.kills) {
                    let r = s.reg.index();
                    if r < nregs && killed_in[r] != stamp {
                        killed_in[r] = stamp;
                        kills[r].push(b as u32);
                    }
                }
            }
        }
        let mut mark = vec![0u32; nb];
        let mut stack: Vec<u32> = Vec::new();
        let mut live_in = vec![Vec::new(); nregs];
        for r in 0..nregs {
            if ue[r].is_empty() {
                continue;
            }
            let stamp = r as u32 + 1;
            let mut blocks = Vec::new();
            for &b in &ue[r] {
                if mark[b as usize] != stamp {
                    mark[b as usize] = stamp;
                    blocks.push(b);
                    stack.push(b);
                }
            }
            while let Some(b) = stack.pop() {
                for &p in cfg.preds(Block(b)) {
                    let pi = p.index();
                    if mark[pi] == stamp {
                        continue;
                    }
                    // Live out of p; live into p unless p kills it (kills are sorted).
                    if kills[r].binary_search(&p.0).is_ok() {
                        continue;
                    }
                    mark[pi] = stamp;
                    blocks.push(p.0);
                    stack.push(p.0);
                }
            }
            blocks.sort_unstable();
            live_in[r] = blocks;
        }
        SparseLiveness { live_in }
    }

    /// True when register `r` is live into block `b`.
    fn live_in(&self, r: Reg, b: u32) -> bool {
        self.live_in
            .get(r.index())
            .is_some_and(|v| v.binary_search(&b).is_ok())
    }
}

impl DivergenceIr for PtxIr<'_> {
    fn num_values(&self) -> usize {
        self.body.regs.len()
    }

    fn initial(&self, v: u32) -> Abs {
        if self.has_def.get(v as usize).copied().unwrap_or(false) {
            Abs::TOP
        } else {
            // Never written on a reachable path: whatever each lane happens to hold.
            Abs::DIVERGENT
        }
    }

    fn num_defs(&self) -> usize {
        self.defs.len()
    }

    fn eval_def(&self, d: u32, state: &[Abs], out: &mut dyn FnMut(u32, Abs)) {
        if let Some(&i) = self.defs.get(d as usize) {
            self.eval_inst(self.body.inst(i), state, &mut |r, a| out(r.0, a));
        }
    }

    fn users(&self, v: u32) -> &[u32] {
        self.users.get(v as usize).map_or(&[], Vec::as_slice)
    }

    fn num_blocks(&self) -> usize {
        self.cfg.num_blocks()
    }

    fn succs(&self, b: u32) -> &[u32] {
        self.succs.get(b as usize).map_or(&[], Vec::as_slice)
    }

    fn rpo(&self) -> &[u32] {
        &self.rpo
    }

    fn cycles(&self) -> &Cycles {
        &self.cycles
    }

    fn branch(&self, b: u32) -> Branch {
        self.branch.get(b as usize).copied().unwrap_or(Branch::None)
    }

    fn join_values(&self, join: u32, region: &[u32], out: &mut Vec<u32>) {
        for &x in region {
            for &i in self.cfg.insts(Block(x)) {
                roles::for_each_reg_role(self.body.inst(i), |r, role| {
                    if matches!(role, Role::Def | Role::UseDef) && self.liveness.live_in(r, join) {
                        out.push(r.0);
                    }
                });
            }
        }
    }

    fn cycle_exit_values(&self, cycle: u32, out: &mut Vec<u32>) {
        let Some(c) = self.cycles.cycles.get(cycle as usize) else {
            return;
        };
        let l = crate::machine::Loop(cycle);
        if cycle as usize >= self.loops.num_loops() {
            return;
        }
        for &b in self.loops.blocks(l) {
            for &i in self.cfg.insts(b) {
                roles::for_each_reg_role(self.body.inst(i), |r, role| {
                    if matches!(role, Role::Def | Role::UseDef)
                        && c.exits.iter().any(|&e| self.liveness.live_in(r, e))
                    {
                        out.push(r.0);
                    }
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptx::parse_module;

    pub(crate) fn analyze(text: &str, opts: &Options) -> FunctionDivergence {
        let m = parse_module(text, "t.ptx").unwrap();
        let f = m.functions().find(|f| f.body.is_some()).unwrap();
        analyze_function(f, opts).unwrap()
    }

    fn class_of(r: &FunctionDivergence, name: &str) -> String {
        r.registers
            .iter()
            .find(|x| x.name == name)
            .map(|x| x.class.to_string())
            .unwrap_or_else(|| format!("{name} not found"))
    }

    fn kernel(directives: &str, body: &str) -> String {
        format!(
            ".version 8.0\n.target sm_80\n.address_size 64\n\
             .visible .entry k(.param .u64 k_param_0, .param .u32 k_param_1)\n{directives}\n{{\n\
             .reg .pred %p<8>;\n.reg .b32 %r<40>;\n.reg .b64 %rd<40>;\n{body}\n}}\n"
        )
    }

    const INDEX: &str = "
        ld.param.u32 %r1, [k_param_1];
        ld.param.u64 %rd1, [k_param_0];
        cvta.to.global.u64 %rd2, %rd1;
        mov.u32 %r2, %ctaid.x;
        mov.u32 %r3, %ntid.x;
        mov.u32 %r4, %tid.x;
        mad.lo.s32 %r5, %r2, %r3, %r4;
        mul.wide.u32 %rd3, %r4, 4;
        add.s64 %rd4, %rd2, %rd3;
        shr.u32 %r6, %r4, 5;
        and.b32 %r7, %r4, 31;
        mov.u32 %r8, %laneid;
        ld.global.f32 %r9, [%rd4];
        ld.global.f32 %r10, [%rd2+8];
        ld.global.nc.f32 %r11, [%rd2+8];
        ret;
    ";

    #[test]
    fn sources_and_arithmetic_1d() {
        let r = analyze(&kernel(".reqntid 256, 1, 1", INDEX), &Options::default());
        assert_eq!(class_of(&r, "%r1"), "uniform scope=block");
        assert_eq!(class_of(&r, "%rd2"), "uniform scope=block");
        assert_eq!(class_of(&r, "%r3"), "constant value=256");
        assert_eq!(class_of(&r, "%r4"), "affine coef=1 scope=warp");
        assert_eq!(class_of(&r, "%r5"), "affine coef=1 scope=warp");
        assert_eq!(class_of(&r, "%rd3"), "affine coef=4 scope=warp");
        assert_eq!(class_of(&r, "%rd4"), "affine coef=4 scope=warp");
        assert_eq!(class_of(&r, "%r6"), "uniform scope=warp");
        assert_eq!(class_of(&r, "%r7"), "constant-affine coef=1 base=0");
        assert_eq!(class_of(&r, "%r8"), "constant-affine coef=1 base=0");
        assert_eq!(class_of(&r, "%r9"), "divergent");
        assert_eq!(class_of(&r, "%r10"), "uniform scope=warp");
        assert_eq!(class_of(&r, "%r11"), "uniform scope=block");
        assert!(r.notes.is_empty());
    }

    #[test]
    fn unknown_shape_is_conservative_and_says_why() {
        let r = analyze(&kernel("", INDEX), &Options::default());
        assert_eq!(class_of(&r, "%r4"), "divergent");
        assert_eq!(class_of(&r, "%r8"), "constant-affine coef=1 base=0");
        assert_eq!(r.notes.len(), 1);
        assert!(
            r.notes[0].contains("block shape is unknown"),
            "{:?}",
            r.notes
        );
        let r = analyze(
            &kernel("", INDEX),
            &Options {
                assume_1d: true,
                ..Options::default()
            },
        );
        assert_eq!(class_of(&r, "%r4"), "affine coef=1 scope=warp");
        assert!(r.notes.is_empty());
        // ntid.x unknown: ctaid·ntid + tid has an unknown alignment.
        assert_eq!(class_of(&r, "%r5"), "affine coef=1 scope=warp");
    }

    #[test]
    fn two_dimensional_blocks() {
        let body = "
            mov.u32 %r1, %tid.x;
            mov.u32 %r2, %tid.y;
            mov.u32 %r3, %tid.z;
            ret;";
        let r = analyze(&kernel(".reqntid 16, 16, 1", body), &Options::default());
        assert_eq!(class_of(&r, "%r1"), "divergent");
        assert_eq!(class_of(&r, "%r2"), "divergent");
        assert_eq!(class_of(&r, "%r3"), "constant value=0");
        assert!(r.notes.iter().any(|n| n.contains("ntid.x = 16")));
        let r = analyze(&kernel(".reqntid 64, 4, 2", body), &Options::default());
        assert_eq!(class_of(&r, "%r1"), "affine coef=1 scope=warp");
        assert_eq!(class_of(&r, "%r2"), "uniform scope=warp");
        assert_eq!(class_of(&r, "%r3"), "uniform scope=warp");
    }

    #[test]
    fn divergent_if_then_merges() {
        // %r10 is 0 or a loaded value depending on a divergent branch: divergent after the join.
        let body = "
            mov.u32 %r4, %tid.x;
            ld.param.u32 %r1, [k_param_1];
            setp.ge.s32 %p1, %r4, %r1;
            mov.b32 %r10, 0;
            mov.b32 %r11, 5;
            @%p1 bra $L1;
            ld.param.u32 %r10, [k_param_1];
            add.s32 %r12, %r10, 1;
            st.global.u32 [%rd1], %r12;
        $L1:
            st.global.u32 [%rd1], %r10;
            st.global.u32 [%rd1], %r11;
            ret;";
        let r = analyze(&kernel(".reqntid 128", body), &Options::default());
        assert_eq!(class_of(&r, "%p1"), "divergent");
        assert_eq!(class_of(&r, "%r10"), "divergent");
        assert_eq!(class_of(&r, "%r11"), "constant value=5");
        // Registers are flow-insensitive: %r12 reads the register %r10, divergent as a whole.
        assert_eq!(class_of(&r, "%r12"), "divergent");
        assert_eq!(r.divergent_branches, 1);
    }

    #[test]
    fn uniform_branch_keeps_merges_uniform_and_warp_branch_narrows() {
        let body = "
            ld.param.u32 %r1, [k_param_1];
            setp.ge.s32 %p1, %r1, 10;
            mov.b32 %r10, 0;
            @%p1 bra $L1;
            mov.b32 %r10, 7;
        $L1:
            mov.u32 %r2, %warpid;
            setp.eq.s32 %p2, %r2, 0;
            mov.b32 %r11, 0;
            @%p2 bra $L2;
            mov.b32 %r11, 7;
        $L2:
            st.global.u32 [%rd1], %r10;
            st.global.u32 [%rd1], %r11;
            ret;";
        let r = analyze(&kernel("", body), &Options::default());
        assert_eq!(class_of(&r, "%r10"), "uniform scope=block");
        assert_eq!(class_of(&r, "%r11"), "uniform scope=warp");
        assert_eq!(r.divergent_branches, 0);
        assert_eq!(r.warp_uniform_branches, 1);
    }

    #[test]
    fn loops_uniform_counter_and_divergent_exit() {
        // for (i = 0; i < tid; i++) s += i;  — i is uniform inside the loop (every active lane
        // has the same i), but the loop exit is divergent, so i and s are divergent after it.
        let body = "
            mov.u32 %r4, %tid.x;
            mov.b32 %r1, 0;
            mov.b32 %r2, 0;
            mov.b32 %r3, 0;
        $L1:
            add.s32 %r2, %r2, %r1;
            add.s32 %r3, %r3, 1;
            add.s32 %r1, %r1, 1;
            setp.lt.u32 %p1, %r1, %r4;
            @%p1 bra $L1;
            st.global.u32 [%rd1], %r2;
            ret;";
        let r = analyze(&kernel(".reqntid 64", body), &Options::default());
        assert_eq!(class_of(&r, "%p1"), "divergent");
        // %r2 is live after the loop: temporal divergence.
        assert_eq!(class_of(&r, "%r2"), "divergent");
        // %r1 and %r3 are not live after the loop: uniform on the lanes that run each iteration.
        assert_eq!(class_of(&r, "%r1"), "uniform scope=block");
        assert_eq!(class_of(&r, "%r3"), "uniform scope=block");
    }

    #[test]
    fn uniform_loop_in_divergent_if() {
        // if (tid < n) for (k = 0; k < n; k++) ...: k stays uniform.
        let body = "
            mov.u32 %r4, %tid.x;
            ld.param.u32 %r1, [k_param_1];
            setp.ge.u32 %p1, %r4, %r1;
            @%p1 bra $END;
            mov.b32 %r5, 0;
        $LOOP:
            add.s32 %r5, %r5, 1;
            setp.lt.u32 %p2, %r5, %r1;
            @%p2 bra $LOOP;
            st.global.u32 [%rd1], %r5;
        $END:
            ret;";
        let r = analyze(&kernel(".reqntid 64", body), &Options::default());
        assert_eq!(class_of(&r, "%r5"), "uniform scope=block");
        assert_eq!(class_of(&r, "%p2"), "uniform scope=block");
    }

    #[test]
    fn guarded_definitions() {
        let body = "
            mov.u32 %r4, %tid.x;
            setp.lt.u32 %p1, %r4, 3;
            mov.b32 %r1, 1;
            @%p1 mov.b32 %r1, 2;
            ld.param.u32 %r2, [k_param_1];
            setp.lt.u32 %p2, %r2, 3;
            mov.b32 %r3, 1;
            @%p2 mov.b32 %r3, 2;
            selp.b32 %r5, 1, 2, %p1;
            selp.b32 %r6, 1, 2, %p2;
            ret;";
        let r = analyze(&kernel(".reqntid 64", body), &Options::default());
        assert_eq!(class_of(&r, "%r1"), "divergent");
        assert_eq!(class_of(&r, "%r3"), "uniform scope=block");
        assert_eq!(class_of(&r, "%r5"), "divergent");
        assert_eq!(class_of(&r, "%r6"), "uniform scope=block");
    }

    #[test]
    fn warp_collectives_atomics_and_calls() {
        let body = "
            mov.u32 %r4, %tid.x;
            setp.lt.u32 %p1, %r4, 3;
            vote.sync.ballot.b32 %r1, %p1, -1;
            vote.sync.all.pred %p2, %p1, -1;
            activemask.b32 %r2;
            shfl.sync.idx.b32 %r3, %r4, 0, 31, -1;
            shfl.sync.down.b32 %r5, %r4, 1, 31, -1;
            atom.global.add.u32 %r6, [%rd1], 1;
            mov.u32 %r7, %clock;
            ld.local.u32 %r8, [%rd1];
            ld.u32 %r9, [%rd1];
            ld.volatile.shared.u32 %r10, [%rd1];
            ret;";
        let r = analyze(&kernel(".reqntid 64", body), &Options::default());
        assert_eq!(class_of(&r, "%r1"), "uniform scope=warp");
        assert_eq!(class_of(&r, "%p2"), "uniform scope=warp");
        assert_eq!(class_of(&r, "%r2"), "uniform scope=warp");
        assert_eq!(class_of(&r, "%r3"), "uniform scope=warp");
        for x in ["%r5", "%r6", "%r7", "%r8", "%r9", "%r10"] {
            assert_eq!(class_of(&r, x), "divergent", "{x}");
        }
    }

    #[test]
    fn device_function_params_are_divergent_and_declarations_fail() {
        let text = ".version 8.0\n.target sm_80\n.address_size 64\n\
            .func (.param .b32 ret) f(.param .b32 a)\n{\n.reg .b32 %r<4>;\n\
            ld.param.b32 %r1, [a];\nadd.s32 %r2, %r1, 1;\nst.param.b32 [ret], %r2;\nret;\n}\n\
            .func g();\n";
        let m = parse_module(text, "t.ptx").unwrap();
        let fs: Vec<_> = m.functions().collect();
        let r = analyze_function(fs[0], &Options::default()).unwrap();
        assert_eq!(class_of(&r, "%r1"), "divergent");
        assert!(!r.is_kernel);
        assert!(matches!(
            analyze_function(fs[1], &Options::default()),
            Err(DivergenceError::NoBody(_))
        ));
        assert_eq!(analyze_module(&m, &Options::default()).len(), 1);
    }

    #[test]
    fn extension_and_no_wrap() {
        let body = "
            mov.u32 %r2, %ctaid.x;
            mov.u32 %r3, %ntid.x;
            mov.u32 %r4, %tid.x;
            mad.lo.s32 %r5, %r2, %r3, %r4;
            mul.wide.s32 %rd3, %r5, 4;
            cvt.s64.s32 %rd4, %r5;
            cvt.u32.u64 %r6, %rd4;
            ret;";
        let r = analyze(
            &kernel("", body),
            &Options {
                assume_1d: true,
                ..Options::default()
            },
        );
        assert_eq!(class_of(&r, "%rd3"), "divergent");
        let r = analyze(
            &kernel("", body),
            &Options {
                assume_1d: true,
                assume_no_wrap: true,
                ..Options::default()
            },
        );
        assert_eq!(class_of(&r, "%rd3"), "affine coef=4 scope=warp");
        assert_eq!(class_of(&r, "%r6"), "affine coef=1 scope=warp");
        // With .reqntid 256 the base ctaid·256 + 32·warp is 32-aligned: exact without assumptions.
        let r = analyze(&kernel(".reqntid 256", body), &Options::default());
        assert_eq!(class_of(&r, "%rd3"), "affine coef=4 scope=warp");
    }
}
