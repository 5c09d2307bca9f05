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
    region_start, threads_for, verify, DemoteError, DemoteOptions, KernelReport, Proof, Resources,
};
use crate::analysis::occupancy::ArchLimits;
use crate::never_worse::{judge, DynamicSmem, Figures, LaunchContext, Verdict};
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
    let code = match read_code(cubin, name) {
        Ok(c) => c,
        Err(why) => return refuse(report, why),
    };
    let (threads, bound_added) = match threads_for(cubin.thread_bound(name), opts.block_size) {
        Ok(t) => t,
        Err(why) => return refuse(report, why),
    };
    report.threads = Some(threads);
    let sbs = match regrewrite::scoreboards(&code.body) {
        Ok(s) => s,
        Err(why) => return refuse(report, why),
    };
    let frame = match &code.stack {
        Stack::Frame(f) => Some(f.clone()),
        Stack::Frameless { .. } => None,
    };
    let pinned: BTreeSet<u32> = frame
        .iter()
        .flat_map(|f| f.accesses.iter())
        .flat_map(|a| a.data..a.data + a.width.regs())
        .collect();
    let usage = match Usage::of(&code.body, &pinned) {
        Ok(u) => u,
        Err(e) => return refuse(report, e.to_string()),
    };
    let ctx = LaunchContext {
        arch,
        threads: Some(threads),
        dynamic: opts
            .dynamic_smem
            .map_or(DynamicSmem::Unknown, DynamicSmem::Known),
    };
    let frame_bytes = frame.as_ref().map_or(0, |f| f.size.next_multiple_of(4));
    let start = region_start(cubin.sm(), before.static_smem);
    let judged = |plan: RegisterPlan| {
        let layout = SharedFrame::new(frame_bytes + 4 * plan.slot_word.len() as u32, threads);
        let after = Resources {
            registers: plan.registers,
            local_bytes: 0,
            static_smem: (start as u64 + layout.bytes()).min(u32::MAX as u64) as u32,
        };
        let verdict = judge(&figures(&before), &figures(&after), &ctx);
        Candidate {
            plan,
            layout,
            after,
            verdict,
        }
    };
    let chosen = match choose(&usage, target, before.registers, &judged) {
        Ok(c) => c,
        Err(why) => return refuse(report, why),
    };
    report.occupancy = (
        chosen.verdict.occupancy_before,
        chosen.verdict.occupancy_after,
    );
    if !chosen.verdict.keep {
        let hint = if opts.dynamic_smem.is_none() {
            " (give --dynamic-smem with the launch's dynamic shared memory, 0 if none)"
        } else {
            ""
        };
        return refuse(report, format!("{}{hint}", chosen.verdict.reason));
    }
    let mut out = cubin.clone();
    let edited = rewrite_cubin(&mut out, name, &code, frame.as_ref(), &chosen, start, sbs);
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
    report.registers_demoted = chosen
        .plan
        .units
        .iter()
        .map(|u| match u.size {
            1 => format!("R{}", u.base),
            n => format!("R{}..R{}", u.base, u.base + n - 1),
        })
        .collect();
    let proof = Proof::Registers {
        frame: frame.is_some(),
    };
    if let Some(why) = verify(cubin, &out, name, opts, proof, &mut report.verified)? {
        return refuse(report, why);
    }
    report.demoted = true;
    report.after = Some(chosen.after);
    report.reason = format!(
        "registers {} -> {} ({} demoted, {} scratch); {}",
        before.registers,
        chosen.plan.registers,
        chosen.plan.slot_word.len(),
        chosen.plan.scratch_count,
        chosen.verdict.reason
    );
    log::info!("demote {name}: {}", report.reason);
    Ok((Some(out), report))
}

fn figures(r: &Resources) -> Figures {
    Figures {
        registers: r.registers,
        stack: r.local_bytes,
        spill: 0,
        static_smem: r.static_smem,
    }
}

/// The body, its blocks and its stack, or why the kernel cannot be rewritten.
fn read_code(cubin: &Cubin, name: &str) -> Result<Code, String> {
    let ed = Editor::new(cubin, name).map_err(|e| e.to_string())?;
    let leaders = ed.block_starts(cubin);
    let body: Vec<Instruction> = ed.instructions().take(ed.body_len()).cloned().collect();
    if let Some(k) = body.iter().enumerate().find(|(k, i)| {
        !i.mnemonic().starts_with("RET") && i.branch_target(*k as u64 * 16) == Some(0)
    }) {
        return Err(format!(
            "the branch at {:#x} re-enters the kernel's first instruction",
            k.0 * 16
        ));
    }
    let stack = frame::stack(&body, &leaders, &|_| None).map_err(|e| e.to_string())?;
    Ok(Code {
        body,
        leaders,
        stack,
    })
}

/// The plan for `target`: the one that reaches `MaxRegs(n)`, or under `Auto` the best kept
/// candidate among the register counts below `current`.
fn choose(
    usage: &Usage,
    target: RegisterTarget,
    current: u32,
    judged: &dyn Fn(RegisterPlan) -> Candidate,
) -> Result<Candidate, String> {
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
            usage.plan(n).map(judged).map_err(|e| e.to_string())
        }
        RegisterTarget::Auto => {
            let mut best: Option<Candidate> = None;
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
                // Highest occupancy, then the fewest registers demoted (each costs a load or a
                // store per access), then the least shared memory.
                let better = best.as_ref().is_none_or(|b| {
                    let (o, ob) = (c.verdict.occupancy_after, b.verdict.occupancy_after);
                    let (w, wb) = (c.plan.slot_word.len(), b.plan.slot_word.len());
                    o > ob
                        || (o == ob && w < wb)
                        || (o == ob && w == wb && c.after.static_smem < b.after.static_smem)
                });
                if better {
                    best = Some(c);
                }
            }
            best.ok_or_else(|| {
                format!(
                    "no register count below {current} is kept by the rule{}",
                    first_refusal.map_or(String::new(), |r| format!(" (first: {r})"))
                )
            })
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
            accesses = rewrite::apply(&mut ed, &renamed, &layout, start)?;
        }
        None => {
            let pro = rewrite::prologue(ed.arch, start).map_err(|e| EditError::Unsupported {
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
    regrewrite::apply(&mut ed, &code.body, &code.leaders, plan, &slot, sbs, &skip)?;
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
