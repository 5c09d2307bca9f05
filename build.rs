//! Build script: compiles the LLVM 22 pass-plugin shim (`src/plugin/shim.cpp`, see
//! `src/plugin/mod.rs`) with the `cc` crate against the LLVM found by `llvm-config`, and links it
//! into the `cdylib` (`libwarpsmith.so`) only — the `warpsmith` binary, the rlib and the tests never
//! link LLVM.
//!
//! - Only with the `llvm` feature (on by default). Without it nothing is looked up.
//! - `llvm-config` comes from `WARPSMITH_LLVM_CONFIG`, then `/usr/lib/llvm-22/bin/llvm-config`,
//!   then `llvm-config-22` and `llvm-config` on `PATH`; it must report version 22.
//! - When no LLVM 22 is found the build goes on without the plugin and says so in a cargo warning
//!   (set `WARPSMITH_REQUIRE_PLUGIN=1` to make that an error, as CI does).
//! - The shim is compiled without RTTI (`-fno-rtti`), so one plugin loads into LLVM 22 builds with
//!   RTTI (Debian's opt, llc, clang) and without (rustc's `-Z llvm-plugins`).
//! - The shim is recompiled only when `shim.cpp`, this file or those variables change.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(warpsmith_plugin)");
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=src/plugin/shim.cpp");
    println!("cargo::rerun-if-env-changed=WARPSMITH_LLVM_CONFIG");
    println!("cargo::rerun-if-env-changed=WARPSMITH_REQUIRE_PLUGIN");
    if env::var_os("CARGO_FEATURE_LLVM").is_none() {
        return;
    }
    let required = env::var("WARPSMITH_REQUIRE_PLUGIN").is_ok_and(|v| v == "1");
    match build_shim() {
        Ok(()) => println!("cargo::rustc-cfg=warpsmith_plugin"),
        Err(why) => {
            if required {
                panic!("the LLVM 22 plugin cannot be built: {why}");
            }
            println!(
                "cargo::warning=building without the LLVM 22 pass plugin: {why} (install \
                 llvm-22-dev or set WARPSMITH_LLVM_CONFIG; `--no-default-features` skips this check)"
            );
        }
    }
}

fn run(cfg: &Path, arg: &str) -> Option<String> {
    let out = Command::new(cfg).arg(arg).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn find_llvm_config() -> Result<PathBuf, String> {
    if let Some(v) = env::var_os("WARPSMITH_LLVM_CONFIG").filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(v));
    }
    let mut candidates = vec![PathBuf::from("/usr/lib/llvm-22/bin/llvm-config")];
    if let Some(path) = env::var_os("PATH") {
        for dir in env::split_paths(&path) {
            candidates.push(dir.join("llvm-config-22"));
            candidates.push(dir.join("llvm-config"));
        }
    }
    for c in candidates {
        if c.is_file() && run(&c, "--version").is_some_and(|v| v.starts_with("22.")) {
            return Ok(c);
        }
    }
    Err("no llvm-config for LLVM 22 found".into())
}

fn build_shim() -> Result<(), String> {
    let cfg = find_llvm_config()?;
    let version =
        run(&cfg, "--version").ok_or_else(|| format!("`{} --version` failed", cfg.display()))?;
    if !version.starts_with("22.") {
        return Err(format!("{} reports LLVM {version}, not 22", cfg.display()));
    }
    let cxxflags = run(&cfg, "--cxxflags").ok_or("llvm-config --cxxflags failed")?;
    let includedir = run(&cfg, "--includedir").ok_or("llvm-config --includedir failed")?;
    if !Path::new(&includedir)
        .join("llvm/Plugins/PassPlugin.h")
        .is_file()
    {
        return Err(format!(
            "{includedir}/llvm/Plugins/PassPlugin.h is missing (llvm-22-dev)"
        ));
    }
    let mut b = cc::Build::new();
    b.cpp(true)
        .file("src/plugin/shim.cpp")
        .cargo_metadata(false)
        .warnings(false)
        .flag_if_supported("-Wno-unused-parameter")
        // Without RTTI, so that the plugin references no `typeinfo for llvm::…` symbol: rustc's
        // LLVM (`rustc -Z llvm-plugins`) is built without RTTI and exports none, while an LLVM
        // with RTTI (Debian's) loads a plugin without it as well. The shim uses no dynamic_cast
        // or typeid (lit-tests/plugin/rustc.test, docs/build-systems.md).
        .flag("-fno-rtti");
    for flag in cxxflags.split_whitespace() {
        // Keep LLVM's language and ABI flags; optimisation and warnings are ours.
        if flag.starts_with("-O") || flag.starts_with("-W") || flag == "-g" {
            continue;
        }
        b.flag(flag);
    }
    b.try_compile("warpsmith_shim").map_err(|e| e.to_string())?;
    let out = PathBuf::from(env::var("OUT_DIR").map_err(|e| e.to_string())?);
    let lib = out.join("libwarpsmith_shim.a");
    // Into the cdylib only, whole, so the static constructor that registers the plugin is kept.
    println!("cargo::rustc-cdylib-link-arg=-Wl,--whole-archive");
    println!("cargo::rustc-cdylib-link-arg={}", lib.display());
    println!("cargo::rustc-cdylib-link-arg=-Wl,--no-whole-archive");
    println!("cargo::rustc-cdylib-link-arg=-lstdc++");
    Ok(())
}
