//! The spilling pass without ptxas (docs/spill.md, step 9): `spill --no-ptxas --occupancy auto`
//! reads the register model where it would read `ptxas -v`. This bench judges what it proposes
//! the way the pass itself would with ptxas: each kernel's original and rewrite are assembled by
//! ptxas and the never-worse rule ([`warpsmith::never_worse::judge`]) says whether the rewrite
//! is better (kept), worse (refused) or unchanged.
//!
//! Run: `cargo bench --bench unchecked_spill -- [--ptx DIR:sm_XX ...] [--nvrtc]`. A `--ptx` DIR
//! holds Triton's PTX as `tests/triton/compile_suite.py` writes it (each `X.ptx` beside an
//! `X.json` whose `shared` is the launch's dynamic shared memory); `--nvrtc` adds the bench
//! kernels compiled by NVRTC for sm_80 and sm_90 (kernels without launch bounds at 256
//! threads; an unknown dynamic size where they declare an `extern .shared` array). Needs ptxas.
//! Prints a Markdown row per kernel the pass rewrote or ptxas judged, and a summary line.

use std::path::Path;

use warpsmith::analysis::occupancy;
use warpsmith::never_worse::{judge, Figures, LaunchContext};
use warpsmith::ptx::{parse_module, print_module};
use warpsmith::spill::{spill_module, SpillOptions, Target};
use warpsmith::tools::{self, Tool};

#[path = "common/mod.rs"]
mod common;

/// Threads per block for kernels without launch bounds.
const BLOCK_SIZE: u32 = 256;

/// The tallies of the never-worse rule's answers.
#[derive(Default)]
struct Tally {
    better: usize,
    worse: usize,
    unchanged: usize,
}

/// Runs the pass without ptxas on the PTX file `path` for `arch` and judges every kernel it
/// touched with ptxas; prints a row per judged kernel.
fn judge_file(path: &Path, arch: &str, dynamic_smem: Option<u32>, tally: &mut Tally) {
    let Ok(text) = std::fs::read_to_string(path) else {
        return;
    };
    let Ok(mut module) = parse_module(&text, &path.display().to_string()) else {
        eprintln!("{}: does not parse", path.display());
        return;
    };
    let Ok(before) = tools::ptxas_verbose_source(&text, arch, &[]) else {
        eprintln!("{}: ptxas refuses the original", path.display());
        return;
    };
    let opts = SpillOptions {
        target: Target::Auto,
        kernel: None,
        arch: arch.into(),
        block_size: Some(BLOCK_SIZE),
        block_dim: None,
        smem_budget: None,
        use_ptxas: false,
        dynamic_smem,
        ptxas_args: Vec::new(),
        jobs: Some(1),
    };
    let Ok(report) = spill_module(&mut module, &opts) else {
        return;
    };
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let rewritten = print_module(&module);
    let after = match tools::ptxas_verbose_source(&rewritten, arch, &[]) {
        Ok(after) => after,
        Err(e) => {
            println!("| {name} | (all) | {arch} | ptxas refuses the rewrite: {e} | | | worse |");
            tally.worse += report.kernels.iter().filter(|k| k.kept).count();
            return;
        }
    };
    let Ok(limits) = occupancy::arch(arch) else {
        return;
    };
    for k in &report.kernels {
        let (Some(b), Some(a)) = (
            before.iter().find(|x| x.name == k.name),
            after.iter().find(|x| x.name == k.name),
        ) else {
            continue;
        };
        let (fb, fa) = (Figures::from(b), Figures::from(a));
        if fb == fa {
            tally.unchanged += 1;
            continue;
        }
        let ctx = LaunchContext {
            arch: limits,
            threads: Some(k.block_size),
            dynamic: k.dynamic_smem,
        };
        let verdict = judge(&fb, &fa, &ctx);
        let answer = if verdict.keep {
            tally.better += 1;
            "better"
        } else {
            tally.worse += 1;
            "worse"
        };
        let predicted = |p: Option<u32>| p.map_or("?".into(), |n| n.to_string());
        println!(
            "| {name} | {} | {arch} | {} → {} | .maxnreg {} | {} → {} regs, {} → {} B local, +{} B shared | {answer}: {} |",
            k.name,
            predicted(k.predicted_registers_before),
            predicted(k.predicted_registers),
            k.max_regs,
            fb.registers,
            fa.registers,
            fb.local_bytes(),
            fa.local_bytes(),
            fa.static_smem.saturating_sub(fb.static_smem),
            verdict.reason
        );
    }
}

/// Triton's dynamic shared memory for `X.ptx`: `shared` in the `X.json` beside it.
fn triton_dynamic_smem(ptx: &Path) -> Option<u32> {
    let meta = std::fs::read_to_string(ptx.with_extension("json")).ok()?;
    let meta: serde_json::Value = serde_json::from_str(&meta).ok()?;
    meta["shared"].as_u64().and_then(|s| u32::try_from(s).ok())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if tools::find(Tool::Ptxas).is_err() {
        eprintln!("SKIPPED: ptxas not found");
        return;
    }
    println!("| file | kernel | arch | model: before → rewrite | cap | ptxas | never-worse rule |");
    println!("|---|---|---|---|---|---|---|");
    let mut tally = Tally::default();
    for (dir, arch) in common::folders(&args, "--ptx") {
        for p in common::files_with_ext(&dir, "ptx") {
            let dynamic = triton_dynamic_smem(&p);
            judge_file(&p, &arch, dynamic, &mut tally);
        }
    }
    if args.iter().any(|a| a == "--nvrtc") {
        for (p, arch) in common::nvrtc_ptx().unwrap_or_default() {
            judge_file(&p, arch, None, &mut tally);
        }
    }
    println!(
        "\n{} kernels judged by ptxas: {} better, {} worse, {} unchanged",
        tally.better + tally.worse + tally.unchanged,
        tally.better,
        tally.worse,
        tally.unchanged
    );
}
