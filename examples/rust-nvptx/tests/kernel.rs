//! The example's checks: the build script really rewrote the kernel, the rewrite computes what
//! rustc's kernel computes (warpsmith's PTX emulator, full and partial warps), and NVIDIA's
//! ptxas assembles it.

use warpsmith::emu::equiv;
use warpsmith::emu::launch::LaunchSpec;
use warpsmith_rust_nvptx_example::{DIVERGENCE_REPORT, KERNEL, ORIGINAL_PTX, PTX, SHUFFLE_REPORT};

fn parse(text: &str, name: &str) -> warpsmith::api::Module {
    warpsmith::api::parse(text, name).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn rustc_emitted_the_kernel_and_warpsmith_rewrote_it() {
    assert!(ORIGINAL_PTX.contains(&format!(".entry {KERNEL}(")));
    assert!(ORIGINAL_PTX.contains("ld.global"));
    assert!(!ORIGINAL_PTX.contains("shfl.sync"));
    assert!(
        PTX.contains("shfl.sync"),
        "no shuffle in the rewritten PTX:\n{PTX}"
    );
    let report: serde_json::Value = serde_json::from_str(SHUFFLE_REPORT).unwrap();
    let kernel = &report["kernels"][0];
    assert_eq!(kernel["name"], KERNEL);
    assert_eq!(kernel["loads"], 3);
    // input[i + 1] and input[i + 2] come from lanes +1 and +2; input[i] is the source.
    assert_eq!(kernel["shuffles"], 2, "{SHUFFLE_REPORT}");
}

#[test]
fn divergence_report_sees_the_thread_index() {
    let report: serde_json::Value = serde_json::from_str(DIVERGENCE_REPORT).unwrap();
    let f = &report["functions"][0];
    assert_eq!(f["name"], KERNEL);
    // ctaid.x * ntid.x + tid.x: affine in the lane; the loaded values: divergent.
    assert!(
        f["counts"]["affine"].as_u64().unwrap() > 0,
        "{DIVERGENCE_REPORT}"
    );
    assert!(
        f["counts"]["divergent"].as_u64().unwrap() > 0,
        "{DIVERGENCE_REPORT}"
    );
}

fn spec(blocks: u32, threads: u32) -> LaunchSpec {
    let n = blocks * threads;
    LaunchSpec::from_json(&format!(
        r#"{{"kernel": "{KERNEL}", "grid": [{blocks}], "block": [{threads}], "args": [
            {{"buffer": {{"type": "f32", "len": {}, "init": "random", "seed": 3}}}},
            {{"buffer": {{"type": "f32", "len": {n}, "init": "zero"}}}}]}}"#,
        n + 2
    ))
    .unwrap()
}

#[test]
fn rewritten_kernel_computes_the_same_on_the_emulator() {
    let original = parse(ORIGINAL_PTX, "stencil.ptx");
    let rewritten = parse(PTX, "stencil.warpsmith.ptx");
    // Full warps, and blocks of 20 threads (every warp partial: the guarded fallback loads run).
    for (blocks, threads) in [(4, 128), (3, 20)] {
        let r = equiv::check(&original, &rewritten, &spec(blocks, threads), 3).unwrap();
        assert!(r.is_equal(), "{blocks}x{threads}: {:?}", r.verdict);
        assert_eq!(r.seeds_run, 3);
    }
}

#[test]
fn ptxas_assembles_the_rewritten_kernel() {
    // ptxas is found as warpsmith finds it: WARPSMITH_PTXAS, the checkout's .tools/bin
    // (scripts/setup.sh), PATH. Not finding it is a failure, not a skip.
    warpsmith::tools::ptxas_accepts_source(PTX, "sm_80").unwrap_or_else(|e| panic!("{e}"));
}
