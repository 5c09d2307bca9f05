//! Robustness: every kernel of the PTX corpus (`../shared/corpus`, 251 files) is run with a
//! generated launch spec. Whatever the kernel does — unsupported instructions, faults, endless
//! loops — the emulator must answer with a result or an error, never a panic.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use warpsmith::emu::{run, spec_for, Hints, RunOptions};
use warpsmith::ptx::ir::FuncKind;
use warpsmith::ptx::parse_module;

fn ptx_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            ptx_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "ptx") {
            out.push(p);
        }
    }
}

#[test]
fn every_corpus_kernel_runs_or_errors_without_panicking() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    if !dir.is_dir() {
        eprintln!("SKIPPED: corpus not found at {}", dir.display());
        return;
    }
    let mut files = Vec::new();
    ptx_files(&dir, &mut files);
    files.sort();
    let (mut ok, mut errors, mut kernels) = (0, 0, 0);
    let mut panics = Vec::new();
    for path in &files {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let Ok(m) = parse_module(&text, &path.display().to_string()) else {
            continue;
        };
        for f in m.functions() {
            if f.kind != FuncKind::Entry || f.body.is_none() {
                continue;
            }
            kernels += 1;
            let Ok(mut spec) = spec_for(f, &Hints::new().grid(&[2]).block(&[48]).len(256)) else {
                errors += 1;
                continue;
            };
            spec.max_instructions = Some(100_000);
            spec.dynamic_smem = 1024;
            let opts = RunOptions {
                file: path.display().to_string(),
                ..RunOptions::default()
            };
            match catch_unwind(AssertUnwindSafe(|| run(&m, &spec, &opts))) {
                Ok(Ok(_)) => ok += 1,
                Ok(Err(_)) => errors += 1,
                Err(_) => panics.push(format!("{} kernel {}", path.display(), f.name)),
            }
        }
    }
    eprintln!("corpus: {kernels} kernels, {ok} ran, {errors} stopped with an error");
    assert!(
        panics.is_empty(),
        "the emulator panicked on:\n{}",
        panics.join("\n")
    );
}
