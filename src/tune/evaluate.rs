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

use super::cubin_time::{busiest_sm_ctas, predict_cubin_both, Sample};
use super::cycle::{predict_cycles, timing_params, Predictor};
use super::demoted::{demote, DemoteInputs};
use super::measure::{assemble, Launch, Measured};
use super::model::{predict, Mix, Prediction, Shape};
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
    /// The analytic model's prediction, where the variant was profiled.
    pub analytic: Option<Prediction>,
    /// The cycle-level prediction, where the timing mode ran (or why it did not).
    pub cycle: Option<Result<Prediction, String>>,
}

/// A profile: the mix, for emulator runs the outputs, and for SASS emulator runs the program
/// (the timing mode runs it again).
type Profiled = (Mix, Option<Vec<OutBuffer>>, Option<SassProgram>);

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
    /// predictor whose times the reports carry, the launch's block count and notes.
    pub fn all(
        &self,
        cands: Vec<Candidate>,
    ) -> (Vec<Evaluated>, Source, Predictor, u64, Vec<String>) {
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
                    Ok((mix, outs, prog)) => {
                        let sh = Shape {
                            resident_blocks: m.resident_blocks,
                            local_bytes_per_thread: m.figures.stack,
                            smem_per_block: m.res.shared + self.launch.dynamic.bytes_or_zero(),
                            ..shape
                        };
                        if let Some(big) = &self.opts.predict_launch {
                            self.predict_elsewhere(&mut e, &m, big);
                        } else {
                            e.analytic = Some(predict(self.machine, &mix, &sh));
                            if let (Predictor::Cycle, Some(prog), Some(spec)) =
                                (self.opts.predictor, &prog, &self.opts.launch)
                            {
                                e.cycle = Some(self.cycles(prog, spec, &mix, &sh));
                            }
                        }
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
        let predictor = settle_predictor(&mut out, self.opts.predictor, source, &mut notes);
        let blocks = match &self.opts.predict_launch {
            Some(big) => {
                let blocks = big.grid.iter().map(|&g| u64::from(g)).product::<u64>();
                let sampled = busiest_sm_ctas(big, self.machine.sms).len();
                notes.push(format!(
                    "times predicted on --predict-launch ({blocks} blocks): its busiest SM's \
                     {sampled} CTAs ran on the SASS emulator, scaled to the grid; outputs \
                     compared and rewrites proved on --launch"
                ));
                blocks
            }
            None => shape.blocks,
        };
        (
            out,
            source.unwrap_or(Source::Static),
            predictor,
            blocks,
            notes,
        )
    }

    /// Predicts variant `e` (measured as `m`) on `big` instead of the launch it was profiled on
    /// (`--predict-launch`): both models from a run of the CTAs of `big`'s busiest SM.
    fn predict_elsewhere(&self, e: &mut Evaluated, m: &Measured, big: &LaunchSpec) {
        let t0 = std::time::Instant::now();
        match predict_cubin_both(&m.cubin, self.kernel, big, Sample::BusiestSm) {
            Ok(p) => {
                log::info!(
                    "tune: `{}` on --predict-launch: analytic {:.2} us, cycle {}, in {:.1?}",
                    e.report.name,
                    p.analytic.us,
                    p.cycle
                        .as_ref()
                        .map_or_else(|w| w.clone(), |c| format!("{:.2} us", c.us)),
                    t0.elapsed()
                );
                e.analytic = Some(p.analytic);
                if self.opts.predictor == Predictor::Cycle {
                    e.cycle = Some(p.cycle);
                }
            }
            Err(why) => {
                e.report.error = Some(format!("cannot predict on --predict-launch: {why}"));
            }
        }
    }

    /// The timing mode's prediction of one variant.
    fn cycles(
        &self,
        prog: &SassProgram,
        spec: &LaunchSpec,
        mix: &Mix,
        shape: &Shape,
    ) -> Result<Prediction, String> {
        let t0 = std::time::Instant::now();
        let params = timing_params(self.machine, mix, shape.blocks);
        let (p, run) = predict_cycles(self.machine, prog, spec, mix, shape, &params)?;
        log::info!(
            "tune: timing mode: {} CTAs, {} cycles, {} warp-instructions, {}, in {:.1?}",
            run.ctas,
            run.cycles,
            run.warp_insts,
            run.summary(),
            t0.elapsed()
        );
        Ok(p)
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
            analytic_us: None,
            cycle_us: None,
            chosen: false,
            equivalent: None,
            error: None,
            left_out: None,
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
            analytic: None,
            cycle: None,
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
                Ok((
                    from_sass(&r.stats, footprint(spec)),
                    Some(r.buffers),
                    Some(prog),
                ))
            }
            (Source::PtxEmulator, Some(spec)) => self.profile_ptx(spec, module, m),
            (Source::Static, _) => {
                let prog = SassProgram::from_cubin(&m.cubin).map_err(|e| e.to_string())?;
                let k = prog
                    .kernel(self.kernel)
                    .ok_or_else(|| format!("no `{}` in the cubin", self.kernel))?;
                let shape = self.shape(&mut Vec::new());
                let warps = shape.blocks as f64 * f64::from(shape.warps_per_block);
                Ok((from_listing(k, warps), None, None))
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
            None,
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

/// Puts one predictor's times in the reports: the cycle-level one when it predicted every
/// profiled variant (one model ranks them all), else the analytic one with a note saying why.
fn settle_predictor(
    out: &mut [Evaluated],
    wanted: Predictor,
    source: Option<Source>,
    notes: &mut Vec<String>,
) -> Predictor {
    if wanted == Predictor::Cycle && source != Some(Source::SassEmulator) {
        if source.is_some_and(|s| s != Source::Static) {
            notes.push(format!(
                "cycle-level predictor unavailable: it needs the SASS emulator's profile, this \
                 run's is the {}'s; analytic model used",
                source.map_or("static", Source::name)
            ));
        }
        return settle_predictor(out, Predictor::Analytic, source, notes);
    }
    let profiled = || out.iter().filter(|e| e.analytic.is_some());
    let failure = profiled().find_map(|e| match &e.cycle {
        Some(Ok(_)) => None,
        Some(Err(why)) => Some(format!("`{}`: {why}", e.report.name)),
        None => Some(format!("`{}`: not run", e.report.name)),
    });
    let predictor = match (wanted, failure) {
        (Predictor::Analytic, _) => Predictor::Analytic,
        (Predictor::Cycle, None) if profiled().next().is_some() => Predictor::Cycle,
        (Predictor::Cycle, None) => {
            notes.push("cycle-level predictor: no variant was profiled".into());
            Predictor::Analytic
        }
        (Predictor::Cycle, Some(why)) => {
            notes.push(format!(
                "cycle-level predictor unavailable (the SASS emulator's timing mode needs its \
                 profile for every variant), analytic model used: {why}"
            ));
            Predictor::Analytic
        }
    };
    for e in out.iter_mut() {
        e.report.analytic_us = e.analytic.map(|p| p.us);
        e.report.cycle_us = e.cycle.as_ref().and_then(|c| c.as_ref().ok()).map(|p| p.us);
        let p = match predictor {
            Predictor::Cycle => e.cycle.as_ref().and_then(|c| c.as_ref().ok()).copied(),
            Predictor::Analytic => e.analytic,
        };
        if let Some(p) = p {
            e.report.predicted_us = Some(p.us);
            e.report.bound = Some(p.bound);
        }
    }
    predictor
}

/// A usable variant of a one-instruction kernel with ptxas figures and no prediction, for tests.
#[cfg(test)]
pub(crate) fn test_variant(name: &str, kind: Kind, max_regs: Option<u32>) -> Evaluated {
    let module = crate::ptx::parse_module(
        ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n",
        "k.ptx",
    )
    .expect("the test kernel parses");
    Evaluated {
        report: VariantReport {
            name: name.into(),
            kind,
            max_regs,
            registers: Some(32),
            local_bytes: Some(0),
            shared_bytes: Some(0),
            occupancy: Some(1.0),
            predicted_us: None,
            bound: None,
            analytic_us: None,
            cycle_us: None,
            chosen: false,
            equivalent: None,
            error: None,
            left_out: None,
        },
        module,
        measured: None,
        analytic: None,
        cycle: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tune::model::Bound;

    fn prediction(us: f64, bound: Bound) -> Prediction {
        Prediction {
            us,
            cycles: us * 1000.0,
            bound,
            latency_cycles: 0.0,
            throughput_cycles: 0.0,
        }
    }

    fn evaluated(name: &str, analytic: f64, cycle: Option<Result<f64, &str>>) -> Evaluated {
        let mut e = test_variant(name, Kind::Ptxas, None);
        e.analytic = Some(prediction(analytic, Bound::Latency));
        e.cycle = cycle.map(|c| {
            c.map(|us| prediction(us, Bound::Cycle))
                .map_err(str::to_string)
        });
        e
    }

    #[test]
    fn cycle_times_are_reported_when_every_variant_has_one() {
        let mut out = vec![
            evaluated("a", 10.0, Some(Ok(4.0))),
            evaluated("b", 20.0, Some(Ok(3.0))),
        ];
        let mut notes = Vec::new();
        let p = settle_predictor(
            &mut out,
            Predictor::Cycle,
            Some(Source::SassEmulator),
            &mut notes,
        );
        assert_eq!(p, Predictor::Cycle);
        assert!(notes.is_empty(), "{notes:?}");
        assert_eq!(out[1].report.predicted_us, Some(3.0));
        assert_eq!(out[1].report.bound, Some(Bound::Cycle));
        assert_eq!(out[1].report.analytic_us, Some(20.0));
        assert_eq!(out[1].report.cycle_us, Some(3.0));
    }

    #[test]
    fn one_failed_timing_run_puts_every_variant_on_the_analytic_model() {
        let mut out = vec![
            evaluated("a", 10.0, Some(Ok(4.0))),
            evaluated("b", 20.0, Some(Err("deadlock"))),
        ];
        let mut notes = Vec::new();
        let p = settle_predictor(
            &mut out,
            Predictor::Cycle,
            Some(Source::SassEmulator),
            &mut notes,
        );
        assert_eq!(p, Predictor::Analytic);
        assert!(notes[0].contains("`b`: deadlock"), "{notes:?}");
        assert_eq!(out[0].report.predicted_us, Some(10.0));
        assert_eq!(out[0].report.cycle_us, Some(4.0));
        // The PTX emulator's profile: the analytic model, with a note.
        let mut notes = Vec::new();
        let p = settle_predictor(
            &mut out,
            Predictor::Cycle,
            Some(Source::PtxEmulator),
            &mut notes,
        );
        assert_eq!(p, Predictor::Analytic);
        assert!(notes[0].contains("ptx-emulator"), "{notes:?}");
    }
}
