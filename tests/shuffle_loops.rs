//! Shuffle synthesis in loops (bench/kernels/loops/*.cu, compiled with clang 22): induction
//! variables make addresses inside loops comparable, loads reuse what a neighbouring lane loaded in
//! the same iteration (with a run-time address check) or in the PREVIOUS iteration (beyond the
//! paper), ptxas accepts every output, the emulator gives the same bytes as the original on
//! several seeds and launch shapes (full warps, an incomplete last warp, `ntid.x` below 32 with
//! 2-D blocks), and the rewritten kernels execute fewer global loads. Also: the time budget
//! holds on a loop whose symbolic paths make single solver queries slow.

mod common;

use warpsmith::emu::launch::Hints;
use warpsmith::ptx::Module;
use warpsmith::shuffle::{shuffle_module, KernelShuffleReport, ShuffleOptions};

/// Integer parameters get 40, 12, 6, …: n/nx = 40, taps/ny = 12, rows/nz = 6; 4096-float buffers.
fn launches(m: &Module, kernel: &str) -> Vec<Hints> {
    let h = common::int_param_hints(m, kernel, &[40, 12, 6, 8], 4096);
    vec![
        h.clone().block(&[32, 1, 1]).grid(&[2, 12, 1]),
        h.clone().block(&[48, 1, 1]).grid(&[1, 12, 1]),
        h.block(&[16, 4, 1]).grid(&[3, 3, 1]),
    ]
}

/// Rewrites `name`, checks ptxas and equivalence; returns the report and the global loads
/// executed by the original and the rewritten kernel (first launch shape, all seeds).
fn run(name: &str) -> Option<(KernelShuffleReport, u64, u64)> {
    let orig = common::compile_bench_kernel("shuffle_loops", &format!("loops/{name}"))?;
    let mut m = orig.clone();
    let rep = shuffle_module(&mut m, &ShuffleOptions::exhaustive()).expect("shuffle");
    let back = common::print_reparse_assemble(name, &m);
    let k = rep.kernels.into_iter().next().expect("one kernel");
    assert!(k.skipped.is_none(), "{name}: {:?}", k.skipped);
    let reports = common::assert_equivalent(&orig, &back, &k.name, &launches(&orig, &k.name), 3);
    let (a, b) = (
        reports[0].stats_a.global_loads,
        reports[0].stats_b.global_loads,
    );
    eprintln!(
        "{name}: {} / {} loads replaced ({} from the previous iteration, {} checked), deltas {:?}; \
         global loads executed {a} -> {b}",
        k.shuffles, k.loads, k.cross_iteration, k.checked, k.deltas
    );
    Some((k, a, b))
}

#[test]
fn sliding_window_reuses_the_previous_iteration_of_the_neighbour_lane() {
    let Some((k, before, after)) = run("conv1d") else {
        return;
    };
    assert!(k.cross_iteration >= 1, "{k:?}");
    assert!(k.deltas.iter().any(|d| *d != 0), "{k:?}");
    assert!(
        after < before,
        "{after} global loads, not fewer than {before}"
    );
}

#[test]
fn column_window_reuses_the_previous_iteration_of_the_same_lane() {
    let Some((k, before, after)) = run("vpair") else {
        return;
    };
    assert!(k.cross_iteration >= 1, "{k:?}");
    assert!(
        after < before,
        "{after} global loads, not fewer than {before}"
    );
}

#[test]
fn loop_with_stores_reuses_only_within_an_iteration() {
    let Some((k, before, after)) = run("zmarch") else {
        return;
    };
    // The loop stores (possibly into `in`): nothing from the previous iteration.
    assert_eq!(k.cross_iteration, 0, "{k:?}");
    assert!(k.shuffles >= 1, "{k:?}");
    assert!(k.checked >= 1, "{k:?}");
    assert!(
        after < before,
        "{after} global loads, not fewer than {before}"
    );
}

/// The time budget holds where single feasibility queries are slow: on the long symbolic paths
/// of tests/data/shuffle/long_paths.ptx one query (a concrete witness repaired over the whole
/// path condition) costs up to a second, and the analysis checked its deadline only every 256
/// instructions — 34 s under a 2 s budget. It now checks before each query and stops repairing
/// witnesses once the deadline has passed.
#[test]
fn the_time_budget_holds_when_single_queries_are_slow() {
    use std::time::{Duration, Instant};
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/shuffle/long_paths.ptx"
    );
    let text = std::fs::read_to_string(path).expect("read");
    let mut m = warpsmith::ptx::parse_module(&text, path).expect("parse");
    let budget = Duration::from_millis(1500);
    let opts = ShuffleOptions {
        time_budget: Some(budget),
        ..ShuffleOptions::default()
    };
    let t = Instant::now();
    let rep = shuffle_module(&mut m, &opts).expect("shuffle");
    let took = t.elapsed();
    // The margin covers one Z3 query (the context's own 2 s timeout) and a slow machine.
    assert!(took < budget + Duration::from_secs(6), "took {took:?}");
    let skipped = rep.kernels[0].skipped.as_deref().unwrap_or_default();
    assert!(skipped.contains("time budget"), "{skipped:?}");
}
