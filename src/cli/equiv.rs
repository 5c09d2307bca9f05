//! `warpsmith equiv`: runs two kernels — PTX files or cubins, in any mix — on identical inputs
//! and compares every output byte.
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

use super::{
    emulate::{is_cubin, load_spec},
    load_ptx, CliError,
};

/// Prints a verdict; the exit status.
fn print_verdict(verdict: &Verdict, b: &Path) -> Option<ExitCode> {
    match verdict {
        Verdict::Equal => None,
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
            Some(ExitCode::from(1))
        }
        Verdict::SecondFailed { seed, error } => {
            say!("DIFFERENT: seed {seed}: {} failed: {error}", b.display());
            Some(ExitCode::from(1))
        }
    }
}

/// What `warpsmith equiv` was asked.
pub struct Request<'p> {
    /// The reference kernel.
    pub a: &'p Path,
    /// The kernel compared with it.
    pub b: &'p Path,
    /// The launch spec.
    pub launch: &'p Path,
    /// Input sets.
    pub seeds: u64,
    /// B's own dynamic shared-memory size (`--b-dynamic-smem`).
    pub b_dynamic_smem: Option<u64>,
}

/// A `.ptx`/`.cubin` mix (or any pair launched with different dynamic sizes): the PTX emulator
/// for PTX, the SASS emulator for cubins.
fn run_mixed(req: &Request) -> Result<ExitCode, CliError> {
    use warpsmith::sass::emu::equiv as sequiv;
    let (a, b, launch, seeds) = (req.a, req.b, req.launch, req.seeds);
    let sa = sequiv::load(a).map_err(|e| CliError::Emu(e.to_string()))?;
    let sb = sequiv::load(b).map_err(|e| CliError::Emu(e.to_string()))?;
    let spec = load_spec(launch)?;
    let mut spec_b = spec.clone();
    if let Some(bytes) = req.b_dynamic_smem {
        spec_b.dynamic_smem = bytes;
    }
    let (fa, fb) = (a.display().to_string(), b.display().to_string());
    let rep = sequiv::check_launches(
        (&sa, &spec),
        (&sb, &spec_b),
        seeds,
        (&fa, &fb),
        Default::default(),
    )
    .map_err(|e| CliError::Emu(e.to_string()))?;
    if let Some(code) = print_verdict(&rep.verdict, b) {
        return Ok(code);
    }
    say!(
        "equivalent: {} seed(s), kernel {}: {} and {} lane-instructions",
        rep.seeds_run,
        spec.kernel,
        rep.lane_insts.0,
        rep.lane_insts.1
    );
    Ok(ExitCode::SUCCESS)
}

/// Runs the command.
pub fn run(req: &Request) -> Result<ExitCode, CliError> {
    let (a, b, launch, seeds) = (req.a, req.b, req.launch, req.seeds);
    if is_cubin(a) || is_cubin(b) || req.b_dynamic_smem.is_some() {
        return run_mixed(req);
    }
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
        v => Ok(print_verdict(v, b).unwrap_or(ExitCode::from(1))),
    }
}
