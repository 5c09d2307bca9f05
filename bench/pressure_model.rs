//! How well the register model (src/analysis/regmodel.rs) predicts ptxas's register count: for
//! every kernel of bench/kernels/*.cu (clang-22 -O3) and of any Triton PTX folders given, the PTX
//! pressure, the model's estimate and `ptxas -v`'s registers, with the relative errors.
//!
//! Run: `cargo bench --bench pressure_model [-- --arch sm_90] [--ptx DIR:sm_XX ...]`
//! (DIR holds `.ptx` files, e.g. the Triton suite's output, compiled for sm_XX). Needs clang-22
//! and ptxas. Prints a Markdown table and a summary line.

use std::path::{Path, PathBuf};

use warpsmith::analysis::{occupancy, regmodel};
use warpsmith::ptx::{parse_module, FuncKind};
use warpsmith::tools::{self, Tool};

struct Row {
    source: String,
    kernel: String,
    arch: String,
    ptxas: u32,
    pressure: u32,
    estimate: u32,
}

fn rows_of(source: &str, text: &str, arch: &str, out: &mut Vec<Row>) {
    let m = match parse_module(text, source) {
        Ok(m) => m,
        Err(e) => return eprintln!("{source}: {e}"),
    };
    let limits = match occupancy::arch(arch) {
        Ok(l) => l,
        Err(e) => return eprintln!("{source}: {e}"),
    };
    let figures = match tools::ptxas_verbose_source(text, arch, &[]) {
        Ok(v) => v,
        Err(e) => return eprintln!("{source}: ptxas: {e}"),
    };
    for f in m
        .functions()
        .filter(|f| f.kind == FuncKind::Entry && f.body.is_some())
    {
        let Some(k) = figures.iter().find(|k| k.name == *f.name) else {
            continue;
        };
        match regmodel::model(f, limits) {
            Ok(r) => out.push(Row {
                source: source.to_string(),
                kernel: f.name.to_string(),
                arch: arch.to_string(),
                ptxas: k.registers,
                pressure: r.pressure,
                estimate: r.estimate,
            }),
            Err(e) => eprintln!("{source}: {}: {e}", f.name),
        }
    }
}

fn error(model: u32, ptxas: u32) -> f64 {
    // ptxas caps at 255 and spills the rest: a model above 255 for a 255-register kernel is right.
    let m = if ptxas == 255 { model.min(255) } else { model };
    (f64::from(m) - f64::from(ptxas)) / f64::from(ptxas.max(1))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arch = args
        .iter()
        .position(|a| a == "--arch")
        .and_then(|i| args.get(i + 1))
        .cloned()
        .unwrap_or_else(|| "sm_80".into());
    let dirs: Vec<(PathBuf, String)> = args
        .iter()
        .enumerate()
        .filter(|(_, a)| *a == "--ptx")
        .filter_map(|(i, _)| args.get(i + 1))
        .filter_map(|d| {
            d.rsplit_once(':')
                .map(|(p, a)| (PathBuf::from(p), a.to_string()))
        })
        .collect();
    let (Ok(clang), Ok(_)) = (tools::find(Tool::Clang), tools::find(Tool::Ptxas)) else {
        eprintln!("SKIPPED: clang-22 or ptxas not found");
        return;
    };
    let mut rows = Vec::new();
    let kernels = Path::new(env!("CARGO_MANIFEST_DIR")).join("bench/kernels");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&kernels)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "cu"))
        .collect();
    files.sort();
    for f in &files {
        match tools::cuda::cuda_to_ptx(&clang, f, &arch, "O3") {
            Ok(text) => rows_of(
                &f.file_name().unwrap().to_string_lossy(),
                &text,
                &arch,
                &mut rows,
            ),
            Err(e) => eprintln!("{}: {e}", f.display()),
        }
    }
    for (dir, a) in &dirs {
        let mut ptx: Vec<PathBuf> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
            .collect();
        ptx.sort();
        for p in ptx {
            if let Ok(text) = std::fs::read_to_string(&p) {
                let name = format!("triton/{}", p.file_name().unwrap().to_string_lossy());
                rows_of(&name, &text, a, &mut rows);
            }
        }
    }
    println!("| source | kernel | arch | ptxas | PTX pressure | error | model | error |");
    println!("|---|---|---|---:|---:|---:|---:|---:|");
    let (mut within_p, mut within_m) = (0, 0);
    for r in &rows {
        let (ep, em) = (error(r.pressure, r.ptxas), error(r.estimate, r.ptxas));
        within_p += usize::from(ep.abs() <= 0.10);
        within_m += usize::from(em.abs() <= 0.10);
        println!(
            "| {} | {} | {} | {} | {} | {:+.0}% | {} | {:+.0}% |",
            r.source,
            r.kernel,
            r.arch,
            r.ptxas,
            r.pressure,
            ep * 100.0,
            r.estimate,
            em * 100.0
        );
    }
    println!(
        "\n{} kernels: PTX pressure within ±10% of ptxas on {within_p}, the model on {within_m}",
        rows.len()
    );
}
