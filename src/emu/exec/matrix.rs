//! Execution of the warp-level matrix instructions (`ldmatrix`, `stmatrix`, `mma.sync`; PTX ISA
//! §9.7.14.5) and of `cp.async` with its commit and wait groups (§9.7.9.25).
//!
//! The fragment layouts and the arithmetic are in [`crate::emu::tensor`]; this module moves
//! values between the warp's registers and memory. `ldmatrix`/`stmatrix` move 16-bit elements
//! through the value domain (a symbolic domain sees ordinary loads and stores); `mma` needs
//! concrete operands.
//!
//! # `cp.async`: copies complete at the wait
//!
//! A copy is checked (bounds, alignment, `src-size`) when it is issued and queued per thread; it
//! joins the thread's next `cp.async.commit_group`. `cp.async.wait_group N` performs, in issue
//! order, every copy of the executing threads whose group is older than their `N` most recent
//! groups (`wait_all` commits first and performs all of them). The copy reads its source when it
//! is performed. For a race-free program this is observably the same as any completion time the
//! hardware may choose: nobody may read the destination, or write the source, between the issue
//! and the wait. A program that reads the destination too early sees the old contents, so a
//! rewrite that drops or moves a wait changes the result instead of passing unnoticed. Copies
//! never waited for (a thread that exits with copies in flight) are dropped: no synchronised
//! reader can observe them.

use super::access::MemView;
use super::{addr_value, check_writable, concrete, lanes, misrouted, rd, Env, Lanes, Step, Stop};
use crate::emu::decode::{Addr, CpFill, DInst, Src};
use crate::emu::domain::{Domain, Op};
use crate::emu::memory::Region;
use crate::emu::tensor::{self, MmaSpec, Operand as MOp};

/// Executes `ldmatrix`, `stmatrix`, `mma.sync` or `wgmma.mma_async` (`step` routes only those
/// here), which need the whole warp.
pub(super) fn exec<D: Domain>(l: Lanes<'_, '_, D>, mem: &mut MemView, kind: &DInst) -> Step<()> {
    let Lanes {
        dom,
        regs,
        env,
        active,
        ..
    } = l;
    if active == 0 {
        return Ok(());
    }
    match kind {
        DInst::Ldmatrix { trans, dsts, addr } => {
            require_full_warp(active, "ldmatrix")?;
            ldmatrix(dom, regs, mem, env, *trans, dsts, addr)
        }
        DInst::Stmatrix { trans, srcs, addr } => {
            require_full_warp(active, "stmatrix")?;
            stmatrix(dom, regs, mem, env, *trans, srcs, addr)
        }
        DInst::Mma { spec, d, a, b, c } => {
            require_full_warp(active, "mma")?;
            mma(dom, regs, env, spec, d, a, b, c)
        }
        DInst::Wgmma {
            spec,
            d,
            a,
            b,
            scale_d,
            neg,
            trans,
        } => {
            require_full_warp(active, "wgmma.mma_async")?;
            super::wgmma::wgmma(
                dom,
                regs,
                mem,
                env,
                spec,
                d,
                (a, *b),
                *scale_d,
                *neg,
                *trans,
            )
        }
        other => Err(misrouted("a matrix instruction", other)),
    }
}

/// `.sync.aligned` warp-collective instructions need the whole warp.
pub(super) fn require_full_warp(active: u32, what: &str) -> Step<()> {
    if active == u32::MAX {
        return Ok(());
    }
    Err(Stop::Fault(
        format!(
            "`{what}` is executed by lanes {active:#010x}: all 32 lanes of the warp must execute \
             it together (.sync.aligned)"
        ),
        Some((!active).trailing_zeros() as usize),
    ))
}

/// Row `row` of matrix `i`: its (region, offset) after checking the 16-byte row is in bounds
/// and 16-byte aligned; `lane` supplied the address.
fn matrix_row<D: Domain>(
    dom: &mut D,
    regs: &[D::Val],
    mem: &MemView,
    env: &Env,
    addr: &Addr,
    i: u32,
    row: u32,
) -> Step<(Region, u64, usize)> {
    let lane = tensor::row_addr_lane(i, row);
    let at = addr_value(dom, regs, addr, lane, env)?;
    let (region, off) = mem.locate(addr, at, 16, 16, lane)?;
    Ok((region, off, lane))
}

/// `ldmatrix`: loads `dsts.len()` 8×8 matrices of 16-bit elements into the warp's fragments.
#[allow(
    clippy::too_many_arguments,
    reason = "the interpreter's disjoint state"
)]
pub(super) fn ldmatrix<D: Domain>(
    dom: &mut D,
    regs: &mut [D::Val],
    mem: &mut MemView,
    env: &Env,
    trans: bool,
    dsts: &[Option<u32>],
    addr: &Addr,
) -> Step<()> {
    for (i, dst) in dsts.iter().enumerate() {
        let i = i as u32;
        // halves[lane * 2 + h]
        let mut halves: Vec<D::Val> = vec![dom.lit(0); 64];
        for row in 0..8 {
            let (region, off, _) = matrix_row(dom, regs, mem, env, addr, i, row)?;
            for col in 0..8 {
                let v = mem.load(dom, region, off + 2 * u64::from(col), 2);
                let (lane, h) = tensor::matrix_holder(row, col, trans);
                halves[lane * 2 + h as usize] = v;
            }
        }
        let Some(d) = dst else { continue };
        let sixteen = dom.lit(16);
        for lane in 0..32 {
            let lo = halves[lane * 2].clone();
            let hi = dom.apply(
                Op::Shl { bits: 32 },
                &[halves[lane * 2 + 1].clone(), sixteen.clone()],
            )?;
            regs[*d as usize * 32 + lane] = dom.apply(Op::Or { bits: 32 }, &[lo, hi])?;
        }
    }
    Ok(())
}

/// `stmatrix`: stores the warp's fragments of `srcs.len()` 8×8 matrices of 16-bit elements.
#[allow(
    clippy::too_many_arguments,
    reason = "the interpreter's disjoint state"
)]
pub(super) fn stmatrix<D: Domain>(
    dom: &mut D,
    regs: &[D::Val],
    mem: &mut MemView,
    env: &Env,
    trans: bool,
    srcs: &[Src],
    addr: &Addr,
) -> Step<()> {
    let sixteen = dom.lit(16);
    for (i, src) in srcs.iter().enumerate() {
        let i = i as u32;
        for row in 0..8 {
            let (region, off, alane) = matrix_row(dom, regs, mem, env, addr, i, row)?;
            check_writable(region, off, alane)?;
            for col in 0..8 {
                let (lane, h) = tensor::matrix_holder(row, col, trans);
                let mut v = rd(dom, regs, *src, lane, env)?;
                if h == 1 {
                    v = dom.apply(
                        Op::Shr {
                            bits: 32,
                            signed: false,
                        },
                        &[v, sixteen.clone()],
                    )?;
                }
                mem.store(dom, region, off + 2 * u64::from(col), &v, 2, alane)?;
            }
        }
    }
    Ok(())
}

/// The concrete words of a fragment's registers for all 32 lanes.
fn fragment<D: Domain>(
    dom: &mut D,
    regs: &[D::Val],
    env: &Env,
    srcs: &[Src],
) -> Step<Vec<[u64; 32]>> {
    let mut out = vec![[0u64; 32]; srcs.len()];
    for (words, src) in out.iter_mut().zip(srcs) {
        for (lane, w) in words.iter_mut().enumerate() {
            let v = rd(dom, regs, *src, lane, env)?;
            *w = concrete(dom, &v, "mma operand")?;
        }
    }
    Ok(out)
}

/// `mma.sync.aligned`: `d = a·b + c` (all operands read before `d` is written).
#[allow(
    clippy::too_many_arguments,
    reason = "the four matrices of the instruction"
)]
pub(super) fn mma<D: Domain>(
    dom: &mut D,
    regs: &mut [D::Val],
    env: &Env,
    spec: &MmaSpec,
    d: &[Option<u32>],
    a: &[Src],
    b: &[Src],
    c: &[Src],
) -> Step<()> {
    let fa = fragment(dom, regs, env, a)?;
    let fb = fragment(dom, regs, env, b)?;
    let fc = fragment(dom, regs, env, c)?;
    let out = tensor::mma(spec, &fa, &fb, &fc);
    debug_assert_eq!(out.len(), spec.regs(MOp::D));
    for (dst, vals) in d.iter().zip(&out) {
        let Some(r) = dst else { continue };
        for (lane, v) in vals.iter().enumerate() {
            regs[*r as usize * 32 + lane] = dom.lit(*v);
        }
    }
    Ok(())
}

/// A copy in flight.
#[derive(Clone, Debug)]
struct Pending {
    lane: u8,
    /// The commit group (the thread's group count after its commit); `None` before the commit.
    group: Option<u32>,
    dst: (Region, u64),
    /// The source; `None` when nothing is read (`src-size` 0).
    src: Option<(Region, u64)>,
    size: u32,
    src_size: u32,
}

/// A warp's `cp.async` state: copies in flight and each thread's count of committed groups.
#[derive(Clone, Debug, Default)]
pub(super) struct AsyncCopies {
    pending: Vec<Pending>,
    committed: [u32; 32],
}

/// How many bytes of the source a lane's copy reads.
fn src_bytes<D: Domain>(
    dom: &mut D,
    regs: &[D::Val],
    env: &Env,
    fill: CpFill,
    size: u32,
    lane: usize,
) -> Step<u32> {
    Ok(match fill {
        CpFill::Full => size,
        CpFill::SrcSize(s) => {
            let v = rd(dom, regs, s, lane, env)?;
            let n = concrete(dom, &v, "cp.async src-size")?;
            if n > u64::from(size) {
                return Err(Stop::Fault(
                    format!("cp.async src-size {n} exceeds the copy size {size}"),
                    Some(lane),
                ));
            }
            n as u32
        }
        CpFill::IgnoreSrc(p) => {
            let v = rd(dom, regs, p, lane, env)?;
            if concrete(dom, &v, "cp.async ignore-src predicate")? & 1 != 0 {
                0
            } else {
                size
            }
        }
    })
}

/// Issues `cp.async` for the active lanes: checks both sides and queues the copies. Returns the
/// number of copies that read global memory.
#[allow(
    clippy::too_many_arguments,
    reason = "the interpreter's disjoint state"
)]
pub(super) fn cp_async_issue<D: Domain>(
    dom: &mut D,
    regs: &[D::Val],
    mem: &MemView,
    env: &Env,
    active: u32,
    q: &mut AsyncCopies,
    (size, fill): (u32, CpFill),
    dst: &Addr,
    src: &Addr,
) -> Step<u64> {
    let mut reads = 0;
    for lane in lanes(active) {
        let src_size = src_bytes(dom, regs, env, fill, size, lane)?;
        let da = addr_value(dom, regs, dst, lane, env)?;
        let d = mem.locate(dst, da, size, size, lane)?;
        let s = if src_size == 0 {
            None
        } else {
            let sa = addr_value(dom, regs, src, lane, env)?;
            // The copy's alignment is its full size; the bytes read are the first src-size.
            if sa % u64::from(size) != 0 {
                return Err(Stop::Fault(
                    format!("cp.async source {sa:#x} is not aligned to the copy size {size}"),
                    Some(lane),
                ));
            }
            let first = mem.locate(src, sa, 1, 1, lane)?;
            mem.locate(src, sa.wrapping_add(u64::from(src_size) - 1), 1, 1, lane)?;
            reads += 1;
            Some(first)
        };
        q.pending.push(Pending {
            lane: lane as u8,
            group: None,
            dst: d,
            src: s,
            size,
            src_size,
        });
    }
    Ok(reads)
}

/// `cp.async.commit_group` for the active lanes.
pub(super) fn cp_async_commit(q: &mut AsyncCopies, active: u32) {
    for lane in lanes(active) {
        q.committed[lane] += 1;
        let g = q.committed[lane];
        for p in q.pending.iter_mut() {
            if usize::from(p.lane) == lane && p.group.is_none() {
                p.group = Some(g);
            }
        }
    }
}

/// `cp.async.wait_group keep` for the active lanes: performs their copies of every group but the
/// `keep` most recent ones, in issue order.
pub(super) fn cp_async_wait<D: Domain>(
    dom: &mut D,
    mem: &mut MemView,
    q: &mut AsyncCopies,
    active: u32,
    keep: u32,
) -> Step<()> {
    let committed = q.committed;
    let (done, rest): (Vec<Pending>, Vec<Pending>) = q.pending.drain(..).partition(|p| {
        active & (1 << p.lane) != 0
            && p.group
                .is_some_and(|g| g + keep <= committed[usize::from(p.lane)])
    });
    q.pending = rest;
    for p in &done {
        perform(dom, mem, p)?;
    }
    Ok(())
}

/// Performs every copy in flight of the active lanes, committed or not, in issue order
/// (`cp.async.mbarrier.arrive`).
pub(super) fn cp_async_flush<D: Domain>(
    dom: &mut D,
    mem: &mut MemView,
    q: &mut AsyncCopies,
    active: u32,
) -> Step<()> {
    let (done, rest): (Vec<Pending>, Vec<Pending>) = q
        .pending
        .drain(..)
        .partition(|p| active & (1 << p.lane) != 0);
    q.pending = rest;
    for p in &done {
        perform(dom, mem, p)?;
    }
    Ok(())
}

/// Performs one copy: `src_size` bytes from the source, zeros for the rest.
fn perform<D: Domain>(dom: &mut D, mem: &mut MemView, p: &Pending) -> Step<()> {
    let lane = usize::from(p.lane);
    let (dr, doff) = p.dst;
    // Whole copies move in 8-byte (or 4-byte) pieces; partial ones byte by byte.
    let piece = if p.src_size == p.size {
        p.size.min(8)
    } else {
        1
    };
    let mut k = 0;
    while k < p.size {
        let v = match p.src {
            Some((sr, soff)) if k < p.src_size => mem.load(dom, sr, soff + u64::from(k), piece),
            _ => dom.lit(0),
        };
        mem.store(dom, dr, doff + u64::from(k), &v, piece, lane)?;
        k += piece;
    }
    Ok(())
}
