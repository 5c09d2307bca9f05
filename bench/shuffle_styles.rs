//! Shuffle synthesis on code it was not tuned for (issue 13): the stress corpus in
//! bench/shuffle_styles/ (64-bit indices, pointer increments, block ids split with `/` and `%`,
//! grid-stride loops, no `__restrict__`, branches), each compiled by clang 22 for sm_80 at -O1
//! and -O3, then `warpsmith::shuffle::shuffle_module` with the default budgets (as the drop-in
//! runs it).
//!
//! Per kernel it prints: global loads, the loads a shuffle could replace counted by hand (`HAND`,
//! from the comment at the top of each file), shuffles found, how many of them compare the
//! source address at run time (checked), Z3 queries, the analysis time, and two checks of the
//! rewritten kernel:
//! - `equiv`: the emulator runs original and rewritten kernel on the same inputs (2 seeds) for
//!   two launch shapes — 32x4 blocks and 48x2 (warps straddle rows) — and compares every output
//!   byte; `insts` is the rewritten kernel's lane-instructions over the original's, summed over
//!   both shapes (what the shuffles cost in instructions; they save the global loads);
//! - `ptxas`: ptxas accepts the rewritten PTX for sm_80.
//!
//! Run: `cargo bench --bench shuffle_styles` (release). `-- --kernel NAME` for one file. Results
//! go in docs/shuffle.md ("Code it was not tuned for").

use std::path::PathBuf;
use std::time::Instant;

use warpsmith::emu::equiv;
use warpsmith::emu::launch::{spec_for, ElemType, Hints};
use warpsmith::ptx::{parse_module, print_module, Function, Module};
use warpsmith::shuffle::{shuffle_module, ShuffleOptions};
use warpsmith::tools::{self, Tool};

/// Loads a shuffle could replace, counted by hand (each file's header comment says why).
const HAND: &[(&str, usize)] = &[
    ("st_alias", 2),
    ("st_blur5_ptr", 20),
    ("st_branch", 2),
    ("st_conv7_unroll", 6),
    ("st_div3_long", 1),
    ("st_flat2d", 2),
    ("st_gridstride", 4),
    ("st_jacobi_long", 6),
    ("st_jacobi_sizet", 6),
    ("st_lap3d_sizet", 2),
    ("st_tricubic_long", 48),
    ("st_wave13_divmod", 4),
];

/// The problem: nx × ny × nz points (sizes that leave out-of-range threads in every block shape).
const NX: u32 = 70;
const NY: u32 = 11;
const NZ: u32 = 6;

/// Grid and integer parameters of `file` under blocks of `bx` × `by`.
fn launch(file: &str, bx: u32, by: u32) -> ([u32; 3], [u32; 3], Vec<i64>) {
    let (nx, ny, nz) = (i64::from(NX), i64::from(NY), i64::from(NZ));
    let gx = NX.div_ceil(bx);
    let gy = NY.div_ceil(by);
    match file {
        "st_gridstride" | "st_conv7_unroll" => {
            // 1-D over nx·ny points; the grid-stride kernel gets 3 blocks (several iterations).
            let n = nx * ny;
            let blocks = if file == "st_gridstride" {
                3
            } else {
                (n as u32).div_ceil(bx * by)
            };
            ([blocks, 1, 1], [bx * by, 1, 1], vec![n])
        }
        "st_jacobi_sizet" => ([gx, gy, 1], [bx, by, 1], vec![nx, nx, ny]),
        "st_div3_long" | "st_tricubic_long" | "st_lap3d_sizet" => {
            ([gx, gy, NZ], [bx, by, 1], vec![nx, ny, nz])
        }
        "st_wave13_divmod" => (
            [gx, gy * NZ, 1],
            [bx, by, 1],
            vec![nx, ny, nz, i64::from(gy)],
        ),
        "st_flat2d" => ([gx * gy, 1, 1], [bx, by, 1], vec![nx, ny, i64::from(gx)]),
        _ => ([gx, gy, 1], [bx, by, 1], vec![nx, ny]),
    }
}

/// Launch hints: `.ptr` parameters are buffers of nx·ny·nz elements; integers in order.
fn hints(f: &Function, file: &str, bx: u32, by: u32) -> Hints {
    let (grid, block, ints) = launch(file, bx, by);
    let mut h = Hints::new()
        .grid(&grid)
        .block(&block)
        .len(u64::from(NX * NY * NZ));
    let mut ints = ints.into_iter();
    for (i, p) in f.param_list().iter().enumerate() {
        if p.ptr.is_some() {
            if file == "st_div3_long" {
                h = h.ty(i, ElemType::F64);
            }
            continue;
        }
        if p.ty.is_float() {
            h = h.scalar(i, 0.5);
        } else if let Some(v) = ints.next() {
            h = h.scalar(i, v);
        }
    }
    h
}

fn count_global_loads(m: &Module, kernel: &str) -> usize {
    let text = print_module(m);
    let mut inside = false;
    let mut n = 0;
    for line in text.lines() {
        let t = line.trim();
        if t.contains(".entry ") {
            inside = t.contains(&format!(".entry {kernel}("));
            continue;
        }
        let op = t
            .strip_prefix('@')
            .and_then(|r| r.split_once(char::is_whitespace))
            .map_or(t, |(_, r)| r.trim_start());
        if inside && op.starts_with("ld.global") {
            n += 1;
        }
    }
    n
}

/// Runs `original` and `rewritten` on two launch shapes; the verdict and the ratio of
/// lane-instructions (rewritten over original).
fn check_equivalence(
    original: &Module,
    rewritten: &Module,
    kernel: &str,
    file: &str,
) -> (String, String) {
    let (mut before, mut after) = (0u64, 0u64);
    for (bx, by) in [(32, 4), (48, 2)] {
        let f = original.function(kernel).expect("kernel");
        let spec = spec_for(f, &hints(f, file, bx, by)).expect("launch spec");
        match equiv::check(original, rewritten, &spec, 2) {
            Ok(r) if r.is_equal() => {
                before += r.stats_a.lane_insts;
                after += r.stats_b.lane_insts;
            }
            Ok(r) => {
                return (
                    format!("DIFFERENT ({bx}x{by}): {:?}", r.verdict),
                    "–".into(),
                )
            }
            Err(e) => return (format!("error ({bx}x{by}): {e}"), "–".into()),
        }
    }
    let ratio = if before > 0 {
        format!("{:.2}×", after as f64 / before as f64)
    } else {
        "–".into()
    };
    ("equal".into(), ratio)
}

/// `ok` when ptxas accepts `m` for sm_80, `REJECTED` when not, or why it was not run.
fn ptxas_accepts(ptxas: Option<&std::path::Path>, m: &Module, file: &str, level: &str) -> String {
    let Some(p) = ptxas else {
        return "skipped (no ptxas)".into();
    };
    let dir = std::env::temp_dir().join(format!("ws-styles-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join(format!("{file}.{level}.ptx"));
    std::fs::write(&path, print_module(m)).expect("write PTX");
    let ok = std::process::Command::new(p)
        .args(["-arch=sm_80", "-o", "/dev/null"])
        .arg(&path)
        .status()
        .is_ok_and(|s| s.success());
    let _ = std::fs::remove_dir_all(&dir);
    if ok { "ok" } else { "REJECTED" }.into()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let only = args
        .iter()
        .position(|a| a == "--kernel")
        .and_then(|i| args.get(i + 1).cloned());
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let clang = match tools::find(Tool::Clang) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("shuffle_styles: {e}");
            std::process::exit(2);
        }
    };
    let ptxas = tools::find(Tool::Ptxas).ok();
    let ptxas = ptxas.as_deref();
    println!(
        "| kernel | -O | loads | by hand | proved | checked | Z3 queries | equiv | insts | profitable | insts | ptxas | analysis ms |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    let mut failed = false;
    for (file, hand) in HAND {
        if only.as_deref().is_some_and(|k| k != *file) {
            continue;
        }
        let src = root.join(format!("bench/shuffle_styles/{file}.cu"));
        for level in ["O1", "O3"] {
            let text = match tools::cuda::cuda_to_ptx(&clang, &src, "sm_80", level) {
                Ok(t) => t,
                Err(e) => {
                    eprintln!("{file}: clang failed: {e}");
                    std::process::exit(2);
                }
            };
            let original =
                parse_module(&text, &format!("{file}.{level}.ptx")).expect("clang's PTX parses");
            // Every proved replacement (what the analysis finds), then the default pass (only
            // the profitable ones, src/shuffle/cost.rs), each checked on the emulator.
            let mut cells = Vec::new();
            let mut first = None;
            for opts in [
                ShuffleOptions {
                    profitable_only: false,
                    ..ShuffleOptions::default()
                },
                ShuffleOptions::default(),
            ] {
                let mut m = original.clone();
                let t0 = Instant::now();
                let rep = match shuffle_module(&mut m, &opts) {
                    Ok(r) => r,
                    Err(e) => {
                        cells.push(format!("pass failed: {e}"));
                        failed = true;
                        continue;
                    }
                };
                let wall = t0.elapsed().as_secs_f64() * 1e3;
                let k = rep.kernels[0].clone();
                let (equiv_cell, ratio) = check_equivalence(&original, &m, &k.name, file);
                if equiv_cell != "equal" {
                    failed = true;
                }
                let ptxas_cell = ptxas_accepts(ptxas, &m, file, level);
                if ptxas_cell == "REJECTED" {
                    failed = true;
                }
                if first.is_none() {
                    first = Some((k.clone(), wall));
                    cells.push(format!(
                        "{} | {} | {} | {equiv_cell} | {ratio}",
                        k.shuffles, k.checked, k.queries
                    ));
                } else {
                    cells.push(format!("{} | {ratio} | {ptxas_cell}", k.shuffles));
                }
            }
            let Some((k, wall)) = first else { continue };
            println!(
                "| {file} | {level} | {} | {hand} | {} | {:.1} (wall {wall:.1}) |",
                count_global_loads(&original, &k.name),
                cells.join(" | "),
                k.analysis_ms,
            );
        }
    }
    if failed {
        std::process::exit(1);
    }
}
