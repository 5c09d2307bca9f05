//! Cross-validation of the SASS emulator against the PTX emulator (issue 15): every bench kernel
//! (bench/kernels/**/*.cu) is compiled by clang 22 to PTX (-O3) for sm_80 and sm_90, assembled by
//! ptxas with `--fmad=false` (so ptxas contracts nothing the PTX did not), and each kernel runs on
//! both emulators on two launch shapes with the same generated inputs. Every output byte must be
//! equal — or, for kernels built on approximate instructions (`.approx`: the SASS runs `MUFU`,
//! whose model differs from the PTX emulator's libm in the last bits), within the stated
//! tolerance: |x − y| ≤ 10⁻⁴ · max(1, |x|, |y|) per f32 element (MUFU.SIN/COS take an argument
//! already rounded toward zero by `FMUL.RZ x, 1/2π`, and the kernels amplify that error).
//!
//! The first shape of each kernel also runs on the SASS emulator's timing mode with every CTA on
//! one simulated SM, two at a time: its bytes must be the functional run's (except for the
//! kernels of [`CTA_ORDER_DEPENDENT`], whose results depend on which CTA wins an atomic).
//!
//! Outcomes per kernel and shape: `pass`, `pass~` (within tolerance), `UNSUPPORTED` (the SASS
//! emulator stopped at an instruction it does not implement: named, counted, visible), `ptx-n/a`
//! (the PTX emulator itself cannot run this generated launch: the kernel needs a specific spec).
//! The test fails on any byte mismatch, on a SASS-emulator fault or error where the PTX run
//! succeeded, and when a kernel of [`MUST_PASS`] does not pass.
//!
//! Prints `SKIPPED: <tool> not found` and passes when clang, ptxas or nvdisasm is absent.

mod common;

use std::path::{Path, PathBuf};

use warpsmith::emu::decode::Program;
use warpsmith::emu::launch::{run_program, spec_for, Hints, LaunchSpec, OutBuffer};
use warpsmith::emu::EmuError;
use warpsmith::emu::RunOptions;
use warpsmith::ptx::ir::{FuncKind, Type};
use warpsmith::sass::emu::SassProgram;
use warpsmith::tools::{self, Tool};

/// (file stem, kernel) pairs that must pass (exactly or within the tolerance) on both
/// architectures: no run of theirs may be a mismatch, an error or unsupported, and at least one
/// shape must run on each architecture (the others may be `ptx-n/a` or `bad-launch`). The
/// regression guard: 93 of the 101 bench kernels at the time of writing.
const MUST_PASS: &[(&str, &str)] = &[
    ("atomics_cas", "cas_add_double"),
    ("atomics_cas", "cas_list_push"),
    ("atomics_cas", "cas_max_float"),
    ("bigregs", "many_accumulators128"),
    ("bigregs", "nbody_8_per_thread"),
    ("bitonic", "bitonic_sort_1024"),
    ("bitonic", "bitonic_warp_sort32"),
    ("calls", "call_noinline_triple"),
    ("calls", "call_recursive"),
    ("conv1d", "conv1d"),
    ("conv2d", "conv2d_5x5_const"),
    ("conv2d", "conv_row_param_taps"),
    ("divergence", "divergence"),
    ("divergent", "collatz_steps"),
    ("dynsmem", "dynsmem_reverse"),
    ("dynsmem", "dynsmem_two_arrays"),
    ("divergent", "divergent_trip_count"),
    ("divergent", "mandelbrot"),
    ("fp64", "daxpy"),
    ("fp64", "ddot_atomic"),
    ("fp64", "dpoly_horner"),
    ("fpforms", "_Z10div_by_regPKfS0_Pfi"),
    ("fpforms", "_Z10double_divPKdS0_Pddi"),
    ("fpforms", "_Z10minmax_absPKfS0_Pffi"),
    ("fpforms", "_Z11conversionsPKfPKDF16_PKdPdPfPDF16_Pii"),
    ("fpforms", "_Z12div_by_paramPKfPffi"),
    ("fpforms", "_Z13int_div_paramPKiPiPxijxi"),
    ("fpforms", "_Z14rounding_modesPKfS0_Pffi"),
    ("fpforms", "_Z15compare_to_predPKfS0_Pifi"),
    ("fpforms", "_Z16compare_to_floatPKfS0_Pffi"),
    ("fpforms", "_Z25const_div_and_imm_comparePKfPfi"),
    ("fpforms", "_Z8fast_divPKfS0_Pffi"),
    ("fpforms", "_Z8rcp_sqrtPKfPffi"),
    ("gameoflife", "gameoflife"),
    ("gaussblur", "gaussblur"),
    ("gemm", "sgemm_naive"),
    ("gemm", "sgemm_regtile_4x4"),
    ("gemm", "sgemm_tiled16"),
    ("gradient", "gradient"),
    ("half", "half_roundtrip"),
    ("half", "hgemv_half2"),
    ("heavy", "heavy_accumulators96"),
    ("heavy", "heavy_dgemm_4x4"),
    ("heavy", "heavy_fft_radix8"),
    ("heavy", "heavy_lu8x8"),
    ("heavy", "heavy_nbody12"),
    ("heavy", "heavy_sgemm_8x8"),
    ("heavy", "heavy_stencil25"),
    ("histogram", "histogram_global_atomic"),
    ("histogram", "histogram_shared_atomic"),
    ("int64", "divmod64"),
    ("int64", "hash_splitmix64"),
    ("int64", "powmod64"),
    ("jacobi", "jacobi"),
    ("lapgsrb", "lapgsrb"),
    ("laplacian", "laplacian"),
    ("launch_bounds", "lb_1024"),
    ("launch_bounds", "lb_256x4"),
    ("launch_bounds", "lb_none"),
    ("localmem", "local_dynamic_index"),
    ("localmem", "local_insertion_sort16"),
    ("localmem", "local_private_bins"),
    ("matmul", "matmul"),
    ("matvec", "matvec"),
    ("reduce", "reduce_rows_shfl_xor"),
    ("reduce", "reduce_sum_shfl_down"),
    ("reduce", "reduce_sum_smem_tree"),
    ("scan", "block_scan_exclusive"),
    ("scan", "warp_scan_inclusive"),
    ("sincos", "sincos_kernel"),
    ("softmax", "layernorm_warp_row"),
    ("softmax", "softmax_warp_row"),
    ("stencil1d", "stencil1d_naive"),
    ("stencil1d", "stencil1d_tiled"),
    ("stencil2d", "jacobi2d_5pt"),
    ("stencil2d", "stencil2d_tiled_9pt"),
    ("stencil3d", "stencil3d_25pt_zmarch"),
    ("stencil3d", "stencil3d_7pt"),
    ("switch", "switch_interpreter"),
    ("switch", "switch_per_lane"),
    ("sync", "smem_iterative_smooth"),
    ("sync", "syncthreads_count_or"),
    ("transpose", "transpose_naive"),
    ("transpose", "transpose_padded"),
    ("tricubic", "tricubic"),
    ("uxx1", "uxx1"),
    ("vecadd", "vecadd"),
    ("vote", "all_sync_sorted"),
    ("vote", "any_sync_search"),
    ("vote", "ballot_compact"),
    ("vpair", "vpair"),
    ("wave13pt", "wave13pt"),
    ("whispering", "whispering"),
    ("zmarch", "zmarch"),
];

/// (kernel, shape) pairs whose generated launch is invalid for the kernel, with the reason: they
/// are reported as `bad-launch` and not run.
const INVALID_SHAPES: &[(&str, &str, &str)] = &[(
    "sgemm_tiled16",
    "grid 2 x block 64, n=64",
    "needs 16x16 blocks: threadIdx.x reaches 63 and indexes past the 16x16 shared tiles (the PTX \
     emulator lays out the shared variables of all kernels of the module, so only the cubin \
     run faults)",
)];

/// (kernel, shape) pairs whose float results depend on the interleaving of warps (racy stores
/// or float atomics whose order differs between the two emulators' schedules): compared with the
/// tolerance, with the reason.
const ORDER_DEPENDENT: &[(&str, &str, &str)] = &[(
    "reduce_sum_shfl_down",
    "grid 3x2 x block 16x3, n=13",
    "blockDim.x = 16: three threads of a block have lane 0 and warp 0, race on warp_sums[0] and \
     add to the output with float atomics in schedule order",
)];

/// Kernels whose bytes depend on the order in which threads of different CTAs win atomics: the
/// timing mode (which interleaves CTAs) must run them to the end, its bytes are not compared.
const CTA_ORDER_DEPENDENT: &[(&str, &str)] = &[
    (
        "cas_list_push",
        "threads push onto one list with atomicCAS: the list is in the order they won",
    ),
    (
        "cas_add_double",
        "a double sum accumulated with atomicCAS loops, rounded in the order they won",
    ),
];

#[derive(Debug, Clone, PartialEq)]
enum Outcome {
    BadLaunch(&'static str),
    Pass,
    PassTol,
    Unsupported(String),
    PtxNa(String),
    Mismatch(String),
    SassError(String),
}

fn bench_files() -> Vec<PathBuf> {
    let root = common::repo_root().join("bench/kernels");
    let mut v = Vec::new();
    for d in [root.clone(), root.join("loops"), root.join("stencils")] {
        if let Ok(rd) = std::fs::read_dir(&d) {
            for e in rd.flatten() {
                let p = e.path();
                if p.extension().is_some_and(|x| x == "cu") {
                    v.push(p);
                }
            }
        }
    }
    v.sort();
    v
}

fn shapes(f: &warpsmith::ptx::ir::Function) -> Vec<(Hints, &'static str)> {
    // Integer parameters get small sizes so that n×n and n³ layouts fit the buffers.
    let mut out = Vec::new();
    for (grid, block, n, tag) in [
        (vec![2u32], vec![64u32], 64u64, "grid 2 x block 64, n=64"),
        (vec![3, 2], vec![16, 3], 13, "grid 3x2 x block 16x3, n=13"),
    ] {
        let mut h = Hints::new()
            .grid(&grid)
            .block(&block)
            .len(4096)
            .dynamic_smem(4096);
        for (i, p) in f.param_list().iter().enumerate() {
            if matches!(p.ty, Type::S32 | Type::U32 | Type::B32) && p.dims.is_empty() {
                h = h.scalar(i, n);
            }
        }
        out.push((h, tag));
    }
    out
}

fn close(ty: warpsmith::emu::launch::ElemType, a: &[u8], b: &[u8]) -> bool {
    use warpsmith::emu::launch::ElemType;
    if a.len() != b.len() {
        return false;
    }
    match ty {
        ElemType::F32 => a.chunks(4).zip(b.chunks(4)).all(|(x, y)| {
            let x = f32::from_le_bytes([x[0], x[1], x[2], x[3]]);
            let y = f32::from_le_bytes([y[0], y[1], y[2], y[3]]);
            x.to_bits() == y.to_bits()
                || (x.is_nan() && y.is_nan())
                || (x - y).abs() <= 1e-4 * x.abs().max(y.abs()).max(1.0)
        }),
        _ => a == b,
    }
}

fn compare(a: &[OutBuffer], b: &[OutBuffer], approx: bool) -> Result<bool, String> {
    let mut exact = true;
    for x in a.iter().filter(|x| x.arg.is_some()) {
        let Some(y) = b.iter().find(|y| y.name == x.name) else {
            return Err(format!("{} missing", x.name));
        };
        if x.data == y.data {
            continue;
        }
        if approx && close(x.ty, &x.data, &y.data) {
            exact = false;
            continue;
        }
        let es = x.ty.size();
        let i = (0..x.data.len() / es)
            .find(|&i| x.data[i * es..(i + 1) * es] != y.data[i * es..(i + 1) * es])
            .unwrap_or(0);
        return Err(format!(
            "{} element {i}: ptx {} vs sass {}",
            x.name,
            x.ty.format(&x.data[i * es..(i + 1) * es]),
            x.ty.format(&y.data[i * es..(i + 1) * es])
        ));
    }
    Ok(exact)
}

/// The PTX text of entry `name` (up to the next `.entry`).
fn entry_text<'t>(text: &'t str, name: &str) -> &'t str {
    let key = format!(".entry {name}(");
    let Some(start) = text.find(&key) else {
        return text;
    };
    let rest = &text[start + key.len()..];
    let end = rest.find(".entry ").unwrap_or(rest.len());
    &rest[..end]
}

struct Row {
    file: String,
    arch: &'static str,
    kernel: String,
    shape: &'static str,
    outcome: Outcome,
    lane_insts: u64,
}

/// The timing mode (`sass::emu::timing`) on the same launch, every CTA on one simulated SM with
/// two resident at a time (so CTAs interleave, barriers and shared memory per CTA included): its
/// buffers must be the functional run's (`functional`; `None`: a [`CTA_ORDER_DEPENDENT`] kernel,
/// only run to the end), within the same tolerance. `exact`: the functional run matched the PTX
/// emulator exactly.
fn timed_matches(
    prog: &SassProgram,
    spec: &LaunchSpec,
    functional: Option<&[OutBuffer]>,
    tol: bool,
    exact: bool,
) -> Outcome {
    use warpsmith::sass::emu::timing::{run_timed, SmLoad, TimingParams};
    let load = SmLoad::busiest(&spec.grid, 1, 2, 0);
    match run_timed(
        prog,
        spec,
        &RunOptions::default(),
        &TimingParams::default(),
        &load,
    ) {
        Err(e) => Outcome::SassError(format!("timing mode: {e}")),
        Ok((run, _)) if run.ctas as usize != load.ctas.len() => Outcome::SassError(format!(
            "timing mode ran {} of {} CTAs",
            run.ctas,
            load.ctas.len()
        )),
        Ok((_, buffers)) => match functional.map(|f| compare(f, &buffers, tol)) {
            Some(Err(m)) => Outcome::Mismatch(format!("timing mode vs functional run: {m}")),
            _ if exact => Outcome::Pass,
            _ => Outcome::PassTol,
        },
    }
}

fn run_file(path: &Path, arch: &'static str, clang: &Path, ptxas: &Path) -> Vec<Row> {
    let stem = path.file_stem().unwrap().to_string_lossy().to_string();
    let mut rows = Vec::new();
    // `SASS_EMU_OPT=O0` runs the same comparison on -O0 builds (not part of the default run: the
    // MUST_PASS list is for -O3).
    let opt = std::env::var("SASS_EMU_OPT").unwrap_or_else(|_| "O3".into());
    let text = match tools::cuda::cuda_to_ptx(clang, path, arch, &opt) {
        Ok(t) => t,
        Err(e) => panic!("clang failed on {}: {e}", path.display()),
    };
    let module = warpsmith::ptx::parse_module(&text, &format!("{stem}.ptx"))
        .unwrap_or_else(|e| panic!("{stem}: {e}"));
    let dir = std::env::temp_dir().join(format!("warpsmith-sass-emu-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ptx_path = dir.join(format!("{stem}.{arch}.ptx"));
    let cubin_path = dir.join(format!("{stem}.{arch}.cubin"));
    std::fs::write(&ptx_path, &text).unwrap();
    let out = std::process::Command::new(ptxas)
        .args(["--fmad=false", "-arch", arch, "-o"])
        .arg(&cubin_path)
        .arg(&ptx_path)
        .output()
        .expect("ptxas runs");
    assert!(
        out.status.success(),
        "ptxas failed on {stem} {arch}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(&cubin_path).unwrap();
    let prog = SassProgram::from_cubin(&bytes).unwrap_or_else(|e| panic!("{stem} {arch}: {e}"));
    let ptx_prog = Program::new(&module, &format!("{stem}.ptx")).expect("decodes");
    for f in module.functions() {
        if f.kind != FuncKind::Entry || f.body.is_none() {
            continue;
        }
        let name = f.name.to_string();
        let approx = entry_text(&text, &name).contains(".approx");
        for (shape_index, (h, tag)) in shapes(f).into_iter().enumerate() {
            let first_shape = shape_index == 0;
            if let Some((.., why)) = INVALID_SHAPES
                .iter()
                .find(|(k, s, _)| *k == name && *s == tag)
            {
                rows.push(Row {
                    file: stem.clone(),
                    arch,
                    kernel: name.clone(),
                    shape: tag,
                    outcome: Outcome::BadLaunch(why),
                    lane_insts: 0,
                });
                continue;
            }
            let mut spec: LaunchSpec = match spec_for(f, &h) {
                Ok(s) => s,
                Err(e) => {
                    rows.push(Row {
                        file: stem.clone(),
                        arch,
                        kernel: name.clone(),
                        shape: tag,
                        outcome: Outcome::PtxNa(e.to_string()),
                        lane_insts: 0,
                    });
                    continue;
                }
            };
            spec.max_instructions = Some(3_000_000);
            let opts = RunOptions {
                file: format!("{stem}.ptx"),
                ..RunOptions::default()
            };
            let mut lane_insts = 0;
            let outcome = match run_program(&ptx_prog, &spec, &opts) {
                Err(e) => Outcome::PtxNa(e.to_string()),
                Ok(pr) => {
                    let so = RunOptions {
                        file: format!("{stem}.{arch}.cubin"),
                        ..RunOptions::default()
                    };
                    match warpsmith::sass::emu::run(&prog, &spec, &so) {
                        Err(EmuError::Unsupported { at, why }) => {
                            Outcome::Unsupported(format!("{why}: `{}` at {}", at.text, at.at))
                        }
                        Err(e) => Outcome::SassError(e.to_string()),
                        Ok(sr) => {
                            lane_insts = sr.stats.lane_insts;
                            let tol = approx
                                || ORDER_DEPENDENT
                                    .iter()
                                    .any(|(k, s, _)| *k == name && *s == tag);
                            match compare(&pr.buffers, &sr.buffers, tol) {
                                Ok(exact) if first_shape => {
                                    let ordered =
                                        CTA_ORDER_DEPENDENT.iter().any(|(k, _)| *k == name);
                                    let compared = (!ordered).then_some(&sr.buffers[..]);
                                    timed_matches(&prog, &spec, compared, tol, exact)
                                }
                                Ok(true) => Outcome::Pass,
                                Ok(false) => Outcome::PassTol,
                                Err(m) => Outcome::Mismatch(m),
                            }
                        }
                    }
                }
            };
            rows.push(Row {
                file: stem.clone(),
                arch,
                kernel: name.clone(),
                shape: tag,
                outcome,
                lane_insts,
            });
        }
    }
    let _ = std::fs::remove_file(&ptx_path);
    let _ = std::fs::remove_file(&cubin_path);
    rows
}

#[test]
fn bench_kernels_ptx_vs_cubin() {
    let mut found = Vec::new();
    for t in [Tool::Clang, Tool::Ptxas, Tool::Nvdisasm] {
        match tools::find(t) {
            Ok(p) => found.push(p),
            Err(_) => {
                eprintln!("SKIPPED: {} not found", t.name());
                return;
            }
        }
    }
    let (clang, ptxas) = (found[0].clone(), found[1].clone());
    let t0 = std::time::Instant::now();
    let mut jobs = Vec::new();
    for f in bench_files() {
        for arch in ["sm_80", "sm_90"] {
            jobs.push((f.clone(), arch));
        }
    }
    let rows: Vec<Row> = common::parallel_map(&jobs, |(f, arch)| run_file(f, arch, &clang, &ptxas))
        .into_iter()
        .flatten()
        .collect();
    let mut failures = Vec::new();
    let mut count = std::collections::BTreeMap::<(&str, &str), usize>::new();
    for r in &rows {
        let (tag, detail) = match &r.outcome {
            Outcome::Pass => ("pass", String::new()),
            Outcome::BadLaunch(why) => ("bad-launch", why.to_string()),
            Outcome::PassTol => ("pass~", String::new()),
            Outcome::Unsupported(m) => ("UNSUPPORTED", m.clone()),
            Outcome::PtxNa(m) => ("ptx-n/a", m.chars().take(100).collect()),
            Outcome::Mismatch(m) => ("MISMATCH", m.clone()),
            Outcome::SassError(m) => ("SASS-ERROR", m.clone()),
        };
        *count.entry((r.arch, tag)).or_default() += 1;
        println!(
            "{:<12} {:<6} {:<28} {:<30} {:<12} {:>9} {}",
            r.file, r.arch, r.kernel, r.shape, tag, r.lane_insts, detail
        );
        // An unsupported instruction is named with its kernel offset, never skipped.
        if let Outcome::Unsupported(m) = &r.outcome {
            if !(m.contains('`') && m.contains("+0x")) {
                failures.push(format!(
                    "{} {}: unsupported without the instruction: {m}",
                    r.file, r.kernel
                ));
            }
        }
        if matches!(r.outcome, Outcome::Mismatch(_) | Outcome::SassError(_)) {
            failures.push(format!(
                "{} {} {} ({}): {tag} {detail}",
                r.file, r.arch, r.kernel, r.shape
            ));
        }
    }
    for &(file, kernel) in MUST_PASS {
        for arch in ["sm_80", "sm_90"] {
            let mine: Vec<&Row> = rows
                .iter()
                .filter(|r| r.file == file && r.kernel == kernel && r.arch == arch)
                .collect();
            let ran = mine
                .iter()
                .any(|r| matches!(r.outcome, Outcome::Pass | Outcome::PassTol));
            let bad = mine.iter().find(|r| {
                matches!(
                    r.outcome,
                    Outcome::Unsupported(_) | Outcome::Mismatch(_) | Outcome::SassError(_)
                )
            });
            if let Some(r) = bad {
                failures.push(format!(
                    "{file} {arch} {kernel} ({}): must pass, got {:?}",
                    r.shape, r.outcome
                ));
            } else if !ran {
                failures.push(format!("{file} {arch} {kernel}: must pass, no shape ran"));
            }
        }
    }
    println!("summary (kernel x shape runs): {count:?}");
    println!("time: {:.1} s", t0.elapsed().as_secs_f64());
    assert!(
        failures.is_empty(),
        "{} failure(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The commands on a cubin: `emulate --stats` writes the counters, `equiv` of a PTX file and
/// ptxas's cubin of it says equivalent (exit 0), and `equiv` of the cubin against a PTX file whose
/// addition became a subtraction says DIFFERENT (exit 1).
#[test]
fn cli_emulate_and_equiv_on_a_cubin() {
    let mut found = Vec::new();
    for t in [Tool::Ptxas, Tool::Nvdisasm] {
        match tools::find(t) {
            Ok(p) => found.push(p),
            Err(_) => {
                eprintln!("SKIPPED: {} not found", t.name());
                return;
            }
        }
    }
    let ptx = r#".version 8.0
.target sm_80
.address_size 64
.visible .entry addk(.param .u64 a, .param .u64 b, .param .u32 n)
{
	.reg .pred %p<2>;
	.reg .b32 %r<8>;
	.reg .f32 %f<4>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [a];
	ld.param.u64 %rd2, [b];
	ld.param.u32 %r1, [n];
	mov.u32 %r2, %tid.x;
	mov.u32 %r3, %ctaid.x;
	mov.u32 %r4, %ntid.x;
	mad.lo.s32 %r5, %r3, %r4, %r2;
	setp.ge.s32 %p1, %r5, %r1;
	@%p1 bra DONE;
	cvta.to.global.u64 %rd3, %rd1;
	cvta.to.global.u64 %rd4, %rd2;
	mul.wide.s32 %rd5, %r5, 4;
	add.s64 %rd6, %rd3, %rd5;
	add.s64 %rd7, %rd4, %rd5;
	ld.global.f32 %f1, [%rd6];
	ld.global.f32 %f2, [%rd7];
	add.rn.f32 %f3, %f1, %f2;
	st.global.f32 [%rd7], %f3;
DONE:
	ret;
}
"#;
    let (dir, p, c) = assemble(&found[0], ptx, "sass-cli", "addk", &["--fmad=false"]);
    let bad = dir.join("subk.ptx");
    let spec = dir.join("spec.json");
    let stats = dir.join("stats.json");
    std::fs::write(&bad, ptx.replace("add.rn.f32", "sub.rn.f32")).unwrap();
    std::fs::write(
        &spec,
        r#"{"kernel":"addk","grid":[3],"block":[40],"args":[
            {"buffer":{"type":"f32","len":100,"init":"random"}},
            {"buffer":{"type":"f32","len":100,"init":"random"}},
            {"scalar":{"type":"s32","value":100}}]}"#,
    )
    .unwrap();
    let bin = env!("CARGO_BIN_EXE_warpsmith");
    let run =
        |args: &[&std::ffi::OsStr]| std::process::Command::new(bin).args(args).output().unwrap();
    let o = run(&[
        "emulate".as_ref(),
        c.as_os_str(),
        "--launch".as_ref(),
        spec.as_os_str(),
        "--stats".as_ref(),
        stats.as_os_str(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("(sm_90)") && text.contains("global:"),
        "{text}"
    );
    let j: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    // 100 threads load two floats and store one: 300 lane accesses.
    assert_eq!(j["global"]["accesses"], 300, "{j}");
    assert_eq!(j["sm"], 90);
    let o = run(&[
        "equiv".as_ref(),
        p.as_os_str(),
        c.as_os_str(),
        "--launch".as_ref(),
        spec.as_os_str(),
        "--seeds".as_ref(),
        "2".as_ref(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let o = run(&[
        "equiv".as_ref(),
        bad.as_os_str(),
        c.as_os_str(),
        "--launch".as_ref(),
        spec.as_os_str(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    assert!(String::from_utf8_lossy(&o.stdout).contains("DIFFERENT"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A launch spec's `globals` reach a cubin's `__constant__` variable (constant bank 3 on these
/// architectures) and its `.global` variable as they reach the PTX: both emulators read the
/// same generated table, and give back the same counter.
#[test]
fn spec_globals_fill_a_cubins_constant_table() {
    let Some(ptxas) = ptxas_and_nvdisasm() else {
        return;
    };
    let ptx = &sm90_ptx(
        r#".const .align 4 .b8 table[64];
.global .align 4 .b32 counter;
.visible .entry lookup(.param .u64 out)
{
	.reg .b32 %r<6>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r1, %tid.x;
	and.b32 %r2, %r1, 15;
	mul.wide.u32 %rd3, %r2, 4;
	mov.u64 %rd4, table;
	add.s64 %rd5, %rd4, %rd3;
	ld.const.u32 %r3, [%rd5];
	mul.wide.u32 %rd6, %r1, 4;
	add.s64 %rd7, %rd2, %rd6;
	st.global.u32 [%rd7], %r3;
	ret;
}
"#,
    );
    let (dir, _ptx, c) = assemble(&ptxas, ptx, "sass-globals", "lookup", &[]);
    let spec = |var: &str| -> LaunchSpec {
        let len = if var == "counter" { 1 } else { 16 };
        serde_json::from_str(&format!(
            r#"{{"kernel":"lookup","grid":[1],"block":[64],
                "args":[{{"buffer":{{"type":"u32","len":64,"init":"zero"}}}}],
                "globals":{{"{var}":{{"type":"u32","len":{len},"init":"random"}}}}}}"#
        ))
        .unwrap()
    };
    let module = warpsmith::ptx::parse_module(ptx, "lookup.ptx").unwrap();
    let prog = Program::new(&module, "lookup.ptx").unwrap();
    let want = run_program(&prog, &spec("table"), &RunOptions::default()).unwrap();
    let cubin = SassProgram::from_cubin(&std::fs::read(&c).unwrap()).unwrap();
    let got = warpsmith::sass::emu::run(&cubin, &spec("table"), &RunOptions::default()).unwrap();
    assert_eq!(got.buffers[0].data, want.buffers[0].data);
    assert!(
        want.buffers[0].data.iter().any(|&b| b != 0),
        "the table was generated"
    );
    // A `.global` variable is filled as well (it is an output of both runs).
    let want = run_program(&prog, &spec("counter"), &RunOptions::default()).unwrap();
    let got = warpsmith::sass::emu::run(&cubin, &spec("counter"), &RunOptions::default()).unwrap();
    let var = |bs: &[OutBuffer]| {
        bs.iter()
            .find(|b| b.name == "counter")
            .unwrap()
            .data
            .clone()
    };
    assert_eq!(var(&got.buffers), var(&want.buffers));
    assert!(var(&want.buffers).iter().any(|&b| b != 0), "generated");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `__device__` variables: a counter the threads add to, a table with an initialiser, a table of
/// the other variables' addresses (relocations in `.nv.global.init`) and a function-scope
/// `.global` with an initialiser. ptxas hands their addresses to the code through constant bank
/// 4 (`.rel.nv.constant4`), or, in a relocatable cubin (`ptxas -c`, what `nvlink` links),
/// through `32@lo`/`32@hi` immediates (`.rel.text`). Both emulators place them at the same
/// addresses and give the same bytes, on sm_80 and sm_90, for both kinds of cubin.
#[test]
fn device_variables_reach_the_code_through_relocations_on_both_emulators() {
    let Some(ptxas) = ptxas_and_nvdisasm() else {
        return;
    };
    let body = r#".global .align 4 .u32 counter;
.global .align 4 .b8 table[16] = {1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16};
.global .align 8 .u64 ptrs[2] = {table, counter};
.visible .entry k(.param .u64 out)
{
	.global .align 4 .u32 bias[2] = {1000, 2000};
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mov.u32 %r6, %ctaid.x;
	mad.lo.u32 %r1, %r6, 64, %r1;
	atom.global.add.u32 %r2, [counter], 1;
	and.b32 %r5, %r1, 15;
	cvt.u64.u32 %rd3, %r5;
	ld.global.u64 %rd2, [ptrs];
	add.u64 %rd4, %rd2, %rd3;
	ld.global.u8 %r3, [%rd4];
	ld.global.u32 %r4, [bias+4];
	add.u32 %r3, %r3, %r4;
	mul.wide.u32 %rd6, %r1, 4;
	add.u64 %rd6, %rd1, %rd6;
	st.global.u32 [%rd6], %r3;
	ret;
}
"#;
    let spec: LaunchSpec = serde_json::from_str(
        r#"{"kernel":"k","grid":[2],"block":[64],
            "args":[{"buffer":{"type":"u32","len":128,"init":"zero"}}]}"#,
    )
    .unwrap();
    for arch in ["sm_80", "sm_90"] {
        let ptx = format!(".version 8.0\n.target {arch}\n.address_size 64\n{body}");
        for (extra, kind) in [(&[][..], "whole"), (&["-c"][..], "relocatable")] {
            let what = format!("{arch} {kind}");
            let tag = format!("sass-devvars-{arch}-{kind}");
            let (dir, p, c) = assemble_for(arch, &ptxas, &ptx, &tag, "k", extra);
            assert_emulators_agree(&p, &c, &spec, 1, &what);
            let got = cubin_run(&c, &spec).unwrap();
            let words: Vec<u32> = (0..128).map(|i| 2000 + (i % 16) + 1).collect();
            assert_eq!(u32_words(&got.buffers[0]), words, "{what}");
            let var = |n: &str| got.buffers.iter().find(|b| b.name == n).unwrap();
            assert_eq!(u32_words(var("counter")), [128], "{what}");
            let want = warpsmith::emu::run(
                &warpsmith::ptx::parse_module(&ptx, "k.ptx").unwrap(),
                &spec,
                &RunOptions::default(),
            )
            .unwrap();
            let ptrs = want.buffers.iter().find(|b| b.name == "ptrs").unwrap();
            assert_eq!(var("ptrs").data, ptrs.data, "{what}: the same addresses");
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}

/// An address the loader cannot give — `vprintf`'s, which ptxas puts in constant bank 4 next to
/// the variables' — is refused when a kernel reads it, not for the whole module: the kernel
/// beside the `printf` one runs.
#[test]
fn an_unresolvable_address_stops_only_the_kernel_that_reads_it() {
    let Some(ptxas) = ptxas_and_nvdisasm() else {
        return;
    };
    let ptx = &sm90_ptx(
        r#".extern .func (.param .b32 func_retval0) vprintf (.param .b64 a, .param .b64 b);
.global .align 1 .b8 fmt[4] = {104, 105, 10, 0};
.global .align 4 .u32 hits;
.visible .entry talk(.param .u64 out)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<4>;
	mov.u64 %rd1, fmt;
	cvta.global.u64 %rd2, %rd1;
	mov.u64 %rd3, 0;
	{
	.param .b64 p0;
	st.param.b64 [p0], %rd2;
	.param .b64 p1;
	st.param.b64 [p1], %rd3;
	.param .b32 rv;
	call.uni (rv), vprintf, (p0, p1);
	}
	ret;
}
.visible .entry count(.param .u64 out)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	atom.global.add.u32 %r1, [hits], 1;
	ld.global.u8 %r2, [fmt+1];
	st.global.u32 [%rd1], %r2;
	ret;
}
"#,
    );
    let (dir, p, c) = assemble(&ptxas, ptx, "sass-vprintf", "two", &[]);
    let spec = |k: &str| -> LaunchSpec {
        serde_json::from_str(&format!(
            r#"{{"kernel":"{k}","grid":[1],"block":[32],
                "args":[{{"buffer":{{"type":"u32","len":1,"init":"zero"}}}}]}}"#
        ))
        .unwrap()
    };
    assert_emulators_agree(&p, &c, &spec("count"), 1, "the kernel without printf");
    let got = cubin_run(&c, &spec("count")).unwrap();
    assert_eq!(u32_words(&got.buffers[0]), [105]);
    let why = cubin_run(&c, &spec("talk"))
        .expect_err("vprintf's address")
        .to_string();
    assert!(why.contains("vprintf"), "{why}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `isspacep` (and ptxas's test before a generic atomic): `QSPC.E.{G,S,L}` on generic addresses
/// of a global buffer, a shared variable and a local one, sm_80 and sm_90, each answer checked
/// and equal to the PTX emulator's.
#[test]
fn address_space_queries_agree_on_both_emulators() {
    let Some(ptxas) = ptxas_and_nvdisasm() else {
        return;
    };
    let kernel = |arch: &str| {
        format!(
            r#".version 8.0
.target {arch}
.address_size 64
.visible .entry k(.param .u64 out)
{{
	.shared .align 4 .u32 sh[32];
	.local .align 4 .u32 lo[4];
	.reg .b32 %r<16>;
	.reg .b64 %rd<16>;
	.reg .pred %p<4>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mov.u64 %rd2, sh;
	cvta.shared.u64 %rd2, %rd2;
	mov.u64 %rd3, lo;
	cvta.local.u64 %rd3, %rd3;
	st.u32 [%rd3], %r1;
	setp.eq.u32 %p1, %r1, 0;
	setp.eq.u32 %p2, %r1, 1;
	selp.b64 %rd4, %rd2, %rd1, %p1;
	selp.b64 %rd4, %rd3, %rd4, %p2;
	isspacep.global %p1, %rd4;
	isspacep.shared %p2, %rd4;
	isspacep.local %p3, %rd4;
	selp.u32 %r2, 1, 0, %p1;
	selp.u32 %r3, 2, 0, %p2;
	selp.u32 %r4, 4, 0, %p3;
	or.b32 %r2, %r2, %r3;
	or.b32 %r2, %r2, %r4;
	mul.wide.u32 %rd5, %r1, 4;
	add.u64 %rd6, %rd1, %rd5;
	st.global.u32 [%rd6], %r2;
	ret;
}}
"#
        )
    };
    let spec: LaunchSpec = serde_json::from_str(
        r#"{"kernel":"k","grid":[1],"block":[4],
            "args":[{"buffer":{"type":"u32","len":4,"init":"zero"}}]}"#,
    )
    .unwrap();
    for arch in ["sm_80", "sm_90"] {
        let tag = format!("sass-qspc-{arch}");
        let (dir, p, c) = assemble_for(arch, &ptxas, &kernel(arch), &tag, "k", &[]);
        assert!(nvdisasm_listing(&c).contains("QSPC"), "{arch}");
        assert_emulators_agree(&p, &c, &spec, 1, arch);
        // Lane 0: shared, lane 1: local, lanes 2-3: global.
        assert_eq!(
            u32_words(&cubin_run(&c, &spec).unwrap().buffers[0]),
            [2, 4, 1, 1]
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// A generic float atomic: ptxas emits `ATOM.E.ADD.F32… P0, RZ, [R.64], R` followed by `@P0
/// EXIT` and software paths for shared and local addresses (a `QSPC` test, then a CAS loop or a
/// load–add–store). The predicate says the atomic was performed; the emulator never set it, so
/// the fallback added a second time (and a CAS loop on it never ended). Global, shared and
/// local addresses, and a 64-bit generic CAS, on sm_80 and sm_90, equal to the PTX emulator.
#[test]
fn generic_float_atomics_are_performed_once_on_both_emulators() {
    let Some(ptxas) = ptxas_and_nvdisasm() else {
        return;
    };
    let kernel = |arch: &str| {
        format!(
            r#".version 8.0
.target {arch}
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 sel)
{{
	.shared .align 4 .f32 acc;
	.local .align 8 .b8 lo[8];
	.reg .b32 %r<16>;
	.reg .f32 %f<8>;
	.reg .b64 %rd<16>;
	.reg .pred %p<4>;
	ld.param.u64 %rd1, [out];
	ld.param.u64 %rd9, [sel];
	mov.u32 %r1, %tid.x;
	setp.eq.u32 %p1, %r1, 0;
	@%p1 st.shared.f32 [acc], 0f00000000;
	bar.sync 0;
	mov.u64 %rd2, acc;
	cvta.shared.u64 %rd2, %rd2;
	mov.u64 %rd3, lo;
	cvta.local.u64 %rd3, %rd3;
	st.local.f32 [lo], 0f40000000;
	ld.global.u32 %r2, [%rd9];
	setp.eq.u32 %p2, %r2, 0;
	selp.b64 %rd4, %rd2, %rd1, %p2;
	setp.eq.u32 %p3, %r2, 2;
	selp.b64 %rd4, %rd3, %rd4, %p3;
	cvt.rn.f32.u32 %f1, %r1;
	atom.add.f32 %f2, [%rd4], %f1;
	bar.sync 0;
	ld.shared.f32 %f3, [acc];
	ld.local.f32 %f4, [lo];
	add.f32 %f3, %f3, %f4;
	mov.b64 %rd10, 7;
	atom.cas.b64 %rd11, [%rd1+8], 0, %rd10;
	@%p1 st.global.f32 [%rd1+4], %f3;
	ret;
}}
"#
        )
    };
    for arch in ["sm_80", "sm_90"] {
        let tag = format!("sass-generic-atomics-{arch}");
        let (dir, p, c) = assemble_for(arch, &ptxas, &kernel(arch), &tag, "k", &[]);
        let text = nvdisasm_listing(&c);
        assert!(
            text.contains("ATOM.E.ADD.F32") && text.contains("P0, RZ"),
            "{arch}"
        );
        // sel 0: the shared variable; 1: the global word; 2: the thread's local word.
        // Word 1 is lane 0's shared value plus its local word (2.0 plus its own add of 0.0).
        for (sel, want) in [(0u32, [0.0f32, 498.0]), (1, [496.0, 2.0]), (2, [0.0, 2.0])] {
            let spec: LaunchSpec = serde_json::from_str(&format!(
                r#"{{"kernel":"k","grid":[1],"block":[32],
                    "args":[{{"buffer":{{"type":"u32","len":4,"init":"zero"}}}},
                            {{"buffer":{{"type":"u32","len":1,"init":[{sel}]}}}}]}}"#
            ))
            .unwrap();
            let what = format!("{arch} sel {sel}");
            assert_emulators_agree(&p, &c, &spec, 1, &what);
            let words = u32_words(&cubin_run(&c, &spec).unwrap().buffers[0]);
            let got = [f32::from_bits(words[0]), f32::from_bits(words[1])];
            assert_eq!(got, want, "{what}: the global word, shared + local");
            assert_eq!(words[2], 7, "{what}: the CAS stored once");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// In a relocatable cubin (`ptxas -c`) every shared variable's offset is a relocation and the
/// linker places the variables. The emulator resolves the one placement that is not a choice —
/// a kernel with one shared variable, at offset 0, on sm_80 — and refuses the others with the
/// reason: two variables, or sm_90 (a reserved area comes first).
#[test]
fn relocatable_cubins_resolve_a_lone_shared_variable() {
    let Some(ptxas) = ptxas_and_nvdisasm() else {
        return;
    };
    let kernel = |arch: &str, second: bool| {
        let (decl, use_it) = if second {
            (
                ".shared .align 4 .u32 other[32];",
                "st.shared.u32 [other+4], %r1;\n\tld.shared.u32 %r5, [other+4];\n\tadd.u32 %r3, %r3, %r5;",
            )
        } else {
            ("", "")
        };
        format!(
            r#".version 8.0
.target {arch}
.address_size 64
.visible .entry k(.param .u64 out)
{{
	.shared .align 4 .u32 buf[64];
	{decl}
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	shl.b32 %r2, %r1, 2;
	mov.u32 %r4, buf;
	add.u32 %r4, %r4, %r2;
	st.shared.u32 [%r4], %r1;
	bar.sync 0;
	xor.b32 %r6, %r2, 4;
	mov.u32 %r4, buf;
	add.u32 %r4, %r4, %r6;
	ld.shared.u32 %r3, [%r4];
	{use_it}
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r3;
	ret;
}}
"#
        )
    };
    let spec: LaunchSpec = serde_json::from_str(
        r#"{"kernel":"k","grid":[1],"block":[64],
            "args":[{"buffer":{"type":"u32","len":64,"init":"zero"}}]}"#,
    )
    .unwrap();
    let (dir, p, c) = assemble_for(
        "sm_80",
        &ptxas,
        &kernel("sm_80", false),
        "sass-rel-shared",
        "one",
        &["-c"],
    );
    assert!(
        nvdisasm_listing(&c).contains("`("),
        "the offset is relocated"
    );
    assert_emulators_agree(&p, &c, &spec, 1, "one shared variable");
    let words = u32_words(&cubin_run(&c, &spec).unwrap().buffers[0]);
    assert_eq!(words, (0..64u32).map(|t| t ^ 1).collect::<Vec<_>>());
    for (arch, second, why) in [
        ("sm_80", true, "one of 2 shared variables"),
        ("sm_90", false, "after a reserved area"),
    ] {
        let (_, _, c) = assemble_for(
            arch,
            &ptxas,
            &kernel(arch, second),
            "sass-rel-shared",
            arch,
            &["-c"],
        );
        let err = cubin_run(&c, &spec).expect_err(why).to_string();
        assert!(err.contains(why), "{arch}: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `cvta.const`: a generic pointer to a `__constant__` table (what clang emits at -O0). ptxas
/// adds the bank's generic base from constant bank 0 (`c[0x0][0x50]` on sm_80, `c[0x0][0xd0]` on
/// sm_90); the SASS emulator reads the bank through it, as the PTX emulator reads the table, and
/// refuses a store through it.
#[test]
fn generic_pointers_to_constant_variables_read_the_bank() {
    let Some(ptxas) = ptxas_and_nvdisasm() else {
        return;
    };
    let kernel = |arch: &str, store: &str| {
        format!(
            r#".version 8.0
.target {arch}
.address_size 64
.const .align 4 .b8 pad[12];
.const .align 4 .b8 tab[64];
.visible .entry k(.param .u64 out, .param .u32 i)
{{
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [out];
	ld.param.u32 %r1, [i];
	mov.u64 %rd2, tab;
	cvta.const.u64 %rd2, %rd2;
	mul.wide.u32 %rd3, %r1, 4;
	add.u64 %rd4, %rd2, %rd3;
	ld.u32 %r3, [%rd4];
	ld.const.u32 %r4, [pad+8];
	add.u32 %r3, %r3, %r4;
	{store}
	st.global.u32 [%rd1], %r3;
	ret;
}}
"#
        )
    };
    let spec: LaunchSpec = serde_json::from_str(
        r#"{"kernel":"k","grid":[1],"block":[1],
            "args":[{"buffer":{"type":"u32","len":1,"init":"zero"}},
                    {"scalar":{"type":"u32","value":5}}],
            "globals":{"tab":{"type":"u32","len":16,"init":"iota"},
                       "pad":{"type":"u32","len":3,"init":"iota"}}}"#,
    )
    .unwrap();
    for arch in ["sm_80", "sm_90"] {
        let tag = format!("sass-cvta-const-{arch}");
        let (dir, p, c) = assemble_for(arch, &ptxas, &kernel(arch, ""), &tag, "k", &[]);
        assert_emulators_agree(&p, &c, &spec, 1, arch);
        assert_eq!(
            u32_words(&cubin_run(&c, &spec).unwrap().buffers[0]),
            [5 + 2]
        );
        let store = "st.u32 [%rd4], %r3;";
        let (_, _, c) = assemble_for(arch, &ptxas, &kernel(arch, store), &tag, "k_st", &[]);
        let why = cubin_run(&c, &spec)
            .expect_err("a store to constant memory")
            .to_string();
        assert!(why.contains("constant memory"), "{arch}: {why}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// `run_ctas` (the sample `tune --predict-launch` and `demote`'s predictor take of a large
/// launch) runs only the CTAs it names, in a grid that stays the whole one: `%nctaid` is the
/// spec's, and the other CTAs leave their output bytes as initialised.
#[test]
fn a_sample_of_ctas_runs_in_the_whole_grid() {
    let Some(ptxas) = ptxas_and_nvdisasm() else {
        return;
    };
    let ptx = &sm90_ptx(
        r#".visible .entry stamp(.param .u64 out)
{
	.reg .b32 %r<6>;
	.reg .b64 %rd<5>;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %nctaid.x;
	mad.lo.s32 %r3, %r2, 100, %r1;
	mul.wide.u32 %rd3, %r1, 4;
	add.s64 %rd4, %rd2, %rd3;
	st.global.u32 [%rd4], %r3;
	ret;
}
"#,
    );
    let (dir, _ptx, c) = assemble(&ptxas, ptx, "sass-sample", "stamp", &[]);
    let spec: LaunchSpec = serde_json::from_str(
        r#"{"kernel":"stamp","grid":[4],"block":[32],
            "args":[{"buffer":{"type":"u32","len":4,"init":"zero"}}]}"#,
    )
    .unwrap();
    let cubin = SassProgram::from_cubin(&std::fs::read(&c).unwrap()).unwrap();
    let opts = RunOptions::default();
    let got = warpsmith::sass::emu::launch::run_ctas(&cubin, &spec, &opts, &[[3, 0, 0], [1, 0, 0]])
        .unwrap();
    assert_eq!(u32_words(&got.buffers[0]), [0, 401, 0, 403]);
    let all = warpsmith::sass::emu::run(&cubin, &spec, &opts).unwrap();
    assert_eq!(all.stats.warp_insts, 2 * got.stats.warp_insts);
    let outside = warpsmith::sass::emu::launch::run_ctas(&cubin, &spec, &opts, &[[4, 0, 0]]);
    let why = outside.expect_err("a CTA outside the grid").to_string();
    assert!(why.contains("outside the grid"), "{why}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// ptxas's path where both ptxas and nvdisasm are found; otherwise says the test is skipped.
fn ptxas_and_nvdisasm() -> Option<PathBuf> {
    match (tools::find(Tool::Ptxas), tools::find(Tool::Nvdisasm)) {
        (Ok(ptxas), Ok(_)) => Some(ptxas),
        _ => {
            eprintln!("SKIPPED: ptxas or nvdisasm not found");
            None
        }
    }
}

/// nvdisasm's listing of the cubin file `cubin` (to check that ptxas emitted the form a test is
/// about).
fn nvdisasm_listing(cubin: &Path) -> String {
    let out = std::process::Command::new(tools::find(Tool::Nvdisasm).unwrap())
        .arg("-c")
        .arg(cubin)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A buffer's bytes as little-endian 32-bit words.
fn u32_words(b: &OutBuffer) -> Vec<u32> {
    b.data
        .chunks(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect()
}

/// The first buffer, as 32-bit words, after the PTX emulator runs the PTX file `ptx` on `spec`.
fn ptx_run_words(ptx: &Path, spec: &LaunchSpec) -> Vec<u32> {
    let text = std::fs::read_to_string(ptx).unwrap();
    let m = warpsmith::ptx::parse_module(&text, &ptx.display().to_string()).unwrap();
    u32_words(
        &warpsmith::emu::run(&m, spec, &RunOptions::default())
            .unwrap()
            .buffers[0],
    )
}

/// Asserts that the PTX file `ptx` on the PTX emulator and the cubin `cubin` on the SASS emulator
/// write the same bytes on `spec` for `seeds` seeds (`what` names the case in a failure).
fn assert_emulators_agree(ptx: &Path, cubin: &Path, spec: &LaunchSpec, seeds: u64, what: &str) {
    use warpsmith::emu::equiv::Verdict;
    use warpsmith::sass::emu::equiv::{check, load};
    let (a, b) = (load(ptx).unwrap(), load(cubin).unwrap());
    let files = (ptx.to_str().unwrap(), cubin.to_str().unwrap());
    let r = check(&a, &b, spec, seeds, files, Default::default()).unwrap();
    assert!(
        matches!(r.verdict, Verdict::Equal),
        "{what}: {:?}",
        r.verdict
    );
}

/// The SASS emulator's run of the cubin file `cubin` on `spec`.
fn cubin_run(
    cubin: &Path,
    spec: &LaunchSpec,
) -> Result<warpsmith::sass::emu::SassRunOutput, EmuError> {
    let prog = SassProgram::from_cubin(&std::fs::read(cubin).unwrap()).unwrap();
    warpsmith::sass::emu::run(&prog, spec, &RunOptions::default())
}

/// A PTX module for sm_90 (version 8.0, 64-bit addresses) holding `items`.
fn sm90_ptx(items: &str) -> String {
    format!(".version 8.0\n.target sm_90\n.address_size 64\n{items}")
}

/// Writes `ptx` as `<name>.ptx` in a fresh temporary folder (`warpsmith-<tag>-<pid>`) and
/// assembles it for sm_90 with `ptxas` (and `extra` options) into `<name>.cubin`: the folder,
/// the PTX and the cubin paths.
fn assemble(
    ptxas: &Path,
    ptx: &str,
    tag: &str,
    name: &str,
    extra: &[&str],
) -> (PathBuf, PathBuf, PathBuf) {
    assemble_for("sm_90", ptxas, ptx, tag, name, extra)
}

/// [`assemble`] for `arch`.
fn assemble_for(
    arch: &str,
    ptxas: &Path,
    ptx: &str,
    tag: &str,
    name: &str,
    extra: &[&str],
) -> (PathBuf, PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("warpsmith-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(format!("{name}.ptx"));
    let c = dir.join(format!("{name}.cubin"));
    std::fs::write(&p, ptx).unwrap();
    let out = std::process::Command::new(ptxas)
        .args(extra)
        .args(["-arch", arch, "-o"])
        .arg(&c)
        .arg(&p)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "ptxas: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (dir, p, c)
}

/// A kernel storing every cluster register of its CTA (14 words per CTA): `.reqnctapercluster`
/// is inserted where `{cluster}` stands.
fn cluster_registers_kernel(cluster: &str) -> String {
    let regs = [
        "%cluster_ctarank",
        "%cluster_nctarank",
        "%cluster_ctaid.x",
        "%cluster_ctaid.y",
        "%cluster_ctaid.z",
        "%cluster_nctaid.x",
        "%cluster_nctaid.y",
        "%cluster_nctaid.z",
        "%clusterid.x",
        "%clusterid.y",
        "%clusterid.z",
        "%nclusterid.x",
        "%nclusterid.y",
        "%nclusterid.z",
    ];
    let mut body = String::new();
    for (i, r) in regs.iter().enumerate() {
        body += &format!(
            "\tmov.u32 %r9, {r};\n\tst.global.u32 [%rd4+{}], %r9;\n",
            4 * i
        );
    }
    sm90_ptx(&format!(
        r#".visible .entry cregs(.param .u64 out) {cluster}
{{
	.reg .b32 %r<10>;
	.reg .b64 %rd<5>;
	.reg .pred %p<2>;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %ctaid.y;
	mov.u32 %r3, %nctaid.x;
	mad.lo.s32 %r4, %r2, %r3, %r1;
	mul.lo.s32 %r4, %r4, 15;
	mul.wide.u32 %rd3, %r4, 4;
	add.s64 %rd4, %rd2, %rd3;
{body}	mov.pred %p1, %is_explicit_cluster;
	selp.u32 %r9, 1, 0, %p1;
	st.global.u32 [%rd4+56], %r9;
	ret;
}}
"#
    ))
}

/// What the PTX ISA defines for CTA `(x, y)` of a grid `grid` in clusters `c`.
fn cluster_registers_expected(grid: [u32; 2], c: [u32; 2], explicit: bool) -> Vec<u32> {
    let mut out = Vec::new();
    for y in 0..grid[1] {
        for x in 0..grid[0] {
            let (ix, iy) = (x % c[0], y % c[1]);
            out.extend([
                ix + c[0] * iy,
                c[0] * c[1],
                ix,
                iy,
                0,
                c[0],
                c[1],
                1,
                x / c[0],
                y / c[1],
                0,
                grid[0] / c[0],
                grid[1] / c[1],
                1,
                u32::from(explicit),
            ]);
        }
    }
    out
}

#[test]
fn cluster_registers_on_both_emulators() {
    // The PTX emulator computes the registers from the cluster shape; the SASS emulator runs
    // ptxas's code for them, which reads SR_CgaCtaId and launch constants in bank 0 (a float
    // factor for %clusterid: a cluster of 3 needs one that rounds the right way).
    let Some(ptxas) = ptxas_and_nvdisasm() else {
        return;
    };
    let cases = [
        (
            "declared",
            ".reqnctapercluster 2, 2, 1",
            [4, 4],
            None,
            [2, 2],
            true,
        ),
        ("launched", "", [6, 2], Some("[3, 1]"), [3, 1], true),
        ("none", "", [3, 2], None, [1, 1], false),
    ];
    for (tag, directive, grid, launch, c, explicit) in cases {
        let ptx = cluster_registers_kernel(directive);
        let (dir, p, cub) = assemble(&ptxas, &ptx, &format!("sass-cluster-{tag}"), "cregs", &[]);
        let cluster = launch.map_or(String::new(), |l| format!(r#""cluster":{l},"#));
        let spec: LaunchSpec = serde_json::from_str(&format!(
            r#"{{"kernel":"cregs","grid":[{},{}],"block":[32],{cluster}
                "args":[{{"buffer":{{"type":"u32","len":{},"init":"zero"}}}}]}}"#,
            grid[0],
            grid[1],
            15 * grid[0] * grid[1]
        ))
        .unwrap();
        let want = cluster_registers_expected(grid, c, explicit);
        assert_eq!(ptx_run_words(&p, &spec), want, "{tag}: PTX emulator");
        let sass_run = cubin_run(&cub, &spec).unwrap();
        assert_eq!(
            u32_words(&sass_run.buffers[0]),
            want,
            "{tag}: SASS emulator"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn a_cluster_ctas_shared_addresses_carry_its_rank() {
    // Under `.reqnctapercluster` ptxas builds shared addresses as `rank << 24 | offset`
    // (`ULEA UR4, SR_CgaCtaId, …, 0x18`); the SASS emulator must take the CTA's own rank there
    // (it faulted at rank 1 once SR_CgaCtaId gave the rank) and both emulators must agree with
    // the values the PTX defines.
    let Some(ptxas) = ptxas_and_nvdisasm() else {
        return;
    };
    let ptx = sm90_ptx(
        r#".visible .entry own(.param .u64 out) .reqntid 64 .reqnctapercluster 2, 1, 1
{
  .reg .b32 %r<12>; .reg .b64 %rd<8>;
  .shared .align 4 .b32 buf[64];
  ld.param.u64 %rd1, [out]; cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %cluster_ctarank;
  mov.u32 %r4, buf; shl.b32 %r5, %r1, 2; add.u32 %r6, %r4, %r5;
  mad.lo.s32 %r7, %r2, 1000, %r1; add.u32 %r7, %r7, %r3;
  st.shared.u32 [%r6], %r7;
  bar.sync 0;
  xor.b32 %r8, %r1, 1; shl.b32 %r8, %r8, 2; add.u32 %r9, %r4, %r8;
  ld.shared.u32 %r10, [%r9];
  cvt.u64.u32 %rd5, %r9; cvta.shared.u64 %rd4, %rd5; ld.u32 %r11, [%rd4]; add.u32 %r10, %r10, %r11;
  mad.lo.s32 %r5, %r2, 64, %r1; mul.wide.u32 %rd2, %r5, 4; add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r10;
  ret;
}
"#,
    );
    let (dir, p, cub) = assemble(&ptxas, &ptx, "sass-cluster-own", "own", &[]);
    let spec: LaunchSpec = serde_json::from_str(
        r#"{"kernel":"own","grid":[4],"block":[64],
            "args":[{"buffer":{"type":"u32","len":256,"init":"zero"}}]}"#,
    )
    .unwrap();
    let mut want = Vec::new();
    for cta in 0..4u32 {
        for t in 0..64u32 {
            want.push(2 * (cta * 1000 + (t ^ 1) + cta % 2));
        }
    }
    assert_eq!(ptx_run_words(&p, &spec), want, "PTX emulator");
    let sass_run = cubin_run(&cub, &spec).unwrap();
    assert_eq!(u32_words(&sass_run.buffers[0]), want, "SASS emulator");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A two-CTA cluster exchanging values through distributed shared memory: `barrier.cluster`,
/// `mapa` and `getctarank` on `.shared::cluster` and generic addresses.
const DSMEM_KERNEL: &str = r#".visible .entry dsm(.param .u64 out) .reqntid 32 .reqnctapercluster 2, 1, 1
{
	.reg .b32 %r<16>;
	.reg .b64 %rd<10>;
	.shared .align 4 .b32 buf[32];
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %cluster_ctarank;
	mov.u32 %r4, buf;
	shl.b32 %r5, %r1, 2;
	add.u32 %r6, %r4, %r5;
	mad.lo.s32 %r7, %r2, 100, %r1;
	st.shared.u32 [%r6], %r7;
	barrier.cluster.arrive;
	barrier.cluster.wait;
	xor.b32 %r8, %r3, 1;
	mapa.shared::cluster.u32 %r9, %r6, %r8;
	ld.shared::cluster.u32 %r10, [%r9];
	getctarank.shared::cluster.u32 %r11, %r9;
	cvt.u64.u32 %rd3, %r6;
	cvta.shared.u64 %rd4, %rd3;
	mapa.u64 %rd5, %rd4, %r8;
	ld.u32 %r12, [%rd5];
	getctarank.u64 %r13, %rd5;
	barrier.cluster.arrive.aligned;
	barrier.cluster.wait.aligned;
	shl.b32 %r14, %r2, 5;
	add.u32 %r14, %r14, %r1;
	mul.wide.u32 %rd6, %r14, 16;
	add.s64 %rd7, %rd1, %rd6;
	st.global.v4.u32 [%rd7], {%r10, %r11, %r12, %r13};
	ret;
}
"#;

#[test]
fn a_cluster_exchanges_values_through_distributed_shared_memory() {
    // Both emulators run the CTAs of a cluster together; each thread reads the value its
    // neighbour CTA stored for the same thread (ptxas: `UCGABAR_ARV`/`UCGABAR_WAIT`, generic
    // `LD` at `SR_SWINHI:rank << 24 | offset`).
    let Some(ptxas) = ptxas_and_nvdisasm() else {
        return;
    };
    let ptx = sm90_ptx(DSMEM_KERNEL);
    let (dir, p, cub) = assemble(&ptxas, &ptx, "sass-dsmem", "dsm", &[]);
    let spec: LaunchSpec = serde_json::from_str(
        r#"{"kernel":"dsm","grid":[4],"block":[32],
            "args":[{"buffer":{"type":"u32","len":512,"init":"zero"}}]}"#,
    )
    .unwrap();
    let mut want = Vec::new();
    for cta in 0..4u32 {
        for t in 0..32u32 {
            let other = (cta ^ 1) * 100 + t;
            want.extend([other, (cta % 2) ^ 1, other, (cta % 2) ^ 1]);
        }
    }
    assert_eq!(ptx_run_words(&p, &spec), want, "PTX emulator");
    let sass_run = cubin_run(&cub, &spec).unwrap();
    assert_eq!(u32_words(&sass_run.buffers[0]), want, "SASS emulator");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `st.async` into the neighbour CTA, completing the bytes on the neighbour's mbarrier, which
/// each CTA waits on before reading what it received.
const ST_ASYNC_KERNEL: &str = r#".visible .entry sta(.param .u64 out) .reqntid 32 .reqnctapercluster 2, 1, 1
{
	.reg .b32 %r<16>;
	.reg .b64 %rd<8>;
	.reg .pred %p<4>;
	.shared .align 8 .b64 bar;
	.shared .align 4 .b32 inbox[32];
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %cluster_ctarank;
	setp.eq.u32 %p1, %r1, 0;
	@%p1 mbarrier.init.shared.b64 [bar], 1;
	@%p1 mbarrier.arrive.expect_tx.shared.b64 %rd2, [bar], 128;
	barrier.cluster.arrive;
	barrier.cluster.wait;
	xor.b32 %r4, %r3, 1;
	mov.u32 %r5, inbox;
	shl.b32 %r6, %r1, 2;
	add.u32 %r7, %r5, %r6;
	mapa.shared::cluster.u32 %r8, %r7, %r4;
	mov.u32 %r9, bar;
	mapa.shared::cluster.u32 %r10, %r9, %r4;
	mad.lo.s32 %r11, %r2, 100, %r1;
	st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%r8], %r11, [%r10];
WAIT:
	mbarrier.try_wait.parity.shared.b64 %p2, [bar], 0;
	@!%p2 bra WAIT;
	ld.shared.u32 %r12, [%r7];
	barrier.cluster.arrive;
	barrier.cluster.wait;
	shl.b32 %r13, %r2, 5;
	add.u32 %r13, %r13, %r1;
	mul.wide.u32 %rd3, %r13, 4;
	add.s64 %rd4, %rd1, %rd3;
	st.global.u32 [%rd4], %r12;
	ret;
}
"#;

#[test]
fn st_async_completes_on_the_neighbours_mbarrier() {
    let Some(ptxas) = ptxas_and_nvdisasm() else {
        return;
    };
    let ptx = sm90_ptx(ST_ASYNC_KERNEL).replace(".version 8.0", ".version 8.1");
    let (dir, p, cub) = assemble(&ptxas, &ptx, "sass-st-async", "sta", &[]);
    let spec: LaunchSpec = serde_json::from_str(
        r#"{"kernel":"sta","grid":[4],"block":[32],
            "args":[{"buffer":{"type":"u32","len":128,"init":"zero"}}]}"#,
    )
    .unwrap();
    let want: Vec<u32> = (0..4u32)
        .flat_map(|cta| (0..32).map(move |t| (cta ^ 1) * 100 + t))
        .collect();
    assert_eq!(ptx_run_words(&p, &spec), want, "PTX emulator");
    // ptxas: `STAS [Ra.64], Rb` with the destination in `Ra` and the mbarrier in `Ra+1`.
    let sass_run = cubin_run(&cub, &spec).unwrap();
    assert_eq!(u32_words(&sass_run.buffers[0]), want, "SASS emulator");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every way ptxas 12.9 reaches another CTA's shared memory: generic `ATOM`, `RED`, `ST`, a
/// vector `LD` and `STAS` of 4, 8 and 16 bytes (`.b32`, `.b64`, `.v2.b32`, `.v4.b32`), all
/// completing on the neighbour's mbarrier.
const PEER_ACCESS_KERNEL: &str = r#".visible .entry peer(.param .u64 out) .reqntid 32 .reqnctapercluster 2, 1, 1
{
	.reg .b32 %r<40>;
	.reg .b64 %rd<10>;
	.reg .pred %p<4>;
	.shared .align 16 .b32 buf[256];
	.shared .align 16 .b32 cnt[64];
	.shared .align 8 .b64 bar;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %cluster_ctarank;
	setp.eq.u32 %p1, %r1, 0;
	@%p1 mbarrier.init.shared.b64 [bar], 1;
	@%p1 mbarrier.arrive.expect_tx.shared.b64 %rd2, [bar], 640;
	shl.b32 %r4, %r1, 3;
	mov.u32 %r5, cnt;
	add.u32 %r6, %r5, %r4;
	st.shared.v2.u32 [%r6], {%r1, %r2};
	barrier.cluster.arrive;
	barrier.cluster.wait;
	xor.b32 %r7, %r3, 1;
	mapa.shared::cluster.u32 %r8, %r6, %r7;
	atom.shared::cluster.add.u32 %r9, [%r8], 1000;
	red.shared::cluster.add.u32 [%r8+4], %r2;
	mov.u32 %r10, buf;
	shl.b32 %r11, %r1, 5;
	add.u32 %r12, %r10, %r11;
	mapa.shared::cluster.u32 %r13, %r12, %r7;
	mov.u32 %r14, bar;
	mapa.shared::cluster.u32 %r15, %r14, %r7;
	mad.lo.s32 %r16, %r2, 100, %r1;
	st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%r13], %r16, [%r15];
	mov.b64 %rd3, {%r16, %r3};
	st.async.shared::cluster.mbarrier::complete_tx::bytes.b64 [%r13+8], %rd3, [%r15];
	add.u32 %r17, %r16, 7;
	st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b32 [%r13+16], {%r17, %r9}, [%r15];
WAIT:
	mbarrier.try_wait.parity.shared.b64 %p2, [bar], 0;
	@!%p2 bra WAIT;
	barrier.cluster.arrive;
	barrier.cluster.wait;
	ld.shared.v4.u32 {%r20, %r21, %r22, %r23}, [%r12];
	ld.shared.v2.u32 {%r24, %r25}, [%r12+16];
	ld.shared::cluster.v2.u32 {%r26, %r27}, [%r8];
	barrier.cluster.arrive;
	barrier.cluster.wait;
	shl.b32 %r30, %r2, 5;
	add.u32 %r30, %r30, %r1;
	mul.wide.u32 %rd4, %r30, 32;
	add.s64 %rd5, %rd1, %rd4;
	st.global.v4.u32 [%rd5], {%r20, %r21, %r22, %r23};
	st.global.v4.u32 [%rd5+16], {%r24, %r25, %r26, %r27};
	ret;
}
"#;

#[test]
fn peer_atomics_stores_and_wide_st_async_agree_on_both_emulators() {
    let Some(ptxas) = ptxas_and_nvdisasm() else {
        return;
    };
    let ptx = sm90_ptx(PEER_ACCESS_KERNEL).replace(".version 8.0", ".version 8.1");
    let (dir, p, cub) = assemble(&ptxas, &ptx, "sass-peer", "peer", &[]);
    let spec: LaunchSpec = serde_json::from_str(
        r#"{"kernel":"peer","grid":[4],"block":[32],
            "args":[{"buffer":{"type":"u32","len":1024,"init":"zero"}}]}"#,
    )
    .unwrap();
    let ptx_words = ptx_run_words(&p, &spec);
    for cta in 0..4u32 {
        let other = cta ^ 1;
        for t in 0..32u32 {
            let i = (32 * cta + t) as usize;
            // The neighbour's `st.async`s into this CTA's `buf`: its value at word 0, (value,
            // its rank) at words 2–3, (value + 7, what its atomic read: t) at words 4–5; then
            // the neighbour's `cnt[t]` after this CTA's atomic and reduction on it.
            let v = other * 100 + t;
            let want = [v, 0, v, other % 2, v + 7, t, t + 1000, other + cta];
            assert_eq!(ptx_words[8 * i..8 * i + 8], want, "CTA {cta} thread {t}");
        }
    }
    let sass_run = cubin_run(&cub, &spec).unwrap();
    let sass_words = u32_words(&sass_run.buffers[0]);
    assert_eq!(
        sass_words, ptx_words,
        "SASS emulator against the PTX emulator"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// One warp of each CTA waits at the cluster barrier while the other waits at a CTA barrier the
/// first never reaches: both emulators must report the deadlock.
const CLUSTER_DEADLOCK_KERNEL: &str = r#".visible .entry stuck(.param .u64 out) .reqntid 64 .reqnctapercluster 2, 1, 1
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
	.reg .pred %p<2>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	setp.ge.u32 %p1, %r1, 32;
	@%p1 bra ALONE;
	barrier.cluster.arrive;
	barrier.cluster.wait;
	bra DONE;
ALONE:
	bar.sync 1;
	barrier.cluster.arrive;
	barrier.cluster.wait;
DONE:
	st.global.u32 [%rd1], %r1;
	ret;
}
"#;

#[test]
fn a_cluster_barrier_that_cannot_complete_is_a_deadlock_on_both_emulators() {
    let Some(ptxas) = ptxas_and_nvdisasm() else {
        return;
    };
    let ptx = sm90_ptx(CLUSTER_DEADLOCK_KERNEL);
    let (dir, p, cub) = assemble(&ptxas, &ptx, "sass-cluster-stuck", "stuck", &[]);
    let spec: LaunchSpec = serde_json::from_str(
        r#"{"kernel":"stuck","grid":[2],"block":[64],
            "args":[{"buffer":{"type":"u32","len":1,"init":"zero"}}]}"#,
    )
    .unwrap();
    let text = std::fs::read_to_string(&p).unwrap();
    let m = warpsmith::ptx::parse_module(&text, "stuck.ptx").unwrap();
    let e = warpsmith::emu::run(&m, &spec, &RunOptions::default()).unwrap_err();
    assert!(e.is_kernel_misbehaviour(), "PTX emulator: {e}");
    let e = cubin_run(&cub, &spec).unwrap_err();
    assert!(
        matches!(e, warpsmith::emu::EmuError::Deadlock { .. }),
        "SASS emulator: {e}"
    );
    assert!(e.to_string().contains("cluster barrier"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Warp specialisation with named barriers: two producer warps and two consumer warps hand a
/// shared buffer back and forth through `bar.arrive`/`bar.sync` with thread counts (ids and
/// counts as immediates and from registers, which ptxas packs as `count << 16 | id`), then the
/// producers alone take a `bar.red.popc` with a count.
const NAMED_BARRIER_KERNEL: &str = r#".visible .entry ws(.param .u64 out, .param .u32 full, .param .u32 cnt) .reqntid 128
{
	.reg .b32 %r<24>;
	.reg .b64 %rd<8>;
	.reg .pred %p<6>;
	.shared .align 4 .b32 buf[64];
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	ld.param.u32 %r20, [full];
	ld.param.u32 %r21, [cnt];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, buf;
	and.b32 %r3, %r1, 63;
	shl.b32 %r4, %r3, 2;
	add.u32 %r5, %r2, %r4;
	mov.u32 %r6, 0;
	mov.u32 %r7, 0;
	setp.ge.u32 %p1, %r1, 64;
	@%p1 bra CONSUMER;
PRODUCE:
	setp.eq.u32 %p2, %r6, 0;
	@!%p2 bar.sync 2, %r21;
	mad.lo.s32 %r8, %r6, 1000, %r3;
	st.shared.u32 [%r5], %r8;
	bar.arrive %r20, 128;
	add.u32 %r6, %r6, 1;
	setp.lt.u32 %p3, %r6, 4;
	@%p3 bra PRODUCE;
	and.b32 %r9, %r1, 1;
	setp.eq.u32 %p4, %r9, 1;
	bar.red.popc.u32 %r7, 3, 64, %p4;
	bra DONE;
CONSUMER:
	bar.sync %r20, %r21;
	ld.shared.u32 %r10, [%r5];
	add.u32 %r7, %r7, %r10;
	bar.arrive 2, 128;
	add.u32 %r6, %r6, 1;
	setp.lt.u32 %p3, %r6, 4;
	@%p3 bra CONSUMER;
DONE:
	mov.u32 %r11, %ctaid.x;
	mad.lo.s32 %r12, %r11, 128, %r1;
	mul.wide.u32 %rd2, %r12, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r7;
	ret;
}
"#;

#[test]
fn named_barriers_with_thread_counts_on_both_emulators() {
    let Some(ptxas) = ptxas_and_nvdisasm() else {
        return;
    };
    let ptx = sm90_ptx(NAMED_BARRIER_KERNEL);
    let (dir, p, cub) = assemble(&ptxas, &ptx, "sass-named-bar", "ws", &[]);
    let spec: LaunchSpec = serde_json::from_str(
        r#"{"kernel":"ws","grid":[2],"block":[128],
            "args":[{"buffer":{"type":"u32","len":256,"init":"zero"}},
                    {"scalar":{"type":"u32","value":1}},
                    {"scalar":{"type":"u32","value":128}}]}"#,
    )
    .unwrap();
    // Producers: 32 of 64 have the predicate; consumers: the four values their slot held.
    let want: Vec<u32> = (0..256u32)
        .map(|t| t % 128)
        .map(|t| if t < 64 { 32 } else { 6000 + 4 * (t - 64) })
        .collect();
    assert_eq!(ptx_run_words(&p, &spec), want, "PTX emulator");
    let sass_run = cubin_run(&cub, &spec).unwrap();
    assert_eq!(u32_words(&sass_run.buffers[0]), want, "SASS emulator");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `redux.sync`/`match.sync` with a full, a constant and a run-time mask: ptxas tests the warp
/// with `BRA.CONV ~URZ` / `BRA.CONV URx` before each and keeps a software path behind it.
const BRA_CONV_KERNEL: &str = r#".visible .entry conv(.param .u64 out, .param .u32 m)
{
	.reg .b32 %r<12>;
	.reg .b64 %rd<6>;
	.reg .pred %p<3>;
	mov.u32 %r1, %tid.x;
	ld.param.u32 %r2, [m];
	mul.lo.u32 %r6, %r1, 7;
	and.b32 %r6, %r6, 13;
	redux.sync.max.u32 %r3, %r6, 0xffffffff;
	match.any.sync.b32 %r4, %r6, 0xffffffff;
	setp.lt.u32 %p1, %r1, 16;
	@%p1 bra SKIP;
	redux.sync.add.u32 %r5, %r6, 0xffff0000;
	add.u32 %r4, %r4, %r5;
	redux.sync.min.u32 %r5, %r1, %r2;
	add.u32 %r4, %r4, %r5;
SKIP:
	mad.lo.s32 %r3, %r3, 65536, %r4;
	ld.param.u64 %rd2, [out];
	cvta.to.global.u64 %rd2, %rd2;
	mov.u32 %r7, %ctaid.x;
	mad.lo.s32 %r8, %r7, 32, %r1;
	mul.wide.u32 %rd3, %r8, 4;
	add.s64 %rd2, %rd2, %rd3;
	st.global.u32 [%rd2], %r3;
	ret;
}
"#;

#[test]
fn warp_reductions_behind_bra_conv_agree_on_both_emulators() {
    let Some(ptxas) = ptxas_and_nvdisasm() else {
        return;
    };
    // sm_80: ptxas 12.9 tests the warp there (on sm_90 it emits plain `WARPSYNC`s).
    let ptx = sm90_ptx(BRA_CONV_KERNEL).replace(".target sm_90", ".target sm_80");
    let (dir, p, cub) = assemble_for("sm_80", &ptxas, &ptx, "sass-bra-conv", "conv", &[]);
    let spec: LaunchSpec = serde_json::from_str(
        r#"{"kernel":"conv","grid":[2],"block":[32],
            "args":[{"buffer":{"type":"u32","len":64,"init":"zero"}},
                    {"scalar":{"type":"u32","value":4294901760}}]}"#,
    )
    .unwrap();
    let v = |t: u32| (t * 7) & 13;
    let max = (0..32).map(v).max().unwrap();
    let want: Vec<u32> = (0..64u32)
        .map(|i| {
            let t = i % 32;
            let matched = (0..32)
                .filter(|&u| v(u) == v(t))
                .fold(0u32, |m, u| m | 1 << u);
            let mut low = matched;
            if t >= 16 {
                low = low
                    .wrapping_add((16..32).map(v).sum::<u32>())
                    .wrapping_add(16);
            }
            (max << 16).wrapping_add(low)
        })
        .collect();
    assert_eq!(ptx_run_words(&p, &spec), want, "PTX emulator");
    let sass_run = cubin_run(&cub, &spec).unwrap();
    assert_eq!(u32_words(&sass_run.buffers[0]), want, "SASS emulator");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Instructions ptxas 12.9 emits for forms in the ZLUDA corpus (other compilers' PTX) that the
/// SASS emulator did not know until session 65: `FRND` (`cvt.rni/rmi/rpi/rzi` between equal
/// float types, f32 and f64), `IDP.4A`/`IDP.2A` (`dp4a`/`dp2a`), `BMSK` (`bmsk.clamp/wrap`),
/// `HMNMX2` (`min`/`max` of f16, with `.NaN`), `HSET2` (`set` of f16 and f16x2), `PLOP3` on
/// sign bits (`add.sat.s32`) and the `ATOMS.CAST.SPIN` loop of `atom.shared.add.f32`.
const ZLUDA_FORMS_KERNEL: &str = r#".visible .entry forms(.param .u64 out, .param .u64 ints, .param .u64 halves, .param .u64 floats, .param .u64 doubles)
{
	.reg .b32 %r<40>;
	.reg .b16 %h<12>;
	.reg .f32 %f<12>;
	.reg .f64 %fd<8>;
	.reg .b64 %rd<16>;
	.shared .align 4 .f32 acc;
	ld.param.u64 %rd1, [out];
	ld.param.u64 %rd2, [ints];
	ld.param.u64 %rd3, [halves];
	ld.param.u64 %rd4, [floats];
	ld.param.u64 %rd5, [doubles];
	cvta.to.global.u64 %rd1, %rd1;
	cvta.to.global.u64 %rd2, %rd2;
	cvta.to.global.u64 %rd3, %rd3;
	cvta.to.global.u64 %rd4, %rd4;
	cvta.to.global.u64 %rd5, %rd5;
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd6, %r1, 16;
	add.s64 %rd7, %rd2, %rd6;
	ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd7];
	dp4a.s32.u32 %r10, %r2, %r3, %r4;
	dp4a.u32.s32 %r11, %r3, %r4, %r5;
	dp2a.hi.s32.s32 %r12, %r2, %r3, %r5;
	dp2a.lo.u32.s32 %r13, %r4, %r2, %r3;
	and.b32 %r6, %r2, 63;
	and.b32 %r7, %r3, 63;
	bmsk.clamp.b32 %r14, %r6, %r7;
	bmsk.wrap.b32 %r15, %r6, %r7;
	add.sat.s32 %r16, %r2, %r3;
	add.sat.s32 %r17, %r4, %r5;
	mul.wide.u32 %rd8, %r1, 8;
	add.s64 %rd9, %rd3, %rd8;
	ld.global.v4.b16 {%h1, %h2, %h3, %h4}, [%rd9];
	min.f16 %h5, %h1, %h2;
	max.f16 %h6, %h3, %h4;
	min.NaN.f16 %h7, %h1, %h3;
	max.NaN.f16 %h8, %h2, %h4;
	mov.b32 %r18, {%h5, %h6};
	mov.b32 %r19, {%h7, %h8};
	set.gtu.u32.f16 %r20, %h1, %h2;
	mov.b32 %r21, {%h1, %h2};
	mov.b32 %r22, {%h3, %h4};
	set.lt.u32.f16x2 %r23, %r21, %r22;
	set.ge.f16x2.f16x2 %r24, %r21, %r22;
	mul.wide.u32 %rd10, %r1, 4;
	add.s64 %rd11, %rd4, %rd10;
	ld.global.f32 %f1, [%rd11];
	cvt.rni.f32.f32 %f2, %f1;
	cvt.rmi.ftz.f32.f32 %f3, %f1;
	cvt.rpi.f32.f32 %f4, %f1;
	cvt.rzi.f32.f32 %f5, %f1;
	add.s64 %rd12, %rd5, %rd8;
	ld.global.f64 %fd1, [%rd12];
	cvt.rni.f64.f64 %fd2, %fd1;
	cvt.rmi.f64.f64 %fd3, %fd1;
	setp.eq.u32 %p1, %r1, 0;
	@%p1 st.shared.f32 [acc], 0f00000000;
	bar.sync 0;
	atom.shared.add.f32 %f6, [acc], %f2;
	bar.sync 0;
	ld.shared.f32 %f7, [acc];
	mul.wide.u32 %rd13, %r1, 112;
	add.s64 %rd14, %rd1, %rd13;
	st.global.v4.u32 [%rd14], {%r10, %r11, %r12, %r13};
	st.global.v4.u32 [%rd14+16], {%r14, %r15, %r16, %r17};
	st.global.v4.u32 [%rd14+32], {%r18, %r19, %r20, %r23};
	st.global.u32 [%rd14+48], %r24;
	st.global.v4.f32 [%rd14+64], {%f2, %f3, %f4, %f5};
	st.global.f32 [%rd14+80], %f7;
	st.global.v2.f64 [%rd14+96], {%fd2, %fd3};
	ret;
}
"#;

#[test]
fn zluda_forms_new_to_the_sass_emulator_agree_with_the_ptx_emulator() {
    let Some(ptxas) = ptxas_and_nvdisasm() else {
        return;
    };
    let ptx = sm90_ptx(ZLUDA_FORMS_KERNEL)
        .replace(".target sm_90", ".target sm_80")
        .replace("%r<40>;", "%r<40>;\n\t.reg .pred %p<2>;");
    let (dir, p, cub) = assemble_for("sm_80", &ptxas, &ptx, "sass-zluda-forms", "forms", &[]);
    // Edge values first (NaNs, infinities, signed zeros, halves, subnormals, large values),
    // then random bits for the other threads; four seeds vary the random part.
    let spec: LaunchSpec = serde_json::from_str(
        r#"{"kernel":"forms","grid":[1],"block":[64],
            "args":[{"buffer":{"type":"u32","len":1792,"init":"zero"}},
                    {"buffer":{"type":"u32","len":256,"init":"random"}},
                    {"buffer":{"type":"u16","len":256,"init":["0x7e00","0x3c00","0xfc00","0x8000",
                        "0x0000","0x8000","0x7c00","0x7e01","0x0001","0x8001","0x3c00","0x3c00",
                        "0xfe00","0x7c00","0x4200","0x4100"]}},
                    {"buffer":{"type":"f32","len":64,"init":[2.5,-2.5,3.5,-0.5,0.5,1.5,
                        "nan","inf","-inf","0x80000000","0x00000001","0x80000001",1e30,-1e-30,
                        8388607.5,-8388608.5]}},
                    {"buffer":{"type":"f64","len":64,"init":[2.5,-2.5,"nan","-inf",
                        4503599627370495.5,-0.5,1e300,"0x8000000000000000"]}}]}"#,
    )
    .unwrap();
    let mut random = spec.clone();
    if let Some(warpsmith::emu::launch::ArgSpec::Buffer(b)) = random.args.get_mut(2) {
        b.init = warpsmith::emu::launch::InitSpec::Named("random".into());
    }
    for (what, s) in [("edge values", &spec), ("random halves", &random)] {
        assert_emulators_agree(&p, &cub, s, 4, what);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `prmt` in every mode and packed-half reductions (`red.add.noftz.f16x2`/`.bf16x2`: Triton's
/// `atomic_add` on fp16 and bf16), on sm_90a with `setmaxnreg` in the same kernel: the SASS
/// emulator runs `PRMT.<mode>`, `RED.E.ADD.F16x2|BF16x2.RN` and `USETMAXREG` with the PTX
/// emulator's results.
const PRMT_RED_KERNEL: &str = r#".visible .entry pr(.param .u64 out, .param .u64 in) .reqntid 128 .maxnreg 128
{
	.reg .b32 %r<24>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [out];
	ld.param.u64 %rd2, [in];
	cvta.to.global.u64 %rd1, %rd1;
	cvta.to.global.u64 %rd2, %rd2;
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd3, %r1, 8;
	add.s64 %rd4, %rd2, %rd3;
	ld.global.v2.u32 {%r2, %r3}, [%rd4];
	setmaxnreg.inc.sync.aligned.u32 160;
	prmt.b32.f4e %r4, %r2, %r3, %r1;
	prmt.b32.b4e %r5, %r2, %r3, %r1;
	prmt.b32.rc8 %r6, %r2, %r3, %r1;
	prmt.b32.ecl %r7, %r2, %r3, %r1;
	prmt.b32.ecr %r8, %r2, %r3, %r1;
	prmt.b32.rc16 %r9, %r2, %r3, %r1;
	setmaxnreg.dec.sync.aligned.u32 96;
	mul.wide.u32 %rd5, %r1, 32;
	add.s64 %rd6, %rd1, %rd5;
	st.global.v4.u32 [%rd6], {%r4, %r5, %r6, %r7};
	st.global.v2.u32 [%rd6+16], {%r8, %r9};
	and.b32 %r10, %r1, 7;
	mul.wide.u32 %rd5, %r10, 4;
	add.s64 %rd7, %rd1, %rd5;
	red.global.add.noftz.f16x2 [%rd7+4096], %r2;
	red.global.add.noftz.bf16x2 [%rd7+4128], %r3;
	ret;
}
"#;

#[test]
fn prmt_modes_and_packed_half_reductions_agree_on_both_emulators() {
    let Some(ptxas) = ptxas_and_nvdisasm() else {
        return;
    };
    let ptx = sm90_ptx(PRMT_RED_KERNEL)
        .replace(".version 8.0", ".version 8.1")
        .replace(".target sm_90", ".target sm_90a");
    let (dir, p, cub) = assemble_for("sm_90a", &ptxas, &ptx, "sass-prmt-red", "pr", &[]);
    // Halves of small magnitude so sixteen additions per word stay finite; the order of the
    // additions is the lanes' in both emulators.
    let spec: LaunchSpec = serde_json::from_str(
        r#"{"kernel":"pr","grid":[1],"block":[128],
            "args":[{"buffer":{"type":"u32","len":1040,"init":"zero"}},
                    {"buffer":{"type":"u16","len":512,"init":"random","range":[0,14000]}}]}"#,
    )
    .unwrap();
    assert_emulators_agree(&p, &cub, &spec, 4, "prmt and red");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `cp.async.bulk` both ways (sm_90): two 1024-byte copies into shared memory completing on an
/// mbarrier the CTA waits on, then one 2048-byte copy back to global memory (`UBLKCP.S.G`,
/// `UBLKCP.G.S`; sizes in 16-byte units, the mbarrier in the register after the destination's).
const BULK_COPY_KERNEL: &str = r#".visible .entry bulk(.param .u64 p, .param .u64 q)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<4>;
	.reg .pred %p<3>;
	.shared .align 128 .b8 buf[4096];
	.shared .align 8 .b64 bar;
	ld.param.u64 %rd1, [p];
	ld.param.u64 %rd2, [q];
	mov.u32 %r1, %tid.x;
	setp.eq.u32 %p1, %r1, 0;
	@%p1 mbarrier.init.shared.b64 [bar], 1;
	bar.sync 0;
	@%p1 mbarrier.arrive.expect_tx.shared.b64 %rd3, [bar], 2048;
	@%p1 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%rd1], 1024, [bar];
	@%p1 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf+1024], [%rd1+1024], 1024, [bar];
WAIT:
	mbarrier.try_wait.parity.shared.b64 %p2, [bar], 0;
	@!%p2 bra WAIT;
	@%p1 cp.async.bulk.global.shared::cta.bulk_group [%rd2], [buf], 2048;
	@%p1 cp.async.bulk.commit_group;
	@%p1 cp.async.bulk.wait_group.read 0;
	ret;
}
"#;

#[test]
fn bulk_copies_both_ways_on_both_emulators() {
    let Some(ptxas) = ptxas_and_nvdisasm() else {
        return;
    };
    let (dir, p, cub) = assemble(
        &ptxas,
        &sm90_ptx(BULK_COPY_KERNEL),
        "sass-bulk",
        "bulk",
        &[],
    );
    let spec: LaunchSpec = serde_json::from_str(
        r#"{"kernel":"bulk","grid":[1],"block":[64],
            "args":[{"buffer":{"type":"u32","len":512,"init":"iota"}},
                    {"buffer":{"type":"u32","len":512,"init":"zero"}}]}"#,
    )
    .unwrap();
    let want: Vec<u32> = (0..512).collect();
    let text = std::fs::read_to_string(&p).unwrap();
    let m = warpsmith::ptx::parse_module(&text, "bulk.ptx").unwrap();
    let ptx_run = warpsmith::emu::run(&m, &spec, &RunOptions::default()).unwrap();
    assert_eq!(u32_words(&ptx_run.buffers[1]), want, "PTX emulator");
    let sass_run = cubin_run(&cub, &spec).unwrap();
    assert_eq!(u32_words(&sass_run.buffers[1]), want, "SASS emulator");
    let _ = std::fs::remove_dir_all(&dir);
}
