//! Symbolic execution of one kernel for shuffle synthesis (PTXASW, CC'23, §4: "Symbolic
//! Emulator" — §4.1 instruction encoding, §4.2 execution branching, §4.3 memory analysis).
//!
//! How the engine is shared with the emulator: instructions are the emulator's pre-decoded form
//! ([`crate::emu::decode`]), and every value operation goes through the same
//! [`crate::emu::domain::Domain`] trait, here implemented by the Z3 bit-vector domain
//! ([`crate::emu::symbolic::Z3Domain`]). Only the driver is specific: the concrete interpreter
//! runs 32 lanes in lockstep, while this one runs ONE generic thread whose thread index is
//! symbolic, and forks at branches whose condition is symbolic (with path conditions; Z3 prunes
//! infeasible sides).
//!
//! The model:
//! - `%tid.*`, `%ntid.*`, `%ctaid.*`, `%nctaid.*` and kernel parameters are symbols; `%laneid` is
//!   `(tid.x + ntid.x·(tid.y + ntid.y·tid.z)) mod 32`, the warp-lane rule.
//! - A loaded value is an uninterpreted function of its address and of a *memory epoch* of its
//!   space, which every possibly-aliasing store, atomic, barrier or call advances.
//! - A value nothing is known about (results of warp collectives, atomics, loop-carried registers)
//!   is an uninterpreted function of the thread's index (`tid.x`, `tid.y`, `tid.z`), so it may
//!   differ between lanes: nothing is wrongly proved uniform.
//! - Loops: at each arrival at a loop header, every register the loop writes becomes such an
//!   opaque value of the thread and of a fresh iteration symbol `k` (one abstract iteration); a
//!   back edge ends the path. If the loop body may store, a clobber is recorded at the header, so
//!   no load before or in an iteration is reused after a store of an earlier iteration.
//! - Limits (paths, steps) keep the analysis terminating; hitting one is reported as an error
//!   and the kernel is left unchanged.

use z3::ast::{Ast, Bool, BV};
use z3::SatResult;

use super::prove::Prover;

use crate::emu::decode::{ABase, Addr, DFunc, DInst, DecodedInst, Src, Sreg};
use crate::emu::domain::{Domain, Op, Space};
use crate::emu::symbolic::{low, Z3Domain};
use crate::ptx::ir::{Body, Inst};

use std::collections::HashMap;

/// One memory event of a path.
#[derive(Clone, Debug)]
pub enum Event<'ctx> {
    /// A global load (one event per vector component).
    Load {
        /// The IR instruction.
        inst: Inst,
        /// The component of a vector load (0 for scalars).
        comp: u32,
        /// Bytes per component.
        size: u32,
        /// The component's address.
        addr: BV<'ctx>,
        /// The instruction's guard when it is not known to be true on this path.
        guard: Option<Bool<'ctx>>,
        /// The path condition when it executed.
        cond: Vec<Bool<'ctx>>,
        /// The innermost loop whose body it is in, when it is directly in one: the loop's header
        /// pc and the index of this arrival in [`Exploration::arrivals`].
        iter: Option<(u32, usize)>,
    },
    /// Something that may change global memory (store, atomic, barrier, call, loop with stores).
    Clobber,
}

/// A piece of the explored paths: events that every path through it shares. Paths fork at
/// branches (a node with one parent per side) and, where states are memoised, join (a node with
/// several parents): the nodes form a DAG, in creation order (parents first).
#[derive(Clone, Debug)]
pub struct TraceNode<'ctx> {
    /// The nodes executed just before (none for the kernel's entry).
    pub parents: Vec<usize>,
    /// The memory events, in order.
    pub events: Vec<Event<'ctx>>,
}

/// What the exploration produced.
pub struct Exploration<'ctx> {
    /// The explored paths as a DAG of event segments (see [`TraceNode`]).
    pub nodes: Vec<TraceNode<'ctx>>,
    /// Paths that ended (exit, return, back edge), a merged path counted once.
    pub paths: usize,
    /// States that arrived at a block entry equal (on the registers live there) to another one
    /// and were merged into it (the paper's memoisation): the rest of the path is explored once,
    /// under the disjunction of their path conditions.
    pub merged: usize,
    /// Iteration symbols of loops (lane-dependent: renamed for the source lane), two per arrival
    /// at a loop header.
    pub iter_syms: Vec<BV<'ctx>>,
    /// Per arrival at a loop header: its iteration symbols (64-bit, 32-bit), both also in
    /// `iter_syms`.
    pub arrivals: Vec<(BV<'ctx>, BV<'ctx>)>,
    /// The loops of the kernel by header pc.
    pub loops: HashMap<u32, LoopSpan>,
    /// Induction variables recognised (over all loop arrivals).
    pub induction_vars: usize,
    /// Symbolic branches decided by the solver (both sides feasible or one pruned).
    pub solver_queries: usize,
}

/// Why exploration stopped when the time budget ran out.
const TIME_SPENT: &str = "time budget spent during symbolic emulation";

/// Limits of the exploration.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Most paths.
    pub max_paths: usize,
    /// Most instructions executed over all paths.
    pub max_steps: usize,
    /// The analysis stops (the kernel is left unchanged) when this instant has passed.
    pub deadline: Option<std::time::Instant>,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_paths: 2048,
            max_steps: 400_000,
            deadline: None,
        }
    }
}

#[derive(Clone)]
struct State<'ctx> {
    pc: u32,
    regs: Vec<Option<BV<'ctx>>>,
    cond: Vec<Bool<'ctx>>,
    events: Vec<Event<'ctx>>,
    epoch: [u32; 3],
    /// The previous pc (to tell a loop entry from a back edge).
    from_back_edge: bool,
    /// The loops the path is in, outermost first: (header pc, last pc, arrival index).
    loops: Vec<(u32, u32, usize)>,
    /// The trace node of the events before `events` (none at the kernel's entry).
    trace: Option<usize>,
    /// Already merged with the other states at this block entry.
    parked: bool,
}

/// A natural loop of the kernel in layout order: the header and every instruction up to its last
/// back edge.
#[derive(Clone, Debug)]
pub struct LoopSpan {
    /// The header's pc.
    pub header: u32,
    /// The last pc of the loop (its last back edge).
    pub end: u32,
    /// The IR instruction at the header.
    pub header_inst: Inst,
    /// The IR instructions of the loop (header to last back edge).
    pub insts: Vec<Inst>,
    /// No store, atomic, barrier, fence, call or unknown instruction anywhere in the loop (inner
    /// loops included): a path that stays in the loop changes no memory.
    pub clobber_free: bool,
    /// The loop is entered only at its header (no branch from outside into its body).
    pub single_entry: bool,
}

/// A register the loop changes only by a constant or loop-invariant step, exactly once per
/// iteration: its value at the header after `k` iterations is `init + k·step`.
#[derive(Clone, Copy, Debug)]
struct Induction {
    reg: u32,
    step: Src,
    /// `sub` rather than `add`.
    down: bool,
}

/// What the explorer knows about one loop.
#[derive(Clone, Debug)]
struct LoopInfo {
    span: LoopSpan,
    /// Registers written in the loop (the carry flag included).
    regs: Vec<u32>,
    /// May the loop change memory (see [`LoopSpan::clobber_free`]).
    clobbers: bool,
    ivs: Vec<Induction>,
}

/// True when the instruction may change memory or order memory accesses of other threads
/// (stores, atomics, barriers, fences, calls, anything not understood).
fn clobbers_memory(di: &crate::emu::decode::DecodedInst, body: &Body) -> bool {
    match di.kind {
        DInst::St { .. }
        | DInst::Atom { .. }
        | DInst::Bar { .. }
        | DInst::Call { .. }
        | DInst::Stmatrix { .. }
        | DInst::CpAsync { .. }
        | DInst::CpAsyncWait { .. }
        | DInst::CpAsyncMbarArrive { .. }
        | DInst::Mbarrier { .. }
        | DInst::BulkCopy { .. }
        | DInst::TensorCopy(_)
        | DInst::StackRestore { .. }
        | DInst::ClusterBar { .. }
        | DInst::Unsupported { .. } => true,
        DInst::Nop => is_fence(body, di.inst),
        DInst::Ld { .. } => is_strong_load(body, di.inst),
        _ => false,
    }
}

/// `membar` / `fence`: decoded as no-ops by the emulator, but they order other threads' memory
/// accesses, so no load before one may be reused after it.
fn is_fence(body: &Body, i: Inst) -> bool {
    matches!(
        body.inst(i).opcode,
        crate::ptx::ir::Opcode::Membar | crate::ptx::ir::Opcode::Fence
    )
}

/// A load with memory-model strength (`.volatile`, `.relaxed`, `.acquire`, `.mmio`): it must be
/// performed as written and may synchronise, so it is neither replaced nor reused across.
pub fn is_strong_load(body: &Body, i: Inst) -> bool {
    let d = body.inst(i);
    ["volatile", "relaxed", "acquire", "mmio"]
        .iter()
        .any(|w| d.has_word(w))
}

/// The targets of a branch instruction.
fn branch_targets(di: &crate::emu::decode::DecodedInst) -> Vec<u32> {
    match &di.kind {
        DInst::Bra { target, .. } => vec![*target],
        DInst::Brx { targets, .. } => targets.clone(),
        _ => Vec::new(),
    }
}

/// The induction variables of the loop `h..=end` among `regs` (its written registers, defined at
/// the pcs `defs` lists): a register with exactly one definition in the loop, `add`/`sub` of
/// itself and an immediate or a register the loop does not write, unguarded, executed exactly once on every path from the header to a
/// back edge (not in an inner loop, not skipped by a branch, no back edge before it).
fn induction_vars(
    code: &[crate::emu::decode::DecodedInst],
    h: usize,
    end: usize,
    regs: &[u32],
    defs: &HashMap<u32, Vec<usize>>,
) -> Vec<Induction> {
    let mut out = Vec::new();
    for &r in regs {
        let Some(pcs) = defs.get(&r) else { continue };
        let [d] = pcs[..] else { continue };
        let di = &code[d];
        if di.guard.is_some() {
            continue;
        }
        let DInst::Op2 { op, d: dst, a, b } = &di.kind else {
            continue;
        };
        if *dst != r {
            continue;
        }
        let invariant = |s: &Src| match s {
            Src::Imm(_) => true,
            Src::Reg(q) => !regs.contains(q),
            _ => false,
        };
        let (down, step) = match op {
            Op::Add { sat: false, .. } if *a == Src::Reg(r) && invariant(b) => (false, *b),
            Op::Add { sat: false, .. } if *b == Src::Reg(r) && invariant(a) => (false, *a),
            Op::Sub { sat: false, .. } if *a == Src::Reg(r) && invariant(b) => (true, *b),
            _ => continue,
        };
        // On every path from the header to a back edge, exactly once.
        let once = code
            .iter()
            .enumerate()
            .take(end + 1)
            .skip(h)
            .all(|(pc, x)| {
                branch_targets(x).into_iter().all(|t| {
                    let t = t as usize;
                    if pc < d {
                        // Before the definition: no skipping it, no back edge before it (inner
                        // loops wholly before it are fine).
                        !(t > d && t <= end) && t != h
                    } else {
                        // After it: no back edge into [h+1, d] (an inner loop around it).
                        !(t > h && t <= d)
                    }
                })
            });
        if once {
            out.push(Induction { reg: r, step, down });
        }
    }
    out
}

/// Loop headers: for each pc, the last pc of the loop it heads (if any).
fn loop_regions(code: &[crate::emu::decode::DecodedInst]) -> Vec<Option<u32>> {
    let mut end: Vec<Option<u32>> = vec![None; code.len() + 1];
    for (pc, di) in code.iter().enumerate() {
        let targets: Vec<u32> = match &di.kind {
            DInst::Bra { target, .. } => vec![*target],
            DInst::Brx { targets, .. } => targets.clone(),
            _ => Vec::new(),
        };
        for t in targets {
            if (t as usize) <= pc {
                let e = &mut end[t as usize];
                *e = Some(e.map_or(pc as u32, |x: u32| x.max(pc as u32)));
            }
        }
    }
    end
}

/// The block entries where paths join (targets of forward branches), with the registers live
/// there (the carry flag always counts as live).
fn join_points(func: &DFunc, body: &Body) -> Vec<Option<Vec<u32>>> {
    let cfg = crate::machine::cfg::Cfg::compute(body);
    let live = crate::machine::liveness::Liveness::compute(body, &cfg);
    let mut out = vec![None; func.code.len() + 1];
    for (pc, di) in func.code.iter().enumerate() {
        for t in branch_targets(di) {
            let t = t as usize;
            if t <= pc || t >= func.code.len() || out[t].is_some() {
                continue;
            }
            let inst = func.code[t].inst;
            let regs: Vec<u32> = match cfg.block_of(inst) {
                Some(b) if cfg.insts(b).first() == Some(&inst) => live
                    .live_in(b)
                    .iter()
                    .map(|r| r as u32)
                    .chain(std::iter::once(func.cc_reg))
                    .collect(),
                // Not a block entry for the CFG: every register counts.
                _ => (0..=func.nregs).collect(),
            };
            out[t] = Some(regs);
        }
    }
    out
}

/// Closes the current segment of `st` into a trace node; returns its index.
fn freeze<'ctx>(nodes: &mut Vec<TraceNode<'ctx>>, st: &mut State<'ctx>) -> usize {
    nodes.push(TraceNode {
        parents: st.trace.into_iter().collect(),
        events: std::mem::take(&mut st.events),
    });
    st.trace = Some(nodes.len() - 1);
    nodes.len() - 1
}

/// The exploration in progress: the states to run, lowest pc first (every state that reaches a
/// join point has arrived before the first of them goes on, so equal ones can be merged: all
/// edges into a block entry are forward edges, back edges end the abstract iteration), and what
/// has been found.
struct Walk<'ctx> {
    work: std::collections::BTreeMap<(u32, u64), State<'ctx>>,
    /// Arrival order among states at one pc.
    seq: u64,
    /// Instructions executed (over all paths).
    steps: usize,
    out: Exploration<'ctx>,
}

impl<'ctx> Walk<'ctx> {
    /// Puts `st` back in the work list at its pc, after the states already there.
    fn park(&mut self, st: State<'ctx>) {
        self.seq += 1;
        self.work.insert((st.pc, self.seq), st);
    }

    /// Ends the path of `st` (exit, return, back edge, end of code).
    fn end_path(&mut self, st: &mut State<'ctx>) {
        freeze(&mut self.out.nodes, st);
        self.out.paths += 1;
    }
}

/// An instruction's guard on one path.
enum Guarded<'ctx> {
    Always,
    Never,
    When(Bool<'ctx>),
}

/// The engine for one kernel.
pub struct Engine<'a, 'ctx> {
    dom: Z3Domain<'ctx>,
    func: &'a DFunc,
    body: &'a Body,
    prover: Prover<'ctx>,
    /// The loop headed by each pc, if any.
    loop_info: Vec<Option<LoopInfo>>,
    /// At each block entry that a forward branch targets (where paths join): the registers live
    /// there, which are all that decides whether two arriving states are the same.
    join_live: Vec<Option<Vec<u32>>>,
    limits: Limits,
    fresh: u32,
}

/// Names of the thread-index symbols.
pub const TID: [&str; 3] = ["%tid.x", "%tid.y", "%tid.z"];
/// Names of the block-size symbols.
pub const NTID: [&str; 3] = ["%ntid.x", "%ntid.y", "%ntid.z"];
const CTAID: [&str; 3] = ["%ctaid.x", "%ctaid.y", "%ctaid.z"];
const NCTAID: [&str; 3] = ["%nctaid.x", "%nctaid.y", "%nctaid.z"];

/// The launch assumptions every query is made under (CUDA limits; see docs/shuffle.md):
/// `tid < ntid`, `1 ≤ ntid.x,y ≤ 1024`, `1 ≤ ntid.z ≤ 64`, `ctaid < nctaid`,
/// `nctaid.y,z ≤ 65535`, and `nctaid.x ≤ 2^21` (with `ntid.x ≤ 1024`, the global x index
/// `ctaid.x·ntid.x + tid.x` fits a signed 32-bit integer). Products of symbols are avoided on
/// purpose: they make every query a multiplier circuit.
pub fn launch_assumptions<'ctx>(dom: &mut Z3Domain<'ctx>) -> Vec<Bool<'ctx>> {
    let ctx = dom.ctx();
    let n = |v: u64| BV::from_u64(ctx, v, 64);
    let mut a = Vec::new();
    for c in 0..3 {
        let t = dom.special_symbol(TID[c], 32);
        let s = dom.special_symbol(NTID[c], 32);
        let b = dom.special_symbol(CTAID[c], 32);
        let nb = dom.special_symbol(NCTAID[c], 32);
        a.push(t.bvult(&s));
        a.push(s.bvuge(&n(1)));
        a.push(s.bvule(&n(if c == 2 { 64 } else { 1024 })));
        a.push(b.bvult(&nb));
        a.push(nb.bvule(&n(if c == 0 { 1 << 21 } else { 65535 })));
    }
    a
}

/// Inclusive upper bounds of the launch symbols (the same limits as [`launch_assumptions`]).
pub fn launch_bounds() -> std::collections::HashMap<String, u64> {
    let mut b = std::collections::HashMap::new();
    for c in 0..3 {
        let (nt, nb) = match c {
            0 => (1024, 1 << 21),
            1 => (1024, 65535),
            _ => (64, 65535),
        };
        b.insert(TID[c].to_string(), nt - 1);
        b.insert(NTID[c].to_string(), nt);
        b.insert(CTAID[c].to_string(), nb - 1);
        b.insert(NCTAID[c].to_string(), nb);
    }
    b
}

impl<'a, 'ctx> Engine<'a, 'ctx> {
    /// An engine for `func` (whose IR body is `body`).
    pub fn new(
        ctx: &'ctx z3::Context,
        func: &'a DFunc,
        body: &'a Body,
        limits: Limits,
    ) -> Engine<'a, 'ctx> {
        let mut dom = Z3Domain::new(ctx);
        let assumptions = launch_assumptions(&mut dom);
        let regions = loop_regions(&func.code);
        let mut loop_info = vec![None; func.code.len() + 1];
        for (h, end) in regions.iter().enumerate() {
            let Some(end) = end else { continue };
            let end = *end as usize;
            // The pcs defining each register in the loop.
            let mut defs: HashMap<u32, Vec<usize>> = HashMap::new();
            let mut clobbers = false;
            for pc in h..=end {
                let di = &func.code[pc];
                for r in crate::ptx::roles::defs(body.inst(di.inst)) {
                    defs.entry(r.0).or_default().push(pc);
                }
                clobbers |= clobbers_memory(di, body);
            }
            let mut regs: Vec<u32> = defs.keys().copied().collect();
            regs.push(func.cc_reg);
            regs.sort_unstable();
            regs.dedup();
            // Entered only at the header, and not through an indexed branch (whose table the
            // code generator would have to redirect).
            let single_entry = func.code.iter().enumerate().all(|(pc, di)| {
                (h..=end).contains(&pc)
                    || branch_targets(di).into_iter().all(|t| {
                        let t = t as usize;
                        let into_body = (h + 1..=end).contains(&t);
                        let indexed_to_header = t == h && matches!(di.kind, DInst::Brx { .. });
                        !into_body && !indexed_to_header
                    })
            });
            let ivs = induction_vars(&func.code, h, end, &regs, &defs);
            let span = LoopSpan {
                header: h as u32,
                end: end as u32,
                header_inst: func.code[h].inst,
                insts: func.code[h..=end].iter().map(|d| d.inst).collect(),
                clobber_free: !clobbers,
                single_entry,
            };
            loop_info[h] = Some(LoopInfo {
                span,
                regs,
                clobbers,
                ivs,
            });
        }
        let mut prover = Prover::new(ctx, assumptions, launch_bounds());
        prover.deadline = limits.deadline;
        let join_live = join_points(func, body);
        Engine {
            dom,
            func,
            body,
            prover,
            loop_info,
            join_live,
            limits,
            fresh: 0,
        }
    }

    /// The domain (for the detection queries).
    pub fn domain(&mut self) -> &mut Z3Domain<'ctx> {
        &mut self.dom
    }

    /// The domain and the prover (for the detection queries).
    pub fn parts(&mut self) -> (&mut Z3Domain<'ctx>, &mut Prover<'ctx>) {
        (&mut self.dom, &mut self.prover)
    }

    fn tid_args(&mut self) -> Vec<BV<'ctx>> {
        TID.iter().map(|n| self.dom.special_symbol(n, 32)).collect()
    }

    /// A value nothing is known about that may differ per thread.
    fn opaque(&mut self, what: &str, bits: u32, extra: &[BV<'ctx>]) -> BV<'ctx> {
        self.fresh += 1;
        let mut args = self.tid_args();
        args.extend_from_slice(extra);
        self.dom.uf(&format!("{what}#{}", self.fresh), &args, bits)
    }

    fn sreg(&mut self, s: Sreg) -> BV<'ctx> {
        match s {
            Sreg::Tid(c) => self.dom.special_symbol(TID[c as usize % 3], 32),
            Sreg::Ntid(c) => self.dom.special_symbol(NTID[c as usize % 3], 32),
            Sreg::Ctaid(c) => self.dom.special_symbol(CTAID[c as usize % 3], 32),
            Sreg::Nctaid(c) => self.dom.special_symbol(NCTAID[c as usize % 3], 32),
            // The same in every thread of the CTA; nothing else is assumed about it.
            Sreg::Cluster(r) => self.dom.special_symbol(r.name(), 32),
            Sreg::Laneid => {
                let t: Vec<BV<'ctx>> = TID.iter().map(|n| self.dom.special_symbol(n, 32)).collect();
                let nx = self.dom.special_symbol(NTID[0], 32);
                let ny = self.dom.special_symbol(NTID[1], 32);
                let lin = t[0].bvadd(&nx.bvmul(&t[1].bvadd(&ny.bvmul(&t[2]))));
                lin.bvurem(&self.dom.num(32))
            }
            Sreg::Const(v) => self.dom.num(v),
            Sreg::Warpid | Sreg::Nwarpid | Sreg::DynSmem | Sreg::TotalSmem => {
                // Uniform within a warp (warpid) or the launch.
                let name = match s {
                    Sreg::Warpid => "%warpid",
                    Sreg::Nwarpid => "%nwarpid",
                    Sreg::DynSmem => "%dynamic_smem_size",
                    _ => "%total_smem_size",
                };
                self.dom.special_symbol(name, 32)
            }
            _ => self.opaque("sreg", 64, &[]),
        }
    }

    fn reg(&mut self, st: &mut State<'ctx>, r: u32) -> BV<'ctx> {
        if let Some(v) = &st.regs[r as usize] {
            return v.clone();
        }
        let bits = u32::from(self.func.reg_bits[r as usize]).max(1);
        let v = self.opaque("undef", bits, &[]);
        st.regs[r as usize] = Some(v.clone());
        v
    }

    fn src(&mut self, st: &mut State<'ctx>, s: Src) -> BV<'ctx> {
        match s {
            Src::Reg(r) => self.reg(st, r),
            Src::NotReg(r) => {
                let v = self.reg(st, r);
                let one = self.dom.num(1);
                low(&v, 1)
                    ._eq(&BV::from_u64(self.dom.ctx(), 0, 1))
                    .ite(&one, &self.dom.num(0))
            }
            Src::Imm(v) => self.dom.num(v),
            Src::Sreg(s) => self.sreg(s),
            Src::LocalAddr(o) => {
                let base = self.dom.special_symbol("%local_base", 64);
                base.bvadd(&self.dom.num(o))
            }
            Src::RegOff(r, o) => {
                let v = self.reg(st, r);
                v.bvadd(&self.dom.num(o as u64))
            }
        }
    }

    fn addr(&mut self, st: &mut State<'ctx>, a: &Addr) -> BV<'ctx> {
        let base = match a.base {
            ABase::Reg(r) => self.reg(st, r),
            ABase::Abs(v) => self.dom.num(v),
            ABase::Local(o) => {
                let b = self.dom.special_symbol("%local_base", 64);
                b.bvadd(&self.dom.num(o))
            }
            ABase::FParam(o) => {
                let b = self.dom.special_symbol("%fparam_base", 64);
                b.bvadd(&self.dom.num(u64::from(o)))
            }
        };
        base.bvadd(&self.dom.num(a.off as u64))
    }

    fn set(&mut self, st: &mut State<'ctx>, r: u32, v: BV<'ctx>) {
        st.regs[r as usize] = Some(v);
    }

    fn apply(&mut self, op: Op, args: &[BV<'ctx>]) -> BV<'ctx> {
        match self.dom.apply(op, args) {
            Ok(v) => v,
            Err(_) => self.opaque("op", 64, args),
        }
    }

    fn out_of_time(&self) -> bool {
        super::past(self.limits.deadline)
    }

    fn feasible(&mut self, cond: &[Bool<'ctx>]) -> bool {
        self.prover.check(cond) != SatResult::Unsat
    }

    fn epoch_index(space: Space) -> Option<usize> {
        match space {
            Space::Global => Some(0),
            Space::Shared => Some(1),
            Space::Local => Some(2),
            Space::Generic => None,
            Space::Const | Space::Param => None,
        }
    }

    fn bump(st: &mut State<'ctx>, space: Space) {
        match Self::epoch_index(space) {
            Some(i) => st.epoch[i] += 1,
            None => {
                if space == Space::Generic {
                    for e in &mut st.epoch {
                        *e += 1;
                    }
                }
            }
        }
        if matches!(space, Space::Global | Space::Generic) {
            st.events.push(Event::Clobber);
        }
    }

    fn clobber_all(st: &mut State<'ctx>) {
        for e in &mut st.epoch {
            *e += 1;
        }
        st.events.push(Event::Clobber);
    }

    fn load_value(
        &mut self,
        st: &State<'ctx>,
        space: Space,
        addr: &BV<'ctx>,
        size: u32,
    ) -> BV<'ctx> {
        let name = match space {
            Space::Param => format!("param{size}"),
            Space::Const => format!("const{size}"),
            Space::Generic => format!("gen{}_{}_{}_{size}", st.epoch[0], st.epoch[1], st.epoch[2]),
            _ => format!(
                "{space:?}{}_{size}",
                Self::epoch_index(space).map_or(0, |i| st.epoch[i])
            ),
        };
        self.dom.uf(&name, std::slice::from_ref(addr), size * 8)
    }

    /// Merges the states that arrived at the same join point and agree on every register live
    /// there, on the memory epochs and on the loops they are in (the paper's memoisation, made
    /// sound: the merged state's path condition is the disjunction of theirs, so Z3 prunes a
    /// branch after the join only when it is infeasible for every merged path, and its trace
    /// node has every arriving path as a parent).
    fn merge(
        &mut self,
        states: Vec<State<'ctx>>,
        nodes: &mut Vec<TraceNode<'ctx>>,
    ) -> Vec<State<'ctx>> {
        let live = self.join_live[states[0].pc as usize]
            .clone()
            .unwrap_or_default();
        let same = |a: &State<'ctx>, b: &State<'ctx>| {
            a.epoch == b.epoch
                && a.loops == b.loops
                && a.from_back_edge == b.from_back_edge
                && live
                    .iter()
                    .all(|&r| a.regs.get(r as usize) == b.regs.get(r as usize))
        };
        let mut groups: Vec<Vec<State<'ctx>>> = Vec::new();
        for st in states {
            match groups.iter_mut().find(|g| same(&g[0], &st)) {
                Some(g) => g.push(st),
                None => groups.push(vec![st]),
            }
        }
        let ctx = self.dom.ctx();
        groups
            .into_iter()
            .map(|mut g| {
                if g.len() == 1 {
                    return g.pop().expect("one state");
                }
                let parents: Vec<usize> = g.iter_mut().map(|s| freeze(nodes, s)).collect();
                let alternatives: Vec<Bool<'ctx>> = g
                    .iter()
                    .map(|s| {
                        let refs: Vec<&Bool<'ctx>> = s.cond.iter().collect();
                        Bool::and(ctx, &refs)
                    })
                    .collect();
                let refs: Vec<&Bool<'ctx>> = alternatives.iter().collect();
                let mut st = g.swap_remove(0);
                st.cond = vec![Bool::or(ctx, &refs)];
                nodes.push(TraceNode {
                    parents,
                    events: Vec::new(),
                });
                st.trace = Some(nodes.len() - 1);
                st
            })
            .collect()
    }

    /// The innermost loop `pc` is directly in (the loop the path entered last, when `pc` is not
    /// also in a loop nested in it that the path has not entered — impossible, as a nested loop
    /// is entered through its header).
    fn innermost(st: &State<'ctx>, pc: usize) -> Option<(u32, usize)> {
        st.loops
            .last()
            .filter(|&&(h, end, _)| (h as usize..=end as usize).contains(&pc))
            .map(|&(h, _, a)| (h, a))
    }

    /// Explores every path of the kernel.
    pub fn explore(&mut self) -> Result<Exploration<'ctx>, String> {
        let nregs = self.func.nregs as usize + 1;
        let mut walk = Walk {
            work: std::collections::BTreeMap::new(),
            seq: 0,
            steps: 0,
            out: Exploration {
                nodes: Vec::new(),
                paths: 0,
                merged: 0,
                iter_syms: Vec::new(),
                arrivals: Vec::new(),
                loops: HashMap::new(),
                induction_vars: 0,
                solver_queries: 0,
            },
        };
        walk.work.insert(
            (0, 0),
            State {
                pc: 0,
                regs: vec![None; nregs],
                cond: Vec::new(),
                events: Vec::new(),
                epoch: [0; 3],
                from_back_edge: false,
                loops: Vec::new(),
                trace: None,
                parked: false,
            },
        );
        // A model of the launch assumptions: each two-way branch then costs one query.
        self.prover.check(&[]);
        while let Some((_, st)) = walk.work.pop_first() {
            if self.join_live[st.pc as usize].is_some() && !st.parked {
                self.merge_arrivals(&mut walk, st);
                continue;
            }
            self.run_path(&mut walk, st)?;
        }
        walk.out.loops = self
            .loop_info
            .iter()
            .flatten()
            .map(|l| (l.span.header, l.span.clone()))
            .collect();
        Ok(walk.out)
    }

    /// Every state arriving at the join point of `st` is in the work list now: merges the
    /// equal ones and parks the rest there.
    fn merge_arrivals(&mut self, walk: &mut Walk<'ctx>, st: State<'ctx>) {
        let mut here = vec![st];
        while let Some(e) = walk.work.first_entry() {
            if e.key().0 != here[0].pc {
                break;
            }
            here.push(e.remove());
        }
        let before = here.len();
        let kept = self.merge(here, &mut walk.out.nodes);
        walk.out.merged += before - kept.len();
        for mut s in kept {
            s.parked = true;
            walk.park(s);
        }
    }

    /// Runs `st` until its path ends, forks, or falls into a join point.
    fn run_path(&mut self, walk: &mut Walk<'ctx>, mut st: State<'ctx>) -> Result<(), String> {
        st.parked = false;
        let mut arrived = true;
        loop {
            if !arrived && self.join_live[st.pc as usize].is_some() {
                // Fell through into a join point: wait there for the other arrivals.
                walk.park(st);
                return Ok(());
            }
            arrived = false;
            walk.steps += 1;
            if walk.steps > self.limits.max_steps {
                return Err(format!(
                    "analysis limit reached: more than {} instructions explored",
                    self.limits.max_steps
                ));
            }
            if walk.steps % 256 == 1 && self.out_of_time() {
                return Err(TIME_SPENT.into());
            }
            let pc = st.pc as usize;
            let Some(di) = self.func.code.get(pc) else {
                walk.end_path(&mut st);
                return Ok(());
            };
            // Leaving loops.
            while st
                .loops
                .last()
                .is_some_and(|&(h, end, _)| pc < h as usize || pc > end as usize)
            {
                st.loops.pop();
            }
            if !st.from_back_edge {
                if let Some(info) = self.loop_info[pc].clone() {
                    self.enter_loop(&mut walk.out, &mut st, pc, &info);
                }
            }
            st.from_back_edge = false;
            let guard = match self.guard(&mut st, di) {
                Guarded::Always => None,
                Guarded::When(b) => Some(b),
                Guarded::Never => {
                    self.skipped_load(&mut st, di, pc);
                    st.pc += 1;
                    continue;
                }
            };
            match &di.kind {
                DInst::Bra { .. } | DInst::Brx { .. } => {
                    return self.branch(walk, st, di, guard);
                }
                DInst::Ret | DInst::Exit | DInst::Trap => {
                    if let Some(g) = &guard {
                        freeze(&mut walk.out.nodes, &mut st);
                        let mut s2 = st.clone();
                        s2.cond.push(g.not());
                        s2.pc = st.pc + 1;
                        s2.parked = false;
                        walk.park(s2);
                        st.cond.push(g.clone());
                    }
                    walk.end_path(&mut st);
                    return Ok(());
                }
                DInst::Unsupported { why } => {
                    return Err(format!(
                        "line {}: instruction not understood by the symbolic emulator: {why}",
                        di.line
                    ));
                }
                DInst::Ldmatrix { .. }
                | DInst::Stmatrix { .. }
                | DInst::Mma { .. }
                | DInst::Wgmma { .. }
                | DInst::Mbarrier { .. }
                | DInst::MbarPending { .. }
                | DInst::BulkCopy { .. }
                | DInst::TensorCopy(_)
                | DInst::CpAsync { .. }
                | DInst::CpAsyncCommit
                | DInst::CpAsyncMbarArrive { .. }
                | DInst::CpAsyncWait { .. } => {
                    return Err(format!(
                        "line {}: warp-matrix and asynchronous-copy instructions are not \
                         modelled by the symbolic emulator",
                        di.line
                    ));
                }
                _ => {}
            }
            self.step_guarded(&mut st, di, guard.as_ref())?;
            st.pc += 1;
        }
    }

    /// Loop entry: one abstract iteration. The iteration count is a 64-bit and a 32-bit symbol
    /// (one for each width of induction variable: `k+1` then substitutes into a sum, which the
    /// no-wrap rewriting distributes, not into an extract of one); induction variables become
    /// `init + k·step` with init and step as on arrival, other registers the loop writes opaque
    /// functions of `k`.
    fn enter_loop(
        &mut self,
        out: &mut Exploration<'ctx>,
        st: &mut State<'ctx>,
        pc: usize,
        info: &LoopInfo,
    ) {
        let k = BV::fresh_const(self.dom.ctx(), "k", 64);
        let k32 = BV::fresh_const(self.dom.ctx(), "k32_", 32);
        let arrival = out.arrivals.len();
        out.arrivals.push((k.clone(), k32.clone()));
        out.iter_syms.push(k.clone());
        out.iter_syms.push(k32.clone());
        let mut ivs: Vec<(u32, BV<'ctx>)> = Vec::new();
        for iv in &info.ivs {
            let bits = u32::from(self.func.reg_bits[iv.reg as usize]).max(1);
            if bits > 64 {
                continue;
            }
            let init = low(&self.reg(st, iv.reg), bits);
            let step = low(&self.src(st, iv.step), bits);
            let kk = if bits > 32 {
                low(&k, bits)
            } else {
                low(&k32, bits)
            };
            let delta = kk.bvmul(&step);
            let v = if iv.down {
                init.bvsub(&delta)
            } else {
                init.bvadd(&delta)
            };
            ivs.push((iv.reg, crate::emu::symbolic::zext64(&v)));
        }
        out.induction_vars += ivs.len();
        for &r in &info.regs {
            if ivs.iter().any(|(q, _)| *q == r) {
                continue;
            }
            let bits = u32::from(self.func.reg_bits[r as usize]).max(1);
            let v = self.opaque("loop", bits, std::slice::from_ref(&k));
            st.regs[r as usize] = Some(v);
        }
        for (r, v) in ivs {
            st.regs[r as usize] = Some(v);
        }
        if info.clobbers {
            Self::clobber_all(st);
        }
        st.loops.retain(|&(h, _, _)| h as usize != pc);
        st.loops.push((pc as u32, info.span.end, arrival));
    }

    /// The instruction's guard on this path: decided by simplification, or a condition.
    fn guard(&mut self, st: &mut State<'ctx>, di: &DecodedInst) -> Guarded<'ctx> {
        let Some((p, neg)) = di.guard else {
            return Guarded::Always;
        };
        let v = self.reg(st, p);
        let b = low(&v, 1)._eq(&BV::from_u64(self.dom.ctx(), u64::from(!neg), 1));
        let b = b.simplify();
        match b.as_bool() {
            Some(true) => Guarded::Always,
            Some(false) => Guarded::Never,
            None => Guarded::When(b),
        }
    }

    /// A global load that does not execute on this path still matters: a lane on this path may
    /// be the SOURCE lane of its shuffle, so detection must see the path (with a false guard).
    fn skipped_load(&mut self, st: &mut State<'ctx>, di: &DecodedInst, pc: usize) {
        let DInst::Ld {
            size, dsts, addr, ..
        } = &di.kind
        else {
            return;
        };
        if addr.space != Space::Global {
            return;
        }
        let f = Bool::from_bool(self.dom.ctx(), false);
        let base = self.addr(st, addr);
        for i in 0..dsts.len() {
            let a = base.bvadd(&self.dom.num(u64::from(*size) * i as u64));
            st.events.push(Event::Load {
                inst: di.inst,
                comp: i as u32,
                size: *size,
                addr: a,
                guard: Some(f.clone()),
                cond: st.cond.clone(),
                iter: Self::innermost(st, pc),
            });
        }
    }

    /// A branch: each feasible side continues as a state of its own (a back edge ends the
    /// abstract iteration).
    fn branch(
        &mut self,
        walk: &mut Walk<'ctx>,
        mut st: State<'ctx>,
        di: &DecodedInst,
        guard: Option<Bool<'ctx>>,
    ) -> Result<(), String> {
        let pc = st.pc as usize;
        let next = st.pc + 1;
        let targets: Vec<u32> = match &di.kind {
            DInst::Bra { target, .. } => vec![*target],
            DInst::Brx { targets, .. } => targets.clone(),
            _ => Vec::new(),
        };
        let mut succ: Vec<(u32, Option<Bool<'ctx>>)> = Vec::new();
        match (&guard, targets.len()) {
            (None, 1) => succ.push((targets[0], None)),
            (Some(g), 1) => {
                succ.push((targets[0], Some(g.clone())));
                succ.push((next, Some(g.not())));
            }
            _ => {
                for t in targets {
                    succ.push((t, guard.clone()));
                }
                if let Some(g) = &guard {
                    succ.push((next, Some(g.not())));
                }
            }
        }
        let many = succ.len() > 1;
        // With two sides, the parent's model decides one side for free.
        let free_side: Option<usize> = match (&guard, succ.len()) {
            (Some(g), 2) => match self.prover.holds_in_model(&st.cond, g) {
                Some(true) => Some(0),
                Some(false) => Some(1),
                None => None,
            },
            _ => None,
        };
        if many {
            freeze(&mut walk.out.nodes, &mut st);
        }
        for (side, (t, c)) in succ.into_iter().enumerate() {
            let mut s2 = st.clone();
            if let Some(c) = c {
                s2.cond.push(c);
            }
            if many && free_side != Some(side) {
                // A query can take a second on a long path: check the budget before each, not
                // only every 256 steps.
                if self.out_of_time() {
                    return Err(TIME_SPENT.into());
                }
                walk.out.solver_queries += 1;
                if !self.feasible(&s2.cond) {
                    continue;
                }
            }
            if (t as usize) <= pc {
                // Back edge: the abstract iteration ends here.
                walk.end_path(&mut s2);
                continue;
            }
            s2.pc = t;
            s2.parked = false;
            walk.park(s2);
            if walk.work.len() + walk.out.paths > self.limits.max_paths {
                return Err(format!(
                    "analysis limit reached: more than {} paths",
                    self.limits.max_paths
                ));
            }
        }
        Ok(())
    }

    /// A straight-line instruction: computed into a copy and merged under the guard.
    fn step_guarded(
        &mut self,
        st: &mut State<'ctx>,
        di: &DecodedInst,
        guard: Option<&Bool<'ctx>>,
    ) -> Result<(), String> {
        let before = guard.map(|_| st.regs.clone());
        self.step(st, di, guard)?;
        let (Some(g), Some(before)) = (guard, before) else {
            return Ok(());
        };
        for (r, old) in before.into_iter().enumerate() {
            if let (Some(old), Some(new)) = (&old, &st.regs[r]) {
                if !old.eq(new) {
                    st.regs[r] = Some(g.ite(new, old));
                }
            } else if old.is_none() && st.regs[r].is_some() {
                let bits = u32::from(self.func.reg_bits[r]).max(1);
                let o = self.opaque("undef", bits, &[]);
                let new = st.regs[r].clone().unwrap();
                st.regs[r] = Some(g.ite(&new, &o));
            }
        }
        Ok(())
    }

    fn step(
        &mut self,
        st: &mut State<'ctx>,
        di: &crate::emu::decode::DecodedInst,
        guard: Option<&Bool<'ctx>>,
    ) -> Result<(), String> {
        let cc = self.func.cc_reg;
        match &di.kind {
            DInst::Nop => {
                if is_fence(self.body, di.inst) {
                    Self::clobber_all(st);
                }
            }
            DInst::Mov { d, a } => {
                let v = self.src(st, *a);
                self.set(st, *d, v);
            }
            DInst::Op1 { op, d, a } => {
                let x = self.src(st, *a);
                let v = self.apply(*op, &[x]);
                self.set(st, *d, v);
            }
            DInst::Op2 { op, d, a, b } => {
                let x = self.src(st, *a);
                let y = self.src(st, *b);
                let v = self.apply(*op, &[x, y]);
                self.set(st, *d, v);
            }
            DInst::Op3 { op, d, a, b, c } => {
                let x = self.src(st, *a);
                let y = self.src(st, *b);
                let z = self.src(st, *c);
                let v = self.apply(*op, &[x, y, z]);
                self.set(st, *d, v);
            }
            DInst::Op4 { op, d, args } => {
                let xs: Vec<BV<'ctx>> = args.iter().map(|s| self.src(st, *s)).collect();
                let v = self.apply(*op, &xs);
                self.set(st, *d, v);
            }
            DInst::Mad {
                mul,
                add,
                cout,
                cin,
                d,
                a,
                b,
                c,
            } => {
                let x = self.src(st, *a);
                let y = self.src(st, *b);
                let z = self.src(st, *c);
                let p = self.apply(*mul, &[x, y]);
                let ci = if *cin {
                    self.reg(st, cc)
                } else {
                    self.dom.num(0)
                };
                let r = self.apply(*add, &[p.clone(), z.clone(), ci.clone()]);
                if let Some(co) = cout {
                    let v = self.apply(*co, &[p, z, ci]);
                    self.set(st, cc, v);
                }
                self.set(st, *d, r);
            }
            DInst::Carry {
                op,
                cout,
                cin,
                c0,
                d,
                a,
                b,
            } => {
                let x = self.src(st, *a);
                let y = self.src(st, *b);
                let ci = if *cin {
                    self.reg(st, cc)
                } else {
                    self.dom.num(*c0)
                };
                let r = self.apply(*op, &[x.clone(), y.clone(), ci.clone()]);
                if let Some(co) = cout {
                    let v = self.apply(*co, &[x, y, ci]);
                    self.set(st, cc, v);
                }
                self.set(st, *d, r);
            }
            DInst::Setp {
                cmp,
                p,
                q,
                a,
                b,
                comb,
                set_true,
            } => {
                let x = self.src(st, *a);
                let y = self.src(st, *b);
                let t = self.apply(*cmp, &[x, y]);
                let mut pv = t.clone();
                let mut qv = q.map(|_| self.apply(Op::Not { bits: 1 }, &[t]));
                if let Some((bop, c)) = comb {
                    let cv = self.src(st, *c);
                    pv = self.apply(*bop, &[pv, cv.clone()]);
                    if let Some(qq) = qv {
                        qv = Some(self.apply(*bop, &[qq, cv]));
                    }
                }
                if let Some(tv) = set_true {
                    let one = self.dom.num(*tv);
                    let zero = self.dom.num(0);
                    pv = self.apply(Op::Select, &[one.clone(), zero.clone(), pv]);
                    qv = qv.map(|qq| self.apply(Op::Select, &[one, zero, qq]));
                }
                if let Some(p) = p {
                    self.set(st, *p, pv);
                }
                if let (Some(q), Some(qv)) = (q, qv) {
                    self.set(st, *q, qv);
                }
            }
            DInst::Slct { cmp, d, a, b, c } => {
                let x = self.src(st, *a);
                let y = self.src(st, *b);
                let z = self.src(st, *c);
                let zero = self.dom.num(0);
                let t = self.apply(*cmp, &[z, zero]);
                let v = self.apply(Op::Select, &[x, y, t]);
                self.set(st, *d, v);
            }
            DInst::Pack { d, parts, part } => {
                let mut acc: Option<BV<'ctx>> = None;
                for s in parts {
                    let v = low(&self.src(st, *s), *part);
                    acc = Some(match acc {
                        None => v,
                        Some(lo) => v.concat(&lo),
                    });
                }
                if let Some(v) = acc {
                    let v = crate::emu::symbolic::zext64(&low(&v, v.get_size().min(64)));
                    self.set(st, *d, v);
                }
            }
            DInst::Unpack { ds, a, part } => {
                let v = self.src(st, *a);
                for (i, d) in ds.iter().enumerate() {
                    let Some(d) = d else { continue };
                    let lo = i as u32 * part;
                    let x = if lo + part <= 64 {
                        crate::emu::symbolic::zext64(&v.extract(lo + part - 1, lo))
                    } else {
                        self.opaque("unpack", 64, &[])
                    };
                    self.set(st, *d, x);
                }
            }
            DInst::Cvta {
                to, space, d, a, ..
            } => {
                let x = self.src(st, *a);
                let v = if *space == Space::Global {
                    x
                } else {
                    self.dom.uf(&format!("cvta_{space:?}_{to}"), &[x], 64)
                };
                self.set(st, *d, v);
            }
            DInst::Isspacep { d, .. } => {
                let v = self.opaque("isspacep", 1, &[]);
                self.set(st, *d, v);
            }
            DInst::Ld {
                size,
                ext,
                dsts,
                addr,
            } => {
                let base = self.addr(st, addr);
                let strong = is_strong_load(self.body, di.inst);
                for (i, d) in dsts.iter().enumerate() {
                    let a = if i == 0 {
                        base.clone()
                    } else {
                        base.bvadd(&self.dom.num(u64::from(*size) * i as u64))
                    };
                    let mut v = self.load_value(st, addr.space, &a, *size);
                    if let Some(e) = ext {
                        v = self.apply(*e, &[v]);
                    }
                    if addr.space == Space::Global && !strong {
                        st.events.push(Event::Load {
                            inst: di.inst,
                            comp: i as u32,
                            size: *size,
                            addr: a,
                            guard: guard.cloned(),
                            cond: st.cond.clone(),
                            iter: Self::innermost(st, st.pc as usize),
                        });
                    }
                    if let Some(d) = d {
                        self.set(st, *d, v);
                    }
                }
                if strong {
                    Self::clobber_all(st);
                }
            }
            DInst::St { addr, .. } => Self::bump(st, addr.space),
            DInst::Atom { d, addr, .. } => {
                Self::bump(st, addr.space);
                if addr.space != Space::Global {
                    st.events.push(Event::Clobber);
                }
                if let Some(d) = d {
                    let v = self.opaque("atom", 64, &[]);
                    self.set(st, *d, v);
                }
            }
            // Other CTAs of the cluster may have written any shared or global memory.
            DInst::ClusterBar { .. } => Self::clobber_all(st),
            // Addresses in other CTAs' shared memory: values of the thread, nothing more.
            DInst::Mapa { d, .. } | DInst::Getctarank { d, .. } => {
                let v = self.opaque("cluster", 64, &[]);
                self.set(st, *d, v);
            }
            DInst::Bar { d, .. } => {
                Self::clobber_all(st);
                if let Some(d) = d {
                    let v = self.opaque("bar", 32, &[]);
                    self.set(st, *d, v);
                }
            }
            DInst::Call { rets, .. } => {
                Self::clobber_all(st);
                for r in rets {
                    if let crate::emu::decode::CallRet::Reg(r) = r {
                        let v = self.opaque("ret", 64, &[]);
                        self.set(st, *r, v);
                    }
                }
            }
            DInst::WarpSync { .. } => {}
            DInst::Shfl { d, p, .. } => {
                let v = self.opaque("shfl", 32, &[]);
                self.set(st, *d, v);
                if let Some(p) = p {
                    let v = self.opaque("shflp", 1, &[]);
                    self.set(st, *p, v);
                }
            }
            DInst::Vote { d, .. }
            | DInst::Match { d, .. }
            | DInst::Redux { d, .. }
            | DInst::Activemask { d } => {
                let v = self.opaque("warp", 32, &[]);
                self.set(st, *d, v);
                if let DInst::Match { p: Some(p), .. } = &di.kind {
                    let v = self.opaque("matchp", 1, &[]);
                    self.set(st, *p, v);
                }
            }
            // Where the dynamic stack lies is the implementation's choice: a value of the thread.
            DInst::Alloca { d, .. } | DInst::StackSave { d } => {
                let v = self.opaque("stack", 64, &[]);
                self.set(st, *d, v);
            }
            // Frees what `alloca` gave: later allocations reuse it (see `clobbers_memory`).
            DInst::StackRestore { .. } => {}
            DInst::Elect { d, p, .. } => {
                for r in [d, p].into_iter().flatten() {
                    let v = self.opaque("elect", 32, &[]);
                    self.set(st, *r, v);
                }
            }
            DInst::SetpX2 { p, q, .. } => {
                for r in [p, q].into_iter().flatten() {
                    let v = self.opaque("setpx2", 32, &[]);
                    self.set(st, *r, v);
                }
            }
            DInst::Bra { .. }
            | DInst::Brx { .. }
            | DInst::Ret
            | DInst::Exit
            | DInst::Trap
            | DInst::Ldmatrix { .. }
            | DInst::Stmatrix { .. }
            | DInst::Mma { .. }
            | DInst::Wgmma { .. }
            | DInst::Mbarrier { .. }
            | DInst::MbarPending { .. }
            | DInst::BulkCopy { .. }
            | DInst::TensorCopy(_)
            | DInst::CpAsync { .. }
            | DInst::CpAsyncCommit
            | DInst::CpAsyncMbarArrive { .. }
            | DInst::CpAsyncWait { .. }
            | DInst::Unsupported { .. } => unreachable!("handled by the driver"),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emu::decode::Program;
    use crate::ptx::parse_module;

    const K: &str = ".version 8.0\n.target sm_80\n.address_size 64\n\
.visible .entry k(.param .u64 k_in, .param .u32 k_n)\n{\n\
.reg .pred %p<3>;\n.reg .b32 %r<8>;\n.reg .f32 %f<4>;\n.reg .b64 %rd<8>;\n\
ld.param.u64 %rd1, [k_in];\nld.param.u32 %r1, [k_n];\nmov.u32 %r4, %tid.x;\n\
setp.ge.u32 %p1, %r4, %r1;\n@%p1 bra $L_end;\n\
setp.ge.u32 %p2, %r4, 2000;\n@%p2 bra $L_end;\n\
mul.wide.u32 %rd2, %r4, 4;\nadd.s64 %rd3, %rd1, %rd2;\n\
$L_loop:\nld.global.f32 %f1, [%rd3];\nst.global.f32 [%rd3+4], %f1;\nadd.s64 %rd3, %rd3, 4;\n\
add.s32 %r4, %r4, 1;\nsetp.lt.u32 %p1, %r4, %r1;\n@%p1 bra $L_loop;\n\
$L_end:\nret;\n}\n";

    fn explore(limits: Limits) -> Result<(usize, usize, usize), String> {
        let m = parse_module(K, "k.ptx").unwrap();
        let prog = Program::new(&m, "k.ptx").unwrap();
        let df = &prog.funcs[0];
        let body = prog.function(0).unwrap().body.as_ref().unwrap();
        let cfg = z3::Config::new();
        let ctx = z3::Context::new(&cfg);
        let mut e = Engine::new(&ctx, df, body, limits);
        let ex = e.explore()?;
        let events = || ex.nodes.iter().flat_map(|n| &n.events);
        let loads = events().filter(|e| matches!(e, Event::Load { .. })).count();
        let clobbers = events().filter(|e| matches!(e, Event::Clobber)).count();
        Ok((ex.paths, loads, clobbers))
    }

    #[test]
    fn forks_prunes_and_cuts_loops() {
        // Paths: n ≤ tid (exit), tid ≥ 2000 is infeasible (tid < ntid ≤ 1024: pruned), then the
        // loop body once: back edge (cut) or exit. The loop stores, so its header clobbers. The
        // two paths out of the body share its events (one trace node before the fork).
        let (paths, loads, clobbers) = explore(Limits::default()).unwrap();
        assert_eq!(paths, 3);
        assert_eq!(loads, 1);
        assert_eq!(clobbers, 2);
    }

    #[test]
    fn limits_stop_the_analysis() {
        let err = explore(Limits {
            max_paths: 1,
            max_steps: 1000,
            deadline: None,
        })
        .unwrap_err();
        assert!(err.contains("limit"), "{err}");
        let err = explore(Limits {
            max_paths: 100,
            max_steps: 5,
            deadline: None,
        })
        .unwrap_err();
        assert!(err.contains("limit"), "{err}");
        // A spent time budget stops it too (checked on the first step, then every 256).
        let err = explore(Limits {
            deadline: Some(std::time::Instant::now()),
            ..Limits::default()
        })
        .unwrap_err();
        assert!(err.contains("time budget"), "{err}");
    }

    /// Two sides of a diamond that differ only in a register dead after the join are merged
    /// there: the rest of the kernel is explored once, and a load after the join still sees the
    /// load before the diamond as available on both paths.
    #[test]
    fn equal_states_are_merged_at_block_entries() {
        const D: &str = ".version 8.0\n.target sm_80\n.address_size 64\n\
.visible .entry d(.param .u64 d_in, .param .u64 d_out, .param .u32 d_n)\n{\n\
.reg .pred %p<3>;\n.reg .b32 %r<8>;\n.reg .b64 %rd<8>;\n\
ld.param.u64 %rd1, [d_in];\nld.param.u64 %rd5, [d_out];\nld.param.u32 %r1, [d_n];\n\
mov.u32 %r2, %tid.x;\nmul.wide.u32 %rd2, %r2, 4;\nadd.s64 %rd3, %rd1, %rd2;\n\
ld.global.u32 %r3, [%rd3];\n\
setp.lt.u32 %p1, %r2, %r1;\n@%p1 bra $L_a;\nmov.u32 %r5, 7;\nbra.uni $L_j;\n\
$L_a:\nmov.u32 %r5, 9;\n\
$L_j:\nld.global.u32 %r4, [%rd3+4];\nadd.s32 %r6, %r3, %r4;\n\
add.s64 %rd6, %rd5, %rd2;\nst.global.u32 [%rd6], %r6;\nret;\n}\n";
        let m = parse_module(D, "d.ptx").unwrap();
        let prog = Program::new(&m, "d.ptx").unwrap();
        let df = &prog.funcs[0];
        let body = prog.function(0).unwrap().body.as_ref().unwrap();
        let cfg = z3::Config::new();
        let ctx = z3::Context::new(&cfg);
        let mut e = Engine::new(&ctx, df, body, Limits::default());
        let ex = e.explore().unwrap();
        assert_eq!(
            ex.merged, 1,
            "the diamond's sides differ only in the dead %r5"
        );
        assert_eq!(ex.paths, 1);
        let after_join = ex.nodes.iter().filter(|n| n.parents.len() == 2).count();
        assert_eq!(after_join, 1);
    }
}
