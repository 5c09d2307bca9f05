//! `warpsmith shuffle`: shuffle synthesis on a PTX file (PTXASW, CC'23; docs/shuffle.md).

use std::path::Path;
use std::process::ExitCode;

use warpsmith::ptx::print_module;
use warpsmith::shuffle::{shuffle_module, Mode, ShuffleOptions, ShuffleReport};

use super::{emit, load_ptx, write_json_report, CliError};

/// Parses `--mode`.
pub fn parse_mode(s: &str) -> Result<Mode, String> {
    match s {
        "full" => Ok(Mode::Full),
        "no-load" => Ok(Mode::NoLoad),
        "no-corner" => Ok(Mode::NoCorner),
        other => Err(format!("unknown mode `{other}` (full, no-load, no-corner)")),
    }
}

/// Runs the command.
pub fn run(
    input: &Path,
    output: &Path,
    opts: &ShuffleOptions,
    report: Option<&Path>,
) -> Result<ExitCode, CliError> {
    let mut module = load_ptx(input)?;
    if opts.mode != Mode::Full {
        log::warn!(
            "--mode {}: the output is NOT correct (measurement only: {})",
            match opts.mode {
                Mode::NoLoad => "no-load",
                _ => "no-corner",
            },
            match opts.mode {
                Mode::NoLoad => "the fallback loads of the corner cases are removed",
                _ => "shuffles without any corner-case check or fallback load",
            }
        );
    }
    let r = shuffle_module(&mut module, opts).map_err(|e| CliError::Shuffle(e.to_string()))?;
    summary(input, &r);
    if let Some(p) = report {
        write_json_report(p, &r)?;
    }
    emit(Some(output), &print_module(&module))?;
    Ok(ExitCode::SUCCESS)
}

fn summary(input: &Path, r: &ShuffleReport) {
    for k in &r.kernels {
        let avg = if k.deltas.is_empty() {
            "-".to_string()
        } else {
            let s: f64 = k.deltas.iter().map(|d| f64::from(d.unsigned_abs())).sum();
            format!("{:.2}", s / k.deltas.len() as f64)
        };
        eprintln!(
            "{}: {} of {} global loads replaced by shuffles (average |delta| {avg}), {} paths, {} Z3 queries, {:.1} ms",
            k.name, k.shuffles, k.loads, k.paths, k.queries, k.analysis_ms
        );
        if k.cross_iteration > 0 || k.checked > 0 {
            eprintln!(
                "  {} reuse{} a value of the previous loop iteration; {} compare{} the source lane's \
                 address at run time",
                k.cross_iteration,
                if k.cross_iteration == 1 { "s" } else { "" },
                k.checked,
                if k.checked == 1 { "s" } else { "" }
            );
        }
        if let Some(why) = &k.skipped {
            eprintln!("  left unchanged: {why}");
        }
        for n in &k.notes {
            eprintln!("  note: {n}");
        }
        for rej in &k.rejected {
            eprintln!(
                "  {}:{}: not replaced: {}",
                input.display(),
                rej.load.trim_start_matches("line "),
                rej.why
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes() {
        assert_eq!(parse_mode("full"), Ok(Mode::Full));
        assert_eq!(parse_mode("no-load"), Ok(Mode::NoLoad));
        assert_eq!(parse_mode("no-corner"), Ok(Mode::NoCorner));
        assert!(parse_mode("fast").is_err());
    }
}
