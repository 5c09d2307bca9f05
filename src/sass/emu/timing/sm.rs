//! The warp schedulers of the timing mode. Each cycle every scheduler issues at most one
//! instruction, from the warps assigned to it (warp slot modulo the scheduler count), greedy
//! then oldest: the warp it issued last if that one can issue, else the oldest that can. A warp
//! can issue when the stall count of its previous instruction has passed (ptxas's control bits:
//! the hardware does not check fixed-latency dependencies, the compiler's stall counts do), every
//! scoreboard its wait mask names has cleared (`DEPBAR.LE SBk, n`: at most `n` pending), the
//! pipe of its class is free on that scheduler, and — for a global or local memory instruction —
//! the L1/LSU path has no more than `lsu_queue` cycles of work queued (the hardware's
//! `lg_throttle`). Memory instructions complete when the memory system says ([`super::memory`]);
//! other scoreboarded instructions after their class's latency. A CTA ends when its warps have
//! exited and their stores have drained to L2. When nothing can issue, time jumps to the next
//! cycle something can.

use crate::emu::error::{EmuError, EmuResult};
use crate::sass::isa::word::Control;

use super::super::decode::{class_of, decode, Class, Kind};
use super::super::exec::resident::{Cta, Next};
use super::super::exec::Machine;
use super::super::operand::Opnd;
use super::super::program::Kernel;
use super::memory::MemorySystem;
use super::{SmLoad, TimedRun, TimingParams};

/// A functional-unit pipe with an issue interval.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pipe {
    Fp32 = 0,
    Int = 1,
    Fp64 = 2,
    Sfu = 3,
    /// The scheduler's tensor core: busy for each tensor instruction's
    /// [`super::tensor_cycles`].
    Tensor = 4,
}

/// Pipes per scheduler.
const PIPES: usize = 5;

/// What the schedulers need of one instruction.
#[derive(Clone, Debug)]
struct InstInfo {
    control: Control,
    class: Class,
    pipe: Option<Pipe>,
    /// `DEPBAR.LE SBk, n [, {list}]`: scoreboard, pending count allowed, other scoreboards.
    depbar: Option<(usize, usize, u8)>,
    /// `LDGSTS`: completes into the warp's open copy group.
    async_copy: bool,
    /// `LDGDEPBAR`: closes the group (its completion counts on SB0).
    commit: bool,
    /// `BAR` or `EXIT`: a CTA barrier may now be complete, or the warp done.
    sync_event: bool,
    /// A tensor-core instruction's cycles on its scheduler's tensor core (`None`: not one, or
    /// no rate given).
    tensor_cycles: Option<f64>,
    /// A warpgroup MMA: queued on the tensor core without holding the warp, its result waited
    /// for by `WARPGROUP.DEPBAR` (not by the issue of the next instruction).
    gmma: bool,
    /// A warpgroup MMA that names `gsb0`: it closes the warp's open group of them.
    closes_group: bool,
    /// `WARPGROUP.DEPBAR.LE gsb0, n`: wait until at most `n` groups are pending.
    gsb_wait: Option<usize>,
}

fn info_of(inst: &super::super::program::Inst, params: &TimingParams) -> InstInfo {
    let mut tensor_cycles = None;
    let mut gmma = false;
    let mut closes_group = false;
    let mut gsb_wait = None;
    let (class, op, depbar) = match &inst.parsed {
        Ok(p) => {
            let kind = decode(p);
            let class = class_of(&kind, &p.op);
            tensor_cycles = super::tensor_cycles(&kind, params.tensor_flops, params.schedulers);
            gmma = matches!(kind, Kind::Gmma(_));
            closes_group = gmma && p.ops.iter().any(|o| matches!(o, Opnd::Gsb(_)));
            if p.op == "WARPGROUP" && p.has("DEPBAR") {
                if let (Some(Opnd::Gsb(_)), Some(Opnd::Imm(n))) = (p.ops.first(), p.ops.get(1)) {
                    gsb_wait = Some((*n).clamp(0, 63) as usize);
                }
            }
            let depbar = if p.op == "DEPBAR" && p.has("LE") {
                match (p.ops.first(), p.ops.get(1)) {
                    (Some(Opnd::Sb(k)), Some(Opnd::Imm(n))) => {
                        let extra = p.ops[2..].iter().fold(0u8, |m, o| match o {
                            Opnd::Sb(j) => m | 1 << j,
                            _ => m,
                        });
                        Some((usize::from(*k), (*n).clamp(0, 63) as usize, extra))
                    }
                    _ => None,
                }
            } else {
                None
            };
            (class, p.op.clone(), depbar)
        }
        Err(_) => (Class::Misc, String::new(), None),
    };
    let pipe = match class {
        Class::Fp32 => Some(Pipe::Fp32),
        Class::Int => Some(Pipe::Int),
        Class::Fp64 => Some(Pipe::Fp64),
        Class::Sfu | Class::Conv => Some(Pipe::Sfu),
        // An `mma.sync` holds its warp until the tensor core takes it.
        Class::Tensor if tensor_cycles.is_some() && !gmma => Some(Pipe::Tensor),
        _ => None,
    };
    InstInfo {
        control: inst.control,
        class,
        pipe,
        depbar,
        async_copy: op == "LDGSTS",
        commit: op == "LDGDEPBAR",
        sync_event: op == "BAR" || op == "EXIT",
        tensor_cycles,
        gmma,
        closes_group,
        gsb_wait,
    }
}

/// One warp's timing state.
#[derive(Clone, Debug, Default)]
struct WarpClock {
    /// The first cycle it may issue again (its last instruction's stall count).
    ready: u64,
    /// Pending releases of each scoreboard (the hardware counts them).
    sb: [Vec<u64>; 6],
    /// Completion of the asynchronous copies of the open group.
    copies: u64,
    /// A number unique in the run (local memory is per warp).
    uid: u64,
    exited: bool,
    /// When its stores have all left the SM (its CTA ends no earlier).
    drained: u64,
    /// When the warpgroup MMAs of its open group (not yet closed by `gsb0`) complete.
    gmma_open: u64,
    /// When each closed group of warpgroup MMAs completes, oldest first.
    gsb_groups: Vec<u64>,
}

impl WarpClock {
    /// The cycle from which `info`'s waits are satisfied (`t` or later).
    fn waits_until(&mut self, info: &InstInfo, t: u64) -> u64 {
        let mut until = t;
        let mut all = info.control.wait;
        if let Some((k, n, extra)) = info.depbar {
            all |= extra;
            let pending = &mut self.sb[k];
            pending.retain(|&r| r > t);
            if pending.len() > n {
                let mut sorted = pending.clone();
                sorted.sort_unstable();
                until = until.max(sorted[sorted.len() - n - 1]);
            }
        }
        for (k, pending) in self.sb.iter_mut().enumerate() {
            if all >> k & 1 == 1 {
                pending.retain(|&r| r > t);
                until = until.max(pending.iter().copied().max().unwrap_or(t));
            }
        }
        if let Some(n) = info.gsb_wait {
            self.gsb_groups.retain(|&r| r > t);
            let len = self.gsb_groups.len();
            if len > n {
                until = until.max(
                    self.gsb_groups[..len - n]
                        .iter()
                        .copied()
                        .max()
                        .unwrap_or(t),
                );
            }
        }
        until
    }
}

/// A CTA on the SM.
struct Slot {
    cta: Cta,
    clocks: Vec<WarpClock>,
    started: u64,
    live: usize,
    /// A warp issued `BAR`: the barrier may be complete.
    check_barrier: bool,
}

/// Why a scheduler issued nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Idle {
    Stall,
    Scoreboard,
    Pipe,
    Throttle,
    Other,
}

/// The simulated SM.
pub struct Sm<'m, 'a> {
    m: &'m mut Machine<'a>,
    info: Vec<InstInfo>,
    p: TimingParams,
    mem: MemorySystem,
    run: TimedRun,
    pipe_free: Vec<[f64; PIPES]>,
    greedy: Vec<Option<(usize, usize)>>,
    order: Vec<Vec<(usize, usize)>>,
    next_uid: u64,
    /// The machine's touch list, handed to it for each instruction and taken back (no
    /// allocation per instruction).
    touches: Vec<super::super::exec::resident::Touch>,
}

impl<'m, 'a> Sm<'m, 'a> {
    /// An SM running `kernel` on `m`, with an L1 of `l1_bytes`.
    pub fn new(
        m: &'m mut Machine<'a>,
        kernel: &Kernel,
        p: TimingParams,
        l1_bytes: u64,
    ) -> Sm<'m, 'a> {
        let schedulers = p.schedulers.max(1) as usize;
        Sm {
            m,
            info: kernel.code.iter().map(|i| info_of(i, &p)).collect(),
            p,
            mem: MemorySystem::new(p, l1_bytes),
            run: TimedRun::default(),
            pipe_free: vec![[0.0; PIPES]; schedulers],
            greedy: vec![None; schedulers],
            order: vec![Vec::new(); schedulers],
            next_uid: 0,
            touches: Vec::new(),
        }
    }

    fn start(&mut self, id: [u32; 3], t: u64) -> Slot {
        let cta = self.m.start_cta(id);
        let n = cta.warp_count();
        let clocks = (0..n)
            .map(|_| {
                self.next_uid += 1;
                WarpClock {
                    ready: t,
                    uid: self.next_uid,
                    ..WarpClock::default()
                }
            })
            .collect();
        Slot {
            cta,
            clocks,
            started: t,
            live: n,
            check_barrier: false,
        }
    }

    /// Each scheduler's warps, oldest CTA first.
    fn reorder(&mut self, slots: &[Option<Slot>]) {
        let mut by_age: Vec<usize> = (0..slots.len()).filter(|&i| slots[i].is_some()).collect();
        by_age.sort_by_key(|&i| slots[i].as_ref().map_or(0, |s| s.started));
        let n = self.order.len();
        for o in &mut self.order {
            o.clear();
        }
        for si in by_age {
            let Some(slot) = &slots[si] else { continue };
            let wpc = slot.clocks.len();
            for wi in 0..wpc {
                self.order[(si * wpc + wi) % n].push((si, wi));
            }
        }
    }

    /// Runs `load` to the end.
    pub fn run(mut self, load: &SmLoad) -> EmuResult<TimedRun> {
        let mut pending = load.ctas.iter().copied();
        let resident = (load.resident as usize).min(load.ctas.len());
        let mut slots: Vec<Option<Slot>> = Vec::with_capacity(resident);
        for _ in 0..resident {
            let id = pending.next().expect("resident ≤ CTAs");
            slots.push(Some(self.start(id, 0)));
        }
        self.reorder(&slots);
        let mut t = 0u64;
        let mut end = 0u64;
        let mut reasons: Vec<Option<Idle>> = vec![None; self.order.len()];
        loop {
            let mut progressed = false;
            let mut next = u64::MAX;
            for (s, reason) in reasons.iter_mut().enumerate() {
                *reason = match self.pick(s, t, &mut slots)? {
                    Ok(()) => {
                        progressed = true;
                        None
                    }
                    Err((until, why)) => {
                        next = next.min(until);
                        Some(why)
                    }
                };
            }
            let mut changed = false;
            for place in slots.iter_mut() {
                let Some(slot) = place else { continue };
                if slot.check_barrier {
                    slot.check_barrier = false;
                    if self.m.release_cta_barrier(&mut slot.cta)? {
                        for c in &mut slot.clocks {
                            c.ready = c.ready.max(t + self.p.barrier);
                        }
                        next = next.min(t + self.p.barrier);
                        progressed = true;
                    }
                }
                if slot.live == 0 {
                    let drained = slot.clocks.iter().map(|c| c.drained).max().unwrap_or(0);
                    if drained > t {
                        // The warps have exited; their stores are still on the way to L2.
                        next = next.min(drained);
                        continue;
                    }
                    self.run.ctas += 1;
                    end = end.max(t);
                    *place = pending
                        .next()
                        .map(|id| self.start(id, t + self.p.cta_launch));
                    next = next.min(t + self.p.cta_launch);
                    changed = true;
                }
            }
            if changed {
                self.reorder(&slots);
                progressed = true;
            }
            if slots.iter().all(Option::is_none) {
                break;
            }
            let dt = if progressed {
                1
            } else if next == u64::MAX || next <= t {
                return Err(EmuError::Deadlock {
                    cta: slots.iter().flatten().next().map_or([0; 3], |s| s.cta.id),
                    detail: format!(
                        "timing mode: no warp can issue at cycle {t} and none will (barrier or \
                         convergence wait)"
                    ),
                });
            } else {
                next - t
            };
            self.count_idle(&reasons, dt);
            t += dt;
        }
        self.run.cycles = end;
        self.run.memory = self.mem.counters;
        Ok(self.run)
    }

    /// Books `dt` cycles of each idle scheduler to its reason (a jump idles every scheduler).
    fn count_idle(&mut self, reasons: &[Option<Idle>], dt: u64) {
        for r in reasons.iter().flatten() {
            let c = match r {
                Idle::Stall => &mut self.run.idle_stall,
                Idle::Scoreboard => &mut self.run.idle_scoreboard,
                Idle::Pipe => &mut self.run.idle_pipe,
                Idle::Throttle => &mut self.run.idle_throttle,
                Idle::Other => &mut self.run.idle_other,
            };
            *c += dt;
        }
    }

    /// Scheduler `s` at cycle `t`: issues one instruction (`Ok(Ok(()))`), or says until when it
    /// cannot and why.
    #[allow(clippy::type_complexity)]
    fn pick(
        &mut self,
        s: usize,
        t: u64,
        slots: &mut [Option<Slot>],
    ) -> EmuResult<Result<(), (u64, Idle)>> {
        let mut until = u64::MAX;
        let mut why: Option<Idle> = None;
        let greedy = self.greedy[s];
        let count = self.order[s].len();
        for k in 0..=count {
            let (si, wi) = match (k, greedy) {
                (0, Some(g)) => g,
                (0, None) => continue,
                (k, _) => {
                    let c = self.order[s][k - 1];
                    if Some(c) == greedy {
                        continue;
                    }
                    c
                }
            };
            let Some(slot) = slots.get_mut(si).and_then(Option::as_mut) else {
                continue;
            };
            let Some(clock) = slot.clocks.get_mut(wi) else {
                continue;
            };
            if clock.exited {
                continue;
            }
            if clock.ready > t {
                until = until.min(clock.ready);
                why.get_or_insert(Idle::Stall);
                continue;
            }
            let pc = match self.m.next_of(&mut slot.cta, wi) {
                Next::Inst(pc) => pc,
                Next::Exited => {
                    clock.exited = true;
                    slot.live -= 1;
                    continue;
                }
                Next::Waiting => {
                    why.get_or_insert(Idle::Other);
                    continue;
                }
            };
            let Some(info) = self.info.get(pc) else {
                // Past the end of the code: let the functional step report it.
                self.m.issue(&mut slot.cta, wi)?;
                continue;
            };
            let ready = clock.waits_until(info, t);
            if ready > t {
                until = until.min(ready);
                why.get_or_insert(Idle::Scoreboard);
                continue;
            }
            if matches!(info.class, Class::Global | Class::Local | Class::Generic) {
                let over = self.mem.backlog(t) - self.p.lsu_queue;
                if over > 0.0 {
                    until = until.min(t + over.ceil() as u64);
                    why.get_or_insert(Idle::Throttle);
                    continue;
                }
            }
            if let Some(pipe) = info.pipe {
                let free = self.pipe_free[s][pipe as usize];
                if free > t as f64 {
                    until = until.min(free.ceil() as u64);
                    why.get_or_insert(Idle::Pipe);
                    continue;
                }
            }
            self.issue(t, s, slot, wi, pc)?;
            self.greedy[s] = Some((si, wi));
            return Ok(Ok(()));
        }
        Ok(Err((until, why.unwrap_or(Idle::Other))))
    }

    /// Executes warp `wi`'s instruction `pc` at cycle `t` on scheduler `s` and books its timing.
    fn issue(&mut self, t: u64, s: usize, slot: &mut Slot, wi: usize, pc: usize) -> EmuResult<()> {
        let shared_before = self.m.stats.shared.transactions;
        self.touches.clear();
        self.m.touches = Some(std::mem::take(&mut self.touches));
        let issued = self.m.issue(&mut slot.cta, wi);
        self.touches = self.m.touches.take().unwrap_or_default();
        issued?;
        let touches = &self.touches;
        let wavefronts = self.m.stats.shared.transactions - shared_before;
        self.run.warp_insts += 1;
        let info = &self.info[pc];
        let clock = &mut slot.clocks[wi];
        clock.ready = t + u64::from(info.control.stall.max(1));
        if let Some(pipe) = info.pipe {
            let interval = match pipe {
                Pipe::Fp32 => self.p.fp32_interval,
                Pipe::Int => self.p.int_interval,
                Pipe::Fp64 => self.p.fp64_interval,
                Pipe::Sfu => self.p.sfu_interval,
                Pipe::Tensor => info.tensor_cycles.unwrap_or(0.0),
            };
            self.pipe_free[s][pipe as usize] = t as f64 + interval;
        }
        // When the tensor core finishes this instruction: an `mma.sync` was issued on a free
        // tensor core (above); a warpgroup MMA queues behind the ones before it.
        let tensor_done = info.tensor_cycles.map(|cycles| {
            let start = if info.gmma {
                let start = self.pipe_free[s][Pipe::Tensor as usize].max(t as f64);
                self.pipe_free[s][Pipe::Tensor as usize] = start + cycles;
                start
            } else {
                t as f64
            };
            (start + cycles + self.p.lat_other).ceil() as u64
        });
        let (done, read) = if touches.is_empty() {
            let lat = match info.class {
                Class::Sfu | Class::Conv => self.p.lat_sfu,
                Class::Fp64 => self.p.lat_fp64,
                _ => self.p.lat_other,
            };
            (t + lat.ceil() as u64, t + 2)
        } else {
            let c = self.mem.access(t, touches, wavefronts, clock.uid);
            clock.drained = clock.drained.max(c.drained);
            (c.done, c.read)
        };
        let done = done.max(tensor_done.unwrap_or(0));
        if info.gmma {
            clock.gmma_open = clock.gmma_open.max(done);
            if info.closes_group {
                clock.gsb_groups.push(clock.gmma_open);
                clock.gmma_open = 0;
            }
        }
        if info.async_copy {
            clock.copies = clock.copies.max(done);
        }
        if info.commit {
            clock.sb[0].push(clock.copies.max(t + 1));
            clock.copies = t;
        }
        let ctl = info.control;
        if ctl.write_sb < 6 {
            clock.sb[usize::from(ctl.write_sb)].push(done);
        }
        if ctl.read_sb < 6 {
            clock.sb[usize::from(ctl.read_sb)].push(read);
        }
        if info.sync_event {
            slot.check_barrier = true;
            if self.m.next_of(&mut slot.cta, wi) == Next::Exited {
                slot.clocks[wi].exited = true;
                slot.live -= 1;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::emu::exec::Limits;
    use crate::emu::memory::GlobalMem;
    use crate::sass::emu::exec::Shape;
    use crate::sass::emu::operand;
    use crate::sass::emu::program::Inst;

    /// A control word: `stall` cycles, write scoreboard `wsb` (7: none), wait mask `wait`.
    fn ctl(stall: u8, wsb: u8, wait: u8) -> Control {
        Control {
            stall,
            write_sb: wsb,
            wait,
            ..Control::NONE
        }
    }

    /// Instructions as nvdisasm prints them; branch targets name `.L_x_N` = instruction N.
    fn kernel(lines: &[(&str, Control)]) -> Kernel {
        let labels: HashMap<String, u64> = (0..lines.len())
            .map(|i| (format!(".L_x_{i}"), 16 * i as u64))
            .collect();
        Kernel {
            name: "t".into(),
            code: lines
                .iter()
                .enumerate()
                .map(|(i, (t, c))| Inst {
                    pc: 16 * i as u64,
                    text: t.to_string(),
                    parsed: operand::parse(t, &labels),
                    control: *c,
                })
                .collect(),
            params: Vec::new(),
            param_base: 0x160,
            param_size: 0,
            cbanks: HashMap::new(),
            shared_static: 0,
            local_size: 0,
            nregs: 16,
            cluster: None,
            explicit_cluster: false,
        }
    }

    /// `n` copies of `line` with `c`, then `EXIT`.
    fn straight(line: &str, c: Control, n: usize) -> Kernel {
        let mut v = vec![(line, c); n];
        v.push(("EXIT", ctl(1, 7, 0)));
        kernel(&v)
    }

    fn timed(k: &Kernel, threads: u32, ctas: u32, resident: u32) -> TimedRun {
        timed_with(k, threads, ctas, resident, TimingParams::default())
    }

    fn timed_with(k: &Kernel, threads: u32, ctas: u32, resident: u32, p: TimingParams) -> TimedRun {
        let shape = Shape {
            grid: [ctas, 1, 1],
            block: [threads, 1, 1],
            dynamic_smem: 0,
            cluster: Default::default(),
        };
        let mut m = Machine::new(
            k,
            GlobalMem::default(),
            HashMap::from([(0, vec![0; 0x200])]),
            shape,
            Limits::default(),
            "t.cubin",
        );
        let load = SmLoad {
            ctas: (0..ctas).map(|i| [i, 0, 0]).collect(),
            resident,
            smem_per_cta: 0,
        };
        Sm::new(&mut m, k, p, 1 << 20)
            .run(&load)
            .expect("timed run")
    }

    #[test]
    fn stall_counts_set_a_lone_warps_pace() {
        let k = straight("FADD R0, R0, R0", ctl(4, 7, 0), 10);
        let r = timed(&k, 32, 1, 1);
        assert_eq!(r.warp_insts, 11);
        assert!((40..=42).contains(&r.cycles), "{r:?}");
        // One warp per scheduler: four warps take as long as one.
        let four = timed(&k, 128, 1, 1);
        assert_eq!(four.cycles, r.cycles, "{four:?}");
        assert_eq!(four.warp_insts, 44);
    }

    #[test]
    fn warps_sharing_a_scheduler_hide_each_others_stalls_until_issue_is_full() {
        // Stall 4: two warps on a scheduler fit in each other's stalls.
        let k = straight("FADD R0, R0, R0", ctl(4, 7, 0), 10);
        let two = timed(&k, 256, 1, 1);
        assert!(two.cycles <= 43, "{two:?}");
        // Stall 1: a lone warp issues every cycle, two on a scheduler take twice as long.
        let k = straight("FADD R0, R0, R0", ctl(1, 7, 0), 20);
        let one = timed(&k, 128, 1, 1).cycles;
        let two = timed(&k, 256, 1, 1).cycles;
        assert!(two >= 2 * one - 2 && two <= 2 * one + 2, "{one} {two}");
    }

    #[test]
    fn the_integer_pipe_issues_every_other_cycle() {
        let k = straight("IADD3 R0, R0, 0x1, RZ", ctl(1, 7, 0), 20);
        let r = timed(&k, 32, 1, 1);
        assert!((39..=42).contains(&r.cycles), "{r:?}");
        assert!(r.idle_pipe > 0, "{r:?}");
    }

    #[test]
    fn a_wait_mask_waits_for_the_scoreboard() {
        let p = TimingParams::default();
        let k = kernel(&[
            ("S2R R0, SR_TID.X", ctl(1, 0, 0)),
            ("IADD3 R1, R0, 0x1, RZ", ctl(1, 7, 1)),
            ("EXIT", ctl(1, 7, 0)),
        ]);
        let r = timed(&k, 32, 1, 1);
        assert!(r.cycles >= p.lat_other as u64, "{r:?}");
        assert!(r.idle_scoreboard > 0, "{r:?}");
        let no_wait = kernel(&[
            ("S2R R0, SR_TID.X", ctl(1, 0, 0)),
            ("IADD3 R1, R0, 0x1, RZ", ctl(1, 7, 0)),
            ("EXIT", ctl(1, 7, 0)),
        ]);
        assert!(timed(&no_wait, 32, 1, 1).cycles < r.cycles);
    }

    #[test]
    fn ctas_beyond_the_resident_ones_wait_for_a_slot() {
        let k = straight("FADD R0, R0, R0", ctl(4, 7, 0), 10);
        let one = timed(&k, 32, 1, 1).cycles;
        let together = timed(&k, 32, 2, 2);
        let after = timed(&k, 32, 2, 1);
        assert_eq!(together.ctas, 2);
        assert!(together.cycles <= one + 2, "{together:?}");
        let launch = TimingParams::default().cta_launch;
        assert!(after.cycles >= 2 * one + launch - 2, "{after:?}");
    }

    #[test]
    fn a_full_lsu_queue_holds_memory_instructions_back() {
        // Four warps store one local word a cycle each; the L1 takes one line a cycle.
        let mut k = straight("STL [R1], R0", ctl(1, 7, 0), 40);
        k.local_size = 16;
        let free = timed(&k, 128, 1, 1);
        assert_eq!(free.idle_throttle, 0, "{free:?}");
        let p = TimingParams {
            lsu_queue: 8.0,
            ..TimingParams::default()
        };
        let held = timed_with(&k, 128, 1, 1, p);
        assert!(held.idle_throttle > 0, "{held:?}");
        // Either way the CTA ends when its 160 lines are through the tag stage (its stores
        // drained), not when the warps issued their last store.
        assert!(
            free.cycles >= 160 && held.cycles >= 160,
            "{free:?} {held:?}"
        );
    }

    #[test]
    fn a_cta_barrier_holds_the_early_warp() {
        // Warp 0 works 40 cycles before the barrier, warp 1 none: both leave it together.
        let k = kernel(&[
            ("S2R R0, SR_TID.X", ctl(1, 0, 0)),
            ("ISETP.GE.AND P0, PT, R0, 0x20, PT", ctl(4, 7, 1)),
            ("@P0 BRA `(.L_x_7)", ctl(4, 7, 0)),
            ("FADD R1, R1, R1", ctl(15, 7, 0)),
            ("FADD R1, R1, R1", ctl(15, 7, 0)),
            ("FADD R1, R1, R1", ctl(15, 7, 0)),
            ("NOP", ctl(1, 7, 0)),
            ("BAR.SYNC.DEFER_BLOCKING 0x0", ctl(1, 7, 0)),
            ("FADD R2, R2, R2", ctl(4, 7, 0)),
            ("EXIT", ctl(1, 7, 0)),
        ]);
        let r = timed(&k, 64, 1, 1);
        assert_eq!(r.warp_insts, 10 + 6);
        assert!(r.cycles >= 45 + TimingParams::default().barrier, "{r:?}");
    }
}
