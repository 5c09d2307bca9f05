//! The latency-first and pressure-first block orders of the register model
//! (src/analysis/issue_order.rs) keep the program's meaning: every kernel of a set of bench/kernels files (loads, stores, shared memory
//! and barriers, atomics, warp shuffles and votes, loops), with each block reordered, is accepted
//! by ptxas and computes the same bytes as the original on the emulator (3 seeds, two launch
//! shapes), at -O3 and at -O0 (whose stack slots are stored and loaded again within a block, so
//! the memory order is exercised: letting loads pass stores fails this test). clang's PTX hardly
//! redefines a register within a block, so the write-after-read order is checked by the unit
//! tests in src/analysis/issue_order.rs, not here. The model only counts pressure on that order,
//! but an order that broke a dependency would count the wrong values live.

mod common;

use warpsmith::analysis::issue_order::{latency_first, pressure_first, Greedy};
use warpsmith::emu::equiv;
use warpsmith::emu::launch::spec_for;
use warpsmith::machine::cfg::Cfg;
use warpsmith::machine::liveness::Liveness;
use warpsmith::ptx::Body;
use warpsmith::ptx::{FuncKind, Module};

/// The files whose kernels are reordered.
const FILES: &[&str] = &[
    "stencil1d",
    "stencil2d",
    "transpose",
    "histogram",
    "gemm",
    "sync",
    "reduce",
    "scan",
    "vote",
    "divergent",
    "fp64",
    "int64",
];

/// `m` with every function body in the order `order` gives it.
fn reordered(m: &Module, order: impl Fn(&Body, &Cfg) -> Body) -> Module {
    let mut out = m.clone();
    for f in out.functions_mut() {
        if let Some(body) = f.body.as_ref() {
            let cfg = Cfg::compute(body);
            f.body = Some(order(body, &cfg));
        }
    }
    out
}

#[test]
fn latency_first_order_computes_the_same_bytes() {
    same_bytes("latency-first", |body, cfg| {
        latency_first(body, cfg, |_| false)
    });
}

#[test]
fn pressure_first_order_computes_the_same_bytes() {
    same_bytes("pressure-first", |body, cfg| {
        let liveness = Liveness::compute(body, cfg);
        pressure_first(body, cfg, &liveness, &|_, units| units, Greedy::Step)
    });
}

#[test]
fn pressure_first_lookahead_orders_compute_the_same_bytes() {
    for greedy in [Greedy::Lookahead, Greedy::LookaheadTotal] {
        same_bytes(&format!("pressure-first {greedy:?}"), |body, cfg| {
            let liveness = Liveness::compute(body, cfg);
            pressure_first(body, cfg, &liveness, &|_, units| units, greedy)
        });
    }
}

/// Reorders every kernel of [`FILES`] with `order` and compares it with the original.
fn same_bytes(name: &str, order: impl Fn(&Body, &Cfg) -> Body) {
    let (mut compared, mut moved, mut not_launchable) = (0, 0, Vec::new());
    for (file, level) in FILES.iter().flat_map(|f| [(f, "O3"), (f, "O0")]) {
        let Some(orig) = common::compile_bench_kernel_at("issue_order", file, level) else {
            return;
        };
        let file = format!("{file} -{level}");
        let m = reordered(&orig, &order);
        let back = common::print_reparse_assemble(&file, &m);
        let kernels: Vec<String> = orig
            .functions()
            .filter(|f| f.kind == FuncKind::Entry)
            .map(|f| f.name.to_string())
            .collect();
        for k in kernels {
            let (fa, fm) = (orig.function(&k).unwrap(), m.function(&k).unwrap());
            if fa.body.as_ref().map(|b| &b.stmts) != fm.body.as_ref().map(|b| &b.stmts) {
                moved += 1;
            }
            let h = common::int_param_hints(&orig, &k, &[64, 48, 8], 8192);
            for h in [
                h.clone().block(&[64, 1, 1]).grid(&[2, 1, 1]),
                h.block(&[16, 8, 1]).grid(&[2, 2, 1]),
            ] {
                let spec = spec_for(fa, &h).expect("a launch spec");
                match equiv::check(&orig, &back, &spec, 3) {
                    Ok(r) => {
                        assert!(r.is_equal(), "{file}/{k}: {:?}", r.verdict);
                        compared += 1;
                    }
                    // A kernel the generic launch does not fit (its original fails the same
                    // way) is named, not counted.
                    Err(e) => not_launchable.push(format!("{file}/{k}: {e}")),
                }
            }
        }
    }
    eprintln!(
        "issue_order ({name}): {compared} launches compared equal, {moved} kernels reordered; \
         not launchable with the generic hints: {not_launchable:#?}"
    );
    assert!(compared >= 80, "only {compared} launches compared");
    assert!(moved >= 40, "only {moved} kernels reordered");
}
