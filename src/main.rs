//! The `warpsmith` command-line tool: one subcommand per job, all sharing the library.
//!
//! Exit codes: 0 success, 1 a check failed (reserved for `equiv`-style commands), 2 bad input or
//! an error.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cli;

/// warpsmith raises the occupancy and speed of NVIDIA GPU kernels after the compiler: it reads
/// the PTX that LLVM's NVPTX back end, nvcc or NVHPC emit (and the cubins ptxas makes from it),
/// analyses it and rewrites it.
///
/// Built today: the PTX machine IR (parser, printer, CFG, dominators, loops, liveness, register
/// pressure) with the `fmt` and `stats` commands. Planned, not built yet: divergence analysis,
/// shared-memory spilling, shuffle synthesis, SASS register demotion, the emulator.
#[derive(Parser, Debug)]
#[command(name = "warpsmith", version, about, long_about, max_term_width = 100)]
struct Cli {
    /// Print diagnostics at this level and above (error, warn, info, debug, trace). Also read
    /// from RUST_LOG.
    #[arg(long, global = true, value_name = "LEVEL")]
    log: Option<String>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Parse a PTX file and print it back (a round trip through the IR).
    ///
    /// The output has the same meaning as the input — ptxas gives the same register, spill and
    /// shared-memory figures — with comments dropped and a uniform layout.
    Fmt {
        /// The PTX file to read (`-` for standard input).
        input: PathBuf,
        /// Where to write; standard output when absent. Written atomically.
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Per-kernel statistics: instructions, basic blocks, loops, maximum live 32-bit registers,
    /// live predicates, launch bounds, shared and local memory.
    Stats {
        /// The PTX file to read (`-` for standard input).
        input: PathBuf,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// Where to write; standard output when absent. Written atomically.
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let mut logger =
        env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"));
    if let Some(level) = &cli.log {
        logger.parse_filters(level);
    }
    logger.format_timestamp(None).init();
    let result = match &cli.command {
        Command::Fmt { input, output } => cli::fmt::run(input, output.as_deref()),
        Command::Stats {
            input,
            json,
            output,
        } => cli::stats::run(input, *json, output.as_deref()),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("warpsmith: {e}");
            ExitCode::from(2)
        }
    }
}

/// Reads a PTX file (or standard input for `-`).
pub(crate) fn read_input(path: &Path) -> Result<String, cli::CliError> {
    if path.as_os_str() == "-" {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s).map_err(|e| {
            cli::CliError::Read {
                path: path.to_path_buf(),
                source: e,
            }
        })?;
        return Ok(s);
    }
    let bytes = std::fs::read(path).map_err(|e| cli::CliError::Read {
        path: path.to_path_buf(),
        source: e,
    })?;
    String::from_utf8(bytes).map_err(|e| cli::CliError::NotUtf8 {
        path: path.to_path_buf(),
        offset: e.utf8_error().valid_up_to(),
    })
}
