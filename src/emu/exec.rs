//! The SIMT interpreter: a grid of CTAs of warps of 32 lanes executing decoded PTX
//! ([`super::decode`]) over any value [`Domain`].
//!
//! # Execution model (PTX ISA §2–§4, §9.7.8 control flow, §9.7.13 synchronisation)
//!
//! - CTAs run one after another in linear `%ctaid` order (x fastest). Within a CTA the warps run
//!   round-robin in warp order, each for up to [`Limits::quantum`] warp-instructions or until it
//!   blocks at a barrier or finishes. The order is fixed, so every run is deterministic: atomics
//!   and racing stores resolve in this order, lanes of one warp-instruction in increasing lane
//!   order.
//! - A warp executes one instruction for all its active lanes at a time. Divergence and
//!   reconvergence follow the classic *immediate post-dominator* stack (Fung et al., MICRO 2007;
//!   the pre-Volta hardware scheme): at a divergent branch the current stack entry becomes the
//!   reconvergence entry (its pc is the first instruction of the branch block's immediate
//!   post-dominator), and one entry per path is pushed with that reconvergence pc; an entry is
//!   popped when its pc reaches its reconvergence pc or when all its lanes have exited. Lanes
//!   therefore reconverge at the earliest point every path must pass, which is where the
//!   structured code compilers emit expects `shfl.sync`/`vote.sync`/`bar.sync` to be reached by
//!   the whole warp.
//! - What this cannot model: *independent thread scheduling* (Volta and later), where the lanes
//!   of a diverged warp make progress independently. A kernel whose correctness needs it — an
//!   intra-warp spin lock, a `*.sync` instruction whose member mask names lanes that are alive
//!   but on another path, a barrier reached by a warp in two halves — is reported as a
//!   [`EmuError::Limit`] (member-mask check, instruction budget) or a [`EmuError::Deadlock`],
//!   never answered wrongly.
//! - `exit` (and `ret` from the kernel) retires lanes: they leave every stack entry. A CTA
//!   barrier without a thread count waits for all threads of the CTA that have not exited.
//! - `call` pushes a frame (registers, SIMT stack, `.param` slots, `.local` frame on each lane's
//!   local stack) for the calling lanes; `ret` retires lanes from the frame, and when none is left
//!   the return values are copied back and the caller continues. Depth is bounded
//!   ([`Limits::max_call_depth`]).
//!
//! The register file of a frame is laid out register-major (`regs[r * 32 + lane]`), so one warp
//! register is contiguous and an instruction is a tight loop over the active lanes.

use super::decode::{
    ABase, Addr, AtomKind, BarOp, CallArg, CallRet, Callee, DInst, Program, ReduxOp, ShflMode, Src,
    Sreg, VoteMode, NO_RPC,
};
use super::domain::{Domain, DomainError, MemAt, Op, Space};
use super::error::{EmuError, EmuResult, Where};
use super::memory::{
    self, check_range, classify_generic, Fault, GlobalMem, Region, CODE_BASE, WINDOW_SHIFT,
};

mod matrix;
mod mbarrier;
mod wgmma;

/// Limits of one run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Maximum warp-instructions for the whole grid.
    pub max_warp_insts: u64,
    /// Maximum call depth.
    pub max_call_depth: u32,
    /// Maximum local memory per thread (all frames), bytes.
    pub max_local_bytes: u64,
    /// Warp-instructions a warp runs before the next warp's turn.
    pub quantum: u32,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_warp_insts: 2_000_000_000,
            max_call_depth: 256,
            max_local_bytes: 1 << 20,
            quantum: 4096,
        }
    }
}

/// A launch's shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchShape {
    /// `%nctaid`
    pub grid: [u32; 3],
    /// `%ntid`
    pub block: [u32; 3],
    /// Dynamic shared memory bytes.
    pub dynamic_smem: u64,
}

/// Counters of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Warp-instructions executed.
    pub warp_insts: u64,
    /// Lane-instructions executed (active lanes summed over warp-instructions).
    pub lane_insts: u64,
    /// Global-memory elements loaded (one per lane and vector component that read global
    /// memory): what shuffle synthesis saves.
    pub global_loads: u64,
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    pc: u32,
    rpc: u32,
    mask: u32,
    /// Barrier id + 1 when the entry's lanes wait at a CTA barrier (0: not waiting).
    blocked: u32,
}

struct Frame<V> {
    func: u32,
    regs: Vec<V>,
    stack: Vec<Entry>,
    params: Vec<u8>,
    psize: u32,
    local_base: u64,
    call_mask: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum WState {
    Ready,
    Blocked(u32),
    Done,
}

struct Warp<V> {
    idx: u32,
    exists: u32,
    exited: u32,
    frames: Vec<Frame<V>>,
    tid: [[u32; 32]; 3],
    state: WState,
    clock: u64,
    local: Vec<Vec<u8>>,
    local_top: u64,
    /// `bar.red` results awaited: (barrier id, destination register, lanes).
    pending_red: Vec<(u32, u32, u32)>,
    /// Where the warp waits (function, pc) for deadlock reports.
    wait_at: (u32, u32),
    /// `cp.async` copies in flight.
    async_copies: matrix::AsyncCopies,
}

#[derive(Clone, Debug, Default)]
struct Barrier {
    arrived: u32,
    expected: Option<u32>,
    waiting: Vec<u32>,
    popc: u32,
    all: bool,
    any: bool,
    red_op: Option<BarOp>,
}

struct Cta<V> {
    ctaid: [u32; 3],
    shared: Vec<u8>,
    warps: Vec<Warp<V>>,
    bars: Vec<Barrier>,
}

/// One emulated launch.
pub struct Machine<'p, 'm, D: Domain> {
    prog: &'p Program<'m>,
    /// The value domain.
    pub dom: D,
    /// Global memory (the program's variables plus the launch's buffers).
    pub global: GlobalMem,
    const_bank: Vec<u8>,
    kparams: Vec<u8>,
    kernel: u32,
    shape: LaunchShape,
    limits: Limits,
    /// Counters.
    pub stats: Stats,
    /// Operand lanes of the current instruction (4 × 32 values).
    scratch: Vec<D::Val>,
    /// Set by an instruction after which the warp gives up the rest of its turn (an `mbarrier`
    /// wait whose phase has not completed).
    yield_warp: bool,
    /// Changes of `mbarrier` objects (arrivals, transactions, inits, bulk copies) so far: a CTA
    /// whose warps all spin on `mbarrier` waits without one for [`MBAR_SPIN_ROUNDS`] rounds is
    /// deadlocked.
    mbar_changes: u64,
}

/// Rounds of a CTA in which every running warp ended its turn at an incomplete `mbarrier` wait
/// and no `mbarrier` object changed, after which the CTA is reported deadlocked.
const MBAR_SPIN_ROUNDS: u32 = 100_000;

/// Lanes of a mask in increasing order.
#[inline(always)]
fn lanes(mut m: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if m == 0 {
            None
        } else {
            let l = m.trailing_zeros();
            m &= m - 1;
            Some(l as usize)
        }
    })
}

/// What an instruction needs to know about its warp and CTA to read special registers.
struct Env<'a> {
    tid: &'a [[u32; 32]; 3],
    ctaid: [u32; 3],
    ntid: [u32; 3],
    nctaid: [u32; 3],
    warp: u32,
    nwarps: u32,
    clock: u64,
    local_base: u64,
    dyn_smem: u64,
    total_smem: u64,
}

impl Env<'_> {
    fn sreg(&self, s: Sreg, lane: usize) -> u64 {
        let l = lane as u32;
        match s {
            Sreg::Tid(c) => u64::from(self.tid[c as usize][lane]),
            Sreg::Ntid(c) => u64::from(self.ntid[c as usize]),
            Sreg::Ctaid(c) | Sreg::ClusterId(c) => u64::from(self.ctaid[c as usize]),
            Sreg::Nctaid(c) | Sreg::NclusterId(c) => u64::from(self.nctaid[c as usize]),
            Sreg::Laneid => u64::from(l),
            Sreg::Warpid => u64::from(self.warp),
            Sreg::Nwarpid => u64::from(self.nwarps),
            Sreg::LanemaskEq => 1u64 << l,
            Sreg::LanemaskLe => ((1u64 << (l + 1)) - 1) & 0xffff_ffff,
            Sreg::LanemaskLt => (1u64 << l) - 1,
            Sreg::LanemaskGe => (0xffff_ffffu64 << l) & 0xffff_ffff,
            Sreg::LanemaskGt => (0xffff_fffeu64 << l) & 0xffff_ffff,
            Sreg::Clock => self.clock & 0xffff_ffff,
            Sreg::ClockHi => self.clock >> 32,
            Sreg::Clock64 => self.clock,
            Sreg::Globaltimer => self.clock * 32,
            Sreg::GlobaltimerLo => (self.clock * 32) & 0xffff_ffff,
            Sreg::GlobaltimerHi => (self.clock * 32) >> 32,
            Sreg::DynSmem => self.dyn_smem,
            Sreg::TotalSmem => self.total_smem,
            Sreg::Const(v) => v,
        }
    }
}

/// Reads an operand for one lane.
#[inline(always)]
fn rd<D: Domain>(
    dom: &mut D,
    regs: &[D::Val],
    src: Src,
    lane: usize,
    env: &Env,
) -> Result<D::Val, DomainError> {
    Ok(match src {
        Src::Reg(r) => regs[r as usize * 32 + lane].clone(),
        Src::Imm(v) => dom.lit(v),
        Src::NotReg(r) => {
            let v = regs[r as usize * 32 + lane].clone();
            dom.apply(Op::Not { bits: 1 }, &[v])?
        }
        Src::Sreg(s) => {
            let v = env.sreg(s, lane);
            dom.special(s.name(), lane as u32, v)
        }
        Src::LocalAddr(off) => dom.lit(env.local_base.wrapping_add(off)),
        Src::RegOff(r, off) => {
            let v = regs[r as usize * 32 + lane].clone();
            let o = dom.lit(off as u64);
            dom.apply(
                Op::Add {
                    bits: 64,
                    sat: false,
                },
                &[v, o],
            )?
        }
    })
}

/// An internal signal: the current instruction failed with a fault for `lane`.
enum Stop {
    Domain(DomainError, Option<usize>),
    Fault(String, Option<usize>),
    Limit(String),
    Unsupported(String),
}

impl From<DomainError> for Stop {
    fn from(e: DomainError) -> Stop {
        Stop::Domain(e, None)
    }
}

type Step<T> = Result<T, Stop>;

fn concrete<D: Domain>(dom: &D, v: &D::Val, what: &'static str) -> Step<u64> {
    dom.concrete(v)
        .ok_or(Stop::Domain(DomainError::Symbolic(what), None))
}

impl<'p, 'm, D: Domain> Machine<'p, 'm, D> {
    /// Prepares a launch of function `kernel` of `prog`: `global` holds the program's variables
    /// and the launch's buffers, `const_bank` the constant bank, `kparams` the kernel parameter
    /// block.
    #[allow(
        clippy::too_many_arguments,
        reason = "one constructor for every launch input"
    )]
    pub fn new(
        prog: &'p Program<'m>,
        dom: D,
        kernel: u32,
        global: GlobalMem,
        const_bank: Vec<u8>,
        kparams: Vec<u8>,
        shape: LaunchShape,
        limits: Limits,
    ) -> Self {
        Machine {
            prog,
            dom,
            global,
            const_bank,
            kparams,
            kernel,
            shape,
            limits,
            stats: Stats::default(),
            scratch: Vec::new(),
            yield_warp: false,
            mbar_changes: 0,
        }
    }

    /// Runs the whole grid.
    pub fn run(&mut self) -> EmuResult<()> {
        let [gx, gy, gz] = self.shape.grid;
        for z in 0..gz {
            for y in 0..gy {
                for x in 0..gx {
                    self.run_cta([x, y, z])?;
                }
            }
        }
        Ok(())
    }

    fn new_cta(&mut self, ctaid: [u32; 3]) -> Cta<D::Val> {
        let [bx, by, bz] = self.shape.block;
        let nthreads = bx * by * bz;
        let nwarps = nthreads.div_ceil(32);
        let kf = &self.prog.funcs[self.kernel as usize];
        let mut warps = Vec::with_capacity(nwarps as usize);
        for w in 0..nwarps {
            let mut tid = [[0u32; 32]; 3];
            let mut exists = 0u32;
            for lane in 0..32u32 {
                let t = w * 32 + lane;
                if t < nthreads {
                    exists |= 1 << lane;
                    tid[0][lane as usize] = t % bx;
                    tid[1][lane as usize] = (t / bx) % by;
                    tid[2][lane as usize] = t / (bx * by);
                }
            }
            let undef = self.dom.undef();
            let frame = Frame {
                func: self.kernel,
                regs: vec![undef; kf.nregs as usize * 32],
                stack: vec![Entry {
                    pc: 0,
                    rpc: NO_RPC,
                    mask: exists,
                    blocked: 0,
                }],
                params: vec![0; kf.param_size as usize * 32],
                psize: kf.param_size,
                local_base: 0,
                call_mask: exists,
            };
            warps.push(Warp {
                idx: w,
                exists,
                exited: 0,
                frames: vec![frame],
                tid,
                state: WState::Ready,
                clock: 0,
                local: vec![vec![0; kf.local_size as usize]; 32],
                local_top: kf.local_size,
                pending_red: Vec::new(),
                wait_at: (self.kernel, 0),
                async_copies: matrix::AsyncCopies::default(),
            });
        }
        let smem = self.prog.dyn_smem_offset + self.shape.dynamic_smem;
        let smem = if self.shape.dynamic_smem == 0 {
            self.prog.shared_static
        } else {
            smem
        };
        Cta {
            ctaid,
            shared: vec![0; smem as usize],
            warps,
            bars: vec![Barrier::default(); 16],
        }
    }

    fn run_cta(&mut self, ctaid: [u32; 3]) -> EmuResult<()> {
        let mut cta = self.new_cta(ctaid);
        let mut spin_rounds = 0u32;
        loop {
            let mut progressed = false;
            let mut all_done = true;
            let mut all_spin = true;
            let changes = self.mbar_changes;
            for w in 0..cta.warps.len() {
                if cta.warps[w].state == WState::Ready {
                    all_spin &= self.run_warp(&mut cta, w)?;
                    progressed = true;
                }
                if cta.warps[w].state != WState::Done {
                    all_done = false;
                }
            }
            if all_done {
                return Ok(());
            }
            if progressed && all_spin && changes == self.mbar_changes {
                spin_rounds += 1;
                if spin_rounds > MBAR_SPIN_ROUNDS {
                    return Err(self.mbar_deadlock(&cta));
                }
            } else {
                spin_rounds = 0;
            }
            if !progressed {
                // Everyone waits: a barrier may complete because threads exited meanwhile.
                if !self.release_ready_barriers(&mut cta)? {
                    return Err(self.deadlock(&cta));
                }
            }
        }
    }

    fn live_threads(cta: &Cta<D::Val>) -> u32 {
        cta.warps
            .iter()
            .map(|w| (w.exists & !w.exited).count_ones())
            .sum()
    }

    /// Releases every barrier whose count is reached. Returns true if one was released.
    fn release_ready_barriers(&mut self, cta: &mut Cta<D::Val>) -> EmuResult<bool> {
        let mut any = false;
        for id in 0..cta.bars.len() {
            let b = &cta.bars[id];
            if b.waiting.is_empty() && b.arrived == 0 {
                continue;
            }
            let expected = b.expected.unwrap_or_else(|| Self::live_threads(cta));
            if b.arrived >= expected {
                self.release_barrier(cta, id)?;
                any = true;
            }
        }
        Ok(any)
    }

    fn release_barrier(&mut self, cta: &mut Cta<D::Val>, id: usize) -> EmuResult<()> {
        let b = std::mem::take(&mut cta.bars[id]);
        let v = match b.red_op {
            Some(BarOp::RedPopc) => u64::from(b.popc),
            Some(BarOp::RedAnd) => u64::from(b.all),
            Some(BarOp::RedOr) => u64::from(b.any),
            _ => 0,
        };
        let tag = id as u32 + 1;
        for &w in &b.waiting {
            let warp = &mut cta.warps[w as usize];
            let mut i = 0;
            while i < warp.pending_red.len() {
                let (bid, d, lanes_mask) = warp.pending_red[i];
                if bid == id as u32 {
                    if let Some(frame) = warp.frames.last_mut() {
                        for lane in lanes(lanes_mask) {
                            frame.regs[d as usize * 32 + lane] = self.dom.lit(v);
                        }
                    }
                    warp.pending_red.swap_remove(i);
                } else {
                    i += 1;
                }
            }
            for f in warp.frames.iter_mut() {
                for e in f.stack.iter_mut() {
                    if e.blocked == tag {
                        e.blocked = 0;
                    }
                }
            }
            if matches!(warp.state, WState::Blocked(_)) {
                warp.state = WState::Ready;
            }
        }
        Ok(())
    }

    fn deadlock(&self, cta: &Cta<D::Val>) -> EmuError {
        let mut parts = Vec::new();
        for w in &cta.warps {
            if let WState::Blocked(id) = w.state {
                let (at, text) = self.prog.describe(w.wait_at.0, w.wait_at.1);
                let alive = w.exists & !w.exited;
                let b = &cta.bars[id as usize];
                parts.push(format!(
                    "warp {} waits at barrier {id} ({at}: `{text}`; {}/{} threads arrived; warp lanes alive {alive:#010x})",
                    w.idx,
                    b.arrived,
                    b.expected.unwrap_or_else(|| Self::live_threads(cta))
                ));
            }
        }
        parts.push(
            "a barrier that not all threads reach, or one reached by a diverged warp (needs \
             independent thread scheduling)"
                .into(),
        );
        EmuError::Deadlock {
            cta: cta.ctaid,
            detail: parts.join("; "),
        }
    }

    fn where_(&self, cta: &Cta<D::Val>, w: usize, lane: Option<usize>) -> Box<Where> {
        let warp = &cta.warps[w];
        let (f, pc) = match warp.frames.last() {
            Some(fr) => (fr.func, fr.stack.last().map_or(0, |e| e.pc)),
            None => (self.kernel, 0),
        };
        let (at, text) = self.prog.describe(f, pc);
        Box::new(Where {
            at,
            text,
            cta: cta.ctaid,
            thread: lane.map(|l| [warp.tid[0][l], warp.tid[1][l], warp.tid[2][l]]),
            warp: warp.idx,
        })
    }

    fn stop_to_error(&self, cta: &Cta<D::Val>, w: usize, s: Stop) -> EmuError {
        match s {
            Stop::Domain(DomainError::Symbolic(what), lane) => EmuError::Limit {
                at: Some(self.where_(cta, w, lane)),
                what: format!("symbolic {what}"),
            },
            Stop::Domain(e, lane) => EmuError::Unsupported {
                at: self.where_(cta, w, lane),
                why: e.to_string(),
            },
            Stop::Fault(what, lane) => EmuError::Fault {
                at: self.where_(cta, w, lane),
                what,
            },
            Stop::Limit(what) => EmuError::Limit {
                at: Some(self.where_(cta, w, None)),
                what,
            },
            Stop::Unsupported(why) => EmuError::Unsupported {
                at: self.where_(cta, w, None),
                why,
            },
        }
    }

    /// Runs warp `w` for one turn; true when the turn ended at an incomplete `mbarrier` wait.
    fn run_warp(&mut self, cta: &mut Cta<D::Val>, w: usize) -> EmuResult<bool> {
        for _ in 0..self.limits.quantum {
            if cta.warps[w].state != WState::Ready {
                return Ok(false);
            }
            match self.step(cta, w) {
                Ok(()) => {}
                Err(s) => return Err(self.stop_to_error(cta, w, s)),
            }
            if std::mem::take(&mut self.yield_warp) {
                return Ok(true);
            }
            if self.stats.warp_insts > self.limits.max_warp_insts {
                return Err(EmuError::Limit {
                    at: Some(self.where_(cta, w, None)),
                    what: format!(
                        "instruction budget of {} warp-instructions exhausted (an endless loop, a \
                         livelock, or a spin lock that needs independent thread scheduling)",
                        self.limits.max_warp_insts
                    ),
                });
            }
        }
        Ok(false)
    }

    /// Every running warp of the CTA waits on an `mbarrier` phase that nothing completes.
    fn mbar_deadlock(&self, cta: &Cta<D::Val>) -> EmuError {
        let mut parts = Vec::new();
        for w in &cta.warps {
            if w.state != WState::Ready {
                continue;
            }
            if let Some(f) = w.frames.last() {
                let pc = f.stack.last().map_or(0, |e| e.pc);
                let (at, text) = self.prog.describe(f.func, pc.saturating_sub(1));
                parts.push(format!("warp {} spins near {at}: `{text}`", w.idx));
            }
        }
        parts.push(format!(
            "every running warp waited on an mbarrier phase for {MBAR_SPIN_ROUNDS} rounds without \
             an arrival or a transaction on any mbarrier"
        ));
        EmuError::Deadlock {
            cta: cta.ctaid,
            detail: parts.join("; "),
        }
    }

    /// Executes one instruction (or one stack/frame bookkeeping step) of warp `w`.
    fn step(&mut self, cta: &mut Cta<D::Val>, w: usize) -> Step<()> {
        let prog = self.prog;
        let warp = &mut cta.warps[w];
        let Some(frame) = warp.frames.last_mut() else {
            warp.state = WState::Done;
            return Ok(());
        };
        let Some(&top) = frame.stack.last() else {
            return self.finish_frame(cta, w);
        };
        let live = top.mask & !warp.exited;
        // An entry whose lanes wait at a barrier stays, even when its pc (already past the
        // barrier) is its reconvergence point: they must not reconverge before the barrier
        // completes.
        if live == 0 || (top.pc == top.rpc && (top.blocked == 0 || top.blocked == WARP_WAIT)) {
            frame.stack.pop();
            return Ok(());
        }
        if top.blocked == WARP_WAIT {
            // Waited for sibling paths at a warp collective: try again.
            if let Some(e) = frame.stack.last_mut() {
                e.blocked = 0;
            }
        } else if top.blocked != 0 {
            // These lanes wait at a barrier: run a sibling path of the same divergence if there
            // is one (so a diverged warp can bring its other lanes to the barrier, or retire
            // them); otherwise the warp waits.
            match runnable_sibling(&frame.stack, warp.exited) {
                Some(i) => {
                    let n = frame.stack.len();
                    frame.stack.swap(i, n - 1);
                }
                None => warp.state = WState::Blocked(top.blocked - 1),
            }
            return Ok(());
        }
        if top.pc == NO_RPC {
            return Err(Stop::Limit(
                "internal: a waiting SIMT stack entry still has live lanes".into(),
            ));
        }
        let func = &prog.funcs[frame.func as usize];
        let Some(di) = func.code.get(top.pc as usize) else {
            // Falling off the end of the body is a return.
            return self.do_ret(cta, w, live);
        };
        warp.clock += 1;
        self.stats.warp_insts += 1;
        self.stats.lane_insts += u64::from(live.count_ones());
        let active = match di.guard {
            None => live,
            Some((g, neg)) => {
                let mut m = 0u32;
                for lane in lanes(live) {
                    let v = self
                        .dom
                        .concrete(&frame.regs[g as usize * 32 + lane])
                        .ok_or(Stop::Domain(
                            DomainError::Symbolic("guard predicate"),
                            Some(lane),
                        ))?;
                    if (v & 1 != 0) != neg {
                        m |= 1 << lane;
                    }
                }
                m
            }
        };
        let nwarps = cta.warps.len() as u32;
        let warp = &mut cta.warps[w];
        let alive = warp.exists & !warp.exited;
        let exited = warp.exited;
        let depth = warp.frames.len() as u32;
        let Warp {
            frames,
            tid,
            clock,
            local,
            local_top,
            pending_red,
            wait_at,
            async_copies,
            ..
        } = warp;
        let frame = frames.last_mut().expect("frame checked above");
        let env = Env {
            tid,
            ctaid: cta.ctaid,
            ntid: self.shape.block,
            nctaid: self.shape.grid,
            warp: w as u32,
            nwarps,
            clock: *clock,
            local_base: frame.local_base,
            dyn_smem: self.shape.dynamic_smem,
            total_smem: cta.shared.len() as u64,
        };
        let dom = &mut self.dom;
        if self.scratch.len() < 4 * 32 {
            let u = dom.undef();
            self.scratch = vec![u; 4 * 32];
        }
        let scratch = &mut self.scratch;
        let regs = &mut frame.regs;
        let mut next = top.pc + 1;
        // The memory an instruction can reach, for the tensor-core and asynchronous-copy
        // instructions (exec/matrix.rs).
        macro_rules! mem_view {
            () => {
                matrix::MemView {
                    global: &mut self.global,
                    shared: &mut cta.shared,
                    local,
                    local_top: *local_top,
                    const_bank: &mut self.const_bank,
                    kparams: &mut self.kparams,
                    fparams: &mut frame.params,
                    psize: frame.psize,
                }
            };
        }
        macro_rules! set_pc {
            ($pc:expr) => {{
                if let Some(e) = frame.stack.last_mut() {
                    e.pc = $pc;
                }
            }};
        }
        // Warp collectives whose member mask names lanes on another path of a diverged warp: let
        // those paths run (they may exit, or reach this same instruction and merge), as
        // independent thread scheduling would; a genuine need for it is a limit error.
        let sync_mask = match &di.kind {
            DInst::Shfl { mask: Some(m), .. } | DInst::Vote { mask: Some(m), .. } => Some(*m),
            DInst::Match { mask, .. }
            | DInst::Redux { mask, .. }
            | DInst::Elect { mask, .. }
            | DInst::WarpSync { mask } => Some(*mask),
            // `.sync.aligned` matrix instructions: the whole warp.
            DInst::Ldmatrix { .. }
            | DInst::Stmatrix { .. }
            | DInst::Mma { .. }
            | DInst::Wgmma { .. } => Some(Src::Imm(u64::from(u32::MAX))),
            _ => None,
        };
        if let (Some(mk), true) = (sync_mask, active != 0) {
            let m = uniform_mask(dom, regs, mk, active, &env)?;
            if m & alive & !live != 0 {
                let stack = &mut frame.stack;
                let n = stack.len();
                let mut same_pc = Vec::new();
                for i in (0..n - 1).rev() {
                    let e = stack[i];
                    if e.rpc != top.rpc || (e.pc == e.rpc && e.blocked == 0) {
                        break;
                    }
                    if e.pc == top.pc && (e.blocked == 0 || e.blocked == WARP_WAIT) {
                        same_pc.push(i);
                    }
                }
                if !same_pc.is_empty() {
                    // Sibling paths at this same instruction reconverge here.
                    let mut mask = top.mask;
                    for &i in &same_pc {
                        mask |= stack[i].mask;
                        stack.remove(i);
                    }
                    if let Some(e) = stack.last_mut() {
                        e.mask = mask;
                        e.blocked = 0;
                    }
                    return Ok(());
                }
                if let Some(i) = runnable_sibling(stack, exited) {
                    if let Some(e) = stack.last_mut() {
                        e.blocked = WARP_WAIT;
                    }
                    stack.swap(i, n - 1);
                    return Ok(());
                }
            }
        }
        match &di.kind {
            DInst::Nop => {}
            DInst::Mov { d, a } => {
                let srcs = [*a];
                alu(dom, regs, scratch, Op::Mov, &srcs, *d, active, &env)?;
            }
            DInst::Op1 { op, d, a } => {
                let srcs = [*a];
                alu(dom, regs, scratch, *op, &srcs, *d, active, &env)?;
            }
            DInst::Op2 { op, d, a, b } => {
                let srcs = [*a, *b];
                alu(dom, regs, scratch, *op, &srcs, *d, active, &env)?;
            }
            DInst::Op3 { op, d, a, b, c } => {
                let srcs = [*a, *b, *c];
                alu(dom, regs, scratch, *op, &srcs, *d, active, &env)?;
            }
            DInst::Op4 { op, d, args } => {
                alu(dom, regs, scratch, *op, args, *d, active, &env)?;
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
                if let (false, None, Op::AddC { bits }) = (*cin, cout, add) {
                    // No carry: a whole-warp multiply, then a whole-warp add.
                    for (k, src) in [*a, *b, *c].into_iter().enumerate() {
                        gather(
                            dom,
                            regs,
                            &mut scratch[k * 32..(k + 1) * 32],
                            src,
                            active,
                            &env,
                        )?;
                    }
                    let (ins, rest) = scratch.split_at_mut(96);
                    dom.apply_lanes(*mul, active, &[&ins[..32], &ins[32..64]], &mut rest[..32])
                        .map_err(|(e, lane)| Stop::Domain(e, Some(lane)))?;
                    let dd = *d as usize * 32;
                    let plain = Op::Add {
                        bits: *bits,
                        sat: false,
                    };
                    dom.apply_lanes(
                        plain,
                        active,
                        &[&rest[..32], &ins[64..96]],
                        &mut regs[dd..dd + 32],
                    )
                    .map_err(|(e, lane)| Stop::Domain(e, Some(lane)))?;
                    set_pc!(next);
                    return Ok(());
                }
                let cc = func.cc_reg as usize * 32;
                for lane in lanes(active) {
                    let x = rd(dom, regs, *a, lane, &env)?;
                    let y = rd(dom, regs, *b, lane, &env)?;
                    let z = rd(dom, regs, *c, lane, &env)?;
                    let p = dom.apply(*mul, &[x, y])?;
                    let ci = if *cin {
                        regs[cc + lane].clone()
                    } else {
                        dom.lit(0)
                    };
                    let r = dom.apply(*add, &[p.clone(), z.clone(), ci.clone()])?;
                    if let Some(co) = cout {
                        regs[cc + lane] = dom.apply(*co, &[p, z, ci])?;
                    }
                    regs[*d as usize * 32 + lane] = r;
                }
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
                // Whole warp: gather a, b and the carry-in, then the result and the carry-out.
                let cc = func.cc_reg;
                let cin_src = if *cin { Src::Reg(cc) } else { Src::Imm(*c0) };
                for (k, src) in [*a, *b, cin_src].into_iter().enumerate() {
                    gather(
                        dom,
                        regs,
                        &mut scratch[k * 32..(k + 1) * 32],
                        src,
                        active,
                        &env,
                    )?;
                }
                let (ins, rest) = scratch.split_at_mut(96);
                let args = [&ins[..32], &ins[32..64], &ins[64..96]];
                dom.apply_lanes(*op, active, &args, &mut rest[..32])
                    .map_err(|(e, lane)| Stop::Domain(e, Some(lane)))?;
                if let Some(co) = cout {
                    let c = cc as usize * 32;
                    dom.apply_lanes(*co, active, &args, &mut regs[c..c + 32])
                        .map_err(|(e, lane)| Stop::Domain(e, Some(lane)))?;
                }
                let dd = *d as usize * 32;
                for lane in lanes(active) {
                    regs[dd + lane] = rest[lane].clone();
                }
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
                if let (Some(p), None, None, None) = (p, q, comb, set_true) {
                    let srcs = [*a, *b];
                    alu(dom, regs, scratch, *cmp, &srcs, *p, active, &env)?;
                    set_pc!(next);
                    return Ok(());
                }
                if set_true.is_none() {
                    // t = cmp(a, b) in slot 2, !t in slot 3, c in slot 0; then p and q.
                    for (k, src) in [*a, *b].into_iter().enumerate() {
                        gather(
                            dom,
                            regs,
                            &mut scratch[k * 32..(k + 1) * 32],
                            src,
                            active,
                            &env,
                        )?;
                    }
                    let lane_err = |(e, lane)| Stop::Domain(e, Some(lane));
                    {
                        let (ins, rest) = scratch.split_at_mut(64);
                        dom.apply_lanes(*cmp, active, &[&ins[..32], &ins[32..64]], &mut rest[..32])
                            .map_err(lane_err)?;
                        let (t, nt) = rest.split_at_mut(32);
                        if q.is_some() {
                            dom.apply_lanes(
                                Op::Not { bits: 1 },
                                active,
                                &[&t[..32]],
                                &mut nt[..32],
                            )
                            .map_err(lane_err)?;
                        }
                    }
                    if let Some((_, c)) = comb {
                        gather(dom, regs, &mut scratch[..32], *c, active, &env)?;
                    }
                    let (c_lanes, rest) = scratch.split_at_mut(64);
                    let (t, nt) = rest.split_at_mut(32);
                    for (dst, val) in [(p, &*t), (q, &*nt)] {
                        let Some(dst) = dst else { continue };
                        let dd = *dst as usize * 32;
                        match comb {
                            Some((bop, _)) => dom
                                .apply_lanes(
                                    *bop,
                                    active,
                                    &[&val[..32], &c_lanes[..32]],
                                    &mut regs[dd..dd + 32],
                                )
                                .map_err(lane_err)?,
                            None => {
                                for lane in lanes(active) {
                                    regs[dd + lane] = val[lane].clone();
                                }
                            }
                        }
                    }
                    set_pc!(next);
                    return Ok(());
                }
                for lane in lanes(active) {
                    let x = rd(dom, regs, *a, lane, &env)?;
                    let y = rd(dom, regs, *b, lane, &env)?;
                    let t = dom.apply(*cmp, &[x, y])?;
                    let (mut pv, mut qv) = (t.clone(), None);
                    if q.is_some() {
                        qv = Some(dom.apply(Op::Not { bits: 1 }, &[t])?);
                    }
                    if let Some((bop, c)) = comb {
                        let cv = rd(dom, regs, *c, lane, &env)?;
                        pv = dom.apply(*bop, &[pv, cv.clone()])?;
                        if let Some(qq) = qv {
                            qv = Some(dom.apply(*bop, &[qq, cv])?);
                        }
                    }
                    if let Some(tv) = set_true {
                        let one = dom.lit(*tv);
                        let zero = dom.lit(0);
                        pv = dom.apply(Op::Select, &[one, zero, pv])?;
                    }
                    if let Some(p) = p {
                        regs[*p as usize * 32 + lane] = pv;
                    }
                    if let (Some(q), Some(qv)) = (q, qv) {
                        regs[*q as usize * 32 + lane] = qv;
                    }
                }
            }
            DInst::SetpX2 {
                lo,
                hi,
                p,
                q,
                a,
                b,
                comb,
                set_one,
            } => {
                for lane in lanes(active) {
                    let x = rd(dom, regs, *a, lane, &env)?;
                    let y = rd(dom, regs, *b, lane, &env)?;
                    let mut t0 = dom.apply(*lo, &[x.clone(), y.clone()])?;
                    let mut t1 = dom.apply(*hi, &[x, y])?;
                    if let Some((bop, c)) = comb {
                        let cv = rd(dom, regs, *c, lane, &env)?;
                        t0 = dom.apply(*bop, &[t0, cv.clone()])?;
                        t1 = dom.apply(*bop, &[t1, cv])?;
                    }
                    match set_one {
                        Some(one) => {
                            let (o, z) = (dom.lit(*one), dom.lit(0));
                            let l = dom.apply(Op::Select, &[o.clone(), z.clone(), t0])?;
                            let h = dom.apply(Op::Select, &[o, z, t1])?;
                            let sh = dom.lit(16);
                            let h = dom.apply(Op::Shl { bits: 32 }, &[h, sh])?;
                            if let Some(p) = p {
                                regs[*p as usize * 32 + lane] =
                                    dom.apply(Op::Or { bits: 32 }, &[l, h])?;
                            }
                        }
                        None => {
                            if let Some(p) = p {
                                regs[*p as usize * 32 + lane] = t0;
                            }
                            if let Some(q) = q {
                                regs[*q as usize * 32 + lane] = t1;
                            }
                        }
                    }
                }
            }
            DInst::Slct { cmp, d, a, b, c } => {
                for lane in lanes(active) {
                    let x = rd(dom, regs, *a, lane, &env)?;
                    let y = rd(dom, regs, *b, lane, &env)?;
                    let z = rd(dom, regs, *c, lane, &env)?;
                    let zero = dom.lit(0);
                    let t = dom.apply(*cmp, &[z, zero])?;
                    regs[*d as usize * 32 + lane] = dom.apply(Op::Select, &[x, y, t])?;
                }
            }
            DInst::Pack { d, parts, part } => {
                for lane in lanes(active) {
                    let mut acc = dom.lit(0);
                    for (i, p) in parts.iter().enumerate() {
                        let v = rd(dom, regs, *p, lane, &env)?;
                        let v = dom.apply(
                            Op::Ext {
                                from: *part,
                                to: 64,
                                signed: false,
                            },
                            &[v],
                        )?;
                        let sh = dom.lit(u64::from(*part) * i as u64);
                        let v = dom.apply(Op::Shl { bits: 64 }, &[v, sh])?;
                        acc = dom.apply(Op::Or { bits: 64 }, &[acc, v])?;
                    }
                    regs[*d as usize * 32 + lane] = acc;
                }
            }
            DInst::Unpack { ds, a, part } => {
                for lane in lanes(active) {
                    let v = rd(dom, regs, *a, lane, &env)?;
                    for (i, dst) in ds.iter().enumerate() {
                        let Some(dst) = dst else { continue };
                        let sh = dom.lit(u64::from(*part) * i as u64);
                        let x = dom.apply(
                            Op::Shr {
                                bits: 64,
                                signed: false,
                            },
                            &[v.clone(), sh],
                        )?;
                        let x = dom.apply(
                            Op::Ext {
                                from: *part,
                                to: *part,
                                signed: false,
                            },
                            &[x],
                        )?;
                        regs[*dst as usize * 32 + lane] = x;
                    }
                }
            }
            DInst::Cvta {
                to,
                space,
                bits,
                d,
                a,
            } => {
                let base = memory::window_base(*space);
                for lane in lanes(active) {
                    let x = rd(dom, regs, *a, lane, &env)?;
                    let b = dom.lit(base);
                    let r = if *to {
                        dom.apply(
                            Op::Sub {
                                bits: *bits,
                                sat: false,
                            },
                            &[x, b],
                        )?
                    } else {
                        dom.apply(
                            Op::Add {
                                bits: *bits,
                                sat: false,
                            },
                            &[x, b],
                        )?
                    };
                    regs[*d as usize * 32 + lane] = r;
                }
            }
            DInst::Isspacep { space, d, a } => {
                for lane in lanes(active) {
                    let x = rd(dom, regs, *a, lane, &env)?;
                    let x = concrete(dom, &x, "address")?;
                    let r = match classify_generic(x) {
                        Some((s, _)) => s == *space,
                        None => false,
                    };
                    regs[*d as usize * 32 + lane] = dom.lit(u64::from(r));
                }
            }
            DInst::Ld {
                size,
                ext,
                dsts,
                addr,
            } => {
                let n = dsts.len() as u32;
                for lane in lanes(active) {
                    let a0 = self::addr_value(dom, regs, addr, lane, &env)?;
                    for (k, dst) in dsts.iter().enumerate() {
                        let at = a0.wrapping_add(k as u64 * u64::from(*size));
                        let align = if k == 0 { size * n } else { *size };
                        let (region, off) = locate(
                            &self.global,
                            &cta.shared,
                            local,
                            *local_top,
                            &self.const_bank,
                            &self.kparams,
                            frame.psize,
                            addr,
                            at,
                            *size,
                            align,
                            lane,
                        )
                        .map_err(|f| Stop::Fault(f.to_string(), Some(lane)))?;
                        let bytes = region_bytes(
                            &mut self.global,
                            &mut cta.shared,
                            local,
                            &mut self.const_bank,
                            &mut self.kparams,
                            &mut frame.params,
                            frame.psize,
                            region,
                            off,
                            *size,
                        );
                        let memat = MemAt {
                            region,
                            offset: off,
                            size: *size,
                        };
                        if matches!(region, Region::Global(_)) {
                            self.stats.global_loads += 1;
                        }
                        let mut v = dom.load(memat, bytes);
                        if let Some(e) = ext {
                            v = dom.apply(*e, &[v])?;
                        }
                        if let Some(dst) = dst {
                            regs[*dst as usize * 32 + lane] = v;
                        }
                    }
                }
            }
            DInst::St { size, srcs, addr } => {
                let n = srcs.len() as u32;
                for lane in lanes(active) {
                    let a0 = self::addr_value(dom, regs, addr, lane, &env)?;
                    for (k, src) in srcs.iter().enumerate() {
                        let v = rd(dom, regs, *src, lane, &env)?;
                        let at = a0.wrapping_add(k as u64 * u64::from(*size));
                        let align = if k == 0 { size * n } else { *size };
                        let (region, off) = locate(
                            &self.global,
                            &cta.shared,
                            local,
                            *local_top,
                            &self.const_bank,
                            &self.kparams,
                            frame.psize,
                            addr,
                            at,
                            *size,
                            align,
                            lane,
                        )
                        .map_err(|f| Stop::Fault(f.to_string(), Some(lane)))?;
                        check_writable(region, addr.space, at)
                            .map_err(|f| Stop::Fault(f.to_string(), Some(lane)))?;
                        let bytes = region_bytes(
                            &mut self.global,
                            &mut cta.shared,
                            local,
                            &mut self.const_bank,
                            &mut self.kparams,
                            &mut frame.params,
                            frame.psize,
                            region,
                            off,
                            *size,
                        );
                        let memat = MemAt {
                            region,
                            offset: off,
                            size: *size,
                        };
                        dom.store(memat, &v, bytes)
                            .map_err(|e| Stop::Domain(e, Some(lane)))?;
                    }
                }
            }
            DInst::Atom {
                kind,
                size,
                d,
                addr,
                b,
                c,
            } => {
                for lane in lanes(active) {
                    let at = self::addr_value(dom, regs, addr, lane, &env)?;
                    let (region, off) = locate(
                        &self.global,
                        &cta.shared,
                        local,
                        *local_top,
                        &self.const_bank,
                        &self.kparams,
                        frame.psize,
                        addr,
                        at,
                        *size,
                        *size,
                        lane,
                    )
                    .map_err(|f| Stop::Fault(f.to_string(), Some(lane)))?;
                    check_writable(region, addr.space, at)
                        .map_err(|f| Stop::Fault(f.to_string(), Some(lane)))?;
                    let bytes = region_bytes(
                        &mut self.global,
                        &mut cta.shared,
                        local,
                        &mut self.const_bank,
                        &mut self.kparams,
                        &mut frame.params,
                        frame.psize,
                        region,
                        off,
                        *size,
                    );
                    let memat = MemAt {
                        region,
                        offset: off,
                        size: *size,
                    };
                    let old = dom.load(memat, bytes);
                    let bv = rd(dom, regs, *b, lane, &env)?;
                    let new = match kind {
                        AtomKind::Op(op) => dom.apply(*op, &[old.clone(), bv])?,
                        AtomKind::Exch => bv,
                        AtomKind::Cas => {
                            let cv = rd(dom, regs, c.unwrap_or(Src::Imm(0)), lane, &env)?;
                            let eq = dom.apply(
                                Op::CmpI {
                                    cmp: super::domain::Cmp::Eq,
                                    bits: size * 8,
                                    signed: false,
                                },
                                &[old.clone(), bv],
                            )?;
                            dom.apply(Op::Select, &[cv, old.clone(), eq])?
                        }
                    };
                    dom.store(memat, &new, bytes)
                        .map_err(|e| Stop::Domain(e, Some(lane)))?;
                    if let Some(d) = d {
                        regs[*d as usize * 32 + lane] = old;
                    }
                }
            }
            DInst::Bra { target, rpc } => {
                let taken = active;
                let not_taken = live & !taken;
                if not_taken == 0 {
                    next = *target;
                } else if taken == 0 {
                } else {
                    diverge(
                        &mut frame.stack,
                        &[(top.pc + 1, not_taken), (*target, taken)],
                        *rpc,
                        live,
                    );
                    return Ok(());
                }
            }
            DInst::Brx { idx, targets, rpc } => {
                let mut groups: Vec<(u32, u32)> = Vec::new();
                for lane in lanes(active) {
                    let v = rd(dom, regs, *idx, lane, &env)?;
                    let i = concrete(dom, &v, "brx.idx index")?;
                    let Some(&t) = targets.get(i as usize) else {
                        return Err(Stop::Fault(
                            format!("brx.idx index {i} outside its table of {}", targets.len()),
                            Some(lane),
                        ));
                    };
                    match groups.iter_mut().find(|g| g.0 == t) {
                        Some(g) => g.1 |= 1 << lane,
                        None => groups.push((t, 1 << lane)),
                    }
                }
                let rest = live & !active;
                if rest != 0 {
                    groups.push((top.pc + 1, rest));
                }
                if groups.len() == 1 {
                    next = groups[0].0;
                } else if !groups.is_empty() {
                    groups.sort_by_key(|g| std::cmp::Reverse(g.0));
                    diverge(&mut frame.stack, &groups, *rpc, live);
                    return Ok(());
                }
            }
            DInst::Call { callee, args, rets } => {
                if active == 0 {
                    set_pc!(next);
                    return Ok(());
                }
                // Group lanes by target function.
                let mut groups: Vec<(u32, u32)> = Vec::new();
                match callee {
                    Callee::Direct(f) => groups.push((*f, active)),
                    Callee::Indirect(src) => {
                        for lane in lanes(active) {
                            let v = rd(dom, regs, *src, lane, &env)?;
                            let a = concrete(dom, &v, "call target")?;
                            let fi = a.wrapping_sub(CODE_BASE) / 16;
                            if a >> WINDOW_SHIFT != CODE_BASE >> WINDOW_SHIFT
                                || a % 16 != 0
                                || fi as usize >= prog.funcs.len()
                            {
                                return Err(Stop::Fault(
                                    format!("indirect call to {a:#x}, which is no function"),
                                    Some(lane),
                                ));
                            }
                            let fi = fi as u32;
                            match groups.iter_mut().find(|g| g.0 == fi) {
                                Some(g) => g.1 |= 1 << lane,
                                None => groups.push((fi, 1 << lane)),
                            }
                        }
                    }
                }
                if groups.len() > 1 {
                    // Serialise the targets: one entry per target re-executes this call with a
                    // uniform callee; all reconverge after the call.
                    let paths: Vec<(u32, u32)> =
                        groups.iter().rev().map(|g| (top.pc, g.1)).collect();
                    diverge(&mut frame.stack, &paths, top.pc + 1, live);
                    return Ok(());
                }
                let (target, mask) = groups[0];
                let callee_f = &prog.funcs[target as usize];
                if !callee_f.has_body {
                    if callee_f.name == "vprintf" {
                        // printf: ignored, returns 0.
                        for r in rets {
                            if let CallRet::Slot(off, size) = r {
                                for lane in lanes(mask) {
                                    let s = lane * frame.psize as usize + *off as usize;
                                    if let Some(b) = frame.params.get_mut(s..s + *size as usize) {
                                        b.fill(0);
                                    }
                                }
                            }
                        }
                        set_pc!(next);
                        return Ok(());
                    }
                    return Err(Stop::Unsupported(format!(
                        "call to external function `{}` (no body in the module)",
                        callee_f.name
                    )));
                }
                if depth >= self.limits.max_call_depth {
                    return Err(Stop::Limit(format!(
                        "call depth limit of {} frames reached (unbounded recursion?)",
                        self.limits.max_call_depth
                    )));
                }
                let new_top = *local_top + callee_f.local_size;
                if new_top > self.limits.max_local_bytes {
                    return Err(Stop::Limit(format!(
                        "local memory limit of {} bytes per thread reached",
                        self.limits.max_local_bytes
                    )));
                }
                for lane in lanes(mask) {
                    if local[lane].len() < new_top as usize {
                        local[lane].resize(new_top as usize, 0);
                    }
                }
                let psize = callee_f.param_size;
                let mut params = vec![0u8; psize as usize * 32];
                let undef = dom.undef();
                let mut cregs = vec![undef; callee_f.nregs as usize * 32];
                for (i, slot) in callee_f.params.iter().enumerate() {
                    let Some(arg) = args.get(i) else { break };
                    for lane in lanes(mask) {
                        let dst = lane * psize as usize + slot.offset as usize;
                        let n = (slot.size as usize).min(8);
                        let at = MemAt {
                            region: Region::FrameParam(lane as u8),
                            offset: u64::from(slot.offset),
                            size: n as u32,
                        };
                        match (arg, slot.reg) {
                            (CallArg::Slot(off, size), None) => {
                                let n = (*size).min(slot.size) as usize;
                                let src = lane * frame.psize as usize + *off as usize;
                                if let (Some(s), true) =
                                    (frame.params.get(src..src + n), dst + n <= params.len())
                                {
                                    params[dst..dst + n].copy_from_slice(s);
                                }
                            }
                            (CallArg::Value(src), None) => {
                                let v = rd(dom, regs, *src, lane, &env)?;
                                dom.store(at, &v, &mut params[dst..dst + n])?;
                            }
                            (CallArg::Value(src), Some(r)) => {
                                cregs[r as usize * 32 + lane] = rd(dom, regs, *src, lane, &env)?;
                            }
                            (CallArg::Slot(off, size), Some(r)) => {
                                let src = lane * frame.psize as usize + *off as usize;
                                let n = (*size as usize).min(8);
                                if let Some(b) = frame.params.get(src..src + n) {
                                    cregs[r as usize * 32 + lane] = dom.load(at, b);
                                }
                            }
                        }
                    }
                }
                let callee_frame = Frame {
                    func: target,
                    regs: cregs,
                    stack: vec![Entry {
                        pc: 0,
                        rpc: NO_RPC,
                        mask,
                        blocked: 0,
                    }],
                    params,
                    psize,
                    local_base: *local_top,
                    call_mask: mask,
                };
                *local_top = new_top;
                frames.push(callee_frame);
                return Ok(());
            }
            DInst::Ret => {
                return self.do_ret(cta, w, active);
            }
            DInst::Exit => {
                self.do_exit(cta, w, active);
                return Ok(());
            }
            DInst::Trap => {
                if active != 0 {
                    return Err(Stop::Fault(
                        "trap executed".into(),
                        Some(active.trailing_zeros() as usize),
                    ));
                }
            }
            DInst::Unsupported { why } => {
                if active != 0 {
                    return Err(Stop::Unsupported(why.clone()));
                }
            }
            DInst::Ldmatrix { trans, dsts, addr } => {
                if active != 0 {
                    matrix::require_full_warp(active, "ldmatrix")?;
                    let mut mem = mem_view!();
                    matrix::ldmatrix(dom, regs, &mut mem, &env, *trans, dsts, addr)?;
                }
            }
            DInst::Stmatrix { trans, srcs, addr } => {
                if active != 0 {
                    matrix::require_full_warp(active, "stmatrix")?;
                    let mut mem = mem_view!();
                    matrix::stmatrix(dom, regs, &mut mem, &env, *trans, srcs, addr)?;
                }
            }
            DInst::Mma { spec, d, a, b, c } => {
                if active != 0 {
                    matrix::require_full_warp(active, "mma")?;
                    matrix::mma(dom, regs, &env, spec, d, a, b, c)?;
                }
            }
            DInst::Wgmma {
                spec,
                d,
                a,
                b,
                scale_d,
                neg,
                trans,
            } => {
                if active != 0 {
                    matrix::require_full_warp(active, "wgmma.mma_async")?;
                    let mut mem = mem_view!();
                    wgmma::wgmma(
                        dom,
                        regs,
                        &mut mem,
                        &env,
                        spec,
                        d,
                        (a, *b),
                        *scale_d,
                        *neg,
                        *trans,
                    )?;
                }
            }
            DInst::CpAsync {
                size,
                fill,
                dst,
                src,
            } => {
                let mem = mem_view!();
                self.stats.global_loads += matrix::cp_async_issue(
                    dom,
                    regs,
                    &mem,
                    &env,
                    active,
                    async_copies,
                    (*size, *fill),
                    dst,
                    src,
                )?;
            }
            DInst::CpAsyncCommit => matrix::cp_async_commit(async_copies, active),
            DInst::CpAsyncMbarArrive { noinc, addr } => {
                let mut mem = mem_view!();
                matrix::cp_async_flush(dom, &mut mem, async_copies, active)?;
                if *noinc && active != 0 {
                    let arrive = super::decode::MbarOp::Arrive {
                        expect_tx: false,
                        drop: false,
                        no_complete: false,
                    };
                    mbarrier::mbarrier(
                        dom,
                        regs,
                        &mut mem,
                        &env,
                        active,
                        (arrive, None, addr, None),
                    )?;
                    self.mbar_changes += 1;
                }
            }
            DInst::Mbarrier { op, d, addr, a } => {
                let mut mem = mem_view!();
                self.yield_warp =
                    mbarrier::mbarrier(dom, regs, &mut mem, &env, active, (*op, *d, addr, *a))?;
                if !matches!(op, super::decode::MbarOp::Wait { .. }) && active != 0 {
                    self.mbar_changes += 1;
                }
            }
            DInst::MbarPending { d, a } => {
                for lane in lanes(active) {
                    let v = rd(dom, regs, *a, lane, &env)?;
                    let v = concrete(dom, &v, "mbarrier state")?;
                    regs[*d as usize * 32 + lane] = dom.lit(super::mbarrier::pending_count(v));
                }
            }
            DInst::BulkCopy {
                dst,
                src,
                size,
                mbar,
            } => {
                let mut mem = mem_view!();
                self.mbar_changes += u64::from(active != 0);
                self.stats.global_loads += mbarrier::bulk_copy(
                    dom,
                    regs,
                    &mut mem,
                    &env,
                    active,
                    (dst, src, *size, mbar.as_ref()),
                )?;
            }
            DInst::CpAsyncWait { keep, commit } => {
                if *commit {
                    matrix::cp_async_commit(async_copies, active);
                }
                let mut mem = mem_view!();
                matrix::cp_async_wait(dom, &mut mem, async_copies, active, *keep)?;
            }
            DInst::Bar {
                op,
                id,
                count,
                d,
                pred,
            } => {
                if active == 0 {
                    set_pc!(next);
                    return Ok(());
                }
                let mut idv = None;
                let mut cnt = None;
                let (mut popc, mut all, mut any) = (0u32, true, false);
                for lane in lanes(active) {
                    let v = rd(dom, regs, *id, lane, &env)?;
                    let v = concrete(dom, &v, "barrier id")?;
                    if *idv.get_or_insert(v) != v {
                        return Err(Stop::Fault(
                            "barrier id differs between lanes".into(),
                            Some(lane),
                        ));
                    }
                    if let Some(c) = count {
                        let cv = rd(dom, regs, *c, lane, &env)?;
                        let cv = concrete(dom, &cv, "barrier thread count")?;
                        if *cnt.get_or_insert(cv) != cv {
                            return Err(Stop::Fault(
                                "barrier thread count differs between lanes".into(),
                                Some(lane),
                            ));
                        }
                    }
                    if let Some(p) = pred {
                        let pv = rd(dom, regs, *p, lane, &env)?;
                        let pv = concrete(dom, &pv, "bar.red predicate")? & 1 != 0;
                        popc += u32::from(pv);
                        all &= pv;
                        any |= pv;
                    }
                }
                let idv = idv.unwrap_or(0);
                if idv >= 16 {
                    return Err(Stop::Fault(
                        format!("barrier id {idv} is not in 0..15"),
                        None,
                    ));
                }
                let bar = &mut cta.bars[idv as usize];
                if let Some(c) = cnt {
                    if c == 0 || c % 32 != 0 {
                        return Err(Stop::Fault(
                            format!("barrier thread count {c} is not a positive multiple of 32"),
                            None,
                        ));
                    }
                    if bar.expected.is_some_and(|e| u64::from(e) != c) {
                        return Err(Stop::Fault(
                            format!("barrier {idv} used with different thread counts"),
                            None,
                        ));
                    }
                    bar.expected = Some(c as u32);
                }
                bar.arrived += active.count_ones();
                if matches!(op, BarOp::RedPopc | BarOp::RedAnd | BarOp::RedOr) {
                    if bar.red_op.is_some_and(|o| o != *op) {
                        return Err(Stop::Fault(
                            format!("barrier {idv} mixes reduction operations"),
                            None,
                        ));
                    }
                    if bar.waiting.is_empty() && bar.red_op.is_none() {
                        bar.all = true;
                    }
                    bar.red_op = Some(*op);
                    bar.popc += popc;
                    bar.all &= all;
                    bar.any |= any;
                }
                set_pc!(next);
                if *op != BarOp::Arrive {
                    if !bar.waiting.contains(&(w as u32)) {
                        bar.waiting.push(w as u32);
                    }
                    if let Some(e) = frame.stack.last_mut() {
                        e.blocked = idv as u32 + 1;
                    }
                    *wait_at = (frame.func, top.pc);
                    if let Some(d) = d {
                        pending_red.push((idv as u32, *d, active));
                    }
                }
                let expected = cta.bars[idv as usize]
                    .expected
                    .unwrap_or_else(|| Self::live_threads(cta));
                if cta.bars[idv as usize].arrived >= expected {
                    self.release_barrier(cta, idv as usize)
                        .map_err(|e| Stop::Fault(e.to_string(), None))?;
                }
                return Ok(());
            }
            DInst::WarpSync { mask } => {
                if active != 0 {
                    let m = uniform_mask(dom, regs, *mask, active, &env)?;
                    check_members(m, active, live, alive)?;
                }
            }
            DInst::Shfl {
                mode,
                d,
                p,
                a,
                b,
                c,
                mask,
            } => {
                if active != 0 {
                    if let Some(mk) = mask {
                        let m = uniform_mask(dom, regs, *mk, active, &env)?;
                        check_members(m, active, live, alive)?;
                    }
                    let mut out: Vec<(usize, D::Val, bool)> = Vec::with_capacity(32);
                    for lane in lanes(active) {
                        let bv = rd(dom, regs, *b, lane, &env)?;
                        let bv = concrete(dom, &bv, "shfl lane operand")? & 0x1f;
                        let cv = rd(dom, regs, *c, lane, &env)?;
                        let cv = concrete(dom, &cv, "shfl clamp operand")?;
                        let l = lane as i64;
                        let seg = ((cv >> 8) & 0x1f) as i64;
                        let clamp = (cv & 0x1f) as i64;
                        let max_lane = (l & seg) | (clamp & !seg);
                        let min_lane = l & seg;
                        let bv = bv as i64;
                        let (j, pval) = match mode {
                            ShflMode::Up => (l - bv, l - bv >= max_lane),
                            ShflMode::Down => (l + bv, l + bv <= max_lane),
                            ShflMode::Bfly => (l ^ bv, (l ^ bv) <= max_lane),
                            ShflMode::Idx => {
                                let j = min_lane | (bv & !seg);
                                (j, j <= max_lane)
                            }
                        };
                        let j = if pval && (0..32).contains(&j) {
                            j as usize
                        } else {
                            lane
                        };
                        let v = rd(dom, regs, *a, j, &env)?;
                        out.push((lane, v, pval));
                    }
                    for (lane, v, pval) in out {
                        regs[*d as usize * 32 + lane] = v;
                        if let Some(p) = p {
                            regs[*p as usize * 32 + lane] = dom.lit(u64::from(pval));
                        }
                    }
                }
            }
            DInst::Vote {
                mode,
                d,
                pred,
                mask,
            } => {
                if active != 0 {
                    let members = match mask {
                        Some(mk) => {
                            let m = uniform_mask(dom, regs, *mk, active, &env)?;
                            check_members(m, active, live, alive)?;
                            m & active
                        }
                        None => active,
                    };
                    let mut ballot = 0u32;
                    for lane in lanes(members) {
                        let v = rd(dom, regs, *pred, lane, &env)?;
                        if concrete(dom, &v, "vote predicate")? & 1 != 0 {
                            ballot |= 1 << lane;
                        }
                    }
                    let r = match mode {
                        VoteMode::Ballot => u64::from(ballot),
                        VoteMode::All => u64::from(ballot == members),
                        VoteMode::Any => u64::from(ballot != 0),
                        VoteMode::Uni => u64::from(ballot == 0 || ballot == members),
                    };
                    for lane in lanes(active) {
                        regs[*d as usize * 32 + lane] = dom.lit(r);
                    }
                }
            }
            DInst::Match {
                all,
                bits,
                d,
                p,
                a,
                mask,
            } => {
                if active != 0 {
                    let m = uniform_mask(dom, regs, *mask, active, &env)?;
                    check_members(m, active, live, alive)?;
                    let members = m & active;
                    let wmask = if *bits >= 64 {
                        u64::MAX
                    } else {
                        (1u64 << bits) - 1
                    };
                    let mut vals = [0u64; 32];
                    for lane in lanes(members) {
                        let v = rd(dom, regs, *a, lane, &env)?;
                        vals[lane] = concrete(dom, &v, "match value")? & wmask;
                    }
                    for lane in lanes(active) {
                        let same: u32 = lanes(members)
                            .filter(|&o| vals[o] == vals[lane])
                            .fold(0, |acc, o| acc | (1 << o));
                        let (dv, pv) = if *all {
                            if same == members {
                                (u64::from(members), true)
                            } else {
                                (0, false)
                            }
                        } else {
                            (u64::from(same), false)
                        };
                        regs[*d as usize * 32 + lane] = dom.lit(dv);
                        if let Some(p) = p {
                            regs[*p as usize * 32 + lane] = dom.lit(u64::from(pv));
                        }
                    }
                }
            }
            DInst::Redux {
                op,
                signed,
                d,
                a,
                mask,
            } => {
                if active != 0 {
                    let m = uniform_mask(dom, regs, *mask, active, &env)?;
                    check_members(m, active, live, alive)?;
                    let members = m & active;
                    let mut acc: Option<u64> = None;
                    for lane in lanes(members) {
                        let v = rd(dom, regs, *a, lane, &env)?;
                        let v = concrete(dom, &v, "redux value")? & 0xffff_ffff;
                        acc = Some(match acc {
                            None => v,
                            Some(x) => match op {
                                ReduxOp::Add => (x + v) & 0xffff_ffff,
                                ReduxOp::And => x & v,
                                ReduxOp::Or => x | v,
                                ReduxOp::Xor => x ^ v,
                                ReduxOp::Min if *signed => {
                                    ((x as u32 as i32).min(v as u32 as i32)) as u32 as u64
                                }
                                ReduxOp::Max if *signed => {
                                    ((x as u32 as i32).max(v as u32 as i32)) as u32 as u64
                                }
                                ReduxOp::Min => x.min(v),
                                ReduxOp::Max => x.max(v),
                            },
                        });
                    }
                    let r = acc.unwrap_or(0);
                    for lane in lanes(active) {
                        regs[*d as usize * 32 + lane] = dom.lit(r);
                    }
                }
            }
            DInst::Activemask { d } => {
                for lane in lanes(active) {
                    regs[*d as usize * 32 + lane] = dom.lit(u64::from(live));
                }
            }
            DInst::Elect { d, p, mask } => {
                if active != 0 {
                    let m = uniform_mask(dom, regs, *mask, active, &env)?;
                    check_members(m, active, live, alive)?;
                    let members = m & active;
                    let leader = if members == 0 {
                        32
                    } else {
                        members.trailing_zeros()
                    };
                    for lane in lanes(active) {
                        if let Some(d) = d {
                            regs[*d as usize * 32 + lane] = dom.lit(u64::from(leader));
                        }
                        if let Some(p) = p {
                            regs[*p as usize * 32 + lane] =
                                dom.lit(u64::from(lane as u32 == leader));
                        }
                    }
                }
            }
        }
        set_pc!(next);
        Ok(())
    }

    /// Retires `mask` lanes of the current frame (`ret`); in the kernel frame this is `exit`.
    fn do_ret(&mut self, cta: &mut Cta<D::Val>, w: usize, mask: u32) -> Step<()> {
        let warp = &mut cta.warps[w];
        if warp.frames.len() <= 1 {
            self.do_exit(cta, w, mask);
            return Ok(());
        }
        if let Some(frame) = warp.frames.last_mut() {
            for e in frame.stack.iter_mut() {
                e.mask &= !mask;
            }
            if let Some(e) = frame.stack.last_mut() {
                // Lanes not returning continue after the `ret`.
                if e.mask != 0 {
                    e.pc += 1;
                }
            }
        }
        Ok(())
    }

    fn do_exit(&mut self, cta: &mut Cta<D::Val>, w: usize, mask: u32) {
        let warp = &mut cta.warps[w];
        warp.exited |= mask;
        let n = warp.frames.len();
        for (i, f) in warp.frames.iter_mut().enumerate() {
            for e in f.stack.iter_mut() {
                e.mask &= !mask;
            }
            if i + 1 == n {
                if let Some(e) = f.stack.last_mut() {
                    if e.mask != 0 {
                        e.pc += 1;
                    }
                }
            }
        }
        if warp.exists & !warp.exited == 0 {
            warp.state = WState::Done;
            warp.frames.clear();
        }
    }

    /// The current frame has no stack entries left: return to the caller.
    fn finish_frame(&mut self, cta: &mut Cta<D::Val>, w: usize) -> Step<()> {
        let prog = self.prog;
        let warp = &mut cta.warps[w];
        let Some(callee) = warp.frames.pop() else {
            warp.state = WState::Done;
            return Ok(());
        };
        warp.local_top = callee.local_base;
        let exited = warp.exited;
        let Some(caller) = warp.frames.last_mut() else {
            warp.state = WState::Done;
            return Ok(());
        };
        let Some(top) = caller.stack.last_mut() else {
            return Ok(());
        };
        let cf = &prog.funcs[caller.func as usize];
        let callee_f = &prog.funcs[callee.func as usize];
        if let Some(DInst::Call { rets, .. }) = cf.code.get(top.pc as usize).map(|d| &d.kind) {
            let back = callee.call_mask & !exited;
            for (i, r) in rets.iter().enumerate() {
                let Some(slot) = callee_f.rets.get(i) else {
                    break;
                };
                for lane in lanes(back) {
                    let src = lane * callee.psize as usize + slot.offset as usize;
                    let n = (slot.size as usize).min(8);
                    let at = MemAt {
                        region: Region::FrameParam(lane as u8),
                        offset: u64::from(slot.offset),
                        size: n as u32,
                    };
                    // The value when the callee returns it in a register.
                    let rv = slot
                        .reg
                        .map(|r| callee.regs[r as usize * 32 + lane].clone());
                    match (r, rv) {
                        (CallRet::Slot(off, size), None) => {
                            let n = (*size).min(slot.size) as usize;
                            let dst = lane * caller.psize as usize + *off as usize;
                            if let (Some(s), true) = (
                                callee.params.get(src..src + n),
                                dst + n <= caller.params.len(),
                            ) {
                                caller.params[dst..dst + n].copy_from_slice(s);
                            }
                        }
                        (CallRet::Reg(reg), None) => {
                            if let Some(s) = callee.params.get(src..src + n) {
                                caller.regs[*reg as usize * 32 + lane] = self.dom.load(at, s);
                            }
                        }
                        (CallRet::Reg(reg), Some(v)) => {
                            caller.regs[*reg as usize * 32 + lane] = v;
                        }
                        (CallRet::Slot(off, size), Some(v)) => {
                            let n = (*size as usize).min(8);
                            let dst = lane * caller.psize as usize + *off as usize;
                            if let Some(b) = caller.params.get_mut(dst..dst + n) {
                                self.dom.store(at, &v, b)?;
                            }
                        }
                    }
                }
            }
        }
        top.pc += 1;
        Ok(())
    }
}

/// Executes an ALU instruction for all active lanes: the operands' lanes are gathered into
/// `scratch` (registers are contiguous per warp, so this is a copy), then the domain computes the
/// whole warp in one call.
#[allow(
    clippy::too_many_arguments,
    reason = "the interpreter's disjoint state"
)]
#[inline]
fn alu<D: Domain>(
    dom: &mut D,
    regs: &mut [D::Val],
    scratch: &mut [D::Val],
    op: Op,
    srcs: &[Src],
    d: u32,
    active: u32,
    env: &Env,
) -> Step<()> {
    for (k, src) in srcs.iter().enumerate() {
        gather(
            dom,
            regs,
            &mut scratch[k * 32..(k + 1) * 32],
            *src,
            active,
            env,
        )?;
    }
    let args: [&[D::Val]; 4] = [
        &scratch[0..32],
        &scratch[32..64],
        &scratch[64..96],
        &scratch[96..128],
    ];
    let d = d as usize * 32;
    dom.apply_lanes(op, active, &args[..srcs.len()], &mut regs[d..d + 32])
        .map_err(|(e, lane)| Stop::Domain(e, Some(lane)))
}

/// The 32 lanes of an operand (inactive lanes of non-register operands are left as they are).
#[inline]
fn gather<D: Domain>(
    dom: &mut D,
    regs: &[D::Val],
    out: &mut [D::Val],
    src: Src,
    active: u32,
    env: &Env,
) -> Step<()> {
    match src {
        Src::Reg(r) => {
            let r = r as usize * 32;
            out.clone_from_slice(&regs[r..r + 32]);
        }
        Src::Imm(v) => {
            let x = dom.lit(v);
            for o in out.iter_mut() {
                *o = x.clone();
            }
        }
        other => {
            for lane in lanes(active) {
                out[lane] = rd(dom, regs, other, lane, env)?;
            }
        }
    }
    Ok(())
}

/// `Entry::blocked` of an entry that waits for its sibling paths at a warp collective.
const WARP_WAIT: u32 = u32::MAX;

/// The index of a sibling of the top entry (same reconvergence point, not a reconvergence entry)
/// that can run: not blocked and with live lanes.
fn runnable_sibling(stack: &[Entry], exited: u32) -> Option<usize> {
    let n = stack.len();
    let top = *stack.last()?;
    for i in (0..n - 1).rev() {
        let e = stack[i];
        if e.rpc != top.rpc || (e.pc == e.rpc && e.blocked == 0) {
            break;
        }
        if e.blocked == 0 && e.mask & !exited != 0 {
            return Some(i);
        }
    }
    None
}

/// Pushes divergent paths (`paths` in reverse execution order: the last runs first); the current
/// entry (whose lanes are `live`) becomes their reconvergence entry at `rpc`.
fn diverge(stack: &mut Vec<Entry>, paths: &[(u32, u32)], rpc: u32, live: u32) {
    let Some(top) = stack.last_mut() else { return };
    let union = paths.iter().fold(0, |m, p| m | p.1);
    if top.rpc == rpc && union == live {
        // The entry below already reconverges at `rpc`: replace instead of nesting.
        stack.pop();
    } else {
        top.pc = rpc;
    }
    for &(pc, mask) in paths {
        if mask != 0 {
            stack.push(Entry {
                pc,
                rpc,
                mask,
                blocked: 0,
            });
        }
    }
}

/// A `*.sync` member mask: the same in every active lane.
fn uniform_mask<D: Domain>(
    dom: &mut D,
    regs: &[D::Val],
    src: Src,
    active: u32,
    env: &Env,
) -> Step<u32> {
    let mut m = None;
    for lane in lanes(active) {
        let v = rd(dom, regs, src, lane, env)?;
        let v = concrete(dom, &v, "member mask")? as u32;
        if *m.get_or_insert(v) != v {
            return Err(Stop::Fault(
                "member mask differs between lanes".into(),
                Some(lane),
            ));
        }
    }
    Ok(m.unwrap_or(0))
}

/// Checks a member mask against the executing lanes: every executing lane must be a member,
/// and every member that is alive must be on this path (`live`); members on another path of a
/// diverged warp could only arrive with independent thread scheduling. Members on this path whose
/// guard is false do not take part (what the hardware does, although PTX calls it undefined).
fn check_members(members: u32, active: u32, live: u32, alive: u32) -> Step<()> {
    if active & !members != 0 {
        return Err(Stop::Fault(
            format!(
                "lanes {:#010x} execute a .sync instruction whose member mask {members:#010x} \
                 excludes them",
                active & !members
            ),
            Some((active & !members).trailing_zeros() as usize),
        ));
    }
    let waiting = members & alive & !live;
    if waiting != 0 {
        return Err(Stop::Limit(format!(
            "member mask {members:#010x} names lanes {waiting:#010x} that are alive but not \
             executing this instruction (the warp is diverged here): only independent thread \
             scheduling can make them arrive, which this emulator does not model"
        )));
    }
    Ok(())
}

/// The address an access uses for one lane (space address, or generic).
#[inline(always)]
fn addr_value<D: Domain>(
    dom: &mut D,
    regs: &[D::Val],
    addr: &Addr,
    lane: usize,
    env: &Env,
) -> Step<u64> {
    let base = match addr.base {
        ABase::Reg(r) => {
            let v = &regs[r as usize * 32 + lane];
            dom.concrete(v).ok_or(Stop::Domain(
                DomainError::Symbolic("memory address"),
                Some(lane),
            ))?
        }
        ABase::Abs(a) => a,
        ABase::Local(o) => env.local_base.wrapping_add(o),
        ABase::FParam(o) => u64::from(o),
    };
    Ok(base.wrapping_add(addr.off as u64))
}

/// Resolves and checks an access of `size` bytes at `at` (interpreted per `addr`).
#[allow(
    clippy::too_many_arguments,
    reason = "the memory regions are disjoint borrows"
)]
#[inline]
fn locate(
    global: &GlobalMem,
    shared: &[u8],
    local: &[Vec<u8>],
    local_top: u64,
    const_bank: &[u8],
    kparams: &[u8],
    psize: u32,
    addr: &Addr,
    at: u64,
    size: u32,
    align: u32,
    lane: usize,
) -> Result<(Region, u64), Fault> {
    if let ABase::FParam(_) = addr.base {
        check_range(Space::Param, at, at, size, u64::from(psize))?;
        return Ok((Region::FrameParam(lane as u8), at));
    }
    let (space, a) = match addr.space {
        Space::Generic => classify_generic(at).ok_or_else(|| Fault::OutOfBounds {
            space: Space::Generic,
            addr: at,
            size,
            detail: if at < (1 << WINDOW_SHIFT) {
                "not in any state space (a null or uninitialised pointer?)".into()
            } else {
                "not in any state space window".into()
            },
        })?,
        s => (s, at),
    };
    if align > size && a % u64::from(align) != 0 {
        return Err(Fault::Misaligned {
            space,
            addr: at,
            align,
        });
    }
    match space {
        Space::Global | Space::Generic => {
            let (i, off) = global.locate(a, size)?;
            Ok((Region::Global(i), off))
        }
        Space::Shared => {
            check_range(space, a, a, size, shared.len() as u64)?;
            Ok((Region::Shared, a))
        }
        Space::Local => {
            let len = (local.get(lane).map_or(0, |v| v.len()) as u64).min(local_top);
            check_range(space, a, a, size, len)?;
            Ok((Region::Local(lane as u8), a))
        }
        Space::Const => {
            check_range(space, a, a, size, const_bank.len() as u64)?;
            Ok((Region::Const, a))
        }
        Space::Param => {
            check_range(space, a, a, size, kparams.len() as u64)?;
            Ok((Region::KernelParam, a))
        }
    }
}

fn check_writable(region: Region, space: Space, at: u64) -> Result<(), Fault> {
    match region {
        Region::Const | Region::KernelParam => Err(Fault::ReadOnly {
            space: if region == Region::Const {
                Space::Const
            } else {
                Space::Param
            },
            addr: at,
        }),
        _ => {
            let _ = space;
            Ok(())
        }
    }
}

/// The bytes of a located access (bounds already checked by [`locate`]).
#[allow(
    clippy::too_many_arguments,
    reason = "the memory regions are disjoint borrows"
)]
#[inline]
fn region_bytes<'a>(
    global: &'a mut GlobalMem,
    shared: &'a mut [u8],
    local: &'a mut [Vec<u8>],
    const_bank: &'a mut [u8],
    kparams: &'a mut [u8],
    fparams: &'a mut [u8],
    psize: u32,
    region: Region,
    off: u64,
    size: u32,
) -> &'a mut [u8] {
    let (o, n) = (off as usize, size as usize);
    match region {
        Region::Global(i) => &mut global.allocs[i as usize].data[o..o + n],
        Region::Shared => &mut shared[o..o + n],
        Region::Local(l) => &mut local[l as usize][o..o + n],
        Region::Const => &mut const_bank[o..o + n],
        Region::KernelParam => &mut kparams[o..o + n],
        Region::FrameParam(l) => {
            let s = l as usize * psize as usize + o;
            &mut fparams[s..s + n]
        }
    }
}
