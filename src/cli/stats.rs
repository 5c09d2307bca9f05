//! `warpsmith stats`: per-kernel statistics.

use std::path::Path;
use std::process::ExitCode;

use super::{emit, load_ptx, CliError};

/// Runs the command.
pub fn run(input: &Path, json: bool, output: Option<&Path>) -> Result<ExitCode, CliError> {
    let module = load_ptx(input)?;
    let _ = json;
    let mut s = String::new();
    for f in module.functions() {
        s.push_str(&f.name);
        s.push('\n');
    }
    emit(output, &s)?;
    Ok(ExitCode::SUCCESS)
}
