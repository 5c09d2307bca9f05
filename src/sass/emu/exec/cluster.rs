//! Thread-block clusters in the SASS interpreter (sm_90; PTX ISA 7.8 "Cluster of Cooperative
//! Thread Arrays"): the grid's clusters, run one after another with the CTAs of each together;
//! the cluster barrier (`UCGABAR_ARV`/`UCGABAR_WAIT`, `barrier.cluster`); the shared memory of
//! another CTA of the cluster; `STAS` (`st.async`).
//!
//! **Scheduling.** The CTAs of a cluster take turns (one turn: each warp up to a quantum of
//! instructions, as for a single CTA). During a CTA's turn the other CTAs' shared memory is lent
//! to the machine ([`ClusterRun`]), so no copy is made and no CTA sees a stale byte. When no warp
//! of any CTA can run, a CTA barrier whose arrivals are complete is released; when none is, the
//! cluster is deadlocked.
//!
//! **The barrier** is the PTX emulator's ([`crate::emu::cluster::ClusterBarrier`]): every thread
//! of the cluster that has not exited arrives before any passes the wait. `UCGABAR_ARV` is a
//! uniform instruction; its executing lanes are the threads that arrive (ptxas emits the same
//! instruction for every form of `barrier.cluster.arrive`). A `UCGABAR_WAIT` whose phase has not
//! completed does not run: the warp waits before it, as before an incomplete `PHASECHK`.
//!
//! **Addresses.** ptxas builds the shared address of a cluster kernel's variables as
//! `rank << 24 | offset` (`LEA R, SR_CgaCtaId, offset, 0x18`; `mapa` replaces the rank byte with
//! `PRMT R, rank, 0x654, R`). The CTA's own rank names its own shared memory; another rank (below
//! the cluster's size) names that CTA's. ptxas 12.9 reaches another CTA's shared memory through
//! generic `LD`/`ST`/`ATOM` (high word `SR_SWINHI`) and through `STAS`, and those are what is
//! emulated; `LDS`/`STS`/`ATOMS`, mbarrier and copy instructions naming another CTA are refused
//! (not seen in ptxas's code, not guessed).
//!
//! **`STAS [Ra.64], Rb`** (`st.async.shared::cluster.mbarrier::complete_tx::bytes`, read off
//! ptxas 12.9 for `.b32`, `.b64`, `.v2.b32` and `.v4.b32`): `Ra` holds the destination's cluster
//! shared address and `Ra+1` the mbarrier's; the bytes are stored and completed on that
//! mbarrier at once (as the PTX emulator's `st.async`).

use super::cta_barrier::ALL_BARRIERS;
use super::resident::{exited, Cta};
use super::*;
use crate::emu::cluster::{BarrierMisuse, ClusterBarrier};
use crate::emu::mbarrier::Mbar;

/// The cluster of the running CTA.
#[derive(Default)]
pub(crate) struct ClusterRun {
    /// Its barrier.
    pub(super) barrier: ClusterBarrier,
    /// The shared memory of its CTAs by rank, lent for the turn of one of them (whose own
    /// entry is then empty).
    peers: Vec<Vec<u8>>,
}

impl ClusterRun {
    /// The shared memory of the CTA of rank `rank`, lent for this turn.
    pub(super) fn peer_shared(&mut self, rank: u32) -> Result<&mut [u8], String> {
        self.peers
            .get_mut(rank as usize)
            .map(Vec::as_mut_slice)
            .ok_or_else(|| format!("no CTA of rank {rank} in the cluster"))
    }
}

/// The CTAs of the cluster whose first CTA (rank 0) is `first`, in rank order (x fastest).
pub(super) fn members(shape: Shape, [x0, y0, z0]: [u32; 3]) -> Vec<[u32; 3]> {
    let [cx, cy, cz] = shape.cluster.dims;
    let mut ids = Vec::with_capacity((cx * cy * cz) as usize);
    for z in z0..z0 + cz {
        for y in y0..y0 + cy {
            for x in x0..x0 + cx {
                ids.push([x, y, z]);
            }
        }
    }
    ids
}

/// The first CTA of every cluster of the grid, in grid order (x fastest).
pub(super) fn firsts(shape: Shape) -> Vec<[u32; 3]> {
    let [gx, gy, gz] = shape.grid;
    let [cx, cy, cz] = shape.cluster.dims;
    let mut out = Vec::new();
    for z in (0..gz).step_by(cz.max(1) as usize) {
        for y in (0..gy).step_by(cy.max(1) as usize) {
            for x in (0..gx).step_by(cx.max(1) as usize) {
                out.push([x, y, z]);
            }
        }
    }
    out
}

/// The first CTA of `cta`'s cluster.
pub(super) fn first_of(shape: Shape, cta: [u32; 3]) -> [u32; 3] {
    let d = shape.cluster.dims;
    [0, 1, 2].map(|c| cta[c] - cta[c] % d[c].max(1))
}

/// A misused cluster barrier as the lane's fault.
fn misuse(m: BarrierMisuse) -> Stop {
    Stop::Fault(format!("UCGABAR: {}", m.what), Some(m.lane))
}

impl Machine<'_> {
    /// CTAs per cluster of this launch.
    pub(crate) fn cluster_ctas(&self) -> u32 {
        self.shape.cluster.ctas()
    }

    /// Runs the CTAs `ids` (one cluster, in rank order) together to their end.
    pub(super) fn run_cluster(&mut self, ids: &[[u32; 3]]) -> EmuResult<()> {
        let mut ctas: Vec<Cta> = ids.iter().map(|&id| self.start_cta(id)).collect();
        let threads = ctas.iter().map(Cta::threads).sum();
        self.cluster = ClusterRun {
            barrier: ClusterBarrier::new(threads),
            peers: vec![Vec::new(); ctas.len()],
        };
        loop {
            let mut progressed = false;
            for c in 0..ctas.len() {
                self.swap_peers(&mut ctas, c);
                let turn = self.warps_turn(&mut ctas[c]);
                self.swap_peers(&mut ctas, c);
                progressed |= turn?;
            }
            if ctas.iter().all(|c| c.warps.iter().all(exited)) {
                return Ok(());
            }
            if progressed {
                continue;
            }
            // Every warp waits: release a CTA barrier whose arrivals are complete.
            let mut released = false;
            for c in ctas.iter_mut() {
                if self.release_bar(c.id, &mut c.warps, ALL_BARRIERS)? {
                    released = true;
                    break;
                }
            }
            if !released {
                return Err(self.deadlock(&ctas));
            }
        }
    }

    /// Lends the shared memory of every CTA but `ctas[c]` to the machine, or takes it back.
    fn swap_peers(&mut self, ctas: &mut [Cta], c: usize) {
        if ctas.len() == 1 {
            return;
        }
        for (rank, cta) in ctas.iter_mut().enumerate() {
            if rank != c {
                std::mem::swap(&mut self.cluster.peers[rank], &mut cta.shared);
            }
        }
    }

    /// The deadlock of `ctas`: who waits where (the first eight waiting lanes).
    fn deadlock(&self, ctas: &[Cta]) -> EmuError {
        let many = ctas.len() > 1;
        let mut detail = Vec::new();
        for c in ctas {
            for w in &c.warps {
                for l in 0..32 {
                    let at = match w.st[l] {
                        St::Bar(id) => format!("at barrier {id}"),
                        St::Bsync(b) => format!("at BSYNC B{b}"),
                        St::Warpsync(m) => format!("at WARPSYNC {m:#x}"),
                        St::Run => match self.code.get(w.pc[l] as usize).map(|i| &i.kind) {
                            Some(Kind::ClusterWait) => "waits at the cluster barrier".into(),
                            _ => "waits on an mbarrier".into(),
                        },
                        St::Exited | St::Absent => continue,
                    };
                    let cta = if many {
                        format!("CTA {:?} ", c.id)
                    } else {
                        String::new()
                    };
                    detail.push(format!(
                        "{cta}warp {} lane {l} {at} (+{:#x})",
                        w.id,
                        w.pc[l] * 16
                    ));
                }
            }
        }
        detail.truncate(8);
        EmuError::Deadlock {
            cta: ctas.first().map_or([0; 3], |c| c.id),
            detail: detail.join("; "),
        }
    }

    /// Whether warp `w`'s next instruction at `pc` is a `UCGABAR_WAIT` that some executing lane
    /// cannot pass yet under `barrier` (the warp waits before it).
    pub(crate) fn cluster_blocked(
        &self,
        w: &Warp,
        pc: u32,
        act: u32,
        barrier: &ClusterBarrier,
    ) -> bool {
        let Some(i) = self.code.get(pc as usize) else {
            return false;
        };
        if !matches!(i.kind, Kind::ClusterWait) {
            return false;
        }
        let mut phases = w.cluster_phase;
        // A wait without an arrival is not blocked: it runs and faults.
        matches!(
            barrier.wait(&mut phases, guard_mask(w, i.guard, act)),
            Ok(false)
        )
    }

    /// `UCGABAR_ARV`, `UCGABAR_WAIT` (which runs only when it passes, see
    /// [`Machine::cluster_blocked`]) and `STAS` for the lanes `exec`.
    pub(super) fn exec_cluster(
        &mut self,
        i: &DInst,
        w: &mut Warp,
        exec: u32,
        shared: &mut [u8],
    ) -> Result<(), Stop> {
        match i.kind {
            Kind::ClusterArrive => {
                self.cluster
                    .barrier
                    .arrive(&mut w.cluster_phase, exec)
                    .map_err(misuse)?;
            }
            Kind::ClusterWait => {
                let passed = self
                    .cluster
                    .barrier
                    .wait(&mut w.cluster_phase, exec)
                    .map_err(misuse)?;
                if !passed {
                    return Err(Stop::Msg(
                        "UCGABAR_WAIT ran before its phase completed".into(),
                        None,
                    ));
                }
            }
            Kind::StAsync { bytes } => self.st_async(i, w, exec, bytes, shared)?,
            _ => {}
        }
        Ok(())
    }

    /// Lanes `mask` of `w` exit: the cluster barrier no longer waits for them.
    pub(super) fn cluster_exit(&mut self, w: &Warp, mask: u32) {
        self.cluster.barrier.exit(&w.cluster_phase, mask);
    }

    /// `STAS [Ra.64], Rb`: `bytes` bytes from `Rb…` at the cluster shared address in `Ra`,
    /// completed on the mbarrier at the one in `Ra+1`.
    fn st_async(
        &mut self,
        i: &DInst,
        w: &mut Warp,
        exec: u32,
        bytes: u32,
        shared: &mut [u8],
    ) -> Result<(), Stop> {
        let (Some(Opnd::Mem(a)), Some(Opnd::R { n: rs, .. })) = (i.ops.first(), i.ops.get(1))
        else {
            return Err(Stop::Msg("STAS operands".into(), None));
        };
        let pair = match a {
            Addr {
                reg: Some(r),
                wide: true,
                ureg: None,
                off: 0,
                ..
            } if *r != RZ => *r,
            _ => {
                return Err(Stop::Msg(
                    "STAS address other than a register pair without offset".into(),
                    None,
                ))
            }
        };
        let mut addrs = [0u64; 32];
        for l in lanes(exec) {
            let fault = |m: String| Stop::Fault(m, Some(l));
            let dst = u64::from(reg(w, l, pair));
            let bar = u64::from(reg(w, l, pair.wrapping_add(1)));
            addrs[l] = dst;
            let mut data = [0u8; 16];
            for k in 0..bytes as usize / 4 {
                let v = if *rs == RZ {
                    0
                } else {
                    reg(w, l, rs.wrapping_add(k as u8))
                };
                data[4 * k..4 * k + 4].copy_from_slice(&v.to_le_bytes());
            }
            let len = shared.len();
            let at = self
                .locate_in_cluster(w, l, Space::Shared, dst, bytes, len, true)
                .map_err(fault)?;
            self.bytes_of(w, l, at, bytes, shared)
                .map_err(fault)?
                .copy_from_slice(&data[..bytes as usize]);
            let at = self
                .locate_in_cluster(w, l, Space::Shared, bar, 8, len, true)
                .map_err(|m| fault(format!("STAS mbarrier: {m}")))?;
            let word = self.bytes_of(w, l, at, 8, shared).map_err(fault)?;
            let mut m = Mbar::decode(u64::from_le_bytes(word[..8].try_into().unwrap_or([0; 8])));
            m.tx(u64::from(bytes), -1)
                .map_err(|e| fault(format!("STAS mbarrier: {e}")))?;
            word.copy_from_slice(&m.encode().to_le_bytes());
        }
        self.access(Space::Shared, &addrs, exec, bytes, false);
        Ok(())
    }

    /// The shared offset `a` (bits [24:32) a CTA's rank in the cluster) as (the rank when it is
    /// another CTA's, offset in that CTA's shared memory); another CTA's only where `peer_ok`.
    /// Where another CTA cannot be named (`LDS`, `STS`, …) an address without a rank byte is
    /// the CTA's own, as on sm_80–89; a generic address's rank byte always names the CTA.
    pub(super) fn cluster_shared(
        &self,
        a: u64,
        peer_ok: bool,
    ) -> Result<(Option<u32>, u64), String> {
        let rank = a >> CLUSTER_RANK_SHIFT;
        let off = a & ((1 << CLUSTER_RANK_SHIFT) - 1);
        let own = self
            .shape
            .cluster
            .value(ClusterSreg::CtaRank, self.cur_cta, self.shape.grid);
        if rank == own || rank == 0 && !peer_ok {
            return Ok((None, off));
        }
        let ctas = u64::from(self.shape.cluster.ctas());
        if rank >= ctas {
            return Err(format!(
                "shared access at {a:#x}: names CTA rank {rank} of a cluster of {ctas}"
            ));
        }
        if !peer_ok {
            return Err(format!(
                "shared access at {a:#x}: the shared memory of CTA rank {rank} of the cluster \
                 through an instruction ptxas does not use for it (only generic accesses and \
                 STAS reach another CTA here)"
            ));
        }
        Ok((Some(rank as u32), off))
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{kernel, machine};
    use super::*;

    fn shape(grid: [u32; 3], dims: [u32; 3]) -> Shape {
        Shape {
            grid,
            block: [32, 1, 1],
            dynamic_smem: 0,
            cluster: ClusterShape {
                dims,
                explicit: true,
            },
        }
    }

    #[test]
    fn clusters_of_a_grid_in_rank_order() {
        let s = shape([4, 2, 1], [2, 2, 1]);
        assert_eq!(firsts(s), vec![[0, 0, 0], [2, 0, 0]]);
        assert_eq!(
            members(s, [2, 0, 0]),
            vec![[2, 0, 0], [3, 0, 0], [2, 1, 0], [3, 1, 0]]
        );
        for (rank, id) in members(s, [2, 0, 0]).into_iter().enumerate() {
            assert_eq!(
                s.cluster.value(ClusterSreg::CtaRank, id, s.grid),
                rank as u64
            );
            assert_eq!(first_of(s, id), [2, 0, 0]);
        }
        let one = Shape {
            cluster: ClusterShape::default(),
            ..s
        };
        assert_eq!(firsts(one).len(), 8);
        assert_eq!(members(one, [3, 1, 0]), vec![[3, 1, 0]]);
    }

    #[test]
    fn a_rank_byte_names_the_cta_whose_shared_memory_it_is() {
        let k = kernel(&["NOP ;"]);
        let (mut m, _) = machine(&k, 32);
        m.shape = shape([2, 1, 1], [2, 1, 1]);
        m.cur_cta = [1, 0, 0];
        // Its own rank, or no rank byte where no other CTA can be named: its own memory.
        assert_eq!(m.cluster_shared(0x0100_0010, false), Ok((None, 0x10)));
        assert_eq!(m.cluster_shared(0x0100_0010, true), Ok((None, 0x10)));
        assert_eq!(m.cluster_shared(0x10, false), Ok((None, 0x10)));
        // A generic access's rank byte 0 is CTA 0.
        assert_eq!(m.cluster_shared(0x10, true), Ok((Some(0), 0x10)));
        // No CTA of rank 2; another CTA through LDS/STS is refused.
        assert!(m.cluster_shared(0x0200_0010, true).is_err());
        m.cur_cta = [0, 0, 0];
        let why = m.cluster_shared(0x0100_0010, false).unwrap_err();
        assert!(why.contains("rank 1"), "{why}");
        assert_eq!(m.cluster_shared(0x0100_0010, true), Ok((Some(1), 0x10)));
    }

    #[test]
    fn a_wait_blocks_until_every_thread_of_the_cluster_arrived() {
        let k = kernel(&["UCGABAR_ARV ;", "UCGABAR_WAIT ;", "EXIT ;"]);
        let (mut m, mut w) = machine(&k, 32);
        let mut other = Warp::new(1, 64, 0, [64, 1, 1]);
        m.cluster.barrier = ClusterBarrier::new(64);
        let mut shared = vec![0u8; 16];
        assert!(m.step(&mut w, [0; 3], &mut shared).unwrap(), "arrives");
        assert!(!m.step(&mut w, [0; 3], &mut shared).unwrap(), "waits");
        assert!(m.step(&mut other, [0; 3], &mut shared).unwrap(), "arrives");
        assert!(m.step(&mut w, [0; 3], &mut shared).unwrap(), "passes");
        assert!(m.step(&mut other, [0; 3], &mut shared).unwrap(), "passes");
        // A wait without an arrival is the program's fault.
        let k = kernel(&["UCGABAR_WAIT ;"]);
        let (mut m, mut w) = machine(&k, 32);
        m.cluster.barrier = ClusterBarrier::new(32);
        let e = m.step(&mut w, [0; 3], &mut shared).unwrap_err();
        assert!(e.is_kernel_misbehaviour(), "{e}");
    }
}
