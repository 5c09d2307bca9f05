//! Tensor copies (`cp.async.bulk.tensor`, tile mode) on the PTX emulator: a box loaded through a
//! tensor map into 128-byte-swizzled shared memory with elements outside the tensor zero-filled,
//! and stored back through another map that clips what lies outside; the errors for maps the
//! emulator did not write, rank mismatches and spec mistakes. Every kernel is also assembled by
//! ptxas for sm_90a (skipped, and said so, without ptxas).

mod common;

use warpsmith::emu::launch::{OutBuffer, RunOptions};
use warpsmith::emu::{run, EmuError, LaunchSpec};
use warpsmith::ptx::parse_module;
use warpsmith::sass::emu::SassProgram;
use warpsmith::tools::{self, Tool};

fn exec(text: &str, spec: &str) -> Result<Vec<OutBuffer>, EmuError> {
    let m = parse_module(text, "t.ptx").expect("test PTX parses");
    let spec = LaunchSpec::from_json(spec).expect("spec");
    let opts = RunOptions {
        file: "t.ptx".into(),
        ..RunOptions::default()
    };
    run(&m, &spec, &opts).map(|o| o.buffers)
}

/// Assembles `text` for sm_90a with ptxas (`common::assemble_cubin` fails the test if ptxas
/// refuses it); None, and said so, without ptxas.
fn assemble(text: &str) -> Option<Vec<u8>> {
    assemble_for(text, "sm_90a")
}

/// [`assemble`] for `arch`.
fn assemble_for(text: &str, arch: &str) -> Option<Vec<u8>> {
    let Ok(ptxas) = tools::find(Tool::Ptxas) else {
        eprintln!("SKIPPED (ptxas check): ptxas not found");
        return None;
    };
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("emu-tma-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let src = dir.join("k.ptx");
    std::fs::write(&src, text).expect("write PTX");
    let cubin = common::assemble_cubin(&ptxas, &src, arch, &[]);
    let _ = std::fs::remove_dir_all(&dir);
    Some(cubin)
}

/// Runs `text` on the PTX emulator and its sm_90a cubin on the SASS emulator with `spec`, and
/// asserts that every output byte is equal (skipped, and said so, without ptxas or nvdisasm).
fn sass_matches_ptx(text: &str, spec: &str) {
    sass_matches_ptx_on(text, spec, "sm_90a");
}

/// [`sass_matches_ptx`] with the cubin assembled for `arch`.
fn sass_matches_ptx_on(text: &str, spec: &str, arch: &str) {
    let Some(cubin) = assemble_for(text, arch) else {
        return;
    };
    if tools::find(Tool::Nvdisasm).is_err() {
        eprintln!("SKIPPED (SASS emulator): nvdisasm not found");
        return;
    }
    let want = exec(text, spec).unwrap_or_else(|e| panic!("PTX emulator: {e}"));
    let prog = SassProgram::from_cubin(&cubin).expect("cubin reads");
    let opts = RunOptions {
        file: "t.cubin".into(),
        ..RunOptions::default()
    };
    let got = warpsmith::sass::emu::run(&prog, &LaunchSpec::from_json(spec).expect("spec"), &opts)
        .unwrap_or_else(|e| panic!("SASS emulator: {e}"))
        .buffers;
    assert_eq!(want.len(), got.len());
    for (x, y) in want.iter().zip(&got) {
        assert_eq!(x.name, y.name);
        if let Some(at) = (0..x.data.len()).find(|&k| x.data[k] != y.data[k]) {
            panic!(
                "{}: byte {at} differs: ptx {} vs sass {}",
                x.name, x.data[at], y.data[at]
            );
        }
    }
}

/// 128 threads: thread 0 loads the 64×8 box of `map_in` at (c0, c1) into `tile` (64 f16 per row:
/// one 128-byte swizzle row), everyone waits on the mbarrier and dumps the tile's raw bytes
/// (8 per thread) to `dump`; then thread 0 stores the tile through `map_out` at (d0, d1).
const ROUND_TRIP: &str = r#"
.version 8.0
.target sm_90a
.address_size 64

.visible .entry tma_round_trip(
	.param .align 64 .b8 map_in[128],
	.param .align 64 .b8 map_out[128],
	.param .u64 dump,
	.param .s32 c0,
	.param .s32 c1,
	.param .s32 d0,
	.param .s32 d1
)
.reqntid 128
{
	.reg .pred 	%p<4>;
	.reg .b32 	%r<20>;
	.reg .b64 	%rd<10>;
	.shared .align 1024 .b8 tile[1024];
	.shared .align 8 .b64 bar;

	mov.u32 	%r0, %tid.x;
	mov.b64 	%rd1, map_in;
	cvta.param.u64 	%rd2, %rd1;
	mov.b64 	%rd3, map_out;
	cvta.param.u64 	%rd4, %rd3;
	ld.param.u64 	%rd5, [dump];
	cvta.to.global.u64 	%rd5, %rd5;
	ld.param.s32 	%r10, [c0];
	ld.param.s32 	%r11, [c1];
	ld.param.s32 	%r12, [d0];
	ld.param.s32 	%r13, [d1];
	mov.u32 	%r1, tile;
	mov.u32 	%r2, bar;
	setp.eq.u32 	%p1, %r0, 0;
	@%p1 mbarrier.init.shared::cta.b64 	[%r2], 1;
	bar.sync 	0;
	@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 	_, [%r2], 1024;
	@%p1 cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes 	[%r1], [%rd2, {%r10, %r11}], [%r2];
WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 	%p2, [%r2], 0;
	@!%p2 bra 	WAIT;
	shl.b32 	%r3, %r0, 3;
	add.s32 	%r4, %r1, %r3;
	ld.shared.u64 	%rd6, [%r4];
	mul.wide.u32 	%rd7, %r0, 8;
	add.s64 	%rd8, %rd5, %rd7;
	st.global.u64 	[%rd8], %rd6;
	fence.proxy.async.shared::cta;
	bar.sync 	0;
	@%p1 cp.async.bulk.tensor.2d.global.shared::cta.bulk_group 	[%rd4, {%r12, %r13}], [%r1];
	@%p1 cp.async.bulk.commit_group;
	@%p1 cp.async.bulk.wait_group.read 	0;
	ret;
}
"#;

/// The launch of [`ROUND_TRIP`]: a 40×20 u16 tensor holding its own element index, a 104×30
/// zero tensor, the box at (c0, c1) and the store at (d0, d1).
fn round_trip_spec(map_in: &str, c: (i32, i32), d: (i32, i32)) -> String {
    format!(
        r#"{{"kernel": "tma_round_trip", "grid": [1], "block": [128],
 "args": [{{"tensor_map": {map_in}}},
          {{"tensor_map": {{"type": "u16", "dims": [104, 30], "box": [64, 8], "swizzle": "128B"}}}},
          {{"buffer": {{"type": "u16", "len": 512}}}},
          {{"scalar": {{"type": "s32", "value": {}}}}}, {{"scalar": {{"type": "s32", "value": {}}}}},
          {{"scalar": {{"type": "s32", "value": {}}}}}, {{"scalar": {{"type": "s32", "value": {}}}}}]}}"#,
        c.0, c.1, d.0, d.1
    )
}

const MAP_IN: &str =
    r#"{"type": "u16", "dims": [40, 20], "box": [64, 8], "swizzle": "128B", "init": "iota"}"#;

fn halves(b: &[u8]) -> Vec<u16> {
    b.chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect()
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// The 128-byte swizzle of a byte offset in a 1024-byte aligned tile.
fn swizzled(offset: usize) -> usize {
    offset ^ (((offset >> 7) & 7) << 4)
}

#[test]
fn a_box_loads_swizzled_with_zero_fill_and_stores_clipped() {
    assemble(ROUND_TRIP);
    let (c, d) = ((-8, 16), (50, 25));
    let out = exec(ROUND_TRIP, &round_trip_spec(MAP_IN, c, d)).unwrap_or_else(|e| panic!("{e}"));
    let (input, stored, dump) = (
        halves(&out[0].data),
        halves(&out[1].data),
        halves(&out[2].data),
    );
    assert_eq!(input.len(), 40 * 20);
    // The tile: box element (x, y) at byte 2·(64·y + x), swizzled; outside the tensor it is 0.
    let mut tile = vec![0u16; 512];
    for y in 0..8 {
        for x in 0..64 {
            let (gx, gy) = (c.0 + x, c.1 + y);
            let inside = (0..40).contains(&gx) && (0..20).contains(&gy);
            let want = if inside { (gy * 40 + gx) as u16 } else { 0 };
            let at = swizzled(2 * (64 * y + x) as usize) / 2;
            assert_eq!(dump[at], want, "tile element ({x}, {y})");
            tile[(64 * y + x) as usize] = want;
        }
    }
    // The store: box element (x, y) to (50 + x, 25 + y) where that lies inside 104×30.
    for gy in 0..30 {
        for gx in 0..104 {
            let (x, y) = (gx - d.0, gy - d.1);
            let inside_box = (0..64).contains(&x) && (0..8).contains(&y);
            let want = if inside_box {
                tile[(64 * y + x) as usize]
            } else {
                0
            };
            assert_eq!(stored[(gy * 104 + gx) as usize], want, "({gx}, {gy})");
        }
    }
    assert!(stored.iter().any(|&v| v != 0), "the store wrote something");
}

#[test]
fn strided_tensors_and_unswizzled_boxes() {
    // Rows 96 bytes apart (40 elements used of 48), no swizzle: the tile is dense row-major.
    let map =
        r#"{"type": "u16", "dims": [40, 20], "strides": [96], "box": [64, 8], "init": "iota"}"#;
    let out =
        exec(ROUND_TRIP, &round_trip_spec(map, (0, 3), (0, 0))).unwrap_or_else(|e| panic!("{e}"));
    let input = halves(&out[0].data);
    assert_eq!(input.len(), 19 * 48 + 40, "the tensor's extent");
    let dump = halves(&out[2].data);
    for y in 0..8usize {
        for x in 0..64usize {
            let want = if x < 40 { input[(3 + y) * 48 + x] } else { 0 };
            assert_eq!(dump[64 * y + x], want, "({x}, {y})");
        }
    }
}

#[test]
fn maps_the_emulator_did_not_write_are_refused() {
    // The same 128 bytes given as a by-value aggregate of zeros: not a tensor map.
    let spec = round_trip_spec(MAP_IN, (0, 0), (0, 0)).replacen(
        &format!("{{\"tensor_map\": {MAP_IN}}}"),
        r#"{"byval": {"type": "u8", "len": 128}}"#,
        1,
    );
    let e = exec(ROUND_TRIP, &spec).expect_err("a zero map");
    let msg = e.to_string();
    assert!(matches!(e, EmuError::Fault { .. }), "{e:?}");
    assert!(msg.contains("not a tensor map the emulator wrote"), "{msg}");
    assert!(msg.contains("t.ptx:"), "no source location: {msg}");
    // A 3-dimensional map for a 2-dimensional copy.
    let map3 = r#"{"type": "u16", "dims": [40, 20, 2], "box": [64, 8, 1], "swizzle": "128B"}"#;
    let e = exec(ROUND_TRIP, &round_trip_spec(map3, (0, 0), (0, 0))).expect_err("rank");
    assert!(e.to_string().contains("tensor map of rank 3"), "{e}");
}

#[test]
fn tensor_map_spec_mistakes_are_spec_errors() {
    for (map, needle) in [
        (
            r#"{"type": "u16", "dims": [40, 20], "box": [64, 8], "swizzle": "64B"}"#,
            "swizzle",
        ),
        (
            r#"{"type": "u16", "dims": [40, 20], "box": [64]}"#,
            "box dimensions",
        ),
        (
            r#"{"type": "u16", "dims": [40, 20], "strides": [90], "box": [64, 8]}"#,
            "stride",
        ),
        (
            r#"{"type": "u16", "dims": [40, 20], "box": [64, 8], "oob_fill": "nan"}"#,
            "oob_fill",
        ),
        (
            r#"{"type": "u16", "dims": [40, 20], "box": [64, 8], "swizzle": "16B"}"#,
            "`swizzle` is",
        ),
    ] {
        let e = exec(ROUND_TRIP, &round_trip_spec(map, (0, 0), (0, 0))).expect_err(map);
        assert!(matches!(e, EmuError::Spec(_)), "{map}: {e:?}");
        assert!(
            e.to_string().contains(needle),
            "{map}: `{needle}` not in {e}"
        );
    }
    // A tensor map for the 64-bit `dump` parameter.
    let spec = round_trip_spec(MAP_IN, (0, 0), (0, 0)).replace(
        r#"{"buffer": {"type": "u16", "len": 512}}"#,
        &format!("{{\"tensor_map\": {MAP_IN}}}"),
    );
    let e = exec(ROUND_TRIP, &spec).expect_err("wrong parameter");
    assert!(e.to_string().contains("needs a 128-byte parameter"), "{e}");
}

#[test]
fn nan_fill_for_float_tensors() {
    let map = r#"{"type": "f16", "dims": [40, 20], "box": [64, 8], "swizzle": "128B", "oob_fill": "nan"}"#;
    let spec = round_trip_spec(map, (0, 19), (0, 0)).replace(
        r#"{"type": "u16", "dims": [104, 30]"#,
        r#"{"type": "f16", "dims": [104, 30]"#,
    );
    let out = exec(ROUND_TRIP, &spec).unwrap_or_else(|e| panic!("{e}"));
    let dump = halves(&out[2].data);
    // Row 19 is the tensor's last: box rows 1… and columns 40… read as NaN.
    assert_eq!(dump[swizzled(2 * 3) / 2], 0, "a zero element inside");
    assert_eq!(dump[swizzled(2 * 50) / 2], 0x7fff, "column 50 is outside");
    assert_eq!(
        dump[swizzled(2 * (64 + 3)) / 2],
        0x7fff,
        "row 20 is outside"
    );
}

/// Every mbarrier form and tensor-copy rank ptxas has a SASS form for, on both emulators: 128
/// threads; barrier A (count 1) takes thread 0's `arrive.expect_tx` and a 1-D and a 3-D load,
/// barrier B (count `n` from a parameter: ptxas computes the initialisation word at run time)
/// takes thread 0's `expect_tx` and a 5-D load, one `arrive` of every thread and one `arrive`
/// of 2 from thread 0; threads wait with `try_wait.parity`, `test_wait` and `try_wait` with a
/// state, then for barrier A's second phase, which thread 0 completes after a loop longer than
/// a scheduling quantum (a wait that returned early would miss its marker), dump the three tiles, and thread 0 stores them back elsewhere through the same maps
/// and invalidates both barriers. Each thread also writes `elect.sync`'s leader and predicate.
const FORMS: &str = r#"
.version 8.0
.target sm_90a
.address_size 64

.visible .entry tma_forms(
	.param .align 64 .b8 m1[128],
	.param .align 64 .b8 m3[128],
	.param .align 64 .b8 m5[128],
	.param .u64 dump,
	.param .u64 who,
	.param .u32 n
)
.reqntid 128
{
	.reg .pred 	%p<8>;
	.reg .b32 	%r<40>;
	.reg .b64 	%rd<20>;
	.shared .align 1024 .b8 tile[3072];
	.shared .align 8 .b64 bara;
	.shared .align 8 .b64 barb;

	mov.u32 	%r0, %tid.x;
	mov.b64 	%rd1, m1;
	cvta.param.u64 	%rd11, %rd1;
	mov.b64 	%rd3, m3;
	cvta.param.u64 	%rd13, %rd3;
	mov.b64 	%rd5, m5;
	cvta.param.u64 	%rd15, %rd5;
	ld.param.u32 	%r9, [n];
	mov.u32 	%r1, tile;
	mov.u32 	%r2, bara;
	mov.u32 	%r3, barb;
	setp.eq.u32 	%p1, %r0, 0;
	@%p1 mbarrier.init.shared::cta.b64 	[%r2], 1;
	@%p1 mbarrier.init.shared::cta.b64 	[%r3], %r9;
	bar.sync 	0;
	@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 	_, [%r2], 256;
	@%p1 mbarrier.expect_tx.relaxed.cta.shared::cta.b64 	[%r3], 256;
	mov.u32 	%r4, 36;
	mov.u32 	%r5, 2;
	mov.u32 	%r6, 3;
	mov.u32 	%r7, 1;
	mov.u32 	%r8, -1;
	@%p1 cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes 	[%r1], [%rd11, {%r4}], [%r2];
	add.u32 	%r10, %r1, 1024;
	@%p1 cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes 	[%r10], [%rd13, {%r5, %r8, %r6}], [%r2];
	add.u32 	%r11, %r1, 2048;
	@%p1 cp.async.bulk.tensor.5d.shared::cluster.global.mbarrier::complete_tx::bytes 	[%r11], [%rd15, {%r6, %r7, %r7, %r5, %r7}], [%r3];
	bar.sync 	0;
	mbarrier.arrive.shared::cta.b64 	%rd6, [%r3];
	@%p1 mbarrier.arrive.shared::cta.b64 	%rd7, [%r3], 2;
WAITA:
	mbarrier.try_wait.parity.shared::cta.b64 	%p2, [%r2], 0;
	@!%p2 bra 	WAITA;
WAITB:
	mbarrier.test_wait.shared::cta.b64 	%p3, [%r3], %rd6;
	@!%p3 bra 	WAITB;
WAITC:
	mbarrier.try_wait.shared::cta.b64 	%p4, [%r3], %rd6;
	@!%p4 bra 	WAITC;
	// Phase 1 of barrier A: thread 0 arrives only after a loop longer than the emulators'
	// scheduling quantum and a marker in shared memory; everyone waits for parity 1, then reads it.
	@!%p1 bra 	WAITD;
	mov.u32 	%r20, 0;
SPIN:
	add.u32 	%r20, %r20, 1;
	setp.lt.u32 	%p7, %r20, 6000;
	@%p7 bra 	SPIN;
	st.shared.u32 	[%r1+3064], %r20;
	mbarrier.arrive.shared::cta.b64 	%rd19, [%r2];
WAITD:
	mbarrier.try_wait.parity.shared::cta.b64 	%p6, [%r2], 1;
	@!%p6 bra 	WAITD;
	ld.shared.u32 	%r21, [%r1+3064];
	ld.param.u64 	%rd8, [dump];
	cvta.to.global.u64 	%rd8, %rd8;
	shl.b32 	%r12, %r0, 3;
	mul.wide.u32 	%rd9, %r0, 8;
	add.s64 	%rd10, %rd8, %rd9;
	add.s32 	%r13, %r1, %r12;
	ld.shared.u64 	%rd12, [%r13];
	st.global.u64 	[%rd10], %rd12;
	ld.shared.u64 	%rd12, [%r13+1024];
	st.global.u64 	[%rd10+1024], %rd12;
	ld.shared.u64 	%rd12, [%r13+2048];
	st.global.u64 	[%rd10+2048], %rd12;
	elect.sync 	%r14|%p5, -1;
	selp.u32 	%r15, 256, 0, %p5;
	add.u32 	%r16, %r15, %r14;
	add.u32 	%r16, %r16, %r21;
	ld.param.u64 	%rd16, [who];
	cvta.to.global.u64 	%rd16, %rd16;
	mul.wide.u32 	%rd17, %r0, 4;
	add.s64 	%rd18, %rd16, %rd17;
	st.global.u32 	[%rd18], %r16;
	fence.proxy.async.shared::cta;
	bar.sync 	0;
	@%p1 cp.async.bulk.tensor.1d.global.shared::cta.bulk_group 	[%rd11, {%r7}], [%r1];
	@%p1 cp.async.bulk.tensor.3d.global.shared::cta.bulk_group 	[%rd13, {%r7, %r5, %r7}], [%r10];
	@%p1 cp.async.bulk.tensor.5d.global.shared::cta.bulk_group 	[%rd15, {%r7, %r5, %r8, %r7, %r6}], [%r11];
	@%p1 cp.async.bulk.commit_group;
	@%p1 cp.async.bulk.wait_group.read 	0;
	@%p1 mbarrier.inval.shared::cta.b64 	[%r2];
	@%p1 mbarrier.inval.shared::cta.b64 	[%r3];
	ret;
}
"#;

/// The launch of [`FORMS`] (barrier B expects 128 + 2 arrivals).
const FORMS_SPEC: &str = r#"{"kernel": "tma_forms", "grid": [1], "block": [128],
 "args": [{"tensor_map": {"type": "u16", "dims": [100], "box": [64], "init": "iota"}},
          {"tensor_map": {"type": "u16", "dims": [24, 6, 5], "box": [16, 2, 2], "init": "iota"}},
          {"tensor_map": {"type": "u16", "dims": [16, 4, 3, 3, 3], "box": [8, 2, 2, 2, 2], "init": "iota"}},
          {"buffer": {"type": "u64", "len": 384}},
          {"buffer": {"type": "u32", "len": 128}},
          {"scalar": {"type": "u32", "value": 130}}]}"#;

#[test]
fn the_sass_emulator_runs_tensor_copies_and_mbarriers_as_the_ptx_emulator_does() {
    let out = exec(FORMS, FORMS_SPEC).unwrap_or_else(|e| panic!("{e}"));
    // The 1-D box from element 36: 36…99.
    let dump = halves(&out[3].data);
    assert!((0..64).all(|x| dump[x] == 36 + x as u16));
    // The 3-D box at (2, -1, 3): its first row (y = -1) is outside.
    assert!(dump[512..528].iter().all(|&v| v == 0));
    assert_eq!(dump[528], (3 * 6 * 24 + 2) as u16, "(2, 0, 3)");
    let who = words(&out[4].data);
    // elect.sync: lane 0 of each warp is the leader; everyone saw thread 0's marker (6000).
    assert!(who
        .iter()
        .enumerate()
        .all(|(t, &v)| v == 6000 + if t % 32 == 0 { 256 } else { 0 }));
    sass_matches_ptx(FORMS, FORMS_SPEC);
    sass_matches_ptx(ROUND_TRIP, &round_trip_spec(MAP_IN, (-8, 16), (50, 25)));
}

#[test]
fn the_sass_emulator_refuses_what_it_cannot_know() {
    // Barrier B's count below the arrivals: its phases complete early and the waits on the
    // states of later arrivals never end — both emulators stop with a deadlock.
    let spec = FORMS_SPEC.replace(r#""value": 130"#, r#""value": 2"#);
    let e = exec(FORMS, &spec).expect_err("count 2").to_string();
    assert!(e.contains("deadlock"), "{e}");
    let Some(cubin) = assemble(FORMS) else {
        return;
    };
    if tools::find(Tool::Nvdisasm).is_err() {
        eprintln!("SKIPPED (SASS emulator): nvdisasm not found");
        return;
    }
    let prog = SassProgram::from_cubin(&cubin).expect("cubin reads");
    let run = |spec: &str| {
        warpsmith::sass::emu::run(
            &prog,
            &LaunchSpec::from_json(spec).expect("spec"),
            &RunOptions::default(),
        )
        .map(|_| ())
        .expect_err("must stop")
        .to_string()
    };
    let e = run(&spec);
    assert!(
        e.contains("deadlock") && e.contains("waits on an mbarrier"),
        "{e}"
    );
    // A by-value aggregate where a tensor map belongs: not a map the emulator wrote.
    let spec = FORMS_SPEC.replacen(
        r#"{"tensor_map": {"type": "u16", "dims": [100], "box": [64], "init": "iota"}}"#,
        r#"{"byval": {"type": "u8", "len": 128}}"#,
        1,
    );
    let e = run(&spec);
    assert!(e.contains("not a tensor map the emulator wrote"), "{e}");
    assert!(e.contains("UTMALDG.1D"), "{e}");
}

/// A by-value parameter read through `cvta.param` (how Triton reaches its tensor maps): ptxas
/// adds the parameter's offset to `c[0x0][0x198]` on sm_90 and its bank offset to `c[0x0][0x40]`
/// on sm_80; the SASS emulator's launch gives both a generic address (before session 58 they
/// were 0 and the load faulted). Each thread reads one word of a 16-byte aggregate.
const BYVAL: &str = r#"
.version 8.0
.target sm_80
.address_size 64

.visible .entry byval(.param .u32 a, .param .align 8 .b8 s[16], .param .u64 out)
{
	.reg .b32 	%r<4>;
	.reg .b64 	%rd<10>;
	mov.b64 	%rd1, s;
	cvta.param.u64 	%rd2, %rd1;
	mov.u32 	%r1, %tid.x;
	and.b32 	%r2, %r1, 3;
	mul.wide.u32 	%rd3, %r2, 4;
	add.s64 	%rd4, %rd2, %rd3;
	ld.u32 	%r3, [%rd4];
	ld.param.u64 	%rd5, [out];
	mul.wide.u32 	%rd6, %r1, 4;
	add.s64 	%rd7, %rd5, %rd6;
	st.global.u32 	[%rd7], %r3;
	ret;
}
"#;

#[test]
fn by_value_parameters_have_a_generic_address_on_cubins() {
    let spec = r#"{"kernel": "byval", "grid": [1], "block": [32],
 "args": [{"scalar": {"type": "u32", "value": 7}},
          {"byval": {"type": "u32", "len": 4, "init": "iota"}},
          {"buffer": {"type": "u32", "len": 32}}]}"#;
    let out = exec(BYVAL, spec).unwrap_or_else(|e| panic!("{e}"));
    let got = words(&out[0].data);
    assert!(
        got.iter().enumerate().all(|(t, &v)| v == t as u32 % 4),
        "{got:?}"
    );
    sass_matches_ptx_on(BYVAL, spec, "sm_80");
    sass_matches_ptx_on(
        &BYVAL.replace(".target sm_80", ".target sm_90"),
        spec,
        "sm_90",
    );
}
