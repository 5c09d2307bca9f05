//! `warpsmith occupancy`: the occupancy calculator on the command line.

use std::fmt::Write;
use std::path::Path;
use std::process::ExitCode;

use warpsmith::analysis::occupancy::{arch, cliffs, occupancy, LaunchResources};

use super::{emit, CliError};

/// What the command was asked.
pub struct Request<'a> {
    /// Architecture name (`sm_90`).
    pub arch: &'a str,
    /// Registers per thread.
    pub regs: u32,
    /// Threads per block.
    pub threads: u32,
    /// Static shared memory per block.
    pub smem: u32,
    /// Dynamic shared memory per block.
    pub dynamic_smem: u32,
    /// Carve-out in KiB (None: the largest).
    pub carveout_kib: Option<u32>,
    /// Also list the register cliffs.
    pub cliffs: bool,
    /// JSON output.
    pub json: bool,
}

/// Runs the command.
pub fn run(req: &Request<'_>, output: Option<&Path>) -> Result<ExitCode, CliError> {
    let a = arch(req.arch)?;
    let r = LaunchResources {
        regs_per_thread: req.regs,
        threads_per_block: req.threads,
        static_smem: req.smem,
        dynamic_smem: req.dynamic_smem,
        carveout_kib: req.carveout_kib,
    };
    let o = occupancy(a, &r)?;
    let steps = if req.cliffs {
        Some(cliffs(a, &r)?)
    } else {
        None
    };
    let text = if req.json {
        let mut v = serde_json::to_value(&o).unwrap_or_default();
        if let (Some(steps), Some(map)) = (&steps, v.as_object_mut()) {
            map.insert(
                "cliffs".into(),
                serde_json::to_value(steps).unwrap_or_default(),
            );
        }
        let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
        s.push('\n');
        s
    } else {
        let mut s = String::new();
        let limits: Vec<String> = o.limited_by.iter().map(ToString::to_string).collect();
        let _ = writeln!(
            s,
            "{}: {} threads/block, {} registers/thread, {} B static + {} B dynamic shared memory",
            o.arch, req.threads, req.regs, req.smem, req.dynamic_smem
        );
        let _ = writeln!(
            s,
            "  {} blocks/SM, {} warps/SM, occupancy {:.1}% (limited by {})",
            o.blocks_per_sm,
            o.warps_per_sm,
            o.occupancy * 100.0,
            limits.join(", ")
        );
        let _ = writeln!(
            s,
            "  blocks allowed by: registers {}, shared memory {}, warps {}, blocks {}",
            o.blocks_by_registers, o.blocks_by_shared_memory, o.blocks_by_warps, o.blocks_by_blocks
        );
        let _ = writeln!(s, "  {} registers/warp, {} B shared memory/block (reservation and rounding included), carve-out {} KiB", o.regs_per_warp, o.smem_per_block, o.carveout_kib);
        if let Some(steps) = steps {
            let _ = writeln!(
                s,
                "  register cliffs (most registers per thread for each occupancy):"
            );
            for c in steps {
                let _ = writeln!(
                    s,
                    "    <= {:3} registers: {:2} blocks, {:2} warps, {:5.1}%",
                    c.max_regs,
                    c.blocks_per_sm,
                    c.warps_per_sm,
                    c.occupancy * 100.0
                );
            }
        }
        s
    };
    emit(output, &text)?;
    Ok(ExitCode::SUCCESS)
}
