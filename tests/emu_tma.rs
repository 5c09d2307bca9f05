//! Tensor copies (`cp.async.bulk.tensor`, tile mode) on the PTX emulator: a box loaded through a
//! tensor map into 128-byte-swizzled shared memory with elements outside the tensor zero-filled,
//! and stored back through another map that clips what lies outside; the errors for maps the
//! emulator did not write, rank mismatches and spec mistakes. Every kernel is also assembled by
//! ptxas for sm_90a (skipped, and said so, without ptxas).

mod common;

use warpsmith::emu::launch::{OutBuffer, RunOptions};
use warpsmith::emu::{run, EmuError, LaunchSpec};
use warpsmith::ptx::parse_module;
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
/// refuses it); skipped, and said so, without ptxas.
fn ptxas_accepts(text: &str) {
    let Ok(ptxas) = tools::find(Tool::Ptxas) else {
        eprintln!("SKIPPED (ptxas check): ptxas not found");
        return;
    };
    let dir = std::env::temp_dir().join(format!("emu-tma-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let src = dir.join("k.ptx");
    std::fs::write(&src, text).expect("write PTX");
    common::assemble_cubin(&ptxas, &src, "sm_90a", &[]);
    let _ = std::fs::remove_dir_all(&dir);
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

/// The 128-byte swizzle of a byte offset in a 1024-byte aligned tile.
fn swizzled(offset: usize) -> usize {
    offset ^ (((offset >> 7) & 7) << 4)
}

#[test]
fn a_box_loads_swizzled_with_zero_fill_and_stores_clipped() {
    ptxas_accepts(ROUND_TRIP);
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
