//! The CTAs of a thread-block cluster running together (PTX ISA 7.8, sm_90): the addresses of
//! other CTAs' shared memory (`mapa`, `getctarank`; the accesses themselves resolve in
//! `access.rs`, the scheduling of a cluster's CTAs is `Machine::run_ctas`). The cluster barrier
//! (`barrier.cluster.arrive`/`.wait`) is [`crate::emu::cluster::ClusterBarrier`], one engine
//! with the SASS emulator's `UCGABAR`; a wait that cannot pass ends the warp's turn.

use super::{concrete, lanes, rd, Lanes, Step, Stop};
use crate::emu::cluster::BarrierMisuse;
use crate::emu::decode::Src;
use crate::emu::domain::{Domain, Space};
use crate::emu::memory::{
    classify_generic, cluster_shared_addr, split_cluster_shared, SHARED_BASE,
};

pub(super) use crate::emu::cluster::{ClusterBarrier, NOT_ARRIVED};

/// A misused `barrier.cluster` as the lane's fault.
pub(super) fn misuse(m: BarrierMisuse) -> Stop {
    Stop::Fault(format!("barrier.cluster: {}", m.what), Some(m.lane))
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
