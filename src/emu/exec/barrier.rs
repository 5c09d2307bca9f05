//! CTA barriers in the PTX interpreter ([`super`]; PTX ISA §9.7.13.1 `bar`/`barrier`, with
//! `.arrive`, `.red.popc/.and/.or` and a thread count): a warp's arrival is read from its lanes
//! (the barrier id and thread count must be the same in every executing lane, the count a
//! positive multiple of 32) and recorded on the barrier; `Machine::release_barrier` lets the
//! waiting warps go once enough threads have arrived.

use super::{concrete, lanes, rd, Barrier, Lanes, Step, Stop};
use crate::emu::decode::{BarOp, Src};
use crate::emu::domain::Domain;

/// One warp's arrival at a barrier, as its executing lanes give it.
pub(super) struct Arrival {
    /// The barrier, 0 to 15.
    pub id: usize,
    /// The thread count the lanes name, if any.
    pub count: Option<u64>,
    /// The lanes that arrive.
    pub lanes: u32,
    /// The reduction's inputs over the arriving lanes: how many hold, all, any.
    pub popc: u32,
    pub all: bool,
    pub any: bool,
}

/// Reads the barrier id, the thread count and the reduction predicate of every executing lane.
pub(super) fn arrival<D: Domain>(
    l: Lanes<'_, '_, D>,
    id: &Src,
    count: &Option<Src>,
    pred: &Option<Src>,
) -> Step<Arrival> {
    let Lanes {
        dom,
        regs,
        env,
        active,
        ..
    } = l;
    let mut idv = None;
    let mut cnt = None;
    let (mut popc, mut all, mut any) = (0u32, true, false);
    for lane in lanes(active) {
        let v = rd(dom, regs, *id, lane, env)?;
        let v = concrete(dom, &v, "barrier id")?;
        if *idv.get_or_insert(v) != v {
            return Err(Stop::Fault(
                "barrier id differs between lanes".into(),
                Some(lane),
            ));
        }
        if let Some(c) = count {
            let cv = rd(dom, regs, *c, lane, env)?;
            let cv = concrete(dom, &cv, "barrier thread count")?;
            if *cnt.get_or_insert(cv) != cv {
                return Err(Stop::Fault(
                    "barrier thread count differs between lanes".into(),
                    Some(lane),
                ));
            }
        }
        if let Some(p) = pred {
            let pv = rd(dom, regs, *p, lane, env)?;
            let pv = concrete(dom, &pv, "bar.red predicate")? & 1 != 0;
            popc += u32::from(pv);
            all &= pv;
            any |= pv;
        }
    }
    let idv = idv.unwrap_or(0);
    if idv >= 16 {
        return Err(Stop::Fault(
            format!("barrier id {idv} is not in 0..15"),
            None,
        ));
    }
    Ok(Arrival {
        id: idv as usize,
        count: cnt,
        lanes: active,
        popc,
        all,
        any,
    })
}

impl Barrier {
    /// Records an arrival for `op`: the thread count (the same at every use of the barrier), the
    /// arriving threads, and a reduction's inputs (one operation per barrier phase).
    pub(super) fn arrive(&mut self, op: BarOp, a: &Arrival) -> Step<()> {
        let idv = a.id;
        if let Some(c) = a.count {
            if c == 0 || c % 32 != 0 {
                return Err(Stop::Fault(
                    format!("barrier thread count {c} is not a positive multiple of 32"),
                    None,
                ));
            }
            if self.expected.is_some_and(|e| u64::from(e) != c) {
                return Err(Stop::Fault(
                    format!("barrier {idv} used with different thread counts"),
                    None,
                ));
            }
            self.expected = Some(c as u32);
        }
        self.arrived += a.lanes.count_ones();
        if matches!(op, BarOp::RedPopc | BarOp::RedAnd | BarOp::RedOr) {
            if self.red_op.is_some_and(|o| o != op) {
                return Err(Stop::Fault(
                    format!("barrier {idv} mixes reduction operations"),
                    None,
                ));
            }
            if self.waiting.is_empty() && self.red_op.is_none() {
                self.all = true;
            }
            self.red_op = Some(op);
            self.popc += a.popc;
            self.all &= a.all;
            self.any |= a.any;
        }
        Ok(())
    }
}
