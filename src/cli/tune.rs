//! `warpsmith tune`: build a kernel's variants, predict each one's time and write the fastest
//! (RegDem §4; the library side is `warpsmith::tune`, the model in docs/tune.md).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use warpsmith::fsutil::write_atomic;
use warpsmith::ptx::print_module;
use warpsmith::tune::{output_cubin, tune, Predictor, TuneOptions, TuneReport, Tuned};

use super::emulate::load_spec;
use super::{emit, load_ptx, write_json_report, CliError};

/// Predict the fastest variant of a kernel and write it.
///
/// Variants: ptxas alone; ptxas with `.maxnreg N` at each occupancy cliff below the kernel's
/// register use; NVIDIA's `.pragma "enable_smem_spilling"` at each cliff (ptxas refuses it with
/// dynamic shared memory); warpsmith's shared-memory spilling at each cliff (kept only where the
/// never-worse rule keeps it); shuffle synthesis, alone and with `.maxnreg N` at each cliff. Each
/// is assembled with `ptxas -v` (registers, local and shared memory, occupancy with static and
/// dynamic shared memory); variants ptxas refuses or that cannot launch are listed with the
/// reason and never chosen.
///
/// With --launch (the emulator's JSON launch spec) each variant's cubin runs on the SASS emulator
/// (outputs compared with ptxas alone's), then on its cycle-level timing mode — the CTAs of the
/// busiest SM on a model of its warp schedulers, ptxas's stall counts and scoreboards, pipes,
/// shared memory, L1 and share of L2/DRAM — which predicts its time in µs (--predictor cycle,
/// the default). Where the SASS emulator cannot run the kernel, the PTX emulator's counts feed an
/// analytic model (issue, pipe, L1, shared-memory, DRAM and latency bounds against the
/// occupancy), else a static count (the report's `model` and `predictor` say which). Without
/// --launch a static model ranks the variants and only ptxas-option variants (ptxas, pragma) at
/// ptxas alone's occupancy can be chosen (the others are listed as left out: on an H200 the
/// static model's predictions for a change of occupancy did not carry, docs/tune.md "In the
/// drop-in"); a rewrite is chosen only after `equiv` proves it computes the same bytes as the
/// original on the launch. Predictions are not measurements: against the latest GPU run (an
/// H200, 4 Dec 2026) the choice was within 5 % of the fastest variant for 25 of 29 kernels (15
/// bench kernels, 14 Triton kernels); it picks spill-168 for Triton's d=64 attention, 21 %
/// slower, and keeps ptxas alone where warpsmith's spill at 80 registers wins by 12 % (sgemm
/// with dynamic shared memory) and where 32-register builds win by 7 % (docs/tune.md, "4 Dec
/// 2026: 29 kernels on an H200").
///
/// With --launch, each ptxas build that uses local memory also gets a demote variant (`demote`,
/// `demote-N`): its local-memory frame moved into shared memory in the cubin, as `warpsmith
/// demote --local-to-shared` does, proved on the SASS emulator against the build it came from.
///
/// OUT is PTX (any other name): the chosen variant with its `.maxnreg`, pragma or rewrite
/// applied, so any ptxas reproduces it; demote variants are predicted but cannot be chosen. OUT
/// ending in `.cubin`: the chosen variant assembled for --arch with every other kernel of the
/// module, demote variants included.
#[derive(clap::Args, Debug)]
pub struct TuneArgs {
    /// The PTX file.
    input: PathBuf,
    /// Where to write the chosen variant (atomically): PTX, or a cubin when the name ends in
    /// `.cubin`.
    #[arg(short, long)]
    output: PathBuf,
    /// The kernel (default: the launch spec's, or the module's only kernel).
    #[arg(long)]
    kernel: Option<String>,
    /// Target architecture (sm_70 … sm_90).
    #[arg(long, default_value = "sm_90")]
    arch: String,
    /// JSON launch spec (as for `emulate`): grid, block, dynamic shared memory, arguments.
    #[arg(long)]
    launch: Option<PathBuf>,
    /// Threads per block for kernels without launch bounds when no spec is given.
    #[arg(long)]
    block_size: Option<u32>,
    /// The block shape X[,Y[,Z]] of every launch, for the spill variants of a kernel whose
    /// .reqntid does not give it (as `spill --block-dim`): lane-affine values then take two words
    /// per warp. A spill variant made with it is correct only for launches of that shape; with
    /// --launch it must be the spec's block.
    #[arg(long, value_name = "X,Y,Z", value_parser = warpsmith::analysis::divergence::parse_block_dim)]
    block_dim: Option<[u32; 3]>,
    /// Dynamic shared memory per block, bytes, when no spec is given.
    #[arg(long)]
    dynamic_smem: Option<u32>,
    /// Seeds for the equivalence check of a rewritten winner.
    #[arg(long, default_value_t = 2)]
    seeds: u64,
    /// Write the JSON report here.
    #[arg(long)]
    report: Option<PathBuf>,
    /// Also write every variant to this folder, for timing on a GPU
    /// (bench/gpu/time_variants.py): NAME.ptx and NAME.cubin per variant that assembled,
    /// report.json, launch.json (the spec) and predict_launch.json (--predict-launch's).
    #[arg(long, value_name = "DIR")]
    emit_variants: Option<PathBuf>,
    /// What turns each variant's profile into a time: `cycle` runs the variant's cubin on the
    /// SASS emulator's timing mode for the CTAs of the busiest SM (needs --launch and a kernel
    /// the SASS emulator runs; otherwise the analytic model is used and the report says why);
    /// `analytic` uses the bounds model of docs/tune.md.
    #[arg(long, value_enum, default_value_t = Predictor::Cycle)]
    predictor: Predictor,
    /// Predict each variant's time on this launch spec instead of --launch's: same kernel, block
    /// and dynamic shared memory, typically the real problem size where --launch is a small
    /// one the emulator runs whole. Only the CTAs its busiest SM receives run on the SASS
    /// emulator (their counts scaled to the grid, `%nctaid` the whole grid's), so a 4096³
    /// matmul takes seconds a variant; outputs are still compared, and rewrites proved, on
    /// --launch only.
    #[arg(long, value_name = "SPEC", requires = "launch")]
    predict_launch: Option<PathBuf>,
}

/// Runs the command.
pub fn run(a: &TuneArgs) -> Result<ExitCode, CliError> {
    let module = load_ptx(&a.input)?;
    let launch = a.launch.as_deref().map(load_spec).transpose()?;
    let predict_launch = a.predict_launch.as_deref().map(load_spec).transpose()?;
    let opts = TuneOptions {
        kernel: a.kernel.clone(),
        arch: a.arch.clone(),
        launch,
        block_size: a.block_size,
        block_dim: a.block_dim,
        dynamic_smem: a.dynamic_smem,
        ptxas_args: Vec::new(),
        seeds: a.seeds,
        skip_rewrites: false,
        cubin_out: a.output.extension().is_some_and(|e| e == "cubin"),
        predictor: a.predictor,
        predict_launch,
    };
    let tuned = tune(&module, &opts).map_err(|e| CliError::Tune(e.to_string()))?;
    summary(&tuned.report);
    if let Some(p) = &a.report {
        write_json_report(p, &tuned.report)?;
    }
    if let Some(dir) = &a.emit_variants {
        let launches = [
            (a.launch.as_deref(), "launch.json"),
            (a.predict_launch.as_deref(), "predict_launch.json"),
        ];
        emit_variants(dir, &tuned, &launches)?;
    }
    if opts.cubin_out {
        let cubin = output_cubin(&tuned, &opts).map_err(|e| CliError::Tune(e.to_string()))?;
        write_atomic(&a.output, &cubin).map_err(|source| CliError::Write {
            path: a.output.clone(),
            source,
        })?;
    } else {
        emit(Some(&a.output), &print_module(&tuned.module))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Writes every variant's PTX and cubin, the report and the launch specs (each given one under
/// its name) into `dir`.
fn emit_variants(
    dir: &Path,
    t: &Tuned,
    launches: &[(Option<&Path>, &str)],
) -> Result<(), CliError> {
    let write_err = |path: PathBuf| move |source| CliError::Write { path, source };
    std::fs::create_dir_all(dir).map_err(write_err(dir.to_path_buf()))?;
    for b in &t.builds {
        if let Some(ptx) = &b.ptx {
            emit(Some(&dir.join(format!("{}.ptx", b.name))), ptx)?;
        }
        if let Some(cubin) = &b.cubin {
            let p = dir.join(format!("{}.cubin", b.name));
            write_atomic(&p, cubin).map_err(write_err(p.clone()))?;
        }
    }
    write_json_report(&dir.join("report.json"), &t.report)?;
    for (spec, name) in launches {
        if let Some(spec) = spec {
            let text = crate::read_input(spec)?;
            emit(Some(&dir.join(name)), &text)?;
        }
    }
    Ok(())
}

/// One line per variant on stderr, the chosen one marked.
fn summary(r: &TuneReport) {
    eprintln!(
        "{} on {} ({}), block {}, {} blocks, model {}, predictor {}",
        r.kernel,
        r.arch,
        r.machine,
        r.threads,
        r.blocks,
        r.model.name(),
        r.predictor.name()
    );
    for v in &r.variants {
        let mark = if v.chosen { "*" } else { " " };
        match (&v.error, v.predicted_us) {
            (Some(e), _) => eprintln!("{mark} {:<20} unusable: {e}", v.name),
            (None, Some(us)) => eprintln!(
                "{mark} {:<20} {:>4} regs {:>5} B local {:>6} B smem occ {:>5.1}% {:>10.3} us{}",
                v.name,
                v.registers.unwrap_or(0),
                v.local_bytes.unwrap_or(0),
                v.shared_bytes.unwrap_or(0),
                v.occupancy.unwrap_or(0.0) * 100.0,
                us,
                v.left_out
                    .as_deref()
                    .map_or(String::new(), |w| format!("  (left out: {w})"))
            ),
            (None, None) => eprintln!("{mark} {:<20} no prediction", v.name),
        }
    }
    for n in &r.notes {
        eprintln!("  note: {n}");
    }
}
