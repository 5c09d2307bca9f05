//! Shuffle synthesis (PTXASW, CC'23): find global loads that read what a neighbouring lane of the
//! same warp already loaded, and replace them with guarded `shfl.sync`.
//!
//! The pass has three parts, one module each:
//! - [`symexec`]: symbolic emulation of one generic thread over Z3 bit-vectors (paper §4), on the
//!   emulator's decoded instructions and value domain ([`crate::emu::symbolic`]);
//! - [`detect`]: finding and proving shuffle deltas in the memory traces (paper §5.1);
//! - [`codegen`]: the guarded shuffles, written with the PTX builder (paper §5.2);
//! - [`prove`] and [`concrete`]: the queries (Z3 proves; concrete witnesses answer most
//!   satisfiable queries without a solver call).
//!
//! Correctness does not rest on the paper's assumptions (docs/shuffle.md lists what is fixed):
//! the lane is `%laneid`, consecutive `tid.x` inside a warp is checked at run time unless
//! `.reqntid` proves it, sources must be available on every path to the destination, atomics
//! are never loads, predicated loads keep their predicate.

pub mod codegen;
pub mod concrete;
pub mod cost;
pub mod detect;
pub mod prove;
pub mod ranged;
pub mod symexec;

use std::time::Instant;

use serde::Serialize;

use crate::emu::decode::{DInst, Program};
use crate::emu::domain::Space;
use crate::ptx::ir::{FuncKind, Inst, Item, Operand, Reg};
use crate::ptx::Module;

/// What code the pass generates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Mode {
    /// Correct code: shuffles with the incomplete-warp and out-of-range guards.
    #[default]
    Full,
    /// Measurement only (not correct): shuffles, the original loads removed.
    NoLoad,
    /// Measurement only (not correct): shuffles without the corner-case checks.
    NoCorner,
}

/// What the pass is asked to do.
#[derive(Clone, Debug)]
pub struct ShuffleOptions {
    /// Largest |N| considered (1..=31).
    pub max_delta: u32,
    /// Code generation mode.
    pub mode: Mode,
    /// Only this kernel (default: every kernel).
    pub kernel: Option<String>,
    /// Wall-clock budget for the analysis of the whole module ([`DEFAULT_TIME_BUDGET`]; `None`:
    /// no limit), shared among its kernels ([`kernel_deadline`]). When a kernel's share is spent,
    /// its loads not yet decided are left unchanged and the pass goes on with the next kernel: a
    /// drop-in ptxas never stalls a build.
    pub time_budget: Option<std::time::Duration>,
    /// Z3 time each kernel may spend on proofs ([`prove::PROOF_BUDGET`]; `None`: no limit).
    /// Most claims are decided without a solver; a proof that does not fit leaves the load with
    /// the checked form (or a load), which is slower output, never wrong output.
    pub solver_budget: Option<std::time::Duration>,
    /// Make only the replacements worth their added instructions ([`cost`]); `false`: every
    /// replacement the analysis proves (to measure what it finds, as PTXASW's Table 2 does).
    pub profitable_only: bool,
}

/// The default [`ShuffleOptions::time_budget`]: 2 s per file.
pub const DEFAULT_TIME_BUDGET: std::time::Duration = std::time::Duration::from_secs(2);

/// The environment variable that sets the drop-in's time budget, in milliseconds (`0`: no
/// limits, every proof attempted).
pub const BUDGET_ENV: &str = "WARPSMITH_SHUFFLE_BUDGET_MS";

impl Default for ShuffleOptions {
    fn default() -> Self {
        ShuffleOptions {
            max_delta: 31,
            mode: Mode::Full,
            kernel: None,
            time_budget: Some(DEFAULT_TIME_BUDGET),
            solver_budget: Some(prove::PROOF_BUDGET),
            profitable_only: true,
        }
    }
}

impl ShuffleOptions {
    /// The defaults without the time and solver budgets: every proof is attempted, whatever
    /// it costs (tests of what the analysis can prove, benchmarks of its cost).
    pub fn without_budgets() -> ShuffleOptions {
        ShuffleOptions {
            time_budget: None,
            solver_budget: None,
            ..ShuffleOptions::default()
        }
    }

    /// No budgets and no profitability rule: every replacement the analysis proves is made
    /// (tests and measurements of what the analysis finds).
    pub fn exhaustive() -> ShuffleOptions {
        ShuffleOptions {
            profitable_only: false,
            ..ShuffleOptions::without_budgets()
        }
    }
}

/// Whether `deadline` (the time budget's end; `None`: no budget) has passed. The one test of
/// the budget that exploration, witness repair and detection share.
pub(crate) fn past(deadline: Option<std::time::Instant>) -> bool {
    deadline.is_some_and(|d| std::time::Instant::now() > d)
}

/// The time budget given in milliseconds (`0` means no limit).
pub fn budget_from_ms(ms: u64) -> Option<std::time::Duration> {
    (ms > 0).then(|| std::time::Duration::from_millis(ms))
}

/// The drop-in's options: the defaults, with the time budget from [`BUDGET_ENV`] when it is
/// set. An unreadable value is an error naming the variable (the caller warns and keeps the
/// default).
pub fn options_from_env() -> Result<ShuffleOptions, String> {
    let mut opts = ShuffleOptions::default();
    if let Ok(v) = std::env::var(BUDGET_ENV) {
        match v.trim().parse::<u64>() {
            Ok(0) => opts = ShuffleOptions::without_budgets(),
            Ok(ms) => opts.time_budget = budget_from_ms(ms),
            Err(_) => {
                return Err(format!(
                    "{BUDGET_ENV}={v:?} is not a number of milliseconds; using the default \
                     ({} ms)",
                    DEFAULT_TIME_BUDGET.as_millis()
                ))
            }
        }
    }
    Ok(opts)
}

/// A load that was not replaced, and why.
#[derive(Clone, Debug, Serialize)]
pub struct Rejected {
    /// The load (`file:line: ld.global…`).
    pub load: String,
    /// Why it was not replaced.
    pub why: String,
}

/// What the pass did to one kernel.
#[derive(Clone, Debug, Serialize)]
pub struct KernelShuffleReport {
    /// The kernel.
    pub name: String,
    /// Global loads in the kernel.
    pub loads: usize,
    /// Loads replaced by shuffles.
    pub shuffles: usize,
    /// The delta of each replaced load.
    pub deltas: Vec<i32>,
    /// Replaced loads whose value comes from the previous iteration of their loop (beyond the
    /// paper; included in `shuffles`).
    pub cross_iteration: usize,
    /// Replaced loads that also compare the source lane's address with their own at run time
    /// (included in `shuffles`).
    pub checked: usize,
    /// Loads considered and not replaced.
    pub rejected: Vec<Rejected>,
    /// Analysis time in milliseconds.
    pub analysis_ms: f64,
    /// Paths explored by the symbolic emulator (merged paths counted once).
    pub paths: usize,
    /// States merged into an equal one at a block entry (memoisation).
    pub merged: usize,
    /// Z3 queries made (branch feasibility, models, proofs).
    pub queries: usize,
    /// Set when the analysis stopped (a limit, an unsupported instruction): the kernel is left
    /// unchanged.
    pub skipped: Option<String>,
    /// What the analysis did not do for this kernel (partial features that applied).
    pub notes: Vec<String>,
}

/// The whole report (`--report FILE.json`).
#[derive(Clone, Debug, Serialize)]
pub struct ShuffleReport {
    /// Per kernel.
    pub kernels: Vec<KernelShuffleReport>,
}

/// Errors that stop the pass.
#[derive(Debug, thiserror::Error)]
pub enum ShuffleError {
    /// No kernel of that name.
    #[error("no kernel named `{0}` with a body")]
    NoKernel(String),
    /// The analysis failed.
    #[error("{0}")]
    Analysis(String),
}

/// Runs shuffle synthesis on every (or the chosen) kernel of `m`, rewriting it in place.
pub fn shuffle_module(
    m: &mut Module,
    opts: &ShuffleOptions,
) -> Result<ShuffleReport, ShuffleError> {
    if let Some(k) = &opts.kernel {
        let found = m
            .functions()
            .any(|f| &*f.name == k && f.body.is_some() && f.kind == FuncKind::Entry);
        if !found {
            return Err(ShuffleError::NoKernel(k.clone()));
        }
    }
    // `shfl.sync` needs PTX ISA 6.0 and `activemask` 6.2 and sm_70: on older targets the pass
    // would print invalid PTX, so it refuses (the ptxas wrapper then assembles the original).
    let sm = m.sm().and_then(|t| {
        t.trim_start_matches("sm_")
            .trim_start_matches("compute_")
            .trim_end_matches(['a', 'f'])
            .parse::<u32>()
            .ok()
    });
    if m.version < (6, 2) || sm.is_some_and(|v| v < 70) {
        return Err(ShuffleError::Analysis(format!(
            "shuffle synthesis needs PTX ISA 6.2 and sm_70 or later (activemask, shfl.sync); \
             the module is PTX {}.{} for {}",
            m.version.0,
            m.version.1,
            m.sm().unwrap_or("an unknown target")
        )));
    }
    let tc = Instant::now();
    // The thread's Z3 context is made now, its cost logged and counted in the time budget.
    z3_context();
    log::debug!(
        "shuffle: Z3 context {:.1} ms",
        tc.elapsed().as_secs_f64() * 1000.0
    );
    // Analysis on the unchanged module.
    let mut plans: Vec<Plan> = Vec::new();
    let mut kernels = Vec::new();
    {
        let prog = Program::new(m, "input.ptx").map_err(ShuffleError::Analysis)?;
        let chosen: Vec<usize> = prog
            .funcs
            .iter()
            .enumerate()
            .filter(|(_, df)| df.is_kernel && df.has_body)
            .filter(|(_, df)| opts.kernel.as_ref().is_none_or(|k| *k == df.name))
            .map(|(fi, _)| fi)
            .collect();
        for (done, &fi) in chosen.iter().enumerate() {
            let deadline = kernel_deadline(tc, opts.time_budget, chosen.len() - done);
            if let Some((rep, plan)) = analyse_kernel(&prog, fi, opts, deadline) {
                plans.extend(plan);
                kernels.push(rep);
            }
        }
    }
    // Code generation.
    for p in plans {
        if let Some(Item::Function(f)) = m.items.get_mut(p.item) {
            if let Some(body) = f.body.as_mut() {
                codegen::generate(body, &p.loads, &p.reps, opts.mode, p.static_rows, &p.loops);
            }
        }
    }
    Ok(ShuffleReport { kernels })
}

/// The end of kernel's share of the module's time budget: what is left of it, divided evenly
/// among the kernels not yet analysed (`left`, this one included). A kernel that finishes early
/// passes the rest of its share on, and one kernel whose analysis cannot finish no longer spends
/// the time of every kernel after it. `None`: no budget.
fn kernel_deadline(
    start: Instant,
    budget: Option<std::time::Duration>,
    left: usize,
) -> Option<Instant> {
    let budget = budget?;
    let remaining = budget.saturating_sub(start.elapsed());
    Some(Instant::now() + remaining / (left.max(1) as u32))
}

/// Symbolic emulation, detection and the profitability rule for one kernel (`fi` of `prog`):
/// the kernel's report and, when the analysis finished, what code generation is to do; `None`
/// for a function without a body.
fn analyse_kernel(
    prog: &Program,
    fi: usize,
    opts: &ShuffleOptions,
    deadline: Option<Instant>,
) -> Option<(KernelShuffleReport, Option<Plan>)> {
    let func = prog.function(fi as u32)?;
    let body = func.body.as_ref()?;
    let ctx = z3_context();
    let max_delta = opts.max_delta.clamp(1, 31);
    let t0 = Instant::now();
    let df = &prog.funcs[fi];
    let mut plan = None;
    let loads = load_infos(prog, fi as u32, body);
    let mut rep = KernelShuffleReport {
        name: df.name.clone(),
        loads: loads.len(),
        shuffles: 0,
        deltas: Vec::new(),
        cross_iteration: 0,
        checked: 0,
        rejected: Vec::new(),
        analysis_ms: 0.0,
        paths: 0,
        merged: 0,
        queries: 0,
        skipped: None,
        notes: Vec::new(),
    };
    let limits = symexec::Limits {
        deadline,
        ..symexec::Limits::default()
    };
    let mut engine = symexec::Engine::new(ctx, df, body, limits);
    let explored = engine.explore();
    log::debug!(
        "shuffle: kernel {}: symbolic emulation {:.1} ms",
        df.name,
        t0.elapsed().as_secs_f64() * 1000.0
    );
    match explored {
        Err(why) => {
            log::warn!("shuffle: kernel {}: {why}; left unchanged", df.name);
            for l in &loads {
                rep.rejected.push(Rejected {
                    load: l.what.clone(),
                    why: format!("analysis stopped: {why}"),
                });
            }
            rep.skipped = Some(why);
        }
        Ok(ex) => {
            note_exploration(&mut rep, &ex, &loads);
            let (dom, prover) = engine.parts();
            prover.proof_budget = opts.solver_budget;
            let t1 = Instant::now();
            let mut det = detect::detect(dom, prover, &ex, &loads, max_delta, deadline);
            log::debug!(
                "shuffle: kernel {}: detection {:.1} ms; {} Z3 queries in all, {} \
                 answered by a concrete witness",
                df.name,
                t1.elapsed().as_secs_f64() * 1000.0,
                det.queries,
                prover.witnessed
            );
            note_detection(&mut rep, &det, &loads, opts);
            if opts.profitable_only {
                let reps = std::mem::take(&mut det.replacements);
                det.replacements = keep_profitable(&mut rep, reps, body, &loads, &ex);
            }
            note_replacements(&mut rep, &det.replacements);
            plan = Some(Plan {
                item: df.item,
                loads,
                reps: det.replacements,
                static_rows: codegen::ntid_x_multiple_of_32(func),
                loops: ex.loops.clone(),
            });
        }
    }
    rep.analysis_ms = t0.elapsed().as_secs_f64() * 1000.0;
    Some((rep, plan))
}

/// The `what` text of the load at `i` (empty when it is not one of `loads`).
fn load_text(loads: &[detect::LoadInfo], i: Inst) -> String {
    loads
        .iter()
        .find(|l| l.inst == i)
        .map(|l| l.what.clone())
        .unwrap_or_default()
}

/// The report's figures and notes from the symbolic emulation: paths, merges, how loops were
/// summarised and which loads were not considered.
fn note_exploration(
    rep: &mut KernelShuffleReport,
    ex: &symexec::Exploration<'_>,
    loads: &[detect::LoadInfo],
) {
    rep.paths = ex.paths;
    rep.merged = ex.merged;
    if !ex.arrivals.is_empty() {
        rep.notes.push(format!(
            "{} loop entr{}: one abstract iteration each, {} induction variable(s) recognised \
             (add/sub of a loop-invariant step); other loop-carried values are opaque",
            ex.arrivals.len(),
            if ex.arrivals.len() == 1 { "y" } else { "ies" },
            ex.induction_vars
        ));
    }
    let narrow = loads.iter().filter(|l| l.unusable.is_some()).count();
    if narrow > 0 {
        rep.notes.push(format!(
            "{narrow} load(s) not considered: only 32- and 64-bit loads into registers of the \
             access width are shuffled (partial)"
        ));
    }
}

/// The report's figures and notes from detection: budgets spent, queries, rejected loads.
fn note_detection(
    rep: &mut KernelShuffleReport,
    det: &detect::Detection,
    loads: &[detect::LoadInfo],
    opts: &ShuffleOptions,
) {
    if det.proofs_skipped > 0 {
        rep.notes.push(format!(
            "{} proof(s) not attempted: the kernel's solver budget ({} ms of Z3) was spent; \
             those loads use the checked form or stay loads",
            det.proofs_skipped,
            opts.solver_budget.unwrap_or_default().as_millis()
        ));
    }
    if det.out_of_time > 0 {
        rep.notes.push(format!(
            "time budget spent: {} load(s) left as they were",
            det.out_of_time
        ));
    }
    rep.queries = det.queries;
    for (i, why) in &det.rejected {
        rep.rejected.push(Rejected {
            load: load_text(loads, *i),
            why: why.clone(),
        });
    }
}

/// The replacements worth their added instructions ([`cost`]); the others are reported as
/// rejected.
fn keep_profitable(
    rep: &mut KernelShuffleReport,
    reps: Vec<detect::Replacement>,
    body: &crate::ptx::ir::Body,
    loads: &[detect::LoadInfo],
    ex: &symexec::Exploration<'_>,
) -> Vec<detect::Replacement> {
    let in_loop: std::collections::HashSet<Inst> = ex
        .loops
        .values()
        .flat_map(|l| l.insts.iter().copied())
        .collect();
    let (kept, dropped) = cost::profitable(body, loads, reps, &in_loop);
    for (i, per) in dropped {
        rep.rejected.push(Rejected {
            load: load_text(loads, i),
            why: format!(
                "unprofitable: about {per:.1} instructions added per load component, more than \
                 the {} it is taken to save (src/shuffle/cost.rs)",
                cost::LOAD_SAVING
            ),
        });
    }
    kept
}

/// The report's counts of the replacements made.
fn note_replacements(rep: &mut KernelShuffleReport, reps: &[detect::Replacement]) {
    rep.shuffles = reps.len();
    rep.cross_iteration = reps
        .iter()
        .filter(|r| r.comps.iter().any(|c| c.cross.is_some()))
        .count();
    rep.checked = reps
        .iter()
        .filter(|r| r.comps.iter().any(|c| c.checked))
        .count();
    rep.deltas = reps
        .iter()
        .map(|r| r.comps.first().map_or(0, |c| c.delta))
        .collect();
}

/// What code generation does to one kernel.
struct Plan {
    item: usize,
    loads: Vec<detect::LoadInfo>,
    reps: Vec<detect::Replacement>,
    static_rows: bool,
    loops: std::collections::HashMap<u32, symexec::LoopSpan>,
}

thread_local! {
    /// One Z3 context per thread, made on first use and kept (creating one costs 10–20 ms,
    /// more than analysing most kernels). Terms are reference-counted and freed when the
    /// analysis drops them; the context itself lives as long as the thread.
    static Z3_CONTEXT: &'static z3::Context = Box::leak(Box::new({
        let mut c = z3::Config::new();
        c.set_timeout_msec(2000);
        z3::Context::new(&c)
    }));
}

/// This thread's Z3 context.
fn z3_context() -> &'static z3::Context {
    Z3_CONTEXT.with(|c| *c)
}

/// The global loads of decoded function `fi`, in program order.
fn load_infos(prog: &Program, fi: u32, body: &crate::ptx::ir::Body) -> Vec<detect::LoadInfo> {
    let df = &prog.funcs[fi as usize];
    let mut out = Vec::new();
    for (pc, di) in df.code.iter().enumerate() {
        let DInst::Ld {
            size, ext, addr, ..
        } = &di.kind
        else {
            continue;
        };
        if addr.space != Space::Global {
            continue;
        }
        let data = body.inst(di.inst);
        let regs: Vec<Option<Reg>> = match data.operands.first() {
            Some(Operand::Reg(r)) => vec![Some(*r)],
            Some(Operand::Vector(v)) => v
                .iter()
                .map(|o| match o {
                    Operand::Reg(r) => Some(*r),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        };
        let (loc, text) = prog.describe(fi, pc as u32);
        let line = loc.rsplit(':').next().unwrap_or("").to_string();
        let what = format!("line {line}: {}", text.trim());
        let mut unusable = None;
        if *size != 4 && *size != 8 {
            unusable = Some(format!(
                "{}-bit loads are not shuffled (only 32- and 64-bit)",
                size * 8
            ));
        } else if symexec::is_strong_load(body, di.inst) {
            unusable = Some(
                "a volatile, relaxed, acquire or mmio load (must be performed as written)".into(),
            );
        } else if ext.is_some() {
            unusable = Some("a widening load (register wider than the access)".into());
        } else if regs.is_empty() {
            unusable = Some("destination not understood".into());
        } else if regs
            .iter()
            .flatten()
            .any(|r| body.reg(*r).ty.bits() != size * 8 || body.reg(*r).ty.vec.is_some())
        {
            unusable = Some("destination register width differs from the access".into());
        }
        let addr_op = match data.operands.get(1) {
            Some(Operand::Addr(a)) => match a.base {
                crate::ptx::ir::AddrBase::Reg(r) if body.reg(r).ty.bits() == 64 => {
                    Some((r, a.offset))
                }
                _ => None,
            },
            _ => None,
        };
        out.push(detect::LoadInfo {
            inst: di.inst,
            size: *size,
            regs,
            unusable,
            what,
            addr: addr_op,
        });
    }
    out
}
