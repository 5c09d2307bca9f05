//! The SASS interpreter: clusters one after another (the CTAs of one together), the warps of a CTA
//! round-robin, 32 lanes per warp with their own program counters (RegDem §3: the oracle for
//! binary rewrites).
//!
//! **Convergence model.** Every lane has its own PC (Volta+ independent thread scheduling); a warp
//! step executes the instruction at the *lowest* PC among its runnable lanes, for all lanes at
//! that PC. Lanes reconverge where the code says so: `BSSY Bn` records the executing lanes in
//! convergence barrier `Bn`, `BSYNC Bn` makes a lane wait until every lane recorded in `Bn` that
//! has not exited (or left with `BREAK Bn`) waits there too; `WARPSYNC mask` waits for the lanes
//! of the mask; `BAR.SYNC` waits for every non-exited thread of the CTA, or with a thread count
//! for that many arrivals (`cta_barrier`). Per-thread results do not
//! depend on the schedule; warp collectives (`SHFL`, `VOTE`, `REDUX`) see the lanes that execute
//! them together, which under this model and ptxas's BSSY/BSYNC/WARPSYNC placement is the set the
//! source program names.
//!
//! **Memory.** Global memory is the PTX emulator's (`emu::memory::GlobalMem`: the same
//! allocations, addresses and checks); shared memory is per CTA, local memory per thread; generic
//! addresses use the PTX emulator's windows (shared at `0x0200_0000_0000`, whose high word
//! `SR_SWINHI` gives, local at `0x0300_0000_0000` = `c[0x0][0x20]`). Every access is bounds- and
//! alignment-checked and a violation stops the run with a fault naming the instruction.
//!
//! **Clusters** (sm_90): the CTAs of one cluster run together, in turns, and the clusters of a
//! grid one after another (`cluster`: `UCGABAR`, `STAS`, another CTA's shared memory).
//!
//! **Layout.** This file holds a CTA's turn (`warps_turn`, `step`), the dispatch of one
//! instruction (`exec`, `alu`), operand access, memory and warp collectives; the rest is by
//! instruction class: `cluster` (the grid's clusters and what crosses between their CTAs),
//! `control` (branches, calls, `EXIT`, convergence), `cta_barrier` (`BAR`), `tensor` (`HMMA`, `IMMA`,
//! `LDSM`), `async_copy` (`LDGSTS` and its groups), `tma` (sm_90's mbarriers and tensor
//! copies), and the lane-by-lane datapath in `alu_move` (moves, special registers, constants,
//! comparisons), `alu_int` (integer arithmetic, logic, shifts, bit operations) and `alu_float`
//! (f32/f64, conversions, half precision).

use crate::emu::cluster::{ClusterShape, ClusterSreg};
use std::collections::HashMap;

use crate::emu::error::{EmuError, EmuResult, Where};
use crate::emu::exec::Limits;
use crate::emu::float::{self, Rnd, F16, F32};
use crate::emu::memory::{GlobalMem, CONST_BASE, LOCAL_BASE, SHARED_BASE};

use super::module_globals::{const_bank_offset, UnresolvedSlot};

use super::alu;
use super::decode::{self, AtomOp, AtomTy, Class, Kind, Shfl, Space, Width};
use super::operand::{Addr, Opnd, Sel, Special, PT, RZ, URZ};
use super::program::Kernel;
use super::stats::SassStats;

mod alu_float;
mod alu_int;
mod alu_move;
mod async_copy;
mod cluster;
mod control;
mod cta_barrier;
mod gmma;
pub(crate) mod resident;
mod smem;
mod tensor;
#[cfg(test)]
mod tests;
mod tma;

/// A decoded instruction.
struct DInst {
    kind: Kind,
    /// A control instruction (branch, call, exit, convergence or CTA barrier): may move lanes
    /// apart or make them wait.
    control: bool,
    ops: Vec<Opnd>,
    guard: Option<(bool, u8, bool)>,
    class: Class,
    uniform: bool,
    text: String,
    pc: u64,
}

/// The launch shape.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    /// Grid.
    pub grid: [u32; 3],
    /// Block.
    pub block: [u32; 3],
    /// Dynamic shared memory.
    pub dynamic_smem: u64,
    /// The clusters' shape.
    pub cluster: ClusterShape,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum St {
    Run,
    Exited,
    Absent,
    /// Waiting at BSYNC (barrier register) at the lane's PC.
    Bsync(u8),
    /// Waiting at WARPSYNC (mask) at the lane's PC.
    Warpsync(u32),
    /// Waiting at a CTA barrier.
    Bar(u8),
}

/// Where a shared address holds the rank of the CTA whose shared memory it names (sm_90).
const CLUSTER_RANK_SHIFT: u32 = 24;

/// One warp's state.
pub(crate) struct Warp {
    id: u32,
    regs: Vec<u32>,
    nr: usize,
    preds: [u8; 32],
    ur: [u32; 64],
    up: u8,
    pc: [u32; 32],
    st: [St; 32],
    bars: [u32; 16],
    tid: [[u32; 3]; 32],
    local: Vec<u8>,
    b2r: [u32; 32],
    /// Per CTA barrier: the lanes that arrived without waiting (`BAR.ARV`) in its current phase.
    bar_arrived: [u32; 16],
    /// Per CTA barrier: the thread count this warp's pending arrivals named (0: the whole CTA).
    bar_count: [u32; 16],
    insts: u64,
    /// Every lane runs at one PC (see [`next_lanes`]).
    converged: bool,
    /// `LDGSTS` copies in flight.
    copies: async_copy::Queue,
    /// Each lane's pending cluster-barrier arrival: the phase, or
    /// [`crate::emu::cluster::NOT_ARRIVED`].
    cluster_phase: [u64; 32],
}

impl Warp {
    /// Warp `wi` of a CTA of shape `block` (`nr` registers, `local` bytes of stack per thread):
    /// the lanes that exist run from PC 0.
    fn new(wi: u32, nr: usize, local: usize, [bx, by, bz]: [u32; 3]) -> Warp {
        let n = (bx * by * bz) as usize;
        let mut w = Warp {
            id: wi,
            regs: vec![0; 32 * nr],
            nr,
            preds: [0x80; 32],
            ur: [0; 64],
            up: 0x80,
            pc: [0; 32],
            st: [St::Absent; 32],
            bars: [0; 16],
            tid: [[0; 3]; 32],
            local: vec![0; 32 * local],
            b2r: [0; 32],
            bar_arrived: [0; 16],
            bar_count: [0; 16],
            insts: 0,
            converged: false,
            copies: async_copy::Queue::default(),
            cluster_phase: [crate::emu::cluster::NOT_ARRIVED; 32],
        };
        for l in 0..32 {
            let t = wi as usize * 32 + l;
            if t < n {
                let t = t as u32;
                w.st[l] = St::Run;
                w.tid[l] = [t % bx, (t / bx) % by, t / (bx * by)];
            }
        }
        w
    }
}

/// The machine for one launch.
pub struct Machine<'a> {
    k: &'a Kernel,
    code: Vec<DInst>,
    /// Global memory.
    pub global: GlobalMem,
    cbanks: HashMap<u8, Vec<u8>>,
    /// Constant-bank bytes holding an address the loader could not give (a read is refused).
    unresolved_slots: Vec<UnresolvedSlot>,
    shape: Shape,
    limits: Limits,
    /// Counters.
    pub stats: SassStats,
    file: String,
    local_size: usize,
    cur_cta: [u32; 3],
    /// The running CTA's cluster: its barrier and the other CTAs' shared memory.
    cluster: cluster::ClusterRun,
    /// The CTA barriers (bit per id) a warp arrived at during this turn: checked for completion
    /// after it.
    bar_arrivals: u16,
    /// Trace logging is on (read once per run).
    trace: bool,
    /// The timing mode's view of the last instruction's memory accesses (`None`: not recorded,
    /// the functional run).
    pub(crate) touches: Option<Vec<resident::Touch>>,
}

type R<T> = Result<T, String>;

/// One 32-bit value per lane.
pub(crate) type Lanes = [u32; 32];

/// The lanes of a mask, in increasing order.
pub(crate) fn lanes(mask: u32) -> impl Iterator<Item = usize> {
    let mut m = mask;
    std::iter::from_fn(move || {
        if m == 0 {
            None
        } else {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            Some(l)
        }
    })
}

impl<'a> Machine<'a> {
    /// Prepares a launch: `cbanks` are the constant banks, bank 0 with the parameters and launch
    /// constants.
    pub fn new(
        k: &'a Kernel,
        global: GlobalMem,
        cbanks: HashMap<u8, Vec<u8>>,
        shape: Shape,
        limits: Limits,
        file: &str,
    ) -> Machine<'a> {
        let code = k
            .code
            .iter()
            .map(|i| match &i.parsed {
                Ok(p) => {
                    let kind = decode::decode(p);
                    let class = decode::class_of(&kind, &p.op);
                    let uniform = matches!(p.ops.first(), Some(Opnd::Ur { .. } | Opnd::Up { .. }))
                        && !matches!(kind, Kind::Redux { .. } | Kind::Vote { .. })
                        || p.op.starts_with('U') && !matches!(kind, Kind::Vote { .. });
                    DInst {
                        control: is_control(&kind),
                        kind,
                        ops: p.ops.clone(),
                        guard: p.guard,
                        class,
                        uniform,
                        text: i.text.clone(),
                        pc: i.pc,
                    }
                }
                Err(why) => DInst {
                    control: false,
                    kind: Kind::Unsupported(format!("cannot parse {why}")),
                    ops: Vec::new(),
                    guard: None,
                    class: Class::Misc,
                    uniform: false,
                    text: i.text.clone(),
                    pc: i.pc,
                },
            })
            .collect();
        Machine {
            k,
            code,
            global,
            cbanks,
            unresolved_slots: Vec::new(),
            shape,
            limits,
            stats: SassStats::default(),
            file: file.to_string(),
            local_size: k.local_size as usize,
            cur_cta: [0; 3],
            cluster: cluster::ClusterRun::default(),
            bar_arrivals: 0,
            trace: log::log_enabled!(log::Level::Trace),
            touches: None,
        }
    }

    fn at(&self, pc: usize, cta: [u32; 3], w: &Warp, lane: Option<usize>) -> Box<Where> {
        let (text, off) = self
            .code
            .get(pc)
            .map_or((String::from("<end of code>"), pc as u64 * 16), |i| {
                (i.text.clone(), i.pc)
            });
        Box::new(Where {
            at: format!("{}:{}+{off:#06x}", self.file, self.k.name),
            text,
            cta,
            thread: lane.map(|l| w.tid[l]),
            warp: w.id,
        })
    }

    /// Runs the whole grid, one cluster after another (every CTA is a cluster of one unless the
    /// kernel or the launch gives a shape).
    pub fn run(&mut self) -> EmuResult<()> {
        for first in cluster::firsts(self.shape) {
            let ids = cluster::members(self.shape, first);
            self.run_cluster(&ids)?;
        }
        Ok(())
    }

    /// Runs only `ctas` (grid indices), in that order, each with the rest of its cluster (a
    /// cluster runs once however many of its CTAs are listed); the launch's grid (`%nctaid`)
    /// stays the whole one, and the other clusters leave memory as it was. A sample of a launch
    /// too large to run whole (`crate::tune::cubin_time`).
    pub fn run_ctas(&mut self, ctas: &[[u32; 3]]) -> EmuResult<()> {
        let [gx, gy, gz] = self.shape.grid;
        let mut done = Vec::new();
        for &cta in ctas {
            let [x, y, z] = cta;
            if x >= gx || y >= gy || z >= gz {
                return Err(EmuError::Spec(format!(
                    "CTA ({x}, {y}, {z}) is outside the grid ({gx}, {gy}, {gz})"
                )));
            }
            let first = cluster::first_of(self.shape, cta);
            if !done.contains(&first) {
                done.push(first);
                let ids = cluster::members(self.shape, first);
                self.run_cluster(&ids)?;
            }
        }
        Ok(())
    }

    /// One turn of CTA `cta`'s warps (up to a quantum of instructions each); true when one of
    /// them ran an instruction.
    fn warps_turn(&mut self, cta: &mut resident::Cta) -> EmuResult<bool> {
        self.cur_cta = cta.id;
        let mut progressed = false;
        for w in cta.warps.iter_mut() {
            let mut q = 0;
            while q < self.limits.quantum {
                match self.step(w, cta.id, &mut cta.shared)? {
                    true => {
                        progressed = true;
                        q += 1;
                    }
                    false => break,
                }
            }
        }
        let arrived = std::mem::take(&mut self.bar_arrivals);
        if arrived != 0 {
            // A barrier completed by this turn's arrivals lets its threads go at once, so warps
            // that keep running (a spin on a flag) do not hold them back.
            while self.release_bar(cta.id, &mut cta.warps, arrived)? {}
        }
        Ok(progressed)
    }

    /// Releases lanes waiting at BSYNC/WARPSYNC whose condition now holds.
    fn release_warp(w: &mut Warp) -> bool {
        w.converged = false;
        let mut released = false;
        for l in 0..32 {
            match w.st[l] {
                St::Bsync(b) => {
                    let need = w.bars[b as usize];
                    let ok = lanes(need).all(|j| match w.st[j] {
                        St::Exited | St::Absent => true,
                        St::Bsync(c) => c == b && w.pc[j] == w.pc[l],
                        _ => false,
                    });
                    if ok {
                        let pc = w.pc[l];
                        for j in 0..32 {
                            if w.st[j] == St::Bsync(b) && w.pc[j] == pc {
                                w.st[j] = St::Run;
                                w.pc[j] += 1;
                            }
                        }
                        released = true;
                    }
                }
                St::Warpsync(m) => {
                    let ok = lanes(m).all(|j| match w.st[j] {
                        St::Exited | St::Absent => true,
                        St::Warpsync(_) => w.pc[j] == w.pc[l],
                        _ => false,
                    });
                    if ok {
                        let pc = w.pc[l];
                        for j in 0..32 {
                            if matches!(w.st[j], St::Warpsync(_)) && w.pc[j] == pc {
                                w.st[j] = St::Run;
                                w.pc[j] += 1;
                            }
                        }
                        released = true;
                    }
                }
                _ => {}
            }
        }
        released
    }

    /// One warp step; false when the warp cannot run (all lanes done or waiting).
    fn step(&mut self, w: &mut Warp, cta: [u32; 3], shared: &mut [u8]) -> EmuResult<bool> {
        let (pc, act) = next_lanes(w);
        if pc == u32::MAX {
            if Self::release_warp(w) {
                return Ok(true);
            }
            return Ok(false);
        }
        if self.mbar_blocked(w, pc, act, shared)
            || self.cluster_blocked(w, pc, act, &self.cluster.barrier)
        {
            // Waits before a `PHASECHK` or a `UCGABAR_WAIT` until its phase completes (`tma.rs`,
            // `cluster.rs`).
            return Ok(false);
        }
        let Some(inst) = self.code.get(pc as usize) else {
            return Err(EmuError::Fault {
                at: self.at(pc as usize, cta, w, None),
                what: "execution ran past the end of the code".into(),
            });
        };
        self.stats.warp_insts += 1;
        self.stats.lane_insts += u64::from(act.count_ones());
        self.stats.by_class[inst.class as usize] += 1;
        w.insts += 1;
        if self.stats.warp_insts > self.limits.max_warp_insts {
            return Err(EmuError::Limit {
                at: Some(self.at(pc as usize, cta, w, None)),
                what: format!(
                    "instruction budget of {} warp-instructions exhausted",
                    self.limits.max_warp_insts
                ),
            });
        }
        if self.trace {
            log::trace!(
                "CTA {cta:?} warp {} +{:#06x} lanes {act:#010x}: {}",
                w.id,
                inst.pc,
                inst.text
            );
        }
        let exec = guard_mask(w, inst.guard, act);
        if inst.control {
            // Control flow may split the warp or make lanes wait: look at every lane next time.
            w.converged = false;
        }
        let code = std::mem::take(&mut self.code);
        let r = self.exec(&code[pc as usize], w, act, exec, pc, cta, shared);
        if self.trace {
            if let (Some(Opnd::R { n, .. }), Some(l)) =
                (self.code_first_op(&code, pc), lanes(exec).next())
            {
                log::trace!("    lane {l}: R{n} = {:#x}", reg(w, l, n));
            }
        }
        self.code = code;
        match r {
            Ok(()) => Ok(true),
            Err(Stop::Msg(m, lane)) => Err(EmuError::Unsupported {
                at: self.at(pc as usize, cta, w, lane),
                why: m,
            }),
            Err(Stop::Fault(m, lane)) => Err(EmuError::Fault {
                at: self.at(pc as usize, cta, w, lane),
                what: m,
            }),
        }
    }

    fn code_first_op(&self, code: &[DInst], pc: u32) -> Option<Opnd> {
        code.get(pc as usize).and_then(|i| i.ops.first().cloned())
    }

    /// One instruction for the lanes `act` at its PC (`exec`: those whose guard holds), handed to
    /// the function of its class; lanes move on to their next PC.
    #[allow(clippy::too_many_arguments)]
    fn exec(
        &mut self,
        i: &DInst,
        w: &mut Warp,
        act: u32,
        exec: u32,
        pc: u32,
        _cta: [u32; 3],
        shared: &mut [u8],
    ) -> Result<(), Stop> {
        match &i.kind {
            Kind::Unsupported(why) => {
                if exec == 0 {
                    advance(w, act);
                    return Ok(());
                }
                return Err(Stop::Msg(why.clone(), None));
            }
            Kind::Nop => advance(w, act),
            Kind::Exit => {
                let running = live_lanes(w);
                self.exec_branch(i, w, act, exec, pc)?;
                self.cluster_exit(w, running & !live_lanes(w));
            }
            Kind::Bra | Kind::BraDiv | Kind::BraConv | Kind::Call | Kind::Brx | Kind::Ret => {
                self.exec_branch(i, w, act, exec, pc)?
            }
            Kind::Bssy
            | Kind::Bsync
            | Kind::Break
            | Kind::Bmov { .. }
            | Kind::Warpsync
            | Kind::Bar { .. }
            | Kind::B2r => self.exec_convergence(i, w, act, exec)?,
            Kind::Qspc(want) => {
                self.qspc(i, w, exec, *want)?;
                advance(w, act);
            }
            Kind::Ld { space, w: wd } => {
                let fast = *space == Space::Shared
                    && self.lds_fast(i, w, exec, wd.bytes, shared).is_some();
                if !fast {
                    self.ld(i, w, exec, *space, *wd, shared)?;
                }
                advance(w, act);
            }
            Kind::St { space, w: wd } => {
                let fast = *space == Space::Shared
                    && self.sts_fast(i, w, exec, wd.bytes, shared).is_some();
                if !fast {
                    self.st(i, w, exec, *space, *wd, shared)?;
                }
                advance(w, act);
            }
            Kind::Atom {
                space,
                op,
                ty,
                red,
                popc_inc,
            } => {
                self.atom(i, w, exec, *space, *op, *ty, *red, *popc_inc, shared)?;
                advance(w, act);
            }
            Kind::Shfl(mode) => {
                self.shfl(i, w, exec, *mode)
                    .map_err(|m| Stop::Msg(m, None))?;
                advance(w, act);
            }
            Kind::Vote { mode, uniform } => {
                self.vote(i, w, exec, *mode, *uniform)
                    .map_err(|m| Stop::Msg(m, None))?;
                advance(w, act);
            }
            Kind::Match { all, wide } => {
                self.match_(i, w, exec, *all, *wide)
                    .map_err(|m| Stop::Msg(m, None))?;
                advance(w, act);
            }
            Kind::Mma(_)
            | Kind::Gmma(_)
            | Kind::Ldsm { .. }
            | Kind::Stsm { .. }
            | Kind::Ldgsts { .. }
            | Kind::Ldgdepbar
            | Kind::DepbarLdgsts => {
                self.exec_matrix(i, w, exec, shared)?;
                advance(w, act);
            }
            Kind::Elect
            | Kind::MbarInit
            | Kind::MbarArrive { .. }
            | Kind::MbarTest
            | Kind::MbarInval
            | Kind::Tma { .. }
            | Kind::BulkCopy { .. } => {
                self.exec_tma(i, w, exec, shared)?;
                advance(w, act);
            }
            Kind::Setmaxreg => {
                // `USETMAXREG.TRY_ALLOC.CTAPOOL UPd, n`: the allocation succeeds.
                if let (Some(p @ Opnd::Up { .. }), Some(l)) = (i.ops.first(), lanes(exec).next()) {
                    self.wp(w, l, p, true).map_err(|m| Stop::Msg(m, Some(l)))?;
                }
                advance(w, act);
            }
            Kind::ClusterArrive | Kind::ClusterWait | Kind::StAsync { .. } => {
                self.exec_cluster(i, w, exec, shared)?;
                advance(w, act);
            }
            Kind::Redux { op, signed } => {
                self.redux(i, w, exec, *op, *signed)
                    .map_err(|m| Stop::Msg(m, None))?;
                advance(w, act);
            }
            _ => {
                if i.uniform {
                    if let Some(l) = lanes(exec).next() {
                        self.alu(i, w, l).map_err(|m| Stop::Msg(m, Some(l)))?;
                    }
                } else if let Some(r) = self.alu_warp(&i.kind, &i.ops, w, exec) {
                    r.map_err(|m| Stop::Msg(m, None))?;
                } else {
                    for l in lanes(exec) {
                        self.alu(i, w, l).map_err(|m| Stop::Msg(m, Some(l)))?;
                    }
                }
                advance(w, act);
            }
        }
        Ok(())
    }

    // ---- operands ----

    /// Refuses reads of `slots` (constant-bank bytes whose relocation the loader could not
    /// resolve).
    pub fn refuse_constant_slots(&mut self, slots: &[UnresolvedSlot]) {
        self.unresolved_slots = slots.to_vec();
    }

    /// The reason a read of `bytes` bytes at `c[bank][off]` is refused, if it is.
    fn unresolved_at(&self, bank: u8, off: usize, bytes: usize) -> Option<String> {
        self.unresolved_slots
            .iter()
            .find(|s| s.overlaps(bank, off, bytes))
            .map(|s| {
                format!(
                    "c[{bank:#x}][{off:#x}] holds no address the emulator can give: {}",
                    s.why
                )
            })
    }

    fn cload(&self, bank: u8, off: i64, bytes: usize) -> R<u64> {
        if let Some(why) = self.unresolved_at(bank, off.max(0) as usize, bytes) {
            return Err(why);
        }
        let b = self
            .cbanks
            .get(&bank)
            .ok_or_else(|| format!("constant bank {bank} is not defined by the cubin"))?;
        if off < 0 || off as usize + bytes > b.len() {
            // Reads past the bank's contents return zero (the bank is 64 KiB).
            if off >= 0 && (off as usize) + bytes <= 0x10000 {
                let mut v = 0u64;
                for k in 0..bytes {
                    v |= u64::from(*b.get(off as usize + k).unwrap_or(&0)) << (8 * k);
                }
                return Ok(v);
            }
            return Err(format!(
                "constant access c[{bank:#x}][{off:#x}] out of range"
            ));
        }
        let mut v = 0u64;
        for k in 0..bytes {
            v |= u64::from(b[off as usize + k]) << (8 * k);
        }
        Ok(v)
    }

    fn special(&self, w: &Warp, l: usize, s: Special) -> u32 {
        match s {
            Special::Tid(a) => w.tid[l][a as usize],
            Special::Ctaid(a) => self.cur_cta[a as usize],
            Special::LaneId => l as u32,
            Special::LaneMask(k) => {
                let bit = 1u64 << l;
                (match k {
                    0 => bit,
                    1 => bit - 1,
                    2 => (bit << 1) - 1,
                    3 => !((bit << 1) - 1),
                    _ => !(bit - 1),
                }) as u32
            }
            Special::Clock(hi) => {
                if hi {
                    (w.insts >> 32) as u32
                } else {
                    w.insts as u32
                }
            }
            Special::GlobalTimer(hi) => {
                let t = w.insts * 32;
                if hi {
                    (t >> 32) as u32
                } else {
                    t as u32
                }
            }
            Special::Zero => 0,
            Special::ClusterCtaRank => {
                let c = &self.shape.cluster;
                c.value(ClusterSreg::CtaRank, self.cur_cta, self.shape.grid) as u32
            }
            Special::SwinHi => (SHARED_BASE >> 32) as u32,
            Special::WarpId => w.id,
        }
    }

    /// The `bytes` (4 or 8) a constant-bank operand names, at its offset plus its index
    /// register (its selection and decorations not applied).
    fn cread(&self, w: &Warp, l: usize, o: &Opnd, bytes: usize) -> R<u64> {
        let Opnd::C { bank, off, idx, .. } = o else {
            return Err(format!("operand {o:?} is not a constant-bank operand"));
        };
        let base = match idx {
            None => 0,
            Some((false, r)) => i64::from(reg(w, l, *r) as i32),
            Some((true, r)) => i64::from(ureg(w, *r) as i32),
        };
        self.cload(*bank, off + base, bytes)
    }

    /// The 32-bit word a constant-bank operand names ([`Machine::cread`]).
    fn cword(&self, w: &Warp, l: usize, o: &Opnd) -> R<u32> {
        Ok(self.cread(w, l, o, 4)? as u32)
    }

    /// Raw 32-bit value of an operand (selection applied, decorations not).
    fn raw(&self, w: &Warp, l: usize, o: &Opnd) -> R<u32> {
        Ok(match o {
            Opnd::R { n, sel, .. } => apply_sel(reg(w, l, *n), *sel),
            Opnd::Ur { n, .. } => ureg(w, *n),
            Opnd::Imm(v) => *v as u32,
            Opnd::FImm(f) => (*f as f32).to_bits(),
            Opnd::C { sel, .. } => apply_sel(self.cword(w, l, o)?, *sel),
            Opnd::Sr(s) => self.special(w, l, *s),
            Opnd::Srz => 0,
            Opnd::P { .. } | Opnd::Up { .. } => u32::from(self.pred(w, l, o)?),
            other => return Err(format!("operand {other:?} where a value is needed")),
        })
    }

    /// Integer value: `~` is bitwise not, `-` two's complement negation, `|x|` absolute value.
    fn rd(&self, w: &Warp, l: usize, o: &Opnd) -> R<u32> {
        let v = self.raw(w, l, o)?;
        let (neg, abs, not) = decor(o);
        let mut v = if abs { (v as i32).unsigned_abs() } else { v };
        if not {
            v = !v;
        }
        if neg {
            v = v.wrapping_neg();
        }
        Ok(v)
    }

    /// f32 value: `-` flips and `|x|` clears the sign.
    fn rf(&self, w: &Warp, l: usize, o: &Opnd) -> R<u32> {
        let v = self.raw(w, l, o)?;
        Ok(fdecor(v, o, 0x8000_0000))
    }

    /// 64-bit value of a register pair, constant or f64 immediate (`-`/`|x|` as f64 signs when
    /// `float`).
    fn rd64(&self, w: &Warp, l: usize, o: &Opnd, float: bool) -> R<u64> {
        let v = match o {
            Opnd::R { n, .. } => {
                if *n == RZ {
                    0
                } else {
                    u64::from(reg(w, l, *n)) | u64::from(reg(w, l, n.wrapping_add(1))) << 32
                }
            }
            Opnd::Ur { n, .. } => {
                if *n == URZ {
                    0
                } else {
                    u64::from(ureg(w, *n)) | u64::from(ureg(w, n + 1)) << 32
                }
            }
            Opnd::C { sel: Sel::All, .. } => self.cread(w, l, o, 8)?,
            Opnd::FImm(f) => f.to_bits(),
            Opnd::Imm(v) => {
                if float {
                    // A hex immediate of a double instruction gives the high word.
                    (*v as u64) << 32
                } else {
                    *v as u64
                }
            }
            Opnd::Srz => 0,
            other => return Err(format!("operand {other:?} where a 64-bit value is needed")),
        };
        if float {
            let (neg, abs, _) = decor(o);
            let mut v = v;
            if abs {
                v &= !(1 << 63);
            }
            if neg {
                v ^= 1 << 63;
            }
            Ok(v)
        } else {
            Ok(v)
        }
    }

    fn pred(&self, w: &Warp, l: usize, o: &Opnd) -> R<bool> {
        match o {
            Opnd::P { n, not } => Ok((w.preds[l] >> n & 1 == 1) != *not),
            Opnd::Up { n, not } => Ok((w.up >> n & 1 == 1) != *not),
            // `R2.SIGN`: the register's sign bit as a predicate (`PLOP3`).
            Opnd::R {
                n,
                not,
                sel: Sel::Sign,
                ..
            } => Ok((reg(w, l, *n) >> 31 == 1) != *not),
            other => Err(format!("operand {other:?} where a predicate is needed")),
        }
    }

    fn wr(&self, w: &mut Warp, l: usize, o: &Opnd, v: u32) -> R<()> {
        match o {
            Opnd::R { n, .. } => set(w, l, *n, v),
            Opnd::Ur { n, .. } => {
                if *n != URZ {
                    w.ur[*n as usize] = v;
                }
            }
            other => return Err(format!("destination {other:?}")),
        }
        Ok(())
    }

    fn wr64(&self, w: &mut Warp, l: usize, o: &Opnd, v: u64) -> R<()> {
        match o {
            Opnd::R { n, .. } => {
                if *n != RZ {
                    set(w, l, *n, v as u32);
                    set(w, l, n.wrapping_add(1), (v >> 32) as u32);
                }
            }
            Opnd::Ur { n, .. } => {
                if *n != URZ && *n < 63 {
                    w.ur[*n as usize] = v as u32;
                    w.ur[*n as usize + 1] = (v >> 32) as u32;
                }
            }
            other => return Err(format!("destination {other:?}")),
        }
        Ok(())
    }

    fn wp(&self, w: &mut Warp, l: usize, o: &Opnd, v: bool) -> R<()> {
        match o {
            Opnd::P { n, .. } => set_p(w, l, *n, v),
            Opnd::Up { n, .. } => {
                if *n != PT {
                    if v {
                        w.up |= 1 << n;
                    } else {
                        w.up &= !(1 << n);
                    }
                }
            }
            other => return Err(format!("predicate destination {other:?}")),
        }
        Ok(())
    }

    // ---- whole-warp operand access (warp_alu.rs) ----

    /// An operand's value for every lane of `exec` (`float`: `-`/`|x|` act on the f32 sign).
    #[inline(always)]
    pub(crate) fn vals(&self, w: &Warp, exec: u32, o: &Opnd, float: bool) -> R<Lanes> {
        // The common case, a plain register, inline in the caller (no copy through the result).
        if let Opnd::R {
            n,
            sel: Sel::All,
            neg: false,
            abs: false,
            not: false,
        } = o
        {
            let n = *n as usize;
            if n != RZ as usize && n < w.nr {
                let mut v: Lanes = [0; 32];
                v.copy_from_slice(&w.regs[32 * n..32 * n + 32]);
                return Ok(v);
            }
        }
        self.vals_general(w, exec, o, float)
    }

    /// [`Machine::vals`] for every operand form.
    fn vals_general(&self, w: &Warp, exec: u32, o: &Opnd, float: bool) -> R<Lanes> {
        let mut v: Lanes = [0; 32];
        let (neg, abs, not) = decor(o);
        let fix = |x: u32| -> u32 {
            if float {
                let mut x = x;
                if abs {
                    x &= 0x7fff_ffff;
                }
                if neg {
                    x ^= 0x8000_0000;
                }
                x
            } else {
                let mut x = if abs { (x as i32).unsigned_abs() } else { x };
                if not {
                    x = !x;
                }
                if neg {
                    x = x.wrapping_neg();
                }
                x
            }
        };
        match o {
            Opnd::R { n, sel, .. } => {
                if *n == RZ {
                    v = [fix(0); 32];
                } else if (*n as usize) < w.nr {
                    let n = *n as usize;
                    let row = &w.regs[32 * n..32 * n + 32];
                    if *sel == Sel::All && !neg && !abs && !not {
                        v.copy_from_slice(row);
                    } else {
                        for (x, r) in v.iter_mut().zip(row) {
                            *x = fix(apply_sel(*r, *sel));
                        }
                    }
                } else {
                    let z = fix(0);
                    v = [z; 32];
                }
            }
            Opnd::Ur { .. } | Opnd::Imm(_) | Opnd::FImm(_) | Opnd::C { idx: None, .. } => {
                let l0 = lanes(exec).next().unwrap_or(0);
                v = [fix(self.raw(w, l0, o)?); 32];
            }
            _ => {
                for l in lanes(exec) {
                    v[l] = fix(self.raw(w, l, o)?);
                }
            }
        }
        Ok(v)
    }

    /// A 64-bit operand as (low, high) words per lane.
    pub(crate) fn vals64(&self, w: &Warp, exec: u32, o: &Opnd) -> R<(Lanes, Lanes)> {
        let (mut lo, mut hi): (Lanes, Lanes) = ([0; 32], [0; 32]);
        match o {
            // The common cases without a per-lane read (same values as `rd64`).
            Opnd::R { n: RZ, .. } => return Ok((lo, hi)),
            Opnd::R { n, .. } if (*n as usize) + 1 < w.nr => {
                let n = *n as usize;
                lo.copy_from_slice(&w.regs[32 * n..32 * n + 32]);
                hi.copy_from_slice(&w.regs[32 * n + 32..32 * n + 64]);
                return Ok((lo, hi));
            }
            Opnd::Ur { .. } | Opnd::Imm(_) | Opnd::C { idx: None, .. } => {
                let x = self.rd64(w, lanes(exec).next().unwrap_or(0), o, false)?;
                return Ok(([x as u32; 32], [(x >> 32) as u32; 32]));
            }
            _ => {}
        }
        for l in lanes(exec) {
            let x = self.rd64(w, l, o, false)?;
            lo[l] = x as u32;
            hi[l] = (x >> 32) as u32;
        }
        Ok((lo, hi))
    }

    /// The lanes of `exec` where predicate operand `o` holds.
    pub(crate) fn pmask(&self, w: &Warp, exec: u32, o: &Opnd) -> R<u32> {
        if let Opnd::P { n, not } = o {
            let mut m = 0u32;
            for (l, p) in w.preds.iter().enumerate() {
                m |= u32::from((p >> n & 1 == 1) != *not) << l;
            }
            return Ok(m & exec);
        }
        let mut m = 0;
        for l in lanes(exec) {
            if self.pred(w, l, o)? {
                m |= 1 << l;
            }
        }
        Ok(m)
    }

    /// Writes a register destination for the lanes of `exec`.
    #[inline]
    pub(crate) fn wvals(&self, w: &mut Warp, exec: u32, o: &Opnd, v: &Lanes) -> R<()> {
        match o {
            Opnd::R { n, .. } => {
                if *n == RZ {
                    return Ok(());
                }
                if *n as usize >= w.nr {
                    set(w, 0, *n, reg(w, 0, *n));
                }
                let n = *n as usize;
                let row = &mut w.regs[32 * n..32 * n + 32];
                if exec == u32::MAX {
                    row.copy_from_slice(v);
                } else {
                    for l in lanes(exec) {
                        row[l] = v[l];
                    }
                }
                Ok(())
            }
            other => {
                for l in lanes(exec) {
                    self.wr(w, l, other, v[l])?;
                }
                Ok(())
            }
        }
    }

    /// Writes a register pair destination.
    pub(crate) fn wpair(&self, w: &mut Warp, exec: u32, o: &Opnd, lo: &Lanes, hi: &Lanes) -> R<()> {
        let Opnd::R { n, .. } = o else {
            return Err(format!("destination {o:?}"));
        };
        if *n == RZ {
            return Ok(());
        }
        let hi_reg = Opnd::R {
            n: n.wrapping_add(1),
            neg: false,
            abs: false,
            not: false,
            sel: Sel::All,
        };
        self.wvals(w, exec, o, lo)?;
        self.wvals(w, exec, &hi_reg, hi)
    }

    /// Writes a predicate destination: bit `l` of `m` for each lane of `exec`.
    pub(crate) fn wpmask(&self, w: &mut Warp, exec: u32, o: &Opnd, m: u32) -> R<()> {
        if let Opnd::P { n, .. } = o {
            if *n == PT {
                return Ok(());
            }
            // Branch-free over all lanes: lanes outside `exec` keep their bit.
            let bit = 1u8 << n;
            for (l, p) in w.preds.iter_mut().enumerate() {
                let keep = *p & !bit | (((m >> l) & 1) as u8) << n;
                *p = if exec >> l & 1 == 1 { keep } else { *p };
            }
            return Ok(());
        }
        for l in lanes(exec) {
            self.wp(w, l, o, m >> l & 1 == 1)?;
        }
        Ok(())
    }

    // ---- the datapath ----

    /// One datapath instruction for lane `l`, handed to the function of its class.
    fn alu(&mut self, i: &DInst, w: &mut Warp, l: usize) -> R<()> {
        match &i.kind {
            Kind::Mov | Kind::S2r { .. } | Kind::Ldc { .. } | Kind::Sel | Kind::P2r | Kind::R2p => {
                self.alu_move(i, w, l)
            }
            Kind::Isetp { .. } | Kind::Fsetp { .. } | Kind::Fset { .. } | Kind::Plop3 => {
                self.alu_compare(i, w, l)
            }
            Kind::Imad { .. }
            | Kind::Iadd3 { .. }
            | Kind::Iadd64
            | Kind::Viadd
            | Kind::Lea { .. }
            | Kind::Iabs
            | Kind::Imnmx { .. }
            | Kind::Viaddmnmx { .. }
            | Kind::Idp { .. } => self.alu_int(i, w, l),
            Kind::Lop3
            | Kind::Shf { .. }
            | Kind::Prmt
            | Kind::Popc
            | Kind::Flo { .. }
            | Kind::Brev
            | Kind::Sgxt { .. }
            | Kind::Bmsk { .. }
            | Kind::PrmtMode(_) => self.alu_bits(i, w, l),
            Kind::Fadd(_)
            | Kind::Fmul(_)
            | Kind::Ffma(_)
            | Kind::Fmnmx { .. }
            | Kind::Dadd(_)
            | Kind::Dmul(_)
            | Kind::Dfma(_)
            | Kind::Fchk
            | Kind::Mufu(_)
            | Kind::Frnd { .. } => self.alu_float(i, w, l),
            Kind::F2i { .. }
            | Kind::I2f { .. }
            | Kind::F2f { .. }
            | Kind::F2fp { .. }
            | Kind::F2fpFp8 { .. } => self.alu_convert(i, w, l),
            Kind::H2 { .. } | Kind::Hmnmx2 { .. } | Kind::Hset2 { .. } => self.alu_half(i, w, l),
            other => Err(format!("{other:?} is not an ALU instruction")),
        }
    }

    /// A half-precision operand: `.H0_H0`/`.H1_H1` selections, `-`/`|x|` per half; immediates
    /// are printed as two halves (high first), which the parser gives as consecutive float
    /// immediates — handled by [`Machine::alu`] callers through `FImm` pairs being absent here
    /// (nvdisasm prints `HFMA2.MMA R3, -RZ, RZ, 1.875, 0`: the last two tokens are one operand).
    fn rh(&self, w: &Warp, l: usize, o: &Opnd) -> R<u32> {
        // A selected half goes to both halves (`R2.H1`, `c[0x0][0x178].H0_H0`).
        let broadcast = |r: u32, sel: Sel| match sel {
            Sel::H0H0 | Sel::H(0) => (r & 0xffff) * 0x1_0001,
            Sel::H1H1 | Sel::H(1) => (r >> 16) * 0x1_0001,
            _ => r,
        };
        let v = match o {
            Opnd::R { n, sel, .. } => broadcast(reg(w, l, *n), *sel),
            Opnd::C { sel, .. } => broadcast(self.cword(w, l, o)?, *sel),
            Opnd::FImm(f) => {
                let h = float::from_f64(*f, F16, Rnd::Rn) as u32 & 0xffff;
                h * 0x1_0001
            }
            other => self.raw(w, l, other)?,
        };
        Ok(fdecor(v, o, 0x8000_8000))
    }

    // ---- memory ----

    fn addr(&self, w: &Warp, l: usize, a: &Addr, space: Space) -> u64 {
        let mut v: u64 = 0;
        // Global and generic accesses (`.E`) always use a 64-bit register pair; nvdisasm prints
        // `.64` for loads and stores but not for atomics.
        let wide = a.wide || matches!(space, Space::Global | Space::Generic);
        if let Some(r) = a.reg {
            if r != RZ {
                let lo = u64::from(reg(w, l, r));
                v = if wide {
                    lo | u64::from(reg(w, l, r.wrapping_add(1))) << 32
                } else {
                    lo
                };
                v = v.wrapping_mul(u64::from(a.scale));
            }
        }
        if let Some(u) = a.ureg {
            if u != URZ {
                let uv = if a.uwide {
                    ureg_pair(w, u)
                } else {
                    u64::from(ureg(w, u))
                };
                v = v.wrapping_add(uv);
            }
        }
        v.wrapping_add(a.off as u64)
    }

    /// Resolves an address of `space` for lane `l` to (space, offset) with generic addresses
    /// classified by window; checks bounds and alignment. A shared address naming another CTA
    /// of the cluster is refused (see [`Machine::locate_in_cluster`]).
    fn locate(
        &self,
        w: &Warp,
        l: usize,
        space: Space,
        addr: u64,
        bytes: u32,
        shared_len: usize,
    ) -> Result<(Space, u64), String> {
        // Without `peer_ok` an address naming another CTA is an error, so no rank comes back.
        let (sp, _, a) = self.locate_in_cluster(w, l, space, addr, bytes, shared_len, false)?;
        Ok((sp, a))
    }

    /// [`Machine::locate`], and where `peer_ok` the shared memory of another CTA of the cluster
    /// too: (space, the CTA's rank when it is not this one, offset).
    #[allow(clippy::too_many_arguments)]
    fn locate_in_cluster(
        &self,
        w: &Warp,
        l: usize,
        space: Space,
        addr: u64,
        bytes: u32,
        shared_len: usize,
        peer_ok: bool,
    ) -> Result<(Space, Option<u32>, u64), String> {
        let (sp, a) = match space {
            Space::Generic => generic_window(addr),
            Space::Shared | Space::Local => (space, addr & 0xffff_ffff),
            Space::Global => (Space::Global, addr),
            Space::Const => (Space::Const, addr),
        };
        let (peer, a) = match sp {
            Space::Shared => self.cluster_shared(a, peer_ok)?,
            _ => (None, a),
        };
        if a % u64::from(bytes) != 0 {
            return Err(format!(
                "misaligned {} access of {bytes} bytes at {a:#x}",
                space_name(sp)
            ));
        }
        let len = match sp {
            Space::Shared => shared_len as u64,
            Space::Local => self.local_size as u64,
            _ => u64::MAX,
        };
        if !matches!(sp, Space::Global | Space::Const) && a + u64::from(bytes) > len {
            return Err(format!(
                "out-of-bounds {} access of {bytes} bytes at {a:#x} (the area is {len} bytes)",
                space_name(sp)
            ));
        }
        let _ = (w, l);
        Ok((sp, peer, a))
    }

    /// The `n` bytes at offset `a` of space `sp` (located by [`Machine::locate_in_cluster`]; `peer`:
    /// the rank of another CTA of the cluster whose shared memory it is).
    #[allow(clippy::too_many_arguments)]
    fn bytes_of<'m>(
        &'m mut self,
        w: &'m mut Warp,
        l: usize,
        (sp, peer, a): (Space, Option<u32>, u64),
        n: u32,
        shared: &'m mut [u8],
    ) -> Result<&'m mut [u8], String> {
        match (sp, peer) {
            (Space::Shared, Some(rank)) => {
                let s = self.cluster.peer_shared(rank)?;
                Ok(&mut s[a as usize..a as usize + n as usize])
            }
            (Space::Global, _) => {
                let (idx, off) = self.global.locate(a, n).map_err(|f| f.to_string())?;
                let d = &mut self.global.allocs[idx as usize].data;
                Ok(&mut d[off as usize..off as usize + n as usize])
            }
            (Space::Shared, None) => Ok(&mut shared[a as usize..a as usize + n as usize]),
            (Space::Local, _) => {
                let base = l * self.local_size + a as usize;
                Ok(&mut w.local[base..base + n as usize])
            }
            (Space::Const, _) => {
                let (bank, off) = const_bank_offset(a);
                if let Some(why) = self.unresolved_at(bank, off, n as usize) {
                    return Err(why);
                }
                let d = self
                    .cbanks
                    .get_mut(&bank)
                    .ok_or_else(|| format!("generic address {a:#x} of constant bank {bank}, which the kernel does not have"))?;
                let len = d.len();
                d.get_mut(off..off + n as usize).ok_or_else(|| {
                    format!(
                        "out-of-bounds access of {n} bytes at c[{bank:#x}][{off:#x}] through a \
                         generic address (the bank is {len} bytes)"
                    )
                })
            }
            (Space::Generic, _) => Err("unresolved generic address".into()),
        }
    }

    /// [`Machine::bytes_of`] for a store or an atomic: constant memory is read-only.
    #[allow(clippy::too_many_arguments)]
    fn writable_bytes_of<'m>(
        &'m mut self,
        w: &'m mut Warp,
        l: usize,
        at: (Space, Option<u32>, u64),
        n: u32,
        shared: &'m mut [u8],
    ) -> Result<&'m mut [u8], String> {
        if at.0 == Space::Const {
            let (bank, off) = const_bank_offset(at.2);
            return Err(format!(
                "write of {n} bytes to constant memory (c[{bank:#x}][{off:#x}]) through a \
                 generic address"
            ));
        }
        self.bytes_of(w, l, at, n, shared)
    }

    /// `QSPC`: per lane, whether the generic address lies in space `want`'s window (global:
    /// neither the shared nor the local window; the constant window counts as global, as it
    /// lies in global memory on the hardware, and ptxas's code compares with its base itself).
    fn qspc(&mut self, i: &DInst, w: &mut Warp, exec: u32, want: Space) -> Result<(), Stop> {
        let (Some(d), Some(Opnd::Mem(a))) = (i.ops.first(), i.ops.get(2)) else {
            return Err(Stop::Msg("QSPC operands".into(), None));
        };
        for l in lanes(exec) {
            let space = match generic_window(self.addr(w, l, a, Space::Generic)).0 {
                Space::Const => Space::Global,
                s => s,
            };
            self.wp(w, l, d, space == want)
                .map_err(|m| Stop::Msg(m, Some(l)))?;
        }
        Ok(())
    }

    fn ld(
        &mut self,
        i: &DInst,
        w: &mut Warp,
        exec: u32,
        space: Space,
        wd: Width,
        shared: &mut [u8],
    ) -> Result<(), Stop> {
        let (Some(d), Some(Opnd::Mem(a))) = (i.ops.first(), i.ops.get(1)) else {
            return Err(Stop::Msg("load operands".into(), None));
        };
        // ptxas reaches another CTA's shared memory through generic addresses.
        let peer_ok = space == Space::Generic;
        let mut addrs = [0u64; 32];
        for l in lanes(exec) {
            let raw = self.addr(w, l, a, space);
            let at = self
                .locate_in_cluster(w, l, space, raw, wd.bytes, shared.len(), peer_ok)
                .map_err(|m| Stop::Fault(m, Some(l)))?;
            addrs[l] = raw;
            let mut buf = [0u8; 16];
            let n = wd.bytes as usize;
            buf[..n].copy_from_slice(
                self.bytes_of(w, l, at, wd.bytes, shared)
                    .map_err(|m| Stop::Fault(m, Some(l)))?,
            );
            let Opnd::R { n: rd, .. } = d else {
                return Err(Stop::Msg("load destination".into(), None));
            };
            if n < 4 {
                let v = ext(
                    u64::from_le_bytes(buf[..8].try_into().unwrap_or([0; 8])),
                    n as u32,
                    wd.signed,
                );
                set(w, l, *rd, v);
            } else if *rd != RZ {
                for k in 0..n / 4 {
                    let v = u32::from_le_bytes([
                        buf[4 * k],
                        buf[4 * k + 1],
                        buf[4 * k + 2],
                        buf[4 * k + 3],
                    ]);
                    set(w, l, rd.wrapping_add(k as u8), v);
                }
            }
        }
        self.access(space, &addrs, exec, wd.bytes, true);
        Ok(())
    }

    fn st(
        &mut self,
        i: &DInst,
        w: &mut Warp,
        exec: u32,
        space: Space,
        wd: Width,
        shared: &mut [u8],
    ) -> Result<(), Stop> {
        let (Some(Opnd::Mem(a)), Some(src)) = (i.ops.first(), i.ops.get(1)) else {
            return Err(Stop::Msg("store operands".into(), None));
        };
        // ptxas reaches another CTA's shared memory through generic addresses.
        let peer_ok = space == Space::Generic;
        let mut addrs = [0u64; 32];
        for l in lanes(exec) {
            let raw = self.addr(w, l, a, space);
            let at = self
                .locate_in_cluster(w, l, space, raw, wd.bytes, shared.len(), peer_ok)
                .map_err(|m| Stop::Fault(m, Some(l)))?;
            addrs[l] = raw;
            let n = wd.bytes as usize;
            let mut buf = [0u8; 16];
            match src {
                Opnd::R { n: rs, .. } => {
                    for k in 0..n.div_ceil(4) {
                        let v = if *rs == RZ {
                            0
                        } else {
                            reg(w, l, rs.wrapping_add(k as u8))
                        };
                        buf[4 * k..4 * k + 4].copy_from_slice(&v.to_le_bytes());
                    }
                }
                other => {
                    let v = self.rd(w, l, other).map_err(|m| Stop::Msg(m, Some(l)))?;
                    buf[..4].copy_from_slice(&v.to_le_bytes());
                }
            }
            self.writable_bytes_of(w, l, at, wd.bytes, shared)
                .map_err(|m| Stop::Fault(m, Some(l)))?
                .copy_from_slice(&buf[..n]);
        }
        self.access(space, &addrs, exec, wd.bytes, false);
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn atom(
        &mut self,
        i: &DInst,
        w: &mut Warp,
        exec: u32,
        space: Space,
        op: AtomOp,
        ty: AtomTy,
        red: bool,
        popc_inc: bool,
        shared: &mut [u8],
    ) -> Result<(), Stop> {
        // ATOMG: [Pout,] d, [addr], b [, c];  RED: [addr], b;  ATOMS.POPC.INC.32 d, [addr]
        // (each executing lane adds 1: the warp-aggregated increment).
        let o = &i.ops;
        let mut k = 0;
        // `ATOM … Pout, …` (a generic float atomic ptxas follows with `@Pout EXIT` and, where
        // Pout is false, software paths for shared and local addresses): Pout says the atomic
        // was performed. This emulator performs it in every space, so Pout is true on every
        // executing lane and the fallback — the same operation — is not run a second time.
        let performed = match o.first() {
            Some(p @ Opnd::P { .. }) => {
                k = 1;
                Some(p.clone())
            }
            _ => None,
        };
        let dst = if red {
            None
        } else {
            let d = o.get(k).cloned();
            k += 1;
            d
        };
        let Some(Opnd::Mem(a)) = o.get(k) else {
            return Err(Stop::Msg("atomic address".into(), None));
        };
        let wide = matches!(ty, AtomTy::U64 | AtomTy::S64 | AtomTy::F64);
        if wide && op == AtomOp::CasSpin {
            return Err(Stop::Msg(
                "ATOMS.CAST.SPIN.64 (its result register is not known)".into(),
                None,
            ));
        }
        let bytes = if wide { 8 } else { 4 };
        let bo = if popc_inc {
            Opnd::Imm(1)
        } else {
            o.get(k + 1)
                .cloned()
                .ok_or(Stop::Msg("atomic operand".into(), None))?
        };
        let co = o.get(k + 2).cloned();
        // ptxas reaches another CTA's shared memory through generic addresses.
        let peer_ok = space == Space::Generic;
        let mut addrs = [0u64; 32];
        for l in lanes(exec) {
            let raw = self.addr(w, l, a, space);
            let at = self
                .locate_in_cluster(w, l, space, raw, bytes, shared.len(), peer_ok)
                .map_err(|m| Stop::Fault(m, Some(l)))?;
            addrs[l] = raw;
            let rd = |s: &Self, w: &Warp, x: &Opnd| -> Result<u64, Stop> {
                if wide {
                    s.rd64(w, l, x, false).map_err(|m| Stop::Msg(m, Some(l)))
                } else {
                    s.rd(w, l, x)
                        .map(u64::from)
                        .map_err(|m| Stop::Msg(m, Some(l)))
                }
            };
            let b = rd(self, w, &bo)?;
            let c = match (&co, op) {
                (Some(c), AtomOp::Cas | AtomOp::CasSpin) => rd(self, w, c)?,
                (None, AtomOp::Cas | AtomOp::CasSpin) => {
                    return Err(Stop::Msg("CAS without new value".into(), None))
                }
                _ => 0,
            };
            let cell = self
                .writable_bytes_of(w, l, at, bytes, shared)
                .map_err(|m| Stop::Fault(m, Some(l)))?;
            let mut old = 0u64;
            for (j, byte) in cell.iter().enumerate() {
                old |= u64::from(*byte) << (8 * j);
            }
            let new = atom_op(op, ty, old, b, c);
            for (j, byte) in cell.iter_mut().enumerate() {
                *byte = (new >> (8 * j)) as u8;
            }
            if let Some(p) = &performed {
                self.wp(w, l, p, true).map_err(|m| Stop::Msg(m, Some(l)))?;
            }
            if let Some(d) = &dst {
                if op == AtomOp::CasSpin {
                    // 1 where the store happened (the loop's exit test), else 0.
                    let stored = u32::from(old == b);
                    self.wr(w, l, d, stored)
                        .map_err(|m| Stop::Msg(m, Some(l)))?;
                } else if wide {
                    self.wr64(w, l, d, old).map_err(|m| Stop::Msg(m, Some(l)))?;
                } else {
                    self.wr(w, l, d, old as u32)
                        .map_err(|m| Stop::Msg(m, Some(l)))?;
                }
            }
        }
        self.access_atomic(space, &addrs, exec, bytes);
        Ok(())
    }

    // ---- warp collectives ----

    fn shfl(&mut self, i: &DInst, w: &mut Warp, exec: u32, mode: Shfl) -> R<()> {
        // SHFL.mode Pout, d, a, b, c
        let o = &i.ops;
        let (po, d, a, b, c) = match o.as_slice() {
            [p, d, a, b, c] => (p, d, a, b, c),
            _ => return Err("SHFL operands".into()),
        };
        // Every lane's source value (lanes not taking part give their current register value).
        let src = self.vals(w, u32::MAX, a, false)?;
        let bvals = self.vals(w, exec, b, false)?;
        let cvals = self.vals(w, exec, c, false)?;
        let mut out: Lanes = [0; 32];
        let mut okm = 0u32;
        for l in lanes(exec) {
            let (bv, cv) = (bvals[l], cvals[l]);
            let clamp = cv & 0x1f;
            let seg = (cv >> 8) & 0x1f;
            let lane = l as u32;
            let min = lane & seg;
            let max = min | (clamp & !seg);
            let (j, ok) = match mode {
                Shfl::Up => {
                    let j = lane as i32 - (bv & 0x1f) as i32;
                    (j, j >= min as i32)
                }
                Shfl::Down => {
                    let j = lane + (bv & 0x1f);
                    (j as i32, j <= max)
                }
                Shfl::Bfly => {
                    let j = lane ^ (bv & 0x1f);
                    (j as i32, j <= max)
                }
                Shfl::Idx => {
                    let j = min | ((bv & 0x1f) & !seg);
                    (j as i32, j <= max)
                }
            };
            let from = if ok { j as usize } else { l };
            out[l] = src[from];
            okm |= u32::from(ok) << l;
        }
        self.wvals(w, exec, d, &out)?;
        self.wpmask(w, exec, po, okm)
    }

    fn vote(&mut self, i: &DInst, w: &mut Warp, exec: u32, mode: u8, uniform: bool) -> R<()> {
        // VOTE.mode [Rd,] Pout, Pin   /   VOTEU.mode URd, UPout, Pin
        let o = &i.ops;
        let (d, po, pi) = match o.as_slice() {
            [d, p, q] => (Some(d), p, q),
            [p, q] => (None, p, q),
            _ => return Err("VOTE operands".into()),
        };
        let mut ballot = 0u32;
        for l in lanes(exec) {
            if self.pred(w, l, pi)? {
                ballot |= 1 << l;
            }
        }
        let res = match mode {
            0 => ballot == exec,
            1 => ballot != 0,
            _ => ballot == 0 || ballot == exec,
        };
        if uniform {
            if let Some(l) = lanes(exec).next() {
                if let Some(d) = d {
                    self.wr(w, l, d, ballot)?;
                }
                self.wp(w, l, po, res)?;
            }
        } else {
            for l in lanes(exec) {
                if let Some(d) = d {
                    self.wr(w, l, d, ballot)?;
                }
                self.wp(w, l, po, res)?;
            }
        }
        Ok(())
    }

    /// `MATCH.ANY Rd, Ra`: the executing lanes whose `Ra` equals this lane's;
    /// `MATCH.ALL [Pd,] Rd, Ra`: all executing lanes when they all agree, else 0.
    fn match_(&mut self, i: &DInst, w: &mut Warp, exec: u32, all: bool, wide: bool) -> R<()> {
        let (p, d, a) = match i.ops.as_slice() {
            [p @ Opnd::P { .. }, d, a] => (Some(p), d, a),
            [d, a] => (None, d, a),
            _ => return Err("MATCH operands".into()),
        };
        let mut v = [0u64; 32];
        for l in lanes(exec) {
            v[l] = if wide {
                self.rd64(w, l, a, false)?
            } else {
                u64::from(self.rd(w, l, a)?)
            };
        }
        let first = lanes(exec).next().map_or(0, |l| v[l]);
        let agree = lanes(exec).all(|l| v[l] == first);
        for l in lanes(exec) {
            let r = if all {
                if agree {
                    exec
                } else {
                    0
                }
            } else {
                lanes(exec)
                    .filter(|&j| v[j] == v[l])
                    .fold(0, |m, j| m | 1 << j)
            };
            self.wr(w, l, d, r)?;
            if let Some(p) = p {
                self.wp(w, l, p, agree)?;
            }
        }
        Ok(())
    }

    fn redux(&mut self, i: &DInst, w: &mut Warp, exec: u32, op: u8, signed: bool) -> R<()> {
        let (Some(d), Some(a)) = (i.ops.first(), i.ops.get(1)) else {
            return Err("REDUX operands".into());
        };
        let mut acc: Option<u32> = None;
        for l in lanes(exec) {
            let v = self.rd(w, l, a)?;
            acc = Some(match acc {
                None => v,
                Some(x) => match op {
                    0 => x.wrapping_add(v),
                    1 => imnmx(x, v, true, !signed),
                    2 => imnmx(x, v, false, !signed),
                    3 => x & v,
                    4 => x | v,
                    _ => x ^ v,
                },
            });
        }
        if let (Some(v), Some(l)) = (acc, lanes(exec).next()) {
            if matches!(d, Opnd::Ur { .. }) {
                self.wr(w, l, d, v)?;
            } else {
                for l in lanes(exec) {
                    self.wr(w, l, d, v)?;
                }
            }
        }
        Ok(())
    }
}

/// Whether `k` is a control instruction (see [`DInst::control`]).
fn is_control(k: &Kind) -> bool {
    matches!(
        k,
        Kind::Bra
            | Kind::BraDiv
            | Kind::BraConv
            | Kind::Exit
            | Kind::Call
            | Kind::Brx
            | Kind::Ret
            | Kind::Bssy
            | Kind::Bsync
            | Kind::Break
            | Kind::Bmov { .. }
            | Kind::Warpsync
            | Kind::Bar { .. }
            | Kind::B2r
    )
}

/// The lanes of `w` that have neither exited nor never existed.
fn live_lanes(w: &Warp) -> u32 {
    (0..32)
        .filter(|&l| !matches!(w.st[l], St::Exited | St::Absent))
        .fold(0, |m, l| m | 1 << l)
}

/// Why an instruction stopped the run.
enum Stop {
    Msg(String, Option<usize>),
    Fault(String, Option<usize>),
}

/// The lowest PC among the runnable lanes of `w` and the lanes at it (`u32::MAX`, 0 when none
/// can run). A warp known to be converged (every lane running at one PC: `w.converged`) needs no
/// look at its lanes; the flag is set here and cleared by every control instruction, the only
/// ones that move lanes other than all together.
fn next_lanes(w: &mut Warp) -> (u32, u32) {
    if w.converged {
        return (w.pc[0], u32::MAX);
    }
    let p0 = w.pc[0];
    if w.st.iter().all(|s| *s == St::Run) && w.pc.iter().all(|p| *p == p0) {
        w.converged = true;
        return (p0, u32::MAX);
    }
    let (mut pc, mut act) = (u32::MAX, 0u32);
    for l in 0..32 {
        if w.st[l] == St::Run {
            let p = w.pc[l];
            if p < pc {
                pc = p;
                act = 1 << l;
            } else if p == pc {
                act |= 1 << l;
            }
        }
    }
    (pc, act)
}

/// The lanes of `act` whose guard predicate (uniform?, number, negated) holds.
fn guard_mask(w: &Warp, guard: Option<(bool, u8, bool)>, act: u32) -> u32 {
    match guard {
        None => act,
        Some((true, n, not)) => {
            if (w.up >> n & 1 == 1) != not {
                act
            } else {
                0
            }
        }
        Some((false, n, not)) => {
            let flip = u32::from(not);
            let mut m = 0u32;
            for (l, p) in w.preds.iter().enumerate() {
                m |= ((u32::from(*p) >> n & 1) ^ flip) << l;
            }
            m & act
        }
    }
}

/// Moves the lanes of `m` to their next instruction.
fn advance(w: &mut Warp, m: u32) {
    if m == u32::MAX {
        for p in w.pc.iter_mut() {
            *p += 1;
        }
    } else {
        for l in lanes(m) {
            w.pc[l] += 1;
        }
    }
}

/// The instruction index a branch operand names.
fn branch_target(o: Option<&Opnd>) -> Result<u32, Stop> {
    match o {
        Some(Opnd::Target(t)) => Ok((*t / 16) as u32),
        _ => Err(Stop::Msg("branch without a target".into(), None)),
    }
}

/// Operand `k` of an instruction (errors count operands from 1).
fn operand(o: &[Opnd], k: usize) -> R<&Opnd> {
    o.get(k).ok_or_else(|| format!("missing operand {}", k + 1))
}

/// Whether an operand is a predicate (`P0`, `UP0`, `PT`).
fn is_p(x: &Opnd) -> bool {
    matches!(x, Opnd::P { .. } | Opnd::Up { .. })
}

/// The window a generic address lies in and its offset there: shared, local, the constant
/// window (a `__constant__` variable's generic address, `module_globals::const_address`), or
/// global (everything else).
fn generic_window(addr: u64) -> (Space, u64) {
    let window = |base: u64| (base..base + (1 << 32)).contains(&addr);
    if window(SHARED_BASE) {
        (Space::Shared, addr - SHARED_BASE)
    } else if window(LOCAL_BASE) {
        (Space::Local, addr - LOCAL_BASE)
    } else if window(CONST_BASE) {
        (Space::Const, addr - CONST_BASE)
    } else {
        (Space::Global, addr)
    }
}

fn space_name(s: Space) -> &'static str {
    match s {
        Space::Global => "global",
        Space::Shared => "shared",
        Space::Local => "local",
        Space::Generic => "generic",
        Space::Const => "constant",
    }
}

/// The register file is register-major: register `n` of lane `l` is `regs[32 n + l]`, so a warp
/// register is 32 contiguous words.
fn reg(w: &Warp, l: usize, n: u8) -> u32 {
    if n == RZ {
        0
    } else {
        *w.regs.get(32 * n as usize + l).unwrap_or(&0)
    }
}

fn set(w: &mut Warp, l: usize, n: u8, v: u32) {
    if n != RZ {
        if n as usize >= w.nr {
            // A register beyond the counted ones: grow the file.
            w.nr = n as usize + 1;
            w.regs.resize(32 * w.nr, 0);
        }
        w.regs[32 * n as usize + l] = v;
    }
}

fn ureg(w: &Warp, n: u8) -> u32 {
    if n == URZ {
        0
    } else {
        w.ur[n as usize & 63]
    }
}

/// The uniform pair `URn`, `URn+1` as one 64-bit value (`URZ` reads 0 in either half).
fn ureg_pair(w: &Warp, n: u8) -> u64 {
    u64::from(ureg(w, n)) | u64::from(ureg(w, n.wrapping_add(1))) << 32
}

fn set_p(w: &mut Warp, l: usize, n: u8, v: bool) {
    if n != PT {
        if v {
            w.preds[l] |= 1 << n;
        } else {
            w.preds[l] &= !(1 << n);
        }
    }
}

fn decor(o: &Opnd) -> (bool, bool, bool) {
    match o {
        Opnd::R { neg, abs, not, .. }
        | Opnd::Ur { neg, abs, not, .. }
        | Opnd::C { neg, abs, not, .. } => (*neg, *abs, *not),
        _ => (false, false, false),
    }
}

fn fdecor(v: u32, o: &Opnd, sign: u32) -> u32 {
    let (neg, abs, _) = decor(o);
    let mut v = v;
    if abs {
        v &= !sign;
    }
    if neg {
        v ^= sign;
    }
    v
}

fn apply_sel(v: u32, s: Sel) -> u32 {
    match s {
        Sel::All => v,
        Sel::H(h) => (v >> (16 * h)) & 0xffff,
        Sel::B(b) => (v >> (8 * b)) & 0xff,
        Sel::H0H0 => (v & 0xffff) * 0x1_0001,
        Sel::H1H1 => (v >> 16) * 0x1_0001,
        Sel::Sign => v >> 31,
    }
}

fn ext(v: u64, bytes: u32, signed: bool) -> u32 {
    let bits = 8 * bytes;
    let m = (1u64 << bits) - 1;
    let v = v & m;
    if signed && v >> (bits - 1) & 1 == 1 {
        (v | !m) as u32
    } else {
        v as u32
    }
}

fn imnmx(a: u32, b: u32, pmin: bool, unsigned: bool) -> u32 {
    let less = if unsigned {
        a < b
    } else {
        (a as i32) < (b as i32)
    };
    if less == pmin {
        a
    } else {
        b
    }
}

fn atom_op(op: AtomOp, ty: AtomTy, old: u64, b: u64, c: u64) -> u64 {
    let w32 = matches!(
        ty,
        AtomTy::U32 | AtomTy::S32 | AtomTy::F32 | AtomTy::F16x2 | AtomTy::Bf16x2
    );
    let mask = if w32 { 0xffff_ffff } else { u64::MAX };
    let signed = matches!(ty, AtomTy::S32 | AtomTy::S64);
    let sv = |x: u64| -> i64 {
        if w32 {
            i64::from(x as u32 as i32)
        } else {
            x as i64
        }
    };
    let r = match op {
        AtomOp::Add => match ty {
            AtomTy::F32 => {
                let r =
                    f32::from_bits(alu::ftz32(old as u32)) + f32::from_bits(alu::ftz32(b as u32));
                u64::from(alu::ftz32(if r.is_nan() {
                    alu::NAN32
                } else {
                    r.to_bits()
                }))
            }
            AtomTy::F16x2 | AtomTy::Bf16x2 => {
                // The PTX emulator's `add.rn.noftz` on each half.
                use crate::emu::domain::{FMods, FTy};
                let t = if ty == AtomTy::F16x2 {
                    FTy::F16x2
                } else {
                    FTy::Bf16x2
                };
                let m = FMods {
                    rnd: Rnd::Rn,
                    ftz: false,
                    sat: false,
                };
                crate::emu::concrete::farith(float::FOp::Add, t, m, old & mask, b & mask)
            }
            AtomTy::F64 => {
                let r = f64::from_bits(old) + f64::from_bits(b);
                if r.is_nan() {
                    crate::emu::float::F64.canonical_nan()
                } else {
                    r.to_bits()
                }
            }
            _ => old.wrapping_add(b),
        },
        AtomOp::Min => {
            if signed {
                if sv(b) < sv(old) {
                    b
                } else {
                    old
                }
            } else {
                (old & mask).min(b & mask)
            }
        }
        AtomOp::Max => {
            if signed {
                if sv(b) > sv(old) {
                    b
                } else {
                    old
                }
            } else {
                (old & mask).max(b & mask)
            }
        }
        AtomOp::Exch => b,
        AtomOp::Cas | AtomOp::CasSpin => {
            if old & mask == b & mask {
                c
            } else {
                old
            }
        }
        AtomOp::And => old & b,
        AtomOp::Or => old | b,
        AtomOp::Xor => old ^ b,
        AtomOp::Inc => {
            if old & mask >= b & mask {
                0
            } else {
                old + 1
            }
        }
        AtomOp::Dec => {
            if old & mask == 0 || old & mask > b & mask {
                b
            } else {
                old - 1
            }
        }
    };
    r & mask
}
