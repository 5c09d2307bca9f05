//! The `demote` variants of `warpsmith tune` (RegDem §3 as a variant for §4's predictor): ptxas's
//! build at a cap (or alone), with its local-memory frame moved into shared memory in the cubin by
//! [`crate::sass::demote`]. The variant exists only as a cubin: its PTX is the capped build's.
//! With a launch spec the rewrite is proved on the SASS emulator (warps interleaved per
//! instruction, every output byte) before it is measured; without one it is never chosen.

use crate::emu::launch::LaunchSpec;
use crate::never_worse::DynamicSmem;
use crate::sass::demote::{self as sass_demote, DemoteOptions, KernelReport, RegisterTarget};

use super::measure::{measured, Launch, Measured};

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
    /// Demote registers to this target too (`None`: the frame only).
    pub registers: Option<RegisterTarget>,
}

/// `base` (ptxas's build) with its frame in shared memory, or why not. The second value says
/// whether the SASS emulator proved it equal to `base`.
pub fn demote(base: &Measured, how: &DemoteInputs) -> Result<(Measured, bool), String> {
    if base.figures.local_bytes() == 0 && how.registers.is_none() {
        return Err("ptxas's build uses no local memory: nothing to demote".into());
    }
    let (cubin, k) = rewrite(&base.cubin, how)?;
    let after = k
        .after
        .ok_or_else(|| format!("demote reported no figures: {}", k.reason))?;
    let mut res = base.res.clone();
    res.registers = after.registers;
    res.shared = after.static_smem;
    res.local = 0;
    res.stack_frame = 0;
    res.cumulative_stack = 0;
    res.spill_loads = 0;
    res.spill_stores = 0;
    let proved = !k.verified.is_empty();
    Ok((measured(cubin, res, how.launch)?, proved))
}

/// `cubin` with `how.kernel`'s frame moved by [`sass_demote::demote`] under its rule (and proof, with
/// a spec): the new cubin and the kernel's report, or why the original was kept.
pub fn rewrite(cubin: &[u8], how: &DemoteInputs) -> Result<(Vec<u8>, KernelReport), String> {
    let DynamicSmem::Known(dynamic) = how.launch.dynamic else {
        return Err(
            "the launch's dynamic shared memory is unknown (give --launch or --dynamic-smem)"
                .into(),
        );
    };
    let opts = DemoteOptions {
        kernel: Some(how.kernel.to_string()),
        block_size: Some(how.launch.threads),
        dynamic_smem: Some(dynamic),
        verify: how.spec.into_iter().cloned().collect(),
        seeds: how.seeds.max(1),
        registers: how.registers,
        // Tune predicts every variant with its own model and chooses among them.
        predictor: None,
        predict_launch: None,
        grow_dynamic: false,
    };
    let out = sass_demote::demote(cubin, &opts).map_err(|e| format!("demote: {e}"))?;
    let k = out
        .kernels
        .into_iter()
        .find(|k| k.kernel == how.kernel)
        .ok_or_else(|| format!("demote: no `{}` in the cubin", how.kernel))?;
    if !k.demoted {
        return Err(format!("demote kept ptxas's build: {}", k.reason));
    }
    Ok((out.cubin, k))
}
