//! `warpsmith demote --local-to-shared` (issue 16; RegDem §3): after ptxas, move a kernel's
//! local-memory frame — its spill slots — into shared memory in the cubin itself, in a
//! bank-conflict-free per-thread layout. This is what NVIDIA's `enable_smem_spilling` pragma
//! does, also where ptxas refuses the pragma (kernels with dynamic shared memory: every Triton
//! kernel), and for cubins whose PTX is not at hand.
//!
//! - [`frame`]: recognise the frame (stack pointer set-up, every `STL`/`LDL`) exactly, or refuse;
//! - [`layout`]: where each frame word goes (after the dynamic shared memory, found at run time);
//! - [`rewrite`]: the prologue, the `STS`/`LDS` replacements, the control bits;
//! - [`split`]: where the whole frame does not fit, the part that moves and the smaller frame
//!   that stays (addressed through a free uniform register).
//!
//! This module decides per kernel with the never-worse rule ([`crate::never_worse`]): the
//! rewrite is kept when local memory shrinks (to zero when the whole frame moves), the launch
//! stays legal and occupancy (static **and** dynamic shared memory, at the block-size bound)
//! does not fall. The whole frame is tried first, then the largest part the rule keeps. A
//! kernel whose dynamic shared-memory size is not given keeps its original code (its static
//! size may not grow). Where launch specs are given, original and rewrite run on the SASS
//! emulator and every output byte must agree, or the original is kept.
//!
//! Register demotion (`--max-regs`, `--occupancy auto`) is [`registers`]; it moves a frame only
//! whole.

pub mod frame;
pub mod layout;
pub mod registers;
pub mod regplan;
pub mod regrewrite;
pub mod rewrite;
pub mod schedule;
pub mod split;
pub mod timing;

use std::collections::BTreeSet;

use serde::Serialize;

use crate::analysis::occupancy;
use crate::emu::equiv::Verdict;
use crate::emu::exec::Limits;
use crate::emu::launch::LaunchSpec;
use crate::never_worse::{judge, DynamicSmem, Figures, LaunchContext};
use crate::sass::edit::{EditError, Editor};
use crate::sass::elf::launch_attrs::ThreadBound;
use crate::sass::elf::{Cubin, ElfError};
use crate::sass::emu::equiv::{check_launches, Source};
use crate::sass::emu::SassProgram;
use crate::sass::isa::Instruction;
use layout::SharedFrame;
pub use registers::RegisterTarget;
use rewrite::Move;

/// What to demote and what is known about the launch.
#[derive(Clone, Debug, Default)]
pub struct DemoteOptions {
    /// Only this kernel (default: every kernel of the cubin).
    pub kernel: Option<String>,
    /// Threads per block at most; needed where the cubin has no `.maxntid`/`.reqntid` and
    /// `predict_launch` does not launch the kernel ([`DemoteOptions::block_size_for`]; the
    /// rewrite then records the bound so the driver refuses larger launches).
    pub block_size: Option<u32>,
    /// Dynamic shared memory of the launch, bytes (unknown: no kernel's static size may grow).
    pub dynamic_smem: Option<u32>,
    /// Launches to prove each rewrite on (the SASS emulator, every output byte).
    pub verify: Vec<LaunchSpec>,
    /// Input seeds per verification launch.
    pub seeds: u64,
    /// Register demotion to this target (`None`: only the frame moves, `--local-to-shared`).
    pub registers: Option<RegisterTarget>,
    /// Predicts a kernel's time in µs on a launch (`warpsmith::tune`'s models). With it, register
    /// demotion is kept only where predicted at least [`registers::REQUIRED_GAIN`] faster than
    /// the input, on `predict_launch` or the first `--verify` launch; `--occupancy auto` picks the
    /// fastest predicted candidate. Without it, occupancy and the proof alone decide.
    pub predictor: Option<Predictor>,
    /// The launch to predict on (default: the kernel's first `verify` launch). Large grids are
    /// sampled by the predictor, so this may be the real launch even where proofs use small ones.
    pub predict_launch: Option<LaunchSpec>,
    /// The region goes at the end of the dynamic shared memory, which the launch makes larger by
    /// its size (the report's `dynamic_added`), instead of growing the static area: no 48 KiB
    /// static limit, but every launch must add those bytes. Needs `dynamic_smem`; frame moves
    /// only (`--local-to-shared`).
    pub grow_dynamic: bool,
}

impl DemoteOptions {
    /// The block size to build `kernel`'s layout for: `block_size`, else the block of
    /// `predict_launch` when that launch is of this kernel (the launch the user described).
    pub fn block_size_for(&self, kernel: &str) -> Option<u32> {
        self.block_size.or_else(|| {
            self.predict_launch
                .as_ref()
                .filter(|l| l.kernel == kernel)
                .map(|l| l.block.iter().product())
        })
    }
}

/// A kernel's predicted time in µs: cubin bytes, kernel, launch.
pub type Predictor = fn(&[u8], &str, &LaunchSpec) -> Result<f64, String>;

/// A kernel's resources as the rule and the report read them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Resources {
    /// Registers per thread.
    pub registers: u32,
    /// Local memory per thread (stack frame), bytes.
    pub local_bytes: u32,
    /// Static shared memory per block, bytes.
    pub static_smem: u32,
    /// Bytes the launch's dynamic shared memory must grow by (`--grow-dynamic`; not recorded in
    /// the cubin).
    #[serde(skip_serializing_if = "crate::never_worse::is_zero")]
    pub dynamic_added: u32,
}

impl Resources {
    /// Kernel `name`'s resources in `cubin`.
    pub fn of(cubin: &Cubin, name: &str) -> Result<Resources, ElfError> {
        let f = cubin.function(name)?;
        Ok(Resources {
            registers: cubin.register_count(&f),
            local_bytes: cubin.stack_size(name)?,
            static_smem: cubin.shared_size(name) as u32,
            dynamic_added: 0,
        })
    }
}

/// Where one kernel of a cubin stands by the rule's ranking ([`Figures::order_key`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Standing {
    /// The kernel.
    pub kernel: String,
    /// Its resources.
    pub resources: Resources,
    /// Its occupancy with the launch `opts` describe (`None`: block size unknown or the launch
    /// impossible).
    pub occupancy: Option<f64>,
}

impl Standing {
    /// The rule's ranking key: higher occupancy, then less local memory, then less shared
    /// memory (smaller is better).
    pub fn key(&self) -> (i64, u32, u32) {
        figures(&self.resources).order_key(self.occupancy)
    }
}

/// Whether `bytes` is a cubin of an architecture whose code [`demote`] can edit (sm_80 … sm_90):
/// on any other it keeps every kernel.
pub fn can_edit(bytes: &[u8]) -> bool {
    Cubin::parse(bytes).is_ok_and(|c| crate::sass::isa::Arch::from_sm(c.sm()).is_some())
}

/// Every kernel of `bytes` (or `opts.kernel`) with its resources and its occupancy at the block
/// size and dynamic shared memory `opts` give, as [`demote`] would judge them. `dynamic_added`
/// gives the bytes a kernel's launch adds to that size (`--grow-dynamic`'s report: the cubin
/// does not record them).
pub fn standings(
    bytes: &[u8],
    opts: &DemoteOptions,
    dynamic_added: &std::collections::BTreeMap<String, u32>,
) -> Result<Vec<Standing>, DemoteError> {
    let cubin = Cubin::parse(bytes)?;
    let arch = occupancy::arch(&format!("sm_{}", cubin.sm()))
        .map_err(|_| DemoteError::Arch(cubin.sm()))?;
    let dynamic = opts
        .dynamic_smem
        .map_or(DynamicSmem::Unknown, DynamicSmem::Known);
    let mut out = Vec::new();
    for name in kernel_names(&cubin, opts.kernel.as_deref())? {
        let resources = Resources {
            dynamic_added: dynamic_added.get(&name).copied().unwrap_or(0),
            ..Resources::of(&cubin, &name)?
        };
        let threads = threads_for(cubin.thread_bound(&name), opts.block_size_for(&name))
            .ok()
            .map(|(t, _)| t);
        let ctx = LaunchContext {
            arch,
            threads,
            dynamic,
        };
        let occupancy = crate::never_worse::occupancy(&ctx, &figures(&resources));
        out.push(Standing {
            kernel: name,
            resources,
            occupancy,
        });
    }
    Ok(out)
}

/// What happened to one kernel.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KernelReport {
    /// The kernel.
    pub kernel: String,
    /// Whether the output has the rewrite.
    pub demoted: bool,
    /// Why (the rule's figures, or the refusal).
    pub reason: String,
    /// The block size the layout is built for.
    pub threads: Option<u32>,
    /// Dynamic shared memory assumed by the rule (`null`: unknown).
    pub dynamic_smem: Option<u32>,
    /// Before.
    pub before: Resources,
    /// After (when demoted).
    pub after: Option<Resources>,
    /// Occupancy before and after, where computable.
    pub occupancy: (Option<f64>, Option<f64>),
    /// Local accesses replaced.
    pub accesses: usize,
    /// Instructions inserted and removed.
    pub instructions: (usize, usize),
    /// Whether the driver will now refuse blocks larger than `threads` (bound added).
    pub bound_added: bool,
    /// Emulator proofs: one line per launch spec and seed set.
    pub verified: Vec<String>,
    /// Registers moved to shared memory (register demotion), by their numbers in the input.
    pub registers_demoted: Vec<String>,
    /// Predicted time before and after, µs (register demotion with a predictor).
    pub predicted_us: Option<(f64, f64)>,
}

/// The result of [`demote`].
pub struct Outcome {
    /// The output cubin (the input bytes where no kernel was demoted).
    pub cubin: Vec<u8>,
    /// One report per kernel considered.
    pub kernels: Vec<KernelReport>,
}

/// Errors that stop the whole run (per-kernel refusals are reports, not errors).
#[derive(Debug, thiserror::Error)]
pub enum DemoteError {
    /// The cubin cannot be read or written.
    #[error(transparent)]
    Elf(#[from] ElfError),
    /// `--kernel` names no kernel.
    #[error("no kernel `{0}` in the cubin (kernels: {1})")]
    NoKernel(String, String),
    /// The architecture has no occupancy limits.
    #[error("unsupported architecture sm_{0}")]
    Arch(u32),
    /// An emulator proof could not run (the original itself fails on the launch, a tool is
    /// missing, …).
    #[error("verification of `{kernel}`: {message}")]
    Verify {
        /// The kernel.
        kernel: String,
        /// What failed.
        message: String,
    },
}

/// Demotes the local-memory frame of every kernel (or `opts.kernel`) of `bytes` to shared
/// memory where the never-worse rule keeps it.
pub fn demote(bytes: &[u8], opts: &DemoteOptions) -> Result<Outcome, DemoteError> {
    let original = Cubin::parse(bytes)?;
    let names = kernel_names(&original, opts.kernel.as_deref())?;
    let arch = occupancy::arch(&format!("sm_{}", original.sm()))
        .map_err(|_| DemoteError::Arch(original.sm()))?;
    let mut current = original.clone();
    let mut kernels = Vec::new();
    for name in names {
        let (next, report) = demote_kernel(&current, &name, opts, arch)?;
        if let Some(c) = next {
            current = c;
        }
        kernels.push(report);
    }
    let changed = kernels.iter().any(|k| k.demoted);
    let cubin = if changed {
        current.to_bytes()
    } else {
        bytes.to_vec()
    };
    Ok(Outcome { cubin, kernels })
}

/// The kernels to consider: `only`, or every function with a block-size-independent entry (every
/// `.text.<k>` with a `.nv.info.<k>`).
fn kernel_names(c: &Cubin, only: Option<&str>) -> Result<Vec<String>, DemoteError> {
    let all: Vec<String> = c
        .functions()
        .into_iter()
        .map(|f| f.name)
        .filter(|n| c.section(&format!(".nv.info.{n}")).is_some())
        .collect();
    match only {
        None => Ok(all),
        Some(k) if all.iter().any(|n| n == k) => Ok(vec![k.to_string()]),
        Some(k) => Err(DemoteError::NoKernel(k.to_string(), all.join(", "))),
    }
}

/// The block size to build the layout for, and whether the cubin must record it.
fn threads_for(bound: Option<ThreadBound>, given: Option<u32>) -> Result<(u32, bool), String> {
    match (bound, given) {
        (Some(b), Some(g)) if g < b.threads() => match b {
            ThreadBound::Required(_) => Err(format!(
                "--block-size {g} is below the kernel's required block size {}",
                b.threads()
            )),
            ThreadBound::Max(_) => Ok((g, true)),
        },
        (Some(b), _) => Ok((b.threads(), false)),
        (None, Some(g)) => Ok((g, true)),
        (None, None) => Err(
            "the block size is unknown (no .maxntid/.reqntid in the cubin): give --block-size \
             (or a --launch of this kernel)"
                .into(),
        ),
    }
}

/// One kernel: the plan, the rule, the rewrite, the proof. `Ok((None, report))` keeps `cubin`.
fn demote_kernel(
    cubin: &Cubin,
    name: &str,
    opts: &DemoteOptions,
    arch: &'static occupancy::ArchLimits,
) -> Result<(Option<Cubin>, KernelReport), DemoteError> {
    let before = Resources::of(cubin, name)?;
    let mut report = KernelReport {
        kernel: name.to_string(),
        demoted: false,
        reason: String::new(),
        threads: None,
        dynamic_smem: opts.dynamic_smem,
        before,
        after: None,
        occupancy: (None, None),
        accesses: 0,
        instructions: (0, 0),
        bound_added: false,
        verified: Vec::new(),
        registers_demoted: Vec::new(),
        predicted_us: None,
    };
    if let Some(target) = opts.registers {
        if opts.grow_dynamic {
            report.reason =
                "--grow-dynamic moves frames only (--local-to-shared), not registers".into();
            return Ok((None, report));
        }
        return registers::demote_kernel(cubin, name, opts, arch, target, report);
    }
    let refuse = |mut r: KernelReport, why: String| {
        log::info!("demote {name}: kept the original: {why}");
        r.reason = why;
        Ok((None, r))
    };
    let (plan, body) = match plan(cubin, name, before.registers) {
        Ok(p) => p,
        Err(why) => return refuse(report, why),
    };
    let (threads, bound_added) =
        match threads_for(cubin.thread_bound(name), opts.block_size_for(name)) {
            Ok(t) => t,
            Err(why) => return refuse(report, why),
        };
    report.threads = Some(threads);
    let ctx = LaunchContext {
        arch,
        threads: Some(threads),
        dynamic: opts
            .dynamic_smem
            .map_or(DynamicSmem::Unknown, DynamicSmem::Known),
    };
    let start = region_start(cubin.sm(), before.static_smem);
    let place = if opts.grow_dynamic {
        if opts.dynamic_smem.is_none() {
            return refuse(
                report,
                "--grow-dynamic needs the launch's dynamic size (--dynamic-smem)".into(),
            );
        }
        RegionPlace::GrowDynamic
    } else {
        RegionPlace::Static
    };
    let whole = Move::Whole(SharedFrame::new(plan.size, threads));
    let mut verdict = judge(
        &figures(&before),
        &figures(&after_move(&before, start, &whole, place)),
        &ctx,
    );
    let mut how = whole;
    if !verdict.keep {
        match part_of_frame(&body, &plan, &before, (start, place), &ctx) {
            Ok((part, v)) => {
                log::info!(
                    "demote {name}: the whole frame does not move ({}); part of it does",
                    verdict.reason
                );
                (how, verdict) = (part, v);
            }
            Err(why) => {
                verdict.reason = format!("{}; {why}", verdict.reason);
            }
        }
    }
    report.occupancy = (verdict.occupancy_before, verdict.occupancy_after);
    if !verdict.keep {
        let hint = if opts.dynamic_smem.is_none() {
            " (give --dynamic-smem with the launch's dynamic shared memory, 0 if none)"
        } else {
            ""
        };
        return refuse(report, format!("{}{hint}", verdict.reason));
    }
    let after = after_move(&before, start, &how, place);
    let static_after = after.static_smem as u64;
    let mut out = cubin.clone();
    let edited = rewrite_cubin(
        &mut out,
        name,
        &plan,
        &how,
        region_base(start, &after, opts),
        static_after,
    );
    let (accesses, inserted, removed) = match edited {
        Ok(x) => x,
        Err(e) => return refuse(report, e.to_string()),
    };
    if bound_added {
        out.set_max_threads(name, threads)?;
    }
    report.accesses = accesses;
    report.instructions = (inserted, removed);
    report.bound_added = bound_added;
    if let Some(why) = control_bits(cubin, &out, name) {
        return refuse(report, why);
    }
    let proof = match how {
        Move::Whole(_) => Proof::Frame,
        Move::Part { .. } => Proof::PartOfFrame,
    };
    if let Some(why) = verify(
        cubin,
        &out,
        name,
        opts,
        (proof, after.dynamic_added),
        &mut report.verified,
    )? {
        return refuse(report, why);
    }
    report.demoted = true;
    report.after = Some(after);
    report.reason = verdict.reason;
    log::info!("demote {name}: {}", report.reason);
    Ok((Some(out), report))
}

/// The rule's figures of a kernel's resources.
pub(crate) fn figures(r: &Resources) -> Figures {
    Figures {
        registers: r.registers,
        stack: r.local_bytes,
        spill: 0,
        static_smem: r.static_smem,
        extra_dynamic: r.dynamic_added,
    }
}

/// Where the region goes: after the launch's dynamic shared memory in a static area grown to
/// hold it, or (`--grow-dynamic`) in the last bytes of a dynamic area the launch grows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RegionPlace {
    Static,
    GrowDynamic,
}

/// The resources after `how` moves the frame, the region starting at `start`.
fn after_move(before: &Resources, start: u32, how: &Move, place: RegionPlace) -> Resources {
    let bytes = how.shared().bytes().min(u32::MAX as u64) as u32;
    match place {
        RegionPlace::Static => Resources {
            registers: before.registers,
            local_bytes: how.local_bytes(),
            static_smem: start.saturating_add(bytes),
            dynamic_added: 0,
        },
        RegionPlace::GrowDynamic => Resources {
            registers: before.registers,
            local_bytes: how.local_bytes(),
            static_smem: start,
            dynamic_added: bytes,
        },
    }
}

/// Where the prologue puts the region ([`rewrite::RegionBase`]): after the launch's dynamic
/// size, or with `--grow-dynamic` after the size given (the region is then the last
/// `dynamic_added` bytes of the grown dynamic area).
fn region_base(start: u32, after: &Resources, opts: &DemoteOptions) -> rewrite::RegionBase {
    rewrite::RegionBase {
        start,
        dynamic: (after.dynamic_added > 0).then_some(opts.dynamic_smem.unwrap_or(0)),
    }
}

/// The largest part of the frame the rule keeps ([`split`]): the words that may move are
/// searched for (the rule is monotone in them: more shared memory, less local memory), and the
/// new frame needs a uniform register the kernel does not use. Err: why no part moves.
fn part_of_frame(
    body: &[Instruction],
    frame: &frame::Frame,
    before: &Resources,
    (start, place): (u32, RegionPlace),
    ctx: &LaunchContext,
) -> Result<(Move, crate::never_worse::Verdict), String> {
    let uniform_sp = split::free_uniform_register(body)
        .ok_or("no part of it can move: no uniform register is free for the frame that stays")?;
    let threads = ctx.threads.unwrap_or(0);
    let slots = split::slots(frame);
    let total: u32 = slots.iter().map(|s| s.words).sum();
    let try_budget = |budget: u32| {
        let how = Move::Part {
            split: split::Split::choose(&slots, threads, budget),
            uniform_sp,
        };
        let v = judge(
            &figures(before),
            &figures(&after_move(before, start, &how, place)),
            ctx,
        );
        (how, v)
    };
    // The largest budget the rule keeps lies in [lo, hi]; `best` is the last budget kept.
    let (mut lo, mut hi) = (0, total);
    let mut best = None;
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        let (how, v) = try_budget(mid);
        if v.keep {
            lo = mid;
            best = Some((how, v));
        } else {
            hi = mid - 1;
        }
    }
    best.ok_or_else(|| "no part of it fits either".to_string())
}

/// Where the region starts before the dynamic shared memory is added: the end of the static
/// area. On sm_90 ptxas keeps the first 1 KiB of the window for the system (`.nv.reservedSmem`:
/// every kernel that uses shared memory has a static area of at least 0x400, user data above);
/// a kernel without any keeps it free too.
fn region_start(sm: u32, static_before: u32) -> u32 {
    if sm >= 90 {
        static_before.max(0x400)
    } else {
        static_before
    }
}

/// The code of `name` (the trailing padding excluded) and its basic-block starts.
fn kernel_body(
    cubin: &Cubin,
    name: &str,
) -> Result<(Vec<Instruction>, BTreeSet<usize>), EditError> {
    let ed = Editor::new(cubin, name)?;
    let body = ed.instructions().take(ed.body_len()).cloned().collect();
    Ok((body, ed.block_starts(cubin)))
}

/// Why nothing may be inserted before the first instruction of `body`: a branch back to it
/// would run the insertion again.
fn reenters_entry(body: &[Instruction]) -> Option<String> {
    body.iter()
        .enumerate()
        // RET's target field is not a branch (nvdisasm prints `RET.REL.NODEC R18 0x0`).
        .find(|(k, i)| {
            !i.mnemonic().starts_with("RET") && i.branch_target(*k as u64 * 16) == Some(0)
        })
        .map(|(k, _)| {
            format!(
                "the branch at {:#x} re-enters the kernel's first instruction",
                k * 16
            )
        })
}

/// The frame of `name` and the kernel's code (padding excluded), or why the frame cannot move.
fn plan(
    cubin: &Cubin,
    name: &str,
    registers: u32,
) -> Result<(frame::Frame, Vec<Instruction>), String> {
    let (body, leaders) = kernel_body(cubin, name).map_err(|e| e.to_string())?;
    let listed = nvdisasm_sp_uses(cubin, name, &body);
    let oracle = |i: usize| listed.as_ref().and_then(|l| l.get(i).copied().flatten());
    let frame = frame::analyse(&body, &leaders, &oracle).map_err(|e| e.to_string())?;
    let highest_scratch = rewrite::SCRATCH.iter().max().copied().unwrap_or(0);
    if registers <= highest_scratch {
        return Err(format!(
            "{registers} registers: the prologue needs R0-R{highest_scratch} as scratch"
        ));
    }
    match reenters_entry(&body) {
        Some(why) => Err(why),
        None => Ok((frame, body)),
    }
}

/// Per instruction of `name`, whether nvdisasm's life ranges show it reading or writing R1
/// (`None` for an instruction it lists without them). Only computed when some instruction's
/// registers are unknown to our decoder; `None` when nvdisasm is missing or fails.
fn nvdisasm_sp_uses(
    cubin: &Cubin,
    name: &str,
    body: &[crate::sass::isa::Instruction],
) -> Option<Vec<Option<bool>>> {
    if body.iter().all(|i| i.def_use().is_exact()) {
        return None;
    }
    let listing = match crate::sass::nvdisasm::list_bytes(&cubin.to_bytes(), true) {
        Ok(l) => l,
        Err(e) => {
            log::info!("demote {name}: nvdisasm cannot list the unknown forms: {e}");
            return None;
        }
    };
    let f = listing.into_iter().find(|f| f.name == name)?;
    let g = crate::sass::isa::RegFile::Gpr.index();
    if !f.columns[g].contains(&frame::SP) {
        return None;
    }
    let mut out = vec![None; body.len()];
    for li in &f.instructions {
        let k = (li.offset / 16) as usize;
        if let (Some(slot), Some(r), Some(w)) = (out.get_mut(k), &li.reads, &li.writes) {
            if li.word == body[k].word && !li.base_mnemonic().starts_with("CALL") {
                *slot = Some(r[g].contains(&frame::SP) || w[g].contains(&frame::SP));
            }
        }
    }
    Some(out)
}

/// The rewrite of `name` in `out`: code, shared size, stack size. (accesses, inserted, removed).
fn rewrite_cubin(
    out: &mut Cubin,
    name: &str,
    plan: &frame::Frame,
    how: &Move,
    region_start: rewrite::RegionBase,
    static_after: u64,
) -> Result<(usize, usize, usize), EditError> {
    let mut ed = Editor::new(out, name)?;
    let accesses = rewrite::apply(&mut ed, plan, how, region_start)?;
    let rep = ed.commit(out)?;
    out.set_shared_size(name, static_after)?;
    out.set_stack_size(name, how.local_bytes())?;
    Ok((accesses, rep.inserted, rep.removed))
}

/// The static control-bit check ([`crate::sass::hazard`]) of `name` in `rewritten` against
/// `original`: `Some(why)` when the rewrite has more violations (ptxas's own code has none on
/// the whole GPU-case corpus, so any is ours).
fn control_bits(original: &Cubin, rewritten: &Cubin, name: &str) -> Option<String> {
    let hazards = |c: &Cubin| {
        kernel_body(c, name).map(|(body, leaders)| crate::sass::hazard::check(&body, &leaders))
    };
    match (hazards(original), hazards(rewritten)) {
        (Ok(before), Ok(after)) if after.len() > before.len() => {
            let first = after
                .iter()
                .find(|h| !before.contains(h))
                .unwrap_or(&after[0]);
            Some(format!(
                "the control-bit check finds {} violation(s) the input does not have, first at \
                 {:#x}: {}",
                after.len() - before.len(),
                first.index * 16,
                first.what
            ))
        }
        (_, Err(e)) => Some(format!(
            "the control-bit check cannot read the rewrite: {e}"
        )),
        _ => None,
    }
}

/// What a verification launch must reach to prove anything.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Proof {
    /// The original's local accesses (the moved frame); the rewrite makes none.
    Frame,
    /// The original's local accesses (part of the frame moved); the rewrite makes fewer.
    PartOfFrame,
    /// The inserted code (more lane-instructions in the rewrite), and with a frame also the
    /// original's local accesses.
    Registers {
        /// Whether a frame moved too.
        frame: bool,
    },
}

/// Runs every spec of `opts.verify` for `name` on both cubins; `Some(why)` when they differ.
fn verify(
    original: &Cubin,
    rewritten: &Cubin,
    name: &str,
    opts: &DemoteOptions,
    (proof, dynamic_added): (Proof, u32),
    lines: &mut Vec<String>,
) -> Result<Option<String>, DemoteError> {
    let specs: Vec<&LaunchSpec> = opts.verify.iter().filter(|s| s.kernel == name).collect();
    if specs.is_empty() {
        return Ok(None);
    }
    let err = |message: String| DemoteError::Verify {
        kernel: name.to_string(),
        message,
    };
    let load = |c: &Cubin| -> Result<Source, DemoteError> {
        SassProgram::from_cubin(&c.to_bytes())
            .map(|p| Source::Cubin(Box::new(p)))
            .map_err(|e| err(e.to_string()))
    };
    let (a, b) = (load(original)?, load(rewritten)?);
    // Warps interleaved one instruction at a time: a layout that made threads of different
    // warps share a frame word shows up as a difference instead of hiding behind a schedule
    // that runs each warp to its end.
    let limits = Limits {
        quantum: 1,
        ..Limits::default()
    };
    let mut proved = false;
    for spec in specs {
        let shape = format!(
            "grid {:?} block {:?} dynamic {} B{}",
            spec.grid,
            spec.block,
            spec.dynamic_smem,
            if dynamic_added > 0 {
                format!(
                    " (the rewrite's launch {} B)",
                    spec.dynamic_smem + u64::from(dynamic_added)
                )
            } else {
                String::new()
            }
        );
        // The rewrite's launch carries the dynamic shared memory it adds (`--grow-dynamic`).
        let mut grown = spec.clone();
        grown.dynamic_smem += u64::from(dynamic_added);
        let rep = check_launches(
            (&a, spec),
            (&b, &grown),
            opts.seeds,
            ("original", "demoted"),
            limits,
        )
        .map_err(|e| err(e.to_string()))?;
        let local = rep.local_accesses.0.unwrap_or(0);
        if rep.verdict != Verdict::Equal {
            return Ok(Some(format!(
                "the SASS emulator finds the rewrite different on {shape}: {:?}",
                rep.verdict
            )));
        }
        let left = rep.local_accesses.1.unwrap_or(0);
        let too_many = match proof {
            Proof::PartOfFrame => left >= local && local > 0,
            _ => left > 0,
        };
        if too_many {
            return Ok(Some(format!(
                "the rewrite still makes {left} local-memory accesses on {shape} (the original \
                 {local})"
            )));
        }
        let reached = match proof {
            Proof::Frame | Proof::PartOfFrame => local > 0,
            Proof::Registers { frame } => {
                rep.lane_insts.1 > rep.lane_insts.0 && (!frame || local > 0)
            }
        };
        proved |= reached;
        lines.push(format!(
            "{shape}: equal on {} seed(s), {} -> {} lane-instructions, {local} local accesses \
             in the original{}{}",
            rep.seeds_run,
            rep.lane_insts.0,
            rep.lane_insts.1,
            if left > 0 {
                format!(", {left} in the rewrite")
            } else {
                String::new()
            },
            if !reached {
                " (the launch never reaches the rewritten code: proves nothing)"
            } else {
                ""
            }
        ));
    }
    if !proved {
        return Ok(Some(
            "no --verify launch reaches the rewritten code (no local access in the original, or \
             no demoted register touched)"
                .into(),
        ));
    }
    Ok(None)
}
