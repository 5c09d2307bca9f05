//! Emulator throughput benchmark (`cargo bench --bench emu_throughput`; harness = false).
//!
//! Runs a fixed set of kernels on the concrete domain and reports lane-instructions per second on
//! one core. The kernels are hand-written PTX in the style LLVM emits (so the benchmark needs no
//! clang): an FMA-heavy loop, an integer hash loop, a shared-memory tiled kernel with barriers,
//! and a divergent loop with shuffles. Set `EMU_BENCH_PTX=file.ptx EMU_BENCH_SPEC=spec.json` to
//! time another kernel instead, and `EMU_BENCH_REPS` for the repetitions (default 5).

use std::time::Instant;

use warpsmith::emu::{run, LaunchSpec, RunOptions};
use warpsmith::ptx::parse_module;

#[path = "throughput_kernels.rs"]
mod kernels;
use kernels::{FMA_LOOP, HASH_LOOP, SHFL_DIVERGE, SMEM_TILE};

fn spec(kernel: &str, args: &str) -> LaunchSpec {
    let text = format!(r#"{{"kernel":"{kernel}","grid":[8],"block":[256],"args":[{args}]}}"#);
    LaunchSpec::from_json(&text).expect("benchmark spec")
}

fn main() {
    let reps: usize = std::env::var("EMU_BENCH_REPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    let mut cases: Vec<(String, String, LaunchSpec)> = Vec::new();
    if let (Ok(p), Ok(s)) = (
        std::env::var("EMU_BENCH_PTX"),
        std::env::var("EMU_BENCH_SPEC"),
    ) {
        let text = std::fs::read_to_string(&p).expect("EMU_BENCH_PTX");
        let sp = LaunchSpec::from_json(&std::fs::read_to_string(&s).expect("EMU_BENCH_SPEC"))
            .expect("spec");
        cases.push((p.clone(), text, sp));
    } else {
        let out32 = r#"{"buffer":{"type":"f32","len":2048}}"#;
        let out64 = r#"{"buffer":{"type":"u64","len":2048}}"#;
        let it = |n: u32| format!(r#"{{"scalar":{{"type":"s32","value":{n}}}}}"#);
        cases.push((
            "fma_loop".into(),
            FMA_LOOP.into(),
            spec("fma_loop", &format!("{out32},{}", it(200))),
        ));
        cases.push((
            "hash_loop".into(),
            HASH_LOOP.into(),
            spec("hash_loop", &format!("{out64},{}", it(100))),
        ));
        cases.push((
            "smem_tile".into(),
            SMEM_TILE.into(),
            spec(
                "smem_tile",
                &format!(
                    r#"{{"buffer":{{"type":"f32","len":2048,"init":"random"}}}},{out32},{}"#,
                    it(100)
                ),
            ),
        ));
        cases.push((
            "shfl_diverge".into(),
            SHFL_DIVERGE.into(),
            spec("shfl_diverge", &format!("{out32},{}", it(100))),
        ));
    }
    println!("emulator throughput ({reps} repetitions each, best run; one core)");
    let mut total_lanes = 0u64;
    let mut total_secs = 0.0f64;
    for (name, text, sp) in &cases {
        let m = parse_module(text, name).expect("benchmark PTX parses");
        let opts = RunOptions {
            file: name.clone(),
            ..RunOptions::default()
        };
        let mut best = f64::MAX;
        let mut lanes = 0;
        for _ in 0..reps {
            let t = Instant::now();
            let out = run(&m, sp, &opts).expect("benchmark kernel runs");
            let secs = t.elapsed().as_secs_f64();
            lanes = out.stats.lane_insts;
            best = best.min(secs);
        }
        total_lanes += lanes;
        total_secs += best;
        println!(
            "  {name:<14} {lanes:>10} lane-instructions  {:>8.2} ms  {:>7.1} M lane-instr/s",
            best * 1e3,
            lanes as f64 / best / 1e6
        );
    }
    println!(
        "  {:<14} {total_lanes:>10} lane-instructions  {:>8.2} ms  {:>7.1} M lane-instr/s",
        "total",
        total_secs * 1e3,
        total_lanes as f64 / total_secs / 1e6
    );
}
