//! `demote --local-to-shared` on cubins ptxas built (issue 16): bench kernels compiled by clang 22
//! (-O3) with `.maxnreg 40` so that ptxas spills, assembled for sm_80 and sm_90, then every
//! kernel is demoted with the launch's dynamic shared-memory size and proved on the SASS
//! emulator against the original on two launch shapes × two input seeds (every output byte).
//! Each output must also decode exactly as nvdisasm lists it (`sass check`), and a demoted kernel
//! must have no stack left.
//!
//! The test that the proof can fail: a layout built for fewer threads than the launch has makes
//! threads share frame words, and the emulator must catch it (the rewrite is then refused).
//!
//! Prints `SKIPPED: …` and passes when clang, ptxas or nvdisasm is absent.

mod common;

use warpsmith::emu::launch::{spec_for, Hints, LaunchSpec};
use warpsmith::ptx::ir::{FuncDirective, FuncKind, Type};
use warpsmith::sass::demote::{demote, DemoteOptions, RegisterTarget};
use warpsmith::sass::elf::Cubin;
use warpsmith::tools::{self, Tool};

/// Registers per thread: low enough that ptxas spills in most heavy kernels.
const MAX_REGS: u32 = 40;

/// clang's path when clang, ptxas and nvdisasm are all present; else prints why the test skips.
fn tools_present() -> Option<std::path::PathBuf> {
    for t in [Tool::Clang, Tool::Ptxas, Tool::Nvdisasm] {
        if let Err(e) = tools::find(t) {
            eprintln!("SKIPPED (sass_demote): {e}");
            return None;
        }
    }
    tools::find(Tool::Clang).ok()
}

/// `bench/kernels/<stem>.cu` for `arch` with `.maxnreg` [`MAX_REGS`] on every kernel: (module,
/// cubin bytes).
fn build(stem: &str, arch: &str) -> Option<(warpsmith::ptx::Module, Vec<u8>)> {
    build_capped(stem, arch, Some(MAX_REGS))
}

/// `bench/kernels/<stem>.cu` for `arch`, with `.maxnreg cap` on every kernel where given.
fn build_capped(
    stem: &str,
    arch: &str,
    cap: Option<u32>,
) -> Option<(warpsmith::ptx::Module, Vec<u8>)> {
    let clang = tools_present()?;
    let src = common::repo_root().join(format!("bench/kernels/{stem}.cu"));
    let text = tools::cuda::cuda_to_ptx(&clang, &src, arch, "O3").expect("clang compiles");
    let mut m = warpsmith::ptx::parse_module(&text, &format!("{stem}.ptx")).expect("parses");
    for f in m.functions_mut() {
        if let (FuncKind::Entry, Some(n)) = (f.kind, cap) {
            f.directives
                .retain(|d| !matches!(d, FuncDirective::MaxNreg(_)));
            f.directives.push(FuncDirective::MaxNreg(n));
        }
    }
    let cubin = assemble(&warpsmith::ptx::print_module(&m), arch);
    Some((m, cubin))
}

/// ptxas's cubin of PTX text for `arch` (a failure panics with ptxas's message).
fn assemble(ptx: &str, arch: &str) -> Vec<u8> {
    tools::ptxas_assemble_source(ptx, arch, &[])
        .unwrap_or_else(|e| panic!("ptxas: {e}"))
        .cubin
}

/// Two launch shapes for kernel `f` that reach its spill code, within its block-size bound
/// (grid, block, value of every 32-bit integer parameter), with 4352 bytes of dynamic shared
/// memory (heavy_stencil33_dynsmem's tile needs 4224; heavy_sgemm_8x8_dynsmem gets 8192; the
/// others ignore it).
fn specs(f: &warpsmith::ptx::ir::Function) -> Vec<LaunchSpec> {
    let shapes = match &*f.name {
        // Threads with x or y within 4 of an edge return at once; y = blockIdx.y·8 + tid/32.
        "heavy_stencil25" => vec![
            (vec![2u32, 2], vec![256u32], 24u64),
            (vec![1, 2], vec![128], 20),
        ],
        _ => vec![(vec![2], vec![64], 64), (vec![3, 1], vec![32, 2], 13)],
    };
    // heavy_sgemm_8x8_dynsmem's tiles take 8192 bytes.
    let dynamic = if &*f.name == "heavy_sgemm_8x8_dynsmem" {
        8192
    } else {
        4352
    };
    shapes
        .into_iter()
        .filter_map(|(grid, block, n)| {
            let mut h = Hints::new()
                .grid(&grid)
                .block(&block)
                .len(16384)
                .dynamic_smem(dynamic);
            for (i, p) in f.param_list().iter().enumerate() {
                if matches!(p.ty, Type::S32 | Type::U32 | Type::B32) && p.dims.is_empty() {
                    h = h.scalar(i, n);
                }
            }
            spec_for(f, &h).ok()
        })
        .collect()
}

/// Demotes every kernel of `stem` on `arch`, proving each; returns the kernels demoted.
fn demote_file(stem: &str, arch: &str) -> Option<Vec<String>> {
    let (m, bytes) = build(stem, arch)?;
    let mut demoted = Vec::new();
    let mut current = bytes.clone();
    for f in m.functions().filter(|f| f.kind == FuncKind::Entry) {
        let name = f.name.to_string();
        let verify = specs(f);
        assert!(!verify.is_empty(), "{name}: no launch spec");
        let opts = DemoteOptions {
            kernel: Some(name.clone()),
            block_size: None,
            dynamic_smem: Some(verify[0].dynamic_smem as u32),
            verify,
            seeds: 2,
            registers: None,
            predictor: None,
            predict_launch: None,
            grow_dynamic: false,
        };
        let out = demote(&current, &opts).unwrap_or_else(|e| panic!("{stem} {arch} {name}: {e}"));
        let k = &out.kernels[0];
        eprintln!(
            "{stem} {arch} {name}: {} ({})",
            if k.demoted { "demoted" } else { "kept" },
            k.reason
        );
        assert!(!k.reason.is_empty());
        if k.demoted {
            assert_eq!(k.verified.len(), 2, "{name}: both shapes proved");
            let c = Cubin::parse(&out.cubin).unwrap();
            // The whole frame (none left) or a part of it (less left).
            let left = k.after.expect("figures").local_bytes;
            assert_eq!(c.stack_size(&name).unwrap(), left);
            assert!(k.before.local_bytes > left, "{name}");
            let check = warpsmith::sass::check::check_cubin(&out.cubin)
                .unwrap_or_else(|e| panic!("{name}: sass check: {e}"));
            assert!(check.ok(), "{name}: {:?}", check.mismatches);
            demoted.push(name);
            current = out.cubin;
        }
    }
    Some(demoted)
}

#[test]
fn heavy_kernels_demote_and_prove_equal() {
    for arch in ["sm_80", "sm_90"] {
        let Some(demoted) = demote_file("heavy", arch) else {
            return;
        };
        // The two stencils' frames (40 and 48 bytes per thread) fit at equal occupancy on both.
        for k in ["heavy_stencil25", "heavy_stencil33_dynsmem"] {
            assert!(
                demoted.iter().any(|d| d == k) || arch == "sm_90" && k == "heavy_stencil25",
                "{arch}: {k} not demoted ({demoted:?})"
            );
        }
        assert!(demoted.len() >= 2, "{arch}: {demoted:?}");
    }
}

#[test]
fn a_layout_for_too_few_threads_is_caught_by_the_emulator() {
    let Some((m, bytes)) = build("heavy", "sm_80") else {
        return;
    };
    let f = m.function("heavy_stencil25").expect("kernel");
    // Blocks of 256 threads, layout for 32: threads t and t+32 share frame words.
    let verify: Vec<LaunchSpec> = specs(f).into_iter().take(1).collect();
    assert_eq!(verify[0].block.iter().product::<u32>(), 256);
    let opts = DemoteOptions {
        kernel: Some("heavy_stencil25".into()),
        block_size: Some(32),
        // The rule's figure only (the launch has 4352 B): small blocks with that much dynamic
        // shared memory would lose occupancy and the rewrite would never reach the emulator.
        dynamic_smem: Some(0),
        verify,
        seeds: 1,
        registers: None,
        predictor: None,
        predict_launch: None,
        grow_dynamic: false,
    };
    assert_caught_as_different(&bytes, &opts);
}

/// `opts` on `bytes` must be refused because the emulator finds the rewrite different, and the
/// input kept.
fn assert_caught_as_different(bytes: &[u8], opts: &DemoteOptions) {
    let out = demote(bytes, opts).unwrap_or_else(|e| panic!("{e}"));
    let k = &out.kernels[0];
    assert!(!k.demoted, "the overlap was not caught: {:?}", k.verified);
    assert!(k.reason.contains("different"), "{}", k.reason);
    assert_eq!(out.cubin, bytes, "the input is kept");
}

/// A Triton fixture of tests/data/demote (`STEM.ptx`, `STEM.spec.json`) assembled for `arch` and
/// demoted (`--local-to-shared`) with the spec's dynamic shared memory, proved on the spec with
/// one seed.
fn demote_fixture(stem: &str, arch: &str) -> warpsmith::sass::demote::Outcome {
    let (bytes, spec) = fixture(stem, arch);
    let opts = DemoteOptions {
        dynamic_smem: Some(spec.dynamic_smem as u32),
        verify: vec![spec],
        seeds: 1,
        ..DemoteOptions::default()
    };
    demote(&bytes, &opts).unwrap_or_else(|e| panic!("{stem}: {e}"))
}

/// A fixture of tests/data/demote assembled for `arch`, and its launch.
fn fixture(stem: &str, arch: &str) -> (Vec<u8>, LaunchSpec) {
    let data = common::repo_root().join("tests/data/demote");
    let ptx = std::fs::read_to_string(data.join(format!("{stem}.ptx"))).unwrap();
    let spec_text = std::fs::read_to_string(data.join(format!("{stem}.spec.json"))).unwrap();
    let spec = LaunchSpec::from_json(&spec_text).expect("spec");
    (assemble(&ptx, arch), spec)
}

/// Triton 3.6's flash attention (d = 128, causal; tests/data/demote): ptxas 12.9 spills 120 bytes
/// per thread at 255 registers on sm_80. Demoted with Triton's 64 KiB of dynamic shared memory,
/// its frame goes to shared memory at equal occupancy, and the SASS emulator (HMMA, LDSM,
/// LDGSTS) proves the rewrite on the suite's launch: every output byte equal.
#[test]
fn triton_attention_frame_moves_and_is_proved() {
    if tools_present().is_none() {
        return;
    }
    let out = demote_fixture("attn_d128_causal.sm_80", "sm_80");
    let k = &out.kernels[0];
    eprintln!("attention_forward: {} {:?}", k.reason, k.verified);
    assert!(k.demoted, "{}", k.reason);
    assert!(k.before.local_bytes > 0);
    assert_eq!(k.after.map(|a| a.local_bytes), Some(0));
    assert_eq!(k.occupancy.0, k.occupancy.1);
    assert_eq!(k.verified.len(), 1);
}

/// Triton 3.6's 128×256×64 fp16 matmul (4 warps: a 128×256 fp32 accumulator over 128 threads;
/// tests/data/demote): ptxas 12.9 spills at 255 registers, and the whole frame does not fit the
/// 48 KiB a block may declare statically. Part of it moves (the busiest slots), the rest stays in
/// a smaller frame addressed through a free uniform register: local memory shrinks at equal
/// occupancy, the output decodes as nvdisasm lists it, and the SASS emulator proves the rewrite
/// (one 128×256 tile, K = 128) with fewer local accesses than the original.
#[test]
fn triton_matmul_part_of_frame_moves_and_is_proved() {
    if tools_present().is_none() {
        return;
    }
    for arch in ["sm_90a", "sm_80"] {
        let out = demote_fixture(&format!("matmul_fp16_128x256x64.{arch}"), arch);
        let k = &out.kernels[0];
        eprintln!("{arch} tiled_matmul: {} {:?}", k.reason, k.verified);
        assert!(k.demoted, "{arch}: {}", k.reason);
        let after = k.after.expect("figures");
        assert!(
            after.local_bytes > 0 && after.local_bytes < k.before.local_bytes,
            "{arch}: part of the frame: {} -> {}",
            k.before.local_bytes,
            after.local_bytes
        );
        assert!(
            after.static_smem <= 48 * 1024,
            "{arch}: {}",
            after.static_smem
        );
        assert_eq!(k.occupancy.0, k.occupancy.1, "{arch}");
        assert_eq!(k.verified.len(), 1, "{arch}");
        assert!(
            k.verified[0].contains(" in the rewrite"),
            "{}",
            k.verified[0]
        );
        let c = Cubin::parse(&out.cubin).unwrap();
        assert_eq!(c.stack_size("tiled_matmul").unwrap(), after.local_bytes);
        let check = warpsmith::sass::check::check_cubin(&out.cubin)
            .unwrap_or_else(|e| panic!("{arch}: sass check: {e}"));
        assert!(check.ok(), "{arch}: {:?}", check.mismatches);
    }
}

/// Triton 3.4's 128×256×64 fp16 matmul through TMA tensor descriptors (sm_90a; found through
/// Triton 3.4's drop-in run): ptxas spills 624 B and writes `EIATTR_MBARRIER_INSTR_OFFSETS`,
/// 16-byte records `{offset, 0xff, shared immediate, kind}` for the `SYNCS` instructions on its
/// mbarriers. Moving part of the frame shifts those instructions: each record's first word must
/// follow its instruction and the other three must stay as they were (the editor once remapped
/// every word, and nvdisasm then refused the cubin: "runs out of data"). The rewrite is proved
/// on the suite's launch (tensor maps, mbarrier waits) and decodes as nvdisasm lists it.
#[test]
fn mbarrier_records_follow_their_instructions() {
    use warpsmith::sass::elf::nvinfo::{Attribute, NvInfo};
    if tools_present().is_none() {
        return;
    }
    let (bytes, _) = fixture("matmul_tma_fp16_128x256x64.sm_90a", "sm_90a");
    let out = demote_fixture("matmul_tma_fp16_128x256x64.sm_90a", "sm_90a");
    let k = &out.kernels[0];
    eprintln!("tma_matmul: {} {:?}", k.reason, k.verified);
    assert!(k.demoted, "{}", k.reason);
    let after = k.after.expect("figures");
    assert!(after.local_bytes < k.before.local_bytes);
    assert_eq!(k.verified.len(), 1);
    let records = |cubin: &[u8]| {
        let c = Cubin::parse(cubin).unwrap();
        let info = &c.sections[c.section_index(".nv.info.tma_matmul").unwrap()].data;
        let text = c.sections[c.section_index(".text.tma_matmul").unwrap()]
            .data
            .clone();
        let r = NvInfo::parse(info)
            .unwrap()
            .records
            .into_iter()
            .find(|r| r.attr == 0x39)
            .expect("MBARRIER_INSTR_OFFSETS");
        let Attribute::InstrRecords(v) = r.value else {
            panic!("not parsed as records: {:?}", r.value)
        };
        // Each record with the low 64 bits (opcode and operands) of the instruction it names.
        v.into_iter()
            .map(|rec| {
                let at = rec.offset as usize;
                let word = u64::from_le_bytes(text[at..at + 8].try_into().unwrap());
                (word, rec.rest)
            })
            .collect::<Vec<_>>()
    };
    let (old, new) = (records(&bytes), records(&out.cubin));
    assert!(old.len() >= 6, "{old:x?}");
    assert_eq!(
        old, new,
        "each record names the same instruction, its words unchanged"
    );
    let check = warpsmith::sass::check::check_cubin(&out.cubin)
        .unwrap_or_else(|e| panic!("sass check: {e}"));
    assert!(check.ok(), "{:?}", check.mismatches);
}

/// `--grow-dynamic` on the same matmuls: the region goes to the end of a dynamic area the launch
/// grows, so it is held to the architecture's per-block maximum instead of the 48 KiB of static
/// shared memory, and more of the frame moves (sm_90a 808 → 160 B, sm_80 1384 → 864 B where the
/// static region leaves 448 and 1024). The static area does not grow; the rewrite is proved on
/// the grown launch; on the original launch the region lies outside the block's shared memory
/// and the run faults instead of overwriting the kernel's own data.
#[test]
fn a_region_in_a_grown_dynamic_area_moves_more_and_needs_the_grown_launch() {
    if tools_present().is_none() {
        return;
    }
    for arch in ["sm_90a", "sm_80"] {
        let (bytes, spec) = fixture(&format!("matmul_fp16_128x256x64.{arch}"), arch);
        let opts = |grow_dynamic| DemoteOptions {
            dynamic_smem: Some(spec.dynamic_smem as u32),
            verify: vec![spec.clone()],
            seeds: 1,
            grow_dynamic,
            ..DemoteOptions::default()
        };
        let in_static = demote(&bytes, &opts(false)).unwrap();
        let out = demote(&bytes, &opts(true)).unwrap();
        let (s, k) = (&in_static.kernels[0], &out.kernels[0]);
        eprintln!("{arch}: {} {:?}", k.reason, k.verified);
        assert!(k.demoted, "{arch}: {}", k.reason);
        let (a, a_static) = (k.after.expect("figures"), s.after.expect("figures"));
        assert!(
            a.local_bytes < a_static.local_bytes,
            "{arch}: {} B left, {} B with the static region",
            a.local_bytes,
            a_static.local_bytes
        );
        assert_eq!(
            a.static_smem, k.before.static_smem,
            "{arch}: the static area stays"
        );
        assert!(
            a.dynamic_added as u64 > 48 * 1024,
            "{arch}: {}",
            a.dynamic_added
        );
        assert_eq!(k.occupancy.0, k.occupancy.1, "{arch}");
        assert_eq!(k.verified.len(), 1, "{arch}");
        assert!(
            k.verified[0].contains("the rewrite's launch"),
            "{}",
            k.verified[0]
        );
        // Every rewritten instruction decodes as nvdisasm lists it.
        let check = warpsmith::sass::check::check_cubin(&out.cubin)
            .unwrap_or_else(|e| panic!("{arch}: sass check: {e}"));
        assert!(check.ok(), "{arch}: {:?}", check.mismatches);
        // The original launch: the region is past the block's shared memory.
        let prog = warpsmith::sass::emu::SassProgram::from_cubin(&out.cubin).unwrap();
        let e = warpsmith::sass::emu::run(&prog, &spec, &Default::default())
            .map(|_| ())
            .expect_err("the rewrite needs the grown launch");
        assert!(
            e.to_string().contains("out-of-bounds shared access"),
            "{arch}: {e}"
        );
        // The grown one runs.
        let mut grown = spec.clone();
        grown.dynamic_smem += u64::from(a.dynamic_added);
        warpsmith::sass::emu::run(&prog, &grown, &Default::default())
            .unwrap_or_else(|e| panic!("{arch}: {e}"));
    }
}

/// Register demotion (`--occupancy auto`) of ptxas's own builds of the heavy kernels (no cap):
/// every kernel the rule keeps is proved on the SASS emulator on two shapes × two seeds, decodes
/// as nvdisasm lists it, and records the register count the plan reached.
#[test]
fn heavy_kernels_register_demotion_proves_equal() {
    for arch in ["sm_80", "sm_90"] {
        let Some((m, bytes)) = build_capped("heavy", arch, None) else {
            return;
        };
        let mut demoted = Vec::new();
        for f in m.functions().filter(|f| f.kind == FuncKind::Entry) {
            let name = f.name.to_string();
            let verify = specs(f);
            let opts = DemoteOptions {
                kernel: Some(name.clone()),
                dynamic_smem: Some(verify[0].dynamic_smem as u32),
                verify,
                seeds: 2,
                registers: Some(RegisterTarget::Auto),
                ..DemoteOptions::default()
            };
            let out = demote(&bytes, &opts).unwrap_or_else(|e| panic!("{arch} {name}: {e}"));
            let k = &out.kernels[0];
            eprintln!("{arch} {name}: demoted {} ({})", k.demoted, k.reason);
            if !k.demoted {
                assert_eq!(out.cubin, bytes, "{name}: the input is kept");
                continue;
            }
            assert_eq!(k.verified.len(), 2, "{name}: both shapes proved");
            let after = k.after.expect("figures");
            assert!(after.registers < k.before.registers, "{name}");
            assert!(k.occupancy.1 > k.occupancy.0, "{name}: {:?}", k.occupancy);
            let c = Cubin::parse(&out.cubin).unwrap();
            let func = c.function(&name).unwrap();
            assert_eq!(c.register_count(&func), after.registers);
            let check = warpsmith::sass::check::check_cubin(&out.cubin)
                .unwrap_or_else(|e| panic!("{name}: sass check: {e}"));
            assert!(check.ok(), "{name}: {:?}", check.mismatches);
            demoted.push(name);
        }
        assert!(demoted.len() >= 3, "{arch}: {demoted:?}");
    }
}

/// The register slots, too, are per thread: a layout built for 128 threads launched with 256
/// makes threads share slots, and the emulator must refuse the rewrite.
#[test]
fn register_slots_for_too_few_threads_are_caught_by_the_emulator() {
    let Some((m, bytes)) = build_capped("heavy", "sm_80", None) else {
        return;
    };
    let f = m.function("heavy_stencil25").expect("kernel");
    let verify: Vec<LaunchSpec> = specs(f).into_iter().take(1).collect();
    let opts = DemoteOptions {
        kernel: Some("heavy_stencil25".into()),
        block_size: Some(128),
        dynamic_smem: Some(0),
        verify,
        seeds: 1,
        registers: Some(RegisterTarget::MaxRegs(48)),
        predictor: None,
        predict_launch: None,
        grow_dynamic: false,
    };
    assert_caught_as_different(&bytes, &opts);
}

/// A frame and registers together (lit-tests/demote/Inputs/spill24.ptx on sm_90: 56 bytes of
/// frame at 24 registers): the frame moves with the register slots after it, the register count
/// falls to the target, and the emulator proves it on both launches.
#[test]
fn frame_and_registers_move_together() {
    if tools_present().is_none() {
        return;
    }
    let inputs = common::repo_root().join("lit-tests/demote/Inputs");
    let ptx = std::fs::read_to_string(inputs.join("spill24.ptx"))
        .unwrap()
        .replace("sm_80", "sm_90");
    let bytes = assemble(&ptx, "sm_90");
    let verify: Vec<LaunchSpec> = ["spill24.json", "spill24_dyn.json"]
        .iter()
        .map(|f| LaunchSpec::from_json(&std::fs::read_to_string(inputs.join(f)).unwrap()).unwrap())
        .collect();
    let opts = DemoteOptions {
        dynamic_smem: Some(0),
        verify,
        seeds: 2,
        registers: Some(RegisterTarget::MaxRegs(16)),
        ..DemoteOptions::default()
    };
    let out = demote(&bytes, &opts).unwrap_or_else(|e| panic!("{e}"));
    let k = &out.kernels[0];
    assert!(k.demoted, "{}", k.reason);
    assert_eq!(k.before.local_bytes, 56);
    let after = k.after.expect("figures");
    assert_eq!((after.registers, after.local_bytes), (16, 0));
    assert!(k.accesses > 0, "the frame's accesses were replaced");
    assert_eq!(k.verified.len(), 2);
    let c = Cubin::parse(&out.cubin).unwrap();
    assert_eq!(c.stack_size("spill24").unwrap(), 0);
    let check = warpsmith::sass::check::check_cubin(&out.cubin).unwrap();
    assert!(check.ok(), "{:?}", check.mismatches);
}

/// Blackwell cubins (sm_100): the SASS side does not decode them, so `demote` keeps every kernel
/// with the reason, and `can_edit` tells the drop-in so (it then builds no second pipeline).
#[test]
fn blackwell_cubins_are_kept_as_they_are() {
    if tools_present().is_none() {
        return;
    }
    let data = common::repo_root().join("tests/data/demote");
    let ptx = std::fs::read_to_string(data.join("attn_d128_causal.sm_80.ptx")).unwrap();
    assert!(warpsmith::sass::demote::can_edit(&assemble(&ptx, "sm_80")));
    let bytes = assemble(&ptx, "sm_100a");
    assert!(!warpsmith::sass::demote::can_edit(&bytes));
    assert!(!warpsmith::sass::demote::can_edit(b"not a cubin"));
    let opts = DemoteOptions {
        dynamic_smem: Some(65536),
        ..DemoteOptions::default()
    };
    let out = demote(&bytes, &opts).expect("sm_100 has occupancy limits");
    assert!(out.cubin == bytes);
    let k = &out.kernels[0];
    assert!(!k.demoted);
    assert!(k.reason.contains("architecture sm_100"), "{}", k.reason);
}

/// A kernel that changes its register budget at run time (`setmaxnreg`, sm_90a) draws the
/// registers a warp adds from the CTA's pool, which the kernel's register count sizes: a
/// demoted count would leave `setmaxnreg.inc` waiting forever. The demoter must keep it (it once
/// rewrote the feature probe's 128 registers to 64, predicted faster, because the SASS emulator
/// grants every request).
#[test]
fn kernels_that_reconfigure_registers_keep_their_count() {
    if tools_present().is_none() {
        return;
    }
    let data = common::repo_root().join("tests/data/sass-features");
    for probe in ["setmaxnreg", "setmaxnreg_dec"] {
        let ptx = std::fs::read_to_string(data.join(format!("{probe}.ptx"))).unwrap();
        let bytes = assemble(&ptx, "sm_90a");
        assert!(Cubin::parse(&bytes).unwrap().reconfigures_registers("k"));
        let opts = DemoteOptions {
            dynamic_smem: Some(0),
            registers: Some(RegisterTarget::MaxRegs(64)),
            ..DemoteOptions::default()
        };
        let out = demote(&bytes, &opts).unwrap_or_else(|e| panic!("{e}"));
        let k = &out.kernels[0];
        assert!(!k.demoted, "{probe}: demoted");
        assert!(k.reason.contains("setmaxnreg"), "{probe}: {}", k.reason);
        assert_eq!(out.cubin, bytes, "{probe}: the output is the input");
    }
}

/// A relocatable cubin (`ptxas -c`, what `nvlink` links) has no program headers: the shared
/// memory the rewrite adds is a section of ptxas's relocatable type, and no segment is made up
/// (one used to be written over the ELF header). Demoted, proved, and read back by nvdisasm.
#[test]
fn relocatable_cubins_gain_shared_memory_without_a_segment() {
    if tools_present().is_none() {
        return;
    }
    let inputs = common::repo_root().join("lit-tests/demote/Inputs");
    let ptx = std::fs::read_to_string(inputs.join("spill24.ptx"))
        .unwrap()
        .replace("sm_80", "sm_90");
    let bytes = tools::ptxas_assemble_source(&ptx, "sm_90", &["-c"])
        .unwrap_or_else(|e| panic!("ptxas: {e}"))
        .cubin;
    let before = Cubin::parse(&bytes).unwrap();
    assert_eq!(before.header.e_type, warpsmith::sass::elf::ET_REL);
    assert!(before.segments.is_empty());
    let verify =
        LaunchSpec::from_json(&std::fs::read_to_string(inputs.join("spill24.json")).unwrap())
            .unwrap();
    let opts = DemoteOptions {
        dynamic_smem: Some(0),
        verify: vec![verify],
        seeds: 2,
        registers: Some(RegisterTarget::MaxRegs(16)),
        ..DemoteOptions::default()
    };
    let out = demote(&bytes, &opts).unwrap_or_else(|e| panic!("{e}"));
    let k = &out.kernels[0];
    assert!(k.demoted, "{}", k.reason);
    assert_eq!(k.verified.len(), 1);
    let c = Cubin::parse(&out.cubin).unwrap();
    assert_eq!(c.header.e_type, warpsmith::sass::elf::ET_REL);
    assert!(c.segments.is_empty(), "no segment is made up");
    let shared = c.section(".nv.shared.spill24").expect("a shared section");
    assert_eq!(shared.header.sh_type, warpsmith::sass::elf::SHT_CUDA_SHARED);
    assert!(c.shared_size("spill24") > 0);
    let check = warpsmith::sass::check::check_cubin(&out.cubin).unwrap();
    assert!(check.ok(), "{:?}", check.mismatches);
}
