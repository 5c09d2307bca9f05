//! The local-memory report (`warpsmith lmem-report`, issue 16): the procedure of NVIDIA's
//! "local memory" guidance, automated per kernel of a cubin —
//!
//! 1. how much local memory a thread has (the stack-size attributes the driver sizes it from);
//! 2. which instructions touch it (`LDL`/`STL`, from our decoder) and which of them ptxas marks
//!    as its own register spills (nvdisasm's `SpillRefill` tag);
//! 3. which source lines they come from (nvdisasm `-g`, from `.debug_line`: the cubin must be
//!    built with `-lineinfo`);
//! 4. with a launch spec, what the launch does: local requests, bytes and transactions per
//!    launch and their share of all warp instructions, from the SASS emulator.
//!
//! Generic loads and stores can reach local memory too (a pointer to a local array passed
//! around); they are not counted statically, only by the emulator, which classifies every
//! address.

use std::collections::BTreeMap;

use serde::Serialize;

use super::edit::PAD_NOP;
use super::elf::{Cubin, ElfError};
use super::isa::{decode_all, Arch};
use super::nvdisasm;
use crate::emu::launch::{LaunchSpec, RunOptions};

/// Local accesses attributed to one source line.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SourceLine {
    /// File.
    pub file: String,
    /// Line.
    pub line: u32,
    /// `STL` instructions.
    pub stores: usize,
    /// `LDL` instructions.
    pub loads: usize,
    /// Of those, ptxas's own spills and refills.
    pub spills: usize,
}

/// What one launch did with local memory (SASS emulator).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct DynamicLocal {
    /// Warp instructions executed.
    pub warp_instructions: u64,
    /// Warp-level local-memory requests.
    pub requests: u64,
    /// Bytes moved to and from local memory.
    pub bytes: u64,
    /// 32-byte sector transactions.
    pub transactions: u64,
    /// `requests / warp_instructions`.
    pub share: f64,
}

/// The report of one kernel.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KernelLocal {
    /// The kernel.
    pub kernel: String,
    /// Local memory per thread, bytes (the largest stack-size attribute).
    pub local_bytes: u32,
    /// Instructions in the kernel's code (padding excluded).
    pub instructions: usize,
    /// `LDL`/`STL` among them.
    pub local_instructions: usize,
    /// Of those, tagged by ptxas as spill code (`None`: nvdisasm not available).
    pub spill_instructions: Option<usize>,
    /// Source lines of the local accesses, most accesses first (empty without `-lineinfo`).
    pub lines: Vec<SourceLine>,
    /// Whether the cubin has a line table for this kernel.
    pub has_line_info: bool,
    /// The launch's figures, when a spec for this kernel was given.
    pub dynamic: Option<DynamicLocal>,
}

/// Errors of the report.
#[derive(Debug, thiserror::Error)]
pub enum LmemError {
    /// The cubin cannot be read.
    #[error(transparent)]
    Elf(#[from] ElfError),
    /// The architecture is not one we decode.
    #[error("unsupported architecture sm_{0} (supported: sm_80, sm_86, sm_89, sm_90)")]
    Arch(u32),
    /// The emulator run failed.
    #[error("emulating `{kernel}`: {message}")]
    Emulator {
        /// The kernel.
        kernel: String,
        /// What failed.
        message: String,
    },
}

/// The report of every kernel of `bytes` (or `only`), with `launch` run on the SASS emulator.
pub fn report(
    bytes: &[u8],
    only: Option<&str>,
    launch: Option<&LaunchSpec>,
) -> Result<Vec<KernelLocal>, LmemError> {
    let cubin = Cubin::parse(bytes)?;
    let arch = Arch::from_sm(cubin.sm()).ok_or(LmemError::Arch(cubin.sm()))?;
    let listing = match nvdisasm::line_listing(bytes) {
        Ok(l) => Some(l),
        Err(e) => {
            log::warn!("lmem-report: no source lines or spill tags: {e}");
            None
        }
    };
    let mut out = Vec::new();
    for f in cubin.functions() {
        if only.is_some_and(|k| k != f.name)
            || cubin.section(&format!(".nv.info.{}", f.name)).is_none()
        {
            continue;
        }
        let mut k = static_report(&cubin, arch, &f.name, listing.as_deref())?;
        if let Some(spec) = launch.filter(|s| s.kernel == f.name) {
            k.dynamic = Some(dynamic_report(bytes, spec)?);
        }
        out.push(k);
    }
    Ok(out)
}

fn static_report(
    cubin: &Cubin,
    arch: Arch,
    name: &str,
    listing: Option<&[nvdisasm::LinedInstruction]>,
) -> Result<KernelLocal, LmemError> {
    let f = cubin.function(name)?;
    let insts = decode_all(arch, &cubin.sections[f.text].data);
    let body = insts
        .iter()
        .rposition(|i| i.word != PAD_NOP)
        .map_or(0, |p| p + 1);
    let lined: BTreeMap<u64, &nvdisasm::LinedInstruction> = listing
        .unwrap_or_default()
        .iter()
        .filter(|l| l.function == name)
        .map(|l| (l.offset, l))
        .collect();
    let mut lines: BTreeMap<(String, u32), SourceLine> = BTreeMap::new();
    let (mut local, mut spills) = (0, 0);
    for (k, i) in insts[..body].iter().enumerate() {
        let store = match i.key & 0xfff {
            0x387 => true,
            0x983 => false,
            _ => continue,
        };
        local += 1;
        let l = lined.get(&(k as u64 * 16));
        let spill = l.is_some_and(|l| l.spill);
        spills += usize::from(spill);
        if let Some((file, line)) = l.and_then(|l| l.source.clone()) {
            let e = lines.entry((file.clone(), line)).or_insert(SourceLine {
                file,
                line,
                ..SourceLine::default()
            });
            if store {
                e.stores += 1;
            } else {
                e.loads += 1;
            }
            e.spills += usize::from(spill);
        }
    }
    let mut lines: Vec<SourceLine> = lines.into_values().collect();
    lines.sort_by_key(|l| std::cmp::Reverse(l.stores + l.loads));
    Ok(KernelLocal {
        kernel: name.to_string(),
        local_bytes: cubin.stack_size(name)?,
        instructions: body,
        local_instructions: local,
        spill_instructions: listing.map(|_| spills),
        has_line_info: lined.values().any(|l| l.source.is_some()),
        lines,
        dynamic: None,
    })
}

fn dynamic_report(bytes: &[u8], spec: &LaunchSpec) -> Result<DynamicLocal, LmemError> {
    let err = |e: String| LmemError::Emulator {
        kernel: spec.kernel.clone(),
        message: e,
    };
    let prog = super::emu::SassProgram::from_cubin(bytes).map_err(|e| err(e.to_string()))?;
    let opts = RunOptions {
        file: spec.kernel.clone(),
        ..RunOptions::default()
    };
    let r = super::emu::run(&prog, spec, &opts).map_err(|e| err(e.to_string()))?;
    let s = &r.stats;
    Ok(DynamicLocal {
        warp_instructions: s.warp_insts,
        requests: s.local.requests,
        bytes: s.local.bytes,
        transactions: s.local.transactions,
        share: if s.warp_insts == 0 {
            0.0
        } else {
            s.local.requests as f64 / s.warp_insts as f64
        },
    })
}
