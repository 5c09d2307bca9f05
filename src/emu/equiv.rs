//! Differential checking: runs two versions of a kernel on identical inputs and compares every
//! output byte. This is the oracle every warpsmith transform is tested against (DESIGN.md:
//! "A rewrite is correct only if the emulator says so").
//!
//! For each seed offset `s` in `0..seeds`, every `random` initialiser of the launch spec gets
//! seed `seed + s`; both modules run on the concrete domain; all buffer arguments, and the module
//! `.global` variables both modules define, are compared byte for byte. Approximate instructions
//! (`sin.approx`, `ex2.approx`, …) are deterministic in the emulator, so the comparison stays
//! exact.

use crate::ptx::ir::Module;

use super::decode::Program;
use super::error::{EmuError, EmuResult};
use super::exec::{Limits, Stats};
use super::launch::{run_program, ElemType, LaunchSpec, OutBuffer, RunOptions};

/// The first difference found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diff {
    /// The seed offset of the run.
    pub seed: u64,
    /// The buffer (`arg2`, or a variable name).
    pub buffer: String,
    /// Element index of the first differing element.
    pub index: usize,
    /// Byte offset of that element.
    pub byte_offset: usize,
    /// Element type used to show the values.
    pub ty: ElemType,
    /// The first module's value, formatted.
    pub a: String,
    /// The second module's value, formatted.
    pub b: String,
    /// Number of differing elements in that buffer.
    pub count: usize,
}

/// The verdict of a check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Every output byte is equal for every seed.
    Equal,
    /// Some output differs.
    Differ(Diff),
    /// The second module faulted or deadlocked where the first ran to completion.
    SecondFailed {
        /// The seed offset.
        seed: u64,
        /// The error.
        error: String,
    },
}

/// What [`check`] found.
#[derive(Clone, Debug)]
pub struct EquivReport {
    /// The verdict.
    pub verdict: Verdict,
    /// Seeds run.
    pub seeds_run: u64,
    /// Counters of the first module (all seeds).
    pub stats_a: Stats,
    /// Counters of the second module (all seeds).
    pub stats_b: Stats,
}

impl EquivReport {
    /// True when the modules are equivalent on every input tried.
    pub fn is_equal(&self) -> bool {
        self.verdict == Verdict::Equal
    }
}

/// Options of [`check_with`].
#[derive(Clone, Debug, Default)]
pub struct EquivOptions {
    /// File name of the first module in messages.
    pub file_a: String,
    /// File name of the second module in messages.
    pub file_b: String,
    /// Limits of every run.
    pub limits: Limits,
}

/// Runs `a` and `b` on `spec` for `seeds` seed offsets and compares their outputs.
pub fn check(a: &Module, b: &Module, spec: &LaunchSpec, seeds: u64) -> EmuResult<EquivReport> {
    check_with(
        a,
        b,
        spec,
        seeds,
        &EquivOptions {
            file_a: "a.ptx".into(),
            file_b: "b.ptx".into(),
            limits: Limits::default(),
        },
    )
}

/// [`check`] with options.
pub fn check_with(
    a: &Module,
    b: &Module,
    spec: &LaunchSpec,
    seeds: u64,
    opts: &EquivOptions,
) -> EmuResult<EquivReport> {
    let pa = Program::new(a, &opts.file_a).map_err(EmuError::Program)?;
    let pb = Program::new(b, &opts.file_b).map_err(EmuError::Program)?;
    let oa = RunOptions {
        file: opts.file_a.clone(),
        limits: opts.limits,
    };
    let ob = RunOptions {
        file: opts.file_b.clone(),
        limits: opts.limits,
    };
    let mut report = EquivReport {
        verdict: Verdict::Equal,
        seeds_run: 0,
        stats_a: Stats::default(),
        stats_b: Stats::default(),
    };
    for s in 0..seeds.max(1) {
        let sp = spec.with_seed_offset(s);
        let ra = run_program(&pa, &sp, &oa)?;
        let rb = match run_program(&pb, &sp, &ob) {
            Ok(r) => r,
            Err(e) if e.is_kernel_misbehaviour() => {
                report.seeds_run = s + 1;
                report.verdict = Verdict::SecondFailed {
                    seed: s,
                    error: e.to_string(),
                };
                return Ok(report);
            }
            Err(e) => return Err(e),
        };
        report.seeds_run = s + 1;
        report.stats_a.warp_insts += ra.stats.warp_insts;
        report.stats_a.lane_insts += ra.stats.lane_insts;
        report.stats_a.global_loads += ra.stats.global_loads;
        report.stats_b.warp_insts += rb.stats.warp_insts;
        report.stats_b.lane_insts += rb.stats.lane_insts;
        report.stats_b.global_loads += rb.stats.global_loads;
        if let Some(d) = compare_outputs(s, &ra.buffers, &rb.buffers) {
            report.verdict = Verdict::Differ(d);
            return Ok(report);
        }
    }
    Ok(report)
}

/// Compares the buffers of two runs (seed offset `seed`, for the report): the first difference,
/// or `None` when every buffer of `a` that `b` also has is byte-equal (a module variable only
/// `a` defines is not comparable; a missing argument buffer is a difference).
pub fn compare_outputs(seed: u64, a: &[OutBuffer], b: &[OutBuffer]) -> Option<Diff> {
    for ba in a {
        let Some(bb) = b.iter().find(|x| x.name == ba.name) else {
            if ba.arg.is_none() {
                continue;
            }
            return Some(Diff {
                seed,
                buffer: ba.name.clone(),
                index: 0,
                byte_offset: 0,
                ty: ba.ty,
                a: format!("{} bytes", ba.data.len()),
                b: "missing".into(),
                count: 1,
            });
        };
        if ba.data == bb.data {
            continue;
        }
        let es = ba.ty.size();
        let n = ba.data.len().max(bb.data.len()).div_ceil(es);
        let elem = |d: &[u8], i: usize| -> Vec<u8> {
            d.get(i * es..((i + 1) * es).min(d.len()))
                .map(<[u8]>::to_vec)
                .unwrap_or_default()
        };
        let mut first = None;
        let mut count = 0;
        for i in 0..n {
            let (x, y) = (elem(&ba.data, i), elem(&bb.data, i));
            if x != y {
                count += 1;
                first.get_or_insert((i, x, y));
            }
        }
        if let Some((i, x, y)) = first {
            let show = |v: &[u8]| {
                if v.len() == es {
                    ba.ty.format(v)
                } else {
                    "missing".to_string()
                }
            };
            return Some(Diff {
                seed,
                buffer: ba.name.clone(),
                index: i,
                byte_offset: i * es,
                ty: ba.ty,
                a: show(&x),
                b: show(&y),
                count,
            });
        }
    }
    None
}
