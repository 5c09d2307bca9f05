//! The `warpsmith` command-line tool: one subcommand per job, all sharing the library.
//!
//! Exit codes: 0 success, 1 a check failed (reserved for `equiv`-style commands), 2 bad input or
//! an error.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cli;

/// warpsmith raises the occupancy and speed of NVIDIA GPU kernels after the compiler: it reads
/// the PTX that LLVM's NVPTX back end, nvcc or NVHPC emit (and the cubins ptxas makes from it),
/// analyses it and rewrites it.
///
/// Built today: the PTX machine IR (`fmt`, `stats`), the occupancy calculator (`occupancy`), the
/// affine divergence analysis (`divergence`, and the LLVM 22 pass plugin libwarpsmith.so), the PTX
/// emulator (`emulate`, `equiv`), shared-memory spilling (`spill`), the cubin/SASS tools
/// (`sass`), the cubin demoter (`demote`) and local-memory report (`lmem-report`), shuffle
/// synthesis (`shuffle`), the variant predictor (`tune`) and the drop-in assembler wrapper
/// (`ptxas`). Partial: see each command's help and docs/ (`demote` leaves registers touched by
/// instructions of unknown latency in place, and refuses kernels that call outside themselves).
#[derive(Parser, Debug)]
#[command(name = "warpsmith", version, about, long_about, max_term_width = 100)]
struct Cli {
    /// Print diagnostics at this level and above (error, warn, info, debug, trace). Also read
    /// from RUST_LOG.
    #[arg(long, global = true, value_name = "LEVEL")]
    log: Option<String>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Parse a PTX file and print it back (a round trip through the IR).
    ///
    /// The output has the same meaning as the input — ptxas gives the same register, spill and
    /// shared-memory figures — with comments dropped and a uniform layout.
    Fmt {
        /// The PTX file to read (`-` for standard input).
        input: PathBuf,
        /// Where to write; standard output when absent. Written atomically.
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Per-kernel statistics: instructions, basic blocks, loops, maximum live 32-bit registers,
    /// live predicates, launch bounds, shared and local memory.
    ///
    /// With --arch, also the register model's prediction of the registers ptxas gives each
    /// kernel (column `regs~`; JSON `register_model`), without running ptxas. A model, not a
    /// measurement: within ±10 % of ptxas 12.9 on 256 of 371 bench kernels
    /// (docs/regmodel-table.md); `ptxas -v` is the figure to trust where it can be run.
    Stats {
        /// The PTX file to read (`-` for standard input).
        input: PathBuf,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// Predict ptxas's register count for this architecture (sm_70 … sm_90, sm_90a).
        #[arg(long)]
        arch: Option<String>,
        /// Where to write; standard output when absent. Written atomically.
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Occupancy of a launch on one SM: resident blocks and warps, the limiting resource, and
    /// (with --cliffs) the register counts at which occupancy changes.
    ///
    /// Follows the rules of NVIDIA's occupancy calculator (cuda_occupancy.h): per-warp register
    /// allocation in units of 256 over 4 sub-partitions, shared memory per block including the
    /// 1 KiB reservation on sm_80+, and the per-SM warp and block limits.
    Occupancy {
        /// Target architecture: sm_70, sm_75, sm_80, sm_86, sm_89, sm_90, sm_100 or sm_120.
        #[arg(long, default_value = "sm_90")]
        arch: String,
        /// Registers per thread (as ptxas -v reports).
        #[arg(long)]
        regs: u32,
        /// Threads per block.
        #[arg(long)]
        threads: u32,
        /// Static shared memory per block, bytes.
        #[arg(long, default_value_t = 0)]
        smem: u32,
        /// Dynamic shared memory per block, bytes.
        #[arg(long, default_value_t = 0)]
        dynamic_smem: u32,
        /// Shared-memory carve-out in KiB (rounded up to a supported option); default the largest.
        #[arg(long)]
        carveout: Option<u32>,
        /// Also list the register cliffs for this block size and shared memory.
        #[arg(long)]
        cliffs: bool,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    Tune(cli::tune::TuneArgs),
    /// Shared-memory spilling: demote registers to shared memory so that ptxas, capped at
    /// --max-regs (written as .maxnreg), needs no local memory.
    ///
    /// Values are classified by the affine divergence analysis: constants and lane-affine values
    /// are rematerialised, uniform values with one definition take one word per warp (or per
    /// block), affine values store their uniform base per warp and are rebuilt with one `mad`,
    /// the rest take one word per thread in a bank-conflict-free layout; predicates beyond the
    /// seven hardware predicate registers are packed as bits of one word per thread. With ptxas
    /// available the result is checked with `ptxas -v`: more is demoted while ptxas still
    /// spills, and demotions ptxas does not need are dropped again.
    ///
    /// Never worse: the rewrite of a kernel is kept only if, assembled by ptxas, its local memory
    /// does not grow, its occupancy (static and dynamic shared memory counted) does not fall, its
    /// launch stays legal, and one of them improves; otherwise the kernel is left as it was and
    /// the summary says why. --occupancy auto tries every occupancy cliff below the kernel's use,
    /// nearest first, and keeps the best. Partial: affine values with several definitions stay per
    /// thread, reloads are reused only within a basic block (the report's notes say when a limit
    /// applies; docs/spill.md has the details).
    Spill {
        /// The PTX file.
        input: PathBuf,
        /// Where to write the rewritten PTX (atomically).
        #[arg(short, long)]
        output: PathBuf,
        /// Register cap per thread.
        #[arg(
            long,
            conflicts_with = "occupancy",
            required_unless_present = "occupancy"
        )]
        max_regs: Option<u32>,
        /// `auto`: the next occupancy cliff below the kernel's register use (the occupancy
        /// rises). `keep`: only where ptxas alone uses local memory, the cap of the kernel's own
        /// occupancy step (the local memory moves to shared memory, the occupancy stays).
        #[arg(long, value_parser = ["auto", "keep"])]
        occupancy: Option<String>,
        /// Only this kernel.
        #[arg(long)]
        kernel: Option<String>,
        /// Architecture for occupancy and ptxas checks.
        #[arg(long, default_value = "sm_90")]
        arch: String,
        /// Threads per block for kernels without .reqntid/.maxntid.
        #[arg(long)]
        block_size: Option<u32>,
        /// The block shape X[,Y[,Z]] of every launch, for kernels whose .reqntid does not give it
        /// (`__launch_bounds__(256)` is `.maxntid 256`, which leaves the shape open). With it
        /// lane-affine values (`%tid.x` of a 1-D block, `(warp << 5) | lane`, their row
        /// pointers) take two words per warp instead of one per thread. The pass also tries
        /// the classes without the shape and keeps the rewrite that needs less; one made with
        /// the shape is correct only for launches of that shape (the report's `choices` say which
        /// was kept). A kernel whose .reqntid or .maxntid it contradicts is refused.
        #[arg(long, value_name = "X,Y,Z", value_parser = warpsmith::analysis::divergence::parse_block_dim)]
        block_dim: Option<[u32; 3]>,
        /// Most shared memory the pass may add per block, bytes.
        #[arg(long)]
        smem_budget: Option<u32>,
        /// Dynamic shared memory the kernel is launched with, bytes (occupancy, budget, launch
        /// legality). Default: 0 for kernels without an `extern .shared` array; for kernels with
        /// one the size is unknown and no shared memory is added (only rematerialisation).
        #[arg(long)]
        dynamic_smem: Option<u32>,
        /// Do not run ptxas: no search against `ptxas -v` and no never-worse check (the rewrite
        /// is kept unchecked). The register model stands in for ptxas's figures: with
        /// --occupancy auto it picks the caps and keeps a rewrite only where it predicts no spill
        /// and a higher occupancy (docs/spill.md, step 9). Without this flag and without ptxas,
        /// every kernel stays as it was.
        #[arg(long)]
        no_ptxas: bool,
        /// Most ptxas runs in flight at once during the search (default: the machine's cores,
        /// at most 4). The result is the same for every value; 1 runs one at a time.
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..=256))]
        jobs: Option<u64>,
        /// Write the JSON report here.
        #[arg(long)]
        report: Option<PathBuf>,
    },
    /// Run a kernel on the PTX emulator (SIMT, exact PTX semantics) with a JSON launch spec.
    ///
    /// Writes every buffer argument (and the tensor of every `tensor_map` argument) after the run
    /// to DIR/arg<N>.bin (raw little-endian) and every module .global variable to DIR/<name>.bin,
    /// and prints instruction counts and time. The spec format (buffers, scalars, by-value
    /// aggregates, TMA tensor maps in the emulator's own encoding) is in docs/emulator.md.
    Emulate {
        /// The PTX file, or a cubin (sm_80/86/89/90; the SASS emulator, which needs nvdisasm).
        input: PathBuf,
        /// The launch spec (JSON).
        #[arg(long, value_name = "SPEC.json")]
        launch: PathBuf,
        /// Output directory for the buffers.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// Cubins: write the run's statistics (instructions by class, memory requests,
        /// transactions, bank conflicts) as JSON to this file.
        #[arg(long, value_name = "FILE.json")]
        stats: Option<PathBuf>,
        /// Cubins: also run the launch on the SASS emulator's timing mode — the CTAs the busiest
        /// SM receives, on a model of that SM with the figures of the cubin's architecture
        /// (docs/tune.md, "The cycle-level model") — and print the predicted kernel time. A
        /// model's estimate, not a measurement.
        #[arg(long)]
        timing: bool,
    },
    /// Affine divergence analysis: for every register of every function, whether it is the
    /// same on all lanes of a warp (uniform; block scope: in the whole thread block), an affine
    /// function `coef·lane + base` of the lane, or divergent.
    ///
    /// Classes: constant, uniform, constant-affine, affine, divergent (Sampaio et al., "Spill
    /// Code Placement for SIMD Machines" §2). %tid.x is affine in the lane only for 1-D blocks
    /// or when ntid.x is a multiple of 32: the shape comes from .reqntid, --block-dim or
    /// --assume-1d; otherwise %tid is divergent and the output says why. A known shape also
    /// bounds %tid (at most ntid − 1), which makes masks such as `%tid.x & 255` in a 256-thread
    /// block the identity and `or`s of values with no common bit additions; `--json` reports
    /// the bound of uniform and affine registers as `max`.
    Divergence {
        /// The PTX file to read (`-` for standard input).
        input: PathBuf,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// Only this function.
        #[arg(long, value_name = "NAME")]
        function: Option<String>,
        /// The block shape X[,Y[,Z]] of every launch (overrides .reqntid).
        #[arg(long, value_name = "X,Y,Z", value_parser = warpsmith::analysis::divergence::parse_block_dim)]
        block_dim: Option<[u32; 3]>,
        /// Assume 1-D blocks for kernels without .reqntid.
        #[arg(long)]
        assume_1d: bool,
        /// Assume integer arithmetic never wraps (as if every add/mul had LLVM's nsw and nuw).
        #[arg(long)]
        assume_no_overflow: bool,
        /// Where to write; standard output when absent. Written atomically.
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Check that two PTX files compute the same bytes: run both on identical inputs.
    ///
    /// Exit status 0 when every output buffer is byte-identical for every seed, 1 when not (the
    /// first differing buffer, element and values are printed), 2 on an error.
    Equiv {
        /// The reference kernel: a PTX file or a cubin.
        a: PathBuf,
        /// The kernel to compare with it: a PTX file or a cubin.
        b: PathBuf,
        /// The launch spec (JSON).
        #[arg(long, value_name = "SPEC.json")]
        launch: PathBuf,
        /// Number of input sets: seed s replaces every `random` seed by seed+s.
        #[arg(long, default_value_t = 1)]
        seeds: u64,
        /// Launch B with this many bytes of dynamic shared memory instead of the spec's (a
        /// build whose launch must grow, e.g. `demote --grow-dynamic`'s); A keeps the spec's.
        #[arg(long, value_name = "BYTES")]
        b_dynamic_smem: Option<u64>,
    },
    /// Shuffle synthesis (PTXASW): replace global loads that read what a neighbouring lane of the
    /// warp already loaded by guarded `shfl.sync`.
    ///
    /// A symbolic emulator (Z3 bit-vectors) runs one generic thread over every path, and a load
    /// is replaced only when a delta N is PROVED (addr(lane) = addr_of_source(lane+N) for all
    /// inputs) and the source load executes on every path before it with no store, atomic or
    /// barrier in between. The generated code checks at run time for incomplete or divergent
    /// warps, lanes without a source, and rows of the block shorter than a warp, and then runs
    /// the original load. Partial: 8/16-bit and widening loads are not shuffled, and loops get
    /// one abstract iteration (no reuse across iterations); docs/shuffle.md.
    Shuffle {
        /// The PTX file.
        input: PathBuf,
        /// Where to write the rewritten PTX (atomically).
        #[arg(short, long)]
        output: PathBuf,
        /// Largest |N| considered (1..=31).
        #[arg(long, default_value_t = 31, value_parser = clap::value_parser!(u32).range(1..=31))]
        max_delta: u32,
        /// full: correct code; no-load / no-corner: measurement only, NOT correct (the fallback
        /// loads, or all corner-case checks, are left out; a warning is printed).
        #[arg(long, default_value = "full", value_parser = ["full", "no-load", "no-corner"])]
        mode: String,
        /// Only this kernel.
        #[arg(long)]
        kernel: Option<String>,
        /// Wall-clock budget of the analysis for the whole file, in milliseconds, shared among
        /// its kernels: each gets what is left divided by the kernels still to analyse, so time a
        /// kernel does not use passes to the next. When a kernel's share is spent, its loads not
        /// yet decided are left as they were. Each kernel also has 20 ms of solver time for
        /// proofs. 0: no limits (every proof is attempted).
        #[arg(long, value_name = "MS", default_value_t = 2000)]
        time_budget: u64,
        /// Make every replacement the analysis proves, also those whose added instructions
        /// (shuffles, corner checks, votes) outweigh the load they save (src/shuffle/cost.rs).
        #[arg(long)]
        all: bool,
        /// Write the JSON report here.
        #[arg(long, value_name = "FILE.json")]
        report: Option<PathBuf>,
    },
    /// A drop-in replacement for NVIDIA's ptxas: rewrites the input PTX with the passes in
    /// WARPSMITH_PASSES (shuffle, spill), then runs the real ptxas with the same arguments.
    ///
    /// Also runs when the binary is started as `ptxas` or `ptxas-…` (a symbolic link), for
    /// clang's --ptxas-path= and Triton's TRITON_PTXAS_PATH / TRITON_PTXAS_BLACKWELL_PATH. When a pass fails, a warning is printed and
    /// the original PTX is assembled. `warpsmith ptxas --warpsmith-help` lists the environment
    /// variables; docs/ptxas-wrapper.md.
    #[command(disable_help_flag = true, disable_version_flag = true)]
    Ptxas {
        /// ptxas's arguments, passed on unchanged (the input replaced by the rewritten PTX).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<std::ffi::OsString>,
    },
    /// Cubins and SASS (sm_80, sm_86, sm_89, sm_90): disassembly with control bits and def/use,
    /// a check of our decoder against nvdisasm, and the NOP-insertion test of the editing API.
    ///
    /// Cubins the editor writes for `demote` have run on an H100 and an H200 and computed ptxas
    /// alone's bytes (docs/gpu.md); the nop-test's output is checked with nvdisasm and cuobjdump
    /// only. CALL instructions get a conservative def/use (docs/sass.md).
    Sass {
        #[command(subcommand)]
        command: cli::sass::SassCommand,
    },
    /// Where a cubin's kernels use local memory: bytes per thread, the LDL/STL instructions and
    /// how many of them are ptxas's own spills, the source lines they come from (cubins
    /// assembled with -lineinfo), and with --launch what one launch does (local requests, bytes,
    /// transactions, share of all warp instructions; SASS emulator). Give two cubins (before and
    /// after `demote`) to compare them.
    LmemReport {
        /// The cubins.
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// Only this kernel.
        #[arg(long)]
        kernel: Option<String>,
        /// A launch spec (JSON, as for `emulate`) to measure the launch on the SASS emulator.
        #[arg(long, value_name = "SPEC.json")]
        launch: Option<PathBuf>,
        /// Write the report as JSON here.
        #[arg(long, value_name = "FILE.json")]
        json: Option<PathBuf>,
    },
    /// Rewrite a cubin after ptxas (sm_80, sm_86, sm_89, sm_90). --local-to-shared moves
    /// ptxas's local-memory spill frame into shared memory (RegDem's per-thread,
    /// bank-conflict-free layout), also for kernels with dynamic shared memory where NVIDIA's
    /// enable_smem_spilling pragma is refused. --max-regs N and --occupancy auto demote
    /// registers: the least-used registers (singles, pairs, quads) move to per-thread
    /// shared-memory slots (a load before and a store after each instruction that touches one,
    /// through scratch registers; single-definition constants are recomputed instead), the rest
    /// are renumbered so the register count falls, and a frame moves along with them; a
    /// basic-block scheduler then moves the loads up and the stores down, away from their
    /// instructions, and rotates scratch banks where the register granule leaves room. Partial:
    /// registers touched by instructions whose latency is not known (HMMA, DFMA, P2R…) stay;
    /// kernels that call code outside themselves are refused. Measured on an H100: every
    /// register-demoted kernel computed ptxas's bytes, none ran faster (docs/gpu.md).
    ///
    /// Where the whole frame does not fit (the 48 KiB a block may declare statically, or the
    /// occupancy), --local-to-shared moves the most-used part of it and leaves the rest in a
    /// smaller local frame addressed through a uniform register the kernel does not use.
    ///
    /// Each kernel is kept unchanged (and the report says why) unless local memory shrinks (to
    /// zero, or stays zero, for register demotion), occupancy with static and dynamic shared
    /// memory does not fall (rises, for register demotion) and the launch stays legal; a register
    /// demotion must also be predicted no slower by the tune model on --launch (or the first
    /// --verify). The region sits after the dynamic shared memory, whose size
    /// the code reads at run time; the rule needs it as --dynamic-smem (0 if none). With
    /// --verify, original and output run on the SASS emulator and every output byte must agree.
    /// The output is written in every case (a copy of the input where nothing changed). The
    /// rewritten cubins have been checked with nvdisasm, cuobjdump and the SASS emulator, and the
    /// sm_90 ones on an H100 and an H200 (docs/gpu.md).
    #[command(group(clap::ArgGroup::new("mode").required(true)
        .args(["local_to_shared", "max_regs", "occupancy"])))]
    Demote {
        /// The input cubin.
        input: PathBuf,
        /// The output cubin (written atomically).
        #[arg(short, long)]
        output: PathBuf,
        /// Move ptxas's local-memory frame to shared memory.
        #[arg(long)]
        local_to_shared: bool,
        /// Demote registers until the kernel uses at most N registers per thread (kept only if
        /// occupancy rises and the time is predicted no slower).
        #[arg(long, value_name = "N")]
        max_regs: Option<u32>,
        /// Demote registers to the count predicted fastest among those the never-worse rule
        /// keeps (the best candidate at each occupancy: fewest registers demoted, then least
        /// shared memory); with a frame, moving only the frame is one of the choices.
        #[arg(long, value_name = "auto", value_parser = ["auto"])]
        occupancy: Option<String>,
        /// Only this kernel (default: all).
        #[arg(long)]
        kernel: Option<String>,
        /// Threads per block at most: the region is built and occupancy judged for this size.
        /// Needed where the cubin has no .maxntid/.reqntid (default: the block of the --launch
        /// spec, for the kernel it launches); below the cubin's .maxntid it narrows it. The
        /// output then records the bound (the driver refuses larger blocks).
        #[arg(long, value_name = "THREADS")]
        block_size: Option<u32>,
        /// Dynamic shared memory of the launch in bytes (0 if none). Without it no kernel's
        /// static shared memory may grow, so nothing is demoted.
        #[arg(long, value_name = "BYTES")]
        dynamic_smem: Option<u32>,
        /// With --local-to-shared: put the region in the last bytes of the dynamic shared memory
        /// instead of growing the static area, so it is not held to the 48 KiB a block may
        /// declare statically (only to the architecture's per-block maximum). Every launch must
        /// then give the kernel its --dynamic-smem plus the region's bytes (the report's
        /// `dynamic_added`; without them the region lies outside the block's shared memory and
        /// the launch faults). For launches you control; the drop-in does not use it.
        #[arg(long, requires = "local_to_shared", requires = "dynamic_smem")]
        grow_dynamic: bool,
        /// A launch spec (JSON, as for `emulate`) to prove the rewrite on; repeatable.
        #[arg(long, value_name = "SPEC.json")]
        verify: Vec<PathBuf>,
        /// Input seeds per --verify spec.
        #[arg(long, default_value_t = 2)]
        seeds: u64,
        /// Register demotion: the launch (JSON spec) to predict the time on with the tune model
        /// (default: the first --verify). A demotion is kept only when predicted at least 5 %
        /// faster than the input; --occupancy auto keeps the fastest predicted candidate.
        #[arg(long, value_name = "SPEC.json")]
        launch: Option<PathBuf>,
        /// The model that predicts register demotion's time: `cycle` (the SASS emulator's timing
        /// mode on the CTAs of the launch's busiest SM; the global traffic from a run of at most
        /// 64 blocks), `analytic` (the bounds model on a run of at most 64 blocks scaled to the
        /// grid; it over-estimates what occupancy buys: docs/tune.md), or `none` (no prediction:
        /// a proved demotion that raises occupancy is kept, for timing it yourself; a note says
        /// so).
        #[arg(long, value_enum, default_value_t = DemotePredictor::Cycle)]
        predictor: DemotePredictor,
        /// Write the JSON report here.
        #[arg(long, value_name = "FILE.json")]
        report: Option<PathBuf>,
    },
}

fn main() -> ExitCode {
    // `ptxas …` through a symbolic link, or `warpsmith ptxas …`: ptxas's own command line, which
    // clap must not interpret.
    if let Some(args) = cli::ptxas::wrapper_args() {
        env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
            .format_timestamp(None)
            .init();
        return cli::ptxas::main(args);
    }
    let cli = Cli::parse();
    let mut logger =
        env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"));
    if let Some(level) = &cli.log {
        logger.parse_filters(level);
    }
    logger.format_timestamp(None).init();
    let result = match &cli.command {
        Command::Fmt { input, output } => cli::fmt::run(input, output.as_deref()),
        Command::Stats {
            input,
            json,
            arch,
            output,
        } => cli::stats::run(input, *json, arch.as_deref(), output.as_deref()),
        Command::Occupancy {
            arch,
            regs,
            threads,
            smem,
            dynamic_smem,
            carveout,
            cliffs,
            json,
        } => cli::occupancy::run(
            &cli::occupancy::Request {
                arch,
                regs: *regs,
                threads: *threads,
                smem: *smem,
                dynamic_smem: *dynamic_smem,
                carveout_kib: *carveout,
                cliffs: *cliffs,
                json: *json,
            },
            None,
        ),
        Command::Spill {
            input,
            output,
            max_regs,
            occupancy,
            kernel,
            arch,
            block_size,
            block_dim,
            smem_budget,
            dynamic_smem,
            no_ptxas,
            jobs,
            report,
        } => {
            let opts = warpsmith::spill::SpillOptions {
                target: match (max_regs, occupancy.as_deref()) {
                    (Some(n), _) => warpsmith::spill::Target::MaxRegs(*n),
                    (None, Some("keep")) => warpsmith::spill::Target::KeepOccupancy,
                    (None, _) => warpsmith::spill::Target::Auto,
                },
                kernel: kernel.clone(),
                arch: arch.clone(),
                block_size: *block_size,
                block_dim: *block_dim,
                smem_budget: *smem_budget,
                use_ptxas: !no_ptxas,
                dynamic_smem: *dynamic_smem,
                ptxas_args: Vec::new(),
                jobs: jobs.map(|n| n as usize),
            };
            cli::spill::run(input, output, &opts, report.as_deref())
        }
        Command::Shuffle {
            input,
            output,
            max_delta,
            mode,
            kernel,
            time_budget,
            all,
            report,
        } => match cli::shuffle::parse_mode(mode) {
            Ok(mode) => cli::shuffle::run(
                input,
                output,
                &warpsmith::shuffle::ShuffleOptions {
                    max_delta: *max_delta,
                    mode,
                    kernel: kernel.clone(),
                    time_budget: warpsmith::shuffle::budget_from_ms(*time_budget),
                    // `--time-budget 0`: no limits at all, every proof attempted.
                    solver_budget: (*time_budget > 0)
                        .then_some(warpsmith::shuffle::prove::PROOF_BUDGET),
                    profitable_only: !*all,
                },
                report.as_deref(),
            ),
            Err(e) => Err(cli::CliError::Shuffle(e)),
        },
        Command::Emulate {
            input,
            launch,
            out,
            stats,
            timing,
        } => cli::emulate::run(input, launch, out.as_deref(), stats.as_deref(), *timing),
        Command::Divergence {
            input,
            json,
            function,
            block_dim,
            assume_1d,
            assume_no_overflow,
            output,
        } => cli::divergence::run(
            input,
            &cli::divergence::Request {
                json: *json,
                function: function.as_deref(),
                options: warpsmith::analysis::divergence::Options {
                    block_dim: *block_dim,
                    assume_1d: *assume_1d,
                    assume_no_wrap: *assume_no_overflow,
                },
            },
            output.as_deref(),
        ),
        Command::Equiv {
            a,
            b,
            launch,
            seeds,
            b_dynamic_smem,
        } => cli::equiv::run(&cli::equiv::Request {
            a,
            b,
            launch,
            seeds: *seeds,
            b_dynamic_smem: *b_dynamic_smem,
        }),
        Command::Sass { command } => cli::sass::run(command),
        Command::LmemReport {
            inputs,
            kernel,
            launch,
            json,
        } => cli::lmem_report::run(
            inputs,
            kernel.as_deref(),
            launch.as_deref(),
            json.as_deref(),
        ),
        Command::Demote {
            input,
            output,
            local_to_shared: _,
            max_regs,
            occupancy,
            kernel,
            block_size,
            dynamic_smem,
            grow_dynamic,
            verify,
            seeds,
            launch,
            predictor,
            report,
        } => cli::demote::run(cli::demote::Args {
            input,
            output,
            options: warpsmith::sass::demote::DemoteOptions {
                kernel: kernel.clone(),
                block_size: *block_size,
                dynamic_smem: *dynamic_smem,
                verify: Vec::new(),
                seeds: *seeds,
                registers: match (max_regs, occupancy) {
                    (Some(n), _) => Some(warpsmith::sass::demote::RegisterTarget::MaxRegs(*n)),
                    (None, Some(_)) => Some(warpsmith::sass::demote::RegisterTarget::Auto),
                    (None, None) => None,
                },
                predictor: match predictor {
                    DemotePredictor::Cycle => Some(|cubin, kernel, spec| {
                        warpsmith::tune::cubin_time::predict_cubin_cycles(cubin, kernel, spec)
                            .map(|p| p.us)
                    }),
                    DemotePredictor::Analytic => Some(|cubin, kernel, spec| {
                        warpsmith::tune::cubin_time::predict_cubin(cubin, kernel, spec)
                            .map(|p| p.us)
                    }),
                    DemotePredictor::None => None,
                },
                predict_launch: None,
                grow_dynamic: *grow_dynamic,
            },
            verify,
            launch: launch.as_deref(),
            report: report.as_deref(),
        }),
        Command::Tune(args) => cli::tune::run(args),
        // Reached with global options before the subcommand (`warpsmith --log info ptxas …`).
        Command::Ptxas { args } => return cli::ptxas::main(args.clone()),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("warpsmith: {e}");
            ExitCode::from(2)
        }
    }
}

/// `demote --predictor`: the model that gates register demotion, or none.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum DemotePredictor {
    /// The SASS emulator's timing mode.
    Cycle,
    /// The analytic bounds model.
    Analytic,
    /// No prediction: kept on occupancy and proof alone.
    None,
}

/// Reads a PTX file (or standard input for `-`).
pub(crate) fn read_input(path: &Path) -> Result<String, cli::CliError> {
    if path.as_os_str() == "-" {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s).map_err(|e| {
            cli::CliError::Read {
                path: path.to_path_buf(),
                source: e,
            }
        })?;
        return Ok(s);
    }
    let bytes = std::fs::read(path).map_err(|e| cli::CliError::Read {
        path: path.to_path_buf(),
        source: e,
    })?;
    String::from_utf8(bytes).map_err(|e| cli::CliError::NotUtf8 {
        path: path.to_path_buf(),
        offset: e.utf8_error().valid_up_to(),
    })
}
