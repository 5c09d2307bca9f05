//! The SASS emulator's cycle-level timing mode (issue 17's stronger predictor; RegDem §4 predicts
//! from static per-instruction costs, this runs the code): the CTAs one SM receives execute side by
//! side on a model of that SM — four warp schedulers issuing one instruction a cycle each, a warp
//! waiting the stall count ptxas wrote in the instruction's control bits and the scoreboards it
//! names, functional-unit pipes with their issue intervals, shared memory, an L1 with the capacity
//! the resident CTAs' shared memory leaves, and the SM's share of L2 and DRAM bandwidth. The
//! functional results are the emulator's own: the timing only decides the order.
//!
//! What the hardware does and this does not: register-bank conflicts, dual issue, the yield bit,
//! instruction-cache misses, the real L1's sets and replacement, L2 hits of lines other SMs
//! brought in (charged as the launch's average, `dram_fraction`). docs/tune.md, "The cycle-level
//! model", lists the figures and how well the whole reproduces H100 measurements.
//!
//! Modules: [`cache`] (the L1), [`memory`] (when an access completes), [`sm`] (the schedulers).

pub mod cache;
pub mod memory;
pub mod sm;

use serde::Serialize;

use crate::emu::error::{EmuError, EmuResult};
use crate::emu::launch::{LaunchSpec, OutBuffer, RunOptions};

use super::launch::{outputs, prepare};
use super::program::SassProgram;
use memory::MemoryCounters;

/// The SM the timing mode simulates. Latencies in cycles, throughputs per SM cycle.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct TimingParams {
    /// Warp schedulers (each issues at most one warp-instruction a cycle).
    pub schedulers: u32,
    /// Cycles between two FP32 warp-instructions on one scheduler.
    pub fp32_interval: f64,
    /// … INT32.
    pub int_interval: f64,
    /// … FP64.
    pub fp64_interval: f64,
    /// … MUFU and conversions.
    pub sfu_interval: f64,
    /// Latency of MUFU and conversions (scoreboarded), cycles.
    pub lat_sfu: f64,
    /// FP64 latency where FP64 is scoreboarded (few FP64 units).
    pub lat_fp64: f64,
    /// Other scoreboarded instructions (`S2R`, `LDC`, shuffles, tensor cores, barriers).
    pub lat_other: f64,
    /// Shared-memory load latency without conflicts.
    pub lat_smem: f64,
    /// L1 hit latency.
    pub lat_l1: f64,
    /// L2 hit latency.
    pub lat_l2: f64,
    /// DRAM latency.
    pub lat_dram: f64,
    /// Shared-memory wavefronts per cycle.
    pub smem_wavefronts: f64,
    /// 32-byte sectors the L1 moves per cycle.
    pub l1_sectors: f64,
    /// This SM's share of L2 bandwidth, bytes per cycle.
    pub l2_bytes: f64,
    /// Global store bytes this SM writes through to L2 per cycle (every touched sector counts
    /// whole, however few of its bytes the store writes).
    pub l2_store_bytes: f64,
    /// Cycles of backlog the L1/LSU path (tag stage, or L2 link) takes before a global or
    /// local memory instruction may not issue (the hardware's `lg_throttle` stall); infinite:
    /// never throttled.
    pub lsu_queue: f64,
    /// This SM's share of DRAM bandwidth, bytes per cycle.
    pub dram_bytes: f64,
    /// Of the bytes of lines this SM touches first, the share that comes from DRAM (the launch's
    /// compulsory traffic over its global traffic; the rest hits in L2).
    pub dram_fraction: f64,
    /// The share of local-memory store bytes that also go on to L2, at the store rate
    /// `l2_store_bytes` (0: the L1 holds local stores as a write-back cache; 1: write-through,
    /// the line kept clean, and a CTA's end waits for them as for global stores).
    pub local_store_l2: f64,
    /// The unified L1/shared array, bytes.
    pub l1_smem_bytes: u64,
    /// Dense f16 tensor-core FLOPs per cycle of the whole SM (0: tensor instructions take no
    /// pipe time, only `lat_other`). Other input types scale by their rate ([`tensor_cycles`]).
    pub tensor_flops: f64,
    /// Cycles between a CTA's end and the next CTA's first issue on the SM.
    pub cta_launch: u64,
    /// Cycles from a CTA barrier's release to its warps' next issue.
    pub barrier: u64,
}

impl Default for TimingParams {
    fn default() -> Self {
        TimingParams {
            schedulers: 4,
            fp32_interval: 1.0,
            int_interval: 2.0,
            fp64_interval: 2.0,
            sfu_interval: 8.0,
            lat_sfu: 18.0,
            lat_fp64: 8.0,
            lat_other: 20.0,
            lat_smem: 30.0,
            lat_l1: 35.0,
            lat_l2: 260.0,
            lat_dram: 500.0,
            smem_wavefronts: 1.0,
            l1_sectors: 4.0,
            l2_bytes: 21.0,
            l2_store_bytes: 21.0,
            lsu_queue: f64::INFINITY,
            dram_bytes: 12.8,
            dram_fraction: 0.5,
            local_store_l2: 0.0,
            l1_smem_bytes: 256 * 1024,
            tensor_flops: 0.0,
            cta_launch: 50,
            barrier: 8,
        }
    }
}

/// Cycles one warp's tensor-core instruction keeps its scheduler's tensor core busy: its share
/// of the multiply-adds (an `mma.sync` is one warp's; a warpgroup MMA is split over the four
/// warps of the warpgroup, one per scheduler), at `flops_per_sm` dense f16 FLOPs per SM cycle
/// and the input type's rate relative to f16 (NVIDIA's A100 and H100 data sheets: tf32 half,
/// 8-bit types twice, f64 a sixteenth). `None` where no rate is given.
pub fn tensor_cycles(
    kind: &super::decode::Kind,
    flops_per_sm: f64,
    schedulers: u32,
) -> Option<f64> {
    use super::decode::Kind;
    use crate::emu::tensor::Elem;
    if flops_per_sm <= 0.0 {
        return None;
    }
    let (flops, input) = match kind {
        Kind::Mma(m) => (2.0 * f64::from(m.m * m.n * m.k), m.a),
        Kind::Gmma(g) => (2.0 * 64.0 * f64::from(g.n * g.k) / 4.0, g.a),
        _ => return None,
    };
    let rate = match input {
        Elem::Tf32 | Elem::F32 => 0.5,
        Elem::S8 | Elem::U8 | Elem::E4m3 | Elem::E5m2 => 2.0,
        Elem::F64 => 1.0 / 16.0,
        _ => 1.0,
    };
    Some(flops / (flops_per_sm / f64::from(schedulers.max(1)) * rate))
}

/// Which CTAs the simulated SM runs and how many at once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SmLoad {
    /// The CTAs (grid indices) in the order they start.
    pub ctas: Vec<[u32; 3]>,
    /// CTAs resident at once (the occupancy calculator's blocks per SM).
    pub resident: u32,
    /// Shared memory per CTA (static + dynamic), bytes: the L1 gets what the resident CTAs leave.
    pub smem_per_cta: u64,
}

impl SmLoad {
    /// The CTAs the busiest SM of `sms` receives from a grid of `grid` (a launch spec's one to
    /// three extents; missing ones are 1) when the hardware hands CTAs out round robin (SM 0 gets
    /// CTAs 0, `sms`, 2·`sms`, … in linear order).
    pub fn busiest(grid: &[u32], sms: u32, resident: u32, smem_per_cta: u64) -> SmLoad {
        let [gx, gy, gz] = [0, 1, 2].map(|d| grid.get(d).copied().unwrap_or(1).max(1));
        let total = u64::from(gx) * u64::from(gy) * u64::from(gz);
        let ctas = (0..total)
            .step_by(sms.max(1) as usize)
            .map(|i| {
                let i = i as u32;
                [i % gx, (i / gx) % gy, i / (gx * gy)]
            })
            .collect();
        SmLoad {
            ctas,
            resident: resident.max(1),
            smem_per_cta,
        }
    }
}

/// What a timed run measured.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TimedRun {
    /// Cycles from the first issue to the last CTA's end.
    pub cycles: u64,
    /// CTAs run.
    pub ctas: u32,
    /// Warp-instructions issued.
    pub warp_insts: u64,
    /// Scheduler-cycles with nothing to issue, by what held the oldest waiting warp back:
    /// a stall count, a scoreboard, a busy pipe, a barrier (or BSYNC/WARPSYNC).
    pub idle_stall: u64,
    /// … a scoreboard.
    pub idle_scoreboard: u64,
    /// … a busy pipe.
    pub idle_pipe: u64,
    /// … a full L1/LSU queue (global and local memory instructions; `lsu_queue`).
    pub idle_throttle: u64,
    /// … a barrier, or no warp at all.
    pub idle_other: u64,
    /// The memory system's counters.
    pub memory: MemoryCounters,
}

impl TimedRun {
    /// Where the schedulers' idle cycles went and how the L1 did, in one line.
    pub fn summary(&self) -> String {
        format!(
            "idle scheduler-cycles: stall {}, scoreboard {}, pipe {}, throttle {}, other {}; L1 {} \
             hit / {} missed sectors",
            self.idle_stall,
            self.idle_scoreboard,
            self.idle_pipe,
            self.idle_throttle,
            self.idle_other,
            self.memory.l1_hit_sectors,
            self.memory.l1_miss_sectors
        )
    }
}

/// Runs the CTAs of `load` of the launch `spec` on the timing model of one SM; returns what it
/// measured and every buffer argument after the run (the CTAs that did not run left their
/// outputs untouched; with every CTA on the SM, the functional run's bytes).
pub fn run_timed(
    prog: &SassProgram,
    spec: &LaunchSpec,
    opts: &RunOptions,
    params: &TimingParams,
    load: &SmLoad,
) -> EmuResult<(TimedRun, Vec<OutBuffer>)> {
    if load.ctas.is_empty() {
        return Err(EmuError::Spec(
            "the timing mode needs at least one CTA".into(),
        ));
    }
    let (mut machine, outputs_of_run) = prepare(prog, spec, opts)?;
    if machine.cluster_ctas() > 1 {
        return Err(EmuError::Limit {
            at: None,
            what: format!(
                "the timing mode runs clusters of one CTA only; this launch has clusters of {}",
                machine.cluster_ctas()
            ),
        });
    }
    let kernel = prog
        .kernel(&spec.kernel)
        .ok_or_else(|| EmuError::Spec(format!("no kernel `{}`", spec.kernel)))?;
    let l1 = params
        .l1_smem_bytes
        .saturating_sub(u64::from(load.resident) * load.smem_per_cta);
    let run = sm::Sm::new(&mut machine, kernel, *params, l1).run(load)?;
    Ok((run, outputs(prog, outputs_of_run, &machine.global)))
}

#[cfg(test)]
mod tests {
    use super::tensor_cycles;
    use crate::emu::tensor::{Elem, MmaSpec};
    use crate::emu::wgmma::WgmmaSpec;
    use crate::sass::emu::decode::Kind;

    fn mma(m: u32, n: u32, k: u32, a: Elem) -> Kind {
        Kind::Mma(MmaSpec {
            m,
            n,
            k,
            d: Elem::F32,
            a,
            b: a,
            c: Elem::F32,
            satfinite: false,
        })
    }

    fn gmma(n: u32, k: u32, a: Elem) -> Kind {
        Kind::Gmma(WgmmaSpec {
            n,
            k,
            d: Elem::F32,
            a,
            b: a,
            satfinite: false,
        })
    }

    #[test]
    fn tensor_instructions_take_their_share_of_the_sm_rate() {
        // H100: 4096 dense f16 FLOPs per SM cycle, 1024 per scheduler.
        let h100 = |k: &Kind| tensor_cycles(k, 4096.0, 4);
        assert_eq!(h100(&mma(16, 8, 16, Elem::F16)), Some(4.0));
        assert_eq!(h100(&mma(16, 8, 8, Elem::Tf32)), Some(4.0));
        assert_eq!(h100(&mma(16, 8, 32, Elem::S8)), Some(4.0));
        // A warpgroup MMA is split over its four warps: m64n64k16 f16, 32 cycles each.
        assert_eq!(h100(&gmma(64, 16, Elem::F16)), Some(32.0));
        assert_eq!(h100(&gmma(256, 32, Elem::E4m3)), Some(128.0));
        // A100: half the f16 rate.
        assert_eq!(
            tensor_cycles(&mma(16, 8, 16, Elem::Bf16), 2048.0, 4),
            Some(8.0)
        );
        // No rate given, or not a tensor instruction: no pipe time.
        assert_eq!(tensor_cycles(&mma(16, 8, 16, Elem::F16), 0.0, 4), None);
        assert_eq!(tensor_cycles(&Kind::Nop, 4096.0, 4), None);
    }
}
