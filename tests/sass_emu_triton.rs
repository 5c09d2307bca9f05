//! Cross-validation of the SASS emulator on tensor-core cubins (issue 15): Triton 3.6's sm_80
//! kernels (fp16 and int8 matmuls — `HMMA.16816.F32`, `IMMA.16832.S8.S8.SAT`, `LDSM.16.M88.4`,
//! `LDSM.16.MT88.4`, `LDGSTS`, `LDGDEPBAR`, `DEPBAR.LE SB0` —, attention, layer norm, softmax)
//! and sm_90a kernels (fp16, int8 and fp8 matmuls and attention — `HGMMA`, `IGMMA`, `QGMMA`,
//! `WARPGROUP.ARRIVE/DEPBAR`) are assembled by ptxas with `--fmad=false` and run on both
//! emulators with the same launch spec (`<case>.spec.json`, written by tests/emu_triton.rs's
//! `spec`) and inputs.
//!
//! Fixtures: tests/data/triton/sm_80 and sm_90 (the kernels that tests/emu_triton.rs also runs)
//! and tests/data/sass_triton/sm_80 and sm_90 (Triton's PTX unchanged, metadata trimmed to the
//! launch-relevant fields). Every output byte must be equal, except for kernels whose PTX uses
//! `.approx` instructions (`ex2.approx`: ptxas may expand them to `MUFU` sequences with range
//! scaling the PTX emulator does not model), compared per f32 element with
//! |x − y| ≤ 10⁻⁴ · max(1, |x|, |y|) — the tolerance of tests/sass_emu.rs —, per f16 element
//! within one ulp, and exactly for every other type. The largest difference seen is printed.
//! `div.full` needs no tolerance: the PTX emulator computes it as ptxas's `MUFU.RCP` sequence
//! (src/emu/concrete.rs, `div_full`), and every case here is bit-equal.
//!
//! The fp16 matmul also runs as sm_86 and sm_89 cubins (same encodings). With
//! `WARPSMITH_TRITON_DIR` naming `compile_suite.py --out` folders, every `sm_80/<case>.ptx` and
//! `sm_90/<case>.ptx` there that has a `<case>.spec.json` runs too (the whole suite: about 30 s
//! more in a debug build); with `WARPSMITH_TRITON_DIR_ONLY=1` as well, only those (for an
//! assembler too old for the fixtures' PTX ISA: Triton 3.3's ptxas 12.4 reads up to 8.4).
//!
//! Kernels that move tiles with TMA (`cp.async.bulk.tensor`: Triton's tensor descriptors) run
//! too: `ELECT`, `SYNCS.*` (mbarriers), `UTMALDG`/`UTMASTG` and `STSM` (docs/sass.md).
//!
//! Prints `SKIPPED: <tool> not found` and passes when ptxas or nvdisasm is absent.

mod common;

use std::path::{Path, PathBuf};

use warpsmith::emu::launch::{ElemType, OutBuffer, RunOptions};
use warpsmith::emu::{run, LaunchSpec};
use warpsmith::ptx::parse_module;
use warpsmith::sass::emu::decode::Class;
use warpsmith::sass::emu::SassProgram;
use warpsmith::tools::{self, Tool};

/// Fixture folders and the architecture their PTX is assembled for.
const DIRS: [(&str, &str); 4] = [
    ("tests/data/triton/sm_80", "sm_80"),
    ("tests/data/sass_triton/sm_80", "sm_80"),
    ("tests/data/triton/sm_90", "sm_90a"),
    ("tests/data/sass_triton/sm_90", "sm_90a"),
];

/// Architectures of the extra runs of the fp16 matmul fixture.
const OTHER_ARCHS: [&str; 2] = ["sm_86", "sm_89"];

/// One case's result.
struct Row {
    case: String,
    arch: &'static str,
    warp_insts: u64,
    tensor_insts: u64,
    outcome: Result<String, String>,
}

/// (PTX file, architecture) pairs to run.
fn cases() -> Vec<(PathBuf, &'static str)> {
    let root = common::repo_root();
    let dir_only = std::env::var_os("WARPSMITH_TRITON_DIR_ONLY").is_some_and(|v| v == "1");
    let mut dirs: Vec<(PathBuf, &'static str)> = if dir_only {
        Vec::new()
    } else {
        DIRS.iter().map(|(d, a)| (root.join(d), *a)).collect()
    };
    if let Some(dir) = std::env::var_os("WARPSMITH_TRITON_DIR") {
        dirs.push((Path::new(&dir).join("sm_80"), "sm_80"));
        dirs.push((Path::new(&dir).join("sm_90"), "sm_90a"));
    }
    let mut out: Vec<(PathBuf, &'static str)> = Vec::new();
    for (d, arch) in dirs {
        let mut v = common::files_with_ext(&d, "ptx");
        v.retain(|p| p.with_extension("spec.json").exists());
        v.sort();
        out.extend(v.into_iter().map(|p| (p, arch)));
    }
    let fp16: Vec<PathBuf> = out
        .iter()
        .filter(|(p, a)| *a == "sm_80" && p.ends_with("triton/sm_80/matmul_fp16_64x64x32.ptx"))
        .map(|(p, _)| p.clone())
        .collect();
    for p in fp16 {
        out.extend(OTHER_ARCHS.iter().map(|a| (p.clone(), *a)));
    }
    out
}

/// Compares the output buffers: `Ok(summary)` when equal (or, with `approx`, within the
/// tolerance), else the first difference.
fn compare(ptx: &[OutBuffer], sass: &[OutBuffer], approx: bool) -> Result<String, String> {
    let mut worst = 0f64;
    let mut differ = 0usize;
    for x in ptx.iter().filter(|x| x.arg.is_some()) {
        let y = sass
            .iter()
            .find(|y| y.name == x.name)
            .ok_or_else(|| format!("{} missing", x.name))?;
        if x.data == y.data {
            continue;
        }
        if !approx || x.data.len() != y.data.len() {
            return Err(first_difference(x, y));
        }
        if x.ty == ElemType::F16 {
            // An f32 quotient 1 ulp apart (`div.full`) can round to neighbouring f16 values:
            // those may differ by one f16 ulp, nothing more.
            for (a, b) in x.data.chunks(2).zip(y.data.chunks(2)) {
                let (a, b) = (
                    u16::from_le_bytes([a[0], a[1]]),
                    u16::from_le_bytes([b[0], b[1]]),
                );
                if a == b {
                    continue;
                }
                if a >> 15 != b >> 15 || (a as i32 - b as i32).abs() > 1 {
                    return Err(first_difference(x, y));
                }
                differ += 1;
            }
            continue;
        }
        if x.ty != ElemType::F32 {
            return Err(first_difference(x, y));
        }
        for (a, b) in x.data.chunks(4).zip(y.data.chunks(4)) {
            let a = f32::from_le_bytes([a[0], a[1], a[2], a[3]]);
            let b = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            if a.to_bits() == b.to_bits() || a.is_nan() && b.is_nan() {
                continue;
            }
            let rel = f64::from((a - b).abs()) / f64::from(a.abs().max(b.abs()).max(1.0));
            if rel > 1e-4 {
                return Err(first_difference(x, y));
            }
            differ += 1;
            worst = worst.max(rel);
        }
    }
    Ok(if differ == 0 {
        "bit-equal".into()
    } else {
        format!("within tolerance: {differ} element(s) differ, max relative f32 {worst:.1e}")
    })
}

fn first_difference(x: &OutBuffer, y: &OutBuffer) -> String {
    let es = x.ty.size();
    let i = (0..x.data.len().min(y.data.len()) / es)
        .find(|&i| x.data[i * es..(i + 1) * es] != y.data[i * es..(i + 1) * es])
        .unwrap_or(0);
    format!(
        "{} element {i}: ptx {} vs sass {}",
        x.name,
        x.ty.format(&x.data[i * es..(i + 1) * es]),
        x.ty.format(&y.data[i * es..(i + 1) * es])
    )
}

fn run_case(ptxas: &Path, (ptx, arch): &(PathBuf, &'static str)) -> Row {
    let case = ptx.file_stem().unwrap().to_string_lossy().to_string();
    let text = std::fs::read_to_string(ptx).expect("PTX");
    let spec = LaunchSpec::from_json(
        &std::fs::read_to_string(ptx.with_extension("spec.json")).expect("spec"),
    )
    .expect("spec parses");
    let module = parse_module(&text, &format!("{case}.ptx")).expect("PTX parses");
    let opts = |file: String| RunOptions {
        file,
        ..RunOptions::default()
    };
    let pr = run(&module, &spec, &opts(format!("{case}.ptx")))
        .unwrap_or_else(|e| panic!("{case}: PTX emulator: {e}"));
    let prog =
        SassProgram::from_cubin(&common::assemble_cubin(ptxas, ptx, arch, &["--fmad=false"]))
            .expect("cubin reads");
    let (warp_insts, tensor_insts, outcome) =
        match warpsmith::sass::emu::run(&prog, &spec, &opts(format!("{case}.{arch}.cubin"))) {
            Err(e) => (0, 0, Err(format!("SASS emulator: {e}"))),
            Ok(sr) => {
                let approx = text.contains(".approx");
                (
                    sr.stats.warp_insts,
                    sr.stats.by_class[Class::Tensor as usize],
                    compare(&pr.buffers, &sr.buffers, approx),
                )
            }
        };
    Row {
        case,
        arch,
        warp_insts,
        tensor_insts,
        outcome,
    }
}

#[test]
fn triton_sm80_cubins_match_their_ptx() {
    let mut found = Vec::new();
    for t in [Tool::Ptxas, Tool::Nvdisasm] {
        match tools::find(t) {
            Ok(p) => found.push(p),
            Err(_) => {
                eprintln!("SKIPPED: {} not found", t.name());
                return;
            }
        }
    }
    let cases = cases();
    assert!(cases.len() >= 8, "fixtures missing: {cases:?}");
    let t0 = std::time::Instant::now();
    let rows = common::parallel_map(&cases, |p| run_case(&found[0], p));
    eprintln!(
        "{:<24} {:<6} {:>12} {:>8}  result",
        "case", "arch", "warp-insts", "tensor"
    );
    for r in &rows {
        let o = match &r.outcome {
            Ok(s) => s.clone(),
            Err(e) => format!("MISMATCH {e}"),
        };
        eprintln!(
            "{:<24} {:<6} {:>12} {:>8}  {o}",
            r.case, r.arch, r.warp_insts, r.tensor_insts
        );
    }
    eprintln!(
        "{} cases in {:.1} s",
        rows.len(),
        t0.elapsed().as_secs_f64()
    );
    for r in &rows {
        if let Err(e) = &r.outcome {
            panic!("{} ({}): {e}", r.case, r.arch);
        }
        if r.case.starts_with("matmul") || r.case.starts_with("attn") {
            assert!(
                r.tensor_insts > 0,
                "{}: no tensor-core instruction ran",
                r.case
            );
        }
    }
}
