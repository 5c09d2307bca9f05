//! The cycle-level predictor (issue 17's stronger form of RegDem §4's predictor): a variant's
//! cubin runs on the SASS emulator's timing mode (`crate::sass::emu::timing`) for the CTAs the
//! busiest SM receives, with the machine figures of [`super::params`]. docs/tune.md, "The
//! cycle-level model".

use crate::emu::launch::{LaunchSpec, RunOptions};
use crate::sass::emu::timing::{run_timed, SmLoad, TimedRun, TimingParams};
use crate::sass::emu::SassProgram;

use super::model::{Bound, Mix, Prediction, Shape};
use super::params::MachineParams;

/// Which predictor turns a variant's profile into a time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Predictor {
    /// The analytic bounds of [`super::model`] (any profile source).
    Analytic,
    /// The SASS emulator's timing mode where the SASS emulator runs the launch, else the
    /// analytic model.
    #[default]
    Cycle,
}

impl Predictor {
    /// The name the report uses.
    pub fn name(self) -> &'static str {
        match self {
            Predictor::Analytic => "analytic",
            Predictor::Cycle => "cycle",
        }
    }
}

/// The timing mode's figures for `m`, for a launch of `blocks` blocks whose global traffic is
/// `mix`.
pub fn timing_params(m: &MachineParams, mix: &Mix, blocks: u64) -> TimingParams {
    let per_sm = |lanes: u32| 32.0 * f64::from(m.schedulers) / f64::from(lanes.max(1));
    let global_bytes = mix.global_sectors * 32.0;
    let busy_sms = blocks.clamp(1, u64::from(m.sms)) as f64;
    TimingParams {
        schedulers: m.schedulers,
        fp32_interval: per_sm(m.fp32_lanes),
        int_interval: per_sm(m.int_lanes),
        fp64_interval: per_sm(m.fp64_lanes),
        sfu_interval: per_sm(m.sfu_lanes),
        lat_sfu: m.lat_sfu,
        lat_fp64: m.lat_fp64,
        lat_smem: m.lat_smem,
        lat_l1: m.lat_l1,
        lat_l2: m.lat_l2,
        lat_dram: m.lat_dram,
        smem_wavefronts: m.smem_wavefronts_per_cycle,
        l1_sectors: m.l1_sectors_per_cycle,
        l2_bytes: m.l2_bytes_per_cycle,
        l2_store_bytes: m.l2_store_bytes_per_cycle,
        lsu_queue: m.lsu_queue_cycles,
        local_store_l2: if m.local_stores_write_through {
            1.0
        } else {
            0.0
        },
        dram_bytes: m.dram_bytes_per_cycle() / busy_sms,
        dram_fraction: if global_bytes > 0.0 {
            (mix.dram_bytes / global_bytes).clamp(0.0, 1.0)
        } else {
            0.0
        },
        l1_smem_bytes: u64::from(m.l1_smem_kib) * 1024,
        tensor_flops: m.tensor_flops,
        ..TimingParams::default()
    }
}

/// Predicts the launch `spec` of `prog`'s kernel on `m` with the timing mode and `params`
/// ([`timing_params`]): `mix` is the whole launch's profile (for the DRAM bound), `shape` the
/// variant's occupancy.
pub fn predict_cycles(
    m: &MachineParams,
    prog: &SassProgram,
    spec: &LaunchSpec,
    mix: &Mix,
    shape: &Shape,
    params: &TimingParams,
) -> Result<(Prediction, TimedRun), String> {
    let load = SmLoad::busiest(
        &spec.grid,
        m.sms,
        shape.resident_blocks,
        u64::from(shape.smem_per_block),
    );
    let opts = RunOptions {
        file: format!("{} (timing)", spec.kernel),
        ..RunOptions::default()
    };
    let (run, _) = run_timed(prog, spec, &opts, params, &load)
        .map_err(|e| format!("SASS emulator timing mode: {e}"))?;
    // The whole-GPU DRAM bound is reported, not imposed: the timing mode already queues this
    // SM's cold misses on its share of DRAM bandwidth, and a floor would hide the differences
    // between variants of a kernel near the bound (on the H100, heavy_fft_radix8's five variants
    // all predicted at the floor, measured 18.7–19.8 µs).
    let dram = mix.dram_bytes / m.dram_bytes_per_cycle();
    let cycles = run.cycles as f64;
    Ok((
        Prediction {
            us: cycles / m.clock_mhz,
            cycles,
            bound: Bound::Cycle,
            latency_cycles: cycles,
            throughput_cycles: dram,
        },
        run,
    ))
}
