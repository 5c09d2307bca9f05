//! bench/gpu/crosscheck.py must build the same input bytes as the emulator, bit for bit, or a
//! GPU cross-check would compare different computations. Runs the script's GPU-free
//! `gen-inputs` and `selftest` commands (skipped with a message when python3 is absent).

use std::path::PathBuf;
use std::process::Command;

use warpsmith::emu::launch::{buffer_bytes, scalar_bytes, ArgSpec, LaunchSpec};

const SPEC: &str = r#"{
  "kernel": "k", "grid": [1], "block": [32],
  "args": [
    {"buffer": {"type": "f32", "len": 257, "init": "random", "seed": 1}},
    {"buffer": {"type": "f64", "len": 100, "init": "random"}},
    {"buffer": {"type": "f16", "len": 300, "init": "random", "seed": 3}},
    {"buffer": {"type": "bf16", "len": 300, "init": "random", "seed": 4, "range": [-100, 1000]}},
    {"buffer": {"type": "f32", "len": 64, "init": "random", "seed": 5, "range": [1e-40, 1e-38]}},
    {"buffer": {"type": "u8", "len": 77, "init": "random", "seed": 6}},
    {"buffer": {"type": "s16", "len": 50, "init": "random", "seed": 7, "range": [-300, 300]}},
    {"buffer": {"type": "s32", "len": 50, "init": "random", "range": [-5, 5]}},
    {"buffer": {"type": "u64", "len": 33, "init": "random", "seed": 9}},
    {"buffer": {"type": "s64", "len": 20, "init": "iota"}},
    {"buffer": {"type": "f16", "len": 20, "init": "iota"}},
    {"buffer": {"type": "f32", "len": 8, "init": [0.1, -2.5, "nan", "inf", "-inf", "0x7f800001", 3, 1e39]}},
    {"buffer": {"type": "f64", "init": [0.1, "nan", -0.0, 1e-320]}},
    {"buffer": {"type": "u32", "len": 6, "init": [1, -1, 4294967295, "0xdeadbeef", true]}},
    {"buffer": {"type": "b16", "len": 4, "init": "zero"}},
    {"byval": {"type": "f32", "init": [1.5, 2.5, 3.5], "seed": 2}},
    {"scalar": {"type": "f32", "value": 0.3}},
    {"scalar": {"type": "s32", "value": -7}},
    {"scalar": {"type": "u64", "value": "0x123456789abcdef0"}},
    {"scalar": {"type": "f16", "value": 65519}},
    {"scalar": {"type": "bf16", "value": -1.00390625}}
  ],
  "globals": {
    "alpha": {"type": "f32", "len": 10, "init": "random"},
    "beta": {"type": "s32", "len": 10, "init": "random", "range": [0, 9]}
  }
}"#;

fn python() -> Option<&'static str> {
    Command::new("python3")
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|_| "python3")
}

fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("bench/gpu/crosscheck.py")
}

#[test]
fn python_generator_matches_the_emulator_byte_for_byte() {
    let Some(py) = python() else {
        eprintln!("SKIPPED: python3 not found");
        return;
    };
    let base = LaunchSpec::from_json(SPEC).expect("spec");
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("crosscheck-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let spec_path = dir.join("spec.json");
    std::fs::write(&spec_path, SPEC).expect("write spec");
    for offset in [0u64, 5] {
        let out = dir.join(format!("seed{offset}"));
        let st = Command::new(py)
            .arg(script())
            .args(["gen-inputs"])
            .arg(&spec_path)
            .arg(&out)
            .args(["--seed-offset", &offset.to_string()])
            .output()
            .expect("python runs");
        assert!(
            st.status.success(),
            "{}",
            String::from_utf8_lossy(&st.stderr)
        );
        let spec = base.with_seed_offset(offset);
        for (i, a) in spec.args.iter().enumerate() {
            let want = match a {
                ArgSpec::Buffer(b) | ArgSpec::Byval(b) => {
                    buffer_bytes(b, i as u64, "t").expect("bytes")
                }
                ArgSpec::Scalar(s) => scalar_bytes(s, "t").expect("bytes"),
                ArgSpec::TensorMap(_) => unreachable!("the test's spec has no tensor map"),
            };
            let got = std::fs::read(out.join(format!("arg{i}.bin"))).expect("python output");
            assert_eq!(got, want, "seed offset {offset}: argument {i} differs");
        }
        for (j, (name, b)) in spec.globals.iter().enumerate() {
            let want = buffer_bytes(b, 1000 + j as u64, "t").expect("bytes");
            let got = std::fs::read(out.join(format!("var_{name}.bin"))).expect("python output");
            assert_eq!(got, want, "seed offset {offset}: global {name} differs");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn python_selftest_and_no_gpu_message() {
    let Some(py) = python() else {
        eprintln!("SKIPPED: python3 not found");
        return;
    };
    let st = Command::new(py)
        .arg(script())
        .arg("selftest")
        .output()
        .expect("runs");
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
}
