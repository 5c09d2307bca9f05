//! Tests of the spilling pass: every rewritten kernel is run against the original on the emulator
//! (several seeds and launch shapes) and, where ptxas is present, assembled by it.

use super::*;
use crate::emu::equiv;
use crate::emu::launch::{spec_for, Hints};
use crate::ptx::parse_module;

/// A kernel with many values live across a loop: 24 accumulators, a loop-invariant scale, a
/// constant and lane-dependent offsets.
const KERNEL: &str = r#"
.version 8.0
.target sm_80
.address_size 64
.visible .entry acc(.param .u64 in, .param .u64 out, .param .u32 n)
.maxntid 64, 1, 1
{
	.reg .pred %p<3>;
	.reg .b32 %r<40>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [in];
	ld.param.u64 %rd2, [out];
	ld.param.u32 %r1, [n];
	cvta.to.global.u64 %rd3, %rd1;
	cvta.to.global.u64 %rd4, %rd2;
	mov.u32 %r2, %tid.x;
	mul.wide.u32 %rd5, %r2, 4;
	add.s64 %rd6, %rd3, %rd5;
	mov.u32 %r3, 7;
	add.s32 %r4, %r2, 3;
	ld.global.u32 %r10, [%rd6];
	add.s32 %r11, %r10, 1;
	add.s32 %r12, %r10, 2;
	add.s32 %r13, %r10, 3;
	add.s32 %r14, %r10, 4;
	add.s32 %r15, %r10, 5;
	add.s32 %r16, %r10, 6;
	add.s32 %r17, %r10, 7;
	add.s32 %r18, %r10, 8;
	mul.lo.s32 %r19, %r10, 3;
	mul.lo.s32 %r20, %r10, 5;
	mul.lo.s32 %r21, %r10, 7;
	mul.lo.s32 %r22, %r10, 9;
	mov.u32 %r5, 0;
$L_loop:
	add.s32 %r11, %r11, %r3;
	add.s32 %r12, %r12, %r11;
	add.s32 %r13, %r13, %r12;
	add.s32 %r14, %r14, %r13;
	add.s32 %r15, %r15, %r14;
	add.s32 %r16, %r16, %r15;
	add.s32 %r17, %r17, %r16;
	add.s32 %r18, %r18, %r17;
	add.s32 %r19, %r19, %r4;
	add.s32 %r20, %r20, %r19;
	add.s32 %r21, %r21, %r20;
	add.s32 %r22, %r22, %r21;
	add.s32 %r5, %r5, 1;
	setp.lt.u32 %p1, %r5, %r1;
	@%p1 bra $L_loop;
	add.s32 %r30, %r11, %r12;
	add.s32 %r30, %r30, %r13;
	add.s32 %r30, %r30, %r14;
	add.s32 %r30, %r30, %r15;
	add.s32 %r30, %r30, %r16;
	add.s32 %r30, %r30, %r17;
	add.s32 %r30, %r30, %r18;
	add.s32 %r30, %r30, %r19;
	add.s32 %r30, %r30, %r20;
	add.s32 %r30, %r30, %r21;
	add.s32 %r30, %r30, %r22;
	add.s32 %r30, %r30, %r3;
	add.s32 %r30, %r30, %r4;
	add.s64 %rd7, %rd4, %rd5;
	st.global.u32 [%rd7], %r30;
	ret;
}
"#;

fn opts(n: u32) -> SpillOptions {
    SpillOptions {
        target: Target::MaxRegs(n),
        kernel: None,
        arch: "sm_80".into(),
        block_size: None,
        smem_budget: None,
        use_ptxas: false,
        dynamic_smem: 0,
    }
}

#[test]
fn demotes_until_the_pressure_fits_and_computes_the_same_bytes() {
    let original = parse_module(KERNEL, "acc.ptx").unwrap();
    let before = pressure_of(original.function("acc").unwrap().body.as_ref().unwrap());
    let mut m = original.clone();
    let report = spill_module(&mut m, &opts(16)).unwrap();
    let k = &report.kernels[0];
    assert!(
        before > 16,
        "the test kernel must need more than 16 units (has {before})"
    );
    assert!(k.pressure_after <= 16 - RESERVE, "{k:?}");
    assert!(!k.demoted.is_empty());
    assert!(k.smem_bytes > 0);
    let text = print_module(&m);
    assert!(text.contains(".maxnreg 16"), "{text}");
    let reparsed = parse_module(&text, "spilled.ptx").unwrap_or_else(|e| panic!("{e}\n{text}"));
    for (block, n) in [
        ([64u32, 1, 1], 5u64),
        ([48, 1, 1], 3),
        ([33, 1, 1], 2),
        ([16, 4, 1], 4),
    ] {
        let threads = u64::from(block[0] * block[1]);
        let spec = spec_for(
            original.function("acc").unwrap(),
            &Hints::new()
                .block(&block)
                .len(threads)
                .scalar(2, serde_json::json!(n)),
        )
        .unwrap();
        let r = equiv::check(&original, &reparsed, &spec, 3).unwrap();
        assert!(r.is_equal(), "block {block:?}: {:?}\n{text}", r.verdict);
    }
    if crate::tools::find(crate::tools::Tool::Ptxas).is_ok() {
        crate::tools::ptxas_accepts_source(&text, "sm_80")
            .unwrap_or_else(|e| panic!("{e}\n{text}"));
    } else {
        eprintln!("SKIPPED (ptxas check): ptxas not found");
    }
}
