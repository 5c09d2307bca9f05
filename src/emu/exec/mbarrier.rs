//! Execution of `mbarrier` (PTX ISA §9.7.13.15) and of `cp.async.bulk` between global and shared
//! memory (§9.7.9.25.4). The object's state machine is [`crate::emu::mbarrier`].
//!
//! Lanes act in lane order, each a read-modify-write of the 64-bit object (like atomics).
//! `try_wait`/`test_wait` answer at once; when a lane's phase has not completed, the warp gives
//! up the rest of its turn so that the other warps can arrive (a spin loop on `try_wait` thus
//! costs one instruction per round, not a whole quantum).
//!
//! **Bulk copies complete when issued**: the bytes are copied and, into shared memory, the
//! transaction bytes are completed on the mbarrier at once (the transaction count may go
//! negative until the matching `expect_tx`). A race-free program reads the destination only after
//! the mbarrier phase completes (or, from shared to global, after `cp.async.bulk.wait_group`), so
//! this is observably the same as a later completion.

use super::access::MemView;
use super::{addr_value, check_writable, concrete, lanes, rd, Env, Step, Stop};
use crate::emu::decode::{Addr, MbarOp, Src};
use crate::emu::domain::Domain;
use crate::emu::mbarrier::Mbar;
use crate::emu::memory::Region;

/// The object of `lane`: its location (checked: 8 bytes, aligned, writable).
fn object<D: Domain>(
    dom: &mut D,
    regs: &[D::Val],
    mem: &MemView,
    env: &Env,
    addr: &Addr,
    lane: usize,
) -> Step<(Region, u64)> {
    let at = addr_value(dom, regs, addr, lane, env)?;
    let (region, off) = mem.locate(addr, at, 8, 8, lane)?;
    // Another CTA's object: the arrivals and transactions of `.shared::cluster` forms.
    if !matches!(region, Region::Shared | Region::PeerShared(_)) {
        return Err(Stop::Fault(
            format!("mbarrier object at {at:#x} is not in shared memory"),
            Some(lane),
        ));
    }
    check_writable(region, at, lane)?;
    Ok((region, off))
}

fn read_word<D: Domain>(dom: &mut D, mem: &mut MemView, (r, off): (Region, u64)) -> Step<u64> {
    let v = mem.load(dom, r, off, 8);
    concrete(dom, &v, "mbarrier object")
}

/// Executes an `mbarrier` operation for the active lanes; returns true when a wait found its
/// phase incomplete in some lane (the warp should yield).
#[allow(clippy::too_many_arguments, reason = "the operands of the instruction")]
pub(super) fn mbarrier<D: Domain>(
    dom: &mut D,
    regs: &mut [D::Val],
    mem: &mut MemView,
    env: &Env,
    active: u32,
    (op, d, addr, a): (MbarOp, Option<u32>, &Addr, Option<Src>),
) -> Step<bool> {
    let mut waiting = false;
    for lane in lanes(active) {
        let loc = object(dom, regs, mem, env, addr, lane)?;
        let arg = match a {
            Some(s) => {
                let v = rd(dom, regs, s, lane, env)?;
                Some(concrete(dom, &v, "mbarrier operand")?)
            }
            None => None,
        };
        let fault = |e: String| Stop::Fault(e, Some(lane));
        let (new, result) = match op {
            MbarOp::Init => (
                Some(Mbar::init(arg.unwrap_or(0)).map_err(fault)?.encode()),
                None,
            ),
            MbarOp::Inval => (Some(0), None),
            MbarOp::Arrive {
                expect_tx,
                drop,
                no_complete,
            } => {
                let old = read_word(dom, mem, loc)?;
                let mut m = Mbar::decode(old);
                let count = if expect_tx {
                    m.tx(arg.unwrap_or(0), 1).map_err(fault)?;
                    1
                } else {
                    arg.unwrap_or(1)
                };
                m.arrive(count, drop, no_complete).map_err(fault)?;
                (Some(m.encode()), Some(old))
            }
            MbarOp::ExpectTx | MbarOp::CompleteTx => {
                let mut m = Mbar::decode(read_word(dom, mem, loc)?);
                let sign = if op == MbarOp::ExpectTx { 1 } else { -1 };
                m.tx(arg.unwrap_or(0), sign).map_err(fault)?;
                (Some(m.encode()), None)
            }
            MbarOp::Wait { parity } => {
                let m = Mbar::decode(read_word(dom, mem, loc)?);
                let x = arg.unwrap_or(0);
                let done = if parity {
                    m.parity_done(x)
                } else {
                    m.phase_done(x)
                };
                waiting |= !done;
                (None, Some(u64::from(done)))
            }
        };
        if let Some(w) = new {
            let v = dom.lit(w);
            mem.store(dom, loc.0, loc.1, &v, 8, lane)?;
        }
        if let (Some(r), Some(x)) = (d, result) {
            regs[r as usize * 32 + lane] = dom.lit(x);
        }
    }
    Ok(waiting)
}

/// `cp.async.bulk` for the active lanes: copies `size` bytes (a multiple of 16, both addresses
/// 16-byte aligned), then completes the transaction bytes on `mbar`.
#[allow(clippy::too_many_arguments, reason = "the operands of the instruction")]
pub(super) fn bulk_copy<D: Domain>(
    dom: &mut D,
    regs: &[D::Val],
    mem: &mut MemView,
    env: &Env,
    active: u32,
    (dst, src, size, mbar): (&Addr, &Addr, Src, Option<&Addr>),
) -> Step<u64> {
    let mut global_reads = 0;
    for lane in lanes(active) {
        let n = rd(dom, regs, size, lane, env)?;
        let n = concrete(dom, &n, "cp.async.bulk size")?;
        if n % 16 != 0 {
            return Err(Stop::Fault(
                format!("cp.async.bulk size {n} is not a multiple of 16"),
                Some(lane),
            ));
        }
        let (da, sa) = (
            addr_value(dom, regs, dst, lane, env)?,
            addr_value(dom, regs, src, lane, env)?,
        );
        for k in (0..n).step_by(8) {
            let align = if k == 0 { 16 } else { 8 };
            let (sr, so) = mem.locate(src, sa.wrapping_add(k), 8, align, lane)?;
            let (dr, doff) = mem.locate(dst, da.wrapping_add(k), 8, align, lane)?;
            check_writable(dr, da.wrapping_add(k), lane)?;
            let v = mem.load(dom, sr, so, 8);
            mem.store(dom, dr, doff, &v, 8, lane)?;
            global_reads += u64::from(matches!(sr, Region::Global(_)));
        }
        if let Some(m) = mbar {
            complete_tx(dom, regs, mem, env, m, lane, n)?;
        }
    }
    Ok(global_reads)
}

/// Completes `bytes` transaction bytes of `lane`'s copy on the mbarrier at `mbar`.
pub(super) fn complete_tx<D: Domain>(
    dom: &mut D,
    regs: &[D::Val],
    mem: &mut MemView,
    env: &Env,
    mbar: &Addr,
    lane: usize,
    bytes: u64,
) -> Step<()> {
    let loc = object(dom, regs, mem, env, mbar, lane)?;
    let mut b = Mbar::decode(read_word(dom, mem, loc)?);
    b.tx(bytes, -1).map_err(|e| Stop::Fault(e, Some(lane)))?;
    let v = dom.lit(b.encode());
    mem.store(dom, loc.0, loc.1, &v, 8, lane)
}
