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
//!    single-definition uniform values get one word per warp (per block when defined once outside
//!    loops), everything else one word per thread in the RegDem layout ([`layout`]);
//! 4. with ptxas available, checks `ptxas -v` at `.maxnreg N` and demotes more while ptxas still
//!    spills to local memory;
//! 5. writes `.maxnreg N` on the kernel and reports what it did.
//!
//! Partial (said at run time in the report's `notes`): affine values are kept per thread (the
//! paper's uniform-base-plus-`mad` rule is not built), predicates take a word each (not packed),
//! and reloads are not yet moved or shared between neighbouring uses.

pub mod env;
pub mod layout;
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

fn spill_kernel(
    f: &mut Function,
    module: &Module,
    idx: usize,
    module_names: &[String],
    opts: &SpillOptions,
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
                not_demoted.push(format!("pressure {pressure_after} > target {target}: demoting {} would need {} bytes of shared memory, over the budget of {budget}; the rest stays in registers for ptxas", body.reg_name(best), trial_layout.bytes()));
                break;
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
    finish(f, &layout, &bases, &demoted, max_regs);
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
        )> = None;
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            let (mut g, l, d) = replay(&start, &order[..mid], &live, threads, &bases);
            finish(&mut g, &l, &bases, &d, max_regs);
            match ptxas_check(module, idx, &g, &opts.arch) {
                Some(k) if clean(&k) => {
                    hi = mid;
                    best = Some((g, l, d, k));
                }
                _ => lo = mid,
            }
        }
        if let Some((g, l, d, k)) = best {
            *f = g;
            layout = l;
            demoted = d;
            ptxas_after = Some(k);
            pressure_after = pressure_of(f.body.as_ref().expect("checked above"));
        }
    }
    if demoted.iter().any(|d| d.class == "affine") {
        notes.push(
            "affine values are kept one word per thread (uniform base + mad rule not built)".into(),
        );
    }
    if demoted
        .iter()
        .any(|d| d.rule != "rematerialise-constant" && d.reg.starts_with("%p"))
    {
        notes.push("predicates take one word each (not packed)".into());
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
        notes,
    })
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
    let int_like = ty.vec.is_none()
        && ty.ty != Type::Pred
        && !ty.ty.is_float()
        && matches!(ty.bits(), 16 | 32 | 64);
    let words = if ty.bits() == 64 { 2 } else { 1 };
    let defs: Vec<crate::ptx::Inst> = body
        .inst_order()
        .filter(|&i| crate::ptx::roles::defs(body.inst(i)).contains(&r))
        .collect();
    match class {
        Class::Constant(c) if int_like => return Rule::Constant(c),
        Class::ConstantAffine { coef, base } if int_like && ty.bits() >= 32 => {
            return Rule::LaneAffine { coef, base }
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

/// Declares the spill array, computes the base registers at entry, and sets `.maxnreg`.
fn finish(f: &mut Function, layout: &Layout, bases: &Bases, demoted: &[Demoted], max_regs: u32) {
    f.directives
        .retain(|d| !matches!(d, FuncDirective::MaxNreg(_)));
    f.directives.push(FuncDirective::MaxNreg(max_regs));
    let Some(body) = f.body.as_mut() else { return };
    if demoted.is_empty() || layout.bytes() == 0 {
        return;
    }
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
    body.stmts.insert(at, crate::ptx::Stmt::Var(v));
    let used_thread = layout.thread_words > 0;
    let used_warp = layout.warp_words > 0;
    emit_bases(body, layout, bases, used_thread, used_warp);
}

#[cfg(test)]
mod tests;
