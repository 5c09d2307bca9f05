//! Execution of `wgmma.mma_async` (PTX ISA §9.7.15.5): one warp's 16 rows of the warpgroup's
//! product, read from shared memory through the matrix descriptors (layouts and arithmetic in
//! [`crate::emu::wgmma`]).
//!
//! **Completion at issue.** The emulator performs a `wgmma` when it is issued (each warp its own
//! rows, see the `wgmma` module): the accumulator registers hold the result at once and
//! `wgmma.fence`/`commit_group`/`wait_group` have nothing left to do. A race-free program reads
//! the accumulators only after `wgmma.wait_group` and does not write the operands' shared memory
//! before it, so this is observably the same as a later completion.

use super::access::MemView;
use super::{concrete, rd, Env, Step, Stop};
use crate::emu::decode::{ABase, Addr, Src, WgmmaA};
use crate::emu::domain::{Domain, Space};
use crate::emu::wgmma::{self, Desc, WgmmaSpec};

const SHARED: Addr = Addr {
    base: ABase::Abs(0),
    off: 0,
    space: Space::Shared,
};

/// An operand that must be the same in all 32 lanes (descriptors, `scale-d`).
fn uniform<D: Domain>(
    dom: &mut D,
    regs: &[D::Val],
    env: &Env,
    src: Src,
    what: &'static str,
) -> Step<u64> {
    let mut first = None;
    for lane in 0..32 {
        let v = rd(dom, regs, src, lane, env)?;
        let v = concrete(dom, &v, what)?;
        if *first.get_or_insert(v) != v {
            return Err(Stop::Fault(
                format!("{what} differs between lanes"),
                Some(lane),
            ));
        }
    }
    Ok(first.unwrap_or(0))
}

fn descriptor<D: Domain>(dom: &mut D, regs: &[D::Val], env: &Env, src: Src) -> Step<Desc> {
    let v = uniform(dom, regs, env, src, "wgmma matrix descriptor")?;
    Desc::decode(v).map_err(Stop::Unsupported)
}

/// The bits of the `e`-byte element at shared address `at`.
fn element<D: Domain>(dom: &mut D, mem: &mut MemView, at: u64, e: u32) -> Step<u64> {
    let (region, off) = mem.locate(&SHARED, at, e, e, 0)?;
    let v = mem.load(dom, region, off, e);
    concrete(dom, &v, "wgmma operand in shared memory")
}

/// The warp's 16 rows of A (16×K, row-major element bits).
fn operand_a<D: Domain>(
    dom: &mut D,
    regs: &[D::Val],
    mem: &mut MemView,
    env: &Env,
    spec: &WgmmaSpec,
    a: &WgmmaA,
    mn_major: bool,
) -> Step<Vec<u64>> {
    let (k, e) = (spec.k, spec.elem_bytes());
    let mut out = vec![0u64; 16 * k as usize];
    match a {
        WgmmaA::Desc(src) => {
            let desc = descriptor(dom, regs, env, *src)?;
            let row0 = 16 * (env.warp % 4);
            for r in 0..16 {
                for x in 0..k {
                    let at = desc.addr(row0 + r, x, e, mn_major);
                    out[(r * k + x) as usize] = element(dom, mem, at, e)?;
                }
            }
        }
        WgmmaA::Regs(srcs) => {
            let (w, per) = (spec.a.bits(), spec.a.per_reg());
            let mask = (1u64 << w) - 1;
            for lane in 0..32u32 {
                for i in 0..(per * srcs.len()) {
                    let v = rd(dom, regs, srcs[i / per], lane as usize, env)?;
                    let word = concrete(dom, &v, "wgmma A register")?;
                    let (r, x) = wgmma::a_pos(spec, lane, i as u32);
                    out[(r * k + x) as usize] = (word >> ((i % per) as u32 * w)) & mask;
                }
            }
        }
    }
    Ok(out)
}

/// All of B (K×N, row-major element bits).
fn operand_b<D: Domain>(
    dom: &mut D,
    mem: &mut MemView,
    spec: &WgmmaSpec,
    desc: &Desc,
    mn_major: bool,
) -> Step<Vec<u64>> {
    let (k, n, e) = (spec.k, spec.n, spec.elem_bytes());
    let mut out = vec![0u64; (k * n) as usize];
    for x in 0..k {
        for c in 0..n {
            out[(x * n + c) as usize] = element(dom, mem, desc.addr(c, x, e, mn_major), e)?;
        }
    }
    Ok(out)
}

/// `wgmma.mma_async` for this warp's rows.
#[allow(clippy::too_many_arguments, reason = "the operands of the instruction")]
pub(super) fn wgmma<D: Domain>(
    dom: &mut D,
    regs: &mut [D::Val],
    mem: &mut MemView,
    env: &Env,
    spec: &WgmmaSpec,
    d: &[Option<u32>],
    (a, b): (&WgmmaA, Src),
    scale_d: Src,
    neg: (bool, bool),
    trans: (bool, bool),
) -> Step<()> {
    let scale = uniform(dom, regs, env, scale_d, "wgmma scale-d")? & 1 != 0;
    let av = operand_a(dom, regs, mem, env, spec, a, trans.0)?;
    let bdesc = descriptor(dom, regs, env, b)?;
    let bv = operand_b(dom, mem, spec, &bdesc, trans.1)?;
    let mut acc = vec![[0u64; 32]; d.len()];
    if scale {
        for (words, r) in acc.iter_mut().zip(d) {
            let Some(r) = r else { continue };
            for (lane, w) in words.iter_mut().enumerate() {
                let v = regs[*r as usize * 32 + lane].clone();
                *w = concrete(dom, &v, "wgmma accumulator")?;
            }
        }
    }
    let out = wgmma::compute(spec, &av, &bv, &acc, scale, neg);
    for (r, words) in d.iter().zip(&out) {
        let Some(r) = r else { continue };
        for (lane, w) in words.iter().enumerate() {
            regs[*r as usize * 32 + lane] = dom.lit(*w);
        }
    }
    Ok(())
}
