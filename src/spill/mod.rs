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
//! 4. with ptxas available, checks `ptxas -v` at `.maxnreg N` and demotes more while ptxas still
//!    spills to local memory; then shrinks the demotion set while ptxas stays free of local
//!    memory: the shortest prefix of the order (binary search), then single removals, largest
//!    saving first, also from a set widened with every cheap (warp, block or no word) candidate;
//!    when the cost order reaches the shared-memory budget before ptxas stops spilling, it goes on
//!    past the budget and the result counts only if these searches bring it back within it (else
//!    the prefix the budget allowed is kept);
//! 5. cleans up the spill code inside each block ([`peephole`], RegDem §3.3), writes
//!    `.maxnreg N` on the kernel and reports what it did.
//!
//! Predicates beyond the hardware's 7 predicate registers cost ptxas general registers: when the
//! kernel needs more than `N`, the excess is packed into bits of per-thread words first
//! (`packed-predicate`, [`rewrite`]), and with ptxas the result is kept only if ptxas then needs
//! less than the same pass without packing.
//!
//! Partial (said at run time in the report's `notes`): affine values with several definitions
//! stay one word per thread; packing is decided for all of a kernel's predicates at once; reloads are shared
//! only inside one basic block, and live ranges are not split.

pub mod env;
pub mod layout;
pub mod peephole;
pub mod rewrite;
pub mod select;

use serde::Serialize;

use crate::analysis::divergence::{self, Class, Scope};
use crate::analysis::occupancy::{self, LaunchResources};
use crate::machine::bitset::BitSet;
use crate::machine::cfg::Cfg;
use crate::machine::dominators::DomTree;
use crate::machine::liveness::Liveness;
use crate::machine::loops::LoopInfo;
use crate::machine::pressure::Pressure;
use crate::ptx::builder::Builder;
use crate::ptx::{print_module, FuncDirective, Function, Module, Opcode, Reg, StateSpace, Type};
use layout::{Layout, Slot};
use rewrite::{emit_bases, rewrite_register, Bases, Rule, Temps};

/// How many registers to leave the kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// Exactly this many (`--max-regs N`).
    MaxRegs(u32),
    /// The register count of the next occupancy cliff below the kernel's current use whose extra
    /// shared memory fits the budget and still raises occupancy (`--occupancy auto`).
    Auto,
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
    /// Most extra shared memory per block the pass may add (default: what keeps the block within
    /// the architecture's 48 KiB static limit).
    pub smem_budget: Option<u32>,
    /// Check with `ptxas -v` and keep demoting while ptxas still uses local memory.
    pub use_ptxas: bool,
    /// Dynamic shared memory the kernel is launched with (bytes), for occupancy and the budget.
    pub dynamic_smem: u32,
}

/// Errors that stop the pass for a kernel or the module.
#[derive(Debug, thiserror::Error)]
pub enum SpillError {
    /// No kernel of that name.
    #[error("no kernel named `{0}` with a body")]
    NoKernel(String),
    /// The layout needs the block size.
    #[error("kernel `{0}` has no .reqntid/.maxntid launch bounds: pass --block-size (the shared-memory layout is sized per thread)")]
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
    /// The register cap written (`.maxnreg`).
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
    /// pressure estimate.
    pub occupancy_before: f64,
    /// Occupancy at `max_regs` with the added shared memory.
    pub occupancy_after: f64,
    /// What could not be demoted (and stays in registers for ptxas to spill), with why.
    pub not_demoted: Vec<String>,
    /// `ptxas -v` after the pass: spill stores + loads + stack frame bytes (None: not checked).
    pub ptxas_local_bytes: Option<u32>,
    /// Registers ptxas used after the pass (None: not checked).
    pub ptxas_registers: Option<u32>,
    /// Reloads the post-spill clean-up turned into register moves ([`peephole`]).
    pub reloads_reused: usize,
    /// Stores the post-spill clean-up dropped (overwritten before any reload).
    pub stores_dropped: usize,
    /// Limits of this version that applied to the kernel.
    pub notes: Vec<String>,
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
        .filter(|f| f.body.is_some() && f.kind == crate::ptx::FuncKind::Entry)
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
        let idx = m.items.iter().position(|i| matches!(i, crate::ptx::Item::Function(f) if *f.name == *name && f.body.is_some())).unwrap_or(0);
        let report = {
            let crate::ptx::Item::Function(f) = &mut m.items[idx] else {
                continue;
            };
            spill_kernel(f, &snapshot, idx, &module_names, opts)?
        };
        kernels.push(report);
    }
    Ok(SpillReport { kernels })
}

fn ptxas_check(
    module: &Module,
    idx: usize,
    f: &Function,
    arch: &str,
) -> Option<crate::tools::KernelResources> {
    let mut m = module.clone();
    m.items[idx] = crate::ptx::Item::Function(f.clone());
    // Other kernels cannot be called: leave them out so ptxas compiles only what matters.
    let mut k = 0;
    m.items.retain(|item| {
        let keep = k == idx || !matches!(item, crate::ptx::Item::Function(g) if g.kind == crate::ptx::FuncKind::Entry);
        k += 1;
        keep
    });
    let text = print_module(&m);
    match crate::tools::ptxas_verbose_source(&text, arch, &[]) {
        Ok(v) => v.into_iter().find(|k| k.name == *f.name),
        Err(e) => {
            log::warn!("ptxas check of `{}` failed: {e}", f.name);
            None
        }
    }
}

/// Runs the pass on one kernel. When predicates get packed and ptxas is there to check, the pass
/// also runs without packing and keeps the packed result only if ptxas then needs less: less
/// local memory, or as little and a smaller spill area (fewer general registers had to go).
fn spill_kernel(
    f: &mut Function,
    module: &Module,
    idx: usize,
    module_names: &[String],
    opts: &SpillOptions,
) -> Result<KernelReport, SpillError> {
    let mut packed_f = f.clone();
    let mut packed = spill_kernel_with(&mut packed_f, module, idx, module_names, opts, true)?;
    let n_packed = packed
        .demoted
        .iter()
        .filter(|d| d.rule == "packed-predicate")
        .count();
    if n_packed == 0 || !opts.use_ptxas {
        *f = packed_f;
        return Ok(packed);
    }
    let mut plain = spill_kernel_with(f, module, idx, module_names, opts, false)?;
    let key = |r: &KernelReport| (r.ptxas_local_bytes.unwrap_or(u32::MAX), r.smem_bytes);
    let figures = format!(
        "{n_packed} predicates packed: ptxas {} B local memory, spill area {} B; without packing {} B local memory, spill area {} B",
        packed.ptxas_local_bytes.map_or("?".into(), |b| b.to_string()),
        packed.smem_bytes,
        plain.ptxas_local_bytes.map_or("?".into(), |b| b.to_string()),
        plain.smem_bytes
    );
    if key(&packed) < key(&plain) {
        packed.notes.insert(0, format!("{figures}: packing kept"));
        *f = packed_f;
        Ok(packed)
    } else {
        plain.notes.insert(
            0,
            format!("{figures}: packing dropped, predicates stay in registers"),
        );
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

fn spill_kernel_with(
    f: &mut Function,
    module: &Module,
    idx: usize,
    module_names: &[String],
    opts: &SpillOptions,
    pack: bool,
) -> Result<KernelReport, SpillError> {
    let name = f.name.to_string();
    let body = f
        .body
        .as_ref()
        .ok_or_else(|| SpillError::NoKernel(name.clone()))?;
    if body.insts.iter().any(|i| i.opcode == Opcode::Setmaxnreg) {
        return Err(SpillError::Refused {
            kernel: name,
            why: "it uses setmaxnreg, which changes the register budget at run time".into(),
        });
    }
    if body.insts.iter().any(|i| {
        i.opcode == Opcode::Call
            && i.operands
                .iter()
                .any(|o| matches!(o, crate::ptx::Operand::Sym(s) if **s == *name))
    }) {
        return Err(SpillError::Refused {
            kernel: name,
            why: "it is recursive".into(),
        });
    }
    let threads = f
        .block_size_bound()
        .or(opts.block_size)
        .ok_or_else(|| SpillError::NoBlockSize(name.clone()))?;
    let arch = occupancy::arch(&opts.arch)?;
    let mut notes = Vec::new();

    let before = if opts.use_ptxas {
        ptxas_check(module, idx, f, &opts.arch)
    } else {
        None
    };
    let pressure_before = pressure_of(f.body.as_ref().expect("checked above"));
    let regs_before = before
        .as_ref()
        .map_or(pressure_before, |k| k.registers.max(1));
    let static_smem = before.as_ref().map_or(0, |k| k.shared);
    let occ_before = occupancy::occupancy(
        arch,
        &LaunchResources {
            regs_per_thread: regs_before.min(255),
            threads_per_block: threads,
            static_smem,
            dynamic_smem: opts.dynamic_smem,
            carveout_kib: None,
        },
    )
    .map_or(0.0, |o| o.occupancy);

    let max_regs = match opts.target {
        Target::MaxRegs(n) => n,
        Target::Auto => {
            let steps = occupancy::cliffs(
                arch,
                &LaunchResources {
                    regs_per_thread: 0,
                    threads_per_block: threads,
                    static_smem,
                    dynamic_smem: opts.dynamic_smem,
                    carveout_kib: None,
                },
            )?;
            // The cliff just below the current use; its smem cost is checked after the pass.
            match steps.iter().rev().find(|c| c.max_regs < regs_before) {
                Some(c) => c.max_regs,
                None => {
                    notes.push(
                        "already at the highest occupancy for its block size: nothing to do".into(),
                    );
                    regs_before
                }
            }
        }
    };

    // Default budget: what keeps the occupancy `max_regs` allows (shared memory must not become
    // the new limit), and never more than the 48 KiB of static shared memory a block may declare.
    let budget = opts.smem_budget.unwrap_or_else(|| {
        let static_limit = (48 * 1024u32).saturating_sub(static_smem);
        match occupancy::occupancy(
            arch,
            &LaunchResources {
                regs_per_thread: max_regs.min(255),
                threads_per_block: threads,
                static_smem,
                dynamic_smem: opts.dynamic_smem,
                carveout_kib: None,
            },
        ) {
            Ok(o) if o.blocks_per_sm > 0 => {
                let per_block = (o.carveout_kib * 1024) / o.blocks_per_sm;
                let usable = per_block
                    .saturating_sub(arch.reserved_smem_per_block)
                    .saturating_sub(static_smem)
                    .saturating_sub(opts.dynamic_smem)
                    / arch.smem_alloc_unit
                    * arch.smem_alloc_unit;
                usable.min(static_limit)
            }
            _ => static_limit,
        }
    });
    let dopts = divergence::Options {
        block_dim: None,
        assume_1d: false,
        assume_no_wrap: false,
    };
    let div = divergence::analyze_function(f, &dopts)
        .map_err(|e| SpillError::Divergence(e.to_string()))?;

    let mut layout = Layout::new(threads);
    let (bases, original_regs) = {
        let body = f.body.as_mut().expect("checked above");
        let original_regs = body.regs.len();
        let mut b = Builder::new(body);
        b.reserve_names(module_names.iter().map(String::as_str));
        let array = b.fresh_name("__ws_spill");
        // Base registers, computed at entry once the layout is final.
        let bases = Bases {
            array,
            thread: Some(b.new_reg(Type::B32)),
            warp: Some(b.new_reg(Type::B32)),
        };
        (bases, original_regs)
    };
    // Where each original register is live, for slot sharing; the state every replay starts from.
    let live = live_points(f.body.as_ref().expect("checked above"));
    let start = f.clone();
    let mut order: Vec<(Reg, Class)> = Vec::new();
    let mut temps = Temps::default();
    let mut demoted: Vec<Demoted> = Vec::new();
    let mut done: Vec<bool> = vec![false; original_regs];
    let mut not_demoted = Vec::new();
    // With ptxas to check, start at the cap itself and tighten until ptxas needs no local memory
    // (the least demotion in the cost order); without it, keep a reserve for ptxas's own needs.
    let mut target = if opts.use_ptxas {
        max_regs
    } else {
        max_regs.saturating_sub(RESERVE).max(1)
    };
    let mut ptxas_after = None;
    let mut pressure_after;
    // With ptxas, the greedy order may run past the budget (up to the 48 KiB a block may declare
    // statically): ptxas needs far fewer values moved than the order holds, and the removal
    // searches below bring a clean set back under the budget. Where the budget first stopped the
    // order (its length, the `not_demoted` entries then, and why) is kept: when no clean set
    // within the budget is found, the result falls back to that prefix.
    let search_limit = u64::from((48 * 1024u32).saturating_sub(static_smem)).max(u64::from(budget));
    let mut budget_stop: Option<(usize, usize, String)> = None;
    // Predicates beyond the hardware's predicate registers cost ptxas general registers: when
    // the kernel needs more than the cap, pack the excess into bits of per-thread words first.
    let preds = if pack && regs_before > max_regs {
        pack_candidates(
            f.body.as_ref().expect("checked above"),
            &live,
            original_regs,
        )
    } else {
        Vec::new()
    };
    for &p in &preds {
        let body = f.body.as_mut().expect("checked above");
        let cfg = Cfg::compute(body);
        let dt = DomTree::compute(&cfg);
        let loops = LoopInfo::compute(&cfg, &dt);
        let class = div.class(p);
        let mut trial_layout = layout.clone();
        let rule = rule_for(
            body,
            p,
            class,
            &loops,
            &cfg,
            &mut trial_layout,
            &live[p.index()],
        );
        if trial_layout.bytes() > u64::from(budget) {
            not_demoted.push(format!("predicate {}: packing it would need {} bytes of shared memory, over the budget of {budget}", body.reg_name(p), trial_layout.bytes()));
            break;
        }
        layout = trial_layout;
        let (loads, stores) = rewrite_register(body, p, rule, &layout, &bases, &mut temps);
        done[p.index()] = true;
        order.push((p, class));
        demoted.push(Demoted {
            reg: body.reg_name(p).to_string(),
            class: class.name().to_string(),
            rule: rule.name().to_string(),
            loads,
            stores,
        });
    }
    loop {
        // Demote until the pressure estimate fits `target`.
        let body = f.body.as_mut().expect("checked above");
        loop {
            let cfg = Cfg::compute(body);
            let dt = DomTree::compute(&cfg);
            let loops = LoopInfo::compute(&cfg, &dt);
            let lv = Liveness::compute(body, &cfg);
            let pr = Pressure::compute(body, &cfg, &lv);
            pressure_after = pr.max_units();
            if pressure_after <= target {
                break;
            }
            let eligible = |body: &crate::ptx::Body, r: Reg| {
                r.index() < original_regs && !done[r.index()] && select::eligible(body, r)
            };
            let Some(best) = select::best_candidate(body, &cfg, &loops, &lv, target, eligible)
            else {
                not_demoted.push(format!("pressure {pressure_after} > target {target}: no register left to demote at the peak"));
                break;
            };
            let class = div.class(best);
            let mut trial_layout = layout.clone();
            let rule = rule_for(
                body,
                best,
                class,
                &loops,
                &cfg,
                &mut trial_layout,
                &live[best.index()],
            );
            if trial_layout.bytes() > u64::from(budget) {
                // Where the budget stops the order and ptxas already needs no local memory, the
                // set stays as it is; otherwise the order goes on past the budget.
                let stops_clean = budget_stop.is_none()
                    && opts.use_ptxas
                    && trial_layout.bytes() <= search_limit
                    && {
                        let (mut g, l, d) = replay(&start, &order, &live, threads, &bases);
                        finish(&mut g, &l, &bases, &d, max_regs);
                        ptxas_check(module, idx, &g, &opts.arch)
                            .is_some_and(|k| k.spill_stores + k.spill_loads + k.stack_frame == 0)
                    };
                if budget_stop.is_none() {
                    budget_stop = Some((order.len(), not_demoted.len(), format!("pressure {pressure_after} > target {target}: demoting {} would need {} bytes of shared memory, over the budget of {budget}; the rest stays in registers for ptxas", body.reg_name(best), trial_layout.bytes())));
                }
                if !opts.use_ptxas || stops_clean || trial_layout.bytes() > search_limit {
                    let why = budget_stop
                        .as_ref()
                        .map(|b| b.2.clone())
                        .unwrap_or_default();
                    not_demoted.push(why);
                    break;
                }
            }
            layout = trial_layout;
            let (loads, stores) = rewrite_register(body, best, rule, &layout, &bases, &mut temps);
            done[best.index()] = true;
            order.push((best, class));
            demoted.push(Demoted {
                reg: body.reg_name(best).to_string(),
                class: class.name().to_string(),
                rule: rule.name().to_string(),
                loads,
                stores,
            });
        }
        if !opts.use_ptxas || !not_demoted.is_empty() {
            break;
        }
        // Check with ptxas on a finished copy; tighten the target while ptxas still spills.
        let mut trial = f.clone();
        finish(&mut trial, &layout, &bases, &demoted, max_regs);
        match ptxas_check(module, idx, &trial, &opts.arch) {
            Some(k) if k.spill_stores + k.spill_loads + k.stack_frame > 0 && target > 2 => {
                ptxas_after = Some(k);
                target = target.saturating_sub(2).max(1);
            }
            other => {
                ptxas_after = other;
                break;
            }
        }
    }
    let greedy_order = order.clone();
    let mut cleaned = finish(f, &layout, &bases, &demoted, max_regs);
    if opts.use_ptxas {
        ptxas_after = ptxas_check(module, idx, f, &opts.arch).or(ptxas_after);
    }
    // The greedy loop tightens in steps and ptxas often needs less: find the shortest prefix of
    // the demotion order that still leaves ptxas without local memory (binary search, each probe
    // a replay from the start and one ptxas run), and keep it — less shared memory, fewer accesses.
    let clean =
        |k: &crate::tools::KernelResources| k.spill_stores + k.spill_loads + k.stack_frame == 0;
    if opts.use_ptxas && order.len() > 1 && ptxas_after.as_ref().is_some_and(clean) {
        let (mut lo, mut hi) = (0usize, order.len());
        let mut best: Option<(
            Function,
            Layout,
            Vec<Demoted>,
            crate::tools::KernelResources,
            peephole::Cleaned,
        )> = None;
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            let (mut g, l, d) = replay(&start, &order[..mid], &live, threads, &bases);
            let c = finish(&mut g, &l, &bases, &d, max_regs);
            match ptxas_check(module, idx, &g, &opts.arch) {
                Some(k) if clean(&k) => {
                    hi = mid;
                    best = Some((g, l, d, k, c));
                }
                _ => lo = mid,
            }
        }
        let mut len = order.len();
        if let Some((g, l, d, k, c)) = best {
            len = d.len();
            cleaned = c;
            *f = g;
            layout = l;
            demoted = d;
            ptxas_after = Some(k);
            pressure_after = pressure_of(f.body.as_ref().expect("checked above"));
        }
        order.truncate(len);
    }
    // A prefix of the cost order still holds values ptxas did not need moved: drop each one whose
    // removal shrinks the area and leaves ptxas without local memory (largest saving first; each
    // probe a replay and one ptxas run). The result is minimal under single removals.
    if opts.use_ptxas && order.len() > 1 && ptxas_after.as_ref().is_some_and(clean) {
        let probes = minimise(
            module, idx, &start, &mut order, &live, threads, &bases, max_regs, &opts.arch,
        );
        if let Some((g, l, d, k, c)) = probes {
            cleaned = c;
            *f = g;
            layout = l;
            demoted = d;
            ptxas_after = Some(k);
            pressure_after = pressure_of(f.body.as_ref().expect("checked above"));
        }
    }
    // Values that cost a warp or block word or none (constants, lane-affine values, uniform and
    // affine values with one definition) and are live where the pressure exceeds the cap: add
    // them all and search removals again, so that per-thread words can go instead; keep the
    // result when its area is smaller.
    if opts.use_ptxas && ptxas_after.as_ref().is_some_and(clean) && layout.bytes() > 0 {
        let extra = cheap_candidates(
            &start,
            &order,
            &live,
            &div,
            max_regs,
            original_regs,
            threads,
        );
        if !extra.is_empty() {
            let mut wider = order.clone();
            wider.extend(extra);
            let (mut g, l, d) = replay(&start, &wider, &live, threads, &bases);
            let c = finish(&mut g, &l, &bases, &d, max_regs);
            if let Some(k) = ptxas_check(module, idx, &g, &opts.arch).filter(clean) {
                let mut best = (g, l, d, k, c);
                if let Some(p) = minimise(
                    module, idx, &start, &mut wider, &live, threads, &bases, max_regs, &opts.arch,
                ) {
                    best = p;
                }
                if best.1.bytes() < layout.bytes() {
                    let (g, l, d, k, c) = best;
                    cleaned = c;
                    *f = g;
                    layout = l;
                    demoted = d;
                    ptxas_after = Some(k);
                    pressure_after = pressure_of(f.body.as_ref().expect("checked above"));
                }
            }
        }
    }
    // Past the budget and no clean set found back within it: the prefix the budget allowed.
    if layout.bytes() <= u64::from(budget) {
        if let Some((len, _, _)) = budget_stop.as_ref().filter(|b| {
            opts.use_ptxas && greedy_order.len() > b.0 && ptxas_after.as_ref().is_some_and(clean)
        }) {
            notes.push(format!(
                "the demotion order ran past the budget of {budget} B after {len} demotions; the removal searches brought a set ptxas compiles without local memory back to {} B",
                layout.bytes()
            ));
        }
    } else if let Some((len, kept, why)) = budget_stop {
        let (mut g, l, d) = replay(&start, &greedy_order[..len], &live, threads, &bases);
        cleaned = finish(&mut g, &l, &bases, &d, max_regs);
        ptxas_after = if opts.use_ptxas {
            ptxas_check(module, idx, &g, &opts.arch)
        } else {
            None
        };
        *f = g;
        layout = l;
        demoted = d;
        pressure_after = pressure_of(f.body.as_ref().expect("checked above"));
        not_demoted.truncate(kept);
        not_demoted.push(why);
        notes.push(format!(
                "searching past the budget ({} demotions, up to {search_limit} B) found no set that ptxas compiles without local memory within {budget} B",
                greedy_order.len()
            ));
    }
    if !opts.use_ptxas && demoted.iter().any(|d| d.rule == "packed-predicate") {
        notes.push("predicates beyond the 7 predicate registers were packed into per-thread words without ptxas to confirm that it needs less with them".into());
    }
    if demoted
        .iter()
        .any(|d| d.class == "affine" && d.rule == "thread-slot")
    {
        notes.push(
            "affine values with several definitions (or a 16-bit type, or a coefficient beyond 32 bits) are kept one word per thread".into(),
        );
    }
    let body = f.body.as_ref().expect("checked above");
    if pack
        && preds.is_empty()
        && regs_before > max_regs
        && max_live_preds(body, &live, original_regs) > PRED_REGS
    {
        notes.push(
            "more predicates are live than the 7 predicate registers hold, but none was packed"
                .into(),
        );
    }
    if !demoted.is_empty() {
        notes.push("reloads are reused only within one basic block; live ranges are not split (a demoted value is reloaded at every use)".into());
    }
    let smem = layout.bytes();
    let occ_after = occupancy::occupancy(
        arch,
        &LaunchResources {
            regs_per_thread: max_regs.min(255),
            threads_per_block: threads,
            static_smem: static_smem + smem as u32,
            dynamic_smem: opts.dynamic_smem,
            carveout_kib: None,
        },
    )
    .map_or(0.0, |o| o.occupancy);
    Ok(KernelReport {
        name,
        max_regs,
        block_size: threads,
        pressure_before,
        pressure_after,
        demoted,
        smem_bytes: smem,
        occupancy_before: occ_before,
        occupancy_after: occ_after,
        not_demoted,
        ptxas_local_bytes: ptxas_after
            .as_ref()
            .map(|k| k.spill_stores + k.spill_loads + k.stack_frame),
        ptxas_registers: ptxas_after.as_ref().map(|k| k.registers),
        reloads_reused: cleaned.reloads,
        stores_dropped: cleaned.stores,
        notes,
    })
}

/// A replayed, finished kernel with its layout, report entries and ptxas figures.
type Probe = (
    Function,
    Layout,
    Vec<Demoted>,
    crate::tools::KernelResources,
    peephole::Cleaned,
);

/// Removes from `order` every demotion whose removal makes the spill area smaller while ptxas
/// still needs no local memory, trying the largest areas first; rejected removals are retried
/// while a pass still removes something (ptxas is not monotone), at most three passes. Returns
/// the last accepted probe (None when nothing could be removed).
#[allow(clippy::too_many_arguments)]
fn minimise(
    module: &Module,
    idx: usize,
    start: &Function,
    order: &mut Vec<(Reg, Class)>,
    live: &[BitSet],
    threads: u32,
    bases: &Bases,
    max_regs: u32,
    arch: &str,
) -> Option<Probe> {
    let body = start.body.as_ref().expect("kernels have bodies");
    let cfg = Cfg::compute(body);
    let dt = DomTree::compute(&cfg);
    let loops = LoopInfo::compute(&cfg, &dt);
    // Each demotion's own area (its rule's words in its region, ignoring sharing): the order in
    // which removals are tried, largest first. Rematerialised values cost none and stay.
    let mut queue: Vec<(u64, Reg)> = order
        .iter()
        .map(|&(r, class)| {
            let mut scratch = Layout::new(threads);
            rule_for(body, r, class, &loops, &cfg, &mut scratch, &live[r.index()]);
            (scratch.bytes(), r)
        })
        .filter(|&(b, _)| b > 0)
        .collect();
    queue.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.index().cmp(&b.1.index())));
    let mut accepted = None;
    let mut current = layout_of(start, order, live, threads);
    // ptxas is not monotone: a removal it rejected may pass once others are gone, so the
    // rejected ones are tried again while a pass removes something (at most three passes).
    for _pass in 0..3 {
        let before = order.len();
        for &(_, r) in &queue {
            let Some(i) = order.iter().position(|&(x, _)| x == r) else {
                continue;
            };
            let mut rest = order.clone();
            rest.remove(i);
            // With shared words, a removal may free nothing.
            let bytes = layout_of(start, &rest, live, threads);
            if bytes >= current {
                continue;
            }
            let (mut g, l, d) = replay(start, &rest, live, threads, bases);
            let c = finish(&mut g, &l, bases, &d, max_regs);
            if let Some(k) = ptxas_check(module, idx, &g, arch) {
                if k.spill_stores + k.spill_loads + k.stack_frame == 0 {
                    log::debug!(
                        "spill `{}`: {} not needed (-{} B)",
                        start.name,
                        body.reg_name(r),
                        current - bytes
                    );
                    *order = rest;
                    current = bytes;
                    accepted = Some((g, l, d, k, c));
                }
            }
        }
        if order.len() == before {
            break;
        }
    }
    accepted
}

/// Registers not in `order` whose rule costs no per-thread word and that are live at a program
/// point where the pressure (of the original kernel) exceeds `max_regs`.
fn cheap_candidates(
    start: &Function,
    order: &[(Reg, Class)],
    live: &[BitSet],
    div: &divergence::FunctionDivergence,
    max_regs: u32,
    original_regs: usize,
    threads: u32,
) -> Vec<(Reg, Class)> {
    use crate::machine::pressure::{reg_class, RegClass};
    let body = start.body.as_ref().expect("kernels have bodies");
    let cfg = Cfg::compute(body);
    let dt = DomTree::compute(&cfg);
    let loops = LoopInfo::compute(&cfg, &dt);
    let n_points = live.first().map_or(0, BitSet::capacity);
    let mut pressure = vec![0u32; n_points];
    for (r, set) in live.iter().enumerate().take(original_regs) {
        if let RegClass::General(u) = reg_class(body.reg(Reg::new(r)).ty) {
            for p in set.iter() {
                pressure[p] += u;
            }
        }
    }
    (0..original_regs)
        .map(Reg::new)
        .filter(|&r| {
            select::eligible(body, r)
                && !order.iter().any(|&(x, _)| x == r)
                && live[r.index()].iter().any(|p| pressure[p] > max_regs)
        })
        .filter_map(|r| {
            let class = div.class(r);
            let mut scratch = Layout::new(threads);
            match rule_for(body, r, class, &loops, &cfg, &mut scratch, &live[r.index()]) {
                Rule::Slot(Slot::Thread(_)) => None,
                _ => Some((r, class)),
            }
        })
        .collect()
}

/// The spill area's size for the demotions `order`, without rewriting anything.
fn layout_of(start: &Function, order: &[(Reg, Class)], live: &[BitSet], threads: u32) -> u64 {
    let body = start.body.as_ref().expect("kernels have bodies");
    let cfg = Cfg::compute(body);
    let dt = DomTree::compute(&cfg);
    let loops = LoopInfo::compute(&cfg, &dt);
    let mut layout = Layout::new(threads);
    for &(r, class) in order {
        rule_for(body, r, class, &loops, &cfg, &mut layout, &live[r.index()]);
    }
    layout.bytes()
}

/// Applies the first demotions of `order` to a copy of `start` (the kernel with its spill array
/// name and base registers reserved), exactly as the greedy loop did.
fn replay(
    start: &Function,
    order: &[(Reg, Class)],
    live: &[BitSet],
    threads: u32,
    bases: &Bases,
) -> (Function, Layout, Vec<Demoted>) {
    let mut f = start.clone();
    let mut layout = Layout::new(threads);
    let mut temps = Temps::default();
    let mut demoted = Vec::new();
    let body = f.body.as_mut().expect("kernels have bodies");
    let cfg = Cfg::compute(body);
    let dt = DomTree::compute(&cfg);
    let loops = LoopInfo::compute(&cfg, &dt);
    for &(r, class) in order {
        let rule = rule_for(body, r, class, &loops, &cfg, &mut layout, &live[r.index()]);
        let (loads, stores) = rewrite_register(body, r, rule, &layout, bases, &mut temps);
        demoted.push(Demoted {
            reg: body.reg_name(r).to_string(),
            class: class.name().to_string(),
            rule: rule.name().to_string(),
            loads,
            stores,
        });
    }
    (f, layout, demoted)
}

/// Usable predicate registers per thread (P0–P6; PT is the constant true).
const PRED_REGS: usize = 7;

/// The most original predicates live at one program point.
fn max_live_preds(body: &crate::ptx::Body, live: &[BitSet], original_regs: usize) -> usize {
    let n_points = live.first().map_or(0, BitSet::capacity);
    let mut count = vec![0usize; n_points];
    for (r, set) in live.iter().enumerate().take(original_regs) {
        if body.reg(Reg::new(r)).ty.ty == Type::Pred {
            for p in set.iter() {
                count[p] += 1;
            }
        }
    }
    count.into_iter().max().unwrap_or(0)
}

/// The predicates to pack so that at most [`PRED_REGS`] stay live at every program point: while
/// some point has more, the predicate live there with the longest live range (then the fewest
/// accesses) goes.
fn pack_candidates(body: &crate::ptx::Body, live: &[BitSet], original_regs: usize) -> Vec<Reg> {
    let n_points = live.first().map_or(0, BitSet::capacity);
    let preds: Vec<Reg> = (0..original_regs)
        .map(Reg::new)
        .filter(|&r| body.reg(r).ty.ty == Type::Pred)
        .collect();
    let mut uses = vec![0usize; body.regs.len()];
    for i in body.inst_order() {
        crate::ptx::roles::for_each_reg_role(body.inst(i), |r, _| {
            if r.index() < uses.len() {
                uses[r.index()] += 1;
            }
        });
    }
    let mut count = vec![0usize; n_points];
    for &r in &preds {
        for p in live[r.index()].iter() {
            count[p] += 1;
        }
    }
    let mut chosen = Vec::new();
    loop {
        let over = |r: Reg| live[r.index()].iter().any(|p| count[p] > PRED_REGS);
        let Some(best) = preds
            .iter()
            .copied()
            .filter(|&r| !chosen.contains(&r) && over(r))
            .max_by(|&a, &b| {
                live[a.index()]
                    .len()
                    .cmp(&live[b.index()].len())
                    .then(uses[b.index()].cmp(&uses[a.index()]))
                    .then(b.index().cmp(&a.index()))
            })
        else {
            break;
        };
        for p in live[best.index()].iter() {
            count[p] -= 1;
        }
        chosen.push(best);
    }
    chosen
}

/// Peak pressure of a body in 32-bit units.
pub fn pressure_of(body: &crate::ptx::Body) -> u32 {
    let cfg = Cfg::compute(body);
    let lv = Liveness::compute(body, &cfg);
    Pressure::compute(body, &cfg, &lv).max_units()
}

/// The rule for a register of class `class`: rematerialise constants and lane-affine values of
/// integer types; one word per warp or block for uniform values with a single definition (one
/// per block only when that definition runs once per thread, outside every loop); one word per
/// thread otherwise.
fn rule_for(
    body: &crate::ptx::Body,
    r: Reg,
    class: Class,
    loops: &LoopInfo,
    cfg: &Cfg,
    layout: &mut Layout,
    live: &BitSet,
) -> Rule {
    let ty = body.reg(r).ty;
    if ty.ty == Type::Pred {
        let (slot, bit) = layout.alloc_pred_bit(&BitSet::full(live.capacity()));
        return Rule::PackedPred { slot, bit };
    }
    let int_like = ty.vec.is_none()
        && ty.ty != Type::Pred
        && !ty.ty.is_float()
        && matches!(ty.bits(), 16 | 32 | 64);
    let words = if ty.bits() == 64 { 2 } else { 1 };
    let defs: Vec<crate::ptx::Inst> = body
        .inst_order()
        .filter(|&i| crate::ptx::roles::defs(body.inst(i)).contains(&r))
        .collect();
    if let (Class::Constant(c), true) = (class, int_like) {
        return Rule::Constant(c);
    }
    match class {
        Class::ConstantAffine { coef, base } if int_like && ty.bits() >= 32 => {
            return Rule::LaneAffine { coef, base }
        }
        // Sampaio's affine rule: the uniform base once per warp (per block when defined once
        // outside loops and block-uniform), rebuilt with one `mad` on reload. The `mad` takes the
        // coefficient as a 32-bit immediate.
        Class::Affine { coef, scope }
            if int_like
                && ty.bits() >= 32
                && defs.len() == 1
                && i32::try_from(coef).is_ok()
                && i32::try_from(-coef).is_ok() =>
        {
            let depth = cfg.block_of(defs[0]).map_or(1, |b| loops.block_depth(b));
            let kind = if scope == Scope::Block && depth == 0 {
                Slot::Block(0)
            } else {
                Slot::Warp(0)
            };
            return Rule::Affine {
                slot: layout.alloc_shared(kind, words, live),
                coef,
            };
        }
        Class::Constant(_) | Class::Uniform(_) if defs.len() == 1 => {
            let depth = cfg.block_of(defs[0]).map_or(1, |b| loops.block_depth(b));
            let scope = match class {
                Class::Uniform(s) => s,
                _ => Scope::Block,
            };
            if scope == Scope::Block && depth == 0 {
                return Rule::Slot(layout.alloc_shared(Slot::Block(0), words, live));
            }
            return Rule::Slot(layout.alloc_shared(Slot::Warp(0), words, live));
        }
        _ => {}
    }
    Rule::Slot(layout.alloc_shared(Slot::Thread(0), words, live))
}

/// For every register, the program points (numbered over the whole body) where it is live.
fn live_points(body: &crate::ptx::Body) -> Vec<BitSet> {
    let cfg = Cfg::compute(body);
    let lv = Liveness::compute(body, &cfg);
    let n_points: usize = cfg.blocks().map(|b| cfg.insts(b).len() + 1).sum();
    let mut out = vec![BitSet::new(n_points); body.regs.len()];
    let mut p = 0;
    for b in cfg.blocks() {
        let mut mark = |set: &BitSet, p: usize| {
            for r in set.iter() {
                out[r].insert(p);
            }
        };
        let mut block_points = Vec::new();
        lv.for_each_point(body, &cfg, b, |_, before, _| {
            block_points.push(before.clone())
        });
        for set in block_points.iter().rev() {
            mark(set, p);
            p += 1;
        }
        mark(lv.live_out(b), p);
        p += 1;
    }
    out
}

/// Declares the spill array, cleans up the spill code ([`peephole`]), computes the base
/// registers at entry, and sets `.maxnreg`.
fn finish(
    f: &mut Function,
    layout: &Layout,
    bases: &Bases,
    demoted: &[Demoted],
    max_regs: u32,
) -> peephole::Cleaned {
    f.directives
        .retain(|d| !matches!(d, FuncDirective::MaxNreg(_)));
    f.directives.push(FuncDirective::MaxNreg(max_regs));
    let Some(body) = f.body.as_mut() else {
        return peephole::Cleaned::default();
    };
    if demoted.is_empty() || layout.bytes() == 0 {
        return peephole::Cleaned::default();
    }
    let cleaned = peephole::optimise(body, bases);
    // Declare the array under exactly its reserved name.
    let v = crate::ptx::Variable {
        linkage: None,
        space: StateSpace::Shared,
        align: Some(4),
        vec: None,
        ty: Type::B8,
        ptr: None,
        name: Some(bases.array.as_str().into()),
        dims: vec![Some(layout.bytes())],
        init: None,
        attributes: Vec::new(),
        loc: Default::default(),
    };
    let at = body
        .stmts
        .iter()
        .position(|s| matches!(s, crate::ptx::Stmt::Inst(_) | crate::ptx::Stmt::Label(_)))
        .unwrap_or(0);
    body.stmts.insert(at, crate::ptx::Stmt::Var(Box::new(v)));
    let used_thread = layout.thread_words > 0;
    let used_warp = layout.warp_words > 0;
    emit_bases(body, layout, bases, used_thread, used_warp);
    cleaned
}

#[cfg(test)]
mod tests;
