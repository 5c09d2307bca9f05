//! One variant from PTX to a predicted time (RegDem §4, steps one to three of its predictor:
//! per-instruction cost from the binary, adjusted by occupancy and throughput): assemble it
//! ([`super::measure`]), profile the launch ([`super::profile`]) with the source chosen once for
//! all variants (the first one that runs the ptxas-alone build), and predict ([`super::model`]).
//! Outputs of emulator runs are compared with ptxas alone's: a variant whose outputs differ is
//! listed with the difference and never chosen.

use crate::analysis::occupancy::occupancy;
use crate::emu::equiv::compare_outputs;
use crate::emu::launch::{run as run_ptx, LaunchSpec, OutBuffer, RunOptions};
use crate::never_worse::{launch_resources, DynamicSmem};
use crate::ptx::Module;
use crate::sass::demote::RegisterTarget;
use crate::sass::emu::{run as run_sass, SassProgram};

use super::demoted::{demote, DemoteInputs};
use super::measure::{assemble, Launch, Measured};
use super::model::{predict, Mix, Shape};
use super::params::MachineParams;
use super::profile::{footprint, from_listing, from_ptx, from_sass, Source};
use super::variants::{demote_source, Candidate, Kind};
use super::{TuneOptions, VariantReport};

/// A variant after evaluation.
#[derive(Clone, Debug)]
pub struct Evaluated {
    /// What the report says.
    pub report: VariantReport,
    /// Its module (the original where it could not be built).
    pub module: Module,
    /// ptxas's figures, where it assembled.
    pub measured: Option<Measured>,
}

/// A profile: the mix and, for emulator runs, the outputs.
type Profiled = (Mix, Option<Vec<OutBuffer>>);

/// Evaluates the variants of one kernel.
pub struct Runner<'a> {
    original: &'a Module,
    kernel: &'a str,
    machine: &'static MachineParams,
    launch: &'a Launch,
    opts: &'a TuneOptions,
}

impl<'a> Runner<'a> {
    /// A runner for `kernel` of `original`.
    pub fn new(
        original: &'a Module,
        kernel: &'a str,
        machine: &'static MachineParams,
        launch: &'a Launch,
        opts: &'a TuneOptions,
    ) -> Self {
        Runner {
            original,
            kernel,
            machine,
            launch,
            opts,
        }
    }

    /// Evaluates every candidate (the first is ptxas alone); returns them, the mix's source, the
    /// launch's block count and notes.
    pub fn all(&self, cands: Vec<Candidate>) -> (Vec<Evaluated>, Source, u64, Vec<String>) {
        let mut notes = Vec::new();
        let shape = self.shape(&mut notes);
        let mut out: Vec<Evaluated> = Vec::new();
        let mut source = None;
        let mut base_outputs: Option<Vec<OutBuffer>> = None;
        for c in cands {
            let t0 = std::time::Instant::now();
            let mut e = self.assemble(&c, &out);
            let t1 = t0.elapsed();
            if let (Some(m), Ok(module)) = (e.measured.clone(), &c.module) {
                let profiled = match source {
                    Some(Source::PtxEmulator) if c.kind.cubin_only() => Err(
                        "the PTX emulator's profile cannot see a rewrite made in the cubin".into(),
                    ),
                    Some(s) => self.profile(s, module, &m),
                    None => {
                        let (s, p) = self.first_source(module, &m, &mut notes);
                        source = Some(s);
                        p
                    }
                };
                match profiled {
                    Ok((mix, outs)) => {
                        let sh = Shape {
                            resident_blocks: m.resident_blocks,
                            local_bytes_per_thread: m.figures.stack,
                            smem_per_block: m.res.shared + self.launch.dynamic.bytes_or_zero(),
                            ..shape
                        };
                        let p = predict(self.machine, &mix, &sh);
                        e.report.predicted_us = Some(p.us);
                        e.report.bound = Some(p.bound);
                        check_outputs(&mut e, outs, &mut base_outputs, source);
                    }
                    Err(why) => e.report.error = Some(why),
                }
            }
            log::info!(
                "tune: `{}` assembled in {:.1?}, profiled in {:.1?}",
                c.name,
                t1,
                t0.elapsed() - t1
            );
            out.push(e);
        }
        (out, source.unwrap_or(Source::Static), shape.blocks, notes)
    }

    /// Builds the report entry and assembles the candidate (a demote candidate: demotes the
    /// frame of its ptxas build among `done`).
    fn assemble(&self, c: &Candidate, done: &[Evaluated]) -> Evaluated {
        let mut report = VariantReport {
            name: c.name.clone(),
            kind: c.kind,
            max_regs: c.max_regs,
            registers: None,
            local_bytes: None,
            shared_bytes: None,
            occupancy: None,
            predicted_us: None,
            bound: None,
            chosen: false,
            equivalent: None,
            error: None,
        };
        let built = match (&c.module, c.kind) {
            (Err(why), _) => Err(why.clone()),
            (Ok(_), Kind::Demote) => self.demote(c, done, &mut report),
            (Ok(m), _) => assemble(
                m,
                self.kernel,
                &self.opts.arch,
                &self.opts.ptxas_args,
                self.launch,
            ),
        };
        let measured = match built {
            Ok(ms) => {
                report.registers = Some(ms.res.registers);
                report.local_bytes = Some(ms.figures.local_bytes());
                report.shared_bytes = Some(ms.res.shared);
                report.occupancy = Some(ms.occupancy);
                Some(ms)
            }
            Err(why) => {
                report.error = Some(why);
                None
            }
        };
        Evaluated {
            report,
            module: c.module.clone().unwrap_or_else(|_| self.original.clone()),
            measured,
        }
    }

    /// The demote variant `c`: the frame of its ptxas build (already evaluated, in `done`) moved
    /// to shared memory; proved on the SASS emulator when a spec is given.
    fn demote(
        &self,
        c: &Candidate,
        done: &[Evaluated],
        report: &mut VariantReport,
    ) -> Result<Measured, String> {
        let (base_name, registers) = demote_source(&c.name, c.max_regs);
        let base = done
            .iter()
            .find(|e| e.report.name == base_name)
            .and_then(|e| e.measured.as_ref())
            .ok_or_else(|| format!("`{base_name}` did not assemble"))?;
        let how = DemoteInputs {
            kernel: self.kernel,
            launch: self.launch,
            spec: self.opts.launch.as_ref(),
            seeds: self.opts.seeds,
            registers: registers.map(RegisterTarget::MaxRegs),
        };
        let (m, proved) = demote(base, &how)?;
        if proved {
            report.equivalent = Some(true);
        }
        Ok(m)
    }

    /// The launch's shape: the spec's grid, or (static model) one full wave at the block size's
    /// highest occupancy on every SM.
    fn shape(&self, notes: &mut Vec<String>) -> Shape {
        let warps_per_block = self.launch.threads.div_ceil(32);
        let blocks = match &self.opts.launch {
            Some(s) => s.grid.iter().map(|&g| u64::from(g)).product(),
            None => {
                let most = occupancy(
                    self.launch.arch,
                    &launch_resources(1, self.launch.threads, 0, DynamicSmem::Known(0)),
                )
                .map_or(1, |o| o.blocks_per_sm);
                let b = u64::from(self.machine.sms) * u64::from(most);
                notes.push(format!(
                    "no launch spec: static model over an assumed grid of {b} blocks (one full wave \
                     at the highest occupancy {} threads per block allow); each SASS instruction \
                     counted once per warp, loops not weighted",
                    self.launch.threads
                ));
                b
            }
        };
        Shape {
            blocks,
            warps_per_block,
            resident_blocks: 1,
            local_bytes_per_thread: 0,
            smem_per_block: 0,
        }
    }

    /// Profiles ptxas alone with the best source that works, saying why a better one did not.
    fn first_source(
        &self,
        module: &Module,
        m: &Measured,
        notes: &mut Vec<String>,
    ) -> (Source, Result<Profiled, String>) {
        let order: &[Source] = if self.opts.launch.is_some() {
            &[Source::SassEmulator, Source::PtxEmulator, Source::Static]
        } else {
            &[Source::Static]
        };
        let mut last = Err("no source".to_string());
        for &s in order {
            match self.profile(s, module, m) {
                Ok(p) => return (s, Ok(p)),
                Err(why) => {
                    log::info!("tune: {} cannot profile ptxas alone: {why}", s.name());
                    notes.push(format!("{} model unavailable: {why}", s.name()));
                    last = Err(why);
                }
            }
        }
        (Source::Static, last)
    }

    /// The mix of one variant from `source`.
    fn profile(&self, source: Source, module: &Module, m: &Measured) -> Result<Profiled, String> {
        let spec = self.opts.launch.as_ref();
        match (source, spec) {
            (Source::SassEmulator, Some(spec)) => {
                let prog = SassProgram::from_cubin(&m.cubin).map_err(|e| e.to_string())?;
                let r = run_sass(&prog, spec, &self.run_options("cubin"))
                    .map_err(|e| format!("SASS emulator: {e}"))?;
                Ok((from_sass(&r.stats, footprint(spec)), Some(r.buffers)))
            }
            (Source::PtxEmulator, Some(spec)) => self.profile_ptx(spec, module, m),
            (Source::Static, _) => {
                let prog = SassProgram::from_cubin(&m.cubin).map_err(|e| e.to_string())?;
                let k = prog
                    .kernel(self.kernel)
                    .ok_or_else(|| format!("no `{}` in the cubin", self.kernel))?;
                let shape = self.shape(&mut Vec::new());
                let warps = shape.blocks as f64 * f64::from(shape.warps_per_block);
                Ok((from_listing(k, warps), None))
            }
            (_, None) => Err("no launch spec".into()),
        }
    }

    fn profile_ptx(
        &self,
        spec: &LaunchSpec,
        module: &Module,
        m: &Measured,
    ) -> Result<Profiled, String> {
        let r = run_ptx(module, spec, &self.run_options("ptx"))
            .map_err(|e| format!("PTX emulator: {e}"))?;
        let insts = module
            .functions()
            .find(|f| &*f.name == self.kernel)
            .and_then(|f| f.body.as_ref())
            .map_or(0, |b| b.inst_order().count());
        Ok((
            from_ptx(&r.stats, insts, &m.res, footprint(spec)),
            Some(r.buffers),
        ))
    }

    fn run_options(&self, what: &str) -> RunOptions {
        RunOptions {
            file: format!("{} ({what})", self.kernel),
            ..RunOptions::default()
        }
    }
}

/// Compares a variant's emulator outputs with ptxas alone's (the first variant's); a difference
/// makes the variant unusable.
fn check_outputs(
    e: &mut Evaluated,
    outs: Option<Vec<OutBuffer>>,
    base: &mut Option<Vec<OutBuffer>>,
    source: Option<Source>,
) {
    let Some(outs) = outs else { return };
    match base {
        None => *base = Some(outs),
        Some(b) => {
            if let Some(d) = compare_outputs(0, b, &outs) {
                e.report.error = Some(format!(
                    "outputs differ from ptxas alone on the {}: {} element {}: {} vs {} \
                     ({} element(s) differ)",
                    source.map_or("emulator", Source::name),
                    d.buffer,
                    d.index,
                    d.a,
                    d.b,
                    d.count
                ));
                if e.report.kind == Kind::Ptxas || e.report.kind == Kind::Pragma {
                    log::warn!(
                        "tune: `{}` computes other bytes than ptxas alone on the emulator",
                        e.report.name
                    );
                }
            }
        }
    }
}
