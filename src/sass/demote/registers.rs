//! `warpsmith demote --max-regs N | --occupancy auto` for one kernel (issue 16; RegDem §3):
//! lower the register count of a finished ptxas build by moving registers to shared memory in
//! the cubin itself.
//!
//! The steps: recognise the stack (a frame moves to shared memory as with `--local-to-shared`,
//! R1 becomes the thread's shared-memory base either way: [`super::frame::stack`]); choose the
//! registers and the new numbering ([`super::regplan`]); rewrite the code and the control bits
//! ([`super::regrewrite`]); set `REGCOUNT`, the shared size and the stack size; judge with the
//! never-worse rule (occupancy with static and dynamic shared memory must rise, nothing may
//! grow in local memory, the launch must stay legal); prove on the SASS emulator.
//!
//! The slots follow the frame's words in the same per-thread, bank-conflict-free layout: slot
//! `k` is frame word `frame_words + k`.

use std::collections::BTreeSet;

use super::frame::{self, Frame, Stack, SP};
use super::layout::SharedFrame;
use super::regplan::{RegisterPlan, Usage};
use super::regrewrite::{self, Scoreboards};
use super::rewrite::{self, SCRATCH};
use super::{
    control_bits, figures, kernel_body, reenters_entry, region_start, threads_for, verify,
    DemoteError, DemoteOptions, KernelReport, Proof, Resources,
};
use crate::analysis::occupancy::ArchLimits;
use crate::never_worse::{judge, DynamicSmem, LaunchContext, Verdict};
use crate::sass::edit::{EditError, Editor};
use crate::sass::elf::Cubin;
use crate::sass::isa::Instruction;

/// The register count to reach.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegisterTarget {
    /// At most this many registers per thread.
    MaxRegs(u32),
    /// The register count, at or below the current one, that the never-worse rule judges best
    /// (highest occupancy, then fewest registers demoted, then least shared memory).
    Auto,
}

/// The kernel's code as the plan and the rewrite read it.
struct Code {
    body: Vec<Instruction>,
    leaders: BTreeSet<usize>,
    stack: Stack,
}

/// A plan with its judged figures.
struct Candidate {
    plan: RegisterPlan,
    layout: SharedFrame,
    after: Resources,
    verdict: Verdict,
}

/// The predicted gain a register demotion must show to be kept: the models' error where
/// demotions were measured. On the H100 (docs/tune.md, "The cycle-level model"; docs/gpu.md)
/// no demoted kernel was faster than ptxas's build; the cycle-level model predicted every
/// measured demotion slower but one, cold40 at 48 registers, 1.4 % faster (measured 6.6 %
/// slower).
pub const REQUIRED_GAIN: f64 = 0.05;

/// Candidates tried under `--occupancy auto` when a predictor chooses among them.
const AUTO_TRIES: usize = 4;

/// Everything the candidates of one kernel share.
struct Setting<'a> {
    cubin: &'a Cubin,
    name: &'a str,
    opts: &'a DemoteOptions,
    code: Code,
    frame: Option<Frame>,
    threads: u32,
    start: u32,
    sbs: Scoreboards,
}

/// One candidate rewritten, proved and (with a predictor) timed.
struct Attempt {
    cubin: Cubin,
    accesses: usize,
    inserted: usize,
    removed: usize,
    verified: Vec<String>,
    predicted_us: Option<f64>,
}

/// Demotes registers of `name` to reach `target`. `Ok((None, report))` keeps `cubin`.
pub(super) fn demote_kernel(
    cubin: &Cubin,
    name: &str,
    opts: &DemoteOptions,
    arch: &'static ArchLimits,
    target: RegisterTarget,
    mut report: KernelReport,
) -> Result<(Option<Cubin>, KernelReport), DemoteError> {
    let refuse = |mut r: KernelReport, why: String| {
        log::info!("demote {name}: kept the original: {why}");
        r.reason = why;
        Ok((None, r))
    };
    let before = report.before;
    let (setting, bound_added, usage) = match prepare(cubin, name, opts) {
        Ok(x) => x,
        Err(why) => return refuse(report, why),
    };
    report.threads = Some(setting.threads);
    let ctx = LaunchContext {
        arch,
        threads: Some(setting.threads),
        dynamic: opts
            .dynamic_smem
            .map_or(DynamicSmem::Unknown, DynamicSmem::Known),
    };
    let frame_bytes = setting
        .frame
        .as_ref()
        .map_or(0, |f| f.size.next_multiple_of(4));
    let judged = |plan: RegisterPlan| {
        let words = frame_bytes + 4 * plan.slot_word.len() as u32;
        let layout = SharedFrame::new(words, setting.threads);
        let after = Resources {
            registers: plan.registers,
            local_bytes: 0,
            static_smem: (setting.start as u64 + layout.bytes()).min(u32::MAX as u64) as u32,
            dynamic_added: 0,
        };
        let verdict = judge(&figures(&before), &figures(&after), &ctx);
        Candidate {
            plan,
            layout,
            after,
            verdict,
        }
    };
    let ranked = match rank(&usage, target, before.registers, &judged) {
        Ok(c) => c,
        Err(why) => return refuse(report, why),
    };
    if let Some(first) = ranked.first() {
        report.occupancy = (
            first.verdict.occupancy_before,
            first.verdict.occupancy_after,
        );
    }
    if let Some(c) = ranked.iter().find(|c| !c.verdict.keep) {
        let hint = if opts.dynamic_smem.is_none() {
            " (give --dynamic-smem with the launch's dynamic shared memory, 0 if none)"
        } else {
            ""
        };
        return refuse(report, format!("{}{hint}", c.verdict.reason));
    }
    let original_us = match predicted(&setting, &cubin.to_bytes())? {
        Ok(us) => us,
        Err(why) => return refuse(report, why),
    };
    let tries = if opts.predictor.is_some() {
        AUTO_TRIES
    } else {
        1
    };
    let mut best: Option<(&Candidate, Attempt)> = None;
    let mut refusals = Vec::new();
    for c in ranked.iter().take(tries) {
        match attempt(&setting, c, bound_added)? {
            Ok(a) => {
                let faster = match (a.predicted_us, &best) {
                    (Some(us), Some((_, b))) => us < b.predicted_us.unwrap_or(f64::MAX),
                    (_, None) => true,
                    (None, Some(_)) => false,
                };
                if faster {
                    best = Some((c, a));
                }
            }
            Err(why) => refusals.push(format!("at {} registers: {why}", c.plan.registers)),
        }
    }
    let Some((chosen, a)) = best else {
        return refuse(report, refusals.join("; "));
    };
    report.occupancy = (
        chosen.verdict.occupancy_before,
        chosen.verdict.occupancy_after,
    );
    report.verified = a.verified;
    report.predicted_us = original_us.zip(a.predicted_us);
    if let (Some(b), Some(x)) = (original_us, a.predicted_us) {
        if x > b * (1.0 - REQUIRED_GAIN) {
            let what = if x > b {
                "predicted slower"
            } else {
                "predicted less than 5 % faster"
            };
            return refuse(
                report,
                format!(
                    "{what}: {b:.2} µs -> {x:.2} µs at {} registers (the tune model on the \
                     --launch or first --verify launch); the fastest of {} candidate(s) is kept \
                     only when predicted at least {:.0} % faster",
                    chosen.plan.registers,
                    ranked.len().min(tries),
                    REQUIRED_GAIN * 100.0
                ),
            );
        }
    }
    report.accesses = a.accesses;
    report.instructions = (a.inserted, a.removed);
    report.bound_added = bound_added;
    report.registers_demoted = chosen
        .plan
        .units
        .iter()
        .map(|u| match u.size {
            1 => format!("R{}", u.base),
            n => format!("R{}..R{}", u.base, u.base + n - 1),
        })
        .collect();
    report.demoted = true;
    report.after = Some(chosen.after);
    report.reason = format!(
        "registers {} -> {} ({} demoted, {} recomputed, {} scratch in {} bank(s)); {}",
        before.registers,
        chosen.plan.registers,
        chosen.plan.slot_word.len(),
        chosen.plan.remat.len(),
        chosen.plan.scratch_count,
        chosen.plan.scratch_banks,
        chosen.verdict.reason
    );
    if let Some((b, x)) = report.predicted_us {
        report.reason += &format!(", predicted {b:.2} µs -> {x:.2} µs");
    }
    log::info!("demote {name}: {}", report.reason);
    Ok((Some(a.cubin), report))
}

/// The kernel's code, block size, stack, scoreboards and register usage, or why register
/// demotion cannot rewrite it. The second value: whether the block-size bound must be recorded.
fn prepare<'a>(
    cubin: &'a Cubin,
    name: &'a str,
    opts: &'a DemoteOptions,
) -> Result<(Setting<'a>, bool, Usage), String> {
    if cubin.reconfigures_registers(name) {
        // A smaller count shrinks the pool `setmaxnreg.inc` draws from: its warps could wait
        // for registers forever.
        return Err(
            "the kernel changes its register budget at run time (setmaxnreg, \
                    EIATTR_REG_RECONFIG): its register count must stay as ptxas set it"
                .into(),
        );
    }
    let code = read_code(cubin, name)?;
    let (threads, bound_added) = threads_for(cubin.thread_bound(name), opts.block_size_for(name))?;
    let sbs = regrewrite::scoreboards(&code.body)?;
    let frame = match &code.stack {
        Stack::Frame(f) => Some(f.clone()),
        Stack::Frameless { .. } => None,
    };
    let pinned: BTreeSet<u32> = frame
        .iter()
        .flat_map(|f| f.accesses.iter())
        .flat_map(|a| a.data..a.data + a.width.regs())
        .collect();
    let usage = Usage::of(&code.body, &pinned).map_err(|e| e.to_string())?;
    let start = region_start(cubin.sm(), cubin.shared_size(name) as u32);
    let setting = Setting {
        cubin,
        name,
        opts,
        code,
        frame,
        threads,
        start,
        sbs,
    };
    Ok((setting, bound_added, usage))
}

/// The predicted time of `name` in `bytes` on the prediction launch (or the first `--verify`
/// launch), where a predictor is set (`Ok(Ok(None))` without one; `Ok(Err(why))` when it cannot predict).
fn predicted(s: &Setting, bytes: &[u8]) -> Result<Result<Option<f64>, String>, DemoteError> {
    let Some(predict) = s.opts.predictor else {
        return Ok(Ok(None));
    };
    let spec = s
        .opts
        .predict_launch
        .as_ref()
        .filter(|l| l.kernel == s.name)
        .or_else(|| s.opts.verify.iter().find(|v| v.kernel == s.name));
    let Some(spec) = spec else {
        return Ok(Err(
            "register demotion is kept only where it is predicted at least 5 % faster, and the \
             prediction needs a launch (--launch, or a --verify launch)"
                .into(),
        ));
    };
    Ok(predict(bytes, s.name, spec)
        .map(Some)
        .map_err(|e| format!("cannot predict the time: {e}")))
}

/// Rewrites, proves and times one candidate; `Ok(Err(why))` where it is refused.
fn attempt(
    s: &Setting,
    c: &Candidate,
    bound_added: bool,
) -> Result<Result<Attempt, String>, DemoteError> {
    let mut out = s.cubin.clone();
    let edited = rewrite_cubin(
        &mut out,
        s.name,
        &s.code,
        s.frame.as_ref(),
        c,
        s.start,
        s.sbs,
    );
    let (accesses, inserted, removed) = match edited {
        Ok(x) => x,
        Err(e) => return Ok(Err(e.to_string())),
    };
    if bound_added {
        out.set_max_threads(s.name, s.threads)?;
    }
    let proof = Proof::Registers {
        frame: s.frame.is_some(),
    };
    if let Some(why) = control_bits(s.cubin, &out, s.name) {
        return Ok(Err(why));
    }
    let mut verified = Vec::new();
    if let Some(why) = verify(s.cubin, &out, s.name, s.opts, (proof, 0), &mut verified)? {
        return Ok(Err(why));
    }
    let predicted_us = match predicted(s, &out.to_bytes())? {
        Ok(p) => p,
        Err(why) => return Ok(Err(why)),
    };
    Ok(Ok(Attempt {
        cubin: out,
        accesses,
        inserted,
        removed,
        verified,
        predicted_us,
    }))
}

/// The body, its blocks and its stack, or why the kernel cannot be rewritten.
fn read_code(cubin: &Cubin, name: &str) -> Result<Code, String> {
    let (body, leaders) = kernel_body(cubin, name).map_err(|e| e.to_string())?;
    if let Some(why) = reenters_entry(&body) {
        return Err(why);
    }
    let stack = frame::stack(&body, &leaders, &|_| None).map_err(|e| e.to_string())?;
    Ok(Code {
        body,
        leaders,
        stack,
    })
}

/// The plans for `target`, best first: the one that reaches `MaxRegs(n)` (judged, kept or not),
/// or under `Auto` the best kept candidate at each occupancy the register counts at or below
/// `current` reach (highest occupancy first; at one occupancy, the fewest registers demoted, then
/// the least shared memory).
fn rank(
    usage: &Usage,
    target: RegisterTarget,
    current: u32,
    judged: &dyn Fn(RegisterPlan) -> Candidate,
) -> Result<Vec<Candidate>, String> {
    let floor = SCRATCH.iter().max().copied().unwrap_or(0) + 1 + super::regplan::RESERVED;
    match target {
        RegisterTarget::MaxRegs(n) => {
            if n >= current {
                return Err(format!(
                    "--max-regs {n}: the kernel already uses {current} registers"
                ));
            }
            if n < floor {
                return Err(format!(
                    "--max-regs {n}: the shared-memory base set-up needs at least {floor}"
                ));
            }
            usage
                .plan(n)
                .map(|p| vec![judged(p)])
                .map_err(|e| e.to_string())
        }
        RegisterTarget::Auto => {
            let mut kept: Vec<Candidate> = Vec::new();
            let mut last_regs = u32::MAX;
            let mut first_refusal = None;
            // From the current count down: at the current count a plan demotes nothing (only
            // compacts, and moves a frame if there is one).
            for n in (floor..=current).rev() {
                let Ok(plan) = usage.plan(n) else {
                    break;
                };
                if plan.registers == last_regs {
                    continue;
                }
                last_regs = plan.registers;
                let c = judged(plan);
                if !c.verdict.keep {
                    first_refusal.get_or_insert_with(|| c.verdict.reason.clone());
                    continue;
                }
                kept.push(c);
            }
            if kept.is_empty() {
                return Err(format!(
                    "no register count below {current} is kept by the rule{}",
                    first_refusal.map_or(String::new(), |r| format!(" (first: {r})"))
                ));
            }
            // Each demoted register costs a load or a store per access: at one occupancy, the
            // fewest demoted, then the least shared memory.
            let key = |c: &Candidate| {
                (
                    std::cmp::Reverse((c.verdict.occupancy_after.unwrap_or(0.0) * 1e6) as u64),
                    c.plan.slot_word.len() + c.plan.remat.len(),
                    c.after.static_smem,
                )
            };
            kept.sort_by_key(key);
            kept.dedup_by_key(|c| key(c).0);
            Ok(kept)
        }
    }
}

/// The rewrite of `name` in `out`: stack, registers, sizes. (local accesses, inserted, removed).
fn rewrite_cubin(
    out: &mut Cubin,
    name: &str,
    code: &Code,
    frame: Option<&Frame>,
    chosen: &Candidate,
    start: u32,
    sbs: Scoreboards,
) -> Result<(usize, usize, usize), EditError> {
    let plan = &chosen.plan;
    let layout = chosen.layout;
    let mut ed = Editor::new(out, name)?;
    let mut skip = BTreeSet::new();
    let mut accesses = 0;
    match frame {
        Some(f) => {
            let renamed = renamed_frame(f, plan);
            skip.extend(f.accesses.iter().map(|a| a.index));
            accesses = rewrite::apply(
                &mut ed,
                &renamed,
                &rewrite::Move::Whole(layout),
                start.into(),
            )?;
        }
        None => {
            let pro =
                rewrite::prologue(ed.arch, start.into()).map_err(|e| EditError::Unsupported {
                    kernel: name.to_string(),
                    reason: e.to_string(),
                })?;
            ed.insert_before(0, pro)?;
            if let Stack::Frameless { sp_def: Some(k) } = code.stack {
                ed.remove(k)?;
                skip.insert(k);
            }
        }
    }
    let frame_bytes = frame.map_or(0, |f| f.size.next_multiple_of(4)) as i32;
    let slot = |k: usize| layout.offset(frame_bytes + 4 * k as i32);
    let (changed, loads, stores, moved) =
        regrewrite::apply(&mut ed, &code.body, &code.leaders, plan, &slot, sbs, &skip)?;
    log::info!(
        "{name}: {changed} instructions changed, {loads} LDS and {stores} STS inserted, {moved} \
         moved away from their instructions by the scheduler"
    );
    let rep = ed.commit(out)?;
    out.set_register_count(name, plan.registers)?;
    out.set_shared_size(name, start as u64 + layout.bytes())?;
    if frame.is_some() {
        out.set_stack_size(name, 0)?;
    }
    Ok((accesses, rep.inserted, rep.removed))
}

/// `f` with its data registers renumbered by `plan` (they are never demoted).
fn renamed_frame(f: &Frame, plan: &RegisterPlan) -> Frame {
    let mut out = f.clone();
    for a in &mut out.accesses {
        if a.data != SP && a.data < 255 {
            if let Some(Some(n)) = plan.map.get(a.data as usize) {
                a.data = *n;
            }
        }
    }
    // The stack-pointer set-up and allocation are removed by the frame rewrite.
    out
}
