//! Instruction semantics of the emulator, one small hand-written PTX kernel per behaviour: the
//! values come from the PTX ISA's definitions (and IEEE 754 for the rounding modes), not from the
//! emulator's own code.

use warpsmith::emu::launch::{OutBuffer, RunOptions};
use warpsmith::emu::{run, EmuError, LaunchSpec};
use warpsmith::ptx::parse_module;

/// A kernel `k(out, inp)` with plenty of registers; `%r0` = `%tid.x`, `%rd3` = `&out[tid]` (4-byte
/// elements), `%rd5` = `&out[tid]` (8-byte elements), `%rd1` = `inp`.
fn kernel(body: &str) -> String {
    format!(
        r#".version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 inp)
{{
	.reg .pred 	%p<16>;
	.reg .b16 	%h<16>;
	.reg .b32 	%r<64>;
	.reg .b64 	%rd<32>;
	ld.param.u64 	%rd0, [out];
	cvta.to.global.u64 	%rd0, %rd0;
	ld.param.u64 	%rd1, [inp];
	cvta.to.global.u64 	%rd1, %rd1;
	mov.u32 	%r0, %tid.x;
	mul.wide.u32 	%rd2, %r0, 4;
	add.s64 	%rd3, %rd0, %rd2;
	mul.wide.u32 	%rd4, %r0, 8;
	add.s64 	%rd5, %rd0, %rd4;
{body}
	ret;
}}
"#
    )
}

fn launch(block: u32, out_words: u64, inp: &str) -> LaunchSpec {
    LaunchSpec::from_json(&format!(
        r#"{{"kernel":"k","grid":[1],"block":[{block}],"args":[
            {{"buffer":{{"type":"u32","len":{out_words}}}}},
            {{"buffer":{{"type":"u32","len":64,"init":{inp}}}}}]}}"#
    ))
    .expect("spec")
}

fn exec(text: &str, spec: &LaunchSpec) -> Result<Vec<OutBuffer>, EmuError> {
    let m = parse_module(text, "t.ptx").expect("test PTX parses");
    run(
        &m,
        spec,
        &RunOptions {
            file: "t.ptx".into(),
            ..RunOptions::default()
        },
    )
    .map(|o| o.buffers)
}

/// Runs `body` with `block` threads and returns `out` as u32 words.
fn words(body: &str, block: u32, out_words: u64) -> Vec<u32> {
    let outs = exec(&kernel(body), &launch(block, out_words, "\"iota\""))
        .unwrap_or_else(|e| panic!("{e}"));
    outs[0]
        .data
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Runs a one-thread body that leaves its result in `%r10` (stored to out[0]).
fn scalar32(body: &str) -> u32 {
    words(&format!("{body}\n\tst.global.u32 \t[%rd3], %r10;"), 1, 1)[0]
}

/// Runs a one-thread body that leaves its result in `%rd10`.
fn scalar64(body: &str) -> u64 {
    let w = words(&format!("{body}\n\tst.global.u64 \t[%rd5], %rd10;"), 1, 2);
    u64::from(w[0]) | (u64::from(w[1]) << 32)
}

#[test]
fn integer_arithmetic() {
    assert_eq!(
        scalar32("mov.u32 %r1, 7;\n mov.u32 %r2, 0;\n div.u32 %r10, %r1, %r2;"),
        0xffff_ffff
    );
    assert_eq!(
        scalar32("mov.u32 %r1, 7;\n mov.u32 %r2, 0;\n rem.u32 %r10, %r1, %r2;"),
        7
    );
    assert_eq!(
        scalar32("mov.u32 %r1, -7;\n mov.u32 %r2, 2;\n div.s32 %r10, %r1, %r2;"),
        (-3i32) as u32
    );
    assert_eq!(
        scalar32("mov.u32 %r1, -7;\n mov.u32 %r2, 2;\n rem.s32 %r10, %r1, %r2;"),
        (-1i32) as u32
    );
    assert_eq!(
        scalar32("mov.u32 %r1, 0x7fffffff;\n add.sat.s32 %r10, %r1, 1;"),
        0x7fff_ffff
    );
    assert_eq!(
        scalar32("mov.u32 %r1, 0x10000;\n mul.hi.u32 %r10, %r1, %r1;"),
        1
    );
    assert_eq!(
        scalar32("mov.u32 %r1, -2;\n mul.hi.s32 %r10, %r1, 3;"),
        0xffff_ffff
    );
    assert_eq!(
        scalar64("mov.u32 %r1, -2;\n mul.wide.s32 %rd10, %r1, 3;"),
        (-6i64) as u64
    );
    assert_eq!(
        scalar64("mov.u32 %r1, -2;\n mul.wide.u32 %rd10, %r1, 3;"),
        0x2_ffff_fffa
    );
    assert_eq!(
        scalar32("mov.u32 %r1, 0x800001;\n mul24.lo.s32 %r10, %r1, 2;"),
        0xff00_0002
    );
    assert_eq!(
        scalar32("mov.u32 %r1, 0x800000;\n mul24.hi.u32 %r10, %r1, %r1;"),
        0x4000_0000
    );
    assert_eq!(
        scalar32("mov.u32 %r1, 3;\n mov.u32 %r2, 10;\n sad.u32 %r10, %r1, %r2, 100;"),
        107
    );
    assert_eq!(
        scalar32("mov.u32 %r1, 3;\n mad.lo.s32 %r10, %r1, 5, 7;"),
        22
    );
    assert_eq!(
        scalar64("mov.u32 %r1, 0xffffffff;\n mad.wide.u32 %rd10, %r1, 2, 1;"),
        0x1_ffff_ffff
    );
    assert_eq!(scalar32("mov.u32 %r1, -5;\n abs.s32 %r10, %r1;"), 5);
    assert_eq!(
        scalar32("mov.u32 %r1, 0x80000000;\n abs.s32 %r10, %r1;"),
        0x8000_0000
    );
    assert_eq!(scalar32("mov.u32 %r1, -5;\n min.u32 %r10, %r1, 3;"), 3);
    assert_eq!(
        scalar32("mov.u32 %r1, -5;\n min.s32 %r10, %r1, 3;"),
        (-5i32) as u32
    );
}

#[test]
fn extended_precision_carry_chains() {
    // 0xffffffff_ffffffff + 1 with add.cc / addc.cc / addc: carries through both words.
    let body = "mov.u32 %r1, -1;\n add.cc.u32 %r2, %r1, 1;\n addc.cc.u32 %r3, %r1, 0;\n addc.u32 %r10, 0, 0;\n add.u32 %r10, %r10, %r2;\n add.u32 %r10, %r10, %r3;";
    assert_eq!(scalar32(body), 1);
    // 0x1_00000000 - 1 with sub.cc / subc: borrow.
    let body = "mov.u32 %r1, 0;\n mov.u32 %r4, 1;\n sub.cc.u32 %r2, %r1, 1;\n subc.u32 %r3, %r4, 0;\n or.b32 %r10, %r3, 0;\n xor.b32 %r10, %r2, %r3;";
    assert_eq!(scalar32(body), 0xffff_ffff);
    // mad.lo.cc + madc.hi: a 64-bit product of 32-bit halves.
    let body = "mov.u32 %r1, 0xffffffff;\n mad.lo.cc.u32 %r2, %r1, %r1, 0;\n madc.hi.u32 %r10, %r1, %r1, 0;";
    assert_eq!(scalar32(body), 0xffff_fffe);
}

#[test]
fn bit_manipulation() {
    assert_eq!(scalar32("mov.u32 %r1, 0xf0f0;\n popc.b32 %r10, %r1;"), 8);
    assert_eq!(
        scalar32("mov.u32 %r1, 0x00010000;\n clz.b32 %r10, %r1;"),
        15
    );
    assert_eq!(scalar32("mov.u64 %rd1, 1;\n clz.b64 %r10, %rd1;"), 63);
    assert_eq!(
        scalar32("mov.u32 %r1, 1;\n brev.b32 %r10, %r1;"),
        0x8000_0000
    );
    assert_eq!(
        scalar32("mov.u32 %r1, 0x00f00000;\n bfind.u32 %r10, %r1;"),
        23
    );
    assert_eq!(
        scalar32("mov.u32 %r1, 0x00f00000;\n bfind.shiftamt.u32 %r10, %r1;"),
        8
    );
    assert_eq!(
        scalar32("mov.u32 %r1, 0;\n bfind.u32 %r10, %r1;"),
        0xffff_ffff
    );
    assert_eq!(
        scalar32("mov.u32 %r1, -1;\n bfind.s32 %r10, %r1;"),
        0xffff_ffff
    );
    assert_eq!(
        scalar32("mov.u32 %r1, 0xabcd1234;\n bfe.u32 %r10, %r1, 8, 12;"),
        0xd12
    );
    assert_eq!(
        scalar32("mov.u32 %r1, 0x00008000;\n bfe.s32 %r10, %r1, 8, 8;"),
        0xffff_ff80
    );
    assert_eq!(
        scalar32("mov.u32 %r1, 0xabcd1234;\n bfe.u32 %r10, %r1, 28, 8;"),
        0xa
    );
    assert_eq!(
        scalar32("mov.u32 %r1, 0xff;\n mov.u32 %r2, 0x12345678;\n bfi.b32 %r10, %r1, %r2, 8, 4;"),
        0x1234_5f78
    );
    assert_eq!(scalar32("mov.u32 %r1, 0xf0;\n mov.u32 %r2, 0xcc;\n mov.u32 %r3, 0xaa;\n lop3.b32 %r10, %r1, %r2, %r3, 0xe8;"), 0xe8);
    assert_eq!(
        scalar32("mov.u32 %r1, 0x80000000;\n mov.u32 %r2, 1;\n shf.l.wrap.b32 %r10, %r1, %r2, 33;"),
        3
    );
    assert_eq!(
        scalar32(
            "mov.u32 %r1, 0x80000000;\n mov.u32 %r2, 1;\n shf.r.clamp.b32 %r10, %r1, %r2, 40;"
        ),
        1
    );
    assert_eq!(
        scalar32("mov.u32 %r1, 0x80000000;\n shr.s32 %r10, %r1, 33;"),
        0xffff_ffff
    );
    assert_eq!(scalar32("mov.u32 %r1, 1;\n shl.b32 %r10, %r1, 32;"), 0);
    assert_eq!(
        scalar32(
            "mov.u32 %r1, 0x04030201;\n mov.u32 %r2, 0x01010101;\n dp4a.u32.u32 %r10, %r1, %r2, 5;"
        ),
        15
    );
    assert_eq!(scalar32("mov.u32 %r1, 0xffff0002;\n mov.u32 %r2, 0x00000203;\n dp2a.lo.s32.u32 %r10, %r1, %r2, 0;"), 4);
    assert_eq!(scalar32("mov.u32 %r1, 0x33221100;\n mov.u32 %r2, 0x77665544;\n prmt.b32 %r10, %r1, %r2, 0x7351;"), 0x7733_5511);
    assert_eq!(
        scalar32("mov.u32 %r1, 0x33221180;\n prmt.b32 %r10, %r1, 0, 0x8880;"),
        0xffff_ff80
    );
    assert_eq!(
        scalar32(
            "mov.u32 %r1, 0x33221100;\n mov.u32 %r2, 0x77665544;\n prmt.b32.f4e %r10, %r1, %r2, 2;"
        ),
        0x5544_3322
    );
    assert_eq!(
        scalar32(
            "mov.u32 %r1, 0x33221100;\n mov.u32 %r2, 0x77665544;\n prmt.b32.b4e %r10, %r1, %r2, 1;"
        ),
        0x6677_0011
    );
    assert_eq!(
        scalar32("mov.u32 %r1, 0x33221100;\n prmt.b32.ecl %r10, %r1, 0, 2;"),
        0x3322_2222
    );
    assert_eq!(
        scalar32("mov.u32 %r1, 0x33221100;\n prmt.b32.rc16 %r10, %r1, 0, 1;"),
        0x3322_3322
    );
}

#[test]
fn comparison_and_selection() {
    assert_eq!(
        scalar32("mov.u32 %r1, -1;\n setp.lt.u32 %p1, %r1, 1;\n selp.u32 %r10, 1, 2, %p1;"),
        2
    );
    assert_eq!(
        scalar32("mov.u32 %r1, -1;\n setp.lt.s32 %p1, %r1, 1;\n selp.u32 %r10, 1, 2, %p1;"),
        1
    );
    // setp with a boolean combination and both destinations.
    assert_eq!(scalar32("mov.u32 %r1, 5;\n setp.eq.u32 %p3, %r1, %r1;\n setp.eq.and.s32 %p1|%p2, %r1, 5, %p3;\n selp.u32 %r2, 1, 0, %p1;\n selp.u32 %r3, 2, 0, %p2;\n or.b32 %r10, %r2, %r3;"), 1);
    assert_eq!(scalar32("mov.u32 %r1, 5;\n setp.eq.u32 %p3, %r1, %r1;\n setp.ne.or.s32 %p1|%p2, %r1, 5, %p3;\n selp.u32 %r2, 1, 0, %p1;\n selp.u32 %r3, 2, 0, %p2;\n or.b32 %r10, %r2, %r3;"), 3);
    // NaN comparisons: ordered false, unordered true.
    assert_eq!(scalar32("mov.b32 %r1, 0f7FC00000;\n setp.eq.f32 %p1, %r1, %r1;\n setp.equ.f32 %p2, %r1, %r1;\n selp.u32 %r2, 1, 0, %p1;\n selp.u32 %r3, 2, 0, %p2;\n or.b32 %r10, %r2, %r3;"), 2);
    assert_eq!(
        scalar32("mov.u32 %r1, 3;\n set.gt.u32.s32 %r10, %r1, 2;"),
        0xffff_ffff
    );
    assert_eq!(
        scalar32("mov.u32 %r1, 3;\n set.lt.f32.s32 %r10, %r1, 2;"),
        0
    );
    assert_eq!(
        scalar32("mov.u32 %r1, 3;\n set.gt.f32.s32 %r10, %r1, 2;"),
        0x3f80_0000
    );
    assert_eq!(
        scalar32("mov.u32 %r1, -1;\n slct.u32.s32 %r10, 10, 20, %r1;"),
        20
    );
    assert_eq!(
        scalar32("mov.b32 %r1, 0f00000000;\n slct.u32.f32 %r10, 10, 20, %r1;"),
        10
    );
}

#[test]
fn float_rounding_modes() {
    // 1 + 2^-24 is a tie in f32.
    assert_eq!(
        scalar32("add.rn.f32 %r10, 0f3F800000, 0f33800000;"),
        0x3f80_0000
    );
    assert_eq!(
        scalar32("add.rz.f32 %r10, 0f3F800000, 0f33800000;"),
        0x3f80_0000
    );
    assert_eq!(
        scalar32("add.rp.f32 %r10, 0f3F800000, 0f33800000;"),
        0x3f80_0001
    );
    assert_eq!(
        scalar32("add.rm.f32 %r10, 0fBF800000, 0fB3800000;"),
        0xbf80_0001
    );
    assert_eq!(
        scalar32("div.rn.f32 %r10, 0f3F800000, 0f40400000;"),
        0x3eaa_aaab
    );
    assert_eq!(
        scalar32("div.rz.f32 %r10, 0f3F800000, 0f40400000;"),
        0x3eaa_aaaa
    );
    assert_eq!(
        scalar32("div.rm.f32 %r10, 0f3F800000, 0f40400000;"),
        0x3eaa_aaaa
    );
    assert_eq!(
        scalar32("div.rp.f32 %r10, 0f3F800000, 0f40400000;"),
        0x3eaa_aaab
    );
    assert_eq!(scalar32("sqrt.rz.f32 %r10, 0f40000000;"), 0x3fb5_04f3);
    assert_eq!(scalar32("sqrt.rp.f32 %r10, 0f40000000;"), 0x3fb5_04f4);
    assert_eq!(scalar32("rcp.rn.f32 %r10, 0f40400000;"), 0x3eaa_aaab);
    assert_eq!(
        scalar32("mul.rz.f32 %r10, 0f7F7FFFFF, 0f40000000;"),
        0x7f7f_ffff
    );
    assert_eq!(
        scalar32("mul.rn.f32 %r10, 0f7F7FFFFF, 0f40000000;"),
        0x7f80_0000
    );
    // fma rounds once: (1+2^-12)^2 - 1 - 2^-11 = 2^-24 exactly.
    assert_eq!(
        scalar32("fma.rn.f32 %r10, 0f3F800800, 0f3F800800, 0fBF801000;"),
        0x3380_0000
    );
    // .ftz flushes a subnormal input; without it the subnormal survives.
    assert_eq!(scalar32("mul.ftz.f32 %r10, 0f00000001, 0f3F800000;"), 0);
    assert_eq!(scalar32("mul.f32 %r10, 0f00000001, 0f3F800000;"), 1);
    // .sat clamps to [0, 1] and NaN to 0.
    assert_eq!(
        scalar32("add.sat.f32 %r10, 0f3F400000, 0f3F400000;"),
        0x3f80_0000
    );
    assert_eq!(
        scalar32("mov.b32 %r1, 0f7FC00000;\n add.sat.f32 %r10, %r1, %r1;"),
        0
    );
    // NaN results are canonical.
    assert_eq!(
        scalar32("mov.b32 %r1, 0f7F800001;\n add.f32 %r10, %r1, 0f3F800000;"),
        0x7fff_ffff
    );
    // f64 directed rounding.
    assert_eq!(
        scalar64("div.rz.f64 %rd10, 0d3FF0000000000000, 0d4008000000000000;"),
        0x3fd5_5555_5555_5555
    );
    assert_eq!(
        scalar64("div.rp.f64 %rd10, 0d3FF0000000000000, 0d4008000000000000;"),
        0x3fd5_5555_5555_5556
    );
}

#[test]
fn float_special_ops() {
    assert_eq!(
        scalar32("mov.b32 %r1, 0f7FC00000;\n min.f32 %r10, %r1, 0f40000000;"),
        0x4000_0000
    );
    assert_eq!(
        scalar32("mov.b32 %r1, 0f7FC00000;\n max.NaN.f32 %r10, %r1, 0f40000000;"),
        0x7fff_ffff
    );
    assert_eq!(
        scalar32("min.f32 %r10, 0f00000000, 0f80000000;"),
        0x8000_0000
    );
    assert_eq!(
        scalar32("max.f32 %r10, 0f80000000, 0f00000000;"),
        0x0000_0000
    );
    assert_eq!(scalar32("abs.f32 %r10, 0fBF800000;"), 0x3f80_0000);
    assert_eq!(scalar32("neg.f32 %r10, 0f3F800000;"), 0xbf80_0000);
    assert_eq!(
        scalar32("copysign.f32 %r10, 0fBF800000, 0f40000000;"),
        0xc000_0000
    );
    assert_eq!(
        scalar32("testp.subnormal.f32 %p1, 0f00000001;\n selp.u32 %r10, 1, 0, %p1;"),
        1
    );
    assert_eq!(
        scalar32("testp.finite.f32 %p1, 0f7F800000;\n selp.u32 %r10, 1, 0, %p1;"),
        0
    );
    assert_eq!(
        scalar32("testp.notanumber.f32 %p1, 0f7FC00000;\n selp.u32 %r10, 1, 0, %p1;"),
        1
    );
    // Approximate functions: exact cases agree with the math.
    assert_eq!(scalar32("ex2.approx.f32 %r10, 0f40400000;"), 0x4100_0000);
    assert_eq!(scalar32("lg2.approx.f32 %r10, 0f41000000;"), 0x4040_0000);
    assert_eq!(scalar32("rsqrt.approx.f32 %r10, 0f40800000;"), 0x3f00_0000);
    assert_eq!(
        scalar32("rcp.approx.ftz.f32 %r10, 0f40000000;"),
        0x3f00_0000
    );
    assert_eq!(scalar32("sin.approx.f32 %r10, 0f00000000;"), 0);
    assert_eq!(
        scalar32("div.approx.f32 %r10, 0f40C00000, 0f40000000;"),
        0x4040_0000
    );
    assert_eq!(
        scalar32("div.full.f32 %r10, 0f40C00000, 0f40000000;"),
        0x4040_0000
    );
    // div.full is ptxas's `a * rcp(b)`, not IEEE division: 1.37 / 448 is one ulp above the
    // correctly rounded quotient, as on an H200 (Triton's fp8 quantisation, `amax / 448`).
    assert_eq!(
        scalar32("div.full.f32 %r10, 0f3FAF5C29, 0f43E00000;"),
        0x3b48_6954
    );
    assert_eq!(
        scalar32("div.rn.f32 %r10, 0f3FAF5C29, 0f43E00000;"),
        0x3b48_6953
    );
    // Range scaling: a divisor above 2^126, and a subnormal one (flushed with .ftz).
    assert_eq!(
        scalar32("div.full.f32 %r10, 0f7F400000, 0f7F400000;"),
        0x3f80_0000
    );
    assert_eq!(
        scalar32("div.full.f32 %r10, 0f00000200, 0f00000001;"),
        0x4400_0000
    );
    assert_eq!(
        scalar32("div.full.ftz.f32 %r10, 0f00000200, 0f00000001;"),
        0x7fff_ffff
    );
}

#[test]
fn conversions() {
    // Float → int with integer rounding, saturation, NaN → 0.
    assert_eq!(
        scalar32("cvt.rzi.s32.f32 %r10, 0fC0200000;"),
        (-2i32) as u32
    );
    assert_eq!(
        scalar32("cvt.rmi.s32.f32 %r10, 0fC0200000;"),
        (-3i32) as u32
    );
    assert_eq!(
        scalar32("cvt.rni.s32.f32 %r10, 0fC0200000;"),
        (-2i32) as u32
    );
    assert_eq!(
        scalar32("cvt.rpi.s32.f32 %r10, 0fC0200000;"),
        (-2i32) as u32
    );
    assert_eq!(scalar32("cvt.rzi.s32.f32 %r10, 0f7F000000;"), 0x7fff_ffff);
    assert_eq!(scalar32("cvt.rzi.u32.f32 %r10, 0fBF800000;"), 0);
    assert_eq!(scalar32("cvt.rzi.s32.f32 %r10, 0f7FC00000;"), 0);
    // Int → float with rounding.
    assert_eq!(
        scalar32("mov.u32 %r1, 16777217;\n cvt.rn.f32.u32 %r10, %r1;"),
        0x4b80_0000
    );
    assert_eq!(
        scalar32("mov.u32 %r1, 16777217;\n cvt.rp.f32.u32 %r10, %r1;"),
        0x4b80_0001
    );
    // Int → int: truncation, sign extension, saturation.
    assert_eq!(
        scalar32("mov.u32 %r1, 300;\n cvt.u8.u32 %h1, %r1;\n cvt.u32.u16 %r10, %h1;"),
        44
    );
    assert_eq!(
        scalar32("mov.u32 %r1, -5;\n cvt.sat.u8.s32 %h1, %r1;\n cvt.u32.u16 %r10, %h1;"),
        0
    );
    assert_eq!(
        scalar32("mov.u16 %h1, 0x8000;\n cvt.s32.s16 %r10, %h1;"),
        0xffff_8000
    );
    // Halves.
    assert_eq!(
        scalar32("cvt.rn.f16.f32 %h1, 0f477FF000;\n cvt.u32.u16 %r10, %h1;"),
        0x7c00
    );
    assert_eq!(
        scalar32("cvt.rz.f16.f32 %h1, 0f477FF000;\n cvt.u32.u16 %r10, %h1;"),
        0x7bff
    );
    assert_eq!(
        scalar32("mov.b16 %h1, 0x3555;\n cvt.f32.f16 %r10, %h1;"),
        0x3eaa_a000
    );
    assert_eq!(
        scalar32("cvt.rn.f16x2.f32 %r10, 0f3F800000, 0f40000000;"),
        0x3c00_4000
    );
    assert_eq!(
        scalar32("cvt.rn.bf16.f32 %h1, 0f3F808000;\n cvt.u32.u16 %r10, %h1;"),
        0x3f80
    );
    // f64 ↔ f32.
    assert_eq!(
        scalar32("cvt.rn.f32.f64 %r10, 0d3FD5555555555555;"),
        0x3eaa_aaab
    );
    assert_eq!(
        scalar32("cvt.rz.f32.f64 %r10, 0d3FD5555555555555;"),
        0x3eaa_aaaa
    );
    assert_eq!(
        scalar64("cvt.f64.f32 %rd10, 0f3EAAAAAB;"),
        0x3fd5_5555_6000_0000
    );
    // Float → float integral rounding.
    assert_eq!(scalar32("cvt.rmi.f32.f32 %r10, 0fBFC00000;"), 0xc000_0000);
}

#[test]
fn half_arithmetic() {
    assert_eq!(scalar32("mov.b16 %h1, 0x3c00;\n mov.b16 %h2, 0x4000;\n add.f16 %h3, %h1, %h2;\n cvt.u32.u16 %r10, %h3;"), 0x4200);
    assert_eq!(
        scalar32("mov.b32 %r1, 0x3c004000;\n mov.b32 %r2, 0x40004000;\n mul.f16x2 %r10, %r1, %r2;"),
        0x4000_4400
    );
    assert_eq!(
        scalar32("mov.b32 %r1, 0x3c003c00;\n fma.rn.f16x2 %r10, %r1, %r1, %r1;"),
        0x4000_4000
    );
    // bf16 fma
    assert_eq!(
        scalar32("mov.b16 %h1, 0x3f80;\n fma.rn.bf16 %h3, %h1, %h1, %h1;\n cvt.u32.u16 %r10, %h3;"),
        0x4000
    );
}

#[test]
fn moves_pack_unpack_and_vectors() {
    assert_eq!(
        scalar64(
            "mov.u32 %r1, 0x11111111;\n mov.u32 %r2, 0x22222222;\n mov.b64 %rd10, {%r1, %r2};"
        ),
        0x2222_2222_1111_1111
    );
    assert_eq!(scalar32("mov.u64 %rd1, 0x1234567887654321;\n mov.b64 {%r1, %r2}, %rd1;\n xor.b32 %r10, %r1, %r2;"), 0x1234_5678 ^ 0x8765_4321);
    assert_eq!(
        scalar32("mov.u32 %r1, 0xaaaabbbb;\n mov.b32 {%h1, %h2}, %r1;\n mov.b32 %r10, {%h2, %h1};"),
        0xbbbb_aaaa
    );
    // ld.v4 / st.v2 through the input buffer (iota: 0, 1, 2, …).
    let w = words(
        "ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd1+16];\n st.global.v2.u32 [%rd0], {%r1, %r4};\n ld.global.u8 %r5, [%rd1+4];\n st.global.u32 [%rd0+8], %r5;\n ld.global.s8 %r6, [%rd1+3];\n st.global.u32 [%rd0+12], %r6;",
        1,
        4,
    );
    assert_eq!(w, vec![4, 7, 1, 0]);
}

#[test]
fn shuffles_all_modes_with_clamp_and_segments() {
    // up by 1 with c = 0: lane 0 keeps its own value (p false).
    let w = words("shfl.sync.up.b32 %r10|%p1, %r0, 1, 0, -1;\n selp.u32 %r11, 100, 0, %p1;\n add.u32 %r10, %r10, %r11;\n st.global.u32 [%rd3], %r10;", 32, 32);
    assert_eq!(w[0], 0);
    assert_eq!(w[5], 104);
    // down by 4 in 8-lane segments (c = (0x18 << 8) | 7): lanes near a segment end keep theirs.
    let w = words(
        "shfl.sync.down.b32 %r10, %r0, 4, 0x1807, -1;\n st.global.u32 [%rd3], %r10;",
        32,
        32,
    );
    assert_eq!(&w[0..8], &[4, 5, 6, 7, 4, 5, 6, 7]);
    assert_eq!(&w[8..12], &[12, 13, 14, 15]);
    // bfly xor 16.
    let w = words(
        "shfl.sync.bfly.b32 %r10, %r0, 16, 31, -1;\n st.global.u32 [%rd3], %r10;",
        32,
        32,
    );
    assert_eq!(w[3], 19);
    assert_eq!(w[20], 4);
    // idx within 16-lane segments: lane 3 of each segment.
    let w = words(
        "shfl.sync.idx.b32 %r10, %r0, 3, 0x100f, -1;\n st.global.u32 [%rd3], %r10;",
        32,
        32,
    );
    assert_eq!(w[0], 3);
    assert_eq!(w[17], 19);
}

#[test]
fn votes_match_redux_elect_activemask() {
    // Odd lanes vote true.
    let body = "and.b32 %r1, %r0, 1;\n setp.ne.u32 %p1, %r1, 0;\n vote.sync.ballot.b32 %r10, %p1, -1;\n vote.sync.any.pred %p2, %p1, -1;\n vote.sync.all.pred %p3, %p1, -1;\n vote.sync.uni.pred %p4, %p1, -1;\n selp.u32 %r11, 1, 0, %p2;\n selp.u32 %r12, 2, 0, %p3;\n selp.u32 %r13, 4, 0, %p4;\n or.b32 %r11, %r11, %r12;\n or.b32 %r11, %r11, %r13;\n st.global.u32 [%rd3], %r10;\n st.global.u32 [%rd3+128], %r11;";
    let w = words(body, 32, 64);
    assert_eq!(w[0], 0xaaaa_aaaa);
    assert_eq!(w[32], 1);
    // match.any on value lane/8; match.all on a uniform value.
    let body = "shr.u32 %r1, %r0, 3;\n match.any.sync.b32 %r10, %r1, -1;\n match.all.sync.b32 %r11|%p1, 7, -1;\n st.global.u32 [%rd3], %r10;\n st.global.u32 [%rd3+128], %r11;";
    let w = words(body, 32, 64);
    assert_eq!(w[0], 0xff);
    assert_eq!(w[9], 0xff00);
    assert_eq!(w[33], 0xffff_ffff);
    // redux.sync add/max over lanes.
    let body = "redux.sync.add.u32 %r10, %r0, -1;\n redux.sync.max.s32 %r11, %r0, -1;\n st.global.u32 [%rd3], %r10;\n st.global.u32 [%rd3+128], %r11;";
    let w = words(body, 32, 64);
    assert_eq!(w[7], 496);
    assert_eq!(w[40], 31);
    // activemask and elect inside a divergent branch (lanes >= 8 only).
    let body = "setp.lt.u32 %p1, %r0, 8;\n mov.u32 %r10, 0;\n @%p1 bra $L_skip;\n activemask.b32 %r10;\n elect.sync %r11|%p2, %r10;\n selp.u32 %r12, 1, 0, %p2;\n st.global.u32 [%rd3+128], %r12;\n $L_skip:\n st.global.u32 [%rd3], %r10;";
    let w = words(body, 32, 64);
    assert_eq!(w[0], 0);
    assert_eq!(w[8], 0xffff_ff00);
    assert_eq!(w[32 + 8], 1);
    assert_eq!(w[32 + 9], 0);
}

#[test]
fn divergence_reconverges_at_the_post_dominator() {
    // Both sides of a branch, then a shuffle that needs the whole warp: only correct if the lanes
    // reconverged at the join.
    let body = "and.b32 %r1, %r0, 1;\n setp.eq.u32 %p1, %r1, 0;\n @%p1 bra $L_even;\n mul.lo.u32 %r2, %r0, 10;\n bra.uni $L_join;\n $L_even:\n add.u32 %r2, %r0, 1000;\n $L_join:\n shfl.sync.bfly.b32 %r10, %r2, 1, 31, -1;\n st.global.u32 [%rd3], %r10;";
    let w = words(body, 32, 32);
    assert_eq!(w[0], 10); // lane 1's 1*10
    assert_eq!(w[1], 1000); // lane 0's 0+1000
                            // A divergent loop (lane-dependent trip count) followed by a full-warp vote.
    let body = "mov.u32 %r1, 0;\n $L_loop:\n add.u32 %r1, %r1, 1;\n setp.lt.u32 %p1, %r1, %r0;\n @%p1 bra $L_loop;\n vote.sync.ballot.b32 %r10, %p1, -1;\n add.u32 %r10, %r10, %r1;\n st.global.u32 [%rd3], %r10;";
    let w = words(body, 32, 32);
    assert_eq!(w[0], 1);
    assert_eq!(w[31], 31);
}

#[test]
fn collectives_wait_for_sibling_paths_that_exit_or_arrive() {
    // The working lanes are the taken path and run first; the shuffle's full mask names lanes
    // 0..19, which are on the exiting path: they are let run (and exit) first.
    let body = "setp.ge.u32 %p1, %r0, 20;\n @%p1 bra $L_work;\n exit;\n $L_work:\n shfl.sync.bfly.b32 %r10, %r0, 1, 31, -1;\n st.global.u32 [%rd3], %r10;";
    let w = words(body, 32, 32);
    assert_eq!(&w[20..24], &[21, 20, 23, 22]);
    assert_eq!(w[0], 0);
    // The two sides of a branch run *different* shfl.sync instructions with a full mask: only
    // independent thread scheduling can pair them, so this is a limit error, not a guess.
    let body = "setp.lt.u32 %p1, %r0, 16;\n @%p1 bra $L_a;\n shfl.sync.bfly.b32 %r10, %r0, 16, 31, -1;\n bra.uni $L_end;\n $L_a:\n shfl.sync.bfly.b32 %r10, %r0, 16, 31, -1;\n $L_end:\n st.global.u32 [%rd3], %r10;";
    let err = exec(&kernel(body), &launch(32, 32, "\"iota\""))
        .unwrap_err()
        .to_string();
    assert!(err.contains("independent thread scheduling"), "{err}");
}

#[test]
fn brx_idx_jump_tables_diverge() {
    let body = "and.b32 %r1, %r0, 3;\n $L_tbl: .branchtargets $L_a, $L_b, $L_c, $L_d;\n brx.idx %r1, $L_tbl;\n $L_a:\n mov.u32 %r10, 100;\n bra.uni $L_end;\n $L_b:\n mov.u32 %r10, 200;\n bra.uni $L_end;\n $L_c:\n mov.u32 %r10, 300;\n bra.uni $L_end;\n $L_d:\n mov.u32 %r10, 400;\n $L_end:\n activemask.b32 %r11;\n add.u32 %r10, %r10, %r11;\n st.global.u32 [%rd3], %r10;";
    let w = words(body, 8, 8);
    assert_eq!(w, vec![355, 455, 555, 655, 355, 455, 555, 655]);
}

#[test]
fn atomics_in_lane_order() {
    // Every lane does atom.add on out[0]: returns are the prefix sums in lane order.
    let body = "atom.global.add.u32 %r10, [%rd0], %r0;\n st.global.u32 [%rd3+4], %r10;";
    let w = words(body, 8, 9);
    assert_eq!(w[0], 28);
    assert_eq!(&w[1..9], &[0, 0, 1, 3, 6, 10, 15, 21]);
    // exch: the last lane's value remains; cas succeeds for exactly one lane.
    let w = words("atom.global.exch.b32 %r10, [%rd0], %r0;", 8, 1);
    assert_eq!(w[0], 7);
    let body = "atom.global.cas.b32 %r10, [%rd0], 0, %r0;\n setp.eq.u32 %p1, %r10, 0;\n selp.u32 %r11, 1, 0, %p1;\n atom.global.add.u32 %r12, [%rd0+4], %r11;";
    let w = words(body, 8, 2);
    // Lane 0 swaps 0 for 0, lane 1 still sees 0 and swaps in 1, the others fail.
    assert_eq!(w[0], 1);
    assert_eq!(w[1], 2);
    // inc wraps at the bound, dec too; min/max signed.
    let body = "atom.global.inc.u32 %r10, [%rd0], 2;\n atom.global.dec.u32 %r11, [%rd0+4], 2;\n atom.global.max.s32 %r12, [%rd0+8], %r0;\n red.global.min.s32 [%rd0+12], %r0;\n red.global.add.f32 [%rd0+16], 0f3F800000;";
    let w = words(body, 4, 5);
    assert_eq!(&w[..4], &[1, 2, 3, 0]);
    assert_eq!(w[4], 0x4080_0000);
}

#[test]
fn shared_memory_generic_addressing_and_spaces() {
    let text = r#".version 8.0
.target sm_80
.address_size 64
.global .align 4 .u32 gvar[4] = {10, 20, 30, 40};
.const .align 4 .u32 cvar[2] = {7, 9};
.visible .entry k(.param .u64 out, .param .u64 inp)
{
	.reg .pred 	%p<4>;
	.reg .b32 	%r<20>;
	.reg .b64 	%rd<20>;
	.shared .align 4 .b8 sm[128];
	ld.param.u64 	%rd0, [out];
	cvta.to.global.u64 	%rd0, %rd0;
	mov.u32 	%r0, %tid.x;
	mov.u64 	%rd1, sm;
	cvta.shared.u64 	%rd2, %rd1;
	mul.wide.u32 	%rd3, %r0, 4;
	add.s64 	%rd4, %rd2, %rd3;
	st.u32 	[%rd4], %r0;
	bar.sync 	0;
	xor.b32 	%r1, %r0, 1;
	mul.wide.u32 	%rd5, %r1, 4;
	add.s64 	%rd6, %rd1, %rd5;
	cvt.u32.u64 	%r2, %rd6;
	ld.shared.u32 	%r3, [%r2];
	isspacep.shared 	%p1, %rd4;
	isspacep.global 	%p2, %rd4;
	selp.u32 	%r4, 100, 0, %p1;
	selp.u32 	%r5, 1000, 0, %p2;
	add.u32 	%r3, %r3, %r4;
	add.u32 	%r3, %r3, %r5;
	ld.global.u32 	%r6, [gvar+8];
	ld.const.u32 	%r7, [cvar+4];
	mov.u64 	%rd7, cvar;
	cvta.const.u64 	%rd8, %rd7;
	ld.u32 	%r8, [%rd8];
	add.u32 	%r3, %r3, %r6;
	mul.lo.u32 	%r7, %r7, 1000;
	add.u32 	%r3, %r3, %r7;
	mul.lo.u32 	%r8, %r8, 100000;
	add.u32 	%r3, %r3, %r8;
	add.s64 	%rd9, %rd0, %rd3;
	st.global.u32 	[%rd9], %r3;
	ret;
}
"#;
    let outs = exec(text, &launch(4, 4, "\"zero\"")).expect("runs");
    let w: Vec<u32> = outs[0]
        .data
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    assert_eq!(w, vec![709_131, 709_130, 709_133, 709_132]);
}

#[test]
fn named_barriers_arrive_and_bar_red() {
    // Warp 0 produces into shared memory and arrives on barrier 1; warp 1 syncs on barrier 1
    // (count 64) and consumes. bar.red.popc counts odd threads across both warps.
    let text = r#".version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 inp)
{
	.reg .pred 	%p<4>;
	.reg .b32 	%r<20>;
	.reg .b64 	%rd<20>;
	.shared .align 4 .b8 sm[256];
	ld.param.u64 	%rd0, [out];
	cvta.to.global.u64 	%rd0, %rd0;
	mov.u32 	%r0, %tid.x;
	mul.wide.u32 	%rd3, %r0, 4;
	add.s64 	%rd4, %rd0, %rd3;
	mov.u32 	%r1, sm;
	shl.b32 	%r2, %r0, 2;
	add.u32 	%r3, %r1, %r2;
	setp.ge.u32 	%p1, %r0, 32;
	@%p1 bra 	$L_consumer;
	mul.lo.u32 	%r4, %r0, 3;
	st.shared.u32 	[%r3], %r4;
	bar.arrive 	1, 64;
	bra.uni 	$L_join;
$L_consumer:
	bar.sync 	1, 64;
	sub.u32 	%r5, %r3, 128;
	ld.shared.u32 	%r6, [%r5];
	st.global.u32 	[%rd4], %r6;
$L_join:
	and.b32 	%r7, %r0, 1;
	setp.ne.u32 	%p2, %r7, 0;
	bar.red.popc.u32 	%r8, 0, %p2;
	st.global.u32 	[%rd4+256], %r8;
	ret;
}
"#;
    let outs = exec(text, &launch(64, 128, "\"zero\"")).expect("runs");
    let w: Vec<u32> = outs[0]
        .data
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    assert_eq!(w[32], 0);
    assert_eq!(w[40], 24);
    assert!(w[64..].iter().all(|&x| x == 32));
}

#[test]
fn calls_pass_params_and_recursion_is_bounded() {
    let text = r#".version 8.0
.target sm_80
.address_size 64
.func  (.param .b32 ret0) fact(.param .b32 n)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<6>;
	ld.param.b32 	%r1, [n];
	setp.le.u32 	%p1, %r1, 1;
	mov.u32 	%r5, 1;
	@%p1 bra 	$L_done;
	sub.u32 	%r2, %r1, 1;
	{
	.param .b32 a;
	.param .b32 r;
	st.param.b32 	[a], %r2;
	call.uni (r), fact, (a);
	ld.param.b32 	%r3, [r];
	}
	mul.lo.u32 	%r5, %r3, %r1;
$L_done:
	st.param.b32 	[ret0], %r5;
	ret;
}
.visible .entry k(.param .u64 out, .param .u64 inp)
{
	.reg .b32 	%r<6>;
	.reg .b64 	%rd<6>;
	ld.param.u64 	%rd0, [out];
	cvta.to.global.u64 	%rd0, %rd0;
	ld.param.u64 	%rd1, [inp];
	cvta.to.global.u64 	%rd1, %rd1;
	mov.u32 	%r0, %tid.x;
	mul.wide.u32 	%rd3, %r0, 4;
	add.s64 	%rd4, %rd1, %rd3;
	ld.global.u32 	%r1, [%rd4];
	{
	.param .b32 a;
	.param .b32 r;
	st.param.b32 	[a], %r1;
	call.uni (r), fact, (a);
	ld.param.b32 	%r2, [r];
	}
	add.s64 	%rd5, %rd0, %rd3;
	st.global.u32 	[%rd5], %r2;
	ret;
}
"#;
    let outs = exec(text, &launch(8, 8, "\"iota\"")).expect("runs");
    let w: Vec<u32> = outs[0]
        .data
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    assert_eq!(w, vec![1, 1, 2, 6, 24, 120, 720, 5040]);
    // 1000 levels of recursion exceed the default depth limit: a clear limit error.
    let err = exec(text, &launch(1, 1, "[1000]")).unwrap_err();
    assert!(matches!(err, EmuError::Limit { .. }), "{err}");
    assert!(err.to_string().contains("call depth"), "{err}");
}

#[test]
fn printf_is_ignored_returns_zero_and_the_kernel_goes_on() {
    // clang's form of `printf("%d", x)`: a `.extern .func vprintf` called with a format pointer and
    // an argument buffer; the emulator prints nothing, returns 0 and continues after the call.
    let text = r#".version 8.0
.target sm_80
.address_size 64
.extern .func  (.param .b32 func_retval0) vprintf(.param .b64 fmt, .param .b64 args);
.global .align 1 .b8 fmt[3] = {37, 100, 0};
.visible .entry k(.param .u64 out, .param .u64 inp)
{
	.reg .b32 	%r<6>;
	.reg .b64 	%rd<8>;
	ld.param.u64 	%rd0, [out];
	cvta.to.global.u64 	%rd0, %rd0;
	mov.u32 	%r0, %tid.x;
	mov.u64 	%rd1, fmt;
	cvta.global.u64 	%rd2, %rd1;
	mov.u32 	%r1, 7;
	{
	.param .b64 p0;
	.param .b64 p1;
	.param .b32 rv;
	st.param.b64 	[p0], %rd2;
	st.param.b64 	[p1], 0;
	st.param.b32 	[rv], 99;
	call.uni (rv), vprintf, (p0, p1);
	ld.param.b32 	%r1, [rv];
	}
	mul.wide.u32 	%rd3, %r0, 4;
	add.s64 	%rd4, %rd0, %rd3;
	add.u32 	%r2, %r1, %r0;
	st.global.u32 	[%rd4], %r2;
	ret;
}
"#;
    let outs = exec(text, &launch(4, 4, "\"iota\"")).expect("runs");
    let w: Vec<u32> = outs[0]
        .data
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    assert_eq!(w, vec![0, 1, 2, 3]);
}

#[test]
fn special_registers() {
    let body = "mov.u32 %r1, %laneid;\n mov.u32 %r2, %warpid;\n mov.u32 %r3, %lanemask_lt;\n mov.u32 %r4, %nwarpid;\n mad.lo.u32 %r10, %r2, 1000, %r1;\n st.global.u32 [%rd3], %r10;\n st.global.u32 [%rd3+256], %r3;\n st.global.u32 [%rd3+512], %r4;\n mov.u64 %rd6, %clock64;\n mov.u64 %rd7, %clock64;\n setp.gt.u64 %p1, %rd7, %rd6;\n selp.u32 %r5, 1, 0, %p1;\n st.global.u32 [%rd3+768], %r5;";
    let w = words(body, 48, 256);
    assert_eq!(w[33], 1001);
    assert_eq!(w[64 + 3], 0b111);
    assert_eq!(w[128], 2);
    assert_eq!(w[192 + 40], 1);
}

/// `alloca`, `stacksave` and `stackrestore` (PTX ISA 7.3): sizes differ per lane, the
/// alignment holds, two allocations do not overlap, and memory freed by `stackrestore` is
/// given out again.
const DYNAMIC_STACK: &str = "
	stacksave.u64 	%rd10;
	and.b32 	%r1, %r0, 3;
	add.u32 	%r1, %r1, 1;
	shl.b32 	%r1, %r1, 2;
	cvt.u64.u32 	%rd11, %r1;
	alloca.u64 	%rd12, %rd11, 16;
	and.b64 	%rd13, %rd12, 15;
	add.s64 	%rd20, %rd12, %rd11;
	st.local.u32 	[%rd20+-4], %r0;
	alloca.u64 	%rd14, 8;
	st.local.u32 	[%rd14], 77;
	ld.local.u32 	%r2, [%rd20+-4];
	stackrestore.u64 	%rd10;
	alloca.u64 	%rd15, 4;
	setp.ne.s64 	%p1, %rd13, 0;
	selp.u32 	%r3, 1000, 0, %p1;
	setp.lt.u64 	%p2, %rd14, %rd20;
	selp.u32 	%r4, 2000, 0, %p2;
	setp.gt.u64 	%p3, %rd15, %rd12;
	selp.u32 	%r5, 4000, 0, %p3;
	add.u32 	%r2, %r2, %r3;
	add.u32 	%r2, %r2, %r4;
	add.u32 	%r2, %r2, %r5;
	st.global.u32 	[%rd3], %r2;";

#[test]
fn dynamic_stack() {
    let w = words(DYNAMIC_STACK, 40, 40);
    assert_eq!(w, (0..40).collect::<Vec<u32>>());
}

#[test]
fn dynamic_stack_freed_memory_faults() {
    // After `stackrestore` the second allocation lies above the stack pointer.
    let body = "
	stacksave.u64 	%rd10;
	alloca.u64 	%rd14, 8;
	stackrestore.u64 	%rd10;
	st.local.u32 	[%rd14], 77;";
    let err = exec(&kernel(body), &launch(32, 32, "\"iota\"")).unwrap_err();
    assert!(matches!(err, EmuError::Fault { .. }), "{err}");
}

#[test]
fn dynamic_stack_restore_of_different_pointers_is_unsupported() {
    // Lanes that restore different pointers would need a stack each.
    let body = "
	alloca.u64 	%rd14, 8;
	stacksave.u64 	%rd10;
	cvt.u64.u32 	%rd11, %r0;
	and.b64 	%rd11, %rd11, 1;
	add.s64 	%rd10, %rd10, %rd11;
	stackrestore.u64 	%rd10;";
    let err = exec(&kernel(body), &launch(32, 32, "\"iota\"")).unwrap_err();
    assert!(matches!(err, EmuError::Unsupported { .. }), "{err}");
}

/// Function-scope `.global` and `.const` variables are static: their initialisers hold (ZLUDA's
/// `cp_async` copies from one), and a `.global` one is an output like a module variable.
#[test]
fn function_scope_variables_keep_their_initialisers() {
    let body = ".global .align 4 .u32 g[2] = {7, 9};\n .const .align 4 .u32 c[2] = {100, 200};\n \
                ld.global.u32 %r1, [g+4];\n ld.const.u32 %r2, [c+4];\n add.u32 %r10, %r1, %r2;\n \
                st.global.u32 [g], %r10;\n st.global.u32 [%rd3], %r10;";
    let outs = exec(&kernel(body), &launch(1, 1, "\"iota\"")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(outs[0].data, 209u32.to_le_bytes());
    let g = outs
        .iter()
        .find(|b| b.name == "g")
        .expect("`g` is an output");
    assert_eq!(g.data, [209u32.to_le_bytes(), 9u32.to_le_bytes()].concat());
}
