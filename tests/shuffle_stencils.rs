//! Shuffle synthesis on the PTXASW Table 2 stencils (bench/kernels/stencils/*.cu, compiled with
//! clang 22 as scripts/compile-kernels.sh does): every kernel is rewritten, ptxas must accept the
//! result, and the emulator must give the same bytes as the original on several seeds and
//! launch shapes (full warps, an incomplete last warp, `ntid.x` below 32 with 2-D blocks).

mod common;

use warpsmith::emu::launch::Hints;
use warpsmith::ptx::Module;
use warpsmith::shuffle::{shuffle_module, ShuffleOptions};

/// Small problems: integer parameters nx, ny, nz, … get 40, 12, 6, 8; buffers 4096 floats.
fn launches(m: &Module, kernel: &str) -> Vec<Hints> {
    let h = common::int_param_hints(m, kernel, &[40, 12, 6, 8, 8], 4096);
    vec![
        h.clone().block(&[32, 2, 1]).grid(&[2, 6, 6]),
        h.clone().block(&[48, 1, 1]).grid(&[1, 12, 6]),
        h.block(&[16, 4, 1]).grid(&[3, 3, 6]),
    ]
}

#[test]
fn table2_stencils_are_equivalent_after_shuffle_synthesis() {
    let dir = common::repo_root().join("bench/kernels/stencils");
    let mut names: Vec<String> = common::files_with_ext(&dir, "cu")
        .iter()
        .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .collect();
    names.sort();
    if names.is_empty() {
        eprintln!("SKIPPED (shuffle_stencils): no kernels in bench/kernels/stencils");
        return;
    }
    let mut total_shuffles = 0;
    for name in &names {
        let Some(orig) =
            common::compile_bench_kernel("shuffle_stencils", &format!("stencils/{name}"))
        else {
            return;
        };
        let mut m = orig.clone();
        let rep = shuffle_module(&mut m, &ShuffleOptions::exhaustive()).expect("shuffle");
        let back = common::print_reparse_assemble(name, &m);
        for k in &rep.kernels {
            assert!(k.skipped.is_none(), "{name}: {:?}", k.skipped);
            total_shuffles += k.shuffles;
            eprintln!(
                "{}: {} / {} loads shuffled, {:.0} ms",
                k.name, k.shuffles, k.loads, k.analysis_ms
            );
            if k.shuffles == 0 {
                continue;
            }
            common::assert_equivalent(&orig, &back, &k.name, &launches(&orig, &k.name), 2);
        }
    }
    assert!(
        total_shuffles > 0,
        "no shuffle at all in the Table 2 kernels"
    );
}
