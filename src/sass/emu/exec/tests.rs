//! Unit tests of the tensor-core and asynchronous-copy instructions (`HMMA`, `IMMA`, `LDSM`,
//! `STSM`, `LDGSTS`, `LDGDEPBAR`, `DEPBAR`): one warp runs a few instructions written as nvdisasm prints
//! them, with registers and memory set directly. Expected values come from the PTX ISA's
//! fragment formulas written out here (§9.7.14.5.x) and a plain f64/i64 matrix product on values
//! whose sums are exact, independent of `emu::tensor`. Also the bf16 forms of the half-pair
//! arithmetic and conversions that Triton's bf16 kernels (Liger-Kernel's RMS norm) use.

use std::collections::HashMap;

use super::*;
use crate::emu::float::from_f64;
use crate::sass::emu::operand;
use crate::sass::emu::program::{Inst, Kernel};

pub(super) fn kernel(lines: &[&str]) -> Kernel {
    let labels = HashMap::new();
    Kernel {
        name: "t".into(),
        code: lines
            .iter()
            .enumerate()
            .map(|(i, t)| Inst {
                pc: 16 * i as u64,
                text: t.to_string(),
                parsed: operand::parse(t, &labels),
                control: crate::sass::isa::word::Control::NONE,
            })
            .collect(),
        params: Vec::new(),
        param_base: 0x160,
        param_size: 0,
        cbanks: HashMap::new(),
        shared_static: 4096,
        local_size: 0,
        nregs: 64,
        cluster: None,
        explicit_cluster: false,
    }
}

pub(super) fn machine(k: &Kernel, threads: u32) -> (Machine<'_>, Warp) {
    let shape = Shape {
        grid: [1, 1, 1],
        block: [threads, 1, 1],
        dynamic_smem: 0,
        cluster: Default::default(),
    };
    let m = Machine::new(
        k,
        GlobalMem::default(),
        HashMap::from([(0, vec![0; 0x200])]),
        shape,
        Limits::default(),
        "t.cubin",
    );
    (m, Warp::new(0, 64, 0, shape.block))
}

/// Runs `n` warp steps.
fn steps(m: &mut Machine, w: &mut Warp, shared: &mut [u8], n: usize) -> EmuResult<()> {
    for _ in 0..n {
        m.step(w, [0; 3], shared)?;
    }
    Ok(())
}

fn h(x: f64) -> u32 {
    from_f64(x, F16, Rnd::Rn) as u32
}

fn h2(lo: f64, hi: f64) -> u32 {
    h(lo) | h(hi) << 16
}

fn f16v(bits: u32) -> f64 {
    F16.to_f64(u64::from(bits & 0xffff))
}

/// Dense `c + a·b` (`a` m×k, `b` k×n, row-major).
fn product(a: &[f64], b: &[f64], c: &[f64], (m, n, k): (usize, usize, usize)) -> Vec<f64> {
    (0..m * n)
        .map(|ij| {
            let (i, j) = (ij / n, ij % n);
            c[ij] + (0..k).map(|x| a[i * k + x] * b[x * n + j]).sum::<f64>()
        })
        .collect()
}

fn small(len: usize, mul: usize, modulo: usize, scale: f64) -> Vec<f64> {
    (0..len)
        .map(|i| ((i * mul + 3) % modulo) as f64 * scale - scale * (modulo / 2) as f64)
        .collect()
}

/// Sets the m16n8k16 f16 A (16×16), B (16×8) fragments at R4–R7, R8–R9 and the f32 C at
/// R12–R15 (PTX ISA "Matrix fragments for mma.m16n8k16 with floating point type").
fn set_16816(w: &mut Warp, a: &[f64], b: &[f64], c: &[f64]) {
    for l in 0..32 {
        let (g, t) = (l / 4, l % 4);
        let at = |r: usize, col: usize| h2(a[r * 16 + col], a[r * 16 + col + 1]);
        set(w, l, 4, at(g, 2 * t));
        set(w, l, 5, at(g + 8, 2 * t));
        set(w, l, 6, at(g, 2 * t + 8));
        set(w, l, 7, at(g + 8, 2 * t + 8));
        set(w, l, 8, h2(b[2 * t * 8 + g], b[(2 * t + 1) * 8 + g]));
        set(w, l, 9, h2(b[(2 * t + 8) * 8 + g], b[(2 * t + 9) * 8 + g]));
        for (i, (r, col)) in c_pos(l).into_iter().enumerate() {
            set(w, l, 12 + i as u8, (c[r * 8 + col] as f32).to_bits());
        }
    }
}

/// (row, column) of C/D elements 0–3 of lane `l` (m16n8).
fn c_pos(l: usize) -> [(usize, usize); 4] {
    let (g, t) = (l / 4, l % 4);
    [
        (g, 2 * t),
        (g, 2 * t + 1),
        (g + 8, 2 * t),
        (g + 8, 2 * t + 1),
    ]
}

#[test]
fn hmma_16816_f32_matches_the_product_and_allows_overlap() {
    let (a, b, c) = (
        small(256, 7, 11, 1.0),
        small(128, 5, 9, 0.5),
        small(128, 3, 13, 0.25),
    );
    let want = product(&a, &b, &c, (16, 8, 16));
    let k = kernel(&[
        "HMMA.16816.F32 R16, R4, R8, R12",
        "HMMA.16816.F32 R12, R4.reuse, R8, R12",
        "HMMA.16816.F32 R20, R4, R8, RZ",
    ]);
    let (mut m, mut w) = machine(&k, 32);
    set_16816(&mut w, &a, &b, &c);
    steps(&mut m, &mut w, &mut [], 3).unwrap();
    let zero = vec![0.0; 128];
    let want0 = product(&a, &b, &zero, (16, 8, 16));
    for l in 0..32 {
        for (i, (r, col)) in c_pos(l).into_iter().enumerate() {
            let got = |n: u8| f64::from(f32::from_bits(reg(&w, l, n + i as u8)));
            assert_eq!(got(16), want[r * 8 + col], "lane {l} element {i}");
            assert_eq!(got(12), want[r * 8 + col], "D = C in place, lane {l}");
            assert_eq!(got(20), want0[r * 8 + col], "C = RZ, lane {l}");
        }
    }
    assert_eq!(m.stats.by_class[Class::Tensor as usize], 3);
}

#[test]
fn hmma_16816_f16_accumulator() {
    let (a, b, c) = (
        small(256, 5, 7, 1.0),
        small(128, 3, 5, 1.0),
        small(128, 1, 9, 1.0),
    );
    let want = product(&a, &b, &c, (16, 8, 16));
    let k = kernel(&["HMMA.16816.F16 R16, R4, R8, R12"]);
    let (mut m, mut w) = machine(&k, 32);
    set_16816(&mut w, &a, &b, &c);
    for l in 0..32 {
        let [p0, p1, p2, p3] = c_pos(l);
        let cv = |(r, col): (usize, usize)| c[r * 8 + col];
        set(&mut w, l, 12, h2(cv(p0), cv(p1)));
        set(&mut w, l, 13, h2(cv(p2), cv(p3)));
    }
    steps(&mut m, &mut w, &mut [], 1).unwrap();
    for l in 0..32 {
        let [p0, p1, p2, p3] = c_pos(l);
        let wv = |(r, col): (usize, usize)| want[r * 8 + col];
        let (d0, d1) = (reg(&w, l, 16), reg(&w, l, 17));
        assert_eq!(
            [f16v(d0), f16v(d0 >> 16), f16v(d1), f16v(d1 >> 16)],
            [wv(p0), wv(p1), wv(p2), wv(p3)],
            "lane {l}"
        );
    }
}

#[test]
fn hmma_1688_tf32_ignores_the_low_fraction_bits() {
    let (mut a, b, c) = (
        small(128, 7, 11, 1.0),
        small(64, 5, 9, 0.5),
        small(128, 3, 13, 0.25),
    );
    let k = kernel(&["HMMA.1688.F32.TF32 R16, R4, R8, R12"]);
    let (mut m, mut w) = machine(&k, 32);
    // A[0][0] = 1 + 2^-20: tf32 keeps 10 fraction bits, so the product sees 1.
    a[0] = 1.0 + f64::powi(2.0, -20);
    let bits = |x: f64| (x as f32).to_bits();
    for l in 0..32 {
        let (g, t) = (l / 4, l % 4);
        set(&mut w, l, 4, bits(a[g * 8 + t]));
        set(&mut w, l, 5, bits(a[(g + 8) * 8 + t]));
        set(&mut w, l, 6, bits(a[g * 8 + t + 4]));
        set(&mut w, l, 7, bits(a[(g + 8) * 8 + t + 4]));
        set(&mut w, l, 8, bits(b[t * 8 + g]));
        set(&mut w, l, 9, bits(b[(t + 4) * 8 + g]));
        for (i, (r, col)) in c_pos(l).into_iter().enumerate() {
            set(&mut w, l, 12 + i as u8, bits(c[r * 8 + col]));
        }
    }
    a[0] = 1.0;
    let want = product(&a, &b, &c, (16, 8, 8));
    steps(&mut m, &mut w, &mut [], 1).unwrap();
    for l in 0..32 {
        for (i, (r, col)) in c_pos(l).into_iter().enumerate() {
            let got = f64::from(f32::from_bits(reg(&w, l, 16 + i as u8)));
            assert_eq!(got, want[r * 8 + col], "lane {l} element {i}");
        }
    }
}

/// m16n8k32 s8 fragments (A 16×32 at R4–R7, B 32×8 at R8–R9, C at R12–R15), bytes low first.
fn set_16832_s8(w: &mut Warp, a: &[i64], b: &[i64], c: &[i64]) {
    let pack = |v: [i64; 4]| {
        v.iter().enumerate().fold(0u32, |acc, (i, x)| {
            acc | u32::from(*x as i8 as u8) << (8 * i)
        })
    };
    for l in 0..32 {
        let (g, t) = (l / 4, l % 4);
        let ar = |r: usize, c0: usize| pack(std::array::from_fn(|i| a[r * 32 + c0 + i]));
        let bc = |r0: usize| pack(std::array::from_fn(|i| b[(r0 + i) * 8 + g]));
        set(w, l, 4, ar(g, 4 * t));
        set(w, l, 5, ar(g + 8, 4 * t));
        set(w, l, 6, ar(g, 4 * t + 16));
        set(w, l, 7, ar(g + 8, 4 * t + 16));
        set(w, l, 8, bc(4 * t));
        set(w, l, 9, bc(4 * t + 16));
        for (i, (r, col)) in c_pos(l).into_iter().enumerate() {
            set(w, l, 12 + i as u8, c[r * 8 + col] as i32 as u32);
        }
    }
}

#[test]
fn imma_16832_s8_wraps_and_saturates() {
    let a: Vec<i64> = (0..512).map(|i| (i * 37 % 255) - 127).collect();
    let b: Vec<i64> = (0..256).map(|i| (i * 53 % 255) - 127).collect();
    let mut c: Vec<i64> = (0..128).map(|i| i * 1000 - 64000).collect();
    c[0] = i64::from(i32::MAX) - 5;
    c[1] = i64::from(i32::MIN) + 5;
    let k = kernel(&[
        "IMMA.16832.S8.S8 R16, R4.ROW, R8.COL, R12",
        "IMMA.16832.S8.S8.SAT R20, R4.ROW, R8.reuse.COL, R12",
    ]);
    let (mut m, mut w) = machine(&k, 32);
    set_16832_s8(&mut w, &a, &b, &c);
    steps(&mut m, &mut w, &mut [], 2).unwrap();
    let exact: Vec<i64> = (0..128)
        .map(|ij| {
            let (i, j) = (ij / 8, ij % 8);
            c[ij] + (0..32).map(|x| a[i * 32 + x] * b[x * 8 + j]).sum::<i64>()
        })
        .collect();
    assert!(exact[0] > i64::from(i32::MAX) || exact[1] < i64::from(i32::MIN));
    for l in 0..32 {
        for (i, (r, col)) in c_pos(l).into_iter().enumerate() {
            let e = exact[r * 8 + col];
            let wrap = e as i32;
            let sat = e.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32;
            assert_eq!(
                reg(&w, l, 16 + i as u8) as i32,
                wrap,
                "lane {l} element {i}"
            );
            assert_eq!(
                reg(&w, l, 20 + i as u8) as i32,
                sat,
                "lane {l} element {i} .SAT"
            );
        }
    }
}

#[test]
fn ldsm_plain_and_transposed() {
    let k = kernel(&["LDSM.16.M88.4 R8, [R2]", "LDSM.16.MT88.2 R16, [R2+0x200]"]);
    let (mut m, mut w) = machine(&k, 32);
    let mut shared: Vec<u8> = (0..1024u32)
        .flat_map(|i| ((i * 7 + 1) as u16).to_le_bytes())
        .collect();
    // Rows come from scattered, 16-byte aligned places.
    let row_addr = |l: usize| ((l * 5) % 32 * 16) as u32;
    for l in 0..32 {
        set(&mut w, l, 2, row_addr(l));
    }
    steps(&mut m, &mut w, &mut shared, 2).unwrap();
    let elem = |addr: u32, e: u32| {
        let a = (addr + 2 * e) as usize;
        u32::from(u16::from_le_bytes([shared[a], shared[a + 1]]))
    };
    for l in 0..32u32 {
        let (q, r) = (l / 4, l % 4);
        for mtx in 0..4u32 {
            // Row q of matrix mtx, elements 2r and 2r+1.
            let addr = row_addr((8 * mtx + q) as usize);
            let want = elem(addr, 2 * r) | elem(addr, 2 * r + 1) << 16;
            assert_eq!(
                reg(&w, l as usize, 8 + mtx as u8),
                want,
                "lane {l} matrix {mtx}"
            );
        }
        for mtx in 0..2u32 {
            // Transposed: column q, rows 2r and 2r+1.
            let row = |k: u32| row_addr((8 * mtx + k) as usize) + 0x200;
            let want = elem(row(2 * r), q) | elem(row(2 * r + 1), q) << 16;
            assert_eq!(
                reg(&w, l as usize, 16 + mtx as u8),
                want,
                "lane {l} MT matrix {mtx}"
            );
        }
    }
    assert_eq!(m.stats.shared.requests, 2);
}

#[test]
fn stsm_writes_what_ldsm_reads_plain_and_transposed() {
    let k = kernel(&[
        "STSM.16.M88.4 [R2], R8",
        "STSM.16.MT88.2 [R2+0x200], R12",
        "LDSM.16.M88.4 R16, [R2]",
        "LDSM.16.MT88.2 R20, [R2+0x200]",
    ]);
    let (mut m, mut w) = machine(&k, 32);
    let mut shared = vec![0u8; 1024];
    let row_addr = |l: usize| ((l * 5) % 32 * 16) as u32;
    for l in 0..32 {
        set(&mut w, l, 2, row_addr(l));
        for r in 0..6u8 {
            set(
                &mut w,
                l,
                8 + r,
                (l as u32 * 0x10001) ^ (u32::from(r) * 0x3000_0300),
            );
        }
    }
    steps(&mut m, &mut w, &mut shared, 4).unwrap();
    let elem = |addr: u32, e: u32| {
        let a = (addr + 2 * e) as usize;
        u32::from(u16::from_le_bytes([shared[a], shared[a + 1]]))
    };
    for l in 0..32u32 {
        let (q, r) = (l / 4, l % 4);
        for mtx in 0..4u32 {
            // Lane l's register holds row q, elements 2r and 2r+1, of matrix mtx.
            let addr = row_addr((8 * mtx + q) as usize);
            let want = reg(&w, l as usize, 8 + mtx as u8);
            assert_eq!(
                elem(addr, 2 * r) | elem(addr, 2 * r + 1) << 16,
                want,
                "lane {l}"
            );
            assert_eq!(reg(&w, l as usize, 16 + mtx as u8), want, "round trip");
        }
        for mtx in 0..2u32 {
            // Transposed: column q, rows 2r and 2r+1.
            let row = |k: u32| row_addr((8 * mtx + k) as usize) + 0x200;
            let want = reg(&w, l as usize, 12 + mtx as u8);
            assert_eq!(elem(row(2 * r), q) | elem(row(2 * r + 1), q) << 16, want);
            assert_eq!(reg(&w, l as usize, 20 + mtx as u8), want, "MT round trip");
        }
    }
}

#[test]
fn ldgsts_completes_at_depbar_with_zero_fill() {
    let k = kernel(&[
        "LDGSTS.E.BYPASS.128 [R2], [R4.64]",
        "LDGDEPBAR",
        "LDGSTS.E.BYPASS.128 [R2+0x200], [R4.64], P0",
        "LDGDEPBAR",
        "LDGSTS.E.ZFILL [R2+0x400], [R6.64], PT",
        "DEPBAR.LE SB0, 0x1",
        "LDGDEPBAR",
        "DEPBAR.LE SB0, 0x0",
    ]);
    let (mut m, mut w) = machine(&k, 32);
    let data: Vec<u8> = (0..512u32).map(|i| (i * 3 + 1) as u8).collect();
    let (idx, base) = m.global.alloc("g", data.clone(), 16);
    for l in 0..32 {
        let src = base + 16 * l as u64;
        set(&mut w, l, 2, 16 * l as u32);
        set(&mut w, l, 4, src as u32);
        set(&mut w, l, 5, (src >> 32) as u32);
        // ZFILL: low bits = bytes zero-filled at the end (lane % 4 of 4).
        let z = src + (l % 4) as u64;
        set(&mut w, l, 6, z as u32);
        set(&mut w, l, 7, (z >> 32) as u32);
        set_p(&mut w, l, 0, l % 2 == 0);
    }
    let mut shared = vec![0xaau8; 4096];
    steps(&mut m, &mut w, &mut shared, 5).unwrap();
    assert!(
        shared.iter().all(|&b| b == 0xaa),
        "nothing lands before the wait"
    );
    // The source changes after the issue: the copy reads it when it is performed.
    m.global.allocs[idx as usize].data[0] = 0x77;
    steps(&mut m, &mut w, &mut shared, 1).unwrap();
    assert_eq!(shared[0], 0x77);
    assert_eq!(shared[1..512], data[1..512]);
    assert!(
        shared[512..].iter().all(|&b| b == 0xaa),
        "newer groups wait"
    );
    steps(&mut m, &mut w, &mut shared, 2).unwrap();
    for l in 0..32 {
        let got = &shared[0x200 + 16 * l..0x200 + 16 * l + 16];
        if l % 2 == 0 {
            assert_eq!(got[1..], data[16 * l + 1..16 * l + 16], "lane {l}");
        } else {
            assert!(got.iter().all(|&b| b == 0), "P0 false: zeros, lane {l}");
        }
        let z = &shared[0x400 + 16 * l..0x400 + 16 * l + 4];
        let keep = 4 - l % 4;
        let mut want = data[16 * l..16 * l + 4].to_vec();
        if l == 0 {
            want[0] = 0x77;
        }
        want[keep..].iter_mut().for_each(|b| *b = 0);
        assert_eq!(z, &want[..], "ZFILL lane {l}");
        assert!(shared[0x400 + 16 * l + 4..0x400 + 16 * l + 16]
            .iter()
            .all(|&b| b == 0xaa));
    }
}

#[test]
fn ldgsts_checks_the_destination_at_issue() {
    let k = kernel(&["LDGSTS.E.128 [R2+0x8], [R4.64]"]);
    let (mut m, mut w) = machine(&k, 32);
    let (_, base) = m.global.alloc("g", vec![0; 512], 16);
    for l in 0..32 {
        set(&mut w, l, 4, (base + 16 * l as u64) as u32);
        set(&mut w, l, 5, (base >> 32) as u32);
    }
    let e = steps(&mut m, &mut w, &mut [0u8; 1024], 1).unwrap_err();
    assert!(
        matches!(&e, EmuError::Fault { what, .. } if what.contains("misaligned shared")),
        "{e}"
    );
}

#[test]
fn partial_warps_and_unknown_forms_stop_with_a_named_error() {
    let k = kernel(&["HMMA.16816.F32 R16, R4, R8, R12"]);
    let (mut m, mut w) = machine(&k, 16);
    let e = steps(&mut m, &mut w, &mut [], 1).unwrap_err();
    assert!(
        matches!(&e, EmuError::Fault { what, at } if what.contains("warp-collective")
            && at.text.contains("HMMA")),
        "{e}"
    );
    for (text, why) in [
        ("HMMA.884.F32.F32 R0, R4, R8, R12", "HMMA.884.F32.F32"),
        (
            "IMMA.16832.S4.S4 R0, R4.ROW, R8.COL, R12",
            "IMMA.16832.S4.S4",
        ),
        ("IMMA.16832.S8.S8 R0, R4.COL, R8.COL, R12", "layouts"),
        ("LDSM.16.M816.4 R0, [R2]", "LDSM.16.M816.4"),
        ("HMMA.16816.F32.TF32 R0, R4, R8, R12", "not supported"),
    ] {
        let k = kernel(&[text]);
        let (mut m, mut w) = machine(&k, 32);
        let e = steps(&mut m, &mut w, &mut [], 1).unwrap_err();
        assert!(
            matches!(&e, EmuError::Unsupported { why: y, at } if y.contains(why)
                && at.at.contains("+0x0000")),
            "{text}: {e}"
        );
    }
}

#[test]
fn shared_fast_path_moves_words_and_leaves_faults_to_the_general_path() {
    let k = kernel(&["STS.64 [R2+0x8], R4", "LDS R6, [R2+0xc]", "LDS R8, [R3]"]);
    let (mut m, mut w) = machine(&k, 32);
    for l in 0..32u32 {
        set(&mut w, l as usize, 2, 8 * l);
        set(&mut w, l as usize, 4, l);
        set(&mut w, l as usize, 5, 100 + l);
        // Lane 5 misaligned.
        set(&mut w, l as usize, 3, if l == 5 { 2 } else { 4 * l });
    }
    let mut shared = vec![0u8; 1024];
    steps(&mut m, &mut w, &mut shared, 2).unwrap();
    for l in 0..32usize {
        assert_eq!(reg(&w, l, 6), 100 + l as u32, "lane {l}");
    }
    let e = steps(&mut m, &mut w, &mut shared, 1).unwrap_err();
    assert!(
        matches!(&e, EmuError::Fault { what, at } if what.contains("misaligned shared")
            && at.thread == Some([5, 0, 0])),
        "{e}"
    );
}

#[test]
fn imma_16816_and_8816_mixed_signedness() {
    // m16n8k16 s8 × u8: A (16×16) register 0 = row g, bytes 4t…4t+3; register 1 = row g+8.
    // B (16×8) register 0 = rows 4t…4t+3 of column g. m8n8k16 u8 × u8: A (8×16) one register,
    // row g; C/D (8×8) two registers, (g, 2t) and (g, 2t+1).
    let a: Vec<i64> = (0..256).map(|i| (i * 29 % 256) - 128).collect();
    let au: Vec<i64> = (0..128).map(|i| i * 41 % 256).collect();
    let b: Vec<i64> = (0..128).map(|i| i * 67 % 256).collect();
    let c: Vec<i64> = (0..128).map(|i| 5000 - 77 * i).collect();
    let k = kernel(&[
        "IMMA.16816.S8.U8 R16, R4.ROW, R8.COL, R12",
        "IMMA.8816.U8.U8 R20, R6.ROW, R8.COL, R12",
    ]);
    let (mut m, mut w) = machine(&k, 32);
    let byte = |v: i64| u32::from(v as u8);
    let pack = |f: &dyn Fn(usize) -> i64| (0..4).fold(0u32, |acc, i| acc | byte(f(i)) << (8 * i));
    for l in 0..32 {
        let (g, t) = (l / 4, l % 4);
        set(&mut w, l, 4, pack(&|i| a[g * 16 + 4 * t + i]));
        set(&mut w, l, 5, pack(&|i| a[(g + 8) * 16 + 4 * t + i]));
        set(&mut w, l, 6, pack(&|i| au[g * 16 + 4 * t + i]));
        set(&mut w, l, 8, pack(&|i| b[(4 * t + i) * 8 + g]));
        for (i, (r, col)) in c_pos(l).into_iter().enumerate() {
            set(&mut w, l, 12 + i as u8, c[r * 8 + col] as i32 as u32);
        }
    }
    steps(&mut m, &mut w, &mut [], 2).unwrap();
    let dot = |av: &[i64], i: usize, j: usize| {
        (0..16).map(|x| av[i * 16 + x] * b[x * 8 + j]).sum::<i64>()
    };
    for l in 0..32 {
        let (g, t) = (l / 4, l % 4);
        for (i, (r, col)) in c_pos(l).into_iter().enumerate() {
            let want = (c[r * 8 + col] + dot(&a, r, col)) as i32;
            assert_eq!(
                reg(&w, l, 16 + i as u8) as i32,
                want,
                "16816 lane {l} element {i}"
            );
        }
        for i in 0..2 {
            // m8n8: C element i of lane l is (g, 2t+i), held in register 12+i.
            let cv = c[c_pos(l)[i].0 * 8 + c_pos(l)[i].1];
            let want = (cv + dot(&au, g, 2 * t + i)) as i32;
            assert_eq!(
                reg(&w, l, 20 + i as u8) as i32,
                want,
                "8816 lane {l} element {i}"
            );
        }
    }
}

#[test]
fn uiadd3_64_adds_register_pairs() {
    // ptxas's sm_90 descriptor arithmetic: UR6:UR7 − UR12:UR13.
    let k = kernel(&[
        "UIADD3.64 UR12, UR6, -UR12, URZ",
        "UIADD3.64 UR14, UR8, UR14, 0x10",
    ]);
    let (mut m, mut w) = machine(&k, 32);
    w.ur[6] = 0x440;
    w.ur[7] = 0;
    w.ur[12] = 0xffff_fffe;
    w.ur[13] = 0x7fff_ffdf;
    w.ur[8] = 0xffff_fff8;
    w.ur[9] = 1;
    w.ur[14] = 0x80;
    w.ur[15] = 0x4000_0040;
    steps(&mut m, &mut w, &mut [], 2).unwrap();
    assert_eq!((w.ur[12], w.ur[13]), (0x442, 0x8000_0020));
    assert_eq!((w.ur[14], w.ur[15]), (0x88, 0x4000_0042));
    let k = kernel(&["UIADD3.64 UR4, UP0, UR6, UR8, URZ"]);
    let (mut m, mut w) = machine(&k, 32);
    let e = steps(&mut m, &mut w, &mut [], 1).unwrap_err();
    assert!(matches!(&e, EmuError::Unsupported { .. }), "{e}");
}

#[test]
fn hgmma_register_a_and_k_major_b_descriptor() {
    // m64n8k16 f16 → f32, warp 0 (rows 0–15): A from R4–R7 (the m16n8k16 A layout), B from
    // shared memory, K-major without swizzle: element (n, k) at n·16 + (2k mod 16) + (2k div 16)·LBO
    // (PTX ISA "Shared memory matrix layout"), LBO = 128; descriptor = start/16 | LBO/16 << 16.
    let (a, b, c) = (
        small(256, 7, 11, 1.0),
        small(128, 5, 9, 0.5),
        small(128, 3, 13, 0.25),
    );
    let k = kernel(&[
        "HGMMA.64x8x16.F32 R16, R4, gdesc[UR8], R16",
        "HGMMA.64x8x16.F32 R20, R4, gdesc[UR8], RZ, !UPT, gsb0",
        "WARPGROUP.DEPBAR.LE gsb0, 0x0",
    ]);
    let (mut m, mut w) = machine(&k, 32);
    set_16816(&mut w, &a, &b, &c);
    for l in 0..32 {
        for i in 0..4u8 {
            let v = reg(&w, l, 12 + i);
            set(&mut w, l, 16 + i, v);
        }
    }
    let mut shared = vec![0u8; 1024];
    let start = 0x100usize;
    for n in 0..8 {
        for kk in 0..16 {
            let at = start + n * 16 + (2 * kk) % 16 + (2 * kk / 16) * 128;
            shared[at..at + 2].copy_from_slice(&(h(b[kk * 8 + n]) as u16).to_le_bytes());
        }
    }
    let desc = (start as u64 >> 4) | (128u64 >> 4) << 16;
    w.ur[10] = desc as u32;
    w.ur[11] = (desc >> 32) as u32;
    steps(&mut m, &mut w, &mut shared, 3).unwrap();
    let want = product(&a, &b, &c, (16, 8, 16));
    let want0 = product(&a, &b, &[0.0; 128], (16, 8, 16));
    for l in 0..32 {
        for (i, (r, col)) in c_pos(l).into_iter().enumerate() {
            let got = |n: u8| f64::from(f32::from_bits(reg(&w, l, n + i as u8)));
            assert_eq!(got(16), want[r * 8 + col], "lane {l} element {i}");
            assert_eq!(
                got(20),
                want0[r * 8 + col],
                "scale-d false, lane {l} element {i}"
            );
        }
    }
    // Fewer than 32 lanes: a fault naming the instruction.
    let (mut m, mut w) = machine(&k, 16);
    let e = steps(&mut m, &mut w, &mut shared, 1).unwrap_err();
    assert!(
        matches!(&e, EmuError::Fault { at, .. } if at.text.contains("HGMMA")),
        "{e}"
    );
}

fn bf(x: f64) -> u32 {
    from_f64(x, crate::emu::float::BF16, Rnd::Rn) as u32
}

#[test]
fn bf16_pairs_with_an_immediate_pair_in_any_source_position() {
    // ptxas's bf16 add as an FMA by (1, 1) on sm_80; the f16 constant load of `HFMA2.MMA`.
    let k = kernel(&[
        "HFMA2.BF16_V2 R2, R4, 1, 1, R6",
        "HFMA2.MMA R3, -RZ, RZ, 1.875, 0",
        "HFMA2.BF16_V2 R5, R4, R6, -RZ.H0_H0",
    ]);
    let (mut m, mut w) = machine(&k, 32);
    for l in 0..32 {
        set(&mut w, l, 4, bf(1.5) | bf(-2.0) << 16);
        set(&mut w, l, 6, bf(0.25) | bf(3.0 + l as f64) << 16);
    }
    steps(&mut m, &mut w, &mut [], 3).unwrap();
    for l in 0..32 {
        assert_eq!(
            reg(&w, l, 2),
            bf(1.75) | bf(1.0 + l as f64) << 16,
            "lane {l}"
        );
        assert_eq!(reg(&w, l, 3), h(1.875) << 16, "lane {l}");
        let product = bf(0.375) | bf(-2.0 * (3.0 + l as f64)) << 16;
        assert_eq!(reg(&w, l, 5), product, "lane {l}");
    }
}

#[test]
fn f2f_to_bf16_rounds_to_nearest_even() {
    let k = kernel(&["F2F.BF16.F32 R2, R4", "F2F.BF16.F32 R3, R5"]);
    let (mut m, mut w) = machine(&k, 32);
    for l in 0..32 {
        set(&mut w, l, 4, (1.0f32 + 2f32.powi(-8)).to_bits()); // a tie: to the even 1.0
        set(&mut w, l, 5, (1.0f32 + 3.0 * 2f32.powi(-9)).to_bits()); // above it: up
    }
    steps(&mut m, &mut w, &mut [], 2).unwrap();
    for l in 0..32 {
        assert_eq!(reg(&w, l, 2), 0x3f80, "lane {l}");
        assert_eq!(reg(&w, l, 3), 0x3f81, "lane {l}");
    }
}

#[test]
fn half_selected_constant_operands() {
    // ptxas's `cvt.f32.f16` of a half-precision kernel parameter (Triton 3.9's softmax, mutated):
    // the parameter's half straight from the constant bank, as nvdisasm prints it.
    let k = kernel(&[
        "HADD2.F32 R2, -RZ, c[0x0] [0x178].H0_H0",
        "HADD2.F32 R3, -RZ, c[0x0] [0x178].H1_H1",
        "HMUL2 R4, R6, c[0x0] [0x178].H1_H1",
    ]);
    let shape = Shape {
        grid: [1, 1, 1],
        block: [32, 1, 1],
        dynamic_smem: 0,
        cluster: Default::default(),
    };
    let mut bank = vec![0u8; 0x200];
    bank[0x178..0x17c].copy_from_slice(&(h(1.5) | h(-0.25) << 16).to_le_bytes());
    let mut m = Machine::new(
        &k,
        GlobalMem::default(),
        HashMap::from([(0, bank)]),
        shape,
        Limits::default(),
        "t.cubin",
    );
    let mut w = Warp::new(0, 64, 0, shape.block);
    for l in 0..32 {
        set(&mut w, l, 6, h2(2.0, l as f64));
    }
    steps(&mut m, &mut w, &mut [], 3).unwrap();
    for l in 0..32 {
        assert_eq!(reg(&w, l, 2), 1.5f32.to_bits(), "lane {l}");
        assert_eq!(reg(&w, l, 3), (-0.25f32).to_bits(), "lane {l}");
        assert_eq!(reg(&w, l, 4), h2(-0.5, -0.25 * l as f64), "lane {l}");
    }
}

#[test]
fn sleep_and_grid_dependency_control_only_advance() {
    // `nanosleep`, `griddepcontrol.wait` and `griddepcontrol.launch_dependents` as ptxas 12.9
    // writes them for sm_90: an emulated launch has no grid before or after it, so each one
    // only moves the warp to the next instruction.
    let k = kernel(&[
        "NANOSLEEP 0x14",
        "ACQBULK",
        "PREEXIT",
        "IADD3 R2, R3, 0x1, RZ",
    ]);
    let (mut m, mut w) = machine(&k, 32);
    for l in 0..32 {
        set(&mut w, l, 3, l as u32);
    }
    steps(&mut m, &mut w, &mut [], 4).unwrap();
    for l in 0..32 {
        assert_eq!(w.pc[l], 4, "lane {l}");
        assert_eq!(reg(&w, l, 2), l as u32 + 1, "lane {l}");
    }
}

#[test]
fn bra_conv_takes_the_direct_form_only_for_exactly_the_mask() {
    let labels = HashMap::from([(".L_x_2".to_string(), 0x30u64)]);
    // (instruction, threads in the warp, UR6, taken)
    let cases = [
        ("BRA.CONV ~URZ, `(.L_x_2) ;", 32, 0, true),
        ("BRA.CONV ~URZ, `(.L_x_2) ;", 16, 0, false),
        ("BRA.CONV UR6, `(.L_x_2) ;", 16, 0xffff, true),
        ("BRA.CONV UR6, `(.L_x_2) ;", 32, 0xffff, false),
    ];
    for (text, threads, ur6, taken) in cases {
        let mut k = kernel(&[text, "NOP ;", "NOP ;", "NOP ;"]);
        k.code[0].parsed = operand::parse(text, &labels);
        let (mut m, mut w) = machine(&k, threads);
        w.ur[6] = ur6;
        let mut shared = vec![0u8; 16];
        steps(&mut m, &mut w, &mut shared, 1).unwrap();
        assert_eq!(
            w.pc[0],
            if taken { 3 } else { 1 },
            "{text} with {threads} threads"
        );
    }
}
