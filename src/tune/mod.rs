//! `warpsmith tune`: build the variants of a kernel, predict each one's time, and keep the
//! fastest (RegDem §4, the compile-time performance predictor that picks among register
//! allocation variants).
//!
//! - [`variants`]: ptxas alone, `.maxnreg N` at each occupancy cliff, NVIDIA's
//!   `enable_smem_spilling` pragma at each cliff, warpsmith spill at each cliff, shuffle.
//! - [`measure`]: `ptxas -v` on each (cubin, registers, local and shared memory), launch
//!   legality and occupancy.
//! - [`profile`]: the dynamic instruction mix and memory traffic of the launch — SASS emulator,
//!   else PTX emulator, else a static count — one source for every variant.
//! - [`model`] and [`params`]: the analytic model and its per-architecture figures.
//! - [`cycle`]: the cycle-level predictor (the SASS emulator's timing mode on the busiest SM's
//!   CTAs), used where the SASS emulator runs the launch.
//! - [`scope`]: the variants are made on the module without the other kernels, and the chosen
//!   one gets them back.
//! - [`evaluate`]: one variant from PTX to predicted time; [`choose`]: the winner, proved equal
//!   to the original on the emulator when it rewrites the kernel.
//!
//! Predictions are models' estimates; docs/tune.md scores them against stored H100/H200
//! measurements (bench/results).

pub mod choose;
pub mod cubin_time;
pub mod cycle;
pub mod demoted;
pub mod evaluate;
pub mod measure;
pub mod model;
pub mod params;
pub mod profile;
pub mod scope;
pub mod variants;

use serde::Serialize;

use crate::analysis::occupancy::{self, OccupancyError};
use crate::emu::launch::LaunchSpec;
use crate::never_worse::dynamic_smem;
use crate::ptx::{FuncKind, Function, Module};
use crate::spill::cliff_caps;

pub use cycle::Predictor;
pub use model::{Bound, Prediction};
pub use profile::Source;
pub use variants::Kind;

/// What to tune.
#[derive(Clone, Debug, Default)]
pub struct TuneOptions {
    /// The kernel (default: the launch spec's, or the module's only kernel).
    pub kernel: Option<String>,
    /// `sm_XX`.
    pub arch: String,
    /// The launch to predict (absent: the static model ranks the variants).
    pub launch: Option<LaunchSpec>,
    /// Threads per block where neither the spec nor launch bounds give them.
    pub block_size: Option<u32>,
    /// The block shape of every launch of the tuned kernel, given to the spill variants
    /// ([`crate::spill::SpillOptions::block_dim`]); must be the launch spec's block when one is
    /// given. `None`: the spill variants see the shape `.reqntid` gives, else none.
    pub block_dim: Option<[u32; 3]>,
    /// Dynamic shared memory where the spec does not give it.
    pub dynamic_smem: Option<u32>,
    /// ptxas options for every variant.
    pub ptxas_args: Vec<String>,
    /// Seeds of the equivalence check of a rewritten winner.
    pub seeds: u64,
    /// Build only the variants that can be chosen without a launch spec (ptxas, pragma): the
    /// drop-in's mode, where spill and shuffle variants would cost time and never win.
    pub skip_rewrites: bool,
    /// Whether the output is a cubin: only then can a cubin-only variant (demote) be chosen.
    pub cubin_out: bool,
    /// The predictor (the cycle-level one needs the SASS emulator's profile).
    pub predictor: Predictor,
    /// Predict on this launch instead of `launch` (same kernel, block and dynamic shared
    /// memory): only the CTAs of its busiest SM run ([`cubin_time::Sample::BusiestSm`]);
    /// `launch` stays the one outputs are compared and rewrites proved on.
    pub predict_launch: Option<LaunchSpec>,
}

/// Why tuning could not start.
#[derive(Debug, thiserror::Error)]
pub enum TuneError {
    /// No such kernel.
    #[error("no kernel named `{0}` with a body")]
    NoKernel(String),
    /// Several kernels and none named.
    #[error("the module has {0} kernels ({1}): name one with --kernel")]
    WhichKernel(usize, String),
    /// No block size known.
    #[error("kernel `{0}` has no .reqntid/.maxntid launch bounds and no launch spec: pass --block-size or --launch")]
    NoBlockSize(String),
    /// The spec launches another kernel.
    #[error("the launch spec is for kernel `{spec}`, not `{kernel}`")]
    SpecKernel { spec: String, kernel: String },
    /// Occupancy rules refuse the request.
    #[error("{0}")]
    Occupancy(#[from] OccupancyError),
    /// No machine figures for the architecture.
    #[error(
        "the predictor has no figures for {0} (known: sm_70, sm_75, sm_80, sm_86, sm_89, sm_90)"
    )]
    NoMachine(String),
    /// The original does not assemble or launch.
    #[error("the original kernel cannot be used: {0}")]
    Original(String),
    /// The prediction launch does not match the launch.
    #[error("--predict-launch: {0}")]
    PredictLaunch(String),
    /// `--block-dim` disagrees with the launch spec's block.
    #[error("--block-dim {given} is not the launch spec's block {spec}: the spill variants would be proved on another shape than they are made for")]
    BlockDim { given: String, spec: String },
}

/// Checks that `opts.predict_launch` launches what `opts.launch` does (kernel, block, dynamic
/// shared memory): the variants are assembled and proved for the one and predicted on the other.
fn check_predict_launch(opts: &TuneOptions, kernel: &str) -> Result<(), TuneError> {
    let Some(p) = &opts.predict_launch else {
        return Ok(());
    };
    let Some(l) = &opts.launch else {
        return Err(TuneError::PredictLaunch(
            "needs --launch too (the launch outputs are compared and rewrites proved on)".into(),
        ));
    };
    let why = if p.kernel != kernel {
        format!("it launches `{}`, not `{kernel}`", p.kernel)
    } else if dims3(&p.block) != dims3(&l.block) {
        format!("block {:?} differs from --launch's {:?}", p.block, l.block)
    } else if p.dynamic_smem != l.dynamic_smem {
        format!(
            "{} B of dynamic shared memory differ from --launch's {} B",
            p.dynamic_smem, l.dynamic_smem
        )
    } else {
        return Ok(());
    };
    Err(TuneError::PredictLaunch(why))
}

/// `--block-dim` must be the launch spec's block, where a spec is given: rewrites are proved on
/// the spec's launch, and a spill variant made for one shape is correct only for it.
fn check_block_dim(opts: &TuneOptions) -> Result<(), TuneError> {
    let (Some(dim), Some(l)) = (opts.block_dim, &opts.launch) else {
        return Ok(());
    };
    let spec = dims3(&l.block);
    if spec == dim {
        return Ok(());
    }
    let shape = |d| crate::analysis::divergence::BlockShape::Known(d).describe();
    Err(TuneError::BlockDim {
        given: shape(dim),
        spec: shape(spec),
    })
}

/// A launch spec's block (1 to 3 numbers) as three dimensions, the missing ones 1.
fn dims3(block: &[u32]) -> [u32; 3] {
    [0, 1, 2].map(|d| block.get(d).copied().unwrap_or(1))
}

/// One variant in the report.
#[derive(Clone, Debug, Serialize)]
pub struct VariantReport {
    pub name: String,
    pub kind: Kind,
    pub max_regs: Option<u32>,
    pub registers: Option<u32>,
    /// Stack + spill traffic, bytes per thread.
    pub local_bytes: Option<u32>,
    /// Static shared memory, bytes per block.
    pub shared_bytes: Option<u32>,
    pub occupancy: Option<f64>,
    pub predicted_us: Option<f64>,
    /// The bound that set the prediction.
    pub bound: Option<Bound>,
    /// Both predictors' times where each ran (`predicted_us` is the report's `predictor`'s).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub analytic_us: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cycle_us: Option<f64>,
    pub chosen: bool,
    /// For rewriting variants: whether `equiv` proved it equal to the original (None: not run).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub equivalent: Option<bool>,
    /// Why the variant cannot be used.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Why a usable, predicted variant may not be chosen (without a launch: a change of
    /// occupancy, `choose::refuse_occupancy_changes`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub left_out: Option<String>,
}

/// The report (`--report`).
#[derive(Clone, Debug, Serialize)]
pub struct TuneReport {
    pub kernel: String,
    pub arch: String,
    /// The GPU the machine figures describe.
    pub machine: String,
    /// Where the instruction mix came from (the same source for every variant).
    pub model: Source,
    /// What turned it into times: `cycle` (the SASS emulator's timing mode) or `analytic`.
    pub predictor: Predictor,
    pub threads: u32,
    /// Blocks of the launch (assumed ones for the static model).
    pub blocks: u64,
    pub variants: Vec<VariantReport>,
    /// What the reader must know about this run (assumptions, fallbacks).
    pub notes: Vec<String>,
}

/// One variant as built: its PTX (the tuned kernel alone) and its cubin where ptxas made one,
/// for timing on a GPU (bench/gpu/time_variants.py).
#[derive(Clone, Debug)]
pub struct Build {
    pub name: String,
    pub ptx: Option<String>,
    pub cubin: Option<Vec<u8>>,
}

/// The result: the chosen variant's module, the report and every variant's build.
#[derive(Clone, Debug)]
pub struct Tuned {
    /// The chosen variant's PTX (for a demote variant: the ptxas build it was made from).
    pub module: Module,
    /// The launch the variants were judged for.
    pub launch: measure::Launch,
    pub report: TuneReport,
    pub builds: Vec<Build>,
}

/// Builds, measures and predicts every variant of the kernel and returns the fastest one the
/// rules allow.
pub fn tune(full: &Module, opts: &TuneOptions) -> Result<Tuned, TuneError> {
    let kernel = pick_kernel(full, opts)?.name.to_string();
    check_predict_launch(opts, &kernel)?;
    let module = &scope::strip(full, &kernel);
    let f = pick_kernel(module, opts)?;
    let limits = occupancy::arch(&opts.arch)?;
    let machine =
        params::machine(&opts.arch).ok_or_else(|| TuneError::NoMachine(opts.arch.clone()))?;
    check_block_dim(opts)?;
    let threads = match &opts.launch {
        Some(s) => s.block.iter().product(),
        None => f
            .block_size_bound()
            .or(opts.block_size)
            .ok_or_else(|| TuneError::NoBlockSize(kernel.clone()))?,
    };
    let given = opts
        .launch
        .as_ref()
        .map(|s| u32::try_from(s.dynamic_smem).unwrap_or(u32::MAX))
        .or(opts.dynamic_smem);
    let launch = measure::Launch {
        arch: limits,
        threads,
        dynamic: dynamic_smem(module, f, given),
    };
    let base = measure::assemble(module, &kernel, &opts.arch, &opts.ptxas_args, &launch)
        .map_err(TuneError::Original)?;
    let spills = base.figures.local_bytes() > 0;
    let caps = cliff_caps(
        limits,
        threads,
        base.res.shared,
        launch.dynamic,
        base.res.registers,
        spills,
    )?;
    let ctx = variants::Context {
        kernel: kernel.clone(),
        arch: opts.arch.clone(),
        threads,
        dynamic: launch.dynamic,
        ptxas_args: opts.ptxas_args.clone(),
        block_dim: opts.block_dim,
    };
    let candidates = variants::build(module, &ctx, &caps, base.res.registers, opts.skip_rewrites);
    let run = evaluate::Runner::new(module, &kernel, machine, &launch, opts);
    let (mut evaluated, model, predictor, blocks, mut notes) = run.all(candidates);
    let chosen = choose::choose(module, &mut evaluated, opts, &mut notes);
    let out = scope::splice(full, &evaluated[chosen].module, &kernel);
    let builds = evaluated
        .iter()
        .map(|e| Build {
            name: e.report.name.clone(),
            ptx: e
                .measured
                .as_ref()
                .filter(|_| !e.report.kind.cubin_only())
                .map(|_| crate::ptx::print_module(&e.module)),
            cubin: e.measured.as_ref().map(|m| m.cubin.clone()),
        })
        .collect();
    let variants = evaluated.into_iter().map(|e| e.report).collect();
    Ok(Tuned {
        module: out,
        launch,
        report: TuneReport {
            kernel,
            arch: opts.arch.clone(),
            machine: machine.part.to_string(),
            model,
            predictor,
            threads,
            blocks,
            variants,
            notes,
        },
        builds,
    })
}

/// Why the chosen variant could not be written as a cubin.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// ptxas refused the module (it accepted the same kernel alone).
    #[error("ptxas: {0}")]
    Ptxas(#[from] crate::tools::ToolError),
    /// The demote rewrite failed or was not kept on the whole module's cubin.
    #[error("demote on the whole module's cubin: {0}")]
    Demote(String),
}

/// The chosen variant as a cubin of the whole module: the chosen PTX (every other kernel back in
/// it) assembled with the tuning's ptxas options, and for a demote variant the frame of the tuned
/// kernel moved to shared memory again, under the same rule and proof as when it was measured.
pub fn output_cubin(t: &Tuned, opts: &TuneOptions) -> Result<Vec<u8>, OutputError> {
    let args: Vec<&str> = opts.ptxas_args.iter().map(String::as_str).collect();
    let built = crate::tools::ptxas_assemble_source(
        &crate::ptx::print_module(&t.module),
        &opts.arch,
        &args,
    )?;
    let chosen = t.report.variants.iter().find(|v| v.chosen);
    if chosen.is_none_or(|v| v.kind != Kind::Demote) {
        return Ok(built.cubin);
    }
    let registers = chosen.and_then(|v| variants::demote_source(&v.name, v.max_regs).1);
    let how = demoted::DemoteInputs {
        kernel: &t.report.kernel,
        launch: &t.launch,
        spec: opts.launch.as_ref(),
        seeds: opts.seeds,
        registers: registers.map(crate::sass::demote::RegisterTarget::MaxRegs),
    };
    let (cubin, _) = demoted::rewrite(&built.cubin, &how).map_err(OutputError::Demote)?;
    Ok(cubin)
}

/// Tunes every kernel of `module` in turn without a launch spec (the drop-in,
/// `WARPSMITH_PASSES=tune`): only ptxas-option variants, the static model. Returns the module and
/// one line per kernel (its choice, or why it was left as it was).
pub fn tune_all(module: &Module, base: &TuneOptions) -> (Module, Vec<String>) {
    let names: Vec<String> = module
        .functions()
        .filter(|f| f.kind == FuncKind::Entry && f.body.is_some())
        .map(|f| f.name.to_string())
        .collect();
    let mut m = module.clone();
    let mut notes = Vec::new();
    for k in names {
        let opts = TuneOptions {
            kernel: Some(k.clone()),
            launch: None,
            skip_rewrites: true,
            ..base.clone()
        };
        match tune(&m, &opts) {
            Ok(t) => {
                let chosen = t.report.variants.iter().find(|v| v.chosen);
                notes.push(format!(
                    "tune: {k}: {} ({} model, predicted {:.2} us)",
                    chosen.map_or("ptxas", |v| v.name.as_str()),
                    t.report.model.name(),
                    chosen.and_then(|v| v.predicted_us).unwrap_or(0.0)
                ));
                notes.extend(
                    t.report
                        .notes
                        .iter()
                        .filter(|n| n.starts_with(choose::OCCUPANCY_NOTE))
                        .map(|n| format!("tune: {k}: {n}")),
                );
                m = t.module;
            }
            Err(e) => notes.push(format!("tune: {k}: left as it was: {e}")),
        }
    }
    (m, notes)
}

/// The kernel to tune: the named one, the spec's, or the only one.
fn pick_kernel<'m>(module: &'m Module, opts: &TuneOptions) -> Result<&'m Function, TuneError> {
    let entries: Vec<&Function> = module
        .functions()
        .filter(|f| f.kind == FuncKind::Entry && f.body.is_some())
        .collect();
    let want = opts
        .kernel
        .clone()
        .or_else(|| opts.launch.as_ref().map(|s| s.kernel.clone()));
    let f = match want {
        Some(k) => entries
            .iter()
            .find(|f| *f.name == *k)
            .copied()
            .ok_or(TuneError::NoKernel(k))?,
        None if entries.len() == 1 => entries[0],
        None => {
            let names: Vec<&str> = entries.iter().map(|f| &*f.name).collect();
            return Err(TuneError::WhichKernel(entries.len(), names.join(", ")));
        }
    };
    if let Some(s) = &opts.launch {
        if s.kernel != *f.name {
            return Err(TuneError::SpecKernel {
                spec: s.kernel.clone(),
                kernel: f.name.to_string(),
            });
        }
    }
    Ok(f)
}
