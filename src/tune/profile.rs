//! The model's input for one variant (RegDem §4: the predictor reads the instruction mix and the
//! memory accesses of the binary): the dynamic instruction mix and memory traffic of the launch,
//! from the best source available —
//!
//! 1. `sass-emulator`: the variant's cubin run on the SASS emulator (exact dynamic mix, sectors,
//!    bank conflicts, local traffic ptxas's spills cause);
//! 2. `ptx-emulator`: the PTX run on the PTX emulator where the SASS emulator cannot run the cubin
//!    (tensor-core instructions): dynamic PTX instruction counts and global loads, with local
//!    traffic estimated from ptxas's spill bytes (each spill instruction executing as often as
//!    the kernel's average instruction);
//! 3. `static`: no launch spec — each SASS instruction of the listing counted once per warp over
//!    an assumed grid (one full wave at the block size's highest occupancy).

use serde::Serialize;

use crate::emu::exec::Stats;
use crate::emu::launch::{ArgSpec, InitSpec, LaunchSpec};
use crate::sass::emu::decode::{class_of, decode, Class};
use crate::sass::emu::program::Kernel;
use crate::sass::emu::SassStats;
use crate::tools::KernelResources;

use super::model::Mix;

/// Where a variant's mix came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    /// The cubin on the SASS emulator.
    SassEmulator,
    /// The PTX on the PTX emulator (+ ptxas's spill figures).
    PtxEmulator,
    /// The SASS listing, no launch.
    Static,
}

impl Source {
    /// The name the report uses.
    pub fn name(self) -> &'static str {
        match self {
            Source::SassEmulator => "sass-emulator",
            Source::PtxEmulator => "ptx-emulator",
            Source::Static => "static",
        }
    }
}

/// Bytes of every buffer the launch passes (an upper bound of the DRAM traffic the launch must
/// make at least once: its compulsory traffic).
pub fn footprint(spec: &LaunchSpec) -> f64 {
    spec.args
        .iter()
        .filter_map(|a| match a {
            ArgSpec::Buffer(b) => {
                let n = b.len.unwrap_or(match &b.init {
                    InitSpec::List(v) => v.len() as u64,
                    InitSpec::Named(_) => 0,
                });
                Some(n as f64 * b.ty.size() as f64)
            }
            ArgSpec::TensorMap(t) => {
                Some(t.dims.iter().product::<u64>() as f64 * t.ty.size() as f64)
            }
            _ => None,
        })
        .sum()
}

fn class_count(s: &SassStats, c: Class) -> f64 {
    s.by_class[c as usize] as f64
}

/// The mix of a SASS emulator run. Generic accesses are counted as global ones; DRAM traffic is
/// the smaller of the sectors' bytes and the launch's footprint.
pub fn from_sass(s: &SassStats, footprint: f64) -> Mix {
    let global_sectors = (s.global.transactions + s.generic.transactions) as f64;
    Mix {
        warp_insts: s.warp_insts as f64,
        int: class_count(s, Class::Int),
        fp32: class_count(s, Class::Fp32),
        fp64: class_count(s, Class::Fp64),
        sfu: class_count(s, Class::Sfu) + class_count(s, Class::Conv),
        global_requests: (s.global.requests + s.generic.requests) as f64,
        global_sectors,
        local_requests: s.local.requests as f64,
        local_sectors: s.local.transactions as f64,
        shared_requests: s.shared.requests as f64,
        shared_wavefronts: s.shared.transactions as f64,
        dram_bytes: (global_sectors * 32.0).min(footprint),
    }
}

/// Sectors a request of 4-byte words from 32 lanes touches when coalesced.
const SECTORS_PER_REQUEST: f64 = 4.0;

/// The mix of a PTX emulator run: `static_insts` is the kernel's PTX instruction count, `res`
/// ptxas's figures for the variant (spill bytes per thread, read as 4-byte spill instructions).
pub fn from_ptx(s: &Stats, static_insts: usize, res: &KernelResources, footprint: f64) -> Mix {
    let warp_insts = s.warp_insts as f64;
    let lanes = if s.warp_insts > 0 {
        s.lane_insts as f64 / warp_insts
    } else {
        32.0
    };
    let global_requests = s.global_loads as f64 / lanes.max(1.0);
    let per_static = warp_insts / (static_insts.max(1) as f64);
    let local_requests = f64::from(res.spill_stores + res.spill_loads) / 4.0 * per_static;
    let global_sectors = global_requests * SECTORS_PER_REQUEST;
    Mix {
        warp_insts: warp_insts + local_requests,
        global_requests,
        global_sectors,
        local_requests,
        local_sectors: local_requests * SECTORS_PER_REQUEST,
        dram_bytes: (global_sectors * 32.0).min(footprint),
        ..Mix::default()
    }
}

/// The static mix of a SASS listing: every instruction once per warp, `warps` warps; memory
/// requests coalesced, half of the global sectors from DRAM (an assumption: no launch, no
/// footprint).
pub fn from_listing(k: &Kernel, warps: f64) -> Mix {
    let mut mix = Mix::default();
    for inst in &k.code {
        let Ok(p) = &inst.parsed else {
            mix.warp_insts += warps;
            continue;
        };
        mix.warp_insts += warps;
        match class_of(&decode(p), &p.op) {
            Class::Int => mix.int += warps,
            Class::Fp32 => mix.fp32 += warps,
            Class::Fp64 => mix.fp64 += warps,
            Class::Sfu | Class::Conv => mix.sfu += warps,
            Class::Global | Class::Generic => mix.global_requests += warps,
            Class::Local => mix.local_requests += warps,
            Class::Shared => mix.shared_requests += warps,
            _ => {}
        }
    }
    mix.global_sectors = mix.global_requests * SECTORS_PER_REQUEST;
    mix.local_sectors = mix.local_requests * SECTORS_PER_REQUEST;
    mix.shared_wavefronts = mix.shared_requests;
    mix.dram_bytes = mix.global_sectors * 32.0 * 0.5;
    mix
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn footprint_counts_buffers_only() {
        let spec = LaunchSpec::from_json(
            r#"{"kernel":"k","grid":[1],"block":[32],"args":[
                {"buffer":{"type":"f32","len":100}},
                {"buffer":{"type":"f64","init":[1,2,3]}},
                {"scalar":{"type":"u32","value":5}}]}"#,
        )
        .unwrap();
        assert_eq!(footprint(&spec), 400.0 + 24.0);
    }

    #[test]
    fn ptx_mix_charges_spills_in_proportion() {
        let s = Stats {
            warp_insts: 1000,
            lane_insts: 32_000,
            global_loads: 3200,
        };
        let none = KernelResources::default();
        let spilling = KernelResources {
            spill_stores: 8,
            spill_loads: 8,
            ..KernelResources::default()
        };
        let a = from_ptx(&s, 100, &none, 1e9);
        let b = from_ptx(&s, 100, &spilling, 1e9);
        assert_eq!(a.global_requests, 100.0);
        assert_eq!(a.local_requests, 0.0);
        // 4 spill instructions, each run 10 times per warp on average.
        assert_eq!(b.local_requests, 40.0);
        assert_eq!(b.warp_insts, 1040.0);
    }
}
