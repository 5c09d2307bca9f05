//! The emulator against independent CPU references: each test compiles one of bench/kernels/*.cu
//! with clang 22 (-O0 and -O3, sm_80), runs a kernel on the emulator and compares every output with
//! a reference written here in Rust from the CUDA source. Block shapes include incomplete warps
//! (48 threads) and 2-D/3-D blocks.
//!
//! Float inputs are mostly small integers, so the results are exact whatever order or FMA
//! contraction the compiler chose and the comparison can be exact; kernels using approximate
//! instructions (`ex2.approx`, `rsqrt.approx`, …) or fractional weights are compared with a
//! tolerance. Tests print "SKIPPED: clang-22 not found" and pass when clang is absent.

#![allow(
    clippy::needless_range_loop,
    reason = "the references index arrays the way the CUDA kernels they mirror do"
)]

#[path = "emu/harness.rs"]
mod harness;

use harness::*;

fn tid1(i: usize, block: usize) -> usize {
    i % block
}

#[test]
fn divergent_trip_count() {
    let n = 90;
    let inp = Rng::new(1).f32i(n, -8, 8);
    let mut out = vec![0f32; 96];
    for (i, o) in out.iter_mut().enumerate().take(n) {
        let trips = (tid1(i, 48) & 31) + 1;
        let mut acc = 0f32;
        for k in 0..trips {
            acc = acc * 0.5 + inp[(i + k) % n];
        }
        *o = acc;
    }
    let l = Launch::new("divergent_trip_count", [2, 1, 1], [48, 1, 1])
        .buf(Buf::F32(inp))
        .buf(Buf::F32(vec![0.0; 96]))
        .arg(s32(n as i32));
    check_kernel("divergent", &l, &[(1, Expect::Exact(Buf::F32(out)))]);
}

#[test]
fn collatz_steps() {
    let n = 90;
    let start: Vec<u32> = Rng::new(2)
        .i32s(n, 1, 1000)
        .iter()
        .map(|&x| x as u32)
        .collect();
    let mut steps = vec![0u32; 96];
    for i in 0..n {
        let mut x = u64::from(start[i] | 1);
        let mut s = 0u32;
        while x != 1 && s < 10000 {
            x = if x & 1 == 1 { 3 * x + 1 } else { x >> 1 };
            s += 1;
        }
        steps[i] = s;
    }
    let l = Launch::new("collatz_steps", [2, 1, 1], [48, 1, 1])
        .buf(Buf::U32(start))
        .buf(Buf::U32(vec![0; 96]))
        .arg(s32(n as i32));
    check_kernel("divergent", &l, &[(1, Expect::Exact(Buf::U32(steps)))]);
}

#[test]
fn switch_per_lane_divergent_cases() {
    let n = 90;
    let mut r = Rng::new(3);
    let sel = r.i32s(n, 0, 8);
    let x = r.f32u(n);
    let mut out = vec![0f32; 96];
    for i in 0..n {
        let v = x[i];
        out[i] = match sel[i] & 7 {
            0 => v,
            1 => v * v,
            2 => v * v * v,
            3 => v.sin(),
            4 => v.cos(),
            5 => v.exp(),
            6 => (v.abs() + 1.0).ln(),
            _ => 1.0 / (v.abs() + 1.0).sqrt(),
        };
    }
    let l = Launch::new("switch_per_lane", [2, 1, 1], [48, 1, 1])
        .buf(Buf::S32(sel))
        .buf(Buf::F32(x))
        .buf(Buf::F32(vec![0.0; 96]))
        .arg(s32(n as i32));
    check_kernel("switch", &l, &[(2, Expect::F32Near(out, 1e-5))]);
}

#[test]
fn sgemm_naive_2d_blocks() {
    let (m, n, k) = (20usize, 24usize, 16usize);
    let mut r = Rng::new(4);
    let a = r.f32i(m * k, -8, 8);
    let b = r.f32i(k * n, -8, 8);
    let c = r.f32i(m * n, -8, 8);
    let mut want = c.clone();
    for row in 0..m {
        for col in 0..n {
            let mut acc = 0f32;
            for kk in 0..k {
                acc += a[row * k + kk] * b[kk * n + col];
            }
            want[row * n + col] = 1.5 * acc + 0.5 * c[row * n + col];
        }
    }
    let l = Launch::new("sgemm_naive", [3, 3, 1], [8, 8, 1])
        .buf(Buf::F32(a))
        .buf(Buf::F32(b))
        .buf(Buf::F32(c))
        .arg(s32(m as i32))
        .arg(s32(n as i32))
        .arg(s32(k as i32))
        .arg(f32s(1.5))
        .arg(f32s(0.5));
    check_kernel("gemm", &l, &[(2, Expect::Exact(Buf::F32(want)))]);
}

#[allow(clippy::too_many_arguments, reason = "the GEMM signature")]
fn gemm_ref(
    a: &[f32],
    b: &[f32],
    c: &[f32],
    m: usize,
    n: usize,
    k: usize,
    alpha: f32,
    beta: f32,
) -> Vec<f32> {
    let mut want = c.to_vec();
    for row in 0..m {
        for col in 0..n {
            let acc: f32 = (0..k).map(|kk| a[row * k + kk] * b[kk * n + col]).sum();
            want[row * n + col] = alpha * acc + beta * c[row * n + col];
        }
    }
    want
}

#[test]
fn sgemm_tiled16_shared_tiles_and_barriers() {
    let (m, n, k) = (20usize, 24usize, 20usize);
    let mut r = Rng::new(5);
    let a = r.f32i(m * k, -4, 4);
    let b = r.f32i(k * n, -4, 4);
    let c = r.f32i(m * n, -4, 4);
    let want = gemm_ref(&a, &b, &c, m, n, k, 1.5, 0.5);
    let l = Launch::new("sgemm_tiled16", [2, 2, 1], [16, 16, 1])
        .buf(Buf::F32(a))
        .buf(Buf::F32(b))
        .buf(Buf::F32(c))
        .arg(s32(m as i32))
        .arg(s32(n as i32))
        .arg(s32(k as i32))
        .arg(f32s(1.5))
        .arg(f32s(0.5));
    check_kernel("gemm", &l, &[(2, Expect::Exact(Buf::F32(want)))]);
}

#[test]
fn sgemm_regtile_4x4() {
    let (m, n, k) = (64usize, 64usize, 16usize);
    let mut r = Rng::new(6);
    let a = r.f32i(m * k, -4, 4);
    let b = r.f32i(k * n, -4, 4);
    let want = gemm_ref(&a, &b, &vec![0.0; m * n], m, n, k, 1.0, 0.0);
    let l = Launch::new("sgemm_regtile_4x4", [1, 1, 1], [256, 1, 1])
        .buf(Buf::F32(a))
        .buf(Buf::F32(b))
        .buf(Buf::F32(vec![0.0; m * n]))
        .arg(s32(m as i32))
        .arg(s32(n as i32))
        .arg(s32(k as i32));
    check_kernel("gemm", &l, &[(2, Expect::Exact(Buf::F32(want)))]);
}

fn transpose_ref(inp: &[f32], w: usize, h: usize) -> Vec<f32> {
    let mut out = vec![0f32; w * h];
    for y in 0..h {
        for x in 0..w {
            out[x * h + y] = inp[y * w + x];
        }
    }
    out
}

#[test]
fn transpose_naive_and_padded() {
    let (w, h) = (40usize, 36usize);
    let inp = Rng::new(7).f32u(w * h);
    let want = transpose_ref(&inp, w, h);
    for kernel in ["transpose_naive", "transpose_padded"] {
        let l = Launch::new(kernel, [2, 2, 1], [32, 8, 1])
            .buf(Buf::F32(inp.clone()))
            .buf(Buf::F32(vec![0.0; w * h]))
            .arg(s32(w as i32))
            .arg(s32(h as i32));
        if !check_kernel(
            "transpose",
            &l,
            &[(1, Expect::Exact(Buf::F32(want.clone())))],
        ) {
            return;
        }
    }
}

#[test]
fn stencil1d_tiled_halo_and_naive() {
    let n = 500;
    let inp = Rng::new(8).f32u(n);
    let w = [0.05f32, 0.1, 0.2, 0.3, 0.2, 0.1, 0.05];
    let mut tiled = vec![0f32; 512];
    for (g, t) in tiled.iter_mut().enumerate().take(n) {
        let mut acc = 0f32;
        for k in -3i64..=3 {
            let j = g as i64 + k;
            let v = if j >= 0 && (j as usize) < n {
                inp[j as usize]
            } else {
                0.0
            };
            acc += w[(k + 3) as usize] * v;
        }
        *t = acc;
    }
    let l = Launch::new("stencil1d_tiled", [2, 1, 1], [256, 1, 1])
        .buf(Buf::F32(inp.clone()))
        .buf(Buf::F32(vec![0.0; 512]))
        .arg(s32(n as i32));
    if !check_kernel("stencil1d", &l, &[(1, Expect::F32Near(tiled, 1e-6))]) {
        return;
    }
    let n = 90;
    let inp = Rng::new(9).f32u(n);
    let mut naive = vec![0f32; 96];
    for g in 3..n - 3 {
        let mut acc = 0f32;
        for k in -3i64..=3 {
            acc += if k == 0 { 0.4 } else { 0.1 } * inp[(g as i64 + k) as usize];
        }
        naive[g] = acc;
    }
    let l = Launch::new("stencil1d_naive", [2, 1, 1], [48, 1, 1])
        .buf(Buf::F32(inp))
        .buf(Buf::F32(vec![0.0; 96]))
        .arg(s32(n as i32));
    check_kernel("stencil1d", &l, &[(1, Expect::F32Near(naive, 1e-6))]);
}

#[test]
fn jacobi2d_and_tiled_9pt() {
    let (nx, ny) = (20usize, 12usize);
    let a = Rng::new(10).f32i(nx * ny, -8, 8);
    let mut b = vec![0f32; nx * ny];
    for y in 1..ny - 1 {
        for x in 1..nx - 1 {
            let i = y * nx + x;
            b[i] = 0.2 * (a[i] + a[i - 1] + a[i + 1] + a[i - nx] + a[i + nx]);
        }
    }
    let l = Launch::new("jacobi2d_5pt", [3, 3, 1], [8, 4, 1])
        .buf(Buf::F32(a.clone()))
        .buf(Buf::F32(vec![0.0; nx * ny]))
        .arg(s32(nx as i32))
        .arg(s32(ny as i32));
    if !check_kernel("stencil2d", &l, &[(1, Expect::Exact(Buf::F32(b)))]) {
        return;
    }
    let at = |x: i64, y: i64| -> f32 {
        if x >= 0 && y >= 0 && (x as usize) < nx && (y as usize) < ny {
            a[y as usize * nx + x as usize]
        } else {
            0.0
        }
    };
    let mut b9 = vec![0f32; nx * ny];
    for y in 0..ny as i64 {
        for x in 0..nx as i64 {
            let c = at(x, y);
            let e = at(x - 1, y) + at(x + 1, y) + at(x, y - 1) + at(x, y + 1);
            let d = at(x - 1, y - 1) + at(x + 1, y - 1) + at(x - 1, y + 1) + at(x + 1, y + 1);
            b9[y as usize * nx + x as usize] = 0.5 * c + 0.1 * e + 0.025 * d;
        }
    }
    let l = Launch::new("stencil2d_tiled_9pt", [2, 1, 1], [16, 16, 1])
        .buf(Buf::F32(a.clone()))
        .buf(Buf::F32(vec![0.0; nx * ny]))
        .arg(s32(nx as i32))
        .arg(s32(ny as i32));
    check_kernel("stencil2d", &l, &[(1, Expect::F32Near(b9, 1e-6))]);
}

#[test]
fn stencil3d_7pt_3d_blocks() {
    let (nx, ny, nz) = (10usize, 6usize, 5usize);
    let a = Rng::new(11).f32i(nx * ny * nz, -8, 8);
    let mut b = vec![0f32; nx * ny * nz];
    let plane = nx * ny;
    for z in 1..nz - 1 {
        for y in 1..ny - 1 {
            for x in 1..nx - 1 {
                let i = z * plane + y * nx + x;
                b[i] = a[i - 1] + a[i + 1] + a[i - nx] + a[i + nx] + a[i - plane] + a[i + plane]
                    - 6.0 * a[i];
            }
        }
    }
    let l = Launch::new("stencil3d_7pt", [3, 2, 3], [4, 4, 2])
        .buf(Buf::F32(a))
        .buf(Buf::F32(vec![0.0; nx * ny * nz]))
        .arg(s32(nx as i32))
        .arg(s32(ny as i32))
        .arg(s32(nz as i32));
    check_kernel("stencil3d", &l, &[(1, Expect::Exact(Buf::F32(b)))]);
}

#[test]
fn reductions_shfl_and_smem_tree() {
    // reduce_sum_shfl_down: grid-stride partial sums, warp shuffles, shared warp sums, atomicAdd.
    let n = 300;
    let inp = Rng::new(12).f32i(n, -8, 8);
    let total: f32 = inp.iter().sum();
    let l = Launch::new("reduce_sum_shfl_down", [2, 1, 1], [64, 1, 1])
        .buf(Buf::F32(inp))
        .buf(Buf::F32(vec![0.0]))
        .arg(s32(n as i32));
    if !check_kernel("reduce", &l, &[(1, Expect::Exact(Buf::F32(vec![total])))]) {
        return;
    }
    // reduce_rows_shfl_xor: row sums and maxima, two rows per 64-thread block.
    let (rows, cols) = (5usize, 70usize);
    let mtx = Rng::new(13).f32i(rows * cols, -100, 100);
    let mut out = vec![0f32; 2 * rows];
    for row in 0..rows {
        let r = &mtx[row * cols..(row + 1) * cols];
        out[2 * row] = r.iter().sum();
        out[2 * row + 1] = r.iter().copied().fold(-3.4e38f32, f32::max);
    }
    let l = Launch::new("reduce_rows_shfl_xor", [3, 1, 1], [64, 1, 1])
        .buf(Buf::F32(mtx))
        .buf(Buf::F32(vec![0.0; 2 * rows]))
        .arg(s32(rows as i32))
        .arg(s32(cols as i32));
    if !check_kernel("reduce", &l, &[(1, Expect::Exact(Buf::F32(out)))]) {
        return;
    }
    // reduce_sum_smem_tree: 512 elements per 256-thread block.
    let n = 1000;
    let inp = Rng::new(14).i32s(n, -1000, 1000);
    let sums: Vec<i32> = (0..2)
        .map(|b| inp.iter().skip(512 * b).take(512).sum())
        .collect();
    let l = Launch::new("reduce_sum_smem_tree", [2, 1, 1], [256, 1, 1])
        .buf(Buf::S32(inp))
        .buf(Buf::S32(vec![0; 2]))
        .arg(s32(n as i32));
    check_kernel("reduce", &l, &[(1, Expect::Exact(Buf::S32(sums)))]);
}

#[test]
fn warp_and_block_scans() {
    let n = 120;
    let inp = Rng::new(15).i32s(n, -100, 100);
    let mut out = vec![0i32; 128];
    for i in 0..n {
        let seg = i / 32 * 32;
        out[i] = inp[seg..=i].iter().sum();
    }
    let l = Launch::new("warp_scan_inclusive", [2, 1, 1], [64, 1, 1])
        .buf(Buf::S32(inp))
        .buf(Buf::S32(vec![0; 128]))
        .arg(s32(n as i32));
    if !check_kernel("scan", &l, &[(1, Expect::Exact(Buf::S32(out)))]) {
        return;
    }
    // Block-wide exclusive scan, 96 threads (three warps) per block.
    let n = 180;
    let inp = Rng::new(16).i32s(n, -100, 100);
    let mut out = vec![0i32; 192];
    let mut sums = vec![0i32; 2];
    for b in 0..2 {
        let mut run = 0i32;
        for t in 0..96 {
            let i = b * 96 + t;
            let x = if i < n { inp[i] } else { 0 };
            if i < n {
                out[i] = run;
            }
            run += x;
        }
        sums[b] = run;
    }
    let l = Launch::new("block_scan_exclusive", [2, 1, 1], [96, 1, 1])
        .buf(Buf::S32(inp))
        .buf(Buf::S32(vec![0; 192]))
        .buf(Buf::S32(vec![0; 2]))
        .arg(s32(n as i32));
    check_kernel(
        "scan",
        &l,
        &[
            (1, Expect::Exact(Buf::S32(out))),
            (2, Expect::Exact(Buf::S32(sums))),
        ],
    );
}

#[test]
fn bitonic_sorts_block_and_warp() {
    let keys: Vec<u32> = Rng::new(17).u64s(2048).iter().map(|&x| x as u32).collect();
    let mut want = keys.clone();
    want[..1024].sort_unstable();
    want[1024..].sort_unstable();
    let l = Launch::new("bitonic_sort_1024", [2, 1, 1], [512, 1, 1]).buf(Buf::U32(keys));
    if !check_kernel("bitonic", &l, &[(0, Expect::Exact(Buf::U32(want)))]) {
        return;
    }
    let keys = Rng::new(18).i32s(128, -1000, 1000);
    let mut want = keys.clone();
    for c in want.chunks_mut(32) {
        c.sort_unstable();
    }
    let l = Launch::new("bitonic_warp_sort32", [2, 1, 1], [64, 1, 1]).buf(Buf::S32(keys));
    check_kernel("bitonic", &l, &[(0, Expect::Exact(Buf::S32(want)))]);
}

#[test]
fn histograms_global_and_shared_atomics() {
    let nwords = 100;
    let data: Vec<u32> = Rng::new(19)
        .u64s(nwords)
        .iter()
        .map(|&x| x as u32)
        .collect();
    let mut bins = vec![0u32; 256];
    for w in &data {
        for b in 0..4 {
            bins[((w >> (8 * b)) & 0xff) as usize] += 1;
        }
    }
    for kernel in ["histogram_global_atomic", "histogram_shared_atomic"] {
        let l = Launch::new(kernel, [2, 1, 1], [48, 1, 1])
            .buf(Buf::U32(data.clone()))
            .arg(s32(nwords as i32))
            .buf(Buf::U32(vec![0; 256]));
        if !check_kernel(
            "histogram",
            &l,
            &[(2, Expect::Exact(Buf::U32(bins.clone())))],
        ) {
            return;
        }
    }
}

#[test]
fn votes_ballot_any_all() {
    // ballot_compact: warps append in execution order (CTA order, then warp order).
    let n = 120;
    let inp = Rng::new(20).f32u(n);
    let thr = 0.2f32;
    let mut out = vec![0f32; n];
    let mut count = 0u32;
    for warp in 0..4 {
        let kept: Vec<f32> = (warp * 32..warp * 32 + 32)
            .filter(|&i| i < n && inp[i] > thr)
            .map(|i| inp[i])
            .collect();
        for (j, x) in kept.iter().enumerate() {
            out[count as usize + j] = *x;
        }
        count += kept.len() as u32;
    }
    let l = Launch::new("ballot_compact", [2, 1, 1], [64, 1, 1])
        .buf(Buf::F32(inp))
        .buf(Buf::F32(vec![0.0; n]))
        .buf(Buf::U32(vec![0]))
        .arg(s32(n as i32))
        .arg(f32s(thr));
    if !check_kernel(
        "vote",
        &l,
        &[
            (1, Expect::Exact(Buf::F32(out))),
            (2, Expect::Exact(Buf::U32(vec![count]))),
        ],
    ) {
        return;
    }
    // any_sync_search: the first index of the needle.
    let n = 200;
    let keys = Rng::new(21).i32s(n, 0, 50);
    let first = keys
        .iter()
        .position(|&k| k == 7)
        .map_or(1_000_000, |p| p as i32);
    let l = Launch::new("any_sync_search", [2, 1, 1], [64, 1, 1])
        .buf(Buf::S32(keys))
        .arg(s32(n as i32))
        .arg(s32(7))
        .buf(Buf::S32(vec![1_000_000]));
    if !check_kernel("vote", &l, &[(3, Expect::Exact(Buf::S32(vec![first])))]) {
        return;
    }
    // all_sync_sorted: warp 2 gets an inversion.
    let mut a: Vec<i32> = (0..128).collect();
    a.swap(70, 71);
    let mut flags = vec![1i32; 4];
    flags[2] = 0;
    let l = Launch::new("all_sync_sorted", [2, 1, 1], [64, 1, 1])
        .buf(Buf::S32(a))
        .buf(Buf::S32(vec![9; 4]))
        .arg(s32(128));
    check_kernel("vote", &l, &[(1, Expect::Exact(Buf::S32(flags)))]);
}

#[test]
fn syncthreads_count_or_bar_red() {
    let n = 120;
    let inp = Rng::new(22).f32u(n);
    let thr = 0.25f32;
    let mut counts = vec![0i32; 2];
    let mut any_neg = vec![0i32; 2];
    for b in 0..2 {
        for t in 0..64 {
            let i = b * 64 + t;
            let x = if i < n { inp[i] } else { 0.0 };
            counts[b] += i32::from(x > thr);
            any_neg[b] |= i32::from(x < 0.0);
        }
    }
    let l = Launch::new("syncthreads_count_or", [2, 1, 1], [64, 1, 1])
        .buf(Buf::F32(inp))
        .buf(Buf::S32(vec![0; 2]))
        .buf(Buf::S32(vec![0; 2]))
        .arg(f32s(thr))
        .arg(s32(n as i32));
    check_kernel(
        "sync",
        &l,
        &[
            (1, Expect::Exact(Buf::S32(counts))),
            (2, Expect::Exact(Buf::S32(any_neg))),
        ],
    );
}

#[test]
fn double_buffer_and_iterative_smooth() {
    let chunks = 3usize;
    let inp = Rng::new(23).f32i(2 * chunks * 256, -8, 8);
    let mut out = vec![0f32; inp.len()];
    for b in 0..2 {
        let src = &inp[b * chunks * 256..(b + 1) * chunks * 256];
        for k in 0..chunks {
            for t in 0..256 {
                let next = if t + 1 < 256 {
                    src[k * 256 + t + 1]
                } else if k + 1 < chunks {
                    src[(k + 1) * 256]
                } else {
                    0.0
                };
                out[b * chunks * 256 + k * 256 + t] = 0.5 * (src[k * 256 + t] + next);
            }
        }
    }
    let l = Launch::new("double_buffer_avg", [2, 1, 1], [256, 1, 1])
        .buf(Buf::F32(inp))
        .buf(Buf::F32(vec![0.0; 2 * chunks * 256]))
        .arg(s32(chunks as i32));
    if !check_kernel("sync", &l, &[(1, Expect::Exact(Buf::F32(out)))]) {
        return;
    }
    let iters = 4;
    let data = Rng::new(24).f32i(512, -8, 8);
    let mut want = data.clone();
    for b in 0..2 {
        let mut cur: Vec<f32> = std::iter::once(0.0)
            .chain(data[b * 256..(b + 1) * 256].iter().copied())
            .chain(std::iter::once(0.0))
            .collect();
        for _ in 0..iters {
            let mut nxt = cur.clone();
            for t in 1..=256 {
                nxt[t] = 0.25 * cur[t - 1] + 0.5 * cur[t] + 0.25 * cur[t + 1];
            }
            cur = nxt;
        }
        want[b * 256..(b + 1) * 256].copy_from_slice(&cur[1..=256]);
    }
    let l = Launch::new("smem_iterative_smooth", [2, 1, 1], [256, 1, 1])
        .buf(Buf::F32(data))
        .arg(s32(iters));
    check_kernel("sync", &l, &[(0, Expect::Exact(Buf::F32(want)))]);
}

#[test]
fn dynamic_shared_memory() {
    let n = 90;
    let inp = Rng::new(25).f32u(n);
    let mut out = vec![0f32; 96];
    for b in 0..2 {
        for t in 0..48 {
            let j = b * 48 + (47 - t);
            let i = b * 48 + t;
            if j < n {
                out[j] = if i < n { inp[i] } else { 0.0 };
            }
        }
    }
    let mut l = Launch::new("dynsmem_reverse", [2, 1, 1], [48, 1, 1])
        .buf(Buf::F32(inp))
        .buf(Buf::F32(vec![0.0; 96]))
        .arg(s32(n as i32));
    l.smem = 48 * 4;
    if !check_kernel("dynsmem", &l, &[(1, Expect::Exact(Buf::F32(out)))]) {
        return;
    }
    let mut r = Rng::new(26);
    let vals = r.f32i(n, -8, 8);
    let keys = r.i32s(n, 0, 4);
    let mut out = vec![0f32; 96];
    for b in 0..2 {
        for t in 0..48 {
            let i = b * 48 + t;
            if i >= n {
                continue;
            }
            let my = keys[i];
            out[i] = (0..48)
                .map(|k| b * 48 + k)
                .filter(|&j| (if j < n { keys[j] } else { -1 }) == my)
                .map(|j| vals[j])
                .sum();
        }
    }
    let mut l = Launch::new("dynsmem_two_arrays", [2, 1, 1], [48, 1, 1])
        .buf(Buf::F32(vals))
        .buf(Buf::S32(keys))
        .buf(Buf::F32(vec![0.0; 96]))
        .arg(s32(n as i32));
    l.smem = 48 * 8;
    check_kernel("dynsmem", &l, &[(2, Expect::Exact(Buf::F32(out)))]);
}

fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[test]
fn int64_hash_powmod_divmod() {
    let n = 90;
    let keys = Rng::new(27).u64s(n);
    let mut out = vec![0u64; 96];
    for i in 0..n {
        let mut h = keys[i];
        for r in 0..8u64 {
            h = splitmix(h.wrapping_add(r));
        }
        out[i] = h;
    }
    let l = Launch::new("hash_splitmix64", [2, 1, 1], [48, 1, 1])
        .buf(Buf::U64(keys))
        .buf(Buf::U64(vec![0; 96]))
        .arg(s32(n as i32));
    if !check_kernel("int64", &l, &[(1, Expect::Exact(Buf::U64(out)))]) {
        return;
    }
    let n = 40;
    let mut r = Rng::new(28);
    let base = r.u64s(n);
    let exp: Vec<u64> = (0..n).map(|_| r.int(0, 5000) as u64).collect();
    let m = 1_000_000_007u64;
    let mut out = vec![0u64; 48];
    for i in 0..n {
        let (mut b, mut e, mut acc) = (u128::from(base[i] % m), exp[i], 1u128);
        while e != 0 {
            if e & 1 == 1 {
                acc = acc * b % u128::from(m);
            }
            b = b * b % u128::from(m);
            e >>= 1;
        }
        out[i] = acc as u64;
    }
    let l = Launch::new("powmod64", [1, 1, 1], [48, 1, 1])
        .buf(Buf::U64(base))
        .buf(Buf::U64(exp))
        .buf(Buf::U64(vec![0; 48]))
        .arg(u64s(m))
        .arg(s32(n as i32));
    if !check_kernel("int64", &l, &[(2, Expect::Exact(Buf::U64(out)))]) {
        return;
    }
    let n = 90;
    let mut r = Rng::new(29);
    let a: Vec<i64> = r.u64s(n).iter().map(|&x| x as i64).collect();
    let d: Vec<i64> = (0..n).map(|_| r.int(-100_000, 100_000)).collect();
    let (mut q, mut rem, mut hi) = (vec![0i64; 96], vec![0i64; 96], vec![0u64; 96]);
    for i in 0..n {
        let y = d[i] | 1;
        q[i] = a[i].wrapping_div(y);
        rem[i] = a[i].wrapping_rem(y);
        hi[i] = ((u128::from(a[i] as u64) * u128::from(y as u64)) >> 64) as u64;
    }
    let l = Launch::new("divmod64", [2, 1, 1], [48, 1, 1])
        .buf(Buf::S64(a))
        .buf(Buf::S64(d))
        .buf(Buf::S64(vec![0; 96]))
        .buf(Buf::S64(vec![0; 96]))
        .buf(Buf::U64(vec![0; 96]))
        .arg(s32(n as i32));
    check_kernel(
        "int64",
        &l,
        &[
            (2, Expect::Exact(Buf::S64(q))),
            (3, Expect::Exact(Buf::S64(rem))),
            (4, Expect::Exact(Buf::U64(hi))),
        ],
    );
}

#[test]
fn fp64_daxpy_horner_ddot() {
    let n = 90;
    let mut r = Rng::new(30);
    let x: Vec<f64> = r.f32i(n, -8, 8).iter().map(|&v| f64::from(v)).collect();
    let y: Vec<f64> = r.f32i(96, -8, 8).iter().map(|&v| f64::from(v)).collect();
    let mut want = y.clone();
    for i in 0..n {
        want[i] = 2.5 * x[i] + y[i];
    }
    let l = Launch::new("daxpy", [2, 1, 1], [48, 1, 1])
        .arg(s32(n as i32))
        .arg(f64s(2.5))
        .buf(Buf::F64(x))
        .buf(Buf::F64(y));
    if !check_kernel("fp64", &l, &[(3, Expect::Exact(Buf::F64(want)))]) {
        return;
    }
    // Horner with explicit fma(): bit-exact with f64::mul_add.
    let xs: Vec<f64> = r.f32u(n).iter().map(|&v| f64::from(v) * 1.7).collect();
    let c: Vec<f64> = r.f32u(17).iter().map(|&v| f64::from(v)).collect();
    let mut out = vec![0f64; 96];
    for i in 0..n {
        let mut p = c[16];
        for k in (0..16).rev() {
            p = p.mul_add(xs[i], c[k]);
        }
        out[i] = p.abs().sqrt();
    }
    let l = Launch::new("dpoly_horner", [2, 1, 1], [48, 1, 1])
        .buf(Buf::F64(xs))
        .buf(Buf::F64(c))
        .buf(Buf::F64(vec![0.0; 96]))
        .arg(s32(n as i32));
    if !check_kernel("fp64", &l, &[(2, Expect::Exact(Buf::F64(out)))]) {
        return;
    }
    let n = 200;
    let xs: Vec<f64> = r.f32i(n, -8, 8).iter().map(|&v| f64::from(v)).collect();
    let ys: Vec<f64> = r.f32i(n, -8, 8).iter().map(|&v| f64::from(v)).collect();
    let dot: f64 = xs.iter().zip(&ys).map(|(a, b)| a * b).sum();
    let l = Launch::new("ddot_atomic", [2, 1, 1], [64, 1, 1])
        .buf(Buf::F64(xs))
        .buf(Buf::F64(ys))
        .buf(Buf::F64(vec![0.0]))
        .arg(s32(n as i32));
    check_kernel("fp64", &l, &[(2, Expect::Exact(Buf::F64(vec![dot])))]);
}

#[test]
fn device_calls_direct_recursive_indirect() {
    let n = 40;
    let v = Rng::new(31).f32i(9 * n, -8, 8);
    let mut out = vec![0f32; 48];
    for i in 0..n {
        let (a, b, c) = (
            &v[9 * i..9 * i + 3],
            &v[9 * i + 3..9 * i + 6],
            &v[9 * i + 6..9 * i + 9],
        );
        let bc = [
            b[1] * c[2] - b[2] * c[1],
            b[2] * c[0] - b[0] * c[2],
            b[0] * c[1] - b[1] * c[0],
        ];
        out[i] = a[0] * bc[0] + a[1] * bc[1] + a[2] * bc[2];
    }
    let l = Launch::new("call_noinline_triple", [1, 1, 1], [48, 1, 1])
        .buf(Buf::F32(v))
        .buf(Buf::F32(vec![0.0; 48]))
        .arg(s32(n as i32));
    if !check_kernel("calls", &l, &[(1, Expect::Exact(Buf::F32(out)))]) {
        return;
    }
    fn ack(m: u32, n: u32) -> u32 {
        if m == 0 {
            n + 1
        } else if n == 0 {
            ack(m - 1, 1)
        } else {
            ack(m - 1, ack(m, n - 1))
        }
    }
    let inp: Vec<u32> = Rng::new(32).u64s(48).iter().map(|&x| x as u32).collect();
    let mut out = vec![0u32; 48];
    for i in 0..n {
        out[i] = ack(inp[i] & 1, inp[i] & 7);
    }
    let l = Launch::new("call_recursive", [1, 1, 1], [48, 1, 1])
        .buf(Buf::U32(inp))
        .buf(Buf::U32(vec![0; 48]))
        .arg(s32(n as i32));
    if !check_kernel("calls", &l, &[(1, Expect::Exact(Buf::U32(out)))]) {
        return;
    }
    let mut r = Rng::new(33);
    let a = r.f32i(48, -8, 8);
    let b = r.f32i(48, -8, 8);
    let op = r.i32s(48, 0, 3);
    let mut out = vec![0f32; 48];
    for i in 0..n {
        out[i] = match op[i] {
            0 => a[i] + b[i],
            1 => a[i] * b[i],
            _ => a[i].max(b[i]),
        };
    }
    let l = Launch::new("call_indirect", [1, 1, 1], [48, 1, 1])
        .buf(Buf::F32(a))
        .buf(Buf::F32(b))
        .buf(Buf::S32(op))
        .buf(Buf::F32(vec![0.0; 48]))
        .arg(s32(n as i32));
    check_kernel("calls", &l, &[(3, Expect::Exact(Buf::F32(out)))]);
}

#[test]
fn local_memory_arrays() {
    let n = 90;
    let mut r = Rng::new(34);
    let inp = r.i32s(16 * n, -1000, 1000);
    let mut out = vec![0i32; 96];
    for t in 0..n {
        let mut v = inp[16 * t..16 * t + 16].to_vec();
        v.sort_unstable();
        out[t] = v[7] + v[8];
    }
    let l = Launch::new("local_insertion_sort16", [2, 1, 1], [48, 1, 1])
        .buf(Buf::S32(inp))
        .buf(Buf::S32(vec![0; 96]))
        .arg(s32(n as i32));
    if !check_kernel("localmem", &l, &[(1, Expect::Exact(Buf::S32(out)))]) {
        return;
    }
    let per = 20usize;
    let data: Vec<u8> = r.u64s(48 * per).iter().map(|&x| x as u8).collect();
    let mut out = vec![0u32; 48];
    for t in 0..48 {
        let mut bins = [0u32; 32];
        for k in 0..per {
            bins[(data[t * per + k] & 31) as usize] += 1;
        }
        let mut best = 0;
        for b in 1..32 {
            if bins[b] > bins[best] {
                best = b;
            }
        }
        out[t] = best as u32;
    }
    let l = Launch::new("local_private_bins", [1, 1, 1], [48, 1, 1])
        .buf(Buf::U8(data))
        .arg(s32(per as i32))
        .buf(Buf::U32(vec![0; 48]));
    if !check_kernel("localmem", &l, &[(2, Expect::Exact(Buf::U32(out)))]) {
        return;
    }
    let idx = r.i32s(8 * n, 0, 64);
    let inp = r.f32i(n, -8, 8);
    let mut out = vec![0f32; 96];
    for i in 0..n {
        let mut acc = 0f32;
        for k in 0..8 {
            let t = (idx[i * 8 + k] & 63) as usize;
            acc += inp[(i + t) % n] * t as f32;
        }
        out[i] = acc;
    }
    let l = Launch::new("local_dynamic_index", [2, 1, 1], [48, 1, 1])
        .buf(Buf::S32(idx))
        .buf(Buf::F32(inp))
        .buf(Buf::F32(vec![0.0; 96]))
        .arg(s32(n as i32));
    check_kernel("localmem", &l, &[(2, Expect::Exact(Buf::F32(out)))]);
}

#[test]
fn constant_memory_and_byval_params() {
    let (w, h) = (20usize, 12usize);
    let mut r = Rng::new(35);
    let img = r.f32i(w * h, -8, 8);
    let filt = r.f32i(25, -4, 4);
    let mut out = vec![0f32; w * h];
    for y in 0..h as i64 {
        for x in 0..w as i64 {
            let mut acc = 0f32;
            for dy in -2i64..=2 {
                for dx in -2i64..=2 {
                    let sx = (x + dx).clamp(0, w as i64 - 1) as usize;
                    let sy = (y + dy).clamp(0, h as i64 - 1) as usize;
                    acc += filt[((dy + 2) * 5 + dx + 2) as usize] * img[sy * w + sx];
                }
            }
            out[y as usize * w + x as usize] = acc;
        }
    }
    let mut l = Launch::new("conv2d_5x5_const", [3, 3, 1], [8, 4, 1])
        .buf(Buf::F32(img.clone()))
        .buf(Buf::F32(vec![0.0; w * h]))
        .arg(s32(w as i32))
        .arg(s32(h as i32));
    l.globals.push(("conv_filter", Buf::F32(filt)));
    if !check_kernel("conv2d", &l, &[(1, Expect::Exact(Buf::F32(out)))]) {
        return;
    }
    let taps = [1.0f32, -2.0, 3.0, -2.0, 1.0];
    let mut out = vec![0f32; w * h];
    for y in 0..h {
        for x in 0..w as i64 {
            let mut acc = 0f32;
            for d in -2i64..=2 {
                acc +=
                    taps[(d + 2) as usize] * img[y * w + (x + d).clamp(0, w as i64 - 1) as usize];
            }
            out[y * w + x as usize] = acc;
        }
    }
    let l = Launch::new("conv_row_param_taps", [2, 12, 1], [16, 1, 1])
        .buf(Buf::F32(img))
        .buf(Buf::F32(vec![0.0; w * h]))
        .arg(s32(w as i32))
        .arg(s32(h as i32))
        .arg(A::V(Buf::F32(taps.to_vec())));
    check_kernel("conv2d", &l, &[(1, Expect::Exact(Buf::F32(out)))]);
}

#[test]
fn cas_loops() {
    let n = 90;
    let inp = Rng::new(36).f32i(n, -1000, 1000);
    let mx = inp.iter().copied().fold(-100.0f32, f32::max);
    let l = Launch::new("cas_max_float", [2, 1, 1], [48, 1, 1])
        .buf(Buf::F32(inp))
        .buf(Buf::F32(vec![-100.0]))
        .arg(s32(n as i32));
    if !check_kernel("atomics_cas", &l, &[(1, Expect::Exact(Buf::F32(vec![mx])))]) {
        return;
    }
    let d: Vec<f64> = Rng::new(37)
        .f32i(n, -8, 8)
        .iter()
        .map(|&x| f64::from(x))
        .collect();
    let sum: f64 = d.iter().sum();
    let l = Launch::new("cas_add_double", [2, 1, 1], [48, 1, 1])
        .buf(Buf::F64(d))
        .buf(Buf::F64(vec![0.0]))
        .arg(s32(n as i32));
    if !check_kernel(
        "atomics_cas",
        &l,
        &[(1, Expect::Exact(Buf::F64(vec![sum])))],
    ) {
        return;
    }
    // Lock-free list push: following head through next visits every node once.
    for level in ["O0", "O3"] {
        let Some((m, path)) = kernel_module("atomics_cas", level) else {
            return;
        };
        let l = Launch::new("cas_list_push", [2, 1, 1], [48, 1, 1])
            .buf(Buf::S32(vec![-1]))
            .buf(Buf::S32(vec![0; 96]))
            .arg(s32(n as i32));
        let outs = run(&m, &path, &l).expect("runs");
        let word = |b: &[u8], i: usize| {
            i32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]])
        };
        let head = word(&outs[0].data, 0);
        let mut seen = vec![false; n];
        let mut cur = head;
        while cur != -1 {
            assert!(
                (0..n as i32).contains(&cur) && !seen[cur as usize],
                "{level}: bad list at {cur}"
            );
            seen[cur as usize] = true;
            cur = word(&outs[1].data, cur as usize);
        }
        assert!(seen.iter().all(|&s| s), "{level}: the list misses nodes");
    }
}

#[test]
fn half_precision() {
    let n = 90;
    let mut r = Rng::new(38);
    let inp = r.f32u(n);
    let scale = 3.0f32;
    let mut h = vec![0u16; 96];
    let mut out = vec![0f32; 96];
    for i in 0..n {
        let v = f32_to_f16(inp[i] * scale);
        h[i] = v;
        let vf = f16_to_f32(v);
        out[i] = f16_to_f32(f32_to_f16(vf * vf));
    }
    let l = Launch::new("half_roundtrip", [2, 1, 1], [48, 1, 1])
        .buf(Buf::F32(inp))
        .buf(Buf::F16(vec![0; 96]))
        .buf(Buf::F32(vec![0.0; 96]))
        .arg(f32s(scale))
        .arg(s32(n as i32));
    if !check_kernel(
        "half",
        &l,
        &[
            (1, Expect::Exact(Buf::F16(h))),
            (2, Expect::Exact(Buf::F32(out))),
        ],
    ) {
        return;
    }
    // haxpy: one f16 fma (the product is exact in f64, the sum exact too).
    // Multiples of 1/8: every intermediate value is exact.
    let x: Vec<u16> = r
        .f32i(n, -8, 8)
        .iter()
        .map(|&v| f32_to_f16(v / 8.0))
        .collect();
    let y: Vec<u16> = r
        .f32i(96, -8, 8)
        .iter()
        .map(|&v| f32_to_f16(v / 8.0))
        .collect();
    let a = f32_to_f16(1.5);
    let mut want = y.clone();
    for i in 0..n {
        let exact =
            f64::from(f16_to_f32(a)) * f64::from(f16_to_f32(x[i])) + f64::from(f16_to_f32(y[i]));
        // f64 → f16 via f32 is exact here: the value needs at most 24 significant bits.
        want[i] = f32_to_f16(exact as f32);
    }
    let l = Launch::new("haxpy", [2, 1, 1], [48, 1, 1])
        .arg(s32(n as i32))
        .arg(A::S(
            warpsmith::emu::launch::ElemType::F16,
            serde_json::json!("0x3e00"),
        ))
        .buf(Buf::F16(x))
        .buf(Buf::F16(y));
    check_kernel("half", &l, &[(3, Expect::Exact(Buf::F16(want)))]);
}

#[test]
fn spmv_scalar_and_vector() {
    let rows = 20usize;
    let mut rowptr = vec![0i32];
    for r in 0..rows {
        let last = *rowptr.last().unwrap_or(&0);
        rowptr.push(last + ((r * 7) % 5) as i32 * 9);
    }
    let nnz = *rowptr.last().unwrap_or(&0) as usize;
    let mut r = Rng::new(39);
    let cols = r.i32s(nnz, 0, 32);
    let vals = r.f32i(nnz, -8, 8);
    let x = r.f32i(32, -8, 8);
    let mut y = vec![0f32; rows];
    for row in 0..rows {
        for j in rowptr[row] as usize..rowptr[row + 1] as usize {
            y[row] += vals[j] * x[cols[j] as usize];
        }
    }
    for (kernel, grid, block) in [
        ("spmv_csr_scalar", 1u32, 48u32),
        ("spmv_csr_vector", 10, 64),
    ] {
        let l = Launch::new(kernel, [grid, 1, 1], [block, 1, 1])
            .buf(Buf::S32(rowptr.clone()))
            .buf(Buf::S32(cols.clone()))
            .buf(Buf::F32(vals.clone()))
            .buf(Buf::F32(x.clone()))
            .buf(Buf::F32(vec![0.0; rows]))
            .arg(s32(rows as i32));
        if !check_kernel("spmv", &l, &[(4, Expect::Exact(Buf::F32(y.clone())))]) {
            return;
        }
    }
}

#[test]
fn softmax_and_layernorm_approx() {
    let (rows, cols) = (5usize, 70usize);
    let mut r = Rng::new(40);
    let x = r.f32u(rows * cols);
    let mut y = vec![0f32; rows * cols];
    for row in 0..rows {
        let xr = &x[row * cols..(row + 1) * cols];
        let m = xr.iter().copied().fold(-3.4e38f32, f32::max);
        let s: f32 = xr.iter().map(|v| (v - m).exp()).sum();
        for c in 0..cols {
            y[row * cols + c] = (xr[c] - m).exp() / s;
        }
    }
    let l = Launch::new("softmax_warp_row", [3, 1, 1], [64, 1, 1])
        .buf(Buf::F32(x.clone()))
        .buf(Buf::F32(vec![0.0; rows * cols]))
        .arg(s32(rows as i32))
        .arg(s32(cols as i32));
    if !check_kernel("softmax", &l, &[(1, Expect::F32Near(y, 1e-5))]) {
        return;
    }
    let gamma = r.f32u(cols);
    let beta = r.f32u(cols);
    let eps = 1e-5f32;
    let mut y = vec![0f32; rows * cols];
    for row in 0..rows {
        let xr = &x[row * cols..(row + 1) * cols];
        let mean = xr.iter().sum::<f32>() / cols as f32;
        let var = xr.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / cols as f32;
        let rstd = 1.0 / (var + eps).sqrt();
        for c in 0..cols {
            y[row * cols + c] = (xr[c] - mean) * rstd * gamma[c] + beta[c];
        }
    }
    let l = Launch::new("layernorm_warp_row", [3, 1, 1], [64, 1, 1])
        .buf(Buf::F32(x))
        .buf(Buf::F32(gamma))
        .buf(Buf::F32(beta))
        .buf(Buf::F32(vec![0.0; rows * cols]))
        .arg(s32(rows as i32))
        .arg(s32(cols as i32))
        .arg(f32s(eps));
    check_kernel("softmax", &l, &[(3, Expect::F32Near(y, 1e-5))]);
}

#[test]
fn half2_gemv_shuffle_reduction() {
    let (rows, cols) = (4usize, 70usize);
    let mut r = Rng::new(41);
    let a: Vec<u16> = r
        .f32i(rows * cols, -4, 4)
        .iter()
        .map(|&v| f32_to_f16(v))
        .collect();
    let x: Vec<u16> = r.f32i(cols, -4, 4).iter().map(|&v| f32_to_f16(v)).collect();
    let mut y = vec![0f32; rows];
    for row in 0..rows {
        y[row] = (0..cols)
            .map(|c| f16_to_f32(a[row * cols + c]) * f16_to_f32(x[c]))
            .sum();
    }
    let l = Launch::new("hgemv_half2", [2, 1, 1], [64, 1, 1])
        .buf(Buf::F16(a))
        .buf(Buf::F16(x))
        .buf(Buf::F32(vec![0.0; rows]))
        .arg(s32(rows as i32))
        .arg(s32(cols as i32));
    check_kernel("half", &l, &[(2, Expect::Exact(Buf::F32(y)))]);
}

/// Every kernel of bench/kernels runs to completion at -O0 and -O3 without an emulator error
/// (the ones without a reference above included): a smoke test over the whole corpus.
#[test]
fn every_bench_kernel_runs() {
    let Some(clang) = clang() else {
        eprintln!("SKIPPED: clang-22 not found");
        return;
    };
    let _ = clang;
    let cases: Vec<(&str, Launch)> = vec![
        (
            "divergent",
            Launch::new("mandelbrot", [2, 2, 1], [8, 4, 1])
                .buf(Buf::U32(vec![0; 128]))
                .arg(s32(16))
                .arg(s32(8))
                .arg(f32s(-2.0))
                .arg(f32s(-1.0))
                .arg(f32s(0.15))
                .arg(f32s(0.25))
                .arg(u32s(50)),
        ),
        (
            "switch",
            Launch::new("switch_interpreter", [2, 1, 1], [48, 1, 1])
                .buf(Buf::U8((0..20).map(|i| (i * 5 % 13) as u8).collect()))
                .arg(s32(20))
                .buf(Buf::F32(Rng::new(50).f32u(90)))
                .buf(Buf::F32(vec![0.0; 96]))
                .arg(s32(90)),
        ),
        (
            "bigregs",
            Launch::new("many_accumulators128", [1, 1, 1], [48, 1, 1])
                .buf(Buf::F32(Rng::new(51).f32u(40)))
                .buf(Buf::F32(vec![0.0; 48]))
                .arg(s32(40))
                .arg(s32(2)),
        ),
        (
            "bigregs",
            Launch::new("nbody_8_per_thread", [1, 1, 1], [16, 1, 1])
                .buf(Buf::F32(Rng::new(52).f32u(256)))
                .buf(Buf::F32(vec![0.0; 192]))
                .arg(s32(64)),
        ),
        (
            "stencil3d",
            Launch::new("stencil3d_25pt_zmarch", [1, 1, 1], [8, 4, 1])
                .buf(Buf::F32(Rng::new(53).f32u(1440)))
                .buf(Buf::F32(vec![0.0; 1440]))
                .arg(s32(12))
                .arg(s32(10))
                .arg(s32(12)),
        ),
        (
            "launch_bounds",
            Launch::new("lb_256x4", [1, 1, 1], [48, 1, 1])
                .buf(Buf::F32(Rng::new(54).f32u(8192)))
                .buf(Buf::F32(vec![0.0; 48]))
                .arg(s32(8192)),
        ),
    ];
    for (file, l) in &cases {
        for level in ["O0", "O3"] {
            let Some((m, path)) = kernel_module(file, level) else {
                return;
            };
            if let Err(e) = run(&m, &path, l) {
                panic!("{} {level}: {e}", l.kernel);
            }
        }
    }
}
