//! The CTAs of a thread-block cluster running together (PTX ISA 7.8, sm_90): the cluster
//! barrier (`barrier.cluster.arrive`/`.wait`) and the addresses of other CTAs' shared memory
//! (`mapa`, `getctarank`; the accesses themselves resolve in `access.rs`, the scheduling of a
//! cluster's CTAs is `Machine::run_ctas`).
//!
//! The barrier: every thread of the cluster that has not exited must arrive before any waits
//! past it. Each lane records the phase it arrived in; an arrival completes the phase when the
//! arrivals equal the threads still running, and so does an exit of the last missing threads
//! (an exited thread is not waited for, and its arrival no longer counts). A wait passes for a
//! lane whose phase has completed; otherwise the warp ends its turn and tries again, as on an
//! incomplete `mbarrier` wait.

use super::{concrete, lanes, rd, Lanes, Step, Stop};
use crate::emu::decode::Src;
use crate::emu::domain::{Domain, Space};
use crate::emu::memory::{
    classify_generic, cluster_shared_addr, split_cluster_shared, SHARED_BASE,
};

/// No arrival pending (a lane's entry in [`ClusterBarrier`]'s per-lane phases).
pub(super) const NOT_ARRIVED: u64 = u64::MAX;

/// The cluster barrier's state.
#[derive(Clone, Debug, Default)]
pub(super) struct ClusterBarrier {
    /// The current phase.
    phase: u64,
    /// Threads still running that arrived in the current phase.
    arrived: u32,
    /// Threads of the cluster still running.
    running: u32,
}

impl ClusterBarrier {
    /// A barrier for a cluster of `threads` threads.
    pub fn new(threads: u32) -> Self {
        ClusterBarrier {
            phase: 0,
            arrived: 0,
            running: threads,
        }
    }

    /// `barrier.cluster.arrive` by `mask`'s lanes (`phases`: each lane's pending arrival);
    /// true when it completed the phase.
    pub fn arrive(&mut self, phases: &mut [u64; 32], mask: u32) -> Step<bool> {
        for l in lanes(mask) {
            if phases[l] != NOT_ARRIVED {
                return Err(Stop::Fault(
                    "barrier.cluster.arrive twice without a barrier.cluster.wait between".into(),
                    Some(l),
                ));
            }
            phases[l] = self.phase;
            self.arrived += 1;
        }
        Ok(self.complete())
    }

    /// `barrier.cluster.wait` by `mask`'s lanes: true when all may pass (their pending
    /// arrivals are then cleared), false when the warp must wait.
    pub fn wait(&self, phases: &mut [u64; 32], mask: u32) -> Step<bool> {
        for l in lanes(mask) {
            if phases[l] == NOT_ARRIVED {
                return Err(Stop::Fault(
                    "barrier.cluster.wait without a barrier.cluster.arrive before it".into(),
                    Some(l),
                ));
            }
            if phases[l] == self.phase {
                return Ok(false);
            }
        }
        for l in lanes(mask) {
            phases[l] = NOT_ARRIVED;
        }
        Ok(true)
    }

    /// `mask`'s lanes exit; true when that completed the phase.
    pub fn exit(&mut self, phases: &[u64; 32], mask: u32) -> bool {
        for l in lanes(mask) {
            self.running -= 1;
            if phases[l] == self.phase {
                self.arrived -= 1;
            }
        }
        self.complete()
    }

    fn complete(&mut self) -> bool {
        if self.running > 0 && self.arrived == self.running {
            self.phase += 1;
            self.arrived = 0;
            true
        } else {
            false
        }
    }
}

/// A shared-memory address of a `mapa`/`getctarank` operand: its space address, or a fault
/// when a generic one lies outside the shared window.
fn shared_address(generic: bool, a: u64, lane: usize) -> Step<u64> {
    if !generic {
        return Ok(a);
    }
    match classify_generic(a) {
        Some((Space::Shared, off)) => Ok(off),
        _ => Err(Stop::Fault(
            format!("generic address {a:#x} is not in the shared window"),
            Some(lane),
        )),
    }
}

/// `mapa`: the address of the location `a` names in CTA `rank` of a cluster of `ctas`.
pub(super) fn mapa<D: Domain>(
    l: Lanes<'_, '_, D>,
    (d, a, rank, generic): (u32, Src, Src, bool),
    ctas: u32,
) -> Step<()> {
    for lane in lanes(l.active) {
        let av = rd(l.dom, l.regs, a, lane, l.env)?;
        let av = concrete(l.dom, &av, "mapa address")?;
        let rv = rd(l.dom, l.regs, rank, lane, l.env)?;
        let r = concrete(l.dom, &rv, "mapa rank")? as u32;
        if r >= ctas {
            return Err(Stop::Fault(
                format!("mapa to CTA rank {r} of a cluster of {ctas}"),
                Some(lane),
            ));
        }
        let (_, off) = split_cluster_shared(shared_address(generic, av, lane)?);
        let out = cluster_shared_addr(r, off) + if generic { SHARED_BASE } else { 0 };
        l.regs[d as usize * 32 + lane] = l.dom.lit(out);
    }
    Ok(())
}

/// `getctarank`: the rank of the CTA whose shared memory `a` names (`own` for its own).
pub(super) fn getctarank<D: Domain>(
    l: Lanes<'_, '_, D>,
    (d, a, generic): (u32, Src, bool),
    own: u32,
) -> Step<()> {
    for lane in lanes(l.active) {
        let av = rd(l.dom, l.regs, a, lane, l.env)?;
        let av = concrete(l.dom, &av, "getctarank address")?;
        let (rank, _) = split_cluster_shared(shared_address(generic, av, lane)?);
        l.regs[d as usize * 32 + lane] = l.dom.lit(u64::from(rank.unwrap_or(own)));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_phase_completes_when_every_running_thread_arrived() {
        let mut b = ClusterBarrier::new(64);
        let (mut w0, mut w1) = ([NOT_ARRIVED; 32], [NOT_ARRIVED; 32]);
        assert!(!b.arrive(&mut w0, u32::MAX).unwrap());
        assert!(!b.wait(&mut w0, u32::MAX).unwrap());
        assert!(b.arrive(&mut w1, u32::MAX).unwrap());
        assert!(b.wait(&mut w0, u32::MAX).unwrap());
        assert!(b.wait(&mut w1, u32::MAX).unwrap());
        assert!(b.wait(&mut w1, 1).is_err(), "a wait needs an arrival");
    }

    #[test]
    fn exited_threads_are_not_waited_for() {
        let mut b = ClusterBarrier::new(64);
        let (mut w0, w1) = ([NOT_ARRIVED; 32], [NOT_ARRIVED; 32]);
        assert!(!b.arrive(&mut w0, u32::MAX).unwrap());
        assert!(!b.exit(&w1, 0xffff));
        assert!(b.exit(&w1, 0xffff_0000));
        assert!(b.wait(&mut w0, u32::MAX).unwrap());
        // An arrival of an exiting thread no longer counts.
        let mut b = ClusterBarrier::new(3);
        let mut w = [NOT_ARRIVED; 32];
        assert!(!b.arrive(&mut w, 0b11).unwrap());
        assert!(!b.exit(&w, 0b10));
        assert!(b.arrive(&mut w, 0b100).unwrap());
    }
}
