//! Shuffle synthesis on the stencil operators of PTXASW's Table 2 (Matsumura et al., "A Symbolic
//! Emulator for Shuffle Synthesis on the NVIDIA PTX Code", CC'23, Table 2: the KernelGen OpenACC
//! suite), next to the paper's numbers.
//!
//! For each CUDA kernel in bench/kernels/stencils/ (our own code, same operators and access
//! patterns): clang-22 -O3 for sm_80 (the command line of scripts/compile-kernels.sh), then
//! `warpsmith::shuffle::shuffle_module` on each kernel, timed. Per kernel it prints: global loads,
//! shuffles, shuffle fraction, average |delta|, analysis time; the paper's loads, shuffles,
//! fraction, average delta and analysis time; the ratio of analysis times (paper / ours); and two
//! checks of the synthesized kernel:
//! - `equiv`: the emulator runs original and synthesized kernel on the same inputs
//!   (`warpsmith::emu::equiv::check`, 3 seeds) for four launch shapes — 32x4 blocks, 48x2 (warps
//!   straddle rows: ntid.x not a multiple of 32), 20x3 (ntid.x below 32, an incomplete warp) and
//!   40x1 (an incomplete last warp) — with grid sizes that leave out-of-range threads (divergent
//!   early exits) — and compares every output byte;
//! - `ptxas`: ptxas 12.9 accepts the synthesized PTX for sm_80 and sm_90.
//!
//! Run: `cargo bench --bench shuffle_table` (release build). Options: `-- --kernel NAME` (one
//! kernel), `-- --no-equiv` (skip the emulator checks), `-- --why` (print every load the pass did
//! not replace, with its reason), `-- --max-delta D`, `-- --harness-check`
//! (runs only the unmodified kernels on every launch shape: checks that the launch specs are
//! valid — no out-of-bounds access, no fault — without the pass), `-- --mode no-corner|no-load`
//! (the paper's measurement-only modes, whose output is NOT correct: the equiv column then shows
//! that the checks catch the missing corner cases). When the pass fails on a
//! kernel the row says so (the loads column then counts `ld.global` in the PTX). Results go in
//! docs/benchmarks.md ("Shuffle synthesis").
//!
//! `-- --emit-gpu DIR` also writes, for every kernel with at least one shuffle, a case folder for
//! bench/gpu/h100_checks.py (a GPU compares and times them): ptxas 12.9's sm_90 cubins of the
//! original (`ptxas`), of the pass with the CLI's default options (`shuffle`: profitable
//! replacements only) and with every proved replacement as counted above (`shuffle-all`), the
//! 32x4 launch spec above, and a timing launch over a 4096×4096 (2-D) or 256×256×128 (3-D) domain.

use std::path::PathBuf;
use std::time::Instant;

use warpsmith::emu::equiv;
use warpsmith::emu::launch::{spec_for, ElemType, Hints, InitSpec};
use warpsmith::ptx::{parse_module, print_module, Module};
use warpsmith::shuffle::{shuffle_module, Mode, ShuffleOptions};
use warpsmith::tools::{self, Tool};

/// One row of PTXASW's Table 2 (CC'23, p. 7): shuffles generated / global loads, average shuffle
/// delta ("-" when no shuffle), analysis time of PTXASW on an Intel Core i7-5930K, seconds.
struct PaperRow {
    name: &'static str,
    lang: &'static str,
    shuffles: u32,
    loads: u32,
    delta: Option<f64>,
    analysis_s: f64,
}

/// Table 2, transcribed. `tricubic2` (a second variant of tricubic, 48/67, 2.00, 1m41.855s) is
/// not in our set.
const PAPER: &[PaperRow] = &[
    PaperRow {
        name: "divergence",
        lang: "C",
        shuffles: 1,
        loads: 6,
        delta: Some(2.00),
        analysis_s: 4.281,
    },
    PaperRow {
        name: "gameoflife",
        lang: "C",
        shuffles: 6,
        loads: 9,
        delta: Some(1.50),
        analysis_s: 3.470,
    },
    PaperRow {
        name: "gaussblur",
        lang: "C",
        shuffles: 20,
        loads: 25,
        delta: Some(2.50),
        analysis_s: 7.938,
    },
    PaperRow {
        name: "gradient",
        lang: "C",
        shuffles: 1,
        loads: 6,
        delta: Some(2.00),
        analysis_s: 4.668,
    },
    PaperRow {
        name: "jacobi",
        lang: "F",
        shuffles: 6,
        loads: 9,
        delta: Some(1.50),
        analysis_s: 4.119,
    },
    PaperRow {
        name: "lapgsrb",
        lang: "C",
        shuffles: 12,
        loads: 25,
        delta: Some(1.83),
        analysis_s: 14.296,
    },
    PaperRow {
        name: "laplacian",
        lang: "C",
        shuffles: 2,
        loads: 7,
        delta: Some(1.50),
        analysis_s: 4.816,
    },
    PaperRow {
        name: "matmul",
        lang: "F",
        shuffles: 0,
        loads: 8,
        delta: None,
        analysis_s: 13.971,
    },
    PaperRow {
        name: "matvec",
        lang: "C",
        shuffles: 0,
        loads: 7,
        delta: None,
        analysis_s: 4.929,
    },
    PaperRow {
        name: "sincos",
        lang: "F",
        shuffles: 0,
        loads: 2,
        delta: None,
        analysis_s: 101.424,
    },
    PaperRow {
        name: "tricubic",
        lang: "C",
        shuffles: 48,
        loads: 67,
        delta: Some(2.00),
        analysis_s: 99.476,
    },
    PaperRow {
        name: "uxx1",
        lang: "C",
        shuffles: 3,
        loads: 17,
        delta: Some(2.00),
        analysis_s: 7.466,
    },
    PaperRow {
        name: "vecadd",
        lang: "C",
        shuffles: 0,
        loads: 2,
        delta: None,
        analysis_s: 3.281,
    },
    PaperRow {
        name: "wave13pt",
        lang: "C",
        shuffles: 4,
        loads: 14,
        delta: Some(2.50),
        analysis_s: 6.967,
    },
    PaperRow {
        name: "whispering",
        lang: "C",
        shuffles: 6,
        loads: 19,
        delta: Some(0.83),
        analysis_s: 6.288,
    },
];

/// Problem shape of one operator: grid extents (x, y, z) and the integer parameters in order.
struct Shape {
    /// Threads needed along x and y, planes along z.
    extent: [u32; 3],
    /// Values of the kernel's integer parameters, in order (nx, ny[, nz | nk]).
    ints: Vec<i64>,
    /// Elements of every buffer.
    len: u64,
    /// 1-D kernel (matvec): blocks are one row of threads.
    one_d: bool,
}

fn shape(name: &str) -> Shape {
    // Sizes that leave out-of-range threads in every launch shape below (divergent exits).
    let (nx, ny, nz) = (70i64, 11i64, 6i64);
    match name {
        "gameoflife" | "gaussblur" | "jacobi" | "whispering" => Shape {
            extent: [nx as u32, ny as u32, 1],
            ints: vec![nx, ny],
            len: (nx * ny) as u64,
            one_d: false,
        },
        "matmul" => {
            let nk = 7i64;
            Shape {
                extent: [nx as u32, ny as u32, 1],
                ints: vec![nx, ny, nk],
                len: (nx * ny.max(nk)) as u64,
                one_d: false,
            }
        }
        "matvec" => Shape {
            extent: [nx as u32, 1, 1],
            ints: vec![nx, ny],
            len: (nx * ny) as u64,
            one_d: true,
        },
        _ => Shape {
            extent: [nx as u32, ny as u32, nz as u32],
            ints: vec![nx, ny, nz],
            len: (nx * ny * nz) as u64,
            one_d: false,
        },
    }
}

/// The launch shapes every synthesized kernel is checked on: (label, block x, block y).
const LAUNCHES: &[(&str, u32, u32)] = &[
    ("32x4", 32, 4),
    ("48x2", 48, 2),
    ("20x3", 20, 3),
    ("40x1", 40, 1),
];

/// Hints for `kernel` of module `m` under block `bx` x `by`.
fn hints(m: &Module, kernel: &str, file: &str, bx: u32, by: u32) -> Option<Hints> {
    let f = m.function(kernel)?;
    let s = shape(file);
    let by = if s.one_d { 1 } else { by };
    let grid = [
        s.extent[0].div_ceil(bx),
        s.extent[1].div_ceil(by),
        s.extent[2],
    ];
    let mut h = Hints::new().grid(&grid).block(&[bx, by, 1]).len(s.len);
    if file == "gameoflife" {
        // Integer cells, 0 or 1, 40 % alive.
        let mut x = 0x2545_f491_u32;
        let cells = (0..s.len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                serde_json::json!(i32::from(x % 5 < 2))
            })
            .collect();
        h = h
            .ty(0, ElemType::S32)
            .ty(1, ElemType::S32)
            .init(0, InitSpec::List(cells));
    }
    let mut ints = s.ints.iter();
    for (i, p) in f.param_list().iter().enumerate() {
        if p.size_bytes() == 8 {
            continue; // a buffer
        }
        if p.ty.is_float() {
            h = h.scalar(i, 0.5);
        } else {
            h = h.scalar(i, *ints.next()?);
        }
    }
    Some(h)
}

/// The domain of a timing launch: large enough to fill an H100 (132 SMs) many times over.
fn timing_hints(m: &Module, kernel: &str, file: &str) -> Option<Hints> {
    let f = m.function(kernel)?;
    let s = shape(file);
    let (extent, ints): ([u32; 3], Vec<i64>) = if s.one_d {
        ([4096, 1, 1], vec![4096, 512])
    } else if s.extent[2] > 1 {
        ([256, 256, 128], vec![256, 256, 128])
    } else if file == "matmul" {
        ([2048, 2048, 1], vec![2048, 2048, 64])
    } else {
        ([4096, 4096, 1], vec![4096, 4096])
    };
    let len = extent.iter().map(|&e| u64::from(e)).product::<u64>() * if s.one_d { 512 } else { 1 };
    let by = if s.one_d { 1 } else { 4 };
    let grid = [extent[0].div_ceil(32), extent[1].div_ceil(by), extent[2]];
    let mut h = Hints::new().grid(&grid).block(&[32, by, 1]).len(len);
    if file == "gameoflife" {
        h = h.ty(0, ElemType::S32).ty(1, ElemType::S32);
    }
    let mut ints = ints.iter();
    for (i, p) in f.param_list().iter().enumerate() {
        if p.size_bytes() == 8 {
            continue;
        }
        h = if p.ty.is_float() {
            h.scalar(i, 0.5)
        } else {
            h.scalar(i, *ints.next()?)
        };
    }
    Some(h)
}

/// `--emit-gpu`: DIR/shuffle/<file>__<kernel>/ with case.json, the cubins and the specs; returns
/// the folder.
fn emit_gpu_case(
    dir: &std::path::Path,
    file: &str,
    kernel: &str,
    original: &Module,
    all: &Module,
) -> Result<String, String> {
    let mut default = original.clone();
    shuffle_module(
        &mut default,
        &ShuffleOptions {
            kernel: Some(kernel.to_string()),
            ..ShuffleOptions::default()
        },
    )
    .map_err(|e| e.to_string())?;
    let f = original.function(kernel).ok_or("no kernel")?;
    let spec = hints(original, kernel, file, 32, 4)
        .ok_or("no launch hints")
        .and_then(|h| spec_for(f, &h).map_err(|_| "no launch spec"))?;
    let timing = timing_hints(original, kernel, file)
        .ok_or("no timing hints")
        .and_then(|h| spec_for(f, &h).map_err(|_| "no timing spec"))?;
    let case = dir.join("shuffle").join(format!("{file}__{kernel}"));
    std::fs::create_dir_all(&case).map_err(|e| e.to_string())?;
    let mut variants = serde_json::Map::new();
    let default_text = print_module(&default);
    let all_text = print_module(all);
    let builds = [
        ("ptxas", print_module(original)),
        ("shuffle", default_text.clone()),
        ("shuffle-all", all_text.clone()),
    ];
    for (name, text) in builds {
        if name == "shuffle-all" && all_text == default_text {
            continue;
        }
        let built = tools::ptxas_assemble_source(&text, "sm_90", &[]).map_err(|e| e.to_string())?;
        std::fs::write(case.join(format!("{name}.cubin")), built.cubin)
            .map_err(|e| e.to_string())?;
        variants.insert(name.into(), format!("{name}.cubin").into());
    }
    let mut time =
        serde_json::from_str::<serde_json::Value>(&timing.to_json()).map_err(|e| e.to_string())?;
    time["numpy"] = true.into();
    std::fs::write(case.join("spec.json"), spec.to_json()).map_err(|e| e.to_string())?;
    std::fs::write(case.join("time.json"), time.to_string()).map_err(|e| e.to_string())?;
    let meta = serde_json::json!({
        "name": format!("shuffle/{file}__{kernel}"), "kernel": kernel, "group": "shuffle",
        "variants": variants, "reference": "ptxas", "spec": "spec.json", "emu": {},
        "time_spec": "time.json", "timed": true, "arch": "sm_90",
    });
    std::fs::write(case.join("case.json"), meta.to_string()).map_err(|e| e.to_string())?;
    Ok(case.display().to_string())
}

/// `ld.global` instructions of `kernel` in the printed module (a cross-check of the pass's count
/// and the count shown when the pass fails).
fn count_global_loads(text: &str, kernel: &str) -> usize {
    let mut inside = false;
    let mut n = 0;
    for line in text.lines() {
        let t = line.trim();
        if t.contains(".entry ") {
            inside = t.contains(&format!(".entry {kernel}("));
            continue;
        }
        if inside {
            // Skip a guard (`@%p1 ld.global…`).
            let op = if t.starts_with('@') {
                t.split_once(char::is_whitespace)
                    .map_or("", |(_, r)| r.trim_start())
            } else {
                t
            };
            if op.starts_with("ld.global") {
                n += 1;
            }
        }
    }
    n
}

struct Row {
    file: String,
    kernel: String,
    loads: usize,
    shuffles: Option<usize>,
    avg_delta: Option<f64>,
    analysis_ms: Option<f64>,
    wall_ms: f64,
    error: Option<String>,
    equiv: String,
    ptxas: String,
}

/// The first line of `msg`, at most 160 characters (table cells stay readable).
fn short(msg: &str) -> String {
    let line = msg.lines().next().unwrap_or("");
    match line.char_indices().nth(160) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None => line.to_string(),
    }
}

fn fmt_opt(v: Option<f64>, digits: usize) -> String {
    v.map_or("–".into(), |x| format!("{x:.digits$}"))
}

fn main() {
    // `RUST_LOG=warpsmith::shuffle=debug` prints the pass's phase times and queries.
    let _ = env_logger::builder().format_timestamp(None).try_init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let only = args
        .iter()
        .position(|a| a == "--kernel")
        .and_then(|i| args.get(i + 1).cloned());
    let no_equiv = args.iter().any(|a| a == "--no-equiv");
    let harness_check = args.iter().any(|a| a == "--harness-check");
    let why = args.iter().any(|a| a == "--why");
    let mode = match args
        .iter()
        .position(|a| a == "--mode")
        .and_then(|i| args.get(i + 1))
        .map(String::as_str)
    {
        None | Some("full") => Mode::Full,
        Some("no-corner") => Mode::NoCorner,
        Some("no-load") => Mode::NoLoad,
        Some(other) => {
            eprintln!("shuffle_table: unknown --mode {other} (full, no-corner, no-load)");
            std::process::exit(2);
        }
    };
    let max_delta = args
        .iter()
        .position(|a| a == "--max-delta")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(31);
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let clang = match tools::find(Tool::Clang) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("shuffle_table: {e}");
            std::process::exit(2);
        }
    };
    let have_ptxas = tools::find(Tool::Ptxas).is_ok();
    let emit_gpu = args
        .iter()
        .position(|a| a == "--emit-gpu")
        .and_then(|i| args.get(i + 1))
        .map(PathBuf::from);

    let mut rows = Vec::new();
    for paper in PAPER {
        if only.as_deref().is_some_and(|k| k != paper.name) {
            continue;
        }
        let src = root.join(format!("bench/kernels/stencils/{}.cu", paper.name));
        let text = match tools::cuda::cuda_to_ptx(&clang, &src, "sm_80", "O3") {
            Ok(t) => t,
            Err(e) => {
                eprintln!("{}: clang failed: {e}", paper.name);
                std::process::exit(2);
            }
        };
        let original = parse_module(&text, &format!("{}.sm_80.O3.ptx", paper.name))
            .expect("clang's PTX parses");
        let kernels: Vec<String> = original
            .functions()
            .filter(|f| f.body.is_some() && f.kind == warpsmith::ptx::FuncKind::Entry)
            .map(|f| f.name.to_string())
            .collect();
        for k in kernels {
            if harness_check {
                let mut fails = Vec::new();
                let mut insts = 0;
                for (label, bx, by) in LAUNCHES {
                    let f = original.function(&k).expect("kernel");
                    let h = hints(&original, &k, paper.name, *bx, *by).expect("hints");
                    match spec_for(f, &h).map(|spec| equiv::check(&original, &original, &spec, 1)) {
                        Ok(Ok(r)) => insts += r.stats_a.warp_insts,
                        Ok(Err(e)) | Err(e) => fails.push(format!("{label}: {e}")),
                    }
                }
                println!(
                    "{k}: {} ({insts} warp-instructions emulated)",
                    if fails.is_empty() {
                        "runs on every launch shape".to_string()
                    } else {
                        fails.join("; ")
                    }
                );
                continue;
            }
            let mut m = original.clone();
            let opts = ShuffleOptions {
                max_delta,
                mode,
                kernel: Some(k.clone()),
                // Every replacement the analysis proves, as Table 2 counts them.
                profitable_only: false,
                ..ShuffleOptions::default()
            };
            let t0 = Instant::now();
            let result = shuffle_module(&mut m, &opts);
            let wall_ms = t0.elapsed().as_secs_f64() * 1e3;
            let loads_text = count_global_loads(&print_module(&original), &k);
            let mut row = Row {
                file: paper.name.to_string(),
                kernel: k.clone(),
                loads: loads_text,
                shuffles: None,
                avg_delta: None,
                analysis_ms: None,
                wall_ms,
                error: None,
                equiv: "–".into(),
                ptxas: "–".into(),
            };
            match result {
                Err(e) => row.error = Some(e.to_string()),
                Ok(report) => {
                    let r = report
                        .kernels
                        .iter()
                        .find(|r| r.name == k)
                        .expect("the report names the kernel");
                    if r.loads != loads_text {
                        eprintln!(
                            "{k}: the pass counts {} global loads, the PTX has {loads_text} ld.global",
                            r.loads
                        );
                    }
                    if why {
                        for rej in &r.rejected {
                            eprintln!("  {k}: not replaced: {}: {}", rej.load, rej.why);
                        }
                    }
                    row.loads = r.loads;
                    row.shuffles = Some(r.shuffles);
                    row.avg_delta = (!r.deltas.is_empty()).then(|| {
                        r.deltas
                            .iter()
                            .map(|d| d.unsigned_abs() as f64)
                            .sum::<f64>()
                            / r.deltas.len() as f64
                    });
                    row.analysis_ms = Some(r.analysis_ms);
                    let printed = print_module(&m);
                    let synthesized = match parse_module(&printed, "synthesized.ptx") {
                        Ok(s) => s,
                        Err(e) => {
                            row.equiv = format!("reparse failed: {e}");
                            rows.push(row);
                            continue;
                        }
                    };
                    // ptxas for sm_80 and sm_90.
                    row.ptxas = if !have_ptxas {
                        "not run (no ptxas)".into()
                    } else {
                        let mut verdicts = Vec::new();
                        for arch in ["sm_80", "sm_90"] {
                            match tools::ptxas_accepts_source(&printed, arch) {
                                Ok(()) => verdicts.push(format!("{arch} ok")),
                                Err(e) => verdicts.push(format!(
                                    "{arch} REJECTED: {}",
                                    e.to_string().lines().next().unwrap_or("")
                                )),
                            }
                        }
                        verdicts.join(", ")
                    };
                    if let (Some(dir), true) = (&emit_gpu, r.shuffles > 0) {
                        match emit_gpu_case(dir, paper.name, &k, &original, &synthesized) {
                            Ok(d) => eprintln!("{k}: GPU case {d}"),
                            Err(e) => eprintln!("{k}: no GPU case: {e}"),
                        }
                    }
                    row.equiv = if no_equiv {
                        "not run".into()
                    } else {
                        let mut ok = 0;
                        let mut bad = Vec::new();
                        for (label, bx, by) in LAUNCHES {
                            let Some(h) = hints(&original, &k, paper.name, *bx, *by) else {
                                bad.push(format!("{label}: no launch hints"));
                                continue;
                            };
                            let f = original.function(&k).expect("kernel");
                            let spec = match spec_for(f, &h) {
                                Ok(s) => s,
                                Err(e) => {
                                    bad.push(format!("{label}: {e}"));
                                    continue;
                                }
                            };
                            match equiv::check(&original, &synthesized, &spec, 3) {
                                Ok(r) if r.is_equal() => ok += 1,
                                Ok(r) => {
                                    bad.push(short(&format!("{label}: DIFFERS {:?}", r.verdict)))
                                }
                                Err(e) => bad.push(short(&format!("{label}: {e}"))),
                            }
                        }
                        if bad.is_empty() {
                            format!("equal ({ok} shapes × 3 seeds)")
                        } else {
                            format!("{ok}/{} equal; {}", LAUNCHES.len(), bad.join("; "))
                        }
                    };
                }
            }
            eprintln!(
                "{k}: {} ({wall_ms:.1} ms wall)",
                row.error.as_deref().unwrap_or("done")
            );
            rows.push(row);
        }
    }
    if harness_check {
        return;
    }

    println!("| kernel | loads | shuffles | fraction | avg abs(Δ) | analysis ms | Table 2: shuffles/loads | fraction | Δ | analysis s | time ratio (paper / ours) | equiv | ptxas |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    let mut errors = 0;
    for r in &rows {
        let p = PAPER.iter().find(|p| p.name == r.file).expect("paper row");
        let paper_frac = p.shuffles as f64 / p.loads as f64;
        let (shuffles, frac, ratio) = match (r.shuffles, r.analysis_ms) {
            (Some(s), Some(ms)) => (
                s.to_string(),
                format!("{:.2}", s as f64 / r.loads.max(1) as f64),
                format!("{:.0}×", p.analysis_s * 1e3 / ms.max(1e-3)),
            ),
            _ => {
                errors += 1;
                (
                    format!("error: {}", r.error.as_deref().unwrap_or("?")),
                    "–".into(),
                    "–".into(),
                )
            }
        };
        println!(
            "| {}{} | {} | {} | {} | {} | {} | {}/{} ({}) | {:.2} | {} | {:.3} | {} | {} | {} |",
            r.file,
            if r.kernel == r.file {
                String::new()
            } else {
                format!(" (`{}`)", r.kernel)
            },
            r.loads,
            shuffles,
            frac,
            fmt_opt(r.avg_delta, 2),
            fmt_opt(r.analysis_ms, 1),
            p.shuffles,
            p.loads,
            p.lang,
            paper_frac,
            fmt_opt(p.delta, 2),
            p.analysis_s,
            ratio,
            r.equiv,
            r.ptxas,
        );
    }
    let total_wall: f64 = rows.iter().map(|r| r.wall_ms).sum();
    println!();
    println!(
        "{} kernels, {} where the pass failed; total pass wall time {total_wall:.1} ms (max delta {max_delta}, mode {mode:?})",
        rows.len(),
        errors
    );
}
