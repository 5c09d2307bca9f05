//! The drop-in's post-ptxas stage (issue 16): with `demote` in `WARPSMITH_PASSES`, after the real
//! ptxas has written its cubin successfully, move each kernel's local-memory frame to shared
//! memory (`warpsmith::sass::demote`) and replace the cubin atomically where a kernel changed.
//!
//! The launch is not visible here: the dynamic shared-memory size comes from
//! `WARPSMITH_SPILL_DYNAMIC_SMEM` (unset: no kernel is demoted, as the never-worse rule wants for
//! an unknown size), the block size from the cubin's `.maxntid`/`.reqntid` (Triton writes
//! `.reqntid`) or `WARPSMITH_SPILL_BLOCK_SIZE`. Nothing here can fail the build: any problem is
//! a warning and ptxas's cubin is left as it was.

use std::path::PathBuf;

use super::ptxas::{Invocation, Pass};
use warpsmith::sass::demote::{demote, DemoteOptions};

/// ptxas's output file when `-o` is not given.
const DEFAULT_OUTPUT: &str = "elf.o";

/// What to do after ptxas succeeded.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PostStage {
    /// The cubin to demote (`None`: the stage is off).
    pub cubin: Option<PathBuf>,
}

impl PostStage {
    /// The stage for `passes` and ptxas's command line `inv`.
    pub fn new(passes: &[Pass], inv: &Invocation) -> PostStage {
        let on = passes.contains(&Pass::Demote) && !inv.info_only && !inv.inputs.is_empty();
        PostStage {
            cubin: on.then(|| PathBuf::from(inv.output.as_deref().unwrap_or(DEFAULT_OUTPUT))),
        }
    }

    /// Runs the stage (a no-op when off); problems are warnings.
    pub fn run(&self) {
        let Some(path) = &self.cubin else {
            return;
        };
        if let Err(why) = demote_file(path) {
            eprintln!(
                "warpsmith ptxas: warning: demote: {}: {why}; ptxas's cubin is kept",
                path.display()
            );
        }
    }
}

fn demote_file(path: &PathBuf) -> Result<(), String> {
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    // The spill pass's reader of the same variables.
    let var = |v: &'static str| {
        warpsmith::spill::env::u32_var(&|k: &str| std::env::var(k).ok(), v)
            .map_err(|e| e.to_string())
    };
    let opts = DemoteOptions {
        dynamic_smem: var("WARPSMITH_SPILL_DYNAMIC_SMEM")?,
        block_size: var("WARPSMITH_SPILL_BLOCK_SIZE")?,
        ..DemoteOptions::default()
    };
    let out = demote(&bytes, &opts).map_err(|e| e.to_string())?;
    for k in &out.kernels {
        log::info!(
            "demote {}: {} ({})",
            k.kernel,
            if k.demoted { "demoted" } else { "unchanged" },
            k.reason
        );
    }
    if out.kernels.iter().any(|k| k.demoted) {
        warpsmith::fsutil::write_atomic(path, &out.cubin).map_err(|e| e.to_string())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::ptxas::{parse_invocation, parse_passes};

    fn stage(passes: &str, args: &[&str]) -> PostStage {
        let args: Vec<std::ffi::OsString> = args.iter().map(Into::into).collect();
        PostStage::new(&parse_passes(passes).0, &parse_invocation(&args))
    }

    #[test]
    fn the_stage_follows_the_output_option() {
        let on = |p: &str| Some(PathBuf::from(p));
        assert_eq!(
            stage("demote", &["-arch=sm_80", "a.ptx"]).cubin,
            on("elf.o")
        );
        assert_eq!(
            stage("spill,demote", &["a.ptx", "-o", "x.cubin"]).cubin,
            on("x.cubin")
        );
        assert_eq!(
            stage("demote", &["--output-file=y.o", "a.ptx"]).cubin,
            on("y.o")
        );
        assert_eq!(stage("spill", &["a.ptx", "-o", "x.cubin"]).cubin, None);
        assert_eq!(stage("demote", &["--version"]).cubin, None);
    }
}
