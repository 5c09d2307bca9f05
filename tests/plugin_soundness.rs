//! Soundness of the divergence analysis on LLVM IR — the pass plugin's front end — checked
//! dynamically with the PTX emulator, as tests/divergence_soundness.rs checks the PTX front end.
//!
//! The bench kernels (bench/kernels/*.cu) are compiled by clang-22 to LLVM IR (sm_80, -O3 under
//! four launch shapes — the fourth 1-D with the block size not told, as
//! `-affine-divergence-assume-1d` users run it — and -O0 under one);
//! `opt` with the plugin's `warpsmith-trace-divergence` pass (src/plugin/shim.cpp) analyses each
//! kernel for a launch shape and writes, after the definition of every value it does not call
//! divergent, a trace record of the value on each lane, and the claims to a file; `llc` makes
//! PTX of the instrumented IR; the emulator runs it and returns the trace (the module array
//! `__warpsmith_trace`), which `soundness::check_records` checks against the claims: uniform
//! values are one value on the lanes of a warp-instruction, constants that value, affine values
//! `coef·lane + b` modulo `2^width`, and block-scoped ones the same `b` in every warp of the CTA
//! at the same instruction and loop iteration (the pass counts natural loops' iterations; in a
//! function with an irreducible cycle only the warp level is checked).
//!
//! Skipped with a message when clang-22, opt, llc or a plugin built with the C++ shim is
//! missing (the plugin is target/debug/libwarpsmith.so, or WARPSMITH_PLUGIN: `cargo build`
//! makes it).

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use warpsmith::analysis::divergence::soundness::{check_records, CheckReport, Claim};
use warpsmith::emu::launch::spec_for;
use warpsmith::emu::{run, RunOptions, RunOutput};
use warpsmith::plugin::WsResult;
use warpsmith::ptx::{parse_module, FuncKind};

const LLVM_BIN: &str = "/usr/lib/llvm-22/bin";
/// Records the trace holds (the pass's -warpsmith-trace-capacity).
const CAPACITY: u64 = 1 << 16;
/// The same for Triton's kernels (matmuls log more than a bench kernel).
const TRITON_CAPACITY: u64 = 1 << 19;

struct Tools {
    clang: PathBuf,
    opt: PathBuf,
    llc: PathBuf,
    plugin: PathBuf,
}

fn tool(env: &str, name: &str) -> Option<PathBuf> {
    let p = std::env::var_os(env)
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(LLVM_BIN).join(name));
    p.is_file().then_some(p)
}

fn tools() -> Option<Tools> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let plugin = std::env::var_os("WARPSMITH_PLUGIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target/debug/libwarpsmith.so"));
    let found = (
        tool("WARPSMITH_CLANG", "clang"),
        tool("WARPSMITH_OPT", "opt"),
        tool("WARPSMITH_LLC", "llc"),
    );
    let (Some(clang), Some(opt), Some(llc)) = found else {
        eprintln!("SKIPPED: clang, opt or llc of LLVM 22 not found");
        return None;
    };
    // The shim registers the pass; a plugin built without LLVM 22 has no passes.
    let shim = std::fs::read(&plugin)
        .map(|b| b.windows(26).any(|w| w == b"warpsmith-trace-divergence"))
        .unwrap_or(false);
    if !shim {
        eprintln!(
            "SKIPPED: {} is missing or was built without the C++ shim (cargo build with LLVM 22)",
            plugin.display()
        );
        return None;
    }
    Some(Tools {
        clang,
        opt,
        llc,
        plugin,
    })
}

struct Shape {
    name: &'static str,
    grid: &'static [u32],
    block: [u32; 3],
    /// Whether the analysis is given the block (`-affine-divergence-block-dim`); otherwise it
    /// only assumes 1-D blocks of unknown size (`-affine-divergence-assume-1d`).
    known: bool,
}

const SHAPES: &[Shape] = &[
    Shape {
        name: "1-D",
        grid: &[2],
        block: [64, 1, 1],
        known: true,
    },
    Shape {
        name: "incomplete warps",
        grid: &[2],
        block: [48, 1, 1],
        known: true,
    },
    Shape {
        name: "2-D",
        grid: &[2, 1],
        block: [16, 4, 1],
        known: true,
    },
    Shape {
        name: "1-D, size not told",
        grid: &[2],
        block: [64, 1, 1],
        known: false,
    },
];

fn sh(cmd: &mut Command) -> Result<(), String> {
    let out = cmd.output().map_err(|e| format!("{cmd:?}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{cmd:?}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// Claims by kernel, then by value id, from the pass's claims file.
fn read_claims(path: &Path) -> Claims {
    let text = std::fs::read_to_string(path).expect("claims file");
    let mut out: HashMap<String, HashMap<u64, Claim>> = HashMap::new();
    for line in text.lines() {
        let f: Vec<&str> = line.splitn(8, '\t').collect();
        assert_eq!(f.len(), 8, "claims line: {line}");
        let num = |k: usize| f[k].parse::<i64>().expect("number");
        let r = WsResult {
            cls: num(1) as u32,
            scope: num(2) as u32,
            coef: num(3),
            base: num(4),
        };
        out.entry(f[6].to_string()).or_default().insert(
            num(0) as u64,
            Claim {
                class: r.to_class(),
                width: (num(5) as u32).clamp(1, 64),
                name: f[7].to_string(),
            },
        );
    }
    out
}

#[derive(Default)]
struct Totals {
    launches: usize,
    records: u64,
    groups: u64,
    block_groups: u64,
    values: usize,
    truncated: usize,
    not_run: Vec<String>,
    failures: Vec<String>,
}

impl Totals {
    /// Counts one checked launch.
    fn add_report(&mut self, r: &CheckReport) {
        self.launches += 1;
        self.records += r.records;
        self.groups += r.warp_groups;
        self.block_groups += r.block_groups;
        self.values += r.registers_checked;
        self.truncated += usize::from(r.truncated);
    }

    /// Adds another total to this one.
    fn merge(&mut self, o: Totals) {
        self.launches += o.launches;
        self.records += o.records;
        self.groups += o.groups;
        self.block_groups += o.block_groups;
        self.values += o.values;
        self.truncated += o.truncated;
        self.not_run.extend(o.not_run);
        self.failures.extend(o.failures);
    }
}

/// The trace of a run of an instrumented kernel (the module array `__warpsmith_trace`) checked
/// against `claims` (by value id), for blocks of `block`.
fn check_trace(
    out: &RunOutput,
    claims: &HashMap<u64, Claim>,
    capacity: u64,
    block: [u32; 3],
) -> CheckReport {
    let trace = out
        .buffers
        .iter()
        .find(|b| b.name == "__warpsmith_trace")
        .expect("the trace array is a module variable");
    let claim = |head: u64| claims.get(&(head & 0x7fff_ffff)).cloned();
    check_records(&trace.data, capacity, block, &claim, true)
}

/// One kernel of the instrumented PTX under one shape.
fn check_kernel(
    m: &warpsmith::ptx::Module,
    kernel: &str,
    shape: &Shape,
    claims: &HashMap<u64, Claim>,
    t: &mut Totals,
) {
    let f = m.function(kernel).expect("kernel exists");
    let mut last_err = String::new();
    for init in ["random", "zero"] {
        let block = &shape.block[..if shape.block[1] > 1 { 2 } else { 1 }];
        let hints = common::generic_hints(f, shape.grid, block, init);
        let mut spec = match spec_for(f, &hints) {
            Ok(s) => s,
            Err(e) => {
                t.not_run
                    .push(format!("{kernel} ({}): launch spec: {e}", shape.name));
                return;
            }
        };
        spec.max_instructions = Some(8_000_000);
        let out = match run(m, &spec, &RunOptions::default()) {
            Ok(o) => o,
            Err(e) => {
                last_err = e.to_string();
                continue;
            }
        };
        let r = check_trace(&out, claims, CAPACITY, shape.block);
        t.add_report(&r);
        if !r.violations.is_empty() {
            t.failures
                .push(format!("{kernel} ({}): {:#?}", shape.name, r.violations));
        }
        return;
    }
    t.not_run
        .push(format!("{kernel} ({}): {last_err}", shape.name));
}

type Claims = HashMap<String, HashMap<u64, Claim>>;

/// `ll` analysed for blocks of `block` (`None`: 1-D blocks of unknown size) and instrumented
/// (`opt` with the plugin), then made PTX (`llc`): the parsed PTX and the claims. `out`: the
/// path prefix of the files written.
fn instrument(
    tools: &Tools,
    ll: &Path,
    out: &Path,
    block: Option<[u32; 3]>,
    capacity: u64,
    cpu: &str,
) -> Result<(warpsmith::ptx::Module, Claims), String> {
    let with = |ext: &str| PathBuf::from(format!("{}.{ext}", out.display()));
    let (inst, claims, ptx) = (with("ll"), with("claims"), with("ptx"));
    let shape_option = match block {
        Some([x, y, z]) => format!("-affine-divergence-block-dim={x},{y},{z}"),
        None => "-affine-divergence-assume-1d".to_string(),
    };
    sh(Command::new(&tools.opt)
        .arg(format!("-load-pass-plugin={}", tools.plugin.display()))
        .arg("-passes=warpsmith-trace-divergence")
        .arg(format!("-warpsmith-trace-claims={}", claims.display()))
        .arg(format!("-warpsmith-trace-capacity={capacity}"))
        .arg(shape_option)
        .arg("-S")
        .arg(ll)
        .arg("-o")
        .arg(&inst))?;
    sh(Command::new(&tools.llc)
        .arg(format!("-mcpu={cpu}"))
        .arg(if cpu == "sm_80" {
            "-mattr=+ptx80"
        } else {
            "-mattr=+ptx87"
        })
        .arg(&inst)
        .arg("-o")
        .arg(&ptx))?;
    let text = std::fs::read_to_string(&ptx).map_err(|e| e.to_string())?;
    let m = parse_module(&text, &ptx.display().to_string()).map_err(|e| e.to_string())?;
    Ok((m, read_claims(&claims)))
}

/// clang-22's LLVM IR of `cu` (sm_80, optimisation `level`) at `ll`.
fn compile(tools: &Tools, cu: &Path, ll: &Path, level: &str) -> Result<(), String> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    sh(Command::new(&tools.clang)
        .args([
            "-x",
            "cuda",
            "--cuda-device-only",
            "-nocudainc",
            "-nocudalib",
        ])
        .args([
            "--cuda-gpu-arch=sm_80",
            "--cuda-feature=+ptx80",
            "-S",
            "-emit-llvm",
        ])
        .arg(level)
        .arg("-include")
        .arg(root.join("bench/kernels/prelude.h"))
        .arg(cu)
        .arg("-o")
        .arg(ll))
}

/// One .cu file: LLVM IR once, then per shape the instrumented PTX and every kernel's run.
fn check_file(cu: &Path, tools: &Tools, work: &Path, t: &std::sync::Mutex<Totals>) {
    for level in ["-O3", "-O0"] {
        let stem = format!("{}{level}", cu.file_stem().unwrap().to_string_lossy());
        let ll = work.join(format!("{stem}.ll"));
        if let Err(e) = compile(tools, cu, &ll, level) {
            t.lock().unwrap().failures.push(e);
            return;
        }
        // -O0 code keeps nearly every value in memory (loads: divergent): one shape is enough.
        let shapes = if level == "-O0" { &SHAPES[..1] } else { SHAPES };
        check_level(&ll, &stem, shapes, tools, work, t);
    }
}

/// The kernels of `ll` under each of `shapes`.
fn check_level(
    ll: &Path,
    stem: &str,
    shapes: &[Shape],
    tools: &Tools,
    work: &Path,
    t: &std::sync::Mutex<Totals>,
) {
    for (k, shape) in shapes.iter().enumerate() {
        let (m, claims) = match instrument(
            tools,
            ll,
            &work.join(format!("{stem}.{k}")),
            shape.known.then_some(shape.block),
            CAPACITY,
            "sm_80",
        ) {
            Ok(x) => x,
            Err(e) => {
                t.lock().unwrap().failures.push(e);
                return;
            }
        };
        let kernels: Vec<String> = m
            .functions()
            .filter(|f| f.kind == FuncKind::Entry && f.body.is_some())
            .map(|f| f.name.to_string())
            .collect();
        for kernel in kernels {
            let Some(c) = claims.get(&kernel) else {
                continue;
            };
            let mut local = Totals::default();
            check_kernel(&m, &kernel, shape, c, &mut local);
            t.lock().unwrap().merge(local);
        }
    }
}

#[test]
fn bench_kernels_claims_hold_on_llvm_ir() {
    let Some(tools) = tools() else {
        return;
    };
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("plugin-soundness");
    std::fs::create_dir_all(&work).expect("work dir");
    let mut files: Vec<PathBuf> = std::fs::read_dir(root.join("bench/kernels"))
        .expect("bench/kernels")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "cu"))
        .collect();
    files.sort();
    let totals = std::sync::Mutex::new(Totals::default());
    common::parallel_map(&files, |cu| check_file(cu, &tools, &work, &totals));
    let t = totals.into_inner().expect("totals");
    for n in &t.not_run {
        eprintln!("  not run: {n}");
    }
    eprintln!(
        "plugin soundness: {} launches ({} with a truncated trace), {} records, {} warp groups, \
         {} multi-warp block groups, {} values checked, {} not run, {} failures",
        t.launches,
        t.truncated,
        t.records,
        t.groups,
        t.block_groups,
        t.values,
        t.not_run.len(),
        t.failures.len()
    );
    assert!(t.failures.is_empty(), "{}", t.failures.join("\n"));
    assert!(t.launches >= 60, "only {} launches ran", t.launches);
}

/// The check finds wrong claims: the stencil analysed for 1-D blocks of 64 threads but launched
/// as 16x4 blocks, where `threadIdx.x` is not `lane + b` and `threadIdx.y` is not 0.
#[test]
fn wrong_block_shape_is_caught() {
    let Some(tools) = tools() else {
        return;
    };
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("plugin-soundness-wrong");
    std::fs::create_dir_all(&work).expect("work dir");
    let ll = work.join("stencil2d.ll");
    compile(&tools, &root.join("bench/kernels/stencil2d.cu"), &ll, "-O3").expect("clang");
    let launch = Shape {
        name: "2-D",
        grid: &[1],
        block: [16, 4, 1],
        known: true,
    };
    let outcome = |analysed_for: [u32; 3]| {
        let (m, claims) = instrument(
            &tools,
            &ll,
            &work.join("k"),
            Some(analysed_for),
            CAPACITY,
            "sm_80",
        )
        .expect("opt, llc");
        let mut t = Totals::default();
        for (kernel, c) in &claims {
            check_kernel(&m, kernel, &launch, c, &mut t);
        }
        assert!(t.launches > 0, "nothing ran: {:?}", t.not_run);
        t.failures
    };
    assert!(
        !outcome([64, 1, 1]).is_empty(),
        "a wrong block shape must be caught"
    );
    let right = outcome([16, 4, 1]);
    assert!(right.is_empty(), "{right:#?}");
}

/// Triton's own LLVM IR in tests/data/triton-llir: four kernels (layer norm, softmax and a
/// 64×64 fp16 matmul for sm_80, the same matmul with wgmma for sm_90a), each with an emulator
/// launch spec.
#[test]
fn triton_llir_in_the_repo() {
    let Some(tools) = tools() else {
        return;
    };
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/triton-llir");
    let t = check_llir_dir(&tools, &dir, "plugin-soundness-triton-data");
    assert!(t.failures.is_empty(), "{}", t.failures.join("\n"));
    assert_eq!(t.launches, 4, "not run: {:?}", t.not_run);
}

/// More of Triton's LLVM IR, when `WARPSMITH_TRITON_LLIR_DIR` names a folder of `<name>.ll`
/// (names containing `sm_90` are made for sm_90a, the others for sm_80; with the NVPTX triple:
/// Triton's `llir` has none) next to `<name>.spec.json` (an emulator launch spec of the kernel;
/// bench/gpu/prepare.py's triton_specs makes them).
#[test]
fn triton_llir_from_environment() {
    let Some(dir) = std::env::var_os("WARPSMITH_TRITON_LLIR_DIR") else {
        eprintln!("SKIPPED: WARPSMITH_TRITON_LLIR_DIR is not set");
        return;
    };
    let Some(tools) = tools() else {
        return;
    };
    let t = check_llir_dir(&tools, Path::new(&dir), "plugin-soundness-triton");
    assert!(t.failures.is_empty(), "{}", t.failures.join("\n"));
    assert!(t.launches > 0, "nothing ran");
}

/// Every `<name>.ll` of `dir` with a `<name>.spec.json`: analysed for the spec's block,
/// instrumented, run on the spec and checked.
fn check_llir_dir(tools: &Tools, dir: &Path, work: &str) -> Totals {
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(work);
    std::fs::create_dir_all(&work).expect("work dir");
    let mut specs: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("the LLVM IR folder")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".spec.json"))
        .collect();
    specs.sort();
    let mut t = Totals::default();
    for sp in &specs {
        let name = sp
            .file_name()
            .unwrap()
            .to_string_lossy()
            .replace(".spec.json", "");
        let ll = sp.with_file_name(format!("{name}.ll"));
        let text = std::fs::read_to_string(sp).expect("spec");
        let spec = warpsmith::emu::launch::LaunchSpec::from_json(&text).expect("spec parses");
        let block = common::dim3(&spec.block);
        // Triton's sm_90 kernels use wgmma: sm_90a.
        let cpu = if name.contains("sm_90") {
            "sm_90a"
        } else {
            "sm_80"
        };
        let (m, claims) = match instrument(
            tools,
            &ll,
            &work.join(&name),
            Some(block),
            TRITON_CAPACITY,
            cpu,
        ) {
            Ok(x) => x,
            Err(e) => {
                t.failures.push(e);
                continue;
            }
        };
        let Some(c) = claims.get(&spec.kernel) else {
            t.not_run
                .push(format!("{name}: no claims for {}", spec.kernel));
            continue;
        };
        let out = match run(&m, &spec, &RunOptions::default()) {
            Ok(o) => o,
            Err(e) => {
                t.not_run.push(format!("{name}: {e}"));
                continue;
            }
        };
        let r = check_trace(&out, c, TRITON_CAPACITY, block);
        eprintln!(
            "{name}: {} records, {} warp groups, {} block groups, {} values, truncated {}, {} \
             violations",
            r.records,
            r.warp_groups,
            r.block_groups,
            r.registers_checked,
            r.truncated,
            r.violations.len()
        );
        t.add_report(&r);
        if r.truncated {
            t.failures.push(format!("{name}: the trace filled up"));
        }
        if !r.violations.is_empty() {
            t.failures.push(format!("{name}: {:#?}", r.violations));
        }
    }
    for n in &t.not_run {
        eprintln!("  not run: {n}");
    }
    t
}
