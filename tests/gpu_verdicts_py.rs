//! The GPU verdicts' arithmetic (`bench/gpu/time_variants.py selftest`): the issue-17 verdict
//! (the predicted choice within 5 % of the best measured variant), the geomean speed-up over
//! ptxas alone, and the paired-by-round verdict that shows what a clock drift can flip. Pure
//! Python, no GPU; skipped with a message when python3 is absent.

use std::path::PathBuf;
use std::process::Command;

#[test]
fn verdicts_selftest() {
    let Ok(probe) = Command::new("python3").arg("--version").output() else {
        eprintln!("SKIPPED: python3 not found");
        return;
    };
    if !probe.status.success() {
        eprintln!("SKIPPED: python3 does not run");
        return;
    }
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("bench/gpu/time_variants.py");
    let out = Command::new("python3")
        .arg(script)
        .arg("selftest")
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("selftest: ok"));
}
