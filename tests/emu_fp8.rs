//! The 8-bit float conversions (`cvt` to and from `e4m3x2`/`e5m2x2`, src/emu/fp8.rs):
//!
//! - against NVIDIA's host reference (`cuda_fp8.hpp`, compiled with clang++ from
//!   tests/data/fp8/reference.cpp): every f16 value, every midpoint between neighbouring 8-bit
//!   codes with the f32 values just below and above it, the largest finite values, infinities,
//!   NaNs and signed zeros; and every code's f16 value. Skipped, and said so, without clang++ or
//!   the CUDA headers of `scripts/setup.sh` (.tools/cuda/include);
//! - tests/data/fp8/fp8_forms.ptx (each form, with `.relu`) on the PTX emulator against ptxas's
//!   sm_89 and sm_90 cubins on the SASS emulator (`F2FP.SATFINITE.E4M3.F32.PACK_AB_MERGE_C`, …),
//!   every byte equal; also through CUDA 12.4's ptxas (Triton 3.3's, `.tools/triton-3.3`), which
//!   merges the destination's own high half (`… PACK_AB_MERGE_C R8, R0, R7, R8.H1`) where later
//!   assemblers merge `RZ`. Skipped, and said so, without ptxas or nvdisasm (or that ptxas).

mod common;

use std::path::PathBuf;
use std::process::Command;

use warpsmith::emu::fp8::Fp8;
use warpsmith::emu::launch::RunOptions;
use warpsmith::emu::{run, LaunchSpec};
use warpsmith::ptx::parse_module;
use warpsmith::sass::emu::SassProgram;
use warpsmith::tools::{self, Tool};

fn data(name: &str) -> PathBuf {
    common::repo_root().join("tests/data/fp8").join(name)
}

/// f32 inputs that exercise every rounding decision of both formats.
fn inputs() -> Vec<u32> {
    let mut v: Vec<u32> = (0..=u16::MAX)
        .map(|h| (warpsmith::emu::float::F16.to_f64(u64::from(h)) as f32).to_bits())
        .collect();
    for fmt in [Fp8::E4m3, Fp8::E5m2] {
        for code in 0..0x7fu8 {
            let (lo, hi) = (fmt.value(code), fmt.value(code + 1));
            if !(lo.is_finite() && hi.is_finite()) {
                continue;
            }
            let mid = ((lo + hi) / 2.0) as f32;
            for x in [
                mid,
                f32::from_bits(mid.to_bits() - 1),
                f32::from_bits(mid.to_bits() + 1),
            ] {
                v.push(x.to_bits());
                v.push((-x).to_bits());
            }
        }
    }
    for x in [
        448.0f32,
        464.0,
        465.0,
        57344.0,
        61440.0,
        61441.0,
        1e30,
        f32::MAX,
    ] {
        v.push(x.to_bits());
        v.push((-x).to_bits());
    }
    v.extend([
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0xffc0_0001,
        0x7f80_0001,
        0,
        0x8000_0000,
    ]);
    v
}

#[test]
fn conversions_match_cuda_fp8_hpp() {
    let include = common::repo_root().join(".tools/cuda/include");
    let clang = ["clang++-22", "clang++"]
        .into_iter()
        .find(|c| Command::new(c).arg("--version").output().is_ok());
    let (Some(clang), true) = (clang, include.join("cuda_fp8.hpp").exists()) else {
        eprintln!(
            "SKIPPED: clang++ or .tools/cuda/include/cuda_fp8.hpp not found (scripts/setup.sh)"
        );
        return;
    };
    let dir = std::env::temp_dir().join(format!("emu-fp8-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let exe = dir.join("reference");
    let built = Command::new(clang)
        .args(["-O1", "-w", "-I"])
        .arg(&include)
        .arg(data("reference.cpp"))
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("clang++ runs");
    assert!(
        built.status.success(),
        "the reference does not build: {}",
        String::from_utf8_lossy(&built.stderr)
    );
    let inputs = inputs();
    let listed: String = inputs.iter().map(|x| format!("{x:08x}\n")).collect();
    let input_file = dir.join("inputs.txt");
    std::fs::write(&input_file, listed).expect("write inputs");
    let out = Command::new(&exe)
        .stdin(std::fs::File::open(&input_file).expect("inputs"))
        .output()
        .expect("reference runs");
    let _ = std::fs::remove_dir_all(&dir);
    let text = String::from_utf8(out.stdout).expect("text");
    let (mut encodes, mut codes) = (0, 0);
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        let hex = |s: &str| u32::from_str_radix(s, 16).expect("hex");
        if f[0] == "code" {
            let c = hex(f[1]) as u8;
            assert_eq!(
                u32::from(Fp8::E4m3.to_f16(c, false)),
                hex(f[2]),
                "e4m3 {c:#04x} to f16"
            );
            assert_eq!(
                u32::from(Fp8::E5m2.to_f16(c, false)),
                hex(f[3]),
                "e5m2 {c:#04x} to f16"
            );
            codes += 1;
        } else {
            let x = f64::from(f32::from_bits(hex(f[0])));
            assert_eq!(
                u32::from(Fp8::E4m3.encode(x, false)),
                hex(f[1]),
                "e4m3 of {x:e} ({})",
                f[0]
            );
            assert_eq!(
                u32::from(Fp8::E5m2.encode(x, false)),
                hex(f[2]),
                "e5m2 of {x:e} ({})",
                f[0]
            );
            encodes += 1;
        }
    }
    assert_eq!(encodes, inputs.len(), "every input answered");
    assert_eq!(codes, 256);
}

const SPEC: &str = r#"{"kernel": "fp8_forms", "grid": [4], "block": [128],
 "args": [{"buffer": {"type": "u32", "len": 1536, "init": "random"}},
          {"buffer": {"type": "u8", "len": 18432}}]}"#;

/// Special inputs in the first words of the random source (f32 pairs and an f16x2 per thread).
fn spec_with_specials() -> LaunchSpec {
    let mut spec = LaunchSpec::from_json(SPEC).expect("spec");
    let specials: Vec<serde_json::Value> = [
        0x7f80_0000u32,
        0xff80_0000,
        0x7fc0_0000,
        0x3c00_fc00, // ±inf, NaN; f16 1.0 / -inf
        0x43e0_0000,
        0x43e8_0000,
        0x7e00_7c00,
        0x0000_8000, // 448, 464; f16 NaN / +inf
        0xc000_0000,
        0x3a80_0000,
        0xbc00_0001,
        0x477f_e000, // -2, 2^-10; f16 …; 65504
    ]
    .iter()
    .map(|w| serde_json::Value::from(format!("{w:#x}")))
    .collect();
    if let warpsmith::emu::launch::ArgSpec::Buffer(b) = &mut spec.args[0] {
        // Random words after the specials: the list fills the first elements only.
        b.init = warpsmith::emu::launch::InitSpec::List(specials);
        b.len = Some(1536);
    }
    spec
}

#[test]
fn ptx_and_sass_emulators_agree_on_every_form() {
    let (Ok(ptxas), Ok(_)) = (tools::find(Tool::Ptxas), tools::find(Tool::Nvdisasm)) else {
        eprintln!("SKIPPED: ptxas or nvdisasm not found");
        return;
    };
    let text = std::fs::read_to_string(data("fp8_forms.ptx")).expect("PTX");
    // (assembler, the PTX ISA version it reads): ptxas 12.4 stops at ISA 8.4.
    let mut assemblers = vec![(ptxas, None)];
    let ptxas_12_4 = common::repo_root().join(".tools/triton-3.3/triton/backends/nvidia/bin/ptxas");
    if ptxas_12_4.is_file() {
        assemblers.push((ptxas_12_4, Some(".version 8.4")));
    } else {
        eprintln!(
            "SKIPPED (the ptxas 12.4 part): {} not found (scripts/setup.sh installs Triton 3.3.1)",
            ptxas_12_4.display()
        );
    }
    for (ptxas, version) in &assemblers {
        let text = match version {
            Some(v) => text.replace(".version 8.6", v),
            None => text.clone(),
        };
        forms_agree(ptxas, &text);
    }
}

/// [`ptx_and_sass_emulators_agree_on_every_form`] with one assembler.
fn forms_agree(ptxas: &std::path::Path, text: &str) {
    for (spec, what) in [
        (LaunchSpec::from_json(SPEC).expect("spec"), "random"),
        (spec_with_specials(), "specials"),
    ] {
        for arch in ["sm_89", "sm_90"] {
            let src = text.replace(".target sm_90", &format!(".target {arch}"));
            let module = parse_module(&src, "fp8_forms.ptx").expect("parses");
            let opts = |file: &str| RunOptions {
                file: file.into(),
                ..RunOptions::default()
            };
            let ptx = run(&module, &spec, &opts("fp8_forms.ptx")).unwrap_or_else(|e| panic!("{e}"));
            let dir = std::env::temp_dir().join(format!("emu-fp8-sass-{}", std::process::id()));
            std::fs::create_dir_all(&dir).expect("temp dir");
            let path = dir.join(format!("{arch}.ptx"));
            std::fs::write(&path, &src).expect("write");
            let cubin = common::assemble_cubin(ptxas, &path, arch, &[]);
            let _ = std::fs::remove_dir_all(&dir);
            let prog = SassProgram::from_cubin(&cubin).expect("cubin");
            let sass = warpsmith::sass::emu::run(&prog, &spec, &opts("fp8_forms.cubin"))
                .unwrap_or_else(|e| panic!("{arch}: SASS emulator: {e}"));
            let (a, b) = (&ptx.buffers[1].data, &sass.buffers[1].data);
            let first = a.iter().zip(b.iter()).position(|(x, y)| x != y);
            assert!(
                a == b,
                "{what}, {arch}, {}: first difference at byte {first:?}",
                ptxas.display()
            );
            assert!(
                a.iter().any(|&x| x != 0),
                "{what}: the kernel wrote results"
            );
        }
    }
}
