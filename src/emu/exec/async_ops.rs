//! The asynchronous instructions of the PTX interpreter ([`super`]): `cp.async` with its commit
//! and wait groups (PTX ISA §9.7.9.25; the queue is [`super::matrix`]'s),
//! `cp.async.mbarrier.arrive`, the `mbarrier` operations (§9.7.13.15) and the bulk copy
//! `cp.async.bulk` (§9.7.9.25.4; [`super::mbarrier`]) and `cp.async.bulk.tensor`
//! ([`super::tensor_copy`]). What they change beyond the warp's
//! registers and memory is returned to the scheduler as an [`AsyncEffect`].

use super::access::MemView;
use super::matrix::{self, AsyncCopies};
use super::{concrete, lanes, mbarrier, misrouted, rd, tensor_copy, Lanes, Step};
use crate::emu::decode::{DInst, MbarOp};
use crate::emu::domain::Domain;

/// What an asynchronous instruction tells the warp scheduler.
#[derive(Default)]
pub(super) struct AsyncEffect {
    /// Global-memory reads it issued.
    pub global_loads: u64,
    /// `mbarrier` states it changed (an arrival or a transaction), for the deadlock detector.
    pub mbar_changes: u64,
    /// After an `mbarrier` operation: whether the warp should give up its turn (a failed wait).
    pub yield_warp: Option<bool>,
}

/// Executes one asynchronous instruction (`step` routes only those here).
pub(super) fn exec<D: Domain>(
    l: Lanes<'_, '_, D>,
    mem: &mut MemView,
    async_copies: &mut AsyncCopies,
    kind: &DInst,
) -> Step<AsyncEffect> {
    let Lanes {
        dom,
        regs,
        env,
        active,
        ..
    } = l;
    let mut done = AsyncEffect::default();
    match kind {
        DInst::CpAsync {
            size,
            fill,
            dst,
            src,
        } => {
            done.global_loads = matrix::cp_async_issue(
                dom,
                regs,
                mem,
                env,
                active,
                async_copies,
                (*size, *fill),
                dst,
                src,
            )?;
        }
        DInst::CpAsyncCommit => matrix::cp_async_commit(async_copies, active),
        DInst::CpAsyncMbarArrive { noinc, addr } => {
            matrix::cp_async_flush(dom, mem, async_copies, active)?;
            if *noinc && active != 0 {
                let arrive = MbarOp::Arrive {
                    expect_tx: false,
                    drop: false,
                    no_complete: false,
                };
                mbarrier::mbarrier(dom, regs, mem, env, active, (arrive, None, addr, None))?;
                done.mbar_changes = 1;
            }
        }
        DInst::Mbarrier { op, d, addr, a } => {
            done.yield_warp = Some(mbarrier::mbarrier(
                dom,
                regs,
                mem,
                env,
                active,
                (*op, *d, addr, *a),
            )?);
            if !matches!(op, MbarOp::Wait { .. }) && active != 0 {
                done.mbar_changes = 1;
            }
        }
        DInst::MbarPending { d, a } => {
            for lane in lanes(active) {
                let v = rd(dom, regs, *a, lane, env)?;
                let v = concrete(dom, &v, "mbarrier state")?;
                regs[*d as usize * 32 + lane] = dom.lit(crate::emu::mbarrier::pending_count(v));
            }
        }
        DInst::BulkCopy {
            dst,
            src,
            size,
            mbar,
        } => {
            done.mbar_changes = u64::from(active != 0);
            done.global_loads = mbarrier::bulk_copy(
                dom,
                regs,
                mem,
                env,
                active,
                (dst, src, *size, mbar.as_ref()),
            )?;
        }
        DInst::TensorCopy(copy) => {
            done.mbar_changes = u64::from(active != 0 && copy.mbar.is_some());
            done.global_loads = tensor_copy::tensor_copy(dom, regs, mem, env, active, copy)?;
        }
        DInst::CpAsyncWait { keep, commit } => {
            if *commit {
                matrix::cp_async_commit(async_copies, active);
            }
            matrix::cp_async_wait(dom, mem, async_copies, active, *keep)?;
        }
        other => return Err(misrouted("an asynchronous instruction", other)),
    }
    Ok(done)
}
