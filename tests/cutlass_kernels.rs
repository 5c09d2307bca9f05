//! NVIDIA's CUTLASS as input nobody wrote for warpsmith (tests/cutlass/*.cu, headers from PyPI's
//! nvidia-cutlass 4.2, which scripts/setup.sh puts in .tools/cutlass; compiled by clang 22): two
//! CUTLASS 2.x GEMMs for sm_80 (tensor cores with `mma.sync`, `ldmatrix` and a `cp.async`
//! pipeline; SIMT) and a CUTLASS 3.x warp-specialised GEMM for sm_90a (TMA, `wgmma`, `setmaxnreg`,
//! and `mbarrier` waits pasted as one braced block per call, each defining the same labels — which
//! the parser refused until labels were scoped by block, `src/ptx/label_scopes.rs`).
//!
//! Each kernel must round-trip through the IR with identical `ptxas -v` figures, and the drop-in
//! (`warpsmith ptxas`, `WARPSMITH_PASSES=spill,shuffle`) must assemble it with no more local
//! memory and no lower occupancy than ptxas alone. No launch runs: CUTLASS kernels take their
//! arguments as one `Params` structure whose layout the emulator's launch specs do not describe.
//! Skipped, with the reason, when clang 22, ptxas, CUDA's headers (.tools/cuda) or CUTLASS's
//! headers are absent.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use warpsmith::analysis::occupancy::{self, LaunchResources};
use warpsmith::tools::{self, KernelResources, Tool};

/// A CUTLASS source of tests/cutlass, the architecture it is built for and its block size (the
/// kernels have no launch bounds but the sm_90 one's `.maxntid`).
struct Case {
    source: &'static str,
    arch: &'static str,
    threads: u32,
}

const CASES: [Case; 3] = [
    Case {
        source: "gemm_tensorop_sm80.cu",
        arch: "sm_80",
        threads: 128,
    },
    Case {
        source: "gemm_simt_sm80.cu",
        arch: "sm_80",
        threads: 256,
    },
    Case {
        source: "gemm_ws_sm90.cu",
        arch: "sm_90a",
        threads: 384,
    },
];

/// The headers' folder, or why the test is skipped.
fn cutlass_include() -> Result<PathBuf, String> {
    let dir = common::repo_root().join(".tools/cutlass/cutlass_library/source/include");
    if dir.join("cutlass/gemm/device/gemm.h").is_file() {
        Ok(dir)
    } else {
        Err(format!(
            "CUTLASS's headers are not in {} (scripts/setup.sh installs nvidia-cutlass)",
            dir.display()
        ))
    }
}

/// Compiles `case` to PTX with clang 22 as a CUDA user of CUTLASS would (C++17, -O3, NDEBUG;
/// CUTLASS enables its `mma`/`cp.async` paths by `__CUDACC_VER_MAJOR__`, which only nvcc
/// defines).
fn compile(clang: &Path, include: &Path, case: &Case) -> String {
    let root = common::repo_root();
    let out = std::env::temp_dir().join(format!(
        "warpsmith-cutlass-{}-{}.ptx",
        std::process::id(),
        case.source
    ));
    let status = Command::new(clang)
        .args([
            "-x",
            "cuda",
            "-std=c++17",
            "--cuda-device-only",
            "-O3",
            "-S",
        ])
        .arg(format!(
            "--cuda-path={}",
            root.join(".tools/cuda").display()
        ))
        .arg(format!("--cuda-gpu-arch={}", case.arch))
        .args([
            "-D__CUDACC_VER_MAJOR__=12",
            "-D__CUDACC_VER_MINOR__=9",
            "-DNDEBUG",
            "-Wno-unknown-cuda-version",
            "-Wno-deprecated-literal-operator",
            "-Wno-cuda-compat",
        ])
        .arg("-I")
        .arg(include)
        .arg(root.join("tests/cutlass").join(case.source))
        .arg("-o")
        .arg(&out)
        .status()
        .unwrap_or_else(|e| panic!("cannot run clang: {e}"));
    assert!(status.success(), "clang failed on {}", case.source);
    let text = std::fs::read_to_string(&out).expect("clang's PTX");
    let _ = std::fs::remove_file(&out);
    text
}

/// The PTX of every case (compiled once for both tests), or why the tests are skipped.
fn compile_all() -> Result<Vec<(&'static Case, String)>, String> {
    let include = cutlass_include()?;
    if !common::repo_root()
        .join(".tools/cuda/include/cuda.h")
        .is_file()
    {
        return Err("the CUDA layout .tools/cuda is missing (scripts/setup.sh)".into());
    }
    let clang = tools::find(Tool::Clang).map_err(|e| e.to_string())?;
    tools::find(Tool::Ptxas).map_err(|e| e.to_string())?;
    Ok(common::parallel_map(
        &CASES.iter().collect::<Vec<_>>(),
        |c| (*c, compile(&clang, &include, c)),
    ))
}

/// [`compile_all`]'s PTX, or `None` after printing why `test` is skipped.
fn compiled(test: &str) -> Option<&'static [(&'static Case, String)]> {
    static PTX: OnceLock<Result<Vec<(&'static Case, String)>, String>> = OnceLock::new();
    match PTX.get_or_init(compile_all) {
        Ok(k) => Some(k),
        Err(why) => {
            eprintln!("SKIPPED ({test}): {why}");
            None
        }
    }
}

#[test]
fn cutlass_kernels_round_trip() {
    let Some(kernels) = compiled("cutlass_kernels_round_trip") else {
        return;
    };
    for (case, ptx) in kernels {
        let path = std::env::temp_dir().join(format!(
            "warpsmith-cutlass-rt-{}-{}.ptx",
            std::process::id(),
            case.source
        ));
        std::fs::write(&path, ptx).expect("write PTX");
        let outcome = common::round_trip(&path, true);
        let _ = std::fs::remove_file(&path);
        match outcome {
            common::Outcome::RoundTrip { ptxas: Ok(_) } => {}
            common::Outcome::RoundTrip { ptxas: Err(why) } => {
                panic!("{}: not compared under ptxas: {why}", case.source)
            }
            common::Outcome::Rejected(msg) | common::Outcome::Failed(msg) => {
                panic!("{}: {msg}", case.source)
            }
        }
    }
}

/// Stack plus spill stores, as the never-worse rule counts local memory.
fn local_bytes(k: &KernelResources) -> u32 {
    k.stack_frame + k.spill_stores
}

fn warps(k: &KernelResources, arch: &str, threads: u32) -> u32 {
    let limits = occupancy::arch(arch.trim_end_matches('a')).expect("known arch");
    let launch = LaunchResources {
        regs_per_thread: k.registers,
        threads_per_block: threads,
        static_smem: k.shared,
        dynamic_smem: 0,
        carveout_kib: None,
    };
    occupancy::occupancy(limits, &launch).map_or(0, |o| o.warps_per_sm)
}

#[test]
fn cutlass_kernels_through_the_drop_in_are_never_worse() {
    let test = "cutlass_kernels_through_the_drop_in_are_never_worse";
    let Some(kernels) = compiled(test) else {
        return;
    };
    let ptxas = tools::find(Tool::Ptxas).expect("checked");
    for (case, ptx) in kernels {
        let dir = std::env::temp_dir().join(format!(
            "warpsmith-cutlass-ni-{}-{}",
            std::process::id(),
            case.source
        ));
        std::fs::create_dir_all(&dir).expect("scratch folder");
        let input = dir.join("k.ptx");
        std::fs::write(&input, ptx).expect("write PTX");
        let alone = tools::ptxas_verbose(&input, case.arch, &[]).expect("ptxas alone");
        let out = Command::new(env!("CARGO_BIN_EXE_warpsmith"))
            .arg("ptxas")
            .arg(format!("-arch={}", case.arch))
            .arg("-v")
            .arg(&input)
            .arg("-o")
            .arg(dir.join("k.cubin"))
            .env("WARPSMITH_PTXAS", &ptxas)
            .env("WARPSMITH_PASSES", "spill,shuffle")
            .env("WARPSMITH_SPILL_BLOCK_SIZE", case.threads.to_string())
            .output()
            .expect("run warpsmith ptxas");
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let _ = std::fs::remove_dir_all(&dir);
        assert!(out.status.success(), "{}: {stderr}", case.source);
        let through = tools::parse_ptxas_verbose(&stderr, case.arch)
            .unwrap_or_else(|e| panic!("{}: {e}\n{stderr}", case.source));
        let entries: Vec<_> = alone.iter().filter(|k| k.entry).collect();
        assert!(!entries.is_empty(), "{}: no kernel", case.source);
        for before in entries {
            let after = through
                .iter()
                .find(|k| k.name == before.name)
                .unwrap_or_else(|| panic!("{}: {} not assembled", case.source, before.name));
            assert!(
                local_bytes(after) <= local_bytes(before),
                "{}: local memory {} -> {} B",
                case.source,
                local_bytes(before),
                local_bytes(after)
            );
            assert!(
                warps(after, case.arch, case.threads) >= warps(before, case.arch, case.threads),
                "{}: {} -> {} registers lowers occupancy",
                case.source,
                before.registers,
                after.registers
            );
        }
        if case.source.contains("sm90") {
            // The spilling pass refuses a kernel that resizes its register file at run time.
            assert!(stderr.contains("setmaxnreg"), "{}: {stderr}", case.source);
        }
    }
}
