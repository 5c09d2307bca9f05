//! CTAs resident side by side, stepped one warp-instruction at a time by an outside scheduler:
//! the interface the timing mode (`crate::sass::emu::timing`) drives. The functional scheduler
//! (`Machine::run`) runs CTAs one after another; here several CTAs live at once, each with its
//! own warps and shared memory, and the caller decides which warp issues next. Results do not
//! depend on the order (each CTA's threads see the same values in any schedule the program's
//! barriers allow), so a timed run computes what a functional run computes.

use crate::emu::cluster::ClusterBarrier;
use crate::emu::error::EmuResult;

use super::super::decode::Space;
use super::{next_lanes, Machine, St, Warp};

/// One memory access of a warp-instruction, as the timing mode needs it: the state space, each
/// active lane's address (the raw address the instruction formed: a per-thread offset for local
/// memory) and the bytes per lane.
#[derive(Clone, Debug)]
pub(crate) struct Touch {
    /// The state space the instruction names (generic accesses stay generic).
    pub space: Space,
    /// Addresses of the lanes in `mask`.
    pub addrs: [u64; 32],
    /// The lanes that accessed memory.
    pub mask: u32,
    /// Bytes per lane.
    pub bytes: u32,
    /// A load, not a store.
    pub load: bool,
    /// An atomic (performed at L2 for global memory: it reads and writes).
    pub atomic: bool,
}

/// A CTA resident on the simulated SM.
pub(crate) struct Cta {
    /// Its index in the grid.
    pub id: [u32; 3],
    pub(super) warps: Vec<Warp>,
    pub(super) shared: Vec<u8>,
    /// The barrier of its cluster when it runs alone (the timing mode, which runs clusters of
    /// one CTA only; the functional run keeps a cluster's barrier in the machine).
    barrier: ClusterBarrier,
}

/// What one warp can do now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Next {
    /// Its next instruction is at this index.
    Inst(usize),
    /// Its lanes wait (CTA barrier, BSYNC, WARPSYNC).
    Waiting,
    /// Every lane has exited.
    Exited,
}

impl Cta {
    /// Warps in the CTA.
    pub fn warp_count(&self) -> usize {
        self.warps.len()
    }

    /// Its threads.
    pub(super) fn threads(&self) -> u32 {
        self.warps
            .iter()
            .map(|w| w.st.iter().filter(|s| **s != St::Absent).count() as u32)
            .sum()
    }
}

/// Whether every lane of `w` has exited (or never existed).
pub(super) fn exited(w: &Warp) -> bool {
    w.st.iter().all(|s| matches!(s, St::Exited | St::Absent))
}

impl Machine<'_> {
    /// Records a warp-level memory access: the run's statistics, and the timing mode's touches
    /// when it records them.
    pub(super) fn access(
        &mut self,
        space: Space,
        addrs: &[u64; 32],
        mask: u32,
        bytes: u32,
        load: bool,
    ) {
        self.stats.memory(space, addrs, mask, bytes, load);
        self.touch(space, addrs, mask, bytes, load, false);
    }

    /// Records a warp-level atomic (as [`Machine::access`]; the timing mode charges it at L2).
    pub(super) fn access_atomic(&mut self, space: Space, addrs: &[u64; 32], mask: u32, bytes: u32) {
        self.stats.memory(space, addrs, mask, bytes, false);
        self.touch(space, addrs, mask, bytes, false, true);
    }

    fn touch(
        &mut self,
        space: Space,
        addrs: &[u64; 32],
        mask: u32,
        bytes: u32,
        load: bool,
        atomic: bool,
    ) {
        if let Some(t) = &mut self.touches {
            if mask != 0 {
                t.push(Touch {
                    space,
                    addrs: *addrs,
                    mask,
                    bytes,
                    load,
                    atomic,
                });
            }
        }
    }

    /// A fresh CTA `id` of the launch's shape, its threads at the first instruction.
    pub(crate) fn start_cta(&self, id: [u32; 3]) -> Cta {
        let [bx, by, bz] = self.shape.block;
        let n = (bx * by * bz) as usize;
        let nr = (self.k.nregs as usize).max(1);
        let warps = (0..n.div_ceil(32))
            .map(|wi| Warp::new(wi as u32, nr, self.local_size, self.shape.block))
            .collect();
        let smem = (self.k.shared_static + self.shape.dynamic_smem) as usize;
        let mut cta = Cta {
            id,
            warps,
            shared: vec![0u8; smem],
            barrier: ClusterBarrier::default(),
        };
        cta.barrier = ClusterBarrier::new(cta.threads());
        cta
    }

    /// What warp `wi` of `cta` would do next; lanes waiting at BSYNC/WARPSYNC whose condition
    /// holds are released first (as the functional scheduler does).
    pub(crate) fn next_of(&self, cta: &mut Cta, wi: usize) -> Next {
        let w = &mut cta.warps[wi];
        loop {
            let (pc, act) = next_lanes(w);
            if pc != u32::MAX {
                if self.mbar_blocked(w, pc, act, &cta.shared)
                    || self.cluster_blocked(w, pc, act, &cta.barrier)
                {
                    return Next::Waiting;
                }
                return Next::Inst(pc as usize);
            }
            if exited(w) {
                return Next::Exited;
            }
            if !Self::release_warp(w) {
                return Next::Waiting;
            }
        }
    }

    /// Executes warp `wi`'s next instruction (the caller saw `Next::Inst`).
    pub(crate) fn issue(&mut self, cta: &mut Cta, wi: usize) -> EmuResult<()> {
        self.cur_cta = cta.id;
        let Cta {
            warps,
            shared,
            id,
            barrier,
        } = cta;
        std::mem::swap(&mut self.cluster.barrier, barrier);
        let r = self.step(&mut warps[wi], *id, shared);
        std::mem::swap(&mut self.cluster.barrier, barrier);
        r.map(|_| ())
    }

    /// Releases a CTA barrier of `cta` whose arrivals are complete; true when one was.
    pub(crate) fn release_cta_barrier(&mut self, cta: &mut Cta) -> EmuResult<bool> {
        self.release_bar(cta.id, &mut cta.warps, super::cta_barrier::ALL_BARRIERS)
    }
}
