//! What the spilling pass learns about a kernel before it changes anything (RegDem §3.1 and §4:
//! the register target comes from the occupancy staircase, the shared-memory budget from what
//! keeps that occupancy and the launch legal): refusals, the block size, ptxas's figures for the
//! original, the dynamic shared memory of the launch, the candidate register caps and the budget.

use crate::analysis::divergence::{self, BlockShape};
use crate::analysis::occupancy::{self, ArchLimits};
use crate::analysis::regmodel;
use crate::never_worse::{
    dynamic_smem, launch_limit, launch_resources, reads_dynamic_smem, DynamicSmem,
    DEFAULT_SMEM_LIMIT,
};
use crate::ptx::{DeclaredMemory, FuncDirective, Function, Module, Opcode, Operand};
use crate::tools::KernelResources;

use super::plan::pressure_of;
use super::search::ptxas_check;
use super::{SpillError, SpillOptions, Target};

/// Alignment the dynamic shared memory area keeps behind the spill array (bytes): sm_90's
/// 128-byte swizzle patterns repeat every 1024 bytes of shared address.
const DYNAMIC_SMEM_ALIGN: u64 = 1024;

/// A kernel as the pass found it.
pub(super) struct KernelSetup {
    /// Its name.
    pub name: String,
    /// Threads per block (launch bounds, else the caller's).
    pub threads: u32,
    /// The architecture's limits.
    pub arch: &'static ArchLimits,
    /// ptxas's figures for the original (with ptxas).
    pub before: Option<KernelResources>,
    /// Peak pressure of the original, 32-bit units.
    pub pressure_before: u32,
    /// Registers the original uses: ptxas's figure, else the register model's prediction.
    pub regs_before: u32,
    /// The register model's prediction for the original, when ptxas gave no figures.
    pub predicted_before: Option<u32>,
    /// Static shared memory of the original (ptxas's figure, else what the PTX declares).
    pub static_smem: u32,
    /// The launch's dynamic shared memory.
    pub dynamic: DynamicSmem,
    /// The spill array's size granule ([`super::rewrite::Bases::granule`]): 1024 bytes in a
    /// kernel that reads dynamic shared memory, which follows the static arrays and must keep its
    /// alignment; 1 otherwise.
    pub granule: u64,
    /// Occupancy of the original (dynamic shared memory counted; 0 where unknown).
    pub occ_before: f64,
}

/// Refuses what the pass cannot handle and measures the original.
pub(super) fn setup_kernel(
    f: &Function,
    module: &Module,
    idx: usize,
    opts: &SpillOptions,
) -> Result<KernelSetup, SpillError> {
    let name = f.name.to_string();
    let body = f
        .body
        .as_ref()
        .ok_or_else(|| SpillError::NoKernel(name.clone()))?;
    if body.insts.iter().any(|i| i.opcode == Opcode::Setmaxnreg) {
        return Err(SpillError::Refused {
            kernel: name,
            why: "it uses setmaxnreg, which changes the register budget at run time".into(),
        });
    }
    if body.insts.iter().any(|i| {
        i.opcode == Opcode::Call
            && i.operands
                .iter()
                .any(|o| matches!(o, Operand::Sym(s) if **s == *name))
    }) {
        return Err(SpillError::Refused {
            kernel: name,
            why: "it is recursive".into(),
        });
    }
    let threads = f
        .block_size_bound()
        .or(opts.block_dim.map(|d| d.iter().product()))
        .or(opts.block_size)
        .ok_or_else(|| SpillError::NoBlockSize(name.clone()))?;
    if let Some(why) = opts
        .block_dim
        .and_then(|d| shape_conflict(f, d, opts.block_size))
    {
        return Err(SpillError::Refused { kernel: name, why });
    }
    let arch = occupancy::arch(&opts.arch)?;
    let before = if opts.use_ptxas {
        ptxas_check(module, idx, f, &opts.arch, &opts.ptxas_args)
    } else {
        None
    };
    let pressure_before = pressure_of(body);
    // Without ptxas's figures: the model's count and the shared arrays the kernel declares
    // (laid out as ptxas lays them).
    let (regs_before, predicted_before, static_smem) = match &before {
        Some(k) => (k.registers.max(1), None, k.shared),
        None => {
            let predicted = predicted_regs(module, f, arch, pressure_before);
            let declared = DeclaredMemory::of(module, f).shared;
            (
                predicted.unwrap_or(pressure_before).max(1),
                predicted,
                u32::try_from(declared).unwrap_or(u32::MAX),
            )
        }
    };
    let dynamic = dynamic_smem(module, f, opts.dynamic_smem);
    let occ_before = occupancy::occupancy(
        arch,
        &launch_resources(regs_before, threads, static_smem, dynamic),
    )
    .map_or(0.0, |o| o.occupancy);
    Ok(KernelSetup {
        name,
        threads,
        arch,
        before,
        pressure_before,
        regs_before,
        predicted_before,
        static_smem,
        dynamic,
        granule: if reads_dynamic_smem(module, f) {
            DYNAMIC_SMEM_ALIGN
        } else {
            1
        },
        occ_before,
    })
}

/// Why the block shape `dim` ([`SpillOptions::block_dim`]) cannot be `f`'s: it differs from
/// the kernel's `.reqntid`, has more threads than its `.maxntid`, or than `block_size` says.
fn shape_conflict(f: &Function, dim: [u32; 3], block_size: Option<u32>) -> Option<String> {
    let threads: u32 = dim.iter().product();
    let shape = BlockShape::Known(dim).describe();
    for d in &f.directives {
        match d {
            FuncDirective::ReqNtid(req) => {
                let want = BlockShape::new(Some(req), &divergence::Options::default());
                if want != BlockShape::Known(dim) {
                    return Some(format!(
                        "the block shape given ({shape}) is not its .reqntid ({})",
                        want.describe()
                    ));
                }
            }
            FuncDirective::MaxNtid(max) if threads > max.iter().product::<u32>() => {
                return Some(format!(
                    "the block shape given ({shape}, {threads} threads) exceeds its .maxntid"
                ));
            }
            _ => {}
        }
    }
    match block_size {
        Some(b) if f.block_size_bound().is_none() && b != threads => Some(format!(
            "the block shape given ({shape}) has {threads} threads, the block size given {b}"
        )),
        _ => None,
    }
}

/// The registers ptxas is expected to give `f` when ptxas is not run: the register model's
/// estimate ([`regmodel::model`], issue 12: the model proposes, `ptxas -v` decides where it is
/// run); `None` (the caller takes the PTX pressure) when the model cannot read the kernel. The
/// pressure counts every live virtual register and lies far above ptxas's count where
/// constants, parameters and warp-uniform values dominate (Triton's attention on sm_80: 314
/// against ptxas's 207, the model 222); taken as the kernel's use it sends the pass to caps
/// above what ptxas needs anyway.
fn predicted_regs(
    module: &Module,
    f: &Function,
    arch: &'static ArchLimits,
    pressure: u32,
) -> Option<u32> {
    match regmodel::model(module, f, arch) {
        Ok(m) => {
            log::info!(
                "spill `{}`: no ptxas figures; the register model predicts {} registers (PTX \
                 pressure {pressure})",
                f.name,
                m.estimate
            );
            Some(m.estimate.max(1))
        }
        Err(why) => {
            log::info!(
                "spill `{}`: no ptxas figures and no register model ({why}); taking the PTX \
                 pressure {pressure}",
                f.name
            );
            None
        }
    }
}

/// How far above a cap the register model must put the original before the pass, without
/// ptxas, believes the kernel is above that cap's cliff: its mean error on the register-model
/// bench is 10 % (docs/benchmarks.md). Measured on `spill --no-ptxas --occupancy auto` judged
/// by ptxas afterwards (Triton suite and NVRTC bench, 248 kernels; the margin of
/// `greedy::MODEL_MARGIN_AFTER` at 10 %): no margin, 24 better and 18 worse; 10 %, 25 and 8
/// (Liger's 38 kernels, held out: 14/10 and 14/8).
pub const MODEL_MARGIN_BEFORE: f64 = 0.10;

/// The register count below which every cap is, by [`MODEL_MARGIN_BEFORE`], below an original
/// the model puts at `predicted` registers.
fn confidently_above(predicted: u32) -> u32 {
    (f64::from(predicted) / (1.0 + MODEL_MARGIN_BEFORE)).ceil() as u32
}

/// The register caps to try, nearest first: the given one, or (`auto`) every occupancy cliff
/// below the kernel's use (without ptxas, [`MODEL_MARGIN_BEFORE`] below the register model's
/// prediction) — preceded, when ptxas alone already spills, by the cap of the kernel's
/// own occupancy step (same occupancy, the local memory moved to shared memory); or (`keep`) that
/// own step alone. Empty when there is nothing to try.
pub(super) fn targets(s: &KernelSetup, target: Target) -> Result<Vec<u32>, SpillError> {
    match target {
        Target::MaxRegs(n) => Ok(vec![n]),
        Target::Auto => {
            let regs = s.predicted_before.map_or(s.regs_before, confidently_above);
            Ok(cliff_caps(
                s.arch,
                s.threads,
                s.static_smem,
                s.dynamic,
                regs,
                uses_local_memory(s),
            )?)
        }
        // Without ptxas's figures nothing says the original spills: nothing to do.
        Target::KeepOccupancy if !uses_local_memory(s) => Ok(Vec::new()),
        Target::KeepOccupancy => {
            let steps = occupancy::cliffs(
                s.arch,
                &launch_resources(0, s.threads, s.static_smem, s.dynamic),
            )?;
            Ok(own_step(&steps, s.regs_before).into_iter().collect())
        }
    }
}

/// Whether ptxas alone gives the original a stack frame or spill code (false without ptxas).
pub(super) fn uses_local_memory(s: &KernelSetup) -> bool {
    s.before
        .as_ref()
        .is_some_and(|k| k.spill_stores + k.spill_loads + k.stack_frame > 0)
}

/// The register caps worth trying for a kernel that uses `regs` registers (ptxas's figure) with
/// `threads` threads per block and the given shared memory, nearest first: the cap of the
/// kernel's own occupancy step when ptxas alone already spills (`spills`: same occupancy, the
/// local memory moved to shared memory), then every occupancy cliff below `regs`. The `spill`
/// pass (`--occupancy auto`) and `warpsmith tune` try exactly these.
pub fn cliff_caps(
    arch: &'static ArchLimits,
    threads: u32,
    static_smem: u32,
    dynamic: DynamicSmem,
    regs: u32,
    spills: bool,
) -> Result<Vec<u32>, occupancy::OccupancyError> {
    let steps = occupancy::cliffs(arch, &launch_resources(0, threads, static_smem, dynamic))?;
    Ok(own_step(&steps, regs)
        .filter(|_| spills)
        .into_iter()
        .chain(
            steps
                .iter()
                .rev()
                .filter(|c| c.max_regs < regs)
                .map(|c| c.max_regs),
        )
        .collect())
}

/// The cap of the occupancy step a kernel using `regs` registers is on: the most registers that
/// keep its occupancy (`steps`: [`occupancy::cliffs`], fewest registers first).
fn own_step(steps: &[occupancy::Cliff], regs: u32) -> Option<u32> {
    steps
        .iter()
        .find(|c| c.max_regs >= regs)
        .map(|c| c.max_regs)
}

/// Bytes of shared memory the kernel can still declare statically and the launch can still take:
/// static shared memory stays within the 48 KiB a block may declare, and static + dynamic within
/// the launch limit (see [`crate::never_worse::launch_error`]); none when the dynamic size is
/// unknown.
pub(super) fn launch_room(s: &KernelSetup) -> u32 {
    match s.dynamic {
        DynamicSmem::Unknown => 0,
        DynamicSmem::Known(d) => {
            let launch = launch_limit(s.arch, d)
                .saturating_sub(s.static_smem)
                .saturating_sub(d);
            launch.min(DEFAULT_SMEM_LIMIT.saturating_sub(s.static_smem))
        }
    }
}

/// The shared-memory budget at cap `max_regs`: the caller's, or what keeps the occupancy the cap
/// allows (shared memory must not become the new limit); never more than the launch can take.
pub(super) fn budget_for(s: &KernelSetup, opts: &SpillOptions, max_regs: u32) -> u32 {
    let room = launch_room(s);
    let keep_occupancy = || {
        let o = occupancy::occupancy(
            s.arch,
            &launch_resources(max_regs, s.threads, s.static_smem, s.dynamic),
        )
        .ok()
        .filter(|o| o.blocks_per_sm > 0)?;
        let per_block = (o.carveout_kib * 1024) / o.blocks_per_sm;
        Some(
            per_block
                .saturating_sub(s.arch.reserved_smem_per_block)
                .saturating_sub(s.static_smem)
                .saturating_sub(s.dynamic.bytes_or_zero())
                / s.arch.smem_alloc_unit
                * s.arch.smem_alloc_unit,
        )
    };
    opts.smem_budget
        .or_else(keep_occupancy)
        .unwrap_or(room)
        .min(room)
}

/// How far past the budget the greedy order may run while ptxas still spills: up to what a block
/// may declare and the launch can take (the removal searches must bring it back within budget).
pub(super) fn search_limit(s: &KernelSetup, budget: u32) -> u64 {
    u64::from(launch_room(s).max(budget))
}
