//! The predicted time of one kernel of a finished cubin on one launch (RegDem §4's predictor on a
//! binary that no PTX reproduces): the SASS emulator's instruction and memory mix of the launch
//! ([`super::profile::from_sass`]), the launch's shape and occupancy read from the cubin itself
//! (`REGCOUNT`, `.nv.shared`, the frame), and [`super::model::predict`] — or the cycle-level
//! model ([`predict_cubin_cycles`]). `warpsmith demote` uses one of them to keep a register
//! demotion only where it is predicted faster than the input.
//!
//! Large grids are sampled ([`Sample`]): at most [`SAMPLE_BLOCKS`] blocks run on the emulator
//! (the grid cut in z, then y, then x), or only the CTAs the busiest SM receives with the whole
//! grid's `%nctaid` (`tune --predict-launch`); the sample's mix is scaled to the whole grid, and
//! the shape (waves, occupancy) is the whole launch's. Both sides of a comparison are sampled the
//! same way.

use crate::analysis::occupancy::{self, occupancy};
use crate::emu::launch::{LaunchSpec, RunOptions};
use crate::never_worse::{launch_resources, DynamicSmem};
use crate::sass::elf::Cubin;
use crate::sass::emu::launch::run_ctas;
use crate::sass::emu::timing::SmLoad;
use crate::sass::emu::{run as run_sass, SassProgram};

use super::cycle::{predict_cycles, timing_params};
use super::model::{predict, Mix, Prediction, Shape};
use super::params::{machine, MachineParams};
use super::profile::{footprint, from_sass};

/// Blocks the emulator runs at most for one prediction.
pub const SAMPLE_BLOCKS: u32 = 64;

/// Which CTAs of a launch the functional run behind a prediction executes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sample {
    /// At most [`SAMPLE_BLOCKS`] blocks, the grid cut in z, then y, then x (`%nctaid` shrinks
    /// with it): `warpsmith demote`'s predictions.
    CutGrid,
    /// The CTAs the busiest SM receives (those the timing mode runs), with the whole grid's
    /// `%nctaid`: a handful of CTAs however large the launch, for launches whose every CTA does
    /// much work (a Triton matmul's K loop over 4096).
    BusiestSm,
}

/// The CTAs of `spec`'s grid that the busiest of `sms` SMs receives: [`Sample::BusiestSm`]'s
/// sample.
pub(crate) fn busiest_sm_ctas(spec: &LaunchSpec, sms: u32) -> Vec<[u32; 3]> {
    SmLoad::busiest(&spec.grid, sms, 1, 0).ctas
}

/// `spec` with its grid cut to at most [`SAMPLE_BLOCKS`] blocks, and the factor that scales the
/// sample's counts to the whole grid.
fn sampled(spec: &LaunchSpec) -> (LaunchSpec, f64) {
    let mut s = spec.clone();
    let total: u64 = spec.grid.iter().map(|&g| u64::from(g)).product();
    let mut room = SAMPLE_BLOCKS;
    let mut cut = [1u32; 3];
    for (d, c) in cut.iter_mut().enumerate() {
        let g = spec.grid.get(d).copied().unwrap_or(1);
        *c = g.min(room).max(1);
        room = (room / *c).max(1);
    }
    s.grid = cut[..spec.grid.len().max(1)].to_vec();
    let kept: u64 = s.grid.iter().map(|&g| u64::from(g)).product();
    (s, total as f64 / kept.max(1) as f64)
}

/// A kernel of a cubin launched with `spec`, as the models see it: the machine figures of the
/// cubin's architecture and the launch's shape, with the occupancy the cubin's register count,
/// static shared memory and `spec`'s dynamic shared memory allow.
pub fn cubin_launch(
    c: &Cubin,
    kernel: &str,
    spec: &LaunchSpec,
) -> Result<(&'static MachineParams, Shape), String> {
    let arch_name = format!("sm_{}", c.sm());
    let m = machine(&arch_name).ok_or_else(|| format!("no machine parameters for {arch_name}"))?;
    let arch = occupancy::arch(&arch_name).map_err(|e| e.to_string())?;
    let f = c.function(kernel).map_err(|e| e.to_string())?;
    let registers = c.register_count(&f);
    let static_smem = c.shared_size(kernel) as u32;
    let stack = c.stack_size(kernel).map_err(|e| e.to_string())?;
    let threads: u32 = spec.block.iter().product();
    let occ = occupancy(
        arch,
        &launch_resources(
            registers,
            threads,
            static_smem,
            DynamicSmem::Known(spec.dynamic_smem as u32),
        ),
    )
    .map_err(|e| e.to_string())?;
    let shape = Shape {
        blocks: spec.grid.iter().map(|&g| u64::from(g)).product(),
        warps_per_block: threads.div_ceil(32),
        resident_blocks: occ.blocks_per_sm,
        local_bytes_per_thread: stack,
        smem_per_block: static_smem + spec.dynamic_smem as u32,
    };
    Ok((m, shape))
}

/// What both cubin predictors start from: the machine and the launch's shape
/// ([`cubin_launch`]), the program, and the launch's mix from a sampled functional run.
struct CubinProfile {
    machine: &'static MachineParams,
    shape: Shape,
    prog: SassProgram,
    mix: Mix,
}

fn profile(
    cubin: &[u8],
    kernel: &str,
    spec: &LaunchSpec,
    how: Sample,
) -> Result<CubinProfile, String> {
    let c = Cubin::parse(cubin).map_err(|e| e.to_string())?;
    let (machine, shape) = cubin_launch(&c, kernel, spec)?;
    let prog = SassProgram::from_cubin(cubin).map_err(|e| e.to_string())?;
    let opts = RunOptions {
        file: format!("{kernel} (predictor)"),
        ..RunOptions::default()
    };
    let (run, scale) = match how {
        Sample::CutGrid => {
            let (sample, scale) = sampled(spec);
            (run_sass(&prog, &sample, &opts), scale)
        }
        Sample::BusiestSm => {
            let ctas = busiest_sm_ctas(spec, machine.sms);
            let scale = shape.blocks as f64 / ctas.len().max(1) as f64;
            (run_ctas(&prog, spec, &opts, &ctas), scale)
        }
    };
    let run = run.map_err(|e| format!("SASS emulator: {e}"))?;
    let mix = scaled(
        from_sass(&run.stats, footprint(spec)),
        scale,
        footprint(spec),
    );
    Ok(CubinProfile {
        machine,
        shape,
        prog,
        mix,
    })
}

/// Predicts `kernel` of `cubin` on `spec` (its grid, block and dynamic shared memory).
pub fn predict_cubin(cubin: &[u8], kernel: &str, spec: &LaunchSpec) -> Result<Prediction, String> {
    let p = profile(cubin, kernel, spec, Sample::CutGrid)?;
    Ok(predict(p.machine, &p.mix, &p.shape))
}

/// Both models' predictions of one cubin on one launch, from one sampled profile.
#[derive(Clone, Debug)]
pub struct CubinPredictions {
    /// The analytic model's.
    pub analytic: Prediction,
    /// The cycle-level model's, or why its timing mode could not run.
    pub cycle: Result<Prediction, String>,
}

/// Predicts `kernel` of `cubin` on `spec` with both models, the functional run sampled as `how`
/// says.
pub fn predict_cubin_both(
    cubin: &[u8],
    kernel: &str,
    spec: &LaunchSpec,
    how: Sample,
) -> Result<CubinPredictions, String> {
    let p = profile(cubin, kernel, spec, how)?;
    let params = timing_params(p.machine, &p.mix, p.shape.blocks);
    Ok(CubinPredictions {
        analytic: predict(p.machine, &p.mix, &p.shape),
        cycle: predict_cycles(p.machine, &p.prog, spec, &p.mix, &p.shape, &params)
            .map(|(pred, _)| pred),
    })
}

/// Predicts `kernel` of `cubin` on `spec` with the cycle-level model ([`super::cycle`]): the
/// timing mode runs the CTAs of the launch's busiest SM; a sampled functional run (as for
/// [`predict_cubin`]) gives the launch's global traffic, from which the timing mode takes the
/// share of first-touch misses that reach DRAM.
pub fn predict_cubin_cycles(
    cubin: &[u8],
    kernel: &str,
    spec: &LaunchSpec,
) -> Result<Prediction, String> {
    predict_cubin_both(cubin, kernel, spec, Sample::CutGrid)?.cycle
}

/// `m` (a sample's mix) scaled to the whole grid; DRAM bytes stay at most the footprint.
fn scaled(m: Mix, f: f64, footprint: f64) -> Mix {
    let global_sectors = m.global_sectors * f;
    Mix {
        warp_insts: m.warp_insts * f,
        int: m.int * f,
        fp32: m.fp32 * f,
        fp64: m.fp64 * f,
        sfu: m.sfu * f,
        global_requests: m.global_requests * f,
        global_sectors,
        local_requests: m.local_requests * f,
        local_sectors: m.local_sectors * f,
        shared_requests: m.shared_requests * f,
        shared_wavefronts: m.shared_wavefronts * f,
        dram_bytes: (global_sectors * 32.0).min(footprint),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_grids_are_sampled_and_scaled() {
        let spec = LaunchSpec::from_json(
            r#"{"kernel": "k", "grid": [100, 30], "block": [64], "args": []}"#,
        )
        .unwrap();
        let (s, f) = sampled(&spec);
        assert_eq!(s.grid, vec![64, 1]);
        assert!((f - 3000.0 / 64.0).abs() < 1e-9);
        let small =
            LaunchSpec::from_json(r#"{"kernel": "k", "grid": [4, 2], "block": [64], "args": []}"#)
                .unwrap();
        let (s, f) = sampled(&small);
        assert_eq!((s.grid, f), (vec![4, 2], 1.0));
    }
}
