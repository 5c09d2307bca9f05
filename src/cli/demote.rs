//! `warpsmith demote`: the SASS-level demoter (issue 16): `--local-to-shared` moves ptxas's
//! local-memory frame into shared memory, `--max-regs N` / `--occupancy auto` demote registers
//! (src/sass/demote).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use warpsmith::sass::demote::{demote, DemoteOptions, KernelReport};

use super::{emulate::load_spec, write_json_report, CliError};

/// Prints a line to standard output; a closed pipe is not an error worth a panic.
macro_rules! say {
    ($($t:tt)*) => {{
        use std::io::Write;
        let _ = writeln!(std::io::stdout().lock(), $($t)*);
    }};
}

/// The command line of `demote`.
pub struct Args<'a> {
    /// Input cubin.
    pub input: &'a Path,
    /// Output cubin.
    pub output: &'a Path,
    /// Options for the library.
    pub options: DemoteOptions,
    /// Launch specs to prove the rewrite on.
    pub verify: &'a [PathBuf],
    /// The launch to predict register demotion's time on.
    pub launch: Option<&'a Path>,
    /// JSON report.
    pub report: Option<&'a Path>,
}

fn summary(k: &KernelReport) -> String {
    let b = &k.before;
    let occ = |o: Option<f64>| o.map_or("?".to_string(), |o| format!("{:.1}%", o * 100.0));
    match (&k.after, k.demoted) {
        (Some(a), true) if !k.registers_demoted.is_empty() => format!(
            "{}: {}; demoted {}; local {} -> {} B, static shared {} -> {} B{}",
            k.kernel,
            k.reason.split(';').next().unwrap_or(""),
            k.registers_demoted.join(" "),
            b.local_bytes,
            a.local_bytes,
            b.static_smem,
            a.static_smem,
            occupancy_line(k)
        ),
        (Some(a), true) => format!(
            "{}: demoted {} accesses; local {} -> {} B, static shared {} -> {} B, occupancy {} -> {}{}",
            k.kernel,
            k.accesses,
            b.local_bytes,
            a.local_bytes,
            b.static_smem,
            a.static_smem,
            occ(k.occupancy.0),
            occ(k.occupancy.1),
            if k.bound_added {
                format!(" (blocks now limited to {} threads)", k.threads.unwrap_or(0))
            } else {
                String::new()
            }
        ) + &grown_launch(k, a.dynamic_added),
        _ => format!("{}: unchanged: {}", k.kernel, k.reason),
    }
}

/// `--grow-dynamic`: the dynamic size every launch must give now.
fn grown_launch(k: &KernelReport, added: u32) -> String {
    if added == 0 {
        return String::new();
    }
    format!(
        "; the region is the last {added} B of the dynamic shared memory: launch with {} B \
         (--dynamic-smem {} + {added})",
        k.dynamic_smem.unwrap_or(0) as u64 + u64::from(added),
        k.dynamic_smem.unwrap_or(0)
    )
}

fn occupancy_line(k: &KernelReport) -> String {
    let mut s = match k.occupancy {
        (Some(b), Some(a)) => format!(", occupancy {:.1}% -> {:.1}%", b * 100.0, a * 100.0),
        _ => String::new(),
    };
    if let Some((b, a)) = k.predicted_us {
        s += &format!(", predicted {b:.2} µs -> {a:.2} µs");
    }
    s
}

/// Said at run time wherever register demotion ran: what the GPU measured so far.
const REGISTER_DEMOTION_NOTE: &str = "warpsmith demote: note: register demotion is new: on an \
     H100 no demoted kernel has yet measured faster than ptxas's own build (22 variants of 9 \
     kernels, with and without the scheduler: docs/gpu.md); the default cycle-level gate \
     predicted all but one of them slower, the analytic one over-estimates what occupancy buys; \
     time the output before relying on it";

/// Said when a register demotion was kept with no time prediction at all.
const UNPREDICTED_NOTE: &str = "warpsmith demote: note: --predictor none: register demotion \
     kept without predicting its time (only occupancy and the proof decided): time it on a GPU";

/// Runs the command.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let bytes = std::fs::read(args.input).map_err(|e| CliError::Read {
        path: args.input.to_path_buf(),
        source: e,
    })?;
    let mut options = args.options;
    for p in args.verify {
        options.verify.push(load_spec(p)?);
    }
    if let Some(p) = args.launch {
        options.predict_launch = Some(load_spec(p)?);
    }
    let outcome = demote(&bytes, &options)?;
    for k in &outcome.kernels {
        say!("{}", summary(k));
        for v in &k.verified {
            say!("  verified: {v}");
        }
    }
    if options.registers.is_some() && outcome.kernels.iter().any(|k| k.demoted) {
        eprintln!("{REGISTER_DEMOTION_NOTE}");
        if options.predictor.is_none() {
            eprintln!("{UNPREDICTED_NOTE}");
        }
    }
    warpsmith::fsutil::write_atomic(args.output, &outcome.cubin).map_err(|e| CliError::Write {
        path: args.output.to_path_buf(),
        source: e,
    })?;
    if let Some(r) = args.report {
        write_json_report(r, &outcome.kernels)?;
    }
    Ok(ExitCode::SUCCESS)
}
