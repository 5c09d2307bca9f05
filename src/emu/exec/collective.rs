//! The warp-level collective instructions of the PTX interpreter ([`super`]): `bar.warp.sync`,
//! `shfl.sync` (PTX ISA §9.7.9.6), `vote` (§9.7.13.7), `match.sync` (§9.7.13.8), `redux.sync`
//! (§9.7.13.9), `activemask` (§9.7.13.10) and `elect.sync` (§9.7.13.11). A `.sync` form's member
//! mask is checked against the lanes that execute it (`check_members`): members on another path
//! of a diverged warp are a limit of this emulator, not a guess.

use super::misrouted;
use super::{check_members, concrete, lanes, rd, uniform_mask, Env, Lanes, Step};
use crate::emu::decode::{DInst, ReduxOp, ShflMode, Src, VoteMode};
use crate::emu::domain::Domain;

/// Executes one of this module's instructions (`step` routes only those here).
pub(super) fn exec<D: Domain>(l: Lanes<'_, '_, D>, kind: &DInst) -> Step<()> {
    match kind {
        DInst::WarpSync { mask } => warp_sync(l, mask),
        DInst::Shfl {
            mode,
            d,
            p,
            a,
            b,
            c,
            mask,
        } => shfl(l, mode, (d, p), (a, b, c), mask),
        DInst::Vote {
            mode,
            d,
            pred,
            mask,
        } => vote(l, mode, d, pred, mask),
        DInst::Match {
            all,
            bits,
            d,
            p,
            a,
            mask,
        } => match_sync(l, (all, bits), (d, p), a, mask),
        DInst::Redux {
            op,
            signed,
            d,
            a,
            mask,
        } => redux(l, (op, signed), d, a, mask),
        DInst::Activemask { d } => activemask(l, d),
        DInst::Elect { d, p, mask } => elect(l, (d, p), mask),
        other => Err(misrouted("a warp collective", other)),
    }
}

/// `bar.warp.sync`: checks the member mask.
fn warp_sync<D: Domain>(l: Lanes<'_, '_, D>, mask: &Src) -> Step<()> {
    let Lanes {
        dom,
        regs,
        env,
        active,
        live,
        alive,
        ..
    } = l;
    if active != 0 {
        checked_members(dom, regs, env, *mask, (active, live, alive))?;
    }
    Ok(())
}

/// `shfl.sync`: each lane reads `a` from the lane `mode` names (its own where out of range), `p`
/// saying whether that lane was in range.
fn shfl<D: Domain>(
    l: Lanes<'_, '_, D>,
    mode: &ShflMode,
    (d, p): (&u32, &Option<u32>),
    (a, b, c): (&Src, &Src, &Src),
    mask: &Option<Src>,
) -> Step<()> {
    let Lanes {
        dom,
        regs,
        env,
        active,
        live,
        alive,
        ..
    } = l;
    if active != 0 {
        if let Some(mk) = mask {
            checked_members(dom, regs, env, *mk, (active, live, alive))?;
        }
        let mut out: Vec<(usize, D::Val, bool)> = Vec::with_capacity(32);
        for lane in lanes(active) {
            let bv = rd(dom, regs, *b, lane, env)?;
            let bv = concrete(dom, &bv, "shfl lane operand")? & 0x1f;
            let cv = rd(dom, regs, *c, lane, env)?;
            let cv = concrete(dom, &cv, "shfl clamp operand")?;
            let l = lane as i64;
            let seg = ((cv >> 8) & 0x1f) as i64;
            let clamp = (cv & 0x1f) as i64;
            let max_lane = (l & seg) | (clamp & !seg);
            let min_lane = l & seg;
            let bv = bv as i64;
            let (j, pval) = match mode {
                ShflMode::Up => (l - bv, l - bv >= max_lane),
                ShflMode::Down => (l + bv, l + bv <= max_lane),
                ShflMode::Bfly => (l ^ bv, (l ^ bv) <= max_lane),
                ShflMode::Idx => {
                    let j = min_lane | (bv & !seg);
                    (j, j <= max_lane)
                }
            };
            let j = if pval && (0..32).contains(&j) {
                j as usize
            } else {
                lane
            };
            let v = rd(dom, regs, *a, j, env)?;
            out.push((lane, v, pval));
        }
        for (lane, v, pval) in out {
            regs[*d as usize * 32 + lane] = v;
            if let Some(p) = p {
                regs[*p as usize * 32 + lane] = dom.lit(u64::from(pval));
            }
        }
    }
    Ok(())
}

/// `vote`: the ballot of `pred` over the members, or whether all, any or none-or-all hold.
fn vote<D: Domain>(
    l: Lanes<'_, '_, D>,
    mode: &VoteMode,
    d: &u32,
    pred: &Src,
    mask: &Option<Src>,
) -> Step<()> {
    let Lanes {
        dom,
        regs,
        env,
        active,
        live,
        alive,
        ..
    } = l;
    if active != 0 {
        let members = match mask {
            Some(mk) => checked_members(dom, regs, env, *mk, (active, live, alive))? & active,
            None => active,
        };
        let mut ballot = 0u32;
        for lane in lanes(members) {
            let v = rd(dom, regs, *pred, lane, env)?;
            if concrete(dom, &v, "vote predicate")? & 1 != 0 {
                ballot |= 1 << lane;
            }
        }
        let r = match mode {
            VoteMode::Ballot => u64::from(ballot),
            VoteMode::All => u64::from(ballot == members),
            VoteMode::Any => u64::from(ballot != 0),
            VoteMode::Uni => u64::from(ballot == 0 || ballot == members),
        };
        for lane in lanes(active) {
            regs[*d as usize * 32 + lane] = dom.lit(r);
        }
    }
    Ok(())
}

/// `match.any`/`match.all`: the members holding the same `bits`-bit value.
fn match_sync<D: Domain>(
    l: Lanes<'_, '_, D>,
    (all, bits): (&bool, &u32),
    (d, p): (&u32, &Option<u32>),
    a: &Src,
    mask: &Src,
) -> Step<()> {
    let Lanes {
        dom,
        regs,
        env,
        active,
        live,
        alive,
        ..
    } = l;
    if active != 0 {
        let members = checked_members(dom, regs, env, *mask, (active, live, alive))? & active;
        let wmask = if *bits >= 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        let mut vals = [0u64; 32];
        for lane in lanes(members) {
            let v = rd(dom, regs, *a, lane, env)?;
            vals[lane] = concrete(dom, &v, "match value")? & wmask;
        }
        for lane in lanes(active) {
            let same: u32 = lanes(members)
                .filter(|&o| vals[o] == vals[lane])
                .fold(0, |acc, o| acc | (1 << o));
            let (dv, pv) = if *all {
                if same == members {
                    (u64::from(members), true)
                } else {
                    (0, false)
                }
            } else {
                (u64::from(same), false)
            };
            regs[*d as usize * 32 + lane] = dom.lit(dv);
            if let Some(p) = p {
                regs[*p as usize * 32 + lane] = dom.lit(u64::from(pv));
            }
        }
    }
    Ok(())
}

/// `redux.sync`: `op` over the members' 32-bit values.
fn redux<D: Domain>(
    l: Lanes<'_, '_, D>,
    (op, signed): (&ReduxOp, &bool),
    d: &u32,
    a: &Src,
    mask: &Src,
) -> Step<()> {
    let Lanes {
        dom,
        regs,
        env,
        active,
        live,
        alive,
        ..
    } = l;
    if active != 0 {
        let members = checked_members(dom, regs, env, *mask, (active, live, alive))? & active;
        let mut acc: Option<u64> = None;
        for lane in lanes(members) {
            let v = rd(dom, regs, *a, lane, env)?;
            let v = concrete(dom, &v, "redux value")? & 0xffff_ffff;
            acc = Some(match acc {
                None => v,
                Some(x) => match op {
                    ReduxOp::Add => (x + v) & 0xffff_ffff,
                    ReduxOp::And => x & v,
                    ReduxOp::Or => x | v,
                    ReduxOp::Xor => x ^ v,
                    ReduxOp::Min if *signed => {
                        ((x as u32 as i32).min(v as u32 as i32)) as u32 as u64
                    }
                    ReduxOp::Max if *signed => {
                        ((x as u32 as i32).max(v as u32 as i32)) as u32 as u64
                    }
                    ReduxOp::Min => x.min(v),
                    ReduxOp::Max => x.max(v),
                },
            });
        }
        let r = acc.unwrap_or(0);
        for lane in lanes(active) {
            regs[*d as usize * 32 + lane] = dom.lit(r);
        }
    }
    Ok(())
}

/// `activemask`: the lanes on this path that have not exited.
fn activemask<D: Domain>(l: Lanes<'_, '_, D>, d: &u32) -> Step<()> {
    let Lanes {
        dom,
        regs,
        active,
        live,
        ..
    } = l;
    for lane in lanes(active) {
        regs[*d as usize * 32 + lane] = dom.lit(u64::from(live));
    }
    Ok(())
}

/// `elect.sync`: the lowest member lane leads.
fn elect<D: Domain>(
    l: Lanes<'_, '_, D>,
    (d, p): (&Option<u32>, &Option<u32>),
    mask: &Src,
) -> Step<()> {
    let Lanes {
        dom,
        regs,
        env,
        active,
        live,
        alive,
        ..
    } = l;
    if active != 0 {
        let members = checked_members(dom, regs, env, *mask, (active, live, alive))? & active;
        let leader = if members == 0 {
            32
        } else {
            members.trailing_zeros()
        };
        for lane in lanes(active) {
            if let Some(d) = d {
                regs[*d as usize * 32 + lane] = dom.lit(u64::from(leader));
            }
            if let Some(p) = p {
                regs[*p as usize * 32 + lane] = dom.lit(u64::from(lane as u32 == leader));
            }
        }
    }
    Ok(())
}

/// A `.sync` form's member mask (the same in every executing lane), checked against the lanes
/// that execute it, those on this path (`live`) and those alive in the warp ([`check_members`]).
fn checked_members<D: Domain>(
    dom: &mut D,
    regs: &[D::Val],
    env: &Env,
    mask: Src,
    (active, live, alive): (u32, u32, u32),
) -> Step<u32> {
    let m = uniform_mask(dom, regs, mask, active, env)?;
    check_members(m, active, live, alive)?;
    Ok(m)
}
