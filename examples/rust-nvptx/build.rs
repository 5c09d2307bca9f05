//! Build script of the rust-nvptx example (README.md):
//!
//! 1. compiles `kernel/stencil.rs` with the rustc that builds this crate, for the
//!    `nvptx64-nvidia-cuda` target, to PTX (`$OUT_DIR/stencil.ptx`);
//! 2. runs warpsmith on that PTX through its library API ([`warpsmith::api`]): the divergence
//!    report (`$OUT_DIR/stencil.divergence.json`), then shuffle synthesis, whose report is
//!    `$OUT_DIR/stencil.shuffle.json`;
//! 3. writes the rewritten PTX to `$OUT_DIR/stencil.warpsmith.ptx`, which `src/lib.rs` embeds.
//!
//! Environment: `WARPSMITH_EXAMPLE_ARCH` (default `sm_80`) is the `-C target-cpu` of the kernel.

use std::env;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

use warpsmith::api::{self, ShuffleOptions};

/// What can stop the build, each with what to do.
#[derive(Debug)]
enum BuildError {
    Env(&'static str),
    Rustc { command: String, detail: String },
    Warpsmith(api::Error),
    Json(serde_json::Error),
    Io(PathBuf, std::io::Error),
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::Env(v) => write!(f, "cargo did not set {v}"),
            BuildError::Rustc { command, detail } => write!(
                f,
                "compiling the kernel failed: {command}\n{detail}\n(the kernel needs rustc's \
                 built-in nvptx64-nvidia-cuda target and RUSTC_BOOTSTRAP=1 for its unstable \
                 features; see README.md)"
            ),
            BuildError::Warpsmith(e) => write!(f, "warpsmith: {e}"),
            BuildError::Json(e) => write!(f, "a report as JSON: {e}"),
            BuildError::Io(p, e) => write!(f, "{}: {e}", p.display()),
        }
    }
}

impl From<api::Error> for BuildError {
    fn from(e: api::Error) -> Self {
        BuildError::Warpsmith(e)
    }
}

fn main() {
    if let Err(e) = build() {
        // A build script reports failure through its exit status; the message is shown by cargo.
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn build() -> Result<(), BuildError> {
    println!("cargo::rerun-if-changed=kernel/stencil.rs");
    println!("cargo::rerun-if-env-changed=WARPSMITH_EXAMPLE_ARCH");
    let out = PathBuf::from(env::var_os("OUT_DIR").ok_or(BuildError::Env("OUT_DIR"))?);
    let manifest = PathBuf::from(
        env::var_os("CARGO_MANIFEST_DIR").ok_or(BuildError::Env("CARGO_MANIFEST_DIR"))?,
    );
    let arch = env::var("WARPSMITH_EXAMPLE_ARCH").unwrap_or_else(|_| "sm_80".into());

    // 1. The kernel to PTX.
    let ptx_path = out.join("stencil.ptx");
    compile_kernel(&manifest.join("kernel/stencil.rs"), &ptx_path, &arch)?;

    // 2. warpsmith.
    let mut module = api::parse_file(&ptx_path)?;
    // rustc writes no .reqntid; the kernel is launched with 1-D blocks, which makes %tid.x affine
    // in the lane (without it the analysis must treat %tid as divergent, and says so).
    let options = api::DivergenceOptions {
        assume_1d: true,
        ..Default::default()
    };
    let divergence = api::divergence(&module, &options);
    write(&out.join("stencil.divergence.json"), &to_json(&divergence)?)?;
    // Every proved replacement: in a kernel of three loads the default rule would leave them
    // (the shuffles and their corner checks add more instructions than the loads they save;
    // docs/shuffle.md, "Profitability"), and this example is here to show the mechanism.
    let options = ShuffleOptions {
        profitable_only: false,
        ..ShuffleOptions::default()
    };
    let shuffled = api::shuffle(&mut module, &options)?;
    write(&out.join("stencil.shuffle.json"), &to_json(&shuffled)?)?;

    // 3. The rewritten PTX.
    api::write_file(&module, &out.join("stencil.warpsmith.ptx"))?;
    Ok(())
}

/// `RUSTC_BOOTSTRAP=1 $RUSTC --target nvptx64-nvidia-cuda --crate-type cdylib -C target-cpu=ARCH
/// -O --emit=asm SRC -o OUT`.
fn compile_kernel(src: &Path, out: &Path, arch: &str) -> Result<(), BuildError> {
    // Cargo names the rustc it builds with; a wrapper (RUSTC_WRAPPER) is not needed here.
    let rustc = env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let mut cmd = Command::new(&rustc);
    cmd.env("RUSTC_BOOTSTRAP", "1")
        .args(["--target", "nvptx64-nvidia-cuda", "--crate-type", "cdylib"])
        .arg(format!("-Ctarget-cpu={arch}"))
        .args(["-O", "--emit=asm", "-o"])
        .arg(out)
        .arg(src);
    let command = format!("RUSTC_BOOTSTRAP=1 {cmd:?}");
    let output = cmd.output().map_err(|e| BuildError::Rustc {
        command: command.clone(),
        detail: e.to_string(),
    })?;
    if !output.status.success() {
        return Err(BuildError::Rustc {
            command,
            detail: String::from_utf8_lossy(&output.stderr).into_owned(),
        });
    }
    Ok(())
}

fn to_json<T: serde::Serialize>(v: &T) -> Result<String, BuildError> {
    serde_json::to_string_pretty(v).map_err(BuildError::Json)
}

fn write(path: &Path, text: &str) -> Result<(), BuildError> {
    std::fs::write(path, text).map_err(|e| BuildError::Io(path.to_path_buf(), e))
}
