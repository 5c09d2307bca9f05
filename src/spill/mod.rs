//! Shared-memory spilling at the machine level (RegDem §3; Sampaio et al. §3): when a kernel needs
//! more registers than its occupancy target allows, demote chosen PTX registers to a static
//! `.shared` array so that ptxas, capped with `.maxnreg N`, needs no local memory.
//!
//! The pass, per kernel:
//! 1. learns the block size (`.reqntid`/`.maxntid`, or the caller's) and the target `N` (given,
//!    or the next occupancy cliff whose extra shared memory still raises occupancy);
//! 2. classifies every register with the affine divergence analysis
//!    ([`crate::analysis::divergence`]);
//! 3. demotes registers one at a time, most relief per cost first ([`select`]), until the
//!    register pressure (32-bit units, from [`crate::machine`]) fits `N` minus a reserve, each
//!    by its class's rule ([`rewrite`]): constants and lane-affine values are rematerialised,
//!    affine values `c·lane + b` keep their uniform base `b` in one word per warp (per block) and
//!    are rebuilt with one `mad`, single-definition uniform values get one word per warp (per
//!    block when defined once outside loops), everything else one word per thread in the RegDem
//!    layout ([`layout`]);
//! 4. with ptxas, checks `ptxas -v` at `.maxnreg N` and demotes more while ptxas still spills to
//!    local memory ([`greedy`]); then shrinks the demotion set while ptxas stays free of local
//!    memory ([`search`]): the shortest prefix of the order (binary search), then removals,
//!    largest saving first, in galloping groups (doubled after two acceptances in a row,
//!    halved after a rejection down to one), also from a set widened with every cheap (warp,
//!    block or no word) candidate; when the cost order reaches the shared-memory budget before
//!    ptxas stops spilling, it goes on past the budget and the result counts only if these
//!    searches bring it back within it (else the prefix the budget allowed is kept);
//! 5. cleans up the spill code inside each block ([`peephole`], RegDem §3.3), writes
//!    `.maxnreg N` on the kernel ([`finish`]);
//! 6. keeps the result only if the never-worse rule ([`crate::never_worse`]) says so against the
//!    original assembled with the same ptxas options: local memory does not grow, occupancy (with
//!    static and dynamic shared memory) does not fall, the launch stays legal, and one of them
//!    improves. `auto` tries every cliff below the kernel's use, nearest first, until one is
//!    rejected, and keeps the best kept one (occupancy, then local memory, then shared memory);
//!    the removal searches wait until a cap may be kept ([`caps`]).
//!
//! The shared-memory budget never exceeds what the launch can take ([`setup`]): with dynamic
//! shared memory `D`, static + `D` stays within 48 KiB (or the opt-in maximum when `D` alone is
//! larger). A kernel that reads an `extern .shared` array whose launch size was not given gets no
//! shared memory at all, only rematerialisation.
//!
//! Predicates beyond the hardware's 7 predicate registers cost ptxas general registers: when the
//! kernel needs more than `N`, the excess is packed into bits of per-thread words first
//! (`packed-predicate`, [`rewrite`]), and with ptxas the result is kept only if ptxas then needs
//! less than the same pass without packing.
//!
//! Without ptxas (`use_ptxas: false`, the CLI's `--no-ptxas`) nothing can be measured: the first
//! cap's rewrite is kept unchecked and the report says so (`verdict: "unchecked"`).
//!
//! Partial (said at run time in the report's `notes`): affine values with several definitions
//! stay one word per thread; packing is decided for all of a kernel's predicates at once; reloads
//! are shared only inside one basic block, and live ranges are not split.

mod caps;
pub mod env;
mod finish;
mod greedy;
pub mod layout;
pub mod peephole;
mod plan;
pub mod rewrite;
mod search;
pub mod select;
mod setup;

pub use setup::cliff_caps;

pub use plan::pressure_of;

use serde::Serialize;

use crate::analysis::divergence;
use crate::analysis::occupancy;
use crate::never_worse::{self, DynamicSmem, Figures, LaunchContext, Verdict};
use crate::ptx::builder::Builder;
use crate::ptx::{FuncKind, Function, Item, Module, Type};
use caps::SearchDepth;
use greedy::GreedyPlan;
use rewrite::Bases;
use search::{Current, PtxasMemo, SearchCtx};
use setup::KernelSetup;

/// How many registers to leave the kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// Exactly this many (`--max-regs N`).
    MaxRegs(u32),
    /// The register count of the next occupancy cliff below the kernel's current use whose extra
    /// shared memory fits the budget and still raises occupancy (`--occupancy auto`).
    Auto,
    /// Only where ptxas alone uses local memory: the cap of the kernel's own occupancy step, so
    /// that the local memory moves to shared memory and the occupancy stays (`--occupancy
    /// keep`). Nothing to do for a kernel without local memory. The default of the front ends
    /// that run without a person choosing (the drop-in, the plugin's hook): on an H200 (4 Dec
    /// 2026, docs/gpu.md) every build that moved a local frame to shared memory was faster, while
    /// spilling only to raise occupancy was slower on 15 of 23 kernels at the first cliff and on
    /// 4 of 5 Triton kernels through the drop-in.
    KeepOccupancy,
}

/// What the pass is asked to do.
#[derive(Clone, Debug)]
pub struct SpillOptions {
    /// The register target.
    pub target: Target,
    /// Only this kernel (default: every kernel).
    pub kernel: Option<String>,
    /// Architecture for occupancy (`sm_90`).
    pub arch: String,
    /// Threads per block when the kernel has no launch bounds.
    pub block_size: Option<u32>,
    /// The block shape every launch uses (`X, Y, Z`), for kernels whose `.reqntid` does not give
    /// it (clang writes `__launch_bounds__(256)` as `.maxntid 256`, which leaves the shape open).
    /// With it the divergence analysis sees lane-affine values (`%tid.x` of a 1-D block and
    /// what is computed from it), which the affine rule keeps in two words per warp instead of
    /// one per thread. The pass also classifies without it and keeps the rewrite that needs
    /// less; one made with the shape is correct only for launches of that shape. `None`: the
    /// shape `.reqntid` gives, else unknown (`%tid` divergent).
    pub block_dim: Option<[u32; 3]>,
    /// Most extra shared memory per block the pass may add (default: what keeps the block within
    /// the architecture's 48 KiB static limit).
    pub smem_budget: Option<u32>,
    /// Check with `ptxas -v`: keep demoting while ptxas still uses local memory, and keep the
    /// result only if the never-worse rule says so. `false`: the rewrite is kept unchecked.
    pub use_ptxas: bool,
    /// Dynamic shared memory the kernel is launched with (bytes), for occupancy, the budget and
    /// launch legality. `None`: 0 for kernels that read no `extern .shared` array, unknown (no
    /// shared memory added) for those that do.
    pub dynamic_smem: Option<u32>,
    /// Further options for every ptxas run (`-O3`, `--fmad=false`, …): the original and the
    /// rewrite are compared as the caller will assemble them.
    pub ptxas_args: Vec<String>,
    /// Most ptxas runs the removal searches keep in flight at once. `None`: the machine's
    /// parallelism, at most [`DEFAULT_MAX_JOBS`]; `Some(1)`: one at a time. The result does not
    /// depend on it (docs/spill.md, step 5).
    pub jobs: Option<usize>,
}

/// The most ptxas runs in flight when [`SpillOptions::jobs`] is not given: the removal passes
/// speculate that the earlier removals of a window are rejected, and a wider window wastes more
/// runs on each acceptance.
pub const DEFAULT_MAX_JOBS: usize = 4;

/// The number of ptxas runs in flight for `jobs` ([`SpillOptions::jobs`]).
pub fn jobs_or_default(jobs: Option<usize>) -> usize {
    jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map_or(1, usize::from)
            .min(DEFAULT_MAX_JOBS)
    })
    .max(1)
}

/// Errors that stop the pass for a kernel or the module.
#[derive(Debug, thiserror::Error)]
pub enum SpillError {
    /// No kernel of that name.
    #[error("no kernel named `{0}` with a body")]
    NoKernel(String),
    /// The layout needs the block size.
    #[error(
        "kernel `{0}` has no .reqntid/.maxntid launch bounds: give the block size (--block-size, \
         or WARPSMITH_SPILL_BLOCK_SIZE for the ptxas drop-in and the LLVM plugin); the \
         shared-memory layout is sized per thread"
    )]
    NoBlockSize(String),
    /// Kernels the pass refuses.
    #[error("kernel `{kernel}` is refused: {why}")]
    Refused { kernel: String, why: String },
    /// The divergence analysis failed.
    #[error("{0}")]
    Divergence(String),
    /// A bad architecture or launch.
    #[error("{0}")]
    Occupancy(#[from] occupancy::OccupancyError),
}

/// One demoted register in the report.
#[derive(Clone, Debug, Serialize)]
pub struct Demoted {
    /// Its PTX name.
    pub reg: String,
    /// Its divergence class.
    pub class: String,
    /// The rule applied.
    pub rule: String,
    /// Reloads (or rematerialisations) inserted.
    pub loads: usize,
    /// Stores inserted.
    pub stores: usize,
}

/// What the pass did to one kernel.
#[derive(Clone, Debug, Serialize)]
pub struct KernelReport {
    /// The kernel.
    pub name: String,
    /// The register cap written (`.maxnreg`); 0 when the original was kept.
    pub max_regs: u32,
    /// Threads per block the layout is sized for.
    pub block_size: u32,
    /// Peak register pressure before, in 32-bit units.
    pub pressure_before: u32,
    /// Peak register pressure after, in 32-bit units.
    pub pressure_after: u32,
    /// The demoted registers, in the order chosen.
    pub demoted: Vec<Demoted>,
    /// Shared memory added per block, bytes.
    pub smem_bytes: u64,
    /// Occupancy at the kernel's own register count before (when ptxas gave it), else at the
    /// register model's prediction (`predicted_registers_before`).
    pub occupancy_before: f64,
    /// Occupancy at `max_regs` with the added shared memory.
    pub occupancy_after: f64,
    /// What could not be demoted (and stays in registers for ptxas to spill), with why.
    pub not_demoted: Vec<String>,
    /// `ptxas -v` after the pass: spill stores + loads + stack frame bytes (None: not checked).
    pub ptxas_local_bytes: Option<u32>,
    /// Registers ptxas used after the pass (None: not checked).
    pub ptxas_registers: Option<u32>,
    /// ptxas's figures after the pass, as the never-worse rule reads them (None: not checked).
    pub ptxas_figures: Option<Figures>,
    /// Reloads the post-spill clean-up turned into register moves ([`peephole`]).
    pub reloads_reused: usize,
    /// Stores the post-spill clean-up dropped (overwritten before any reload).
    pub stores_dropped: usize,
    /// Limits of this version that applied to the kernel.
    pub notes: Vec<String>,
    /// Where the pass made the rewrite two ways and kept one (predicates packed or not, the
    /// divergence classes with or without `--block-dim`'s shape): both figures and the choice.
    pub choices: Vec<String>,
    /// Whether the rewrite was kept (false: the kernel is the original, `demoted` is empty).
    pub kept: bool,
    /// The never-worse rule's answer for what was kept (or for the last cap tried), with figures;
    /// `unchecked` without ptxas.
    pub verdict: String,
    /// The launch's dynamic shared memory as the pass saw it.
    pub dynamic_smem: DynamicSmem,
    /// Every register cap tried, nearest first, with what ptxas made of it.
    pub attempts: Vec<Attempt>,
    /// Without ptxas: the register model's prediction of ptxas's count for the original, which
    /// took the place of ptxas's figure (None when ptxas was run).
    pub predicted_registers_before: Option<u32>,
    /// Without ptxas: the model's prediction for the rewrite before its `.maxnreg` cap; above
    /// `max_regs` ptxas is expected to spill (None when ptxas was run or nothing was rewritten).
    pub predicted_registers: Option<u32>,
}

/// One register cap the pass tried.
#[derive(Clone, Debug, Serialize)]
pub struct Attempt {
    /// The cap.
    pub max_regs: u32,
    /// Registers demoted.
    pub demoted: usize,
    /// Shared memory added per block, bytes.
    pub smem_bytes: u64,
    /// ptxas's registers for the rewrite (None: not checked).
    pub ptxas_registers: Option<u32>,
    /// ptxas's local memory for the rewrite: stack + spill traffic, bytes (None: not checked).
    pub ptxas_local_bytes: Option<u32>,
    /// Occupancy of the rewrite (dynamic shared memory counted, 0 where unknown).
    pub occupancy: Option<f64>,
    /// Whether the never-worse rule kept it.
    pub kept: bool,
    /// The rule's reason.
    pub reason: String,
}

/// The whole report (`--report FILE.json`).
#[derive(Clone, Debug, Serialize)]
pub struct SpillReport {
    /// Per kernel.
    pub kernels: Vec<KernelReport>,
}

/// Registers the pass keeps for itself and ptxas's own temporaries: the target pressure is
/// `N - RESERVE` (tightened further while ptxas still spills).
const RESERVE: u32 = 6;

/// Runs the pass on every (or the chosen) kernel of `m`.
pub fn spill_module(m: &mut Module, opts: &SpillOptions) -> Result<SpillReport, SpillError> {
    let names: Vec<String> = m
        .functions()
        .filter(|f| f.body.is_some() && f.kind == FuncKind::Entry)
        .map(|f| f.name.to_string())
        .filter(|n| opts.kernel.as_deref().is_none_or(|k| k == n))
        .collect();
    if let Some(k) = &opts.kernel {
        if names.is_empty() {
            return Err(SpillError::NoKernel(k.clone()));
        }
    }
    let module_names: Vec<String> = m
        .vars()
        .filter_map(|v| v.name.as_deref().map(str::to_string))
        .chain(m.functions().map(|f| f.name.to_string()))
        .collect();
    let mut kernels = Vec::new();
    for name in names {
        let snapshot = m.clone();
        let Some(idx) = m
            .items
            .iter()
            .position(|i| matches!(i, Item::Function(f) if *f.name == *name && f.body.is_some()))
        else {
            continue;
        };
        let Item::Function(f) = &mut m.items[idx] else {
            continue;
        };
        let report = caps::spill_kernel(f, &snapshot, idx, &module_names, opts)?;
        log::info!("spill `{}`: {}", report.name, report.verdict);
        kernels.push(report);
    }
    Ok(SpillReport { kernels })
}

/// The verdict on a rewrite that ptxas did not check (`--no-ptxas`): an explicit cap is kept as
/// asked, with a note when the register model expects ptxas to spill under it; a cap the pass
/// chose (`auto`) only when the model expects no spill and the occupancy to rise (issue 12: the
/// model proposes where nothing measures). `Err` says why the original stays.
fn judge_unchecked(report: &KernelReport, target: Target) -> Result<String, String> {
    const UNCHECKED: &str = "unchecked: ptxas was not run, the never-worse rule was not applied";
    // The greedy order aims below the cap by a margin (`greedy::model_limit`); only a
    // prediction above the cap itself refuses the rewrite: requiring the margin here too gives
    // 19 better and 6 worse instead of 25 and 8 (Liger: 9/7 instead of 14/8; docs/spill.md).
    let over = report
        .predicted_registers
        .filter(|&need| need > report.max_regs)
        .map(|need| {
            format!(
                "the register model predicts {need} registers for the rewrite, above .maxnreg \
                 {}: ptxas is expected to spill",
                report.max_regs
            )
        });
    match target {
        // Not reached: without ptxas nothing shows local memory to move (`setup::targets`).
        Target::KeepOccupancy => {
            Err("ptxas was not run: nothing shows local memory to move".into())
        }
        Target::MaxRegs(_) => Ok(match over {
            Some(over) => format!("{UNCHECKED}; {over}"),
            None => UNCHECKED.to_string(),
        }),
        Target::Auto => {
            if let Some(over) = over {
                return Err(format!("ptxas was not run and {over}"));
            }
            let (before, after) = (report.occupancy_before, report.occupancy_after);
            if after <= before {
                return Err(format!(
                    "ptxas was not run and the occupancy the register model predicts does not \
                     rise ({:.1}% -> {:.1}% at .maxnreg {} with {} B of shared memory added)",
                    before * 100.0,
                    after * 100.0,
                    report.max_regs,
                    report.smem_bytes
                ));
            }
            Ok(format!(
                "{UNCHECKED}; the register model predicts {} registers before and {} after \
                 (.maxnreg {}), occupancy {:.1}% -> {:.1}%",
                report
                    .predicted_registers_before
                    .map_or("?".into(), |n| n.to_string()),
                report
                    .predicted_registers
                    .map_or("?".into(), |n| n.to_string()),
                report.max_regs,
                before * 100.0,
                after * 100.0
            ))
        }
    }
}

/// The never-worse rule on the finished rewrite `g` against the original's figures. `None` when
/// ptxas is not used at all; a rejection when either version could not be measured.
fn judge_rewrite(kernel: &KernelPass, g: &Function) -> Option<Verdict> {
    let KernelPass {
        module,
        idx,
        opts,
        setup: s,
        memo,
        ..
    } = *kernel;
    if !opts.use_ptxas {
        return None;
    }
    let reject = |why: &str| Verdict {
        keep: false,
        reason: why.to_string(),
        occupancy_before: Some(s.occ_before),
        occupancy_after: None,
    };
    let Some(before) = s.before.as_ref() else {
        return Some(reject(
            "ptxas could not assemble the original (or was not found): nothing to compare with",
        ));
    };
    let after = match memo.check_why(module, idx, g, &opts.arch, &opts.ptxas_args) {
        Ok(after) => after,
        Err(why) => {
            return Some(reject(&format!(
                "ptxas could not assemble the rewrite: {why}"
            )))
        }
    };
    let ctx = LaunchContext {
        arch: s.arch,
        threads: Some(s.threads),
        dynamic: s.dynamic,
    };
    Some(never_worse::judge(
        &Figures::from(before),
        &Figures::from(&after),
        &ctx,
    ))
}

fn attempt_of(r: &KernelReport, v: Option<&Verdict>) -> Attempt {
    Attempt {
        max_regs: r.max_regs,
        demoted: r.demoted.len(),
        smem_bytes: r.smem_bytes,
        ptxas_registers: r.ptxas_registers,
        ptxas_local_bytes: r.ptxas_local_bytes,
        occupancy: v.and_then(|v| v.occupancy_after),
        kept: v.is_some_and(|v| v.keep),
        reason: v.map_or_else(|| "unchecked".to_string(), |v| v.reason.clone()),
    }
}

/// The report of a kernel left as it was.
fn original_report(s: &KernelSetup, verdict: String, attempts: Vec<Attempt>) -> KernelReport {
    let figures = s.before.as_ref().map(Figures::from);
    KernelReport {
        name: s.name.clone(),
        max_regs: 0,
        block_size: s.threads,
        pressure_before: s.pressure_before,
        pressure_after: s.pressure_before,
        demoted: Vec::new(),
        smem_bytes: 0,
        occupancy_before: s.occ_before,
        occupancy_after: s.occ_before,
        not_demoted: Vec::new(),
        ptxas_local_bytes: figures.map(|f| f.local_bytes()),
        ptxas_registers: figures.map(|f| f.registers),
        ptxas_figures: figures,
        reloads_reused: 0,
        stores_dropped: 0,
        notes: vec![verdict.clone()],
        choices: Vec::new(),
        kept: false,
        verdict,
        dynamic_smem: s.dynamic,
        attempts,
        predicted_registers_before: s.predicted_before,
        predicted_registers: None,
    }
}

/// One way of classifying the kernel's registers by divergence, and what it assumed.
struct Classification {
    div: divergence::FunctionDivergence,
    /// `Some(shape)` when it was told the launch's block shape (`--block-dim`).
    shape: Option<[u32; 3]>,
}

/// The classifications the pass tries: with the launch's block shape when one is given
/// (`--block-dim`), and without it as well when that classifies some register differently. The
/// shape turns lane-affine values into affine ones, which changes the greedy order's costs, and
/// the order it then takes can land on a larger spill area (`heavy_sgemm_8x8`: +4 % with clang,
/// +14 % with NVRTC; docs/spill.md), so both are tried and the better kept.
fn classifications(f: &Function, opts: &SpillOptions) -> Result<Vec<Classification>, SpillError> {
    let analyse = |shape: Option<[u32; 3]>| {
        let dopts = divergence::Options {
            block_dim: shape,
            assume_1d: false,
            assume_no_wrap: false,
        };
        divergence::analyze_function(f, &dopts)
            .map(|div| Classification { div, shape })
            .map_err(|e| SpillError::Divergence(e.to_string()))
    };
    let first = analyse(opts.block_dim)?;
    if opts.block_dim.is_none() {
        return Ok(vec![first]);
    }
    let without = analyse(None)?;
    if without.div.registers == first.div.registers {
        return Ok(vec![first]);
    }
    Ok(vec![first, without])
}

/// What the pass at every cap reads about the kernel and its module.
struct KernelPass<'a> {
    /// The module as it was before the pass (ptxas checks assemble the kernel in it).
    module: &'a Module,
    /// The kernel's item index in `module`.
    idx: usize,
    /// Every name the module declares (the spill array's name must be new).
    module_names: &'a [String],
    opts: &'a SpillOptions,
    setup: &'a KernelSetup,
    /// How far the search goes ([`caps`]: the removal searches wait until a cap may be kept).
    depth: SearchDepth,
    /// ptxas's answers for every version of the kernel assembled so far.
    memo: &'a PtxasMemo,
}

/// The pass at one cap under each classification ([`classifications`]); keeps the rewrite that
/// needs less ([`need_key`]). With two, the kept report says which won and by how much.
fn spill_with_classes(
    f: &mut Function,
    kernel: &KernelPass,
    classes: &[Classification],
    max_regs: u32,
) -> Result<KernelReport, SpillError> {
    let original = f.clone();
    let mut tried: Vec<(Function, KernelReport, Option<[u32; 3]>)> = Vec::new();
    for class in classes {
        let mut g = original.clone();
        let report = spill_with_packing(&mut g, kernel, &class.div, max_regs)?;
        tried.push((g, report, class.shape));
    }
    let best = (0..tried.len())
        .min_by_key(|&k| need_key(&tried[k].1))
        .unwrap_or(0);
    let figures: Vec<String> = tried
        .iter()
        .map(|(_, r, shape)| {
            format!(
                "{}: spill area {} B, local memory {}",
                shape.map_or("without the block shape".into(), |d| format!(
                    "with the block shape {}",
                    divergence::BlockShape::Known(d).describe()
                )),
                r.smem_bytes,
                r.ptxas_local_bytes
                    .map_or("not checked".into(), |b| format!("{b} B"))
            )
        })
        .collect();
    let (g, mut report, _) = tried.swap_remove(best);
    if figures.len() > 1 {
        report.choices.insert(
            0,
            format!(
                "divergence classes tried {} ways ({}): kept the {}",
                figures.len(),
                figures.join("; "),
                if best == 0 { "first" } else { "second" }
            ),
        );
    }
    *f = g;
    Ok(report)
}

/// How much a rewrite at one cap needs, for choosing between two ways of making it (smaller is
/// better): predicted above the cap (without ptxas), then ptxas's local memory (a rewrite ptxas
/// did not measure counts as the most), then the spill area.
fn need_key(r: &KernelReport) -> (bool, u32, u64) {
    (
        r.predicted_registers.is_some_and(|p| p > r.max_regs),
        r.ptxas_local_bytes.unwrap_or(u32::MAX),
        r.smem_bytes,
    )
}

/// The pass at one cap. When predicates get packed and ptxas is there to check, it also runs
/// without packing and keeps the packed result only if ptxas then needs less: less local memory,
/// or as little and a smaller spill area (fewer general registers had to go).
fn spill_with_packing(
    f: &mut Function,
    kernel: &KernelPass,
    div: &divergence::FunctionDivergence,
    max_regs: u32,
) -> Result<KernelReport, SpillError> {
    let opts = kernel.opts;
    let mut packed_f = f.clone();
    let mut packed = spill_at_target(&mut packed_f, kernel, div, max_regs, true);
    let n_packed = packed
        .demoted
        .iter()
        .filter(|d| d.rule == "packed-predicate")
        .count();
    if n_packed == 0 || !opts.use_ptxas {
        *f = packed_f;
        return Ok(packed);
    }
    let mut plain = spill_at_target(f, kernel, div, max_regs, false);
    let figures = format!(
        "{n_packed} predicates packed: ptxas {} B local memory, spill area {} B; without packing {} B local memory, spill area {} B",
        packed.ptxas_local_bytes.map_or("?".into(), |b| b.to_string()),
        packed.smem_bytes,
        plain.ptxas_local_bytes.map_or("?".into(), |b| b.to_string()),
        plain.smem_bytes
    );
    if need_key(&packed) < need_key(&plain) {
        packed.choices.push(format!("{figures}: packing kept"));
        *f = packed_f;
        Ok(packed)
    } else {
        plain.choices.push(format!(
            "{figures}: packing dropped, predicates stay in registers"
        ));
        for d in packed
            .demoted
            .iter()
            .filter(|d| d.rule == "packed-predicate")
        {
            plain.not_demoted.push(format!(
                "predicate {}: packing it did not lower ptxas's local-memory need or the spill area",
                d.reg
            ));
        }
        Ok(plain)
    }
}

/// The pass at cap `max_regs` on the original kernel `f`: reserve the spill array and base
/// registers, run the greedy order ([`greedy`]), the ptxas searches ([`search`]), and report.
fn spill_at_target(
    f: &mut Function,
    kernel: &KernelPass,
    div: &divergence::FunctionDivergence,
    max_regs: u32,
    pack: bool,
) -> KernelReport {
    let KernelPass {
        module,
        idx,
        module_names,
        opts,
        setup,
        depth,
        memo,
    } = *kernel;
    let mut notes = Vec::new();
    if setup.dynamic == DynamicSmem::Unknown {
        notes.push("the kernel reads an extern .shared array and the launch's dynamic shared memory was not given (--dynamic-smem, WARPSMITH_SPILL_DYNAMIC_SMEM): no shared memory is added, only rematerialisation".into());
    }
    let granule = setup.granule;
    let (bases, original_regs) = reserve_bases(f, module_names, granule);
    // The declared area is rounded up to the granule: keep that within the budget too.
    let budget = setup::budget_for(setup, opts, max_regs).saturating_sub(granule as u32 - 1);
    let start_body = f.body.as_ref().expect("kernels have bodies");
    let (start_cfg, start_loops) = plan::cfg_and_loops(start_body);
    let sole_def_depth = plan::sole_definition_depths(start_body, &start_cfg, &start_loops);
    let sx = SearchCtx {
        module,
        idx,
        start: f.clone(),
        live: plan::live_points(start_body),
        sole_def_depth,
        threads: setup.threads,
        bases,
        max_regs,
        arch: &opts.arch,
        ptxas_args: &opts.ptxas_args,
        budget,
        pinned: select::async_pinned(f.body.as_ref().expect("kernels have bodies")),
        memo,
        jobs: jobs_or_default(opts.jobs),
    };
    let gp = GreedyPlan {
        div,
        search_limit: setup::search_limit(setup, budget),
        use_ptxas: opts.use_ptxas,
        model_check: !opts.use_ptxas && opts.target == Target::Auto,
        pack,
        regs_before: setup.regs_before,
        original_regs,
    };
    let greedy = greedy::demote(&sx, f, &gp);
    let greedy_order = greedy.cur.order.clone();
    let mut not_demoted = greedy.not_demoted;
    let mut cur: Current = greedy.cur;
    let name = f.name.clone();
    let phase_done = |phase: &str, cur: &Current| {
        log::debug!(
            "spill `{name}` at .maxnreg {max_regs}: {phase}: {} demotions, {} B, {}",
            cur.order.len(),
            cur.layout.bytes(),
            if cur.is_clean() { "clean" } else { "not clean" }
        )
    };
    phase_done("greedy order", &cur);
    if opts.use_ptxas {
        search::shortest_clean_prefix(&sx, f, &mut cur);
        phase_done("shortest clean prefix", &cur);
        if depth == SearchDepth::Whole {
            search::drop_unneeded(&sx, f, &mut cur);
            phase_done("unneeded dropped", &cur);
            search::widen_with_cheap(&sx, f, &mut cur, div, original_regs);
            phase_done("widened with cheap values", &cur);
        }
    }
    if let Some(note) = search::back_within_budget(
        &sx,
        f,
        &mut cur,
        &greedy_order,
        greedy.stop,
        opts.use_ptxas,
        &mut not_demoted,
    ) {
        notes.push(note);
    }
    notes.extend(partial_notes(
        f,
        &sx,
        &cur,
        &greedy.preds,
        pack,
        setup.regs_before,
        original_regs,
        opts,
    ));
    let predicted = cur.predicted;
    let smem = if cur.layout.bytes() == 0 {
        0
    } else {
        sx.bases.area(cur.layout.bytes())
    };
    let occ_after = occupancy::occupancy(
        setup.arch,
        &never_worse::launch_resources(
            max_regs,
            setup.threads,
            setup.static_smem + smem as u32,
            setup.dynamic,
        ),
    )
    .map_or(0.0, |o| o.occupancy);
    let figures = cur.ptxas.as_ref().map(Figures::from);
    KernelReport {
        name: setup.name.clone(),
        max_regs,
        block_size: setup.threads,
        pressure_before: setup.pressure_before,
        pressure_after: cur.pressure,
        demoted: cur.demoted,
        smem_bytes: smem,
        occupancy_before: setup.occ_before,
        occupancy_after: occ_after,
        not_demoted,
        ptxas_local_bytes: cur
            .ptxas
            .as_ref()
            .map(|k| k.spill_stores + k.spill_loads + k.stack_frame),
        ptxas_registers: cur.ptxas.as_ref().map(|k| k.registers),
        ptxas_figures: figures,
        reloads_reused: cur.cleaned.reloads,
        stores_dropped: cur.cleaned.stores,
        notes,
        choices: Vec::new(),
        kept: true,
        verdict: String::new(),
        dynamic_smem: setup.dynamic,
        attempts: Vec::new(),
        predicted_registers_before: setup.predicted_before,
        predicted_registers: if opts.use_ptxas {
            None
        } else {
            predicted.or_else(|| sx.predict(f))
        },
    }
}

/// Reserves the spill array's name and the base registers in `f`; returns them and the number of
/// registers the kernel had before (only those are demotion candidates).
fn reserve_bases(f: &mut Function, module_names: &[String], granule: u64) -> (Bases, usize) {
    let body = f.body.as_mut().expect("kernels have bodies");
    let original_regs = body.regs.len();
    let in_loop = plan::loop_instructions(body);
    let mut b = Builder::new(body);
    b.reserve_names(module_names.iter().map(String::as_str));
    let array = b.fresh_name("__ws_spill");
    let bases = Bases {
        array,
        thread: Some(b.new_reg(Type::B32)),
        warp: Some(b.new_reg(Type::B32)),
        granule,
        in_loop,
    };
    (bases, original_regs)
}

/// The limits of this version that applied (the report's `notes`).
#[allow(clippy::too_many_arguments)]
fn partial_notes(
    f: &Function,
    sx: &SearchCtx,
    cur: &Current,
    preds: &[crate::ptx::Reg],
    pack: bool,
    regs_before: u32,
    original_regs: usize,
    opts: &SpillOptions,
) -> Vec<String> {
    let mut notes = Vec::new();
    if !opts.use_ptxas && cur.demoted.iter().any(|d| d.rule == "packed-predicate") {
        notes.push("predicates beyond the 7 predicate registers were packed into per-thread words without ptxas to confirm that it needs less with them".into());
    }
    if cur
        .demoted
        .iter()
        .any(|d| d.class == "affine" && d.rule == "thread-slot")
    {
        notes.push(
            "affine values with several definitions (or a 16-bit type, or a coefficient beyond 32 bits) are kept one word per thread".into(),
        );
    }
    let body = f.body.as_ref().expect("kernels have bodies");
    if pack
        && preds.is_empty()
        && regs_before > sx.max_regs
        && plan::max_live_preds(body, &sx.live, original_regs) > plan::PRED_REGS
    {
        notes.push(
            "more predicates are live than the 7 predicate registers hold, but none was packed"
                .into(),
        );
    }
    if !cur.demoted.is_empty() {
        notes.push("reloads are reused only within one basic block; live ranges are not split (a demoted value is reloaded at every use)".into());
    }
    notes
}

#[cfg(test)]
mod tests;
