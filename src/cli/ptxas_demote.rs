//! The drop-in's post-ptxas stage (issue 16): with `demote` in `WARPSMITH_PASSES`, after the real
//! ptxas has written its cubin successfully, move each kernel's local-memory frame to shared
//! memory (`warpsmith::sass::demote`) and replace the cubin atomically where a kernel changed.
//!
//! The launch is not visible here: the dynamic shared-memory size comes from
//! `WARPSMITH_SPILL_DYNAMIC_SMEM` (unset: no kernel is demoted, as the never-worse rule wants for
//! an unknown size), the block size from the cubin's `.maxntid`/`.reqntid` (Triton writes
//! `.reqntid`) or `WARPSMITH_SPILL_BLOCK_SIZE`. Nothing here can fail the build: any problem is
//! a warning and ptxas's cubin is left as it was.
//!
//! Where the caller lets the launch grow (`// warpsmith-grow-dynamic: FILE` in the PTX, or
//! `WARPSMITH_DEMOTE_GROW_REPORT=FILE`), a frame that does not fit in the static area whole may
//! go to the end of a grown dynamic area instead (`demote --grow-dynamic`), where that ranks
//! higher; FILE then gets the bytes each kernel's launch must add (`{"kernel": bytes}`, `{}`
//! for none), and the caller must launch with them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

use super::ptxas::{Invocation, Pass};
use super::ptxas_launch::GROW_REPORT_VAR;
use warpsmith::sass::demote::{can_edit, demote, standings, DemoteOptions, Standing};

/// ptxas's output file when `-o` is not given.
const DEFAULT_OUTPUT: &str = "elf.o";

/// What to do after ptxas succeeded.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PostStage {
    /// The cubin to demote (`None`: the stage is off).
    pub cubin: Option<PathBuf>,
}

impl PostStage {
    /// The stage for `passes` and ptxas's command line `inv`.
    pub fn new(passes: &[Pass], inv: &Invocation) -> PostStage {
        let on = passes.contains(&Pass::Demote) && !inv.info_only && !inv.inputs.is_empty();
        PostStage {
            cubin: on.then(|| PathBuf::from(inv.output.as_deref().unwrap_or(DEFAULT_OUTPUT))),
        }
    }

    /// Runs the stage (a no-op when off); problems are warnings.
    pub fn run(&self) {
        let Some(path) = &self.cubin else {
            return;
        };
        if let Err(why) = demote_file(path) {
            warn_kept(path, &why);
        }
    }

    /// Runs the stage on the cubin ptxas built from the rewritten PTX, and also on the one it
    /// builds from the original PTX (`build_original` writes it to the same output file), and
    /// keeps the better pipeline: the passes' shared memory can leave no room for the frame
    /// `demote` would have moved, so "spill, then demote" can end with more local memory than
    /// "demote" alone. The original's build wins only where no kernel ranks lower
    /// ([`Standing::key`]) and one ranks higher; then its ptxas output is returned, for the
    /// caller to show instead of the rewritten one's. Without a dynamic size, or on a cubin of an
    /// architecture whose code it cannot edit (sm_100 …), `demote` moves nothing, and the
    /// original is not built again.
    pub fn run_against_original(
        &self,
        build_original: impl FnOnce() -> std::io::Result<Output>,
    ) -> Option<Output> {
        let path = self.cubin.as_ref()?;
        match pick_pipeline(path, build_original) {
            Ok(chosen) => chosen,
            Err(why) => {
                warn_kept(path, &why);
                None
            }
        }
    }
}

fn warn_kept(path: &Path, why: &str) {
    eprintln!(
        "warpsmith ptxas: warning: demote: {}: {why}; ptxas's cubin is kept",
        path.display()
    );
}

/// The stage's settings from the drop-in's environment.
struct StageOptions {
    /// `demote`'s options.
    demote: DemoteOptions,
    /// Where to write the bytes each kernel's launch must add ([`GROW_REPORT_VAR`]; `None`: the
    /// launch cannot grow, and nothing is placed in a grown dynamic area).
    grow_report: Option<PathBuf>,
}

/// The stage's settings from the drop-in's environment.
fn options() -> Result<StageOptions, String> {
    // The spill pass's reader of the same variables.
    let var = |v: &'static str| {
        warpsmith::spill::env::u32_var(&|k: &str| std::env::var(k).ok(), v)
            .map_err(|e| e.to_string())
    };
    let demote = DemoteOptions {
        dynamic_smem: var("WARPSMITH_SPILL_DYNAMIC_SMEM")?,
        block_size: var("WARPSMITH_SPILL_BLOCK_SIZE")?,
        ..DemoteOptions::default()
    };
    let grow_report = std::env::var_os(GROW_REPORT_VAR)
        .filter(|p| !p.is_empty())
        .map(PathBuf::from);
    Ok(StageOptions {
        demote,
        grow_report,
    })
}

fn read(path: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| e.to_string())
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), String> {
    warpsmith::fsutil::write_atomic(path, bytes).map_err(|e| e.to_string())
}

/// A cubin and the bytes each of its kernels' launches must add to the dynamic size.
#[derive(Clone, Debug, Default, PartialEq)]
struct Build {
    cubin: Vec<u8>,
    dynamic_added: BTreeMap<String, u32>,
}

impl Build {
    fn unchanged(bytes: &[u8]) -> Build {
        Build {
            cubin: bytes.to_vec(),
            dynamic_added: BTreeMap::new(),
        }
    }

    fn standings(&self, opts: &DemoteOptions) -> Result<Vec<Standing>, String> {
        standings(&self.cubin, opts, &self.dynamic_added).map_err(|e| e.to_string())
    }
}

/// Writes `build`'s cubin to `path` (unless `on_disk`, what `path` holds, is the same) and, where
/// the launch may grow, the grow report: what each kernel's launch must add, `{}` when nothing.
fn write_build(
    path: &Path,
    on_disk: &[u8],
    build: &Build,
    stage: &StageOptions,
) -> Result<(), String> {
    if let Some(report) = &stage.grow_report {
        // The report first: a caller that finds no report launches with the old size, which is
        // right only for ptxas's own cubin.
        let json = serde_json::to_string(&build.dynamic_added).map_err(|e| e.to_string())?;
        write(report, json.as_bytes()).map_err(|e| format!("{}: {e}", report.display()))?;
    }
    if build.cubin != on_disk {
        write(path, &build.cubin)?;
    }
    Ok(())
}

fn demote_file(path: &Path) -> Result<(), String> {
    let stage = options()?;
    let bytes = read(path)?;
    let build = demote_best(&bytes, &stage)?;
    write_build(path, &bytes, &build, &stage)
}

/// `bytes` with every kernel's frame demoted where the rule keeps it (one log line a kernel).
fn demote_bytes(bytes: &[u8], opts: &DemoteOptions) -> Result<Build, String> {
    let out = demote(bytes, opts).map_err(|e| e.to_string())?;
    let mut dynamic_added = BTreeMap::new();
    for k in &out.kernels {
        log::info!(
            "demote {}: {} ({})",
            k.kernel,
            if k.demoted { "demoted" } else { "unchanged" },
            k.reason
        );
        if let Some(after) = k.after.filter(|a| k.demoted && a.dynamic_added > 0) {
            dynamic_added.insert(k.kernel.clone(), after.dynamic_added);
        }
    }
    Ok(Build {
        cubin: out.cubin,
        dynamic_added,
    })
}

/// `bytes` demoted with the frame in the static area; where that leaves a kernel with local
/// memory and the launch may grow, also with `--grow-dynamic`, kept where it ranks higher
/// ([`ranks_higher`]; a tie keeps the static placement, which needs no change to the launch).
fn demote_best(bytes: &[u8], stage: &StageOptions) -> Result<Build, String> {
    let opts = &stage.demote;
    let in_static = demote_bytes(bytes, opts)?;
    if stage.grow_report.is_none() || opts.dynamic_smem.is_none() {
        return Ok(in_static);
    }
    let static_standings = in_static.standings(opts)?;
    if static_standings
        .iter()
        .all(|k| k.resources.local_bytes == 0)
    {
        return Ok(in_static);
    }
    let grow = DemoteOptions {
        grow_dynamic: true,
        ..opts.clone()
    };
    let grown = match demote_bytes(bytes, &grow) {
        Ok(b) if !b.dynamic_added.is_empty() => b,
        Ok(_) => return Ok(in_static),
        Err(why) => {
            log::info!("demote --grow-dynamic: {why}; the static placement is kept");
            return Ok(in_static);
        }
    };
    let grown_standings = grown.standings(opts)?;
    if ranks_higher(&grown_standings, &static_standings) {
        log::info!(
            "demote into a grown dynamic area ({}) ranks above the static placement ({}): \
             the launch adds {:?} B",
            describe(&grown_standings),
            describe(&static_standings),
            grown.dynamic_added
        );
        Ok(grown)
    } else {
        Ok(in_static)
    }
}

/// [`PostStage::run_against_original`]'s work: `Ok(Some(output))` when the original's build,
/// demoted, is written to `path`.
fn pick_pipeline(
    path: &Path,
    build_original: impl FnOnce() -> std::io::Result<Output>,
) -> Result<Option<Output>, String> {
    let stage = options()?;
    if stage.demote.dynamic_smem.is_none() {
        demote_file(path)?;
        return Ok(None);
    }
    let rewritten = read(path)?;
    if !can_edit(&rewritten) {
        // Not a cubin `demote` edits (sm_100 …): it keeps every kernel of either build.
        log::info!("demote: {}: no kernel can be edited here", path.display());
        return write_build(path, &rewritten, &Build::unchanged(&rewritten), &stage).map(|()| None);
    }
    let original_output = match build_original() {
        Ok(o) if o.status.success() => o,
        failed => {
            let why = match failed {
                Ok(o) => String::from_utf8_lossy(&o.stderr).trim().to_string(),
                Err(e) => e.to_string(),
            };
            log::info!("the original PTX could not be assembled for comparison: {why}");
            // What ptxas left in `path` is unknown: write the rewritten build back whatever it is.
            let build = demote_or_keep(&rewritten, &stage);
            return write_build(path, &[], &build, &stage).map(|()| None);
        }
    };
    let original = read(path)?;
    let pipeline = demote_or_keep(&rewritten, &stage);
    let alone = demote_or_keep(&original, &stage);
    let take_alone = match (
        alone.standings(&stage.demote),
        pipeline.standings(&stage.demote),
    ) {
        (Ok(a), Ok(p)) => {
            let better = ranks_higher(&a, &p);
            if better {
                log::info!(
                    "demote on ptxas's build of the original PTX ({}) ranks above the \
                     rewritten PTX's build demoted ({}): keeping the former",
                    describe(&a),
                    describe(&p)
                );
            }
            better
        }
        (Err(e), _) | (_, Err(e)) => {
            log::info!("cannot compare the two pipelines ({e}); keeping the rewritten PTX's");
            false
        }
    };
    let chosen = if take_alone { &alone } else { &pipeline };
    write_build(path, &original, chosen, &stage)?;
    Ok(take_alone.then_some(original_output))
}

/// `bytes` demoted ([`demote_best`]), or `bytes` itself where `demote` fails (a warning-free
/// fallback: the comparison then ranks ptxas's own cubin).
fn demote_or_keep(bytes: &[u8], stage: &StageOptions) -> Build {
    demote_best(bytes, stage).unwrap_or_else(|why| {
        log::info!("demote: {why}; the cubin is compared as ptxas wrote it");
        Build::unchanged(bytes)
    })
}

/// Whether `a` ranks above `b`: the same kernels, none ranking lower in `a`, one higher.
fn ranks_higher(a: &[Standing], b: &[Standing]) -> bool {
    let sorted = |s: &[Standing]| {
        let mut v: Vec<(String, (i64, u32, u32))> =
            s.iter().map(|k| (k.kernel.clone(), k.key())).collect();
        v.sort();
        v
    };
    let (a, b) = (sorted(a), sorted(b));
    let same_kernels = a.len() == b.len() && a.iter().zip(&b).all(|(x, y)| x.0 == y.0);
    same_kernels && a.iter().zip(&b).all(|(x, y)| x.1 <= y.1) && a != b
}

/// `kernel: registers/local B/static smem B/occupancy`, for the log.
fn describe(s: &[Standing]) -> String {
    s.iter()
        .map(|k| {
            let occ = k
                .occupancy
                .map_or("?".to_string(), |o| format!("{:.1}%", o * 100.0));
            let grown = match k.resources.dynamic_added {
                0 => String::new(),
                n => format!(" (+{n} B dynamic)"),
            };
            format!(
                "{}: {}/{} B/{} B{grown}/{occ}",
                k.kernel, k.resources.registers, k.resources.local_bytes, k.resources.static_smem
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::ptxas::{parse_invocation, parse_passes};

    fn stage(passes: &str, args: &[&str]) -> PostStage {
        let args: Vec<std::ffi::OsString> = args.iter().map(Into::into).collect();
        PostStage::new(&parse_passes(passes).0, &parse_invocation(&args))
    }

    #[test]
    fn the_stage_follows_the_output_option() {
        let on = |p: &str| Some(PathBuf::from(p));
        assert_eq!(
            stage("demote", &["-arch=sm_80", "a.ptx"]).cubin,
            on("elf.o")
        );
        assert_eq!(
            stage("spill,demote", &["a.ptx", "-o", "x.cubin"]).cubin,
            on("x.cubin")
        );
        assert_eq!(
            stage("demote", &["--output-file=y.o", "a.ptx"]).cubin,
            on("y.o")
        );
        assert_eq!(stage("spill", &["a.ptx", "-o", "x.cubin"]).cubin, None);
        assert_eq!(stage("demote", &["--version"]).cubin, None);
    }

    fn standing(kernel: &str, local_bytes: u32, static_smem: u32, occ: f64) -> Standing {
        Standing {
            kernel: kernel.into(),
            resources: warpsmith::sass::demote::Resources {
                registers: 255,
                local_bytes,
                static_smem,
                dynamic_added: 0,
            },
            occupancy: Some(occ),
        }
    }

    #[test]
    fn a_pipeline_ranks_higher_only_when_no_kernel_ranks_lower() {
        // Flash attention d=128 causal, sm_90 (docs/benchmarks.md, session 54).
        let alone = [standing("attn", 0, 14352, 0.125)];
        let pipeline = [standing("attn", 40, 17408, 0.125)];
        assert!(ranks_higher(&alone, &pipeline));
        assert!(!ranks_higher(&pipeline, &alone));
        assert!(!ranks_higher(&alone, &alone), "equal is not higher");
        // Occupancy first: less local memory does not make up for it.
        let lower = [standing("attn", 0, 14352, 0.0625)];
        assert!(!ranks_higher(&lower, &pipeline));
        // One kernel better, another worse: keep the pipeline.
        let two_a = [standing("a", 0, 100, 0.5), standing("b", 8, 0, 0.5)];
        let two_b = [standing("b", 0, 0, 0.5), standing("a", 8, 0, 0.5)];
        assert!(!ranks_higher(&two_a, &two_b));
        let two_c = [standing("b", 8, 0, 0.5), standing("a", 8, 0, 0.5)];
        assert!(ranks_higher(&two_a, &two_c), "kernel order does not matter");
        // Different kernels are not comparable.
        assert!(!ranks_higher(&[standing("x", 0, 0, 1.0)], &pipeline));
    }

    #[test]
    fn without_a_dynamic_size_the_original_is_not_built_again() {
        if std::env::var_os("WARPSMITH_SPILL_DYNAMIC_SMEM").is_some() {
            return; // the variable is the process's; this test needs it unset
        }
        let dir = std::env::temp_dir().join(format!("ws-pick-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("x.cubin");
        std::fs::write(&path, b"not a cubin").unwrap();
        let built = std::cell::Cell::new(false);
        let out = pick_pipeline(&path, || {
            built.set(true);
            Err(std::io::Error::other("unexpected"))
        });
        assert!(!built.get());
        assert!(
            out.is_err(),
            "demote reads the file and reports it is no cubin"
        );
        assert_eq!(std::fs::read(&path).unwrap(), b"not a cubin");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
