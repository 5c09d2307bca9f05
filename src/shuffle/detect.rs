//! Detection of shuffle opportunities in the memory traces (PTXASW, CC'23, §5.1), with the
//! soundness conditions of the published tool's flaws (§5 of the issue) fixed:
//!
//! - for a destination load `d` and a candidate source load `s`, `s` must be *available* before
//!   `d` on EVERY path that reaches `d` (it executed, unguarded, with no possibly-aliasing store,
//!   atomic, barrier or call in between): the source dominates the destination in the trace;
//! - the source address must be the same expression on all those paths (so the source lane's
//!   address does not depend on which path that lane took);
//! - a delta `N ∈ [-D, D]` is found by evaluating `addr_d − addr_s` and the source's stride in
//!   `tid.x` in one model of the path condition (no solver search; usually a concrete witness,
//!   [`super::concrete`], evaluated without Z3), then PROVED for all values of
//!   every other symbol on every path: `assumptions ∧ path ∧ guard ∧ 0 ≤ tid.x+N < ntid.x ⇒
//!   addr_d(tid) = addr_s(tid.x+N)` (the negation is unsat). The source lane is modelled as the
//!   thread `(tid.x+N, tid.y, tid.z)`, which the generated code guarantees at run time;
//! - components have the same width, and the destination register is the load's width (32 or 64
//!   bits, no widening load);
//! - a load that is replaced is never a source, and a source is never replaced (no shuffles of
//!   shuffled values, as in the paper).

use std::collections::HashMap;

use z3::ast::{Ast, Bool, Dynamic, BV};
use z3::SatResult;

use super::prove::Prover;

use super::symexec::{Event, Exploration, NTID, TID};
use crate::emu::symbolic::Z3Domain;
use crate::ptx::ir::{Inst, Reg};

/// A global load of the kernel as code generation needs it.
#[derive(Clone, Debug)]
pub struct LoadInfo {
    /// The IR instruction.
    pub inst: Inst,
    /// Bytes per component.
    pub size: u32,
    /// The destination register of each component (`None`: a sink `_`).
    pub regs: Vec<Option<Reg>>,
    /// Why it can never take part (width, widening…), if so.
    pub unusable: Option<String>,
    /// `file:line: text` for reports.
    pub what: String,
    /// The address as `[register + offset]` with a 64-bit register, when it is one (needed for
    /// the run-time address check).
    pub addr: Option<(Reg, i64)>,
}

/// One component's source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompSource {
    /// Component of the destination.
    pub comp: u32,
    /// The source load.
    pub src: Inst,
    /// Component of the source.
    pub src_comp: u32,
    /// The shuffle delta: the value comes from lane `laneid + delta`.
    pub delta: i32,
    /// True when the delta holds only if 32-bit index arithmetic does not wrap: the generated
    /// code then also shuffles the source address and compares it with its own.
    pub checked: bool,
}

/// A load to replace.
#[derive(Clone, Debug)]
pub struct Replacement {
    /// The destination load.
    pub dst: Inst,
    /// A source for every component with a register.
    pub comps: Vec<CompSource>,
}

struct Occurrence<'ctx> {
    cond: Vec<Bool<'ctx>>,
    guard: Option<Bool<'ctx>>,
    addr: BV<'ctx>,
    /// Available sources: (inst, comp) → address.
    avail: HashMap<(Inst, u32), BV<'ctx>>,
}

/// What detection decided.
pub struct Detection {
    /// Loads to replace, in program order.
    pub replacements: Vec<Replacement>,
    /// Loads not replaced, with the reason.
    pub rejected: Vec<(Inst, String)>,
    /// Z3 queries made.
    pub queries: usize,
}

/// Finds the replacements. `order` lists the loads in program order.
pub fn detect<'ctx>(
    dom: &mut Z3Domain<'ctx>,
    prover: &mut Prover<'ctx>,
    ex: &Exploration<'ctx>,
    loads: &[LoadInfo],
    max_delta: u32,
) -> Detection {
    let ctx = dom.ctx();
    let size_of: HashMap<Inst, u32> = loads.iter().map(|l| (l.inst, l.size)).collect();
    // Occurrences of each destination component over all paths.
    let mut occ: HashMap<(Inst, u32), Vec<Occurrence<'ctx>>> = HashMap::new();
    for p in &ex.paths {
        let mut avail: HashMap<(Inst, u32), BV<'ctx>> = HashMap::new();
        for e in &p.events {
            match e {
                Event::Clobber => avail.clear(),
                Event::Load {
                    inst,
                    comp,
                    size,
                    addr,
                    guard,
                    cond,
                } => {
                    let mut here: HashMap<(Inst, u32), BV<'ctx>> = avail
                        .iter()
                        .filter(|((s, _), _)| *s != *inst && size_of.get(s) == Some(size))
                        .map(|(k, v)| (*k, v.clone()))
                        .collect();
                    here.shrink_to_fit();
                    occ.entry((*inst, *comp)).or_default().push(Occurrence {
                        cond: cond.clone(),
                        guard: guard.clone(),
                        addr: addr.clone(),
                        avail: here,
                    });
                    if guard.is_none() {
                        avail.insert((*inst, *comp), addr.clone());
                    } else {
                        avail.remove(&(*inst, *comp));
                    }
                }
            }
        }
    }

    let tidx = BV::new_const(ctx, TID[0], 32);
    let ntidx = BV::new_const(ctx, NTID[0], 32);
    let mut replaced: Vec<Inst> = Vec::new();
    let mut used_as_source: Vec<Inst> = Vec::new();
    let mut out = Detection {
        replacements: Vec::new(),
        rejected: Vec::new(),
        queries: 0,
    };
    // Renaming of the iteration symbols for the source lane.
    let iter_pairs: Vec<(BV<'ctx>, BV<'ctx>)> = ex
        .iter_syms
        .iter()
        .map(|k| (k.clone(), BV::fresh_const(ctx, "k_src", 32)))
        .collect();
    let shifted = |a: &BV<'ctx>, n: i32| -> BV<'ctx> {
        let t2 = tidx.bvadd(&BV::from_i64(ctx, i64::from(n), 32));
        let mut subs: Vec<(&BV<'ctx>, &BV<'ctx>)> = vec![(&tidx, &t2)];
        for (k, k2) in &iter_pairs {
            subs.push((k, k2));
        }
        a.substitute(&subs)
    };

    for l in loads {
        if let Some(why) = &l.unusable {
            out.rejected.push((l.inst, why.clone()));
            continue;
        }
        if used_as_source.contains(&l.inst) {
            out.rejected
                .push((l.inst, "it is the source of another shuffle".into()));
            continue;
        }
        let mut comps = Vec::new();
        let mut why_not = String::from("no load of the same width available on every path");
        for (c, reg) in l.regs.iter().enumerate() {
            if reg.is_none() {
                continue;
            }
            let Some(os) = occ.get(&(l.inst, c as u32)) else {
                why_not = "never executed on a feasible path".into();
                comps.clear();
                break;
            };
            // Candidates available on every path, with the same address on every path.
            let mut cands: Vec<((Inst, u32), BV<'ctx>)> = os[0]
                .avail
                .iter()
                .filter(|((s, _), _)| !replaced.contains(s))
                .map(|(k, v)| (*k, v.clone()))
                .collect();
            cands.retain(|(k, a)| os.iter().all(|o| o.avail.get(k).is_some_and(|b| b == a)));
            cands.sort_by_key(|((s, c), _)| (s.0, *c));
            // One model of the first path (cached per path condition) proposes the deltas.
            if !prover.has_model(&os[0].cond) {
                why_not = "no model of the path condition".into();
                comps.clear();
                break;
            }
            let mut scored: Vec<(i32, (Inst, u32), BV<'ctx>)> = Vec::new();
            for (k, a_s) in &cands {
                let diff = os[0].addr.bvsub(a_s);
                let stride = shifted(a_s, 1).bvsub(a_s);
                let Some(v) = prover.eval(&os[0].cond, &[diff, stride]) else {
                    log::trace!("load {:?}: candidate {k:?}: no value in the model", l.inst);
                    continue;
                };
                log::trace!(
                    "load {:?}: candidate {k:?}: difference {}, stride {}",
                    l.inst,
                    v[0],
                    v[1]
                );
                let (dv, sv) = (v[0], v[1]);
                let n = if dv == 0 {
                    0
                } else if sv != 0 && dv % sv == 0 {
                    dv / sv
                } else {
                    continue;
                };
                if n.unsigned_abs() > u64::from(max_delta) {
                    continue;
                }
                scored.push((n as i32, *k, a_s.clone()));
            }
            scored.sort_by_key(|(n, k, _)| (n.unsigned_abs(), k.0 .0, k.1));
            let mut found = None;
            let mut fallback = None;
            let checkable = l.addr.is_some();
            let mut tried = 0;
            for (n, k, a_s) in scored.into_iter() {
                let src_addr = if n == 0 {
                    a_s.clone()
                } else {
                    shifted(&a_s, n)
                };
                // Without wrap-around of 32-bit index arithmetic, the claim must be an identity
                // (the simplified difference is 0): no solver call. This only selects loads for
                // the run-time address check, which is what makes them correct.
                let identity_no_wrap = |prover: &mut Prover<'ctx>| -> bool {
                    let sa = prover
                        .assume_no_wrap(&Dynamic::from_ast(&src_addr))
                        .as_bv()
                        .expect("address");
                    os.iter().all(|o| {
                        let da = prover
                            .assume_no_wrap(&Dynamic::from_ast(&o.addr))
                            .as_bv()
                            .expect("address");
                        da.bvsub(&sa).simplify().as_u64() == Some(0)
                    })
                };
                let proves = |prover: &mut Prover<'ctx>| -> bool {
                    for o in os {
                        let mut facts = o.cond.clone();
                        if let Some(g) = &o.guard {
                            facts.push(g.clone());
                        }
                        if n != 0 {
                            let t2 = tidx.bvadd(&BV::from_i64(ctx, i64::from(n), 32));
                            facts.push(t2.bvult(&ntidx));
                        }
                        facts.push(o.addr._eq(&src_addr).not());
                        if prover.check(&facts) != SatResult::Unsat {
                            return false;
                        }
                    }
                    true
                };
                // The proof is tried for the best candidate, and for others only when their
                // difference is an identity anyway.
                let identity = identity_no_wrap(prover);
                if n == 0 && !identity {
                    // The same address in one model only (e.g. two arrays whose bases the
                    // model made equal): not worth a query.
                    continue;
                }
                let hopeless = os
                    .iter()
                    .any(|o| prover.wrap_sensitive(&Dynamic::from_ast(&o.addr)))
                    || prover.wrap_sensitive(&Dynamic::from_ast(&src_addr));
                log::debug!(
                    "load {:?}: candidate {:?} delta {n}: no-wrap identity {identity}, wrap-sensitive {hopeless}",
                    l.inst,
                    k
                );
                if hopeless && !identity {
                    // Neither provable outright nor checkable: the model's alignment of two
                    // unrelated addresses (e.g. array bases it chose equal).
                    continue;
                }
                if !hopeless && (tried < 2 || identity) && proves(prover) {
                    found = Some((n, k, false));
                    break;
                }
                tried += 1;
                why_not = format!("delta {n} could not be proved on every path");
                let src_checkable = loads.iter().any(|x| x.inst == k.0 && x.addr.is_some());
                if fallback.is_none() && n != 0 && checkable && src_checkable && identity {
                    fallback = Some((n, k, true));
                }
            }
            let found = found.or(fallback);
            match found {
                Some((n, (s, sc), checked)) => comps.push(CompSource {
                    comp: c as u32,
                    src: s,
                    src_comp: sc,
                    delta: n,
                    checked,
                }),
                None => {
                    comps.clear();
                    break;
                }
            }
        }
        if comps.is_empty() {
            out.rejected.push((l.inst, why_not));
            continue;
        }
        for c in &comps {
            if !used_as_source.contains(&c.src) {
                used_as_source.push(c.src);
            }
        }
        replaced.push(l.inst);
        out.replacements.push(Replacement { dst: l.inst, comps });
    }
    out.queries = prover.queries;
    out
}
