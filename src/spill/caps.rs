//! The kernel-level driver over register caps (issue 12's `--occupancy auto`; RegDem §3.1, "let
//! the assembler decide"): measures the original, searches a rewrite at each cap, judges each
//! with the never-worse rule against the original and keeps the best kept one (occupancy, then
//! local memory, then shared memory), or the original.
//!
//! `auto` tries the caps nearest first until one is rejected. Most of a cap's ptxas runs go to
//! the removal searches ([`super::search`], phases 2 and 3), which only shrink a set ptxas
//! already compiles without local memory, and most caps' rewrites are discarded when a lower cap
//! is kept. So the removal searches wait until they can matter:
//! 1. each cap is first searched up to the shortest clean prefix of its greedy order
//!    ([`SearchDepth::Reach`]) and judged; a cap whose reached rewrite is rejected is searched
//!    whole at once (the removals can bring it back within the budget or below the original's
//!    local memory) and, rejected again, ends the loop as before;
//! 2. then the accepted caps are searched whole, lowest first, each only while the occupancy its
//!    reached rewrite's register count allows with the original's shared memory could beat the
//!    best finished rewrite ([`could_beat`]).
//!
//! Every ptxas answer is kept by the text assembled ([`PtxasMemo`]) for all the searches of the
//! kernel, so what a second search at a cap assembles again, and the final check of the kept
//! rewrite (the text of the search's last probe), cost no run.
//!
//! A whole search at a cap is the same search whenever it runs, so where the kept cap is the
//! same the kept rewrite is the same as searching every cap whole; what is not proved is that a
//! skipped cap would have lost — its finished rewrite could use fewer registers than its reached
//! one (ptxas is not monotone), and a cap accepted when reached could be rejected when finished
//! (it then drops out, where searching every cap whole would have ended the loop there).
//! docs/spill.md step 2 and docs/benchmarks.md ("Session 53") have the measurements.

use crate::never_worse::{self, Figures, LaunchContext, Verdict};
use crate::ptx::{Function, Module};

use super::search::PtxasMemo;
use super::setup::{self, KernelSetup};
use super::{
    attempt_of, classifications, judge_rewrite, judge_unchecked, original_report,
    spill_with_classes, Attempt, Classification, KernelPass, KernelReport, SpillError,
    SpillOptions, Target,
};

/// How far the search at one cap goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum SearchDepth {
    /// The greedy order and its shortest clean prefix (phase 1 of [`super::search`]).
    Reach,
    /// Every phase: the removal searches and the widening too.
    Whole,
}

/// One cap's rewrite: the kernel, the pass's report and the never-worse rule's verdict.
struct Searched {
    cap: u32,
    kernel: Function,
    report: KernelReport,
    verdict: Verdict,
    depth: SearchDepth,
    /// Its row in the attempts.
    attempt: usize,
}

/// What searching one kernel at a cap needs.
struct CapSearch<'a> {
    module: &'a Module,
    idx: usize,
    module_names: &'a [String],
    opts: &'a SpillOptions,
    setup: &'a KernelSetup,
    classes: &'a [Classification],
    original: &'a Function,
    memo: &'a PtxasMemo,
}

impl CapSearch<'_> {
    /// The rewrite at `cap` searched to `depth`, and the never-worse rule's verdict on it
    /// (`None` without ptxas).
    fn search(
        &self,
        cap: u32,
        depth: SearchDepth,
    ) -> Result<(Function, KernelReport, Option<Verdict>), SpillError> {
        let mut g = self.original.clone();
        let kernel = KernelPass {
            module: self.module,
            idx: self.idx,
            module_names: self.module_names,
            opts: self.opts,
            setup: self.setup,
            depth,
            memo: self.memo,
        };
        let report = spill_with_classes(&mut g, &kernel, self.classes, cap)?;
        let verdict = judge_rewrite(&kernel, &g);
        Ok((g, report, verdict))
    }
}

/// Why no register cap is worth trying.
fn nothing_to_do(setup: &KernelSetup, opts: &SpillOptions) -> String {
    match opts.target {
        Target::KeepOccupancy if setup.before.is_none() => "keeping the occupancy: ptxas was not \
            run, so nothing shows local memory to move: nothing to do"
            .into(),
        Target::KeepOccupancy => "ptxas alone uses no local memory: nothing to move at this \
            occupancy (WARPSMITH_SPILL_MAX_REGS=auto or --occupancy auto raises it)"
            .into(),
        _ => "already at the highest occupancy for its block size: nothing to do".into(),
    }
}

/// The kernel-level driver: measures the original, tries each register cap (nearest first) and
/// keeps the best rewrite the never-worse rule accepts, or the original.
pub(super) fn spill_kernel(
    f: &mut Function,
    module: &Module,
    idx: usize,
    module_names: &[String],
    opts: &SpillOptions,
) -> Result<KernelReport, SpillError> {
    let setup = setup::setup_kernel(f, module, idx, opts)?;
    let caps = setup::targets(&setup, opts.target)?;
    if caps.is_empty() {
        return Ok(original_report(
            &setup,
            nothing_to_do(&setup, opts),
            Vec::new(),
        ));
    }
    let classes = classifications(f, opts)?;
    let original = f.clone();
    let memo = PtxasMemo::default();
    let cs = CapSearch {
        module,
        idx,
        module_names,
        opts,
        setup: &setup,
        classes: &classes,
        original: &original,
        memo: &memo,
    };
    // Deferring the removal searches saves runs only where another cap may be kept instead.
    let first_depth = if opts.use_ptxas && caps.len() > 1 {
        SearchDepth::Reach
    } else {
        SearchDepth::Whole
    };
    let mut tried = Tried::default();
    for cap in caps {
        let (g, report, verdict) = cs.search(cap, first_depth)?;
        let Some(verdict) = verdict else {
            // Nothing to measure with: the first cap, judged by the register model alone.
            return Ok(keep_unchecked(g, report, f, &setup, opts.target));
        };
        let accepted = if verdict.keep {
            Some((g, report, verdict, first_depth))
        } else if first_depth == SearchDepth::Reach {
            log::debug!(
                "spill `{}`: .maxnreg {cap} rejected before the removal searches ({}): searching \
                 it whole",
                setup.name,
                verdict.reason
            );
            let (g, report, verdict) = cs.search(cap, SearchDepth::Whole)?;
            let verdict = verdict.expect("ptxas judged the reached rewrite");
            if verdict.keep {
                Some((g, report, verdict, SearchDepth::Whole))
            } else {
                tried.reject(&setup, cap, report, verdict);
                None
            }
        } else {
            tried.reject(&setup, cap, report, verdict);
            None
        };
        let Some((kernel, report, verdict, depth)) = accepted else {
            break;
        };
        tried.accept(Searched {
            cap,
            attempt: 0,
            kernel,
            report,
            verdict,
            depth,
        });
        if opts.target != Target::Auto {
            break;
        }
    }
    let best = finish_best(&cs, &mut tried)?;
    Ok(match best {
        Some(s) => {
            *f = s.kernel;
            let mut report = s.report;
            report.attempts = tried.attempts;
            report
        }
        None => {
            let mut report = original_report(
                &setup,
                format!("kept the original: {}", tried.last_reason),
                tried.attempts,
            );
            // What limited the rejected attempt (an unknown dynamic size, the budget).
            report.notes.extend(tried.last_notes);
            report
        }
    })
}

/// The caps tried so far: every attempt (nearest first), the accepted rewrites, and why the last
/// rejected one was.
#[derive(Default)]
struct Tried {
    attempts: Vec<Attempt>,
    accepted: Vec<Searched>,
    last_reason: String,
    last_notes: Vec<String>,
}

impl Tried {
    fn accept(&mut self, mut s: Searched) {
        s.attempt = self.attempts.len();
        self.attempts.push(attempt_of(&s.report, Some(&s.verdict)));
        mark_kept(&mut s.report, s.cap, &s.verdict);
        self.accepted.push(s);
    }

    /// A cap rejected in the loop over caps: its attempt row, and why.
    fn reject(&mut self, setup: &KernelSetup, cap: u32, report: KernelReport, v: Verdict) {
        self.attempts.push(attempt_of(&report, Some(&v)));
        self.note_rejection(setup, cap, report, v);
    }

    /// Why `cap` was rejected, for the report if no cap is kept.
    fn note_rejection(
        &mut self,
        setup: &KernelSetup,
        cap: u32,
        mut report: KernelReport,
        v: Verdict,
    ) {
        log::info!(
            "spill `{}`: .maxnreg {cap} rejected: {}",
            setup.name,
            v.reason
        );
        self.last_reason = format!(".maxnreg {cap}: {}", v.reason);
        self.last_notes = std::mem::take(&mut report.notes);
    }
}

/// Writes the rule's kept verdict at `cap` into `report`.
fn mark_kept(report: &mut KernelReport, cap: u32, verdict: &Verdict) {
    report.verdict = format!(".maxnreg {cap}: {}", verdict.reason);
    report.occupancy_after = verdict.occupancy_after.unwrap_or(report.occupancy_after);
}

/// Step 2 of the module doc: the accepted caps searched whole, lowest first, while one could
/// beat the best finished rewrite; that best one, or `None` when every one was rejected once
/// finished.
fn finish_best(cs: &CapSearch, tried: &mut Tried) -> Result<Option<Searched>, SpillError> {
    let mut accepted = std::mem::take(&mut tried.accepted);
    accepted.sort_by_key(|s| s.cap);
    let ctx = LaunchContext {
        arch: cs.setup.arch,
        threads: Some(cs.setup.threads),
        dynamic: cs.setup.dynamic,
    };
    let mut best: Option<(Searched, (i64, u32, u32))> = None;
    for s in accepted {
        if let Some((b, key)) = best.as_ref().filter(|_| s.depth == SearchDepth::Reach) {
            if !could_beat(&s, cs.setup, &ctx, *key) {
                let row = &mut tried.attempts[s.attempt];
                row.reason = format!(
                    "{} (before the removal searches; not searched further: .maxnreg {} was \
                     kept, and this cap could not give a higher occupancy)",
                    row.reason, b.cap
                );
                continue;
            }
        }
        let s = match s.depth {
            SearchDepth::Whole => s,
            SearchDepth::Reach => match finish_whole(cs, tried, s)? {
                Some(s) => s,
                None => continue,
            },
        };
        let key = s
            .report
            .ptxas_figures
            .unwrap_or_default()
            .order_key(s.verdict.occupancy_after);
        if best.as_ref().is_none_or(|(_, b)| key < *b) {
            best = Some((s, key));
        }
    }
    Ok(best.map(|(s, _)| s))
}

/// An accepted cap searched again whole, its attempt row updated; `None` when the finished
/// rewrite is rejected.
fn finish_whole(
    cs: &CapSearch,
    tried: &mut Tried,
    s: Searched,
) -> Result<Option<Searched>, SpillError> {
    let (kernel, report, verdict) = cs.search(s.cap, SearchDepth::Whole)?;
    let verdict = verdict.expect("ptxas judged the reached rewrite");
    tried.attempts[s.attempt] = attempt_of(&report, Some(&verdict));
    if !verdict.keep {
        tried.note_rejection(cs.setup, s.cap, report, verdict);
        return Ok(None);
    }
    let mut report = report;
    mark_kept(&mut report, s.cap, &verdict);
    Ok(Some(Searched {
        kernel,
        report,
        verdict,
        depth: SearchDepth::Whole,
        ..s
    }))
}

/// Whether the reached rewrite `s` could, searched whole, rank before `best` (a finished
/// rewrite's [`Figures::order_key`]): at the registers ptxas gave the reached rewrite, with no
/// local memory and only the original's static shared memory — the most a finished rewrite at
/// that register count can reach, since the removals only take shared memory away and a rewrite
/// keeps the original's own.
fn could_beat(
    s: &Searched,
    setup: &KernelSetup,
    ctx: &LaunchContext,
    best: (i64, u32, u32),
) -> bool {
    let Some(reached) = s.report.ptxas_figures else {
        return true;
    };
    let original_smem = setup.before.as_ref().map_or(0, |k| k.shared);
    let bound = Figures {
        registers: reached.registers.min(s.cap),
        stack: 0,
        spill: 0,
        static_smem: original_smem,
        extra_dynamic: 0,
    };
    bound.order_key(never_worse::occupancy(ctx, &bound)) < best
}

/// Without ptxas: the first cap's rewrite, kept or not by the register model alone
/// ([`judge_unchecked`]).
fn keep_unchecked(
    g: Function,
    mut report: KernelReport,
    f: &mut Function,
    setup: &KernelSetup,
    target: Target,
) -> KernelReport {
    report.attempts = vec![attempt_of(&report, None)];
    match judge_unchecked(&report, target) {
        Ok(verdict) => {
            report.verdict = verdict;
            report.notes.push(report.verdict.clone());
            *f = g;
            report
        }
        Err(why) => {
            log::info!(
                "spill `{}`: .maxnreg {} not kept: {why}",
                setup.name,
                report.max_regs
            );
            let attempts = std::mem::take(&mut report.attempts);
            original_report(setup, format!("kept the original: {why}"), attempts)
        }
    }
}
