//! The CLI's subcommands, one module each, and the errors they share.

use std::path::{Path, PathBuf};

use warpsmith::fsutil::write_atomic;
use warpsmith::ptx::{parse_module, Module, ParseErrors};

pub mod demote;
pub mod divergence;
pub mod emulate;
pub mod equiv;
pub mod fmt;
pub mod lmem_report;
pub mod occupancy;
pub mod ptxas;
pub mod ptxas_demote;
pub mod ptxas_launch;
pub mod sass;
pub mod shuffle;
pub mod spill;
pub mod stats;
pub mod tune;

/// Errors of the command-line tool.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// Reading an input failed.
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// An input is not UTF-8.
    #[error("{path}: not UTF-8 text (invalid byte at offset {offset})")]
    NotUtf8 { path: PathBuf, offset: usize },
    /// Writing an output failed.
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The input PTX has errors.
    #[error("{0}")]
    Parse(#[from] ParseErrors),
    /// The spilling pass failed for a kernel.
    #[error("{0}")]
    Spill(String),
    /// A bad occupancy request or a launch that cannot run.
    #[error("{0}")]
    Occupancy(#[from] warpsmith::analysis::occupancy::OccupancyError),
    /// The emulator failed (bad launch spec, fault, unsupported instruction, …).
    #[error("{0}")]
    Emu(String),
    /// Shuffle synthesis failed.
    #[error("{0}")]
    Shuffle(String),
    /// `tune` could not start.
    #[error("{0}")]
    Tune(String),
    /// A cubin/SASS operation failed.
    #[error("{0}")]
    Sass(#[from] warpsmith::sass::SassError),
    /// The demoter could not run.
    #[error("{0}")]
    Demote(#[from] warpsmith::sass::demote::DemoteError),
}

/// Reads and parses a PTX file.
pub fn load_ptx(path: &Path) -> Result<Module, CliError> {
    let text = crate::read_input(path)?;
    let name = path.display().to_string();
    Ok(parse_module(&text, &name)?)
}

/// Writes a command's `--report FILE.json` (pretty JSON, one trailing newline) atomically.
pub fn write_json_report<T: serde::Serialize>(path: &Path, report: &T) -> Result<(), CliError> {
    let mut json = serde_json::to_string_pretty(report).unwrap_or_default();
    json.push('\n');
    emit(Some(path), &json)
}

/// Writes `text` to `output` atomically, or to standard output.
pub fn emit(output: Option<&Path>, text: &str) -> Result<(), CliError> {
    match output {
        Some(p) => write_atomic(p, text.as_bytes()).map_err(|e| CliError::Write {
            path: p.to_path_buf(),
            source: e,
        }),
        None => {
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes()).map_err(|e| CliError::Write {
                path: "<stdout>".into(),
                source: e,
            })
        }
    }
}
