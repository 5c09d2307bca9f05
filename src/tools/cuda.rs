//! Compiling the project's CUDA kernels (`bench/kernels`) to PTX with clang 22, without a CUDA
//! installation: the command line of `scripts/compile-kernels.sh`, in one place for the tests and
//! benchmarks that build kernels themselves.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::temp::TempDir;
use super::{run_at, Tool, ToolError};

/// The header every kernel of `bench/kernels` is compiled with (it stands in for the CUDA
/// headers: `__global__`, `__shared__`, `__launch_bounds__`, …).
pub fn bench_prelude() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("bench/kernels/prelude.h")
}

/// Compiles the CUDA file `source` for `arch` (`sm_80`) at optimisation level `opt` (`O3`) with
/// the clang executable `clang`, as `scripts/compile-kernels.sh` does, and returns the PTX text.
pub fn cuda_to_ptx(
    clang: &Path,
    source: &Path,
    arch: &str,
    opt: &str,
) -> Result<String, ToolError> {
    let io = |context: String| move |source| ToolError::Io { context, source };
    let dir = TempDir::new("clang").map_err(io("creating a temporary folder".into()))?;
    let out = dir.path().join("out.ptx");
    let mut args: Vec<OsString> = [
        "-x",
        "cuda",
        "--cuda-device-only",
        "-nocudainc",
        "-nocudalib",
        "--cuda-feature=+ptx80",
        "-S",
    ]
    .map(OsString::from)
    .into();
    args.push(format!("--cuda-gpu-arch={arch}").into());
    args.push(format!("-{opt}").into());
    args.push("-include".into());
    args.push(bench_prelude().into());
    args.push(source.into());
    args.push("-o".into());
    args.push(out.clone().into());
    run_at(Tool::Clang, clang, args)?;
    std::fs::read_to_string(&out).map_err(io(format!("reading {}", out.display())))
}
