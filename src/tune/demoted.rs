//! The `demote` variants of `warpsmith tune` (RegDem §3 as a variant for §4's predictor): ptxas's
//! build at a cap (or alone), with its local-memory frame moved into shared memory in the cubin by
//! [`crate::sass::demote`]. The variant exists only as a cubin: its PTX is the capped build's.
//! With a launch spec the rewrite is proved on the SASS emulator (warps interleaved per
//! instruction, every output byte) before it is measured; without one it is never chosen.

use crate::analysis::occupancy::occupancy;
use crate::emu::launch::LaunchSpec;
use crate::never_worse::{launch_error, launch_resources, DynamicSmem, Figures};
use crate::sass::demote::{local_to_shared, LocalToShared};

use super::measure::{Launch, Measured};

/// What a demote variant is made with.
pub struct DemoteInputs<'a> {
    /// The kernel.
    pub kernel: &'a str,
    /// The launch (block size, dynamic shared memory).
    pub launch: &'a Launch,
    /// The spec to prove the rewrite on, if any.
    pub spec: Option<&'a LaunchSpec>,
    /// Input seeds for the proof.
    pub seeds: u64,
}

/// `base` (ptxas's build) with its frame in shared memory, or why not. The second value says
/// whether the SASS emulator proved it equal to `base`.
pub fn demote(base: &Measured, how: &DemoteInputs) -> Result<(Measured, bool), String> {
    if base.figures.local_bytes() == 0 {
        return Err("ptxas's build uses no local memory: nothing to demote".into());
    }
    let DynamicSmem::Known(dynamic) = how.launch.dynamic else {
        return Err(
            "the launch's dynamic shared memory is unknown (give --launch or --dynamic-smem)"
                .into(),
        );
    };
    let opts = LocalToShared {
        kernel: Some(how.kernel.to_string()),
        block_size: Some(how.launch.threads),
        dynamic_smem: Some(dynamic),
        verify: how.spec.into_iter().cloned().collect(),
        seeds: how.seeds.max(1),
    };
    let out = local_to_shared(&base.cubin, &opts).map_err(|e| format!("demote: {e}"))?;
    let k = out
        .kernels
        .into_iter()
        .find(|k| k.kernel == how.kernel)
        .ok_or_else(|| format!("demote: no `{}` in the cubin", how.kernel))?;
    let after = match (k.demoted, k.after) {
        (true, Some(a)) => a,
        _ => return Err(format!("demote kept ptxas's build: {}", k.reason)),
    };
    let mut res = base.res.clone();
    res.shared = after.static_smem;
    res.local = 0;
    res.stack_frame = 0;
    res.cumulative_stack = 0;
    res.spill_loads = 0;
    res.spill_stores = 0;
    if let Some(why) = launch_error(how.launch.arch, res.shared, dynamic) {
        return Err(format!("launch-illegal: {why}"));
    }
    let occ = occupancy(
        how.launch.arch,
        &launch_resources(
            res.registers,
            how.launch.threads,
            res.shared,
            how.launch.dynamic,
        ),
    )
    .map_err(|e| format!("launch-illegal: {e}"))?;
    let proved = !k.verified.is_empty();
    Ok((
        Measured {
            cubin: out.cubin,
            figures: Figures::from(&res),
            res,
            occupancy: occ.occupancy,
            resident_blocks: occ.blocks_per_sm,
        },
        proved,
    ))
}
