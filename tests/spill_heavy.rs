//! The spilling pass on the register-heavy kernels of bench/kernels/heavy.cu: each kernel is
//! rewritten for the next occupancy cliff below its register use (sm_80), and the rewritten module
//! must compute the same bytes as the original on the emulator (two seeds, the kernel's block size
//! and an incomplete last warp where the kernel allows it) and be accepted by ptxas with no local
//! memory.

mod common;

use warpsmith::emu::equiv;
use warpsmith::emu::launch::{spec_for, ElemType, Hints};
use warpsmith::ptx::{parse_module, print_module, Module};
use warpsmith::spill::{spill_module, SpillOptions, Target};
use warpsmith::tools::{self, Tool};

fn compile_heavy() -> Option<Module> {
    let clang = match tools::find(Tool::Clang) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("SKIPPED (spill_heavy): {e}");
            return None;
        }
    };
    let src = common::repo_root().join("bench/kernels/heavy.cu");
    let text = tools::cuda::cuda_to_ptx(&clang, &src, "sm_80", "O3")
        .unwrap_or_else(|e| panic!("clang failed on heavy.cu: {e}"));
    Some(parse_module(&text, "heavy.ptx").unwrap())
}

/// Launch hints per kernel: small problems that still exercise every path.
fn hints(kernel: &str) -> Vec<Hints> {
    let h = Hints::new();
    match kernel {
        "heavy_sgemm_8x8" | "heavy_sgemm_8x8_dynsmem" => {
            let dyn_smem = if kernel.ends_with("dynsmem") { 8192 } else { 0 };
            vec![h
                .block(&[256, 1, 1])
                .dynamic_smem(dyn_smem)
                .len_of(0, 128 * 16)
                .len_of(1, 16 * 128)
                .len_of(2, 128 * 128)
                .scalar(3, 128)
                .scalar(4, 120)
                .scalar(5, 16)]
        }
        "heavy_dgemm_4x4" => vec![h
            .block(&[256, 1, 1])
            .ty(0, ElemType::F64)
            .ty(1, ElemType::F64)
            .ty(2, ElemType::F64)
            .len_of(0, 64 * 8)
            .len_of(1, 8 * 64)
            .len_of(2, 64 * 64)
            .scalar(3, 64)
            .scalar(4, 60)
            .scalar(5, 8)],
        "heavy_accumulators96" => vec![
            h.clone()
                .block(&[256, 1, 1])
                .len(256)
                .scalar(2, 256)
                .scalar(3, 3),
            h.block(&[200, 1, 1]).len(200).scalar(2, 200).scalar(3, 2),
        ],
        "heavy_nbody12" => vec![h
            .block(&[128, 1, 1])
            .len_of(0, 4 * 96)
            .len_of(1, 3 * 96)
            .scalar(2, 96)],
        "heavy_stencil25" => vec![h
            .block(&[256, 1, 1])
            .grid(&[2, 2, 1])
            .len_of(0, 40 * 20 * 12)
            .len_of(1, 40 * 20 * 12)
            .len_of(2, 13)
            .scalar(3, 40)
            .scalar(4, 20)
            .scalar(5, 12)],
        "heavy_stencil33_dynsmem" => vec![h
            .block(&[256, 1, 1])
            .dynamic_smem(4224)
            .len_of(0, 1000)
            .len_of(1, 1000)
            .len_of(2, 33)
            .scalar(3, 1000)],
        "heavy_fft_radix8" => vec![h
            .block(&[256, 1, 1])
            .len(2048)
            .scalar(4, 250)
            .scalar(5, 256)],
        "heavy_lu8x8" => vec![
            h.clone().block(&[128, 1, 1]).len(64 * 128).scalar(2, 128),
            h.block(&[96, 1, 1]).len(64 * 96).scalar(2, 90),
        ],
        _ => Vec::new(),
    }
}

#[test]
fn heavy_kernels_spill_without_local_memory_and_compute_the_same_bytes() {
    let Some(original) = compile_heavy() else {
        return;
    };
    let use_ptxas = tools::find(Tool::Ptxas).is_ok();
    if !use_ptxas {
        eprintln!("SKIPPED (spill_heavy ptxas checks): ptxas not found");
    }
    let kernels: Vec<String> = original
        .functions()
        .filter(|f| f.body.is_some())
        .map(|f| f.name.to_string())
        .collect();
    assert!(kernels.len() >= 9);
    let mut checked = 0;
    for k in &kernels {
        let mut m = original.clone();
        let dynamic_smem = match k.as_str() {
            "heavy_sgemm_8x8_dynsmem" => 8192,
            "heavy_stencil33_dynsmem" => 4224,
            _ => 0,
        };
        let opts = SpillOptions {
            target: Target::Auto,
            kernel: Some(k.clone()),
            arch: "sm_80".into(),
            block_size: None,
            block_dim: None,
            smem_budget: None,
            use_ptxas,
            dynamic_smem: Some(dynamic_smem),
            ptxas_args: Vec::new(),
            jobs: None,
        };
        let report = spill_module(&mut m, &opts).unwrap_or_else(|e| panic!("{k}: {e}"));
        let r = &report.kernels[0];
        assert!(!r.demoted.is_empty(), "{k}: nothing demoted: {r:?}");
        let text = print_module(&m);
        let m = parse_module(&text, "spilled.ptx").unwrap_or_else(|e| panic!("{k}: {e}"));
        if use_ptxas {
            assert_eq!(
                r.ptxas_local_bytes,
                Some(0),
                "{k}: ptxas still uses local memory: {r:?}"
            );
            assert_eq!(
                r.ptxas_registers.map(|n| n <= r.max_regs),
                Some(true),
                "{k}: {r:?}"
            );
        }
        let f = original.function(k).unwrap();
        for h in hints(k) {
            let spec = spec_for(f, &h).unwrap_or_else(|e| panic!("{k}: {e}"));
            let eq = equiv::check(&original, &m, &spec, 2).unwrap_or_else(|e| panic!("{k}: {e}"));
            assert!(eq.is_equal(), "{k}: {:?}", eq.verdict);
            checked += 1;
        }
        eprintln!(
            "{k}: .maxnreg {}, {} demoted, +{} B shared, occupancy {:.0}% -> {:.0}%",
            r.max_regs,
            r.demoted.len(),
            r.smem_bytes,
            r.occupancy_before * 100.0,
            r.occupancy_after * 100.0
        );
    }
    assert!(checked >= 9, "only {checked} launches compared");
}
