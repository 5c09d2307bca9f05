//! Tensor-core instructions end to end: hand-written PTX kernels that stage A and B tiles from
//! global to shared memory (plain loads and stores, or `cp.async`), load fragments with
//! `ldmatrix` (plain and `.trans`), multiply with `mma.sync`, and store D — compared with a CPU
//! matrix product. The `ldmatrix` layout (emu/tensor.rs `matrix_holder`) and the `mma` layout
//! (`MmaSpec::pos`) are encoded separately, so agreement checks both. Also `cp.async` group
//! semantics, zero fill, `stmatrix`, `createpolicy`, and the errors for misuse. Every kernel is
//! also assembled by ptxas when it is installed, and the sm_80 `mma`/`ldmatrix`/`cp.async`
//! kernels also run as cubins on the SASS emulator (`HMMA`, `IMMA`, `LDSM`, `LDGSTS`), which must
//! give the same bytes ([`exec_and_sass`]; skipped without ptxas or nvdisasm).

use warpsmith::emu::launch::{OutBuffer, RunOptions};
use warpsmith::emu::{run, EmuError, LaunchSpec};
use warpsmith::ptx::parse_module;
use warpsmith::sass::emu::SassProgram;
use warpsmith::tools::{self, Tool};

fn exec(text: &str, spec: &str) -> Result<Vec<OutBuffer>, EmuError> {
    let m = parse_module(text, "t.ptx").expect("test PTX parses");
    let spec = LaunchSpec::from_json(spec).expect("spec");
    run(
        &m,
        &spec,
        &RunOptions {
            file: "t.ptx".into(),
            ..RunOptions::default()
        },
    )
    .map(|o| o.buffers)
}

/// [`exec`], and the same launch of ptxas's sm_80 cubin of `text` (`--fmad=false`) on the SASS
/// emulator, whose output buffers must be byte-equal to the PTX emulator's.
fn exec_and_sass(text: &str, spec: &str) -> Result<Vec<OutBuffer>, EmuError> {
    exec_and_sass_except(text, spec, None)
}

/// [`exec_and_sass`], except for the bytes `opaque` (buffer, range) whose value the ISA leaves
/// to the implementation.
fn exec_and_sass_except(
    text: &str,
    spec: &str,
    opaque: Option<(&str, std::ops::Range<usize>)>,
) -> Result<Vec<OutBuffer>, EmuError> {
    let out = exec(text, spec)?;
    if tools::find(Tool::Ptxas).is_err() || tools::find(Tool::Nvdisasm).is_err() {
        eprintln!("SKIPPED (SASS emulator check): ptxas or nvdisasm not found");
        return Ok(out);
    }
    let dir = std::env::temp_dir().join(format!("emu-tensor-sass-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let n = text
        .bytes()
        .fold(text.len(), |h, b| h.wrapping_mul(31) ^ b as usize);
    let (src, cubin) = (
        dir.join(format!("k{n:x}.ptx")),
        dir.join(format!("k{n:x}.cubin")),
    );
    std::fs::write(&src, text).expect("write PTX");
    let (s, c) = (src.to_str().unwrap(), cubin.to_str().unwrap());
    tools::run(Tool::Ptxas, ["--fmad=false", "-arch=sm_80", s, "-o", c])
        .unwrap_or_else(|e| panic!("ptxas rejects the test kernel: {e}"));
    let prog = SassProgram::from_cubin(&std::fs::read(&cubin).expect("cubin")).expect("cubin");
    let _ = std::fs::remove_file(&src);
    let _ = std::fs::remove_file(&cubin);
    let sass = warpsmith::sass::emu::run(
        &prog,
        &LaunchSpec::from_json(spec).expect("spec"),
        &RunOptions {
            file: "t.sm_80.cubin".into(),
            ..RunOptions::default()
        },
    )
    .unwrap_or_else(|e| panic!("SASS emulator: {e}"));
    for x in out.iter().filter(|x| x.arg.is_some()) {
        let mut y = sass
            .buffers
            .iter()
            .find(|y| y.name == x.name)
            .expect("buffer")
            .clone();
        if let Some((name, r)) = &opaque {
            if *name == x.name {
                y.data[r.clone()].copy_from_slice(&x.data[r.clone()]);
            }
        }
        let first = x.data.iter().zip(&y.data).position(|(a, b)| a != b);
        assert!(
            x.data == y.data,
            "{}: the cubin's bytes differ from the PTX's (first at byte {first:?}: {:?} vs {:?})",
            x.name,
            first.map(|i| &x.data[i & !3..(i & !3) + 4]),
            first.map(|i| &y.data[i & !3..(i & !3) + 4]),
        );
    }
    Ok(out)
}

/// Assembles `text` with ptxas for `arch` (skipped when ptxas is absent).
fn ptxas_accepts(text: &str, arch: &str) {
    if tools::find(Tool::Ptxas).is_err() {
        eprintln!("SKIPPED (ptxas check): ptxas not found");
        return;
    }
    let dir = std::env::temp_dir().join(format!("emu-tensor-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let n = text.len()
        ^ text
            .bytes()
            .fold(0usize, |h, b| h.wrapping_mul(31) ^ b as usize);
    let src = dir.join(format!("k{n:x}.ptx"));
    std::fs::write(&src, text).expect("write PTX");
    let out = dir.join(format!("k{n:x}.cubin"));
    let arch = format!("-arch={arch}");
    tools::run(
        Tool::Ptxas,
        [
            arch.as_str(),
            src.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ],
    )
    .unwrap_or_else(|e| panic!("ptxas rejects the test kernel: {e}\n{text}"));
    let _ = std::fs::remove_file(&src);
    let _ = std::fs::remove_file(&out);
}

fn f16_to_f32(h: u16) -> f32 {
    let sign = if h >> 15 == 1 { -1.0 } else { 1.0 };
    let e = i32::from((h >> 10) & 0x1f);
    let m = f32::from(h & 0x3ff);
    sign * match e {
        0 => m * 2f32.powi(-24),
        31 => f32::NAN,
        _ => (1.0 + m / 1024.0) * 2f32.powi(e - 15),
    }
}

fn bf16_to_f32(h: u16) -> f32 {
    f32::from_bits(u32::from(h) << 16)
}

fn halves(b: &[u8]) -> Vec<u16> {
    b.chunks(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect()
}

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// How the kernel stages A and B in shared memory.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Stage {
    /// `ld.global` + `st.shared`, then `bar.sync`.
    LdSt,
    /// `cp.async` (A: .cg 16 bytes or .ca 8; B: .ca), commit, wait, `bar.sync`.
    CpAsync,
    /// `cp.async` and commit, but no wait: the tiles are not there yet.
    CpAsyncNoWait,
}

/// One warp computes D (16×8, f32) = A (16×K, row-major) · B (K×8) + C with `ldmatrix` and
/// `mma.sync.aligned.m16n8k{K}`. `b_trans`: B is stored K×8 row-major and loaded with
/// `ldmatrix.trans`; otherwise Bᵀ is stored 8×K row-major and loaded without `.trans`.
fn mma_kernel(ab: &str, k: u32, b_trans: bool, stage: Stage) -> String {
    let a_bytes = 16 * k * 2;
    let b_bytes = k * 8 * 2;
    let (a_lane, b_lane) = (a_bytes / 32, b_bytes / 32);
    let na = k / 4; // A registers = 8×8 matrices
    let nb = k / 8;
    let vec = |n: u32, first: u32| {
        (0..n)
            .map(|i| format!("%r{}", first + i))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let a_regs = vec(na, 20);
    let b_regs = vec(nb, 24);
    let ld_a = match a_lane {
        16 => "ld.global.v4.u32 \t{%r1, %r2, %r3, %r4}, [%rd11];\n\tst.shared.v4.u32 \t[%r7], {%r1, %r2, %r3, %r4};",
        _ => "ld.global.v2.u32 \t{%r1, %r2}, [%rd11];\n\tst.shared.v2.u32 \t[%r7], {%r1, %r2};",
    };
    let ld_b = match b_lane {
        8 => "ld.global.v2.u32 \t{%r8, %r9}, [%rd13];\n\tst.shared.v2.u32 \t[%r12], {%r8, %r9};",
        _ => "ld.global.u32 \t%r8, [%rd13];\n\tst.shared.u32 \t[%r12], %r8;",
    };
    let a_cp = if a_lane == 16 { "cg" } else { "ca" };
    let staging = match stage {
        Stage::LdSt => format!("{ld_a}\n\t{ld_b}"),
        Stage::CpAsync | Stage::CpAsyncNoWait => {
            let wait = if stage == Stage::CpAsync {
                "cp.async.wait_group \t0;"
            } else {
                ""
            };
            format!(
                "cp.async.{a_cp}.shared.global \t[%r7], [%rd11], {a_lane};\n\t\
                 cp.async.ca.shared.global \t[%r12], [%rd13], {b_lane};\n\t\
                 cp.async.commit_group;\n\t{wait}"
            )
        }
    };
    let (b_shape, b_addr) = if b_trans {
        // k = lane & (K-1): row k of B, 16 bytes.
        (
            format!("x{nb}.trans"),
            format!(
                "and.b32 \t%r18, %r0, {};\n\tshl.b32 \t%r18, %r18, 4;",
                k - 1
            ),
        )
    } else {
        // matrix i = (lane >> 3) & (K/8-1), n = lane & 7: row n of Bᵀ (2K bytes), column block i.
        (
            format!("x{nb}"),
            format!(
                "shr.u32 \t%r18, %r0, 3;\n\tand.b32 \t%r18, %r18, {};\n\tshl.b32 \t%r18, %r18, 4;\n\t\
                 and.b32 \t%r19, %r0, 7;\n\tmul.lo.u32 \t%r19, %r19, {};\n\tadd.s32 \t%r18, %r18, %r19;",
                nb - 1,
                2 * k
            ),
        )
    };
    format!(
        r#".version 8.0
.target sm_80
.address_size 64
.visible .entry mma_k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)
{{
	.reg .b32 	%r<64>;
	.reg .f32 	%f<16>;
	.reg .b64 	%rd<32>;
	.shared .align 16 .b8 sA[{a_bytes}];
	.shared .align 16 .b8 sB[{b_bytes}];

	ld.param.u64 	%rd1, [pa];
	cvta.to.global.u64 	%rd1, %rd1;
	ld.param.u64 	%rd2, [pb];
	cvta.to.global.u64 	%rd2, %rd2;
	ld.param.u64 	%rd3, [pc];
	cvta.to.global.u64 	%rd3, %rd3;
	ld.param.u64 	%rd4, [pd];
	cvta.to.global.u64 	%rd4, %rd4;
	mov.u32 	%r0, %tid.x;
	mul.wide.u32 	%rd10, %r0, {a_lane};
	add.s64 	%rd11, %rd1, %rd10;
	mov.u32 	%r5, sA;
	mul.lo.u32 	%r6, %r0, {a_lane};
	add.s32 	%r7, %r5, %r6;
	mul.wide.u32 	%rd12, %r0, {b_lane};
	add.s64 	%rd13, %rd2, %rd12;
	mov.u32 	%r10, sB;
	mul.lo.u32 	%r11, %r0, {b_lane};
	add.s32 	%r12, %r10, %r11;
	{staging}
	bar.sync 	0;
	// A: matrix i = (lane & (8*na-1)) >> 3, row r = lane & 7: A row (i&1)*8 + r, bytes (i>>1)*16.
	and.b32 	%r13, %r0, {amask};
	shr.u32 	%r13, %r13, 3;
	and.b32 	%r14, %r0, 7;
	and.b32 	%r15, %r13, 1;
	shl.b32 	%r15, %r15, 3;
	add.s32 	%r15, %r15, %r14;
	mul.lo.u32 	%r15, %r15, {a_row};
	shr.u32 	%r16, %r13, 1;
	shl.b32 	%r16, %r16, 4;
	add.s32 	%r17, %r15, %r16;
	add.s32 	%r17, %r17, %r5;
	ldmatrix.sync.aligned.m8n8.x{na}.shared.b16 	{{{a_regs}}}, [%r17];
	{b_addr}
	add.s32 	%r18, %r18, %r10;
	ldmatrix.sync.aligned.m8n8.{b_shape}.shared.b16 	{{{b_regs}}}, [%r18];
	// C/D: lane holds (g, 2t), (g, 2t+1), (g+8, 2t), (g+8, 2t+1).
	shr.u32 	%r30, %r0, 2;
	and.b32 	%r31, %r0, 3;
	shl.b32 	%r32, %r30, 3;
	shl.b32 	%r33, %r31, 1;
	add.s32 	%r34, %r32, %r33;
	mul.wide.u32 	%rd14, %r34, 4;
	add.s64 	%rd15, %rd3, %rd14;
	ld.global.v2.f32 	{{%f1, %f2}}, [%rd15];
	ld.global.v2.f32 	{{%f3, %f4}}, [%rd15+256];
	mma.sync.aligned.m16n8k{k}.row.col.f32.{ab}.{ab}.f32 	{{%f5, %f6, %f7, %f8}}, {{{a_regs}}}, {{{b_regs}}}, {{%f1, %f2, %f3, %f4}};
	add.s64 	%rd16, %rd4, %rd14;
	st.global.v2.f32 	[%rd16], {{%f5, %f6}};
	st.global.v2.f32 	[%rd16+256], {{%f7, %f8}};
	ret;
}}
"#,
        amask = 8 * na - 1,
        a_row = 2 * k,
    )
}

fn mma_spec(ab: &str, k: u32) -> String {
    format!(
        r#"{{"kernel":"mma_k","grid":[1],"block":[32],"args":[
        {{"buffer":{{"type":"{ab}","len":{a},"init":"random","range":[-2,2]}}}},
        {{"buffer":{{"type":"{ab}","len":{b},"init":"random","range":[-2,2]}}}},
        {{"buffer":{{"type":"f32","len":128,"init":"random","range":[-8,8]}}}},
        {{"buffer":{{"type":"f32","len":128}}}}]}}"#,
        a = 16 * k,
        b = 8 * k
    )
}

/// The tensor cores' block FMA (docs/emulator.md, fitted to an H100), written independently of
/// the emulator in integers: each addend (exact products of inputs with at most 11 significant
/// bits, and `c`) truncated toward zero to whole units of `2^(E − 26)` (`E` the largest addend's
/// exponent), the units summed, the sum truncated to 24 significant bits.
fn block_fma_reference(c: f32, products: &[f64]) -> f32 {
    let terms: Vec<f64> = std::iter::once(f64::from(c))
        .chain(products.iter().copied())
        .collect();
    let Some(e_max) = terms
        .iter()
        .filter(|x| **x != 0.0)
        .map(|x| x.abs().log2().floor() as i32)
        .max()
    else {
        return c;
    };
    let unit = e_max - 26;
    // x / 2^unit, truncated toward zero, as an integer (|x| < 2^(e_max + 1): below 2^27 units).
    let units: i128 = terms
        .iter()
        .map(|&x| (x * 2f64.powi(-unit)).trunc() as i128)
        .sum();
    let (mut m, mut e) = (units.unsigned_abs(), unit);
    while m >= 1 << 24 {
        m >>= 1;
        e += 1;
    }
    let v = m as f64 * 2f64.powi(e);
    (if units < 0 { -v } else { v }) as f32
}

/// The CPU reference: D[i][j] = the block FMA of C[i][j] and A[i][x]·B[x][j], x < k (one
/// instruction of depth k).
fn reference(a: &[f32], b_at: impl Fn(usize, usize) -> f32, c: &[f32], k: usize) -> Vec<f32> {
    let mut d = vec![0f32; 128];
    for i in 0..16 {
        for j in 0..8 {
            let products: Vec<f64> = (0..k)
                .map(|x| f64::from(a[i * k + x]) * f64::from(b_at(x, j)))
                .collect();
            d[i * 8 + j] = block_fma_reference(c[i * 8 + j], &products);
        }
    }
    d
}

fn check_mma(ab: &str, k: u32, b_trans: bool, stage: Stage) {
    let text = mma_kernel(ab, k, b_trans, stage);
    ptxas_accepts(&text, "sm_80");
    let out = exec_and_sass(&text, &mma_spec(ab, k)).unwrap_or_else(|e| panic!("{e}"));
    let conv = if ab == "f16" { f16_to_f32 } else { bf16_to_f32 };
    let a: Vec<f32> = halves(&out[0].data).into_iter().map(conv).collect();
    let b: Vec<f32> = halves(&out[1].data).into_iter().map(conv).collect();
    let c = f32s(&out[2].data);
    let d = f32s(&out[3].data);
    let k = k as usize;
    let want = if b_trans {
        reference(&a, |x, j| b[x * 8 + j], &c, k)
    } else {
        reference(&a, |x, j| b[j * k + x], &c, k)
    };
    if stage == Stage::CpAsyncNoWait {
        // Without the wait the shared tiles are still zero: D = C.
        assert_eq!(d, c, "{ab} k{k}: copies completed without a wait");
        assert_ne!(d, want);
        return;
    }
    for i in 0..128 {
        assert_eq!(
            d[i].to_bits(),
            want[i].to_bits(),
            "{ab} k{k} trans {b_trans} {stage:?}: D[{}][{}] = {} want {}",
            i / 8,
            i % 8,
            d[i],
            want[i]
        );
    }
}

#[test]
fn ldmatrix_x4_mma_m16n8k16_f16_matches_cpu_matmul() {
    check_mma("f16", 16, true, Stage::LdSt);
    check_mma("f16", 16, false, Stage::LdSt);
}

#[test]
fn ldmatrix_x2_x1_mma_m16n8k8_f16_matches_cpu_matmul() {
    check_mma("f16", 8, true, Stage::LdSt);
    check_mma("f16", 8, false, Stage::LdSt);
}

#[test]
fn mma_bf16_k16_and_k8_match_cpu_matmul() {
    check_mma("bf16", 16, true, Stage::LdSt);
    check_mma("bf16", 8, false, Stage::LdSt);
}

#[test]
fn cp_async_staged_tiles_give_the_same_product() {
    check_mma("f16", 16, true, Stage::CpAsync);
    check_mma("bf16", 8, true, Stage::CpAsync);
}

#[test]
fn cp_async_without_wait_is_not_complete() {
    check_mma("f16", 16, true, Stage::CpAsyncNoWait);
}

/// A one-warp kernel `k(pa, pb, pc, pd)` (sm_80): `%r0` = lane, `%r30` = g = lane >> 2,
/// `%r31` = t = lane & 3, `%rd1..%rd4` the four global pointers, then `body`.
fn frag_kernel(target: &str, body: &str) -> String {
    format!(
        r#".version 8.0
.target {target}
.address_size 64
.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)
{{
	.reg .pred 	%p<8>;
	.reg .b32 	%r<64>;
	.reg .f32 	%f<32>;
	.reg .f64 	%fd<16>;
	.reg .b64 	%rd<32>;
	.shared .align 16 .b8 s[1024];
	ld.param.u64 	%rd1, [pa];
	cvta.to.global.u64 	%rd1, %rd1;
	ld.param.u64 	%rd2, [pb];
	cvta.to.global.u64 	%rd2, %rd2;
	ld.param.u64 	%rd3, [pc];
	cvta.to.global.u64 	%rd3, %rd3;
	ld.param.u64 	%rd4, [pd];
	cvta.to.global.u64 	%rd4, %rd4;
	mov.u32 	%r0, %tid.x;
	shr.u32 	%r30, %r0, 2;
	and.b32 	%r31, %r0, 3;
{body}
	ret;
}}
"#
    )
}

fn spec4(ty: [(&str, u32, &str); 4]) -> String {
    let args: Vec<String> = ty
        .iter()
        .map(|(t, len, init)| format!(r#"{{"buffer":{{"type":"{t}","len":{len},"init":{init}}}}}"#))
        .collect();
    format!(
        r#"{{"kernel":"k","grid":[1],"block":[32],"args":[{}]}}"#,
        args.join(",")
    )
}

/// tf32 m16n8k8: A (16×8 f32, row-major) a0 = (g, t), a1 = (g+8, t), a2 = (g, t+4),
/// a3 = (g+8, t+4); B (8×8, row-major) b0 = (t, g), b1 = (t+4, g); C/D as for f16.
#[test]
fn mma_tf32_m16n8k8_matches_cpu_matmul() {
    let body = r#"
	shl.b32 	%r1, %r30, 3;
	add.s32 	%r1, %r1, %r31;
	mul.wide.u32 	%rd5, %r1, 4;
	add.s64 	%rd5, %rd1, %rd5;
	ld.global.b32 	%r10, [%rd5];
	ld.global.b32 	%r11, [%rd5+256];
	ld.global.b32 	%r12, [%rd5+16];
	ld.global.b32 	%r13, [%rd5+272];
	shl.b32 	%r2, %r31, 3;
	add.s32 	%r2, %r2, %r30;
	mul.wide.u32 	%rd6, %r2, 4;
	add.s64 	%rd6, %rd2, %rd6;
	ld.global.b32 	%r14, [%rd6];
	ld.global.b32 	%r15, [%rd6+128];
	shl.b32 	%r3, %r30, 3;
	shl.b32 	%r4, %r31, 1;
	add.s32 	%r3, %r3, %r4;
	mul.wide.u32 	%rd7, %r3, 4;
	add.s64 	%rd8, %rd3, %rd7;
	ld.global.v2.f32 	{%f1, %f2}, [%rd8];
	ld.global.v2.f32 	{%f3, %f4}, [%rd8+256];
	mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 	{%f5, %f6, %f7, %f8}, {%r10, %r11, %r12, %r13}, {%r14, %r15}, {%f1, %f2, %f3, %f4};
	add.s64 	%rd9, %rd4, %rd7;
	st.global.v2.f32 	[%rd9], {%f5, %f6};
	st.global.v2.f32 	[%rd9+256], {%f7, %f8};"#;
    let text = frag_kernel("sm_80", body);
    ptxas_accepts(&text, "sm_80");
    let r = r#""random""#;
    let out = exec_and_sass(
        &text,
        &spec4([
            ("f32", 128, r),
            ("f32", 64, r),
            ("f32", 128, r),
            ("f32", 128, "\"zero\""),
        ]),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    // tf32: the low 13 fraction bits of the inputs do not count.
    let tf = |x: f32| f32::from_bits(x.to_bits() & 0xffff_e000);
    let a: Vec<f32> = f32s(&out[0].data).into_iter().map(tf).collect();
    let b: Vec<f32> = f32s(&out[1].data).into_iter().map(tf).collect();
    let c = f32s(&out[2].data);
    let want = reference(&a, |x, j| b[x * 8 + j], &c, 8);
    let d = f32s(&out[3].data);
    assert!(
        a.iter().zip(f32s(&out[0].data)).any(|(x, y)| *x != y),
        "inputs have low bits"
    );
    for i in 0..128 {
        assert_eq!(d[i].to_bits(), want[i].to_bits(), "D[{}][{}]", i / 8, i % 8);
    }
}

/// s8 × u8 m16n8k32 → s32 (wrapping and .satfinite): A (16×32, row-major) register j holds
/// row g + 8·(j & 1), bytes 4t + 16·(j >> 1) …; Bᵀ (8×32, row-major) register j holds B's rows
/// 4t + 16j … of column g.
#[test]
fn mma_s8_u8_m16n8k32_matches_cpu_matmul() {
    for sat in ["", ".satfinite"] {
        let body = format!(
            r#"
	shl.b32 	%r1, %r30, 5;
	shl.b32 	%r2, %r31, 2;
	add.s32 	%r1, %r1, %r2;
	cvt.u64.u32 	%rd5, %r1;
	add.s64 	%rd6, %rd1, %rd5;
	ld.global.b32 	%r10, [%rd6];
	ld.global.b32 	%r11, [%rd6+256];
	ld.global.b32 	%r12, [%rd6+16];
	ld.global.b32 	%r13, [%rd6+272];
	add.s64 	%rd7, %rd2, %rd5;
	ld.global.b32 	%r14, [%rd7];
	ld.global.b32 	%r15, [%rd7+16];
	shl.b32 	%r3, %r30, 3;
	shl.b32 	%r4, %r31, 1;
	add.s32 	%r3, %r3, %r4;
	mul.wide.u32 	%rd8, %r3, 4;
	add.s64 	%rd9, %rd3, %rd8;
	ld.global.v2.u32 	{{%r20, %r21}}, [%rd9];
	ld.global.v2.u32 	{{%r22, %r23}}, [%rd9+256];
	mma.sync.aligned.m16n8k32.row.col{sat}.s32.s8.u8.s32 	{{%r24, %r25, %r26, %r27}}, {{%r10, %r11, %r12, %r13}}, {{%r14, %r15}}, {{%r20, %r21, %r22, %r23}};
	add.s64 	%rd10, %rd4, %rd8;
	st.global.v2.u32 	[%rd10], {{%r24, %r25}};
	st.global.v2.u32 	[%rd10+256], {{%r26, %r27}};"#
        );
        let text = frag_kernel("sm_80", &body);
        ptxas_accepts(&text, "sm_80");
        let r = r#""random""#;
        // C near the top of the s32 range so that some sums overflow.
        let c_init = r#""random","range":[2147000000,2147483647]"#;
        let out = exec_and_sass(
            &text,
            &spec4([
                ("s8", 512, r),
                ("u8", 256, r),
                ("s32", 128, c_init),
                ("s32", 128, "\"zero\""),
            ]),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let a: Vec<i64> = out[0].data.iter().map(|&x| i64::from(x as i8)).collect();
        let bt: Vec<i64> = out[1].data.iter().map(|&x| i64::from(x)).collect();
        let c: Vec<i64> = out[2]
            .data
            .chunks(4)
            .map(|w| i64::from(i32::from_le_bytes([w[0], w[1], w[2], w[3]])))
            .collect();
        let d: Vec<i32> = out[3]
            .data
            .chunks(4)
            .map(|w| i32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect();
        let mut overflowed = 0;
        for i in 0..16 {
            for j in 0..8 {
                let exact =
                    c[i * 8 + j] + (0..32).map(|x| a[i * 32 + x] * bt[j * 32 + x]).sum::<i64>();
                let want = if sat.is_empty() {
                    exact as i32
                } else {
                    exact.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
                };
                overflowed += usize::from(exact > i64::from(i32::MAX));
                assert_eq!(d[i * 8 + j], want, "{sat} D[{i}][{j}]");
            }
        }
        assert!(overflowed > 0, "the test must exercise overflow");
    }
}

/// f64 m8n8k4: A (8×4) a0 = (g, t); B (4×8) b0 = (t, g); C/D (8×8) (g, 2t), (g, 2t+1).
#[test]
fn mma_f64_m8n8k4_matches_cpu_matmul() {
    let body = r#"
	shl.b32 	%r1, %r30, 2;
	add.s32 	%r1, %r1, %r31;
	mul.wide.u32 	%rd5, %r1, 8;
	add.s64 	%rd5, %rd1, %rd5;
	ld.global.f64 	%fd1, [%rd5];
	shl.b32 	%r2, %r31, 3;
	add.s32 	%r2, %r2, %r30;
	mul.wide.u32 	%rd6, %r2, 8;
	add.s64 	%rd6, %rd2, %rd6;
	ld.global.f64 	%fd2, [%rd6];
	shl.b32 	%r3, %r30, 3;
	shl.b32 	%r4, %r31, 1;
	add.s32 	%r3, %r3, %r4;
	mul.wide.u32 	%rd7, %r3, 8;
	add.s64 	%rd8, %rd3, %rd7;
	ld.global.v2.f64 	{%fd3, %fd4}, [%rd8];
	mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 	{%fd5, %fd6}, {%fd1}, {%fd2}, {%fd3, %fd4};
	add.s64 	%rd9, %rd4, %rd7;
	st.global.v2.f64 	[%rd9], {%fd5, %fd6};"#;
    let text = frag_kernel("sm_80", body);
    ptxas_accepts(&text, "sm_80");
    let r = r#""random""#;
    let out = exec(
        &text,
        &spec4([
            ("f64", 32, r),
            ("f64", 32, r),
            ("f64", 64, r),
            ("f64", 64, "\"zero\""),
        ]),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let f = |b: &[u8]| -> Vec<f64> {
        b.chunks(8)
            .map(|w| f64::from_le_bytes(w.try_into().unwrap()))
            .collect()
    };
    let (a, b, c, d) = (
        f(&out[0].data),
        f(&out[1].data),
        f(&out[2].data),
        f(&out[3].data),
    );
    for i in 0..8 {
        for j in 0..8 {
            let mut acc = c[i * 8 + j];
            for x in 0..4 {
                acc = a[i * 4 + x].mul_add(b[x * 8 + j], acc);
            }
            assert_eq!(d[i * 8 + j].to_bits(), acc.to_bits(), "D[{i}][{j}]");
        }
    }
}

/// f16 accumulators (C and D .f16x2): c0/c1 row g, c2/c3 row g+8, packed two per register.
#[test]
fn mma_f16_accumulator_m16n8k16() {
    let body = r#"
	shl.b32 	%r1, %r30, 4;
	shl.b32 	%r2, %r31, 1;
	add.s32 	%r1, %r1, %r2;
	mul.wide.u32 	%rd5, %r1, 2;
	add.s64 	%rd5, %rd1, %rd5;
	ld.global.b32 	%r10, [%rd5];
	ld.global.b32 	%r11, [%rd5+256];
	ld.global.b32 	%r12, [%rd5+16];
	ld.global.b32 	%r13, [%rd5+272];
	shl.b32 	%r3, %r30, 4;
	add.s32 	%r3, %r3, %r2;
	mul.wide.u32 	%rd6, %r3, 2;
	add.s64 	%rd6, %rd2, %rd6;
	ld.global.b32 	%r14, [%rd6];
	ld.global.b32 	%r15, [%rd6+16];
	shl.b32 	%r4, %r30, 3;
	add.s32 	%r4, %r4, %r2;
	mul.wide.u32 	%rd7, %r4, 2;
	add.s64 	%rd8, %rd3, %rd7;
	ld.global.b32 	%r20, [%rd8];
	ld.global.b32 	%r21, [%rd8+128];
	mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 	{%r22, %r23}, {%r10, %r11, %r12, %r13}, {%r14, %r15}, {%r20, %r21};
	add.s64 	%rd9, %rd4, %rd7;
	st.global.b32 	[%rd9], %r22;
	st.global.b32 	[%rd9+128], %r23;"#;
    // A row-major 16×16: register 0 = (g, 2t..2t+1) at byte (16g + 2t)·2; Bᵀ 8×16 row-major:
    // register 0 = B rows 2t, 2t+1 of column g at (16g + 2t)·2, register 1 at +16 bytes.
    let text = frag_kernel("sm_80", body);
    ptxas_accepts(&text, "sm_80");
    let r = r#""random""#;
    let out = exec_and_sass(
        &text,
        &spec4([
            ("f16", 256, r),
            ("f16", 128, r),
            ("f16", 128, r),
            ("f16", 128, "\"zero\""),
        ]),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let h = |b: &[u8]| -> Vec<f32> { halves(b).into_iter().map(f16_to_f32).collect() };
    let (a, bt, c) = (h(&out[0].data), h(&out[1].data), h(&out[2].data));
    let d = halves(&out[3].data);
    let want = reference(&a, |x, j| bt[j * 16 + x], &c, 16);
    for i in 0..128 {
        // Round the f32 accumulator once to f16 (to nearest even).
        let got = f16_to_f32(d[i]);
        let w = want[i];
        let ulp = 2f32.powi((w.abs().log2().floor() as i32).max(-14) - 10);
        assert!(
            (got - w).abs() <= ulp / 2.0,
            "D[{}][{}] = {got}, want {w}",
            i / 8,
            i % 8
        );
    }
}

fn words32(b: &[u8]) -> Vec<u32> {
    b.chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// `cp.async` groups: `wait_group 1` completes the older group only; `src-size` zero-fills the
/// rest of the copy; a true `ignore-src` predicate writes zeros; `wait_all` completes everything;
/// cache-hint operands (from `createpolicy`) change nothing.
#[test]
fn cp_async_groups_zero_fill_and_cache_hints() {
    let body = r#"
	mov.u32 	%r1, s;
	setp.eq.u32 	%p1, %r0, 0;
	@!%p1 bra 	DONE;
	st.shared.v4.u32 	[%r1+32], {%r30, %r30, %r30, %r30};
	st.shared.v2.u32 	[%r1+48], {%r30, %r30};
	createpolicy.fractional.L2::evict_last.b64 	%rd20, 1.0;
	cp.async.ca.shared.global 	[%r1], [%rd1], 4;
	cp.async.commit_group;
	cp.async.cg.shared.global.L2::cache_hint 	[%r1+16], [%rd1+16], 16, %rd20;
	cp.async.commit_group;
	cp.async.wait_group 	1;
	ld.shared.u32 	%r2, [%r1];
	ld.shared.u32 	%r3, [%r1+16];
	cp.async.wait_group 	0;
	ld.shared.u32 	%r4, [%r1+16];
	mov.u32 	%r20, 5;
	cp.async.ca.shared.global.L2::128B 	[%r1+32], [%rd1+32], 16, %r20;
	cp.async.ca.shared.global 	[%r1+48], [%rd1+48], 8, %p1;
	cp.async.wait_all;
	ld.shared.v4.u32 	{%r5, %r6, %r7, %r8}, [%r1+32];
	ld.shared.v2.u32 	{%r9, %r10}, [%r1+48];
	ld.global.L2::cache_hint.u32 	%r11, [%rd1+4], %rd20;
	st.global.v4.u32 	[%rd4], {%r2, %r3, %r4, %r5};
	st.global.v4.u32 	[%rd4+16], {%r6, %r7, %r8, %r9};
	st.global.v2.u32 	[%rd4+32], {%r10, %r11};
	st.global.u64 	[%rd4+40], %rd20;
DONE:"#;
    // Thread 0 only (%r30 = g = 0, so the pre-filled words are 0 too: use 0xffffffff instead).
    let body = body
        .replace("{%r30, %r30, %r30, %r30}", "{%r40, %r40, %r40, %r40}")
        .replace("{%r30, %r30}", "{%r40, %r40}");
    let body = format!("\tmov.u32 \t%r40, -1;{body}");
    let text = frag_kernel("sm_80", &body);
    ptxas_accepts(&text, "sm_80");
    let r = r#""random""#;
    let out = exec_and_sass_except(
        &text,
        &spec4([
            ("u32", 16, r),
            ("u32", 4, r),
            ("u32", 4, r),
            ("u32", 16, "\"zero\""),
        ]),
        // Bytes 40..48: the `createpolicy` value (opaque: the emulator's own encoding vs ptxas's).
        Some(("arg3", 40..48)),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let inp = words32(&out[0].data);
    let d = words32(&out[3].data);
    assert_eq!(d[0], inp[0], "group 1 complete after wait_group 1");
    assert_eq!(d[1], 0, "group 2 still in flight after wait_group 1");
    assert_eq!(d[2], inp[4], "group 2 complete after wait_group 0");
    assert_eq!(d[3], inp[8], "src-size 5: first word copied");
    assert_eq!(
        d[4],
        inp[9] & 0xff,
        "src-size 5: fifth byte copied, the rest zero-filled"
    );
    assert_eq!([d[5], d[6]], [0, 0], "zero fill");
    assert_eq!([d[7], d[8]], [0, 0], "ignore-src: zeros");
    assert_eq!(d[9], inp[1], "a load with a cache hint");
    assert_ne!(
        u64::from(d[10]) | u64::from(d[11]) << 32,
        0,
        "createpolicy gives a policy value"
    );
}

/// `stmatrix` (sm_90) stores the fragment layout `ldmatrix` loads: lane l's register i holds
/// row l/4, elements 2(l%4), 2(l%4)+1 of matrix i (with `.trans`: column l/4, rows 2(l%4),
/// 2(l%4)+1). Each lane's register i is (lane·4+i)·2 | ((lane·4+i)·2+1) << 16.
#[test]
fn stmatrix_stores_the_fragment_layout() {
    for trans in [false, true] {
        let t = if trans { ".trans" } else { "" };
        let body = format!(
            r#"
	mov.u32 	%r1, s;
	shl.b32 	%r2, %r0, 3;
	or.b32 	%r3, %r2, 2;
	or.b32 	%r4, %r2, 4;
	or.b32 	%r5, %r2, 6;
	mad.lo.u32 	%r10, %r2, 65537, 65536;
	mad.lo.u32 	%r11, %r3, 65537, 65536;
	mad.lo.u32 	%r12, %r4, 65537, 65536;
	mad.lo.u32 	%r13, %r5, 65537, 65536;
	shr.u32 	%r6, %r0, 3;
	shl.b32 	%r6, %r6, 7;
	and.b32 	%r7, %r0, 7;
	shl.b32 	%r7, %r7, 4;
	add.s32 	%r6, %r6, %r7;
	add.s32 	%r6, %r6, %r1;
	stmatrix.sync.aligned.m8n8.x4{t}.shared.b16 	[%r6], {{%r10, %r11, %r12, %r13}};
	bar.warp.sync 	-1;
	shl.b32 	%r8, %r0, 4;
	add.s32 	%r8, %r8, %r1;
	ld.shared.v4.u32 	{{%r20, %r21, %r22, %r23}}, [%r8];
	mul.wide.u32 	%rd5, %r0, 16;
	add.s64 	%rd5, %rd4, %rd5;
	st.global.v4.u32 	[%rd5], {{%r20, %r21, %r22, %r23}};
	ldmatrix.sync.aligned.m8n8.x4{t}.shared.b16 	{{%r24, %r25, %r26, %r27}}, [%r6];
	mul.wide.u32 	%rd6, %r0, 16;
	add.s64 	%rd6, %rd3, %rd6;
	st.global.v4.u32 	[%rd6], {{%r24, %r25, %r26, %r27}};"#
        );
        let text = frag_kernel("sm_90", &body);
        ptxas_accepts(&text, "sm_90");
        let z = "\"zero\"";
        let out = exec(
            &text,
            &spec4([
                ("u32", 4, z),
                ("u32", 4, z),
                ("u32", 128, z),
                ("u16", 256, z),
            ]),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let mem = halves(&out[3].data);
        for i in 0..4u32 {
            for row in 0..8u32 {
                for col in 0..8u32 {
                    let (lane, half) = if trans {
                        (4 * col + row / 2, row % 2)
                    } else {
                        (4 * row + col / 2, col % 2)
                    };
                    let want = ((lane * 4 + i) * 2 + half) as u16;
                    let got = mem[(i * 64 + row * 8 + col) as usize];
                    assert_eq!(got, want, "trans {trans}: matrix {i} ({row}, {col})");
                }
            }
        }
        // ldmatrix of what stmatrix stored gives the registers back.
        let regs = words32(&out[2].data);
        for lane in 0..32u32 {
            for i in 0..4u32 {
                let lo = (lane * 4 + i) * 2;
                assert_eq!(
                    regs[(lane * 4 + i) as usize],
                    lo | (lo + 1) << 16,
                    "lane {lane} reg {i}"
                );
            }
        }
    }
}

fn expect_err(text: &str, spec: &str, needle: &str) -> EmuError {
    let e = exec(text, spec).expect_err("the run must fail");
    let msg = e.to_string();
    assert!(msg.contains(needle), "`{needle}` not in: {msg}");
    assert!(msg.contains("t.ptx:"), "no source location in: {msg}");
    e
}

/// Misuse and unsupported forms stop with an error naming the instruction and its line.
#[test]
fn tensor_errors_name_the_instruction() {
    let z = "\"zero\"";
    let spec = spec4([
        ("u32", 64, z),
        ("u32", 64, z),
        ("u32", 64, z),
        ("u32", 64, z),
    ]);
    let half_warp = spec.replace("\"block\":[32]", "\"block\":[16]");
    // mma by half a warp.
    let mma = frag_kernel(
        "sm_80",
        "\tmma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 \t{%f1, %f2, %f3, %f4}, {%r1, %r2}, {%r3}, {%f5, %f6, %f7, %f8};",
    );
    let e = expect_err(&mma, &half_warp, "all 32 lanes");
    assert!(matches!(e, EmuError::Fault { .. }), "{e:?}");
    assert!(e.to_string().contains("mma.sync.aligned.m16n8k8"), "{e}");
    // A misaligned ldmatrix row address.
    let ldm = frag_kernel(
        "sm_80",
        "\tmov.u32 \t%r1, s;\n\tadd.s32 \t%r1, %r1, 8;\n\tldmatrix.sync.aligned.m8n8.x1.shared.b16 \t{%r2}, [%r1];",
    );
    expect_err(&ldm, &spec, "misaligned");
    // Forms not implemented.
    for (inst, why) in [
        ("mma.sync.aligned.m16n8k16.row.col.f32.e4m3.e4m3.f32 \t{%f1, %f2, %f3, %f4}, {%r1, %r2}, {%r5}, {%f5, %f6, %f7, %f8};", "e4m3"),
        ("mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 \t{%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, {%f5, %f6, %f7, %f8}, %r9, 0x0;", "sparse"),
        ("movmatrix.sync.aligned.m8n8.trans.b16 \t%r1, %r2;", "movmatrix"),
    ] {
        let text = frag_kernel("sm_90", &format!("\t{inst}"));
        let e = expect_err(&text, &spec, why);
        assert!(matches!(e, EmuError::Unsupported { .. }), "{e:?}");
    }
}

/// `mbarrier` + `cp.async.bulk` (sm_90): thread 96 (warp 3) initialises a barrier for one
/// arrival, arrives with `expect_tx` of 512 bytes and bulk-copies 512 bytes from global into
/// shared memory completing them on the barrier; every thread spins on `try_wait.parity` (warps
/// 0–2 wait for warp 3), then reads the tile. A second barrier counts all 128 threads' arrivals
/// (`try_wait` with the arrival state). Then the tile goes back to global memory with a bulk-group
/// copy. `test_wait.parity 1` (the next phase) is false.
#[test]
fn mbarrier_and_bulk_copies() {
    let body = r#"
	mov.u32 	%r1, tile;
	mov.u32 	%r2, bar;
	mov.u32 	%r3, bar2;
	setp.eq.u32 	%p1, %r0, 96;
	setp.eq.u32 	%p2, %r0, 0;
	@%p1 mbarrier.init.shared::cta.b64 	[%r2], 1;
	@%p2 mbarrier.init.shared::cta.b64 	[%r3], 128;
	bar.sync 	0;
	@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 	%rd20, [%r2], 512;
	@%p1 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes 	[%r1], [%rd1], 512, [%r2];
WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 	%p3, [%r2], 0;
	@!%p3 bra 	WAIT;
	mbarrier.test_wait.parity.shared::cta.b64 	%p4, [%r2], 1;
	selp.u32 	%r4, 1, 0, %p4;
	shl.b32 	%r5, %r0, 2;
	add.s32 	%r6, %r1, %r5;
	ld.shared.u32 	%r7, [%r6];
	mbarrier.arrive.shared::cta.b64 	%rd21, [%r3];
WAIT2:
	mbarrier.try_wait.shared::cta.b64 	%p5, [%r3], %rd21;
	@!%p5 bra 	WAIT2;
	mul.wide.u32 	%rd6, %r0, 8;
	add.s64 	%rd7, %rd4, %rd6;
	st.global.v2.u32 	[%rd7], {%r7, %r4};
	bar.sync 	0;
	@%p2 cp.async.bulk.global.shared::cta.bulk_group 	[%rd3], [%r1], 512;
	@%p2 cp.async.bulk.commit_group;
	@%p2 cp.async.bulk.wait_group 	0;"#;
    let text = frag_kernel("sm_90", body).replace(
        "\t.shared .align 16 .b8 s[1024];",
        "\t.shared .align 16 .b8 tile[512];\n\t.shared .align 8 .b64 bar;\n\t.shared .align 8 .b64 bar2;",
    );
    ptxas_accepts(&text, "sm_90");
    let spec = spec4([
        ("u32", 128, "\"random\""),
        ("u32", 4, "\"zero\""),
        ("u32", 128, "\"zero\""),
        ("u32", 256, "\"zero\""),
    ])
    .replace("\"block\":[32]", "\"block\":[128]");
    let out = exec(&text, &spec).unwrap_or_else(|e| panic!("{e}"));
    let inp = words32(&out[0].data);
    let d = words32(&out[3].data);
    for t in 0..128 {
        assert_eq!(d[2 * t], inp[t], "thread {t} read the bulk-copied tile");
        assert_eq!(d[2 * t + 1], 0, "thread {t}: phase 1 is not complete");
    }
    assert_eq!(words32(&out[2].data), inp, "bulk copy back to global");
}

/// `cp.async.mbarrier.arrive.noinc`: each of 32 threads queues a 4-byte `cp.async` and arrives on
/// a barrier initialised for 32 arrivals once its copies are done; after the phase completes
/// every thread reads the copied words (without the wait they would still be zero).
#[test]
fn cp_async_mbarrier_arrive_noinc() {
    let body = r#"
	mov.u32 	%r2, bar;
	mov.u32 	%r1, tile;
	shl.b32 	%r5, %r0, 2;
	add.s32 	%r6, %r1, %r5;
	mul.wide.u32 	%rd6, %r0, 4;
	add.s64 	%rd7, %rd1, %rd6;
	setp.eq.u32 	%p2, %r0, 0;
	@%p2 mbarrier.init.shared::cta.b64 	[%r2], 32;
	bar.warp.sync 	-1;
	cp.async.ca.shared.global 	[%r6], [%rd7], 4;
	ld.shared.u32 	%r8, [%r6];
	cp.async.mbarrier.arrive.noinc.shared::cta.b64 	[%r2];
WAIT:
	mbarrier.test_wait.parity.shared::cta.b64 	%p3, [%r2], 0;
	@!%p3 bra 	WAIT;
	ld.shared.u32 	%r7, [%r6];
	mul.wide.u32 	%rd8, %r0, 8;
	add.s64 	%rd9, %rd4, %rd8;
	st.global.v2.u32 	[%rd9], {%r7, %r8};"#;
    let text = frag_kernel("sm_80", body).replace(
        "\t.shared .align 16 .b8 s[1024];",
        "\t.shared .align 16 .b8 tile[128];\n\t.shared .align 8 .b64 bar;",
    );
    ptxas_accepts(&text, "sm_80");
    let z = "\"zero\"";
    let out = exec(
        &text,
        &spec4([
            ("u32", 32, "\"random\""),
            ("u32", 4, z),
            ("u32", 4, z),
            ("u32", 64, z),
        ]),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let inp = words32(&out[0].data);
    let d = words32(&out[3].data);
    for t in 0..32 {
        assert_eq!(d[2 * t], inp[t], "thread {t}: copied word after the phase");
        assert_eq!(
            d[2 * t + 1],
            0,
            "thread {t}: not yet copied before the arrive"
        );
    }
}

/// Threads waiting on an `mbarrier` phase that never completes are reported as a deadlock naming
/// the wait, not answered.
#[test]
fn mbarrier_wait_without_arrival_is_a_deadlock() {
    let body = r#"
	mov.u32 	%r2, s;
	mbarrier.init.shared::cta.b64 	[%r2], 64;
	mbarrier.arrive.shared::cta.b64 	%rd21, [%r2];
WAIT:
	mbarrier.try_wait.shared::cta.b64 	%p5, [%r2], %rd21;
	@!%p5 bra 	WAIT;"#;
    let text = frag_kernel("sm_90", body);
    ptxas_accepts(&text, "sm_90");
    let z = "\"zero\"";
    let spec = spec4([("u32", 4, z), ("u32", 4, z), ("u32", 4, z), ("u32", 4, z)])
        .replace("\"block\":[32]", "\"block\":[64]");
    let e = exec(&text, &spec).expect_err("never completes");
    assert!(matches!(e, EmuError::Deadlock { .. }), "{e:?}");
    assert!(e.to_string().contains("mbarrier.try_wait"), "{e}");
}

/// `wgmma.mma_async` (sm_90a) written by hand, independent of Triton: A (64×16 f16) and Bᵀ
/// (8×16 f16) stored K-major without swizzle (8×16-byte core matrices; LBO 128 bytes between the
/// two K halves, SBO 256 bytes between 8-row groups), D1 = A·B (`scale-d` 0) then D1 += A·B
/// (`scale-d` a true predicate); D2 = A·B with A from registers (the `m16n8k16` A layout, rows
/// 16w… for warp w). Checks the descriptor fields, the per-warp rows and the D layout.
#[test]
fn wgmma_interleaved_descriptors_and_register_a() {
    let body = r#"
	mov.u32 	%r10, s;
	add.s32 	%r20, %r10, 2048;
	mov.u32 	%r1, 0;
FILL:
	shl.b32 	%r2, %r0, 3;
	add.s32 	%r2, %r2, %r1;
	shr.u32 	%r3, %r2, 4;
	and.b32 	%r4, %r2, 15;
	mul.wide.u32 	%rd5, %r2, 2;
	add.s64 	%rd6, %rd1, %rd5;
	ld.global.u16 	%rs1, [%rd6];
	and.b32 	%r5, %r3, 7;
	shl.b32 	%r5, %r5, 4;
	shr.u32 	%r6, %r3, 3;
	shl.b32 	%r6, %r6, 8;
	and.b32 	%r7, %r4, 7;
	shl.b32 	%r7, %r7, 1;
	shr.u32 	%r8, %r4, 3;
	shl.b32 	%r8, %r8, 7;
	add.s32 	%r9, %r5, %r6;
	add.s32 	%r9, %r9, %r7;
	add.s32 	%r9, %r9, %r8;
	add.s32 	%r11, %r9, %r10;
	st.shared.u16 	[%r11], %rs1;
	setp.lt.u32 	%p3, %r2, 128;
	@!%p3 bra 	NEXT;
	add.s64 	%rd7, %rd2, %rd5;
	ld.global.u16 	%rs2, [%rd7];
	add.s32 	%r12, %r9, %r20;
	st.shared.u16 	[%r12], %rs2;
NEXT:
	add.s32 	%r1, %r1, 1;
	setp.lt.u32 	%p1, %r1, 8;
	@%p1 bra 	FILL;
	bar.sync 	0;
	shr.u32 	%r13, %r10, 4;
	cvt.u64.u32 	%rd10, %r13;
	or.b64 	%rd10, %rd10, 68720001024;
	shr.u32 	%r14, %r20, 4;
	cvt.u64.u32 	%rd11, %r14;
	or.b64 	%rd11, %rd11, 68720001024;
	// A fragment from global: warp w rows 16w + g (+8), columns 2t (+8).
	shr.u32 	%r15, %r0, 5;
	and.b32 	%r16, %r0, 31;
	shr.u32 	%r17, %r16, 2;
	and.b32 	%r18, %r16, 3;
	shl.b32 	%r19, %r15, 4;
	add.s32 	%r19, %r19, %r17;
	shl.b32 	%r21, %r19, 4;
	shl.b32 	%r22, %r18, 1;
	add.s32 	%r21, %r21, %r22;
	mul.wide.u32 	%rd12, %r21, 2;
	add.s64 	%rd13, %rd1, %rd12;
	ld.global.b32 	%r40, [%rd13];
	ld.global.b32 	%r41, [%rd13+256];
	ld.global.b32 	%r42, [%rd13+16];
	ld.global.b32 	%r43, [%rd13+272];
	setp.ne.u32 	%p2, %r0, 1000;
	wgmma.fence.sync.aligned;
	wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 	{%f1, %f2, %f3, %f4}, %rd10, %rd11, 0, 1, 1, 0, 0;
	wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 	{%f1, %f2, %f3, %f4}, %rd10, %rd11, %p2, 1, 1, 0, 0;
	wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 	{%f5, %f6, %f7, %f8}, {%r40, %r41, %r42, %r43}, %rd11, 0, 1, 1, 0;
	wgmma.commit_group.sync.aligned;
	wgmma.wait_group.sync.aligned 	0;
	// D: rows 16w + g (+8), columns 2t, 2t+1.
	shl.b32 	%r23, %r19, 3;
	add.s32 	%r23, %r23, %r22;
	mul.wide.u32 	%rd14, %r23, 4;
	add.s64 	%rd15, %rd4, %rd14;
	st.global.v2.f32 	[%rd15], {%f1, %f2};
	st.global.v2.f32 	[%rd15+256], {%f3, %f4};
	add.s64 	%rd16, %rd3, %rd14;
	st.global.v2.f32 	[%rd16], {%f5, %f6};
	st.global.v2.f32 	[%rd16+256], {%f7, %f8};"#;
    // 68720001024 = (16 << 32) | (8 << 16): SBO 256 bytes, LBO 128 bytes, no swizzle.
    let text = frag_kernel("sm_90a", body).replace(
        "\t.shared .align 16 .b8 s[1024];",
        "\t.reg .b16 \t%rs<4>;\n\t.shared .align 1024 .b8 s[4096];",
    );
    ptxas_accepts(&text, "sm_90a");
    let r = "\"random\"";
    let z = "\"zero\"";
    let spec = spec4([
        ("f16", 1024, r),
        ("f16", 128, r),
        ("f32", 512, z),
        ("f32", 512, z),
    ])
    .replace("\"block\":[32]", "\"block\":[128]");
    let out = exec(&text, &spec).unwrap_or_else(|e| panic!("{e}"));
    let a: Vec<f32> = halves(&out[0].data).into_iter().map(f16_to_f32).collect();
    let bt: Vec<f32> = halves(&out[1].data).into_iter().map(f16_to_f32).collect();
    let (d2, d1) = (f32s(&out[2].data), f32s(&out[3].data));
    for i in 0..64 {
        for j in 0..8 {
            let products: Vec<f64> = (0..16)
                .map(|x| f64::from(a[i * 16 + x]) * f64::from(bt[j * 16 + x]))
                .collect();
            let once = block_fma_reference(0.0, &products);
            let twice = block_fma_reference(once, &products);
            assert_eq!(d1[i * 8 + j].to_bits(), twice.to_bits(), "D1[{i}][{j}]");
            assert_eq!(d2[i * 8 + j].to_bits(), once.to_bits(), "D2[{i}][{j}]");
        }
    }
}
