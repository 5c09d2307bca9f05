//! `warpsmith fmt`: parse and print back (the IR round trip).

use std::path::Path;
use std::process::ExitCode;

use warpsmith::ptx::print_module;

use super::{emit, load_ptx, CliError};

/// Runs the command.
pub fn run(input: &Path, output: Option<&Path>) -> Result<ExitCode, CliError> {
    let module = load_ptx(input)?;
    emit(output, &print_module(&module))?;
    Ok(ExitCode::SUCCESS)
}
