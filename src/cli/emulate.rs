//! `warpsmith emulate`: runs a kernel of a PTX file on the emulator with a JSON launch spec and
//! writes every buffer argument (and module `.global` variable) after the run.

use std::path::Path;
use std::process::ExitCode;

use warpsmith::emu::{self, LaunchSpec, RunOptions};
use warpsmith::fsutil::write_atomic;

/// Prints a line to standard output; a closed pipe is not an error worth a panic.
macro_rules! say {
    ($($t:tt)*) => {{
        use std::io::Write;
        let _ = writeln!(std::io::stdout().lock(), $($t)*);
    }};
}

use super::{load_ptx, CliError};

/// Reads and parses a launch spec file.
pub fn load_spec(path: &Path) -> Result<LaunchSpec, CliError> {
    let text = crate::read_input(path)?;
    LaunchSpec::from_json(&text).map_err(|e| CliError::Emu(format!("{}: {e}", path.display())))
}

/// Runs the command: `DIR/arg<N>.bin` per buffer argument, `DIR/<name>.bin` per module variable.
pub fn run(input: &Path, launch: &Path, out: Option<&Path>) -> Result<ExitCode, CliError> {
    let module = load_ptx(input)?;
    let spec = load_spec(launch)?;
    let opts = RunOptions {
        file: input.display().to_string(),
        ..RunOptions::default()
    };
    let result = emu::run(&module, &spec, &opts).map_err(|e| CliError::Emu(e.to_string()))?;
    if let Some(dir) = out {
        std::fs::create_dir_all(dir).map_err(|e| CliError::Write {
            path: dir.to_path_buf(),
            source: e,
        })?;
        for b in &result.buffers {
            let file = match b.arg {
                Some(_) => format!("{}.bin", b.name),
                None => format!("var_{}.bin", b.name),
            };
            let p = dir.join(file);
            write_atomic(&p, &b.data).map_err(|e| CliError::Write { path: p, source: e })?;
        }
    }
    let secs = result.elapsed.as_secs_f64();
    let rate = if secs > 0.0 {
        result.stats.lane_insts as f64 / secs / 1e6
    } else {
        0.0
    };
    say!(
        "kernel {}: grid {:?} block {:?}: {} warp-instructions, {} lane-instructions, {:.3} ms ({:.1} M lane-instr/s)",
        spec.kernel,
        spec.grid,
        spec.block,
        result.stats.warp_insts,
        result.stats.lane_insts,
        secs * 1e3,
        rate
    );
    for b in &result.buffers {
        say!(
            "  {}: {} bytes{}",
            b.name,
            b.data.len(),
            if out.is_some() { " written" } else { "" }
        );
    }
    Ok(ExitCode::SUCCESS)
}
