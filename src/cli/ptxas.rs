//! `warpsmith ptxas …`: a drop-in replacement for NVIDIA's ptxas (DESIGN.md "Who calls it";
//! issue 6, PTXASW §3 and §6: the paper hooks the assembler invocation the same way).
//!
//! Invoked as `warpsmith ptxas [ptxas arguments…]`, or as `ptxas`/`ptxas-…` through a symlink
//! (for clang's `--ptxas-path=`, Triton's `TRITON_PTXAS_PATH` and `TRITON_PTXAS_BLACKWELL_PATH`;
//! every form of ptxas's command line those tools use is understood, see the tests and
//! docs/ptxas-wrapper.md), it finds the input PTX among ptxas's arguments, applies the passes
//! named in `WARPSMITH_PASSES` (`shuffle`, `spill`), writes the rewritten PTX to a temporary
//! file and runs the real ptxas with the original arguments, the input replaced. ptxas's
//! standard output, standard error and exit status pass through. `demote` runs after ptxas on
//! the cubin it wrote (`super::ptxas_demote`).
//!
//! A build is never broken by warpsmith: when a pass fails (the PTX does not parse, a kernel is
//! refused, a bad environment variable, even a panic) or the real ptxas rejects the rewritten
//! PTX, a warning names the pass and the reason and the ORIGINAL PTX is assembled.
//!
//! The real ptxas is `WARPSMITH_PTXAS` (for a link named `ptxas-blackwell`,
//! `WARPSMITH_PTXAS_BLACKWELL` first: [`name_specific_var`]), else `.tools/bin/ptxas`, else
//! `ptxas` on `PATH` — never this executable itself (compared after resolving symbolic links),
//! and a wrapper started by a wrapper refuses to run instead of recursing. Documentation:
//! docs/ptxas-wrapper.md and `warpsmith ptxas --warpsmith-help`.

use std::ffi::{OsStr, OsString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use super::ptxas_demote::PostStage;
use warpsmith::ptx::{parse_module, print_module};
use warpsmith::tools::{self, Tool, ToolError};

/// The passes to run, comma-separated (`shuffle`, `spill`); unset or empty: no rewrite.
pub const PASSES_VAR: &str = "WARPSMITH_PASSES";
/// `1`: keep the rewritten PTX files and print their paths.
pub const KEEP_TEMPS_VAR: &str = "WARPSMITH_KEEP_TEMPS";
/// Set by the wrapper in the environment of the ptxas it starts: a wrapper that finds it set was
/// started by a wrapper as "the real ptxas" and refuses to recurse.
pub const ACTIVE_VAR: &str = "WARPSMITH_PTXAS_ACTIVE";
/// Our own option: prints the wrapper's documentation (cannot clash with ptxas's options).
pub const HELP_FLAG: &str = "--warpsmith-help";

/// Exit status for the wrapper's own errors (no real ptxas, recursion).
const EXIT_ERROR: u8 = 2;

/// ptxas options that take a value, by every spelling (long without `--`, short without `-`),
/// from `ptxas --help` of CUDA 12.9 and 13.4, and `regAllocOptLevel`, which `--help` does not
/// list and Triton 3.7 and later pass on every call (`--regAllocOptLevel=2`). The value is the
/// next argument, or follows `=`.
const VALUE_OPTIONS: &[&str] = &[
    "Ofast-compile",
    "Ofc",
    "allow-expensive-optimizations",
    "apply-controls",
    "enable-func-clone-sc",
    "regAllocOptLevel",
    "sanitize",
    "def-load-cache",
    "dlcm",
    "def-store-cache",
    "dscm",
    "device-function-maxrregcount",
    "func-maxrregcount",
    "device-stack-protector",
    "entry",
    "e",
    "fmad",
    "gpu-name",
    "arch",
    "input-as-string",
    "ias",
    "machine",
    "m",
    "maxntid",
    "maxrregcount",
    "minnctapersm",
    "opt-level",
    "O",
    "options-file",
    "optf",
    "output-file",
    "o",
    "position-independent-code",
    "pic",
    "register-usage-level",
    "regUsageLevel",
    "split-compile",
];

/// Options that only print information: the wrapper passes the call through untouched.
const INFO_OPTIONS: &[&str] = &["version", "V", "help", "h"];

/// Short options whose value may be glued to the name (`-O3`, `-m64`).
const GLUED_SHORT: &[&str] = &["O", "m"];

/// What the wrapper understood of ptxas's command line.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Invocation {
    /// Positions (in the argument list, program name excluded) of the input files.
    pub inputs: Vec<usize>,
    /// The `-arch` / `--gpu-name` value, if given.
    pub arch: Option<String>,
    /// `--version`, `--help` and the like: nothing to assemble.
    pub info_only: bool,
    /// `--input-as-string` was given: PTX passed as strings is not rewritten.
    pub ptx_strings: bool,
    /// `--warpsmith-help` was given.
    pub wrapper_help: bool,
    /// The `-o` / `--output-file` value, if given.
    pub output: Option<String>,
}

/// Splits an option argument into its name (without dashes) and a value glued with `=`.
fn option_name(arg: &str) -> Option<(&str, Option<&str>)> {
    let body = arg
        .strip_prefix("--")
        .or_else(|| arg.strip_prefix('-'))
        .filter(|b| !b.is_empty())?;
    Some(match body.split_once('=') {
        Some((n, v)) => (n, Some(v)),
        None => (body, None),
    })
}

/// Parses ptxas's arguments (program name excluded). Every argument that is not an option or an
/// option's value is an input file (clang names its PTX `*.s`, others `*.ptx`).
pub fn parse_invocation(args: &[OsString]) -> Invocation {
    let mut inv = Invocation::default();
    let mut i = 0;
    while i < args.len() {
        let Some(arg) = args[i].to_str() else {
            // Not UTF-8: not an option we know, so an input file.
            inv.inputs.push(i);
            i += 1;
            continue;
        };
        if arg == HELP_FLAG {
            inv.wrapper_help = true;
            i += 1;
            continue;
        }
        if arg.is_empty() {
            // Triton splits TRITON_PTXAS_OPTIONS on single spaces: two spaces give an empty
            // argument. It is no input to rewrite (ptxas itself refuses it: "Input file ''
            // could not be opened").
            i += 1;
            continue;
        }
        let Some((name, glued)) = option_name(arg) else {
            inv.inputs.push(i);
            i += 1;
            continue;
        };
        if INFO_OPTIONS.contains(&name) {
            inv.info_only = true;
            i += 1;
            continue;
        }
        let (name, value, step) = if VALUE_OPTIONS.contains(&name) {
            match glued {
                Some(v) => (name, Some(v.to_string()), 1),
                None => (
                    name,
                    args.get(i + 1).map(|v| v.to_string_lossy().into_owned()),
                    2,
                ),
            }
        } else if let Some(short) = GLUED_SHORT
            .iter()
            .find(|s| name.len() > s.len() && name.starts_with(**s) && !arg.starts_with("--"))
        {
            // `-O3`, `-m64`.
            (*short, Some(name[short.len()..].to_string()), 1)
        } else {
            // A flag (or an option this table does not know: treated as a flag; a value taken
            // for an input fails to parse as PTX and is passed through untouched).
            log::debug!("ptxas option `{arg}` taken as a flag");
            (name, None, 1)
        };
        match name {
            "arch" | "gpu-name" => inv.arch = value,
            "input-as-string" | "ias" => inv.ptx_strings = true,
            "output-file" | "o" => inv.output = value,
            _ => {}
        }
        i += step;
    }
    inv
}

/// A pass the wrapper can run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pass {
    /// Shuffle synthesis (`warpsmith::shuffle`).
    Shuffle,
    /// Shared-memory spilling (`warpsmith::spill`), options from `WARPSMITH_SPILL_*`.
    Spill,
    /// The variant predictor without a launch spec (`warpsmith::tune::tune_all`): `.maxnreg` or
    /// the pragma at ptxas alone's occupancy where the static model predicts it faster (without
    /// a launch no change of occupancy is chosen: `warpsmith::tune::choose`).
    Tune,
    /// After ptxas: the cubin's local-memory frame moved to shared memory
    /// (`warpsmith::sass::demote`; `super::ptxas_demote`).
    Demote,
}

impl Pass {
    /// The name used in `WARPSMITH_PASSES`.
    pub fn name(self) -> &'static str {
        match self {
            Pass::Shuffle => "shuffle",
            Pass::Spill => "spill",
            Pass::Tune => "tune",
            Pass::Demote => "demote",
        }
    }
}

/// Reads a `WARPSMITH_PASSES` value: the passes in order, and a warning per unknown name.
pub fn parse_passes(value: &str) -> (Vec<Pass>, Vec<String>) {
    let mut passes = Vec::new();
    let mut warnings = Vec::new();
    for name in value.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        match name {
            "shuffle" => passes.push(Pass::Shuffle),
            "spill" => passes.push(Pass::Spill),
            "tune" => passes.push(Pass::Tune),
            "demote" => passes.push(Pass::Demote),
            other => warnings.push(format!(
                "{PASSES_VAR}: unknown pass `{other}` ignored (known: shuffle, spill, tune, demote)"
            )),
        }
    }
    (passes, warnings)
}

/// Why a rewrite was given up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PassFailure {
    /// The pass (`parse` for reading the input).
    pub pass: &'static str,
    /// The reason.
    pub why: String,
}

/// Runs `f`, turning a panic into a [`PassFailure`] of `pass` (the panic message is kept; the
/// default panic output is silenced while the pass runs).
pub fn run_guarded<T>(
    pass: &'static str,
    f: impl FnOnce() -> Result<T, String>,
) -> Result<T, PassFailure> {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(|info| log::debug!("pass panicked: {info}")));
    let outcome = catch_unwind(AssertUnwindSafe(f));
    std::panic::set_hook(previous);
    match outcome {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(why)) => Err(PassFailure { pass, why }),
        Err(payload) => {
            let msg = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic payload".into());
            Err(PassFailure {
                pass,
                why: format!("panicked: {msg}"),
            })
        }
    }
}

/// The `sm_XX` a module's `.target` names, if any.
fn module_target(text: &str) -> Option<String> {
    text.lines()
        .find_map(|l| l.trim().strip_prefix(".target"))?
        .split(',')
        .map(str::trim)
        .find(|s| s.starts_with("sm_"))
        .map(str::to_string)
}

/// The options of a ptxas invocation that shape the code it generates, for the passes' and the
/// never-worse guard's own `ptxas -v` runs: every argument but the input files, the output file,
/// the architecture (the checks name it themselves), `-v` and the information options.
pub fn check_args(args: &[OsString], inv: &Invocation) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < args.len() {
        if inv.inputs.contains(&i) {
            i += 1;
            continue;
        }
        let Some(arg) = args[i].to_str() else {
            i += 1;
            continue;
        };
        match option_name(arg) {
            Some(("o" | "output-file" | "arch" | "gpu-name", glued)) => {
                i += if glued.is_some() { 1 } else { 2 };
            }
            Some(("v" | "verbose", None)) => i += 1,
            Some((name, _)) if INFO_OPTIONS.contains(&name) => i += 1,
            _ => {
                out.push(arg.to_string());
                i += 1;
            }
        }
    }
    out
}

/// What [`rewrite`] made of one input.
#[derive(Debug)]
pub struct Rewrite {
    /// The PTX to assemble; `None` when no kernel changed (assemble the original file as it is).
    pub ptx: Option<String>,
    /// One line per pass and kernel.
    pub notes: Vec<String>,
}

/// Applies `passes` to the PTX `text` (from file `file`); `arch` is ptxas's `-arch` if given,
/// `ptxas_args` the invocation's code-generation options ([`check_args`]). Then the never-worse
/// guard ([`warpsmith::never_worse::guard_module`]) assembles original and rewrite with those
/// options and puts back every kernel whose local memory grew, whose occupancy fell or whose
/// launch would no longer be legal.
pub fn rewrite(
    text: &str,
    file: &str,
    passes: &[Pass],
    arch: Option<&str>,
    ptxas_args: &[String],
) -> Result<Rewrite, PassFailure> {
    let original = run_guarded("parse", || {
        parse_module(text, file).map_err(|e| e.to_string())
    })?;
    let mut module = original.clone();
    // As ptxas will be called (`sm_90a` keeps wgmma legal); occupancy reads the digits.
    let arch = arch
        .map(str::to_string)
        .or_else(|| module_target(text))
        .unwrap_or_else(|| "sm_80".into());
    let mut notes = Vec::new();
    let env = warpsmith::spill::env::spill_options_from_env(&arch);
    for &pass in passes {
        match pass {
            // After ptxas, on the cubin (`main`).
            Pass::Demote => {}
            Pass::Shuffle => {
                let opts = warpsmith::shuffle::options_from_env().unwrap_or_else(|w| {
                    warn(&w);
                    warpsmith::shuffle::ShuffleOptions::default()
                });
                let report = run_guarded(pass.name(), || {
                    warpsmith::shuffle::shuffle_module(&mut module, &opts)
                        .map_err(|e| e.to_string())
                })?;
                for k in &report.kernels {
                    notes.push(format!(
                        "shuffle: {}: {} of {} global loads replaced by shuffles ({:.1} ms)",
                        k.name, k.shuffles, k.loads, k.analysis_ms
                    ));
                }
            }
            Pass::Spill => {
                let report = run_guarded(pass.name(), || {
                    let opts = env.as_ref().map_err(|e| e.to_string())?;
                    let opts = warpsmith::spill::SpillOptions {
                        ptxas_args: ptxas_args.to_vec(),
                        ..opts.clone()
                    };
                    warpsmith::spill::spill_module(&mut module, &opts).map_err(|e| e.to_string())
                })?;
                for k in &report.kernels {
                    notes.push(if k.kept {
                        format!(
                            "spill: {}: .maxnreg {}, {} registers demoted, +{} B shared ({})",
                            k.name,
                            k.max_regs,
                            k.demoted.len(),
                            k.smem_bytes,
                            k.verdict
                        )
                    } else {
                        format!("spill: {}: left as it was: {}", k.name, k.verdict)
                    });
                }
            }
            Pass::Tune => notes.extend(tune_pass(
                &mut module,
                &arch,
                env.as_ref().ok(),
                ptxas_args,
            )?),
        }
    }
    if module == original {
        return Ok(Rewrite { ptx: None, notes });
    }
    let hints = env.as_ref().map_or_else(
        |_| warpsmith::never_worse::LaunchHints::default(),
        |o| warpsmith::never_worse::LaunchHints {
            block_size: o.block_size,
            dynamic_smem: o.dynamic_smem,
        },
    );
    let guards = run_guarded("never-worse", || {
        warpsmith::never_worse::guard_module(&original, &mut module, &arch, ptxas_args, &hints)
            .map_err(|e| e.to_string())
    })?;
    for g in &guards {
        let what = if g.verdict.keep {
            "kept"
        } else {
            "put back the original"
        };
        notes.push(format!(
            "never-worse: {}: {what}: {}",
            g.kernel, g.verdict.reason
        ));
    }
    if module == original {
        return Ok(Rewrite { ptx: None, notes });
    }
    Ok(Rewrite {
        ptx: Some(print_module(&module)),
        notes,
    })
}

/// `WARPSMITH_PASSES=tune`: every kernel through the variant predictor without a launch spec
/// (block size and dynamic shared memory from `WARPSMITH_SPILL_*`, like the spill pass).
fn tune_pass(
    module: &mut warpsmith::ptx::Module,
    arch: &str,
    env: Option<&warpsmith::spill::SpillOptions>,
    ptxas_args: &[String],
) -> Result<Vec<String>, PassFailure> {
    let opts = warpsmith::tune::TuneOptions {
        arch: arch.to_string(),
        block_size: env.and_then(|o| o.block_size),
        dynamic_smem: env.and_then(|o| o.dynamic_smem),
        ptxas_args: ptxas_args.to_vec(),
        ..Default::default()
    };
    let (m, notes) = run_guarded(Pass::Tune.name(), || {
        Ok(warpsmith::tune::tune_all(module, &opts))
    })?;
    *module = m;
    Ok(notes)
}

/// Finds the real ptxas, never `me` (the wrapper, also through a symbolic link): the value of
/// `WARPSMITH_PTXAS` (`env_value`: a path, or a name looked up on `path_var`), else `ptxas` in
/// `local_dirs` (the project's `.tools/bin`), else on `path_var` — the search of
/// [`tools::SearchPlan`] with `me` excluded.
pub fn find_real_ptxas(
    env_value: Option<&OsStr>,
    local_dirs: &[PathBuf],
    path_var: Option<&OsStr>,
    me: &Path,
) -> Result<PathBuf, ToolError> {
    let plan = tools::SearchPlan {
        env_value: env_value.map(|v| v.to_os_string()),
        local_dirs: local_dirs.to_vec(),
        path_var: path_var.map(|v| v.to_os_string()),
        exclude: Some((me.to_path_buf(), "warpsmith".to_string())),
    };
    plan.search(Tool::Ptxas).map(|l| l.path)
}

/// The file name of a program path (argv[0]) without `.exe`.
fn program_name(argv0: &OsStr) -> Option<&str> {
    let base = Path::new(argv0).file_name()?.to_str()?;
    Some(base.strip_suffix(".exe").unwrap_or(base))
}

/// The variable that names the real assembler of a wrapper started as `argv0`, read before
/// `WARPSMITH_PTXAS`: `WARPSMITH_PTXAS_BLACKWELL` for `ptxas-blackwell` (the suffix in capitals,
/// other characters `_`), so one process can wrap two assemblers — Triton 3.9 runs its CUDA 12.9
/// `ptxas` (`TRITON_PTXAS_PATH`) below sm_90 and its CUDA 13 `ptxas-blackwell`
/// (`TRITON_PTXAS_BLACKWELL_PATH`) from sm_90 on. None for `ptxas` and `warpsmith ptxas`.
pub fn name_specific_var(argv0: &OsStr) -> Option<String> {
    let suffix = program_name(argv0)?
        .strip_prefix("ptxas-")
        .filter(|s| !s.is_empty())?;
    let suffix: String = suffix
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    Some(format!("{}_{suffix}", Tool::Ptxas.env_var()))
}

/// The value that names the real assembler: the wrapper's own variable
/// ([`name_specific_var`] of `argv0`) when `lookup` has it, else `WARPSMITH_PTXAS`'s; with the
/// variable it came from.
pub fn real_ptxas_setting(
    argv0: Option<&OsStr>,
    lookup: impl Fn(&str) -> Option<OsString>,
) -> Option<(String, OsString)> {
    let own = argv0.and_then(name_specific_var);
    own.into_iter()
        .chain([Tool::Ptxas.env_var().to_string()])
        .find_map(|var| lookup(&var).map(|v| (var, v)))
}

/// Whether a program name (argv[0]) makes this process the wrapper: its file name is `ptxas`,
/// or `ptxas-` followed by anything (`ptxas-blackwell`, the name of the assembler Triton runs for
/// sm_100 and later, set with `TRITON_PTXAS_BLACKWELL_PATH`), with or without `.exe`.
pub fn is_ptxas_name(argv0: &OsStr) -> bool {
    let Some(base) = program_name(argv0) else {
        return false;
    };
    base == "ptxas"
        || base
            .strip_prefix("ptxas-")
            .is_some_and(|rest| !rest.is_empty())
}

/// The argument list of a `ptxas` invocation, when this process is one: argv[0]'s file name is
/// `ptxas` or `ptxas-…` (a symbolic link to warpsmith, see [`is_ptxas_name`]), or the first
/// argument is the `ptxas` subcommand.
pub fn wrapper_args() -> Option<Vec<OsString>> {
    let mut argv = std::env::args_os();
    let argv0 = argv.next()?;
    if is_ptxas_name(&argv0) {
        return Some(argv.collect());
    }
    let rest: Vec<OsString> = argv.collect();
    if rest.first().is_some_and(|a| a == "ptxas") {
        return Some(rest[1..].to_vec());
    }
    None
}

/// Prints a warning of the wrapper on standard error.
fn warn(msg: &str) {
    eprintln!("warpsmith ptxas: warning: {msg}");
}

/// The documentation printed by `--warpsmith-help`.
pub const WRAPPER_HELP: &str = "\
warpsmith ptxas — a drop-in replacement for NVIDIA's ptxas

Usage: warpsmith ptxas [ptxas arguments…]
       ptxas [ptxas arguments…]        (a symbolic link named ptxas to the warpsmith binary)

Rewrites the input PTX with the passes in WARPSMITH_PASSES, then runs the real ptxas with the
same arguments on the rewritten file; ptxas's output and exit status pass through. When a pass
fails, or ptxas rejects the rewritten PTX, a warning is printed and the original PTX is
assembled: a build is never broken by warpsmith.

Environment:
  WARPSMITH_PASSES       comma list of passes, in order: shuffle, spill, tune (on the PTX;
                         tune: .maxnreg/pragma at ptxas alone's occupancy where the static
                         model predicts it faster; without a launch it raises no occupancy),
                         demote (on the cubin ptxas wrote: local-memory frame to shared memory;
                         needs WARPSMITH_SPILL_DYNAMIC_SMEM, and a block-size bound in the
                         PTX or WARPSMITH_SPILL_BLOCK_SIZE; after a PTX pass changed the
                         input, demote alone on ptxas's build of the original is kept where
                         it ranks higher). Unset or empty: pass-through.
  WARPSMITH_DEMOTE_GROW_REPORT  FILE: the launch may grow; demote may put a frame that does
                         not fit statically at the end of a grown dynamic area, and writes
                         the bytes each kernel's launch must add to FILE (JSON: kernel name to bytes).
                         A line `// warpsmith-grow-dynamic: FILE` after the input's last
                         statement does the same (python/warpsmith_triton.py writes it and
                         adds the bytes to Triton's metadata.shared).
  WARPSMITH_PTXAS        the real ptxas (default: .tools/bin/ptxas, then ptxas on PATH,
                         never warpsmith itself).
  WARPSMITH_PTXAS_BLACKWELL   the real ptxas of a link named ptxas-blackwell (Triton 3.9 runs
                         that one from sm_90 on); unset: WARPSMITH_PTXAS. Any link
                         ptxas-SUFFIX reads WARPSMITH_PTXAS_SUFFIX first.
  WARPSMITH_KEEP_TEMPS   1: keep the rewritten PTX and print its path on standard error.
  WARPSMITH_SHUFFLE_BUDGET_MS   time budget of the shuffle analysis per file, ms (default
                                2000; 0: none). When spent, what is proved so far is kept.
  WARPSMITH_SPILL_MAX_REGS      keep (default: only kernels ptxas gives local memory, moved
                                to shared memory at the same occupancy; others as they are),
                                auto (next occupancy cliff) or N (16..255)
  WARPSMITH_SPILL_KERNEL        only this kernel (default: every kernel)
  WARPSMITH_SPILL_ARCH          sm_XX for occupancy (default: -arch/--gpu-name, else .target)
  WARPSMITH_SPILL_BLOCK_SIZE    threads per block for kernels without launch bounds
  WARPSMITH_SPILL_SMEM_BUDGET   most extra shared memory per block, bytes
  WARPSMITH_SPILL_DYNAMIC_SMEM  dynamic shared memory of the launch, bytes (default 0 for
                         kernels without an extern .shared array, else unknown: no shared
                         memory is added). A line `// warpsmith-dynamic-smem: N` after the
                         input's last statement gives it for that file and wins over the
                         variable; python/warpsmith_triton.py writes it for each Triton kernel.
  WARPSMITH_SPILL_PTXAS_CHECK   0: skip the ptxas -v tightening loop (default 1)
  WARPSMITH_SPILL_JOBS          ptxas runs the search keeps in flight (default: cores, at most 4)
  RUST_LOG               info: one line per pass and kernel on standard error.

Examples:
  clang++ -x cuda --cuda-gpu-arch=sm_90 --ptxas-path=$HOME/bin/ptxas …   ($HOME/bin/ptxas -> warpsmith)
  TRITON_PTXAS_PATH=$HOME/bin/ptxas WARPSMITH_PASSES=demote python train.py
  (with `import warpsmith_triton; warpsmith_triton.install()` in train.py, each kernel's
  dynamic shared memory reaches the passes, and a grown launch reaches Triton; on an H200
  demote never made a Triton kernel slower, while spill's occupancy gains were slower on
  four of five, which is why WARPSMITH_SPILL_MAX_REGS defaults to keep: docs/ptxas-wrapper.md,
  Which passes for Triton)
  TRITON_PTXAS_BLACKWELL_PATH=$HOME/bin/ptxas-blackwell (also a link to warpsmith) for
  Triton 3.9 on sm_90 and later; WARPSMITH_PTXAS_BLACKWELL=<Triton's ptxas-blackwell>

See docs/ptxas-wrapper.md.
";

/// A rewritten input: where it was written.
struct Rewritten {
    index: usize,
    path: PathBuf,
}

/// Why an input's text is not at hand.
enum Unreadable {
    /// It cannot be read (ptxas reports a missing file itself).
    Io(std::io::Error),
    /// It is not UTF-8: the byte offset of the first bad sequence.
    NotUtf8(usize),
}

/// One PTX input of the command line, read once for every pass.
struct InputFile {
    /// Its index in the arguments.
    index: usize,
    path: PathBuf,
    text: Result<String, Unreadable>,
}

/// Reads the inputs at `indices` of `args`.
fn read_inputs(indices: &[usize], args: &[OsString]) -> Vec<InputFile> {
    indices
        .iter()
        .map(|&index| {
            let path = PathBuf::from(&args[index]);
            let text = std::fs::read(&path)
                .map_err(Unreadable::Io)
                .and_then(|bytes| {
                    String::from_utf8(bytes)
                        .map_err(|e| Unreadable::NotUtf8(e.utf8_error().valid_up_to()))
                });
            InputFile { index, path, text }
        })
        .collect()
}

/// Writes the rewritten PTX of input `original` next to the other temporary files.
fn write_temp(original: &Path, n: usize, text: &str) -> std::io::Result<PathBuf> {
    let stem = original
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "input".into());
    let stem: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let path = std::env::temp_dir().join(format!(
        "warpsmith-ptxas-{}-{n}-{stem}.ptx",
        std::process::id()
    ));
    warpsmith::fsutil::write_atomic(&path, text.as_bytes())?;
    Ok(path)
}

/// Exit code of a finished child process (a signal `s` becomes 128 + s, as shells report it).
fn exit_code_of(status: std::process::ExitStatus) -> ExitCode {
    if let Some(c) = status.code() {
        return ExitCode::from(c.clamp(0, 255) as u8);
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            return ExitCode::from((128 + sig).clamp(0, 255) as u8);
        }
    }
    ExitCode::from(1)
}

/// Runs the real ptxas with inherited standard streams and returns its exit code.
fn run_ptxas(real: &Path, args: &[OsString], post: &PostStage) -> ExitCode {
    match Command::new(real).args(args).env(ACTIVE_VAR, "1").status() {
        Ok(status) => {
            if status.success() {
                post.run();
            }
            exit_code_of(status)
        }
        Err(e) => {
            eprintln!("warpsmith ptxas: cannot run {}: {e}", real.display());
            ExitCode::from(EXIT_ERROR)
        }
    }
}

/// Runs the passes on each readable input and writes each changed one to a temporary file;
/// problems are warnings and leave that input as it is.
fn rewrite_inputs(
    inputs: &[InputFile],
    passes: &[Pass],
    arch: Option<&str>,
    ptxas_args: &[String],
) -> Vec<Rewritten> {
    let mut rewritten: Vec<Rewritten> = Vec::new();
    for (n, read) in inputs.iter().enumerate() {
        let (index, input) = (read.index, &read.path);
        let text = match &read.text {
            Ok(t) => t,
            Err(Unreadable::NotUtf8(at)) => {
                warn(&format!(
                    "{}: not UTF-8 text (byte {at}); assembling the original",
                    input.display()
                ));
                continue;
            }
            // ptxas will report the missing file itself.
            Err(Unreadable::Io(e)) => {
                log::debug!("{}: {e}", input.display());
                continue;
            }
        };
        let name = input.display().to_string();
        match rewrite(text, &name, passes, arch, ptxas_args) {
            Ok(Rewrite { ptx, notes }) => {
                for note in notes {
                    log::info!("{name}: {note}");
                }
                let Some(ptx) = ptx else {
                    log::info!("{name}: no kernel changed; assembling the original");
                    continue;
                };
                match write_temp(input, n, &ptx) {
                    Ok(path) => rewritten.push(Rewritten { index, path }),
                    Err(e) => warn(&format!(
                        "cannot write the rewritten PTX of {name}: {e}; assembling the original"
                    )),
                }
            }
            Err(f) => warn(&format!(
                "pass `{}` failed on {name}: {}; assembling the original PTX",
                f.pass, f.why
            )),
        }
    }
    rewritten
}

/// The wrapper: `args` are ptxas's arguments (program name excluded).
pub fn main(args: Vec<OsString>) -> ExitCode {
    let inv = parse_invocation(&args);
    if inv.wrapper_help {
        print!("{WRAPPER_HELP}");
        return ExitCode::SUCCESS;
    }
    if std::env::var_os(ACTIVE_VAR).is_some() {
        eprintln!(
            "warpsmith ptxas: started as the real ptxas by warpsmith ptxas itself \
             ({ACTIVE_VAR} is set): set WARPSMITH_PTXAS to NVIDIA's ptxas"
        );
        return ExitCode::from(EXIT_ERROR);
    }
    let me = std::env::current_exe().unwrap_or_default();
    let setting = real_ptxas_setting(std::env::args_os().next().as_deref(), |v| {
        std::env::var_os(v)
    });
    if let Some((var, value)) = &setting {
        log::debug!("real ptxas from {var}={}", Path::new(value).display());
    }
    let real = match find_real_ptxas(
        setting.as_ref().map(|(_, v)| v.as_os_str()),
        &tools::project_tool_dirs(),
        std::env::var_os("PATH").as_deref(),
        &me,
    ) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("warpsmith ptxas: {e}");
            if let Some((var, _)) = setting.filter(|(v, _)| v != Tool::Ptxas.env_var()) {
                eprintln!("warpsmith ptxas: (the value is {var}'s: this wrapper's own variable)");
            }
            return ExitCode::from(EXIT_ERROR);
        }
    };
    log::debug!("real ptxas: {}", real.display());
    // The passes (spilling's ptxas -v check) must use the same real ptxas, not this wrapper.
    std::env::set_var(Tool::Ptxas.env_var(), &real);

    let passes_value = std::env::var(PASSES_VAR).unwrap_or_default();
    let (passes, warnings) = parse_passes(&passes_value);
    for w in &warnings {
        warn(w);
    }
    let inputs = if passes.is_empty() || inv.info_only {
        Vec::new()
    } else {
        read_inputs(&inv.inputs, &args)
    };
    // `// warpsmith-dynamic-smem: N` and `// warpsmith-grow-dynamic: FILE` in the input
    // (python/warpsmith_triton.py writes them).
    if !inputs.is_empty() {
        let texts: Vec<_> = inputs
            .iter()
            .map(|i| (i.path.display().to_string(), i.text.as_deref().ok()))
            .collect();
        for w in super::ptxas_launch::apply_launch_markers(&texts) {
            warn(&w);
        }
    }
    let post = PostStage::new(&passes, &inv);
    let passes: Vec<Pass> = passes.into_iter().filter(|p| *p != Pass::Demote).collect();
    if passes.is_empty() || inv.info_only || inv.inputs.is_empty() {
        return run_ptxas(&real, &args, &post);
    }
    if inv.ptx_strings {
        log::info!("--input-as-string PTX is not rewritten");
    }
    let keep = std::env::var(KEEP_TEMPS_VAR).is_ok_and(|v| v.trim() == "1");
    let ptxas_args = check_args(&args, &inv);
    let rewritten = rewrite_inputs(&inputs, &passes, inv.arch.as_deref(), &ptxas_args);
    if rewritten.is_empty() {
        return run_ptxas(&real, &args, &post);
    }
    let mut new_args = args.clone();
    for r in &rewritten {
        new_args[r.index] = r.path.clone().into_os_string();
        if keep {
            eprintln!(
                "warpsmith ptxas: rewritten PTX of {} kept at {}",
                Path::new(&args[r.index]).display(),
                r.path.display()
            );
        }
    }
    let cleanup = |rewritten: &[Rewritten]| {
        if !keep {
            for r in rewritten {
                let _ = std::fs::remove_file(&r.path);
            }
        }
    };
    // The rewritten PTX is assembled with captured output, so that a rejection can fall back to
    // the original without showing ptxas's errors about a file the user never wrote.
    let out = match Command::new(&real)
        .args(&new_args)
        .env(ACTIVE_VAR, "1")
        .output()
    {
        Ok(o) => o,
        Err(e) => {
            cleanup(&rewritten);
            eprintln!("warpsmith ptxas: cannot run {}: {e}", real.display());
            return ExitCode::from(EXIT_ERROR);
        }
    };
    if out.status.success() {
        use std::io::Write;
        cleanup(&rewritten);
        let original = || {
            Command::new(&real)
                .args(&args)
                .env(ACTIVE_VAR, "1")
                .output()
        };
        let shown = post.run_against_original(original).unwrap_or(out);
        let _ = std::io::stdout().write_all(&shown.stdout);
        let _ = std::io::stderr().write_all(&shown.stderr);
        return exit_code_of(shown.status);
    }
    let first = String::from_utf8_lossy(&out.stderr)
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("no message")
        .to_string();
    warn(&format!(
        "ptxas rejected the rewritten PTX ({first}); assembling the original PTX"
    ));
    cleanup(&rewritten);
    run_ptxas(&real, &args, &post)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    #[test]
    fn clang_command_line() {
        // What clang 22 runs for --cuda-device-only -c (the PTX is named *.s).
        let a = args(&[
            "-m64",
            "-O3",
            "--gpu-name",
            "sm_80",
            "--output-file",
            "t.cubin",
            "/tmp/t-sm_80-1715a7.s",
        ]);
        let inv = parse_invocation(&a);
        assert_eq!(inv.inputs, vec![6]);
        assert_eq!(inv.arch.as_deref(), Some("sm_80"));
        assert!(!inv.info_only);
    }

    #[test]
    fn value_options_in_every_spelling() {
        let a = args(&[
            "-arch",
            "sm_90",
            "-o",
            "out.cubin",
            "--maxrregcount",
            "32",
            "-v",
            "-lineinfo",
            "--opt-level=2",
            "-e",
            "kern",
            "k.ptx",
        ]);
        let inv = parse_invocation(&a);
        assert_eq!(inv.inputs, vec![11]);
        assert_eq!(inv.arch.as_deref(), Some("sm_90"));
        let inv = parse_invocation(&args(&["-arch=sm_86", "x.ptx", "--gpu-name=sm_89"]));
        assert_eq!(inv.inputs, vec![1]);
        assert_eq!(inv.arch.as_deref(), Some("sm_89"));
        let inv = parse_invocation(&args(&["--output-file=a.o", "-m64", "-O0", "y.ptx"]));
        assert_eq!(inv.inputs, vec![3]);
        assert_eq!(inv.arch, None);
    }

    #[test]
    fn glued_values_only_for_short_options() {
        // -O3 and -m64 carry their value; -Ofc takes the next argument.
        let inv = parse_invocation(&args(&["-O3", "-m64", "-Ofc", "max", "a.ptx"]));
        assert_eq!(inv.inputs, vec![4]);
        // A long option is never split: --Ofast-compile takes the next argument.
        let inv = parse_invocation(&args(&["--Ofast-compile", "mid", "b.ptx"]));
        assert_eq!(inv.inputs, vec![2]);
    }

    #[test]
    fn info_options_and_no_input() {
        assert!(parse_invocation(&args(&["--version"])).info_only);
        assert!(parse_invocation(&args(&["-V"])).info_only);
        assert!(parse_invocation(&args(&["--help"])).info_only);
        assert!(parse_invocation(&args(&["-arch", "sm_80"]))
            .inputs
            .is_empty());
        assert!(parse_invocation(&args(&[HELP_FLAG])).wrapper_help);
        let inv = parse_invocation(&args(&["-ias", ".version 8.0", "-arch=sm_80"]));
        assert!(inv.ptx_strings);
        assert!(inv.inputs.is_empty());
    }

    /// Triton 3.6's `make_cubin` (triton/backends/nvidia/compiler.py) runs
    /// `ptxas [-lineinfo [-suppress-debug-info] | -g] [--fmad=false] -v [--opt-level 0]
    /// [TRITON_PTXAS_OPTIONS split on " "] --gpu-name=sm_XX[a] SRC.ptx -o SRC.ptx.o`.
    #[test]
    fn triton_command_lines() {
        let inv = parse_invocation(&args(&[
            "-lineinfo",
            "-v",
            "--gpu-name=sm_80",
            "/tmp/tmpq1w2e3.ptx",
            "-o",
            "/tmp/tmpq1w2e3.ptx.o",
        ]));
        assert_eq!(inv.inputs, vec![3]);
        assert_eq!(inv.arch.as_deref(), Some("sm_80"));
        assert!(!inv.info_only && !inv.ptx_strings);

        // TRITON_DISABLE_LINE_INFO=1, enable_fp_fusion=False, sm_90 (Triton adds the `a`).
        let inv = parse_invocation(&args(&[
            "-lineinfo",
            "-suppress-debug-info",
            "--fmad=false",
            "-v",
            "--gpu-name=sm_90a",
            "/tmp/k.ptx",
            "-o",
            "/tmp/k.ptx.o",
        ]));
        assert_eq!(inv.inputs, vec![5]);
        assert_eq!(inv.arch.as_deref(), Some("sm_90a"));

        // DISABLE_PTXAS_OPT=1: full debug info and `--opt-level 0` as two arguments.
        let inv = parse_invocation(&args(&[
            "-g",
            "-v",
            "--opt-level",
            "0",
            "--gpu-name=sm_90a",
            "/tmp/k.ptx",
            "-o",
            "/tmp/k.ptx.o",
        ]));
        assert_eq!(inv.inputs, vec![5]);

        // TRITON_PTXAS_OPTIONS="--maxrregcount 128  -O3 -warn-spills --def-load-cache=cg -dlcm cg"
        // split on single spaces: the double space gives an empty argument.
        let extra: Vec<&str> =
            "--maxrregcount 128  -O3 -warn-spills --def-load-cache=cg -dlcm cg --fmad true"
                .split(' ')
                .collect();
        let mut list = vec!["-lineinfo", "-v"];
        list.extend(&extra);
        list.extend(["--gpu-name=sm_80", "/tmp/k.ptx", "-o", "/tmp/k.ptx.o"]);
        let inv = parse_invocation(&args(&list));
        assert_eq!(inv.inputs, vec![list.len() - 3], "{list:?}");
        assert_eq!(inv.arch.as_deref(), Some("sm_80"));

        // The version query Triton makes for every ptxas it considers.
        let inv = parse_invocation(&args(&["--version"]));
        assert!(inv.info_only);
        assert!(inv.inputs.is_empty());
    }

    #[test]
    fn wrapper_names() {
        for name in [
            "ptxas",
            "/home/u/bin/ptxas",
            "ptxas.exe",
            "/opt/ptxas-blackwell",
            "ptxas-12.9",
        ] {
            assert!(is_ptxas_name(OsStr::new(name)), "{name}");
        }
        for name in [
            "warpsmith",
            "/usr/bin/warpsmith",
            "ptxas-",
            "myptxas",
            "ptxasx",
            "/ptxas/warpsmith",
        ] {
            assert!(!is_ptxas_name(OsStr::new(name)), "{name}");
        }
    }

    #[test]
    fn each_wrapper_name_has_its_own_real_ptxas_variable() {
        let var = |n: &str| name_specific_var(OsStr::new(n));
        assert_eq!(
            var("/x/ptxas-blackwell").as_deref(),
            Some("WARPSMITH_PTXAS_BLACKWELL")
        );
        assert_eq!(
            var("ptxas-12.9.exe").as_deref(),
            Some("WARPSMITH_PTXAS_12_9")
        );
        assert_eq!(var("ptxas"), None);
        assert_eq!(var("warpsmith"), None);
        let env = |set: &'static [(&'static str, &'static str)]| {
            move |v: &str| {
                set.iter()
                    .find(|(k, _)| *k == v)
                    .map(|(_, x)| OsString::from(*x))
            }
        };
        let both = env(&[
            ("WARPSMITH_PTXAS", "/cuda12/ptxas"),
            ("WARPSMITH_PTXAS_BLACKWELL", "/cuda13/ptxas"),
        ]);
        let blackwell = Some(OsStr::new("/bin/ptxas-blackwell"));
        assert_eq!(
            real_ptxas_setting(blackwell, both),
            Some(("WARPSMITH_PTXAS_BLACKWELL".into(), "/cuda13/ptxas".into()))
        );
        assert_eq!(
            real_ptxas_setting(Some(OsStr::new("/bin/ptxas")), both),
            Some(("WARPSMITH_PTXAS".into(), "/cuda12/ptxas".into()))
        );
        // The wrapper's own variable unset: the common one.
        let common = env(&[("WARPSMITH_PTXAS", "/cuda12/ptxas")]);
        assert_eq!(
            real_ptxas_setting(blackwell, common),
            Some(("WARPSMITH_PTXAS".into(), "/cuda12/ptxas".into()))
        );
        assert_eq!(real_ptxas_setting(blackwell, env(&[])), None);
    }

    #[test]
    fn triton_3_7_and_later_options() {
        // Triton 3.7+ adds `--regAllocOptLevel=2` before the architecture; the spelled-out
        // form takes the next argument, which must not be taken for an input.
        for a in [
            args(&[
                "-lineinfo",
                "-v",
                "--regAllocOptLevel=2",
                "--gpu-name=sm_90a",
                "k.ptx",
                "-o",
                "k.o",
            ]),
            args(&[
                "-v",
                "--regAllocOptLevel",
                "2",
                "--sanitize",
                "memcheck",
                "k.ptx",
            ]),
        ] {
            let inv = parse_invocation(&a);
            assert_eq!(inv.inputs.len(), 1, "{a:?}");
            assert_eq!(a[inv.inputs[0]], "k.ptx");
            assert!(check_args(&a, &inv)
                .iter()
                .any(|x| x.starts_with("--regAllocOptLevel")));
        }
    }

    #[test]
    fn several_inputs_and_a_missing_value() {
        let inv = parse_invocation(&args(&["-c", "a.ptx", "b.ptx", "-o"]));
        assert_eq!(inv.inputs, vec![1, 2]);
    }

    #[test]
    fn passes_variable() {
        assert_eq!(
            parse_passes("shuffle,spill"),
            (vec![Pass::Shuffle, Pass::Spill], vec![])
        );
        assert_eq!(parse_passes(" spill , "), (vec![Pass::Spill], vec![]));
        assert_eq!(parse_passes("tune"), (vec![Pass::Tune], vec![]));
        assert_eq!(parse_passes(""), (vec![], vec![]));
        let (p, w) = parse_passes("spill,vectorize");
        assert_eq!(p, vec![Pass::Spill]);
        assert_eq!(w.len(), 1);
        assert!(w[0].contains("vectorize"), "{w:?}");
    }

    #[test]
    fn panics_and_errors_become_failures() {
        let f = run_guarded::<()>("spill", || panic!("boom")).unwrap_err();
        assert_eq!(f.pass, "spill");
        assert!(f.why.contains("boom"), "{f:?}");
        let f = run_guarded::<()>("shuffle", || Err("refused".into())).unwrap_err();
        assert_eq!(
            f,
            PassFailure {
                pass: "shuffle",
                why: "refused".into()
            }
        );
        assert_eq!(run_guarded("x", || Ok(3)), Ok(3));
    }

    #[test]
    fn parse_errors_are_reported_with_position() {
        let f = rewrite(
            ".version 8.0\n.target sm_80\nbogus;\n",
            "bad.ptx",
            &[Pass::Spill],
            None,
            &[],
        )
        .unwrap_err();
        assert_eq!(f.pass, "parse");
        assert!(f.why.contains("bad.ptx:3"), "{}", f.why);
    }

    #[test]
    fn check_args_keep_code_generation_options_only() {
        let a = args(&[
            "-lineinfo",
            "--fmad=false",
            "-v",
            "--gpu-name=sm_90a",
            "/tmp/k.ptx",
            "-o",
            "/tmp/k.cubin",
            "-O3",
            "--maxrregcount",
            "64",
        ]);
        let inv = parse_invocation(&a);
        assert_eq!(
            check_args(&a, &inv),
            vec!["-lineinfo", "--fmad=false", "-O3", "--maxrregcount", "64"]
        );
        let a = args(&["-arch", "sm_80", "--output-file=x.o", "a.ptx", "--verbose"]);
        assert!(check_args(&a, &parse_invocation(&a)).is_empty());
    }

    #[test]
    fn module_target_is_read() {
        assert_eq!(
            module_target(".version 8.0\n.target sm_90a\n").as_deref(),
            Some("sm_90a")
        );
        assert_eq!(module_target(".version 8.0\n"), None);
    }

    /// A scratch folder removed on drop.
    struct Scratch(PathBuf);
    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
    fn scratch(tag: &str) -> Scratch {
        let d =
            std::env::temp_dir().join(format!("warpsmith-ptxas-test-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Scratch(d)
    }
    fn fake_exe(p: &Path) {
        std::fs::write(p, "#!/bin/sh\nexit 0\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    }

    #[cfg(unix)]
    #[test]
    fn discovery_skips_ourselves_even_through_a_symlink() {
        let s = scratch("discover");
        let me = s.0.join("warpsmith");
        fake_exe(&me);
        let wrapper_dir = s.0.join("wrap");
        let real_dir = s.0.join("real");
        std::fs::create_dir_all(&wrapper_dir).unwrap();
        std::fs::create_dir_all(&real_dir).unwrap();
        std::os::unix::fs::symlink(&me, wrapper_dir.join("ptxas")).unwrap();
        let real = real_dir.join("ptxas");
        fake_exe(&real);
        let path = std::env::join_paths([&wrapper_dir, &real_dir]).unwrap();
        // PATH has the symlink first: it is skipped.
        assert_eq!(find_real_ptxas(None, &[], Some(&path), &me).unwrap(), real);
        // A project-local folder holding the symlink is skipped too.
        assert_eq!(
            find_real_ptxas(None, std::slice::from_ref(&wrapper_dir), Some(&path), &me).unwrap(),
            real
        );
        // Only ourselves on PATH: not found, never recursion.
        let only_me = std::env::join_paths([&wrapper_dir]).unwrap();
        let e = find_real_ptxas(None, &[], Some(&only_me), &me)
            .unwrap_err()
            .to_string();
        assert!(e.contains("not found"), "{e}");
        // WARPSMITH_PTXAS naming the symlink is an error, naming the real one is used.
        let e = find_real_ptxas(
            Some(wrapper_dir.join("ptxas").as_os_str()),
            &[],
            Some(&path),
            &me,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("warpsmith itself"), "{e}");
        assert_eq!(
            find_real_ptxas(Some(real.as_os_str()), &[], None, &me).unwrap(),
            real
        );
        // A bare name is looked up on PATH, skipping ourselves.
        assert_eq!(
            find_real_ptxas(Some(OsStr::new("ptxas")), &[], Some(&path), &me).unwrap(),
            real
        );
        let e = find_real_ptxas(Some(OsStr::new("/nonexistent/ptxas")), &[], None, &me)
            .unwrap_err()
            .to_string();
        assert!(e.contains("does not name"), "{e}");
    }
}
