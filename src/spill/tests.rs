//! Tests of the spilling pass: every rewritten kernel is run against the original on the emulator
//! (several seeds and launch shapes) and, where ptxas is present, assembled by it.

use super::plan::{live_points, max_live_preds, PRED_REGS};
use super::*;
use crate::emu::equiv;
use crate::emu::launch::{spec_for, Hints};
use crate::ptx::parse_module;
use crate::ptx::print_module;

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

/// ptxas (where present) accepts `text` for sm_80; reported as skipped where it is absent.
fn assert_ptxas_accepts(text: &str) {
    if crate::tools::find(crate::tools::Tool::Ptxas).is_ok() {
        crate::tools::ptxas_accepts_source(text, "sm_80").unwrap_or_else(|e| panic!("{e}\n{text}"));
    } else {
        eprintln!("SKIPPED (ptxas check): ptxas not found");
    }
}

fn opts(n: u32) -> SpillOptions {
    SpillOptions {
        target: Target::MaxRegs(n),
        kernel: None,
        arch: "sm_80".into(),
        block_size: None,
        block_dim: None,
        smem_budget: None,
        use_ptxas: false,
        dynamic_smem: None,
        ptxas_args: Vec::new(),
        jobs: None,
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
    // Demoted values read by neighbouring instructions of one block: the clean-up reuses the
    // register instead of reloading.
    assert!(k.reloads_reused > 0, "{k:?}");
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
    assert_ptxas_accepts(&text);
}

/// Lane-affine values with a uniform (parameter) base live across a loop: Sampaio's affine rule
/// stores each base once per warp (or block) and rebuilds the value with one `mad`.
const AFFINE: &str = r#"
.version 8.0
.target sm_80
.address_size 64
.visible .entry aff(.param .u64 out, .param .u32 n, .param .u32 b)
.maxntid 64, 1, 1
{
	.reg .pred %p<3>;
	.reg .b32 %r<40>;
	.reg .b64 %rd<12>;
	ld.param.u64 %rd1, [out];
	ld.param.u32 %r1, [n];
	ld.param.u32 %r2, [b];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r3, %laneid;
	mov.u32 %r4, %tid.x;
	mad.lo.s32 %r10, %r3, 3, %r2;
	mad.lo.s32 %r11, %r3, 5, %r2;
	mad.lo.s32 %r12, %r3, -7, %r2;
	mad.lo.s32 %r13, %r3, 9, %r1;
	mad.lo.s32 %r14, %r3, 11, %r1;
	mad.lo.s32 %r15, %r3, 13, %r1;
	mul.wide.u32 %rd3, %r3, 8;
	add.s64 %rd4, %rd2, %rd3;
	mul.wide.u32 %rd5, %r3, 12;
	add.s64 %rd6, %rd5, %rd1;
	mov.u32 %r20, 0;
	mov.u32 %r21, 0;
	mov.u32 %r5, 0;
$L_loop:
	add.s32 %r20, %r20, %r10;
	xor.b32 %r20, %r20, %r11;
	add.s32 %r20, %r20, %r12;
	xor.b32 %r21, %r21, %r13;
	add.s32 %r21, %r21, %r14;
	xor.b32 %r21, %r21, %r15;
	add.s32 %r5, %r5, 1;
	setp.lt.u32 %p1, %r5, %r1;
	@%p1 bra $L_loop;
	add.s32 %r30, %r20, %r21;
	cvt.u32.u64 %r31, %rd6;
	add.s32 %r30, %r30, %r31;
	mul.wide.u32 %rd7, %r4, 4;
	add.s64 %rd8, %rd2, %rd7;
	st.global.u32 [%rd8], %r30;
	sub.s64 %rd9, %rd4, %rd2;
	cvt.u32.u64 %r32, %rd9;
	st.global.u32 [%rd8+256], %r32;
	ret;
}
"#;

#[test]
fn affine_values_keep_a_uniform_base_per_warp_and_compute_the_same_bytes() {
    let original = parse_module(AFFINE, "aff.ptx").unwrap();
    // At 12 the 32-bit affine values go; at 8 the 64-bit ones too (`mad.wide.s32`, two words).
    for cap in [12, 8] {
        let mut m = original.clone();
        let report = spill_module(&mut m, &opts(cap)).unwrap();
        let k = &report.kernels[0];
        let affine: Vec<&Demoted> = k
            .demoted
            .iter()
            .filter(|d| d.rule.starts_with("affine-"))
            .collect();
        assert!(affine.len() >= 3, "{k:?}");
        if cap == 8 {
            assert!(affine.iter().any(|d| d.reg.starts_with("%rd")), "{k:?}");
        }
        // No affine value takes a per-thread word.
        assert!(
            k.demoted
                .iter()
                .all(|d| d.class != "affine" || d.rule.starts_with("affine-")),
            "{k:?}"
        );
        let text = print_module(&m);
        assert!(text.contains("%laneid"), "{text}");
        let reparsed = parse_module(&text, "spilled.ptx").unwrap_or_else(|e| panic!("{e}\n{text}"));
        for (block, n, b) in [
            ([64u32, 1, 1], 5u64, 17u64),
            ([40, 1, 1], 3, 1000),
            ([16, 4, 1], 2, 3),
        ] {
            let threads = u64::from(block[0] * block[1]);
            let spec = spec_for(
                original.function("aff").unwrap(),
                &Hints::new()
                    .block(&block)
                    .len_of(0, threads + 64)
                    .scalar(1, serde_json::json!(n))
                    .scalar(2, serde_json::json!(b)),
            )
            .unwrap();
            let r = equiv::check(&original, &reparsed, &spec, 3).unwrap();
            assert!(
                r.is_equal(),
                "cap {cap}, block {block:?}: {:?}\n{text}",
                r.verdict
            );
        }
        if crate::tools::find(crate::tools::Tool::Ptxas).is_ok() {
            crate::tools::ptxas_accepts_source(&text, "sm_80")
                .unwrap_or_else(|e| panic!("{e}\n{text}"));
        }
    }
}

/// A kernel with `np` predicates set early from loaded values and all read in a loop (`selp`)
/// next to `na` accumulators; odd threads redefine two of them through a two-destination `setp`
/// and one through a guarded `setp` (a divergent branch).
fn preds_kernel(np: usize, na: usize) -> String {
    use std::fmt::Write;
    let mut s = String::from(
        ".version 8.0\n.target sm_80\n.address_size 64\n\
         .visible .entry preds(.param .u64 in, .param .u64 out, .param .u32 n)\n.maxntid 64, 1, 1\n{\n\
         \t.reg .pred %p<80>;\n\t.reg .b32 %r<200>;\n\t.reg .b64 %rd<8>;\n\
         \tld.param.u64 %rd1, [in];\n\tld.param.u64 %rd2, [out];\n\tld.param.u32 %r1, [n];\n\
         \tcvta.to.global.u64 %rd3, %rd1;\n\tcvta.to.global.u64 %rd4, %rd2;\n\
         \tmov.u32 %r2, %tid.x;\n\tmul.wide.u32 %rd5, %r2, 4;\n\tadd.s64 %rd6, %rd3, %rd5;\n\
         \tld.global.u32 %r10, [%rd6];\n\tld.global.u32 %r9, [%rd6+256];\n",
    );
    for i in 0..np {
        let _ = writeln!(
            s,
            "\tld.global.u32 %r{}, [%rd6+{}];",
            100 + i,
            512 + 256 * i
        );
        let _ = writeln!(s, "\tsetp.gt.u32 %p{}, %r{}, %r9;", i + 2, 100 + i);
    }
    s.push_str(
        "\tand.b32 %r6, %r2, 1;\n\tsetp.eq.u32 %p78, %r6, 0;\n\t@%p78 bra $L_even;\n\
         \tsetp.lt.u32 %p3|%p4, %r100, %r101;\n\t@%p5 setp.ne.u32 %p6, %r102, %r103;\n$L_even:\n",
    );
    for i in 0..na {
        let _ = writeln!(s, "\tmul.lo.s32 %r{}, %r10, {};", 11 + i, 2 * i + 3);
    }
    s.push_str("\tmov.u32 %r5, 0;\n$L_loop:\n");
    for i in 0..na {
        let _ = writeln!(
            s,
            "\tadd.s32 %r{}, %r{}, %r{};",
            11 + i,
            11 + i,
            11 + (i + na - 1) % na
        );
    }
    for i in 0..np {
        let _ = writeln!(s, "\tselp.b32 %r8, {}, %r5, %p{};", i + 1, i + 2);
        let _ = writeln!(s, "\txor.b32 %r{0}, %r{0}, %r8;", 11 + i % na);
    }
    s.push_str(
        "\tadd.s32 %r5, %r5, 1;\n\tsetp.lt.u32 %p1, %r5, %r1;\n\t@%p1 bra $L_loop;\n\tmov.u32 %r7, 0;\n",
    );
    for i in 0..na {
        let _ = writeln!(s, "\tadd.s32 %r7, %r7, %r{};", 11 + i);
    }
    s.push_str("\tadd.s64 %rd7, %rd4, %rd5;\n\tst.global.u32 [%rd7], %r7;\n\tret;\n}\n");
    s
}

/// Runs `original` and `spilled` (kernel `preds`) on the emulator over several launch shapes,
/// including blocks where odd and even threads take different paths.
fn preds_equiv(original: &Module, spilled: &Module, np: usize, text: &str) {
    let in_len = 64 + 64 * (np as u64 + 2);
    for (block, n) in [
        ([64u32, 1, 1], 3u64),
        ([48, 1, 1], 2),
        ([33, 1, 1], 1),
        ([16, 4, 1], 2),
    ] {
        let threads = u64::from(block[0] * block[1]);
        let spec = spec_for(
            original.function("preds").unwrap(),
            &Hints::new()
                .block(&block)
                .len_of(0, in_len)
                .len_of(1, threads)
                .ty(0, crate::emu::launch::ElemType::U32)
                .ty(1, crate::emu::launch::ElemType::U32)
                .scalar(2, serde_json::json!(n)),
        )
        .unwrap();
        let r = equiv::check(original, spilled, &spec, 3).unwrap();
        assert!(r.is_equal(), "block {block:?}: {:?}\n{text}", r.verdict);
    }
}

#[test]
fn predicates_beyond_seven_are_packed_into_a_word_and_compute_the_same_bytes() {
    let src = preds_kernel(16, 24);
    let original = parse_module(&src, "preds.ptx").unwrap();
    let mut m = original.clone();
    let report = spill_module(&mut m, &opts(28)).unwrap();
    let k = &report.kernels[0];
    let packed: Vec<&Demoted> = k
        .demoted
        .iter()
        .filter(|d| d.rule == "packed-predicate")
        .collect();
    // 16 predicates plus the loop's and the branch's are live at the peak: all but 7 go, into
    // one word per thread.
    let f = original.function("preds").unwrap();
    let body = f.body.as_ref().unwrap();
    let live = live_points(body);
    let peak = max_live_preds(body, &live, body.regs.len());
    assert!(peak > PRED_REGS, "peak {peak}");
    assert_eq!(packed.len(), peak - PRED_REGS, "{k:?}");
    // The guarded def and the two-destination setp's predicates are among those packed, so the
    // divergent branch exercises the read-modify-write of a word other threads also own bits of.
    assert!(
        ["%p3", "%p4", "%p6"]
            .iter()
            .all(|p| packed.iter().any(|d| d.reg == *p)),
        "{k:?}"
    );
    assert!(k.notes.iter().any(|n| n.contains("without ptxas")), "{k:?}");
    let text = print_module(&m);
    assert!(text.contains("ld.volatile.shared.u32"), "{text}");
    assert!(text.contains("selp.u32"), "{text}");
    let reparsed = parse_module(&text, "spilled.ptx").unwrap_or_else(|e| panic!("{e}\n{text}"));
    preds_equiv(&original, &reparsed, 16, &text);
    assert_ptxas_accepts(&text);
}

#[test]
fn more_than_32_packed_predicates_take_a_second_word_and_bit_31() {
    let src = preds_kernel(40, 4);
    let original = parse_module(&src, "preds40.ptx").unwrap();
    let mut m = original.clone();
    let report = spill_module(&mut m, &opts(8)).unwrap();
    let k = &report.kernels[0];
    let packed = k
        .demoted
        .iter()
        .filter(|d| d.rule == "packed-predicate")
        .count();
    assert!(packed > 32, "{k:?}");
    let text = print_module(&m);
    // Bit 31's mask and its complement.
    assert!(text.contains("-2147483648"), "{text}");
    assert!(text.contains("2147483647"), "{text}");
    let reparsed = parse_module(&text, "spilled.ptx").unwrap_or_else(|e| panic!("{e}\n{text}"));
    preds_equiv(&original, &reparsed, 40, &text);
    if crate::tools::find(crate::tools::Tool::Ptxas).is_ok() {
        crate::tools::ptxas_accepts_source(&text, "sm_80")
            .unwrap_or_else(|e| panic!("{e}\n{text}"));
    }
}

/// The figures of the packing note: (local memory, spill area) with packing, then without.
fn packing_figures(note: &str) -> Option<((u64, u64), (u64, u64))> {
    let nums: Vec<u64> = note
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|w| w.parse().ok())
        .collect();
    // "<n> predicates packed: ptxas <l> B local memory, spill area <a> B; without packing <l'>
    // B local memory, spill area <a'> B: …"
    (nums.len() >= 5).then(|| ((nums[1], nums[2]), (nums[3], nums[4])))
}

/// With ptxas, packing is kept only where ptxas then needs less — less local memory, or as
/// little and a smaller area — and the report says which and why. On this kernel it no longer
/// wins at either cap: since reloads inside loops are volatile, the general demotions alone need
/// no larger an area (at `.maxnreg 28`: 1024 B both ways; before, packing won with 768 B).
#[test]
fn ptxas_decides_whether_packing_stays() {
    if crate::tools::find(crate::tools::Tool::Ptxas).is_err() {
        eprintln!("SKIPPED: ptxas not found");
        return;
    }
    let src = preds_kernel(16, 24);
    let original = parse_module(&src, "preds.ptx").unwrap();
    for cap in [28u32, 32] {
        let mut m = original.clone();
        let mut o = opts(cap);
        o.use_ptxas = true;
        let report = spill_module(&mut m, &o).unwrap();
        let k = &report.kernels[0];
        assert_eq!(k.ptxas_local_bytes, Some(0), "cap {cap}: {k:?}");
        let has_packed = k.demoted.iter().any(|d| d.rule == "packed-predicate");
        let note = k
            .choices
            .iter()
            .find(|n| n.contains("predicates packed"))
            .unwrap_or_else(|| panic!("cap {cap}: no packing note: {k:?}"));
        let (packed, plain) = packing_figures(note).unwrap_or_else(|| panic!("cap {cap}: {note}"));
        let kept = packed.0 < plain.0 || (packed.0 == plain.0 && packed.1 < plain.1);
        assert_eq!(has_packed, kept, "cap {cap}: {k:?}");
        let note = if kept {
            "packing kept"
        } else {
            "packing dropped"
        };
        assert!(
            k.choices.iter().any(|n| n.contains(note)),
            "cap {cap}: {k:?}"
        );
        if !kept {
            assert!(
                k.not_demoted.iter().any(|n| n.starts_with("predicate ")),
                "{k:?}"
            );
        }
        let text = print_module(&m);
        let reparsed = parse_module(&text, "spilled.ptx").unwrap_or_else(|e| panic!("{e}\n{text}"));
        preds_equiv(&original, &reparsed, 16, &text);
    }
}

/// With ptxas, the cost order may run past the shared-memory budget before ptxas stops spilling:
/// the pass then searches on past it and keeps a set that ptxas compiles without local memory
/// once the removal searches bring it back within the budget. The budget here is the area the
/// pass needs when unconstrained, which the greedy order overshoots.
#[test]
fn the_order_may_run_past_the_budget_when_the_removals_bring_it_back() {
    if crate::tools::find(crate::tools::Tool::Ptxas).is_err() {
        eprintln!("SKIPPED: ptxas not found");
        return;
    }
    let src = preds_kernel(0, 40);
    let original = parse_module(&src, "acc40.ptx").unwrap();
    let cap = 32;
    let mut free = opts(cap);
    free.use_ptxas = true;
    free.smem_budget = Some(48 * 1024);
    let unconstrained = spill_module(&mut original.clone(), &free).unwrap().kernels[0].clone();
    eprintln!("{unconstrained:?}");
    assert_eq!(
        unconstrained.ptxas_local_bytes,
        Some(0),
        "{unconstrained:?}"
    );
    let budget = unconstrained.smem_bytes as u32;
    let mut tight = free.clone();
    tight.smem_budget = Some(budget);
    let mut m = original.clone();
    let k = spill_module(&mut m, &tight).unwrap().kernels[0].clone();
    eprintln!("{k:?}");
    assert_eq!(k.ptxas_local_bytes, Some(0), "{k:?}");
    assert!(k.smem_bytes <= u64::from(budget), "{k:?}");
    assert!(
        k.notes.iter().any(|n| n.contains("ran past the budget")),
        "the greedy order should overshoot a budget this tight: {k:?}"
    );
    let text = print_module(&m);
    let reparsed = parse_module(&text, "spilled.ptx").unwrap_or_else(|e| panic!("{e}\n{text}"));
    preds_equiv(&original, &reparsed, 0, &text);
}

/// The removal passes probe a window of removals at once and keep the first acceptance, so the
/// kernel, its area and its report are the ones the one-at-a-time search gives.
#[test]
fn the_search_gives_the_same_result_with_any_number_of_jobs() {
    if crate::tools::find(crate::tools::Tool::Ptxas).is_err() {
        eprintln!("SKIPPED: ptxas not found");
        return;
    }
    let original = parse_module(&preds_kernel(0, 40), "acc40.ptx").unwrap();
    let run = |jobs: usize| {
        let mut o = opts(32);
        o.use_ptxas = true;
        o.smem_budget = Some(48 * 1024);
        o.jobs = Some(jobs);
        let mut m = original.clone();
        let k = spill_module(&mut m, &o).unwrap().kernels[0].clone();
        (print_module(&m), k)
    };
    let (one_text, one) = run(1);
    assert_eq!(one.ptxas_local_bytes, Some(0), "{one:?}");
    assert!(one.kept, "{one:?}");
    for jobs in [2, 5] {
        let (text, k) = run(jobs);
        assert_eq!(text, one_text, "jobs = {jobs}");
        assert_eq!(k.smem_bytes, one.smem_bytes, "jobs = {jobs}");
        assert_eq!(
            format!("{:?}", k.demoted),
            format!("{:?}", one.demoted),
            "jobs = {jobs}"
        );
    }
}

/// `auto` searches a cap whole (removals, widening) only once its rewrite may be kept
/// ([`caps`]); a whole search at a cap is the same search whenever it runs, so the kept rewrite
/// is the one `--max-regs` gives at the kept cap, and a cap that could not have given a higher
/// occupancy is left unsearched and said to be.
#[test]
fn auto_keeps_what_max_regs_gives_at_the_kept_cap() {
    if crate::tools::find(crate::tools::Tool::Ptxas).is_err() {
        eprintln!("SKIPPED: ptxas not found");
        return;
    }
    let src = preds_kernel(0, 40).replace(".maxntid 64, 1, 1", ".maxntid 256, 1, 1");
    let original = parse_module(&src, "acc40.ptx").unwrap();
    let run = |target: Target| {
        let mut o = opts(0);
        o.target = target;
        o.use_ptxas = true;
        o.jobs = Some(1);
        let mut m = original.clone();
        let k = spill_module(&mut m, &o).unwrap().kernels[0].clone();
        (print_module(&m), k)
    };
    let (auto_text, auto) = run(Target::Auto);
    assert!(auto.kept, "{auto:#?}");
    assert!(auto.attempts.len() >= 2, "several caps: {auto:#?}");
    let (text, asked) = run(Target::MaxRegs(auto.max_regs));
    assert_eq!(auto_text, text);
    assert_eq!(auto.smem_bytes, asked.smem_bytes);
    assert_eq!(auto.verdict, asked.verdict);
    let kept_row = auto
        .attempts
        .iter()
        .find(|a| a.max_regs == auto.max_regs)
        .expect("the kept cap has a row");
    assert_eq!(kept_row.smem_bytes, auto.smem_bytes, "{auto:#?}");
    for a in auto.attempts.iter().filter(|a| a.max_regs > auto.max_regs) {
        assert!(
            a.reason.contains("not searched further"),
            "a higher cap searched whole: {auto:#?}"
        );
    }
}

/// A kernel whose PTX pressure is all parameters: `n` loop-invariant values loaded from
/// `.param` (ptxas reads them from the constant bank) added to one per-thread sum in a loop.
fn params_kernel(n: usize) -> String {
    let params: Vec<String> = (0..n).map(|i| format!(".param .u32 q{i}")).collect();
    let mut s = format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n\
         .visible .entry many(.param .u64 out, .param .u32 trips, {})\n.maxntid 256, 1, 1\n{{\n\
         .reg .pred %p<2>;\n.reg .b32 %r<{}>;\n.reg .b64 %rd<5>;\n\
         ld.param.u64 %rd1, [out];\nld.param.u32 %r1, [trips];\nmov.u32 %r2, %tid.x;\n\
         mov.u32 %r3, 0;\nmov.u32 %r4, %r2;\n",
        params.join(", "),
        n + 10
    );
    for i in 0..n {
        s += &format!("ld.param.u32 %r{}, [q{i}];\n", i + 10);
    }
    s += "$L_loop:\n";
    for i in 0..n {
        s += &format!("add.s32 %r4, %r4, %r{};\n", i + 10);
    }
    s += "add.s32 %r3, %r3, 1;\nsetp.lt.u32 %p1, %r3, %r1;\n@%p1 bra $L_loop;\n\
          cvta.to.global.u64 %rd2, %rd1;\nmul.wide.u32 %rd3, %r2, 4;\nadd.s64 %rd4, %rd2, %rd3;\n\
          st.global.u32 [%rd4], %r4;\nret;\n}\n";
    s
}

#[test]
fn without_ptxas_auto_starts_from_the_register_model_not_the_pressure() {
    let src = params_kernel(48);
    let original = parse_module(&src, "many.ptx").unwrap();
    let pressure = pressure_of(original.function("many").unwrap().body.as_ref().unwrap());
    assert!(
        pressure > 48,
        "the test kernel must need many units (has {pressure})"
    );
    let mut m = original.clone();
    let o = SpillOptions {
        target: Target::Auto,
        ..opts(0)
    };
    let report = spill_module(&mut m, &o).unwrap();
    let k = &report.kernels[0];
    // The parameters stay in the constant bank: ptxas needs a handful of registers, the full
    // occupancy of 256-thread blocks is reached already and there is no cap to try.
    let predicted = k
        .predicted_registers_before
        .expect("a prediction without ptxas");
    assert!(predicted <= 32, "{k:?}");
    assert!(!k.kept, "{k:?}");
    assert!(k.verdict.contains("highest occupancy"), "{k:?}");
    assert_eq!(print_module(&m), print_module(&original));
}

#[test]
fn without_ptxas_the_budget_leaves_room_for_the_kernels_own_shared_arrays() {
    // `acc` with a 47 KiB shared array of its own: 1 KiB of the 48 KiB a block may declare
    // is left for the spill area.
    let src = KERNEL
        .replace(
            ".visible .entry acc",
            ".shared .align 4 .b8 big[48128];\n.visible .entry acc",
        )
        .replace(
            "\tst.global.u32 [%rd7], %r30;",
            "\tst.global.u32 [%rd7], %r30;\n\tst.shared.u32 [big], %r30;",
        );
    let mut m = parse_module(&src, "acc.ptx").unwrap();
    let report = spill_module(&mut m, &opts(16)).unwrap();
    let k = &report.kernels[0];
    assert!(k.smem_bytes > 0 && k.smem_bytes <= 1024, "{k:?}");
    let text = print_module(&m);
    assert_ptxas_accepts(&text);
}

#[test]
fn without_ptxas_a_shared_array_past_any_limit_is_an_error_not_a_panic() {
    let src = KERNEL
        .replace(
            ".visible .entry acc",
            ".shared .align 4 .b8 big[5000000000];\n.visible .entry acc",
        )
        .replace(
            "\tst.global.u32 [%rd7], %r30;",
            "\tst.global.u32 [%rd7], %r30;\n\tst.shared.u32 [big], %r30;",
        );
    let mut m = parse_module(&src, "acc.ptx").unwrap();
    let before = print_module(&m);
    let auto = SpillOptions {
        target: Target::Auto,
        ..opts(0)
    };
    let e = spill_module(&mut m, &auto).unwrap_err();
    assert!(e.to_string().contains("shared memory"), "{e}");
    assert_eq!(print_module(&m), before);
}

#[test]
fn an_unchecked_rewrite_is_judged_by_the_register_model() {
    let mut m = parse_module(KERNEL, "acc.ptx").unwrap();
    let mut k = spill_module(&mut m, &opts(16)).unwrap().kernels[0].clone();
    k.occupancy_before = 0.5;
    k.occupancy_after = 0.75;
    k.predicted_registers = Some(20);
    // Asked for exactly this cap: kept, with the model's warning.
    let asked = judge_unchecked(&k, Target::MaxRegs(16)).unwrap();
    assert!(asked.contains("expected to spill"), "{asked}");
    // A cap the pass chose: the original stays.
    let chosen = judge_unchecked(&k, Target::Auto).unwrap_err();
    assert!(chosen.contains("20 registers"), "{chosen}");
    k.predicted_registers = Some(15);
    assert!(judge_unchecked(&k, Target::Auto).is_ok());
    k.occupancy_after = 0.5;
    let flat = judge_unchecked(&k, Target::Auto).unwrap_err();
    assert!(flat.contains("does not rise"), "{flat}");
}

/// A block shape the kernel's launch bounds or the given block size contradict refuses the
/// kernel (and leaves the module as it was); one they allow is taken.
#[test]
fn a_block_shape_must_agree_with_the_launch_bounds() {
    let refused = |text: &str, dim: [u32; 3], block_size: Option<u32>| {
        let original = parse_module(text, "acc.ptx").unwrap();
        let mut m = original.clone();
        let o = SpillOptions {
            block_dim: Some(dim),
            block_size,
            ..opts(16)
        };
        match spill_module(&mut m, &o) {
            Err(SpillError::Refused { why, .. }) => {
                assert_eq!(m, original);
                Some(why)
            }
            Err(e) => panic!("{e}"),
            Ok(_) => None,
        }
    };
    // `.maxntid 64, 1, 1`: at most 64 threads.
    assert!(refused(KERNEL, [64, 1, 1], None).is_none());
    assert!(refused(KERNEL, [32, 2, 1], None).is_none());
    let why = refused(KERNEL, [128, 1, 1], None).expect("more than .maxntid");
    assert!(why.contains("exceeds its .maxntid"), "{why}");
    let req = KERNEL.replace(".maxntid 64, 1, 1", ".reqntid 64");
    assert!(refused(&req, [64, 1, 1], None).is_none());
    let why = refused(&req, [32, 2, 1], None).expect("not the .reqntid");
    assert!(why.contains("is not its .reqntid (64x1x1)"), "{why}");
    let open = KERNEL.replace(".maxntid 64, 1, 1\n", "");
    assert!(refused(&open, [32, 2, 1], Some(64)).is_none());
    let why = refused(&open, [32, 2, 1], Some(128)).expect("not the block size");
    assert!(why.contains("the block size given 128"), "{why}");
}

/// With a block shape, the pass classifies the registers with and without it, where the two
/// differ, and keeps the better rewrite; where they agree (the shape is the `.reqntid`) it
/// classifies once.
#[test]
fn a_given_block_shape_is_tried_against_the_classes_without_it() {
    let count = |text: &str, dim: Option<[u32; 3]>| {
        let m = parse_module(text, "acc.ptx").unwrap();
        let o = SpillOptions {
            block_dim: dim,
            ..opts(16)
        };
        classifications(m.function("acc").unwrap(), &o)
            .unwrap()
            .iter()
            .map(|c| c.shape)
            .collect::<Vec<_>>()
    };
    assert_eq!(count(KERNEL, None), vec![None]);
    assert_eq!(
        count(KERNEL, Some([64, 1, 1])),
        vec![Some([64, 1, 1]), None]
    );
    let req = KERNEL.replace(".maxntid 64, 1, 1", ".reqntid 64");
    assert_eq!(count(&req, Some([64, 1, 1])), vec![Some([64, 1, 1])]);
    // The kept rewrite is the one with the smaller spill area, and says so.
    let mut m = parse_module(KERNEL, "acc.ptx").unwrap();
    let shaped = SpillOptions {
        block_dim: Some([64, 1, 1]),
        ..opts(16)
    };
    let with = spill_module(&mut m, &shaped).unwrap().kernels[0].clone();
    let mut m = parse_module(KERNEL, "acc.ptx").unwrap();
    let without = spill_module(&mut m, &opts(16)).unwrap().kernels[0].clone();
    assert!(with.smem_bytes <= without.smem_bytes);
    assert!(
        with.choices[0].starts_with("divergence classes tried 2 ways"),
        "{:?}",
        with.choices
    );
}

/// The rules read one fact of where a register is defined: the loop depth of its only
/// definition, none when it has several or none.
#[test]
fn a_sole_definition_is_found_with_its_loop_depth() {
    let m = parse_module(KERNEL, "acc.ptx").unwrap();
    let body = m.functions().next().unwrap().body.as_ref().unwrap();
    let (cfg, loops) = plan::cfg_and_loops(body);
    let depths = plan::sole_definition_depths(body, &cfg, &loops);
    let depth_of = |name: &str| depths[body.reg_by_name(name).unwrap().index()];
    assert_eq!(depth_of("%r3"), Some(0), "mov before the loop");
    assert_eq!(depth_of("%p1"), Some(1), "setp inside the loop");
    assert_eq!(depth_of("%r11"), None, "written before and inside the loop");
    assert_eq!(depth_of("%r30"), None, "written thirteen times");
    assert_eq!(depth_of("%r31"), None, "declared, never written");
}
