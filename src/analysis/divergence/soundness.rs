//! Dynamic soundness check of the PTX divergence analysis with the emulator (`crate::emu`).
//!
//! The emulator has no register-write observer yet, so the check *instruments* the kernel instead
//! (no second interpreter): before every instruction, each register it reads, and after it, each
//! register it writes, is logged when the analysis did not call that register divergent. A log
//! record is appended with `atom.global.add` to a trace buffer passed as an extra kernel parameter
//! and holds the instruction, the register, the thread, `%clock64` (the emulator's per-warp
//! instruction counter: the lanes of one warp-instruction share it) and an *iteration key*: the
//! iteration counts of the loops around the instruction (counters the instrumentation keeps).
//!
//! The records are then checked against the classes (see [`super::lattice`] for the semantics):
//! - warp level, per warp-instruction (same warp, instruction, register, clock): uniform and
//!   constant registers hold one value on all active lanes (the constant); affine ones hold
//!   `coef·lane + b` modulo `2^w` with one `b` (the constant base for constant-affine ones);
//! - block level, per (instruction, register, iteration key) across the warps of a CTA: the
//!   lane-independent part `b` of block-scoped registers is the same in every warp.
//!
//! Reads catch what writes cannot: a register merged after a divergent branch is never written
//! at the join, but it is read there.

use std::collections::HashMap;

use crate::emu::launch::{ArgSpec, BufferSpec, ElemType, InitSpec, LaunchSpec};
use crate::emu::{run, RunOptions};
use crate::machine::{Block, Cfg, DomTree, LoopInfo};
use crate::ptx::builder::{op, Builder, InsertPoint};
use crate::ptx::roles::{self, Role};
use crate::ptx::{
    Component, FuncKind, Guard, Inst, Modifier, Module, Opcode, Operand, Reg, SpecialOperand,
    SpecialReg, StateSpace, Type, Variable,
};

use super::lattice::{norm, Abs, Class, Scope};
use super::{analyze_function, FunctionDivergence, Options};

/// Bytes of the trace header (the record count lives in its first word).
const HEADER: i64 = 64;
/// Bytes per record: head, thread, clock, iteration key, value.
const RECORD: i64 = 40;

/// Why a check could not run.
#[derive(Debug, thiserror::Error)]
pub enum SoundnessError {
    /// No kernel of that name with a body.
    #[error("no kernel {0} with a body")]
    NoKernel(String),
    /// The analysis failed.
    #[error("analysis: {0}")]
    Analysis(#[from] super::DivergenceError),
    /// The emulator failed on the instrumented kernel (unsupported instruction, fault, limit…).
    #[error("emulator: {0}")]
    Emulator(String),
}

/// One violated claim.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The register.
    pub reg: String,
    /// Its class.
    pub class: String,
    /// The instruction (index in the body's arena) and whether it was a read or a write.
    pub inst: u32,
    /// True for a write, false for a read.
    pub write: bool,
    /// What went wrong.
    pub detail: String,
}

/// The outcome of checking one launch.
#[derive(Clone, Debug, Default)]
pub struct CheckReport {
    /// Records logged.
    pub records: u64,
    /// Warp-instruction groups checked.
    pub warp_groups: u64,
    /// Block-level groups checked (more than one warp).
    pub block_groups: u64,
    /// Registers with at least one record.
    pub registers_checked: usize,
    /// What failed (empty: sound on this launch).
    pub violations: Vec<Violation>,
    /// True when the trace filled up: only the first records were checked.
    pub truncated: bool,
    /// The analysis result whose claims were checked (set by [`check_launch`]).
    pub analysis: Option<FunctionDivergence>,
}

/// The instrumented module and what its records mean.
pub struct Instrumented {
    /// The module with the instrumented kernel (one extra `.u64` parameter, the trace buffer).
    pub module: Module,
    /// The analysis result the instrumentation followed.
    pub result: FunctionDivergence,
}

fn reg_value_bits(ty: crate::ptx::RegType) -> Option<u32> {
    if ty.vec.is_some() {
        return None;
    }
    match ty.ty.bits() {
        1 => Some(1),
        16 => Some(16),
        32 => Some(32),
        64 => Some(64),
        _ => None,
    }
}

fn checked(a: &Abs) -> bool {
    !a.is_top() && !a.is_divergent()
}

/// Instruments kernel `kernel` of `m` after analysing it with `opts`.
pub fn instrument(
    m: &Module,
    kernel: &str,
    opts: &Options,
    capacity: u64,
) -> Result<Instrumented, SoundnessError> {
    let mut module = m.clone();
    let f = module
        .functions_mut()
        .find(|f| &*f.name == kernel && f.kind == FuncKind::Entry && f.body.is_some())
        .ok_or_else(|| SoundnessError::NoKernel(kernel.to_string()))?;
    let result = analyze_function(f, opts)?;
    let param = format!("__ws_trace_{kernel}");
    f.params
        .get_or_insert_with(Vec::new)
        .push(trace_param(&param));
    let Some(body) = f.body.as_mut() else {
        return Err(SoundnessError::NoKernel(kernel.to_string()));
    };
    let cfg = Cfg::compute(body);
    let dt = DomTree::compute(&cfg);
    let loops = LoopInfo::compute(&cfg, &dt);
    let sites = LogSites::collect(body, &cfg, &result);
    let loop_points = loop_points(body, &cfg, &loops);
    let reg_types: Vec<crate::ptx::RegType> = body.regs.iter().map(|r| r.ty).collect();

    let mut b = Builder::new(body);
    let recorder = Recorder::new(&mut b, reg_types, capacity);
    let counters: Vec<(Reg, Reg)> = loops
        .loops()
        .map(|_| (b.new_reg(Type::U32), b.new_reg(Type::U64)))
        .collect();
    recorder.emit_prologue(&mut b, &param, &counters);
    emit_loop_counters(&mut b, &loops, &counters, &loop_points, recorder.t64);

    let key_of = |blk: Option<Block>| -> Reg {
        blk.and_then(|x| loops.innermost(x))
            .map_or(recorder.zero, |l| counters[l.index()].1)
    };
    for (i, regs, guard_reg) in &sites.reads {
        let g = b.body().inst(*i).guard;
        let key = key_of(cfg.block_of(*i));
        let at = InsertPoint::Before(*i);
        if let Some(gr) = guard_reg {
            recorder.emit(&mut b, at, None, Site::read(*i, *gr, key));
        }
        for &r in regs {
            recorder.emit(&mut b, at, g, Site::read(*i, r, key));
        }
    }
    for (i, regs) in &sites.writes {
        let g = b.body().inst(*i).guard;
        let key = key_of(cfg.block_of(*i));
        for &r in regs {
            let site = Site {
                write: true,
                ..Site::read(*i, r, key)
            };
            recorder.emit(&mut b, InsertPoint::After(*i), g, site);
        }
    }
    Ok(Instrumented { module, result })
}

/// The extra kernel parameter that carries the trace buffer's address.
fn trace_param(name: &str) -> Variable {
    Variable {
        linkage: None,
        space: StateSpace::Param,
        align: None,
        vec: None,
        ty: Type::U64,
        ptr: None,
        name: Some(name.into()),
        dims: Vec::new(),
        init: None,
        attributes: Vec::new(),
        loc: Default::default(),
    }
}

/// What to log, decided on the original body: for each instruction, the checked registers it
/// reads (and its guard, logged unguarded) and those it writes.
struct LogSites {
    reads: Vec<(Inst, Vec<Reg>, Option<Reg>)>,
    writes: Vec<(Inst, Vec<Reg>)>,
}

impl LogSites {
    fn collect(body: &crate::ptx::Body, cfg: &Cfg, result: &FunctionDivergence) -> LogSites {
        let mut sites = LogSites {
            reads: Vec::new(),
            writes: Vec::new(),
        };
        for &b in cfg.rpo() {
            for &i in cfg.insts(b) {
                let d = body.inst(i);
                let guard = d.guard.map(|g| g.reg);
                let mut r_list: Vec<Reg> = Vec::new();
                let mut w_list: Vec<Reg> = Vec::new();
                roles::for_each_reg_role(d, |r, role| {
                    let ok = checked(&result.abs(r)) && reg_value_bits(body.reg(r).ty).is_some();
                    if !ok {
                        return;
                    }
                    if matches!(role, Role::Use | Role::UseDef) && Some(r) != guard {
                        r_list.push(r);
                    }
                    if matches!(role, Role::Def | Role::UseDef) {
                        w_list.push(r);
                    }
                });
                r_list.sort_unstable();
                r_list.dedup();
                w_list.sort_unstable();
                w_list.dedup();
                let guard_logged = guard.filter(|g| checked(&result.abs(*g)));
                let redefines_guard = guard.is_some_and(|g| w_list.contains(&g));
                let is_transfer = roles::transfers_control(&d.opcode);
                if !r_list.is_empty() || guard_logged.is_some() {
                    sites.reads.push((i, r_list, guard_logged));
                }
                if !w_list.is_empty() && !redefines_guard && !is_transfer {
                    sites.writes.push((i, w_list));
                }
            }
        }
        sites
    }
}

/// For every loop: its header's first instruction (where the counter steps) and the points on
/// the edges entering it from outside (where the counter resets).
fn loop_points(
    body: &crate::ptx::Body,
    cfg: &Cfg,
    loops: &LoopInfo,
) -> Vec<(Option<Inst>, Vec<InsertPoint>)> {
    loops
        .loops()
        .map(|l| {
            let h = loops.header(l);
            let resets = cfg
                .preds(h)
                .iter()
                .filter(|&&p| !loops.contains(l, p))
                .filter_map(|&p| match (cfg.terminator(body, p), cfg.insts(p).last()) {
                    (Some(t), _) => Some(InsertPoint::Before(t)),
                    (None, Some(&last)) => Some(InsertPoint::After(last)),
                    _ => None,
                })
                .collect();
            (cfg.insts(h).first().copied(), resets)
        })
        .collect()
}

/// Loops: count iterations at the header (the key is the count, above it the enclosing loop's
/// key shifted by 16), reset the count on entry from outside.
fn emit_loop_counters(
    b: &mut Builder,
    loops: &LoopInfo,
    counters: &[(Reg, Reg)],
    loop_points: &[(Option<Inst>, Vec<InsertPoint>)],
    t64: Reg,
) {
    for l in loops.loops() {
        let (c, k) = counters[l.index()];
        let (Some(first), resets) = &loop_points[l.index()] else {
            continue;
        };
        b.at(InsertPoint::Before(*first));
        b.binary(Opcode::Add, &[], Type::U32, c, op::reg(c), op::int(1));
        b.inst(
            None,
            Opcode::Cvt,
            widen(Type::U32),
            vec![op::reg(k), op::reg(c)],
        );
        if let Some(p) = loops.parent(l) {
            let (_, pk) = counters[p.index()];
            b.binary(Opcode::Shl, &[], Type::B64, t64, op::reg(pk), op::int(16));
            b.binary(Opcode::Or, &[], Type::B64, k, op::reg(k), op::reg(t64));
        }
        for at in resets {
            b.at(*at);
            b.mov(Type::U32, c, op::int(0));
        }
    }
}

/// The modifiers of `cvt.u64.<from>`.
fn widen(from: Type) -> Vec<Modifier> {
    vec![Modifier::Type(Type::U64), Modifier::Type(from)]
}

/// One logged access: the instruction, the register, read or write, the iteration key.
#[derive(Clone, Copy)]
struct Site {
    inst: Inst,
    reg: Reg,
    write: bool,
    key: Reg,
}

impl Site {
    fn read(inst: Inst, reg: Reg, key: Reg) -> Site {
        Site {
            inst,
            reg,
            write: false,
            key,
        }
    }
}

/// The scratch registers the instrumentation writes records through.
struct Recorder {
    /// Trace buffer base (generic address).
    tb: Reg,
    /// The thread's identity: `ctaid` packed above `tid`.
    who: Reg,
    slot: Reg,
    addr: Reg,
    head: Reg,
    clk: Reg,
    val: Reg,
    t64: Reg,
    /// The iteration key outside every loop.
    zero: Reg,
    a32: Reg,
    c32: Reg,
    x32: Reg,
    x16: Reg,
    reg_types: Vec<crate::ptx::RegType>,
    capacity: u64,
}

impl Recorder {
    fn new(b: &mut Builder, reg_types: Vec<crate::ptx::RegType>, capacity: u64) -> Recorder {
        Recorder {
            tb: b.new_reg(Type::U64),
            who: b.new_reg(Type::U64),
            slot: b.new_reg(Type::U64),
            addr: b.new_reg(Type::U64),
            head: b.new_reg(Type::U64),
            clk: b.new_reg(Type::U64),
            val: b.new_reg(Type::U64),
            t64: b.new_reg(Type::U64),
            zero: b.new_reg(Type::U64),
            a32: b.new_reg(Type::U32),
            c32: b.new_reg(Type::U32),
            x32: b.new_reg(Type::B32),
            x16: b.new_reg(Type::B16),
            reg_types,
            capacity,
        }
    }

    /// Entry: the trace base, the thread's identity, zeroed loop counters.
    fn emit_prologue(&self, b: &mut Builder, param: &str, counters: &[(Reg, Reg)]) {
        let first_stmt = b
            .body()
            .stmts
            .iter()
            .position(|s| matches!(s, crate::ptx::Stmt::Inst(_) | crate::ptx::Stmt::Label(_)))
            .unwrap_or(b.body().stmts.len());
        b.at(InsertPoint::Stmt(first_stmt));
        b.load(
            StateSpace::Param,
            Type::U64,
            self.tb,
            op::addr_sym(param, 0),
        );
        b.inst(
            None,
            Opcode::Cvta,
            vec![
                Modifier::Word("to".into()),
                Modifier::Space(StateSpace::Global),
                Modifier::Type(Type::U64),
            ],
            vec![op::reg(self.tb), op::reg(self.tb)],
        );
        for (dst, r) in [(self.a32, SpecialReg::Tid), (self.c32, SpecialReg::Ctaid)] {
            self.pack_xyz(b, dst, r);
        }
        let (who, t64) = (self.who, self.t64);
        b.inst(
            None,
            Opcode::Cvt,
            widen(Type::U32),
            vec![op::reg(who), op::reg(self.c32)],
        );
        b.binary(Opcode::Shl, &[], Type::B64, who, op::reg(who), op::int(32));
        b.inst(
            None,
            Opcode::Cvt,
            widen(Type::U32),
            vec![op::reg(t64), op::reg(self.a32)],
        );
        b.binary(Opcode::Or, &[], Type::B64, who, op::reg(who), op::reg(t64));
        b.mov(Type::U64, self.zero, op::int(0));
        for &(c, k) in counters {
            b.mov(Type::U32, c, op::int(0));
            b.mov(Type::U64, k, op::int(0));
        }
    }

    /// `dst = (r.z << 20) | (r.y << 10) | r.x` for `%tid` or `%ctaid`.
    fn pack_xyz(&self, b: &mut Builder, dst: Reg, r: SpecialReg) {
        let x32 = self.x32;
        b.mov(Type::U32, dst, op::sreg(r, Some(Component::Z)));
        for c in [Component::Y, Component::X] {
            b.binary(Opcode::Shl, &[], Type::B32, dst, op::reg(dst), op::int(10));
            b.mov(Type::U32, x32, op::sreg(r, Some(c)));
            b.binary(Opcode::Or, &[], Type::B32, dst, op::reg(dst), op::reg(x32));
        }
    }

    /// Appends one record (head, thread, clock, key, value) at `at`, under `guard`.
    fn emit(&self, b: &mut Builder, at: InsertPoint, guard: Option<Guard>, site: Site) {
        let r = site.reg;
        let Some(bits) = self
            .reg_types
            .get(r.index())
            .and_then(|t| reg_value_bits(*t))
        else {
            return;
        };
        b.at(at);
        let h = (u64::from(site.inst.0) << 32)
            | (u64::from(site.write) << 31)
            | u64::from(r.0 & 0x7fff_ffff);
        let g = guard;
        let ty = |t: Type| vec![Modifier::Type(t)];
        let global = |w: &str, t: Type| {
            let mut mods = vec![Modifier::Space(StateSpace::Global)];
            if !w.is_empty() {
                mods.push(Modifier::Word(w.into()));
            }
            mods.push(Modifier::Type(t));
            mods
        };
        let (slot, addr) = (self.slot, self.addr);
        b.inst(
            g,
            Opcode::Atom,
            global("add", Type::U64),
            vec![
                op::reg(slot),
                Operand::Addr(op::addr_reg(self.tb, 0)),
                op::int(1),
            ],
        );
        let last = op::int(self.capacity as i64 - 1);
        b.inst(
            g,
            Opcode::Min,
            ty(Type::U64),
            vec![op::reg(slot), op::reg(slot), last],
        );
        b.inst(
            g,
            Opcode::Mad,
            vec![Modifier::Word("lo".into()), Modifier::Type(Type::U64)],
            vec![
                op::reg(addr),
                op::reg(slot),
                op::int(RECORD),
                op::reg(self.tb),
            ],
        );
        let head = Operand::Imm(crate::ptx::Imm::Hex {
            value: h,
            unsigned: false,
        });
        b.inst(
            g,
            Opcode::Mov,
            ty(Type::U64),
            vec![op::reg(self.head), head],
        );
        let clock = Operand::Special(SpecialOperand::Named(SpecialReg::Clock64, None));
        b.inst(
            g,
            Opcode::Mov,
            ty(Type::U64),
            vec![op::reg(self.clk), clock],
        );
        let val = self.val;
        match bits {
            1 => {
                let ops = vec![op::reg(val), op::int(1), op::int(0), op::reg(r)];
                b.inst(g, Opcode::Selp, ty(Type::U64), ops);
            }
            16 | 32 => {
                let (scratch, bty, uty) = if bits == 16 {
                    (self.x16, Type::B16, Type::U16)
                } else {
                    (self.x32, Type::B32, Type::U32)
                };
                b.inst(g, Opcode::Mov, ty(bty), vec![op::reg(scratch), op::reg(r)]);
                b.inst(
                    g,
                    Opcode::Cvt,
                    widen(uty),
                    vec![op::reg(val), op::reg(scratch)],
                );
            }
            _ => {
                b.inst(
                    g,
                    Opcode::Mov,
                    ty(Type::B64),
                    vec![op::reg(val), op::reg(r)],
                );
            }
        }
        let fields = [
            (0, self.head),
            (8, self.who),
            (16, self.clk),
            (24, site.key),
            (32, val),
        ];
        for (off, src) in fields {
            let to = Operand::Addr(op::addr_reg(addr, HEADER + off));
            b.inst(g, Opcode::St, global("", Type::U64), vec![to, op::reg(src)]);
        }
    }
}

/// Runs kernel `kernel` of `m` under `spec` (the kernel's own arguments; the trace buffer is
/// added) instrumented for `opts`, and checks every record.
pub fn check_launch(
    m: &Module,
    kernel: &str,
    spec: &LaunchSpec,
    opts: &Options,
    capacity: u64,
) -> Result<CheckReport, SoundnessError> {
    let inst = instrument(m, kernel, opts, capacity)?;
    let words = (HEADER / 8) as u64 + capacity * (RECORD / 8) as u64;
    let mut spec = spec.clone();
    spec.args.push(ArgSpec::Buffer(BufferSpec {
        ty: ElemType::U64,
        len: Some(words),
        init: InitSpec::Named("zero".into()),
        seed: None,
        range: None,
    }));
    let out = run(&inst.module, &spec, &RunOptions::default())
        .map_err(|e| SoundnessError::Emulator(e.to_string()))?;
    let n_args = spec.args.len() - 1;
    let trace = out
        .buffers
        .iter()
        .find(|b| b.arg == Some(n_args))
        .ok_or_else(|| SoundnessError::Emulator("trace buffer missing from the output".into()))?;
    let block = {
        let mut d = [1u32; 3];
        for (k, v) in spec.block.iter().take(3).enumerate() {
            d[k] = *v;
        }
        d
    };
    let report = check_trace(&trace.data, &inst.result, m, kernel, block, capacity)?;
    Ok(CheckReport {
        analysis: Some(inst.result),
        ..report
    })
}

/// One warp-instruction's records: (CTA, warp, record head, clock).
type WarpKey = (u32, u32, u64, u64);

fn word(data: &[u8], at: usize) -> u64 {
    data.get(at..at + 8)
        .and_then(|s| s.try_into().ok())
        .map_or(0, u64::from_le_bytes)
}

fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// What a trace record claims about the value it logged.
#[derive(Clone, Debug)]
pub struct Claim {
    /// The value's class.
    pub class: Class,
    /// Its width in bits (1 to 64): values are compared modulo `2^width`.
    pub width: u32,
    /// A name for reports (the register, or the LLVM value).
    pub name: String,
}

/// Checks a trace against the classes of `r`.
fn check_trace(
    data: &[u8],
    r: &FunctionDivergence,
    m: &Module,
    kernel: &str,
    block: [u32; 3],
    capacity: u64,
) -> Result<CheckReport, SoundnessError> {
    let body = m
        .function(kernel)
        .and_then(|f| f.body.as_ref())
        .ok_or_else(|| SoundnessError::NoKernel(kernel.to_string()))?;
    let claim = |head: u64| {
        let reg = Reg((head & 0x7fff_ffff) as u32);
        Some(Claim {
            class: r.abs(reg).class(),
            width: body
                .regs
                .get(reg.0 as usize)
                .map_or(64, |d| d.ty.bits().clamp(1, 64)),
            name: body.reg_name(reg).to_string(),
        })
    };
    Ok(check_records(data, capacity, block, &claim, true))
}

/// Checks the records of a trace (the layout [`instrument`] writes: a 64-byte header whose first
/// word counts the records, then 40-byte records of head, thread, clock, iteration key and
/// value) against `claim(head)`; records whose head has no claim are skipped. The head's low 31
/// bits name the value, bit 31 marks a write, the high word is the instruction. `block_level`:
/// also check block-scoped claims across the warps of a CTA, per iteration key (a trace without
/// iteration keys must not ask for it).
pub fn check_records(
    data: &[u8],
    capacity: u64,
    block: [u32; 3],
    claim: &dyn Fn(u64) -> Option<Claim>,
    block_level: bool,
) -> CheckReport {
    let logged = word(data, 0);
    // Past the capacity every record lands in the last slot: check the ones before it.
    let truncated = logged > capacity;
    let count = if truncated {
        capacity.saturating_sub(1)
    } else {
        logged
    };
    // (cta, warp, head, clock) -> (iteration key, [(lane, value)])
    let mut warp_groups: HashMap<WarpKey, (u64, Vec<(u32, u64)>)> = HashMap::new();
    for k in 0..count as usize {
        let at = HEADER as usize + k * RECORD as usize;
        let head = word(data, at);
        let who = word(data, at + 8);
        let clk = word(data, at + 16);
        let key = word(data, at + 24);
        let v = word(data, at + 32);
        let tid = who as u32;
        let (tx, ty, tz) = (tid & 0x3ff, (tid >> 10) & 0x3ff, (tid >> 20) & 0x3ff);
        let linear = tx + block[0] * (ty + block[1] * tz);
        let cta = (who >> 32) as u32;
        warp_groups
            .entry((cta, linear / 32, head, clk))
            .or_insert_with(|| (key, Vec::new()))
            .1
            .push((linear % 32, v));
    }
    let mut report = CheckReport {
        records: count,
        truncated,
        ..CheckReport::default()
    };
    let mut heads_seen = std::collections::HashSet::new();
    // (cta, head, iteration key) -> [(warp, base)], for block scope.
    let mut block_groups: HashMap<(u32, u64, u64), Vec<(u32, u64)>> = HashMap::new();
    let mut groups: Vec<_> = warp_groups.into_iter().collect();
    groups.sort_by_key(|(k, _)| *k);
    for ((cta, warp, head, _clk), (key, lanes)) in groups {
        let Some(c) = claim(head) else { continue };
        heads_seen.insert(head & 0x7fff_ffff);
        report.warp_groups += 1;
        if let Some(base) = check_warp_group(&c, head, cta, warp, &lanes, &mut report) {
            if block_level && c.class.scope() == Some(Scope::Block) {
                block_groups
                    .entry((cta, head, key))
                    .or_default()
                    .push((warp, base));
            }
        }
    }
    let mut bg: Vec<_> = block_groups.into_iter().collect();
    bg.sort_by_key(|(k, _)| *k);
    for ((cta, head, key), per_warp) in bg {
        let distinct_warps: std::collections::HashSet<u32> =
            per_warp.iter().map(|(w, _)| *w).collect();
        if distinct_warps.len() > 1 {
            report.block_groups += 1;
        }
        let first = per_warp[0].1;
        if per_warp.iter().any(|(_, b)| *b != first) {
            let c = claim(head).expect("grouped heads have claims");
            push_violation(
                &mut report,
                &c,
                head,
                format!(
                    "CTA {cta} iteration {key:#x}: warps disagree: {:?}",
                    per_warp
                        .iter()
                        .map(|(w, b)| format!("warp {w} base={b:#x}"))
                        .collect::<Vec<_>>()
                ),
            );
        }
    }
    report.registers_checked = heads_seen.len();
    report
}

fn push_violation(report: &mut CheckReport, c: &Claim, head: u64, detail: String) {
    if report.violations.len() < 200 {
        report.violations.push(Violation {
            reg: c.name.clone(),
            class: c.class.to_string(),
            inst: (head >> 32) as u32,
            write: head & (1 << 31) != 0,
            detail,
        });
    }
}

/// The warp-level claim on one warp-instruction's lanes: one lane-independent part `b` (the
/// constant one for constants and constant-affine values). Returns `b` when the lanes agree.
fn check_warp_group(
    c: &Claim,
    head: u64,
    cta: u32,
    warp: u32,
    lanes: &[(u32, u64)],
    report: &mut CheckReport,
) -> Option<u64> {
    let w = c.width;
    let mk = mask(w);
    let coef = c.class.coef().unwrap_or(0);
    // base_l = v_l - coef·lane (mod 2^w)
    let bases: Vec<u64> = lanes
        .iter()
        .map(|&(lane, v)| v.wrapping_sub((coef as u64).wrapping_mul(u64::from(lane))) & mk)
        .collect();
    let first = bases[0];
    if bases.iter().any(|&b| b != first) {
        let detail = format!(
            "CTA {cta} warp {warp}: lanes disagree: {:?}",
            lanes
                .iter()
                .map(|(l, v)| format!("lane {l}={v:#x}"))
                .collect::<Vec<_>>()
        );
        push_violation(report, c, head, detail);
        return None;
    }
    let expected = match c.class {
        Class::Constant(k) | Class::ConstantAffine { base: k, .. } => Some(k),
        _ => None,
    };
    if let Some(k) = expected.filter(|&k| first != (norm(k, w) as u64) & mk) {
        let detail = format!(
            "CTA {cta} warp {warp}: base {first:#x}, expected {:#x}",
            (k as u64) & mk
        );
        push_violation(report, c, head, detail);
    }
    Some(first)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptx::parse_module;

    const K: &str = ".version 8.0\n.target sm_80\n.address_size 64\n\
        .visible .entry k()\n.reqntid 64\n{\n.reg .b32 %r<4>;\n\
        mov.u32 %r1, %ctaid.x;\nmov.u32 %r2, %tid.x;\nmov.u32 %r3, %warpid;\nret;\n}\n";

    struct Trace(Vec<u8>);

    impl Trace {
        fn new() -> Trace {
            Trace(vec![0; HEADER as usize])
        }
        fn rec(&mut self, inst: u32, reg: u32, tid: u32, clk: u64, key: u64, v: u64) {
            let head = (u64::from(inst) << 32) | (1 << 31) | u64::from(reg);
            for w in [head, u64::from(tid), clk, key, v] {
                self.0.extend_from_slice(&w.to_le_bytes());
            }
            let n = (self.0.len() - HEADER as usize) / RECORD as usize;
            self.0[..8].copy_from_slice(&(n as u64).to_le_bytes());
        }
    }

    fn setup() -> (Module, FunctionDivergence, Reg, Reg, Reg) {
        let m = parse_module(K, "k.ptx").unwrap();
        let f = m.function("k").unwrap();
        let r = analyze_function(f, &Options::default()).unwrap();
        let body = f.body.as_ref().unwrap();
        let reg = |n: &str| body.reg_by_name(n).unwrap();
        (m.clone(), r, reg("%r1"), reg("%r2"), reg("%r3"))
    }

    #[test]
    fn consistent_trace_passes() {
        let (m, r, r1, r2, r3) = setup();
        assert_eq!(r.class(r1).to_string(), "uniform scope=block");
        assert_eq!(r.class(r2).to_string(), "affine coef=1 scope=warp");
        assert_eq!(r.class(r3).to_string(), "uniform scope=warp");
        let mut t = Trace::new();
        for tid in 0..64u32 {
            let clk = 1;
            t.rec(0, r1.0, tid, clk, 0, 7);
            t.rec(1, r2.0, tid, clk + 1, 0, u64::from(tid));
            t.rec(2, r3.0, tid, clk + 2, 0, u64::from(tid / 32));
        }
        let rep = check_trace(&t.0, &r, &m, "k", [64, 1, 1], 1 << 10).unwrap();
        assert!(rep.violations.is_empty(), "{:?}", rep.violations);
        assert_eq!(rep.warp_groups, 6);
        assert_eq!(rep.block_groups, 1);
        assert_eq!(rep.registers_checked, 3);
    }

    #[test]
    fn violations_are_found() {
        let (m, r, r1, r2, r3) = setup();
        let mut t = Trace::new();
        for tid in 0..64u32 {
            // %r1 differs between the two warps: a block-level violation.
            t.rec(0, r1.0, tid, 1, 0, u64::from(tid / 32));
            // %r2 is not lane + b in warp 1.
            let v = if tid == 40 { 99 } else { u64::from(tid) };
            t.rec(1, r2.0, tid, 2, 0, v);
            // %r3 differs within warp 0.
            t.rec(2, r3.0, tid, 3, 0, u64::from(tid == 3));
        }
        let rep = check_trace(&t.0, &r, &m, "k", [64, 1, 1], 1 << 10).unwrap();
        let regs: Vec<&str> = rep.violations.iter().map(|v| v.reg.as_str()).collect();
        assert_eq!(regs, ["%r3", "%r2", "%r1"], "{:#?}", rep.violations);
        assert!(rep.violations[2].detail.contains("warps disagree"));
        // A full trace is checked up to its capacity.
        let rep = check_trace(&t.0, &r, &m, "k", [64, 1, 1], 10).unwrap();
        assert!(rep.truncated);
        assert_eq!(rep.records, 9);
    }
}
