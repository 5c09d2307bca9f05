//! Execution of the tensor copies `cp.async.bulk.tensor` in tile mode (PTX ISA §9.7.9.25.5.2)
//! for the PTX interpreter ([`super`]): each active lane (a kernel issues them from one elected
//! lane) reads its tensor map ([`crate::emu::tensormap`]), moves one box between global and shared
//! memory, and — into shared memory — completes the box's bytes on the mbarrier.
//!
//! **Complete when issued**, like the other bulk copies ([`super::mbarrier`]): a race-free kernel
//! reads the box only after the mbarrier phase completes (or, out of shared memory, after
//! `cp.async.bulk.wait_group`), so this is observably the same as a later completion.

use super::access::MemView;
use super::mbarrier::complete_tx;
use super::{addr_value, check_writable, concrete, lanes, rd, Env, Step, Stop};
use crate::emu::decode::{ABase, Addr, TensorCopy};
use crate::emu::domain::{Domain, Space};
use crate::emu::tensormap::{box_address, TensorMap, MAP_BYTES};

/// The tensor map `lane` names: 128 bytes at a 64-byte aligned address, in the emulator's encoding.
fn read_map<D: Domain>(
    dom: &mut D,
    regs: &[D::Val],
    mem: &mut MemView,
    env: &Env,
    map: &Addr,
    lane: usize,
) -> Step<TensorMap> {
    let at = addr_value(dom, regs, map, lane, env)?;
    if at % 64 != 0 {
        return Err(Stop::Fault(
            format!("tensor map at {at:#x} is not 64-byte aligned"),
            Some(lane),
        ));
    }
    let mut bytes = [0u8; MAP_BYTES];
    for (k, chunk) in bytes.chunks_exact_mut(8).enumerate() {
        let (r, off) = mem.locate(map, at + 8 * k as u64, 8, 8, lane)?;
        let v = mem.load(dom, r, off, 8);
        chunk.copy_from_slice(&concrete(dom, &v, "tensor map")?.to_le_bytes());
    }
    TensorMap::decode(&bytes)
        .map_err(|e| Stop::Fault(format!("tensor map at {at:#x}: {e}"), Some(lane)))
}

/// Runs one `cp.async.bulk.tensor` for the active lanes; returns the global-memory reads.
pub(super) fn tensor_copy<D: Domain>(
    dom: &mut D,
    regs: &[D::Val],
    mem: &mut MemView,
    env: &Env,
    active: u32,
    copy: &TensorCopy,
) -> Step<u64> {
    let global = Addr {
        base: ABase::Abs(0),
        off: 0,
        space: Space::Global,
    };
    let mut global_reads = 0;
    for lane in lanes(active) {
        let map = read_map(dom, regs, mem, env, &copy.map, lane)?;
        if map.rank != copy.coords.len() {
            return Err(Stop::Fault(
                format!(
                    "a {}-dimensional copy through a tensor map of rank {}",
                    copy.coords.len(),
                    map.rank
                ),
                Some(lane),
            ));
        }
        let mut coords = Vec::with_capacity(map.rank);
        for c in &copy.coords {
            let v = rd(dom, regs, *c, lane, env)?;
            coords.push(concrete(dom, &v, "tensor coordinate")? as u32 as i32);
        }
        let start = addr_value(dom, regs, &copy.smem, lane, env)?;
        if start % 128 != 0 {
            return Err(Stop::Fault(
                format!("tensor copy: shared-memory address {start:#x} is not 128-byte aligned"),
                Some(lane),
            ));
        }
        let size = map.elem_size;
        let fill = dom.lit(map.nan.unwrap_or(0));
        map.try_for_each_element(&coords, |offset, g| {
            let s = box_address(map.swizzle, start, offset);
            let (sr, so) = mem.locate(&copy.smem, s, size, size, lane)?;
            if copy.to_shared {
                let v = match g {
                    Some(at) => {
                        let (gr, go) = mem.locate(&global, at, size, size, lane)?;
                        global_reads += 1;
                        mem.load(dom, gr, go, size)
                    }
                    None => fill.clone(),
                };
                mem.store(dom, sr, so, &v, size, lane)
            } else if let Some(at) = g {
                let (gr, go) = mem.locate(&global, at, size, size, lane)?;
                check_writable(gr, at, lane)?;
                let v = mem.load(dom, sr, so, size);
                mem.store(dom, gr, go, &v, size, lane)
            } else {
                Ok(())
            }
        })?;
        if let Some(m) = &copy.mbar {
            complete_tx(dom, regs, mem, env, m, lane, map.box_bytes())?;
        }
    }
    Ok(global_reads)
}
