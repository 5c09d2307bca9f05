//! How well the register model (src/analysis/regmodel.rs) predicts ptxas's register count: for
//! every kernel of bench/kernels/*.cu (clang-22 -O3), of any further CUDA folders and of any
//! Triton PTX folders given, the PTX pressure, the model's estimate and `ptxas -v`'s registers,
//! with the relative errors.
//!
//! Run: `cargo bench --bench pressure_model [-- --arch sm_90] [--ptx DIR:sm_XX ...]
//! [--cuda DIR:sm_XX ...] [--nvrtc] [--detail]` (a `--ptx` DIR holds `.ptx` files, e.g. the Triton
//! suite's output, compiled for sm_XX; a `--cuda` DIR holds `.cu` files compiled like
//! bench/kernels, e.g. the model's holdout bench/regmodel_holdout; `--nvrtc` adds the bench
//! kernels compiled by NVIDIA's NVRTC for sm_80 and sm_90, scripts/compile-kernels-nvrtc.py).
//! Needs clang-22 and ptxas. Prints a Markdown table, a summary line per source folder and one
//! for all. `--detail` adds the model's parts (per-thread peak, assigned register numbers,
//! expansion peak, uniform peak) to each row, and the SASS peak: the most GPRs ptxas's code keeps
//! live at once (`warpsmith::sass::liveness`, as `sass dis --liveness`), which
//! tells how much of ptxas's count is values and how much numbering.

use std::path::Path;

use common::files_with_ext;

use warpsmith::analysis::{occupancy, regmodel};
use warpsmith::ptx::{parse_module, FuncKind};
use warpsmith::sass::elf::Cubin;
use warpsmith::sass::isa::abi::CallConvention;
use warpsmith::sass::isa::{decode_all, Arch};
use warpsmith::sass::liveness::gpr_liveness;
use warpsmith::tools::{self, Tool};

#[path = "common/mod.rs"]
mod common;

struct Row {
    source: String,
    kernel: String,
    arch: String,
    ptxas: u32,
    pressure: u32,
    estimate: u32,
    /// The model's parts, printed with `--detail`.
    parts: regmodel::RegModel,
    /// The most GPRs live at once in ptxas's SASS (None: the cubin could not be read).
    sass_peak: Option<u32>,
}

/// The most GPRs live at once in `kernel` of `cubin`.
fn sass_peak(cubin: &Cubin, kernel: &str) -> Option<u32> {
    let arch = Arch::from_sm(cubin.sm())?;
    let f = cubin.functions().into_iter().find(|f| f.name == kernel)?;
    let insts = decode_all(arch, &cubin.sections[f.text].data);
    let conv = CallConvention::of(cubin.register_count(&f));
    gpr_liveness(&insts, &conv).peak().map(|(_, n)| n)
}

/// What could not be measured: one line each (`source[: kernel]: why`), printed with the summary
/// so that a folder ptxas refuses (a newer PTX ISA, say) does not pass as a smaller table.
#[derive(Default)]
struct NotMeasured(Vec<String>);

impl NotMeasured {
    fn add(&mut self, what: String) {
        eprintln!("{what}");
        self.0.push(what);
    }

    fn print(&self) {
        if self.0.is_empty() {
            return;
        }
        println!("not measured: {} (reasons on standard error)", self.0.len());
        if let Some(first) = self.0.first() {
            let line = first.lines().next().unwrap_or_default();
            println!("  first: {line}");
        }
    }
}

fn rows_of(source: &str, text: &str, arch: &str, out: &mut Vec<Row>, missed: &mut NotMeasured) {
    let m = match parse_module(text, source) {
        Ok(m) => m,
        Err(e) => return missed.add(format!("{source}: {e}")),
    };
    let limits = match occupancy::arch(arch) {
        Ok(l) => l,
        Err(e) => return missed.add(format!("{source}: {e}")),
    };
    let (figures, cubin) = match tools::ptxas_assemble_source(text, arch, &[]) {
        Ok(a) => (a.resources, Cubin::parse(&a.cubin).ok()),
        Err(e) => return missed.add(format!("{source}: ptxas: {e}")),
    };
    for f in m
        .functions()
        .filter(|f| f.kind == FuncKind::Entry && f.body.is_some())
    {
        let Some(k) = figures.iter().find(|k| k.name == *f.name) else {
            continue;
        };
        match regmodel::model(&m, f, limits) {
            Ok(r) => out.push(Row {
                source: source.to_string(),
                kernel: f.name.to_string(),
                arch: arch.to_string(),
                ptxas: k.registers,
                pressure: r.pressure,
                estimate: r.estimate,
                parts: r,
                sass_peak: cubin.as_ref().and_then(|c| sass_peak(c, &f.name)),
            }),
            Err(e) => missed.add(format!("{source}: {}: {e}", f.name)),
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
    let folders = |flag: &str| common::folders(&args, flag);
    let dirs = folders("--ptx");
    let mut cuda_dirs = vec![(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("bench/kernels"),
        arch.clone(),
    )];
    cuda_dirs.extend(folders("--cuda"));
    let (Ok(clang), Ok(_)) = (tools::find(Tool::Clang), tools::find(Tool::Ptxas)) else {
        eprintln!("SKIPPED: clang-22 or ptxas not found");
        return;
    };
    let mut rows = Vec::new();
    let mut missed = NotMeasured::default();
    for (k, (dir, a)) in cuda_dirs.iter().enumerate() {
        // The bench kernels are named by file; other folders by folder and file.
        let prefix = if k == 0 {
            String::new()
        } else {
            format!("{}/", dir.file_name().unwrap_or_default().to_string_lossy())
        };
        for f in files_with_ext(dir, "cu") {
            let name = format!("{prefix}{}", f.file_name().unwrap().to_string_lossy());
            match tools::cuda::cuda_to_ptx(&clang, &f, a, "O3") {
                Ok(text) => rows_of(&name, &text, a, &mut rows, &mut missed),
                Err(e) => missed.add(format!("{}: {e}", f.display())),
            }
        }
    }
    if args.iter().any(|a| a == "--nvrtc") {
        nvrtc_rows(&mut rows, &mut missed);
    }
    for (dir, a) in &dirs {
        for p in files_with_ext(dir, "ptx") {
            let name = format!("triton/{}", p.file_name().unwrap().to_string_lossy());
            match std::fs::read_to_string(&p) {
                Ok(text) => rows_of(&name, &text, a, &mut rows, &mut missed),
                Err(e) => missed.add(format!("{}: {e}", p.display())),
            }
        }
    }
    let detail = args.iter().any(|a| a == "--detail");
    if detail {
        println!("| source | kernel | arch | ptxas | PTX pressure | error | model | error | per-thread | assigned | expansion | uniform | SASS peak |");
        println!("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    } else {
        println!("| source | kernel | arch | ptxas | PTX pressure | error | model | error |");
        println!("|---|---|---|---:|---:|---:|---:|---:|");
    }
    let (mut within_p, mut within_m) = (0, 0);
    for r in &rows {
        let (ep, em) = (error(r.pressure, r.ptxas), error(r.estimate, r.ptxas));
        within_p += usize::from(ep.abs() <= 0.10);
        within_m += usize::from(em.abs() <= 0.10);
        print!(
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
        if detail {
            let p = &r.parts;
            print!(
                " {} | {} | {} | {} | {} |",
                p.per_thread,
                p.assigned,
                p.expansion,
                p.uniform,
                r.sass_peak.map_or("-".into(), |n| n.to_string())
            );
        }
        println!();
    }
    println!();
    let mut groups: Vec<&str> = rows.iter().map(|r| group_of(&r.source)).collect();
    groups.dedup();
    for g in groups {
        let of: Vec<&Row> = rows.iter().filter(|r| group_of(&r.source) == g).collect();
        let within = |f: &dyn Fn(&Row) -> u32| {
            of.iter()
                .filter(|r| error(f(r), r.ptxas).abs() <= 0.10)
                .count()
        };
        let mean = of
            .iter()
            .map(|r| error(r.estimate, r.ptxas).abs())
            .sum::<f64>()
            / of.len() as f64;
        println!(
            "{g}: {} kernels: PTX pressure within ±10% on {}, the model on {} (mean |error| {:.0}%)",
            of.len(),
            within(&|r| r.pressure),
            within(&|r| r.estimate),
            mean * 100.0
        );
    }
    println!(
        "{} kernels: PTX pressure within ±10% of ptxas on {within_p}, the model on {within_m}",
        rows.len()
    );
    if detail {
        peak_summary(&rows);
    }
    missed.print();
}

/// How ptxas's register counts split into live values and numbering: the SASS peak against the
/// count, and the model's per-thread peak against the SASS peak.
fn peak_summary(rows: &[Row]) {
    let with: Vec<(&Row, u32)> = rows
        .iter()
        .filter_map(|r| r.sass_peak.map(|p| (r, p)))
        .filter(|(r, _)| r.ptxas < 255)
        .collect();
    let gap: Vec<i64> = with
        .iter()
        .map(|(r, p)| i64::from(r.ptxas) - i64::from(*p))
        .collect();
    let near = |f: &dyn Fn(&Row) -> u32| {
        with.iter()
            .filter(|(r, p)| error(f(r), *p).abs() <= 0.10)
            .count()
    };
    let mean_gap = gap.iter().sum::<i64>() as f64 / gap.len().max(1) as f64;
    println!(
        "SASS peak ({} kernels below 255 registers): ptxas's count exceeds it by {:.1} registers \
         on average (0 on {}); the model's per-thread peak is within ±10% of it on {}, its \
         estimate on {}",
        with.len(),
        mean_gap,
        gap.iter().filter(|&&g| g == 0).count(),
        near(&|r| r.parts.per_thread),
        near(&|r| r.estimate)
    );
}

/// The rows of the bench kernels compiled by NVIDIA's NVRTC for sm_80 and sm_90
/// (scripts/compile-kernels-nvrtc.py), in the group `nvrtc`.
fn nvrtc_rows(rows: &mut Vec<Row>, missed: &mut NotMeasured) {
    let Some(files) = common::nvrtc_ptx() else {
        return missed.add("nvrtc: scripts/compile-kernels-nvrtc.py failed".into());
    };
    for (p, arch) in files {
        let file = p.file_name().unwrap_or_default().to_string_lossy();
        match std::fs::read_to_string(&p) {
            Ok(text) => rows_of(&format!("nvrtc/{file}"), &text, arch, rows, missed),
            Err(e) => missed.add(format!("{}: {e}", p.display())),
        }
    }
}

/// The folder a row's source belongs to ("bench/kernels" for the bench kernels).
fn group_of(source: &str) -> &str {
    source.split_once('/').map_or("bench/kernels", |(g, _)| g)
}
