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
    /// True when the delta holds only if 32-bit index arithmetic does not wrap, or only when the
    /// source lane is in the same loop iteration as the destination (or the one before, for
    /// `cross`): the generated code then also shuffles the source address and compares it with
    /// its own, which makes it correct whatever iteration the source lane is in.
    pub checked: bool,
    /// Reuse across iterations: the value comes from the source load's execution in the PREVIOUS
    /// iteration of the loop with this header pc (by lane `laneid + delta`; `delta` may be 0).
    pub cross: Option<u32>,
    /// For a checked component: `σ` when the destination's address is exactly the source's
    /// plus `delta·σ` in the same lane (proved by normal forms). The run-time check is then
    /// one vote per source and warp that consecutive lanes' source addresses step by `σ`
    /// (shared by every destination of that source), instead of a comparison per load.
    pub linear_stride: Option<i64>,
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
    /// The innermost loop (header pc, arrival) it is directly in.
    iter: Option<(u32, usize)>,
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
    /// Proofs not attempted because the kernel's solver budget was spent.
    pub proofs_skipped: usize,
    /// Loads left undecided because the time budget was spent.
    pub out_of_time: usize,
}

/// Finds the replacements. `order` lists the loads in program order.
pub fn detect<'ctx>(
    dom: &mut Z3Domain<'ctx>,
    prover: &mut Prover<'ctx>,
    ex: &Exploration<'ctx>,
    loads: &[LoadInfo],
    max_delta: u32,
    deadline: Option<std::time::Instant>,
) -> Detection {
    let traces = Traces::collect(ex, loads);
    let mut search = Search::new(dom.ctx(), ex, loads, max_delta);
    let mut out = Detection {
        replacements: Vec::new(),
        rejected: Vec::new(),
        queries: 0,
        proofs_skipped: 0,
        out_of_time: 0,
    };
    for l in loads {
        if super::past(deadline) {
            out.out_of_time += 1;
            out.rejected.push((
                l.inst,
                "time budget spent before this load was analysed".into(),
            ));
            continue;
        }
        if let Some(why) = &l.unusable {
            out.rejected.push((l.inst, why.clone()));
            continue;
        }
        if search.used_as_source.contains(&l.inst) {
            out.rejected
                .push((l.inst, "it is the source of another shuffle".into()));
            continue;
        }
        match search.sources_of(prover, &traces, l, &mut out.proofs_skipped) {
            Ok(comps) => {
                for c in &comps {
                    if !search.used_as_source.contains(&c.src) && c.src != l.inst {
                        search.used_as_source.push(c.src);
                    }
                }
                search.replaced.push(l.inst);
                out.replacements.push(Replacement { dst: l.inst, comps });
            }
            Err(why_not) => out.rejected.push((l.inst, why_not)),
        }
    }
    reuse_previous_iterations(prover, ex, loads, &traces, max_delta, &mut out);
    let order: HashMap<Inst, usize> = loads.iter().enumerate().map(|(i, l)| (l.inst, i)).collect();
    out.replacements.sort_by_key(|r| order.get(&r.dst).copied());
    out.queries = prover.queries;
    out
}

/// What the trace says about the loads: where each destination component occurs and what is
/// available there, and the loads' addresses per loop arrival.
struct Traces<'ctx> {
    /// Bytes per component of each load.
    size_of: HashMap<Inst, u32>,
    /// Occurrences of each destination component over all paths.
    occ: HashMap<(Inst, u32), Vec<Occurrence<'ctx>>>,
    /// The address of each load directly in a loop, per arrival at the loop's header, when it
    /// is the same unguarded expression on every path of that arrival (else `None`).
    loop_addrs: HashMap<(usize, Inst, u32), Option<BV<'ctx>>>,
}

impl<'ctx> Traces<'ctx> {
    fn collect(ex: &Exploration<'ctx>, loads: &[LoadInfo]) -> Traces<'ctx> {
        let mut t = Traces {
            size_of: loads.iter().map(|l| (l.inst, l.size)).collect(),
            occ: HashMap::new(),
            loop_addrs: HashMap::new(),
        };
        // The trace is a DAG in topological order: what is available at the start of a node is
        // what is available (with the same address) at the end of every parent.
        let mut avail_out: Vec<HashMap<(Inst, u32), BV<'ctx>>> = Vec::with_capacity(ex.nodes.len());
        for node in &ex.nodes {
            let mut avail: HashMap<(Inst, u32), BV<'ctx>> = match node.parents.split_first() {
                None => HashMap::new(),
                Some((first, rest)) => {
                    let mut a = avail_out[*first].clone();
                    a.retain(|k, v| rest.iter().all(|p| avail_out[*p].get(k) == Some(v)));
                    a
                }
            };
            for e in &node.events {
                match e {
                    Event::Clobber => avail.clear(),
                    Event::Load { .. } => t.record_load(e, &mut avail),
                }
            }
            avail_out.push(avail);
        }
        t
    }

    /// One load event: its occurrence with what is available before it; then it is available
    /// itself (unguarded) or no longer (guarded).
    fn record_load(&mut self, e: &Event<'ctx>, avail: &mut HashMap<(Inst, u32), BV<'ctx>>) {
        let Event::Load {
            inst,
            comp,
            size,
            addr,
            guard,
            cond,
            iter,
        } = e
        else {
            return;
        };
        if let Some((_, a)) = iter {
            let e = self
                .loop_addrs
                .entry((*a, *inst, *comp))
                .or_insert_with(|| guard.is_none().then(|| addr.clone()));
            if guard.is_some() || e.as_ref().is_some_and(|x| x != addr) {
                *e = None;
            }
        }
        let mut here: HashMap<(Inst, u32), BV<'ctx>> = avail
            .iter()
            .filter(|((s, _), _)| *s != *inst && self.size_of.get(s) == Some(size))
            .map(|(k, v)| (*k, v.clone()))
            .collect();
        here.shrink_to_fit();
        self.occ
            .entry((*inst, *comp))
            .or_default()
            .push(Occurrence {
                cond: cond.clone(),
                guard: guard.clone(),
                addr: addr.clone(),
                iter: *iter,
                avail: here,
            });
        if guard.is_none() {
            avail.insert((*inst, *comp), addr.clone());
        } else {
            avail.remove(&(*inst, *comp));
        }
    }
}

/// Whether the run-time address check can compare load `s`'s address (`[register + offset]`).
fn has_checkable_address(loads: &[LoadInfo], s: Inst) -> bool {
    loads.iter().any(|x| x.inst == s && x.addr.is_some())
}

/// The first pass (the paper's): a source in the same iteration for every component of a load.
struct Search<'a, 'ctx> {
    ctx: &'ctx z3::Context,
    tidx: BV<'ctx>,
    ntidx: BV<'ctx>,
    /// Renaming of the iteration symbols for the source lane.
    iter_pairs: Vec<(BV<'ctx>, BV<'ctx>)>,
    ex: &'a Exploration<'ctx>,
    loads: &'a [LoadInfo],
    max_delta: u32,
    /// Loads replaced so far: never a source.
    replaced: Vec<Inst>,
    /// Sources so far: never replaced.
    used_as_source: Vec<Inst>,
    /// Sources for which a solver proof failed (a counterexample exists): their other
    /// destinations go straight to the checked form.
    refuted_sources: Vec<Inst>,
}

/// A candidate source component with its proposed delta and its address.
type Scored<'ctx> = (i32, (Inst, u32), BV<'ctx>);

impl<'a, 'ctx> Search<'a, 'ctx> {
    fn new(
        ctx: &'ctx z3::Context,
        ex: &'a Exploration<'ctx>,
        loads: &'a [LoadInfo],
        max_delta: u32,
    ) -> Search<'a, 'ctx> {
        Search {
            ctx,
            tidx: BV::new_const(ctx, TID[0], 32),
            ntidx: BV::new_const(ctx, NTID[0], 32),
            iter_pairs: ex
                .iter_syms
                .iter()
                .map(|k| (k.clone(), BV::fresh_const(ctx, "k_src", k.get_size())))
                .collect(),
            ex,
            loads,
            max_delta,
            replaced: Vec::new(),
            used_as_source: Vec::new(),
            refuted_sources: Vec::new(),
        }
    }

    /// `a` in lane `tid.x + n`, in that lane's own iteration.
    fn shifted(&self, a: &BV<'ctx>, n: i32) -> BV<'ctx> {
        let t2 = self.tidx.bvadd(&BV::from_i64(self.ctx, i64::from(n), 32));
        let mut subs: Vec<(&BV<'ctx>, &BV<'ctx>)> = vec![(&self.tidx, &t2)];
        for (k, k2) in &self.iter_pairs {
            subs.push((k, k2));
        }
        a.substitute(&subs)
    }

    /// `a` in lane `tid.x + n` in the same iteration as this lane (lockstep): only tid.x moves.
    fn shifted_lockstep(&self, a: &BV<'ctx>, n: i32) -> BV<'ctx> {
        let t2 = self.tidx.bvadd(&BV::from_i64(self.ctx, i64::from(n), 32));
        a.substitute(&[(&self.tidx, &t2)])
    }

    /// A source for every component of `l` that has a register, or why there is none.
    fn sources_of(
        &mut self,
        prover: &mut Prover<'ctx>,
        traces: &Traces<'ctx>,
        l: &LoadInfo,
        proofs_skipped: &mut usize,
    ) -> Result<Vec<CompSource>, String> {
        let mut comps = Vec::new();
        let mut why_not = String::from("no load of the same width available on every path");
        for (c, reg) in l.regs.iter().enumerate() {
            if reg.is_none() {
                continue;
            }
            let Some(os) = traces.occ.get(&(l.inst, c as u32)) else {
                return Err("never executed on a feasible path".into());
            };
            // One model of the first path (cached per path condition) proposes the deltas.
            if !prover.has_model(&os[0].cond) {
                return Err("no model of the path condition".into());
            }
            let scored = self.scored_candidates(prover, os);
            let Some((n, (s, sc), checked)) =
                self.first_provable(prover, l, os, scored, &mut why_not, proofs_skipped)
            else {
                return Err(why_not);
            };
            comps.push(CompSource {
                comp: c as u32,
                src: s,
                src_comp: sc,
                delta: n,
                checked,
                cross: None,
                linear_stride: if checked {
                    same_lane_stride(prover, os, (s, sc), n)
                } else {
                    None
                },
            });
        }
        if comps.is_empty() {
            return Err(why_not);
        }
        Ok(comps)
    }

    /// The candidates available on every path with the same address on every path, each with
    /// the delta it proposes, nearest lane first.
    fn scored_candidates(
        &self,
        prover: &mut Prover<'ctx>,
        os: &[Occurrence<'ctx>],
    ) -> Vec<Scored<'ctx>> {
        let mut cands: Vec<((Inst, u32), BV<'ctx>)> = os[0]
            .avail
            .iter()
            .filter(|((s, _), _)| !self.replaced.contains(s))
            .map(|(k, v)| (*k, v.clone()))
            .collect();
        cands.retain(|(k, a)| os.iter().all(|o| o.avail.get(k).is_some_and(|b| b == a)));
        cands.sort_by_key(|((s, c), _)| (s.0, *c));
        let mut scored: Vec<Scored<'ctx>> = Vec::new();
        for (k, a_s) in &cands {
            // Exact from the normal forms when they give constants, else proposed by one
            // model (polynomial differences only in kernels with loops: elsewhere the
            // model's values are exact enough and cheaper).
            let next_lane = self.shifted_lockstep(a_s, 1);
            let exact = exact_delta(prover, &os[0].addr, a_s, &next_lane, self.max_delta);
            let Some(n) = exact.or_else(|| {
                propose_delta(
                    prover,
                    &os[0].cond,
                    &os[0].addr,
                    a_s,
                    &next_lane,
                    !self.ex.arrivals.is_empty(),
                    self.max_delta,
                )
            }) else {
                log::trace!("candidate {k:?}: no delta");
                continue;
            };
            scored.push((n, *k, a_s.clone()));
        }
        scored.sort_by_key(|(n, k, _)| (n.unsigned_abs(), k.0 .0, k.1));
        scored
    }

    /// The first candidate whose delta is proved on every path (`checked` false), else the
    /// first that the run-time address check can make correct (`checked` true).
    fn first_provable(
        &mut self,
        prover: &mut Prover<'ctx>,
        l: &LoadInfo,
        os: &[Occurrence<'ctx>],
        scored: Vec<Scored<'ctx>>,
        why_not: &mut String,
        proofs_skipped: &mut usize,
    ) -> Option<(i32, (Inst, u32), bool)> {
        let checkable = l.addr.is_some();
        let mut fallback = None;
        let mut tried = 0;
        for (n, k, a_s) in scored {
            let src_addr = if n == 0 {
                a_s.clone()
            } else {
                self.shifted(&a_s, n)
            };
            // Equal normal forms with ranges prove the claim outright (no Z3).
            if os
                .iter()
                .all(|o| prover.ranged.equal(&o.addr, &src_addr, n))
            {
                log::debug!(
                    "load {:?}: candidate {k:?} delta {n}: proved by normal forms",
                    l.inst
                );
                return Some((n, k, false));
            }
            // The proof is tried for the best candidate, and for others only when their
            // difference is an identity anyway.
            let identity = self.identity_no_wrap(prover, os, &src_addr, n);
            // In a loop, the same claim with the source lane in the same iteration: it
            // selects a checked replacement (the address comparison makes it correct
            // whatever iteration the source lane is in).
            let lock_addr = self.shifted_lockstep(&a_s, n);
            let lock_identity = if lock_addr == src_addr {
                identity
            } else {
                self.identity_no_wrap(prover, os, &lock_addr, n)
            };
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
            if hopeless && !identity && !lock_identity {
                // Neither provable outright nor checkable: the model's alignment of two
                // unrelated addresses (e.g. array bases it chose equal).
                continue;
            }
            if !hopeless && (tried < 2 || identity) && !self.refuted_sources.contains(&k.0) {
                match self.proves(prover, os, &src_addr, n) {
                    Some(true) => return Some((n, k, false)),
                    Some(false) => self.refuted_sources.push(k.0),
                    None => *proofs_skipped += 1,
                }
            }
            tried += 1;
            *why_not = format!("delta {n} could not be proved on every path");
            if fallback.is_none()
                && n != 0
                && checkable
                && has_checkable_address(self.loads, k.0)
                && lock_identity
            {
                fallback = Some((n, k, true));
            }
        }
        fallback
    }

    /// Without wrap-around of 32-bit index arithmetic, the claim must be an identity (the
    /// simplified difference is 0): no solver call. This only selects loads for the run-time
    /// address check, which is what makes them correct.
    fn identity_no_wrap(
        &self,
        prover: &mut Prover<'ctx>,
        os: &[Occurrence<'ctx>],
        src_addr: &BV<'ctx>,
        n: i32,
    ) -> bool {
        let sa = prover
            .assume_no_wrap(&Dynamic::from_ast(src_addr))
            .as_bv()
            .expect("address");
        os.iter().all(|o| {
            let da = prover
                .assume_no_wrap(&Dynamic::from_ast(&o.addr))
                .as_bv()
                .expect("address");
            // Polynomial normal forms only where loops put `k·step` products in
            // addresses (they cost more than the simplifier elsewhere).
            da.bvsub(&sa).simplify().as_u64() == Some(0)
                || (!self.ex.arrivals.is_empty() && prover.polys.same(&da, &sa))
                || prover.ranged.equal_without_wrap(&o.addr, src_addr, n)
        })
    }

    /// The solver's proof that on every path the destination's address is the source's in lane
    /// `tid.x + n` (`None`: the solver budget is spent).
    fn proves(
        &self,
        prover: &mut Prover<'ctx>,
        os: &[Occurrence<'ctx>],
        src_addr: &BV<'ctx>,
        n: i32,
    ) -> Option<bool> {
        for o in os {
            let mut facts = o.cond.clone();
            if let Some(g) = &o.guard {
                facts.push(g.clone());
            }
            if n != 0 {
                let t2 = self.tidx.bvadd(&BV::from_i64(self.ctx, i64::from(n), 32));
                facts.push(t2.bvult(&self.ntidx));
            }
            facts.push(o.addr._eq(src_addr).not());
            if !prover.prove(&facts)? {
                return Some(false);
            }
        }
        Some(true)
    }
}

/// The second pass, beyond the paper: loads left over may reuse what a load of the previous
/// loop iteration read (any load of the loop, itself included, replaced or not: its copy holds
/// the right value either way).
fn reuse_previous_iterations<'ctx>(
    prover: &mut Prover<'ctx>,
    ex: &Exploration<'ctx>,
    loads: &[LoadInfo],
    traces: &Traces<'ctx>,
    max_delta: u32,
    out: &mut Detection,
) {
    let checkable_src = |s: Inst| has_checkable_address(loads, s);
    let mut still_rejected = Vec::new();
    for (inst, why) in std::mem::take(&mut out.rejected) {
        let Some(l) = loads.iter().find(|l| l.inst == inst) else {
            still_rejected.push((inst, why));
            continue;
        };
        if l.unusable.is_some() || l.addr.is_none() {
            still_rejected.push((inst, why));
            continue;
        }
        let mut comps = Vec::new();
        let mut in_loop = false;
        for (c, reg) in l.regs.iter().enumerate() {
            if reg.is_none() {
                continue;
            }
            let Some(os) = traces.occ.get(&(l.inst, c as u32)) else {
                comps.clear();
                break;
            };
            in_loop |= os.iter().any(|o| o.iter.is_some());
            let found = cross_iteration(
                prover,
                ex,
                os,
                &traces.loop_addrs,
                (l.inst, c as u32),
                l.size,
                &checkable_src,
                &traces.size_of,
                max_delta,
            );
            match found {
                Some((n, (src, src_comp), h)) => comps.push(CompSource {
                    comp: c as u32,
                    src,
                    src_comp,
                    delta: n,
                    checked: true,
                    cross: Some(h),
                    linear_stride: None,
                }),
                None => {
                    comps.clear();
                    break;
                }
            }
        }
        if comps.is_empty() {
            if in_loop {
                still_rejected.push((inst, format!("{why}; no reuse from the previous iteration")));
            } else {
                still_rejected.push((inst, why));
            }
            continue;
        }
        out.replacements.push(Replacement { dst: inst, comps });
    }
    out.rejected = still_rejected;
}

/// `σ` with `addr_d = addr_s + delta·σ` in the same lane on every occurrence of the destination,
/// proved by the normal forms (no premise: one lane), when it exists.
fn same_lane_stride<'ctx>(
    prover: &mut Prover<'ctx>,
    os: &[Occurrence<'ctx>],
    src: (Inst, u32),
    delta: i32,
) -> Option<i64> {
    let mut dv = None;
    for o in os {
        let d = prover.ranged.difference(&o.addr, o.avail.get(&src)?, 0)?;
        if dv.is_some_and(|x| x != d) {
            return None;
        }
        dv = Some(d);
    }
    let dv = dv?;
    let n = i64::from(delta);
    (n != 0 && dv % n == 0 && dv != 0).then_some(dv / n)
}

/// The delta of a candidate when the ranged normal forms give both the difference of the two
/// addresses in one lane and the source's stride from one lane to the next (`lane1_s`: the source
/// address in lane `tid.x + 1`) as constants: exact, no model needed.
fn exact_delta<'ctx>(
    prover: &mut Prover<'ctx>,
    addr_d: &BV<'ctx>,
    addr_s: &BV<'ctx>,
    lane1_s: &BV<'ctx>,
    max_delta: u32,
) -> Option<i32> {
    let dv = prover.ranged.difference(addr_d, addr_s, 0)?;
    let sv = prover.ranged.difference(lane1_s, addr_s, 1)?;
    delta_of(dv, sv, max_delta)
}

/// The delta `difference / stride` when it divides and `|N| ≤ max_delta` (a zero difference is
/// delta 0).
fn delta_of(difference: i64, stride: i64, max_delta: u32) -> Option<i32> {
    let n = if difference == 0 {
        0
    } else if stride != 0 && difference % stride == 0 {
        difference / stride
    } else {
        return None;
    };
    (n.unsigned_abs() <= u64::from(max_delta)).then_some(n as i32)
}

/// The delta a candidate proposes: `(addr_d − addr_s) / stride`, `stride` being how much the
/// source address grows from one `tid.x` to the next (`shifted_s`: the source address of the
/// next lane), if it divides and `|N| ≤ max_delta` (a zero difference proposes 0). Both are taken
/// without 32-bit wrap-around (a model may put an index right at the wrap point): exactly when
/// they are constant polynomials (`polynomial`), else from one model of `cond`. Only a
/// proposal: the proof or the address check decides.
fn propose_delta<'ctx>(
    prover: &mut Prover<'ctx>,
    cond: &[Bool<'ctx>],
    addr_d: &BV<'ctx>,
    addr_s: &BV<'ctx>,
    shifted_s: &BV<'ctx>,
    polynomial: bool,
    max_delta: u32,
) -> Option<i32> {
    let nw = |p: &Prover<'ctx>, t: &BV<'ctx>| {
        p.assume_no_wrap(&Dynamic::from_ast(t))
            .as_bv()
            .expect("an address is a bit-vector")
    };
    let (d, s, s1) = (
        nw(prover, addr_d),
        nw(prover, addr_s),
        nw(prover, shifted_s),
    );
    let exact = if polynomial {
        prover
            .polys
            .constant_difference(&d, &s)
            .zip(prover.polys.constant_difference(&s1, &s))
    } else {
        None
    };
    let (dv, sv) = match exact {
        Some(x) => x,
        None => {
            let v = prover.eval(cond, &[d.bvsub(&s), s1.bvsub(&s)])?;
            (v[0], v[1])
        }
    };
    log::trace!("proposed delta: difference {dv}, stride {sv}");
    delta_of(dv, sv, max_delta)
}

/// Reuse across iterations (beyond the paper): the destination component, at iteration `k + 1` of
/// the loop it is directly in, reads what load `src` read at iteration `k` in lane `laneid + N`.
///
/// Conditions: every occurrence of the destination is directly in the same loop, which is
/// entered only at its header and changes no memory (no store, atomic, barrier, fence or call
/// anywhere in it); the source is directly in that loop with one unguarded address expression per
/// arrival; and, with the source lane in the previous iteration (lockstep), the claim
/// `path(k+1) ∧ guard(k+1) ∧ 0 ≤ tid.x+N < ntid.x ⇒ addr_d(tid, k+1) = addr_s(tid.x+N, k)` is
/// proved, or is an identity without 32-bit wrap-around. The generated code compares the
/// shuffled address of the source lane's last execution of `src` with its own, and invalidates
/// that address at every loop entry: with no memory change in the loop, a matching address
/// gives the current value whatever iteration the source lane is in (docs/shuffle.md).
#[allow(clippy::too_many_arguments)]
fn cross_iteration<'ctx>(
    prover: &mut Prover<'ctx>,
    ex: &Exploration<'ctx>,
    os: &[Occurrence<'ctx>],
    loop_addrs: &HashMap<(usize, Inst, u32), Option<BV<'ctx>>>,
    dst: (Inst, u32),
    size: u32,
    usable_src: &dyn Fn(Inst) -> bool,
    size_of: &HashMap<Inst, u32>,
    max_delta: u32,
) -> Option<(i32, (Inst, u32), u32)> {
    let ctx = prover.ctx();
    let h = os.first()?.iter?.0;
    if os.iter().any(|o| o.iter.map(|x| x.0) != Some(h)) {
        return None;
    }
    let span = ex.loops.get(&h)?;
    if !span.clobber_free || !span.single_entry {
        return None;
    }
    let arrivals: Vec<usize> = {
        let mut a: Vec<usize> = os.iter().filter_map(|o| o.iter.map(|x| x.1)).collect();
        a.sort_unstable();
        a.dedup();
        a
    };
    // Sources: loads directly in the loop with an address in every arrival.
    let mut cands: Vec<(Inst, u32)> = loop_addrs
        .iter()
        .filter(|((a, s, _), addr)| {
            *a == arrivals[0] && addr.is_some() && size_of.get(s) == Some(&size) && usable_src(*s)
        })
        .map(|((_, s, c), _)| (*s, *c))
        .filter(|(s, c)| {
            arrivals
                .iter()
                .all(|a| loop_addrs.get(&(*a, *s, *c)).is_some_and(|x| x.is_some()))
        })
        .collect();
    // The destination itself first (a sliding window), then program order.
    cands.sort_by_key(|(s, c)| (*s != dst.0, s.0, *c));
    let tidx = BV::new_const(ctx, TID[0], 32);
    let ntidx = BV::new_const(ctx, NTID[0], 32);
    let succ = |o: &Occurrence<'ctx>| -> [(BV<'ctx>, BV<'ctx>); 2] {
        let (k, k32) = &ex.arrivals[o.iter.expect("in a loop").1];
        [
            (k.clone(), k.bvadd(&BV::from_u64(ctx, 1, 64))),
            (k32.clone(), k32.bvadd(&BV::from_u64(ctx, 1, 32))),
        ]
    };
    let next = |o: &Occurrence<'ctx>, t: &BV<'ctx>| -> BV<'ctx> {
        let s = succ(o);
        t.substitute(&[(&s[0].0, &s[0].1), (&s[1].0, &s[1].1)])
    };
    let next_bool = |o: &Occurrence<'ctx>, t: &Bool<'ctx>| -> Bool<'ctx> {
        let s = succ(o);
        t.substitute(&[(&s[0].0, &s[0].1), (&s[1].0, &s[1].1)])
    };
    let shift = |a: &BV<'ctx>, n: i32| -> BV<'ctx> {
        let t2 = tidx.bvadd(&BV::from_i64(ctx, i64::from(n), 32));
        a.substitute(&[(&tidx, &t2)])
    };
    let o0 = &os[0];
    let cond0: Vec<Bool<'ctx>> = o0.cond.iter().map(|c| next_bool(o0, c)).collect();
    if !prover.has_model(&cond0) {
        return None;
    }
    let d0 = next(o0, &o0.addr);
    for (s, sc) in cands {
        let src_of = |a: usize| loop_addrs[&(a, s, sc)].clone().expect("checked above");
        let a_s = src_of(o0.iter.expect("in a loop").1);
        let Some(n) = propose_delta(prover, &cond0, &d0, &a_s, &shift(&a_s, 1), true, max_delta)
        else {
            continue;
        };
        let holds = os.iter().all(|o| {
            let src = shift(&src_of(o.iter.expect("in a loop").1), n);
            let d = next(o, &o.addr);
            let sa = prover.assume_no_wrap(&Dynamic::from_ast(&src)).as_bv();
            let da = prover.assume_no_wrap(&Dynamic::from_ast(&d)).as_bv();
            if let (Some(sa), Some(da)) = (sa, da) {
                if da.bvsub(&sa).simplify().as_u64() == Some(0) || prover.polys.same(&da, &sa) {
                    return true;
                }
            }
            let mut facts: Vec<Bool<'ctx>> = o.cond.iter().map(|c| next_bool(o, c)).collect();
            if let Some(g) = &o.guard {
                facts.push(next_bool(o, g));
            }
            if n != 0 {
                let t2 = tidx.bvadd(&BV::from_i64(ctx, i64::from(n), 32));
                facts.push(t2.bvult(&ntidx));
            }
            facts.push(d._eq(&src).not());
            prover.prove(&facts) == Some(true)
        });
        if holds {
            log::debug!(
                "load {:?} comp {}: reuse from the previous iteration of loop {h}: source {s:?} \
                 comp {sc}, delta {n}",
                dst.0,
                dst.1
            );
            return Some((n, (s, sc), h));
        }
    }
    None
}
