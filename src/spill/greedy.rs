//! The greedy demotion order (RegDem §3.1; Sampaio et al. §3): predicates beyond the hardware's
//! predicate registers are packed first, then registers are demoted one at a time, most relief
//! per cost first ([`super::select`]), until the register-pressure estimate fits the target; with
//! ptxas, the target is tightened while `ptxas -v` at the cap still shows local memory.

use crate::analysis::divergence::{Class, FunctionDivergence};
use crate::machine::liveness::Liveness;
use crate::machine::pressure::Pressure;
use crate::ptx::{Function, Reg};

use super::finish::finish;
use super::plan::{cfg_and_loops, pack_candidates, rule_for, sole_definition_depths};
use super::rewrite::{rewrite_register, Temps};
use super::search::{clean, BudgetStop, Current, SearchCtx};
use super::{select, Demoted, RESERVE};

/// What the greedy order is asked to do.
pub(super) struct GreedyPlan<'a> {
    /// Divergence classes of the original registers.
    pub div: &'a FunctionDivergence,
    /// How far past the budget the order may run while ptxas still spills, bytes.
    pub search_limit: u64,
    /// Check with ptxas and tighten.
    pub use_ptxas: bool,
    /// Without ptxas: tighten while the register model predicts more than the cap
    /// ([`SearchCtx::predict`]; `--occupancy auto`, where the pass chooses the cap).
    pub model_check: bool,
    /// Pack the predicates beyond the 7 predicate registers first.
    pub pack: bool,
    /// Registers the original kernel uses (ptxas's figure, else the register model's prediction).
    pub regs_before: u32,
    /// Registers of the kernel before the pass added any (only those are candidates).
    pub original_regs: usize,
}

/// The greedy order's outcome.
pub(super) struct Greedy {
    /// The set it demoted, finished on the kernel.
    pub cur: Current,
    /// What could not be demoted, with why.
    pub not_demoted: Vec<String>,
    /// Where the budget first stopped the order, when it did.
    pub stop: Option<BudgetStop>,
    /// The predicates it packed.
    pub preds: Vec<Reg>,
}

/// Runs the greedy order on `f` (which is `sx.start` on entry) and finishes it.
pub(super) fn demote(sx: &SearchCtx, f: &mut Function, plan: &GreedyPlan) -> Greedy {
    let mut st = State {
        cur: Current {
            order: Vec::new(),
            layout: super::layout::Layout::new(sx.threads),
            demoted: Vec::new(),
            cleaned: Default::default(),
            ptxas: None,
            predicted: None,
            pressure: 0,
        },
        temps: Temps::default(),
        done: vec![false; plan.original_regs],
        not_demoted: Vec::new(),
        stop: None,
    };
    let preds = if plan.pack && plan.regs_before > sx.max_regs {
        pack_candidates(
            f.body.as_ref().expect("kernels have bodies"),
            &sx.live,
            plan.original_regs,
        )
        .into_iter()
        .filter(|p| !sx.pinned.get(p.index()).copied().unwrap_or(false))
        .collect()
    } else {
        Vec::new()
    };
    pack_predicates(sx, f, plan, &mut st, &preds);
    // With ptxas to check, start at the cap itself and tighten until ptxas needs no local memory
    // (the least demotion in the cost order); without it, keep a reserve for ptxas's own needs.
    let mut target = if plan.use_ptxas {
        sx.max_regs
    } else {
        sx.max_regs.saturating_sub(RESERVE).max(1)
    };
    // ptxas's figures for `f` as it is now, finished (the loop's last check, when nothing was
    // demoted since): the kernel finished below is the same, so it is not assembled twice.
    let mut checked_as_is = None;
    loop {
        demote_to(sx, f, plan, &mut st, target);
        if !(plan.use_ptxas || plan.model_check) || !st.not_demoted.is_empty() {
            break;
        }
        // Check on a finished copy; tighten the target while ptxas still spills (or, without
        // ptxas, while the model predicts more than the cap).
        let mut trial = f.clone();
        finish(
            &mut trial,
            &st.cur.layout,
            &sx.bases,
            &st.cur.demoted,
            sx.max_regs,
        );
        if !plan.use_ptxas {
            let limit = model_limit(sx.max_regs);
            match sx.predict(&trial) {
                Some(need) if need > limit && target > 2 => {
                    target = target.saturating_sub((need - limit).max(2)).max(1);
                    continue;
                }
                as_is => {
                    // `trial` is what `finish` makes of `f` below: the report reads this.
                    st.cur.predicted = as_is;
                    break;
                }
            }
        }
        match sx.check(&trial) {
            Some(k) if !clean(&k) && target > 2 => {
                st.cur.ptxas = Some(k);
                target = target.saturating_sub(2).max(1);
            }
            other => {
                checked_as_is = Some(other.clone());
                st.cur.ptxas = other;
                break;
            }
        }
    }
    st.cur.cleaned = finish(f, &st.cur.layout, &sx.bases, &st.cur.demoted, sx.max_regs);
    if plan.use_ptxas {
        let k = checked_as_is.unwrap_or_else(|| sx.check(f));
        st.cur.ptxas = k.or(st.cur.ptxas.take());
    }
    Greedy {
        cur: st.cur,
        not_demoted: st.not_demoted,
        stop: st.stop,
        preds,
    }
}

/// How far below the cap the register model's prediction for the rewrite must fall when ptxas
/// is not run to check it. Measured as [`super::setup::MODEL_MARGIN_BEFORE`] was (with it): no
/// margin, 25 better and 9 worse of 248 kernels; 5 %, 25 and 9; 10 %, 25 and 8 (Liger, held
/// out: 12/10, 13/9, 14/8); with the model's need mended after, 10 %: 26 and 8.
pub const MODEL_MARGIN_AFTER: f64 = 0.10;

/// The most registers the model may predict for a rewrite at `cap` ([`MODEL_MARGIN_AFTER`]).
pub(super) fn model_limit(cap: u32) -> u32 {
    (f64::from(cap) * (1.0 - MODEL_MARGIN_AFTER)).floor() as u32
}

/// The greedy loop's working state.
struct State {
    cur: Current,
    temps: Temps,
    /// Original registers already demoted.
    done: Vec<bool>,
    not_demoted: Vec<String>,
    stop: Option<BudgetStop>,
}

impl State {
    /// Demotes `r` by `rule` (already laid out in `layout`).
    fn apply(
        &mut self,
        f: &mut Function,
        sx: &SearchCtx,
        r: Reg,
        class: Class,
        rule: super::rewrite::Rule,
        layout: super::layout::Layout,
    ) {
        let body = f.body.as_mut().expect("kernels have bodies");
        self.cur.layout = layout;
        let (loads, stores) =
            rewrite_register(body, r, rule, &self.cur.layout, &sx.bases, &mut self.temps);
        self.done[r.index()] = true;
        self.cur.order.push((r, class));
        self.cur.demoted.push(Demoted {
            reg: body.reg_name(r).to_string(),
            class: class.name().to_string(),
            rule: rule.name().to_string(),
            loads,
            stores,
        });
    }
}

/// Packs `preds` into bits of per-thread words, in order, while the budget allows.
fn pack_predicates(
    sx: &SearchCtx,
    f: &mut Function,
    plan: &GreedyPlan,
    st: &mut State,
    preds: &[Reg],
) {
    for &p in preds {
        let body = f.body.as_ref().expect("kernels have bodies");
        let (cfg, loops) = cfg_and_loops(body);
        let depth = sole_definition_depths(body, &cfg, &loops)[p.index()];
        let class = plan.div.class(p);
        let mut trial = st.cur.layout.clone();
        let rule = rule_for(body, p, class, depth, &mut trial, &sx.live[p.index()]);
        if trial.bytes() > u64::from(sx.budget) {
            st.not_demoted.push(format!(
                "predicate {}: packing it would need {} bytes of shared memory, over the budget of {}",
                body.reg_name(p),
                trial.bytes(),
                sx.budget
            ));
            break;
        }
        st.apply(f, sx, p, class, rule, trial);
    }
}

/// Demotes, most relief per cost first, until the pressure estimate fits `target`, no candidate
/// is left at the peak, or the budget stops the order.
fn demote_to(sx: &SearchCtx, f: &mut Function, plan: &GreedyPlan, st: &mut State, target: u32) {
    loop {
        let body = f.body.as_ref().expect("kernels have bodies");
        let (cfg, loops) = cfg_and_loops(body);
        let lv = Liveness::compute(body, &cfg);
        let pr = Pressure::compute(body, &cfg, &lv);
        st.cur.pressure = pr.max_units();
        if st.cur.pressure <= target {
            return;
        }
        let done = &st.done;
        let eligible = |body: &crate::ptx::Body, r: Reg| {
            r.index() < plan.original_regs && !done[r.index()] && sx.demotable(body, r)
        };
        let Some(best) = select::best_candidate(body, &cfg, &loops, &lv, target, eligible) else {
            st.not_demoted.push(format!(
                "pressure {} > target {target}: no register left to demote at the peak",
                st.cur.pressure
            ));
            return;
        };
        let class = plan.div.class(best);
        let mut trial = st.cur.layout.clone();
        let depth = sole_definition_depths(body, &cfg, &loops)[best.index()];
        let rule = rule_for(body, best, class, depth, &mut trial, &sx.live[best.index()]);
        if trial.bytes() > u64::from(sx.budget)
            && stops_at_budget(sx, plan, st, target, body.reg_name(best), trial.bytes())
        {
            return;
        }
        st.apply(f, sx, best, class, rule, trial);
    }
}

/// The next demotion would need `bytes`, over the budget. Records where the budget first stopped
/// the order and decides whether the order stops here: it does without ptxas, when ptxas already
/// needs no local memory with the set so far, or past the search limit; otherwise it goes on past
/// the budget (the removal searches may bring a clean set back within it).
fn stops_at_budget(
    sx: &SearchCtx,
    plan: &GreedyPlan,
    st: &mut State,
    target: u32,
    reg: &str,
    bytes: u64,
) -> bool {
    let stops_clean = st.stop.is_none() && plan.use_ptxas && bytes <= plan.search_limit && {
        let (mut g, l, d) = sx.replay(&st.cur.order);
        finish(&mut g, &l, &sx.bases, &d, sx.max_regs);
        sx.check(&g).is_some_and(|k| clean(&k))
    };
    if st.stop.is_none() {
        st.stop = Some(BudgetStop {
            len: st.cur.order.len(),
            kept: st.not_demoted.len(),
            why: format!(
                "pressure {} > target {target}: demoting {reg} would need {bytes} bytes of shared memory, over the budget of {}; the rest stays in registers for ptxas",
                st.cur.pressure, sx.budget
            ),
        });
    }
    if !plan.use_ptxas || stops_clean || bytes > plan.search_limit {
        let why = st.stop.as_ref().map(|b| b.why.clone()).unwrap_or_default();
        st.not_demoted.push(why);
        return true;
    }
    false
}
