//! `warpsmith spill`: shared-memory spilling on a PTX file.

use std::path::Path;
use std::process::ExitCode;

use warpsmith::ptx::print_module;
use warpsmith::spill::{spill_module, SpillOptions, SpillReport};

use super::{emit, load_ptx, write_json_report, CliError};

/// Runs the command.
pub fn run(
    input: &Path,
    output: &Path,
    opts: &SpillOptions,
    report: Option<&Path>,
) -> Result<ExitCode, CliError> {
    let mut module = load_ptx(input)?;
    let r = spill_module(&mut module, opts).map_err(|e| CliError::Spill(e.to_string()))?;
    summary(&r);
    if let Some(p) = report {
        write_json_report(p, &r)?;
    }
    emit(Some(output), &print_module(&module))?;
    Ok(ExitCode::SUCCESS)
}

fn summary(r: &SpillReport) {
    for k in &r.kernels {
        if !k.kept {
            eprintln!("{}: left as it was: {}", k.name, k.verdict);
            for a in &k.attempts {
                eprintln!(
                    "  tried .maxnreg {}: {} demoted, +{} B shared memory: {}",
                    a.max_regs, a.demoted, a.smem_bytes, a.reason
                );
            }
            for n in k.notes.iter().skip(1) {
                eprintln!("  note: {n}");
            }
            continue;
        }
        let mut rules = std::collections::BTreeMap::<&str, usize>::new();
        for d in &k.demoted {
            *rules.entry(d.rule.as_str()).or_default() += 1;
        }
        let rules: Vec<String> = rules.iter().map(|(r, n)| format!("{n} {r}")).collect();
        eprintln!(
            "{}: .maxnreg {} (block {}), pressure {} -> {} units, {} demoted ({}), +{} B shared memory, occupancy {:.0}% -> {:.0}%",
            k.name,
            k.max_regs,
            k.block_size,
            k.pressure_before,
            k.pressure_after,
            k.demoted.len(),
            if rules.is_empty() { "-".to_string() } else { rules.join(", ") },
            k.smem_bytes,
            k.occupancy_before * 100.0,
            k.occupancy_after * 100.0
        );
        match (k.ptxas_registers, k.ptxas_local_bytes) {
            (Some(regs), Some(0)) => eprintln!("  ptxas: {regs} registers, no local memory"),
            (Some(regs), Some(b)) => eprintln!(
                "  ptxas: {regs} registers, still {b} bytes of local memory (spills + stack)"
            ),
            _ => eprintln!("  ptxas: not checked"),
        }
        for n in &k.not_demoted {
            eprintln!("  not demoted: {n}");
        }
        if k.attempts.len() > 1 {
            for a in &k.attempts {
                eprintln!(
                    "  tried .maxnreg {}: {} ({})",
                    a.max_regs,
                    if a.kept { "acceptable" } else { "rejected" },
                    a.reason
                );
            }
        }
        eprintln!("  never-worse: {}", k.verdict);
        for c in &k.choices {
            eprintln!("  chose: {c}");
        }
        for n in &k.notes {
            eprintln!("  partial: {n}");
        }
    }
}
