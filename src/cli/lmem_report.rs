//! `warpsmith lmem-report`: per kernel of one or more cubins, local memory per thread, the
//! instructions and source lines that use it, and (with a launch spec) what a launch does with
//! it (src/sass/lmem.rs). Two cubins side by side give the before/after of `demote`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use warpsmith::sass::lmem::{report, KernelLocal};

use super::{emit, emulate::load_spec, write_json_report, CliError};

/// Most source lines printed per kernel.
const TOP_LINES: usize = 10;

fn render(file: &Path, kernels: &[KernelLocal], out: &mut String) {
    for k in kernels {
        let _ = writeln!(out, "{}: {}", file.display(), k.kernel);
        let pct = |n: usize| 100.0 * n as f64 / k.instructions.max(1) as f64;
        let _ = writeln!(out, "  local memory per thread: {} B", k.local_bytes);
        let _ = writeln!(
            out,
            "  instructions touching local memory: {} of {} ({:.1}%){}",
            k.local_instructions,
            k.instructions,
            pct(k.local_instructions),
            k.spill_instructions.map_or(String::new(), |s| format!(
                ", {s} tagged as spills by ptxas"
            ))
        );
        if k.local_instructions > 0 && !k.has_line_info {
            let _ = writeln!(
                out,
                "  source lines: none in the cubin (assemble with -lineinfo)"
            );
        }
        for l in k.lines.iter().take(TOP_LINES) {
            let _ = writeln!(
                out,
                "    {}:{}: {} stores, {} loads{}",
                l.file,
                l.line,
                l.stores,
                l.loads,
                if l.spills > 0 {
                    format!(" ({} spill code)", l.spills)
                } else {
                    String::new()
                }
            );
        }
        if k.lines.len() > TOP_LINES {
            let _ = writeln!(out, "    … {} more lines", k.lines.len() - TOP_LINES);
        }
        if let Some(d) = &k.dynamic {
            let _ = writeln!(
                out,
                "  launch: {} local requests in {} warp instructions ({:.2}%), {} B, {} transactions",
                d.requests,
                d.warp_instructions,
                d.share * 100.0,
                d.bytes,
                d.transactions
            );
        }
    }
}

/// Runs the command on `inputs` (one report each, in order).
pub fn run(
    inputs: &[PathBuf],
    kernel: Option<&str>,
    launch: Option<&Path>,
    json: Option<&Path>,
) -> Result<ExitCode, CliError> {
    let spec = launch.map(load_spec).transpose()?;
    let mut text = String::new();
    let mut all = Vec::new();
    for input in inputs {
        let bytes = std::fs::read(input).map_err(|e| CliError::Read {
            path: input.clone(),
            source: e,
        })?;
        let kernels = report(&bytes, kernel, spec.as_ref())
            .map_err(|e| CliError::Sass(warpsmith::sass::SassError::Lmem(e)))?;
        if kernels.is_empty() {
            if let Some(k) = kernel {
                return Err(CliError::Emu(format!(
                    "{}: no kernel `{k}`",
                    input.display()
                )));
            }
        }
        render(input, &kernels, &mut text);
        all.push(serde_json::json!({"cubin": input.display().to_string(), "kernels": kernels}));
    }
    emit(None, &text)?;
    if let Some(j) = json {
        write_json_report(j, &all)?;
    }
    Ok(ExitCode::SUCCESS)
}
