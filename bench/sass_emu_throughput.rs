//! SASS emulator throughput (`cargo bench --bench sass_emu_throughput`; harness = false): the
//! four kernels of `emu_throughput` (bench/throughput_kernels.rs) are assembled by ptxas
//! (`--fmad=false`, sm_80 and sm_90) and run on the SASS emulator, and the same PTX on the PTX
//! emulator in the same process, on the same launch (8 CTAs of 256 threads). Reported:
//! lane-instructions per second of each (best of `EMU_BENCH_REPS` runs, default 5; one core) and
//! the ratio. Lane-instruction counts differ between the two (SASS has more, simpler
//! instructions), so the ratio compares interpretation speed, not time per kernel; the time per
//! kernel is printed too. Needs ptxas and nvdisasm (prints SKIPPED otherwise).

use std::time::Instant;

use warpsmith::emu::{run, LaunchSpec, RunOptions};
use warpsmith::ptx::parse_module;
use warpsmith::sass::emu::SassProgram;
use warpsmith::tools::{self, Tool};

#[path = "throughput_kernels.rs"]
mod kernels;
use kernels::{FMA_LOOP, HASH_LOOP, SHFL_DIVERGE, SMEM_TILE};

fn spec(kernel: &str, args: &str) -> LaunchSpec {
    let text = format!(r#"{{"kernel":"{kernel}","grid":[8],"block":[256],"args":[{args}]}}"#);
    LaunchSpec::from_json(&text).expect("benchmark spec")
}

fn cubin(ptxas: &std::path::Path, text: &str, name: &str, arch: &str) -> Vec<u8> {
    let dir = std::env::temp_dir();
    let p = dir.join(format!(
        "warpsmith-sass-bench-{}-{name}.ptx",
        std::process::id()
    ));
    let c = p.with_extension(format!("{arch}.cubin"));
    std::fs::write(&p, text).expect("temp file");
    let out = std::process::Command::new(ptxas)
        .args(["--fmad=false", "-arch", arch, "-o"])
        .arg(&c)
        .arg(&p)
        .output()
        .expect("ptxas runs");
    assert!(
        out.status.success(),
        "ptxas: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let b = std::fs::read(&c).expect("cubin");
    let _ = std::fs::remove_file(&p);
    let _ = std::fs::remove_file(&c);
    b
}

fn main() {
    let Ok(ptxas) = tools::find(Tool::Ptxas) else {
        println!("SKIPPED: ptxas not found");
        return;
    };
    if tools::find(Tool::Nvdisasm).is_err() {
        println!("SKIPPED: nvdisasm not found");
        return;
    }
    let reps: usize = std::env::var("EMU_BENCH_REPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    let out32 = r#"{"buffer":{"type":"f32","len":2048}}"#;
    let out64 = r#"{"buffer":{"type":"u64","len":2048}}"#;
    let it = |n: u32| format!(r#"{{"scalar":{{"type":"s32","value":{n}}}}}"#);
    let cases = [
        (
            "fma_loop",
            FMA_LOOP,
            spec("fma_loop", &format!("{out32},{}", it(200))),
        ),
        (
            "hash_loop",
            HASH_LOOP,
            spec("hash_loop", &format!("{out64},{}", it(100))),
        ),
        (
            "smem_tile",
            SMEM_TILE,
            spec(
                "smem_tile",
                &format!(
                    r#"{{"buffer":{{"type":"f32","len":2048,"init":"random"}}}},{out32},{}"#,
                    it(100)
                ),
            ),
        ),
        (
            "shfl_diverge",
            SHFL_DIVERGE,
            spec("shfl_diverge", &format!("{out32},{}", it(100))),
        ),
    ];
    println!("SASS vs PTX emulator throughput ({reps} repetitions each, best run; one core)");
    println!(
        "  {:<14} {:<6} {:>11} {:>9} {:>9}   {:>11} {:>9} {:>9}   {:>6}",
        "kernel", "arch", "PTX lanes", "ms", "M/s", "SASS lanes", "ms", "M/s", "ratio"
    );
    for arch in ["sm_80", "sm_90"] {
        let (mut pl, mut ps, mut sl, mut ss) = (0u64, 0f64, 0u64, 0f64);
        for (name, text, sp) in &cases {
            let m = parse_module(text, name).expect("benchmark PTX parses");
            let opts = RunOptions {
                file: name.to_string(),
                ..RunOptions::default()
            };
            let prog =
                SassProgram::from_cubin(&cubin(&ptxas, text, name, arch)).expect("cubin prepares");
            let (mut pbest, mut sbest) = (f64::MAX, f64::MAX);
            let (mut plan, mut slan) = (0, 0);
            for _ in 0..reps {
                let t = Instant::now();
                let out = run(&m, sp, &opts).expect("PTX kernel runs");
                pbest = pbest.min(t.elapsed().as_secs_f64());
                plan = out.stats.lane_insts;
                let t = Instant::now();
                let out = warpsmith::sass::emu::run(&prog, sp, &opts).expect("SASS kernel runs");
                sbest = sbest.min(t.elapsed().as_secs_f64());
                slan = out.stats.lane_insts;
            }
            let (pr, sr) = (plan as f64 / pbest / 1e6, slan as f64 / sbest / 1e6);
            println!(
                "  {name:<14} {arch:<6} {plan:>11} {:>9.2} {pr:>9.1}   {slan:>11} {:>9.2} {sr:>9.1}   {:>6.2}",
                pbest * 1e3,
                sbest * 1e3,
                sr / pr
            );
            pl += plan;
            ps += pbest;
            sl += slan;
            ss += sbest;
        }
        let (pr, sr) = (pl as f64 / ps / 1e6, sl as f64 / ss / 1e6);
        println!(
            "  {:<14} {arch:<6} {pl:>11} {:>9.2} {pr:>9.1}   {sl:>11} {:>9.2} {sr:>9.1}   {:>6.2}",
            "total",
            ps * 1e3,
            ss * 1e3,
            sr / pr
        );
    }
}
