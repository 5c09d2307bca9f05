//! Shuffle synthesis on small hand-written PTX kernels: each kernel is rewritten, the result must
//! be accepted by ptxas and compute the same bytes as the original on the emulator for several
//! seeds and launch shapes (incomplete warps, 2-D blocks, `ntid.x` below 32, divergent branches).

use warpsmith::emu::equiv;
use warpsmith::emu::launch::{spec_for, Hints};
use warpsmith::ptx::{parse_module, print_module};
use warpsmith::shuffle::{shuffle_module, Mode, ShuffleOptions, ShuffleReport};
use warpsmith::tools;

const HEADER: &str = ".version 8.0\n.target sm_80\n.address_size 64\n";

/// Rewrites `body` (a kernel `k`), checks ptxas and equivalence on every launch; returns the report
/// and the rewritten text.
fn check(body: &str, launches: &[Hints]) -> (ShuffleReport, String) {
    let _ = env_logger::builder().is_test(true).try_init();
    let src = format!("{HEADER}{body}");
    let orig = parse_module(&src, "k.ptx").expect("parse");
    let mut m = orig.clone();
    let rep = shuffle_module(&mut m, &ShuffleOptions::exhaustive()).expect("shuffle");
    let text = print_module(&m);
    let back = parse_module(&text, "out.ptx").unwrap_or_else(|e| panic!("{e}\n{text}"));
    match tools::ptxas_accepts_source(&text, "sm_80") {
        Ok(()) => {}
        Err(tools::ToolError::NotFound { .. }) => {
            eprintln!("SKIPPED (ptxas check): ptxas not found")
        }
        Err(e) => panic!("ptxas rejects the output: {e}\n{text}"),
    }
    let f = orig.function("k").expect("kernel k");
    for h in launches {
        let spec = spec_for(f, h).expect("spec");
        let r = equiv::check(&orig, &back, &spec, 3).expect("equiv runs");
        assert!(
            r.is_equal(),
            "not equivalent on block {:?} grid {:?}: {:?}\n{text}",
            h.block,
            h.grid,
            r.verdict
        );
    }
    (rep, text)
}

fn shapes(n: u64) -> Vec<Hints> {
    let h = Hints::new().len(n).scalar(2, n);
    vec![
        h.clone().block(&[64, 1, 1]).grid(&[2, 1, 1]),
        h.clone().block(&[48, 1, 1]).grid(&[3, 1, 1]),
        h.clone().block(&[16, 2, 1]).grid(&[3, 1, 1]),
        h.clone().block(&[20, 3, 1]).grid(&[2, 1, 1]),
        h.block(&[100, 1, 1]).grid(&[1, 1, 1]),
    ]
}

const STENCIL_1D: &str = r#"
.visible .entry k(.param .u64 k_in, .param .u64 k_out, .param .u32 k_n)
{
  .reg .pred %p<3>;
  .reg .b32 %r<8>;
  .reg .f32 %f<6>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [k_in];
  ld.param.u64 %rd2, [k_out];
  ld.param.u32 %r1, [k_n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.lt.s32 %p1, %r5, 1;
  @%p1 bra $L_end;
  add.s32 %r6, %r1, -1;
  setp.ge.s32 %p2, %r5, %r6;
  @%p2 bra $L_end;
  cvta.to.global.u64 %rd3, %rd1;
  mul.wide.s32 %rd4, %r5, 4;
  add.s64 %rd5, %rd3, %rd4;
  ld.global.f32 %f1, [%rd5+-4];
  ld.global.f32 %f2, [%rd5];
  ld.global.f32 %f3, [%rd5+4];
  add.f32 %f4, %f1, %f2;
  add.f32 %f5, %f4, %f3;
  cvta.to.global.u64 %rd6, %rd2;
  add.s64 %rd7, %rd6, %rd4;
  st.global.f32 [%rd7], %f5;
$L_end:
  ret;
}
"#;

#[test]
fn stencil_1d() {
    let (rep, text) = check(STENCIL_1D, &shapes(200));
    let k = &rep.kernels[0];
    assert_eq!(k.loads, 3);
    assert_eq!(k.shuffles, 2, "{k:#?}\n{text}");
    assert_eq!(k.deltas, vec![1, 2]);
    assert!(text.contains("shfl.sync.down.b32"), "{text}");
    assert!(text.contains("activemask.b32"), "{text}");
    assert!(text.contains("%laneid"), "{text}");
}

fn shapes_2d(w: u64, h: u64) -> Vec<Hints> {
    let base = Hints::new().len(w * h).scalar(2, w).scalar(3, h);
    vec![
        base.clone().block(&[16, 4, 1]).grid(&[3, 4, 1]),
        base.clone().block(&[32, 2, 1]).grid(&[2, 6, 1]),
        base.clone().block(&[48, 1, 1]).grid(&[1, 10, 1]),
        base.block(&[8, 8, 1]).grid(&[6, 3, 1]),
    ]
}

/// A 2-D 5-point-ish stencil, row index `y*w + x` in 32 bits (as clang emits for `int`).
const STENCIL_2D: &str = r#"
.visible .entry k(.param .u64 k_in, .param .u64 k_out, .param .u32 k_w, .param .u32 k_h)
{
  .reg .pred %p<8>;
  .reg .b32 %r<20>;
  .reg .f32 %f<12>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [k_in];
  ld.param.u64 %rd2, [k_out];
  ld.param.u32 %r1, [k_w];
  ld.param.u32 %r2, [k_h];
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mov.u32 %r5, %tid.x;
  mad.lo.s32 %r6, %r3, %r4, %r5;
  mov.u32 %r7, %ctaid.y;
  mov.u32 %r8, %ntid.y;
  mov.u32 %r9, %tid.y;
  mad.lo.s32 %r10, %r7, %r8, %r9;
  setp.lt.s32 %p1, %r6, 1;
  setp.lt.s32 %p2, %r10, 1;
  or.pred %p3, %p1, %p2;
  add.s32 %r11, %r1, -1;
  setp.ge.s32 %p4, %r6, %r11;
  or.pred %p5, %p3, %p4;
  add.s32 %r12, %r2, -1;
  setp.ge.s32 %p6, %r10, %r12;
  or.pred %p7, %p5, %p6;
  @%p7 bra $L_end;
  mad.lo.s32 %r13, %r10, %r1, %r6;
  cvta.to.global.u64 %rd3, %rd1;
  mul.wide.s32 %rd4, %r13, 4;
  add.s64 %rd5, %rd3, %rd4;
  ld.global.nc.f32 %f1, [%rd5+-4];
  ld.global.nc.f32 %f2, [%rd5];
  ld.global.nc.f32 %f3, [%rd5+4];
  sub.s32 %r14, %r13, %r1;
  mul.wide.s32 %rd6, %r14, 4;
  add.s64 %rd7, %rd3, %rd6;
  ld.global.nc.f32 %f4, [%rd7+-4];
  ld.global.nc.f32 %f5, [%rd7];
  add.f32 %f6, %f1, %f2;
  add.f32 %f7, %f6, %f3;
  add.f32 %f8, %f7, %f4;
  add.f32 %f9, %f8, %f5;
  cvta.to.global.u64 %rd8, %rd2;
  add.s64 %rd9, %rd8, %rd4;
  st.global.f32 [%rd9], %f9;
$L_end:
  ret;
}
"#;

#[test]
fn stencil_2d_small_rows() {
    let (rep, text) = check(STENCIL_2D, &shapes_2d(40, 30));
    let k = &rep.kernels[0];
    assert_eq!(k.loads, 5);
    // f2, f3 from f1 and f5 from f4; the 32-bit row index may wrap, so each is guarded at run
    // time: the destination is the source's address plus delta·4 in the same lane (exactly), so
    // one vote per source checks that consecutive lanes' source addresses step by 4.
    assert_eq!(k.shuffles, 3, "{k:#?}\n{text}");
    assert_eq!(k.checked, 3, "{k:#?}");
    assert!(text.contains("vote.sync.any.pred"), "{text}");
    assert!(text.contains("setp.ne.and.b64"), "{text}");
}

/// Predicated loads (`@%p ld`), a divergent branch and 64-bit and vector loads.
const PREDICATED: &str = r#"
.visible .entry k(.param .u64 k_in, .param .u64 k_out, .param .u32 k_n)
{
  .reg .pred %p<6>;
  .reg .b32 %r<12>;
  .reg .f32 %f<12>;
  .reg .b64 %rd<12>;
  .reg .f64 %fd<6>;
  ld.param.u64 %rd1, [k_in];
  ld.param.u64 %rd2, [k_out];
  ld.param.u32 %r1, [k_n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  add.s32 %r6, %r1, -4;
  setp.ge.u32 %p1, %r5, %r6;
  @%p1 bra $L_end;
  cvta.to.global.u64 %rd3, %rd1;
  mul.wide.u32 %rd4, %r5, 8;
  add.s64 %rd5, %rd3, %rd4;
  ld.global.f64 %fd1, [%rd5];
  ld.global.f64 %fd2, [%rd5+8];
  and.b32 %r7, %r4, 3;
  setp.eq.s32 %p2, %r7, 0;
  mov.f32 %f3, 0f3F800000;
  ld.global.v2.f32 {%f1, %f2}, [%rd5];
  @%p2 ld.global.f32 %f3, [%rd5+8];
  @!%p2 ld.global.v2.f32 {%f4, %f5}, [%rd5+8];
  @%p2 bra $L_a;
  add.f32 %f6, %f4, %f5;
  bra.uni $L_join;
$L_a:
  ld.global.f32 %f6, [%rd5+12];
$L_join:
  add.f32 %f7, %f1, %f2;
  add.f32 %f8, %f7, %f3;
  add.f32 %f9, %f8, %f6;
  cvt.f64.f32 %fd3, %f9;
  add.f64 %fd4, %fd1, %fd2;
  add.f64 %fd5, %fd4, %fd3;
  cvta.to.global.u64 %rd6, %rd2;
  add.s64 %rd7, %rd6, %rd4;
  st.global.f64 [%rd7], %fd5;
$L_end:
  ret;
}
"#;

#[test]
fn predicated_vector_and_64bit_loads() {
    let h = Hints::new()
        .len(300)
        .ty(0, warpsmith::emu::launch::ElemType::F64)
        .ty(1, warpsmith::emu::launch::ElemType::F64)
        .scalar(2, 300u64);
    let launches = vec![
        h.clone().block(&[64, 1, 1]).grid(&[2, 1, 1]),
        h.clone().block(&[48, 1, 1]).grid(&[3, 1, 1]),
        h.clone().block(&[16, 3, 1]).grid(&[2, 1, 1]),
    ];
    let (rep, text) = check(PREDICATED, &launches);
    let k = &rep.kernels[0];
    assert_eq!(k.loads, 6);
    // fd2 from fd1 (N = 1, two 32-bit halves); the guarded f32 load and the guarded vector load
    // from the v2 load; the load in the divergent branch from the v2 load.
    assert!(k.shuffles >= 3, "{k:#?}\n{text}");
    assert!(text.contains("mov.b64 \t{"), "{text}");
}

/// Stores between loads, atomics, and a loop.
const STORES_ATOMICS_LOOP: &str = r#"
.visible .entry k(.param .u64 k_in, .param .u64 k_out, .param .u32 k_n)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .f32 %f<16>;
  .reg .b64 %rd<16>;
  ld.param.u64 %rd1, [k_in];
  ld.param.u64 %rd2, [k_out];
  ld.param.u32 %r1, [k_n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  add.s32 %r6, %r1, -40;
  setp.ge.u32 %p1, %r5, %r6;
  @%p1 bra $L_end;
  cvta.to.global.u64 %rd3, %rd1;
  cvta.to.global.u64 %rd4, %rd2;
  mul.wide.u32 %rd5, %r5, 4;
  add.s64 %rd6, %rd3, %rd5;
  add.s64 %rd7, %rd4, %rd5;
  ld.global.f32 %f1, [%rd6];
  atom.global.add.f32 %f2, [%rd6+4], %f1;
  ld.global.f32 %f3, [%rd6+4];
  ld.global.f32 %f4, [%rd6+8];
  mov.f32 %f5, 0f00000000;
  mov.u32 %r7, 0;
  mov.u64 %rd8, %rd6;
$L_loop:
  ld.global.f32 %f6, [%rd8];
  ld.global.f32 %f7, [%rd8+4];
  add.f32 %f8, %f6, %f7;
  add.f32 %f5, %f5, %f8;
  add.s64 %rd8, %rd8, 4;
  add.s32 %r7, %r7, 1;
  setp.lt.u32 %p2, %r7, 4;
  @%p2 bra $L_loop;
  add.f32 %f9, %f5, %f3;
  add.f32 %f10, %f9, %f4;
  add.f32 %f11, %f10, %f2;
  st.global.f32 [%rd7], %f11;
$L_end:
  ret;
}
"#;

#[test]
fn stores_atomics_and_loops() {
    let launches = shapes(400);
    let (rep, text) = check(STORES_ATOMICS_LOOP, &launches);
    let k = &rep.kernels[0];
    assert_eq!(k.loads, 5, "atomics are not loads: {k:#?}");
    // f3 must not come from f1 (the atomic writes [rd6+4] in between); f4 comes from f3 (N=1).
    // In the loop, f7 comes from f6 of the same iteration.
    assert!(k.shuffles >= 1, "{k:#?}\n{text}");
    assert!(
        k.rejected.iter().any(|r| r.load.contains("%f3, [%rd6+4]")),
        "the load after the atomic must not be replaced: {k:#?}"
    );
}

/// The measurement modes: valid PTX without the fallback loads (no-load) or without any check
/// (no-corner). Their output is not correct in general, so only their shape is checked.
#[test]
fn measurement_modes() {
    for mode in [Mode::NoLoad, Mode::NoCorner] {
        let mut m = parse_module(&format!("{HEADER}{STENCIL_1D}"), "k.ptx").unwrap();
        let opts = ShuffleOptions {
            mode,
            ..ShuffleOptions::exhaustive()
        };
        let rep = shuffle_module(&mut m, &opts).unwrap();
        assert_eq!(rep.kernels[0].shuffles, 2);
        let text = print_module(&m);
        assert_eq!(text.matches("ld.global").count(), 1, "{mode:?}\n{text}");
        assert_eq!(
            text.contains("activemask"),
            mode == Mode::NoLoad,
            "{mode:?}\n{text}"
        );
        match tools::ptxas_accepts_source(&text, "sm_80") {
            Ok(()) | Err(tools::ToolError::NotFound { .. }) => {}
            Err(e) => panic!("ptxas rejects {mode:?}: {e}\n{text}"),
        }
    }
}

/// With `.reqntid 64` the warp's lanes provably have consecutive `tid.x` in one row: no run-time
/// `tid.x` check is generated (only the lane and incomplete-warp checks).
#[test]
fn reqntid_multiple_of_32_drops_the_row_check() {
    let body = STENCIL_1D.replace(
        ".param .u32 k_n)\n{",
        ".param .u32 k_n)\n.reqntid 64, 1, 1\n{",
    );
    assert!(body.contains(".reqntid"));
    let h = Hints::new().len(300).scalar(2, 250u64);
    let launches = vec![h.clone().block(&[64, 1, 1]).grid(&[4, 1, 1])];
    let (rep, text) = check(&body, &launches);
    assert_eq!(rep.kernels[0].shuffles, 2);
    assert!(!text.contains("setp.ge.u32"), "{text}");
    assert!(text.contains("activemask"), "{text}");
}

/// Targets without `activemask`/`shfl.sync` (before sm_70 or PTX 6.2) are refused, so no invalid
/// PTX is printed.
#[test]
fn old_targets_are_refused() {
    let src = format!(".version 6.0\n.target sm_60\n.address_size 64\n{STENCIL_1D}");
    let mut m = parse_module(&src, "old.ptx").unwrap();
    let before = print_module(&m);
    let err = shuffle_module(&mut m, &ShuffleOptions::exhaustive()).unwrap_err();
    assert!(err.to_string().contains("sm_70"), "{err}");
    assert_eq!(print_module(&m), before);
}

/// A 16-bit index that wraps inside a warp (`cvt.s32.s16` of `tid.x + c`, with `c` chosen so
/// that lane 10 holds 32767 and lane 11 −32768). Without wrap-around, `[%rd5+4]` is what the next
/// lane loads at `[%rd5]`: the load is replaced in the checked form, and the warp's stride vote
/// must see that the source addresses do not step by 4 across the wrap and send the whole warp to
/// the original loads (a shuffle there would read the wrong end of the buffer).
const WRAPPING_INDEX: &str = r#"
.visible .entry k(.param .u64 k_in, .param .u64 k_out, .param .u32 k_c)
{
  .reg .b16 %h<2>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<9>;
  .reg .f32 %f<4>;
  ld.param.u64 %rd1, [k_in];
  cvta.to.global.u64 %rd1, %rd1;
  ld.param.u64 %rd2, [k_out];
  cvta.to.global.u64 %rd2, %rd2;
  ld.param.u32 %r1, [k_c];
  mov.u32 %r2, %tid.x;
  add.s32 %r3, %r2, %r1;
  cvt.u16.u32 %h1, %r3;
  cvt.s32.s16 %r4, %h1;
  mul.wide.s32 %rd3, %r4, 4;
  add.s64 %rd4, %rd1, 131072;
  add.s64 %rd5, %rd4, %rd3;
  ld.global.f32 %f1, [%rd5];
  ld.global.f32 %f2, [%rd5+4];
  add.f32 %f3, %f1, %f2;
  mul.wide.u32 %rd6, %r2, 4;
  add.s64 %rd7, %rd2, %rd6;
  st.global.f32 [%rd7], %f3;
  ret;
}
"#;

#[test]
fn stride_vote_catches_a_wrapping_index() {
    // `in` holds 65537 floats (index −32768 … 32768 around its middle), `out` one per thread.
    let h = Hints::new()
        .len_of(0, 65537)
        .len_of(1, 64)
        .scalar(2, 32767 - 10)
        .block(&[64, 1, 1])
        .grid(&[1, 1, 1]);
    let (rep, text) = check(WRAPPING_INDEX, &[h]);
    let k = &rep.kernels[0];
    assert_eq!((k.shuffles, k.checked), (1, 1), "{k:#?}\n{text}");
    assert!(text.contains("vote.sync.any.pred"), "{text}");
}

/// Numba's `out[i] = a[i - 1] - a[i]` (bench/numba/compile_kernels.py, `shift_wrap`): a 64-bit
/// index from `mul.wide.s32 %ntid.x, %ctaid.x`, Python's negative-index wrap-around (a `selp`
/// adding `n` where `i − 1 < 0`, the sign mask `i >> 63 & n` for `i`), and every index times a
/// stride parameter. The proof of delta −1 needs the generalised products `(…)·s` of the two
/// lanes to stay equal when their factors are, and the block base to stay far from −2^63.
const NUMBA_WRAP_SHIFT: &str = r#"
.visible .entry k(.param .u64 k_in, .param .u64 k_out, .param .u64 k_n, .param .u64 k_s)
{
  .reg .pred %p<3>;
  .reg .f32 %f<4>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<24>;
  ld.param.u64 %rd2, [k_in];
  ld.param.u64 %rd3, [k_n];
  ld.param.u64 %rd4, [k_s];
  ld.param.u64 %rd5, [k_out];
  mov.u32 %r1, %tid.x;
  cvt.s64.s32 %rd8, %r1;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %ctaid.x;
  mul.wide.s32 %rd9, %r2, %r3;
  add.s64 %rd1, %rd9, %rd8;
  setp.ge.s64 %p1, %rd1, %rd3;
  @%p1 bra $L_end;
  cvta.to.global.u64 %rd10, %rd2;
  setp.lt.s64 %p2, %rd1, 1;
  selp.b64 %rd11, %rd3, 0, %p2;
  add.s64 %rd12, %rd1, %rd11;
  add.s64 %rd13, %rd12, -1;
  mul.lo.s64 %rd14, %rd13, %rd4;
  add.s64 %rd15, %rd10, %rd14;
  shr.s64 %rd16, %rd1, 63;
  and.b64 %rd17, %rd16, %rd3;
  add.s64 %rd18, %rd17, %rd1;
  mul.lo.s64 %rd19, %rd18, %rd4;
  add.s64 %rd20, %rd10, %rd19;
  ld.global.f32 %f1, [%rd20];
  ld.global.f32 %f2, [%rd15];
  sub.f32 %f3, %f2, %f1;
  cvta.to.global.u64 %rd21, %rd5;
  add.s64 %rd23, %rd21, %rd19;
  st.global.f32 [%rd23], %f3;
$L_end:
  ret;
}
"#;

#[test]
fn numba_wrap_around_index_times_a_stride() {
    let n = 200;
    let launches: Vec<Hints> = shapes(n).into_iter().map(|h| h.scalar(3, 4)).collect();
    let (rep, text) = check(NUMBA_WRAP_SHIFT, &launches);
    let k = &rep.kernels[0];
    assert_eq!(k.shuffles, 1, "{k:#?}\n{text}");
    assert_eq!(k.deltas, vec![-1], "{k:#?}");
}
