//! NVIDIA's baseline for register-capped kernels, measured with `ptxas -v`: for each register-heavy
//! kernel of `bench/kernels/heavy.cu` and each occupancy cliff below its natural register use, what
//! ptxas does at `.maxnreg N` alone (local-memory spilling) and with `.pragma
//! "enable_smem_spilling"` at the same N (spilling to shared memory first). warpsmith's own
//! shared-memory spilling is measured against this table (docs/benchmarks.md).
//!
//! Run: `cargo bench --bench spill_baseline` (needs clang-22 and ptxas; `-- --arch sm_90` for
//! another target). Prints a Markdown table.
//!
//! The cliffs come from warpsmith's occupancy calculator for the kernel's launch bounds and
//! shared memory (static, plus the dynamic size the kernel is launched with, listed below). The
//! pragma needs PTX ISA 8.7, so that variant raises `.version` to 8.7; ptxas refuses it for kernels
//! with dynamic shared memory, which the table shows.
//!
//! The last three columns are warpsmith's SASS demoter (issue 16), figures read from the output
//! cubin, each kept only when the never-worse rule keeps it: ptxas's `.maxnreg N` cubin with its
//! local-memory frame moved to shared memory by `demote --local-to-shared`; "both", warpsmith's
//! spill at N with whatever frame ptxas still gives it moved the same way; and register demotion,
//! ptxas alone's cubin brought to N registers by `demote --max-regs N` (without the time
//! prediction the CLI adds: this table compares resources; speed is in docs/gpu.md).

use warpsmith::analysis::occupancy::{arch, cliffs, occupancy, LaunchResources};
use warpsmith::ptx::{parse_module, print_module, Module};
use warpsmith::sass::demote::{demote, DemoteOptions, RegisterTarget};
use warpsmith::spill::{spill_module, SpillOptions, Target};
use warpsmith::tools::{self, KernelResources, Tool};

/// Dynamic shared memory each kernel is launched with (bytes): the tiles it indexes.
const DYNAMIC_SMEM: &[(&str, u32)] = &[
    ("heavy_sgemm_8x8_dynsmem", 2 * 8 * 128 * 4),
    ("heavy_stencil33_dynsmem", (1024 + 32) * 4),
];

/// `.maxnreg n` (and the pragma) on `kernel`, printed ([`warpsmith::tune::variants::with_cap`]).
fn with_cap(m: &Module, kernel: &str, n: u32, pragma: bool) -> String {
    print_module(&warpsmith::tune::variants::with_cap(m, kernel, n, pragma))
}

fn figures(text: &str, sm: &str, kernel: &str) -> Result<KernelResources, String> {
    match tools::ptxas_verbose_source(text, sm, &[]) {
        Ok(v) => v
            .into_iter()
            .find(|k| k.name == kernel)
            .ok_or_else(|| "no figures".to_string()),
        Err(tools::ToolError::Failed { stderr, .. }) => {
            let line = stderr
                .lines()
                .find(|l| l.contains("error") || l.contains("fatal"))
                .unwrap_or("ptxas failed");
            let msg = line.rsplit(" : ").next().unwrap_or(line).trim();
            Err(format!("refused: {msg}"))
        }
        // ptxas 12.9 sometimes prints negative spill byte counts with the pragma.
        Err(e) => Err(format!(
            "unreadable `ptxas -v` output ({})",
            e.to_string().rsplit(": ").next().unwrap_or("").trim()
        )),
    }
}

/// `warpsmith spill --max-regs n` on `kernel` of `module`: the rewritten module and the report.
fn spill_at(
    module: &Module,
    kernel: &str,
    n: u32,
    sm: &str,
    dynamic_smem: u32,
) -> Result<(Module, warpsmith::spill::SpillReport), String> {
    let mut m = module.clone();
    let opts = SpillOptions {
        target: Target::MaxRegs(n),
        kernel: Some(kernel.to_string()),
        arch: sm.to_string(),
        block_size: None,
        block_dim: None,
        smem_budget: None,
        use_ptxas: true,
        dynamic_smem: Some(dynamic_smem),
        ptxas_args: Vec::new(),
        jobs: None,
    };
    let report = spill_module(&mut m, &opts).map_err(|e| format!("refused: {e}"))?;
    Ok((m, report))
}

/// warpsmith's spilling at `.maxnreg n` for `kernel`, then `ptxas -v` (the shared-memory figure
/// includes the spill area).
fn warpsmith_at(
    module: &Module,
    kernel: &str,
    n: u32,
    sm: &str,
    dynamic_smem: u32,
) -> Result<KernelResources, String> {
    let (m, report) = spill_at(module, kernel, n, sm, dynamic_smem)?;
    if std::env::args().any(|a| a == "--verbose") {
        for k in &report.kernels {
            eprintln!(
                "{} at {n}: {} B, demoted {:?}, notes {:?}",
                k.name,
                k.smem_bytes,
                k.demoted
                    .iter()
                    .map(|d| format!("{} {} {} {}/{}", d.reg, d.class, d.rule, d.loads, d.stores))
                    .collect::<Vec<_>>(),
                k.notes
            );
        }
    }
    // The never-worse rule keeps the original when the rewrite at N does not beat it: that is
    // what a user gets, but not a figure at N.
    if let Some(k) = report.kernels.iter().find(|k| !k.kept) {
        let why = k.verdict.rsplit(": ").next().unwrap_or(&k.verdict);
        return Err(format!("left as it was ({why})"));
    }
    figures(&print_module(&m), sm, kernel)
}

/// warpsmith's spilling at `.maxnreg n` (as [`warpsmith_at`]), then `demote --local-to-shared`
/// on its cubin.
fn both_at(
    module: &Module,
    kernel: &str,
    n: u32,
    sm: &str,
    dynamic_smem: u32,
) -> Result<KernelResources, String> {
    let (m, report) = spill_at(module, kernel, n, sm, dynamic_smem)?;
    if report.kernels.iter().any(|k| !k.kept) {
        return Err("left as it was (spill)".into());
    }
    frame_to_shared(&print_module(&m), kernel, sm, dynamic_smem)
}

/// ptxas alone's cubin with registers demoted to `n` (`demote --max-regs n`).
fn regdem_at(
    module: &Module,
    kernel: &str,
    n: u32,
    sm: &str,
    dynamic_smem: u32,
) -> Result<KernelResources, String> {
    let tools::Assembled { cubin, resources } =
        tools::ptxas_assemble_source(&print_module(module), sm, &[])
            .map_err(|e| format!("refused: {e}"))?;
    let plain = resources
        .into_iter()
        .find(|k| k.name == kernel)
        .ok_or("no figures")?;
    let opts = DemoteOptions {
        kernel: Some(kernel.to_string()),
        dynamic_smem: Some(dynamic_smem),
        registers: Some(RegisterTarget::MaxRegs(n)),
        ..DemoteOptions::default()
    };
    demoted_figures(&cubin, plain, &opts)
}

/// ptxas at `.maxnreg n`, then `demote --local-to-shared` on its cubin.
fn demote_at(
    module: &Module,
    kernel: &str,
    n: u32,
    sm: &str,
    dynamic_smem: u32,
) -> Result<KernelResources, String> {
    frame_to_shared(
        &with_cap(module, kernel, n, false),
        kernel,
        sm,
        dynamic_smem,
    )
}

/// `ptx` assembled, then `demote --local-to-shared` on its cubin where it has a frame: the
/// figures of the kept output (local memory from the cubin's stack attributes, shared memory from
/// `.nv.shared`).
fn frame_to_shared(
    ptx: &str,
    kernel: &str,
    sm: &str,
    dynamic_smem: u32,
) -> Result<KernelResources, String> {
    let tools::Assembled { cubin, resources } =
        tools::ptxas_assemble_source(ptx, sm, &[]).map_err(|e| format!("refused: {e}"))?;
    let plain = resources
        .into_iter()
        .find(|k| k.name == kernel)
        .ok_or("no figures")?;
    if plain.stack_frame + plain.spill_stores + plain.spill_loads == 0 {
        return Ok(plain);
    }
    let opts = DemoteOptions {
        kernel: Some(kernel.to_string()),
        dynamic_smem: Some(dynamic_smem),
        ..DemoteOptions::default()
    };
    demoted_figures(&cubin, plain, &opts)
}

/// `demote` with `opts` on `cubin` (whose kernel ptxas measured as `plain`): the kept output's
/// figures, or why it was left as it was.
fn demoted_figures(
    cubin: &[u8],
    plain: KernelResources,
    opts: &DemoteOptions,
) -> Result<KernelResources, String> {
    let out = demote(cubin, opts).map_err(|e| format!("refused: {e}"))?;
    let k = &out.kernels[0];
    match &k.after {
        Some(a) if k.demoted => Ok(KernelResources {
            registers: a.registers,
            stack_frame: a.local_bytes,
            spill_stores: 0,
            spill_loads: 0,
            shared: a.static_smem,
            ..plain
        }),
        _ => Err(format!(
            "left as it was ({})",
            k.reason.rsplit(": ").next().unwrap_or(&k.reason)
        )),
    }
}

/// One table cell: local-memory figures, shared memory, and the occupancy that shared memory allows.
fn cell(
    r: &Result<KernelResources, String>,
    a: &'static warpsmith::analysis::occupancy::ArchLimits,
    threads: u32,
    dynamic: u32,
) -> String {
    match r {
        Ok(k) => {
            let local = k.spill_stores + k.spill_loads + k.stack_frame;
            let occ = occupancy(
                a,
                &LaunchResources {
                    regs_per_thread: k.registers,
                    threads_per_block: threads,
                    static_smem: k.shared,
                    dynamic_smem: dynamic,
                    carveout_kib: None,
                },
            )
            .map_or("-".to_string(), |o| format!("{:.0}%", o.occupancy * 100.0));
            if local == 0 {
                format!("**no local**; smem {} B; occ. {occ}", k.shared)
            } else {
                format!(
                    "spill {}/{} B, stack {} B; smem {} B; occ. {occ}",
                    k.spill_stores, k.spill_loads, k.stack_frame, k.shared
                )
            }
        }
        Err(e) => e.clone(),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let sm = args
        .iter()
        .position(|a| a == "--arch")
        .and_then(|i| args.get(i + 1))
        .cloned()
        .unwrap_or_else(|| "sm_80".into());
    // `--only KERNEL` and `--cap N` restrict the table (for quick measurements).
    let only = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1))
        .cloned();
    let only_cap: Option<u32> = args
        .iter()
        .position(|a| a == "--cap")
        .and_then(|i| args.get(i + 1))
        .and_then(|s| s.parse().ok());
    let (Ok(clang), Ok(_)) = (tools::find(Tool::Clang), tools::find(Tool::Ptxas)) else {
        eprintln!("SKIPPED: clang-22 or ptxas not found (run scripts/setup.sh)");
        return;
    };
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("bench/kernels/heavy.cu");
    let text = tools::cuda::cuda_to_ptx(&clang, &src, &sm, "O3").expect("clang compiles heavy.cu");
    let module = parse_module(&text, "heavy.ptx").expect("clang's PTX parses");
    let natural = tools::ptxas_verbose_source(&text, &sm, &[]).expect("ptxas accepts clang's PTX");
    let a = arch(&sm).expect("known architecture");

    println!("Baseline on {sm} (ptxas 12.9, `ptxas -v`); N = the register cap of an occupancy cliff below the kernel's natural use.\n");
    println!("Cells: spill stores/loads and stack frame (local memory, bytes per thread), static shared memory per block, and the occupancy those registers and that shared memory allow.\n");
    println!("| kernel | natural | N | occupancy at N | ptxas `.maxnreg N` | + `enable_smem_spilling` | warpsmith `spill --max-regs N` | ptxas `.maxnreg N` + warpsmith `demote --local-to-shared` | both: spill, then `demote --local-to-shared` | ptxas alone + warpsmith `demote --max-regs N` |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    let (mut cases, mut local_plain, mut local_pragma, mut refused) = (0, 0, 0, 0);
    let (mut ours_no_local, mut ours_only, mut both_clean, mut smem_not_larger) = (0, 0, 0, 0);
    let mut ours_left = 0usize;
    let (mut demote_clean, mut demote_vs_pragma) = (0usize, Vec::new());
    let (mut both_clean_count, mut regdem_kept) = (0usize, 0usize);
    // ptxas runs and seconds of the warpsmith column (its searches, its never-worse check).
    let mut spill_cost = (0u64, 0f64);
    for f in module.functions().filter(|f| f.body.is_some()) {
        let Some(nat) = natural.iter().find(|k| k.name == *f.name) else {
            continue;
        };
        if only.as_deref().is_some_and(|o| o != &*f.name) {
            continue;
        }
        let threads = f.block_size_bound().unwrap_or(1024);
        let dynamic = DYNAMIC_SMEM
            .iter()
            .find(|(k, _)| *k == &*f.name)
            .map_or(0, |(_, b)| *b);
        let r = LaunchResources {
            regs_per_thread: nat.registers,
            threads_per_block: threads,
            static_smem: nat.shared,
            dynamic_smem: dynamic,
            carveout_kib: None,
        };
        let Ok(steps) = cliffs(a, &r) else { continue };
        for c in steps
            .iter()
            .filter(|c| c.max_regs < nat.registers && only_cap.is_none_or(|n| n == c.max_regs))
        {
            let n = c.max_regs;
            let plain = figures(&with_cap(&module, &f.name, n, false), &sm, &f.name);
            let pragma = figures(&with_cap(&module, &f.name, n, true), &sm, &f.name);
            let (runs, started) = (tools::ptxas_runs(), std::time::Instant::now());
            let ours = warpsmith_at(&module, &f.name, n, &sm, dynamic);
            spill_cost.0 += tools::ptxas_runs() - runs;
            spill_cost.1 += started.elapsed().as_secs_f64();
            let demoted = demote_at(&module, &f.name, n, &sm, dynamic);
            let both = both_at(&module, &f.name, n, &sm, dynamic);
            let regdem = regdem_at(&module, &f.name, n, &sm, dynamic);
            cases += 1;
            let has_local = |r: &Result<KernelResources, String>| {
                r.as_ref()
                    .is_ok_and(|k| k.spill_stores + k.spill_loads + k.stack_frame > 0)
            };
            local_plain += usize::from(has_local(&plain));
            local_pragma += usize::from(has_local(&pragma));
            refused += usize::from(pragma.as_ref().is_err_and(|e| e.starts_with("refused")));
            let ours_clean = !has_local(&ours) && ours.is_ok();
            ours_no_local += usize::from(ours_clean);
            ours_left += usize::from(
                ours.as_ref()
                    .is_err_and(|e| e.starts_with("left as it was")),
            );
            if ours_clean && (has_local(&pragma) || pragma.is_err()) {
                ours_only += 1;
            }
            if let (true, Ok(p), Ok(o)) = (ours_clean && !has_local(&pragma), &pragma, &ours) {
                both_clean += 1;
                smem_not_larger += usize::from(o.shared <= p.shared);
            }
            println!(
                "| {} | {} regs{} | {n} | {:.0}% ({} blocks × {} threads) | {} | {} | {} | {} | {} | {} |",
                f.name,
                nat.registers,
                if dynamic > 0 {
                    format!(", {dynamic} B dynamic smem")
                } else {
                    String::new()
                },
                c.occupancy * 100.0,
                c.blocks_per_sm,
                threads,
                cell(&plain, a, threads, dynamic),
                cell(&pragma, a, threads, dynamic),
                cell(&ours, a, threads, dynamic),
                cell(&demoted, a, threads, dynamic),
                cell(&both, a, threads, dynamic),
                cell(&regdem, a, threads, dynamic)
            );
            both_clean_count += usize::from(!has_local(&both) && both.is_ok());
            regdem_kept += usize::from(regdem.is_ok());
            demote_clean += usize::from(!has_local(&demoted) && demoted.is_ok());
            if let (true, Ok(p), Ok(d)) = (
                !has_local(&demoted) && !has_local(&pragma) && demoted.is_ok(),
                &pragma,
                &demoted,
            ) {
                demote_vs_pragma.push((p.shared, d.shared));
            }
        }
    }
    println!("\n{cases} capped configurations: ptxas alone uses local memory in {local_plain}; with enable_smem_spilling in {local_pragma}, and refuses the pragma in {refused}.");
    println!("warpsmith keeps a rewrite in {} of {cases} and leaves the kernel as it was (never worse) in {ours_left}.", cases - ours_left);
    println!("warpsmith avoids local memory in {ours_no_local} of {cases}; in {ours_only} of them the pragma leaves local memory or is refused; where both avoid it ({both_clean}), warpsmith's shared memory is no larger in {smem_not_larger}.");
    println!(
        "ptxas + demote avoids local memory in {demote_clean} of {cases}; where it and the pragma both do ({}), its shared memory is no larger in {}.",
        demote_vs_pragma.len(),
        demote_vs_pragma.iter().filter(|(p, d)| d <= p).count()
    );
    println!("spill then demote avoids local memory in {both_clean_count} of {cases}; register demotion reaches N (with no local memory, occupancy not lower) in {regdem_kept} of {cases}.");
    println!(
        "warpsmith `spill --max-regs N` ran ptxas {} times in {:.0} s over the {cases} configurations ({} in flight at most).",
        spill_cost.0,
        spill_cost.1,
        warpsmith::spill::jobs_or_default(None)
    );
}
