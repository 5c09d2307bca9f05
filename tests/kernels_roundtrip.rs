//! The CUDA kernels of bench/kernels, compiled by clang-22 at -O0 and -O3 for sm_80 and sm_90
//! (scripts/compile-kernels.sh), round-trip through the IR: parse(print(parse(x))) == parse(x), and
//! ptxas gives identical `ptxas -v` figures for the original and the printed PTX.

mod common;

use std::process::Command;

use common::*;

#[test]
fn bench_kernels_round_trip() {
    let root = repo_root();
    if warpsmith::tools::find(warpsmith::tools::Tool::Clang).is_err() {
        eprintln!("SKIPPED (bench_kernels_round_trip): clang-22 not found — run scripts/setup.sh");
        return;
    }
    let use_ptxas = ptxas_available("bench_kernels_round_trip");
    let out = std::env::temp_dir().join(format!("warpsmith-kernels-{}", std::process::id()));
    let status = Command::new("bash")
        .arg(root.join("scripts/compile-kernels.sh"))
        .arg(&out)
        .status()
        .expect("run compile-kernels.sh");
    assert!(status.success(), "scripts/compile-kernels.sh failed");
    let files = files_with_ext(&out, "ptx");
    let sources = files_with_ext(&root.join("bench/kernels"), "cu").len();
    assert_eq!(
        files.len(),
        sources * 4,
        "one PTX per source, arch and optimisation level"
    );

    let outcomes = parallel_map(&files, |f| round_trip(f, use_ptxas));
    let mut failures = Vec::new();
    let mut checked = 0;
    for (f, o) in files.iter().zip(&outcomes) {
        match o {
            Outcome::RoundTrip { ptxas: Ok(_) } => checked += 1,
            Outcome::RoundTrip { ptxas: Err(why) } if use_ptxas => {
                failures.push(format!("{}: not compared under ptxas: {why}", f.display()))
            }
            Outcome::RoundTrip { .. } => {}
            Outcome::Rejected(msg) | Outcome::Failed(msg) => {
                failures.push(format!("{}: {msg}", f.display()))
            }
        }
    }
    let _ = std::fs::remove_dir_all(&out);
    eprintln!("bench kernels: {} PTX files from {sources} sources, {checked} with identical ptxas -v figures", files.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
