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

/// A kernel whose analysis cannot finish does not spend the budget of the kernels after it:
/// each kernel's share is what is left divided by the kernels still to analyse. Before, the
/// first kernel of bench/kernels/heavy.cu spent the whole 2 s and eight kernels were skipped.
#[test]
fn a_slow_kernel_leaves_time_for_the_next() {
    use std::time::Duration;
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/shuffle/long_paths.ptx"
    );
    let slow = std::fs::read_to_string(path).expect("read");
    let fast = r#"
.visible .entry stencil3(.param .u64 in, .param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .f32 %f<6>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.s32 %r3, %r1, %r2, %r3;
  cvta.to.global.u64 %rd3, %rd1;
  mul.wide.s32 %rd4, %r3, 4;
  add.s64 %rd5, %rd3, %rd4;
  ld.global.f32 %f1, [%rd5];
  ld.global.f32 %f2, [%rd5+4];
  ld.global.f32 %f3, [%rd5+8];
  add.f32 %f4, %f1, %f2;
  add.f32 %f5, %f4, %f3;
  cvta.to.global.u64 %rd6, %rd2;
  add.s64 %rd7, %rd6, %rd4;
  st.global.f32 [%rd7], %f5;
  ret;
}
"#;
    let text = format!("{slow}{fast}");
    let mut m = warpsmith::ptx::parse_module(&text, "two.ptx").expect("parse");
    let opts = ShuffleOptions {
        time_budget: Some(Duration::from_millis(1500)),
        profitable_only: false,
        ..ShuffleOptions::default()
    };
    let rep = shuffle_module(&mut m, &opts).expect("shuffle");
    let [first, second] = &rep.kernels[..] else {
        panic!("two kernels: {:?}", rep.kernels);
    };
    assert!(
        first
            .skipped
            .as_deref()
            .is_some_and(|s| s.contains("time budget")),
        "{first:?}"
    );
    assert_eq!(second.skipped, None, "{second:?}");
    assert_eq!(second.shuffles, 2, "{second:?}");
}
