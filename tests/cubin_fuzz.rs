//! Cubin robustness: damaged cubins (flipped bits in the code, in the headers and tables,
//! truncations) must never make the cubin tools panic. The SASS emulator, `demote` (frame and
//! register demotion, with the emulator's proof) and `lmem-report` either work on what they are
//! given or return an error; none of them may hang: nvdisasm, which a damaged cubin can keep busy
//! without end, runs under its time limit (docs/tools.md, "Time limits"; this test sets it to 10 s).
//!
//! Inputs: Triton kernels of tests/data/sass_triton (layer norm and softmax for sm_80, the int8
//! matmul for sm_90a) and the fp16 matmul of tests/data/triton, assembled here by ptxas, each run
//! on its own launch spec. Deterministic: a fixed-seed xorshift generator; `WARPSMITH_FUZZ_ITERS`
//! sets the mutations per cubin (default 12). Prints `SKIPPED: <tool> not found` and passes when
//! ptxas or nvdisasm is absent.

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};

use warpsmith::emu::launch::RunOptions;
use warpsmith::emu::LaunchSpec;
use warpsmith::sass::demote::{demote, DemoteOptions, RegisterTarget};
use warpsmith::sass::elf::Cubin;
use warpsmith::sass::emu::SassProgram;
use warpsmith::tools::{self, Tool};

/// (fixture PTX, architecture it is assembled for).
const CASES: [(&str, &str); 4] = [
    ("tests/data/sass_triton/sm_80/layer_norm_4096.ptx", "sm_80"),
    ("tests/data/sass_triton/sm_80/softmax_8192.ptx", "sm_80"),
    ("tests/data/triton/sm_80/matmul_fp16_64x64x32.ptx", "sm_80"),
    (
        "tests/data/sass_triton/sm_90/matmul_int8_128x128x64.ptx",
        "sm_90a",
    ),
];

/// The byte range of the first `.text.` section (the kernel's code) in the file, as the project's
/// ELF reader gives it.
fn code_range(cubin: &[u8]) -> (usize, usize) {
    let elf = Cubin::parse(cubin).expect("the undamaged cubin reads");
    let text = elf
        .sections
        .iter()
        .find(|s| s.name.starts_with(".text."))
        .expect("a code section");
    (text.header.sh_offset as usize, text.data.len())
}

/// One damaged copy of `cubin`, whose code is at `off..off + size`: mostly bit flips in the code
/// (what the decoder, the emulator and the rewriter read), sometimes bytes anywhere (headers,
/// `.nv.info`, symbols) or a truncation.
fn mutate(cubin: &[u8], (off, size): (usize, usize), rng: &mut common::Rng) -> Vec<u8> {
    let mut b = cubin.to_vec();
    match rng.below(8) {
        0 => {
            let keep = rng.below(b.len());
            b.truncate(keep);
        }
        1 | 2 => {
            for _ in 0..1 + rng.below(8) {
                let at = rng.below(b.len());
                b[at] = rng.next() as u8;
            }
        }
        _ => {
            for _ in 0..1 + rng.below(3) {
                let at = off + rng.below(size);
                b[at] ^= 1 << rng.below(8);
            }
        }
    }
    b
}

/// Runs every cubin tool on `bytes`; `Err` names the one that panicked.
fn exercise(bytes: &[u8], spec: &LaunchSpec) -> Result<usize, String> {
    let mut worked = 0;
    let mut attempt = |what: &str, f: &mut dyn FnMut() -> bool| {
        match catch_unwind(AssertUnwindSafe(&mut *f)) {
            Ok(true) => worked += 1,
            Ok(false) => {}
            Err(_) => return Err(what.to_string()),
        }
        Ok(())
    };
    attempt("the SASS emulator", &mut || {
        SassProgram::from_cubin(bytes)
            .ok()
            .and_then(|p| warpsmith::sass::emu::run(&p, spec, &RunOptions::default()).ok())
            .is_some()
    })?;
    let verified = |registers| DemoteOptions {
        dynamic_smem: Some(spec.dynamic_smem as u32),
        verify: vec![spec.clone()],
        seeds: 1,
        registers,
        ..DemoteOptions::default()
    };
    attempt("demote --local-to-shared", &mut || {
        demote(bytes, &verified(None)).is_ok()
    })?;
    attempt("demote --occupancy auto", &mut || {
        demote(bytes, &verified(Some(RegisterTarget::Auto))).is_ok()
    })?;
    attempt("lmem-report", &mut || {
        warpsmith::sass::lmem::report(bytes, None, Some(spec)).is_ok()
    })?;
    Ok(worked)
}

#[test]
fn damaged_cubins_are_refused_or_handled_never_a_panic() {
    let ptxas = match tools::find(Tool::Ptxas) {
        Ok(p) => p,
        Err(_) => return eprintln!("SKIPPED: ptxas not found (cubin_fuzz)"),
    };
    if tools::find(Tool::Nvdisasm).is_err() {
        return eprintln!("SKIPPED: nvdisasm not found (cubin_fuzz)");
    }
    // Set before any tool runs and never changed: every test of this binary sees the same value.
    std::env::set_var(tools::TIME_LIMIT_VAR, "10");
    let iters: usize = std::env::var("WARPSMITH_FUZZ_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(12);
    let root = common::repo_root();
    let mut rng = common::Rng(0x5eed_cb1b_2026_1204);
    let mut failures = Vec::new();
    for (ptx, arch) in CASES {
        let ptx = root.join(ptx);
        let spec = LaunchSpec::from_json(
            &std::fs::read_to_string(ptx.with_extension("spec.json")).expect("spec"),
        )
        .expect("spec parses");
        let cubin = common::assemble_cubin(&ptxas, &ptx, arch, &[]);
        assert!(
            exercise(&cubin, &spec).expect("the undamaged cubin") >= 3,
            "{}: the undamaged cubin must run, demote and report",
            ptx.display()
        );
        let code = code_range(&cubin);
        let mut handled = 0;
        for i in 0..iters {
            let damaged = mutate(&cubin, code, &mut rng);
            match exercise(&damaged, &spec) {
                Ok(n) => handled += n,
                Err(tool) => {
                    let keep = std::env::temp_dir().join(format!(
                        "warpsmith-fuzz-{}-{i}.cubin",
                        ptx.file_stem().unwrap().to_string_lossy()
                    ));
                    let _ = std::fs::write(&keep, &damaged);
                    failures.push(format!("{tool} panicked on {}", keep.display()));
                }
            }
        }
        eprintln!(
            "{} ({arch}): {iters} damaged cubins, {handled} tool runs completed, the rest refused",
            ptx.file_stem().unwrap().to_string_lossy()
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
