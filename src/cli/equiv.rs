//! `warpsmith equiv`: runs two PTX files on identical inputs and compares every output byte.
//! Exit status 0 when equal, 1 when not (the first difference is printed), 2 on error.

use std::path::Path;
use std::process::ExitCode;

use warpsmith::emu::equiv::{check_with, EquivOptions, Verdict};

/// Prints a line to standard output; a closed pipe is not an error worth a panic.
macro_rules! say {
    ($($t:tt)*) => {{
        use std::io::Write;
        let _ = writeln!(std::io::stdout().lock(), $($t)*);
    }};
}

use super::{emulate::load_spec, load_ptx, CliError};

/// Runs the command.
pub fn run(a: &Path, b: &Path, launch: &Path, seeds: u64) -> Result<ExitCode, CliError> {
    let ma = load_ptx(a)?;
    let mb = load_ptx(b)?;
    let spec = load_spec(launch)?;
    let opts = EquivOptions {
        file_a: a.display().to_string(),
        file_b: b.display().to_string(),
        ..EquivOptions::default()
    };
    let report =
        check_with(&ma, &mb, &spec, seeds, &opts).map_err(|e| CliError::Emu(e.to_string()))?;
    match &report.verdict {
        Verdict::Equal => {
            say!(
                "equivalent: {} seed(s), kernel {}: {} and {} lane-instructions",
                report.seeds_run,
                spec.kernel,
                report.stats_a.lane_insts,
                report.stats_b.lane_insts
            );
            Ok(ExitCode::SUCCESS)
        }
        Verdict::Differ(d) => {
            say!(
                "DIFFERENT: seed {}: {} element {} (byte {}): {} vs {} ({} element(s) differ)",
                d.seed,
                d.buffer,
                d.index,
                d.byte_offset,
                d.a,
                d.b,
                d.count
            );
            Ok(ExitCode::from(1))
        }
        Verdict::SecondFailed { seed, error } => {
            say!("DIFFERENT: seed {seed}: {} failed: {error}", b.display());
            Ok(ExitCode::from(1))
        }
    }
}
