//! Bad launch specs and misbehaving kernels give clear errors — naming the instruction
//! (`file:line`, its text, CTA and thread) where one is concerned — and never a panic or a wrong
//! answer.

use warpsmith::emu::equiv::{check, Verdict};
use warpsmith::emu::{run, EmuError, LaunchSpec, RunOptions};
use warpsmith::ptx::parse_module;

const SAXPY: &str = r#".version 8.0
.target sm_80
.address_size 64
.visible .entry saxpy(.param .u32 n, .param .f32 a, .param .u64 x, .param .u64 y)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<8>;
	.reg .b64 	%rd<8>;
	ld.param.u32 	%r1, [n];
	ld.param.f32 	%r2, [a];
	ld.param.u64 	%rd1, [x];
	ld.param.u64 	%rd2, [y];
	cvta.to.global.u64 	%rd1, %rd1;
	cvta.to.global.u64 	%rd2, %rd2;
	mov.u32 	%r3, %tid.x;
	mov.u32 	%r4, %ctaid.x;
	mov.u32 	%r5, %ntid.x;
	mad.lo.s32 	%r6, %r4, %r5, %r3;
	setp.ge.s32 	%p1, %r6, %r1;
	@%p1 bra 	$L_end;
	mul.wide.s32 	%rd3, %r6, 4;
	add.s64 	%rd4, %rd1, %rd3;
	ld.global.f32 	%r7, [%rd4];
	add.s64 	%rd5, %rd2, %rd3;
	ld.global.f32 	%r3, [%rd5];
	fma.rn.f32 	%r3, %r2, %r7, %r3;
	st.global.f32 	[%rd5], %r3;
$L_end:
	ret;
}
"#;

fn spec(json: &str) -> LaunchSpec {
    LaunchSpec::from_json(json).unwrap_or_else(|e| panic!("{e}"))
}

fn run_text(text: &str, s: &LaunchSpec) -> Result<warpsmith::emu::RunOutput, EmuError> {
    let m = parse_module(text, "t.ptx").expect("parses");
    run(
        &m,
        s,
        &RunOptions {
            file: "t.ptx".into(),
            ..RunOptions::default()
        },
    )
}

fn saxpy_spec(n: i64, xlen: u64, ylen: u64) -> LaunchSpec {
    spec(&format!(
        r#"{{"kernel":"saxpy","grid":[2],"block":[48],"args":[
            {{"scalar":{{"type":"s32","value":{n}}}}},
            {{"scalar":{{"type":"f32","value":2.0}}}},
            {{"buffer":{{"type":"f32","len":{xlen},"init":"random"}}}},
            {{"buffer":{{"type":"f32","len":{ylen},"init":"iota"}}}}]}}"#
    ))
}

fn err_of(text: &str, s: &LaunchSpec) -> EmuError {
    match run_text(text, s) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e,
    }
}

#[test]
fn saxpy_runs_with_a_good_spec() {
    let out = run_text(SAXPY, &saxpy_spec(90, 96, 96)).expect("runs");
    assert_eq!(out.buffers.len(), 2);
    assert!(out.stats.lane_insts > 0);
}

#[test]
fn wrong_argument_count() {
    let s = spec(
        r#"{"kernel":"saxpy","grid":[1],"block":[32],"args":[{"scalar":{"type":"s32","value":1}}]}"#,
    );
    let e = err_of(SAXPY, &s);
    assert!(matches!(e, EmuError::Spec(_)), "{e}");
    assert!(
        e.to_string().contains("has 4 parameters, the spec gives 1"),
        "{e}"
    );
}

#[test]
fn argument_kinds_and_types_are_checked() {
    // A buffer for the 32-bit `n`.
    let s = spec(
        r#"{"kernel":"saxpy","grid":[1],"block":[32],"args":[
        {"buffer":{"type":"f32","len":4}},{"scalar":{"type":"f32","value":1}},
        {"buffer":{"type":"f32","len":4}},{"buffer":{"type":"f32","len":4}}]}"#,
    );
    let e = err_of(SAXPY, &s).to_string();
    assert!(
        e.contains("argument 0") && e.contains("64-bit pointer"),
        "{e}"
    );
    // An f64 scalar for the .f32 `a`.
    let s = spec(
        r#"{"kernel":"saxpy","grid":[1],"block":[32],"args":[
        {"scalar":{"type":"s32","value":1}},{"scalar":{"type":"f64","value":1}},
        {"buffer":{"type":"f32","len":4}},{"buffer":{"type":"f32","len":4}}]}"#,
    );
    let e = err_of(SAXPY, &s).to_string();
    assert!(e.contains("argument 1") && e.contains("8 bytes"), "{e}");
    // An s32 scalar for the .f32 `a`.
    let s = spec(
        r#"{"kernel":"saxpy","grid":[1],"block":[32],"args":[
        {"scalar":{"type":"s32","value":1}},{"scalar":{"type":"s32","value":1}},
        {"buffer":{"type":"f32","len":4}},{"buffer":{"type":"f32","len":4}}]}"#,
    );
    let e = err_of(SAXPY, &s).to_string();
    assert!(e.contains("s32 scalar for a .f32 parameter"), "{e}");
}

#[test]
fn malformed_specs() {
    for (json, needle) in [
        (
            r#"{"kernel":"saxpy","grid":[1],"block":[32],"args":[],"extra":1}"#,
            "unknown field",
        ),
        (
            r#"{"kernel":"saxpy","grid":[1],"block":[32]"#,
            "invalid JSON",
        ),
        (
            r#"{"kernel":"saxpy","grid":[1],"block":[32],"args":[{"tensor":{}}]}"#,
            "unknown variant",
        ),
        (
            r#"{"kernel":"saxpy","grid":[1],"block":"x","args":[]}"#,
            "invalid",
        ),
    ] {
        let e = LaunchSpec::from_json(json).unwrap_err().to_string();
        assert!(e.contains(needle), "{json}: {e}");
    }
    let bad_shapes = [
        (
            r#"{"kernel":"saxpy","grid":[0],"block":[32],"args":[]}"#,
            "zero dimension",
        ),
        (
            r#"{"kernel":"saxpy","grid":[1],"block":[64,32],"args":[]}"#,
            "at most 1024",
        ),
        (
            r#"{"kernel":"saxpy","grid":[1,1,1,1],"block":[32],"args":[]}"#,
            "1 to 3 numbers",
        ),
        (
            r#"{"kernel":"nope","grid":[1],"block":[32],"args":[]}"#,
            "no kernel `nope`",
        ),
    ];
    for (json, needle) in bad_shapes {
        let e = err_of(SAXPY, &spec(json)).to_string();
        assert!(e.contains(needle), "{json}: {e}");
    }
    // Initialisers.
    let mk = |init: &str| {
        spec(&format!(
            r#"{{"kernel":"saxpy","grid":[1],"block":[32],"args":[
            {{"scalar":{{"type":"s32","value":1}}}},{{"scalar":{{"type":"f32","value":1}}}},
            {{"buffer":{{"type":"f32","len":2,"init":{init}}}}},{{"buffer":{{"type":"f32","len":4}}}}]}}"#
        ))
    };
    assert!(err_of(SAXPY, &mk("[1,2,3]"))
        .to_string()
        .contains("3 initial values for a buffer of 2"));
    assert!(err_of(SAXPY, &mk("\"gaussian\""))
        .to_string()
        .contains("unknown init `gaussian`"));
    assert!(err_of(SAXPY, &mk("[\"x\"]"))
        .to_string()
        .contains("not a valid f32 value"));
}

#[test]
fn too_small_buffer_is_an_out_of_bounds_error_naming_the_instruction() {
    let e = err_of(SAXPY, &saxpy_spec(90, 64, 96));
    let msg = e.to_string();
    assert!(matches!(e, EmuError::Fault { .. }), "{msg}");
    assert!(msg.contains("t.ptx:23"), "{msg}");
    assert!(msg.contains("ld.global.f32"), "{msg}");
    assert!(
        msg.contains("out-of-bounds global access of 4 bytes"),
        "{msg}"
    );
    assert!(msg.contains("past the end of `arg2`"), "{msg}");
    assert!(
        msg.contains("thread (16,0,0)") && msg.contains("CTA (1,0,0)"),
        "{msg}"
    );
}

fn body_kernel(body: &str) -> String {
    format!(
        r#".version 8.0
.target sm_80
.address_size 64
.const .align 4 .u32 cvar[2] = {{1, 2}};
.visible .entry k(.param .u64 out)
{{
	.reg .pred 	%p<8>;
	.reg .b32 	%r<16>;
	.reg .b64 	%rd<16>;
	ld.param.u64 	%rd0, [out];
	cvta.to.global.u64 	%rd0, %rd0;
	mov.u32 	%r0, %tid.x;
{body}
	ret;
}}
"#
    )
}

fn k_spec(block: u32, extra: &str) -> LaunchSpec {
    spec(&format!(
        r#"{{"kernel":"k","grid":[1],"block":[{block}],"args":[{{"buffer":{{"type":"u32","len":64}}}}]{extra}}}"#
    ))
}

#[test]
fn null_and_misaligned_and_read_only_accesses() {
    let e = err_of(
        &body_kernel("mov.u64 %rd1, 0;\n ld.u32 %r1, [%rd1];"),
        &k_spec(1, ""),
    )
    .to_string();
    assert!(
        e.contains("not in any state space") && e.contains("null"),
        "{e}"
    );
    let e = err_of(&body_kernel("ld.global.u32 %r1, [%rd0+2];"), &k_spec(1, "")).to_string();
    assert!(
        e.contains("misaligned global access") && e.contains("4-byte alignment"),
        "{e}"
    );
    let e = err_of(
        &body_kernel("ld.global.v4.u32 {%r1,%r2,%r3,%r4}, [%rd0+8];"),
        &k_spec(1, ""),
    )
    .to_string();
    assert!(e.contains("16-byte alignment"), "{e}");
    let e = err_of(&body_kernel("st.const.u32 [cvar], %r0;"), &k_spec(1, "")).to_string();
    assert!(e.contains("read-only const"), "{e}");
    let e = err_of(&body_kernel("st.shared.u32 [%r0], %r0;"), &k_spec(1, "")).to_string();
    assert!(
        e.contains("out-of-bounds shared access") && e.contains("0 bytes"),
        "{e}"
    );
}

#[test]
fn barrier_deadlocks_are_reported() {
    // Warp 0 waits at barrier 0, warp 1 at barrier 1: neither completes.
    let body = "setp.lt.u32 %p1, %r0, 32;\n @%p1 bra $L_a;\n bar.sync 1;\n bra.uni $L_b;\n $L_a:\n bar.sync 0;\n $L_b:";
    let e = err_of(&body_kernel(body), &k_spec(64, ""));
    let msg = e.to_string();
    assert!(matches!(e, EmuError::Deadlock { .. }), "{msg}");
    assert!(
        msg.contains("warp 0 waits at barrier 0") && msg.contains("warp 1 waits at barrier 1"),
        "{msg}"
    );
    // A count that can never be reached.
    let e = err_of(&body_kernel("bar.sync 0, 64;"), &k_spec(32, ""));
    assert!(matches!(e, EmuError::Deadlock { .. }), "{e}");
    // A warp diverged at a barrier: the waiting half lets its sibling path run, so both halves
    // arrive (what independent thread scheduling gives on sm_70+).
    let body = "setp.lt.u32 %p1, %r0, 16;\n @%p1 bra $L_a;\n bar.sync 0;\n bra.uni $L_b;\n $L_a:\n bar.sync 0;\n $L_b:\n st.global.u32 [%rd0], %r0;";
    assert!(run_text(&body_kernel(body), &k_spec(32, "")).is_ok());
    // Three sibling paths of nested branches that share a reconvergence point arrive too.
    let body = "setp.lt.u32 %p1, %r0, 16;\n @%p1 bra $L_a;\n setp.lt.u32 %p2, %r0, 24;\n @%p2 bra $L_c;\n bar.sync 0;\n bra.uni $L_b;\n $L_c:\n bar.sync 0;\n bra.uni $L_b;\n $L_a:\n bar.sync 0;\n $L_b:";
    assert!(run_text(&body_kernel(body), &k_spec(32, "")).is_ok());
    // Threads that exited do not count: the others pass.
    let body = "setp.lt.u32 %p1, %r0, 40;\n @%p1 bra $L_a;\n exit;\n $L_a:\n bar.sync 0;\n st.global.u32 [%rd0], %r0;";
    assert!(run_text(&body_kernel(body), &k_spec(64, "")).is_ok());
}

#[test]
fn independent_thread_scheduling_is_a_limit_not_a_wrong_answer() {
    // An intra-warp spin lock: lane 0 takes the lock, the others spin; with IPDOM reconvergence
    // lane 0 waits for them at the loop exit and never releases it.
    let body = "$L_spin:\n atom.global.cas.b32 %r1, [%rd0], 0, 1;\n setp.ne.u32 %p1, %r1, 0;\n @%p1 bra $L_spin;\n atom.global.exch.b32 %r2, [%rd0], 0;";
    let e = err_of(
        &body_kernel(body),
        &k_spec(32, r#","max_instructions":20000"#),
    );
    let msg = e.to_string();
    assert!(matches!(e, EmuError::Limit { .. }), "{msg}");
    assert!(
        msg.contains("instruction budget") && msg.contains("independent thread scheduling"),
        "{msg}"
    );
    // shfl.sync naming lanes that are on the other side of a branch.
    let body = "setp.lt.u32 %p1, %r0, 16;\n @%p1 bra $L_a;\n shfl.sync.bfly.b32 %r1, %r0, 1, 31, -1;\n $L_a:";
    let e = err_of(&body_kernel(body), &k_spec(32, "")).to_string();
    assert!(e.contains("alive but not executing"), "{e}");
    // A lane outside the member mask executing a .sync instruction is a fault.
    let e = err_of(
        &body_kernel("vote.sync.any.pred %p1, %p2, 1;"),
        &k_spec(32, ""),
    )
    .to_string();
    assert!(e.contains("excludes them"), "{e}");
}

#[test]
fn unsupported_instructions_stop_only_when_executed() {
    let body = "setp.eq.u32 %p1, %r0, 100;\n @!%p1 bra $L_skip;\n tex.2d.v4.f32.f32 {%r1,%r2,%r3,%r4}, [%rd1, {%r5, %r6}];\n $L_skip:\n st.global.u32 [%rd0], %r0;";
    assert!(run_text(&body_kernel(body), &k_spec(32, "")).is_ok());
    let body = "tex.2d.v4.f32.f32 {%r1,%r2,%r3,%r4}, [%rd1, {%r5, %r6}];";
    let e = err_of(&body_kernel(body), &k_spec(32, ""));
    let msg = e.to_string();
    assert!(matches!(e, EmuError::Unsupported { .. }), "{msg}");
    assert!(msg.starts_with("unsupported instruction `tex.2d"), "{msg}");
    assert!(
        msg.contains("` at t.ptx:13 (CTA (0,0,0), warp 0): "),
        "{msg}"
    );
}

#[test]
fn trap_is_a_fault() {
    let body = "setp.eq.u32 %p1, %r0, 5;\n @%p1 trap;";
    let e = err_of(&body_kernel(body), &k_spec(32, "")).to_string();
    assert!(
        e.contains("trap executed") && e.contains("thread (5,0,0)"),
        "{e}"
    );
}

#[test]
fn equiv_reports_the_first_difference_and_faults() {
    let a = parse_module(SAXPY, "a.ptx").expect("parses");
    let b_text = SAXPY.replace(
        "fma.rn.f32 \t%r3, %r2, %r7, %r3;",
        "fma.rn.f32 \t%r3, %r2, %r7, %r2;",
    );
    assert_ne!(b_text, SAXPY);
    let b = parse_module(&b_text, "b.ptx").expect("parses");
    let s = saxpy_spec(90, 96, 96);
    let same = check(&a, &a, &s, 3).expect("runs");
    assert!(same.is_equal());
    assert_eq!(same.seeds_run, 3);
    let r = check(&a, &b, &s, 2).expect("runs");
    let Verdict::Differ(d) = &r.verdict else {
        panic!("expected a difference, got {:?}", r.verdict)
    };
    assert_eq!(d.buffer, "arg3");
    assert_eq!(d.seed, 0);
    assert!(d.count > 0);
    // A rewritten kernel that runs out of bounds differs (the reference does not).
    let c_text = SAXPY.replace(
        "mul.wide.s32 \t%rd3, %r6, 4;",
        "mul.wide.s32 \t%rd3, %r6, 8;",
    );
    let c = parse_module(&c_text, "c.ptx").expect("parses");
    let r = check(&a, &c, &s, 1).expect("runs");
    assert!(
        matches!(r.verdict, Verdict::SecondFailed { .. }),
        "{:?}",
        r.verdict
    );
    // A faulting reference is an error.
    assert!(check(&c, &a, &s, 1).is_err());
}

#[test]
fn seeds_change_random_inputs_only() {
    let s = saxpy_spec(90, 96, 96);
    let s1 = s.with_seed_offset(1);
    let m = parse_module(SAXPY, "t.ptx").expect("parses");
    let o = RunOptions::default();
    let r0 = run(&m, &s, &o).expect("runs");
    let r1 = run(&m, &s1, &o).expect("runs");
    assert_ne!(r0.buffers[0].data, r1.buffers[0].data, "random x changes");
    let r0b = run(&m, &s, &o).expect("runs");
    assert_eq!(
        r0.buffers[1].data, r0b.buffers[1].data,
        "runs are deterministic"
    );
}

#[test]
fn spec_for_builds_runnable_specs() {
    use warpsmith::emu::{spec_for, Hints};
    let m = parse_module(SAXPY, "t.ptx").expect("parses");
    let f = m.function("saxpy").expect("kernel");
    let s = spec_for(
        f,
        &Hints::new().grid(&[2]).block(&[48]).len(96).scalar(0, 90),
    )
    .expect("spec");
    assert_eq!(s.args.len(), 4);
    let out = run(&m, &s, &RunOptions::default()).expect("runs");
    assert_eq!(out.buffers.len(), 2);
    assert_eq!(out.buffers[1].data.len(), 96 * 4);
    // The JSON form round-trips.
    let back = LaunchSpec::from_json(&s.to_json()).expect("parses back");
    assert_eq!(back, s);
}

#[test]
fn resource_limits_are_errors_not_crashes() {
    let huge_global = ".version 8.0\n.target sm_80\n.address_size 64\n.global .b8 g[1000000000000];\n.visible .entry k(.param .u64 out)\n{\n\tret;\n}\n";
    let e = err_of(huge_global, &k_spec(1, "")).to_string();
    assert!(e.contains("`g` has 1000000000000 bytes"), "{e}");
    let huge_local = body_kernel("").replace(
        "\t.reg .pred",
        "\t.local .align 4 .b8 depot[4000000];\n\t.reg .pred",
    );
    let e = err_of(&huge_local, &k_spec(1, "")).to_string();
    assert!(e.contains("4000000 bytes of local memory"), "{e}");
    let big_shared = body_kernel("").replace(
        "\t.reg .pred",
        "\t.shared .align 4 .b8 tile[300000];\n\t.reg .pred",
    );
    let e = err_of(&big_shared, &k_spec(1, "")).to_string();
    assert!(e.contains("exceed 227 KiB"), "{e}");
    let s = spec(
        r#"{"kernel":"k","grid":[1],"block":[1],"args":[{"buffer":{"type":"u64","len":4000000000}}]}"#,
    );
    let e = err_of(&body_kernel(""), &s).to_string();
    assert!(e.contains("too large"), "{e}");
}

#[test]
fn lanes_waiting_at_a_barrier_do_not_reconverge_past_it() {
    // Lanes 0..15 reach a barrier right before the join; lanes 16..31 never reach any barrier.
    // Warp 1 (lanes 32..63) waits at the barrier too. Nothing may pass: a deadlock, not lanes
    // 0..15 slipping through the join.
    let body = "setp.lt.u32 %p1, %r0, 16;\n setp.ge.u32 %p2, %r0, 32;\n @%p2 bra $L_w1;\n @!%p1 bra $L_b;\n bar.sync 0;\n $L_b:\n st.global.u32 [%rd0], %r0;\n bra.uni $L_end;\n $L_w1:\n bar.sync 0;\n $L_end:";
    let e = err_of(&body_kernel(body), &k_spec(64, ""));
    assert!(matches!(e, EmuError::Deadlock { .. }), "{e}");
}
