//! The analytic performance model (RegDem §4: occupancy and instruction throughput decide which
//! register-allocation variant is fastest). A launch's time on the busiest SM is the largest of
//! its throughput bounds (issue, each pipe, the L1/LSU path, shared-memory wavefronts, DRAM, and
//! L2 for the local traffic the L1 cannot hold) and
//! its latency bound (each warp's dependent latencies, overlapped across the warps resident at
//! once: more occupancy hides more latency, until a throughput bound is reached; local memory hits
//! L1 while the resident threads' stack fits beside their shared memory). Equations and
//! sources: docs/tune.md, "The analytic model".

use serde::Serialize;

use super::params::MachineParams;

/// What the launch executes, summed over the whole grid (warp-level counts).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Mix {
    /// All warp-instructions.
    pub warp_insts: f64,
    /// Integer warp-instructions.
    pub int: f64,
    /// FP32/FP16 warp-instructions.
    pub fp32: f64,
    /// FP64 warp-instructions.
    pub fp64: f64,
    /// MUFU warp-instructions.
    pub sfu: f64,
    /// Global (and generic) memory requests (warp-instructions).
    pub global_requests: f64,
    /// Their 32-byte sectors.
    pub global_sectors: f64,
    /// Local memory requests.
    pub local_requests: f64,
    /// Their 32-byte sectors.
    pub local_sectors: f64,
    /// Shared memory requests.
    pub shared_requests: f64,
    /// Their wavefronts (one per request without bank conflicts).
    pub shared_wavefronts: f64,
    /// Bytes that must come from or go to DRAM (at most the launch's buffers once).
    pub dram_bytes: f64,
}

/// The launch's shape and occupancy.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Shape {
    /// Blocks in the grid.
    pub blocks: u64,
    /// Warps per block.
    pub warps_per_block: u32,
    /// Blocks resident per SM at once (the occupancy calculator's answer).
    pub resident_blocks: u32,
    /// Local memory (stack frame) per thread, bytes: its working set competes for L1.
    pub local_bytes_per_thread: u32,
    /// Shared memory per block (static + dynamic), bytes: it takes its share of the L1/shared
    /// array.
    pub smem_per_block: u32,
}

/// Which bound set the time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Bound {
    /// Warp-instruction issue.
    Issue,
    /// A functional-unit pipe (FP32, INT, FP64, MUFU).
    Pipe,
    /// The L1/LSU path (global and local sectors).
    L1,
    /// Shared-memory wavefronts.
    SharedMemory,
    /// DRAM bandwidth.
    Dram,
    /// L2 bandwidth (local traffic the L1 cannot hold).
    L2,
    /// Dependent latency not hidden by the resident warps.
    Latency,
    /// The SASS emulator's timing mode (the cycle-level predictor, [`super::cycle`]).
    Cycle,
}

/// The model's answer.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Prediction {
    /// Predicted kernel time, µs (launch overhead not included).
    pub us: f64,
    /// The same in SM cycles.
    pub cycles: f64,
    /// The bound that set it.
    pub bound: Bound,
    /// The latency bound, cycles.
    pub latency_cycles: f64,
    /// The largest throughput bound, cycles.
    pub throughput_cycles: f64,
}

/// Predicts the time of a launch that executes `mix` with `shape` on `m`.
pub fn predict(m: &MachineParams, mix: &Mix, shape: &Shape) -> Prediction {
    let blocks = shape.blocks.max(1) as f64;
    // The busiest SM runs ceil(blocks / SMs) blocks, in waves of at most `resident` blocks.
    let on_sm = (blocks / f64::from(m.sms)).ceil();
    let resident = f64::from(shape.resident_blocks.max(1)).min(on_sm);
    let waves = (on_sm / resident).ceil();
    let share = on_sm / blocks;
    let bounds = [
        (
            Bound::Issue,
            share * mix.warp_insts / f64::from(m.schedulers),
        ),
        (Bound::Pipe, share * pipe_cycles(m, mix)),
        (
            Bound::L1,
            share * (mix.global_sectors + mix.local_sectors) / m.l1_sectors_per_cycle,
        ),
        (
            Bound::SharedMemory,
            share * mix.shared_wavefronts / m.smem_wavefronts_per_cycle,
        ),
        (Bound::Dram, mix.dram_bytes / m.dram_bytes_per_cycle()),
        (
            Bound::L2,
            share * mix.local_sectors * 32.0 * (1.0 - local_hit(m, shape, resident))
                / m.l2_bytes_per_cycle,
        ),
    ];
    let (tbound, throughput) =
        bounds
            .iter()
            .copied()
            .fold((Bound::Issue, 0.0f64), |a, b| if b.1 > a.1 { b } else { a });
    let warps = blocks * f64::from(shape.warps_per_block.max(1));
    let latency = waves * warp_latency(m, mix, warps, local_latency(m, shape, resident));
    let (bound, cycles) = if latency > throughput {
        (Bound::Latency, latency)
    } else {
        (tbound, throughput)
    };
    Prediction {
        us: cycles / m.clock_mhz,
        cycles,
        bound,
        latency_cycles: latency,
        throughput_cycles: throughput,
    }
}

/// The latency of a global request: DRAM for the share of requests that reach it (compulsory
/// bytes over the bytes the requests would move coalesced, 4 bytes a lane), L2 for the rest.
fn global_latency(m: &MachineParams, mix: &Mix) -> f64 {
    let coalesced_bytes = mix.global_requests * 128.0;
    let dram_share = if coalesced_bytes > 0.0 {
        (mix.dram_bytes / coalesced_bytes).clamp(0.0, 1.0)
    } else {
        0.0
    };
    dram_share * m.lat_dram + (1.0 - dram_share) * m.lat_l2
}

/// The latency of a local access: an L1 hit while the resident threads' local working set fits
/// the L1 left beside their shared memory, an L2 hit for the share that does not.
fn local_latency(m: &MachineParams, shape: &Shape, resident: f64) -> f64 {
    let hit = local_hit(m, shape, resident);
    hit * m.lat_l1 + (1.0 - hit) * m.lat_l2
}

/// The share of local accesses the L1 serves: the L1 left beside the resident blocks' shared
/// memory over the resident threads' local working set.
fn local_hit(m: &MachineParams, shape: &Shape, resident: f64) -> f64 {
    let threads = resident * f64::from(shape.warps_per_block) * 32.0;
    let working_set = threads * f64::from(shape.local_bytes_per_thread);
    let l1 =
        (f64::from(m.l1_smem_kib) * 1024.0 - resident * f64::from(shape.smem_per_block)).max(0.0);
    if working_set > 0.0 {
        (l1 / working_set).min(1.0)
    } else {
        1.0
    }
}

/// Cycles the busiest functional-unit pipe needs for the whole mix on one SM.
fn pipe_cycles(m: &MachineParams, mix: &Mix) -> f64 {
    let lanes = |n: f64, per_cycle: u32| n * 32.0 / f64::from(per_cycle.max(1));
    [
        lanes(mix.fp32, m.fp32_lanes),
        lanes(mix.int, m.int_lanes),
        lanes(mix.fp64, m.fp64_lanes),
        lanes(mix.sfu, m.sfu_lanes),
    ]
    .into_iter()
    .fold(0.0, f64::max)
}

/// The dependent latency of one average warp, cycles: every instruction waits for its
/// predecessor (no instruction-level parallelism is assumed), memory requests for their level of
/// the hierarchy plus one cycle per extra sector or wavefront they need.
fn warp_latency(m: &MachineParams, mix: &Mix, warps: f64, lat_local: f64) -> f64 {
    let mem = mix.global_requests + mix.local_requests + mix.shared_requests;
    let alu = (mix.warp_insts - mem - mix.fp64 - mix.sfu).max(0.0);
    let lat_global = global_latency(m, mix);
    let replays = (mix.global_sectors - mix.global_requests).max(0.0)
        + (mix.local_sectors - mix.local_requests).max(0.0)
        + (mix.shared_wavefronts - mix.shared_requests).max(0.0);
    let total = alu * m.lat_alu
        + mix.fp64 * m.lat_fp64
        + mix.sfu * m.lat_sfu
        + mix.global_requests * lat_global
        + mix.local_requests * lat_local
        + mix.shared_requests * m.lat_smem
        + replays;
    total / warps.max(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tune::params::machine;

    fn h100() -> &'static MachineParams {
        machine("sm_90").unwrap()
    }

    /// A mix that is latency-bound with up to 3 resident blocks of 8 warps and throughput-bound
    /// (INT pipe) from 4 on.
    fn latency_mix() -> Mix {
        Mix {
            warp_insts: 1_000_000.0,
            int: 970_000.0,
            global_requests: 30_000.0,
            global_sectors: 120_000.0,
            dram_bytes: 400_000.0,
            ..Mix::default()
        }
    }

    fn shape(resident: u32) -> Shape {
        Shape {
            blocks: 132 * 8,
            warps_per_block: 8,
            resident_blocks: resident,
            local_bytes_per_thread: 64,
            smem_per_block: 0,
        }
    }

    #[test]
    fn more_local_traffic_is_slower() {
        let mut prev = predict(h100(), &latency_mix(), &shape(2)).us;
        for k in 1..5 {
            let mix = Mix {
                warp_insts: latency_mix().warp_insts + 2000.0 * f64::from(k),
                local_requests: 2000.0 * f64::from(k),
                local_sectors: 8000.0 * f64::from(k),
                ..latency_mix()
            };
            let t = predict(h100(), &mix, &shape(2)).us;
            assert!(t > prev, "{k}: {t} after {prev}");
            prev = t;
        }
    }

    #[test]
    fn local_traffic_the_l1_cannot_hold_is_bound_by_l2_bandwidth() {
        // 4 KiB of local memory per thread: 8 resident blocks of 256 threads hold 8 MiB, far
        // past the L1, so the local sectors cross to L2.
        let mix = Mix {
            warp_insts: 100_000.0,
            int: 100_000.0,
            local_requests: 1_000_000.0,
            local_sectors: 4_000_000.0,
            ..Mix::default()
        };
        let sh = Shape {
            blocks: 132 * 8,
            warps_per_block: 8,
            resident_blocks: 8,
            local_bytes_per_thread: 4096,
            smem_per_block: 0,
        };
        let p = predict(h100(), &mix, &sh);
        assert_eq!(p.bound, Bound::L2, "{p:?}");
        // The same traffic in a working set the L1 holds is not L2-bound.
        let small = predict(
            h100(),
            &mix,
            &Shape {
                local_bytes_per_thread: 16,
                ..sh
            },
        );
        assert_ne!(small.bound, Bound::L2, "{small:?}");
        assert!(small.us < p.us);
    }

    #[test]
    fn occupancy_helps_a_latency_bound_mix_up_to_the_hiding_point() {
        let t: Vec<Prediction> = (1..=8)
            .map(|r| predict(h100(), &latency_mix(), &shape(r)))
            .collect();
        for p in &t[..3] {
            assert_eq!(p.bound, Bound::Latency, "{t:?}");
        }
        assert!(t[1].us < t[0].us && t[2].us < t[1].us, "{t:?}");
        // From 4 resident blocks the INT pipe is the limit: more occupancy changes nothing.
        for p in &t[3..] {
            assert_eq!(p.bound, Bound::Pipe, "{t:?}");
            assert!((p.us - t[3].us).abs() < 1e-9, "{t:?}");
        }
        assert!(t[3].us < t[2].us, "{t:?}");
    }

    #[test]
    fn local_memory_beyond_l1_is_slower() {
        let mix = Mix {
            warp_insts: latency_mix().warp_insts + 20_000.0,
            local_requests: 20_000.0,
            local_sectors: 80_000.0,
            ..latency_mix()
        };
        let at = |bytes: u32, smem: u32| {
            predict(
                h100(),
                &mix,
                &Shape {
                    local_bytes_per_thread: bytes,
                    smem_per_block: smem,
                    ..shape(2)
                },
            )
            .us
        };
        // 2 blocks × 256 threads × 256 B fit in L1; × 2 KiB do not; shared memory shrinks L1.
        assert!(at(2048, 0) > at(256, 0));
        assert!(at(256, 100 * 1024) > at(256, 0));
    }

    #[test]
    fn occupancy_does_not_help_a_throughput_bound_mix() {
        let mix = Mix {
            warp_insts: 10_000_000.0,
            fp64: 10_000_000.0,
            ..Mix::default()
        };
        let a = predict(h100(), &mix, &shape(2));
        let b = predict(h100(), &mix, &shape(8));
        assert_eq!(a.bound, Bound::Pipe);
        assert!((a.us - b.us).abs() < 1e-9);
    }

    #[test]
    fn bank_conflicts_and_uncoalesced_sectors_cost_time() {
        let smem = |wave: f64| Mix {
            warp_insts: 50_000.0,
            shared_requests: 20_000.0,
            shared_wavefronts: wave,
            ..Mix::default()
        };
        let few = Shape {
            blocks: 132,
            warps_per_block: 4,
            resident_blocks: 1,
            local_bytes_per_thread: 0,
            smem_per_block: 0,
        };
        assert!(
            predict(h100(), &smem(80_000.0), &few).us > predict(h100(), &smem(20_000.0), &few).us
        );
        let glob = |sectors: f64| Mix {
            global_sectors: sectors,
            ..latency_mix()
        };
        assert!(
            predict(h100(), &glob(480_000.0), &shape(1)).us
                > predict(h100(), &glob(120_000.0), &shape(1)).us
        );
    }

    #[test]
    fn empty_launch_takes_no_time_and_scales_with_the_clock() {
        let p = predict(h100(), &Mix::default(), &shape(4));
        assert_eq!(p.us, 0.0);
        let q = predict(h100(), &latency_mix(), &shape(4));
        assert!((q.us - q.cycles / 1980.0).abs() < 1e-12);
    }
}
