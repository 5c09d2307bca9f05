//! Differential checking across representations: two kernels, each a PTX module (run by the PTX
//! emulator) or a cubin (run by the SASS emulator), on the same launch spec and seeds, compared
//! byte for byte with `emu::equiv::compare_outputs` (RegDem §3: the rewritten cubin must compute
//! exactly what the original computes).

use crate::emu::decode::Program;
use crate::emu::equiv::{compare_outputs, Verdict};
use crate::emu::error::{EmuError, EmuResult};
use crate::emu::exec::Limits;
use crate::emu::launch::{run_program, LaunchSpec, OutBuffer};
use crate::emu::RunOptions;
use crate::ptx::ir::Module;

use super::program::SassProgram;

/// A kernel to run.
pub enum Source {
    /// A PTX module (decoded for each run).
    Ptx(Box<Module>),
    /// A cubin.
    Cubin(Box<SassProgram>),
}

/// One run's outputs and its lane-instruction count.
pub struct Outcome {
    /// Buffers.
    pub buffers: Vec<OutBuffer>,
    /// Lane-instructions executed.
    pub lane_insts: u64,
    /// Lane accesses to local memory (`None` for PTX: the PTX emulator does not count them).
    pub local_accesses: Option<u64>,
}

impl Source {
    /// Runs `spec` on this kernel.
    pub fn run(&self, spec: &LaunchSpec, opts: &RunOptions) -> EmuResult<Outcome> {
        match self {
            Source::Ptx(m) => {
                let p = Program::new(m, &opts.file).map_err(EmuError::Program)?;
                run_program(&p, spec, opts).map(|r| Outcome {
                    lane_insts: r.stats.lane_insts,
                    local_accesses: None,
                    buffers: r.buffers,
                })
            }
            Source::Cubin(p) => super::launch::run(p, spec, opts).map(|r| Outcome {
                lane_insts: r.stats.lane_insts,
                local_accesses: Some(r.stats.local.accesses),
                buffers: r.buffers,
            }),
        }
    }
}

/// What [`check`] found.
#[derive(Clone, Debug)]
pub struct MixedReport {
    /// The verdict.
    pub verdict: Verdict,
    /// Seeds run.
    pub seeds_run: u64,
    /// Lane-instructions of the first and second kernel (all seeds).
    pub lane_insts: (u64, u64),
    /// Lane accesses to local memory of the first and second kernel (all seeds; `None` for a
    /// PTX kernel).
    pub local_accesses: (Option<u64>, Option<u64>),
}

/// Runs `a` and `b` on `spec` for `seeds` seed offsets and compares their outputs.
pub fn check(
    a: &Source,
    b: &Source,
    spec: &LaunchSpec,
    seeds: u64,
    files: (&str, &str),
    limits: Limits,
) -> EmuResult<MixedReport> {
    check_launches((a, spec), (b, spec), seeds, files, limits)
}

/// [`check`] with a launch of its own for each kernel (the same inputs: the specs may differ in
/// the launch's shape only, e.g. a rewrite that needs more dynamic shared memory).
pub fn check_launches(
    (a, spec): (&Source, &LaunchSpec),
    (b, spec_b): (&Source, &LaunchSpec),
    seeds: u64,
    files: (&str, &str),
    limits: Limits,
) -> EmuResult<MixedReport> {
    let oa = RunOptions {
        file: files.0.to_string(),
        limits,
    };
    let ob = RunOptions {
        file: files.1.to_string(),
        limits,
    };
    let mut rep = MixedReport {
        verdict: Verdict::Equal,
        seeds_run: 0,
        lane_insts: (0, 0),
        local_accesses: (None, None),
    };
    for s in 0..seeds.max(1) {
        let sp = spec.with_seed_offset(s);
        let ra = a.run(&sp, &oa)?;
        let rb = match b.run(&spec_b.with_seed_offset(s), &ob) {
            Ok(r) => r,
            Err(e) if e.is_kernel_misbehaviour() => {
                rep.seeds_run = s + 1;
                rep.verdict = Verdict::SecondFailed {
                    seed: s,
                    error: e.to_string(),
                };
                return Ok(rep);
            }
            Err(e) => return Err(e),
        };
        rep.seeds_run = s + 1;
        rep.lane_insts.0 += ra.lane_insts;
        rep.lane_insts.1 += rb.lane_insts;
        let sum = |total: Option<u64>, n: Option<u64>| n.map(|n| n + total.unwrap_or(0));
        rep.local_accesses.0 = sum(rep.local_accesses.0, ra.local_accesses);
        rep.local_accesses.1 = sum(rep.local_accesses.1, rb.local_accesses);
        if let Some(d) = compare_outputs(s, &ra.buffers, &rb.buffers) {
            rep.verdict = Verdict::Differ(d);
            return Ok(rep);
        }
    }
    Ok(rep)
}

/// Loads a `.ptx` or `.cubin` file by its extension (cubins by their ELF magic otherwise).
pub fn load(path: &std::path::Path) -> EmuResult<Source> {
    let bytes =
        std::fs::read(path).map_err(|e| EmuError::Program(format!("{}: {e}", path.display())))?;
    if bytes.starts_with(b"\x7fELF") {
        let p = SassProgram::from_cubin(&bytes)
            .map_err(|e| EmuError::Program(format!("{}: {e}", path.display())))?;
        return Ok(Source::Cubin(Box::new(p)));
    }
    let text = String::from_utf8(bytes).map_err(|_| {
        EmuError::Program(format!("{}: neither a cubin nor PTX text", path.display()))
    })?;
    let file = path.display().to_string();
    let m =
        crate::ptx::parse_module(&text, &file).map_err(|e| EmuError::Program(format!("{e}")))?;
    Ok(Source::Ptx(Box::new(m)))
}
