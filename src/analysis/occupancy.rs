//! The occupancy calculator: how many blocks and warps of a kernel fit on one SM, which resource
//! limits it, and at which register counts occupancy changes ("cliffs").
//!
//! It follows the rules of NVIDIA's `cuda_occupancy.h` (the header behind
//! `cudaOccupancyMaxActiveBlocksPerMultiprocessor`) for sm_70 … sm_90, sm_100 and sm_120:
//! - registers are allocated per warp, `regs·32` rounded up to 256, inside each of the 4 SM
//!   sub-partitions (so the warps that fit are `4 · ⌊(65536/4) / regs_per_warp⌋`), and a block must
//!   also pass the per-block register check with its warp count rounded up to the sub-partitions;
//! - shared memory per block is static + dynamic + the per-block reservation (1 KiB on sm_80+),
//!   rounded up to the allocation unit (256 B on sm_7x, 128 B on sm_8x/9x), against the carve-out
//!   configured for the SM (by default the largest, which is what the driver picks when the largest
//!   occupancy needs it);
//! - warps per SM, blocks per SM and threads per block have fixed limits per architecture.
//!
//! RegDem §3 and Sampaio §3 use these figures to decide how many registers a kernel may keep.

use std::fmt;

/// Fixed resources of one architecture (CUDA Programming Guide, "Compute capabilities" table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArchLimits {
    /// `sm_XX`.
    pub name: &'static str,
    /// Compute capability ×10 (80 for sm_80).
    pub cc: u32,
    /// Most resident warps per SM.
    pub max_warps_per_sm: u32,
    /// Most resident blocks per SM.
    pub max_blocks_per_sm: u32,
    /// Most threads per block.
    pub max_threads_per_block: u32,
    /// 32-bit registers per SM.
    pub regs_per_sm: u32,
    /// 32-bit registers one block may use.
    pub regs_per_block: u32,
    /// Most registers per thread.
    pub max_regs_per_thread: u32,
    /// Registers are allocated to a warp in units of this many.
    pub reg_alloc_unit: u32,
    /// SM sub-partitions (register file banks that warps are spread over).
    pub sub_partitions: u32,
    /// The shared-memory carve-outs an SM can be configured with, in KiB, ascending.
    pub smem_carveouts_kib: &'static [u32],
    /// Most shared memory one block may use (opt-in above 48 KiB), in bytes.
    pub max_smem_per_block: u32,
    /// Shared memory the system reserves per block, in bytes.
    pub reserved_smem_per_block: u32,
    /// Shared memory is allocated in units of this many bytes.
    pub smem_alloc_unit: u32,
}

const KIB: u32 = 1024;

/// The architectures warpsmith knows, oldest first.
pub const ARCHS: &[ArchLimits] = &[
    ArchLimits {
        name: "sm_70",
        cc: 70,
        max_warps_per_sm: 64,
        max_blocks_per_sm: 32,
        max_threads_per_block: 1024,
        regs_per_sm: 65536,
        regs_per_block: 65536,
        max_regs_per_thread: 255,
        reg_alloc_unit: 256,
        sub_partitions: 4,
        smem_carveouts_kib: &[0, 8, 16, 32, 64, 96],
        max_smem_per_block: 96 * KIB,
        reserved_smem_per_block: 0,
        smem_alloc_unit: 256,
    },
    ArchLimits {
        name: "sm_75",
        cc: 75,
        max_warps_per_sm: 32,
        max_blocks_per_sm: 16,
        max_threads_per_block: 1024,
        regs_per_sm: 65536,
        regs_per_block: 65536,
        max_regs_per_thread: 255,
        reg_alloc_unit: 256,
        sub_partitions: 4,
        smem_carveouts_kib: &[32, 64],
        max_smem_per_block: 64 * KIB,
        reserved_smem_per_block: 0,
        smem_alloc_unit: 256,
    },
    ArchLimits {
        name: "sm_80",
        cc: 80,
        max_warps_per_sm: 64,
        max_blocks_per_sm: 32,
        max_threads_per_block: 1024,
        regs_per_sm: 65536,
        regs_per_block: 65536,
        max_regs_per_thread: 255,
        reg_alloc_unit: 256,
        sub_partitions: 4,
        smem_carveouts_kib: &[0, 8, 16, 32, 64, 100, 132, 164],
        max_smem_per_block: 163 * KIB,
        reserved_smem_per_block: KIB,
        smem_alloc_unit: 128,
    },
    ArchLimits {
        name: "sm_86",
        cc: 86,
        max_blocks_per_sm: 16,
        ..SM_89
    },
    SM_89,
    SM_90,
    // Blackwell, from CUDA 13's `cuda_occupancy.h` (compute capability 10.0 as 9.0 — blocks per
    // SM, register and shared-memory units, sub-partitions, carve-outs to 228 KiB —; 12.x with 24
    // blocks and carve-outs to 100 KiB, as 8.9), the programming guide (2048 threads per SM on
    // 10.0, 1536 on 12.0) and CUTLASS's opt-in per-block capacities `sm100_smem_capacity_bytes`
    // (232448 = 227 KiB) and `sm120_smem_capacity_bytes` (101376 = 99 KiB).
    ArchLimits {
        name: "sm_100",
        cc: 100,
        ..SM_90
    },
    ArchLimits {
        name: "sm_120",
        cc: 120,
        ..SM_89
    },
];

/// Ada (compute capability 8.9); consumer Blackwell (12.0) has the same limits.
const SM_89: ArchLimits = ArchLimits {
    name: "sm_89",
    cc: 89,
    max_warps_per_sm: 48,
    max_blocks_per_sm: 24,
    max_threads_per_block: 1024,
    regs_per_sm: 65536,
    regs_per_block: 65536,
    max_regs_per_thread: 255,
    reg_alloc_unit: 256,
    sub_partitions: 4,
    smem_carveouts_kib: &[0, 8, 16, 32, 64, 100],
    max_smem_per_block: 99 * KIB,
    reserved_smem_per_block: KIB,
    smem_alloc_unit: 128,
};

/// Hopper (compute capability 9.0); datacenter Blackwell (10.0) has the same limits.
const SM_90: ArchLimits = ArchLimits {
    name: "sm_90",
    cc: 90,
    max_warps_per_sm: 64,
    max_blocks_per_sm: 32,
    max_threads_per_block: 1024,
    regs_per_sm: 65536,
    regs_per_block: 65536,
    max_regs_per_thread: 255,
    reg_alloc_unit: 256,
    sub_partitions: 4,
    smem_carveouts_kib: &[0, 8, 16, 32, 64, 100, 132, 164, 196, 228],
    max_smem_per_block: 227 * KIB,
    reserved_smem_per_block: KIB,
    smem_alloc_unit: 128,
};

/// The names of [`ARCHS`], comma-separated (for messages).
pub fn known_archs() -> String {
    ARCHS.iter().map(|a| a.name).collect::<Vec<_>>().join(", ")
}

/// Looks up an architecture by name: `sm_90`, `sm_90a`, `compute_90`, `90`.
pub fn arch(name: &str) -> Result<&'static ArchLimits, OccupancyError> {
    let digits: String = name
        .trim_start_matches("sm_")
        .trim_start_matches("compute_")
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    let cc: u32 = digits
        .parse()
        .map_err(|_| OccupancyError::UnknownArch(name.to_string()))?;
    ARCHS
        .iter()
        .find(|a| a.cc == cc)
        .ok_or_else(|| OccupancyError::UnknownArch(name.to_string()))
}

/// What a kernel launch asks of an SM.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchResources {
    /// Registers per thread (as `ptxas -v` reports them).
    pub regs_per_thread: u32,
    /// Threads per block.
    pub threads_per_block: u32,
    /// Static shared memory per block, bytes.
    pub static_smem: u32,
    /// Dynamic shared memory per block, bytes.
    pub dynamic_smem: u32,
    /// Shared-memory carve-out in KiB; `None` for the largest the architecture offers. A value
    /// between two options is rounded up to the next one, as the driver does.
    pub carveout_kib: Option<u32>,
}

/// Why a configuration cannot run, or a bad request.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OccupancyError {
    /// Not one of [`ARCHS`].
    #[error("unknown architecture `{0}` (known: {known})", known = known_archs())]
    UnknownArch(String),
    /// Threads per block is 0 or above the architecture's limit.
    #[error("{threads} threads per block is not allowed on {arch} (1 to {max})")]
    BadBlockSize {
        arch: &'static str,
        threads: u32,
        max: u32,
    },
    /// More registers per thread than the architecture has.
    #[error("{regs} registers per thread is more than {arch} allows ({max})")]
    TooManyRegisters {
        arch: &'static str,
        regs: u32,
        max: u32,
    },
    /// The block's registers do not fit the per-block register file.
    #[error("a block of {threads} threads at {regs} registers needs {need} registers; {arch} gives a block at most {max}")]
    BlockRegisters {
        arch: &'static str,
        threads: u32,
        regs: u32,
        need: u32,
        max: u32,
    },
    /// The block's shared memory does not fit.
    #[error("a block needs {need} bytes of shared memory (static + dynamic + {reserved} reserved); {arch} allows {max} per block with this carve-out")]
    BlockSharedMemory {
        arch: &'static str,
        need: u32,
        reserved: u32,
        max: u32,
    },
}

/// The resource that limits resident blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Limiter {
    /// Registers.
    Registers,
    /// Shared memory.
    SharedMemory,
    /// Resident warps per SM.
    Warps,
    /// Resident blocks per SM.
    Blocks,
}

impl fmt::Display for Limiter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Limiter::Registers => "registers",
            Limiter::SharedMemory => "shared memory",
            Limiter::Warps => "warps per SM",
            Limiter::Blocks => "blocks per SM",
        })
    }
}

/// The answer for one configuration.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Occupancy {
    /// The architecture.
    pub arch: &'static str,
    /// Resident blocks per SM.
    pub blocks_per_sm: u32,
    /// Resident warps per SM.
    pub warps_per_sm: u32,
    /// Resident warps / the architecture's maximum.
    pub occupancy: f64,
    /// What each resource alone would allow, in blocks.
    pub blocks_by_registers: u32,
    /// Blocks allowed by shared memory.
    pub blocks_by_shared_memory: u32,
    /// Blocks allowed by the warp limit.
    pub blocks_by_warps: u32,
    /// Blocks allowed by the block limit.
    pub blocks_by_blocks: u32,
    /// The resources that limit `blocks_per_sm` (all that reach the minimum).
    pub limited_by: Vec<Limiter>,
    /// Registers allocated per warp.
    pub regs_per_warp: u32,
    /// Shared memory one block takes, reservation and rounding included.
    pub smem_per_block: u32,
    /// The carve-out used, KiB.
    pub carveout_kib: u32,
}

/// `x` rounded up to a multiple of `unit`, saturating at the largest multiple that fits (a
/// kernel's declared shared memory can be anything a PTX file says).
fn round_up(x: u32, unit: u32) -> u32 {
    x.div_ceil(unit)
        .checked_mul(unit)
        .unwrap_or(u32::MAX / unit * unit)
}

/// Computes resident blocks, warps and occupancy for `r` on `a`.
pub fn occupancy(a: &'static ArchLimits, r: &LaunchResources) -> Result<Occupancy, OccupancyError> {
    if r.threads_per_block == 0 || r.threads_per_block > a.max_threads_per_block {
        return Err(OccupancyError::BadBlockSize {
            arch: a.name,
            threads: r.threads_per_block,
            max: a.max_threads_per_block,
        });
    }
    if r.regs_per_thread > a.max_regs_per_thread {
        return Err(OccupancyError::TooManyRegisters {
            arch: a.name,
            regs: r.regs_per_thread,
            max: a.max_regs_per_thread,
        });
    }
    let warps_per_block = r.threads_per_block.div_ceil(32);

    // Registers.
    let regs_per_warp = round_up(r.regs_per_thread * 32, a.reg_alloc_unit);
    let regs_per_block = regs_per_warp * warps_per_block;
    let regs_checked = regs_per_warp * round_up(warps_per_block, a.sub_partitions);
    if regs_per_block > a.regs_per_block || regs_checked > a.regs_per_block {
        return Err(OccupancyError::BlockRegisters {
            arch: a.name,
            threads: r.threads_per_block,
            regs: r.regs_per_thread,
            need: regs_checked.max(regs_per_block),
            max: a.regs_per_block,
        });
    }
    let warps_per_partition = (a.regs_per_sm / a.sub_partitions).checked_div(regs_per_warp);
    let blocks_by_registers =
        warps_per_partition.map_or(u32::MAX, |w| (w * a.sub_partitions) / warps_per_block);

    // Shared memory.
    let carveout_kib = match r.carveout_kib {
        None => *a.smem_carveouts_kib.last().unwrap_or(&0),
        Some(k) => a
            .smem_carveouts_kib
            .iter()
            .copied()
            .find(|&c| c >= k)
            .unwrap_or(*a.smem_carveouts_kib.last().unwrap_or(&0)),
    };
    let smem_per_sm = carveout_kib * KIB;
    let user_smem = r.static_smem.saturating_add(r.dynamic_smem);
    let smem_per_block = round_up(
        user_smem.saturating_add(a.reserved_smem_per_block),
        a.smem_alloc_unit,
    );
    let max_block = a
        .max_smem_per_block
        .min(smem_per_sm.saturating_sub(a.reserved_smem_per_block));
    if user_smem > max_block {
        return Err(OccupancyError::BlockSharedMemory {
            arch: a.name,
            need: user_smem.saturating_add(a.reserved_smem_per_block),
            reserved: a.reserved_smem_per_block,
            max: max_block,
        });
    }
    let blocks_by_shared_memory = smem_per_sm.checked_div(smem_per_block).unwrap_or(u32::MAX);

    let blocks_by_warps = a.max_warps_per_sm / warps_per_block;
    let blocks_by_blocks = a.max_blocks_per_sm;
    let blocks = blocks_by_registers
        .min(blocks_by_shared_memory)
        .min(blocks_by_warps)
        .min(blocks_by_blocks);
    let mut limited_by = Vec::new();
    for (n, l) in [
        (blocks_by_registers, Limiter::Registers),
        (blocks_by_shared_memory, Limiter::SharedMemory),
        (blocks_by_warps, Limiter::Warps),
        (blocks_by_blocks, Limiter::Blocks),
    ] {
        if n == blocks {
            limited_by.push(l);
        }
    }
    let warps = blocks * warps_per_block;
    Ok(Occupancy {
        arch: a.name,
        blocks_per_sm: blocks,
        warps_per_sm: warps,
        occupancy: f64::from(warps) / f64::from(a.max_warps_per_sm),
        blocks_by_registers: blocks_by_registers.min(u32::from(u16::MAX)),
        blocks_by_shared_memory: blocks_by_shared_memory.min(u32::from(u16::MAX)),
        blocks_by_warps,
        blocks_by_blocks,
        limited_by,
        regs_per_warp,
        smem_per_block,
        carveout_kib,
    })
}

/// One step of the occupancy-versus-registers staircase.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Cliff {
    /// The largest register count that still reaches `blocks_per_sm`.
    pub max_regs: u32,
    /// Resident blocks per SM up to `max_regs`.
    pub blocks_per_sm: u32,
    /// Resident warps per SM.
    pub warps_per_sm: u32,
    /// Occupancy.
    pub occupancy: f64,
}

/// The register counts at which occupancy changes for `r`'s block size and shared memory (its
/// `regs_per_thread` is ignored): for each occupancy level, the most registers a thread may use to
/// keep it, from the highest occupancy down. Register counts a block cannot launch with end the list.
pub fn cliffs(a: &'static ArchLimits, r: &LaunchResources) -> Result<Vec<Cliff>, OccupancyError> {
    let mut out: Vec<Cliff> = Vec::new();
    for regs in 1..=a.max_regs_per_thread {
        let o = match occupancy(
            a,
            &LaunchResources {
                regs_per_thread: regs,
                ..*r
            },
        ) {
            Ok(o) => o,
            Err(OccupancyError::BlockRegisters { .. }) => break,
            Err(e) => return Err(e),
        };
        match out.last_mut() {
            Some(c) if c.blocks_per_sm == o.blocks_per_sm => c.max_regs = regs,
            _ => out.push(Cliff {
                max_regs: regs,
                blocks_per_sm: o.blocks_per_sm,
                warps_per_sm: o.warps_per_sm,
                occupancy: o.occupancy,
            }),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn res(regs: u32, threads: u32, smem: u32) -> LaunchResources {
        LaunchResources {
            regs_per_thread: regs,
            threads_per_block: threads,
            static_smem: smem,
            dynamic_smem: 0,
            carveout_kib: None,
        }
    }

    /// Shared memory near `u32::MAX` (a PTX file may declare any array) is refused as too
    /// much for a block, not an overflow.
    #[test]
    fn absurd_shared_memory_is_an_error_not_an_overflow() {
        for smem in [u32::MAX, u32::MAX - 100, 5_000_000] {
            let r = LaunchResources {
                regs_per_thread: 32,
                threads_per_block: 128,
                static_smem: smem,
                dynamic_smem: 0,
                carveout_kib: None,
            };
            let e = occupancy(arch("sm_80").unwrap(), &r).unwrap_err();
            assert!(matches!(e, OccupancyError::BlockSharedMemory { .. }), "{e}");
        }
        assert_eq!(round_up(u32::MAX, 128), u32::MAX / 128 * 128);
    }

    /// (arch, regs, threads, static smem) → (blocks per SM, warps per SM, limiters), worked by hand
    /// from the rules in `cuda_occupancy.h`.
    #[test]
    fn table_of_known_configurations() {
        use Limiter::*;
        #[rustfmt::skip]
        type Case = (&'static str, u32, u32, u32, u32, u32, &'static [Limiter]);
        let cases: &[Case] = &[
            // Registers: 64 regs → 2048 per warp → 8 warps per sub-partition → 32 warps.
            ("sm_80", 64, 256, 0, 4, 32, &[Registers]),
            ("sm_90", 64, 256, 0, 4, 32, &[Registers]),
            ("sm_70", 64, 256, 0, 4, 32, &[Registers]),
            ("sm_86", 64, 256, 0, 4, 32, &[Registers]),
            // 32 regs: warps are the limit (64 per SM on sm_80/90, 48 on sm_86/89, 32 on sm_75).
            ("sm_80", 32, 128, 0, 16, 64, &[Registers, Warps]),
            ("sm_86", 32, 128, 0, 12, 48, &[Warps]),
            ("sm_89", 32, 128, 0, 12, 48, &[Warps]),
            ("sm_75", 32, 128, 0, 8, 32, &[Warps]),
            // Tiny blocks: the block limit.
            ("sm_80", 16, 32, 0, 32, 32, &[Blocks]),
            ("sm_86", 16, 32, 0, 16, 16, &[Blocks]),
            ("sm_89", 16, 32, 0, 24, 24, &[Blocks]),
            ("sm_75", 16, 32, 0, 16, 16, &[Blocks]),
            // 255 registers: 8192 per warp → 2 warps per sub-partition → 8 warps per SM.
            ("sm_90", 255, 256, 0, 1, 8, &[Registers]),
            ("sm_90", 255, 64, 0, 4, 8, &[Registers]),
            // 40 regs → 1280 per warp → 12 per sub-partition → 48 warps → 6 blocks of 8 warps.
            ("sm_80", 40, 256, 0, 6, 48, &[Registers]),
            // Shared memory: 48 KiB + 1 KiB reserved per block on sm_80 → 164/49 = 3 blocks.
            ("sm_80", 32, 128, 48 * 1024, 3, 12, &[SharedMemory]),
            // sm_90: 228/49 = 4 blocks.
            ("sm_90", 32, 128, 48 * 1024, 4, 16, &[SharedMemory]),
            // sm_70 has no reservation: 96/48 = 2.
            ("sm_70", 32, 128, 48 * 1024, 2, 8, &[SharedMemory]),
            // Blackwell: sm_100 as sm_90; sm_120 with 48 warps, 24 blocks and 100 KiB.
            ("sm_100", 32, 128, 0, 16, 64, &[Registers, Warps]),
            ("sm_100", 32, 128, 48 * 1024, 4, 16, &[SharedMemory]),
            ("sm_120", 32, 128, 0, 12, 48, &[Warps]),
            ("sm_120", 16, 32, 0, 24, 24, &[Blocks]),
            ("sm_120", 32, 128, 48 * 1024, 2, 8, &[SharedMemory]),
            // Rounding to the allocation unit: 100 bytes + 1 KiB → 1152 → 164 KiB / 1152 = 145 ≥ 32.
            ("sm_80", 16, 32, 100, 32, 32, &[Blocks]),
        ];
        for &(name, regs, threads, smem, blocks, warps, lim) in cases {
            let o = occupancy(arch(name).unwrap(), &res(regs, threads, smem)).unwrap();
            assert_eq!(
                (o.blocks_per_sm, o.warps_per_sm, o.limited_by.as_slice()),
                (blocks, warps, lim),
                "{name} regs={regs} threads={threads} smem={smem}"
            );
        }
    }

    #[test]
    fn errors_for_impossible_launches() {
        let a = arch("sm_80").unwrap();
        assert!(matches!(
            occupancy(a, &res(32, 0, 0)),
            Err(OccupancyError::BadBlockSize { .. })
        ));
        assert!(matches!(
            occupancy(a, &res(32, 2048, 0)),
            Err(OccupancyError::BadBlockSize { .. })
        ));
        assert!(matches!(
            occupancy(a, &res(256, 64, 0)),
            Err(OccupancyError::TooManyRegisters { .. })
        ));
        // 1024 threads × 128 registers = 131072 > 65536.
        assert!(matches!(
            occupancy(a, &res(128, 1024, 0)),
            Err(OccupancyError::BlockRegisters { .. })
        ));
        assert!(matches!(
            occupancy(a, &res(32, 128, 200 * 1024)),
            Err(OccupancyError::BlockSharedMemory { .. })
        ));
        assert!(matches!(
            arch("sm_101"),
            Err(OccupancyError::UnknownArch(_))
        ));
        assert_eq!(arch("sm_90a").unwrap().cc, 90);
        assert_eq!(arch("sm_100a").unwrap().cc, 100);
        assert_eq!(arch("sm_120f").unwrap().cc, 120);
        assert_eq!(arch("compute_86").unwrap().cc, 86);
    }

    #[test]
    fn carveout_rounds_up_to_an_option() {
        let a = arch("sm_80").unwrap();
        let mut r = res(32, 128, 20 * 1024);
        r.carveout_kib = Some(50); // → 64 KiB: 64 / 21 = 3 blocks.
        let o = occupancy(a, &r).unwrap();
        assert_eq!((o.carveout_kib, o.blocks_per_sm), (64, 3));
    }

    #[test]
    fn cliffs_on_sm_80_with_256_threads() {
        let c = cliffs(arch("sm_80").unwrap(), &res(0, 256, 0)).unwrap();
        let steps: Vec<(u32, u32)> = c.iter().map(|c| (c.max_regs, c.blocks_per_sm)).collect();
        // 8 blocks up to 32 regs, 6 up to 40, 5 up to 48, 4 up to 64, 3 up to 80, 2 up to 128,
        // 1 up to 255.
        assert_eq!(
            steps,
            [
                (32, 8),
                (40, 6),
                (48, 5),
                (64, 4),
                (80, 3),
                (128, 2),
                (255, 1)
            ]
        );
    }

    #[test]
    fn more_registers_never_raise_occupancy() {
        for a in ARCHS {
            for threads in [32, 48, 96, 128, 256, 384, 512, 1024] {
                let mut last = u32::MAX;
                for regs in 1..=255 {
                    match occupancy(a, &res(regs, threads, 0)) {
                        Ok(o) => {
                            assert!(o.blocks_per_sm <= last, "{} {threads} {regs}", a.name);
                            assert!(o.warps_per_sm <= a.max_warps_per_sm);
                            last = o.blocks_per_sm;
                        }
                        Err(OccupancyError::BlockRegisters { .. }) => break,
                        Err(e) => panic!("{e}"),
                    }
                }
            }
        }
    }
}
