//! Shuffle synthesis on the PTXASW Table 2 stencils (bench/kernels/stencils/*.cu, compiled with
//! clang 22 as scripts/compile-kernels.sh does): every kernel is rewritten, ptxas must accept the
//! result, and the emulator must give the same bytes as the original on several seeds and
//! launch shapes (full warps, an incomplete last warp, `ntid.x` below 32 with 2-D blocks).

mod common;

use warpsmith::emu::equiv;
use warpsmith::emu::launch::{spec_for, Hints};
use warpsmith::ptx::ir::Type;
use warpsmith::ptx::{parse_module, print_module, Module};
use warpsmith::shuffle::{shuffle_module, ShuffleOptions};
use warpsmith::tools::{self, Tool};

fn compile(name: &str) -> Option<Module> {
    let clang = match tools::find(Tool::Clang) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("SKIPPED (shuffle_stencils): {e}");
            return None;
        }
    };
    let src = common::repo_root().join(format!("bench/kernels/stencils/{name}.cu"));
    let text = tools::cuda::cuda_to_ptx(&clang, &src, "sm_80", "O3")
        .unwrap_or_else(|e| panic!("clang failed on {name}.cu: {e}"));
    Some(parse_module(&text, &format!("{name}.ptx")).unwrap())
}

/// Small problems: integer parameters nx, ny, nz, … get 40, 12, 6, 8; buffers 4096 floats.
fn launches(m: &Module, kernel: &str) -> Vec<Hints> {
    let f = m.function(kernel).unwrap();
    let mut h = Hints::new().len(4096);
    let sizes = [40u64, 12, 6, 8, 8];
    let mut k = 0;
    for (i, p) in f.param_list().iter().enumerate() {
        if matches!(p.ty, Type::S32 | Type::U32 | Type::B32) {
            h = h.scalar(i, sizes[k.min(sizes.len() - 1)]);
            k += 1;
        }
    }
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
        let Some(orig) = compile(name) else { return };
        let mut m = orig.clone();
        let rep = shuffle_module(&mut m, &ShuffleOptions::default()).expect("shuffle");
        let text = print_module(&m);
        let back = parse_module(&text, "out.ptx").unwrap_or_else(|e| panic!("{name}: {e}"));
        match tools::ptxas_accepts_source(&text, "sm_80") {
            Ok(()) => {}
            Err(tools::ToolError::NotFound { .. }) => eprintln!("SKIPPED (ptxas check): no ptxas"),
            Err(e) => panic!("{name}: ptxas rejects the output: {e}"),
        }
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
            for h in launches(&orig, &k.name) {
                let spec = spec_for(orig.function(&k.name).unwrap(), &h).unwrap();
                let r = equiv::check(&orig, &back, &spec, 2)
                    .unwrap_or_else(|e| panic!("{}: emulator: {e}", k.name));
                assert!(
                    r.is_equal(),
                    "{}: block {:?}: {:?}",
                    k.name,
                    h.block,
                    r.verdict
                );
            }
        }
    }
    assert!(
        total_shuffles > 0,
        "no shuffle at all in the Table 2 kernels"
    );
}
