//! Cross-validation of the SASS emulator against the PTX emulator (issue 15): every bench kernel
//! (bench/kernels/**/*.cu) is compiled by clang 22 to PTX (-O3) for sm_80 and sm_90, assembled by
//! ptxas with `--fmad=false` (so ptxas contracts nothing the PTX did not), and each kernel runs on
//! both emulators on two launch shapes with the same generated inputs. Every output byte must be
//! equal — or, for kernels built on approximate instructions (`.approx`: the SASS runs `MUFU`,
//! whose model differs from the PTX emulator's libm in the last bits), within the stated
//! tolerance (relative 2^-19 or absolute 2^-20, per f32 element).
//!
//! Outcomes per kernel and shape: `pass`, `pass~` (within tolerance), `UNSUPPORTED` (the SASS
//! emulator stopped at an instruction it does not implement: named, counted, visible), `ptx-n/a`
//! (the PTX emulator itself cannot run this generated launch: the kernel needs a specific spec).
//! The test fails on any byte mismatch, on a SASS-emulator fault or error where the PTX run
//! succeeded, and when a kernel of [`MUST_PASS`] does not pass.
//!
//! Prints `SKIPPED: <tool> not found` and passes when clang, ptxas or nvdisasm is absent.

#[allow(dead_code)]
mod common;

use std::path::{Path, PathBuf};

use warpsmith::emu::decode::Program;
use warpsmith::emu::launch::{run_program, spec_for, Hints, LaunchSpec, OutBuffer};
use warpsmith::emu::EmuError;
use warpsmith::emu::RunOptions;
use warpsmith::ptx::ir::{FuncKind, Type};
use warpsmith::sass::emu::SassProgram;
use warpsmith::tools::{self, Tool};

/// (file stem, kernel, arch) triples that must pass on every shape: the regression guard.
const MUST_PASS: &[(&str, &str)] = &[];

/// (kernel, shape) pairs whose generated launch is invalid for the kernel, with the reason: they
/// are reported as `bad-launch` and not run.
const INVALID_SHAPES: &[(&str, &str, &str)] = &[(
    "sgemm_tiled16",
    "grid 2 x block 64, n=64",
    "needs 16x16 blocks: threadIdx.x reaches 63 and indexes past the 16x16 shared tiles (the PTX \
     emulator lays out the shared variables of all kernels of the module, so only the cubin \
     run faults)",
)];

#[derive(Debug, Clone, PartialEq)]
enum Outcome {
    BadLaunch(&'static str),
    Pass,
    PassTol,
    Unsupported(String),
    PtxNa(String),
    Mismatch(String),
    SassError(String),
}

fn bench_files() -> Vec<PathBuf> {
    let root = common::repo_root().join("bench/kernels");
    let mut v = Vec::new();
    for d in [root.clone(), root.join("loops"), root.join("stencils")] {
        if let Ok(rd) = std::fs::read_dir(&d) {
            for e in rd.flatten() {
                let p = e.path();
                if p.extension().is_some_and(|x| x == "cu") {
                    v.push(p);
                }
            }
        }
    }
    v.sort();
    v
}

fn shapes(f: &warpsmith::ptx::ir::Function) -> Vec<(Hints, &'static str)> {
    // Integer parameters get small sizes so that n×n and n³ layouts fit the buffers.
    let mut out = Vec::new();
    for (grid, block, n, tag) in [
        (vec![2u32], vec![64u32], 64u64, "grid 2 x block 64, n=64"),
        (vec![3, 2], vec![16, 3], 13, "grid 3x2 x block 16x3, n=13"),
    ] {
        let mut h = Hints::new().grid(&grid).block(&block).len(4096);
        for (i, p) in f.param_list().iter().enumerate() {
            if matches!(p.ty, Type::S32 | Type::U32 | Type::B32) && p.dims.is_empty() {
                h = h.scalar(i, n);
            }
        }
        out.push((h, tag));
    }
    out
}

fn close(ty: warpsmith::emu::launch::ElemType, a: &[u8], b: &[u8]) -> bool {
    use warpsmith::emu::launch::ElemType;
    if a.len() != b.len() {
        return false;
    }
    match ty {
        ElemType::F32 => a.chunks(4).zip(b.chunks(4)).all(|(x, y)| {
            let x = f32::from_le_bytes([x[0], x[1], x[2], x[3]]);
            let y = f32::from_le_bytes([y[0], y[1], y[2], y[3]]);
            x.to_bits() == y.to_bits()
                || (x.is_nan() && y.is_nan())
                || (x - y).abs() <= 2f32.powi(-20)
                || (x - y).abs() <= x.abs().max(y.abs()) * 2f32.powi(-19)
        }),
        _ => a == b,
    }
}

fn compare(a: &[OutBuffer], b: &[OutBuffer], approx: bool) -> Result<bool, String> {
    let mut exact = true;
    for x in a.iter().filter(|x| x.arg.is_some()) {
        let Some(y) = b.iter().find(|y| y.name == x.name) else {
            return Err(format!("{} missing", x.name));
        };
        if x.data == y.data {
            continue;
        }
        if approx && close(x.ty, &x.data, &y.data) {
            exact = false;
            continue;
        }
        let es = x.ty.size();
        let i = (0..x.data.len() / es)
            .find(|&i| x.data[i * es..(i + 1) * es] != y.data[i * es..(i + 1) * es])
            .unwrap_or(0);
        return Err(format!(
            "{} element {i}: ptx {} vs sass {}",
            x.name,
            x.ty.format(&x.data[i * es..(i + 1) * es]),
            x.ty.format(&y.data[i * es..(i + 1) * es])
        ));
    }
    Ok(exact)
}

/// The PTX text of entry `name` (up to the next `.entry`).
fn entry_text<'t>(text: &'t str, name: &str) -> &'t str {
    let key = format!(".entry {name}(");
    let Some(start) = text.find(&key) else {
        return text;
    };
    let rest = &text[start + key.len()..];
    let end = rest.find(".entry ").unwrap_or(rest.len());
    &rest[..end]
}

struct Row {
    file: String,
    arch: &'static str,
    kernel: String,
    shape: &'static str,
    outcome: Outcome,
    lane_insts: u64,
}

fn run_file(path: &Path, arch: &'static str, clang: &Path, ptxas: &Path) -> Vec<Row> {
    let stem = path.file_stem().unwrap().to_string_lossy().to_string();
    let mut rows = Vec::new();
    let text = match tools::cuda::cuda_to_ptx(clang, path, arch, "O3") {
        Ok(t) => t,
        Err(e) => panic!("clang failed on {}: {e}", path.display()),
    };
    let module = warpsmith::ptx::parse_module(&text, &format!("{stem}.ptx"))
        .unwrap_or_else(|e| panic!("{stem}: {e}"));
    let dir = std::env::temp_dir().join(format!("warpsmith-sass-emu-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ptx_path = dir.join(format!("{stem}.{arch}.ptx"));
    let cubin_path = dir.join(format!("{stem}.{arch}.cubin"));
    std::fs::write(&ptx_path, &text).unwrap();
    let out = std::process::Command::new(ptxas)
        .args(["--fmad=false", "-arch", arch, "-o"])
        .arg(&cubin_path)
        .arg(&ptx_path)
        .output()
        .expect("ptxas runs");
    assert!(
        out.status.success(),
        "ptxas failed on {stem} {arch}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(&cubin_path).unwrap();
    let prog = SassProgram::from_cubin(&bytes).unwrap_or_else(|e| panic!("{stem} {arch}: {e}"));
    let ptx_prog = Program::new(&module, &format!("{stem}.ptx")).expect("decodes");
    for f in module.functions() {
        if f.kind != FuncKind::Entry || f.body.is_none() {
            continue;
        }
        let name = f.name.to_string();
        let approx = entry_text(&text, &name).contains(".approx");
        for (h, tag) in shapes(f) {
            if let Some((.., why)) = INVALID_SHAPES
                .iter()
                .find(|(k, s, _)| *k == name && *s == tag)
            {
                rows.push(Row {
                    file: stem.clone(),
                    arch,
                    kernel: name.clone(),
                    shape: tag,
                    outcome: Outcome::BadLaunch(why),
                    lane_insts: 0,
                });
                continue;
            }
            let mut spec: LaunchSpec = match spec_for(f, &h) {
                Ok(s) => s,
                Err(e) => {
                    rows.push(Row {
                        file: stem.clone(),
                        arch,
                        kernel: name.clone(),
                        shape: tag,
                        outcome: Outcome::PtxNa(e.to_string()),
                        lane_insts: 0,
                    });
                    continue;
                }
            };
            spec.max_instructions = Some(3_000_000);
            let opts = RunOptions {
                file: format!("{stem}.ptx"),
                ..RunOptions::default()
            };
            let outcome;
            let mut lane_insts = 0;
            match run_program(&ptx_prog, &spec, &opts) {
                Err(e) => outcome = Outcome::PtxNa(e.to_string()),
                Ok(pr) => {
                    let so = RunOptions {
                        file: format!("{stem}.{arch}.cubin"),
                        ..RunOptions::default()
                    };
                    outcome = match warpsmith::sass::emu::run(&prog, &spec, &so) {
                        Err(EmuError::Unsupported { at, why }) => {
                            Outcome::Unsupported(format!("{why}: `{}` at {}", at.text, at.at))
                        }
                        Err(e) => Outcome::SassError(e.to_string()),
                        Ok(sr) => {
                            lane_insts = sr.stats.lane_insts;
                            match compare(&pr.buffers, &sr.buffers, approx) {
                                Ok(true) => Outcome::Pass,
                                Ok(false) => Outcome::PassTol,
                                Err(m) => Outcome::Mismatch(m),
                            }
                        }
                    };
                }
            }
            rows.push(Row {
                file: stem.clone(),
                arch,
                kernel: name.clone(),
                shape: tag,
                outcome,
                lane_insts,
            });
        }
    }
    let _ = std::fs::remove_file(&ptx_path);
    let _ = std::fs::remove_file(&cubin_path);
    rows
}

#[test]
fn bench_kernels_ptx_vs_cubin() {
    let mut found = Vec::new();
    for t in [Tool::Clang, Tool::Ptxas, Tool::Nvdisasm] {
        match tools::find(t) {
            Ok(p) => found.push(p),
            Err(_) => {
                eprintln!("SKIPPED: {} not found", t.name());
                return;
            }
        }
    }
    let (clang, ptxas) = (found[0].clone(), found[1].clone());
    let t0 = std::time::Instant::now();
    let mut jobs = Vec::new();
    for f in bench_files() {
        for arch in ["sm_80", "sm_90"] {
            jobs.push((f.clone(), arch));
        }
    }
    let rows: Vec<Row> = common::parallel_map(&jobs, |(f, arch)| run_file(f, arch, &clang, &ptxas))
        .into_iter()
        .flatten()
        .collect();
    let mut failures = Vec::new();
    let mut count = std::collections::BTreeMap::<(&str, &str), usize>::new();
    for r in &rows {
        let (tag, detail) = match &r.outcome {
            Outcome::Pass => ("pass", String::new()),
            Outcome::BadLaunch(why) => ("bad-launch", why.to_string()),
            Outcome::PassTol => ("pass~", String::new()),
            Outcome::Unsupported(m) => ("UNSUPPORTED", m.clone()),
            Outcome::PtxNa(m) => ("ptx-n/a", m.chars().take(100).collect()),
            Outcome::Mismatch(m) => ("MISMATCH", m.clone()),
            Outcome::SassError(m) => ("SASS-ERROR", m.clone()),
        };
        *count.entry((r.arch, tag)).or_default() += 1;
        println!(
            "{:<12} {:<6} {:<28} {:<30} {:<12} {:>9} {}",
            r.file, r.arch, r.kernel, r.shape, tag, r.lane_insts, detail
        );
        if matches!(r.outcome, Outcome::Mismatch(_) | Outcome::SassError(_)) {
            failures.push(format!(
                "{} {} {} ({}): {tag} {detail}",
                r.file, r.arch, r.kernel, r.shape
            ));
        }
    }
    for &(file, kernel) in MUST_PASS {
        for r in rows.iter().filter(|r| r.file == file && r.kernel == kernel) {
            if !matches!(r.outcome, Outcome::Pass | Outcome::PassTol) {
                failures.push(format!(
                    "{file} {} {kernel} ({}): must pass, got {:?}",
                    r.arch, r.shape, r.outcome
                ));
            }
        }
        if !rows.iter().any(|r| r.file == file && r.kernel == kernel) {
            failures.push(format!("{file} {kernel}: must pass, not found"));
        }
    }
    println!("summary (kernel x shape runs): {count:?}");
    println!("time: {:.1} s", t0.elapsed().as_secs_f64());
    assert!(
        failures.is_empty(),
        "{} failure(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
}
