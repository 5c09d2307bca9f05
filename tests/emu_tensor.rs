//! Tensor-core instructions end to end: hand-written PTX kernels that stage A and B tiles from
//! global to shared memory (plain loads and stores, or `cp.async`), load fragments with
//! `ldmatrix` (plain and `.trans`), multiply with `mma.sync`, and store D — compared with a CPU
//! matrix product. The `ldmatrix` layout (emu/tensor.rs `matrix_holder`) and the `mma` layout
//! (`MmaSpec::pos`) are encoded separately, so agreement checks both. Also `cp.async` group
//! semantics, zero fill, `stmatrix`, `createpolicy`, and the errors for misuse. Every kernel is
//! also assembled by ptxas when it is installed.

use warpsmith::emu::launch::{OutBuffer, RunOptions};
use warpsmith::emu::{run, EmuError, LaunchSpec};
use warpsmith::ptx::parse_module;
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

/// The CPU reference: D[i][j] = C[i][j], then + A[i][k]·B[k][j] for k in order, each an f32 FMA
/// (the emulator's documented accumulation; products of 16-bit floats are exact in f32).
fn reference(a: &[f32], b_at: impl Fn(usize, usize) -> f32, c: &[f32], k: usize) -> Vec<f32> {
    let mut d = vec![0f32; 128];
    for i in 0..16 {
        for j in 0..8 {
            let mut acc = c[i * 8 + j];
            for x in 0..k {
                acc = a[i * k + x].mul_add(b_at(x, j), acc);
            }
            d[i * 8 + j] = acc;
        }
    }
    d
}

fn check_mma(ab: &str, k: u32, b_trans: bool, stage: Stage) {
    let text = mma_kernel(ab, k, b_trans, stage);
    ptxas_accepts(&text, "sm_80");
    let out = exec(&text, &mma_spec(ab, k)).unwrap_or_else(|e| panic!("{e}"));
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
