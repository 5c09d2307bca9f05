//! The `emulate` and `equiv` commands: exit statuses (0 equal / 1 different / 2 error) and the
//! output files.

use std::path::PathBuf;
use std::process::Command;

fn inputs() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("lit-tests/emu/Inputs")
}

fn warpsmith(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_warpsmith"))
        .args(args)
        .output()
        .expect("runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), text)
}

#[test]
fn equiv_exit_statuses() {
    let i = inputs();
    let p = |n: &str| i.join(n).display().to_string();
    let (code, text) = warpsmith(&[
        "equiv",
        &p("scale.ptx"),
        &p("scale_mul.ptx"),
        "--launch",
        &p("scale_random.json"),
        "--seeds",
        "2",
    ]);
    assert_eq!(code, 0, "{text}");
    let (code, text) = warpsmith(&[
        "equiv",
        &p("scale.ptx"),
        &p("scale_wrong.ptx"),
        "--launch",
        &p("scale.json"),
    ]);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("DIFFERENT"), "{text}");
    let (code, text) = warpsmith(&[
        "equiv",
        &p("scale.ptx"),
        &p("scale_wrong.ptx"),
        "--launch",
        &p("scale_bad_args.json"),
    ]);
    assert_eq!(code, 2, "{text}");
}

#[test]
fn emulate_writes_every_buffer() {
    let i = inputs();
    let dir =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("emu-cli-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (code, text) = warpsmith(&[
        "emulate",
        &i.join("scale.ptx").display().to_string(),
        "--launch",
        &i.join("scale.json").display().to_string(),
        "--out",
        &dir.display().to_string(),
    ]);
    assert_eq!(code, 0, "{text}");
    let y = std::fs::read(dir.join("arg1.bin")).expect("arg1.bin");
    assert_eq!(y.len(), 384);
    assert_eq!(&y[..8], &[1, 0, 0, 0, 3, 0, 0, 0]);
    assert!(dir.join("arg0.bin").is_file());
    let _ = std::fs::remove_dir_all(&dir);
    // An error leaves no files behind and exits with 2.
    let (code, text) = warpsmith(&[
        "emulate",
        &i.join("scale.ptx").display().to_string(),
        "--launch",
        &i.join("scale_small_buffer.json").display().to_string(),
        "--out",
        &dir.display().to_string(),
    ]);
    assert_eq!(code, 2, "{text}");
    assert!(!dir.join("arg1.bin").exists());
}
