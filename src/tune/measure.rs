//! Assembling one variant with `ptxas -v` (RegDem §4: the predictor works on the binary the
//! variant becomes): the cubin, registers, local memory (stack + spill traffic) and static shared
//! memory, then the launch's legality and occupancy with static and dynamic shared memory
//! ([`crate::never_worse`]'s rules, the spill pass's).

use crate::analysis::occupancy::{occupancy, ArchLimits};
use crate::never_worse::{launch_error, launch_resources, DynamicSmem, Figures};
use crate::ptx::{print_module, Module};
use crate::tools::{ptxas_assemble_source, KernelResources, ToolError};

/// A variant as ptxas made it.
#[derive(Clone, Debug)]
pub struct Measured {
    /// The cubin.
    pub cubin: Vec<u8>,
    /// ptxas's figures for the kernel.
    pub res: KernelResources,
    /// The same as the never-worse rule reads them.
    pub figures: Figures,
    /// Occupancy of the launch (dynamic shared memory counted; 0 where unknown).
    pub occupancy: f64,
    /// Blocks resident per SM.
    pub resident_blocks: u32,
}

/// How the variant is launched.
#[derive(Clone, Copy, Debug)]
pub struct Launch {
    /// The architecture's limits.
    pub arch: &'static ArchLimits,
    /// Threads per block.
    pub threads: u32,
    /// Dynamic shared memory.
    pub dynamic: DynamicSmem,
}

/// Assembles `module` for `arch` with `args` and measures `kernel`; `Err` says why the variant
/// cannot be used (ptxas refused it, or the launch is illegal).
pub fn assemble(
    module: &Module,
    kernel: &str,
    arch: &str,
    args: &[String],
    launch: &Launch,
) -> Result<Measured, String> {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = ptxas_assemble_source(&print_module(module), arch, &args).map_err(ptxas_message)?;
    let res = out
        .resources
        .into_iter()
        .find(|k| k.name == kernel)
        .ok_or_else(|| format!("ptxas printed no figures for `{kernel}`"))?;
    measured(out.cubin, res, launch)
}

/// A cubin with its kernel's figures, judged for `launch`: `Err` when the launch is illegal
/// (static + dynamic shared memory past the limit, or no block fits); else its occupancy.
pub fn measured(cubin: Vec<u8>, res: KernelResources, launch: &Launch) -> Result<Measured, String> {
    if let Some(why) = launch_error(launch.arch, res.shared, launch.dynamic.bytes_or_zero()) {
        return Err(format!("launch-illegal: {why}"));
    }
    let occ = occupancy(
        launch.arch,
        &launch_resources(res.registers, launch.threads, res.shared, launch.dynamic),
    )
    .map_err(|e| format!("launch-illegal: {e}"))?;
    Ok(Measured {
        cubin,
        figures: Figures::from(&res),
        res,
        occupancy: occ.occupancy,
        resident_blocks: occ.blocks_per_sm,
    })
}

/// ptxas's first error line (or the tool error) in one line.
fn ptxas_message(e: ToolError) -> String {
    match e {
        ToolError::Failed { stderr, .. } => format!(
            "ptxas refused it: {}",
            crate::tools::ptxas::first_error(&stderr).unwrap_or("ptxas failed")
        ),
        other => format!("ptxas: {other}"),
    }
}
