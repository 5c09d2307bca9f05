//! The SIMT interpreter: a grid of CTAs of warps of 32 lanes executing decoded PTX
//! ([`super::decode`]) over any value [`Domain`].
//!
//! # Execution model (PTX ISA §2–§4, §9.7.8 control flow, §9.7.13 synchronisation)
//!
//! - CTAs run one after another in linear `%ctaid` order (x fastest); the CTAs of a cluster of
//!   more than one run together, round by round in rank order ([`cluster`]). Within a CTA the warps run
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
//!
//! # Where each instruction is executed
//!
//! This module schedules warps and CTAs, keeps the SIMT stacks and executes moves, one-operation
//! arithmetic and branches; `step` routes the rest by family: per-lane arithmetic forms to
//! `arith`, memory accesses to `access` (which also holds the view of the memory an instruction
//! can reach), warp collectives to `collective`, CTA barriers to `barrier`, calls to `call`,
//! matrix instructions to `matrix` (and `wgmma`), and the asynchronous copies and `mbarrier`s to
//! `async_ops` (with `mbarrier`).

use super::cluster::ClusterShape;
use super::decode::{ABase, Addr, BarOp, CallRet, DInst, Program, Src, Sreg, NO_RPC};
use super::domain::{Domain, DomainError, MemAt, Op, Space};
use super::error::{EmuError, EmuResult, Where};
use super::memory::{self, classify_generic, Fault, GlobalMem, Region, CODE_BASE, WINDOW_SHIFT};

mod access;
mod arith;
mod async_ops;
mod barrier;
mod call;
mod cluster;
mod collective;
mod matrix;
mod mbarrier;
mod stack;
mod tensor_copy;
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
    /// The clusters' shape.
    pub cluster: ClusterShape,
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
    /// Each lane's pending `barrier.cluster.arrive`: the phase, or [`cluster::NOT_ARRIVED`].
    cluster_phase: [u64; 32],
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
    /// The shared memory of the other CTAs of the running cluster, by rank (the running CTA's
    /// slot is empty: its memory is its own `Cta::shared`).
    peers: Vec<Vec<u8>>,
    /// The running CTA's rank in its cluster.
    rank: u32,
    /// The running cluster's barrier.
    cluster_bar: cluster::ClusterBarrier,
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
    cluster: ClusterShape,
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
            Sreg::Ctaid(c) => u64::from(self.ctaid[c as usize]),
            Sreg::Nctaid(c) => u64::from(self.nctaid[c as usize]),
            Sreg::Cluster(r) => self.cluster.value(r, self.ctaid, self.nctaid),
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

/// The lanes one warp-instruction executes on, and the state its per-lane forms read and write.
struct Lanes<'a, 'e, D: Domain> {
    dom: &'a mut D,
    regs: &'a mut [D::Val],
    scratch: &'a mut [D::Val],
    env: &'a Env<'e>,
    /// The lanes whose guard holds.
    active: u32,
    /// The lanes of the current SIMT stack entry that have not exited.
    live: u32,
    /// The warp's lanes that exist and have not exited.
    alive: u32,
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
#[derive(Debug)]
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
            peers: Vec::new(),
            rank: 0,
            cluster_bar: cluster::ClusterBarrier::default(),
        }
    }

    /// Runs the whole grid.
    pub fn run(&mut self) -> EmuResult<()> {
        let [gx, gy, gz] = self.shape.grid;
        let [cx, cy, cz] = self.shape.cluster.dims;
        for z in (0..gz).step_by(cz as usize) {
            for y in (0..gy).step_by(cy as usize) {
                for x in (0..gx).step_by(cx as usize) {
                    self.run_cluster([x, y, z])?;
                }
            }
        }
        Ok(())
    }

    /// Runs the cluster whose first CTA is `first`: its CTAs in rank order (x fastest), together.
    fn run_cluster(&mut self, [x0, y0, z0]: [u32; 3]) -> EmuResult<()> {
        let [cx, cy, cz] = self.shape.cluster.dims;
        let mut ctas = Vec::new();
        for z in z0..z0 + cz {
            for y in y0..y0 + cy {
                for x in x0..x0 + cx {
                    ctas.push(self.new_cta([x, y, z]));
                }
            }
        }
        let threads = ctas.iter().map(Self::live_threads).sum();
        self.cluster_bar = cluster::ClusterBarrier::new(threads);
        self.peers = vec![Vec::new(); ctas.len()];
        self.run_ctas(&mut ctas)
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
                cluster_phase: [cluster::NOT_ARRIVED; 32],
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

    /// Runs the CTAs of one cluster (one CTA without clusters) to completion, each round giving
    /// every ready warp of every CTA a turn.
    fn run_ctas(&mut self, ctas: &mut [Cta<D::Val>]) -> EmuResult<()> {
        let mut spin_rounds = 0u32;
        loop {
            let mut progressed = false;
            let mut all_done = true;
            let mut all_spin = true;
            let changes = self.mbar_changes;
            for i in 0..ctas.len() {
                let (p, d, s) = self.run_round(ctas, i)?;
                progressed |= p;
                all_done &= d;
                all_spin &= s;
            }
            if all_done {
                return Ok(());
            }
            if progressed && all_spin && changes == self.mbar_changes {
                spin_rounds += 1;
                if spin_rounds > MBAR_SPIN_ROUNDS {
                    return Err(self.mbar_deadlock(&ctas[0]));
                }
            } else {
                spin_rounds = 0;
            }
            if !progressed {
                // Everyone waits: a barrier may complete because threads exited meanwhile.
                let mut released = false;
                for cta in ctas.iter_mut() {
                    released |= self.release_ready_barriers(cta)?;
                }
                if !released {
                    return Err(self.deadlock(&ctas[0]));
                }
            }
        }
    }

    /// One round of CTA `i` of the cluster, with the other CTAs' shared memory lent to
    /// [`Machine::peers`] meanwhile: (whether a warp ran, whether all are done, whether every
    /// warp that ran ended its turn at an incomplete wait).
    fn run_round(&mut self, ctas: &mut [Cta<D::Val>], i: usize) -> EmuResult<(bool, bool, bool)> {
        let lend = |peers: &mut Vec<Vec<u8>>, ctas: &mut [Cta<D::Val>]| {
            for (j, cta) in ctas.iter_mut().enumerate() {
                if j != i {
                    std::mem::swap(&mut peers[j], &mut cta.shared);
                }
            }
        };
        lend(&mut self.peers, ctas);
        self.rank = i as u32;
        let result = self.run_warps(&mut ctas[i]);
        lend(&mut self.peers, ctas);
        result
    }

    /// One turn of every ready warp of `cta`: (whether a warp ran, whether all are done,
    /// whether every warp that ran ended its turn at an incomplete wait).
    fn run_warps(&mut self, cta: &mut Cta<D::Val>) -> EmuResult<(bool, bool, bool)> {
        let (mut progressed, mut all_done, mut all_spin) = (false, true, true);
        for w in 0..cta.warps.len() {
            if cta.warps[w].state == WState::Ready {
                all_spin &= self.run_warp(cta, w)?;
                progressed = true;
            }
            all_done &= cta.warps[w].state == WState::Done;
        }
        Ok((progressed, all_done, all_spin))
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

    /// The entry of warp `w`'s SIMT stack that runs next and its live lanes, or `None` when this
    /// turn was a bookkeeping step: popping an entry that reached its reconvergence point or has
    /// no live lanes, switching to a sibling path or waiting at a barrier, returning from a frame
    /// with no entries left, or finding the warp done.
    fn runnable_entry(&mut self, cta: &mut Cta<D::Val>, w: usize) -> Step<Option<(Entry, u32)>> {
        let warp = &mut cta.warps[w];
        let Some(frame) = warp.frames.last_mut() else {
            warp.state = WState::Done;
            return Ok(None);
        };
        let Some(&top) = frame.stack.last() else {
            self.finish_frame(cta, w)?;
            return Ok(None);
        };
        let live = top.mask & !warp.exited;
        // An entry whose lanes wait at a barrier stays, even when its pc (already past the
        // barrier) is its reconvergence point: they must not reconverge before the barrier
        // completes.
        if live == 0 || (top.pc == top.rpc && (top.blocked == 0 || top.blocked == WARP_WAIT)) {
            frame.stack.pop();
            return Ok(None);
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
            return Ok(None);
        }
        if top.pc == NO_RPC {
            return Err(Stop::Limit(
                "internal: a waiting SIMT stack entry still has live lanes".into(),
            ));
        }
        Ok(Some((top, live)))
    }

    /// Executes one instruction (or one stack/frame bookkeeping step) of warp `w`.
    fn step(&mut self, cta: &mut Cta<D::Val>, w: usize) -> Step<()> {
        let prog = self.prog;
        let Some((top, live)) = self.runnable_entry(cta, w)? else {
            return Ok(());
        };
        let warp = &mut cta.warps[w];
        let Some(frame) = warp.frames.last_mut() else {
            return Err(Stop::Limit(
                "internal: a runnable entry without a frame".into(),
            ));
        };
        let func = &prog.funcs[frame.func as usize];
        let Some(di) = func.code.get(top.pc as usize) else {
            // Falling off the end of the body is a return.
            return self.do_ret(cta, w, live);
        };
        warp.clock += 1;
        self.stats.warp_insts += 1;
        self.stats.lane_insts += u64::from(live.count_ones());
        let active = guarded_lanes(&self.dom, &frame.regs, di.guard, live)?;
        let nwarps = cta.warps.len() as u32;
        let warp = &mut cta.warps[w];
        let alive = warp.exists & !warp.exited;
        let exited = warp.exited;
        let Warp {
            frames,
            tid,
            clock,
            local,
            local_top,
            pending_red,
            wait_at,
            async_copies,
            cluster_phase,
            ..
        } = warp;
        let frame = frames.last_mut().expect("frame checked above");
        let env = Env {
            tid,
            ctaid: cta.ctaid,
            ntid: self.shape.block,
            nctaid: self.shape.grid,
            cluster: self.shape.cluster,
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
        // The memory an instruction can reach, for the memory, matrix and asynchronous
        // instructions (exec/access.rs).
        macro_rules! mem_view {
            () => {
                access::MemView {
                    global: &mut self.global,
                    shared: &mut cta.shared,
                    peers: &mut self.peers,
                    rank: self.rank,
                    local,
                    local_top: *local_top,
                    const_bank: &mut self.const_bank,
                    kparams: &mut self.kparams,
                    fparams: &mut frame.params,
                    psize: frame.psize,
                }
            };
        }
        // The executing lanes and their registers, for the modules `step` routes to.
        macro_rules! lanes {
            () => {
                Lanes {
                    dom: &mut *dom,
                    regs: &mut regs[..],
                    scratch: &mut scratch[..],
                    env: &env,
                    active,
                    live,
                    alive,
                }
            };
        }
        macro_rules! set_pc {
            ($pc:expr) => {
                set_top_pc(&mut frame.stack, $pc)
            };
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
            if m & alive & !live != 0 && meet_siblings(&mut frame.stack, top, exited) {
                return Ok(());
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
            kind @ (DInst::Mad { .. }
            | DInst::Carry { .. }
            | DInst::Setp { .. }
            | DInst::SetpX2 { .. }
            | DInst::Slct { .. }
            | DInst::Pack { .. }
            | DInst::Unpack { .. }
            | DInst::Cvta { .. }
            | DInst::Isspacep { .. }) => arith::exec(lanes!(), func.cc_reg, kind)?,
            kind @ (DInst::Ld { .. } | DInst::St { .. } | DInst::Atom { .. }) => {
                let mut mem = mem_view!();
                self.stats.global_loads += access::exec(lanes!(), &mut mem, kind)?;
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
                let caller = call::Caller {
                    dom: &mut *dom,
                    frames,
                    local,
                    local_top,
                    env: &env,
                    top,
                    active,
                    live,
                };
                return call::call(caller, prog, &self.limits, (callee, args, rets));
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
            kind @ (DInst::Ldmatrix { .. }
            | DInst::Stmatrix { .. }
            | DInst::Mma { .. }
            | DInst::Wgmma { .. }) => {
                let mut mem = mem_view!();
                matrix::exec(lanes!(), &mut mem, kind)?;
            }
            kind @ (DInst::CpAsync { .. }
            | DInst::CpAsyncCommit
            | DInst::CpAsyncMbarArrive { .. }
            | DInst::Mbarrier { .. }
            | DInst::MbarPending { .. }
            | DInst::BulkCopy { .. }
            | DInst::TensorCopy(_)
            | DInst::CpAsyncWait { .. }) => {
                let mut mem = mem_view!();
                let done = async_ops::exec(lanes!(), &mut mem, async_copies, kind)?;
                self.stats.global_loads += done.global_loads;
                self.mbar_changes += done.mbar_changes;
                if let Some(y) = done.yield_warp {
                    self.yield_warp = y;
                }
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
                let arrival = barrier::arrival(lanes!(), id, count, pred)?;
                let idv = arrival.id;
                let bar = &mut cta.bars[idv];
                bar.arrive(*op, &arrival)?;
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
                let expected = cta.bars[idv]
                    .expected
                    .unwrap_or_else(|| Self::live_threads(cta));
                if cta.bars[idv].arrived >= expected {
                    self.release_barrier(cta, idv)
                        .map_err(|e| Stop::Fault(e.to_string(), None))?;
                }
                return Ok(());
            }
            kind @ (DInst::WarpSync { .. }
            | DInst::Shfl { .. }
            | DInst::Vote { .. }
            | DInst::Match { .. }
            | DInst::Redux { .. }
            | DInst::Activemask { .. }
            | DInst::Elect { .. }) => collective::exec(lanes!(), kind)?,
            DInst::ClusterBar { wait: false } => {
                if self
                    .cluster_bar
                    .arrive(cluster_phase, active)
                    .map_err(cluster::misuse)?
                {
                    self.mbar_changes += 1;
                }
            }
            DInst::ClusterBar { wait: true } => {
                if !self
                    .cluster_bar
                    .wait(cluster_phase, active)
                    .map_err(cluster::misuse)?
                {
                    // Try again at the next turn.
                    self.yield_warp = true;
                    return Ok(());
                }
            }
            DInst::Mapa {
                d,
                a,
                rank,
                generic,
            } => {
                let ctas = self.shape.cluster.ctas();
                cluster::mapa(lanes!(), (*d, *a, *rank, *generic), ctas)?
            }
            DInst::Getctarank { d, a, generic } => {
                cluster::getctarank(lanes!(), (*d, *a, *generic), self.rank)?
            }
            kind
            @ (DInst::Alloca { .. } | DInst::StackSave { .. } | DInst::StackRestore { .. }) => {
                let view = stack::StackView {
                    dom,
                    regs,
                    env: &env,
                    active,
                    local,
                    local_top,
                    frame_base: frame.local_base,
                    max_local_bytes: self.limits.max_local_bytes,
                };
                stack::exec(view, kind)?
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
        let leaving = mask & warp.exists & !warp.exited;
        if self.cluster_bar.exit(&warp.cluster_phase, leaving) {
            self.mbar_changes += 1;
        }
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
    gather_operands(dom, regs, scratch, srcs, active, env)?;
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

/// The 32 lanes of each operand, the `k`th into `scratch[32 k..32 (k + 1)]`.
#[inline]
fn gather_operands<D: Domain>(
    dom: &mut D,
    regs: &[D::Val],
    scratch: &mut [D::Val],
    srcs: &[Src],
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
    Ok(())
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

/// Sets the pc of a SIMT stack's top entry (the frame's current path).
fn set_top_pc(stack: &mut [Entry], pc: u32) {
    if let Some(e) = stack.last_mut() {
        e.pc = pc;
    }
}

/// The lanes of `live` whose guard predicate (register, negated) holds; all of them unguarded.
fn guarded_lanes<D: Domain>(
    dom: &D,
    regs: &[D::Val],
    guard: Option<(u32, bool)>,
    live: u32,
) -> Step<u32> {
    let Some((g, neg)) = guard else {
        return Ok(live);
    };
    let mut m = 0u32;
    for lane in lanes(live) {
        let v = dom
            .concrete(&regs[g as usize * 32 + lane])
            .ok_or(Stop::Domain(
                DomainError::Symbolic("guard predicate"),
                Some(lane),
            ))?;
        if (v & 1 != 0) != neg {
            m |= 1 << lane;
        }
    }
    Ok(m)
}

/// At a warp collective whose members include lanes on other paths of a diverged warp: merges
/// the sibling paths already waiting at this same instruction into the top entry (`top`), or else
/// makes the top entry wait and runs a sibling that can. `false` when there is neither, and the
/// collective runs with the lanes it has (its member check then reports the limit).
fn meet_siblings(stack: &mut Vec<Entry>, top: Entry, exited: u32) -> bool {
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
        // Sibling paths at this same instruction reconverge here (indices in decreasing order,
        // so each removal leaves the next index in place).
        let mut mask = top.mask;
        for &i in &same_pc {
            mask |= stack[i].mask;
            stack.remove(i);
        }
        if let Some(e) = stack.last_mut() {
            e.mask = mask;
            e.blocked = 0;
        }
        return true;
    }
    if let Some(i) = runnable_sibling(stack, exited) {
        if let Some(e) = stack.last_mut() {
            e.blocked = WARP_WAIT;
        }
        stack.swap(i, n - 1);
        return true;
    }
    false
}

/// The error for an instruction that `step` routed to a module that does not execute it.
fn misrouted(family: &str, kind: &DInst) -> Stop {
    Stop::Limit(format!("internal: {kind:?} was executed as {family}"))
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

/// Refuses a store (from `lane`) to the constant bank or the kernel's parameters at `at`.
fn check_writable(region: Region, at: u64, lane: usize) -> Step<()> {
    let space = match region {
        Region::Const => Space::Const,
        Region::KernelParam => Space::Param,
        _ => return Ok(()),
    };
    Err(Stop::Fault(
        Fault::ReadOnly { space, addr: at }.to_string(),
        Some(lane),
    ))
}
