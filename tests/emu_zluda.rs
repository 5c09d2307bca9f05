//! Conformance against real NVIDIA hardware results: the ZLUDA project's PTX tests
//! (`../shared/corpus/zluda-ptx/ptx/src/test/spirv_run/*.ptx`, Apache-2.0/MIT) run each kernel on
//! a GPU through the CUDA driver and compare with expected output values kept in ZLUDA's
//! `ptx/src/test/spirv_run/mod.rs`. The inputs and expected outputs below are transcribed from
//! that file; the launch convention is ZLUDA's: grid 1, block 1 (64 for the warp tests), 1024
//! bytes of dynamic shared memory, parameters `(input, output)` or `(output)`, output zeroed.
//!
//! Skipped (printed) when the corpus is not beside the checkout.

use std::path::PathBuf;

use warpsmith::emu::launch::{ArgSpec, BufferSpec, ElemType, InitSpec};
use warpsmith::emu::{run, LaunchSpec, RunOptions};
use warpsmith::ptx::parse_module;

fn bytes<T: Copy, const N: usize>(v: &[T], f: impl Fn(T) -> [u8; N]) -> Vec<u8> {
    v.iter().flat_map(|&x| f(x)).collect()
}
fn u8v(v: &[u8]) -> Vec<u8> {
    v.to_vec()
}
fn u16v(v: &[u16]) -> Vec<u8> {
    bytes(v, u16::to_le_bytes)
}
fn i16v(v: &[i16]) -> Vec<u8> {
    bytes(v, i16::to_le_bytes)
}
fn u32v(v: &[u32]) -> Vec<u8> {
    bytes(v, u32::to_le_bytes)
}
fn i32v(v: &[i32]) -> Vec<u8> {
    bytes(v, i32::to_le_bytes)
}
fn u64v(v: &[u64]) -> Vec<u8> {
    bytes(v, u64::to_le_bytes)
}
fn i64v(v: &[i64]) -> Vec<u8> {
    bytes(v, i64::to_le_bytes)
}
fn f32v(v: &[f32]) -> Vec<u8> {
    bytes(v, f32::to_le_bytes)
}
fn f64v(v: &[f64]) -> Vec<u8> {
    bytes(v, f64::to_le_bytes)
}

struct Case {
    name: &'static str,
    input: Option<Vec<u8>>,
    output: Vec<u8>,
    block: u32,
}

fn c(name: &'static str, input: Vec<u8>, output: Vec<u8>) -> Case {
    Case {
        name,
        input: Some(input),
        output,
        block: 1,
    }
}

fn warp(name: &'static str, output: Vec<u8>) -> Case {
    Case {
        name,
        input: None,
        output,
        block: 64,
    }
}

fn cases() -> Vec<Case> {
    let nan = f32::NAN;
    let h_nan = 0x7e00u16;
    vec![
        c("ld_st", u64v(&[1]), u64v(&[1])),
        c("ld_st_implicit", f32v(&[0.5, 0.25]), f32v(&[0.5])),
        c("mov", u64v(&[1]), u64v(&[1])),
        c("mul_lo", u64v(&[1]), u64v(&[2])),
        c("mul_hi", u64v(&[u64::MAX]), u64v(&[1])),
        c("add", u64v(&[1]), u64v(&[2])),
        c("exit", u64v(&[1]), u64v(&[2])),
        c(
            "add_extended",
            u32v(&[0xFFFF_FFFF, 0xFFFF_FFFF, 0xFFFF_FFFF, 0, 1, 0, 0, 0]),
            u32v(&[0, 0, 0, 1]),
        ),
        c(
            "sub_extended",
            u32v(&[0, 0, 0, 1, 1, 0, 0, 0]),
            u32v(&[0xFFFF_FFFF, 0xFFFF_FFFF, 0xFFFF_FFFF, 0]),
        ),
        c(
            "mad_extended",
            u32v(&[0xFFFF_FFFF, 2, 1, 1, 2, 0]),
            u32v(&[0xFFFF_FFFF, 0xFFFF_FFFF, 0, 0xFFFF_FFFF]),
        ),
        c(
            "addc_cc_s32",
            u32v(&[0x62D0_B1FD, 0xB632_D4DF]),
            u64v(&[0x0001_1903_86DD]),
        ),
        c(
            "subc_cc_s32",
            u32v(&[0x627A_DF75, 0x864C_CEF5]),
            u64v(&[3_694_006_400]),
        ),
        c(
            "mul24_lo_u32",
            u32v(&[0b01110101_01010101_01010101]),
            u32v(&[0b00011100_00100011_10001110_00111001]),
        ),
        c(
            "mul24_hi_u32",
            u32v(&[0b01110101_01010101_01010101]),
            u32v(&[0b00110101_11000111_00011100_00100011]),
        ),
        c(
            "mul24_lo_s32",
            i32v(&[0b01110101_01010101_01010101]),
            i32v(&[-0b0011100_00100011_10001110_00111001]),
        ),
        c(
            "mul24_hi_s32",
            i32v(&[0b01110101_01010101_01010101]),
            i32v(&[-0b0110101_11000111_00011100_00100100]),
        ),
        c("setp", u64v(&[10, 11]), u64v(&[1, 0])),
        c("setp_gt", f32v(&[nan, 1.0]), f32v(&[1.0])),
        c("setp_leu", f32v(&[1.0, nan]), f32v(&[1.0])),
        c("setp_bool_and", u32v(&[1, 2, 0]), u32v(&[1])),
        c("bra", u64v(&[10]), u64v(&[11])),
        c("not", u64v(&[0]), u64v(&[u64::MAX])),
        c("shl", u64v(&[11]), u64v(&[44])),
        c(
            "cvt_pack",
            i32v(&[-257, 257, -130_436_883]),
            u32v(&[2_968_322_303, 2_968_354_943]),
        ),
        c("cvt_sat_s_u", i32v(&[-1]), i32v(&[0])),
        c("cvta", f32v(&[3.0]), f32v(&[3.0])),
        c("block", u64v(&[1]), u64v(&[2])),
        c("local_align", u64v(&[1]), u64v(&[1])),
        c("call", u64v(&[1]), u64v(&[2])),
        c("vector", u32v(&[1, 2]), u32v(&[3, 3])),
        c("vector4", u32v(&[1, 2, 3, 4]), u32v(&[4])),
        c("vector8", u32v(&[1, 2, 3, 4, 5, 6, 7, 8]), u32v(&[8])),
        c("ld_st_offset", u32v(&[1, 2]), u32v(&[2, 1])),
        c("ntid", u32v(&[3]), u32v(&[4])),
        c("reg_local", u64v(&[12]), u64v(&[13])),
        c("reg_multi", u32v(&[123, 456]), u32v(&[123, 456])),
        c("mov_address", u64v(&[0xDEAD]), u64v(&[0])),
        c("b64tof64", u64v(&[111]), u64v(&[111])),
        c("pred_not", u64v(&[10, 11]), u64v(&[2, 0])),
        c("mad_s32", i32v(&[2, 3, 4]), i32v(&[10])),
        c("mad_wide", i32v(&[-1, 3, 4, 5]), i64v(&[21_474_836_481])),
        c(
            "mul_wide",
            i64v(&[0x0100_0000_0100_0000]),
            i64v(&[0x1_00_00_00_00_00_00]),
        ),
        c("vector_extract", u8v(&[1, 2, 3, 4]), u8v(&[3, 4, 1, 2])),
        c(
            "vector8_extract",
            u8v(&[1, 2, 3, 4, 5, 6, 7, 8]),
            u8v(&[8, 1, 2, 3, 4, 5, 6, 7]),
        ),
        c("vector_operand", u16v(&[0x1234]), u32v(&[0x1234_5678])),
        c("shr", i32v(&[-2]), i32v(&[-1])),
        c("shr_oob", i16v(&[-32768]), i16v(&[-1])),
        c("or", u64v(&[1, 2]), u64v(&[3])),
        c("sub", u64v(&[2]), u64v(&[1])),
        c("min", i32v(&[555, 444]), i32v(&[444])),
        c("max", i32v(&[555, 444]), i32v(&[555])),
        c("min_f16", u16v(&[h_nan, 0x57b0]), u16v(&[0x57b0])),
        c("global_array", u32v(&[0xDEAD]), u32v(&[1])),
        c("global_array_f32", i32v(&[0]), f32v(&[0.0])),
        c("extern_shared", u64v(&[127]), u64v(&[127])),
        c("extern_shared_call", u64v(&[121]), u64v(&[123])),
        c("rcp", f32v(&[2.0]), f32v(&[0.5])),
        c(
            "mul_ftz",
            u32v(&[0x8040_0000, 0x3f00_0000]),
            u32v(&[0x8000_0000]),
        ),
        c(
            "mul_non_ftz",
            u32v(&[0x8040_0000, 0x3f00_0000]),
            u32v(&[0x8020_0000]),
        ),
        c("constant_f32", f32v(&[10.0]), f32v(&[5.0])),
        c("abs", i32v(&[i32::MIN]), i32v(&[i32::MIN])),
        c("constant_negative", i32v(&[-101]), i32v(&[101])),
        c("and", u32v(&[6, 3]), u32v(&[2])),
        c("selp", u16v(&[100, 200]), u16v(&[200])),
        c("selp_true", u16v(&[100, 200]), u16v(&[100])),
        c("fma", f32v(&[2.0, 3.0, 5.0]), f32v(&[11.0])),
        c(
            "fma_bf16x2",
            u32v(&[0x4000_4040, 0x4040_4080, 0x40A0_4040]),
            u32v(&[0x4130_4170]),
        ),
        c(
            "fma_f16x2",
            u32v(&[0x4000_4040, 0x4040_4080, 0x40A0_4040]),
            u32v(&[1_183_860_456]),
        ),
        c("shared_variable", u64v(&[513]), u64v(&[513])),
        c("shared_ptr_32", u64v(&[513]), u64v(&[513])),
        c("atom_cas", u32v(&[91, 91]), u32v(&[91, 100])),
        c("atom_inc", u32v(&[100]), u32v(&[100, 101, 0])),
        c("atom_add", u32v(&[2, 4]), u32v(&[2, 6])),
        c("div_approx", f32v(&[1.0, 2.0]), f32v(&[0.5])),
        c("sqrt", f32v(&[0.25]), f32v(&[0.5])),
        c("sqrt_rn_ftz", u32v(&[1]), u32v(&[0])),
        c("rsqrt", f64v(&[0.25]), f64v(&[2.0])),
        c("neg", i32v(&[181]), i32v(&[-181])),
        c("sin", f32v(&[std::f32::consts::PI / 2.0]), f32v(&[1.0])),
        c("cos", f32v(&[std::f32::consts::PI]), f32v(&[-1.0])),
        c("lg2", f32v(&[512.0]), f32v(&[9.0])),
        c("ex2", f32v(&[10.0]), f32v(&[1024.0])),
        c("fmax", u16v(&[0, h_nan]), u16v(&[0])),
        c("cvt_rni", f32v(&[9.5, 10.5]), f32v(&[10.0, 10.0])),
        c("cvt_rzi", f32v(&[-13.8, 12.9]), f32v(&[-13.0, 12.0])),
        c("cvt_s32_f32", f32v(&[-13.8, 12.9]), i32v(&[-13, 13])),
        c("cvt_rni_u16_f32", u32v(&[0x477F_FF80]), u16v(&[65535])),
        c(
            "cvt_rn_bf16x2_f32",
            f32v(&[0.40625, 12.9]),
            u32v(&[0x3ED0_414E]),
        ),
        c(
            "clz",
            u32v(&[0b00000101_00101101_00010011_10101011]),
            u32v(&[5]),
        ),
        c(
            "popc",
            u32v(&[0b10111100_10010010_01001001_10001010]),
            u32v(&[14]),
        ),
        c(
            "brev",
            u32v(&[0b11000111_01011100_10101110_11111011]),
            u32v(&[0b11011111_01110101_00111010_11100011]),
        ),
        c(
            "xor",
            u32v(&[
                0b01010010_00011010_01000000_00001101,
                0b11100110_10011011_00001100_00100011,
            ]),
            u32v(&[0b10110100100000010100110000101110]),
        ),
        c("rem", i32v(&[21692, 13]), i32v(&[8])),
        c(
            "bfe",
            u32v(&[0b11111000_11000001_00100010_10100000, 16, 8]),
            u32v(&[0b11000001]),
        ),
        c("bfi", u32v(&[0b10, 0b101, 0, 2]), u32v(&[0b110])),
        c("bmsk_clamp_b32", u32v(&[24, 12]), u32v(&[0xFF00_0000])),
        c("stateful_ld_st_simple", u64v(&[121]), u64v(&[121])),
        c("stateful_ld_st_ntid", u64v(&[123]), u64v(&[123])),
        c("stateful_ld_st_ntid_chain", u64v(&[12651]), u64v(&[12651])),
        c("stateful_ld_st_ntid_sub", u64v(&[96311]), u64v(&[96311])),
        c(
            "shared_ptr_take_address",
            u64v(&[97_815_231]),
            u64v(&[97_815_231]),
        ),
        c("cvt_s64_s32", i32v(&[-1]), i64v(&[-1])),
        c("add_tuning", u64v(&[2]), u64v(&[3])),
        c("add_non_coherent", u64v(&[3]), u64v(&[4])),
        c("sign_extend", i16v(&[-1]), i32v(&[-1])),
        c("atom_add_float", f32v(&[1.25, 0.5]), f32v(&[1.25, 1.75])),
        c(
            "setp_nan",
            f32v(&[0.5, nan, nan, 0.5, nan, nan, 0.5, 0.5]),
            u32v(&[1, 1, 1, 0]),
        ),
        c(
            "setp_num",
            f32v(&[0.5, nan, nan, 0.5, nan, nan, 0.5, 0.5]),
            u32v(&[0, 0, 0, 2]),
        ),
        c("non_scalar_ptr_offset", u32v(&[1, 2, 3, 4]), u32v(&[7])),
        c(
            "stateful_neg_offset",
            u64v(&[1_237_518]),
            u64v(&[1_237_518]),
        ),
        c("const", u16v(&[0]), u16v(&[10, 20, 30, 40])),
        c("const_ident", u16v(&[0]), u64v(&[0, 0])),
        c("cvt_s16_s8", u32v(&[0x1392_31C2]), u32v(&[0xFFFF_FFC2])),
        c("cvt_f64_f32", f32v(&[0.125]), f64v(&[0.125])),
        c(
            "prmt",
            u32v(&[0x70c5_07d6, 0x6fbd_4b5c]),
            u32v(&[0x6fbd_d65c]),
        ),
        c(
            "prmt_slow",
            u32v(&[0x70c5_07d6, 0x6fbd_4b5c, 30212]),
            u32v(&[0x6fbd_d65c]),
        ),
        c(
            "prmt_signext",
            u32v(&[0x0100_FE80, 0]),
            u32v(&[0x8000_80FF]),
        ),
        c("activemask", u32v(&[0]), u32v(&[1])),
        c("membar", u32v(&[152_731]), u32v(&[152_731])),
        c("shared_unify_extern", u64v(&[7681, 7682]), u64v(&[15363])),
        c("shared_unify_local", u64v(&[16752, 714]), u64v(&[17466])),
        c(
            "add_s32_sat",
            i32v(&[i32::MIN, -1]),
            i32v(&[i32::MIN, i32::MAX]),
        ),
        c("malformed_label", u64v(&[2]), u64v(&[3])),
        c(
            "call_rnd",
            f32v(&[
                1.0,
                f32::from_bits(0x3380_0000),
                1.0,
                f32::from_bits(0x3380_0000),
            ]),
            f32v(&[1.000_000_1, 1.0]),
        ),
        c("multiple_return", u32v(&[5]), u32v(&[6, 123])),
        c("warp_sz", u8v(&[0]), u8v(&[32])),
        c("tanh", f32v(&[f32::INFINITY]), f32v(&[1.0])),
        c(
            "div_ftz",
            u32v(&[0x16A2_028D, 0x5E89_F6AE]),
            u32v(&[0, 900_636_404]),
        ),
        c(
            "div_noftz",
            u32v(&[0x16A2_028D, 0x5E89_F6AE]),
            u32v(&[0x26, 900_636_404]),
        ),
        c("nanosleep", u64v(&[0]), u64v(&[0])),
        c(
            "shf_l",
            u32v(&[0x1234_5678, 0x9abc_def0, 12]),
            u32v(&[0xcdef_0123]),
        ),
        c(
            "shf_r",
            u32v(&[0x1234_5678, 0x9abc_def0, 12]),
            u32v(&[0xef01_2345]),
        ),
        c(
            "shf_l_clamp",
            u32v(&[0x1234_5678, 0x9abc_def0, 44]),
            u32v(&[0x1234_5678]),
        ),
        c(
            "shf_r_clamp",
            u32v(&[0x1234_5678, 0x9abc_def0, 44]),
            u32v(&[0x9abc_def0]),
        ),
        c(
            "shf_l_wrap",
            u32v(&[0x1234_5678, 0x9abc_def0, 44]),
            u32v(&[0xcdef_0123]),
        ),
        c(
            "shf_r_wrap",
            u32v(&[0x1234_5678, 0x9abc_def0, 44]),
            u32v(&[0xef01_2345]),
        ),
        c(
            "dp4a",
            u32v(&[0x8e2d_a590, 0xedea_ee14, 0x248a_9f70]),
            u32v(&[613_065_134]),
        ),
        c(
            "dp2a",
            u32v(&[0x8e2d_a590, 0xedea_ee14, 0x248a_9f70]),
            u32v(&[614_127_545]),
        ),
        c("param_is_addressable", u64v(&[0xDEAD]), u64v(&[0])),
        c(
            "copysign",
            u32v(&[0x0BDA_2A2C, 0xe31a_8fd7]),
            u32v(&[0x631A_8FD7]),
        ),
        c("cvt_f16x2_f32", f32v(&[1.0, 2.0]), u32v(&[0x3C00_4000])),
        c(
            "cvt_relu_f16x2_f32",
            // 3.14 as written in ZLUDA's test (not π).
            f32v(&[-1.0, 1.0, f32::from_bits(0x4048_f5c3), f32::NEG_INFINITY]),
            u32v(&[15360, 1_112_014_848]),
        ),
        c(
            "set_f16",
            u16v(&[h_nan, h_nan, 0x4248, 0xfc00, 0x8000, 0x0000]),
            u32v(&[4_294_967_295, 65535]),
        ),
        c(
            "set_gt_f16x2",
            u16v(&[0x8000, 0x38d3, 0x0000, 0x35aa]),
            u32v(&[1_006_632_960]),
        ),
        c("uint_to_fp_bf16", u32v(&[1, 3]), u32v(&[0x3F80])),
        c("sad_s64", i64v(&[12, -38, 915]), i64v(&[965, 965])),
        warp("tid", u8v(&(0..64).collect::<Vec<u8>>())),
        warp("bar_red_and_pred", u32v(&[2; 64])),
        warp("shfl_sync_up_b32_pred", {
            let mut v: Vec<u32> = Vec::new();
            for half in 0..2u32 {
                for lane in 0..32u32 {
                    let i = half * 32 + lane;
                    v.push(if lane < 3 { 1000 + i } else { i - 3 });
                }
            }
            u32v(&v)
        }),
        warp("shfl_sync_down_b32_pred", {
            let mut v: Vec<u32> = Vec::new();
            for half in 0..2u32 {
                for lane in 0..32u32 {
                    let i = half * 32 + lane;
                    v.push(if lane >= 29 { 1000 + i } else { i + 3 });
                }
            }
            u32v(&v)
        }),
        warp(
            "shfl_sync_bfly_b32_pred",
            u32v(&(0..64u32).map(|i| i ^ 3).collect::<Vec<_>>()),
        ),
        warp(
            "shfl_sync_idx_b32_pred",
            u32v(
                &(0..64u32)
                    .map(|i| if i < 32 { 12 } else { 44 })
                    .collect::<Vec<_>>(),
            ),
        ),
        warp(
            "shfl_sync_mode_b32",
            u32v(&[
                9, 7, 8, 9, 21, 19, 20, 21, 33, 31, 32, 33, 45, 43, 44, 45, 73, 71, 72, 73, 85, 83,
                84, 85, 97, 95, 96, 97, 109, 107, 108, 109, 137, 135, 136, 137, 149, 147, 148, 149,
                161, 159, 160, 161, 173, 171, 172, 173, 201, 199, 200, 201, 213, 211, 212, 213,
                225, 223, 224, 225, 237, 235, 236, 237,
            ]),
        ),
        warp(
            "vote_all",
            u32v(
                &(0..64u32)
                    .map(|i| u32::from(i % 32 != 0))
                    .collect::<Vec<_>>(),
            ),
        ),
        warp(
            "vote_all_sub",
            u32v(
                &(0..64u32)
                    .map(|i| u32::from(i % 32 != 0))
                    .collect::<Vec<_>>(),
            ),
        ),
        warp(
            "vote_any",
            u32v(&(0..64u32).map(|i| u32::from(i < 32)).collect::<Vec<_>>()),
        ),
        warp(
            "vote_ballot",
            u32v(
                &(0..64u32)
                    .map(|i| if i < 32 { 0 } else { 4_294_967_292 })
                    .collect::<Vec<_>>(),
            ),
        ),
        warp(
            "redux_sync_op_s32",
            i32v(
                &(0..64)
                    .map(|i| if i < 32 { 357 } else { 1445 })
                    .collect::<Vec<_>>(),
            ),
        ),
        warp(
            "redux_sync_op_u32",
            u32v(
                &(0..64)
                    .map(|i| if i < 32 { 527 } else { 1615 })
                    .collect::<Vec<_>>(),
            ),
        ),
        warp(
            "redux_sync_add_u32_partial",
            u32v(
                &(0..64)
                    .map(|i| match (i < 32, i % 2 == 0) {
                        (true, true) => 240,
                        (false, true) => 752,
                        _ => 0,
                    })
                    .collect::<Vec<_>>(),
            ),
        ),
    ]
}

/// Kernels the emulator refuses with an error (unsupported instruction or modelling limit) —
/// never with a wrong value. Listed so that newly supported ones are noticed.
const REFUSED: &[&str] = &[
    // cvt.pack (packing conversion into bytes).
    "cvt_pack",
    // Vector registers (`.reg .v4 .u32 r`).
    "vector",
    "vector4",
    "vector_extract",
    "vector8_extract",
    // Lane 0 branches to the reconvergence point and exits later while the other lanes run
    // vote.sync with a full mask: only independent thread scheduling lets lane 0 exit first.
    "vote_all_sub",
];

#[test]
fn zluda_spirv_run_conformance() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus/zluda-ptx/ptx/src/test/spirv_run");
    if !dir.is_dir() {
        eprintln!("SKIPPED: ZLUDA corpus not found at {}", dir.display());
        return;
    }
    let mut failures = Vec::new();
    let mut passed = 0;
    let mut refused_ok = 0;
    for case in cases() {
        let path = dir.join(format!("{}.ptx", case.name));
        let Ok(text) = std::fs::read_to_string(&path) else {
            failures.push(format!("{}: no PTX file", case.name));
            continue;
        };
        let m = match parse_module(&text, &path.display().to_string()) {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!("{}: parse error {e}", case.name));
                continue;
            }
        };
        let Some(f) = m.function(case.name) else {
            failures.push(format!("{}: no kernel of that name", case.name));
            continue;
        };
        let nparams = f.param_list().len();
        let buf = |data: Vec<u8>| {
            let items = data.iter().map(|b| serde_json::json!(b)).collect();
            ArgSpec::Buffer(BufferSpec {
                ty: ElemType::U8,
                len: Some(data.len().max(1) as u64),
                init: InitSpec::List(items),
                seed: None,
                range: None,
            })
        };
        let out_len = case.output.len();
        let mut args = Vec::new();
        if nparams == 2 {
            args.push(buf(case.input.clone().unwrap_or_else(|| vec![0; out_len])));
        }
        args.push(buf(vec![0; out_len]));
        let spec = LaunchSpec {
            kernel: case.name.to_string(),
            grid: vec![1],
            block: vec![case.block],
            dynamic_smem: 1024,
            cluster: None,
            args,
            globals: Default::default(),
            max_instructions: Some(1_000_000),
        };
        let opts = RunOptions {
            file: format!("{}.ptx", case.name),
            ..RunOptions::default()
        };
        match run(&m, &spec, &opts) {
            Err(e) => {
                let refused = matches!(
                    e,
                    warpsmith::emu::EmuError::Unsupported { .. }
                        | warpsmith::emu::EmuError::Limit { .. }
                );
                if refused && REFUSED.contains(&case.name) {
                    refused_ok += 1;
                } else {
                    failures.push(format!("{}: {e}", case.name));
                }
            }
            Ok(out) => {
                let got = &out.buffers[nparams - 1].data;
                if *got != case.output {
                    failures.push(format!(
                        "{}: got {:02x?}, hardware gave {:02x?}",
                        case.name, got, case.output
                    ));
                } else if REFUSED.contains(&case.name) {
                    failures.push(format!("{}: now passes: remove it from REFUSED", case.name));
                } else {
                    passed += 1;
                }
            }
        }
    }
    eprintln!(
        "ZLUDA conformance: {passed} kernels match the hardware results, {refused_ok} refused with an error"
    );
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
