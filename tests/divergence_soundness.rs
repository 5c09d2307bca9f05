//! Soundness of the PTX divergence analysis, checked dynamically with the emulator (issue 4):
//! the bench kernels (bench/kernels/*.cu, compiled by clang-22 at -O3 and -O0) run under several
//! launch shapes — 1-D, 2-D, incomplete warps — instrumented by
//! `warpsmith::analysis::divergence::soundness`, and every claim the analysis makes about a
//! register (uniform in the warp or the block, constant, affine in the lane) is checked at every
//! read and write. Zero violations are allowed.

mod common;

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use warpsmith::analysis::divergence::soundness::{check_launch, CheckReport, SoundnessError};
use warpsmith::analysis::divergence::Options;
use warpsmith::emu::launch::{spec_for, Hints};
use warpsmith::ptx::{parse_module, FuncKind, Module};

/// The bench kernels compiled once per test process, or `None` when clang-22 is missing.
fn kernels_dir() -> Option<&'static PathBuf> {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    DIR.get_or_init(|| {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("divergence-kernels");
        let status = Command::new("bash")
            .arg(root.join("scripts/compile-kernels.sh"))
            .arg(&out)
            .output();
        match status {
            Ok(o) if o.status.success() => Some(out),
            Ok(o) => {
                eprintln!(
                    "SKIPPED: compile-kernels.sh failed: {}",
                    String::from_utf8_lossy(&o.stderr)
                );
                None
            }
            Err(e) => {
                eprintln!("SKIPPED: cannot run compile-kernels.sh: {e}");
                None
            }
        }
    })
    .as_ref()
}

fn load(name: &str) -> Option<Module> {
    load_from(kernels_dir()?, name)
}

fn load_from(dir: &std::path::Path, name: &str) -> Option<Module> {
    let text = std::fs::read_to_string(dir.join(name)).ok()?;
    Some(parse_module(&text, name).unwrap_or_else(|e| panic!("{name} does not parse: {e}")))
}

struct Shape {
    name: &'static str,
    grid: &'static [u32],
    block: &'static [u32],
}

const SHAPES: &[Shape] = &[
    Shape {
        name: "1-D",
        grid: &[2],
        block: &[64],
    },
    Shape {
        name: "incomplete warps",
        grid: &[2],
        block: &[48],
    },
    Shape {
        name: "2-D",
        grid: &[2, 1],
        block: &[16, 4],
    },
    Shape {
        name: "2-D aligned",
        grid: &[1, 2],
        block: &[32, 2],
    },
];

/// Runs one kernel under one shape; `Ok(None)` when the emulator cannot run it (a kernel that
/// needs particular inputs), `Err` on a violation.
fn check(m: &Module, kernel: &str, shape: &Shape) -> Result<Option<CheckReport>, String> {
    let f = m.function(kernel).expect("kernel exists");
    let mut last_err = String::new();
    for init in ["random", "zero"] {
        let hints = common::generic_hints(f, shape.grid, shape.block, init);
        let Ok(mut spec) = spec_for(f, &hints) else {
            return Ok(None);
        };
        spec.max_instructions = Some(4_000_000);
        let opts = Options {
            block_dim: Some(common::dim3(shape.block)),
            ..Options::default()
        };
        match check_launch(m, kernel, &spec, &opts, 1 << 16) {
            Ok(r) => {
                if !r.violations.is_empty() {
                    return Err(format!("{kernel} ({}): {:#?}", shape.name, r.violations));
                }
                return Ok(Some(r));
            }
            Err(SoundnessError::Emulator(e)) => last_err = e,
            Err(e) => return Err(format!("{kernel} ({}): {e}", shape.name)),
        }
    }
    eprintln!("  not run: {kernel} ({}): {last_err}", shape.name);
    Ok(None)
}

#[derive(Default)]
struct Totals {
    kernels: std::collections::BTreeSet<String>,
    launches: usize,
    truncated: usize,
    records: u64,
    groups: u64,
    block_groups: u64,
    failures: Vec<String>,
}

fn check_file(dir: &std::path::Path, file: &str, totals: &std::sync::Mutex<Totals>) {
    let Some(m) = load_from(dir, file) else {
        return;
    };
    let names: Vec<String> = m
        .functions()
        .filter(|f| f.kind == FuncKind::Entry && f.body.is_some())
        .map(|f| f.name.to_string())
        .collect();
    // -O0 code keeps nearly everything in local memory (divergent): one shape is enough.
    let shapes = if file.contains(".O0.") {
        &SHAPES[..1]
    } else {
        SHAPES
    };
    for k in names {
        for shape in shapes {
            let t0 = std::time::Instant::now();
            let res = check(&m, &k, shape);
            if std::env::var_os("WS_TIMING").is_some() {
                eprintln!(
                    "TIME {:.3} {file} {k} {}",
                    t0.elapsed().as_secs_f64(),
                    shape.name
                );
            }
            let mut t = totals.lock().expect("totals");
            match res {
                Ok(Some(r)) => {
                    t.launches += 1;
                    t.truncated += usize::from(r.truncated);
                    t.records += r.records;
                    t.groups += r.warp_groups;
                    t.block_groups += r.block_groups;
                    t.kernels.insert(format!("{file}:{k}"));
                }
                Ok(None) => {}
                Err(e) => t.failures.push(e),
            }
        }
    }
}

/// The checker finds wrong claims: analysed as if blocks were 1-D (64 threads) but launched as
/// 16x4 blocks, %tid.x is not `lane + b` and %tid.y is not 0.
#[test]
fn wrong_assumptions_are_caught() {
    let Some(m) = load("stencil2d.sm_80.O3.ptx") else {
        return;
    };
    let kernel = m
        .functions()
        .find(|f| f.kind == FuncKind::Entry && f.body.is_some())
        .map(|f| f.name.to_string())
        .expect("a kernel");
    let f = m.function(&kernel).expect("kernel");
    let mut hints = Hints::new().grid(&[1]).block(&[16, 4]).len(1 << 14);
    for (i, p) in f.param_list().iter().enumerate() {
        if p.size_bytes() != 8 {
            hints = hints.scalar(i, 8);
        }
    }
    let spec = spec_for(f, &hints).expect("spec");
    let wrong = Options {
        block_dim: Some([64, 1, 1]),
        ..Options::default()
    };
    let r = check_launch(&m, &kernel, &spec, &wrong, 1 << 16).expect("runs");
    assert!(
        !r.violations.is_empty(),
        "a wrong block shape must be caught"
    );
    let right = Options {
        block_dim: Some([16, 4, 1]),
        ..Options::default()
    };
    let r = check_launch(&m, &kernel, &spec, &right, 1 << 16).expect("runs");
    assert!(r.violations.is_empty(), "{:#?}", r.violations);
}

#[test]
fn bench_kernels_have_no_violations() {
    let Some(dir) = kernels_dir() else {
        return;
    };
    let t = check_dir(dir, |n| {
        n.ends_with(".sm_80.O3.ptx") || n.ends_with(".sm_80.O0.ptx")
    });
    assert!(
        t.kernels.len() >= 30,
        "only {} kernels ran",
        t.kernels.len()
    );
}

/// The same check on PTX from NVIDIA's own front end (NVRTC, the compiler inside nvcc), whose
/// code the analysis was not written against: its typed registers, `mul.wide`/`cvta` addressing
/// and loop shapes (scripts/compile-kernels-nvrtc.py).
#[test]
fn nvrtc_kernels_have_no_violations() {
    let Some(dir) = common::nvrtc_kernels_dir("nvrtc_kernels_have_no_violations") else {
        return;
    };
    let t = check_dir(dir, |n| n.ends_with(".sm_80.nvrtc.ptx"));
    assert!(
        t.kernels.len() >= 90,
        "only {} kernels ran",
        t.kernels.len()
    );
}

/// Checks every file of `dir` that `wanted` accepts on every shape, prints the totals and fails
/// on any violation.
fn check_dir(dir: &std::path::Path, wanted: impl Fn(&str) -> bool) -> Totals {
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .expect("kernel dir")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| wanted(n))
        .collect();
    files.sort();
    let totals = std::sync::Mutex::new(Totals::default());
    common::parallel_map(&files, |file| check_file(dir, file, &totals));
    let t = totals.into_inner().expect("totals");
    let distinct: std::collections::BTreeSet<&str> = t
        .kernels
        .iter()
        .filter_map(|k| k.split(':').nth(1))
        .collect();
    eprintln!(
        "soundness ({}): {} distinct kernels ({} kernel/level pairs), {} launches ({} with a \
         truncated trace), {} records, {} warp groups, {} multi-warp block groups, {} failures",
        dir.display(),
        distinct.len(),
        t.kernels.len(),
        t.launches,
        t.truncated,
        t.records,
        t.groups,
        t.block_groups,
        t.failures.len()
    );
    assert!(t.failures.is_empty(), "{}", t.failures.join("\n"));
    t
}

/// `or` with disjoint bits and `bfe` (issue 12: what Triton's index arithmetic does with `tid`):
/// `(warp << 5) | lane` is the thread index again (affine), `bfe.u32 tid, 5, 3` the warp index
/// (uniform in the warp), `(tid << 2) | 1` affine with coefficient 4, `bfe.s32 tid, 0, 5` the lane
/// sign-extended from 5 bits (not affine: it wraps at lane 16). The classes are checked on the
/// emulator with the instrumented kernel (every value of every lane).
#[test]
fn disjoint_or_and_bit_fields_are_sound() {
    let text = "
.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 k_out)
.reqntid 128, 1, 1
{
  .reg .b32 %r<20>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [k_out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  shr.u32 %r2, %r1, 5;
  shl.b32 %r3, %r2, 5;
  and.b32 %r4, %r1, 31;
  or.b32 %r5, %r3, %r4;
  bfe.u32 %r6, %r1, 5, 3;
  shl.b32 %r7, %r1, 2;
  or.b32 %r8, %r7, 1;
  bfe.s32 %r9, %r1, 0, 5;
  or.b32 %r10, %r4, 1;
  add.s32 %r11, %r5, %r6;
  add.s32 %r12, %r11, %r8;
  add.s32 %r13, %r12, %r9;
  add.s32 %r14, %r13, %r10;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r14;
  ret;
}
";
    let m = warpsmith::ptx::parse_module(text, "or_bfe.ptx").expect("parses");
    let opts = Options::default();
    let r = warpsmith::analysis::divergence::analyze_module(&m, &opts);
    let f = &r[0];
    let class = |reg: &str| {
        f.registers
            .iter()
            .find(|x| x.name == reg)
            .map(|x| x.class.to_string())
            .unwrap_or_default()
    };
    assert_eq!(class("%r5"), "affine coef=1 scope=warp");
    assert_eq!(class("%r6"), "uniform scope=warp");
    assert_eq!(class("%r8"), "affine coef=4 scope=warp");
    assert_eq!(class("%r9"), "divergent");
    assert_eq!(class("%r10"), "divergent");
    let func = m.function("k").expect("kernel");
    let spec = spec_for(func, &Hints::new().grid(&[2]).block(&[128]).len(256)).expect("spec");
    let rep = check_launch(&m, "k", &spec, &opts, 1 << 16).expect("runs");
    assert!(rep.violations.is_empty(), "{:#?}", rep.violations);
    assert!(rep.registers_checked >= 10, "{rep:?}");
}

/// Any PTX with its launch beside it (`X.ptx` and `X.spec.json`, the emulator's launch spec) in
/// the folder `WARPSMITH_SPEC_PTX_DIR` names: the claims are checked with the launch's block
/// shape given to the analysis and without it. For corpora the test command does not build,
/// e.g. Numba's PTX (bench/numba/compile_kernels.py). Skipped when the variable is unset.
#[test]
fn ptx_with_specs_from_environment() {
    use warpsmith::emu::launch::LaunchSpec;
    let Some(dir) = std::env::var_os("WARPSMITH_SPEC_PTX_DIR") else {
        eprintln!("SKIPPED (ptx_with_specs_from_environment): WARPSMITH_SPEC_PTX_DIR is not set");
        return;
    };
    let files = common::files_with_ext(std::path::Path::new(&dir), "ptx");
    assert!(!files.is_empty(), "no .ptx files in {dir:?}");
    let mut failures = Vec::new();
    let (mut launches, mut records) = (0, 0);
    for p in &files {
        let text = std::fs::read_to_string(p).expect("read");
        let name = p.display().to_string();
        let m = parse_module(&text, &name).unwrap_or_else(|e| panic!("{e}"));
        let spec_text = std::fs::read_to_string(p.with_extension("spec.json"))
            .unwrap_or_else(|e| panic!("{name}: no launch spec beside it: {e}"));
        let spec = LaunchSpec::from_json(&spec_text).unwrap_or_else(|e| panic!("{name}: {e}"));
        for block_dim in [Some(common::dim3(&spec.block)), None] {
            let opts = Options {
                block_dim,
                ..Options::default()
            };
            match check_launch(&m, &spec.kernel, &spec, &opts, 1 << 18) {
                Ok(r) => {
                    launches += 1;
                    records += r.records;
                    if !r.violations.is_empty() {
                        failures.push(format!("{name} ({block_dim:?}): {:#?}", r.violations));
                    }
                }
                Err(e) => failures.push(format!("{name}: {e}")),
            }
        }
    }
    eprintln!(
        "soundness ({}): {} files, {launches} launches, {records} records, {} failures",
        std::path::Path::new(&dir).display(),
        files.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
