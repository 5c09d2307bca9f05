//! Shuffle synthesis in loops (bench/kernels/loops/*.cu, compiled with clang 22): induction
//! variables make addresses inside loops comparable, loads reuse what a neighbouring lane loaded in
//! the same iteration (with a run-time address check) or in the PREVIOUS iteration (beyond the
//! paper), ptxas accepts every output, the emulator gives the same bytes as the original on
//! several seeds and launch shapes (full warps, an incomplete last warp, `ntid.x` below 32 with
//! 2-D blocks), and the rewritten kernels execute fewer global loads.

mod common;

use warpsmith::emu::equiv;
use warpsmith::emu::launch::{spec_for, Hints};
use warpsmith::ptx::ir::Type;
use warpsmith::ptx::{parse_module, print_module, Module};
use warpsmith::shuffle::{shuffle_module, KernelShuffleReport, ShuffleOptions};
use warpsmith::tools::{self, Tool};

fn compile(name: &str) -> Option<Module> {
    let clang = match tools::find(Tool::Clang) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("SKIPPED (shuffle_loops): {e}");
            return None;
        }
    };
    let src = common::repo_root().join(format!("bench/kernels/loops/{name}.cu"));
    let text = tools::cuda::cuda_to_ptx(&clang, &src, "sm_80", "O3")
        .unwrap_or_else(|e| panic!("clang failed on {name}.cu: {e}"));
    Some(parse_module(&text, &format!("{name}.ptx")).unwrap())
}

/// Integer parameters get 40, 12, 6, …: n/nx = 40, taps/ny = 12, rows/nz = 6; 4096-float buffers.
fn launches(m: &Module, kernel: &str) -> Vec<Hints> {
    let f = m.function(kernel).unwrap();
    let mut h = Hints::new().len(4096);
    let sizes = [40u64, 12, 6, 8];
    let mut k = 0;
    for (i, p) in f.param_list().iter().enumerate() {
        if matches!(p.ty, Type::S32 | Type::U32 | Type::B32) {
            h = h.scalar(i, sizes[k.min(sizes.len() - 1)]);
            k += 1;
        }
    }
    vec![
        h.clone().block(&[32, 1, 1]).grid(&[2, 12, 1]),
        h.clone().block(&[48, 1, 1]).grid(&[1, 12, 1]),
        h.block(&[16, 4, 1]).grid(&[3, 3, 1]),
    ]
}

/// Rewrites `name`, checks ptxas and equivalence; returns the report and the global loads
/// executed by the original and the rewritten kernel (first launch shape, all seeds).
fn run(name: &str) -> Option<(KernelShuffleReport, u64, u64)> {
    let orig = compile(name)?;
    let mut m = orig.clone();
    let rep = shuffle_module(&mut m, &ShuffleOptions::default()).expect("shuffle");
    let text = print_module(&m);
    let back = parse_module(&text, "out.ptx").unwrap_or_else(|e| panic!("{name}: {e}"));
    match tools::ptxas_accepts_source(&text, "sm_80") {
        Ok(()) => {}
        Err(tools::ToolError::NotFound { .. }) => eprintln!("SKIPPED (ptxas check): no ptxas"),
        Err(e) => panic!("{name}: ptxas rejects the output: {e}\n{text}"),
    }
    let k = rep.kernels.into_iter().next().expect("one kernel");
    assert!(k.skipped.is_none(), "{name}: {:?}", k.skipped);
    let mut loads = None;
    for h in launches(&orig, &k.name) {
        let spec = spec_for(orig.function(&k.name).unwrap(), &h).unwrap();
        let r = equiv::check(&orig, &back, &spec, 3)
            .unwrap_or_else(|e| panic!("{}: emulator: {e}", k.name));
        assert!(
            r.is_equal(),
            "{}: block {:?}: {:?}",
            k.name,
            h.block,
            r.verdict
        );
        loads.get_or_insert((r.stats_a.global_loads, r.stats_b.global_loads));
    }
    let (a, b) = loads.expect("a launch");
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
