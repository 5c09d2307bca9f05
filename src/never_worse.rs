//! The never-worse rule (issue 12; RegDem §4: a variant is worth keeping only if it beats the
//! efficient build): a rewritten kernel is kept only if, assembled by ptxas with the same options
//! as the original,
//!
//! 1. its local memory does not grow: neither the stack (ptxas's `stack frame`, callees included)
//!    nor the spill traffic (`spill stores` + `spill loads`, bytes);
//! 2. its launch stays legal: with dynamic shared memory `D` and the new static size `S`,
//!    `S + D ≤ 48 KiB` when `D ≤ 48 KiB` (a launcher raises the limit only for larger `D`, as
//!    Triton's does), else `S + D ≤` the architecture's opt-in maximum; where `D` is unknown
//!    (the kernel reads an `extern .shared` array and nobody said how big the launch makes it),
//!    `S` must not grow at all;
//! 3. its occupancy, computed with static **and** dynamic shared memory, does not fall; where the
//!    dynamic size is unknown, neither registers nor static shared memory may cost a resident
//!    block (so it cannot fall for any `D`); where the block size is unknown, neither registers
//!    nor static shared memory may grow;
//! 4. and one of them improves: less local memory, or a higher occupancy (more resident blocks by
//!    registers when the dynamic size is unknown; fewer registers when the block size is).
//!
//! [`judge`] is the rule on figures; every front end (the `spill` pass for `--max-regs` and
//! `--occupancy auto`, the `warpsmith ptxas` drop-in, the plugin's code-generation hook) measures
//! with ptxas and asks it. [`Figures::order_key`] ranks kept variants: occupancy first, then local
//! memory, then shared memory.

use serde::Serialize;

use crate::analysis::occupancy::{self, ArchLimits, LaunchResources};
use crate::ptx::{print_module, FuncKind, Function, Item, Module, StateSpace};
use crate::tools::KernelResources;

/// Static plus dynamic shared memory a block may use without the launcher opting in.
pub const DEFAULT_SMEM_LIMIT: u32 = 48 * 1024;

/// The dynamic shared memory a kernel is launched with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DynamicSmem {
    /// This many bytes (0 for kernels that declare no `extern .shared` array).
    Known(u32),
    /// The kernel reads an `extern .shared` array and the launch size was not given.
    Unknown,
}

impl DynamicSmem {
    /// The known size, or 0 where the occupancy comparison does not depend on it.
    pub fn bytes_or_zero(self) -> u32 {
        match self {
            DynamicSmem::Known(d) => d,
            DynamicSmem::Unknown => 0,
        }
    }
}

/// What the launch of a kernel is known to be.
#[derive(Clone, Copy, Debug)]
pub struct LaunchContext {
    /// The architecture (occupancy limits, opt-in shared-memory maximum).
    pub arch: &'static ArchLimits,
    /// Threads per block, when known (launch bounds or the caller).
    pub threads: Option<u32>,
    /// Dynamic shared memory per block.
    pub dynamic: DynamicSmem,
}

/// ptxas's figures for one kernel, as the rule reads them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Figures {
    /// Registers per thread.
    pub registers: u32,
    /// Stack per thread, bytes (the larger of the frame and the cumulative stack).
    pub stack: u32,
    /// Spill stores + spill loads, bytes.
    pub spill: u32,
    /// Static shared memory per block, bytes.
    pub static_smem: u32,
    /// Dynamic shared memory the build adds to the launch's, bytes (`demote --grow-dynamic`: a
    /// region at the end of a dynamic area the launch makes this much larger).
    #[serde(skip_serializing_if = "is_zero")]
    pub extra_dynamic: u32,
}

/// For `#[serde(skip_serializing_if)]`: figures that are 0 are left out of reports.
pub(crate) fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl From<&KernelResources> for Figures {
    fn from(k: &KernelResources) -> Self {
        Figures {
            registers: k.registers,
            stack: k.local.max(k.stack_frame),
            spill: k.spill_stores + k.spill_loads,
            static_smem: k.shared,
            extra_dynamic: 0,
        }
    }
}

impl Figures {
    /// Local memory per thread as one number (stack + spill traffic), for reports and ranking.
    pub fn local_bytes(&self) -> u32 {
        self.stack + self.spill
    }

    /// The ranking of kept variants: higher occupancy first, then less local memory, then less
    /// shared memory (static and added dynamic; smaller is better for every component).
    pub fn order_key(&self, occupancy: Option<f64>) -> (i64, u32, u32) {
        let occ = occupancy.map_or(0, |o| (o * 1e6).round() as i64);
        (
            -occ,
            self.local_bytes(),
            self.static_smem.saturating_add(self.extra_dynamic),
        )
    }

    /// The launch's dynamic size for this build: `dynamic` plus what the build adds.
    pub fn dynamic(&self, dynamic: DynamicSmem) -> DynamicSmem {
        match dynamic {
            DynamicSmem::Known(d) => DynamicSmem::Known(d.saturating_add(self.extra_dynamic)),
            DynamicSmem::Unknown => DynamicSmem::Unknown,
        }
    }
}

/// The rule's answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Verdict {
    /// Keep the rewrite (else the original).
    pub keep: bool,
    /// Why, in one line with the figures.
    pub reason: String,
    /// Occupancy of the original (with the dynamic size, 0 where unknown), when computable.
    pub occupancy_before: Option<f64>,
    /// Occupancy of the rewrite, when computable.
    pub occupancy_after: Option<f64>,
}

/// The launch resources of a kernel at `regs` registers (at most 255) with `threads` threads per
/// block and `static_smem` bytes of static shared memory; the dynamic size 0 where unknown.
pub fn launch_resources(
    regs: u32,
    threads: u32,
    static_smem: u32,
    dynamic: DynamicSmem,
) -> LaunchResources {
    LaunchResources {
        regs_per_thread: regs.min(255),
        threads_per_block: threads,
        static_smem,
        dynamic_smem: dynamic.bytes_or_zero(),
        carveout_kib: None,
    }
}

/// The most static + dynamic shared memory a launch with dynamic size `d` may use on `arch`: the
/// default 48 KiB, unless `d` alone exceeds it (then the launcher opts in to the architecture's
/// maximum per block).
pub fn launch_limit(arch: &ArchLimits, d: u32) -> u32 {
    if d > DEFAULT_SMEM_LIMIT {
        arch.max_smem_per_block
    } else {
        DEFAULT_SMEM_LIMIT
    }
}

/// Why a launch with static `s` and dynamic `d` bytes of shared memory fails on `arch`, if it
/// does: static shared memory within 48 KiB, static + dynamic within [`launch_limit`].
pub fn launch_error(arch: &ArchLimits, s: u32, d: u32) -> Option<String> {
    if s > DEFAULT_SMEM_LIMIT {
        return Some(format!(
            "{s} B of static shared memory exceed the {DEFAULT_SMEM_LIMIT} B a block may declare statically"
        ));
    }
    let limit = launch_limit(arch, d);
    let which = if d > DEFAULT_SMEM_LIMIT {
        "opt-in maximum"
    } else {
        "default limit"
    };
    (u64::from(s) + u64::from(d) > u64::from(limit)).then(|| {
        format!(
            "static {s} B + dynamic {d} B of shared memory exceed the {limit} B {which} of {}",
            arch.name
        )
    })
}

/// The occupancy of a kernel with figures `f` launched as `ctx` says (the dynamic size 0 where
/// unknown); `None` when the block size is unknown or the launch is impossible.
pub fn occupancy(ctx: &LaunchContext, f: &Figures) -> Option<f64> {
    ctx.threads
        .and_then(|t| occupancy_of(ctx, f, t))
        .map(|o| o.occupancy)
}

fn occupancy_of(ctx: &LaunchContext, f: &Figures, threads: u32) -> Option<occupancy::Occupancy> {
    occupancy::occupancy(
        ctx.arch,
        &launch_resources(f.registers, threads, f.static_smem, f.dynamic(ctx.dynamic)),
    )
    .ok()
}

/// Compares the occupancy of `before` and `after` at `t` threads per block: `Ok(true)` when it
/// rises, `Ok(false)` when it stays, `Err(why)` when it falls (for some dynamic size, where that
/// is unknown) or only the original can be launched.
fn compare_at(
    before: &Figures,
    after: &Figures,
    ctx: &LaunchContext,
    t: u32,
) -> Result<bool, String> {
    let (b, a) = match (occupancy_of(ctx, before, t), occupancy_of(ctx, after, t)) {
        (None, _) => return Ok(false),
        (Some(b), None) => {
            return Err(format!(
                "the rewrite cannot be launched with {t} threads per block ({} registers, {} B static shared memory); the original can ({:.1}% occupancy)",
                after.registers,
                after.static_smem,
                b.occupancy * 100.0
            ))
        }
        (Some(b), Some(a)) => (b, a),
    };
    if a.occupancy < b.occupancy {
        return Err(format!(
            "occupancy at {t} threads per block falls {:.1}% -> {:.1}% ({} -> {} registers, {} B -> {} B static shared memory)",
            b.occupancy * 100.0,
            a.occupancy * 100.0,
            before.registers,
            after.registers,
            before.static_smem,
            after.static_smem
        ));
    }
    // With the dynamic size unknown (static shared memory did not grow, checked before), the
    // blocks allowed by everything but shared memory decide for every dynamic size.
    let others = |o: &occupancy::Occupancy| {
        o.blocks_by_registers
            .min(o.blocks_by_warps)
            .min(o.blocks_by_blocks)
    };
    if ctx.dynamic == DynamicSmem::Unknown {
        if others(&a) < others(&b) {
            return Err(format!(
                "{} -> {} registers costs resident blocks at {t} threads per block, which a larger dynamic size would not hide",
                before.registers, after.registers
            ));
        }
        return Ok(a.occupancy > b.occupancy || others(&a) > others(&b));
    }
    Ok(a.occupancy > b.occupancy)
}

fn reject(reason: String, before: Option<f64>, after: Option<f64>) -> Verdict {
    Verdict {
        keep: false,
        reason,
        occupancy_before: before,
        occupancy_after: after,
    }
}

/// Applies the never-worse rule to the original's figures `before` and the rewrite's `after`.
pub fn judge(before: &Figures, after: &Figures, ctx: &LaunchContext) -> Verdict {
    judge_with(before, after, ctx, true)
}

/// [`judge`], with the last condition (something improves) only when `need_improvement`: a
/// rewrite whose gain ptxas's figures cannot show (shuffle synthesis saves global loads) is kept
/// when it is no worse.
pub fn judge_with(
    before: &Figures,
    after: &Figures,
    ctx: &LaunchContext,
    need_improvement: bool,
) -> Verdict {
    let (occ_b, occ_a) = (occupancy(ctx, before), occupancy(ctx, after));
    let local = format!(
        "local memory {} B stack + {} B spill -> {} B + {} B",
        before.stack, before.spill, after.stack, after.spill
    );
    if after.stack > before.stack || after.spill > before.spill {
        return reject(format!("{local}: local memory grows"), occ_b, occ_a);
    }
    match after.dynamic(ctx.dynamic) {
        DynamicSmem::Known(d) => {
            if let Some(why) = launch_error(ctx.arch, after.static_smem, d) {
                return reject(format!("the launch would fail: {why}"), occ_b, occ_a);
            }
        }
        DynamicSmem::Unknown if after.extra_dynamic > 0 => {
            return reject(
                "the rewrite adds dynamic shared memory to a launch of unknown size".into(),
                occ_b,
                occ_a,
            );
        }
        DynamicSmem::Unknown if after.static_smem > before.static_smem => {
            return reject(
                format!(
                    "static shared memory {} B -> {} B while the dynamic size is unknown: the launch could exceed its limit",
                    before.static_smem, after.static_smem
                ),
                occ_b,
                occ_a,
            );
        }
        DynamicSmem::Unknown => {}
    }
    let sizes: Vec<u32> = match ctx.threads {
        Some(t) => vec![t],
        // Unknown block size: it must not fall for any size a block may have.
        None => (32..=ctx.arch.max_threads_per_block).step_by(32).collect(),
    };
    let mut occupancy_improves = false;
    for t in sizes {
        match compare_at(before, after, ctx, t) {
            Ok(improves) => occupancy_improves |= improves,
            Err(why) => return reject(why, occ_b, occ_a),
        }
    }
    let local_improves = after.stack < before.stack || after.spill < before.spill;
    let figures = match (occ_b, occ_a) {
        (Some(b), Some(a)) => format!("{local}, occupancy {:.1}% -> {:.1}%", b * 100.0, a * 100.0),
        _ => format!(
            "{local}, registers {} -> {}",
            before.registers, after.registers
        ),
    };
    if need_improvement && !(occupancy_improves || local_improves) {
        return reject(format!("{figures}: nothing improves"), occ_b, occ_a);
    }
    Verdict {
        keep: true,
        reason: figures,
        occupancy_before: occ_b,
        occupancy_after: occ_a,
    }
}

/// The launch's dynamic shared memory for kernel `f`: the caller's figure when given; else 0 for
/// a kernel that (with the functions it calls) never names an unsized `.shared` array, and
/// unknown for one that does.
pub fn dynamic_smem(module: &Module, f: &Function, given: Option<u32>) -> DynamicSmem {
    match given {
        Some(d) => DynamicSmem::Known(d),
        None if reads_dynamic_smem(module, f) => DynamicSmem::Unknown,
        None => DynamicSmem::Known(0),
    }
}

/// Whether `f` or a function it calls (transitively) names a module-scope `.shared` array with
/// an unsized dimension (`.extern .shared .b8 smem[];`, the dynamic shared memory).
pub fn reads_dynamic_smem(module: &Module, f: &Function) -> bool {
    let dynamic: Vec<&str> = module
        .vars()
        .filter(|v| v.space == StateSpace::Shared && v.dims.iter().any(Option::is_none))
        .filter_map(|v| v.name.as_deref())
        .collect();
    if dynamic.is_empty() {
        return false;
    }
    crate::ptx::declared::reachable(module, f)
        .into_iter()
        .any(|g| g.referenced_symbols().iter().any(|n| dynamic.contains(n)))
}

/// What the caller knows of the launches, for [`guard_module`].
#[derive(Clone, Debug, Default)]
pub struct LaunchHints {
    /// Threads per block for kernels without launch bounds.
    pub block_size: Option<u32>,
    /// Dynamic shared memory of every launch, bytes (None: found per kernel, see [`dynamic_smem`]).
    pub dynamic_smem: Option<u32>,
}

/// The guard's answer for one kernel.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KernelGuard {
    /// The kernel.
    pub kernel: String,
    /// The rule's answer (no improvement required: each pass requires its own).
    pub verdict: Verdict,
}

/// Why the guard could not compare.
#[derive(Debug, thiserror::Error)]
pub enum GuardError {
    /// Not an architecture the occupancy calculator knows.
    #[error("{0}")]
    Arch(#[from] occupancy::OccupancyError),
    /// ptxas failed on the original module.
    #[error("ptxas could not assemble the original: {0}")]
    Original(crate::tools::ToolError),
    /// ptxas failed on the rewritten module.
    #[error("ptxas could not assemble the rewrite: {0}")]
    Rewrite(crate::tools::ToolError),
}

/// The never-worse rule over a whole rewrite (the `warpsmith ptxas` drop-in's last step, after
/// every pass): assembles `original` and `rewritten` with `ptxas -v` and the caller's options,
/// and puts back the original of every kernel the rule rejects. Returns one answer per kernel of
/// `rewritten` that differs from the original; an error when either module cannot be measured
/// (the caller then keeps the original whole).
pub fn guard_module(
    original: &Module,
    rewritten: &mut Module,
    arch: &str,
    ptxas_args: &[String],
    hints: &LaunchHints,
) -> Result<Vec<KernelGuard>, GuardError> {
    let limits = occupancy::arch(arch)?;
    let args: Vec<&str> = ptxas_args.iter().map(String::as_str).collect();
    let measure = |m: &Module| crate::tools::ptxas_verbose_source(&print_module(m), arch, &args);
    let before = measure(original).map_err(GuardError::Original)?;
    let after = measure(rewritten).map_err(GuardError::Rewrite)?;
    let mut out = Vec::new();
    for item in rewritten.items.iter_mut() {
        let Item::Function(f) = item else { continue };
        if f.kind != FuncKind::Entry || f.body.is_none() {
            continue;
        }
        let Some(orig) = original
            .functions()
            .find(|g| g.name == f.name && g.body.is_some())
        else {
            continue;
        };
        if orig == f {
            continue;
        }
        let find = |v: &[KernelResources]| v.iter().find(|k| k.name == *f.name).map(Figures::from);
        let verdict = match (find(&before), find(&after)) {
            (Some(b), Some(a)) => {
                let ctx = LaunchContext {
                    arch: limits,
                    threads: orig.block_size_bound().or(hints.block_size),
                    dynamic: dynamic_smem(original, orig, hints.dynamic_smem),
                };
                judge_with(&b, &a, &ctx, false)
            }
            _ => Verdict {
                keep: false,
                reason: "ptxas printed no figures for it".into(),
                occupancy_before: None,
                occupancy_after: None,
            },
        };
        if !verdict.keep {
            *f = orig.clone();
        }
        out.push(KernelGuard {
            kernel: f.name.to_string(),
            verdict,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fig(registers: u32, stack: u32, spill: u32, static_smem: u32) -> Figures {
        Figures {
            registers,
            stack,
            spill,
            static_smem,
            extra_dynamic: 0,
        }
    }

    #[test]
    fn dynamic_shared_memory_a_rewrite_adds_counts_against_the_launch() {
        // sm_90, 128 threads, 255 registers, 147480 B of dynamic shared memory: a frame of
        // 79 888 B added to the dynamic area fits the 227 KiB opt-in at the same occupancy.
        let before = fig(255, 624, 0, 1024);
        let grown = Figures {
            extra_dynamic: 79_888,
            ..fig(255, 0, 0, 1024)
        };
        let c = ctx("sm_90a", Some(128), DynamicSmem::Known(147_480));
        let v = judge(&before, &grown, &c);
        assert!(v.keep, "{}", v.reason);
        // 4 KiB more and the launch would fail.
        let over = Figures {
            extra_dynamic: 79_888 + 4096,
            ..grown
        };
        let v = judge(&before, &over, &c);
        assert!(
            !v.keep && v.reason.contains("launch would fail"),
            "{}",
            v.reason
        );
        // The same bytes cost occupancy where the original's blocks shared an SM.
        let small = ctx("sm_90a", Some(128), DynamicSmem::Known(60_000));
        let v = judge(&fig(255, 624, 0, 1024), &grown, &small);
        assert!(!v.keep && v.reason.contains("occupancy"), "{}", v.reason);
        // A launch of unknown size cannot be grown.
        let v = judge(
            &before,
            &grown,
            &ctx("sm_90a", Some(128), DynamicSmem::Unknown),
        );
        assert!(!v.keep && v.reason.contains("unknown size"), "{}", v.reason);
        assert_eq!(grown.order_key(None).2, 1024 + 79_888);
    }

    fn ctx(arch: &str, threads: Option<u32>, dynamic: DynamicSmem) -> LaunchContext {
        LaunchContext {
            arch: occupancy::arch(arch).unwrap(),
            threads,
            dynamic,
        }
    }

    #[test]
    fn keeps_a_rewrite_that_removes_local_memory() {
        let v = judge(
            &fig(64, 96, 200, 0),
            &fig(64, 0, 0, 4096),
            &ctx("sm_80", Some(256), DynamicSmem::Known(0)),
        );
        assert!(v.keep, "{}", v.reason);
    }

    #[test]
    fn rejects_growing_local_memory_even_at_higher_occupancy() {
        // The attention kernel: fewer registers, more local memory.
        let v = judge(
            &fig(255, 432, 800, 0),
            &fig(168, 1288, 2000, 0),
            &ctx("sm_80", Some(128), DynamicSmem::Known(0)),
        );
        assert!(!v.keep);
        assert!(v.reason.contains("local memory grows"), "{}", v.reason);
    }

    #[test]
    fn rejects_an_illegal_launch_with_dynamic_shared_memory() {
        // 48656 B static + 49152 B dynamic: over the default limit, and D itself does not exceed
        // 48 KiB, so the launcher does not opt in.
        let v = judge(
            &fig(255, 432, 800, 0),
            &fig(168, 0, 0, 48656),
            &ctx("sm_80", Some(128), DynamicSmem::Known(49152)),
        );
        assert!(!v.keep);
        assert!(v.reason.contains("launch would fail"), "{}", v.reason);
    }

    #[test]
    fn launch_limits_follow_the_opt_in_rule() {
        let a80 = occupancy::arch("sm_80").unwrap();
        assert!(launch_error(a80, 0, 48 * 1024).is_none());
        assert!(launch_error(a80, 1, 48 * 1024).is_some());
        // D above 48 KiB: the launcher opts in to 163 KiB on sm_80.
        assert!(launch_error(a80, 4096, 100 * 1024).is_none());
        assert!(launch_error(a80, 48 * 1024, 120 * 1024).is_some());
        let a90 = occupancy::arch("sm_90a").unwrap();
        assert!(launch_error(a90, 40 * 1024, 150 * 1024).is_none());
        // Static shared memory alone may not pass 48 KiB, whatever the opt-in.
        assert!(launch_error(a90, 64 * 1024, 150 * 1024).is_some());
    }

    #[test]
    fn unknown_dynamic_size_forbids_new_static_shared_memory() {
        let v = judge(
            &fig(128, 0, 64, 0),
            &fig(96, 0, 0, 16),
            &ctx("sm_80", Some(128), DynamicSmem::Unknown),
        );
        assert!(!v.keep);
        assert!(v.reason.contains("dynamic size is unknown"), "{}", v.reason);
        // Fewer registers, nothing added: kept (it cannot be worse for any dynamic size).
        let v = judge(
            &fig(128, 0, 0, 0),
            &fig(96, 0, 0, 0),
            &ctx("sm_80", Some(128), DynamicSmem::Unknown),
        );
        assert!(v.keep, "{}", v.reason);
    }

    #[test]
    fn rejects_falling_occupancy_and_no_improvement() {
        // Shared memory added that costs blocks.
        let v = judge(
            &fig(64, 0, 8, 0),
            &fig(64, 0, 0, 40 * 1024),
            &ctx("sm_80", Some(256), DynamicSmem::Known(0)),
        );
        assert!(
            v.keep,
            "less spill at equal occupancy is kept: {}",
            v.reason
        );
        let v = judge(
            &fig(72, 0, 0, 0),
            &fig(64, 0, 0, 40 * 1024),
            &ctx("sm_80", Some(128), DynamicSmem::Known(0)),
        );
        assert!(!v.keep);
        assert!(v.reason.contains("falls"), "{}", v.reason);
        // Same figures: nothing improves.
        let v = judge(
            &fig(64, 0, 0, 0),
            &fig(64, 0, 0, 0),
            &ctx("sm_80", Some(256), DynamicSmem::Known(0)),
        );
        assert!(!v.keep);
        assert!(v.reason.contains("nothing improves"), "{}", v.reason);
    }

    #[test]
    fn unknown_block_size_checks_every_size() {
        // 23 -> 32 registers never costs occupancy on sm_80 (32 registers reach 64 warps).
        let v = judge_with(
            &fig(23, 0, 0, 0),
            &fig(32, 0, 0, 0),
            &ctx("sm_80", None, DynamicSmem::Known(0)),
            false,
        );
        assert!(v.keep, "{}", v.reason);
        // 32 -> 40 does (at 256 threads: 8 -> 6 blocks).
        let v = judge_with(
            &fig(32, 0, 0, 0),
            &fig(40, 0, 0, 0),
            &ctx("sm_80", None, DynamicSmem::Known(0)),
            false,
        );
        assert!(!v.keep);
        assert!(v.reason.contains("falls"), "{}", v.reason);
        // Fewer registers: higher for some size, kept (60 registers allocate as 64 do).
        let v = judge(
            &fig(64, 0, 0, 0),
            &fig(56, 0, 0, 0),
            &ctx("sm_90", None, DynamicSmem::Known(0)),
        );
        assert!(v.keep, "{}", v.reason);
        // 1024 threads at 72 registers cannot launch; the original at 64 can.
        let v = judge(
            &fig(64, 0, 8, 0),
            &fig(72, 0, 0, 0),
            &ctx("sm_90", Some(1024), DynamicSmem::Known(0)),
        );
        assert!(!v.keep);
        assert!(v.reason.contains("cannot be launched"), "{}", v.reason);
    }

    #[test]
    fn ranking_prefers_occupancy_then_local_then_shared() {
        let a = fig(64, 0, 0, 4096);
        let b = fig(64, 0, 8, 0);
        assert!(a.order_key(Some(0.5)) < b.order_key(Some(0.5)));
        assert!(b.order_key(Some(0.75)) < a.order_key(Some(0.5)));
        let c = fig(64, 0, 0, 2048);
        assert!(c.order_key(Some(0.5)) < a.order_key(Some(0.5)));
    }
}
