//! Per-architecture machine parameters of the performance predictor (RegDem §4 uses per-instruction
//! stalls and throughputs of the target; this is the same idea, one table per architecture).
//!
//! Throughputs (lanes per cycle per SM) are those of NVIDIA's CUDA C++ Programming Guide,
//! "Arithmetic Instructions" throughput table. Latencies (cycles) are round values in the range
//! the microbenchmark papers cited in docs/tune.md report (Jia et al. 2018 for Volta, 2019 for
//! Turing; Abdelkhalik et al. 2022 for Ampere; Luo et al. 2024/2025 for Hopper): dependent
//! ALU issue, shared memory, L1 hit, L2 hit and DRAM. SM counts, clocks and DRAM bandwidth are the
//! data-centre part of each generation NVIDIA's data sheets give (the H100 SXM for sm_90), and the
//! L1/shared-memory array per SM that its architecture whitepaper and tuning guide give.

/// The predictor's view of one GPU.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct MachineParams {
    /// The architecture (`sm_80`).
    pub arch: &'static str,
    /// The part these figures describe.
    pub part: &'static str,
    /// Streaming multiprocessors.
    pub sms: u32,
    /// Boost clock, MHz.
    pub clock_mhz: f64,
    /// Warp schedulers per SM (each issues one warp-instruction per cycle).
    pub schedulers: u32,
    /// FP32 lanes per cycle per SM.
    pub fp32_lanes: u32,
    /// INT32 lanes per cycle per SM.
    pub int_lanes: u32,
    /// FP64 lanes per cycle per SM.
    pub fp64_lanes: u32,
    /// Special-function (MUFU) lanes per cycle per SM.
    pub sfu_lanes: u32,
    /// 32-byte sectors the L1/LSU path moves per cycle per SM (128 B/cycle).
    pub l1_sectors_per_cycle: f64,
    /// The unified L1 data cache / shared memory array per SM, KiB.
    pub l1_smem_kib: u32,
    /// Shared-memory wavefronts per cycle per SM.
    pub smem_wavefronts_per_cycle: f64,
    /// DRAM bandwidth, GB/s (the whole GPU).
    pub dram_gbps: f64,
    /// L2 bandwidth, bytes per SM clock cycle per SM (approximate: the whole L2's measured
    /// read bandwidth in public microbenchmarks over SMs × clock; see docs/tune.md).
    pub l2_bytes_per_cycle: f64,
    /// This SM's global-store bytes written through to L2 per cycle, every touched sector
    /// counted whole (the cycle-level model). Measured on the H100 only (docs/tune.md, "Stores
    /// and the LSU queue"); elsewhere the L2 share.
    pub l2_store_bytes_per_cycle: f64,
    /// Cycles of L1/LSU backlog before global and local memory instructions stop issuing (the
    /// hardware's `lg_throttle`; the cycle-level model). H100 only; elsewhere unbounded.
    pub lsu_queue_cycles: f64,
    /// Local-memory stores are written through to L2 (at `l2_store_bytes_per_cycle`) rather
    /// than held in the L1 until evicted (the cycle-level model). Measured on Hopper only
    /// (Nsight Compute on an H200, 30 Nov 2026: every local store sector reached L2; docs/tune.md,
    /// "Local stores reach L2"); elsewhere write-back, unmeasured.
    pub local_stores_write_through: bool,
    /// Dependent-issue latency of integer and FP32 instructions, cycles.
    pub lat_alu: f64,
    /// FP64 latency, cycles.
    pub lat_fp64: f64,
    /// MUFU latency, cycles.
    pub lat_sfu: f64,
    /// Shared-memory load latency (no conflict), cycles.
    pub lat_smem: f64,
    /// L1 hit latency (local memory, which spills hit in L1), cycles.
    pub lat_l1: f64,
    /// L2 hit latency, cycles.
    pub lat_l2: f64,
    /// DRAM latency, cycles.
    pub lat_dram: f64,
    /// Dense f16 tensor-core FLOPs (f32 accumulate) per cycle per SM: the data sheet's peak
    /// over SMs × its boost clock (A100 SXM4: 312 TFLOPS, 108 SMs, 1410 MHz → 2048; H100 SXM5:
    /// 989.4 TFLOPS, 132 SMs, 1830 MHz → 4096). 0 where not given: tensor instructions then
    /// take no pipe time in the cycle-level model.
    pub tensor_flops: f64,
}

const fn base(
    arch: &'static str,
    part: &'static str,
    sms: u32,
    clock_mhz: f64,
    dram_gbps: f64,
    l1_smem_kib: u32,
    l2_bytes_per_cycle: f64,
) -> MachineParams {
    MachineParams {
        arch,
        part,
        sms,
        clock_mhz,
        schedulers: 4,
        fp32_lanes: 64,
        int_lanes: 64,
        fp64_lanes: 32,
        sfu_lanes: 16,
        l1_sectors_per_cycle: 4.0,
        l1_smem_kib,
        smem_wavefronts_per_cycle: 1.0,
        dram_gbps,
        l2_bytes_per_cycle,
        l2_store_bytes_per_cycle: l2_bytes_per_cycle,
        lsu_queue_cycles: f64::INFINITY,
        local_stores_write_through: false,
        lat_alu: 4.0,
        lat_fp64: 8.0,
        lat_sfu: 18.0,
        lat_smem: 24.0,
        lat_l1: 32.0,
        lat_l2: 200.0,
        lat_dram: 450.0,
        tensor_flops: 0.0,
    }
}

/// Every architecture the predictor knows.
pub const MACHINES: &[MachineParams] = &[
    base("sm_70", "Tesla V100 SXM2", 80, 1530.0, 900.0, 128, 17.0),
    MachineParams {
        fp64_lanes: 2,
        lat_l2: 190.0,
        ..base("sm_75", "Tesla T4", 40, 1590.0, 320.0, 96, 20.0)
    },
    MachineParams {
        lat_smem: 24.0,
        tensor_flops: 2048.0,
        ..base("sm_80", "A100 SXM4 40 GB", 108, 1410.0, 1555.0, 192, 31.0)
    },
    MachineParams {
        fp32_lanes: 128,
        fp64_lanes: 2,
        ..base("sm_86", "A10", 72, 1695.0, 600.0, 128, 16.0)
    },
    MachineParams {
        fp32_lanes: 128,
        fp64_lanes: 2,
        lat_l2: 260.0,
        lat_dram: 500.0,
        ..base("sm_89", "L4", 58, 2040.0, 300.0, 128, 17.0)
    },
    MachineParams {
        fp32_lanes: 128,
        fp64_lanes: 64,
        lat_smem: 30.0,
        lat_l1: 35.0,
        lat_l2: 260.0,
        lat_dram: 500.0,
        l2_store_bytes_per_cycle: 11.0,
        lsu_queue_cycles: 64.0,
        local_stores_write_through: true,
        tensor_flops: 4096.0,
        ..base("sm_90", "H100 SXM5", 132, 1980.0, 3350.0, 256, 21.0)
    },
];

/// The parameters of `arch` (`sm_90a` reads as `sm_90`), if known.
pub fn machine(arch: &str) -> Option<&'static MachineParams> {
    let a = arch.trim_end_matches(['a', 'f']);
    MACHINES.iter().find(|m| m.arch == a)
}

impl MachineParams {
    /// DRAM bytes per SM clock cycle (the whole GPU).
    pub fn dram_bytes_per_cycle(&self) -> f64 {
        self.dram_gbps * 1e9 / (self.clock_mhz * 1e6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_occupancy_arch_has_parameters() {
        for a in [
            "sm_70", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a",
        ] {
            assert!(machine(a).is_some(), "{a}");
        }
        assert!(machine("sm_52").is_none());
        let h = machine("sm_90").unwrap();
        assert!((h.dram_bytes_per_cycle() - 3350.0 / 1.98).abs() < 1e-6);
    }
}
