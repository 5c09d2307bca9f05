//! Divergence-analysis time benchmark (not a timed test): generates one PTX kernel of at least
//! 100,000 instructions in the style clang-22 emits (unique virtual registers, address arithmetic,
//! global loads, divergent if-then regions whose results merge, uniform counted loops, warp
//! shuffles, FMA chains), parses it, then times `warpsmith::analysis::divergence::analyze_function`
//! (CFG, dominators, loops, liveness and the fixed point together), best of 5 runs.
//! Run: `cargo bench --bench divergence_time` (`-- --insts N` for another size). Results go in
//! docs/benchmarks.md; the target is under 100 ms.

use std::time::{Duration, Instant};

use warpsmith::analysis::divergence::{analyze_function, Options};
use warpsmith::ptx::parse_module;

/// Generates a kernel of about `target` instructions; returns (text, instruction count).
fn generate(target: usize) -> (String, usize) {
    let mut body = String::new();
    let (mut r, mut rd, mut p) = (10usize, 10usize, 1usize);
    let mut insts = 0usize;
    let mut seg = 0usize;
    let emit = |body: &mut String, s: String, insts: &mut usize| {
        body.push('\t');
        body.push_str(&s);
        body.push('\n');
        *insts += 1;
    };
    emit(
        &mut body,
        "ld.param.u64 %rd1, [big_param_0];".into(),
        &mut insts,
    );
    emit(
        &mut body,
        "ld.param.u32 %r1, [big_param_1];".into(),
        &mut insts,
    );
    emit(
        &mut body,
        "cvta.to.global.u64 %rd2, %rd1;".into(),
        &mut insts,
    );
    emit(&mut body, "mov.u32 %r2, %tid.x;".into(), &mut insts);
    emit(&mut body, "mov.u32 %r3, %ctaid.x;".into(), &mut insts);
    emit(&mut body, "mov.u32 %r4, %ntid.x;".into(), &mut insts);
    emit(
        &mut body,
        "mad.lo.s32 %r5, %r3, %r4, %r2;".into(),
        &mut insts,
    );
    emit(&mut body, "mov.b32 %r6, 0f00000000;".into(), &mut insts);
    while insts < target {
        seg += 1;
        // Address arithmetic and a load.
        let (i, a, b, x) = (r, rd, rd + 1, r + 1);
        r += 2;
        rd += 2;
        emit(
            &mut body,
            format!("add.s32 %r{i}, %r5, {};", seg * 64),
            &mut insts,
        );
        emit(
            &mut body,
            format!("mul.wide.s32 %rd{a}, %r{i}, 4;"),
            &mut insts,
        );
        emit(
            &mut body,
            format!("add.s64 %rd{b}, %rd2, %rd{a};"),
            &mut insts,
        );
        emit(
            &mut body,
            format!("ld.global.nc.f32 %r{x}, [%rd{b}];"),
            &mut insts,
        );
        // A divergent if-then whose result merges into the accumulator %r6.
        let q = p;
        p += 1;
        emit(
            &mut body,
            format!("setp.ge.s32 %p{q}, %r{i}, %r1;"),
            &mut insts,
        );
        emit(
            &mut body,
            format!("@%p{q} bra $L__BB0_{seg}_1;"),
            &mut insts,
        );
        let mut prev = x;
        for k in 0..8 {
            let y = r;
            r += 1;
            emit(
                &mut body,
                format!("fma.rn.f32 %r{y}, %r{prev}, 0f3F8{k:05X}, %r6;"),
                &mut insts,
            );
            prev = y;
        }
        emit(
            &mut body,
            format!("add.f32 %r6, %r6, %r{prev};"),
            &mut insts,
        );
        body.push_str(&format!("$L__BB0_{seg}_1:\n"));
        // A uniform counted loop with a shuffle inside.
        let (c, s, t, u, q2) = (r, r + 1, r + 2, r + 3, p);
        r += 4;
        p += 1;
        emit(&mut body, format!("mov.u32 %r{c}, 0;"), &mut insts);
        body.push_str(&format!("$L__BB0_{seg}_2:\n"));
        emit(
            &mut body,
            format!("shfl.sync.down.b32 %r{s}, %r6, 1, 31, -1;"),
            &mut insts,
        );
        emit(&mut body, format!("add.f32 %r6, %r6, %r{s};"), &mut insts);
        emit(
            &mut body,
            format!("mul.lo.s32 %r{t}, %r{c}, %r4;"),
            &mut insts,
        );
        emit(&mut body, format!("add.s32 %r{u}, %r{t}, %r3;"), &mut insts);
        emit(&mut body, format!("add.s32 %r{c}, %r{c}, 1;"), &mut insts);
        emit(
            &mut body,
            format!("setp.lt.u32 %p{q2}, %r{c}, %r1;"),
            &mut insts,
        );
        emit(
            &mut body,
            format!("@%p{q2} bra $L__BB0_{seg}_2;"),
            &mut insts,
        );
        // Stores of the segment.
        emit(
            &mut body,
            format!("st.global.f32 [%rd{b}], %r6;"),
            &mut insts,
        );
        emit(
            &mut body,
            format!("st.global.u32 [%rd{b}+4], %r{u};"),
            &mut insts,
        );
    }
    emit(&mut body, "ret;".into(), &mut insts);
    let text = format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n\n\
         .visible .entry big(.param .u64 big_param_0, .param .u32 big_param_1)\n.reqntid 256, 1, 1\n{{\n\
         \t.reg .pred %p<{p}>;\n\t.reg .b32 %r<{r}>;\n\t.reg .b64 %rd<{rd}>;\n{body}}}\n"
    );
    (text, insts)
}

fn main() {
    let mut target = 100_000usize;
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--insts") {
        if let Some(n) = args.get(i + 1).and_then(|v| v.parse().ok()) {
            target = n;
        }
    }
    let (text, insts) = generate(target);
    let m = parse_module(&text, "big.ptx").expect("generated PTX parses");
    let f = m.function("big").expect("kernel");
    let body = f.body.as_ref().expect("body");
    let mut best = Duration::MAX;
    let mut result = None;
    for _ in 0..5 {
        let t0 = Instant::now();
        let r = analyze_function(f, &Options::default()).expect("analysis");
        best = best.min(t0.elapsed());
        result = Some(r);
    }
    let r = result.expect("ran");
    let c = r.counts();
    println!(
        "divergence analysis: {insts} instructions, {} registers, {} divergent branches: best of 5 \
         {:.1} ms ({:.1} M instructions/s)",
        body.regs.len(),
        r.divergent_branches,
        best.as_secs_f64() * 1e3,
        insts as f64 / best.as_secs_f64() / 1e6
    );
    println!(
        "classes: {} constant, {} uniform (block), {} uniform (warp), {} constant-affine, {} \
         affine, {} divergent",
        c.constant, c.uniform_block, c.uniform_warp, c.constant_affine, c.affine, c.divergent
    );
    if best > Duration::from_millis(100) {
        println!("target (< 100 ms): NOT met");
    } else {
        println!("target (< 100 ms): met");
    }
}
